"""One ``launchx run``: plan each attempt, execute it, diagnose, retry, resume, summarise.

The decisions live in pure modules (``plan``, ``retry``, ``failures``, ``checkpoints``);
this module sequences them around ``execute.run_process`` with tenacity driving the loop.
Sleep is injectable so tests of the loop never wait for real time.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import IO

from tenacity import RetryCallState, Retrying, retry_if_result, wait_exponential_jitter

from launchx import checkpoints, failures, render
from launchx.errors import LaunchRefused
from launchx.execute import Supervisor, child_environment, run_process, supervised
from launchx.findings import has_errors
from launchx.pipeline import Request, plan_attempt, resolve_request, run_id_for
from launchx.plan import LaunchPlan, Target
from launchx.resolve import Resolution
from launchx.retry import AttemptRecord, next_step

_LOG_TAIL_BYTES = 64 * 1024


def first_plan(
    res: Resolution, target: Target, *, run_id: str | None, log_dir: str | None
) -> LaunchPlan:
    """The plan of attempt 0, exactly as ``run`` would build it (for --dry-run)."""
    rid = run_id_for(res, run_id)
    resume = _latest(res)
    return plan_attempt(
        res,
        _with_resume(res, target, resume),
        run_id=rid,
        attempt=_attempt_base(res),
        log_dir=log_dir,
        resume_from=resume,
    )


def _attempt_base(res: Resolution) -> int:
    """Attempts are counted across SLURM requeues (SLURM_RESTART_COUNT is unset at first)."""
    slurm = res.facts.slurm
    return slurm.restart_count if slurm is not None else 0


def _checkpoint_dir(res: Resolution) -> str | None:
    ckpt = res.profile.resume.checkpoint_dir
    return str(Path(ckpt).expanduser().resolve()) if ckpt else None


def _latest(res: Resolution) -> str | None:
    directory = _checkpoint_dir(res)
    if directory is None:
        return None
    found = checkpoints.latest_complete(directory)
    return found.path if found else None


def _step_of(res: Resolution) -> int | None:
    directory = _checkpoint_dir(res)
    if directory is None:
        return None
    found = checkpoints.latest_complete(directory)
    return found.step if found else None


def _with_resume(res: Resolution, target: Target, resume: str | None) -> Target:
    template = res.profile.resume.resume_arg
    if not template or not resume:
        return target
    extra = tuple(tok.replace("{path}", resume) for tok in shlex.split(template))
    return replace(target, args=(*target.args, *extra))


def _read_tail(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - _LOG_TAIL_BYTES))
            return fh.read().decode(errors="replace")
    except OSError:
        return ""


def collect_rank_evidence(plan: LaunchPlan) -> tuple[dict[int, str], dict[int, str]]:
    """Per-rank log tails and torchrun error files from this attempt's log directory."""
    logs: dict[int, str] = {}
    errors: dict[int, str] = {}
    if not plan.log_dir or plan.launcher != "torchrun":
        return logs, errors
    root = Path(plan.log_dir)
    for rank_dir in sorted(root.glob("*/attempt_*/*")):
        if not rank_dir.name.isdigit():
            continue
        rank = plan.node_rank * plan.nproc_per_node + int(rank_dir.name)
        text = _read_tail(rank_dir / "stderr.log") + _read_tail(rank_dir / "stdout.log")
        if text:
            logs[rank] = logs.get(rank, "") + text
        error_file = rank_dir / "error.json"
        if error_file.is_file():
            errors[rank] = _read_tail(error_file)
    return logs, errors


def _print_summary(records: list[AttemptRecord], reason: str, out: IO[str]) -> None:
    if len(records) == 1 and records[0].succeeded:
        return
    out.write("\nlaunchx: summary\n")
    out.write(f"  {'attempt':<8}{'duration':>10}  {'outcome':<12}{'category':<24}resumed from\n")
    for rec in records:
        outcome = (
            "ok"
            if rec.succeeded
            else ("interrupted" if rec.interrupted else f"exit {rec.exit_code}")
        )
        out.write(
            f"  {rec.attempt:<8}{rec.duration_s:>9.1f}s  {outcome:<12}"
            f"{rec.category or '-':<24}{rec.resumed_from or '-'}\n"
        )
    out.write(f"launchx: {reason}\n")
    out.flush()


def run(
    request: Request,
    target: Target,
    *,
    run_id: str | None = None,
    log_dir: str | None = None,
    sleep: Callable[[float], None] | None = None,
    out: IO[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """Run to completion; return launchx's exit code (the contract in DESIGN.md)."""
    sink = out or sys.stdout
    res = resolve_request(request)
    rid = run_id_for(res, run_id)
    base_env = dict(os.environ if environ is None else environ)
    policy = res.profile.retry
    base_attempt = _attempt_base(res)
    records: list[AttemptRecord] = []
    sup = Supervisor()

    def wake_or_timeout(seconds: float) -> None:
        """Backoff that a SIGTERM or Ctrl-C ends at once (the stop check runs next)."""
        sup.wake.wait(seconds)

    snooze = sleep or wake_or_timeout

    def one_attempt() -> AttemptRecord:
        attempt = base_attempt + len(records)
        resume = _latest(res)
        step_before = _step_of(res)
        plan = plan_attempt(
            res,
            _with_resume(res, target, resume),
            run_id=rid,
            attempt=attempt,
            log_dir=log_dir,
            resume_from=resume,
        )
        if has_errors(plan.findings):
            raise LaunchRefused(*_refusal(plan))
        if sup.stopping:
            rec = AttemptRecord(
                attempt,
                128 + (sup.stop_signal or 15),
                0.0,
                "interrupted",
                False,
                None,
                interrupted=True,
            )
            records.append(rec)
            return rec
        sink.write(render.run_header(plan))
        if resume:
            sink.write(f"launchx: resuming from {resume}\n")
        sink.flush()
        if plan.log_dir:
            Path(plan.log_dir).mkdir(parents=True, exist_ok=True)
        env = child_environment(base_env, plan.env_changes())
        result = run_process(plan.argv, env, sup, grace_s=plan.grace_period_s, out=sink)
        if plan.log_dir:
            (Path(plan.log_dir) / "launcher.log").write_text("\n".join(result.tail) + "\n")
        step_after = _step_of(res)
        if result.exit_code == 0 and not result.interrupted:
            rec = AttemptRecord(
                attempt,
                0,
                result.duration_s,
                None,
                False,
                None,
                resumed_from=resume,
                step_before=step_before,
                step_after=step_after,
                log_dir=plan.log_dir,
            )
        else:
            logs, errors = collect_rank_evidence(plan)
            logs.setdefault(-1, "\n".join(result.tail))
            diag = failures.classify_attempt(
                {},
                errors,
                logs,
                launcher_exit=result.exit_code,
                interrupted=result.interrupted,
                policy=policy,
            )
            rec = AttemptRecord(
                attempt,
                _exit_code(result.exit_code, diag),
                result.duration_s,
                diag.category,
                diag.retryable and not result.interrupted,
                diag.signature(),
                diag.cause,
                resume,
                step_before,
                step_after,
                result.interrupted,
                plan.log_dir,
            )
            sink.write(_diagnosis_text(diag, rank_count=plan.nnodes * plan.nproc_per_node))
            sink.flush()
        records.append(rec)
        return rec

    def stop(_state: RetryCallState) -> bool:
        if sup.stopping:
            return True
        return not next_step(records, policy)[0]

    def announce(state: RetryCallState) -> None:
        wait = state.next_action.sleep if state.next_action else 0.0
        last = records[-1]
        sink.write(
            f"launchx: {last.category} is transient; attempt {last.attempt + 1} in "
            f"{wait:.1f}s (retry budget: {policy.max_retries})\n"
        )
        sink.flush()

    retrying = Retrying(
        retry=retry_if_result(lambda rec: not rec.succeeded),
        stop=stop,
        wait=wait_exponential_jitter(
            initial=policy.backoff_min_s, max=policy.backoff_max_s, jitter=policy.jitter_s
        ),
        sleep=snooze,
        before_sleep=announce,
        retry_error_callback=lambda state: state.outcome.result() if state.outcome else None,
    )
    with supervised(sup):
        final: AttemptRecord = retrying(one_attempt)
    reason = (
        "finished"
        if final.succeeded
        else ("interrupted" if sup.stopping else next_step(records, policy)[1])
    )
    _print_summary(records, reason, sink)
    if sup.stopping:
        return 128 + (sup.stop_signal or 15)
    return final.exit_code


def _exit_code(launcher_exit: int, diag: failures.Diagnosis) -> int:
    """The training's own exit code when a rank reported one, else the launcher's."""
    if diag.exit_code not in (None, 0):
        code = diag.exit_code
        assert code is not None
        return 128 - code if code < 0 else code
    return launcher_exit


def _diagnosis_text(diag: failures.Diagnosis, rank_count: int) -> str:
    where = f" on rank {diag.rank}" if diag.rank is not None and rank_count > 1 else ""
    lines = [
        f"launchx: failure: {diag.category}{where}"
        f" ({'transient' if diag.retryable else 'not retried'})",
        f"  cause: {diag.cause}",
        f"  fix: {diag.fix}",
    ]
    lines += [f"  evidence: {line}" for line in diag.evidence[:3]]
    return "\n".join(lines) + "\n"


def _refusal(plan: LaunchPlan) -> tuple[str, str | None]:
    """One message naming every error-level finding, each with its fix."""
    errors = [f for f in plan.findings if f.level == "error"]
    if len(errors) == 1:
        first = errors[0]
        return f"{first.code} {first.message}", first.fix
    body = render.findings_text(errors).rstrip("\n")
    return f"refusing to launch ({len(errors)} problems):\n{body}", None
