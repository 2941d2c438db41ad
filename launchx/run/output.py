"""Where an attempt's output goes: the console, one log file per rank, and the evidence.

The launcher's bytes are split into records by ``outlines.OutputSplitter`` (tqdm bars that
survive the rank prefix, no doubled prefixes, torchrun's failure banner recognised);
``Terminal`` writes them, and launchx's own lines, on one console from two threads, each
of launchx's lines from a fresh line. Each record also goes to the run's log directory,
one flat layout documented in the README::

    DIR/attempt-N/rank-R.log        the rank's output, as the console showed it
    DIR/attempt-N/launcher.log      the launcher's own lines (launcher-node-K.log with
                                    several nodes), torchrun's failure banner included
    DIR/attempt-N/rank-R.error.json torchrun's error file of a rank that failed

and its tail is kept in memory for the diagnosis; ``progress.StartTracker`` sees every
frame, so a retry that trained from step zero although a checkpoint was offered is named.
"""

from __future__ import annotations

import collections
import contextlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from launchx.consoleranks import ConsoleRanks
from launchx.outlines import OutLine, OutputSplitter, Screen, header_pattern
from launchx.plan import RANK_PREFIX_TEMPLATE
from launchx.progress import StartTracker

TAIL_LINES = 400
RANK_TAIL_LINES = 2000


@dataclass
class Terminal:
    """The console the ranks' output and launchx's own lines share."""

    sink: IO[str]
    # torchrun's failure banner: shown only to an outer launchx (an srun step's), which
    # reads the table of exit codes in it; a person gets launchx's diagnosis instead.
    show_banner: bool = False
    screen: Screen = field(init=False)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        tty = False
        with contextlib.suppress(AttributeError, ValueError, OSError):
            tty = self.sink.isatty()
        self.screen = Screen(tty=tty, template=RANK_PREFIX_TEMPLATE, show_banner=self.show_banner)

    def records(self, records: list[OutLine], now: float) -> None:
        with self.lock:
            self._measure()
            self._write(self.screen.lines(records, now))

    def say(self, text: str) -> None:
        """launchx's own lines: never glued to the end of a rank's progress bar."""
        with self.lock:
            self._measure()
            self._write(self.screen.say(text))

    @property
    def tty(self) -> bool:
        return self.screen.tty

    def status(self, rows: list[str]) -> None:
        """Pin ``rows`` under the output (a terminal only; [] removes them)."""
        with self.lock:
            self._measure()
            self._write(self.screen.status(rows))

    def _measure(self) -> None:
        """The terminal's width now (it may have been resized): the region never wraps."""
        if not self.screen.tty:
            return
        with contextlib.suppress(AttributeError, ValueError, OSError):
            self.screen.width = os.get_terminal_size(self.sink.fileno()).columns

    def end(self) -> None:
        with self.lock:
            self._write(self.screen.end())

    def _write(self, text: str) -> None:
        if not text:
            return
        with contextlib.suppress(OSError, ValueError):  # a closed terminal must not stop a run
            self.sink.write(text)
            self.sink.flush()


@dataclass
class AttemptOutput:
    """One attempt's output (``execute.Output``): split, shown, logged, kept as evidence.

    ``rank``: the output is one rank's without headers (a direct launch). ``per_rank``:
    write ``rank-R.log`` files and keep per-rank evidence (False for srun, whose tasks'
    launchx write and diagnose their own; the step's output is the launcher's).
    ``on_line``: told the rank and time of every line (the hang watch's output evidence).
    ``console``: which ranks' records reach the console (all of them reach the logs).
    """

    terminal: Terminal
    log_dir: Path | None
    rank: int | None = None
    per_rank: bool = True
    launcher_log: str = "launcher.log"
    on_line: Callable[[int | None, float], None] | None = None
    # the ranks the console shows (logs.console_ranks); every rank's lines are logged
    console: ConsoleRanks = field(default_factory=lambda: ConsoleRanks(None))
    clock: Callable[[], float] = time.monotonic
    tracker: StartTracker = field(default_factory=StartTracker)
    tail: collections.deque[str] = field(
        default_factory=lambda: collections.deque(maxlen=TAIL_LINES)
    )
    rank_tails: dict[int, collections.deque[str]] = field(default_factory=dict)
    _splitter: OutputSplitter = field(init=False)
    _files: dict[int | None, IO[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        header = None if self.rank is not None else header_pattern(RANK_PREFIX_TEMPLATE)
        self._splitter = OutputSplitter(header=header, rank=self.rank)

    def feed(self, data: bytes) -> None:
        self._take(self._splitter.feed(data))

    def say(self, text: str) -> None:
        self.terminal.say(text)
        for line in text.splitlines():
            self._log(None, line)

    def close(self) -> tuple[str, ...]:
        self._take(self._splitter.flush())
        for handle in self._files.values():
            with contextlib.suppress(OSError):
                handle.close()
        self._files.clear()
        return tuple(self.tail)

    def started_at(self) -> tuple[int, str] | None:
        """The first training step the output showed (a bar's frame, a ``step N`` line)."""
        first = self.tracker.first
        if first is None or first.global_step is None:
            return None
        return first.global_step, self.tracker.line or ""

    def rank_logs(self) -> dict[int, str]:
        return {rank: "\n".join(lines) + "\n" for rank, lines in self.rank_tails.items()}

    def _take(self, records: list[OutLine]) -> None:
        now = self.clock()
        self.terminal.records(self.console.shown(records), now)
        for rec in records:
            self.tracker.feed(rec.text)
            if rec.live:
                continue
            if self.on_line is not None:
                self.on_line(rec.rank, now)
            self.tail.append(rec.render(RANK_PREFIX_TEMPLATE))
            if rec.rank is not None and self.per_rank:
                self.rank_tails.setdefault(
                    rec.rank, collections.deque(maxlen=RANK_TAIL_LINES)
                ).append(rec.text)
            if rec.kind == "banner" or rec.rank is None or not self.per_rank:
                self._log(None, rec.render(RANK_PREFIX_TEMPLATE))
            else:
                self._log(rec.rank, rec.text)

    def _log(self, rank: int | None, line: str) -> None:
        if self.log_dir is None:
            return
        handle = self._files.get(rank)
        if handle is None:
            name = self.launcher_log if rank is None else f"rank-{rank}.log"
            try:
                handle = self._files[rank] = (self.log_dir / name).open("a", buffering=1)
            except OSError:
                self.log_dir = None  # losing a copy of the console must not lose the run
                return
        with contextlib.suppress(OSError, ValueError):
            handle.write(line + "\n")
