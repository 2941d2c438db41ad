"""The one place launchx starts processes: run one attempt's launcher and supervise it.

The launcher (torchrun, the script, or srun) runs in its own session; torchrun starts each
worker in yet another session, so "every process of the run" means the process tree, not a
group. launchx forwards the signals a user or a scheduler sends, gives the ranks a bounded
grace on a monotonic clock, then SIGKILLs the tree, is the subreaper of orphans, always
reaps, and restores the signal handlers it replaced. The retry loop around attempts lives
in ``launchx.run``; what to retry is decided by ``launchx.retry`` and ``failures``.

Two stops beyond a user's signal:

* **A scheduler's warning (USR1/USR2) starts the grace too.** The ranks are told to
  checkpoint and stop; if they still run when the grace has passed, they are stopped as a
  user's SIGTERM would stop them (SIGTERM, then SIGKILL after another grace). That is not
  an interrupt: ``ProcessResult.interrupted`` stays False, so the run loop still treats the
  attempt as preempted (and requeues).
* **srun inside a job gets no SIGTERM.** srun turns SIGTERM/SIGHUP into SIGKILL of every
  task, so the stop goes to its step with ``scancel --signal=SIG JOB.STEP`` (the ranks'
  handlers run), and only after the grace is the step, then srun, killed. See
  ``launchx.slurm_client.srun_job_id``.
"""

from __future__ import annotations

import collections
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO, Any, Protocol

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2)
STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# torchrun stopped with no rank below it has nothing to save: its rendezvous wait blocks in
# C++ and ignores SIGINT until its timeout, so it gets this long, not the whole grace.
LAUNCHER_ALONE_S = 3.0
TAIL_LINES = 400


@dataclass
class Supervisor:
    """Signal state shared by every attempt of one run (handlers are installed once)."""

    clock: Callable[[], float] = time.monotonic
    child: subprocess.Popen[bytes] | None = None
    stop_signal: int | None = None  # the first SIGINT/SIGTERM/SIGHUP received
    stop_at: float | None = None
    kill_now: bool = False
    warnings: list[int] = field(default_factory=list)  # SIGUSR1/SIGUSR2: a scheduler's warning
    # Inside an srun step slurmstepd signals every process of the step itself; forwarding
    # again would hit torchrun a second time mid-shutdown and cut the ranks' checkpoint.
    forward_warnings: bool = True
    wake: threading.Event = field(default_factory=threading.Event)
    warned_at: float | None = None  # the first warning of the current attempt (its grace)
    # The child is srun inside this SLURM job: stops go to its step (run_process does it).
    srun_job: str | None = None
    # launchx itself stops the current attempt (the hang watch): the ranks get the grace a
    # stop gives, but it is no interrupt, and the run goes on.
    abort_at: float | None = None
    # The child is torchrun, which passes a stopping signal on to its ranks itself: it alone
    # gets it (``stop_launcher``).
    launcher_forwards: bool = False

    def abort(self) -> None:
        if self.abort_at is None:
            self.abort_at = self.clock()
        self.wake.set()

    def handle(self, signum: int, _frame: FrameType | None) -> None:
        if signum in (signal.SIGUSR1, signal.SIGUSR2):
            self.warnings.append(signum)
            if self.warned_at is None:
                self.warned_at = self.clock()
        if signum in STOPPING:
            if self.stop_signal is not None and signum == signal.SIGINT:
                self.kill_now = True  # a second Ctrl-C: the user means it
            if self.stop_signal is None:
                self.stop_signal = signum
                self.stop_at = self.clock()
            self.wake.set()
        self._forward(signum)

    def _forward(self, signum: int) -> None:
        """Stopping signals go to every process of the run (torchrun's workers live in
        sessions of their own). A warning (USR1/USR2) goes to the launcher's group only:
        torchrun, told to handle it, passes it to the ranks and waits for them to
        checkpoint, and srun passes it to its tasks; killing torchrun with it would not.
        A stop for srun is left to ``run_process``: it goes to the step through scancel,
        which is no work for a signal handler."""
        child = self.child
        if child is None or child.poll() is not None:
            return
        if signum in STOPPING:
            if self.srun_job is None:
                stop_launcher(child.pid, signum, self.launcher_forwards)
        elif self.forward_warnings:
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(child.pid, signum)

    @property
    def stopping(self) -> bool:
        return self.stop_signal is not None


def _parents(proc: str = "/proc") -> dict[int, int]:
    """pid -> parent pid for every process we can see."""
    table: dict[int, int] = {}
    for entry in os.listdir(proc):
        if not entry.isdigit():
            continue
        try:
            with open(f"{proc}/{entry}/stat", "rb") as fh:
                stat = fh.read().decode(errors="replace")
        except OSError:
            continue
        # The command name may contain spaces and parentheses: fields start after the last ')'.
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and fields[0] != "Z":
            table[int(entry)] = int(fields[1])
    return table


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid``. torchrun starts each worker in a session of its
    own, so a signal to torchrun's process group alone never reaches the ranks."""
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    out: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def signal_tree(pid: int, signum: int) -> None:
    """Send ``signum`` to the launcher's process group and to every process below it, once
    each: torchrun given SIGINT twice raises its SignalException again inside its own
    shutdown and prints two tracebacks. The tree is read before anything is sent: a
    SIGKILLed torchrun's ranks, in sessions of their own, are no longer below it after."""
    tree = [pid, *descendants(pid)]
    groups: dict[int, int] = {}
    for target in tree:
        with suppress(OSError):
            groups[target] = os.getpgid(target)
    try:
        os.killpg(pid, signum)
        group: int | None = pid
    except (ProcessLookupError, PermissionError):
        group = None
    for target in tree:
        if group is None or groups.get(target) != group:
            with suppress(ProcessLookupError, PermissionError):
                os.kill(target, signum)


def stop_launcher(pid: int, signum: int, forwards: bool) -> None:
    """A stopping signal for the run: to torchrun alone where it ``forwards`` it (it sends
    the signal it received to its ranks, in their own sessions, and waits for them), as a
    torchrun started by hand gets it; a rank given it twice, by launchx and again by
    torchrun, takes a second KeyboardInterrupt inside the handler that saves its state.
    Anything else (the script itself, a launcher that does not pass signals on) gets it in
    every process below it. Whatever still runs when the grace ends is SIGKILLed, tree
    and all."""
    if forwards:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signum)
        return
    signal_tree(pid, signum)


def _terminate_with_launchx() -> None:
    """In the child, before exec: if launchx itself dies (SIGKILL, OOM killer), the kernel
    sends the launcher SIGTERM, which torchrun passes on to its ranks. Linux only."""
    if sys.platform.startswith("linux"):
        import ctypes

        with suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG


def _become_subreaper() -> bool:
    """Make orphaned ranks (their torchrun killed) our children, so we can still end them.
    Linux only (prctl PR_SET_CHILD_SUBREAPER); elsewhere the tree walk has to do."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(36, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def reap_orphans(before: set[int]) -> None:
    """SIGKILL and reap whatever the run left below launchx (never what existed before)."""
    for _round in range(20):
        left = [p for p in descendants(os.getpid()) if p not in before]
        if not left:
            break
        for pid in left:
            with suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        _reap_children()
    _reap_children()


def _reap_children() -> None:
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


@contextmanager
def supervised(sup: Supervisor) -> Iterator[Supervisor]:
    """Install forwarding handlers for the duration of a run; always restore the old ones."""
    previous: list[tuple[signal.Signals, Any]] = []
    _become_subreaper()
    if threading.current_thread() is threading.main_thread():
        for sig in FORWARDED:
            previous.append((sig, signal.signal(sig, sup.handle)))
    try:
        yield sup
    finally:
        for sig, handler in previous:
            signal.signal(sig, handler)


@dataclass(frozen=True)
class ProcessResult:
    exit_code: int  # the child's exit code, 128+N when signal N ended it
    interrupted: bool  # a stopping signal reached launchx during this attempt
    duration_s: float
    tail: tuple[str, ...]  # the last lines the launcher printed (for diagnosis)


@dataclass
class _SrunStep:
    """Stops for an srun child inside a SLURM job: to its step's tasks, through scancel."""

    job_id: str
    pid: int
    step: str | None = None

    def signal(self, signum: int) -> bool:
        """Deliver ``signum`` to every task of the step; False when the step is not known
        (srun still waits for resources, or SLURM did not answer)."""
        from launchx import slurm_client as slurm

        if self.step is None:
            self.step = slurm.find_srun_step(self.job_id, self.pid, socket.gethostname())
        if self.step is None:
            return False
        return slurm.signal_step(self.step, signal.Signals(signum).name.removeprefix("SIG"))


def _deliver_stop(child: subprocess.Popen[bytes], signum: int, step: _SrunStep | None) -> None:
    """Stop the run as a user's ``signum`` would: to the step's tasks for srun (srun itself
    would SIGKILL them), else to the whole tree. An srun whose step cannot be found has no
    task to spare yet, so it gets the signal itself."""
    if step is not None and step.signal(signum):
        return
    signal_tree(child.pid, signum)


def _stop(
    child: subprocess.Popen[bytes], signum: int, step: _SrunStep | None, sup: Supervisor
) -> None:
    """A stop of the whole attempt: the step's tasks under srun, else torchrun (which passes
    it on) or the tree (``stop_launcher``)."""
    if step is not None:
        _deliver_stop(child, signum, step)
    else:
        stop_launcher(child.pid, signum, sup.launcher_forwards)


def _abort(child: subprocess.Popen[bytes], step: _SrunStep | None, ranks_below: bool) -> None:
    """launchx stops the attempt (a hang, another node's failure): SIGTERM to the ranks, not
    to torchrun (``ranks_below``), which sees its workers end and reports them as it always
    does (a SIGTERMed torchrun prints its own traceback instead). When its ranks are already
    gone, torchrun is writing its report and exits by itself: nothing to stop."""
    if step is not None:
        _deliver_stop(child, signal.SIGTERM, step)
        return
    targets = descendants(child.pid) if ranks_below else [child.pid]
    for pid in targets:
        with suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)


def _kill(child: subprocess.Popen[bytes], step: _SrunStep | None) -> None:
    """The grace is over: SIGKILL the step's tasks (so none outlives srun) and the tree."""
    if step is not None and step.step is not None:
        step.signal(signal.SIGKILL)
    signal_tree(child.pid, signal.SIGKILL)


class Output(Protocol):
    """Where an attempt's output goes: the bytes as the launcher writes them, launchx's own
    lines about the attempt, and at the end the tail kept for the diagnosis."""

    def feed(self, data: bytes) -> None: ...

    def say(self, text: str) -> None: ...

    def close(self) -> tuple[str, ...]: ...


@dataclass
class CopyOutput:
    """The plainest ``Output``: copy lines to a stream, keep the last ``TAIL_LINES``."""

    sink: IO[str]
    tail: collections.deque[str] = field(
        default_factory=lambda: collections.deque(maxlen=TAIL_LINES)
    )
    _partial: bytes = b""

    def feed(self, data: bytes) -> None:
        *lines, self._partial = (self._partial + data).split(b"\n")
        for raw in lines:
            self._line(raw.decode(errors="replace"))

    def say(self, text: str) -> None:
        _say(self.sink, text)

    def close(self) -> tuple[str, ...]:
        if self._partial:
            self._line(self._partial.decode(errors="replace"))
            self._partial = b""
        return tuple(self.tail)

    def _line(self, line: str) -> None:
        self.tail.append(line)
        _say(self.sink, line + "\n")


def _pump(stream: IO[bytes], output: Output) -> None:
    """Hand the child's output to ``output`` as it arrives (chunks, not lines: a progress
    bar redrawn with carriage returns never ends a line)."""
    fd = stream.fileno()
    while chunk := os.read(fd, 65536):
        try:
            output.feed(chunk)
        except Exception:
            continue
    stream.close()


def run_process(
    argv: tuple[str, ...],
    env: dict[str, str],
    sup: Supervisor,
    *,
    grace_s: float,
    out: IO[str] | None = None,
    output: Output | None = None,
    on_start: Callable[[int], None] | None = None,
    ranks_below: bool = False,
    poll_s: float = 0.05,
) -> ProcessResult:
    """Start ``argv`` in its own session and supervise it to the end.

    The grace ``grace_s`` runs from a stopping signal, or from the scheduler's first
    warning of this attempt; when it passes, the tree is SIGKILLed (a warning first gets a
    SIGTERM-like stop and one more grace, see the module docstring)."""
    from launchx.slurm_client import srun_job_id

    output = output if output is not None else CopyOutput(out or sys.stdout)
    start = sup.clock()
    sup.warned_at = None  # a warning of an earlier attempt gives this one no deadline
    sup.abort_at = None
    srun_job = srun_job_id(argv, env)
    try:
        child = subprocess.Popen(
            list(argv),
            env=env,
            start_new_session=True,
            preexec_fn=_terminate_with_launchx,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
    except OSError as exc:
        msg = f"launchx: cannot start {argv[0]!r}: {exc.strerror}"
        output.say(msg + "\n")
        return ProcessResult(127, False, 0.0, (*output.close(), msg))
    step = _SrunStep(srun_job, child.pid) if srun_job is not None else None
    sup.srun_job = srun_job
    sup.launcher_forwards = ranks_below and srun_job is None
    sup.child = child
    assert child.stdout is not None
    before = set(descendants(os.getpid())) - {child.pid}
    pump = threading.Thread(target=_pump, args=(child.stdout, output), daemon=True)
    pump.start()
    stop_sent = sup.stopping
    abort_sent = False
    if stop_sent:  # a signal arrived between attempts: pass it on at once
        _stop(child, sup.stop_signal or signal.SIGTERM, step, sup)
    elif sup.warned_at is not None and sup.forward_warnings and sup.warnings:
        with suppress(ProcessLookupError, PermissionError):  # a warning while it started
            os.killpg(child.pid, sup.warnings[-1])
    warning_stop_at: float | None = None
    alone_since: float | None = None  # stopping, and no rank below the launcher
    killed = False
    try:
        if on_start is not None:  # inside: whatever it raises, the child does not outlive it
            on_start(child.pid)
        while True:
            try:
                code = child.wait(timeout=poll_s)
                break
            except subprocess.TimeoutExpired:
                pass
            now = sup.clock()
            if sup.stopping and not stop_sent:
                stop_sent = True
                if step is not None:  # the handler left srun alone: see _deliver_stop
                    _deliver_stop(child, sup.stop_signal or signal.SIGTERM, step)
            if (
                warning_stop_at is None
                and not sup.stopping
                and sup.warned_at is not None
                and now - sup.warned_at >= grace_s
            ):
                warning_stop_at = now
                output.say(
                    f"launchx: the ranks still run {grace_s:g} s after the scheduler's warning "
                    f"signal; stopping them (SIGTERM, SIGKILL after {grace_s:g} s more)\n",
                )
                _stop(child, signal.SIGTERM, step, sup)
            if sup.abort_at is not None and not abort_sent and not sup.stopping:
                abort_sent = True
                _abort(child, step, ranks_below)
            stops = [t for t in (sup.stop_at, warning_stop_at, sup.abort_at) if t is not None]
            if stops and ranks_below and step is None and not killed:
                alone = not descendants(child.pid)
                alone_since = (alone_since or now) if alone else None
            if (
                sup.kill_now
                or (stops and now - min(stops) >= grace_s)
                or (alone_since is not None and now - alone_since >= LAUNCHER_ALONE_S)
            ):
                if not killed:
                    _kill(child, step)  # scancel once; the tree is SIGKILLed every round
                    killed = True
                signal_tree(child.pid, signal.SIGKILL)
    finally:
        # Whatever happened, nothing of this attempt outlives it.
        signal_tree(child.pid, signal.SIGKILL)
        if child.poll() is None:
            child.kill()
            child.wait()
        sup.child = None
        sup.srun_job = None
        sup.launcher_forwards = False
        reap_orphans(before)
        pump.join(timeout=5)
    exit_code = 128 - code if code < 0 else code
    return ProcessResult(exit_code, sup.stopping, sup.clock() - start, output.close())


def _say(sink: IO[str], text: str) -> None:
    with suppress(OSError, ValueError):
        sink.write(text)
        sink.flush()


def child_environment(base: dict[str, str], changes: dict[str, str | None]) -> dict[str, str]:
    env = dict(base)
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def remove_tree_quietly(path: str) -> None:
    """Log directories of successful attempts in the temp dir are not worth keeping."""
    import shutil

    shutil.rmtree(Path(path), ignore_errors=True)
