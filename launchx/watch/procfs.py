"""Progress evidence from /proc, read from outside the ranks (no help from the script).

Pure parsers over the file texts (``parse_*``, unit-tested on strings) and one thin reader
(``ProcFS``) that takes a proc root, so tests can point it at a directory tree.

Facts this relies on (shared/reference/hangs.md §2, measured on Linux 6.18):

* ``stat``: the command name may hold spaces and ``)``: fields start after the *last*
  ``)``. ``utime``/``stime`` sum every thread; ``cutime``/``cstime`` hold children only
  once reaped, so live DataLoader workers are read separately and added.
* ``io``: ``rchar``/``wchar`` count every read/write-family call (sockets and pipes too:
  gloo traffic and DataLoader batches are progress); ``write_bytes`` is what reached
  storage (a checkpoint). Needs ptrace READ mode, which Yama never restricts.
* ``wchan``: the kernel symbol a sleeping main thread waits in (``futex_do_wait`` for a
  collective, ``hrtimer_nanosleep`` for ``time.sleep``); names vary by kernel.
* ``task/TID/children`` lists the children each thread started (CONFIG_PROC_CHILDREN);
  when a kernel lacks it the reader falls back to scanning every ``stat`` for its parent.
* Ranks are found by their environment: torchrun gives every worker ``RANK``,
  ``LOCAL_RANK`` and ``GROUP_RANK``; the first processes below the launcher that carry
  ``RANK`` are the ranks, and everything below a rank is its own (workers inherit RANK).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from launchx.watch.model import ProcSample, RankId

CHILD_DEPTH = 3  # rank -> DataLoader worker -> its own pool: deeper is not a rank's work
SEARCH_DEPTH = 4  # launcher -> (wrapper) -> torchrun -> worker


@dataclass(frozen=True)
class Stat:
    pid: int
    comm: str
    state: str
    ppid: int
    utime: int  # clock ticks
    stime: int
    cutime: int
    cstime: int
    num_threads: int
    starttime: int  # ticks after boot: with the pid, identifies a process across reuse


def parse_stat(text: str) -> Stat:
    """``/proc/PID/stat`` (proc_pid_stat(5)); raises ValueError on anything else."""
    head, sep, tail = text.rpartition(")")
    if not sep or "(" not in head:
        raise ValueError("not a /proc/PID/stat line")
    pid_text, _, comm = head.partition("(")
    f = tail.split()
    if len(f) < 20:
        raise ValueError("/proc/PID/stat line too short")
    # tail fields: 0 state, 1 ppid, ... 11 utime, 12 stime, 13 cutime, 14 cstime,
    # 17 num_threads, 19 starttime (proc_pid_stat(5) fields 3..22).
    return Stat(
        pid=int(pid_text.strip()),
        comm=comm,
        state=f[0],
        ppid=int(f[1]),
        utime=int(f[11]),
        stime=int(f[12]),
        cutime=int(f[13]),
        cstime=int(f[14]),
        num_threads=int(f[17]),
        starttime=int(f[19]),
    )


@dataclass(frozen=True)
class Io:
    rchar: int
    wchar: int
    read_bytes: int
    write_bytes: int


def parse_io(text: str) -> Io:
    """``/proc/PID/io``: ``key: value`` lines; missing keys count as 0."""
    values: dict[str, int] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and value.strip().isdigit():
            values[key.strip()] = int(value.strip())
    if not values:
        raise ValueError("not a /proc/PID/io file")
    return Io(
        values.get("rchar", 0),
        values.get("wchar", 0),
        values.get("read_bytes", 0),
        values.get("write_bytes", 0),
    )


def parse_environ(data: bytes) -> dict[str, str]:
    """``/proc/PID/environ``: NUL-separated ``NAME=value`` (the environment at exec)."""
    out: dict[str, str] = {}
    for item in data.split(b"\0"):
        name, sep, value = item.partition(b"=")
        if sep and name:
            out[name.decode(errors="replace")] = value.decode(errors="replace")
    return out


def parse_children(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split() if p.isdigit())


def parse_wchan(text: str) -> str:
    """``0`` (or nothing) means running or not visible."""
    text = text.strip()
    return "" if text in ("", "0") else text


def parse_sigcgt(status: str) -> int:
    """The caught-signals mask (``SigCgt``) of ``/proc/PID/status``: bit N-1 is signal N."""
    for line in status.splitlines():
        if line.startswith("SigCgt:"):
            return int(line.split(":", 1)[1].strip(), 16)
    raise ValueError("no SigCgt line")


def catches(status: str, signum: int) -> bool:
    """Whether a process installed a handler for ``signum`` (so signalling it is safe)."""
    return bool(parse_sigcgt(status) >> (signum - 1) & 1)


def rank_identity(
    environ: Mapping[str, str], node: str = "localhost", *, nproc_per_node: int | None = None
) -> RankId | None:
    """The rank a process is, from the variables torchrun (or the plan) gave it."""
    rank = environ.get("RANK", "")
    if not rank.strip().isdigit():
        return None
    local = environ.get("LOCAL_RANK", "")
    group = environ.get("GROUP_RANK", "") or environ.get("NODE_RANK", "")
    r = int(rank)
    local_rank = int(local) if local.strip().isdigit() else r
    if group.strip().isdigit():
        node_rank = int(group)
    elif nproc_per_node:
        node_rank = r // nproc_per_node
    else:
        node_rank = 0
    return RankId(r, local_rank, node_rank, node)


@dataclass(frozen=True)
class RankProc:
    pid: int
    who: RankId
    starttime: int = 0


class ProcFS:
    """Reads the files above under ``root`` (``/proc`` by default)."""

    def __init__(self, root: str | Path = "/proc", clk_tck: int | None = None) -> None:
        self.root = Path(root)
        self.clk_tck = clk_tck or os.sysconf("SC_CLK_TCK")

    def _read(self, pid: int, name: str) -> str | None:
        try:
            return (self.root / str(pid) / name).read_text(errors="replace")
        except OSError:
            return None

    def stat(self, pid: int) -> Stat | None:
        text = self._read(pid, "stat")
        if text is None:
            return None
        try:
            return parse_stat(text)
        except ValueError:
            return None

    def status(self, pid: int) -> str | None:
        return self._read(pid, "status")

    def environ(self, pid: int) -> dict[str, str] | None:
        try:
            return parse_environ((self.root / str(pid) / "environ").read_bytes())
        except OSError:
            return None

    def children(self, pid: int) -> tuple[int, ...]:
        """Children of every thread of ``pid``; a scan of all parents when the kernel
        does not provide ``task/TID/children``."""
        task = self.root / str(pid) / "task"
        try:
            tids = [t for t in os.listdir(task) if t.isdigit()]
        except OSError:
            return ()
        found: list[int] = []
        missing = False
        for tid in tids:
            try:
                found += parse_children((task / tid / "children").read_text())
            except FileNotFoundError:
                missing = True
                break
            except OSError:
                continue
        if missing:
            return self._children_by_scan(pid)
        return tuple(dict.fromkeys(found))

    def _children_by_scan(self, pid: int) -> tuple[int, ...]:
        out: list[int] = []
        try:
            entries = os.listdir(self.root)
        except OSError:
            return ()
        for entry in entries:
            if entry.isdigit():
                st = self.stat(int(entry))
                if st is not None and st.ppid == pid:
                    out.append(st.pid)
        return tuple(out)

    def descendants(self, pid: int, depth: int = CHILD_DEPTH) -> tuple[int, ...]:
        out: list[int] = []
        level = [pid]
        for _ in range(depth):
            level = [c for p in level for c in self.children(p)]
            out += level
        return tuple(out)

    def sample(self, pid: int) -> ProcSample | None:
        """One rank's counters; None when the process is gone (a zombie is not alive)."""
        st = self.stat(pid)
        if st is None:
            return None
        if st.state in ("Z", "X"):
            return ProcSample(pid, st.state, "", 0.0, None, None, (), 0, alive=False)
        kids = self.descendants(pid)
        ticks = st.utime + st.stime + st.cutime + st.cstime
        io = self._io(pid)
        io_bytes = io.rchar + io.wchar if io else None
        write_bytes = io.write_bytes if io else None
        live: list[int] = []
        for kid in kids:
            kst = self.stat(kid)
            if kst is None:
                continue
            live.append(kid)
            ticks += kst.utime + kst.stime + kst.cutime + kst.cstime
            kio = self._io(kid)
            if kio is not None and io_bytes is not None and write_bytes is not None:
                io_bytes += kio.rchar + kio.wchar
                write_bytes += kio.write_bytes
        return ProcSample(
            pid=pid,
            state=st.state,
            wchan=parse_wchan(self._read(pid, "wchan") or ""),
            cpu_s=ticks / self.clk_tck,
            io_bytes=io_bytes,
            write_bytes=write_bytes,
            children=tuple(live),
            threads=st.num_threads,
        )

    def _io(self, pid: int) -> Io | None:
        text = self._read(pid, "io")
        if text is None:
            return None
        try:
            return parse_io(text)
        except ValueError:
            return None

    def find_ranks(
        self,
        launcher_pid: int,
        *,
        node: str = "localhost",
        direct: RankId | None = None,
        nproc_per_node: int | None = None,
    ) -> list[RankProc]:
        """The rank processes of one attempt: ``direct`` names the launcher itself (the
        script run without torchrun); otherwise the shallowest processes below the
        launcher whose environment has ``RANK``, and the launcher itself only when none
        below it has (a script started directly with RANK in its environment)."""
        if direct is not None:
            st = self.stat(launcher_pid)
            return [RankProc(launcher_pid, direct, st.starttime)] if st else []
        found: list[RankProc] = []
        level = [launcher_pid]
        for _ in range(SEARCH_DEPTH):
            below: list[int] = []
            for pid in level:
                for child in self.children(pid):
                    env = self.environ(child)
                    who = rank_identity(env, node, nproc_per_node=nproc_per_node) if env else None
                    if who is None:
                        below.append(child)
                        continue
                    st = self.stat(child)
                    found.append(RankProc(child, who, st.starttime if st else 0))
            if found or not below:
                break
            level = below
        if not found:
            env = self.environ(launcher_pid)
            who = rank_identity(env, node, nproc_per_node=nproc_per_node) if env else None
            st = self.stat(launcher_pid)
            if who is not None and st is not None:
                found.append(RankProc(launcher_pid, who, st.starttime))
        return sorted(found, key=lambda p: p.who.rank)
