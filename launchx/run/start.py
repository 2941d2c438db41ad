"""``launchx run``: gather the inputs once, decide the run once, wire the real world, loop.

``dry_run`` builds the plan of the next attempt exactly as ``start`` would, and says where
a value is only drawn at launch (a free port, a new run id) instead of showing one that
the real run would not use.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
import uuid
from pathlib import Path
from typing import IO

from launchx import agree, channel, pipeline, render
from launchx.errors import LaunchRefused, LaunchxError
from launchx.execute import Supervisor, remove_tree_quietly, supervised
from launchx.findings import Finding
from launchx.plan import (
    LaunchPlan,
    RunDecisions,
    Target,
    channel_token,
    decide_run,
    default_log_root,
)
from launchx.resolve import Resolution
from launchx.run import preflight, text
from launchx.run.attempts import ProcessAttempts
from launchx.run.events import EventLog, has_events, read_run_writers
from launchx.run.history import JobHistory, NoHistory, history_file
from launchx.run.loop import RunSpec, first_attempt, run_loop
from launchx.run.nodes import NodeChannel
from launchx.run.output import Terminal
from launchx.run.peers import Alone, NodePeers
from launchx.run.ports import History, Peers, Scheduler, World
from launchx.run.rundirs import log_dir_taken, make_log_dir, note_latest_run
from launchx.run.watching import WatchSetup
from launchx.run.world import (
    DirCheckpoints,
    NoScheduler,
    OsPorts,
    SlurmScheduler,
    StreamConsole,
    SystemClock,
    checkpoint_dir,
)


def _decide(
    request: pipeline.Request, target: Target, *, run_id: str | None, log_dir: str | None
) -> tuple[Resolution, RunDecisions]:
    res = pipeline.resolve_request(request)
    here = pipeline.probe_target(
        target.script, res.facts, module=target.module, no_python=target.no_python
    )
    return res, decide_run(res, run_id=run_id, log_dir=log_dir, target=target, here=here)


def dry_run(
    request: pipeline.Request, target: Target, *, run_id: str | None, log_dir: str | None
) -> LaunchPlan:
    """The plan of the next attempt, exactly as ``start`` would build it."""
    log_dir = _absolute(log_dir)
    res, decisions = _decide(request, target, run_id=run_id, log_dir=log_dir)
    spec = RunSpec(
        res,
        decisions,
        target,
        decisions.run_id,
        pipeline.temp_dir(),
        pipeline.relaunch_args(request, log_dir),
        checkpoint_dir(res.profile.resume.checkpoint_dir),
    )
    _check_checkpoint_dir(spec.checkpoint_dir)  # what start would refuse, a dry run refuses
    found = DirCheckpoints(spec.checkpoint_dir).latest()
    attempt = first_attempt(spec, _history(spec).load())
    first = spec.plan(attempt, decisions.port.port, found.path if found else None)
    if not preflight.wanted(spec):
        return first
    return dataclasses.replace(first, preflight=preflight.command(spec, request))


def start(
    request: pipeline.Request,
    target: Target,
    *,
    run_id: str | None = None,
    log_dir: str | None = None,
    out: IO[str] | None = None,
) -> int:
    """Run to completion; return launchx's exit code (the contract in DESIGN.md)."""
    log_dir = _absolute(log_dir)
    res, decisions = _decide(request, target, run_id=run_id, log_dir=log_dir)
    if not decisions.ok:
        raise LaunchRefused(*refusal(decisions.findings))
    spec = RunSpec(
        res,
        decisions,
        target,
        decisions.run_id or "lx-" + uuid.uuid4().hex[:12],
        pipeline.temp_dir(),
        pipeline.relaunch_args(request, log_dir),
        checkpoint_dir(res.profile.resume.checkpoint_dir),
    )
    if log_dir and res.launch["node_rank"].value == "0" and not decisions.inner_step:
        _check_log_dir(spec, Path(log_dir))
    _check_checkpoint_dir(spec.checkpoint_dir)
    if log_dir:
        make_log_dir(Path(log_dir))
    terminal = Terminal(out or sys.stdout, show_banner=decisions.inner_step)
    sup = Supervisor(forward_warnings=not decisions.inner_step)
    console = StreamConsole(terminal)
    root = Path(log_dir) if log_dir else Path(default_log_root(spec.run_id, spec.temp_dir))
    if not log_dir and not decisions.inner_step and not _runs_one_rank(spec):
        _set_aside_ended(spec, root, console)
    events = _events(spec, root)
    if log_dir and not decisions.inner_step:
        note_latest_run(root, spec.temp_dir)
    events.record(
        "run_start",
        profile=res.profile.name,
        launcher=decisions.launcher.launcher,
        nnodes=res.nnodes,
        nproc_per_node=res.nproc_per_node,
        pid=os.getpid(),
        host=res.facts.hostname,
        log_dir=str(root),
    )
    started = time.monotonic()
    sink = out or sys.stdout
    if preflight.wanted(spec) and preflight.in_process(spec):
        verdict = preflight.check_here(spec, sink, console, events)
        if verdict.code:
            return _not_started(events, verdict, started)
    with supervised(sup):
        if preflight.wanted(spec) and not preflight.in_process(spec):
            verdict = preflight.check_by_srun(spec, request, sup, sink, console, events)
            if verdict.code:
                return _not_started(events, verdict, started)
        nodes = _nodes(spec, console)
        peers: Peers = Alone()
        try:  # the channel is open: whatever fails from here on, it is closed
            if nodes is not None and decisions.agree_with_nodes:
                peers = NodePeers(nodes, res.profile.timeouts.pg_timeout_s, console)
            world = World(
                attempts=ProcessAttempts(
                    sup,
                    dict(res.facts.environ),
                    terminal,
                    res.facts.launch.rank,
                    watch=_watch(spec, console, terminal, events, nodes, started),
                    nodes=nodes,
                ),
                checkpoints=DirCheckpoints(spec.checkpoint_dir),
                history=_history(spec),
                peers=peers,
                scheduler=_scheduler(spec),
                clock=SystemClock(sup),
                console=console,
                ports=OsPorts(res.facts.ephemeral_range),
                events=events,
            )
            outcome = run_loop(spec, world)
        finally:
            peers.close()
            if nodes is not None and not isinstance(peers, NodePeers):
                nodes.close()  # an srun step's node: the channel without the agreement
        # Still under the handlers: SLURM SIGTERMs the batch step it was asked to requeue
        # (KillWait before its SIGKILL), and neither that nor a late Ctrl-C may cut the
        # record and the summary short.
        elapsed = time.monotonic() - started
        events.record(
            "run_end",
            exit_code=outcome.exit_code,
            reason=outcome.reason,
            ended=outcome.ended,
            attempts=len(outcome.records),
            duration_s=round(elapsed, 1),
        )
        if outcome.exit_code != 0 and root.is_dir():
            console.write(f"launchx: logs of every attempt are in {root}\n")
        if not decisions.inner_step:  # the outer launchx summarises the whole step
            terminal.end()
            console.write(text.summary(outcome.records, outcome.reason, elapsed))
    if log_dir is None:  # (housekeeping, which a Ctrl-C may cut short: nothing is lost)
        prune_runs(
            Path(default_log_root(None, spec.temp_dir)).parent,
            keep=res.profile.logs.keep_runs,
            current=root.name,
        )
    return outcome.exit_code


Events = list[dict[str, object]]


def _writers(log_dir: Path, own: str = "events.jsonl") -> tuple[Events, Events] | None:
    """The events of one writer in ``log_dir`` (node 0's unless ``own`` names another's
    file) and the other writers', or None where they cannot be read (writing there then
    fails soon enough, and says so)."""
    try:
        return read_run_writers(log_dir, own)
    except LaunchxError:
        return None


def _taken_by(spec: RunSpec, writers: tuple[Events, Events]) -> str | None:
    """Why the directory of ``writers`` holds another run's logs, or an ended run of this id
    (``rundirs``). Node 0's own events say how the earlier run ended: another writer's (a
    node or rank already under way in the new run) come after its end and would hide it."""
    mine, others = writers
    earlier = mine or others
    continuing = bool(earlier) and first_attempt(spec, _history(spec).load()) > 0
    return log_dir_taken(earlier, spec.run_id or "", continuing=continuing)


def _died_here(mine: Events, host: str) -> bool:
    """The earlier run's launchx, on this host, is gone without writing how it ended (it
    was SIGKILLed, or the machine rebooted): its run is over all the same."""
    from launchx.run.events import open_run, pid_alive

    start = open_run(mine)
    return start is not None and start.get("host") == host and not pid_alive(start.get("pid"))


def _joined_since(mine: Events, others: Events) -> bool:
    """Whether another writer (a node, or a rank that runs its own launchx) has begun a run
    here since node 0's events last said anything: its files are open in this directory.
    Where node 0 never wrote here (this host was another node's last time), a writer whose
    run here ended has nothing open."""
    last = max((float(t) for e in mine if isinstance(t := e.get("ts"), int | float)), default=0.0)
    for i, e in enumerate(others):
        t = e.get("ts")
        if e.get("event") != "run_start" or not isinstance(t, int | float) or t <= last:
            continue
        ended = any(
            later.get("event") == "run_end"
            and later.get("node") == e.get("node")
            and isinstance(u := later.get("ts"), int | float)
            and u >= t
            for later in others[i + 1 :]
        )
        if mine or not ended:
            return True
    return False


def _runs_one_rank(spec: RunSpec) -> bool:
    """A rank that runs its own launchx (a platform or MPI started it): it shares its node's
    directory with the node's other ranks, none of which speaks for it."""
    return spec.decisions.launcher.launcher == "direct" and bool(spec.res.facts.launch.rank)


def _set_aside_ended(spec: RunSpec, root: Path, console: StreamConsole) -> None:
    """A rerun under the same id (``--run-id``, or the id several nodes derive from the
    same address and port) would append to the ended run's logs, and ``diagnose`` would
    then report the old failure: the old directory is renamed ``<id>.N`` and kept (and
    pruned with the other runs). Node 0 decides for the directory it writes ``events.jsonl``
    in; a node K on a host of its own does so for its ranks' logs there. A SLURM requeue
    continues its run in place, and so does a rerun that another node or rank has already
    begun writing into (its open files would move with the directory)."""
    if first_attempt(spec, _history(spec).load()) > 0:
        return  # (a requeued job goes on, even where its launchx was killed before a word)
    own = _record_name(spec)
    writers = _writers(root, own)
    if writers is None:
        return  # (unsure: leave the directory where it is)
    if own != "events.jsonl" and (not writers[0] or writers[1]):
        # node K moves only a directory that holds its own record alone (node 0 on another
        # host, no file system shared): where node 0 or another node writes too, moving it
        # could take their open files along, and node 0 decides for a shared one
        return
    gone = _died_here(writers[0], spec.res.facts.hostname)
    if (_taken_by(spec, writers) is None and not gone) or _joined_since(*writers):
        return
    for n in range(1, 1000):
        aside = root.with_name(f"{root.name}.{n}")
        if aside.exists():
            continue
        try:
            os.rename(root, aside)
        except OSError:
            return  # another writer moved it first, or it cannot be moved: logs append
        console.write(
            f"launchx: the earlier run with this id is over; its logs are now in {aside}\n"
        )
        return


def _check_checkpoint_dir(path: str | None) -> None:
    """A --checkpoint-dir that is a file: launchx would never find a checkpoint in it, and
    the script's first save there would fail (hours in, perhaps)."""
    if path and os.path.exists(path) and not os.path.isdir(path):
        raise LaunchRefused(
            f"--checkpoint-dir {path} is a file, not a directory",
            "pass the directory the script saves its checkpoints in (launchx creates none)",
        )


def _check_log_dir(spec: RunSpec, log_dir: Path) -> None:
    """Refuse a --log-dir that holds another run's logs (node 0 decides: the other nodes
    write beside it into the same directory once the run is under way)."""
    writers = _writers(log_dir)
    why = _taken_by(spec, writers) if writers is not None else None
    if why is not None:
        raise LaunchRefused(
            f"--log-dir {log_dir}: {why}; a second run there would write into its logs",
            "pass a new --log-dir for each run, or move that directory away (--run-id names "
            "a run; the same id continues it only under a SLURM requeue)",
        )


def _not_started(events: EventLog, verdict: preflight.Verdict, started: float) -> int:
    """The run ends at its preflight: the checks failed, or a signal stopped them, which is
    no failure."""
    events.record(
        "run_end",
        exit_code=verdict.code,
        reason="interrupted" if verdict.interrupted else "preflight",
        ended="interrupted" if verdict.interrupted else "failed",
        attempts=0,
        duration_s=round(time.monotonic() - started, 1),
    )
    return verdict.code


def _record_name(spec: RunSpec) -> str:
    """Node 0 (or the one node) writes ``events.jsonl``; other writers their own file."""
    node_rank = int(spec.res.launch["node_rank"].value or 0)
    if _runs_one_rank(spec):
        return f"events-rank-{spec.res.facts.launch.rank}.jsonl"
    if spec.res.nnodes > 1 and node_rank:
        return f"events-node-{node_rank}.jsonl"
    return "events.jsonl"


def _events(spec: RunSpec, root: Path) -> EventLog:
    node_rank = int(spec.res.launch["node_rank"].value or 0)
    node = node_rank if spec.res.nnodes > 1 else None
    return EventLog(root / _record_name(spec), spec.run_id or "", node=node)


def _watch(
    spec: RunSpec,
    console: StreamConsole,
    terminal: Terminal,
    events: EventLog,
    nodes: NodeChannel | None,
    run_started: float,
) -> WatchSetup | None:
    """The hang watch, unless --hang-timeout is off; an srun step's tasks watch their own
    ranks (the launchx on each node), so the batch launchx does not. On a terminal it
    keeps a status under the output; a rank of a platform or MPI launch (one launchx per
    rank, all on one console) and an srun step's task only give the heartbeat."""
    decisions = spec.decisions
    if decisions.hang.mode == "off":
        return None
    if decisions.launcher.launcher == "srun":
        if spec.res.profile.slurm.mode == "per_task":
            console.write(PER_TASK_NO_WATCH)
        return None
    shared_console = decisions.inner_step or decisions.launcher.launcher == "direct"
    return WatchSetup(
        decisions.hang,
        console,
        events,
        nccl=spec.res.launch["backend"].value == "nccl",
        direct_rank=spec.res.facts.launch.rank,
        nodes=nodes,
        status=terminal.status if terminal.tty and not shared_console else None,
        run_started=run_started,
    )


# Said once at the start of a SLURM per_task run (one task per rank, no torchrun) with the
# hang watch asked for: nobody stays beside the ranks to watch them.
PER_TASK_NO_WATCH = (
    "launchx: the hang watch is off in SLURM mode per_task: srun starts each rank as its own "
    "task (launchx.task execs the script), so no launchx stays beside the ranks to watch "
    "them; use mode per_node (launchx sbatch --mode per_node, or slurm.mode: per_node in "
    "the profile) to have a hang named and retried\n"
)


def _absolute(log_dir: str | None) -> str | None:
    """--log-dir as an absolute path: every rank and the summary name the same place."""
    return str(Path(log_dir).expanduser().resolve()) if log_dir else None


def _history(spec: RunSpec) -> History:
    path = history_file(spec.res, spec.target)
    return JobHistory(path) if path is not None else NoHistory()


def _scheduler(spec: RunSpec) -> Scheduler:
    slurm = spec.res.facts.slurm
    return SlurmScheduler(slurm.job_id) if slurm is not None and slurm.job_id else NoScheduler()


def _nodes(spec: RunSpec, console: StreamConsole) -> NodeChannel | None:
    """The live channel of a multi-node torchrun run: one launchx per node, node 0 hosting
    it beside torchrun's store. The per-node launchx of an srun step (``inner_step``) opens
    it too, with the node rank, node count and master SLURM gave it (torchrun's own), so its
    hang verdict and early abort span the step's nodes. Who retries does not change: the
    agreement after an attempt stays with nodes that each own a retry loop."""
    decisions = spec.decisions
    port = decisions.port.port
    if not decisions.node_channel or port is None:
        return None
    launch = spec.res.launch
    run_id = spec.run_id or ""
    token = channel_token(spec.res)
    nodes = NodeChannel(
        node_rank=int(launch["node_rank"].value),
        nnodes=int(launch["nnodes"].value),
        master_addr=launch["master_addr"].value,
        port=agree.agreement_port(port),
        run_id=run_id,
        key=channel.derive_key(run_id, token),
        console=console,
    )
    nodes.open()
    return nodes


def prune_runs(root: Path, *, keep: int, current: str) -> None:
    """Keep the newest ``keep`` runs under the default log root (this one always): their
    logs are the evidence for ``launchx diagnose`` and ``launchx status`` after a run.
    Only launchx's runs go (a directory with its events): nothing else there is ours."""
    try:
        runs = [p for p in root.iterdir() if p.name != current and p.is_dir() and has_events(p)]
        runs.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in runs[max(0, keep - 1) :]:
        remove_tree_quietly(str(old))


def refusal(findings: tuple[Finding, ...]) -> tuple[str, str | None]:
    """One message naming every error-level finding, each with its fix."""
    errors = [f for f in findings if f.level == "error"]
    if len(errors) == 1:
        first = errors[0]
        return f"{first.code} {first.message}", first.fix
    body = render.findings_text(errors).rstrip("\n")
    return f"refusing to launch ({len(errors)} problems):\n{body}", None
