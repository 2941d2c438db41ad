"""Diagnoses made from what the run saw rather than from a log line: a rank's exit
status, a SIGKILL named by a launcher, the work just before a timeout, and the unknown
diagnosis with its hints."""

from __future__ import annotations

from dataclasses import dataclass

from launchx.failure_rules.patterns import RAISE_PG_TIMEOUT

SIGKILL_REPORTS: frozenset[str] = frozenset({"LX515", "LX533", "LX547"})
"""The rules that say a rank ended by SIGKILL: torchrun's summary (LX515), the signal rule
of an exit code (LX533), the other launchers' reports (LX547). When such a report names the
rank that printed an exception, the kill, not the exception, ended it (``runview``)."""

RANK0_WORK: tuple[str, ...] = (
    r"(?i)\bevaluat",
    r"(?i)\bvalidat",
    r"(?i)\btest(?:ing| set)\b",
    r"(?i)\bsaving\b",
    r"(?i)\bcheckpoint",
)
"""Words of rank-0-only work (evaluation, validation, saving). When rank 0 alone is missing
from a collective the others timed out in, and the lines just before the first timeout show
such work, the timeout repeats at the same point of every run (rule ``rank0_behind``)."""

EVALUATION_WORK: tuple[str, ...] = (r"(?i)\bevaluat", r"(?i)\bvalidat")
"""Words of an evaluation pass. When the lines just before the first timeout show one, the
timeout came at an evaluation, whichever rank was late: evaluation that only some ranks do
or that takes longer than the timeout comes back at every evaluation (rule
``timeout_in_evaluation``). Narrower than ``RANK0_WORK``: a "saving checkpoint" line before
a timeout says nothing about the next attempt."""

SIGNAL_HINTS: dict[int, str] = {
    7: "SIGBUS in training is most often /dev/shm too small or full (containers: --ipc=host or "
    "--shm-size), else a memory-mapped file (dataset, checkpoint) that shrank while in use.",
    6: "SIGABRT follows a C++ exception or a failed check (look for 'terminate called' or "
    "'what():' lines) or NCCL's watchdog tearing the process down after a timeout.",
    9: "SIGKILL comes from outside: the kernel OOM killer (dmesg), a scheduler or a person.",
}
"""What a bare signal usually means, appended to the fix of an unknown diagnosis: a signal
that no launcher's report in the log names (a launcher's SIGABRT is LX807's)."""

NAMED_STRAGGLER_FIX = (
    "look at rank {rank}: what it was doing when the others gave up, or how it ended (its own "
    "lines and exit status): a data loader, a branch only some ranks take (rank 0's "
    "evaluation or save), an early exit on uneven data. Make every rank call the same "
    "collectives in the same order (uneven data: torch.distributed.algorithms.Join or "
    f"drop_last=True); if its work is legitimately longer than the timeout, {RAISE_PG_TIMEOUT}."
)
"""The fix of a timeout whose logs name the one rank the others waited for (a rank that
said nothing of its own: gloo's timeouts, a watchdog report missing from one rank): the
timeout rules' own fix begins by asking to find that rank, which the report has done."""

TIMEOUT_CATEGORIES: frozenset[str] = frozenset({"collective_timeout", "nccl_watchdog_timeout"})

UNKNOWN_CODE = "LX599"
UNKNOWN_CAUSE = "no known failure signature in the log."
UNKNOWN_FIX = (
    "read the first error of the earliest failing rank; rerun with NCCL_DEBUG=INFO, "
    "TORCH_DISTRIBUTED_DEBUG=DETAIL and PYTHONFAULTHANDLER=1 for more detail."
)


@dataclass(frozen=True)
class SignalRule:
    """A diagnosis made from a rank's exit status alone, when its log said nothing better."""

    name: str
    category: str
    code: str
    cause: str
    fix: str


SIGNAL_RULES: dict[str, SignalRule] = {
    r.name: r
    for r in (
        SignalRule(
            "oom_sigkill",
            "host_oom_killed",
            "LX530",
            "a rank was SIGKILLed and the run's memory accounting recorded an OOM kill (the "
            "cgroup's oom_kill counter, the kernel log or SLURM): host RAM, not GPU memory, "
            "ran out.",
            "lower DataLoader num_workers/prefetch_factor, stop loading the whole dataset or "
            "checkpoint on every rank (torch.load(..., mmap=True)), or ask for more --mem.",
        ),
        SignalRule(
            "sigsegv",
            "segfault",
            "LX531",
            "a rank died of SIGSEGV (a native crash) without a Python traceback.",
            "get the native stack with PYTHONFAULTHANDLER=1 and core dumps; check that "
            "extensions and CUDA/NCCL libraries match the installed torch.",
        ),
        SignalRule(
            "sigterm_all",
            "interrupted",
            "LX532",
            "the run (or its ranks) received SIGINT/SIGTERM from outside.",
            "nothing to fix; start it again when wanted. Interrupts are never retried.",
        ),
        SignalRule(
            "sigkill",
            "killed",
            "LX533",
            "a rank was killed by an external SIGKILL (torchrun and launchx send SIGTERM "
            "first): the kernel or cgroup OOM killer, a scheduler, a watchdog or a person. "
            "Nothing in the log says which.",
            "look for the killer: `dmesg -T | grep -i 'killed process'` (OOM), `sacct -j "
            "<job> -o JobID,State,MaxRSS` (SLURM OUT_OF_MEMORY), the cgroup's memory.events "
            "oom_kill counter; if it repeats at the same step, treat it as an OOM (fewer "
            "DataLoader workers, torch.load(mmap=True), more --mem).",
        ),
        SignalRule(
            "sigterm_external",
            "killed",
            "LX534",
            "the rank that failed first was stopped by a SIGTERM that launchx did not send: a "
            "health agent, an admin's kill, a preemption or the OOM-avoidance of a platform; "
            "the other ranks only lost their peer.",
            "find who sent it (the scheduler's or the node's agent logs, `sacct`); launchx "
            "retries it once a checkpoint can resume the run (profile retry.never: [killed] "
            "stops that).",
        ),
        SignalRule(
            "scheduler_warning",
            "preempted",
            "LX825",
            "the scheduler's warning signal came (SLURM's --signal before the time limit, or "
            "a preemption or requeue: scancel --signal=USR1/USR2), and launchx stopped the "
            "attempt there: the ranks' own exits are that stop's, not a fault.",
            "nothing to fix: a job submitted with --requeue goes on from its newest complete "
            "checkpoint; ask for more --time, or checkpoint more often, if too much work was "
            "lost since the last one.",
        ),
        SignalRule(
            "launcher_died",
            "launcher_died",
            "LX539",
            "the launcher itself (torchrun) died before it could say how its ranks ended: it "
            "was killed from outside (its ranks went with it).",
            "find who killed it (an OOM killer, a health agent, a person); launchx does not "
            "retry it by default (add launcher_died to the profile's retry.on to retry).",
        ),
        SignalRule(
            "aborted",
            "aborted",
            "LX555",
            "launchx stopped this node's ranks because another node's attempt failed first "
            "(waiting for it in a collective would only have ended in a timeout).",
            "read the diagnosis of the node that failed: the nodes agree on it and retry, or "
            "stop, together.",
        ),
        SignalRule(
            "hang",
            "hang",
            "LX554",
            "no rank made progress for the hang timeout (launchx watched their output, CPU, "
            "I/O and stacks); launchx named the stuck rank(s), stopped them and retries.",
            "read the hang report (the stuck rank's stack, and hang/ in the attempt's log "
            "directory): a rank that skipped a collective, a DataLoader deadlock, a dead NIC "
            "or filesystem. --hang-timeout sets how long no progress means a hang.",
        ),
        SignalRule(
            "missing_from_collective",
            "collective_timeout",
            "LX535",
            "the other ranks waited in a collective this rank never joined (flight recorder "
            "or NCCL watchdog sequence numbers): it was stuck or busy elsewhere, or the ranks' "
            "code issued different collectives.",
            "look at what the missing rank was doing at the call site shown (a data loader, a "
            "rank-0-only branch, an early exit on uneven data); make every rank call the same "
            "collectives in the same order (uneven data: torch.distributed.algorithms.Join or "
            "drop_last=True).",
        ),
        SignalRule(
            "rank0_behind",
            "collective_timeout",
            "LX537",
            "rank-0-only work (evaluation, saving a checkpoint, preparing data, logging) "
            "outlasted the process-group timeout; that happens again at the same point of every "
            "run, so it is not retried.",
            "make every rank take part in evaluation (a DistributedSampler for the eval set), "
            "or have the others wait in a barrier with a long enough timeout; raise the timeout "
            "in code (init_process_group(timeout=timedelta(seconds=int(os.environ["
            "'LAUNCHX_PG_TIMEOUT_S']))) and the profile's timeouts.pg_timeout_s) when the work "
            "is legitimately long.",
        ),
        SignalRule(
            "collectives_diverged",
            "nccl_watchdog_timeout",
            "LX566",
            "the sequence number counts each process group's collectives on every rank, so "
            "the ranks issued their collectives in different orders (a rank-dependent branch, "
            "a collective inside a condition, uneven data at the end of an epoch); the same "
            "code diverges the same way again, so it is not retried.",
            "make every rank call the same collectives in the same order (drop_last=True, no "
            "collective under a rank-dependent condition); TORCH_DISTRIBUTED_DEBUG=DETAIL "
            "checks the order and shapes at every call and names the first difference.",
        ),
        SignalRule(
            "timeout_in_evaluation",
            "nccl_watchdog_timeout",
            "LX564",
            "the timeout came during an evaluation pass (the lines before it say so): "
            "evaluation that only some ranks run, or that outlasts the process-group timeout "
            "while others wait, comes back at every evaluation, so it is not retried.",
            "shard the evaluation set across every rank (a DistributedSampler) or run it on "
            "every rank, make the ranks that skip it wait in a barrier with a long enough "
            "timeout, or raise the timeout in code (init_process_group(timeout=...); "
            "launchx.runtime.init_distributed reads LAUNCHX_PG_TIMEOUT_S).",
        ),
        SignalRule(
            "world_larger_than_launched",
            "world_mismatch",
            "LX826",
            "the script asked init_process_group for more ranks than the launcher started "
            "(a world_size of its own): the ranks that came wait for a rank that never will, "
            "until the store's timeout, on every start.",
            "let init_process_group take its world size and rank from the launcher (call it "
            "without world_size= and rank=: torchrun and launchx run set WORLD_SIZE and RANK, "
            "which env:// reads), or start as many ranks as the script expects: --nnodes "
            "times --nproc-per-node.",
        ),
        SignalRule(
            "nccl_versions_differ",
            "nccl_version_mismatch",
            "LX536",
            "ranks loaded different NCCL versions (NCCL prints its version at init): different "
            "torch wheels, or a system libnccl on LD_LIBRARY_PATH on some nodes.",
            "install the same torch build on every node and compare "
            "python -c 'import torch; print(torch.cuda.nccl.version())' across nodes; remove "
            "stray libnccl paths from LD_LIBRARY_PATH.",
        ),
    )
}
"""Diagnoses made from exit codes alone (``classify_attempt`` and torchrun's summary)."""
