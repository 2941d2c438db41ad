"""Resolution: one value per setting, from five layers, each value with its origin.

Layers, lowest first: launchx defaults < the profile chain (base first) < the user's own
environment < ``--set KEY=VALUE`` < explicit CLI flags. A higher layer keeps what it
replaced, so ``launchx explain`` can show the whole story of a value. ``auto`` values are
then filled from ``HostFacts``. Pure: everything comes in as arguments.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import ValidationError

from launchx import autovalues, catalog
from launchx.errors import ConfigError
from launchx.facts import HostFacts
from launchx.findings import Finding, finding, sort_findings
from launchx.origin import DEFAULT, ENV, SET, UNRESOLVED, Origin
from launchx.profile_model import Profile
from launchx.profiles import LoadedProfile, validation_message

# The largest share of the collective timeout a fixed hang timeout may take (LX308 warns
# above it, and its fix suggests it): the watch must name the stuck rank well before the
# watchdog fires without a name.
HANG_SHARE_OF_PG = 0.5
# Every field of the profile's blocks, as dotted keys ("retry.max_retries").
BLOCK_KEYS: tuple[str, ...] = tuple(
    f"{block}.{name}"
    for block in ("timeouts", "retry", "resume", "slurm", "logs", "preflight")
    for name in type(getattr(Profile(name="_"), block)).model_fields
)
LAUNCH_KEYS = (
    "launcher",
    "backend",
    "nnodes",
    "nproc_per_node",
    "node_rank",
    "master_addr",
    "master_port",
)
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FIELD_PATH = re.compile(r"^[a-z_]+(\.[a-z_]+)?$")

# Environment variables that carry a launch setting (torchrun reads PET_<FLAG> itself, so a
# Kubeflow pod's PET_* values are the user's intent and are honoured, not refused).
ENV_FOR_SETTING: dict[str, tuple[str, ...]] = {
    "nnodes": ("PET_NNODES",),
    "nproc_per_node": ("PET_NPROC_PER_NODE",),
    "node_rank": ("PET_NODE_RANK",),
    "master_addr": ("PET_MASTER_ADDR", "MASTER_ADDR"),
    "master_port": ("PET_MASTER_PORT", "MASTER_PORT"),
}


@dataclass(frozen=True)
class Setting:
    """A resolved value, where it came from, and the lower-layer values it replaced."""

    value: str
    source: Origin
    overrides: tuple[tuple[str, Origin], ...] = ()  # (value, source), lowest layer first

    def over(self, value: str, source: Origin) -> Setting:
        """This setting replaced by a higher layer (an identical default is not history)."""
        if value == self.value and self.source == DEFAULT:
            return Setting(value, source, self.overrides)
        return Setting(value, source, (*self.overrides, (self.value, self.source)))


@dataclass(frozen=True)
class Overrides:
    """What the user typed on the command line, before any layering."""

    sets: tuple[str, ...] = ()  # raw "KEY=VALUE" strings from --set
    flags: Mapping[str, str] = field(default_factory=dict)  # "nnodes" -> "2" (only given ones)
    flag_names: Mapping[str, str] = field(default_factory=dict)  # "nnodes" -> "--nnodes"


@dataclass(frozen=True)
class Resolution:
    profile: Profile  # the merged profile with --set/flag overrides applied (values may be auto)
    label: Origin  # the profile asked for (its name or path)
    chain: tuple[Origin, ...]
    launch: Mapping[str, Setting]  # LAUNCH_KEYS, autos filled where they can be
    env: Mapping[str, Setting]  # every variable launchx sets, plus the user's relevant ones
    removed: tuple[str, ...]  # variables launchx removes from the child (renamed old names)
    findings: tuple[Finding, ...]
    facts: HostFacts
    settings: Mapping[str, Setting] = field(default_factory=dict)  # other profile fields

    @property
    def nnodes(self) -> int:
        return int(self.launch["nnodes"].value)

    @property
    def nproc_per_node(self) -> int:
        return int(self.launch["nproc_per_node"].value)

    def child_changes(self) -> dict[str, str]:
        """Variables whose value the child gets from launchx rather than inheriting."""
        return {k: s.value for k, s in self.env.items() if s.source != ENV}


def parse_sets(raw: Sequence[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Split ``--set`` items into profile-field overrides and environment variables."""
    fields: dict[str, str] = {}
    env: dict[str, str] = {}
    for item in raw:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(
                f"malformed --set {item!r}: expected KEY=VALUE",
                "write e.g. --set NCCL_DEBUG=INFO or --set retry.max_retries=5",
            )
        if key in ("name", "extends", "description"):
            raise ConfigError(
                f"--set {key}=...: a profile's {key} cannot be changed from the command line",
                "write a profile that extends this one (see README: Writing a profile)",
            )
        if _FIELD_PATH.match(key) and key.split(".")[0] in Profile.model_fields:
            fields[key] = value
        elif _ENV_NAME.fullmatch(key):
            env[key] = value
        else:
            raise ConfigError(  # the value is not echoed: it may be a secret
                f"--set: {key!r} is neither an environment variable name nor a profile key",
                "environment variables are [A-Za-z_][A-Za-z0-9_]*; profile keys "
                "look like nnodes or timeouts.pg_timeout_s",
            )
    return fields, env


def _profile_value(profile: Profile, dotted: str) -> Any:
    obj: Any = profile
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def _as_text(value: Any) -> str:
    if isinstance(value, tuple | list):
        return ",".join(str(v) for v in value)
    return str(value)


def _apply(profile: Profile, updates: Mapping[str, str], where: str) -> Profile:
    """Re-validate the profile with overrides so a bad --set/flag fails like a bad file."""
    data = profile.model_dump()
    for dotted, value in updates.items():
        parts = dotted.split(".")
        target = data
        for part in parts[:-1]:
            if not isinstance(target.get(part), dict):
                raise ConfigError(
                    f"{where}: {dotted!r} is not a profile key",
                    f"profile keys: {', '.join(Profile.model_fields)}",
                )
            target = target[part]
        if parts[-1] not in target:
            raise ConfigError(
                f"{where}: {dotted!r} is not a profile key", f"keys here: {', '.join(target)}"
            )
        old = target[parts[-1]]
        if isinstance(old, tuple | list):
            target[parts[-1]] = [v.strip() for v in value.split(",") if v.strip()]
        else:
            target[parts[-1]] = value
    try:
        return Profile.model_validate(data)
    except ValidationError as exc:
        raise validation_message(exc, where) from None


def _layered_setting(
    key: str,
    loaded: LoadedProfile,
    environ: Mapping[str, str],
    set_fields: Mapping[str, str],
    overrides: Overrides,
) -> Setting:
    default = Profile.model_fields[key].default
    setting = Setting(_as_text(default), DEFAULT)
    for value, source in loaded.overridden.get(key, ()):  # base profiles of the chain
        setting = setting.over(value, source)
    if key in loaded.origins:
        setting = setting.over(_as_text(_profile_value(loaded.profile, key)), loaded.origins[key])
    for var in reversed(ENV_FOR_SETTING.get(key, ())):
        if environ.get(var):
            setting = setting.over(environ[var], Origin.env(var))
    if key in set_fields:
        setting = setting.over(set_fields[key], SET)
    if key in overrides.flags:
        setting = setting.over(
            overrides.flags[key], Origin.flag(overrides.flag_names.get(key, "--" + key))
        )
    return setting


def _fill_launch_autos(
    launch: dict[str, Setting], facts: HostFacts, findings: list[Finding], per_task: bool
) -> None:
    """Replace ``auto`` launch values with what the host and its launcher say."""
    slurm, ctx = facts.slurm, facts.launch

    def fill(key: str, value: object, source: Origin) -> None:
        launch[key] = launch[key].over(str(value), source)

    if launch["nnodes"].value == "auto":
        if slurm is not None:
            fill("nnodes", slurm.nnodes, Origin.auto("SLURM_NNODES"))
        elif ctx.nnodes is not None:
            fill("nnodes", ctx.nnodes, Origin.auto(ctx.name or ctx.kind))
        else:
            fill("nnodes", 1, Origin.auto("single machine"))
    if launch["node_rank"].value == "auto":
        if slurm is not None and slurm.node_id is not None:
            fill("node_rank", slurm.node_id, Origin.auto("SLURM_NODEID"))
        elif ctx.node_rank is not None:
            fill("node_rank", ctx.node_rank, Origin.auto(ctx.name or ctx.kind))
        else:
            fill("node_rank", 0, Origin.auto("first node"))
    if launch["master_addr"].value == "auto":
        if slurm is not None and slurm.nodelist:
            fill("master_addr", slurm.nodelist[0], Origin.auto("SLURM_JOB_NODELIST"))
        elif launch["nnodes"].value == "1":
            fill("master_addr", "127.0.0.1", Origin.auto("single node"))
        else:
            findings.append(
                finding(
                    "LX301",
                    "MASTER_ADDR",
                    f"{launch['nnodes'].value} nodes but no master address: it is 'auto' and "
                    "this is neither a SLURM allocation nor a platform that sets MASTER_ADDR",
                    "pass --master-addr HOST (the address of node rank 0) on every node",
                )
            )
    if launch["master_port"].value == "auto" and slurm is not None and slurm.job_id:
        # Linux's default range, not this node's: every node must compute the same port.
        port = autovalues.derived_master_port(slurm.job_id, HostFacts().ephemeral_range)
        fill("master_port", port, Origin.auto("SLURM_JOB_ID"))
    _fill_nproc_and_backend(launch, facts, findings, per_task)


def _fill_nproc_and_backend(
    launch: dict[str, Setting], facts: HostFacts, findings: list[Finding], per_task: bool
) -> None:
    ctx = facts.launch
    spec_text = launch["nproc_per_node"].value
    slurm = facts.slurm
    if spec_text in ("auto", "gpu", "cpu"):
        if spec_text == "auto" and ctx.local_world_size is not None:
            value, source = ctx.local_world_size, Origin.auto(ctx.name or ctx.kind)
        elif spec_text == "auto" and per_task and slurm is not None and slurm.ntasks_per_node:
            # one srun task per rank: the allocation says how many tasks fit on a node
            value, source = slurm.ntasks_per_node, Origin.auto("SLURM_NTASKS_PER_NODE")
        else:
            try:
                value, source = autovalues.auto_nproc(facts, spec_text)
            except ConfigError as exc:  # shown as a finding, so explain still explains
                hint = exc.hint or "pass --nproc-per-node N"
                findings.append(finding("LX304", "nproc_per_node", exc.message, hint))
                value, source = 1, UNRESOLVED
        launch["nproc_per_node"] = launch["nproc_per_node"].over(str(value), source)
    if launch["backend"].value == "auto":
        gpus = bool(facts.gpu_count)
        backend, source = (
            ("nccl", Origin.auto("GPUs visible"))
            if gpus
            else ("gloo", Origin.auto("no GPU visible"))
        )
        launch["backend"] = launch["backend"].over(backend, source)


def _env_layers(
    loaded: LoadedProfile,
    profile: Profile,
    environ: Mapping[str, str],
    set_env: Mapping[str, str],
    show_all: bool,
) -> dict[str, Setting]:
    env: dict[str, Setting] = {}
    for name, value in profile.env.items():
        key = f"env.{name}"
        history = tuple(loaded.overridden.get(key, ()))
        env[name] = Setting(value, loaded.origins.get(key, loaded.label), history)
    for name, value in environ.items():
        if name in env:
            if env[name].value != value:
                env[name] = env[name].over(value, ENV)
            else:
                env[name] = Setting(
                    value, ENV, (*env[name].overrides, (env[name].value, env[name].source))
                )
        elif show_all or catalog.is_distributed(name):
            env[name] = Setting(value, ENV)
    for name, value in set_env.items():
        env[name] = env[name].over(value, SET) if name in env else Setting(value, SET)
    return env


def _fill_env_autos(
    env: dict[str, Setting],
    launch: Mapping[str, Setting],
    facts: HostFacts,
    findings: list[Finding],
) -> None:
    for name, setting in list(env.items()):
        value = setting.value
        if value != "auto" and not value.startswith("auto:"):
            continue
        found: tuple[str, Origin] | None = None
        if name == "NCCL_IB_HCA":
            layer: dict[str, autovalues.LinkLayer | None] = {
                "auto": None,
                "auto:infiniband": "InfiniBand",
                "auto:roce": "Ethernet",
            }
            if value not in layer:
                findings.append(
                    finding(
                        "LX302",
                        name,
                        f"{name}={value} is not an auto form launchx knows",
                        "use auto, auto:infiniband or auto:roce",
                    )
                )
                del env[name]
                continue
            found = autovalues.auto_ib_hca(facts, link_layer=layer[value])
        elif name in ("NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME"):
            found = autovalues.auto_socket_ifname(facts, launch["master_addr"].value)
            if found is not None and name == "NCCL_SOCKET_IFNAME":
                # NCCL matches prefixes (eth1 would also pick eth10): ask for the exact name.
                found = (f"={found[0]}", found[1])
        elif name == "OMP_NUM_THREADS":
            found = autovalues.auto_omp_threads(facts, int(launch["nproc_per_node"].value))
        else:
            findings.append(
                finding(
                    "LX302",
                    name,
                    f"{name}=auto: launchx cannot work out this variable",
                    "auto is supported for NCCL_IB_HCA, NCCL_SOCKET_IFNAME and "
                    "OMP_NUM_THREADS; write a value",
                )
            )
            del env[name]
            continue
        if found is None:
            findings.append(
                finding(
                    "LX303",
                    name,
                    f"{name}={value}: nothing on this host to fill it from "
                    f"({_auto_missing(name)}); left unset",
                    _auto_fix(name),
                )
            )
            del env[name]
        else:
            env[name] = setting.over(found[0], found[1])


def _auto_missing(name: str) -> str:
    return {
        "NCCL_IB_HCA": "no RDMA device has an ACTIVE port under /sys/class/infiniband",
        "NCCL_SOCKET_IFNAME": "no route to the master address",
    }.get(name, "no data")


def _auto_fix(name: str) -> str:
    return {
        "NCCL_IB_HCA": "on an RDMA cluster check `ibv_devinfo` and that the container sees "
        "/dev/infiniband; without a fabric use the ethernet profile",
        "NCCL_SOCKET_IFNAME": "pass --set NCCL_SOCKET_IFNAME=<interface> or check --master-addr",
    }.get(name, "set it explicitly with --set")


def _renames(env: dict[str, Setting]) -> tuple[str, ...]:
    """Pass the current name of a renamed variable; drop the old name from the child."""
    removed: list[str] = []
    for name in list(env):
        new = catalog.renamed_to(name)
        if new is None:
            continue
        if new not in env:
            env[new] = Setting(env[name].value, Origin.renamed(name))
        removed.append(name)
    return tuple(removed)


def resolve(
    loaded: LoadedProfile,
    facts: HostFacts,
    overrides: Overrides | None = None,
    *,
    show_all: bool = False,
) -> Resolution:
    """Resolve a loaded profile against the host and the user's overrides (pure)."""
    overrides = overrides or Overrides()
    environ = facts.environ
    set_fields, set_env = parse_sets(overrides.sets)

    profile = loaded.profile
    if set_fields:
        profile = _apply(profile, set_fields, "--set")
    if overrides.flags:
        profile = _apply(profile, overrides.flags, "command line")

    findings: list[Finding] = []
    # Each layer's own value: the profile layer is what the files said, before overrides.
    launch = {
        key: _layered_setting(key, loaded, environ, set_fields, overrides) for key in LAUNCH_KEYS
    }
    _check_launch_types(launch)
    _fill_launch_autos(launch, facts, findings, profile.slurm.mode == "per_task")
    _check_node_rank(launch, findings)
    _check_master_addr(launch, findings)
    _check_retry_categories(profile, findings)
    _check_hang_timeout(profile, findings)
    _check_resume_arg(profile, findings)

    env = _env_layers(loaded, profile, environ, set_env, show_all)
    _check_emptied(env, findings)
    _fill_env_autos(env, launch, facts, findings)

    pg = _layered_setting_nested("timeouts.pg_timeout_s", profile, loaded, set_fields, overrides)
    env["LAUNCHX_PG_TIMEOUT_S"] = pg
    env["LAUNCHX_PROFILE"] = Setting(profile.name, Origin.launchx())
    removed = _renames(env)

    # The old names of renamed variables are checked too: the user should hear about them.
    env_findings = catalog.check_env({k: s.value for k, s in env.items()}, facts)
    # a name launchx itself passed for an old one, itself deprecated since: the old name's
    # LX102 carries the whole fix
    env_findings = [
        f
        for f in env_findings
        if not (f.code == "LX104" and f.var in env and env[f.var].source.kind == "renamed")
    ]
    backend = launch["backend"]
    # only a gloo the user chose ("auto" turns gloo on a GPU-less login node whose profile
    # is for the GPU nodes, where the same variable breaks NCCL), and only where no GPU is
    # visible: the script is not told the backend, and picks NCCL itself where CUDA is
    if backend.value == "gloo" and backend.source.kind != "auto" and not facts.gpu_count:
        env_findings = [_unread_by_gloo(f) for f in env_findings]
    elif facts.gpu_count == 0:
        env_findings = [_another_hosts(f) for f in env_findings]
    findings.extend(env_findings)
    settings = {
        key: _layered_setting_nested(key, profile, loaded, set_fields, overrides)
        for key in BLOCK_KEYS
    }
    return Resolution(
        profile=profile,
        label=loaded.label,
        chain=loaded.chain,
        launch=launch,
        env=env,
        removed=removed,
        findings=sort_findings(findings),
        facts=facts,
        settings=settings,
    )


def _check_emptied(env: Mapping[str, Setting], findings: list[Finding]) -> None:
    """``export NCCL_SOCKET_IFNAME=$IFACE`` with ``IFACE`` unset leaves an empty variable
    that outranks the profile: NCCL reads empty as unset and picks an interface itself, so
    neither the profile's value nor launchx's auto pick ever applies, and nothing says so."""
    for name, setting in env.items():
        if setting.value or setting.source != ENV or not setting.overrides:
            continue
        hidden, origin = setting.overrides[-1]
        if not hidden:
            continue
        picked = ", which launchx fills from this host" if hidden.startswith("auto") else ""
        findings.append(
            finding(
                "LX310",
                name,
                f"{name} is empty in the environment, which hides the profile's "
                f"{name}={hidden} ({origin}{picked}): an empty value reads as unset, so it "
                "never applies",
                f"unset {name} to use the profile's value, or set the value you want",
            )
        )


def _another_hosts(f: Finding) -> Finding:
    """A profile for GPU nodes explained on a host with none (a login node): NCCL does not
    run here, so a device or interface this host lacks is a warning, not a refused
    check; ``launchx doctor`` on a GPU node (or ``--preflight``) checks it where it runs."""
    if f.code not in catalog.HOST_CODES or f.level != "error":
        return f
    return replace(
        f,
        level="warning",
        message=f"{f.message} (this host has no GPU, so NCCL does not run here: checked "
        "against this host; launchx doctor on a GPU node checks it where it runs)",
    )


def _unread_by_gloo(f: Finding) -> Finding:
    """A variable only NCCL reads cannot break a CPU-only gloo run: a stale
    ``NCCL_BUFFSIZE=8M`` left in the shell is worth a warning there, not a refused launch,
    and a warning says why it does not matter to this run."""
    spec = catalog.lookup(f.var) if f.var else None
    if f.level not in ("error", "warning") or spec is None or spec.reader != "nccl":
        return f
    return replace(
        f,
        level="warning",
        message=f"{f.message} (this run's backend is gloo and no GPU is visible, "
        "so NCCL never reads it; it matters where NCCL runs)",
    )


def _layered_setting_nested(
    dotted: str,
    profile: Profile,
    loaded: LoadedProfile,
    set_fields: Mapping[str, str],
    overrides: Overrides,
) -> Setting:
    top, _dot, leaf = dotted.partition(".")
    default = getattr(type(getattr(profile, top)).model_fields[leaf], "default", None)
    setting = Setting(_as_text(default), DEFAULT)
    for value, source in loaded.overridden.get(dotted, ()):
        setting = setting.over(value, source)
    if dotted in loaded.origins:
        setting = setting.over(
            _as_text(_profile_value(loaded.profile, dotted)), loaded.origins[dotted]
        )
    if dotted in set_fields:
        setting = setting.over(set_fields[dotted], SET)
    if dotted in overrides.flags:
        name = overrides.flag_names.get(dotted, dotted)
        setting = setting.over(overrides.flags[dotted], Origin.flag(name))
    # The value as validated (e.g. "5.0" -> 5.0), with the history of the raw layers.
    return Setting(_as_text(_profile_value(profile, dotted)), setting.source, setting.overrides)


def _check_hang_timeout(profile: Profile, findings: list[Finding]) -> None:
    """A bad --hang-timeout is refused before anything starts; one that is not well below
    the collective timeout leaves the watchdog to fire first, and the rank unnamed."""
    from launchx.watch.policy import parse_hang_timeout

    policy = parse_hang_timeout(profile.timeouts.hang_s, origin="--hang-timeout (timeouts.hang_s)")
    pg = profile.timeouts.pg_timeout_s
    most = HANG_SHARE_OF_PG * pg
    if policy.timeout_s is not None and policy.timeout_s > most:
        findings.append(
            finding(
                "LX308",
                "timeouts.hang_s",
                f"the hang timeout ({policy.timeout_s:g} s) is not well below the collective "
                f"timeout ({pg} s): the watchdog may fire first, and it cannot name the rank "
                "that stopped",
                f"use --hang-timeout {int(most) or 1} or less (at most {HANG_SHARE_OF_PG:g} x "
                "the collective timeout; or auto), or raise timeouts.pg_timeout_s",
            )
        )


def _check_resume_arg(profile: Profile, findings: list[Finding]) -> None:
    """launchx passes the script's resume option only with a checkpoint it found, and it
    looks only in the checkpoint directory: without one, every retry starts from step 0."""
    resume = profile.resume
    if resume.resume_arg and not resume.checkpoint_dir:
        findings.append(
            finding(
                "LX309",
                "resume.resume_arg",
                f"--resume-arg {resume.resume_arg!r} is never passed: launchx offers a "
                "checkpoint only from the checkpoint directory, and this run has none",
                "add --checkpoint-dir DIR (where the script saves), or drop --resume-arg",
            )
        )


def _check_retry_categories(profile: Profile, findings: list[Finding]) -> None:
    """retry.on / retry.never name failure categories; a typo would silently do nothing."""
    from launchx import failure_rules

    for key in ("on", "never"):
        for name in failure_rules.unknown_categories(getattr(profile.retry, key)):
            close = difflib.get_close_matches(name, failure_rules.CATEGORIES, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            findings.append(
                finding(
                    "LX306",
                    f"retry.{key}",
                    f"retry.{key} names {name!r}, which is not a failure category",
                    f"{hint}categories: {', '.join(failure_rules.CATEGORIES)}",
                )
            )


def _check_node_rank(launch: Mapping[str, Setting], findings: list[Finding]) -> None:
    nnodes, node_rank = launch["nnodes"].value, launch["node_rank"].value
    if nnodes.isdigit() and node_rank.isdigit() and int(node_rank) >= int(nnodes):
        findings.append(
            finding(
                "LX305",
                "node_rank",
                f"node rank {node_rank} (from {launch['node_rank'].source}) but only {nnodes} "
                f"node(s) (from {launch['nnodes'].source}): node ranks run 0..{int(nnodes) - 1}",
                "give each node its own --node-rank below --nnodes",
            )
        )


def _check_master_addr(launch: Mapping[str, Setting], findings: list[Finding]) -> None:
    """An empty master address passes the profile model (it is a string) but leaves torchrun
    a rendezvous endpoint of ':PORT'. (An empty MASTER_ADDR in the environment counts as
    unset, like every other empty launch variable, so it never gets here.)"""
    setting = launch["master_addr"]
    if setting.value.strip():
        return
    source = setting.source
    if source.kind == "flag":
        where = f"pass {source.detail} HOST"
    elif source == SET:
        where = "write --set master_addr=HOST"
    else:
        where = f"write master_addr: HOST in {source}"
    findings.append(
        finding(
            "LX307",
            "master_addr",
            f"the master address is empty (from {source}): the ranks would meet at ':PORT'",
            f"{where} (the address of node rank 0), or auto to let launchx find it",
        )
    )


def _check_launch_types(launch: Mapping[str, Setting]) -> None:
    """Values that came from the environment skipped pydantic; check them the same way."""
    rules: dict[str, tuple[str, ...]] = {
        "nnodes": ("auto",),
        "node_rank": ("auto",),
        "master_port": ("auto",),
        "nproc_per_node": ("auto", "gpu", "cpu"),
    }
    for key, words in rules.items():
        setting = launch[key]
        value = setting.value
        if value in words:
            continue
        if key == "nnodes" and ":" in value:
            raise ConfigError(
                f"nnodes {value!r} (from {setting.source}) is an elastic range",
                "launchx restarts whole runs itself instead of resizing them: give a fixed "
                "node count (--nnodes N)",
            )
        if (
            not value.isdigit()
            or (key != "node_rank" and int(value) < 1)
            or (key == "master_port" and int(value) > 65535)
        ):
            raise ConfigError(
                f"{key.replace('_', '-')} {value!r} (from {setting.source}) is not valid",
                f"use a positive integer or one of {', '.join(words)}",
            )
