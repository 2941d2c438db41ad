"""Which rules a log line may match: the literal text each rule's pattern cannot match
without, looked for once per line.

Trying every rule on every line that one alternation of all the patterns picked out took
nine tenths of the time a diagnosis of the corpus's logs took (a regex search per pattern
per line, and the alternation's own search, which tries each of its branches at each
position). Most patterns hold words that every match of them contains: ``(?i)socket
timeout|timed out .* socket`` cannot match a line without "socket timeout" or "timed out".
A line that holds none of a pattern's words cannot match that pattern, so a rule is tried
only on the lines holding one of the words of one of its patterns. The words are necessary
conditions read off the pattern's parse, never guesses, so the rules that match are exactly
those that matched when every rule was tried; a pattern whose words cannot be named is
tried on every line.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

_p: Any
_c: Any
try:  # the parser ``re`` compiles with (private; its shape is Python 3.11's to 3.13's)
    _p = importlib.import_module("re._parser")
    _c = importlib.import_module("re._constants")
except ImportError:  # pragma: no cover - Python 3.10 names them sre_parse and sre_constants
    try:
        _p = importlib.import_module("sre_parse")
        _c = importlib.import_module("sre_constants")
    except ImportError:  # another Python: every pattern is tried on every line
        _p = _c = None
# (Python 3.10 has neither atomic groups nor possessive repeats)
_ATOMIC = getattr(_c, "ATOMIC_GROUP", None)
_REPEATS = tuple(
    getattr(_c, n) for n in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT") if hasattr(_c, n)
)

# The only characters outside ASCII that a case-insensitive pattern's ASCII letter matches
# (``re`` folds the Turkish dotted and dotless i, the long s and the Kelvin sign): written
# as their letters, a line's folded text holds every caseless word a match spans.
_EXOTIC = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


@dataclass(frozen=True)
class Word:
    text: str  # lower-cased when ``caseless``
    caseless: bool


def needed(pattern: str) -> frozenset[Word] | None:
    """Words of which every match of ``pattern`` holds at least one, or None where none
    can be named (then every line may match it)."""
    if _p is None:
        return None
    try:
        parsed = _p.parse(pattern)
        return _of_sequence(list(parsed), bool(parsed.state.flags & re.IGNORECASE))
    except (re.error, AttributeError, TypeError, ValueError):  # a parse of another shape
        return None


def _of_sequence(items: Sequence[tuple[Any, Any]], caseless: bool) -> frozenset[Word] | None:
    """The best set among those the items of a sequence each require: a run of literal
    characters, a group or repeat that must match, an alternation whose every branch names
    words."""
    options: list[frozenset[Word]] = []
    run: list[str] = []

    def close() -> None:
        if run:
            options.append(_word("".join(run), caseless))
            run.clear()

    for op, av in items:
        if op is _c.LITERAL:
            run.append(chr(av))
            continue
        close()
        got: frozenset[Word] | None = None
        if op is _c.SUBPATTERN:
            _group, add, remove, sub = av
            inner = (caseless or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE
            got = _of_sequence(list(sub), inner)
        elif op is _ATOMIC:
            got = _of_sequence(list(av), caseless)
        elif op in _REPEATS and av[0] >= 1:
            got = _of_sequence(list(av[2]), caseless)
        elif op is _c.BRANCH:
            got = _of_branches(av[1], caseless)
        # (anything else, a class, an anchor, a look-around, an optional part, requires no
        # word: it only ends the run of literal characters)
        if got:
            options.append(got)
    close()
    usable = [o for o in options if o]
    if not usable:
        return None
    # the most selective: the longest shortest word, then the fewest words
    return max(usable, key=lambda o: (min(len(w.text) for w in o), -len(o)))


def _of_branches(branches: Iterable[Any], caseless: bool) -> frozenset[Word] | None:
    words: set[Word] = set()
    for branch in branches:
        got = _of_sequence(list(branch), caseless)
        if got is None:
            return None
        words |= got
    return frozenset(words)


def _word(text: str, caseless: bool) -> frozenset[Word]:
    if caseless and not text.isascii():
        # a caseless letter outside ASCII folds in ways a lower-cased search would miss
        return frozenset()
    return frozenset({Word(text.lower() if caseless else text, caseless)})


class RuleIndex:
    """The rules each line may match, given each rule's patterns."""

    def __init__(self, rule_patterns: Sequence[Sequence[str]]) -> None:
        self.count = len(rule_patterns)
        always: set[int] = set()
        rules_of: dict[Word, set[int]] = {}
        for rule, patterns in enumerate(rule_patterns):
            for pattern in patterns:
                words = needed(pattern)
                if words is None:
                    always.add(rule)
                    continue
                for w in words:
                    rules_of.setdefault(w, set()).add(rule)
        self.always = frozenset(always)
        self.words = tuple(rules_of)
        self._rules = tuple(frozenset(rules_of[w]) for w in self.words)
        self._finder = _finder(self.words)

    def rules(self, text: str) -> frozenset[int]:
        """The rules with a pattern that may match ``text``."""
        found = self._finder(text)
        if not found:
            return self.always
        return self.always.union(*(self._rules[i] for i in found))


Finder = Callable[[str], list[int]]


def _finder(words: Sequence[Word]) -> Finder:
    return _hyperscan_finder(words) or _find_finder(words)


def _folded(text: str) -> str:
    return text.translate(_EXOTIC).lower()


def _literal(text: str) -> bytes:
    """``text`` as an expression of its UTF-8 bytes, each written ``\\xHH``: no byte is
    special to Hyperscan's parser, a NUL included."""
    return b"".join(b"\\x%02x" % byte for byte in _utf8(text))


def _utf8(text: str) -> bytes:
    return text.encode(errors="surrogatepass")


def _find_finder(words: Sequence[Word]) -> Finder:
    """Where Hyperscan is missing: a substring test per word."""
    exact = [(i, w.text) for i, w in enumerate(words) if not w.caseless]
    folded = [(i, w.text) for i, w in enumerate(words) if w.caseless]

    def find(text: str) -> list[int]:
        low = _folded(text)
        return [i for i, t in exact if t in text] + [i for i, t in folded if t in low]

    return find


def _hyperscan_finder(words: Sequence[Word]) -> Finder | None:
    """Every word found in one pass of Hyperscan's literal matcher per text (the folded text
    for the caseless words), or None where it is not installed or cannot compile them."""
    try:
        import hyperscan as hs
    except ImportError:
        return None
    dbs: list[Any] = []
    try:
        for caseless in (False, True):
            ids = [i for i, w in enumerate(words) if w.caseless == caseless]
            if not ids:
                dbs.append(None)
                continue
            db = hs.Database(mode=hs.HS_MODE_BLOCK)
            db.compile(
                expressions=[_literal(words[i].text) for i in ids],
                ids=ids,
                elements=len(ids),
                flags=[hs.HS_FLAG_SINGLEMATCH] * len(ids),
            )
            dbs.append(db)
    except hs.error:
        return None
    exact_db, folded_db = dbs

    def find(text: str) -> list[int]:
        found: list[int] = []

        def hit(pid: int, _frm: int, _to: int, _flags: int, _ctx: object) -> None:
            found.append(pid)

        if exact_db is not None:
            exact_db.scan(_utf8(text), match_event_handler=hit)
        if folded_db is not None:
            folded_db.scan(_utf8(_folded(text)), match_event_handler=hit)
        return found

    return find
