"""The nodes' message channel: node 0's ``Hub``, every other node's ``Link``, signed frames.

One launchx runs per node. They need to talk: ``doctor`` collects every node's facts at
node 0 and sends back one verdict; ``run`` agrees on each attempt's outcome and spreads a
hang or an abort. Node 0 listens (beside torchrun's store, ``MASTER_PORT + 1``); each other
node connects once and keeps the connection. Traffic is O(N) at node 0 and O(1) elsewhere:
no node talks to every other.

**Frames.** One JSON object per line::

    {"v":1,"run":RUN,"node":SENDER,"seq":N,"type":T,"body":{...},"mac":HEX}

``mac`` is HMAC-SHA256 over the canonical JSON (sorted keys, no spaces) of every other
field. Anything that is not such a frame is dropped and counted (``Hub.rejected``):
malformed JSON, a frame longer than ``max_frame``, another version or run, a bad mac, a
``seq`` that does not increase on its connection (a replay), a sender that is not the
connection's node. A connection that has not completed the handshake below within
``hello_timeout_s`` is closed, as is one whose first frame is not a valid hello; at most
``max_pending`` such connections are held at once. None of this stops or slows the run:
a stray process, a port scanner or a launchx of another run on the port is ignored.

**Handshake.** On accept the hub sends ``challenge`` with a fresh random nonce. The link
answers ``hello`` (its node rank, host name, the hub's nonce and its own nonce); the hub
answers ``welcome``. The hello is bound to this connection by the hub's nonce, so a hello
recorded earlier cannot be replayed on a new connection; every later frame, both ways, is
signed with a session key derived from the run key and both nonces, so frames cannot be
moved between connections either, and a hub impostor cannot replay old answers to a link.

**Keys and what they protect.** ``derive_key(run_id, token)`` hashes a domain string, the
run id and an optional shared secret (``LAUNCHX_CHANNEL_TOKEN``, read by detection and
passed in; this module reads no environment).

- *Without a token* the key follows from the run id, which every node derives from what it
  was told (a SLURM job id, the master address and port...). This protects a run against
  accidents: a process of another run, a stale launchx from a previous job on the same
  port, a scanner, garbage. It does **not** protect against someone who can compute the
  run id (anyone who knows the job id or the launch command): they can forge frames.
- *With a token* that only the job's nodes know (sbatch can export it; a platform secret),
  only they can produce valid frames: a user on the same cluster cannot join the run,
  forge a verdict or replay frames. Frames are still readable on the wire (no encryption:
  they carry host facts and outcomes, not secrets), and a peer on the network path can
  still drop or delay them (nobody waits forever: every wait has a deadline).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import json
import os
import queue
import random
import select
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

VERSION = 1
MAX_FRAME = 1 << 20  # bytes of one line; a node's facts are a few KiB
HELLO_TIMEOUT_S = 5.0
# Connections that have not completed the handshake yet: a thousand nodes may all knock at
# once (srun starts them together); the rest are closed and retry after a short pause.
MAX_PENDING = 256
_DOMAIN = b"launchx-channel/1"
_POLL_S = 0.1
_SEND_TIMEOUT_S = 5.0
_RETRY_S = 0.2  # a link's pause between attempts, with jitter so that retries spread out


def derive_key(run_id: str, token: str | None = None) -> bytes:
    """The key every frame of one run is signed with (see the module docstring)."""
    digest = hashlib.sha256()
    for part in (_DOMAIN, run_id.encode(), (token or "").encode()):
        digest.update(len(part).to_bytes(4, "big") + part)
    return digest.digest()


def _session_key(key: bytes, hub_nonce: str, link_nonce: str) -> bytes:
    return hmac.new(key, f"session|{hub_nonce}|{link_nonce}".encode(), hashlib.sha256).digest()


def _canonical(fields: Mapping[str, object]) -> bytes:
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def encode(
    key: bytes, *, run: str, node: int, seq: int, type: str, body: Mapping[str, object]
) -> bytes:
    """One signed frame, newline included. Raises ``TypeError``/``ValueError`` when the
    body is not JSON (a caller's bug, not a network event)."""
    fields: dict[str, object] = {
        "v": VERSION,
        "run": run,
        "node": node,
        "seq": seq,
        "type": type,
        "body": dict(body),
    }
    mac = hmac.new(key, _canonical(fields), hashlib.sha256).hexdigest()
    return json.dumps({**fields, "mac": mac}, separators=(",", ":")).encode() + b"\n"


@dataclass(frozen=True)
class Frame:
    """A frame that passed every check."""

    node: int
    seq: int
    type: str
    body: Mapping[str, object]


def decode(line: bytes, key: bytes, run: str) -> Frame | str:
    """The frame in ``line``, or why it was rejected: ``json``, ``version``, ``run``,
    ``fields`` or ``mac``. Pure; size and sequence are checked by the connection."""
    try:
        data = json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):  # "[[[[..." nested too deep
        return "json"
    if not isinstance(data, dict):
        return "json"
    if data.get("v") != VERSION:
        return "version"
    if data.get("run") != run:
        return "run"
    mac, node, seq, kind, body = (data.get(k) for k in ("mac", "node", "seq", "type", "body"))
    if set(data) != {"v", "run", "node", "seq", "type", "body", "mac"}:
        return "fields"
    if not (
        isinstance(mac, str)
        and type(node) is int
        and type(seq) is int
        and isinstance(kind, str)
        and isinstance(body, dict)
    ):
        return "fields"
    fields = {k: v for k, v in data.items() if k != "mac"}
    expected = hmac.new(key, _canonical(fields), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, mac):
        return "mac"
    return Frame(node=node, seq=seq, type=kind, body=body)


@dataclass(frozen=True)
class Message:
    """A frame as the receiving side hands it out. ``received`` is the receiver's wall
    clock when the line arrived (to compare clocks); ``type`` ``left`` is made locally when
    a node's connection closes (body ``{}``), never accepted from the wire."""

    node: int
    type: str
    body: Mapping[str, object]
    seq: int = 0
    received: float = 0.0
    peer: str = ""


class _Lines:
    """Reads newline-terminated lines from a socket, at most ``limit`` bytes each. A longer
    line is skipped to its end and reported as ``None`` (too big)."""

    def __init__(self, sock: socket.socket, limit: int) -> None:
        self.sock = sock
        self.limit = limit
        self.buffer = b""
        self.skipping = False

    def next(self, timeout: float | None) -> bytes | Exception | None:
        """A line (without the newline), ``None`` for an oversized one, or the exception
        that ended the stream (``EOFError`` for a clean close, ``TimeoutError``). The
        timeout is for the whole line: a peer dripping a byte at a time cannot hold on."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            newline = self.buffer.find(b"\n")
            if newline >= 0:
                line, self.buffer = self.buffer[:newline], self.buffer[newline + 1 :]
                if self.skipping:
                    self.skipping = False
                    return None
                if len(line) > self.limit:
                    return None
                return line
            if len(self.buffer) > self.limit:
                self.buffer = b""
                if not self.skipping:
                    self.skipping = True
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return TimeoutError("no whole line in time")
            try:
                self.sock.settimeout(left)
                chunk = self.sock.recv(65536)
            except TimeoutError as exc:
                return exc
            except OSError as exc:
                return exc
            if not chunk:
                return EOFError("closed")
            self.buffer += chunk


class _Conn:
    """One accepted connection at the hub, after its handshake."""

    def __init__(
        self, sock: socket.socket, lines: _Lines, node: int, key: bytes, peer: str
    ) -> None:
        self.sock = sock
        self.lines = lines  # holds what arrived after the hello, already buffered
        self.node = node
        self.key = key
        self.peer = peer
        self.seq = 0
        self.lock = threading.Lock()
        self.closed = False

    def send(self, run: str, type: str, body: Mapping[str, object]) -> bool:
        with self.lock:
            return self.send_locked(run, type, body)

    def send_locked(self, run: str, type: str, body: Mapping[str, object]) -> bool:
        """``send`` for a caller that holds ``lock``."""
        if self.closed:
            return False
        self.seq += 1
        data = encode(self.key, run=run, node=0, seq=self.seq, type=type, body=body)
        try:
            self.sock.settimeout(_SEND_TIMEOUT_S)
            self.sock.sendall(data)
        except OSError:
            self._close_locked()
            return False
        return True

    def close(self) -> None:
        with self.lock:
            self._close_locked()

    def _close_locked(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)
            self.sock.close()


@dataclass
class _Stats:
    """Rejected frames and connections, by reason (and the last few peers, to name them)."""

    reasons: Counter[str] = field(default_factory=Counter)
    peers: dict[str, str] = field(default_factory=dict)  # peer address -> last reason
    runs: set[str] = field(default_factory=set)  # other runs' ids seen on the port

    def add(self, reason: str, peer: str) -> None:
        self.reasons[reason] += 1
        if peer in self.peers or len(self.peers) < 100:
            self.peers[peer] = reason


class Hub:
    """Node 0's end: listens on ``port`` from construction on (raises ``OSError`` when it
    cannot bind), accepts the other nodes' links, hands their frames out through
    ``messages``. Every method is safe to call from any thread."""

    def __init__(
        self,
        port: int,
        run_id: str,
        key: bytes,
        nnodes: int,
        *,
        host: str = "",
        hello_timeout_s: float = HELLO_TIMEOUT_S,
        max_frame: int = MAX_FRAME,
        max_pending: int = MAX_PENDING,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.run_id = run_id
        self.key = key
        self.nnodes = nnodes
        self.hello_timeout_s = hello_timeout_s
        self.max_frame = max_frame
        self.max_pending = max_pending
        self.wall = wall
        self._queue: queue.Queue[Message] = queue.Queue()
        self._lock = threading.Lock()
        self._conns: dict[int, _Conn] = {}
        self._ever: set[int] = set()  # every node that completed a handshake
        self._pending = 0
        self._stats = _Stats()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.listener.bind((host, port))
            self.listener.listen(socket.SOMAXCONN)
        except OSError:
            self.listener.close()
            raise
        self.port = int(self.listener.getsockname()[1])
        self._acceptor = threading.Thread(target=self._accept_loop, name="lx-hub", daemon=True)
        self._acceptor.start()

    # -- public ----------------------------------------------------------------------

    def messages(self, timeout: float = 0.0) -> list[Message]:
        """Every message that arrived, waiting up to ``timeout`` s for the first one."""
        return _drain(self._queue, timeout)

    def send(self, node: int, type: str, body: Mapping[str, object]) -> bool:
        """Send to one node; False when it is not connected or the send failed."""
        with self._lock:
            conn = self._conns.get(node)
        return conn is not None and conn.send(self.run_id, type, body)

    def broadcast(self, type: str, body: Mapping[str, object]) -> set[int]:
        """Send to every connected node; returns the nodes it reached."""
        with self._lock:
            conns = list(self._conns.values())
        return {c.node for c in conns if c.send(self.run_id, type, body)}

    def joined(self) -> set[int]:
        """The nodes connected now (their handshake done)."""
        with self._lock:
            return set(self._conns)

    def ever_joined(self) -> set[int]:
        """The nodes that were connected at some time, gone since or not."""
        with self._lock:
            return set(self._ever)

    def rejected(self) -> Mapping[str, int]:
        """How many frames or connections were dropped, by reason."""
        with self._lock:
            return dict(self._stats.reasons)

    def rejected_peers(self) -> Mapping[str, str]:
        """Addresses that sent something rejected, with the last reason (at most 100)."""
        with self._lock:
            return dict(self._stats.peers)

    def close(self, linger_s: float = 1.0) -> None:
        """Stop accepting; let every link read what was sent (half-close, then wait up to
        ``linger_s`` for them to hang up); close everything."""
        self._stop.set()
        with contextlib.suppress(OSError):
            self.listener.close()
        with self._lock:
            conns = list(self._conns.values())
        for conn in conns:
            with conn.lock, contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_WR)
        end = time.monotonic() + linger_s
        for thread in [self._acceptor, *self._threads]:
            thread.join(max(0.0, end - time.monotonic()))
        for conn in conns:
            conn.close()

    def __enter__(self) -> Hub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals ---------------------------------------------------------------------

    def _reject(self, reason: str, peer: str) -> None:
        with self._lock:
            self._stats.add(reason, peer)

    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                ready, _w, _x = select.select([self.listener], [], [], _POLL_S)
                if not ready:
                    continue
                sock, addr = self.listener.accept()
            except (OSError, ValueError):
                if self._stop.is_set():
                    return
                continue
            peer = str(addr[0])
            with self._lock:
                full = self._pending >= self.max_pending
                if not full:
                    self._pending += 1
            if full:
                self._reject("crowded", peer)
                sock.close()
                continue
            thread = threading.Thread(
                target=self._serve, args=(sock, peer), name="lx-hub-conn", daemon=True
            )
            self._threads = [t for t in self._threads if t.is_alive()]
            self._threads.append(thread)
            thread.start()

    def _serve(self, sock: socket.socket, peer: str) -> None:
        conn: _Conn | None = None
        try:
            conn = self._handshake(sock, peer)
        except Exception:  # whatever a stranger sends, the hub goes on
            self._reject("error", peer)
        finally:
            with self._lock:
                self._pending -= 1
        if conn is None:
            with contextlib.suppress(OSError):
                sock.close()
            return
        try:
            self._read(conn)
        finally:
            with self._lock:
                current = self._conns.get(conn.node) is conn
                if current:
                    del self._conns[conn.node]
            conn.close()
            if current:
                self._queue.put(Message(conn.node, "left", {}, received=self.wall(), peer=peer))

    def _handshake(self, sock: socket.socket, peer: str) -> _Conn | None:
        deadline = time.monotonic() + self.hello_timeout_s
        nonce = os.urandom(16).hex()
        challenge = encode(
            self.key, run=self.run_id, node=0, seq=0, type="challenge", body={"nonce": nonce}
        )
        try:
            sock.settimeout(_SEND_TIMEOUT_S)
            sock.sendall(challenge)
        except OSError:
            return None
        lines = _Lines(sock, self.max_frame)
        remaining = deadline - time.monotonic()
        line = lines.next(max(remaining, 0.001))
        if isinstance(line, Exception):
            self._reject("no hello", peer)
            return None
        if line is None:
            self._reject("size", peer)
            return None
        frame = decode(line, self.key, self.run_id)
        if isinstance(frame, str):
            self._note_foreign_run(line, frame)
            self._reject(frame, peer)
            return None
        hello = _hello_fields(frame, nonce, self.nnodes)
        if hello is None:
            self._reject("hello", peer)
            return None
        link_nonce, host = hello
        conn = _Conn(sock, lines, frame.node, _session_key(self.key, nonce, link_nonce), peer)
        # Registered before its welcome, so a node's connections replace each other in the
        # order the node made them (a slow thread registering an older connection after a
        # newer one closed the newer); its lock held, nothing is sent to it before welcome.
        with conn.lock:
            with self._lock:
                old = self._conns.get(frame.node)
                self._conns[frame.node] = conn
                self._ever.add(frame.node)
            welcomed = conn.send_locked(self.run_id, "welcome", {})
        if old is not None:
            old.close()  # the node reconnected: its old connection is gone for good
        if not welcomed:
            with self._lock:
                if self._conns.get(frame.node) is conn:
                    del self._conns[frame.node]
            return None
        self._queue.put(Message(frame.node, "hello", {"host": host}, frame.seq, self.wall(), peer))
        return conn

    def _note_foreign_run(self, line: bytes, reason: str) -> None:
        if reason != "run":
            return
        with contextlib.suppress(ValueError, UnicodeDecodeError, AttributeError):
            other = json.loads(line).get("run")
            if isinstance(other, str):
                with self._lock:
                    if len(self._stats.runs) < 10:
                        self._stats.runs.add(other[:80])

    def _read(self, conn: _Conn) -> None:
        last_seq = 0
        while True:
            line = conn.lines.next(_POLL_S * 5)
            if isinstance(line, TimeoutError):
                if conn.closed:
                    return
                continue
            if isinstance(line, Exception):
                return
            if line is None:
                self._reject("size", conn.peer)
                continue
            frame = decode(line, conn.key, self.run_id)
            if isinstance(frame, str):
                self._reject(frame, conn.peer)
                continue
            if frame.node != conn.node:
                self._reject("sender", conn.peer)
                continue
            if frame.seq <= last_seq:
                self._reject("replay", conn.peer)
                continue
            last_seq = frame.seq
            if frame.type in ("left", "hello", "challenge", "welcome"):
                self._reject("type", conn.peer)
                continue
            self._queue.put(
                Message(frame.node, frame.type, frame.body, frame.seq, self.wall(), conn.peer)
            )

    @property
    def foreign_runs(self) -> set[str]:
        """Run ids of other runs whose frames reached this port (a node started with other
        options derives another run id)."""
        with self._lock:
            return set(self._stats.runs)


def _drain(inbox: queue.Queue[Message], timeout: float) -> list[Message]:
    """Every message in ``inbox``, waiting up to ``timeout`` s for the first one."""
    out: list[Message] = []
    try:
        out.append(inbox.get(timeout=timeout) if timeout > 0 else inbox.get_nowait())
    except queue.Empty:
        return out
    while True:
        try:
            out.append(inbox.get_nowait())
        except queue.Empty:
            return out


def _pause() -> float:
    return _RETRY_S * (0.5 + random.random())


def open_connection(addr: str, port: int, timeout: float) -> socket.socket:
    """``socket.create_connection``, but never to itself. A connection to a port of this
    host that nobody listens on yet can be given that same port as its own and connect to
    itself (TCP's simultaneous open); it then holds the port the node meant to listen on
    (two nodes on one host, a port in the kernel's ephemeral range), and that node's bind
    fails. Such a socket is closed at once and reported as refused, as it would have been."""
    sock = socket.create_connection((addr, port), timeout=timeout)
    try:
        itself = sock.getsockname() == sock.getpeername()
    except OSError:
        itself = False
    if itself:
        sock.close()
        raise ConnectionRefusedError(errno.ECONNREFUSED, "nobody listens there yet")
    return sock


def _hello_fields(frame: Frame, nonce: str, nnodes: int) -> tuple[str, str] | None:
    body = frame.body
    link_nonce, host = body.get("link_nonce"), body.get("host", "")
    if frame.type != "hello" or body.get("nonce") != nonce:
        return None
    if not isinstance(link_nonce, str) or not 16 <= len(link_nonce) <= 128:
        return None
    if not 1 <= frame.node < nnodes or not isinstance(host, str):
        return None
    return link_nonce, host[:255]


class Link:
    """Node k's end: ``connect`` (retrying until a deadline), then ``send`` and
    ``receive``. A reader thread queues the hub's frames."""

    def __init__(
        self,
        addr: str,
        port: int,
        run_id: str,
        key: bytes,
        node: int,
        *,
        host: str = "",
        max_frame: int = MAX_FRAME,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.addr = addr
        self.port = port
        self.run_id = run_id
        self.key = key
        self.node = node
        self.host = host
        self.max_frame = max_frame
        self.monotonic = monotonic
        self.sleep = sleep
        self.wall = wall
        self.last_error: str | None = None
        self._sock: socket.socket | None = None
        self._session: bytes | None = None
        self._seq = 0
        self._send_lock = threading.Lock()
        self._queue: queue.Queue[Message] = queue.Queue()
        self._reader: threading.Thread | None = None
        self._closed = threading.Event()

    @property
    def connected(self) -> bool:
        return self._sock is not None and not self._closed.is_set()

    def connect(self, deadline: float) -> bool:
        """Connect and complete the handshake, retrying until ``deadline`` (on this link's
        monotonic clock). False when the deadline passed; ``last_error`` says why."""
        self.close()
        self._closed.clear()
        while True:
            remaining = deadline - self.monotonic()
            if remaining <= 0:
                return False
            try:
                sock = open_connection(self.addr, self.port, min(2.0, remaining))
            except OSError as exc:
                self.last_error = exc.strerror or str(exc)
                self.sleep(min(_pause(), max(remaining, 0.0)))
                continue
            if self._handshake(sock, deadline):
                return True
            sock.close()
            self.sleep(min(_pause(), max(deadline - self.monotonic(), 0.0)))

    def send(self, type: str, body: Mapping[str, object]) -> bool:
        with self._send_lock:
            sock, key = self._sock, self._session
            if sock is None or key is None or self._closed.is_set():
                return False
            self._seq += 1
            data = encode(key, run=self.run_id, node=self.node, seq=self._seq, type=type, body=body)
            try:
                sock.settimeout(_SEND_TIMEOUT_S)
                sock.sendall(data)
            except OSError as exc:
                self.last_error = exc.strerror or str(exc)
                self._closed.set()
                return False
            return True

    def receive(self, timeout: float = 0.0) -> list[Message]:
        """The hub's messages that arrived, waiting up to ``timeout`` s for the first."""
        return _drain(self._queue, timeout)

    def close(self) -> None:
        self._closed.set()
        with self._send_lock:
            sock, self._sock, self._session = self._sock, None, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(2.0)
        self._reader = None

    def __enter__(self) -> Link:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _handshake(self, sock: socket.socket, deadline: float) -> bool:
        lines = _Lines(sock, self.max_frame)
        timeout = max(min(HELLO_TIMEOUT_S, deadline - self.monotonic()), 0.001)
        line = lines.next(timeout)
        challenge = decode(line, self.key, self.run_id) if isinstance(line, bytes) else None
        if not isinstance(challenge, Frame) or challenge.type != "challenge":
            self.last_error = "the listener at the channel port is not this run's node 0"
            return False
        nonce = challenge.body.get("nonce")
        if not isinstance(nonce, str):
            self.last_error = "malformed challenge"
            return False
        link_nonce = os.urandom(16).hex()
        hello = encode(
            self.key,
            run=self.run_id,
            node=self.node,
            seq=0,
            type="hello",
            body={"nonce": nonce, "link_nonce": link_nonce, "host": self.host},
        )
        session = _session_key(self.key, nonce, link_nonce)
        try:
            sock.settimeout(_SEND_TIMEOUT_S)
            sock.sendall(hello)
        except OSError as exc:
            self.last_error = exc.strerror or str(exc)
            return False
        line = lines.next(timeout)
        welcome = decode(line, session, self.run_id) if isinstance(line, bytes) else None
        if not isinstance(welcome, Frame) or welcome.type != "welcome" or welcome.node != 0:
            self.last_error = "node 0 did not accept this node (another run, token or node rank?)"
            return False
        with self._send_lock:
            self._sock, self._session, self._seq = sock, session, 0
        self._reader = threading.Thread(
            target=self._read,
            args=(sock, lines, session, welcome.seq),
            daemon=True,
            name="lx-link",
        )
        self._reader.start()
        return True

    def _read(self, sock: socket.socket, lines: _Lines, key: bytes, last_seq: int) -> None:
        while not self._closed.is_set():
            line = lines.next(_POLL_S * 5)
            if isinstance(line, TimeoutError):
                continue
            if isinstance(line, Exception):
                break
            if line is None:
                continue
            frame = decode(line, key, self.run_id)
            if isinstance(frame, str) or frame.node != 0 or frame.seq <= last_seq:
                continue
            last_seq = frame.seq
            self._queue.put(Message(0, frame.type, frame.body, frame.seq, self.wall()))
        if not self._closed.is_set():
            self.last_error = "node 0 closed the channel"
        self._closed.set()
