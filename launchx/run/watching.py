"""The hang watch of one attempt, as the run loop uses it (``watch.monitor.Monitor``).

The monitor starts when the launcher does (it needs the launcher's pid to find the
ranks), hears every line of output, and on a hang prints its report and stops the attempt
through the supervisor, which gives the ranks the usual grace and then kills what is
left: the attempt ends as ``hang``, a transient failure, and the loop retries it from the
newest checkpoint. Stragglers and what the watch chose or could not do are said once, on
the console and in the events.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from launchx.execute import Supervisor
from launchx.plan import LaunchPlan
from launchx.run import livestatus
from launchx.run.decide import HangFound
from launchx.run.nodes import AttemptHooks, NodeChannel
from launchx.run.ports import Console, Events
from launchx.watch.model import RankId
from launchx.watch.monitor import HangReport, Monitor, stack_reader
from launchx.watch.nodes import NodeSummary
from launchx.watch.policy import HangPolicy

# What the watch says on the console (the rest only goes to the events).
_SAID = ("timeout_chosen", "stacks_unavailable", "straggler", "watch_error")


@dataclass(frozen=True)
class WatchSetup:
    policy: HangPolicy
    console: Console
    events: Events
    nccl: bool = False  # the flight recorder is on: ask it for a dump on a hang
    direct_rank: int | None = None  # a direct launch: the launcher is this rank
    nodes: NodeChannel | None = None  # several nodes: node 0 decides on every node's summary
    # A terminal: redraw the status under the output every second; else None, and the
    # console gets a heartbeat line every ``heartbeat_s``.
    status: Callable[[list[str]], None] | None = None
    heartbeat_s: float = livestatus.HEARTBEAT_S
    run_started: float = field(default_factory=time.monotonic)


def decides_alone(nodes: NodeChannel | None) -> bool:
    """Whether this node's watch declares a hang on its own evidence: with one node, or
    when the node channel says so (``NodeChannel.decides_alone``: node 0 that could not
    listen, another node cut off from node 0). Otherwise node 0 decides on every node's
    summary (the verdict needs all of them)."""
    return nodes is None or nodes.decides_alone()


@dataclass
class Watching:
    setup: WatchSetup
    plan: LaunchPlan
    supervisor: Supervisor
    found: HangFound | None = None
    monitor: Monitor | None = field(default=None, init=False)
    _shown: threading.Event = field(default_factory=threading.Event, init=False)
    _shower: threading.Thread | None = field(default=None, init=False)

    def start(self, launcher_pid: int) -> None:
        plan, setup = self.plan, self.setup
        direct = None
        if plan.launcher == "direct":
            rank = setup.direct_rank or 0
            direct = RankId(rank, 0, plan.node_rank, socket.gethostname())
        self.monitor = Monitor(
            launcher_pid,
            setup.policy,
            plan.log_dir,
            on_event=self._event,
            on_hang=self._hang,
            node_rank=plan.node_rank,
            direct=direct,
            nproc_per_node=plan.nproc_per_node,
            flight_recorder=setup.nccl,
            stacks=stack_reader(plan.log_dir, hook=True),
            decide=lambda: decides_alone(setup.nodes),
        )
        self.monitor.start()
        self._shower = threading.Thread(target=self._show, name="launchx-status", daemon=True)
        self._shower.start()

    def hooks(self, abort: Callable[[str], None]) -> AttemptHooks:
        """What the other nodes may do to this attempt: stop it (a node failed), or stop it
        as a hang node 0 found on every node's summaries."""
        return AttemptHooks(
            abort=abort,
            summary=self.monitor.summary if self.monitor is not None else None,
            hang=self._run_hang,
        )

    def _run_hang(self, hang: object) -> None:
        if self.monitor is None or self.found is not None:
            return
        self._hang(self.monitor.capture(hang))  # type: ignore[arg-type]

    def note_output(self, rank: int | None, ts: float) -> None:
        if self.monitor is not None:
            self.monitor.note_output(rank, ts)

    def stop(self) -> None:
        self._shown.set()
        if self._shower is not None:
            self._shower.join(5)
        if self.setup.status is not None:
            self.setup.status([])
        if self.monitor is not None:
            self.monitor.stop()

    def _show(self) -> None:
        """The status under a terminal's output, once a second; a heartbeat line off one."""
        started = time.monotonic()
        every = 1.0 if self.setup.status is not None else self.setup.heartbeat_s
        while not self._shown.wait(every):
            monitor = self.monitor
            if monitor is None or self.found is not None:
                continue
            with contextlib.suppress(Exception):  # the status must never stop a run
                now = time.monotonic()
                clock = livestatus.RunClock(
                    self.plan.attempt, now - self.setup.run_started, now - started
                )
                summaries = [monitor.summary()]
                if self.setup.nodes is not None:
                    peers = self.setup.nodes.peer_summaries()
                    summaries += [s for s in peers if isinstance(s, NodeSummary)]
                if self.setup.status is not None:
                    width = shutil.get_terminal_size((100, 24)).columns
                    self.setup.status(livestatus.status_lines(clock, summaries, width))
                else:
                    self.setup.console.write(livestatus.heartbeat(clock, summaries) + "\n")

    def _event(self, event: dict[str, object]) -> None:
        kind = str(event.get("event"))
        fields = {k: v for k, v in event.items() if k not in ("event", "time", "node")}
        # The watch names its node by host; in the run's events ``node`` is the node rank.
        self.setup.events.record("watch", kind=kind, host=event.get("node"), **fields)
        if kind not in _SAID or (kind == "timeout_chosen" and event.get("source") == "fixed"):
            return
        if kind == "timeout_chosen":
            said = f"launchx: hang timeout {event.get('seconds')} s ({event.get('detail')})"
        elif kind == "stacks_unavailable":
            said = f"launchx: the hang watch cannot read stacks: {event.get('reason')}"
        elif kind == "straggler":
            # the report's own line starts "launchx: straggler: ..."
            said = "launchx: warning: " + str(event.get("text")).removeprefix("launchx: ")
        else:
            said = f"launchx: the hang watch stopped: {event.get('error')}"
        self.setup.console.write(said.rstrip("\n") + "\n")

    def _hang(self, report: HangReport) -> None:
        ranks = tuple(report.hang.odd) or tuple(v.who.rank for v in report.hang.views)
        self.found = HangFound(ranks, report.text)
        if self.setup.status is not None:  # the attempt is over: no "running" under the report
            self.setup.status([])
        self.setup.console.write(report.text.rstrip("\n") + "\n")
        # (a framework's SIGTERM handler may hold a rank for the whole grace: said, not silent)
        self.setup.console.write(
            f"launchx: stopping the ranks (SIGTERM; what still runs in "
            f"{self.plan.grace_period_s:g} s, --grace-period, is SIGKILLed)\n"
        )
        self.supervisor.abort()
