"""One diagnosis for a whole run: the cause, the first rank and host that failed, the ranks
that died as its collateral, and each attempt's outcome.

Input is what ``logscan`` kept of each log (any number, any layout), flight-recorder dumps
and the run's events. The cause is chosen as for a single log: the tier of the rule
(stopped from outside > root cause > symptom), then whether the finding sits on the rank
that failed first, then the rule's priority, then the earliest line. The rank that failed
first is the one torchrun's summary names ("Root Cause (first observed failure)"; with
several nodes, the earliest of their summaries), else the rank whose first root-cause line
carries the earliest timestamp. When the cause is a timeout, the NCCL watchdog's sequence
numbers or the flight recorder may name the rank the others were waiting for: that rank is
then the root and the waiting ranks its collateral.

Some causes no log can show: launchx decided them while the attempt ran (a hang it
detected, a node it stopped because another failed, a launcher that died). The ranks' logs
then only show the SIGTERM that stopped them; the attempt's ``attempt_end`` event names the
cause and the rank, and that is the attempt's diagnosis.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import TypeGuard

from launchx import collectives, flightrec, ownsummary
from launchx import failure_rules as fr
from launchx import rulematch as rm
from launchx.diagnosis import (
    AttemptView,
    Diagnosis,
    Outcome,
    RankView,
    Report,
    Role,
    Straggler,
)
from launchx.loglines import ROOT_FACTS, TRACEBACK, FailureEntry, LogLine
from launchx.logscan import SourceScan
from launchx.rulematch import Hit, RetryPolicyLike
from launchx.run.events import how_it_ended

Event = Mapping[str, object]

_TIMEOUTS = frozenset({"nccl_watchdog_timeout", "collective_timeout"})
_LAUNCHER_STOP = frozenset({-15, 143, -6, 134})  # SIGTERM from the launcher, abort after it
# Categories the run loop decides itself (``run.decide``), by the signal rule that names
# them: an ``attempt_end`` event with one of them outweighs what the logs say.
_DECIDED = frozenset({"hang", "aborted", "launcher_died"})  # categories the run loop decides
_DECIDED_PRIORITY = {"aborted": 20}  # a symptom of another node's failure; else 70
# Categories the run loop records that the logs may not show (a stop before any rank
# started prints nothing): the cause only when the logs name none.
_RECORDED = frozenset({"interrupted"})
# the signal rule that names a category the run loop recorded
_SIGNAL_RULE_OF = {"interrupted": "sigterm_all", "preempted": "scheduler_warning"}
# The exception an NCCL call's return code becomes on its rank ("[rank10]: ... unhandled
# system error"). NCCL's own WARN lines name the device, not the rank, so when they hold the
# cause, these say whose call it was.
_NCCL_RETURNS = frozenset({"nccl_system_error", "nccl_internal_error", "nccl_invalid_usage"})
# Lightning's DeadlockDetectedException, raised by a rank that caught an exception, after it
# killed the other ranks' processes (reconciliate_processes): see _lightning_raiser.
_LIGHTNING_RAISER = re.compile(r"\bDeadLock detected from rank: (\d+)\b")
_NCCL_HEADER = re.compile(r"^[^\s:]+:\d+:\d+ \[\d+\] .*\bNCCL (?:WARN|INFO)\b")


@dataclass(frozen=True)
class _Facts:
    """Per-rank facts gathered from every source of one attempt."""

    exits: dict[int, int]
    hosts: dict[int, str]
    nodes: dict[int, int]
    locals_: dict[int, int]
    world: set[int]
    root_entry: FailureEntry | None
    first_local: int | None = None  # torchrun's first "failed (exitcode: N) local_rank: L"


def analyse(
    scans: Sequence[SourceScan],
    *,
    dumps: Sequence[tuple[int | None, flightrec.Dump]] = (),
    events: Sequence[Event] = (),
    policy: RetryPolicyLike | None = None,
) -> Report:
    """The report for a run: one attempt, or every attempt of a launchx run."""
    by_attempt: dict[int | None, list[SourceScan]] = defaultdict(list)
    for s in scans:
        by_attempt[s.info.attempt].append(s)
    dumps_by: dict[int | None, list[flightrec.Dump]] = defaultdict(list)
    for attempt, dump in dumps:
        dumps_by[attempt].append(dump)
    numbered = sorted(
        a for a in {*by_attempt, *dumps_by, *_event_attempts(events)} if a is not None
    )
    if not numbered or (len(numbered) < 2 and not events):  # one attempt: nothing to compare
        # a console log of launchx run (a SLURM job's .out) ends in its own summary
        views = () if events else ownsummary.attempts([t.text for t in s.tail] for s in scans)
        scans = [_last_attempt(s, views) for s in scans]
        report = attempt_report(scans, [d for _a, d in dumps], policy)
        return _with_attempts(report, views) if views else report
    reports: dict[int, Report] = {}
    for a in numbered:
        shared = by_attempt[None] if a == numbered[-1] else []
        reports[a] = attempt_report(
            [*by_attempt.get(a, []), *shared],
            [*dumps_by.get(a, []), *dumps_by[None]],
            policy,
            decided=_decided(a, events, policy),
            # (another node stopped with it says "aborted": the interrupt is the cause)
            recorded=_decided(a, events, policy, _RECORDED | {"aborted"}),
            node_hosts=_node_hosts(events, a),
            world_size=_launched_world(events),
        )
    views = tuple(_attempt_view(a, reports[a], events) for a in numbered)
    failed = [v.attempt for v in views if v.outcome != "ok" and reports[v.attempt].primary]
    chosen = reports[failed[-1]] if failed else reports[numbered[-1]]
    if (why := _why_it_ended(events)) is not None:
        chosen = replace(chosen, notes=(*chosen.notes, why))
    return _with_attempts(
        replace(chosen, sources=sum(r.sources for r in reports.values())), views, bool(failed)
    )


def _last_attempt(scan: SourceScan, views: Sequence[AttemptView]) -> SourceScan:
    """The last attempt's part of a console log that holds several (launchx run retried):
    below the report of the attempt before it, where the source holds one report per failed
    attempt, as its summary counts them. The earlier attempts' errors are theirs: cited as
    this failure's evidence or "also seen", they would blame the wrong attempt."""
    failed = [v for v in views if v.outcome != "ok"]
    reports = scan.own_failures
    if len(views) < 2 or views[-1].outcome == "ok" or len(reports) != len(failed):
        return scan
    return scan.after(reports[-2]) if len(reports) >= 2 else scan


def _why_it_ended(events: Sequence[Event]) -> str | None:
    """Node 0's last word on why the run stopped where it is no finish: a failure called
    retryable still ends the run when it repeats, and the attempts alone do not say so."""
    end = next(
        (e for e in reversed(events) if e.get("event") == "run_end" and _node_of(e) == 0), None
    )
    if end is None:
        return None
    reason = end.get("reason")
    # (a requeue is no end: the job comes back; an interrupt and a finish say themselves)
    if how_it_ended(end) in (None, "finished", "interrupted", "requeued") or not reason:
        return None
    return f"the run ended: {reason}"


def _with_attempts(
    report: Report, views: tuple[AttemptView, ...], failed: bool | None = None
) -> Report:
    """``report`` (the failed attempt's, when one did) as the run's: its attempts, and
    no cause at all when they all finished. ``failed``: an attempt failed with a cause
    (default: an attempt was not ok, and the report has a cause)."""
    if failed is None:
        failed = report.primary is not None and any(v.outcome != "ok" for v in views)
    notes = list(report.notes)
    if failed and views[-1].outcome == "ok":
        notes.append(f"attempt {views[-1].attempt} succeeded after this failure.")
    report = replace(report, attempts=views, notes=tuple(notes))
    if report.succeeded:
        # what the logs of a run that finished match (a warning, a retried collective) did
        # not stop it: kept as findings, never as a cause, nor as ranks to blame
        return replace(report, primary=None, ranks=(), stragglers=())
    return report


def attempt_report(
    scans: Sequence[SourceScan],
    dumps: Sequence[flightrec.Dump] = (),
    policy: RetryPolicyLike | None = None,
    *,
    exits: Mapping[int, int] | None = None,
    decided: Diagnosis | None = None,
    recorded: Diagnosis | None = None,
    node_hosts: Mapping[int, str] | None = None,
    world_size: int | None = None,
) -> Report:
    """The report for the logs of one attempt (every rank and node of it). ``decided``, a
    cause chosen before the logs were read (the run loop's own verdict, ``_decided``, or
    ``failures.classify_attempt``'s choice from exit codes and error files), comes before
    what the logs say, and is then explained further like any cause (``_explained``);
    ``recorded`` (``_RECORDED``) is the cause only where the logs name none. ``world_size``:
    the ranks the launcher started, where launchx chose them (``_bigger_world``)."""
    scans = _without_foreign_locals(scans)
    lines = [ln for s in scans for ln in s.lines]
    facts = _facts(scans, exits)
    _event_hosts(facts, node_hosts or {})
    hits = rm.scan(lines)
    hits.extend(_version_split(scans, lines))
    stragglers = [
        *flightrec.stragglers(dumps),
        *collectives.from_watchdog((w for s in scans for w in s.watchdog), facts.world),
        *collectives.from_monitored_barrier(lines),
        *collectives.from_gloo_timeouts(lines, facts.world),
    ]
    root_rank = _first_failed(facts, hits, lines)
    primary, findings = _choose(hits, root_rank, facts, lines, policy)
    if primary is not None and primary.code in _PEER_LEFT:
        stragglers.extend(_left_early(scans, facts))
    if primary is not None and primary.rank is None and root_rank is None:
        primary, findings = _named_by_its_only_rank(
            primary, findings, hits, facts, lines, policy, scans
        )
    if decided is not None:
        others = tuple(f for f in findings if f.category != decided.category)
        primary, findings = decided, (decided, *others)
    elif primary is None and recorded is not None:
        primary, findings = recorded, (recorded, *findings)
    if world_size is not None:
        primary, findings = _bigger_world(primary, findings, lines, world_size, policy)
    primary, findings = _explained(primary, findings, scans, stragglers, policy)
    if decided is not None and primary is not None and primary.exit_code is None:
        # Naming the rank the others waited for drops the exit code of the rank that failed;
        # the run keeps it: `launchx run` exits with the training's own code (README).
        primary = replace(primary, exit_code=decided.exit_code, signal=decided.signal)
        findings = (primary, *findings[1:])
    if primary is not None and primary.category == "interrupted" and primary.rank is not None:
        # the stop came from outside, to every rank: the one whose words came first is no
        # more its cause than the others (they are all "stopped" in the ranks' view)
        primary = replace(primary, rank=None, host=None)
        findings = (primary, *findings[1:])
    if primary is not None and not _machine(primary.host) and primary.rank is not None:
        primary = replace(primary, host=facts.hosts.get(primary.rank))
        findings = (primary, *findings[1:])
    ranks = _rank_views(facts, hits, primary, stragglers)
    return Report(
        primary=primary,
        findings=findings,
        ranks=ranks,
        stragglers=tuple(stragglers),
        notes=(*_notes(scans), *_after_training(lines, primary)),
        sources=len(scans),
    )


# --------------------------------------------------------------------------- facts


# Names that name no machine: torchrun's summary says "host : localhost" where the host's
# fully qualified name resolves to loopback (socket.getfqdn() on many VMs and containers)
_NO_MACHINE = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def _node_hosts(events: Sequence[Event], attempt: int) -> dict[int, str]:
    """Each node's host for ``attempt``, as its launchx wrote it at the start of the run
    that ran the attempt (the last ``run_start`` of that node up to the attempt's start: a
    SLURM requeue continues the run on other machines). Only a one-node run's host stands
    for ranks whose node the logs do not say (key -1)."""
    began: dict[int, float] = {}
    for e in events:
        if e.get("event") == "attempt_start" and e.get("attempt") == attempt:
            began.setdefault(_node_of(e), _ts(e))
    out: dict[int, str] = {}
    one_node = False
    for e in events:
        host, node = e.get("host"), _node_of(e)
        if e.get("event") != "run_start" or not isinstance(host, str) or not _machine(host):
            continue
        if node in began and _ts(e) > began[node]:
            continue  # (a later run's start: another attempt's machine)
        out[node] = host
        if node == 0:
            one_node = e.get("nnodes") in (1, None)
    if one_node and 0 in out:
        out[-1] = out[0]
    return out


def _launched_world(events: Sequence[Event]) -> int | None:
    """The ranks a launchx run asked torchrun for (its ``run_start``: nodes times processes
    per node); None for another launcher, whose world the platform or srun chose."""
    for e in reversed(events):
        if e.get("event") != "run_start":
            continue
        nnodes, nproc = e.get("nnodes"), e.get("nproc_per_node")
        if e.get("launcher") == "torchrun" and isinstance(nnodes, int) and isinstance(nproc, int):
            return nnodes * nproc
        return None
    return None


def _node_of(e: Event) -> int:
    node = e.get("node")
    return node if isinstance(node, int) else 0


def _ts(e: Event) -> float:
    ts = e.get("ts")
    return float(ts) if isinstance(ts, int | float) else 0.0


def _machine(host: str | None) -> TypeGuard[str]:
    return host is not None and host != "" and host.lower() not in _NO_MACHINE


def _event_hosts(facts: _Facts, node_hosts: Mapping[int, str]) -> None:
    """The hosts a launchx run's events name (``_node_hosts``), for the ranks the logs name
    none for: by the rank's node, or a one-node run's for every rank."""
    for rank in facts.world:
        if rank in facts.hosts:
            continue
        host = node_hosts.get(facts.nodes.get(rank, -1))
        if host is not None:
            facts.hosts[rank] = host


def _facts(scans: Sequence[SourceScan], exits: Mapping[int, int] | None) -> _Facts:
    codes: dict[int, int] = {}
    hosts: dict[int, str] = {}
    nodes: dict[int, int] = {}
    locals_: dict[int, int] = {}
    world: set[int] = set()
    entries: list[FailureEntry] = []
    first_local: int | None = None
    nproc = _nproc(scans)
    for s in scans:
        info = s.info
        if info.rank is not None:
            world.add(info.rank)
            if info.node is not None:
                nodes[info.rank] = info.node
            if info.local_rank is not None:
                locals_[info.rank] = info.local_rank
            if _machine(info.host):
                hosts.setdefault(info.rank, info.host)
        for r, h in s.hosts:
            rank = r if r is not None else info.rank
            if rank is not None and _machine(h):
                hosts.setdefault(rank, h)
        world.update(ln.rank for ln in s.lines if ln.rank is not None)
        for e in _precise_entries(s):
            entries.append(e)
            world.add(e.rank)
            if info.node is not None:  # a node's summary lists that node's ranks
                nodes.setdefault(e.rank, info.node)
            if e.exit_code is not None:
                codes.setdefault(e.rank, e.exit_code)
            if _machine(e.host):
                hosts.setdefault(e.rank, e.host)
            if e.local_rank is not None:
                locals_.setdefault(e.rank, e.local_rank)
        for local, code, _line in s.first_failed:
            rank = _global_rank(local, code, s, nproc)
            if rank is None:
                continue
            codes.setdefault(rank, code)
            if first_local is None:
                first_local = rank
    first_local = _mpi_first(scans, codes) if first_local is None and not entries else first_local
    entries = entries or _srun_tasks(scans, codes, hosts)
    codes.update(exits or {})
    world.update(codes)
    root = _root_entry(entries)
    return _Facts(codes, hosts, nodes, locals_, world, root, first_local)


def _without_foreign_locals(scans: Sequence[SourceScan]) -> Sequence[SourceScan]:
    """The sources, less the rank a torchrun's "failed (exitcode: N) local_rank: L" line was
    read as where L is not a rank of its own file but one another file shows: the files of
    a job's nodes (one per host, no summary), where node 1's local rank 1 is rank 3, not the
    rank 1 node 0's file holds. That line then names no rank (none is invented); a lone
    file keeps it (a paste that shows only rank 3's traceback before "local_rank: 1" is one
    node's, whose rank 1 failed first)."""
    if len(scans) < 2:
        return scans
    named = [{ln.rank for ln in s.lines if ln.rank is not None and not ln.in_root} for s in scans]
    out = list(scans)
    for i, s in enumerate(scans):
        if s.entries or s.info.node is not None or s.info.rank is not None:
            continue
        elsewhere = set().union(*(n for j, n in enumerate(named) if j != i))
        foreign = {L for L, _c, _ln in s.first_failed if L not in named[i] and L in elsewhere}
        if foreign:
            out[i] = replace(
                s,
                lines=tuple(
                    replace(ln, rank=None) if ln.in_root and ln.rank in foreign else ln
                    for ln in s.lines
                ),
                first_failed=tuple(f for f in s.first_failed if f[0] not in foreign),
            )
    return out


def _global_rank(local: int, code: int, scan: SourceScan, nproc: int | None) -> int | None:
    """The global rank of the local rank torchrun's "failed (exitcode: N) local_rank: L" line
    names; None where the log does not tell (a rank is never invented). The summary beside
    it says (``rank: 9 (local_rank: 1)``), or the node's number and its processes per node;
    else local and global ranks agree, as on one node (``_without_foreign_locals`` has
    taken away the local ranks that another node's file shows to be its own)."""
    same = [e for e in scan.entries if e.local_rank == local]
    if len({e.rank for e in same}) > 1:
        same = [e for e in same if e.exit_code == code]
    if same and len({e.rank for e in same}) == 1:
        return same[0].rank
    node = scan.info.node
    if node:
        return node * nproc + local if nproc is not None else None
    if any(e.local_rank is not None and e.rank != e.local_rank for e in scan.entries):
        return None  # (the summary's ranks are another node's, and this one is not among them)
    return local


def _mpi_first(scans: Sequence[SourceScan], codes: dict[int, int]) -> int | None:
    """mpirun's first failed process, believed as a rank only where mpirun started the ranks
    itself: with one launcher per node under it (torchrun, DeepSpeed's), the process is a
    node's launcher, and that launcher's own report of its failed rank (its summary, its
    "failed (exitcode" line, "exits with return code") is in some source; the caller looks
    at all of them first."""
    first = next((m for s in scans for m in s.mpi_first), None)
    if first is None or any(s.first_failed for s in scans):
        return None
    rank, code, _line = first
    codes.setdefault(rank, code)
    return rank


def _srun_tasks(
    scans: Sequence[SourceScan], codes: dict[int, int], hosts: dict[int, str]
) -> list[FailureEntry]:
    """srun's "task N: Exited ..." lines, believed only where srun started the ranks
    itself: no torchrun between them (its summary or its "failed (exitcode" line would be
    there) and no rank in the log that is not one of srun's tasks (a per-node launcher's
    ranks: deepspeed, accelerate, mp.spawn under srun)."""
    entries = [e for s in scans for e in s.task_exits]
    if not entries or any(s.entries or s.first_failed or s.mpi_first for s in scans):
        return []
    tasks = {e.rank for e in entries}
    if any(ln.rank is not None and ln.rank not in tasks for s in scans for ln in s.lines):
        return []
    for e in entries:
        codes.setdefault(e.rank, e.exit_code or 0)
        if e.host:
            hosts.setdefault(e.rank, e.host)
    return entries


def _precise_entries(scan: SourceScan) -> list[FailureEntry]:
    """torchrun's summary says the time to the second; its "failed (exitcode: N)" log line,
    written as the failure was seen, to the microsecond: with several nodes' summaries in
    the same second, that line tells which failed first."""
    times = [ln.ts for _l, _c, ln in scan.first_failed if ln.ts is not None]
    precise = min(times, default=None)
    out = []
    for e in scan.entries:
        if e.is_root and precise is not None and (e.ts is None or abs(precise - e.ts) < 1.0):
            e = replace(e, ts=precise)
        out.append(e)
    return out


def _nproc(scans: Sequence[SourceScan]) -> int | None:
    """Processes per node: from torchrun's local-rank directories, else from a later node's
    summary (``rank: 2 (local_rank: 0)`` on node 1 says 2 per node), as in launchx's flat
    ``attempt-N/rank-R.log`` + ``launcher-node-K.log`` layout."""
    known = {s.info.nproc for s in scans if s.info.nproc is not None}
    if len(known) == 1:
        return known.pop()
    locals_ = {s.info.local_rank for s in scans if s.info.local_rank is not None}
    if locals_:
        return max(locals_) + 1
    for s in scans:
        node = s.info.node
        for e in s.entries:
            if node and e.local_rank is not None and (e.rank - e.local_rank) % node == 0:
                return (e.rank - e.local_rank) // node
    return None


def _root_entry(entries: Sequence[FailureEntry]) -> FailureEntry | None:
    """torchrun's first observed failure; with several nodes' summaries, the earliest."""
    roots = [e for e in entries if e.is_root]
    if not roots:
        return None

    def key(e: FailureEntry) -> tuple[float, bool, int]:
        stopped = e.exit_code in _LAUNCHER_STOP
        return (e.ts if e.ts is not None else float("inf"), stopped, e.rank)

    return min(roots, key=key)


def _first_failed(facts: _Facts, hits: Sequence[Hit], lines: Sequence[LogLine]) -> int | None:
    if facts.root_entry is not None:
        return facts.root_entry.rank
    if facts.first_local is not None:
        return facts.first_local
    if (raiser := _lightning_raiser(hits, lines)) is not None:
        return raiser
    # Timeouts fire late by design (after the process-group timeout): never "first".
    timed = [
        (h.ts, h.first_index, h.rank)
        for h in hits
        if h.ts is not None
        and h.rank is not None
        and fr.tier(h.rule.priority) == 1
        and h.rule.category not in _TIMEOUTS
    ]
    if timed:
        return min(timed)[2]
    return None


def _named_by_its_only_rank(
    primary: Diagnosis,
    findings: tuple[Diagnosis, ...],
    hits: list[Hit],
    facts: _Facts,
    lines: Sequence[LogLine],
    policy: RetryPolicyLike | None,
    scans: Sequence[SourceScan],
) -> tuple[Diagnosis, tuple[Diagnosis, ...]]:
    """The cause, chosen again with the one rank its category's lines name as the rank
    that failed (``_only_rank``), or else the one rank that printed a traceback
    (``_only_raiser``): the rank only says who failed, so a choice it would change is not
    taken, and the other findings keep the ranks they had."""
    only = _only_rank(hits, primary.category)
    if only is None:
        only = _only_raiser(hits, primary.category, [*lines, *(ln for s in scans for ln in s.tail)])
    if only is None:
        return primary, findings
    ranked, _ = _choose(hits, only, facts, lines, policy)
    if ranked is None or ranked.code != primary.code or ranked.rank != only:
        return primary, findings
    return ranked, (ranked, *findings[1:])


def _only_rank(hits: Sequence[Hit], category: str) -> int | None:
    """The one rank the cause's own lines name, when its first line lost the prefix the
    others have (a kernel's device assert above "[rank0]: RuntimeError: CUDA error: ..."):
    that rank failed. A rank that also reported a failure of another category (a timeout, a
    lost peer, NCCL's error beside a crash) is more often the survivor of the cause, so it
    names nothing; nor does a warning. Only lines a rule read count, so that the anchored
    scan and the scan of every line agree."""
    own: set[int] = set()
    other: set[int] = set()
    for h in hits:
        into = own if h.rule.category == category else other
        into.update(ln.rank for ln in h.lines if ln.rank is not None and not ln.warned)
    return own.pop() if len(own) == 1 and not own & other else None


# Causes a rank raises as a Python exception of its own, so that the rank which printed the
# traceback is the one that failed. Not a signal (a killed or crashed rank prints no
# traceback: the one that did survived it), a wait on a peer, or a launcher's crash.
_RAISED_HERE = fr.RAISED_BY_THE_SCRIPT | {
    "cuda_error",
    "cuda_config_error",
    "nccl_config_error",
    "nccl_invalid_usage",
    "duplicate_gpu",
}


def _only_raiser(hits: Sequence[Hit], category: str, lines: Sequence[LogLine]) -> int | None:
    """The one rank whose prefix stands on a traceback's first line, when the cause's line
    came without the prefix (a kernel's device assert, a loader's message on stderr) and
    the traceback it raised was cut before its exception line, or ends in one of that
    failure's consequences (a build's CalledProcessError); ``lines`` are the kept lines and
    each source's tail, where a paste that stops mid-traceback leaves it. Only for a cause a
    rank raises itself (``_RAISED_HERE``), and not when a rule read any other cause on a
    rank (a lost peer, a timeout: that rank may be the survivor) or a line on another rank."""
    if category not in _RAISED_HERE:
        return None
    raisers = {ln.rank for ln in lines if ln.rank is not None and TRACEBACK[:-1] in ln.text}
    if len(raisers) != 1:
        return None
    for h in hits:
        ranked = {ln.rank for ln in h.lines if ln.rank is not None}
        if ranked and (h.rule.category not in _RAISED_HERE or not ranked <= raisers):
            return None
    return raisers.pop()


def _lightning_raiser(hits: Sequence[Hit], lines: Sequence[LogLine]) -> int | None:
    """The rank Lightning's DeadlockDetectedException names, believed when the log holds a
    cause other than a timeout or a lost peer: Lightning raises it on any rank that caught
    an exception while a peer had not finished, so a rank whose exception was only a
    timeout or a lost peer (a peer's silent death) names itself too. Several ranks named in
    one log: none is believed, since the causes beside them may be any one's."""
    named = {int(m.group(1)) for ln in lines if (m := _LIGHTNING_RAISER.search(ln.text))}
    if len(named) != 1:
        return None
    caused = any(
        fr.tier(h.rule.priority) >= 1 and h.rule.category not in fr.WAITING_ON_PEER for h in hits
    )
    return named.pop() if caused else None


def _version_split(scans: Sequence[SourceScan], lines: Sequence[LogLine]) -> list[Hit]:
    """NCCL versions that differ between ranks (or nodes), from NCCL's INFO lines: one
    line of evidence naming who runs which version (no rank is "the" root of it)."""
    seen: dict[str, list[str]] = defaultdict(list)
    for s in scans:
        for rank, version in s.nccl_versions:
            who = f"rank {rank}" if rank is not None else s.info.name
            seen[version].append(who)
    if len(seen) < 2:
        return []
    first = next((ln for ln in lines if "NCCL version" in ln.text), None)

    def on(who: list[str]) -> str:
        named = sorted({w for w in who if w})
        return f" on {', '.join(named)}" if named else ""

    summary = "; ".join(f"NCCL {v}{on(w)}" for v, w in sorted(seen.items()))
    line = LogLine(
        text=summary,
        rank=None,
        index=first.index if first else 0,
        source=first.source if first else "",
        line_no=first.line_no if first else 0,
    )
    hit = rm.signal_hit("nccl_versions_differ", 91)
    return [Hit(hit.rule, (line,), None, (summary,))]


# what a rank says when its peer's process is gone (gloo's "Connection closed by peer"): the
# peer may have ended without an error
_PEER_LEFT = frozenset({"LX522"})
# torchrun's agent stopping a rank still running when another failed
_CLOSING = re.compile(r"Sending process \d+ closing signal SIG(?:TERM|KILL|INT)")


def _left_early(scans: Sequence[SourceScan], facts: _Facts) -> list[Straggler]:
    """Ranks that ended without an error while another rank still talked to them: a rank
    with a log of its own that torchrun's summary of its one node does not list (the
    summary lists every rank that failed or that its agent stopped, so such a rank had
    exited 0 first) and whose lines hold no error. The ranks ran different numbers of steps
    or collectives (uneven data); the other rank's closed connection is the consequence."""
    nodes = {s.info.node for s in scans if s.info.node is not None}
    # (the summary of launchx's own record of torchrun's output: a SLURM task's file, which
    # holds a node's torchrun, summary and all, is no one rank's)
    if not any(s.info.launcher and s.entries for s in scans) or len(nodes) > 1:
        return []
    # torch before 2.9 lists only the rank that failed, not those its agent then stopped:
    # more ranks stopped than the summary lists with a signal means it is such a summary
    closed = sum(1 for s in scans for ln in s.lines if _CLOSING.search(ln.text))
    listed = sum(1 for code in facts.exits.values() if code in (-15, -9, -2))
    if closed > listed:
        return []
    said = {ln.rank for s in scans for ln in s.lines if ln.rank is not None}
    quiet = sorted(
        {
            s.info.rank
            for s in scans
            if s.info.rank is not None and s.line_count and not s.info.launcher
        }
        - set(facts.exits)
        - said
    )
    waiting = sorted(r for r, code in facts.exits.items() if code)
    if not quiet or not waiting:
        return []
    it = "it" if len(quiet) == 1 else "them"
    text = (
        f"{collectives.plural(quiet)} ended without an error while {collectives.plural(waiting)} "
        f"still waited for {it} (torchrun's summary lists no failure of {it}: exit 0): the "
        "ranks ran different numbers of steps or collectives (uneven data across ranks, a "
        "rank that left a loop early)."
    )
    return [Straggler("summary", "silent", tuple(quiet), tuple(waiting), None, None, "", text)]


def _prelude_shows(scans: Sequence[SourceScan], patterns: Sequence[str]) -> bool:
    """The lines just before the first timeout match one of ``patterns`` (the work the
    ranks were doing when it started: ``fr.RANK0_WORK``, ``fr.EVALUATION_WORK``)."""
    words = [re.compile(p) for p in patterns]
    return any(w.search(line) for s in scans for line in s.prelude for w in words)


def _explained(
    primary: Diagnosis | None,
    findings: tuple[Diagnosis, ...],
    scans: Sequence[SourceScan],
    stragglers: Sequence[Straggler],
    policy: RetryPolicyLike | None,
) -> tuple[Diagnosis | None, tuple[Diagnosis, ...]]:
    """The cause explained by what the ranks' lines say beyond its own: the rank the others
    waited for, rank-0-only work or an evaluation pass before a timeout, ranks waiting in
    different collectives. Each may make a timeout final (not retried, even from a
    checkpoint), so ``launchx run`` and ``launchx diagnose`` decide the same logs alike."""
    rank0_work = _prelude_shows(scans, fr.RANK0_WORK)
    primary, findings = _with_stragglers(primary, findings, stragglers, policy, rank0_work)
    if _prelude_shows(scans, fr.EVALUATION_WORK):
        primary, findings = _in_evaluation(primary, findings, policy)
    diverged = collectives.mismatched(w for s in scans for w in s.watchdog)
    if diverged is not None:
        primary, findings = _diverged(primary, findings, policy, *diverged)
    return primary, findings


def _diverged(
    primary: Diagnosis | None,
    findings: tuple[Diagnosis, ...],
    policy: RetryPolicyLike | None,
    seq: int,
    by_op: Mapping[str, Sequence[int]],
) -> tuple[Diagnosis | None, tuple[Diagnosis, ...]]:
    """Ranks that timed out in different collectives at one sequence number took different
    paths through the code (``collectives_diverged``): not retried."""
    if primary is None or primary.category not in _TIMEOUTS or primary.tier >= 2:
        return primary, findings
    where = ", ".join(f"{collectives.ranges(r)} in {op}" for op, r in by_op.items())
    cause = f"At collective #{seq} the ranks waited in different collectives ({where}): "
    updated = _refine(primary, "collectives_diverged", lambda sr: cause + sr, policy)
    return updated, (updated, *findings[1:])


# gloo's store key for the address of the peer it connects to, that peer's rank last (torch
# 2.x: "wait timeout after 20000ms, keys: /default_pg/0//cpu//0/2"; a subgroup's name in
# place of "default_pg/0")
_AWAITED_PEER = re.compile(r"\bkeys: \S*//cpu//\d+/(\d+)\b")
# (and a rank torchrun names first that printed nothing but the same wait: "unknown")
_WAITED = fr.TIMEOUT_CATEGORIES | {"rendezvous_timeout", "unknown"}


def _bigger_world(
    primary: Diagnosis | None,
    findings: tuple[Diagnosis, ...],
    lines: Sequence[LogLine],
    world_size: int,
    policy: RetryPolicyLike | None,
) -> tuple[Diagnosis | None, tuple[Diagnosis, ...]]:
    """A timeout whose store waited for the first rank past those the launcher started is the
    script's own world size, not a late node or rank (``world_larger_than_launched``): the
    same wait comes on every start, so it is not retried. Whichever rank torchrun names
    first, every rank waited alike, so the rank stays the one the cause was given."""
    if primary is None or primary.category not in _WAITED:
        return primary, findings
    # gloo connects to its peers in rank order: a world larger than the launch waits first
    # for rank world_size (a key beyond it is another world's, one the script set up itself)
    beyond = [
        (ln, int(m.group(1)))
        for ln in lines
        if (m := _AWAITED_PEER.search(ln.text)) and int(m.group(1)) == world_size
    ]
    if not beyond:
        return primary, findings
    # the evidence is the named rank's own wait where it has one
    line, awaited = min(beyond, key=lambda b: b[0].rank != primary.rank)
    sr = fr.SIGNAL_RULES["world_larger_than_launched"]
    rule = fr.Rule(sr.name, sr.category, sr.code, 36, (), sr.cause, sr.fix, retryable=False)
    made = rm.diagnosis(Hit(rule, (line,)), policy, primary.rank, primary.exit_code)
    started = "rank 0" if world_size == 1 else f"ranks 0-{world_size - 1}"
    updated = replace(
        made,
        cause=f"{sr.cause} Its store waited for rank {awaited}; the launcher started {started}.",
        tier=primary.tier,
        host=primary.host,
        signal=primary.signal,
    )
    return updated, (updated, *findings[1:])


def _refine(
    primary: Diagnosis, signal: str, cause: Callable[[str], str], policy: RetryPolicyLike | None
) -> Diagnosis:
    """``primary`` explained further by what the view read beyond its lines (``signal``, a
    ``failure_rules.SIGNAL_RULES`` entry that is never retried unless the policy says so):
    its code, fix and retry decision, and ``cause`` made from the signal rule's cause."""
    sr = fr.SIGNAL_RULES[signal]
    rule = fr.Rule(sr.name, primary.category, sr.code, 36, (), sr.cause, sr.fix, retryable=False)
    return replace(
        primary,
        cause=cause(sr.cause),
        fix=sr.fix,
        code=sr.code,
        retryable=rm.retryable(primary.category, rule, policy),
        retry_on_progress=rm.retry_on_progress(primary.category, rule, policy),
    )


def _in_evaluation(
    primary: Diagnosis | None, findings: tuple[Diagnosis, ...], policy: RetryPolicyLike | None
) -> tuple[Diagnosis | None, tuple[Diagnosis, ...]]:
    """A timeout that came at an evaluation pass is not retried (``timeout_in_evaluation``):
    it is met again at the next evaluation, whichever rank was late."""
    if primary is None or primary.category not in _TIMEOUTS or primary.tier >= 2:
        return primary, findings
    if not (primary.retryable or primary.retry_on_progress):
        # already explained (rank 0 behind, the first collectives), or the policy decided
        return primary, findings
    own = _sentence(primary.cause)
    updated = _refine(primary, "timeout_in_evaluation", lambda sr: f"{_sentence(sr)} {own}", policy)
    return updated, (updated, *findings[1:])


# The frameworks' own words for a training that reached its end: HF's Trainer at the end of
# train(), Lightning when fit() stops at max_epochs or max_steps.
_TRAINING_DONE = re.compile(
    r"Training completed\. Do not forget to share your model"
    r"|`?Trainer\.fit` stopped: `max_(?:epochs|steps)=\d+` reached"
)


def _after_training(lines: Sequence[LogLine], primary: Diagnosis | None) -> tuple[str, ...]:
    """A failure that came after the framework said the training reached its end: at the
    end or at exit (a final save or evaluation, the process group's teardown), with the
    trained weights and the last checkpoint likely already written."""
    if primary is None or primary.category in ("interrupted", "unknown"):
        return ()
    done = next((ln for ln in lines if _TRAINING_DONE.search(ln.text)), None)
    if done is None:
        return ()
    who = f"rank {done.rank}" if done.rank is not None else "the log"
    where = f" ({done.source}:{done.line_no})" if done.source else ""
    return (
        f"{who} said the training reached its end before this failure{where}: it came "
        "after training, at a final save or evaluation or at exit (the process group's "
        "teardown: call torch.distributed.destroy_process_group() before the script "
        "returns); its weights and last checkpoint are likely written.",
    )


def _notes(scans: Sequence[SourceScan]) -> tuple[str, ...]:
    notes = []
    cut = [s.info.name for s in scans if s.truncated]
    if cut:
        notes.append(
            f"{len(cut)} log(s) had more distinct error lines than kept: the first and "
            "the latest were read, the middle skipped."
        )
    return tuple(notes)


# --------------------------------------------------------------------------- the cause


def _choose(
    hits: list[Hit],
    root_rank: int | None,
    facts: _Facts,
    lines: Sequence[LogLine],
    policy: RetryPolicyLike | None,
) -> tuple[Diagnosis | None, tuple[Diagnosis, ...]]:
    def rank_of(h: Hit) -> int | None:
        # one hit stands for the same message on several ranks (every rank raising the
        # same KeyError): named by its first rank, it is the root's too when the root is
        # among them (which cause is chosen stays as it was: only the rank it names)
        if (
            root_rank is not None
            and h.rank != root_rank
            and fr.tier(h.rule.priority) > 0  # (a symptom on the root still says nothing)
            and any(ln.rank == root_rank for ln in h.lines)
        ):
            return root_rank
        return h.rank

    def key(h: Hit) -> tuple[int, bool, bool, int, int]:
        on_root = root_rank is None or h.rank is None or h.rank == root_rank
        # A timeout is a root-cause tier but the last of it: any real error beats it.
        waited = h.rule.category in _TIMEOUTS
        return (fr.tier(h.rule.priority), not waited, on_root, h.rule.priority, -h.first_index)

    best = rm.best_per_category(hits, key)
    root_exit = facts.exits.get(root_rank) if root_rank is not None else None
    findings = tuple(
        rm.diagnosis(
            h,
            policy,
            rank if (rank := rank_of(h)) is not None else root_rank,
            facts.exits.get(rank) if rank is not None else root_exit,
        )
        for h in best
    )
    if not findings:
        if root_rank is not None and root_exit not in (None, 0):
            silent = rm.unknown(policy, root_rank, root_exit, _root_lines(lines, facts))
            return silent, (silent,)
        return None, ()
    findings = _killed_after_exception(best[0], hits, findings, policy)
    top = findings[0]
    if (
        top.rank is None
        and root_rank is None
        and any(_NCCL_HEADER.match(ln.text) for ln in best[0].lines)
        and (owner := _nccl_caller(hits)) is not None
    ):
        code = facts.exits.get(owner)
        top = replace(top, rank=owner, exit_code=code, signal=rm.signal_of(code))
        findings = (top, *findings[1:])
    if top.rank is None and root_rank is None and (named := _named_rank(best[0])) is not None:
        code = facts.exits.get(named)
        top = replace(top, rank=named, exit_code=code, signal=rm.signal_of(code))
        findings = (top, *findings[1:])
    if (
        fr.tier(best[0].rule.priority) == 0
        and root_rank is not None
        and top.rank is not None
        and top.rank != root_rank
    ):
        root_lines = _root_lines(lines, facts)
        silent = rm.unknown(policy, root_rank, root_exit, root_lines)
        return silent, (silent, *findings)
    return top, findings


def _killed_after_exception(
    raised: Hit,
    hits: Sequence[Hit],
    findings: tuple[Diagnosis, ...],
    policy: RetryPolicyLike | None,
) -> tuple[Diagnosis, ...]:
    """A rank that printed an exception and then ended by SIGKILL, as its launcher reports
    that rank, did not die of the exception (an uncaught one exits with 1): the traceback
    was caught and logged, and something outside killed the process later (horovod's
    elastic tests kill a rank on purpose; an OOM kill). The SIGKILL is the cause. Not when
    torchrun's summary holds the exception (its error file is written only for an uncaught
    one, so a SIGKILL after it is the launcher ending a rank that hung on the way out), nor
    from a kill line without a rank of its own."""
    rank = raised.rank
    if (
        findings[0].category != "user_code_error"
        or rank is None
        or any(ln.in_root for ln in raised.lines)
    ):
        return findings
    for h in hits:
        own = [i for i, ln in enumerate(h.lines) if ln.rank == rank]
        if h.rule.code in fr.SIGKILL_REPORTS and own:
            lines = tuple(h.lines[i] for i in own)
            shown = tuple(h.shown[i] if i < len(h.shown) else h.lines[i].text for i in own)
            killed = rm.diagnosis(replace(h, lines=lines, shown=shown), policy, rank, -9)
            return (killed, *(f for f in findings if f.category != "killed"))
    return findings


def _named_rank(hit: Hit) -> int | None:
    """The rank the matched message names in its ``named_rank`` group (failure_rules.Rule):
    a group's rank, so it is believed only where nothing else in the log names one."""
    for ln in hit.lines:
        for m in (p.search(ln.text) for p in _named_rank_patterns(hit.rule.patterns)):
            if m is not None and m.group("named_rank") is not None:
                return int(m.group("named_rank"))
    return None


@cache
def _named_rank_patterns(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in patterns if "(?P<named_rank>" in p)


def _nccl_caller(hits: Sequence[Hit]) -> int | None:
    """The one rank whose NCCL call returned the error, when the log names no other rank.
    Only for a cause read from NCCL's own lines: a segfault or an OOM kill beside a rank's
    NCCL error is more often the peer whose death that rank saw."""
    ranks: set[int] = set()
    for h in hits:
        named = {ln.rank for ln in h.lines if ln.rank is not None}
        if named and h.rule.category not in _NCCL_RETURNS:
            return None
        ranks |= named
    return ranks.pop() if len(ranks) == 1 else None


def _root_lines(lines: Sequence[LogLine], facts: _Facts) -> list[LogLine]:
    """The lines that say how the first failed rank ended: torchrun's root cause entry, or
    srun's report of that task."""
    e = facts.root_entry
    return [
        ln
        for ln in lines
        if (ln.in_root and ROOT_FACTS.search(ln.text))
        or (
            e is not None
            and (ln.source, ln.line_no) == (e.source, e.line_no)
            and ln.text.startswith("srun: ")
        )
    ]


def _with_stragglers(
    primary: Diagnosis | None,
    findings: tuple[Diagnosis, ...],
    stragglers: Sequence[Straggler],
    policy: RetryPolicyLike | None,
    rank0_work: bool = False,
) -> tuple[Diagnosis | None, tuple[Diagnosis, ...]]:
    """A rank the others waited for is the root of a timeout (or of a silent failure).
    Ranks only counted (``Straggler.counted``) are named in the cause, never made its root."""
    named = [s for s in stragglers if s.ranks]
    if not named:
        return primary, findings
    # a rank's own report that it never reached the collective outweighs a rank's silence,
    # and silence the logs show outweighs silence only counted
    s = min(named, key=lambda s: (s.counted, s.kind != "behind"))
    if primary is None and s.kind == "failed":
        # the rank named failed of something only its own output says
        made = replace(
            rm.unknown(policy, s.ranks[0], None),
            cause=f"{s.text} No recognised error of it is in these logs.",
            fix=f"read rank {s.ranks[0]}'s own output for its error (rank-{s.ranks[0]}.log in "
            f"a launchx run's log dir, or its node's log); {fr.UNKNOWN_FIX}",
            evidence=(s.text,),
            where=(s.where,),
        )
        return made, (made,)
    if primary is None and not s.counted:
        sr = fr.SIGNAL_RULES["missing_from_collective"]
        made = Diagnosis(
            category=sr.category,
            retryable=rm.retryable(sr.category, None, policy),
            retry_on_progress=rm.retry_on_progress(sr.category, None, policy),
            cause=f"{s.text} {_sentence(sr.cause)}",
            fix=sr.fix,
            evidence=(s.text,),
            rank=s.ranks[0] if len(s.ranks) == 1 else None,
            code=sr.code,
            tier=1,
            where=(s.where,),
        )
        return made, (made,)
    if primary is None or primary.category not in fr.WAITING_ON_PEER or primary.tier >= 2:
        return primary, findings
    # a counted straggler is named, not blamed: the waiting rank stays the one named (its
    # watchdog fired first, as far as the logs go)
    blamed = len(s.ranks) == 1 and not s.counted
    if (
        s.ranks == (0,)
        and s.waiting
        and rank0_work
        and primary.category != "unknown"
        and not s.counted
    ):
        # Rank 0 alone kept everyone waiting: rank-0-only work longer than the timeout.
        what = (f"collective #{s.seq}" if s.seq is not None else "a collective") + (
            f" ({s.op})" if s.op else ""
        )
        waited = "ranks" if len(s.waiting) > 1 else "rank"
        busy = (
            f"{waited} {collectives.ranges(s.waiting)} timed out in {what} while rank 0 was "
            "still busy alone: "
        )
        base = _refine(primary, "rank0_behind", lambda sr: busy + sr, policy)
    else:
        cause = f"{s.text} {_sentence(primary.cause)}" if primary.category != "unknown" else s.text
        base = replace(primary, cause=cause, fix=_straggler_fix(s, primary, blamed))
    updated = replace(
        base,
        rank=s.ranks[0] if blamed else primary.rank,
        evidence=(s.text, *primary.evidence)[: rm.MAX_EVIDENCE],
        where=(s.where, *primary.where)[: rm.MAX_EVIDENCE],
        host=None if blamed else primary.host,
        exit_code=None if blamed else primary.exit_code,
        signal=None if blamed else primary.signal,
    )
    return updated, (updated, *findings[1:])


def _straggler_fix(s: Straggler, primary: Diagnosis, blamed: bool) -> str:
    """What to do about the rank the others waited for: the missing rank's call site when its
    own reports show it never reached the collective, that rank by number when it is the one
    blamed for a timeout (the timeout rules' fix starts by asking to find it), else the
    finding's own fix."""
    if s.kind == "behind":
        return fr.SIGNAL_RULES["missing_from_collective"].fix
    if blamed and primary.category in fr.TIMEOUT_CATEGORIES:
        return fr.NAMED_STRAGGLER_FIX.format(rank=s.ranks[0])
    return primary.fix


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


# --------------------------------------------------------------------------- ranks


def _rank_views(
    facts: _Facts,
    hits: Sequence[Hit],
    primary: Diagnosis | None,
    stragglers: Sequence[Straggler],
) -> tuple[RankView, ...]:
    own: dict[int, Hit] = {}
    for h in sorted(hits, key=lambda h: (fr.tier(h.rule.priority), h.rule.priority)):
        for rank, lines in _by_rank(h).items():
            own[rank] = Hit(h.rule, lines, h.timestamp, tuple(ln.text for ln in lines))
    roots = _root_ranks(primary, own)
    behind = {r for s in stragglers for r in s.ranks}
    facts.world.update(behind)
    facts.world.update(r for s in stragglers for r in s.waiting)
    views = []
    for rank in sorted(facts.world):
        hit = own.get(rank)
        code = facts.exits.get(rank)
        role = _role(rank, hit, code, primary, roots, behind)
        summary, where = "", ""
        if hit is not None:
            summary = hit.shown[-1] if hit.shown else hit.lines[-1].text
            where = hit.lines[-1].where()
        views.append(
            RankView(
                rank=rank,
                role=role,
                host=facts.hosts.get(rank) or (hit.host if hit and _machine(hit.host) else None),
                node=facts.nodes.get(rank),
                local_rank=facts.locals_.get(rank),
                exit_code=code,
                signal=rm.signal_of(code),
                category=hit.rule.category if hit else None,
                summary=summary[:240],
                where=where,
            )
        )
    return tuple(views)


def _by_rank(h: Hit) -> dict[int, tuple[LogLine, ...]]:
    """A hit's lines per rank (one rule matches lines of many ranks)."""
    out: dict[int, list[LogLine]] = defaultdict(list)
    for ln in h.lines:
        if ln.rank is not None:
            out[ln.rank].append(ln)
    return {r: tuple(lines) for r, lines in out.items()}


def _root_ranks(primary: Diagnosis | None, own: Mapping[int, Hit]) -> set[int]:
    if primary is None or primary.rank is None:
        return set()
    roots = {primary.rank}
    for rank, h in own.items():
        same = h.rule.category == primary.category and h.rule.category not in _TIMEOUTS
        if fr.tier(h.rule.priority) >= 1 and same:
            roots.add(rank)
    return roots


def _role(
    rank: int,
    hit: Hit | None,
    code: int | None,
    primary: Diagnosis | None,
    roots: set[int],
    behind: set[int],
) -> Role:
    if primary is not None and primary.tier >= 2:
        return "stopped"
    if rank in roots or (rank in behind and primary is not None and primary.rank == rank):
        return "root"
    tier = fr.tier(hit.rule.priority) if hit else -1
    if hit is not None and hit.rule.category in _TIMEOUTS and roots:
        return "collateral"  # it waited for the root
    if tier >= 1:
        return "also_failed"
    if roots and (hit is not None or code not in (None, 0)):
        return "collateral"
    return "unknown"


# --------------------------------------------------------------------------- attempts


def _event_attempts(events: Iterable[Event]) -> set[int]:
    out = set()
    for ev in events:
        a = ev.get("attempt")
        if isinstance(a, int) and not isinstance(a, bool):
            out.add(a)
    return out


def _decided_by_the_loop(end: Event, categories: frozenset[str]) -> bool:
    """An ``attempt_end`` whose category the run loop chose itself: one of ``categories``,
    or ``preempted`` without a cause (the scheduler's warning came, and the loop stopped
    the attempt there; a preemption the logs showed records the logs' cause)."""
    category = end["category"]
    return category in categories or (category == "preempted" and not end.get("cause"))


def _decided(
    attempt: int,
    events: Sequence[Event],
    policy: RetryPolicyLike | None,
    categories: frozenset[str] = _DECIDED,
) -> Diagnosis | None:
    """The cause the run loop decided for ``attempt`` (its ``attempt_end`` event names one
    of ``categories``), with the rank, cause and retry decision that event recorded
    and, for a hang, the watch's headline as evidence; None when it decided none."""
    current: object = None
    said: list[str] = []
    ends: list[Event] = []
    for ev in events:
        if ev.get("event") == "attempt_start":
            current = ev.get("attempt")
        elif ev.get("event") == "watch" and current == attempt and ev.get("kind") == "hang":
            said += [str(ev["headline"])] if isinstance(ev.get("headline"), str) else []
        if ev.get("attempt") == attempt and isinstance(ev.get("category"), str):
            ends.append(ev)
    # With several nodes each writes its own events: a node stopped because another failed
    # says "aborted"; the cause is the other node's. A cause from the logs is the logs' word.
    if not ends or any(not _decided_by_the_loop(e, categories) for e in ends):
        return None
    end = min(ends, key=lambda e: e["category"] == "aborted")
    category = str(end["category"])
    rank = next((v for v in (end.get("root_rank"), end.get("rank")) if _is_int(v)), None)
    hit = rm.signal_hit(
        _SIGNAL_RULE_OF.get(category, category), _DECIDED_PRIORITY.get(category, 70)
    )
    diag = rm.diagnosis(hit, policy, rank if isinstance(rank, int) else None, None)
    cause, retry = end.get("cause"), end.get("retryable")
    return replace(
        diag,
        cause=cause if isinstance(cause, str) and cause else diag.cause,
        retryable=retry if isinstance(retry, bool) else diag.retryable,
        retry_on_progress=diag.retry_on_progress and not isinstance(retry, bool),
        evidence=tuple(said[-1:]),
        where=("events.jsonl",) if said else (),
    )


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _attempt_view(attempt: int, report: Report, events: Sequence[Event]) -> AttemptView:
    """What the attempt's logs say, completed (and overridden) by its events: an event
    with ``exit_code`` ends the attempt; ``category``, ``retryable``, ``rank``/``root_rank``
    and ``cause`` are taken when present; ``interrupted`` or an ``outcome`` word too."""
    mine = [ev for ev in events if ev.get("attempt") == attempt]
    p = report.primary
    exit_code = p.exit_code if p else None
    category = p.category if p else None
    retry: bool | None = p.retryable if p else None
    rank = p.rank if p else None
    cause = p.cause if p else ""
    outcome_word: str | None = None
    for ev in mine:
        code = ev.get("exit_code")
        if isinstance(code, int) and not isinstance(code, bool):
            exit_code = code
        if isinstance(ev.get("category"), str):
            category = str(ev["category"])
        if isinstance(ev.get("retryable"), bool):
            retry = bool(ev["retryable"])
        for k in ("root_rank", "rank"):
            v = ev.get(k)
            if isinstance(v, int) and not isinstance(v, bool):
                rank = v
                break
        if isinstance(ev.get("cause"), str):
            cause = str(ev["cause"])
        if ev.get("interrupted") is True:
            outcome_word = "interrupted"
        for k in ("outcome", "status"):
            if isinstance(ev.get(k), str):
                outcome_word = str(ev[k]).lower()
    outcome = _outcome(outcome_word, exit_code, category, report)
    if outcome == "ok":
        category, retry, rank, cause = None, None, None, ""
    host = next((r.host for r in report.ranks if r.rank == rank), None)
    return AttemptView(attempt, outcome, category, retry, rank, host, exit_code, cause)


def _outcome(word: str | None, code: int | None, category: str | None, report: Report) -> Outcome:
    if word in ("ok", "succeeded", "success", "completed", "done"):
        return "ok"
    if word in ("interrupted", "stopped", "cancelled"):
        return "interrupted"
    if word in ("failed", "failure", "error"):
        return "failed"
    if category == "interrupted":
        return "interrupted"
    if code == 0:
        return "ok"
    if code is not None or report.found or any(r.exit_code for r in report.ranks):
        return "failed"
    return "unknown"
