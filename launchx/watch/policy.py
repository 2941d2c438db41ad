"""``--hang-timeout`` and what follows from it: how long no progress means a hang.

Its own small module (no regexes, no stacks) so that the command line and profile checks
can read it without the cost of the verdict's rules.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from launchx.errors import ConfigError

HangMode = Literal["off", "fixed", "auto"]


@dataclass(frozen=True)
class HangPolicy:
    mode: HangMode = "auto"
    timeout_s: float | None = None  # mode "fixed"
    floor_s: float = 60.0
    factor: float = 5.0  # NVRx's safety factor over observed intervals (hangs.md §5)
    initial_s: float = 600.0  # auto, before the rhythm is known
    ceiling_s: float | None = None  # auto never exceeds it (keep it under the PG timeout)
    learn_gaps: int = 5
    busy_cpu: float = 0.10  # cores; a waiting rank uses ~0.005
    busy_io_bps: float = 256 * 1024.0  # a hung NCCL rank still polls its TCPStore (~100 B/s)
    suspect_fraction: float = 0.5
    straggler_fraction: float = 0.5
    resample_s: float | None = None  # default: a quarter of the timeout, 1..30 s
    confirm_samples: int = 3
    stack_rounds_for_hang: int = 2

    def resample_after(self, timeout_s: float) -> float:
        if self.resample_s is not None:
            return self.resample_s
        return min(30.0, max(1.0, timeout_s / 4))


def parse_hang_timeout(text: str, *, origin: str = "--hang-timeout") -> HangPolicy:
    """``SECONDS``, ``auto`` or ``off``; anything else (negative, zero, text, inf) is the
    user's error, reported before anything starts."""
    value = text.strip().lower()
    if value == "auto":
        return HangPolicy(mode="auto")
    if value == "off":
        return HangPolicy(mode="off")
    hint = f"{origin} takes a number of seconds > 0 (e.g. 300), 'auto' or 'off'"
    try:
        seconds = float(value.removesuffix("s")) if value else math.nan
    except ValueError:
        raise ConfigError(f"{origin} {text!r} is not a number of seconds", hint) from None
    if not math.isfinite(seconds):
        raise ConfigError(f"{origin} {text!r} is not a finite number of seconds", hint)
    if seconds <= 0:
        raise ConfigError(f"{origin} {text!r} must be greater than zero", hint)
    return HangPolicy(mode="fixed", timeout_s=seconds)
