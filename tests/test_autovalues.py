"""``auto`` values over recorded host trees and hand-built HostFacts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from launchx.autovalues import (
    auto_ib_hca,
    auto_nproc,
    auto_omp_threads,
    auto_socket_ifname,
    derived_master_port,
    ib_hca_left_out,
    port_pool,
    route_interface,
)
from launchx.detect import gather
from launchx.errors import ConfigError
from launchx.facts import HostFacts, IbPort, Interface, Route

HOSTS = Path(__file__).parent / "hosts"


def shown(pair: tuple[object, object] | None) -> tuple[object, str] | None:
    """A (value, origin) pair with the origin as explain prints it."""
    return None if pair is None else (pair[0], str(pair[1]))


def _tree(archetype: str) -> HostFacts:
    root = HOSTS / archetype
    environ = json.loads((root / "env.json").read_text())
    lookups = (
        json.loads((root / "resolve.json").read_text()) if (root / "resolve.json").exists() else {}
    )
    return gather(environ, root=str(root), lookup_hosts=tuple(lookups))


def _port(device: str, layer: str = "InfiniBand", state: str = "ACTIVE", port: int = 1) -> IbPort:
    return IbPort(device, port, state, "LinkUp" if state == "ACTIVE" else "Polling", layer)


# --- NCCL_IB_HCA -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("archetype", "layer", "value"),
    [
        ("ib-h800-8gpu", None, "=" + ",".join(f"mlx5_{i}:1" for i in range(8))),
        ("ib-h800-8gpu", "InfiniBand", "=" + ",".join(f"mlx5_{i}:1" for i in range(8))),
        ("ib-h800-8gpu", "Ethernet", "=mlx5_bond_0:1"),  # the RoCE profile asks for RoCE
        ("roce-node", None, "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1"),
        ("roce-node", "Ethernet", "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1"),
        ("ib-ports-not-active", None, "=mlx5_0:1"),  # DOWN, Disabled and INIT are left out
    ],
)
def test_auto_ib_hca_on_recorded_hosts(archetype: str, layer: str | None, value: str) -> None:
    assert shown(auto_ib_hca(_tree(archetype), layer)) == (value, "auto:/sys/class/infiniband")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("archetype", "layer"),
    [
        ("roce-node", "InfiniBand"),  # no IB link layer there
        ("k8s-rdma-no-dev", None),  # visible in sysfs, not usable without /dev/infiniband
        ("cpu-laptop", None),
        ("ethernet-vm", None),
    ],
)
def test_auto_ib_hca_undecided(archetype: str, layer: str | None) -> None:
    assert auto_ib_hca(_tree(archetype), layer) is None  # type: ignore[arg-type]


def test_ib_hca_left_out_names_the_front_end_port() -> None:
    facts = _tree("ib-h800-8gpu")
    assert [p.device for p in ib_hca_left_out(facts)] == ["mlx5_bond_0"]
    assert len(ib_hca_left_out(facts, "Ethernet")) == 8
    assert ib_hca_left_out(_tree("roce-node")) == ()


def test_auto_ib_hca_orders_naturally_and_names_ports_exactly() -> None:
    facts = HostFacts(
        ib_ports=(
            _port("mlx5_10"),
            _port("mlx5_2"),
            _port("mlx5_1", port=2),
            _port("mlx5_1", port=1, state="DOWN"),
            _port("rxe0", layer="Unknown"),
        )
    )
    assert shown(auto_ib_hca(facts)) == (
        "=mlx5_1:2,mlx5_2:1,mlx5_10:1",
        "auto:/sys/class/infiniband",
    )


# --- routes and NCCL/GLOO_SOCKET_IFNAME --------------------------------------------------

ROUTES = HostFacts(
    interfaces=(
        Interface("lo", True, ("127.0.0.1",), "loopback"),
        Interface("eth0", True, ("10.0.0.5",)),
        Interface("eth1", True, ("10.1.2.5",)),
        Interface("docker0", False, ("172.17.0.1",), "bridge"),
    ),
    routes=(
        Route("eth0", "0.0.0.0", "0.0.0.0", "10.0.0.1", 100),
        Route("eth0", "10.0.0.0", "255.0.0.0", "0.0.0.0", 0),
        Route("eth1", "10.1.0.0", "255.255.0.0", "0.0.0.0", 10),
        Route("eth0", "10.1.2.0", "255.255.255.0", "0.0.0.0", 5),
        Route("eth1", "10.1.2.0", "255.255.255.0", "0.0.0.0", 1),
        Route("docker0", "172.17.0.0", "255.255.0.0", "0.0.0.0", 0),
    ),
)


@pytest.mark.parametrize(
    ("ip", "iface"),
    [
        ("10.9.9.9", "eth0"),  # /8 beats the default route
        ("10.1.7.7", "eth1"),  # /16 beats /8
        ("10.1.2.9", "eth1"),  # same /24 twice: the lower metric
        ("8.8.8.8", "eth0"),  # default route
        ("172.17.0.5", "eth0"),  # docker0 only when nothing else matches
        ("not-an-ip", None),
        ("::1", None),
    ],
)
def test_route_interface_longest_prefix(ip: str, iface: str | None) -> None:
    assert route_interface(ROUTES, ip) == iface


def test_route_interface_uses_last_resort_routes_when_nothing_else_matches() -> None:
    facts = HostFacts(routes=(Route("docker0", "172.17.0.0", "255.255.0.0", "0.0.0.0", 0),))
    assert route_interface(facts, "172.17.0.5") == "docker0"
    assert route_interface(facts, "8.8.8.8") is None


@pytest.mark.parametrize(
    ("archetype", "master", "expected"),
    [
        # NCCL's own default would be ib0 (prefix "ib" first); the master is on bond0's subnet
        ("ib-h800-8gpu", "10.0.0.11", ("bond0", "auto:/proc/net/route")),
        ("ib-h800-8gpu", "10.0.0.12", ("bond0", "auto:interface address")),  # we are master
        ("roce-node", "roce-node01", ("ens1f0np0", "auto:/proc/net/route")),  # via host_ips
        ("roce-node", "10.9.0.1", ("ens1f0np0", "auto:/proc/net/route")),  # /8 via gateway
        ("roce-node", "8.8.8.8", ("eno1", "auto:/proc/net/route")),
        ("ethernet-vm", "10.128.0.9", ("eth0", "auto:/proc/net/route")),
        ("ethernet-vm", "172.18.0.7", ("br-3f2a9c1d0e4b", "auto:/proc/net/route")),
        ("ib-ports-not-active", "10.99.1.1", ("ib0", "auto:/proc/net/route")),  # metric 50
        ("cpu-laptop", "localhost", ("lo", "auto:loopback MASTER_ADDR")),
        ("cpu-laptop", "127.0.0.1", ("lo", "auto:loopback MASTER_ADDR")),
        ("cpu-laptop", "thinkpad", ("lo", "auto:loopback MASTER_ADDR")),  # 127.0.1.1
        ("cpu-laptop", "192.168.1.23", ("wlp0s20f3", "auto:interface address")),
        ("cpu-laptop", "172.17.0.9", ("wlp0s20f3", "auto:/proc/net/route")),  # not docker0
        ("k8s-rdma-no-dev", "trainer-master-0", ("eth0", "auto:/proc/net/route")),
        ("a100-mig", "10.77.0.4", ("eno1", "auto:interface address")),
        ("roce-node", "no-such-host", None),
    ],
)
def test_auto_socket_ifname(archetype: str, master: str, expected: tuple[str, str] | None) -> None:
    assert shown(auto_socket_ifname(_tree(archetype), master)) == expected


def test_auto_socket_ifname_without_any_route() -> None:
    assert auto_socket_ifname(HostFacts(), "10.0.0.1") is None
    assert auto_socket_ifname(HostFacts(), "localhost") is None  # no loopback recorded


# --- nproc and OMP_NUM_THREADS -----------------------------------------------------------


@pytest.mark.parametrize(
    ("archetype", "spec", "expected"),
    [
        ("ib-h800-8gpu", "gpu", (8, "auto:/proc/driver/nvidia")),
        ("ib-h800-8gpu", "auto", (8, "auto:/proc/driver/nvidia")),
        ("ib-h800-8gpu", "cpu", (8, "auto:cpu-count")),  # 224 CPUs, capped
        ("docker-small-shm", "gpu", (1, "auto:CUDA_VISIBLE_DEVICES")),
        ("docker-small-shm", "cpu", (2, "auto:cpu-count")),
        ("a100-mig", "gpu", (1, "auto:CUDA_VISIBLE_DEVICES")),
        ("k8s-rdma-no-dev", "GPU", (2, "auto:/proc/driver/nvidia")),
        ("cpu-laptop", "auto", (2, "auto:cpu-count")),  # the local demo: 2 ranks, 2 cores
        ("cpu-laptop", "cpu", (2, "auto:cpu-count")),
        ("cpu-laptop", 3, (3, "given")),
        ("cpu-laptop", " 4 ", (4, "given")),
    ],
)
def test_auto_nproc(archetype: str, spec: int | str, expected: tuple[int, str]) -> None:
    count, origin = auto_nproc(_tree(archetype), spec)
    assert (count, str(origin)) == expected


@pytest.mark.parametrize("spec", ["gpu", 0, "0", "-1", "many"])
def test_auto_nproc_refuses(spec: int | str) -> None:
    with pytest.raises(ConfigError) as raised:
        auto_nproc(_tree("cpu-laptop"), spec)
    assert raised.value.hint


def test_auto_nproc_gpu_error_names_cuda_visible_devices() -> None:
    facts = HostFacts(gpu_count=0, gpu_visible=("0", "0"))
    with pytest.raises(ConfigError) as raised:
        auto_nproc(facts, "gpu")
    assert "CUDA_VISIBLE_DEVICES='0,0'" in raised.value.message
    # not --nproc-per-node cpu: under an NCCL profile that is LX205 next (a dead end)
    hint = raised.value.hint or ""
    assert "a node with GPUs" in hint and "-p local" in hint and "--nproc-per-node" not in hint


@pytest.mark.parametrize(
    ("cpus", "nproc", "threads"), [(224, 8, "28"), (2, 4, "1"), (2, 2, "1"), (16, 3, "5")]
)
def test_auto_omp_threads(cpus: int, nproc: int, threads: str) -> None:
    assert shown(auto_omp_threads(HostFacts(cpu_count=cpus), nproc)) == (threads, "auto:cpus/nproc")


def test_auto_omp_threads_refuses_zero_ranks() -> None:
    with pytest.raises(ConfigError):
        auto_omp_threads(HostFacts(), 0)


# --- ports -------------------------------------------------------------------------------


@given(
    st.text(min_size=1, max_size=20),
    st.integers(1024, 40000),
    st.integers(0, 30000),
)
def test_derived_master_port_is_stable_and_outside_the_range(
    job_id: str, lo: int, width: int
) -> None:
    ephemeral = (lo, min(lo + width, 64000))
    port = derived_master_port(job_id, ephemeral)
    assert port == derived_master_port(job_id, ephemeral)
    assert 1024 <= port <= 65535
    assert not ephemeral[0] <= port <= ephemeral[1]
    assert port not in (29500, 29400)


def test_derived_master_port_spreads_job_ids() -> None:
    ports = {derived_master_port(str(job), (32768, 60999)) for job in range(1000, 1200)}
    assert len(ports) > 190
    assert all(10000 <= p < 32768 or p > 60999 for p in ports)


def test_derived_master_port_without_room_refuses() -> None:
    with pytest.raises(ConfigError) as raised:
        derived_master_port("77", (1024, 65535))
    assert "ip_local_reserved_ports" in (raised.value.hint or "")


def test_port_pool_drops_the_floor_when_the_range_is_low() -> None:
    assert port_pool((32768, 60999)) == [(10000, 32767), (61000, 65535)]
    assert port_pool((9000, 65000)) == [(1024, 8999), (65001, 65535)]
