"""A helper process that searches long log files for half the anchors, on a second core,
where Hyperscan is not installed (with it, ``anchorlines.OnePass`` finds them all in one pass
and no helper is started).

Without Hyperscan, searching a long log for the anchors is most of what ``launchx diagnose``
spends on it: one ``bytes.find`` pass per anchor, 20-50 ms each per 100 MB. A file on disk can be
read twice, so a helper process (a second interpreter running ``serve``) searches the files
for the anchors at the end of the list while the scanner searches for the others and reads
the lines it found; on two cores a 100 MB log is read in about 0.7 of one core's time.

The helper's answer is the scanner's own search (``anchorlines.first_anchors``): for each
line, the first of its anchors that the line holds, in the anchors' order, and where. When
the helper cannot answer for a part of a file (it died or could not start, it could not
open the file, the file grew or shrank between its read and the scanner's, a line too long
to hold), the scanner searches that part itself. Only regular files are given to it: a FIFO
read twice would split its data between the two readers. The helper imports nothing but
the standard library and ``anchorlines``.
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

from launchx.anchorlines import first_anchors

CHUNK = 4 << 20
MIN_BYTES = 8 << 20
"""Files shorter than this together are searched in one process: starting the helper (a
Python interpreter, about 30 ms of a core) costs more than it saves below a few MB."""

# (file index, covered, n): the file's lines starting before ``covered`` are answered
_HEADER = struct.Struct("<qqq")
_GAVE_UP = -1
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); from launchx.anchorfind import main; "
    "sys.exit(main(sys.argv[2:]))"
)


def _cores() -> int:
    from launchx import detect  # (not in the helper, which starts on the standard library)

    return detect.usable_cpus()


def start(
    paths: Sequence[str], anchors: Sequence[bytes], *, force: bool = False, chunk: int = CHUNK
) -> Helper | None:
    """A helper searching ``paths`` (regular files, in the order they will be scanned) for
    ``anchors``; None where it would not pay (short logs, one core, a frozen executable that
    is not a Python interpreter) or cannot start. ``force``: whatever the logs (the tests)."""
    if not paths or getattr(sys, "frozen", False):
        return None
    if not force and (sum(_size(p) for p in paths) < MIN_BYTES or _cores() < 2):
        return None
    try:
        return Helper(paths, anchors, chunk)
    except OSError:  # no interpreter to start, no process to spare
        return None


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


class Helper:
    """The scanner's side of a helper searching ``paths``, one after the other, for
    ``anchors``; the scanner must read them in the same order."""

    def __init__(self, paths: Sequence[str], anchors: Sequence[bytes], chunk: int = CHUNK) -> None:
        hexed = ",".join(a.hex() for a in anchors)
        # isolated (-I: no PYTHON* variables, no current directory on the path) and without
        # site-packages (-S, which it does not need): it imports this very package, never a
        # launchx that happens to sit in the current directory. The paths go on its stdin
        # (any number of them, any bytes but NUL), not its command line.
        args = [sys.executable, "-I", "-S", "-c", _BOOT, _PACKAGE_ROOT, hexed, str(chunk)]
        proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self._proc: subprocess.Popen[bytes] | None = proc
        try:
            assert proc.stdin is not None
            proc.stdin.write(b"\0".join(os.fsencode(p) for p in paths))
            proc.stdin.close()
        except BaseException:  # a broken pipe, or Ctrl-C while writing: leave no helper
            self.close()
            raise
        self._file = -1  # the file the buffered answers are for
        self._covered = 0  # they cover the lines starting before this offset
        self._starts = array("q")
        self._places = array("q")
        # windows answered, and refused (the tests' evidence of which happened)
        self.answered = self.refused = 0

    def view(self, index: int) -> FileView:
        """The answers for the file at ``index`` of ``paths``."""
        return FileView(self, index)

    def lines(
        self, index: int, lo: int, hi: int, final: bool = False
    ) -> list[tuple[int, int]] | None:
        """The helper's ``(line start, anchor position)`` pairs, offsets in file
        ``index``, for lines starting in ``[lo, hi)``; None when it cannot answer for all
        of that range (the caller searches the rest of that file itself). ``final``: ``hi``
        is where the scanner's read of the file ended, which must be where the helper's
        did (a file that grew between the two reads has a last line the helper saw longer)."""
        while self._file != index or self._covered < hi:
            if self._file > index or not self._read(index):
                self.refused += 1
                return None
        if final and self._covered != hi:
            self.refused += 1
            return None
        first = bisect_left(self._starts, lo)
        last = bisect_left(self._starts, hi)
        out = list(zip(self._starts[first:last], self._places[first:last], strict=True))
        del self._starts[:last]
        del self._places[:last]
        self.answered += 1
        return out

    def _read(self, wanted: int) -> bool:
        """Take the helper's next answer (an earlier file's is read and dropped: the
        scanner stopped asking for it); False when there is none (it ended or died)."""
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
        self._covered = covered
        if index >= wanted:
            pairs = array("q")
            pairs.frombytes(body)
            self._starts.extend(pairs[:n])
            self._places.extend(pairs[n:])
        return True

    def close(self) -> None:
        """Stop the helper (it may still be reading) and reap it."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        proc.wait()


class FileView:
    """One file's answers from a ``Helper`` (``logscan.FarAnswers``)."""

    def __init__(self, helper: Helper, index: int) -> None:
        self._helper = helper
        self._index = index

    def lines(self, lo: int, hi: int, final: bool = False) -> list[tuple[int, int]] | None:
        return self._helper.lines(self._index, lo, hi, final)


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
    hexed, chunk = argv
    anchors = [bytes.fromhex(h) for h in hexed.split(",")]
    raw = sys.stdin.buffer.read()
    paths = [os.fsdecode(p) for p in raw.split(b"\0")] if raw else []
    with contextlib.suppress(OSError):  # BrokenPipeError: the scanner stopped listening
        serve(paths, anchors, sys.stdout.buffer, int(chunk))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
