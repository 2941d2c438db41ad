"""Against the real local SLURM cluster (``scripts/slurm-local.sh start``): host lists, the
per-task shim under srun, a gloo all-reduce across two SLURM "nodes", and rendered batch
scripts submitted, waited for and requeued.

Skipped when the cluster is not up, failed instead under ``CI=true`` (see slurm_fixtures).
Every job runs under the test's unique job name and is cancelled at teardown.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from slurm_fixtures import SlurmCluster, SlurmJobs  # the fixtures come in via conftest

from launchx.errors import SubmitError
from launchx.hostlist import expand
from launchx.profile_model import Profile, Slurm
from launchx.slurm import frozen_profile_yaml, merge_options, render_sbatch
from launchx.slurm_client import parse_job_record, requeue, submit, wait_for_job

pytestmark = pytest.mark.slurm
REPO = Path(__file__).resolve().parents[1]

PRINT_ENV = (
    "import json, os; print(json.dumps({k: os.environ.get(k) for k in ('RANK', "
    "'LOCAL_RANK', 'WORLD_SIZE', 'LOCAL_WORLD_SIZE', 'NODE_RANK', 'MASTER_ADDR', "
    "'MASTER_PORT', 'SLURMD_NODENAME', 'SLURM_JOB_NODELIST')}), flush=True)"
)

ALL_REDUCE = """
import os, sys, torch, torch.distributed as dist
dist.init_process_group("gloo")
t = torch.tensor([float(dist.get_rank() + 1)])
dist.all_reduce(t)
dist.barrier()
path = os.path.join(sys.argv[1], f"rank{dist.get_rank()}.json")
with open(path, "w") as f:
    f.write(f'{{"rank": {dist.get_rank()}, "world": {dist.get_world_size()}, "sum": {t.item()}}}')
dist.destroy_process_group()
"""


def _srun(jobs: SlurmJobs, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    argv = ["srun", f"--job-name={jobs.name}", "--immediate=60", "--time=3", *args]
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout, cwd=REPO, check=False
    )


def _poll(predicate: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(0.1)


# ------------------------------------------------------------------------ host lists


def _random_nodelist(rng: random.Random) -> str:
    """Host lists of the shapes SLURM itself writes (scontrol 22.05 rejects text after the
    last bracket, so none is generated)."""
    parts = []
    for _ in range(rng.randint(1, 4)):
        prefix = rng.choice(["gpu", "n", "node-a", "rack1-n", "x9y", "c"])
        kind = rng.random()
        if kind < 0.2:
            parts.append(f"{prefix}{rng.randint(0, 99)}")
            continue
        groups = 2 if kind > 0.85 else 1
        expr = prefix
        for g in range(groups):
            width = rng.choice([1, 2, 3, 4])
            items = []
            for _ in range(rng.randint(1, 3)):
                lo = rng.randint(0, 40)
                hi = lo + rng.randint(0, 12)
                items.append(f"{lo:0{width}d}" if lo == hi else f"{lo:0{width}d}-{hi:0{width}d}")
            expr += f"[{','.join(items)}]" + ("-s" if g == 0 and groups == 2 else "")
        parts.append(expr)
    return ",".join(parts)


@pytest.mark.parametrize("seed", range(20))
def test_expand_matches_scontrol(slurm_cluster: SlurmCluster, seed: int) -> None:
    nodelist = _random_nodelist(random.Random(seed))
    proc = subprocess.run(
        ["scontrol", "show", "hostnames", nodelist],
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert expand(nodelist) == tuple(proc.stdout.split()), nodelist


# ------------------------------------------------------------------------ launchx.task


@pytest.mark.parametrize(("nodes", "per_node"), [(2, 1), (2, 2), (1, 2)])
def test_task_shim_under_srun(
    slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs, nodes: int, per_node: int
) -> None:
    if len(slurm_cluster.nodes) < nodes:
        message = f"needs {nodes} nodes (LAUNCHX_SLURM_NODES={nodes})"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)  # CI starts two nodes: fewer is a broken cluster, not a skip
        pytest.skip(message)
    proc = _srun(
        slurm_jobs,
        f"--nodes={nodes}",
        f"--ntasks-per-node={per_node}",
        sys.executable,
        "-m",
        "launchx.task",
        "--",
        sys.executable,
        "-c",
        PRINT_ENV,
    )
    assert proc.returncode == 0, proc.stderr
    tasks = [json.loads(line) for line in proc.stdout.splitlines()]
    world = nodes * per_node
    assert sorted(int(t["RANK"]) for t in tasks) == list(range(world))
    assert {t["WORLD_SIZE"] for t in tasks} == {str(world)}
    assert {t["LOCAL_WORLD_SIZE"] for t in tasks} == {str(per_node)}
    # One master for everyone: the first host of the allocation, the job-derived port.
    assert len({(t["MASTER_ADDR"], t["MASTER_PORT"]) for t in tasks}) == 1
    assert tasks[0]["MASTER_ADDR"] == expand(tasks[0]["SLURM_JOB_NODELIST"])[0]
    hosts = expand(tasks[0]["SLURM_JOB_NODELIST"])
    for t in tasks:
        # node rank is where the task really ran; local ranks are dense per node
        assert hosts[int(t["NODE_RANK"])] == t["SLURMD_NODENAME"]
        assert int(t["RANK"]) // per_node == int(t["NODE_RANK"])
        assert int(t["LOCAL_RANK"]) == int(t["RANK"]) % per_node


def test_gloo_all_reduce_two_nodes(
    slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs, tmp_path: Path
) -> None:
    nodes = min(2, len(slurm_cluster.nodes))
    proc = _srun(
        slurm_jobs,
        f"--nodes={nodes}",
        "--ntasks=2",
        sys.executable,
        "-m",
        "launchx.task",
        "--",
        sys.executable,
        "-c",
        ALL_REDUCE,
        str(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr
    results = sorted(
        (json.loads(p.read_text()) for p in tmp_path.glob("rank*.json")), key=lambda r: r["rank"]
    )
    assert results == [{"rank": 0, "world": 2, "sum": 3.0}, {"rank": 1, "world": 2, "sum": 3.0}]


def test_noop_example_under_srun(slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs) -> None:
    noop = REPO / "examples" / "noop.py"
    proc = _srun(
        slurm_jobs,
        "--ntasks=2",
        sys.executable,
        "-m",
        "launchx.task",
        "--",
        sys.executable,
        str(noop),
    )
    assert proc.returncode == 0, proc.stderr
    assert "world=2 ok" in proc.stdout


# ------------------------------------------------------------------------ sbatch


def _stub(tmp: Path) -> Path:
    """Stands in for the python that would run ``launchx run``: records its argv and the
    restart count, then exits with $STUB_EXIT (or waits for a requeue on the first run)."""
    # No space in the name: proctrack/linuxproc cannot parse /proc/PID/stat when the command
    # name has one, never sees the process, and a cancel or requeue then waits for it to end
    # on its own (measured: 66 s of COMPLETING).
    stub = tmp / "fake-python"
    stub.write_text(r"""#!/bin/bash
printf '%s\0' "$@" > "$SLURM_SUBMIT_DIR/argv.$SLURM_JOB_ID.bin"
echo "run restart=${SLURM_RESTART_COUNT-unset} host=$SLURMD_NODENAME"
if [[ -n ${STUB_WAIT_FOR_REQUEUE-} && -z ${SLURM_RESTART_COUNT-} ]]; then
  touch "$SLURM_SUBMIT_DIR/started"
  for _ in $(seq 600); do sleep 0.1; done  # killed by the requeue long before this ends
  exit 9
fi
exit "${STUB_EXIT:-0}"
""")
    stub.chmod(0o755)
    return stub


def _script(
    tmp: Path, slurm: Slurm, flags: dict[str, object], script_argv: list[str]
) -> tuple[str, str]:
    profile = Profile(name="cluster-test", slurm=slurm)
    opts, _ = merge_options(profile.slurm, flags, profile_name=profile.name)
    frozen = frozen_profile_yaml(profile, opts)
    text = render_sbatch(
        options=opts,
        profile_name=profile.name,
        frozen_profile_yaml=frozen,
        launchx_argv=("--retries", "0"),
        script_argv=script_argv,
        version="test",
        command_line="pytest",
        python=str(_stub(tmp)),
    )
    return text, frozen


def test_submit_and_wait(
    slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs, tmp_path: Path
) -> None:
    # The job name carries quotes and shell syntax: sbatch must read back exactly this.
    name = f'{slurm_jobs.name} it\'s "q" $(x) `y`;z'
    args = ["train.py", "a b", "$(touch PWNED)", "line1\nline2", "*"]
    text, frozen = _script(
        tmp_path,
        Slurm(),
        dict(job_name=name, output=str(tmp_path / "job-%j.out"), time="2"),
        args,
    )
    job_id = slurm_jobs.track(submit(text, workdir=tmp_path))
    record = parse_job_record(
        subprocess.run(
            ["scontrol", "show", "job", "-o", job_id],
            capture_output=True,
            text=True,
            check=True,
            timeout=20,
        ).stdout
    )
    assert record["JobId"] == job_id
    code = wait_for_job(job_id, poll_s=0.2, timeout_s=90)
    assert code == 0
    argv = (tmp_path / f"argv.{job_id}.bin").read_bytes().decode().split("\0")[:-1]
    profile_path = tmp_path / ".launchx" / job_id / "profile.yaml"
    assert argv == ["-m", "launchx", "run", "-p", str(profile_path), "--retries", "0", "--", *args]
    assert profile_path.read_text() == frozen
    assert not (tmp_path / "PWNED").exists()
    # SLURM_RESTART_COUNT is unset on a first run (measured; the man page says 0)
    assert "run restart=unset" in (tmp_path / f"job-{job_id}.out").read_text()


def test_job_name_round_trips_through_sbatch(
    slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs, tmp_path: Path
) -> None:
    name = f'{slurm_jobs.name} it\'s "q" $(x) `y`;z'
    text, _ = _script(
        tmp_path,
        Slurm(),
        dict(
            job_name=name,
            output=str(tmp_path / "o-%j.out"),
            sbatch_args=("--hold", "--comment=a b 'c'"),
        ),
        ["t.py"],
    )
    job_id = slurm_jobs.track(submit(text, workdir=tmp_path))
    out = subprocess.run(
        ["squeue", "-h", "-j", job_id, "-o", "%j|%k"],
        capture_output=True,
        text=True,
        check=True,
        timeout=20,
    ).stdout.rstrip("\n")
    assert out == f"{name}|a b 'c'"


def test_exit_code_reaches_wait(
    slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs, tmp_path: Path
) -> None:
    text, _ = _script(
        tmp_path,
        Slurm(),
        dict(job_name=slurm_jobs.name, output=str(tmp_path / "o-%j.out")),
        ["t.py"],
    )
    text = text.replace("set -euo pipefail", "set -euo pipefail\nexport STUB_EXIT=3", 1)
    job_id = slurm_jobs.track(submit(text, workdir=tmp_path))
    assert wait_for_job(job_id, poll_s=0.2, timeout_s=90) == 3


def test_sbatch_error_text_reaches_the_user(slurm_cluster: SlurmCluster, tmp_path: Path) -> None:
    text, _ = _script(tmp_path, Slurm(), dict(partition="no-such-partition"), ["t.py"])
    with pytest.raises(SubmitError) as info:
        submit(text, workdir=tmp_path)
    assert "invalid partition" in info.value.message.lower(), info.value.message
    # slurmctld's answer is read by the failure rules: the fix names the request to change
    assert info.value.hint.startswith("LX813: "), info.value.hint


def test_requeue_keeps_id_and_appends_output(
    slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs, tmp_path: Path
) -> None:
    text, _ = _script(
        tmp_path,
        Slurm(requeue=True),
        dict(job_name=slurm_jobs.name, output=str(tmp_path / "o-%j.out"), time="3"),
        ["t.py"],
    )
    assert "#SBATCH --requeue" in text and "#SBATCH --open-mode=append" in text
    text = text.replace("set -euo pipefail", "set -euo pipefail\nexport STUB_WAIT_FOR_REQUEUE=1", 1)
    job_id = slurm_jobs.track(submit(text, workdir=tmp_path))
    _poll(lambda: (tmp_path / "started").exists(), 60, "the first run to start")
    requeue(job_id)
    assert wait_for_job(job_id, poll_s=0.5, timeout_s=120) == 0
    log = (tmp_path / f"o-{job_id}.out").read_text()
    assert "run restart=unset" in log and "run restart=1" in log  # first run's line kept


def test_wait_times_out_on_a_held_job(
    slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs, tmp_path: Path
) -> None:
    text, _ = _script(
        tmp_path,
        Slurm(),
        dict(job_name=slurm_jobs.name, output=str(tmp_path / "o-%j.out"), sbatch_args=("--hold",)),
        ["t.py"],
    )
    job_id = slurm_jobs.track(submit(text, workdir=tmp_path))
    said: list[str] = []
    with pytest.raises(SubmitError, match="still not finished"):
        wait_for_job(job_id, poll_s=0.1, timeout_s=0.5, say=said.append)
    # slurmctld's own reason for the wait, said once, with the way out
    assert said == [
        f"launchx: job {job_id} is pending (JobHeldUser): the job is held (scontrol release "
        f"{job_id} lets it start); it will not start until that changes: scancel {job_id}, "
        "fix the request, and submit again"
    ], said
