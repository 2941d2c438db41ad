"""Which lines of a lower-cased buffer hold an anchor, and which anchor first.

The scanner (``logscan``) and its helper process (``anchorfind``) both search with this one
function, so the helper's answer for a line is the scanner's own; it imports nothing, so
the helper starts in tens of milliseconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


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
