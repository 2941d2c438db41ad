"""Hyperscan's one pass over a log finds what a ``bytes.find`` pass per anchor finds: the same
lines, the same first anchor of each and where it is, the same lines after markers, for any
bytes and any span; and where Hyperscan is missing, the scanner searches with ``find`` and
reads the same lines. The scanner's rules (``logscan``'s anchors and markers) and small word
lists both, so an anchor list that makes the engines disagree fails here, not in a user's
diagnosis."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from launchx import logscan, logsource
from launchx.anchorlines import OnePass, after_markers, first_anchors, one_pass
from launchx.logscan import SourceInfo

DEV = Path(__file__).parent / "fixtures" / "logs" / "dev"
hyperscan = pytest.importorskip("hyperscan")


def _reference(
    low: bytes,
    lo: int,
    hi: int,
    anchors: list[bytes],
    marked: dict[bytes, bytes],
    next_line: list[bytes],
) -> dict[int, int]:
    """``logscan.find_lines``'s search, for any words: ``first_anchors`` with the markers,
    then ``after_markers``."""
    found: dict[int, int] = {}
    after: list[int] = []
    first_anchors(low, lo, hi, anchors, found, marked, after)
    after_markers(low, lo, hi, next_line, after)
    for pos in after:
        found.setdefault(pos, pos)
    return found


_ANCHORS = [b"error", b"kill", b"killed", b"out of", b"of mem", b"ll"]
_MARKED = {b"error": b"last error:", b"kill": b"kill -9"}
_NEXT = [b"first):"]
_PIECES = [*_ANCHORS, *_MARKED.values(), *_NEXT, b"\n", b" ", b"x", b"e", b"rror", b"\r\n"]


@settings(max_examples=400, deadline=None)
# a span that starts inside a line whose marker lies before the span (the scanner's pieces of
# one enormous line)
@example(parts=[b"last error:", b"\r\n", b"error", b"error"], cut=(0.75, 0.25))
@example(parts=[b"last error:", b" ", b"error", b"\n", b"x"], cut=(0.1, 1.0))
@given(
    parts=st.lists(st.sampled_from(_PIECES), max_size=60),
    cut=st.tuples(st.floats(0, 1), st.floats(0, 1)),
)
def test_one_pass_finds_what_find_finds_for_any_bytes_and_span(
    parts: list[bytes], cut: tuple[float, float]
) -> None:
    low = b"".join(parts)
    lo, hi = sorted(int(c * len(low)) for c in cut)
    search = OnePass(hyperscan, _ANCHORS, _MARKED, _NEXT)
    assert search.lines(low, lo, hi) == _reference(low, lo, hi, _ANCHORS, _MARKED, _NEXT)


def test_overlapping_anchors_keep_the_first_in_their_order_at_its_first_place() -> None:
    low = b"x killed then error, error\nout of memory\nkill -9 now\nafter\n"
    search = OnePass(hyperscan, _ANCHORS, _MARKED, _NEXT)
    found = search.lines(low, 0, len(low))
    assert found[0] == low.index(b"error")  # "error" comes before "kill" in the list
    second = low.index(b"out of")
    assert found[second] == second
    after = low.index(b"after")
    assert found[after] == after  # the line after "kill -9"


def test_the_scanners_words_find_in_every_log_what_find_finds() -> None:
    search = logscan.one_pass_search()
    assert search is not None
    logs = sorted(DEV.glob("*.log"))
    assert len(logs) > 1000
    for path in logs:
        low = path.read_bytes().lower()
        third = len(low) // 3  # mostly inside a line: a span need not start one
        for lo, hi in ((0, len(low)), (third, len(low)), (0, 2 * third)):
            assert search.lines(low, lo, hi) == logscan.find_lines(low, lo, hi), path.name


def test_a_line_started_before_the_span_is_searched_whole_for_its_marker() -> None:
    low = b"last error: error\nnext\n"
    search = OnePass(hyperscan, _ANCHORS, _MARKED, _NEXT)
    found = search.lines(low, 2, len(low))
    assert found == _reference(low, 2, len(low), _ANCHORS, _MARKED, _NEXT)
    assert found[low.index(b"next")] == low.index(b"next")


def test_a_marker_must_hold_its_anchor() -> None:
    with pytest.raises(ValueError, match="does not hold its anchor"):
        OnePass(hyperscan, [b"error"], {b"error": b"last failure:"}, [])


def test_without_hyperscan_the_scanner_finds_the_same_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    body = b"".join(p.read_bytes().split(b"\n", 3)[3] for p in sorted(DEV.glob("*.log"))[:300])

    def scan() -> logscan.SourceScan:
        return logscan.scan_stream(io.BytesIO(body), SourceInfo(name="r.log"), chunk=1 << 16)

    assert logscan.one_pass_search() is not None  # (cached before the import is blocked)
    fast = scan()
    monkeypatch.setattr(logscan, "one_pass_search", lambda: None)
    assert scan() == fast
    monkeypatch.setitem(sys.modules, "hyperscan", None)  # import raises ImportError
    assert one_pass([b"error"], {}, []) is None


def test_no_helper_process_is_started_where_one_pass_searches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from launchx import anchorfind

    asked: list[list[str]] = []
    monkeypatch.setattr(anchorfind, "start", lambda paths, anchors: asked.append(paths))
    log = tmp_path / "r.log"
    log.write_bytes(b"RuntimeError: boom\n")
    logsource.diagnose_paths([str(log)], io.BytesIO())
    assert asked == []
    monkeypatch.setattr(logscan, "one_pass_search", lambda: None)
    logsource.diagnose_paths([str(log)], io.BytesIO())
    assert asked == [[str(log)]]
