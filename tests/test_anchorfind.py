"""The helper process that searches half the anchors where Hyperscan is not installed: a scan
with it is the scan without it, line for line, whatever the chunks, and a helper that dies,
gives up, cannot read a file or read a file that grew only makes the scanner search for
itself. Real helper processes, small chunks; each test also checks whether the helper's
answers were used or refused, so a helper silently left out cannot pass for one that
works."""

from __future__ import annotations

import io
import os
import re
import signal
import sys
import threading
from pathlib import Path

import pytest

from launchx import anchorfind, detect, logscan, logsource
from launchx.anchorlines import first_anchors
from launchx.logscan import SourceInfo

DEV = Path(__file__).parent / "fixtures" / "logs" / "dev"
_BASELINE = set(
    re.findall(r"^- `(\S+\.log)`$", (DEV.parent / "SPLIT.md").read_text(encoding="utf-8"), re.M)
)
# The 51 baseline logs first, which never change, then the rest: the tests that need the
# helper to answer the first chunks depend on how many lines those chunks hold, which a new
# log sorted in among the first ones would change.
assert len(_BASELINE) == 51, "SPLIT.md lists the 51 baseline logs as - `name.log`"
_ORDER = sorted(DEV.glob("*.log"), key=lambda p: (p.name not in _BASELINE, p.name))


def _bodies(count: int, start: int = 0) -> bytes:
    """Real logs one after another (their headers dropped): every shape the rules read."""
    out = []
    for path in _ORDER[start : start + count]:
        out.extend(path.read_bytes().splitlines(keepends=True)[3:])
    return b"".join(out)


def _serial(data: bytes, chunk: int) -> logscan.SourceScan:
    return logscan.scan_stream(io.BytesIO(data), SourceInfo(name="r.log"), chunk=chunk)


def _start(paths: list[Path], chunk: int) -> anchorfind.Helper:
    helper = anchorfind.start([str(p) for p in paths], logscan.FAR_ANCHORS, force=True, chunk=chunk)
    assert helper is not None
    return helper


def _scan(path: Path, chunk: int, far: logscan.FarAnswers) -> logscan.SourceScan:
    with path.open("rb") as fh:
        return logscan.scan_stream(fh, SourceInfo(name="r.log"), chunk=chunk, far=far)


def test_first_anchors_keeps_the_first_anchor_of_each_line_in_their_order() -> None:
    low = b"a kill and an error\nnothing\nerror then kill\nkill"
    found: dict[int, int] = {}
    first_anchors(low, 0, len(low), [b"error", b"kill"], found)
    assert found == {0: 14, 28: 28, 44: 44}
    # a line found already keeps its place; lines before lo are not looked at
    found = {0: 2}
    first_anchors(low, 20, len(low), [b"kill"], found)
    assert found == {0: 2, 28: 39, 44: 44}


# (chunks of at least 4 KB: a line longer than four chunks sends the scanner on alone, and
# the corpus holds lines of a few KB)
@pytest.mark.parametrize("chunk", [4096, 1 << 14, 1 << 16])
def test_a_scan_with_the_helper_is_the_scan_without_it(tmp_path: Path, chunk: int) -> None:
    data = _bodies(120)
    path = tmp_path / "r.log"
    path.write_bytes(data)
    helper = _start([path], chunk)
    try:
        helped = _scan(path, chunk, helper.view(0))
    finally:
        helper.close()
    assert helped == _serial(data, chunk)
    assert len(helped.lines) > 100  # the logs were read, not skipped
    # every window was the helper's, to the last
    assert helper.refused == 0 and helper.answered >= len(data) // chunk // 2


def test_every_far_anchor_is_found_by_the_helper_in_the_anchors_order(tmp_path: Path) -> None:
    # one line per far anchor, and lines longer than the scanner looks at (8 KB) holding two
    # far anchors in the opposite order: the window kept around "the first anchor" must be
    # the same one either way
    lines = [f"progress {i} step\n" for i in range(50)]
    for i, a in enumerate(logscan.FAR_ANCHORS):
        lines.insert(i * 2, f"line {i}: {a.decode()}\n")
    first, last = logscan.FAR_ANCHORS[0].decode(), logscan.FAR_ANCHORS[-1].decode()
    lines.append(f"{last} {'x' * 9000} {first} RuntimeError: tail {'y' * 9000}\n")
    data = "".join(lines).encode()
    path = tmp_path / "r.log"
    path.write_bytes(data)
    helper = _start([path], 1 << 16)
    try:
        got = helper.view(0).lines(0, len(data), final=True)
    finally:
        helper.close()
    assert got is not None
    assert len(got) == len(logscan.FAR_ANCHORS) + 1
    _, long_anchor = got[-1]
    assert data[long_anchor : long_anchor + len(first)].decode() == first
    helper = _start([path], 1 << 16)
    try:
        assert _scan(path, 1 << 16, helper.view(0)) == _serial(data, 1 << 16)
    finally:
        helper.close()
    assert helper.refused == 0


def test_the_scanner_leaves_the_far_anchors_to_the_helper() -> None:
    # the lines that hold only a far anchor come from the helper's answers, not a second
    # search of the scanner's own: answers that hold nothing leave them out
    class Silent:
        def lines(self, lo: int, hi: int, final: bool = False) -> list[tuple[int, int]]:
            return []

    data = "".join(f"line {i}: {a.decode()}\n" for i, a in enumerate(logscan.FAR_ANCHORS))
    scan = logscan.scan_stream(io.BytesIO(data.encode()), SourceInfo(name="r.log"), far=Silent())
    assert scan.lines == ()
    assert len(_serial(data.encode(), logscan.CHUNK).lines) == len(logscan.FAR_ANCHORS)


def test_several_files_are_answered_in_order(tmp_path: Path) -> None:
    paths = []
    for i in range(4):
        p = tmp_path / f"rank-{i}.log"
        p.write_bytes(_bodies(25, start=40 * i))
        paths.append(p)
    helper = _start(paths, 2048)
    try:
        helped = [_scan(p, 2048, helper.view(k)) for k, p in enumerate(paths)]
    finally:
        helper.close()
    assert helped == [_serial(p.read_bytes(), 2048) for p in paths]
    assert helper.refused == 0 and helper.answered >= 4


class _Peak(anchorfind.Helper):
    """A helper whose buffered answers are measured after each read."""

    peak = 0

    def _read(self, wanted: int) -> bool:
        ok = super()._read(wanted)
        self.peak = max(self.peak, len(self._starts))
        return ok


def test_a_file_skipped_by_the_scanner_is_dropped_by_the_helper(tmp_path: Path) -> None:
    a, b = tmp_path / "a.log", tmp_path / "b.log"
    far = logscan.FAR_ANCHORS[0].decode()
    a.write_bytes("".join(f"step {i}: {far}\n" for i in range(20000)).encode())
    b.write_bytes(_bodies(30, start=60))
    helper = _Peak([str(a), str(b)], logscan.FAR_ANCHORS, 1024)
    try:
        # a.log's 20 000 answers are read and dropped, not kept, on the way to b.log's
        scan = _scan(b, 1024, helper.view(1))
        assert helper.refused == 0 and helper.peak < 1000
        # and a.log, asked for after, has nothing left: the scanner searches it itself
        assert helper.view(0).lines(0, 10) is None
    finally:
        helper.close()
    assert scan == _serial(b.read_bytes(), 1024)


def test_a_file_the_helper_cannot_read_is_searched_by_the_scanner(tmp_path: Path) -> None:
    gone, here = tmp_path / "gone.log", tmp_path / "here.log"
    here.write_bytes(_bodies(40))
    helper = _start([gone, here], 1024)
    try:
        assert helper.view(0).lines(0, 100) is None
        scan = _scan(here, 1024, helper.view(1))
    finally:
        helper.close()
    assert scan == _serial(here.read_bytes(), 1024)
    assert helper.refused == 1 and helper.answered > 0


def test_a_helper_that_dies_midway_leaves_the_scan_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a helper that answers the first chunk and dies (its answer, as the real one writes
    # it): the scanner takes that answer, then searches the rest itself
    data = _bodies(120)
    path = tmp_path / "r.log"
    path.write_bytes(data)
    wire = io.BytesIO()
    anchorfind.serve([str(path)], logscan.FAR_ANCHORS, wire, 4096)
    size = anchorfind._HEADER.size
    _, covered, n = anchorfind._HEADER.unpack(wire.getvalue()[:size])
    assert 0 < covered < len(data)
    first = tmp_path / "first-answer"
    first.write_bytes(wire.getvalue()[: size + 16 * n])
    monkeypatch.setattr(
        anchorfind,
        "_BOOT",
        "import sys; sys.stdin.buffer.read(); "
        f"sys.stdout.buffer.write(open({str(first)!r}, 'rb').read())",
    )
    helper = _start([path], 4096)
    try:
        scan = _scan(path, 4096, helper.view(0))
    finally:
        helper.close()
    assert scan == _serial(data, 4096)
    assert helper.answered >= 1 and helper.refused == 1


def test_a_helper_killed_is_reaped(tmp_path: Path) -> None:
    path = tmp_path / "r.log"
    path.write_bytes(_bodies(120))
    helper = _start([path], 512)
    proc = helper._proc
    assert proc is not None
    os.kill(proc.pid, signal.SIGKILL)
    assert _scan(path, 4096, helper.view(0)) == _serial(path.read_bytes(), 4096)
    helper.close()
    assert proc.returncode is not None  # waited for: no zombie left


def test_closing_a_helper_still_reading_kills_and_reaps_it(tmp_path: Path) -> None:
    path = tmp_path / "r.log"
    path.write_bytes(_bodies(200) * 20)  # more answers than the pipe holds: it waits to write
    helper = _start([path], 4096)
    proc = helper._proc
    assert proc is not None
    assert helper.view(0).lines(0, 4096) is not None  # it runs, and is far from done
    assert proc.poll() is None
    helper.close()
    assert proc.returncode is not None  # killed and waited for: no zombie left


def test_a_line_too_long_for_the_helper_is_searched_by_the_scanner(tmp_path: Path) -> None:
    data = (
        b"x" * 9000
        + b" RuntimeError: CUDA error: an illegal memory access\n"
        + b"srun: error: node3: task 1: Exited with exit code 1\n"
        + _bodies(10)
    )
    path = tmp_path / "r.log"
    path.write_bytes(data)
    # the helper reads 1 KB at a time and gives up on a 9 KB line; the scanner, reading
    # 8 KB at a time, holds it whole
    helper = _start([path], 1024)
    try:
        helped = _scan(path, 8192, helper.view(0))
    finally:
        helper.close()
    assert helper.refused == 1 and helper.answered == 0
    assert helped == _serial(data, 8192)
    assert any("illegal memory access" in ln.text for ln in helped.lines)


def test_a_file_that_grew_after_the_scanner_read_it_is_not_answered_past_its_end(
    tmp_path: Path,
) -> None:
    # the scanner read the log up to a last line without its newline; by the time the
    # helper read it, the writer had finished the line: the helper's answer for that line
    # points past the scanner's bytes, and must not be used
    seen = _bodies(30) + b"[rank0]: progress 10/100, CUDA out of"
    path = tmp_path / "r.log"
    path.write_bytes(seen + b" memory. Tried to allocate 2.00 GiB\n")
    helper = _start([path], 1 << 16)
    try:
        scan = logscan.scan_stream(
            io.BytesIO(seen), SourceInfo(name="r.log"), chunk=1 << 16, far=helper.view(0)
        )
    finally:
        helper.close()
    assert scan == _serial(seen, 1 << 16)
    assert helper.refused == 1


def test_the_helper_runs_this_launchx_not_one_in_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "launchx").mkdir()
    (tmp_path / "launchx" / "__init__.py").write_text("raise SystemExit('another launchx')\n")
    log = tmp_path / "r.log"
    log.write_bytes(_bodies(20))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    helper = _start([log], 1024)
    try:
        assert helper.view(0).lines(0, 1024) is not None
    finally:
        helper.close()


def test_odd_file_names_and_many_of_them_reach_the_helper(tmp_path: Path) -> None:
    # the paths travel on the helper's stdin, not its command line: names that look like
    # options, hold newlines or spaces, and more of them than a command line takes
    odd = [tmp_path / "-h", tmp_path / "a\nb c.log", tmp_path / "--help"]
    for p in odd:
        p.write_bytes(_bodies(5))
    many = [str(tmp_path / f"missing-{i:05d}-{'x' * 60}.log") for i in range(40000)]
    helper = anchorfind.start([*map(str, odd), *many], logscan.FAR_ANCHORS, force=True, chunk=1024)
    assert helper is not None
    try:
        for k, p in enumerate(odd):
            assert _scan(p, 1024, helper.view(k)) == _serial(p.read_bytes(), 1024)
        assert helper.refused == 0
    finally:
        helper.close()


def test_a_helper_that_cannot_start_is_no_helper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "r.log"
    log.write_bytes(_bodies(5))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python"))
    assert anchorfind.start([str(log)], logscan.FAR_ANCHORS, force=True) is None


def test_the_helper_is_only_started_where_it_pays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small, big = tmp_path / "small.log", tmp_path / "big.log"
    small.write_bytes(b"error\n" * 10)
    with big.open("wb") as fh:  # a sparse file: its size is what counts
        fh.truncate(anchorfind.MIN_BYTES)
    assert anchorfind.start([str(small)], logscan.FAR_ANCHORS) is None
    assert anchorfind.start([], logscan.FAR_ANCHORS, force=True) is None
    # the CPUs it may use are detect's (affinity capped by the cgroup's quota)
    monkeypatch.setattr(detect, "usable_cpus", lambda root="/": 1)
    assert anchorfind.start([str(big)], logscan.FAR_ANCHORS) is None
    monkeypatch.setattr(detect, "usable_cpus", lambda root="/": 2)
    helper = anchorfind.start([str(big)], logscan.FAR_ANCHORS)
    assert helper is not None
    helper.close()
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert anchorfind.start([str(big)], logscan.FAR_ANCHORS, force=True) is None


def test_diagnose_paths_uses_the_helper_and_closes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "logs").mkdir()
    for i in range(3):
        (tmp_path / "logs" / f"rank-{i}.log").write_bytes(_bodies(20, start=20 * i))
    started: list[anchorfind.Helper] = []
    real = anchorfind.start

    def spy(paths: list[str], anchors: tuple[bytes, ...]) -> anchorfind.Helper | None:
        h = real(paths, anchors, force=True, chunk=1024)
        if h is not None:
            started.append(h)
        return h

    monkeypatch.setattr(logscan, "one_pass_search", lambda: None)  # as without Hyperscan
    serial = logsource.diagnose_paths([str(tmp_path / "logs")], io.BytesIO())
    monkeypatch.setattr(anchorfind, "start", spy)
    helped = logsource.diagnose_paths([str(tmp_path / "logs")], io.BytesIO())
    assert len(started) == 1 and started[0]._proc is None  # reaped
    assert started[0].answered >= 3 and started[0].refused == 0
    assert helped == serial


@pytest.mark.timeout(60)  # a FIFO read wrongly blocks: fail, not hang
def test_a_fifo_among_the_logs_is_read_by_the_scanner_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = _bodies(30)
    fifo, regular = tmp_path / "rank-0.log", tmp_path / "rank-1.log"
    regular.write_bytes(_bodies(30, start=30))
    logs = [
        logsource.LogFile(fifo, SourceInfo(name="rank-0.log", rank=0)),
        logsource.LogFile(regular, SourceInfo(name="rank-1.log", rank=1)),
    ]

    def scan() -> list[logscan.SourceScan]:
        os.mkfifo(fifo)
        writer = threading.Thread(target=fifo.write_bytes, args=(body,), daemon=True)
        writer.start()
        try:
            scans, _notes = logsource._scan_logs(logs, io.BytesIO())
            return scans
        finally:
            writer.join(timeout=30)
            fifo.unlink()

    monkeypatch.setattr(logscan, "one_pass_search", lambda: None)  # as without Hyperscan
    serial = scan()
    asked: list[list[str]] = []
    real = anchorfind.start

    def spy(paths: list[str], anchors: tuple[bytes, ...]) -> anchorfind.Helper | None:
        asked.append(list(paths))
        # only a helper that was given regular files alone is started: one given the FIFO
        # would block on it or take half its data, so the test fails here instead
        if paths != [str(regular)]:
            return None
        return real(paths, anchors, force=True, chunk=1024)

    monkeypatch.setattr(anchorfind, "start", spy)
    assert scan() == serial
    assert asked == [[str(regular)]]
    assert serial[0].bytes_read == len(body)  # the scanner read all of the FIFO
