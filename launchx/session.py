"""One ``launchx run``: plan each attempt, execute it, diagnose, retry, resume, summarise.

The decisions live in pure modules (``plan``, ``retry``, ``failures``, ``checkpoints``);
this module sequences them around ``execute.run_process`` with tenacity driving the loop.
Sleep is injectable so tests of the loop never wait for real time.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_result,
    wait_exponential,
    wait_random,
)

from launchx import agree, checkpoints, failures, render
from launchx.errors import LaunchRefused, LaunchxError
from launchx.execute import (
    ProcessResult,
    Supervisor,
    child_environment,
    remove_tree_quietly,
    run_process,
    supervised,
)
from launchx.findings import has_errors
from launchx.pipeline import (
    Request,
    default_log_root,
    plan_attempt,
    relaunch_args,
    resolve_request,
    run_id_for,
)
from launchx.plan import STEP_MARKER, LaunchPlan, Target
from launchx.profile_model import Retry
from launchx.resolve import Resolution
from launchx.retry import AttemptRecord, next_step

_LOG_TAIL_BYTES = 64 * 1024


def first_plan(
    request: Request, target: Target, *, run_id: str | None, log_dir: str | None
) -> LaunchPlan:
    """The plan of the next attempt, exactly as ``run`` would build it (for --dry-run)."""
    state = _new_run(request, target, run_id=run_id, log_dir=log_dir, environ=None, out=None)
    resume, _step = _latest(state.res)
    return state.plan(state.first_attempt, resume)


def _new_run(
    request: Request,
    target: Target,
    *,
    run_id: str | None,
    log_dir: str | None,
    environ: Mapping[str, str] | None,
    out: IO[str] | None,
) -> _Run:
    res = resolve_request(request)
    state = _Run(
        request=request,
        res=res,
        target=target,
        run_id=run_id_for(res, run_id),
        log_dir=log_dir,
        # The children inherit the environment detection read, not a second look at it.
        base_env=dict(res.facts.environ if environ is None else environ),
        sink=out or sys.stdout,
    )
    history_file = _history_file(res, target)
    if history_file is not None:
        state.previous = _load_history(history_file)
    # Attempts are numbered across requeues; a requeued job continues after the last one.
    state.first_attempt = max([_attempt_base(res), *(r.attempt + 1 for r in state.previous[-1:])])
    return state


def _agreement_applies(res: Resolution, plan: LaunchPlan) -> bool:
    """Several nodes, each with its own launchx and retry loop, must agree on each attempt.
    Under srun one launchx retries the whole step, so there is nothing to agree on."""
    return plan.launcher == "torchrun" and plan.nnodes > 1 and not _inner_step(res)


def _inner_step(res: Resolution) -> bool:
    """This launchx was started by another one as its task in an srun step."""
    return res.facts.environ.get(STEP_MARKER) == "1" and res.facts.slurm is not None


def _history_file(res: Resolution, target: Target) -> Path | None:
    """Where a SLURM job keeps the attempts of one run, so that a requeued job continues
    its numbering and retry budget. Keyed by the job and by what runs, so two `launchx run`
    lines in one batch script (pretrain, then finetune) keep separate budgets."""
    slurm_facts = res.facts.slurm
    if slurm_facts is None or not slurm_facts.job_id or _inner_step(res):
        return None
    what = json.dumps([res.profile.name, target.script, *target.args])
    key = hashlib.sha256(what.encode()).hexdigest()[:12]
    base = res.facts.environ.get("SLURM_SUBMIT_DIR") or "."
    return Path(base).resolve() / ".launchx" / slurm_facts.job_id / f"attempts-{key}.json"


def _load_history(path: Path) -> list[AttemptRecord]:
    try:
        rows = json.loads(path.read_text())
        out = []
        for row in rows:
            sig = row.get("signature")
            row["signature"] = tuple(sig) if sig is not None else None
            out.append(AttemptRecord(**row))
        return out
    except (OSError, ValueError, TypeError, AttributeError):
        return []  # no history (first allocation) or an unreadable one: start afresh


def _save_history(path: Path, records: list[AttemptRecord]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps([asdict(r) for r in records], indent=1))
        os.replace(tmp, path)
    except OSError:
        pass  # the budget then restarts with the next allocation; the run itself is fine


def _attempt_base(res: Resolution) -> int:
    """Attempts are counted across SLURM requeues (SLURM_RESTART_COUNT is unset at first);
    inside an srun step the outer launchx's count is the truth."""
    environ = res.facts.environ
    if _inner_step(res) and environ.get("LAUNCHX_ATTEMPT", "").isdigit():
        return int(environ["LAUNCHX_ATTEMPT"])
    slurm = res.facts.slurm
    return slurm.restart_count if slurm is not None else 0


def _checkpoint_dir(res: Resolution) -> str | None:
    ckpt = res.profile.resume.checkpoint_dir
    return str(Path(ckpt).expanduser().resolve()) if ckpt else None


def _latest(res: Resolution) -> tuple[str | None, int | None]:
    """The newest complete checkpoint (path, step), or (None, None)."""
    directory = _checkpoint_dir(res)
    found = checkpoints.latest_complete(directory) if directory else None
    return (found.path, found.step) if found else (None, None)


def _read_tail(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - _LOG_TAIL_BYTES))
            return fh.read().decode(errors="replace")
    except OSError:
        return ""


def collect_rank_evidence(
    plan: LaunchPlan, since: float = 0.0
) -> tuple[dict[int, str], dict[int, str]]:
    """Per-rank log tails and torchrun error files of this attempt only: torchrun writes
    ``<rdzv id>_<random>/attempt_0/<local rank>/`` and a reused --log-dir may hold older
    runs' directories, so only this attempt's rendezvous id, written since it started."""
    logs: dict[int, str] = {}
    errors: dict[int, str] = {}
    if not plan.log_dir or plan.launcher != "torchrun":
        return logs, errors
    root = Path(plan.log_dir)
    for rank_dir in sorted(root.glob(f"{plan.run_id}-{plan.attempt}_*/attempt_*/*")):
        if not rank_dir.name.isdigit():
            continue
        with suppress(OSError):
            if rank_dir.stat().st_mtime < since:
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
    if len(records) == 1 and records[0].succeeded and records[0].category is None:
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


@dataclass
class _Run:
    """The state of one ``launchx run`` across its attempts."""

    request: Request
    res: Resolution
    target: Target
    run_id: str
    log_dir: str | None
    base_env: dict[str, str]
    sink: IO[str]
    sup: Supervisor = field(default_factory=Supervisor)
    records: list[AttemptRecord] = field(default_factory=list)
    previous: list[AttemptRecord] = field(default_factory=list)  # earlier allocations' attempts
    requeued: bool = False
    first_attempt: int = 0
    coordinator: agree.Coordinator | None = None  # node 0 of a multi-node torchrun run
    cannot_coordinate: bool = False  # node 0 could not listen: each node decides alone

    @property
    def history(self) -> list[AttemptRecord]:
        """Every attempt of the run, across SLURM requeues: the retry budget spans them."""
        return [*self.previous, *self.records]

    @property
    def policy(self) -> Retry:
        return self.res.profile.retry

    def plan(self, attempt: int, resume: str | None) -> LaunchPlan:
        return plan_attempt(
            self.res,
            self.target,
            run_id=self.run_id,
            attempt=attempt,
            log_dir=self.log_dir,
            resume_from=resume,
            relaunch=relaunch_args(self.request, self.log_dir),
        )

    def attempt(self) -> AttemptRecord:
        """One attempt on this node; with several nodes, the outcome they all adopt."""
        attempt = self.first_attempt + len(self.records)
        resume, step_before = _latest(self.res)
        plan = self.plan(attempt, resume)
        if has_errors(plan.findings):
            raise LaunchRefused(*_refusal(plan))
        if self.sup.stopping:  # stopped during the backoff: never start another attempt
            code = 128 + (self.sup.stop_signal or 15)
            return AttemptRecord(attempt, code, 0.0, "interrupted", False, None, interrupted=True)
        agreeing = _agreement_applies(self.res, plan)
        if agreeing:
            self._listen_for_nodes(plan)
        rec = self._attempt_here(plan, attempt, resume, step_before)
        return self._agree(plan, rec) if agreeing else rec

    def _attempt_here(
        self, plan: LaunchPlan, attempt: int, resume: str | None, step_before: int | None
    ) -> AttemptRecord:
        self.sink.write(render.run_header(plan))
        if resume:
            self.sink.write(f"launchx: resuming from {resume}\n")
        self.sink.flush()
        if plan.log_dir:
            try:
                Path(plan.log_dir).mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise LaunchxError(
                    f"cannot create the log directory {plan.log_dir}: {exc.strerror}",
                    "pass a writable --log-dir",
                ) from None
        warned_before = len(self.sup.warnings)
        started = time.time() - 1.0  # filesystem timestamps may be coarse
        env = child_environment(self.base_env, plan.env_changes())
        result = run_process(plan.argv, env, self.sup, grace_s=plan.grace_period_s, out=self.sink)
        if plan.log_dir:
            with suppress(OSError):  # losing a copy of the console must not lose the run
                (Path(plan.log_dir) / "launcher.log").write_text("\n".join(result.tail) + "\n")
        _resume, step_after = _latest(self.res)
        progress = {"resumed_from": resume, "step_before": step_before, "step_after": step_after}
        if len(self.sup.warnings) > warned_before and not result.interrupted:
            # The scheduler's warning, not a fault: the ranks were told to checkpoint and
            # stop. Requeue when the profile asks, whatever the exit code (a script that
            # checkpoints and exits 0 has not finished training); never retry in place.
            requeued = self._requeue()
            if requeued or result.exit_code != 0:
                if not requeued:
                    self.sink.write(
                        "launchx: stopped after the scheduler's warning signal; the ranks "
                        "were asked to checkpoint\n"
                    )
                return self._record(
                    attempt,
                    0 if requeued else result.exit_code,
                    result.duration_s,
                    category="preempted",
                    log_dir=plan.log_dir,
                    **progress,
                )
        if result.exit_code == 0 and not result.interrupted:
            return self._record(attempt, 0, result.duration_s, log_dir=plan.log_dir, **progress)
        diag = self._diagnose(plan, result, started)
        self.sink.write(_diagnosis_text(diag, rank_count=plan.nnodes * plan.nproc_per_node))
        self.sink.flush()
        return self._record(
            attempt,
            _exit_code(result.exit_code, diag),
            result.duration_s,
            category=diag.category,
            retryable=diag.retryable and not result.interrupted,
            signature=diag.signature(),
            cause=diag.cause,
            tier=diag.tier,
            interrupted=result.interrupted,
            log_dir=plan.log_dir,
            **progress,
        )

    def _record(self, attempt: int, exit_code: int, duration: float, **kw: Any) -> AttemptRecord:
        kw.setdefault("category", None if exit_code == 0 else "interrupted")
        kw.setdefault("retryable", False)
        kw.setdefault("signature", None)
        rec = AttemptRecord(attempt, exit_code, duration, **kw)
        self.records.append(rec)
        history_file = _history_file(self.res, self.target)
        if history_file is not None:
            _save_history(history_file, self.history)
        return rec

    def _diagnose(
        self, plan: LaunchPlan, result: ProcessResult, since: float
    ) -> failures.Diagnosis:
        logs, errors = collect_rank_evidence(plan, since)
        launcher_output = "\n".join(result.tail)
        logs.setdefault(-1, launcher_output)
        return failures.classify_attempt(
            failures.torchrun_exit_codes(launcher_output),
            errors,
            logs,
            launcher_exit=result.exit_code,
            interrupted=result.interrupted,
            policy=self.policy,
        )

    def _listen_for_nodes(self, plan: LaunchPlan) -> None:
        """Node 0 listens once, before its first attempt starts, so that a node reporting
        early waits in the backlog rather than finding nobody."""
        if plan.node_rank != 0 or self.coordinator is not None or self.cannot_coordinate:
            return
        port = agree.agreement_port(plan.master_port)
        try:
            self.coordinator = agree.Coordinator(port, self.run_id)
        except OSError as exc:
            self.sink.write(
                f"launchx: cannot listen on port {port} for the other nodes' outcomes "
                f"({exc.strerror}); each node will decide its retries alone\n"
            )
            self.cannot_coordinate = True

    def _agree(self, plan: LaunchPlan, rec: AttemptRecord) -> AttemptRecord:
        """Every node adopts the outcome that explains the attempt best (``agree``), so
        they all retry, or all stop, together."""
        own = agree.Outcome.of(rec, plan.node_rank)
        # Long enough for the slowest node to notice (its collectives time out after
        # pg_timeout_s). Briefly when there is nobody slow to wait for: this node is
        # stopping and only tells the others, or the others never joined this attempt.
        brief = self.sup.stopping or rec.interrupted or rec.category == "rendezvous_timeout"
        timeouts = self.res.profile.timeouts
        wait_s = 10.0 if brief else timeouts.pg_timeout_s + plan.grace_period_s + 60.0
        deadline = time.monotonic() + wait_s
        if plan.node_rank == 0:
            if self.coordinator is None:
                return rec
            agreed, missing = self.coordinator.gather(rec.attempt, own, plan.nnodes, deadline)
            if missing:
                names = ", ".join(map(str, missing))
                self.sink.write(f"launchx: no outcome from node(s) {names} in time\n")
        else:
            port = agree.agreement_port(plan.master_port)
            answer = agree.report(plan.master_addr, port, self.run_id, rec.attempt, own, deadline)
            if answer is None:
                self.sink.write(
                    "launchx: node 0's launchx did not answer; this node decides on its own\n"
                )
                return rec
            agreed = answer
        if agreed.failed and (agreed.node, agreed.category) != (own.node, own.category):
            how = "transient" if agreed.retryable else "not retried"
            self.sink.write(
                f"launchx: the nodes agree: {agreed.category} seen by node {agreed.node} ({how})\n"
            )
            self.sink.flush()
        new = agree.adopt(rec, agreed)
        self.records[-1] = new
        return new

    def _requeue(self) -> bool:
        """After the scheduler's warning signal: ask SLURM to requeue the job, so the next
        allocation resumes from the checkpoint the ranks just wrote."""
        slurm_facts = self.res.facts.slurm
        if slurm_facts is None or not self.res.profile.slurm.requeue or self.requeued:
            return False
        if _inner_step(self.res):  # the launchx in the batch script requeues, once
            return False
        from launchx import slurm

        try:
            slurm.requeue(slurm_facts.job_id)
        except LaunchxError as exc:
            self.sink.write(f"launchx: could not requeue job {slurm_facts.job_id}: {exc.message}\n")
            return False
        self.requeued = True
        self.sink.write(
            f"launchx: requeued SLURM job {slurm_facts.job_id}; it resumes from the "
            "newest checkpoint\n"
        )
        return True

    def stop(self, _state: RetryCallState) -> bool:
        if self.sup.stopping or self.requeued:
            return True
        return not next_step(self.history, self.policy)[0]

    def announce(self, state: RetryCallState) -> None:
        wait = state.next_action.sleep if state.next_action else 0.0
        last = self.records[-1]
        self.sink.write(
            f"launchx: {last.category} is transient; attempt {last.attempt + 1} in "
            f"{wait:.1f}s (retry budget: {self.policy.max_retries})\n"
        )
        self.sink.flush()

    def reason(self, final: AttemptRecord) -> str:
        if self.requeued:
            return "requeued by SLURM after the time-limit warning"
        if final.category == "preempted":
            return "stopped after the scheduler's warning signal"
        if final.succeeded:
            return "finished"
        if self.sup.stopping:
            return "interrupted"
        return next_step(self.history, self.policy)[1]


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
    state = _new_run(request, target, run_id=run_id, log_dir=log_dir, environ=environ, out=out)
    res = state.res

    def wake_or_timeout(seconds: float) -> None:
        """Backoff that a SIGTERM or Ctrl-C ends at once (the stop check runs next)."""
        state.sup.wake.wait(seconds)

    policy = state.policy
    retrying = Retrying(
        retry=retry_if_result(lambda rec: not rec.succeeded),
        stop=state.stop,
        # backoff_min_s, doubling per attempt up to backoff_max_s, plus up to jitter_s so
        # that nodes (or jobs) failing together do not retry in lockstep.
        wait=wait_exponential(multiplier=policy.backoff_min_s, max=policy.backoff_max_s)
        + wait_random(0, policy.jitter_s),
        sleep=sleep or wake_or_timeout,
        before_sleep=state.announce,
        retry_error_callback=lambda rs: rs.outcome.result() if rs.outcome else None,
    )
    state.sup.forward_warnings = not _inner_step(res)
    try:
        with supervised(state.sup):
            final: AttemptRecord = retrying(state.attempt)
    finally:
        if state.coordinator is not None:
            state.coordinator.close()
    if log_dir is None:
        _tidy_logs(state, final)
    if not _inner_step(res):
        _print_summary(state.records, state.reason(final), state.sink)
    if state.sup.stopping:
        return 128 + (state.sup.stop_signal or 15)
    if state.requeued:
        return 0
    return final.exit_code


def _tidy_logs(state: _Run, final: AttemptRecord) -> None:
    """Temporary logs of a run that succeeded are noise; a failed run's are the evidence."""
    root = default_log_root(state.run_id)
    if final.succeeded and final.category is None:
        # Only this run's own directories: other ranks of the same run may still write.
        for rec in state.records:
            if rec.log_dir:
                remove_tree_quietly(rec.log_dir)
        for leftover in [*sorted(root.glob("attempt_*"), reverse=True), root]:
            with suppress(OSError):
                leftover.rmdir()  # only when empty
    elif root.is_dir():
        state.sink.write(f"launchx: logs of every attempt are in {root}\n")
        state.sink.flush()


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
