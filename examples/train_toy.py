"""A small real DDP training job, for launchx's tests, benchmarks and demos.

A 2-layer MLP learns a fixed synthetic regression on CPU (gloo) or GPU (nccl) through
``launchx.runtime``: it joins the process group, resumes from ``LAUNCHX_RESUME_FROM``
(or ``--resume``), checkpoints atomically every ``--ckpt-every`` steps, and writes its
final weights to ``--output``.

Deterministic on purpose: the batch of step ``s`` on rank ``r`` is a function of
``(seed, s, r)`` only, and the optimizer state is checkpointed, so resuming from any
checkpoint ends with weights bit-identical to an uninterrupted run with the same seed and
world size.

Fault injection (to exercise launchx's failure handling with real failures):

* ``--stall-at-step K --stall-rank R``: rank R sleeps past the process-group timeout
  before step K, so the other ranks hit a real collective timeout. First attempt only
  (``LAUNCHX_ATTEMPT`` 0): a transient hang.
* ``--crash-at-step K --crash-rank R --crash-kind KIND`` before step K:
  ``keyerror`` raises KeyError on *every* attempt (a deterministic bug);
  ``exit`` exits with ``--crash-exit-code``, ``sigkill`` kills itself with SIGKILL,
  ``nic`` prints the warning NCCL prints when an InfiniBand transfer fails (this host has
  no HCA to break) and exits 1, and ``sigkill-during-save`` makes rank 0 (the only
  writer; ``--crash-rank`` is ignored) write part of the temporary file of the first
  checkpoint at or after step K and then SIGKILL itself — those four on the first
  attempt only.

Milestones are printed by rank 0 as single lines starting with ``[toy]``:
``start …``, ``resumed from <path> at step N``, ``step N loss X``, ``saved <path>``,
``preempted at step N``, ``done steps=N output=<path>``; fault injections are printed by
the rank that acts (``stalling …``, ``crashing …``).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import signal
import socket
import sys
import time
from pathlib import Path

import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from launchx import runtime
from launchx.checkpoints import latest_complete

IN_FEATURES = 8
CRASH_KINDS = ("keyerror", "exit", "sigkill", "nic", "sigkill-during-save")
EX_TEMPFAIL = 75  # sysexits.h: "temporary failure; the user is invited to retry"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300, help="total optimizer steps")
    parser.add_argument("--ckpt-every", type=int, default=50, help="checkpoint interval (steps)")
    parser.add_argument(
        "--checkpoint-dir",
        default=os.environ.get("LAUNCHX_CHECKPOINT_DIR") or "./checkpoints",
        help="default: $LAUNCHX_CHECKPOINT_DIR (launchx run --checkpoint-dir), else ./checkpoints",
    )
    parser.add_argument("--keep", type=int, default=3, help="launchx checkpoints to keep")
    parser.add_argument(
        "--resume",
        default=None,
        help="checkpoint file, or a directory (its newest complete checkpoint); "
        "default: $LAUNCHX_RESUME_FROM",
    )
    parser.add_argument("--output", default=None, help="default: <checkpoint-dir>/final.pt")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=32, help="per rank")
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--log-every", type=int, default=10)
    parser.add_argument("--backend", default=None, help="default: nccl with CUDA, else gloo")
    parser.add_argument(
        "--pg-timeout-s", type=float, default=None, help="default: $LAUNCHX_PG_TIMEOUT_S, 1800"
    )
    parser.add_argument(
        "--step-sleep-s",
        type=float,
        default=0.0,
        help="sleep this long after each step, so that a run a test signals mid-way lasts "
        "as long on a fast machine as on a slow one",
    )
    parser.add_argument("--stall-at-step", type=int, default=None)
    parser.add_argument("--stall-rank", type=int, default=1)
    parser.add_argument(
        "--stall-s", type=float, default=None, help="default: 3 x PG timeout + 10 s"
    )
    parser.add_argument("--crash-at-step", type=int, default=None)
    parser.add_argument("--crash-rank", type=int, default=0)
    parser.add_argument("--crash-kind", choices=CRASH_KINDS, default="exit")
    parser.add_argument("--crash-exit-code", type=int, default=1)
    parser.add_argument(
        "--preempt-exit-code",
        type=int,
        default=EX_TEMPFAIL,
        help="exit code after a preemption checkpoint (default 75, EX_TEMPFAIL)",
    )
    args = parser.parse_args(argv)
    if args.steps < 0 or args.ckpt_every < 1 or args.log_every < 1 or args.step_sleep_s < 0:
        parser.error("--steps and --step-sleep-s must be >= 0, --ckpt-every and --log-every >= 1")
    return args


def say(text: str, *, every_rank: bool = False) -> None:
    if every_rank or runtime.is_main_process():
        print(f"[toy] {text}", flush=True)


def _seed_for(*parts: int) -> int:
    """A well-mixed 63-bit seed from integers, so nearby (step, rank) pairs don't correlate."""
    digest = hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") & ((1 << 63) - 1)


def make_batch(seed: int, step: int, rank: int, size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The batch of (step, rank): a pure function of its arguments, never of a cursor."""
    teacher = torch.Generator().manual_seed(_seed_for(seed, -1))
    weight = torch.randn(IN_FEATURES, 1, generator=teacher)
    gen = torch.Generator().manual_seed(_seed_for(seed, step, rank))
    x = torch.randn(size, IN_FEATURES, generator=gen)
    y = torch.tanh(x @ weight) + 0.05 * torch.randn(size, 1, generator=gen)
    return x, y


def build_model(seed: int, hidden: int) -> nn.Module:
    torch.manual_seed(_seed_for(seed, -2))
    return nn.Sequential(nn.Linear(IN_FEATURES, hidden), nn.Tanh(), nn.Linear(hidden, 1))


def first_attempt() -> bool:
    return runtime.attempt() == 0


def inject_before_step(args: argparse.Namespace, step: int, rank: int, timeout_s: float) -> None:
    if args.stall_at_step == step and args.stall_rank == rank and first_attempt():
        seconds = args.stall_s if args.stall_s is not None else 3 * timeout_s + 10
        say(f"stalling rank {rank} at step {step} for {seconds:g} s", every_rank=True)
        time.sleep(seconds)
    if args.crash_at_step != step or args.crash_rank != rank:
        return
    if args.crash_kind == "keyerror":
        say(f"crashing rank {rank} at step {step} kind=keyerror", every_rank=True)
        raise KeyError(f"toy_missing_key_at_step_{step}")
    if args.crash_kind == "exit" and first_attempt():
        say(f"crashing rank {rank} at step {step} kind=exit", every_rank=True)
        sys.stdout.flush()
        os._exit(args.crash_exit_code)
    if args.crash_kind == "nic" and first_attempt():
        say(f"crashing rank {rank} at step {step} kind=nic", every_rank=True)
        print(
            f"{socket.gethostname()}:{os.getpid()} [0] transport/net_ib.cc:1696 NCCL WARN "
            "NET/IB : Got completion from peer 10.0.0.12<47281> with status=12 opcode=0 "
            "len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.11 remoteGid ::ffff:10.0.0.12",
            file=sys.stderr,
            flush=True,
        )
        os._exit(1)
    if args.crash_kind == "sigkill" and first_attempt():
        say(f"crashing rank {rank} at step {step} kind=sigkill", every_rank=True)
        os.kill(os.getpid(), signal.SIGKILL)


def should_die_during_save(args: argparse.Namespace, step: int) -> bool:
    return (
        args.crash_kind == "sigkill-during-save"
        and args.crash_at_step is not None
        and step >= args.crash_at_step
        and first_attempt()
    )


def die_during_save(state: dict[str, object], directory: Path, step: int) -> None:
    """Leave half a checkpoint under the runtime's real temporary name, then SIGKILL."""
    buffer = io.BytesIO()
    torch.save(state, buffer)
    data = buffer.getvalue()
    directory.mkdir(parents=True, exist_ok=True)
    partial = runtime.temp_path(directory, step)
    with open(partial, "wb") as handle:
        handle.write(data[: len(data) // 2])
        handle.flush()
        os.fsync(handle.fileno())
    say(f"crashing rank 0 during save of step {step} partial={partial}", every_rank=True)
    os.kill(os.getpid(), signal.SIGKILL)


def resolve_resume(arg: str | None) -> str | None:
    if arg is None:
        return runtime.resume_path()
    if os.path.isdir(arg):
        found = latest_complete(arg)
        return found.path if found else None
    return arg


def save_weights(model: nn.Module, output: Path) -> None:
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_name(f".{output.name}.tmp.{os.getpid()}")
    with open(tmp, "wb") as handle:
        torch.save(model.state_dict(), handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, output)


def train(args: argparse.Namespace) -> int:
    torch.set_num_threads(1)  # same math on every run, and no oversubscribed CPUs
    info = runtime.init_distributed(args.backend, timeout_s=args.pg_timeout_s)
    runtime.install_preemption_handler()
    ckpt_dir = Path(args.checkpoint_dir)
    output = Path(args.output) if args.output else ckpt_dir / "final.pt"
    say(
        f"start rank={info.rank} world={info.world_size} backend={info.backend} "
        f"attempt={runtime.attempt()} timeout_s={info.timeout_s:g} steps={args.steps}"
    )
    model = build_model(args.seed, args.hidden).to(info.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    start = 0
    resume = resolve_resume(args.resume)
    if resume is not None:
        state = runtime.load_checkpoint(resume, map_location=info.device)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start = int(state["step"])
        if state.get("world_size") != info.world_size:
            say(f"warning: checkpoint world size {state.get('world_size')} != {info.world_size}")
        say(f"resumed from {resume} at step {start}")
    ddp = DistributedDataParallel(model)
    loss_fn = nn.MSELoss()
    for step in range(start, args.steps):
        inject_before_step(args, step, info.rank, info.timeout_s)
        x, y = make_batch(args.seed, step, info.rank, args.batch_size)
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(ddp(x.to(info.device)), y.to(info.device))
        loss.backward()
        optimizer.step()
        done = step + 1
        if done % args.log_every == 0 or done == args.steps:
            mean = runtime.all_reduce_mean(loss.detach().clone())
            say(f"step {done} loss {mean.item():.6f}")
        preempted = runtime.should_checkpoint()
        if done % args.ckpt_every == 0 or preempted:
            state = {
                "step": done,
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "seed": args.seed,
                "world_size": info.world_size,
            }
            if info.rank == 0 and should_die_during_save(args, done):
                die_during_save(state, ckpt_dir, done)
            path = runtime.save_checkpoint(state, ckpt_dir, done, keep=args.keep)
            if path is not None:
                say(f"saved {path}")
        if preempted:
            say(f"preempted at step {done} (signal {runtime.preemption_signal()})")
            return int(args.preempt_exit_code)
        if args.step_sleep_s:
            time.sleep(args.step_sleep_s)
    if info.rank == 0:
        save_weights(model, output)
    runtime.barrier()
    say(f"done steps={args.steps} output={output.absolute()}")
    return 0


def main(argv: list[str] | None = None) -> int:
    code = train(parse_args(argv))
    # Only now: the DDP wrapper (which keeps the process group alive) died with train()'s
    # frame. Tearing the group down while DDP still holds it leaves gloo's threads to die
    # at interpreter exit, which aborts ("terminate called without an active exception").
    runtime.cleanup()
    return code


if __name__ == "__main__":
    sys.exit(main())
