"""Read PyTorch flight-recorder dumps and name the rank missing from a collective.

Each rank's dump (``TORCH_FR_DUMP_TEMP_FILE`` + rank: a pickle, or the JSON of
``_dump_fr_trace_json``) lists its last collectives per process group and
``pg_status`` {last enqueued, started, completed}. Ranks that enqueued collective #S and
have not completed it wait in it; a member whose last enqueued is below S never joined.

Format facts (torch 2.13, measured on gloo; reference hangs.md §4): version "2.10";
entries carry ``pg_id``, ``process_group`` (name, desc), ``collective_seq_id``,
``profiling_name`` (``gloo:all_reduce``), ``state``, ``retired``, ``input_sizes``,
``frames`` [{name, filename, line}]. Gloo never marks an entry ``completed`` (no events):
``retired`` and ``pg_status`` are what count. Gloo dumps also name their group ``''`` in
``pg_config`` while the entries say ``('0', 'default_pg')`` (the quirk that crashes
``torchfrtrace``), so groups are keyed by ``pg_id`` and members read from whichever
``pg_config`` entry matches, else the dumps present.

A dump is data from a file the user points at: it is unpickled with every global refused
(only dicts, lists, tuples, strings and numbers come back), never with ``pickle.load``.
"""

from __future__ import annotations

import io
import json
import pickle
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from launchx.collectives import ranges
from launchx.diagnosis import Straggler

_RANK_IN_NAME = re.compile(r"(\d+)(?:\.json|\.pkl|\.pickle)?$")
MAX_BYTES = 64 << 20


class NotADump(ValueError):
    """The bytes are not a flight-recorder dump."""


@dataclass(frozen=True)
class Frame:
    name: str
    filename: str
    line: int

    def short(self) -> str:
        return f"{self.filename.rsplit('/', 1)[-1]}:{self.line} {self.name}"


@dataclass(frozen=True)
class Entry:
    pg: str
    seq: int
    op: str
    retired: bool
    state: str
    sizes: str
    frames: tuple[Frame, ...]

    def call_site(self) -> Frame | None:
        """The innermost frame outside torch itself: the user's line."""
        for fr in self.frames:
            if "/torch/" not in fr.filename and "site-packages" not in fr.filename:
                return fr
        return None


@dataclass(frozen=True)
class Dump:
    rank: int
    source: str
    status: Mapping[str, tuple[int, int]]  # pg id -> (last enqueued, last completed)
    members: Mapping[str, tuple[int, ...]]  # pg id -> ranks, where the dump says
    names: Mapping[str, str]  # pg id -> name ("default_pg")
    entries: tuple[Entry, ...]


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> type:
        raise pickle.UnpicklingError(f"a flight-recorder dump holds no {module}.{name}")


def rank_from_name(name: str) -> int | None:
    m = _RANK_IN_NAME.search(name)
    return int(m.group(1)) if m else None


def looks_like_dump(head: bytes) -> bool:
    """From the first bytes of a file: a pickle, or JSON with the dump's keys."""
    if head[:1] == b"\x80":
        return True
    start = head.lstrip()[:1]
    return start == b"{" and (b'"pg_status"' in head or b'"pg_config"' in head)


def parse(data: bytes, rank: int, source: str) -> Dump:
    """One rank's dump; raises ``NotADump`` for anything else."""
    doc: object
    try:
        if data[:1] == b"\x80":
            doc = _PlainUnpickler(io.BytesIO(data)).load()
        else:
            doc = json.loads(data.decode("utf-8"))
    except (
        pickle.UnpicklingError,
        ValueError,
        EOFError,
        UnicodeDecodeError,
        RecursionError,
    ) as exc:
        raise NotADump(str(exc)) from None
    except Exception as exc:  # a hostile pickle can raise anything while being decoded
        raise NotADump(type(exc).__name__) from None
    if not isinstance(doc, dict) or "entries" not in doc:
        raise NotADump("no 'entries'")
    entries = tuple(e for e in map(_entry, _list(doc.get("entries"))) if e is not None)
    status: dict[str, tuple[int, int]] = {}
    for pg, st in _dict(doc.get("pg_status")).items():
        s = _dict(st)
        status[str(pg)] = (
            _int(s.get("last_enqueued_collective"), -1),
            _int(s.get("last_completed_collective"), -1),
        )
    for e in entries:  # older dumps have no pg_status
        enq, comp = status.get(e.pg, (-1, -1))
        status.setdefault(e.pg, (enq, comp))
        status[e.pg] = (max(enq, e.seq), max(comp, e.seq) if e.retired else comp)
    names = {e.pg: _pg_name(doc, e) for e in entries}
    members = _members(doc, names)
    return Dump(rank, source, status, members, names, entries)


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _dict(value: object) -> dict[object, object]:
    return value if isinstance(value, dict) else {}


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _entry(raw: object) -> Entry | None:
    e = _dict(raw)
    seq = e.get("collective_seq_id")
    if not isinstance(seq, int) or e.get("is_p2p") is True:
        return None
    pg = e.get("pg_id")
    group = e.get("process_group")
    if not isinstance(pg, int) and isinstance(group, (list, tuple)) and group:
        pg = group[0]
    frames = tuple(
        Frame(str(f.get("name", "")), str(f.get("filename", "")), _int(f.get("line"), 0))
        for f in map(_dict, _list(e.get("frames")))
    )
    return Entry(
        pg=str(pg if pg is not None else "0"),
        seq=seq,
        op=str(e.get("profiling_name", "")),
        retired=bool(e.get("retired", False)) or e.get("state") == "completed",
        state=str(e.get("state", "")),
        sizes=str(e.get("input_sizes", "")),
        frames=frames,
    )


def _pg_name(doc: dict[object, object], e: Entry) -> str:
    for raw in _list(doc.get("entries")):
        d = _dict(raw)
        group = d.get("process_group")
        if str(d.get("pg_id")) == e.pg and isinstance(group, (list, tuple)) and len(group) > 1:
            return str(group[1])
    return e.pg


def _members(doc: dict[object, object], names: Mapping[str, str]) -> dict[str, tuple[int, ...]]:
    out: dict[str, tuple[int, ...]] = {}
    configs = _dict(doc.get("pg_config"))
    for key, cfg in configs.items():
        c = _dict(cfg)
        ranks = tuple(int(x) for x in re.findall(r"\d+", str(c.get("ranks", ""))))
        for pg, name in names.items():
            if str(key) in (pg, name) or c.get("desc") == name or c.get("name") == pg:
                out[pg] = ranks
    if not out and len(configs) == 1 and len(names) == 1:  # gloo: pg_config keyed ''
        (cfg,) = configs.values()
        (pg,) = names
        out[pg] = tuple(int(x) for x in re.findall(r"\d+", str(_dict(cfg).get("ranks", ""))))
    return out


# --------------------------------------------------------------------------- analysis


def stragglers(dumps: Sequence[Dump]) -> list[Straggler]:
    """Per process group: the ranks that never joined the newest collective some members
    wait in, or whose dump is missing while the others wait."""
    out: list[Straggler] = []
    groups = sorted({pg for d in dumps for pg in d.status})
    for pg in groups:
        found = _group(pg, [d for d in dumps if pg in d.status])
        if found is not None:
            out.append(found)
    return out


def _group(pg: str, dumps: list[Dump]) -> Straggler | None:
    enq = {d.rank: d.status[pg][0] for d in dumps}
    comp = {d.rank: d.status[pg][1] for d in dumps}
    top = max(enq.values())
    waiting = sorted(r for r in enq if enq[r] == top and comp[r] < top)
    if not waiting:
        return None
    behind = sorted(r for r in enq if enq[r] < top)
    members: set[int] = set()
    for d in dumps:
        members.update(d.members.get(pg, ()))
    absent = sorted(members - set(enq))
    name = next((d.names[pg] for d in dumps if pg in d.names), pg)
    entry = _entry_at(dumps, waiting[0], pg, top)
    op = entry.op if entry else None
    what = f"collective #{top}" + (f" ({op})" if op else "")
    site = entry.call_site() if entry else None
    at = f" at {site.short()}" if site else ""
    where = next((d.source for d in dumps if d.rank == (behind or waiting)[0]), "")
    if behind:
        lasts = []
        for r in behind:
            last = _entry_at(dumps, r, pg, enq[r])
            last_site = last.call_site() if last else None
            lasts.append(
                f"rank {r} was last in #{enq[r]}" + (f" ({last_site.short()})" if last_site else "")
            )
        text = (
            f"{_ranks(behind)} never joined {what} of group {name} that {_ranks(waiting)} "
            f"waited in{at}; " + "; ".join(lasts) + "."
        )
        return Straggler(
            "flight_recorder", "behind", tuple(behind), tuple(waiting), top, op, name, text, where
        )
    if absent:
        text = (
            f"{_ranks(waiting)} waited in {what} of group {name}{at}; {_ranks(absent)} left "
            "no flight-recorder dump (dead, or never reached the dump)."
        )
        return Straggler(
            "flight_recorder", "silent", tuple(absent), tuple(waiting), top, op, name, text, where
        )
    return None


def _entry_at(dumps: Iterable[Dump], rank: int, pg: str, seq: int) -> Entry | None:
    for d in dumps:
        if d.rank == rank:
            return next((e for e in d.entries if e.pg == pg and e.seq == seq), None)
    return None


def _ranks(ranks: Sequence[int]) -> str:
    return f"rank {ranks[0]}" if len(ranks) == 1 else f"ranks {ranges(ranks)}"
