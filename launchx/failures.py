"""Name why a run failed, whether trying again can help, and what to change.

The public face of diagnosis, pure over text, exit codes and dumps (no files, no
processes): ``launchx diagnose`` hands it what ``logsource`` read, the retry loop hands it
one attempt's exit codes, torchrun error files and log tails. The knowledge lives in
``failure_rules``; lines are read by ``logscan``, matched by ``rulematch`` and combined
over ranks, nodes and attempts by ``runview``.

Choosing the cause among several findings: first the tier of the rule (stopped from
outside > root cause > symptom, see ``failure_rules.tier``), then, for one attempt, the
earliest torchrun error-file timestamp, or, for logs, whether the finding sits on the rank
that failed first; then the rule's priority; then the earliest line. So one rank's
``KeyError`` beats every other rank's "Connection closed by peer", and torchrun's
``ChildFailedError`` banner is only used to locate the root rank, never reported as a cause.

A SIGKILL is an OOM kill only with evidence: kernel/cgroup/SLURM OOM text in the log, or
``oom_evidence`` from the run loop (the cgroup's ``memory.events`` oom_kill counter). A
bare SIGKILL of the first rank to fail is ``killed`` (something outside killed it: torchrun
and launchx send SIGTERM first). When every rank was SIGKILLed, the group was killed as a
whole and the diagnosis stays ``unknown``.
"""

from __future__ import annotations

import math
import signal as _signal
from collections.abc import Mapping, Sequence

from launchx import failure_rules as fr
from launchx import logscan, runview
from launchx import rulematch as rm
from launchx.diagnosis import Diagnosis, Report, normalise
from launchx.loglines import BLOCK_EXIT, BLOCK_RANK, BLOCK_START, BORDER, TRACEBACK, strip
from launchx.logscan import SourceInfo, SourceScan
from launchx.rulematch import Hit, RetryPolicyLike

__all__ = [
    "Diagnosis",
    "Report",
    "RetryPolicyLike",
    "attempt_report",
    "classify_attempt",
    "diagnose_logs",
    "is_retryable",
    "normalise",
    "render_report",
    "torchrun_exit_codes",
]

_MAX_LINES_PER_RANK = 2000
_SOURCE_STRIDE = 1 << 32  # LogLine.index = source number * stride + line number


def is_retryable(category: str, policy: RetryPolicyLike | None = None) -> bool:
    """The category's default, changed by the profile's ``retry.on``/``retry.never``;
    an interrupt is never retried, whatever the policy says."""
    return rm.retryable(category, None, policy)


def torchrun_exit_codes(text: str) -> dict[int, int]:
    """Each failed rank's exit code from torchrun's ChildFailedError summary (negative for
    a signal). The training's own exit code lives here, not in torchrun's, which is 1."""
    codes: dict[int, int] = {}
    rank: int | None = None
    for raw in text.splitlines():
        body = strip(raw).body
        if BLOCK_START.match(body) or BORDER.match(body):
            rank = None
        elif m := BLOCK_RANK.match(body):
            rank = int(m.group(1))
        elif rank is not None and (m := BLOCK_EXIT.match(body)):
            codes.setdefault(rank, int(m.group(1)))
            rank = None
    return codes


# --------------------------------------------------------------------------- logs


def diagnose_logs(texts: Sequence[str], policy: RetryPolicyLike | None = None) -> Report:
    """Diagnose one or more (combined, noisy) logs of a failed run."""
    scans = [
        logscan.scan_text(text, SourceInfo(name=""), base_index=i * _SOURCE_STRIDE)
        for i, text in enumerate(texts)
    ]
    return runview.analyse(scans, policy=policy)


# --------------------------------------------------------------------------- one attempt


def parse_error_file(raw: str) -> tuple[str, float | None] | None:
    """torchrun's TORCHELASTIC_ERROR_FILE: ``{"message": {"message": ..., "extraInfo":
    {"py_callstack": ..., "timestamp": "<epoch s>"}}}``, or the older
    ``{"message": "...", "timestamp": ...}``. Returns the text to classify and the time."""
    import json

    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return (raw, None) if raw.strip() else None
    if not isinstance(data, dict):
        return None
    msg = data.get("message")
    stamp: object = data.get("timestamp")
    if isinstance(msg, dict):
        extra = msg.get("extraInfo")
        extra = extra if isinstance(extra, dict) else {}
        stamp = extra.get("timestamp", stamp)
        parts = [str(msg.get("message", "")), str(extra.get("py_callstack", ""))]
        text = "\n".join(p for p in parts if p)
    elif isinstance(msg, str):
        text = msg
    else:
        return None
    try:
        ts = float(stamp) if stamp is not None else None  # type: ignore[arg-type]
    except (TypeError, ValueError):
        ts = None
    if ts is not None and not math.isfinite(ts):
        ts = None
    return text, ts


# libstdc++'s words when a process exits while a C++ thread (gloo's, NCCL's) is still
# joinable: the interpreter had already finished with the uncaught exception.
_TEARDOWN_ABORT = "terminate called without an active exception"
_UNCAUGHT_EXCEPTION_EXIT = 1  # CPython's exit status for an uncaught exception


def _own_exit(
    hit: Hit,
    rank: int | None,
    rank_exit: Mapping[int, int],
    launcher_exit: int,
    rank_log: str = "",
) -> int:
    """The exit code the failing rank would have reported. torchrun SIGTERMs the survivors
    as soon as one rank dies, so a rank still unwinding its own traceback is often stopped
    mid-exit; its -15 is the launcher's doing, and the launcher's exit code (torchrun: 1
    after a failed child) is the truthful one, unless a stop signal is the cause itself.
    A rank that raised an uncaught exception and then aborted in interpreter teardown
    (a live process group's threads) exited 1 as far as its own code is concerned."""
    if rank is None:
        return launcher_exit
    code = rank_exit.get(rank, launcher_exit)
    stopped_by_launcher = rm.signal_of(code) == _signal.SIGTERM
    cause_is_a_stop = hit.rule.category in ("interrupted", "preempted")
    if stopped_by_launcher and not cause_is_a_stop and launcher_exit != 0:
        return launcher_exit
    aborted_in_teardown = rm.signal_of(code) == _signal.SIGABRT and _TEARDOWN_ABORT in rank_log
    if aborted_in_teardown and TRACEBACK in rank_log:
        return _UNCAUGHT_EXCEPTION_EXIT
    return code


def _attempt_scans(
    error_files: Mapping[int, str],
    rank_logs: Mapping[int, str],
    node: tuple[int | None, int | None] = (None, None),
) -> tuple[list[SourceScan], list[tuple[SourceScan, float | None]]]:
    """Scans of each rank's log tail (a negative key is the launcher's own output, on node
    ``node[0]`` of ``node[1]`` processes each) and of each rank's error file, with the
    error file's time."""
    logs: list[SourceScan] = []
    n = 0
    node_rank, nproc = node
    for rank, text in sorted(rank_logs.items()):
        tail = "\n".join(text.splitlines()[-_MAX_LINES_PER_RANK:])
        info = SourceInfo(
            name="",
            rank=rank if rank >= 0 else None,
            launcher=rank < 0,
            node=node_rank if rank < 0 else None,
            nproc=nproc if rank < 0 else None,
        )
        logs.append(logscan.scan_text(tail, info, base_index=n * _SOURCE_STRIDE))
        n += 1
    files: list[tuple[SourceScan, float | None]] = []
    for rank, raw in sorted(error_files.items()):
        parsed = parse_error_file(raw)
        if parsed is None:
            continue
        text, ts = parsed
        scan = logscan.scan_text(
            text, SourceInfo(name="", rank=rank), base_index=n * _SOURCE_STRIDE
        )
        files.append((scan, ts))
        n += 1
    return logs, files


def _root_of(scan: SourceScan) -> int | None:
    roots = {e.rank for e in scan.entries if e.is_root}
    return next(iter(roots)) if len(roots) == 1 else None


def classify_attempt(
    rank_exit: Mapping[int, int],
    error_files: Mapping[int, str],
    rank_logs: Mapping[int, str],
    *,
    launcher_exit: int,
    interrupted: bool,
    policy: RetryPolicyLike | None,
    oom_evidence: bool | None = None,
    node: tuple[int | None, int | None] = (None, None),
) -> Diagnosis:
    """Diagnose one failed attempt for the retry loop.

    ``rank_exit``: exit code per global rank (negative: killed by that signal);
    ``error_files``: raw contents of each rank's TORCHELASTIC_ERROR_FILE; ``rank_logs``:
    the tail of each rank's output (key -1: the launcher's own output); ``interrupted``:
    launchx itself received SIGINT/SIGTERM; ``oom_evidence``: the run loop's own word on
    an OOM kill (True: the cgroup's oom_kill counter rose, or the kernel or SLURM said
    so; False: it did not; None: unknown). Without it only OOM text in the logs makes a
    SIGKILL an OOM; a bare SIGKILL is ``killed``.
    """
    logs, files = _attempt_scans(error_files, rank_logs, node)
    ranked: list[tuple[Hit, int | None]] = []
    for scan in logs:
        root = _root_of(scan)
        ranked.extend((h, h.rank if h.rank is not None else root) for h in rm.scan(scan.lines))
    earliest: tuple[float, int] | None = None
    for scan, ts in files:
        rank = scan.info.rank
        assert rank is not None
        if ts is not None and (earliest is None or (ts, rank) < earliest):
            earliest = (ts, rank)
        ranked.extend((h, rank) for h in rm.scan(scan.lines, ts))

    # Only launchx's own flag says "the user stopped it": a launcher that exits 143 may have
    # been SIGTERMed by srun --kill-on-bad-exit because a rank on another node failed.
    if interrupted:
        pre = [h for h, _ in ranked if h.rule.category == "preempted"]
        if pre:
            return rm.diagnosis(pre[0], policy, None, launcher_exit)
        return rm.diagnosis(rm.signal_hit("sigterm_all", 110), policy, None, launcher_exit)

    ranked.extend(rm.exit_code_hits(rank_exit, oom_evidence))
    # The first observed failure was stopped by a SIGTERM that launchx did not send (it
    # was not interrupted): the rank torchrun names, not a user's interrupt.
    table_root = next((r for r in (_root_of(scan) for scan in logs) if r is not None), None)
    if table_root is not None and rm.signal_of(rank_exit.get(table_root)) in (
        _signal.SIGTERM,
        _signal.SIGINT,
    ):
        ranked.append((rm.signal_hit("sigterm_external", 61), table_root))

    # Ranks that failed on their own: torchrun/launchx SIGTERM the survivors of a failure.
    failed = sorted(
        r for r, c in rank_exit.items() if c != 0 and rm.signal_of(c) != _signal.SIGTERM
    )

    def key(item: tuple[Hit, int | None]) -> tuple[int, bool, float, int, bool, bool]:
        h, rank = item
        waited = h.rule.category in ("nccl_watchdog_timeout", "collective_timeout")
        tier = fr.tier(h.rule.priority)
        # Several ranks raising the same error at once (a bad batch every rank reads, a
        # config key every rank looks up) tie on all the rest: the rank that exited on its
        # own beats one torchrun stopped while it raised, and then the rank torchrun names
        # as the first observed failure, not whichever traceback the console showed first
        # (which made the run's verdict and a later diagnose of its logs name two ranks)
        return (
            tier,
            not waited,
            rm.first_timestamp_key(h),
            h.rule.priority,
            rank in failed,
            rank is not None and rank == table_root,
        )

    if ranked:
        hit, root = max(ranked, key=key)
        # A rank that failed on its own and printed nothing we know, while the others only
        # show the consequences (connection closed, timeouts), is the likely root cause.
        with_hits = {r for _h, r in ranked if r is not None}
        silent = [r for r in failed if r not in with_hits]
        silent_root = failed[0] if len(failed) == 1 else (silent[0] if len(silent) == 1 else None)
        if (
            fr.tier(hit.rule.priority) == 0
            and silent_root is not None
            and root is not None
            and root != silent_root
        ):
            return rm.unknown(policy, silent_root, rank_exit[silent_root])
        root_log = rank_logs.get(root, "") if root is not None else ""
        own = _own_exit(hit, root, rank_exit, launcher_exit, root_log)
        return rm.diagnosis(hit, policy, root, own)
    first = earliest[1] if earliest else (failed[0] if failed else None)
    code = rank_exit.get(first, launcher_exit) if first is not None else launcher_exit
    return rm.unknown(policy, first, code)


def exit_diagnosis(
    rule: str,
    policy: RetryPolicyLike | None,
    *,
    rank: int | None = None,
    exit_code: int | None = None,
    priority: int = 70,
) -> Diagnosis:
    """A diagnosis the run loop makes from what it saw itself (``failure_rules.SIGNAL_RULES``:
    a hang it detected, a launcher that died), not from a log line. A root cause unless
    ``priority`` says otherwise (below 50: a symptom of another node's failure)."""
    return rm.diagnosis(rm.signal_hit(rule, priority), policy, rank, exit_code)


def attempt_report(
    rank_exit: Mapping[int, int],
    error_files: Mapping[int, str],
    rank_logs: Mapping[int, str],
    *,
    launcher_exit: int,
    interrupted: bool,
    policy: RetryPolicyLike | None,
    oom_evidence: bool | None = None,
    node: tuple[int | None, int | None] = (None, None),
    world_size: int | None = None,
) -> Report:
    """``classify_attempt``'s diagnosis with the per-rank view (root, collateral, exit
    codes, hosts) that ``failure_text.render_failure`` prints at the end of a run.
    ``node``: this node's rank and processes per node, with several nodes; ``world_size``:
    the ranks the launcher started, where launchx chose them."""
    diag = classify_attempt(
        rank_exit,
        error_files,
        rank_logs,
        launcher_exit=launcher_exit,
        interrupted=interrupted,
        policy=policy,
        oom_evidence=oom_evidence,
        node=node,
    )
    logs, files = _attempt_scans(error_files, rank_logs, node)
    scans = [*logs, *(s for s, _ts in files)]
    return runview.attempt_report(
        scans, policy=policy, exits=rank_exit, decided=diag, world_size=world_size
    )


# --------------------------------------------------------------------------- rendering


def render_report(report: Report, as_json: bool) -> str:
    """Text for people (cause, fix, ranks, evidence) or JSON for scripts."""
    from launchx import failure_text

    return failure_text.render_json(report) if as_json else failure_text.render_failure(report)
