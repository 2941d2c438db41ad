"""Nodes agree on one outcome per attempt, so that every node retries together or none does.

Each node's launchx diagnoses what its own ranks saw. When a rank on node 1 dies of a bug,
node 1 sees the KeyError (not transient: stop) while node 0 sees only "connection closed
by peer", a symptom that looks transient: alone, node 0 would start another attempt and
wait for a rendezvous that node 1 never joins. So after each attempt every node sends its
outcome to node 0's launchx over one short TCP connection (``MASTER_PORT + 1``, beside
torchrun's store), node 0 picks the outcome that explains the failure best, and every node
adopts it. A node that cannot reach node 0 in time keeps its own diagnosis and says so.

``combine`` is the whole policy and is pure; ``Coordinator`` (node 0) and ``report``
(the other nodes) only move JSON lines.
"""

from __future__ import annotations

import json
import select
import socket
import time
from collections.abc import Callable, Iterable, Mapping
from contextlib import suppress
from dataclasses import asdict, dataclass, replace
from typing import Any

from launchx.run.decide import AttemptRecord

PROTOCOL = "launchx-agree/1"
_MAX_LINE = 64 * 1024
_POLL_S = 0.2
# Refused connections for this long mean node 0 has no listener (it could not bind, or it
# is an older launchx): stop asking. A listener that exists accepts even mid-attempt.
NO_LISTENER_S = 5.0


def agreement_port(master_port: int) -> int:
    """Where node 0's launchx listens: next to torchrun's store, known to every node."""
    return master_port + 1 if master_port < 65535 else master_port - 1


# The fields of an attempt's record that every node takes from the agreed outcome (its own
# duration, logs and resume path stay its own; the exit code only when the run failed).
_AGREED = ("category", "retryable", "tier", "cause", "signature", "step_before", "step_after")


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
        sig = data.get("signature")
        return cls(
            node=int(data["node"]),
            exit_code=int(data["exit_code"]),
            category=None if data.get("category") is None else str(data["category"]),
            retryable=bool(data["retryable"]),
            tier=int(data["tier"]),
            cause=str(data.get("cause", "")),
            signature=None if sig is None else (str(sig[0]), sig[1], str(sig[2])),
            interrupted=bool(data.get("interrupted", False)),
            step_before=data.get("step_before"),
            step_after=data.get("step_after"),
        )


def _weight(o: Outcome) -> tuple[bool, int, bool, int]:
    """Higher explains the attempt better: a failure over a success, a root cause (tier 1)
    or an outside stop (tier 2) over a symptom (tier 0), and, between equals, a failure
    that is not transient (never retry a deterministic bug), then the lowest node."""
    return (o.failed, o.tier, not o.retryable, -o.node)


def combine(outcomes: Iterable[Outcome], progress_of: int = 0) -> Outcome:
    """The outcome every node adopts. Checkpoint progress comes from one node (node 0,
    where rank 0 usually writes) so that every node charges the retry budget alike."""
    pool = list(outcomes)
    if not pool:
        raise ValueError("combine needs at least one outcome")
    best = max(pool, key=_weight)
    steps = next((o for o in pool if o.node == progress_of), best)
    return replace(best, step_before=steps.step_before, step_after=steps.step_after)


def adopt(rec: AttemptRecord, agreed: Outcome) -> AttemptRecord:
    """This node's record of the attempt, with the agreed diagnosis and progress."""
    return replace(
        rec,
        exit_code=agreed.exit_code if agreed.failed else rec.exit_code,
        **{name: getattr(agreed, name) for name in _AGREED},
    )


def _message(run_id: str, attempt: int, key: str, outcome: Outcome) -> bytes:
    body = {"protocol": PROTOCOL, "run": run_id, "attempt": attempt, key: outcome.to_json()}
    return (json.dumps(body) + "\n").encode()


def _parse(line: bytes, run_id: str, key: str) -> tuple[int, Outcome] | None:
    """(attempt, outcome) from one line, or None for anything that is not this run's."""
    try:
        data = json.loads(line)
        if data.get("protocol") != PROTOCOL or data.get("run") != run_id:
            return None
        return int(data["attempt"]), Outcome.from_json(data[key])
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None


class Coordinator:
    """Node 0's side: one listening socket for the whole run (connections that arrive while
    node 0 is still in its attempt wait in the backlog), read out after each attempt."""

    def __init__(self, port: int, run_id: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.run_id = run_id
        self.port = port
        self.clock = clock
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.listener.bind(("", port))
            self.listener.listen(64)
        except OSError:
            self.listener.close()
            raise

    def close(self) -> None:
        self.listener.close()

    def gather(
        self,
        attempt: int,
        own: Outcome,
        nnodes: int,
        deadline: float,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> tuple[Outcome, list[int]]:
        """Collect every node's outcome of ``attempt`` until all are in or the deadline
        passes; answer each with the combined one. Returns it and the nodes not heard."""
        outcomes = {own.node: own}
        waiting: dict[socket.socket, bytes] = {}
        answered: dict[int, socket.socket] = {}
        try:
            while len(outcomes) < nnodes and self.clock() < deadline and not should_stop():
                ready, _w, _x = select.select([self.listener, *waiting], [], [], _POLL_S)
                for sock in ready:
                    if sock is self.listener:
                        conn, _addr = self.listener.accept()
                        waiting[conn] = b""
                        continue
                    chunk = b""
                    with suppress(OSError):
                        chunk = sock.recv(4096)
                    buffer = waiting.pop(sock) + chunk
                    if chunk and b"\n" not in buffer and len(buffer) < _MAX_LINE:
                        waiting[sock] = buffer
                        continue
                    parsed = _parse(buffer.partition(b"\n")[0], self.run_id, "outcome")
                    if parsed is None or parsed[0] != attempt or parsed[1].node in outcomes:
                        _send_and_close(sock, None)  # stale, foreign or duplicate
                        continue
                    outcomes[parsed[1].node] = parsed[1]
                    answered[parsed[1].node] = sock
            agreed = combine(outcomes.values(), progress_of=own.node)
            for sock in answered.values():
                _send_and_close(sock, _message(self.run_id, attempt, "agreed", agreed))
            missing = sorted(set(range(nnodes)) - set(outcomes))
            return agreed, missing
        finally:
            for sock in [*waiting, *answered.values()]:
                sock.close()


def _send_and_close(sock: socket.socket, data: bytes | None) -> None:
    with suppress(OSError):
        if data:
            sock.settimeout(5.0)
            sock.sendall(data)
    sock.close()


def report(
    address: str,
    port: int,
    run_id: str,
    attempt: int,
    own: Outcome,
    deadline: float,
    should_stop: Callable[[], bool] = lambda: False,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Outcome | None:
    """Send this node's outcome to node 0 and wait for the agreed one; None when node 0
    cannot be reached or does not answer before the deadline (keep the local outcome)."""
    message = _message(run_id, attempt, "outcome", own)
    refused_since: float | None = None
    while clock() < deadline and not should_stop():
        try:
            sock = socket.create_connection((address, port), timeout=2.0)
        except OSError:
            now = clock()
            refused_since = refused_since if refused_since is not None else now
            if now - refused_since > NO_LISTENER_S:
                return None
            sleep(_POLL_S)
            continue
        with sock:
            answer = _exchange(sock, message, deadline, should_stop, clock)
        if answer is None:
            return None
        parsed = _parse(answer, run_id, "agreed")
        return parsed[1] if parsed is not None and parsed[0] == attempt else None
    return None


def _exchange(
    sock: socket.socket,
    message: bytes,
    deadline: float,
    should_stop: Callable[[], bool],
    clock: Callable[[], float],
) -> bytes | None:
    """Send one line, read one line back; node 0 answers only after its own attempt ends."""
    buffer = b""
    with suppress(OSError):
        sock.settimeout(5.0)
        sock.sendall(message)
        sock.settimeout(_POLL_S * 5)
        while b"\n" not in buffer and len(buffer) < _MAX_LINE:
            if clock() >= deadline or should_stop():
                return None
            try:
                chunk = sock.recv(4096)
            except TimeoutError:
                continue
            if not chunk:
                break
            buffer += chunk
        return buffer.partition(b"\n")[0] if b"\n" in buffer else None
    return None
