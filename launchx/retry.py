"""The retry policy as data and pure decisions: what is retried, and when to give up.

launchx retries only failures whose diagnosis is transient. An attempt that advanced the
newest checkpoint does not use up the budget (a week-long run may survive many separate
faults); one that made no progress does. The same failure twice in a row with no progress
in between is not transient, whatever its category says. A user's interrupt is never
retried.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from launchx.profile_model import Retry


@dataclass(frozen=True)
class AttemptRecord:
    attempt: int
    exit_code: int
    duration_s: float
    category: str | None  # None when it succeeded
    retryable: bool
    signature: tuple[str, int | None, str] | None
    cause: str = ""
    resumed_from: str | None = None
    step_before: int | None = None  # newest complete checkpoint step before the attempt
    step_after: int | None = None  # ... and after it
    interrupted: bool = False
    log_dir: str | None = None
    tier: int = 0  # the diagnosis's (failures.Diagnosis.tier): how well it explains a failure

    @property
    def succeeded(self) -> bool:
        return self.exit_code == 0 and not self.interrupted

    @property
    def progressed(self) -> bool:
        return self.step_after is not None and (
            self.step_before is None or self.step_after > self.step_before
        )


def attempts_charged(history: Sequence[AttemptRecord]) -> int:
    """Failed attempts that count against the budget: those that made no progress."""
    return sum(1 for rec in history if not rec.succeeded and not rec.progressed)


def next_step(history: Sequence[AttemptRecord], policy: Retry) -> tuple[bool, str]:
    """Whether to start another attempt after the last one, and the reason in words."""
    last = history[-1]
    if last.succeeded:
        return False, "succeeded"
    if last.interrupted or last.category == "interrupted":
        return False, "interrupted by the user: never retried"
    if not last.retryable:
        return False, (f"{last.category} is not transient: another attempt would fail the same way")
    if len(history) >= 2:
        prev = history[-2]
        if (
            not prev.succeeded
            and prev.signature is not None
            and prev.signature == last.signature
            and not last.progressed
        ):
            return False, (
                f"the same {last.category} failure twice in a row with no "
                "checkpoint progress in between: not transient"
            )
    charged = attempts_charged(history)
    if charged > policy.max_retries:
        return False, (
            f"retry budget spent: {charged - 1} retr{'y' if charged == 2 else 'ies'} "
            f"without progress (max_retries={policy.max_retries})"
        )
    return True, "transient failure: retrying"
