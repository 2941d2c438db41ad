"""``launchx status``: what a run is doing now, or how it ended, from its events.

Pure: the events of the run's ``events*.jsonl`` files (``run.events``), whether the
launchx that wrote them still lives, and the time now, in; the text or JSON a person or
a script reads, out. It works from another terminal while the run runs, and after it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import PurePath

from launchx.run.events import ENDINGS, how_it_ended

Event = Mapping[str, object]


@dataclass(frozen=True)
class AttemptState:
    attempt: int
    state: str  # running, ok, failed, interrupted, preempted; unfinished: its launchx died
    started: float | None = None
    duration_s: float | None = None
    category: str | None = None
    rank: int | None = None
    cause: str | None = None
    offered: str | None = None


@dataclass(frozen=True)
class RunState:
    run_id: str
    # running, gone (its launchx died mid-run), or how it ended (events.ENDINGS)
    state: str
    profile: str | None
    started: float | None
    elapsed_s: float | None
    exit_code: int | None
    reason: str | None
    attempts: tuple[AttemptState, ...]
    watch: tuple[str, ...] = field(default=())  # the watch's latest words (straggler, hang)
    log_dir: str | None = None
    # running, as far as its events say, on this host: its launchx could not be checked from
    # here (a compute node's run seen from a login node); when it last wrote an event
    elsewhere: str | None = None
    last_heard_s: float | None = None
    pid: int | None = None  # its launchx's, on the host that started it


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _last_interrupted(attempts: Mapping[int, AttemptState]) -> bool:
    return bool(attempts) and attempts[max(attempts)].state == "interrupted"


def summarise(
    events: Sequence[Event],
    *,
    alive: bool | None,
    now: float,
    main: int | None = None,
    read_from: str | None = None,
) -> RunState:
    """The run's state from its events. ``alive``: whether the launchx that started the run
    lives (``events.launchx_alive``; None when it ran on another host, which is then named
    instead of a guess). Node 0 speaks for the run: where its events are
    there, the other writers' (``events-node-K.jsonl``, ``events-rank-K.jsonl`` of ranks
    that each run launchx, each with its own clock and durations) add only what their
    watches saw. ``main``: how many of ``events`` come from node 0's ``events.jsonl``
    (None: told apart by their ``node`` field). ``read_from``: the directory the events
    were read from, where the run's logs are wherever it wrote them (copied off a cluster),
    and the run's name where no event holds its id (a file cut at the front)."""
    own = (
        list(events[:main])
        if main is not None
        else [e for e in events if _int(e.get("node")) in (None, 0)]
    )
    spoken = own if any(e.get("event") == "run_start" for e in own) else list(events)
    starts = [i for i, e in enumerate(spoken) if e.get("event") == "run_start"]
    start = spoken[starts[0]] if starts else {}
    # the launchx now in charge, and its end: a requeued job's second launchx starts over
    latest = spoken[starts[-1]] if starts else {}
    since = spoken[starts[-1] :] if starts else spoken
    end = next((e for e in reversed(since) if e.get("event") == "run_end"), None)
    speaks = {id(e) for e in spoken}
    attempts: dict[int, AttemptState] = {}
    watch: list[str] = []
    for e in events:
        kind = e.get("event")
        if kind in ("attempt_start", "attempt_end") and id(e) not in speaks:
            continue
        number = _int(e.get("attempt"))
        if kind == "attempt_start" and number is not None:
            attempts[number] = AttemptState(
                number, "running", started=_float(e.get("ts")), offered=_str(e.get("offered"))
            )
        elif kind == "attempt_end" and number is not None:
            before = attempts.get(number, AttemptState(number, "running"))
            attempts[number] = AttemptState(
                number,
                _str(e.get("outcome")) or "failed",
                started=before.started,
                duration_s=_float(e.get("duration_s")),
                category=_str(e.get("category")),
                rank=_int(e.get("rank")),
                cause=_str(e.get("cause")),
                offered=before.offered,
            )
        elif kind == "watch" and e.get("kind") == "hang":
            stuck = e.get("odd") or e.get("ranks")
            watch.append(f"hang: rank(s) {stuck} made no progress for {e.get('quiet_s')} s")
        elif kind == "watch" and e.get("kind") in ("straggler", "stacks_unavailable"):
            words = _str(e.get("text")) or _str(e.get("reason")) or str(e.get("kind"))
            watch.append(words.strip().splitlines()[0])
    started = _float(start.get("ts"))
    last = max((t for e in spoken if (t := _float(e.get("ts"))) is not None), default=None)
    elsewhere = None
    if end is not None:
        code = _int(end.get("exit_code"))
        reason = _str(end.get("reason"))
        ended = how_it_ended(end)
        if ended == "failed" and _last_interrupted(attempts):
            # (a record older than the ended field, of a node that adopted another's interrupt)
            ended = "interrupted"
        state: str = ended or "failed"  # (None: neither a reason nor an exit code)
        elapsed = _float(end.get("duration_s"))
    elif alive is not False:
        code, reason, state = None, None, "running"
        elapsed = now - started if started is not None else None
        if alive is None:
            elsewhere = _str(latest.get("host")) or "an unnamed host"
    else:
        # its launchx died mid-run: nothing is running any more, and the run lasted until
        # its last word, not until now
        code, reason, state = None, None, "gone"
        elapsed = last - started if started is not None and last is not None else None
        attempts = {
            k: replace(a, state="unfinished") if a.state == "running" else a
            for k, a in attempts.items()
        }
    return RunState(
        run_id=_str(start.get("run"))
        or _str(events[0].get("run") if events else None)
        or (PurePath(read_from).name if read_from else "?"),
        state=state,
        profile=_str(start.get("profile")),
        started=started,
        elapsed_s=elapsed,
        exit_code=code,
        reason=reason,
        attempts=tuple(attempts[k] for k in sorted(attempts)),
        watch=tuple(watch[-3:]),
        log_dir=read_from or _str(start.get("log_dir")),
        elsewhere=elsewhere,
        last_heard_s=now - last if elsewhere is not None and last is not None else None,
        pid=_int(latest.get("pid")),
    )


def render(run: RunState, *, as_json: bool = False) -> str:
    if as_json:
        return json.dumps(asdict(run), indent=2) + "\n"
    elapsed = f", {run.elapsed_s:.0f} s" if run.elapsed_s is not None else ""
    if run.state == "gone" and run.elapsed_s is not None:
        elapsed = f", last heard {run.elapsed_s:.0f} s after it started"
    profile = run.profile or "profile not recorded"
    state = run.state
    if run.state == "running" and run.pid is not None:
        state += f" (launchx pid {run.pid})"
    head = f"run {run.run_id} ({profile}): {state}{elapsed}"
    if run.state in ENDINGS:
        code = f"exit {run.exit_code}" if run.exit_code is not None else "exit code not recorded"
        head += f", {code}" + (f": {run.reason}" if run.reason else "")
    if run.state == "gone":
        head += " (its launchx is no longer running and never wrote how the run ended)"
    if run.elsewhere is not None:
        heard = f"; last heard {run.last_heard_s:.0f} s ago" if run.last_heard_s is not None else ""
        head += (
            f" (its launchx runs on {run.elsewhere}, which this host cannot check: the run "
            f"has not ended as far as its events say{heard})"
        )
    lines = [head]
    for a in run.attempts:
        row = f"  attempt {a.attempt}: {a.state}"
        if a.duration_s is not None:
            row += f" after {a.duration_s:.1f} s"
        if a.category:
            row += f", {a.category}" + (f" on rank {a.rank}" if a.rank is not None else "")
        if a.offered:
            row += f" (offered {a.offered})"
        lines.append(row)
    lines += [f"  watch: {w}" for w in run.watch]
    if run.log_dir:
        lines.append(f"  logs: {run.log_dir}")
    return "\n".join(lines) + "\n"
