"""The real ``Attempts`` port: run one attempt's plan as processes, then gather its evidence.

``execute.run_process`` owns the processes (sessions, signals, grace, reaping);
``output.AttemptOutput`` the console and the per-rank logs. This module prepares the
attempt's log directory, hands the plan to both, and reads back what the ranks left:
their output's tails and torchrun's error files (kept flat as ``rank-R.error.json``), for
``decide.assess`` to diagnose.

A SIGKILLed rank is an OOM kill only on evidence (issue 10, defect 4): the memory cgroup's
``oom_kill`` counter grew during the attempt, or the kernel log names the rank's pid in an
OOM-kill line since the attempt started (read only after a SIGKILL; unreadable in most
containers). Either makes ``Evidence.oom_kills`` positive.
"""

from __future__ import annotations

import re
import shutil
import signal
import time
from collections.abc import Callable, Collection, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from launchx import consoleranks, detect
from launchx.consoleranks import ConsoleRanks
from launchx.execute import Supervisor, child_environment, run_process
from launchx.plan import LaunchPlan, torchrun_logs
from launchx.run.decide import Evidence
from launchx.run.nodes import AttemptHooks, NodeChannel
from launchx.run.output import AttemptOutput, Terminal
from launchx.run.rundirs import make_log_dir
from launchx.run.watching import Watching, WatchSetup

_ERROR_FILE_BYTES = 64 * 1024
# torchrun names each SIGKILLed worker with its pid: "exitcode  : -9 (pid: 4242)" in its
# failure table, "failed (exitcode: -9) local_rank: 1 (pid: 4242) of binary: ..." above it.
_SIGKILLED_PID = re.compile(rf"exitcode\s*:\s*-{int(signal.SIGKILL)}\b\)?[^(]*\(pid:\s*(\d+)\)")
# The kernel's log clock (printk's) and CLOCK_MONOTONIC both count from boot but are kept
# by different clocks and drift apart slowly; the pids themselves are the real filter.
_KERNEL_CLOCK_SLACK_S = 60.0


@dataclass
class ProcessAttempts:
    """Attempts as real processes under one ``Supervisor`` (its handlers are installed for
    the whole run, so a signal between attempts is not lost)."""

    supervisor: Supervisor
    base_env: dict[str, str]  # the environment detection read: children inherit it
    terminal: Terminal
    direct_rank: int | None = None  # a direct launch runs this one rank
    # The kernel's OOM kills in launchx's memory cgroup so far (``detect.oom_kill_count``):
    # read before and after, it tells an OOM kill from any other SIGKILL.
    oom_kills: Callable[[], int | None] = detect.oom_kill_count
    # The kernel log's OOM-kill lines naming these pids since this time on the kernel's
    # clock (``detect.kernel_oom_kills``), and that clock: read after a SIGKILL only.
    kernel_ooms: Callable[[Collection[int], float], tuple[str, ...]] = detect.kernel_oom_kills
    kernel_clock: Callable[[], float] = time.monotonic
    # The hang watch of each attempt (None: --hang-timeout off); see ``watching``.
    watch: WatchSetup | None = None
    # The other nodes of a multi-node run (early abort, the shared hang verdict).
    nodes: NodeChannel | None = None

    def run(self, plan: LaunchPlan) -> Evidence:
        log_dir = Path(plan.log_dir) if plan.log_dir else None
        if log_dir is not None:
            make_log_dir(log_dir)
        output = AttemptOutput(
            self.terminal,
            log_dir,
            rank=self.direct_rank if plan.launcher == "direct" else None,
            per_rank=plan.launcher != "srun",
            launcher_log=_launcher_log(plan, self.direct_rank),
            console=ConsoleRanks(consoleranks.parse(plan.console_ranks)),
        )
        sup = self.supervisor
        warned_before = len(sup.warnings)
        oom_before = self.oom_kills()
        kernel_since = self.kernel_clock() - _KERNEL_CLOCK_SLACK_S
        child: list[int] = []
        env = child_environment(self.base_env, plan.env_changes())
        watching = Watching(self.watch, plan, sup) if self.watch is not None else None
        if watching is not None:
            output.on_line = watching.note_output
        aborted: list[str] = []

        def abort(why: str) -> None:
            if not aborted:
                aborted.append(why)
                self.terminal.say(f"launchx: stopping this attempt: {why}\n")
                sup.abort()

        def started(pid: int) -> None:
            child.append(pid)
            if watching is not None:
                watching.start(pid)
            if self.nodes is not None:
                hooks = watching.hooks(abort) if watching is not None else AttemptHooks(abort)
                self.nodes.begin(plan.attempt, hooks)

        try:
            result = run_process(
                plan.argv,
                env,
                sup,
                grace_s=plan.grace_period_s,
                output=output,
                on_start=started,
                ranks_below=plan.launcher == "torchrun",  # else the child is the rank (or srun)
            )
        finally:
            if watching is not None:
                watching.stop()
            if self.nodes is not None:
                self.nodes.end(plan.attempt)
        hang_found = watching is not None and watching.found is not None
        own_failure = result.exit_code != 0 and not (result.interrupted or aborted or hang_found)
        if self.nodes is not None and own_failure:
            self.nodes.failed(plan.attempt, f"its launcher exited {result.exit_code}")
        errors = keep_error_files(plan) if log_dir is not None else {}
        oom_after = self.oom_kills()
        ooms = None if oom_before is None or oom_after is None else oom_after - oom_before
        if own_failure:  # not launchx's own stop (a signal, a hang, an abort): it SIGKILLs
            killed = sigkilled_pids(result.exit_code, child[0] if child else None, result.tail)
            if killed and self.kernel_ooms(killed, kernel_since):
                ooms = max(ooms or 0, 1)
        return Evidence(
            exit_code=result.exit_code,
            duration_s=result.duration_s,
            stop_signal=sup.stop_signal if result.interrupted else None,
            warned=len(sup.warnings) > warned_before,
            launcher_output=result.tail,
            rank_logs=output.rank_logs(),
            error_files=errors,
            launcher=plan.launcher,
            oom_kills=ooms,
            started_at=output.started_at(),
            hang=watching.found if watching is not None else None,
            aborted=aborted[0]
            if aborted and (watching is None or watching.found is None)
            else None,
            node=plan.node_rank if plan.nnodes > 1 else None,
            nproc_per_node=plan.nproc_per_node,
            world_size=plan.nnodes * plan.nproc_per_node if plan.launcher == "torchrun" else None,
        )


def sigkilled_pids(
    exit_code: int, child_pid: int | None, launcher_output: Sequence[str]
) -> frozenset[int]:
    """The processes of an attempt that a SIGKILL ended: the child itself when it exited
    128+9 (a direct rank, or the launcher), and each worker torchrun reports as -9."""
    pids = {int(m.group(1)) for line in launcher_output for m in _SIGKILLED_PID.finditer(line)}
    if child_pid is not None and exit_code == 128 + signal.SIGKILL:
        pids.add(child_pid)
    return frozenset(pids)


def _launcher_log(plan: LaunchPlan, direct_rank: int | None) -> str:
    """One launcher log per writer: several nodes (or ranks an outer launcher started, each
    with its launchx) may share the run's log directory."""
    if plan.launcher == "direct" and direct_rank is not None:
        return f"launcher-rank-{direct_rank}.log"
    return f"launcher-node-{plan.node_rank}.log" if plan.nnodes > 1 else "launcher.log"


def keep_error_files(plan: LaunchPlan) -> dict[int, str]:
    """torchrun's error files of this attempt (``<torchrun dir>/<id>/attempt_0/<local
    rank>/error.json``), copied flat beside the rank logs as ``rank-R.error.json``; the
    rest of torchrun's own directory (its copies of the output) is removed."""
    errors: dict[int, str] = {}
    if not plan.log_dir or plan.launcher != "torchrun":
        return errors
    inner = torchrun_logs(plan.log_dir, plan.node_rank, plan.nnodes)
    try:  # torchrun may still be removing its workers' directories
        found = sorted(inner.glob("*/attempt_*/*/error.json"))
    except OSError:
        found = []
    for error_file in found:
        local = error_file.parent.name
        if not local.isdigit():
            continue
        rank = plan.node_rank * plan.nproc_per_node + int(local)
        with suppress(OSError):
            text = error_file.read_bytes()[:_ERROR_FILE_BYTES].decode(errors="replace")
            errors[rank] = text
            (Path(plan.log_dir) / f"rank-{rank}.error.json").write_text(text)
    shutil.rmtree(inner, ignore_errors=True)
    return errors
