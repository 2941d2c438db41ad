"""Profiles: the built-ins are valid and right, lookup order, extends chains, bad input."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml
from conftest import run_cli

from launchx import catalog, profiles
from launchx.errors import ConfigError, LaunchxError, ProfileNotFound
from launchx.facts import HostFacts
from launchx.origin import Origin
from launchx.profile_model import Profile

BUILTINS = sorted(p.stem for p in profiles.builtin_dir().glob("*.yaml"))
REQUIRED = {"local", "single-node", "ethernet", "ib-h800", "roce", "slurm", "platform-ddp"}


def test_every_required_builtin_exists() -> None:
    assert set(BUILTINS) >= REQUIRED


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_loads_and_names_itself(name: str, tmp_path: Path) -> None:
    loaded = profiles.load(name, {"HOME": str(tmp_path)}, tmp_path)
    assert loaded.profile.name == name
    assert loaded.profile.description
    assert loaded.chain[-1] == Origin.profile(name)


@pytest.mark.parametrize("name", BUILTINS)
def test_every_builtin_value_says_why(name: str) -> None:
    """Each key/value line carries a comment on the line or in the comment block above it."""
    lines = (profiles.builtin_dir() / f"{name}.yaml").read_text().splitlines()
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped.endswith(":"):
            continue
        if stripped.split(":")[0] in ("name", "description", "extends"):
            continue
        above = lines[i - 1].strip() if i else ""
        assert "#" in line or above.startswith("#"), f"{name}.yaml:{i + 1} has no reason: {line}"


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_env_has_no_errors_or_myths(name: str, tmp_path: Path) -> None:
    loaded = profiles.load(name, {"HOME": str(tmp_path)}, tmp_path)
    env = {k: v for k, v in loaded.profile.env.items() if not v.startswith("auto")}
    findings = catalog.check_env(env, HostFacts())
    bad = [
        f for f in findings if f.level in ("error", "warning") and f.code not in ("LX140",)
    ]  # host mismatch codes do not apply to an empty host
    assert not [f for f in bad if f.level == "error"], bad
    for myth in (
        "NCCL_TIMEOUT",
        "NCCL_NTHREADS",
        "TORCH_DISTRIBUTED_TIMEOUT",
        "NCCL_TREE_THRESHOLD",
        "NCCL_ASYNC_ERROR_HANDLING",
        "NCCL_IB_GID_INDEX",
    ):
        assert myth not in loaded.profile.env


def test_local_is_cpu_gloo_single_machine(tmp_path: Path) -> None:
    prof = profiles.load("local", {}, tmp_path).profile
    assert (prof.backend, prof.nnodes, prof.master_addr) == ("gloo", 1, "127.0.0.1")


def test_extends_merges_base_first_and_records_origins(tmp_path: Path) -> None:
    loaded = profiles.load("roce", {}, tmp_path)
    assert [str(o) for o in loaded.chain] == [
        "profile:single-node",
        "profile:ib-h800",
        "profile:roce",
    ]
    assert loaded.profile.env["NCCL_IB_HCA"] == "auto:roce"
    assert loaded.origins["env.NCCL_IB_HCA"] == Origin.profile("roce")
    assert loaded.origins["env.NCCL_IB_TIMEOUT"] == Origin.profile("ib-h800")
    assert loaded.origins["env.NCCL_DEBUG"] == Origin.profile("single-node")
    assert loaded.overridden["env.NCCL_IB_HCA"] == (("auto:infiniband", Origin.profile("ib-h800")),)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_user_profile_by_path_and_relative_extends(tmp_path: Path) -> None:
    write(tmp_path / "team" / "base.yaml", "name: base\nenv: {NCCL_DEBUG: WARN}\n")
    write(tmp_path / "team" / "mine.yaml", "name: mine\nextends: ./base.yaml\nnnodes: 2\n")
    loaded = profiles.load("team/mine.yaml", {}, tmp_path)
    assert loaded.label == Origin.profile("team/mine.yaml")
    assert loaded.profile.nnodes == 2 and loaded.profile.env == {"NCCL_DEBUG": "WARN"}
    assert loaded.origins["env.NCCL_DEBUG"] == Origin.profile("./base.yaml")
    # a path written relative to the working directory names the file it was looked for
    write(tmp_path / "team" / "lost.yaml", "name: lost\nextends: ./team/base.yaml\n")
    with pytest.raises(LaunchxError) as info:
        profiles.load("team/lost.yaml", {}, tmp_path)
    assert f"does not exist ({tmp_path / 'team' / 'team' / 'base.yaml'})" in info.value.message
    assert "read from the directory of the profile that names it" in info.value.message


def test_search_order_builtin_then_cwd_then_path_then_config(tmp_path: Path) -> None:
    write(tmp_path / "profiles" / "proj.yaml", "name: proj\ndescription: from cwd\n")
    write(tmp_path / "extra" / "proj.yaml", "name: proj\ndescription: from path\n")
    write(tmp_path / "extra" / "onpath.yaml", "name: onpath\n")
    write(tmp_path / "cfg" / "profiles" / "mine.yaml", "name: mine\n")
    environ = {
        "LAUNCHX_PROFILE_PATH": str(tmp_path / "extra"),
        "LAUNCHX_CONFIG_DIR": str(tmp_path / "cfg"),
    }
    assert profiles.load("proj", environ, tmp_path).profile.description == "from cwd"
    assert profiles.load("onpath", environ, tmp_path).profile.name == "onpath"
    assert profiles.load("mine", environ, tmp_path).profile.name == "mine"
    # a built-in name is found among the built-ins first
    write(tmp_path / "profiles" / "local.yaml", "name: local\ndescription: shadow\n")
    assert profiles.load("local", environ, tmp_path).profile.description != "shadow"


def test_xdg_config_home_is_the_default_user_dir(tmp_path: Path) -> None:
    write(tmp_path / "xdg" / "launchx" / "profiles" / "x.yaml", "name: x\n")
    assert profiles.load("x", {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}, tmp_path)


def test_unknown_profile_lists_available_and_suggests(tmp_path: Path) -> None:
    with pytest.raises(ProfileNotFound) as info:
        profiles.load("ib-h80", {}, tmp_path)
    assert "did you mean 'ib-h800'" in (info.value.hint or "")
    assert "local" in (info.value.hint or "")


def test_cycle_names_the_chain(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", "name: a\nextends: ./b.yaml\n")
    write(tmp_path / "b.yaml", "name: b\nextends: ./a.yaml\n")
    with pytest.raises(
        ConfigError,
        match=r"cycle: profile:a.yaml -> profile:./b.yaml -> "
        r"profile:./a.yaml",
    ):
        profiles.load("a.yaml", {}, tmp_path)


def test_missing_base_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", "name: a\nextends: ./b.yaml\n")
    write(tmp_path / "b.yaml", "name: b\nextends: ib-h80\n")
    with pytest.raises(ProfileNotFound) as info:
        profiles.load("a.yaml", {}, tmp_path)
    message = info.value.message
    # The chain so far, the missing name, and the file whose 'extends' names it.
    assert "profile:a.yaml -> profile:./b.yaml -> 'ib-h80'" in message
    assert "unknown profile 'ib-h80'" in message
    assert f"'extends' in {tmp_path / 'b.yaml'}" in message
    assert "did you mean 'ib-h800'" in (info.value.hint or "")  # locate's hint is kept


def test_missing_base_through_the_cli_exits_2_naming_the_chain(tmp_path: Path) -> None:
    write(tmp_path / "mine.yaml", "name: mine\nextends: nosuch\n")
    code, out, err = run_cli(["explain", "--profile", "./mine.yaml"], cwd=tmp_path)
    assert code == 2 and out == "" and "Traceback" not in err
    assert "profile:./mine.yaml -> 'nosuch'" in err
    assert f"'extends' in {tmp_path / 'mine.yaml'}" in err
    assert "fix: available profiles: " in err


def test_yaml_syntax_error_names_file_line_column(tmp_path: Path) -> None:
    write(tmp_path / "bad.yaml", "name: bad\nenv:\n  NCCL_DEBUG: [WARN\n")
    with pytest.raises(ConfigError) as info:
        profiles.load("bad.yaml", {}, tmp_path)
    assert re.search(r"bad\.yaml:\d+:\d+: YAML syntax error", info.value.message)


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("name: x\nnproc_per_nod: 2\n", "did you mean 'nproc_per_node'"),
        ("name: x\nretry: {max_retires: 2}\n", "did you mean 'max_retries'"),
    ],
)
def test_unknown_key_suggests(tmp_path: Path, text: str, expect: str) -> None:
    write(tmp_path / "x.yaml", text)
    with pytest.raises(ConfigError) as info:
        profiles.load("x.yaml", {}, tmp_path)
    assert "unknown key" in info.value.message
    assert expect in (info.value.hint or "")
    assert "x.yaml" in info.value.message


@pytest.mark.parametrize(
    "text",
    [
        "name: x\nnnodes: two\n",
        "name: x\nmaster_port: 70000\n",
        "name: x\nlauncher: mpirun\n",
        "name: x\nenv: [a, b]\n",
        "name: x\nenv: {'bad name': 1}\n",
        "- just\n- a list\n",
        "name: x\nextends: 3\n",
        "name: x\nenv: {A: null}\n",
        "name: x\nlogs: {console_ranks: 'rank 0'}\n",
        "name: x\nlogs: {console_ranks: [0, rank1]}\n",
    ],
)
def test_wrong_types_are_clean_config_errors(tmp_path: Path, text: str) -> None:
    write(tmp_path / "x.yaml", text)
    with pytest.raises(ConfigError) as info:
        profiles.load("x.yaml", {}, tmp_path)
    assert "x.yaml" in info.value.message


def test_yaml_scalars_become_env_strings(tmp_path: Path) -> None:
    write(tmp_path / "x.yaml", "name: x\nenv: {A: 1, B: true, C: false, D: 1.5}\n")
    assert profiles.load("x.yaml", {}, tmp_path).profile.env == {
        "A": "1",
        "B": "1",
        "C": "0",
        "D": "1.5",
    }


def test_console_ranks_from_yaml_are_stored_in_one_spelling(tmp_path: Path) -> None:
    # YAML reads a lone rank as a number; ranges and lists as text
    for given, stored in (("0", "0"), ("'3-4,0,1'", "0-1,3-4"), ("ALL", "all"), ("[8, 0]", "0,8")):
        write(tmp_path / "x.yaml", f"name: x\nlogs: {{console_ranks: {given}}}\n")
        assert profiles.load("x.yaml", {}, tmp_path).profile.logs.console_ranks == stored


def test_schema_covers_later_issue_blocks() -> None:
    assert {"timeouts", "retry", "resume", "slurm"} <= set(Profile.model_fields)


def test_wheel_ships_builtin_profiles_and_py_typed(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(root),
        ],
        check=True,
        capture_output=True,
    )
    wheel = next(tmp_path.glob("launchx-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for name in REQUIRED:
        assert f"launchx/_profiles/{name}.yaml" in names
    assert "launchx/py.typed" in names
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    out = subprocess.run(
        [sys.executable, "-c", "from launchx import profiles; print(profiles.builtin_dir())"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(target)},
        cwd=tmp_path,
        check=True,
    )
    assert out.stdout.strip().startswith(str(target))
    assert yaml.safe_load((Path(out.stdout.strip()) / "local.yaml").read_text())["name"] == "local"


@pytest.mark.parametrize("key", ["NCCL_Y\n", "A-B", "1ABC", "NCCL A", "A;B", ""])
def test_env_keys_must_be_whole_variable_names(key: str) -> None:
    """A trailing newline slipped past a ``^...$`` match: only the whole key counts."""
    from pydantic import ValidationError

    from launchx.profile_model import Profile

    with pytest.raises(ValidationError, match="not a valid environment variable name"):
        Profile.model_validate({"name": "p", "env": {key: "1"}})
    assert Profile.model_validate({"name": "p", "env": {"NCCL_Y": "1"}}).env == {"NCCL_Y": "1"}
