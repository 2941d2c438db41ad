"""Every node's facts side by side: which nodes differ, and which differences break a job.

Pure: node summaries (and what node 0 measured: clock offsets, name lookups, the link test)
in, a ``Report`` out. One pass per rule over the nodes, so a thousand nodes compare in
milliseconds. Codes LX230-LX252 belong to this module:

| code  | level   | what |
| ----- | ------- | ---- |
| LX230 | error   | a node did not join (or sent nothing readable) |
| LX231 | error   | torch versions differ |
| LX232 | error   | the CUDA torch was built with differs |
| LX233 | error   | NCCL versions differ |
| LX234 | warning | NVIDIA driver versions differ |
| LX235 | error   | GPU counts differ |
| LX236 | error   | fewer GPUs than processes per node |
| LX237 | error   | processes per node differ (GPU counts agree) |
| LX238 | error   | an RDMA port the profile uses is down or missing on some node |
| LX239 | warning | an RDMA port runs at another rate on some node |
| LX240 | error   | the socket interface is missing or down on some node |
| LX241 | warning | the socket interface runs at another speed on some node |
| LX242 | error   | /dev/shm too small on a node where NCCL runs several ranks |
| LX243 | error   | locked-memory limit too small on a node that uses RDMA |
| LX244 | warning | clocks differ by more than a second |
| LX245 | warning | a node's host name does not resolve at node 0 |
| LX246 | warning | several nodes report the same host name |
| LX247 | error   | a node cannot reach the master's rendezvous port |
| LX248 | warning | a variable of the job's environment differs |
| LX249 | warning | nodes run another profile or launchx version |
| LX250 | error   | the link test failed |
| LX251 | warning | a node or link is well below the median bandwidth |
| LX252 | error   | a node reached the rendezvous port but did not join launchx's channel |
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from launchx import catalog, hostlist
from launchx.codes import Level
from launchx.doctor import GIB, MIN_SHM_BYTES
from launchx.errors import ConfigError
from launchx.facts import MEMLOCK_UNLIMITED
from launchx.findings import LEVELS, Finding, counted
from launchx.preflight.comm import CommReport
from launchx.preflight.report import (
    Absent,
    Flagged,
    Group,
    Report,
    Row,
    host_list,
    who,
)
from launchx.preflight.summary import IfaceState, NodeFacts
from launchx.spans import spans

# RDMA memory registration fails below this (NCCL's guide asks for unlimited).
MIN_MEMLOCK_BYTES = 4 * GIB
CLOCK_SKEW_S = 1.0
# Why a node is absent, as node 0 says it; the last two: it reached node 0's channel.
DID_NOT_JOIN = "did not join"
JOINED_SILENT = "joined but sent no facts"
UNREADABLE = "sent facts this launchx cannot read"  # then why, in parentheses
# One node's own finding that a rule here restates across nodes, with a stricter level,
# for the nodes that rule names: LX242 says LX221 again, LX236 says LX205 again.
_RESTATES = {"LX242": "LX221", "LX236": "LX205"}
_NAMED = 6


@dataclass(frozen=True)
class Seen:
    """What node 0 measured about the nodes, beyond their own summaries."""

    clock_offsets: Mapping[int, float] | None = None  # node -> seconds ahead of node 0
    unresolved: Collection[int] = ()  # nodes whose host name does not resolve at node 0
    refused: Collection[str] = ()  # addresses that connected to the channel but never joined
    # node -> launchx's channel ("addr:port", and why where known) that the node did not
    # join although it reached the rendezvous port
    unreached: Mapping[int, str] | None = None
    # absent nodes (node 0, seen by a node alone) whose rendezvous port answered with
    # something other than this run's launchx
    foreign: Collection[int] = ()


def split(values: Mapping[int, str]) -> tuple[Group, ...]:
    """Nodes grouped by value: the largest group first, ties to the lowest node."""
    by: dict[str, list[int]] = {}
    for node in sorted(values):
        by.setdefault(values[node], []).append(node)
    groups = [Group(value, tuple(nodes)) for value, nodes in by.items()]
    groups.sort(key=lambda g: (-len(g.nodes), g.nodes[0]))
    return tuple(groups)


def _rest(group: Group, hosts: Mapping[int, str]) -> str:
    if len(group.nodes) > _NAMED:
        return f"the {len(group.nodes)} others"
    return who(group.nodes, hosts)


def _differs(groups: Sequence[Group], hosts: Mapping[int, str], fmt: str = "{}") -> str:
    """``X on node 3 (h); Y on the 15 others``: the odd values first, each with its nodes."""
    odd = [f"{fmt.format(g.value)} on {who(g.nodes, hosts)}" for g in groups[1:6]]
    if len(groups) > 6:
        odd.append(f"{len(groups) - 6} more values")
    return "; ".join([*odd, f"{fmt.format(groups[0].value)} on {_rest(groups[0], hosts)}"])


def _flag(
    code: str, level: Level, var: str | None, message: str, fix: str, nodes: Collection[int]
) -> Flagged:
    return Flagged(Finding(code, level, var, message, fix), tuple(sorted(nodes)))


def _size(value: int | None) -> str:
    if value is None:
        return "unknown"
    if value == MEMLOCK_UNLIMITED:
        return "unlimited"
    for unit, scale in (("GiB", GIB), ("MiB", 2**20), ("KiB", 2**10)):
        if value >= scale:
            amount = value / scale
            return f"{amount:.0f} {unit}" if amount >= 10 else f"{amount:.1f} {unit}"
    return f"{value} B"


# --- the rows ------------------------------------------------------------------------------

_ROWS: tuple[tuple[str, Callable[[NodeFacts], str]], ...] = (
    ("launchx", lambda f: f.launchx),
    ("profile", lambda f: f.profile),
    ("torch", lambda f: f.torch or "not installed"),
    ("CUDA (torch build)", lambda f: (f.cuda or "none (CPU build)") if f.torch else "-"),
    ("NCCL", lambda f: f.nccl or "unknown (inside torch)"),
    ("driver", lambda f: f.driver or "none"),
    ("GPUs", lambda f: "unknown" if f.gpus is None else str(f.gpus)),
    ("processes/node", lambda f: str(f.nproc) if f.nproc_known else "unresolved"),
    ("backend", lambda f: f.backend),
    ("/dev/shm", lambda f: _size(f.shm_bytes)),
    ("memlock", lambda f: _size(f.memlock_bytes)),
)


def _rows(
    nodes: Sequence[NodeFacts], used: tuple[str, ...], clock: Mapping[int, float] | None
) -> list[Row]:
    rows = [Row(what, split({f.node: get(f) for f in nodes})) for what, get in _ROWS]
    if any(f.ib_ports for f in nodes) or used:
        rows.append(Row("RDMA ports used", split({f.node: _rdma_cell(f, used) for f in nodes})))
    for var in sorted({v for f in nodes for v in f.sockets}):
        cells = {f.node: _socket_cell(f, var) for f in nodes if var in f.sockets}
        rows.append(Row(var, split(cells)))
    if clock:
        rows.append(Row("clock vs node 0", split({n: _clock_cell(s) for n, s in clock.items()})))
    rows.append(Row("rendezvous port", split({f.node: f.rendezvous or "reached" for f in nodes})))
    return rows


def _clock_cell(offset: float) -> str:
    return "within 1 s" if abs(offset) <= CLOCK_SKEW_S else f"{offset:+.1f} s"


# --- RDMA ------------------------------------------------------------------------------


def _selected(f: NodeFacts) -> list[str]:
    """The ports this node's NCCL_IB_HCA selects (NCCL's list syntax, ports optional)."""
    if not f.hca_spec:
        return []
    wanted = catalog.parse_iflist(f.hca_spec)
    layers = ("InfiniBand", "Ethernet")
    return [
        p.name
        for p in f.ib_ports
        if p.link_layer in layers
        and wanted.selects(p.device, p.port)
        and (not wanted.exclude or p.active)
    ]


def _port_label(names: Sequence[str]) -> str:
    """``mlx5_0:1 mlx5_1:1 mlx5_2:1`` → ``mlx5_[0-2]:1`` (grouped by port number)."""
    by_port: dict[str, list[str]] = {}
    for name in names:
        device, _, port = name.rpartition(":")
        by_port.setdefault(port, []).append(device)
    parts = []
    for port, devices in by_port.items():
        try:
            text = hostlist.compress(devices)
        except ConfigError:
            text = ",".join(devices)
        parts.append(f"{text}:{port}")
    return " ".join(parts)


def _rdma_states(f: NodeFacts, used: Sequence[str]) -> dict[str, str]:
    ports = {p.name: p for p in f.ib_ports}
    out: dict[str, str] = {}
    for name in used:
        port = ports.get(name)
        if port is None:
            out[name] = "missing"
        elif port.active:
            out[name] = f"ACTIVE {port.rate}".strip()
        else:
            out[name] = port.shown
    return out


def _rdma_cell(f: NodeFacts, used: Sequence[str]) -> str:
    if not f.uses_rdma:
        return "not used (gloo)" if f.backend != "nccl" else "not used (IB off)"
    if not used:
        return "none"
    return _by_state(_rdma_states(f, used))


def _by_state(states: Mapping[str, str]) -> str:
    """``mlx5_[0-2,4-7]:1 ACTIVE ...; mlx5_3:1 DOWN/Disabled``: ports grouped by state."""
    by_state: dict[str, list[str]] = {}
    for name, state in states.items():
        by_state.setdefault(state, []).append(name)
    return "; ".join(f"{_port_label(names)} {state}" for state, names in by_state.items())


def _rdma_rules(
    nodes: Sequence[NodeFacts], used: tuple[str, ...], hosts: Mapping[int, str]
) -> list[Flagged]:
    rdma = [f for f in nodes if f.uses_rdma]
    if not used or not rdma:
        return []
    out: list[Flagged] = []
    states = {f.node: _rdma_states(f, used) for f in rdma}
    problems = {
        node: _by_state({n: s for n, s in st.items() if not s.startswith("ACTIVE")})
        for node, st in states.items()
    }
    good = [n for n, text in problems.items() if not text]
    for group in split({n: t for n, t in problems.items() if t}):
        fine = f"; all ACTIVE on {_rest(Group('', tuple(good)), hosts)}" if good else ""
        out.append(
            _flag(
                "LX238",
                "error",
                "NCCL_IB_HCA",
                f"RDMA ports the job uses ({_port_label(used)}) are not usable on "
                f"{who(group.nodes, hosts)}: {group.value}{fine}",
                "check those ports (ibstat; the cable, the subnet manager), or leave the "
                "node out of the job (SLURM: --exclude=HOST)",
                group.nodes,
            )
        )
    for name in used:
        rates = {
            n: st[name].removeprefix("ACTIVE").strip() or "?"
            for n, st in states.items()
            if st[name].startswith("ACTIVE")
        }
        groups = split(rates)
        if len(groups) > 1:
            out.append(
                _flag(
                    "LX239",
                    "warning",
                    "NCCL_IB_HCA",
                    f"{name} runs at {_differs(groups, hosts)}: the slowest port paces "
                    "every ring through it",
                    "check the cable and the switch port of the slower node (ibstat shows "
                    "the width and speed it trained to)",
                    [n for g in groups[1:] for n in g.nodes],
                )
            )
    return out


# --- socket interfaces --------------------------------------------------------------------


def _socket_state(f: NodeFacts, var: str) -> tuple[str, IfaceState | None]:
    wanted = catalog.parse_iflist(f.sockets[var])
    matched = [i for i in f.interfaces if wanted.selects(i.name)]
    if wanted.exclude:
        matched = [i for i in matched if i.kind != "loopback"]
    usable = [i for i in matched if i.usable]
    if usable:
        return "up " + ",".join(i.name for i in usable), usable[0]
    if matched:
        return "down or no address: " + ",".join(i.name for i in matched), None
    return "missing", None


def _socket_cell(f: NodeFacts, var: str) -> str:
    state, iface = _socket_state(f, var)
    speed = f" {iface.speed_mbps} Mb/s" if iface and iface.speed_mbps else ""
    return f"{f.sockets[var]}: {state}{speed}"


def _has(f: NodeFacts) -> str:
    names = [i.name for i in f.interfaces if i.usable and i.kind != "loopback"]
    return ", ".join(names) or "no interface up with an address"


def _socket_rules(nodes: Sequence[NodeFacts], hosts: Mapping[int, str]) -> list[Flagged]:
    out: list[Flagged] = []
    by_node = {f.node: f for f in nodes}
    for var in sorted({v for f in nodes for v in f.sockets}):
        states = {f.node: _socket_state(f, var) for f in nodes if var in f.sockets}
        broken = {n: f"{by_node[n].sockets[var]}: {s}" for n, (s, i) in states.items() if not i}
        good = tuple(n for n, (_s, i) in states.items() if i)
        for group in split(broken):
            first = by_node[group.nodes[0]]
            fine = f"; usable on {_rest(Group('', good), hosts)}" if good else ""
            out.append(
                _flag(
                    "LX240",
                    "error",
                    var,
                    f"{var}={group.value} on {who(group.nodes, hosts)} (node {first.node} has: "
                    f"{_has(first)}){fine}",
                    f"give every node an interface {var} selects, or set {var} to one that "
                    "exists on all of them (a list, or a ^exclusion)",
                    group.nodes,
                )
            )
        speeds = {n: f"{i.speed_mbps} Mb/s" for n, (_s, i) in states.items() if i and i.speed_mbps}
        groups = split(speeds)
        if len(groups) > 1:
            out.append(
                _flag(
                    "LX241",
                    "warning",
                    var,
                    f"the interface {var} selects runs at {_differs(groups, hosts)}",
                    "check the slower node's link (ethtool IFACE: Speed, cable, switch port)",
                    [n for g in groups[1:] for n in g.nodes],
                )
            )
    return out


# --- simple splits --------------------------------------------------------------------------


def _version_rules(nodes: Sequence[NodeFacts], hosts: Mapping[int, str]) -> list[Flagged]:
    rules: tuple[tuple[str, Level, str, str, Callable[[NodeFacts], str | None], str], ...] = (
        (
            "LX231",
            "error",
            "torch",
            "torch versions differ",
            lambda f: f.torch or "not installed",
            "install the same torch everywhere (one shared environment or image)",
        ),
        (
            "LX232",
            "error",
            "CUDA",
            "torch was built for different CUDA versions",
            lambda f: (f.cuda or "CPU only") if f.torch else None,
            "install the same torch build (the +cuXY suffix) on every node",
        ),
        (
            "LX233",
            "error",
            "NCCL",
            "NCCL versions differ (ranks fail to connect or hang)",
            lambda f: f.nccl,
            "install the same nvidia-nccl wheel on every node (pip show nvidia-nccl-cu12)",
        ),
        (
            "LX234",
            "warning",
            "driver",
            "NVIDIA driver versions differ (a partial upgrade?)",
            lambda f: f.driver or "none",
            "run one driver version on all nodes of a job",
        ),
    )
    out: list[Flagged] = []
    for code, level, var, what, get, fix in rules:
        values = {f.node: v for f in nodes if (v := get(f)) is not None}
        groups = split(values)
        if len(groups) > 1:
            odd = [n for g in groups[1:] for n in g.nodes]
            out.append(_flag(code, level, var, f"{what}: {_differs(groups, hosts)}", fix, odd))
    return out


def _gpu_rules(nodes: Sequence[NodeFacts], hosts: Mapping[int, str]) -> list[Flagged]:
    out: list[Flagged] = []
    gpus = split({f.node: str(f.gpus) for f in nodes if f.gpus is not None})
    if len(gpus) > 1:
        out.append(
            _flag(
                "LX235",
                "error",
                "gpus",
                f"GPU counts differ: {_differs(gpus, hosts, '{} GPUs')}",
                "check the odd node (nvidia-smi; a GPU fallen off the bus, an Xid, "
                "CUDA_VISIBLE_DEVICES) or leave it out of the job",
                [n for g in gpus[1:] for n in g.nodes],
            )
        )
    short = split(
        {
            f.node: f"{counted(f.gpus, 'GPU', 'GPUs')} for "
            f"{counted(f.nproc, 'process', 'processes')}"
            for f in nodes
            if f.backend == "nccl" and f.gpus is not None and f.nproc_known and f.gpus < f.nproc
        }
    )
    for group in short:
        out.append(
            _flag(
                "LX236",
                "error",
                "nproc_per_node",
                f"{group.value} on {who(group.nodes, hosts)}: ranks would share a GPU",
                "fix the node's GPUs or pass --nproc-per-node with what every node has",
                group.nodes,
            )
        )
    # (a node that could not work its count out says so itself: LX304)
    procs = split({f.node: str(f.nproc) for f in nodes if f.nproc_known})
    if len(procs) > 1 and len(gpus) <= 1:
        out.append(
            _flag(
                "LX237",
                "error",
                "nproc_per_node",
                f"processes per node differ: {_differs(procs, hosts)}",
                "give every node the same --nproc-per-node",
                [n for g in procs[1:] for n in g.nodes],
            )
        )
    return out


def _limit_rules(nodes: Sequence[NodeFacts], hosts: Mapping[int, str]) -> list[Flagged]:
    out: list[Flagged] = []
    # an error where NCCL runs several ranks on the node (its shared-memory transport and
    # proxy buffers live in /dev/shm); elsewhere only DataLoader workers may need it, and
    # the node's own warning (LX221) says so
    shm = {
        f.node: f.shm_bytes
        for f in nodes
        if f.shm_bytes is not None and f.backend == "nccl" and f.nproc_known and f.nproc > 1
    }
    small = split({n: _size(v) for n, v in shm.items() if v < MIN_SHM_BYTES})
    ok = tuple(n for n, v in shm.items() if v >= MIN_SHM_BYTES)
    for group in small:
        fine = f" ({_size(shm[ok[0]])} on node {ok[0]})" if ok else ""
        out.append(
            _flag(
                "LX242",
                "error",
                None,
                f"/dev/shm is {group.value} on {who(group.nodes, hosts)}, below "
                f"{_size(MIN_SHM_BYTES)}{fine}: NCCL's shared-memory transport and "
                "DataLoader workers fail ('Bus error', NCCL shm errors)",
                "give those containers more (docker --shm-size=16g or --ipc=host; on "
                "Kubernetes an emptyDir with medium: Memory at /dev/shm)",
                group.nodes,
            )
        )
    low = {
        f.node: _size(f.memlock_bytes)
        for f in nodes
        if f.uses_rdma
        and f.memlock_bytes is not None
        and f.memlock_bytes != MEMLOCK_UNLIMITED
        and f.memlock_bytes < MIN_MEMLOCK_BYTES
    }
    for group in split(low):
        out.append(
            _flag(
                "LX243",
                "error",
                None,
                f"the locked-memory limit is {group.value} on {who(group.nodes, hosts)}, "
                "which use RDMA: NCCL's memory registration fails (ibv_reg_mr)",
                "raise it to unlimited: ulimit -l unlimited (limits.conf memlock, "
                "docker --ulimit memlock=-1, slurmd's LimitMEMLOCK=infinity)",
                group.nodes,
            )
        )
    return out


def _seen_rules(nodes: Sequence[NodeFacts], seen: Seen, hosts: Mapping[int, str]) -> list[Flagged]:
    out: list[Flagged] = []
    skewed = {n: s for n, s in (seen.clock_offsets or {}).items() if abs(s) > CLOCK_SKEW_S}
    if skewed:
        worst = max(skewed.values(), key=abs)
        parts = [
            f"{who([n], hosts)} {abs(s):.1f} s {'ahead' if s > 0 else 'behind'}"
            for n, s in sorted(skewed.items())[:_NAMED]
        ]
        more = (
            f" and {len(skewed) - _NAMED} more (up to {abs(worst):.1f} s)"
            if len(skewed) > _NAMED
            else ""
        )
        out.append(
            _flag(
                "LX244",
                "warning",
                None,
                "clocks differ from node 0's by more than a second: "
                + ", ".join(parts)
                + more
                + "; the nodes' logs cannot be put in order by time",
                "synchronise the clocks (chronyc tracking / timedatectl; NTP on every node)",
                skewed,
            )
        )
    if seen.unresolved:
        unresolved = sorted(seen.unresolved)
        out.append(
            _flag(
                "LX245",
                "warning",
                None,
                f"the host names of {who(unresolved, hosts)} do not resolve at node 0 "
                "(gloo and NCCL fall back to addresses; logs and tools name hosts)",
                "add them to DNS or /etc/hosts on every node",
                unresolved,
            )
        )
    names = split({f.node: f.host for f in nodes})
    for group in names:
        if len(group.nodes) > 1:
            out.append(
                _flag(
                    "LX246",
                    "warning",
                    None,
                    f"{len(group.nodes)} nodes report the host name {group.value!r} "
                    f"(nodes {spans(group.nodes)}): two node ranks on one machine, or "
                    "cloned machines with one name",
                    "start one launchx per node (srun --ntasks-per-node=1) and give each "
                    "machine its own host name",
                    group.nodes,
                )
            )
    return out


def _reach_rules(
    nodes: Sequence[NodeFacts], ports: _Ports, hosts: Mapping[int, str]
) -> list[Flagged]:
    out: list[Flagged] = []
    for group in split({f.node: f.rendezvous for f in nodes if f.rendezvous}):
        node0 = group.nodes == (0,)
        they = "it" if len(group.nodes) == 1 else "they"
        joined = (
            f" ({they} joined launchx's channel on port {ports.channel})" if ports.channel else ""
        )
        what = (
            f"node 0 cannot listen on its rendezvous port ({group.value})"
            if node0
            else f"{who(group.nodes, hosts)} cannot reach the rendezvous port {ports.master}: "
            f"{group.value}{joined}"
        )
        out.append(
            _flag(
                "LX247",
                "error",
                "MASTER_PORT",
                what,
                "free the port on node 0 or pick another with --master-port"
                if node0
                else "open the port between the nodes (firewall, security group) and check "
                "that the master address is node 0's and routable from them",
                group.nodes,
            )
        )
    return out


@dataclass(frozen=True)
class _Ports:
    """Node 0's two ports as the other nodes are told them."""

    master: str  # "addr:port" of the rendezvous
    addr: str
    rendezvous: str
    channel: str  # launchx's channel's port; "" where not known

    @staticmethod
    def of(master: str, channel_port: int | None) -> _Ports:
        addr, _, port = master.rpartition(":")
        return _Ports(master, addr, port, str(channel_port) if channel_port else "")


def _absent_rules(
    absent: Sequence[Absent],
    seen: Seen,
    ports: _Ports,
    join_timeout_s: float,
    names: Mapping[int, str],
    command: str,
) -> list[Flagged]:
    """LX230 for the nodes that did not come; LX252 for those that reached the rendezvous
    port but did not join the channel (from node 0: they knocked; from a node alone: its
    own try, when this run's node 0 answered there), naming the port to open. The ports
    advice goes only to nodes that did not reach node 0; a node 0 whose rendezvous port
    answered with something else (``seen.foreign``) is named as such."""
    out: list[Flagged] = []
    unreached = dict(seen.unreached or {})
    within = f" within {join_timeout_s:g} s" if join_timeout_s else ""
    knocked = ""
    if seen.refused:
        knocked = (
            f"; {host_list(sorted(seen.refused))} connected but did not join (started with "
            "other options, another node rank or another LAUNCHX_CHANNEL_TOKEN?)"
        )
    addr, rport, cport = ports.addr, ports.rendezvous, ports.channel
    listened = (
        f" (node 0 listened on {addr}, port {cport} for launchx's channel and {rport} for "
        "the rendezvous)"
        if cport
        else ""
    )
    open_them = (
        f"check that TCP ports {rport} and {cport} on {addr} are open from every node "
        f"(nc -zv {addr} {cport}; a firewall, a security group)"
        if cport
        else f"check that they reach {ports.master} and the port above it"
    )
    late = {a.node: a.why for a in absent if a.node not in unreached}
    for group in split(late):
        waited = group.value == DID_NOT_JOIN
        fix = f"start {command} on every node with the same options"
        if any(n in seen.foreign for n in group.nodes):
            fix += (
                f"; something else listens on {ports.master} (another job's rendezvous?): "
                "stop it, or pick another --master-port on every node"
            )
        elif not _reached_node_0(group.value):
            fix += f"; {open_them}"
        out.append(
            _flag(
                "LX230",
                "error",
                None,
                f"{who(group.nodes, names)} {group.value}"
                + (f"{within}{knocked}{listened}" if waited else ""),
                fix,
                group.nodes,
            )
        )
    cport = cport or "MASTER_PORT+1"
    for group in split(unreached):
        out.append(
            _flag(
                "LX252",
                "error",
                "MASTER_PORT",
                f"{who(group.nodes, names)} reached the rendezvous port {ports.master} but "
                f"did not join launchx's channel at {group.value}{within}",
                f"open TCP port {cport} on {addr} to every node, as {rport} is: a firewall or "
                "security group that lets only the rendezvous port through stops launchx's "
                f"channel (it listens on {cport}, beside --master-port); if the port is open, "
                "start every node with the same options and LAUNCHX_CHANNEL_TOKEN",
                group.nodes,
            )
        )
    return out


def _reached_node_0(why: str) -> bool:
    """Whether a node absent for ``why`` reached node 0's channel (it joined, but its facts
    did not come): then the ports between them are not the problem."""
    return why == JOINED_SILENT or why.startswith(UNREADABLE)


def _env_rules(nodes: Sequence[NodeFacts], hosts: Mapping[int, str]) -> list[Flagged]:
    out: list[Flagged] = []
    names = sorted({name for f in nodes for name in f.env})
    for name in names:
        # quoted where the edges are the difference ('INFO ' against INFO, or '')
        groups = split(
            {f.node: catalog.legible(f.env[name]) if name in f.env else "(unset)" for f in nodes}
        )
        if len(groups) > 1:
            out.append(
                _flag(
                    "LX248",
                    "warning",
                    name,
                    f"{name} differs between nodes: {_differs(groups, hosts)}",
                    "give every node the same environment (a variable inherited from one "
                    "node's shell or .bashrc?)",
                    [n for g in groups[1:] for n in g.nodes],
                )
            )
    for what, get in (("profile", "profile"), ("launchx version", "launchx")):
        groups = split({f.node: str(getattr(f, get)) for f in nodes})
        if len(groups) > 1:
            out.append(
                _flag(
                    "LX249",
                    "warning",
                    None,
                    f"nodes run another {what}: {_differs(groups, hosts)}",
                    "start every node with the same launchx and the same options",
                    [n for g in groups[1:] for n in g.nodes],
                )
            )
    return out


def _own_findings(
    nodes: Sequence[NodeFacts], restated: Collection[tuple[int, str]]
) -> list[Flagged]:
    """Each node's own doctor findings, nodes with the same finding collapsed into one
    (leaving out, node by node, those a rule across nodes says again)."""
    by: dict[tuple[str, Level, str | None, str, str], list[int]] = {}
    for f in nodes:
        for w in f.findings:
            if (f.node, w.code) in restated:
                continue
            by.setdefault((w.code, w.level, w.var, w.message, w.fix), []).append(f.node)
    return [
        Flagged(Finding(code, level, var, message, fix), tuple(sorted(set(ns))), "node")
        for (code, level, var, message, fix), ns in by.items()
    ]


def _comm_rules(comm: CommReport | None, hosts: Mapping[int, str]) -> list[Flagged]:
    if comm is None:
        return []
    out: list[Flagged] = []
    if comm.error:
        where = "; ".join(f"node {n}: {text}" for n, text in comm.failures[:_NAMED])
        out.append(
            _flag(
                "LX250",
                "error",
                None,
                f"the {comm.backend} link test failed: {comm.error}"
                + (f" ({where})" if where else ""),
                "the job's collectives would fail the same way: fix the first error above "
                "(NCCL_DEBUG=INFO shows NCCL's view), or run with --no-comm to check facts only",
                [n for n, _t in comm.failures] or comm.nodes,
            )
        )
    median = comm.median_gbs
    if comm.slow_nodes and median:
        out.append(
            _flag(
                "LX251",
                "warning",
                None,
                f"{who(comm.slow_nodes, hosts)}: most of the pairwise tests with "
                f"{'it' if len(comm.slow_nodes) == 1 else 'them'} ran below "
                f"half the median ({median:.2f} GB/s)",
                "check that node's network (link speed, errors: ibstat / ethtool -S) or "
                "leave it out; every collective runs at the pace of its slowest link",
                comm.slow_nodes,
            )
        )
    for pair in comm.slow_pairs[:_NAMED]:
        out.append(
            _flag(
                "LX251",
                "warning",
                None,
                f"the link between {who([pair.a], hosts)} and {who([pair.b], hosts)} ran at "
                f"{pair.gbs:.2f} GB/s, below half the median ({median or 0:.2f} GB/s)",
                "check the path between them (switch ports, cables, congestion)",
                (pair.a, pair.b),
            )
        )
    return out


def compare(
    nodes: Sequence[NodeFacts],
    *,
    expected: int,
    master: str,
    profile: str,
    absent: Sequence[Absent] = (),
    seen: Seen | None = None,
    comm: CommReport | None = None,
    comm_note: str = "",
    join_timeout_s: float = 0.0,
    hosts: Mapping[int, str] | None = None,
    channel_port: int | None = None,
    command: str = "launchx doctor",
) -> Report:
    """The report for the nodes that came (``absent``: those that did not). ``channel_port``:
    where node 0 listens for launchx's channel, named in what blocks a node from joining;
    ``command``: what every node runs (``launchx doctor`` or ``launchx run --preflight``)."""
    seen = seen or Seen()
    names = dict(hosts or {})
    names.update({a.node: a.host for a in absent if a.host and a.node not in names})
    names.update({f.node: f.host for f in nodes})
    ordered = sorted(nodes, key=lambda f: f.node)
    used = tuple(sorted({p for f in ordered if f.uses_rdma for p in _selected(f)}, key=_natural))
    ports = _Ports.of(master, channel_port)
    flagged = _absent_rules(absent, seen, ports, join_timeout_s, names, command)
    across = expected > 1  # one node alone: its own checks, exactly as `doctor` prints them
    if across:
        flagged += _version_rules(ordered, names)
        flagged += _gpu_rules(ordered, names)
        flagged += _rdma_rules(ordered, used, names)
        flagged += _socket_rules(ordered, names)
        flagged += _limit_rules(ordered, names)
        if not any(a.node == 0 for a in absent):  # (else LX230 says it, port and all)
            flagged += _reach_rules(ordered, ports, names)
        flagged += _seen_rules(ordered, seen, names)
        flagged += _env_rules(ordered, names)
    flagged += _comm_rules(comm, names)
    restated = {
        (n, _RESTATES[f.finding.code])
        for f in flagged
        if f.finding.code in _RESTATES
        for n in f.nodes
    }
    flagged += _own_findings(ordered, restated)
    flagged.sort(key=lambda f: (LEVELS.index(f.finding.level), f.scope != "cluster"))
    return Report(
        profile=profile,
        master=master,
        expected=expected,
        joined=tuple(f.node for f in ordered),
        hosts=names,
        absent=tuple(sorted(absent, key=lambda a: a.node)),
        rows=tuple(_rows(ordered, used, seen.clock_offsets)),
        findings=tuple(flagged),
        comm=comm,
        comm_note=comm_note,
        join_timeout_s=join_timeout_s,
    )


def _natural(name: str) -> tuple[object, ...]:
    import re

    return tuple(int(p) if p.isdigit() else p for p in re.split(r"([0-9]+)", name))
