"""Turn a scheduler's "you will be stopped soon" signal into a flag the training loop polls.

Which signals, and why:

* ``SIGUSR2`` — what launchx's sbatch (like submitit) asks SLURM to send before the time
  limit or a preemption (``--signal=USR2@<seconds>``).
* ``SIGUSR1`` — Lightning's and many sites' choice for the same warning. (submitit warns
  that NCCL may use USR1 itself; a flag costs nothing if that happens.)
* ``SIGTERM`` is *not* handled by default. It is the "stop now" signal: torchrun and launchx
  send it to shut workers down, and SLURM sends it as the last step before SIGKILL.
  Catching it to set a flag would leave a rank that is blocked in a collective running
  until the SIGKILL, and would turn a user's Ctrl-C into a checkpoint. Pass it explicitly
  if your platform only ever warns with SIGTERM.

The handler only sets a flag (nothing else is safe in a signal handler). Ranks may get the
signal at different moments — or only some of them get it — so ``should_checkpoint``
agrees across ranks with a tiny all-reduce: every rank must call it at the same step.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterable
from types import FrameType

from launchx.runtime.dist import collective_device, group_ready

DEFAULT_PREEMPT_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGUSR2, signal.SIGUSR1)

_Handler = Callable[[int, FrameType | None], object] | int | signal.Handlers | None

_received: list[int] = []
_previous: dict[int, _Handler] = {}


def _on_signal(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)


def install_preemption_handler(
    signals: Iterable[signal.Signals | int] = DEFAULT_PREEMPT_SIGNALS,
) -> None:
    """Set the checkpoint flag when any of ``signals`` arrives (main thread only).

    Replaces the previous handlers; ``uninstall_preemption_handler`` (or ``cleanup``)
    puts them back.
    """
    for sig in signals:
        number = int(sig)
        previous = signal.signal(number, _on_signal)
        _previous.setdefault(number, previous)


def uninstall_preemption_handler() -> None:
    while _previous:
        number, previous = _previous.popitem()
        signal.signal(number, previous if previous is not None else signal.SIG_DFL)


def request_checkpoint() -> None:
    """Set the flag from code (a wall-clock budget, a test) as a signal would."""
    _received.append(0)


def preemption_signal() -> int | None:
    """The first signal received since the flag was last cleared (0: set from code)."""
    return _received[0] if _received else None


def clear_checkpoint_request() -> None:
    _received.clear()


def should_checkpoint(sync: bool = True) -> bool:
    """True when this rank — or, with ``sync``, any rank — was warned of a stop.

    With ``sync`` (the default) this is a collective: call it on every rank at the same
    point of the loop, so that all ranks checkpoint and leave together.
    """
    local = bool(_received)
    if not sync or not group_ready():
        return local
    import torch
    import torch.distributed as dist

    if dist.get_world_size() == 1:
        return local
    flag = torch.tensor([1 if local else 0], dtype=torch.int32, device=collective_device())
    dist.all_reduce(flag, op=dist.ReduceOp.MAX)
    return bool(flag.item())
