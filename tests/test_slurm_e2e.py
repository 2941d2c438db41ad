"""``launchx sbatch`` and ``launchx run`` end to end on the real local SLURM cluster.

Each test is one requirement of the SLURM integration, proved the way a user meets it: the
real CLI (``python -m launchx``, so CI's fresh venv needs no console script), real jobs on
the two virtual nodes of ``scripts/slurm-local.sh``, and scripts that leave JSON files as
evidence of what each rank saw. Nothing is mocked.

Skipped when the cluster is not up, failed instead under ``CI=true`` (``slurm_cluster``).
Every job carries its test's unique job name and is cancelled at teardown. Waiting is
polling to a deadline: ``scontrol`` forgets finished jobs after MinJobAge (5 s here), so
records are read as soon as a job ends.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from conftest import poll_until
from slurm_fixtures import SlurmCluster, SlurmJobs  # the fixtures come in via conftest

from launchx.checkpoints import latest_complete
from launchx.hostlist import expand
from launchx.slurm_client import job_exit_code, parse_job_record

pytestmark = [pytest.mark.slurm, pytest.mark.timeout(300)]

REPO = Path(__file__).resolve().parents[1]
TOY = REPO / "examples" / "train_toy.py"
PY = sys.executable

_SEEN = (
    "RANK",
    "LOCAL_RANK",
    "WORLD_SIZE",
    "LOCAL_WORLD_SIZE",
    "MASTER_ADDR",
    "MASTER_PORT",
    "LAUNCHX_RUN_ID",
    "LAUNCHX_ATTEMPT",
    "SLURMD_NODENAME",
    "SLURM_JOB_NODELIST",
    "SLURM_JOB_ID",
)

# A real process group: the env:// rendezvous must work and an all-reduce must add up,
# otherwise the variables it records prove nothing. Written only after the collective.
GLOO_RANKS = f"""
import json, os, sys
import torch
import torch.distributed as dist

seen = {{k: os.environ.get(k) for k in {_SEEN!r}}}
dist.init_process_group("gloo")
t = torch.tensor([float(dist.get_rank() + 1)])
dist.all_reduce(t)
rank, world = dist.get_rank(), dist.get_world_size()
seen.update(rank=rank, world=world, sum=t.item(), argv=sys.argv[1:])
out = os.environ["E2E_OUT"]
with open(os.path.join(out, f".rank{{rank}}.tmp"), "w") as f:
    json.dump(seen, f)
os.replace(os.path.join(out, f".rank{{rank}}.tmp"), os.path.join(out, f"rank{{rank}}.json"))
print(f"rank {{rank}} of {{world}} sum {{t.item()}}", flush=True)
dist.barrier()
dist.destroy_process_group()
"""

# No torch: records argv and the launcher's variables, one file per RANK.
RECORD = f"""
import json, os, sys
seen = {{k: os.environ.get(k) for k in {_SEEN!r}}}
seen["argv"] = sys.argv[1:]
out = os.environ["E2E_OUT"]
with open(os.path.join(out, f"argv{{os.environ.get('RANK', 'none')}}.json"), "w") as f:
    json.dump(seen, f)
"""

# Rank 0 fails on its own with exit code 3 after the group formed; the others are then
# cut off by gloo (the usual picture of a real crash on one rank).
FAIL_ON_RANK0 = """
import sys
import torch.distributed as dist
dist.init_process_group("gloo")
dist.barrier()
if dist.get_rank() == 0:
    print("rank 0 exits 3 on purpose", flush=True)
    sys.exit(3)
dist.barrier()
"""

# Every kind of text a shell, sbatch, srun, typer, torchrun or argparse could mangle.
HOSTILE_ARGS = [
    "a b",
    "  padded  ",
    "it's",
    'say "hi"',
    "$(touch PWNED1)",
    "`touch PWNED2`",
    "; touch PWNED3",
    "&& touch PWNED4 ||",
    "| cat",
    "*",
    "?",
    "[ab]",
    "~",
    "$HOME",
    "${SLURM_JOB_ID}",
    "%j %x",
    "back\\slash",
    "line1\nline2",
    "tab\there",
    "--flag=x",
    "--nodes",
    "3",
    "-p",
    "--",
    "--help",
    "-m",
    "ünïcødé ✓",
    "",
    "'",
    '"',
    "{a,b}",
    "#not a comment",
    "!!",
]


# ------------------------------------------------------------------------ helpers


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    """What the submitting user has, minus any launcher's variables (sbatch and srun export
    the caller's environment to the job). TMPDIR keeps launchx's default logs in ``tmp``."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "USER")
    env = {k: v for k, v in os.environ.items() if k in keep}
    (tmp / "tmpdir").mkdir(exist_ok=True)
    env.update(TMPDIR=str(tmp / "tmpdir"), **extra)
    return env


def _need_two_nodes(cluster: SlurmCluster) -> None:
    """Skip on a one-node cluster, except under CI=true, where CI's cluster has two nodes
    and a skip would hide the test (as the cluster fixture does for a missing cluster)."""
    if len(cluster.nodes) >= 2:
        return
    message = f"needs 2 nodes, the cluster has {list(cluster.nodes)}: LAUNCHX_SLURM_NODES=2"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


def _write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text)
    return path


def _job_record(job_id: str) -> dict[str, str] | None:
    """``scontrol show job`` as a dict, or None once slurmctld has forgotten the job."""
    proc = subprocess.run(
        ["scontrol", "show", "job", "-o", job_id],
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )
    return parse_job_record(proc.stdout) if proc.returncode == 0 else None


@dataclass(frozen=True)
class Submitted:
    rc: int
    job_id: str
    stdout: str
    stderr: str
    record: dict[str, str] | None  # read right after --wait returned
    output: str  # the job's --output file


def _sbatch(
    jobs: SlurmJobs,
    workdir: Path,
    options: Sequence[str],
    script_argv: Sequence[str],
    *,
    env: dict[str, str],
    wait: bool = True,
    timeout: float = 180,
) -> Submitted:
    """``python -m launchx sbatch -p slurm OPTIONS --submit [--wait] SCRIPT ARGS`` from
    ``workdir`` under the test's job name; the job's output goes to ``workdir``."""
    argv = [PY, "-m", "launchx", "sbatch", "-p", "slurm", "--job-name", jobs.name]
    argv += ["--output", "job-%j.out", *options, "--submit"]
    argv += ["--wait"] * wait
    proc = subprocess.run(
        [*argv, *script_argv],
        capture_output=True,
        text=True,
        cwd=workdir,
        env=env,
        timeout=timeout,
        check=False,
    )
    record = None
    lines = proc.stdout.splitlines()
    job_id = lines[0].strip() if lines else ""
    if wait and job_id.isdigit():
        record = _job_record(job_id)
    assert job_id.isdigit(), f"no job id printed (rc {proc.returncode}): {proc.stderr}"
    jobs.track(job_id)
    out_file = workdir / f"job-{job_id}.out"
    output = out_file.read_text(errors="replace") if out_file.exists() else ""
    return Submitted(proc.returncode, job_id, proc.stdout, proc.stderr, record, output)


def _ranks(out: Path, prefix: str = "rank") -> list[dict[str, object]]:
    found = [json.loads(p.read_text()) for p in out.glob(f"{prefix}*.json")]
    return sorted(found, key=lambda r: int(str(r.get("rank", r.get("RANK")))))


def _run_ids_in_headers(output: str) -> set[str]:
    return set(re.findall(r"^launchx: profile .* \| run (\S+) attempt \d+$", output, re.M))


def _srun(
    jobs: SlurmJobs, tmp: Path, args: Sequence[str], env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    argv = ["srun", f"--job-name={jobs.name}", "--immediate=60", "--time=3", "--label", *args]
    return subprocess.run(
        argv, capture_output=True, text=True, cwd=tmp, env=env, timeout=120, check=False
    )


def _two_task_step(launcher: str, script: Path) -> list[str]:
    """One srun step of two tasks on one node, each running ``launchx run`` with two
    processes per node asked for."""
    run = [PY, "-m", "launchx", "run", "--launcher", launcher, "--nproc-per-node", "2"]
    return ["--nodes", "1", "--ntasks", "2", *run, str(script)]


def _run_two_task_step(
    slurm_jobs: SlurmJobs, tmp_path: Path, launcher: str, name: str, source: str
) -> tuple[subprocess.CompletedProcess[str], Path, str]:
    """Write ``source`` as the script, run the two-task step, return (proc, out dir, output)."""
    out = tmp_path / "out"
    out.mkdir()
    script = _write(tmp_path, name, source)
    env = _env(tmp_path, E2E_OUT=str(out))
    proc = _srun(slurm_jobs, tmp_path, _two_task_step(launcher, script), env)
    return proc, out, proc.stdout + proc.stderr


def _frozen_heredoc(script_text: str) -> str:
    """The profile YAML inside a rendered batch script's quoted heredoc."""
    match = re.search(r"<<'(\w+)'\n(.*?\n)\1\n", script_text, re.S)
    assert match, script_text
    return match.group(2)


# ------------------------------------------------------------------------ per_node


def test_per_node_two_nodes_one_world(
    slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs, tmp_path: Path
) -> None:
    """sbatch --submit --wait: one torchrun per node, two nodes, one process group."""
    _need_two_nodes(slurm_cluster)
    out = tmp_path / "out"
    out.mkdir()
    script = _write(tmp_path, "ranks.py", GLOO_RANKS)
    env = _env(tmp_path, E2E_OUT=str(out))
    options = ["--nodes", "2", "--nproc-per-node", "1"]
    job = _sbatch(slurm_jobs, tmp_path, options, [str(script)], env=env)

    assert job.rc == 0, job.output + job.stderr
    assert job.record is not None and job.record["JobState"] == "COMPLETED"
    ranks = _ranks(out)
    assert [r["rank"] for r in ranks] == [0, 1]
    assert {(r["RANK"], r["world"], r["WORLD_SIZE"], r["sum"]) for r in ranks} == {
        ("0", 2, "2", 3.0),
        ("1", 2, "2", 3.0),
    }
    assert {r["LOCAL_RANK"] for r in ranks} == {"0"}
    # one rank per node, on both nodes of the allocation
    hosts = expand(str(ranks[0]["SLURM_JOB_NODELIST"]))
    assert sorted(str(r["SLURMD_NODENAME"]) for r in ranks) == sorted(hosts)
    # the same master everywhere: the job's first host (lxnode1), one port
    assert {(r["MASTER_ADDR"], r["MASTER_PORT"]) for r in ranks} == {
        (hosts[0], ranks[0]["MASTER_PORT"])
    }
    assert hosts[0] == slurm_cluster.nodes[0] == "lxnode1"
    assert str(ranks[0]["MASTER_PORT"]).isdigit()
    # one run id on every node, the one launchx announced; first attempt
    assert len({r["LAUNCHX_RUN_ID"] for r in ranks}) == 1
    assert _run_ids_in_headers(job.output) == {ranks[0]["LAUNCHX_RUN_ID"]}
    assert {r["LAUNCHX_ATTEMPT"] for r in ranks} == {"0"}
    assert {r["SLURM_JOB_ID"] for r in ranks} == {job.job_id}
    # the output file is the one asked for, and the ranks' lines reached it
    assert "rank 0 of 2 sum 3.0" in job.output and "rank 1 of 2 sum 3.0" in job.output
    # the frozen profile: exactly what `launchx sbatch` renders for these options
    frozen = tmp_path / ".launchx" / job.job_id / "profile.yaml"
    same = ["-p", "slurm", "--job-name", slurm_jobs.name, "--output", "job-%j.out", *options]
    rendered = subprocess.run(
        [PY, "-m", "launchx", "sbatch", *same, str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
        check=True,
    ).stdout
    assert frozen.read_text() == _frozen_heredoc(rendered)
    profile = yaml.safe_load(frozen.read_text())
    assert profile["name"] == "slurm" and profile["nnodes"] == "auto"
    assert profile["slurm"]["nodes"] == 2 and profile["slurm"]["mode"] == "per_node"


def test_preflight_checks_every_node_before_the_training_step(
    slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs, tmp_path: Path
) -> None:
    """sbatch --preflight: the batch launchx runs ``launchx doctor`` on both nodes as an
    srun step (node 0 prints the report, the link test included), then the training step.
    The nodes' channel is signed with the token the script drew."""
    _need_two_nodes(slurm_cluster)
    out = tmp_path / "out"
    out.mkdir()
    script = _write(tmp_path, "ranks.py", GLOO_RANKS)
    env = _env(tmp_path, E2E_OUT=str(out))
    options = ["--nodes", "2", "--nproc-per-node", "1", "--preflight"]
    job = _sbatch(slurm_jobs, tmp_path, options, [str(script)], env=env)

    assert job.rc == 0, job.output + job.stderr
    text = job.output
    assert "launchx: preflight: checking 2 nodes before the first attempt" in text, text
    assert "preflight: 2 of 2 nodes (profile slurm" in text, text
    assert "link test: gloo, 2 ranks on 2 nodes" in text, text
    assert text.index("launchx: preflight passed") < text.index("rank 0 of 2 sum 3.0"), text
    assert text.count("preflight: 2 of 2 nodes") == 1  # the training step did not check again
    assert [r["sum"] for r in _ranks(out)] == [3.0, 3.0]


# ------------------------------------------------------------------------ per_task


def test_per_task_four_tasks_one_world(
    slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs, tmp_path: Path
) -> None:
    """per_task: one SLURM task per rank, 2 nodes x 2 tasks, mapped by launchx.task."""
    _need_two_nodes(slurm_cluster)
    out = tmp_path / "out"
    out.mkdir()
    script = _write(tmp_path, "ranks.py", GLOO_RANKS)
    options = ["--mode", "per_task", "--nodes", "2", "--ntasks-per-node", "2"]
    job = _sbatch(
        slurm_jobs, tmp_path, options, [str(script)], env=_env(tmp_path, E2E_OUT=str(out))
    )

    assert job.rc == 0, job.output + job.stderr
    ranks = _ranks(out)
    assert [r["rank"] for r in ranks] == [0, 1, 2, 3]
    assert {r["world"] for r in ranks} == {4} and {r["sum"] for r in ranks} == {10.0}
    assert {r["WORLD_SIZE"] for r in ranks} == {"4"}
    assert {r["LOCAL_WORLD_SIZE"] for r in ranks} == {"2"}
    hosts = expand(str(ranks[0]["SLURM_JOB_NODELIST"]))
    by_node: dict[str, list[str]] = {}
    for r in ranks:
        by_node.setdefault(str(r["SLURMD_NODENAME"]), []).append(str(r["LOCAL_RANK"]))
    # ranks 0,1 on the first node and 2,3 on the second, local ranks 0 and 1 on each
    assert [r["SLURMD_NODENAME"] for r in ranks] == [hosts[0], hosts[0], hosts[1], hosts[1]]
    assert {node: sorted(local) for node, local in by_node.items()} == {
        hosts[0]: ["0", "1"],
        hosts[1]: ["0", "1"],
    }
    assert len({(r["MASTER_ADDR"], r["MASTER_PORT"]) for r in ranks}) == 1
    assert ranks[0]["MASTER_ADDR"] == hosts[0]
    assert len({r["LAUNCHX_RUN_ID"] for r in ranks}) == 1
    assert {r["LAUNCHX_ATTEMPT"] for r in ranks} == {"0"}
    # no torchrun in this mode: the batch launchx starts the srun step itself
    assert "launcher srun" in job.output and "launcher torchrun" not in job.output
    # and no launchx stays beside the ranks, so no hang watch: said once, at the start
    said = "launchx: the hang watch is off in SLURM mode per_task: "
    assert job.output.count(said) == 1, job.output
    assert job.output.index(said) < job.output.index("launchx: profile slurm"), job.output


# ------------------------------------------------------------------------ arguments


@pytest.mark.parametrize("mode", ["per_node", "per_task"])
def test_hostile_script_arguments_arrive_verbatim(
    slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs, tmp_path: Path, mode: str
) -> None:
    """batch script -> srun -> (launchx run -> torchrun | launchx.task) -> the script."""
    out = tmp_path / "out"
    out.mkdir()
    script = _write(tmp_path, "record.py", RECORD)
    options = ["--mode", mode, "--nodes", "1", "--ntasks-per-node", "1"]
    job = _sbatch(
        slurm_jobs,
        tmp_path,
        options,
        [str(script), *HOSTILE_ARGS],
        env=_env(tmp_path, E2E_OUT=str(out)),
    )

    assert job.rc == 0, job.output + job.stderr
    seen = json.loads((out / "argv0.json").read_text())
    assert seen["argv"] == HOSTILE_ARGS
    assert seen["WORLD_SIZE"] == "1"
    for name in ("PWNED1", "PWNED2", "PWNED3", "PWNED4"):
        assert not (tmp_path / name).exists(), f"{name}: an argument was run by a shell"


# ------------------------------------------------------------------------ failures


@dataclass(frozen=True)
class FailedJob:
    job: Submitted
    summary_exit: int | None  # what launchx's summary table says attempt 0 exited with
    attempts: list[str]


@pytest.fixture(scope="module")
def failed_job(
    slurm_cluster: SlurmCluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FailedJob]:
    """One 2-node job whose rank 0 exits 3, shared by the tests that read its outcome."""
    _need_two_nodes(slurm_cluster)
    jobs = SlurmJobs(name=f"lxtest-{uuid.uuid4().hex[:10]}")
    tmp = tmp_path_factory.mktemp("failed_job")
    try:
        script = _write(tmp, "fail.py", FAIL_ON_RANK0)
        job = _sbatch(
            jobs, tmp, ["--nodes", "2", "--nproc-per-node", "1"], [str(script)], env=_env(tmp)
        )
        # the batch launchx's summary: the last table in the output
        summary = job.output.rpartition("launchx: summary\n")[2]
        rows = re.findall(r"^  (\d+) +\S+s  (ok|exit (\d+)|interrupted)", summary, re.M)
        code = int(rows[0][2]) if rows and rows[0][2] else None
        yield FailedJob(job, code, [row[0] for row in rows])
    finally:
        jobs.cancel_all()


def test_failing_script_exit_code_reaches_wait(failed_job: FailedJob) -> None:
    """--wait exits with the job's exit code, which is launchx's, and nothing is retried."""
    job = failed_job.job
    assert "rank 0 exits 3 on purpose" in job.output
    assert job.record is not None, "the job vanished before its exit code could be read"
    assert job.record["JobState"] == "FAILED"
    assert job.rc != 0
    assert job.rc == job_exit_code(job.record)
    assert job.rc == failed_job.summary_exit, job.output
    assert failed_job.attempts == ["0"], "a script's own failure must not be retried"
    assert job.record["Restarts"] == "0"


def test_failing_script_exit_code_is_the_scripts_own(failed_job: FailedJob) -> None:
    """DESIGN.md: launchx run exits with the training's own exit code when it fails."""
    job = failed_job.job
    assert job.rc == 3, job.output
    assert "interrupted" not in job.output.rpartition("launchx: summary")[2], job.output


# ------------------------------------------------------------------------ preemption


@dataclass(frozen=True)
class PreemptedJob:
    job_id: str
    steps: int
    ckpt: Path
    first_step: int  # the newest checkpoint when the warning was sent
    final: dict[str, str]  # scontrol's record, seen finished
    output: str


@pytest.fixture(scope="module")
def preempted_job(
    slurm_cluster: SlurmCluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[PreemptedJob]:
    """The toy on 2 nodes with --requeue, sent the time-limit warning (USR2 to the batch
    shell, as ``--signal B:USR2@N`` would) once its first checkpoint exists."""
    _need_two_nodes(slurm_cluster)
    jobs = SlurmJobs(name=f"lxtest-{uuid.uuid4().hex[:10]}")
    tmp = tmp_path_factory.mktemp("preempted_job")
    ckpt = tmp / "ckpt"
    # 400 steps of at least 20 ms: 8 s or more of training on any machine, so the warning,
    # sent once the first checkpoint (step 20) exists, lands long before the end (without
    # the sleep a fast machine finished the 400 steps before scancel's signal arrived)
    steps = 400
    toy_args = ["--steps", str(steps), "--ckpt-every", "20", "--log-every", "100"]
    toy_args += ["--step-sleep-s", "0.02"]
    toy_args += ["--checkpoint-dir", str(ckpt)]
    try:
        job = _sbatch(
            jobs,
            tmp,
            ["--nodes", "2", "--nproc-per-node", "1", "--requeue", "--checkpoint-dir", str(ckpt)],
            [str(TOY), *toy_args],
            env=_env(tmp),
            wait=False,
        )
        assert job.rc == 0, job.stderr
        poll_until(lambda: latest_complete(ckpt) is not None, 150, "the first checkpoint")
        first = latest_complete(ckpt)
        assert first is not None
        subprocess.run(["scancel", "--signal=USR2", "--batch", job.job_id], check=True, timeout=20)

        final: dict[str, str] = {}

        def finished() -> bool:
            record = _job_record(job.job_id)
            if record is None:
                pytest.fail(f"job {job.job_id} vanished before it was seen finished")
            final.update(record)
            return job_exit_code(record) is not None

        poll_until(finished, 200, "the requeued job to finish")
        output = (tmp / f"job-{job.job_id}.out").read_text(errors="replace")
        yield PreemptedJob(job.job_id, steps, ckpt, first.step, final, output)
    finally:
        jobs.cancel_all()


def test_usr2_warning_requeues_and_resumes(preempted_job: PreemptedJob) -> None:
    """The time-limit warning: the batch launchx requeues the job once, the same job id runs
    again as attempt 1, resumes from the newest checkpoint and finishes."""
    job, output = preempted_job, preempted_job.output
    assert job.final["JobState"] == "COMPLETED", output
    assert job.final["Restarts"] == "1", output
    assert job_exit_code(job.final) == 0
    requeued = output.index(f"launchx: requeued SLURM job {job.job_id}")
    assert "launchx: requeued by SLURM after the time-limit warning" in output
    # The second run resumes from a checkpoint at least as new as the one that existed
    # when the warning was sent (so no step before it is trained twice).
    resumed = re.search(r"^launchx: offering (\S+) \(step \d+\)", output, re.M)
    assert resumed and resumed.start() > requeued, output
    resume_path = Path(resumed.group(1))
    assert resume_path.parent == job.ckpt.resolve()
    toy_resumed = re.search(
        rf"\[toy\] resumed from {re.escape(str(resume_path))} at step (\d+)", output
    )
    assert toy_resumed, output
    assert job.first_step <= int(toy_resumed.group(1)) < job.steps
    # attempt 1 after the requeue, for launchx and for the ranks (LAUNCHX_ATTEMPT)
    starts = re.findall(r"\[toy\] start rank=0 world=2 .*attempt=(\d+)", output)
    assert starts == ["0", "1"], output
    headers = re.findall(r"^launchx: profile .* attempt (\d+)$", output, re.M)
    assert headers == ["0"] * 3 + ["1"] * 3, output  # batch launchx + one per node, twice
    assert output.index("attempt=1") > requeued
    assert f"[toy] done steps={job.steps}" in output
    assert (job.ckpt / "final.pt").is_file()


def test_usr2_warning_checkpoint_is_the_one_resumed(preempted_job: PreemptedJob) -> None:
    """The ranks checkpoint at the warning, and the requeued run resumes from exactly that."""
    output = preempted_job.output
    preempted = re.search(r"\[toy\] preempted at step (\d+)", output)
    assert preempted, f"the ranks never checkpointed at the warning:\n{output}"
    step = int(preempted.group(1))
    assert preempted_job.first_step <= step < preempted_job.steps
    assert re.search(rf"\[toy\] resumed from \S+/step_0*{step}\.pt at step {step}$", output, re.M)
    assert "closing signal SIGTERM" not in output


# ------------------------------------------------------------------------ nested launch


def test_nested_torchrun_in_multi_task_step_is_refused(
    slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs, tmp_path: Path
) -> None:
    """Two tasks on one node, each asking for torchrun x2, would make 4 ranks: LX203, exit 2."""
    proc, out, said = _run_two_task_step(slurm_jobs, tmp_path, "torchrun", "record.py", RECORD)
    assert proc.returncode == 2, said
    for task in (0, 1):
        assert re.search(
            rf"^{task}: launchx: error: LX203 this srun step already runs 2 tasks", said, re.M
        ), said
    # srun folds the two tasks into one line when they exit together, else one line each
    exited = re.findall(r"^srun: error: \S+: tasks? ([\d-]+): Exited with exit code 2$", said, re.M)
    assert exited in (["0-1"], ["0", "1"], ["1", "0"]), said
    assert "Traceback" not in said
    assert list(out.iterdir()) == [], "the script ran although the launch was refused"


def test_auto_in_multi_task_step_runs_each_task_as_a_rank(
    slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs, tmp_path: Path
) -> None:
    """The same step with --launcher auto: no torchrun, each task is one rank of two."""
    proc, out, said = _run_two_task_step(slurm_jobs, tmp_path, "auto", "record.py", RECORD)
    assert proc.returncode == 0, said
    for task in (0, 1):
        assert re.search(rf"^{task}: launchx: profile \S+ \| launcher direct \|", said, re.M), said
    ranks = _ranks(out, "argv")
    assert [(r["RANK"], r["LOCAL_RANK"], r["WORLD_SIZE"]) for r in ranks] == [
        ("0", "0", "2"),
        ("1", "1", "2"),
    ]
    assert len({r["LAUNCHX_RUN_ID"] for r in ranks}) == 1


def test_auto_in_multi_task_step_forms_one_process_group(
    slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs, tmp_path: Path
) -> None:
    proc, out, said = _run_two_task_step(slurm_jobs, tmp_path, "auto", "ranks.py", GLOO_RANKS)
    assert proc.returncode == 0, said
    ranks = _ranks(out)
    assert [(r["rank"], r["world"], r["sum"]) for r in ranks] == [(0, 2, 3.0), (1, 2, 3.0)]
    assert {r["LOCAL_WORLD_SIZE"] for r in ranks} == {"2"}


# ------------------------------------------------------------------------ stop via the step

# Each rank records that its SIGTERM handler ran (where a real script would checkpoint).
TRAP_TERM = """
import os, signal, sys, time
out, rank = os.environ["E2E_OUT"], os.environ["RANK"]
def on_term(signum, _frame):
    with open(os.path.join(out, f"term{rank}"), "w") as f:
        f.write(str(signum))
    print(f"rank {rank} ran its SIGTERM handler", flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, on_term)
open(os.path.join(out, f"ready{rank}"), "w").close()
time.sleep(120)
"""


@pytest.mark.parametrize("mode", ["per_task", "per_node"])
def test_sigterm_to_launchx_reaches_each_ranks_handler(
    slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs, tmp_path: Path, mode: str
) -> None:
    """srun answers SIGTERM by SIGKILLing every task, so the batch launchx, stopped, must
    not pass it to srun: it sends SIGTERM to its step (scancel --signal=TERM JOB.STEP), and
    every rank's handler runs before the job ends."""
    out = tmp_path / "out"
    out.mkdir()
    script = _write(tmp_path, "trap.py", TRAP_TERM)
    per_node = "--ntasks-per-node" if mode == "per_task" else "--nproc-per-node"
    options = ["--mode", mode, "--nodes", "1", per_node, "2"]
    env = _env(tmp_path, E2E_OUT=str(out))
    job = _sbatch(slurm_jobs, tmp_path, options, [str(script)], env=env, wait=False)
    assert job.rc == 0, job.stderr
    ready = [out / f"ready{rank}" for rank in (0, 1)]
    poll_until(lambda: all(p.exists() for p in ready), 150, "both ranks to start")
    # SIGTERM to the batch shell only, which is launchx (the script execs it)
    subprocess.run(["scancel", "--signal=TERM", "--batch", job.job_id], check=True, timeout=20)

    terms = [out / f"term{rank}" for rank in (0, 1)]
    poll_until(lambda: all(p.exists() for p in terms), 60, "every rank's SIGTERM handler")
    assert {p.read_text() for p in terms} == {str(int(signal.SIGTERM))}

    def finished() -> bool:
        record = _job_record(job.job_id)
        return record is None or job_exit_code(record) is not None

    poll_until(finished, 60, "the job to end")
    output = (tmp_path / f"job-{job.job_id}.out").read_text(errors="replace")
    assert "rank 0 ran its SIGTERM handler" in output, output
    assert "rank 1 ran its SIGTERM handler" in output, output
    assert "launchx: interrupted" in output, output


# ------------------------------------------------------------------------ hangs


def test_a_rank_hung_on_the_second_node_is_named_by_both_nodes(
    slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs, tmp_path: Path
) -> None:
    """Issue 11 under SLURM: rank 1 (on lxnode2) sleeps inside step 12, the collective
    timeout is 30 minutes. The launchx on each node of the srun step share node 0's channel
    (signed with the token the batch script drew), so neither decides alone: both name
    global rank 1 (the verdict node 0 reached on both nodes' summaries) and stop their ranks
    together; then both start attempt 1 from the newest checkpoint and the run finishes."""
    _need_two_nodes(slurm_cluster)
    ck = tmp_path / "ck"
    toy = [str(TOY), "--steps", "20", "--ckpt-every", "5", "--checkpoint-dir", str(ck)]
    toy += ["--stall-at-step", "12", "--stall-rank", "1", "--stall-s", "3000"]
    toy += ["--pg-timeout-s", "1800"]
    options = ["--nodes", "2", "--nproc-per-node", "1", "--checkpoint-dir", str(ck)]
    options += ["--set", "timeouts.hang_s=5", "--set", "retry.backoff_min_s=0"]
    options += ["--set", "retry.jitter_s=0"]
    job = _sbatch(slurm_jobs, tmp_path, options, toy, env=_env(tmp_path), timeout=240)

    text = job.output
    assert job.rc == 0, text + job.stderr
    assert job.record is not None and job.record["JobState"] == "COMPLETED", text
    assert "[r1]: [toy] stalling rank 1 at step 12" in text, text
    # One report per node, both node 0's verdict and both naming global rank 1 first.
    reports = ["\n".join(m) for m in re.findall(r"^launchx: hang: (.*)\n(.*)", text, re.M)]
    assert len(reports) == 2, text
    for report in reports:
        lines = report.splitlines()
        assert "(hang timeout 5 s, fixed: node 0's choice)" in lines[0], text
        assert lines[1].startswith("  rank 1 (node "), text
        assert "inject_before_step" in lines[1], text
    logs = tmp_path / "tmpdir" / "launchx" / f"slurm-{job.job_id}"
    for name in ("events.jsonl", "events-node-1.jsonl"):  # node 0's, node 1's
        events = [json.loads(line) for line in (logs / name).read_text().splitlines()]
        hangs = [e for e in events if e["event"] == "watch" and e["kind"] == "hang"]
        assert [(h["odd"], sorted(h["ranks"])) for h in hangs] == [([1], [0, 1])], name
        ends = [
            (e["attempt"], e["category"], e["rank"]) for e in events if e["event"] == "attempt_end"
        ]
        # both nodes: attempt 0 a hang on rank 1, then attempt 1 (together) fine; the batch
        # launchx's own record of the step follows in node 0's file
        assert ends[:2] == [(0, "hang", 1), (1, None, None)], (name, events)
    step10 = ck / "step_00000010.pt"
    assert f"[toy] resumed from {step10} at step 10" in text, text
    assert "[toy] done steps=20" in text, text
