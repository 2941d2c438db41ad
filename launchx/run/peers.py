"""The real ``Peers`` port: the nodes of a multi-node run adopt one outcome per attempt.

The policy (which outcome explains an attempt best) is ``agree.combine``, pure; the wire is
the run's authenticated node channel (``run.nodes``). This module decides how long to wait:
long enough for the slowest node to notice the failure (without the channel's early abort,
its collectives time out after ``pg_timeout_s``), briefly when there is nobody slow to wait
for (this node is stopping and only tells the others, or the others never joined).
"""

from __future__ import annotations

from dataclasses import dataclass

from launchx import agree
from launchx.plan import LaunchPlan
from launchx.run.decide import AttemptRecord
from launchx.run.nodes import NodeChannel
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
    nodes: NodeChannel
    pg_timeout_s: float
    console: Console

    def close(self) -> None:
        self.nodes.close()

    def agree(self, plan: LaunchPlan, record: AttemptRecord, stopping: bool) -> AttemptRecord:
        own = agree.Outcome.of(record, plan.node_rank)
        brief = stopping or record.interrupted or record.category == "rendezvous_timeout"
        if brief and plan.node_rank != 0 and not self.nodes.reached_node_0:
            # node 0's launchx never came: nobody to tell, and waiting for it only delays
            # the stop (node 0 names this node as one that never joined, if it comes)
            self.console.write(
                "launchx: node 0's launchx never connected; this node decides alone\n"
            )
            return record
        wait_s = BRIEF_WAIT_S if brief else self.pg_timeout_s + plan.grace_period_s + 60.0
        answer = self.nodes.agree(record.attempt, own, wait_s)
        if answer is None:
            if plan.node_rank == 0:
                said = "this node could not listen for the other nodes"
            else:
                said = "node 0's launchx did not answer (or is gone)"
            self.console.write(f"launchx: {said}; this node decides on its own\n")
            return record
        agreed, missing = answer
        never = self.nodes.never_joined()
        silent = [n for n in missing if n not in never]
        if silent:
            names = ", ".join(map(str, silent))
            self.console.write(f"launchx: no outcome from node(s) {names} in time\n")
        if never:
            names = ", ".join(map(str, sorted(never)))
            self.console.write(
                f"launchx: node(s) {names} never joined: their launchx did not connect to "
                f"this node's port {self.nodes.port} (not started, started with other "
                "options, or the port is blocked)\n"
            )
        if agreed.failed and (agreed.node, agreed.category, agreed.retryable) != (
            own.node,
            own.category,
            own.retryable,
        ):
            how = "not retried"
            if agreed.retryable:
                how = "retryable from a checkpoint" if agreed.on_progress else "transient"
            self.console.write(
                f"launchx: the nodes agree: {agreed.category} seen by node {agreed.node} ({how})\n"
            )
        return agree.adopt(record, agreed)
