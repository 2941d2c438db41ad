"""The real ``Attempts`` port: run one attempt's plan as processes, then gather its evidence.

``execute.run_process`` owns the processes (sessions, signals, grace, reaping); this module
only prepares the attempt's log directory, hands the plan to it, keeps a copy of what the
launcher printed, and reads back what the ranks left: their log tails and torchrun's error
files, for ``decide.assess`` to diagnose.
"""

from __future__ import annotations

import os
import time
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from launchx.errors import LaunchxError
from launchx.execute import Supervisor, child_environment, run_process
from launchx.plan import LaunchPlan
from launchx.run.decide import Evidence

_LOG_TAIL_BYTES = 64 * 1024


@dataclass
class ProcessAttempts:
    """Attempts as real processes under one ``Supervisor`` (its handlers are installed for
    the whole run, so a signal between attempts is not lost)."""

    supervisor: Supervisor
    base_env: dict[str, str]  # the environment detection read: children inherit it
    sink: IO[str]

    def run(self, plan: LaunchPlan) -> Evidence:
        if plan.log_dir:
            try:
                Path(plan.log_dir).mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise LaunchxError(
                    f"cannot create the log directory {plan.log_dir}: {exc.strerror}",
                    "pass a writable --log-dir",
                ) from None
        sup = self.supervisor
        warned_before = len(sup.warnings)
        started = time.time() - 1.0  # filesystem timestamps may be coarse
        env = child_environment(self.base_env, plan.env_changes())
        result = run_process(plan.argv, env, sup, grace_s=plan.grace_period_s, out=self.sink)
        if plan.log_dir:
            with suppress(OSError):  # losing a copy of the console must not lose the run
                (Path(plan.log_dir) / "launcher.log").write_text("\n".join(result.tail) + "\n")
        logs, errors = collect_rank_evidence(plan, started)
        return Evidence(
            exit_code=result.exit_code,
            duration_s=result.duration_s,
            stop_signal=sup.stop_signal if result.interrupted else None,
            warned=len(sup.warnings) > warned_before,
            launcher_output=result.tail,
            rank_logs=logs,
            error_files=errors,
        )


def _read_tail(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - _LOG_TAIL_BYTES))
            return fh.read().decode(errors="replace")
    except OSError:
        return ""


def collect_rank_evidence(
    plan: LaunchPlan, since: float = 0.0
) -> tuple[dict[int, str], dict[int, str]]:
    """Per-rank log tails and torchrun error files of this attempt only: torchrun writes
    ``<rdzv id>_<random>/attempt_0/<local rank>/`` and a reused --log-dir may hold older
    runs' directories, so only this attempt's rendezvous id, written since it started."""
    logs: dict[int, str] = {}
    errors: dict[int, str] = {}
    if not plan.log_dir or plan.launcher != "torchrun":
        return logs, errors
    root = Path(plan.log_dir)
    for rank_dir in sorted(root.glob(f"{plan.run_id}-{plan.attempt}_*/attempt_*/*")):
        if not rank_dir.name.isdigit():
            continue
        with suppress(OSError):
            if rank_dir.stat().st_mtime < since:
                continue
        rank = plan.node_rank * plan.nproc_per_node + int(rank_dir.name)
        text = _read_tail(rank_dir / "stderr.log") + _read_tail(rank_dir / "stdout.log")
        if text:
            logs[rank] = logs.get(rank, "") + text
        error_file = rank_dir / "error.json"
        if error_file.is_file():
            errors[rank] = _read_tail(error_file)
    return logs, errors
