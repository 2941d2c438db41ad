"""`launchx diagnose` on the log directory of a real two-node run (two launchx on loopback,
two gloo ranks each), where one rank on node 1 is SIGKILLed mid-training: the report names
that rank and its node as the root and the other three as collateral."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, clean_env, free_port, run_cli

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


def _launchx_run(tmp_path: Path, script: str, retries: int) -> subprocess.CompletedProcess[str]:
    """``launchx run`` of ``script`` on two gloo ranks, its logs in tmp_path/logs."""
    (tmp_path / "script.py").write_text(script)
    return subprocess.run(
        [sys.executable, "-m", "launchx", "run", "-p", "local", "--nproc-per-node", "2",
         "--set", f"retry.max_retries={retries}", "--log-dir", str(tmp_path / "logs"),
         "script.py"],
        cwd=tmp_path, env=clean_env(PYTHONPATH=str(ROOT)), capture_output=True, text=True,
        timeout=180,
    )  # fmt: skip


def _plain_torchrun(tmp_path: Path, script: str, nproc: int) -> tuple[int, str]:
    """Run ``script`` under plain torchrun (no launchx), its console in console.log: the log
    a user of torchrun hands to ``launchx diagnose``."""
    (tmp_path / "script.py").write_text(script)
    with (tmp_path / "console.log").open("w") as out:
        run = subprocess.run(
            [sys.executable, "-m", "torch.distributed.run", "--standalone",
             "--nproc-per-node", str(nproc), str(tmp_path / "script.py")],
            cwd=tmp_path, env=clean_env(), stdout=out, stderr=subprocess.STDOUT, timeout=180,
        )  # fmt: skip
    return run.returncode, (tmp_path / "console.log").read_text()


def test_a_sigkilled_rank_on_node_one_is_the_root(tmp_path: Path) -> None:
    (tmp_path / "worker.py").write_text(WORKER)
    port = free_port()
    nodes = [_node(tmp_path, port, 1), _node(tmp_path, port, 0)]
    outputs = [p.communicate(timeout=180)[0] for p in nodes]
    assert all(p.returncode != 0 for p in nodes), outputs
    code, out, err = run_cli(["diagnose", "--json", str(tmp_path / "logs")])
    assert code == 0, out + err + "\n".join(outputs)
    doc = json.loads(out)
    assert (doc["primary"]["category"], doc["primary"]["rank"]) == ("killed", 2)
    roles = {r["rank"]: (r["role"], r["node"]) for r in doc["ranks"]}
    assert roles[2] == ("root", 1)
    assert {roles[r][0] for r in (0, 1, 3)} == {"collateral"}
    assert doc["first_failure"]["rank"] == 2


STUCK = """
import datetime, time
import torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
rank = dist.get_rank()
t = torch.ones(2)
for step in range(4):
    if rank == 2 and step == 2:
        print(f"rank {rank} step {step}: stuck in data loading", flush=True)
        time.sleep(120)
    dist.all_reduce(t)
    print(f"rank {rank} step {step} ok", flush=True)
"""


def test_plain_torchruns_gloo_timeout_names_the_rank_that_did_not_time_out(
    tmp_path: Path,
) -> None:
    """Plain torchrun, 3 gloo ranks, rank 2 stuck outside the collective: ranks 0 and 1 time
    out and torchrun names rank 0 (or 1) as the root, rank 2 as SIGTERMed. launchx diagnose
    on the console names rank 2, and the ranks that timed out as collateral."""
    returncode, console = _plain_torchrun(tmp_path, STUCK, 3)
    assert returncode != 0, console
    code, out, err = run_cli(["diagnose", "--json", str(tmp_path / "console.log")])
    assert code == 0, out + err + console
    doc = json.loads(out)
    timed_out = {r["rank"] for r in doc["ranks"] if r["summary"] and "Timed out" in r["summary"]}
    if timed_out != {0, 1}:
        pytest.skip(f"torchrun stopped a waiting rank before its timeout printed: {timed_out}")
    assert (doc["primary"]["category"], doc["primary"]["rank"]) == ("collective_timeout", 2)
    roles = {r["rank"]: r["role"] for r in doc["ranks"]}
    assert roles == {0: "collateral", 1: "collateral", 2: "root"}, doc["ranks"]


UNEVEN = """
import time
import torch, torch.distributed as dist
dist.init_process_group("gloo")
rank = dist.get_rank()
for step in range(5 if rank == 0 else 3):  # rank 1 has fewer batches
    dist.all_reduce(torch.ones(2))
    print(f"rank {rank} step {step}", flush=True)
    time.sleep(0.2)
print(f"rank {rank} done", flush=True)
"""


def test_a_rank_that_ran_out_of_batches_is_the_root(tmp_path: Path) -> None:
    """launchx run, 2 gloo ranks, uneven data: rank 1 exits 0 after 3 steps and rank 0's
    4th all-reduce finds its peer gone. torchrun names rank 0; the diagnosis names rank 1,
    which left first, and rank 0 as collateral."""
    run = _launchx_run(tmp_path, UNEVEN, retries=0)
    assert run.returncode != 0, run.stdout + run.stderr
    assert "launchx: failure: gloo_error on rank 1" in run.stdout, run.stdout + run.stderr
    code, out, err = run_cli(["diagnose", "--json", str(tmp_path / "logs")])
    assert code == 0, out + err
    doc = json.loads(out)
    assert (doc["primary"]["category"], doc["primary"]["rank"]) == ("gloo_error", 1)
    assert {r["rank"]: r["role"] for r in doc["ranks"]} == {0: "collateral", 1: "root"}


NO_GPU = """
import os
import torch, torch.distributed as dist
dist.init_process_group("gloo")
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))  # a script written for GPUs
print("on GPU", flush=True)
"""


def test_a_gpu_script_on_a_machine_without_cuda_is_the_machines_configuration(
    tmp_path: Path,
) -> None:
    """Plain torchrun of a script that picks its GPU, on this machine's CPU-only wheel (an
    AttributeError from torch's C binding, not the script's own): the CUDA configuration
    diagnosis, worded for a machine without a usable GPU, not a bug in the script."""
    returncode, console = _plain_torchrun(tmp_path, NO_GPU, 2)
    if returncode == 0:
        pytest.skip("this machine has a usable GPU")
    code, out, err = run_cli(["diagnose", "--json", str(tmp_path / "console.log")])
    assert code == 0, out + err + console
    primary = json.loads(out)["primary"]
    assert (primary["code"], primary["category"]) == ("LX540", "cuda_config_error"), primary
    assert primary["cause"].find("see no usable GPU") >= 0, primary["cause"]
    assert "torch.version.cuda" in primary["fix"] and not primary["retryable"]


WORLD_OF_THREE = """
import datetime
import torch.distributed as dist
# a world size written into the script, larger than the launch
dist.init_process_group("gloo", world_size=3, timeout=datetime.timedelta(seconds=5))
print("joined", flush=True)
"""


def test_a_script_asking_for_more_ranks_than_were_started_is_not_retried(tmp_path: Path) -> None:
    """launchx run starts 2 gloo ranks of a script that asks init_process_group for 3: the
    store's wait names rank 2, which was never started, so the run ends at once as the
    script's world size (LX826, not retried although retries are allowed), and `launchx
    diagnose` of its log directory, which reads the world from the run's events, says so
    too."""
    run = _launchx_run(tmp_path, WORLD_OF_THREE, retries=2)
    out = run.stdout + run.stderr
    assert run.returncode != 0, out
    assert "launchx: failure: world_mismatch" in run.stdout, out
    assert "the launcher started ranks 0-1" in run.stdout, out
    assert not (tmp_path / "logs" / "attempt-1").exists(), out
    code, out, err = run_cli(["diagnose", "--json", str(tmp_path / "logs")])
    assert code == 0, out + err
    primary = json.loads(out)["primary"]
    assert (primary["code"], primary["retryable"]) == ("LX826", False), primary


def test_torchruns_own_exception_is_the_launchers_not_the_scripts(tmp_path: Path) -> None:
    """Plain torchrun given a node range it cannot use (--nnodes=2:1) raises in its own
    config_from_args before any rank starts: the diagnosis is the launcher's (LX827, not
    retried), not an exception of the user's script (LX511)."""
    (tmp_path / "script.py").write_text("print('never runs')\n")
    with (tmp_path / "console.log").open("w") as out:
        run = subprocess.run(
            [sys.executable, "-m", "torch.distributed.run", "--nnodes=2:1",
             "--nproc-per-node", "1", str(tmp_path / "script.py")],
            cwd=tmp_path, env=clean_env(), stdout=out, stderr=subprocess.STDOUT, timeout=120,
        )  # fmt: skip
    console = (tmp_path / "console.log").read_text()
    assert run.returncode != 0 and "never runs" not in console, console
    code, out, err = run_cli(["diagnose", "--json", str(tmp_path / "console.log")])
    assert code == 0, out + err + console
    primary = json.loads(out)["primary"]
    assert (primary["code"], primary["category"]) == ("LX827", "launcher_died"), primary
    assert not primary["retryable"]
