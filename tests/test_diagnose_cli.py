"""`launchx diagnose` end to end through the typer app (no subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from launchx import cli
from launchx.errors import LaunchxError

FIXTURES = Path(__file__).parent / "fixtures" / "logs" / "dev"
KEYERROR = FIXTURES / "user_code_error__torchrun_gloo_keyerror.log"
UNKNOWN = FIXTURES / "unknown__torchrun_silent_exit.log"
runner = CliRunner()


def test_text_report_names_cause_fix_and_rank() -> None:
    result = runner.invoke(cli.app, ["diagnose", str(KEYERROR)])
    assert result.exit_code == 0, result.output
    assert "user_code_error (LX511) on rank 1" in result.output
    assert "fix:" in result.output and "KeyError: 'batch_size'" in result.output


def test_json_report() -> None:
    log = FIXTURES / "nccl_watchdog_timeout__basicsr_737.log"
    result = runner.invoke(cli.app, ["diagnose", "--json", str(log)])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["primary"]["category"] == "nccl_watchdog_timeout"
    assert (doc["primary"]["retryable"], doc["primary"]["retry_on_progress"]) == (False, True)
    assert doc["primary"]["rank"] == 1


def test_stdin_dash_and_several_files() -> None:
    result = runner.invoke(cli.app, ["diagnose", "-"], input=KEYERROR.read_text())
    assert result.exit_code == 0
    assert "user_code_error" in result.output
    pre = FIXTURES / "preempted__submitit_1613.log"
    result = runner.invoke(cli.app, ["diagnose", "--json", str(KEYERROR), str(pre)])
    assert json.loads(result.output)["primary"]["category"] == "preempted"


def test_unknown_exits_1() -> None:
    result = runner.invoke(cli.app, ["diagnose", str(UNKNOWN)])
    assert result.exit_code == 1
    assert "unknown (LX599)" in result.output
    result = runner.invoke(cli.app, ["diagnose", "--json", "-"], input="all good here\n")
    assert result.exit_code == 1
    assert json.loads(result.output)["primary"] is None
    # nothing at all on stdin is no log, not an unknown failure
    result = runner.invoke(cli.app, ["diagnose", "-"], input="")
    assert isinstance(result.exception, LaunchxError) and result.exception.exit_code == 2
    assert "<stdin> is empty" in str(result.exception)


def test_blank_lines_are_no_log_not_binary(tmp_path: Path) -> None:
    blank = tmp_path / "blank.log"
    blank.write_text("\n\n   \n")
    for args, given in ((["diagnose", str(blank)], ""), (["diagnose", "-"], "\n \t\n")):
        result = runner.invoke(cli.app, args, input=given)
        assert isinstance(result.exception, LaunchxError) and result.exception.exit_code == 2
        assert "holds no text, only blank lines" in str(result.exception), args
        assert "binary" not in str(result.exception)


def test_closed_stdin_is_read_only_when_asked_for(tmp_path: Path) -> None:
    """A launchx started with fd 0 closed (``<&-``, a daemon's child): the logs named are
    read; '-' is one message and exit 2, not a traceback."""
    import os
    import subprocess
    import sys

    def closed(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "launchx", "diagnose", *args],
            capture_output=True,
            text=True,
            preexec_fn=lambda: os.close(0),
            env={**os.environ, "LAUNCHX_TEMP_DIR": str(tmp_path)},
            timeout=120,
        )

    named = closed(str(KEYERROR))
    assert named.returncode == 0, named.stderr
    assert "user_code_error (LX511) on rank 1" in named.stdout
    dash = closed("-")
    assert dash.returncode == 2 and "Traceback" not in dash.stderr, dash.stderr
    assert "<stdin> is closed" in dash.stderr


def test_binary_stdin_is_refused_as_a_binary_file_is() -> None:
    result = runner.invoke(cli.app, ["diagnose", "-"], input=bytes(range(256)) * 64)
    assert isinstance(result.exception, LaunchxError) and result.exception.exit_code == 2
    assert "<stdin> is binary data, not a log" in str(result.exception)
    # what stdin's first bytes were read for is still read: a long text log is whole
    long = "step 1 loss 0.5\n" * 4000 + KEYERROR.read_text()
    result = runner.invoke(cli.app, ["diagnose", "-"], input=long)
    assert result.exit_code == 0 and "user_code_error (LX511) on rank 1" in result.output


def test_a_run_that_succeeded_exits_0(tmp_path: Path) -> None:
    (tmp_path / "attempt-0").mkdir()
    (tmp_path / "attempt-0" / "rank-0.log").write_text("[toy] done steps=3\n")
    (tmp_path / "events.jsonl").write_text(
        '{"ts": 1.0, "event": "run_start", "run": "lx-1"}\n'
        '{"ts": 1.1, "event": "attempt_start", "run": "lx-1", "attempt": 0}\n'
        '{"ts": 4.5, "event": "attempt_end", "run": "lx-1", "attempt": 0, "exit_code": 0,'
        ' "outcome": "ok", "category": null, "retryable": false, "rank": null}\n'
        '{"ts": 4.5, "event": "run_end", "run": "lx-1", "exit_code": 0, "reason": "finished"}\n'
    )
    result = runner.invoke(cli.app, ["diagnose", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("succeeded: attempt 0 finished")
    assert "unknown" not in result.output


def test_missing_file_is_one_clean_message_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.log"
    result = runner.invoke(cli.app, ["diagnose", str(missing)])
    assert isinstance(result.exception, LaunchxError)
    assert result.exception.exit_code == 2
    with pytest.raises(SystemExit) as exc:
        cli.main(["diagnose", str(missing)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "cannot read log" in err and "nope.log" in err
    assert "Traceback" not in err


RUNS = Path(__file__).parent / "fixtures" / "runs"


def test_a_run_directory_with_every_rank_and_node() -> None:
    result = runner.invoke(cli.app, ["diagnose", "--json", str(RUNS / "two_nodes_sigkill")])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert {"primary", "findings", "ranks", "attempts", "first_failure"} <= set(doc)
    assert doc["primary"]["category"] == "killed"
    # (torchrun's summary says "host : localhost", which names no machine)
    assert doc["first_failure"] == {"rank": 2, "host": None}
    roles = {r["rank"]: (r["role"], r["exit_code"], r["node"]) for r in doc["ranks"]}
    assert roles == {
        0: ("collateral", -15, 0),
        1: ("collateral", 1, 0),
        2: ("root", -9, 1),
        3: ("collateral", -15, 1),
    }


def test_text_groups_root_and_collateral_with_places() -> None:
    result = runner.invoke(cli.app, ["diagnose", str(RUNS / "two_nodes_sigkill")])
    out = result.output
    assert out.splitlines()[0] == ("killed (LX515) on rank 2, retryable from a checkpoint")
    assert "rank 2 failed first (exit -9, SIGKILL)" in out
    assert "(node-1/launcher.log:" in out
    ranks = out[out.index("  ranks:") :]
    assert ranks.index("root") < ranks.index("collateral")


def test_several_files_and_directories_together(tmp_path: Path) -> None:
    log = tmp_path / "rank-1.log"
    log.write_text("[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate\n")
    result = runner.invoke(cli.app, ["diagnose", "--json", str(log), str(RUNS / "gloo_uneven_fr")])
    assert result.exit_code == 0
    assert json.loads(result.output)["primary"]["category"] == "cuda_oom"


@pytest.mark.parametrize("kind", ["binary", "empty_dir", "empty_path", "empty_file"])
def test_bad_input_exits_2_with_one_message(
    kind: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if kind == "binary":
        target = tmp_path / "core.bin"
        target.write_bytes(bytes(range(256)) * 64)
        expected = "binary file, not a log"
    elif kind == "empty_dir":
        target = tmp_path / "empty"
        target.mkdir()
        expected = "no log files under"
    elif kind == "empty_path":  # `launchx diagnose "$UNSET"`: not the current directory
        monkeypatch.chdir(FIXTURES)
        target, expected = Path(""), "an empty path was given"
    else:
        target = tmp_path / "rank-0.log"
        target.write_bytes(b"")
        expected = "nothing to diagnose: rank-0.log is empty"
    with pytest.raises(SystemExit) as exc:
        cli.main(["diagnose", "" if kind == "empty_path" else str(target)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err
    assert err.count("launchx: error:") == 1
