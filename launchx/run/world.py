"""The small real ports: the clock, the console, SLURM's requeue, checkpoints, free ports."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from launchx import checkpoints
from launchx.execute import Supervisor
from launchx.run.output import Terminal


@dataclass
class SystemClock:
    """Real time, but a backoff that a SIGTERM or Ctrl-C ends at once."""

    supervisor: Supervisor
    rng: random.Random = field(default_factory=random.SystemRandom)

    def wait(self, seconds: float) -> int | None:
        if not self.supervisor.stopping:
            self.supervisor.wake.wait(seconds)
        return self.supervisor.stop_signal

    def jitter(self) -> float:
        return self.rng.random()


@dataclass
class StreamConsole:
    """launchx's own lines, on the console the ranks' output shares (``Terminal``)."""

    terminal: Terminal

    def write(self, text: str) -> None:
        self.terminal.say(text)


@dataclass(frozen=True)
class SlurmScheduler:
    job_id: str

    def requeue(self) -> str:
        from launchx import slurm_client

        slurm_client.requeue(self.job_id)
        return self.job_id


class NoScheduler:
    def requeue(self) -> str:
        from launchx.errors import LaunchxError

        raise LaunchxError("not inside a SLURM job: nothing to requeue")


@dataclass(frozen=True)
class DirCheckpoints:
    """The newest complete checkpoint in the profile's ``resume.checkpoint_dir``."""

    directory: str | None  # absolute; None: the run has no checkpoint directory

    def latest(self) -> checkpoints.Checkpoint | None:
        return checkpoints.latest_complete(self.directory) if self.directory else None

    def written(self) -> dict[str, tuple[checkpoints.Checkpoint, float]]:
        found = checkpoints.list_complete(self.directory) if self.directory else []
        return {c.path: (c, checkpoints.written_at(c)) for c in found}

    def passed_over(self, offered: checkpoints.Checkpoint) -> tuple[str, ...]:
        return checkpoints.passed_over(offered)


def checkpoint_dir(configured: str | None) -> str | None:
    return str(Path(configured).expanduser().resolve()) if configured else None


@dataclass(frozen=True)
class OsPorts:
    ephemeral_range: tuple[int, int]

    def pick(self, avoid: frozenset[int]) -> int:
        from launchx import ports

        return ports.pick_free_port(self.ephemeral_range, avoid=avoid)
