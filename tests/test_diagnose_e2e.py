"""`launchx diagnose` on the log directory of a real two-node run (two launchx on loopback,
two gloo ranks each), where one rank on node 1 is SIGKILLed mid-training: the report names
that rank and its node as the root and the other three as collateral."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, clean_env, free_port

pytestmark = pytest.mark.torchrun

WORKER = """
import datetime, os, signal, time
import torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
t = torch.ones(2)
for step in range(6):
    if rank == 2 and step == 3:
        print(f"rank {rank} step {step}: killing myself", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    dist.all_reduce(t)
    print(f"rank {rank} step {step} ok", flush=True)
    time.sleep(0.2)
"""


def _node(tmp_path: Path, port: int, node: int) -> subprocess.Popen[str]:
    argv = [
        sys.executable, "-m", "launchx", "run", "-p", "local",
        "--nnodes", "2", "--nproc-per-node", "2", "--node-rank", str(node),
        "--master-addr", "127.0.0.1", "--master-port", str(port),
        "--set", "retry.max_retries=0", "--set", "timeouts.rdzv_timeout_s=30",
        "--log-dir", str(tmp_path / "logs"),
        str(tmp_path / "worker.py"),
    ]  # fmt: skip
    return subprocess.Popen(
        argv,
        cwd=tmp_path,
        env=clean_env(PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_a_sigkilled_rank_on_node_one_is_the_root(tmp_path: Path) -> None:
    (tmp_path / "worker.py").write_text(WORKER)
    port = free_port()
    nodes = [_node(tmp_path, port, 1), _node(tmp_path, port, 0)]
    outputs = [p.communicate(timeout=180)[0] for p in nodes]
    assert all(p.returncode != 0 for p in nodes), outputs
    done = subprocess.run(
        [sys.executable, "-m", "launchx", "diagnose", "--json", str(tmp_path / "logs")],
        env=clean_env(PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr + "\n".join(outputs)
    doc = json.loads(done.stdout)
    assert (doc["primary"]["category"], doc["primary"]["rank"]) == ("killed", 2)
    roles = {r["rank"]: (r["role"], r["node"]) for r in doc["ranks"]}
    assert roles[2] == ("root", 1)
    assert {roles[r][0] for r in (0, 1, 3)} == {"collateral"}
    assert doc["first_failure"]["rank"] == 2
