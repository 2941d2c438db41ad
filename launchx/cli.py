"""The command line: a thin typer layer that parses, calls the stages, renders, exits.

No decision lives here. Errors raised as ``LaunchxError`` are printed once, as one
message with its fix, and become exit code 2; nothing else is caught. This module must
never import torch (``launchx explain`` should feel instant).
"""

from __future__ import annotations

import itertools
import shlex
import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer

from launchx import __version__, pipeline, plan, render
from launchx.errors import LaunchxError
from launchx.findings import has_errors

_APP_SETTINGS: dict[str, Any] = {
    "name": "launchx",
    "help": "Launch multi-node PyTorch training that works the first time and recovers on its own.",
    "no_args_is_help": True,
    "add_completion": False,
    "pretty_exceptions_show_locals": False,
    "rich_markup_mode": None,
}
app = typer.Typer(**_APP_SETTINGS)


ProfileOpt = Annotated[
    str | None, typer.Option("-p", "--profile", help="Profile name or YAML path (default: local).")
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", help="KEY=VALUE: an environment variable or a profile key (repeatable)."),
]
NnodesOpt = Annotated[str | None, typer.Option("--nnodes", help="Number of nodes.")]
NprocOpt = Annotated[
    str | None, typer.Option("--nproc-per-node", help="Processes per node: N, gpu, cpu or auto.")
]
NodeRankOpt = Annotated[str | None, typer.Option("--node-rank", help="This node's rank.")]
MasterAddrOpt = Annotated[str | None, typer.Option("--master-addr", help="Address of node rank 0.")]
MasterPortOpt = Annotated[str | None, typer.Option("--master-port", help="Port N or auto.")]
LauncherOpt = Annotated[
    str | None, typer.Option("--launcher", help="auto, torchrun, srun or direct.")
]

_FLAG_NAMES = {
    "nnodes": "--nnodes",
    "nproc_per_node": "--nproc-per-node",
    "node_rank": "--node-rank",
    "master_addr": "--master-addr",
    "master_port": "--master-port",
    "launcher": "--launcher",
    "timeouts.grace_period_s": "--grace-period",
    "timeouts.hang_s": "--hang-timeout",
    "retry.max_retries": "--max-retries",
    "resume.checkpoint_dir": "--checkpoint-dir",
    "resume.resume_arg": "--resume-arg",
    "preflight.enabled": "--preflight",
    "logs.console_ranks": "--console-ranks",
}
MaxRetriesOpt = Annotated[
    int | None, typer.Option("--max-retries", help="Retries of transient failures (default 3).")
]
CheckpointDirOpt = Annotated[
    str | None,
    typer.Option(
        "--checkpoint-dir", help="Resume each retry from the newest complete checkpoint here."
    ),
]
ConsoleRanksOpt = Annotated[
    str | None,
    typer.Option(
        "--console-ranks",
        help="Ranks whose output the console shows: all (default), 0, 0,8 or 0-3; the "
        "others' from their first error on (every rank's is in its log file).",
    ),
]
PreflightOpt = Annotated[
    bool,
    typer.Option(
        "--preflight",
        help="Check every node (launchx doctor across nodes) first; do not start on errors.",
    ),
]


def _request(
    profile: str | None, sets: list[str] | None, show_all: bool = False, **flags: object
) -> pipeline.Request:
    given = {
        k.replace("__", "."): ("true" if v is True else str(v))
        for k, v in flags.items()
        if v is not None and v is not False  # a switch not given leaves the profile's value
    }
    return pipeline.Request(
        profile=profile,
        sets=tuple(sets or ()),
        flags=given,
        flag_names=_FLAG_NAMES,
        show_all=show_all,
    )


@app.command()
def explain(
    profile: ProfileOpt = None,
    sets: SetOpt = None,
    fmt: Annotated[str, typer.Option("--format", help="table, env or json.")] = "table",
    show_all: Annotated[
        bool,
        typer.Option("--all", help="Show every variable, not just the distributed-training ones."),
    ] = False,
    nnodes: NnodesOpt = None,
    nproc_per_node: NprocOpt = None,
    node_rank: NodeRankOpt = None,
    master_addr: MasterAddrOpt = None,
    master_port: MasterPortOpt = None,
    launcher: LauncherOpt = None,
) -> None:
    """Print the resolved environment, where every value came from, and what is wrong."""
    if fmt not in ("table", "env", "json"):
        raise LaunchxError(f"unknown --format {fmt!r}", "use table, env or json")
    _json_errors(fmt == "json")
    res = pipeline.resolve_request(
        _request(
            profile,
            sets,
            show_all,
            nnodes=nnodes,
            nproc_per_node=nproc_per_node,
            node_rank=node_rank,
            master_addr=master_addr,
            master_port=master_port,
            launcher=launcher,
        )
    )
    decision, findings = plan.assess_explained(res)
    if fmt == "json":
        typer.echo(render.explain_json(res, decision, findings), nl=False)
    elif fmt == "env":
        typer.echo(render.explain_env(res), nl=False)
        if findings:
            typer.echo(render.findings_text(findings), err=True, nl=False)
    else:
        typer.echo(render.explain_table(res, decision, findings), nl=False)
    raise typer.Exit(2 if has_errors(findings) else 0)


profiles_app = typer.Typer(
    help="List the profiles, or show one merged with its sources.",
    invoke_without_command=True,
    no_args_is_help=False,
)
app.add_typer(profiles_app, name="profiles")


@profiles_app.callback()
def profiles_list(ctx: typer.Context) -> None:
    """List every profile launchx can find: name, launcher and description."""
    if ctx.invoked_subcommand is not None:
        return
    listing = pipeline.all_profiles()
    width = max((len(item.ref) for item in listing.found), default=4)
    for item in listing.found:
        prof = item.profile
        named = f" (it names itself {prof.name!r})" if prof.name != item.ref else ""
        typer.echo(
            f"{item.ref:<{width}}  {prof.launcher:<8}  {prof.description}{named}"
            + ("" if item.where == "built-in" else f"  [{item.where}]")
            + "".join(f"\n{'':<{width}}  (hides {path})" for path in item.hides)
        )
    for exc in listing.broken:
        typer.echo(exc.render(), err=True)
    if listing.broken:
        raise typer.Exit(2)


@profiles_app.command("show")
def profiles_show(name: Annotated[str, typer.Argument(help="Profile name or path.")]) -> None:
    """Print the merged profile, each value with the file it came from."""
    loaded = pipeline.load_profile(name)
    typer.echo(render.profile_text(loaded), nl=False)


ModuleOpt = Annotated[bool, typer.Option("-m", "--module", help="SCRIPT is a module (python -m).")]
NoPythonOpt = Annotated[
    bool, typer.Option("--no-python", help="SCRIPT is an executable, not a Python file.")
]


RUN_CONTEXT = {"allow_interspersed_args": False, "ignore_unknown_options": True}


def _unknown_option(ctx: typer.Context, word: str) -> None:
    """typer hands an unknown option before SCRIPT over as the script: refuse it (see
    ``pipeline.refuse_unknown_option``) against this command's own options."""
    names = [n for p in ctx.command.params for n in (*p.opts, *p.secondary_opts)]
    pipeline.refuse_unknown_option(str(ctx.command.name), word, names)


def _echo(text: str) -> None:
    typer.echo(text, nl=False)


@app.command(context_settings=RUN_CONTEXT)
def run(
    ctx: typer.Context,
    script: Annotated[str, typer.Argument(help="Training script (or module with -m).")],
    script_args: Annotated[
        list[str] | None, typer.Argument(help="Arguments for the script, passed verbatim.")
    ] = None,
    profile: ProfileOpt = None,
    sets: SetOpt = None,
    nnodes: NnodesOpt = None,
    nproc_per_node: NprocOpt = None,
    node_rank: NodeRankOpt = None,
    master_addr: MasterAddrOpt = None,
    master_port: MasterPortOpt = None,
    launcher: LauncherOpt = None,
    module: ModuleOpt = False,
    no_python: NoPythonOpt = False,
    log_dir: Annotated[
        str | None, typer.Option("--log-dir", help="Keep each attempt's and rank's logs here.")
    ] = None,
    grace_period: Annotated[
        float | None,
        typer.Option(
            "--grace-period", help="Seconds ranks get to exit on Ctrl-C/SIGTERM (default 30)."
        ),
    ] = None,
    max_retries: MaxRetriesOpt = None,
    hang_timeout: Annotated[
        str | None,
        typer.Option(
            "--hang-timeout",
            help="No progress for this long is a hang: SECONDS, auto (default) or off.",
        ),
    ] = None,
    checkpoint_dir: CheckpointDirOpt = None,
    console_ranks: ConsoleRanksOpt = None,
    resume_arg: Annotated[
        str | None,
        typer.Option(
            "--resume-arg", help="Also pass the checkpoint to the script, e.g. '--resume {path}'."
        ),
    ] = None,
    run_id: Annotated[
        str | None, typer.Option("--run-id", help="Run id shared by every node (default: derived).")
    ] = None,
    preflight: PreflightOpt = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print exactly what would run, then exit.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="With --dry-run: print JSON.")] = False,
) -> None:
    """Launch training: torchrun, srun or the script itself; retry and resume."""
    from launchx.run import start

    _json_errors(as_json and dry_run)
    _unknown_option(ctx, script)
    pipeline.refuse_two_kinds(module, no_python)
    request = _request(
        profile,
        sets,
        nnodes=nnodes,
        nproc_per_node=nproc_per_node,
        node_rank=node_rank,
        master_addr=master_addr,
        master_port=master_port,
        launcher=launcher,
        timeouts__grace_period_s=grace_period,
        timeouts__hang_s=hang_timeout,
        retry__max_retries=max_retries,
        resume__checkpoint_dir=checkpoint_dir,
        resume__resume_arg=resume_arg,
        preflight__enabled=preflight,
        logs__console_ranks=console_ranks,
    )
    target = plan.Target(
        script=script, args=tuple(script_args or ()), module=module, no_python=no_python
    )
    if dry_run:
        first = start.dry_run(request, target, run_id=run_id, log_dir=log_dir)
        typer.echo(render.plan_json(first) if as_json else render.plan_text(first), nl=False)
        raise typer.Exit(0 if first.ok else 2)
    if as_json:
        raise LaunchxError("--json only applies with --dry-run", "add --dry-run")
    raise typer.Exit(start.start(request, target, run_id=run_id, log_dir=log_dir))


def _sbatch(
    ctx: typer.Context,
    script: Annotated[str, typer.Argument(help="Training script (or module with -m).")],
    script_args: Annotated[
        list[str] | None, typer.Argument(help="Arguments for the script, passed verbatim.")
    ] = None,
    profile: Annotated[
        str | None,
        typer.Option(
            "-p",
            "--profile",
            help="Profile name or YAML path (default: LAUNCHX_DEFAULT_PROFILE, else slurm).",
        ),
    ] = None,
    sets: SetOpt = None,
    nproc_per_node: NprocOpt = None,
    checkpoint_dir: CheckpointDirOpt = None,
    max_retries: MaxRetriesOpt = None,
    console_ranks: ConsoleRanksOpt = None,
    preflight: PreflightOpt = False,
    module: ModuleOpt = False,
    no_python: NoPythonOpt = False,
    out_file: Annotated[
        str | None, typer.Option("-o", "--out-file", help="Write the script here.")
    ] = None,
    submit: Annotated[bool, typer.Option("--submit", help="Submit it with sbatch.")] = False,
    wait: Annotated[
        bool, typer.Option("--wait", help="With --submit: wait, exit with the job's code.")
    ] = False,
    **slurm_options: object,
) -> None:
    """Render (and submit) a SLURM batch script that runs `launchx run` on the nodes."""
    from launchx import sbatch

    _unknown_option(ctx, script)
    pipeline.refuse_two_kinds(module, no_python)
    request = sbatch.BatchRequest(
        run=_request(
            profile,
            sets,
            nproc_per_node=nproc_per_node,
            retry__max_retries=max_retries,
            resume__checkpoint_dir=checkpoint_dir,
            preflight__enabled=preflight,
            logs__console_ranks=console_ranks,
        ),
        options=sbatch.given_options(slurm_options),
        script_argv=(script, *(script_args or ())),
        command_line=shlex.join(["launchx", *sys.argv[1:]]),
        python=sys.executable,
        module=module,
        no_python=no_python,
    )
    code = sbatch.deliver(
        request,
        out_file=out_file,
        submit=submit,
        wait=wait,
        echo=_echo,
        warn=lambda line: typer.echo(line, err=True),
    )
    if out_file and not submit:
        typer.echo(
            f"launchx: wrote {out_file}; submit it with: sbatch {shlex.quote(out_file)}", err=True
        )
    raise typer.Exit(code)


def _register_sbatch() -> None:
    """``launchx sbatch`` takes each field of the profile's ``slurm`` block as a flag of the
    same name: its type, default and help are the model's, declared once there. Built when
    the command is asked for (reading the fields' help costs a parse of the model's file)."""
    import inspect
    import typing

    from launchx.profile_model import Slurm, field_docs
    from launchx.slurm import FLAG_NAMES, OPTION_FIELDS

    docs = field_docs(Slurm)
    params = [
        p
        for p in inspect.signature(_sbatch, eval_str=True).parameters.values()
        if p.kind is not inspect.Parameter.VAR_KEYWORD
    ]
    for name in OPTION_FIELDS:
        field = Slurm.model_fields[name]
        flag = FLAG_NAMES[name]
        decls: tuple[str, ...] = (flag,)
        kind: object
        if isinstance(field.default, bool):
            kind, decls = bool | None, (f"{flag}/--no-{flag.removeprefix('--')}",)
        elif isinstance(field.default, tuple):
            kind = list[str] | None
        elif any(int in (arg, *typing.get_args(arg)) for arg in typing.get_args(field.annotation)):
            kind = int | None  # int | None, or Annotated[int, Field(ge=1)] | None
        else:
            kind = str | None
        option = typer.Option(*decls, help=docs.get(name, ""))
        annotation = Annotated[kind, option]  # type: ignore[valid-type]
        params.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation
            )
        )

    def sbatch(**kwargs: Any) -> None:
        _sbatch(**kwargs)

    sbatch.__doc__ = _sbatch.__doc__
    sbatch.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    app.command(name="sbatch", context_settings=RUN_CONTEXT)(sbatch)


@app.command()
def doctor(
    profile: ProfileOpt = None,
    sets: SetOpt = None,
    nproc_per_node: NprocOpt = None,
    nnodes: NnodesOpt = None,
    node_rank: NodeRankOpt = None,
    master_addr: MasterAddrOpt = None,
    master_port: MasterPortOpt = None,
    join_timeout: Annotated[
        float,
        typer.Option("--join-timeout", help="Seconds node 0 waits for the others to join."),
    ] = 60.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    no_comm: Annotated[
        bool, typer.Option("--no-comm", help="Compare facts only; skip the link test.")
    ] = False,
) -> None:
    """Check this node, or every node of a multi-node job, before it runs."""
    from launchx import doctor as doctor_mod

    _json_errors(as_json)
    res = pipeline.resolve_request(
        _request(
            profile,
            sets,
            nnodes=nnodes,
            nproc_per_node=nproc_per_node,
            node_rank=node_rank,
            master_addr=master_addr,
            master_port=master_port,
        )
    )
    code = doctor_mod.check(
        res, echo=_echo, join_timeout_s=join_timeout, comm_test=not no_comm, as_json=as_json
    )
    raise typer.Exit(code)


@app.command()
def status(
    run_dir: Annotated[
        str | None,
        typer.Argument(
            help="A run's log directory or run id (default: the newest under the temp dir)."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the state as JSON.")] = False,
) -> None:
    """What a run is doing now, or how it ended (from its events.jsonl)."""
    import socket
    import time

    from launchx import status as status_mod
    from launchx.run import events, rundirs

    _json_errors(as_json)

    where = rundirs.run_dir(run_dir, pipeline.temp_dir())
    own, others = events.read_run_writers(where)
    found = own + others
    if not found:
        raise LaunchxError(
            f"no launchx events in {where}",
            "pass the --log-dir of a run, or run one first (launchx run ...)",
        )
    start = events.open_run([dict(e) for e in own or others]) or {}
    state = status_mod.summarise(
        found,
        alive=events.launchx_alive(start, socket.gethostname()),
        now=time.time(),
        main=len(own),
        read_from=str(where),
    )
    typer.echo(status_mod.render(state, as_json=as_json), nl=False)


@app.command()
def diagnose(
    logs: Annotated[
        list[str] | None,
        typer.Argument(
            help="Log files, run directories or run ids to read; '-': stdin; none: stdin, "
            "or the newest run at a terminal."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the diagnosis as JSON.")] = False,
) -> None:
    """Name why a run failed, on which rank and host, and the fix (exit 1 if no cause found;
    0 for a launchx run whose events say it succeeded)."""
    from launchx import failures, logsource
    from launchx.run import rundirs

    _json_errors(as_json)

    temp = pipeline.temp_dir()
    paths = [rundirs.by_run_id(p, temp) for p in logs or []]
    stdin = sys.stdin.buffer if sys.stdin is not None else None  # (None: fd 0 closed)
    if not paths and (stdin is None or stdin.isatty()):
        newest = rundirs.unpiped_run(temp)
        typer.echo(f"launchx: reading the newest run, {newest}", err=True)
        paths = [str(newest)]
    report = logsource.diagnose_paths(paths or ["-"], stdin)
    typer.echo(failures.render_report(report, as_json=as_json), nl=False)
    raise typer.Exit(0 if report.found or report.succeeded else 1)


def _app_for(argv: Sequence[str]) -> typer.Typer:
    """The app with only the command being run. typer builds every command (signatures,
    evaluated type hints) before it parses anything: for ``launchx explain`` that was a
    third of launchx's own time. Help, no command or an unknown one get the whole app."""
    name = next((a for a in argv if not a.startswith("-")), None)
    if name in ("sbatch", None) or name not in _COMMANDS:
        _register_sbatch()
    commands = [
        c
        for c in app.registered_commands
        if c.callback is not None and (c.name or c.callback.__name__.replace("_", "-")) == name
    ]
    groups = [g for g in app.registered_groups if g.name == name]
    if not commands and not groups:
        return app
    narrow = typer.Typer(**_APP_SETTINGS)
    narrow.registered_callback = app.registered_callback
    narrow.registered_commands = commands
    narrow.registered_groups = groups
    return narrow


_COMMANDS = frozenset({"explain", "profiles", "run", "doctor", "diagnose", "status"})


_JSON_ERRORS: list[bool] = [False]


def _json_errors(wanted: bool) -> None:
    """A command asked for ``--json`` says its refusal as JSON on stdout too: a script that
    reads stdout gets an object naming the error, not nothing (the message stays on
    stderr for the person)."""
    _JSON_ERRORS[0] = wanted


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: run the app, turning launchx's own errors into one clean message.
    ``argv`` (without the program name) defaults to the command line."""
    args = list(sys.argv[1:] if argv is None else argv)
    _json_errors(False)  # (set by the command that asks for --json)
    try:
        if _asks_json(args):
            sys.exit(_run_for_json(args))
        _app_for(args)(args=args, prog_name="launchx")
    except LaunchxError as exc:
        print(exc.render(), file=sys.stderr)
        if _JSON_ERRORS[0]:
            print(exc.as_json())
        sys.exit(exc.exit_code)


def _asks_json(args: Sequence[str]) -> bool:
    """``--json`` or ``--format json`` on the command line, looked for before click parses
    it: a usage error (an unknown option, a bad number) stops the parse before the command
    can say that it was asked for JSON."""
    return (
        "--json" in args
        or "--format=json" in args
        or any(a == "--format" and b == "json" for a, b in itertools.pairwise(args))
    )


def _run_for_json(args: list[str]) -> int:
    """The app, for a command line that asks for JSON: click's usage errors are said as
    JSON on stdout too (``LaunchxError.as_json``), besides click's own words on stderr."""
    try:
        code = _app_for(args)(args=args, prog_name="launchx", standalone_mode=False)
    except _click_errors() as exc:
        exc.show()
        ctx = getattr(exc, "ctx", None)
        command = ctx.command_path if ctx is not None else "launchx"
        if command == "launchx" and args and args[0] in _COMMANDS | {"sbatch"}:
            command = f"launchx {args[0]}"
        hint = f"see {command} --help"
        said = LaunchxError(exc.format_message(), hint)
        said.exit_code = exc.exit_code
        print(said.as_json())
        return int(exc.exit_code)
    except typer.Abort:
        print("Aborted!", file=sys.stderr)
        return 1
    return code if isinstance(code, int) else 0


def _click_errors() -> tuple[type[Any], ...]:
    """click's usage errors as the typer in use raises them: typer 0.12-0.2x raise click's
    own, later ones those of the click they carry inside (``typer._click``)."""
    found: list[type[Any]] = []
    try:
        from typer._click.exceptions import ClickException

        found.append(ClickException)
    except ImportError:
        pass
    try:
        import click

        found.append(click.ClickException)
    except ImportError:
        pass
    return tuple(found)


def version_callback(value: bool) -> None:
    if value:
        typer.echo(f"launchx {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=version_callback, is_eager=True, help="Print the version."
        ),
    ] = False,
) -> None:
    """launchx: profiles, explain, run, sbatch, doctor, diagnose."""
