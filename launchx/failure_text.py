"""What a person (or a script) reads about a failure: the cause in one sentence, the fix,
the evidence with rank, host and place, the ranks grouped as root and collateral, and the
attempts. Pure: ``Diagnosis``/``Report`` in, text out.

``render_failure`` is what ``launchx diagnose`` prints and what the run loop prints at the
end of a failed run. Ranks with the same part and the same message are one line
(``collateral  ranks 0,2-7  exit -15 (SIGTERM)  Connection closed by peer``), never a wall
of identical tracebacks.
"""

from __future__ import annotations

import json
import signal as _signal
from collections.abc import Sequence

from launchx import failure_rules as fr
from launchx.collectives import ranges
from launchx.diagnosis import AttemptView, Diagnosis, RankView, Report, normalise

_ROLE_ORDER = ("root", "also_failed", "collateral", "stopped", "unknown")
_ROLE_WORD = {
    "root": "root",
    "also_failed": "also failed",
    "collateral": "collateral",
    "stopped": "stopped",
    "unknown": "no verdict",
}
_MAX_GROUPS = 8


def render_failure(what: Diagnosis | Report) -> str:
    """Text for people. A ``Diagnosis`` (the retry loop's) prints cause, fix and evidence;
    a ``Report`` adds ranks, attempts and what else was seen."""
    report = what if isinstance(what, Report) else Report(primary=what, findings=(what,))
    p = report.primary
    if report.succeeded:
        return _succeeded(report)
    if p is None and report.running:
        return (
            f"running: {report.running}; nothing has failed so far\n"
            "  (launchx status follows it; launchx diagnose names the cause once it fails)\n"
            + _notes(report)
        )
    if p is None:
        return (
            f"unknown ({fr.UNKNOWN_CODE}): {fr.UNKNOWN_CAUSE}\n  fix: {fr.UNKNOWN_FIX}\n"
            + _notes(report)
        )
    out = [_headline(p), f"  cause: {_cause(p, report)}", f"  fix: {p.fix}"]
    if p.evidence:
        out.append("  evidence:")
        out.extend(f"    {line}" for line in _evidence(p))
    out.extend(_ranks(report.ranks))
    out.extend(_attempts(report.attempts))
    # (that a rank printed nothing recognised adds nothing beside a cause)
    others = [d for d in report.findings[1:] if d.category not in (p.category, "unknown")]
    if others:
        out.append("  also seen (usually consequences of the above):")
        out.extend(f"    {_short(d)}" for d in others)
    text = "\n".join(out) + "\n"
    return text + _notes(report)


def _succeeded(report: Report) -> str:
    last = report.attempts[-1]
    n = len(report.attempts)
    out = [
        f"succeeded: attempt {last.attempt} finished"
        f" ({n} attempt{'s' if n != 1 else ''}); nothing failed, nothing to diagnose."
    ]
    if report.findings:
        out.append("  seen in the logs, without stopping the run:")
        out.extend(f"    {_short(d)}" for d in report.findings)
    return "\n".join(out) + "\n" + _notes(report)


def _headline(p: Diagnosis) -> str:
    where = f" on rank {p.rank}" if p.rank is not None else ""
    if p.host:
        where += f" (host {p.host})"
    if p.retryable:
        retry = "retryable"
    elif p.retry_on_progress:
        retry = "retryable from a checkpoint"
    else:
        retry = "not retryable"
    return f"{p.category} ({p.code}){where}, {retry}"


def _cause(p: Diagnosis, report: Report) -> str:
    """One sentence: who failed first and why."""
    if p.rank is None or p.category == "unknown" or p.tier >= 2:
        return p.cause
    who = f"rank {p.rank}" + (f" on {p.host}" if p.host else "")
    if p.cause.startswith(("rank ", "ranks ")):
        return p.cause
    exit_part = f" ({_exit_words(p.exit_code)})" if p.exit_code not in (None, 0) else ""
    collateral = report.roles("collateral")
    tail = ""
    if collateral:
        tail = f" {_plural(collateral)} died as collateral."
    return f"{who} failed first{exit_part}: {p.cause}{tail}"


def _evidence(p: Diagnosis) -> list[str]:
    out = []
    for i, line in enumerate(p.evidence):
        where = p.where[i] if i < len(p.where) else ""
        out.append(f"{line}  ({where})" if where else line)
    return out


def _exit_words(code: int | None) -> str:
    if code is None:
        return "exit ?"
    sig = -code if code < 0 else (code - 128 if 128 < code <= 192 else None)
    if sig:
        try:
            return f"exit {code}, {_signal.Signals(sig).name}"
        except ValueError:
            return f"exit {code}, signal {sig}"
    return f"exit {code}"


def _plural(ranks: Sequence[int]) -> str:
    return f"rank {ranks[0]}" if len(ranks) == 1 else f"ranks {ranges(ranks)}"


def _ranks(views: Sequence[RankView]) -> list[str]:
    if len(views) < 2 and not any(v.role in ("root", "collateral") for v in views):
        return []
    groups: dict[tuple[str, str, str], list[RankView]] = {}
    for v in views:
        exit_part = _exit_words(v.exit_code) if v.exit_code not in (None, 0) else ""
        key = (v.role, exit_part, normalise(v.summary))
        groups.setdefault(key, []).append(v)
    ordered = sorted(groups.items(), key=lambda kv: (_ROLE_ORDER.index(kv[0][0]), kv[1][0].rank))
    out = ["  ranks:"]
    for (role, exit_part, _key), members in ordered[:_MAX_GROUPS]:
        hosts = sorted({m.host for m in members if m.host})
        bits = [_plural([m.rank for m in members])]
        if hosts:
            bits.append("on " + ", ".join(hosts[:3]) + (" ..." if len(hosts) > 3 else ""))
        if exit_part:
            bits.append(exit_part)
        line = f"    {_ROLE_WORD[role]:<12}{'  '.join(bits)}"
        first = members[0]
        if first.summary:
            line += f"  | {first.summary[:120]}"
            if first.where:
                line += f"  ({first.where})"
        out.append(line)
    if len(ordered) > _MAX_GROUPS:
        out.append(f"    ... {len(ordered) - _MAX_GROUPS} more groups (--json lists every rank)")
    return out


def _attempts(views: Sequence[AttemptView]) -> list[str]:
    if not views:
        return []
    out = ["  attempts:"]
    for a in views:
        line = f"    {a.attempt:<3}{a.outcome:<12}"
        if a.category:
            line += a.category
        if a.root_rank is not None:
            line += f" on rank {a.root_rank}"
        if a.exit_code not in (None, 0):
            line += f" ({_exit_words(a.exit_code)})"
        if a.retryable is not None and a.outcome == "failed":
            line += ", retryable" if a.retryable else ", not retryable"
        out.append(line.rstrip())
    return out


def _short(d: Diagnosis) -> str:
    return f"{d.category} ({d.code})" + (f" on rank {d.rank}" if d.rank is not None else "")


def _notes(report: Report) -> str:
    lines = [f"  note: {n}" for n in report.notes]
    return "\n".join(lines) + "\n" if lines else ""


# --------------------------------------------------------------------------- JSON


def _as_dict(d: Diagnosis) -> dict[str, object]:
    return {
        "category": d.category,
        "code": d.code,
        "retryable": d.retryable,
        "retry_on_progress": d.retry_on_progress,
        "cause": d.cause,
        "fix": d.fix,
        "evidence": list(d.evidence),
        "rank": d.rank,
        "exit_code": d.exit_code,
        "signal": d.signal,
        "host": d.host,
        "where": list(d.where),
    }


def render_json(report: Report) -> str:
    """The schema of ``launchx diagnose --json``: ``primary`` and ``findings`` as before,
    plus ``ranks``, ``attempts``, ``stragglers``, ``first_failure`` and ``notes``."""
    p = report.primary
    doc: dict[str, object] = {
        "succeeded": report.succeeded,
        "running": report.running,
        "primary": _as_dict(p) if p else None,
        "findings": [_as_dict(d) for d in report.findings],
        "first_failure": (
            {"rank": p.rank, "host": p.host} if p is not None and p.rank is not None else None
        ),
        "ranks": [
            {
                "rank": v.rank,
                "role": v.role,
                "host": v.host,
                "node": v.node,
                "local_rank": v.local_rank,
                "exit_code": v.exit_code,
                "signal": v.signal,
                "category": v.category,
                "summary": v.summary,
                "where": v.where,
            }
            for v in report.ranks
        ],
        "attempts": [
            {
                "attempt": a.attempt,
                "outcome": a.outcome,
                "category": a.category,
                "retryable": a.retryable,
                "root_rank": a.root_rank,
                "host": a.host,
                "exit_code": a.exit_code,
                "cause": a.cause,
            }
            for a in report.attempts
        ],
        "stragglers": [
            {
                "source": s.source,
                "kind": s.kind,
                "ranks": list(s.ranks),
                "waiting": list(s.waiting),
                "seq": s.seq,
                "op": s.op,
                "group": s.group,
                "text": s.text,
                "where": s.where,
                "counted": s.counted,
            }
            for s in report.stragglers
        ],
        "notes": list(report.notes),
        "sources": report.sources,
    }
    return json.dumps(doc, indent=2) + "\n"
