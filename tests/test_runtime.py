"""launchx.runtime: import cost, the env contract, atomic saves, and real 2-rank training."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from launchx import runtime
from launchx.checkpoints import latest_complete, launchx_name
from launchx.runtime import env as renv

REPO = Path(__file__).resolve().parent.parent
TOY = REPO / "examples" / "train_toy.py"
NOOP = REPO / "examples" / "noop.py"
PY = sys.executable

# Variables a test process may inherit that would change what the runtime sees.
_INHERITED = re.compile(
    r"^(RANK|LOCAL_RANK|WORLD_SIZE|LOCAL_WORLD_SIZE|MASTER_|TORCHELASTIC_|"
    r"PET_|SLURM_|OMPI_|PMI_|PMIX_|MPI_LOCAL|LAUNCHX_)"
)


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not _INHERITED.match(k)}
    env.update(OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    env.update(extra)
    return env


@pytest.fixture
def bare_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for key in list(os.environ):
        if _INHERITED.match(key):
            monkeypatch.delenv(key)
    yield


# --- import cost and dependencies -------------------------------------------------------


def test_import_does_not_import_torch_or_planning_code() -> None:
    code = (
        "import sys, launchx.runtime\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'typer', 'pydantic')"
        " or m in ('launchx.cli', 'launchx.plan', 'launchx.resolve', 'launchx.execute'))\n"
        "print(repr(bad))\n"
    )
    out = subprocess.run([PY, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# --- the environment contract ----------------------------------------------------------


FAMILIES: list[tuple[str, dict[str, str], tuple[int, int, int, int]]] = [
    (
        "torchrun",
        {"RANK": "3", "LOCAL_RANK": "1", "WORLD_SIZE": "4", "LOCAL_WORLD_SIZE": "2"},
        (3, 1, 4, 2),
    ),
    (
        "slurm",
        {
            "SLURM_PROCID": "5",
            "SLURM_LOCALID": "1",
            "SLURM_NTASKS": "8",
            "SLURM_NTASKS_PER_NODE": "4",
        },
        (5, 1, 8, 4),
    ),
    (
        "openmpi",
        {
            "OMPI_COMM_WORLD_RANK": "2",
            "OMPI_COMM_WORLD_LOCAL_RANK": "0",
            "OMPI_COMM_WORLD_SIZE": "6",
            "OMPI_COMM_WORLD_LOCAL_SIZE": "3",
        },
        (2, 0, 6, 3),
    ),
    (
        "pmi",
        {"PMI_RANK": "1", "MPI_LOCALRANKID": "1", "PMI_SIZE": "2", "MPI_LOCALNRANKS": "2"},
        (1, 1, 2, 2),
    ),
    (
        "mvapich",
        {
            "MV2_COMM_WORLD_RANK": "4",
            "MV2_COMM_WORLD_LOCAL_RANK": "0",
            "MV2_COMM_WORLD_SIZE": "8",
            "MV2_COMM_WORLD_LOCAL_SIZE": "4",
        },
        (4, 0, 8, 4),
    ),
]


def test_mpirun_inside_sbatch_uses_mpi_ranks_not_the_batch_steps() -> None:
    """mpirun in a batch script: every rank inherits the batch step's SLURM_PROCID=0."""
    env = {
        "SLURM_PROCID": "0",
        "SLURM_NTASKS": "1",
        "OMPI_COMM_WORLD_RANK": "3",
        "OMPI_COMM_WORLD_SIZE": "4",
        "OMPI_COMM_WORLD_LOCAL_RANK": "1",
        "OMPI_COMM_WORLD_LOCAL_SIZE": "2",
    }
    got = renv.dist_env(env)
    assert (got.rank, got.world_size, got.local_rank, got.source) == (3, 4, 1, "openmpi")


def test_family_table_covers_every_fallback_variable() -> None:
    tables = (
        renv.RANK_VARS,
        renv.LOCAL_RANK_VARS,
        renv.WORLD_SIZE_VARS,
        renv.LOCAL_WORLD_SIZE_VARS,
    )
    listed = {name for table in tables for _, name in table}
    exercised = {name for _, env, _ in FAMILIES for name in env}
    assert listed == exercised


@pytest.mark.parametrize(("family", "env", "expected"), FAMILIES, ids=[f[0] for f in FAMILIES])
def test_dist_env_each_launcher_family(
    family: str, env: dict[str, str], expected: tuple[int, int, int, int]
) -> None:
    got = renv.dist_env(env)
    assert (got.rank, got.local_rank, got.world_size, got.local_world_size) == expected
    assert got.source == family


def test_dist_env_torchrun_names_win_over_inherited_slurm() -> None:
    got = renv.dist_env({"RANK": "1", "WORLD_SIZE": "2", "SLURM_PROCID": "7", "SLURM_NTASKS": "16"})
    assert (got.rank, got.world_size, got.source) == (1, 2, "torchrun")


def test_dist_env_defaults_and_slurm_tasks_per_node() -> None:
    alone = renv.dist_env({})
    assert (alone.rank, alone.local_rank, alone.world_size, alone.local_world_size) == (0, 0, 1, 1)
    assert alone.source == "default"
    slurm = {"SLURM_PROCID": "6", "SLURM_NTASKS": "7", "SLURM_STEP_TASKS_PER_NODE": "2(x3),1"}
    assert renv.dist_env({**slurm, "SLURM_NODEID": "3"}).local_world_size == 1
    assert renv.dist_env({**slurm, "SLURM_NODEID": "1"}).local_world_size == 2


@pytest.mark.parametrize(
    "env", [{"RANK": "x"}, {"RANK": "-1"}, {"RANK": "2", "WORLD_SIZE": "2"}, {"WORLD_SIZE": "0"}]
)
def test_dist_env_rejects_impossible_values(env: dict[str, str]) -> None:
    with pytest.raises(ValueError):
        renv.dist_env(env)


def test_attempt_resume_and_timeout(tmp_path: Path) -> None:
    assert renv.attempt({}) == 0
    assert renv.attempt({"LAUNCHX_ATTEMPT": "2", "SLURM_RESTART_COUNT": "5"}) == 2
    assert renv.attempt({"SLURM_RESTART_COUNT": "1"}) == 1
    ckpt = tmp_path / "step_00000010.pt"
    ckpt.write_bytes(b"x")
    assert renv.resume_path({"LAUNCHX_RESUME_FROM": str(ckpt)}) == str(ckpt)
    assert renv.resume_path({"LAUNCHX_RESUME_FROM": str(tmp_path / "gone.pt")}) is None
    assert renv.resume_path({}) is None
    assert renv.pg_timeout_s({}) == 1800.0
    assert renv.pg_timeout_s({"LAUNCHX_PG_TIMEOUT_S": "3"}) == 3.0
    for bad in ("abc", "0", "-1", "nan", "inf"):
        with pytest.raises(ValueError, match="LAUNCHX_PG_TIMEOUT_S"):
            renv.pg_timeout_s({"LAUNCHX_PG_TIMEOUT_S": bad})


# --- preemption flag -------------------------------------------------------------------


def test_preemption_handler_sets_flag_and_restores(bare_env: None) -> None:
    before = signal.getsignal(signal.SIGUSR2)
    runtime.install_preemption_handler()
    try:
        assert not runtime.should_checkpoint()
        os.kill(os.getpid(), signal.SIGUSR2)
        assert runtime.should_checkpoint()
        assert runtime.preemption_signal() == signal.SIGUSR2
    finally:
        runtime.clear_checkpoint_request()
        runtime.uninstall_preemption_handler()
    assert signal.getsignal(signal.SIGUSR2) == before
    assert not runtime.should_checkpoint()


# --- single process: init, collectives, save/prune/load ---------------------------------


def test_single_process_world(bare_env: None, tmp_path: Path) -> None:
    import torch

    info = runtime.init_distributed()
    try:
        assert (info.rank, info.world_size, info.backend, info.device) == (0, 1, "gloo", "cpu")
        assert info.timeout_s == 1800.0 and info.source == "default"
        assert runtime.init_distributed() == info  # idempotent
        t = torch.tensor([2.0, 4.0])
        assert torch.equal(runtime.all_reduce_mean(t), torch.tensor([2.0, 4.0]))
        runtime.barrier()
        for step in (10, 20, 30):
            saved = runtime.save_checkpoint(
                {"step": step, "w": torch.ones(3) * step}, tmp_path, step, keep=2
            )
            assert saved == str(tmp_path / launchx_name(step))
        assert sorted(os.listdir(tmp_path)) == [launchx_name(20), launchx_name(30)]
        latest = latest_complete(tmp_path)
        assert latest is not None and latest.step == 30
        state = runtime.load_checkpoint(latest.path)
        assert state["step"] == 30 and torch.equal(state["w"], torch.full((3,), 30.0))
        runtime.request_checkpoint()
        assert runtime.should_checkpoint()  # a collective in a world of one
    finally:
        runtime.clear_checkpoint_request()
        runtime.cleanup()
    assert not runtime.dist.group_ready()


# --- atomicity: SIGKILL a real writer mid-save -----------------------------------------

_STALLED_WRITER = textwrap.dedent(
    """
    import io, sys, threading
    from pathlib import Path
    import torch
    from launchx import runtime

    directory, marker = Path(sys.argv[1]), Path(sys.argv[2])
    runtime.save_checkpoint({"step": 1, "w": torch.zeros(1000)}, directory, 1)
    real_save = torch.save

    def half_then_hang(obj, handle):
        buffer = io.BytesIO()
        real_save(obj, buffer)
        data = buffer.getvalue()
        handle.write(data[: len(data) // 2])
        handle.flush()
        marker.write_text("half written")
        threading.Event().wait()

    torch.save = half_then_hang
    runtime.save_checkpoint({"step": 2, "w": torch.ones(1000)}, directory, 2)
    """
)


def poll(predicate: object, deadline_s: float) -> bool:
    assert callable(predicate)
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())


def test_sigkill_mid_save_leaves_previous_checkpoint(bare_env: None, tmp_path: Path) -> None:
    ckdir, marker = tmp_path / "ck", tmp_path / "marker"
    child = subprocess.Popen([PY, "-c", _STALLED_WRITER, str(ckdir), str(marker)], env=clean_env())
    try:
        assert poll(marker.exists, 60), "writer never reached the middle of its save"
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.wait()
    assert child.returncode == -signal.SIGKILL
    partial = [n for n in os.listdir(ckdir) if ".tmp." in n]
    assert len(partial) == 1 and (ckdir / partial[0]).stat().st_size > 0
    assert not (ckdir / launchx_name(2)).exists()
    latest = latest_complete(ckdir)
    assert latest is not None and (latest.step, latest.layout) == (1, "launchx")
    # The next successful save of that step sweeps the dead writer's leftover.
    runtime.save_checkpoint({"step": 2}, ckdir, 2)
    assert sorted(os.listdir(ckdir)) == [launchx_name(1), launchx_name(2)]


# --- the toy job -----------------------------------------------------------------------


def run_toy(
    args: list[str], cwd: Path, *, nproc: int = 0, timeout: float = 120, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run train_toy.py alone (nproc=0) or under torchrun with ``nproc`` CPU ranks."""
    if nproc:
        cmd = [
            PY,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc-per-node",
            str(nproc),
            str(TOY),
            *args,
        ]
    else:
        cmd = [PY, str(TOY), *args]
    return subprocess.run(
        cmd, cwd=cwd, env=clean_env(**env), capture_output=True, text=True, timeout=timeout
    )


def toy_lines(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in proc.stdout.splitlines() if line.startswith("[toy] ")]


def load_weights(path: Path) -> Mapping[str, object]:
    import torch

    loaded = torch.load(path, weights_only=True)
    assert isinstance(loaded, dict)
    return loaded


def assert_bit_identical(a: Path, b: Path) -> None:
    import torch

    wa, wb = load_weights(a), load_weights(b)
    assert wa.keys() == wb.keys()
    for key in wa:
        assert torch.equal(wa[key], wb[key]), key


STEPS = ["--steps", "30", "--ckpt-every", "10", "--log-every", "10"]


@pytest.fixture(scope="module")
def baseline(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """One uninterrupted 2-rank run: the reference for the resume tests."""
    work = tmp_path_factory.mktemp("baseline")
    proc = run_toy([*STEPS, "--checkpoint-dir", "ck", "--output", "final.pt"], work, nproc=2)
    return work, proc


@pytest.mark.torchrun
def test_full_two_rank_run(baseline: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    work, proc = baseline
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = toy_lines(proc)
    assert lines[0].startswith("[toy] start rank=0 world=2 backend=gloo attempt=0")
    assert [ln.split()[2] for ln in lines if ln.startswith("[toy] step ")] == ["10", "20", "30"]
    assert lines[-1] == f"[toy] done steps=30 output={work / 'final.pt'}"
    assert sorted(os.listdir(work / "ck")) == [launchx_name(s) for s in (10, 20, 30)]
    assert set(load_weights(work / "final.pt")) == {"0.weight", "0.bias", "2.weight", "2.bias"}


@pytest.mark.torchrun
def test_killed_during_save_then_resume_is_bit_identical(
    baseline: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    ref, _ = baseline
    common = [*STEPS, "--checkpoint-dir", "ck", "--output", "final.pt"]
    crash = run_toy(
        [*common, "--crash-at-step", "15", "--crash-kind", "sigkill-during-save"], tmp_path, nproc=2
    )
    assert crash.returncode != 0
    assert "[toy] crashing rank 0 during save of step 20" in crash.stdout
    assert any(".tmp." in n for n in os.listdir(tmp_path / "ck")), "no partial file left"
    latest = latest_complete(tmp_path / "ck")
    assert latest is not None and latest.step == 10
    assert not (tmp_path / "final.pt").exists()

    resumed = run_toy(
        common, tmp_path, nproc=2, LAUNCHX_ATTEMPT="1", LAUNCHX_RESUME_FROM=latest.path
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    lines = toy_lines(resumed)
    assert f"[toy] resumed from {latest.path} at step 10" in lines
    assert [ln.split()[2] for ln in lines if ln.startswith("[toy] step ")] == ["20", "30"]
    assert_bit_identical(ref / "final.pt", tmp_path / "final.pt")


@pytest.mark.torchrun
def test_stalled_rank_hits_a_real_gloo_timeout(tmp_path: Path) -> None:
    args = [
        *STEPS,
        "--checkpoint-dir",
        "ck",
        "--stall-at-step",
        "5",
        "--stall-rank",
        "1",
        "--stall-s",
        "120",
        "--pg-timeout-s",
        "3",
    ]
    # ended by the collective timeout, long before the sleeper wakes (run_toy's deadline)
    proc = run_toy(args, tmp_path, nproc=2, timeout=110)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "[toy] stalling rank 1 at step 5 for 120 s" in out
    assert re.search(r"gloo.*Timed out waiting 3000ms for (recv|send) operation", out), out


@pytest.mark.torchrun
def test_noop_job(tmp_path: Path) -> None:
    cmd = [PY, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", str(NOOP)]
    proc = subprocess.run(
        cmd, cwd=tmp_path, env=clean_env(), capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "[noop] world=2 ok" in proc.stdout


# --- fault injection is gated on the attempt (single process, no torchrun) ---------------


@pytest.mark.torchrun
def test_exit_crash_fires_only_on_first_attempt(tmp_path: Path) -> None:
    args = [
        "--steps",
        "6",
        "--ckpt-every",
        "3",
        "--checkpoint-dir",
        "ck",
        "--crash-at-step",
        "4",
        "--crash-kind",
        "exit",
        "--crash-exit-code",
        "7",
    ]
    first = run_toy(args, tmp_path, LAUNCHX_ATTEMPT="0")
    assert first.returncode == 7
    assert "[toy] crashing rank 0 at step 4 kind=exit" in first.stdout
    again = run_toy(args, tmp_path, LAUNCHX_ATTEMPT="1")
    assert again.returncode == 0, again.stderr
    assert "crashing" not in again.stdout


@pytest.mark.torchrun
def test_keyerror_fires_on_every_attempt(tmp_path: Path) -> None:
    args = [
        "--steps",
        "6",
        "--checkpoint-dir",
        "ck",
        "--crash-at-step",
        "2",
        "--crash-kind",
        "keyerror",
    ]
    proc = run_toy(args, tmp_path, LAUNCHX_ATTEMPT="3")
    assert proc.returncode == 1
    assert "KeyError: 'toy_missing_key_at_step_2'" in proc.stderr


@pytest.mark.torchrun
def test_preemption_signal_checkpoints_and_exits(tmp_path: Path) -> None:
    cmd = [
        PY,
        str(TOY),
        "--steps",
        "1000000",
        "--ckpt-every",
        "1000000",
        "--log-every",
        "5",
        "--checkpoint-dir",
        "ck",
    ]
    child = subprocess.Popen(
        cmd,
        cwd=tmp_path,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert child.stdout is not None
    try:
        for line in child.stdout:
            if line.startswith("[toy] step "):
                child.send_signal(signal.SIGUSR2)
                break
        rest = child.stdout.read()
        code = child.wait(timeout=60)
    finally:
        child.kill()
        child.wait()
    assert code == 75
    match = re.search(r"\[toy\] preempted at step (\d+) \(signal (\d+)\)", rest)
    assert match and int(match.group(2)) == signal.SIGUSR2
    latest = latest_complete(tmp_path / "ck")
    assert latest is not None and latest.step == int(match.group(1))


def test_checkpoint_dir_is_where_launchx_looks_or_none() -> None:
    assert renv.checkpoint_dir({"LAUNCHX_CHECKPOINT_DIR": "/scratch/ck"}) == "/scratch/ck"
    assert renv.checkpoint_dir({"LAUNCHX_CHECKPOINT_DIR": " "}) is None
    assert renv.checkpoint_dir({}) is None
