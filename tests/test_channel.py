"""The nodes' channel: signed frames (pure), then real sockets on OS-assigned ports, with
strangers, forgers, replayers and oversized frames knocking on the hub's port."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from launchx import channel
from launchx.channel import Frame, Hub, Link, decode, derive_key, encode

RUN = "lx-test-run"
KEY = derive_key(RUN, "s3cret")


def poll(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    """True as soon as ``predicate`` holds; False after ``timeout`` s (never a fixed sleep)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


# --------------------------------------------------------------------------- frames (pure)


def frame(**over: object) -> bytes:
    fields: dict[str, object] = {"run": RUN, "node": 1, "seq": 1, "type": "facts", "body": {"a": 1}}
    fields.update(over)
    return encode(KEY, **fields).rstrip(b"\n")  # type: ignore[arg-type]


def test_a_frame_round_trips() -> None:
    got = decode(frame(), KEY, RUN)
    assert got == Frame(node=1, seq=1, type="facts", body={"a": 1})


def test_the_line_is_one_json_object_with_the_documented_fields() -> None:
    data = json.loads(frame())
    assert set(data) == {"v", "run", "node", "seq", "type", "body", "mac"}
    assert data["v"] == 1 and len(data["mac"]) == 64


def _tampered(change: Callable[[dict[str, object]], None]) -> bytes:
    data = json.loads(frame())
    change(data)
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"not json", "json"),
        (b"[1, 2]", "json"),
        (b"\xff\xfe", "json"),
        (_tampered(lambda d: d.update(v=2)), "version"),
        (_tampered(lambda d: d.update(run="other")), "run"),
        (_tampered(lambda d: d.update(extra=1)), "fields"),
        (_tampered(lambda d: d.update(node="1")), "fields"),
        (_tampered(lambda d: d.update(seq=True)), "fields"),
        (_tampered(lambda d: d.update(body=[1])), "fields"),
        (_tampered(lambda d: d.pop("mac")), "fields"),
        (_tampered(lambda d: d.update(body={"a": 2})), "mac"),
        (_tampered(lambda d: d.update(node=2)), "mac"),
        (_tampered(lambda d: d.update(type="verdict")), "mac"),
        (encode(derive_key(RUN, "guess"), run=RUN, node=1, seq=1, type="x", body={}), "mac"),
        (encode(derive_key(RUN), run=RUN, node=1, seq=1, type="x", body={}), "mac"),
    ],
)
def test_every_bad_frame_is_rejected_with_its_reason(line: bytes, reason: str) -> None:
    assert decode(line, KEY, RUN) == reason


def test_the_key_depends_on_run_and_token() -> None:
    keys = {derive_key("a"), derive_key("b"), derive_key("a", "t"), derive_key("a", "u")}
    assert len(keys) == 4
    assert derive_key("a", "") == derive_key("a", None)
    # The parts are length-prefixed: moving a character between them changes the key.
    assert derive_key("ab", "c") != derive_key("a", "bc")


def test_a_body_that_is_not_json_is_the_callers_bug() -> None:
    with pytest.raises(TypeError):
        encode(KEY, run=RUN, node=0, seq=1, type="x", body={"x": object()})


# --------------------------------------------------------------------------- real sockets


@pytest.fixture
def hub() -> Iterator[Hub]:
    with Hub(0, RUN, KEY, nnodes=4, host="127.0.0.1", hello_timeout_s=0.5) as h:
        yield h


def link(hub: Hub, node: int = 1, key: bytes = KEY, run: str = RUN) -> Link:
    return Link("127.0.0.1", hub.port, run, key, node, host=f"host-{node}")


def wait_for(hub: Hub, kind: str, timeout: float = 10.0) -> list[channel.Message]:
    got: list[channel.Message] = []
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got += hub.messages(0.05)
        if any(m.type == kind for m in got):
            return got
    return got


def test_links_join_say_hello_and_exchange_messages(hub: Hub) -> None:
    a, b = link(hub, 1), link(hub, 3)
    try:
        assert a.connect(time.monotonic() + 10) and b.connect(time.monotonic() + 10)
        assert poll(lambda: hub.joined() == {1, 3})
        hellos = [m for m in wait_for(hub, "hello") if m.type == "hello"]
        hellos += [m for m in hub.messages(0.2) if m.type == "hello"]
        assert {(m.node, m.body["host"]) for m in hellos} == {(1, "host-1"), (3, "host-3")}
        assert a.send("facts", {"gpus": 8})
        got = [m for m in wait_for(hub, "facts") if m.type == "facts"]
        assert [(m.node, m.body) for m in got] == [(1, {"gpus": 8})]
        assert got[0].received > 0 and got[0].peer == "127.0.0.1"
        assert hub.send(3, "only-3", {"x": 1})
        assert hub.broadcast("verdict", {"exit_code": 0}) == {1, 3}
        assert not hub.send(2, "nobody", {})  # node 2 never joined
        msgs_a, msgs_b = _drain(a, 1), _drain(b, 2)
        assert [(m.type, m.body) for m in msgs_a] == [("verdict", {"exit_code": 0})]
        assert [m.type for m in msgs_b] == ["only-3", "verdict"]
        assert [m.seq for m in msgs_b] == [2, 3]  # after the welcome (1), per connection
        assert hub.rejected() == {}
    finally:
        a.close()
        b.close()


def _drain(lk: Link, count: int, timeout: float = 10.0) -> list[channel.Message]:
    got: list[channel.Message] = []
    end = time.monotonic() + timeout
    while len(got) < count and time.monotonic() < end:
        got += lk.receive(0.05)
    return got


def test_the_hub_reports_a_link_that_left(hub: Hub) -> None:
    a = link(hub)
    assert a.connect(time.monotonic() + 10)
    assert poll(lambda: hub.joined() == {1})
    a.close()
    assert any(m.type == "left" and m.node == 1 for m in wait_for(hub, "left"))
    assert hub.joined() == set()


def test_a_link_sees_the_hub_go_away() -> None:
    h = Hub(0, RUN, KEY, nnodes=2, host="127.0.0.1")
    a = Link("127.0.0.1", h.port, RUN, KEY, 1)
    try:
        assert a.connect(time.monotonic() + 10)
        assert poll(lambda: h.joined() == {1})
        h.broadcast("verdict", {"exit_code": 2})
        h.close(linger_s=0.2)
        assert poll(lambda: not a.connected)
        assert [m.type for m in a.receive(0.1)] == ["verdict"]  # sent before closing: kept
        assert a.last_error == "node 0 closed the channel"
    finally:
        a.close()
        h.close()


def test_a_reconnecting_node_replaces_its_old_connection(hub: Hub) -> None:
    first, second = link(hub), link(hub)
    try:
        assert first.connect(time.monotonic() + 10)
        assert second.connect(time.monotonic() + 10)
        assert poll(lambda: not first.connected)
        assert hub.joined() == {1}
        assert hub.send(1, "ping", {})
        assert [m.type for m in _drain(second, 1)] == ["ping"]
    finally:
        first.close()
        second.close()


def test_sends_from_many_threads_all_arrive_in_order(hub: Hub) -> None:
    a = link(hub)
    assert a.connect(time.monotonic() + 10)
    try:
        threads = [
            threading.Thread(target=lambda i=i: [a.send("n", {"i": i, "k": k}) for k in range(50)])
            for i in range(8)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        got: list[channel.Message] = []
        assert poll(
            lambda: got.extend(hub.messages(0.01)) or len([m for m in got if m.type == "n"]) == 400
        )
        seqs = [m.seq for m in got if m.type == "n"]
        assert seqs == sorted(seqs) and len(set(seqs)) == 400
        assert hub.rejected() == {}
    finally:
        a.close()


def test_connect_gives_up_at_its_deadline_on_an_injected_clock() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    now = [100.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    lk = Link("127.0.0.1", port, RUN, KEY, 1, monotonic=lambda: now[0], sleep=sleep)
    assert lk.connect(deadline=101.0) is False
    # it retried, on the injected clock only: pauses are 0.1-0.3 s with jitter, so a second
    # takes at least four of them (five on average; asking for five failed one run in 24)
    assert now[0] >= 101.0 and len(slept) >= 4
    assert lk.last_error and "refused" in lk.last_error.lower()


# --------------------------------------------------------------------------- hostile peers


def raw(hub: Hub) -> tuple[socket.socket, dict[str, object]]:
    """A stranger's connection: it gets the challenge like anyone."""
    sock = socket.create_connection(("127.0.0.1", hub.port), timeout=5)
    data = b""
    while not data.endswith(b"\n"):
        data += sock.recv(4096)
    return sock, json.loads(data)


def closed_by_peer(sock: socket.socket, timeout: float = 10.0) -> bool:
    sock.settimeout(timeout)
    try:
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return True
    except TimeoutError:
        return False
    except OSError:
        return True


def handshake(
    hub: Hub, node: int = 1, key: bytes = KEY
) -> tuple[socket.socket, bytes, dict[str, object]]:
    """A client that knows the key, speaking the protocol by hand (to misbehave later)."""
    sock, challenge = raw(hub)
    nonce = challenge["body"]["nonce"]  # type: ignore[index]
    link_nonce = os.urandom(16).hex()
    hello = encode(
        key,
        run=RUN,
        node=node,
        seq=0,
        type="hello",
        body={"nonce": nonce, "link_nonce": link_nonce, "host": "h"},
    )
    sock.sendall(hello)
    return sock, channel._session_key(KEY, str(nonce), link_nonce), json.loads(hello)


def test_garbage_is_dropped_and_the_run_goes_on(hub: Hub) -> None:
    sock, challenge = raw(hub)
    assert challenge["type"] == "challenge"
    sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert closed_by_peer(sock)
    a = link(hub)
    try:
        assert a.connect(time.monotonic() + 10)
        assert a.send("facts", {"ok": True})
        got = wait_for(hub, "facts")
        assert [m.type for m in got if m.type != "hello"] == ["facts"]
        assert hub.rejected() == {"json": 1}
        assert hub.rejected_peers() == {"127.0.0.1": "json"}
    finally:
        a.close()
        sock.close()


def test_a_silent_connection_is_closed_after_the_hello_timeout(hub: Hub) -> None:
    sock, _ = raw(hub)
    assert closed_by_peer(sock)
    assert hub.rejected() == {"no hello": 1}
    sock.close()


def test_a_connection_dripping_bytes_is_closed_at_the_hello_timeout(hub: Hub) -> None:
    """One byte now and then, never a whole line: without a deadline for the whole line
    such a peer held its slot forever, and MAX_PENDING of them shut every node out."""
    sock, _ = raw(hub)
    stop = threading.Event()

    def drip() -> None:
        while not stop.wait(0.1):
            try:
                sock.send(b"x")
            except OSError:
                return

    dripper = threading.Thread(target=drip, daemon=True)
    dripper.start()
    try:
        assert closed_by_peer(sock)
    finally:
        stop.set()
        dripper.join(5)
        sock.close()
    assert hub.rejected() == {"no hello": 1}


def test_a_line_nested_too_deep_for_json_is_just_bad_json(hub: Hub) -> None:
    deep = b"[" * 100_000
    assert decode(deep, KEY, RUN) == "json"
    sock, _ = raw(hub)
    sock.sendall(deep + b"\n")
    assert closed_by_peer(sock)
    sock.close()
    assert hub.rejected() == {"json": 1}
    with link(hub) as good:  # and the hub still takes its nodes
        assert good.connect(time.monotonic() + 10)


def test_a_forged_hello_is_refused(hub: Hub) -> None:
    sock, _session, _ = handshake(hub, key=derive_key(RUN, "wrong token"))
    assert closed_by_peer(sock)
    assert hub.rejected() == {"mac": 1} and hub.joined() == set()


def test_another_runs_node_is_refused_and_its_run_id_noted(hub: Hub) -> None:
    other = Link("127.0.0.1", hub.port, "lx-other", derive_key("lx-other", "s3cret"), 1)
    assert other.connect(time.monotonic() + 1.0) is False
    assert other.last_error and "not this run's node 0" in other.last_error
    assert hub.joined() == set()
    # The hub's challenge names its run, so the stranger gave up before sending anything.
    sock, _challenge = raw(hub)
    sock.sendall(encode(KEY, run="lx-other", node=1, seq=0, type="hello", body={}))
    assert closed_by_peer(sock)
    assert hub.rejected()["run"] == 1 and hub.foreign_runs == {"lx-other"}


@pytest.mark.parametrize("node", [0, 4, -1])
def test_a_hello_with_an_impossible_node_rank_is_refused(hub: Hub, node: int) -> None:
    sock, _, _ = handshake(hub, node=node)
    assert closed_by_peer(sock)
    assert hub.rejected() == {"hello": 1}


def test_a_recorded_hello_cannot_be_replayed_on_a_new_connection(hub: Hub) -> None:
    sock, _session, hello = handshake(hub)
    assert poll(lambda: hub.joined() == {1})
    sock.close()
    replay, _ = raw(hub)
    replay.sendall(json.dumps(hello).encode() + b"\n")  # the old nonce
    assert closed_by_peer(replay)
    assert hub.rejected() == {"hello": 1}


def test_replayed_spoofed_and_reserved_frames_are_dropped(hub: Hub) -> None:
    sock, session, _ = handshake(hub)
    assert poll(lambda: hub.joined() == {1})

    def send(seq: int, kind: str = "n", node: int = 1, key: bytes = session) -> None:
        sock.sendall(encode(key, run=RUN, node=node, seq=seq, type=kind, body={"seq": seq}))

    send(1)
    send(1)  # replayed
    send(2, node=2)  # pretends to be node 2
    send(3, key=KEY)  # signed with the run key, not this connection's
    send(4, kind="left")  # only the hub makes "left"
    send(5)
    got: list[channel.Message] = []
    assert poll(lambda: got.extend(hub.messages(0.01)) or any(m.seq == 5 for m in got))
    assert [m.seq for m in got if m.type == "n"] == [1, 5]
    assert hub.rejected() == {"replay": 1, "sender": 1, "mac": 1, "type": 1}
    assert hub.joined() == {1}  # dropping frames does not drop the node
    sock.close()


def test_an_oversized_frame_is_skipped_and_the_next_one_read() -> None:
    with Hub(0, RUN, KEY, nnodes=2, host="127.0.0.1", max_frame=2048) as h:
        sock, session, _ = handshake(h)
        assert poll(lambda: h.joined() == {1})
        big = encode(session, run=RUN, node=1, seq=1, type="n", body={"x": "y" * 10000})
        sock.sendall(big[:5000])
        sock.sendall(big[5000:])
        sock.sendall(encode(session, run=RUN, node=1, seq=2, type="n", body={"x": "small"}))
        got: list[channel.Message] = []
        assert poll(lambda: got.extend(h.messages(0.01)) or any(m.type == "n" for m in got))
        assert [m.body for m in got if m.type == "n"] == [{"x": "small"}]
        assert h.rejected() == {"size": 1}
        sock.close()


def test_an_oversized_first_line_closes_the_connection() -> None:
    with Hub(0, RUN, KEY, nnodes=2, host="127.0.0.1", max_frame=1024) as h:
        sock, _ = raw(h)
        sock.sendall(b"x" * 5000 + b"\n")
        assert closed_by_peer(sock)
        assert h.rejected() == {"size": 1}
        sock.close()


def test_a_crowd_of_strangers_cannot_hold_more_than_max_pending() -> None:
    with Hub(0, RUN, KEY, nnodes=2, host="127.0.0.1", max_pending=2, hello_timeout_s=5) as h:
        first, _ = raw(h)
        second, _ = raw(h)
        third = socket.create_connection(("127.0.0.1", h.port), timeout=5)
        assert closed_by_peer(third)
        assert h.rejected() == {"crowded": 1}
        for s in (first, second, third):
            s.close()
        # Once they are gone, a real node gets in.
        lk = Link("127.0.0.1", h.port, RUN, KEY, 1)
        try:
            assert lk.connect(time.monotonic() + 10)
        finally:
            lk.close()


def test_a_link_refuses_a_hub_that_cannot_sign() -> None:
    """An impostor on the port (another user's process) cannot pose as node 0."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        port = server.getsockname()[1]
        fake = encode(
            derive_key(RUN), run=RUN, node=0, seq=0, type="challenge", body={"nonce": "ab" * 16}
        )

        def serve() -> None:
            for _ in range(2):
                try:
                    conn, _addr = server.accept()
                except OSError:
                    return
                conn.sendall(fake)
                conn.close()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        lk = Link("127.0.0.1", port, RUN, KEY, 1)
        assert lk.connect(time.monotonic() + 0.6) is False
        assert lk.last_error and "not this run's node 0" in lk.last_error


def test_a_connection_to_itself_is_dropped_and_reported_as_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Linux connects a socket to itself when it is given, as its own port, the unheard
    port it dials on this host (TCP's simultaneous open): the node that meant to listen
    there then cannot. open_connection closes such a socket at once, so the port is free."""
    mine = socket.socket()
    mine.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    mine.bind(("127.0.0.1", 0))
    port = int(mine.getsockname()[1])
    mine.connect(("127.0.0.1", port))  # a real self-connection, as the kernel may make one
    assert mine.getsockname() == mine.getpeername()
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: mine)
    with pytest.raises(ConnectionRefusedError):
        channel.open_connection("127.0.0.1", port, 1.0)
    assert mine.fileno() == -1  # closed
    monkeypatch.undo()
    with socket.socket() as listener:  # the port is the listener's to take again
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(1)
        with channel.open_connection("127.0.0.1", port, 1.0) as sock:
            assert sock.getpeername() == ("127.0.0.1", port)
