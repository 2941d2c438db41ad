"""Findings: what is wrong (or worth knowing) about a resolved launch.

Codes are stable promises (users grep for them, CI may allow-list them); each one, with
its level and meaning, is registered in ``launchx.codes``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from launchx import codes
from launchx.codes import Level

LEVELS: tuple[Level, ...] = ("error", "warning", "info")


@dataclass(frozen=True)
class Finding:
    code: str
    level: Level
    var: str | None
    message: str
    fix: str

    def to_json(self) -> dict[str, str | None]:
        return asdict(self)


def finding(code: str, var: str | None, message: str, fix: str) -> Finding:
    """A finding at the level its code always has (``launchx.codes``)."""
    return Finding(code, codes.level(code), var, message, fix)


def has_errors(findings: tuple[Finding, ...] | list[Finding]) -> bool:
    return any(f.level == "error" for f in findings)


def sort_findings(findings: list[Finding] | tuple[Finding, ...]) -> tuple[Finding, ...]:
    """Errors first, then warnings, then info; stable within a level, duplicates dropped."""
    unique = list(dict.fromkeys(findings))
    return tuple(sorted(unique, key=lambda f: LEVELS.index(f.level)))


def counted(n: int, one: str, many: str) -> str:
    """A count with its noun as a finding's sentence needs it: "1 process", "8 processes"
    (a message reads "1 processes" at the moment it matters most, a single-GPU host)."""
    return f"{n} {one if n == 1 else many}"
