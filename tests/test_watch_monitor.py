"""The monitor with an injected clock, a fake /proc and fake stacks: whole scenarios, one
tick per simulated second, no real waiting (the last test runs the real thread briefly)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from launchx.watch.frames import Frame, ProcessStack, ThreadStack
from launchx.watch.model import ProcSample, RankId
from launchx.watch.monitor import HangReport, Monitor, rank_of_line
from launchx.watch.nodes import NodeSummary
from launchx.watch.policy import HangPolicy
from launchx.watch.procfs import RankProc
from launchx.watch.stacks import StackRound
from launchx.watch.verdict import (
    Hang,
)

T = 10.0
USER = Frame("train_step", "train.py", 142)
COLLECTIVE = (Frame("all_reduce", "torch/distributed/distributed_c10d.py", 3252), USER)
SLEEPING = (
    Frame("clock_nanosleep", "libc.so.6", 0, True),
    Frame("next_batch", "data.py", 88),
    USER,
)


def running(step: int) -> tuple[Frame, ...]:
    return (Frame("forward", "model.py", 10 + step % 7), USER)


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@dataclass
class FakeRank:
    pid: int
    rank: int
    cpu: float = 0.0
    io: int = 0
    frames: tuple[Frame, ...] = COLLECTIVE
    alive: bool = True


@dataclass
class World:
    """The fake ranks; a test changes them between ticks."""

    ranks: list[FakeRank]
    visible: bool = True
    stacks_ok: bool = True
    note: str = "py-spy may not read the ranks' stacks (Permission Denied): test"
    calls: list[tuple[tuple[int, ...], bool]] = field(default_factory=list)

    def find_ranks(
        self,
        launcher_pid: int,
        *,
        node: str = "localhost",
        direct: RankId | None = None,
        nproc_per_node: int | None = None,
    ) -> list[RankProc]:
        if not self.visible:
            return []
        return [RankProc(r.pid, RankId(r.rank, r.rank, 0, node)) for r in self.ranks if r.alive]

    def sample(self, pid: int) -> ProcSample | None:
        r = next(r for r in self.ranks if r.pid == pid)
        if not r.alive:
            return None
        return ProcSample(pid, "S", "futex_do_wait", r.cpu, r.io, 0, (), 4)

    def dump(self, pids: Sequence[int], *, native: bool = False) -> StackRound:
        self.calls.append((tuple(pids), native))
        if not self.stacks_ok:
            return StackRound(available=False, note=self.note)
        out = {}
        for r in self.ranks:
            if r.pid in pids:
                thread = ThreadStack(r.pid, "MainThread", r.frames, False, True)
                out[r.pid] = ProcessStack(r.pid, (thread,), "py-spy", native)
        return StackRound(out)


@dataclass
class Run:
    monitor: Monitor
    world: World
    clock: Clock
    events: list[dict[str, object]]
    hangs: list[HangReport]

    def tick(self, seconds: int = 1, each: Callable[[float], None] | None = None) -> None:
        for _ in range(seconds):
            self.clock.t += 1.0
            if each is not None:
                each(self.clock.t)
            self.monitor.tick()

    def names(self) -> list[str]:
        return [str(e["event"]) for e in self.events]


def make(
    tmp_path: Path,
    world: World | None = None,
    policy: HangPolicy | None = None,
    *,
    decide: bool = True,
) -> Run:
    world = world or World([FakeRank(101, 0), FakeRank(102, 1)])
    clock = Clock()
    events: list[dict[str, object]] = []
    hangs: list[HangReport] = []
    monitor = Monitor(
        100,
        policy or HangPolicy(mode="fixed", timeout_s=T),
        tmp_path / "logs",
        on_event=events.append,
        on_hang=hangs.append,
        node="gpu-07",
        decide=decide,
        proc=world,
        stacks=world,
        clock=clock,
        wall=lambda: 1.7e9 + clock.t,
        sleep=lambda _s: None,
    )
    return Run(monitor, world, clock, events, hangs)


def training(run: Run, until: float) -> Callable[[float], None]:
    """Every rank computes and rank 0 prints a line each second, until ``until``."""

    def step(t: float) -> None:
        if t <= until:
            for r in run.world.ranks:
                r.cpu += 0.9
                r.frames = running(int(t))
            run.monitor.note_output(0)

    return step


def test_healthy_run_never_samples_stacks(tmp_path: Path) -> None:
    run = make(tmp_path)
    run.tick(120, training(run, until=1e9))
    assert run.world.calls == []  # stacks only when the ranks look quiet
    assert run.hangs == []
    assert run.names() == ["ranks_found", "timeout_chosen"]


def test_stall_is_named_with_its_stack_within_the_timeout(tmp_path: Path) -> None:
    run = make(tmp_path)
    stall_at = run.clock.t + 20
    run.tick(20, training(run, until=stall_at))
    run.world.ranks[0].frames = COLLECTIVE  # rank 0 waits in all_reduce
    run.world.ranks[1].frames = SLEEPING  # rank 1 never gets there
    rounds_before = len(run.world.calls)
    assert rounds_before == 0
    for _ in range(30):
        run.tick()
        if run.hangs:
            break
    assert len(run.hangs) == 1
    latency = run.clock.t - stall_at
    assert T <= latency <= T + 2
    report = run.hangs[0]
    assert report.hang.odd == (1,)
    assert "rank 1 (node gpu-07, local 1) has not reached the all_reduce that the other rank " in (
        report.text
    )
    assert "it is in clock_nanosleep ← data.py:88 next_batch" in report.text
    assert "rank 0 [collective]: all_reduce ← train.py:142 train_step" in report.text
    # stacks were sampled only once quiet, the second round with native frames, and a
    # final native round for the report
    natives = [native for _pids, native in run.world.calls]
    assert natives[0] is False and natives[-1] is True and len(natives) >= 3
    dump = Path(report.dump_dir or "")
    assert sorted(p.name for p in dump.iterdir()) == [
        "rank0.txt",
        "rank1.txt",
        "report.txt",
        "verdict.json",
    ]
    assert "next_batch (data.py:88)" in (dump / "rank1.txt").read_text()
    assert json.loads((dump / "verdict.json").read_text())["odd"] == [1]
    hang_events = [e for e in run.events if e["event"] == "hang"]
    assert len(hang_events) == 1 and hang_events[0]["odd"] == [1]
    assert hang_events[0]["dump_dir"] == report.dump_dir
    run.tick(5)
    assert len(run.hangs) == 1  # once, then the loop stops the ranks


def test_no_stacks_still_detects_and_says_why_once(tmp_path: Path) -> None:
    run = make(tmp_path)
    run.world.stacks_ok = False
    stall_at = run.clock.t + 5
    run.tick(5, training(run, until=stall_at))
    run.tick(int(T) + 2)
    assert len(run.hangs) == 1
    text = run.hangs[0].text
    assert "no stacks from outside: py-spy may not read the ranks' stacks" in text
    assert "stacks (main thread" not in text
    unavailable = [e for e in run.events if e["event"] == "stacks_unavailable"]
    assert len(unavailable) == 1 and unavailable[0]["fallback"] is False


def test_straggler_is_a_warning_and_the_run_goes_on(tmp_path: Path) -> None:
    run = make(tmp_path)
    run.tick(10, training(run, until=run.clock.t + 10))
    slow, waiting = run.world.ranks[1], run.world.ranks[0]
    waiting.frames = COLLECTIVE

    def computing(t: float) -> None:
        slow.cpu += 0.95
        slow.frames = running(int(t))

    run.tick(int(2 * T), computing)  # twice the hang timeout, silently
    run.tick(10, training(run, until=1e9))  # and then the run goes on
    assert run.hangs == []
    stragglers = [e for e in run.events if e["event"] == "straggler"]
    assert len(stragglers) == 1
    assert stragglers[0]["ranks"] == [1] and stragglers[0]["waiting"] == [0]
    assert "rank 1 kept rank 0 waiting" in str(stragglers[0]["text"])
    assert "they wait in all_reduce" in str(stragglers[0]["text"])


def test_auto_timeout_is_announced_when_learned(tmp_path: Path) -> None:
    policy = HangPolicy(mode="auto", floor_s=5.0, factor=3.0, learn_gaps=3)
    run = make(tmp_path, policy=policy)
    every_other = training(run, until=1e9)
    run.tick(1)
    run.tick(8, lambda t: every_other(t) if int(t) % 2 == 0 else None)
    chosen = [e for e in run.events if e["event"] == "timeout_chosen"]
    assert [(e["source"], e["seconds"]) for e in chosen] == [("initial", 600.0), ("learned", 6.0)]
    assert "3 x the longest quiet interval seen (2.0 s" in str(chosen[-1]["detail"])


def test_output_before_the_ranks_are_found_counts(tmp_path: Path) -> None:
    run = make(tmp_path)
    run.world.visible = False
    run.tick(1)
    run.monitor.note_line("[r1]: loading shards", ts=run.clock.t)
    run.world.visible = True
    run.tick(1)
    track = run.monitor._tracks[1]
    assert track.last_output == run.clock.t - 1
    assert rank_of_line("[r12]: step 3") == 12
    assert rank_of_line("torchrun: warning") is None


def test_a_rank_that_exits_while_others_wait_is_named(tmp_path: Path) -> None:
    world = World([FakeRank(101, 0), FakeRank(102, 1), FakeRank(103, 2)])
    run = make(tmp_path, world)
    run.tick(3, training(run, until=run.clock.t + 3))
    world.ranks[2].alive = False
    run.tick(int(T) + 3)
    assert len(run.hangs) == 1
    assert run.hangs[0].hang.odd == (2,)
    assert "rank 2 (node gpu-07, local 2) exited while the 2 other rank(s) wait" in (
        run.hangs[0].text
    )


def test_several_nodes_never_decide_alone(tmp_path: Path) -> None:
    run = make(tmp_path, decide=False)
    run.tick(3, training(run, until=run.clock.t + 3))
    run.world.ranks[1].frames = SLEEPING
    run.tick(int(T) + 5)
    assert run.hangs == [] and "hang" not in run.names()
    summary = run.monitor.summary()
    again = NodeSummary.model_validate_json(summary.model_dump_json())
    assert again == summary
    assert [r.rank for r in summary.ranks] == [0, 1]
    assert summary.ranks[1].category == "sleep" and summary.ranks[1].age_s >= T
    assert summary.timeout_s == T and summary.node == "gpu-07"
    # node 0 decided: this node writes its dumps for the global verdict
    report = run.monitor.capture()
    assert isinstance(report.hang, Hang) and report.dump_dir is not None
    assert (Path(report.dump_dir) / "rank1.txt").is_file()


def test_the_thread_runs_and_survives_a_broken_sink(tmp_path: Path) -> None:
    world = World([FakeRank(101, 0)])

    def broken(_event: dict[str, object]) -> None:
        raise RuntimeError("sink down")

    monitor = Monitor(
        100,
        HangPolicy(mode="fixed", timeout_s=T),
        tmp_path,
        on_event=broken,
        proc=world,
        stacks=world,
        sample_s=0.01,
    )
    monitor.start()
    deadline = time.monotonic() + 10
    while 1 not in [len(monitor._tracks)] and time.monotonic() < deadline:
        time.sleep(0.01)
    monitor.stop()
    assert len(monitor._tracks) == 1
    assert not any(t.name == "launchx-watch" for t in threading.enumerate())


def test_a_bug_in_a_tick_ends_the_watcher_with_an_event(tmp_path: Path) -> None:
    class Broken(World):
        def sample(self, pid: int) -> ProcSample | None:
            raise ValueError("boom")

    world = Broken([FakeRank(101, 0)])
    events: list[dict[str, object]] = []
    monitor = Monitor(
        100,
        HangPolicy(mode="fixed", timeout_s=T),
        tmp_path,
        on_event=events.append,
        proc=world,
        stacks=world,
        sample_s=0.01,
    )
    monitor.start()
    deadline = time.monotonic() + 10
    while not any(e["event"] == "watch_error" for e in events) and time.monotonic() < deadline:
        time.sleep(0.01)
    monitor.stop()
    errors = [e for e in events if e["event"] == "watch_error"]
    assert errors and "ValueError: boom" in str(errors[0]["error"])
