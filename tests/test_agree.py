"""Nodes agree on each attempt's outcome: the policy, pure (the exchange: test_nodes.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from launchx import agree
from launchx.agree import Outcome, combine
from launchx.profile_model import Retry
from launchx.run.decide import AttemptRecord, Policy, RetryAfter, Stop, next_step

POLICY = Policy(Retry())


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
        # ... also over a failure retried only from a checkpoint, when there is none.
        ([outcome(0, "socket_error", tier=1, on_progress=True), BUG_ON_1], BUG_ON_1),
        # A user's stop anywhere stops everyone.
        ([IB_ON_1, SYMPTOM_ON_0, CTRL_C_ON_1], CTRL_C_ON_1),
        # Any failure beats a success.
        ([outcome(0), GLOO_ON_1], GLOO_ON_1),
        # Symptoms only, on both nodes: the lowest node (both say the same anyway).
        ([GLOO_ON_1, SYMPTOM_ON_0], SYMPTOM_ON_0),
        # Two deterministic root causes: the one a rank's output shows beats a crash
        # known only from its exit status (a peer's abort after the other's exception).
        ([outcome(0, "segfault", tier=1, signature=("segfault", 0, "")), BUG_ON_1], BUG_ON_1),
        # ... and even when node 0's rank printed its crash: a native crash can be gloo's
        # teardown of the connection node 1's exception broke, never the other way round.
        (
            [
                outcome(0, "segfault", tier=1, signature=("segfault", 0, "Fatal Python error")),
                BUG_ON_1,
            ],
            BUG_ON_1,
        ),
        # ... and over another node's CUDA OOM, which no peer's death causes either.
        (
            [
                outcome(0, "segfault", tier=1, signature=("segfault", 0, "Fatal Python error")),
                outcome(1, "cuda_oom", tier=1, signature=("cuda_oom", 1, "out of memory")),
            ],
            outcome(1, "cuda_oom"),
        ),
        # ... but not another node's world-size complaint, which is what a surviving
        # node's agent says once a peer died.
        (
            [
                outcome(0, "segfault", tier=1, signature=("segfault", 0, "Fatal Python error")),
                outcome(1, "world_mismatch", tier=1, signature=("world_mismatch", 1, "closed")),
            ],
            outcome(0, "segfault"),
        ),
        # A crash a rank printed still explains the other node's closed connection.
        (
            [
                outcome(0, "segfault", tier=1, signature=("segfault", 0, "Segmentation fault")),
                outcome(1, "gloo_error", tier=1, signature=("gloo_error", 1, "closed")),
            ],
            outcome(0, "segfault"),
        ),
        # ... but not when those words only say a peer went away: node 0's OOM kill, known
        # from its exit status and cgroup, explains node 1's closed connection.
        (
            [
                outcome(0, "host_oom_killed", tier=1, signature=("host_oom_killed", 0, "")),
                outcome(1, "socket_error", tier=1, signature=("socket_error", 8, "closed")),
            ],
            outcome(0, "host_oom_killed"),
        ),
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


def test_a_timeout_on_a_node_without_the_checkpoint_is_retried_from_node_zeros() -> None:
    """Node 1 timed out and sees no checkpoint (its directory is local); node 0, where rank 0
    writes, has step 20: the agreed timeout is retried from it. Without one it is not."""
    timeout = {"tier": 1, "on_progress": True, "step_after": None}
    one = outcome(1, "nccl_watchdog_timeout", **timeout)
    zero = outcome(0, "gloo_error", step_before=None, step_after=20)
    got = combine([one, zero], progress_of=0)
    assert (got.category, got.retryable, got.step_after) == ("nccl_watchdog_timeout", True, 20)
    bare = combine([one, outcome(0, "gloo_error")], progress_of=0)
    assert (bare.category, bare.retryable) == ("nccl_watchdog_timeout", False)
    # Node 1 saw a checkpoint of its own that node 0 does not have: node 0's word decides.
    local = outcome(1, "nccl_watchdog_timeout", **{**timeout, "retryable": True, "step_after": 5})
    assert not combine([local, outcome(0, "gloo_error")], progress_of=0).retryable
    roundtrip = Outcome.from_json(got.to_json())
    assert roundtrip == got and roundtrip.on_progress


def test_a_node_that_went_silent_is_the_cause_of_its_peers_lost_connections() -> None:
    """Node 1's launchx was SIGKILLed: node 0's rank only saw its connection close. The
    silent node stands in as killed, retried from node 0's checkpoint when there is one."""
    lost = outcome(0, "gloo_error", tier=1, step_before=80, step_after=120)
    got = combine(agree.with_gone([lost], [1]), progress_of=0)
    assert (got.node, got.category, got.retryable, got.step_after) == (1, "killed", True, 120)
    assert "node 1's launchx sent no outcome" in got.cause
    no_checkpoint = combine(agree.with_gone([outcome(0, "gloo_error", tier=1)], [1]), 0)
    assert (no_checkpoint.category, no_checkpoint.retryable) == ("killed", False)
    # a cause of its own on a node that reported explains the attempt: the silent node may
    # have died of it (a KeyError's teardown), so it is not blamed
    assert agree.with_gone([BUG_ON_1, SYMPTOM_ON_0], [2]) == [BUG_ON_1, SYMPTOM_ON_0]
    assert agree.with_gone([outcome(0)], [1]) == [outcome(0)]  # nothing failed here
    assert agree.with_gone([lost], []) == [lost]


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


def test_the_attempt_end_event_names_the_agreed_rank_not_this_nodes() -> None:
    """Node 0's own report names no rank (its ranks only lost their peer); the attempt_end it
    writes, which ``launchx status`` reads, names the rank of the agreed outcome."""
    from launchx.diagnosis import Diagnosis, Report
    from launchx.run import text

    mine = Diagnosis("gloo_error", True, "peer gone", "", (), None, "LX522")
    adopted = agree.adopt(record(), outcome(1, "user_code_error", tier=1, signature=("u", 3, "x")))
    assert text.attempt_fields(adopted, Report(primary=mine))["rank"] == 3
    alone = record(category="gloo_error")
    ranked = Diagnosis("gloo_error", True, "", "", (), 2, "LX522")
    assert text.attempt_fields(replace(alone, signature=None), Report(primary=ranked))["rank"] == 2


def test_a_node_told_of_anothers_interrupt_is_interrupted_with_its_code() -> None:
    """Node 1 got no signal: its ranks only lost their peers. Adopting node 1's Ctrl-C,
    node 0 records an interrupt (events: outcome interrupted) and ends with 130."""
    adopted = agree.adopt(record(), CTRL_C_ON_1)
    assert adopted.interrupted and (adopted.category, adopted.exit_code) == ("interrupted", 130)
    step = next_step([adopted], POLICY)
    assert isinstance(step, Stop) and step.exit_code == 130
    assert not agree.adopt(record(), BUG_ON_1).interrupted


def test_json_round_trip() -> None:
    for o in (BUG_ON_1, CTRL_C_ON_1, outcome(0)):
        assert Outcome.from_json(o.to_json()) == o


def test_port_is_next_to_the_store() -> None:
    assert agree.agreement_port(29500) == 29501
    assert agree.agreement_port(65535) == 65534
