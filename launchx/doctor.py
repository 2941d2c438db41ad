"""``launchx doctor``: what on this node will break a distributed run, before it starts.

The checks are pure functions of ``HostFacts`` (plus the resolved profile's findings,
which ``report`` adds), so every rule is tested with recorded hosts. ``check`` is the
command and not pure: for this node alone it prints ``report``; with several nodes (or
JSON) it runs the preflight, which meets the other nodes over sockets and starts the link
test's processes. Codes LX22x belong to this module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from launchx.facts import HostFacts
from launchx.findings import Finding, has_errors, sort_findings

if TYPE_CHECKING:
    from launchx.plan import LaunchDecision
    from launchx.resolve import Resolution

GIB = 1024**3
# NCCL's shared-memory transport and DataLoader workers both live in /dev/shm; Docker's
# default of 64 MiB is the classic cause of "Bus error" and NCCL shm failures.
MIN_SHM_BYTES = 1 * GIB
TORCHRUN_PORTS = (29500, 29400)


@dataclass(frozen=True)
class FactRow:
    what: str
    value: str


def fact_rows(facts: HostFacts) -> list[FactRow]:
    """The facts a person debugging a node wants to see first."""
    gpus = "unknown" if facts.gpu_count is None else str(facts.gpu_count)
    if facts.gpu_visible is not None:
        gpus += f" (CUDA_VISIBLE_DEVICES={','.join(facts.gpu_visible)})"
    ports = ", ".join(f"{p.device}:{p.port} {p.state}/{p.link_layer}" for p in facts.ib_ports)
    ifaces = ", ".join(
        f"{i.name} {'up' if i.up else 'down'} {' '.join(i.addresses) or '-'}"
        for i in facts.interfaces
    )
    shm = "unknown" if facts.shm_bytes is None else f"{facts.shm_bytes / GIB:.1f} GiB"
    return [
        FactRow("host", facts.hostname),
        FactRow("launched by", facts.launch.describe()),
        FactRow("python", facts.python),
        FactRow("torch", facts.torch_version or "not installed"),
        FactRow("usable CPUs", str(facts.cpu_count)),
        FactRow("visible GPUs", gpus),
        FactRow("RDMA ports", ports or "none"),
        FactRow("interfaces", ifaces or "none"),
        FactRow("/dev/shm", shm),
        FactRow("ephemeral ports", f"{facts.ephemeral_range[0]}-{facts.ephemeral_range[1]}"),
    ]


def host_checks(facts: HostFacts, *, port_given: bool = False) -> list[Finding]:
    """Node-level problems, independent of any profile. ``port_given``: the run's master
    port is decided before launch (a flag, the profile, or derived from a SLURM job id), so
    another process on torchrun's defaults is none of its business."""
    out: list[Finding] = []
    if facts.torch_version is None:
        out.append(
            Finding(
                "LX220",
                "error",
                None,
                f"torch is not installed for {facts.python}: torchrun cannot start",
                "pip install torch in the environment that runs launchx",
            )
        )
    if facts.shm_bytes is not None and facts.shm_bytes < MIN_SHM_BYTES:
        out.append(
            Finding(
                "LX221",
                "warning",
                None,
                f"/dev/shm is only {facts.shm_bytes / 2**20:.0f} MiB: NCCL's shared-memory "
                "transport and DataLoader workers fail with 'Bus error' or NCCL shm errors",
                "give the container more: docker run --shm-size=16g (or --ipc=host); on "
                "Kubernetes mount an emptyDir with medium: Memory at /dev/shm",
            )
        )
    inactive = [p for p in facts.ib_ports if not p.active]
    if facts.ib_ports and not facts.active_ib_devices:
        out.append(
            Finding(
                "LX222",
                "error",
                "NCCL_IB_HCA",
                "RDMA devices are present but no port is ACTIVE/LinkUp: "
                + ", ".join(f"{p.device}:{p.port}={p.state}/{p.phys_state}" for p in inactive),
                "check the cable and the subnet manager (ibstat; `sminfo`), or use the ethernet "
                "profile until the fabric is up",
            )
        )
    elif inactive:
        out.append(
            Finding(
                "LX223",
                "warning",
                "NCCL_IB_HCA",
                "some RDMA ports are not active: "
                + ", ".join(f"{p.device}:{p.port}={p.state}" for p in inactive),
                "leave them out of NCCL_IB_HCA (the auto value does) or fix their links",
            )
        )
    usable = [i for i in facts.interfaces if i.up and i.addresses and i.kind != "loopback"]
    if facts.interfaces and not usable:
        out.append(
            Finding(
                "LX224",
                "warning",
                "NCCL_SOCKET_IFNAME",
                "no network interface except loopback is up with an address: only a "
                "single-node run can work here",
                "check `ip addr`; multi-node runs need a routable interface",
            )
        )
    # a port the user gave is the plan's to check (LX207, LX208); torchrun's defaults held by
    # another process matter only to a run that did not choose its own
    for port in () if port_given else TORCHRUN_PORTS:
        holder = facts.listening.get(port)
        if holder is not None:
            out.append(
                Finding(
                    "LX225",
                    "warning",
                    "MASTER_PORT",
                    f"{holder.describe()} (torchrun's default port: a leftover job?)",
                    "launchx picks a free port for single-node runs; for multi-node runs "
                    f"stop it{f' (kill {holder.pid})' if holder.pid else ''} or pass "
                    "--master-port",
                )
            )
    if facts.gpu_visible is not None and len(set(facts.gpu_visible)) != len(facts.gpu_visible):
        out.append(
            Finding(
                "LX226",
                "error",
                "CUDA_VISIBLE_DEVICES",
                f"CUDA_VISIBLE_DEVICES={','.join(facts.gpu_visible)} names a GPU twice",
                "list each GPU once",
            )
        )
    return out


def assess(res: Resolution) -> tuple[LaunchDecision, tuple[Finding, ...]]:
    """The launcher the profile gets on this node and every finding of this node: the host
    checks and everything ``explain`` says, sorted. The one place they are merged: ``report``
    prints them, the preflight sends them to node 0."""
    from launchx import plan

    decision, launch_findings = plan.assess(res)
    port_given = res.launch["master_port"].value != "auto"
    host = host_checks(res.facts, port_given=port_given)
    return decision, sort_findings([*host, *launch_findings])


def report(res: Resolution) -> tuple[str, int]:
    """This node's report, as ``launchx doctor`` prints it for one node: the facts, the
    launcher the profile gets here, and every finding (the host checks and everything
    ``explain`` says); with the exit code, 2 when one is an error, else 0."""
    from launchx import render

    rows = fact_rows(res.facts)
    width = max(len(r.what) for r in rows)
    lines = [f"{row.what:<{width}}  {row.value}\n" for row in rows]
    decision, findings = assess(res)
    lines.append(
        f"\nprofile {res.profile.name}: launcher {decision.launcher} ({decision.reason})\n"
    )
    lines.append(render.findings_text(findings) if findings else "no problems found\n")
    return "".join(lines), 2 if has_errors(findings) else 0


def check(
    res: Resolution,
    *,
    echo: Callable[[str], None],
    join_timeout_s: float = 60.0,
    comm_test: bool = True,
    as_json: bool = False,
) -> int:
    """``launchx doctor``: with several nodes, or ``as_json`` (whose schema is the
    preflight's), every node of the job through the preflight, which prints its own report;
    otherwise this node's ``report``, through ``echo``. Returns the exit code."""
    if res.nnodes > 1 or as_json:
        from launchx import preflight

        return preflight.check(
            res, join_timeout_s=join_timeout_s, comm_test=comm_test, as_json=as_json
        )
    text, code = report(res)
    echo(text)
    return code
