"""The stacks that need no ptrace: a faulthandler hook injected into the ranks.

``hook_env`` is what the plan adds to the ranks' environment: launchx's own
``sitecustomize`` directory first on PYTHONPATH (it imports any sitecustomize it shadows),
the directory the dumps go to, and the signal. ``HookStacks`` sends that signal to ranks
whose /proc status shows the handler installed (an uninstalled real-time signal would end
the process), waits for the dump to land, and parses it.

The signal is a real-time one, SIGRTMIN+6: SIGUSR1/SIGUSR2 belong to SLURM's warnings
(torchrun forwards them), c10's fatal-signal handler and NCCL's proxy dump
(hangs.md §1.4), and their default action ends the process.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from launchx.watch.frames import ProcessStack, StackParseError, parse_faulthandler
from launchx.watch.procfs import ProcFS, catches
from launchx.watch.stacks import StackFailure, StackRound

HOOK_DIR = str(Path(__file__).resolve().parent / "_hook")
STACK_SIGNAL = int(signal.SIGRTMIN) + 6
STACK_DIR_VAR = "LAUNCHX_STACK_DIR"
STACK_SIGNAL_VAR = "LAUNCHX_STACK_SIGNAL"
PTRACER_VAR = "LAUNCHX_PTRACER_PID"


def stack_dir(log_dir: str | Path) -> Path:
    return Path(log_dir) / "stacks"


def hook_env(
    log_dir: str | Path,
    existing_pythonpath: str | None,
    *,
    tracer_pid: int | None = None,
    signum: int = STACK_SIGNAL,
) -> dict[str, str]:
    """Variables to add to the ranks' environment. ``tracer_pid`` (launchx's own pid)
    lets py-spy, launchx's child, attach under Yama ptrace_scope 1."""
    parts = [HOOK_DIR, *(p for p in (existing_pythonpath or "").split(os.pathsep) if p)]
    env = {
        "PYTHONPATH": os.pathsep.join(dict.fromkeys(parts)),
        STACK_DIR_VAR: str(stack_dir(log_dir)),
        STACK_SIGNAL_VAR: str(signum),
    }
    if tracer_pid is not None:
        env[PTRACER_VAR] = str(tracer_pid)
    return env


def dump_file(directory: Path, pid: int) -> Path | None:
    found = sorted(directory.glob(f"rank*.{pid}.txt"))
    return found[0] if found else None


class HookStacks:
    """Ask hooked ranks for their stacks by signal and read what faulthandler wrote."""

    def __init__(
        self,
        log_dir: str | Path,
        *,
        signum: int = STACK_SIGNAL,
        proc: ProcFS | None = None,
        wait_s: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.directory = stack_dir(log_dir)
        self.signum = signum
        self.proc = proc or ProcFS()
        self.wait_s = wait_s
        self.clock = clock
        self.sleep = sleep

    def dump(self, pids: Sequence[int], *, native: bool = False) -> StackRound:
        failures: dict[int, StackFailure] = {}
        asked: dict[int, tuple[Path, int]] = {}
        for pid in pids:
            status = self.proc.status(pid)
            if status is None:
                failures[pid] = StackFailure("gone", "the process is gone")
                continue
            path = dump_file(self.directory, pid)
            try:
                hooked = catches(status, self.signum)
            except ValueError:
                hooked = False
            if not hooked or path is None:
                failures[pid] = StackFailure(
                    "no_hook", "launchx's faulthandler hook is not installed in this process"
                )
                continue
            try:
                offset = path.stat().st_size
                os.kill(pid, self.signum)
            except (OSError, ProcessLookupError) as exc:
                failures[pid] = StackFailure("error", f"cannot signal it: {exc}")
                continue
            asked[pid] = (path, offset)
        stacks = self._collect(asked, failures)
        if not stacks and failures and all(f.kind == "no_hook" for f in failures.values()):
            return StackRound(
                {},
                failures,
                available=False,
                note="the ranks run without launchx's stack hook (python -I or -S, or "
                "another handler on its signal)",
            )
        return StackRound(stacks, failures, available=bool(stacks) or not failures)

    def _collect(
        self, asked: dict[int, tuple[Path, int]], failures: dict[int, StackFailure]
    ) -> dict[int, ProcessStack]:
        """faulthandler writes from the handler at once; wait until every file grew and
        stopped growing, or the deadline."""
        deadline = self.clock() + self.wait_s
        sizes: dict[int, int] = {}
        pending = dict(asked)
        stacks: dict[int, ProcessStack] = {}
        while pending:
            for pid, (path, offset) in list(pending.items()):
                try:
                    size = path.stat().st_size
                except OSError:
                    size = offset
                if size > offset and sizes.get(pid) == size:
                    with path.open("rb") as fh:
                        fh.seek(offset)
                        text = fh.read(size - offset).decode(errors="replace")
                    try:
                        stacks[pid] = parse_faulthandler(text, pid)
                    except StackParseError as exc:
                        failures[pid] = StackFailure("error", str(exc))
                    del pending[pid]
                sizes[pid] = size
            if not pending or self.clock() >= deadline:
                break
            self.sleep(0.02)
        for pid in pending:
            failures[pid] = StackFailure("timeout", "no dump arrived (the hook did not answer)")
        return stacks
