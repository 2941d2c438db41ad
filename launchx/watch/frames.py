"""Stacks as data: parse what py-spy and faulthandler print, and say what a rank is doing.

Two readers of a rank's stack exist (``stacks`` runs py-spy from outside, ``hook`` makes
the rank dump itself through faulthandler); both end here as the same ``ProcessStack`` so
the verdict and the report never care which one spoke.

What a stack *means* is a short table (``CATEGORY_RULES``): a rank inside a collective or a
device synchronisation is waiting for someone else, however much CPU it burns (a CUDA sync
spins); a rank in ``time.sleep``, a lock or a queue is blocked on something local; anything
else runs. Python frames say where in the script a rank is; native frames (py-spy
``--native``) say which C call it sits in, which is the only way to see ``Work::wait`` under
DDP's backward or ``cudaStreamSynchronize`` under ``.item()``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Category = Literal["collective", "device_sync", "data_wait", "lock", "sleep", "running"]
# A rank in one of these is waiting for another process (a peer or a device), not working.
PEER_WAITS: frozenset[Category] = frozenset({"collective", "device_sync"})
WAITS: frozenset[Category] = frozenset({"collective", "device_sync", "data_wait", "lock", "sleep"})
StackSourceName = Literal["py-spy", "faulthandler"]


@dataclass(frozen=True)
class Frame:
    name: str
    filename: str  # as short as the reader gives it (py-spy's short_filename)
    line: int  # 0 for a native frame
    native: bool = False

    def text(self) -> str:
        if self.native:
            return self.name
        return f"{self.name} ({self.filename}:{self.line})"


@dataclass(frozen=True)
class ThreadStack:
    thread_id: int  # the OS thread id where known (py-spy), else faulthandler's pthread id
    name: str
    frames: tuple[Frame, ...]  # innermost first
    active: bool | None = None  # py-spy: on a CPU (or holding the GIL) when sampled
    main: bool = False


@dataclass(frozen=True)
class ProcessStack:
    pid: int
    threads: tuple[ThreadStack, ...]
    source: StackSourceName
    native: bool = False

    @property
    def main(self) -> ThreadStack | None:
        for thread in self.threads:
            if thread.main:
                return thread
        return self.threads[0] if self.threads else None


# -- parsing ------------------------------------------------------------------------------


class StackParseError(ValueError):
    """Text that is not the dump we asked for (a py-spy error page, a truncated file)."""


def parse_pyspy_json(text: str, pid: int, *, native: bool = False) -> ProcessStack:
    """``py-spy dump --json`` output: a list of threads, frames innermost first. Native
    frames come with a module (the shared object) and line 0."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise StackParseError(f"py-spy printed no JSON: {exc}") from None
    if not isinstance(data, list):
        raise StackParseError("py-spy JSON is not a list of threads")
    threads: list[ThreadStack] = []
    for raw in data:
        if not isinstance(raw, dict):
            raise StackParseError("py-spy JSON thread is not an object")
        frames: list[Frame] = []
        for f in raw.get("frames") or []:
            if not isinstance(f, dict):
                continue
            name = str(f.get("name", "?"))
            line = int(f.get("line") or 0)
            is_native = f.get("module") is not None and line == 0
            filename = str(f.get("short_filename") or f.get("filename") or "?")
            frames.append(Frame(name, filename, line, is_native))
        os_tid = raw.get("os_thread_id")
        tid = int(os_tid) if isinstance(os_tid, int) else int(raw.get("thread_id") or 0)
        name = str(raw.get("thread_name") or "")
        threads.append(
            ThreadStack(
                thread_id=tid,
                name=name,
                frames=tuple(frames),
                active=bool(raw.get("active")),
                main=tid == pid or (os_tid is None and name == "MainThread"),
            )
        )
    if threads and not any(t.main for t in threads):
        named = [i for i, t in enumerate(threads) if t.name == "MainThread"]
        if named:
            t = threads[named[0]]
            threads[named[0]] = ThreadStack(t.thread_id, t.name, t.frames, t.active, True)
    return ProcessStack(pid, tuple(threads), "py-spy", native)


_FH_HEADER = re.compile(
    r"^(?P<current>Current thread|Thread) (?P<id>0x[0-9a-fA-F]+)"
    r"(?: \[(?P<name>[^\]]*)\])? \(most recent call first\):\s*$"
)
_FH_FRAME = re.compile(r'^\s+File "(?P<file>.*)", line (?P<line>\d+|\?\?\?) in (?P<name>.*)$')


_LIB_DIR = re.compile(r"/(?:site-packages|dist-packages|lib/python\d+\.\d+)(?=/)")


def short_filename(path: str) -> str:
    """A path as py-spy shortens it: below site-packages or the stdlib, else its name."""
    found = list(_LIB_DIR.finditer(path))
    if found:
        return path[found[-1].end() + 1 :]
    return path.rsplit("/", 1)[-1]


def parse_faulthandler(text: str, pid: int) -> ProcessStack:
    """One ``faulthandler.dump_traceback(all_threads=True)``. CPython lists the newest
    thread first, so the main thread is the last block (checked in the tests)."""
    threads: list[ThreadStack] = []
    current: tuple[int, str, list[Frame]] | None = None
    for line in text.splitlines():
        header = _FH_HEADER.match(line)
        if header:
            if current is not None:
                threads.append(ThreadStack(current[0], current[1], tuple(current[2])))
            current = (int(header["id"], 16), header["name"] or "", [])
            continue
        frame = _FH_FRAME.match(line)
        if frame and current is not None:
            lineno = frame["line"]
            current[2].append(
                Frame(
                    frame["name"],
                    short_filename(frame["file"]),
                    int(lineno) if lineno.isdigit() else 0,
                )
            )
    if current is not None:
        threads.append(ThreadStack(current[0], current[1], tuple(current[2])))
    if not threads:
        raise StackParseError("no faulthandler traceback in the text")
    last = threads[-1]
    threads[-1] = ThreadStack(last.thread_id, last.name, last.frames, None, True)
    return ProcessStack(pid, tuple(threads), "faulthandler")


# -- meaning ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """A stack is in ``category`` when one of its frames matches. ``native`` rules look at
    the C frames the rank sits in (before its first Python frame), ``python`` rules at the
    innermost ``depth`` Python frames."""

    category: Category
    kind: Literal["python", "native"]
    file_part: str = ""  # substring of the file name ("" = any)
    not_file_part: str = ""  # ... but not this one
    names: frozenset[str] = frozenset()  # exact function names (empty = any)
    name_part: str = ""  # substring of the function name
    depth: int = 3
    why: str = ""


def _names(*names: str) -> frozenset[str]:
    return frozenset(names)


# Checked in order; the first that matches wins. Peer waits before local ones: a DataLoader
# wait sits in queue.get -> threading.wait, and must not read as a plain lock.
CATEGORY_RULES: tuple[Rule, ...] = (
    Rule("collective", "native", name_part="c10d::", depth=40, why="a c10d call (Work::wait)"),
    Rule("collective", "native", name_part="gloo::", depth=40, why="inside gloo"),
    Rule("collective", "native", name_part="nccl", depth=40, why="inside NCCL"),
    Rule(
        "device_sync",
        "native",
        names=_names(
            "cudaStreamSynchronize",
            "cudaDeviceSynchronize",
            "cudaEventSynchronize",
            "cuStreamSynchronize",
            "cuCtxSynchronize",
            "cuEventSynchronize",
        ),
        depth=40,
        why="a CUDA synchronisation",
    ),
    Rule("device_sync", "native", name_part="_local_scalar_dense", depth=40, why=".item()"),
    Rule("device_sync", "native", name_part="memcpy_and_sync", depth=40, why="a device copy"),
    Rule("device_sync", "native", file_part="libcuda", depth=4, why="inside the CUDA driver"),
    Rule(
        "collective",
        "python",
        file_part="torch/distributed/",
        not_file_part="torch/distributed/checkpoint/",  # DCP writes files: that is work
        why="a torch.distributed call",
    ),
    Rule(
        "device_sync",
        "python",
        file_part="torch/cuda/",
        name_part="synchronize",
        why="torch.cuda synchronize",
    ),
    Rule(
        "data_wait",
        "python",
        file_part="torch/utils/data/",
        names=_names("_try_get_data", "_get_data", "_next_data", "_wait_for_tasks"),
        depth=6,
        why="waiting for DataLoader workers",
    ),
    Rule(
        "sleep",
        "native",
        names=_names("clock_nanosleep", "nanosleep", "time_sleep", "pysleep"),
        depth=3,
        why="time.sleep",
    ),
    Rule(
        "lock",
        "native",
        names=_names(
            "lock_PyThread_acquire_lock",
            "acquire_timed",
            "PyThread_acquire_lock_timed",
            "sem_clockwait",
            "sem_timedwait",
            "sem_wait",
            "pthread_mutex_lock",
        ),
        depth=4,
        why="a lock",
    ),
    Rule(
        "lock",
        "python",
        file_part="threading.py",
        names=_names("wait", "acquire", "join", "_wait_for_tstate_lock"),
        depth=1,
        why="a threading wait",
    ),
    Rule("lock", "python", file_part="queue.py", names=_names("get", "put"), depth=1),
    Rule(
        "lock",
        "python",
        file_part="selectors.py",
        names=_names("select"),
        depth=1,
        why="waiting on a socket",
    ),
)


def _native_head(frames: Sequence[Frame]) -> list[Frame]:
    """The C frames the thread sits in, innermost first, up to its first Python frame."""
    head: list[Frame] = []
    for frame in frames:
        if not frame.native:
            break
        head.append(frame)
    return head


def _rule_matches(rule: Rule, frames: Sequence[Frame]) -> bool:
    if rule.kind == "native":
        pool = [f for f in frames if f.native][: rule.depth]
    else:
        pool = [f for f in frames if not f.native][: rule.depth]
    for f in pool:
        if rule.file_part and rule.file_part not in f.filename:
            continue
        if rule.not_file_part and rule.not_file_part in f.filename:
            continue
        if rule.names and f.name not in rule.names:
            continue
        if rule.name_part and rule.name_part not in f.name:
            continue
        return True
    return False


# Only for a stack without native frames (py-spy's native unwinding failed or timed out, a
# faulthandler dump): a rank stopped in autograd's engine is, in a distributed job, almost
# always in DDP's gradient all-reduce (the hook's Work::wait the native frames would show).
# With native frames, they decide: a backward that computes is not a peer wait.
PYTHON_ONLY_RULES: tuple[Rule, ...] = (
    Rule(
        "collective",
        "python",
        file_part="torch/autograd/",
        names=_names("_engine_run_backward", "run_backward"),
        depth=1,
        why="autograd's engine: the gradient all-reduce (DDP backward)",
    ),
)


def categorize(frames: Sequence[Frame]) -> Category:
    """What a thread is doing, from its frames (innermost first)."""
    for rule in CATEGORY_RULES:
        if rule.kind == "native" and rule.depth <= 4:
            # Local waits count only when they are the C call the thread is in right now.
            if _rule_matches(rule, _native_head(frames)):
                return rule.category
            continue
        if _rule_matches(rule, frames):
            return rule.category
    if not any(f.native for f in frames):
        for rule in PYTHON_ONLY_RULES:
            if _rule_matches(rule, frames):
                return rule.category
    return "running"


def digest(frames: Sequence[Frame]) -> str:
    """Identity of a stack across ranks and samples: function, file and line of each
    Python frame and the names of native frames (never their addresses, which ASLR moves)."""
    parts = [
        f.name if f.native else f"{f.name}|{f.filename}|{f.line}"
        for f in frames
        if not (f.native and f.name.startswith("0x"))
    ]
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()[:16]


def python_digest(frames: Sequence[Frame]) -> str:
    """Like ``digest`` over the Python frames only: a native and a plain dump of the same
    stack compare equal (the verdict samples both kinds)."""
    return digest([f for f in frames if not f.native])


_LIBRARY_PARTS = ("site-packages/", "dist-packages/", "/lib/python", "<frozen ", "torch/")


def is_library(frame: Frame) -> bool:
    if frame.native:
        return True
    name = frame.filename
    return (
        any(part in name for part in _LIBRARY_PARTS)
        or name.startswith(("threading.py", "queue.py", "selectors.py"))
        or name in ("runpy.py",)
    )


def where(frames: Sequence[Frame]) -> str:
    """A stack in one line, the way a person says it: the call a rank is in, then the line
    of the user's code that made it, e.g. ``all_reduce ← train.py:142 train_step``."""
    python = [f for f in frames if not f.native]
    if not python:
        native = [f.name for f in frames if f.native and not f.name.startswith("0x")]
        return native[0] if native else "(no frames)"
    top = python[0]
    user = next((f for f in python if not is_library(f)), None)
    native = [f.name for f in _native_head(frames) if not f.name.startswith("0x")]
    inner = f"{native[0]} ← " if native and native[0] != top.name else ""
    if user is None or user is top:
        return f"{inner}{top.filename}:{top.line} {top.name}"
    return f"{inner}{top.name} ← {user.filename}:{user.line} {user.name}"
