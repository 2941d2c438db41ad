"""Which rank kept the others waiting in a collective, from the NCCL watchdog's reports
(and from gloo's monitored barrier, which names that rank itself).

On a collective timeout every rank's watchdog prints its process group's counters:
``Timeout at NCCL work: 57, last enqueued NCCL work: 57, last completed NCCL work: 56``
(and ranks told to dump by a peer print ``Last enqueued NCCL work: 56, last completed NCCL
work: 56``). Ranks that enqueued collective #57 wait in it; a rank whose last enqueued is
below 57 never reached it: that rank is behind, and the others are its collateral.

Groups are compared separately (``[PG 1 Rank 3]``); sequence numbers of different groups
have nothing to do with each other. Flight-recorder dumps say the same thing in more
detail (``flightrec``); all three produce a ``Straggler``.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from launchx.diagnosis import Straggler
from launchx.loglines import SUMMARY_FIELD, LogLine
from launchx.logscan import WatchdogSeq
from launchx.spans import spans

ranges = spans  # ``0-4,6,9-11``: the diagnosis names rank sets as every report does


def plural(ranks: Sequence[int]) -> str:
    return f"rank {ranks[0]}" if len(ranks) == 1 else f"ranks {ranges(ranks)}"


def from_watchdog(reports: Iterable[WatchdogSeq], world: Iterable[int] = ()) -> list[Straggler]:
    """Stragglers per process group; ``world`` (ranks known to exist) adds the ranks that
    reported nothing when the ones that did all wait in the same collective."""
    by_pg: dict[str, list[WatchdogSeq]] = defaultdict(list)
    for rep in reports:
        by_pg[rep.pg].append(rep)
    seen = set(world)
    # Ranks count from 0: a report from rank 3 means ranks 0-2 exist too, and so does a
    # group of 4 ranks that rank 1's all-gather names (NumelOut = 4 x NumelIn).
    top = max((rep.rank for reps in by_pg.values() for rep in reps), default=-1)
    size = max((rep.group_size or 0 for reps in by_pg.values() for rep in reps), default=0)
    known = seen | set(range(max(top + 1, size)))
    out: list[Straggler] = []
    for pg, reps in sorted(by_pg.items()):
        found = _group(pg, reps, known, seen)
        if found is not None:
            out.append(found)
    return out


# ProcessGroupGloo::monitoredBarrier (TORCH_DISTRIBUTED_DEBUG=DETAIL wraps every collective
# in one): rank 0 waits for each rank in turn and names those that did not answer in time
# ("Ranks 1, 3 ..." when told to wait for all of them)
_BARRIER_MISSED = re.compile(
    r"\bRanks? (\d+(?:, \d+)*) failed to pass monitoredBarrier in (\d+) ms"
)
# ... and each other rank's report that rank 0, which holds the barrier, sent it an error
# instead of its answer: rank 0 failed (raised, exited) while the others waited
_BARRIER_HOLDER_FAILED = re.compile(
    r"\bRank (\d+) successfully reached monitoredBarrier, but received errors while waiting "
    r"for send/recv from rank (\d+)\."
)


def from_monitored_barrier(lines: Iterable[LogLine]) -> list[Straggler]:
    """The ranks a monitored barrier names as never having reached it, from its first
    report (rank 0 logs it, then raises it). The barrier runs on its group's rank 0 and
    numbers the ranks within the group: a report printed by a global rank other than 0
    comes from a subgroup, whose numbers name other processes, and is left out. Where rank 0
    names none, another rank's report of an error from rank 0 names rank 0 (its error is
    often that very timeout, which it raises to the others as it gives up)."""
    failed: Straggler | None = None
    for ln in lines:
        if "monitoredBarrier" not in ln.text:
            continue
        f = _BARRIER_HOLDER_FAILED.search(ln.text)
        if f is not None and failed is None and ln.rank in (None, int(f[1])):
            # (a global rank other than the one the message names reports a subgroup's)
            holder, waiter = int(f[2]), int(f[1])
            text = (
                f"rank {waiter} reached the monitored barrier and got an error from rank "
                f"{holder}, which holds it, instead of its answer: rank {holder} failed first."
            )
            failed = Straggler(
                "monitored_barrier",
                "failed",
                (holder,),
                (waiter,),
                None,
                "monitoredBarrier",
                "",
                text,
                ln.where(),
            )
        m = _BARRIER_MISSED.search(ln.text)
        if m is None or ln.rank not in (None, 0):
            continue
        missed = tuple(sorted({int(r) for r in m.group(1).split(", ")}))
        held = "rank 0" if ln.rank == 0 else "its group's rank 0"
        text = (
            f"{plural(missed)} never reached the monitored barrier that {held} waited in "
            f"for {m.group(2)} ms."
        )
        return [
            Straggler(
                source="monitored_barrier",
                kind="behind",
                ranks=missed,
                waiting=(0,) if ln.rank == 0 else (),
                seq=None,
                op="monitoredBarrier",
                group="",
                text=text,
                where=ln.where(),
            )
        ]
    return [failed] if failed is not None else []


# gloo's transport timing out a collective's send or recv: the rank saying it waited for a
# peer (gloo's words name no collective and no sequence number)
_GLOO_TIMEOUT = re.compile(
    r"Timed out waiting \d+ms for (?:recv|send) operation"
    r"|gloo/transport/tcp/\w+\.cc:\d+\] Timed out"
)


def from_gloo_timeouts(lines: Sequence[LogLine], world: Iterable[int]) -> list[Straggler]:
    """The ranks the logs show (``world``: a prefix, a file, an exit code) that said nothing
    of their own where others timed out in a gloo collective: the one they waited for, or
    one that died first. Only ranks the logs show are named: a rank left out of a paste is
    not silent. One rank's timeout alone names, not blames, the silent one: torchrun stops a
    waiting rank before its own timeout prints, and one node's log of several shows that
    rank with the stuck one elsewhere; two or more that timed out while one said nothing
    point at that one. gloo's words name no process group."""
    said = [ln for ln in lines if ln.rank is not None and _GLOO_TIMEOUT.search(ln.text)]
    waiting = sorted({ln.rank for ln in said if ln.rank is not None})
    # (torchrun's summary of a rank it stopped is no word of the rank's own)
    spoke = {ln.rank for ln in lines if ln.rank is not None and not SUMMARY_FIELD.match(ln.text)}
    silent = sorted(set(world) - spoke)
    if not waiting or not silent:
        return []
    text = (
        f"{plural(waiting)} timed out waiting in a gloo collective; {plural(silent)} "
        f"did not (never reached it, or died first)."
    )
    where = said[0].where()
    return [
        Straggler(
            "gloo",
            "silent",
            tuple(silent),
            tuple(waiting),
            None,
            None,
            "",
            text,
            where,
            counted=len(waiting) < 2,
        )
    ]


def mismatched(reports: Iterable[WatchdogSeq]) -> tuple[int, dict[str, list[int]]] | None:
    """A sequence number at which ranks of one process group timed out in *different*
    collectives (rank 7 in BROADCAST, rank 3 in ALLREDUCE): the number counts the group's
    collectives on each rank, so the ranks issued them in different orders. The first such
    number, and the ranks of each collective; None when every rank agrees."""
    ops: dict[tuple[str, int], dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    for rep in reports:
        if rep.timed_out is not None and rep.timed_out >= 0 and rep.op:
            ops[(rep.pg, rep.timed_out)][rep.op].add(rep.rank)
    for (_pg, seq), by_op in sorted(ops.items(), key=lambda kv: kv[0][1]):
        if len(by_op) > 1:
            return seq, {op: sorted(ranks) for op, ranks in sorted(by_op.items())}
    return None


def _last(rep: WatchdogSeq) -> int | float:
    """The last collective a rank's report shows it reached: its last enqueued one, or,
    when the report gives none, the one it timed out in (inf when it shows neither)."""
    if rep.enqueued is not None:
        return rep.enqueued
    return rep.timed_out if rep.timed_out is not None else float("inf")


def _group(pg: str, reps: list[WatchdogSeq], world: set[int], seen: set[int]) -> Straggler | None:
    timed = [r.timed_out for r in reps if r.timed_out is not None and r.timed_out >= 0]
    if not timed:
        return None
    seq = Counter(timed).most_common(1)[0][0]
    # (a rank's report can be in two files: its own and a node's)
    waiting = sorted({r.rank for r in reps if r.timed_out == seq})
    behind = sorted({r.rank for r in reps if r.rank not in waiting and _last(r) < seq})
    op = next((r.op for r in reps if r.op and r.timed_out == seq), None)
    line = next(r.line for r in reps if r.timed_out == seq)
    what = f"collective #{seq}" + (f" ({op})" if op else "")
    if behind:
        last = {r.rank: _last(r) for r in reps if r.rank in behind}
        lasts = ", ".join(f"rank {r} at #{last[r]}" for r in behind)
        text = (
            f"{plural(behind)} never reached {what} of process group {pg} that "
            f"{plural(waiting)} waited in ({lasts})."
        )
        return Straggler(
            "watchdog", "behind", tuple(behind), tuple(waiting), seq, op, pg, text, line.where()
        )
    reporters = {r.rank for r in reps}
    silent = sorted(world - reporters) if pg == "0" else []
    # Beside one rank's report alone (no other rank's timeout or dump report), only the
    # silent ranks the logs show (a line, a file, an exit code) are known to be silent: a
    # paste of that one rank reads the same whether the ranks only counted below it printed
    # nothing or were left out of it. With none shown, those are named, not blamed.
    counted = False
    if len(reporters) == 1 and any(r not in seen for r in silent):
        shown = [r for r in silent if r in seen]
        if shown:
            silent = shown
        else:
            counted = True
    if silent and len(waiting) >= 1:
        them, they = ("it", "it") if len(silent) == 1 else ("them", "they")
        said = (
            f"printed no watchdog report in these logs, which may have left {them} out (or "
            f"{they} never reached the collective, or died first)"
            if counted
            else "printed no watchdog report (never reached it, or died first)"
        )
        text = f"{plural(waiting)} waited in {what} of process group {pg}; {plural(silent)} {said}."
        return Straggler(
            "watchdog",
            "silent",
            tuple(silent),
            tuple(waiting),
            seq,
            op,
            pg,
            text,
            line.where(),
            counted=counted,
        )
    return None
