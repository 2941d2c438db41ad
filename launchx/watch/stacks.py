"""Read the ranks' stacks from outside with py-spy, in parallel, each under a timeout.

py-spy pauses the target while it reads (PTRACE_ATTACH on every thread; 10-50 ms for a
plain dump, 0.15-0.9 s with ``--native``, hangs.md §1.3), so stacks are taken only when
the ranks look quiet, never continuously, and ``--native`` only for the final hang round.

When ptrace is not allowed (no CAP_SYS_PTRACE in a container, Yama scope >= 1 for a
non-ancestor, another uid) or py-spy is missing, the round says so once
(``StackRound.note``) and ``FallbackStacks`` asks the faulthandler hook instead
(``launchx.watch.hook``), which needs no ptrace at all.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from launchx.watch.frames import ProcessStack, StackParseError, parse_pyspy_json

FailureKind = Literal["permission", "gone", "timeout", "missing", "no_hook", "error"]
CAP_SYS_PTRACE = 19


@dataclass(frozen=True)
class StackFailure:
    kind: FailureKind
    detail: str


@dataclass(frozen=True)
class StackRound:
    """One round over the ranks. ``available`` is False when no reader works at all;
    ``note`` says once why the preferred reader (py-spy) is not used."""

    stacks: Mapping[int, ProcessStack] = field(default_factory=dict)
    failures: Mapping[int, StackFailure] = field(default_factory=dict)
    available: bool = True
    note: str | None = None


class StackSource(Protocol):
    def dump(self, pids: Sequence[int], *, native: bool = False) -> StackRound: ...


def classify_pyspy_error(returncode: int | None, output: str) -> StackFailure:
    """What a failed ``py-spy dump`` means, from its exit status and its error text."""
    if returncode is None:
        return StackFailure("timeout", "py-spy did not finish in time")
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    first = lines[0].removeprefix("Error: ") if lines else f"exit status {returncode}"
    low = output.lower()
    if any(
        s in low for s in ("permission denied", "eperm", "operation not permitted", "os error 13")
    ):
        # py-spy's own hint ("Try running again with elevated permissions by going sudo")
        # is no advice for a launcher: keep the fact, drop the hint.
        fact = first.split(": Try running", 1)[0]
        cause = next((ln for ln in lines if "EPERM" in ln), "")
        cause = cause.split(": ", 1)[-1] if cause[:1].isdigit() else cause
        return StackFailure("permission", f"{fact} ({cause})" if cause else fact)
    if "no such process" in low or "check that the process is running" in low or "esrch" in low:
        return StackFailure("gone", first)
    return StackFailure("error", first)


def explain_denial(detail: str, *, yama_scope: int | None, cap_sys_ptrace: bool) -> str:
    """One sentence for the user: why py-spy may not read the ranks and what fixes it."""
    causes: list[str] = []
    if yama_scope is not None and yama_scope >= 1:
        causes.append(
            f"kernel.yama.ptrace_scope is {yama_scope} "
            + (
                "(only a parent process may attach)"
                if yama_scope == 1
                else "(only CAP_SYS_PTRACE may attach)"
                if yama_scope == 2
                else "(no process may attach)"
            )
        )
    if not cap_sys_ptrace:
        causes.append("launchx runs without CAP_SYS_PTRACE")
    cause = "; ".join(causes) if causes else "the kernel refused"
    return (
        f"py-spy may not read the ranks' stacks ({detail}): {cause}. Fix: run with "
        "CAP_SYS_PTRACE (docker run --cap-add SYS_PTRACE; Kubernetes "
        "securityContext.capabilities.add: [SYS_PTRACE]) or sysctl kernel.yama.ptrace_scope=0"
    )


def host_ptrace_facts(proc: str | Path = "/proc") -> tuple[int | None, bool]:
    """(Yama scope or None without Yama, whether this process holds CAP_SYS_PTRACE)."""
    root = Path(proc)
    try:
        scope: int | None = int((root / "sys/kernel/yama/ptrace_scope").read_text().strip())
    except (OSError, ValueError):
        scope = None
    cap = False
    try:
        for line in (root / "self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                cap = bool(int(line.split(":", 1)[1].strip(), 16) >> CAP_SYS_PTRACE & 1)
    except (OSError, ValueError):
        pass
    return scope, cap


def find_pyspy(python: str | None = None) -> str | None:
    """py-spy beside the interpreter (the virtualenv launchx is installed in), else PATH."""
    beside = Path(python or sys.executable).parent / "py-spy"
    if beside.is_file():
        return str(beside)
    return shutil.which("py-spy")


class PySpy:
    """``py-spy dump --json`` per pid, in parallel. ``prefix`` wraps the command (tests
    use it to take ptrace away: ``setpriv --reuid nobody ...``)."""

    def __init__(
        self,
        exe: str | None = None,
        *,
        timeout_s: float = 10.0,
        prefix: Sequence[str] = (),
        parallel: int = 8,
        proc: str | Path = "/proc",
    ) -> None:
        self.exe = exe if exe is not None else find_pyspy()
        self.timeout_s = timeout_s
        self.prefix = tuple(prefix)
        self.parallel = parallel
        self.proc = proc

    def _one(self, pid: int, native: bool) -> ProcessStack | StackFailure:
        assert self.exe is not None
        argv = [*self.prefix, self.exe, "dump", "--json", "--pid", str(pid)]
        if native:
            argv.append("--native")
        try:
            done = subprocess.run(
                argv,
                capture_output=True,
                text=True,
                timeout=self.timeout_s,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            return classify_pyspy_error(None, "")
        except OSError as exc:
            return StackFailure("missing", f"cannot run {argv[0]}: {exc.strerror}")
        if done.returncode != 0:
            return classify_pyspy_error(done.returncode, done.stderr + done.stdout)
        try:
            return parse_pyspy_json(done.stdout, pid, native=native)
        except StackParseError as exc:
            return StackFailure("error", str(exc))

    def dump(self, pids: Sequence[int], *, native: bool = False) -> StackRound:
        if self.exe is None:
            return StackRound(
                available=False,
                note="py-spy is not installed (pip install py-spy); no stacks from outside",
            )
        if not pids:
            return StackRound()
        with ThreadPoolExecutor(max_workers=max(1, min(self.parallel, len(pids)))) as pool:
            results = list(pool.map(lambda p: self._one(p, native), pids))
        stacks = {p: r for p, r in zip(pids, results, strict=True) if isinstance(r, ProcessStack)}
        failures = {p: r for p, r in zip(pids, results, strict=True) if isinstance(r, StackFailure)}
        denied = [f for f in failures.values() if f.kind in ("permission", "missing")]
        if not stacks and denied:
            scope, cap = host_ptrace_facts(self.proc)
            first = denied[0]
            note = (
                explain_denial(first.detail, yama_scope=scope, cap_sys_ptrace=cap)
                if first.kind == "permission"
                else first.detail
            )
            return StackRound({}, failures, available=False, note=note)
        return StackRound(stacks, failures)


class FallbackStacks:
    """py-spy first; once it proves unusable, the fallback for every later round (the
    reason travels with each round so the caller can say it once)."""

    def __init__(self, primary: StackSource, fallback: StackSource | None) -> None:
        self.primary = primary
        self.fallback = fallback
        self.note: str | None = None  # why the primary is not used

    def dump(self, pids: Sequence[int], *, native: bool = False) -> StackRound:
        if self.note is None:
            first = self.primary.dump(pids, native=native)
            if first.available:
                return first
            self.note = first.note or "stacks cannot be read from outside"
        if self.fallback is None:
            return StackRound(available=False, note=self.note)
        got = self.fallback.dump(pids, native=False)
        if got.available:
            return StackRound(got.stacks, got.failures, True, self.note)
        fallback_note = f"; the in-process fallback failed too ({got.note})" if got.note else ""
        return StackRound({}, got.failures, False, self.note + fallback_note)
