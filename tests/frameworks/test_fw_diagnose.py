"""`launchx diagnose` of the console a framework's own launcher leaves, no launchx in the
run: `accelerate launch` (torch's elastic agent inside accelerate's command, its summary
under accelerate's traceback) and Lightning's DDP (the script starts its own ranks, so
there is no launcher summary at all). Rank 1 raises a KeyError mid-run on two CPU ranks;
rank 0 then dies in gloo's all-gather or all-reduce. The report must name rank 1 as the
root with its exception, and rank 0 as collateral, not the first traceback in the file.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli
from fwkit import base_env, require

pytestmark = pytest.mark.frameworks

ACCELERATE = """
import time
import torch
from accelerate import Accelerator
acc = Accelerator(cpu=True)
for step in range(6):
    gathered = acc.gather(torch.ones(2) * acc.process_index)
    acc.print(f"step {step} gathered {gathered.tolist()}")
    if step == 2 and acc.process_index == 1:
        raise KeyError("missing_label")
    time.sleep(0.2)
"""

LIGHTNING = """
import torch
import lightning as L
class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 1)
    def training_step(self, batch, index):
        if self.global_rank == 1 and index == 3:
            raise KeyError("missing_label")
        return self.layer(batch).sum()
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)
if __name__ == "__main__":
    data = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=4)
    trainer = L.Trainer(accelerator="cpu", devices=2, strategy="ddp", max_steps=8,
                        logger=False, enable_checkpointing=False, enable_progress_bar=False)
    trainer.fit(Model(), data)
"""


def _console(tmp_path: Path, script: str, argv: list[str]) -> tuple[int, Path]:
    """Run the framework's own launch of ``script``; its whole console in console.log."""
    (tmp_path / "script.py").write_text(script)
    console = tmp_path / "console.log"
    with console.open("w") as out:
        run = subprocess.run(
            [*argv, str(tmp_path / "script.py")],
            cwd=tmp_path,
            env=base_env(tmp_path),
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=240,
        )
    return run.returncode, console


@pytest.mark.parametrize("framework", ["accelerate", "lightning"])
def test_the_rank_that_raised_is_the_root_in_the_frameworks_own_console(
    tmp_path: Path, framework: str
) -> None:
    require(framework)
    if framework == "accelerate":
        accelerate = str(Path(sys.executable).parent / "accelerate")
        argv = [accelerate, "launch", "--multi_gpu", "--num_processes", "2"]
        argv += ["--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no"]
        code, console = _console(tmp_path, ACCELERATE, argv)
    else:
        code, console = _console(tmp_path, LIGHTNING, [sys.executable])
    text = console.read_text()
    assert code != 0 and "KeyError: 'missing_label'" in text, text[-3000:]
    rc, out, err = run_cli(["diagnose", "--json", str(console)])
    assert rc == 0, out + err
    doc = json.loads(out)
    primary = doc["primary"]
    assert (primary["code"], primary["rank"], primary["retryable"]) == ("LX511", 1, False)
    assert any("KeyError: 'missing_label'" in line for line in primary["evidence"]), primary
    roles = {r["rank"]: r["role"] for r in doc["ranks"]}
    assert roles == {0: "collateral", 1: "root"}, doc["ranks"]
