"""Find the lines of a log that hold an anchor, and let a second process search half of them.

Searching a long log for the anchors is most of what ``launchx diagnose`` spends on it: one
``bytes.find`` pass per anchor, 20-50 ms each per 100 MB, on one core. A file on disk can be
read twice, so a helper process (a second interpreter running ``serve``) searches it for
the anchors at the end of the list while the scanner searches for the others and reads the
lines it found; on two cores a 100 MB log is read in about two thirds of the time.

The helper's answer is the same as the scanner's own search would be (the tests hold them
to it): for each line, the first of its anchors that the line holds, in the anchors' order,
and where. When the helper cannot answer for a part of a file (it died, it could not open
the file, the file grew after it read it, a line too long to hold), the scanner searches
that part itself. Only regular files are given to it: a FIFO read twice would split its
data between the two readers.

This module imports only the standard library: the helper starts in tens of milliseconds.
"""

from __future__ import annotations

import contextlib
import os
import struct
import subprocess
import sys
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from typing import IO, BinaryIO

CHUNK = 4 << 20
MIN_BYTES = 8 << 20
"""A file shorter than this is searched in one process: starting the helper (a Python
interpreter, about 30 ms of a core) costs more than it saves below a few MB."""

# (file index, covered, n): the lines of that file starting before ``covered`` are answered
_HEADER = struct.Struct("<qqq")
_GAVE_UP = -1
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); from launchx.anchorfind import main; "
    "sys.exit(main(sys.argv[2:]))"
)


def first_anchors(
    low: bytes, lo: int, hi: int, anchors: Sequence[bytes], found: dict[int, int]
) -> None:
    """Add ``line start -> position`` to ``found`` for each line in ``[lo, hi)`` of the
    lower-cased ``low`` holding one of ``anchors``: the first such anchor in their order,
    at its first place in the line. Lines already in ``found`` keep what they have."""
    for a in anchors:
        i = low.find(a, lo, hi)
        while i != -1:
            start = low.rfind(b"\n", 0, i) + 1
            found.setdefault(start, i)
            nl = low.find(b"\n", i)
            if nl == -1 or nl >= hi:
                break
            i = low.find(a, nl, hi)


def usable(size: int) -> bool:
    """Whether a helper is worth starting for a file of ``size`` bytes on this machine."""
    if size < MIN_BYTES:
        return False
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return cores >= 2


class Helper:
    """The scanner's side of a helper searching ``paths``, one after the other, for
    ``anchors``; the scanner must read them in the same order."""

    def __init__(self, paths: Sequence[str], anchors: Sequence[bytes], chunk: int = CHUNK) -> None:
        hexed = ",".join(a.hex() for a in anchors)
        # isolated (-I: no PYTHON* variables, no current directory on the path) and without
        # site-packages (-S, which it does not need): it imports this very module, never a
        # launchx that happens to sit in the current directory
        args = [sys.executable, "-I", "-S", "-c", _BOOT, _PACKAGE_ROOT, hexed, str(chunk), *paths]
        self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self._file = -1  # the file the buffered answers are for
        self._covered = 0  # they cover the lines starting before this offset
        self._starts = array("q")
        self._places = array("q")

    def view(self, index: int) -> FileView:
        """The answers for the file at ``index`` of ``paths``."""
        return FileView(self, index)

    def lines(self, index: int, lo: int, hi: int) -> list[tuple[int, int]] | None:
        """The helper's ``(line start, anchor position)`` pairs, offsets in file
        ``index``, for lines starting in ``[lo, hi)``; None when it cannot answer for all
        of that range (the caller searches the rest of that file itself)."""
        while self._file != index or self._covered < hi:
            if self._file > index or not self._read():
                return None
        first = bisect_left(self._starts, lo)
        last = bisect_left(self._starts, hi)
        out = list(zip(self._starts[first:last], self._places[first:last], strict=True))
        del self._starts[:last]
        del self._places[:last]
        return out

    def _read(self) -> bool:
        """Take the helper's next answer; False when there is none (it ended or died)."""
        out = None if self._proc is None else self._proc.stdout
        head = None if out is None else _read_exactly(out, _HEADER.size)
        if out is None or head is None:
            self.close()
            return False
        index, covered, n = _HEADER.unpack(head)
        body = _read_exactly(out, 16 * n) if n >= 0 else None
        if body is None:
            self.close()
            return False
        if index != self._file:
            self._file = index
            del self._starts[:]
            del self._places[:]
        pairs = array("q")
        pairs.frombytes(body)
        self._starts.extend(pairs[:n])
        self._places.extend(pairs[n:])
        self._covered = covered
        return True

    def close(self) -> None:
        """Stop the helper (it may still be reading) and reap it."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        if proc.stdout is not None:
            proc.stdout.close()
        proc.wait()


class FileView:
    """One file's answers from a ``Helper`` (what ``logscan.scan_stream`` asks)."""

    def __init__(self, helper: Helper, index: int) -> None:
        self._helper = helper
        self._index = index

    def lines(self, lo: int, hi: int) -> list[tuple[int, int]] | None:
        return self._helper.lines(self._index, lo, hi)


def _read_exactly(fh: IO[bytes], n: int) -> bytes | None:
    data = fh.read(n)
    return data if len(data) == n else None


def serve(paths: Sequence[str], anchors: Sequence[bytes], out: BinaryIO, chunk: int) -> None:
    """The helper: search each file chunk by chunk, each chunk cut after its last newline,
    and write each chunk's answer as soon as it has it (the scanner reads them in step).
    A file it cannot read or hold a line of gets an answer that covers nothing."""
    for index, path in enumerate(paths):
        try:
            with open(path, "rb") as fh:
                _serve_file(index, fh, (anchors, chunk), out)
        except OSError:
            out.write(_HEADER.pack(index, _GAVE_UP, 0))
        out.flush()


def _serve_file(index: int, fh: BinaryIO, how: tuple[Sequence[bytes], int], out: BinaryIO) -> None:
    anchors, chunk = how
    offset = 0  # of buf[0] in the file
    carry = b""
    while True:
        data = fh.read(chunk)
        buf = carry + data
        cut = buf.rfind(b"\n") + 1 if data else len(buf)
        if data and cut == 0:
            if len(buf) > 4 * chunk:
                out.write(_HEADER.pack(index, _GAVE_UP, 0))
                return
            carry = buf
            continue
        found: dict[int, int] = {}
        first_anchors(buf[:cut].lower(), 0, cut, anchors, found)
        starts = sorted(found)
        pairs = array("q", [offset + s for s in starts])
        pairs.extend(offset + found[s] for s in starts)
        out.write(_HEADER.pack(index, offset + cut, len(starts)))
        out.write(pairs.tobytes())
        out.flush()
        if not data:
            return
        offset += cut
        carry = buf[cut:]


def main(argv: Sequence[str]) -> int:
    hexed, chunk, *paths = argv
    anchors = [bytes.fromhex(h) for h in hexed.split(",")]
    with contextlib.suppress(OSError):  # BrokenPipeError: the scanner stopped listening
        serve(paths, anchors, sys.stdout.buffer, int(chunk))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
