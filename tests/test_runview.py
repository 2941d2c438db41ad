"""A run, not a log: the first rank and host that failed, the collateral, the rank the
others waited for, and each attempt's outcome, from directories of real and built logs."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

from launchx import failure_text, failures, logscan, logsource, runview
from launchx import rulematch as rm
from launchx.diagnosis import Report
from launchx.logscan import SourceInfo
from launchx.run import decide

RUNS = Path(__file__).parent / "fixtures" / "runs"
DEV = Path(__file__).parent / "fixtures" / "logs" / "dev"


def _diagnose(*paths: Path) -> Report:
    return logsource.diagnose_paths([str(p) for p in paths], io.BytesIO())


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _roles(report: Report) -> dict[int, str]:
    return {r.rank: r.role for r in report.ranks}


def test_two_loopback_nodes_one_rank_sigkilled() -> None:
    """Real torchrun on two nodes (127.0.0.1): global rank 2 (node 1, local 0) is
    SIGKILLed; the other three die of the lost connection or torchrun's SIGTERM."""
    report = _diagnose(RUNS / "two_nodes_sigkill")
    p = report.primary
    assert p is not None
    assert (p.category, p.rank, p.host, p.exit_code) == (
        "killed",
        2,
        None,
        -9,
    )  # (torchrun: "host : localhost")
    assert _roles(report) == {0: "collateral", 1: "collateral", 2: "root", 3: "collateral"}
    assert all(w.startswith("node-1/launcher.log:") for w in p.where)
    assert {r.rank: r.node for r in report.ranks} == {0: 0, 1: 0, 2: 1, 3: 1}


def test_the_flight_recorder_names_the_rank_torchrun_did_not() -> None:
    """torchrun's summary calls rank 0 the root cause (it raised the timeout); the dumps show
    rank 1 never joined the collective rank 0 waited in."""
    report = _diagnose(RUNS / "gloo_uneven_fr")
    p = report.primary
    assert p is not None
    assert (p.category, p.rank) == ("collective_timeout", 1)
    assert "rank 1 never joined collective #4 (gloo:all_reduce)" in p.evidence[0]
    assert _roles(report) == {0: "collateral", 1: "root"}
    assert report.stragglers[0].source == "flight_recorder"


# ------------------------------------------------------------------ watchdog sequence numbers

_WD = (
    "[rank{r}]:[E626 06:24:44.9 ProcessGroupNCCL.cpp:1709] [PG 0 (default_pg) Rank {r}] Timeout "
    "at NCCL work: 5701, last enqueued NCCL work: 5701, last completed NCCL work: 5700.\n"
    "[rank{r}]:[E626 06:24:44.9 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective "
    "operation timeout: WorkNCCL(SeqNum=5701, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
    "Timeout(ms)=600000) ran for 600020 milliseconds before timing out.\n"
)
_DUMP = (
    "[rank{r}]:[E626 06:24:45.1 ProcessGroupNCCL.cpp:1400] [PG 0 (default_pg) Rank {r}] Received "
    "a dump signal due to a collective timeout from rank 0 and we will try our best to dump "
    "the debug info. Last enqueued NCCL work: 5700, last completed NCCL work: 5700.\n"
)


def test_the_rank_behind_in_the_sequence_numbers_is_the_root() -> None:
    text = _WD.format(r=0) + _WD.format(r=1) + _DUMP.format(r=2) + _WD.format(r=3)
    report = failures.diagnose_logs([text])
    p = report.primary
    assert p is not None
    assert (p.category, p.rank, p.retryable) == ("nccl_watchdog_timeout", 2, False)
    assert p.retry_on_progress  # a mid-run timeout: retried from a checkpoint
    assert p.evidence[0].startswith("rank 2 never reached collective #5701 (ALLREDUCE)")
    assert _roles(report) == {0: "collateral", 1: "collateral", 2: "root", 3: "collateral"}


def test_rank0_alone_behind_while_it_evaluates_is_not_retried() -> None:
    waiting = _WD.format(r=1) + _WD.format(r=2) + _WD.format(r=3)
    evaluating = "Evaluating the results...\n" + waiting
    p = failures.diagnose_logs([evaluating]).primary
    assert p is not None
    assert (p.category, p.rank, p.retryable, p.code) == ("nccl_watchdog_timeout", 0, False, "LX537")
    assert not p.retry_on_progress
    busy = failures.diagnose_logs(["epoch 3 step 100\n" + waiting]).primary
    assert busy is not None and (busy.rank, busy.retry_on_progress) == (0, True)
    # what stands before the timeout report is read there, not after a line that only
    # names a timeout (a pasted note, an argument dump, a setting)
    for above in (
        "# expect: category=nccl_watchdog_timeout\n",
        "ddp_timeout=1800, ddp_find_unused_parameters=None\n",
        "timeout: 1800\n",
    ):
        named = failures.diagnose_logs([above + evaluating]).primary
        assert named is not None and named.code == "LX537", above


_GLOO = (
    "[rank{r}]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] "
    "Timed out waiting 10000ms for recv operation to complete\n"
)


def test_the_rank_that_did_not_time_out_in_gloo_is_named() -> None:
    """gloo's timeouts name no collective and no sequence number: the rank the logs show
    that did not time out is the one the others waited for (or died first)."""
    summary = (
        "Root Cause (first observed failure):\n[0]:\n  time      : 2026-12-06_20:04:32\n"
        "  host      : vm\n  rank      : 0 (local_rank: 0)\n  exitcode  : 1 (pid: 6799)\n"
        "Other Failures:\n[1]:\n  time      : 2026-12-06_20:04:32\n  host      : vm\n"
        "  rank      : 2 (local_rank: 2)\n  exitcode  : -15 (pid: 6801)\n"
    )
    text = _GLOO.format(r=0) + _GLOO.format(r=1) + _GLOO.format(r=3)
    report = failures.diagnose_logs([text + "s.py FAILED\nFailures:\n" + summary])
    p = report.primary
    assert p is not None and (p.category, p.rank) == ("collective_timeout", 2)
    assert p.evidence[0].startswith("ranks 0-1,3 timed out waiting in a gloo collective; rank 2")
    assert _roles(report)[2] == "root" and _roles(report)[0] == "collateral"
    # the fix starts from the rank named, not by asking to find the rank that was late
    assert p.fix.startswith("look at rank 2: ") and "find the rank" not in p.fix
    # a rank the logs do not show is not silent: a paste of one rank's timeout blames no one
    alone = failures.diagnose_logs([_GLOO.format(r=1)]).primary
    assert alone is not None and alone.rank == 1
    # every rank shown timed out: none is named
    every = failures.diagnose_logs([_GLOO.format(r=0) + _GLOO.format(r=1)])
    assert not every.stragglers
    # one rank's timeout beside a silent rank names it, but does not blame it: torchrun may
    # have stopped a waiting rank before its timeout printed (the stuck one on another node)
    one = failures.diagnose_logs([_GLOO.format(r=0) + "s.py FAILED\nFailures:\n" + summary])
    assert one.primary is not None and one.primary.rank == 0
    assert "rank 2 did not (never reached it, or died first)" in one.primary.cause
    # a rank with an error of its own is not silent
    closed = (
        "[rank2]: RuntimeError: [../gloo/transport/tcp/pair.cc:589] Connection closed by peer\n"
    )
    spoke = failures.diagnose_logs([text + closed + "s.py FAILED\nFailures:\n" + summary])
    assert spoke.primary is not None and spoke.primary.rank != 2 and not spoke.stragglers


def test_silent_ranks_are_named_but_not_blamed_when_several() -> None:
    report = failures.diagnose_logs([_WD.format(r=3)])
    p = report.primary
    assert p is not None and p.rank == 3
    assert report.stragglers[0].ranks == (0, 1, 2)


def test_silent_ranks_the_logs_never_show_are_named_not_blamed_beside_one_report(
    tmp_path: Path,
) -> None:
    # one rank's report alone: a paste of rank 1 reads the same whether rank 0 printed
    # nothing or was left out of the paste, so rank 0 is named, not blamed
    alone = failures.diagnose_logs([_WD.format(r=1)])
    assert alone.stragglers[0].ranks == (0,) and alone.stragglers[0].counted
    p = alone.primary
    assert p is not None and p.rank == 1
    assert p.fix.startswith("find the rank that was late")  # named, not blamed: still to find
    cause = failure_text.render_failure(alone).splitlines()[1]
    assert "rank 1 waited in collective #5701" in cause and "failed first" not in cause
    assert "rank 0 printed no watchdog report in these logs" in cause
    assert json.loads(failure_text.render_json(alone))["stragglers"][0]["counted"] is True
    # the same report in two files (the rank's own and its node's) is still one report
    _write(tmp_path / "twice", "rank-1.log", _WD.format(r=1))
    _write(tmp_path / "twice", "node-0.log", _WD.format(r=1))
    twice = _diagnose(tmp_path / "twice")
    assert twice.stragglers[0].counted and twice.stragglers[0].waiting == (1,)
    # rank 0 in the logs (a file of its own) and silent about the timeout: blamed
    _write(tmp_path / "shown", "rank-0.log", "epoch 3 step 100\n")
    _write(tmp_path / "shown", "rank-1.log", _WD.format(r=1))
    shown = _diagnose(tmp_path / "shown")
    assert not shown.stragglers[0].counted
    assert shown.primary is not None and shown.primary.rank == 0
    assert shown.primary.fix.startswith("look at rank 0: ")
    # rank 0 shown, ranks 1-2 only counted below rank 3's report: the one the logs show
    # silent is the one named, and blamed
    _write(tmp_path / "part", "rank-0.log", "epoch 3 step 100\n")
    _write(tmp_path / "part", "rank-3.log", _WD.format(r=3))
    part = _diagnose(tmp_path / "part")
    assert part.stragglers[0].ranks == (0,) and not part.stragglers[0].counted
    assert part.primary is not None and part.primary.rank == 0
    # so is a rank that torchrun's summary names as its root cause
    summary = (
        "Root Cause (first observed failure):\n[0]:\n  time      : 2024-05-01_10:00:00\n"
        "  host      : node0\n  rank      : 0 (local_rank: 0)\n  exitcode  : 1 (pid: 42)\n"
        "  error_file: <N/A>\n"
    )
    rooted = failures.diagnose_logs([_WD.format(r=3) + summary])
    assert rooted.primary is not None and rooted.primary.rank == 0
    # another rank's report, a timeout or a dump signal: the logs hold more than one rank
    for other in (_WD.format(r=2), _DUMP.format(r=2).replace("5700", "5701")):
        more = failures.diagnose_logs([_WD.format(r=1) + other])
        assert more.stragglers[0].ranks == (0,) and not more.stragglers[0].counted
        assert more.primary is not None and more.primary.rank == 0


def test_an_all_gathers_element_counts_name_the_ranks_that_never_reported() -> None:
    # only rank 1's report: its all-gather of 4 elements into 16 says the group has 4 ranks
    line = (
        "[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=5, OpType=ALLGATHER, NumelIn=4, NumelOut=16, "
        "Timeout(ms)=600000) ran for 600081 milliseconds before timing out.\n"
    )
    report = failures.diagnose_logs([line])
    assert report.stragglers[0].ranks == (0, 2, 3)
    p = report.primary
    assert p is not None and p.rank == 1  # three silent ranks: none of them is blamed
    reduce_scatter = line.replace(
        "ALLGATHER, NumelIn=4, NumelOut=16", "REDUCE_SCATTER, NumelIn=32, NumelOut=4"
    )
    assert failures.diagnose_logs([reduce_scatter]).stragglers[0].ranks == (0, 2, 3, 4, 5, 6, 7)
    all_reduce = line.replace(
        "ALLGATHER, NumelIn=4, NumelOut=16", "ALLREDUCE, NumelIn=4, NumelOut=4"
    )
    assert failures.diagnose_logs([all_reduce]).stragglers[0].ranks == (0,)


# ------------------------------------------------------------------ per-rank files


def test_the_earliest_timestamp_names_the_first_failure(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "rank-0.log",
        "2024-05-01 10:00:05,000 ERROR RuntimeError: CUDA error: an illegal memory access "
        "was encountered\n",
    )
    _write(tmp_path, "rank-3.log", "2024-05-01 10:00:02,000 ERROR KeyError: 'labels'\n")
    _write(tmp_path, "rank-1.log", "2024-05-01 10:00:09,000 step 100\n")
    report = _diagnose(tmp_path)
    p = report.primary
    assert p is not None and (p.category, p.rank) == ("user_code_error", 3)
    assert _roles(report)[0] == "also_failed"


def test_identical_failures_on_every_rank_are_one_group(tmp_path: Path) -> None:
    for r in range(8):
        _write(
            tmp_path,
            f"rank-{r}.log",
            "Traceback (most recent call last):\n"
            '  File "train.py", line 40, in <module>\n'
            f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {r + 1}.00 GiB\n",
        )
    report = _diagnose(tmp_path)
    assert set(_roles(report).values()) == {"root"}
    text = failure_text.render_failure(report)
    ranks = text[text.index("  ranks:") :].splitlines()[1:]
    assert len(ranks) == 1 and ranks[0].split()[:2] == ["root", "ranks"]
    assert "0-7" in ranks[0]


def test_nccl_versions_that_differ_between_ranks(tmp_path: Path) -> None:
    for r, v in ((0, "2.18.1"), (1, "2.18.1"), (2, "2.19.3")):
        _write(
            tmp_path,
            f"rank-{r}.log",
            f"node{r}:100:100 [0] NCCL INFO NCCL version {v}+cuda12.1\nstep 1\n",
        )
    p = _diagnose(tmp_path).primary
    assert p is not None and (p.category, p.code) == ("nccl_version_mismatch", "LX536")
    assert any("2.19.3" in e for e in p.evidence)


def test_two_nodes_summaries_root_is_the_earliest() -> None:
    lines = (DEV / "cuda_oom__accelerate_1519_two_node_summaries.log").read_text()
    report = failures.diagnose_logs(["".join(lines.splitlines(keepends=True)[3:])])
    p = report.primary
    assert p is not None and (p.category, p.rank) == ("unknown", 4)


# ------------------------------------------------------------------ attempts


def test_each_attempt_of_a_launchx_run(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "attempt-0/rank-1.log",
        "NCCL WARN socketProgress: Connection closed by remote peer 10.0.0.3<3333>\n",
    )
    _write(tmp_path, "attempt-0/rank-0.log", "step 9\n")
    _write(tmp_path, "attempt-1/rank-1.log", "[rank1]: KeyError: 'labels'\n")
    _write(tmp_path, "attempt-1/rank-0.log", "step 12\n")
    events = [
        {"ts": 1.0, "event": "attempt_start", "attempt": 0},
        # The run loop's decision (a checkpoint existed) is the attempt's; the log alone
        # would not retry a closed socket.
        {"ts": 2.0, "event": "attempt_end", "attempt": 0, "exit_code": 1, "retryable": True},
        {"ts": 3.0, "event": "attempt_start", "attempt": 1},
        {"ts": 4.0, "event": "attempt_end", "attempt": 1, "exit_code": 1},
    ]
    _write(tmp_path, "events.jsonl", "".join(json.dumps(e) + "\n" for e in events))
    report = _diagnose(tmp_path)
    assert [(a.attempt, a.outcome, a.category, a.root_rank) for a in report.attempts] == [
        (0, "failed", "socket_error", 1),
        (1, "failed", "user_code_error", 1),
    ]
    p = report.primary
    assert p is not None and p.category == "user_code_error"
    doc = json.loads(failure_text.render_json(report))
    assert [a["retryable"] for a in doc["attempts"]] == [True, False]


def test_a_run_that_succeeded_after_a_retry(tmp_path: Path) -> None:
    _write(
        tmp_path, "attempt-0/rank-0.log", "[rank0]: torch.OutOfMemoryError: CUDA out of memory.\n"
    )
    _write(tmp_path, "attempt-1/rank-0.log", "done\n")
    _write(
        tmp_path,
        "events.jsonl",
        '{"ts": 1, "event": "attempt_end", "attempt": 0, "exit_code": 1}\n'
        '{"ts": 2, "event": "attempt_end", "attempt": 1, "exit_code": 0}\n',
    )
    report = _diagnose(tmp_path)
    assert [(a.attempt, a.outcome) for a in report.attempts] == [(0, "failed"), (1, "ok")]
    assert report.primary is not None and report.primary.category == "cuda_oom"
    assert any("attempt 1 succeeded" in n for n in report.notes)
    assert not report.succeeded  # the failure it recovered from is the report


def test_a_run_that_succeeded_has_no_cause(tmp_path: Path) -> None:
    # a warning in a run that finished is not why it failed: it did not fail
    _write(
        tmp_path,
        "attempt-0/rank-0.log",
        "NCCL WARN socketProgress: Connection closed by remote peer 10.0.0.3<3333>\nstep 9\n",
    )
    _write(
        tmp_path,
        "events.jsonl",
        '{"ts": 1, "event": "attempt_start", "attempt": 0}\n'
        '{"ts": 2, "event": "attempt_end", "attempt": 0, "exit_code": 0, "outcome": "ok",'
        ' "category": null}\n{"ts": 2, "event": "run_end", "exit_code": 0}\n',
    )
    report = _diagnose(tmp_path)
    assert report.succeeded and not report.found and report.primary is None
    assert report.ranks == () and report.stragglers == ()  # nobody to blame
    assert [f.category for f in report.findings] == ["socket_error"]
    text = failure_text.render_failure(report)
    assert text.startswith("succeeded: attempt 0 finished (1 attempt)")
    assert "without stopping the run" in text and "socket_error" in text
    assert json.loads(failure_text.render_json(report))["succeeded"] is True
    # the same run with attempt 0 failed and no attempt after it has not succeeded
    _write(
        tmp_path,
        "events.jsonl",
        '{"ts": 2, "event": "attempt_end", "attempt": 0, "exit_code": 1}\n',
    )
    report = _diagnose(tmp_path)
    assert not report.succeeded and report.primary is not None


def test_events_of_a_run_that_never_started_an_attempt(tmp_path: Path) -> None:
    # launchx died (or was refused) between run_start and the first attempt
    _write(tmp_path, "events.jsonl", '{"ts": 1, "event": "run_start", "run": "lx-1"}\n')
    _write(tmp_path, "launcher.log", "[rank1]: KeyError: 'labels'\n")
    report = _diagnose(tmp_path)
    assert report.attempts == () and not report.succeeded
    assert report.primary is not None and report.primary.category == "user_code_error"


def test_attempt_report_gives_the_run_loop_its_rank_view() -> None:
    logs = {
        0: "[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:553] "
        "Connection closed by peer [127.0.0.1]:9866\n",
        1: "[rank1]: KeyError: 'missing'\n",
    }
    report = failures.attempt_report(
        {0: 1, 1: -15}, {}, logs, launcher_exit=1, interrupted=False, policy=None
    )
    assert report.primary is not None
    assert (report.primary.category, report.primary.rank) == ("user_code_error", 1)
    assert _roles(report) == {0: "collateral", 1: "root"}
    text = failure_text.render_failure(report)
    assert "collateral" in text and "rank 1" in text


def test_the_run_loop_names_the_rank_behind_as_diagnose_does() -> None:
    """One attempt's rank logs through the run loop's path (exit codes first, then the
    lines) are explained by the same sequence numbers as ``launchx diagnose``'s: rank 2 was
    behind, the three that timed out are its collateral, and the decision is the same."""
    logs = {r: (_DUMP if r == 2 else _WD).format(r=r) for r in range(4)}
    exits = {0: -6, 1: -6, 2: -15, 3: -6}
    run = failures.attempt_report(
        exits, {}, logs, launcher_exit=1, interrupted=False, policy=None
    ).primary
    seen = failures.diagnose_logs(["".join(logs.values())]).primary
    assert run is not None and seen is not None
    assert (run.category, run.rank, run.code) == ("nccl_watchdog_timeout", 2, seen.code)
    assert (run.retryable, run.retry_on_progress) == (seen.retryable, seen.retry_on_progress)
    assert run.evidence[0].startswith("rank 2 never reached collective #5701 (ALLREDUCE)")
    # the run still exits with the code of the rank that failed (rank 0's abort), not 1
    assert decide.training_exit_code(1, run) == 134


def test_scans_of_one_source_in_memory_and_streamed_agree() -> None:
    text = (RUNS / "two_nodes_sigkill" / "node-1" / "launcher.log").read_text()
    a = runview.analyse([logscan.scan_text(text, SourceInfo(name="n1"))])
    b = failures.diagnose_logs([text])
    assert a.primary is not None and b.primary is not None
    assert (a.primary.category, a.primary.rank) == (b.primary.category, b.primary.rank)


# --------------------------------------------------------------- srun's own task reports

# Captured on the local Slurm cluster (scripts/slurm-local.sh): `srun -n3 bash -c ...` with
# task 1 killing itself with SIGSEGV and task 2 exiting 3, then with --kill-on-bad-exit.
SRUN_SEGV_THEN_EXIT = (
    "srun: error: lxnode1: task 1: Segmentation fault\n"
    "srun: error: lxnode1: task 2: Exited with exit code 3\n"
)
SRUN_KILL_ON_BAD_EXIT = (
    "srun: error: lxnode1: task 2: Exited with exit code 3\n"
    "srun: launch/slurm: _step_signal: Terminating StepId=544.0\n"
    "slurmstepd-lxnode1: error: *** STEP 544.0 ON lxnode1 CANCELLED AT 2026-11-25T03:23:51 ***\n"
    "srun: error: lxnode1: tasks 0-1: Terminated\n"
    "srun: Force Terminated StepId=544.0\n"
)


def test_srun_names_the_task_that_failed_first_when_nothing_else_does() -> None:
    log = DEV / "unknown__deit_102_submitit_task5_exit1_epoch8_repeats.log"
    report = failures.diagnose_logs(["".join(log.read_text().splitlines(keepends=True)[3:])])
    p = report.primary
    assert p is not None and not report.found
    assert (p.category, p.rank, p.host, p.exit_code) == ("unknown", 5, "learnfair0824", 1)
    assert p.evidence == ("srun: error: learnfair0824: task 5: Exited with exit code 1",)
    roles = _roles(report)
    assert roles.pop(5) == "root"
    assert sorted(roles) == [r for r in range(16) if r != 5]
    assert set(roles.values()) == {"collateral"}


def test_srun_a_task_crash_comes_before_a_later_exit() -> None:
    report = failures.diagnose_logs([SRUN_SEGV_THEN_EXIT])
    p = report.primary
    assert p is not None
    assert (p.category, p.rank, p.exit_code) == ("segfault", 1, -11)
    assert _roles(report)[1] == "root"


def test_srun_the_tasks_it_terminated_are_collateral() -> None:
    report = failures.diagnose_logs([SRUN_KILL_ON_BAD_EXIT])
    p = report.primary
    assert p is not None
    assert (p.rank, p.exit_code) == (2, 3)
    assert _roles(report) == {0: "collateral", 1: "collateral", 2: "root"}


def test_srun_task_numbers_are_not_ranks_under_torchrun() -> None:
    """``srun torchrun``: srun's task is a node; torchrun's summary names the rank."""
    text = (
        "[E0501 10:00:00.100000 77 torch/distributed/elastic/multiprocessing/api.py:869] "
        "failed (exitcode: 1) local_rank: 1 (pid: 4242) of binary: /usr/bin/python\n"
        "srun: error: node-b: task 0: Exited with exit code 1\n"
    )
    p = failures.diagnose_logs([text]).primary
    assert p is not None and p.rank == 1


def test_the_agents_other_wording_of_the_first_failure_names_the_rank() -> None:
    """ "failed (exitcode: -9) for binary located at ... with local_rank: 0": the same line
    with the binary first (round 38, a PAI-DLC pod) still names the rank that failed."""
    text = (
        "[2026-03-30 19:24:42,731] torch.distributed.elastic.multiprocessing.api: [ERROR] "
        "failed (exitcode: -9) for binary located at /opt/conda/bin/python3.10 with "
        "local_rank: 2 (process ID: 71)\n"
    )
    p = failures.diagnose_logs([text]).primary
    assert p is not None and (p.category, p.rank, p.exit_code) == ("killed", 2, -9)


_GLOO_CLOSED = (
    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed "
    "by peer [10.0.0.2]:3456\n"
)


def _deadlock(rank: int) -> str:
    """Lightning 1.x's wrapper line, raised by the rank that caught an exception."""
    return (
        "pytorch_lightning.utilities.exceptions.DeadlockDetectedException: "
        f"DeadLock detected from rank: {rank}\n"
    )


def test_lightnings_deadlock_exception_names_the_rank_that_raised() -> None:
    """Lightning 1.x's reconciliate_processes kills the other ranks and raises
    "DeadLock detected from rank: N" on the rank that caught the exception (optuna 3281):
    that rank failed first, unless torchrun's own report says otherwise."""
    error = (
        "RuntimeError: replicas[0][0] in this process with sizes [42, 784] appears not to "
        "match sizes of the same param in process 0.\n"
    )
    text = _deadlock(1) + error
    p = failures.diagnose_logs([text]).primary
    assert p is not None and (p.code, p.rank) == ("LX611", 1)
    assert failures.diagnose_logs([error]).primary.rank is None  # type: ignore[union-attr]
    torchrun = (
        "[2022-02-01 10:00:00,000] torch.distributed.elastic.multiprocessing.api: [ERROR] "
        "failed (exitcode: 1) local_rank: 0 (pid: 71) of binary: /usr/bin/python\n"
    )
    p = failures.diagnose_logs([text + torchrun]).primary
    assert p is not None and p.rank == 0


def test_lightnings_deadlock_rank_is_not_believed_for_a_lost_peer_alone() -> None:
    """Lightning raises its DeadlockDetectedException on any rank that caught an exception
    while a peer had not finished, a closed gloo connection or a timeout too: with nothing
    but such a lost peer in the log, the rank it names is not taken for the first to fail,
    and its wrapper line is not read as the script's own exception."""
    text = _deadlock(1) + _GLOO_CLOSED
    p = failures.diagnose_logs([text]).primary
    assert p is not None and (p.code, p.rank) == ("LX522", None), p
    # another rank's cause beside it stays that rank's
    other = (
        f"[rank1]: {_deadlock(1)}[rank1]: {_GLOO_CLOSED}"
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "model.py", line 12, in training_step\n'
        "[rank0]: KeyError: 'labels'\n"
    )
    p = failures.diagnose_logs([other]).primary
    assert p is not None and (p.code, p.rank) == ("LX511", 0), p
    # two ranks named, the causes unprefixed: neither is believed
    two = _deadlock(1) + _GLOO_CLOSED + _deadlock(0) + "KeyError: 'labels'\n"
    p = failures.diagnose_logs([two]).primary
    assert p is not None and (p.code, p.rank) == ("LX511", None), p
    # a native crash beside it is below the rules' tier of causes: not believed either
    crash = _deadlock(1) + "terminate called after throwing an instance of 'std::runtime_error'\n"
    p = failures.diagnose_logs([crash]).primary
    assert p is not None and p.rank is None, p


def test_srun_task_lists() -> None:
    assert logscan._task_list("0,2-4,9") == [0, 2, 3, 4, 9]
    assert logscan._task_list("3-1") == []
    assert logscan._task_list("0-99999999") == []
    assert logscan._task_list("a") == []


def test_srun_task_numbers_are_not_ranks_under_a_per_node_launcher() -> None:
    """srun starting one deepspeed/accelerate/mp.spawn per node: the ranks in the log are
    not srun's tasks, so srun's task numbers name nodes, not ranks."""
    text = (
        "[rank3]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] "
        "Connection closed by peer [10.0.0.2]:5432\n"
        "srun: error: node-b: task 1: Exited with exit code 1\n"
    )
    report = failures.diagnose_logs([text])
    p = report.primary
    assert p is not None and (p.category, p.rank) == ("gloo_error", 3)
    assert 1 not in _roles(report)


def test_srun_reports_a_task_its_cgroup_killed() -> None:
    scan = logscan.scan_text("srun: error: node-7: task 0: Out Of Memory\n", SourceInfo(name="x"))
    assert [(e.rank, e.exit_code, e.host) for e in scan.task_exits] == [(0, -9, "node-7")]
    # a SIGKILL that srun names "Out Of Memory" is the task's own end, not srun's kill
    assert scan.task_exits[0].is_root
    killed = logscan.scan_text("srun: error: node-7: task 0: Killed\n", SourceInfo(name="x"))
    assert not killed.task_exits[0].is_root


def test_the_rank_whose_nccl_call_failed_owns_nccls_warning() -> None:
    """NCCL's WARN names the device; the exception its return code became names the rank.
    With two ranks reporting, which one the WARN belongs to is unknown."""
    warn = (
        "host-a:1458548:1480527 [0] misc/ibvwrap.cc:182 NCCL WARN Call to ibv_reg_mr_iova2 "
        "failed with error Invalid argument\n"
    )
    err = "[rank{r}]: RuntimeError: NCCL Error 2: unhandled system error\n"
    p = failures.diagnose_logs([err.format(r=10) + warn]).primary
    assert p is not None and (p.category, p.rank) == ("ib_error", 10)
    q = failures.diagnose_logs([err.format(r=10) + err.format(r=3) + warn]).primary
    assert q is not None and (q.category, q.rank) == ("ib_error", None)


def test_a_crash_beside_a_ranks_nccl_error_is_not_given_that_rank() -> None:
    """The rank that saw NCCL fail is more often the survivor of the crash."""
    log = (
        "Segmentation fault (core dumped)\n"
        "[rank10]: RuntimeError: NCCL Error 2: unhandled system error\n"
    )
    p = failures.diagnose_logs([log]).primary
    assert p is not None and (p.category, p.rank) == ("segfault", None)


def test_a_rank_killed_after_printing_an_exception_was_killed() -> None:
    """An uncaught exception exits with 1; a rank whose own exit was a SIGKILL died of the
    kill, whatever it printed before (horovod 2829: its elastic test kills rank 0)."""
    log = (
        "[0]<stderr>:RuntimeError: check_rank and exit epoch=1 batch=0\n"
        "[1]<stderr>:terminate called after throwing an instance of 'gloo::IoException'\n"
        "Process 0 exit with status code {code}.\n"
        "Process 1 exit with status code 134.\n"
    )
    killed = failures.diagnose_logs([log.format(code=137)]).primary
    assert killed is not None and (killed.category, killed.rank) == ("killed", 0)
    raised = failures.diagnose_logs([log.format(code=1)]).primary
    assert raised is not None and (raised.category, raised.rank) == ("user_code_error", 0)
    # a later rank's SIGKILL does not outweigh this rank's exception; one that horovodrun
    # reports first is the first failure
    other = "Process 2 exit with status code 137.\n"
    later = failures.diagnose_logs([log.format(code=1) + other]).primary
    assert later is not None and (later.category, later.rank) == ("user_code_error", 0)
    first = failures.diagnose_logs([other + log.format(code=1)]).primary
    assert first is not None and (first.category, first.rank) == ("killed", 2)
    # a kill line that names no rank is not the root rank's, though both are given it
    summary = (
        "KeyError: 'labels'\nKilled\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
        "============================================================\n"
        "train.py FAILED\n"
        "------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n"
        "[0]:\n"
        "  time      : 2024-05-01_10:00:00\n"
        "  host      : node1\n"
        "  rank      : 0 (local_rank: 0)\n"
        "  exitcode  : 1 (pid: 4242)\n"
        "  error_file: <N/A>\n"
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
        "============================================================\n"
    )
    bare = failures.diagnose_logs([summary]).primary
    assert bare is not None and (bare.category, bare.rank) == ("user_code_error", 0)


def test_other_launchers_name_the_rank_that_failed_first() -> None:
    """Without torchrun's summary, composer's, DeepSpeed's and torch.distributed.launch's
    (with one process) and horovodrun's own report of a rank's exit names the root, even when
    nothing says why it exited."""
    cases = {
        "ERROR:composer.cli.launcher:Rank 2 crashed with exit code -7.\n": (2, -7),
        "[2023-07-04 17:31:27,755] [ERROR] [launch.py:321:sigkill_handler] ['python', '-u', "
        "'train.py', '--local_rank=0'] exits with return code = 3\n": (0, 3),
        "Process 3 exit with status code 1.\nProcess 0 exit with status code 143.\n": (3, 1),
        # torch.multiprocessing.spawn's join; torch's own multi-process test harness
        "torch.multiprocessing.spawn.ProcessExitedException: process 2 terminated with exit "
        "code 17\n": (2, 17),
        "Jul 13 21:22:34 Process 2 terminated with exit code 10, terminating remaining "
        "processes.\n": (2, 10),
        # ... the harness's report of the process that raised, after the test (torch 2.1 on,
        # and before it), and torchelastic's agent before it moved into torch
        "RuntimeError: Process 1 exited with error code 10 and exception:\n": (1, 10),
        "Sep 21 12:44:02 RuntimeError: Processes 5 exited with error code 10\n": (5, 10),
        "[ERROR] 2021-03-01 10:00:00,000 local_elastic_agent: Child process 8641 (local_rank 0) "
        "FAILED (exitcode 1)\n": (0, 1),
        # torch.distributed.launch before torchrun, where its one process is local rank 0
        "subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', "
        "'--local_rank=0', '--cfg', 'a.yml']' returned non-zero exit status 1.\n": (0, 1),
        # Lightning's observer of the children it started, under its rank prefix (the
        # child's local rank), for an error's exit code and for a crash's signal
        "[rank: 2] Child process with PID 23026 terminated with code 1. Forcefully "
        "terminating all other processes to avoid zombies \U0001f9df\n": (2, 1),
        "[rank: 1] Child process with PID 23026 terminated with code -11. Forcefully "
        "terminating all other processes to avoid zombies\n": (1, -11),
        # Open MPI's mpirun: the first process's MPI rank and exit code on two lines
        "mpirun detected that one or more processes exited with non-zero status, thus "
        "causing\nthe job to be terminated. The first process to do so was:\n\n"
        "  Process name: [[20376,1],6]\n  Exit code:    3\n": (6, 3),
    }
    for log, (rank, code) in cases.items():
        p = failures.diagnose_logs([log]).primary
        assert p is not None and (p.category, p.rank, p.exit_code) == ("unknown", rank, code)
    # ... and the signal spawn names instead of an exit code
    log = "torch.multiprocessing.spawn.ProcessExitedException: process 3 terminated with "
    p = failures.diagnose_logs([log + "signal SIGKILL\n"]).primary
    assert p is not None and (p.category, p.rank, p.exit_code) == ("killed", 3, -9)
    # ... and torch.distributed.launch's, from its one process (a reporter's Markdown may
    # take the space out of the signal's repr)
    launch = (
        "subprocess.CalledProcessError: Command '['/opt/conda/bin/python', '-u', 'train.py', "
        "'--local_rank={rank}', '--bptt', '256']' died with <Signals.SIGKILL:9>.\n"
    )
    p = failures.diagnose_logs([launch.format(rank=0)]).primary
    assert p is not None and (p.category, p.rank, p.exit_code) == ("killed", 0, -9)
    # ... but its command is the one its spawning loop built last, whichever process failed:
    # with more than one, no rank from it
    p = failures.diagnose_logs([launch.format(rank=1)]).primary
    assert p is not None and (p.category, p.rank) == ("killed", None), p
    # Lightning's SIGKILL of a child may be its own tear-down after the main process failed
    # (or the kernel's): no root from it
    lightning = (
        "[rank: 1] Child process with PID 192280 terminated with code -9. Forcefully "
        "terminating all other processes to avoid zombies\n"
    )
    p = failures.diagnose_logs([lightning]).primary
    assert p is None or p.rank is None, p
    # the harness names every process that raised: with two, not the first of them
    p = failures.diagnose_logs(["RuntimeError: Processes 0 1 exited with error code 10\n"]).primary
    assert p is None or p.rank is None, p
    # A rank's own spawn of helpers reports its helper, not the first rank: torchrun's
    # summary keeps naming rank 3.
    nested = (
        "[rank3]: torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated "
        "with exit code 1\n[rank0]: RuntimeError: Connection closed by peer\n"
        "E1129 10:00:00 api.py:869] failed (exitcode: 1) local_rank: 3 (pid: 12) of binary: "
        "python\n"
    )
    p = failures.diagnose_logs([nested]).primary
    assert p is not None and p.rank == 3, p
    # DeepSpeed's launch.py prints the command it built last (the last local rank's),
    # whichever rank failed: with two processes, no rank from it
    deepspeed = (
        "[2023-07-04 17:31:27,755] [ERROR] [launch.py:321:sigkill_handler] ['python', '-u', "
        "'train.py', '--local_rank=1'] exits with return code = 3\n"
    )
    p = failures.diagnose_logs([deepspeed]).primary
    assert p is None or p.rank is None, p
    # ... nor from its report of a signal, which still names the crash
    p = failures.diagnose_logs([deepspeed.replace("= 3", "= -11")]).primary
    assert p is not None and (p.category, p.rank) == ("segfault", None), p
    p = failures.diagnose_logs([deepspeed.replace("=1'", "=0'").replace("= 3", "= -11")]).primary
    assert p is not None and (p.category, p.rank) == ("segfault", 0), p
    # ... and so does torch.distributed.launch's CalledProcessError: with two processes, no
    # rank from it
    old = (
        "subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', "
        "'--local_rank=1']' returned non-zero exit status 1.\n"
    )
    p = failures.diagnose_logs([old]).primary
    assert p is None or p.rank is None
    # mpirun starting one torchrun per node: its process is a node's launcher, and the
    # torchrun that failed names its own first failed rank
    per_node = (
        "E1129 10:00:00 api.py:869] failed (exitcode: 1) local_rank: 3 (pid: 12) of binary: "
        "python\n  Process name: [[20376,1],1]\n  Exit code:    1\n"
    )
    p = failures.diagnose_logs([per_node]).primary
    assert p is not None and p.rank == 3, p
    # ... and the same with mpirun's output and the node's torchrun in two files, either way
    mpi = "  Process name: [[20376,1],1]\n  Exit code:    1\n"
    node = per_node.split("\n  Process")[0] + "\n"
    for texts in ([mpi, node], [node, mpi]):
        p = failures.diagnose_logs(texts).primary
        assert p is not None and p.rank == 3, (texts, p)
    # srun's task is the mpirun it started: its task number is not the rank that failed
    srun = mpi.replace("],1]", "],6]").replace("1\n", "3\n") + (
        "srun: error: gpu-01: task 0: Exited with exit code 3\n"
    )
    p = failures.diagnose_logs([srun]).primary
    assert p is not None and p.rank == 6, p
    # an "Exit code" line under anything but Open MPI's process name names no rank
    for above in ("  Process name: 6\n", "  Node: gpu-6\n", ""):
        p = failures.diagnose_logs([above + "  Exit code:    3\n"]).primary
        assert p is None or p.rank is None, above


def test_a_rank_shown_behind_outweighs_silent_and_counted_ranks() -> None:
    """Rank 3's report with rank 0 silent; a monitored barrier that names rank 1 as never
    having reached it is a rank shown behind, and names the root; so is a rank whose dump
    shows it behind in another process group."""
    barrier = (
        "[rank0]: RuntimeError: [Rank 0]: Rank 1 failed to pass monitoredBarrier in 600000 ms\n"
    )
    report = failures.diagnose_logs([_WD.format(r=3) + barrier])
    assert [s.kind for s in report.stragglers] == ["silent", "behind"]
    assert report.primary is not None and report.primary.rank == 1
    pg1 = (
        "[rank{r}]:[E626 06:24:44.9 ProcessGroupNCCL.cpp:1709] [PG 1 Rank {r}] Timeout at NCCL "
        "work: 10, last enqueued NCCL work: {e}, last completed NCCL work: 9.\n"
    )
    dump = (
        "[rank2]:[E626 06:24:45.1 ProcessGroupNCCL.cpp:1400] [PG 1 Rank 2] Received a dump "
        "signal due to a collective timeout from rank 3 and we will try our best to dump the "
        "debug info. Last enqueued NCCL work: 9, last completed NCCL work: 9.\n"
    )
    groups = failures.diagnose_logs([_WD.format(r=3) + pg1.format(r=3, e=10) + dump])
    assert groups.primary is not None and groups.primary.rank == 2
    assert groups.primary.evidence[0].startswith("rank 2 never reached collective #10")


def test_a_monitored_barrier_names_the_rank_that_failed_while_it_held_it() -> None:
    """Rank 1 reports that rank 0, which holds the barrier, sent an error instead of its
    answer: rank 0 is named the root of an otherwise unknown failure; a subgroup's report (its
    rank numbers are not global ones) names none."""
    line = (
        "[E ProcessGroupGloo.cpp:136] Rank {r} successfully reached monitoredBarrier, but "
        "received errors while waiting for send/recv from rank 0. Please check rank 0 logs for "
        "faulty rank.\n"
    )
    report = failures.diagnose_logs([line.format(r=1)])
    p = report.primary
    assert p is not None and (p.category, p.rank) == ("unknown", 0), p
    assert [(s.kind, s.ranks, s.waiting) for s in report.stragglers] == [("failed", (0,), (1,))]
    assert "rank 0's own output" in p.fix and "rank-0.log" in p.fix
    sub = failures.diagnose_logs(["[rank5]:" + line.format(r=1)]).primary
    assert sub is None or sub.rank is None, sub
    # rank 0's own report of the rank it waited for explains its error: that rank is named
    held = (
        "[E ProcessGroupGloo.cpp:138] [Rank 0]: Rank 2 failed to pass monitoredBarrier in "
        "30000 ms\n"
    )
    both = failures.diagnose_logs([line.format(r=3) + held + line.format(r=1)])
    assert [(s.kind, s.ranks) for s in both.stragglers] == [("behind", (2,))]
    assert both.primary is not None and both.primary.rank == 2, both.primary


def test_behind_from_a_report_in_two_files_or_from_its_timed_out_collective(
    tmp_path: Path,
) -> None:
    # rank 2's dump report in its own file and in its node's: one rank behind, not two
    _write(tmp_path, "rank-2.log", _DUMP.format(r=2))
    _write(tmp_path, "node-0.log", _DUMP.format(r=2))
    _write(tmp_path, "rank-1.log", _WD.format(r=1))
    twice = _diagnose(tmp_path)
    assert twice.stragglers[0].ranks == (2,)
    assert "rank 2 never reached collective #5701" in twice.stragglers[0].text
    # a report that gives only the collective it timed out in (#5700, below the others')
    early = (
        "[rank2]:[E626 06:24:44.9 ProcessGroupNCCL.cpp:616] [Rank 2] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=5700, OpType=ALLREDUCE, NumelIn=1, "
        "NumelOut=1, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.\n"
    )
    report = failures.diagnose_logs([_WD.format(r=0) + _WD.format(r=1) + early])
    assert report.stragglers[0].kind == "behind" and report.stragglers[0].ranks == (2,)


def test_torch_2_6_watchdog_status_wording_is_read() -> None:
    """torch 2.6+ prints "failure detected by watchdog at work sequence id: N PG status:
    last enqueued work: N, last completed work: N"; rank 7 one behind is the root."""
    line = (
        "[rank{r}]:[E1218 01:59:12.8 ProcessGroupNCCL.cpp:2252] [PG ID 0 PG GUID 0 Rank {r}]  "
        "failure detected by watchdog at work sequence id: {seq} PG status: last enqueued "
        "work: {seq}, last completed work: {done}\n"
    )
    text = line.format(r=0, seq=138, done=137) + line.format(r=7, seq=137, done=136)
    report = failures.diagnose_logs([text])
    assert report.stragglers and report.stragglers[0].ranks == (7,)


def test_the_one_rank_a_log_names_failed_when_its_error_line_lost_the_prefix() -> None:
    """A paste of one rank's error whose first line has no prefix (a kernel's device assert
    above "[rank0]: RuntimeError: CUDA error: ...") failed on that rank; the rank does not
    change the cause, and a rank that only warned or reported another failure is not taken
    for it."""
    assert_line = (
        "/w/aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: "
        '[5,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && "index out of '
        'bounds"` failed.\n'
    )
    raised = "[rank0]: RuntimeError: CUDA error: device-side assert triggered\n"
    alone = failures.diagnose_logs([assert_line]).primary
    p = failures.diagnose_logs([assert_line + raised]).primary
    assert alone is not None and p is not None
    assert (p.code, p.rank, alone.rank) == (alone.code, 0, None), p
    # the same with every line scanned: the rank comes from lines a rule read, which both
    # scans keep
    scan = logscan.scan_text(assert_line + raised, SourceInfo(name=""), every_line=True)
    full = runview.analyse([scan]).primary
    assert full is not None and (full.code, full.rank) == (p.code, 0), full
    # two ranks raising it: neither is the one
    p = failures.diagnose_logs([assert_line + raised + raised.replace("0", "1")]).primary
    assert p is not None and p.rank is None, p
    # the same rank also reporting another failure (a lost peer): it may be the survivor
    lost = "[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] "
    p = failures.diagnose_logs([assert_line + raised + lost + "Connection closed by peer\n"])
    assert p.primary is not None and p.primary.rank is None, p.primary
    # the only rank shown warned (glog's header glued to the rank prefix, in torch 2.4's
    # three-digit date too), or reported a lost peer wrapped over two lines: not named
    for warned in (
        "[rank1]:[W ProcessGroupGloo.cpp:721] Warning: Unable to resolve hostname\n",
        "[rank1]:[W318 15:25:23.355 ProcessGroupNCCL.cpp:1250] Warning: the process group has "
        "NOT been destroyed; a failure\n",
    ):
        p = failures.diagnose_logs([assert_line + warned]).primary
        assert p is not None and p.rank is None, (warned, p)
    wrapped = (
        "[rank1]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] "
        "Connection closed\n[rank1]: by peer [10.0.0.2]:24723\n"
    )
    p = failures.diagnose_logs([assert_line + wrapped]).primary
    assert p is not None and p.rank is None, p


AGENT_FAILED = (
    "E1206 10:01:09.800000 4242 torch/distributed/elastic/multiprocessing/api.py:869] "
    "failed (exitcode: {code}) local_rank: {local} (pid: 4251) of binary: /usr/bin/python3\n"
)


def test_torchruns_local_rank_is_never_made_a_global_rank_the_log_lacks(tmp_path: Path) -> None:
    """torchrun's "failed (exitcode: N) local_rank: L" line names a local rank. Its summary
    beside it gives the global one; the file of a later node (ranks 2-3 on two per node)
    names ranks above it: local rank 1 there is not rank 1."""
    summary = (
        "Root Cause (first observed failure):\n[0]:\n  time      : 2024-12-06_10:01:09\n"
        "  host      : gpu-node-07\n  rank      : 9 (local_rank: 1)\n"
        "  exitcode  : -9 (pid: 4251)\n  error_file: <N/A>\n"
        "  traceback : Signal 9 (SIGKILL) received by PID 4251\n" + "=" * 60 + "\n"
    )
    _write(tmp_path, "one/node1.log", AGENT_FAILED.format(code=-9, local=1) + summary)
    report = _diagnose(tmp_path / "one")
    assert report.primary is not None and report.primary.rank == 9
    assert [(r.rank, r.role) for r in report.ranks] == [(9, "root")]
    _write(
        tmp_path,
        "two/train-a01.log",
        "[rank0]: RuntimeError: NCCL communicator was aborted on rank 0.\n"
        "[rank1]: RuntimeError: NCCL communicator was aborted on rank 1.\n"
        + AGENT_FAILED.format(code=1, local=0),
    )
    _write(
        tmp_path,
        "two/train-a02.log",
        "[rank3]: Traceback (most recent call last):\n"
        '[rank3]:   File "/workspace/train.py", line 140, in <module>\n'
        "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB.\n"
        + AGENT_FAILED.format(code=1, local=1),
    )
    report = _diagnose(tmp_path / "two")
    assert report.primary is not None and (report.primary.category, report.primary.rank) == (
        "cuda_oom",
        3,
    )
    exits = {r.rank: r.exit_code for r in report.ranks}
    assert exits.get(1) is None and exits[0] == 1, report.ranks  # a02's local rank 1 is not 1
    # a lone file is one node's, whatever ranks its lines show: local rank 1 is rank 1
    for shown in ("[rank0]: step 3\n", "[rank3]: step 3\n"):
        _write(tmp_path, "three/x.log", shown + AGENT_FAILED.format(code=-9, local=1))
        report = _diagnose(tmp_path / "three")
        assert report.primary is not None and report.primary.rank == 1


def test_why_launchx_stopped_a_retryable_failure_is_said(tmp_path: Path) -> None:
    """Both attempts were killed (retryable from a checkpoint) and the run stopped: the
    repeat rule's words from run_end say why, which the attempts alone do not."""
    for a in (0, 1):
        _write(tmp_path, f"attempt-{a}/launcher.log", AGENT_FAILED.format(code=-9, local=1))
    why = "the same killed failure twice in a row with no checkpoint progress in between"
    _write(
        tmp_path,
        "events.jsonl",
        '{"ts": 1, "event": "attempt_end", "attempt": 0, "exit_code": -9}\n'
        '{"ts": 2, "event": "attempt_end", "attempt": 1, "exit_code": -9}\n'
        f'{{"ts": 3, "event": "run_end", "exit_code": 137, "reason": "{why}"}}\n',
    )
    report = _diagnose(tmp_path)
    assert report.primary is not None and report.primary.category == "killed"
    assert f"the run ended: {why}" in report.notes
    assert f"note: the run ended: {why}" in failure_text.render_failure(report)
    # a run that finished, that a person interrupted or that SLURM requeued needs no note
    for reason in (
        "finished",
        "interrupted by the user: never retried",
        "requeued by SLURM after the time-limit warning",
    ):
        _write(tmp_path, "events.jsonl", f'{{"ts": 3, "event": "run_end", "reason": "{reason}"}}\n')
        assert not any("the run ended" in n for n in _diagnose(tmp_path).notes)
    # a record that says how it ended is read by that field, not by its reason's words
    for ended, noted in (("requeued", False), ("finished", False), ("failed", True)):
        _write(
            tmp_path,
            "events.jsonl",
            '{"ts": 3, "event": "run_end", "exit_code": 0, "reason": "the job goes on at '
            f'step 40", "ended": "{ended}"}}\n',
        )
        notes = _diagnose(tmp_path).notes
        assert ("the run ended: the job goes on at step 40" in notes) is noted, (ended, notes)


def test_a_failure_after_the_framework_said_training_ended_is_said_so() -> None:
    """HF's Trainer prints its last line at the end of train(); a rank's error after it
    came at a final save, an evaluation or the teardown, not in training."""
    hf_done = (
        "[rank0]: Training completed. Do not forget to share your model on "
        "huggingface.co/models =)\n"
    )
    failed = "[rank1]: Traceback (most recent call last):\n[rank1]: KeyError: 'eval_loss'\n"
    report = failures.diagnose_logs([hf_done + failed])
    assert report.primary is not None and report.primary.category == "user_code_error"
    (note,) = [n for n in report.notes if "reached its end" in n]
    assert note.startswith("rank 0 said the training reached its end before this failure")
    assert not any("reached its end" in n for n in failures.diagnose_logs([failed]).notes)
    stopped = hf_done + "[rank1]: KeyboardInterrupt\n"
    assert not any("reached its end" in n for n in failures.diagnose_logs([stopped]).notes)


_CLOSED = (
    "[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection "
    "closed by peer [127.0.0.1]:37288\n"
)
_ONLY_RANK_0 = (
    "s.py FAILED\nFailures:\n  <NO_OTHER_FAILURES>\nRoot Cause (first observed failure):\n[0]:\n"
    "  time      : 2026-12-06_20:07:20\n  host      : vm\n  rank      : 0 (local_rank: 0)\n"
    "  exitcode  : 1 (pid: 8039)\n"
)


def test_a_rank_that_ended_cleanly_while_its_peer_waited_is_the_root(tmp_path: Path) -> None:
    """Uneven data: rank 1 ran out of batches and exited 0; rank 0's next all-reduce lost
    its peer. torchrun's summary names rank 0 alone; rank 1's own log holds no error."""
    _write(tmp_path, "attempt-0/rank-0.log", "step 0\n" + _CLOSED)
    _write(tmp_path, "attempt-0/rank-1.log", "rank 1 step 2\nrank 1 done\n")
    _write(tmp_path, "attempt-0/launcher.log", _ONLY_RANK_0)
    report = _diagnose(tmp_path)
    p = report.primary
    assert p is not None and (p.category, p.rank) == ("gloo_error", 1)
    assert p.evidence[0].startswith("rank 1 ended without an error while rank 0 still waited")
    assert _roles(report) == {0: "collateral", 1: "root"}
    # torchrun stopped rank 1 (it is in the summary): nothing says it left first
    stopped = _ONLY_RANK_0.replace(
        "  <NO_OTHER_FAILURES>\n",
        "[1]:\n  time      : 2026-12-06_20:07:20\n  host      : vm\n"
        "  rank      : 1 (local_rank: 1)\n  exitcode  : -15 (pid: 8040)\n",
    )
    _write(tmp_path, "attempt-0/launcher.log", stopped)
    p = _diagnose(tmp_path).primary
    assert p is not None and p.rank == 0
    # a rank with an error of its own is not quiet; nor is one whose node has no summary
    _write(tmp_path, "attempt-0/launcher.log", _ONLY_RANK_0)
    _write(tmp_path, "attempt-0/rank-1.log", "[rank1]: KeyError: 'x'\n")
    p = _diagnose(tmp_path).primary
    assert p is not None and p.category == "user_code_error" and p.rank == 1
    _write(tmp_path, "attempt-0/rank-1.log", "rank 1 done\n")
    (tmp_path / "attempt-0" / "launcher.log").unlink()
    p = _diagnose(tmp_path).primary
    assert p is not None and p.rank == 0
    # torch before 2.9 stopped rank 1 and listed rank 0 alone: its closing signal says so
    old = "W1206 api.py:1028] Sending process 8040 closing signal SIGTERM\n" + _ONLY_RANK_0
    _write(tmp_path, "attempt-0/launcher.log", old)
    p = _diagnose(tmp_path).primary
    assert p is not None and p.rank == 0
    # a SLURM task's file (no attempt directory) is a node's, not a rank's
    flat = tmp_path / "flat"
    _write(flat, "job-0.out", "step 0\n" + _CLOSED + _ONLY_RANK_0)
    _write(flat, "job-1.out", "step 0\nrank 1 done\n")
    p = _diagnose(flat).primary
    assert p is not None and p.rank == 0


def test_the_one_rank_that_printed_a_traceback_failed_when_the_paste_stops_inside_it() -> None:
    """A kernel's device assert without a prefix, then one rank's traceback that the paste
    cuts before its exception line (D-FINE's issue 137): that rank raised it; two ranks'
    tracebacks name neither, nor does a cause that only waited on a peer, nor one that no
    rank raises as an exception (a kill, a crash: the rank that printed a traceback
    survived it), nor a rank that also reported a lost peer."""
    assert_line = (
        "/w/aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: "
        '[5,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && "index out of '
        'bounds"` failed.\n'
    )

    def cut(rank: int) -> str:
        return (
            f"[rank{rank}]: Traceback (most recent call last):\n"
            f'[rank{rank}]:   File "/w/train.py", line 84, in <module>\n'
            f"[rank{rank}]:     main(args)\n"
        )

    alone = failures.diagnose_logs([assert_line]).primary
    p = failures.diagnose_logs([assert_line + cut(2)]).primary
    assert alone is not None and p is not None
    assert (p.code, p.rank, alone.rank) == (alone.code, 2, None), p
    scan = logscan.scan_text(assert_line + cut(2), SourceInfo(name=""), every_line=True)
    full = runview.analyse([scan]).primary
    assert full is not None and (full.code, full.rank) == (p.code, 2), full
    p = failures.diagnose_logs([assert_line + cut(2) + cut(3)]).primary
    assert p is not None and (p.code, p.rank) == (alone.code, None), p
    # a closed gloo connection is what a survivor raises: its traceback names no culprit
    p = failures.diagnose_logs([_GLOO_CLOSED + "\n" + cut(1)]).primary
    assert p is not None and (p.category, p.rank) == ("gloo_error", None), p
    # the rank that printed the traceback also lost a peer: it may be the survivor
    lost = f"[rank2]: {_GLOO_CLOSED}"
    p = failures.diagnose_logs([assert_line + cut(2) + lost]).primary
    assert p is not None and (p.code, p.rank) == (alone.code, None), p
    # a kill or a crash prints no traceback of its own: the one shown is a survivor's
    for end in (
        "Memory cgroup out of memory: Killed process 1234 (python) total-vm:1kB\n",
        "Segmentation fault (core dumped)\n",
        "/bin/sh: line 1:  1234 Killed python train.py\n",
    ):
        p = failures.diagnose_logs([end + "\n" + cut(1)]).primary
        assert p is not None and p.rank is None, (end, p)


def test_a_world_bigger_than_the_launch_whichever_rank_torchrun_names_first() -> None:
    """Every rank waits alike for a rank that was never started; torchrun may name either
    first. Named rank 1, whose only line is the same wait (a symptom, so by itself "it
    printed nothing recognised"), the run's world from its events still makes it the
    script's world size, with rank 1's own line as the evidence."""
    wait = (
        "torch.distributed.DistStoreError: wait timeout after 5000ms, keys: "
        "/default_pg/0//cpu//0/2\n"
    )
    launcher = "\n".join(
        [
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
            "=" * 60,
            "script.py FAILED",
            "-" * 60,
            "Failures:",
            "[1]:",
            "  time      : 2026-12-07_05:34:41",
            "  host      : localhost",
            "  rank      : 0 (local_rank: 0)",
            "  exitcode  : 1 (pid: 9776)",
            "-" * 60,
            "Root Cause (first observed failure):",
            "[0]:",
            "  time      : 2026-12-07_05:34:41",
            "  host      : localhost",
            "  rank      : 1 (local_rank: 1)",
            "  exitcode  : 1 (pid: 9777)",
            "=" * 60,
            "",
        ]
    )
    scans = [
        logscan.scan_text(wait, SourceInfo(name="rank-0.log", rank=0, attempt=0)),
        logscan.scan_text(wait, SourceInfo(name="rank-1.log", rank=1, attempt=0)),
        logscan.scan_text(launcher, SourceInfo(name="launcher.log", attempt=0, launcher=True)),
    ]
    start = {"event": "run_start", "launcher": "torchrun", "nnodes": 1, "nproc_per_node": 2}
    end = {"event": "attempt_end", "attempt": 0, "exit_code": 1, "outcome": "failed"}
    report = runview.analyse(scans, events=[start, end])
    p = report.primary
    assert p is not None and (p.code, p.rank) == ("LX826", 1), p
    assert p.where and p.where[0].startswith("rank-1.log"), p.where
    # a rank that printed nothing recognised is no consequence worth listing beside it
    silent = rm.unknown(None, 0, 1)
    shown = failure_text.render_failure(replace(report, findings=(p, silent)))
    assert "LX599" not in shown and "also seen" not in shown, shown
    # the same logs of a launch of three ranks: rank 2 came, and the wait was for it
    three = runview.analyse(scans, events=[{**start, "nproc_per_node": 3}, end]).primary
    assert three is not None and three.code != "LX826", three
    # srun or a platform chose the world: launchx does not know it
    srun = runview.analyse(scans, events=[{**start, "launcher": "srun"}, end]).primary
    assert srun is not None and srun.code != "LX826", srun
