"""The watcher of one attempt: samples the ranks, asks the verdict, reports a hang.

A thread (``start``/``stop``) calls ``tick`` every ``sample_s``: find the ranks below the
launcher (until found, then now and then), read their /proc counters, ask
``verdict.judge``; when it says *suspect*, take a stack round (plain first, ``--native``
from the second round of a quiet spell on); on a straggler, emit a warning once per
episode; on a hang, take a last native round, write every dump under
``<log_dir>/hang/``, ask the flight recorder for its dump (NCCL runs), emit the event and
call ``on_hang(report)``. It never stops a process: the run loop does, after ``on_hang``.

Tests drive ``tick`` directly with a fake clock, a fake proc reader and fake stacks; the
console pump calls ``note_output`` (or ``note_line``) for each line the ranks print.

With several nodes (``decide=False``) a node never declares a hang on its own (its ranks
may wait for another node's): node 0 combines every node's ``summary()`` with
``nodes.combine`` and each node then calls ``capture(hang)`` for its own dumps.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from launchx.watch import flight
from launchx.watch.frames import ProcessStack
from launchx.watch.hook import HookStacks
from launchx.watch.model import ProcSample, RankId
from launchx.watch.nodes import NodeSummary, summarize
from launchx.watch.policy import HangPolicy
from launchx.watch.procfs import ProcFS, RankProc
from launchx.watch.report import format_stack, headline, render_hang, render_straggler
from launchx.watch.stacks import FallbackStacks, PySpy, StackRound, StackSource
from launchx.watch.verdict import (
    Hang,
    Healthy,
    JobState,
    RankTrack,
    StackObs,
    Straggler,
    Suspect,
    TimeoutChoice,
    Verdict,
    choose_timeout,
    hang_of,
    judge,
    last_progress,
    new_track,
    observe_job_line,
    observe_output,
    observe_round,
    observe_sample,
    observe_stack,
    strong_quiet_since,
    view,
)

Event = dict[str, object]
_RANK_PREFIX = re.compile(r"^\[r(\d+)\]:")  # plan.RANK_PREFIX_TEMPLATE: "[r${rank}]: "
NATIVE_MAX = 8  # ranks per node dumped with --native in one round (0.15-0.9 s each)


def rank_of_line(line: str) -> int | None:
    """The global rank of a console line torchrun prefixed for launchx, else None."""
    match = _RANK_PREFIX.match(line)
    return int(match.group(1)) if match else None


def stack_reader(log_dir: str | Path | None, *, hook: bool) -> StackSource:
    """py-spy first; with ``hook`` (the plan added ``hook.hook_env`` to the ranks), the
    faulthandler hook once py-spy proves unusable."""
    fallback = HookStacks(log_dir) if hook and log_dir else None
    return FallbackStacks(PySpy(), fallback)


class ProcSource(Protocol):
    def find_ranks(
        self,
        launcher_pid: int,
        *,
        node: str = ...,
        direct: RankId | None = ...,
        nproc_per_node: int | None = ...,
    ) -> list[RankProc]: ...

    def sample(self, pid: int) -> ProcSample | None: ...


@dataclass(frozen=True)
class HangReport:
    hang: Hang
    text: str  # the block to print
    dump_dir: str | None  # where the full dumps were written
    flight_ranks: tuple[int, ...] = ()  # ranks asked for a flight-recorder dump


class Monitor:
    def __init__(
        self,
        launcher_pid: int,
        policy: HangPolicy,
        log_dir: str | Path | None,
        *,
        on_event: Callable[[Event], None] | None = None,
        on_hang: Callable[[HangReport], None] | None = None,
        node: str | None = None,
        node_rank: int = 0,
        direct: RankId | None = None,
        nproc_per_node: int | None = None,
        decide: bool | Callable[[], bool] = True,
        flight_recorder: bool = False,
        proc: ProcSource | None = None,
        stacks: StackSource | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        sample_s: float = 1.0,
        rediscover_s: float = 5.0,
        flight_wait_s: float = 10.0,
    ) -> None:
        self.launcher_pid = launcher_pid
        self.policy = policy
        self.log_dir = Path(log_dir) if log_dir else None
        self.on_event = on_event or (lambda _e: None)
        self.on_hang = on_hang or (lambda _r: None)
        self.node = node or os.uname().nodename
        self.node_rank = node_rank
        self.direct = direct
        self.nproc_per_node = nproc_per_node
        self.decide = decide
        self.flight_recorder = flight_recorder
        self.proc: ProcSource = proc or ProcFS()
        self.stacks: StackSource = stacks or FallbackStacks(PySpy(), None)
        self.clock = clock
        self.wall = wall
        self.sleep = sleep
        self.sample_s = sample_s
        self.rediscover_s = rediscover_s
        self.flight_wait_s = flight_wait_s

        self._lock = threading.Lock()
        self._round_lock = threading.Lock()  # one stack round at a time (capture vs tick)
        self._tracks: dict[int, RankTrack] = {}
        self._early_output: dict[int, float] = {}
        self._job = JobState(started_at=clock())
        self._discovered_at: float | None = None
        self._timeout: TimeoutChoice | None = None
        self._said_unavailable = False
        self._straggling: tuple[int, ...] = ()
        self._verdict: Verdict | None = None
        self.report: HangReport | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- input from the console pump (any thread) ------------------------------------------

    def note_output(self, rank: int | None = None, ts: float | None = None) -> None:
        t = self.clock() if ts is None else ts
        with self._lock:
            self._job = observe_job_line(self._job, t)
            if rank is None:
                return
            track = self._tracks.get(rank)
            if track is None:
                self._early_output[rank] = t
            else:
                self._tracks[rank] = observe_output(track, t)

    def note_line(self, line: str, ts: float | None = None) -> None:
        self.note_output(rank_of_line(line), ts)

    # -- the loop ---------------------------------------------------------------------------

    def start(self) -> None:
        self._emit("watch_started", launcher_pid=self.launcher_pid, mode=self.policy.mode)
        self._thread = threading.Thread(target=self._run, name="launchx-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def done(self) -> bool:
        return self.report is not None or self._stop.is_set()

    def _run(self) -> None:
        while not self._stop.wait(self.sample_s):
            try:
                self.tick()
            except Exception as exc:  # a watcher's bug must never take the run down
                self._emit("watch_error", error=f"{type(exc).__name__}: {exc}")
                return
            if self.report is not None:
                return

    def tick(self) -> Verdict | None:
        if self.report is not None or self.policy.mode == "off":
            return self._verdict
        now = self.clock()
        with self._lock:
            searching = not self._tracks  # until the ranks appear, look on every tick
        if (
            searching
            or self._discovered_at is None
            or now - self._discovered_at >= self.rediscover_s
        ):
            self._discover(now)
        with self._lock:
            tracks = dict(self._tracks)
        for rank, track in tracks.items():
            if not track.exited:
                tracks[rank] = observe_sample(track, self.proc.sample(track.pid), now, self.policy)
        with self._lock:
            for rank, track in tracks.items():
                # note_output may have moved a track meanwhile: keep its newest output
                current = self._tracks.get(rank, track)
                self._tracks[rank] = replace(track, last_output=current.last_output)
        verdict = self._judge(now)
        self._say_timeout()
        if isinstance(verdict, Suspect):
            # Plain first (cheap, shows whether stacks move); native once the spell goes on.
            self._stack_round(native=self._rounds_this_quiet() >= 1)
            verdict = self._judge(self.clock())
        if isinstance(verdict, Straggler):
            self._straggler(verdict)
        elif isinstance(verdict, Healthy):
            self._straggling = ()
        if isinstance(verdict, Hang) and self._decides():
            self._finish(verdict)
        self._verdict = verdict
        return verdict

    def _decides(self) -> bool:
        """``decide`` as it stands now: a node's say can change while it runs (a node cut
        off from node 0 decides alone; see ``run.watching.decides_alone``)."""
        return self.decide() if callable(self.decide) else self.decide

    def _rounds_this_quiet(self) -> int:
        with self._lock:
            since = strong_quiet_since(list(self._tracks.values()), self._job)
            return sum(1 for r in self._job.stack_rounds if r >= since)

    def _judge(self, now: float) -> Verdict:
        with self._lock:
            return judge(list(self._tracks.values()), self._job, now, self.policy)

    def _discover(self, now: float) -> None:
        found = self.proc.find_ranks(
            self.launcher_pid,
            node=self.node,
            direct=self.direct,
            nproc_per_node=self.nproc_per_node,
        )
        self._discovered_at = now
        changed = False
        with self._lock:
            for rp in found:
                old = self._tracks.get(rp.who.rank)
                if old is not None and old.pid == rp.pid:
                    continue
                track = new_track(rp.who, rp.pid, now)
                early = self._early_output.pop(rp.who.rank, None)
                if early is not None:
                    track = observe_output(track, early)
                self._tracks[rp.who.rank] = track
                changed = True
        if changed:
            self._emit(
                "ranks_found",
                ranks=[
                    {"rank": p.who.rank, "local_rank": p.who.local_rank, "pid": p.pid}
                    for p in found
                ],
            )

    def _say_timeout(self) -> None:
        with self._lock:
            choice = choose_timeout(self.policy, self._job.rhythm)
        old = self._timeout
        if old is None or old.source != choice.source or _grew(old.seconds, choice.seconds):
            self._timeout = choice
            self._emit(
                "timeout_chosen",
                seconds=choice.seconds,
                source=choice.source,
                detail=choice.detail,
            )

    # -- stacks -----------------------------------------------------------------------------

    def _pids(self) -> list[int]:
        with self._lock:
            return [t.pid for t in self._tracks.values() if not t.exited]

    def _stack_round(self, *, native: bool, pids: Sequence[int] | None = None) -> StackRound:
        targets = list(pids) if pids is not None else self._pids()
        with self._round_lock:
            got = self.stacks.dump(targets, native=native and len(targets) <= NATIVE_MAX)
        t = self.clock()
        with self._lock:
            by_pid = {tr.pid: rank for rank, tr in self._tracks.items()}
            for pid, stack in got.stacks.items():
                rank = by_pid.get(pid)
                if rank is not None:
                    self._tracks[rank] = observe_stack(
                        self._tracks[rank], StackObs.of(t, stack), self.policy
                    )
            self._job = observe_round(self._job, t, available=got.available, note=got.note)
        if got.note and not self._said_unavailable:
            self._said_unavailable = True
            self._emit("stacks_unavailable", reason=got.note, fallback=got.available)
        return got

    # -- outcomes ---------------------------------------------------------------------------

    def _straggler(self, s: Straggler) -> None:
        ranks = tuple(v.who.rank for v in s.ranks)
        if ranks == self._straggling:
            return
        self._straggling = ranks
        self._emit(
            "straggler",
            ranks=list(ranks),
            waiting=[v.who.rank for v in s.waiting],
            waited_s=round(s.waited_s, 1),
            where={str(v.who.rank): v.where for v in s.ranks},
            text=render_straggler(s),
        )

    def _finish(self, hang: Hang) -> None:
        report = self.capture(hang)
        self.on_hang(report)

    def capture(self, hang: Hang | None = None) -> HangReport:
        """The last word on a hang: a native stack round (DataLoader workers of the odd
        ranks included), every dump written under ``<log_dir>/hang``, the flight
        recorder asked, the event emitted. ``hang`` comes from node 0 on several nodes;
        without it, the local verdict."""
        now = self.clock()
        with self._lock:
            tracks = list(self._tracks.values())
            job = self._job
        local = hang or judge(tracks, job, now, replace(self.policy, stack_rounds_for_hang=0))
        if not isinstance(local, Hang):  # asked without a local hang: describe what is
            views = [view(t, now, self.policy) for t in tracks]
            local = hang_of(views, 0.0, choose_timeout(self.policy, job.rhythm), job.stacks_note)
        final = self._stack_round(native=True) if job.stacks != "unavailable" else StackRound()
        workers = self._worker_stacks(local)
        if hang is None:  # refresh the local verdict with the native stacks just taken
            with self._lock:
                views = [view(t, now, self.policy) for t in self._tracks.values()]
                note = self._job.stacks_note
            local = hang_of(views, local.quiet_s, local.timeout, note)
        dump_dir = self._write_dumps(local, final, workers)
        self._emit(
            "hang",
            ranks=[v.who.rank for v in local.views],
            odd=list(local.odd),
            quiet_s=round(local.quiet_s, 1),
            timeout_s=local.timeout.seconds,
            headline=headline(local),
            dump_dir=dump_dir,
        )
        asked = self._flight() if self.flight_recorder and self.log_dir else ()
        text = render_hang(local, dump_dir=dump_dir, flight_ranks=asked)
        if dump_dir:
            _write(Path(dump_dir) / "report.txt", text)
        self.report = HangReport(local, text, dump_dir, asked)
        return self.report

    def _worker_stacks(self, hang: Hang) -> dict[int, list[ProcessStack]]:
        """Stacks of the odd ranks' DataLoader workers: a deadlocked worker is a hang."""
        with self._lock:
            by_rank = dict(self._tracks)
        kids: dict[int, int] = {}
        for rank in hang.odd[:4]:
            track = by_rank.get(rank)
            if track is not None and track.sample is not None:
                for pid in track.sample.children[:8]:
                    kids[pid] = rank
        if not kids:
            return {}
        got = self.stacks.dump(list(kids), native=False)
        out: dict[int, list[ProcessStack]] = {}
        for pid, stack in got.stacks.items():
            out.setdefault(kids[pid], []).append(stack)
        return out

    def _write_dumps(
        self, hang: Hang, final: StackRound, workers: Mapping[int, list[ProcessStack]]
    ) -> str | None:
        if self.log_dir is None:
            return None
        out = self.log_dir / "hang"
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError:
            return None
        with self._lock:
            tracks = dict(self._tracks)
        for rank, track in sorted(tracks.items()):
            parts = [f"{track.who.label()} pid {track.pid}\n"]
            if track.sample is not None:
                s = track.sample
                parts.append(
                    f"/proc: state {s.state} wchan {s.wchan or '-'} cpu {s.cpu_s:.2f} s "
                    f"io {s.io_bytes} B threads {s.threads} children {list(s.children)}\n"
                )
            stack = final.stacks.get(track.pid) or (
                track.stacks[-1].stack if track.stacks else None
            )
            failure = final.failures.get(track.pid)
            if stack is not None:
                parts.append(format_stack(stack))
            elif failure is not None:
                parts.append(f"no stack: {failure.kind}: {failure.detail}\n")
            for worker in workers.get(rank, []):
                parts.append("DataLoader/child process:\n" + format_stack(worker))
            _write(out / f"rank{rank}.txt", "".join(parts))
        summary = {
            "node": self.node,
            "odd": list(hang.odd),
            "quiet_s": hang.quiet_s,
            "timeout_s": hang.timeout.seconds,
            "ranks": [
                {
                    "rank": v.who.rank,
                    "local_rank": v.who.local_rank,
                    "node_rank": v.who.node_rank,
                    "age_s": round(v.age_s, 1),
                    "state": v.state,
                    "wchan": v.wchan,
                    "category": v.category,
                    "where": v.where,
                }
                for v in hang.views
            ],
        }
        _write(out / "verdict.json", json.dumps(summary, indent=1) + "\n")
        return str(out)

    def _flight(self) -> tuple[int, ...]:
        assert self.log_dir is not None
        started = self.wall()
        asked = flight.trigger_flight_dumps(self.log_dir)
        deadline = self.clock() + self.flight_wait_s
        while asked and self.clock() < deadline:
            dumps = flight.flight_dumps(self.log_dir)
            fresh = [r for r in asked if r in dumps and _mtime(dumps[r]) >= started - 1]
            if len(fresh) == len(asked):
                break
            self.sleep(0.2)
        return asked

    # -- for the other nodes ----------------------------------------------------------------

    def summary(self) -> NodeSummary:
        now = self.clock()
        with self._lock:
            tracks = list(self._tracks.values())
            job = self._job
        views = [view(t, now, self.policy) for t in tracks]
        latest = max((last_progress(t, self.policy) for t in tracks), default=job.started_at)
        if job.last_output is not None:
            latest = max(latest, job.last_output)
        return summarize(
            views,
            node=self.node,
            node_rank=self.node_rank,
            quiet_s=now - latest,
            timeout=choose_timeout(self.policy, job.rhythm),
            stacks_note=job.stacks_note,
        )

    def _emit(self, name: str, **fields: object) -> None:
        event: Event = {"event": name, "time": self.wall(), "node": self.node, **fields}
        with suppress(Exception):  # a broken sink must not stop the watcher
            self.on_event(event)


def _grew(old: float | None, new: float | None) -> bool:
    if old is None or new is None:
        return old != new
    return new > old * 1.1 or new < old / 1.1


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _write(path: Path, text: str) -> None:
    with suppress(OSError):
        path.write_text(text)
