"""``auto`` values: what a profile's ``auto`` becomes on this host, and why.

Pure functions over ``HostFacts``. Each returns the value together with its ``Origin``
(``auto:/sys/class/infiniband``...) so ``explain`` can say where it came from; ``None``
means "cannot decide here" and leaves the variable to its own default.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from collections.abc import Iterable
from typing import Literal

from launchx.errors import ConfigError
from launchx.facts import HostFacts, IbPort, Interface
from launchx.origin import GIVEN, Origin

LinkLayer = Literal["InfiniBand", "Ethernet"]

# CPU ranks beyond this rarely speed up gloo training on one host, while each rank costs an
# interpreter with torch loaded (hundreds of MB); ``cpu``/``auto`` stop here.
CPU_RANKS_CAP = 8
# The defaults of torchrun (29500) and its c10d rendezvous (29400): another job on the host
# is most likely to hold exactly these, so derived and picked ports never use them.
DEFAULT_PORTS = frozenset({29500, 29400})
# Ports below this are full of well-known services (databases, web servers, notebooks).
PORT_FLOOR = 10000
# Interfaces that reach only this host or its containers: chosen only when nothing else does.
_LAST_RESORT = re.compile(r"^(lo|docker|virbr)")


def _natural(name: str) -> tuple[object, ...]:
    """Sort ``mlx5_2`` before ``mlx5_10``."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"([0-9]+)", name))


def _candidate_ports(facts: HostFacts) -> list[IbPort]:
    # NCCL keeps ACTIVE ports whose link layer is InfiniBand or Ethernet (host-facts.md §1.3).
    ports = [p for p in facts.ib_ports if p.active and p.link_layer in ("InfiniBand", "Ethernet")]
    return sorted(ports, key=lambda p: (_natural(p.device), p.port))


def _chosen_layer(ports: Iterable[IbPort], link_layer: LinkLayer | None) -> str | None:
    layers = {p.link_layer for p in ports}
    if link_layer is not None:
        return link_layer if link_layer in layers else None
    if "InfiniBand" in layers:
        return "InfiniBand"  # IB compute HCAs plus a RoCE front-end: the IB set is the fabric
    return "Ethernet" if layers else None


def auto_ib_hca(facts: HostFacts, link_layer: LinkLayer | None = None) -> tuple[str, Origin] | None:
    """``NCCL_IB_HCA`` for the active RDMA ports, e.g. ``("=mlx5_0:1,mlx5_1:1", source)``.

    The leading ``=`` makes NCCL match names exactly: without it every entry is a prefix and
    ``mlx5_1`` would also select ``mlx5_10``..``mlx5_19``. Ports are named too so a down
    second port of a dual-port card stays out. One link layer only: mixing them makes NCCL's
    NIC merging fail (host-facts.md §1.3); with both present, InfiniBand wins unless
    ``link_layer`` asks otherwise — ``ib_hca_left_out`` lists what was dropped for a finding.
    None when no port qualifies: NCCL then uses sockets and the variable stays unset.
    """
    ports = _candidate_ports(facts)
    layer = _chosen_layer(ports, link_layer)
    chosen = [p for p in ports if p.link_layer == layer]
    if not chosen:
        return None
    return "=" + ",".join(f"{p.device}:{p.port}" for p in chosen), Origin.auto(
        "/sys/class/infiniband"
    )


def ib_hca_left_out(facts: HostFacts, link_layer: LinkLayer | None = None) -> tuple[IbPort, ...]:
    """Active ports ``auto_ib_hca`` did not choose because of their link layer."""
    ports = _candidate_ports(facts)
    layer = _chosen_layer(ports, link_layer)
    return tuple(p for p in ports if p.link_layer != layer)


def _is_last_resort(name: str, facts: HostFacts) -> bool:
    kinds = {i.name: i.kind for i in facts.interfaces}
    return bool(_LAST_RESORT.match(name)) or kinds.get(name) == "loopback"


def route_interface(facts: HostFacts, ip: str) -> str | None:
    """The interface of the longest-prefix route to ``ip`` (IPv4), lowest metric on a tie.

    Routes through loopback, ``docker*`` or ``virbr*`` count only when no other route
    matches: traffic to another node never leaves through them, and a default route via a
    real interface is the better guess. Sees the main table only (no policy routing).
    """
    try:
        address = ipaddress.IPv4Address(ip)
    except ValueError:
        return None
    preferred: tuple[int, int, int, str] | None = None
    fallback: tuple[int, int, int, str] | None = None
    for order, route in enumerate(facts.routes):
        try:
            net = ipaddress.IPv4Network(f"{route.destination}/{route.mask}", strict=False)
        except ValueError:
            continue
        if address not in net:
            continue
        key = (-net.prefixlen, route.metric, order, route.iface)
        if _is_last_resort(route.iface, facts):
            fallback = min(fallback, key) if fallback else key
        else:
            preferred = min(preferred, key) if preferred else key
    best = preferred or fallback
    return best[3] if best else None


def resolve_address(facts: HostFacts, master_addr: str) -> ipaddress.IPv4Address | None:
    name = master_addr.strip().strip("[]")
    if name == "localhost":
        return ipaddress.IPv4Address("127.0.0.1")
    try:
        return ipaddress.IPv4Address(name)
    except ValueError:
        pass
    try:
        return ipaddress.IPv4Address(facts.host_ips.get(name, ""))
    except ValueError:
        return None


def _loopback(facts: HostFacts) -> Interface | None:
    return next((i for i in facts.interfaces if i.kind == "loopback"), None)


def auto_socket_ifname(facts: HostFacts, master_addr: str) -> tuple[str, Origin] | None:
    """The interface that reaches ``MASTER_ADDR`` — for NCCL/GLOO_SOCKET_IFNAME.

    Returns the bare name (``eth0``): Gloo wants it as is, NCCL wants ``=eth0`` (exact
    match) — the caller adds the ``=``. In order:

    * a loopback master (127.x, ``localhost``) → the loopback interface: every rank is on
      this host and loopback is the only interface that reaches it (it also works with the
      network down). Valid for one node only; the planner rejects it for several nodes;
    * the master is one of this host's addresses → the interface that holds it (this node
      is the master; a route lookup would only say ``lo``);
    * otherwise the longest-prefix route (``route_interface``).

    None when the name was not resolved (``host_ips``) or nothing routes to it.
    """
    address = resolve_address(facts, master_addr)
    if address is None:
        return None
    if address.is_loopback:
        lo = _loopback(facts)
        return (lo.name, Origin.auto("loopback MASTER_ADDR")) if lo else None
    for interface in facts.interfaces:
        if str(address) in interface.addresses and interface.kind != "loopback":
            return interface.name, Origin.auto("interface address")
    name = route_interface(facts, str(address))
    return (name, Origin.auto("/proc/net/route")) if name else None


def auto_nproc(facts: HostFacts, spec: int | str) -> tuple[int, Origin]:
    """Processes per node for ``--nproc-per-node`` (an int, ``gpu``, ``cpu`` or ``auto``).

    ``gpu`` is the visible GPU count (an error without one). ``cpu`` is the usable CPUs
    capped at ``CPU_RANKS_CAP``, unlike torchrun's every-CPU count. ``auto`` is the GPUs when
    there are any, else the ``cpu`` rule — so the local demo runs 2 ranks on a 2-core box.
    """
    if isinstance(spec, int) or spec.strip().isdigit():
        count = int(spec)
        if count < 1:
            raise ConfigError(
                f"nproc_per_node must be at least 1, got {spec!r}",
                "give a positive number, or gpu, cpu or auto",
            )
        return count, GIVEN
    word = spec.strip().lower()
    gpus = facts.gpu_count or 0
    if word == "gpu" or (word == "auto" and gpus > 0):
        if gpus < 1:
            raise ConfigError(
                "nproc_per_node is 'gpu' but no GPU is visible"
                + (
                    f" (CUDA_VISIBLE_DEVICES={','.join(facts.gpu_visible)!r})"
                    if facts.gpu_visible is not None
                    else ""
                ),
                "run it on a node with GPUs (this one sees none: a login node?), or use "
                "-p local for CPU ranks (gloo) on this host",
            )
        source = (
            Origin.auto("CUDA_VISIBLE_DEVICES")
            if facts.gpu_visible is not None
            else Origin.auto("/proc/driver/nvidia")
        )
        return gpus, source
    if word in ("cpu", "auto"):
        return max(1, min(facts.cpu_count, CPU_RANKS_CAP)), Origin.auto("cpu-count")
    raise ConfigError(
        f"nproc_per_node {spec!r} is not a number, gpu, cpu or auto",
        "use a positive number, gpu, cpu or auto",
    )


def auto_omp_threads(facts: HostFacts, nproc: int) -> tuple[str, Origin]:
    """``OMP_NUM_THREADS`` that shares the usable CPUs among the ranks of this node.

    torchrun would set 1 for every rank, which starves CPU-side work on big hosts; more than
    the share oversubscribes the cores.
    """
    if nproc < 1:
        raise ConfigError(f"nproc_per_node must be at least 1, got {nproc}")
    return str(max(1, facts.cpu_count // nproc)), Origin.auto("cpus/nproc")


def port_pool(ephemeral: tuple[int, int]) -> list[tuple[int, int]]:
    """Inclusive port ranges a launcher may pick from: outside the ephemeral range.

    A port inside the range can be taken at any moment as the local end of an outgoing
    connection, making the store's bind fail with EADDRINUSE (host-facts.md §9.1).
    Starts at ``PORT_FLOOR`` unless that leaves fewer than 1000 ports, then at 1024.
    """
    lo, hi = min(ephemeral), max(ephemeral)
    for floor in (PORT_FLOOR, 1024):
        ranges = [(floor, min(lo - 1, 65535)), (max(hi + 1, floor), 65535)]
        ranges = [(a, b) for a, b in ranges if a <= b]
        if sum(b - a + 1 for a, b in ranges) >= 1000:
            return ranges
    return ranges


def pool_port(ranges: list[tuple[int, int]], index: int) -> int:
    """The ``index``-th port of ``ranges`` (modulo its size)."""
    total = sum(b - a + 1 for a, b in ranges)
    index %= total
    for a, b in ranges:
        if index <= b - a:
            return a + index
        index -= b - a + 1
    raise AssertionError("unreachable")  # pragma: no cover


def derived_master_port(job_id: str, ephemeral: tuple[int, int]) -> int:
    """A ``MASTER_PORT`` every node of a SLURM job computes alike from the job id.

    Deterministic (sha256, not Python's salted ``hash``), outside the ephemeral range, ≥ 1024
    and never the torchrun defaults — two jobs sharing a node get different ports unless
    their ids collide in the pool (about 1 in 27 000 with the default range).
    """
    ranges = port_pool(ephemeral)
    if not ranges:
        raise ConfigError(
            f"no port is left outside the ephemeral range {ephemeral[0]}-{ephemeral[1]}",
            "set MASTER_PORT, or reserve one with net.ipv4.ip_local_reserved_ports",
        )
    digest = int.from_bytes(hashlib.sha256(job_id.encode()).digest()[:8], "big")
    total = sum(b - a + 1 for a, b in ranges)
    for step in range(total):
        port = pool_port(ranges, digest + step)
        if port not in DEFAULT_PORTS:
            return port
    raise ConfigError("no usable port outside the ephemeral range")  # pragma: no cover
