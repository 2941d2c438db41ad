"""``launchx diagnose`` on a run whose attempt launchx itself ended: a hang it detected, a
node it stopped because another failed. The ranks' logs only show the SIGTERM that stopped
them; the ``attempt_end`` event names the cause and the rank (``runview._decided``)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from conftest import torchrun_summary

from launchx import failure_text, logsource
from launchx.diagnosis import Report

SIGTERMED = (
    "[rank{r}]: W0101 torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM"
    " death signal, shutting down workers\n"
)


def _run(
    root: Path, ends: list[dict[str, object]], node1: list[dict[str, object]] | None = None
) -> Report:
    for attempt in range(2):
        for rank in range(2):
            log = root / f"attempt-{attempt}" / f"rank-{rank}.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            log.write_text(SIGTERMED.format(r=rank) if attempt == 0 else "done\n")
    events: list[dict[str, object]] = [
        {"ts": 1.0, "event": "attempt_start", "attempt": 0},
        {
            "ts": 2.0,
            "event": "watch",
            "kind": "hang",
            "ranks": [0, 1],
            "odd": [1],
            "headline": "rank 1 (node vm, local 1) has not reached the all_reduce",
        },
        *ends,
        {"ts": 4.0, "event": "attempt_start", "attempt": 1},
        {"ts": 5.0, "event": "attempt_end", "attempt": 1, "exit_code": 0, "outcome": "ok"},
    ]
    (root / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    if node1:
        (root / "events-node-1.jsonl").write_text("".join(json.dumps(e) + "\n" for e in node1))
    return logsource.diagnose_paths([str(root)], io.BytesIO())


HANG_END = {
    "ts": 3.0,
    "event": "attempt_end",
    "attempt": 0,
    "exit_code": 1,
    "outcome": "failed",
    "category": "hang",
    "retryable": True,
    "rank": 1,
    "cause": "rank 1 stopped making progress: no rank made progress for the hang timeout",
}


def test_a_hang_launchx_found_is_the_diagnosis_with_its_rank(tmp_path: Path) -> None:
    report = _run(tmp_path, [HANG_END])
    p = report.primary
    assert p is not None
    assert (p.category, p.rank, p.code, p.retryable) == ("hang", 1, "LX554", True)
    assert p.cause.startswith("rank 1 stopped making progress")
    assert p.evidence == ("rank 1 (node vm, local 1) has not reached the all_reduce",)
    assert {r.rank: r.role for r in report.ranks}[1] == "root"
    assert [(a.attempt, a.outcome, a.category, a.root_rank) for a in report.attempts] == [
        (0, "failed", "hang", 1),
        (1, "ok", None, None),
    ]
    assert report.found
    text = failure_text.render_failure(report)
    assert text.startswith("hang (LX554) on rank 1")


def test_another_node_that_was_aborted_does_not_hide_the_hang(tmp_path: Path) -> None:
    aborted = {**HANG_END, "category": "aborted", "rank": None, "cause": "stopped", "node": 1}
    node1 = [{"ts": 1.0, "event": "attempt_start", "attempt": 0, "node": 1}, aborted]
    p = _run(tmp_path, [HANG_END], node1).primary
    assert p is not None and (p.category, p.rank) == ("hang", 1)


def test_a_cause_from_the_logs_stays_the_logs_word(tmp_path: Path) -> None:
    end = {**HANG_END, "category": "user_code_error", "cause": "KeyError"}
    p = _run(tmp_path, [end]).primary
    assert p is None or p.category != "hang"


def _stopped_before_ranks(root: Path, rank_log: str, node1: bool = False) -> Report:
    """A run stopped (Ctrl-C) while torchrun still waited in its rendezvous: no rank ever
    wrote, launchx killed the waiting launcher and recorded the interrupt."""
    attempt = root / "attempt-0"
    attempt.mkdir(parents=True)
    (attempt / "launcher.log").write_text("")
    if rank_log:
        (attempt / "rank-0.log").write_text(rank_log)
    end = {
        "ts": 3.0,
        "event": "attempt_end",
        "attempt": 0,
        "exit_code": 137,
        "outcome": "interrupted",
        "category": "interrupted",
        "retryable": False,
        "rank": None,
        "cause": "the run (or its ranks) received SIGINT/SIGTERM from outside.",
    }
    events = [{"ts": 1.0, "event": "attempt_start", "attempt": 0}, end]
    (root / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    if node1:  # another node, stopped because node 0 was: "aborted"
        aborted = {**end, "node": 1, "category": "aborted", "outcome": "failed"}
        (root / "events-node-1.jsonl").write_text(json.dumps(aborted) + "\n")
    return logsource.diagnose_paths([str(root)], io.BytesIO())


def test_an_interrupt_the_logs_do_not_show_is_named_from_the_events(tmp_path: Path) -> None:
    report = _stopped_before_ranks(tmp_path, "")
    p = report.primary
    assert p is not None
    assert (p.category, p.rank, p.retryable) == ("interrupted", None, False)
    assert report.found
    assert failure_text.render_failure(report).startswith("interrupted (LX532)")
    two = _stopped_before_ranks(tmp_path / "two", "", node1=True).primary
    assert two is not None and two.category == "interrupted"


def test_an_interrupt_every_rank_got_blames_no_rank(tmp_path: Path) -> None:
    """Ctrl-C reached every rank; rank 0's KeyboardInterrupt came first in the logs, which
    made it "interrupted on rank 0" as if it were the cause."""
    attempt = tmp_path / "attempt-0"
    attempt.mkdir()
    (attempt / "launcher.log").write_text(
        "W0101 torch/distributed/elastic/agent/server/api.py:704] Received 2 death signal, "
        "shutting down workers\n"
    )
    for rank in (0, 1):
        (attempt / f"rank-{rank}.log").write_text(
            "Traceback (most recent call last):\n"
            '  File "/w/train.py", line 40, in <module>\n'
            "    time.sleep(0.05)\n"
            "KeyboardInterrupt\n"
        )
    report = logsource.diagnose_paths([str(tmp_path)], io.BytesIO())
    p = report.primary
    assert p is not None and (p.category, p.rank, p.host) == ("interrupted", None, None)
    assert failure_text.render_failure(report).startswith("interrupted (LX")
    assert " on rank" not in failure_text.render_failure(report).splitlines()[0]


def test_a_failure_the_logs_show_comes_before_the_recorded_interrupt(tmp_path: Path) -> None:
    crash = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 3, in <module>\n'
        "    cfg['lr']\n"
        "KeyError: 'lr'\n"
    )
    p = _stopped_before_ranks(tmp_path, crash).primary
    assert p is not None and p.category == "user_code_error"


def test_a_host_named_localhost_is_the_host_the_run_started_on(tmp_path: Path) -> None:
    """torchrun's summary says "host : localhost" where the host's name resolves to
    loopback (socket.getfqdn() on many VMs): launchx's own record names the machine."""
    for named, expected in (("localhost", "gpu-node-7"), ("node-3.cluster", "node-3.cluster")):
        root = tmp_path / named
        attempt = root / "attempt-0"
        attempt.mkdir(parents=True)
        (attempt / "launcher.log").write_text(torchrun_summary(host=named, exitcode=1))
        (attempt / "rank-1.log").write_text("KeyError: 'x'\n")
        events = [
            {"ts": 0.5, "event": "run_start", "host": "gpu-node-7", "pid": 1},
            {"ts": 1.0, "event": "attempt_start", "attempt": 0},
            {"ts": 2.0, "event": "attempt_end", "attempt": 0, "exit_code": 1, "outcome": "failed"},
        ]
        (root / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
        p = logsource.diagnose_paths([str(root)], io.BytesIO()).primary
        assert p is not None and (p.rank, p.host) == (1, expected), named


def test_each_attempt_is_named_on_the_host_that_ran_it(tmp_path: Path) -> None:
    """A SLURM requeue continued the run on another machine: attempt 0 was host-a's, and
    only a one-node run's host stands for a rank whose node the logs do not say."""
    for attempt in (0, 1):
        logs = tmp_path / f"attempt-{attempt}"
        logs.mkdir()
        (logs / "launcher.log").write_text(torchrun_summary(host="localhost", exitcode=1))
        (logs / "rank-1.log").write_text("KeyError: 'x'\n")

    def run(nnodes: int) -> list[tuple[int, str | None]]:
        events = [
            {"ts": 1.0, "event": "run_start", "host": "host-a", "nnodes": nnodes},
            {"ts": 2.0, "event": "attempt_start", "attempt": 0},
            {"ts": 3.0, "event": "attempt_end", "attempt": 0, "exit_code": 1},
            {"ts": 4.0, "event": "run_end", "exit_code": 1, "reason": "requeued"},
            {"ts": 5.0, "event": "run_start", "host": "host-b", "nnodes": nnodes},
            {"ts": 6.0, "event": "attempt_start", "attempt": 1},
            {"ts": 7.0, "event": "attempt_end", "attempt": 1, "exit_code": 1},
        ]
        (tmp_path / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
        report = logsource.diagnose_paths([str(tmp_path)], io.BytesIO())
        return [(a.attempt, a.host) for a in report.attempts]

    assert run(1) == [(0, "host-a"), (1, "host-b")]
    assert run(2) == [(0, None), (1, None)]  # rank 1's node is not in the logs


def test_an_attempt_the_schedulers_warning_stopped_is_preempted(tmp_path: Path) -> None:
    """SLURM's warning (USR2 before the time limit, a requeue) stopped attempt 0: the ranks
    exited 1 with nothing the rules know, and the diagnosis said "unknown" (exit 1) of a job
    that was requeued and finished. A preemption the logs showed keeps the logs' cause."""
    for attempt in (0, 1):
        (tmp_path / f"attempt-{attempt}").mkdir()
        (tmp_path / f"attempt-{attempt}" / "rank-1.log").write_text("step 116\n")
    warned = {
        "ts": 3.0,
        "event": "attempt_end",
        "attempt": 0,
        "exit_code": 1,
        "outcome": "preempted",
        "category": "preempted",
        "retryable": False,
        "rank": None,
        "cause": None,
    }
    events = [
        {"ts": 1.0, "event": "attempt_start", "attempt": 0},
        warned,
        {"ts": 4.0, "event": "attempt_start", "attempt": 1},
        {"ts": 5.0, "event": "attempt_end", "attempt": 1, "exit_code": 0, "outcome": "ok"},
    ]
    (tmp_path / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    report = logsource.diagnose_paths([str(tmp_path)], io.BytesIO())
    p = report.primary
    assert p is not None and (p.category, p.code) == ("preempted", "LX825") and report.found
    shown = {**warned, "cause": "the job was preempted (slurmstepd: DUE TO PREEMPTION)"}
    (tmp_path / "events.jsonl").write_text(
        "".join(json.dumps(e) + "\n" for e in [events[0], shown, *events[2:]])
    )
    p = logsource.diagnose_paths([str(tmp_path)], io.BytesIO()).primary
    assert p is None or p.code != "LX825"


def test_a_run_still_running_is_said_to_be_running(tmp_path: Path) -> None:
    """Its launchx is alive and wrote no run_end: no failure is the answer yet, not an
    "unknown" failure (exit 1 all the same: no cause found)."""
    import os
    import socket

    (tmp_path / "attempt-0").mkdir()
    (tmp_path / "attempt-0" / "rank-0.log").write_text("step 3\n")
    dead = 2**22 + 12345  # above pid_max's default: no such process
    here = socket.gethostname()
    # (a pid on another host says nothing here: what its logs hold so far is diagnosed)
    for pid, host, running in (
        (os.getpid(), here, True),
        (dead, here, False),
        (os.getpid(), "gpu-node-7", False),
    ):
        events = [
            {"ts": 1.0, "event": "run_start", "pid": pid, "host": host},
            {"ts": 2.0, "event": "attempt_start", "attempt": 0},
        ]
        (tmp_path / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
        report = logsource.diagnose_paths([str(tmp_path)], io.BytesIO())
        assert report.primary is None and bool(report.running) is running
        text = failure_text.render_failure(report)
        assert text.startswith("running: attempt 0 has not ended") is running
        assert json.loads(failure_text.render_json(report))["running"] == report.running
        # its launchx died on this host without ending the run: said, not left to guess
        gone = [n for n in report.notes if "is gone without ending the run" in n]
        assert bool(gone) is (pid == dead), report.notes
        assert not gone or ("(pid 4206649)" in gone[0] and "attempt 0 has no outcome" in gone[0])
