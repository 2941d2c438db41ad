"""SLURM host lists (``gpu[01-04,07],cpu-a[1-2]``) and per-node counts (``2(x3),1``).

Expansion is done here rather than by ``scontrol show hostnames`` so that every node can
compute the same master address without a subprocess, and so that rendering (``explain``,
``sbatch``) can compress a list back. A naive ``split(",")`` is wrong because commas also
separate the items inside brackets.

Rules (SLURM's ``hostlist.c`` behaviour as documented in env-vars.md §4):

* top-level commas (outside brackets) separate host expressions;
* a bracket holds comma-separated numbers or ``lo-hi`` ranges; the width of ``lo``
  (leading zeros included) is the minimum width of every number it produces;
* several bracket groups in one expression form a product, the leftmost group varying
  slowest (``rack[1-2]-node[01-02]`` → rack1-node01, rack1-node02, rack2-node01, ...);
* order is kept: the first host is the usual ``MASTER_ADDR``, so nothing is sorted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from launchx.errors import ConfigError

# A guard against ``node[0-999999999]``: no real allocation is this large, and expanding it
# would exhaust memory instead of failing with a message.
MAX_HOSTS = 1 << 20

_DIGITS = re.compile(r"[0-9]+")
_TRAILING_DIGITS = re.compile(r"^(.*?)([0-9]+)$", re.DOTALL)
_COUNT_ITEM = re.compile(r"^([0-9]+)(?:\(x([0-9]+)\))?$")
_HINT = "a SLURM host list looks like gpu[01-04,07],cpu-a[1-2]; check the variable or flag"


def _bad(nodelist: str, why: str) -> ConfigError:
    return ConfigError(f"invalid SLURM host list {nodelist!r}: {why}", _HINT)


def _split_top_level(nodelist: str) -> list[str]:
    """Split on commas that are not inside brackets."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(nodelist):
        if ch == "[":
            if depth:
                raise _bad(nodelist, f"nested '[' at position {i}")
            depth = 1
        elif ch == "]":
            if not depth:
                raise _bad(nodelist, f"']' without '[' at position {i}")
            depth = 0
        elif ch == "," and not depth:
            parts.append(nodelist[start:i])
            start = i + 1
    if depth:
        raise _bad(nodelist, "'[' is never closed")
    parts.append(nodelist[start:])
    return parts


def _range_items(nodelist: str, body: str) -> list[str]:
    """Expand the inside of one bracket: ``01-04,07`` → ['01', '02', '03', '04', '07']."""
    out: list[str] = []
    for item in body.split(","):
        lo, sep, hi = item.partition("-")
        if not _DIGITS.fullmatch(lo) or (sep and not _DIGITS.fullmatch(hi)):
            raise _bad(nodelist, f"[{body}] holds {item!r}, which is not a number or lo-hi range")
        first, last = int(lo), int(hi) if sep else int(lo)
        if last < first:
            raise _bad(nodelist, f"range {item!r} runs backwards")
        if last - first + 1 + len(out) > MAX_HOSTS:
            raise _bad(nodelist, f"more than {MAX_HOSTS} hosts")
        width = len(lo)
        out.extend(str(n).zfill(width) for n in range(first, last + 1))
    return out


def _expand_one(nodelist: str, expr: str) -> list[str]:
    if not expr:
        raise _bad(nodelist, "empty host name (two commas in a row, or a leading/trailing comma)")
    if any(ch.isspace() for ch in expr):
        raise _bad(nodelist, f"{expr!r} contains white space")
    hosts = [""]
    pos = 0
    while pos < len(expr):
        open_at = expr.find("[", pos)
        if open_at < 0:
            literal, body, pos = expr[pos:], None, len(expr)
        else:
            close_at = expr.index("]", open_at)  # balanced: checked by _split_top_level
            literal, body, pos = expr[pos:open_at], expr[open_at + 1 : close_at], close_at + 1
        hosts = [h + literal for h in hosts]
        if body is not None:
            items = _range_items(nodelist, body)
            if len(hosts) * len(items) > MAX_HOSTS:
                raise _bad(nodelist, f"more than {MAX_HOSTS} hosts")
            hosts = [h + item for h in hosts for item in items]
    return hosts


def expand(nodelist: str) -> tuple[str, ...]:
    """Expand a SLURM host list into host names, in allocation order.

    Raises ``ConfigError`` (never anything else) for malformed input, naming the problem.
    """
    text = nodelist.strip()
    if not text:
        raise _bad(nodelist, "it is empty")
    out: list[str] = []
    for expr in _split_top_level(text):
        out.extend(_expand_one(nodelist, expr))
        if len(out) > MAX_HOSTS:
            raise _bad(nodelist, f"more than {MAX_HOSTS} hosts")
    return tuple(out)


def _fits(digits: str, number: int, width: int) -> bool:
    return digits == str(number).zfill(width)


def _bracket_body(numbers: Sequence[str]) -> str:
    """Render consecutive numeric strings as ``01-04,07`` so that expansion gives them back."""
    parts: list[str] = []
    i = 0
    while i < len(numbers):
        lo = numbers[i]
        first = int(lo)
        j = i + 1
        while j < len(numbers) and _fits(numbers[j], first + (j - i), len(lo)):
            j += 1
        last = numbers[j - 1]
        parts.append(lo if j - i == 1 else f"{lo}-{last}")
        i = j
    return ",".join(parts)


def compress(hosts: Iterable[str]) -> str:
    """Inverse of ``expand`` for rendering: ``expand(compress(h)) == tuple(h)``.

    Only neighbours that share a prefix are merged, so the order (and the first host) is
    kept; SLURM's own compression sorts, which would change which host is first.
    """
    groups: list[tuple[str, list[str]]] = []  # (prefix, digit strings) or (name, []) literal
    for host in hosts:
        if not host or any(ch in host for ch in "[],") or any(ch.isspace() for ch in host):
            raise ConfigError(f"cannot write {host!r} in a SLURM host list", _HINT)
        match = _TRAILING_DIGITS.match(host)
        if match is None:
            groups.append((host, []))
            continue
        prefix, digits = match.group(1), match.group(2)
        if groups and groups[-1][1] and groups[-1][0] == prefix:
            groups[-1][1].append(digits)
        else:
            groups.append((prefix, [digits]))
    rendered: list[str] = []
    for prefix, numbers in groups:
        if not numbers:
            rendered.append(prefix)
        elif len(numbers) == 1:
            rendered.append(prefix + numbers[0])
        else:
            rendered.append(f"{prefix}[{_bracket_body(numbers)}]")
    return ",".join(rendered)


def expand_counts(text: str) -> tuple[int, ...]:
    """Expand SLURM's compressed per-node counts: ``2(x3),1`` → (2, 2, 2, 1).

    Used for ``SLURM_TASKS_PER_NODE`` / ``SLURM_STEP_TASKS_PER_NODE`` /
    ``SLURM_JOB_CPUS_PER_NODE``. Raises ``ConfigError`` on anything else.
    """
    out: list[int] = []
    for item in text.strip().split(","):
        match = _COUNT_ITEM.match(item)
        if match is None:
            raise ConfigError(
                f"invalid SLURM per-node count list {text!r}: {item!r}",
                "the format is N or N(xREPEAT), comma-separated, e.g. 2(x3),1",
            )
        repeat = int(match.group(2) or 1)
        if len(out) + repeat > MAX_HOSTS:
            raise ConfigError(f"invalid SLURM per-node count list {text!r}: too many nodes")
        out.extend([int(match.group(1))] * repeat)
    return tuple(out)
