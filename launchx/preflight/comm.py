"""The link test, as data: who runs which rank, who meets whom, and what the timings mean.

Pure. ``sweep.py`` starts the processes and ``worker.py`` (the only part that imports
torch) runs the collectives; this module plans them and reads their numbers.

- *Layout*: every taking-part node gets a block of consecutive ranks (one per GPU with
  NCCL, one per node with gloo), in node order.
- *Rounds*: pairwise tests on a hypercube: in round ``r`` the ``i``-th node meets the
  node ``i XOR 2**r``; ``ceil(log2 N)`` rounds cover every node with O(log N) partners and
  O(N log N) pairs in all, never the N² of all pairs. In a pair, local rank ``j`` of one
  node exchanges with local rank ``j`` of the other, so every rail of a node is used.
- *Bandwidth*: nccl-tests' definitions (https://github.com/NVIDIA/nccl-tests/blob/master/
  doc/PERFORMANCE.md): algorithm bandwidth ``algbw = size / time``; for all_reduce the bus
  bandwidth ``busbw = algbw * 2 (n - 1) / n`` over ``n`` ranks, comparable with the
  hardware's link speed whatever the rank count. GB/s are 10**9 bytes per second.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SLOW_FRACTION = 0.5  # a pair below this share of the median pair bandwidth is slow
_GB = 1e9


@dataclass(frozen=True)
class Block:
    """One node's ranks: ``base .. base + count - 1``."""

    node: int
    base: int
    count: int


def layout(procs: Mapping[int, int]) -> tuple[tuple[Block, ...], int]:
    """Rank blocks for the taking-part nodes (node -> processes), and the world size."""
    blocks: list[Block] = []
    base = 0
    for node in sorted(procs):
        count = max(1, procs[node])
        blocks.append(Block(node, base, count))
        base += count
    return tuple(blocks), base


def rounds(count: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Hypercube pairs by round, as indices into the node list (``i < j``)."""
    out: list[tuple[tuple[int, int], ...]] = []
    step = 1
    while step < count:
        out.append(tuple((i, i ^ step) for i in range(count) if i < i ^ step < count))
        step *= 2
    return tuple(out)


def partners(blocks: Sequence[Block]) -> dict[int, list[tuple[int, int] | None]]:
    """For each node, per round: (partner's first rank, ranks paired) or None (idle)."""
    plan: dict[int, list[tuple[int, int] | None]] = {b.node: [] for b in blocks}
    for pairs in rounds(len(blocks)):
        busy: dict[int, tuple[int, int]] = {}
        for i, j in pairs:
            a, b = blocks[i], blocks[j]
            width = min(a.count, b.count)
            busy[a.node] = (b.base, width)
            busy[b.node] = (a.base, width)
        for block in blocks:
            plan[block.node].append(busy.get(block.node))
    return plan


@dataclass(frozen=True)
class SweepPoint:
    size: int  # bytes per rank
    time_s: float  # one all_reduce, the slowest rank's average
    algbw: float  # GB/s
    busbw: float  # GB/s


@dataclass(frozen=True)
class PairPoint:
    round: int
    a: int  # node ranks
    b: int
    gbs: float  # bytes each way per second, summed over the paired ranks


@dataclass(frozen=True)
class CommReport:
    """What the link test found; ``error`` when it could not run or finish."""

    backend: str
    ranks: int
    nodes: tuple[int, ...]
    sweep: tuple[SweepPoint, ...] = ()
    pair_size: int = 0
    pairs: tuple[PairPoint, ...] = ()
    median_gbs: float | None = None
    slow_pairs: tuple[PairPoint, ...] = ()
    slow_nodes: tuple[int, ...] = ()
    error: str | None = None
    failures: tuple[tuple[int, str], ...] = ()  # (node, what its processes said)

    def to_json(self) -> dict[str, object]:
        return {
            "backend": self.backend,
            "ranks": self.ranks,
            "nodes": list(self.nodes),
            "sweep": [
                {
                    "bytes": p.size,
                    "time_us": round(p.time_s * 1e6, 1),
                    "algbw_gbs": round(p.algbw, 3),
                    "busbw_gbs": round(p.busbw, 3),
                }
                for p in self.sweep
            ],
            "pair_bytes": self.pair_size,
            "pairs": [
                {"round": p.round, "a": p.a, "b": p.b, "gbs": round(p.gbs, 3)} for p in self.pairs
            ],
            "median_pair_gbs": None if self.median_gbs is None else round(self.median_gbs, 3),
            "slow_pairs": [[p.a, p.b] for p in self.slow_pairs],
            "slow_nodes": list(self.slow_nodes),
            "error": self.error,
            "failures": [{"node": n, "error": e} for n, e in self.failures],
        }


def bus_bandwidth(algbw: float, ranks: int) -> float:
    """nccl-tests' all_reduce bus bandwidth: ``algbw * 2 (n - 1) / n``."""
    return algbw * 2 * (ranks - 1) / ranks if ranks > 0 else 0.0


def sweep_points(raw: Sequence[Sequence[float]], ranks: int) -> tuple[SweepPoint, ...]:
    """``[(bytes, seconds per all_reduce), ...]`` as the worker wrote them."""
    out: list[SweepPoint] = []
    for size, seconds in raw:
        if seconds <= 0:
            continue
        algbw = size / seconds / _GB
        out.append(SweepPoint(int(size), seconds, algbw, bus_bandwidth(algbw, ranks)))
    return tuple(out)


def pair_points(
    blocks: Sequence[Block], times: Sequence[float], pair_size: int, iterations: int
) -> tuple[PairPoint, ...]:
    """Per pair, the bandwidth from each rank's time in each round (``times[rank * R + r]``,
    the time of ``iterations`` exchanges; the slowest paired rank sets the pair's time)."""
    plan = rounds(len(blocks))
    count = len(plan)
    out: list[PairPoint] = []
    for r, pairs in enumerate(plan):
        for i, j in pairs:
            a, b = blocks[i], blocks[j]
            width = min(a.count, b.count)
            ranks = [a.base + k for k in range(width)] + [b.base + k for k in range(width)]
            spans = [times[rank * count + r] for rank in ranks if rank * count + r < len(times)]
            slowest = max(spans, default=0.0)
            if slowest <= 0:
                continue
            out.append(PairPoint(r, a.node, b.node, pair_size * iterations * width / slowest / _GB))
    return tuple(out)


def slow(
    pairs: Sequence[PairPoint], fraction: float = SLOW_FRACTION
) -> tuple[float | None, tuple[PairPoint, ...], tuple[int, ...]]:
    """The median pair bandwidth, the pairs below ``fraction`` of it, and the nodes that
    explain them: a node in at least two pairs, more than half of them slow (its partners
    each have one slow pair among several). Slow pairs without such a node are links."""
    if not pairs:
        return None, (), ()
    median = statistics.median(p.gbs for p in pairs)
    slow_pairs = tuple(p for p in pairs if p.gbs < fraction * median)
    seen: dict[int, list[bool]] = {}
    for p in pairs:
        for node in (p.a, p.b):
            seen.setdefault(node, []).append(p in slow_pairs)
    nodes = tuple(
        sorted(n for n, marks in seen.items() if len(marks) >= 2 and sum(marks) * 2 > len(marks))
    )
    links = tuple(p for p in slow_pairs if p.a not in nodes and p.b not in nodes)
    return median, links, nodes
