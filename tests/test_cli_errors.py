"""Bad input through the real CLI: one clear message on stderr, exit 2, never a traceback.

Each case runs ``python -m launchx`` in a subprocess, because what is under test is what a
user sees: the message, the exit status and the absence of typer's/rich's traceback boxes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import clean_env, run_cli

from launchx import pipeline, profiles
from launchx.errors import LaunchxError


def fails_cleanly(args: list[str], cwd: Path) -> str:
    """Run the CLI, check the failure is one clean message, return stderr."""
    code, out, err = run_cli(args, clean_env(), cwd=cwd)
    assert code == 2, f"exit {code}\nstdout:\n{out}\nstderr:\n{err}"
    assert "Traceback" not in err + out
    assert "╭─" not in err + out
    assert out == ""
    messages = [line for line in err.splitlines() if line.startswith(("launchx: error", "Error"))]
    assert len(messages) == 1, err
    return err


# --- profiles ---------------------------------------------------------------------------------


def test_yaml_syntax_error_names_file_line_and_column(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("name: bad\nenv:\n\tNCCL_DEBUG: INFO\n")
    err = fails_cleanly(["explain", "-p", "./bad.yaml"], tmp_path)
    match = re.search(r"bad\.yaml:(\d+):(\d+): YAML syntax error", err)
    assert match, err
    assert (int(match.group(1)), int(match.group(2))) == (3, 1)  # the tab, line 3 column 1
    assert "fix:" in err


@pytest.mark.parametrize(
    ("text", "key", "guess"),
    [
        ("name: x\nnnodez: 2\n", "nnodez", "nnodes"),
        ("name: x\ntimeouts:\n  pg_timeout: 60\n", "timeouts.pg_timeout", "pg_timeout_s"),
    ],
)
def test_unknown_key_suggests_the_right_one(
    tmp_path: Path, text: str, key: str, guess: str
) -> None:
    (tmp_path / "typo.yaml").write_text(text)
    err = fails_cleanly(["explain", "-p", "./typo.yaml"], tmp_path)
    assert "typo.yaml" in err
    assert f"unknown key {key!r}" in err
    assert f"did you mean {guess!r}" in err


def test_wrong_type_names_file_key_and_value(tmp_path: Path) -> None:
    (tmp_path / "typed.yaml").write_text("name: x\nnnodes: two\n")
    err = fails_cleanly(["explain", "-p", "./typed.yaml"], tmp_path)
    assert "typed.yaml" in err and "nnodes" in err and "'two'" in err


def test_wrong_type_message_has_no_pydantic_internals(tmp_path: Path) -> None:
    (tmp_path / "typed.yaml").write_text("name: x\nnnodes: two\n")
    err = fails_cleanly(["explain", "-p", "./typed.yaml"], tmp_path)
    assert "constrained-int" not in err and "more problem" not in err
    assert "auto" in err  # the allowed word is named


def test_unknown_profile_lists_the_available_ones(tmp_path: Path) -> None:
    err = fails_cleanly(["explain", "-p", "ib-h80"], tmp_path)
    assert "unknown profile 'ib-h80'" in err
    assert "did you mean 'ib-h800'" in err
    for path in profiles.builtin_dir().glob("*.yaml"):
        assert path.stem in err


def test_extends_cycle_is_named(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("name: a\nextends: ./b.yaml\n")
    (tmp_path / "b.yaml").write_text("name: b\nextends: ./a.yaml\n")
    err = fails_cleanly(["explain", "-p", "./a.yaml"], tmp_path)
    assert "cycle" in err
    assert "a.yaml" in err and "b.yaml" in err


def test_extends_itself_is_a_cycle(tmp_path: Path) -> None:
    (tmp_path / "me.yaml").write_text("name: me\nextends: ./me.yaml\n")
    assert "cycle" in fails_cleanly(["explain", "-p", "./me.yaml"], tmp_path)


# --- flags --------------------------------------------------------------------------------------


@pytest.mark.parametrize("item", ["FOO", "=x", "a b=1"])
def test_malformed_set(tmp_path: Path, item: str) -> None:
    err = fails_cleanly(["explain", "--set", item], tmp_path)
    key = item.partition("=")[0]
    assert repr(item) in err or repr(key) in err  # names the bad item (never its value)
    assert "KEY=VALUE" in err or "environment variable" in err


def test_bad_format(tmp_path: Path) -> None:
    err = fails_cleanly(["explain", "--format", "yaml"], tmp_path)
    assert "'yaml'" in err and "table, env or json" in err


@pytest.mark.parametrize(
    ("flag", "value", "words"),
    [
        ("--nnodes", "two", ("nnodes", "'two'")),
        ("--master-port", "99999", ("master_port", "65535")),
    ],
)
def test_bad_launch_flag(tmp_path: Path, flag: str, value: str, words: tuple[str, ...]) -> None:
    err = fails_cleanly(["explain", flag, value], tmp_path)
    for word in words:
        assert word in err


def test_malformed_set_does_not_echo_a_secret_value(tmp_path: Path) -> None:
    err = fails_cleanly(["explain", "--set", "MY TOKEN=hf-s3cret-99"], tmp_path)
    assert "hf-s3cret-99" not in err


# --- the command table ------------------------------------------------------------------------

COMMANDS = ("explain", "run", "sbatch", "doctor", "diagnose", "profiles", "status")


def test_top_level_help_lists_every_command(tmp_path: Path) -> None:
    code, out, err = run_cli(["--help"], cwd=tmp_path)
    assert code == 0, err
    table = out.partition("Commands:")[2]
    listed = re.findall(r"^  ([a-z]+) ", table, flags=re.MULTILINE)
    assert sorted(listed) == sorted(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_each_command_runs_alone(name: str, tmp_path: Path) -> None:
    """main() builds only the command being run; its help and the root's --version work."""
    from launchx import cli

    narrow = cli._app_for(["--version", name, "--help"])
    assert narrow is not cli.app
    names = [c.name or c.callback.__name__ for c in narrow.registered_commands if c.callback]
    assert names + [g.name for g in narrow.registered_groups] == [name]
    code, out, err = run_cli([name, "--help"], cwd=tmp_path)
    assert code == 0 and f"launchx {name} [OPTIONS]" in out, err


def test_unknown_command_gets_the_whole_table(tmp_path: Path) -> None:
    from launchx import cli

    assert cli._app_for(["explian"]) is cli.app and cli._app_for([]) is cli.app
    err = fails_cleanly(["explian"], tmp_path)
    assert "No such command 'explian'" in err


# --- options ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "named", "closest"),
    [
        (["run", "--hang-timout", "20", "train.py"], "--hang-timout", "--hang-timeout"),
        (["run", "--dry-run", "-x", "train.py"], "-x", None),
        (["sbatch", "--nodez", "2", "train.py"], "--nodez", "--nodes"),
    ],
)
def test_an_unknown_option_before_the_script_is_launchxs_error(
    tmp_path: Path, args: list[str], named: str, closest: str | None
) -> None:
    (tmp_path / "train.py").write_text("print(1)\n")
    err = fails_cleanly(args, tmp_path)
    assert f"no such option {named!r}" in err
    if closest:
        assert f"did you mean {closest}?" in err


@pytest.mark.parametrize(
    ("word", "message", "hint"),
    [
        (
            "--hang-timout=20",
            "launchx run: no such option '--hang-timout'",
            "did you mean --hang-timeout? ",
        ),
        ("-x", "launchx run: no such option '-x'", "options before the script"),
    ],
)
def test_an_unknown_option_is_refused_with_the_closest_known_one(
    word: str, message: str, hint: str
) -> None:
    """The decision behind the CLI's check, without a process: what SCRIPT's place holds
    against the command's own options."""
    known = ["--hang-timeout", "--dry-run", "-p", "--profile"]
    with pytest.raises(LaunchxError) as info:
        pipeline.refuse_unknown_option("run", word, known)
    assert info.value.message == message
    assert info.value.hint is not None and info.value.hint.startswith(hint)
    assert "(launchx run --help); put the script's own options after" in info.value.hint


RUN_OPTIONS = ["--nproc-per-node", "--nnodes", "--master-addr", "--master-port", "--max-retries"]
RUN_OPTIONS += ["--console-ranks"]
TORCHRUN_CASES = [
    ("--nproc_per_node=8", "launchx spells it --nproc-per-node; "),
    ("--master_addr", "launchx spells it --master-addr; "),
    ("--nproc", "did you mean --nproc-per-node? "),  # argparse's abbreviation
    ("--max-restarts=3", "torchrun's --max-restarts is launchx's --max-retries N"),
    ("--rdzv_endpoint=n0:29500", "torchrun's --rdzv-endpoint is launchx's --master-addr"),
    ("--rdzv-id=7", "options before the script"),  # the command has no --run-id: not offered
    ("--standalone", "torchrun's --standalone has no launchx twin: drop it (one node"),
    ("--rdzv-backend=c10d", "torchrun's --rdzv-backend has no launchx twin: drop it"),
    ("--rdzv-conf", "torchrun's --rdzv-conf has no launchx twin: drop it, or set"),
    ("--redirects=3", "torchrun's --redirects has no launchx twin: drop it"),
    ("--tee=3", "torchrun's --tee has no launchx twin: drop it"),
    (
        "--local-ranks-filter=0",
        "torchrun's --local-ranks-filter is launchx's --console-ranks RANKS",
    ),
    ("--logs_specs=x", "torchrun's --logs-specs has no launchx twin: drop it"),
    ("--local-addr=10.0.0.1", "torchrun's --local-addr has no launchx twin: drop it"),
    ("--role=trainer", "torchrun's --role has no launchx twin: drop it"),
    ("--monitor-interval=1", "torchrun's --monitor-interval has no launchx twin: drop it"),
    ("--start_method=fork", "torchrun's --start-method has no launchx twin: drop it"),
    ("--n", "options before the script"),  # too short to name one option
]


@pytest.mark.parametrize(("word", "hint"), TORCHRUN_CASES)
def test_torchruns_spellings_are_answered_with_launchxs(word: str, hint: str) -> None:
    """Whoever replaces ``torchrun`` with ``launchx run`` types torchrun's options."""
    with pytest.raises(LaunchxError) as info:
        pipeline.refuse_unknown_option("run", word, RUN_OPTIONS)
    assert info.value.hint is not None and info.value.hint.startswith(hint)


def test_every_torchrun_spelling_is_answered() -> None:
    named = {w.split("=")[0].replace("_", "-") for w, _ in TORCHRUN_CASES}
    assert set(pipeline.TORCHRUN_SPELLINGS) <= named
    with pytest.raises(LaunchxError) as info:
        pipeline.refuse_unknown_option("run", "--rdzv-id=7", [*RUN_OPTIONS, "--run-id"])
    assert str(info.value.hint).startswith("torchrun's --rdzv-id is launchx's --run-id ID; ")


SBATCH_OPTIONS = ["--nodes", "--time", "--job-name", "--account", "--qos", "--cpus-per-task"]
SBATCH_OPTIONS += ["--gpus-per-node", "--ntasks-per-node", "--sbatch-arg", "-p", "--profile"]


@pytest.mark.parametrize(
    ("word", "hint"),
    [
        ("-N", "sbatch's -N is launchx's --nodes N; "),
        ("-t", "sbatch's -t is launchx's --time LIMIT; "),
        ("-J", "sbatch's -J is launchx's --job-name NAME; "),
        ("-A", "sbatch's -A is launchx's --account NAME; "),
        ("-q", "sbatch's -q is launchx's --qos NAME; "),
        ("-c", "sbatch's -c is launchx's --cpus-per-task N; "),
        ("--gres=gpu:8", "sbatch's --gres is launchx's --gpus-per-node N; "),
        ("--gpus=8", "did you mean --gpus-per-node? "),  # (the one option it begins)
        ("--ntasks=16", "did you mean --ntasks-per-node? "),
        ("--mem=100G", "an sbatch option launchx does not write goes through: --sbatch-arg"),
        ("--nodess", "did you mean --nodes? "),
    ],
)
def test_sbatchs_spellings_are_answered_with_launchxs(word: str, hint: str) -> None:
    with pytest.raises(LaunchxError) as info:
        pipeline.refuse_unknown_option("sbatch", word, SBATCH_OPTIONS)
    assert str(info.value.hint).startswith(hint)
    # where launchx has no such option, sbatch's name is not offered
    with pytest.raises(LaunchxError) as info:
        pipeline.refuse_unknown_option("run", "-N", ["--nnodes"])
    assert "sbatch's" not in str(info.value.hint)


def test_the_cli_answers_torchruns_spelling(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("print(1)\n")
    err = fails_cleanly(["run", "--nproc_per_node=2", "train.py"], tmp_path)
    assert "launchx spells it --nproc-per-node" in err


@pytest.mark.parametrize("word", ["train.py", "-", "python", "./-x"])
def test_a_script_is_not_an_unknown_option(word: str) -> None:
    pipeline.refuse_unknown_option("run", word, ["--dry-run"])


@pytest.mark.parametrize("value", ["-5", "0", "abc", "inf"])
def test_a_bad_hang_timeout_is_refused_before_anything_starts(tmp_path: Path, value: str) -> None:
    (tmp_path / "train.py").write_text("print(1)\n")
    err = fails_cleanly(["run", "--hang-timeout", value, "train.py"], tmp_path)
    assert "--hang-timeout" in err and repr(value) in err


def test_a_hang_timeout_near_the_collective_timeout_is_a_warning(tmp_path: Path) -> None:
    # local: a 300 s collective timeout; LX308 above HANG_SHARE_OF_PG (0.5) of it, and its
    # fix suggests exactly that share, a value that no longer warns.
    code, out, _err = run_cli(
        ["explain", "-p", "local", "--set", "timeouts.hang_s=290"], clean_env(), cwd=tmp_path
    )
    assert code == 0 and "LX308" in out and "--hang-timeout 150 or less" in out


def test_a_run_id_that_is_a_path_is_refused_and_nothing_is_removed(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("print(1)\n")
    victims = tmp_path / "mine"
    for i in range(25):
        (victims / f"d{i}").mkdir(parents=True)
    err = fails_cleanly(["run", "--run-id", str(victims / "run"), "train.py"], tmp_path)
    assert "cannot be a run id" in err and "--run-id exp-42" in err
    err = fails_cleanly(["run", "--run-id", "../../mine/run", "train.py"], tmp_path)
    assert len(list(victims.iterdir())) == 25


def test_a_resume_arg_without_a_checkpoint_dir_is_a_warning(tmp_path: Path) -> None:
    # launchx looks for checkpoints only in the checkpoint directory: without one the
    # option would silently never be passed, and every retry would start from step 0
    args = ["explain", "-p", "local", "--set", "resume.resume_arg=--resume {path}"]
    code, out, _err = run_cli(args, clean_env(), cwd=tmp_path)
    assert code == 0 and "LX309" in out and "add --checkpoint-dir DIR" in out
    more = [*args, "--set", "resume.checkpoint_dir=ckpt"]
    code, out, _err = run_cli(more, clean_env(), cwd=tmp_path)
    assert code == 0 and "LX309" not in out


def test_a_checkpoint_dir_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("print(1)\n")
    err = fails_cleanly(["run", "--checkpoint-dir", "train.py", "train.py"], tmp_path)
    assert "is a file, not a directory" in err
    # the dry run shows what the run would do, so it refuses what the run refuses
    err = fails_cleanly(["run", "--dry-run", "--checkpoint-dir", "train.py", "train.py"], tmp_path)
    assert "is a file, not a directory" in err


def test_a_resume_arg_with_an_unbalanced_quote_is_refused_before_any_run(tmp_path: Path) -> None:
    """It is split only when a checkpoint exists: at the first retry, perhaps days in."""
    (tmp_path / "train.py").write_text("print(1)\n")
    bad = "--resume '{path}"
    err = fails_cleanly(
        ["run", "--checkpoint-dir", "ck", "--resume-arg", bad, "train.py"], tmp_path
    )
    assert "cannot be split into arguments (no closing quotation)" in err
    err = fails_cleanly(["explain", "--set", f"resume.resume_arg={bad}"], tmp_path)
    assert "close the quote" in err


@pytest.mark.parametrize(("hang_s", "warned"), [("151", True), ("150", False), ("auto", False)])
def test_lx308_threshold_and_its_fix_are_one_share(hang_s: str, warned: bool) -> None:
    from launchx.detect import classify_launch
    from launchx.facts import HostFacts
    from launchx.resolve import HANG_SHARE_OF_PG, Overrides, resolve

    assert HANG_SHARE_OF_PG == 0.5
    loaded = profiles.load("local", {}, Path("/nonexistent"))
    facts = HostFacts(cpu_count=4, launch=classify_launch({}), environ={}, python="python3")
    res = resolve(loaded, facts, Overrides(sets=(f"timeouts.hang_s={hang_s}",)))
    found = [f for f in res.findings if f.code == "LX308"]
    assert bool(found) == warned
    if found:  # the suggested value passes the check it came from
        suggested = found[0].fix.split("--hang-timeout ")[1].split()[0]
        again = resolve(loaded, facts, Overrides(sets=(f"timeouts.hang_s={suggested}",)))
        assert suggested == "150" and "LX308" not in {f.code for f in again.findings}


def test_the_script_is_told_the_checkpoint_dir_and_a_resume_arg_may_hold_no_path(
    tmp_path: Path,
) -> None:
    """--checkpoint-dir reaches the script as LAUNCHX_CHECKPOINT_DIR (absolute), and a
    resume option without {path} is the script's own way (nanoGPT's --init_from=resume
    resumes from its out_dir): accepted."""
    (tmp_path / "train.py").write_text("print(1)\n")
    args = ["run", "--dry-run", "--checkpoint-dir", "ck", "--resume-arg", "--init_from=resume"]
    code, out, err = run_cli([*args, "train.py"], cwd=tmp_path)
    assert code == 0, err
    assert f"export LAUNCHX_CHECKPOINT_DIR={tmp_path / 'ck'}" in out


@pytest.mark.parametrize(
    "args",
    [
        ["doctor", "-p", "nosuch", "--json"],
        ["run", "--dry-run", "--json", "-p", "nosuch", "train.py"],
        ["status", "no-such-run", "--json"],
        ["diagnose", "--json", "/no/such/log"],
    ],
    ids=["doctor", "run --dry-run", "status", "diagnose"],
)
def test_a_refusal_under_json_is_json_on_stdout_too(args: list[str], tmp_path: Path) -> None:
    """A script that reads --json's stdout got nothing for a refusal; the person still
    reads the message on stderr."""
    import json

    env = {**clean_env(), "TMPDIR": str(tmp_path)}
    code, out, err = run_cli(args, env, cwd=tmp_path)
    doc = json.loads(out)
    assert code == 2 and doc["schema"] == "launchx-error/1" and doc["exit_code"] == 2
    assert doc["error"] and doc["error"] in err and "Traceback" not in err
    # --json after the script is the script's own argument: no JSON for launchx's refusal
    code, out, _ = run_cli(["run", "-p", "nosuch", "train.py", "--json"], env, cwd=tmp_path)
    assert code == 2 and out == ""


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["doctor", "--join-timeout", "abc", "--json"], "Invalid value for '--join-timeout'"),
        (["status", "--json", "a", "b"], "unexpected extra argument"),
        (["diagnose", "--json", "--bogus", "x"], "No such option: --bogus"),
        (["explain", "--format", "json", "--nnodes"], "requires an argument"),
        (["explain", "--format=json", "--set", "FOO"], "malformed --set 'FOO'"),
    ],
)
def test_a_usage_error_under_json_is_json_on_stdout_too(
    args: list[str], words: str, tmp_path: Path
) -> None:
    """click refuses these before the command runs (and can say it was asked for JSON):
    a script reading stdout still gets one object naming the error."""
    import json

    code, out, err = run_cli(args, {**clean_env(), "TMPDIR": str(tmp_path)}, cwd=tmp_path)
    doc = json.loads(out)
    assert code == 2 and doc["schema"] == "launchx-error/1" and doc["exit_code"] == 2
    assert words in doc["error"] and words in err and "Traceback" not in err
    assert doc["fix"] == f"see launchx {args[0]} --help" or doc["fix"].startswith("write e.g.")


def test_json_refusals_are_said_only_for_the_command_that_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One process, two commands (a test harness, an embedding tool): the second did not ask
    for JSON; and an unknown option of `run --dry-run --json` is a refusal like the rest."""
    import json

    from launchx import cli

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    for args, wants_json in (
        (["status", "no-such-run", "--json"], True),
        (["explain", "-p", "nosuch"], False),
        (["run", "--dry-run", "--json", "--bogus", "x.py"], True),
    ):
        with pytest.raises(SystemExit) as stop:
            cli.main(args)
        out = capsys.readouterr().out
        assert stop.value.code == 2
        if wants_json:
            assert json.loads(out)["schema"] == "launchx-error/1", args
        else:
            assert out == "", args
