"""Which lines of a lower-cased buffer hold an anchor, and which anchor first.

Two engines give the same answer. ``OnePass`` finds every anchor and marker in one pass of
Hyperscan's multi-literal matcher, where Hyperscan is installed. ``first_anchors`` makes a
``bytes.find`` pass per anchor; the scanner (``logscan``) and its helper process
(``anchorfind``) both search with it where Hyperscan is missing, so the helper's answer for
a line is the scanner's own. The module imports only the standard library (Hyperscan when a
``OnePass`` is made), so the helper starts in tens of milliseconds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from types import ModuleType


def first_anchors(
    low: bytes,
    lo: int,
    hi: int,
    anchors: Sequence[bytes],
    found: dict[int, int],
    markers: Mapping[bytes, bytes] | None = None,
    after: list[int] | None = None,
) -> None:
    """Add ``line start -> position`` to ``found`` for each line in ``[lo, hi)`` of the
    lower-cased ``low`` holding one of ``anchors``: the first such anchor in their order,
    at its first place in the line. Lines already in ``found`` keep what they have.
    ``markers``: for an anchor there, a line of it that also holds its marker adds the
    start of the next line to ``after`` (the marker is looked for only in its anchor's
    lines, with no pass of its own)."""
    for a in anchors:
        marker = None if markers is None else markers.get(a)
        i = low.find(a, lo, hi)
        while i != -1:
            start = low.rfind(b"\n", 0, i) + 1
            found.setdefault(start, i)
            nl = low.find(b"\n", i)
            if nl == -1 or nl >= hi:
                break
            marked = marker is not None and nl + 1 < hi and low.find(marker, start, nl) != -1
            if marked and after is not None:
                after.append(nl + 1)
            i = low.find(a, nl, hi)


def after_markers(low: bytes, lo: int, hi: int, markers: Sequence[bytes], after: list[int]) -> None:
    """Add to ``after`` the start of the line after each line in ``[lo, hi)`` of ``low``
    that holds one of ``markers`` (a marker whose next line is read whatever it holds), where
    that line starts before ``hi``: a ``bytes.find`` pass per marker."""
    for marker in markers:
        i = low.find(marker, lo, hi)
        while i != -1:
            nl = low.find(b"\n", i)
            if nl == -1 or nl + 1 >= hi:
                break
            after.append(nl + 1)
            i = low.find(marker, nl, hi)


class OnePass:
    """All the anchors and markers of a scan found in one pass over the bytes, by Hyperscan's
    multi-literal engine (a few hundredths of a second per 100 MB, where one ``bytes.find``
    pass per anchor costs seconds): the same lines, and for each the same anchor position,
    as ``first_anchors`` with its markers and ``after_markers``.

    ``marked``: anchor -> marker, as ``first_anchors``'s ``markers`` (each marker holds its
    anchor, so a line holding the marker is one of that anchor's lines). ``next_line``:
    markers whose next line is read, looked for in every line."""

    def __init__(
        self,
        hs: ModuleType,
        anchors: Sequence[bytes],
        marked: Mapping[bytes, bytes],
        next_line: Sequence[bytes],
    ) -> None:
        for anchor, marker in marked.items():
            if anchor not in marker:
                raise ValueError(f"marker {marker!r} does not hold its anchor {anchor!r}")
        words = [*anchors, *marked.values(), *next_line]
        self._anchors = len(anchors)
        # the marker of each anchor that has one: a line that starts before the span is
        # searched for it whole, as first_anchors does (the pass sees only the span)
        self._marker_of = {anchors.index(a): m for a, m in marked.items() if a in anchors}
        self._lengths = [len(w) for w in words]
        self._db = hs.Database(mode=hs.HS_MODE_BLOCK)
        # the bytes are lower-cased already; escaped, every word is a literal
        self._db.compile(
            expressions=[re.escape(w) for w in words], ids=list(range(len(words))), flags=0
        )

    def lines(self, low: bytes, lo: int, hi: int) -> dict[int, int]:
        """Line start -> first anchor position for each line in ``[lo, hi)`` of the lower-cased
        ``low`` holding an anchor (the first of them in their order, at its first place in the
        line), and the start of each line after a marker's (that line's start)."""
        hits: list[tuple[int, int]] = []
        self._db.scan(
            low[lo:hi] if lo or hi != len(low) else low,
            match_event_handler=lambda pid, _frm, to, _flags, _ctx: hits.append((pid, to)),
        )
        best: dict[int, tuple[int, int]] = {}
        after: list[int] = []
        looked: set[int] = set()  # the marked anchors looked for in the span's first line
        line_lo = line_hi = -1  # the line of the last hit: [its start, its newline)
        for pid, to in hits:
            pos = lo + to - self._lengths[pid]
            if not line_lo <= pos < line_hi:
                line_lo = low.rfind(b"\n", 0, pos) + 1
                nl = low.find(b"\n", pos)
                line_hi = len(low) if nl == -1 else nl
            if pid < self._anchors:
                old = best.get(line_lo)
                if old is None or (pid, pos) < old:
                    best[line_lo] = (pid, pos)
                # only the span's first line can start before it: searched once per anchor
                if line_lo < lo and pid in self._marker_of and pid not in looked:
                    looked.add(pid)
                    marker = self._marker_of[pid]
                    if line_hi + 1 < hi and low.find(marker, line_lo, line_hi) != -1:
                        after.append(line_hi + 1)
            elif line_hi + 1 < hi:
                after.append(line_hi + 1)
        found = {start: pos for start, (_, pos) in best.items()}
        for start in after:
            found.setdefault(start, start)
        return found


def one_pass(
    anchors: Sequence[bytes], marked: Mapping[bytes, bytes], next_line: Sequence[bytes]
) -> OnePass | None:
    """A ``OnePass`` for these words, or None where Hyperscan is not installed (CPUs it has
    no wheels for) or cannot compile them: there ``first_anchors`` searches, and a helper
    process takes half of the anchors in long logs."""
    try:
        import hyperscan
    except ImportError:
        return None
    try:
        return OnePass(hyperscan, anchors, marked, next_line)
    except hyperscan.error:  # a CPU its library was not built for (no SSSE3): find searches
        return None
