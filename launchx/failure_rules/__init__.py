"""The failure knowledge base: what a failed run's log says, what it means, what to do.

Kept as data (reviewed like code, one fixture test per rule) so that adding a failure
signature never means touching the matching logic in ``launchx.failures``. The rules are
grouped by what failed, one module each: ``stopped`` (from outside), ``nccl`` (collectives,
NCCL's configuration, InfiniBand), ``network`` (sockets, stores, rendezvous, ports, gloo,
world size), ``gpu`` (CUDA), ``processes`` (signals, kills and launchers that failed) and
``script`` (the script's own errors and deprecated settings). What a rule is and the
categories' retry policy are in ``model``, the pieces of patterns several rules share in
``patterns``, the words a line must hold to be read at all in ``anchors``, and the
diagnoses made from exit statuses rather than lines in ``signals``.

Priorities decide which finding is the *cause* when a log shows several: one rank's
``KeyError`` makes every other rank report a gloo "Connection closed by peer", so those
transport symptoms rank low. Three tiers follow from the number (see ``tier``): >= 100 the
run was stopped from outside (preemption, a user's Ctrl-C, a refused nested launch); 50-99
a root cause; below 50 symptoms that are usually collateral damage of a failure elsewhere
and are reported as the cause only when nothing better is in the log.

A collective timeout (50-54) is a root-cause tier, at the bottom of it: a rank that gives
up *waiting* for a peer is the first observable failure of a hang (the stuck peer never
fails on its own), while a rank whose peer *died* only sees the connection close. So a
timeout on one node beats a closed connection on another (they agree on the timeout and
retry), and any real error (a KeyError, a segfault, an OOM) still beats the timeout, whatever
the numbers. (Three waits that say less, the store's, a Ray
channel's and vLLM's RPC's, stand at 45, with the symptoms.)

The cause and fix texts were checked against ``reference/env-vars.md``: no collective
timeout is settable by environment (``NCCL_TIMEOUT``/``TORCH_DISTRIBUTED_TIMEOUT`` are read
by nothing); ``NCCL_SOCKET_IFNAME`` is a prefix match unless written ``=name``;
``NCCL_IB_TIMEOUT`` 20 x 7 retries is about 30 s; ``NCCL_ALGO`` tokens are comma-separated.
"""

from __future__ import annotations

from launchx.failure_rules import gpu, nccl, network, processes, script, stopped
from launchx.failure_rules.anchors import ANCHORS
from launchx.failure_rules.model import (
    CATEGORIES,
    DISPROVED_BY_PROGRESS,
    NEVER_RETRIED,
    RAISED_BY_THE_SCRIPT,
    RETRIED_ON_PROGRESS,
    RETRYABLE_BY_DEFAULT,
    WAITING_ON_PEER,
    Case,
    Rule,
    Scope,
    tier,
    unknown_categories,
)
from launchx.failure_rules.patterns import (
    EXCEPTION_LINE,
    MODULE_ERROR,
    MODULE_ERROR_NAMES,
    SRUN_TERMINATES_STEP,
)
from launchx.failure_rules.signals import (
    EVALUATION_WORK,
    NAMED_STRAGGLER_FIX,
    RANK0_WORK,
    SIGKILL_REPORTS,
    SIGNAL_HINTS,
    SIGNAL_RULES,
    TIMEOUT_CATEGORIES,
    UNKNOWN_CAUSE,
    UNKNOWN_CODE,
    UNKNOWN_FIX,
    SignalRule,
)

RULES: tuple[Rule, ...] = (
    *stopped.RULES,
    *nccl.RULES,
    *network.RULES,
    *gpu.RULES,
    *processes.RULES,
    *script.RULES,
)
"""Every rule, by topic. The order decides nothing: where two rules read the same line, their
priorities say which is the cause, and a test holds every development log to the same
diagnosis with the rules in reverse order (``tests/test_diagnose_corpus.py``)."""

__all__ = [
    "ANCHORS",
    "CATEGORIES",
    "DISPROVED_BY_PROGRESS",
    "EVALUATION_WORK",
    "EXCEPTION_LINE",
    "MODULE_ERROR",
    "MODULE_ERROR_NAMES",
    "NAMED_STRAGGLER_FIX",
    "NEVER_RETRIED",
    "RAISED_BY_THE_SCRIPT",
    "RANK0_WORK",
    "RETRIED_ON_PROGRESS",
    "RETRYABLE_BY_DEFAULT",
    "RULES",
    "SIGKILL_REPORTS",
    "SIGNAL_HINTS",
    "SIGNAL_RULES",
    "SRUN_TERMINATES_STEP",
    "TIMEOUT_CATEGORIES",
    "UNKNOWN_CAUSE",
    "UNKNOWN_CODE",
    "UNKNOWN_FIX",
    "WAITING_ON_PEER",
    "Case",
    "Rule",
    "Scope",
    "SignalRule",
    "tier",
    "unknown_categories",
]
