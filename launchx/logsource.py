"""Find the logs of a run and what their places say: rank, node, host, attempt.

``launchx diagnose PATH...`` takes files, directories (read recursively) or ``-`` for
stdin. A directory is read generically; the names that carry meaning:

- launchx's run log dir: ``attempt-N/rank-R.log``, ``attempt-N/launcher.log``,
  ``events.jsonl`` (one JSON object per line: ``{"ts", "event", "attempt", ...}``);
- torchrun's ``--log-dir``: ``<run id>_<random>/attempt_N/<local rank>/{stdout,stderr}.log``
  and ``error.json``, under ``node-K``/``node_K`` directories for several nodes;
- any name with ``rank-R``/``rank_R``/``rankR`` (the rank), ``node-K`` (the node),
  ``attempt-N``/``attempt_N`` (the attempt);
- SLURM's ``%t``/``%N`` outputs: sibling files whose names differ in one field; a field
  holding 0..n-1 is the task (rank) number, any other the host name;
- flight-recorder dumps (``TORCH_FR_DUMP_TEMP_FILE`` + rank: a pickle, or their JSON),
  recognised by their content.

Binary files inside a directory (checkpoints, core dumps) are skipped; a binary file named
on the command line, a missing or unreadable path, or a directory without a single log is
a ``LaunchxError`` (exit 2, one message).
"""

from __future__ import annotations

import os
import re
import socket
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate
from pathlib import Path
from typing import BinaryIO, cast

from launchx import anchorfind, failures, flightrec, logdecode, logscan, runview
from launchx.diagnosis import Report
from launchx.errors import LaunchxError
from launchx.logscan import SourceInfo
from launchx.rulematch import RetryPolicyLike

_SNIFF = 8192
_ATTEMPT = re.compile(r"^attempt[-_]?(\d+)$")
_NODE = re.compile(r"(?:^|[-_./])node[-_]?(\d+)(?:$|[-_./])")
_RANK = re.compile(r"(?:^|[-_./])rank[-_]?(\d+)(?:$|[-_./])")
_TORCHRUN_STREAM = re.compile(r"^(?:stdout|stderr)\.log$")
_LAUNCHER = re.compile(r"^launcher(?:[-_.].*)?\.log$")
_EVENTS = "events.jsonl"
_MAX_EVENTS_BYTES = 16 << 20
_FIELDS = re.compile(r"\d+|\D+")
_STRIDE = 1 << 32


@dataclass(frozen=True)
class LogFile:
    """A text log to scan; ``path`` None is stdin."""

    path: Path | None
    info: SourceInfo


@dataclass(frozen=True)
class DumpFile:
    path: Path
    rank: int
    attempt: int | None


@dataclass(frozen=True)
class ErrorFile:
    path: Path
    rank: int
    attempt: int | None


@dataclass(frozen=True)
class Found:
    logs: tuple[LogFile, ...]
    dumps: tuple[DumpFile, ...] = ()
    events: tuple[Path, ...] = ()
    error_files: tuple[ErrorFile, ...] = ()
    skipped: tuple[str, ...] = ()  # binary or unreadable files inside directories


def discover(paths: Sequence[str]) -> Found:
    """Every log, dump and events file under ``paths`` ("-" is stdin), with what its place
    says. Raises ``LaunchxError`` for a path that cannot be used."""
    logs: list[LogFile] = []
    dumps: list[DumpFile] = []
    events: list[Path] = []
    errors: list[ErrorFile] = []
    skipped: list[str] = []
    for name in paths or ["-"]:
        if name == "-":
            logs.append(LogFile(None, SourceInfo(name="<stdin>")))
            continue
        if not name.strip():
            # an unset variable in `launchx diagnose "$LOG_DIR"`: not this directory
            raise LaunchxError(
                "an empty path was given",
                "pass the run's log directory, the log files, or - for stdin",
            )
        path = Path(name)
        if path.is_dir():
            before = len(logs) + len(dumps) + len(events) + len(errors)
            _walk(path, logs, dumps, events, errors, skipped)
            if len(logs) + len(dumps) + len(events) + len(errors) == before:
                raise LaunchxError(
                    f"no log files under {name!r}"
                    + (f" ({len(skipped)} binary or unreadable files skipped)" if skipped else ""),
                    "pass the run's log directory (launchx run --log-dir, torchrun --log-dir) "
                    "or the log files themselves",
                )
            continue
        if path.is_fifo():
            # a pipe (`launchx diagnose <(kubectl logs ...)`) or a named FIFO: read once, as
            # stdin is, for sniffing it first would consume what it holds (a device is
            # sniffed like a file: /dev/zero is refused as binary, not read for ever)
            logs.append(LogFile(path, _info(path, path.name, {})))
            continue
        kind = _kind(path, explicit=True)
        if kind == "dump":
            dumps.append(_dump(path, path.name, None))
        elif kind == "events":
            events.append(path)
        else:
            logs.append(LogFile(path, _info(path, path.name, {})))
    return Found(tuple(logs), tuple(dumps), tuple(events), tuple(errors), tuple(skipped))


def _kind(path: Path, explicit: bool) -> str | None:
    """ "log", "dump", "events" or "error_file"; None for a binary file in a directory."""
    try:
        with path.open("rb") as fh:
            head = _sniff(logdecode.decoded(fh))
    except OSError as exc:
        if not explicit:
            return None
        raise LaunchxError(
            f"cannot read log {str(path)!r}: {exc.strerror or exc}",
            "pass an existing, readable log file or directory, or '-' for stdin",
        ) from None
    # (a compressed run directory's events.jsonl.gz and error.json.gz mean what they hold)
    name = logdecode.plain_name(path.name)
    if name == _EVENTS:
        return "events"
    if flightrec.looks_like_dump(head) and flightrec.rank_from_name(path.name) is not None:
        return "dump"
    if name == "error.json" and head.lstrip().startswith(b"{"):
        return "error_file"
    if _binary(head):
        if explicit:
            raise LaunchxError(
                f"{str(path)!r} is a binary file, not a log",
                "pass the text log (stdout/stderr of the run), or its directory",
            )
        return None
    return "log"


def _text_stdin(stdin: BinaryIO | None) -> BinaryIO:
    """stdin, refused as a file is when it is binary (``cat model.bin | launchx diagnose -``),
    or closed (None: a process started with no fd 0, ``launchx diagnose <&-``)."""
    if stdin is None:
        raise LaunchxError(
            "<stdin> is closed: there is no log to read from it",
            "pass the log files or the run's log directory, or pipe the log into "
            "launchx diagnose -",
        )
    try:
        text = logdecode.decoded(stdin)
        head = _sniff(text)
    except OSError as exc:
        raise LaunchxError(
            f"cannot read <stdin>: {exc.strerror or exc}",
            "pipe in the text log (stdout/stderr of the run), or pass its file or directory",
        ) from None
    if _binary(head):
        raise LaunchxError(
            "<stdin> is binary data, not a log",
            "pipe in the text log (stdout/stderr of the run), or pass its file or directory",
        )
    return cast(BinaryIO, logdecode.HeadThen(head, text))


# A run of NUL bytes in a text log is padding, not data: what logrotate's copytruncate, or a
# node that crashed while its log on a network file system was being extended, leaves
# behind. Single NULs among other bytes are a binary file's.
_NUL_PADDING = re.compile(rb"\x00{16,}")
_MAX_PADDING = 256 << 20
# bytes a text log does not hold (tabs, line ends, a terminal's ESC, BS and BEL aside)
_CONTROL = re.compile(rb"[\x01-\x06\x0e-\x1a\x1c-\x1f\x7f]")


def _sniff(fh: BinaryIO) -> bytes:
    """The first bytes to tell a text log by: after the NUL padding at its front, which is
    as long as the log was when logrotate's copytruncate cut it (megabytes), with one run of
    NULs left in its place, so the padding is still told from a text's start. Read up to
    ``_MAX_PADDING`` bytes of it: a zeroed file or /dev/zero is binary there."""
    head = fh.read(_SNIFF)
    skipped = 0
    while head and not head.strip(b"\x00") and skipped < _MAX_PADDING:
        skipped += len(head)
        head = fh.read(_SNIFF)
    if not skipped:
        return head
    text = head.lstrip(b"\x00")
    while text and len(text) < _SNIFF and (more := fh.read(_SNIFF - len(text))):
        text += more
    return b"\x00" * 16 + text


def _binary(head: bytes) -> bool:
    text_part = _NUL_PADDING.sub(b"", head)
    if b"\x00" in text_part or (len(text_part) < len(head) and not text_part.strip()):
        return True  # (scattered NULs, or nothing but NULs: /dev/zero, a zeroed file)
    controls = len(_CONTROL.findall(text_part))
    if controls >= 3 and controls > len(text_part) // 50:
        return True  # (a binary header that the padding hid: "\x7fELF\x02\x01...")
    head = text_part
    text = head.decode("utf-8", errors="replace")
    bad = text.count("\ufffd")
    return bad > 16 and bad > len(text) // 20


def _walk(
    root: Path,
    logs: list[LogFile],
    dumps: list[DumpFile],
    events: list[Path],
    errors: list[ErrorFile],
    skipped: list[str],
) -> None:
    files = sorted(_files(root))
    hints = _sibling_hints(root, files)
    for path in files:
        rel = path.relative_to(root).as_posix()
        kind = _kind(path, explicit=False)
        if kind is None:
            skipped.append(rel)
        elif kind == "events":
            events.append(path)
        elif kind == "dump":
            dumps.append(_dump(path, rel, _attempt_of(rel)))
        elif kind == "error_file":
            info = _info(path, rel, hints)
            if info.rank is not None:
                errors.append(ErrorFile(path, info.rank, info.attempt))
        else:
            logs.append(LogFile(path, _info(path, rel, hints)))
    _number_torchrun_nodes(logs)


def _files(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root, onerror=None, followlinks=False):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__pycache__"]
        for f in filenames:
            if not f.startswith("."):
                p = Path(dirpath) / f
                if p.is_file():
                    yield p


def _dump(path: Path, rel: str, attempt: int | None) -> DumpFile:
    rank = flightrec.rank_from_name(path.name)
    return DumpFile(path, rank if rank is not None else -1, attempt)


def _attempt_of(rel: str) -> int | None:
    for part in rel.split("/")[:-1]:
        if m := _ATTEMPT.match(part):
            return int(m.group(1))
    return None


def _info(path: Path, rel: str, hints: dict[str, tuple[int | None, str | None]]) -> SourceInfo:
    parts = rel.split("/")
    attempt = _attempt_of(rel)
    node_m = _NODE.search("/" + "/".join(parts) + "/")
    node = int(node_m.group(1)) if node_m else None
    rank_m = _RANK.search("/" + parts[-1].lower())
    rank = int(rank_m.group(1)) if rank_m else None
    local: int | None = None
    name = logdecode.plain_name(parts[-1])
    launcher = bool(_LAUNCHER.match(name))
    torchrun_file = _TORCHRUN_STREAM.match(name) or name == "error.json"
    if torchrun_file and len(parts) >= 3 and parts[-2].isdigit() and _ATTEMPT.match(parts[-3]):
        local = int(parts[-2])
    host: str | None = None
    if rel in hints:
        task, host = hints[rel]
        rank = task if rank is None else rank
    return SourceInfo(
        name=rel,
        rank=rank if rank is not None else local,
        local_rank=local,
        node=node,
        host=host,
        attempt=attempt,
        launcher=launcher,
    )


def _number_torchrun_nodes(logs: list[LogFile]) -> None:
    """torchrun's per-node dirs hold local ranks: with ``node-K`` above them the global rank
    is K * nproc + local; several nodes without it leave the rank to the lines' prefixes."""
    local_logs = [lf for lf in logs if lf.info.local_rank is not None]
    if not local_logs:
        return
    nproc = max(lf.info.local_rank or 0 for lf in local_logs) + 1
    roots = {_torchrun_root(lf) for lf in local_logs}
    nodes_known = all(lf.info.node is not None for lf in local_logs)
    for i, lf in enumerate(logs):
        info = lf.info
        if info.local_rank is None:
            continue
        if nodes_known and info.node is not None:
            rank: int | None = info.node * nproc + info.local_rank
        elif len(roots) == 1:
            rank = info.local_rank
        else:
            rank = None
        logs[i] = replace(lf, info=replace(info, rank=rank))


def _torchrun_root(lf: LogFile) -> str:
    parts = lf.info.name.split("/")
    return "/".join(parts[:-3])


def _sibling_hints(root: Path, files: Sequence[Path]) -> dict[str, tuple[int | None, str | None]]:
    """SLURM-style per-task/per-node outputs: files in one directory whose names split into
    the same fields and differ in exactly one. 0..n-1 there is the task number (the rank
    when srun starts one task per rank); anything else names the host."""
    by_dir: dict[Path, list[Path]] = defaultdict(list)
    for f in files:
        by_dir[f.parent].append(f)
    out: dict[str, tuple[int | None, str | None]] = {}
    for group in by_dir.values():
        shapes: dict[tuple[int, str], list[tuple[Path, list[str]]]] = defaultdict(list)
        for f in group:
            if _RANK.search("/" + f.name.lower()) or _TORCHRUN_STREAM.match(f.name):
                continue
            if _LAUNCHER.match(f.name):  # launchx's launcher-node-K.log: a node, not a task
                continue
            fields = _FIELDS.findall(f.name)
            shape = "".join("#" if x.isdigit() else "a" for x in fields)
            shapes[(len(fields), shape)].append((f, fields))
        for members in shapes.values():
            if len(members) < 2:
                continue
            varying = [i for i in range(len(members[0][1])) if len({m[1][i] for m in members}) > 1]
            if len(varying) != 1:
                continue
            (i,) = varying
            values = [m[1][i] for m in members]
            numbers = sorted(int(v) for v in values) if all(v.isdigit() for v in values) else []
            is_task = numbers == list(range(len(numbers))) and len(numbers) == len(members)
            tokens = [_host_token(fields, i) for _f, fields in members]
            # a cluster names its nodes with a word and a number: names that differ only
            # in words ("nccl.log", "train.log") are a run's different logs, and numbers
            # alone that are no ranks 0..N-1 ("slurm-100.out", "slurm-101.out") are jobs
            # (hosts named without a digit, "frodo.log", are not told apart from logs)
            if not is_task and not all(_names_a_node(t) for t in tokens):
                continue
            for (f, _fields), v, token in zip(members, values, tokens, strict=True):
                rel = f.relative_to(root).as_posix()
                out[rel] = (int(v), None) if is_task else (None, token)
    return out


def _names_a_node(token: str) -> bool:
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


# Words of a SLURM output's name around the host (%x, %j and %N: "slurm-78-gpu-node-07.out")
# that are no part of it
_NOT_HOST = frozenset({"slurm", "job", "log", "logs", "out", "err", "output", "stdout", "stderr"})


def _host_token(fields: Sequence[str], i: int) -> str:
    """The host-name part of a file name around its varying field (``node`` + ``07``): the
    '-'-joined words around it (``gpu-node-07``), short of a number alone (a job id, as
    in ``slurm-78-lxnode2``) or a word such as ``slurm``."""
    text = "".join(fields)
    at = sum(len(f) for f in fields[:i])
    word = next((m for m in re.finditer(r"[A-Za-z0-9-]+", text) if m.end() > at), None)
    if word is None:
        return ""
    parts = word.group().split("-")
    starts = accumulate((len(p) + 1 for p in parts[:-1]), initial=word.start())
    k = max((n for n, start in enumerate(starts) if start <= at), default=0)

    def host_part(n: int) -> bool:
        part = parts[n]
        return bool(part) and not part.isdigit() and part.lower() not in _NOT_HOST

    lo, hi = k, k
    while lo > 0 and host_part(lo - 1):
        lo -= 1
    while hi < len(parts) - 1 and host_part(hi + 1):
        hi += 1
    return "-".join(parts[lo : hi + 1])


# --------------------------------------------------------------------------- reading


def read_events(path: Path) -> list[dict[str, object]]:
    """The run's events (``run.events``' reader, capped); an events file that cannot be
    read leaves the logs to speak alone."""
    from launchx.run import events

    try:
        return events.parse_events(_read_decoded(path, _MAX_EVENTS_BYTES))
    except OSError:
        return []


def _read_decoded(path: Path, limit: int) -> bytes:
    """The first ``limit`` bytes of a file's text (``events.jsonl.gz`` as ``events.jsonl``;
    a decoded stream's reads may come short of what was asked)."""
    chunks: list[bytes] = []
    with path.open("rb") as fh:
        text = logdecode.decoded(fh)
        while limit > 0 and (chunk := text.read(min(limit, 1 << 20))):
            chunks.append(chunk)
            limit -= len(chunk)
    return b"".join(chunks)


def read_dump(df: DumpFile, name: str | None = None) -> flightrec.Dump | None:
    try:
        with df.path.open("rb") as fh:
            data = fh.read(flightrec.MAX_BYTES)
        return flightrec.parse(data, df.rank, name or df.path.name)
    except (OSError, flightrec.NotADump):
        return None


def _scan_logs(
    logs: Sequence[LogFile], stdin: BinaryIO | None
) -> tuple[list[logscan.SourceScan], list[str]]:
    """Each log's scan, and a note for each compressed one read only up to where its data
    was cut short or damaged."""
    # only regular files go to the helper: it reads each file again, and a FIFO read twice
    # would split its data between the two readers
    # (none where Hyperscan finds every anchor in one pass: a helper would cost more than it
    # saves)
    regular = [
        n
        for n, lf in enumerate(logs)
        if lf.path is not None and lf.path.is_file() and not _encoded(lf.path)
    ]
    helper = (
        None
        if logscan.one_pass_search() is not None
        else anchorfind.start([str(logs[n].path) for n in regular], logscan.FAR_ANCHORS)
    )
    views = {n: helper.view(k) for k, n in enumerate(regular)} if helper is not None else {}
    scans = []
    notes: list[str] = []
    try:
        for n, lf in enumerate(logs):
            base = n * _STRIDE
            try:
                if lf.path is None:
                    text = _text_stdin(stdin)
                    scans.append(logscan.scan_stream(text, lf.info, base_index=base))
                else:
                    view = views.get(n)
                    with lf.path.open("rb") as fh:
                        text = logdecode.decoded(fh)
                        scans.append(logscan.scan_stream(text, lf.info, base_index=base, far=view))
                if (damage := logdecode.damage_of(text)) is not None:
                    notes.append(f"{lf.info.name}: {damage}")
            except OSError as exc:
                raise LaunchxError(
                    f"cannot read log {str(lf.path or lf.info.name)!r}: {exc.strerror or exc}",
                    "pass an existing, readable log file or directory, or '-' for stdin",
                ) from None
    finally:
        if helper is not None:
            helper.close()
    return scans, notes


def _encoded(path: Path) -> bool:
    """Whether the file at ``path`` is read through a decoder (the helper, reading its raw
    bytes, would find no lines); an unreadable one is left to its reader to report."""
    try:
        with path.open("rb") as fh:
            return logdecode.form_of(fh.read(logdecode.PEEK)) is not None
    except OSError:
        return False


def _blank(scan: logscan.SourceScan) -> bool:
    """Nothing but white space (a log whose run printed only empty lines, a pipe of them)."""
    return not (scan.tail or scan.lines or scan.entries)


def diagnose_paths(
    paths: Sequence[str], stdin: BinaryIO | None, policy: RetryPolicyLike | None = None
) -> Report:
    """Read every log, dump and event under ``paths`` and diagnose the run they belong to.
    Each log is streamed (bounded memory, whatever its size)."""
    found = discover(paths)
    scans, damaged = _scan_logs(found.logs, stdin)
    if (
        scans
        and not (found.dumps or found.events or found.error_files)
        and all(_blank(s) for s in scans)
    ):
        names = ", ".join(s.info.name for s in scans[:3]) + (" ..." if len(scans) > 3 else "")
        one = len(scans) == 1
        said = (
            ("is empty" if one else "are empty")
            if not any(s.bytes_read for s in scans)
            else ("holds" if one else "hold") + " no text, only blank lines"
        )
        raise LaunchxError(
            f"nothing to diagnose: {names} {said}",
            "pass the failed run's output (a file, its log directory, or a pipe into "
            "launchx diagnose -)",
        )
    n = len(scans)
    for ef in found.error_files:
        try:
            raw = _read_decoded(ef.path, _MAX_EVENTS_BYTES).decode("utf-8", errors="replace")
        except OSError:
            continue
        parsed = failures.parse_error_file(raw)
        if parsed is None:
            continue
        info = SourceInfo(name=_rel(ef.path, paths), rank=ef.rank, attempt=ef.attempt)
        scans.append(logscan.scan_text(parsed[0], info, base_index=n * _STRIDE))
        n += 1
    dumps = [
        (df.attempt, d)
        for df in found.dumps
        if (d := read_dump(df, _rel(df.path, paths))) is not None
    ]
    events = [ev for p in found.events for ev in read_events(p)]
    report = runview.analyse(scans, dumps=dumps, events=events, policy=policy)
    report = replace(report, running=_still_running(events))
    if (gone := _launchx_gone(events)) is not None:
        report = replace(report, notes=(*report.notes, gone))
    if found.skipped:
        shown = ", ".join(found.skipped[:3]) + (" ..." if len(found.skipped) > 3 else "")
        note = f"skipped {len(found.skipped)} binary or unreadable file(s): {shown}"
        report = replace(report, notes=(*report.notes, note))
    if damaged:
        report = replace(report, notes=(*report.notes, *damaged))
    return report


def _still_running(events: Sequence[Mapping[str, object]]) -> str | None:
    """How the run stands when node 0's launchx started it and has not ended it and is
    alive on this host: then no failure is the answer yet (``launchx status`` says more)."""
    from launchx.run.events import launchx_alive, open_run

    own = [dict(e) for e in events if e.get("node") in (None, 0)]
    start = open_run(own)
    # (on another host, what the logs hold so far is diagnosed: launchx status says more)
    if start is None or not launchx_alive(start, socket.gethostname()):
        return None
    since = own[next(i for i, e in enumerate(own) if e is start) :]
    attempts = [e.get("attempt") for e in since if e.get("event") == "attempt_start"]
    at = f"attempt {attempts[-1]}" if attempts else "its preflight or first attempt"
    return f"{at} has not ended, and its launchx (pid {start.get('pid')}) is alive"


def _launchx_gone(events: Sequence[Mapping[str, object]]) -> str | None:
    """A run node 0's launchx started on this host and never ended, and that launchx is no
    longer alive: it was killed (SIGKILL, the OOM killer) or its host went down, so no
    attempt's outcome was written, and a log with no failure in it is not the whole story."""
    from launchx.run.events import launchx_alive, open_run

    own = [dict(e) for e in events if e.get("node") in (None, 0)]
    start = open_run(own)
    if start is None or launchx_alive(start, socket.gethostname()) is not False:
        return None
    since = own[next(i for i, e in enumerate(own) if e is start) :]
    attempts = [e.get("attempt") for e in since if e.get("event") == "attempt_start"]
    ended = {e.get("attempt") for e in since if e.get("event") == "attempt_end"}
    open_attempts = [a for a in attempts if a not in ended]
    at = f"attempt {open_attempts[-1]} has no outcome" if open_attempts else "no run_end"
    return (
        f"the run's launchx (pid {start.get('pid')}) is gone without ending the run ({at}): "
        "it was killed (kill -9, the OOM killer) or its host went down, and its ranks with it; "
        "launchx status says when it was last heard"
    )


def _rel(path: Path, roots: Sequence[str]) -> str:
    for r in roots:
        try:
            return path.relative_to(r).as_posix()
        except ValueError:
            continue
    return path.name
