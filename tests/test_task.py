"""``python -m launchx.task``: SLURM task variables → torch rank variables, then exec."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from launchx.autovalues import derived_master_port
from launchx.errors import ConfigError
from launchx.task import EPHEMERAL_RANGE, task_env

# What srun gives task 5 of `srun -N2 --ntasks-per-node=4` (nodes gpu[07-08]), from
# env-vars.md §4 and the tasks observed on the local cluster.
STEP = {
    "SLURM_JOB_ID": "4242",
    "SLURM_JOB_NODELIST": "gpu[07-08]",
    "SLURM_STEP_NODELIST": "gpu[07-08]",
    "SLURM_NNODES": "2",
    "SLURM_STEP_NUM_NODES": "2",
    "SLURM_NTASKS": "8",
    "SLURM_STEP_NUM_TASKS": "8",
    "SLURM_TASKS_PER_NODE": "4(x2)",
    "SLURM_STEP_TASKS_PER_NODE": "4(x2)",
    "SLURM_PROCID": "5",
    "SLURM_LOCALID": "1",
    "SLURM_NODEID": "1",
}
PORT = str(derived_master_port("4242", EPHEMERAL_RANGE))


def _with(**changes: str | None) -> dict[str, str]:
    env = dict(STEP)
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


# (case, environment, expected subset of task_env's result)
MAPPING = [
    ("rank from SLURM_PROCID", STEP, {"RANK": "5"}),
    ("local rank from SLURM_LOCALID", STEP, {"LOCAL_RANK": "1"}),
    ("world from the step's task count", STEP, {"WORLD_SIZE": "8"}),
    ("world falls back to SLURM_NTASKS", _with(SLURM_STEP_NUM_TASKS=None), {"WORLD_SIZE": "8"}),
    ("step task count beats the job's", _with(SLURM_NTASKS="16"), {"WORLD_SIZE": "8"}),
    (
        "local world from tasks on this node",
        _with(SLURM_STEP_TASKS_PER_NODE="3,5", SLURM_NTASKS="8"),
        {"LOCAL_WORLD_SIZE": "5"},
    ),
    (
        "local world falls back to the job's per-node list",
        _with(SLURM_STEP_TASKS_PER_NODE=None, SLURM_TASKS_PER_NODE="2,6"),
        {"LOCAL_WORLD_SIZE": "6"},
    ),
    ("node rank from SLURM_NODEID", STEP, {"GROUP_RANK": "1", "NODE_RANK": "1"}),
    ("group world from the step's nodes", STEP, {"GROUP_WORLD_SIZE": "2"}),
    ("master is the first host", STEP, {"MASTER_ADDR": "gpu07"}),
    (
        "master from the step's nodes, not the job's",
        _with(SLURM_JOB_NODELIST="gpu[01-08]"),
        {"MASTER_ADDR": "gpu07"},
    ),
    (
        "master falls back to the job's list",
        _with(SLURM_STEP_NODELIST=None, SLURM_JOB_NODELIST="cpu-a[3-4]"),
        {"MASTER_ADDR": "cpu-a3"},
    ),
    ("port derived from the job id", STEP, {"MASTER_PORT": PORT}),
    (
        "inherited RANK is overridden",
        _with(RANK="0", WORLD_SIZE="1"),
        {"RANK": "5", "WORLD_SIZE": "8"},
    ),
]


@pytest.mark.parametrize(
    ("env", "expected"), [(e, x) for _, e, x in MAPPING], ids=[c for c, _, _ in MAPPING]
)
def test_mapping(env: dict[str, str], expected: dict[str, str]) -> None:
    out = task_env(env)
    assert {k: out.get(k) for k in expected} == expected


def test_master_kept_when_set() -> None:
    out = task_env(_with(MASTER_ADDR="10.0.0.9", MASTER_PORT="29555"))
    assert "MASTER_ADDR" not in out and "MASTER_PORT" not in out


def test_port_outside_ephemeral_and_differs_by_job() -> None:
    port = int(task_env(STEP)["MASTER_PORT"])
    assert not EPHEMERAL_RANGE[0] <= port <= EPHEMERAL_RANGE[1]
    other = int(task_env(_with(SLURM_JOB_ID="4243"))["MASTER_PORT"])
    assert other != port


def test_every_task_of_a_step_agrees_on_master() -> None:
    seen = set()
    for procid in range(8):
        env = _with(
            SLURM_PROCID=str(procid), SLURM_LOCALID=str(procid % 4), SLURM_NODEID=str(procid // 4)
        )
        out = task_env(env)
        seen.add((out["MASTER_ADDR"], out["MASTER_PORT"]))
    assert len(seen) == 1


@pytest.mark.parametrize(
    ("env", "words"),
    [
        (_with(SLURM_PROCID=None), "SLURM_PROCID"),
        (_with(SLURM_LOCALID="x"), "not a whole number"),
        (_with(SLURM_STEP_NUM_TASKS=None, SLURM_NTASKS=None), "SLURM_NTASKS"),
        (_with(SLURM_PROCID="8"), "inconsistent"),
        (_with(SLURM_STEP_TASKS_PER_NODE="4"), "no entry for node 1"),
        (_with(SLURM_STEP_NODELIST="gpu[07-"), "host list"),
        ({}, "not a SLURM task"),
    ],
)
def test_refusals(env: dict[str, str], words: str) -> None:
    with pytest.raises(ConfigError, match=words.replace("[", r"\[")):
        task_env(env)


def test_4096_nodes() -> None:
    env = _with(
        SLURM_STEP_NODELIST="gpu[0001-4096]",
        SLURM_STEP_NUM_NODES="4096",
        SLURM_STEP_NUM_TASKS=str(4096 * 8),
        SLURM_STEP_TASKS_PER_NODE="8(x4096)",
        SLURM_PROCID=str(4096 * 8 - 1),
        SLURM_LOCALID="7",
        SLURM_NODEID="4095",
    )
    out = task_env(env)
    assert out["MASTER_ADDR"] == "gpu0001" and out["LOCAL_WORLD_SIZE"] == "8"


# ------------------------------------------------------------------------ real process


def _shim(*cmd: str, env: dict[str, str]) -> subprocess.Popen[str]:
    full_env = {"PATH": os.environ["PATH"], **env}
    return subprocess.Popen(
        [sys.executable, "-m", "launchx.task", "--", *cmd],
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_exec_replaces_the_process() -> None:
    code = (
        "import json, os; print(json.dumps({'pid': os.getpid(), 'env': {k: os.environ[k] "
        "for k in ('RANK', 'LOCAL_RANK', 'WORLD_SIZE', 'LOCAL_WORLD_SIZE', 'MASTER_ADDR', "
        "'MASTER_PORT', 'SLURM_PROCID')}}))"
    )
    proc = _shim(sys.executable, "-c", code, env=STEP)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    seen = json.loads(out)
    # Same pid: the command replaced the shim instead of running as its child.
    assert seen["pid"] == proc.pid
    assert seen["env"] == {
        "RANK": "5",
        "LOCAL_RANK": "1",
        "WORLD_SIZE": "8",
        "LOCAL_WORLD_SIZE": "4",
        "MASTER_ADDR": "gpu07",
        "MASTER_PORT": PORT,
        "SLURM_PROCID": "5",
    }


def test_exit_code_is_the_commands() -> None:
    proc = _shim("sh", "-c", "exit 7", env=STEP)
    proc.communicate(timeout=60)
    assert proc.returncode == 7


def test_missing_command_is_127() -> None:
    proc = _shim("/nonexistent/launchx-no-such-program", env=STEP)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 127 and "cannot run" in err


def test_outside_slurm_is_refused_with_exit_2() -> None:
    proc = _shim("true", env={})
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "not a SLURM task" in err and "fix:" in err


def test_no_command_is_refused() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "launchx.task", "--"], env=STEP, stderr=subprocess.PIPE, text=True
    )
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "no command" in err


def test_partial_step_uses_the_step_node_index() -> None:
    """srun -w n3 inside a 4-node job: SLURM_NODEID is 2 (job-wide) but the step has one node."""
    from launchx.task import task_env

    env = {
        "SLURM_PROCID": "0",
        "SLURM_LOCALID": "0",
        "SLURM_STEP_NUM_TASKS": "1",
        "SLURM_NODEID": "2",
        "SLURM_STEP_NUM_NODES": "1",
        "SLURM_STEP_TASKS_PER_NODE": "1",
        "SLURM_STEP_NODELIST": "n3",
        "SLURMD_NODENAME": "n3",
        "SLURM_JOB_ID": "5",
        "SLURM_JOB_NODELIST": "n[1-4]",
    }
    out = task_env(env)
    assert (out["NODE_RANK"], out["LOCAL_WORLD_SIZE"], out["MASTER_ADDR"]) == ("0", "1", "n3")
