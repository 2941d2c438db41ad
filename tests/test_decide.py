"""The run loop's decisions (``launchx.run.decide``), one table row per rule: records and
evidence in, the record and the next step out. No process, no clock, no environment."""

from __future__ import annotations

import io
import signal
from pathlib import Path

import pytest

from launchx import logsource
from launchx.checkpoints import Checkpoint
from launchx.profile_model import Retry
from launchx.run.decide import (
    AttemptRecord,
    Evidence,
    HangFound,
    NextStep,
    Policy,
    Requeue,
    RetryAfter,
    Stop,
    assess,
    attempts_charged,
    backoff_s,
    next_step,
    rewritten,
)

SIG = ("collective_timeout", 1, "runtimeerror: timed out")
OTHER = ("socket_error", 0, "connection reset")
GLOO_TIMEOUT = (
    "[rank1]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] "
    "Timed out waiting 3000ms for recv operation to complete"
)
KEY_ERROR = "[rank0]: KeyError: 'labels'"


def rec(
    attempt: int = 0,
    *,
    ok: bool = False,
    category: str | None = "collective_timeout",
    retryable: bool = True,
    signature: tuple[str, int | None, str] | None = SIG,
    before: int | None = None,
    after: int | None = None,
    interrupted: bool = False,
    warned: bool = False,
    exit_code: int = 1,
) -> AttemptRecord:
    if ok:
        return AttemptRecord(
            attempt, 0, 1.0, None, False, None, step_before=before, step_after=after,
            warned=warned,
        )  # fmt: skip
    return AttemptRecord(
        attempt,
        exit_code,
        1.0,
        category,
        retryable,
        signature,
        step_before=before,
        step_after=after,
        interrupted=interrupted,
        warned=warned,
    )


NO_JITTER = Retry(backoff_min_s=5, backoff_max_s=12, jitter_s=0)
RETRY = Policy(NO_JITTER)
REQUEUE = Policy(NO_JITTER, requeue_on_warning=True)
BUDGET_1 = Policy(Retry(max_retries=1, backoff_min_s=5, backoff_max_s=12, jitter_s=0))


# (name, history, policy, stop signal, expected step)
RULES: list[tuple[str, list[AttemptRecord], Policy, int | None, NextStep]] = [
    ("success", [rec(0), rec(1, ok=True)], RETRY, None, Stop(0, "finished", "finished")),
    (
        "a stop signal to launchx",
        [rec(0)],
        RETRY,
        signal.SIGTERM,
        Stop(143, "interrupted", "interrupted"),
    ),
    (
        "a stop signal even when the policy retries interrupts",
        [rec(0, category="interrupted", interrupted=True)],
        Policy(Retry(on=("interrupted",))),
        signal.SIGINT,
        Stop(130, "interrupted", "interrupted"),
    ),
    (
        "an interrupt the diagnosis found",
        [rec(0, category="interrupted", retryable=True)],
        Policy(Retry(max_retries=100, on=("interrupted",))),
        None,
        Stop(1, "interrupted by the user: never retried", "interrupted"),
    ),
    (
        "the scheduler's warning, requeue allowed",
        [rec(0, category="preempted", retryable=False, warned=True, exit_code=143)],
        REQUEUE,
        None,
        Requeue("requeued by SLURM after the time-limit warning"),
    ),
    (
        "the warning, then a clean exit, is still requeued (training has not finished)",
        [rec(0, ok=True, warned=True)],
        REQUEUE,
        None,
        Requeue("requeued by SLURM after the time-limit warning"),
    ),
    (
        "the warning without requeue: stop with the attempt's code",
        [rec(0, category="preempted", retryable=False, warned=True, exit_code=143)],
        RETRY,
        None,
        Stop(143, "stopped after the scheduler's warning signal", "preempted"),
    ),
    (
        "the warning without requeue and a clean exit",
        [rec(0, ok=True, warned=True)],
        RETRY,
        None,
        Stop(0, "finished", "finished"),
    ),
    (
        "a bug is not retried",
        [rec(0, category="user_code_error", retryable=False)],
        RETRY,
        None,
        Stop(
            1,
            "user_code_error is not transient: another attempt would fail the same way",
            "failed",
        ),
    ),
    (
        "an unknown failure names the key that would retry it",
        [rec(0, category="unknown", retryable=False, exit_code=7)],
        RETRY,
        None,
        Stop(
            7,
            "the cause is unknown, and unknown failures are not retried by default "
            "(add unknown to the profile's retry.on to retry them)",
            "failed",
        ),
    ),
    (
        "a transient failure within the budget",
        [rec(0)],
        RETRY,
        None,
        RetryAfter(5.0, "transient failure: retrying"),
    ),
    (
        "the same failure twice without progress",
        [rec(0), rec(1)],
        Policy(Retry(max_retries=10)),
        None,
        Stop(
            1,
            "the same collective_timeout failure twice in a row with no checkpoint progress "
            "in between: it repeats, so it is not retried again",
            "failed",
        ),
    ),
    (
        "the same failure twice with progress between",
        [rec(0, after=10), rec(1, before=10, after=20)],
        RETRY,
        None,
        RetryAfter(5.0, "transient failure: retrying"),
    ),
    (
        "the same failure after a success is not a repeat",
        [rec(0, ok=True), rec(1)],
        RETRY,
        None,
        RetryAfter(5.0, "transient failure: retrying"),
    ),
    (
        "different failures without progress use the budget",
        [rec(0), rec(1, signature=OTHER)],
        BUDGET_1,
        None,
        Stop(1, "retry budget spent: 1 retry without progress (max_retries=1)", "failed"),
    ),
    (
        "the budget counts in plural",
        [rec(0), rec(1, signature=OTHER), rec(2, signature=None)],
        Policy(Retry(max_retries=2)),
        None,
        Stop(1, "retry budget spent: 2 retries without progress (max_retries=2)", "failed"),
    ),
    (
        "five faults, each after a new checkpoint, do not use a budget of 1",
        [rec(i, before=10 * i or None, after=10 * (i + 1)) for i in range(5)],
        BUDGET_1,
        None,
        RetryAfter(5.0, "transient failure: retrying"),
    ),
    (
        "a zero budget never retries without progress",
        [rec(0)],
        Policy(Retry(max_retries=0)),
        None,
        Stop(1, "retry budget spent: 0 retries without progress (max_retries=0)", "failed"),
    ),
    (
        "a zero budget still retries after progress",
        [rec(0, after=5)],
        Policy(Retry(max_retries=0, backoff_min_s=0, jitter_s=0)),
        None,
        RetryAfter(0.0, "transient failure: retrying"),
    ),
]


@pytest.mark.parametrize(
    ("history", "policy", "stop_signal", "expected"),
    [row[1:] for row in RULES],
    ids=[row[0] for row in RULES],
)
def test_next_step(
    history: list[AttemptRecord], policy: Policy, stop_signal: int | None, expected: NextStep
) -> None:
    assert next_step(history, policy, stop_signal=stop_signal) == expected


def test_budget_counts_only_attempts_without_progress() -> None:
    history = [rec(0, after=10), rec(1, before=10, after=10, signature=OTHER)]
    assert attempts_charged(history) == 1  # the second attempt saved nothing new
    assert isinstance(next_step(history, BUDGET_1), RetryAfter)
    history.append(rec(2, before=10, after=10))
    step = next_step(history, BUDGET_1)
    assert isinstance(step, Stop) and step.reason.startswith("retry budget spent")


def test_checkpoint_going_backwards_is_not_progress() -> None:
    assert not rec(before=20, after=10).progressed
    assert not rec(before=20, after=20).progressed
    assert not rec(before=None, after=None).progressed
    assert rec(before=None, after=0).progressed


@pytest.mark.parametrize(
    ("attempts_here", "jitter_u", "expected"),
    [
        (1, 0.0, 5.0),
        (2, 0.0, 10.0),
        (3, 0.0, 12.0),
        (9, 0.0, 12.0),
        (1, 0.5, 7.5),
        (3, 0.99, 16.95),
    ],
)
def test_backoff_doubles_up_to_the_max_plus_jitter(
    attempts_here: int, jitter_u: float, expected: float
) -> None:
    retry = Retry(backoff_min_s=5, backoff_max_s=12, jitter_s=5)
    assert backoff_s(attempts_here, retry, jitter_u) == pytest.approx(expected)


def test_next_step_backs_off_by_the_attempts_this_launchx_made() -> None:
    policy = Policy(Retry(backoff_min_s=5, backoff_max_s=12, jitter_s=5))
    step = next_step([rec(0)], policy, attempts_here=2, jitter_u=0.2)
    assert step == RetryAfter(11.0, "transient failure: retrying")


# --------------------------------------------------------------------------- assess


def test_assess_a_clean_exit() -> None:
    record, diag = assess(Evidence(0, 3.0), attempt=2, policy=Retry(), step_after=30)
    assert diag is None and record.succeeded and (record.attempt, record.step_after) == (2, 30)


def test_assess_a_timeout_is_retried_from_a_checkpoint_only() -> None:
    """A collective timeout in the launcher's output: the log cannot say whether it repeats,
    so it is retried when a complete checkpoint lets the next attempt start further along."""
    evidence = Evidence(1, 3.0, launcher_output=(GLOO_TIMEOUT,))
    record, diag = assess(evidence, attempt=0, policy=Retry())
    assert diag is not None and diag.primary is not None
    assert (record.category, record.exit_code) == ("collective_timeout", 1)
    assert (record.retryable, record.on_progress) == (False, True)
    assert record.signature == diag.primary.signature()
    assert "retried only from a checkpoint, and the run has no --checkpoint-dir" in (
        next_step([record], RETRY).reason  # type: ignore[union-attr]
    )
    # with a directory, the reason names where no checkpoint was found
    looked = Policy(RETRY.retry, checkpoint_dir="/scratch/ck")
    assert "retried only from a checkpoint, and none is in /scratch/ck" in (
        next_step([record], looked).reason  # type: ignore[union-attr]
    )
    resumable, _ = assess(evidence, attempt=0, policy=Retry(), step_after=20)
    assert (resumable.retryable, resumable.on_progress) == (True, True)
    assert isinstance(next_step([resumable], RETRY), RetryAfter)
    never, _ = assess(
        evidence, attempt=0, policy=Retry(never=("collective_timeout",)), step_after=20
    )
    assert (never.retryable, never.on_progress) == (False, False)
    asked, _ = assess(evidence, attempt=0, policy=Retry(on=("collective_timeout",)))
    assert asked.retryable
    refused = Policy(Retry(never=("collective_timeout",)))
    assert next_step([never], refused).reason == (  # type: ignore[union-attr]
        "collective_timeout is not retried: the profile's retry.never names it"
    )


def test_assess_a_bug_keeps_the_trainings_exit_code() -> None:
    record, _diag = assess(
        Evidence(1, 3.0, launcher_output=(KEY_ERROR,)), attempt=0, policy=Retry()
    )
    assert (record.category, record.retryable) == ("user_code_error", False)


def _failure_table(root: int, rows: dict[int, int]) -> list[str]:
    """torchrun's failure table: ``root`` under "Root Cause", the other rows above it."""

    def row(rank: int) -> list[str]:
        return [
            f"[{rank}]:",
            "  time      : 2026-12-06_22:49:38",
            "  host      : localhost",
            f"  rank      : {rank} (local_rank: {rank})",
            f"  exitcode  : {rows[rank]} (pid: {100 + rank})",
            "  error_file: <N/A>",
        ]

    others = [line for r in sorted(rows) if r != root for line in row(r)]
    return [
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
        "=" * 60,
        "train.py FAILED",
        "-" * 60,
        "Failures:",
        *(others or ["  <NO_OTHER_FAILURES>"]),
        "-" * 60,
        "Root Cause (first observed failure):",
        *row(root),
        "=" * 60,
    ]


@pytest.mark.parametrize(("root", "other_exit"), [(0, 1), (0, -15), (1, -15)])
def test_ranks_raising_the_same_error_name_the_first_observed_failure(
    root: int, other_exit: int, tmp_path: Path
) -> None:
    """Every rank raised the same KeyError at once, the other rank's traceback first on the
    console: the verdict names the rank torchrun observed failing first, not the console's
    first traceback, and never a rank torchrun stopped while it raised as the one that
    "failed first (exit 1)"; a diagnose of the run's log directory names the same rank."""
    other = 1 - root
    tb = ["Traceback (most recent call last):", '  File "t.py", line 5', "KeyError: 'k'"]
    console = [f"[r{other}]: {x}" for x in tb] + [f"[r{root}]: {x}" for x in tb]
    table = _failure_table(root, {root: 1, other: other_exit})
    rank_logs = {0: "\n".join(tb) + "\n", 1: "\n".join(tb) + "\n"}
    evidence = Evidence(1, 3.0, launcher_output=(*console, *table), rank_logs=rank_logs)
    record, report = assess(evidence, attempt=0, policy=Retry())
    assert report is not None and report.primary is not None
    assert (record.category, report.primary.rank) == ("user_code_error", root)
    assert report.primary.exit_code == 1 and record.signature is not None
    assert record.signature[1] == root  # the rank the attempt_end event names
    # the same attempt as launchx run --log-dir keeps it
    attempt = tmp_path / "attempt-0"
    attempt.mkdir()
    for rank, text in rank_logs.items():
        (attempt / f"rank-{rank}.log").write_text(text)
    (attempt / "launcher.log").write_text("\n".join(table) + "\n")
    later = logsource.diagnose_paths([str(tmp_path)], io.BytesIO())
    assert later.primary is not None and later.primary.rank == root
    assert later.primary.exit_code == 1


def test_a_node_stopped_because_another_failed_keeps_its_own_ranks_exception() -> None:
    """The node that failed first may have failed because of this one: its rank segfaulted
    in gloo's teardown of the connection this node's rank broke by raising KeyError (seen
    in CI). A node stopped because another failed first reports what its own ranks raised,
    and only a consequence of the stop (a closed connection, SIGTERM) as "aborted"."""
    why = "node 0 failed: its launcher exited 1"
    raised = "Traceback (most recent call last):\n  File \"t.py\", line 3\nKeyError: 'k'\n"
    own, _ = assess(Evidence(1, 3.0, rank_logs={1: raised}, aborted=why), attempt=0, policy=Retry())
    assert (own.category, own.tier, own.retryable) == ("user_code_error", 1, False)
    closed = "RuntimeError: [gloo/transport/tcp/pair.cc:553] Connection closed by peer\n"
    for tail in (closed, "step 7 loss 0.3\n"):
        stopped, _ = assess(
            Evidence(1, 3.0, rank_logs={1: tail}, aborted=why), attempt=0, policy=Retry()
        )
        assert stopped.category == "aborted" and stopped.tier == 0, tail


def test_assess_a_stop_signal_is_an_interrupt_even_with_a_transient_log() -> None:
    evidence = Evidence(143, 3.0, stop_signal=signal.SIGTERM, launcher_output=(GLOO_TIMEOUT,))
    record, diag = assess(evidence, attempt=0, policy=Retry(on=("interrupted",)))
    assert diag is not None and record.interrupted and not record.retryable
    assert record.category == "interrupted"


def test_assess_the_warning_is_a_preemption_not_a_fault() -> None:
    record, diag = assess(Evidence(143, 3.0, warned=True), attempt=0, policy=Retry())
    assert diag is None and (record.category, record.warned, record.exit_code) == (
        "preempted",
        True,
        143,
    )
    clean, _ = assess(Evidence(0, 3.0, warned=True), attempt=0, policy=Retry())
    assert clean.category is None and clean.warned


def test_assess_the_policy_can_retry_a_category() -> None:
    evidence = Evidence(1, 3.0, launcher_output=(KEY_ERROR,))
    record, _ = assess(evidence, attempt=0, policy=Retry(on=("user_code_error",)))
    assert record.retryable


TORCHRUN_SUMMARY = """torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2026-11-24_05:02:31
  host      : localhost
  rank      : 0 (local_rank: 0)
  exitcode  : -15 (pid: 2998)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 2998
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-11-24_05:02:31
  host      : localhost
  rank      : 1 (local_rank: 1)
  exitcode  : {code} (pid: 2999)
  error_file: <N/A>
  traceback : Signal {sig} received by PID 2999
============================================================"""


def _summary(code: int) -> tuple[str, ...]:
    return tuple(TORCHRUN_SUMMARY.format(code=code, sig=-code).splitlines())


def test_assess_a_bare_sigkill_is_killed_and_retried_once_a_checkpoint_exists() -> None:
    evidence = Evidence(1, 3.0, launcher_output=_summary(-9), oom_kills=0)
    record, report = assess(evidence, attempt=0, policy=Retry(), step_after=10)
    assert report is not None and report.primary is not None
    assert (record.category, report.primary.rank, record.retryable) == ("killed", 1, True)
    without, _ = assess(evidence, attempt=0, policy=Retry(), step_after=None)
    assert not without.retryable  # nothing to resume from: another attempt gains nothing
    never, _ = assess(evidence, attempt=0, policy=Retry(never=("killed",)), step_after=10)
    assert not never.retryable


def test_assess_a_sigkill_is_an_oom_only_when_the_cgroup_counter_grew() -> None:
    evidence = Evidence(1, 3.0, launcher_output=_summary(-9), oom_kills=1)
    record, _ = assess(evidence, attempt=0, policy=Retry(), step_after=10)
    assert (record.category, record.retryable) == ("host_oom_killed", False)


def test_assess_an_outside_sigterm_names_its_rank_and_is_no_interrupt() -> None:
    record, report = assess(
        Evidence(1, 3.0, launcher_output=_summary(-15)), attempt=0, policy=Retry()
    )
    assert report is not None and report.primary is not None
    assert (record.category, report.primary.rank, record.interrupted) == ("killed", 1, False)


def test_assess_a_launcher_that_died_says_so() -> None:
    evidence = Evidence(137, 3.0, launcher_output=("[r0]: step 3",), launcher="torchrun")
    record, report = assess(evidence, attempt=0, policy=Retry())
    assert report is not None and report.primary is not None
    assert record.category == "launcher_died" and "SIGKILL" in report.primary.cause
    step = next_step([record], RETRY)
    assert isinstance(step, Stop) and "not retried by default" in step.reason
    assert "fail the same way" not in step.reason
    direct = Evidence(137, 3.0, launcher_output=("step 3",), launcher="direct")
    assert assess(direct, attempt=0, policy=Retry())[0].category != "launcher_died"


def test_assess_a_directly_launched_rank_ended_by_sigkill() -> None:
    """No torchrun summary: the script is the rank, its 128+9 is the rank's SIGKILL."""
    logs = {3: "step 7\n"}
    bare = Evidence(137, 3.0, rank_logs=logs, launcher="direct", oom_kills=0)
    record, report = assess(bare, attempt=0, policy=Retry(), step_after=10)
    assert report is not None and report.primary is not None
    assert (record.category, report.primary.rank) == ("killed", 3)
    oom = Evidence(137, 3.0, rank_logs=logs, launcher="direct", oom_kills=1)
    assert assess(oom, attempt=0, policy=Retry())[0].category == "host_oom_killed"
    failed = Evidence(1, 3.0, rank_logs=logs, launcher="direct")
    category = assess(failed, attempt=0, policy=Retry())[0].category
    assert category not in ("killed", "host_oom_killed")


def test_assess_a_hang_the_watch_found_is_transient() -> None:
    evidence = Evidence(143, 30.0, hang=HangFound((5,), "rank 5 stuck in data.py:88"))
    record, report = assess(evidence, attempt=0, policy=Retry())
    assert report is not None and report.primary is not None
    assert (record.category, record.retryable, report.primary.rank) == ("hang", True, 5)


# --------------------------------------------------------------------------- rewritten


def _ck(step: int) -> Checkpoint:
    return Checkpoint(f"/ck/checkpoint-{step}", step, "hf")


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ({5: 1.0, 10: 2.0}, {5: 3.0, 10: 2.0}, 5),  # step 5 written again
        ({10: 2.0}, {5: 3.0, 10: 2.0}, 5),  # step 5 new (pruned before, written again)
        ({5: 1.0, 10: 2.0}, {5: 1.0, 10: 4.0}, 10),  # the offered step itself again
        ({5: 1.0, 10: 2.0}, {5: 1.0, 10: 2.0, 15: 3.0}, None),  # only later steps: resumed
        ({5: 1.0, 10: 2.0}, {5: 1.0, 10: 2.0}, None),  # nothing written
    ],
)
def test_a_checkpoint_at_or_below_the_offer_written_again(
    before: dict[int, float], after: dict[int, float], expected: int | None
) -> None:
    def listing(times: dict[int, float]) -> dict[str, tuple[Checkpoint, float]]:
        return {_ck(s).path: (_ck(s), t) for s, t in times.items()}

    found = rewritten(listing(before), listing(after), _ck(10))
    assert (found.step if found else None) == expected
    assert rewritten(listing(before), listing(after), None) is None


def test_a_direct_script_exiting_above_the_signal_range_is_its_own_exit() -> None:
    """255 is the script's own exit code, not 128+127: no signal is made of it."""
    evidence = Evidence(255, 3.0, rank_logs={0: "step 7\n"}, launcher="direct")
    record, report = assess(evidence, attempt=0, policy=Retry())
    assert report is not None and report.primary is not None
    assert report.primary.signal is None and record.category not in ("killed", "segfault")


def test_assess_agrees_with_diagnose_on_a_timeout_at_an_evaluation_pass() -> None:
    """The same logs that ``launchx diagnose`` calls a timeout at an evaluation pass (LX564,
    final) are not retried by ``launchx run`` either, checkpoint or not."""
    fixture = (
        Path(__file__).parent
        / "fixtures/logs/dev/nccl_watchdog_timeout__litgpt_1202_validating.log"
    )
    body = "".join(fixture.read_text().splitlines(keepends=True)[3:])
    evidence = Evidence(1, 30.0, rank_logs={0: body})
    record, report = assess(evidence, attempt=0, policy=Retry(), step_after=10)
    assert report is not None and report.primary is not None
    assert (record.category, report.primary.code) == ("nccl_watchdog_timeout", "LX564")
    assert not (record.retryable or record.on_progress)
    training = Evidence(
        1, 30.0, rank_logs={0: body.replace("Validating ...", "Epoch 1 | iter 101")}
    )
    resumable, _ = assess(training, attempt=0, policy=Retry(), step_after=10)
    assert (resumable.category, resumable.retryable) == ("nccl_watchdog_timeout", True)


def test_an_interrupt_is_named_by_the_signal_the_user_sent_not_launchxs_kill() -> None:
    """Ctrl-C while torchrun waited in its rendezvous: torchrun ignored SIGINT and launchx
    SIGKILLed it (137). The failure line said "interrupted by SIGKILL"."""
    evidence = Evidence(137, 20.0, stop_signal=signal.SIGINT, launcher="torchrun")
    record, diag = assess(evidence, attempt=0, policy=Retry())
    assert diag is not None and diag.primary is not None
    assert record.category == "interrupted" and record.interrupted
    assert diag.primary.signal == signal.SIGINT
    # the code the run ends with, which the other nodes adopt with the outcome
    assert record.exit_code == 130


FIRST_COLLECTIVE = (
    "[rank1]:[E1205 10:00:00.000000000 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=1, "
    "NumelOut=1, Timeout(ms)=1800000) ran for 1800013 milliseconds before timing out."
)


def test_a_first_collectives_timeout_is_retried_once_the_attempt_saved_a_checkpoint() -> None:
    """LX550 reads "never got past its first steps" from the sequence number, which starts
    again at each attempt: a checkpoint this attempt wrote disproves it."""
    evidence = Evidence(1, 3.0, launcher_output=(FIRST_COLLECTIVE,))
    first, report = assess(evidence, attempt=0, policy=Retry())
    assert report is not None and report.primary is not None
    assert report.primary.code == "LX550" and (first.retryable, first.on_progress) == (False, False)
    # a checkpoint from before the attempt (it resumed, then failed at once): still not
    resumed, _ = assess(evidence, attempt=1, policy=Retry(), step_before=20, step_after=20)
    assert resumed.retryable is False
    saved, _ = assess(evidence, attempt=0, policy=Retry(), step_before=None, step_after=30)
    assert (saved.retryable, saved.on_progress) == (True, True)
    never = Retry(never=("nccl_watchdog_timeout",))
    refused, _ = assess(evidence, attempt=0, policy=never, step_after=30)
    assert refused.retryable is False


def test_node_ks_report_names_its_own_ranks_not_its_local_ranks() -> None:
    """Node 1's torchrun says "failed (exitcode: -9) local_rank: 0": that is rank 2, not
    rank 0 (node 0's), which its end-of-run report listed as collateral with rank 2's
    exit code."""
    run = Path(__file__).parent / "fixtures" / "runs" / "two_nodes_sigkill" / "node-1"
    # (launchx's torchrun writes each rank's output to its own file, not tee'd beside its own)
    lines = (run / "launcher.log").read_text().splitlines()
    launcher = tuple(ln for ln in lines if not ln.startswith("[default"))
    ranks = {
        2 + local: (run / "none_3mak_v4b" / "attempt_0" / str(local) / "stderr.log").read_text()
        for local in (0, 1)
    }
    evidence = Evidence(1, 3.0, launcher_output=launcher, rank_logs=ranks, node=1, nproc_per_node=2)
    _record, report = assess(evidence, attempt=0, policy=Retry())
    assert report is not None and report.primary is not None
    assert (report.primary.category, report.primary.rank) == ("killed", 2)
    assert {r.rank for r in report.ranks} == {2, 3}


@pytest.mark.parametrize("layout", ["nanogpt", "lightning-last", "lightning-metric"])
def test_a_checkpoint_whose_step_is_not_in_its_name_is_no_evidence_of_a_restart(
    layout: str,
) -> None:
    """nanoGPT's ckpt.pt, Lightning's last.ckpt and metric-named files are rewritten at
    every save, whatever step the run has reached: their step is a lower bound, so their
    being written again does not mean the attempt trained from the start."""
    offered = Checkpoint("/ck/last.ckpt", 0, layout)  # type: ignore[arg-type]
    again = {offered.path: (offered, 9.0)}
    assert rewritten({offered.path: (offered, 1.0)}, again, offered) is None
