"""A nanoGPT-style training loop (the shape of karpathy/nanoGPT's train.py, written here).

Configuration is module globals overridden by ``--key=value`` words, and an unknown key
is an error, as nanoGPT's configurator does (so a launcher that injects ``--local-rank``
breaks it). DDP is on when ``RANK`` is set. Rank 0 evaluates every ``eval_interval``
iterations, prints ``step N: train loss …, val loss …`` and writes ``out_dir/ckpt.pt``
(a plain, non-atomic ``torch.save``); every iteration prints ``iter N: loss …``.
``--init_from=resume`` loads ``out_dir/ckpt.pt``: the only way this script resumes.
The model is a tiny bigram-style network on CPU with gloo.

Test hooks, through the environment only: ``FW_EVIDENCE`` and ``FW_PAUSE_AT`` as in the
other framework scripts (``start.<attempt>.<rank>`` holds the first iteration trained).
"""

from __future__ import annotations

import gc
import os
import sys
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

# -- config (nanoGPT style: globals, overridden from the command line) --------------------
out_dir = "out"
eval_interval = 5
log_interval = 1
max_iters = 30
always_save_checkpoint = True
init_from = "scratch"  # 'scratch' or 'resume'
batch_size = 8
block_size = 16
vocab_size = 64
n_embd = 16
learning_rate = 1e-2
backend = "gloo"
seed = 1337
config_keys = [
    k
    for k, v in globals().items()
    if not k.startswith("_") and isinstance(v, (int, float, bool, str))
]
for arg in sys.argv[1:]:
    if not arg.startswith("--") or "=" not in arg:
        raise ValueError(f"Unknown config argument: {arg}")
    key, val = arg[2:].split("=", 1)
    if key not in config_keys:
        raise ValueError(f"Unknown config key: {key}")
    old = globals()[key]
    globals()[key] = type(old)(val) if not isinstance(old, bool) else val.lower() in ("1", "true")
config = {k: globals()[k] for k in config_keys}
# ------------------------------------------------------------------------------------------

ddp = int(os.environ.get("RANK", -1)) != -1
if ddp:
    dist.init_process_group(backend=backend)
    ddp_rank = int(os.environ["RANK"])
    master_process = ddp_rank == 0
else:
    ddp_rank = 0
    master_process = True
attempt = os.environ.get("LAUNCHX_ATTEMPT", "0")
evidence = os.environ.get("FW_EVIDENCE")
pause_at = int(os.environ.get("FW_PAUSE_AT", "0"))
pause_rank = int(os.environ.get("FW_PAUSE_RANK", "1"))
torch.manual_seed(seed + ddp_rank)
if master_process:
    os.makedirs(out_dir, exist_ok=True)


def note(name: str, text: str) -> None:
    if evidence:
        os.makedirs(evidence, exist_ok=True)
        with open(os.path.join(evidence, name), "w") as fh:
            fh.write(text)


data = torch.randint(0, vocab_size, (4096,), generator=torch.Generator().manual_seed(0))


def get_batch() -> tuple[torch.Tensor, torch.Tensor]:
    ix = torch.randint(len(data) - block_size - 1, (batch_size,))
    x = torch.stack([data[i : i + block_size] for i in ix])
    y = torch.stack([data[i + 1 : i + 1 + block_size] for i in ix])
    return x, y


class Bigram(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab_size, n_embd)
        self.head = nn.Linear(n_embd, vocab_size)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        logits = self.head(self.emb(x))
        return nn.functional.cross_entropy(logits.view(-1, vocab_size), y.view(-1))


iter_num = 0
best_val_loss = 1e9
model = Bigram()
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
if init_from == "resume":
    print(f"Resuming training from {out_dir}", flush=True)
    checkpoint = torch.load(os.path.join(out_dir, "ckpt.pt"), map_location="cpu")
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    iter_num = checkpoint["iter_num"]
    best_val_loss = checkpoint["best_val_loss"]
if ddp:
    model = DDP(model)
raw_model = model.module if ddp else model


@torch.no_grad()
def estimate_loss() -> tuple[float, float]:
    model.eval()
    losses = [float(raw_model(*get_batch())) for _ in range(4)]
    model.train()
    return sum(losses[:2]) / 2, sum(losses[2:]) / 2


note(f"start.{attempt}.{ddp_rank}", str(iter_num))
note(f"pid.{attempt}.{ddp_rank}", str(os.getpid()))
t0 = time.time()
while True:
    if iter_num % eval_interval == 0 and master_process:
        train_loss, val_loss = estimate_loss()
        print(f"step {iter_num}: train loss {train_loss:.4f}, val loss {val_loss:.4f}", flush=True)
        if val_loss < best_val_loss or always_save_checkpoint:
            best_val_loss = min(best_val_loss, val_loss)
            if iter_num > 0:
                checkpoint = {
                    "model": raw_model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "iter_num": iter_num,
                    "best_val_loss": best_val_loss,
                    "config": config,
                }
                print(f"saving checkpoint to {out_dir}", flush=True)
                torch.save(checkpoint, os.path.join(out_dir, "ckpt.pt"))
    if iter_num >= max_iters:
        break
    loss = model(*get_batch())
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    t1 = time.time()
    dt, t0 = t1 - t0, t1
    if iter_num % log_interval == 0 and master_process:
        print(f"iter {iter_num}: loss {loss.item():.4f}, time {dt * 1000:.2f}ms", flush=True)
    iter_num += 1
    if pause_at and iter_num == pause_at and attempt == "0" and ddp_rank == pause_rank:
        note(f"paused.{os.getpid()}", str(iter_num))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(0.05)
        sys.exit(3)

if master_process:
    print(f"nanogpt done: iter_num={iter_num}", flush=True)
if ddp:
    # Leave the group only once every rank is done and the DDP wrapper is gone: a wrapper
    # alive at exit keeps gloo's threads running, and tearing them down then can abort a
    # rank that finished (SIGABRT, "terminate called without an active exception"), as
    # this suite once saw.
    dist.barrier()
    del model, raw_model
    gc.collect()
    dist.destroy_process_group()
