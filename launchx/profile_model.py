"""The profile schema: what a profile YAML file may say, validated by pydantic.

Unknown keys are errors (``extra="forbid"``) so a typo never silently does nothing.
The blocks for timeouts, retry, resume and SLURM are defined here, once, so profiles
written today keep working as those features deepen.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from launchx import consoleranks

Launcher = Literal["auto", "torchrun", "srun", "direct"]
Backend = Literal["auto", "nccl", "gloo"]
NprocSpec = Annotated[int, Field(ge=1)] | Literal["gpu", "cpu", "auto"]
PortSpec = Annotated[int, Field(ge=1, le=65535)] | Literal["auto"]

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Timeouts(_Strict):
    pg_timeout_s: Annotated[int, Field(ge=1)] = 1800
    """Collective timeout for init_process_group (no env var sets it; scripts read
    LAUNCHX_PG_TIMEOUT_S). 30 min: long enough for a checkpoint save stall."""
    rdzv_timeout_s: Annotated[int, Field(ge=1)] = 900
    grace_period_s: Annotated[float, Field(gt=0)] = 30.0
    """Time ranks get to exit after SIGINT/SIGTERM before SIGKILL (torchrun's own is 30 s)."""
    hang_s: str = "auto"
    """No progress on any rank for this long is a hang: SECONDS, auto (learned from the
    run's rhythm) or off. Checked by ``launchx.watch.policy``."""

    @field_validator("hang_s", mode="before")
    @classmethod
    def _hang_as_text(cls, value: object) -> object:
        """YAML gives ``hang_s: 300`` as a number; the setting is text (it may be auto)."""
        return (
            str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value
        )


class Retry(_Strict):
    max_retries: Annotated[int, Field(ge=0)] = 3
    backoff_min_s: Annotated[float, Field(ge=0)] = 5.0
    backoff_max_s: Annotated[float, Field(ge=0)] = 120.0
    jitter_s: Annotated[float, Field(ge=0)] = 5.0
    on: tuple[str, ...] = ()
    """Failure categories to retry on top of the default transient set."""
    never: tuple[str, ...] = ()
    """Failure categories never to retry, even if transient by default."""


class Resume(_Strict):
    checkpoint_dir: str | None = None
    resume_arg: str | None = None
    """Appended to the script's arguments when a checkpoint exists, e.g. "--resume {path}"."""

    @field_validator("resume_arg")
    @classmethod
    def _splits_into_words(cls, value: str | None) -> str | None:
        """Split as a shell would (``plan.with_resume_arg``) only once a checkpoint exists:
        an unbalanced quote must fail here, not at the first retry on the cluster."""
        if value is not None:
            import shlex

            try:
                shlex.split(value)
            except ValueError as exc:
                raise ValueError(
                    f"cannot be split into arguments ({str(exc).lower()}): close the quote, "
                    "e.g. '--resume {path}'"
                ) from None
        return value


class Logs(_Strict):
    keep_runs: Annotated[int, Field(ge=1)] = 20
    """Runs kept under the default log root (the temp dir's launchx/): the oldest go."""
    console_ranks: str = "all"
    """The ranks whose output the console shows: all, or global ranks ("0", "0,8", "0-3");
    the others' from their first error line on. Every rank's output is in its log file."""

    @field_validator("console_ranks", mode="before")
    @classmethod
    def _ranks(cls, value: object) -> object:
        """YAML gives ``console_ranks: 0`` as a number and ``[0, 8]`` as a list; stored as
        "0-3,8"-style text. (YAML 1.1 reads an unquoted 010 as octal: quote such values.)"""
        if isinstance(value, list) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            value = ",".join(map(str, value))
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        return consoleranks.canonical(value) if isinstance(value, str) else value


class Preflight(_Strict):
    enabled: bool = False
    """Check every node (``launchx doctor`` across the nodes) before the first attempt, and
    do not start on errors: a node with fewer GPUs, another NCCL, a port down, a slow link."""
    join_timeout_s: Annotated[float, Field(gt=0)] = 60.0
    """How long node 0 waits for the other nodes to join the check."""
    comm: bool = True
    """Include the link test (an all_reduce bandwidth sweep with the job's environment)."""


class Slurm(_Strict):
    mode: Literal["per_node", "per_task"] = "per_node"
    """per_node: srun one task per node, each runs torchrun; per_task: srun one task per
    process, mapped to RANK/LOCAL_RANK/... by ``python -m launchx.task``."""
    nodes: Annotated[int, Field(ge=1)] | None = None
    """Nodes to allocate."""
    gpus_per_node: Annotated[int, Field(ge=0)] | None = None
    """GPUs per node (0 for a CPU job)."""
    ntasks_per_node: Annotated[int, Field(ge=1)] | None = None
    """SLURM tasks per node (per_task mode: one per process)."""
    cpus_per_task: Annotated[int, Field(ge=1)] | None = None
    """CPUs per SLURM task."""
    time: str | None = None
    """Time limit, e.g. 12:00:00 or 1-00:00:00."""
    partition: str | None = None
    """Partition to submit to."""
    account: str | None = None
    """Account to charge."""
    qos: str | None = None
    """Quality of service."""
    job_name: str | None = None
    """Job name (default: launchx-PROFILE)."""
    output: str | None = None
    """sbatch --output pattern."""
    signal: str | None = "B:USR2@120"
    """Warning before the time limit, e.g. USR2@120."""
    requeue: bool = False
    """Requeue the job on the warning, after the ranks checkpoint."""
    sbatch_args: tuple[str, ...] = ()
    """Extra sbatch option, one per flag (repeatable)."""


class Profile(_Strict):
    name: str
    description: str = ""
    extends: str | None = None
    launcher: Launcher = "auto"
    backend: Backend = "auto"
    nnodes: Annotated[int, Field(ge=1)] | Literal["auto"] = 1
    nproc_per_node: NprocSpec = "auto"
    node_rank: Annotated[int, Field(ge=0)] | Literal["auto"] = "auto"
    master_addr: str = "auto"
    master_port: PortSpec = "auto"
    env: dict[str, str] = Field(default_factory=dict)
    allow_inner_launcher: bool = False
    """Let the command launchx runs per rank be a launcher itself (torchrun, accelerate
    launch, deepspeed, ...): each rank then starts a world of its own. For those who know."""
    timeouts: Timeouts = Field(default_factory=Timeouts)
    retry: Retry = Field(default_factory=Retry)
    resume: Resume = Field(default_factory=Resume)
    slurm: Slurm = Field(default_factory=Slurm)
    logs: Logs = Field(default_factory=Logs)
    preflight: Preflight = Field(default_factory=Preflight)

    @field_validator("env", mode="before")
    @classmethod
    def _env_values_are_strings(cls, value: object) -> object:
        """YAML turns ``1`` into an int and ``yes`` into a bool; the environment only has
        strings, so convert scalars explicitly (bools the way NCCL expects: 1/0)."""
        if not isinstance(value, dict):
            return value
        out: dict[object, object] = {}
        for key, val in value.items():
            if not isinstance(key, str) or not _ENV_NAME.fullmatch(key):
                raise ValueError(f"{key!r} is not a valid environment variable name")
            if isinstance(val, bool):
                val = "1" if val else "0"
            elif isinstance(val, int | float):
                val = str(val)
            elif val is None:
                raise ValueError(f"env.{key} has no value; write '' for an empty string")
            out[key] = val
        return out


TOP_LEVEL_KEYS: tuple[str, ...] = tuple(Profile.model_fields)


def field_docs(model: type[BaseModel]) -> dict[str, str]:
    """Each field's docstring, read from this file: the one text for the profile reference
    and the command-line help (``launchx sbatch`` takes the slurm block's fields as flags).
    Parsed on demand, not at import (pydantic's ``use_attribute_docstrings`` would cost
    every command's start-up)."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(__file__).read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == model.__name__)
    docs: dict[str, str] = {}
    for field, doc in zip(cls.body, cls.body[1:], strict=False):
        if (
            isinstance(field, ast.AnnAssign)
            and isinstance(field.target, ast.Name)
            and isinstance(doc, ast.Expr)
            and isinstance(doc.value, ast.Constant)
            and isinstance(doc.value.value, str)
        ):
            docs[field.target.id] = " ".join(doc.value.value.split())
    return docs
