"""The run loop's view of the world: one small Protocol per thing it touches.

The loop (``launchx.run.loop``) decides nothing itself and touches nothing directly: it
starts attempts, reads checkpoints, keeps the history, talks to the other nodes, asks the
scheduler to requeue, waits, and writes to the console, each through one of these. The
real implementations live beside them (``attempts``, ``history``, ``peers``, ``world``);
the tests pass fakes, so no test of the loop starts a process, patches a module or waits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from launchx.checkpoints import Checkpoint
from launchx.plan import LaunchPlan
from launchx.run.decide import AttemptRecord, Evidence


class Attempts(Protocol):
    """Runs one attempt's plan to its end and says what it left behind."""

    def run(self, plan: LaunchPlan) -> Evidence: ...


class Checkpoints(Protocol):
    def latest(self) -> Checkpoint | None:
        """The newest complete checkpoint (absolute path, step, whose layout), or None."""
        ...

    def written(self) -> dict[str, tuple[Checkpoint, float]]:
        """Every complete checkpoint by path, with when it was last written (compared
        before and after an attempt: which ones the attempt wrote)."""
        ...

    def passed_over(self, offered: Checkpoint) -> tuple[str, ...]:
        """The names beside ``offered`` of later saves that are not complete."""
        ...


class History(Protocol):
    """Attempts of this run made before this launchx started (a SLURM requeue keeps them),
    so numbering and the retry budget continue."""

    def load(self) -> list[AttemptRecord]: ...

    def save(self, records: list[AttemptRecord]) -> None: ...


class Peers(Protocol):
    """The other nodes of a multi-node run: every node adopts one outcome per attempt."""

    def agree(self, plan: LaunchPlan, record: AttemptRecord, stopping: bool) -> AttemptRecord: ...

    def close(self) -> None: ...


class Scheduler(Protocol):
    """SLURM, for the requeue after its time-limit warning. Raises ``LaunchxError``."""

    def requeue(self) -> str: ...


class Clock(Protocol):
    def wait(self, seconds: float) -> int | None:
        """Sleep; the stop signal that cut the wait short, or None."""
        ...

    def jitter(self) -> float:
        """A number in [0, 1) for the backoff's jitter."""
        ...


class Console(Protocol):
    def write(self, text: str) -> None: ...


class Events(Protocol):
    """The run's record (``events.jsonl``): what ``launchx status`` and ``diagnose`` read."""

    def record(self, event: str, **fields: object) -> None: ...


class FreePorts(Protocol):
    def pick(self, avoid: frozenset[int]) -> int: ...


@dataclass(frozen=True)
class World:
    attempts: Attempts
    checkpoints: Checkpoints
    history: History
    peers: Peers
    scheduler: Scheduler
    clock: Clock
    console: Console
    ports: FreePorts
    events: Events
