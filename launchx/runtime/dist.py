"""Process-group set-up and the few collectives every training loop needs.

torch is imported inside the functions: importing ``launchx.runtime`` must stay cheap
for scripts (and tools) that only want the environment helpers.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from launchx.runtime.env import dist_env, pg_timeout_s, read_environ

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class DistInfo:
    """What ``init_distributed`` set up."""

    rank: int
    local_rank: int
    world_size: int
    local_world_size: int
    backend: str
    device: str  # "cuda:<local_rank>" with NCCL, else "cpu"
    timeout_s: float
    source: str  # launcher family the rank came from ("torchrun", "slurm", …, "default")

    @property
    def is_main(self) -> bool:
        return self.rank == 0


def group_ready() -> bool:
    """True when a process group exists; never imports torch to find out."""
    if "torch.distributed" not in sys.modules:
        return False
    import torch.distributed as dist

    return bool(dist.is_available() and dist.is_initialized())


def init_distributed(
    backend: str | None = None,
    *,
    timeout_s: float | None = None,
) -> DistInfo:
    """Join the job's process group (idempotent) and return where this process sits.

    * backend: ``nccl`` when CUDA is available, else ``gloo``, unless given.
    * With NCCL the CUDA device is set to ``local_rank`` *before* ``init_process_group``:
      otherwise every rank's first NCCL call lands on GPU 0, which is the classic
      "segfault / hang in init" of the field notes.
    * timeout: ``timeout_s``, else ``LAUNCHX_PG_TIMEOUT_S``, else 1800 s.
    * A world of one with no rendezvous address uses an in-memory store, so a script run
      as ``python train.py`` works unchanged.
    """
    import torch
    import torch.distributed as dist

    env = dist_env()
    timeout = timeout_s if timeout_s is not None else pg_timeout_s()
    if timeout <= 0:
        raise ValueError(f"process-group timeout must be > 0 s, got {timeout}")
    chosen = backend or ("nccl" if torch.cuda.is_available() else "gloo")
    device = "cpu"
    if "nccl" in chosen:
        torch.cuda.set_device(env.local_rank)
        device = f"cuda:{env.local_rank}"
    if not group_ready():
        _init_group(chosen, env.rank, env.world_size, timedelta(seconds=timeout))
    return DistInfo(
        rank=dist.get_rank(),
        local_rank=env.local_rank,
        world_size=dist.get_world_size(),
        local_world_size=env.local_world_size,
        backend=str(dist.get_backend()),
        device=device,
        timeout_s=timeout,
        source=env.source,
    )


def _init_group(backend: str, rank: int, world_size: int, timeout: timedelta) -> None:
    import torch.distributed as dist

    environ = read_environ()
    has_address = bool(environ.get("MASTER_ADDR")) and bool(environ.get("MASTER_PORT"))
    if world_size == 1 and not has_address:
        store = dist.HashStore()  # type: ignore[attr-defined]
        dist.init_process_group(backend, store=store, rank=0, world_size=1, timeout=timeout)
        return
    if not has_address:
        raise RuntimeError(
            f"rank {rank} of {world_size}: MASTER_ADDR and MASTER_PORT are not set, so the "
            "ranks cannot find each other; start the job with launchx or torchrun, or "
            "export MASTER_ADDR/MASTER_PORT (the first node's address and a free port)"
        )
    # env:// (not tcp://host:port) so that under torchrun rank 0 joins the agent's store
    # instead of trying to host a second one on the same port. rank and world size are
    # passed explicitly because they may have come from SLURM/MPI fallbacks.
    dist.init_process_group(
        backend, init_method="env://", rank=rank, world_size=world_size, timeout=timeout
    )


def rank() -> int:
    """Global rank: the process group's when there is one, else the environment's."""
    if group_ready():
        import torch.distributed as dist

        return int(dist.get_rank())
    return dist_env().rank


def world_size() -> int:
    if group_ready():
        import torch.distributed as dist

        return int(dist.get_world_size())
    return dist_env().world_size


def is_main_process() -> bool:
    """True on global rank 0: the one rank that writes shared files and logs."""
    return rank() == 0


def barrier() -> None:
    """Wait for every rank; a no-op without a process group or in a world of one."""
    if not group_ready():
        return
    import torch.distributed as dist

    if dist.get_world_size() > 1:
        dist.barrier()


def all_reduce_mean(tensor: torch.Tensor) -> torch.Tensor:
    """Average ``tensor`` over ranks in place and return it (unchanged without a group).

    SUM then divide, because gloo has no AVG reduction.
    """
    if not group_ready():
        return tensor
    import torch.distributed as dist

    size = dist.get_world_size()
    if size > 1:
        dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
        tensor.div_(size)
    return tensor


def collective_device() -> str:
    """Where a tensor must live for this group's collectives (NCCL needs the GPU)."""
    import torch
    import torch.distributed as dist

    if group_ready() and "nccl" in str(dist.get_backend()):
        return f"cuda:{torch.cuda.current_device()}"
    return "cpu"


def destroy_group() -> None:
    if group_ready():
        import torch.distributed as dist

        dist.destroy_process_group()
