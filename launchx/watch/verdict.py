"""Is the run hung? Evidence in, one verdict out: pure, no clock reads, no I/O.

The rules (issue 11), each exercised by tests/test_watch_verdict.py:

* **Progress** of a rank is any of: an output line, I/O that grows faster than
  ``busy_io_bps`` (a checkpoint save, a download, DataLoader batches, gloo traffic), its
  stack moving between two samples, or CPU time growing faster than ``busy_cpu`` cores
  (a waiting rank burns ~0.5 % of a core, hangs.md §2). CPU burn does not count once
  ``confirm_samples`` identical stack samples in a row say the rank waits in a collective,
  a device synchronisation or a lock: a CUDA sync spins a core while it waits (§3).
* **Hang**: no rank has made progress for the hang timeout (and, where stacks can be read,
  at least ``stack_rounds_for_hang`` stack rounds were taken during that quiet, so the
  stacks had the chance to move). The odd ranks come first.
* **Straggler**: a few ranks progress while the others have made none for
  ``straggler_fraction`` of the timeout and wait (a peer wait by their stacks, when stacks
  can be read). A warning naming them, never a kill: they are slow, not hung.
* **Suspect**: the ranks have been quiet (no output, I/O or stack movement) for
  ``suspect_fraction`` of the timeout: take a stack round now (stacks are sampled only
  then, never continuously), then every ``resample_s``.
* ``auto`` learns the run's rhythm once output starts: the timeout is ``factor`` × the
  longest gap seen between output lines, at least ``floor_s`` (and at most ``ceiling_s``,
  which the caller sets below the process-group timeout). Until ``learn_gaps`` gaps over
  at least ``floor_s`` of output were seen, ``initial_s`` applies (a first step may
  compile, download, or load for minutes).

The first-step, checkpoint and rank-0-only-evaluation cases never read as a hang because
the working rank's CPU or I/O grows; their peers waiting at a barrier are exactly the
"waiting" ranks of a straggler.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from launchx.watch.frames import (
    PEER_WAITS,
    WAITS,
    Category,
    Frame,
    ProcessStack,
    categorize,
    python_digest,
    where,
)
from launchx.watch.model import ProcSample, RankId
from launchx.watch.policy import HangPolicy

TimeoutSource = Literal["off", "fixed", "initial", "learned"]
StacksState = Literal["unknown", "available", "unavailable"]


# -- policy ---------------------------------------------------------------------------------


# -- the run's rhythm -----------------------------------------------------------------------


@dataclass(frozen=True)
class Rhythm:
    """Gaps between output lines (of any rank), from the first line on."""

    lines: int = 0
    last_line_at: float | None = None
    gaps: int = 0
    longest_gap_s: float = 0.0
    first_line_at: float | None = None

    @property
    def span_s(self) -> float:
        if self.first_line_at is None or self.last_line_at is None:
            return 0.0
        return self.last_line_at - self.first_line_at


def observe_line(rhythm: Rhythm, t: float) -> Rhythm:
    if rhythm.last_line_at is None:
        return Rhythm(1, t, 0, 0.0, t)
    gap = max(0.0, t - rhythm.last_line_at)
    return Rhythm(
        rhythm.lines + 1,
        max(t, rhythm.last_line_at),
        rhythm.gaps + 1,
        max(rhythm.longest_gap_s, gap),
        rhythm.first_line_at,
    )


@dataclass(frozen=True)
class TimeoutChoice:
    seconds: float | None  # None: hang detection is off
    source: TimeoutSource
    detail: str


def choose_timeout(policy: HangPolicy, rhythm: Rhythm) -> TimeoutChoice:
    if policy.mode == "off":
        return TimeoutChoice(None, "off", "hang detection is off")
    if policy.mode == "fixed":
        assert policy.timeout_s is not None
        return TimeoutChoice(policy.timeout_s, "fixed", f"{policy.timeout_s:g} s as set")
    # Learned once enough gaps were seen over at least floor_s of output: a burst of
    # start-up lines is no rhythm (the first step may still compile for minutes).
    if rhythm.gaps >= policy.learn_gaps and rhythm.span_s >= policy.floor_s:
        learned = policy.factor * rhythm.longest_gap_s
        seconds = max(policy.floor_s, learned)
        detail = (
            f"{policy.factor:g} x the longest quiet interval seen "
            f"({rhythm.longest_gap_s:.1f} s over {rhythm.gaps} gaps), floor {policy.floor_s:g} s"
        )
        source: TimeoutSource = "learned"
    else:
        seconds = max(policy.floor_s, policy.initial_s)
        detail = (
            f"until the run's rhythm is known: {policy.learn_gaps} gaps between output lines "
            f"over {policy.floor_s:g} s of output; so far {rhythm.gaps} over "
            f"{rhythm.span_s:.0f} s"
        )
        source = "initial"
    if policy.ceiling_s is not None and seconds > policy.ceiling_s:
        seconds = policy.ceiling_s
        detail += f", capped at {policy.ceiling_s:g} s"
    return TimeoutChoice(round(seconds, 1), source, detail)


# -- per-rank evidence ----------------------------------------------------------------------


@dataclass(frozen=True)
class StackObs:
    """One stack sample of a rank: its main thread, what it means, and the whole dump."""

    t: float
    frames: tuple[Frame, ...]
    category: Category
    key: str  # python_digest: equal across native and plain dumps of the same stack
    stack: ProcessStack

    @staticmethod
    def of(t: float, stack: ProcessStack) -> StackObs:
        main = stack.main
        frames = main.frames if main is not None else ()
        return StackObs(t, frames, categorize(frames), python_digest(frames), stack)


@dataclass(frozen=True)
class RankTrack:
    who: RankId
    pid: int
    first_seen: float
    last_output: float | None = None
    last_busy: float | None = None  # CPU grew faster than busy_cpu over the last interval
    last_io: float | None = None
    last_stack_move: float | None = None
    sample: ProcSample | None = None
    sample_at: float | None = None
    cpu_rate: float = 0.0  # cores, over the last interval
    io_rate: float = 0.0  # bytes/s
    stacks: tuple[StackObs, ...] = ()  # newest last, at most a few
    exited: bool = False


def new_track(who: RankId, pid: int, t: float) -> RankTrack:
    return RankTrack(who, pid, t)


def observe_output(track: RankTrack, t: float) -> RankTrack:
    if track.last_output is not None and track.last_output >= t:
        return track
    return replace(track, last_output=t)


def observe_sample(
    track: RankTrack, sample: ProcSample | None, t: float, policy: HangPolicy
) -> RankTrack:
    """Fold one /proc sample in: growth since the previous one becomes busy/io times."""
    if sample is None or not sample.alive:
        return replace(track, exited=True, sample_at=t)
    prev, prev_t = track.sample, track.sample_at
    if prev is None or prev_t is None or t <= prev_t or not prev.alive:
        return replace(track, sample=sample, sample_at=t)
    dt = t - prev_t
    cpu_rate = max(0.0, sample.cpu_s - prev.cpu_s) / dt
    io_rate = 0.0
    if sample.io_bytes is not None and prev.io_bytes is not None:
        io_rate = max(0, sample.io_bytes - prev.io_bytes) / dt
    return replace(
        track,
        sample=sample,
        sample_at=t,
        cpu_rate=cpu_rate,
        io_rate=io_rate,
        last_busy=t if cpu_rate >= policy.busy_cpu else track.last_busy,
        last_io=t if io_rate >= policy.busy_io_bps else track.last_io,
    )


def observe_stack(track: RankTrack, obs: StackObs, policy: HangPolicy) -> RankTrack:
    moved = track.last_stack_move
    if track.stacks and track.stacks[-1].key != obs.key:
        moved = obs.t
    keep = max(policy.confirm_samples, 2)
    return replace(track, stacks=(*track.stacks, obs)[-keep:], last_stack_move=moved)


def spinning(track: RankTrack, policy: HangPolicy) -> bool:
    """The last ``confirm_samples`` stacks are one and the same wait: CPU is a spin."""
    recent = track.stacks[-policy.confirm_samples :]
    return (
        len(recent) >= policy.confirm_samples
        and len({s.key for s in recent}) == 1
        and recent[-1].category in WAITS
    )


def _latest(*times: float | None) -> float:
    return max(t for t in times if t is not None)


def strong_progress(track: RankTrack) -> float:
    """Output, I/O or a moving stack: progress nothing else can fake."""
    return _latest(track.first_seen, track.last_output, track.last_io, track.last_stack_move)


def last_progress(track: RankTrack, policy: HangPolicy) -> float:
    strong = strong_progress(track)
    if track.last_busy is None or spinning(track, policy):
        return strong
    return max(strong, track.last_busy)


# -- the job --------------------------------------------------------------------------------


@dataclass(frozen=True)
class JobState:
    started_at: float
    rhythm: Rhythm = field(default_factory=Rhythm)
    last_output: float | None = None  # any line, attributed to a rank or not
    stacks: StacksState = "unknown"
    stacks_note: str | None = None  # why stacks cannot be read (said once)
    stack_rounds: tuple[float, ...] = ()  # times of recent stack rounds, newest last


def observe_job_line(job: JobState, t: float) -> JobState:
    last = t if job.last_output is None else max(job.last_output, t)
    return replace(job, rhythm=observe_line(job.rhythm, t), last_output=last)


def observe_round(job: JobState, t: float, *, available: bool, note: str | None) -> JobState:
    state: StacksState = "available" if available else "unavailable"
    return replace(
        job,
        stacks=state,
        stacks_note=note if not available else job.stacks_note,
        stack_rounds=(*job.stack_rounds, t)[-8:],
    )


# -- what the verdict says ------------------------------------------------------------------


@dataclass(frozen=True)
class RankView:
    """One rank as the verdict and the report see it (also what a node sends node 0)."""

    who: RankId
    age_s: float  # since its last progress
    state: str = "?"
    wchan: str = ""
    exited: bool = False
    category: Category | None = None  # None: no stack
    key: str | None = None
    frames: tuple[Frame, ...] = ()  # main thread, innermost first
    where: str | None = None
    source: str | None = None  # py-spy / faulthandler
    cpu_rate: float = 0.0
    io_rate: float = 0.0


@dataclass(frozen=True)
class StackGroup:
    ranks: tuple[int, ...]
    key: str | None
    category: Category | None
    where: str | None
    frames: tuple[Frame, ...]


@dataclass(frozen=True)
class Healthy:
    quiet_s: float
    timeout: TimeoutChoice
    kind: Literal["healthy"] = "healthy"


@dataclass(frozen=True)
class Suspect:
    """Take a stack round now."""

    quiet_s: float
    timeout: TimeoutChoice
    reason: Literal["quiet", "hang", "straggler"]
    kind: Literal["suspect"] = "suspect"


@dataclass(frozen=True)
class Straggler:
    ranks: tuple[RankView, ...]  # the ranks that still work
    waiting: tuple[RankView, ...]  # the ranks that wait for them
    waited_s: float
    timeout: TimeoutChoice
    kind: Literal["straggler"] = "straggler"


@dataclass(frozen=True)
class Hang:
    quiet_s: float
    timeout: TimeoutChoice
    views: tuple[RankView, ...]  # odd ones first, then by rank
    odd: tuple[int, ...]
    groups: tuple[StackGroup, ...]  # groups holding odd ranks first
    stacks_note: str | None = None  # why there are no stacks
    kind: Literal["hang"] = "hang"


Verdict = Healthy | Suspect | Straggler | Hang


def view(track: RankTrack, now: float, policy: HangPolicy) -> RankView:
    s = track.sample
    obs = track.stacks[-1] if track.stacks else None
    return RankView(
        who=track.who,
        age_s=max(0.0, now - last_progress(track, policy)),
        state="exited" if track.exited else (s.state if s else "?"),
        wchan=s.wchan if s else "",
        exited=track.exited,
        category=obs.category if obs else None,
        key=obs.key if obs else None,
        frames=obs.frames if obs else (),
        where=where(obs.frames) if obs else None,
        source=obs.stack.source if obs else None,
        cpu_rate=track.cpu_rate,
        io_rate=track.io_rate,
    )


def strong_quiet_since(tracks: Sequence[RankTrack], job: JobState) -> float:
    """Since when no rank printed, did I/O or moved its stack (CPU burn aside)."""
    return max(_latest(job.last_output, *(strong_progress(t) for t in tracks)), job.started_at)


def judge(tracks: Sequence[RankTrack], job: JobState, now: float, policy: HangPolicy) -> Verdict:
    timeout = choose_timeout(policy, job.rhythm)
    live = [t for t in tracks if not t.exited]
    if timeout.seconds is None or not live:
        return Healthy(0.0, timeout)  # no ranks yet, or all gone: the attempt's end
    limit = timeout.seconds
    output = job.last_output
    quiet_since = max(_latest(output, *(last_progress(t, policy) for t in tracks)), job.started_at)
    strong_since = strong_quiet_since(tracks, job)
    quiet_s = now - quiet_since
    strong_quiet_s = now - strong_since
    rounds_since = [r for r in job.stack_rounds if r >= strong_since]
    can_stack = job.stacks != "unavailable"
    if quiet_s >= limit:
        if can_stack and len(rounds_since) < policy.stack_rounds_for_hang:
            return Suspect(quiet_s, timeout, "hang")
        return hang_of([view(t, now, policy) for t in tracks], quiet_s, timeout, job.stacks_note)
    straggler = _straggler(live, job, now, policy, timeout)
    if straggler is not None:
        return straggler
    if can_stack and strong_quiet_s >= policy.suspect_fraction * limit:
        last_round = job.stack_rounds[-1] if job.stack_rounds else None
        if last_round is None or last_round < strong_since:
            return Suspect(quiet_s, timeout, "quiet")
        if now - last_round >= policy.resample_after(limit):
            return Suspect(quiet_s, timeout, "quiet")
    return Healthy(quiet_s, timeout)


def _straggler(
    live: Sequence[RankTrack],
    job: JobState,
    now: float,
    policy: HangPolicy,
    timeout: TimeoutChoice,
) -> Straggler | Suspect | None:
    assert timeout.seconds is not None
    after = policy.straggler_fraction * timeout.seconds
    waiting = [t for t in live if now - last_progress(t, policy) >= after]
    busy = [t for t in live if now - last_progress(t, policy) < after]
    if not waiting or not busy or len(busy) > len(waiting):
        return None
    wait_start = max(last_progress(t, policy) for t in waiting)
    if job.stacks != "unavailable":
        sampled = bool(job.stack_rounds) and job.stack_rounds[-1] >= wait_start
        if not sampled:
            return Suspect(now - wait_start, timeout, "straggler")
        if not any(t.stacks and t.stacks[-1].category in WAITS for t in waiting):
            return None  # the quiet ranks do something we cannot see: not waiting on a peer
    return Straggler(
        ranks=tuple(view(t, now, policy) for t in busy),
        waiting=tuple(view(t, now, policy) for t in waiting),
        waited_s=now - wait_start,
        timeout=timeout,
    )


# -- the odd one out ------------------------------------------------------------------------


def odd_ones(views: Sequence[RankView]) -> tuple[int, ...]:
    """The ranks that stand out among stuck ones (hangs.md §6, ByteRobust's grouping):
    a rank that exited while the others wait; else ranks not in a peer wait while others
    are (they have not reached the collective); else the minority stack groups when one
    group is the strict largest; without stacks, a rank in uninterruptible sleep (D) or
    the minority kernel wait (wchan)."""
    if not views:
        return ()
    exited = [v for v in views if v.exited]
    if exited and len(exited) < len(views):
        return _ranks(exited)
    stacked = [v for v in views if v.category is not None]
    if stacked:
        peer = [v for v in stacked if v.category in PEER_WAITS]
        other = [v for v in stacked if v.category not in PEER_WAITS]
        if peer and other:
            return _by_group_size(other)
        return _minority(stacked, lambda v: v.key or "")
    in_d = [v for v in views if v.state == "D"]
    if in_d and len(in_d) < len(views):
        return _ranks(in_d)
    return _minority(views, lambda v: f"{v.state}:{v.wchan}")


def _ranks(views: Iterable[RankView]) -> tuple[int, ...]:
    return tuple(sorted(v.who.rank for v in views))


def _by_group_size(views: Sequence[RankView]) -> tuple[int, ...]:
    sizes: dict[str | None, int] = {}
    for v in views:
        sizes[v.key] = sizes.get(v.key, 0) + 1
    ordered = sorted(views, key=lambda v: (sizes[v.key], v.who.rank))
    return tuple(v.who.rank for v in ordered)


def _minority(views: Sequence[RankView], key: Callable[[RankView], str]) -> tuple[int, ...]:
    groups: dict[str, list[RankView]] = {}
    for v in views:
        groups.setdefault(key(v), []).append(v)
    if len(groups) < 2:
        return ()
    sizes = sorted((len(g) for g in groups.values()), reverse=True)
    if sizes[0] == sizes[1]:
        return ()  # no strict majority: nobody stands out
    biggest = max(groups.values(), key=len)
    return _by_group_size([v for v in views if v not in biggest])


def group_stacks(views: Sequence[RankView], odd: Sequence[int]) -> tuple[StackGroup, ...]:
    groups: dict[str | None, list[RankView]] = {}
    for v in views:
        if v.category is not None:
            groups.setdefault(v.key, []).append(v)
    built = [
        StackGroup(
            ranks=tuple(sorted(x.who.rank for x in members)),
            key=key,
            category=members[0].category,
            where=members[0].where,
            frames=max(members, key=lambda x: len(x.frames)).frames,
        )
        for key, members in groups.items()
    ]
    odd_set = set(odd)
    built.sort(key=lambda g: (not (set(g.ranks) & odd_set), -len(g.ranks), g.ranks))
    return tuple(built)


def hang_of(
    views: Sequence[RankView],
    quiet_s: float,
    timeout: TimeoutChoice,
    stacks_note: str | None,
) -> Hang:
    odd = odd_ones(views)
    order = {r: i for i, r in enumerate(odd)}
    ordered = sorted(views, key=lambda v: (order.get(v.who.rank, len(order)), v.who.rank))
    return Hang(
        quiet_s=quiet_s,
        timeout=timeout,
        views=tuple(ordered),
        odd=odd,
        groups=group_stacks(views, odd),
        stacks_note=stacks_note,
    )
