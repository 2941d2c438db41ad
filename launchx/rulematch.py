"""Match log lines against the rules of ``failure_rules`` and turn a match into a
``Diagnosis``: the one place that knows how a rule is applied.

A line matches a rule when a pattern is found in its message and no ``exclude`` is. A
message that a terminal or logger split over several lines (``LogLine.joined``) matches
where a pattern spans a split, with or without a space at the break (loggers cut at
spaces, terminals mid-word); a pattern found inside one fragment is that fragment's own
match, not the joined message's.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
import signal as _signal
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from typing import Any, Protocol

from launchx import failure_rules as fr
from launchx import ruleindex
from launchx.diagnosis import Diagnosis, normalise
from launchx.loglines import LogLine

MAX_EVIDENCE = 3
_MAX_SHOWN = 240


class RetryPolicyLike(Protocol):
    """Anything with ``on`` and ``never`` category tuples (``profile_model.Retry``)."""

    @property
    def on(self) -> tuple[str, ...]: ...

    @property
    def never(self) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class Compiled:
    rule: fr.Rule
    patterns: tuple[re.Pattern[str], ...]
    exclude: tuple[re.Pattern[str], ...]
    requires: tuple[re.Pattern[str], ...] = ()
    context: tuple[re.Pattern[str], ...] = ()
    not_after: tuple[re.Pattern[str], ...] = ()
    not_before: tuple[re.Pattern[str], ...] = ()
    not_raised_in: tuple[re.Pattern[str], ...] = ()
    raised_in: tuple[re.Pattern[str], ...] = ()


@dataclass(frozen=True)
class Hit:
    rule: fr.Rule
    lines: tuple[LogLine, ...]
    timestamp: float | None = None  # an error file's epoch time (classify_attempt)
    shown: tuple[str, ...] = ()  # the text each line is shown with (joined when wrapped)

    @property
    def rank(self) -> int | None:
        return next((ln.rank for ln in self.lines if ln.rank is not None), None)

    @property
    def first_index(self) -> int:
        return self.lines[0].index if self.lines else 0

    @property
    def ts(self) -> float | None:
        """The time the log's own header gives its first line."""
        return next((ln.ts for ln in self.lines if ln.ts is not None), None)

    @property
    def host(self) -> str | None:
        return next((ln.host for ln in self.lines if ln.host is not None), None)


@lru_cache(maxsize=1)
def compiled() -> tuple[Compiled, ...]:
    def many(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p) for p in patterns)

    return tuple(
        Compiled(
            r,
            many(r.patterns),
            many(r.exclude),
            many(r.requires),
            many(r.context),
            many(r.not_after),
            many(r.not_before),
            many(r.not_raised_in),
            many(r.raised_in),
        )
        for r in fr.RULES
    )


def joined_variants(joined: str) -> list[tuple[str, tuple[int, ...]]]:
    """The joined message with a space and without one at each break, and where the breaks
    fall in each: a match believed from a wrapped line must span one of them (the rules
    here, torchrun's failure line in ``logscan``)."""
    parts = joined.split("\n")
    out: list[tuple[str, tuple[int, ...]]] = []
    for sep in (" ", ""):
        breaks: list[int] = []
        pos = 0
        for part in parts[:-1]:
            pos += len(part)
            breaks.append(pos)
            pos += len(sep)
        out.append((sep.join(parts), tuple(breaks)))
    return out


def _counts(comp: Compiled, m: re.Match[str]) -> bool:
    """``Rule.compare``: the first named number must exceed the second."""
    if comp.rule.compare is None:
        return True
    a, b = comp.rule.compare
    try:
        return int(m.group(a)) > int(m.group(b))
    except (IndexError, TypeError, ValueError):
        return False


def _search(comp: Compiled, text: str) -> re.Match[str] | None:
    for pat in comp.patterns:
        for m in pat.finditer(text):
            if _counts(comp, m):
                return m
    return None


def _spanning(
    comp: Compiled, variants: list[tuple[str, tuple[int, ...]]], warned: bool
) -> re.Match[str] | None:
    for text, breaks in variants:
        for pat in comp.patterns:
            for m in pat.finditer(text):
                if any(m.start() < b < m.end() for b in breaks) and _counts(comp, m):
                    if not _excluded(comp, text, warned):
                        return m
                    break
    return None


def _excluded(comp: Compiled, text: str, warned: bool) -> bool:
    """An exclusion matches the message, or, for a line its header logged as a warning, the
    message with that level put back before it: a rule that skips warnings skips it too."""
    if any(x.search(text) for x in comp.exclude):
        return True
    return warned and any(x.search(_WARNED + text) for x in comp.exclude)


_WARNED = "WARNING: "


def match_line(
    comp: Compiled,
    line: LogLine,
    quick: bool | None = None,
    variants: list[tuple[str, tuple[int, ...]]] | None = None,
) -> LogLine | None:
    """``line`` as it matched ``comp`` (its ``text`` the joined message when the match
    spans a wrap, its ``rank`` from the pattern's ``rank`` group when the line had none),
    or None. ``quick`` False: the prefilter already found nothing in the line itself."""
    if comp.rule.scope == "root_failure" and not line.in_root:
        return None
    m = _search(comp, line.text) if quick is not False else None
    if m is not None:
        if _excluded(comp, line.text, line.warned):
            return None
        got = _with_rank(line, m, line.text)
        if got.rank is None and line.joined is not None and _ranked(comp):
            # the message names its rank in another fragment of the same wrapped message
            joins = variants if variants is not None else joined_variants(line.joined)
            s = _spanning(comp, joins, line.warned)
            if s is not None and s.groupdict().get("rank") is not None:
                return _with_rank(line, s, s.string)
        return got
    if line.joined is None:
        return None
    m = _spanning(
        comp, variants if variants is not None else joined_variants(line.joined), line.warned
    )
    return None if m is None else _with_rank(line, m, m.string)


def _ranked(comp: Compiled) -> bool:
    return any("rank" in p.groupindex for p in comp.patterns)


def _with_rank(line: LogLine, m: re.Match[str], text: str) -> LogLine:
    rank = line.rank
    if rank is None and "rank" in m.re.groupindex and m.group("rank") is not None:
        rank = int(m.group("rank"))
    if rank == line.rank and text == line.text:
        return line
    return replace(line, rank=rank, text=text)


_Candidate = tuple[LogLine, bool, list[tuple[str, tuple[int, ...]]] | None]


@lru_cache(maxsize=1)
def rule_index() -> ruleindex.RuleIndex:
    return ruleindex.RuleIndex([c.rule.patterns for c in compiled()])


def _candidates(lines: Sequence[LogLine]) -> list[list[_Candidate]]:
    """For each rule, in order, the lines it may match: those holding a word that one of
    its patterns needs (``ruleindex``), in the line itself (``own``: else its patterns are
    not searched there) or across a wrap of it."""
    index = rule_index()
    out: list[list[_Candidate]] = [[] for _ in range(index.count)]
    for ln in lines:
        own = index.rules(ln.text)
        variants = joined_variants(ln.joined) if ln.joined is not None else None
        spans = frozenset().union(*(index.rules(v) for v, _b in variants)) if variants else own
        for rule in own | spans:
            out[rule].append((ln, rule in own, variants))
    return out


def scan(lines: Sequence[LogLine], timestamp: float | None = None) -> list[Hit]:
    """Every rule that matches some of ``lines``, with the lines it matched."""
    candidates = _candidates(lines)
    hits: list[Hit] = []
    frames: _Frames | None = None
    where: dict[int, int] | None = None  # id of a line -> its position in lines
    for comp, maybe in zip(compiled(), candidates, strict=True):
        matched: list[LogLine] = []
        for ln, own, variants in maybe:
            got = match_line(comp, ln, own, variants)
            if got is None or (comp.context and not _in_context(comp, lines, ln)):
                continue
            if comp.not_before:
                where = where or {id(x): i for i, x in enumerate(lines)}
                if _answered(comp, lines, where[id(ln)]):
                    continue
            if comp.not_raised_in or comp.raised_in:
                frames = frames or _Frames(lines)
                raiser = next(iter(frames.above(ln)), None)
                # a frame far above is another traceback's, not this line's (a logger's line
                # under a traceback printed earlier, a rank's exception in torchrun's summary
                # under the launcher's traceback): it neither vetoes nor qualifies the line,
                # and the anchored scan, which keeps fewer lines between them, reads the same
                near = raiser is not None and ln.index - raiser.index <= _RAISER_GAP
                if near and raiser and any(p.search(raiser.text) for p in comp.not_raised_in):
                    continue
                if comp.raised_in and not (
                    near and raiser and any(p.search(raiser.text) for p in comp.raised_in)
                ):
                    continue
            matched.append(got)
        if matched and comp.not_after:
            after = _first_index(lines, comp.not_after)
            matched = [ln for ln in matched if after is None or ln.index < after]
        if not matched or sum(ln.repeats for ln in matched) < comp.rule.min_hits:
            continue
        if comp.requires and not any(p.search(ln.text) for ln in lines for p in comp.requires):
            continue
        hit = Hit(comp.rule, tuple(matched), timestamp, tuple(ln.text for ln in matched))
        if comp.rule.category == "user_code_error":
            frames = frames or _Frames(lines)
            hit = _with_frame(frames, hit)
        hits.append(hit)
    return hits


class _Frames:
    """The log's traceback frames by source and rank, in order, so that the frames above a
    line (the nearest is the one that raised it) are a bisection away, however many
    exceptions a log has."""

    def __init__(self, lines: Sequence[LogLine]) -> None:
        self._by: dict[tuple[str, int | None], list[LogLine]] = {}
        for ln in sorted((x for x in lines if _FRAME.match(x.text)), key=_index):
            self._by.setdefault((ln.source, ln.rank), []).append(ln)

    def above(self, at: LogLine) -> list[LogLine]:
        """The frames within ``_FRAME_WINDOW`` lines above ``at`` on its rank, nearest
        first."""
        frames = self._by.get((at.source, at.rank), [])
        lo = bisect.bisect_right(frames, at.index - _FRAME_WINDOW, key=_index)
        hi = bisect.bisect_left(frames, at.index, key=_index)
        return frames[lo:hi][::-1]


def _index(line: LogLine) -> int:
    return line.index


def _first_index(lines: Sequence[LogLine], patterns: Sequence[re.Pattern[str]]) -> int | None:
    """The order of the first line matching one of ``patterns`` (``Rule.not_after``)."""
    return next((ln.index for ln in lines if any(p.search(ln.text) for p in patterns)), None)


_CONTEXT_LINES = 60


def _answered(comp: Compiled, lines: Sequence[LogLine], i: int) -> bool:
    """``Rule.not_before``: a line of the same source after ``lines[i]``, within
    ``_CONTEXT_LINES`` of it, matches; by position, since the pieces of one physical line
    (an error file's escaped text, terminal frames) share its number, and by index, since
    the texts of one diagnosis may share a name. Any rank's line counts (a conservative
    reading: another rank's exception close below hides a cut raise)."""
    at = lines[i]
    for ln in itertools.islice(lines, i + 1, None):
        # (a diagnosis lists each source's lines together: another name ends the search)
        if ln.source != at.source or ln.index > at.index + _CONTEXT_LINES:
            break
        if any(p.search(ln.text) for p in comp.not_before):
            return True
    return False


def _in_context(comp: Compiled, lines: Sequence[LogLine], at: LogLine) -> bool:
    """``Rule.context``: a line above ``at`` on the same rank (its traceback) matches."""
    for ln in lines:
        if (
            ln.source == at.source
            and ln.rank == at.rank
            and at.index - _CONTEXT_LINES <= ln.index < at.index
            and any(p.search(ln.text) for p in comp.context)
        ):
            return True
    return False


_FRAME = re.compile(r'^\s*File "([^"]+)", line \d+')
_FRAME_WINDOW = 200  # lines above an exception where the frames that raised it may be
_RAISER_GAP = 12  # lines from the frame that raised an exception to its line: the frame's
# source line, 3.11's caret lines, a few lines of other ranks printing between them


def _with_frame(frames: _Frames, hit: Hit) -> Hit:
    """Put the traceback frame that raised the error before it: the user's own file and
    line (the innermost frame outside site-packages), which is what they need to fix."""
    fallback: LogLine | None = None
    for ln in frames.above(hit.lines[0]):
        m = _FRAME.match(ln.text)
        assert m is not None
        path = m.group(1)
        if "site-packages" not in path and not path.startswith("<frozen"):
            return Hit(hit.rule, (ln, *hit.lines), hit.timestamp, (ln.text, *hit.shown))
        fallback = fallback or ln
    if fallback is None:
        return hit
    return Hit(hit.rule, (fallback, *hit.lines), hit.timestamp, (fallback.text, *hit.shown))


# --------------------------------------------------------------------------- diagnoses


def retryable(category: str, rule: fr.Rule | None, policy: RetryPolicyLike | None) -> bool:
    if category in fr.NEVER_RETRIED:
        return False
    if policy is not None and category in policy.never:
        return False
    if policy is not None and category in policy.on:
        return True
    if rule is not None and rule.retryable is not None:
        return rule.retryable
    return category in fr.RETRYABLE_BY_DEFAULT


def retry_on_progress(category: str, rule: fr.Rule | None, policy: RetryPolicyLike | None) -> bool:
    """Not retryable on the log's word, but retried by the run loop once a checkpoint
    exists (``failure_rules.RETRIED_ON_PROGRESS``, or a rule's own ``on_progress``, which
    may also narrow a retried category's default: a time limit met with no checkpoint).
    False when the policy or a rule that read the failure's own numbers has already
    decided."""
    if retryable(category, rule, policy) or category in fr.NEVER_RETRIED:
        return False
    if policy is not None and category in policy.never:
        return False
    if rule is not None and rule.retryable is not None and not rule.on_progress:
        return False
    return category in fr.RETRIED_ON_PROGRESS or (rule is not None and rule.on_progress)


def shown_texts(lines: Sequence[LogLine], shown: Sequence[str] = ()) -> list[str]:
    """Each line's text as it is shown: joined where a terminal or logger wrapped it."""
    return [shown[i] if i < len(shown) else ln.text for i, ln in enumerate(lines)]


def evidence(
    lines: Iterable[LogLine], shown: Sequence[str] = ()
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Up to three distinct lines, each tagged with its rank, and where each is."""
    seen: set[str] = set()
    out: list[str] = []
    where: list[str] = []
    lines = tuple(lines)
    for ln, text in zip(lines, shown_texts(lines, shown), strict=True):
        key = normalise(text)
        if key in seen:
            continue
        seen.add(key)
        text = text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."
        out.append(f"[rank {ln.rank}] {text}" if ln.rank is not None else text)
        where.append(ln.where())
        if len(out) == MAX_EVIDENCE:
            break
    return tuple(out), tuple(where)


def signal_of(code: int | None) -> int | None:
    """Negative exit codes are signals (Popen); 129-192 are 128+signal (shells)."""
    if code is None:
        return None
    if code < 0:
        return -code
    if 128 < code <= 128 + 64:
        return code - 128
    return None


# A fix names what to type; where its command needs a value the evidence holds (the port
# that was taken, the SLURM job), the value goes in, so the command works when pasted:
# ``<port>`` left in ``ss -ltnp | grep <port>`` is a redirect from a file named "port".
_FILLS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "<port>",
        re.compile(
            r"\bport(?::| =| is|:? `)?\s*(\d{2,5})\b"
            r"|\[[\w.:-]*\]:(\d{2,5})\b|\b(?:\d{1,3}\.){3}\d{1,3}:(\d{2,5})\b",
            re.I,
        ),
    ),
    ("<job>", re.compile(r"\bStepId=(\d+)|\b(?:JOB|STEP) (\d+)(?:\.\w+)? ON \S+ CANCELLED")),
)


def filled(fix: str, lines: Iterable[LogLine]) -> str:
    """``fix`` with each placeholder of ``_FILLS`` it holds replaced by the first value the
    evidence ``lines`` give for it (left as it is where they give none)."""
    if "<" not in fix:
        return fix
    texts = [ln.text for ln in lines]
    for holder, pattern in _FILLS:
        if holder not in fix:
            continue
        for text in texts:
            if m := pattern.search(text):
                fix = fix.replace(holder, next(g for g in m.groups() if g))
                break
    return fix


@cache
def _case_pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def worded(rule: fr.Rule, texts: Iterable[str]) -> tuple[str, str]:
    """The cause and fix of the situation ``texts`` (the lines ``rule`` matched, in log
    order with warnings last, joined where wrapped) show: the case of the first line one of
    its cases names, else the rule's own words."""
    for text in texts:
        for case in rule.cases:
            if any(_case_pattern(w).search(text) for w in case.when):
                return case.cause, case.fix
    return rule.cause, rule.fix


def diagnosis(
    hit: Hit, policy: RetryPolicyLike | None, rank: int | None, exit_code: int | None
) -> Diagnosis:
    cat = hit.rule.category
    ev, where = evidence(hit.lines, hit.shown)
    # (a line logged as a warning, a connection retry before the real error, speaks last)
    texts = zip(shown_texts(hit.lines, hit.shown), hit.lines, strict=True)
    cause, fix = worded(hit.rule, (t for t, _ in sorted(texts, key=lambda p: p[1].warned)))
    return Diagnosis(
        category=cat,
        retryable=retryable(cat, hit.rule, policy),
        retry_on_progress=retry_on_progress(cat, hit.rule, policy),
        cause=cause,
        fix=filled(fix, hit.lines),
        evidence=ev,
        rank=rank,
        code=hit.rule.code,
        exit_code=exit_code,
        signal=signal_of(exit_code),
        tier=fr.tier(hit.rule.priority),
        host=hit.host,
        where=where,
    )


def best_per_category(hits: Sequence[Hit], key: Callable[[Hit], Any]) -> list[Hit]:
    """Sort hits best-first by ``key`` and keep the best hit of each category."""
    ordered = sorted(hits, key=key, reverse=True)
    best: dict[str, Hit] = {}
    for h in ordered:
        best.setdefault(h.rule.category, h)
    return list(best.values())


def unknown(
    policy: RetryPolicyLike | None,
    rank: int | None,
    code: int | None,
    lines: Sequence[LogLine] = (),
) -> Diagnosis:
    """The rank that failed first said nothing recognisable: what other ranks report
    (connection closed, timeouts) is the consequence, so the cause stays unknown rather
    than a retryable-looking symptom."""
    cause = fr.UNKNOWN_CAUSE
    fix = fr.UNKNOWN_FIX
    sig = signal_of(code)
    if rank is not None and code not in (None, 0):
        how = f"was killed by signal {_signal_name(sig)}" if sig else f"exited with code {code}"
        cause = f"rank {rank} failed first: it {how} without printing a recognised error."
    if sig in fr.SIGNAL_HINTS:
        fix = f"{fix} {fr.SIGNAL_HINTS[sig]}"
    ev, where = evidence(lines)
    return Diagnosis(
        category="unknown",
        retryable=retryable("unknown", None, policy),
        cause=cause,
        fix=fix,
        evidence=ev,
        rank=rank,
        code=fr.UNKNOWN_CODE,
        exit_code=code,
        signal=signal_of(code),
        tier=1 if rank is not None and code not in (None, 0) else 0,
        where=where,
    )


def _signal_name(sig: int) -> str:
    try:
        return f"{sig} ({_signal.Signals(sig).name})"
    except ValueError:
        return str(sig)


def signal_hit(name: str, priority: int) -> Hit:
    """A hit made from an exit code alone (no log line)."""
    sr = fr.SIGNAL_RULES[name]
    rule = fr.Rule(
        name=f"exit_{sr.name}",
        category=sr.category,
        code=sr.code,
        priority=priority,
        patterns=(),
        cause=sr.cause,
        fix=sr.fix,
    )
    return Hit(rule, ())


def exit_code_hits(
    rank_exit: Mapping[int, int], oom_evidence: bool | None
) -> list[tuple[Hit, int]]:
    """What the exit codes alone say, for ranks whose logs said nothing better.

    A SIGKILL is an OOM kill only with evidence (``oom_evidence``: the cgroup's oom_kill
    counter rose, the kernel log or SLURM said so); a rank SIGKILLed while others were not
    is otherwise ``killed``, by something outside (torchrun and launchx send SIGTERM
    first). When every rank of several was SIGKILLed, the group was killed as a whole and
    nothing names a cause; a lone rank (a direct launch, one process per node) was killed."""
    sigs = {r: signal_of(c) for r, c in rank_exit.items() if c != 0}
    out: list[tuple[Hit, int]] = []
    segv = sorted(r for r, s in sigs.items() if s == _signal.SIGSEGV)
    if segv:
        out.append((signal_hit("sigsegv", 62), segv[0]))
    killed = sorted(r for r, s in sigs.items() if s == _signal.SIGKILL)
    if killed and oom_evidence:
        out.append((signal_hit("oom_sigkill", 63), killed[0]))
    elif killed and (len(killed) < len(rank_exit) or len(rank_exit) == 1):
        out.append((signal_hit("sigkill", 61), killed[0]))
    stopped = [r for r, s in sigs.items() if s in (_signal.SIGINT, _signal.SIGTERM)]
    if sigs and len(stopped) == len(sigs):
        out.append((signal_hit("sigterm_all", 15), min(stopped)))
    return out


def first_timestamp_key(h: Hit) -> float:
    return -h.timestamp if h.timestamp is not None else -math.inf
