"""The verdict, table-driven: evidence and an injected "now" in, one verdict out.

Every rule of launchx/watch/verdict.py and every false positive the issue names has a row;
no test reads a clock or waits.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pytest

from launchx.errors import ConfigError
from launchx.watch.frames import Frame, ProcessStack, ThreadStack
from launchx.watch.model import ProcSample, RankId
from launchx.watch.policy import HangPolicy, parse_hang_timeout
from launchx.watch.verdict import (
    JobState,
    RankTrack,
    Rhythm,
    StackObs,
    choose_timeout,
    judge,
    last_progress,
    new_track,
    observe_line,
    observe_output,
    observe_sample,
    observe_stack,
    odd_ones,
    spinning,
    view,
)

T = 10.0
POL = HangPolicy(mode="fixed", timeout_s=T, resample_s=2.0)
USER = Frame("train_step", "train.py", 142)


def py(name: str, filename: str, line: int = 1) -> Frame:
    return Frame(name, filename, line)


def c(name: str) -> Frame:
    return Frame(name, "lib.so", 0, native=True)


COLLECTIVE = (py("all_reduce", "torch/distributed/distributed_c10d.py", 3252), USER)
ALL_GATHER = (py("all_gather", "torch/distributed/distributed_c10d.py", 2900), USER)
BARRIER = (py("barrier", "torch/distributed/distributed_c10d.py", 4100), USER)
SLEEPING = (c("clock_nanosleep"), c("time_sleep"), py("next_batch", "data.py", 88), USER)
SPIN = (c("cudaStreamSynchronize"), c("at::native::_local_scalar_dense_cuda"), USER)
RUN_A = (py("forward", "model.py", 10), USER)
RUN_B = (py("forward", "model.py", 11), USER)
SAVE = (py("save", "torch/serialization.py", 900), py("checkpoint", "train.py", 60))


def who(rank: int) -> RankId:
    return RankId(rank, rank, 0, "gpu-07")


def obs(t: float, frames: tuple[Frame, ...], pid: int = 1) -> StackObs:
    stack = ProcessStack(pid, (ThreadStack(pid, "MainThread", frames, False, True),), "py-spy")
    return StackObs.of(t, stack)


@dataclass
class R:
    """One rank's evidence for a table row."""

    rank: int
    output: float | None = None
    busy: float | None = None
    io: float | None = None
    moved: float | None = None
    stacks: list[tuple[float, tuple[Frame, ...]]] = field(default_factory=list)
    exited: bool = False
    state: str = "S"
    wchan: str = "futex_do_wait"

    def track(self) -> RankTrack:
        sample = ProcSample(100 + self.rank, self.state, self.wchan, 1.0, 0, 0, (), 4)
        return RankTrack(
            who=who(self.rank),
            pid=100 + self.rank,
            first_seen=0.0,
            last_output=self.output,
            last_busy=self.busy,
            last_io=self.io,
            last_stack_move=self.moved,
            sample=sample,
            sample_at=0.0,
            stacks=tuple(obs(t, f, 100 + self.rank) for t, f in self.stacks),
            exited=self.exited,
        )


@dataclass
class Row:
    name: str
    ranks: list[R]
    now: float
    kind: str
    reason: str | None = None  # Suspect.reason
    odd: tuple[int, ...] | None = None  # Hang.odd
    stragglers: tuple[int, ...] | None = None
    rounds: tuple[float, ...] = ()
    stacks: str = "available"
    note: str | None = None
    policy: HangPolicy = POL
    last_output: float | None = None


ROWS = [
    Row("recent output is healthy", [R(0, output=25.0), R(1, busy=26.0)], now=27.0, kind="healthy"),
    Row(
        "no progress for the timeout: hang, the rank outside the collective first",
        [
            R(0, output=5.0, stacks=[(12, COLLECTIVE), (14, COLLECTIVE)]),
            R(1, stacks=[(12, SLEEPING), (14, SLEEPING)]),
        ],
        now=16.0,
        kind="hang",
        odd=(1,),
        rounds=(12.0, 14.0),
    ),
    Row(
        "timeout reached with one stack round: take another before deciding",
        [R(0, output=5.0, stacks=[(12, COLLECTIVE)]), R(1, stacks=[(12, SLEEPING)])],
        now=16.0,
        kind="suspect",
        reason="hang",
        rounds=(12.0,),
    ),
    Row(
        "ptrace denied: hang decided from /proc alone, with the reason",
        [R(0, output=5.0), R(1, wchan="hrtimer_nanosleep")],
        now=16.0,
        kind="hang",
        odd=(),
        stacks="unavailable",
        note="py-spy may not read the ranks' stacks",
    ),
    Row(
        "quiet for half the timeout: take stacks now",
        [R(0, output=5.0), R(1)],
        now=10.5,
        kind="suspect",
        reason="quiet",
    ),
    Row(
        "quiet, stacks just taken: wait for the next round",
        [R(0, output=5.0, stacks=[(10, COLLECTIVE)]), R(1, stacks=[(10, SLEEPING)])],
        now=11.0,
        kind="healthy",
        rounds=(10.0,),
    ),
    Row(
        "quiet, the last round is older than resample_s: take another",
        [R(0, output=5.0, stacks=[(10, COLLECTIVE)]), R(1, stacks=[(10, SLEEPING)])],
        now=12.5,
        kind="suspect",
        reason="quiet",
        rounds=(10.0,),
    ),
    Row(
        "a rank computes while the other waits in a collective: straggler, not hang",
        [
            R(0, output=5.0, stacks=[(11, COLLECTIVE)]),
            R(1, busy=20.0, moved=11.0, stacks=[(11, RUN_A)]),
        ],
        now=20.0,
        kind="straggler",
        stragglers=(1,),
        rounds=(11.0,),
    ),
    Row(
        "a straggler without a stack since the wait began: take one first",
        [R(0, output=5.0), R(1, busy=20.0)],
        now=20.0,
        kind="suspect",
        reason="straggler",
    ),
    Row(
        "the quiet rank is not in a wait by its stack: no straggler warning",
        [
            R(0, output=5.0, stacks=[(19, RUN_A)]),
            R(1, busy=20.0, stacks=[(19, RUN_B)]),
        ],
        now=20.0,
        kind="healthy",
        rounds=(19.0,),
    ),
    Row(
        "GPU ranks spinning in a CUDA sync burn CPU: three identical stacks make it a hang",
        [
            R(0, output=2.0, busy=20.0, stacks=[(14, SPIN), (16, SPIN), (18, SPIN)]),
            R(1, busy=20.0, stacks=[(14, COLLECTIVE), (16, COLLECTIVE), (18, COLLECTIVE)]),
        ],
        now=20.0,
        kind="hang",
        odd=(),
        rounds=(14.0, 16.0, 18.0),
    ),
    Row(
        "two identical waiting stacks are not yet proof of a spin: CPU still counts",
        [
            R(0, output=2.0, busy=20.0, stacks=[(16, SPIN), (18, SPIN)]),
            R(1, busy=20.0, stacks=[(16, COLLECTIVE), (18, COLLECTIVE)]),
        ],
        now=20.0,
        kind="suspect",
        reason="quiet",
        rounds=(16.0, 18.0),
    ),
    Row(
        "a slow checkpoint save (I/O grows) while the peer waits at a barrier: no hang",
        [
            R(0, output=2.0, io=29.0, busy=29.0, stacks=[(8, SAVE)]),
            R(1, stacks=[(8, BARRIER)]),
        ],
        now=30.0,
        kind="straggler",
        stragglers=(0,),
        rounds=(8.0,),
    ),
    Row(
        "rank 0 alone evaluates (CPU) while the others wait at a barrier: no hang",
        [
            R(0, output=2.0, busy=40.0, moved=35.0, stacks=[(35, RUN_B)]),
            R(1, stacks=[(35, BARRIER)]),
            R(2, stacks=[(35, BARRIER)]),
        ],
        now=40.0,
        kind="straggler",
        stragglers=(0,),
        rounds=(35.0,),
    ),
    Row(
        "a long first step: no output yet, one rank compiles or loads (CPU), no hang",
        [R(0, busy=119.0, moved=100.0, stacks=[(100, RUN_A)]), R(1, stacks=[(100, BARRIER)])],
        now=120.0,
        kind="healthy",
        rounds=(100.0,),
        policy=HangPolicy(mode="auto", resample_s=5.0),
    ),
    Row(
        "a long first step: one rank downloads (I/O) while the others wait: no hang",
        [
            R(0, io=299.0, stacks=[(200, SAVE)]),
            R(1, stacks=[(200, BARRIER)]),
            R(2, stacks=[(200, BARRIER)]),
        ],
        now=300.0,
        kind="straggler",
        stragglers=(0,),
        rounds=(200.0,),
        policy=HangPolicy(mode="auto", resample_s=5.0),
    ),
    Row(
        "a stack that moved recently is progress",
        [R(0, output=1.0, moved=15.0, stacks=[(13, RUN_A), (15, RUN_B)]), R(1, moved=15.0)],
        now=18.0,
        kind="healthy",
        rounds=(13.0, 15.0),
    ),
    Row(
        "a rank that exited while the others wait is the odd one",
        [
            R(0, output=1.0, stacks=[(5, COLLECTIVE)]),
            R(1, exited=True),
            R(2, stacks=[(5, COLLECTIVE)]),
        ],
        now=12.0,
        kind="hang",
        odd=(1,),
        rounds=(5.0, 6.0),
    ),
    Row(
        "without stacks, a rank in uninterruptible sleep (a stuck filesystem) stands out",
        [R(0, output=1.0), R(1, state="D", wchan="nfs_wait_bit_killable"), R(2)],
        now=12.0,
        kind="hang",
        odd=(1,),
        stacks="unavailable",
    ),
    Row(
        "without stacks, the minority kernel wait stands out",
        [R(0, output=1.0), R(1, wchan="hrtimer_nanosleep"), R(2), R(3)],
        now=12.0,
        kind="hang",
        odd=(1,),
        stacks="unavailable",
    ),
    Row(
        "a desync: one rank in another collective than the rest",
        [
            R(0, output=1.0, stacks=[(6, COLLECTIVE), (8, COLLECTIVE)]),
            R(1, stacks=[(6, COLLECTIVE), (8, COLLECTIVE)]),
            R(2, stacks=[(6, ALL_GATHER), (8, ALL_GATHER)]),
        ],
        now=12.0,
        kind="hang",
        odd=(2,),
        rounds=(6.0, 8.0),
    ),
    Row(
        "two ranks stuck in different places, none in a collective: nobody stands out",
        [
            R(0, output=1.0, stacks=[(6, RUN_A), (8, RUN_A)]),
            R(1, stacks=[(6, SLEEPING), (8, SLEEPING)]),
        ],
        now=12.0,
        kind="hang",
        odd=(),
        rounds=(6.0, 8.0),
    ),
    Row(
        "most ranks work and one waits: not a straggler (the few must be the slow ones)",
        [R(0, busy=20.0), R(1, busy=20.0), R(2, output=1.0, stacks=[(19, BARRIER)])],
        now=20.0,
        kind="healthy",
        rounds=(19.0,),
    ),
    Row(
        "unattributed output lines are progress too",
        [R(0), R(1)],
        now=20.0,
        kind="healthy",
        last_output=19.0,
    ),
    Row("hang detection off", [R(0), R(1)], now=1e6, kind="healthy", policy=HangPolicy(mode="off")),
    Row("no ranks yet", [], now=1e6, kind="healthy"),
    Row(
        "every rank exited: the attempt is ending, not hung",
        [R(0, output=1.0, exited=True), R(1, exited=True)],
        now=1e6,
        kind="healthy",
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_verdict_table(row: Row) -> None:
    job = JobState(
        started_at=0.0,
        stacks=row.stacks,  # type: ignore[arg-type]
        stacks_note=row.note,
        stack_rounds=row.rounds,
        last_output=row.last_output,
    )
    verdict = judge([r.track() for r in row.ranks], job, row.now, row.policy)
    assert verdict.kind == row.kind, verdict
    if row.reason is not None:
        assert verdict.kind == "suspect" and verdict.reason == row.reason
    if row.odd is not None:
        assert verdict.kind == "hang"
        assert verdict.odd == row.odd
        assert [v.who.rank for v in verdict.views][: len(row.odd)] == list(row.odd)
        assert verdict.stacks_note == row.note
        if row.stacks == "unavailable":
            assert verdict.groups == ()
    if row.stragglers is not None:
        assert verdict.kind == "straggler"
        assert tuple(v.who.rank for v in verdict.ranks) == row.stragglers
        assert verdict.waited_s > 0


def test_hang_groups_identical_stacks_and_puts_the_odd_group_first() -> None:
    ranks = [R(i, stacks=[(6, COLLECTIVE), (8, COLLECTIVE)]) for i in range(16) if i != 5]
    ranks.append(R(5, stacks=[(6, SLEEPING), (8, SLEEPING)]))
    job = JobState(started_at=0.0, stacks="available", stack_rounds=(6.0, 8.0))
    verdict = judge([r.track() for r in ranks], job, 12.0, POL)
    assert verdict.kind == "hang"
    assert verdict.odd == (5,)
    assert [g.ranks for g in verdict.groups] == [(5,), tuple(i for i in range(16) if i != 5)]
    assert verdict.groups[0].category == "sleep"
    assert verdict.groups[1].where == "all_reduce ← train.py:142 train_step"


# -- evidence folding -------------------------------------------------------------------------


def _sample(cpu: float, io: int | None = 0, alive: bool = True) -> ProcSample:
    return ProcSample(1, "S", "", cpu, io, 0, (), 4, alive=alive)


def test_cpu_growth_above_threshold_is_busy() -> None:
    t = new_track(who(0), 1, 0.0)
    t = observe_sample(t, _sample(1.0), 0.0, POL)
    t = observe_sample(t, _sample(1.005), 1.0, POL)  # 0.5 % of a core: a waiting rank
    assert t.last_busy is None and t.cpu_rate == pytest.approx(0.005)
    t = observe_sample(t, _sample(1.905), 2.0, POL)  # 90 %: computing
    assert t.last_busy == 2.0


def test_io_growth_above_threshold_is_progress() -> None:
    t = new_track(who(0), 1, 0.0)
    t = observe_sample(t, _sample(0.0, io=0), 0.0, POL)
    t = observe_sample(t, _sample(0.0, io=200), 1.0, POL)  # a TCPStore poll
    assert t.last_io is None
    t = observe_sample(t, _sample(0.0, io=50_000_000), 2.0, POL)  # a checkpoint
    assert t.last_io == 2.0 and t.io_rate > 1e6
    t = observe_sample(t, _sample(0.0, io=None), 3.0, POL)  # io became unreadable
    assert t.last_io == 2.0


def test_exit_and_reaped_children_never_go_backwards() -> None:
    t = observe_sample(new_track(who(0), 1, 0.0), _sample(5.0), 0.0, POL)
    t = observe_sample(t, _sample(4.0), 1.0, POL)  # a worker's CPU vanished
    assert t.cpu_rate == 0.0
    t = observe_sample(t, None, 2.0, POL)
    assert t.exited
    t2 = observe_sample(new_track(who(1), 2, 0.0), _sample(0, alive=False), 1.0, POL)
    assert t2.exited


def test_output_only_moves_forward() -> None:
    t = observe_output(new_track(who(0), 1, 0.0), 5.0)
    assert observe_output(t, 3.0).last_output == 5.0


def test_stack_moves_and_spin() -> None:
    t = new_track(who(0), 1, 0.0)
    t = observe_stack(t, obs(1.0, RUN_A), POL)
    assert t.last_stack_move is None  # nothing to compare with yet
    t = observe_stack(t, obs(2.0, RUN_B), POL)
    assert t.last_stack_move == 2.0
    t = replace(t, last_busy=10.0)
    for when in (3.0, 4.0):
        t = observe_stack(t, obs(when, SPIN), POL)
    assert not spinning(t, POL) and last_progress(t, POL) == 10.0
    t = observe_stack(t, obs(5.0, SPIN), POL)
    assert spinning(t, POL)
    assert last_progress(t, POL) == 3.0  # the move into the wait, not the spin's CPU
    # a native and a plain dump of one stack are the same stack: no move
    native_again = obs(6.0, (c("0x7f00"), *SPIN))
    assert observe_stack(t, native_again, POL).last_stack_move == 3.0


def test_view_carries_what_the_report_needs() -> None:
    v = view(R(1, output=2.0, stacks=[(5, SLEEPING)]).track(), 12.0, POL)
    assert v.age_s == 10.0 and v.category == "sleep" and v.source == "py-spy"
    assert v.where == "clock_nanosleep ← data.py:88 next_batch"


# -- the timeout ------------------------------------------------------------------------------


def _rhythm(*times: float) -> Rhythm:
    r = Rhythm()
    for t in times:
        r = observe_line(r, t)
    return r


def test_rhythm_counts_gaps_after_the_first_line() -> None:
    r = _rhythm(100.0, 101.0, 104.0, 104.5)
    assert (r.lines, r.gaps, r.longest_gap_s, r.last_line_at) == (4, 3, 3.0, 104.5)
    assert r.span_s == 4.5


def test_auto_before_the_rhythm_is_known_uses_the_initial_timeout() -> None:
    choice = choose_timeout(HangPolicy(), _rhythm(1.0, 2.0))
    assert (choice.seconds, choice.source) == (600.0, "initial")
    assert "5 gaps between output lines over 60 s of output; so far 1 over 1 s" in choice.detail
    # a burst of start-up lines is no rhythm yet, however many
    burst = choose_timeout(HangPolicy(), _rhythm(*[i * 0.01 for i in range(50)]))
    assert burst.source == "initial"


def test_auto_learns_a_safety_factor_over_the_longest_gap() -> None:
    choice = choose_timeout(HangPolicy(), _rhythm(0, 10, 30, 35, 40, 65))
    assert (choice.seconds, choice.source) == (125.0, "learned")
    assert "longest quiet interval seen (25.0 s" in choice.detail


def test_auto_floor_and_ceiling() -> None:
    fast = _rhythm(*[i * 0.5 for i in range(200)])
    assert choose_timeout(HangPolicy(), fast).seconds == 60.0
    slow = _rhythm(0, 100, 200, 300, 400, 500)
    capped = choose_timeout(HangPolicy(ceiling_s=300.0), slow)
    assert capped.seconds == 300.0 and "capped at 300 s" in capped.detail


def test_fixed_and_off() -> None:
    assert choose_timeout(HangPolicy(mode="fixed", timeout_s=42.0), Rhythm()).seconds == 42.0
    assert choose_timeout(HangPolicy(mode="off"), Rhythm()).seconds is None


@pytest.mark.parametrize(
    ("text", "mode", "seconds"),
    [
        ("120", "fixed", 120.0),
        ("0.5", "fixed", 0.5),
        ("90s", "fixed", 90.0),
        ("auto", "auto", None),
        (" OFF ", "off", None),
    ],
)
def test_parse_hang_timeout(text: str, mode: str, seconds: float | None) -> None:
    policy = parse_hang_timeout(text)
    assert (policy.mode, policy.timeout_s) == (mode, seconds)


@pytest.mark.parametrize("text", ["-5", "0", "0.0", "abc", "", "inf", "nan", "12 min"])
def test_parse_hang_timeout_rejects(text: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_hang_timeout(text)
    assert "--hang-timeout" in err.value.message
    assert err.value.hint and "auto" in err.value.hint


def test_odd_ones_with_no_views() -> None:
    assert odd_ones([]) == ()
