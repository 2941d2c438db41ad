"""``events.jsonl``: what a run did, one JSON object per line, beside its logs.

The console, ``launchx status`` and ``launchx diagnose`` read the same record. This table is
the schema (``SCHEMA``, written into ``run_start``); the README's paragraph on
``events.jsonl`` says the same, and ``tests/test_events.py`` fails when the code writes an
event, a watch kind or a field that is not here, or the README leaves one out. Every event
has ``ts`` (epoch seconds), ``event`` and ``run`` (the run id); with several nodes, ``node``
(the node rank: node 0 writes ``events.jsonl``, node K ``events-node-K.jsonl``).

==================  =========================================================================
event               fields
==================  =========================================================================
run_start           schema (launchx-events/1), profile, launcher, nnodes, nproc_per_node,
                    pid, host, log_dir
preflight           exit_code, interrupted (true; only when a signal stopped the preflight)
attempt_start       attempt, master, offered (the checkpoint offered, or null), log_dir
watch               kind, host (the host name of the node whose watch said it; then the
                    fields of the kind, below)
attempt_end         attempt, exit_code, outcome (ok, failed, interrupted, preempted),
                    category, retryable, rank, cause, duration_s, offered
retry               attempt (the next one), after_s
run_end             exit_code, reason, attempts, duration_s, ended (finished, failed,
                    interrupted, preempted, requeued: how the run ended, for readers that
                    act on it; ``reason`` is the sentence a person reads)
==================  =========================================================================

What the hang watch says (``watch`` events, by ``kind``):

==================  =========================================================================
kind                fields
==================  =========================================================================
watch_started       launcher_pid, mode (auto, fixed, off)
ranks_found         ranks (each with rank, local_rank, pid)
timeout_chosen      seconds, source (fixed, initial, learned, off), detail
stacks_unavailable  reason, fallback (true when another reader still shows stacks)
straggler           ranks, waiting, waited_s, where, text (the warning a person reads)
hang                ranks, odd, quiet_s, timeout_s, headline, dump_dir (the report and
                    dumps: ``<attempt log dir>/hang``)
watch_error         error (the watch stopped; the run goes on unwatched)
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
from typing import Literal, get_args

from launchx.errors import LaunchxError

SCHEMA = "launchx-events/1"

# How a run ended (``run_end``'s ``ended``). ``preempted``: stopped after the scheduler's
# warning without a requeue; ``requeued``: no end at all, the job comes back.
Ended = Literal["finished", "failed", "interrupted", "preempted", "requeued"]
ENDINGS: tuple[Ended, ...] = get_args(Ended)


def how_it_ended(end: Mapping[str, object]) -> Ended | None:
    """A ``run_end``'s ``ended``; for a record written before launchx wrote that field, told
    from the words its reason starts with and its exit code (None: nothing to tell by)."""
    said = end.get("ended")
    for ending in ENDINGS:
        if said == ending:
            return ending
    reason, code = end.get("reason"), end.get("exit_code")
    words = reason if isinstance(reason, str) else ""
    for start, ending in _REASON_WORDS:
        if words.startswith(start):
            return ending
    if not isinstance(code, int) or isinstance(code, bool):
        return "failed" if words else None  # (a reason but no code: a cut record)
    return "finished" if code == 0 else "failed"


# The reasons' first words before run_end said how it ended (launchx run/decide.py, 2026)
_REASON_WORDS: tuple[tuple[str, Ended], ...] = (
    ("finished", "finished"),
    ("requeued", "requeued"),
    ("interrupted", "interrupted"),
    ("stopped after the scheduler", "preempted"),
)


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
        if event == "run_start":
            body["schema"] = SCHEMA
        body.update(fields)
        line = json.dumps(body, default=str) + "\n"
        with self._lock, suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a") as fh:
                fh.write(line)


class NoEvents:
    def record(self, event: str, **fields: object) -> None:
        return None


def read_events(path: str | Path, limit: int = -1) -> list[dict[str, object]]:
    """Every well-formed event of a file (a line cut short by a crash is skipped), from its
    first ``limit`` bytes when one is given (diagnose reads whatever it is handed)."""
    with open(path, "rb") as fh:
        return parse_events(fh.read(limit))


def parse_events(data: bytes) -> list[dict[str, object]]:
    """The well-formed events of an events file's bytes."""
    out: list[dict[str, object]] = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        with suppress(ValueError):
            event = json.loads(line)
            if isinstance(event, dict) and "event" in event:
                out.append(event)
    return out


def read_run_events(run_dir: str | Path) -> list[dict[str, object]]:
    """A run's events, node 0's (``events.jsonl``) first, then the other writers'."""
    own, others = read_run_writers(run_dir)
    return own + others


def has_events(run_dir: Path) -> bool:
    """Whether ``run_dir`` is a launchx run's: node 0's ``events.jsonl``, or only another
    writer's (node K on a host that node 0 does not share a file system with)."""
    try:
        return (run_dir / "events.jsonl").is_file() or any(
            p.is_file() for p in run_dir.glob("events-*.jsonl")
        )
    except OSError:
        return False


def read_run_writers(
    run_dir: str | Path, own: str = "events.jsonl"
) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """One writer's events (``own``: node 0's ``events.jsonl`` unless another is named) and
    the other writers' (node 0's first, then ``events-*.jsonl``), from one read of each
    file: node 0 speaks for the run, and a running run appends, so telling them apart by
    counting a file again would race its writer. A directory or events file this user may
    not open is said as such, not as a run with no events."""
    root = Path(run_dir)
    files = [root / "events.jsonl", *sorted(root.glob("events-*.jsonl"))]
    mine: list[dict[str, object]] = []
    others: list[dict[str, object]] = []
    try:
        for path in files:
            if path.is_file():
                (mine if path.name == own else others).extend(read_events(path))
    except OSError as exc:
        raise LaunchxError(
            f"cannot read the run's events: {exc.filename or run_dir}: {exc.strerror or exc}",
            "run launchx status as the user who ran it, or give it read access",
        ) from None
    return mine, others


def open_run(events: list[dict[str, object]]) -> dict[str, object] | None:
    """The last ``run_start`` of one writer's events when no ``run_end`` follows it: a run
    its launchx has not ended (still running, or gone without a word, as ``pid_alive`` on
    its host tells)."""
    starts = [i for i, e in enumerate(events) if e.get("event") == "run_start"]
    if not starts or any(e.get("event") == "run_end" for e in events[starts[-1] :]):
        return None
    return events[starts[-1]]


def launchx_alive(start: Mapping[str, object], host: str) -> bool | None:
    """Whether the launchx that wrote ``start`` (its ``run_start``) still runs, asked on
    ``host``; None when it ran on another host (a compute node, seen from a login node
    through a shared file system): its pid means nothing here."""
    recorded = start.get("host")
    if isinstance(recorded, str) and recorded != host:
        return None
    return pid_alive(start.get("pid"))


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
