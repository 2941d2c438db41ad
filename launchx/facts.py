"""HostFacts: everything launchx knows about the host, as frozen data.

``launchx.detect`` is the only code that fills these from the real machine (environment,
``/sys``, ``/proc``, sockets). Every later stage takes them as arguments, so any decision
can be tested by constructing a ``HostFacts`` by hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

LaunchKind = Literal[
    "none",  # nothing launched us: launchx must start the ranks
    "torchrun",  # we are a torchrun worker already (TORCHELASTIC_RUN_ID, GROUP_RANK...)
    "platform",  # a platform/launcher started one process per GPU (RANK+WORLD_SIZE+MASTER_ADDR...)
    "mpi",  # Open MPI / MPICH / Intel MPI / MVAPICH started one process per rank
    "srun_step",  # inside an srun step (SLURM_STEP_ID present)
    "slurm_batch",  # inside a SLURM allocation's batch script, no step yet
    "per_node",  # a platform that gives per-node values (PET_*, PAI, Kubeflow<1.7, SageMaker)
]


@dataclass(frozen=True)
class LaunchContext:
    """Who started this process, concluded from all the evidence in the environment."""

    kind: LaunchKind = "none"
    name: str = ""  # human words: "Kubeflow PyTorchJob", "Open MPI", "torchrun", "srun"
    rank: int | None = None
    world_size: int | None = None
    local_rank: int | None = None
    local_world_size: int | None = None
    node_rank: int | None = None
    nnodes: int | None = None
    evidence: tuple[str, ...] = ()  # "OMPI_COMM_WORLD_RANK=3", ... (why we concluded this)
    inside_launchx: bool = False  # LAUNCHX_RUN_ID inherited

    def describe(self) -> str:
        if self.kind == "none":
            return "nothing (launchx starts the ranks)"
        where = self.name or self.kind
        if self.rank is not None and self.world_size is not None:
            return f"{where}, rank {self.rank} of {self.world_size}"
        return where


@dataclass(frozen=True)
class SlurmFacts:
    job_id: str
    nodelist: tuple[str, ...]  # expanded SLURM_JOB_NODELIST
    nnodes: int
    node_id: int | None = None  # SLURM_NODEID
    ntasks: int | None = None  # SLURM_NTASKS
    ntasks_per_node: int | None = None  # tasks of the current step (or job) on this node
    step_id: str | None = None  # SLURM_STEP_ID: set inside an srun step
    procid: int | None = None  # SLURM_PROCID
    localid: int | None = None  # SLURM_LOCALID
    restart_count: int = 0  # SLURM_RESTART_COUNT (unset on the first run)
    cpus_per_task: int | None = None
    gpus_on_node: int | None = None


@dataclass(frozen=True)
class IbPort:
    """One port of an RDMA device under /sys/class/infiniband."""

    device: str  # mlx5_0
    port: int
    state: str  # "ACTIVE", "DOWN", "INIT", ... (the word from "4: ACTIVE")
    phys_state: str  # "LinkUp", "Disabled", ...
    link_layer: str  # "InfiniBand" or "Ethernet" (RoCE)
    rate: str = ""
    netdev: str | None = None  # the Ethernet interface of a RoCE port

    @property
    def active(self) -> bool:
        return self.state == "ACTIVE" and self.phys_state == "LinkUp"


@dataclass(frozen=True)
class Interface:
    name: str
    up: bool  # operstate up (or unknown with carrier) and IFF_UP|IFF_RUNNING
    addresses: tuple[str, ...] = ()  # IPv4/IPv6 addresses without prefix length
    kind: str = "ether"  # ether, loopback, infiniband, bridge, virtual


@dataclass(frozen=True)
class Route:
    """One IPv4 route from /proc/net/route (addresses as dotted quads)."""

    iface: str
    destination: str
    mask: str
    gateway: str
    metric: int = 0


@dataclass(frozen=True)
class PortHolder:
    """Who listens on a TCP port, as far as /proc lets us see."""

    port: int
    pid: int | None = None
    cmdline: str | None = None

    def describe(self) -> str:
        if self.pid is None:
            return f"port {self.port} is held by a process launchx cannot see (another user?)"
        return f"port {self.port} is held by pid {self.pid}: {_short_cmdline(self.cmdline or '?')}"


def _short_cmdline(cmdline: str, width: int = 80) -> str:
    """A command line fit for one line of a finding (``python -c`` programs span many). Cut
    between words only: a secret in it is scrubbed when shown, and only a whole one is."""
    words = cmdline.split()
    kept: list[str] = []
    for word in words:
        if kept and len(" ".join([*kept, word])) > width:
            return " ".join(kept) + " ..."
        kept.append(word)
    return " ".join(kept)


# ``HostFacts.memlock_bytes`` for a limit of ``unlimited`` (RLIM_INFINITY).
MEMLOCK_UNLIMITED = -1


@dataclass(frozen=True)
class HostFacts:
    hostname: str = "localhost"
    environ: Mapping[str, str] = field(default_factory=dict)  # the user's environment
    python: str = "python3"  # sys.executable: torchrun runs from the same interpreter
    cpu_count: int = 1  # usable CPUs (affinity and cgroup quota)
    gpu_count: int | None = None  # visible GPUs honouring CUDA_VISIBLE_DEVICES; None unknown
    gpu_visible: tuple[str, ...] | None = None  # CUDA_VISIBLE_DEVICES entries, parsed
    ib_ports: tuple[IbPort, ...] = ()
    interfaces: tuple[Interface, ...] = ()
    routes: tuple[Route, ...] = ()
    host_ips: Mapping[str, str] = field(default_factory=dict)  # name -> IPv4 (looked up once)
    ephemeral_range: tuple[int, int] = (32768, 60999)
    listening: Mapping[int, PortHolder] = field(default_factory=dict)  # TCP LISTEN ports
    launch: LaunchContext = field(default_factory=LaunchContext)
    slurm: SlurmFacts | None = None
    shm_bytes: int | None = None  # size of /dev/shm
    torch_version: str | None = None  # from package metadata, never by importing torch
    root: str = "/"  # the directory the /sys and /proc facts were read from
    # Versions a multi-node job needs to agree on (host-facts.md §4.1); None = unknown/absent.
    driver_version: str | None = None  # the NVIDIA kernel module, e.g. "535.104.05"
    cuda_runtime: str | None = None  # CUDA torch was built with ("12.1"); None: CPU build
    nccl_version: str | None = None  # the nvidia-nccl-cu* wheel torch loads; None unknown
    memlock_bytes: int | None = None  # soft RLIMIT_MEMLOCK; MEMLOCK_UNLIMITED; None unknown
    link_speeds: Mapping[str, int] = field(default_factory=dict)  # interface -> Mb/s (known)

    @property
    def ib_devices(self) -> tuple[str, ...]:
        return tuple(sorted({p.device for p in self.ib_ports}))

    @property
    def active_ib_devices(self) -> tuple[str, ...]:
        return tuple(sorted({p.device for p in self.ib_ports if p.active}))

    @property
    def interface_names(self) -> tuple[str, ...]:
        return tuple(i.name for i in self.interfaces)

    @property
    def memlock_unlimited(self) -> bool:
        return self.memlock_bytes == MEMLOCK_UNLIMITED


@dataclass(frozen=True)
class TargetFacts:
    """Whether what ``launchx run`` is asked to start exists here: a script file, an
    importable module, or an executable on PATH. Read by ``detect.probe_target``."""

    kind: Literal["script", "module", "executable"]
    name: str  # as the user wrote it
    found: bool
    where: str  # the directory looked in, or "PATH"
    close: tuple[str, ...] = ()  # names that exist and look alike (a typo?)
    directory: bool = False  # the name is a directory Python cannot run (no __main__.py)
