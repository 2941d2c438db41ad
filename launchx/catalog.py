"""The environment-variable catalog: what each variable means, and what is wrong with a value.

Facts live in ``launchx.catalog_data`` (checked against ``reference/env-vars.md``); this module
turns them into ``EnvVarSpec`` records and validates the final environment a job will get.
``check_env`` is pure: everything it knows comes from its two arguments, so every rule can be
tested with a hand-made ``HostFacts``.

Why errors and warnings are split where they are: an **error** means the reader would reject
the value, crash on it, or silently read something other than what is written (NCCL parses
``8M`` as 8 bytes, ``true`` as 0, ignores ``sys``; torch throws on ``TORCH_DISTRIBUTED_DEBUG=1``),
or the host cannot satisfy it (no such interface/HCA), so the run would not do what the line
says. A **warning** means it is read as written but does nothing, is deprecated, or is very
probably a mistake. **Info** is worth knowing and costs nothing to ignore.

Finding codes: LX1xx belongs to this module; each is registered, with its level and
meaning, in ``launchx.codes``.

``HOST_CODES`` are the ones that depend on ``HostFacts`` describing the machine the ranks run
on; drop them when checking from another machine (e.g. writing an sbatch script on a login
node). On torchrun's injected defaults: torchrun only injects ``TORCH_NCCL_ASYNC_ERROR_HANDLING``
(1 when unset) and ``OMP_NUM_THREADS`` (1 when unset), nothing about the flight recorder, so the
real interactions checked are LX136 (an old-name value torchrun silently overrides), LX134 and
LX135 (dump settings that cannot take effect).
"""

from __future__ import annotations

import ipaddress
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Literal, cast, get_args

from launchx import catalog_data as data
from launchx import codes
from launchx.codes import Level
from launchx.facts import HostFacts
from launchx.findings import Finding, sort_findings

Reader = Literal["nccl", "torch", "torchrun", "cuda", "omp", "slurm", "platform", "launchx"]
Status = Literal["ok", "deprecated", "renamed", "removed", "myth"]
VarType = Literal[
    "int",
    "intlist",
    "size",
    "float",
    "bool01",
    "bool-str",
    "bool-check",
    "int-flag",
    "enum",
    "enum-cs",
    "level",
    "iflist",
    "algolist",
    "protolist",
    "wordlist",
    "flags",
    "netdevs",
    "hostport",
    "cidr",
    "path",
    "abspath",
    "path-template",
    "alloc-conf",
    "cuda-devices",
    "nnodes",
    "nproc",
    "string",
    "none",
]


@dataclass(frozen=True)
class EnvVarSpec:
    """One known variable. ``allowed``/``min_value``/``max_value`` are what the reader accepts."""

    name: str
    reader: Reader
    type: VarType
    default: str = ""
    allowed: tuple[str, ...] = ()
    min_value: int | None = None
    max_value: int | None = None
    multiple_of: int | None = None
    purpose: str = ""
    status: Status = "ok"
    renamed_to: str | None = None
    use_instead: str | None = None
    note: str = ""
    secret: bool = False


CODES: Mapping[str, Level] = MappingProxyType(
    {code: level for code, level in codes.LEVELS.items() if code.startswith("LX1")}
)
HOST_CODES: frozenset[str] = frozenset(
    {"LX150", "LX151", "LX152", "LX153", "LX154", "LX155", "LX156", "LX157"}
)

# --- building the catalog from the data rows --------------------------------------------------

_RANGE = re.compile(r"^(-?\d*)\.\.(-?\d*)(?:/(\d+))?$")
_READER_ROWS: tuple[tuple[Reader, tuple[data.Var, ...]], ...] = (
    ("nccl", data.NCCL_ROWS),
    ("torch", data.TORCH_ROWS),
    ("torchrun", data.TORCHRUN_ROWS),
    ("cuda", data.CUDA_ROWS),
    ("omp", data.OMP_ROWS),
    ("slurm", data.SLURM_ROWS),
    ("platform", data.PLATFORM_ROWS),
    ("launchx", data.LAUNCHX_ROWS),
)


_VARTYPES = frozenset(get_args(VarType))
_READERS = frozenset(get_args(Reader))


def _vartype(text: str) -> VarType:
    if text not in _VARTYPES:
        raise ValueError(f"catalog_data: unknown type {text!r}")
    return cast(VarType, text)


def _reader(text: str) -> Reader:
    if text not in _READERS:
        raise ValueError(f"catalog_data: unknown reader {text!r}")
    return cast(Reader, text)


def _spec_from_row(reader: Reader, row: data.Var) -> EnvVarSpec:
    constraint = row.constraint
    lo = hi = step = None
    allowed: tuple[str, ...] = ()
    match = _RANGE.match(constraint)
    if match:
        lo = int(match.group(1)) if match.group(1) else None
        hi = int(match.group(2)) if match.group(2) else None
        step = int(match.group(3)) if match.group(3) else None
    elif constraint:
        allowed = tuple(constraint.split())
    return EnvVarSpec(
        name=row.name,
        reader=reader,
        type=_vartype(row.type),
        default=row.default,
        allowed=allowed,
        min_value=lo,
        max_value=hi,
        multiple_of=step,
        purpose=row.purpose,
    )


def _build() -> dict[str, EnvVarSpec]:
    specs: dict[str, EnvVarSpec] = {}
    for row_reader, rows in _READER_ROWS:
        for row in rows:
            specs[row.name] = _spec_from_row(row_reader, row)
    for name in data.NCCL_INTERNAL_INT:
        specs[name] = EnvVarSpec(name, "nccl", "int", purpose="Internal NCCL knob (undocumented)")
    for name in data.NCCL_INTERNAL_STR:
        specs[name] = EnvVarSpec(
            name, "nccl", "string", purpose="Internal NCCL setting (undocumented)"
        )
    for renamed in data.RENAMED:
        specs[renamed.old] = replace(
            specs[renamed.new],
            name=renamed.old,
            reader=_reader(renamed.reader),
            status="renamed",
            renamed_to=renamed.new,
            use_instead=renamed.new,
            note=renamed.note,
        )
    for gone in data.REMOVED:
        specs[gone.name] = EnvVarSpec(
            gone.name,
            _reader(gone.reader),
            "none",
            status="removed",
            renamed_to=gone.new_name or None,
            use_instead=gone.use_instead,
            note=gone.note,
            purpose="No longer read",
        )
    for old in data.DEPRECATED:
        specs[old.name] = replace(
            specs[old.name], status="deprecated", use_instead=old.use_instead, note=old.note
        )
    for myth in data.MYTHS:
        specs[myth.name] = EnvVarSpec(
            myth.name,
            _reader(myth.reader),
            "none",
            status="myth",
            use_instead=myth.use_instead,
            note=myth.note,
            purpose="Read by nothing that launchx starts",
        )
    return {n: replace(s, secret=True) if is_secret(n) else s for n, s in specs.items()}


# --- secrets and display ----------------------------------------------------------------------

_NOT_SECRET = frozenset(data.NOT_SECRET_NAMES)
_SECRET_NAMES = frozenset(data.SECRET_NAMES)
_URL_PASSWORD = re.compile(r"(://[^/\s:@]+:)[^/\s@]+@")


def is_secret(name: str) -> bool:
    """True for names that usually hold credentials; errs on the side of hiding."""
    upper = name.upper()
    if upper in _NOT_SECRET:
        return False
    if upper in _SECRET_NAMES or any(part in upper for part in data.SECRET_NAME_PARTS):
        return True
    # words too short to look for inside a name ("PAT" is in PATH): whole words only
    return any(word in data.SECRET_NAME_WORDS for word in upper.split("_"))


def redact(name: str, value: str) -> str:
    """The value as it may be printed: ``***`` for secrets, passwords in URLs masked."""
    if is_secret(name):
        return "***"
    return _URL_PASSWORD.sub(r"\1***@", value)


def legible(value: str) -> str:
    """The value quoted where printing it bare would hide what is wrong with it: a space at
    either end ("INFO " is no level NCCL knows, and reads as INFO on a terminal), a
    carriage return from an env file written on Windows, a tab, or nothing at all."""
    if value and value == value.strip() and value.isprintable():
        return value
    return repr(value)


CATALOG: Mapping[str, EnvVarSpec] = MappingProxyType(_build())
_OK_NAMES: tuple[str, ...] = tuple(
    sorted(n for n, s in CATALOG.items() if s.status in ("ok", "deprecated"))
)


def lookup(name: str) -> EnvVarSpec | None:
    return CATALOG.get(name)


def all_specs() -> tuple[EnvVarSpec, ...]:
    return tuple(CATALOG[n] for n in sorted(CATALOG))


def renamed_to(name: str) -> str | None:
    """The name the reader uses today for ``name``, so launchx can pass the value under it."""
    spec = CATALOG.get(name)
    return spec.renamed_to if spec else None


def is_distributed(name: str) -> bool:
    """Whether ``launchx explain`` shows this variable by default: a catalog name in the
    wrong case too (``nccl_debug=INFO``), which no reader sees and LX106 names."""
    return (
        name in CATALOG
        or name in data.DISTRIBUTED_NAMES
        or name.startswith(data.DISTRIBUTED_PREFIXES)
        or name.upper() in CATALOG
    )


def did_you_mean(name: str) -> str | None:
    """The closest catalog name still in use, when one is close enough to be a typo."""
    import difflib  # only needed when something is wrong; keeps import launchx.catalog cheap

    matches = difflib.get_close_matches(name.upper(), _OK_NAMES, n=1, cutoff=0.8)
    return matches[0] if matches else None


# --- NCCL interface lists (§1.2) --------------------------------------------------------------


@dataclass(frozen=True)
class IfList:
    """A parsed NCCL interface/HCA list: ``^`` excludes, ``=`` makes names exact."""

    exclude: bool
    exact: bool
    items: tuple[tuple[str, int | None], ...]

    def item_matches(
        self, item: tuple[str, int | None], name: str, port: int | None = None
    ) -> bool:
        want, want_port = item
        name_ok = name == want if self.exact else name.startswith(want)
        return name_ok and (want_port is None or port is None or want_port == port)

    def selects(self, name: str, port: int | None = None) -> bool:
        hit = any(self.item_matches(item, name, port) for item in self.items)
        return hit != self.exclude


def parse_iflist(value: str) -> IfList:
    """Parse like NCCL: prefixes only at the very start, ``^`` before ``=``; ports kept."""
    rest = value
    exclude = rest.startswith("^")
    if exclude:
        rest = rest[1:]
    exact = rest.startswith("=")
    if exact:
        rest = rest[1:]
    items: list[tuple[str, int | None]] = []
    for raw in rest.split(","):
        if not raw:
            continue
        name, _, port_text = raw.partition(":")
        port_field = port_text.split(":")[0]
        items.append((name, int(port_field) if port_field.isdigit() else None))
    return IfList(exclude, exact, tuple(items))


# --- value checks -----------------------------------------------------------------------------

_Issue = tuple[str, str, str]  # code, message (after "NAME=value: "), fix
_NCCL_CLEAN_INT = re.compile(r"[+-]?(0[xX][0-9a-fA-F]+|0|[1-9][0-9]*)")
_NCCL_OCTAL = re.compile(r"[+-]?0[0-7]+")
_STRTOLL = re.compile(r"\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)?")
_DECIMAL = re.compile(r"[+-]?[0-9]+")
_SUFFIXED = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*([kKmMgGtT])(?:i?[bB])?")
_PLACEHOLDER = re.compile(r"<[A-Za-z][A-Za-z0-9_ .\-]*>")
_TRUE_WORDS = frozenset({"true", "yes", "y", "t", "on"})
_FALSE_WORDS = frozenset({"false", "no", "n", "f", "off"})
_CVAR_BOOL = frozenset({"1", "0", "y", "n", "yes", "no", "t", "f", "true", "false"})
_NCCL_FUNCS = ("Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce")
_LEVEL_INTS = ("LOC", "PIX", "PXB", "PHB", "SYS")
_SYNONYMS: Mapping[str, str] = MappingProxyType(
    {
        "ERROR": "WARN",
        "ERR": "WARN",
        "WARNING": "WARN",
        "DEBUG": "INFO",
        "VERBOSE": "INFO",
        "1": "INFO",
        "TRUE": "INFO",
        "ON": "INFO",
        "YES": "INFO",
        "0": "OFF",
        "FALSE": "OFF",
        "NONE": "OFF",
    }
)
_LOGGING_LEVELS: Mapping[str, str] = MappingProxyType(
    {"0": "NOTSET", "10": "DEBUG", "20": "INFO", "30": "WARNING", "40": "ERROR", "50": "CRITICAL"}
)
_READER_WORDS: Mapping[str, str] = MappingProxyType({"nccl": "NCCL", "cuda": "CUDA"})
_DEBUG_AT_LEAST_WARN = frozenset({"WARN", "INFO", "ABORT", "TRACE"})


def _strtoll(text: str) -> int:
    """What C's ``strtoll(text, NULL, 0)`` returns (NCCL's integer parser)."""
    match = _STRTOLL.match(text)
    sign, digits = (match.group(1), match.group(2)) if match else ("", None)
    if not digits:
        return 0
    if digits[:2].lower() == "0x":
        number = int(digits, 16)
    elif digits.startswith("0"):
        number = int(digits, 8)
    else:
        number = int(digits)
    return -number if sign == "-" else number


def _int_value(spec: EnvVarSpec, value: str) -> tuple[int | None, list[_Issue]]:
    """The integer the reader sees, or an issue saying what it sees instead."""
    if spec.reader == "nccl":
        clean = _NCCL_CLEAN_INT.fullmatch(value)
        reads = int(value, 0) if clean else _strtoll(value)
        if not -(2**63) <= reads < 2**63:  # strtoll's ERANGE, whatever follows the digits
            return None, [
                (
                    "LX114",
                    "does not fit a 64-bit integer: NCCL ignores it and keeps its default "
                    f"({spec.default})",
                    f"unset {spec.name}, or write the number you meant",
                )
            ]
        if clean:
            return reads, []
        if spec.type == "size" and _SUFFIXED.fullmatch(value):
            return None, [_suffix_issue(spec, value)]
        why = "as octal" if _NCCL_OCTAL.fullmatch(value) else "with strtoll"
        return None, [
            (
                "LX110",
                f"NCCL parses integers {why}, so this is read as {reads}",
                f"write {spec.name} as a plain decimal integer",
            )
        ]
    if _DECIMAL.fullmatch(value):
        return int(value), []
    if spec.type == "size" and _SUFFIXED.fullmatch(value):
        return None, [_suffix_issue(spec, value)]
    return None, [
        (
            "LX110",
            f"{spec.reader} expects an integer here",
            f"write {spec.name} as a plain decimal integer",
        )
    ]


def _suffix_issue(spec: EnvVarSpec, value: str) -> _Issue:
    match = _SUFFIXED.fullmatch(value)
    assert match is not None
    power = "KMGT".index(match.group(2).upper()) + 1
    size = int(float(match.group(1)) * 1024**power)
    return (
        "LX111",
        f"sizes are plain byte counts; NCCL reads this as {_strtoll(value)} bytes",
        f"{spec.name}={size}",
    )


def _range_issues(spec: EnvVarSpec, number: int) -> list[_Issue]:
    lo, hi, step = spec.min_value, spec.max_value, spec.multiple_of
    bad_step = step is not None and number % step != 0
    if (lo is None or number >= lo) and (hi is None or number <= hi) and not bad_step:
        return []
    bounds = f"{'' if lo is None else lo}..{'' if hi is None else hi}"
    extra = f", a multiple of {step}" if step else ""
    return [
        (
            "LX114",
            f"out of range {bounds}{extra} (the reader clamps, ignores or rejects it)",
            f"set {spec.name} within {bounds}{extra}, or unset it (default {spec.default})",
        )
    ]


def _check_int(spec: EnvVarSpec, value: str) -> list[_Issue]:
    number, issues = _int_value(spec, value)
    return issues if number is None else _range_issues(spec, number)


def _check_intlist(spec: EnvVarSpec, value: str) -> list[_Issue]:
    """OpenMP thread lists: ``4`` or, for nested parallelism, ``4,2``."""
    for item in value.split(","):
        issues = _check_int(spec, item.strip())
        if issues:
            return issues
    return []


def _check_float(spec: EnvVarSpec, value: str) -> list[_Issue]:
    try:
        float(value)
    except ValueError:
        return [("LX110", "not a number", f"write {spec.name} as a decimal number, e.g. 0.1")]
    return []


def _bool_word_issue(spec: EnvVarSpec, value: str, accepts: str) -> list[_Issue]:
    word = value.strip().lower()
    if word in _FALSE_WORDS:
        return [
            (
                "LX109",
                f"{_who(spec)} accepts only {accepts}; this word is read as "
                "false/unset, which is what it says only by accident",
                f"{spec.name}=0",
            )
        ]
    means = "0 (false)" if spec.reader in ("nccl", "cuda") else "unset"
    fix = f"{spec.name}=1" if word in _TRUE_WORDS else f"{spec.name}=1 or {spec.name}=0"
    return [("LX115", f"{_who(spec)} accepts only {accepts}; this is read as {means}", fix)]


def _who(spec: EnvVarSpec) -> str:
    return _READER_WORDS.get(spec.reader, spec.reader)


def _check_bool01(spec: EnvVarSpec, value: str) -> list[_Issue]:
    if value in ("0", "1"):
        return []
    if _NCCL_CLEAN_INT.fullmatch(value):
        return [("LX114", "only 0 or 1 mean anything here", f"{spec.name}=1 or {spec.name}=0")]
    return _bool_word_issue(spec, value, "0 or 1")


def _check_bool_str(spec: EnvVarSpec, value: str) -> list[_Issue]:
    if value.lower() in _CVAR_BOOL:
        return []
    return [
        (
            "LX115",
            "torch accepts only 1/0, y/n, yes/no, t/f, true/false and raises "
            "'Invalid value for environment variable' on anything else",
            f"{spec.name}=1 or {spec.name}=0",
        )
    ]


def _check_bool_check(spec: EnvVarSpec, value: str) -> list[_Issue]:
    if value in ("0", "1"):
        return []
    return _bool_word_issue(spec, value, "0 or 1 (anything else: a warning, then unset)")


def _check_int_flag(spec: EnvVarSpec, value: str) -> list[_Issue]:
    try:
        int(value)
    except ValueError:
        return [
            (
                "LX110",
                "torchrun reads this flag with bool(int(value)) and fails on a non-integer",
                f"{spec.name}=1 or {spec.name}=0",
            )
        ]
    return []


def _check_enum(spec: EnvVarSpec, value: str) -> list[_Issue]:
    if value in spec.allowed:
        return []
    if not value:  # (only where the reader rejects empty: check_value)
        return [
            ("LX112", f"empty; {_ignored_by(spec)}", f"unset {spec.name} (default {spec.default})")
        ]
    by_upper = {w.upper(): w for w in spec.allowed}
    canonical = by_upper.get(value.upper())
    if canonical is not None and spec.type == "enum":
        return []
    if canonical is not None:
        return [
            (
                "LX113",
                f"this reader compares case-sensitively; {_ignored_by(spec)}",
                f"{spec.name}={canonical}",
            )
        ]
    return [
        (
            "LX112",
            f"not one of {', '.join(spec.allowed)}; {_ignored_by(spec)}",
            f"{spec.name}={_closest(value, spec.allowed, spec.default)} "
            f"(one of {', '.join(spec.allowed)})",
        )
    ]


def _ignored_by(spec: EnvVarSpec) -> str:
    if spec.reader == "nccl":
        return "NCCL ignores it silently and keeps its default"
    if spec.name == "TORCH_DISTRIBUTED_DEBUG":
        return "torch raises invalid_argument at init"
    if spec.name == "LOGLEVEL":
        return "torchrun raises ValueError (Unknown level) before any rank starts"
    return f"{_who(spec)} ignores or rejects it"


def _closest(value: str, words: tuple[str, ...], default: str = "") -> str:
    """The accepted word the user most probably meant (synonyms first, then spelling; else
    the reader's default, where it is one of them)."""
    import difflib

    upper = {w.upper(): w for w in words}
    said = value.strip().upper()
    meant = _SYNONYMS.get(said)
    if "NOTSET" in upper and said.isdigit() and (said in _LOGGING_LEVELS or int(said) >= 10):
        # logging's own numbers (LOGLEVEL=10, which torchrun passes on as a string it
        # rejects): the level at or below that number (15 shows what DEBUG shows)
        meant = _LOGGING_LEVELS[max((n for n in _LOGGING_LEVELS if int(n) <= int(said)), key=int)]
    if meant in upper:
        return upper[meant]
    hit = difflib.get_close_matches(value.upper(), list(upper), n=1, cutoff=0.6)
    if hit:
        return upper[hit[0]]
    return upper.get(default.upper(), words[0])


def _check_level(spec: EnvVarSpec, value: str) -> list[_Issue]:
    if value[:1].isdigit():
        number, issues = _int_value(spec, value)
        if number is None:
            return issues
        word = _LEVEL_INTS[min(number, 4)]
        return [
            (
                "LX121",
                f"legacy integer form: NCCL reads it as {word} today, but integer "
                "meanings changed across NCCL versions",
                f"{spec.name}={word}",
            )
        ]
    return _check_enum(replace(spec, type="enum-cs"), value)


def _check_iflist(spec: EnvVarSpec, value: str) -> list[_Issue]:
    if len(value) <= 1:
        if spec.name == "NCCL_SOCKET_IFNAME":
            return [
                (
                    "LX123",
                    "NCCL ignores NCCL_SOCKET_IFNAME values of one character",
                    "name the interface or a prefix of at least two characters, e.g. eth",
                )
            ]
        return [("LX116", "not a list of interface names", f"unset {spec.name}")]
    rest = value[1:] if value.startswith("^") else value
    rest = rest[1:] if rest.startswith("=") else rest
    items = rest.split(",")
    if items[0].startswith("^"):
        return [
            (
                "LX116",
                f"'=' before '^' is an exact match on a device literally named "
                f"'{items[0]}', not an exclusion",
                f"{spec.name}=^={rest[1:]}",
            )
        ]
    later = [i for i in items[1:] if i.startswith(("^", "="))]
    if later:
        exclude = value.startswith("^") or any(i.startswith("^") for i in later)
        exact = value.lstrip("^").startswith("=") or any(
            i.lstrip("^").startswith("=") for i in later
        )
        prefix = ("^" if exclude else "") + ("=" if exact else "")
        fixed = ",".join(i.lstrip("^=") for i in items)
        return [
            (
                "LX116",
                f"'^' and '=' apply only at the start of the whole list; NCCL takes "
                f"{later[0]!r} as a name",
                f"{spec.name}={prefix}{fixed}",
            )
        ]
    if any(not i for i in items):
        return [
            (
                "LX116",
                "empty entry in the list",
                f"{spec.name}={value[: len(value) - len(rest)]}{','.join(i for i in items if i)}",
            )
        ]
    bad_port = [i for i in items if ":" in i and not i.split(":")[1].isdigit() and i.split(":")[1]]
    if bad_port:
        return [
            (
                "LX116",
                f"port in {bad_port[0]!r} is not a number",
                f"write entries as name[:port], e.g. {bad_port[0].split(':')[0]}:1",
            )
        ]
    return []


def _check_algo_like(spec: EnvVarSpec, value: str) -> list[_Issue]:
    issues: list[_Issue] = []
    known = {w.upper() for w in spec.allowed}
    bad: list[str] = []
    meant: dict[str, str] = {}
    fixed_entries: list[str] = []
    for index, entry in enumerate(value.split(";")):
        func, sep, lst = entry.rpartition(":")
        if not sep and index > 0:
            issues.append(
                (
                    "LX116",
                    "every ';' entry after the first needs a 'function:' prefix",
                    f"write {spec.name} as list;Function:list",
                )
            )
        if sep and func.lower() not in {f.lower() for f in _NCCL_FUNCS}:
            bad.append(func)
        neg = lst.startswith("^")
        tokens = [t.strip() for t in lst.lstrip("^").split(",")]
        bad += [t for t in tokens if t.upper() not in known]
        keep: list[str] = []
        for t in tokens:
            guess = _meant_token(t, known)
            if guess is not None:  # a misspelt word (Ringg) is kept as the word meant
                meant[t] = _canonical(guess, spec.allowed)
                keep.append(meant[t])
            keep += [
                _canonical(p, spec.allowed) for p in re.split(r"[/|\s]+", t) if p.upper() in known
            ]
        keep = list(dict.fromkeys(keep))  # (Ring,Rng: one Ring)
        fixed_entries.append(f"{func}{sep}{'^' if neg else ''}{','.join(keep)}")
    if bad:
        fixed = ";".join(fixed_entries)
        fix = f"{spec.name}={fixed}" if fixed.strip(";:^") else f"unset {spec.name}"
        guesses = [repr(word) for token, word in meant.items() if token in bad]
        why = _algo_why(bad) + (f" (did you mean {', '.join(guesses)}?)" if guesses else "")
        issues.append(
            (
                "LX117",
                f"NCCL does not know {', '.join(map(repr, bad))}{why}; since "
                "NCCL 2.24 an unknown token makes communicator init fail",
                fix,
            )
        )
    return issues


def _meant_token(token: str, known: set[str]) -> str | None:
    """The known word a misspelt token stands for (``Ringg``: ``RING``), where one is close
    and the token is one word (``Ring/Tree`` is split on its separators instead)."""
    import difflib

    if token.upper() in known or not token or re.search(r"[/|\s]", token):
        return None
    hit = difflib.get_close_matches(token.upper(), sorted(known), n=1, cutoff=0.75)
    return hit[0] if hit else None


def _canonical(token: str, words: tuple[str, ...]) -> str:
    return next(w for w in words if w.upper() == token.upper())


def _algo_why(bad: list[str]) -> str:
    notes = []
    if any("/" in b for b in bad):
        notes.append("'/' is not a separator (use ',')")
    if any(b.upper() == "COLLNET" or "COLLNET" in re.split(r"[/|]", b.upper()) for b in bad):
        notes.append("'CollNet' is not a name since NCCL 2.14 (CollNetDirect, CollNetChain)")
    return f" ({'; '.join(notes)})" if notes else ""


def _check_wordlist(spec: EnvVarSpec, value: str) -> list[_Issue]:
    items = value[1:].split(",") if value.startswith("^") else value.split(",")
    if any(i.startswith("^") for i in items):
        return [
            (
                "LX116",
                "'^' inverts the whole list and is only allowed at its start",
                f"{spec.name}=^{','.join(i.lstrip('^') for i in items)}",
            )
        ]
    known = {w.upper() for w in spec.allowed}
    bad = [i for i in items if i.upper() not in known]
    if bad:
        keep = ",".join(i for i in items if i.upper() in known)
        return [
            (
                "LX112",
                f"unknown {', '.join(map(repr, bad))}; NCCL 2.30 then ignores the whole value",
                f"{spec.name}={keep}" if keep else f"unset {spec.name}",
            )
        ]
    return []


def _check_flags(spec: EnvVarSpec, value: str) -> list[_Issue]:
    known = {w.upper() for w in spec.allowed}
    bad = [p for p in value.split("|") if p.strip().upper() not in known]
    if bad:
        return [
            (
                "LX112",
                f"unknown {', '.join(map(repr, bad))}",
                f"combine {', '.join(spec.allowed)} with '|'",
            )
        ]
    return []


def _check_netdevs(spec: EnvVarSpec, value: str) -> list[_Issue]:
    if value.upper() in ("AUTO", "ALL") or re.fullmatch(r"MAX:[1-9][0-9]*", value.upper()):
        return []
    return [("LX112", "expected AUTO, ALL or MAX:<n>", f"{spec.name}=AUTO")]


def _check_hostport(spec: EnvVarSpec, value: str) -> list[_Issue]:
    match = re.fullmatch(r"\[[0-9A-Fa-f:.]+\]:([0-9]+)|[^:\[\]\s]+:([0-9]+)", value)
    if not match:
        return [
            (
                "LX116",
                "expected host:port (IPv6 as [addr]:port)",
                f"{spec.name}=<host>:<port>, e.g. 10.0.0.1:29600",
            )
        ]
    port = int(match.group(1) or match.group(2))
    if not 1 <= port <= 65535:
        return [("LX114", "port out of range 1..65535", "use a port between 1 and 65535")]
    return []


def _check_cidr(spec: EnvVarSpec, value: str) -> list[_Issue]:
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return [("LX116", "not an IPv4/IPv6 network", f"{spec.name}=10.0.0.0/16 (for example)")]
    return []


def _check_path(spec: EnvVarSpec, value: str) -> list[_Issue]:
    if spec.reader == "nccl" and value.startswith("~"):
        return [("LX119", "NCCL does not expand '~'", f"write {spec.name} as an absolute path")]
    return []


def _check_abspath(spec: EnvVarSpec, value: str) -> list[_Issue]:
    if not value.startswith("/"):
        return [("LX119", "must be an absolute path", f"write {spec.name} as an absolute path")]
    return []


def _check_path_template(spec: EnvVarSpec, value: str) -> list[_Issue]:
    issues = _check_path(spec, value)
    if "%p" not in value and value not in ("/dev/stdout", "/dev/stderr"):
        issues.append(
            (
                "LX125",
                "without %p every process opens and truncates the same file",
                f"{spec.name}={shlex.quote(value + '.%h.%p')}",  # (a path with spaces)
            )
        )
    return issues


def _split_top_level(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        depth += (char == "[") - (char == "]")
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


def _check_alloc_conf(spec: EnvVarSpec, value: str) -> list[_Issue]:
    issues: list[_Issue] = []
    for item in _split_top_level(value):
        key, sep, setting = item.partition(":")
        key = key.strip()
        if not sep or not key or not setting:
            issues.append(
                (
                    "LX116",
                    f"{item!r} is not key:value; torch fails at the first CUDA allocation",
                    f"write {spec.name} as key:value,key:value",
                )
            )
        elif key not in data.ALLOC_CONF_KEYS:
            import difflib

            guess = difflib.get_close_matches(key, data.ALLOC_CONF_KEYS, n=1, cutoff=0.6)
            issues.append(
                (
                    "LX127",
                    f"torch does not know the key {key!r} and raises at the first CUDA allocation",
                    f"did you mean {guess[0]}?" if guess else f"remove {key!r} from {spec.name}",
                )
            )
    return issues


def _check_cuda_devices(spec: EnvVarSpec, value: str) -> list[_Issue]:
    entries = [e.strip() for e in value.split(",")]
    if not value.strip():
        return [("LX126", "empty: the process sees no GPU", f"unset {spec.name} or list GPUs")]
    for entry in entries:
        if re.fullmatch(r"-[0-9]+", entry) or entry == "NoDevFiles":
            return [
                (
                    "LX126",
                    f"{entry!r} hides this and every later entry",
                    f"list only the GPUs to use, e.g. {spec.name}=0,1",
                )
            ]
        if not (entry.isdigit() or entry.startswith(("GPU-", "MIG-"))):
            return [
                (
                    "LX116",
                    f"{entry!r} is not a GPU index or UUID; CUDA stops reading there",
                    f"{spec.name}=0,1 (indices) or GPU-<uuid>",
                )
            ]
    if len(set(entries)) != len(entries):
        return [
            (
                "LX126",
                "the same GPU is listed twice",
                f"{spec.name}={','.join(dict.fromkeys(entries))}",
            )
        ]
    return []


def _check_nnodes(spec: EnvVarSpec, value: str) -> list[_Issue]:
    match = re.fullmatch(r"([0-9]+)(?::([0-9]+))?", value)
    if not match:
        return [("LX116", "expected N or MIN:MAX", f"{spec.name}=2 (or 1:4)")]
    low = int(match.group(1))
    high = int(match.group(2)) if match.group(2) else low
    if not 0 < low <= high:
        return [("LX114", "needs 0 < MIN <= MAX", f"{spec.name}={max(low, 1)}")]
    return []


def _check_nproc(spec: EnvVarSpec, value: str) -> list[_Issue]:
    if value.isdigit():
        return [] if int(value) >= 1 else [("LX114", "must be at least 1", f"{spec.name}=1")]
    if re.fullmatch(r"[a-z][a-z0-9_]*", value):
        return []
    return [("LX112", "expected an integer or gpu/cpu/xpu/auto", f"{spec.name}=gpu")]


def _no_check(spec: EnvVarSpec, value: str) -> list[_Issue]:
    return []


_CHECKERS: Mapping[str, Callable[[EnvVarSpec, str], list[_Issue]]] = MappingProxyType(
    {
        "int": _check_int,
        "intlist": _check_intlist,
        "size": _check_int,
        "float": _check_float,
        "bool01": _check_bool01,
        "bool-str": _check_bool_str,
        "bool-check": _check_bool_check,
        "int-flag": _check_int_flag,
        "enum": _check_enum,
        "enum-cs": _check_enum,
        "level": _check_level,
        "iflist": _check_iflist,
        "algolist": _check_algo_like,
        "protolist": _check_algo_like,
        "wordlist": _check_wordlist,
        "flags": _check_flags,
        "netdevs": _check_netdevs,
        "hostport": _check_hostport,
        "cidr": _check_cidr,
        "path": _check_path,
        "abspath": _check_abspath,
        "path-template": _check_path_template,
        "alloc-conf": _check_alloc_conf,
        "cuda-devices": _check_cuda_devices,
        "nnodes": _check_nnodes,
        "nproc": _check_nproc,
        "string": _no_check,
        "none": _no_check,
    }
)
# Types whose empty value is itself a problem (elsewhere empty means "unset / default"),
# and variables whose reader rejects an empty value (torch throws at init; torchrun's
# logger.setLevel("") raises before any rank starts).
_EMPTY_MATTERS = frozenset({"int-flag", "cuda-devices"})
_EMPTY_REJECTED = frozenset({"TORCH_DISTRIBUTED_DEBUG", "LOGLEVEL"})


def _ib_timeout_note(spec: EnvVarSpec, value: str) -> list[_Issue]:
    number, issues = _int_value(spec, value)
    if number is None and issues and issues[0][0] == "LX110":
        number = _strtoll(value)  # what NCCL reads all the same ("abc" is 0)
    if number is not None and (number == 0 or number >= 32):
        # (env-vars.md: 0 or >= 32 turns the verbs timeout off)
        return [
            (
                "LX120",
                f"is read as {number}, which turns the IB transport's timeout off: a dead "
                "link or peer is never reported by it, and a collective on it hangs until "
                "the process-group timeout",
                "NCCL_IB_TIMEOUT=20 (the default since NCCL 2.23, about 30 s in total) or up to 23",
            )
        ]
    if issues or number is None or not 24 <= number <= 31:
        return []
    minutes = 4.096e-6 * 2**number / 60
    return [
        (
            "LX120",
            f"means 4.096 us x 2^{number} = {minutes:.1f} min per retry (x "
            "NCCL_IB_RETRY_CNT) before a dead link is reported",
            "NCCL_IB_TIMEOUT=20 (the default since NCCL 2.23, about 30 s in total) or up to 23",
        )
    ]


# Above this NCCL_BUFFSIZE is no longer tuning (4 MiB default; 8-16 MiB is the usual
# raise): NCCL allocates one such buffer per channel for every peer it connects to.
_BUFFSIZE_SANE = 64 * 1024**2


def _buffsize_note(spec: EnvVarSpec, value: str) -> list[_Issue]:
    number, issues = _int_value(spec, value)
    if issues or number is None or number <= _BUFFSIZE_SANE:
        return []
    per_32 = number * 32 / 1024**3  # one peer's buffers at 32 channels
    return [
        (
            "LX122",
            f"{number / 1024**2:,.0f} MiB for every channel of every peer NCCL connects to "
            f"({per_32:,.0f} GiB of GPU memory per peer at 32 channels): the communicator's "
            "init runs out of memory, or leaves the model too little",
            f"{spec.name}=8388608 (8 MiB) or 16777216, or unset it (4 MiB)",
        )
    ]


_EXTRA_VALUE_RULES: Mapping[str, Callable[[EnvVarSpec, str], list[_Issue]]] = MappingProxyType(
    {
        "NCCL_IB_TIMEOUT": _ib_timeout_note,
        "NCCL_BUFFSIZE": _buffsize_note,
    }
)


def check_value(spec: EnvVarSpec, value: str) -> list[_Issue]:
    """Issues (code, message, fix) with ``value`` for ``spec``, ignoring other variables."""
    if _PLACEHOLDER.search(value):
        return [
            (
                "LX118",
                "a placeholder was left in the value",
                f"replace it with the real value, or unset {spec.name}",
            )
        ]
    if not value and spec.type not in _EMPTY_MATTERS and spec.name not in _EMPTY_REJECTED:
        return []
    issues = list(_CHECKERS[spec.type](spec, value))
    extra = _EXTRA_VALUE_RULES.get(spec.name)
    if extra is not None:
        issues += extra(spec, value)
    for note in data.VALUE_NOTES:
        if note.name == spec.name and (note.value == "*" or value.upper() == note.value.upper()):
            issues.append((note.code, note.message, note.fix))
    return issues


# --- findings ---------------------------------------------------------------------------------


def _finding(code: str, name: str | None, message: str, fix: str) -> Finding:
    return Finding(code=code, level=CODES[code], var=name, message=message, fix=fix)


def _shown(name: str, value: str) -> str:
    return f"{name}={legible(redact(name, value))}"


def _fix_value(name: str, value: str) -> str:
    """A value a fix passes on under another name: without the spaces at its ends, which no
    reader wants and which a copied fix would carry on invisibly."""
    return redact(name, value).strip()


def _status_finding(spec: EnvVarSpec, value: str, facts: HostFacts) -> list[Finding]:
    shown = _shown(spec.name, value)
    if spec.status == "myth":
        if spec.name == "NODE_RANK" and facts.launch.kind == "platform":
            return []  # the platform set it for its own processes; harmless there
        return [
            _finding(
                "LX101",
                spec.name,
                f"{shown}: has no effect: {spec.note}",
                f"unset {spec.name}; use {spec.use_instead}",
            )
        ]
    if spec.status == "renamed":
        fix = f"{spec.renamed_to}={_fix_value(spec.name, value)} (and unset {spec.name})"
        newer = CATALOG.get(spec.renamed_to or "")
        if newer is not None and newer.status == "deprecated" and newer.use_instead:
            # the new name has itself been superseded (NCCL_MAX_NRINGS -> NCCL_MAX_NCHANNELS,
            # deprecated in 2.17 for NCCL_MAX_CTAS): one fix, not a fix and then another
            use = newer.use_instead
            if use.isidentifier():
                use = f"{use}={_fix_value(spec.name, value)}"
            fix += f"; {newer.name} is {newer.note}, so from that release on set {use} instead"
        return [_finding("LX102", spec.name, f"{shown}: deprecated name: {spec.note}", fix)]
    if spec.status == "removed":
        return [
            _finding(
                "LX103",
                spec.name,
                f"{shown}: has no effect: {spec.note}",
                f"unset {spec.name}; use {spec.use_instead}",
            )
        ]
    if spec.status == "deprecated":
        return [_finding("LX104", spec.name, f"{shown}: {spec.note}", f"use {spec.use_instead}")]
    return []


def _unknown_finding(name: str, value: str, env: Mapping[str, str]) -> list[Finding]:
    upper = name.upper()
    if upper != name and upper in CATALOG:
        message = f"{_shown(name, value)}: environment names are case-sensitive; the reader "
        if upper in env:  # the reader sees that one: this one only misleads whoever reads it
            message += f"sees {_shown(upper, env[upper])} and never this one"
            fix = f"unset {name}"
        else:
            message += f"looks for {upper}"
            fix = f"{upper}={_fix_value(name, value)}"
            spec = CATALOG[upper]
            # the value, renamed, may be wrong too: said when it would be an error there
            # (not advice), of a variable the reader reads
            wrong = [w for w in check_value(spec, value) if codes.level(w[0]) == "error"]
            said = _status_finding(spec, value, HostFacts())
            if said:  # the upper-case name is itself a myth, removed or renamed
                message += f"; and {said[0].message}"
                fix = (
                    f"{spec.renamed_to}={_fix_value(name, value)} (and unset {name})"
                    if spec.status == "renamed"
                    else f"unset {name}; use {spec.use_instead}"
                )
            elif wrong and spec.status == "ok":
                message += f" (and as {upper} it would be wrong: {wrong[0][1]})"
                fix = wrong[0][2]
        return [_finding("LX106", name, message, fix)]
    if name.startswith(data.NCCL_PLUGIN_PREFIXES):
        return []
    strict = name.startswith(data.STRICT_PREFIXES)
    if not strict and not name.startswith(data.LOOSE_PREFIXES):
        return []
    guess = did_you_mean(name)
    if guess is None and not strict:
        return []
    hint = f"; did you mean {guess}?" if guess else ""
    return [
        _finding(
            "LX100",
            name,
            f"{_shown(name, value)}: not a variable launchx knows; "
            f"its reader ignores unknown names{hint}",
            f"{guess}={_fix_value(name, value)}"
            if guess
            else f"check the spelling of {name} or unset it",
        )
    ]


def _check_one(name: str, value: str, facts: HostFacts, env: Mapping[str, str]) -> list[Finding]:
    spec = CATALOG.get(name)
    if spec is None:
        return _unknown_finding(name, value, env)
    found = _status_finding(spec, value, facts)
    if spec.status in ("ok", "deprecated", "renamed"):
        found += [
            _finding(code, name, f"{_shown(name, value)}: {message}", fix)
            for code, message, fix in check_value(spec, value)
        ]
    return found


# --- rules over several variables -------------------------------------------------------------

_Rule = Callable[[Mapping[str, str], HostFacts], list[Finding]]


def _truthy(value: str | None) -> bool:
    return value is not None and value.strip().lower() in ("1", "y", "yes", "t", "true")


def _first(env: Mapping[str, str], *names: str) -> str | None:
    return next((env[n] for n in names if n in env), None)


def _rule_alias_conflict(env: Mapping[str, str], facts: HostFacts) -> list[Finding]:
    out = []
    for renamed in data.RENAMED:
        old, new = renamed.old, renamed.new
        if old in env and new in env and env[old] != env[new]:
            out.append(
                _finding(
                    "LX105",
                    old,
                    f"{_shown(old, env[old])} and "
                    f"{_shown(new, env[new])} disagree: {new} wins and {old} is "
                    "ignored",
                    f"unset {old}",
                )
            )
    return out


def _rule_ib_off_with_hca(env: Mapping[str, str], facts: HostFacts) -> list[Finding]:
    hca = env.get("NCCL_IB_HCA")
    if not hca:
        return []
    if env.get("NCCL_IB_DISABLE") == "1":
        why = "NCCL_IB_DISABLE=1 turns the IB transport off"
    elif env.get("NCCL_NET", "").lower() == "socket":
        why = "NCCL_NET=Socket forces the socket transport"
    else:
        return []
    return [
        _finding(
            "LX130",
            "NCCL_IB_HCA",
            f"{_shown('NCCL_IB_HCA', hca)} has no effect: {why}",
            "unset NCCL_IB_HCA, or NCCL_IB_DISABLE/NCCL_NET to use IB",
        )
    ]


def _rule_p2p_level_disabled(env: Mapping[str, str], facts: HostFacts) -> list[Finding]:
    if env.get("NCCL_P2P_DISABLE") != "1" or not env.get("NCCL_P2P_LEVEL"):
        return []
    return [
        _finding(
            "LX131",
            "NCCL_P2P_LEVEL",
            f"{_shown('NCCL_P2P_LEVEL', env['NCCL_P2P_LEVEL'])}"
            " has no effect: NCCL_P2P_DISABLE=1 forces level LOC",
            "unset one of NCCL_P2P_DISABLE and NCCL_P2P_LEVEL",
        )
    ]


def _rule_socket_threads(env: Mapping[str, str], facts: HostFacts) -> list[Finding]:
    threads, socks = env.get("NCCL_SOCKET_NTHREADS", ""), env.get("NCCL_NSOCKS_PERTHREAD", "")
    if not (threads.isdigit() and socks.isdigit()) or int(threads) * int(socks) <= 64:
        return []
    product = int(threads) * int(socks)
    fixed = max(64 // max(int(threads), 1), 1)
    return [
        _finding(
            "LX132",
            "NCCL_NSOCKS_PERTHREAD",
            f"NCCL_SOCKET_NTHREADS={threads} x "
            f"NCCL_NSOCKS_PERTHREAD={socks} = {product} > 64: NCCL lowers "
            "NCCL_NSOCKS_PERTHREAD with a warning",
            f"NCCL_NSOCKS_PERTHREAD={fixed} (product <= 64)",
        )
    ]


def _rule_debug_file(env: Mapping[str, str], facts: HostFacts) -> list[Finding]:
    path = env.get("NCCL_DEBUG_FILE")
    if not path or env.get("NCCL_DEBUG", "").upper() in _DEBUG_AT_LEAST_WARN:
        return []
    level = env.get("NCCL_DEBUG", "unset")
    return [
        _finding(
            "LX133",
            "NCCL_DEBUG_FILE",
            f"{_shown('NCCL_DEBUG_FILE', path)} is not "
            f"written: NCCL opens it only when NCCL_DEBUG is WARN or higher (it is "
            f"{level})",
            "also set NCCL_DEBUG=WARN (or INFO)",
        )
    ]


def _rule_flight_recorder_off(env: Mapping[str, str], facts: HostFacts) -> list[Finding]:
    size_name = next(
        (n for n in ("TORCH_FR_BUFFER_SIZE", "TORCH_NCCL_TRACE_BUFFER_SIZE") if n in env), None
    )
    if size_name is None or env[size_name].strip() != "0":
        return []
    wants = [
        n
        for n in ("TORCH_NCCL_DUMP_ON_TIMEOUT", "TORCH_FR_CPP_STACK", "TORCH_NCCL_TRACE_CPP_STACK")
        if _truthy(env.get(n))
    ]
    wants += [
        n
        for n in (
            "TORCH_NCCL_DEBUG_INFO_PIPE_FILE",
            "TORCH_FR_DUMP_TEMP_FILE",
            "TORCH_NCCL_DEBUG_INFO_TEMP_FILE",
        )
        if env.get(n)
    ]
    if not wants:
        return []
    shown = ", ".join(_shown(n, env[n]) for n in wants)
    return [
        _finding(
            "LX134",
            wants[0],
            f"{shown}, but {size_name}=0 turns the flight "
            "recorder off, so there is nothing to dump",
            "TORCH_FR_BUFFER_SIZE=2000 (the default), or drop the dump settings",
        )
    ]


def _rule_blocking_wait(env: Mapping[str, str], facts: HostFacts) -> list[Finding]:
    if not _truthy(_first(env, "TORCH_NCCL_BLOCKING_WAIT", "NCCL_BLOCKING_WAIT")):
        return []
    moot = [
        n
        for n in (
            "TORCH_NCCL_ASYNC_ERROR_HANDLING",
            "NCCL_ASYNC_ERROR_HANDLING",
            "TORCH_NCCL_DUMP_ON_TIMEOUT",
        )
        if n in env
    ]
    if not moot:
        return []
    shown = ", ".join(_shown(n, env[n]) for n in moot)
    return [
        _finding(
            "LX135",
            moot[0],
            f"{shown}: with blocking wait "
            "torch (as of 2.14.1) creates no watchdog thread: a timeout raises in work.wait() "
            "instead, and these settings take no effect",
            "unset TORCH_NCCL_BLOCKING_WAIT to keep the watchdog, or drop these",
        )
    ]


def _rule_torchrun_overrides_alias(env: Mapping[str, str], facts: HostFacts) -> list[Finding]:
    old = env.get("NCCL_ASYNC_ERROR_HANDLING")
    if old is None or old.strip() == "1" or "TORCH_NCCL_ASYNC_ERROR_HANDLING" in env:
        return []
    if facts.launch.kind in ("platform", "mpi", "torchrun"):
        return []  # nobody injects the new name on top of ours
    return [
        _finding(
            "LX136",
            "NCCL_ASYNC_ERROR_HANDLING",
            f"{_shown('NCCL_ASYNC_ERROR_HANDLING', old)} is overridden when torchrun "
            "starts the ranks: torchrun injects TORCH_NCCL_ASYNC_ERROR_HANDLING=1 when "
            "it is unset, and the new name wins over the old",
            f"TORCH_NCCL_ASYNC_ERROR_HANDLING={old} (and unset the old name)",
        )
    ]


# --- rules against the host -------------------------------------------------------------------


def _facts_detected(facts: HostFacts) -> bool:
    """Whether ``facts`` came from detection (or a recorded tree) rather than defaults."""
    return bool(facts.ib_ports or facts.interfaces) or facts.root != "/"


def _ib_transport_off(env: Mapping[str, str]) -> bool:
    return env.get("NCCL_IB_DISABLE") == "1" or env.get("NCCL_NET", "").lower() == "socket"


def _usable_hca_value(env: Mapping[str, str]) -> str | None:
    value = env.get("NCCL_IB_HCA", "")
    spec = CATALOG["NCCL_IB_HCA"]
    if not value or _ib_transport_off(env) or check_value(spec, value):
        return None
    return value


def _rule_ib_hca_host(env: Mapping[str, str], facts: HostFacts) -> list[Finding]:
    value = _usable_hca_value(env)
    if value is None:
        return []
    shown = _shown("NCCL_IB_HCA", value)
    if not facts.ib_ports:
        if not _facts_detected(facts):
            return []
        return [
            _finding(
                "LX152",
                "NCCL_IB_HCA",
                f"{shown}: no RDMA devices on this host "
                "(/sys/class/infiniband is empty or absent); NCCL will use sockets",
                "load the RDMA driver / pass /dev/infiniband into the container, or "
                "unset NCCL_IB_HCA",
            )
        ]
    hcas = parse_iflist(value)
    devices = facts.ib_devices
    chosen = [p for p in facts.ib_ports if hcas.selects(p.device, p.port)]
    if not chosen:
        return [
            _finding(
                "LX150",
                "NCCL_IB_HCA",
                f"{shown} selects none of this host's RDMA "
                f"devices ({', '.join(devices)}); NCCL falls back to sockets",
                f"NCCL_IB_HCA={_hcas_to_name(facts)} or unset it",
            )
        ]
    out = _hca_partial(hcas, value, facts) + _hca_prefix_trap(hcas, value, devices)
    if not any(p.active for p in chosen):
        states = ", ".join(f"{p.device}:{p.port} {p.state}/{p.phys_state}" for p in chosen)
        out.append(
            _finding(
                "LX156",
                "NCCL_IB_HCA",
                f"{shown} selects only ports that are not active ({states}); NCCL skips them",
                "check the cable/subnet manager (ibstat), or pick active HCAs",
            )
        )
    return out


def _hcas_to_name(facts: HostFacts) -> str:
    """The value a fix names: what ``auto`` would choose (one link layer, the InfiniBand
    fabric over a RoCE front-end bond, active ports), else every device exactly."""
    from launchx.autovalues import auto_ib_hca

    auto = auto_ib_hca(facts)
    return auto[0] if auto is not None else "=" + ",".join(facts.ib_devices)


def _hca_partial(hcas: IfList, value: str, facts: HostFacts) -> list[Finding]:
    if hcas.exclude:
        return []
    missing = [
        f"{n}:{p}" if p is not None else n
        for n, p in hcas.items
        if not any(hcas.item_matches((n, p), q.device, q.port) for q in facts.ib_ports)
    ]
    if not missing:
        return []
    return [
        _finding(
            "LX151",
            "NCCL_IB_HCA",
            f"{_shown('NCCL_IB_HCA', value)}: this host has "
            f"no {', '.join(missing)} (it has {', '.join(facts.ib_devices)})",
            "remove the missing entries from NCCL_IB_HCA",
        )
    ]


def _hca_prefix_trap(hcas: IfList, value: str, devices: tuple[str, ...]) -> list[Finding]:
    if hcas.exact or hcas.exclude:
        return []
    for name, _ in hcas.items:
        extra = [d for d in devices if d != name and d.startswith(name)]
        if name in devices and extra:
            return [
                _finding(
                    "LX153",
                    "NCCL_IB_HCA",
                    f"{_shown('NCCL_IB_HCA', value)}: entries "
                    f"are prefixes, so {name} also selects {', '.join(extra)} on this "
                    "host",
                    f"NCCL_IB_HCA=={value} (a leading '=' makes names exact)",
                )
            ]
    return []


def _usable_interfaces(facts: HostFacts) -> list[str]:
    skip = ("lo", "docker", "virbr")
    return [
        i.name for i in facts.interfaces if i.up and i.addresses and not i.name.startswith(skip)
    ]


def _rule_socket_ifname_host(env: Mapping[str, str], facts: HostFacts) -> list[Finding]:
    value = env.get("NCCL_SOCKET_IFNAME", "")
    if len(value) <= 1 or not facts.interfaces:
        return []
    if check_value(CATALOG["NCCL_SOCKET_IFNAME"], value):
        return []
    wanted = parse_iflist(value)
    matched = [i for i in facts.interfaces if wanted.selects(i.name)]
    shown = _shown("NCCL_SOCKET_IFNAME", value)
    usable = _usable_interfaces(facts)
    # (quoted: "==eth0" reads as a typo; the leading "=" is NCCL's exact match)
    fix = f"NCCL_SOCKET_IFNAME='={','.join(usable)}'" if usable else "unset NCCL_SOCKET_IFNAME"
    if not matched:
        return [
            _finding(
                "LX154",
                "NCCL_SOCKET_IFNAME",
                f"{shown} matches no interface of this "
                f"host ({', '.join(facts.interface_names)}); NCCL bootstrap fails",
                fix,
            )
        ]
    addresses_known = any(i.addresses for i in facts.interfaces)
    if any(i.up and (i.addresses or not addresses_known) for i in matched):
        return []
    names = ", ".join(i.name for i in matched)
    return [
        _finding(
            "LX155",
            "NCCL_SOCKET_IFNAME",
            f"{shown} matches only {names}, which "
            "is down or has no IP address; NCCL skips such interfaces",
            fix,
        )
    ]


def _rule_gloo_ifname_host(env: Mapping[str, str], facts: HostFacts) -> list[Finding]:
    """torch's gloo backend (ProcessGroupGloo::Options::create_default) splits the value on
    ',' and opens each name as given, exactly: no NCCL '^'/'=' syntax, no prefixes. A name
    this host lacks, or one without an address, fails every rank in init_process_group
    ("Unable to find address for: ens5")."""
    value = env.get("GLOO_SOCKET_IFNAME", "")
    if len(value) <= 1 or not facts.interfaces:
        return []
    by_name = {i.name: i for i in facts.interfaces}
    addresses_known = any(i.addresses for i in facts.interfaces)
    bad = [
        n
        for n in value.split(",")
        if n not in by_name or (addresses_known and not by_name[n].addresses)
    ]
    if not bad:
        return []
    usable = _usable_interfaces(facts)
    kept = [n for n in value.split(",") if n not in bad]
    nccl_syntax = (
        " (gloo takes names as they are: no '^' or '=')" if "^" in value or "=" in value else ""
    )
    return [
        _finding(
            "LX157",
            "GLOO_SOCKET_IFNAME",
            f"{_shown('GLOO_SOCKET_IFNAME', value)} names {', '.join(map(repr, bad))}, which "
            f"this host lacks or which has no address (interfaces: "
            f"{', '.join(facts.interface_names)}){nccl_syntax}; gloo fails every rank in "
            f"init_process_group (Unable to find address for: {bad[0]})",
            f"GLOO_SOCKET_IFNAME={','.join(kept or usable[:1])}"
            if kept or usable
            else "unset GLOO_SOCKET_IFNAME",
        )
    ]


_RULES: tuple[_Rule, ...] = (
    _rule_alias_conflict,
    _rule_ib_off_with_hca,
    _rule_p2p_level_disabled,
    _rule_socket_threads,
    _rule_debug_file,
    _rule_flight_recorder_off,
    _rule_blocking_wait,
    _rule_torchrun_overrides_alias,
    _rule_ib_hca_host,
    _rule_socket_ifname_host,
    _rule_gloo_ifname_host,
)


def check_env(env: Mapping[str, str], facts: HostFacts) -> list[Finding]:
    """Findings about the final environment a job will get: errors first, then warnings, info.

    Pure: reads nothing but ``env`` and ``facts``. Secrets never appear in messages.
    """
    found: list[Finding] = []
    for name in sorted(env):
        found += _check_one(name, env[name], facts, env)
    for rule in _RULES:
        found += rule(env, facts)
    return list(sort_findings(found))
