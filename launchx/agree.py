"""Nodes agree on one outcome per attempt, so that every node retries together or none does.

Each node's launchx diagnoses what its own ranks saw. When a rank on node 1 dies of a bug,
node 1 sees the KeyError (not transient: stop) while node 0 sees only "connection closed
by peer", a symptom that looks transient: alone, node 0 would start another attempt and
wait for a rendezvous that node 1 never joins. So after each attempt every node sends its
outcome to node 0's launchx over the run's node channel (``MASTER_PORT + 1``, beside
torchrun's store; ``run.nodes``), node 0 picks the outcome that explains the failure best,
and every node adopts it. A node that cannot reach node 0 in time keeps its own diagnosis
and says so. This module is the policy, pure: ``combine``, ``adopt`` and the wire form.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from launchx.failure_rules import RAISED_BY_THE_SCRIPT, WAITING_ON_PEER
from launchx.run.decide import AttemptRecord


def agreement_port(master_port: int) -> int:
    """Where node 0's launchx listens: next to torchrun's store, known to every node."""
    return master_port + 1 if master_port < 65535 else master_port - 1


# The fields of an attempt's record that every node takes from the agreed outcome (its own
# duration, logs and resume path stay its own; the exit code only when the run failed).
_AGREED = (
    "category",
    "retryable",
    "on_progress",
    "tier",
    "cause",
    "signature",
    "step_before",
    "step_after",
)


@dataclass(frozen=True)
class Outcome:
    """What one node concluded about one attempt: the fields the retry decision reads."""

    node: int
    exit_code: int
    category: str | None
    retryable: bool
    tier: int
    cause: str
    signature: tuple[str, int | None, str] | None
    interrupted: bool
    step_before: int | None
    step_after: int | None
    on_progress: bool = False  # retried only from a checkpoint (RETRIED_ON_PROGRESS)

    @property
    def failed(self) -> bool:
        return self.exit_code != 0 or self.interrupted or self.category is not None

    @classmethod
    def of(cls, rec: AttemptRecord, node: int) -> Outcome:
        return cls(
            node=node,
            exit_code=rec.exit_code,
            interrupted=rec.interrupted,
            **{name: getattr(rec, name) for name in _AGREED},
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        """The outcome a node sent, or ``ValueError``/``TypeError``/``KeyError`` when it is
        not one (the channel drops such a frame)."""
        if not isinstance(data, Mapping):
            raise TypeError("an outcome is an object")
        for name in ("step_before", "step_after"):
            if not (data.get(name) is None or type(data.get(name)) is int):
                raise ValueError(f"{name} is not a step")
        sig = data.get("signature")
        if sig is not None and not (isinstance(sig, list | tuple) and len(sig) == 3):
            raise ValueError("signature is not (category, rank, text)")
        if sig is not None and not (sig[1] is None or type(sig[1]) is int):
            raise ValueError("signature's rank is not a rank")
        return cls(
            node=int(data["node"]),
            exit_code=int(data["exit_code"]),
            category=None if data.get("category") is None else str(data["category"]),
            retryable=bool(data["retryable"]),
            on_progress=bool(data.get("on_progress", False)),
            tier=int(data["tier"]),
            cause=str(data.get("cause", "")),
            signature=None if sig is None else (str(sig[0]), sig[1], str(sig[2])),
            interrupted=bool(data.get("interrupted", False)),
            step_before=data.get("step_before"),
            step_after=data.get("step_after"),
        )


def _weight(o: Outcome) -> tuple[bool, int, bool, bool, int]:
    """Higher explains the attempt better: a failure over a success, a root cause (tier 1)
    or an outside stop (tier 2) over a symptom (tier 0), and, between equals, a failure
    that is not transient, not even from a checkpoint (never retry a deterministic bug),
    then one read from a rank's own words over one inferred from an exit status alone (a
    rank that raised KeyError explains its peer's crash in the closed connection, not the
    other way round), unless those words only say that a peer went away (an OOM kill or a
    dead launcher on one node explains the other's closed connection), then the lowest
    node."""
    read = o.signature is not None and bool(o.signature[2]) and o.category not in WAITING_ON_PEER
    return (o.failed, o.tier, not (o.retryable or o.on_progress), read, -o.node)


def _exception_over_crash(best: Outcome, pool: list[Outcome]) -> Outcome:
    """A native crash can be how a rank ends when its peer vanished (gloo's teardown of the
    broken connection segfaults), while a peer's death does not raise the script's own
    KeyError or run a GPU out of memory: between a segfault and such an error that explain
    the attempt equally well otherwise, the error is the cause. Only those: a crash still
    outweighs another node's world-size complaint or rendezvous error, which are what a
    surviving node's agent says after a peer died. (An exception that a dead peer can
    cause, an EOFError from its closed pipe, reads as the script's too; the lowest node
    decided such a tie before, and neither order is right every time.)"""
    if best.category != "segfault":
        return best
    even = [
        o
        for o in pool
        if o.category in RAISED_BY_THE_SCRIPT and _weight(o)[:4] == _weight(best)[:4]
    ]
    return max(even, key=_weight) if even else best


def gone(node: int) -> Outcome:
    """What a node that sent no outcome stands for: its launchx went silent mid-attempt
    (SIGKILLed, or its host went down), taking its ranks with it. A bare kill: retried only
    from a checkpoint, like any SIGKILL whose reason no log gives."""
    return Outcome(
        node=node,
        exit_code=128 + 9,
        category="killed",
        retryable=False,
        on_progress=True,
        tier=2,
        cause=(
            f"node {node}'s launchx sent no outcome: it was killed or its host went down, "
            "and its ranks with it; the other nodes' errors are their lost connections"
        ),
        signature=("killed", None, f"node {node} gone"),
        interrupted=False,
        step_before=None,
        step_after=None,
    )


def with_gone(heard: Sequence[Outcome], missing: Sequence[int]) -> list[Outcome]:
    """The outcomes to combine when nodes went silent: theirs stand in as killed, unless a
    node that reported has a cause of its own (a KeyError, an OOM): that one explains the
    attempt, and the silent node may have died of it. Peers that only lost a connection
    (``WAITING_ON_PEER``) or stopped for another node (``aborted``) explain nothing."""
    pool = list(heard)
    consequences = {*WAITING_ON_PEER, "aborted", None}
    failed = [o for o in pool if o.failed]
    if not missing or not failed or any(o.category not in consequences for o in failed):
        return pool
    return [*pool, *(gone(n) for n in missing)]


def combine(outcomes: Iterable[Outcome], progress_of: int = 0) -> Outcome:
    """The outcome every node adopts. Checkpoint progress comes from one node (node 0,
    where rank 0 usually writes) so that every node charges the retry budget alike."""
    pool = list(outcomes)
    if not pool:
        raise ValueError("combine needs at least one outcome")
    best = _exception_over_crash(max(pool, key=_weight), pool)
    steps = next((o for o in pool if o.node == progress_of), best)
    # A failure retried only from a checkpoint: whether one exists is the progress node's
    # word too (the failed node may not see the checkpoint directory).
    retryable = (steps.step_after is not None) if best.on_progress else best.retryable
    return replace(
        best, retryable=retryable, step_before=steps.step_before, step_after=steps.step_after
    )


def adopt(rec: AttemptRecord, agreed: Outcome) -> AttemptRecord:
    """This node's record of the attempt, with the agreed diagnosis and progress."""
    return replace(
        rec,
        exit_code=agreed.exit_code if agreed.failed else rec.exit_code,
        # a node told of another's interrupt was interrupted too (it got no signal itself)
        interrupted=rec.interrupted or agreed.interrupted,
        **{name: getattr(agreed, name) for name in _AGREED},
    )
