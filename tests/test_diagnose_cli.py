"""`launchx diagnose` end to end through the typer app (no subprocess)."""

from __future__ import annotations

import json
import sys
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
    assert doc["primary"]["retryable"] is True
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


def test_missing_file_is_one_clean_message_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.log"
    result = runner.invoke(cli.app, ["diagnose", str(missing)])
    assert isinstance(result.exception, LaunchxError)
    assert result.exception.exit_code == 2
    monkeypatch.setattr(sys, "argv", ["launchx", "diagnose", str(missing)])
    with pytest.raises(SystemExit) as exc:
        cli.main()
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "cannot read log" in err and "nope.log" in err
    assert "Traceback" not in err
