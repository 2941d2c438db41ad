"""Wiring for the commands: read the host once, load and resolve the profile.

This is the one module that reads the process environment and the current directory (and
hands them to ``detect``, which reads ``/sys`` and ``/proc``), so every stage after it is a
function of its arguments and can be tested with a constructed ``HostFacts``. It starts no
process.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from launchx import detect
from launchx.errors import LaunchxError, ProfileNotFound
from launchx.facts import HostFacts, TargetFacts
from launchx.profiles import (
    DEFAULT_PROFILE,
    LoadedProfile,
    ProfileListing,
    list_profiles,
    load,
)
from launchx.resolve import Overrides, Resolution, resolve


@dataclass(frozen=True)
class Request:
    """Everything a command was asked for, as typed."""

    profile: str | None = None
    sets: tuple[str, ...] = ()
    flags: Mapping[str, str] = field(default_factory=dict)
    flag_names: Mapping[str, str] = field(default_factory=dict)
    show_all: bool = False


def environment() -> dict[str, str]:
    """The process environment, read here and nowhere else in launchx's planning code."""
    return dict(os.environ)


def load_profile(ref: str) -> LoadedProfile:
    """A profile as the commands see it: searched from this directory and environment."""
    return load(ref, environment(), Path.cwd())


def all_profiles() -> ProfileListing:
    return list_profiles(environment(), Path.cwd())


def gather_facts(
    environ: Mapping[str, str] | None = None,
    extra_hosts: Sequence[str] = (),
    ports_of_interest: Sequence[str] = (),
) -> HostFacts:
    env = environment() if environ is None else dict(environ)
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


def probe_target(
    script: str, facts: HostFacts | None, *, module: bool, no_python: bool
) -> TargetFacts:
    """Whether what ``launchx run`` starts exists here (relative to this directory, on the
    PATH of the environment the facts were gathered from: read once, not again; without
    facts, as ``launchx sbatch`` asks before it gathers any, this process's)."""
    environ = facts.environ if facts is not None else environment()
    return detect.probe_target(
        script,
        module=module,
        no_python=no_python,
        cwd=str(Path.cwd()),
        path_var=environ.get("PATH", ""),
    )


def resolve_request(request: Request, facts: HostFacts | None = None) -> Resolution:
    environ = environment() if facts is None else dict(facts.environ)
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


def profile_or_default(ref: str | None, fallback: str) -> str:
    """``-p``, else ``LAUNCHX_DEFAULT_PROFILE`` (empty counts as unset), else ``fallback``:
    the default of a command whose own default is not ``local`` (sbatch's is ``slurm``)."""
    return ref or environment().get("LAUNCHX_DEFAULT_PROFILE") or fallback


def temp_dir() -> str:
    """Where launchx keeps logs without --log-dir (``TMPDIR``, as ``tempfile`` reads it)."""
    return tempfile.gettempdir()


# Options the launchx inside an srun step must not repeat: it always runs torchrun once.
# Flags that take no value (given only to turn a setting on: ``--preflight``).
SWITCHES = ("preflight.enabled",)
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
        if key in skip:
            continue
        name = request.flag_names.get(key, "--" + key.replace("_", "-"))
        args += [name] if key in SWITCHES else [name, value]
    if log_dir:
        args += ["--log-dir", log_dir]
    return tuple(args)


# torchrun's options that launchx spells otherwise (or decides itself), for whoever types
# ``launchx run`` where ``torchrun`` stood: what to write instead.
TORCHRUN_SPELLINGS: Mapping[str, str] = MappingProxyType(
    {
        "--standalone": "drop it (one node on this host is launchx's default)",
        "--max-restarts": "--max-retries N (launchx retries only transient failures)",
        "--rdzv-endpoint": "--master-addr HOST --master-port PORT",
        "--rdzv-id": "--run-id ID",
        "--rdzv-backend": "drop it (launchx sets torchrun's rendezvous itself)",
        "--rdzv-conf": "drop it, or set timeouts.rdzv_timeout_s (--set)",
        "--redirects": "drop it (launchx keeps every rank's output: --log-dir)",
        "--tee": "drop it (launchx keeps every rank's output: --log-dir)",
        "--local-ranks-filter": "--console-ranks RANKS (global ranks, e.g. 0; the others' "
        "errors are still shown, and every rank's output is in its rank-R.log)",
        "--logs-specs": "drop it (launchx keeps every rank's output: --log-dir)",
        "--local-addr": "drop it (torchrun's agent binds as launchx plans it)",
        "--role": "drop it (a label in torchrun's own logs only)",
        "--monitor-interval": "drop it (launchx watches the ranks itself: --hang-timeout)",
        "--start-method": "drop it (torchrun starts the script as a subprocess under launchx)",
    }
)


# sbatch's own spellings, for whoever types ``launchx sbatch`` where ``sbatch`` stood.
SBATCH_SPELLINGS: Mapping[str, str] = MappingProxyType(
    {
        "-N": "--nodes N",
        "-t": "--time LIMIT",
        "-J": "--job-name NAME",
        "-A": "--account NAME",
        "-q": "--qos NAME",
        "-c": "--cpus-per-task N",
        "--gres": "--gpus-per-node N",
    }
)


def _instead(given: str, known: Sequence[str]) -> str:
    """What to write for ``given``, as the start of the fix: the option with ``-`` for
    ``_`` (torchrun takes both), the one option it begins (argparse's abbreviations),
    torchrun's spelling of it, or the closest name."""
    import difflib

    dashed = "--" + given[2:].replace("_", "-") if given.startswith("--") else given
    if dashed in known:
        return f"launchx spells it {dashed}; "
    begun = [k for k in known if k.startswith("--") and len(dashed) > 3 and k.startswith(dashed)]
    if len(begun) == 1:
        return f"did you mean {begun[0]}? "
    spelled = TORCHRUN_SPELLINGS.get(dashed, "")
    if spelled.startswith("drop it"):
        return f"torchrun's {dashed} has no launchx twin: {spelled}; "
    if spelled.split(" ", 1)[0] in known:
        return f"torchrun's {dashed} is launchx's {spelled}; "
    spelled = SBATCH_SPELLINGS.get(dashed if dashed.startswith("--") else given, "")
    if spelled.split(" ", 1)[0] in known:
        return f"sbatch's {given} is launchx's {spelled}; "
    close = difflib.get_close_matches(dashed, known, n=1, cutoff=0.75)
    if close:
        return f"did you mean {close[0]}? "
    if "--sbatch-arg" in known and given.startswith("--"):
        return f"an sbatch option launchx does not write goes through: --sbatch-arg={given}=...; "
    return ""


def refuse_unknown_option(command: str, word: str, known: Sequence[str]) -> None:
    """Options before SCRIPT are launchx's; after it, the script's, verbatim. The command
    line hands an unknown one over as the script (typer's ``ignore_unknown_options``), so
    ``word`` (what stands where SCRIPT should) is refused here, at once, with what to write
    instead (``_instead``), rather than reaching torchrun or the script."""
    if not word.startswith("-") or word == "-":
        return
    given = word.split("=", 1)[0]
    raise LaunchxError(
        f"launchx {command}: no such option {given!r}",
        _instead(given, known)
        + "options before the script are launchx's (launchx "
        + f"{command} --help); put the script's own options after the script",
    )


def refuse_two_kinds(module: bool, no_python: bool) -> None:
    """SCRIPT is a module or an executable, not both (torchrun refuses the pair too, after
    launchx would have planned a command line with one of them dropped)."""
    if module and no_python:
        raise LaunchxError(
            "-m and --no-python name two kinds of SCRIPT: a module, or an executable",
            "keep -m for `python -m SCRIPT`, or --no-python to run SCRIPT as a program",
        )


def doctor_args(request: Request) -> tuple[str, ...]:
    """The ``launchx doctor`` options that resolve the job exactly as ``launchx run``'s
    options do (the preflight step under srun): every run flag that is a setting becomes a
    ``--set``; the launcher is the doctor step's own."""
    args: list[str] = []
    if request.profile:
        args += ["-p", request.profile]
    for item in request.sets:
        args += ["--set", item]
    for key, value in request.flags.items():
        if key != "launcher":
            args += ["--set", f"{key}={value}"]
    return tuple(args)
