"""Fakes of the run loop's ports (``launchx.run.ports``): scripted attempts, checkpoints in
memory, a clock that never waits, a console that keeps what it was told."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from launchx import detect, profiles
from launchx.checkpoints import Checkpoint
from launchx.errors import LaunchxError
from launchx.facts import HostFacts
from launchx.plan import LaunchPlan, Target, decide_run
from launchx.resolve import Overrides, resolve
from launchx.run.decide import AttemptRecord, Evidence
from launchx.run.loop import RunSpec
from launchx.run.ports import World


@dataclass(frozen=True)
class Step:
    """One scripted attempt: what it exits with, what it prints, what it checkpoints, and
    whether a stop signal or the scheduler's warning reaches launchx meanwhile."""

    exit_code: int = 0
    output: str = ""
    save_step: int | None = None
    saves: tuple[int, ...] = ()  # more checkpoints it writes, in order (before save_step)
    stop_signal: int | None = None
    warned: bool = False
    started_at: tuple[int, str] | None = None  # the first step its output showed


@dataclass
class ScriptedAttempts:
    steps: Iterator[Step]
    checkpoints: MemoryCheckpoints
    plans: list[LaunchPlan] = field(default_factory=list)

    def run(self, plan: LaunchPlan) -> Evidence:
        self.plans.append(plan)
        step = next(self.steps)
        for saved in step.saves:
            self.checkpoints.save(saved)
        if step.save_step is not None:
            self.checkpoints.save(step.save_step)
        return Evidence(
            exit_code=step.exit_code,
            duration_s=0.5,
            stop_signal=step.stop_signal,
            warned=step.warned,
            launcher_output=tuple(step.output.splitlines()),
            started_at=step.started_at,
        )

    def env(self, n: int) -> dict[str, str | None]:
        """The LAUNCHX_* variables attempt ``n`` got."""
        return {k: v for k, v in self.plans[n].env_changes().items() if k.startswith("LAUNCHX_")}


@dataclass
class MemoryCheckpoints:
    steps: list[int] = field(default_factory=list)

    def save(self, step: int) -> None:
        self.steps.append(step)

    def latest(self) -> Checkpoint | None:
        if not self.steps:
            return None
        return self._at(max(self.steps))

    def written(self) -> dict[str, tuple[Checkpoint, float]]:
        """Each step's checkpoint, "written" at the index of its newest save."""
        return {self._at(s).path: (self._at(s), float(i)) for i, s in enumerate(self.steps)}

    def passed_over(self, offered: Checkpoint) -> tuple[str, ...]:
        return ()  # (launchx's own saves are renamed into place: never cut short)

    @staticmethod
    def _at(step: int) -> Checkpoint:
        return Checkpoint(f"/ck/step_{step:08d}.pt", step, "launchx")


@dataclass
class MemoryHistory:
    kept: list[AttemptRecord] = field(default_factory=list)

    def load(self) -> list[AttemptRecord]:
        return list(self.kept)

    def save(self, records: list[AttemptRecord]) -> None:
        self.kept = list(records)


@dataclass
class AgreeingPeers:
    """Other nodes that answer with ``answer`` (a record to adopt), or not at all."""

    answer: AttemptRecord | None = None
    asked: list[AttemptRecord] = field(default_factory=list)

    def agree(self, plan: LaunchPlan, record: AttemptRecord, stopping: bool) -> AttemptRecord:
        self.asked.append(record)
        return self.answer if self.answer is not None else record

    def close(self) -> None:
        return None


@dataclass
class FakeScheduler:
    fail_with: str | None = None
    requeued: list[str] = field(default_factory=list)

    def requeue(self) -> str:
        if self.fail_with:
            raise LaunchxError(self.fail_with)
        self.requeued.append("4242")
        return "4242"


@dataclass
class FakeClock:
    """Never waits: records each wait; ``stop_on_wait`` plays a SIGTERM landing mid-wait."""

    jitters: Iterator[float] = field(default_factory=lambda: iter(()))
    stop_on_wait: int | None = None
    waited: list[float] = field(default_factory=list)

    def wait(self, seconds: float) -> int | None:
        self.waited.append(seconds)
        return self.stop_on_wait

    def jitter(self) -> float:
        return next(self.jitters, 0.0)


@dataclass
class ListConsole:
    lines: list[str] = field(default_factory=list)

    def write(self, text: str) -> None:
        self.lines.append(text)

    @property
    def text(self) -> str:
        return "".join(self.lines)


@dataclass
class RecordedEvents:
    events: list[dict[str, object]] = field(default_factory=list)

    def record(self, event: str, **fields: object) -> None:
        self.events.append({"event": event, **fields})

    def named(self, name: str) -> list[dict[str, object]]:
        return [e for e in self.events if e["event"] == name]


@dataclass
class FixedPorts:
    port: int = 31337

    def pick(self, avoid: frozenset[int]) -> int:
        return self.port


@dataclass
class FakeWorld:
    attempts: ScriptedAttempts
    checkpoints: MemoryCheckpoints
    history: MemoryHistory
    peers: AgreeingPeers
    scheduler: FakeScheduler
    clock: FakeClock
    console: ListConsole
    ports: FixedPorts
    events: RecordedEvents

    def world(self) -> World:
        return World(**{f.name: getattr(self, f.name) for f in dataclasses.fields(self)})


def fake_world(steps: list[Step], **kw: object) -> FakeWorld:
    ckpt = MemoryCheckpoints()
    parts: dict[str, object] = {
        "attempts": ScriptedAttempts(iter(steps), ckpt),
        "checkpoints": ckpt,
        "history": MemoryHistory(),
        "peers": AgreeingPeers(),
        "scheduler": FakeScheduler(),
        "clock": FakeClock(),
        "console": ListConsole(),
        "ports": FixedPorts(),
        "events": RecordedEvents(),
    }
    parts.update(kw)
    return FakeWorld(**parts)  # type: ignore[arg-type]


def spec_for(
    profile: str = "local",
    *sets: str,
    environ: Mapping[str, str] | None = None,
    flags: Mapping[str, str] | None = None,
    target: Target | None = None,
    run_id: str = "lx-test",
    **facts: object,
) -> RunSpec:
    """A run decided the way ``launchx run`` decides it, from a built-in profile and an
    environment given in the test (no host is read)."""
    env = dict(environ or {})
    base: dict[str, object] = {
        "cpu_count": 2,
        "environ": env,
        "launch": detect.classify_launch(env),
        "slurm": detect.parse_slurm(env),
        "python": "/usr/bin/python3",
    }
    base.update(facts)
    host = HostFacts(**base)  # type: ignore[arg-type]
    loaded = profiles.load(profile, {}, profiles.builtin_dir())
    res = resolve(loaded, host, Overrides(sets=tuple(sets), flags=dict(flags or {})))
    decisions = decide_run(res, run_id=run_id, log_dir="/logs")
    return RunSpec(res, decisions, target or Target("train.py"), run_id, "/tmp")
