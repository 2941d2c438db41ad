"""Stacks from outside (py-spy) and from inside (the faulthandler hook), on real processes,
plus the flight recorder's settings and FIFO trigger."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from launchx.watch import flight
from launchx.watch.frames import categorize
from launchx.watch.hook import HOOK_DIR, STACK_SIGNAL, HookStacks, hook_env
from launchx.watch.stacks import (
    FallbackStacks,
    PySpy,
    StackRound,
    classify_pyspy_error,
    explain_denial,
    find_pyspy,
)

FIX = Path(__file__).parent / "fixtures" / "watch"
STUCK = """
import threading, sys
def stuck_in_lock():
    lock = threading.Lock()
    lock.acquire()
    print("ready", flush=True)
    lock.acquire()
stuck_in_lock()
"""


def _start(code: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    return proc


@pytest.fixture
def stuck() -> Iterator[subprocess.Popen[str]]:
    proc = _start(STUCK)
    yield proc
    proc.kill()
    proc.wait()


# -- py-spy -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fixture", "kind", "detail"),
    [
        ("pyspy_eperm_uid.txt", "permission", "Permission Denied"),
        (
            "pyspy_eperm_attach.txt",
            "permission",
            "Failed to get stack traces (EPERM: Operation not permitted)",
        ),
        (
            "pyspy_gone.txt",
            "gone",
            "Failed to get process executable name. Check that the process is running.",
        ),
    ],
)
def test_classify_recorded_pyspy_errors(fixture: str, kind: str, detail: str) -> None:
    failure = classify_pyspy_error(1, (FIX / fixture).read_text())
    assert (failure.kind, failure.detail) == (kind, detail)


def test_classify_timeout_and_other() -> None:
    assert classify_pyspy_error(None, "").kind == "timeout"
    other = classify_pyspy_error(1, "Error: Unsupported version of Python: 2.6\n")
    assert (other.kind, other.detail) == ("error", "Unsupported version of Python: 2.6")


def test_explain_denial_names_the_cause_and_the_fix() -> None:
    text = explain_denial("Permission Denied", yama_scope=1, cap_sys_ptrace=False)
    assert "kernel.yama.ptrace_scope is 1 (only a parent process may attach)" in text
    assert "without CAP_SYS_PTRACE" in text and "--cap-add SYS_PTRACE" in text
    assert "the kernel refused" in explain_denial("x", yama_scope=None, cap_sys_ptrace=True)


def test_find_pyspy_is_the_dependency_beside_python() -> None:
    found = find_pyspy()
    assert found is not None and Path(found).name == "py-spy"


def test_pyspy_reads_a_process_blocked_in_a_lock(stuck: subprocess.Popen[str]) -> None:
    spy = PySpy()
    plain = spy.dump([stuck.pid])
    assert plain.available and not plain.failures
    main = plain.stacks[stuck.pid].main
    assert main is not None and main.frames[0].name == "stuck_in_lock"
    native = spy.dump([stuck.pid], native=True)
    frames = native.stacks[stuck.pid].main.frames  # type: ignore[union-attr]
    assert categorize(frames) == "lock"  # only the native frames say it waits


def test_pyspy_missing_and_gone(stuck: subprocess.Popen[str]) -> None:
    missing = PySpy("/nonexistent/py-spy").dump([stuck.pid])
    assert not missing.available and "cannot run /nonexistent/py-spy" in (missing.note or "")
    gone = PySpy().dump([stuck.pid, 2**22 + 12345])
    assert gone.available and stuck.pid in gone.stacks
    assert gone.failures[2**22 + 12345].kind == "gone"


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv"
)
def test_pyspy_without_ptrace_rights_is_unavailable_with_the_reason(
    stuck: subprocess.Popen[str],
) -> None:
    """Another uid without CAP_SYS_PTRACE may not read a root process: the kernel's own
    refusal, as in a container without SYS_PTRACE."""
    spy = PySpy(prefix=("setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"))
    got = spy.dump([stuck.pid])
    assert not got.available and got.failures[stuck.pid].kind == "permission"
    assert got.note is not None and got.note.startswith(
        "py-spy may not read the ranks' stacks (Permission Denied)"
    )


class Source:
    def __init__(self, round_: StackRound) -> None:
        self.round = round_
        self.calls = 0

    def dump(self, pids: object, *, native: bool = False) -> StackRound:
        self.calls += 1
        return self.round


def test_fallback_after_the_first_refusal() -> None:
    denied = Source(StackRound(available=False, note="denied"))
    hook = Source(StackRound({}, {}, True))
    both = FallbackStacks(denied, hook)
    first, second = both.dump([1]), both.dump([1])
    assert first.available and first.note == "denied" and second.note == "denied"
    assert denied.calls == 1 and hook.calls == 2  # py-spy is not asked again
    broken = FallbackStacks(denied, Source(StackRound(available=False, note="no hook")))
    got = broken.dump([1])
    assert not got.available and got.note == "denied; the in-process fallback failed too (no hook)"
    alone = FallbackStacks(Source(StackRound(available=False, note="denied")), None)
    assert alone.dump([1]).note == "denied"


# -- the faulthandler hook ----------------------------------------------------------------


def test_hook_env(tmp_path: Path) -> None:
    env = hook_env(tmp_path, f"/a{os.pathsep}{HOOK_DIR}{os.pathsep}/b", tracer_pid=42)
    assert env["PYTHONPATH"].split(os.pathsep) == [HOOK_DIR, "/a", "/b"]
    assert env["LAUNCHX_STACK_DIR"] == str(tmp_path / "stacks")
    assert env["LAUNCHX_STACK_SIGNAL"] == str(STACK_SIGNAL)
    assert env["LAUNCHX_PTRACER_PID"] == "42"
    assert signal.SIGUSR1 != STACK_SIGNAL != signal.SIGUSR2
    assert hook_env(tmp_path, None)["PYTHONPATH"] == HOOK_DIR


def _hooked_env(tmp_path: Path, rank: str | None, pythonpath: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "PYTHONPATH")}
    env.update(hook_env(tmp_path, pythonpath, tracer_pid=os.getpid()))
    if rank is not None:
        env["RANK"] = rank
    return env


def test_hook_dumps_a_rank_blocked_in_a_lock(tmp_path: Path) -> None:
    proc = _start(STUCK, _hooked_env(tmp_path, "3"))
    try:
        got = HookStacks(tmp_path).dump([proc.pid])
        assert got.available, got.failures
        stack = got.stacks[proc.pid]
        assert stack.source == "faulthandler"
        main = stack.main
        assert main is not None
        assert [f.name for f in main.frames] == ["stuck_in_lock", "<module>"]
        assert (tmp_path / "stacks" / f"rank3.{proc.pid}.txt").is_file()
        again = HookStacks(tmp_path).dump([proc.pid])  # a second dump reads only the new one
        assert len(again.stacks[proc.pid].threads) == 1
        assert proc.poll() is None  # the signal did not hurt it
    finally:
        proc.kill()
        proc.wait()


def test_hook_leaves_processes_without_rank_alone(tmp_path: Path) -> None:
    proc = _start(STUCK, _hooked_env(tmp_path, None))
    try:
        got = HookStacks(tmp_path).dump([proc.pid])
        assert not got.available and got.failures[proc.pid].kind == "no_hook"
        assert "without launchx's stack hook" in (got.note or "")
        time.sleep(0.1)
        assert proc.poll() is None  # never signalled: its default action would end it
    finally:
        proc.kill()
        proc.wait()


def test_hook_runs_the_sitecustomize_it_shadows(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "sitecustomize.py").write_text("import os\nos.environ['THEIRS_RAN'] = '1'\n")
    code = "import os, sitecustomize\nprint(os.environ.get('THEIRS_RAN'), sitecustomize.__file__)\n"
    env = _hooked_env(tmp_path, "0", str(theirs))
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    ran, module = out.stdout.split()
    assert ran == "1" and module == str(theirs / "sitecustomize.py")
    assert out.stderr == ""
    # a rank that was never asked for its stack leaves no empty file
    assert list((tmp_path / "stacks").iterdir()) == []


def test_importing_the_hook_as_launchx_code_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    monkeypatch.setenv("LAUNCHX_STACK_DIR", "/nonexistent")
    monkeypatch.setenv("LAUNCHX_STACK_SIGNAL", str(STACK_SIGNAL))
    monkeypatch.setenv("RANK", "0")
    before = sys.modules.get("sitecustomize")
    importlib.import_module("launchx.watch._hook.sitecustomize")
    assert sys.modules.get("sitecustomize") is before
    assert signal.getsignal(STACK_SIGNAL) == signal.SIG_DFL


def test_the_agent_leaves_a_grace_period_after_launchx_died() -> None:
    """The guard in torchrun's agent: nothing while its parent lives, then the grace
    period, then it leaves (the loop, with a fake clock and parent)."""
    import importlib

    hook = importlib.import_module("launchx.watch._hook.sitecustomize")
    parents = iter([100, 100, 100, 1])
    slept: list[float] = []
    left: list[int] = []
    hook._launchx_watch_parent(
        100, 7.5, lambda: next(parents), slept.append, lambda: left.append(1)
    )
    assert slept == [1.0, 1.0, 1.0, 7.5] and left == [1]


def test_the_guard_knows_torchruns_agent_and_its_grace() -> None:
    import importlib

    hook = importlib.import_module("launchx.watch._hook.sitecustomize")
    env = {"LAUNCHX_STACK_DIR": "/tmp/s"}
    assert hook._launchx_is_agent(["/py", "-m", "torch.distributed.run", "t.py"], env)
    assert hook._launchx_is_agent(["/py", "/venv/bin/torchrun", "t.py"], env)
    assert not hook._launchx_is_agent(["/py", "-m", "torch.distributed.run"], {**env, "RANK": "0"})
    assert not hook._launchx_is_agent(["/py", "-m", "torch.distributed.run"], {})
    assert not hook._launchx_is_agent(["/py", "train.py", "torch.distributed.run"], env)
    # its own variable, else torchrun's shutdown timeout and 30 s, else 60 s; nonsense ignored
    assert hook._launchx_orphan_grace({"LAUNCHX_ORPHAN_GRACE_S": "2"}) == 2.0
    assert hook._launchx_orphan_grace({"PET_SHUTDOWN_TIMEOUT": "65"}) == 95.0
    assert hook._launchx_orphan_grace({"LAUNCHX_ORPHAN_GRACE_S": "nan"}) == 60.0
    assert hook._launchx_orphan_grace({"LAUNCHX_ORPHAN_GRACE_S": "-1"}) == 60.0


def test_the_orphan_guard_runs_only_in_torchruns_agent(tmp_path: Path) -> None:
    """A rank (RANK set) or a process that is not torchrun starts no guard thread."""
    code = (
        "import threading; print(sorted(t.name for t in threading.enumerate() "
        "if t.name.startswith('launchx')))"
    )
    for rank in ("0", None):
        env = _hooked_env(tmp_path, rank)
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        assert out.stdout.strip() == "[]"


# -- the flight recorder ------------------------------------------------------------------


def test_flight_env_defaults(tmp_path: Path) -> None:
    env = flight.flight_env(tmp_path)
    assert env == {
        "TORCH_FR_BUFFER_SIZE": "2000",
        "TORCH_NCCL_TRACE_BUFFER_SIZE": "2000",
        "TORCH_NCCL_DUMP_ON_TIMEOUT": "1",
        "TORCH_FR_DUMP_TEMP_FILE": str(tmp_path / "fr_trace_rank_"),
        "TORCH_NCCL_DEBUG_INFO_TEMP_FILE": str(tmp_path / "fr_trace_rank_"),
        "TORCH_NCCL_DEBUG_INFO_PIPE_FILE": str(tmp_path / "fr_pipe_rank_"),
    }


def test_flight_env_leaves_the_users_choices(tmp_path: Path) -> None:
    mine = {"TORCH_FR_BUFFER_SIZE": "5000", "TORCH_FR_DUMP_TEMP_FILE": "/scratch/fr_"}
    env = flight.flight_env(tmp_path, mine)
    assert env["TORCH_NCCL_TRACE_BUFFER_SIZE"] == "5000"  # mirrored for the FIFO's reader
    assert "TORCH_FR_BUFFER_SIZE" not in env
    assert "TORCH_FR_DUMP_TEMP_FILE" not in env and "TORCH_NCCL_DEBUG_INFO_TEMP_FILE" not in env
    assert flight.flight_env(tmp_path, {"TORCH_NCCL_TRACE_BUFFER_SIZE": "0"}) == {}


def test_trigger_writes_to_fifos_with_a_reader(tmp_path: Path) -> None:
    live = tmp_path / "fr_pipe_rank_0.pipe"
    dead = tmp_path / "fr_pipe_rank_1.pipe"
    os.mkfifo(live)
    os.mkfifo(dead)
    (tmp_path / "fr_pipe_rank_x.pipe").write_text("not a rank")
    reader = os.open(live, os.O_RDONLY | os.O_NONBLOCK)  # what ProcessGroupNCCL opens
    try:
        assert flight.trigger_flight_dumps(tmp_path) == (0,)
        assert os.read(reader, 16) == b"1"
    finally:
        os.close(reader)
    assert flight.trigger_flight_dumps(tmp_path / "missing") == ()
    (tmp_path / "fr_trace_rank_3").write_bytes(b"x")
    (tmp_path / "fr_trace_rank_x").write_bytes(b"x")
    assert flight.flight_dumps(tmp_path) == {3: tmp_path / "fr_trace_rank_3"}
