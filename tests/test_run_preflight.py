"""``launchx run --preflight``: every node is checked before the first attempt, and a run
whose nodes differ never starts. The check itself (what it compares and measures) is
tested in test_preflight_*.py; here, how ``run`` uses it: two loopback "nodes", each its
own ``launchx run`` (the helpers of test_recovery.py), real torchrun when the check
passes. The srun path (the check as an srun step of ``launchx doctor``) runs on the real
cluster in test_slurm_e2e.py; its command line is checked here."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, clean_env, free_pair
from hosts.variants import materialize
from test_plan import resolved
from test_recovery import node_of_two, summary_rows

from launchx import pipeline, plan
from launchx.run.events import read_run_events

TOY = ROOT / "examples" / "train_toy.py"
BATCH = {
    "SLURM_JOB_ID": "7",
    "SLURM_JOB_NODELIST": "n[1-2]",
    "SLURM_NNODES": "2",
    "SLURM_NODEID": "0",
    "SLURM_NTASKS": "2",
    "SLURM_TASKS_PER_NODE": "1(x2)",
    "SLURM_CPUS_PER_TASK": "8",
}


# --------------------------------------------------------------------------- pure


def test_the_run_options_become_the_doctor_steps_settings() -> None:
    request = pipeline.Request(
        profile="slurm",
        sets=("NCCL_DEBUG=INFO",),
        flags={"nproc_per_node": "4", "launcher": "srun", "resume.checkpoint_dir": "/ck"},
    )
    assert pipeline.doctor_args(request) == (
        "-p",
        "slurm",
        "--set",
        "NCCL_DEBUG=INFO",
        "--set",
        "nproc_per_node=4",
        "--set",
        "resume.checkpoint_dir=/ck",
    )


def test_the_switch_is_repeated_without_a_value() -> None:
    request = pipeline.Request(
        flags={"preflight.enabled": "true", "nnodes": "2"},
        flag_names={"preflight.enabled": "--preflight", "nnodes": "--nnodes"},
    )
    assert pipeline.relaunch_args(request, None, skip=()) == ("--preflight", "--nnodes", "2")


def test_under_srun_the_check_is_one_doctor_per_node() -> None:
    sets = {"preflight.enabled": "true", "preflight.join_timeout_s": "30"}
    res = resolved("slurm", BATCH, flags=sets)
    argv = plan.preflight_srun_argv(res, ("-p", "slurm"))
    assert argv == (
        "srun",
        "--nodes=2",
        "--ntasks-per-node=1",
        "--kill-on-bad-exit=0",
        "--cpus-per-task=8",
        "/usr/bin/python3",
        "-m",
        "launchx",
        "doctor",
        "-p",
        "slurm",
        "--join-timeout",
        "30",
    )
    no_comm = resolved("slurm", BATCH, flags={**sets, "preflight.comm": "false"})
    assert plan.preflight_srun_argv(no_comm, ())[-1] == "--no-comm"


# --------------------------------------------------------------------------- two nodes


def two_nodes(tmp_path: Path, roots: tuple[Path | None, Path | None], *options: str) -> list:
    """Both nodes with ``--preflight``, each reading its own host tree (None: this host)."""
    port = free_pair()  # node 0's channel: MASTER_PORT + 1
    toy = [str(TOY), "--checkpoint-dir", str(tmp_path / "ck"), "--steps", "10"]
    runs = []
    for rank in (1, 0):
        root = roots[rank]
        env = {"LAUNCHX_HOST_ROOT": str(root)} if root else {}
        runs.append(node_of_two(tmp_path, port, rank, ["--preflight", *options, *toy], **env))
    return [run.finish(timeout=150) for run in reversed(runs)]


@pytest.mark.torchrun
def test_nodes_that_pass_the_check_then_train(tmp_path: Path) -> None:
    (c0, t0), (c1, t1) = two_nodes(tmp_path, (None, None))
    assert (c0, c1) == (0, 0), f"node 0:\n{t0}\n\nnode 1:\n{t1}"
    # Node 0 prints the report (the gloo link test included), then both train.
    assert "preflight: 2 of 2 nodes" in t0 and "link test" in t0, t0
    assert "preflight: 2 of 2 nodes" not in t1
    for text in (t0, t1):
        assert "launchx: preflight passed" in text
        assert text.index("launchx: preflight passed") < text.index("launchx: profile local")
        assert [r[2] for r in summary_rows(text)] in ([], ["ok"])
    assert "[toy] done steps=10" in t0
    events = [
        json.loads(x) for x in (tmp_path / "logs" / "events.jsonl").read_text().split("\n") if x
    ]
    assert [e["exit_code"] for e in events if e["event"] == "preflight"] == [0]


@pytest.mark.torchrun
def test_a_node_with_fewer_gpus_stops_the_run_before_it_starts(tmp_path: Path) -> None:
    roots = (materialize("h800-a", tmp_path), materialize("h800-c-7gpu", tmp_path))
    (c0, t0), (c1, t1) = two_nodes(
        tmp_path, roots, "-p", "ib-h800", "--set", "preflight.comm=false"
    )
    assert (c0, c1) == (2, 2), f"node 0:\n{t0}\n\nnode 1:\n{t1}"
    assert "7 GPUs on node 1 (h800-c); 8 GPUs on node 0 (h800-a)" in t0, t0
    for text in (t0, t1):
        assert "launchx: preflight failed (exit 2): not starting" in text, text
        assert "launchx: profile" not in text  # no attempt started
    assert not (tmp_path / "ck").exists()


def test_the_dry_run_shows_the_check(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "launchx", "run", "--dry-run", "--json", "--preflight"]
    argv += ["--set", "preflight.comm=false", str(TOY)]
    out = subprocess.run(argv, cwd=tmp_path, env=clean_env(), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    check = json.loads(out.stdout)["preflight"]
    assert check[1:4] == ["-m", "launchx", "doctor"] and check[-1] == "--no-comm"
    argv = [*argv[:6], str(TOY)]  # without --preflight
    plain = subprocess.run(argv, cwd=tmp_path, env=clean_env(), capture_output=True, text=True)
    assert json.loads(plain.stdout)["preflight"] is None


@pytest.mark.torchrun
def test_ctrl_c_while_waiting_for_the_other_nodes_stops_at_once(tmp_path: Path) -> None:
    """Node 0 waits up to a minute for node 1, who never comes; Ctrl-C ends the wait at
    once, as an interrupt (130), before any attempt."""
    run = node_of_two(tmp_path, free_pair(), 0, ["--preflight", str(TOY), "--steps", "5"])
    run.wait_for("launchx: preflight: checking 2 nodes")
    time.sleep(0.5)  # into the wait for node 1
    os.killpg(run.proc.pid, signal.SIGINT)
    code, text = run.finish(timeout=30)
    assert code == 130, text
    assert "launchx: interrupted during the preflight" in text
    assert "launchx: profile" not in text and "Traceback" not in text
    # the run's record says so too: an interrupt, with the time it ran, not a failure
    end = read_run_events(tmp_path / "logs")[-1]
    assert (end["event"], end["reason"], end["exit_code"]) == ("run_end", "interrupted", 130)
    assert end["ended"] == "interrupted"
    assert isinstance(end["duration_s"], float) and end["duration_s"] > 0
