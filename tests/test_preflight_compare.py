"""The comparison across nodes, on node summaries built in code: every rule of
``launchx.preflight.compare`` (LX230-LX252), the grouping, and the two renderings."""

from __future__ import annotations

import json
from typing import Any

import pytest

from launchx.facts import MEMLOCK_UNLIMITED
from launchx.preflight import compare, report
from launchx.preflight.comm import CommReport, PairPoint, SweepPoint
from launchx.preflight.compare import Seen, split
from launchx.preflight.report import Absent, Group, who
from launchx.preflight.summary import IfaceState, NodeFacts, PortState, WireFinding
from launchx.spans import spans

GIB = 1 << 30
NDR = "400 Gb/sec (4X NDR)"
HCA = "=" + ",".join(f"mlx5_{i}:1" for i in range(8))


def port(i: int, state: str = "ACTIVE", phys: str = "LinkUp", rate: str = NDR) -> PortState:
    return PortState(
        device=f"mlx5_{i}",
        port=1,
        state=state,
        phys_state=phys,
        link_layer="InfiniBand",
        rate=rate,
    )


def node(n: int, **over: Any) -> NodeFacts:
    """A healthy H800 node; ``over`` replaces fields."""
    fields: dict[str, Any] = {
        "node": n,
        "host": f"gpu-{n:03d}",
        "launchx": "0.1.0",
        "profile": "ib-h800",
        "torch": "2.3.1",
        "cuda": "12.1",
        "nccl": "2.20.5",
        "driver": "535.104.05",
        "gpus": 8,
        "nproc": 8,
        "backend": "nccl",
        "hca_spec": HCA,
        "ib_ports": tuple(port(i) for i in range(8)),
        "sockets": {"NCCL_SOCKET_IFNAME": "=bond0"},
        "interfaces": (
            IfaceState(name="bond0", up=True, has_address=True, speed_mbps=200000),
            IfaceState(name="lo", up=True, has_address=True, kind="loopback"),
        ),
        "shm_bytes": 64 * GIB,
        "memlock_bytes": MEMLOCK_UNLIMITED,
        "env": {"NCCL_IB_TIMEOUT": "22", "NCCL_DEBUG": "WARN"},
    }
    fields.update(over)
    return NodeFacts(**fields)


def run(nodes: list[NodeFacts], **kw: Any) -> report.Report:
    kw.setdefault("expected", len(nodes) + len(kw.get("absent", ())))
    kw.setdefault("master", "10.0.0.1:29500")
    kw.setdefault("profile", "ib-h800")
    return compare.compare(nodes, **kw)


def codes(rep: report.Report) -> list[str]:
    return [f.finding.code for f in rep.findings]


def only(rep: report.Report, code: str) -> report.Flagged:
    found = [f for f in rep.findings if f.finding.code == code]
    assert len(found) == 1, [f.finding for f in rep.findings]
    return found[0]


CLUSTER = [node(n) for n in range(16)]


def test_identical_nodes_have_no_findings_and_every_row_agrees() -> None:
    rep = run(CLUSTER)
    assert rep.findings == () and rep.exit_code == 0
    assert all(row.agrees for row in rep.rows)
    assert rep.joined == tuple(range(16))
    text = report.render_text(rep)
    assert "no problems found (exit 0)" in text and "all 16" in text and "!" not in text


# --------------------------------------------------------------------------- one rule each


def test_lx230_names_who_knocked_without_joining() -> None:
    rep = run(
        CLUSTER[:1],
        expected=2,
        absent=[Absent(1, None, "joined but sent no facts")],
        seen=Seen(refused=["10.0.0.9"]),
    )
    # only a node that never joined can be the one knocking
    assert only(rep, "LX230").finding.message == "node 1 joined but sent no facts"
    rep = run(
        CLUSTER[:1],
        expected=2,
        absent=[Absent(1, None, "did not join")],
        seen=Seen(refused=["10.0.0.9"]),
        join_timeout_s=5,
    )
    assert only(rep, "LX230").finding.message.startswith(
        "node 1 did not join within 5 s; 10.0.0.9 connected but did not join (started with"
    )


def test_lx230_absent_nodes_are_named_with_their_host() -> None:
    rep = run(
        CLUSTER[:2],
        expected=4,
        absent=[Absent(2, "gpu-002", "did not join"), Absent(3, None, "did not join")],
        join_timeout_s=60,
    )
    f = only(rep, "LX230")
    assert f.finding.level == "error" and f.nodes == (2, 3)
    assert "nodes 2 (gpu-002), 3 did not join within 60 s" in f.finding.message
    assert rep.exit_code == 2
    assert "node 2 (gpu-002): did not join" in report.render_text(rep)


def test_lx230_names_the_ports_node_0_listened_on() -> None:
    rep = run(
        CLUSTER[:2],
        expected=3,
        absent=[Absent(2, None, "did not join")],
        join_timeout_s=60,
        channel_port=29501,
    )
    f = only(rep, "LX230").finding
    assert f.message == (
        "node 2 did not join within 60 s (node 0 listened on 10.0.0.1, port 29501 for "
        "launchx's channel and 29500 for the rendezvous)"
    )
    assert "TCP ports 29500 and 29501 on 10.0.0.1 are open from every node" in f.fix
    assert "nc -zv 10.0.0.1 29501" in f.fix


@pytest.mark.parametrize(
    "why", ["joined but sent no facts", "sent facts this launchx cannot read (format: x)"]
)
def test_lx230_a_node_that_reached_node_0_gets_no_ports_advice(why: str) -> None:
    rep = run(CLUSTER[:2], expected=3, absent=[Absent(2, None, why)], channel_port=29501)
    f = only(rep, "LX230").finding
    assert f.message == f"node 2 {why}"
    assert f.fix == "start launchx doctor on every node with the same options"
    # under `launchx run --preflight` the fix names the command the nodes actually run
    rep = run(
        CLUSTER[:2],
        expected=3,
        absent=[Absent(2, None, why)],
        channel_port=29501,
        command="launchx run --preflight",
    )
    assert only(rep, "LX230").finding.fix.startswith("start launchx run --preflight on every")


def test_lx230_a_stranger_on_node_0s_rendezvous_port() -> None:
    """A node alone whose node 0's rendezvous port answered, but not with this run's node 0:
    no LX252, and the fix names what holds the port rather than a firewall."""
    why = "did not answer at 10.0.0.1:29501 within 5 s (x); something else answers ..."
    rep = run(
        [node(1)],
        expected=2,
        absent=[Absent(0, "10.0.0.1", why)],
        seen=Seen(foreign=(0,)),
        channel_port=29501,
    )
    assert codes(rep) == ["LX230"]
    f = only(rep, "LX230").finding
    assert "something else listens on 10.0.0.1:29500" in f.fix and "nc -zv" not in f.fix


def test_lx252_a_node_that_reached_only_the_rendezvous_port() -> None:
    """Node 0's view: node 2 knocked on the rendezvous port but never joined the channel
    (its LX230 gives way to LX252); node 3 did neither (LX230)."""
    rep = run(
        CLUSTER[:2],
        expected=4,
        absent=[Absent(2, "gpu-002", "did not join"), Absent(3, None, "did not join")],
        seen=Seen(unreached={2: "10.0.0.1:29501"}),
        join_timeout_s=60,
        channel_port=29501,
    )
    assert sorted(codes(rep)) == ["LX230", "LX252"]
    assert only(rep, "LX230").nodes == (3,)
    f = only(rep, "LX252")
    assert f.nodes == (2,) and f.finding.level == "error" and rep.exit_code == 2
    assert f.finding.message == (
        "node 2 (gpu-002) reached the rendezvous port 10.0.0.1:29500 but did not join "
        "launchx's channel at 10.0.0.1:29501 within 60 s"
    )
    assert f.finding.fix.startswith("open TCP port 29501 on 10.0.0.1 to every node, as 29500 is")
    text = report.render_text(rep)
    assert "LX252 MASTER_PORT: node 2 (gpu-002) reached the rendezvous port" in text
    assert "node 2 (gpu-002): did not join" in text  # still listed among the absent


def test_lx252_on_a_node_alone_with_its_own_error() -> None:
    """A node's own view when it reached node 0's rendezvous port but not its channel."""
    rep = run(
        [node(1)],
        expected=2,
        absent=[Absent(0, "10.0.0.1", "did not answer at 10.0.0.1:29501 within 5 s (x)")],
        seen=Seen(unreached={1: "10.0.0.1:29501 (No route to host)"}),
        channel_port=29501,
    )
    assert sorted(codes(rep)) == ["LX230", "LX252"]
    assert only(rep, "LX230").nodes == (0,)
    assert only(rep, "LX252").finding.message == (
        "node 1 (gpu-001) reached the rendezvous port 10.0.0.1:29500 but did not join "
        "launchx's channel at 10.0.0.1:29501 (No route to host)"
    )


@pytest.mark.parametrize(
    ("code", "field", "odd", "level", "words"),
    [
        ("LX231", "torch", "2.4.0", "error", "2.4.0 on node 5 (gpu-005); 2.3.1 on the 15 others"),
        ("LX232", "cuda", "11.8", "error", "11.8 on node 5 (gpu-005); 12.1 on the 15 others"),
        ("LX232", "cuda", None, "error", "CPU only on node 5"),
        ("LX233", "nccl", "2.21.5", "error", "2.21.5 on node 5 (gpu-005); 2.20.5 on the 15"),
        ("LX234", "driver", "550.54.15", "warning", "550.54.15 on node 5 (gpu-005); 535.104.05"),
        ("LX234", "driver", None, "warning", "none on node 5"),
    ],
)
def test_versions_that_differ_name_the_node_and_both_values(
    code: str, field: str, odd: str | None, level: str, words: str
) -> None:
    nodes = [node(n, **({field: odd} if n == 5 else {})) for n in range(16)]
    f = only(run(nodes), code)
    assert f.finding.level == level and f.nodes == (5,)
    assert words in f.finding.message


def test_an_unknown_nccl_version_is_not_a_difference() -> None:
    nodes = [node(n, **({"nccl": None} if n == 5 else {})) for n in range(16)]
    assert "LX233" not in codes(run(nodes))


def test_lx235_gpu_counts_differ() -> None:
    nodes = [node(n, **({"gpus": 7, "nproc": 7} if n == 3 else {})) for n in range(4)]
    rep = run(nodes)
    f = only(rep, "LX235")
    assert "7 GPUs on node 3 (gpu-003); 8 GPUs on nodes 0 (gpu-000), 1 (gpu-001), 2" in (
        f.finding.message
    )
    assert "LX237" not in codes(rep)  # the process count follows the GPUs: one cause


def test_lx236_fewer_gpus_than_processes() -> None:
    nodes = [node(n, **({"gpus": 7} if n == 3 else {})) for n in range(4)]
    f = only(run(nodes), "LX236")
    assert f.nodes == (3,) and "7 GPUs for 8 processes on node 3 (gpu-003)" in f.finding.message


def test_lx237_processes_differ_while_gpus_agree() -> None:
    nodes = [node(n, **({"nproc": 4} if n == 1 else {})) for n in range(3)]
    f = only(run(nodes), "LX237")
    assert "4 on node 1 (gpu-001)" in f.finding.message


def test_lx238_a_port_down_on_one_node() -> None:
    ports = tuple(port(i, "DOWN", "Disabled") if i == 3 else port(i) for i in range(8))
    auto = "=" + ",".join(f"mlx5_{i}:1" for i in range(8) if i != 3)  # auto leaves it out
    nodes = [node(n, **({"ib_ports": ports, "hca_spec": auto} if n == 2 else {})) for n in range(4)]
    rep = run(nodes)
    f = only(rep, "LX238")
    assert f.nodes == (2,)
    assert "not usable on node 2 (gpu-002): mlx5_3:1 DOWN/Disabled" in f.finding.message
    assert "all ACTIVE on nodes 0 (gpu-000), 1 (gpu-001), 3 (gpu-003)" in f.finding.message
    row = next(r for r in rep.rows if r.what == "RDMA ports used")
    assert row.groups[1] == Group(
        "mlx5_[0-2,4-7]:1 ACTIVE " + NDR + "; mlx5_3:1 DOWN/Disabled", (2,)
    )


def test_lx238_a_node_without_rdma_devices_lacks_every_port() -> None:
    nodes = [node(n, **({"ib_ports": (), "hca_spec": None} if n == 1 else {})) for n in range(3)]
    f = only(run(nodes), "LX238")
    assert "mlx5_[0-7]:1 missing" in f.finding.message and f.nodes == (1,)


def test_lx238_is_silent_when_the_job_does_not_use_rdma() -> None:
    ports = tuple(port(i, "DOWN", "Disabled") for i in range(8))
    nodes = [node(n, ib_off=True, **({"ib_ports": ports} if n == 1 else {})) for n in range(3)]
    assert "LX238" not in codes(run(nodes))


def test_lx239_a_port_trained_to_a_lower_rate() -> None:
    ports = tuple(port(i, rate="100 Gb/sec (4X EDR)") if i == 6 else port(i) for i in range(8))
    nodes = [node(n, **({"ib_ports": ports} if n == 9 else {})) for n in range(12)]
    f = only(run(nodes), "LX239")
    assert f.finding.level == "warning" and f.nodes == (9,)
    assert "mlx5_6:1 runs at 100 Gb/sec (4X EDR) on node 9 (gpu-009); 400 Gb/sec" in (
        f.finding.message
    )


def test_lx240_the_socket_interface_is_missing_or_down() -> None:
    missing = (IfaceState(name="ib0", up=True, has_address=True),)
    down = (IfaceState(name="bond0", up=False, has_address=True),)
    nodes = [
        node(n, **({"interfaces": missing} if n == 1 else {"interfaces": down} if n == 2 else {}))
        for n in range(4)
    ]
    found = [f for f in run(nodes).findings if f.finding.code == "LX240"]
    text = {f.nodes: f.finding.message for f in found}
    assert "NCCL_SOCKET_IFNAME==bond0: missing on node 1 (gpu-001) (node 1 has: ib0)" in text[(1,)]
    assert "down or no address: bond0 on node 2 (gpu-002)" in text[(2,)]
    assert "usable on nodes 0 (gpu-000), 3 (gpu-003)" in text[(1,)]


def test_lx240_an_exclusion_list_needs_some_other_interface() -> None:
    only_lo = (IfaceState(name="lo", up=True, has_address=True, kind="loopback"),)
    nodes = [
        node(n, sockets={"GLOO_SOCKET_IFNAME": "^docker"}, **({"interfaces": only_lo} if n else {}))
        for n in range(2)
    ]
    f = only(run(nodes), "LX240")
    assert f.finding.var == "GLOO_SOCKET_IFNAME" and f.nodes == (1,)


def test_lx241_the_socket_interface_runs_slower_on_one_node() -> None:
    slow = (IfaceState(name="bond0", up=True, has_address=True, speed_mbps=50000),)
    nodes = [node(n, **({"interfaces": slow} if n == 7 else {})) for n in range(8)]
    f = only(run(nodes), "LX241")
    assert "50000 Mb/s on node 7 (gpu-007); 200000 Mb/s on the 7 others" in f.finding.message


def test_lx242_small_shm() -> None:
    nodes = [node(n, **({"shm_bytes": 64 << 20} if n == 2 else {})) for n in range(3)]
    rep = run(nodes)
    f = only(rep, "LX242")
    assert f.finding.level == "error"
    assert "/dev/shm is 64 MiB on node 2 (gpu-002), below 1.0 GiB (64 GiB on node 0)" in (
        f.finding.message
    )


def test_lx242_restates_the_nodes_own_shm_warning_once() -> None:
    own = WireFinding(code="LX221", level="warning", var=None, message="small", fix="x")
    nodes = [
        node(n, **({"shm_bytes": 64 << 20, "findings": (own,)} if n else {})) for n in range(2)
    ]
    assert codes(run(nodes)) == ["LX242"]


def test_lx243_memlock_matters_only_where_rdma_is_used() -> None:
    nodes = [node(n, **({"memlock_bytes": 8 << 20} if n == 1 else {})) for n in range(3)]
    f = only(run(nodes), "LX243")
    assert "8.0 MiB on node 1 (gpu-001)" in f.finding.message
    gloo = [node(n, backend="gloo", memlock_bytes=8 << 20) for n in range(3)]
    assert "LX243" not in codes(run(gloo))
    big = [node(n, memlock_bytes=64 * GIB) for n in range(3)]
    assert "LX243" not in codes(run(big))


def test_lx244_clocks_more_than_a_second_apart() -> None:
    rep = run(CLUSTER[:4], seen=Seen(clock_offsets={0: 0.0, 1: 0.4, 2: -3.25, 3: 12.0}))
    f = only(rep, "LX244")
    assert f.nodes == (2, 3)
    assert "node 2 (gpu-002) 3.2 s behind, node 3 (gpu-003) 12.0 s ahead" in f.finding.message
    row = next(r for r in rep.rows if r.what == "clock vs node 0")
    assert row.groups[0] == Group("within 1 s", (0, 1))


def test_lx245_names_that_do_not_resolve_at_node_0() -> None:
    f = only(run(CLUSTER[:4], seen=Seen(unresolved=[3])), "LX245")
    assert f.nodes == (3,) and "node 3 (gpu-003)" in f.finding.message


def test_lx246_two_ranks_on_one_host() -> None:
    nodes = [node(n, **({"host": "gpu-000"} if n == 1 else {})) for n in range(3)]
    f = only(run(nodes), "LX246")
    assert f.nodes == (0, 1) and "'gpu-000' (nodes 0-1)" in f.finding.message


def test_lx247_rendezvous_port_unreachable_and_node_0_cannot_listen() -> None:
    nodes = [
        node(0, rendezvous="port 29500: Address already in use"),
        *(node(n, rendezvous="Connection timed out" if n in (3, 4) else None) for n in range(1, 6)),
    ]
    found = {f.nodes: f.finding.message for f in run(nodes).findings if f.finding.code == "LX247"}
    assert "node 0 cannot listen on its rendezvous port (port 29500" in found[(0,)]
    assert (
        "nodes 3 (gpu-003), 4 (gpu-004) cannot reach the rendezvous port 10.0.0.1:29500: "
        "Connection timed out" in found[(3, 4)]
    )
    # where node 0's channel port is known, it is named: those nodes reached it
    found = {
        f.nodes: f.finding.message
        for f in run(nodes, channel_port=29501).findings
        if f.finding.code == "LX247"
    }
    assert found[(3, 4)].endswith(
        "Connection timed out (they joined launchx's channel on port 29501)"
    )


def test_lx248_an_inherited_variable_on_one_node() -> None:
    env = {"NCCL_IB_TIMEOUT": "22", "NCCL_DEBUG": "WARN", "NCCL_IB_DISABLE": "1"}
    nodes = [node(n, **({"env": env} if n == 4 else {})) for n in range(10)]
    f = only(run(nodes), "LX248")
    assert f.finding.var == "NCCL_IB_DISABLE"
    assert "1 on node 4 (gpu-004); (unset) on the 9 others" in f.finding.message
    # a value whose only difference is a space at its end is shown quoted
    spaced = {"NCCL_IB_TIMEOUT": "22", "NCCL_DEBUG": "WARN "}
    nodes = [node(n, **({"env": spaced} if n == 2 else {})) for n in range(3)]
    f = only(run(nodes), "LX248")
    assert (
        "'WARN ' on node 2 (gpu-002); WARN on nodes 0 (gpu-000), 1 (gpu-001)" in f.finding.message
    )


def test_lx249_another_profile_or_launchx() -> None:
    nodes = [
        node(n, **({"profile": "ethernet", "launchx": "0.0.9"} if n == 1 else {})) for n in range(3)
    ]
    found = [f.finding.message for f in run(nodes).findings if f.finding.code == "LX249"]
    assert len(found) == 2 and any("ethernet on node 1" in m for m in found)


def comm_report(**over: Any) -> CommReport:
    fields: dict[str, Any] = {"backend": "nccl", "ranks": 32, "nodes": (0, 1, 2, 3)}
    fields.update(over)
    return CommReport(**fields)


def test_lx250_the_link_test_failed_with_each_nodes_reason() -> None:
    comm = comm_report(error="a rank failed", failures=((2, "rank 16 exited 1: NCCL error"),))
    f = only(run(CLUSTER[:4], comm=comm), "LX250")
    assert f.nodes == (2,) and "node 2: rank 16 exited 1: NCCL error" in f.finding.message
    assert "failed (a rank failed)" in report.render_text(run(CLUSTER[:4], comm=comm))


def test_lx251_a_slow_node_and_a_slow_link() -> None:
    comm = comm_report(
        median_gbs=40.0,
        slow_nodes=(3,),
        slow_pairs=(PairPoint(0, 4, 5, 9.0),),
        pairs=(PairPoint(0, 4, 5, 9.0), PairPoint(0, 0, 1, 40.0)),
    )
    found = [f for f in run(CLUSTER[:6], comm=comm).findings if f.finding.code == "LX251"]
    assert [f.nodes for f in found] == [(3,), (4, 5)]
    assert "node 3 (gpu-003): most of the pairwise tests" in found[0].finding.message
    assert (
        "between node 4 (gpu-004) and node 5 (gpu-005) ran at 9.00 GB/s" in found[1].finding.message
    )


def test_each_nodes_own_findings_collapse_into_one_line() -> None:
    held = WireFinding(code="LX225", level="warning", var="MASTER_PORT", message="held", fix="f")
    nodes = [node(n, findings=(held,) if n % 2 else ()) for n in range(40)]
    rep = run(nodes)
    f = only(rep, "LX225")
    assert f.scope == "node" and f.nodes == tuple(range(1, 40, 2))
    assert "[20 nodes 1,3,5," in report.render_text(rep)


def test_rule_codes_are_documented_in_the_module_table() -> None:
    doc = compare.__doc__ or ""
    for number in range(230, 252):
        assert f"| LX{number} |" in doc


# --------------------------------------------------------------------------- grouping and output


def test_split_puts_the_largest_group_first_and_ties_to_node_0() -> None:
    assert split({0: "a", 1: "b"}) == (Group("a", (0,)), Group("b", (1,)))
    assert split({1: "b", 0: "a", 2: "b"})[0] == Group("b", (1, 2))


def test_ranges_and_who() -> None:
    assert spans([7, 0, 1, 2, 5, 8]) == "0-2,5,7-8"
    hosts = {n: f"gpu-{n:03d}" for n in range(100)}
    assert who([3], hosts) == "node 3 (gpu-003)"
    assert who([3], {}) == "node 3"
    assert who(list(range(10, 50)), hosts) == "40 nodes 10-49 (gpu-[010-049])"


def test_a_thousand_nodes_read_as_groups_not_rows() -> None:
    nodes = [
        node(
            n,
            host=f"gpu-{n:04d}",
            **(
                {"gpus": 7, "nproc": 7}
                if n == 517
                else {"driver": "550.54.15"}
                if n in (3, 4)
                else {}
            ),
        )
        for n in range(1000)
    ]
    rep = run(nodes)
    text = report.render_text(rep)
    assert len(text.splitlines()) < 50
    assert "7 GPUs on node 517 (gpu-0517); 8 GPUs on the 999 others" in text
    assert "998 nodes: 0-2,5-999" in text  # the driver row's majority, as ranges
    data = json.loads(report.render_json(rep))
    assert data["exit_code"] == 2 and len(data["nodes"]["joined"]) == 1000


def test_json_has_the_documented_fields() -> None:
    comm = comm_report(sweep=(SweepPoint(1 << 20, 1e-4, 10.49, 19.66),), pair_size=1 << 20)
    data = json.loads(report.render_json(run(CLUSTER[:2], comm=comm)))
    assert set(data) == {
        "schema",
        "exit_code",
        "profile",
        "master",
        "nodes",
        "facts",
        "findings",
        "comm",
        "comm_note",
    }
    assert data["schema"] == report.SCHEMA
    assert set(data["nodes"]) == {"expected", "joined", "absent", "hosts"}
    assert data["comm"]["sweep"] == [
        {"bytes": 1 << 20, "time_us": 100.0, "algbw_gbs": 10.49, "busbw_gbs": 19.66}
    ]
    first = data["facts"][0]
    assert first == {
        "what": "launchx",
        "agree": True,
        "groups": [{"value": "0.1.0", "nodes": [0, 1]}],
    }


def test_many_values_of_one_fact_are_cut_in_text_and_kept_in_json() -> None:
    nodes = [node(n, driver=f"535.{n}") for n in range(20)]
    rep = run(nodes)
    text = report.render_text(rep)
    assert "... 14 other values on 14 nodes (see --json)" in text
    driver = next(f for f in json.loads(report.render_json(rep))["facts"] if f["what"] == "driver")
    assert len(driver["groups"]) == 20


@pytest.mark.parametrize("name", ["summary.py", "compare.py", "report.py", "comm.py"])
def test_the_pure_preflight_modules_start_nothing_and_read_no_environment(name: str) -> None:
    import ast
    from pathlib import Path

    import launchx.preflight

    tree = ast.parse((Path(launchx.preflight.__file__).parent / name).read_text())
    for item in ast.walk(tree):
        if isinstance(item, ast.Import):
            assert not {a.name.split(".")[0] for a in item.names} & {
                "subprocess",
                "socket",
                "torch",
            }
        elif isinstance(item, ast.ImportFrom) and item.module:
            assert item.module.split(".")[0] not in {"subprocess", "socket", "torch"}
        elif isinstance(item, ast.Attribute):
            assert item.attr not in ("environ", "getenv"), f"{name}:{item.lineno}"


def test_a_node_that_could_not_count_its_processes_is_no_count_of_one() -> None:
    """Node 1, a login node in the job by mistake, sees no GPU under nproc 'gpu' (its own
    LX304 says so): its placeholder is neither shown as "1" nor a difference (LX237), nor a
    shortage of GPUs (LX236)."""
    nodes = [
        node(n, **({"nproc": 1, "nproc_known": False, "gpus": 0} if n == 1 else {}))
        for n in range(3)
    ]
    rep = run(nodes)
    row = next(r for r in rep.rows if r.what == "processes/node")
    assert ("unresolved", (1,)) in [(g.value, g.nodes) for g in row.groups]
    assert "LX237" not in codes(rep) and "LX236" not in codes(rep)
    assert "LX235" in codes(rep)  # its 0 GPUs are still a difference


def test_lx242_only_where_nccl_shares_the_node_between_ranks() -> None:
    """A gloo job, or one rank per node, does not put NCCL's buffers in /dev/shm: each
    small node keeps its own warning (LX221, what `launchx doctor` says there), not an
    error that would stop `launchx run --preflight`."""
    own = WireFinding(code="LX221", level="warning", var=None, message="small", fix="x")
    small = {"shm_bytes": 64 << 20, "findings": (own,)}
    for other in ({"backend": "gloo"}, {"nproc": 1, "gpus": 1}):
        rep = run([node(n, **other, **(small if n else {})) for n in range(3)])
        assert "LX242" not in codes(rep)
        assert only(rep, "LX221").nodes == (1, 2) and only(rep, "LX221").finding.level == "warning"


def test_restating_is_node_by_node() -> None:
    """Node 1 shares its GPUs between NCCL ranks: LX242 says its LX221 again (an error).
    Node 2 runs one rank: its own warning stays, under its own code."""
    own = WireFinding(code="LX221", level="warning", var=None, message="small", fix="x")
    small = {"shm_bytes": 64 << 20, "findings": (own,)}
    nodes = [
        node(0),
        node(1, **small),
        node(2, nproc=1, gpus=1, **small),
    ]
    rep = run(nodes)
    assert only(rep, "LX242").nodes == (1,) and only(rep, "LX221").nodes == (2,)
