"""The run loop: start an attempt, watch it end, decide, and go again or stop.

Every decision is ``decide``'s and every effect goes through a port of ``World``, so this
is only the order of things. ``RunSpec`` holds what was decided once for the run.
"""

from __future__ import annotations

from dataclasses import dataclass

from launchx import render
from launchx.errors import LaunchxError
from launchx.plan import AttemptSpec, LaunchPlan, RunDecisions, Target, attempt_log_dir, build
from launchx.resolve import Resolution
from launchx.run import text
from launchx.run.decide import (
    AttemptRecord,
    Policy,
    Requeue,
    RetryAfter,
    Stop,
    assess,
    next_step,
    rewritten,
)
from launchx.run.events import Ended
from launchx.run.ports import World


@dataclass(frozen=True)
class RunSpec:
    res: Resolution
    decisions: RunDecisions
    target: Target
    run_id: str | None  # None only in a dry run: drawn at launch
    temp_dir: str  # where logs go without --log-dir
    relaunch: tuple[str, ...] = ()  # `launchx run` options an srun step repeats
    checkpoint_dir: str | None = None  # absolute; None: the run has no checkpoint directory

    @property
    def resume_arg(self) -> str | None:
        return self.res.profile.resume.resume_arg

    @property
    def policy(self) -> Policy:
        return Policy(
            self.res.profile.retry, self.decisions.requeue_on_warning, self.checkpoint_dir
        )

    def plan(self, attempt: int, port: int | None, resume: str | None) -> LaunchPlan:
        logs = attempt_log_dir(self.decisions, self.run_id, attempt, self.temp_dir)
        spec = AttemptSpec(attempt, self.run_id, port, logs, resume, self.checkpoint_dir)
        return build(self.res, self.decisions, spec, self.target, relaunch=self.relaunch)


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    reason: str
    records: tuple[AttemptRecord, ...]
    ended: Ended


def run_loop(spec: RunSpec, world: World) -> Outcome:
    policy, before = spec.policy, world.history.load()
    records: list[AttemptRecord] = []
    attempt = first_attempt(spec, before)
    while True:
        offered = world.checkpoints.latest()
        plan = spec.plan(attempt, _port(spec, world), offered.path if offered else None)
        passed = world.checkpoints.passed_over(offered) if offered else ()
        world.console.write(
            render.run_header(plan) + text.offering(offered, spec.resume_arg, passed)
        )
        world.events.record(
            "attempt_start",
            attempt=attempt,
            master=f"{plan.master_addr}:{plan.master_port}",
            offered=offered.path if offered else None,
            log_dir=plan.log_dir,
        )
        written = world.checkpoints.written() if offered else {}
        evidence = world.attempts.run(plan)
        after = world.checkpoints.latest()
        record, diag = assess(
            evidence,
            attempt=attempt,
            policy=policy.retry,
            resumed_from=offered.path if offered else None,
            step_before=offered.step if offered else None,
            step_after=after.step if after else None,
            log_dir=plan.log_dir,
        )
        again = rewritten(written, world.checkpoints.written(), offered) if offered else None
        world.console.write(text.restarted(offered, evidence.started_at, again))
        if diag is not None:
            world.console.write(text.failure(diag, record.retryable, record.on_progress))
        record = world.peers.agree(plan, record, stopping=evidence.interrupted)
        world.events.record("attempt_end", **text.attempt_fields(record, diag))
        records.append(record)
        world.history.save([*before, *records])
        step = next_step(
            [*before, *records],
            policy,
            stop_signal=evidence.stop_signal,
            attempts_here=len(records),
            jitter_u=world.clock.jitter(),
        )
        if isinstance(step, Requeue):
            step = _requeue(world, record)
        elif isinstance(step, Stop) and record.warned and record.exit_code != 0:
            world.console.write(text.stopped_after_warning())
        if isinstance(step, RetryAfter):
            world.console.write(text.retrying(record, step.after_s, policy.retry.max_retries))
            world.events.record("retry", attempt=attempt + 1, after_s=round(step.after_s, 1))
            stop_signal = world.clock.wait(step.after_s)
            step = Stop(128 + stop_signal, "interrupted", "interrupted") if stop_signal else step
        if isinstance(step, Stop):
            return Outcome(step.exit_code, step.reason, tuple(records), step.ended)
        attempt += 1


def first_attempt(spec: RunSpec, before: list[AttemptRecord]) -> int:
    """Attempts are numbered across SLURM requeues: after the last one kept."""
    return max([spec.decisions.first_attempt, *(r.attempt + 1 for r in before[-1:])])


def _port(spec: RunSpec, world: World) -> int | None:
    """The decided port, or a free one drawn now (one node: nothing else dials it). A
    direct launch binds nothing: its port is the outer launcher's."""
    fixed = spec.decisions.port.port
    if fixed is not None or spec.decisions.launcher.launcher == "direct":
        return fixed
    return world.ports.pick(frozenset(spec.res.facts.listening))


def _requeue(world: World, record: AttemptRecord) -> Stop:
    """After the scheduler's warning: ask SLURM to requeue the job, so the next allocation
    resumes from the checkpoint the ranks just wrote."""
    try:
        job = world.scheduler.requeue()
    except LaunchxError as exc:
        world.console.write(text.requeue_failed(exc.message))
        if record.exit_code == 0:
            return Stop(0, "finished", "finished")
        world.console.write(text.stopped_after_warning())
        return Stop(record.exit_code, "stopped after the scheduler's warning signal", "preempted")
    world.console.write(text.requeued(job))
    return Stop(0, "requeued by SLURM after the time-limit warning", "requeued")
