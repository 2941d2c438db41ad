"""``launchx explain`` and ``launchx profiles``: through the real CLI where the point is what a
user runs (precedence end to end, eval'ing the env format in bash, exit codes, secrets), and
in-process through ``launchx.render`` where it is the rendering itself (launcher detection,
table layout, property tests over random environments and profiles).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import HOSTS, clean_env, run_cli
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from launchx import catalog, detect, plan, profiles, render
from launchx.errors import LaunchxError
from launchx.facts import HostFacts
from launchx.findings import Finding, sort_findings
from launchx.profile_model import TOP_LEVEL_KEYS
from launchx.resolve import Overrides, Resolution, resolve


def tree_env(tree: str, **extra: str) -> dict[str, str]:
    """The recorded host's environment plus LAUNCHX_HOST_ROOT, for the CLI."""
    env = clean_env(LAUNCHX_HOST_ROOT=str(HOSTS / tree))
    env.update(json.loads((HOSTS / tree / "env.json").read_text()))
    env.update(extra)
    return env


def explain_json(args: list[str], environ: Mapping[str, str], cwd: Path | None = None) -> Any:
    code, out, err = run_cli(["explain", "--format", "json", *args], environ, cwd=cwd)
    assert code in (0, 2), err
    assert "Traceback" not in err
    return json.loads(out)


def all_findings(res: Resolution) -> tuple[Finding, ...]:
    """What the explain command reports: the same calls the CLI makes."""
    decision = plan.decide_launcher(res)
    return sort_findings(
        [
            *res.findings,
            *decision.findings,
            *plan.gpu_findings(res),
            *plan.decide_port(res).findings,
        ]
    )


def render_all(res: Resolution) -> tuple[str, str, str]:
    decision = plan.decide_launcher(res)
    found = all_findings(res)
    return (
        render.explain_table(res, decision, found),
        render.explain_env(res) + render.findings_text(found),
        render.explain_json(res, decision, found),
    )


# --- precedence, end to end ------------------------------------------------------------------

MINE = "name: mine\nextends: ib-h800\nmaster_port: 20123\nenv:\n  NCCL_IB_TIMEOUT: '20'\n"


def _entry(doc: Any, section: str, key: str) -> tuple[str, str, list[tuple[str, str]]]:
    item = doc[section][key]
    return item["value"], item["source"], [(o["value"], o["source"]) for o in item["overrides"]]


def test_cli_default_below_profile() -> None:
    doc = explain_json(["-p", "local"], tree_env("cpu-laptop"))
    assert _entry(doc, "env", "LAUNCHX_PG_TIMEOUT_S")[:2] == ("300", "profile:local")
    assert _entry(doc, "launch", "nproc_per_node") == ("2", "profile:local", [("auto", "default")])


def test_cli_base_profile_below_derived(tmp_path: Path) -> None:
    (tmp_path / "mine.yaml").write_text(MINE)
    environ = tree_env("ib-h800-8gpu")
    del environ["MASTER_PORT"]  # the recorded host's own value would win over both profiles
    doc = explain_json(["-p", "./mine.yaml"], environ, cwd=tmp_path)
    assert doc["profile"] == "mine"
    value, source, history = _entry(doc, "env", "NCCL_IB_TIMEOUT")
    assert (value, source) == ("20", "profile:./mine.yaml")
    assert history == [("22", "profile:ib-h800")]
    assert _entry(doc, "launch", "master_port")[:2] == ("20123", "profile:./mine.yaml")


def test_cli_profile_below_environment() -> None:
    env = tree_env("ib-h800-8gpu", NCCL_DEBUG="INFO", MASTER_PORT="20001")
    doc = explain_json(["-p", "single-node"], env)
    assert _entry(doc, "env", "NCCL_DEBUG") == ("INFO", "env", [("WARN", "profile:single-node")])
    value, source, history = _entry(doc, "launch", "master_port")
    assert (value, source) == ("20001", "env:MASTER_PORT")
    assert history[-1] == ("auto", "profile:single-node")


def test_cli_environment_below_set() -> None:
    env = tree_env("ib-h800-8gpu", NCCL_DEBUG="INFO", MASTER_PORT="20001")
    args = ["-p", "single-node", "--set", "NCCL_DEBUG=TRACE", "--set", "master_port=20002"]
    doc = explain_json(args, env)
    value, source, history = _entry(doc, "env", "NCCL_DEBUG")
    assert (value, source, history[-1]) == ("TRACE", "--set", ("INFO", "env"))
    value, source, history = _entry(doc, "launch", "master_port")
    assert (value, source, history[-1]) == ("20002", "--set", ("20001", "env:MASTER_PORT"))


def test_cli_set_below_flag() -> None:
    env = tree_env("ib-h800-8gpu", PET_NNODES="3")
    args = ["-p", "ethernet", "--set", "nnodes=4", "--nnodes", "5", "--master-port", "20003"]
    doc = explain_json([*args, "--set", "master_port=20002"], env)
    value, source, history = _entry(doc, "launch", "nnodes")
    assert (value, source) == ("5", "flag:--nnodes")
    assert history[-2:] == [("3", "env:PET_NNODES"), ("4", "--set")]
    value, source, history = _entry(doc, "launch", "master_port")
    assert (value, source, history[-1]) == ("20003", "flag:--master-port", ("20002", "--set"))


def test_cli_auto_values_from_recorded_ib_host() -> None:
    doc = explain_json(["-p", "ib-h800"], tree_env("ib-h800-8gpu"))
    hca = doc["env"]["NCCL_IB_HCA"]
    assert hca["source"] == "auto:/sys/class/infiniband"
    devices = sorted(p.name for p in (HOSTS / "ib-h800-8gpu/sys/class/infiniband").iterdir())
    chosen = [item.split(":")[0] for item in hca["value"].lstrip("=").split(",")]
    assert set(chosen) < set(devices)  # the RoCE bond is left out
    assert doc["env"]["NCCL_SOCKET_IFNAME"]["value"] == "=bond0"
    assert doc["launch"]["nproc_per_node"]["value"] == str(
        len(list((HOSTS / "ib-h800-8gpu/proc/driver/nvidia/gpus").iterdir()))
    )


def test_json_has_the_documented_shape() -> None:
    doc = explain_json(["--set", "NCCL_DEBUG=VERBOSE"], tree_env("cpu-laptop"))
    assert doc["profile"] == "local"
    for name, item in doc["env"].items():
        assert set(item) == {"value", "source", "overrides"}, name
    assert {"nnodes", "nproc_per_node", "master_addr", "master_port"} <= set(doc["launch"])
    assert doc["findings"]
    for finding in doc["findings"]:
        assert set(finding) == {"code", "level", "var", "message", "fix"}
        assert finding["code"].startswith("LX") and finding["level"] in ("error", "warning", "info")


# --- the env format in a real bash -----------------------------------------------------------

HOSTILE = {
    "HOSTILE_QUOTE": 'it\'s "quoted"',
    "HOSTILE_SUBST": "$(touch PWNED1)",
    "HOSTILE_TICKS": "`touch PWNED2`",
    "HOSTILE_NEWLINE": "line one\nline two\n",
    "HOSTILE_SPACES": "  two  spaces  ",
    "HOSTILE_SEMI": "'; touch PWNED3; echo '",
    "HOSTILE_DOLLAR": "$HOME ${PATH} \\n back\\slash",
    "HOSTILE_UNICODE": "ünïcødé ☃ 名前",
    "HOSTILE_EMPTY": "",
}


def test_env_format_evals_back_exactly_in_bash(tmp_path: Path) -> None:
    sets = [arg for name, value in HOSTILE.items() for arg in ("--set", f"{name}={value}")]
    inherited = "$(touch PWNED4) 'x' \"y\""
    environ = tree_env("cpu-laptop", NCCL_DEBUG_FILE=inherited, NCCL_ASYNC_ERROR_HANDLING="1")
    code, out, err = run_cli(["explain", "--format", "env", *sets], environ, cwd=tmp_path)
    assert code == 0, err
    (tmp_path / "env.sh").write_text(out)
    names = [*HOSTILE, "NCCL_DEBUG_FILE", "TORCH_NCCL_ASYNC_ERROR_HANDLING"]
    script = (
        'eval "$(cat env.sh)" || exit 9\n'
        'for n in "$@"; do printf "%s\\0" "${!n}"; done\n'
        'printf "%s" "${NCCL_ASYNC_ERROR_HANDLING-UNSET}"\n'
    )
    proc = subprocess.run(
        ["bash", "-c", script, "bash", *names],
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"], "NCCL_ASYNC_ERROR_HANDLING": "1"},
        capture_output=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    *values, unset = proc.stdout.decode().split("\0")
    assert dict(zip(names, values, strict=True)) == {
        **HOSTILE,
        "NCCL_DEBUG_FILE": inherited,
        "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1",
    }
    assert unset == "UNSET"  # the renamed old name is removed from the shell
    assert not list(tmp_path.glob("PWNED*"))  # nothing was executed


def test_env_lines_are_shell_words() -> None:
    res = _resolve("local", {"NCCL_DEBUG_FILE": "a b'c"})
    for line in render.explain_env(res).splitlines():
        words = shlex.split(line, comments=True)
        assert not words or words[0] in ("export", "unset"), line


# --- secrets -----------------------------------------------------------------------------------

SECRETS = {
    "HF_TOKEN": "hf-s3cret-0001",
    "MY_API_KEY": "apikey-s3cret-0002",
    "DB_PASSWORD": "pw-s3cret-0003",
    "NCCL_SECRET_SAUCE": "nccl-s3cret-0004",  # distributed prefix: shown by default, and
    "TORCH_TOKEN_FILE": "torch-s3cret-0005",  # unknown names get a finding quoting the value
}


@pytest.mark.parametrize("fmt", ["table", "env", "json"])
def test_secrets_are_never_printed(fmt: str) -> None:
    environ = tree_env("cpu-laptop", **SECRETS)
    args = ["explain", "--all", "--format", fmt, "--set", "WANDB_API_KEY=wandb-s3cret-0006"]
    code, out, err = run_cli(args, environ)
    assert code == 0, err
    for secret in [*SECRETS.values(), "wandb-s3cret-0006"]:
        assert secret not in out and secret not in err
    for name in [*SECRETS, "WANDB_API_KEY"]:
        assert name in out
    assert "***" in out


def test_secret_quoted_by_a_finding_is_scrubbed() -> None:
    """A finding written elsewhere may quote a secret under another name: render scrubs."""
    res = _resolve("local", {"HF_TOKEN": "hf-s3cret-0001"}, show_all=True)
    leak = Finding("LX999", "warning", "X", "saw hf-s3cret-0001 in X", "drop hf-s3cret-0001")
    table = render.explain_table(res, plan.decide_launcher(res), [leak])
    doc = render.explain_json(res, plan.decide_launcher(res), [leak])
    for text in (table, doc):
        assert "hf-s3cret-0001" not in text and "saw *** in X" in text


def test_profile_show_redacts_secrets(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text("name: s\nextends: local\nenv:\n  HF_TOKEN: hf-in-file-777\n")
    code, out, err = run_cli(["profiles", "show", "./s.yaml"], cwd=tmp_path)
    assert code == 0, err
    assert "hf-in-file-777" not in out and "HF_TOKEN" in out and "***" in out


# --- exit codes, findings in the table ---------------------------------------------------------


@pytest.mark.parametrize(
    ("profile", "sets", "code", "var"),
    [
        ("local", [], 0, None),
        # ethernet runs NCCL; slurm's backend is auto (gloo on this GPU-less host, NCCL on
        # the GPU nodes it is for), so what would break NCCL there is an error here too
        ("ethernet", ["NCCL_NTHREADS=640"], 2, "NCCL_NTHREADS"),
        ("slurm", ["NCCL_DEBUG=VERBOSE"], 2, "NCCL_DEBUG"),
        # local chose gloo: a variable only NCCL reads cannot break it
        ("local", ["NCCL_NTHREADS=640"], 0, None),
    ],
)
def test_exit_code_follows_error_findings(
    profile: str, sets: list[str], code: int, var: str | None
) -> None:
    args = ["explain", "-p", profile, *(a for s in sets for a in ("--set", s))]
    got, out, err = run_cli(args, tree_env("cpu-laptop"))
    assert got == code, out + err
    if var is not None:
        lines = out.splitlines()
        header = lines.index("error:") if "error:" in lines else lines.index("errors:")
        flagged = [i for i, line in enumerate(lines) if line.startswith("  LX1") and var in line]
        assert flagged and flagged[0] > header
        assert lines[flagged[0] + 1].strip().startswith("fix:")
    else:
        assert "error:" not in out.splitlines() and "errors:" not in out.splitlines()


def test_an_nccl_only_variable_is_a_warning_on_a_gloo_run() -> None:
    """A stale NCCL_BUFFSIZE=8M in the shell must not refuse a CPU run that never loads NCCL;
    the same value under a profile that may run NCCL stays an error."""
    gloo = _resolve("local", {"NCCL_BUFFSIZE": "8M", "OMP_NUM_THREADS": "4x"})
    lx111 = next(f for f in gloo.findings if f.code == "LX111")
    assert lx111.level == "warning" and "backend is gloo" in lx111.message
    # a variable torch reads is as wrong under gloo as anywhere
    assert any(f.level == "error" and f.var == "OMP_NUM_THREADS" for f in gloo.findings)
    nccl = _resolve("ethernet", {"NCCL_BUFFSIZE": "8M"})
    lx111 = next(f for f in nccl.findings if f.code == "LX111")
    assert lx111.level == "error" and "gloo" not in lx111.message
    # where a GPU is visible the script may pick NCCL itself (it is not told the backend)
    gpu_host = _resolve("local", {"NCCL_BUFFSIZE": "8M"}, gpu_count=8)
    lx111 = next(f for f in gpu_host.findings if f.code == "LX111")
    assert lx111.level == "error" and "gloo" not in lx111.message
    # a warning on an NCCL-only variable says as much, and stays a warning
    big = _resolve("local", {"NCCL_BUFFSIZE": str(128 << 20)})
    lx122 = next(f for f in big.findings if f.code == "LX122")
    assert lx122.level == "warning" and "so NCCL never reads it" in lx122.message
    eth = _resolve("ethernet", {"NCCL_BUFFSIZE": str(128 << 20)})
    assert "gloo" not in next(f for f in eth.findings if f.code == "LX122").message


def test_a_host_check_on_a_host_with_no_gpu_is_a_warning() -> None:
    """``explain -p ib-h800`` on a login node: an interface only the GPU nodes have is not
    this host's business, where NCCL never runs; on a GPU node it refuses the launch."""
    from launchx.facts import Interface

    nics = (
        Interface("lo", True, ("127.0.0.1",), "loopback"),
        Interface("eth0", True, ("10.0.0.5",)),
    )
    env = {"NCCL_SOCKET_IFNAME": "=ens9f0"}
    login = _resolve("ib-h800", env, gpu_count=0, interfaces=nics)
    lx154 = next(f for f in login.findings if f.code == "LX154")
    assert lx154.level == "warning" and "this host has no GPU" in lx154.message
    assert lx154.fix == "NCCL_SOCKET_IFNAME='=eth0'"
    node = _resolve("ib-h800", env, gpu_count=8, interfaces=nics)
    lx154 = next(f for f in node.findings if f.code == "LX154")
    assert lx154.level == "error" and "no GPU" not in lx154.message


def test_gpu_process_count_on_a_host_with_no_gpu_is_a_warning_to_explain(tmp_path: Path) -> None:
    """``explain -p ethernet`` on a login node explains the GPU nodes' run, whose process
    count each node counts itself: LX304 is a warning there, exit 0; ``run`` on that host
    refuses it (exit 2), since it would start ranks on no GPU."""
    env = tree_env("cpu-laptop")
    code, out, err = run_cli(["explain", "-p", "ethernet"], env)
    assert code == 0, out + err
    lines = out.splitlines()
    lx304 = next(i for i, line in enumerate(lines) if line.startswith("  LX304"))
    assert "error:" not in lines and "errors:" not in lines
    assert "launchx run refuses it here" in lines[lx304]
    (tmp_path / "train.py").write_text("print('hi')\n")
    code, out, err = run_cli(["run", "--dry-run", "-p", "ethernet", "train.py"], env, cwd=tmp_path)
    assert code == 2 and "LX304" in out + err, out + err
    assert "launchx run refuses it here" not in out + err


def test_table_columns_and_level_order() -> None:
    res = _resolve(
        "ethernet",
        {"NCCL_DEBUG": "VERBOSE", "NCCL_ASYNC_ERROR_HANDLING": "1"},
    )
    text = render_all(res)[0]
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("variable"))
    assert header.split() == ["variable", "value", "source", "note"]
    row = next(line for line in lines if line.startswith("NCCL_DEBUG "))
    assert row.split()[:3] == ["NCCL_DEBUG", "VERBOSE", "env"]
    assert lines.index("errors:") < lines.index("warnings:")


def test_table_never_folds_names_or_values() -> None:
    long_value = "=" + ",".join(f"mlx5_{i}:1" for i in range(12))
    res = _resolve("local", {"NCCL_IB_HCA": long_value})
    table = render.explain_table(res, plan.decide_launcher(res), [], width=80)
    assert long_value in table
    assert "TORCH_NCCL_ASYNC_ERROR_HANDLING" in render.explain_table(
        _resolve("single-node", {}), plan.decide_launcher(_resolve("single-node", {})), [], 60
    )


# --- myths and renames, visible --------------------------------------------------------------


def test_cli_myth_and_renamed_variable() -> None:
    environ = tree_env("cpu-laptop", NCCL_ASYNC_ERROR_HANDLING="1")
    doc = explain_json(["--set", "NCCL_TIMEOUT=1800"], environ)
    by_var = {f["var"]: f for f in doc["findings"]}
    myth = by_var["NCCL_TIMEOUT"]
    assert myth["level"] == "warning"
    assert "init_process_group" in myth["fix"] and "LAUNCHX_PG_TIMEOUT_S" in myth["fix"]
    assert by_var["NCCL_ASYNC_ERROR_HANDLING"]["level"] == "warning"
    new = doc["env"]["TORCH_NCCL_ASYNC_ERROR_HANDLING"]
    assert (new["value"], new["source"]) == ("1", "renamed:NCCL_ASYNC_ERROR_HANDLING")


# --- who launched us ----------------------------------------------------------------------------

LAUNCHERS: dict[str, tuple[dict[str, str], str]] = {
    "kubeflow": (
        {
            "PET_NNODES": "4",
            "PET_NPROC_PER_NODE": "2",
            "PET_NODE_RANK": "3",
            "PET_MASTER_ADDR": "job-master-0",
            "PET_MASTER_PORT": "23456",
            "MASTER_ADDR": "job-master-0",
            "MASTER_PORT": "23456",
            "WORLD_SIZE": "8",
            "RANK": "3",
            "PYTHONUNBUFFERED": "0",
        },
        "Kubeflow PyTorchJob, node {PET_NODE_RANK} of {PET_NNODES}",
    ),
    "open-mpi": (
        {
            "OMPI_COMM_WORLD_RANK": "3",
            "OMPI_COMM_WORLD_SIZE": "8",
            "OMPI_COMM_WORLD_LOCAL_RANK": "1",
            "OMPI_COMM_WORLD_LOCAL_SIZE": "2",
            "OMPI_COMM_WORLD_NODE_RANK": "1",
        },
        "Open MPI, rank {OMPI_COMM_WORLD_RANK} of {OMPI_COMM_WORLD_SIZE}",
    ),
    "torchrun": (
        {
            "TORCHELASTIC_RUN_ID": "abc",
            "GROUP_RANK": "1",
            "GROUP_WORLD_SIZE": "2",
            "ROLE_RANK": "3",
            "RANK": "3",
            "LOCAL_RANK": "1",
            "WORLD_SIZE": "8",
            "LOCAL_WORLD_SIZE": "4",
            "MASTER_ADDR": "10.0.0.1",
            "MASTER_PORT": "29500",
        },
        "torchrun, rank {RANK} of {WORLD_SIZE}, node {GROUP_RANK} of {GROUP_WORLD_SIZE}",
    ),
    "slurm-batch": (
        {
            "SLURM_JOB_ID": "4242",
            "SLURM_JOB_NODELIST": "gpu[01-02]",
            "SLURM_JOB_NUM_NODES": "2",
            "SLURM_NNODES": "2",
            "SLURM_NODEID": "0",
            "SLURM_TASKS_PER_NODE": "1(x2)",
            "SLURMD_NODENAME": "gpu01",
        },
        "SLURM batch script (no srun step), node {SLURM_NODEID} of {SLURM_NNODES}",
    ),
}


@pytest.mark.parametrize("kind", sorted(LAUNCHERS))
def test_explain_says_who_launched_us(kind: str) -> None:
    environ, template = LAUNCHERS[kind]
    expected = template.format(**environ)
    res = _resolve("platform-ddp", environ, cpu_count=8, gpu_count=2)
    table, _env, doc = render_all(res)
    assert f"launched by: {expected}\n" in table
    assert json.loads(doc)["launch"]["launched_by"] == expected
    # The evidence names the variables it was concluded from.
    first_marker = next(iter(environ))
    assert f"{first_marker}={environ[first_marker]}" in table


def test_cli_shows_kubeflow_launcher() -> None:
    environ, template = LAUNCHERS["kubeflow"]
    _code, out, err = run_cli(["explain", "-p", "platform-ddp"], tree_env("cpu-laptop", **environ))
    assert "Traceback" not in err
    assert f"launched by: {template.format(**environ)}" in out


# --- launchx profiles ---------------------------------------------------------------------------


def test_profiles_lists_every_builtin() -> None:
    code, out, err = run_cli(["profiles"], cwd=Path(tempfile.gettempdir()))
    assert code == 0, err
    rows = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    builtin = sorted(profiles.builtin_dir().glob("*.yaml"))
    assert len(builtin) >= 7
    for path in builtin:
        data = yaml.safe_load(path.read_text())
        merged = profiles.load(path.stem, {}, Path(tempfile.gettempdir())).profile
        row = rows[data["name"]]
        assert row.split()[1] == merged.launcher
        assert data["description"] in row


def test_one_broken_profile_file_hides_none_of_the_others(tmp_path: Path) -> None:
    (tmp_path / "team.yaml").write_text("name: team\nextends: local\ndescription: ours\n")
    (tmp_path / "broken.yaml").write_text("name: broken\n  extends: [local\n")
    (tmp_path / "typo.yaml").write_text("name: typo\nlauncherr: torchrun\n")
    (tmp_path / "latin1.yaml").write_bytes("name: caf\xe9\n".encode("latin-1"))
    code, out, err = run_cli(
        ["profiles"], {"LAUNCHX_PROFILE_PATH": str(tmp_path)}, cwd=Path(tempfile.gettempdir())
    )
    assert code == 2
    names = [line.split()[0] for line in out.splitlines() if line.strip()]
    assert "local" in names and "team" in names and "broken" not in names
    assert "broken.yaml:2:" in err and "YAML syntax error" in err and "typo.yaml" in err
    assert "latin1.yaml is not UTF-8 text" in err
    assert err.count("launchx: error:") == 3 and "Traceback" not in err


def test_profiles_lists_what_loads_under_the_name_that_loads_it(tmp_path: Path) -> None:
    """A profile is listed as usable only if ``--profile NAME`` loads it, ``extends`` chain
    and all, and under that NAME (the file's, not a ``name:`` key); a file with several bad
    keys names them all."""
    (tmp_path / "loop1.yaml").write_text("extends: loop2\n")
    (tmp_path / "loop2.yaml").write_text("extends: loop1\n")
    (tmp_path / "orphan.yaml").write_text("extends: nosuchbase\n")
    (tmp_path / "mine.yaml").write_text("name: other\nextends: local\ndescription: d\n")
    (tmp_path / "many.yaml").write_text("launcherr: x\nnprocs: 2\nretrys: 1\n")
    code, out, err = run_cli(
        ["profiles"], {"LAUNCHX_PROFILE_PATH": str(tmp_path)}, cwd=Path(tempfile.gettempdir())
    )
    assert code == 2 and "Traceback" not in err
    rows = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    assert not {"loop1", "loop2", "orphan", "many", "other"} & set(rows)
    assert "it names itself 'other'" in rows["mine"]
    assert "'extends' cycle" in err and "nosuchbase" in err
    assert "(and 2 more problems: nprocs, retrys)" in err
    assert run_cli(["explain", "-p", "mine"], {"LAUNCHX_PROFILE_PATH": str(tmp_path)})[0] == 0


def test_profile_files_that_no_name_reaches_are_named(tmp_path: Path) -> None:
    """What sits in a profile directory but cannot load as the name it shows: a link to
    nothing, a directory named x.yaml, x.yaml.yaml (whose name reads as a path), a file
    hidden by an earlier one of its name; and a profile on a broken base says whose base."""
    team = tmp_path / "team"
    team.mkdir()
    (team / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    (team / "folder.yaml").mkdir()
    (team / "double.yaml.yaml").write_text("name: double\n")
    (team / "local.yaml").write_text("name: local\ndescription: ours\n")  # a built-in's name
    (team / "twice.yaml").write_text("name: twice\n")
    (team / "twice.yml").write_text("name: twice\n")
    (team / ".#base.yaml").symlink_to("user@host.1234")  # an editor's lock: not a profile
    (team / "base.yaml").write_text("nprocs: 2\n")
    (team / "child.yaml").write_text("extends: base\n")
    env = {"LAUNCHX_PROFILE_PATH": str(team)}
    code, out, err = run_cli(["profiles"], env, cwd=tmp_path)
    assert code == 2 and "Traceback" not in err
    assert f"(hides {team / 'local.yaml'})" in out and f"(hides {team / 'twice.yml'})" in out
    assert f"[$LAUNCHX_PROFILE_PATH {team}]" in out  # which directory of the path
    assert f"{team / 'gone.yaml'} is a broken link, not a profile file" in err
    assert f"{team / 'folder.yaml'} is a directory, not a profile file" in err
    assert "its name ends in .yaml.yaml" in err and "rename it double.yaml" in err
    assert "chain is broken: profile:child -> 'base': " in err and ".#base" not in out + err
    assert f"{team / 'base.yaml'}: unknown key 'nprocs'" in err
    code, _, err = run_cli(["explain", "-p", "gone"], env, cwd=tmp_path)
    assert code == 2 and "did you mean" not in err and "is a broken link" in err
    code, _, err = run_cli(["explain", "-p", str(team) + "/"], env, cwd=tmp_path)
    assert code == 2 and "is a directory" in err and "LAUNCHX_PROFILE_PATH" in err


def test_profiles_show_names_each_values_source() -> None:
    code, out, err = run_cli(["profiles", "show", "roce"], cwd=Path(tempfile.gettempdir()))
    assert code == 0, err
    lines = [line.strip() for line in out.splitlines()]
    assert "# chain: profile:single-node -> profile:ib-h800 -> profile:roce" in lines
    expect = {
        "NCCL_IB_HCA": ('"auto:roce"', "profile:roce"),
        "NCCL_IB_TIMEOUT": ('"22"', "profile:ib-h800"),
        "nproc_per_node": ('"gpu"', "profile:single-node"),
        "rdzv_timeout_s": ("900", "default"),
    }
    for key, (value, origin) in expect.items():
        assert f"{key}: {value}  # {origin}" in lines, key


def test_profiles_show_unknown_profile_is_clean() -> None:
    code, _out, err = run_cli(["profiles", "show", "nosuch"], cwd=Path(tempfile.gettempdir()))
    assert code == 2 and "unknown profile 'nosuch'" in err and "Traceback" not in err


# --- property tests: only clean LaunchxErrors come out --------------------------------------

CATALOG_NAMES = sorted(spec.name for spec in catalog.all_specs())
LAUNCH_NAMES = [
    "MASTER_ADDR",
    "MASTER_PORT",
    "PET_NNODES",
    "PET_NODE_RANK",
    "PET_NPROC_PER_NODE",
    "PET_MASTER_PORT",
    "RANK",
    "WORLD_SIZE",
    "LOCAL_RANK",
    "LOCAL_WORLD_SIZE",
    "GROUP_RANK",
    "TORCHELASTIC_RUN_ID",
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "SLURM_JOB_ID",
    "SLURM_JOB_NODELIST",
    "SLURM_NNODES",
    "SLURM_NODEID",
    "SLURM_STEP_ID",
    "SLURM_TASKS_PER_NODE",
    "CUDA_VISIBLE_DEVICES",
    "LAUNCHX_RUN_ID",
    "HF_TOKEN",
]
env_names = st.one_of(
    st.sampled_from(CATALOG_NAMES),
    st.sampled_from(LAUNCH_NAMES),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True),
)
garbage = st.text(st.characters(blacklist_characters="\x00", codec="utf-8"), max_size=24)
env_values = st.one_of(
    garbage,
    st.integers(-(2**40), 2**40).map(str),
    st.sampled_from(["", "auto", "0", "1", "-1", "1:4", "nan", "=mlx5_0:1", "^lo", "x" * 300]),
)
TREES = sorted(p.name for p in HOSTS.iterdir() if (p / "env.json").exists())


def _resolve(
    ref: str, environ: Mapping[str, str], show_all: bool = False, **facts: Any
) -> Resolution:
    env = dict(environ)
    host = HostFacts(
        environ=env,
        cpu_count=facts.pop("cpu_count", 4),
        launch=detect.classify_launch(env),
        slurm=detect.parse_slurm(env),
        **facts,
    )
    loaded = profiles.load(ref, env, Path(tempfile.gettempdir()))
    return resolve(loaded, host, Overrides(), show_all=show_all)


def _pipeline(ref: str, environ: Mapping[str, str], tree: str, sets: tuple[str, ...]) -> None:
    """load -> resolve -> all three renders; a LaunchxError is a clean answer."""
    try:
        facts = detect.gather(environ, root=str(HOSTS / tree))
        loaded = profiles.load(ref, environ, Path(tempfile.gettempdir()))
        res = resolve(loaded, facts, Overrides(sets=sets), show_all=True)
        table, env_text, doc = render_all(res)
    except LaunchxError as exc:
        assert exc.message
        return
    assert isinstance(table, str) and isinstance(env_text, str)
    json.loads(doc)


# Modest and repeatable in the suite; LAUNCHX_HYPOTHESIS_EXAMPLES=2000 for a random deep run.
_EXAMPLES = os.environ.get("LAUNCHX_HYPOTHESIS_EXAMPLES")
PROPERTY = settings(
    max_examples=int(_EXAMPLES or 60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    derandomize=_EXAMPLES is None,
)


@PROPERTY
@given(
    environ=st.dictionaries(env_names, env_values, max_size=8),
    ref=st.sampled_from(["local", "single-node", "ib-h800", "roce", "slurm", "platform-ddp"]),
    tree=st.sampled_from(TREES),
    sets=st.lists(
        st.builds(lambda k, v: f"{k}={v}", env_names, env_values).filter(lambda s: "\x00" not in s),
        max_size=2,
    ),
)
def test_random_environments_give_clean_answers(
    environ: dict[str, str], ref: str, tree: str, sets: list[str]
) -> None:
    _pipeline(ref, environ, tree, tuple(sets))


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    garbage,
    st.sampled_from(["auto", "gpu", "ib-h800", "./missing.yaml", "roce", "local"]),
)
yaml_trees = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.one_of(garbage, st.sampled_from(TOP_LEVEL_KEYS)), inner, max_size=4),
    ),
    max_leaves=12,
)


def _write_and_run(doc: object, directory: str) -> None:
    path = Path(directory) / "p.yaml"
    try:
        path.write_text(yaml.safe_dump(doc, allow_unicode=True))
    except (yaml.YAMLError, UnicodeEncodeError):
        return
    _pipeline(str(path), clean_env(), "cpu-laptop", ())


@PROPERTY
@given(doc=yaml_trees)
@example(doc={"-": None})  # an unknown key that looks like a union tag (an IndexError once)
def test_random_yaml_documents_give_clean_answers(doc: object) -> None:
    with tempfile.TemporaryDirectory() as directory:
        _write_and_run(doc, directory)


@PROPERTY
@given(raw=st.text(st.sampled_from("ab:-[]{}\n '\"&*!|>#%@`\t"), max_size=60))
def test_random_yaml_text_gives_clean_answers(raw: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "p.yaml"
        path.write_text(raw)
        _pipeline(str(path), clean_env(), "cpu-laptop", ())


BUILTINS = {p.stem: yaml.safe_load(p.read_text()) for p in profiles.builtin_dir().glob("*.yaml")}


def _paths(data: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = [prefix] if prefix else []
    if isinstance(data, dict):
        for key, value in data.items():
            out += _paths(value, (*prefix, str(key)))
    return out


@st.composite
def mutated_builtin(draw: st.DrawFn) -> dict[str, Any]:
    name = draw(st.sampled_from(sorted(BUILTINS)))
    data: dict[str, Any] = json.loads(json.dumps(BUILTINS[name]))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(data)))
        parent = data
        for part in path[:-1]:
            parent = parent[part]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "delete":
            parent.pop(path[-1], None)
        elif action == "replace":
            parent[path[-1]] = draw(yaml_trees)
        else:
            parent[draw(st.one_of(garbage, st.sampled_from(["env", "nnodes", "slurm"])))] = draw(
                scalars
            )
    return data


@PROPERTY
@given(doc=mutated_builtin())
def test_mutated_builtin_profiles_give_clean_answers(doc: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        _write_and_run(doc, directory)
