"""The run loop's decisions, as pure functions: what an attempt was, and what comes next.

``assess`` turns what an attempt left behind (exit codes, log tails, the scheduler's
warning, checkpoint progress) into an ``AttemptRecord``; ``next_step`` reads the history of
records and the policy and says what to do: retry after N seconds, ask SLURM to requeue,
or stop with an exit code and a reason. No I/O, no clock, no environment: the jitter of the
backoff is an argument, so every rule is one row of a table-driven test.

The rules, in the order they apply:

* launchx itself was told to stop (SIGINT/SIGTERM/SIGHUP): stop, 128 + the signal. A
  user's interrupt is never retried, whatever the policy says.
* the scheduler's warning came during the attempt: requeue when the policy allows (the
  ranks were told to checkpoint; the next allocation resumes), else stop with the
  attempt's own exit code. A script that checkpoints and exits 0 has not finished.
* the attempt succeeded: stop, 0.
* the failure is not transient (its category, changed by the profile's ``retry.on`` and
  ``retry.never``): stop with the training's own exit code. A failure the log cannot decide
  (a collective or rendezvous timeout, a closed socket, a bare SIGKILL) is transient only
  when a complete checkpoint exists after the attempt: the retry resumes from it.
* the same failure twice in a row with no checkpoint progress in between: not transient,
  whatever its category says.
* an attempt that advanced the newest checkpoint does not use up the budget (a week-long
  run may survive many separate faults); one that made no progress does. Budget spent:
  stop.
* otherwise retry after ``backoff_min_s`` doubling per attempt up to ``backoff_max_s``,
  plus up to ``jitter_s`` so that nodes or jobs failing together do not retry in lockstep.
"""

from __future__ import annotations

import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from launchx import failure_rules as fr
from launchx import failures
from launchx import rulematch as rm
from launchx.checkpoints import STEPLESS, Checkpoint
from launchx.profile_model import Retry
from launchx.run.events import Ended


@dataclass(frozen=True)
class AttemptRecord:
    attempt: int
    exit_code: int
    duration_s: float
    category: str | None  # None when it succeeded
    retryable: bool
    signature: tuple[str, int | None, str] | None
    cause: str = ""
    resumed_from: str | None = None
    step_before: int | None = None  # newest complete checkpoint step before the attempt
    step_after: int | None = None  # ... and after it
    interrupted: bool = False
    log_dir: str | None = None
    tier: int = 0  # the diagnosis's (failures.Diagnosis.tier): how well it explains a failure
    warned: bool = False  # the scheduler's warning signal came during the attempt
    # Its category is retried only with a checkpoint (failure_rules.RETRIED_ON_PROGRESS).
    on_progress: bool = False

    @property
    def succeeded(self) -> bool:
        return self.exit_code == 0 and not self.interrupted and self.category is None

    @property
    def progressed(self) -> bool:
        return self.step_after is not None and (
            self.step_before is None or self.step_after > self.step_before
        )


@dataclass(frozen=True)
class RetryAfter:
    after_s: float
    reason: str


@dataclass(frozen=True)
class Requeue:
    reason: str


@dataclass(frozen=True)
class Stop:
    exit_code: int
    reason: str
    ended: Ended  # what readers of the record act on (status, diagnose): the reason is prose


NextStep = RetryAfter | Requeue | Stop


@dataclass(frozen=True)
class Policy:
    retry: Retry
    requeue_on_warning: bool = False  # SLURM job whose profile asks, owned by this launchx
    checkpoint_dir: str | None = None  # where checkpoints were looked for (named when none)


@dataclass(frozen=True)
class Evidence:
    """What one attempt left behind, as the executor collected it."""

    exit_code: int  # the launcher's: torchrun's, srun's or the script's own
    duration_s: float
    stop_signal: int | None = None  # launchx itself received SIGINT/SIGTERM/SIGHUP
    warned: bool = False  # the scheduler's warning (USR1/USR2) came during the attempt
    launcher_output: tuple[str, ...] = ()  # the launcher's last lines
    rank_logs: Mapping[int, str] | None = None  # global rank -> the tail of its output
    error_files: Mapping[int, str] | None = None  # global rank -> torchrun's error file
    launcher: str = "torchrun"  # the plan's launcher: torchrun, srun or direct
    # Processes the kernel's OOM killer ended during the attempt: launchx's memory cgroup's
    # oom_kill counter after minus before, or the ranks' pids in the kernel log's OOM-kill
    # lines; None when neither can be read.
    oom_kills: int | None = None
    hang: HangFound | None = None  # launchx's watch found a hang and stopped the ranks
    # The first training step the attempt's output showed, and that line (progress.py).
    started_at: tuple[int, str] | None = None
    # Another node failed first and launchx stopped this node's ranks (why, in words).
    aborted: str | None = None
    # This node's rank and its processes, with several nodes: torchrun's own lines name a
    # local rank ("failed (exitcode: -9) local_rank: 1"), which is node * nproc + 1.
    node: int | None = None
    nproc_per_node: int | None = None
    # The ranks torchrun was asked to start (nodes times processes per node): a script that
    # asks init_process_group for more waits for ranks that never come (``runview``).
    world_size: int | None = None

    @property
    def interrupted(self) -> bool:
        return self.stop_signal is not None


@dataclass(frozen=True)
class HangFound:
    """What the watch saw when it stopped an attempt: the stuck ranks and its report."""

    ranks: tuple[int, ...]
    text: str  # the report a person reads (``watch.report``)


def attempts_charged(history: Sequence[AttemptRecord]) -> int:
    """Failed attempts that count against the budget: those that made no progress."""
    return sum(1 for rec in history if not rec.succeeded and not rec.progressed)


def assess(
    evidence: Evidence,
    *,
    attempt: int,
    policy: Retry,
    resumed_from: str | None = None,
    step_before: int | None = None,
    step_after: int | None = None,
    log_dir: str | None = None,
) -> tuple[AttemptRecord, failures.Report | None]:
    """The record of one attempt, and the diagnosis of its failure (None when it did not
    fail, or when the scheduler's warning explains the stop)."""
    common = {
        "attempt": attempt,
        "duration_s": evidence.duration_s,
        "resumed_from": resumed_from,
        "step_before": step_before,
        "step_after": step_after,
        "log_dir": log_dir,
        "warned": evidence.warned and not evidence.interrupted,
    }
    if evidence.warned and not evidence.interrupted:
        # The scheduler's warning, not a fault: the ranks were told to checkpoint and stop.
        category = "preempted" if evidence.exit_code != 0 else None
        return AttemptRecord(
            exit_code=evidence.exit_code,
            category=category,
            retryable=False,
            signature=None,
            **common,  # type: ignore[arg-type]
        ), None
    if evidence.exit_code == 0 and not evidence.interrupted and evidence.hang is None:
        return AttemptRecord(
            exit_code=0,
            category=None,
            retryable=False,
            signature=None,
            **common,  # type: ignore[arg-type]
        ), None
    report = _diagnose(evidence, policy)
    diag = report.primary
    assert diag is not None
    # A timeout, a closed socket, a bare SIGKILL: the log cannot tell a one-off fault from a
    # repeating cause. Worth another attempt once a checkpoint lets it resume rather than
    # start over (the repeat rule stops a loop that makes no progress).
    on_progress = diag.retry_on_progress and not evidence.interrupted
    if (
        diag.code in fr.DISPROVED_BY_PROGRESS
        and diag.category not in policy.never
        and not evidence.interrupted
    ):
        # (its reading, no step ever done, is wrong once this attempt saved a checkpoint)
        on_progress = step_after is not None and step_after != step_before
    retryable = not evidence.interrupted and (
        diag.retryable or (on_progress and step_after is not None)
    )
    # an interrupt ends the run with the shell's code for the signal, on every node: the
    # record carries it to the nodes that adopt this node's outcome (they got no signal)
    code = training_exit_code(evidence.exit_code, diag)
    record = AttemptRecord(
        exit_code=128 + evidence.stop_signal if evidence.stop_signal is not None else code,
        category=diag.category,
        retryable=retryable,
        on_progress=on_progress,
        signature=diag.signature(),
        cause=diag.cause,
        tier=diag.tier,
        interrupted=evidence.interrupted,
        **common,  # type: ignore[arg-type]
    )
    return record, report


def _diagnose(evidence: Evidence, policy: Retry) -> failures.Report:
    """The diagnosis from the attempt's own evidence: a hang launchx found, a launcher that
    died before it could say how its ranks ended, else what the ranks' logs say."""
    if evidence.hang is not None and not evidence.interrupted:
        stuck = evidence.hang.ranks
        diag = failures.exit_diagnosis("hang", policy, rank=min(stuck, default=None))
        who = f"rank {stuck[0]}" if len(stuck) == 1 else f"ranks {', '.join(map(str, stuck))}"
        diag = replace(diag, cause=f"{who} stopped making progress: {diag.cause}")
        return failures.Report(primary=diag, findings=(diag,))
    if evidence.aborted is not None and not evidence.interrupted:
        # The node that failed first may have failed because of this one: its rank segfaults
        # in gloo's teardown of the connection this node's rank broke by raising. What this
        # node's own ranks raised is then the cause, and the nodes' agreement prefers it.
        own = _from_logs(evidence, policy)
        if own.primary is not None and own.primary.category in fr.RAISED_BY_THE_SCRIPT:
            return own
        diag = failures.exit_diagnosis("aborted", policy, exit_code=evidence.exit_code, priority=20)
        diag = replace(diag, cause=f"{evidence.aborted}; {diag.cause}")
        return failures.Report(primary=diag, findings=(diag,))
    return _from_logs(evidence, policy)


def _from_logs(evidence: Evidence, policy: Retry) -> failures.Report:
    """What the ranks' logs and the launcher's exit say of the attempt."""
    logs = dict(evidence.rank_logs or {})
    launcher_output = "\n".join(evidence.launcher_output)
    logs.setdefault(-1, launcher_output)
    rank_exit = failures.torchrun_exit_codes(launcher_output)
    ended_by = rm.signal_of(evidence.exit_code)
    if not rank_exit and evidence.launcher == "direct" and ended_by is not None:
        # The script is the rank: the signal that ended it ended the rank (an outside
        # SIGKILL is `killed`, or an OOM with evidence), as torchrun's summary would say.
        ranks = sorted(evidence.rank_logs or {})
        rank_exit = {ranks[0] if len(ranks) == 1 else 0: -ended_by}
    if _launcher_died(evidence, rank_exit):
        sig = evidence.exit_code - 128
        diag = failures.exit_diagnosis("launcher_died", policy, exit_code=evidence.exit_code)
        named = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        diag = replace(diag, cause=diag.cause.replace("killed from outside", f"killed by {named}"))
        return failures.Report(primary=diag, findings=(diag,))
    oom = None if evidence.oom_kills is None else evidence.oom_kills > 0
    report = failures.attempt_report(
        rank_exit,
        evidence.error_files or {},
        logs,
        launcher_exit=evidence.exit_code,
        interrupted=evidence.interrupted,
        policy=policy,
        oom_evidence=oom,
        node=(evidence.node, evidence.nproc_per_node),
        world_size=evidence.world_size,
    )
    primary = report.primary
    if evidence.stop_signal is not None and primary is not None and primary.rank is None:
        # the signal that ended the launcher is launchx's own escalation (a SIGKILL after
        # the grace); the run was stopped by the one the user sent
        report = replace(report, primary=replace(primary, signal=evidence.stop_signal))
    return report


def _launcher_died(evidence: Evidence, rank_exit: Mapping[int, int]) -> bool:
    """torchrun ended by a signal it did not get from launchx, without its summary of the
    ranks: it did not end them, something ended it."""
    return (
        evidence.launcher == "torchrun"
        and not evidence.interrupted
        and 128 < evidence.exit_code <= 128 + 64
        and not rank_exit
    )


def training_exit_code(launcher_exit: int, diag: failures.Diagnosis) -> int:
    """The training's own exit code when a rank reported one, else the launcher's."""
    code = diag.exit_code
    if code is not None and code != 0:
        return 128 - code if code < 0 else code
    return launcher_exit


def backoff_s(attempts_here: int, retry: Retry, jitter_u: float) -> float:
    """``backoff_min_s`` doubling with each attempt this launchx made, up to
    ``backoff_max_s``, plus ``jitter_u`` (in [0, 1)) of ``jitter_s``."""
    base = retry.backoff_min_s * 2.0 ** max(0, attempts_here - 1)
    return max(0.0, min(base, retry.backoff_max_s)) + jitter_u * retry.jitter_s


# Failures whose cause launchx cannot see well enough to call them deterministic: they are
# not retried by default, and the reason says so, not that another attempt would fail. (A
# bare SIGKILL is one of the failures retried from a checkpoint: ``on_progress``.)
_UNDECIDED = frozenset({"unknown", "launcher_died"})


def _not_transient(
    last: AttemptRecord, never: Sequence[str] = (), checkpoint_dir: str | None = None
) -> str:
    if last.category in never:
        return f"{last.category} is not retried: the profile's retry.never names it"
    if last.category == "unknown":
        return (
            "the cause is unknown, and unknown failures are not retried by default "
            "(add unknown to the profile's retry.on to retry them)"
        )
    if last.on_progress:
        where = (
            f"none is in {checkpoint_dir}"
            if checkpoint_dir
            else "the run has no --checkpoint-dir to find one in"
        )
        return (
            f"{last.category} is retried only from a checkpoint, and {where}: from the "
            "log alone it may as well be a repeating cause as a one-off fault (save "
            "checkpoints there, the script's LAUNCHX_CHECKPOINT_DIR, or add "
            f"{last.category} to the profile's retry.on to retry it)"
        )
    if last.category in _UNDECIDED:
        return (
            f"{last.category} is not retried by default (add {last.category} to the "
            "profile's retry.on to retry it)"
        )
    return f"{last.category} is not transient: another attempt would fail the same way"


def next_step(
    history: Sequence[AttemptRecord],
    policy: Policy,
    *,
    stop_signal: int | None = None,
    attempts_here: int = 1,
    jitter_u: float = 0.0,
) -> NextStep:
    """What to do after the last attempt of ``history`` (the rules in the module doc)."""
    last = history[-1]
    if stop_signal is not None:
        return Stop(128 + stop_signal, "interrupted", "interrupted")
    if last.warned:
        if policy.requeue_on_warning:
            return Requeue("requeued by SLURM after the time-limit warning")
        if last.exit_code != 0:
            return Stop(last.exit_code, "stopped after the scheduler's warning signal", "preempted")
    if last.succeeded or (last.warned and last.exit_code == 0):
        return Stop(0, "finished", "finished")
    if last.interrupted or last.category == "interrupted":
        return Stop(last.exit_code, "interrupted by the user: never retried", "interrupted")
    if not last.retryable:
        return Stop(
            last.exit_code,
            _not_transient(last, policy.retry.never, policy.checkpoint_dir),
            "failed",
        )
    if len(history) >= 2:
        prev = history[-2]
        if (
            not prev.succeeded
            and prev.signature is not None
            and prev.signature == last.signature
            and not last.progressed
        ):
            return Stop(
                last.exit_code,
                f"the same {last.category} failure twice in a row with no checkpoint "
                "progress in between: it repeats, so it is not retried again",
                "failed",
            )
    charged = attempts_charged(history)
    if charged > policy.retry.max_retries:
        return Stop(
            last.exit_code,
            f"retry budget spent: {charged - 1} retr{'y' if charged == 2 else 'ies'} "
            f"without progress (max_retries={policy.retry.max_retries})",
            "failed",
        )
    return RetryAfter(
        backoff_s(attempts_here, policy.retry, jitter_u), "transient failure: retrying"
    )


def rewritten(
    before: Mapping[str, tuple[Checkpoint, float]],
    after: Mapping[str, tuple[Checkpoint, float]],
    offered: Checkpoint | None,
) -> Checkpoint | None:
    """A checkpoint at or below the offered step that the attempt wrote (new, or written
    again): the attempt trained through that step again, so it did not resume from the
    offer. The lowest such step; None when there is none or nothing was offered. Evidence
    that does not depend on the script's output showing its steps in time."""
    if offered is None:
        return None
    again = [
        ckpt
        for path, (ckpt, when) in after.items()
        if ckpt.step <= offered.step
        and ckpt.layout not in STEPLESS  # (its step is a lower bound: no evidence)
        and (path not in before or when > before[path][1])
    ]
    return min(again, key=lambda c: c.step) if again else None
