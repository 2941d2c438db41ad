"""Hangs through ``launchx run`` itself: real torchrun, two gloo ranks, a process-group
timeout of 30 minutes that never fires. The watch names the stuck rank with its stack,
stops the ranks, and the loop retries from the newest checkpoint to the same weights an
uninterrupted run ends with; a straggler is only a warning. (The watch's rules on their
own, with more scenarios: test_watch_*.py.) How fast a hang is named is measured by
benchmarks/hang.py, not asserted here."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from conftest import ROOT, clean_env

pytestmark = pytest.mark.torchrun

TOY = ROOT / "examples" / "train_toy.py"
RANKS = Path(__file__).parent / "fixtures" / "watch" / "ranks.py"
FAST = ["--set", "retry.backoff_min_s=0", "--set", "retry.jitter_s=0"]


def launchx(args: list[str], cwd: Path, timeout: float = 150) -> tuple[int, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "launchx", "run", *args],
        cwd=cwd,
        env=clean_env(PYTHONUNBUFFERED="1"),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return proc.returncode, proc.stdout + proc.stderr


def stall_line() -> int:
    """The line of the toy's stall (the sleep in inject_before_step), where the hang report's
    stack of the stuck rank must point: read from the toy, which changes."""
    lines = TOY.read_text().splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("def inject_before_step("))
    return 1 + next(
        i for i in range(start, len(lines)) if lines[i].strip() == "time.sleep(seconds)"
    )


def toy(ck: Path, out: Path, *fault: str) -> list[str]:
    args = [str(TOY), "--steps", "40", "--ckpt-every", "10", "--seed", "3"]
    return [
        *args,
        "--checkpoint-dir",
        str(ck),
        "--pg-timeout-s",
        "1800",
        *fault,
        "--output",
        str(out),
    ]


def test_a_rank_blocked_forever_is_named_stopped_and_the_run_resumes(tmp_path: Path) -> None:
    ck, logs = tmp_path / "ck", tmp_path / "logs"
    stall = ["--stall-at-step", "25", "--stall-rank", "1", "--stall-s", "3000"]
    args = ["-p", "local", "--hang-timeout", "5", "--checkpoint-dir", str(ck)]
    code, text = launchx(
        [*args, "--log-dir", str(logs), *FAST, *toy(ck, tmp_path / "a.pt", *stall)], tmp_path
    )
    assert code == 0, text
    report = text[text.index("launchx: hang:") :]
    assert "rank 1 (node" in report and f"train_toy.py:{stall_line()} inject_before_step" in report
    assert "launchx: failure: hang on rank 1 (transient)" in text
    assert f"launchx: offering {ck / 'step_00000020.pt'} (step 20)" in text
    assert (logs / "attempt-0" / "hang" / "report.txt").is_file()
    events = [json.loads(line) for line in (logs / "events.jsonl").read_text().splitlines()]
    ends = [e for e in events if e["event"] == "attempt_end"]
    assert [(e["category"], e["rank"]) for e in ends] == [("hang", 1), (None, None)]
    assert [e for e in events if e["event"] == "watch" and e["kind"] == "hang"]
    assert events[-1]["event"] == "run_end" and events[-1]["exit_code"] == 0
    assert events[-1]["ended"] == "finished"

    # `launchx diagnose` names the hang and its rank (the logs alone only show the SIGTERM
    # that stopped the ranks: the attempt's end event says why), and that a retry finished.
    diag = subprocess.run(
        [sys.executable, "-m", "launchx", "diagnose", str(logs)],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert diag.returncode == 0, diag.stdout + diag.stderr
    assert diag.stdout.startswith("hang (LX554) on rank 1 "), diag.stdout
    assert re.search(r"^ +0 +failed +hang on rank 1 ", diag.stdout, re.M), diag.stdout
    assert re.search(r"^ +root +rank 1 ", diag.stdout, re.M), diag.stdout

    # The same training, uninterrupted, with the default `--hang-timeout auto`: it says what
    # it chose (the initial timeout until the run's rhythm is known, capped at half the
    # local profile's 300 s collective timeout) and ends with the same weights.
    code, text = launchx(["-p", "local", *toy(tmp_path / "ck2", tmp_path / "b.pt")], tmp_path)
    assert code == 0, text
    chosen = r"^launchx: hang timeout 150(\.0)? s \(until the run's rhythm is known: 5 gaps "
    chosen += r"between output lines over 60 s of output; so far \d+ over \d+ s, "
    assert re.search(chosen + r"capped at 150 s\)$", text, re.M), text
    resumed = torch.load(tmp_path / "a.pt", weights_only=True)
    whole = torch.load(tmp_path / "b.pt", weights_only=True)
    assert resumed.keys() == whole.keys()
    assert all(torch.equal(resumed[k], whole[k]) for k in whole)


def test_a_straggler_is_a_warning_and_the_run_finishes_in_one_attempt(tmp_path: Path) -> None:
    args = ["-p", "local", "--hang-timeout", "4", str(RANKS), "compute", "--seconds", "9"]
    code, text = launchx(args, tmp_path)
    assert code == 0, text
    assert "launchx: warning: straggler: rank 1" in text, text
    assert "warning: launchx:" not in text  # one prefix, not the report's own twice
    assert "launchx: hang:" not in text and "launchx: failure" not in text
    assert text.rstrip().endswith("(1 attempt)")


def under_a_terminal(args: list[str], cwd: Path, timeout: float = 150) -> tuple[int, str]:
    """``launchx run`` with a pseudo-terminal as its stdout, as a person at a shell has."""
    import os
    import pty
    import select
    import time

    pid, fd = pty.fork()
    if pid == 0:  # the child: exec at once, nothing of pytest runs here
        os.chdir(cwd)
        os.execve(sys.executable, [sys.executable, "-m", "launchx", "run", *args], clean_env())
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        try:
            data = os.read(fd, 65536) if ready else b"-"
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        out += data if ready else b""
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")


def test_on_a_terminal_a_status_is_pinned_under_the_output(tmp_path: Path) -> None:
    args = ["-p", "local", "--hang-timeout", "30", str(RANKS), "compute", "--seconds", "3"]
    code, text = under_a_terminal(args, tmp_path)
    assert code == 0, text
    # Redrawn in place (cursor up, erase below) with each rank's quiet time...
    assert "\x1b[A\x1b[Jlaunchx: attempt 0 running " in text, text
    assert "| quiet " in text and "of 30s hang timeout (fixed)" in text
    assert "node 0 (" in text and "), quiet for: r0 " in text and "  r1 " in text
    # ...and gone before the run's last line.
    tail = text[text.rindex("\x1b[J") :]
    assert "launchx: attempt" not in tail and "launchx: finished in" in tail


def pids_of(evidence: Path, attempt: int) -> list[int]:
    """The pids the ranks of ``attempt`` recorded (ranks.py --evidence)."""
    return [int(p.read_text()) for p in sorted(evidence.glob(f"pid.{attempt}.*"))]


def gone(pid: int) -> bool:
    """Whether ``pid`` no longer runs (a zombie counts as gone: it runs nothing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] == "Z"


def test_a_rank_blocked_inside_a_native_call_is_named_stopped_and_retried(
    tmp_path: Path,
) -> None:
    """Issue 11, test 2 through ``launchx run``: rank 1 blocks acquiring a lock it holds (a
    wait inside C, no Python frame moves) on the first attempt only. The watch names it
    with the native frame it waits in, stops both ranks, and the retry finishes."""
    logs, evidence = tmp_path / "logs", tmp_path / "evidence"
    args = ["-p", "local", "--hang-timeout", "5", "--log-dir", str(logs), *FAST]
    script = [str(RANKS), "lock", "--first-attempt-only", "--evidence", str(evidence)]
    code, text = launchx([*args, *script], tmp_path)
    assert code == 0, text
    report = text[text.index("launchx: hang:") :]
    first = report.splitlines()[1]
    assert first.startswith("  rank 1 (node "), report
    assert "has not reached the all_reduce that the other rank waits in" in first, report
    assert re.search(r"^    rank 1 \[lock\]: ", report, re.M), report
    assert re.search(r"^        \[native\] .*acquire", report, re.M | re.I), report
    assert "launchx: failure: hang on rank 1 (transient)" in text
    assert (logs / "attempt-0" / "hang" / "rank1.txt").is_file()
    events = [json.loads(line) for line in (logs / "events.jsonl").read_text().splitlines()]
    ends = [e for e in events if e["event"] == "attempt_end"]
    assert [(e["category"], e["rank"]) for e in ends] == [("hang", 1), (None, None)]
    # Both ranks of the hung attempt were stopped (launchx has returned: nothing of it
    # may run on), and the retry ran to its end.
    first_pids = pids_of(evidence, 0)
    assert len(first_pids) == 2 and all(gone(pid) for pid in first_pids), first_pids
    assert len(pids_of(evidence, 1)) == 2
    assert "done" in (logs / "attempt-1" / "rank-0.log").read_text().splitlines()[-1]
    assert text.rstrip().endswith("(2 attempts)"), text


def test_rank_0_evaluating_alone_while_the_other_waits_at_a_barrier_is_no_hang(
    tmp_path: Path,
) -> None:
    """Issue 11, test 4 (the evaluation): rank 0 alone evaluates (torch, CPU busy, no
    output) for more than twice the hang timeout while rank 1 waits at a barrier. Rank 0
    computes, so nobody is hung: no verdict, no stop, one attempt."""
    script = [str(RANKS), "eval", "--rank", "0", "--barrier", "--seconds", "9"]
    code, text = launchx(["-p", "local", "--hang-timeout", "4", *script], tmp_path)
    assert code == 0, text
    assert "misbehaving: eval" in text
    assert "launchx: hang:" not in text and "launchx: failure" not in text, text
    # A warning may name rank 0 as slow (it kept rank 1 waiting), never rank 1.
    for line in text.splitlines():
        if "straggler:" in line:
            assert "straggler: rank 0 kept rank 1 waiting" in line, line
    assert text.rstrip().endswith("(1 attempt)"), text
