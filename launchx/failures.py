"""Name why a run failed, whether trying again can help, and what to change.

Pure functions over text and exit codes (no files, no processes): ``launchx diagnose``
feeds it whole logs, the retry loop feeds it one attempt's exit codes, torchrun error
files and log tails. The knowledge itself lives in ``launchx.failure_rules``.

Choosing the cause among several findings: first the tier of the rule (stopped from
outside > root cause > symptom, see ``failure_rules.tier``), then, for one attempt, the
earliest torchrun error-file timestamp, or, for a log, whether the finding sits on the
rank torchrun named as "first observed failure"; then the rule's priority; then the
earliest line. So one rank's ``KeyError`` beats every other rank's "Connection closed by
peer", and torchrun's ``ChildFailedError`` banner is only used to locate the root rank,
never reported as a cause.

A SIGKILL is reported as ``host_oom_killed`` only with evidence: kernel/cgroup OOM text in
the log, or the exit pattern of the OOM killer: the first rank to fail was SIGKILLed while
the others were not (torchrun and launchx always send SIGTERM first, so a SIGKILL that
arrives first came from elsewhere). When every rank was SIGKILLed, the group was killed
as a whole (a scheduler, a person, a launcher's grace period running out) and the
diagnosis stays ``unknown``.
"""

from __future__ import annotations

import json
import math
import re
import signal as _signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

from launchx import failure_rules as fr

_MAX_EVIDENCE = 3
_MAX_LINE = 240
_MAX_LINES_PER_RANK = 2000


class RetryPolicyLike(Protocol):
    """Anything with ``on`` and ``never`` category tuples (``profile_model.Retry``)."""

    @property
    def on(self) -> tuple[str, ...]: ...

    @property
    def never(self) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class Diagnosis:
    category: str
    retryable: bool
    cause: str
    fix: str
    evidence: tuple[str, ...]
    rank: int | None
    code: str
    exit_code: int | None = None
    signal: int | None = None
    # 2: stopped from outside; 1: a root cause (or a rank that failed on its own); 0: only
    # symptoms of another failure. Nodes compare it to agree on one diagnosis (``agree``).
    tier: int = 0

    def signature(self) -> tuple[str, int | None, str]:
        """Stable across attempts: numbers, addresses, ports and timestamps are blanked, so
        the retry loop can tell "the same failure twice in a row" from a new one."""
        key = _RANK_TAG.sub("", self.evidence[0]) if self.evidence else ""
        return (self.category, self.rank, normalise(key))


@dataclass(frozen=True)
class Report:
    primary: Diagnosis | None
    findings: tuple[Diagnosis, ...] = field(default=())

    @property
    def found(self) -> bool:
        """False when nothing was recognised, or only symptoms on ranks other than the one
        torchrun saw fail first (the primary is then an ``unknown`` on that rank)."""
        return self.primary is not None and self.primary.category != "unknown"


def normalise(text: str) -> str:
    """Blank what changes between two runs of the same failure (numbers, hex, addresses)."""
    out = text.lower()
    out = _HEX.sub("#", out)
    out = _DIGITS.sub("#", out)
    return _SPACES.sub(" ", out).strip()


def is_retryable(category: str, policy: RetryPolicyLike | None = None) -> bool:
    """The category's default, changed by the profile's ``retry.on``/``retry.never``;
    an interrupt is never retried, whatever the policy says."""
    return _retryable(category, None, policy)


# --------------------------------------------------------------------------- parsing

_HEX = re.compile(r"0x[0-9a-f]+")
_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_RANK_TAG = re.compile(r"^\[rank \d+\] ")

_NOISE = (
    re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?Z?\s+"),
    re.compile(r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d+)?\]\s*"),
    re.compile(r"^\([^()]*\bpid=\d+[^()]*\)\s*"),
    re.compile(r"^\[[IWEF](?:\d{4} \d{2}:\d{2}:[\d.]+)?\s*[\w./-]+:\d+\]\s*"),
    re.compile(r"^[IWEF]\d{4} \d{2}:\d{2}:[\d.]+ \d+ [\w./-]+:\d+\]\s*"),
)
_RANK_PREFIXES = (
    re.compile(r"^\[rank(\d+)\]:\s?"),
    re.compile(r"^\[default(\d+)\]:\s?"),
    re.compile(r"^\[r(\d+)\]:? ?"),
    re.compile(r"^\[\d+,(\d+)\]<std(?:out|err)>:\s?"),
    re.compile(r"^(\d{1,5}): "),
)
_PREFIX_STARTS = frozenset("[(0123456789IWEF")
_RANK_IN_TEXT = re.compile(r"\[[^\[\]]*\bRank (\d+)\]")
_ROOT_HEADER = re.compile(r"^Root Cause \(first observed failure\):")
_BLOCK_START = re.compile(r"^\[\d+\]:$")
_BLOCK_RANK = re.compile(r"^rank\s*:\s*(\d+)\s*\(local_rank")
_BLOCK_EXIT = re.compile(r"^exitcode\s*:\s*(-?\d+)")
_BORDER = re.compile(r"^(?:={8,}|-{8,})$")
_FIRST_FAILED = re.compile(r"failed \(exitcode: -?\d+\) local_rank:")
_ROOT_FACTS = re.compile(r"^(?:exitcode|traceback)\s*:|failed \(exitcode")


@dataclass(frozen=True)
class _Line:
    text: str
    rank: int | None
    index: int
    in_root: bool


@dataclass(frozen=True)
class _Parsed:
    lines: tuple[_Line, ...]
    root_rank: int | None
    root_exit: int | None


def _strip(raw: str) -> tuple[str, int | None]:
    """Remove timestamps, log headers and rank prefixes (in any order they are stacked)."""
    text = _ANSI.sub("", raw) if "\x1b" in raw else raw
    text = text.strip()
    rank: int | None = None
    for _ in range(8):
        if not text or text[0] not in _PREFIX_STARTS:
            break
        before = text
        stripped = text.lstrip()
        for pat in _NOISE:
            stripped = pat.sub("", stripped, count=1)
        for pat in _RANK_PREFIXES:
            m = pat.match(stripped)
            if m:
                if rank is None:
                    rank = int(m.group(1))
                stripped = stripped[m.end() :]
                break
        text = stripped
        if text == before:
            break
    if rank is None and "Rank " in text:
        m = _RANK_IN_TEXT.search(text)
        if m:
            rank = int(m.group(1))
    return text.strip(), rank


def torchrun_exit_codes(text: str) -> dict[int, int]:
    """Each failed rank's exit code from torchrun's ChildFailedError summary (negative for
    a signal). The training's own exit code lives here, not in torchrun's, which is 1."""
    codes: dict[int, int] = {}
    rank: int | None = None
    for raw in text.splitlines():
        body, _prefix_rank = _strip(raw)
        if _BLOCK_START.match(body) or _BORDER.match(body):
            rank = None
        elif m := _BLOCK_RANK.match(body):
            rank = int(m.group(1))
        elif rank is not None and (m := _BLOCK_EXIT.match(body)):
            codes.setdefault(rank, int(m.group(1)))
            rank = None
    return codes


def _parse(text: str, default_rank: int | None = None, first_index: int = 0) -> _Parsed:
    """Split a log into lines with their rank, and read torchrun's failure summary."""
    out: list[_Line] = []
    root_pending = False
    in_block = False
    block_root = False
    block_rank: int | None = None
    root_rank: int | None = None
    root_exit: int | None = None
    for i, raw in enumerate(text.splitlines()):
        body, rank = _strip(raw)
        if not body:
            continue
        if _ROOT_HEADER.match(body):
            root_pending = True
        elif _BLOCK_START.match(body):
            in_block, block_root, block_rank = True, root_pending, None
            root_pending = False
        elif _BORDER.match(body):
            in_block = block_root = False
        elif in_block and (m := _BLOCK_RANK.match(body)):
            block_rank = int(m.group(1))
            if block_root:
                root_rank = block_rank
        elif in_block and block_root and (m := _BLOCK_EXIT.match(body)):
            root_exit = int(m.group(1))
        if rank is None:
            rank = block_rank if in_block else default_rank
        in_root = (in_block and block_root) or bool(_FIRST_FAILED.search(body))
        out.append(_Line(body, rank, first_index + i, in_root))
    if root_rank is not None:
        out = [
            _Line(
                ln.text,
                root_rank if ln.rank is None and ln.in_root else ln.rank,
                ln.index,
                ln.in_root,
            )
            for ln in out
        ]
    return _Parsed(tuple(out), root_rank, root_exit)


# --------------------------------------------------------------------------- matching


@dataclass(frozen=True)
class _Compiled:
    rule: fr.Rule
    patterns: tuple[re.Pattern[str], ...]
    exclude: tuple[re.Pattern[str], ...]


@dataclass(frozen=True)
class _Hit:
    rule: fr.Rule
    lines: tuple[_Line, ...]
    timestamp: float | None = None

    @property
    def rank(self) -> int | None:
        return next((ln.rank for ln in self.lines if ln.rank is not None), None)

    @property
    def first_index(self) -> int:
        return self.lines[0].index if self.lines else 0


@lru_cache(maxsize=1)
def _compiled() -> tuple[_Compiled, ...]:
    return tuple(
        _Compiled(
            r, tuple(re.compile(p) for p in r.patterns), tuple(re.compile(x) for x in r.exclude)
        )
        for r in fr.RULES
    )


@lru_cache(maxsize=1)
def _prefilter() -> re.Pattern[str]:
    """One alternation of every pattern: most log lines match nothing, and one search per
    line is much cheaper than one per pattern."""
    return re.compile("|".join(f"(?:{p})" for c in _compiled() for p in c.rule.patterns))


def _scan(lines: Sequence[_Line], timestamp: float | None = None) -> list[_Hit]:
    quick = _prefilter()
    candidates = [ln for ln in lines if quick.search(ln.text)]
    hits: list[_Hit] = []
    for comp in _compiled():
        matched = tuple(
            ln
            for ln in candidates
            if (comp.rule.scope == "any" or ln.in_root)
            and any(p.search(ln.text) for p in comp.patterns)
            and not any(x.search(ln.text) for x in comp.exclude)
        )
        if matched and len(matched) >= comp.rule.min_hits:
            if comp.rule.category == "user_code_error":
                matched = _with_frame(lines, matched)
            hits.append(_Hit(comp.rule, matched, timestamp))
    return hits


_FRAME = re.compile(r'^\s*File "([^"]+)", line \d+')


def _with_frame(lines: Sequence[_Line], matched: tuple[_Line, ...]) -> tuple[_Line, ...]:
    """Put the traceback frame that raised the error before it: the user's own file and
    line (the innermost frame outside site-packages), which is what they need to fix."""
    first = matched[0]
    position = {id(ln): i for i, ln in enumerate(lines)}.get(id(first))
    if position is None:
        return matched
    fallback: _Line | None = None
    for ln in reversed(lines[:position]):
        if ln.rank != first.rank:
            continue
        frame = _FRAME.match(ln.text)
        if frame is None:
            continue
        path = frame.group(1)
        if "site-packages" not in path and not path.startswith("<frozen"):
            return (ln, *matched)
        fallback = fallback or ln
    return (fallback, *matched) if fallback is not None else matched


def _retryable(category: str, rule: fr.Rule | None, policy: RetryPolicyLike | None) -> bool:
    if category in fr.NEVER_RETRIED:
        return False
    if policy is not None and category in policy.never:
        return False
    if policy is not None and category in policy.on:
        return True
    if rule is not None and rule.retryable is not None:
        return rule.retryable
    return category in fr.RETRYABLE_BY_DEFAULT


def _evidence(lines: Sequence[_Line]) -> tuple[str, ...]:
    seen: set[str] = set()
    out: list[str] = []
    for ln in lines:
        key = normalise(ln.text)
        if key in seen:
            continue
        seen.add(key)
        text = ln.text if len(ln.text) <= _MAX_LINE else ln.text[: _MAX_LINE - 3] + "..."
        out.append(f"[rank {ln.rank}] {text}" if ln.rank is not None else text)
        if len(out) == _MAX_EVIDENCE:
            break
    return tuple(out)


def _signal_of(code: int | None) -> int | None:
    """Negative exit codes are signals (Popen); 129-192 are 128+signal (shells)."""
    if code is None:
        return None
    if code < 0:
        return -code
    if 128 < code <= 128 + 64:
        return code - 128
    return None


def _diagnosis(
    hit: _Hit, policy: RetryPolicyLike | None, rank: int | None, exit_code: int | None
) -> Diagnosis:
    cat = hit.rule.category
    return Diagnosis(
        category=cat,
        retryable=_retryable(cat, hit.rule, policy),
        cause=hit.rule.cause,
        fix=hit.rule.fix,
        evidence=_evidence(hit.lines),
        rank=rank,
        code=hit.rule.code,
        exit_code=exit_code,
        signal=_signal_of(exit_code),
        tier=fr.tier(hit.rule.priority),
    )


def _best_per_category(hits: Sequence[_Hit], key: Callable[[_Hit], Any]) -> list[_Hit]:
    """Sort hits best-first by ``key`` and keep the best hit of each category."""
    ordered = sorted(hits, key=key, reverse=True)
    best: dict[str, _Hit] = {}
    for h in ordered:
        best.setdefault(h.rule.category, h)
    return list(best.values())


# --------------------------------------------------------------------------- logs


def diagnose_logs(texts: Sequence[str], policy: RetryPolicyLike | None = None) -> Report:
    """Diagnose one or more (combined, noisy) logs of a failed run."""
    lines: list[_Line] = []
    root_rank: int | None = None
    root_exit: int | None = None
    for text in texts:
        start = lines[-1].index + 1 if lines else 0
        parsed = _parse(text, first_index=start)
        lines.extend(parsed.lines)
        if parsed.root_rank is not None:
            root_rank, root_exit = parsed.root_rank, parsed.root_exit
    hits = _scan(lines)

    def key(h: _Hit) -> tuple[int, bool, int, int]:
        on_root = root_rank is None or h.rank is None or h.rank == root_rank
        return (fr.tier(h.rule.priority), on_root, h.rule.priority, -h.first_index)

    best = _best_per_category(hits, key)
    findings = tuple(
        _diagnosis(
            h,
            policy,
            h.rank if h.rank is not None else root_rank,
            root_exit if (h.rank is None or h.rank == root_rank) else None,
        )
        for h in best
    )
    if not findings:
        return Report(primary=None, findings=())
    top = findings[0]
    if (
        fr.tier(best[0].rule.priority) == 0
        and root_rank is not None
        and top.rank is not None
        and top.rank != root_rank
    ):
        root_lines = [ln for ln in lines if ln.in_root and _ROOT_FACTS.search(ln.text)]
        silent = _unknown(policy, root_rank, root_exit, _evidence(root_lines))
        return Report(primary=silent, findings=(silent, *findings))
    return Report(primary=top, findings=findings)


def _unknown(
    policy: RetryPolicyLike | None,
    rank: int | None,
    code: int | None,
    evidence: tuple[str, ...] = (),
) -> Diagnosis:
    """The rank that failed first said nothing recognisable: what other ranks report
    (connection closed, timeouts) is the consequence, so the cause stays unknown rather
    than a retryable-looking symptom."""
    cause = fr.UNKNOWN_CAUSE
    if rank is not None and code not in (None, 0):
        sig = _signal_of(code)
        how = f"was killed by signal {sig}" if sig else f"exited with code {code}"
        cause = f"rank {rank} failed first: it {how} without printing a recognised error."
    return Diagnosis(
        category="unknown",
        retryable=_retryable("unknown", None, policy),
        cause=cause,
        fix=fr.UNKNOWN_FIX,
        evidence=evidence,
        rank=rank,
        code=fr.UNKNOWN_CODE,
        exit_code=code,
        signal=_signal_of(code),
        tier=1 if rank is not None and code not in (None, 0) else 0,
    )


# --------------------------------------------------------------------------- one attempt


def _parse_error_file(raw: str) -> tuple[str, float | None] | None:
    """torchrun's TORCHELASTIC_ERROR_FILE: ``{"message": {"message": ..., "extraInfo":
    {"py_callstack": ..., "timestamp": "<epoch s>"}}}``, or the older
    ``{"message": "...", "timestamp": ...}``. Returns the text to classify and the time."""
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


def _signal_hit(category: str, priority: int) -> _Hit:
    cause, fix = fr.SIGNAL_RULES[category]
    rule = fr.Rule(
        name=f"exit_{category}",
        category=category,
        code=fr.SIGNAL_CODES[category],
        priority=priority,
        patterns=(),
        cause=cause,
        fix=fix,
    )
    return _Hit(rule, ())


def _exit_code_hits(rank_exit: Mapping[int, int]) -> list[tuple[_Hit, int]]:
    """What the exit codes alone say, for ranks whose logs said nothing better."""
    sigs = {r: _signal_of(c) for r, c in rank_exit.items() if c != 0}
    out: list[tuple[_Hit, int]] = []
    segv = sorted(r for r, s in sigs.items() if s == _signal.SIGSEGV)
    if segv:
        out.append((_signal_hit("segfault", 62), segv[0]))
    killed = sorted(r for r, s in sigs.items() if s == _signal.SIGKILL)
    if killed and len(killed) < len(rank_exit):
        out.append((_signal_hit("host_oom_killed", 62), killed[0]))
    stopped = [r for r, s in sigs.items() if s in (_signal.SIGINT, _signal.SIGTERM)]
    if sigs and len(stopped) == len(sigs):
        out.append((_signal_hit("interrupted", 15), min(stopped)))
    return out


# libstdc++'s words when a process exits while a C++ thread (gloo's, NCCL's) is still
# joinable: the interpreter had already finished with the uncaught exception.
_TEARDOWN_ABORT = "terminate called without an active exception"
_UNCAUGHT_EXCEPTION_EXIT = 1  # CPython's exit status for an uncaught exception
_PY_TRACEBACK = "Traceback (most recent call last):"


def _own_exit(
    hit: _Hit,
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
    stopped_by_launcher = _signal_of(code) == _signal.SIGTERM
    cause_is_a_stop = hit.rule.category in ("interrupted", "preempted")
    if stopped_by_launcher and not cause_is_a_stop and launcher_exit != 0:
        return launcher_exit
    aborted_in_teardown = _signal_of(code) == _signal.SIGABRT and _TEARDOWN_ABORT in rank_log
    if aborted_in_teardown and _PY_TRACEBACK in rank_log:
        return _UNCAUGHT_EXCEPTION_EXIT
    return code


def classify_attempt(
    rank_exit: Mapping[int, int],
    error_files: Mapping[int, str],
    rank_logs: Mapping[int, str],
    *,
    launcher_exit: int,
    interrupted: bool,
    policy: RetryPolicyLike | None,
) -> Diagnosis:
    """Diagnose one failed attempt for the retry loop.

    ``rank_exit``: exit code per global rank (negative: killed by that signal);
    ``error_files``: raw contents of each rank's TORCHELASTIC_ERROR_FILE; ``rank_logs``:
    the tail of each rank's output; ``interrupted``: launchx itself received SIGINT/SIGTERM.
    """
    ranked: list[tuple[_Hit, int | None]] = []
    for rank, text in sorted(rank_logs.items()):
        tail = "\n".join(text.splitlines()[-_MAX_LINES_PER_RANK:])
        # A negative key is the launcher's own output: its lines carry rank prefixes, or
        # belong to the rank torchrun names as the root cause.
        log = _parse(tail, default_rank=rank if rank >= 0 else None)
        ranked.extend(
            (h, h.rank if h.rank is not None else log.root_rank) for h in _scan(log.lines)
        )
    earliest: tuple[float, int] | None = None
    for rank, raw in sorted(error_files.items()):
        parsed = _parse_error_file(raw)
        if parsed is None:
            continue
        text, ts = parsed
        if ts is not None and (earliest is None or (ts, rank) < earliest):
            earliest = (ts, rank)
        lines = _parse(text, default_rank=rank).lines
        ranked.extend((h, rank) for h in _scan(lines, ts))

    # Only launchx's own flag says "the user stopped it": a launcher that exits 143 may have
    # been SIGTERMed by srun --kill-on-bad-exit because a rank on another node failed.
    if interrupted:
        pre = [h for h, _ in ranked if h.rule.category == "preempted"]
        if pre:
            return _diagnosis(pre[0], policy, None, launcher_exit)
        return _diagnosis(_signal_hit("interrupted", 110), policy, None, launcher_exit)

    ranked.extend(_exit_code_hits(rank_exit))

    def key(item: tuple[_Hit, int | None]) -> tuple[int, float, int]:
        h = item[0]
        ts_key = -h.timestamp if h.timestamp is not None else -math.inf
        return (fr.tier(h.rule.priority), ts_key, h.rule.priority)

    # Ranks that failed on their own: torchrun/launchx SIGTERM the survivors of a failure.
    failed = sorted(r for r, c in rank_exit.items() if c != 0 and _signal_of(c) != _signal.SIGTERM)
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
            return _unknown(policy, silent_root, rank_exit[silent_root])
        root_log = rank_logs.get(root, "") if root is not None else ""
        own = _own_exit(hit, root, rank_exit, launcher_exit, root_log)
        return _diagnosis(hit, policy, root, own)
    first = earliest[1] if earliest else (failed[0] if failed else None)
    code = rank_exit.get(first, launcher_exit) if first is not None else launcher_exit
    return _unknown(policy, first, code)


# --------------------------------------------------------------------------- rendering


def _as_dict(d: Diagnosis) -> dict[str, object]:
    return {
        "category": d.category,
        "code": d.code,
        "retryable": d.retryable,
        "cause": d.cause,
        "fix": d.fix,
        "evidence": list(d.evidence),
        "rank": d.rank,
        "exit_code": d.exit_code,
        "signal": d.signal,
    }


def render_report(report: Report, as_json: bool) -> str:
    """Text for people (cause, fix, root rank, evidence) or JSON for scripts."""
    if as_json:
        doc = {
            "primary": _as_dict(report.primary) if report.primary else None,
            "findings": [_as_dict(d) for d in report.findings],
        }
        return json.dumps(doc, indent=2) + "\n"
    p = report.primary
    if p is None:
        return f"unknown ({fr.UNKNOWN_CODE}): {fr.UNKNOWN_CAUSE}\n  fix: {fr.UNKNOWN_FIX}\n"
    where = f" on rank {p.rank}" if p.rank is not None else ""
    retry = "retryable" if p.retryable else "not retryable"
    out = [f"{p.category} ({p.code}){where}, {retry}", f"  cause: {p.cause}", f"  fix: {p.fix}"]
    if p.evidence:
        out.append("  evidence:")
        out.extend(f"    {line}" for line in p.evidence)
    others = report.findings[1:]
    if others:
        out.append("  also seen (usually consequences of the above):")
        out.extend(
            f"    {d.category} ({d.code})" + (f" on rank {d.rank}" if d.rank is not None else "")
            for d in others
        )
    return "\n".join(out) + "\n"
