"""Ports with real sockets: free or not, picking one, who holds one."""

from __future__ import annotations

import os
import random
import socket
from collections.abc import Iterator

import pytest

from launchx.autovalues import port_pool
from launchx.detect import gather
from launchx.errors import LaunchRefused
from launchx.ports import is_free, pick_free_port, port_holder


@pytest.fixture
def listener() -> Iterator[int]:
    """A real IPv4 listener on a port the OS chose."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("0.0.0.0", 0))
        server.listen(1)
        yield server.getsockname()[1]


def test_is_free_sees_a_listener_and_its_release() -> None:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("0.0.0.0", 0))
    server.listen(1)
    port = server.getsockname()[1]
    try:
        assert not is_free(port)  # dual-stack [::] bind collides with 0.0.0.0
        assert not is_free(port, "0.0.0.0")
    finally:
        server.close()
    assert is_free(port)


def test_is_free_for_an_unused_port() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert is_free(port, "127.0.0.1")


class _Scripted(random.Random):
    """Returns the given indexes first, so a test decides which ports are tried."""

    def __init__(self, indexes: list[int]) -> None:
        super().__init__(0)
        self.indexes = indexes

    def randrange(self, *args: int, **kwargs: int) -> int:  # type: ignore[override]
        return self.indexes.pop(0) if self.indexes else super().randrange(*args, **kwargs)


def test_pick_free_port_skips_avoided_held_and_default_ports(listener: int) -> None:
    ephemeral = (listener + 1, 65535)  # the pool below the range ends at the held port
    [(start, end)] = port_pool(ephemeral)
    assert start <= 20000 and end == listener
    # try, in this order: the held port, an avoided one, torchrun's default, then 12345
    rng = _Scripted([p - start for p in (listener, 20000, 29500, 12345)])
    assert pick_free_port(ephemeral, avoid={20000}, rng=rng) == 12345 or not is_free(12345)
    assert not rng.indexes


def test_pick_free_port_stays_outside_the_ephemeral_range() -> None:
    rng = random.Random(7)
    for _ in range(20):
        port = pick_free_port((32768, 60999), avoid={10000}, rng=rng)
        assert 10000 < port < 32768 or 60999 < port <= 65535
        assert port not in (29500, 29400)


def test_two_pickers_almost_surely_differ() -> None:
    picks = {pick_free_port((32768, 60999)) for _ in range(5)}
    assert len(picks) >= 4


def test_pick_free_port_refuses_when_nothing_is_left() -> None:
    with pytest.raises(LaunchRefused) as raised:
        pick_free_port((1024, 65535))
    assert "MASTER_PORT" in (raised.value.hint or "")


def test_port_holder_names_this_process(listener: int) -> None:
    holder = port_holder(listener)
    assert holder.pid == os.getpid()
    assert holder.cmdline and "pytest" in holder.cmdline
    assert str(os.getpid()) in holder.describe()


def test_port_holder_of_a_port_nobody_listens_on() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))  # bound, never listening
        port = probe.getsockname()[1]
        assert port_holder(port).pid is None
        assert port not in gather({}).listening


def test_gather_attributes_requested_ports(listener: int) -> None:
    facts = gather({}, attribute_ports=[listener])
    assert facts.listening[listener].pid == os.getpid()
    assert gather({}).listening[listener].pid is None
