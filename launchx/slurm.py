"""``launchx sbatch``: turn a profile's ``slurm`` block plus flags into a batch script, and
(separately) hand that script to SLURM.

Rendering is pure: the same options give the same bytes, so scripts are golden-tested and a
user can read exactly what will be queued before anything is submitted. Only ``submit``,
``wait_for_job``, ``requeue``, ``find_srun_step`` and ``signal_step`` at the bottom start
processes (``sbatch``/``scontrol``/``scancel``).

Decisions written down once, here:

* **The batch body is ``exec <python> -m launchx run``.** Which launcher, how many processes,
  which interface: those depend on the compute node, so they are decided there at run time.
  ``exec`` matters: bash runs a trap only after its foreground command ends, so a bash parent
  would sit on the warning signal until the job is killed; with ``exec`` launchx *is* the batch
  shell and receives it at once.
* **The warning signal is ``B:<SIG>@<N>``** (batch shell only), default ``B:USR2@120``. The
  batch shell is launchx, the one process that can requeue the job once and then forward the
  signal to its ``srun`` (which passes USR1/USR2 through to every task). Without ``B:`` SLURM
  signals every task of every step directly and launchx never learns the limit is near. A
  value written without ``B:`` is given one; ``R:`` (reservation) is refused.
* **The resolved profile is frozen into the script** as a quoted heredoc and written at job
  start to ``$SLURM_SUBMIT_DIR/.launchx/$SLURM_JOB_ID/profile.yaml``. SLURM keeps its own copy
  of the script, so a later edit of the user's profile cannot change a queued job, and a
  requeued run rewrites the same bytes.
* ``--open-mode=append`` always (a requeued job keeps its earlier output), and
  ``--requeue``/``--no-requeue`` always explicit, because which layer retries is a declared
  policy, not a cluster default.
* Values are quoted with ``shlex``; ``sbatch`` reads ``#SBATCH`` lines with shell-like quoting
  (single quotes and the ``'"'"'`` idiom checked on slurm 22.05). Newlines cannot be quoted in
  a ``#SBATCH`` line, so they are refused (``ConfigError``). Script arguments go on the
  ``exec`` line, where any string, newlines included, survives ``shlex.quote``.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

import yaml

from launchx.errors import ConfigError
from launchx.origin import DEFAULT, GIVEN, SET, Origin
from launchx.plan import CHANNEL_TOKEN_VAR
from launchx.profile_model import Profile, Slurm

Mode = Literal["per_node", "per_task"]

DEFAULT_SIGNAL = "B:USR2@120"
FROZEN_PROFILE_DIR = "${SLURM_SUBMIT_DIR:-$PWD}/.launchx/${SLURM_JOB_ID:?not inside a SLURM job}"
"""Where the job writes its frozen profile (a shell expression, expanded on the node)."""


OPTION_FIELDS: tuple[str, ...] = tuple(Slurm.model_fields)
"""The job's options: the fields of the profile's ``slurm`` block, declared once there (with
their types, defaults and help). ``launchx sbatch`` takes each as a flag of the same name."""

FLAG_NAMES: Mapping[str, str] = {
    name: "--sbatch-arg" if name == "sbatch_args" else "--" + name.replace("_", "-")
    for name in OPTION_FIELDS
}
"""Option field -> the flag that sets it (named in sources and messages)."""

OptionOrigins = tuple[Origin, ...]
"""Where one job option came from: one origin, or for ``sbatch_args`` (which accumulate)
the profile's and then the flags'."""


def origins_text(origins: OptionOrigins) -> str:
    """The words a user reads (the script's comments, messages): ``flag:--nodes``,
    ``--set slurm.time``, ``profile:p+flag:--sbatch-arg``, ``default``."""
    return "+".join(str(origin) for origin in origins) or str(DEFAULT)


# sbatch options launchx writes itself; a --sbatch-arg naming one would silently fight it.
_MANAGED = {
    "--nodes": "--nodes",
    "-N": "--nodes",
    "--gpus-per-node": "--gpus-per-node",
    "--ntasks-per-node": "--ntasks-per-node",
    "--cpus-per-task": "--cpus-per-task",
    "-c": "--cpus-per-task",
    "--time": "--time",
    "-t": "--time",
    "--partition": "--partition",
    "-p": "--partition",
    "--account": "--account",
    "-A": "--account",
    "--qos": "--qos",
    "-q": "--qos",
    "--job-name": "--job-name",
    "-J": "--job-name",
    "--output": "--output",
    "-o": "--output",
    "--signal": "--signal",
    "--requeue": "--requeue",
    "--no-requeue": "--no-requeue",
    "--open-mode": "(always append)",
    "--parsable": "(used by --submit)",
    "--wrap": "(the script is the job)",
}

_TIME_FORMATS = (
    re.compile(r"[0-9]+"),  # minutes
    re.compile(r"[0-9]+:[0-9]{1,2}"),  # minutes:seconds
    re.compile(r"[0-9]+:[0-9]{1,2}:[0-9]{1,2}"),  # hours:minutes:seconds
    re.compile(r"[0-9]+-[0-9]+"),  # days-hours
    re.compile(r"[0-9]+-[0-9]+:[0-9]{1,2}"),  # days-hours:minutes
    re.compile(r"[0-9]+-[0-9]+:[0-9]{1,2}:[0-9]{1,2}"),  # days-hours:minutes:seconds
    re.compile(r"INFINITE|UNLIMITED", re.IGNORECASE),
)
_SIGNAL = re.compile(
    r"(?:(?P<where>[A-Z]):)?(?P<sig>(?:SIG)?[A-Z][A-Z0-9]*|[0-9]+)"
    r"(?:@(?P<secs>[0-9]+))?"
)
_SIGNAL_NAMES = frozenset(
    {
        "HUP",
        "INT",
        "QUIT",
        "USR1",
        "USR2",
        "TERM",
        "CONT",
        "STOP",
        "TSTP",
        "ALRM",
        "KILL",
        "URG",
        "XCPU",
        "XFSZ",
        "VTALRM",
        "PROF",
        "WINCH",
        "PWR",
        "SYS",
        "TTIN",
        "TTOU",
        "PIPE",
    }
)
# What launchx (execute.FORWARDED, runtime.preempt) takes as the scheduler's warning; by
# number as Linux numbers them, which is where SLURM runs.
_WARNING_SIGNALS = frozenset({"USR1", "USR2", "10", "12"})
_TIME_HINT = (
    "SLURM time limits look like MINUTES, MM:SS, HH:MM:SS, D-HH, D-HH:MM or "
    "D-HH:MM:SS, e.g. --time 1-00:00:00"
)
_SIGNAL_HINT = "write [B:]SIGNAL@SECONDS, e.g. --signal USR2@120 (SECONDS up to 65535)"


# --------------------------------------------------------------------------- merging


def merge_options(
    profile_slurm: Slurm,
    given: Mapping[str, object],
    *,
    profile_name: str = "profile",
    origins: Mapping[str, Origin] | None = None,
    nproc_per_node: str | int | None = None,
    nproc_source: Origin = Origin.flag("--nproc-per-node"),
) -> tuple[Slurm, dict[str, OptionOrigins]]:
    """Combine the profile's ``slurm`` block with the flags given (flags win) and fill
    defaults.

    ``given`` maps option fields to the values passed as flags (``None`` or absent: not
    given). Returns the options to render and, per field, where the value came from (a
    flag, the profile, ``--set slurm.<field>`` or the default; ``origins_text`` words it).
    ``origins`` (field -> origin, from the resolution's settings) says which values a
    ``--set`` or a base profile gave; without it, every field the profile set is the
    profile's. ``sbatch_args`` accumulate (profile first, then flags) because each names
    a different sbatch option. Validates everything; raises ``ConfigError`` naming the
    value and its origin.

    ``nproc_per_node`` (with ``nproc_source``, where it came from) is the run's processes
    per node as resolved for the submission. In mode per_task each SLURM task is one
    process, so a number there *is* the tasks per node (see ``_per_task_count``); a value
    an ``auto:`` rule found on the submitting host says nothing about the compute nodes
    and is ignored.
    """
    unknown = sorted(set(given) - set(OPTION_FIELDS))
    if unknown:
        raise ConfigError(
            f"not a SLURM option: {', '.join(unknown)}", f"known: {', '.join(OPTION_FIELDS)}"
        )
    merged: dict[str, object] = {}
    sources: dict[str, OptionOrigins] = {}
    from_profile = Origin.profile(profile_name)
    if origins is None:
        origins = {name: from_profile for name in profile_slurm.model_fields_set}
    by_profile = {
        name: Origin("set", f"slurm.{name}") if origin == SET else origin
        for name, origin in origins.items()
        if origin != DEFAULT
    }
    for name in OPTION_FIELDS:
        if name == "sbatch_args":
            continue
        flag_value = given.get(name)
        profile_value = getattr(profile_slurm, name)
        if flag_value is not None:
            merged[name], sources[name] = flag_value, (Origin.flag(FLAG_NAMES[name]),)
        elif name in by_profile and profile_value is not None:
            merged[name], sources[name] = profile_value, (by_profile[name],)
        else:
            merged[name], sources[name] = None, (DEFAULT,)
    flag_args = tuple(str(a) for a in given.get("sbatch_args") or ())  # type: ignore[attr-defined]
    merged["sbatch_args"] = tuple(profile_slurm.sbatch_args) + flag_args
    arg_sources = (by_profile.get("sbatch_args", from_profile),) * bool(profile_slurm.sbatch_args)
    arg_sources += (Origin.flag(FLAG_NAMES["sbatch_args"]),) * bool(flag_args)
    sources["sbatch_args"] = arg_sources or (DEFAULT,)
    nproc = _given_nproc(nproc_per_node, nproc_source)
    _fill_defaults(merged, sources, profile_name, nproc)
    # Validated below, with messages naming each value's source (pydantic's would not).
    opts = Slurm.model_construct(**cast(dict[str, Any], merged))
    validate_options(opts, sources)
    return opts, sources


def _given_nproc(value: str | int | None, origin: Origin) -> tuple[int, Origin] | None:
    """The processes per node a user (flag, profile, ``--set``, environment) gave as a
    number, with its origin; ``None`` for gpu/cpu/auto, which the compute node resolves."""
    if value is None or isinstance(value, bool) or origin.kind == "auto":
        return None
    text = str(value).strip()
    if not text.lstrip("-").isdigit():
        return None
    if int(text) < 1:
        raise ConfigError(
            f"--nproc-per-node must be at least 1, got {text} ({origin})",
            "pass --nproc-per-node 1 or more, or gpu, cpu or auto",
        )
    return int(text), origin


def _per_task_count(
    ntasks: int | None, ntasks_source: OptionOrigins, nproc: tuple[int, Origin] | None
) -> tuple[int | None, OptionOrigins]:
    """Tasks per node in mode per_task, where one task is one process.

    ``launchx run`` on the node plans ``srun --ntasks-per-node=<nproc_per_node>``, and srun
    silently ignores that when it differs from the allocation's tasks per node (it runs
    the allocation's count; checked on slurm 22.05), so the two must agree: a number of
    processes per node gives the tasks when they are not given, and a disagreement is
    refused instead of becoming a world of another size than the one asked for.
    """
    if nproc is None:
        return ntasks, ntasks_source
    count, source = nproc
    if ntasks is None:
        return count, (source,)
    if ntasks != count:
        raise ConfigError(
            f"--ntasks-per-node {ntasks} ({origins_text(ntasks_source)}) and --nproc-per-node "
            f"{count} ({source}) disagree: in mode per_task each SLURM task is one process",
            f"give one of them, or the same number to both (e.g. --ntasks-per-node {count} "
            f"--nproc-per-node {count})",
        )
    return ntasks, ntasks_source


def _fill_defaults(
    merged: dict[str, object],
    sources: dict[str, OptionOrigins],
    profile_name: str,
    nproc: tuple[int, Origin] | None = None,
) -> None:
    mode = merged["mode"] or "per_node"
    ntasks = merged["ntasks_per_node"]
    if mode == "per_task":
        ntasks, sources["ntasks_per_node"] = _per_task_count(
            ntasks,  # type: ignore[arg-type]
            sources.get("ntasks_per_node", (DEFAULT,)),
            nproc,
        )
    if ntasks is None:
        if mode == "per_node":
            # one task, the node's launchx, whatever the defaults: the mode decides it
            ntasks, sources["ntasks_per_node"] = 1, (Origin.auto("mode per_node"),)
        elif merged["gpus_per_node"]:
            ntasks, sources["ntasks_per_node"] = merged["gpus_per_node"], sources["gpus_per_node"]
    requeue = bool(merged["requeue"])
    signal = merged["signal"]
    if signal is None and requeue:
        # The profile model's own default ("USR2@120") only matters when requeue is asked for:
        # the warning exists so launchx can requeue before the limit.
        signal = DEFAULT_SIGNAL
    merged.update(
        mode=mode,
        nodes=merged["nodes"] if merged["nodes"] is not None else 1,
        ntasks_per_node=ntasks,
        requeue=requeue,
        signal=(
            _normalise_signal(str(signal), origins_text(sources.get("signal", (DEFAULT,))))
            if signal
            else None
        ),
        job_name=merged["job_name"] or f"launchx-{profile_name}",
    )


def _normalise_signal(value: str, source: str) -> str:
    match = _SIGNAL.fullmatch(value.strip().upper())
    if match is None:
        raise ConfigError(f"signal {value!r} ({source}) is not [B:]SIGNAL@SECONDS", _SIGNAL_HINT)
    where, sig, secs = match.group("where"), match.group("sig"), match.group("secs")
    if where not in (None, "B"):
        raise ConfigError(
            f"signal {value!r} ({source}): only the B: prefix is supported",
            "launchx runs as the batch shell and forwards the signal to its "
            "tasks; drop the prefix or write B:",
        )
    if sig.isdigit():
        if not 1 <= int(sig) <= 64:
            raise ConfigError(f"signal {value!r} ({source}): no signal number {sig}", _SIGNAL_HINT)
    else:
        sig = sig.removeprefix("SIG")
        if sig not in _SIGNAL_NAMES:
            raise ConfigError(f"signal {value!r} ({source}): unknown signal {sig!r}", _SIGNAL_HINT)
    if sig not in _WARNING_SIGNALS:
        raise ConfigError(
            f"signal {value!r} ({source}): launchx takes only USR1 or USR2 as the warning "
            "before the time limit (checkpoint, then requeue); any other stops the run "
            "without a requeue (TERM, INT, HUP: an interrupt) or launchx itself (KILL, STOP)",
            "write --signal USR2@120 (launchx's default) or USR1@SECONDS",
        )
    seconds = int(secs) if secs is not None else 60  # sbatch's own default
    if seconds > 0xFFFF:
        raise ConfigError(
            f"signal {value!r} ({source}): {seconds} s is more than 65535", _SIGNAL_HINT
        )
    return f"B:{sig}@{seconds}"


def _check_text(field: str, value: str, source: str) -> None:
    if not value:
        raise ConfigError(
            f"{FLAG_NAMES.get(field, field)} ({source}) is empty",
            "give a value or leave the option out",
        )
    bad = next((ch for ch in value if ord(ch) < 32 or ord(ch) == 127), None)
    if bad is not None:
        raise ConfigError(
            f"{FLAG_NAMES.get(field, field)} value {value!r} ({source}) contains the control "
            f"character {bad!r}",
            "#SBATCH lines are single lines: remove newlines, tabs and other control characters",
        )


def validate_options(opts: Slurm, sources: Mapping[str, OptionOrigins]) -> None:
    """Refuse values sbatch would reject or that cannot be written on one ``#SBATCH`` line
    (``sources`` name each value's origin in the message; a value without one was given)."""

    def src(name: str) -> str:
        return origins_text(sources.get(name, (GIVEN,)))

    for name in ("nodes", "ntasks_per_node", "cpus_per_task"):
        value = getattr(opts, name)
        if value is not None and (isinstance(value, bool) or value < 1):
            raise ConfigError(
                f"{FLAG_NAMES[name]} must be at least 1, got {value!r} ({src(name)})",
                f"pass {FLAG_NAMES[name]} 1 or more",
            )
    if opts.gpus_per_node is not None and opts.gpus_per_node < 0:
        raise ConfigError(
            f"--gpus-per-node must be 0 or more, got {opts.gpus_per_node} ({src('gpus_per_node')})",
            "pass --gpus-per-node 0 for CPU jobs",
        )
    if opts.mode not in (None, "per_node", "per_task"):
        raise ConfigError(
            f"slurm mode {opts.mode!r} ({src('mode')}) is not per_node or per_task",
            "per_node: one torchrun per node; per_task: one task per GPU",
        )
    if opts.mode == "per_node" and opts.ntasks_per_node not in (None, 1):
        raise ConfigError(
            f"--ntasks-per-node {opts.ntasks_per_node} ({src('ntasks_per_node')}) with mode "
            "per_node: each node runs one task (torchrun), which starts the processes",
            "use mode per_task for one SLURM task per process, or --cpus-per-task to reserve "
            "CPUs for torchrun's workers",
        )
    if opts.mode == "per_task" and opts.ntasks_per_node is None:
        raise ConfigError(
            "mode per_task needs the number of tasks per node (one task per process)",
            "pass --nproc-per-node N, --ntasks-per-node N or --gpus-per-node N",
        )
    for name in ("time", "partition", "account", "qos", "job_name", "output"):
        value = getattr(opts, name)
        if value is not None:
            _check_text(name, value, src(name))
    if opts.time is not None and not any(p.fullmatch(opts.time) for p in _TIME_FORMATS):
        raise ConfigError(
            f"--time {opts.time!r} ({src('time')}) is not a SLURM time limit", _TIME_HINT
        )
    if opts.signal is not None:
        _normalise_signal(opts.signal, src("signal"))
    for arg in opts.sbatch_args:
        _check_sbatch_arg(arg, src("sbatch_args"))


def _check_sbatch_arg(arg: str, source: str) -> None:
    _check_text("sbatch_args", arg, source)
    if not arg.startswith("-"):
        raise ConfigError(
            f"--sbatch-arg {arg!r} ({source}) is not an option",
            "pass one sbatch option per --sbatch-arg, e.g. --sbatch-arg=--constraint=h800",
        )
    name = _arg_name(arg)
    if name in _MANAGED:
        raise ConfigError(
            f"--sbatch-arg {arg!r} ({source}) sets {name}, which launchx writes itself",
            f"use launchx's own option {_MANAGED[name]} instead",
        )


_LONG_ARG = re.compile(r"(?P<name>--[^=\s]+)(?:[=\s]\s*(?P<value>.*))?$", re.S)


def _arg_parts(arg: str) -> tuple[str, str | None]:
    """An sbatch option as its name and value: ``--mem=10G``, ``--mem 10G`` (one
    --sbatch-arg, as typed after sbatch), ``-w node1``, ``-wnode1``; no value: None."""
    if m := _LONG_ARG.match(arg):
        return m["name"], m["value"]
    rest = arg[2:].lstrip()
    return arg[:2], (rest or None)


def _arg_name(arg: str) -> str:
    return _arg_parts(arg)[0]


# --------------------------------------------------------------------------- rendering


def sbatch_lines(opts: Slurm) -> list[str]:
    """The ``#SBATCH`` lines, sorted so that equal options always give the same text."""
    pairs: list[tuple[str, str | None]] = [
        ("--open-mode", "append"),
        ("--requeue" if opts.requeue else "--no-requeue", None),
    ]
    for name in (
        "nodes",
        "ntasks_per_node",
        "cpus_per_task",
        "time",
        "partition",
        "account",
        "qos",
        "job_name",
        "output",
        "signal",
    ):
        value = getattr(opts, name)
        if value is not None:
            pairs.append((FLAG_NAMES[name], str(value)))
    if opts.gpus_per_node:  # 0 = a CPU job: asking for 0 GPUs fails without GRES
        pairs.append(("--gpus-per-node", str(opts.gpus_per_node)))
    lines = [
        f"#SBATCH {opt}" if value is None else f"#SBATCH {opt}={shlex.quote(value)}"
        for opt, value in pairs
    ]
    for arg in opts.sbatch_args:
        # sbatch splits a directive into words as a shell would: the value is one word
        name, value = _arg_parts(arg)
        if value is None:
            lines.append(f"#SBATCH {shlex.quote(name)}")
        elif name.startswith("--"):
            lines.append(f"#SBATCH {name}={shlex.quote(value)}")
        else:
            lines.append(f"#SBATCH {name} {shlex.quote(value)}")
    return sorted(lines)


def _source_lines(opts: Slurm, sources: Mapping[str, OptionOrigins]) -> list[str]:
    """Where each option came from (flag, profile or default), as comments: the same
    provenance `launchx explain` gives for a run."""
    if not sources:
        return []
    parts = [
        f"{FLAG_NAMES[name]}={_comment(str(value))} ({origins_text(sources[name])})"
        for name in sorted(sources)
        if (value := getattr(opts, name, None)) not in (None, ())
    ]
    return ["# Options: " + part for part in parts]


def _comment(text: str) -> str:
    """One comment line whatever ``text`` holds: a newline must not end the comment (and a
    following ``#SBATCH`` must not appear), so control characters are written escaped."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def frozen_profile_yaml(profile: Profile, options: Slurm) -> str:
    """The resolved profile as the job will see it.

    Only what the profile files set is written (defaults stay defaults, so the node resolves
    them exactly as it would have), ``extends`` is dropped (already merged), ``nnodes``
    becomes ``auto`` (the allocation, read from SLURM on the node, is the truth), as does a
    loopback ``master_addr`` (SLURM's first node then, not each node itself), and the
    ``slurm`` block carries the merged options, so ``launchx run`` decides from what was
    submitted.
    """
    updates = {
        name: getattr(options, name)
        for name in OPTION_FIELDS
        if getattr(options, name, None) is not None
    }
    slurm = profile.slurm.model_copy(update=updates)
    allocated: dict[str, object] = {"slurm": slurm, "nnodes": "auto"}
    if _loopback(profile.master_addr):  # (``-p local``): the other nodes cannot reach it
        allocated["master_addr"] = "auto"
    frozen = profile.model_copy(update=allocated)
    data = frozen.model_dump(mode="json", exclude_unset=True, exclude={"extends"})
    text: str = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    return text


def _loopback(address: str) -> bool:
    import ipaddress

    name = address.strip().strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def heredoc_delimiter(body: str) -> str:
    """A heredoc terminator that no line of ``body`` equals (derived from the content, so
    rendering stays deterministic)."""
    digest = hashlib.sha256(body.encode()).hexdigest()[:12]
    lines = set(body.splitlines())
    candidate = f"LAUNCHX_PROFILE_{digest}"
    suffix = 0
    while candidate in lines:  # finitely many lines: this ends
        suffix += 1
        candidate = f"LAUNCHX_PROFILE_{digest}_{suffix}"
    return candidate


# 128 random bits as hex, from tools every node has (coreutils), at the job's start.
_RANDOM_HEX = r"od -An -N16 -tx1 /dev/urandom | tr -d ' \n'"


def render_sbatch(
    *,
    options: Slurm,
    profile_name: str,
    frozen_profile_yaml: str,
    launchx_argv: Sequence[str],
    script_argv: Sequence[str],
    version: str,
    command_line: str,
    python: str,
    sources: Mapping[str, OptionOrigins] | None = None,
) -> str:
    """The batch script for ``options`` (as returned by ``merge_options``).

    ``launchx_argv`` are extra arguments for ``launchx run`` (before ``--``); ``script_argv``
    is the training command, passed verbatim whatever it contains; ``python`` is the
    interpreter that has launchx installed on the compute nodes.
    """
    if not script_argv:
        raise ConfigError(
            "no script to run",
            "give the training script and its arguments "
            "after the options, e.g. launchx sbatch -p slurm train.py --lr 1e-3",
        )
    for word in (*launchx_argv, *script_argv, python, frozen_profile_yaml):
        if "\0" in word:
            raise ConfigError(
                f"{word[:40]!r}... contains a NUL byte, which no shell script can carry",
                "remove the NUL byte",
            )
    _check_text("profile", profile_name, "profile name")
    validate_options(options, {})
    yaml_text = (
        frozen_profile_yaml if frozen_profile_yaml.endswith("\n") else (frozen_profile_yaml + "\n")
    )
    delimiter = heredoc_delimiter(yaml_text)
    exec_line = (
        f'exec {shlex.join([python, "-m", "launchx", "run", "-p"])} "$profile" '
        + shlex.join([*launchx_argv, "--", *script_argv])
    )
    out = [
        "#!/bin/bash",
        f"# Generated by launchx {_comment(version)} (profile {_comment(profile_name)}, "
        f"mode {options.mode}).",
        f"# Command: {_comment(command_line)}",
        "# The profile is frozen below: editing the profile file does not change this job.",
        *_source_lines(options, sources or {}),
        *sbatch_lines(options),
        "",
        "set -euo pipefail",
        f'job_dir="{FROZEN_PROFILE_DIR}"',
        'mkdir -p -- "$job_dir"',
        'profile="$job_dir/profile.yaml"',
        f"cat > \"$profile\" <<'{delimiter}'",
        yaml_text + delimiter,
        "# The nodes' launchx sign their messages with a secret only this job's steps know.",
        f'export {CHANNEL_TOKEN_VAR}="${{{CHANNEL_TOKEN_VAR}:-$({_RANDOM_HEX})}}"',
        "# exec: launchx becomes the batch shell, so it gets the time-limit signal at once.",
        exec_line,
        "",
    ]
    return "\n".join(out)
