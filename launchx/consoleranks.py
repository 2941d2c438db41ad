"""Which ranks' output the console shows (``logs.console_ranks``, ``--console-ranks``).

Sixty-four ranks printing the same loss line make a console nobody reads, which is why
torchtitan's scripts pass torchrun ``--local-ranks-filter 0``. torchrun's filter hides the
other ranks outright, their errors too: a rank that crashed is then missing from the one
place the user is looking. Here the ranks not chosen stay quiet until one of them shows an
error (a Python traceback, an uncaught C++ exception, Python's fatal-signal report, a line
logged at an error level: Python logging's ERROR or CRITICAL, torch's C++ ``E``/``F``
lines such as the NCCL watchdog's); from that line on the console shows that rank's lines
as well, for the rest of the attempt. Every rank's whole output is still written to its
``rank-R.log`` either way, and the end-of-attempt diagnosis reads those.

Ranks are global (``[rN]:``, what the console prefix shows), so ``0`` is one line per step
for the whole job, not one per node. No I/O: records in, records out (``ConsoleRanks``
remembers which ranks have shown an error).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from launchx.outlines import OutLine

ALL = "all"
_ITEM = re.compile(r"^(\d{1,7})(?:-(\d{1,7}))?$")

Ranges = tuple[tuple[int, int], ...]
"""Inclusive ranges of ranks, in order, none touching another: "0-3,8" is ((0, 3), (8, 8))."""

# Words that start an error wherever they stand on the line (the console's header and
# torch's [rankN]: tag are off already; a logger's header may still be in front)
_ERROR_WORDS = re.compile(
    r"Traceback \(most recent call last\)|terminate called after throwing"
    r"|Fatal Python error: "
    # a report that starts with its level, as torch's DataLoader signal handler writes it
    # ("ERROR: Unexpected bus error encountered in worker.")
    r"|^(?:ERROR|FATAL|CRITICAL): "
)
# a cheap look before the headers are read: a level word or a glog letter with its date
_LEVEL_CUE = re.compile(r"ERROR|CRITICAL|FATAL|\[?[EF]\d{3,4} \d|\[[EF] |\[NeMo [EC] ")


def parse(text: str) -> Ranges | None:
    """The ranks a setting names ("0", "0,8", "0-3,16"); None for every rank ("all").
    Raises ``ValueError`` with the words to show for anything else."""
    spec = text.strip().lower()
    if spec == ALL:
        return None
    spans: list[tuple[int, int]] = []
    for item in spec.split(","):
        m = _ITEM.match(item.strip())
        if m is None:
            raise ValueError(
                "not a list of ranks: write all, a rank (0), several (0,8) or a range (0-3)"
            )
        low, high = int(m.group(1)), int(m.group(2) or m.group(1))
        if high < low:
            raise ValueError("a range goes from the lower rank up (0-3)")
        spans.append((low, high))
    merged: list[tuple[int, int]] = []
    for low, high in sorted(spans):
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return tuple(merged)


def canonical(text: str) -> str:
    """The setting as stored: "all", or its ranks in order, ranges joined ("0-3,8")."""
    ranges = parse(text)
    if ranges is None:
        return ALL
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in ranges)


def names_a_rank(text: str, world_size: int) -> bool:
    """Whether the setting names at least one rank of a world of ``world_size``."""
    ranges = parse(text)
    return ranges is None or any(low < world_size for low, _high in ranges)


def starts_an_error(text: str) -> bool:
    """Whether a rank's line (its console header off) is the first line of an error."""
    if _ERROR_WORDS.search(text):
        return True
    if _LEVEL_CUE.search(text) is None:
        return False
    # (imported here: the profile model reads the setting with this module, on the start-up
    # path of every command, and the line reader's patterns take tens of ms to compile)
    from launchx import loglines

    return loglines.strip(text).errored


@dataclass
class ConsoleRanks:
    """The records one attempt's console shows: its chosen ranks', launchx's and the
    launcher's own, and each other rank's from its first error line on."""

    ranks: Ranges | None  # None: every rank
    erring: set[int] = field(default_factory=set)

    def shown(self, records: list[OutLine]) -> list[OutLine]:
        ranks = self.ranks
        if ranks is None:
            return records
        return [rec for rec in records if self._shows(rec, ranks)]

    def _shows(self, rec: OutLine, ranks: Ranges) -> bool:
        rank = rec.rank
        if rank is None or rank in self.erring or any(a <= rank <= b for a, b in ranks):
            return True
        if rec.live or rec.kind != "text":
            return False
        if starts_an_error(rec.text):
            self.erring.add(rank)
            return True
        return False
