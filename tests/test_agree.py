"""Nodes agree on each attempt's outcome: the policy (pure) and the exchange (real sockets)."""

from __future__ import annotations

import socket
import threading
import time

import pytest
from conftest import free_port

from launchx import agree
from launchx.agree import Outcome, combine
from launchx.profile_model import Retry
from launchx.run.decide import AttemptRecord, Policy, RetryAfter, Stop, next_step

POLICY = Policy(Retry())


class TickingClock:
    """Time that moves only when asked: each reading advances it by ``tick`` and a sleep by
    its length, so a deadline passes without the test waiting for it."""

    def __init__(self, tick: float = 0.5) -> None:
        self.now = 0.0
        self.tick = tick
        self.slept = 0.0

    def __call__(self) -> float:
        self.now += self.tick
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept += seconds
        self.now += seconds


def outcome(node: int, category: str | None = None, **kw: object) -> Outcome:
    failed = category is not None
    fields: dict[str, object] = {
        "node": node,
        "exit_code": 1 if failed else 0,
        "category": category,
        "retryable": False,
        "tier": 0,
        "cause": f"{category} on node {node}",
        "signature": (category, node, "x") if failed else None,
        "interrupted": False,
        "step_before": None,
        "step_after": None,
    }
    fields.update(kw)
    return Outcome(**fields)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- combine

BUG_ON_1 = outcome(1, "user_code_error", tier=1)
SYMPTOM_ON_0 = outcome(0, "gloo_error", tier=0, retryable=True)
IB_ON_1 = outcome(1, "ib_error", tier=1, retryable=True)
SILENT_DEATH_ON_1 = outcome(1, "unknown", tier=1)
CTRL_C_ON_1 = outcome(1, "interrupted", tier=2, interrupted=True, exit_code=130)


GLOO_ON_1 = outcome(1, "gloo_error", tier=0, retryable=True)


@pytest.mark.parametrize(
    ("pool", "winner"),
    [
        # The root cause on one node beats the other node's symptom, retryable or not.
        ([SYMPTOM_ON_0, BUG_ON_1], BUG_ON_1),
        ([SYMPTOM_ON_0, IB_ON_1], IB_ON_1),
        ([SYMPTOM_ON_0, SILENT_DEATH_ON_1], SILENT_DEATH_ON_1),
        # Between two root causes, the deterministic one: never retry a bug.
        ([outcome(0, "ib_error", tier=1, retryable=True), BUG_ON_1], BUG_ON_1),
        # A user's stop anywhere stops everyone.
        ([IB_ON_1, SYMPTOM_ON_0, CTRL_C_ON_1], CTRL_C_ON_1),
        # Any failure beats a success.
        ([outcome(0), GLOO_ON_1], GLOO_ON_1),
        # Symptoms only, on both nodes: the lowest node (both say the same anyway).
        ([GLOO_ON_1, SYMPTOM_ON_0], SYMPTOM_ON_0),
    ],
)
def test_combine_picks_the_best_explanation(pool: list[Outcome], winner: Outcome) -> None:
    for order in (pool, list(reversed(pool))):  # the order of arrival never matters
        got = combine(order)
        assert (got.node, got.category, got.retryable) == (
            winner.node,
            winner.category,
            winner.retryable,
        )


def test_two_successes_agree_on_success() -> None:
    assert not combine([outcome(1), outcome(0)]).failed


def test_equal_evidence_goes_to_the_lowest_node() -> None:
    a, b = outcome(0, "ib_error", tier=1, retryable=True), outcome(1, "ib_error", tier=1)
    # Not retryable wins over retryable at equal tier, before the node order is looked at.
    assert combine([a, b]).node == 1
    c = outcome(1, "ib_error", tier=1, retryable=True)
    assert combine([c, a]).node == 0


def test_progress_comes_from_node_zero() -> None:
    zero = outcome(0, "gloo_error", step_before=10, step_after=20, retryable=True)
    one = outcome(1, "ib_error", tier=1, retryable=True, step_before=None, step_after=None)
    got = combine([one, zero], progress_of=0)
    assert (got.category, got.step_before, got.step_after) == ("ib_error", 10, 20)


def test_combine_needs_an_outcome() -> None:
    with pytest.raises(ValueError):
        combine([])


def record(**kw: object) -> AttemptRecord:
    base: dict[str, object] = {
        "attempt": 0,
        "exit_code": 1,
        "duration_s": 1.0,
        "category": "gloo_error",
        "retryable": True,
        "signature": ("gloo_error", 0, "connection closed"),
        "cause": "peer gone",
        "tier": 0,
        "log_dir": "/tmp/logs/attempt_0/node_0",
        "resumed_from": "/ck/step_5.pt",
    }
    base.update(kw)
    return AttemptRecord(**base)  # type: ignore[arg-type]


def test_adopted_record_makes_both_nodes_decide_alike() -> None:
    """Node 0 alone would retry (a transient-looking symptom); adopting node 1's bug it
    stops, with the reason and exit code node 1 has, and keeps its own logs and resume."""
    mine = record()
    assert isinstance(next_step([mine], POLICY), RetryAfter)
    adopted = agree.adopt(mine, BUG_ON_1)
    assert isinstance(next_step([adopted], POLICY), Stop)
    assert (adopted.category, adopted.exit_code, adopted.cause) == (
        "user_code_error",
        1,
        BUG_ON_1.cause,
    )
    assert (adopted.log_dir, adopted.resumed_from) == (mine.log_dir, mine.resumed_from)
    alike = agree.adopt(record(category="user_code_error"), BUG_ON_1)
    assert next_step([adopted], POLICY) == next_step([alike], POLICY)


def test_json_round_trip() -> None:
    for o in (BUG_ON_1, CTRL_C_ON_1, outcome(0)):
        assert Outcome.from_json(o.to_json()) == o


def test_port_is_next_to_the_store() -> None:
    assert agree.agreement_port(29500) == 29501
    assert agree.agreement_port(65535) == 65534


# --------------------------------------------------------------------------- exchange


def _in_thread(fn: object, *args: object) -> tuple[threading.Thread, list[object]]:
    out: list[object] = []
    thread = threading.Thread(target=lambda: out.append(fn(*args)), daemon=True)  # type: ignore[operator]
    thread.start()
    return thread, out


def test_three_nodes_exchange_and_adopt_one_outcome() -> None:
    port = free_port()
    coordinator = agree.Coordinator(port, "run-a")
    try:
        deadline = time.monotonic() + 20
        # Nodes 1 and 2 may report before node 0 gathers (the backlog holds them) or after:
        # the exchange is the same either way.
        reporters = [
            _in_thread(agree.report, "127.0.0.1", port, "run-a", 3, o, deadline)
            for o in (BUG_ON_1, outcome(2, "gloo_error", retryable=True))
        ]
        agreed, missing = coordinator.gather(3, SYMPTOM_ON_0, 3, deadline)
        for thread, _out in reporters:
            thread.join(10)
        assert missing == []
        assert (agreed.node, agreed.category) == (1, "user_code_error")
        assert [out for _t, out in reporters] == [[agreed], [agreed]]
    finally:
        coordinator.close()


def test_missing_node_and_strangers_do_not_block_the_others() -> None:
    port = free_port()
    clock = TickingClock(tick=1.0)
    coordinator = agree.Coordinator(port, "run-b", clock=clock)
    try:
        deadline = time.monotonic() + 10
        stranger = socket.create_connection(("127.0.0.1", port))
        stranger.sendall(b"GET / HTTP/1.0\r\n\r\n")
        other_run = _in_thread(agree.report, "127.0.0.1", port, "run-x", 0, IB_ON_1, deadline)
        stale = _in_thread(agree.report, "127.0.0.1", port, "run-b", 0, IB_ON_1, deadline)
        # Node 0's own deadline passes (on its clock) while nodes 1 and 2 never come.
        agreed, missing = coordinator.gather(1, SYMPTOM_ON_0, 3, clock.now + 5)
        assert missing == [1, 2] and agreed == SYMPTOM_ON_0
        for thread, out in (other_run, stale):
            thread.join(5)
            assert out == [None]  # answered nothing useful: they keep their own outcome
        assert stranger.recv(100) == b""  # closed without an answer
        stranger.close()
    finally:
        coordinator.close()


def test_no_listener_gives_up_after_a_few_refusals_not_at_the_deadline() -> None:
    port = free_port()
    clock = TickingClock(tick=0.0)
    got = agree.report("127.0.0.1", port, "run-c", 0, IB_ON_1, 60.0, clock=clock, sleep=clock.sleep)
    assert got is None
    assert agree.NO_LISTENER_S <= clock.slept < agree.NO_LISTENER_S + 1  # not the 60 s


def test_a_held_port_is_reported_to_the_caller() -> None:
    holder = socket.socket()
    holder.bind(("", 0))
    holder.listen(1)
    try:
        with pytest.raises(OSError):
            agree.Coordinator(holder.getsockname()[1], "run-d")
    finally:
        holder.close()
