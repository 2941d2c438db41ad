"""What a training script imports to speak launchx's contract.

    from launchx import runtime

    info = runtime.init_distributed()            # rank, local rank, world, backend, device
    runtime.install_preemption_handler()         # SIGUSR2/SIGUSR1 -> should_checkpoint()
    start = 0
    if (path := runtime.resume_path()) is not None:
        state = runtime.load_checkpoint(path)
        ...
    for step in range(start, total):
        ...
        if step % every == 0 or runtime.should_checkpoint():
            runtime.save_checkpoint(state, ckpt_dir, step)   # every rank calls it
    runtime.cleanup()

Importing this package does not import torch (the functions that need it import it
when called), and it never imports launchx's CLI or planning code: it reads only the
variables the launch plan writes (``LAUNCHX_*`` and torchrun's), with the SLURM / Open
MPI / PMI names as fallbacks for jobs started without launchx.
"""

from __future__ import annotations

import gc

from launchx.runtime.ckpt import (
    checkpoint_path,
    load_checkpoint,
    prune,
    save_checkpoint,
    temp_path,
)
from launchx.runtime.dist import (
    DistInfo,
    all_reduce_mean,
    barrier,
    destroy_group,
    init_distributed,
    is_main_process,
    rank,
    world_size,
)
from launchx.runtime.env import (
    DistEnv,
    attempt,
    checkpoint_dir,
    dist_env,
    pg_timeout_s,
    resume_path,
    run_id,
)
from launchx.runtime.preempt import (
    DEFAULT_PREEMPT_SIGNALS,
    clear_checkpoint_request,
    install_preemption_handler,
    preemption_signal,
    request_checkpoint,
    should_checkpoint,
    uninstall_preemption_handler,
)

__all__ = [
    "DEFAULT_PREEMPT_SIGNALS",
    "DistEnv",
    "DistInfo",
    "all_reduce_mean",
    "attempt",
    "barrier",
    "checkpoint_dir",
    "checkpoint_path",
    "cleanup",
    "clear_checkpoint_request",
    "dist_env",
    "init_distributed",
    "install_preemption_handler",
    "is_main_process",
    "load_checkpoint",
    "pg_timeout_s",
    "preemption_signal",
    "prune",
    "rank",
    "request_checkpoint",
    "resume_path",
    "run_id",
    "save_checkpoint",
    "should_checkpoint",
    "temp_path",
    "uninstall_preemption_handler",
    "world_size",
]


def cleanup() -> None:
    """Put the signal handlers back and leave the process group (safe to call twice).

    Call it after the DDP/FSDP wrapper is gone (returned from the function that owned it,
    or ``del``-ed): a wrapper still alive keeps the group's gloo threads running until
    interpreter exit, where tearing them down can abort the process (SIGABRT) after a
    successful run. The ``gc.collect()`` frees wrappers caught in reference cycles.
    """
    uninstall_preemption_handler()
    gc.collect()
    destroy_group()
