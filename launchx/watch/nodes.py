"""Several nodes, one verdict: each node's compact summary, and node 0's combination.

Every node watches its own ranks; only all of them together can say "no rank made
progress". A node sends node 0 a ``NodeSummary`` (per rank: seconds since its last
progress, /proc state, the top of its stack and its digest) every few seconds over the
live channel; node 0 calls ``combine`` and, on a hang, names the global rank and its node.

Ages, not timestamps: nodes' clocks need not agree. The receiver adds how long ago it
received each summary (``delays``). The models are strict (``extra="forbid"``, bounded
sizes) because they arrive from the network: a malformed message fails validation and
is dropped by the channel, never half-read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from launchx.watch.frames import Category, Frame
from launchx.watch.model import RankId
from launchx.watch.verdict import Hang, Healthy, RankView, TimeoutChoice, hang_of

SUMMARY_FRAMES = 12


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    @field_validator("*", mode="after")
    @classmethod
    def _printable(cls, value: object) -> object:
        """Text from another node reaches this node's terminal: no control characters (an
        escape sequence in a host name would redraw the screen)."""
        if isinstance(value, str) and not value.isprintable():
            return "".join(ch if ch.isprintable() else "?" for ch in value)
        return value


class WireFrame(_Strict):
    name: str = Field(max_length=400)
    file: str = Field(max_length=400)
    line: int = Field(ge=0)
    native: bool = False


class RankSummary(_Strict):
    rank: int = Field(ge=0)
    local_rank: int = Field(ge=0)
    node_rank: int = Field(ge=0)
    node: str = Field(max_length=255)
    age_s: float = Field(ge=0)
    state: str = Field(max_length=16)
    wchan: str = Field(max_length=128)
    exited: bool
    category: Category | None = None
    key: str | None = Field(default=None, max_length=64)
    where: str | None = Field(default=None, max_length=600)
    source: Literal["py-spy", "faulthandler"] | None = None
    frames: tuple[WireFrame, ...] = Field(default=(), max_length=SUMMARY_FRAMES)
    cpu_rate: float = Field(default=0.0, ge=0)
    io_rate: float = Field(default=0.0, ge=0)


class NodeSummary(_Strict):
    version: Literal[1] = 1
    node: str = Field(max_length=255)
    node_rank: int = Field(ge=0)
    quiet_s: float = Field(ge=0)
    timeout_s: float | None = Field(default=None, gt=0)
    timeout_source: Literal["off", "fixed", "initial", "learned"] = "off"
    stacks_note: str | None = Field(default=None, max_length=2000)
    ranks: tuple[RankSummary, ...] = Field(default=(), max_length=4096)


def _wire_frames(frames: Sequence[Frame]) -> tuple[WireFrame, ...]:
    keep = [f for f in frames if not (f.native and f.name.startswith("0x"))]
    return tuple(
        WireFrame(name=f.name[:400], file=f.filename[-400:], line=f.line, native=f.native)
        for f in keep[:SUMMARY_FRAMES]
    )


def _source(name: str | None) -> Literal["py-spy", "faulthandler"] | None:
    if name == "py-spy":
        return "py-spy"
    if name == "faulthandler":
        return "faulthandler"
    return None


def summarize(
    views: Sequence[RankView],
    *,
    node: str,
    node_rank: int,
    quiet_s: float,
    timeout: TimeoutChoice,
    stacks_note: str | None = None,
) -> NodeSummary:
    return NodeSummary(
        node=node[:255],
        node_rank=node_rank,
        quiet_s=max(0.0, quiet_s),
        timeout_s=timeout.seconds,
        timeout_source=timeout.source,
        stacks_note=stacks_note[:2000] if stacks_note else None,
        ranks=tuple(
            RankSummary(
                rank=v.who.rank,
                local_rank=v.who.local_rank,
                node_rank=v.who.node_rank,
                node=v.who.node[:255],
                age_s=v.age_s,
                state=v.state[:16],
                wchan=v.wchan[:128],
                exited=v.exited,
                category=v.category,
                key=v.key,
                where=v.where[:600] if v.where else None,
                source=_source(v.source),
                frames=_wire_frames(v.frames),
                cpu_rate=max(0.0, v.cpu_rate),
                io_rate=max(0.0, v.io_rate),
            )
            for v in views
        ),
    )


def _view(r: RankSummary, delay: float) -> RankView:
    return RankView(
        who=RankId(r.rank, r.local_rank, r.node_rank, r.node),
        age_s=r.age_s + delay,
        state=r.state,
        wchan=r.wchan,
        exited=r.exited,
        category=r.category,
        key=r.key,
        frames=tuple(Frame(f.name, f.file, f.line, f.native) for f in r.frames),
        where=r.where,
        source=r.source,
        cpu_rate=r.cpu_rate,
        io_rate=r.io_rate,
    )


def combine(
    summaries: Sequence[NodeSummary],
    *,
    timeout: TimeoutChoice,
    nnodes: int,
    delays: Mapping[int, float] | None = None,
) -> Healthy | Hang:
    """The run's verdict from every node's summary: a hang only when every node has
    reported and no rank anywhere progressed for the timeout (node 0's choice: it sees
    rank 0's output, so it learns the rhythm)."""
    delays = delays or {}
    latest: dict[int, NodeSummary] = {}
    for s in summaries:
        latest[s.node_rank] = s
    views = [_view(r, delays.get(s.node_rank, 0.0)) for s in latest.values() for r in s.ranks]
    if timeout.seconds is None or len(latest) < nnodes or not views:
        return Healthy(0.0, timeout)
    quiet = min(v.age_s for v in views)
    if quiet < timeout.seconds:
        return Healthy(quiet, timeout)
    notes = sorted({s.stacks_note for s in latest.values() if s.stacks_note})
    return hang_of(views, quiet, timeout, "; ".join(notes) or None)
