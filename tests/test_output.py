"""An attempt's output (``launchx.run.output``): what the console shows, what each log file
holds, and what is kept as evidence, from bytes as torchrun writes them."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

from conftest import torchrun_summary

from launchx.run.output import AttemptOutput, Terminal
from launchx.run.start import prune_runs

BANNER = b"""Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/torch/distributed/run.py", line 1032, in <module>
    main()
""" + torchrun_summary().encode()


def feed(out: AttemptOutput, *chunks: bytes) -> tuple[str, ...]:
    for chunk in chunks:
        out.feed(chunk)
    return out.close()


def test_rank_lines_go_to_their_files_and_the_console(tmp_path: Path) -> None:
    sink = io.StringIO()
    out = AttemptOutput(Terminal(sink), tmp_path)
    tail = feed(out, b"[r0]: step 1\n[r1]: step 1\n[r0]: ", b"step 2\nlauncher says hi\n")
    assert (tmp_path / "rank-0.log").read_text() == "step 1\nstep 2\n"
    assert (tmp_path / "rank-1.log").read_text() == "step 1\n"
    assert (tmp_path / "launcher.log").read_text() == "launcher says hi\n"
    assert sink.getvalue().splitlines() == [
        "[r0]: step 1",
        "[r1]: step 1",
        "[r0]: step 2",
        "launcher says hi",
    ]
    assert "[r1]: step 1" in tail and out.rank_logs()[0] == "step 1\nstep 2\n"


def test_torchruns_failure_banner_goes_to_the_log_not_the_console(tmp_path: Path) -> None:
    sink = io.StringIO()
    out = AttemptOutput(Terminal(sink), tmp_path)
    tail = feed(out, b"[r1]: boom\n", BANNER)
    assert "ChildFailedError" not in sink.getvalue() and "[r1]: boom" in sink.getvalue()
    logged = (tmp_path / "launcher.log").read_text()
    assert "ChildFailedError" in logged and "exitcode  : 3" in logged
    assert any("exitcode  : 3" in line for line in tail)  # the diagnosis still reads it


def test_a_bar_redrawn_with_carriage_returns_is_one_line_off_a_terminal(tmp_path: Path) -> None:
    sink = io.StringIO()
    out = AttemptOutput(Terminal(sink), tmp_path)
    frames = b"".join(
        f"[r0]: {100 * i // 3:3d}%|{'#' * i:<3}| {i}/3 [00:0{i}<00:00,  1.00it/s]\n".encode()
        for i in range(4)
    )
    feed(out, frames, b"[r0]: done\n")
    shown = sink.getvalue().splitlines()
    assert shown.count("[r0]: done") == 1 and len(shown) <= 3
    assert all(line.startswith("[r0]: ") and line != "[r0]: " for line in shown)


def test_launchx_lines_start_on_a_fresh_line() -> None:
    """A message of launchx's own is never glued to the end of a rank's unfinished line."""
    sink = io.StringIO()
    terminal = Terminal(sink)
    out = AttemptOutput(terminal, None)
    out.feed(b"[r0]: half a line")
    terminal.say("launchx: failure: ...\n")
    out.close()
    assert all(line.find("launchx: ") <= 0 for line in sink.getvalue().splitlines())


def test_a_direct_rank_writes_its_own_file(tmp_path: Path) -> None:
    out = AttemptOutput(
        Terminal(io.StringIO()), tmp_path, rank=3, launcher_log="launcher-rank-3.log"
    )
    feed(out, b"hello\n")
    assert (tmp_path / "rank-3.log").read_text() == "hello\n"


def test_srun_output_stays_in_the_launcher_log(tmp_path: Path) -> None:
    """The launchx srun starts on each node writes the rank files itself."""
    out = AttemptOutput(Terminal(io.StringIO()), tmp_path, per_rank=False)
    feed(out, b"[r0]: step 1\n")
    assert not (tmp_path / "rank-0.log").exists()
    assert (tmp_path / "launcher.log").read_text() == "[r0]: step 1\n"


def test_every_line_is_reported_with_its_rank() -> None:
    seen: list[int | None] = []
    out = AttemptOutput(Terminal(io.StringIO()), None, on_line=lambda rank, _ts: seen.append(rank))
    feed(out, b"[r0]: a\n[r1]: b\ntorchrun c\n")
    assert seen == [0, 1, None]


def test_the_default_log_root_keeps_the_newest_runs(tmp_path: Path) -> None:
    old = time.time() - 86400
    for i in range(6):
        run = tmp_path / f"lx-{i}"
        run.mkdir()
        # (node 1's run on a host of its own keeps only its own record)
        (run / ("events.jsonl" if i % 2 else "events-node-1.jsonl")).write_text("{}\n")
        os.utime(run, (old + i, old + i))
    # what is not a launchx run is never pruned, however old
    (tmp_path / "project").mkdir()
    os.utime(tmp_path / "project", (old - 1, old - 1))
    (tmp_path / "lx-current").mkdir()
    prune_runs(tmp_path, keep=3, current="lx-current")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["lx-4", "lx-5", "lx-current", "project"]
