"""``launchx sbatch``: from what the user typed to the batch script's text.

The profile is resolved here exactly as the nodes will resolve it, so a bad ``--set`` or
value fails now, not in the queue; the job's options are the profile's ``slurm`` block with
the flags over it (``slurm.merge_options``); the batch body repeats the run options as
typed (``pipeline.relaunch_args``) against the profile frozen into the script. Rendering is
``slurm.render_sbatch`` (pure); submitting is ``slurm_client``'s; ``deliver`` does what the
command was asked: print the script, write it to a file, submit it, wait for the job.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from launchx import __version__, pipeline, plan, slurm
from launchx.errors import LaunchxError
from launchx.findings import Finding

if TYPE_CHECKING:
    from launchx.slurm_client import Runner


@dataclass(frozen=True)
class BatchRequest:
    run: pipeline.Request  # the profile, --set and run options the nodes' launchx gets
    options: Mapping[str, object]  # slurm option field -> value given as a flag
    script_argv: tuple[str, ...]  # the training command, verbatim
    command_line: str  # what the user typed, for the script's header
    python: str  # the interpreter with launchx installed on the compute nodes
    module: bool = False  # script_argv[0] is a module (launchx run -m)
    no_python: bool = False  # script_argv[0] is an executable (launchx run --no-python)


def script_text(req: BatchRequest) -> str:
    """The batch script, resolved and validated (raises ``ConfigError`` naming the value)."""
    profile_ref = pipeline.profile_or_default(req.run.profile, "slurm")
    run = replace(req.run, profile=profile_ref)
    res = pipeline.resolve_request(run)
    loaded = pipeline.load_profile(profile_ref)
    # The slurm block as resolved: a --set slurm.time=... reaches the #SBATCH lines too.
    prefix = "slurm."
    origins = {k[len(prefix) :]: s.source for k, s in res.settings.items() if k.startswith(prefix)}
    nproc = res.launch["nproc_per_node"]
    options, sources = slurm.merge_options(
        res.profile.slurm,
        req.options,
        profile_name=loaded.profile.name,
        origins=origins,
        nproc_per_node=nproc.value,
        nproc_source=nproc.source,
    )
    # The batch script's `launchx run` gets the same options (its profile is frozen).
    run_args = pipeline.relaunch_args(replace(run, profile=None), None, skip=())
    run_args += ("-m",) if req.module else ()
    run_args += ("--no-python",) if req.no_python else ()
    return slurm.render_sbatch(
        options=options,
        profile_name=loaded.profile.name,
        frozen_profile_yaml=slurm.frozen_profile_yaml(loaded.profile, options),
        launchx_argv=run_args,
        script_argv=list(req.script_argv),
        version=__version__,
        command_line=req.command_line,
        python=req.python,
        sources=sources,
    )


def _missing_target(req: BatchRequest) -> Finding | None:
    """LX211 for a script the job, started from this directory, would not find."""
    here = pipeline.probe_target(
        req.script_argv[0], None, module=req.module, no_python=req.no_python
    )
    missing = plan.target_findings(here)
    return missing[0] if missing else None


def given_options(values: Mapping[str, object]) -> dict[str, object]:
    """The slurm options passed as flags (typer gives None, or an empty list, for the rest)."""
    out: dict[str, object] = {}
    for name, value in values.items():
        if value is None or (isinstance(value, list) and not value):
            continue
        out[name] = tuple(value) if isinstance(value, list) else value
    return out


def deliver(
    req: BatchRequest,
    *,
    out_file: str | None = None,
    submit: bool = False,
    wait: bool = False,
    echo: Callable[[str], None],
    warn: Callable[[str], None],
    runner: Runner | None = None,
) -> int:
    """``launchx sbatch`` once its arguments are parsed: render the script, then write it to
    ``out_file``, or print it (through ``echo``) when it is neither written nor submitted;
    with ``submit``, hand it to sbatch from this directory and print the job id; with
    ``wait`` too, wait for the job. Returns the exit code: the job's when waiting, else 0.
    A script that is not here is refused before it is submitted (the job would wait in the
    queue to fail) and, only rendered, said through ``warn``: it may be for another machine.
    ``runner`` stands in for SLURM's commands (tests); by default they run for real."""
    from launchx import slurm_client

    if wait and not submit:
        raise LaunchxError("--wait only applies with --submit", "add --submit")
    missing = _missing_target(req)
    if missing is not None and submit:
        raise LaunchxError(f"{missing.code} {missing.message}", missing.fix)
    if missing is not None:
        where = "on this PATH" if req.no_python else "from this directory"
        warn(
            f"launchx: warning: {missing.code} {missing.message} (the job runs it {where}; "
            "--submit refuses it)"
        )
    text = script_text(req)
    if out_file:
        try:
            Path(out_file).write_text(text)
        except OSError as exc:
            raise LaunchxError(
                f"cannot write {out_file}: {exc.strerror}", "pass a writable path to -o"
            ) from None
    elif not submit:
        echo(text)
    if not submit:
        return 0
    submit_job, wait_for = slurm_client.submit, slurm_client.wait_for_job
    if runner is not None:
        submit_job, wait_for = partial(submit_job, runner=runner), partial(wait_for, runner=runner)
    job_id = submit_job(text, workdir=Path.cwd())
    echo(job_id + "\n")
    return wait_for(job_id, poll_s=1.0, say=warn) if wait else 0
