"""Port checks with real sockets: is a port free, pick a free one, who holds one.

Impure on purpose (sockets, /proc); the pure port arithmetic lives in ``autovalues``.
"""

from __future__ import annotations

import errno
import random
import socket
from collections.abc import Collection

from launchx.autovalues import DEFAULT_PORTS, pool_port, port_pool
from launchx.detect import port_holder
from launchx.errors import LaunchRefused

__all__ = ["is_free", "pick_free_port", "port_holder"]

_ATTEMPTS = 200


def _bind_listen(family: socket.AddressFamily, host: str, port: int) -> None:
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        # The same options as c10d's TCPStore server: SO_REUSEADDR (so TIME_WAIT leftovers
        # don't block) and, for [::], dual-stack (so an IPv4 listener blocks it too).
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind((host, port))
        sock.listen(1)


def is_free(port: int, host: str = "") -> bool:
    """Whether a TCPStore could bind and listen on ``port`` right now.

    With ``host`` empty this binds ``[::]`` dual-stack like TCPStore does (host-facts.md
    §9.2), falling back to ``0.0.0.0`` where IPv6 is disabled. Only as true as the moment
    it was asked: another process may take the port before the store binds it.
    """
    attempts: list[tuple[socket.AddressFamily, str]]
    if host:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        attempts = [(family, host.strip("[]"))]
    else:
        attempts = [(socket.AF_INET6, "::"), (socket.AF_INET, "0.0.0.0")]
    for family, address in attempts:
        try:
            _bind_listen(family, address, port)
            return True
        except OSError as error:
            no_ipv6 = error.errno in (errno.EAFNOSUPPORT, errno.EADDRNOTAVAIL)
            if no_ipv6 and family == socket.AF_INET6 and not host:
                continue  # IPv6 disabled here: ask IPv4 instead
            return False
    return False


def pick_free_port(
    ephemeral: tuple[int, int],
    avoid: Collection[int] = (),
    rng: random.Random | None = None,
) -> int:
    """A random free port outside the ephemeral range, ``avoid`` and the torchrun defaults.

    Random rather than "first free from the bottom" so that two launchers picking at the
    same moment almost surely differ (~1 in 27 000 with the default range); ``rng`` is for
    tests. Raises ``LaunchRefused`` when ``_ATTEMPTS`` tries found nothing.
    """
    chooser = rng if rng is not None else random.SystemRandom()
    ranges = port_pool(ephemeral)
    if ranges:
        total = sum(b - a + 1 for a, b in ranges)
        for _ in range(_ATTEMPTS):
            port = pool_port(ranges, chooser.randrange(total))
            if port in avoid or port in DEFAULT_PORTS:
                continue
            if is_free(port):
                return port
    raise LaunchRefused(
        f"found no free port outside the ephemeral range {ephemeral[0]}-{ephemeral[1]}",
        "set MASTER_PORT to a free port, or reserve one with net.ipv4.ip_local_reserved_ports",
    )
