"""The plan: launcher decisions (every nested-launch row), ports, GPUs, argv and env."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from conftest import plan_once

from launchx import detect, profiles
from launchx.errors import ConfigError
from launchx.facts import HostFacts, Interface, PortHolder
from launchx.plan import (
    Target,
    assess,
    decide_launcher,
    decide_port,
    decide_run,
    gpu_findings,
    shared_run_id,
    target_findings,
)
from launchx.resolve import Overrides, Resolution, resolve


def facts_for(environ: dict[str, str], **kw: object) -> HostFacts:
    base = dict(
        cpu_count=4,
        launch=detect.classify_launch(environ),
        slurm=detect.parse_slurm(environ),
        environ=environ,
        python="/usr/bin/python3",
    )
    base.update(kw)
    return HostFacts(**base)  # type: ignore[arg-type]


def resolved(
    profile: str,
    environ: dict[str, str] | None = None,
    *,
    flags: dict[str, str] | None = None,
    tmp: Path = Path("/nonexistent"),
    **kw: object,
) -> Resolution:
    environ = environ or {}
    loaded = profiles.load(profile, environ, tmp)
    return resolve(loaded, facts_for(environ, **kw), Overrides(flags=flags or {}))


def codes(res: Resolution) -> set[str]:
    d = decide_launcher(res)
    return {f.code for f in d.findings}


TORCHRUN_WORKER = {
    "TORCHELASTIC_RUN_ID": "abc",
    "GROUP_RANK": "0",
    "ROLE_RANK": "1",
    "RANK": "1",
    "LOCAL_RANK": "1",
    "WORLD_SIZE": "2",
    "LOCAL_WORLD_SIZE": "2",
    "MASTER_ADDR": "127.0.0.1",
    "MASTER_PORT": "29500",
}


# Row 1: already a torchrun worker.
def test_row1_torchrun_worker_with_torchrun_is_refused() -> None:
    res = resolved("local", TORCHRUN_WORKER, flags={"launcher": "torchrun"})
    d = decide_launcher(res)
    assert "LX201" in codes(res)
    msg = d.findings[0].message
    assert "rank 1 of 2 under torchrun already" in msg
    assert "--launcher direct" in d.findings[0].fix


def test_row1_torchrun_worker_with_auto_runs_directly() -> None:
    res = resolved("local", TORCHRUN_WORKER)
    d = decide_launcher(res)
    assert d.launcher == "direct" and not d.findings


# Row 2: a platform started one process per GPU.
OMPI = {
    "OMPI_COMM_WORLD_RANK": "3",
    "OMPI_COMM_WORLD_SIZE": "8",
    "OMPI_COMM_WORLD_LOCAL_RANK": "1",
    "OMPI_COMM_WORLD_LOCAL_SIZE": "2",
    "MASTER_ADDR": "10.0.0.1",
    "MASTER_PORT": "29500",
}


def test_row2_mpi_with_torchrun_names_platform_ddp() -> None:
    res = resolved("local", OMPI, flags={"launcher": "torchrun"})
    d = decide_launcher(res)
    assert "LX202" in codes(res)
    assert "platform-ddp" in d.findings[0].fix
    assert "Open MPI" in d.findings[0].message


def test_row2_mpi_direct_maps_rank_variables() -> None:
    res = resolved("platform-ddp", OMPI)
    d = decide_launcher(res)
    assert d.launcher == "direct"
    assert d.mapped_env == {
        "RANK": "3",
        "WORLD_SIZE": "8",
        "LOCAL_RANK": "1",
        "LOCAL_WORLD_SIZE": "2",
    }
    plan = plan_once(res, Target("train.py"), run_id="r", master_port=29500)
    assert plan.argv == ("/usr/bin/python3", "train.py")
    assert plan.env_changes()["RANK"] == "3"


def test_row2_pmi_is_a_platform() -> None:
    res = resolved("local", {"PMI_RANK": "0", "PMI_SIZE": "4"}, flags={"launcher": "torchrun"})
    assert "LX202" in codes(res)


def test_row2_kubeflow_pet_variables_are_honoured_not_refused() -> None:
    environ = {
        "PET_NNODES": "2",
        "PET_NPROC_PER_NODE": "2",
        "PET_NODE_RANK": "1",
        "PET_MASTER_ADDR": "job-node-0-0.job",
        "PET_MASTER_PORT": "29500",
    }
    res = resolved("ethernet", environ, gpu_count=2)
    d = decide_launcher(res)
    assert d.launcher == "torchrun" and not d.findings
    assert res.launch["nnodes"].value == "2"
    assert str(res.launch["nnodes"].source) == "env:PET_NNODES"
    assert res.launch["node_rank"].value == "1"
    assert res.launch["master_addr"].value == "job-node-0-0.job"


# Row 3: inside an srun step with several tasks on this node.
SRUN_2_PER_NODE = {
    "SLURM_JOB_ID": "77",
    "SLURM_JOB_NODELIST": "n[1-2]",
    "SLURM_NNODES": "2",
    "SLURM_NODEID": "0",
    "SLURM_STEP_ID": "0",
    "SLURM_NTASKS": "4",
    "SLURM_STEP_NUM_TASKS": "4",
    "SLURM_STEP_TASKS_PER_NODE": "2(x2)",
    "SLURM_TASKS_PER_NODE": "2(x2)",
    "SLURM_PROCID": "1",
    "SLURM_LOCALID": "1",
}


def test_row3_torchrun_with_several_procs_in_multitask_step_is_refused() -> None:
    res = resolved("slurm", SRUN_2_PER_NODE, flags={"launcher": "torchrun", "nproc_per_node": "2"})
    d = decide_launcher(res)
    assert "LX203" in codes(res)
    assert "4 processes" in d.findings[0].message


def test_row3_auto_in_multitask_step_runs_each_task_directly() -> None:
    res = resolved("slurm", SRUN_2_PER_NODE)
    d = decide_launcher(res)
    assert d.launcher == "direct"
    assert d.mapped_env["RANK"] == "1" and d.mapped_env["LOCAL_RANK"] == "1"


def test_row3_one_task_per_node_is_fine_for_torchrun() -> None:
    environ = dict(
        SRUN_2_PER_NODE,
        SLURM_NTASKS="2",
        SLURM_STEP_NUM_TASKS="2",
        SLURM_STEP_TASKS_PER_NODE="1(x2)",
        SLURM_TASKS_PER_NODE="1(x2)",
        SLURM_NODEID="1",
    )
    res = resolved("slurm", environ, flags={"nproc_per_node": "2"})
    plan = plan_once(res, Target("t.py"), run_id="r")
    assert plan.launcher == "torchrun" and plan.ok
    argv = list(plan.argv)
    assert argv[argv.index("--nnodes") + 1] == "2"
    assert argv[argv.index("--node-rank") + 1] == "1"
    assert argv[argv.index("--master-addr") + 1] == "n1"


# Row 4: launchx inside launchx.
def test_row4_launchx_inside_launchx_is_refused() -> None:
    res = resolved("local", {"LAUNCHX_RUN_ID": "lx-1"})
    assert "LX204" in codes(res)


def test_row4_direct_mode_inside_launchx_is_allowed() -> None:
    res = resolved("local", dict(TORCHRUN_WORKER, LAUNCHX_RUN_ID="lx-1"))
    assert decide_launcher(res).launcher == "direct" and not codes(res)


# Row 5: GPUs.
def test_row5_more_procs_than_gpus_is_refused() -> None:
    res = resolved("single-node", {}, flags={"nproc_per_node": "4"}, gpu_count=2)
    found = gpu_findings(res)
    assert [f.code for f in found] == ["LX205"]
    assert "4 processes per node but only 2 GPUs are visible" in found[0].message


def test_row5_duplicate_cuda_visible_devices_is_refused() -> None:
    res = resolved(
        "single-node", {"CUDA_VISIBLE_DEVICES": "0,1,1"}, gpu_count=3, gpu_visible=("0", "1", "1")
    )
    assert "LX206" in {f.code for f in gpu_findings(res)}


def test_row5_cpu_profile_does_not_need_gpus() -> None:
    res = resolved("local", {}, flags={"nproc_per_node": "4"}, gpu_count=0)
    assert gpu_findings(res) == []


# Ports.
def test_single_node_taken_port_is_replaced() -> None:
    res = resolved(
        "local",
        {},
        flags={"master_port": "29500"},
        listening={29500: PortHolder(29500, 42, "python old_job.py")},
    )
    decision = decide_port(res)
    assert decision.port is None
    assert "pid 42" in decision.findings[0].message


def test_single_node_free_fixed_port_is_kept() -> None:
    res = resolved("local", {}, flags={"master_port": "29511"})
    assert decide_port(res).port == 29511


def test_multinode_rank0_taken_port_is_an_error_naming_the_holder() -> None:
    res = resolved(
        "local",
        {},
        flags={"nnodes": "2", "node_rank": "0", "master_port": "29500", "master_addr": "127.0.0.1"},
        listening={29500: PortHolder(29500, 4242, "python yesterday.py")},
    )
    decision = decide_port(res)
    assert decision.findings[0].code == "LX207"
    assert (
        "pid 4242" in decision.findings[0].message
        and "yesterday.py" in decision.findings[0].message
    )
    assert "kill 4242" in decision.findings[0].fix


def test_multinode_other_rank_binds_nothing() -> None:
    res = resolved(
        "local",
        {},
        flags={"nnodes": "2", "node_rank": "1", "master_port": "29500", "master_addr": "127.0.0.1"},
        listening={29500: PortHolder(29500, 4242, "x")},
    )
    assert decide_port(res).findings == ()


def test_multinode_without_master_addr_is_an_error() -> None:
    res = resolved("ethernet", {}, flags={"nnodes": "2", "node_rank": "1"}, gpu_count=1)
    assert "LX301" in {f.code for f in res.findings}


# Argv and env.
def test_torchrun_argv_and_contract_env() -> None:
    res = resolved("local", {})
    plan = plan_once(
        res,
        Target("train.py", ("--lr", "0.1")),
        run_id="lx-abc",
        attempt=2,
        master_port=31000,
        log_dir="/tmp/logs",
        resume_from="/ck/step_5.pt",
        checkpoint_dir="/ck",
    )
    argv = list(plan.argv)
    assert argv[:3] == ["/usr/bin/python3", "-m", "torch.distributed.run"]
    assert argv[argv.index("--max-restarts") + 1] == "0"
    assert argv[argv.index("--master-port") + 1] == "31000"
    assert argv[argv.index("--rdzv-id") + 1] == "lx-abc-2"
    assert argv[-3:] == ["train.py", "--lr", "0.1"]
    env = plan.env_changes()
    assert env["LAUNCHX_RUN_ID"] == "lx-abc"
    assert env["LAUNCHX_ATTEMPT"] == "2"
    assert env["LAUNCHX_PROFILE"] == "local"
    assert env["LAUNCHX_PG_TIMEOUT_S"] == "300"
    assert env["LAUNCHX_RESUME_FROM"] == "/ck/step_5.pt"
    assert env["LAUNCHX_CHECKPOINT_DIR"] == "/ck"
    # a run without a checkpoint directory tells the script none
    bare = plan_once(res, Target("train.py", ()), run_id="lx-abc")
    assert "LAUNCHX_CHECKPOINT_DIR" not in bare.env_changes()


@pytest.mark.parametrize("mode", ["module", "no_python"])
def test_module_and_no_python(mode: str) -> None:
    res = resolved("local", {})
    target = Target("pkg.train", ("a",), module=mode == "module", no_python=mode == "no_python")
    argv = list(plan_once(res, target, run_id="r", master_port=1).argv)
    flag = "-m" if mode == "module" else "--no-python"
    assert argv[-3:] == [flag, "pkg.train", "a"]


HOSTILE = [
    "a b",
    "it's",
    '"q"',
    "$(touch /tmp/pwned)",
    "`id`",
    "; echo x",
    "$HOME",
    "back\\",
    "new\nline",
    "*",
    "",
]


def test_shell_line_round_trips_hostile_arguments() -> None:
    res = resolved("local", {})
    plan = plan_once(res, Target("train.py", tuple(HOSTILE)), run_id="r", master_port=1)
    assert shlex.split(plan.shell_line()) == list(plan.argv)
    assert list(plan.argv[-len(HOSTILE) :]) == HOSTILE


def test_renamed_variable_is_passed_under_its_new_name() -> None:
    res = resolved("local", {"NCCL_ASYNC_ERROR_HANDLING": "1"})
    plan = plan_once(res, Target("t.py"), run_id="r", master_port=1)
    env = plan.env_changes()
    assert env["TORCH_NCCL_ASYNC_ERROR_HANDLING"] == "1"
    assert env["NCCL_ASYNC_ERROR_HANDLING"] is None


def test_mpi_without_master_warns_lx209() -> None:
    environ = {k: v for k, v in OMPI.items() if not k.startswith("MASTER_")}
    res = resolved("platform-ddp", environ)
    found = {f.code: f for f in decide_launcher(res).findings}
    assert "LX209" in found and "MASTER_ADDR and MASTER_PORT" in found["LX209"].message
    assert "LX209" not in codes(resolved("platform-ddp", OMPI))


def test_platform_rendezvous_variables_cannot_override_the_plan() -> None:
    """Kubeflow's elastic PET_* would switch torchrun to another rendezvous: the plan passes
    its own explicitly and removes PET_STANDALONE."""
    environ = {"PET_STANDALONE": "1", "PET_RDZV_BACKEND": "c10d", "PET_RDZV_ENDPOINT": "x:1"}
    plan = plan_once(resolved("local", environ), Target("t.py"), run_id="r", master_port=31001)
    argv = list(plan.argv)
    assert argv[argv.index("--rdzv-backend") + 1] == "static"
    assert argv[argv.index("--rdzv-endpoint") + 1] == "127.0.0.1:31001"
    assert plan.env_changes()["PET_STANDALONE"] is None


def test_resume_arg_is_added_once_where_the_script_starts() -> None:
    """torchrun: the script gets --resume PATH; an srun step in per_node mode leaves it to the
    launchx on each node (which adds it itself), so it is never passed twice."""
    flags = {"resume.resume_arg": "--resume {path}"}
    plan = plan_once(
        resolved("local", {}, flags=flags),
        Target("t.py", ("--lr", "1")),
        run_id="r",
        master_port=1,
        resume_from="/ck/step_5.pt",
    )
    assert list(plan.argv[-4:]) == ["--lr", "1", "--resume", "/ck/step_5.pt"]
    batch = {
        "SLURM_JOB_ID": "7",
        "SLURM_JOB_NODELIST": "n[1-2]",
        "SLURM_NNODES": "2",
        "SLURM_NODEID": "0",
    }
    srun = plan_once(
        resolved("slurm", batch, flags=flags),
        Target("t.py"),
        run_id="r",
        resume_from="/ck/step_5.pt",
    )
    assert srun.launcher == "srun" and "/ck/step_5.pt" not in srun.argv
    assert srun.argv[-2:] == ("--", "t.py")


# per_task in a batch script: one srun task per process, and as many as the allocation has.
PER_TASK_BATCH = {
    "SLURM_JOB_ID": "7",
    "SLURM_JOB_NODELIST": "n[1-2]",
    "SLURM_NNODES": "2",
    "SLURM_NODEID": "0",
    "SLURM_NTASKS": "4",
    "SLURM_TASKS_PER_NODE": "2(x2)",
}


def test_per_task_srun_says_one_task_per_process() -> None:
    res = resolved("slurm", PER_TASK_BATCH, flags={"slurm.mode": "per_task"})
    plan = plan_once(res, Target("t.py"), run_id="r")
    assert plan.launcher == "srun" and plan.ok
    assert plan.context == "SLURM batch script: srun starts one task per process (2 per node)"
    assert "--ntasks-per-node=2" in plan.argv
    per_node = plan_once(resolved("slurm", PER_TASK_BATCH), Target("t.py"), run_id="r")
    assert per_node.context == "SLURM batch script: srun starts one task per node"


def test_per_task_nproc_other_than_the_allocation_is_refused_lx210() -> None:
    """srun ignores --ntasks-per-node=4 in a 2-task-per-node allocation (it starts 2): the
    world would silently be half the size the plan prints."""
    flags = {"slurm.mode": "per_task", "nproc_per_node": "4"}
    plan = plan_once(resolved("slurm", PER_TASK_BATCH, flags=flags), Target("t.py"), run_id="r")
    found = [f for f in plan.findings if f.code == "LX210"]
    assert not plan.ok and len(found) == 1 and found[0].level == "error"
    assert "4 processes per node" in found[0].message and "2 tasks per node" in found[0].message
    assert "--nproc-per-node 2" in found[0].fix and "--ntasks-per-node 4" in found[0].fix


# LAUNCHX_RUN_ID when each rank an outer launcher started runs its own launchx.
def _rank_env(kind: str, rank: int, port: str = "29555", **extra: str) -> dict[str, str]:
    """One rank's environment from a platform, Open MPI or torchrun (with --rdzv-id left at
    its default, TORCHELASTIC_RUN_ID=none): only the rank variables differ between ranks."""
    shared = {"MASTER_ADDR": "10.0.0.1", "MASTER_PORT": port, **extra}
    if kind == "platform":
        return {**shared, "RANK": str(rank), "WORLD_SIZE": "2", "LOCAL_RANK": str(rank)}
    if kind == "mpi":
        return {
            **shared,
            "OMPI_COMM_WORLD_RANK": str(rank),
            "OMPI_COMM_WORLD_SIZE": "2",
            "OMPI_COMM_WORLD_LOCAL_RANK": str(rank),
            "OMPI_COMM_WORLD_LOCAL_SIZE": "2",
        }
    return {
        **shared,
        "TORCHELASTIC_RUN_ID": "none",
        "GROUP_RANK": "0",
        "ROLE_RANK": str(rank),
        "RANK": str(rank),
        "LOCAL_RANK": str(rank),
        "WORLD_SIZE": "2",
        "LOCAL_WORLD_SIZE": "2",
    }


def _run_ids(kind: str, port: str = "29555", **extra: str) -> set[str]:
    return {
        str(shared_run_id(resolved("platform-ddp", _rank_env(kind, rank, port, **extra))))
        for rank in (0, 1)
    }


@pytest.mark.parametrize("kind", ["platform", "mpi", "torchrun"])
def test_run_id_is_shared_by_the_ranks_an_outer_launcher_started(kind: str) -> None:
    [run_id] = _run_ids(kind)
    assert run_id.startswith("lx-")
    assert run_id == next(iter(_run_ids(kind)))  # a retried rank computes it again


@pytest.mark.parametrize("kind", ["platform", "mpi", "torchrun"])
def test_run_id_differs_between_runs_on_different_ports(kind: str) -> None:
    assert _run_ids(kind, "29555") != _run_ids(kind, "29556")


def test_run_id_tells_two_mpi_jobs_on_the_same_port_apart() -> None:
    """mpirun -x MASTER_PORT=29500 twice: Open MPI's job id is what differs."""
    first = _run_ids("mpi", OMPI_MCA_ess_base_jobid="1234")
    assert len(first) == 1
    assert first != _run_ids("mpi", OMPI_MCA_ess_base_jobid="1235")


def test_run_id_of_a_lone_run_is_drawn_at_launch() -> None:
    """Nobody else must agree on it: launchx draws a fresh one when it starts (and a dry
    run says so rather than showing an id the real run would not use)."""
    assert shared_run_id(resolved("local", {})) is None
    one_rank = _rank_env("platform", 0) | {"WORLD_SIZE": "1"}
    assert shared_run_id(resolved("platform-ddp", one_rank)) is None
    assert shared_run_id(resolved("local", {}), "mine") == "mine"


@pytest.mark.parametrize(
    "bad",
    ["../../x", "/home/me/run", "a/b", "..", ".hidden", "x" * 129, ""],  # "": $UNSET
)
def test_a_run_id_that_is_not_one_plain_name_is_refused(bad: str) -> None:
    """The run id names the default log directory, whose old runs launchx prunes: a path
    there once made it delete the user's own directories."""
    with pytest.raises(ConfigError, match="cannot be a run id"):
        shared_run_id(resolved("local", {}), bad)
    assert shared_run_id(resolved("local", {}), "exp-4.2_b") == "exp-4.2_b"


def test_a_platforms_run_id_with_odd_characters_becomes_its_digest() -> None:
    env = {"TORCHELASTIC_RUN_ID": "team/job:42"}
    first = shared_run_id(resolved("local", env))
    assert first is not None and first.startswith("lx-") and "/" not in first
    assert first == shared_run_id(resolved("local", env))  # the same on every node
    assert shared_run_id(resolved("local", {"TORCHELASTIC_RUN_ID": "job-42"})) == "job-42"


@pytest.mark.parametrize(
    ("grace", "shutdown"), [("30", "27"), ("10", "9"), ("3", "2"), ("1", "1"), ("100", "95")]
)
def test_the_ranks_get_nearly_all_of_the_grace_period(grace: str, shutdown: str) -> None:
    """torchrun SIGKILLs ranks still there after its shutdown timeout: that is the ranks'
    grace, so it is the user's grace period less the little torchrun needs for its report
    (it once took 5 s of every grace: 5 s of a 10 s one)."""
    res = resolved("local", flags={"timeouts.grace_period_s": grace})
    plan_env = {e.name: e.value for e in plan_once(res, Target("t.py"), run_id="r").env}
    assert plan_env["PET_SHUTDOWN_TIMEOUT"] == shutdown


def test_row3_step_with_only_ntasks_and_nnodes_refuses_torchrun() -> None:
    """No per-node count: 8 tasks on 2 nodes are several per node, not one."""
    environ = {
        "SLURM_JOB_ID": "5",
        "SLURM_STEP_ID": "0",
        "SLURM_NTASKS": "8",
        "SLURM_NNODES": "2",
        "SLURM_PROCID": "1",
    }
    res = resolved("local", environ, flags={"launcher": "torchrun"})
    assert "LX203" in codes(res)
    assert "4 tasks on this node" in decide_launcher(res).findings[0].message


# Row 6: what launchx is asked to start exists (LX211).
@pytest.mark.parametrize(
    ("kind", "name", "made", "close"),
    [
        ("script", "trian.py", ["train.py", "eval.py"], ("train.py",)),
        ("script", "sub/train.py", [], ()),
        ("module", "nosuch_pkg_xyz.train", ["train.py"], ()),
    ],
)
def test_a_missing_target_is_refused_with_the_names_that_exist(
    tmp_path: Path, kind: str, name: str, made: list[str], close: tuple[str, ...]
) -> None:
    for file in made:
        (tmp_path / file).write_text("print(1)\n")
    here = detect.probe_target(
        name, module=kind == "module", no_python=False, cwd=str(tmp_path), path_var=""
    )
    assert not here.found and here.close == close
    run = decide_run(resolved("local"), here=here)
    (lx211,) = [f for f in run.findings if f.code == "LX211"]
    assert lx211.level == "error" and repr(name) in lx211.message
    assert not run.ok
    if close:
        assert f"did you mean {close[0]}?" in lx211.message


def test_an_existing_target_passes(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("print(1)\n")
    (tmp_path / "mypkg").mkdir()
    for name, module in (("train.py", False), ("mypkg.train", True), ("json", True)):
        here = detect.probe_target(
            name, module=module, no_python=False, cwd=str(tmp_path), path_var=""
        )
        assert here.found, name
        assert target_findings(here) == []


def test_a_directory_runs_only_with_a_main_py(tmp_path: Path) -> None:
    """``python dir`` runs dir/__main__.py; a directory without one is named as a directory,
    not as a missing script (it exists, so "not found" would send the user looking)."""
    (tmp_path / "job").mkdir()
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__main__.py").write_text("print(1)\n")
    for name in ("job", str(tmp_path / "job") + "/"):
        here = detect.probe_target(
            name, module=False, no_python=False, cwd=str(tmp_path), path_var=""
        )
        (lx211,) = target_findings(here)
        assert "is a directory with no __main__.py" in lx211.message
        assert "not found" not in lx211.message and "/train.py" in lx211.fix
    app = detect.probe_target("app", module=False, no_python=False, cwd=str(tmp_path), path_var="")
    assert app.found and target_findings(app) == []


def test_an_executable_is_looked_up_on_path(tmp_path: Path) -> None:
    tool = tmp_path / "mytool"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    found = detect.probe_target(
        "mytool", module=False, no_python=True, cwd="/", path_var=str(tmp_path)
    )
    typo = detect.probe_target(
        "mytoool", module=False, no_python=True, cwd="/", path_var=str(tmp_path)
    )
    assert found.found and not typo.found and typo.close == ("mytool",)
    assert "on PATH" in target_findings(typo)[0].message


# Row 7: a count that contradicts the launch in place (LX212).
def test_nproc_contradicting_the_torchrun_in_place_is_an_error() -> None:
    res = resolved("local", TORCHRUN_WORKER, flags={"nproc_per_node": "4"})
    d = decide_launcher(res)
    (lx212,) = [f for f in d.findings if f.code == "LX212"]
    assert lx212.level == "error" and "4 processes per node" in lx212.message
    assert f"started {TORCHRUN_WORKER['LOCAL_WORLD_SIZE']}" in lx212.message


def test_nproc_agreeing_with_the_launch_in_place_or_left_auto_is_fine() -> None:
    same = TORCHRUN_WORKER["LOCAL_WORLD_SIZE"]
    assert "LX212" not in codes(resolved("local", TORCHRUN_WORKER, flags={"nproc_per_node": same}))
    assert "LX212" not in codes(resolved("local", TORCHRUN_WORKER))


def test_too_many_processes_on_a_gpu_less_host_suggests_the_local_profile() -> None:
    res = resolved("single-node", {}, flags={"nproc_per_node": "2"}, gpu_count=0)
    (lx205,) = [f for f in gpu_findings(res) if f.code == "LX205"]
    assert "-p local" in lx205.fix and "--nproc-per-node 0" not in lx205.fix


def test_one_process_on_a_gpu_less_host_is_counted_in_the_singular() -> None:
    res = resolved("single-node", {}, flags={"nproc_per_node": "1"}, gpu_count=0)
    (lx205,) = [f for f in gpu_findings(res) if f.code == "LX205"]
    assert lx205.message.startswith("1 process per node but only 0 GPUs are visible")


# Row 8: the command is itself a launcher (LX213).
INNER = Target("torchrun", ("--nproc-per-node", "2", "train.py"), no_python=True)


def test_a_launcher_inside_the_command_is_refused_before_anything_starts() -> None:
    run = decide_run(resolved("local"), target=INNER)
    (lx213,) = [f for f in run.findings if f.code == "LX213"]
    assert lx213.level == "error" and "torchrun" in lx213.message and not run.ok
    assert "--launcher direct" in lx213.fix and "allow_inner_launcher" in lx213.fix
    module = Target("torch.distributed.run", ("train.py",), module=True)
    assert "LX213" in {f.code for f in decide_run(resolved("local"), target=module).findings}


def test_an_inner_launcher_is_allowed_once_or_by_the_profile() -> None:
    direct = resolved("local", flags={"launcher": "direct"})
    assert "LX213" not in {f.code for f in decide_run(direct, target=INNER).findings}
    allowed = resolve(
        profiles.load("local", {}, Path("/nonexistent")),
        facts_for({}),
        Overrides(sets=("allow_inner_launcher=true",)),
    )
    assert "LX213" not in {f.code for f in decide_run(allowed, target=INNER).findings}
    plain = Target("train.py", ("--lr", "1"))
    assert "LX213" not in {f.code for f in decide_run(resolved("local"), target=plain).findings}


@pytest.mark.parametrize(
    ("environ", "flags", "host_ips", "refused"),
    [
        ({"MASTER_ADDR": "10.9.9.9"}, {}, {}, True),  # stale, from the shell
        ({}, {"master_addr": "10.9.9.9"}, {}, True),
        ({"MASTER_ADDR": "10.0.0.5"}, {}, {}, False),  # this host's own address
        ({"MASTER_ADDR": "me"}, {}, {"me": "10.0.0.5"}, False),
        ({"MASTER_ADDR": "far"}, {}, {"far": "10.9.9.9"}, True),
        ({"MASTER_ADDR": "unresolved-name"}, {}, {}, False),  # cannot tell: nothing said
        ({"MASTER_ADDR": "localhost"}, {}, {}, False),
        ({"MASTER_ADDR": "10.9.9.9"}, {"nnodes": "2", "node_rank": "1"}, {}, False),
        # IPv6: this host's own (as given, or in brackets), another, loopback, link-local
        ({"MASTER_ADDR": "fd00::2"}, {}, {}, False),
        ({"MASTER_ADDR": "[fd00::2]"}, {}, {}, False),
        ({"MASTER_ADDR": "fd00::99"}, {}, {}, True),
        ({"MASTER_ADDR": "::1"}, {}, {}, False),
        ({"MASTER_ADDR": "fe80::1"}, {}, {}, False),  # (needs its interface: not judged)
    ],
)
def test_one_node_with_a_master_address_elsewhere_is_named(
    environ: dict[str, str], flags: dict[str, str], host_ips: dict[str, str], refused: bool
) -> None:
    """A stale MASTER_ADDR turned a one-node run into a 15-minute wait: torchrun's agent
    dials the store it serves at an address that is not its own."""
    interfaces = (
        Interface("lo", True, ("127.0.0.1",), "loopback"),
        Interface("eth0", True, ("10.0.0.5", "fd00::2", "fe80::fc:ff:fe00:1")),
    )
    res = resolved("local", environ, flags=flags, interfaces=interfaces, host_ips=host_ips)
    _decision, found = assess(res)
    lx214 = [f for f in found if f.code == "LX214"]
    assert bool(lx214) is refused
    if refused:
        assert lx214[0].level == "warning" and "not an address of this host" in lx214[0].message
        assert ("unset MASTER_ADDR" in lx214[0].fix) is ("MASTER_ADDR" in environ)


def test_a_direct_launch_that_nothing_started_says_one_process_runs() -> None:
    """``-p platform-ddp`` on a workstation: the banner said 2 processes, the script ran
    once (as one process of a world of one)."""
    _decision, found = assess(resolved("platform-ddp", cpu_count=8))
    (lx215,) = [f for f in found if f.code == "LX215"]
    assert lx215.level == "warning" and "runs once, as one process" in lx215.message
    ranks = {"RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "MASTER_ADDR": "127.0.0.1"}
    _decision, found = assess(resolved("platform-ddp", {**ranks, "MASTER_PORT": "29777"}))
    assert not [f for f in found if f.code == "LX215"]
