"""What one node tells node 0 about itself: the facts a multi-node job needs to agree on.

A ``NodeFacts`` is built from the node's own resolution (so it holds the values the job
will use: the ``NCCL_IB_HCA`` and socket interface as resolved on that node, its
processes per node, its backend), travels as JSON over the channel, and is validated at
node 0 (``extra="forbid"``: a node running another launchx is named, not misread).
Pure: the only inputs are the resolution and what the caller measured.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from launchx import catalog
from launchx.codes import Level
from launchx.findings import Finding
from launchx.origin import UNRESOLVED
from launchx.resolve import Resolution

FORMAT: Literal["launchx-node-facts/2"] = "launchx-node-facts/2"

# Variables that legitimately differ from node to node: rank numbers and ids a launcher
# gives each node or task, and device lists a scheduler fills per node.
_PER_NODE = re.compile(
    r"(RANK|_LOCALID|_NODEID|_PROCID|_NODENAME)$"
    r"|^(SLURM_|OMPI_|PMI_|PMIX_|MV2_|PET_NODE_RANK$|HOSTNAME$|CUDA_VISIBLE_DEVICES$"
    r"|NVIDIA_VISIBLE_DEVICES$|LAUNCHX_)"
)
_SOCKET_VARS = ("NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME")


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PortState(_Wire):
    """One RDMA port as the node sees it."""

    device: str
    port: int
    state: str  # "ACTIVE", "DOWN", ...
    phys_state: str  # "LinkUp", "Disabled", ...
    link_layer: str
    rate: str = ""

    @property
    def name(self) -> str:
        return f"{self.device}:{self.port}"

    @property
    def active(self) -> bool:
        return self.state == "ACTIVE" and self.phys_state == "LinkUp"

    @property
    def shown(self) -> str:
        return "ACTIVE" if self.active else f"{self.state}/{self.phys_state}"


class IfaceState(_Wire):
    name: str
    up: bool
    has_address: bool
    kind: str = "ether"
    speed_mbps: int | None = None

    @property
    def usable(self) -> bool:
        return self.up and self.has_address


class WireFinding(_Wire):
    code: str
    level: Level
    var: str | None
    message: str
    fix: str

    def finding(self) -> Finding:
        return Finding(self.code, self.level, self.var, self.message, self.fix)


class NodeFacts(_Wire):
    """One node's summary (see the module docstring). ``rendezvous`` is None when this
    node reached the master's rendezvous port, else what went wrong."""

    format: Literal["launchx-node-facts/2"] = FORMAT
    node: int
    host: str
    launchx: str
    profile: str
    torch: str | None = None
    cuda: str | None = None
    nccl: str | None = None
    driver: str | None = None
    gpus: int | None = None
    nproc: int = 1
    # False where this node could not work the count out (LX304: 'gpu' and no GPU seen);
    # nproc is then a placeholder, not what the node would run
    nproc_known: bool = True
    backend: str = "gloo"
    ib_off: bool = False  # NCCL_IB_DISABLE=1 or NCCL_NET=Socket
    hca_spec: str | None = None  # NCCL_IB_HCA as resolved on this node
    ib_ports: tuple[PortState, ...] = ()
    sockets: dict[str, str] = {}  # NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME as resolved
    interfaces: tuple[IfaceState, ...] = ()
    shm_bytes: int | None = None
    memlock_bytes: int | None = None  # facts.MEMLOCK_UNLIMITED (-1) for unlimited
    env: dict[str, str] = {}  # the job's variables that every node should share
    findings: tuple[WireFinding, ...] = ()
    rendezvous: str | None = None

    @property
    def uses_rdma(self) -> bool:
        """NCCL will look for RDMA devices on this node (it runs NCCL with IB allowed)."""
        return self.backend == "nccl" and not self.ib_off


def summarize(
    res: Resolution,
    node: int,
    findings: Sequence[Finding],
    *,
    version: str,
    rendezvous: str | None = None,
) -> NodeFacts:
    """This node's summary from its resolution and its own doctor findings."""
    facts = res.facts
    env = {name: s.value for name, s in res.env.items()}
    ib_off = env.get("NCCL_IB_DISABLE") == "1" or env.get("NCCL_NET", "").lower() == "socket"
    return NodeFacts(
        node=node,
        host=facts.hostname,
        launchx=version,
        profile=res.profile.name,
        torch=facts.torch_version,
        cuda=facts.cuda_runtime,
        nccl=facts.nccl_version,
        driver=facts.driver_version,
        gpus=facts.gpu_count,
        nproc=res.nproc_per_node,
        nproc_known=res.launch["nproc_per_node"].source != UNRESOLVED,
        backend=res.launch["backend"].value,
        ib_off=ib_off,
        hca_spec=env.get("NCCL_IB_HCA"),
        ib_ports=tuple(
            PortState(
                device=p.device,
                port=p.port,
                state=p.state,
                phys_state=p.phys_state,
                link_layer=p.link_layer,
                rate=p.rate,
            )
            for p in facts.ib_ports
        ),
        sockets={name: env[name] for name in _SOCKET_VARS if env.get(name)},
        interfaces=tuple(
            IfaceState(
                name=i.name,
                up=i.up,
                has_address=bool(i.addresses),
                kind=i.kind,
                speed_mbps=facts.link_speeds.get(i.name),
            )
            for i in facts.interfaces
        ),
        shm_bytes=facts.shm_bytes,
        memlock_bytes=facts.memlock_bytes,
        env=shared_env(res),
        findings=tuple(
            WireFinding(code=f.code, level=f.level, var=f.var, message=f.message, fix=f.fix)
            for f in findings
        ),
        rendezvous=rendezvous,
    )


def shared_env(res: Resolution) -> dict[str, str]:
    """The job's variables every node should agree on: not filled per node by ``auto``, not
    a rank or id a launcher gives each node, not a secret (compared, so never sent)."""
    return {
        name: setting.value
        for name, setting in sorted(res.env.items())
        if setting.source.kind != "auto"
        and not _PER_NODE.search(name)
        and not catalog.is_secret(name)
    }


def parse(data: Mapping[str, object]) -> NodeFacts | str:
    """A node's summary from the wire, or why it cannot be read (another launchx?)."""
    from pydantic import ValidationError

    try:
        return NodeFacts.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "?"
        return f"{where}: {first.get('msg', 'invalid')}"
