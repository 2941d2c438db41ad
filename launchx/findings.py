"""Findings: what is wrong (or worth knowing) about a resolved launch.

Codes are stable promises (users grep for them, CI may allow-list them), so each range
belongs to one module: LX1xx catalog (variables and values), LX2xx host and launch
context (detect/plan), LX3xx profiles and resolution, LX4xx SLURM, LX5xx failures.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

Level = Literal["error", "warning", "info"]
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


def has_errors(findings: tuple[Finding, ...] | list[Finding]) -> bool:
    return any(f.level == "error" for f in findings)


def sort_findings(findings: list[Finding] | tuple[Finding, ...]) -> tuple[Finding, ...]:
    """Errors first, then warnings, then info; stable within a level, duplicates dropped."""
    unique = list(dict.fromkeys(findings))
    return tuple(sorted(unique, key=lambda f: LEVELS.index(f.level)))
