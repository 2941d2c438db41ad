"""The helper process that searches half the anchors: a scan with it is the scan without it,
line for line, whatever the chunks, and a helper that dies, gives up or cannot read a file
only makes the scanner search for itself. Real helper processes, small chunks."""

from __future__ import annotations

import io
import os
import signal
import threading
from pathlib import Path

import pytest

from launchx import anchorfind, logscan, logsource
from launchx.logscan import SourceInfo

DEV = Path(__file__).parent / "fixtures" / "logs" / "dev"


def _bodies(count: int, start: int = 0) -> bytes:
    """Real logs one after another (their headers dropped): every shape the rules read."""
    out = []
    for path in sorted(DEV.glob("*.log"))[start : start + count]:
        out.extend(path.read_bytes().splitlines(keepends=True)[3:])
    return b"".join(out)


def _serial(data: bytes, chunk: int) -> logscan.SourceScan:
    return logscan.scan_stream(io.BytesIO(data), SourceInfo(name="r.log"), chunk=chunk)


def _helped(
    paths: list[Path], chunk: int, helper: anchorfind.Helper | None = None
) -> list[logscan.SourceScan]:
    own = helper is None
    helper = helper or logscan.far_helper([str(p) for p in paths], force=True, chunk=chunk)
    assert helper is not None
    try:
        out = []
        for k, path in enumerate(paths):
            with path.open("rb") as fh:
                info = SourceInfo(name="r.log")
                out.append(logscan.scan_stream(fh, info, chunk=chunk, far=helper.view(k)))
        return out
    finally:
        if own:
            helper.close()


def test_first_anchors_keeps_the_first_anchor_of_each_line_in_their_order() -> None:
    low = b"a kill and an error\nnothing\nerror then kill\nkill"
    found: dict[int, int] = {}
    anchorfind.first_anchors(low, 0, len(low), [b"error", b"kill"], found)
    assert found == {0: 14, 28: 28, 44: 44}
    # a line found already keeps its place; lines before lo are not looked at
    found = {0: 2}
    anchorfind.first_anchors(low, 20, len(low), [b"kill"], found)
    assert found == {0: 2, 28: 39, 44: 44}


@pytest.mark.parametrize("chunk", [300, 4096, 1 << 16])
def test_a_scan_with_the_helper_is_the_scan_without_it(tmp_path: Path, chunk: int) -> None:
    data = _bodies(120)
    path = tmp_path / "r.log"
    path.write_bytes(data)
    helped = _helped([path], chunk)[0]
    assert helped == _serial(data, chunk)
    assert len(helped.lines) > 100  # the logs were read, not skipped


def test_every_far_anchor_is_found_by_the_helper(tmp_path: Path) -> None:
    # one line per anchor the helper searches for, each alone in its line: a scan that
    # dropped the helper's answers would keep none of them
    lines = [f"progress {i} step\n" for i in range(50)]
    for i, a in enumerate(logscan._FAR_ANCHORS):
        lines.insert(i * 2, f"line {i}: {a.decode()}\n")
    data = "".join(lines).encode()
    path = tmp_path / "r.log"
    path.write_bytes(data)
    helper = logscan.far_helper([str(path)], force=True, chunk=256)
    assert helper is not None
    try:
        got = helper.view(0).lines(0, len(data))
    finally:
        helper.close()
    assert got is not None
    texts = [data[s : data.index(b"\n", s)].decode() for s, _ in got]
    assert len(texts) == len(logscan._FAR_ANCHORS)
    assert _helped([path], 256)[0] == _serial(data, 256)


def test_several_files_are_answered_in_order(tmp_path: Path) -> None:
    paths = []
    for i in range(4):
        p = tmp_path / f"rank-{i}.log"
        p.write_bytes(_bodies(25, start=40 * i))
        paths.append(p)
    helped = _helped(paths, 2048)
    assert helped == [_serial(p.read_bytes(), 2048) for p in paths]


def test_a_file_skipped_by_the_scanner_is_skipped_by_the_helper(tmp_path: Path) -> None:
    a, b = tmp_path / "a.log", tmp_path / "b.log"
    a.write_bytes(_bodies(30))
    b.write_bytes(_bodies(30, start=30))
    helper = logscan.far_helper([str(a), str(b)], force=True, chunk=1024)
    assert helper is not None
    try:
        # the answers for a.log are read and dropped on the way to b.log's
        with b.open("rb") as fh:
            scan = logscan.scan_stream(fh, SourceInfo(name="r.log"), chunk=1024, far=helper.view(1))
        # and a.log, asked for after, has nothing left: the scanner searches it itself
        assert helper.view(0).lines(0, 10) is None
    finally:
        helper.close()
    assert scan == _serial(b.read_bytes(), 1024)


def test_a_file_the_helper_cannot_read_is_searched_by_the_scanner(tmp_path: Path) -> None:
    gone, here = tmp_path / "gone.log", tmp_path / "here.log"
    here.write_bytes(_bodies(40))
    helper = logscan.far_helper([str(gone), str(here)], force=True, chunk=1024)
    assert helper is not None
    try:
        assert helper.view(0).lines(0, 100) is None
        with here.open("rb") as fh:
            scan = logscan.scan_stream(fh, SourceInfo(name="r.log"), chunk=1024, far=helper.view(1))
    finally:
        helper.close()
    assert scan == _serial(here.read_bytes(), 1024)


def test_a_helper_that_dies_leaves_the_scan_whole(tmp_path: Path) -> None:
    data = _bodies(120)
    path = tmp_path / "r.log"
    path.write_bytes(data)
    helper = logscan.far_helper([str(path)], force=True, chunk=512)
    assert helper is not None
    view = helper.view(0)
    first = view.lines(0, 512)
    assert first is not None
    os.kill(helper._proc.pid if helper._proc else 0, signal.SIGKILL)
    try:
        with path.open("rb") as fh:
            scan = logscan.scan_stream(fh, SourceInfo(name="r.log"), chunk=512, far=view)
    finally:
        helper.close()
    assert scan == _serial(data, 512)


def test_a_line_too_long_for_the_helper_is_searched_by_the_scanner(tmp_path: Path) -> None:
    data = (
        b"x" * 9000
        + b" RuntimeError: CUDA error: an illegal memory access\n"
        + b"srun: error: node3: task 1: Exited with exit code 1\n"
        + _bodies(10)
    )
    path = tmp_path / "r.log"
    path.write_bytes(data)
    helper = logscan.far_helper([str(path)], force=True, chunk=1024)
    assert helper is not None
    try:
        assert helper.view(0).lines(0, 10) is None  # it gave up on the 9 KB line
    finally:
        helper.close()
    helped = _helped([path], 1024)[0]
    assert helped == _serial(data, 1024)
    assert any("Exited with exit code 1" in ln.text for ln in helped.lines)


def test_diagnose_paths_uses_the_helper_and_closes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "logs").mkdir()
    for i in range(3):
        (tmp_path / "logs" / f"rank-{i}.log").write_bytes(_bodies(20, start=20 * i))
    started: list[anchorfind.Helper] = []
    real = logscan.far_helper

    def spy(paths: list[str], force: bool | None = None) -> anchorfind.Helper | None:
        h = real(paths, force=True, chunk=1024)
        if h is not None:
            started.append(h)
        return h

    serial = logsource.diagnose_paths([str(tmp_path / "logs")], io.BytesIO())
    monkeypatch.setattr(logscan, "far_helper", spy)
    helped = logsource.diagnose_paths([str(tmp_path / "logs")], io.BytesIO())
    assert len(started) == 1 and started[0]._proc is None  # reaped
    assert helped == serial


def test_the_helper_is_only_started_where_it_pays(tmp_path: Path) -> None:
    small = tmp_path / "small.log"
    small.write_bytes(b"error\n" * 10)
    assert logscan.far_helper([str(small)]) is None
    assert logscan.far_helper([]) is None
    assert not anchorfind.usable(anchorfind.MIN_BYTES - 1)


class _Silent:
    """A helper's answers that hold no line at all."""

    def lines(self, lo: int, hi: int) -> list[tuple[int, int]]:
        return []


def test_the_scanner_leaves_the_far_anchors_to_the_helper() -> None:
    # the lines that hold only a far anchor come from the helper's answers, not a second
    # search of the scanner's own
    data = "".join(f"line {i}: {a.decode()}\n" for i, a in enumerate(logscan._FAR_ANCHORS))
    far = _Silent()
    scan = logscan.scan_stream(
        io.BytesIO(data.encode()),
        SourceInfo(name="r.log"),
        far=far,  # type: ignore[arg-type]
    )
    assert scan.lines == ()
    assert len(_serial(data.encode(), logscan.CHUNK).lines) == len(logscan._FAR_ANCHORS)


def test_the_helper_runs_this_launchx_not_one_in_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "launchx").mkdir()
    (tmp_path / "launchx" / "__init__.py").write_text("raise SystemExit('another launchx')\n")
    log = tmp_path / "r.log"
    log.write_bytes(_bodies(20))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    helper = logscan.far_helper([str(log)], force=True, chunk=1024)
    assert helper is not None
    try:
        assert helper.view(0).lines(0, 1024) is not None
    finally:
        helper.close()


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
            return logsource._scan_logs(logs, io.BytesIO())
        finally:
            writer.join(timeout=30)
            fifo.unlink()

    serial = scan()
    started: list[list[str]] = []
    real = logscan.far_helper

    def spy(paths: list[str], force: bool | None = None) -> anchorfind.Helper | None:
        started.append(list(paths))
        return real(paths, force=True, chunk=1024)

    monkeypatch.setattr(logscan, "far_helper", spy)
    assert scan() == serial
    assert started == [[str(regular)]]
    assert serial[0].bytes_read == len(body)  # the scanner read all of the FIFO
