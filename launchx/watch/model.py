"""The few records every part of the watcher shares: who a rank is, and one /proc sample.

Kept apart so the pure parts (verdict, report, node summaries) and the readers (procfs,
stacks) can both name them without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class RankId:
    """A rank as a person names it: global rank first, then where it runs."""

    rank: int
    local_rank: int = 0
    node_rank: int = 0
    node: str = "localhost"

    def label(self, *, with_node: bool = True) -> str:
        if with_node:
            return f"rank {self.rank} (node {self.node}, local {self.local_rank})"
        return f"rank {self.rank}"


@dataclass(frozen=True)
class ProcSample:
    """What /proc says about one rank process and the processes below it (DataLoader
    workers) at one moment. CPU and I/O are cumulative counters; progress is their growth."""

    pid: int
    state: str  # the main thread's state letter (R, S, D, Z, T, t, ...)
    wchan: str  # the kernel function the main thread sleeps in ("" when running/unknown)
    cpu_s: float  # user+system CPU of the rank and its descendants, reaped ones included
    io_bytes: int | None  # rchar+wchar of the rank and its descendants; None: unreadable
    write_bytes: int | None  # bytes that reached the storage layer (checkpoint writes)
    children: tuple[int, ...]  # live descendants (DataLoader workers, compile workers)
    threads: int
    alive: bool = True
