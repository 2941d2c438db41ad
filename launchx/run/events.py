"""``events.jsonl``: what a run did, one JSON object per line, beside its logs.

The console, ``launchx status`` and ``launchx diagnose`` read the same record. Every event
has ``ts`` (epoch seconds), ``event`` and ``run``; with several nodes, ``node`` (each node
writes ``events-node-K.jsonl``, node 0 ``events.jsonl``). The events and their fields:

==================  =========================================================================
event               fields
==================  =========================================================================
run_start           profile, launcher, nnodes, nproc_per_node, pid, host, log_dir
attempt_start       attempt, master, offered (the checkpoint offered, or null), log_dir
watch               what the hang watch said: kind (timeout_chosen, stacks_unavailable,
                    straggler, hang, ranks_found, watch_error) and its own fields; ``text``
                    holds the report a person reads for a straggler or a hang
attempt_end         attempt, exit_code, outcome (ok, failed, interrupted, preempted),
                    category, retryable, rank, cause, duration_s
retry               attempt (the next one), after_s
run_end             exit_code, reason, attempts, duration_s
==================  =========================================================================

A write that fails is dropped: the record must never stop a run.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA = "launchx-events/1"


@dataclass
class EventLog:
    """The real ``Events`` port: appends to the run's events file."""

    path: Path
    run_id: str
    node: int | None = None
    wall: Callable[[], float] = time.time
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, event: str, **fields: object) -> None:
        body: dict[str, object] = {"ts": round(self.wall(), 3), "event": event, "run": self.run_id}
        if self.node is not None:
            body["node"] = self.node
        body.update(fields)
        line = json.dumps(body, default=str) + "\n"
        with self._lock, suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a") as fh:
                fh.write(line)


class NoEvents:
    def record(self, event: str, **fields: object) -> None:
        return None


def read_events(path: str | Path) -> list[dict[str, object]]:
    """Every well-formed event of a file (a line cut short by a crash is skipped)."""
    out: list[dict[str, object]] = []
    with suppress(OSError), open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            with suppress(ValueError):
                data = json.loads(line)
                if isinstance(data, dict) and "event" in data:
                    out.append(data)
    return out


def read_run_events(run_dir: str | Path) -> list[dict[str, object]]:
    """A run's events, node 0's (``events.jsonl``) first, then the other writers'."""
    root = Path(run_dir)
    main = root / "events.jsonl"
    others = sorted(p for p in root.glob("events-*.jsonl"))
    return [e for path in (main, *others) if path.is_file() for e in read_events(path)]


def pid_alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def outcome_of(exit_code: int, category: str | None, interrupted: bool) -> str:
    if interrupted:
        return "interrupted"
    if category == "preempted":
        return "preempted"
    return "ok" if exit_code == 0 and category is None else "failed"


def pick(mapping: Mapping[str, object], *keys: str) -> dict[str, object]:
    return {k: mapping[k] for k in keys if k in mapping}
