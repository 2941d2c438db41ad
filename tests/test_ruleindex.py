"""The words a rule's pattern needs are necessary: no line the pattern matches lacks them,
so skipping the rules whose words a line lacks changes no diagnosis."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from launchx import ruleindex, rulematch
from launchx.ruleindex import Word, needed


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        # a run of literal characters, the longest where there are several
        (r"NCCL error: (\w+) failed", {Word("NCCL error: ", False)}),
        # each branch of an alternation names its own word: any of them may be the one
        (
            r"(?i)socket timeout|timed out .* socket",
            {Word("socket timeout", True), Word("timed out ", True)},
        ),
        # an optional character ends the run before it; a required repeat keeps its word
        (r"abc?d", {Word("ab", False)}),
        (r"x(?:ab)+y", {Word("ab", False)}),
        # a caseless group inside a case-sensitive pattern
        (r"(?i:Killed)process", {Word("process", False)}),
        (r"(?i:Killed) p", {Word("killed", True)}),
        # named groups and classes are no words; what stands beside them is
        (r"(?P<rank>\d+) exited", {Word(" exited", False)}),
    ],
)
def test_the_words_a_pattern_needs(pattern: str, words: set[Word]) -> None:
    assert needed(pattern) == frozenset(words)


@pytest.mark.parametrize(
    "pattern",
    [
        r"[abc]+\d",  # nothing literal
        r"(?:foo)?\s+",  # only an optional word
        r"foo|\d+",  # a branch without a word: a line may match it with no word at all
        "(?i)\u00e9chec",  # a caseless letter outside ASCII folds beyond lower-casing
    ],
)
def test_a_pattern_without_a_word_it_needs_is_tried_on_every_line(pattern: str) -> None:
    assert needed(pattern) is None
    index = ruleindex.RuleIndex([[pattern], ["zzz"]])
    assert index.rules("nothing here") == {0}


def test_letters_outside_ascii_that_a_caseless_pattern_matches_still_find_its_rule() -> None:
    """``re`` matches the Kelvin sign for k, the long s for s, the Turkish i's for i."""
    patterns = ["(?i)killed", "(?i)sigsegv", "(?i)init"]
    index = ruleindex.RuleIndex([[p] for p in patterns])
    for rule, text in enumerate(("\u212ailled", "\u017figsegv", "\u0130n\u0131t")):
        assert re.search(patterns[rule], text), text
        assert rule in index.rules(text), text


def test_the_two_engines_find_the_same_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    patterns = [c.rule.patterns for c in rulematch.compiled()]
    with_hyperscan = ruleindex.RuleIndex(patterns)
    monkeypatch.setitem(sys.modules, "hyperscan", None)
    without = ruleindex.RuleIndex(patterns)
    for text in (
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
        "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1",
        "[rank3]: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5)",
        "ERROR: Unexpected bus error encountered in worker. \u212a",
        "nothing at all",
        "\u672a\u627e\u5230\u547d\u4ee4",
    ):
        assert with_hyperscan.rules(text) == without.rules(text), text


_PATTERNS = [(n, p) for n, c in enumerate(rulematch.compiled()) for p in c.rule.patterns]


@settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_every_line_a_rules_pattern_matches_is_tried_on_that_rule(data: st.DataObject) -> None:
    """Lines drawn to match a pattern of the real rule table (with text around them) are
    always given to that pattern's rule."""
    rule, pattern = data.draw(st.sampled_from(_PATTERNS))
    try:
        strategy = st.from_regex(pattern)
    except Exception:  # a construct the generator does not draw from (a look-behind)
        return
    text = data.draw(strategy)
    assert re.search(pattern, text)
    assert rule in rulematch.rule_index().rules(text), (pattern, text)
