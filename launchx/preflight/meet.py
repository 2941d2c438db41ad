"""Preflight across nodes: the nodes meet at node 0, which compares, measures and answers.

Every node runs ``launchx doctor`` (or ``run --preflight``) with the same options:

1. Node 0 opens the channel (``MASTER_PORT + 1``, the port ``run`` uses for its own) and
   a plain listener on ``MASTER_PORT`` (the job's rendezvous port, so every node can show
   that it reaches it).
2. Every other node connects (retrying until ``--join-timeout``), tries the rendezvous
   port meanwhile (and knocks there, naming itself, when node 0's signed banner answers),
   and sends its facts summary (``summary.py``) with its wall clock. A node that cannot
   join says which of node 0's two ports it reached (LX252 only when this run's node 0
   answered on the rendezvous port; LX230 when something else did); node 0 names a node
   that knocked but never joined (LX252: the channel's port is closed between them) and,
   for one that did neither, the ports it listened on (LX230).
3. Node 0 waits until every node's facts are in or the join timeout passes, then runs the
   link test (``sweep.py``) with the nodes that came, compares (``compare.py``), sends
   every node the verdict and prints the report. Each node exits with the verdict's code.

Nobody waits forever: node 0 stops waiting at the join timeout, and the other nodes give
up on node 0 at theirs, extended by what node 0 says it still waits for. Only node 0
prints the report; a node that cannot hear node 0 prints its own (naming node 0 absent).
"""

from __future__ import annotations

import contextlib
import math
import os
import selectors
import socket
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import IO

from launchx import __version__, agree, channel, detect, doctor, plan
from launchx.errors import ConfigError
from launchx.preflight import comm, compare, report
from launchx.preflight.summary import NodeFacts, parse, summarize
from launchx.preflight.sweep import Ranks, Spec, job_env
from launchx.resolve import Resolution

JOIN_TIMEOUT_S = 60.0
SWEEP_BUDGET_S = 3.0  # the size sweep stops at the first size that would pass this
SWEEP_TIMEOUT_S = 30.0  # the ranks' time to meet and for one collective, then they give up
_PROBE_TIMEOUT_S = 5.0
_MARGIN_S = 15.0  # a follower's patience beyond what node 0 said it waits for
_POLL_S = 0.2
_KNOCK_WAIT_S = 2.0  # how long a connection to the rendezvous port may take to knock
_KNOCK_MAX = 4096  # bytes of a knock
_MAX_KNOCKS = 1024  # connections waiting to knock at once; more are just closed
_KNOCK_PAUSE_S = 0.5  # a node's pause between tries of the rendezvous port
# Errors of the resolution that make a meeting impossible: said once, as the error.
_FATAL = ("LX301", "LX305", "LX307")
_ONE_RANK_PER_PROCESS = ("torchrun", "platform", "mpi", "srun_step")


@dataclass(frozen=True)
class Where:
    """Where the nodes meet, as every node works it out alike."""

    nnodes: int
    node: int
    master_addr: str
    master_port: int
    channel_port: int
    run_id: str
    key: bytes
    command: str = "launchx doctor"  # what every node runs: named in the fixes

    @property
    def master(self) -> str:
        return f"{self.master_addr}:{self.master_port}"


def where(res: Resolution, run_id: str | None = None, command: str = "launchx doctor") -> Where:
    """The meeting point, or a ``ConfigError`` naming the bad argument."""
    for finding in res.findings:
        if finding.code in _FATAL and finding.level == "error":
            raise ConfigError(finding.message, finding.fix)
    ctx = res.facts.launch
    if ctx.kind in _ONE_RANK_PER_PROCESS and (ctx.local_world_size or 1) > 1:
        raise ConfigError(
            f"preflight runs once per node, but {ctx.describe()} started "
            f"{ctx.local_world_size} processes on this node",
            f"start one launchx per node: srun --ntasks-per-node=1 {command} ...",
        )
    port = plan.decide_port(res).port
    if port is None:  # one node: nothing to meet
        port = 0
    base = plan.shared_run_id(res, run_id) or "lx-one-node"  # alone: nobody to meet
    token = plan.channel_token(res)
    return Where(
        nnodes=res.nnodes,
        node=int(res.launch["node_rank"].value),
        master_addr=res.launch["master_addr"].value,
        master_port=port,
        channel_port=agree.agreement_port(port),
        run_id=f"{base}/preflight",
        key=channel.derive_key(f"{base}/preflight", token),
        command=command,
    )


def local_report(res: Resolution, note: str = "single node: nothing to compare") -> report.Report:
    """The report of this node alone (one node, or a node that could not reach node 0)."""
    node = int(res.launch["node_rank"].value) if res.launch["node_rank"].value.isdigit() else 0
    own = summarize(res, node, doctor.assess(res)[1], version=__version__)
    return compare.compare(
        [own],
        expected=1,
        master=f"{res.launch['master_addr'].value}:{res.launch['master_port'].value}",
        profile=res.profile.name,
        comm_note=note,
    )


def check(
    res: Resolution,
    *,
    join_timeout_s: float = JOIN_TIMEOUT_S,
    comm_test: bool = True,
    as_json: bool = False,
    out: IO[str] | None = None,
    run_id: str | None = None,
    budget_s: float = SWEEP_BUDGET_S,
    command: str = "launchx doctor",
) -> int:
    """Preflight every node of the job ``res`` describes; 0 all well, 2 errors found.

    Call it on every node with the same options. Node 0 prints the report (text, or JSON
    with ``as_json``) to ``out``; the other nodes print nothing unless they cannot hear
    node 0 (then their own report, naming node 0 absent), or ``out`` is a terminal (one
    line). Raises ``ConfigError`` for arguments that cannot work (node rank >= nnodes, no
    master address, a bad timeout).
    """
    out = out or sys.stdout
    if not (math.isfinite(join_timeout_s) and join_timeout_s > 0):
        raise ConfigError(
            f"--join-timeout {join_timeout_s:g} is not a positive number of seconds",
            "pass e.g. --join-timeout 60",
        )
    place = where(res, run_id, command)
    if place.nnodes <= 1:
        rep = local_report(res)
        out.write(report.render_json(rep) if as_json else report.render_text(rep))
        return rep.exit_code
    if place.node == 0:
        rep = _lead(res, place, join_timeout_s, comm_test, budget_s)
        out.write(report.render_json(rep) if as_json else report.render_text(rep))
        out.flush()
        return rep.exit_code
    return _follow(res, place, join_timeout_s, as_json, out)


# --- node 0 -----------------------------------------------------------------------------


class _Placeholder:
    """A listener on the rendezvous port while the nodes meet, so every node can show that
    it reaches the port. Each connection gets a signed banner (a fresh nonce); a node of
    this run answers with a signed knock naming itself, so node 0 can name a node that
    reaches the rendezvous port but never joins the channel. Then the connection closes."""

    def __init__(self, port: int, run_id: str = "", key: bytes = b"") -> None:
        self.error: str | None = None
        self.run_id = run_id
        self.key = key
        self._knocks: dict[int, str] = {}  # node -> its host ("" when it named none)
        self._lock = threading.Lock()
        self.sock: socket.socket | None = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.stop = threading.Event()
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.sock.bind(("", port))
            self.sock.listen(socket.SOMAXCONN)
            self.sock.setblocking(False)
        except OSError as exc:
            self.sock.close()
            self.sock = None
            self.error = f"port {port}: {exc.strerror or exc}"
            return
        self.thread = threading.Thread(target=self._serve, daemon=True, name="lx-rdzv")
        self.thread.start()

    @property
    def knocks(self) -> dict[int, str]:
        """The nodes that reached this port and said who they are, with their host."""
        with self._lock:
            return dict(self._knocks)

    def _serve(self) -> None:
        assert self.sock is not None
        with selectors.DefaultSelector() as sel:
            sel.register(self.sock, selectors.EVENT_READ, None)
            pending: dict[socket.socket, _Knocked] = {}
            try:
                while not self.stop.is_set():
                    for key, _mask in sel.select(_POLL_S):
                        if key.data is None:
                            self._accept(sel, pending)
                        else:
                            self._read(sel, pending, key.data)
                    now = time.monotonic()
                    for conn in [c for c, k in pending.items() if k.deadline < now]:
                        _drop(sel, pending, conn)
            except OSError:
                pass
            finally:
                for conn in list(pending):
                    _drop(sel, pending, conn)

    def _accept(self, sel: selectors.BaseSelector, pending: dict[socket.socket, _Knocked]) -> None:
        assert self.sock is not None
        try:
            conn, _addr = self.sock.accept()
        except OSError:  # nothing to accept after all, or a connection already gone
            return
        if len(pending) >= _MAX_KNOCKS or not self.key:
            conn.close()  # reached is all it needs to know
            return
        nonce = os.urandom(16).hex()
        try:
            conn.setblocking(False)
            conn.send(
                channel.encode(
                    self.key,
                    run=self.run_id,
                    node=0,
                    seq=0,
                    type="rendezvous",
                    body={"nonce": nonce},
                )
            )
        except OSError:
            conn.close()
            return
        pending[conn] = _Knocked(conn, nonce, time.monotonic() + _KNOCK_WAIT_S)
        sel.register(conn, selectors.EVENT_READ, pending[conn])

    def _read(
        self,
        sel: selectors.BaseSelector,
        pending: dict[socket.socket, _Knocked],
        state: _Knocked,
    ) -> None:
        try:
            chunk = state.conn.recv(_KNOCK_MAX)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        state.buffer += chunk
        if b"\n" not in state.buffer:
            if chunk and len(state.buffer) < _KNOCK_MAX:
                return
            _drop(sel, pending, state.conn)
            return
        line = bytes(state.buffer.split(b"\n", 1)[0])
        _drop(sel, pending, state.conn)
        frame = channel.decode(line, self.key, self.run_id)
        if (
            isinstance(frame, channel.Frame)
            and frame.type == "knock"
            and frame.node > 0
            and frame.body.get("nonce") == state.nonce
        ):
            host = frame.body.get("host")
            with self._lock:
                self._knocks[frame.node] = host if isinstance(host, str) else ""

    def close(self) -> None:
        self.stop.set()
        if self.sock is not None:
            self.thread.join(2.0)
            self.sock.close()


@dataclass
class _Knocked:
    """A connection to the rendezvous port that got the banner, until it knocks."""

    conn: socket.socket
    nonce: str
    deadline: float
    buffer: bytearray = field(default_factory=bytearray)


def _drop(
    sel: selectors.BaseSelector, pending: dict[socket.socket, _Knocked], conn: socket.socket
) -> None:
    pending.pop(conn, None)
    with contextlib.suppress(KeyError, ValueError, OSError):
        sel.unregister(conn)
    conn.close()


@dataclass
class _Gathered:
    facts: dict[int, NodeFacts]
    hosts: dict[int, str]
    offsets: dict[int, float]
    unreadable: dict[int, str]
    said_hello: set[int]


def _lead(
    res: Resolution, place: Where, join_timeout_s: float, comm_test: bool, budget_s: float
) -> report.Report:
    # The rendezvous port listens before the channel does: a node that joined may probe it
    # at once.
    rendezvous = _Placeholder(place.master_port, place.run_id, place.key)
    try:
        hub = channel.Hub(place.channel_port, place.run_id, place.key, place.nnodes, host="")
    except OSError as exc:
        rendezvous.close()
        holder = res.facts.listening.get(place.channel_port)
        raise ConfigError(
            f"node 0 cannot listen on port {place.channel_port} for the other nodes "
            f"({exc.strerror or exc})" + (f": {holder.describe()}" if holder else ""),
            "stop what holds it, or pick another --master-port (the port above it is "
            "launchx's) on every node",
        ) from None
    with hub:
        try:
            own = summarize(
                res, 0, doctor.assess(res)[1], version=__version__, rendezvous=rendezvous.error
            )
            got = _gather(hub, own, place, time.monotonic() + join_timeout_s)
        finally:
            rendezvous.close()
        knocked = rendezvous.knocks
        for node, host in knocked.items():
            if host:
                got.hosts.setdefault(node, host)
        absent = _absent(res, place, got)
        # Nodes that reached the rendezvous port but never joined: the channel's port is
        # closed between them and node 0 (or they stopped).
        unreached = {
            a.node: f"{place.master_addr}:{place.channel_port}"
            for a in absent
            if a.why == compare.DID_NOT_JOIN and a.node in knocked
        }
        nodes = [got.facts[n] for n in sorted(got.facts)]
        if comm_test:
            try:
                link, note = _link_test(hub, res, place, nodes, budget_s)
            except OSError as exc:  # the ranks could not even start
                link = comm.CommReport(
                    res.launch["backend"].value,
                    0,
                    tuple(f.node for f in nodes),
                    error=f"cannot start the test's processes: {exc.strerror or exc}",
                )
                note = ""
        else:
            link, note = None, "skipped (--no-comm)"
        names = [f.host for f in nodes]
        found = detect.lookup_hosts(names, root=res.facts.root)
        unresolved = [f.node for f in nodes if f.host not in found]
        rep = compare.compare(
            nodes,
            expected=place.nnodes,
            master=place.master,
            profile=res.profile.name,
            absent=absent,
            seen=compare.Seen(
                clock_offsets=got.offsets,
                unresolved=unresolved,
                refused=list(hub.rejected_peers()) if absent else (),
                unreached=unreached,
            ),
            comm=link,
            comm_note=note,
            join_timeout_s=join_timeout_s,
            hosts=got.hosts,
            channel_port=place.channel_port,
            command=place.command,
        )
        counts = rep.counts()
        hub.broadcast(
            "verdict",
            {"exit_code": rep.exit_code, "errors": counts["error"], "warnings": counts["warning"]},
        )
    return rep


def _gather(hub: channel.Hub, own: NodeFacts, place: Where, deadline: float) -> _Gathered:
    got = _Gathered({0: own}, {0: own.host}, {0: 0.0}, {}, set())
    while len(got.facts) + len(got.unreadable) < place.nnodes:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        for msg in hub.messages(min(_POLL_S, left)):
            _take(hub, msg, got, deadline)
    return got


def _take(hub: channel.Hub, msg: channel.Message, got: _Gathered, deadline: float) -> None:
    if msg.type == "hello":
        got.said_hello.add(msg.node)
        host = msg.body.get("host")
        if isinstance(host, str) and host:
            got.hosts[msg.node] = host
        hub.send(msg.node, "wait", {"until_s": max(0.0, deadline - time.monotonic())})
    elif msg.type == "facts":
        body, wall = msg.body.get("facts"), msg.body.get("wall")
        parsed = parse(body) if isinstance(body, dict) else "no facts in the message"
        if isinstance(parsed, NodeFacts) and parsed.node != msg.node:
            parsed = f"says it is node {parsed.node}"
        if isinstance(parsed, str):
            got.unreadable[msg.node] = parsed
            return
        got.facts[msg.node] = parsed
        got.hosts[msg.node] = parsed.host
        if isinstance(wall, (int, float)):
            got.offsets[msg.node] = float(wall) - msg.received


def _absent(res: Resolution, place: Where, got: _Gathered) -> list[report.Absent]:
    slurm = res.facts.slurm
    expected_hosts = (
        slurm.nodelist if slurm is not None and len(slurm.nodelist) == place.nnodes else ()
    )
    out: list[report.Absent] = []
    for node in range(place.nnodes):
        if node in got.facts:
            continue
        host = got.hosts.get(node) or (expected_hosts[node] if expected_hosts else None)
        if node in got.unreadable:
            why = f"{compare.UNREADABLE} ({got.unreadable[node]})"
        elif node in got.said_hello:
            why = compare.JOINED_SILENT
        else:
            why = compare.DID_NOT_JOIN
        out.append(report.Absent(node, host, why))
    return out


def _procs(f: NodeFacts) -> int:
    """Ranks a node runs in the link test: one per GPU the job uses (NCCL), else one."""
    if f.backend != "nccl":
        return 1
    return max(1, min(f.nproc, f.gpus if f.gpus else f.nproc))


def _link_test(
    hub: channel.Hub,
    res: Resolution,
    place: Where,
    nodes: list[NodeFacts],
    budget_s: float,
) -> tuple[comm.CommReport | None, str]:
    able = [f for f in nodes if f.torch is not None]
    if len(able) < 2:
        return None, "skipped: fewer than two nodes with torch took part"
    backend = res.launch["backend"].value
    blocks, world = comm.layout({f.node: _procs(f) for f in able})
    partners = comm.partners(blocks)
    specs = {
        b.node: Spec(
            backend, world, b.base, b.count, tuple(partners[b.node]), budget_s, SWEEP_TIMEOUT_S
        )
        for b in blocks
    }
    for node, spec in specs.items():
        if node != 0:
            hub.send(node, "sweep", spec.to_json(""))
    ranks = Ranks(
        specs[0],
        python=res.facts.python,
        env=job_env(res),
        master_addr=place.master_addr,
        master_port=place.master_port,
    )
    failures: dict[int, str] = {}
    try:
        limit = time.monotonic() + _ranks_limit(specs[0])
        while not ranks.done() and time.monotonic() < limit:
            _collect(hub, failures, _POLL_S)
        timed_out = not ranks.done()
        own_failure = ranks.failure()
        if timed_out or own_failure:
            ranks.stop()
            # The other nodes say why their ranks stopped, when they know.
            wait_until = time.monotonic() + 3.0
            while time.monotonic() < wait_until and len(failures) < len(specs) - 1:
                _collect(hub, failures, _POLL_S)
        if own_failure:
            failures[0] = own_failure
        result = ranks.result()
    finally:
        ranks.cleanup()
    used = tuple(b.node for b in blocks)
    error = None
    if result is None:
        error = (
            f"did not finish within {_ranks_limit(specs[0]):.0f} s"
            if timed_out and not failures
            else "a rank failed"
        )
    report_ = _comm_report(backend, world, used, blocks, result, error, failures)
    return report_, ""


def _ranks_limit(spec: Spec) -> float:
    return spec.timeout_s + 4 * spec.budget_s + 15.0


def _collect(hub: channel.Hub, failures: dict[int, str], timeout: float) -> None:
    for msg in hub.messages(timeout):
        if msg.type == "sweep_done":
            text = msg.body.get("error")
            if isinstance(text, str) and text:
                failures[msg.node] = text[:500]


def _comm_report(
    backend: str,
    world: int,
    nodes: tuple[int, ...],
    blocks: tuple[comm.Block, ...],
    result: Mapping[str, object] | None,
    error: str | None,
    failures: Mapping[int, str],
) -> comm.CommReport:
    listed = tuple(sorted(failures.items()))
    if result is None:
        return comm.CommReport(backend, world, nodes, error=error, failures=listed)
    raw_sweep = result.get("sweep")
    raw_times = result.get("times")
    sweep = comm.sweep_points(
        [(float(s), float(t)) for s, t in raw_sweep] if isinstance(raw_sweep, list) else [],
        world,
    )
    pair_size = int(str(result.get("pair_size", 0)))
    iters = int(str(result.get("pair_iters", 1)))
    times = [float(t) for t in raw_times] if isinstance(raw_times, list) else []
    pairs = comm.pair_points(blocks, times, pair_size, iters)
    median, slow_pairs, slow_nodes = comm.slow(pairs)
    return comm.CommReport(
        backend=backend,
        ranks=world,
        nodes=nodes,
        sweep=sweep,
        pair_size=pair_size,
        pairs=pairs,
        median_gbs=median,
        slow_pairs=slow_pairs,
        slow_nodes=slow_nodes,
        error=error,
        failures=listed,
    )


# --- the other nodes ------------------------------------------------------------------------


@dataclass(frozen=True)
class Tried:
    """What a node's tries of node 0's rendezvous port found."""

    error: str | None  # why the last try failed; None once the port was reached
    node0: bool = False  # the port answered with this run's node 0's signed banner
    ended: bool = True  # False: no try had ended yet


class Knock:
    """A node's tries of node 0's rendezvous port while it joins the channel (a thread):
    until one connection opens, or ``close``. On the first that opens it reads node 0's
    banner and, when it is this run's node 0 (signed with this run's key), answers with a
    knock naming this node, so node 0 can say that this node reached the rendezvous port
    should it never join. Anything else that answers there (another job's TCPStore) gets
    nothing, and ``tried`` says it was not this run's node 0."""

    def __init__(self, place: Where, host: str) -> None:
        self.place = place
        self.host = host
        self.error: str | None = "no try has ended yet"
        self._started = 0
        self._done = 0
        self._reached = False
        self._node0: bool | None = None  # None until the banner was read (or not)
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="lx-knock")
        self._thread.start()

    def result(self, wait_s: float = 0.0) -> str | None:
        """None once the port was reached, else why not: the last try's error, after
        waiting up to ``wait_s`` for the port or for a try that starts after this call."""
        end = time.monotonic() + wait_s
        with self._changed:
            fresh = self._started + 1  # the first try that starts after this call
            while not self._reached and self._done < fresh and not self._stop.is_set():
                left = end - time.monotonic()
                if left <= 0:
                    break
                self._changed.wait(left)
            return None if self._reached else self.error

    def tried(self, wait_s: float) -> Tried:
        """What the tries found, after waiting up to ``wait_s`` for the first try to end
        and, once the port was reached, for its banner to be read."""
        end = time.monotonic() + wait_s
        with self._changed:
            while (self._done == 0 or (self._reached and self._node0 is None)) and not (
                self._stop.is_set()
            ):
                left = end - time.monotonic()
                if left <= 0:
                    break
                self._changed.wait(left)
            if self._reached:
                return Tried(None, node0=bool(self._node0), ended=self._node0 is not None)
            return Tried(self.error, ended=self._done > 0)

    def close(self) -> None:
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        self._thread.join(1.0)  # a try under way ends on its own (a daemon thread)

    def _run(self) -> None:
        addr, port = self.place.master_addr, self.place.master_port
        while not self._stop.is_set():
            with self._changed:
                self._started += 1
            try:
                sock = channel.open_connection(addr, port, _PROBE_TIMEOUT_S)
            except OSError as exc:
                with self._changed:
                    self.error = exc.strerror or str(exc) or type(exc).__name__
                    self._done += 1
                    self._changed.notify_all()
                self._stop.wait(_KNOCK_PAUSE_S)
                continue
            with self._changed:
                self._reached, self.error = True, None
                self._changed.notify_all()
            node0 = False
            with sock:
                if not self._stop.is_set():  # after close the port is the job's again
                    node0 = self._knock(sock)
            with self._changed:
                self._node0 = node0
                self._done += 1
                self._changed.notify_all()
            return

    def _knock(self, sock: socket.socket) -> bool:
        """Answer the banner of this run's node 0 (anything else listening there gets
        nothing: torchrun's store, another run). True when the banner was node 0's."""
        place = self.place
        line = channel._Lines(sock, _KNOCK_MAX).next(_KNOCK_WAIT_S)
        if not isinstance(line, bytes):
            return False
        frame = channel.decode(line, place.key, place.run_id)
        if not (isinstance(frame, channel.Frame) and frame.type == "rendezvous"):
            return False
        if frame.node != 0 or not isinstance(frame.body.get("nonce"), str):
            return False
        body = {"nonce": frame.body["nonce"], "host": self.host}
        with contextlib.suppress(OSError):  # node 0 is there: a lost knock changes nothing
            sock.settimeout(_KNOCK_WAIT_S)
            sock.sendall(
                channel.encode(
                    place.key, run=place.run_id, node=place.node, seq=0, type="knock", body=body
                )
            )
        return True


def _follow(
    res: Resolution,
    place: Where,
    join_timeout_s: float,
    as_json: bool,
    out: IO[str],
    monotonic: Callable[[], float] = time.monotonic,
    wall: Callable[[], float] = time.time,
) -> int:
    link = channel.Link(
        place.master_addr,
        place.channel_port,
        place.run_id,
        place.key,
        place.node,
        host=res.facts.hostname,
    )
    knock = Knock(place, res.facts.hostname)
    try:
        with link:
            if not link.connect(monotonic() + join_timeout_s):
                # a join timeout shorter than one try: wait for that try to end
                tried = knock.tried(_PROBE_TIMEOUT_S + _KNOCK_WAIT_S)
                return _not_joined(res, place, link, tried, join_timeout_s, as_json, out)
            own = summarize(
                res,
                place.node,
                doctor.assess(res)[1],
                version=__version__,
                rendezvous=knock.result(_PROBE_TIMEOUT_S + _KNOCK_PAUSE_S),
            )
            link.send("facts", {"facts": own.model_dump(mode="json"), "wall": wall()})
            verdict = _await_verdict(res, place, link, join_timeout_s, monotonic)
    finally:
        knock.close()
    if isinstance(verdict, str):
        return _alone(res, place, verdict, as_json, out, rendezvous=own.rendezvous)
    code, errors, warnings = verdict
    if out.isatty() and not as_json:
        said = (
            "no problems"
            if not (errors or warnings)
            else f"{errors} error(s), {warnings} warning(s)"
        )
        out.write(
            f"preflight: node {place.node} of {place.nnodes}: node 0 reports {said} "
            f"(exit {code}); the report is on node 0\n"
        )
    return code


def _not_joined(
    res: Resolution,
    place: Where,
    link: channel.Link,
    rendezvous: Tried,
    join_timeout_s: float,
    as_json: bool,
    out: IO[str],
) -> int:
    """This node's report when it could not join node 0's channel: which of node 0's two
    ports it reached. Only this run's node 0 answering on the rendezvous port (its signed
    banner) means the channel's port is the problem (LX252); anything else answering there
    is named as such (LX230)."""
    channel_at = f"{place.master_addr}:{place.channel_port}"
    error = link.last_error or "no answer"
    why = f"did not answer at {channel_at} within {join_timeout_s:g} s ({error})"
    port = place.master_port
    if not rendezvous.ended:
        why += f"; no try of its rendezvous port {port} ended in time"
        cell = "no try ended in time"
    elif rendezvous.error is not None:
        why += f"; nor did its rendezvous port {port} ({rendezvous.error})"
        cell = f"not reached ({rendezvous.error})"
    elif not rendezvous.node0:
        why += (
            f"; something else answers on its rendezvous port {port}, not this run's node 0 "
            "(another job's rendezvous?)"
        )
        cell = "something else answers"
        return _alone(res, place, why, as_json, out, foreign=True, rendezvous=cell)
    else:
        return _alone(res, place, why, as_json, out, unreached=f"{channel_at} ({error})")
    return _alone(res, place, why, as_json, out, rendezvous=cell)


def _await_verdict(
    res: Resolution,
    place: Where,
    link: channel.Link,
    join_timeout_s: float,
    monotonic: Callable[[], float],
) -> tuple[int, int, int] | str:
    """Node 0's verdict (exit code, errors, warnings), or why none came. Runs this node's
    ranks of the link test when node 0 asks."""
    deadline = monotonic() + join_timeout_s + _MARGIN_S
    ranks: Ranks | None = None
    told = False
    try:
        while True:
            for msg in link.receive(_POLL_S):
                if msg.type == "wait":
                    until = msg.body.get("until_s")
                    if isinstance(until, (int, float)):
                        deadline = max(deadline, monotonic() + float(until) + _MARGIN_S)
                elif msg.type == "sweep" and ranks is None:
                    spec = Spec.from_json(msg.body)
                    deadline = max(deadline, monotonic() + _ranks_limit(spec) + _MARGIN_S)
                    ranks = Ranks(
                        spec,
                        python=res.facts.python,
                        env=job_env(res),
                        master_addr=place.master_addr,
                        master_port=place.master_port,
                    )
                elif msg.type == "verdict":
                    return _verdict(msg.body)
            if ranks is not None and not told and ranks.done():
                link.send("sweep_done", {"error": ranks.failure() or ""})
                told = True
            if not link.connected:
                rest = [m for m in link.receive(0.0) if m.type == "verdict"]
                if rest:
                    return _verdict(rest[-1].body)
                return "closed the channel before its verdict (did it stop?)"
            if monotonic() > deadline:
                return "sent no verdict in time"
    finally:
        if ranks is not None:
            ranks.cleanup()


def _verdict(body: Mapping[str, object]) -> tuple[int, int, int]:
    def num(key: str) -> int:
        value = body.get(key)
        return value if isinstance(value, int) else 0

    code = num("exit_code")
    return (code if code in (0, 2) else 2), num("errors"), num("warnings")


def _alone(
    res: Resolution,
    place: Where,
    why: str,
    as_json: bool,
    out: IO[str],
    unreached: str | None = None,
    foreign: bool = False,
    rendezvous: str | None = None,
) -> int:
    """This node's own report, with node 0 named absent: the only report anyone gets.
    ``unreached``: node 0's channel (and why) when this run's node 0 answered on its
    rendezvous port; ``foreign``: something else answered there; ``rendezvous``: why this
    node did not reach that port (None: it did)."""
    own = summarize(
        res, place.node, doctor.assess(res)[1], version=__version__, rendezvous=rendezvous
    )
    rep = compare.compare(
        [own],
        expected=place.nnodes,
        master=place.master,
        profile=res.profile.name,
        absent=[report.Absent(0, place.master_addr, why)],
        seen=compare.Seen(
            unreached={place.node: unreached} if unreached else None,
            foreign=(0,) if foreign else (),
        ),
        comm_note="not run: node 0 is not reachable",
        channel_port=place.channel_port,
        command=place.command,
    )
    with contextlib.suppress(OSError):
        out.write(report.render_json(rep) if as_json else report.render_text(rep))
    return 2
