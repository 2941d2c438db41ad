"""What a run looks like while it runs: the status pinned under a terminal's output, and
the heartbeat line a log file gets instead.

Both are made from the hang watch's node summaries (``watch.nodes.NodeSummary``: per rank,
alive or exited and the seconds since its last progress; the node's quiet time and hang
timeout), this node's first, then the other nodes' that node 0 holds. A terminal gets a
few lines redrawn every second: the attempt, the time, the hang timer, and per node its
ranks. A file (CI, a SLURM output) gets one line every few minutes: enough to see that a
quiet job is alive, not a line per second to scroll through. Pure: data in, text out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from launchx.watch.nodes import NodeSummary, RankSummary

HEARTBEAT_S = 300.0  # off a terminal: one line every five minutes
MAX_NODE_ROWS = 4  # more nodes than this: one line for all of them


@dataclass(frozen=True)
class RunClock:
    attempt: int
    run_s: float  # since launchx started the run
    attempt_s: float  # since this attempt started


def duration(seconds: float) -> str:
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def _timer(summaries: Sequence[NodeSummary]) -> str:
    """The hang timer: how long the quietest node has been quiet, against the timeout."""
    if not summaries:
        return "hang watch starting"
    own = summaries[0]
    quiet = min(s.quiet_s for s in summaries)
    if own.timeout_s is None:
        return f"quiet {duration(quiet)} (hang timeout still being learned)"
    limit = duration(own.timeout_s)
    return f"quiet {duration(quiet)} of {limit} hang timeout ({own.timeout_source})"


def _rank(r: RankSummary) -> str:
    return f"r{r.rank} exited" if r.exited else f"r{r.rank} {duration(r.age_s)}"


def _node_row(s: NodeSummary, width: int) -> str:
    head = f"node {s.node_rank} ({s.node}), quiet for: "
    ranks = sorted(s.ranks, key=lambda r: r.rank)
    if not ranks:
        return head + "looking for the ranks"
    full = head + "  ".join(_rank(r) for r in ranks)
    if width <= 0 or len(full) < width:
        return full
    alive = [r for r in ranks if not r.exited]
    slowest = max(alive, key=lambda r: r.age_s, default=None)
    parts = [f"{len(ranks)} ranks, {len(alive)} alive"]
    if slowest is not None:
        parts.append(f"slowest r{slowest.rank} quiet {duration(slowest.age_s)}")
    return head + ", ".join(parts)


def status_lines(clock: RunClock, summaries: Sequence[NodeSummary], width: int = 0) -> list[str]:
    """The status block: a headline, then one row per node (or one for many nodes)."""
    head = (
        f"launchx: attempt {clock.attempt} running {duration(clock.attempt_s)} "
        f"(run {duration(clock.run_s)}) | {_timer(summaries)}"
    )
    if len(summaries) <= MAX_NODE_ROWS:
        return [head, *(_node_row(s, width) for s in summaries)]
    ranks = [r for s in summaries for r in s.ranks]
    exited = sum(r.exited for r in ranks)
    quietest = max(summaries, key=lambda s: s.quiet_s)
    row = (
        f"{len(summaries)} nodes reporting, {len(ranks)} ranks ({exited} exited); "
        f"longest quiet: node {quietest.node_rank} ({quietest.node}) {duration(quietest.quiet_s)}"
    )
    return [head, row]


def heartbeat(clock: RunClock, summaries: Sequence[NodeSummary]) -> str:
    """One line for a log file: the attempt is alive, and how quiet it is."""
    ranks = [r for s in summaries for r in s.ranks]
    alive = sum(not r.exited for r in ranks)
    where = f"{alive} of {len(ranks)} ranks alive" if ranks else "no ranks found yet"
    return (
        f"launchx: heartbeat: attempt {clock.attempt} running {duration(clock.attempt_s)} "
        f"(run {duration(clock.run_s)}), {where}, {_timer(summaries)}"
    )
