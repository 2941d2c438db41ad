"""A tiny Lightning DDP script, written the way users write them.

A linear model on synthetic data, ``ModelCheckpoint`` every few steps with ``last.ckpt``,
and the one line that resumes it: ``trainer.fit(model, ckpt_path=LAUNCHX_RESUME_FROM)``.
Under launchx (torchrun) Lightning sees TorchElastic and joins the world it was given;
``devices`` is this node's rank count, as Lightning checks against ``WORLD_SIZE``.

Test hooks, through the environment only: ``FW_EVIDENCE`` (a directory: ``start.<attempt>.
<rank>`` holds the first global step trained, ``pid.<attempt>.<rank>`` the pid) and
``FW_PAUSE_AT`` (on attempt 0, rank ``FW_PAUSE_RANK`` (1) writes ``paused.<pid>`` after that
step and waits up to 60 s for the test to signal it, then exits 3); ``FW_ABORT_AFTER_FIT``
(a rank: it aborts once fit() returned, a crash at exit after the training finished).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import lightning as L
import torch
from lightning.pytorch.callbacks import Callback, ModelCheckpoint, TQDMProgressBar
from torch.utils.data import DataLoader, TensorDataset


class Tiny(L.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(8, 1)

    def training_step(self, batch, batch_idx):  # type: ignore[no-untyped-def]
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.layer(x), y)
        self.log("loss", loss, prog_bar=True)
        return loss

    def configure_optimizers(self):  # type: ignore[no-untyped-def]
        return torch.optim.SGD(self.parameters(), lr=0.05)


class Evidence(Callback):
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

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):  # type: ignore[no-untyped-def]
        if not self.started:
            self.started = True
            self._write(f"start.{self.attempt}.{self.rank}", str(trainer.global_step))
            self._write(f"pid.{self.attempt}.{self.rank}", str(os.getpid()))

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):  # type: ignore[no-untyped-def]
        if (
            self.pause_at
            and trainer.global_step == self.pause_at
            and self.attempt == "0"
            and self.rank == self.pause_rank
        ):
            self._write(f"paused.{os.getpid()}", str(trainer.global_step))
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                time.sleep(0.05)
            sys.exit(3)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt-dir", required=True)
    parser.add_argument("--max-steps", type=int, default=30)
    parser.add_argument("--every", type=int, default=5)
    parser.add_argument("--tqdm", action="store_true", help="tqdm bars instead of Rich's")
    args = parser.parse_args()
    L.seed_everything(0, verbose=False)
    data = TensorDataset(torch.randn(512, 8), torch.randn(512, 1))
    trainer = L.Trainer(
        accelerator="cpu",
        devices=int(os.environ.get("LOCAL_WORLD_SIZE", "1")),
        num_nodes=int(os.environ.get("GROUP_WORLD_SIZE", "1")),
        strategy="ddp",
        max_steps=args.max_steps,
        logger=False,
        enable_model_summary=False,
        callbacks=[
            ModelCheckpoint(
                dirpath=args.ckpt_dir,
                every_n_train_steps=args.every,
                save_top_k=-1,
                save_last=True,
            ),
            Evidence(),
            *([TQDMProgressBar(refresh_rate=1)] if args.tqdm else []),
        ],
    )
    trainer.fit(
        Tiny(),
        DataLoader(data, batch_size=8),
        ckpt_path=os.environ.get("LAUNCHX_RESUME_FROM"),
    )
    if os.environ.get("FW_ABORT_AFTER_FIT") == os.environ.get("RANK"):
        os.abort()  # SIGABRT after the training finished, as a teardown crash ends it
    if trainer.is_global_zero:
        print(f"lightning done: global_step={trainer.global_step}", flush=True)


if __name__ == "__main__":
    main()
