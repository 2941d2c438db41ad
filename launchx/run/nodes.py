"""The nodes of a multi-node run, live for the whole run: one authenticated channel.

Node 0's launchx runs a ``channel.Hub`` beside torchrun's store (``MASTER_PORT + 1``); every
other node's launchx keeps a ``channel.Link`` to it. Over it, during an attempt:

* **the hang watch decides together.** Each node's watch never declares a hang alone (its
  ranks may only wait for another node's); it sends a ``summary`` of its ranks every few
  seconds, node 0 combines them with its own (``watch.nodes.combine``) and, on a hang,
  broadcasts the summaries it decided on; every node combines the same summaries into the
  same verdict, writes its own dumps and stops its ranks.
* **early abort.** A node whose attempt failed says so at once; node 0 passes it on, and the
  others stop their ranks within seconds instead of waiting in a collective for the
  process-group timeout.

and after it, **agreement**: each node sends its outcome, node 0 answers with the one that
explains the attempt best (``agree.combine``), so every node retries, or stops, together.

Only frames signed with the run's key (``LAUNCHX_CHANNEL_TOKEN`` makes it a secret) are
read: a stray process, a scanner, another run's launchx or a forged frame is dropped by the
channel, and a frame of the right run that does not parse is ignored here.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pydantic import ValidationError

from launchx import agree, channel
from launchx.agree import Outcome
from launchx.run.ports import Console

SUMMARY_EVERY_S = 2.0
# Node 0 says which nodes it still waits for, this long after it began listening (the
# rendezvous itself waits silently, up to its timeout).
WAITING_NOTES_S = (15.0, 60.0, 300.0)
# A node whose connection has been gone this long is not waited for (its launchx died, or
# it never came); the same for node 0, seen from the others.
NODE_GONE_S = 5.0
_TICK_S = 0.5


@dataclass
class AttemptHooks:
    """What the channel does to the current attempt when the other nodes say so."""

    abort: Callable[[str], None]  # stop the ranks, saying why
    summary: Callable[[], object] | None = None  # the watch's ``NodeSummary`` (None: no watch)
    hang: Callable[[object], None] | None = None  # the run's ``Hang``: dumps, report, stop


@dataclass
class NodeChannel:
    node_rank: int
    nnodes: int
    master_addr: str
    port: int
    run_id: str
    key: bytes
    console: Console
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    summary_every_s: float = SUMMARY_EVERY_S
    hub: channel.Hub | None = field(default=None, init=False)
    link: channel.Link | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _attempt: int = field(default=-1, init=False)
    _hooks: AttemptHooks | None = field(default=None, init=False)
    _summaries: dict[int, tuple[object, float]] = field(default_factory=dict, init=False)
    _decided: bool = field(default=False, init=False)  # node 0: a hang broadcast this attempt
    _outcomes: dict[int, dict[int, agree.Outcome]] = field(default_factory=dict, init=False)
    _agreed: dict[int, agree.Outcome] = field(default_factory=dict, init=False)
    _stop: threading.Event = field(default_factory=threading.Event, init=False)
    _thread: threading.Thread | None = field(default=None, init=False)
    _connected_once: bool = field(default=False, init=False)  # a link: node 0 was there
    _apart_since: float | None = field(default=None, init=False)  # a link: unconnected since
    # Messages handled so far, by type (what a node was told, for whoever watches it).
    taken: Counter[str] = field(default_factory=Counter, init=False)
    _last_agreed: dict[str, object] | None = field(default=None, init=False)  # node 0
    _said_error: bool = field(default=False, init=False)
    _opened_at: float | None = field(default=None, init=False)  # listening, or dialling, since
    _notes_said: int = field(default=0, init=False)  # of WAITING_NOTES_S

    def open(self) -> None:
        """Node 0 listens once, before its first attempt (a node reporting early waits in
        the backlog, not in a refused connection); the others connect in the background."""
        if self.node_rank == 0:
            try:
                self.hub = channel.Hub(self.port, self.run_id, self.key, self.nnodes)
                self._opened_at = self.clock()
            except OSError as exc:
                self.console.write(
                    f"launchx: cannot listen on port {self.port} for the other nodes "
                    f"({exc.strerror}); each node will decide alone\n"
                )
        else:
            self.link = channel.Link(
                self.master_addr, self.port, self.run_id, self.key, self.node_rank
            )
            self._opened_at = self.clock()
        self._thread = threading.Thread(target=self._loop, name="launchx-nodes", daemon=True)
        self._thread.start()

    def decides_alone(self) -> bool:
        """Whether this node's watch must declare a hang on its own evidence: node 0 that
        could not listen (it said each node decides alone), or another node that has not
        been connected to node 0 for ``NODE_GONE_S`` (node 0's launchx is gone, or its port
        is blocked: nobody would decide for it). Otherwise node 0 decides on every node's
        summary. Asked at each verdict, so it follows the connection as it comes and goes."""
        if self.node_rank == 0:
            return self.hub is None
        since = self._apart_since
        return self.link is None or (since is not None and self.clock() - since >= NODE_GONE_S)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        if self.hub is not None:
            self.hub.close()
            ignored = _ignored(self.hub.rejected(), self.hub.rejected_peers())
            if ignored:
                self.console.write(f"launchx: the node channel (port {self.port}) {ignored}\n")
        if self.link is not None:
            self.link.close()

    # -- one attempt --------------------------------------------------------------------------

    def begin(self, attempt: int, hooks: AttemptHooks) -> None:
        with self._lock:
            self._attempt, self._hooks = attempt, hooks
            self._summaries.clear()
            self._decided = False

    def peer_summaries(self) -> list[object]:
        """The other nodes' latest watch summaries of this attempt (node 0; else none)."""
        with self._lock:
            held = [s for node, (s, _at) in sorted(self._summaries.items()) if node != 0]
        return held if self.hub is not None else []

    def failed(self, attempt: int, why: str) -> None:
        """This node's attempt failed: the others should not wait for it in a collective."""
        body = {"attempt": attempt, "why": why, "node": self.node_rank}
        if self.hub is not None:
            self.hub.broadcast("abort", body)
        elif self.link is not None:
            self.link.send("abort", body)

    def end(self, attempt: int) -> None:
        with self._lock:
            if self._attempt == attempt:
                self._hooks = None

    def agree(
        self, attempt: int, own: agree.Outcome, wait_s: float
    ) -> tuple[agree.Outcome, list[int]] | None:
        """The outcome every node adopts, and the nodes not heard from (node 0); None when
        node 0 cannot be reached in time (this node then decides alone)."""
        deadline = self.clock() + wait_s
        if self.hub is not None:
            return self._agree_at_hub(self.hub, attempt, own, deadline)
        if self.link is None:
            return None
        sent = False
        lost_at: float | None = None
        while (now := self.clock()) < deadline:
            if self.link.connected:
                lost_at = None
                if not sent:  # (again after a reconnection: node 0 may not have it)
                    sent = self.link.send("outcome", {"attempt": attempt, "outcome": own.to_json()})
            else:
                sent = False
                # node 0 was there and went (its launchx died), or was never reached although
                # this attempt ran (it could not listen, or its port is blocked; a node 0 not
                # started yet is a rendezvous timeout, which does not wait): no answer comes
                lost_at = now if lost_at is None else lost_at
                if now - lost_at >= NODE_GONE_S:
                    return None
            with self._lock:
                got = self._agreed.get(attempt)
            if got is not None:
                return got, []
            self.sleep(0.05)
        return None

    @property
    def reached_node_0(self) -> bool:
        """A node K's channel has been connected to node 0 at least once in this run."""
        return self._connected_once

    def never_joined(self) -> set[int]:
        """Node 0: the nodes whose launchx never connected to the channel in this run."""
        if self.hub is None:
            return set()
        return set(range(1, self.nnodes)) - self.hub.ever_joined()

    def _agree_at_hub(
        self, hub: channel.Hub, attempt: int, own: Outcome, deadline: float
    ) -> tuple[Outcome, list[int]]:
        """Node 0 waits for every node's outcome, but not for a node that is gone (its
        connection closed, or never opened, for ``NODE_GONE_S``): one that never connected
        in this run has been gone since node 0 began listening, and has nothing to say."""
        with self._lock:
            self._outcomes.setdefault(attempt, {})[own.node] = own
        absent_since: dict[int, float] = {}
        while (now := self.clock()) < deadline:
            with self._lock:
                heard = dict(self._outcomes.get(attempt, {}))
            if len(heard) >= self.nnodes:
                break
            joined = hub.joined()
            never = self.never_joined()
            for node in range(1, self.nnodes):
                if node in heard or node in joined:
                    absent_since.pop(node, None)
                else:
                    since = self._opened_at if node in never else None
                    absent_since.setdefault(node, now if since is None else since)
            waiting = set(range(self.nnodes)) - set(heard)
            if all(now - absent_since.get(n, now) >= NODE_GONE_S for n in waiting) and all(
                n in absent_since for n in waiting
            ):
                break
            self.sleep(0.05)
        missing = sorted(set(range(self.nnodes)) - set(heard))
        agreed = agree.combine(agree.with_gone(list(heard.values()), missing), own.node)
        body: dict[str, object] = {"attempt": attempt, "outcome": agreed.to_json()}
        with self._lock:
            self._last_agreed = body
        hub.broadcast("agreed", body)
        return agreed, missing

    # -- the channel's thread -----------------------------------------------------------------

    def _loop(self) -> None:
        last_summary = 0.0
        while not self._stop.is_set():
            messages: list[channel.Message] = []
            try:
                if self.link is not None and not self.link.connected:
                    if self._apart_since is None:
                        self._apart_since = self.clock()
                    if self.link.connect(self.link.monotonic() + 2.0):  # (its own clock)
                        self._connected_once = True
                        self._apart_since = None
                    else:
                        self._guarded(self._note_waiting, self.clock())
                    continue
                messages = (
                    self.hub.messages(_TICK_S)
                    if self.hub is not None
                    else self.link.receive(_TICK_S)
                    if self.link is not None
                    else []
                )
                for msg in messages:
                    self._guarded(self._take, msg)
                now = self.clock()
                self._guarded(self._note_waiting, now)
                if now - last_summary >= self.summary_every_s:
                    last_summary = now
                    self._guarded(self._summarise)
            except Exception as exc:  # the channel must outlive anything it is sent
                self._note_error(exc)
            if self._stop.wait(0 if messages else 0.05):
                return

    def _note_waiting(self, now: float) -> None:
        """Name, a few times, the launchx that has not connected yet: node 0 the nodes that
        never came, the others node 0 when it was never reached. A node not started (or
        started with other options) otherwise looks like a hang, from either side."""
        if self._opened_at is None or self._notes_said >= len(WAITING_NOTES_S):
            return
        waited = now - self._opened_at
        if waited < WAITING_NOTES_S[self._notes_said]:
            return
        while (
            self._notes_said < len(WAITING_NOTES_S) and waited >= WAITING_NOTES_S[self._notes_said]
        ):
            self._notes_said += 1
        if self.hub is None:
            if self._connected_once:
                self._notes_said = len(WAITING_NOTES_S)
            else:
                why = f" ({self.link.last_error})" if self.link and self.link.last_error else ""
                self.console.write(
                    f"launchx: waiting for node 0 ({waited:.0f} s): its launchx does not "
                    f"answer at {self.master_addr}:{self.port}{why}; start it there with the "
                    "same options and --node-rank 0 (it listens once its --preflight, if "
                    "any, is done), or check that the master address is node 0's and the "
                    "port is open\n"
                )
            return
        never = self.never_joined()
        if not never:
            self._notes_said = len(WAITING_NOTES_S)  # everyone came: nothing more to say
            return
        names = ", ".join(map(str, sorted(never)))
        self.console.write(
            f"launchx: waiting for node(s) {names} of {self.nnodes} ({waited:.0f} s): their "
            f"launchx has not connected to port {self.port}; start it there with the same "
            "options and its --node-rank\n"
        )

    def _guarded(self, step: Callable[..., None], *args: object) -> None:
        try:
            step(*args)
        except Exception as exc:
            self._note_error(exc)

    def _note_error(self, exc: Exception) -> None:
        """Said once: the run goes on, and what went wrong is on record."""
        if not self._said_error:
            self._said_error = True
            self.console.write(
                f"launchx: the node channel skipped a message it could not handle "
                f"({type(exc).__name__}: {str(exc)[:200]}); the run goes on\n"
            )

    def _take(self, msg: channel.Message) -> None:
        try:
            self._handle(msg)
        finally:  # counted once handled: a test waits for a message, never sleeps on it
            with self._lock:
                self.taken[msg.type] += 1

    def _handle(self, msg: channel.Message) -> None:
        body = msg.body
        if msg.type == "hello" and self.hub is not None:
            with self._lock:
                last = self._last_agreed
            if last is not None:  # a node that lost its connection may have missed it
                self.hub.send(msg.node, "agreed", last)
            return
        attempt = body.get("attempt")
        if not isinstance(attempt, int):
            return
        if msg.type == "abort":
            # A node speaks for itself; node 0 relays, naming the node that failed.
            origin = body.get("node") if msg.node == 0 else msg.node
            if origin == self.node_rank:  # its own news, relayed back
                return
            if self.hub is not None:  # pass it on to every other node
                self.hub.broadcast("abort", {**body, "node": msg.node})
            why = "".join(ch for ch in str(body.get("why", "?"))[:300] if ch.isprintable())
            self._abort(attempt, f"node {origin} failed: {why}")
        elif msg.type == "summary" and self.hub is not None:
            self._summary(attempt, msg.node, body.get("summary"))
        elif msg.type == "hang" and self.hub is None:
            self._hang(attempt, body)
        elif msg.type == "outcome" and self.hub is not None:
            with self._suppress_bad():
                outcome = agree.Outcome.from_json(body["outcome"])  # type: ignore[arg-type]
                if outcome.node == msg.node:  # a node speaks for itself only
                    with self._lock:
                        self._outcomes.setdefault(attempt, {})[msg.node] = outcome
        elif msg.type == "agreed" and self.hub is None:
            with self._suppress_bad():
                agreed = agree.Outcome.from_json(body["outcome"])  # type: ignore[arg-type]
                with self._lock:
                    self._agreed[attempt] = agreed

    def _abort(self, attempt: int, why: str) -> None:
        with self._lock:
            hooks = self._hooks if self._attempt == attempt else None
        if hooks is not None:
            hooks.abort(why)

    def _summarise(self) -> None:
        """Send this node's watch summary to node 0 (node 0 keeps its own and decides)."""
        with self._lock:
            hooks, attempt = self._hooks, self._attempt
        if hooks is None or hooks.summary is None:
            return
        mine = hooks.summary()
        if self.hub is not None:
            self._summary(attempt, self.node_rank, mine)
        elif self.link is not None:
            self.link.send("summary", {"attempt": attempt, "summary": _dump(mine)})

    def _summary(self, attempt: int, node: int, raw: object) -> None:
        from launchx.watch.nodes import NodeSummary

        with self._suppress_bad():
            summary = raw if isinstance(raw, NodeSummary) else NodeSummary.model_validate(raw)
            if summary.node_rank != node:
                return
            with self._lock:
                if attempt != self._attempt or self._decided:
                    return
                self._summaries[node] = (summary, self.clock())
                held = dict(self._summaries)
            verdict_body = _hang_body(attempt, held, self.nnodes, self.clock())
            if verdict_body is None:
                return
            with self._lock:
                self._decided = True
            assert self.hub is not None
            self.hub.broadcast("hang", verdict_body)
            self._hang(attempt, verdict_body)

    def _hang(self, attempt: int, body: Mapping[str, object]) -> None:
        with self._lock:
            hooks = self._hooks if self._attempt == attempt else None
        if hooks is None or hooks.hang is None:
            return
        hang: object | None = None
        with self._suppress_bad():
            hang = _hang_of(body, self.nnodes)
        if hang is not None:
            # The capture (stacks, flight-recorder dumps) takes seconds: not on this thread,
            # which must keep relaying aborts and outcomes meanwhile.
            act = hooks.hang
            threading.Thread(target=act, args=(hang,), name="launchx-hang", daemon=True).start()

    @staticmethod
    def _suppress_bad() -> _Ignore:
        return _Ignore()


class _Ignore:
    """A frame of the right run that does not parse is dropped, never half-read."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: object, tb: object) -> bool:
        bad = ValidationError | KeyError | TypeError | ValueError | IndexError | AttributeError
        return isinstance(exc, bad)


def _ignored(reasons: Mapping[str, int], peers: Mapping[str, str]) -> str:
    """What node 0's channel dropped during the run, said once at its end: a scanner is
    noise, but frames of another run or with a bad signature mean someone else is on the
    port (or forging), which a user should know about."""
    total = sum(reasons.values())
    if not total:
        return ""
    why = ", ".join(f"{reason}: {n}" for reason, n in sorted(reasons.items()))
    hosts = sorted({peer.rsplit(":", 1)[0] for peer in peers})
    shown = ", ".join(hosts[:5]) + (f" and {len(hosts) - 5} more" if len(hosts) > 5 else "")
    return f"ignored {total} frame(s) or connection(s) not of this run ({why}) from {shown}"


def _dump(summary: object) -> object:
    dump = getattr(summary, "model_dump", None)
    return dump(mode="json") if dump is not None else None


def _hang_body(
    attempt: int, held: Mapping[int, tuple[object, float]], nnodes: int, now: float
) -> dict[str, object] | None:
    """Node 0's decision on every node's latest summary: the body of the ``hang`` message
    (the summaries and how old each was), or None while the run is healthy."""
    from launchx.watch.nodes import NodeSummary, combine
    from launchx.watch.verdict import TimeoutChoice

    summaries = {n: s for n, (s, _at) in held.items() if isinstance(s, NodeSummary)}
    own = summaries.get(0)
    if own is None or own.timeout_s is None:
        return None
    delays = {n: max(0.0, now - at) for n, (_s, at) in held.items()}
    choice = TimeoutChoice(own.timeout_s, own.timeout_source, "node 0's choice")
    verdict = combine(list(summaries.values()), timeout=choice, nnodes=nnodes, delays=delays)
    if verdict.kind != "hang":
        return None
    return {
        "attempt": attempt,
        "summaries": [s.model_dump(mode="json") for s in summaries.values()],
        "delays": {str(n): d for n, d in delays.items()},
        "timeout_s": own.timeout_s,
        "timeout_source": own.timeout_source,
    }


def _hang_of(body: Mapping[str, object], nnodes: int) -> object | None:
    """The same verdict node 0 reached, from the summaries it decided on."""
    from launchx.watch.nodes import NodeSummary, combine
    from launchx.watch.verdict import TimeoutChoice

    raw = body["summaries"]
    delays_raw = body["delays"]
    if not isinstance(raw, list) or not isinstance(delays_raw, dict):
        return None
    summaries = [NodeSummary.model_validate(s) for s in raw]
    delays = {int(k): float(v) for k, v in delays_raw.items()}
    timeout_s = body["timeout_s"]
    if not isinstance(timeout_s, int | float):
        return None
    source = body.get("timeout_source")
    if source not in ("fixed", "initial", "learned"):
        return None
    choice = TimeoutChoice(float(timeout_s), source, "node 0's choice")
    verdict = combine(summaries, timeout=choice, nnodes=nnodes, delays=delays)
    return verdict if verdict.kind == "hang" else None
