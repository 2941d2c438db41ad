"""Inner-launcher recognition: every launcher name, every wrapper, and the look-alikes.

Each row is a command as launchx would run it per rank (``Target.command``): a launcher
must be found with the words that show it; a look-alike must not be.
"""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from launchx import inner_launcher as il
from launchx.inner_launcher import find_inner_launcher
from launchx.plan import Target

PY = "/venv/bin/python3"

# command -> (family, words that show it, wrappers it was behind, what it would have run)
FOUND: list[tuple[str, tuple[str, str, str, str | None]]] = [
    # torch
    (
        "torchrun --nproc-per-node 2 train.py --lr 3",
        ("torchrun", "torchrun", "", "train.py --lr 3"),
    ),
    (
        "/opt/venv/bin/torchrun --standalone train.py",
        ("torchrun", "/opt/venv/bin/torchrun", "", "train.py"),
    ),
    (
        f"{PY} -m torch.distributed.run --nproc-per-node=2 train.py",
        ("torchrun", f"{PY} -m torch.distributed.run", "", "train.py"),
    ),
    (
        f"{PY} -m torch.distributed.launch --use-env train.py",
        ("torchrun", f"{PY} -m torch.distributed.launch", "", "train.py"),
    ),
    (
        f"{PY} -u -B -m torch.distributed.run -m pkg.train --x",
        ("torchrun", f"{PY} -u -B -m torch.distributed.run", "", "-m pkg.train --x"),
    ),
    (
        f"{PY} -uB -mtorch.distributed.run train.py",
        ("torchrun", f"{PY} -uB -mtorch.distributed.run", "", "train.py"),
    ),
    (
        f"{PY} -X dev -W ignore -m torch.distributed.run t.py",
        ("torchrun", f"{PY} -X dev -W ignore -m torch.distributed.run", "", "t.py"),
    ),
    (
        f"{PY} -Xdev -Wignore -m torch.distributed.run t.py",
        ("torchrun", f"{PY} -Xdev -Wignore -m torch.distributed.run", "", "t.py"),
    ),
    (
        f"{PY} /opt/venv/bin/torchrun --nnodes 1 t.py",
        ("torchrun", f"{PY} /opt/venv/bin/torchrun", "", "t.py"),
    ),
    (
        "python3.11 -m torch.distributed.run t.py",
        ("torchrun", "python3.11 -m torch.distributed.run", "", "t.py"),
    ),
    (
        "python -m torch.distributed.run --no-python bash run.sh",
        ("torchrun", "python -m torch.distributed.run", "", "bash run.sh"),
    ),
    ("torchrun --nproc-per-node 2", ("torchrun", "torchrun", "", None)),
    # accelerate
    (
        "accelerate launch --multi_gpu --num_processes 2 t.py",
        ("accelerate", "accelerate launch", "", "t.py"),
    ),
    (
        "accelerate launch --cpu -m pkg.train",
        ("accelerate", "accelerate launch", "", "-m pkg.train"),
    ),
    ("accelerate-launch --num_processes=2 t.py", ("accelerate", "accelerate-launch", "", "t.py")),
    (
        f"{PY} -m accelerate.commands.launch t.py",
        ("accelerate", f"{PY} -m accelerate.commands.launch", "", "t.py"),
    ),
    (
        f"{PY} -m accelerate.commands.accelerate_cli launch t.py",
        ("accelerate", f"{PY} -m accelerate.commands.accelerate_cli launch", "", "t.py"),
    ),
    # DeepSpeed
    (
        "deepspeed --num_gpus 2 t.py --deepspeed ds.json",
        ("deepspeed", "deepspeed", "", "t.py --deepspeed ds.json"),
    ),
    ("deepspeed.pt t.py", ("deepspeed", "deepspeed.pt", "", "t.py")),
    ("ds --no_local_rank t.py", ("deepspeed", "ds", "", "t.py")),
    (
        f"{PY} -m deepspeed.launcher.runner t.py",
        ("deepspeed", f"{PY} -m deepspeed.launcher.runner", "", "t.py"),
    ),
    (
        f"{PY} -u -m deepspeed.launcher.launch --world_info=x t.py",
        ("deepspeed", f"{PY} -u -m deepspeed.launcher.launch", "", "t.py"),
    ),
    (
        f"{PY} -m deepspeed.launcher.launcher_helper t.py",
        ("deepspeed", f"{PY} -m deepspeed.launcher.launcher_helper", "", "t.py"),
    ),
    # Lightning
    ("fabric run --devices 2 t.py", ("lightning", "fabric run", "", "t.py")),
    ("lightning_fabric run t.py", ("lightning", "lightning_fabric run", "", "t.py")),
    ("lightning run model --devices 2 t.py", ("lightning", "lightning run model", "", "t.py")),
    (
        f"{PY} -m lightning.fabric.cli t.py",
        ("lightning", f"{PY} -m lightning.fabric.cli", "", "t.py"),
    ),
    (
        f"{PY} -m lightning_fabric.cli t.py",
        ("lightning", f"{PY} -m lightning_fabric.cli", "", "t.py"),
    ),
    # schedulers and MPI (launchx already starts one process per rank)
    ("srun -n 2 python t.py", ("slurm", "srun", "", "python t.py")),
    ("mpirun -np 2 python t.py", ("mpi", "mpirun", "", "python t.py")),
    ("mpiexec -n 2 python t.py", ("mpi", "mpiexec", "", "python t.py")),
    ("mpiexec.hydra -n 2 python t.py", ("mpi", "mpiexec.hydra", "", "python t.py")),
    ("orterun -np 2 python t.py", ("mpi", "orterun", "", "python t.py")),
    # wrappers, each on its own
    ("A=1 B=two torchrun t.py", ("torchrun", "torchrun", "", "t.py")),
    ("env torchrun t.py", ("torchrun", "torchrun", "env", "t.py")),
    ("env -i -u HOME -C /tmp A=1 -- torchrun t.py", ("torchrun", "torchrun", "env", "t.py")),
    ("env --unset=HOME --chdir=/tmp torchrun t.py", ("torchrun", "torchrun", "env", "t.py")),
    ("env - A=1 torchrun t.py", ("torchrun", "torchrun", "env", "t.py")),
    ("env -S 'torchrun --standalone' t.py", ("torchrun", "torchrun", "env", "t.py")),
    (
        "env -S'python3 -u -m torch.distributed.run' t.py",
        ("torchrun", "python3 -u -m torch.distributed.run", "env", "t.py"),
    ),
    ("env --split-string='torchrun' t.py", ("torchrun", "torchrun", "env", "t.py")),
    ("nohup torchrun t.py", ("torchrun", "torchrun", "nohup", "t.py")),
    ("setsid -w torchrun t.py", ("torchrun", "torchrun", "setsid", "t.py")),
    ("exec -a name torchrun t.py", ("torchrun", "torchrun", "exec", "t.py")),
    ("time -p torchrun t.py", ("torchrun", "torchrun", "time", "t.py")),
    ("/usr/bin/time -f '%e' -o t.txt torchrun t.py", ("torchrun", "torchrun", "time", "t.py")),
    ("nice -n 10 torchrun t.py", ("torchrun", "torchrun", "nice", "t.py")),
    ("nice -10 torchrun t.py", ("torchrun", "torchrun", "nice", "t.py")),
    ("nice --adjustment=5 torchrun t.py", ("torchrun", "torchrun", "nice", "t.py")),
    ("ionice -c 2 -n 0 torchrun t.py", ("torchrun", "torchrun", "ionice", "t.py")),
    ("chrt -f 10 torchrun t.py", ("torchrun", "torchrun", "chrt", "t.py")),
    ("taskset 0x3 torchrun t.py", ("torchrun", "torchrun", "taskset", "t.py")),
    ("taskset -c 0-3 torchrun t.py", ("torchrun", "torchrun", "taskset", "t.py")),
    (
        "numactl --cpunodebind=0 --membind=0 torchrun t.py",
        ("torchrun", "torchrun", "numactl", "t.py"),
    ),
    ("numactl -N 0 -m 0 -l torchrun t.py", ("torchrun", "torchrun", "numactl", "t.py")),
    ("stdbuf -oL -eL torchrun t.py", ("torchrun", "torchrun", "stdbuf", "t.py")),
    ("stdbuf -o L torchrun t.py", ("torchrun", "torchrun", "stdbuf", "t.py")),
    ("timeout 3600 torchrun t.py", ("torchrun", "torchrun", "timeout", "t.py")),
    ("timeout -s KILL -k 5 1h torchrun t.py", ("torchrun", "torchrun", "timeout", "t.py")),
    ("timeout --preserve-status 10 torchrun t.py", ("torchrun", "torchrun", "timeout", "t.py")),
    ("sudo -E torchrun t.py", ("torchrun", "torchrun", "sudo", "t.py")),
    ("sudo -u bob torchrun t.py", ("torchrun", "torchrun", "sudo", "t.py")),
    ("uv run torchrun t.py", ("torchrun", "torchrun", "uv run", "t.py")),
    (
        "uv run --with x --frozen python -m torch.distributed.run t.py",
        ("torchrun", "python -m torch.distributed.run", "uv run", "t.py"),
    ),
    (
        "uv run -m torch.distributed.run t.py",
        ("torchrun", "-m torch.distributed.run", "uv run", "t.py"),
    ),
    (
        "uv run --module accelerate.commands.launch t.py",
        ("accelerate", "--module accelerate.commands.launch", "uv run", "t.py"),
    ),
    ("conda run -n env torchrun t.py", ("torchrun", "torchrun", "conda run", "t.py")),
    (
        "conda run --no-capture-output -p /envs/x accelerate launch t.py",
        ("accelerate", "accelerate launch", "conda run", "t.py"),
    ),
    ("mamba run -n env torchrun t.py", ("torchrun", "torchrun", "mamba run", "t.py")),
    ("micromamba run -n env torchrun t.py", ("torchrun", "torchrun", "micromamba run", "t.py")),
    ("poetry run torchrun t.py", ("torchrun", "torchrun", "poetry run", "t.py")),
    ("poetry run -C dir torchrun t.py", ("torchrun", "torchrun", "poetry run", "t.py")),
    ("pipenv run torchrun t.py", ("torchrun", "torchrun", "pipenv run", "t.py")),
    ("pdm run torchrun t.py", ("torchrun", "torchrun", "pdm run", "t.py")),
    ("hatch run torchrun t.py", ("torchrun", "torchrun", "hatch run", "t.py")),
    ("pixi run -e gpu torchrun t.py", ("torchrun", "torchrun", "pixi run", "t.py")),
    (
        "apptainer exec --nv -B /data img.sif torchrun t.py",
        ("torchrun", "torchrun", "apptainer exec", "t.py"),
    ),
    (
        "singularity exec img.sif python -m torch.distributed.run t.py",
        ("torchrun", "python -m torch.distributed.run", "singularity exec", "t.py"),
    ),
    ("bash -c 'torchrun --standalone t.py'", ("torchrun", "torchrun", "bash", "t.py")),
    ("sh -ec 'cd /work && deepspeed t.py'", ("deepspeed", "deepspeed", "sh", "t.py")),
    (
        "bash -o pipefail -c 'accelerate launch t.py | tee log'",
        ("accelerate", "accelerate launch", "bash", "t.py"),
    ),
    ("bash -c \"bash -c 'torchrun t.py'\"", ("torchrun", "torchrun", "bash, bash", "t.py")),
    # several wrappers at once
    (
        "env A=1 nohup nice -n 5 python3 -u -m torch.distributed.run t.py",
        ("torchrun", "python3 -u -m torch.distributed.run", "env, nohup, nice", "t.py"),
    ),
    (
        "timeout 10 taskset -c 0 numactl -l stdbuf -oL conda run -n e poetry run "
        "time -p sudo -E setsid torchrun t.py",
        (
            "torchrun",
            "torchrun",
            "timeout, taskset, numactl, stdbuf, conda run, poetry run, time, sudo, setsid",
            "t.py",
        ),
    ),
]


def ids(rows: list[tuple[str, object]]) -> list[str]:
    return [cmd[:60] for cmd, _ in rows]


@pytest.mark.parametrize(("command", "expected"), FOUND, ids=ids(FOUND))
def test_launcher_is_found(command: str, expected: tuple[str, str, str, str | None]) -> None:
    family, words, through, inner = expected
    found = find_inner_launcher(shlex.split(command))
    assert found is not None, command
    assert found.family == family
    assert found.words == tuple(shlex.split(words))
    assert ", ".join(found.through) == through
    assert found.inner_command == (None if inner is None else tuple(shlex.split(inner)))


NOT_LAUNCHERS = [
    "python train.py",
    f"{PY} -u train.py --launcher torchrun",
    f"{PY} -m pkg.train",
    f"{PY} -c 'import torch.distributed.run'",  # the program is hidden in -c
    f"{PY} - < torchrun",
    f"{PY}",
    "torchfrtrace trace.json",
    f"{PY} -m torch.distributed",
    f"{PY} -m torch.distributed.elastic.agent.server",
    "accelerate config",
    "accelerate env",
    "accelerate test",
    "accelerate estimate-memory gpt2",
    "accelerate --help",
    "accelerate",
    "accelerate-config",
    "accelerate-estimate-memory gpt2",
    "accelerate-merge-weights a b",
    f"{PY} -m accelerate.commands.accelerate_cli config",
    "ds_report",
    "dsr",
    "ds_bench",
    "ds_elastic",
    "ds_io",
    "ds_nvme_tune",
    "ds_ssh hostname",
    "fabric",
    "fabric --help",
    "fabric consolidate ckpt",
    "lightning",
    "transformers chat",
    "my_torchrun.py",
    f"{PY} torchrun.py",  # a user's script of that name is still a script... see below
    "run_train.sh",  # a shell script: not readable statically (frameworks.md §1.2)
    "bash run_train.sh",
    "bash -c 'echo torchrun'",
    "bash -c 'python train.py && echo done'",
    "env -i A=1 python train.py",
    "nohup python train.py",
    "uv run train.py",
    "uv run --with torchrun python train.py",
    "conda run -n torchrun python train.py",
    "timeout 10 python train.py",
    "taskset -c 0 python train.py",
    "TORCHRUN=1 python train.py",
    "env TORCHRUN=torchrun python train.py",
    "apptainer exec torchrun.sif python train.py",
    "",
]


@pytest.mark.parametrize("command", NOT_LAUNCHERS)
def test_look_alikes_are_not_launchers(command: str) -> None:
    if command == f"{PY} torchrun.py":
        return  # covered by test_a_script_named_like_a_launcher
    assert find_inner_launcher(shlex.split(command)) is None


def test_a_script_named_like_a_launcher() -> None:
    """``python torchrun`` runs torchrun's console script; ``python torchrun.py`` runs a
    user's file that merely shares the name."""
    assert find_inner_launcher([PY, "torchrun"]) is not None
    assert find_inner_launcher([PY, "torchrun.py"]) is None


@pytest.mark.parametrize("command", ["srun -n 2 python t.py", "mpirun python t.py", "mpiexec x"])
def test_srun_and_mpirun_only_where_launchx_starts_each_rank(command: str) -> None:
    assert find_inner_launcher(shlex.split(command), per_rank=True) is not None
    assert find_inner_launcher(shlex.split(command), per_rank=False) is None
    # the other launchers are nested whatever launchx starts
    assert find_inner_launcher(["torchrun", "t.py"], per_rank=False) is not None


@pytest.mark.parametrize(
    ("target", "family"),
    [
        (Target("torchrun", ("--nproc-per-node", "2", "t.py"), no_python=True), "torchrun"),
        (Target("torch.distributed.run", ("t.py",), module=True), "torchrun"),
        (Target("accelerate", ("launch", "t.py"), no_python=True), "accelerate"),
        (Target("accelerate.commands.launch", ("t.py",), module=True), "accelerate"),
        (Target("/venv/bin/deepspeed", ("t.py",)), "deepspeed"),  # python runs the script
        (Target("env", ("A=1", "torchrun", "t.py"), no_python=True), "torchrun"),
        (Target("lightning.fabric.cli", ("t.py",), module=True), "lightning"),
    ],
)
def test_what_launchx_would_run(target: Target, family: str) -> None:
    """The way the run loop calls it: on the command of the plan's target."""
    found = find_inner_launcher(target.command(PY))
    assert found is not None and found.family == family
    assert find_inner_launcher(Target("train.py", ("--lr", "3")).command(PY)) is None


def test_every_table_entry_is_recognised() -> None:
    """No name in the tables goes untested: each executable and module is found."""
    for name, (family, subs) in il._EXECUTABLES.items():
        words = [name, *(subs[:1] if subs else ()), "t.py"]
        found = find_inner_launcher(words)
        assert found is not None and found.family == family, name
    for module, (family, subs) in il._MODULES.items():
        words = [PY, "-m", module, *(subs[:1] if subs else ()), "t.py"]
        found = find_inner_launcher(words)
        assert found is not None and found.family == family, module
    for wrapper in [*il._WRAPPERS, "env"]:
        positional = ["1"] * il._WRAPPER_POSITIONALS.get(wrapper, 0)
        found = find_inner_launcher([wrapper, *positional, "torchrun", "t.py"])
        assert found is not None and found.through == (wrapper,), wrapper
    for runner in il._RUNNERS:
        found = find_inner_launcher([runner, "run", "torchrun", "t.py"])
        assert found is not None and found.through == (f"{runner} run",), runner
    for container in il._CONTAINERS:
        found = find_inner_launcher([container, "exec", "img.sif", "torchrun", "t.py"])
        assert found is not None and found.through == (f"{container} exec",), container
    for shell in il._SHELLS:
        assert find_inner_launcher([shell, "-c", "torchrun t.py"]) is not None, shell


def test_message_and_fix_name_the_launcher_and_both_ways_out() -> None:
    found = find_inner_launcher(
        ["env", "A=1", "torchrun", "--nproc-per-node", "2", "t.py", "--lr", "3"]
    )
    assert found is not None
    assert "torchrun" in found.message and "behind env" in found.message
    assert "a world of its own" in found.message
    assert "launchx run [options] t.py --lr 3" in found.fix
    assert "--launcher direct" in found.fix
    unknown = find_inner_launcher(["torchrun", "--nproc-per-node", "2"])
    assert unknown is not None and "launchx run [options]" not in unknown.fix
    assert "--launcher direct" in unknown.fix


def test_every_family_says_what_it_would_start() -> None:
    assert set(il._WHAT_IT_STARTS) == set(il._FLAGS)
    families = {family for family, _ in [*il._EXECUTABLES.values(), *il._MODULES.values()]}
    assert families == set(il._WHAT_IT_STARTS)


def test_unbalanced_shell_string_is_not_read() -> None:
    assert find_inner_launcher(["bash", "-c", "torchrun 'unterminated"]) is None
    assert find_inner_launcher(["env", "-S", "torchrun 'x", "t.py"]) is None


_WORDS = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "env",
                "-i",
                "-S",
                "-u",
                "--",
                "nohup",
                "python3",
                "-m",
                "-c",
                "-X",
                "torchrun",
                "accelerate",
                "launch",
                "uv",
                "run",
                "bash",
                "-c",
                "sh",
                "A=1",
                "timeout",
                "10",
                "t.py",
                "-",
                "'",
                '"',
                ";",
                "&&",
                "srun",
                "taskset",
                "-p",
            ]
        ),
        st.text(max_size=8),
    ),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(_WORDS)
def test_any_words_never_raise(words: list[str]) -> None:
    found = find_inner_launcher(words)
    if found is not None:
        assert found.words
        assert found.message and found.fix
