"""The launch plan: exactly what ``launchx run`` will execute, built by pure functions.

``--dry-run`` prints the plan and ``run`` executes the same object, so what a user sees is
what runs. Deciding the launcher (torchrun, the script directly, srun) and refusing
launches that cannot work (nested launchers, a held port, more ranks than GPUs) happen
here, from the ``Resolution`` and its ``HostFacts`` alone.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from launchx.errors import ConfigError
from launchx.facts import HostFacts, LaunchContext, TargetFacts
from launchx.findings import Finding, counted, finding, sort_findings
from launchx.inner_launcher import find_inner_launcher
from launchx.origin import ENV, FREE_PORT, MAPPED, UNRESOLVED, Origin
from launchx.resolve import HANG_SHARE_OF_PG, Resolution
from launchx.runtime.env import (
    LOCAL_RANK_VARS,
    LOCAL_WORLD_SIZE_VARS,
    RANK_VARS,
    WORLD_SIZE_VARS,
)
from launchx.task import task_env
from launchx.watch.policy import HangPolicy, parse_hang_timeout

LauncherKind = Literal["torchrun", "direct", "srun"]
DEFAULT_MULTINODE_PORT = 29500
# Set on the launchx that srun starts on each node, so it knows the outer launchx owns the
# retry loop and the attempt count.
STEP_MARKER = "LAUNCHX_STEP"
# torchrun (2.8+) forwards these to the workers; older releases ignore the variable.
TORCHRUN_SIGNALS = "SIGTERM,SIGINT,SIGHUP,SIGQUIT,SIGUSR1,SIGUSR2"
# Where torchrun keeps its own logs and error files, inside an attempt's log directory.
TORCHRUN_LOGS = ".torchrun"


def torchrun_logs(log_dir: str, node_rank: int, nnodes: int) -> Path:
    """torchrun's own directory for this node: one per node, because the nodes of a run may
    share its log directory and each removes its own when the attempt ends."""
    name = TORCHRUN_LOGS if nnodes <= 1 else f"{TORCHRUN_LOGS}-node-{node_rank}"
    return Path(log_dir) / name


# torchrun's per-rank console prefix uses the global rank so multi-node output stays readable.
RANK_PREFIX_TEMPLATE = "[r${rank}]: "


@dataclass(frozen=True)
class Target:
    """What to run: a script (or module, or executable) and its arguments, verbatim."""

    script: str
    args: tuple[str, ...] = ()
    module: bool = False
    no_python: bool = False

    def command(self, python: str) -> list[str]:
        if self.no_python:
            return [self.script, *self.args]
        if self.module:
            return [python, "-m", self.script, *self.args]
        return [python, self.script, *self.args]


@dataclass(frozen=True)
class EnvEntry:
    name: str
    value: str | None  # None: removed from the child's environment
    source: Origin


@dataclass(frozen=True)
class LaunchDecision:
    """Which launcher, and why (the words ``explain`` prints under "launched by")."""

    launcher: LauncherKind
    reason: str
    findings: tuple[Finding, ...] = ()
    mapped_env: Mapping[str, str] = field(default_factory=dict)  # MPI/PMI -> RANK, ...


@dataclass(frozen=True)
class PortDecision:
    port: int | None  # None: single node, choose a free one at launch time
    source: Origin
    findings: tuple[Finding, ...] = ()


@dataclass(frozen=True)
class LaunchPlan:
    launcher: LauncherKind
    argv: tuple[str, ...]
    env: tuple[EnvEntry, ...]
    findings: tuple[Finding, ...]
    profile: str
    run_id: str | None  # None: drawn at launch (a dry run)
    attempt: int
    nnodes: int
    nproc_per_node: int
    node_rank: int
    master_addr: str
    master_port: int | None  # None: a free port drawn at launch (a dry run)
    port_source: Origin
    context: str
    log_dir: str | None
    grace_period_s: float
    console_ranks: str = "all"  # logs.console_ranks: the ranks the console shows
    # --preflight: the check that runs once before the first attempt (as a command a user
    # could type: launchx doctor across the nodes, or the srun step of it); None: none.
    preflight: tuple[str, ...] | None = None

    @property
    def ok(self) -> bool:
        return not any(f.level == "error" for f in self.findings)

    def env_changes(self) -> dict[str, str | None]:
        return {e.name: e.value for e in self.env}

    def shell_line(self) -> str:
        """The command as one line a user can paste into bash."""
        return shlex.join(self.argv)

    def to_json(self) -> dict[str, object]:
        return {
            "launcher": self.launcher,
            "argv": list(self.argv),
            "env": {e.name: {"value": e.value, "source": str(e.source)} for e in self.env},
            "findings": [f.to_json() for f in self.findings],
            "profile": self.profile,
            "run_id": self.run_id,
            "attempt": self.attempt,
            "nnodes": self.nnodes,
            "nproc_per_node": self.nproc_per_node,
            "node_rank": self.node_rank,
            "master": f"{self.master_addr}:{self.master_port or PORT_AT_LAUNCH}",
            "master_port": self.master_port,
            "port_source": str(self.port_source),
            "log_dir": self.log_dir,
            "console_ranks": self.console_ranks,
            "preflight": list(self.preflight) if self.preflight is not None else None,
        }


def _rank_words(ctx: LaunchContext) -> str:
    if ctx.rank is not None and ctx.world_size is not None:
        return f"rank {ctx.rank} of {ctx.world_size}"
    return "one of its ranks"


def _mpi_mapping(environ: Mapping[str, str]) -> dict[str, str]:
    """RANK/LOCAL_RANK/WORLD_SIZE/LOCAL_WORLD_SIZE from MPI or PMI variables, where the
    platform left them out: the same tables (and order) ``launchx.runtime`` reads."""
    mapped: dict[str, str] = {}
    for table in (RANK_VARS, LOCAL_RANK_VARS, WORLD_SIZE_VARS, LOCAL_WORLD_SIZE_VARS):
        name = table[0][1]  # the torchrun name is what the script reads
        if environ.get(name):
            continue
        for _launcher, source in table[1:]:
            if environ.get(source):
                mapped[name] = environ[source]
                break
    return mapped


def _nothing_started(ctx: LaunchContext, nproc: int) -> tuple[Finding, ...]:
    """``-p platform-ddp`` on a workstation: the banner said 2 processes, one ran."""
    if ctx.kind != "none" or nproc <= 1:
        return ()
    return (
        finding(
            "LX215",
            None,
            "launcher direct, but nothing here started the ranks (no RANK, WORLD_SIZE or a "
            f"platform's variables): the script runs once, as one process, not {nproc}",
            "use a profile that starts the ranks (-p local on CPU, -p single-node on GPUs), "
            "or run it where the platform starts them",
        ),
    )


def decide_launcher(res: Resolution) -> LaunchDecision:
    """Pick torchrun, direct or srun from what launched us, or refuse what cannot work."""
    facts = res.facts
    ctx = facts.launch
    requested = res.launch["launcher"].value
    nproc = int(res.launch["nproc_per_node"].value)
    findings: list[Finding] = []

    if (
        ctx.inside_launchx
        and requested != "direct"
        and ctx.kind not in ("torchrun", "platform", "mpi", "srun_step")
    ):
        findings.append(
            finding(
                "LX204",
                "LAUNCHX_RUN_ID",
                "launchx run is already running this process tree (LAUNCHX_RUN_ID="
                f"{facts.environ.get('LAUNCHX_RUN_ID', '?')} is inherited); a second launch "
                "would start the ranks again inside each rank",
                "run the training script directly, or use --launcher direct",
            )
        )
        return LaunchDecision("direct", "refused: inside launchx", tuple(findings))

    findings.extend(_contradicts_launch_in_place(res))
    if ctx.kind == "torchrun":
        if requested == "torchrun":
            findings.append(
                finding(
                    "LX201",
                    "TORCHELASTIC_RUN_ID",
                    f"this process is {_rank_words(ctx)} under torchrun already; a second torchrun "
                    f"would start {nproc} more processes per rank",
                    "run the script directly (`--launcher direct`)",
                )
            )
        return LaunchDecision(
            "direct", f"launched by {ctx.describe()}: running the script directly", tuple(findings)
        )

    if ctx.kind in ("platform", "mpi"):
        if requested == "torchrun":
            findings.append(
                finding(
                    "LX202",
                    "RANK",
                    f"{ctx.name or 'a platform'} already started one process per rank "
                    f"(this is {_rank_words(ctx)}); torchrun here would start "
                    f"{counted(nproc, 'process', 'processes')} "
                    "for every one of them",
                    "use --profile platform-ddp (or --launcher direct) to run the script directly",
                )
            )
        missing = [v for v in ("MASTER_ADDR", "MASTER_PORT") if not facts.environ.get(v)]
        if missing and requested != "torchrun":
            findings.append(
                finding(
                    "LX209",
                    missing[0],
                    f"{ctx.name or 'the platform'} did not set {' and '.join(missing)}: "
                    "init_process_group(init_method='env://') will fail on every rank",
                    "export them to every rank, e.g. mpirun -x MASTER_ADDR=<first host> "
                    "-x MASTER_PORT=<free port> ...",
                )
            )
        return LaunchDecision(
            "direct",
            f"launched by {ctx.describe()}: running the script directly",
            tuple(findings),
            _mpi_mapping(facts.environ),
        )

    if ctx.kind == "srun_step" and facts.slurm is not None:
        per_node = facts.slurm.ntasks_per_node or 1
        if per_node > 1:
            if requested == "torchrun" and nproc > 1:
                findings.append(
                    finding(
                        "LX203",
                        "SLURM_NTASKS_PER_NODE",
                        f"this srun step already runs {per_node} tasks on this node; torchrun with "
                        f"--nproc-per-node {nproc} in each would make {per_node * nproc} processes",
                        "run one task per node (srun --ntasks-per-node=1) for torchrun, or let "
                        "launchx run each task directly (--launcher auto or direct)",
                    )
                )
                return LaunchDecision("torchrun", "refused", tuple(findings))
            if requested != "torchrun":
                return LaunchDecision(
                    "direct",
                    f"srun step with {per_node} tasks on this node: each task is one rank",
                    (),
                    task_env(facts.environ),
                )
        if requested == "direct":
            return LaunchDecision("direct", "direct launch requested", (), task_env(facts.environ))
        return LaunchDecision(
            "torchrun", "srun step with one task on this node: torchrun starts the node's ranks"
        )

    if requested == "srun" or (requested == "auto" and ctx.kind == "slurm_batch"):
        if res.profile.slurm.mode == "per_task":
            return LaunchDecision(
                "srun",
                f"SLURM batch script: srun starts one task per process ({nproc} per node)",
                tuple(_per_task_srun_findings(res, nproc)),
            )
        return LaunchDecision("srun", "SLURM batch script: srun starts one task per node")

    if requested == "direct":
        return LaunchDecision("direct", "direct launch requested", _nothing_started(ctx, nproc))
    if ctx.kind == "per_node":
        return LaunchDecision(
            "torchrun", f"{ctx.describe()} gives per-node values: torchrun starts this node's ranks"
        )
    return LaunchDecision("torchrun", "nothing launched us: torchrun starts the ranks")


def _contradicts_launch_in_place(res: Resolution) -> list[Finding]:
    """Inside a launch that already started the ranks (torchrun, a platform, MPI), an
    explicit ``--nproc-per-node`` that differs from what it started would be silently
    ignored while the banner printed it: say which is true instead."""
    ctx = res.facts.launch
    setting = res.launch["nproc_per_node"]
    asked = setting.source.kind in ("flag", "set") and setting.value.isdigit()
    if ctx.kind not in ("torchrun", "platform", "mpi") or not asked:
        return []
    started = ctx.local_world_size
    if started is None or started == int(setting.value):
        return []
    return [
        finding(
            "LX212",
            "nproc_per_node",
            f"{counted(int(setting.value), 'process', 'processes')} per node asked for "
            f"({setting.source}), but "
            f"{ctx.name or ctx.kind} already started {started} on this node "
            f"(LOCAL_WORLD_SIZE={started}; this is {_rank_words(ctx)})",
            f"drop --nproc-per-node (launchx runs the script directly as one of the {started}), "
            "or change the outer launcher's count",
        )
    ]


def _per_task_srun_findings(res: Resolution, nproc: int) -> list[Finding]:
    """per_task: the step runs ``srun --ntasks-per-node=<nproc>``, and srun silently ignores
    that when it differs from the allocation's tasks per node (it starts the allocation's
    count instead; slurm 22.05), so the world would not be the size the plan prints."""
    slurm = res.facts.slurm
    setting = res.launch["nproc_per_node"]
    if slurm is None or not slurm.ntasks_per_node or setting.source == UNRESOLVED:
        return []
    if nproc == slurm.ntasks_per_node:
        return []
    return [
        finding(
            "LX210",
            "nproc_per_node",
            f"{counted(nproc, 'process', 'processes')} per node ({setting.source}) but this "
            "allocation has "
            f"{slurm.ntasks_per_node} tasks per node (SLURM_TASKS_PER_NODE); in mode per_task "
            "each task is one process, and srun would start the allocation's count instead",
            f"use --nproc-per-node {slurm.ntasks_per_node} (or auto), or submit the job with "
            f"--ntasks-per-node {nproc}",
        )
    ]


def gpu_findings(res: Resolution) -> list[Finding]:
    """More ranks than visible GPUs, or a GPU named twice, fail later in NCCL: refuse now."""
    facts: HostFacts = res.facts
    out: list[Finding] = []
    visible = facts.gpu_visible
    if visible:
        dupes = sorted({v for v in visible if visible.count(v) > 1})
        if dupes:
            out.append(
                finding(
                    "LX206",
                    "CUDA_VISIBLE_DEVICES",
                    f"CUDA_VISIBLE_DEVICES={','.join(visible)} names GPU {', '.join(dupes)} more "
                    "than once: two ranks would share a GPU and NCCL fails with 'Duplicate GPU'",
                    "list each GPU once",
                )
            )
    wants_gpu = res.launch["backend"].value == "nccl" or res.profile.nproc_per_node == "gpu"
    nproc = int(res.launch["nproc_per_node"].value)
    unresolved = res.launch["nproc_per_node"].source == UNRESOLVED  # reported already
    if wants_gpu and not unresolved and facts.gpu_count is not None and nproc > facts.gpu_count:
        out.append(
            finding(
                "LX205",
                "nproc_per_node",
                f"{counted(nproc, 'process', 'processes')} per node but only "
                f"{counted(facts.gpu_count, 'GPU is', 'GPUs are')} visible "
                f"(from {res.launch['nproc_per_node'].source})",
                f"use --nproc-per-node {facts.gpu_count} or fewer, or check CUDA_VISIBLE_DEVICES"
                if facts.gpu_count
                else "this host has no GPU: use -p local (CPU ranks, gloo) to run here",
            )
        )
    return out


def decide_port(res: Resolution) -> PortDecision:
    """Single node: a taken or 'auto' port is replaced by a free one (returned as None).
    Several nodes: the others dial this port, so node 0 must own it or refuse."""
    setting = res.launch["master_port"]
    nnodes = int(res.launch["nnodes"].value)
    node_rank = int(res.launch["node_rank"].value)
    listening = res.facts.listening
    if nnodes == 1:
        if setting.value == "auto":
            return PortDecision(None, FREE_PORT)
        port = int(setting.value)
        if port in listening:
            holder = listening[port]
            stop = f"stop pid {holder.pid}" if holder.pid else "free that port"
            note = finding(
                "LX208",
                "MASTER_PORT",
                f"{holder.describe()}; launchx uses another free port instead of {port} "
                f"(from {setting.source}; one node: nothing else dials it)",
                f"nothing to do; to keep {port}, {stop} first",
            )
            return PortDecision(None, Origin.auto(f"{port} busy -> a free port"), (note,))
        return PortDecision(port, setting.source)
    if setting.value == "auto":
        port, source = DEFAULT_MULTINODE_PORT, Origin("default", "torchrun's port (several nodes)")
    else:
        port, source = int(setting.value), setting.source
    if node_rank == 0 and port in listening:
        holder = listening[port]
        return PortDecision(
            port,
            source,
            (
                finding(
                    "LX207",
                    "MASTER_PORT",
                    f"master port {port} is taken on this node (rank 0 of {nnodes}): "
                    f"{holder.describe()}; the other nodes would connect to it",
                    f"stop that process{f' (kill {holder.pid})' if holder.pid else ''}, or pick "
                    "another port with --master-port N on every node",
                ),
            ),
        )
    return PortDecision(port, source)


def with_resume_arg(target: Target, template: str | None, resume_from: str | None) -> Target:
    """The script's own resume option (``--resume {path}``), when there is a checkpoint."""
    if not template or not resume_from:
        return target
    extra = tuple(tok.replace("{path}", resume_from) for tok in shlex.split(template))
    return replace(target, args=(*target.args, *extra))


def assess(res: Resolution) -> tuple[LaunchDecision, tuple[Finding, ...]]:
    """The launcher decision and every finding about this launch: what `explain`, `doctor`
    and `run` all report, from one place."""
    decision, _port, findings = _assess(res)
    return decision, findings


def assess_explained(res: Resolution) -> tuple[LaunchDecision, tuple[Finding, ...]]:
    """``assess`` for ``explain``, which on a host with no GPU (a login node) explains the
    GPU nodes' run: a process count of ``gpu`` (or ``auto`` there) that this host cannot
    count is a warning, as the other findings only that host can judge are; ``run`` and
    ``doctor`` here still refuse it."""
    decision, findings = assess(res)
    if res.facts.gpu_count != 0:
        return decision, findings
    return decision, tuple(_counted_elsewhere(f) for f in findings)


def _counted_elsewhere(f: Finding) -> Finding:
    if f.code != "LX304" or f.level != "error":
        return f
    return replace(
        f,
        level="warning",
        message=f"{f.message} (explained on a host with no GPU: each GPU node counts its "
        "own; launchx run refuses it here)",
    )


def _assess(res: Resolution) -> tuple[LaunchDecision, PortDecision | None, tuple[Finding, ...]]:
    """``assess``, with the port decision it made (None for a direct launch, which binds
    no port: the outer launcher, torchrun's agent or a platform, already holds MASTER_PORT,
    which is expected, not a conflict)."""
    decision = decide_launcher(res)
    port = decide_port(res) if decision.launcher != "direct" else None
    ports = port.findings if port is not None else ()
    findings = [*res.findings, *decision.findings, *gpu_findings(res), *ports]
    findings += master_findings(res, decision)
    return decision, port, sort_findings(findings)


def master_findings(res: Resolution, decision: LaunchDecision) -> list[Finding]:
    """One node hosts its own rendezvous: torchrun's agent serves the store and dials it at
    the master address, so an address that is not this host's (a stale ``MASTER_ADDR``
    left in the shell) leaves it retrying there for the whole rendezvous timeout (15 min),
    with nothing but a C++ warning. Said only where this host's addresses are known, and
    as a warning: a NAT or a service address (a Kubernetes ClusterIP) may lead back here."""
    from launchx.autovalues import resolve_address

    facts = res.facts
    setting = res.launch["master_addr"]
    if decision.launcher != "torchrun" or res.nnodes != 1 or not facts.interfaces:
        return []
    address = resolve_address(facts, setting.value) or _ipv6(setting.value)
    if address is None or address.is_loopback or address.is_unspecified:
        return []
    if address.is_link_local or any(
        _same_address(address, a) for i in facts.interfaces for a in i.addresses
    ):
        return []
    shown = setting.value + (f" ({address})" if str(address) != setting.value else "")
    return [
        finding(
            "LX214",
            None,
            f"one node, but the master address {shown} (from {setting.source}) is not an "
            "address of this host: unless it leads back here (a NAT or service address), "
            "torchrun will wait there for itself until the rendezvous timeout "
            f"({res.profile.timeouts.rdzv_timeout_s:g} s)",
            "unset MASTER_ADDR (left from another job?), or pass --master-addr 127.0.0.1"
            if setting.source.kind == "env"
            else "pass --master-addr 127.0.0.1 (or an address of this host)",
        )
    ]


def _ipv6(text: str) -> ipaddress.IPv6Address | None:
    """An IPv6 master address as given (``fd00::2``, ``[fd00::2]``), which ``HostFacts``
    does not resolve: interfaces list their IPv6 addresses too."""
    try:
        return ipaddress.IPv6Address(text.strip().strip("[]"))
    except ValueError:
        return None


def _same_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address, shown: str) -> bool:
    """Whether an interface's address (``fd00::2``, ``fe80::1%eth0``) is ``address``."""
    try:
        return ipaddress.ip_address(shown.split("%")[0].split("/")[0]) == address
    except ValueError:
        return False


# Job ids an outer launcher gives every rank of one job alike (PMIx and Open MPI's ORTE):
# with them, two jobs told the same MASTER_ADDR:MASTER_PORT still get different run ids.
_OUTER_JOB_IDS = ("PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid")


def _shared_by_ranks(res: Resolution) -> tuple[str, ...] | None:
    """What every rank an outer launcher started was told alike, or None when this launchx
    is not one of several such ranks. Never RANK, LOCAL_RANK or a pid: those differ."""
    ctx = res.facts.launch
    if ctx.kind not in ("torchrun", "platform", "mpi", "srun_step"):
        return None
    if ctx.world_size is not None and ctx.world_size <= 1:
        return None  # one rank alone: nobody to agree with (PMIx alone gives no size)
    environ = res.facts.environ
    ids = tuple(f"{var}={environ[var]}" for var in _OUTER_JOB_IDS if environ.get(var))
    return (ctx.kind, str(ctx.world_size), *ids)


# The secret the nodes' launchx sign their messages with (``channel.derive_key``): without
# it, anyone who can work out the run id can forge a frame. ``launchx sbatch`` exports one.
CHANNEL_TOKEN_VAR = "LAUNCHX_CHANNEL_TOKEN"


def channel_token(res: Resolution) -> str | None:
    return res.facts.environ.get(CHANNEL_TOKEN_VAR) or None


def shared_run_id(res: Resolution, given: str | None = None) -> str | None:
    """The run id every node and rank agrees on without talking: the one given, SLURM's job
    id, the platform's, an inherited one, or a digest of what every node (or every rank an
    outer launcher started, each running its own launchx) was told. None when this launchx
    alone starts the run: a new id is drawn at launch (``--dry-run`` says so)."""
    environ = res.facts.environ
    if given is not None:  # (an empty one too: --run-id "$UNSET" is a mistake, not a default)
        if not SAFE_RUN_ID.fullmatch(given):
            raise ConfigError(
                f"--run-id {given!r} cannot be a run id: it names the run's log directory "
                "(and torchrun's), so it must be one plain name",
                "use letters, digits, '.', '_' and '-', starting with a letter or digit "
                "(at most 128), e.g. --run-id exp-42",
            )
        return given
    for var in ("LAUNCHX_RUN_ID", "SLURM_JOB_ID", "PET_RDZV_ID", "TORCHELASTIC_RUN_ID"):
        value = environ.get(var)
        if value and value != "none":
            found = f"slurm-{value}" if var == "SLURM_JOB_ID" else value
            # a platform's id with a '/' or other odd characters in it: the same on every
            # node, so its digest is too
            return found if SAFE_RUN_ID.fullmatch(found) else _digest(found)
    shared = _shared_by_ranks(res)
    if int(res.launch["nnodes"].value) > 1 or shared is not None:
        key = "|".join(
            (
                res.profile.name,
                res.launch["master_addr"].value,
                res.launch["master_port"].value,
                res.launch["nnodes"].value,
                *(shared or ()),
            )
        )
        return _digest(key)
    return None


# A run id names a directory (``<temp dir>/launchx/<id>``, torchrun's own under the log
# dir): one plain name, never a path ("../x", "/home/me") that pruning old runs would walk.
SAFE_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def _digest(key: str) -> str:
    return "lx-" + hashlib.sha256(key.encode()).hexdigest()[:12]


def inner_step(res: Resolution) -> bool:
    """This launchx was started by another one as its task in an srun step: the outer one
    owns the retry loop, the attempt count, the requeue and the summary."""
    return res.facts.environ.get(STEP_MARKER) == "1" and res.facts.slurm is not None


@dataclass(frozen=True)
class RunDecisions:
    """What is decided once for a whole run, before its first attempt. Each attempt adds
    only its number, its port (when it is drawn at launch), its checkpoint and log dir."""

    launcher: LaunchDecision
    port: PortDecision  # port None: a free port is drawn at each attempt's launch
    run_id: str | None  # None: a new id is drawn at launch
    findings: tuple[Finding, ...]
    log_dir: str | None  # --log-dir as given; None: the default root under the temp dir
    inner_step: bool  # an srun task of an outer launchx (see ``inner_step``)
    agree_with_nodes: bool  # several nodes, each with its own launchx and retry loop
    requeue_on_warning: bool  # ask SLURM to requeue the job on the time-limit warning
    first_attempt: int  # attempts are numbered across SLURM requeues
    hang: HangPolicy = field(default_factory=HangPolicy)  # --hang-timeout, as parsed
    # Several nodes, each with a launchx beside torchrun, share the live channel for the hang
    # verdict and early abort, inside an srun step too (``opens_node_channel``).
    node_channel: bool = False

    @property
    def ok(self) -> bool:
        return not any(f.level == "error" for f in self.findings)


def _first_attempt(res: Resolution, inner: bool) -> int:
    """Attempts are counted across SLURM requeues (SLURM_RESTART_COUNT is unset at first);
    inside an srun step the outer launchx's count is the truth."""
    environ = res.facts.environ
    if inner and environ.get("LAUNCHX_ATTEMPT", "").isdigit():
        return int(environ["LAUNCHX_ATTEMPT"])
    slurm = res.facts.slurm
    return slurm.restart_count if slurm is not None else 0


def target_findings(target: TargetFacts | None) -> list[Finding]:
    """A script that does not exist is the user's typo, not a failed run: refuse it before
    any rank starts, with the names that do exist."""
    if target is None or target.found:
        return []
    if target.directory:
        return [
            finding(
                "LX211",
                None,
                f"{target.name!r} is a directory with no __main__.py, not a script",
                "name the script inside it (e.g. "
                f"{target.name.rstrip('/')}/train.py), or add a __main__.py to run the directory",
            )
        ]
    close = f"; did you mean {' or '.join(target.close)}?" if target.close else ""
    where = "on PATH" if target.kind == "executable" else f"in {target.where}"
    what = {"script": "script", "module": "module", "executable": "executable (--no-python)"}
    return [
        finding(
            "LX211",
            None,
            f"{what[target.kind]} {target.name!r} not found {where}{close}",
            f"check the name{f' ({target.close[0]}?)' if target.close else ''}; launchx runs "
            "it from the current directory on every node",
        )
    ]


def inner_launcher_findings(
    res: Resolution, decision: LaunchDecision, command: Sequence[str] | None
) -> list[Finding]:
    """A launcher inside the command would start a world per rank (two rank 0s writing the
    same files, or accelerate's silent hang): refuse it before anything starts, unless the
    user asked to run it once (``--launcher direct``) or the profile allows it."""
    if command is None or res.profile.allow_inner_launcher:
        return []
    if res.launch["launcher"].value == "direct":
        return []  # the user runs the command once, as its own launcher
    per_rank = decision.launcher != "srun" or res.profile.slurm.mode == "per_task"
    inner = find_inner_launcher(command, per_rank=per_rank)
    if inner is None:
        return []
    return [
        finding(
            "LX213",
            None,
            inner.message,
            f"{inner.fix} (or set allow_inner_launcher: true in the profile)",
        )
    ]


def decide_run(
    res: Resolution,
    *,
    run_id: str | None = None,
    log_dir: str | None = None,
    target: Target | None = None,
    here: TargetFacts | None = None,
) -> RunDecisions:
    """Decide, once, what stays the same for every attempt of the run: the launcher and
    whether the command may run at all (it exists here, and it is not a launcher itself)."""
    decision, port, findings = _assess(res)
    command = target.command(res.facts.python) if target is not None else None
    findings = sort_findings(
        [*findings, *target_findings(here), *inner_launcher_findings(res, decision, command)]
    )
    inner = inner_step(res)
    nnodes = int(res.launch["nnodes"].value)
    if port is None:  # a direct launch: whatever the outer launcher gave
        setting = res.launch["master_port"]
        fixed = int(setting.value) if setting.value.isdigit() else None
        port = PortDecision(fixed, setting.source)
    return RunDecisions(
        launcher=decision,
        port=port,
        run_id=shared_run_id(res, run_id),
        findings=findings,
        log_dir=log_dir,
        inner_step=inner,
        agree_with_nodes=opens_node_channel(decision, nnodes) and not inner,
        requeue_on_warning=res.facts.slurm is not None and res.profile.slurm.requeue and not inner,
        first_attempt=_first_attempt(res, inner),
        hang=_hang_policy(res),
        node_channel=opens_node_channel(decision, nnodes),
    )


def opens_node_channel(decision: LaunchDecision, nnodes: int) -> bool:
    """Whether this launchx talks to the other nodes' launchx over the live channel: one
    launchx beside torchrun on each of several nodes. That holds inside an srun step too
    (``inner_step``: SLURM gave the node rank, the node count and the master, as it gave
    torchrun), where the verdict on a hang needs every node's evidence as much as anywhere.
    The agreement after an attempt (``agree_with_nodes``) is not: the batch launchx that
    started the step owns its retry loop."""
    return decision.launcher == "torchrun" and nnodes > 1


def _hang_policy(res: Resolution) -> HangPolicy:
    """The watch's policy: --hang-timeout as given; an automatic timeout never grows to
    the collective timeout's half, so the watch names the stuck rank before the watchdog
    fires without a name."""
    policy = parse_hang_timeout(res.profile.timeouts.hang_s, origin="--hang-timeout")
    return replace(policy, ceiling_s=res.profile.timeouts.pg_timeout_s * HANG_SHARE_OF_PG)


# Shown where a value is drawn only at launch (``--dry-run``): never a value that the real
# run would then not use.
PORT_AT_LAUNCH = "<free port at launch>"
RUN_ID_AT_LAUNCH = "<new run id at launch>"


def default_log_root(run_id: str | None, temp_dir: str) -> str:
    """Where logs go without --log-dir: kept after a failure (the evidence), removed after
    a run that succeeded."""
    return str(Path(temp_dir) / "launchx" / (run_id or RUN_ID_AT_LAUNCH))


def attempt_log_dir(run: RunDecisions, run_id: str | None, attempt: int, temp_dir: str) -> str:
    """``DIR/attempt-N``: one directory per attempt, shared by every node and rank of the
    run (their files are named by global rank, or by node: see ``run.output``)."""
    root = Path(run.log_dir) if run.log_dir else Path(default_log_root(run_id, temp_dir))
    return str(root / f"attempt-{attempt}")


@dataclass(frozen=True)
class AttemptSpec:
    """What changes from one attempt to the next."""

    attempt: int
    run_id: str | None  # None only in a dry run: drawn at launch
    port: int | None  # None: drawn at launch (a dry run), or the outer launcher's (direct)
    log_dir: str | None
    resume_from: str | None = None
    checkpoint_dir: str | None = None  # absolute: where launchx looks for checkpoints


def build(
    res: Resolution,
    run: RunDecisions,
    spec: AttemptSpec,
    target: Target,
    *,
    relaunch: Sequence[str] = (),
) -> LaunchPlan:
    """Assemble one attempt's plan from the run's decisions (pure). ``relaunch`` holds the
    ``launchx run`` options to repeat inside an srun step."""
    decision = run.launcher
    launch = res.launch
    nnodes, nproc = int(launch["nnodes"].value), int(launch["nproc_per_node"].value)
    node_rank, master_addr = int(launch["node_rank"].value), launch["master_addr"].value
    port = spec.port if spec.port is not None else run.port.port
    port_text = str(port) if port is not None else PORT_AT_LAUNCH
    run_id_text = spec.run_id or RUN_ID_AT_LAUNCH

    env: dict[str, EnvEntry] = {}
    for name, setting in res.env.items():
        if setting.source != ENV:
            env[name] = EnvEntry(name, setting.value, setting.source)
    for name in res.removed:
        env[name] = EnvEntry(name, None, Origin.launchx(f"renamed to {_new_name(res, name)}"))
    env["LAUNCHX_RUN_ID"] = EnvEntry("LAUNCHX_RUN_ID", run_id_text, Origin.launchx())
    env["LAUNCHX_ATTEMPT"] = EnvEntry("LAUNCHX_ATTEMPT", str(spec.attempt), Origin.launchx())
    if spec.resume_from:
        env["LAUNCHX_RESUME_FROM"] = EnvEntry(
            "LAUNCHX_RESUME_FROM", spec.resume_from, Origin("checkpoint")
        )
    elif "LAUNCHX_RESUME_FROM" in res.facts.environ:
        env["LAUNCHX_RESUME_FROM"] = EnvEntry(
            "LAUNCHX_RESUME_FROM", None, Origin("checkpoint", "no checkpoint")
        )
    if spec.checkpoint_dir:
        # the script writes where launchx looks, without the directory given twice
        env["LAUNCHX_CHECKPOINT_DIR"] = EnvEntry(
            "LAUNCHX_CHECKPOINT_DIR",
            spec.checkpoint_dir,
            Origin("checkpoint", "resume.checkpoint_dir, --checkpoint-dir"),
        )
    env["PYTHONUNBUFFERED"] = EnvEntry(
        "PYTHONUNBUFFERED", "1", Origin.launchx("rank output reaches the console as it happens")
    )

    per_node_srun = decision.launcher == "srun" and res.profile.slurm.mode == "per_node"
    if not per_node_srun:  # in per_node mode the launchx on each node adds it itself
        target = with_resume_arg(target, res.profile.resume.resume_arg, spec.resume_from)
    python = res.facts.python
    if decision.launcher == "torchrun":
        argv = _torchrun_argv(
            res,
            target,
            python,
            nnodes=nnodes,
            nproc=nproc,
            node_rank=node_rank,
            master_addr=master_addr,
            port=port_text,
            rdzv_id=f"{run_id_text}-{spec.attempt}",
            log_dir=spec.log_dir,
        )
        env.update(_torchrun_env(res))
        env.update(_watch_env(res, run, spec.log_dir))
    elif decision.launcher == "srun":
        argv = _srun_argv(res, target, python, nnodes=nnodes, nproc=nproc, relaunch=relaunch)
        if res.profile.slurm.mode == "per_node":
            env[STEP_MARKER] = EnvEntry(
                STEP_MARKER, "1", Origin.launchx("the srun task is launchx's own, one per node")
            )
    else:
        argv = tuple(target.command(python))
        for name, value in decision.mapped_env.items():
            env[name] = EnvEntry(name, value, MAPPED)
        env.update(_watch_env(res, run, spec.log_dir))

    return LaunchPlan(
        launcher=decision.launcher,
        argv=tuple(argv),
        env=tuple(env.values()),
        findings=run.findings,
        profile=res.profile.name,
        run_id=spec.run_id,
        attempt=spec.attempt,
        nnodes=nnodes,
        nproc_per_node=nproc,
        node_rank=node_rank,
        master_addr=master_addr,
        master_port=port,
        port_source=run.port.source,
        context=decision.reason,
        log_dir=spec.log_dir,
        grace_period_s=float(res.profile.timeouts.grace_period_s),
        # (an srun step's launchx shows every rank: the outer launchx diagnoses the step
        # from that console, and filters what it shows itself)
        console_ranks="all" if run.inner_step else res.profile.logs.console_ranks,
    )


def _watch_env(res: Resolution, run: RunDecisions, log_dir: str | None) -> dict[str, EnvEntry]:
    """What the hang watch needs in the ranks: the faulthandler hook (stacks where ptrace
    is not allowed) and, on NCCL, the flight recorder dumping into the attempt's logs."""
    if run.hang.mode == "off" or not log_dir:
        return {}
    from launchx.watch import flight, hook

    why = Origin.launchx("the hang watch's stacks without ptrace (faulthandler)")
    # the PYTHONPATH the ranks would get without the hook: a profile's or --set's, else
    # the shell's
    given = res.env.get("PYTHONPATH")
    pythonpath = given.value if given is not None else res.facts.environ.get("PYTHONPATH")
    env = {k: EnvEntry(k, v, why) for k, v in hook.hook_env(log_dir, pythonpath).items()}
    if res.launch["backend"].value == "nccl":
        fr = Origin.launchx("the flight recorder names the rank missing from a collective")
        env.update(
            (k, EnvEntry(k, v, fr))
            for k, v in flight.flight_env(log_dir, res.facts.environ).items()
        )
    return env


def _torchrun_env(res: Resolution) -> dict[str, EnvEntry]:
    env: dict[str, EnvEntry] = {}
    if res.facts.environ.get("PET_STANDALONE"):
        # --standalone would replace the rendezvous launchx planned with localhost:0
        env["PET_STANDALONE"] = EnvEntry(
            "PET_STANDALONE", None, Origin.launchx("passes the rendezvous to torchrun itself")
        )
    env["PET_SIGNALS_TO_HANDLE"] = EnvEntry(
        "PET_SIGNALS_TO_HANDLE",
        TORCHRUN_SIGNALS,
        Origin.launchx("torchrun passes a scheduler's USR1/USR2 warning on to the ranks"),
    )
    env["PET_SHUTDOWN_TIMEOUT"] = EnvEntry(
        "PET_SHUTDOWN_TIMEOUT",
        str(torchrun_shutdown_s(res.profile.timeouts.grace_period_s)),
        Origin.launchx("torchrun's own grace, inside launchx's grace period"),
    )
    env["TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE"] = EnvEntry(
        "TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE",
        RANK_PREFIX_TEMPLATE,
        Origin.launchx("prefix each line with its global rank"),
    )
    return env


def torchrun_shutdown_s(grace_period_s: float) -> int:
    """How long torchrun waits for its stopped ranks before it SIGKILLs them: the grace
    period the user gave, less a tenth (1 to 5 s) left for torchrun to write its report
    before launchx kills the whole tree at the end of the grace period."""
    grace = int(grace_period_s)
    return max(1, grace - max(1, min(5, grace // 10)))


def _new_name(res: Resolution, old: str) -> str:
    for name, setting in res.env.items():
        if setting.source == Origin.renamed(old):
            return name
    return "its new name"


def _srun_argv(
    res: Resolution,
    target: Target,
    python: str,
    *,
    nnodes: int,
    nproc: int,
    relaunch: Sequence[str],
) -> tuple[str, ...]:
    """One srun step for the whole allocation. per_node: each node's task is launchx itself
    (so it supervises torchrun and passes the warning signal to every rank); per_task: each
    task is one rank, mapped by ``launchx.task``. srun 22.05+ ignores SLURM_CPUS_PER_TASK
    from the batch environment, so the CPU count is passed explicitly."""
    slurm = res.facts.slurm
    argv = ["srun", f"--nodes={nnodes}", "--kill-on-bad-exit=1"]
    if slurm is not None and slurm.cpus_per_task:
        argv.append(f"--cpus-per-task={slurm.cpus_per_task}")
    if res.profile.slurm.mode == "per_task":
        argv += [f"--ntasks-per-node={nproc}", python, "-m", "launchx.task", "--"]
        return (*argv, *target.command(python))
    argv += ["--ntasks-per-node=1", python, "-m", "launchx", "run", "--launcher", "torchrun"]
    argv += ["--max-retries", "0", *relaunch]
    if target.module:
        argv.append("-m")
    elif target.no_python:
        argv.append("--no-python")
    return (*argv, "--", target.script, *target.args)


def preflight_argv(res: Resolution, doctor_args: Sequence[str]) -> tuple[str, ...]:
    """``launchx doctor`` across the nodes as the profile's ``preflight`` block asks (pure):
    what each node's launchx runs in-process before its first attempt."""
    pre = res.profile.preflight
    argv = [res.facts.python, "-m", "launchx", "doctor", *doctor_args]
    argv += ["--join-timeout", f"{pre.join_timeout_s:g}"]
    if not pre.comm:
        argv.append("--no-comm")
    return tuple(argv)


def preflight_srun_argv(res: Resolution, doctor_args: Sequence[str]) -> tuple[str, ...]:
    """The srun step that checks every node of the allocation once, before the first
    attempt: one ``launchx doctor`` per node, meeting at node 0 (pure). Not killed on a
    node's bad exit: every node exits alike, and node 0 prints the report."""
    slurm = res.facts.slurm
    argv = ["srun", f"--nodes={res.nnodes}", "--ntasks-per-node=1", "--kill-on-bad-exit=0"]
    if slurm is not None and slurm.cpus_per_task:
        argv.append(f"--cpus-per-task={slurm.cpus_per_task}")
    return (*argv, *preflight_argv(res, doctor_args))


def _torchrun_argv(
    res: Resolution,
    target: Target,
    python: str,
    *,
    nnodes: int,
    nproc: int,
    node_rank: int,
    master_addr: str,
    port: str,
    rdzv_id: str,
    log_dir: str | None,
) -> tuple[str, ...]:
    """torchrun with the static rendezvous: node 0 hosts the store at master_addr:port, so
    ranks are deterministic (node_rank * nproc + local_rank) across restarts."""
    argv = [
        python,
        "-m",
        "torch.distributed.run",
        "--nnodes",
        str(nnodes),
        "--nproc-per-node",
        str(nproc),
        "--node-rank",
        str(node_rank),
        "--master-addr",
        master_addr,
        "--master-port",
        port,
        # Explicit, so a platform's PET_RDZV_BACKEND/PET_RDZV_ENDPOINT cannot turn the
        # static rendezvous into another one behind launchx's back.
        "--rdzv-backend",
        "static",
        "--rdzv-endpoint",
        f"{master_addr}:{port}",
        "--rdzv-id",
        rdzv_id,
        "--rdzv-conf",
        f"timeout={res.profile.timeouts.rdzv_timeout_s}",
        "--max-restarts",
        "0",
    ]
    if log_dir:
        # torchrun's own nested directories, inside the attempt's: launchx keeps the error
        # files and its own flat rank logs, then removes them (run.attempts).
        argv += ["--log-dir", str(torchrun_logs(log_dir, node_rank, nnodes)), "--tee", "3"]
    if target.no_python:
        argv.append("--no-python")
    elif target.module:
        argv.append("-m")
    return (*argv, target.script, *target.args)
