"""Finding a run's logs and what their places say (rank, node, attempt, host), and the
paths that cannot be used (one clear LaunchxError each)."""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import lzma
import os
import random
import shutil
import threading
from pathlib import Path

import pytest

from launchx import logsource
from launchx.diagnosis import Report
from launchx.errors import LaunchxError

RUNS = Path(__file__).parent / "fixtures" / "runs"


def _write(root: Path, rel: str, text: str = "step 1\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _infos(found: logsource.Found) -> dict[str, tuple[object, ...]]:
    return {
        lf.info.name: (lf.info.rank, lf.info.node, lf.info.attempt, lf.info.launcher)
        for lf in found.logs
    }


def test_the_launchx_run_layout(tmp_path: Path) -> None:
    for rel in (
        "attempt-0/rank-0.log",
        "attempt-0/rank-1.log",
        "attempt-0/launcher.log",
        "attempt-1/rank-0.log",
        "attempt-1/rank-1.log",
    ):
        _write(tmp_path, rel)
    _write(tmp_path, "events.jsonl", '{"ts": 1.0, "event": "attempt_end", "attempt": 0}\n')
    found = logsource.discover([str(tmp_path)])
    assert _infos(found) == {
        "attempt-0/launcher.log": (None, None, 0, True),
        "attempt-0/rank-0.log": (0, None, 0, False),
        "attempt-0/rank-1.log": (1, None, 0, False),
        "attempt-1/rank-0.log": (0, None, 1, False),
        "attempt-1/rank-1.log": (1, None, 1, False),
    }
    assert [p.name for p in found.events] == ["events.jsonl"]


def test_torchrun_log_dirs_under_node_dirs_give_global_ranks() -> None:
    found = logsource.discover([str(RUNS / "two_nodes_sigkill")])
    ranks = {
        (lf.info.node, lf.info.local_rank): lf.info.rank
        for lf in found.logs
        if lf.info.local_rank is not None
    }
    assert ranks == {(0, 0): 0, (0, 1): 1, (1, 0): 2, (1, 1): 3}
    launchers = sorted(lf.info.name for lf in found.logs if lf.info.launcher)
    assert launchers == ["node-0/launcher.log", "node-1/launcher.log"]


def test_slurm_task_and_host_outputs(tmp_path: Path) -> None:
    for t in range(3):
        _write(tmp_path, f"tasks/train-812-{t}.out")
    for host in ("gpu-a07", "gpu-a11"):
        _write(tmp_path, f"nodes/train-812.{host}.out")
    found = logsource.discover([str(tmp_path)])
    by_name = {lf.info.name: (lf.info.rank, lf.info.host) for lf in found.logs}
    assert by_name["tasks/train-812-2.out"] == (2, None)
    assert by_name["nodes/train-812.gpu-a07.out"] == (None, "gpu-a07")
    assert by_name["nodes/train-812.gpu-a11.out"] == (None, "gpu-a11")
    # %x-%j-%N with '-' around the host: the job id and "slurm" are not part of it
    for host in ("lxnode1", "lxnode2"):
        _write(tmp_path, f"dash/slurm-78-{host}.out")
    for host in ("gpu-node-07", "gpu-node-11"):
        _write(tmp_path, f"long/job-1234-{host}.log")
    found = logsource.discover([str(tmp_path)])
    by_name = {lf.info.name: (lf.info.rank, lf.info.host) for lf in found.logs}
    assert by_name["dash/slurm-78-lxnode2.out"] == (None, "lxnode2")
    assert by_name["long/job-1234-gpu-node-07.log"] == (None, "gpu-node-07")
    # the varying part after a separator: its own word is the host, not the one before it
    for host in ("gpu-a07", "gpu-b07"):
        _write(tmp_path, f"rack/train-812.{host}.out")
    found = logsource.discover([str(tmp_path / "rack")])
    assert {lf.info.host for lf in found.logs} == {"gpu-a07", "gpu-b07"}
    # two jobs' outputs side by side: their numbers are no hosts (nor ranks: not 0..N-1)
    for job in (100, 101):
        _write(tmp_path, f"jobs/slurm-{job}.out")
    found = logsource.discover([str(tmp_path / "jobs")])
    assert {(lf.info.rank, lf.info.host) for lf in found.logs} == {(None, None)}
    # a run's different logs side by side, named by what they hold, are no hosts
    for kind in ("nccl", "train", "eval"):
        _write(tmp_path, f"kinds/{kind}.log")
    found = logsource.discover([str(tmp_path / "kinds")])
    assert {(lf.info.name, lf.info.host) for lf in found.logs} == {
        ("nccl.log", None),
        ("train.log", None),
        ("eval.log", None),
    }


def test_dumps_are_found_by_content_binary_files_skipped(tmp_path: Path) -> None:
    shutil.copytree(RUNS / "gloo_uneven_fr" / "fr", tmp_path / "fr")
    _write(tmp_path, "rank-0.log", "[rank0]: KeyError: 'x'\n")
    (tmp_path / "model.pt").write_bytes(b"PK\x03\x04" + bytes(range(256)) * 40)
    found = logsource.discover([str(tmp_path)])
    assert sorted((d.path.name, d.rank) for d in found.dumps) == [
        ("comm_lib_trace_rank_0", 0),
        ("comm_lib_trace_rank_1", 1),
        ("fr_json_rank_0.json", 0),
        ("fr_json_rank_1.json", 1),
    ]
    assert [lf.info.name for lf in found.logs] == ["rank-0.log"]
    assert found.skipped == ("model.pt",)


# ------------------------------------------------------------------ bad input


def test_a_missing_path(tmp_path: Path) -> None:
    with pytest.raises(LaunchxError, match=r"cannot read log .*nope\.log"):
        logsource.discover([str(tmp_path / "nope.log")])


@pytest.mark.timeout(60)  # a FIFO read wrongly blocks: fail, not hang
def test_a_pipe_named_on_the_command_line_is_read_once(tmp_path: Path) -> None:
    # `launchx diagnose <(kubectl logs ...)`: the shell passes a pipe's path; sniffing it
    # before the scan would consume what it holds, and the log would read as empty
    log = (Path(__file__).parent / "fixtures" / "logs" / "dev").joinpath(
        "user_code_error__torchrun_gloo_keyerror.log"
    )
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=(log.read_bytes(),), daemon=True)
    writer.start()
    try:
        report = logsource.diagnose_paths([str(fifo)], io.BytesIO())
    finally:
        writer.join(timeout=30)
    assert report.primary is not None
    assert (report.primary.category, report.primary.rank) == ("user_code_error", 1)


def test_a_device_named_on_the_command_line_is_sniffed_like_a_file() -> None:
    # only pipes skip the sniff: /dev/zero would otherwise be read for ever
    with pytest.raises(LaunchxError, match="binary file, not a log"):
        logsource.discover(["/dev/zero"])


def test_a_binary_file_named_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "core"
    path.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(4096))
    with pytest.raises(LaunchxError, match="binary file, not a log") as exc:
        logsource.discover([str(path)])
    assert exc.value.hint


def test_a_text_log_with_nul_padding_is_read(tmp_path: Path) -> None:
    """logrotate's copytruncate, or a node that crashed while its log on a network file
    system grew, leaves runs of NUL bytes in a text log: padding, not a binary file."""
    text = b"[rank1]: KeyError: 'missing'\n"
    for name, data in (("front.log", bytes(4096) + text), ("back.log", text + bytes(4096))):
        (tmp_path / name).write_bytes(data)
        report = logsource.diagnose_paths([str(tmp_path / name)], io.BytesIO())
        assert report.primary is not None and report.primary.category == "user_code_error"
        assert report.primary.rank == 1


def test_nul_padding_longer_than_the_sniff_is_still_padding(tmp_path: Path) -> None:
    """copytruncate's padding is as long as the log it cut (megabytes): past the first
    bytes looked at, a log named, in a directory or piped is read, not called binary."""
    text = b"[rank1]: KeyError: 'missing'\n"
    padded = bytes(3 << 20) + text
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "rank-1.log").write_bytes(padded)
    (tmp_path / "run" / "rank-0.log").write_bytes(b"RuntimeError: Connection closed by peer\n")
    for paths, stdin in (
        ([str(tmp_path / "run" / "rank-1.log")], io.BytesIO()),
        ([str(tmp_path / "run")], io.BytesIO()),
        (["-"], io.BytesIO(padded)),
    ):
        report = logsource.diagnose_paths(paths, stdin)
        assert report.primary is not None, paths
        assert (report.primary.category, report.primary.rank) == ("user_code_error", 1), paths
    # nothing but NULs, however long, is no log
    (tmp_path / "zeros.log").write_bytes(bytes(1 << 20))
    with pytest.raises(LaunchxError, match="binary file, not a log"):
        logsource.discover([str(tmp_path / "zeros.log")])


KEYERROR_LOG = (
    Path(__file__).parent
    / "fixtures"
    / "logs"
    / "dev"
    / ("user_code_error__torchrun_gloo_keyerror.log")
)
# how each form is written: logrotate's and a CI artifact's compressions, PowerShell 5's `>`
FORMS = {
    "gz": gzip.compress,
    "bz2": bz2.compress,
    "xz": lzma.compress,
    "utf16": lambda data: data.decode("utf-8").encode("utf-16"),
}


def _gist(report: Report) -> tuple[object, ...]:
    assert report.primary is not None
    p = report.primary
    return (p.category, p.rank, p.evidence, tuple(r.rank for r in report.ranks))


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_compressed_or_utf16_log_reads_as_the_plain_one(form: str, tmp_path: Path) -> None:
    """A rotated log (train.log.1.gz), an attached rank-3.log.xz, a PowerShell capture: the
    same diagnosis as the plain text, named, in a directory or piped, with nothing unpacked."""
    plain = KEYERROR_LOG.read_bytes()
    expected = _gist(logsource.diagnose_paths([str(KEYERROR_LOG)], io.BytesIO()))
    data = FORMS[form](plain)
    assert data != plain
    (tmp_path / "run" / "attempt-0").mkdir(parents=True)
    named = tmp_path / f"train.log.{form}"
    named.write_bytes(data)
    suffix = "" if form == "utf16" else f".{form}"
    (tmp_path / "run" / "attempt-0" / f"launcher.log{suffix}").write_bytes(data)
    for paths, stdin in (
        ([str(named)], io.BytesIO()),
        ([str(tmp_path / "run")], io.BytesIO()),
        (["-"], io.BytesIO(data)),
    ):
        assert _gist(logsource.diagnose_paths(paths, stdin)) == expected, paths
    # a compressed file's name is its content's: launchx's launcher log still reads as one
    assert _infos(logsource.discover([str(tmp_path / "run")])) == {
        f"attempt-0/launcher.log{suffix}": (None, None, 0, True)
    }


def test_a_utf8_byte_order_mark_does_not_hide_the_first_lines_rank(tmp_path: Path) -> None:
    data = codecs.BOM_UTF8 + b"[rank1]: KeyError: 'missing'\n"
    (tmp_path / "bom.log").write_bytes(data)
    for paths, stdin in (([str(tmp_path / "bom.log")], io.BytesIO()), (["-"], io.BytesIO(data))):
        report = logsource.diagnose_paths(paths, stdin)
        assert report.primary is not None
        assert (report.primary.category, report.primary.rank) == ("user_code_error", 1)


def _noisy(lines: int = 200_000) -> bytes:
    """A rank's log with its error first and a long tail: damage past the start of it."""
    rng = random.Random(7)
    steps = (f"step {i} loss {rng.random():.6f}\n".encode() for i in range(lines))
    return b"[rank1]: KeyError: 'missing'\n" + b"".join(steps)


def test_a_compressed_log_cut_short_or_damaged_part_way_is_read_up_to_there(
    tmp_path: Path,
) -> None:
    """Copied while the run still wrote it, a bad block in its middle, garbage after its
    end: what came before is the log (read and diagnosed), and a note says where it
    stopped; in a directory it does not stop the other files being read."""
    data = gzip.compress(_noisy())
    middle = bytearray(data)
    for i in range(len(data) // 2, len(data) // 2 + 64):
        middle[i] ^= 0xFF
    cases = {
        "cut.log.gz": (data[: len(data) // 2], "ends early (cut short)"),
        "bad.log.gz": (bytes(middle), "gzip data is damaged"),
        "tail.log.gz": (data + b"garbage after the end", "gzip data is damaged"),
    }
    for name, (content, said) in cases.items():
        run = tmp_path / name.split(".")[0]
        run.mkdir()
        (run / f"rank-1.{name.split('.', 1)[1]}").write_bytes(content)
        (run / "rank-0.log").write_text("RuntimeError: Connection closed by peer\n")
        for paths in ([str(run / f"rank-1.{name.split('.', 1)[1]}")], [str(run)]):
            report = logsource.diagnose_paths(paths, io.BytesIO())
            assert report.primary is not None, (name, paths)
            assert (report.primary.category, report.primary.rank) == ("user_code_error", 1)
            assert any(said in note and "read up to there" in note for note in report.notes)
    # cut before a single line came out: nothing to read, one message
    (tmp_path / "early.log.bz2").write_bytes(bz2.compress(_noisy(20_000))[:5000])
    with pytest.raises(LaunchxError, match="bzip2 data ends before any text"):
        logsource.discover([str(tmp_path / "early.log.bz2")])


def test_utf16_inside_a_compressed_file_and_a_compressed_run_directory(tmp_path: Path) -> None:
    """PowerShell's capture gzipped; a run directory gzipped whole (`gzip -r`): its events
    and torchrun's error files still mean what they hold."""
    packed = tmp_path / "ps.log.gz"
    packed.write_bytes(gzip.compress(KEYERROR_LOG.read_text().encode("utf-16")))
    plain = _gist(logsource.diagnose_paths([str(KEYERROR_LOG)], io.BytesIO()))
    assert _gist(logsource.diagnose_paths([str(packed)], io.BytesIO())) == plain
    # cut short, it says how much of the text was read (not of the UTF-16 under it)
    text = _noisy(20_000).decode()
    whole = gzip.compress(text.encode("utf-16"))
    (tmp_path / "cut16.log.gz").write_bytes(whole[: len(whole) // 2])
    report = logsource.diagnose_paths([str(tmp_path / "cut16.log.gz")], io.BytesIO())
    (note,) = (n for n in report.notes if "cut short" in n)
    read = int(note.split(" after ")[1].split()[0])
    assert 0 < read < len(text.encode())
    run = tmp_path / "run"
    events = (
        '{"ts": 1.0, "event": "run_start", "run": "lx-1", "pid": 1, "host": "h"}\n'
        '{"ts": 2.0, "event": "attempt_start", "run": "lx-1", "attempt": 0}\n'
        '{"ts": 3.0, "event": "attempt_end", "run": "lx-1", "attempt": 0, "exit_code": 1, '
        '"outcome": "failed", "category": "user_code_error", "rank": 1}\n'
    )
    error = (
        '{"message": {"message": "KeyError: \'labels\'", "extraInfo": {"py_callstack": '
        '"Traceback (most recent call last):\\n  File \\"t.py\\", line 3\\nKeyError: '
        '\'labels\'\\n", "timestamp": "1"}}}'
    )
    for rel, text in (
        ("events.jsonl", events),
        ("x_1/attempt_0/1/error.json", error),
        ("x_1/attempt_0/1/stdout.log", "step 1\n"),
    ):
        path = run / f"{rel}.gz"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress(text.encode()))
    found = logsource.discover([str(run)])
    assert [p.name for p in found.events] == ["events.jsonl.gz"]
    assert [(e.path.name, e.rank) for e in found.error_files] == [("error.json.gz", 1)]
    report = logsource.diagnose_paths([str(run)], io.BytesIO())
    assert report.primary is not None
    assert (report.primary.category, report.primary.rank) == ("user_code_error", 1)
    assert [a.attempt for a in report.attempts] == [0]


def test_damaged_compressed_data_is_one_message_or_skipped_in_a_directory(
    tmp_path: Path,
) -> None:
    damaged = tmp_path / "run" / "rank-0.log.gz"
    damaged.parent.mkdir()
    # a gzip header, then a deflate block of the reserved type (0b11): damaged at its first
    # byte (random bytes there decoded a few literals first one time in eighteen, read as a
    # log cut short after them)
    damaged.write_bytes(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x07" + bytes(range(256)) * 16)
    with pytest.raises(LaunchxError, match=r"rank-0\.log\.gz.*gzip data is damaged"):
        logsource.discover([str(damaged)])
    with pytest.raises(LaunchxError, match=r"<stdin>.*gzip data is damaged"):
        logsource.diagnose_paths(["-"], io.BytesIO(damaged.read_bytes()))
    _write(tmp_path / "run", "rank-1.log", "[rank1]: KeyError: 'missing'\n")
    found = logsource.discover([str(tmp_path / "run")])
    assert found.skipped == ("rank-0.log.gz",) and len(found.logs) == 1
    # a compressed archive of binaries is binary once decompressed, not a log
    (tmp_path / "ckpt.gz").write_bytes(gzip.compress(b"\x7fELF\x02\x01\x01" + bytes(8192)))
    with pytest.raises(LaunchxError, match="binary file, not a log"):
        logsource.discover([str(tmp_path / "ckpt.gz")])


def test_an_empty_directory_and_one_with_only_binaries(tmp_path: Path) -> None:
    with pytest.raises(LaunchxError, match="no log files under"):
        logsource.discover([str(tmp_path)])
    (tmp_path / "weights.bin").write_bytes(bytes(1000))
    with pytest.raises(LaunchxError, match=r"1 binary or unreadable files skipped"):
        logsource.discover([str(tmp_path)])


def test_an_unreadable_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "secret.log")
    path.chmod(0)
    if os.access(path, os.R_OK):
        pytest.skip("this user reads every file (root)")
    with pytest.raises(LaunchxError, match="cannot read log"):
        logsource.discover([str(path)])


def test_events_tolerate_a_half_written_line(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "events.jsonl",
        '{"ts": 1, "event": "attempt_start", "attempt": 0}\n[1, 2]\n{"ts": 2, "ev',
    )
    assert logsource.read_events(path) == [{"ts": 1, "event": "attempt_start", "attempt": 0}]
