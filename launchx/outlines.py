"""Turn the launcher's raw output bytes into the lines launchx shows on its console.

What reaches launchx is torchrun's console: with ``--tee`` each rank's stdout and stderr
are tailed by torchrun (``TailLog``) and every chunk it reads is written behind the
rank's header (launchx's template makes it ``[r0]: ``), with torchrun's own log lines
and tracebacks between them unprefixed (``reference/frameworks.md`` §5.2). Shown as they
come, that output is noisy in measured ways:

* tqdm redraws its bar with ``\\r``; ``TailLog`` reads in text mode, so every ``\\r``
  becomes a line of its own, and tqdm's clears become empty ``[r0]:`` lines (an HF
  Trainer run of 30 steps printed 60 lines, many of them empty);
* a partial line gets a header and its remainder another, and ranks interleave
  mid-line: ``[r0]:  53%|…| 16/30 […][r0]: {'loss': …}``;
* torch prefixes tracebacks and C++ warnings with the rank again: ``[r1]: [rank1]: …``;
* when a rank fails, torchrun prints its own traceback and a ``ChildFailedError``
  summary table (about 30 lines) that launchx's diagnosis replaces.

``OutputSplitter`` is fed the bytes as they arrive and returns ``OutLine`` records: the
text without the header, the rank it came from, and what it is (text, a progress bar's
frame, or part of torchrun's failure banner). Every new frame of a bar comes as a
``live`` record (a terminal redraws it in place; ``launchx.progress`` reads the step in
it), and the bar's final state, the frame shown when something else interrupts it or
when it ends, as an ordinary one: off a terminal only those are printed. ``Screen`` turns
the records into what to write, and puts launchx's own messages on a fresh line. The
same splitter reads raw streams without headers (a direct launch, a rank's own log
file), where ``\\r`` and cursor-up codes are still in the bytes.

Pure: bytes in, records out; the caller owns the file descriptors and the clock.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from launchx.loglines import TRACEBACK as _TRACEBACK

Kind = Literal["text", "bar", "banner"]

# launchx's TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE is "[r${rank}]: " (launchx.plan).
DEFAULT_TEMPLATE = "[r${rank}]: "


@dataclass(frozen=True)
class OutLine:
    """One line for the console (without its header)."""

    text: str
    rank: int | None  # None: the launcher's own output
    kind: Kind = "text"
    # A bar frame that a later frame replaces (terminal only): draw it in place, no newline.
    live: bool = False

    def render(self, template: str = DEFAULT_TEMPLATE) -> str:
        """The line as shown, behind its rank's header (no trailing newline). A rank's
        blank line stays blank: its header alone would be noise (``[r0]:`` and nothing)."""
        if self.rank is None or not self.text.strip():
            return self.text
        return header_for(template, self.rank) + self.text


def header_for(template: str, rank: int) -> str:
    return template.replace("${rank}", str(rank)).replace("${local_rank}", str(rank))


def header_pattern(template: str = DEFAULT_TEMPLATE) -> re.Pattern[str]:
    """A regex for the header torchrun writes with ``template``
    (``TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE``); group 1 is the rank."""
    out = []
    rank_seen = False
    for piece in re.split(r"(\$\{[a-z_]+\})", template):
        if piece in ("${rank}", "${local_rank}") and not rank_seen:
            out.append(r"(\d{1,7})")
            rank_seen = True
        elif piece in ("${rank}", "${local_rank}"):
            out.append(r"\d{1,7}")
        elif piece == "${role_name}":
            out.append(r"[^\[\]:\s]*")
        else:
            out.append(re.escape(piece))
    if not rank_seen:
        raise ValueError(f"the prefix template {template!r} has no ${{rank}}")
    return re.compile("".join(out))


# torchrun's default header, ``[default0]:``
DEFAULT_TORCHRUN_HEADER = re.compile(r"\[default(\d{1,7})\]:")

# --------------------------------------------------------------------------- recognisers

_CSI = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])")
# A tqdm frame (``{desc}: {pct}%|{bar}| {n}/{total} [{elapsed}<{remaining}, {rate}]``) or
# one without a total (``{desc}: {n}it [...]``), anchored at the start of the text; its
# end is the closing bracket, so text glued after it can be split off.
_BAR = re.compile(
    r"(?P<desc>[^|\r\n]*?)\s*(?:\d{1,3}%)?\|[^|\r\n]*\|\s*\d{1,12}(?:\.\d+)?[kMG]?"
    r"/(?:\d{1,12}(?:\.\d+)?[kMG]?|\?)\s*\[[^\]\r\n]*\]"
    r"|(?P<desc2>[^|\r\n]*?):\s*\d{1,12}(?:\.\d+)?[kMG]?it\s*\[[\d:]+,[^\]\r\n]*\]"
)
# Rich's bar (Lightning with rich installed): ``Epoch 0/-2 ━━━━╸   12/30 0:00:00 • …``
_RICH_BAR = re.compile(r"(?P<desc>[^━╸╺\r\n]*?)\s+[━╸╺][━╸╺ ]*\s+\d{1,12}/(?:\d{1,12}|\?)\s")

_CHILD_FAILED = "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:"
# torchrun's own traceback when a stopping signal reached it (launchx's Ctrl-C or SIGTERM
# passed on, a scheduler's): thirty lines of its agent's frames that say only "got signal",
# which launchx says itself in a line ("interrupted by SIGINT")
_SIGNAL_EXCEPTION = "torch.distributed.elastic.multiprocessing.api.SignalException: "
_BORDER = re.compile(r"={20,}")
_CHAINED = re.compile(
    r"During handling of the above exception|The above exception was the direct cause"
)
_TRACEBACK_BODY = re.compile(
    r"\s|During handling of the above exception|The above exception was the direct cause"
)
_MAX_HELD = 400  # a "banner" longer than this is not torchrun's: show it


def bar_key(text: str) -> str | None:
    """The description of the bar ``text`` starts with (``""`` for none), or None when
    ``text`` is no bar frame."""
    m = _BAR.match(text)
    if m is not None:
        return (m.group("desc") or m.group("desc2") or "").strip()
    m = _RICH_BAR.match(text)
    if m is not None:
        return re.sub(r"/-?\d+$", "", m.group("desc").strip())
    return None


_COUNT = re.compile(r"(?:\||\s)(\d{1,12})(?:/|it\s*\[)")


def _count(frame: str) -> int:
    m = _COUNT.search(frame)
    return int(m.group(1)) if m else 0


def split_bar(text: str) -> tuple[str, str]:
    """A bar frame and whatever was glued after it (``… 0/30 [00:00<?, ?it/s]/work/x.py:
    UserWarning …``): tqdm writes no newline after a frame, so the next write of the same
    rank lands on its line."""
    m = _BAR.match(text)
    if m is None:
        return text, ""
    return text[: m.end()], text[m.end() :]


# --------------------------------------------------------------------------- one source


@dataclass
class _Source:
    """The state of one rank (or of the launcher itself): its unfinished line, the bar it
    is drawing, the blank lines it may owe, and the lines of a banner being read."""

    rank: int | None
    line: str = ""  # the unfinished physical line (raw: may hold \r and escape codes)
    bar: OutLine | None = None  # the newest frame of the bar being drawn
    bar_key: str | None = None
    bar_shown: bool = True  # whether that frame was already returned (non-live)
    blanks: int = 0  # blank lines not shown yet (tqdm's clears, or real ones)
    after_bar: bool = False  # the last line shown was a bar: blank lines now are clears
    held: list[str] = field(default_factory=list)  # a traceback that may be the banner
    banner_state: Literal["none", "traceback", "table"] = "none"
    borders: int = 0
    after_signal: bool = False  # the last thing held was torchrun's SignalException
    live_text: str | None = None  # the last live frame returned


@dataclass
class OutputSplitter:
    """Bytes of the launcher's console in, ``OutLine`` records out (see the module doc).

    ``header``: the regex of torchrun's per-rank header (group 1: the rank); None for a
    stream without headers, whose lines all belong to ``rank``.
    """

    header: re.Pattern[str] | None = field(default_factory=header_pattern)
    rank: int | None = None
    _decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")(errors="replace")
    )
    _sources: dict[int | None, _Source] = field(default_factory=dict)
    _current: int | None = None  # the source of the physical line being read
    _pending: str = ""  # decoded text not yet split (a header may be cut in two)

    def feed(self, data: bytes) -> list[OutLine]:
        """Read a chunk; the records it completes."""
        out: list[OutLine] = []
        text = self._pending + self._decoder.decode(data)
        start = 0
        while (newline := text.find("\n", start)) >= 0:
            self._segment(text[start:newline])
            self._end_line(out)
            start = newline + 1
        # An unfinished physical line is read at its newline. A bar redrawn with carriage
        # returns for hours never sends one: of a raw stream only its newest frames are
        # kept (torchrun's --tee turns every carriage return into a newline itself).
        rest = text[start:]
        self._pending = rest if self.header is not None else _compact(rest)
        self._live_frames(out)
        return out

    def flush(self) -> list[OutLine]:
        """The end of the stream: every unfinished line, bar and banner."""
        out: list[OutLine] = []
        self._segment(self._pending + self._decoder.decode(b"", final=True))
        self._pending = ""
        for source in list(self._sources.values()):
            if source.line:
                self._finish(source, out)
            self._release_bar(source, out)
            self._release_held(source, out, banner=source.banner_state == "table")
        return out

    def _partials(self) -> dict[int | None, str]:
        """Each source's unfinished line, including the unfinished physical line."""
        lines = {rank: source.line for rank, source in self._sources.items()}
        current = self._current
        for rank, piece in self._pieces(self._pending, current):
            lines[rank] = lines.get(rank, "") + piece
        return {rank: line for rank, line in lines.items() if line}

    # -- reading

    def _source(self, rank: int | None) -> _Source:
        found = self._sources.get(rank)
        if found is None:
            found = self._sources[rank] = _Source(rank)
        return found

    def _pieces(self, text: str, current: int | None) -> list[tuple[int | None, str]]:
        """Text without a newline, split at headers: (source, piece) in order."""
        if self.header is None:
            return [(self.rank, text)] if text else []
        pieces: list[tuple[int | None, str]] = []
        pos = 0
        for m in self.header.finditer(text):
            if m.start() > pos:
                pieces.append((current, text[pos : m.start()]))
            current = int(m.group(1))
            pieces.append((current, ""))
            pos = m.end()
        if pos < len(text):
            pieces.append((current, text[pos:]))
        return pieces

    def _segment(self, text: str) -> None:
        """Text without a newline: each piece to its source's unfinished line."""
        if self.header is None:
            self._current = self.rank
        for rank, piece in self._pieces(text, self._current):
            self._source(rank).line += piece
            self._current = rank

    def _end_line(self, out: list[OutLine]) -> None:
        """A newline: it ends the line of the source that wrote last."""
        source = self._source(self._current)
        self._finish(source, out)
        self._current = self.rank if self.header is None else None

    def _finish(self, source: _Source, out: list[OutLine]) -> None:
        raw, source.line = source.line, ""
        text, had_cr, ups = _render(raw)
        if ups:
            # tqdm drew a nested bar: the newlines before its cursor-up were moves.
            source.blanks = max(0, source.blanks - ups)
        if not text.strip():
            if had_cr or ups or source.bar is not None or source.after_bar:
                return  # a cleared bar, or tqdm's moves between frames
            source.blanks += 1
            return
        if source.rank is not None:
            text = _drop_rank_tag(text, source.rank)
        self._line(source, text, out)
        if had_cr and source.bar is not None:
            # Frames separated by carriage returns and then a newline: the bar left this
            # line for good (tqdm closed it, or moved down to draw another bar).
            self._release_bar(source, out)

    def _line(self, source: _Source, text: str, out: list[OutLine]) -> None:
        if source.rank is None and self._banner(source, text, out):
            return
        key = bar_key(text)
        if key is not None:
            frame, glued = split_bar(text)
            source.blanks = 0  # blank lines before a bar are its moves and clears
            if source.bar is not None and (
                key != source.bar_key or _count(frame) < _count(source.bar.text)
            ):  # another bar, or the same one started again (a second save's bar)
                self._release_bar(source, out)
            source.bar = OutLine(frame, source.rank, "bar")
            source.bar_key = key
            source.bar_shown = False
            if frame != source.live_text:
                out.append(OutLine(frame, source.rank, "bar", live=True))
                source.live_text = frame
            if glued.strip():
                self._line(source, _drop_rank_tag(glued, source.rank), out)
            return
        if source.rank is None and self.header is not None:
            # The launcher speaks (a rank failed, an attempt ended): what each rank drew
            # last is the state to show before it.
            for other in list(self._sources.values()):
                self._release_bar(other, out)
        self._release_bar(source, out)
        out.extend(OutLine("", source.rank) for _ in range(source.blanks))
        source.blanks = 0
        source.after_bar = False
        out.append(OutLine(text, source.rank))

    def _release_bar(self, source: _Source, out: list[OutLine]) -> None:
        if source.bar is not None and not source.bar_shown:
            out.append(source.bar)
            source.after_bar = True
        source.bar, source.bar_key, source.bar_shown = None, None, True

    def _live_frames(self, out: list[OutLine]) -> None:
        """The newest frame of a bar still being drawn on an unfinished line (frames
        separated by carriage returns arrive without a newline)."""
        partials = self._partials()
        for rank in [*self._sources, *(r for r in partials if r not in self._sources)]:
            source = self._source(rank)
            frame: OutLine | None = None
            if source.rank in partials:
                text, _cr, _ups = _render(partials[source.rank])
                if bar_key(text) is not None:
                    frame = OutLine(split_bar(text)[0], source.rank, "bar", live=True)
            if frame is not None and frame.text != source.live_text:
                out.append(frame)
                source.live_text = frame.text

    # -- torchrun's failure banner

    def _banner(self, source: _Source, text: str, out: list[OutLine]) -> bool:
        """Hold the launcher's traceback until it shows whether it is torchrun's
        ChildFailedError report; True when ``text`` was taken."""
        state = source.banner_state
        if state == "none":
            chained = source.after_signal and _CHAINED.match(text) is not None
            source.after_signal = False
            if text == _TRACEBACK or chained:  # (a second signal in torchrun's shutdown)
                source.banner_state = "traceback"
                source.held = [text]
                return True
            if _BORDER.fullmatch(text):  # the table without its traceback
                source.banner_state, source.borders = "table", 1
                source.held = [text]
                return True
            return False
        source.held.append(text)
        if len(source.held) > _MAX_HELD:
            self._release_held(source, out, banner=False)
            return True
        if state == "traceback":
            if text.startswith(_CHILD_FAILED):
                source.banner_state, source.borders = "table", 0
            elif text.startswith(_SIGNAL_EXCEPTION):
                self._release_held(source, out, banner=True)
                source.after_signal = True
            elif not _TRACEBACK_BODY.match(text) and text != _TRACEBACK:
                # The traceback ended with another exception: not the banner. An agent
                # traceback of torchrun itself still belongs to the console.
                self._release_held(source, out, banner=False)
            return True
        if (
            len(source.held) == 2
            and _BORDER.fullmatch(source.held[0])
            and not text.endswith(" FAILED")
        ):  # a border of someone else's, not the table
            self._release_held(source, out, banner=False)
            return True
        if _BORDER.fullmatch(text):
            source.borders += 1
            if source.borders >= 2:
                self._release_held(source, out, banner=True)
        return True

    def _release_held(self, source: _Source, out: list[OutLine], *, banner: bool) -> None:
        held, source.held = source.held, []
        source.banner_state, source.borders = "none", 0
        if not held:
            return
        kind: Kind = "banner" if banner else "text"
        out.extend(OutLine(line, source.rank, kind) for line in held)


_COMPACT_AT = 16384


def _compact(line: str) -> str:
    """``line`` without the frames a later carriage return overwrote, once it is long:
    the last frame that is not blank and what follows it, so ``_render`` gives the same
    answer."""
    if len(line) < _COMPACT_AT or "\r" not in line:
        return line
    pieces = line.split("\r")
    keep = len(pieces) - 1
    while keep > 0 and not pieces[keep].strip():
        keep -= 1
    return "\r" + "\r".join(pieces[keep:]) if keep > 0 else line


def _render(raw: str) -> tuple[str, bool, int]:
    """The final state of one physical line: the text after its last carriage return
    that is not blank, without cursor movement codes (colours are kept). Also whether it
    held a carriage return, and how many lines the cursor moved up."""
    ups = 0
    if "\x1b" in raw:

        def strip(m: re.Match[str]) -> str:
            nonlocal ups
            code = m.group(2)
            if code == "m":
                return m.group(0)
            if code == "A":
                ups += int(m.group(1) or 1) if m.group(1).isdigit() else 1
            return ""

        raw = _CSI.sub(strip, raw)
    if "\r" not in raw:
        return raw.rstrip(), False, ups
    for piece in reversed(raw.split("\r")):
        if piece.strip():
            return piece.rstrip(), True, ups
    return "", True, ups


_RANK_TAG = re.compile(r"\[rank:? ?(\d{1,7})\]:? ?")


def _drop_rank_tag(text: str, rank: int | None) -> str:
    """``[rank1]:`` (torch's traceback and C++ prefix) or ``[rank: 1] `` (Lightning's)
    after the header of rank 1 says the same thing twice."""
    if rank is None:
        return text
    m = _RANK_TAG.match(text)
    if m is not None and int(m.group(1)) == rank:
        return text[m.end() :]
    return text


# --------------------------------------------------------------------------- the console


_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")

# torch's C++ stack lines (c10::Error's backtrace) under "Exception raised from ...".
_CPP_FRAME = re.compile(r"frame #\d+: |<omitting python frames>$")
CPP_FRAMES_SHOWN = 3


def _wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


@dataclass
class Screen:
    """What to write for the records and for launchx's own messages.

    On a terminal the bottom of the screen is a *region* redrawn in place: the live frame
    of a progress bar, then launchx's status lines (``status``). Everything else prints
    above it: erase the region (cursor up, erase to the end of the screen), write, redraw.
    Off a terminal each record is one line, there is no status, and live frames are
    skipped except one every ``bar_every_s`` seconds of the clock passed to ``lines`` (a
    long epoch would otherwise print nothing until it ends). Banner lines are left out (the
    caller writes them to the log file). A message of launchx's own always starts on a
    fresh line."""

    tty: bool = False
    template: str = DEFAULT_TEMPLATE
    show_banner: bool = False
    bar_every_s: float | None = 30.0
    width: int = 0  # the terminal's columns, once a status is shown (0: never cut lines)
    _live: str | None = None  # the frame on screen now, rendered
    _live_rank: int | None = None
    _bar_at: float | None = None  # off a terminal: when a live frame was last printed
    _status: tuple[str, ...] = ()
    _frames: dict[int | None, int] = field(default_factory=dict)  # C++ frames in a row, by rank

    def lines(self, records: Iterable[OutLine], now: float | None = None) -> str:
        before = self._region()
        above: list[str] = []
        for rec in records:
            if rec.kind == "banner" and not self.show_banner:
                continue
            if self.tty and not rec.live and not self._frame_shown(rec, above):
                continue
            rendered = rec.render(self.template)
            if rec.live:
                if self.tty:
                    self._live, self._live_rank = rendered, rec.rank
                elif self._bar_due(now):
                    above.append(rendered)
                continue
            if rec.kind == "bar" and rec.rank == self._live_rank:
                self._live = None  # the bar's final state replaces its live frame
            above.append(rendered)
        if not self.tty:
            return "".join(line + "\n" for line in above)
        if not above and self._region() == before:
            return ""
        return self._redraw(before, "".join(line + "\n" for line in above))

    def _frame_shown(self, rec: OutLine, above: list[str]) -> bool:
        """On a terminal a C++ stack (torch's ``frame #N:`` wall, dozens of lines on each
        rank for one error) shows its first ``CPP_FRAMES_SHOWN`` frames, then one line
        counting the rest; the log files and a console that is no terminal keep them all
        (``diagnose`` reads them). False: leave ``rec`` out."""
        folded = self._frames.get(rec.rank, 0)
        if _CPP_FRAME.match(rec.text):
            self._frames[rec.rank] = folded + 1
            return folded < CPP_FRAMES_SHOWN
        if folded:
            del self._frames[rec.rank]
            above += self._fold_line(rec.rank, folded)
        return True

    def _folded(self) -> list[str]:
        """The counts of the stacks still open, closed now."""
        lines = [ln for rank, n in self._frames.items() for ln in self._fold_line(rank, n)]
        self._frames.clear()
        return lines

    def _fold_line(self, rank: int | None, frames: int) -> list[str]:
        hidden = frames - CPP_FRAMES_SHOWN
        if hidden <= 0:
            return []
        line = OutLine(f"  ... {hidden} more C++ frames (every one is in the log)", rank)
        return [line.render(self.template)]

    def say(self, text: str) -> str:
        """launchx's own message (one or more lines), always from a fresh line, after the
        count of a C++ stack that ended a rank's output (not after launchx's verdict)."""
        body = "".join(line + "\n" for line in self._folded()) + (
            text if text.endswith("\n") else text + "\n"
        )
        return self._redraw(self._region(), body) if self.tty else body

    def status(self, rows: Iterable[str], width: int = 0) -> str:
        """Pin ``rows`` under the output (a terminal only; empty rows: remove them)."""
        if not self.tty:
            return ""
        before = self._region()
        self.width = width or self.width
        self._status = tuple(rows)
        return "" if self._region() == before else self._redraw(before, "")

    def end(self) -> str:
        """Before launchx prints its summary: the status goes, the live line stays, and a
        C++ stack that was the last of its rank's output is counted."""
        before = self._region()
        live = self._live
        self._live, self._status = None, ()
        tail = "".join(line + "\n" for line in self._folded())
        if not before:
            return tail
        return self._erase(before) + tail + (self._fit(live) + "\n" if live is not None else "")

    def _region(self) -> list[str]:
        rows = [] if self._live is None else [self._live]
        return [self._fit(row) for row in [*rows, *self._status]]

    def _fit(self, row: str) -> str:
        """A row of the region never wraps (a wrapped row would be miscounted on erase):
        colour codes and control characters are dropped, wide characters count two."""
        if self.width <= 1:
            return row
        room = self.width - 1
        out: list[str] = []
        for ch in _ESCAPE.sub("", row).replace("\t", " "):
            if not ch.isprintable():
                continue
            cells = 0 if unicodedata.combining(ch) else 2 if _wide(ch) else 1
            if cells > room:
                break
            out.append(ch)
            room -= cells
        return "".join(out)

    @staticmethod
    def _erase(region: list[str]) -> str:
        """From the end of the region's last row: back to its first row, erase below."""
        if not region:
            return ""
        return "\r" + "\x1b[A" * (len(region) - 1) + "\x1b[J"

    def _redraw(self, before: list[str], above: str) -> str:
        region = self._region()
        return self._erase(before) + above + "\n".join(region)

    def _bar_due(self, now: float | None) -> bool:
        if now is None or self.bar_every_s is None:
            return False
        if self._bar_at is None:
            self._bar_at = now
            return False
        if now - self._bar_at < self.bar_every_s:
            return False
        self._bar_at = now
        return True
