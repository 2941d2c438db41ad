"""Wiring for the commands: read the host once, load and resolve the profile, plan.

This is where the few impure inputs of planning are gathered (the environment, the
current directory, a free port, a temporary directory, a fresh run id) so that the
stages after it stay pure. It starts no process.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from launchx import detect, ports
from launchx.errors import ProfileNotFound
from launchx.facts import HostFacts
from launchx.origin import Origin
from launchx.plan import LaunchPlan, Target, build, decide_launcher, decide_port
from launchx.profile_model import Profile
from launchx.profiles import DEFAULT_PROFILE, LoadedProfile, list_profiles, load
from launchx.resolve import Overrides, Resolution, resolve


@dataclass(frozen=True)
class Request:
    """Everything a command was asked for, as typed."""

    profile: str | None = None
    sets: tuple[str, ...] = ()
    flags: Mapping[str, str] = field(default_factory=dict)
    flag_names: Mapping[str, str] = field(default_factory=dict)
    show_all: bool = False


def load_profile(ref: str) -> LoadedProfile:
    """A profile as the commands see it: searched from this directory and environment."""
    return load(ref, os.environ, Path.cwd())


def all_profiles() -> list[tuple[Profile, str]]:
    return list_profiles(os.environ, Path.cwd())


def gather_facts(
    environ: Mapping[str, str] | None = None,
    extra_hosts: Sequence[str] = (),
    ports_of_interest: Sequence[str] = (),
) -> HostFacts:
    env = dict(os.environ if environ is None else environ)
    root = env.get("LAUNCHX_HOST_ROOT", "/")  # tests point this at a recorded /sys + /proc
    hosts = [
        h
        for h in (*extra_hosts, env.get("MASTER_ADDR", ""), env.get("PET_MASTER_ADDR", ""))
        if h and h != "auto"
    ]
    ports = [int(p) for p in ports_of_interest if p.isdigit()]
    return detect.gather(
        env, root=root, lookup_hosts=hosts, python=sys.executable, attribute_ports=ports
    )


def resolve_request(request: Request, facts: HostFacts | None = None) -> Resolution:
    environ = dict(os.environ) if facts is None else dict(facts.environ)
    loaded = _load_requested(request.profile, environ)
    if facts is None:
        hosts = [request.flags.get("master_addr", ""), loaded.profile.master_addr]
        ports = [request.flags.get("master_port", ""), str(loaded.profile.master_port)]
        facts = gather_facts(environ, hosts, ports)
    overrides = Overrides(sets=request.sets, flags=request.flags, flag_names=request.flag_names)
    return resolve(loaded, facts, overrides, show_all=request.show_all)


def _load_requested(ref: str | None, environ: Mapping[str, str]) -> LoadedProfile:
    """The profile of ``-p``, else the one ``LAUNCHX_DEFAULT_PROFILE`` names (empty counts as
    unset), else ``local``. A bad default is named as such: the user typed no ``-p``."""
    default = environ.get("LAUNCHX_DEFAULT_PROFILE") or ""
    if ref or not default:
        return load(ref or DEFAULT_PROFILE, environ, Path.cwd())
    try:
        return load(default, environ, Path.cwd())
    except ProfileNotFound as exc:
        raise ProfileNotFound(
            f"LAUNCHX_DEFAULT_PROFILE={default!r} (the profile used without -p): {exc.message}",
            f"{exc.hint}; or unset LAUNCHX_DEFAULT_PROFILE, or pass -p NAME"
            if exc.hint
            else "unset LAUNCHX_DEFAULT_PROFILE, or pass -p NAME",
        ) from None


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


def run_id_for(res: Resolution, given: str | None = None) -> str:
    """One id for the whole run, the same on every node and rank without them talking:
    SLURM's job id, the platform's, an inherited one, or a digest of what every node (or
    every rank an outer launcher started, each running its own launchx) was told."""
    environ = res.facts.environ
    if given:
        return given
    for var in ("LAUNCHX_RUN_ID", "SLURM_JOB_ID", "PET_RDZV_ID", "TORCHELASTIC_RUN_ID"):
        value = environ.get(var)
        if value and value != "none":
            return f"slurm-{value}" if var == "SLURM_JOB_ID" else value
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
        return "lx-" + hashlib.sha256(key.encode()).hexdigest()[:12]
    return "lx-" + uuid.uuid4().hex[:12]


def choose_port(res: Resolution) -> tuple[int | None, Origin]:
    """The port for this attempt: the decided one, or a fresh free one on a single node.
    A direct launch binds nothing: the port is whatever the outer launcher gave."""
    setting = res.launch["master_port"]
    if decide_launcher(res).launcher == "direct":
        return (int(setting.value) if setting.value.isdigit() else None), setting.source
    decision = decide_port(res)
    if decision.port is not None:
        return decision.port, decision.source
    avoid = set(res.facts.listening)
    return ports.pick_free_port(res.facts.ephemeral_range, avoid=avoid), decision.source


def default_log_root(run_id: str) -> Path:
    """Where logs go without --log-dir: kept after a failure (the evidence), removed after
    a run that succeeded."""
    return Path(tempfile.gettempdir()) / "launchx" / run_id


def attempt_log_dir(
    base: str | None,
    run_id: str,
    attempt: int,
    node_rank: int,
    nnodes: int,
    rank: int | None = None,
) -> str:
    """``attempt_N`` (``/node_R`` with several nodes; ``/rank_K`` when this launchx is one
    of several ranks an outer launcher started, so they never share a directory)."""
    root = Path(base) if base else default_log_root(run_id)
    path = root / f"attempt_{attempt}"
    if rank is not None:
        path = path / f"rank_{rank}"
    elif nnodes > 1:
        path = path / f"node_{node_rank}"
    return str(path.resolve())


def plan_attempt(
    res: Resolution,
    target: Target,
    *,
    run_id: str,
    attempt: int,
    log_dir: str | None,
    resume_from: str | None = None,
    relaunch: Sequence[str] = (),
) -> LaunchPlan:
    """Plan one attempt: a fresh free port (single node) and its own log directory."""
    port, source = choose_port(res)
    node_rank = int(res.launch["node_rank"].value)
    nnodes = int(res.launch["nnodes"].value)
    direct_rank = res.facts.launch.rank if decide_launcher(res).launcher == "direct" else None
    logs = attempt_log_dir(log_dir, run_id, attempt, node_rank, nnodes, direct_rank)
    return build(
        res,
        target,
        run_id=run_id,
        attempt=attempt,
        master_port=port,
        port_source=source,
        log_dir=logs,
        resume_from=resume_from,
        relaunch=relaunch,
    )


# Options the launchx inside an srun step must not repeat: it always runs torchrun once.
_NOT_RELAUNCHED = ("launcher", "retry.max_retries")


def relaunch_args(
    request: Request, log_dir: str | None, *, skip: Sequence[str] = _NOT_RELAUNCHED
) -> tuple[str, ...]:
    """The ``launchx run`` options to repeat, as typed: on every node of an srun step, or
    in the body of a batch script (which passes its own frozen profile and skips nothing)."""
    args: list[str] = []
    if request.profile:
        args += ["-p", request.profile]
    for item in request.sets:
        args += ["--set", item]
    for key, value in request.flags.items():
        if key not in skip:
            args += [request.flag_names.get(key, "--" + key.replace("_", "-")), value]
    if log_dir:
        args += ["--log-dir", log_dir]
    return tuple(args)
