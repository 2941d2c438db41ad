"""What a diagnosis says, as data: the cause (``Diagnosis``), and for a whole run the view
per rank (root, collateral) and per attempt (``Report``).

Kept apart from the code that produces it (``failures``, ``runview``) and the code that
prints it (``failure_text``) so the run loop, ``agree`` and the renderers share one shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Role = Literal["root", "also_failed", "collateral", "stopped", "unknown"]
"""A rank's part in a failure. ``root``: it failed first, or failed the way the cause says;
``also_failed``: it failed on its own with another error; ``collateral``: it died because a
peer did (connection closed, collective timeout, stopped by the launcher); ``stopped``: the
whole run was stopped from outside; ``unknown``: nothing says."""

Outcome = Literal["ok", "failed", "interrupted", "unknown"]

_HEX = re.compile(r"0x[0-9a-f]+")
_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")
_RANK_TAG = re.compile(r"^\[rank \d+\] ")


def normalise(text: str) -> str:
    """Blank what changes between two runs of the same failure (numbers, hex, addresses)."""
    out = text.lower()
    out = _HEX.sub("#", out)
    out = _DIGITS.sub("#", out)
    return _SPACES.sub(" ", out).strip()


@dataclass(frozen=True)
class Diagnosis:
    category: str
    retryable: bool
    cause: str
    fix: str
    evidence: tuple[str, ...]
    rank: int | None
    code: str
    exit_code: int | None = None
    signal: int | None = None
    # 2: stopped from outside; 1: a root cause (or a rank that failed on its own); 0: only
    # symptoms of another failure. Nodes compare it to agree on one diagnosis (``agree``).
    tier: int = 0
    host: str | None = None
    # Where each evidence line is in its log ("rank-1.log:42"), "" when it has no file.
    where: tuple[str, ...] = ()
    # Not retryable on the log's word, but ``launchx run`` retries it when a complete
    # checkpoint exists after the attempt (``failure_rules.RETRIED_ON_PROGRESS``).
    retry_on_progress: bool = False

    def signature(self) -> tuple[str, int | None, str]:
        """Stable across attempts: numbers, addresses, ports and timestamps are blanked, so
        the retry loop can tell "the same failure twice in a row" from a new one."""
        key = _RANK_TAG.sub("", self.evidence[0]) if self.evidence else ""
        return (self.category, self.rank, normalise(key))


@dataclass(frozen=True)
class RankView:
    """One rank as the run's logs show it."""

    rank: int
    role: Role
    host: str | None = None
    node: int | None = None
    local_rank: int | None = None
    exit_code: int | None = None
    signal: int | None = None
    category: str | None = None  # what its own output shows; None: nothing recognised
    summary: str = ""  # its most telling line
    where: str = ""  # file:line of that line


@dataclass(frozen=True)
class AttemptView:
    """One attempt of a launchx run (``attempt-N`` directories, ``events.jsonl``)."""

    attempt: int
    outcome: Outcome
    category: str | None = None
    retryable: bool | None = None
    root_rank: int | None = None
    host: str | None = None
    exit_code: int | None = None
    cause: str = ""


@dataclass(frozen=True)
class Straggler:
    """A rank that did not reach the collective its peers were in: from the NCCL watchdog's
    sequence numbers, flight-recorder dumps, gloo's monitored barrier or gloo's timeouts; or
    one that ended first without an error (torchrun's summary does not list it)."""

    source: Literal["watchdog", "flight_recorder", "monitored_barrier", "gloo", "summary"]
    # "behind": their own reports show they never reached the collective; "silent": they
    # said nothing (no watchdog report, no dump), so they may as well have died first;
    # "failed": a peer in the collective got an error from them instead of an answer.
    kind: Literal["behind", "silent", "failed"]
    ranks: tuple[int, ...]
    waiting: tuple[int, ...]  # the ranks that were in the collective
    seq: int | None
    op: str | None
    group: str
    text: str  # one sentence for people
    where: str = ""  # the call site the dump recorded, or the log line
    # "silent" ranks the logs show nothing of, counted only because a higher rank reported,
    # beside that one rank's report alone: a paste of it reads the same whether they printed
    # nothing or were left out, so they are named, not blamed
    counted: bool = False


@dataclass(frozen=True)
class Report:
    primary: Diagnosis | None
    findings: tuple[Diagnosis, ...] = field(default=())
    ranks: tuple[RankView, ...] = ()
    attempts: tuple[AttemptView, ...] = ()
    stragglers: tuple[Straggler, ...] = ()
    notes: tuple[str, ...] = ()  # what else the reader should know (versions differ, ...)
    sources: int = 0  # log files read
    running: str | None = None  # the run has not ended: its launchx is alive (in words)

    @property
    def found(self) -> bool:
        """False when nothing was recognised, or only symptoms on ranks other than the one
        torchrun saw fail first (the primary is then an ``unknown`` on that rank)."""
        return self.primary is not None and self.primary.category != "unknown"

    @property
    def succeeded(self) -> bool:
        """The run's events say its last attempt finished and none failed: nothing to
        diagnose (a log with no error is otherwise "unknown", which reads as a failure)."""
        return bool(self.attempts) and all(a.outcome == "ok" for a in self.attempts)

    def roles(self, role: Role) -> tuple[int, ...]:
        return tuple(r.rank for r in self.ranks if r.role == role)
