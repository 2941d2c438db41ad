"""Typed errors: library code raises these, only the CLI turns them into a message.

Every error carries the problem (``message``) and what to do about it (``hint``) so the
user never has to read a traceback to learn either.
"""

from __future__ import annotations


class LaunchxError(Exception):
    """Base of every error launchx reports to the user itself."""

    exit_code = 2

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def render(self) -> str:
        text = f"launchx: error: {self.message}"
        if self.hint:
            text += f"\n  fix: {self.hint}"
        return text

    def as_json(self) -> str:
        """One line, schema ``launchx-error/1``: what ``--json`` prints for a refusal."""
        import json

        return json.dumps(
            {
                "schema": "launchx-error/1",
                "exit_code": self.exit_code,
                "error": self.message,
                "fix": self.hint,
            }
        )


class ConfigError(LaunchxError):
    """A profile, flag, ``--set`` or environment value that cannot be used."""


class ProfileNotFound(ConfigError):
    """A profile name or path that no search location holds."""


class LaunchRefused(LaunchxError):
    """A launch that cannot work (nested launcher, port held, too many processes)."""


class SubmitError(LaunchxError):
    """``sbatch`` (or another scheduler call) failed; the message carries its own text."""

    exit_code = 1
