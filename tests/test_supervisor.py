"""The Supervisor with real processes: a scheduler's warning starts the grace.

SLURM sends its warning (USR1/USR2) a fixed time before the limit; the ranks are told to
checkpoint and stop, and launchx must not wait for them past the grace period, or the job
is killed at the limit with the requeue never run. Each child is a tiny Python script that
leaves files as evidence; launchx itself receives the warning from a helper thread once the
child is ready, as it would from the batch shell's ``--signal B:USR2@N``.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import clean_env

from launchx.execute import (
    ProcessResult,
    Supervisor,
    descendants,
    run_process,
    signal_tree,
    supervised,
)

# ready: written once the handlers are in place. USR2 is ignored (a script that does not
# use launchx.runtime); "term" makes SIGTERM ignored too; "save" makes USR2 a checkpoint
# that takes SAVE_S seconds, after which the script exits 0 by itself.
CHILD = r"""
import os, signal, sys, time
out, mode = sys.argv[1], sys.argv[2]
def save(_signum, _frame):
    time.sleep(float(os.environ.get("SAVE_S", "0")))
    open(os.path.join(out, "saved"), "w").close()
    sys.exit(0)
signal.signal(signal.SIGUSR2, save if mode == "save" else signal.SIG_IGN)
if mode == "term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
open(os.path.join(out, "ready"), "w").close()
end = time.monotonic() + float(os.environ.get("LIVE_S", "60"))
while time.monotonic() < end:
    time.sleep(0.05)
open(os.path.join(out, "finished"), "w").close()
"""


@pytest.fixture
def child(tmp_path: Path) -> Path:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    return script


def _wait_for(path: Path, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} never appeared")
        time.sleep(0.02)


def _run_warned(
    script: Path, out: Path, mode: str, *, grace_s: float, **env: str
) -> tuple[ProcessResult, Supervisor, str]:
    """Run the child under a Supervisor; once it is ready, send launchx SIGUSR2. Returns
    the result, the supervisor and what launchx said."""
    sup = Supervisor()
    warned: list[float] = []
    said = io.StringIO()

    def warn() -> None:
        _wait_for(out / "ready")
        warned.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGUSR2)

    sender = threading.Thread(target=warn, daemon=True)
    sender.start()
    argv = (sys.executable, str(script), str(out), mode)
    with supervised(sup):
        result = run_process(argv, clean_env(**env), sup, grace_s=grace_s, out=said)
    sender.join(timeout=5)
    assert warned, "the child never became ready"
    return result, sup, said.getvalue()


STOPPED = "after the scheduler's warning signal; stopping them"


def test_child_ignoring_the_warning_is_stopped_after_the_grace(child: Path, tmp_path: Path) -> None:
    """Before the fix launchx waited for such a child until it ended by itself (60 s)."""
    result, sup, said = _run_warned(child, tmp_path, "ignore", grace_s=1.0)
    assert sup.warnings == [signal.SIGUSR2]
    assert result.exit_code == 128 + signal.SIGTERM  # stopped the way a stop does
    assert STOPPED in said and not result.interrupted
    assert not (tmp_path / "finished").exists()


def test_child_ignoring_sigterm_too_is_killed_after_a_second_grace(
    child: Path, tmp_path: Path
) -> None:
    result, _sup, said = _run_warned(child, tmp_path, "term", grace_s=1.0)
    assert result.exit_code == 128 + signal.SIGKILL
    assert STOPPED in said and not result.interrupted


def test_child_that_checkpoints_and_exits_within_the_grace_is_not_stopped(
    child: Path, tmp_path: Path
) -> None:
    """A checkpoint that takes most of the grace still completes: nothing is cut early."""
    result, _sup, said = _run_warned(child, tmp_path, "save", grace_s=4.0, SAVE_S="2")
    assert (tmp_path / "saved").exists()
    assert result.exit_code == 0 and STOPPED not in said


def test_a_warning_of_an_earlier_attempt_gives_the_next_no_deadline(
    child: Path, tmp_path: Path
) -> None:
    """The Supervisor lives across attempts; an earlier attempt's warning must not stop
    the next attempt as soon as it has run for a grace."""
    first, sup, _ = _run_warned(child, tmp_path, "save", grace_s=0.5)
    assert first.exit_code == 0
    later = tmp_path / "later"
    later.mkdir()
    argv = (sys.executable, str(child), str(later), "ignore")
    said = io.StringIO()
    with supervised(sup):
        result = run_process(argv, clean_env(LIVE_S="1.5"), sup, grace_s=0.5, out=said)
    assert result.exit_code == 0 and STOPPED not in said.getvalue()
    assert (later / "finished").exists()


def test_launchx_run_treats_the_stop_after_a_warning_as_preempted(
    child: Path, tmp_path: Path
) -> None:
    """The whole command: `launchx run --launcher direct --grace-period 1` on a script
    that ignores USR2 ends about a grace after the warning, as preempted, not interrupted."""
    argv = [sys.executable, "-m", "launchx", "run", "--launcher", "direct"]
    argv += ["--grace-period", "1", "--max-retries", "0", str(child), str(tmp_path), "ignore"]
    env = clean_env(TMPDIR=str(tmp_path))
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        _wait_for(tmp_path / "ready")
        proc.send_signal(signal.SIGUSR2)
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    said = out.decode(errors="replace")
    assert "still run 1 s after the scheduler's warning signal" in said
    assert "launchx: stopped after the scheduler's warning signal" in said
    assert "interrupted" not in said.rpartition("launchx: summary")[2]
    assert proc.returncode == 128 + signal.SIGTERM, said


# A launcher in miniature: it starts one rank and reports when the rank ends, as torchrun
# does. Each process leaves a file when SIGTERM reaches it. "quick": the rank ends at once
# and the launcher takes a moment over its report.
LAUNCHER = r"""
import os, signal, subprocess, sys, time
out, mode = sys.argv[1], sys.argv[2]
def mark(name):
    def handler(_signum, _frame):
        open(os.path.join(out, name), "w").close()
        if name == "rank-term":
            sys.exit(143)
    return handler
if mode == "rank":
    signal.signal(signal.SIGTERM, mark("rank-term"))
    open(os.path.join(out, "rank-ready"), "w").close()
    time.sleep(0 if os.environ.get("QUICK") else 60)
    sys.exit(1)
signal.signal(signal.SIGTERM, mark("launcher-term"))
rank = subprocess.Popen([sys.executable, __file__, out, "rank"])
rank.wait()
open(os.path.join(out, "rank-done"), "w").close()
time.sleep(1.0)  # the launcher's report
sys.exit(1)
"""


def _aborted(tmp_path: Path, when: str, **env: str) -> ProcessResult:
    """Run the launcher; abort the attempt once ``when`` appears (as the hang watch or
    another node's failure would)."""
    script = tmp_path / "launcher.py"
    script.write_text(LAUNCHER)
    sup = Supervisor()

    def abort_later(_pid: int) -> None:
        def go() -> None:
            _wait_for(tmp_path / when)
            sup.abort()

        threading.Thread(target=go, daemon=True).start()

    argv = (sys.executable, str(script), str(tmp_path), "launcher")
    with supervised(sup):
        return run_process(
            argv,
            clean_env(**env),
            sup,
            grace_s=10,
            out=io.StringIO(),
            on_start=abort_later,
            ranks_below=True,
        )


def test_an_abort_stops_the_ranks_and_lets_the_launcher_report(tmp_path: Path) -> None:
    result = _aborted(tmp_path, "rank-ready")
    assert (tmp_path / "rank-term").exists()
    assert not (tmp_path / "launcher-term").exists()
    assert (tmp_path / "rank-done").exists() and result.exit_code == 1
    assert not result.interrupted


def test_an_abort_after_the_ranks_ended_leaves_the_launcher_alone(tmp_path: Path) -> None:
    """The ranks already died on their own (a peer node failed); torchrun is writing its
    report. A SIGTERM then would replace the report with torchrun's own traceback, which
    reads as an interrupt (seen in test_diagnose_e2e under load)."""
    result = _aborted(tmp_path, "rank-done", QUICK="1")
    assert not (tmp_path / "launcher-term").exists()
    assert result.exit_code == 1


# A launcher (the group leader, as launchx starts it) with one worker in its group and one
# in a session of its own, like torchrun's: each notes every SIGINT it gets.
TREE = r"""
import os, signal, subprocess, sys, time
out, role = sys.argv[1], sys.argv[2]
signal.signal(signal.SIGINT, lambda *_: open(os.path.join(out, role), "a").write("x"))
if role == "launcher":
    me = [sys.executable, __file__, out]
    subprocess.Popen([*me, "same-group"])
    subprocess.Popen([*me, "own-session"], start_new_session=True)
open(os.path.join(out, role + ".ready"), "w").write(str(os.getpid()))
time.sleep(60)
"""


def test_a_stop_reaches_each_process_of_the_tree_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """torchrun given SIGINT twice raises its SignalException again inside its shutdown and
    prints a second traceback: what the process group's signal reached is not signalled
    again one by one. Two deliveries close together often merge into one, so the test
    counts what is sent as well as what arrives."""
    script = tmp_path / "tree.py"
    script.write_text(TREE)
    proc = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path), "launcher"], start_new_session=True
    )
    roles = ("launcher", "same-group", "own-session")
    sent: dict[int, int] = {}
    real_kill, real_killpg = os.kill, os.killpg

    def kill(pid: int, signum: int) -> None:
        sent[pid] = sent.get(pid, 0) + 1
        real_kill(pid, signum)

    def killpg(pgid: int, signum: int) -> None:
        for pid in [proc.pid, *descendants(proc.pid)]:
            if os.getpgid(pid) == pgid:
                sent[pid] = sent.get(pid, 0) + 1
        real_killpg(pgid, signum)

    try:
        for r in roles:
            _wait_for(tmp_path / f"{r}.ready")
        monkeypatch.setattr(os, "kill", kill)
        monkeypatch.setattr(os, "killpg", killpg)
        signal_tree(proc.pid, signal.SIGINT)
        monkeypatch.undo()
        assert sorted(sent.values()) == [1, 1, 1] and proc.pid in sent
        for r in roles:
            _wait_for(tmp_path / r)
        assert {r: (tmp_path / r).read_text() for r in roles} == dict.fromkeys(roles, "x")
    finally:
        signal_tree(proc.pid, signal.SIGKILL)
        proc.wait()


def _dead(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_kill_reaches_the_ranks_its_launchers_death_orphans(tmp_path: Path) -> None:
    """SIGKILL to the launcher's group kills torchrun at once; its ranks, in sessions of
    their own, are then no longer below it, so the tree is read before the signal."""
    script = tmp_path / "tree.py"
    script.write_text(TREE)
    proc = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path), "launcher"], start_new_session=True
    )
    pids: dict[str, int] = {}
    try:
        for r in ("launcher", "same-group", "own-session"):
            _wait_for(tmp_path / f"{r}.ready")
            pids[r] = int((tmp_path / f"{r}.ready").read_text())
        signal_tree(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 30
        while not all(_dead(p) for p in pids.values()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert {r: _dead(p) for r, p in pids.items()} == dict.fromkeys(pids, True)
    finally:
        for p in pids.values():
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGKILL)


# A launcher that ignores SIGINT, as torchrun does while its rendezvous waits in C++ for a
# node that never comes; with "rank", a worker below it that ignores SIGINT too (a rank
# still saving its checkpoint).
DEAF = r"""
import os, signal, subprocess, sys, time
out, mode = sys.argv[1], sys.argv[2]
signal.signal(signal.SIGINT, signal.SIG_IGN)
if mode == "rank":
    subprocess.Popen([sys.executable, __file__, out, "worker"])
    while not os.path.exists(os.path.join(out, "worker.ready")):
        time.sleep(0.02)
open(os.path.join(out, mode + ".ready"), "w").close()
time.sleep(60)
"""


class _Ticks:
    """A clock that moves half a second each time it is read: the grace passes in polls,
    not in real seconds."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.5
        return self.now


@pytest.mark.parametrize(("mode", "cut_short"), [("alone", True), ("rank", False)])
def test_a_stopped_launcher_with_no_rank_below_it_gets_no_whole_grace(
    tmp_path: Path, mode: str, cut_short: bool
) -> None:
    """Ctrl-C while torchrun waited for a missing node took the whole grace (30 s) to end
    launchx: a launcher with nothing below it to save is killed a few seconds after the
    stop. One with a rank below it still gets the grace."""
    script = tmp_path / "deaf.py"
    script.write_text(DEAF)
    sup = Supervisor(clock=_Ticks())

    def stop_when_ready(_pid: int) -> None:
        def go() -> None:
            _wait_for(tmp_path / f"{mode}.ready")
            sup.handle(signal.SIGINT, None)

        threading.Thread(target=go, daemon=True).start()

    grace = 60.0
    with supervised(sup):
        result = run_process(
            (sys.executable, str(script), str(tmp_path), mode),
            clean_env(),
            sup,
            grace_s=grace,
            out=io.StringIO(),
            on_start=stop_when_ready,
            ranks_below=True,
        )
    assert result.interrupted and result.exit_code == 128 + signal.SIGKILL
    assert (result.duration_s < grace) is cut_short
