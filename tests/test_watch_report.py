"""The hang report and the multi-node combination: what a person reads, from data."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from launchx.spans import ranks_word, spans
from launchx.watch.frames import Frame, ProcessStack, ThreadStack
from launchx.watch.model import RankId
from launchx.watch.nodes import NodeSummary, combine, summarize
from launchx.watch.report import (
    format_stack,
    headline,
    render_hang,
    render_straggler,
)
from launchx.watch.verdict import (
    Hang,
    RankView,
    Straggler,
    TimeoutChoice,
    hang_of,
)

TIMEOUT = TimeoutChoice(120.0, "fixed", "120 s as set")
USER = Frame("train_step", "train.py", 142)
COLLECTIVE = (Frame("all_reduce", "torch/distributed/distributed_c10d.py", 3252), USER)
DATA = (Frame("next_batch", "data.py", 88), Frame("train_step", "train.py", 130))
DDP = (
    Frame("pthread_cond_wait", "libc.so.6", 0, True),
    Frame("c10d::Reducer::finalize_backward", "libtorch_cpu.so", 0, True),
    Frame("_engine_run_backward", "torch/autograd/graph.py", 979),
    USER,
)


def rv(
    rank: int,
    frames: tuple[Frame, ...] | None,
    *,
    node: str = "gpu-07",
    local: int | None = None,
    age: float = 130.0,
    state: str = "S",
    wchan: str = "futex_do_wait",
    exited: bool = False,
) -> RankView:
    from launchx.watch.frames import categorize, python_digest, where

    return RankView(
        who=RankId(rank, rank % 8 if local is None else local, rank // 8, node),
        age_s=age,
        state=state,
        wchan=wchan,
        exited=exited,
        category=categorize(frames) if frames is not None else None,
        key=python_digest(frames) if frames is not None else None,
        frames=frames or (),
        where=where(frames) if frames is not None else None,
        source="py-spy" if frames is not None else None,
    )


def sixteen() -> Hang:
    views = [rv(r, DATA if r == 5 else COLLECTIVE) for r in range(16)]
    return hang_of(views, 130.0, TIMEOUT, None)


def test_rank_ranges() -> None:
    assert spans([0, 1, 2, 3, 4, 6, 7, 15, 14, 13]) == "0-4,6-7,13-15"
    assert spans([3]) == "3" and spans([]) == ""
    assert ranks_word([5]) == "rank 5" and ranks_word([2, 0, 1]) == "ranks 0-2"


def test_the_issue_example() -> None:
    """issue 11: 'rank 5 (node gpu-07, local 5) has not reached the all_reduce that the
    15 other ranks wait in; it is in data.py:88 next_batch', identical stacks grouped."""
    text = render_hang(sixteen(), dump_dir="/logs/attempt_0/hang")
    lines = text.splitlines()
    assert lines[0] == (
        "launchx: hang: no rank has made progress for 130 s (hang timeout 120 s, fixed: "
        "120 s as set)"
    )
    assert lines[1] == (
        "  rank 5 (node gpu-07, local 5) has not reached the all_reduce that the 15 other "
        "ranks wait in; it is in data.py:88 next_batch"
    )
    assert "    rank 5 [running]: data.py:88 next_batch" in lines
    assert "    ranks 0-4,6-15 [collective]: all_reduce ← train.py:142 train_step" in lines
    assert lines.index("    rank 5 [running]: data.py:88 next_batch") < lines.index(
        "    ranks 0-4,6-15 [collective]: all_reduce ← train.py:142 train_step"
    )
    assert "        next_batch (data.py:88)" in lines
    assert lines[-1] == "  full dumps: /logs/attempt_0/hang"
    # the /proc view lists the odd rank first
    proc = lines.index("  /proc (quiet for, main thread state and kernel wait, CPU, I/O):")
    assert lines[proc + 1].startswith("    rank 5 (node gpu-07, local 5): 130 s, S futex_do_wait")


def test_a_large_job_stays_readable() -> None:
    views = [rv(r, DATA if r == 700 else COLLECTIVE) for r in range(1024)]
    views += [rv(2000 + i, (Frame(f"f{i}", "x.py", i), USER)) for i in range(20)]
    text = render_hang(hang_of(views, 130.0, TIMEOUT, None))
    assert len(text.splitlines()) < 120
    assert "more stack groups in the dumps" in text
    assert "    ... 1012 more ranks in the dumps" in text


def test_native_frames_where_they_say_more() -> None:
    views = [rv(0, DDP), rv(1, (Frame("time_sleep", "libpython", 0, True), *DATA))]
    text = render_hang(hang_of(views, 130.0, TIMEOUT, None))
    assert "has not reached the gradient all-reduce (DDP backward) that the other rank" in text
    assert "        [native] c10d::Reducer::finalize_backward" in text
    assert "it is in time_sleep ← data.py:88 next_batch" in text


def test_without_stacks_it_says_why() -> None:
    note = "py-spy may not read the ranks' stacks (Permission Denied): no CAP_SYS_PTRACE"
    views = [rv(0, None), rv(1, None, wchan="hrtimer_nanosleep"), rv(2, None)]
    hang = hang_of(views, 130.0, TIMEOUT, note)
    text = render_hang(hang)
    assert hang.odd == (1,)
    assert (
        "rank 1 (node gpu-07, local 1) stands out: rank 1 is in no stack; /proc shows "
        "state S in hrtimer_nanosleep" in text
    )
    assert f"  no stacks from outside: {note}" in text
    assert "stacks (main thread" not in text
    two = hang_of([rv(0, None), rv(1, None)], 130.0, TIMEOUT, note)
    assert headline(two).startswith("no rank has made progress for 130 s and none stands out")
    assert note in headline(two)


def test_exited_and_nobody_stands_out() -> None:
    views = [rv(0, COLLECTIVE), rv(1, None, exited=True)]
    assert headline(hang_of(views, 130.0, TIMEOUT, None)) == (
        "rank 1 (node gpu-07, local 1) exited while the 1 other rank(s) wait"
    )
    same = [rv(0, DATA), rv(1, (Frame("forward", "model.py", 3), USER))]
    text = headline(hang_of(same, 130.0, TIMEOUT, None))
    assert text.startswith("every rank is stuck and none stands out: ")


def test_straggler_text() -> None:
    s = Straggler(
        ranks=(rv(0, DATA, age=0.0),),
        waiting=(rv(1, COLLECTIVE), rv(2, COLLECTIVE)),
        waited_s=75.0,
        timeout=TIMEOUT,
    )
    assert render_straggler(s) == (
        "launchx: straggler: rank 0 kept ranks 1-2 waiting for 75 s (they wait in "
        "all_reduce ← train.py:142 train_step); rank 0 is in data.py:88 next_batch. "
        "Slow, not hung: the run goes on\n"
    )


def test_format_stack_lists_every_thread() -> None:
    stack = ProcessStack(
        9,
        (
            ThreadStack(10, "pin_memory", (Frame("wait", "threading.py", 320),), False),
            ThreadStack(9, "MainThread", (Frame("0x7f", "libc", 0, True), *DATA), True, True),
        ),
        "py-spy",
        native=True,
    )
    text = format_stack(stack)
    assert text.splitlines()[0] == "pid 9 (py-spy --native)"
    assert "  thread 9 'MainThread' main active:" in text
    assert "0x7f" not in text and "    next_batch (data.py:88)" in text


# -- several nodes --------------------------------------------------------------------------


def node_summary(node: str, node_rank: int, views: list[RankView]) -> NodeSummary:
    return summarize(
        views,
        node=node,
        node_rank=node_rank,
        quiet_s=min(v.age_s for v in views),
        timeout=TIMEOUT,
    )


def test_combine_names_the_global_rank_and_its_node() -> None:
    a = node_summary("gpu-01", 0, [rv(r, COLLECTIVE, node="gpu-01") for r in range(8)])
    b = node_summary(
        "gpu-02",
        1,
        [rv(r, DATA if r == 13 else COLLECTIVE, node="gpu-02") for r in range(8, 16)],
    )
    # what arrived over the wire, one summary received 3 s ago
    received = [NodeSummary.model_validate_json(s.model_dump_json()) for s in (a, b)]
    verdict = combine(received, timeout=TIMEOUT, nnodes=2, delays={1: 3.0})
    assert isinstance(verdict, Hang)
    assert verdict.odd == (13,)
    assert headline(verdict).startswith(
        "rank 13 (node gpu-02, local 5) has not reached the all_reduce that the 15 other"
    )
    assert next(v for v in verdict.views if v.who.rank == 13).age_s == 133.0


def test_combine_waits_for_every_node_and_any_progress() -> None:
    stuck = node_summary("a", 0, [rv(0, COLLECTIVE)])
    working = node_summary("b", 1, [rv(1, DATA, age=2.0)])
    assert combine([stuck], timeout=TIMEOUT, nnodes=2).kind == "healthy"
    assert combine([stuck, working], timeout=TIMEOUT, nnodes=2).kind == "healthy"
    off = TimeoutChoice(None, "off", "off")
    assert combine([stuck, stuck], timeout=off, nnodes=1).kind == "healthy"


@pytest.mark.parametrize(
    "tamper",
    [
        lambda d: d.update(extra="x"),
        lambda d: d["ranks"][0].update(age_s=-1),
        lambda d: d["ranks"][0].update(category="napping"),
        lambda d: d["ranks"][0].update(frames=[d["ranks"][0]["frames"][0]] * 50),
        lambda d: d.update(version=2),
    ],
)
def test_malformed_summaries_are_rejected(tamper: object) -> None:
    good = node_summary("a", 0, [rv(0, COLLECTIVE)]).model_dump(mode="json")
    assert callable(tamper)
    tamper(good)
    with pytest.raises(ValidationError):
        NodeSummary.model_validate(good)
