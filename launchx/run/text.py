"""What the run loop says on the console, as pure functions of its data."""

from __future__ import annotations

import signal
from collections.abc import Sequence
from contextlib import suppress

from launchx.checkpoints import Checkpoint, resume_hint
from launchx.diagnosis import Report
from launchx.failure_text import render_failure
from launchx.run.decide import AttemptRecord
from launchx.run.events import outcome_of


def offering(
    offered: Checkpoint | None, resume_arg: str | None, passed_over: Sequence[str] = ()
) -> str:
    """What launchx does with a checkpoint: it offers it; only the script can resume. Where
    the script gets no --resume-arg, the way its framework takes it is said too, and the
    later saves beside it that are not complete (why the newest is not the one offered)."""
    if offered is None:
        return ""
    how = "LAUNCHX_RESUME_FROM"
    if resume_arg:
        how += f" and {resume_arg.replace('{path}', '<it>')}"
    line = f"launchx: offering {offered.path} (step {offered.step}) to the script ({how})\n"
    if passed_over:
        shown = ", ".join(passed_over[:3]) + (
            f" and {len(passed_over) - 3} more" if len(passed_over) > 3 else ""
        )
        line += (
            f"launchx: passed over {shown}: a later save, not complete (cut short by the "
            "failure); the script may have to remove it to save that step again\n"
        )
    hint = resume_hint(offered)
    if hint is not None and not resume_arg:
        line += f"launchx: {hint.text()}\n"
    return line


def restarted(
    offered: Checkpoint | None,
    started_at: tuple[int, str] | None,
    rewritten: Checkpoint | None = None,
) -> str:
    """A warning when the attempt trained from before the checkpoint it was offered: the
    script does not read LAUNCHX_RESUME_FROM (nor a --resume-arg): it started over. The
    evidence: the first step its output showed, or else a checkpoint at or below the
    offered step that it wrote again (a fast bar may show its first step past the offer)."""
    if offered is None or not offered.step:
        return ""
    if started_at is not None and started_at[0] < offered.step:
        step, line = started_at
        shows = f"its output shows step {step} ({line.strip()[:100]!r})"
    elif rewritten is not None:
        shows = f"it wrote {rewritten.path} (step {rewritten.step}) again"
    else:
        return ""
    return (
        f"launchx: warning: the attempt did not resume from {offered.path} (step "
        f"{offered.step}): {shows}, so it trained from the start; make the script read "
        "LAUNCHX_RESUME_FROM, or pass --resume-arg\n"
    )


def failure(report: Report, retryable: bool, from_checkpoint: bool = False) -> str:
    """After a failed attempt: the cause in one sentence, the fix, the evidence with rank
    and file:line, and the ranks as root and collateral (``failure_text``), under one
    ``launchx: failure:`` line that says whether launchx retries it."""
    primary = report.primary
    if primary is None:
        return ""
    where = f" on rank {primary.rank}" if primary.rank is not None else ""
    if primary.signal is not None:
        with suppress(ValueError):
            where += f" by {signal.Signals(primary.signal).name}"
    if primary.category == "aborted":  # whether it is retried is the failed node's cause
        verdict = "another node failed first"
    else:
        verdict = "not retried"
        if retryable:
            # (whether it is retried is said below it: the repeat rule may stop the run)
            verdict = "retryable from a checkpoint" if from_checkpoint else "transient"
    head = f"launchx: failure: {primary.category}{where} ({verdict})"
    body = render_failure(report).splitlines()[1:]  # its own headline says the same
    return "\n".join([head, *body]) + "\n"


def stopped_after_warning() -> str:
    return (
        "launchx: stopped after the scheduler's warning signal; the ranks were asked to "
        "checkpoint\n"
    )


def retrying(last: AttemptRecord, after_s: float, budget: int) -> str:
    why = ": retrying from the checkpoint" if last.on_progress else " is transient"
    return (
        f"launchx: {last.category}{why}; attempt {last.attempt + 1} in {after_s:.1f}s "
        f"(retry budget: {budget})\n"
    )


def requeued(job_id: str) -> str:
    return f"launchx: requeued SLURM job {job_id}; it resumes from the newest checkpoint\n"


def requeue_failed(why: str) -> str:
    return f"launchx: could not requeue the SLURM job: {why}\n"


def _outcome(rec: AttemptRecord) -> str:
    if rec.interrupted:
        return "interrupted"
    return "ok" if rec.exit_code == 0 else f"exit {rec.exit_code}"


def summary(records: Sequence[AttemptRecord], reason: str, elapsed_s: float = 0.0) -> str:
    """What ends the run: one line when it went through in one clean attempt; otherwise
    one row per attempt, then why the run ended (how long, when it finished)."""
    ok = bool(records) and records[-1].succeeded and reason == "finished"
    # attempts number on across a SLURM requeue: the run's count, not this launchx's
    total = max(len(records), records[-1].attempt + 1) if records else 0
    earlier = total - len(records)
    attempts = f"{total} attempt{'s' if total != 1 else ''}" + (
        f", {earlier} before a requeue" if earlier else ""
    )
    last = f"launchx: finished in {elapsed_s:.1f} s ({attempts})" if ok else f"launchx: {reason}"
    if ok and len(records) == 1:
        return last + "\n"
    lines = [
        "",
        "launchx: summary",
        f"  {'attempt':<8}{'duration':>10}  {'outcome':<12}{'category':<24}offered",
    ]
    for rec in records:
        lines.append(
            f"  {rec.attempt:<8}{rec.duration_s:>9.1f}s  {_outcome(rec):<12}"
            f"{rec.category or '-':<24}{rec.resumed_from or '-'}"
        )
    lines.append(last)
    return "\n".join(lines) + "\n"


def attempt_fields(rec: AttemptRecord, report: Report | None) -> dict[str, object]:
    """The ``attempt_end`` event: what ``launchx status`` and ``diagnose`` read back."""
    primary = report.primary if report is not None else None
    return {
        "attempt": rec.attempt,
        "exit_code": rec.exit_code,
        "outcome": outcome_of(rec.exit_code, rec.category, rec.interrupted),
        "category": rec.category,
        "retryable": rec.retryable,
        # the agreed outcome's rank (its signature's): on several nodes the rank that
        # failed is often another node's, which this node's own report does not name
        "rank": rec.signature[1]
        if rec.signature is not None
        else (primary.rank if primary is not None else None),
        "cause": rec.cause or None,
        "duration_s": round(rec.duration_s, 1),
        "offered": rec.resumed_from,
    }
