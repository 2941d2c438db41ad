"""Read one log as a stream and keep only what diagnosis needs, in bounded memory.

A failed run's log can be gigabytes of progress lines around a few lines that matter. The
scanner reads fixed-size chunks of bytes and looks for the anchors of
``failure_rules.ANCHORS`` in a lower-cased copy: all of them in one Hyperscan pass where it
is installed (``anchorlines.OnePass``), else with a ``bytes.find`` pass per anchor (in a long
file on two cores a helper process searches for half of them at the same time,
``anchorfind``); only the lines holding an anchor are decoded and stripped, so the cost per
MB is a few memory scans. What it keeps is bounded whatever the log's size:
distinct candidate lines (with a repeat count), torchrun's failure summary, the NCCL watchdog's
sequence numbers, NCCL versions, hosts, and the last lines of the log.

Wrapped messages: a terminal or logger may split one message over several lines, each
with its own prefix (``[rank0]: ... (errno: 98 - Address already`` / ``[rank0]: in
use).``). A candidate line carries the fragments around it (``LogLine.joined``); the
matcher accepts a pattern there only where it spans a break.

Headers: the line reader (``loglines``) knows the prefixes launchers and loggers put on a
line; one it does not know (a team's own logging format) is learnt from the log's
tracebacks, as what stands before their frames, and taken off the lines that carry it.
"""

from __future__ import annotations

import functools
import io
import re
from collections import OrderedDict, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import BinaryIO, Protocol

from launchx import failure_rules as fr
from launchx import loglines as ll
from launchx import rulematch as rm
from launchx.anchorlines import OnePass, after_markers, first_anchors, one_pass
from launchx.loglines import FailureEntry, LogLine

CHUNK = 4 << 20
_CONTEXT_LINES = 32  # kept on both sides of the part of a buffer being processed
_MAX_LINE = 8192  # characters of one line looked at (around its anchor)
# distinct lines kept per source: the first ones (where a failure starts) and, once those
# are full, the latest ones in a window that moves on with the log (where a run that
# printed thousands of distinct warnings before it died ends)
_MAX_FIRST = 3000
_MAX_LATEST = 1000
_MAX_FAILED = 1000  # launchers' reports of a failed rank (and srun's, mpirun's) per source
_LOOSE_TRACEBACK = 60  # lines of a pasted block's traceback field (_in_loose_block)
_TAIL_LINES = 30
_MAX_JOIN = 3
_MIN_WRAPPED = 60  # a raw line this long or longer may continue on the next line
_OPENERS = ("Error:", "Exception:")  # ... or one that ends so: its message starts below it
_HEAD_BYTES = 256 << 10

_ANCHORS = tuple(a.lower().encode() for a in fr.ANCHORS)
# A line copied out of a web page's source keeps the escapes of its quotes ("can&#39;t
# pickle"): the anchors that hold a quote are also looked for with each escape of it, in the
# part of a log that holds such an escape at all (where Hyperscan searches, in its one pass).
# Not the bare escapes: every quoted line of such a page (a Trainer's {&#39;loss&#39;: ..}
# at each step) would be a candidate, and the cap on them reached before the error.
_QUOTE_ESCAPE = re.compile(rb"&(?:#39|#x27|apos|quot);")
_ESCAPED_ANCHORS = tuple(
    a.replace(quote.encode(), escape.encode())
    for a in _ANCHORS
    for escape, quote in ll.ENTITIES.items()
    if quote in "'\"" and quote.encode() in a
)
_BLOCK_ANCHOR = re.compile(rb"error_file|root cause|failures:|exitcode *:")
_NCCL_INFO = b"NCCL INFO"
# Markers whose next line carries what matters and often holds no anchor of its own: NCCL
# puts the reason of an error on the line after "Last error:" (torch's DistBackendError
# block); faulthandler's "(most recent call first):" is followed by the frame that crashed;
# C++'s terminate handler prints the exception's what() on the line after its own. A marker
# that holds an anchor is looked for only in the lines that anchor found (no pass of its
# own over the log); the others are searched for like anchors.
_NEXT_LINE_MARKERS = (b"(most recent call first):",)
_ANCHORED_MARKERS = {
    b"error": b"last error:",
    b"terminate": b"terminate called after throwing an instance of",
}
# With a helper process (``anchorfind``), the scanner searches for the first ``_NEAR``
# anchors and the helper for the rest: the first ones (short words, found often) cost the
# most per pass, and the scanner has its other work besides.
_NEAR = 15
_NEAR_ANCHORS, FAR_ANCHORS = _ANCHORS[:_NEAR], _ANCHORS[_NEAR:]
"""The anchors a helper process may search for instead of the scanner (``FarAnswers``)."""


class FarAnswers(Protocol):
    """Another searcher's lines holding ``FAR_ANCHORS`` in the same bytes (``anchorfind``'s
    helper process): ``(line start, anchor position)`` for lines starting in ``[lo, hi)``,
    offsets from the stream's start, or None when it has no answer for all of them (the
    scanner then searches the rest itself). ``final``: ``hi`` is the end of the stream."""

    def lines(self, lo: int, hi: int, final: bool = False) -> list[tuple[int, int]] | None: ...


_NCCL_HOST = re.compile(r"^([\w.-]+):\d+:\d+ \[\d+\] NCCL (?:INFO|WARN)", re.MULTILINE)
# NCCL's line header names the process ("host:pid:tid [dev]"), not the rank; its proxy
# thread's warnings name the rank that process is ("[Proxy Service 11] Failed to execute
# operation Connect from rank 11"), so every NCCL line of that process is that rank's.
_NCCL_PROC = re.compile(r"^([^\s:]+:\d+):\d+ \[\d+\] ")
_PROXY_SERVICE = re.compile(r"\[Proxy Service (\d+)\]")
_NCCL_NRANKS = re.compile(r"\bn[Rr]anks (\d+)")
_NCCL_NRANKS_B = re.compile(rb"\bn[Rr]anks (\d+)")
# NCCL INFO's communicator set-up: "comm 0x7fab54002730 rank 1 nranks 2 cudaDev 0 ..."
_NCCL_COMM_RANK = re.compile(rb"\bcomm 0x[0-9a-f]+ rank (\d+) n[Rr]anks \d+")
_NCCL_VERSION = re.compile(r"NCCL version (\d+\.\d+\.\d+)")
# torch.multiprocessing.spawn names the process whose exception it re-raises, and the
# process that died: its index is the rank on the one node spawn runs on.
_SPAWN_ERROR = re.compile(r"^-- Process (\d+) terminated with the following error:")
_SPAWN_EXIT = re.compile(
    r"^(?:torch\.multiprocessing\.spawn\.)?ProcessExitedException: process (\d+) terminated"
)
_SPAWN_SPAN = 200  # lines of the re-raised traceback that belong to that process
# Text Generation Inference's launcher starts a shard a rank (it sets RANK to the shard's
# index) and names the one that failed ("text_generation_launcher: Shard 0 failed to
# start", "... Shard 0 crashed"); its shard manager's lines end with the shard's rank, a
# tracing field ("... Shard terminated rank=1"). (A shard's error output it quotes ends on
# that field alone, " rank=0": loglines reads it as a rank prefix, for the line above.)
_TGI_SHARD = re.compile(
    r"text_generation_launcher: (?:Shard (\d+) (?:failed to start|crashed)\b|.* rank=(\d+)$)"
)
_WD_SEQ = re.compile(
    r"(?:Timeout at NCCL work|detected by watchdog at work(?: sequence id)?): (-?\d+)"
    # torch 2.6+: "... at work sequence id: 943 PG status: last enqueued work: 943, ..."
    r"(?:,| PG status:) last enqueued (?:NCCL )?work: (-?\d+), last completed (?:NCCL )?work: "
    r"(-?\d+)"
)
_WD_DUMP = re.compile(r"Last enqueued NCCL work: (-?\d+), last completed NCCL work: (-?\d+)")
_WD_WORK = re.compile(r"WorkNCCL\(SeqNum=(\d+), OpType=(\w+)")
_WD_NUMEL = re.compile(r"OpType=(\w+), NumelIn=(\d+), NumelOut=(\d+)")
_WD_PG = re.compile(r"\[PG (?:ID )?(\d+)")
# srun's own report of its tasks' ends (src/srun: "<host>: task(s) <list>: Exited with exit
# code N", or the signal's strsignal() text): with one task per rank, the first nonzero exit
# is the rank that failed first and the tasks srun killed after it are collateral.
_SRUN_TASKS = re.compile(
    r"^srun: error: (\S+): tasks? ([\d,-]+): (?:Exited with exit code (\d+)|([A-Z][A-Za-z ]+?\w))"
    r"(?: \(core dumped\))?$"
)
_STRSIGNAL = {
    "Killed": 9,
    "Terminated": 15,
    "Segmentation fault": 11,
    "Aborted": 6,
    "Bus error": 7,
    "Interrupt": 2,
    "Hangup": 1,
    "Floating point exception": 8,
    "Illegal instruction": 4,
    "Out Of Memory": 9,  # Slurm's own word for a task its cgroup OOM-killed
}
_OWN_SIGNALS = frozenset({11, 6, 7, 8, 4})  # a task's own crash, never srun's doing
_SANE_SEQ = 1 << 40  # larger "last completed" values are uninitialised memory in old torch


@dataclass(frozen=True)
class SourceInfo:
    """What a log's place says about it (``logsource`` reads it from paths)."""

    name: str
    rank: int | None = None
    local_rank: int | None = None
    node: int | None = None
    host: str | None = None
    attempt: int | None = None
    launcher: bool = False  # torchrun's or launchx's own output, not one rank's
    nproc: int | None = None  # processes per node, where the run loop knows it


@dataclass(frozen=True)
class WatchdogSeq:
    """One rank's NCCL watchdog report: the work that timed out and the last enqueued and
    completed sequence numbers of its process group."""

    rank: int
    pg: str
    timed_out: int | None
    enqueued: int | None
    completed: int | None
    op: str | None
    line: LogLine
    group_size: int | None = None  # from an all-gather's or reduce-scatter's element counts


@dataclass(frozen=True)
class SourceScan:
    info: SourceInfo
    lines: tuple[LogLine, ...]
    entries: tuple[FailureEntry, ...]
    first_failed: tuple[tuple[int, int, LogLine], ...]  # (local rank, exit code, line)
    watchdog: tuple[WatchdogSeq, ...]
    hosts: tuple[tuple[int | None, str], ...]
    nccl_versions: tuple[tuple[int | None, str], ...]
    tail: tuple[LogLine, ...]
    prelude: tuple[str, ...]  # the lines just before the first timeout report
    task_exits: tuple[FailureEntry, ...]  # srun's "task N: Exited ..." (tasks, maybe ranks)
    bytes_read: int
    line_count: int
    truncated: bool
    # mpirun's first process to exit non-zero (MPI rank, exit code, line): runview believes
    # it only where no launcher under mpirun named its own failed rank, in any source
    mpi_first: tuple[tuple[int, int, LogLine], ...] = ()
    own_failures: tuple[int, ...] = ()  # _Scanner.own_failures
    prelude_at: int | None = None

    def after(self, line_no: int) -> SourceScan:
        """What this source holds below its line ``line_no``: the last attempt's part of a
        console log of a run that retried (the earlier attempts' errors are theirs)."""

        def below(ln: LogLine) -> bool:
            return ln.line_no > line_no

        late = self.prelude_at is not None and self.prelude_at > line_no
        return replace(
            self,
            lines=tuple(ln for ln in self.lines if below(ln)),
            entries=tuple(e for e in self.entries if e.line_no > line_no),
            first_failed=tuple(f for f in self.first_failed if below(f[2])),
            watchdog=tuple(w for w in self.watchdog if below(w.line)),
            tail=tuple(ln for ln in self.tail if below(ln)),
            prelude=self.prelude if late else (),
            task_exits=tuple(e for e in self.task_exits if e.line_no > line_no),
            mpi_first=tuple(f for f in self.mpi_first if below(f[2])),
        )


# a kept line's identity: rank, text, joined fragments and the attempt it belongs to
_Key = tuple[int | None, str, str | None, int]


@dataclass
class _Block:
    """torchrun summary parsing state, carried across chunks."""

    root_pending: bool = False
    in_block: bool = False
    root: bool = False
    rank: int | None = None
    local: int | None = None
    exit: int | None = None
    host: str | None = None
    ts: float | None = None
    line_no: int = 0
    open: bool = False  # the summary runs on into the next chunk
    headed: bool = False  # a Root Cause/Failures header or an [N]: block was seen
    # the entry of a block a paste began inside, below its "[N]:" line: the root unless a
    # header turns up further down (the paste then began among the other failures)
    headless_at: int | None = None
    # the host and time fields just above such a paste's rank line (torchrun prints them
    # first): (line number, host, time)
    fields_above: tuple[int, str | None, float | None] = (0, None, None)
    # a block opened at its rank line ends at the first line that is none of its fields,
    # past the lines of its traceback field (a paste has no border to end it)
    loose: bool = False
    traceback_at: int = 0


@dataclass
class _Scanner:
    info: SourceInfo
    base_index: int
    kept: dict[_Key, int] = field(default_factory=dict)  # the first lines' places
    lines: list[LogLine] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    # after the first lines, the latest ones with their counts, the oldest dropped first
    latest: OrderedDict[_Key, tuple[LogLine, int]] = field(default_factory=OrderedDict)
    entries: list[FailureEntry] = field(default_factory=list)
    first_failed: list[tuple[int, int, LogLine]] = field(default_factory=list)
    watchdog: dict[tuple[int, str], WatchdogSeq] = field(default_factory=dict)
    hosts: dict[int | None, str] = field(default_factory=dict)
    versions: dict[tuple[int | None, str], None] = field(default_factory=dict)
    comm_sizes: set[int] = field(default_factory=set)  # NCCL's "nranks N", INFO lines too
    # host:pid -> the ranks NCCL's communicator set-up ("comm 0x.. rank R nranks N") gave it
    comm_ranks: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    headless: set[int] = field(default_factory=set)  # lines rooted with no header above
    tail: list[LogLine] = field(default_factory=list)
    block: _Block = field(default_factory=_Block)
    truncated: bool = False  # a line left the latest window: the middle of the log is lost
    every_line: bool = False
    prelude: tuple[str, ...] | None = None
    task_exits: list[FailureEntry] = field(default_factory=list)
    mpi_first: list[tuple[int, int, LogLine]] = field(default_factory=list)  # mpirun's report
    spawned: tuple[int, int] | None = None  # (process, line) of spawn's "-- Process N"
    framed_to: int = 0  # the last line the frame look-back above an exception has read
    header: re.Pattern[str] | None = None  # a logger's header the traceback frames show
    quoting: bool = False  # inside launchx's own report of a failure (_own_report)
    # the lines of launchx's own "launchx: failure:" reports: each ends an attempt's output
    # in a console log of a run that retried (a SLURM job's .out)
    own_failures: list[int] = field(default_factory=list)
    prelude_at: int | None = None  # the line of the timeout report the prelude precedes

    def cut(self, raw: str) -> str:
        """``raw`` without the header the log's tracebacks show on every line, learnt from
        the log's head before its first line is read (scan_stream)."""
        return raw if self.header is None else _cut_header(raw, self.header)

    def line_at(self, buf: bytes, pos: int) -> tuple[int, int, str]:
        """The bounds and text of the line of ``buf`` holding ``pos``, its learnt header
        off: the lines read around a candidate (a wrap's fragments, the line naming its
        rank) carry the header the candidate did."""
        start, end = _line_bounds(buf, pos)
        return start, end, self.cut(_raw_at(buf, start, end, start))

    def stripped_at(self, buf: bytes, pos: int) -> ll.Stripped:
        """The line holding ``pos``, its header and prefixes taken off."""
        _, _, raw = self.line_at(buf, pos)
        return ll.strip(raw)

    def stripped_above(self, buf: bytes, start: int) -> ll.Stripped | None:
        """The line just above the one at ``start``, its prefixes taken off; None at the top."""
        return self.stripped_at(buf, start - 1) if start > 0 else None

    # ------------------------------------------------------------------ lines

    def _rank(self, stripped: ll.Stripped, line_no: int) -> int | None:
        if stripped.rank is not None:
            return stripped.rank
        if self.block.in_block and self.block.rank is not None:
            return self.block.rank
        if "text_generation_launcher: " in stripped.body and (
            t := _TGI_SHARD.search(stripped.body)
        ):
            return int(t[1] or t[2])
        if self.info.rank is None and (m := _spawn_process(stripped.body)):
            if m.re is _SPAWN_ERROR:
                self.spawned = (int(m.group(1)), line_no)
            return int(m.group(1))
        if self.spawned is not None and 0 < line_no - self.spawned[1] <= _SPAWN_SPAN:
            rank = self.spawned[0]
            if _BARE_EXCEPTION.match(stripped.body):  # the re-raised traceback ends here
                self.spawned = None
            return rank
        return self.info.rank

    def make_line(
        self, raw: str, line_no: int, joined: str | None = None, st: ll.Stripped | None = None
    ) -> LogLine | None:
        """The line ``raw`` as diagnosis reads it (``st``: ``raw`` stripped, where the caller
        has it already); None when nothing is left once its prefixes are off."""
        if st is None:
            st = ll.strip(raw)
        if not st.body:
            return None
        in_root, rank = self._place(st, line_no, joined)
        return self._line(raw, line_no, joined, st, in_root, rank)

    def keep_text(self, raw: str, line_no: int) -> None:
        """``keep(make_line(raw, line_no))``, where a repeat of a kept line is counted
        before a line is made of it: a traceback's frames repeat at every exception."""
        st = ll.strip(raw)
        if not st.body:
            return
        in_root, rank = self._place(st, line_no, None)
        if not self._repeat(self._key(rank, st.body, None)):
            self.keep(self._line(raw, line_no, None, st, in_root, rank))

    def _place(self, st: ll.Stripped, line_no: int, joined: str | None) -> tuple[bool, int | None]:
        """Whether the line is in the summary's root block, and its rank."""
        b = self.block
        in_root = (b.in_block and b.root) or _first_failed(st.body, joined)
        if in_root and b.in_block and b.line_no == b.headless_at:
            # inside the block of a paste with no header: un-rooted if one turns up
            self.headless.add(line_no)
        elif in_root:
            # read again by the summary's state machine, inside its Root Cause block
            self.headless.discard(line_no)
        elif not b.headed and ll.HEADLESS_FACT.match(st.body):
            # a paste that begins inside the summary's one block, below its headers; if a
            # header turns up further down, the paste began among the other failures
            in_root = True
            self.headless.add(line_no)
        return in_root, self._rank(st, line_no)

    def _line(
        self,
        raw: str,
        line_no: int,
        joined: str | None,
        st: ll.Stripped,
        in_root: bool,
        rank: int | None,
    ) -> LogLine:
        return LogLine(
            text=st.body,
            rank=rank,
            index=self.base_index + line_no,
            in_root=in_root,
            source=self.info.name,
            line_no=line_no,
            ts=ll.timestamp(raw),
            host=st.host or self.info.host,
            joined=joined,
            warned=st.warned,
        )

    def keep(self, line: LogLine) -> None:
        key = self._key(line.rank, line.text, line.joined)
        if self._repeat(key):
            return
        if len(self.lines) < _MAX_FIRST:
            self.kept[key] = len(self.lines)
            self.lines.append(line)
            self.counts.append(1)
        else:
            if len(self.latest) >= _MAX_LATEST:
                self.latest.popitem(last=False)
                self.truncated = True
            self.latest[key] = (line, 1)
        self._facts(line)

    def _key(self, rank: int | None, text: str, joined: str | None) -> _Key:
        # (one attempt's line is not another's: each attempt's own, for ``last_attempt``)
        return (rank, text, joined, len(self.own_failures))

    def _repeat(self, key: _Key) -> bool:
        """Count a repeat of a kept line; False when the line is not kept."""
        at = self.kept.get(key)
        if at is not None:
            self.counts[at] += 1
            return True
        if (late := self.latest.get(key)) is not None:
            self.latest[key] = (late[0], late[1] + 1)  # (an update keeps its place)
            return True
        return False

    def _facts(self, line: LogLine) -> None:
        text = line.text if line.joined is None else line.joined.replace("\n", " ")
        if "NCCL version" in text and (v := _NCCL_VERSION.search(text)):
            self.versions.setdefault((line.rank, v.group(1)), None)
        if line.host and line.rank is not None:
            self.hosts.setdefault(line.rank, line.host)
        if m := _first_failed_match(line.text, line.joined):
            self._failed(int(m.group(2)), int(m.group(1)), line)
        elif "exit" in text or "<Signals." in text:
            for pat in ll.LAUNCHER_FAILED:
                if m := pat.search(text):
                    if (code := ll.failed_exit_code(m)) is not None:
                        self._failed(int(m["rank"]), code, line)
                    break
        if (
            "terminated with" in text or "exited with error code" in text
        ) and self.info.rank is None:
            for pat in ll.SPAWNER_FAILED:
                m = pat.search(text)
                # a rank's own line (its prefix names another rank) reports its helpers
                if m is None or line.rank not in (None, int(m["rank"])):
                    continue
                if (code := ll.failed_exit_code(m)) is not None:
                    self._failed(int(m["rank"]), code, line)
                break
            else:
                self._lightning_child(line)
        if "NCCL work" in text or "WorkNCCL(" in text or "PG status:" in text:
            self._watchdog(line)
        if line.text.startswith("srun: error: ") and (m := _SRUN_TASKS.match(line.text)):
            self._task_exits(m, line)

    def _lightning_child(self, line: LogLine) -> None:
        """Lightning's report of the child it found dead, believed for the child's own exit
        (an error's code, a crash's signal): a SIGKILL or SIGTERM there may be Lightning's
        own tear-down after the main process failed, or the kernel's, and names no root."""
        m = ll.LIGHTNING_CHILD_FAILED.match(line.text)
        if m is None or line.rank is None:
            return
        code = int(m["code"])
        if code > 0 or -code in _OWN_SIGNALS:
            self._failed(line.rank, code, line)

    def _failed(self, rank: int, code: int, line: LogLine) -> None:
        """A launcher's report of a rank that failed, in the order the log gives them; past
        ``_MAX_FAILED`` (a run restarted thousands of times) no more: the first are read."""
        if len(self.first_failed) < _MAX_FAILED:
            self.first_failed.append((rank, code, line))

    def _task_exits(self, m: re.Match[str], line: LogLine) -> None:
        if len(self.task_exits) >= _MAX_FAILED:
            return  # (srun's first reports say which task failed first)
        code = int(m.group(3)) if m.group(3) else -_STRSIGNAL.get(m.group(4), 0)
        if code == 0:
            return
        tasks = _task_list(m.group(2))
        # srun's kills after it are SIGKILL/SIGTERM; its cgroup's OOM kill it names as such
        own = code > 0 or -code in _OWN_SIGNALS or m.group(4) == "Out Of Memory"
        first = own and not any(e.is_root for e in self.task_exits) and len(tasks) == 1
        host, where = m.group(1), (line.ts, line.source, line.line_no)
        self.task_exits.extend(FailureEntry(t, None, code, host, first, *where) for t in tasks)

    def _watchdog(self, line: LogLine) -> None:
        if line.rank is None:
            return
        self._watchdog_text(line, line.text) or (
            line.joined is not None and self._watchdog_text(line, line.joined.replace("\n", " "))
        )

    def _watchdog_text(self, line: LogLine, text: str) -> bool:
        assert line.rank is not None
        pg_m = _WD_PG.search(text)
        pg = pg_m.group(1) if pg_m else "0"
        old = self.watchdog.get((line.rank, pg))
        timed_out = old.timed_out if old else None
        enq = old.enqueued if old else None
        comp = old.completed if old else None
        op = old.op if old else None
        if m := _WD_SEQ.search(text):
            timed_out, enq, comp = int(m.group(1)), int(m.group(2)), int(m.group(3))
        elif m := _WD_DUMP.search(text):
            enq, comp = int(m.group(1)), int(m.group(2))
        elif m := _WD_WORK.search(text):
            timed_out, op = int(m.group(1)), m.group(2)
        else:
            return False
        comp = comp if comp is None or abs(comp) < _SANE_SEQ else None
        size = old.group_size if old else None
        if n := _WD_NUMEL.search(text):
            size = _group_size(n.group(1), int(n.group(2)), int(n.group(3))) or size
        self.watchdog[(line.rank, pg)] = WatchdogSeq(
            line.rank, pg, timed_out, enq, comp, op, line, size
        )
        return True

    # ------------------------------------------------------------------ summary blocks

    def summary_line(
        self, raw: str, line_no: int, where: tuple[bytes, int, int] | None = None
    ) -> None:
        """One line inside (or just before) torchrun's failure summary: the state machine
        of ``Root Cause``/``Failures`` headers, ``[N]:`` blocks and borders. ``where``: the
        buffer and the line's span in it, to join a line before the blocks that a terminal
        wrapped ("...failed (exitcode: -9) local_" / "rank: 3 (pid: 4077) of binary: ...")."""
        st = ll.strip(raw)
        body = st.body
        b = self.block
        if not body:
            return
        self._block_state(body, line_no, st.rank)
        # (an error file printed in the block, one JSON key a line: its message is read as
        # the exception line it holds)
        segs = _escaped_lines(raw)
        joined = None
        if where is not None and not b.in_block and segs == [raw] and _may_wrap(raw):
            buf, start, end = where
            joined = _fragments(self, buf, (start, end), st)
        for seg in segs:
            line = self.make_line(seg, line_no, joined, st if joined else None)
            if line is not None and (b.in_block or ll.ROOT_FACTS.search(body)):
                if b.in_block and b.host and line.host is None:
                    line = replace(line, host=b.host)
                # the block's own "rank : N" is the global rank of the failure it describes;
                # a logger's header on the agent's lines ("[RANK:0]", a task number) is not
                if b.in_block and b.rank is not None and line.rank != b.rank:
                    line = replace(line, rank=b.rank)
                self.keep(line)
            elif line is not None and _is_candidate(seg):
                self.keep(line)

    def _block_state(self, body: str, line_no: int, rank: int | None) -> None:
        """The summary's headers, blocks, borders and a block's fields."""
        b = self.block
        if b.in_block and b.loose:
            if not self._in_loose_block(body, line_no, rank):
                self._close_block()
            elif body.startswith("traceback") and ll.SUMMARY_FIELD.match(body):
                b.traceback_at = line_no  # (the lines under it are its traceback's)
        if ll.ROOT_HEADER.match(body):
            b.root_pending = b.headed = True
        elif ll.OTHER_HEADER.match(body):
            b.root_pending, b.headed = False, True
        elif ll.BLOCK_START.match(body):
            b.headed = True
            self._close_block()
            b.in_block, b.root, b.rank, b.local = True, b.root_pending, None, None
            b.exit, b.host, b.ts, b.line_no = None, None, None, line_no
            b.root_pending = False
        elif ll.BORDER.match(body):
            self._close_block()
        elif b.in_block and (m := ll.BLOCK_RANK.match(body)):
            b.rank, b.local = int(m.group(1)), int(m.group(2))
        elif b.in_block and (m := ll.BLOCK_EXIT.match(body)):
            b.exit = int(m.group(1))
        elif b.in_block and (m := ll.BLOCK_HOST.match(body)):
            b.host = m.group(1)
        elif b.in_block and (m := ll.BLOCK_TIME.match(body)):
            b.ts = ll.torchrun_time(m.group(1))
        elif m := ll.BLOCK_RANK.match(body):
            self.block_at_rank(m, line_no)
        elif m := ll.BLOCK_HOST.match(body):
            at, _, ts = b.fields_above
            b.fields_above = (line_no, m.group(1), ts if line_no - at == 1 else None)
        elif m := ll.BLOCK_TIME.match(body):
            b.fields_above = (line_no, None, ll.torchrun_time(m.group(1)))

    def _in_loose_block(self, body: str, line_no: int, rank: int | None) -> bool:
        """Whether a line still belongs to a block opened at its rank line: one of the
        summary's fields, or one of the lines under its traceback field; not a line a rank
        printed (the agent prints the summary, no rank does)."""
        b = self.block
        if rank is not None and rank != b.rank:
            return False
        if ll.SUMMARY_FIELD.match(body):
            return True
        return b.traceback_at > 0 and line_no - b.traceback_at <= _LOOSE_TRACEBACK

    def block_at_rank(self, m: re.Match[str], line_no: int) -> None:
        """A block's rank line with no "[N]:" line above it: after a header, a block whose
        "[N]:" was lost (Markdown reads a line "[0]:" as a link's definition and drops it);
        with no header, a paste that begins at the block's own rank line, the one failure
        the user copied: the root unless a header turns up further down. The host and time
        fields on the lines just above it are the block's (torchrun prints them first)."""
        b = self.block
        if b.headed:
            root, b.root_pending = b.root_pending, False
        elif b.headless_at is None:
            root, b.headless_at = True, line_no
        else:
            return
        at, host, ts = b.fields_above
        if line_no - at > 2:
            host = ts = None
        b.in_block, b.root, b.rank, b.local = True, root, int(m.group(1)), int(m.group(2))
        b.exit, b.host, b.ts, b.line_no = None, host, ts, line_no
        b.loose, b.traceback_at = True, 0

    def _close_block(self) -> None:
        b = self.block
        if b.in_block and b.rank is not None:
            self.entries.append(
                FailureEntry(
                    b.rank, b.local, b.exit, b.host, b.root, b.ts, self.info.name, b.line_no
                )
            )
            if b.host:
                self.hosts.setdefault(b.rank, b.host)
        b.in_block = False
        b.root = False
        b.loose = False

    def finish(self, bytes_read: int, line_count: int) -> SourceScan:
        self._close_block()
        if self.block.headed and self.block.headless_at is not None:
            self.entries = [
                replace(e, is_root=False) if e.line_no == self.block.headless_at else e
                for e in self.entries
            ]
        ranks_root = {e.rank for e in self.entries if e.is_root}
        if not self.entries and self.first_failed and self.info.node is None:
            # No summary: torchrun's first "failed (exitcode: N) local_rank: L" names the
            # rank that failed first (its local rank is the global one on a single node).
            ranks_root = {self.first_failed[0][0]}
        kept = [*zip(self.lines, self.counts, strict=True), *self.latest.values()]
        lines = [replace(ln, repeats=n) if n > 1 else ln for ln, n in kept]
        if self.block.headed and self.headless:
            lines = [
                replace(ln, in_root=False) if ln.line_no in self.headless else ln for ln in lines
            ]
        lines = _nccl_process_ranks(lines, self.comm_sizes, self.comm_ranks)
        if len(ranks_root) == 1:
            (root,) = ranks_root
            lines = [
                replace(ln, rank=root) if ln.rank is None and ln.in_root else ln for ln in lines
            ]
        return SourceScan(
            info=self.info,
            lines=tuple(lines),
            entries=tuple(self.entries),
            first_failed=tuple(self.first_failed),
            watchdog=tuple(self.watchdog.values()),
            hosts=tuple(self.hosts.items()),
            nccl_versions=tuple(self.versions),
            tail=tuple(self.tail),
            prelude=self.prelude or (),
            task_exits=tuple(self.task_exits),
            bytes_read=bytes_read,
            line_count=line_count,
            truncated=self.truncated,
            mpi_first=tuple(self.mpi_first[:1]),
            own_failures=tuple(self.own_failures),
            prelude_at=self.prelude_at,
        )


def _spawn_process(body: str) -> re.Match[str] | None:
    if not body.startswith(("-- Process", "torch.multiprocessing", "ProcessExited")):
        return None
    return _SPAWN_ERROR.match(body) or _SPAWN_EXIT.match(body)


def _task_list(text: str) -> list[int]:
    """srun's task list, ``0,2-3`` (bounded: a garbled range is no list)."""
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            return []
        first, last = int(lo), int(hi or lo)
        if last < first or last - first > 65536:
            return []
        out.extend(range(first, last + 1))
    return out


def _first_failed(body: str, joined: str | None) -> bool:
    """torchrun's "failed (exitcode: N) local_rank: L" line, also where a terminal wrapped
    it ("...api:failed" / " (exitcode: -9) local_rank: 1 ..."): the root failure's line. In
    the joined fragments only a match across a break counts; a whole such line among them is
    another line's."""
    return _first_failed_match(body, joined, spanning=True) is not None


def _first_failed_match(
    body: str, joined: str | None, spanning: bool = False
) -> re.Match[str] | None:
    """torchrun's failed line in ``body``, or in the fragments a terminal wrapped it into
    (with a space at a break and without one: the wrap may fall inside "local_rank");
    ``spanning``: only a match across a break counts there."""
    if "exitcode" in body and (m := ll.FIRST_FAILED.search(body)):
        return m
    if joined is None or "exitcode" not in joined:
        return None
    for text, breaks in rm.joined_variants(joined):
        for m in ll.FIRST_FAILED.finditer(text):
            if not spanning or any(m.start() < b < m.end() for b in breaks):
                return m
    return None


def _is_candidate(raw: str) -> bool:
    low = raw.lower().encode(errors="replace")
    return any(a in low for a in _ANCHORS) or (
        b"&" in low and any(a in low for a in _ESCAPED_ANCHORS)
    )


def _is_continuation(prev_raw: str, prev: ll.Stripped, nxt: ll.Stripped) -> bool:
    """Whether ``nxt`` may be the rest of ``prev``: ``prev`` is long enough to have been
    wrapped, or an exception line whose message starts below it, and ``nxt`` carries the
    same rank prefix or none (some wrappers prefix only the first fragment). Loose on
    purpose: a rule accepts a joined message only where its pattern spans the break."""
    tail = ll.clean(prev_raw).rstrip()
    # an exception whose message starts on the next line ("...Exception: " and the message
    # below it, indented) continues whatever its length
    opened = tail.endswith(_OPENERS) and _bare_exception(prev.body)
    if (len(tail) < _MIN_WRAPPED and not opened) or not nxt.body or not prev.body:
        return False
    return nxt.rank is None or nxt.rank == prev.rank


def _may_wrap(raw: str) -> bool:
    """Whether the raw line ``raw`` may go on on the next line (``_is_continuation``'s test
    of its length, before any prefix is taken off: most lines end here, unread)."""
    tail = ll.clean(raw).rstrip()
    return len(tail) >= _MIN_WRAPPED or tail.endswith(_OPENERS)


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


# --------------------------------------------------------------------------- buffers


def _line_bounds(buf: bytes, pos: int) -> tuple[int, int]:
    start = buf.rfind(b"\n", 0, pos) + 1
    end = buf.find(b"\n", pos)
    return start, (len(buf) if end == -1 else end)


def _raw_at(buf: bytes, start: int, end: int, anchor: int) -> str:
    if end - start > _MAX_LINE:
        lo = max(start, anchor - _MAX_LINE // 2)
        return _decode(buf[lo : min(end, lo + _MAX_LINE)])
    return _decode(buf[start:end])


def _group_size(op: str, numel_in: int, numel_out: int) -> int | None:
    """The ranks in a collective's group, where its element counts say: an all-gather's
    output holds every rank's input, a reduce-scatter's input every rank's output."""
    if "ALLGATHER" in op:
        big, small = numel_out, numel_in
    elif "REDUCE_SCATTER" in op:
        big, small = numel_in, numel_out
    else:
        return None
    if small <= 0 or big % small or not 2 <= big // small <= 1 << 20:
        return None
    return big // small


def _back_lines(buf: bytes, pos: int, count: int) -> int:
    """Offset of the start of the line ``count`` lines before the one starting at ``pos``."""
    for _ in range(count):
        if pos <= 0:
            return 0
        pos = buf.rfind(b"\n", 0, pos - 1) + 1
    return pos


def _forward_lines(buf: bytes, pos: int, count: int) -> int:
    for _ in range(count):
        nl = buf.find(b"\n", pos)
        if nl == -1:
            return len(buf)
        pos = nl + 1
    return pos


@functools.cache
def one_pass_search() -> OnePass | None:
    """The anchors and markers in one Hyperscan pass, where it is installed (compiled on
    first use: ``import launchx.logscan`` stays cheap)."""
    return one_pass(_ANCHORS + _ESCAPED_ANCHORS, _ANCHORED_MARKERS, _NEXT_LINE_MARKERS)


def _anchor_lines(
    low: bytes, span: tuple[int, int], every: bool = False, far: list[tuple[int, int]] | None = None
) -> dict[int, int]:
    """Line start -> first anchor position, for every line in ``[lo, hi)`` with an anchor
    (``every``: every line, the slow reference the tests compare against). ``far``: the
    lines a helper found holding the anchors after the first ``_NEAR`` (offsets into
    ``low``); without it, all anchors are searched here, in one pass where Hyperscan is
    installed."""
    lo, hi = span
    found: dict[int, int] = {}
    if every:
        pos = lo
        while pos < hi:
            found[pos] = pos
            nl = low.find(b"\n", pos, hi)
            if nl == -1:
                break
            pos = nl + 1
        return found
    if far is None and (search := one_pass_search()) is not None:
        return search.lines(low, lo, hi)
    return find_lines(low, lo, hi, far)


def find_lines(
    low: bytes, lo: int, hi: int, far: list[tuple[int, int]] | None = None
) -> dict[int, int]:
    """``_anchor_lines`` with ``bytes.find``, a pass per anchor and per next-line marker
    (the escaped anchors only where an escape is): where Hyperscan is not installed, or a
    helper answers for ``FAR_ANCHORS``."""
    found: dict[int, int] = {}
    after: list[int] = []
    first_anchors(low, lo, hi, _NEAR_ANCHORS, found, _ANCHORED_MARKERS, after)
    if far is None:
        first_anchors(low, lo, hi, FAR_ANCHORS, found)
    else:
        for start, pos in far:
            found.setdefault(start, pos)
    if _QUOTE_ESCAPE.search(low, lo, hi):
        first_anchors(low, lo, hi, _ESCAPED_ANCHORS, found)
    after_markers(low, lo, hi, _NEXT_LINE_MARKERS, after)
    for pos in after:
        found.setdefault(pos, pos)
    return found


def _fragments(sc: _Scanner, buf: bytes, span: tuple[int, int], first: ll.Stripped) -> str | None:
    """The candidate line at ``span`` with the fragments a wrap split off it, joined by
    newlines; None when it was not wrapped."""
    start, end = span
    before: list[str] = []
    cur = first
    pos = start
    for _ in range(_MAX_JOIN):
        if pos == 0:
            break
        pstart, pend = _line_bounds(buf, pos - 1)
        if not _may_wrap(raw := _raw_at(buf, pstart, pend, pstart)):
            break
        raw = sc.cut(raw)
        prev = ll.strip(raw)
        if not _is_continuation(raw, prev, cur):
            break
        before.insert(0, prev.body)
        cur, pos = prev, pstart
    after: list[str] = []
    cur, cur_raw, pos = first, _raw_at(buf, start, end, start), end + 1
    for i in range(_MAX_JOIN):
        if pos >= len(buf) or not _may_wrap(cur_raw):
            break
        if i == 0:  # (the candidate's header comes off only where it may have wrapped)
            cur_raw = sc.cut(cur_raw)
        _, nend, raw = sc.line_at(buf, pos)
        nxt = ll.strip(raw)
        if not _is_continuation(cur_raw, cur, nxt):
            break
        after.append(nxt.body)
        cur, cur_raw, pos = nxt, raw, nend + 1
    if not before and not after:
        return None
    return "\n".join([*before, first.body, *after])


def _process(
    sc: _Scanner,
    buf: bytes,
    low: bytes,
    span: tuple[int, int, int],
    first_line: int,
    far: list[tuple[int, int]] | None = None,
) -> int:
    """Handle the lines starting in ``[lo, hi)`` of ``buf`` (whose line ``first_line``
    starts at offset 0); a summary block may run on to ``limit``. Returns where the next
    call must start."""
    lo, hi, limit = span
    cands = _anchor_lines(low, (lo, hi), sc.every_line, far)
    if sc.block.open:
        cands.setdefault(lo, lo)
    line_at = first_line
    counted = 0
    resume = lo
    for start in sorted(cands):
        if start < resume:
            continue
        line_at += buf.count(b"\n", counted, start)
        counted = start
        end = buf.find(b"\n", start)
        end = len(buf) if end == -1 else end
        if not sc.block.open and _own_report(sc, buf, start, line_at):
            resume = end + 1
            continue
        if sc.block.open or _BLOCK_ANCHOR.search(low, start, end):
            resume = _summary(sc, buf, (resume, start, limit), line_at)
            line_at += buf.count(b"\n", start, resume)
            counted = resume
            continue
        _candidate(sc, buf, start, end, cands[start], line_at)
        resume = end + 1
    return max(resume, hi)


# launchx run's report of a failed attempt in its own console output (a SLURM job's .out
# file): a ``launchx: failure:`` line, then the cause, fix, evidence and ranks, indented.
# The evidence it quotes is in the log already, above it; read twice it would be cited twice.
_OWN_FAILURE = re.compile(rb"(?:\d+: )?launchx: failure: ")
_OWN_INDENTED = re.compile(rb"(?:\d+: )?  ")


def _own_report(sc: _Scanner, buf: bytes, start: int, line_no: int) -> bool:
    """Whether the line at ``start`` (line ``line_no``) is inside launchx's report of a
    failure (not its headline, which rules read: it names a hang launchx found)."""
    if sc.quoting and _OWN_INDENTED.match(buf, start):
        return True
    sc.quoting = _OWN_FAILURE.match(buf, start) is not None
    if sc.quoting and line_no not in sc.own_failures[-1:]:
        sc.own_failures.append(line_no)
    return False


def _summary(sc: _Scanner, buf: bytes, span: tuple[int, int, int], line_no: int) -> int:
    """Parse torchrun's failure summary from a few lines before ``start`` (its ``[N]:``,
    host and rank lines) until a line no summary holds, at most to ``limit``. Lines before
    ``floor`` were handled already and only feed the header state."""
    floor, start, limit = span
    b = sc.block
    if not b.open:
        back = _back_lines(buf, start, 8)
        pos, no = back, line_no - buf.count(b"\n", back, start)
    else:
        pos, no = start, line_no
    quiet = 0
    while pos < limit and quiet < 12:
        end = buf.find(b"\n", pos)
        end = len(buf) if end == -1 else end
        raw = sc.cut(_raw_at(buf, pos, end, pos))
        if pos >= floor and not _own_report(sc, buf, pos, no):
            sc.summary_line(raw, no, (buf, pos, end))
        else:
            body = ll.strip(raw).body
            if ll.ROOT_HEADER.match(body):
                b.root_pending = b.headed = True
            elif not b.in_block and (m := ll.BLOCK_RANK.match(body)):
                sc.block_at_rank(m, no)
        is_summary = b.in_block or b.root_pending or _summary_word(raw)
        quiet = 0 if is_summary else quiet + 1
        pos, no = end + 1, no + 1
    b.open = quiet < 12 and (b.in_block or b.root_pending)
    return pos


_SUMMARY_WORDS = re.compile(r"^\s*(?:\[\d+\]:|Root Cause|(?:Other )?Failures:|[=*-]{8,}|<NO_OTHER)")


def _summary_word(raw: str) -> bool:
    return bool(_SUMMARY_WORDS.match(ll.strip(raw).body or raw))


def _candidate(sc: _Scanner, buf: bytes, start: int, end: int, anchor: int, line_no: int) -> None:
    raw_bytes = buf[start:end]
    if _NCCL_INFO in raw_bytes and not _strong(raw_bytes):
        if b"ranks " in raw_bytes and (n := _NCCL_NRANKS_B.search(raw_bytes)):
            sc.comm_sizes.add(int(n.group(1)))
            c = _NCCL_COMM_RANK.search(raw_bytes)
            p = c and _NCCL_PROC.match(ll.strip(_decode(raw_bytes[:_MAX_LINE])).body)
            if c and p:
                sc.comm_ranks[p.group(1)].add(int(c.group(1)))
        return
    raw = sc.cut(_raw_at(buf, start, end, anchor))
    header = None
    if _EXCEPTION_LINE.search(raw_bytes):
        # (a header only where the line's exception class has an unknown one before it)
        headed = not _plain_exception(raw)
        header = _traceback_header(buf, start) if headed else None
        _frames_above(sc, buf, start, line_no, header)
        _rich_box_above(sc, buf, start, line_no)
        if header is not None:
            raw = _cut_header(raw, header)
    if sc.prelude is None and _TIMEOUT.search(raw_bytes):
        top = _back_lines(buf, start, _PRELUDE_LINES)
        raws = buf[top:start].split(b"\n")
        bodies = (ll.strip(sc.cut(_decode(r[:_MAX_LINE]))).body for r in raws)
        sc.prelude = tuple(b for b in bodies if b)
        sc.prelude_at = line_no
    segments = [raw]
    if "\r" in raw:  # terminal frames: only those with an anchor
        frames = [s for s in raw.split("\r") if s.strip()]
        segments = [s for s in frames if _is_candidate(s)] if len(frames) > 1 else frames
    # (an error file's message, one escaped string or, printed one JSON key a line, a
    # one-line message: both read as the exception line they hold)
    segments = [part for seg in segments for part in _escaped_lines(seg)]
    segments = [part for seg in segments for part in _rank_pieces(seg)]
    for i, seg in enumerate(segments):
        joined = None
        first = ll.strip(seg)
        if first.body and (i == len(segments) - 1 or i == 0):
            joined = _fragments(sc, buf, (start, end), first)
        line = sc.make_line(seg, line_no, joined, first)
        if line is not None and line.rank is None and _bare_exception(seg):
            line = replace(line, rank=_neighbour_rank(sc, buf, start, end))
        if line is not None and line.rank is None and _HYDRA_END.match(line.text):
            line = _hydra_rank(sc, line, buf, start)
        if line is not None:
            sc.keep(line)
            if (
                len(sc.mpi_first) < _MAX_FAILED
                and (m := _MPI_EXIT.match(line.text))
                and (rank := _mpi_process(sc, buf, start)) is not None
            ):
                sc.mpi_first.append((rank, int(m.group(1)), line))


def _nccl_process_ranks(
    lines: list[LogLine], comm_sizes: set[int], comm_ranks: Mapping[str, set[int]]
) -> list[LogLine]:
    """NCCL's lines of a process whose proxy named its rank, or whose communicator set-up
    (an INFO line) did, get that rank; not when the process was named two, nor when the log
    shows communicators of several sizes (a subgroup's rank is not the world's). The sizes
    come from every NCCL line that prints one, INFO lines included. The set-up lines count
    only when no two processes were given the same rank and no more processes printed NCCL
    lines than the size: a world whose own communicator was never printed shows only its
    subgroups, all of one size, whose ranks repeat across the processes."""
    sizes = comm_sizes | {int(m.group(1)) for ln in lines if (m := _NCCL_NRANKS.search(ln.text))}
    if len(sizes) > 1:  # subgroups: a proxy's rank is its communicator's, not the world's
        return lines
    named: dict[str, set[int]] = defaultdict(set)
    procs = set(comm_ranks) | {p.group(1) for ln in lines if (p := _NCCL_PROC.match(ln.text))}
    given = [rank for ranks in comm_ranks.values() for rank in ranks]
    if sizes and len(procs) <= min(sizes) and len(given) == len(set(given)):
        for proc, ranks in comm_ranks.items():
            named[proc] |= ranks
    for ln in lines:
        p = _NCCL_PROC.match(ln.text) if "Proxy Service" in ln.text else None
        if p and (m := _PROXY_SERVICE.search(ln.text)):
            named[p.group(1)].add(int(m.group(1)))
    owner = {proc: ranks.pop() for proc, ranks in named.items() if len(ranks) == 1}
    if not owner:
        return lines
    out = []
    for ln in lines:
        p = _NCCL_PROC.match(ln.text) if ln.rank is None else None
        out.append(replace(ln, rank=owner[p.group(1)]) if p and p.group(1) in owner else ln)
    return out


# torchrun's error file, as its agent logs it: the child's traceback is one JSON string with
# its line breaks escaped ("message": "TypeError: ...\\n    1. ..."), so the exception line
# inside is found only once the string is split where its lines were.
_JSON_TEXT = re.compile(r'"(?:message|msg|traceback)"\s*:\s*"')
_JSON_END = re.compile(r'"\s*[,}\]]*\s*$')


# a paste whose newlines were lost but whose lines kept their rank prefixes ("...setup
# [rank1]: fs.makedirs(log_dir) [rank1]: FileExistsError: ..."): each prefix after a space
# starts a line again
_RANK_JOIN = re.compile(r"(?<=\S) +(?=\[rank\d+\]: )")


def _rank_pieces(seg: str) -> list[str]:
    """The lines a flattened paste held, where two or more rank prefixes follow text on one
    line, each piece that carries an anchor; else ``seg`` alone. One prefix after text is
    left whole: a message may quote a rank's tag."""
    if "[rank" not in seg or len(parts := _RANK_JOIN.split(seg)) < 3:
        return [seg]
    return [p for p in parts if _is_candidate(p)] or [seg]


def _escaped_lines(seg: str) -> list[str]:
    """The lines of an error file's message when ``seg`` is its JSON key's line; else
    ``seg`` alone (the substring and search tests first: most lines are not, and the strip
    of their prefixes is the costly part)."""
    if '":' not in seg or not _JSON_TEXT.search(seg) or not _JSON_TEXT.match(ll.strip(seg).body):
        return [seg]
    text = _JSON_END.sub("", _JSON_TEXT.sub("", seg, count=1)).replace('\\"', '"')
    parts = [p for p in text.split("\\n") if p.strip()]
    # as in the scan: the line after NCCL's "Last error:" is its reason, anchor or not
    return [
        p
        for i, p in enumerate(parts)
        if i == 0 or _is_candidate(p) or parts[i - 1].strip() == "Last error:"
    ]


_BARE_EXCEPTION = re.compile(f"(?:{fr.EXCEPTION_LINE}|^{fr.MODULE_ERROR}):")


def _bare_exception(raw: str) -> bool:
    """An exception line printed without any prefix, between lines that have one (torch's
    excepthook prefixes the traceback, not always what was printed just before it)."""
    return bool(_BARE_EXCEPTION.match(raw))


# Open MPI's mpirun names the first process that exited non-zero on two lines, "Process
# name: [[job family,job],vpid]" and "Exit code: N" under it; the vpid is the process's rank
# in MPI_COMM_WORLD
_MPI_EXIT = re.compile(r"^Exit code:\s*(-?\d+)$")
_MPI_PROCESS = re.compile(r"^Process name:\s*\[\[\d+,\d+\],(\d+)\]$")


def _mpi_process(sc: _Scanner, buf: bytes, start: int) -> int | None:
    """The rank of Open MPI's "Process name" line just above the line at ``start``."""
    above = sc.stripped_above(buf, start)
    m = _MPI_PROCESS.match(above.body) if above else None
    return int(m.group(1)) if m else None


# MPICH's mpiexec (Hydra) names the rank and its host in its "BAD TERMINATION" banner, on the
# line above the one that says how it ended: "=   RANK 6 PID 2447372 RUNNING AT node0009"
# over "=   KILLED BY SIGNAL: 9 (Killed)" (or "=   EXIT CODE: 139")
_HYDRA_END = re.compile(r"^=\s+(?:KILLED BY SIGNAL|EXIT CODE): ")
_HYDRA_RANK = re.compile(r"^=\s+RANK (\d+) PID \d+ RUNNING AT (\S+)")


def _hydra_rank(sc: _Scanner, line: LogLine, buf: bytes, start: int) -> LogLine:
    above = sc.stripped_above(buf, start)
    m = _HYDRA_RANK.match(above.body) if above else None
    return replace(line, rank=int(m.group(1)), host=line.host or m.group(2)) if m else line


def _neighbour_rank(sc: _Scanner, buf: bytes, start: int, end: int) -> int | None:
    ranks = set()
    if above := sc.stripped_above(buf, start):
        ranks.add(above.rank)
    if end + 1 < len(buf):
        ranks.add(sc.stripped_at(buf, end + 1).rank)
    known = {r for r in ranks if r is not None}
    return known.pop() if len(known) == 1 else None


# NCCL INFO lines flood a log at start-up (channels, rings, trees); those kept say which
# version and interface NCCL uses, or trace an error return ("-> 2").
_STRONG = (
    b"rror",
    b"RROR",
    b"ail",
    b"xception",
    b"WARN",
    b"version",
    b"Bootstrap",
    b"NET/",
    b"refused",
    b"Connection",
    b" -> ",
)
# (a bare "Exception: ..." too: LX656 reads it beside the raise in its frames; and a
# library's class that ends in neither word, found by the dot before its name: the whole of
# fr.MODULE_ERROR searched in every candidate line costs three times as much)
_EXCEPTION_LINE = re.compile(
    rb"[A-Z]\w*(?:Error|Exception)\b|\bException: |\.(?:" + fr.MODULE_ERROR_NAMES.encode() + rb"): "
)
_FRAME = b'File "'
# a frame's end: where it was called from ("..., line 31, in _init_dist_pytorch")
_FRAME_END = re.compile(r'", line \d+, in \S+\s*$')
# a timeout said as a failure: not a name that ends in it ("nccl_watchdog_timeout" in a note,
# "ddp_timeout" in an argument dump) nor a setting ("timeout=1800", "timeout: 30")
_TIMEOUT = re.compile(rb"\b(?:[Tt]imeout(?!\s*[=:])|[Tt]imed out)")
_PRELUDE_LINES = 6
_FRAME_LOOKBACK = 40


_RICH_BOX_END = "╰─".encode()  # (the box's last line, where its frames end)


def _rich_box_above(sc: _Scanner, buf: bytes, start: int, line_no: int) -> None:
    """rich's traceback (accelerate's and transformers' scripts install it) draws the frames
    in a box and prints the exception line right under it: the box's last line, kept, says
    the line under it ended a traceback (a bare ``Exception: ...``, LX656) though no
    ``File "`` frame is there."""
    if start <= 0:
        return
    above = buf[_back_lines(buf, start, 1) : start - 1]
    if _RICH_BOX_END not in above:
        return
    line = sc.make_line(sc.cut(_decode(above[:_MAX_LINE])), line_no - 1)
    if line is not None and line.text.startswith("╰─"):  # (under its prefixes: [rank0]:)
        sc.keep(line)


def _frames_above(
    sc: _Scanner, buf: bytes, start: int, line_no: int, header: re.Pattern[str] | None
) -> None:
    """The traceback frames above an exception line: the user's file and line is what
    they need to fix, and frames hold no anchor of their own. The source line under a
    frame is kept too: a bare ``AssertionError`` says what failed only there."""
    # exceptions close together share their look-back: a line read once is not read (and
    # counted) again, so a log dense with tracebacks costs one pass, not forty (a line
    # without a frame is never read but as the source line under one read in the same pass)
    done = sc.framed_to
    sc.framed_to = max(done, line_no - 1)
    fresh = min(_FRAME_LOOKBACK, line_no - 1 - done)
    if fresh <= 0:
        return
    top = _back_lines(buf, start, fresh)
    if buf.find(_FRAME, top, start) == -1:
        return
    chunk = buf[top:start].split(b"\n")
    first_no = line_no - len(chunk) + 1
    under = skip_to = -1  # the line under the last frame (its source line); its pieces
    for i, raw in enumerate(chunk):
        if i < skip_to:
            continue
        is_frame = _FRAME in raw
        if not (is_frame or i == under):
            continue
        text = _decode(raw[:_MAX_LINE])
        text = _cut_header(text, header) if header else sc.cut(text)
        if is_frame:
            under = i + 1
            if not _FRAME_END.search(text) and _may_wrap(text):
                # a frame a terminal wrapped ('File "/x/dist_utils.py", lin' / 'e 31, in f'):
                # its pieces put back together, the source line under the last one
                whole = text
                for n, piece in enumerate(chunk[i + 1 : i + 1 + _MAX_JOIN], 1):
                    if _FRAME in piece:
                        break  # another frame: this one did not end for another reason
                    rest = _decode(piece[:_MAX_LINE]).rstrip("\r")
                    body = ll.strip(rest).body
                    # (a wrap at a space leaves it at the start of an unprefixed piece)
                    whole += f" {body}" if rest[:1] == " " and rest.strip() == body else body
                    if _FRAME_END.search(whole):
                        text, under = whole, i + 1 + n
                        skip_to = under
                        break
        sc.keep_text(text, first_no + i)


# A logger's header on every line in a shape the line reader does not know ("May 01 10:11:12
# node01 python3[12345]: ", "logs/rank_3.log:", a team's own format): a traceback shows it, as
# what is left before the "File" of its frames once the known prefixes are off, and the
# exception line under the frames carries the same header with other numbers in it. Taking
# it off lets the exception line be read as one (its patterns start at the message).
_DIGIT_RUN = re.compile(r"\d+")
_GAP = re.compile(r"\s+")
_TRACEBACK_MARKS = (_FRAME, ll.TRACEBACK.encode())
_MAX_HEADER = 120
_HEADER_WINDOW = 8192  # bytes above an exception line searched for its traceback's marks
# a header's digits other than 0 all read as ones: its shape is the same whatever its numbers
# (a time, a pid), and the caches below hold an entry a shape rather than one a line; the
# line reader's patterns tell a digit from another only as 0 or not ("EngineCore_DP[1-9]")
_ONES = bytes.maketrans(b"123456789", b"1" * 9)
_ONES_TEXT = str.maketrans("123456789", "1" * 9)


def _traceback_header(buf: bytes, start: int) -> re.Pattern[str] | None:
    """The shape of the header before the nearest traceback frame (or the traceback's first
    line) just above the line at ``start``, its digits any digits, when the line reader
    leaves one there."""
    # (no further up than the lines every chunk keeps above the ones it reads: a window of
    # bytes alone reached an earlier traceback's frames, or not, by where the chunk began)
    top = max(start - _HEADER_WINDOW, _back_lines(buf, start, _CONTEXT_LINES))
    at, mark = max((buf.rfind(m, top, start), m) for m in _TRACEBACK_MARKS)
    return _header_before(buf, at, mark) if at != -1 else None


# what follows a traceback's marks on their lines: a frame's file and line number, nothing
# after the traceback's first line (a "File" in a message is neither)
_MARK_TAILS = {
    _FRAME: re.compile(rb'[^"\n]+", line \d+'),
    _TRACEBACK_MARKS[1]: re.compile(rb"[ \t\r]*(?:\n|$)"),
}


def _header_before(buf: bytes, at: int, mark: bytes) -> re.Pattern[str] | None:
    """The header shape before the traceback ``mark`` at ``at``; None where the mark starts
    its line (no header) or is not a traceback's (the wrong words after it, far into a line)."""
    ls = buf.rfind(b"\n", 0, at) + 1
    if at - ls > _MAX_HEADER or not _MARK_TAILS[mark].match(buf, at + len(mark)):
        return None
    return _mark_header(buf[ls:at].translate(_ONES), mark) if buf[ls:at].strip() else None


@functools.lru_cache(maxsize=1024)
def _mark_header(before: bytes, mark: bytes) -> re.Pattern[str] | None:
    """The header shape in ``before``, what stands before a traceback's ``mark`` on its line
    (the same few prefixes recur line after line: "[rank3]:   ")."""
    word = mark.decode()
    body = ll.strip(_decode(before) + word).body
    pre = body[: -len(word)] if body.endswith(word) else ""
    head = _unknown_part(pre.rstrip())
    # a header followed by a space in the frame is one only when a space follows it (not
    # the start of "10.0.0.2:4242:4250 [0] NCCL WARN" under a "10.0.0.2: " header)
    spaced = len(pre) > len(head) and pre[len(head)].isspace()
    return _header_shape(_DIGIT_RUN.sub("\0", head), spaced) if head else None


def _unknown_part(head: str) -> str:
    """``head`` up to the first rank or host prefix the line reader knows after a space in
    it: that prefix stays on the line, to be read."""
    for gap in _GAP.finditer(head):
        rest = ll.strip(head[gap.end() :] + " x")
        if rest.rank is not None or rest.host is not None:
            return head[: gap.start()]
    return head


@functools.lru_cache(maxsize=256)
def _header_shape(head: str, spaced: bool) -> re.Pattern[str]:
    body = r"\d+".join(re.escape(part) for part in head.split("\0"))
    return re.compile("^" + body + (r"\s+" if spaced else ""))


# an exception's class at the start of a line or after a header, where a header can end
_EXCEPTION_AFTER = re.compile(
    rf"(?:^|(?<=[\s|:>\])~-]))(?:{ll.EXCEPTION_NAME}|{fr.MODULE_ERROR})"
    r"(?::(?: |$)|$)"
)


def _plain_exception(raw: str) -> bool:
    """No header the line reader does not know stands before the line's exception class
    (most often none, or a rank prefix: "[rank3]: KeyError: ..."), or it has none near."""
    m = _EXCEPTION_AFTER.search(raw, 0, _MAX_HEADER + 40)
    return m is None or _known_prefix(raw[: m.start()].translate(_ONES_TEXT))


_HEADER_FRAMES = 64


def _learned_header(head: bytes) -> re.Pattern[str] | None:
    """The header shape most of the first traceback frames show (two at least): the
    logger's, on its other lines too (the ones before the traceback, torchrun's summary)."""
    shapes: dict[re.Pattern[str] | None, int] = defaultdict(int)
    at = head.find(_FRAME)
    for _ in range(_HEADER_FRAMES):
        if at == -1:
            break
        if _MARK_TAILS[_FRAME].match(head, at + len(_FRAME)):
            shapes[_header_before(head, at, _FRAME)] += 1
        at = head.find(_FRAME, at + 1)
    best = max(shapes.items(), key=lambda kv: kv[1], default=(None, 0))
    return best[0] if best[1] >= 2 else None


@functools.lru_cache(maxsize=1024)
def _known_prefix(text: str) -> bool:
    """The line reader takes all of ``text`` off a line (nothing, or prefixes it knows)."""
    return not text.strip() or ll.strip(text + "x").body == "x"


def _cut_header(raw: str, header: re.Pattern[str]) -> str:
    """``raw`` without the header the frames above it carry, its known prefixes kept (as
    printed: a terminal's codes and a web page's escapes off, which the body has not)."""
    body = ll.strip(raw).body
    m = header.match(body)
    if m is None:
        return raw
    tail = ll.clean(raw).rstrip()
    if not tail.endswith(body):
        return raw
    cut = tail[: len(tail) - len(body)] + body[m.end() :]
    # (the line reader unescapes what it reads again: an escape taken out here is not read
    # twice, "&amp;lt;" staying "&lt;")
    return cut.replace("&", "&amp;") if "&" in cut and tail != raw.rstrip() else cut


def _strong(raw: bytes) -> bool:
    return any(s in raw for s in _STRONG)


# --------------------------------------------------------------------------- entry points


def scan_stream(
    stream: BinaryIO,
    info: SourceInfo,
    *,
    base_index: int = 0,
    chunk: int = CHUNK,
    every_line: bool = False,
    far: FarAnswers | None = None,
) -> SourceScan:
    """Scan a binary stream to its end; memory stays bounded by ``chunk`` and the caps.
    ``every_line`` matches every line instead of only anchored ones (slow; the reference
    the tests hold the anchored scan to). ``far``: a helper's answers for the same bytes
    (``anchorfind``); where it has none, the scanner searches them itself."""
    sc = _Scanner(info, base_index, every_line=every_line)
    carry = b""
    start = 0  # where unprocessed lines begin in carry
    first_line = 1  # line number of carry[0]
    offset = 0  # of carry[0] in the stream
    total = 0
    head_done = False
    # the header a logger puts on every line is learnt from the head before any line is
    # read: a file's by reading ahead (its windows stay the chunks the helper answers)
    learnt = False
    if stream.seekable():
        at = stream.tell()
        sc.header = _learned_header(stream.read(_HEAD_BYTES))
        stream.seek(at)
        learnt = True
    while True:
        data = stream.read(chunk)
        final = not data
        total += len(data)
        buf = carry + data if data else carry
        if not learnt and not final and len(buf) < _HEAD_BYTES:
            carry = buf  # a pipe's head is held until it is whole: it says how lines look
            continue
        if not learnt:
            sc.header = _learned_header(buf[:_HEAD_BYTES])
            learnt = True
        if not head_done and (final or len(buf) >= _HEAD_BYTES):
            _head(sc, buf[:_HEAD_BYTES])
            head_done = True
        if final:
            hi = len(buf)
        else:
            hi = _back_lines(buf, len(buf), _CONTEXT_LINES)
            if hi <= start:
                if len(buf) - start < 4 * chunk:
                    carry = buf
                    continue
                hi = len(buf) - _MAX_LINE  # one enormous line: process it in pieces
                far = None  # its pieces do not start lines: search them here
        low = buf.lower()
        limit = len(buf) if final else buf.rfind(b"\n") + 1
        found = None
        if far is not None and not every_line:
            found = far.lines(offset + start, offset + hi, final)
        if found is None:
            far = None
        elif found:
            found = [(s - offset, p - offset) for s, p in found]
        nxt = _process(sc, buf, low, (start, hi, limit), first_line, found)
        if final:
            _tail(sc, buf, first_line)
            lines_total = first_line + buf.count(b"\n")
            if buf and not buf.endswith(b"\n"):
                lines_total += 1
            return sc.finish(total, lines_total - 1)
        keep_from = _back_lines(buf, min(nxt, len(buf)), _CONTEXT_LINES)
        first_line += buf.count(b"\n", 0, keep_from)
        offset += keep_from
        start = min(nxt, len(buf)) - keep_from
        carry = buf[keep_from:]


def scan_text(
    text: str, info: SourceInfo, *, base_index: int = 0, every_line: bool = False
) -> SourceScan:
    """Scan a log held in memory (the retry loop's rank tails, tests)."""
    data = io.BytesIO(text.encode("utf-8", errors="replace"))
    return scan_stream(data, info, base_index=base_index, every_line=every_line)


def _head(sc: _Scanner, head: bytes) -> None:
    """Hosts named by NCCL's line headers (``host:pid:tid [dev] NCCL INFO``)."""
    text = _decode(head)
    m = _NCCL_HOST.search(text)
    if m and sc.info.rank is not None:
        sc.hosts.setdefault(sc.info.rank, m.group(1))
    elif m and sc.info.host is None and sc.info.rank is None:
        sc.hosts.setdefault(None, m.group(1))


def _tail(sc: _Scanner, buf: bytes, first_line: int) -> None:
    start = _back_lines(buf, len(buf), _TAIL_LINES + 1)
    no = first_line + buf.count(b"\n", 0, start)
    saved = sc.block
    sc.block = _Block(headed=True)  # the tail's lines are context, never a headless root
    for raw in _decode(buf[start:]).split("\n"):
        if len(raw) > _MAX_LINE:
            raw = raw[-_MAX_LINE:]
        line = sc.make_line(sc.cut(raw.split("\r")[-1] if "\r" in raw else raw), no)
        if line is not None:
            sc.tail.append(line)
        no += 1
    sc.tail = sc.tail[-_TAIL_LINES:]
    sc.block = saved
