"""The nodes' live channel during a run (``run.nodes``), over real loopback sockets, without
torchrun: the outcome every node adopts, an early abort passed on to every node, a hang
decided by node 0 on every node's summary, and frames that must change nothing. (The
policy on its own: test_agree.py; the frames and handshake: test_channel.py; whole
two-node runs: test_recovery.py.)"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from conftest import free_port

from launchx import channel
from launchx.agree import Outcome
from launchx.run.nodes import AttemptHooks, NodeChannel
from launchx.watch.nodes import NodeSummary, RankSummary
from launchx.watch.verdict import Hang

RUN = "lx-nodes-test"
KEY = channel.derive_key(RUN, "token")


class Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def write(self, text: str) -> None:
        self.lines.append(text)


class TickingClock:
    """Time that moves only when read: each reading advances it by ``tick``, so a
    deadline passes after a known number of polls, however slow the machine."""

    def __init__(self, tick: float = 0.5) -> None:
        self.now = 0.0
        self.tick = tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


def no_wait(_seconds: float) -> None:
    """With a ticking clock the deadline passes by polls alone: nothing needs to sleep."""


def node(rank: int, nnodes: int, port: int, **kw: object) -> NodeChannel:
    chan = NodeChannel(
        node_rank=rank,
        nnodes=nnodes,
        master_addr="127.0.0.1",
        port=port,
        run_id=RUN,
        key=KEY,
        console=Lines(),
        **kw,  # type: ignore[arg-type]
    )
    chan.open()
    return chan


def until(condition: object, timeout: float = 10) -> bool:
    """Poll for an event another thread causes (a deadline for a broken test, never a
    bound asserted on the code)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.02)
    return False


@pytest.fixture
def three() -> Iterator[list[NodeChannel]]:
    port = free_port()
    nodes = [node(0, 3, port)] + [node(r, 3, port) for r in (1, 2)]
    assert until(lambda: nodes[0].hub is not None and nodes[0].hub.joined() == {1, 2})
    yield nodes
    for n in reversed(nodes):  # the links first: node 0's hub then has nobody to linger for
        n.close()


def outcome(rank: int, category: str | None, retryable: bool = False, tier: int = 0) -> Outcome:
    return Outcome(
        node=rank,
        exit_code=0 if category is None else 1,
        category=category,
        retryable=retryable,
        tier=tier,
        cause=f"{category} on node {rank}",
        signature=None if category is None else (category, rank, "x"),
        interrupted=False,
        step_before=None,
        step_after=None,
    )


# --------------------------------------------------------------------------- agreement


def test_every_node_adopts_the_outcome_that_explains_the_attempt(three: list[NodeChannel]) -> None:
    """Node 2's rank hit an InfiniBand error; nodes 0 and 1 only saw their peer go away."""
    own = {
        0: outcome(0, "gloo_error", retryable=True),
        1: outcome(1, "gloo_error", retryable=True),
        2: outcome(2, "ib_error", retryable=True, tier=1),
    }
    answers: dict[int, object] = {}

    def report(n: NodeChannel) -> None:
        answers[n.node_rank] = n.agree(0, own[n.node_rank], wait_s=30)

    threads = [threading.Thread(target=report, args=(n,)) for n in three]
    for t in threads:
        t.start()
    for t in threads:
        t.join(40)
    assert answers[0] == (own[2], [])
    assert answers[1] == answers[2] == (own[2], [])


def test_node_zero_names_the_node_it_did_not_hear_from() -> None:
    port = free_port()
    alone = node(0, 2, port, clock=TickingClock(), sleep=no_wait)
    try:
        agreed, missing = alone.agree(0, outcome(0, "rendezvous_timeout"), wait_s=5) or (None, [])
    finally:
        alone.close()
    assert agreed == outcome(0, "rendezvous_timeout") and missing == [1]


def test_a_node_that_cannot_reach_node_zero_decides_alone() -> None:
    lost = node(1, 2, free_port(), clock=TickingClock(), sleep=no_wait)  # nobody listens there
    try:
        assert lost.agree(0, outcome(1, "ib_error"), wait_s=5) is None
    finally:
        lost.close()


def test_a_node_that_never_reached_node_zero_does_not_wait_out_the_collective_timeout() -> None:
    """Node 0's launchx could not listen (its port taken) or its port is blocked, while the
    attempt itself ran: node 1 decides alone within NODE_GONE_S, not after the half hour a
    slow node's collective may take (it waited that long after every attempt)."""
    clock = TickingClock()
    lost = node(1, 2, free_port(), clock=clock, sleep=no_wait)  # nobody listens there
    try:
        assert lost.agree(0, outcome(1, None), wait_s=3600) is None
    finally:
        lost.close()
    assert clock.now < 60


def test_an_outcome_of_the_right_run_that_does_not_parse_is_ignored() -> None:
    """A frame signed with the run's key but carrying nonsense (a bug in another launchx
    version, say) is dropped, and node 0 still decides on what it has."""
    port = free_port()
    hub_node = node(0, 2, port, clock=TickingClock())
    link = channel.Link("127.0.0.1", port, RUN, KEY, 1)
    try:
        assert link.connect(time.monotonic() + 10)
        link.send("outcome", {"attempt": 0, "outcome": {"node": "one", "tier": []}})
        link.send("outcome", {"attempt": "0", "outcome": outcome(1, "ib_error").to_json()})
        # Node 1 may not speak for node 0.
        link.send("outcome", {"attempt": 0, "outcome": outcome(0, "ib_error").to_json()})
        # A good frame after them: once it is in, the bad ones were read (one connection).
        link.send("outcome", {"attempt": 7, "outcome": outcome(1, None).to_json()})
        assert until(lambda: 7 in hub_node._outcomes)
        own = outcome(0, None)
        agreed, missing = hub_node.agree(0, own, wait_s=5) or (None, [])
    finally:
        link.close()
        hub_node.close()
    assert agreed == own and missing == [1]


# --------------------------------------------------------------------------- abort


def test_a_failed_node_stops_the_current_attempt_on_every_other_node(
    three: list[NodeChannel],
) -> None:
    stopped: dict[int, list[str]] = {0: [], 1: [], 2: []}
    for n in three:
        n.begin(0, AttemptHooks(abort=stopped[n.node_rank].append))
    three[2].failed(0, "ib_error on rank 5")
    assert until(lambda: stopped[0] and stopped[1])
    assert stopped[0] == stopped[1] == ["node 2 failed: ib_error on rank 5"]
    assert stopped[2] == []  # the failed node's own attempt ends by itself


def test_an_abort_for_an_earlier_attempt_stops_nothing(three: list[NodeChannel]) -> None:
    stopped: list[str] = []
    three[1].begin(1, AttemptHooks(abort=stopped.append))
    three[0].begin(1, AttemptHooks(abort=stopped.append))
    three[2].failed(0, "late news of attempt 0")
    three[2].failed(1, "attempt 1 failed")  # sent after: once it arrives, the first did too
    assert until(lambda: len(stopped) == 2)
    assert stopped == ["node 2 failed: attempt 1 failed"] * 2


def test_an_attempt_that_ended_is_not_stopped_again(three: list[NodeChannel]) -> None:
    stopped: list[str] = []
    three[1].begin(0, AttemptHooks(abort=stopped.append))
    three[1].end(0)
    three[0].begin(0, AttemptHooks(abort=lambda why: stopped.append("node 0 " + why)))
    three[2].failed(0, "gone")
    assert until(lambda: stopped)
    assert until(lambda: three[1].taken["abort"] >= 1)  # node 1 was told, and handled it
    assert stopped == ["node 0 node 2 failed: gone"]


# --------------------------------------------------------------------------- hang


def summary(node_rank: int, rank: int, category: str, age_s: float) -> NodeSummary:
    return NodeSummary(
        node=f"host{node_rank}",
        node_rank=node_rank,
        quiet_s=age_s,
        timeout_s=5.0,
        timeout_source="fixed",
        ranks=(
            RankSummary(
                rank=rank,
                local_rank=0,
                node_rank=node_rank,
                node=f"host{node_rank}",
                age_s=age_s,
                state="S",
                wchan="futex_wait",
                exited=False,
                category=category,  # type: ignore[arg-type]
                key=category,
                where=f"{category} in train.py",
            ),
        ),
    )


def test_node_zero_decides_a_hang_on_every_nodes_summary_and_all_nodes_see_it() -> None:
    """Rank 1 on node 1 sleeps; rank 0 on node 0 waits in the collective rank 1 never
    joins. Node 0 alone would only see a rank waiting; with node 1's summary it names
    rank 1, and node 1 reaches the same verdict from the summaries node 0 sent."""
    port = free_port()
    n0 = node(0, 2, port, summary_every_s=0.1)
    n1 = node(1, 2, port, summary_every_s=0.1)
    hangs: dict[int, list[Hang]] = {0: [], 1: []}
    try:
        assert until(lambda: n0.hub is not None and n0.hub.joined() == {1})
        n1.begin(0, hook(hangs[1], summary(1, 1, "sleep", 60.0)))
        n0.begin(0, hook(hangs[0], summary(0, 0, "collective", 60.0)))
        assert until(lambda: hangs[0] and hangs[1])
    finally:
        n1.close()
        n0.close()
    for seen in hangs.values():
        assert len(seen) == 1, seen  # decided once per attempt
        assert seen[0].odd == (1,)
        assert [v.who.node for v in seen[0].views if v.who.rank == 1] == ["host1"]


def test_no_hang_while_one_node_is_still_making_progress() -> None:
    port = free_port()
    n0 = node(0, 2, port, summary_every_s=0.1)
    n1 = node(1, 2, port, summary_every_s=0.1)
    hangs: list[Hang] = []
    progressed = summary(1, 1, "running", 0.5)
    try:
        assert until(lambda: n0.hub is not None and n0.hub.joined() == {1})
        n1.begin(0, hook(hangs, progressed))
        n0.begin(0, hook(hangs, summary(0, 0, "collective", 60.0)))
        assert until(lambda: len(n0._summaries) == 2)  # node 1's summary arrived
        assert until(lambda: n0.taken["summary"] >= 5)  # several more rounds of both
    finally:
        n1.close()
        n0.close()
    assert hangs == []


def hook(into: list[Hang], mine: NodeSummary) -> AttemptHooks:
    return AttemptHooks(
        abort=lambda why: None,
        summary=lambda: mine,
        hang=lambda h: into.append(h),  # type: ignore[arg-type]
    )


# --------------------------------------------------------------------------- nodes that go


def test_node_zero_does_not_wait_for_a_node_whose_launchx_died() -> None:
    """Node 1's launchx is gone (its connection closed): node 0 waits NODE_GONE_S for it,
    not the collective timeout's worth it would grant a node that is alive."""
    port = free_port()
    n0 = node(0, 2, port, clock=TickingClock(0.25))
    n1 = node(1, 2, port)
    try:
        assert until(lambda: n0.hub is not None and n0.hub.joined() == {1})
        n1.close()
        assert until(lambda: n0.hub is not None and n0.hub.joined() == set())
        agreed, missing = n0.agree(0, outcome(0, "gloo_error"), wait_s=3600) or (None, [])
    finally:
        n0.close()
    assert missing == [1]
    # its ranks went with it: node 0's lost connection is the consequence, not the cause
    assert agreed is not None and (agreed.node, agreed.category) == (1, "killed")


def test_a_node_whose_node_zero_died_decides_alone_soon() -> None:
    port = free_port()
    n0 = node(0, 2, port)
    n1 = node(1, 2, port, clock=TickingClock(0.25))
    try:
        assert until(lambda: n0.hub is not None and n0.hub.joined() == {1})
        n0.close()
        assert n1.agree(0, outcome(1, "gloo_error"), wait_s=3600) is None
    finally:
        n1.close()


def test_a_node_that_joins_after_node_zero_decided_still_gets_the_answer() -> None:
    """Node 0's attempt failed before node 1's launchx had even connected: node 0 decides
    without it; node 1, once connected, is sent the decision when it says hello."""
    port = free_port()
    n0 = node(0, 2, port, clock=TickingClock(0.25))
    try:
        mine = outcome(0, "user_code_error", tier=1)
        assert n0.agree(0, mine, wait_s=3600) == (mine, [1])
        late = node(1, 2, port)
        try:
            assert late.agree(0, outcome(1, "gloo_error"), wait_s=30) == (mine, [])
        finally:
            late.close()
    finally:
        n0.close()


def test_a_hook_that_raises_is_said_once_and_the_channel_goes_on() -> None:
    port = free_port()
    n0 = node(0, 2, port, summary_every_s=0.05)
    n1 = node(1, 2, port)
    stopped: list[str] = []

    def broken() -> NodeSummary:
        raise RuntimeError("the watch broke")

    try:
        assert until(lambda: n0.hub is not None and n0.hub.joined() == {1})
        n0.begin(0, AttemptHooks(abort=stopped.append, summary=broken))
        console = n0.console
        assert isinstance(console, Lines)
        assert until(lambda: console.lines)
        n1.failed(0, "ib_error")  # the channel still relays
        assert until(lambda: stopped)
    finally:
        n1.close()
        n0.close()
    assert stopped == ["node 1 failed: ib_error"]
    assert len(console.lines) == 1 and "RuntimeError: the watch broke" in console.lines[0]


def test_a_node_cut_off_from_node_zero_decides_hangs_alone() -> None:
    """Nobody decides for a node that cannot reach node 0: after NODE_GONE_S without a
    connection its own watch must declare the hang (as node 0 told it, "each node will
    decide alone"); while connected, node 0 decides."""
    lost = node(1, 2, free_port(), clock=TickingClock(1.0))  # nobody listens there
    try:
        assert until(lost.decides_alone)
    finally:
        lost.close()
    port = free_port()
    hub_node, linked = node(0, 2, port), node(1, 2, port)
    try:
        assert until(lambda: hub_node.hub is not None and hub_node.hub.joined() == {1})
        assert not linked.decides_alone() and not hub_node.decides_alone()
    finally:
        linked.close()
        hub_node.close()


class SetClock:
    """Time that moves only when the test (or a ``sleep``) moves it."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_a_node_that_never_connected_is_not_waited_for_and_is_named() -> None:
    """Ctrl-C (or a rendezvous timeout) on node 0 while node 1 was never started: node 1
    has nothing to report, so node 0 decides at once rather than NODE_GONE_S later."""
    clock = SetClock()
    n0 = node(0, 2, free_port(), clock=clock, sleep=clock.sleep)
    try:
        clock.now = 30.0  # the attempt ran for half a minute before it was stopped
        answer = n0.agree(0, outcome(0, "interrupted"), wait_s=5)
        assert clock.now == 30.0  # (no wait: the clock moves only when agree sleeps)
        assert answer == (outcome(0, "interrupted"), [1]) and n0.never_joined() == {1}
    finally:
        n0.close()


@pytest.mark.parametrize(
    ("first", "at", "said", "why"),
    [
        (0, 16.0, "waiting for node(s) 1 of 2 (16 s)", "has not connected to port {port}"),
        (1, 15.0, "waiting for node 0 (15 s)", "does not answer at 127.0.0.1:{port} (Connection"),
    ],
    ids=["node 0 waits for node 1", "node 1 waits for node 0"],
)
def test_the_first_node_says_what_it_still_waits_for_until_the_other_comes(
    first: int, at: float, said: str, why: str
) -> None:
    """Node 0 names the nodes that have not connected; node 1 started before node 0 (or
    pointed at the wrong address) says so instead of printing nothing. Once the other
    node is there, neither says more."""
    clock = SetClock()
    port = free_port()
    waiting_node = node(first, 2, port, clock=clock)
    lines: list[str] = waiting_node.console.lines  # type: ignore[attr-defined]

    def waiting() -> list[str]:
        return [line for line in lines if said.split(" (")[0] in line]

    try:
        assert waiting() == []
        clock.now = at
        assert until(lambda: len(waiting()) == 1)
        assert waiting()[0].startswith(f"launchx: {said}")
        assert why.format(port=port) in waiting()[0]
        clock.now = at + 4  # between two notes: nothing more
        other = node(1 - first, 2, port)
        zero = waiting_node if first == 0 else other
        try:
            # (both ends: node 0 saw node 1 join, and node 1 saw its link to node 0 up)
            assert until(lambda: zero.never_joined() == set())
            assert until(lambda: first == 0 or waiting_node.reached_node_0)
            clock.now = 400.0  # every node came: no more notes
            waiting_node._note_waiting(400.0)  # (what the channel's loop does on its next turn)
        finally:
            other.close()
        assert len(waiting()) == 1
    finally:
        waiting_node.close()
