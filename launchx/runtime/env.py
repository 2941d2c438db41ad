"""Read the launch contract from the environment, with the platforms' own names as fallbacks.

A training script may be started by launchx (torchrun variables plus ``LAUNCHX_*``), by a
bare ``srun``, by ``mpirun`` or by a platform that already started one process per GPU.
Each family names rank and world size differently; the tables below are the one place
that knows those names, in the order they are trusted (the torchrun names first because
launchx and torchrun always set them and they override anything inherited).

Stdlib only: scripts import this before deciding whether torch is even needed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

RUN_ID = "LAUNCHX_RUN_ID"
ATTEMPT = "LAUNCHX_ATTEMPT"
RESUME_FROM = "LAUNCHX_RESUME_FROM"
CHECKPOINT_DIR = "LAUNCHX_CHECKPOINT_DIR"
PROFILE = "LAUNCHX_PROFILE"
PG_TIMEOUT_S = "LAUNCHX_PG_TIMEOUT_S"

DEFAULT_PG_TIMEOUT_S = 1800.0

# (launcher family, variable) in order of trust.
# MPI before SLURM: mpirun inside an sbatch script leaves the batch step's SLURM_PROCID=0
# in every rank it starts, while its own variables are per process. launchx's plan maps
# MPI launches with these same tables.
RANK_VARS = (
    ("torchrun", "RANK"),
    ("openmpi", "OMPI_COMM_WORLD_RANK"),
    ("pmi", "PMI_RANK"),
    ("mvapich", "MV2_COMM_WORLD_RANK"),
    ("slurm", "SLURM_PROCID"),
)
LOCAL_RANK_VARS = (
    ("torchrun", "LOCAL_RANK"),
    ("openmpi", "OMPI_COMM_WORLD_LOCAL_RANK"),
    ("pmi", "MPI_LOCALRANKID"),
    ("mvapich", "MV2_COMM_WORLD_LOCAL_RANK"),
    ("slurm", "SLURM_LOCALID"),
)
WORLD_SIZE_VARS = (
    ("torchrun", "WORLD_SIZE"),
    ("openmpi", "OMPI_COMM_WORLD_SIZE"),
    ("pmi", "PMI_SIZE"),
    ("mvapich", "MV2_COMM_WORLD_SIZE"),
    ("slurm", "SLURM_NTASKS"),
)
LOCAL_WORLD_SIZE_VARS = (
    ("torchrun", "LOCAL_WORLD_SIZE"),
    ("openmpi", "OMPI_COMM_WORLD_LOCAL_SIZE"),
    ("pmi", "MPI_LOCALNRANKS"),
    ("mvapich", "MV2_COMM_WORLD_LOCAL_SIZE"),
    ("slurm", "SLURM_NTASKS_PER_NODE"),
)
# A requeued SLURM job is another attempt even when launchx did not count it.
ATTEMPT_VARS = (("launchx", ATTEMPT), ("slurm", "SLURM_RESTART_COUNT"))

_TASKS_PER_NODE_ITEM = re.compile(r"([0-9]+)(?:\(x([0-9]+)\))?")


@dataclass(frozen=True)
class DistEnv:
    """Where this process sits in the job, as the environment describes it."""

    rank: int
    local_rank: int
    world_size: int
    local_world_size: int
    source: str  # launcher family the rank came from, or "default" when none set it

    def __repr__(self) -> str:
        return (
            f"DistEnv(rank={self.rank}({self.world_size}), "
            f"local_rank={self.local_rank}({self.local_world_size}), source={self.source})"
        )


def read_environ() -> Mapping[str, str]:
    """The rank's environment: the one place the runtime reads it."""
    return os.environ


def _environ(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return read_environ() if environ is None else environ


def _int_var(environ: Mapping[str, str], name: str) -> int:
    raw = environ[name].strip()
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name}={environ[name]!r} is not an integer") from None
    if value < 0:
        raise ValueError(f"{name}={value} must be >= 0")
    return value


def _first(
    environ: Mapping[str, str], table: tuple[tuple[str, str], ...]
) -> tuple[str, int] | None:
    for family, name in table:
        if environ.get(name, "").strip():
            return family, _int_var(environ, name)
    return None


def _slurm_local_world(environ: Mapping[str, str]) -> int | None:
    """Tasks on this node from ``SLURM_STEP_TASKS_PER_NODE`` (``2(x3),1``) and the node id."""
    spec = environ.get("SLURM_STEP_TASKS_PER_NODE", "").strip()
    node = environ.get("SLURM_NODEID", "").strip()
    if not spec or not node.isdigit():
        return None
    counts: list[int] = []
    for item in spec.split(","):
        match = _TASKS_PER_NODE_ITEM.fullmatch(item.strip())
        if match is None:
            return None
        counts.extend([int(match.group(1))] * int(match.group(2) or 1))
    index = int(node)
    return counts[index] if index < len(counts) else None


def dist_env(environ: Mapping[str, str] | None = None) -> DistEnv:
    """Rank, local rank and sizes; a lone process (nothing set) is rank 0 of 1."""
    env = _environ(environ)
    rank = _first(env, RANK_VARS)
    local = _first(env, LOCAL_RANK_VARS)
    world = _first(env, WORLD_SIZE_VARS)
    local_world = _first(env, LOCAL_WORLD_SIZE_VARS)
    world_size = world[1] if world else 1
    local_world_size = local_world[1] if local_world else _slurm_local_world(env)
    info = DistEnv(
        rank=rank[1] if rank else 0,
        local_rank=local[1] if local else 0,
        world_size=world_size,
        local_world_size=local_world_size if local_world_size else world_size,
        source=rank[0] if rank else "default",
    )
    if info.world_size < 1 or info.rank >= info.world_size:
        raise ValueError(f"rank {info.rank} does not fit a world of {info.world_size}: {info!r}")
    return info


def attempt(environ: Mapping[str, str] | None = None) -> int:
    """0 on the first attempt, then 1, 2, … (``LAUNCHX_ATTEMPT``, else SLURM's requeue count)."""
    found = _first(_environ(environ), ATTEMPT_VARS)
    return found[1] if found else 0


def resume_path(environ: Mapping[str, str] | None = None) -> str | None:
    """``LAUNCHX_RESUME_FROM`` when it names something that exists, else None.

    A path that vanished between launchx's scan and this call (pruned by hand, a wiped
    scratch disk) means "start fresh", not a crash on load.
    """
    path = _environ(environ).get(RESUME_FROM, "").strip()
    return path if path and os.path.exists(path) else None


def checkpoint_dir(environ: Mapping[str, str] | None = None) -> str | None:
    """``LAUNCHX_CHECKPOINT_DIR``: the directory launchx looks in for the newest complete
    checkpoint (``--checkpoint-dir``, absolute), where the script should write them; None
    when the run has none."""
    path = _environ(environ).get(CHECKPOINT_DIR, "").strip()
    return path or None


def pg_timeout_s(environ: Mapping[str, str] | None = None) -> float:
    """Collective timeout from ``LAUNCHX_PG_TIMEOUT_S`` (default 1800 s, torch's own)."""
    env = _environ(environ)
    raw = env.get(PG_TIMEOUT_S, "").strip()
    if not raw:
        return DEFAULT_PG_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{PG_TIMEOUT_S}={raw!r} is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise ValueError(f"{PG_TIMEOUT_S}={raw!r} must be a positive finite number of seconds")
    return value


def run_id(environ: Mapping[str, str] | None = None) -> str | None:
    """``LAUNCHX_RUN_ID``: the same on every rank, node and attempt of one run."""
    return _environ(environ).get(RUN_ID) or None
