"""Detection: recorded host trees, who launched us, SLURM facts, GPU visibility, real root."""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from launchx import detect
from launchx.detect import (
    _Tree,
    classify_launch,
    gather,
    parse_slurm,
    visible_gpu_count,
)
from launchx.errors import ConfigError
from launchx.facts import HostFacts, IbPort, Interface, PortHolder, Route, SlurmFacts

HOSTS = Path(__file__).parent / "hosts"


def _load(archetype: str, lookup: tuple[str, ...] = ()) -> HostFacts:
    root = HOSTS / archetype
    environ = json.loads((root / "env.json").read_text())
    return gather(environ, root=str(root), lookup_hosts=lookup, python="/usr/bin/python3")


def _ib(
    device: str, state: str, phys: str, layer: str, rate: str, netdev: str | None = None
) -> IbPort:
    return IbPort(device, 1, state, phys, layer, rate, netdev)


NDR = "400 Gb/sec (4X NDR)"
EDR = "100 Gb/sec (4X EDR)"
HDR = "200 Gb/sec (4X HDR)"
NO_LAUNCH = dict(kind="none", evidence=())

# What each recorded tree must yield, written by hand from the files in tests/hosts.
EXPECTED: dict[str, dict[str, Any]] = {
    "ib-h800-8gpu": dict(
        lookup=("10.0.0.11",),
        hostname="h800-node01",
        cpu_count=224,  # Cpus_allowed_list 0-223; cpu.max "max" up the path
        gpu_count=8,
        gpu_visible=None,
        ib_ports=(
            *(_ib(f"mlx5_{i}", "ACTIVE", "LinkUp", "InfiniBand", NDR) for i in range(8)),
            _ib("mlx5_bond_0", "ACTIVE", "LinkUp", "Ethernet", "200 Gb/sec (2X HDR)", "bond0"),
        ),
        interfaces=(
            Interface("bond0", True, ("10.0.0.12", "fe80::e42:a1ff:fe12:3404"), "ether"),
            Interface("docker0", False, ("172.17.0.1",), "bridge"),
            Interface("ens1f0np0", True, (), "ether"),
            Interface("ens1f1np1", True, (), "ether"),
            Interface("ib0", True, ("10.10.0.12",), "infiniband"),
            Interface("lo", True, ("127.0.0.1", "::1"), "loopback"),
        ),
        routes=(
            Route("bond0", "0.0.0.0", "0.0.0.0", "10.0.0.1", 0),
            Route("bond0", "10.0.0.0", "255.255.255.0", "0.0.0.0", 0),
            Route("ib0", "10.10.0.0", "255.255.0.0", "0.0.0.0", 0),
            Route("docker0", "172.17.0.0", "255.255.0.0", "0.0.0.0", 0),
        ),
        host_ips={"10.0.0.11": "10.0.0.11"},
        ephemeral_range=(32768, 60999),
        listening={22: PortHolder(22)},  # the ESTABLISHED row is not a listener
        launch=dict(NO_LAUNCH, evidence=("MASTER_ADDR=10.0.0.11",)),
        slurm=None,
        shm_bytes=1 << 40,
    ),
    "roce-node": dict(
        lookup=("roce-node01", "unknown-host"),
        hostname="roce-node03",
        cpu_count=32,  # cgroup v1: job_77 quota 3200000/100000 is tighter than 128 CPUs
        gpu_count=4,
        gpu_visible=None,
        ib_ports=(
            _ib("mlx5_0", "ACTIVE", "LinkUp", "Ethernet", EDR, "ens1f0np0"),
            _ib("mlx5_1", "ACTIVE", "LinkUp", "Ethernet", EDR, "ens2f0np0"),
            # gid_attrs/ndevs/0 fails with EINVAL (_errors.json): found through device/net
            _ib("mlx5_2", "ACTIVE", "LinkUp", "Ethernet", EDR, "ens3f0np0"),
            _ib("mlx5_3", "ACTIVE", "LinkUp", "Ethernet", EDR, "ens4f0np0"),
        ),
        interfaces=(
            Interface("eno1", True, ("192.168.1.50",), "ether"),
            Interface("ens1f0np0", True, ("10.1.0.5",), "ether"),
            Interface("ens2f0np0", True, ("10.2.0.5",), "ether"),
            Interface("ens3f0np0", True, ("10.3.0.5",), "ether"),
            Interface("ens4f0np0", True, ("fe80::a5e:45ff:fe0b:1c2d",), "ether"),
            Interface("lo", True, ("127.0.0.1", "::1"), "loopback"),
        ),
        routes=(
            Route("eno1", "0.0.0.0", "0.0.0.0", "192.168.1.1", 100),
            Route("eno1", "192.168.1.0", "255.255.255.0", "0.0.0.0", 100),
            Route("ens1f0np0", "10.0.0.0", "255.0.0.0", "10.1.0.1", 0),
            Route("ens1f0np0", "10.1.0.0", "255.255.255.0", "0.0.0.0", 0),
            Route("ens2f0np0", "10.2.0.0", "255.255.255.0", "0.0.0.0", 0),
            Route("ens3f0np0", "10.3.0.0", "255.255.255.0", "0.0.0.0", 0),
        ),
        host_ips={"roce-node01": "10.1.0.2"},  # unknown-host is left out
        ephemeral_range=(1024, 65535),
        listening={},
        launch=dict(
            kind="srun_step",
            name="srun step (one task per node)",
            rank=2,
            world_size=4,
            local_rank=0,
            local_world_size=1,
            node_rank=2,
            nnodes=4,
        ),
        slurm=SlurmFacts(
            job_id="77",
            nodelist=("roce-node01", "roce-node02", "roce-node03", "roce-node04"),
            nnodes=4,
            node_id=2,
            ntasks=4,
            ntasks_per_node=1,
            step_id="0",
            procid=2,
            localid=0,
            restart_count=1,
            cpus_per_task=32,
            gpus_on_node=4,
        ),
        shm_bytes=128 << 30,  # from mountinfo size=128g (no statvfs.json)
    ),
    "ethernet-vm": dict(
        lookup=("10.128.0.9",),
        hostname="vm-eth-1",
        cpu_count=8,
        gpu_count=1,  # no /proc/driver/nvidia: counted from /dev/nvidia0
        gpu_visible=None,
        ib_ports=(),
        interfaces=(
            Interface("br-3f2a9c1d0e4b", True, ("172.18.0.1",), "bridge"),
            Interface("docker0", False, ("172.17.0.1",), "bridge"),
            Interface("eth0", True, ("10.128.0.5",), "ether"),
            Interface("lo", True, ("127.0.0.1", "::1"), "loopback"),
            Interface("veth1a2b3c4", True, (), "virtual"),
        ),
        routes=(
            Route("eth0", "0.0.0.0", "0.0.0.0", "10.128.0.1", 100),
            Route("eth0", "10.128.0.0", "255.255.240.0", "0.0.0.0", 100),
            Route("docker0", "172.17.0.0", "255.255.0.0", "0.0.0.0", 0),
            Route("br-3f2a9c1d0e4b", "172.18.0.0", "255.255.0.0", "0.0.0.0", 0),
        ),
        host_ips={"10.128.0.9": "10.128.0.9"},
        ephemeral_range=(32768, 60999),
        # 29500 listens but no /proc/<pid> shows it: holder unknown; 29400 is TIME_WAIT only
        listening={53: PortHolder(53), 29500: PortHolder(29500)},
        launch=dict(NO_LAUNCH, evidence=("MASTER_ADDR=10.128.0.9",)),
        slurm=None,
        shm_bytes=8 << 30,
    ),
    "docker-small-shm": dict(
        lookup=(),
        hostname="3f2a9c1d0e4b",
        cpu_count=2,  # cpu.max 200000 100000 under 64 allowed CPUs
        gpu_count=1,  # host minor 3 through /dev/nvidia3; CUDA_VISIBLE_DEVICES=0
        gpu_visible=("0",),
        ib_ports=(),
        interfaces=(
            Interface("eth0", True, ("172.17.0.2",), "virtual"),
            Interface("lo", True, ("127.0.0.1",), "loopback"),
        ),
        routes=(
            Route("eth0", "0.0.0.0", "0.0.0.0", "172.17.0.1", 0),
            Route("eth0", "172.17.0.0", "255.255.0.0", "0.0.0.0", 0),
        ),
        host_ips={},
        ephemeral_range=(32768, 60999),
        listening={
            29500: PortHolder(29500, 4242, "python -m torch.distributed.run train.py"),
        },
        launch=NO_LAUNCH,
        slurm=None,
        shm_bytes=64 << 20,
    ),
    "ib-ports-not-active": dict(
        lookup=(),
        hostname="ib-node07",
        cpu_count=32,  # 0-15,32-47; v1 quota -1
        gpu_count=2,  # 3 in /proc, one "GPU Excluded: Yes"; no /dev nodes yet: trust /proc
        gpu_visible=None,
        ib_ports=(
            _ib("mlx5_0", "ACTIVE", "LinkUp", "InfiniBand", HDR),
            _ib("mlx5_1", "DOWN", "Polling", "InfiniBand", HDR),
            _ib("mlx5_2", "DOWN", "Disabled", "InfiniBand", HDR),
            _ib("mlx5_3", "INIT", "LinkUp", "InfiniBand", HDR),
        ),
        interfaces=(
            Interface("eno1", True, ("10.20.0.7",), "ether"),
            Interface("ib0", True, ("10.30.0.7",), "infiniband"),
            Interface("ib1", False, (), "infiniband"),
            Interface("lo", True, ("127.0.0.1",), "loopback"),
        ),
        routes=(
            Route("eno1", "0.0.0.0", "0.0.0.0", "10.20.0.1", 100),
            Route("ib0", "0.0.0.0", "0.0.0.0", "10.30.0.1", 50),
            Route("eno1", "10.20.0.0", "255.255.0.0", "0.0.0.0", 100),
            Route("ib0", "10.30.0.0", "255.255.0.0", "0.0.0.0", 50),
        ),
        host_ips={},
        ephemeral_range=(32768, 60999),
        listening={},
        launch=dict(NO_LAUNCH, evidence=("MASTER_ADDR=10.99.1.1",)),
        slurm=None,
        shm_bytes=None,
    ),
    "cpu-laptop": dict(
        lookup=("localhost", "thinkpad"),
        hostname="thinkpad",
        cpu_count=2,
        gpu_count=0,
        gpu_visible=None,
        ib_ports=(),
        interfaces=(
            Interface("docker0", False, ("172.17.0.1",), "bridge"),
            Interface("lo", True, ("127.0.0.1", "::1"), "loopback"),
            Interface(
                "wlp0s20f3",
                True,
                ("192.168.1.23", "2001:db8::23", "fe80::aa6b:4cff:fe3c:2d1e"),
                "ether",
            ),
        ),
        routes=(
            Route("wlp0s20f3", "0.0.0.0", "0.0.0.0", "192.168.1.1", 600),
            Route("wlp0s20f3", "192.168.1.0", "255.255.255.0", "0.0.0.0", 600),
            Route("docker0", "172.17.0.0", "255.255.0.0", "0.0.0.0", 0),
        ),
        host_ips={"localhost": "127.0.0.1", "thinkpad": "127.0.1.1"},
        ephemeral_range=(32768, 60999),
        listening={
            631: PortHolder(631),  # not a port launchx uses: not attributed
            29500: PortHolder(
                29500,
                1234,
                "/usr/bin/python3 /home/me/.local/bin/torchrun --nproc-per-node 2 train.py",
            ),
        },
        launch=dict(NO_LAUNCH, evidence=("MASTER_ADDR=localhost",)),
        slurm=None,
        shm_bytes=8 << 30,
    ),
    "k8s-rdma-no-dev": dict(
        lookup=("trainer-master-0",),
        hostname="trainer-worker-1",
        cpu_count=4,  # v1 quota at the mountpoint itself (mountinfo root == cgroup path)
        gpu_count=2,  # 8 in /proc, only /dev/nvidia2 and /dev/nvidia5
        gpu_visible=None,
        ib_ports=(),  # sysfs shows mlx5_0..3 but /dev/infiniband is absent
        interfaces=(
            Interface("eth0", True, ("10.244.1.17",), "virtual"),
            Interface("lo", True, ("127.0.0.1",), "loopback"),
        ),
        routes=(
            Route("eth0", "0.0.0.0", "0.0.0.0", "10.244.1.1", 0),
            Route("eth0", "10.244.1.0", "255.255.255.0", "0.0.0.0", 0),
        ),
        host_ips={"trainer-master-0": "10.244.0.12"},
        ephemeral_range=(32768, 60999),
        listening={},
        launch=dict(
            kind="per_node",
            name="Kubeflow PyTorchJob",
            rank=None,
            world_size=6,
            local_world_size=2,
            node_rank=2,
            nnodes=3,
        ),
        slurm=None,
        shm_bytes=64 << 20,
    ),
    "a100-mig": dict(
        lookup=(),
        hostname="a100-box",
        cpu_count=32,  # no cgroup files: affinity only
        gpu_count=1,  # CUDA enumerates one MIG device per process
        gpu_visible=(
            "MIG-4b6f1c2e-1111-5555-8888-aaaabbbbcccc",
            "MIG-9d8e7f6a-2222-6666-9999-ddddeeeeffff",
        ),
        ib_ports=(),
        interfaces=(
            # 10.77.0.4/32 has no connected route: it comes from the addrs.json sidecar
            Interface("eno1", True, ("10.5.3.4", "10.77.0.4"), "ether"),
            Interface("lo", True, ("127.0.0.1",), "loopback"),
        ),
        routes=(
            Route("eno1", "0.0.0.0", "0.0.0.0", "10.5.0.1", 0),
            Route("eno1", "10.5.0.0", "255.255.0.0", "0.0.0.0", 0),
        ),
        host_ips={},
        ephemeral_range=(32768, 60999),
        listening={},
        launch=NO_LAUNCH,
        slurm=None,
        shm_bytes=None,
    ),
}


def test_every_recorded_tree_has_expectations() -> None:
    assert sorted(p.name for p in HOSTS.iterdir() if p.is_dir()) == sorted(EXPECTED)


@pytest.mark.parametrize("archetype", sorted(EXPECTED))
def test_recorded_tree(archetype: str) -> None:
    expected = dict(EXPECTED[archetype])
    facts = _load(archetype, expected.pop("lookup"))
    launch = expected.pop("launch")
    for name, value in expected.items():
        assert getattr(facts, name) == value, name
    for name, value in launch.items():
        assert getattr(facts.launch, name) == value, f"launch.{name}"
    root = HOSTS / archetype
    assert facts.environ == json.loads((root / "env.json").read_text())
    assert facts.python == "/usr/bin/python3"
    assert facts.root == str(root)
    assert facts.launch.inside_launchx is False


@pytest.mark.parametrize("archetype", sorted(EXPECTED))
def test_usable_cpus_is_the_facts_cpu_count(archetype: str) -> None:
    # what the diagnose helper process asks before it starts: a container's CPU quota, not
    # the host's cores
    assert detect.usable_cpus(str(HOSTS / archetype)) == EXPECTED[archetype]["cpu_count"]


def test_missing_root_means_unknown_not_an_error(tmp_path: Path) -> None:
    facts = gather({}, root=str(tmp_path / "nothing"))
    assert (facts.gpu_count, facts.ib_ports, facts.interfaces, facts.routes) == (0, (), (), ())
    assert facts.cpu_count == 1 and facts.shm_bytes is None and facts.listening == {}
    assert facts.ephemeral_range == (32768, 60999)
    assert facts.hostname == "localhost"


def test_errors_manifest_makes_an_existing_file_fail(tmp_path: Path) -> None:
    (tmp_path / "sys").mkdir()
    (tmp_path / "sys" / "carrier").write_text("1\n")
    assert _Tree(str(tmp_path)).read("sys/carrier") == "1\n"
    (tmp_path / "_errors.json").write_text('{"sys/carrier": "EINVAL"}')
    assert _Tree(str(tmp_path)).read("sys/carrier") is None


def test_route_rows_decode_native_byte_order(tmp_path: Path) -> None:
    # The kernel's own example (host-facts.md §3.1): 010200C0 = 192.0.2.1, 00FFFFFF = /24.
    (tmp_path / "proc" / "net").mkdir(parents=True)
    (tmp_path / "proc" / "net" / "route").write_text(
        "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
        "eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
        "eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
        "*\t0000000A\t00000000\t0201\t0\t0\t0\t000000FF\t0\t0\t0\n"  # reject route
        "eth1\t0000000B\t00000000\t0000\t0\t0\t0\t000000FF\t0\t0\t0\n"  # not RTF_UP
    )
    facts = gather({}, root=str(tmp_path))
    assert facts.routes == (
        Route("eth0", "0.0.0.0", "0.0.0.0", "192.0.2.1", 0),
        Route("eth0", "192.0.2.0", "255.255.255.0", "0.0.0.0", 0),
    )


# --- CUDA_VISIBLE_DEVICES (host-facts.md §5, 8 physical GPUs) ----------------------------

UUIDS = [f"GPU-{i}{i}aa{i}000-0000-0000-0000-00000000000{i}" for i in range(8)]
CUDA_TABLE = [
    (None, 8),
    ("", 0),
    ("-1", 0),
    ("0,1,-1,2", 2),
    ("0,2,-1,1", 2),
    ("0,0", 0),
    ("1,1,2", 0),
    (" 0, 1", 2),
    ("0,,1", 1),
    (",0", 0),
    ("0,9,1", 1),
    ("all", 0),
    ("NoDevFiles", 0),
    ("none", 0),
    ("1gpu2,3", 2),
    ("0x1", 1),
    ("+1", 1),
    ("GPU-11aa,GPU-22aa", 2),
    ("GPU-11aa, GPU-22aa", 1),
    ("0,GPU-11aa", 1),
    ("GPU-11aa,GPU-11aa", 0),
    ("GPU-zz", 0),
    ("MIG-aaa,MIG-bbb", 1),
    ("7", 1),
]


@pytest.mark.parametrize(("value", "count"), CUDA_TABLE)
def test_visible_gpu_count(value: str | None, count: int) -> None:
    assert visible_gpu_count(value, UUIDS) == count


def test_visible_gpu_count_cuts_at_the_physical_count() -> None:
    assert visible_gpu_count("3,1", UUIDS[:2]) == 0
    assert visible_gpu_count("MIG-aaa", []) == 0


def test_cuda_visible_devices_duplicates_are_kept_for_the_planner() -> None:
    facts = gather({"CUDA_VISIBLE_DEVICES": "1,1"}, root=str(HOSTS / "ib-h800-8gpu"))
    assert facts.gpu_visible == ("1", "1")
    assert facts.gpu_count == 0


# --- classify_launch ---------------------------------------------------------------------

TORCHRUN = {
    "TORCHELASTIC_RUN_ID": "job7",
    "GROUP_RANK": "1",
    "ROLE_RANK": "9",
    "RANK": "9",
    "WORLD_SIZE": "16",
    "LOCAL_RANK": "1",
    "LOCAL_WORLD_SIZE": "8",
    "GROUP_WORLD_SIZE": "2",
    "MASTER_ADDR": "10.0.0.1",
    "MASTER_PORT": "29500",
}
SRUN_BASE = {
    "SLURM_JOB_ID": "4242",
    "SLURM_JOB_NODELIST": "gpu[01-02]",
    "SLURM_JOB_NUM_NODES": "2",
    "SLURM_STEP_ID": "0",
    "SLURM_STEP_NODELIST": "gpu[01-02]",
    "SLURM_STEP_NUM_NODES": "2",
}

# (id, environ, expected fields, evidence that must appear)
LAUNCH_TABLE: list[tuple[str, dict[str, str], dict[str, Any], tuple[str, ...]]] = [
    (
        "torchrun worker",
        TORCHRUN,
        dict(
            kind="torchrun",
            name="torchrun",
            rank=9,
            world_size=16,
            local_rank=1,
            local_world_size=8,
            node_rank=1,
            nnodes=2,
        ),
        ("TORCHELASTIC_RUN_ID=job7", "GROUP_RANK=1"),
    ),
    (
        "torchrun worker without TORCHELASTIC_RUN_ID (full rank set)",
        {k: v for k, v in TORCHRUN.items() if k != "TORCHELASTIC_RUN_ID"},
        dict(kind="torchrun", rank=9),
        ("ROLE_RANK=9",),
    ),
    (
        "accelerate launch",
        {**TORCHRUN, "ACCELERATE_MIXED_PRECISION": "bf16"},
        dict(kind="torchrun", name="torchrun (accelerate launch)"),
        ("GROUP_RANK=1",),
    ),
    (
        "torchrun inside a Kubeflow pod",
        {**TORCHRUN, "PET_NNODES": "2", "PET_NPROC_PER_NODE": "8"},
        dict(kind="torchrun"),
        (),
    ),
    (
        "Open MPI",
        {
            "OMPI_COMM_WORLD_RANK": "5",
            "OMPI_COMM_WORLD_SIZE": "16",
            "OMPI_COMM_WORLD_LOCAL_RANK": "1",
            "OMPI_COMM_WORLD_LOCAL_SIZE": "4",
        },
        dict(
            kind="mpi",
            name="Open MPI",
            rank=5,
            world_size=16,
            local_rank=1,
            local_world_size=4,
            node_rank=None,
        ),
        ("OMPI_COMM_WORLD_RANK=5",),
    ),
    (
        "Open MPI under a SLURM allocation (orted started by srun)",
        {
            **SRUN_BASE,
            "SLURM_STEP_NUM_TASKS": "2",
            "SLURM_PROCID": "1",
            "OMPI_COMM_WORLD_RANK": "7",
            "OMPI_COMM_WORLD_SIZE": "8",
        },
        dict(kind="mpi", name="Open MPI", rank=7, world_size=8),
        ("OMPI_COMM_WORLD_SIZE=8",),
    ),
    (
        "MPICH Hydra",
        {
            "PMI_RANK": "3",
            "PMI_SIZE": "8",
            "PMI_FD": "6",
            "MPI_LOCALRANKID": "3",
            "MPI_LOCALNRANKS": "4",
        },
        dict(
            kind="mpi",
            name="MPICH/Intel MPI (Hydra)",
            rank=3,
            world_size=8,
            local_rank=3,
            local_world_size=4,
        ),
        ("PMI_RANK=3", "MPI_LOCALRANKID=3"),
    ),
    (
        "PMI without Hydra's local ids",
        {"PMI_RANK": "2", "PMI_SIZE": "4"},
        dict(kind="mpi", rank=2, world_size=4, local_rank=None),
        ("PMI_SIZE=4",),
    ),
    (
        "MVAPICH",
        {
            "MV2_COMM_WORLD_RANK": "6",
            "MV2_COMM_WORLD_SIZE": "8",
            "MV2_COMM_WORLD_LOCAL_RANK": "2",
            "MV2_COMM_WORLD_LOCAL_SIZE": "4",
        },
        dict(kind="mpi", name="MVAPICH", rank=6, world_size=8, local_rank=2, local_world_size=4),
        ("MV2_COMM_WORLD_RANK=6",),
    ),
    (
        "DeepSpeed launcher",
        {
            "RANK": "10",
            "LOCAL_RANK": "2",
            "WORLD_SIZE": "16",
            "LOCAL_SIZE": "8",
            "CROSS_RANK": "1",
            "CROSS_SIZE": "2",
            "MASTER_ADDR": "n1",
            "MASTER_PORT": "29500",
        },
        dict(
            kind="platform",
            name="DeepSpeed launcher",
            rank=10,
            world_size=16,
            local_rank=2,
            local_world_size=8,
            node_rank=1,
            nnodes=2,
        ),
        ("CROSS_RANK=1", "LOCAL_SIZE=8"),
    ),
    (
        "generic platform",
        {
            "RANK": "3",
            "WORLD_SIZE": "8",
            "MASTER_ADDR": "10.1.1.1",
            "MASTER_PORT": "29500",
            "LOCAL_RANK": "3",
        },
        dict(
            kind="platform",
            name="platform (RANK/WORLD_SIZE/MASTER_ADDR set)",
            rank=3,
            world_size=8,
            local_rank=3,
        ),
        ("RANK=3", "WORLD_SIZE=8", "MASTER_ADDR=10.1.1.1"),
    ),
    (
        "Azure ML",
        {
            "RANK": "5",
            "WORLD_SIZE": "8",
            "LOCAL_RANK": "1",
            "NODE_RANK": "1",
            "MASTER_ADDR": "10.0.0.4",
            "MASTER_PORT": "6105",
            "AZUREML_RUN_ID": "r1",
        },
        dict(kind="platform", name="Azure ML", rank=5, node_rank=1, local_rank=1),
        ("NODE_RANK=1",),
    ),
    (
        "Kubeflow PyTorchJob >= 1.7",
        {
            "MASTER_ADDR": "job-master-0",
            "MASTER_PORT": "23456",
            "WORLD_SIZE": "16",
            "RANK": "1",
            "PET_NNODES": "2",
            "PET_NPROC_PER_NODE": "8",
            "PET_NODE_RANK": "1",
            "PET_MASTER_ADDR": "job-master-0",
            "PET_MASTER_PORT": "23456",
        },
        dict(
            kind="per_node",
            name="Kubeflow PyTorchJob",
            rank=None,
            world_size=16,
            node_rank=1,
            nnodes=2,
            local_world_size=8,
        ),
        ("PET_NNODES=2", "MASTER_ADDR=job-master-0"),
    ),
    (
        "Kubeflow PyTorchJob elastic (PET only)",
        {
            "PET_RDZV_BACKEND": "c10d",
            "PET_RDZV_ENDPOINT": "job-worker-0:23456",
            "PET_NNODES": "1:4",
            "PET_NPROC_PER_NODE": "auto",
        },
        dict(
            kind="per_node",
            name="Kubeflow PyTorchJob (elastic)",
            nnodes=None,
            local_world_size=None,
        ),
        ("PET_NNODES=1:4",),
    ),
    (
        "Kubeflow Trainer v2 (PET only)",
        {
            "PET_NNODES": "4",
            "PET_NPROC_PER_NODE": "8",
            "PET_NODE_RANK": "3",
            "PET_MASTER_ADDR": "tj-node-0-0.tj",
            "PET_MASTER_PORT": "29500",
        },
        dict(
            kind="per_node",
            name="Kubeflow Trainer v2",
            rank=None,
            node_rank=3,
            nnodes=4,
            local_world_size=8,
            world_size=32,
        ),
        ("PET_MASTER_ADDR=tj-node-0-0.tj",),
    ),
    (
        "PAI-DLC with NPROC_PER_NODE",
        {
            "MASTER_ADDR": "dlc18isgeayd-master-0",
            "MASTER_PORT": "23456",
            "WORLD_SIZE": "3",
            "RANK": "2",
            "NPROC_PER_NODE": "8",
        },
        dict(
            kind="per_node",
            name="PAI-DLC",
            rank=None,
            world_size=None,
            node_rank=2,
            nnodes=3,
            local_world_size=8,
        ),
        ("WORLD_SIZE=3", "NPROC_PER_NODE=8"),
    ),
    (
        "Kubeflow < 1.7 (pod values, operator master name)",
        {"MASTER_ADDR": "mnist-master-0", "MASTER_PORT": "23456", "WORLD_SIZE": "4", "RANK": "3"},
        dict(
            kind="per_node",
            name="Kubeflow PyTorchJob < 1.7 (or PAI-DLC)",
            node_rank=3,
            nnodes=4,
            local_world_size=None,
        ),
        ("MASTER_ADDR=mnist-master-0",),
    ),
    (
        "operator master name but LOCAL_RANK present: per process",
        {"MASTER_ADDR": "mnist-master-0", "WORLD_SIZE": "4", "RANK": "3", "LOCAL_RANK": "0"},
        dict(kind="platform", rank=3, world_size=4),
        (),
    ),
    (
        "SageMaker",
        {"SM_HOSTS": '["algo-1","algo-2"]', "SM_CURRENT_HOST": "algo-2", "SM_NUM_GPUS": "8"},
        dict(kind="per_node", name="Amazon SageMaker", node_rank=1, nnodes=2),
        ("SM_CURRENT_HOST=algo-2",),
    ),
    (
        "srun step, several tasks per node",
        {
            **SRUN_BASE,
            "SLURM_STEP_NUM_TASKS": "8",
            "SLURM_STEP_TASKS_PER_NODE": "4(x2)",
            "SLURM_PROCID": "5",
            "SLURM_LOCALID": "1",
            "SLURM_NODEID": "1",
            "SLURM_NTASKS": "8",
        },
        dict(
            kind="srun_step",
            name="srun step (several tasks per node)",
            rank=5,
            world_size=8,
            local_rank=1,
            local_world_size=4,
            node_rank=1,
            nnodes=2,
        ),
        ("SLURM_STEP_ID=0", "SLURM_STEP_NUM_TASKS=8", "SLURM_PROCID=5"),
    ),
    (
        "srun step, one task per node",
        {
            **SRUN_BASE,
            "SLURM_STEP_NUM_TASKS": "2",
            "SLURM_STEP_TASKS_PER_NODE": "1(x2)",
            "SLURM_PROCID": "0",
            "SLURM_LOCALID": "0",
            "SLURM_NODEID": "0",
        },
        dict(
            kind="srun_step",
            name="srun step (one task per node)",
            rank=0,
            world_size=2,
            local_world_size=1,
            nnodes=2,
        ),
        ("SLURM_STEP_NUM_TASKS=2",),
    ),
    (
        "srun step with pmix: SLURM wins over bare PMIX_RANK",
        {**SRUN_BASE, "SLURM_STEP_NUM_TASKS": "2", "SLURM_PROCID": "1", "PMIX_RANK": "1"},
        dict(kind="srun_step", rank=1),
        (),
    ),
    (
        "PMIx launcher outside SLURM",
        {"PMIX_RANK": "4", "PMIX_NAMESPACE": "prterun-x-1@1"},
        dict(kind="mpi", name="PMIx launcher", rank=4),
        ("PMIX_RANK=4",),
    ),
    (
        "SLURM batch script",
        {
            "SLURM_JOB_ID": "4242",
            "SLURM_JOB_NODELIST": "gpu[01-02]",
            "SLURM_JOB_NUM_NODES": "2",
            "SLURM_NODEID": "0",
            "SLURM_PROCID": "0",
            "SLURM_TASKS_PER_NODE": "1(x2)",
        },
        dict(
            kind="slurm_batch",
            name="SLURM batch script (no srun step)",
            node_rank=0,
            nnodes=2,
            rank=None,
        ),
        ("SLURM_JOB_ID=4242",),
    ),
    (
        "SLURM batch script seeing the batch step's special id",
        {"SLURM_JOB_ID": "4242", "SLURM_STEP_ID": "4294967291", "SLURM_NNODES": "2"},
        dict(kind="slurm_batch", nnodes=2),
        ("SLURM_STEP_ID=4294967291",),
    ),
    (
        "SLURM batch script exporting RANK/WORLD_SIZE/MASTER_ADDR",
        {"SLURM_JOB_ID": "4242", "RANK": "0", "WORLD_SIZE": "16", "MASTER_ADDR": "gpu01"},
        dict(kind="slurm_batch"),
        (),
    ),
    (
        "nothing",
        {"HOME": "/root", "PATH": "/usr/bin"},
        dict(kind="none", name="", rank=None, evidence=()),
        (),
    ),
    (
        "LOCAL_RANK alone is not a launcher",
        {"LOCAL_RANK": "0"},
        dict(kind="none"),
        ("LOCAL_RANK=0",),
    ),
    (
        "RANK/WORLD_SIZE without MASTER_ADDR",
        {"RANK": "0", "WORLD_SIZE": "1"},
        dict(kind="none"),
        ("RANK=0", "WORLD_SIZE=1"),
    ),
    (
        "inside launchx, script run directly",
        {"LAUNCHX_RUN_ID": "lx-1", "LAUNCHX_ATTEMPT": "0"},
        dict(kind="none", inside_launchx=True),
        ("LAUNCHX_RUN_ID=lx-1",),
    ),
    (
        "inside launchx, as a torchrun worker",
        {**TORCHRUN, "LAUNCHX_RUN_ID": "lx-2"},
        dict(kind="torchrun", inside_launchx=True, rank=9),
        ("TORCHELASTIC_RUN_ID=job7", "LAUNCHX_RUN_ID=lx-2"),
    ),
]


@pytest.mark.parametrize(
    ("environ", "fields", "evidence"),
    [pytest.param(env, fields, ev, id=name) for name, env, fields, ev in LAUNCH_TABLE],
)
def test_classify_launch(
    environ: dict[str, str], fields: dict[str, Any], evidence: tuple[str, ...]
) -> None:
    context = classify_launch(environ)
    for name, value in fields.items():
        assert getattr(context, name) == value, name
    for item in evidence:
        assert item in context.evidence
    for item in context.evidence:  # evidence only ever quotes the real environment
        name, _, value = item.partition("=")
        assert environ[name] == value
    if "inside_launchx" not in fields:
        assert context.inside_launchx is False


def test_classify_launch_is_pure() -> None:
    environ = dict(TORCHRUN)
    before = dict(environ)
    assert classify_launch(environ) == classify_launch(environ)
    assert environ == before


# --- parse_slurm -------------------------------------------------------------------------


def test_parse_slurm_outside_slurm() -> None:
    assert parse_slurm({"HOME": "/root"}) is None


def test_parse_slurm_batch_uses_job_tasks_per_node_for_this_node() -> None:
    facts = parse_slurm(
        {
            "SLURM_JOB_ID": "99",
            "SLURM_JOB_NODELIST": "a[1-3],b7",
            "SLURM_TASKS_PER_NODE": "2(x3),1",
            "SLURMD_NODENAME": "b7",
            "SLURM_NODEID": "0",  # the batch step says 0; the node name wins
            "SLURM_NTASKS": "7",
            "SLURM_STEP_ID": "4294967291",
        }
    )
    assert facts == SlurmFacts(
        job_id="99",
        nodelist=("a1", "a2", "a3", "b7"),
        nnodes=4,
        node_id=0,
        ntasks=7,
        ntasks_per_node=1,
        step_id=None,
    )


def test_parse_slurm_step_uses_step_tasks_per_node() -> None:
    facts = parse_slurm(
        {
            **SRUN_BASE,
            "SLURM_JOBID": "4242",
            "SLURM_TASKS_PER_NODE": "8(x2)",
            "SLURM_STEP_TASKS_PER_NODE": "4(x2)",
            "SLURM_NODEID": "1",
            "SLURM_PROCID": "6",
            "SLURM_LOCALID": "2",
            "SLURM_STEP_NUM_TASKS": "8",
        }
    )
    assert facts is not None
    assert (facts.ntasks_per_node, facts.step_id, facts.ntasks) == (4, "0", 8)
    assert (facts.procid, facts.localid, facts.node_id, facts.restart_count) == (6, 2, 1, 0)


def test_parse_slurm_falls_back_to_ntasks_per_node_and_legacy_names() -> None:
    facts = parse_slurm(
        {"SLURM_JOBID": "5", "SLURM_NODELIST": "n[1-2]", "SLURM_NTASKS_PER_NODE": "3"}
    )
    assert facts is not None
    assert (facts.job_id, facts.nodelist, facts.nnodes, facts.ntasks_per_node) == (
        "5",
        ("n1", "n2"),
        2,
        3,
    )


def test_srun_step_with_only_ntasks_and_nnodes_has_several_tasks_per_node() -> None:
    """No per-node count at all: 8 tasks on 2 nodes put at least 4 on some node, so the step
    is several tasks per node (never "one task on this node", which would allow torchrun)."""
    environ = {
        "SLURM_JOB_ID": "5",
        "SLURM_STEP_ID": "0",
        "SLURM_NTASKS": "8",
        "SLURM_NNODES": "2",
        "SLURM_PROCID": "1",
    }
    facts = parse_slurm(environ)
    assert facts is not None and facts.ntasks_per_node == 4
    context = classify_launch(environ)
    assert (context.kind, context.local_world_size) == ("srun_step", 4)
    assert context.name == "srun step (several tasks per node)"
    # The step's own counts come first; as many tasks as nodes says nothing more.
    step = {**environ, "SLURM_STEP_NUM_TASKS": "6", "SLURM_STEP_NUM_NODES": "2"}
    assert classify_launch(step).local_world_size == 3
    even = {**environ, "SLURM_NTASKS": "2"}
    assert classify_launch(even).local_world_size is None


def test_parse_slurm_rejects_a_malformed_nodelist() -> None:
    with pytest.raises(ConfigError) as raised:
        parse_slurm({"SLURM_JOB_ID": "1", "SLURM_JOB_NODELIST": "gpu[01-"})
    assert "SLURM_JOB_NODELIST" in raised.value.message


# --- the real root -----------------------------------------------------------------------


def test_gather_real_root_is_complete() -> None:
    """(How long it takes is benchmarks/cli_startup.py's: explain gathers the facts.)"""
    facts = gather(os.environ, lookup_hosts=("localhost",))
    assert facts.root == "/" and facts.python == sys.executable
    assert facts.cpu_count == len(os.sched_getaffinity(0)) or facts.cpu_count < len(
        os.sched_getaffinity(0)
    )
    assert facts.hostname == socket.gethostname()
    assert facts.host_ips.get("localhost", "").startswith("127.")
    assert any(i.kind == "loopback" and "127.0.0.1" in i.addresses for i in facts.interfaces)
    assert facts.launch == classify_launch(os.environ)


def test_gather_sees_a_real_listener_and_names_its_holder() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        plain = gather({})
        assert port in plain.listening  # seen, holder not looked up (not a launchx port)
        named = gather({"MASTER_PORT": str(port)})
        assert named.listening[port].pid == os.getpid()
        cmdline = named.listening[port].cmdline
        assert cmdline is not None and "python" in cmdline
    assert port not in gather({}).listening
