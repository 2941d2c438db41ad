"""Detection: the only code that reads the host (environment, /sys, /proc, sockets).

Everything is read under a ``root`` directory so tests point ``gather`` at a recorded tree
(``tests/hosts/<archetype>``); only a few live-only facts (CPU affinity, IPv4 addresses
by ioctl, ``/dev/shm`` statvfs, name lookups, the hostname) differ for the real root, and
recorded trees replace them with sidecar files (``_errors.json``, ``statvfs.json``,
``resolve.json``, ``addrs.json``) as described in host-facts.md §11.1.

A missing or unreadable file means "unknown" or "none", never an exception: detection
feeds ``doctor`` and ``explain``, which must work on broken hosts most of all.

File formats and the rules that mirror NCCL, libibverbs and CUDA are in
``reference/host-facts.md``; the section is named next to each reader.
"""

from __future__ import annotations

import contextlib
import dataclasses
import ipaddress
import json
import math
import os
import re
import socket
import struct
import sys
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence

from launchx.errors import ConfigError
from launchx.facts import (
    MEMLOCK_UNLIMITED,
    HostFacts,
    IbPort,
    Interface,
    LaunchContext,
    LaunchKind,
    PortHolder,
    Route,
    SlurmFacts,
    TargetFacts,
)
from launchx.hostlist import expand, expand_counts

__all__ = [
    "classify_launch",
    "gather",
    "lookup_hosts",
    "parse_cuda_visible_devices",
    "parse_slurm",
    "port_holder",
    "visible_gpu_count",
]

# Ports whose holder ``gather`` names eagerly when they are listening (see ``gather``).
_DEFAULT_PORTS = (29500, 29400)


class _Tree:
    """Reads files under ``root``; every read failure becomes ``None`` / empty.

    For recorded trees, ``_errors.json`` (path → errno name) makes a file that exists fail
    on read, the way ``carrier`` of a down interface fails with EINVAL (host-facts.md §0).
    """

    def __init__(self, root: str) -> None:
        self.root = os.path.abspath(root)
        self.live = self.root == "/"
        self.failing: dict[str, str] = {}
        if not self.live:
            loaded = self.sidecar("_errors.json")
            if isinstance(loaded, dict):
                self.failing = {str(k).strip("/"): str(v) for k, v in loaded.items()}

    def path(self, rel: str) -> str:
        return os.path.join(self.root, rel.lstrip("/"))

    def read(self, rel: str) -> str | None:
        if rel.strip("/") in self.failing:
            return None
        try:
            with open(self.path(rel), "rb") as handle:
                return handle.read().decode("ascii", "replace")
        except OSError:
            return None

    def line(self, rel: str) -> str | None:
        text = self.read(rel)
        return None if text is None else text.strip()

    def listdir(self, rel: str) -> list[str]:
        try:
            return sorted(os.listdir(self.path(rel)))
        except OSError:
            return []

    def exists(self, rel: str) -> bool:
        return os.path.lexists(self.path(rel))

    def isdir(self, rel: str) -> bool:
        return os.path.isdir(self.path(rel))

    def readlink(self, rel: str) -> str | None:
        try:
            return os.readlink(self.path(rel))
        except OSError:
            return None

    def sidecar(self, name: str) -> object:
        """A recorded tree's JSON sidecar (never consulted for the real root)."""
        if self.live:
            return None
        text = self.read(name)
        if text is None:
            return None
        try:
            return json.loads(text)
        except ValueError:
            return None


def _int(text: str | None, base: int = 10) -> int | None:
    if text is None:
        return None
    try:
        return int(text.strip(), base)
    except ValueError:
        return None


def _after_colon(text: str | None) -> str:
    """``4: ACTIVE`` → ``ACTIVE``; ``7: Phy Test`` → ``Phy Test`` (host-facts.md §1.2)."""
    if text is None:
        return "UNKNOWN"
    _, sep, word = text.strip().partition(":")
    return word.strip() if sep else text.strip()


# --- RDMA (host-facts.md §1) -------------------------------------------------------------


def _usable_rdma_devices(tree: _Tree) -> set[str]:
    """Devices libibverbs would list: a uverbs entry and its /dev node (§1.1).

    A device visible in sysfs without ``/dev/infiniband/uverbsN`` (a container without RDMA
    passthrough) is invisible to NCCL, so it is left out of ``ib_ports`` altogether.
    """
    usable: set[str] = set()
    for entry in tree.listdir("sys/class/infiniband_verbs"):
        if not entry.startswith("uverbs"):
            continue
        device = tree.line(f"sys/class/infiniband_verbs/{entry}/ibdev")
        if device and tree.exists(f"dev/infiniband/{entry}"):
            usable.add(device)
    return usable


def _ib_ports(tree: _Tree) -> tuple[IbPort, ...]:
    usable = _usable_rdma_devices(tree)
    ports: list[IbPort] = []
    for device in tree.listdir("sys/class/infiniband"):
        if device not in usable:
            continue
        base = f"sys/class/infiniband/{device}"
        for port in tree.listdir(f"{base}/ports"):
            if not port.isdigit():
                continue
            pbase = f"{base}/ports/{port}"
            link_layer = tree.line(f"{pbase}/link_layer") or "Unknown"
            netdev = None
            if link_layer == "Ethernet":
                netdev = tree.line(f"{pbase}/gid_attrs/ndevs/0")
                if not netdev:
                    netdevs = tree.listdir(f"{base}/device/net")
                    netdev = netdevs[0] if netdevs else None
            ports.append(
                IbPort(
                    device=device,
                    port=int(port),
                    state=_after_colon(tree.read(f"{pbase}/state")),
                    phys_state=_after_colon(tree.read(f"{pbase}/phys_state")),
                    link_layer=link_layer,
                    rate=tree.line(f"{pbase}/rate") or "",
                    netdev=netdev,
                )
            )
    return tuple(ports)


# --- Routes and addresses (host-facts.md §2, §3) -----------------------------------------


def _hex_ipv4(text: str) -> str:
    """``010200C0`` → ``192.0.2.1``: a network-order value printed as a native integer."""
    return str(ipaddress.IPv4Address(struct.pack("=I", int(text, 16))))


def _routes(tree: _Tree) -> tuple[Route, ...]:
    text = tree.read("proc/net/route") or ""
    routes: list[Route] = []
    for row in text.splitlines()[1:]:
        cols = row.split()
        if len(cols) < 8 or cols[0] == "*":
            continue
        try:
            flags = int(cols[3], 16)
            if not flags & 0x1 or flags & 0x200:  # not RTF_UP, or RTF_REJECT
                continue
            routes.append(
                Route(
                    iface=cols[0],
                    destination=_hex_ipv4(cols[1]),
                    gateway=_hex_ipv4(cols[2]),
                    mask=_hex_ipv4(cols[7]),
                    metric=int(cols[6]),
                )
            )
        except ValueError:
            continue
    return tuple(routes)


def _ipv6_addresses(tree: _Tree) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for row in (tree.read("proc/net/if_inet6") or "").splitlines():
        cols = row.split()
        if len(cols) < 6 or len(cols[0]) != 32:
            continue
        try:
            address = ipaddress.IPv6Address(bytes.fromhex(cols[0]))
        except ValueError:
            continue
        out.setdefault(cols[5], []).append(str(address))
    return out


def _fib_trie_locals(tree: _Tree) -> list[str]:
    """Local IPv4 addresses: leaves ``|-- a.b.c.d`` followed by ``/32 host LOCAL`` (§2.2)."""
    found: list[str] = []
    leaf: str | None = None
    for row in (tree.read("proc/net/fib_trie") or "").splitlines():
        text = row.strip()
        if text.startswith("|--"):
            leaf = text[3:].strip()
        elif leaf and text.startswith("/32 host LOCAL") and leaf not in found:
            found.append(leaf)
    return found


def _attribute_by_routes(
    addresses: Sequence[str], routes: Sequence[Route], loopback: str | None
) -> dict[str, list[str]]:
    """Give each local address to the interface whose connected route holds it (§2.2)."""
    out: dict[str, list[str]] = {}
    for text in addresses:
        try:
            address = ipaddress.IPv4Address(text)
        except ValueError:
            continue
        owner: str | None = loopback if address.is_loopback else None
        best = -1
        for route in routes:
            if owner is not None and address.is_loopback:
                break
            if route.gateway != "0.0.0.0" or route.mask == "0.0.0.0":
                continue
            net = ipaddress.IPv4Network(f"{route.destination}/{route.mask}", strict=False)
            if address in net and net.prefixlen > best:
                owner, best = route.iface, net.prefixlen
        if owner is not None:
            out.setdefault(owner, []).append(text)
    return out


def _ipv4_by_ioctl() -> dict[str, list[str]] | None:
    """Primary IPv4 address of every interface via SIOCGIFCONF (live root only)."""
    import array
    import fcntl

    ifreq = 40 if struct.calcsize("P") == 8 else 32
    size = ifreq * 512
    buffer = array.array("B", bytes(size))
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            request = struct.pack("iP", size, buffer.buffer_info()[0])
            length = struct.unpack("iP", fcntl.ioctl(sock.fileno(), 0x8912, request))[0]
    except OSError:
        return None
    data = buffer.tobytes()[:length]
    out: dict[str, list[str]] = {}
    for offset in range(0, length - ifreq + 1, ifreq):
        name = data[offset : offset + 16].split(b"\0", 1)[0].decode("ascii", "replace")
        address = socket.inet_ntoa(data[offset + 20 : offset + 24])
        out.setdefault(name, []).append(address)
    return out


def _ipv4_addresses(
    tree: _Tree, routes: Sequence[Route], loopback: str | None
) -> dict[str, list[str]]:
    if tree.live:
        live = _ipv4_by_ioctl()
        if live is not None:
            return live
    found = _attribute_by_routes(_fib_trie_locals(tree), routes, loopback)
    extra = tree.sidecar("addrs.json")
    if isinstance(extra, dict):
        for name, addresses in extra.items():
            for text in addresses if isinstance(addresses, list) else [addresses]:
                address = str(text).split("/", 1)[0]
                if address not in found.setdefault(str(name), []):
                    found[str(name)].append(address)
    return found


def _interface_kind(tree: _Tree, base: str, arphrd: int | None, flags: int) -> str:
    if arphrd == 772 or flags & 0x8:
        return "loopback"
    if arphrd == 32:
        return "infiniband"
    if tree.isdir(f"{base}/bridge"):
        return "bridge"
    lower = any(entry.startswith("lower_") for entry in tree.listdir(base))
    index, link = _int(tree.line(f"{base}/ifindex")), _int(tree.line(f"{base}/iflink"))
    if arphrd == 65534 or (index is not None and link is not None and index != link and not lower):
        return "virtual"  # tun/wireguard, or the host end of a veth pair
    return "ether"


def _interfaces(tree: _Tree, routes: Sequence[Route]) -> tuple[Interface, ...]:
    raw: list[tuple[str, bool, str]] = []
    for name in tree.listdir("sys/class/net"):
        base = f"sys/class/net/{name}"
        if not tree.isdir(base):
            continue  # bonding_masters is a file
        flags = _int(tree.line(f"{base}/flags"), 16) or 0
        operstate = tree.line(f"{base}/operstate") or ""
        # IFF_RUNNING is not in sysfs: admin-up and operstate up/unknown (host-facts.md §2.1).
        up = bool(flags & 0x1) and operstate in ("up", "unknown")
        kind = _interface_kind(tree, base, _int(tree.line(f"{base}/type")), flags)
        raw.append((name, up, kind))
    loopback = next((name for name, _, kind in raw if kind == "loopback"), None)
    ipv4 = _ipv4_addresses(tree, routes, loopback)
    ipv6 = _ipv6_addresses(tree)
    return tuple(
        Interface(
            name=name,
            up=up,
            addresses=tuple(ipv4.get(name, [])) + tuple(ipv6.get(name, [])),
            kind=kind,
        )
        for name, up, kind in raw
    )


# --- CPUs and cgroups (host-facts.md §6, §7) ---------------------------------------------


def _count_cpu_list(text: str | None) -> int | None:
    """``0-3,8-11`` → 8."""
    if not text:
        return None
    total = 0
    for item in text.strip().split(","):
        lo, sep, hi = item.partition("-")
        first, last = _int(lo), _int(hi) if sep else _int(lo)
        if first is None or last is None or last < first:
            return None
        total += last - first + 1
    return total or None


def _mounts(tree: _Tree) -> list[tuple[str, str, str, str]]:
    """``(root, mountpoint, fstype, super options)`` rows of ``/proc/self/mountinfo``."""
    rows: list[tuple[str, str, str, str]] = []
    for line in (tree.read("proc/self/mountinfo") or "").splitlines():
        cols = line.split(" ")
        if "-" not in cols[6:]:
            continue
        sep = cols.index("-", 6)
        if len(cols) < sep + 4:
            continue
        root, point = cols[3].replace("\\040", " "), cols[4].replace("\\040", " ")
        rows.append((root, point, cols[sep + 1], cols[sep + 3]))
    return rows


def _cgroup_dir(mount_root: str, mountpoint: str, path: str) -> str:
    """Our cgroup's directory, corrected by mountinfo's ``root`` field (§7.2, JDK's rule)."""
    if mount_root == "/":
        return mountpoint.rstrip("/") + path
    if path == mount_root:
        return mountpoint
    if path.startswith(mount_root.rstrip("/") + "/"):
        return mountpoint.rstrip("/") + path[len(mount_root.rstrip("/")) :]
    return mountpoint


def _walk_up(directory: str, mountpoint: str) -> Iterator[str]:
    current = directory.rstrip("/") or "/"
    stop = mountpoint.rstrip("/") or "/"
    while True:
        yield current
        if current == stop or current == "/" or not current.startswith(stop):
            return
        current = os.path.dirname(current)


def _cgroup_paths(tree: _Tree, controller: str) -> tuple[str | None, str | None]:
    """Our cgroup's path under the v1 ``controller`` hierarchy and under the unified v2
    one (``/proc/self/cgroup``: ``ID:CONTROLLERS:PATH``; v2 is ``0::PATH``)."""
    v1_path = v2_path = None
    for line in (tree.read("proc/self/cgroup") or "").splitlines():
        ident, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if ident == "0" and not controllers:
            v2_path = path
        elif controller in controllers.split(","):
            v1_path = path
    return v1_path, v2_path


def _cgroup_cpu_quota(tree: _Tree) -> float | None:
    """The tightest CPU quota along our cgroup path, in CPUs (§7.3); None = unlimited."""
    v1_path, v2_path = _cgroup_paths(tree, "cpu")  # a v1 controller takes precedence (§7.2)
    mounts = _mounts(tree)
    limits: list[float] = []
    if v1_path is not None:
        mount = next((m for m in mounts if m[2] == "cgroup" and "cpu" in m[3].split(",")), None)
        root, point = (mount[0], mount[1]) if mount else ("/", "/sys/fs/cgroup/cpu")
        for directory in _walk_up(_cgroup_dir(root, point, v1_path), point):
            quota = _int(tree.line(f"{directory}/cpu.cfs_quota_us"))
            period = _int(tree.line(f"{directory}/cpu.cfs_period_us"))
            if quota is not None and quota > 0 and period:
                limits.append(quota / period)
    elif v2_path is not None:
        mount = next((m for m in mounts if m[2] == "cgroup2"), None)
        root, point = (mount[0], mount[1]) if mount else ("/", "/sys/fs/cgroup")
        for directory in _walk_up(_cgroup_dir(root, point, v2_path), point):
            fields = (tree.line(f"{directory}/cpu.max") or "").split()
            if len(fields) >= 2 and fields[0] != "max":
                quota, period = _int(fields[0]), _int(fields[1])
                if quota and period:
                    limits.append(quota / period)
    return min(limits) if limits else None


def _cpu_count(tree: _Tree) -> int:
    affinity: int | None = None
    if tree.live and hasattr(os, "sched_getaffinity"):
        affinity = len(os.sched_getaffinity(0))
    if affinity is None:
        for line in (tree.read("proc/self/status") or "").splitlines():
            if line.startswith("Cpus_allowed_list:"):
                affinity = _count_cpu_list(line.partition(":")[2])
    if affinity is None:
        affinity = _count_cpu_list(tree.line("sys/devices/system/cpu/online"))
    if affinity is None:
        affinity = (os.cpu_count() or 1) if tree.live else 1
    quota = _cgroup_cpu_quota(tree)
    if quota is None:
        return affinity
    return max(1, min(affinity, math.ceil(quota)))


# --- GPUs (host-facts.md §4, §5) ---------------------------------------------------------


def usable_cpus(root: str = "/") -> int:
    """The CPUs this process may use: its affinity, capped by its cgroup's CPU quota (a
    container given two CPUs of a 64-core host has two)."""
    return _cpu_count(_Tree(root))


def _information(text: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in (text or "").splitlines():
        key, sep, value = line.partition(":")
        if sep:
            out[key.strip()] = value.strip()
    return out


def _physical_gpus(tree: _Tree) -> list[str | None]:
    """Usable GPUs in PCI order, as their UUIDs (None where the driver gave none).

    A GPU counts when it is not excluded and, where any ``/dev/nvidiaN`` node exists, when
    its own node exists: container runtimes may show every GPU under /proc but pass only
    the granted nodes, under their host minors (§4.3).
    """
    nodes = {n for n in tree.listdir("dev") if re.fullmatch(r"nvidia[0-9]+", n)}
    bdfs = tree.listdir("proc/driver/nvidia/gpus")
    if not bdfs:
        return [None] * len(nodes)
    gpus: list[str | None] = []
    for bdf in bdfs:
        info = _information(tree.read(f"proc/driver/nvidia/gpus/{bdf}/information"))
        if info.get("GPU Excluded", "").lower().startswith("yes"):
            continue
        minor = info.get("Device Minor", "")
        if nodes and minor.isdigit() and f"nvidia{int(minor)}" not in nodes:
            continue
        gpus.append(info.get("GPU UUID") or None)
    return gpus


def parse_cuda_visible_devices(value: str | None) -> tuple[str, ...] | None:
    """The entries of ``CUDA_VISIBLE_DEVICES`` as written (duplicates kept); None = unset."""
    if value is None:
        return None
    if value == "":
        return ()
    return tuple(item.strip() for item in value.split(","))


def _strtoul(text: str) -> int | None:
    """Leading integer like C's strtoul as PyTorch mirrors it: ``1gpu`` → 1, ``x`` → None."""
    match = re.match(r"[+-]?[0-9]+", text)
    return int(match.group(0)) if match else None


def visible_gpu_count(value: str | None, physical: Sequence[str | None]) -> int:
    """What ``torch.cuda.device_count()`` would say, without NVML (host-facts.md §5)."""
    count = len(physical)
    if value is None:
        return count
    if value.startswith("MIG-"):
        return 1 if count else 0  # CUDA enumerates one MIG device per process (§4.5)
    if value.startswith("GPU-"):
        return _count_uuids(value.split(","), physical)
    ordinals: list[int] = []
    for item in value.split(","):
        ordinal = _strtoul(item.strip())
        if ordinal is not None and ordinal in ordinals:
            return 0  # a repeated device empties the list
        if ordinal is None or ordinal < 0:
            break
        ordinals.append(ordinal)
    for index, ordinal in enumerate(ordinals):
        if ordinal >= count:
            return index
    return len(ordinals)


def _count_uuids(items: Sequence[str], physical: Sequence[str | None]) -> int:
    candidates: list[str] = []
    for item in items:
        if item in candidates:
            return 0
        if not item.startswith("GPU-"):
            break
        candidates.append(item)
    if any(uuid is None for uuid in physical):
        return min(len(candidates), len(physical))  # cannot resolve prefixes; best effort
    chosen: list[int] = []
    for candidate in candidates:
        matches = [i for i, uuid in enumerate(physical) if uuid and uuid.startswith(candidate)]
        if len(matches) != 1:
            break  # unknown or ambiguous prefix stops the list
        if matches[0] in chosen:
            return 0
        chosen.append(matches[0])
    return len(chosen)


# --- Ports (host-facts.md §9) ------------------------------------------------------------


def _ephemeral_range(tree: _Tree) -> tuple[int, int]:
    fields = (tree.line("proc/sys/net/ipv4/ip_local_port_range") or "").split()
    if len(fields) == 2 and fields[0].isdigit() and fields[1].isdigit():
        return int(fields[0]), int(fields[1])
    return HostFacts().ephemeral_range


def _listen_inodes(tree: _Tree) -> dict[int, set[str]]:
    """LISTEN ports of /proc/net/tcp and tcp6 with their socket inodes."""
    out: dict[int, set[str]] = {}
    for name in ("proc/net/tcp", "proc/net/tcp6"):
        for row in (tree.read(name) or "").splitlines()[1:]:
            cols = row.split()
            if len(cols) < 10 or cols[3] != "0A":
                continue
            port = _int(cols[1].rpartition(":")[2], 16)
            if port is not None:
                out.setdefault(port, set()).add(cols[9])
    return out


def _holders(tree: _Tree, wanted: Mapping[int, Collection[str]]) -> dict[int, PortHolder]:
    """Find the pids owning the given sockets with one pass over /proc/<pid>/fd (§9.3)."""
    by_link = {f"socket:[{inode}]": port for port, inodes in wanted.items() for inode in inodes}
    found: dict[int, PortHolder] = {}
    pids = [p for p in tree.listdir("proc") if p.isdigit()]
    if tree.live:  # our own sockets are the common case: look there first
        own = str(os.getpid())
        pids = [own, *[p for p in pids if p != own]]
    for pid in pids:
        for fd in tree.listdir(f"proc/{pid}/fd"):
            port = by_link.get(tree.readlink(f"proc/{pid}/fd/{fd}") or "")
            if port is None or port in found:
                continue
            raw = tree.read(f"proc/{pid}/cmdline") or ""
            cmdline = " ".join(part for part in raw.split("\0") if part) or None
            found[port] = PortHolder(port=port, pid=int(pid), cmdline=cmdline)
        if len(found) == len(wanted):
            break
    return found


def port_holder(port: int, root: str = "/") -> PortHolder:
    """Who listens on ``port``: pid and command line when /proc lets us see them.

    ``pid`` stays None when nobody listens or the owner is invisible (another user, another
    pid namespace, ``hidepid``); callers check ``listening`` first to tell the two apart.
    """
    tree = _Tree(root)
    inodes = _listen_inodes(tree).get(port)
    if not inodes:
        return PortHolder(port=port)
    return _holders(tree, {port: inodes}).get(port, PortHolder(port=port))


def _listening(
    tree: _Tree, environ: Mapping[str, str], attribute: Collection[int]
) -> dict[int, PortHolder]:
    inodes = _listen_inodes(tree)
    wanted_ports = set(attribute) | set(_DEFAULT_PORTS)
    for name in ("MASTER_PORT", "PET_MASTER_PORT"):
        value = _int(environ.get(name))
        if value is not None:
            wanted_ports.add(value)
    wanted = {port: inodes[port] for port in wanted_ports if port in inodes}
    holders = _holders(tree, wanted) if wanted else {}
    return {port: holders.get(port, PortHolder(port=port)) for port in sorted(inodes)}


# --- Small facts -------------------------------------------------------------------------


def _shm_bytes(tree: _Tree) -> int | None:
    if tree.live:
        try:
            stat = os.statvfs("/dev/shm")
        except OSError:
            return None
        return stat.f_blocks * stat.f_frsize
    recorded = tree.sidecar("statvfs.json")
    if isinstance(recorded, dict) and isinstance(recorded.get("/dev/shm"), dict):
        shm = recorded["/dev/shm"]
        blocks, frsize = shm.get("f_blocks"), shm.get("f_frsize")
        if isinstance(blocks, int) and isinstance(frsize, int):
            return blocks * frsize
    for _, point, fstype, options in _mounts(tree):
        if point == "/dev/shm" and fstype == "tmpfs":
            for option in options.split(","):
                if option.startswith("size="):
                    return _size(option[5:])
    return None


def _size(text: str) -> int | None:
    match = re.fullmatch(r"([0-9]+)([kmgKMG]?)", text)
    if match is None:
        return None
    scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[match.group(2).lower()]
    return int(match.group(1)) * scale


def _hostname(tree: _Tree) -> str:
    if tree.live:
        return os.uname().nodename
    return tree.line("etc/hostname") or tree.line("proc/sys/kernel/hostname") or "localhost"


_CUDA_LINE = re.compile(r"""^cuda\s*(?::[^=]*)?=\s*['"]([^'"]+)['"]""", re.MULTILINE)


def _packages(search: Sequence[str] | None = None) -> tuple[str | None, str | None, str | None]:
    """(torch, the CUDA it was built with, the NCCL wheel it loads), from files on
    ``sys.path`` in one pass, never importing torch: ``torch-*.dist-info/METADATA``,
    ``torch/version.py`` (its ``cuda = '12.1'`` line; ``None`` in a CPU build) and the
    ``nvidia_nccl_cu*-V.dist-info`` directory name (a torch with NCCL linked in statically
    has none: unknown). These are the files ``importlib.metadata`` would read, read
    directly: importing it alone costs ~40 ms, most of ``gather``'s budget. ``search``:
    the directories to look in (default ``sys.path``)."""
    torch: str | None = None
    cuda: str | None = None
    nccl: str | None = None
    for entry in sys.path if search is None else search:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if nccl is None and name.startswith("nvidia_nccl_cu") and name.endswith(".dist-info"):
                nccl = name.removesuffix(".dist-info").partition("-")[2] or None
            if torch is not None or not name.startswith("torch-"):
                continue
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            meta = "METADATA" if name.endswith(".dist-info") else "PKG-INFO"
            torch = _metadata_version(os.path.join(entry or ".", name, meta))
            if torch is not None:
                cuda = _torch_cuda(os.path.join(entry or ".", "torch", "version.py"))
        if torch is not None and nccl is not None:
            break
    return torch, cuda, nccl


def _metadata_version(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("Version:"):
                    return line.partition(":")[2].strip()
                if not line.strip():
                    break
    except OSError:
        pass
    return None


def _torch_cuda(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            match = _CUDA_LINE.search(f.read())
    except OSError:
        return None
    return match.group(1) if match else None


def _recorded_packages(
    tree: _Tree, live: tuple[str | None, str | None, str | None]
) -> tuple[str | None, str | None, str | None]:
    """A recorded tree's ``packages.json`` (``{"torch": ..., "cuda": ..., "nccl": ...}``)
    replaces the interpreter's own versions key by key: a node of a test cluster can then
    run another torch than the one running the test."""
    recorded = tree.sidecar("packages.json")
    if not isinstance(recorded, dict):
        return live
    out = list(live)
    for index, key in enumerate(("torch", "cuda", "nccl")):
        if key in recorded:
            value = recorded[key]
            out[index] = str(value) if value is not None else None
    return out[0], out[1], out[2]


_DRIVER = re.compile(r"Kernel Module(?: for \S+)?\s+([0-9]+\.[0-9]+(?:\.[0-9]+)?)")


def _driver_version(tree: _Tree) -> str | None:
    """The NVIDIA kernel module's version (host-facts.md §4.1); None without a driver."""
    simple = tree.line("sys/module/nvidia/version")
    if simple:
        return simple
    match = _DRIVER.search(tree.read("proc/driver/nvidia/version") or "")
    return match.group(1) if match else None


def _memlock(tree: _Tree) -> int | None:
    """The soft locked-memory limit from ``/proc/self/limits`` (host-facts.md §8.2)."""
    for line in (tree.read("proc/self/limits") or "").splitlines():
        if line.startswith("Max locked memory"):
            fields = line[len("Max locked memory") :].split()
            if not fields:
                return None
            if fields[0] == "unlimited":
                return MEMLOCK_UNLIMITED
            return _int(fields[0])
    return None


def _link_speeds(tree: _Tree, names: Sequence[str]) -> dict[str, int]:
    """Mb/s of each interface whose driver reports it; ``speed`` fails with EINVAL on a
    down interface and reads -1 when unknown (host-facts.md §2.1): those are left out."""
    out: dict[str, int] = {}
    for name in names:
        speed = _int(tree.line(f"sys/class/net/{name}/speed"))
        if speed is not None and speed > 0:
            out[name] = speed
    return out


def _host_ips(tree: _Tree, names: Sequence[str]) -> dict[str, str]:
    """IPv4 of each name; a name that does not resolve is left out (never raises)."""
    out: dict[str, str] = {}
    recorded = tree.sidecar("resolve.json")
    for name in names:
        try:
            out[name] = str(ipaddress.IPv4Address(name))
            continue
        except ValueError:
            pass
        if not tree.live:
            answers = recorded.get(name) if isinstance(recorded, dict) else None
            ipv4 = [a for a in answers or [] if isinstance(a, str) and "." in a]
            if ipv4:
                out[name] = ipv4[0]
            continue
        try:
            infos = socket.getaddrinfo(name, None, socket.AF_INET, socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            continue
        if infos:
            out[name] = str(infos[0][4][0])
    return out


def lookup_hosts(names: Sequence[str], root: str = "/") -> dict[str, str]:
    """IPv4 of each name that resolves here (a recorded tree answers from ``resolve.json``);
    names that do not resolve are left out. Never raises."""
    return _host_ips(_Tree(root), names)


def gather(
    environ: Mapping[str, str],
    root: str = "/",
    lookup_hosts: Sequence[str] = (),
    python: str | None = None,
    *,
    attribute_ports: Collection[int] = (),
) -> HostFacts:
    """Read everything launchx needs to know about this host, once, as data.

    ``listening`` holds every TCP LISTEN port; the holder (pid, command line) is filled
    only for the ports launchx may use — ``attribute_ports``, ``MASTER_PORT`` and
    ``PET_MASTER_PORT`` from ``environ``, 29500 and 29400 — and only when one of them is
    actually listening. Naming a holder means one pass over every ``/proc/<pid>/fd``,
    which costs tens of milliseconds on a busy host; the common case (our ports free)
    pays nothing. Other listeners have ``pid`` None: call ``port_holder`` for them.

    Raises ``ConfigError`` only for a malformed SLURM host list in ``environ``.
    """
    tree = _Tree(root)
    routes = _routes(tree)
    physical = _physical_gpus(tree)
    cuda_visible = environ.get("CUDA_VISIBLE_DEVICES")
    interfaces = _interfaces(tree, routes)
    torch, cuda, nccl = _recorded_packages(tree, _packages())
    return HostFacts(
        hostname=_hostname(tree),
        environ=dict(environ),
        python=python or sys.executable,
        cpu_count=_cpu_count(tree),
        gpu_count=visible_gpu_count(cuda_visible, physical),
        gpu_visible=parse_cuda_visible_devices(cuda_visible),
        ib_ports=_ib_ports(tree),
        interfaces=interfaces,
        routes=routes,
        host_ips=_host_ips(tree, lookup_hosts),
        ephemeral_range=_ephemeral_range(tree),
        listening=_listening(tree, environ, attribute_ports),
        launch=classify_launch(environ),
        slurm=parse_slurm(environ),
        shm_bytes=_shm_bytes(tree),
        torch_version=torch,
        root=tree.root if not tree.live else "/",
        driver_version=_driver_version(tree),
        cuda_runtime=cuda,
        nccl_version=nccl,
        memlock_bytes=_memlock(tree),
        link_speeds=_link_speeds(tree, [i.name for i in interfaces]),
    )


# --- Who launched us (env-vars.md §3.1, §4, §5) ------------------------------------------
#
# classify_launch is pure: it looks only at ``environ``. The detectors below are tried in
# order and the first that recognises its markers wins. Per-process launchers come first
# because they can run *inside* per-node contexts (mpirun and DeepSpeed start their daemons
# with srun; torchrun runs inside Kubeflow pods, SageMaker hosts and srun steps), and their
# workers inherit the outer markers too.

_SRUN_MARKERS = (
    "SLURM_STEP_NUM_TASKS",
    "SLURM_STEP_TASKS_PER_NODE",
    "SLURM_STEP_NODELIST",
    "SLURM_STEP_NUM_NODES",
    "SLURM_SRUN_COMM_HOST",
    "SLURM_SRUN_COMM_PORT",
    "SLURM_STEP_LAUNCHER_PORT",
)
# SLURM's special step ids (batch, extern, interactive, pending...) sit at the top of the
# 32-bit range; a batch script may see one, which is not an srun step (env-vars.md §4).
_SPECIAL_STEP_IDS = 0xFFFFFFF0


def _num(environ: Mapping[str, str], *names: str) -> int | None:
    for name in names:
        value = _int(environ.get(name))
        if value is not None:
            return value
    return None


def _ev(environ: Mapping[str, str], *names: str) -> tuple[str, ...]:
    return tuple(f"{name}={environ[name]}" for name in names if name in environ)


def _has(environ: Mapping[str, str], *names: str) -> bool:
    return all(name in environ for name in names)


def _ctx(
    kind: LaunchKind,
    name: str,
    evidence: tuple[str, ...],
    *,
    rank: int | None = None,
    world_size: int | None = None,
    local_rank: int | None = None,
    local_world_size: int | None = None,
    node_rank: int | None = None,
    nnodes: int | None = None,
) -> LaunchContext:
    return LaunchContext(
        kind=kind,
        name=name,
        evidence=evidence,
        rank=rank,
        world_size=world_size,
        local_rank=local_rank,
        local_world_size=local_world_size,
        node_rank=node_rank,
        nnodes=nnodes,
    )


def _srun_evidence(environ: Mapping[str, str]) -> tuple[str, ...]:
    evidence = _ev(environ, *_SRUN_MARKERS)
    step = _int(environ.get("SLURM_STEP_ID", environ.get("SLURM_STEPID")))
    if step is not None and 0 <= step < _SPECIAL_STEP_IDS:
        evidence = (*_ev(environ, "SLURM_STEP_ID", "SLURM_STEPID"), *evidence)
    return evidence


def _torchrun(env: Mapping[str, str]) -> LaunchContext | None:
    full_set = _has(env, "RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK")
    if not (
        ("TORCHELASTIC_RUN_ID" in env and ("GROUP_RANK" in env or "ROLE_RANK" in env))
        or (full_set and "ROLE_RANK" in env)
    ):
        return None
    accelerate = any(key.startswith("ACCELERATE_") for key in env)
    return _ctx(
        "torchrun",
        "torchrun (accelerate launch)" if accelerate else "torchrun",
        _ev(
            env,
            "TORCHELASTIC_RUN_ID",
            "GROUP_RANK",
            "ROLE_RANK",
            "RANK",
            "WORLD_SIZE",
            "LOCAL_RANK",
            "LOCAL_WORLD_SIZE",
        ),
        rank=_num(env, "RANK"),
        world_size=_num(env, "WORLD_SIZE"),
        local_rank=_num(env, "LOCAL_RANK"),
        local_world_size=_num(env, "LOCAL_WORLD_SIZE"),
        node_rank=_num(env, "GROUP_RANK"),
        nnodes=_num(env, "GROUP_WORLD_SIZE"),
    )


def _open_mpi(env: Mapping[str, str]) -> LaunchContext | None:
    if "OMPI_COMM_WORLD_RANK" not in env:
        return None
    # OMPI_COMM_WORLD_NODE_RANK is the rank among this node's processes of all jobs, not a
    # node index, so node_rank stays unknown.
    return _ctx(
        "mpi",
        "Open MPI",
        _ev(
            env,
            "OMPI_COMM_WORLD_RANK",
            "OMPI_COMM_WORLD_SIZE",
            "OMPI_COMM_WORLD_LOCAL_RANK",
            "OMPI_COMM_WORLD_LOCAL_SIZE",
        ),
        rank=_num(env, "OMPI_COMM_WORLD_RANK"),
        world_size=_num(env, "OMPI_COMM_WORLD_SIZE"),
        local_rank=_num(env, "OMPI_COMM_WORLD_LOCAL_RANK"),
        local_world_size=_num(env, "OMPI_COMM_WORLD_LOCAL_SIZE"),
    )


def _hydra(env: Mapping[str, str]) -> LaunchContext | None:
    if not (_has(env, "PMI_RANK", "PMI_SIZE") or "MPI_LOCALRANKID" in env):
        return None
    hydra = "MPI_LOCALRANKID" in env
    return _ctx(
        "mpi",
        "MPICH/Intel MPI (Hydra)" if hydra else "PMI launcher (MPICH, Intel MPI, srun --mpi=pmi2)",
        _ev(env, "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
        rank=_num(env, "PMI_RANK"),
        world_size=_num(env, "PMI_SIZE"),
        local_rank=_num(env, "MPI_LOCALRANKID"),
        local_world_size=_num(env, "MPI_LOCALNRANKS"),
    )


def _mvapich(env: Mapping[str, str]) -> LaunchContext | None:
    if "MV2_COMM_WORLD_RANK" not in env:
        return None
    return _ctx(
        "mpi",
        "MVAPICH",
        _ev(
            env,
            "MV2_COMM_WORLD_RANK",
            "MV2_COMM_WORLD_SIZE",
            "MV2_COMM_WORLD_LOCAL_RANK",
            "MV2_COMM_WORLD_LOCAL_SIZE",
        ),
        rank=_num(env, "MV2_COMM_WORLD_RANK"),
        world_size=_num(env, "MV2_COMM_WORLD_SIZE"),
        local_rank=_num(env, "MV2_COMM_WORLD_LOCAL_RANK"),
        local_world_size=_num(env, "MV2_COMM_WORLD_LOCAL_SIZE"),
    )


def _deepspeed(env: Mapping[str, str]) -> LaunchContext | None:
    if not _has(env, "CROSS_RANK", "LOCAL_SIZE"):
        return None
    return _ctx(
        "platform",
        "DeepSpeed launcher",
        _ev(env, "CROSS_RANK", "LOCAL_SIZE", "CROSS_SIZE", "RANK", "WORLD_SIZE", "LOCAL_RANK"),
        rank=_num(env, "RANK"),
        world_size=_num(env, "WORLD_SIZE"),
        local_rank=_num(env, "LOCAL_RANK"),
        local_world_size=_num(env, "LOCAL_SIZE"),
        node_rank=_num(env, "CROSS_RANK"),
        nnodes=_num(env, "CROSS_SIZE"),
    )


def _tasks_here(env: Mapping[str, str], step: bool) -> int | None:
    """Tasks of this step (or job) on this node, from the compressed per-node counts."""
    names: tuple[str, ...] = ("SLURM_TASKS_PER_NODE",)
    if step:
        names = ("SLURM_STEP_TASKS_PER_NODE", *names)
    node_list = env.get("SLURM_STEP_NODELIST") if step else None
    node_list = node_list or env.get("SLURM_JOB_NODELIST") or env.get("SLURM_NODELIST")
    index = _num(env, "SLURM_NODEID") or 0
    here = env.get("SLURMD_NODENAME")
    if here and node_list:
        try:
            hosts = expand(node_list)
        except ConfigError:
            hosts = ()
        if here in hosts:
            index = hosts.index(here)
    for name in names:
        if name in env:
            try:
                counts = expand_counts(env[name])
            except ConfigError:
                continue
            if index < len(counts):
                return counts[index]
    return _num(env, "SLURM_NTASKS_PER_NODE") or _tasks_spread(env, step)


def _tasks_spread(env: Mapping[str, str], step: bool) -> int | None:
    """Without a per-node count: more tasks than nodes means some node runs at least
    ceil(tasks / nodes) of them, which is taken as this node's count, so a step of several
    tasks per node is never mistaken for one task per node. None when nothing says more."""
    task_vars: tuple[str, ...] = ("SLURM_NTASKS", "SLURM_NPROCS")
    node_vars: tuple[str, ...] = ("SLURM_JOB_NUM_NODES", "SLURM_NNODES")
    if step:
        task_vars = ("SLURM_STEP_NUM_TASKS", *task_vars)
        node_vars = ("SLURM_STEP_NUM_NODES", *node_vars)
    tasks, nodes = _num(env, *task_vars), _num(env, *node_vars)
    if tasks is None or not nodes or tasks <= nodes:
        return None
    return -(-tasks // nodes)


def _srun_step(env: Mapping[str, str]) -> LaunchContext | None:
    evidence = _srun_evidence(env)
    if not evidence:
        return None
    here = _tasks_here(env, step=True)
    name = "srun step (one task per node)" if here == 1 else "srun step (several tasks per node)"
    return _ctx(
        "srun_step",
        name if here is not None else "srun step",
        (*evidence, *_ev(env, "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID")),
        rank=_num(env, "SLURM_PROCID"),
        world_size=_num(env, "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"),
        local_rank=_num(env, "SLURM_LOCALID"),
        local_world_size=here,
        node_rank=_num(env, "SLURM_NODEID"),
        nnodes=_num(env, "SLURM_STEP_NUM_NODES", "SLURM_JOB_NUM_NODES", "SLURM_NNODES"),
    )


def _pmix(env: Mapping[str, str]) -> LaunchContext | None:
    if "PMIX_RANK" not in env:
        return None
    return _ctx(
        "mpi", "PMIx launcher", _ev(env, "PMIX_RANK", "PMIX_NAMESPACE"), rank=_num(env, "PMIX_RANK")
    )


def _sagemaker(env: Mapping[str, str]) -> LaunchContext | None:
    if "SM_HOSTS" not in env and "SM_CURRENT_HOST" not in env:
        return None
    try:
        hosts = json.loads(env.get("SM_HOSTS", "[]"))
    except ValueError:
        hosts = []
    hosts = [h for h in hosts if isinstance(h, str)] if isinstance(hosts, list) else []
    current = env.get("SM_CURRENT_HOST")
    return _ctx(
        "per_node",
        "Amazon SageMaker",
        _ev(env, "SM_HOSTS", "SM_CURRENT_HOST", "SM_NUM_GPUS"),
        nnodes=len(hosts) or None,
        node_rank=hosts.index(current) if current in hosts else None,
    )


def _kubeflow_pet(env: Mapping[str, str]) -> LaunchContext | None:
    pet = sorted(key for key in env if key.startswith("PET_"))
    if not pet:
        return None
    nnodes = _num(env, "PET_NNODES")  # "min:max" (elastic) stays unknown
    nproc = _num(env, "PET_NPROC_PER_NODE")  # "auto"/"gpu"/"cpu" stays unknown
    world = None
    if _has(env, "RANK", "WORLD_SIZE", "MASTER_ADDR"):
        name = "Kubeflow PyTorchJob"  # training-operator >= 1.7: RANK is the pod index
        world = _num(env, "WORLD_SIZE")
    elif "-node-0-0." in env.get("PET_MASTER_ADDR", ""):
        name = "Kubeflow Trainer v2"
    elif "PET_RDZV_ENDPOINT" in env:
        name = "Kubeflow PyTorchJob (elastic)"
    else:
        name = "Kubeflow (torchrun settings in PET_*)"
    if world is None and nnodes is not None and nproc is not None:
        world = nnodes * nproc
    return _ctx(
        "per_node",
        name,
        (*_ev(env, *pet), *_ev(env, "RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")),
        node_rank=_num(env, "PET_NODE_RANK", "RANK"),
        nnodes=nnodes,
        local_world_size=nproc,
        world_size=world,
    )


def _slurm_batch(env: Mapping[str, str]) -> LaunchContext | None:
    if "SLURM_JOB_ID" not in env and "SLURM_JOBID" not in env:
        return None
    return _ctx(
        "slurm_batch",
        "SLURM batch script (no srun step)",
        _ev(
            env,
            "SLURM_JOB_ID",
            "SLURM_JOBID",
            "SLURM_STEP_ID",
            "SLURM_JOB_NUM_NODES",
            "SLURM_NNODES",
        ),
        node_rank=_num(env, "SLURM_NODEID"),
        nnodes=_num(env, "SLURM_JOB_NUM_NODES", "SLURM_NNODES"),
    )


def _per_node_rank(env: Mapping[str, str]) -> LaunchContext | None:
    """PAI-DLC and Kubeflow < 1.7: RANK/WORLD_SIZE count pods, not processes."""
    if not _has(env, "RANK", "WORLD_SIZE", "MASTER_ADDR") or "LOCAL_RANK" in env:
        return None
    operator_name = re.search(r"-master-[0-9]+(\.|$)", env["MASTER_ADDR"]) is not None
    if "NPROC_PER_NODE" not in env and not operator_name:
        return None
    pai = "NPROC_PER_NODE" in env or env["MASTER_ADDR"].startswith("dlc")
    return _ctx(
        "per_node",
        "PAI-DLC" if pai else "Kubeflow PyTorchJob < 1.7 (or PAI-DLC)",
        _ev(env, "RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "NPROC_PER_NODE"),
        node_rank=_num(env, "RANK"),
        nnodes=_num(env, "WORLD_SIZE"),
        local_world_size=_num(env, "NPROC_PER_NODE"),
    )


def _platform(env: Mapping[str, str]) -> LaunchContext | None:
    if not _has(env, "RANK", "WORLD_SIZE", "MASTER_ADDR"):
        return None
    azure = any(key.startswith("AZUREML_") for key in env)
    return _ctx(
        "platform",
        "Azure ML" if azure else "platform (RANK/WORLD_SIZE/MASTER_ADDR set)",
        _ev(env, "RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK", "NODE_RANK"),
        rank=_num(env, "RANK"),
        world_size=_num(env, "WORLD_SIZE"),
        local_rank=_num(env, "LOCAL_RANK"),
        local_world_size=_num(env, "LOCAL_WORLD_SIZE"),
        node_rank=_num(env, "NODE_RANK", "GROUP_RANK"),
    )


_DETECTORS = (
    _torchrun,
    _open_mpi,
    _hydra,
    _mvapich,
    _deepspeed,
    _srun_step,
    _pmix,
    _sagemaker,
    _kubeflow_pet,
    _slurm_batch,
    _per_node_rank,
    _platform,
)


def classify_launch(environ: Mapping[str, str]) -> LaunchContext:
    """Who started this process, from all the evidence in ``environ`` (pure).

    The first detector of ``_DETECTORS`` that recognises its markers decides; see the module
    comment above them and the report for the decision table. Without any, the kind is
    ``none`` and ``evidence`` lists stray rank variables (``LOCAL_RANK`` alone is ambiguous).
    """
    context = next((c for c in (d(environ) for d in _DETECTORS) if c is not None), None)
    if context is None:
        context = LaunchContext(
            evidence=_ev(environ, "RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR")
        )
    if "LAUNCHX_RUN_ID" in environ:
        evidence = (*context.evidence, *_ev(environ, "LAUNCHX_RUN_ID"))
        context = dataclasses.replace(context, inside_launchx=True, evidence=evidence)
    return context


def parse_slurm(environ: Mapping[str, str]) -> SlurmFacts | None:
    """SLURM allocation facts, or None outside SLURM (pure).

    Raises ``ConfigError`` when ``SLURM_JOB_NODELIST`` is not a valid host list: SLURM never
    writes one, so it was set by hand and every later decision would be wrong.
    """
    job_id = environ.get("SLURM_JOB_ID") or environ.get("SLURM_JOBID")
    if not job_id:
        return None
    node_list = environ.get("SLURM_JOB_NODELIST") or environ.get("SLURM_NODELIST") or ""
    try:
        nodes = expand(node_list) if node_list else ()
    except ConfigError as error:
        raise ConfigError(f"SLURM_JOB_NODELIST: {error.message}", error.hint) from None
    in_step = bool(_srun_evidence(environ))
    step = environ.get("SLURM_STEP_ID", environ.get("SLURM_STEPID")) if in_step else None
    return SlurmFacts(
        job_id=job_id,
        nodelist=nodes,
        nnodes=_num(environ, "SLURM_JOB_NUM_NODES", "SLURM_NNODES") or len(nodes),
        node_id=_num(environ, "SLURM_NODEID"),
        ntasks=_num(environ, "SLURM_NTASKS", "SLURM_STEP_NUM_TASKS", "SLURM_NPROCS"),
        ntasks_per_node=_tasks_here(environ, step=in_step),
        step_id=step,
        procid=_num(environ, "SLURM_PROCID"),
        localid=_num(environ, "SLURM_LOCALID"),
        restart_count=_num(environ, "SLURM_RESTART_COUNT") or 0,
        cpus_per_task=_num(environ, "SLURM_CPUS_PER_TASK"),
        gpus_on_node=_num(environ, "SLURM_GPUS_ON_NODE"),
    )


def probe_target(
    script: str, *, module: bool, no_python: bool, cwd: str, path_var: str
) -> TargetFacts:
    """Whether the script (or module, or executable) exists on this node, and which names
    that do exist look like it: ``trian.py`` next to ``train.py`` is a typo, and a job that
    cannot start should be refused before any rank is, not diagnosed after."""
    import difflib
    import importlib.util
    import shutil

    if no_python:
        found = shutil.which(script, path=path_var) is not None
        names: list[str] = []
        if not found and "/" not in script:
            for directory in path_var.split(os.pathsep):
                with contextlib.suppress(OSError):
                    names += [e for e in os.listdir(directory) if not e.startswith(".")]
        alike = difflib.get_close_matches(script, sorted(set(names)), n=3)
        return TargetFacts("executable", script, found, "PATH", tuple(alike))
    if module:
        top = script.split(".")[0]
        local = os.path.join(cwd, top)
        found = os.path.isfile(local + ".py") or os.path.isdir(local)
        if not found:
            with contextlib.suppress(ImportError, ValueError):
                found = importlib.util.find_spec(top) is not None
        return TargetFacts("module", script, found, cwd)
    path = script if os.path.isabs(script) else os.path.join(cwd, script)
    if os.path.isdir(path):  # python runs a directory through its __main__.py
        found = os.path.isfile(os.path.join(path, "__main__.py"))
        return TargetFacts("script", script, found, os.path.dirname(path) or cwd, (), not found)
    found = os.path.isfile(path)
    directory = os.path.dirname(path) or cwd
    close: list[str] = []
    if not found:
        with contextlib.suppress(OSError):
            entries = [e for e in os.listdir(directory) if e.endswith(".py")]
            close = difflib.get_close_matches(os.path.basename(script), entries, n=3)
    return TargetFacts("script", script, found, directory, tuple(close))


def parse_oom_kills(text: str | None) -> int | None:
    """The ``oom_kill N`` counter of cgroup v2's ``memory.events`` or v1's
    ``memory.oom_control`` (kernels before 4.13 have no counter there: None)."""
    for line in (text or "").splitlines():
        key, _, value = line.partition(" ")
        if key == "oom_kill" and value.strip().isdigit():
            return int(value.strip())
    return None


def oom_kill_count(root: str = "/") -> int | None:
    """How many processes the kernel's OOM killer has killed in launchx's memory cgroup (its
    ranks live there too). Read before and after an attempt: a SIGKILLed rank is an OOM kill
    only when this grew. None when no counter can be read (no evidence either way)."""
    tree = _Tree(root)
    v1_path, v2_path = _cgroup_paths(tree, "memory")
    mounts = _mounts(tree)
    if v1_path is not None:
        mount = next((m for m in mounts if m[2] == "cgroup" and "memory" in m[3].split(",")), None)
        base, point = (mount[0], mount[1]) if mount else ("/", "/sys/fs/cgroup/memory")
        return parse_oom_kills(tree.read(f"{_cgroup_dir(base, point, v1_path)}/memory.oom_control"))
    if v2_path is not None:
        mount = next((m for m in mounts if m[2] == "cgroup2"), None)
        base, point = (mount[0], mount[1]) if mount else ("/", "/sys/fs/cgroup")
        return parse_oom_kills(tree.read(f"{_cgroup_dir(base, point, v2_path)}/memory.events"))
    return None


# The kernel's OOM killer names the process it kills: "Out of memory: Killed process 4242
# (python) ...", "Memory cgroup out of memory: Killed process 4242 ...", before 4.19 "Out of
# memory: Kill process 4242 (python) score 900 or sacrifice child" then "Killed process
# 4242 ...", since 4.19 also "oom-kill:constraint=...,task=python,pid=4242,uid=0", and
# "oom_reaper: reaped process 4242 (python), ...".
_KERNEL_OOM = re.compile(
    r"\b(?:Kill(?:ed)? process|oom_reaper: reaped process) (\d+)\b|\boom-kill:\S*?\bpid=(\d+)\b"
)
_KMSG_MAX_RECORDS = 1 << 20  # the ring buffer holds far fewer; a bound on a broken device


def kmsg_record(line: str) -> tuple[int, str] | None:
    """``(usec, message)`` of one ``/dev/kmsg`` record, ``prio,seq,usec,flags[,...];message``
    (usec: the kernel's monotonic clock, microseconds since boot). None for a continuation
    line (`` KEY=value``, it starts with a space) or anything else."""
    head, sep, message = line.partition(";")
    if not sep or line.startswith(" "):
        return None
    fields = head.split(",")
    if len(fields) < 4 or not fields[2].isdigit():
        return None
    return int(fields[2]), message.rstrip("\n")


def kernel_oom_lines(
    chunks: Iterable[str], pids: Collection[int], since_us: int = 0
) -> tuple[str, ...]:
    """The kernel's OOM-kill messages that name one of ``pids``, logged at or after
    ``since_us``, from ``/dev/kmsg`` text (one record per read, or many, one a line)."""
    wanted = set(pids)
    found: list[str] = []
    for chunk in chunks:
        for line in chunk.splitlines():
            record = kmsg_record(line)
            if record is None or record[0] < since_us:
                continue
            for m in _KERNEL_OOM.finditer(record[1]):
                if int(m.group(1) or m.group(2)) in wanted:
                    found.append(record[1])
                    break
    return tuple(found)


def _kmsg_records(path: str) -> Iterator[str]:
    """Every record ``/dev/kmsg`` still holds, read without blocking: one record a read,
    EAGAIN after the newest, EPIPE when the ring buffer overwrote the next one (the read
    after it goes on from the oldest left). Nothing when it cannot be opened: containers
    and ``kernel.dmesg_restrict=1`` without CAP_SYSLOG."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return
    try:
        for _ in range(_KMSG_MAX_RECORDS):
            try:
                data = os.read(fd, 8192)  # a record is at most 1 KiB of text (+ its dict)
            except BrokenPipeError:
                continue
            except OSError:  # BlockingIOError (EAGAIN): no newer record; or an odd device
                return
            if not data:  # a plain file, or /dev/null bound over /dev/kmsg
                return
            yield data.decode(errors="replace")
    finally:
        os.close(fd)


def kernel_oom_kills(
    pids: Collection[int], since_s: float, path: str = "/dev/kmsg"
) -> tuple[str, ...]:
    """The kernel log's OOM-kill lines that name one of ``pids`` since ``since_s`` (seconds
    on the kernel's clock: since boot, as ``time.monotonic()`` counts on Linux). Empty when
    the log cannot be read, which is no evidence either way. The pids are the kernel's
    (the host's pid namespace: inside a container's own, the log is seldom readable). Reads
    the whole ring buffer: call it only once a process was SIGKILLed."""
    if not pids:
        return ()
    return kernel_oom_lines(_kmsg_records(path), pids, max(0, int(since_s * 1_000_000)))
