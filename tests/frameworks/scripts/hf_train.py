"""A tiny Hugging Face Trainer script, written the way users write them.

GPT-2 built from a tiny config (no download), synthetic token data, ``save_steps`` every
few steps, the usual ``HfArgumentParser`` over ``TrainingArguments`` so it accepts
``--resume_from_checkpoint`` and passes it to ``trainer.train`` (as the HF examples do).
It never reads ``LAUNCHX_RESUME_FROM``: launchx must resume it through the Trainer's own
argument. ``ACCELERATE_USE_CPU=true`` (set by the tests) makes the CPU ranks one world.

Test hooks, through the environment only (a real script has none of them):
``FW_EVIDENCE``: a directory; each rank writes ``start.<attempt>.<rank>`` holding the
first global step it trains, and ``pid.<attempt>.<rank>``. ``FW_PAUSE_AT``: on attempt 0
rank ``FW_PAUSE_RANK`` (1) writes ``paused.<pid>`` after that step and waits there for
the test to signal it (at most 60 s, then it exits 3 so nothing hangs).
"""

from __future__ import annotations

import gc
import os
import sys
import time
from dataclasses import dataclass, field

import torch
from transformers import (
    GPT2Config,
    GPT2LMHeadModel,
    HfArgumentParser,
    Trainer,
    TrainerCallback,
    TrainingArguments,
)


@dataclass
class DataArgs:
    seq_len: int = field(default=16)
    samples: int = field(default=256)


class Tokens(torch.utils.data.Dataset[dict[str, torch.Tensor]]):
    def __init__(self, samples: int, seq_len: int, vocab: int) -> None:
        gen = torch.Generator().manual_seed(0)
        self.data = torch.randint(0, vocab, (samples, seq_len), generator=gen)

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
        return {"input_ids": self.data[i], "labels": self.data[i]}


class Evidence(TrainerCallback):  # type: ignore[misc]
    def __init__(self) -> None:
        self.dir = os.environ.get("FW_EVIDENCE")
        self.attempt = os.environ.get("LAUNCHX_ATTEMPT", "0")
        self.rank = os.environ.get("RANK", "0")
        self.pause_at = int(os.environ.get("FW_PAUSE_AT", "0"))
        self.pause_rank = os.environ.get("FW_PAUSE_RANK", "1")
        self.started = False

    def _write(self, name: str, text: str) -> None:
        if self.dir:
            os.makedirs(self.dir, exist_ok=True)
            with open(os.path.join(self.dir, name), "w") as fh:
                fh.write(text)

    def on_step_begin(self, args, state, control, **kw):  # type: ignore[no-untyped-def]
        if not self.started:
            self.started = True
            self._write(f"start.{self.attempt}.{self.rank}", str(state.global_step))
            self._write(f"pid.{self.attempt}.{self.rank}", str(os.getpid()))

    def on_step_end(self, args, state, control, **kw):  # type: ignore[no-untyped-def]
        if (
            self.pause_at
            and state.global_step == self.pause_at
            and self.attempt == "0"
            and self.rank == self.pause_rank
        ):
            self._write(f"paused.{os.getpid()}", str(state.global_step))
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                time.sleep(0.05)
            sys.exit(3)


def main() -> None:
    parser = HfArgumentParser((TrainingArguments, DataArgs))
    args, data = parser.parse_args_into_dataclasses()
    config = GPT2Config(vocab_size=64, n_positions=data.seq_len, n_embd=16, n_layer=1, n_head=2)
    torch.manual_seed(0)
    model = GPT2LMHeadModel(config)
    trainer = Trainer(
        model=model,
        args=args,
        train_dataset=Tokens(data.samples, data.seq_len, config.vocab_size),
        callbacks=[Evidence()],
    )
    trainer.train(resume_from_checkpoint=args.resume_from_checkpoint)
    if trainer.is_world_process_zero():
        print(f"hf done: global_step={trainer.state.global_step}", flush=True)
    # The DDP wrapper inside the Trainer keeps gloo's threads running; tearing them down at
    # interpreter exit can abort a rank that finished (SIGABRT). Leave the group first.
    del trainer, model
    gc.collect()
    if torch.distributed.is_initialized():
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
