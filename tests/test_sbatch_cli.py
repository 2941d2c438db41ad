"""`launchx sbatch` through the real CLI (rendering only; submission is in the SLURM tests)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import clean_env, run_cli


def test_sources_of_each_option_are_named(tmp_path: Path) -> None:
    code, out, err = run_cli(
        ["sbatch", "-p", "slurm", "--nodes", "2", "--time", "1:00:00", "train.py"], cwd=tmp_path
    )
    assert code == 0, err
    assert "# Options: --nodes=2 (flag:--nodes)" in out
    assert "# Options: --signal=B:USR2@120 (profile:slurm)" in out
    # one task per node: the mode's, not a default the user may change
    assert "# Options: --ntasks-per-node=1 (auto:mode per_node)" in out
    assert "#SBATCH --nodes=2" in out and "#SBATCH --open-mode=append" in out


def test_the_default_profile_is_the_variables_else_slurm(tmp_path: Path) -> None:
    code, out, err = run_cli(["sbatch", "train.py"], clean_env(), cwd=tmp_path)
    assert code == 0 and "(profile slurm, mode per_node)" in out, err
    env = clean_env(LAUNCHX_DEFAULT_PROFILE="ethernet")
    code, out, err = run_cli(["sbatch", "train.py"], env, cwd=tmp_path)
    assert code == 0 and "(profile ethernet, mode per_node)" in out, err
    code, out, err = run_cli(["sbatch", "-p", "slurm", "train.py"], env, cwd=tmp_path)
    assert code == 0 and "(profile slurm, mode per_node)" in out, err
    code, out, _ = run_cli(["sbatch", "--help"], clean_env(), cwd=tmp_path)
    assert "(default: LAUNCHX_DEFAULT_PROFILE, else slurm)" in " ".join(out.split())


def test_set_slurm_fields_reach_the_sbatch_lines(tmp_path: Path) -> None:
    args = ["sbatch", "-p", "slurm", "--set", "slurm.time=1:00:00", "--set", "slurm.nodes=3"]
    code, out, err = run_cli([*args, "--nodes", "2", "train.py"], cwd=tmp_path)
    assert code == 0, err
    assert "#SBATCH --time=1:00:00" in out and "#SBATCH --nodes=2" in out
    assert "# Options: --time=1:00:00 (--set slurm.time)" in out
    assert "# Options: --nodes=2 (flag:--nodes)" in out
    code, _out, err = run_cli([*args[:3], "--set", "slurm.time=soon", "train.py"], cwd=tmp_path)
    assert code == 2 and "'soon' (--set slurm.time)" in err and "Traceback" not in err


def test_writes_file_and_it_is_valid_bash(tmp_path: Path) -> None:
    target = tmp_path / "job.sh"
    hostile = ["a b", "$(touch x)", "`id`", "; echo y", "it's", "new\nline", "*"]
    code, out, err = run_cli(
        ["sbatch", "-p", "slurm", "-o", str(target), "train.py", *hostile], cwd=tmp_path
    )
    assert code == 0, err
    assert out == ""  # (the script itself is in the file; stdout stays for pipes)
    assert f"launchx: wrote {target}; submit it with: sbatch {target}" in err
    text = target.read_text()
    subprocess.run(["bash", "-n", str(target)], check=True)
    assert "exec " in text and "-m launchx run -p" in text


def test_flags_reach_the_run_line(tmp_path: Path) -> None:
    code, out, _ = run_cli(
        [
            "sbatch",
            "--nproc-per-node",
            "1",
            "--checkpoint-dir",
            "ck",
            "--set",
            "NCCL_DEBUG=INFO",
            "--console-ranks",
            "0",
            "train.py",
        ],
        cwd=tmp_path,
    )
    assert code == 0
    run_line = next(line for line in out.splitlines() if line.startswith("exec "))
    for word in (
        "--nproc-per-node 1",
        "--checkpoint-dir ck",
        "--set NCCL_DEBUG=INFO",
        "--console-ranks 0",
    ):
        assert word in run_line


def test_wait_without_submit_is_a_clean_error(tmp_path: Path) -> None:
    code, _out, err = run_cli(["sbatch", "--wait", "train.py"], cwd=tmp_path)
    assert code == 2 and "--wait only applies with --submit" in err and "Traceback" not in err


def test_bad_time_is_a_clean_error(tmp_path: Path) -> None:
    code, _out, err = run_cli(["sbatch", "--time", "soon", "train.py"], clean_env(), tmp_path)
    assert code == 2 and "soon" in err and "Traceback" not in err


def test_per_task_nproc_per_node_is_the_tasks_per_node(tmp_path: Path) -> None:
    """--nproc-per-node means processes per node in either mode; in per_task one SLURM task
    is one process, so it gives the tasks per node, and a different --ntasks-per-node is
    refused naming both (the node's srun would otherwise run another world size)."""
    args = ["sbatch", "-p", "slurm", "--mode", "per_task", "--nodes", "2"]
    code, out, err = run_cli([*args, "--nproc-per-node", "2", "train.py"], cwd=tmp_path)
    assert code == 0, err
    assert "#SBATCH --ntasks-per-node=2" in out
    assert "# Options: --ntasks-per-node=2 (flag:--nproc-per-node)" in out
    both = [*args, "--ntasks-per-node", "2", "--nproc-per-node", "4", "train.py"]
    code, _out, err = run_cli(both, cwd=tmp_path)
    assert code == 2, err
    assert "--ntasks-per-node 2 (flag:--ntasks-per-node)" in err
    assert "--nproc-per-node 4 (flag:--nproc-per-node)" in err
    assert "Traceback" not in err


def test_a_script_that_is_not_here_is_said_and_refused_for_submission(tmp_path: Path) -> None:
    """The job runs the script from this directory, as `launchx run` does: a typo is
    refused before the job waits in the queue (LX211, with the name that is there), and
    said on stderr when the script is only rendered."""
    (tmp_path / "train.py").write_text("print('hi')\n")
    code, out, err = run_cli(["sbatch", "-p", "slurm", "trian.py"], clean_env(), tmp_path)
    assert code == 0 and "exec " in out
    assert "warning: LX211 script 'trian.py' not found" in err and "train.py?" in err
    code, out, err = run_cli(
        ["sbatch", "-p", "slurm", "--submit", "trian.py"], clean_env(), tmp_path
    )
    assert code == 2 and out == "" and "Traceback" not in err
    assert "LX211 script 'trian.py' not found" in err and "train.py" in err
    code, _out, err = run_cli(["sbatch", "-p", "slurm", "train.py"], clean_env(), tmp_path)
    assert code == 0 and "LX211" not in err


def test_a_module_or_an_executable_reaches_the_run_line_and_is_looked_for(
    tmp_path: Path,
) -> None:
    """`launchx run -m pkg.train` and `--no-python CMD` have the same words in sbatch: the
    job's launchx gets them, and what the job would not find is said as for a script."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "train.py").write_text("print('hi')\n")
    code, out, err = run_cli(
        ["sbatch", "-p", "slurm", "-m", "pkg.train", "--lr", "1"], clean_env(), tmp_path
    )
    assert code == 0 and "LX211" not in err, err
    run_line = next(line for line in out.splitlines() if line.startswith("exec "))
    assert run_line.endswith(" -m -- pkg.train --lr 1"), run_line
    code, out, err = run_cli(["sbatch", "-p", "slurm", "-m", "pgk.train"], clean_env(), tmp_path)
    assert code == 0 and "LX211" in err and "pgk" in err
    code, out, err = run_cli(
        ["sbatch", "-p", "slurm", "--no-python", "true"], clean_env(), tmp_path
    )
    assert code == 0 and "LX211" not in err, err
    run_line = next(line for line in out.splitlines() if line.startswith("exec "))
    assert run_line.endswith(" --no-python -- true"), run_line
    code, _out, err = run_cli(
        ["sbatch", "-p", "slurm", "--submit", "--no-python", "no-such-tool-xyz"],
        clean_env(),
        tmp_path,
    )
    assert code == 2 and "LX211" in err and "no-such-tool-xyz" in err and "Traceback" not in err
    code, _out, err = run_cli(
        ["sbatch", "-p", "slurm", "--no-python", "no-such-tool-xyz"], clean_env(), tmp_path
    )
    assert code == 0 and "LX211" in err and "the job runs it on this PATH" in err
    for command in ("run", "sbatch"):
        code, out, err = run_cli([command, "-m", "--no-python", "pkg.train"], clean_env(), tmp_path)
        assert code == 2 and out == "" and "Traceback" not in err, err
        assert "-m and --no-python name two kinds of SCRIPT" in err
