"""What a failure rule is, the categories it names, and which of them are retried.

The categories and their retry policy are read by profile validation and the run loop;
nothing here compiles a rule's pattern (``unknown_categories`` compiles nothing)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Scope = Literal["any", "root_failure"]

CATEGORIES: tuple[str, ...] = (
    "nccl_watchdog_timeout",
    "collective_timeout",
    "nccl_system_error",
    "nccl_internal_error",
    "nccl_invalid_usage",
    "nccl_version_mismatch",
    "ib_error",
    "socket_error",
    "shm_error",
    "port_in_use",
    "rendezvous_timeout",
    "duplicate_gpu",
    "cuda_oom",
    "host_oom_killed",
    "killed",
    "segfault",
    "cuda_error",
    "gloo_error",
    "nested_launch",
    "deprecated_env",
    "user_code_error",
    "preempted",
    "interrupted",
    "nccl_config_error",
    "cuda_config_error",
    "world_mismatch",
    "dataloader_killed",
    "launcher_died",
    "hang",
    "aborted",
    "unknown",
)


def unknown_categories(names: Sequence[str]) -> tuple[str, ...]:
    """Names in a retry policy that are not categories. Lives with the data, not in
    ``failures``, so profile validation does not compile the log patterns."""
    return tuple(n for n in names if n not in CATEGORIES)


RETRYABLE_BY_DEFAULT: frozenset[str] = frozenset(
    {
        "hang",
        "port_in_use",
        "preempted",
    }
)
"""Transient by nature: the same command can succeed on the next attempt. Everything else
is not retried unless a profile's ``retry.on`` names it, or the run's own evidence says so
(``RETRIED_ON_PROGRESS``); a rule may narrow its category's default (``Rule.retryable``).
``interrupted`` is never retried, whatever the policy says.

``hang`` is launchx's own verdict, with the stuck rank's stack; a port taken between the
check and the bind, a preemption are faults of the moment. Drawn from the corpus
(tests/fixtures/logs): ``nccl_system_error`` and a lost gloo peer are configuration or a
peer's own bug far more often than a transient fault; none of them is retried by default.
An InfiniBand error was retried by default until issue 12's thirteenth round: see
``RETRIED_ON_PROGRESS``."""

RETRIED_ON_PROGRESS: frozenset[str] = frozenset(
    {
        "ib_error",
        "killed",
        "nccl_watchdog_timeout",
        "collective_timeout",
        "rendezvous_timeout",
        "socket_error",
    }
)
"""Failures that a log alone cannot call transient or deterministic, which ``launchx run``
retries only when a complete checkpoint exists after the attempt: the retry resumes from it
instead of repeating the run from its start, and the repeat rule stops it when the same
failure comes back without progress. ``launchx diagnose``, which sees only the log, does not call
them retryable.

Why not retried on the log alone: a collective timeout, a rendezvous that timed out, a
socket that closed or a bare SIGKILL name how a run died, not why. In the development corpus
the logs that the timeout rules leave to the category default are labelled transient about
half the time (a mid-run hang on a flaky node) and the other half a repeating cause (a slow
step that outlasts the timeout every time, a node that was never started, a peer's crash);
the blind labels of later rounds call most of them undecided. A retry spent on a
deterministic failure costs a whole attempt, and from step 0 without a checkpoint; with one,
a one-off fault late in a week-long run is still recovered. A rule that reads the timeout's
own numbers (``LX550``: within the first collectives; ``LX568``: a short timeout) is final:
no checkpoint changes what it says. A profile's ``retry.on`` retries them regardless,
``retry.never`` never.

An InfiniBand or RoCE transfer error (``LX518``: a completion with status 12, an async port
event) is the same kind: a link that flapped under a running job, or a fabric configured so
that the first transfer fails every time (a GID index, a docker hostfile, a port that cannot
reach the other node). Of the development logs it names, half are labelled transient and
half undecided or deterministic; "a complete checkpoint after the attempt" is what tells
them apart, since a run that got that far had a working fabric. The IB rules that read a
configuration fault from the error itself (LX563, LX567, LX569, LX558) are final."""

DISPROVED_BY_PROGRESS: frozenset[str] = frozenset({"LX550"})
"""Final rules whose reading is "the run never got past its first steps" (a collective
among the first of its process group timed out). An attempt that wrote a complete
checkpoint of its own did get past them (a process group that runs few collectives, a
hang soon after a resume: its numbers start again at each attempt), so ``launchx run``
retries it from that checkpoint, as it does any collective timeout."""

NEVER_RETRIED: frozenset[str] = frozenset({"interrupted"})
"""A user's Ctrl-C or kill is an instruction, not a failure (house rule 6)."""

WAITING_ON_PEER: frozenset[str] = frozenset(
    {"nccl_watchdog_timeout", "collective_timeout", "gloo_error", "socket_error", "unknown"}
)
"""Categories whose cause is "someone else was late or gone": what a rank says when a peer
stopped answering. A straggler that the watchdog or the flight recorder names is that
someone (``runview``); across nodes, such a report never outweighs a peer's own end, even
one known only from its exit status (``agree``)."""

RAISED_BY_THE_SCRIPT: frozenset[str] = frozenset({"user_code_error", "cuda_oom"})
"""What a rank's own script raises and a peer's death cannot cause: a KeyError, a CUDA OOM.
Across nodes it outweighs another node's native crash, which can be gloo's teardown of the
connection the exception broke (``agree``); a node stopped because another node failed
first still reports it, since that other node's failure may be this one's consequence
(``run.decide``)."""


@dataclass(frozen=True)
class Case:
    """One situation of a rule whose patterns name several (a rule is one code, and a code
    keeps its failures: ``launchx.codes``), worded on its own so that the report says the
    cause and fix of the situation the log shows, not of every situation the code covers.
    ``when``: regular expressions searched in the lines the rule matched; the first matched
    line that one of a rule's cases names, in log order with lines logged as warnings last,
    picks that case (the rule's own ``cause`` and ``fix`` stand when none does)."""

    when: tuple[str, ...]
    cause: str
    fix: str


@dataclass(frozen=True)
class Rule:
    """One failure signature. ``patterns`` are regular expressions searched in each log
    line (after rank prefixes and log headers are stripped); a line matching any of
    ``exclude`` is skipped. ``retryable`` overrides the category default when not None.
    ``scope="root_failure"`` limits matching to torchrun's root-cause summary, so exit codes
    of ranks torchrun itself terminated are not mistaken for the cause. ``min_hits`` asks for
    the same line to appear that many times (a duplicated rank announcement).

    Seven refinements, each read the same way by the matcher:
    ``requires``: another line of the same log must match one of these (a fact and its
    consequence: NCCL picked a docker bridge address *and* a socket call failed);
    ``not_after``: a line counts only when no earlier line of the log matches one of these
    (once srun terminates a step itself, every later kill and cancel is its doing);
    ``not_before``: a line counts only when none of the 60 lines below it in its source
    matches one of these (a ``raise`` the paste ends at: its exception line never printed);
    ``context``: one of the 60 lines above the match on the same rank (its traceback)
    must match one of these; ``compare=(a, b)``: the pattern's named groups ``a`` and ``b``
    are numbers and the line counts only when a > b; ``not_raised_in``: a matched line (an
    exception line, or the source line Python prints under a frame) does not count when the
    traceback frame nearest above it (the frame that raised it, a few lines above:
    ``rulematch._RAISER_GAP``) matches one of these (a spawned child reading its arguments
    from a dead parent);
    ``raised_in``: an exception line counts only when that frame matches one of these (a
    launcher's own code, not a script it runs in its own process).
    ``on_progress``: retried by the run loop once a checkpoint exists, as the categories of
    ``RETRIED_ON_PROGRESS`` are, for a rule whose category is not one of them (with
    ``retryable=False`` it narrows a retried category to that: a time limit met with no
    checkpoint). A named
    group ``rank`` in a pattern gives the rank the line is about when no prefix does
    (``process rank 3 ... exited``); a group ``named_rank`` is a rank the message names
    that may be a subgroup's (``[7] is setting up NCCL communicator``): the diagnosis names
    it only when neither a prefix nor the launcher names a rank.
    ``cases``: the situations the rule's patterns name, each with its own cause and fix
    (``Case``).
    ``fixtures``: development-corpus logs (tests/fixtures/logs/dev) whose diagnosis this
    rule is; the tests hold each rule to them."""

    name: str
    category: str
    code: str
    priority: int
    patterns: tuple[str, ...]
    cause: str
    fix: str
    exclude: tuple[str, ...] = ()
    retryable: bool | None = None
    scope: Scope = "any"
    min_hits: int = 1
    requires: tuple[str, ...] = ()
    not_after: tuple[str, ...] = ()
    not_before: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    compare: tuple[str, str] | None = None
    not_raised_in: tuple[str, ...] = ()
    raised_in: tuple[str, ...] = ()
    on_progress: bool = False
    cases: tuple[Case, ...] = ()
    fixtures: tuple[str, ...] = ()


def tier(priority: int) -> int:
    """2: stopped from outside; 1: a root cause; 0: usually a symptom of another failure."""
    if priority >= 100:
        return 2
    return 1 if priority >= 50 else 0
