"""The real ``Peers`` port: the nodes of a multi-node run adopt one outcome per attempt.

The policy (which outcome explains an attempt best) is ``agree.combine``, pure; the wire
is ``agree.Coordinator`` on node 0 and ``agree.report`` on the others. This module decides
how long to wait: long enough for the slowest node to notice the failure (its collectives
time out after ``pg_timeout_s``), briefly when there is nobody slow to wait for (this node
is stopping and only tells the others, or the others never joined the attempt).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from launchx import agree
from launchx.plan import LaunchPlan
from launchx.run.decide import AttemptRecord
from launchx.run.ports import Console

# Nodes that fail together report within a second or two of each other.
BRIEF_WAIT_S = 5.0


class Alone:
    """A single node (or an srun step, whose outer launchx retries the whole step)."""

    def agree(self, plan: LaunchPlan, record: AttemptRecord, stopping: bool) -> AttemptRecord:
        return record

    def close(self) -> None:
        return None


@dataclass
class NodePeers:
    node_rank: int
    nnodes: int
    master_addr: str
    port: int  # node 0's agreement port (agree.agreement_port of the master port)
    run_id: str
    pg_timeout_s: float
    console: Console
    clock: Callable[[], float] = time.monotonic
    coordinator: agree.Coordinator | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        """Node 0 listens once, before its first attempt starts, so that a node reporting
        early waits in the backlog rather than finding nobody."""
        if self.node_rank != 0:
            return
        try:
            self.coordinator = agree.Coordinator(self.port, self.run_id, clock=self.clock)
        except OSError as exc:
            self.console.write(
                f"launchx: cannot listen on port {self.port} for the other nodes' outcomes "
                f"({exc.strerror}); each node will decide its retries alone\n"
            )

    def close(self) -> None:
        if self.coordinator is not None:
            self.coordinator.close()

    def agree(self, plan: LaunchPlan, record: AttemptRecord, stopping: bool) -> AttemptRecord:
        own = agree.Outcome.of(record, plan.node_rank)
        brief = stopping or record.interrupted or record.category == "rendezvous_timeout"
        wait_s = BRIEF_WAIT_S if brief else self.pg_timeout_s + plan.grace_period_s + 60.0
        deadline = self.clock() + wait_s
        if self.node_rank == 0:
            if self.coordinator is None:
                return record
            agreed, missing = self.coordinator.gather(record.attempt, own, self.nnodes, deadline)
            if missing:
                names = ", ".join(map(str, missing))
                self.console.write(f"launchx: no outcome from node(s) {names} in time\n")
        else:
            answer = agree.report(
                self.master_addr,
                self.port,
                self.run_id,
                record.attempt,
                own,
                deadline,
                clock=self.clock,
            )
            if answer is None:
                self.console.write(
                    "launchx: node 0's launchx did not answer; this node decides on its own\n"
                )
                return record
            agreed = answer
        if agreed.failed and (agreed.node, agreed.category) != (own.node, own.category):
            how = "transient" if agreed.retryable else "not retried"
            self.console.write(
                f"launchx: the nodes agree: {agreed.category} seen by node {agreed.node} ({how})\n"
            )
        return agree.adopt(record, agreed)
