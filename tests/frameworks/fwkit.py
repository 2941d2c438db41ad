"""What the real-framework tests share: starting ``launchx run`` on a framework script,
reading its raw output, driving faults from outside, and skipping cleanly when the
``frameworks`` extra is not installed (failing instead under ``CI=true``, where
``scripts/test.sh`` installs it, so a missing install step cannot pass unnoticed).

Every wait polls to a deadline; every process group a test starts is killed before the
test returns, whatever happened.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from launchx.execute import descendants

HERE = Path(__file__).resolve().parent
SCRIPTS = HERE / "scripts"
ROOT = HERE.parent.parent
FRAMEWORKS = ("transformers", "accelerate", "lightning")

# retry at once (no backoff). A worker killed by an outside SIGKILL is retried by the
# default policy (``killed``, once a checkpoint lets the run resume: issue 10 defect 4), so
# the resume tests set nothing else and also prove that policy.
FAST_RETRY = (
    "--set",
    "retry.backoff_min_s=0",
    "--set",
    "retry.backoff_max_s=0",
    "--set",
    "retry.jitter_s=0",
)


def require(*modules: str) -> None:
    """Skip when a framework is missing; under CI=true that is a broken install: fail."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if not missing:
        return
    why = f"not installed: {', '.join(missing)} (pip install -e '.[frameworks]')"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI installs the frameworks extra, yet {why}")
    pytest.skip(why)


def base_env(tmp: Path, **extra: str) -> dict[str, str]:
    """A clean environment for one run: no launcher variables, frameworks offline, the
    temporary directory (and so launchx's default log root) inside the test's own."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "USER")
    env = {k: v for k, v in os.environ.items() if k in keep}
    # the venv's console scripts (torchrun, accelerate) first, as for a user who activated it
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    tmpdir = tmp / "tmp"
    tmpdir.mkdir(exist_ok=True)
    env.update(
        TMPDIR=str(tmpdir),
        PYTHONUNBUFFERED="1",
        HF_HUB_OFFLINE="1",
        HF_HOME=str(tmp / "hf-home"),
        TRANSFORMERS_NO_ADVISORY_WARNINGS="1",
        TOKENIZERS_PARALLELISM="false",
        OMP_NUM_THREADS="1",
        # the HF Trainer on CPU ranks: one world of 2, not 2 worlds of 1 (frameworks.md §2.2)
        ACCELERATE_USE_CPU="true",
    )
    env.update(extra)
    return env


@dataclass
class Proc:
    """A process in its own session whose combined output is kept as raw bytes."""

    proc: subprocess.Popen[bytes]
    chunks: list[bytes] = field(default_factory=list)
    reader: threading.Thread | None = None

    @property
    def raw(self) -> bytes:
        return b"".join(self.chunks)

    @property
    def text(self) -> str:
        return self.raw.decode(errors="replace")

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        while True:
            data = os.read(self.proc.stdout.fileno(), 65536)
            if not data:
                break
            self.chunks.append(data)

    def start_reading(self) -> None:
        self.reader = threading.Thread(target=self._pump, daemon=True)
        self.reader.start()

    def finish(self, timeout: float) -> tuple[int | None, str]:
        """Exit code (None when it ran past ``timeout`` and was killed) and the output."""
        try:
            code: int | None = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            code = None
        self.kill()
        if self.reader is not None:
            self.reader.join(timeout=10)
        return code, self.text

    def kill(self) -> None:
        """SIGKILL the session and everything below launchx (torchrun's ranks live in
        sessions of their own, so the group alone is not enough)."""
        for pid in [self.proc.pid, *descendants(self.proc.pid)]:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)


def start(argv: Sequence[str], cwd: Path, env: dict[str, str]) -> Proc:
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    run = Proc(proc)
    run.start_reading()
    return run


def launchx(args: Sequence[str], cwd: Path, env: dict[str, str]) -> Proc:
    return start([sys.executable, "-u", "-m", "launchx", *args], cwd, env)


@contextlib.contextmanager
def running(args: Sequence[str], cwd: Path, env: dict[str, str]) -> Iterator[Proc]:
    """``launchx ARGS`` that is always killed (with its ranks) when the block ends."""
    run = launchx(args, cwd, env)
    try:
        yield run
    finally:
        run.kill()


def wait_for_file(directory: Path, pattern: str, run: Proc, timeout: float = 60) -> Path:
    """The first file matching ``pattern`` in ``directory``, polled to a deadline; fails
    at once when the run ended without writing it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = sorted(directory.glob(pattern)) if directory.is_dir() else []
        if found:
            return found[0]
        if run.proc.poll() is not None:
            pytest.fail(f"the run ended before writing {pattern}:\n{run.text[-6000:]}")
        time.sleep(0.05)
    pytest.fail(f"no {pattern} in {directory} within {timeout}s:\n{run.text[-6000:]}")


def signal_paused_worker(evidence: Path, run: Proc, signum: int) -> int:
    """Wait for the worker that paused itself (``paused.<pid>``) and signal it."""
    marker = wait_for_file(evidence, "paused.*", run)
    pid = int(marker.name.split(".")[1])
    os.kill(pid, signum)
    return pid


def started_at(evidence: Path, attempt: int, rank: int = 0) -> int:
    """The first step the rank trained in that attempt (written by the scripts)."""
    return int((evidence / f"start.{attempt}.{rank}").read_text())


SUMMARY_ROW = re.compile(r"^\s+(\d+)\s+([\d.]+)s\s+(ok|interrupted|exit -?\d+)\s+(\S+)\s+(.*)$")


def summary_rows(text: str) -> list[list[str]]:
    """launchx's summary table as today's session prints it (attempt, duration, outcome,
    category, resumed from)."""
    lines = text.splitlines()
    if "launchx: summary" not in lines:
        return []
    rows: list[list[str]] = []
    for line in lines[lines.index("launchx: summary") + 2 :]:
        m = SUMMARY_ROW.match(line)
        if not m:
            break
        rows.append(list(m.groups()))
    return rows


def attempt_texts(text: str) -> list[str]:
    """The console split at each attempt's header line."""
    parts = re.split(r"(?m)^(?=launchx: profile )", text)
    return [p for p in parts if p.startswith("launchx: profile ")]


def failure_lines(text: str) -> list[str]:
    """Every line that mentions launchx's failure header, wherever it starts."""
    return [line for line in text.splitlines() if "launchx: failure" in line]


def by_rank(text: str, rank: int) -> list[str]:
    prefix = f"[r{rank}]: "
    return [line[len(prefix) :] for line in text.splitlines() if line.startswith(prefix)]


@dataclass(frozen=True)
class Finished:
    """A run that is over: its exit code, console, and the directory it ran in."""

    code: int | None
    text: str
    raw: bytes
    tmp: Path

    @property
    def evidence(self) -> Path:
        return self.tmp / "ev"


def run_with_fault(
    tmp: Path,
    args: Sequence[str],
    *,
    pause_at: int | None = None,
    signum: int | None = None,
    kill_launcher: bool = False,
    timeout: float = 120,
    extra_env: dict[str, str] | None = None,
) -> Finished:
    """``launchx ARGS`` in ``tmp``; with ``pause_at``, rank 1 of attempt 0 pauses after that
    step and gets ``signum`` from outside (or torchrun itself is SIGKILLed)."""
    env = base_env(tmp, FW_EVIDENCE=str(tmp / "ev"), **(extra_env or {}))
    if pause_at is not None:
        env["FW_PAUSE_AT"] = str(pause_at)
    with running(args, tmp, env) as run:
        if pause_at is not None:
            if kill_launcher:
                wait_for_file(tmp / "ev", "paused.*", run)
                launcher = find_child(run, b"torch.distributed.run")
                os.kill(launcher, signal.SIGKILL)
            else:
                assert signum is not None
                signal_paused_worker(tmp / "ev", run, signum)
        code, text = run.finish(timeout)
        return Finished(code, text, run.raw, tmp)


def find_child(run: Proc, needle: bytes) -> int:
    for pid in descendants(run.proc.pid):
        with contextlib.suppress(OSError):
            if needle in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
    pytest.fail(f"no process with {needle!r} under launchx")
