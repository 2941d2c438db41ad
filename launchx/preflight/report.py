"""The preflight report: facts grouped across nodes, findings that name nodes, the link test.

Readable at a thousand nodes: nodes that agree collapse into one group, a group is written
as rank ranges (``0-6,8-15``) and a compressed host list, and only the odd groups are
spelled out host by host. Pure; ``render_text`` and ``to_json`` are the two outputs
(``SCHEMA`` names the JSON layout documented in the README).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from launchx import hostlist
from launchx.errors import ConfigError
from launchx.findings import LEVELS, Finding
from launchx.preflight.comm import CommReport
from launchx.spans import spans

SCHEMA = "launchx-preflight/1"
_NAMED = 6  # nodes named one by one (with host) before a group is written as ranges
_GROUPS_SHOWN = 6  # groups of one fact printed before "... N other values"


@dataclass(frozen=True)
class Group:
    value: str
    nodes: tuple[int, ...]


@dataclass(frozen=True)
class Row:
    """One fact across nodes, largest group first (ties: the group with the lower node)."""

    what: str
    groups: tuple[Group, ...]

    @property
    def agrees(self) -> bool:
        return len(self.groups) <= 1


@dataclass(frozen=True)
class Flagged:
    """A finding and the nodes it concerns. ``scope`` ``cluster``: a comparison across
    nodes (the message names them); ``node``: one node's own check, grouped."""

    finding: Finding
    nodes: tuple[int, ...]
    scope: Literal["cluster", "node"] = "cluster"


@dataclass(frozen=True)
class Absent:
    node: int
    host: str | None
    why: str  # "did not join", "joined but sent no facts", "sent facts launchx cannot read"


@dataclass(frozen=True)
class Report:
    profile: str
    master: str  # "addr:port"
    expected: int
    joined: tuple[int, ...]
    hosts: Mapping[int, str]
    absent: tuple[Absent, ...] = ()
    rows: tuple[Row, ...] = ()
    findings: tuple[Flagged, ...] = ()
    comm: CommReport | None = None
    comm_note: str = ""  # why there is no link test ("skipped: --no-comm")
    join_timeout_s: float = 0.0

    @property
    def exit_code(self) -> int:
        return 2 if any(f.finding.level == "error" for f in self.findings) else 0

    def counts(self) -> dict[str, int]:
        return {lvl: sum(f.finding.level == lvl for f in self.findings) for lvl in LEVELS}


# --- naming nodes ------------------------------------------------------------------------


def host_list(hosts: Sequence[str], limit: int = 60) -> str:
    try:
        text = hostlist.compress(hosts)
    except ConfigError:
        text = ",".join(hosts)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def who(nodes: Sequence[int], hosts: Mapping[int, str]) -> str:
    """``node 3 (gpu-004)``, ``nodes 3 (gpu-004), 9 (gpu-010)`` or, for many,
    ``40 nodes 0-39 (gpu-[001-040])``."""
    ordered = sorted(nodes)
    if len(ordered) == 1:
        node = ordered[0]
        return f"node {node}" + (f" ({hosts[node]})" if hosts.get(node) else "")
    if len(ordered) <= _NAMED:
        named = [f"{n} ({hosts[n]})" if hosts.get(n) else str(n) for n in ordered]
        return "nodes " + ", ".join(named)
    known = [hosts[n] for n in ordered if hosts.get(n)]
    tail = f" ({host_list(known)})" if known else ""
    return f"{len(ordered)} nodes {spans(ordered)}{tail}"


# --- text ---------------------------------------------------------------------------------


def _group_cell(group: Group, row_nodes: int, hosts: Mapping[int, str]) -> str:
    if len(group.nodes) == row_nodes and row_nodes > 1:
        return f"all {row_nodes}"
    if len(group.nodes) > _NAMED:
        return f"{len(group.nodes)} nodes: {spans(group.nodes)}"
    return who(group.nodes, hosts)


def render_text(report: Report) -> str:
    lines: list[str] = []
    came = len(report.joined)
    lines.append(
        f"preflight: {came} of {report.expected} nodes (profile {report.profile}, master "
        f"{report.master})"
    )
    for gone in report.absent:
        host = f" ({gone.host})" if gone.host else ""
        lines.append(f"  node {gone.node}{host}: {gone.why}")
    if report.rows:
        width = max(len(r.what) for r in report.rows)
        cells = [g.value for r in report.rows for g in r.groups[:_GROUPS_SHOWN]]
        value_width = min(max(len(c) for c in cells), 44)
        lines.append("")
        for row in report.rows:
            total = sum(len(g.nodes) for g in row.groups)
            for index, group in enumerate(row.groups[:_GROUPS_SHOWN]):
                label = row.what if index == 0 else ""
                cell = _group_cell(group, total, report.hosts)
                mark = "  " if index == 0 or row.agrees else "! "
                lines.append(f"{mark}{label:<{width}}  {group.value:<{value_width}}  {cell}")
            rest = row.groups[_GROUPS_SHOWN:]
            if rest:
                count = sum(len(g.nodes) for g in rest)
                lines.append(
                    f"! {'':<{width}}  ... {len(rest)} other values on {count} nodes (see --json)"
                )
    for level in LEVELS:
        chosen = [f for f in report.findings if f.finding.level == level]
        if not chosen:
            continue
        lines.append("")
        lines.append(f"{level}s:")
        for flagged in chosen:
            f = flagged.finding
            var = f" {f.var}" if f.var else ""
            where = "" if flagged.scope == "cluster" else f"[{who(flagged.nodes, report.hosts)}] "
            lines.append(f"  {f.code}{var}: {where}{f.message}")
            lines.append(f"      fix: {f.fix}")
    lines.append("")
    lines.extend(_comm_text(report))
    counts = report.counts()
    verdict = (
        "no problems found"
        if not any(counts.values())
        else ", ".join(f"{n} {lvl}{'s' if n != 1 else ''}" for lvl, n in counts.items() if n)
    )
    lines.append("")
    lines.append(f"preflight: {verdict} (exit {report.exit_code})")
    return "\n".join(lines) + "\n"


def _size(size: int) -> str:
    if size >= 1 << 30:
        return f"{size / (1 << 30):g} GiB"
    return f"{size / (1 << 20):g} MiB"


def _comm_text(report: Report) -> list[str]:
    comm = report.comm
    if comm is None:
        return [f"link test: {report.comm_note or 'not run'}"]
    head = f"link test: {comm.backend}, {comm.ranks} ranks on {len(comm.nodes)} nodes"
    if comm.error and not comm.sweep:
        return [f"{head}: failed ({comm.error})"]
    lines = [head, f"  {'size':>9}  {'time':>10}  {'algbw':>10}  {'busbw':>10}"]
    for p in comm.sweep:
        lines.append(
            f"  {_size(p.size):>9}  {p.time_s * 1e3:>7.2f} ms  {p.algbw:>5.2f} GB/s  "
            f"{p.busbw:>5.2f} GB/s"
        )
    if comm.pairs and comm.median_gbs is not None:
        rounds = len({p.round for p in comm.pairs})
        low = min(comm.pairs, key=lambda p: p.gbs)
        lines.append(
            f"  pairs: {len(comm.pairs)} in {rounds} round(s) of {_size(comm.pair_size)}, "
            f"median {comm.median_gbs:.2f} GB/s, lowest {low.gbs:.2f} GB/s "
            f"(nodes {low.a}-{low.b})"
        )
    if comm.error:
        lines.append(f"  stopped early: {comm.error}")
    return lines


# --- JSON ---------------------------------------------------------------------------------


def to_json(report: Report) -> dict[str, object]:
    hosts = report.hosts
    return {
        "schema": SCHEMA,
        "exit_code": report.exit_code,
        "profile": report.profile,
        "master": report.master,
        "nodes": {
            "expected": report.expected,
            "joined": list(report.joined),
            "absent": [{"node": a.node, "host": a.host, "why": a.why} for a in report.absent],
            "hosts": {str(n): h for n, h in sorted(hosts.items())},
        },
        "facts": [
            {
                "what": row.what,
                "agree": row.agrees,
                "groups": [{"value": g.value, "nodes": list(g.nodes)} for g in row.groups],
            }
            for row in report.rows
        ],
        "findings": [
            {**f.finding.to_json(), "scope": f.scope, "nodes": list(f.nodes)}
            for f in report.findings
        ],
        "comm": None if report.comm is None else report.comm.to_json(),
        "comm_note": report.comm_note or None,
    }


def render_json(report: Report) -> str:
    """One line of JSON (``SCHEMA``; the README documents its fields)."""
    return json.dumps(to_json(report), separators=(",", ":")) + "\n"
