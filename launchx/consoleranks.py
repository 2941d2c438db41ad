"""Which ranks' output the console shows (``logs.console_ranks``, ``--console-ranks``).

Sixty-four ranks printing the same loss line make a console nobody reads, which is why
torchtitan's scripts pass torchrun ``--local-ranks-filter 0``. torchrun's filter hides the
other ranks outright, their errors too: a rank that crashed is then missing from the one
place the user is looking. Here the ranks not chosen stay quiet until one of them shows an
error (a Python traceback, an uncaught C++ exception, a fatal signal report, an NCCL
warning or a C++ error-level log line); from that line on the console shows that rank's
lines as well, for the rest of the attempt. Every rank's whole output is still written to
its ``rank-R.log`` either way, and the end-of-attempt diagnosis reads those.

Ranks are global (``[rN]:``, what the console prefix shows), so ``0`` is one line per step
for the whole job, not one per node. Pure: records in, a decision out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from launchx.outlines import OutLine

ALL = "all"
_ITEM = re.compile(r"^(\d{1,7})(?:-(\d{1,7}))?$")

# The first line of a rank's error, on a line of its own (the console header and torch's
# own [rankN]: tag already taken off). Python's traceback header; an exception printed
# without one (a thread's, logged); std::terminate's report of a C++ exception; Python's
# fault handler (SIGSEGV, SIGABRT: "Fatal Python error: Segmentation fault"); NCCL's own
# warnings; glog's error and fatal levels (torch's C++ logs: the watchdog's "[E1206
# 10:11:12.345 ProcessGroupNCCL.cpp:...]"); Python logging's ERROR and CRITICAL.
_ERROR_START = re.compile(
    r"Traceback \(most recent call last\)"
    r"|^\s*(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Interrupt): "
    r"|terminate called after throwing"
    r"|^Fatal Python error: "
    r"|\bNCCL WARN\b"
    r"|^\[?[EF]\d{4} \d{2}:\d{2}:\d{2}"
    r"|^(?:ERROR|CRITICAL)(?::|\s)"
)


def parse(text: str) -> frozenset[int] | None:
    """The ranks a setting names ("0", "0,8", "0-3,16"); None for every rank ("all").
    Raises ``ValueError`` with the words to show for anything else."""
    spec = text.strip().lower()
    if spec == ALL:
        return None
    ranks: set[int] = set()
    for item in spec.split(","):
        m = _ITEM.match(item.strip())
        if m is None:
            raise ValueError(
                "not a list of ranks: write all, a rank (0), several (0,8) or a range (0-3)"
            )
        low, high = int(m.group(1)), int(m.group(2) or m.group(1))
        if high < low:
            raise ValueError(f"{item.strip()!r}: a range goes from the lower rank up (0-3)")
        ranks.update(range(low, high + 1))
    return frozenset(ranks)


def canonical(text: str) -> str:
    """The setting as stored: "all", or its ranks in order, ranges joined ("0-3,8")."""
    ranks = parse(text)
    if ranks is None:
        return ALL
    runs: list[tuple[int, int]] = []
    for rank in sorted(ranks):
        if runs and runs[-1][1] == rank - 1:
            runs[-1] = (runs[-1][0], rank)
        else:
            runs.append((rank, rank))
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


@dataclass
class ConsoleRanks:
    """The records one attempt's console shows: its chosen ranks', launchx's and the
    launcher's own, and each other rank's from its first error line on."""

    ranks: frozenset[int] | None  # None: every rank
    erring: set[int] = field(default_factory=set)

    def shown(self, records: list[OutLine]) -> list[OutLine]:
        ranks = self.ranks
        if ranks is None:
            return records
        return [rec for rec in records if self._shows(rec, ranks)]

    def _shows(self, rec: OutLine, ranks: frozenset[int]) -> bool:
        if rec.rank is None or rec.rank in ranks or rec.rank in self.erring:
            return True
        if rec.live or rec.kind != "text":
            return False
        if _ERROR_START.search(rec.text):
            self.erring.add(rec.rank)
            return True
        return False
