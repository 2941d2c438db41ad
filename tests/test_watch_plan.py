"""What the hang watch adds to the ranks' environment (``plan._watch_env``): on an NCCL
profile the flight recorder, recording into the attempt's own log dir and dumping there on
the watchdog's timeout or when launchx asks through the FIFO; on gloo none of it. Built
from a recorded InfiniBand host (``tests/hosts/ib-h800-8gpu``), both in-process and
through ``launchx run --dry-run --json`` (what ``run`` would execute)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import HOSTS, clean_env, plan_once, run_cli

from launchx import profiles
from launchx.detect import gather
from launchx.plan import Target, attempt_log_dir, decide_run
from launchx.resolve import Overrides, Resolution, resolve
from launchx.watch import flight

IB = HOSTS / "ib-h800-8gpu"
FLIGHT_VARS = (
    "TORCH_NCCL_TRACE_BUFFER_SIZE",
    "TORCH_FR_BUFFER_SIZE",
    "TORCH_NCCL_DUMP_ON_TIMEOUT",
    "TORCH_NCCL_DEBUG_INFO_PIPE_FILE",
    "TORCH_FR_DUMP_TEMP_FILE",
    "TORCH_NCCL_DEBUG_INFO_TEMP_FILE",
)


def _environ() -> dict[str, str]:
    return dict(json.loads((IB / "env.json").read_text()))


def _resolved(profile: str, *sets: str) -> Resolution:
    environ = _environ()
    facts = gather(environ, root=str(IB))
    return resolve(profiles.load(profile, environ, Path("/nonexistent")), facts, Overrides(sets))


def _env_of(res: Resolution, log_root: str, attempt: int = 0) -> tuple[dict[str, str], Path]:
    run = decide_run(res, run_id="lx-t", log_dir=log_root)
    attempt_dir = Path(attempt_log_dir(run, "lx-t", attempt, "/tmp"))
    plan = plan_once(
        res, Target("train.py", ()), run_id="lx-t", attempt=attempt, log_dir=str(attempt_dir)
    )
    env = {k: v for k, v in plan.env_changes().items() if v is not None}
    return env, attempt_dir


def test_an_nccl_profile_turns_the_flight_recorder_on_into_the_attempts_log_dir() -> None:
    res = _resolved("ib-h800")
    assert res.launch["backend"].value == "nccl"
    env, attempt_dir = _env_of(res, "/logs/run", attempt=1)
    assert attempt_dir == Path("/logs/run/attempt-1")
    assert env["TORCH_NCCL_TRACE_BUFFER_SIZE"] == env["TORCH_FR_BUFFER_SIZE"] == "2000"
    assert env["TORCH_NCCL_DUMP_ON_TIMEOUT"] == "1"
    # Dumps (<prefix><rank>) and the FIFOs launchx writes to on a hang lie in the attempt's
    # own directory, beside its rank logs, not in a hang/ subdirectory nor in /tmp.
    for name in ("TORCH_FR_DUMP_TEMP_FILE", "TORCH_NCCL_DEBUG_INFO_TEMP_FILE"):
        assert env[name] == str(attempt_dir / flight.FR_TRACE_PREFIX)
    assert env["TORCH_NCCL_DEBUG_INFO_PIPE_FILE"] == str(attempt_dir / flight.FR_PIPE_PREFIX)


def test_the_flight_recorder_is_explained_as_launchx_s_own() -> None:
    res = _resolved("ib-h800")
    run = decide_run(res, run_id="lx-t", log_dir="/logs/run")
    plan = plan_once(res, Target("train.py", ()), run_id="lx-t", log_dir="/logs/run/attempt-0")
    origins = {e.name: str(e.source) for e in plan.env}
    assert run.hang.mode == "auto"  # the default: the watch is on
    for name in FLIGHT_VARS:
        assert "flight recorder" in origins[name], origins[name]


def test_a_gloo_profile_sets_no_flight_recorder() -> None:
    res = _resolved("local")
    assert res.launch["backend"].value == "gloo"
    env, attempt_dir = _env_of(res, "/logs/run")
    assert not set(FLIGHT_VARS) & set(env)
    assert env["LAUNCHX_STACK_DIR"].startswith(str(attempt_dir))  # the watch itself is on


def test_hang_timeout_off_sets_no_flight_recorder() -> None:
    env, _ = _env_of(_resolved("ib-h800", "timeouts.hang_s=off"), "/logs/run")
    assert not set(FLIGHT_VARS) & set(env)


def test_a_flight_recorder_the_user_turned_off_stays_off() -> None:
    environ = {**_environ(), "TORCH_NCCL_TRACE_BUFFER_SIZE": "0"}
    facts = gather(environ, root=str(IB))
    res = resolve(profiles.load("ib-h800", environ, Path("/nonexistent")), facts, Overrides())
    run = decide_run(res, run_id="lx-t", log_dir="/logs/run")
    plan = plan_once(res, Target("train.py", ()), run_id="lx-t", log_dir="/logs/run/attempt-0")
    assert run.hang.mode == "auto"
    ours = {e.name for e in plan.env if "flight recorder" in str(e.source)}
    assert ours == set()
    env = plan.env_changes()
    assert env.get("TORCH_FR_BUFFER_SIZE", "0") == "0"  # the catalog's rename keeps the 0
    assert "TORCH_NCCL_DEBUG_INFO_PIPE_FILE" not in env and "TORCH_NCCL_DUMP_ON_TIMEOUT" not in env


def test_dry_run_json_shows_the_flight_recorder_in_the_log_dir(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    (tmp_path / "train.py").write_text("print('never run')\n")
    code, out, err = run_cli(
        ["run", "--dry-run", "--json", "-p", "ib-h800", "--log-dir", str(logs), "train.py"],
        clean_env(LAUNCHX_HOST_ROOT=str(IB), **_environ()),
        cwd=tmp_path,
    )
    assert code == 0, err
    env = {k: v["value"] for k, v in json.loads(out)["env"].items()}
    attempt_dir = logs / "attempt-0"
    assert env["TORCH_NCCL_TRACE_BUFFER_SIZE"] == "2000"
    assert env["TORCH_NCCL_DUMP_ON_TIMEOUT"] == "1"
    assert env["TORCH_NCCL_DEBUG_INFO_PIPE_FILE"] == str(attempt_dir / flight.FR_PIPE_PREFIX)
    assert env["TORCH_FR_DUMP_TEMP_FILE"] == str(attempt_dir / flight.FR_TRACE_PREFIX)

    code, out, err = run_cli(
        ["run", "--dry-run", "--json", "-p", "local", "--log-dir", str(logs), "train.py"],
        clean_env(),
        cwd=tmp_path,
    )
    assert code == 0, err
    assert not set(FLIGHT_VARS) & set(json.loads(out)["env"])


def test_the_hook_keeps_a_pythonpath_the_profile_or_set_gives() -> None:
    """The hook's directory goes first on the ranks' PYTHONPATH, before the one they would
    have had: --set's (or a profile's), not only the shell's."""
    from launchx.watch.hook import HOOK_DIR

    env, _dir = _env_of(_resolved("local", "PYTHONPATH=/opt/mine"), "/logs/run")
    assert env["PYTHONPATH"].split(":") == [HOOK_DIR, "/opt/mine"]
