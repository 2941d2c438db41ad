"""Where a value came from, as data: ``explain`` prints it, decisions compare it.

Every value launchx passes on can say which layer set it (house rule 2). Decisions ask the
record (``origin.kind == "flag"``, ``origin == UNRESOLVED``) instead of parsing the words a
user reads; the words (``flag:--nnodes``, ``auto:/proc/net/route``) are made only by
``str()``, at the edge, and are the same words ``explain`` always printed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

OriginKind = Literal[
    "default",  # launchx's own default for the key
    "profile",  # a profile file (detail: the name or path as the user wrote it)
    "env",  # the user's environment (detail: the variable, when it is not the key itself)
    "set",  # --set KEY=VALUE (detail: the key, where it is not obvious)
    "flag",  # an explicit command-line flag (detail: the flag)
    "auto",  # filled from a host fact (detail: which fact)
    "renamed",  # the new name of a renamed variable (detail: the old name)
    "launchx",  # launchx sets it for its own reasons (detail: why, may be empty)
    "checkpoint",  # the newest complete checkpoint (or its absence, in detail)
    "mapped",  # copied from an outer launcher's variables (MPI, PMI, srun)
    "given",  # a literal value a caller passed on (its own origin is the caller's to say)
]


@dataclass(frozen=True, order=True)
class Origin:
    kind: OriginKind
    detail: str = ""

    def __str__(self) -> str:
        if self.kind == "set":
            return f"--set {self.detail}" if self.detail else "--set"
        if self.kind == "mapped":
            return "mapped from the launcher's variables"
        if self.kind == "launchx":
            return f"launchx: {self.detail}" if self.detail else "launchx"
        if self.kind == "checkpoint":
            return self.detail or "checkpoint"
        return f"{self.kind}:{self.detail}" if self.detail else self.kind

    @classmethod
    def profile(cls, ref: str) -> Origin:
        return cls("profile", ref)

    @classmethod
    def flag(cls, name: str) -> Origin:
        return cls("flag", name)

    @classmethod
    def env(cls, var: str = "") -> Origin:
        return cls("env", var)

    @classmethod
    def auto(cls, fact: str) -> Origin:
        return cls("auto", fact)

    @classmethod
    def launchx(cls, why: str = "") -> Origin:
        return cls("launchx", why)

    @classmethod
    def renamed(cls, old: str) -> Origin:
        return cls("renamed", old)


DEFAULT = Origin("default")
SET = Origin("set")
ENV = Origin("env")
LAUNCHX = Origin("launchx")
MAPPED = Origin("mapped")
GIVEN = Origin("given")
UNRESOLVED = Origin("auto", "unresolved")  # an auto value nothing on the host could fill
FREE_PORT = Origin("auto", "free port")
