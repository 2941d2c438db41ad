"""The failure knowledge base: what a failed run's log says, what it means, what to do.

Kept as data (reviewed like code, one fixture test per rule) so that adding a failure
signature never means touching the matching logic in ``launchx.failures``.

Priorities decide which finding is the *cause* when a log shows several: one rank's
``KeyError`` makes every other rank report a gloo "Connection closed by peer", so those
transport symptoms rank low. Three tiers follow from the number (see ``tier``): >= 100 the
run was stopped from outside (preemption, a user's Ctrl-C, a refused nested launch); 50-99
a root cause; below 50 symptoms that are usually collateral damage of a failure elsewhere
and are reported as the cause only when nothing better is in the log.

A collective timeout (50-52) is a root-cause tier, at the bottom of it: a rank that gives
up *waiting* for a peer is the first observable failure of a hang (the stuck peer never
fails on its own), while a rank whose peer *died* only sees the connection close. So a
timeout on one node beats a closed connection on another (they agree on the timeout and
retry), and any real error (a KeyError, a segfault, an OOM) still beats the timeout.

The cause and fix texts were checked against ``reference/env-vars.md``: no collective
timeout is settable by environment (``NCCL_TIMEOUT``/``TORCH_DISTRIBUTED_TIMEOUT`` are read
by nothing); ``NCCL_SOCKET_IFNAME`` is a prefix match unless written ``=name``;
``NCCL_IB_TIMEOUT`` 20 x 7 retries is about 30 s; ``NCCL_ALGO`` tokens are comma-separated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from launchx.loglines import EXCEPTION_NAME

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
    fixtures: tuple[str, ...] = ()


def tier(priority: int) -> int:
    """2: stopped from outside; 1: a root cause; 0: usually a symptom of another failure."""
    if priority >= 100:
        return 2
    return 1 if priority >= 50 else 0


_PYTHON_ONLY_ERRORS = (
    r"(?:Index|Key|Attribute|Assertion|ZeroDivision|Name|NotImplemented|UnboundLocal"
    r"|ModuleNotFound)Error"
)
"""Exception classes that only Python code raises (not a C++ extension's RuntimeError), so
a line that quotes one quotes the script's own error (LX803)."""

EXCEPTION_LINE = rf"^{EXCEPTION_NAME}"
"""The start of a Python exception line ("RuntimeError", "requests.exceptions.ConnectionError"):
the line that ended a process, as opposed to a warning that quotes the same words. A bare
``Exception: ...`` is one only beside its ``raise`` (LX656): a script prints the same words."""

MODULE_ERROR_NAMES = "Error|error|BadZipFile"
"""The exception classes whose names EXCEPTION_LINE's endings miss, named under their module:
a library's own base class ("lmdb.Error", "binascii.Error", OpenCV's "cv2.error") and zipfile's
BadZipFile (a corrupt archive that np.load or a dataset reads)."""

MODULE_ERROR = rf"(?:[A-Za-z_]\w*\.)+(?:{MODULE_ERROR_NAMES})"

SRUN_TERMINATES_STEP = r"(?:_step_signal: |^srun: )Terminating (?:StepId=|job step )"
"""srun ends a step itself after a task failed, before the step's CANCELLED line: Slurm 25
and the local cluster print "srun: launch/slurm: _step_signal: Terminating StepId=N.0"
(tests/test_slurm_e2e.py), other releases "srun: Terminating StepId=N.0" or, before 20.11,
"srun: Terminating job step N.0"."""

_PG_TIMEOUT_FIX = (
    "find the rank that was late or gone: it is the one that did NOT report the timeout, or "
    "the earliest rank that failed (rerun with TORCH_NCCL_DESYNC_DEBUG=1 or "
    "TORCH_DISTRIBUTED_DEBUG=DETAIL to name it). If the work is legitimately slow (a large "
    "evaluation all-reduce, a checkpoint written by rank 0 while others wait), raise the "
    "timeout in code: init_process_group(timeout=timedelta(seconds=int(os.environ["
    "'LAUNCHX_PG_TIMEOUT_S']))) and the profile's timeouts.pg_timeout_s. NCCL_TIMEOUT and "
    "TORCH_DISTRIBUTED_TIMEOUT are read by nothing."
)

# DeepEP's dispatch/combine kernels count clock cycles while they wait for their peers'
# tokens and give up (NUM_TIMEOUT_CYCLES, about 100 s), each wait in its own words ("DeepEP
# timeout for dispatch senders", "DeepEP timeout check failed", "DeepEP RDMA sender
# coordinator timeout", "DeepEP dispatch NVL receiver timeout"), then call trap(); not the
# "Warning: DeepEP timeout ..." of its low-latency kernels, which mask the peer and go on
# when fault tolerance is on.
_DEEPEP_TIMEOUT = r"^DeepEP (?:[\w-]+ ){0,4}timeout\b"
# ... and the host's side of its normal kernels: the CPU polling for the dispatch's token
# counts gives up ("DeepEP error: timeout (dispatch CPU)"; "CPU recv timeout" in older
# releases), after it printed the counters still at -1
_DEEPEP_CPU_TIMEOUT = r"\bDeepEP error: (?:CPU recv timeout|timeout \(\w+ CPU\))"

_NOT_THE_DISK = (r"/dev/shm|\bshm\b|shared memory", r"Warning: ")
"""A full or failing /dev/shm, and NCCL's segments there, have rules of their own (LX538,
LX541, ...): not the storage rules' disk. Nor is a warning that quotes the errno and goes on
(joblib's "UserWarning: [Errno 28] No space left on device.  joblib will operate in serial
mode", a semaphore it could not create)."""

_LOGGING_HANDLER_FRAME = r'logging[/\\](?:__init__|handlers)\.py", line \d+, in \w+$'
"""A frame of logging's own handlers: an exception raised there is a handler that could not
write, which logging prints under "--- Logging error ---" and goes on from; not the run's
end (LX511) nor its disk's (LX691, LX692)."""

_NOT_THE_DISKS_FRAMES = (
    r'multiprocessing[/\\](?:synchronize|shared_memory|heap|queues)\.py", line \d+, in \w+$',
    _LOGGING_HANDLER_FRAME,
)
"""An errno raised in multiprocessing's shared-memory code is /dev/shm's, not the disk's;
in a logging handler it is no failure of the run."""

_WANDB_INIT_FAILED = (
    r"\bError communicating with wandb process\b"
    r"|\bRun initialization has timed out after \d+(?:\.\d+)? sec\b"
)
"""wandb.init() giving up at start-up (LX752): wandb 0.13-0.15 prints its traceback inside
init before raising it again, so a script that catches it still shows the exception line,
which the script's own exceptions (LX511) must not read."""

_HIVEMIND_NO_GROUP = r"Averaging step failed: could not find a group"
"""hivemind's averager found no peers in its matchmaking window (LX690); it raises it as an
AllreduceException, which the optimizer catches and logs: not the script's exception."""

_HTTP_RETRY_WARNING = r"Retrying \(Retry\(|thrown while requesting"
"""urllib3's and huggingface_hub's warnings that they retry a request: the exception inside
is quoted, not raised, and the request may still succeed."""

_GOES_ON = r"(?i)\bwarn|\bfall(?:ing)? ?back\b|\bretry"
"""A line whose library says it falls back (another kernel, another device) or tries again:
the error it quotes has not stopped the run."""

_WARNED_LINE = r"^WARNING: "
"""A line logged as a warning: its header said so (the matcher puts "WARNING: " back before
the message of such a line when it tries the exclusions), or the message starts with it."""

_WENT_ON: tuple[str, ...] = (_GOES_ON, r"(?i)\bignor|\bskip", r"^Exception ignored in\b")
"""A line that quotes an error its program went on after: a library falling back or trying
again, a loader skipping a sample, and Python's own report of an exception it swallowed (a
``__del__`` or a callback's)."""

_NO_NCCL_CAUSE = (
    "this torch build has no NCCL (the Windows and macOS wheels, and CPU-only ones), yet the "
    "process group asked for the nccl backend; every start fails the same way."
)
_NO_NCCL_FIX = (
    "use the gloo backend on these hosts (init_process_group('gloo'), launchx's local "
    "profile), or run on Linux with a CUDA build of torch (torch.cuda.nccl.version() prints "
    "NCCL's version there)."
)

_SIGNAL_NAMES = {4: "ILL", 6: "ABRT", 7: "BUS", 8: "FPE", 9: "KILL", 11: "SEGV"}


def torchrun_signal_reports(*signals: int) -> tuple[str, ...]:
    """How torchrun says a rank died of one of ``signals``: its failure summary's
    ``exitcode : -N`` and ``Signal N (SIGX)``, and its agent's ``failed (exitcode: -N)``."""
    nums = "|".join(str(n) for n in signals)
    named = "|".join(rf"{n} \(SIG{_SIGNAL_NAMES[n]}\)" for n in signals)
    return (
        rf"exitcode\s*:\s*-(?:{nums})\b",
        rf"Signal (?:{named})",
        rf"failed \(exitcode: -(?:{nums})\)",
    )


_WINDOWS_CRASHES = (
    "3221225477|3221225501|3221225620|3221225725|3221226505"
    "|-1073741819|-1073741795|-1073741676|-1073741571|-1073740791"
)
"""Windows' NTSTATUS crash codes as a process's exit code, unsigned and as a signed int32:
0xC0000005 (access violation), 0xC000001D (illegal instruction), 0xC0000094 (integer
division by zero), 0xC00000FD (stack overflow), 0xC0000409 (stack buffer overrun: fast fail,
abort)."""

PALS_RANK_DIED = r"(?:^|: )rank (?P<rank>\d+) died from signal "
"""HPE Cray PALS' mpiexec (ALCF's Polaris, Sunspot, Aurora) reporting a rank's signal, "host:
rank 0 died from signal 11 and dumped core", up to the signal's number."""


def launcher_signal_reports(*signals: int) -> tuple[str, ...]:
    """How the other launchers say a rank died of one of ``signals``, naming its rank where
    they do: mpirun, MPICH's and PALS' mpiexec, DeepSpeed's runner, multiprocessing and
    torch.multiprocessing.spawn, subprocess, horovodrun's driver (the shell's 128 + N),
    composer's launcher, vLLM's executors, PyTorch-BigGraph's pool of workers."""
    nums = "|".join(str(n) for n in signals)
    names = "|".join(_SIGNAL_NAMES[n] for n in signals)
    named = "|".join(f"{_SIGNAL_NAMES[n]}: ?{n}" for n in signals)
    shell = "|".join(str(128 + n) for n in signals)
    return (
        rf"process rank (?P<rank>\d+) with PID \S+ on node \S+ exited on signal (?:{nums})\b",
        rf"--local_rank=(?P<rank>\d+)'.*\] exits with return code = -(?:{nums})\b",
        rf"exits with return code = -(?:{nums})\b",
        rf"died with <Signals\.SIG(?:{named})>",
        rf"process (?P<rank>\d+) terminated with signal SIG(?:{names})",
        rf"returned non-zero exit status -(?:{nums})\b",
        rf"^Process (?P<rank>\d+) exit with status code (?:{shell})\b",
        rf"Rank (?P<rank>\d+) crashed with exit code -(?:{nums})\b",
        # vLLM's multiprocess executor (multiproc_worker_utils) reporting a worker it started
        rf"Worker \S+ pid \d+ died, exit code: -(?:{nums})\b",
        # horovodrun's gloo launcher (runner/gloo_run.py) names the first process that failed:
        # "The first process to do so was:", "Process name: N", "Exit code: C"
        rf"^Exit code: (?:{shell})$",
        # MPICH's Hydra (mpiexec) under its "BAD TERMINATION" banner, in its two forms: the
        # exit string, and "=   RANK 6 PID 2447372 RUNNING AT n9" over "=   KILLED BY SIGNAL"
        rf"TERMINATED WITH THE EXIT STRING: [A-Za-z ]+ \(signal (?:{nums})\)",
        rf"^=\s+KILLED BY SIGNAL: (?:{nums}) \(",
        # PyTorch-BigGraph's trainer, of a worker of its process pool
        rf"A subprocess exited unexpectedly with status -(?:{nums})\b",
        rf"{PALS_RANK_DIED}(?:{nums})\b",
        # a wrapper's own report of the child it ran, as subprocess's returncode gives it
        # (negative: the signal): "Training failed with exit code -9", and vLLM's front end
        # of one of its own processes ("Process EngineCore_0 (PID: 7) died with exit code -9")
        rf"\b(?:failed|exited|died|crashed) with (?:exit |return )?(?:code|status):? "
        rf"-(?:{nums})\b",
    )


# The CUDA runtime's names of its statuses (cudaError_t), as libraries report them instead
# of the runtime's message, by the rule that reads each: a kernel's fault (LX512), the
# machine's configuration (LX540), P2P (LX573), a launch failure (LX631), a handle of another
# device (LX679). Names no rule reads (cudaErrorNotReady, a query's "not yet") stay unread.
_CUDA_KERNEL_FAULTS = (
    "IllegalAddress|Assert|IllegalInstruction|MisalignedAddress|HardwareStackError|InvalidPc"
    "|ECCUncorrectable"
)
_CUDA_CONFIG_STATUSES = (
    "NoKernelImageForDevice|InsufficientDriver|NoDevice|InvalidDevice|InvalidDeviceFunction"
    "|UnsupportedPtxVersion|SystemNotReady|DevicesUnavailable|NotSupported|StubLibrary"
    "|CompatNotSupportedOnDevice|SystemDriverMismatch|JitCompilerNotFound|InvalidKernelImage"
    "|CallRequiresNewerDriver"
)
_CUDA_NAMES_READ = "|".join(
    (
        _CUDA_KERNEL_FAULTS,
        _CUDA_CONFIG_STATUSES,
        "PeerAccessUnsupported",
        "LaunchFailure",
        "InvalidResourceHandle",
    )
)

# the lines LX684 reads: TORCH_INTERNAL_ASSERT's text (c10/util/Exception.h; torch 1.6 and
# older left the file unquoted) on an exception line, or in the RPC thread pool's report of
# one ("[E thread_pool.cpp:N] Exception in thread pool task: ..."); LX511 leaves exactly
# these to it, since their cause is torch's check, not the script's exception
_INTERNAL_ASSERT_LINE = (
    rf"(?:{EXCEPTION_LINE}: |Exception in thread pool task: ).*INTERNAL ASSERT FAILED at "
    r'(?:"[^"]*"|\S+?):\d+, please report a bug to PyTorch'
)

# NCCL's INFO line naming the interface it bootstraps (or opens sockets) on; NCCL 2.2x
# writes "Bootstrap: Using", older releases "Bootstrap : Using [0]"
_NCCL_INTERFACE = r"NCCL INFO (?:Bootstrap|NET/Socket) ?: Using \[?\d*\]?"

_C10D_COLLECTIVE_FRAME = (
    r'distributed_c10d\.py", line \d+, in (?:_?(?:all_gather|reduce_scatter)\w*|all_reduce\w*'
    r"|broadcast|reduce|all_to_all\w*|barrier|send|recv|isend|irecv|gather|scatter"
    r"|_coalescing_manager)$"
)
"""torch.distributed's own frame of a collective call (the one that raised a backend's error),
not of its set-up (init_process_group, new_group)."""

_LOGGED_FAILURE = r"(?i)(?:\berror\b|exception|\bfail(?:ed|ure)\b).*?: "
"""A logger's or an error handler's words for a failure, before the message it reports."""

_NOT_THE_SCRIPTS: tuple[str, ...] = (
    # (not DDP's reducer, whose errors older torch suffixes with its c10d source path)
    # (HCCL: Ascend's NCCL, whose errors torch_npu raises as RuntimeErrors too)
    # (nor init_process_group's "Unknown c10d backend type", a backend the script names
    # that nothing registered)
    # (but an argument check's exception that names them is the caller's misuse of the API:
    # torch raises its communication failures as RuntimeError or its Dist* subclasses, and
    # its checks of a caller's arguments as these three, e.g. "monitored_barrier is only
    # implemented for GLOO backend"; the few of these that are a configuration's, such as
    # "ProcessGroupNCCL is only supported with GPUs", have rules of a higher priority)
    r"(?i)^(?!(?:[\w.]+\.)?(?:ValueError|TypeError|NotImplementedError) *: ).*?"
    r"(?:nccl|hccl|gloo|c10d(?!\.\w+\.default|/reducer\.cpp| backend type)|ProcessGroup"
    r"|monitoredBarrier)",
    # cuDNN rejecting its arguments (a layout or size it has no kernel for) is the
    # script's, like any other exception
    rf"CUDA error|CUDA driver error|cuda runtime error|\bcudaError(?:{_CUDA_NAMES_READ})\b"
    r"|HIP error|(?:UR|ZE)_RESULT_ERROR_DEVICE_LOST"
    # Gaudi's refusals of a graph or of a collective in one, libtpu's of the chips
    # (LX736-LX738)
    r"|Graph compile failed\. synStatus|synNodeCreateWithId failed|nonSFG is not supported"
    r"|(?:The TPU|libtpu\.so) (?:is )?already in use"
    r"|CUDA out of memory"
    r"|OutOfMemoryError|CUBLAS_"
    r"|CUDNN_STATUS_(?!NOT_SUPPORTED|BAD_PARAM)"
    r"|illegal memory access|device-side assert"
    # torch_npu's report of a device call that timed out (507046: a stream sync,
    # 507048: a device task; 107020, the runtime's task timeout, as OpCommand's sync
    # words it), not the script's own error
    r"|NPU (?:function )?error(?:: .*?)?, error code is (?:50704[68]|107020)\b"
    # ... and of a kernel the runtime stopped at a core's execution timeout (LX707) or
    # found faulting (LX714); a failed stream sync or ACL call reports the device's error,
    # whatever its code, never the script's
    r"|\berror code(?: is|:) ?(?:50701[4-8]|50703[4-6]|507048)\b|ACL stream synchronize failed"
    # (not aclnn's rejection of its arguments, 161001/161002, the caller's like cuDNN's)
    r"|NPU function error: (?!call aclnn\w+ failed, error code is 161\d{3}\b)"
    # torch_npu's tag for a device error that a peer's failure caused
    r"|SUSPECT REMOTE ERROR\b"
    # ... and its word for an operator that failed asynchronously on the device (LX722)
    r"|The Inner error is reported as above\b",
    r"(?i)out of memory|timed? ?out|timeout",
    r"(?i)connection|socket|broken ?pipe|address already in use|errno: 98"
    r"|Failed to bind to address|No route to host|Network is unreachable",
    # (torch's symmetric-memory allocator calls its own exchange "rendezvous" too)
    r"(?i)(?<!allocator::)rendezvous|ChildFailedError|SignalException|DistBackendError"
    r"|DistNetworkError"
    r"|DistStoreError|DistError|KeyboardInterrupt|SystemExit|CalledProcessError"
    # (hivemind's p2p daemon or DHT node that reached no initial peer: LX712's)
    r"|failed to connect to bootstrap peers|DHTNode bootstrap failed"
    r"|ProcessRaisedException|ProcessExitedException"
    # Lightning's wrapper of an exception it caught, raised after it killed the other
    # ranks: the exception it wraps (printed with it) is the one to read
    r"|DeadlockDetectedException",
    # Ray's word that a worker process died, and Ray Train's that the run failed: the
    # cause is a worker's, not the driver's
    r"ActorDiedError|RayActorError|WorkerCrashedError|TrainingFailedError"
    # SageMaker's client reporting the job's status: the script's own error is in the
    # job's log, not in this exception
    r"|UnexpectedStatusException: Error for Training job "
    # vLLM's front end reporting that one of its processes (an API server, an engine core,
    # the data-parallel coordinator) died: its own output says why
    r"|Process \S+ \(PID: \d+\) died with exit code"
    # ... and its word that an engine core or a worker failed to start, whose cause it
    # printed above ("See root cause above")
    r"|Engine core initialization failed\. See root cause above",
    # Horovod stopping after another rank's exception; a spawned child that could not
    # read its arguments because its parent died mid-way
    r"Horovod has been shut down|pickle data was truncated",
    r"(?i)host not found|name or service not known|name resolution|reachable via ssh"
    r"|launcher '\w+' not installed",
    # (also the loader's "Caught X in DataLoader worker process N" over a worker's
    # own traceback, whose exception says more: LX673 reads it, below the root
    # causes that the traceback may show)
    r"(?i)killed by signal|shared memory|/dev/shm|DataLoader worker",
    # old torch's receive timeout on a socket (LX677): the errno text alone, as RuntimeError;
    # (a script's own EAGAIN, a thread limit, then goes unread: LX677 needs torch's frames)
    r"^RuntimeError: Resource temporarily unavailable$",
    # a wrapper script reporting that the launcher it started failed
    r"(?i)exited with (?:a )?non-?zero (?:status|exit code|return code)"
    r"|returned non-zero exit status"
    # ... and a process pool's report of a worker that died (PyTorch-BigGraph's)
    r"|A subprocess exited unexpectedly with status",
)
"""An exception line that names these is another reading's (NCCL, CUDA, the network, a
launcher, a signal), not the script's own error (LX511, LX674)."""


RULES: tuple[Rule, ...] = (
    # ------------------------------------------------------------------ stopped from outside
    Rule(
        name="slurm_preemption",
        category="preempted",
        code="LX501",
        priority=120,
        patterns=(
            r"CANCELLED AT \S+ DUE TO (?:PREEMPTION|TIME LIMIT|NODE FAILURE|JOB REQUEUE)",
            r"DUE TO NODE FAILURE",
            r"^srun: error: Node failure on \S+",
            # LSF's termination reasons (bacct/bjobs -l, and the job's output report); a
            # requeue by the owner or an admin reruns the job, as Slurm's JOB REQUEUE does
            r"\bTERM_(?:RUNLIMIT|CPULIMIT|DEADLINE|WINDOW|PREEMPT|REQUEUE_OWNER|REQUEUE_ADMIN|"
            r"RC_RECLAIM|MC_RECALL|LOAD): [Jj]ob killed",
            # PBS/Torque's job output ("=>> PBS: job killed: walltime 86415 exceeded limit ...")
            r"PBS: job killed: (?:walltime|cput) \d+ exceeded limit",
        ),
        cause="the scheduler took the allocation away (preemption, time limit, a requeue or a "
        "failed node); the training itself did not fail.",
        fix="let launchx retry or the scheduler requeue (SLURM --requeue, LSF bsub -r); make "
        "sure checkpoints are frequent and the script resumes from LAUNCHX_RESUME_FROM. For "
        "time limits, ask for more time (--time, bsub -W) or checkpoint on the warning "
        "signal (profile slurm.signal, e.g. USR2@120; LSF sends SIGUSR2 at the run limit and "
        "kills the job ten minutes later).",
        fixtures=("preempted__sbatch_time_limit_torchrun.log", "preempted__submitit_1613.log"),
    ),
    Rule(
        name="submitit_preemption",
        category="preempted",
        code="LX549",
        priority=119,
        patterns=(
            r"Caught signal \w+ on \S+: this job is (?:preempted|timed-out)",
            r"Job has timed out\. Ran \d+ minutes out of requested",
            r"Requeued job \d+ \(\d+ remaining timeouts\)",
            r"has not produced any output \(state: (?:NODE_FAIL|TIMEOUT|PREEMPTED)\)",
            r"(?i)\b(?:has|have|was|were|been) (?:been )?preempted\b",
        ),
        cause="submitit caught the scheduler's preemption or time-limit signal and requeued the "
        "job; the training itself did not fail.",
        fix="nothing to fix when the requeued job resumes from its checkpoint; if it restarts "
        "from scratch, implement checkpoint() in the submitted callable (submitit) or resume "
        "from LAUNCHX_RESUME_FROM.",
        fixtures=("preempted__submitit_1618_sigusr1.log", "preempted__submitit_1701_sighup.log"),
    ),
    Rule(
        name="submitit_timeout_not_checkpointable",
        category="preempted",
        code="LX753",
        # above LX549, whose "this job is timed-out" line comes before it, and SLURM's own
        # time-limit line (LX501), which the same job's log may hold
        priority=121,
        retryable=False,
        # retried once a checkpoint exists: without one a rerun starts over and meets the
        # same time limit at the same place
        on_progress=True,
        patterns=(r"Job not requeued because: timed-out and not checkpointable",),
        cause="the job ran into its SLURM time limit and submitit did not requeue it: the "
        "submitted callable has no checkpoint() method, so submitit had no way to resume it "
        "and raised UncompletedJobError (submitit calls a signal near the end of the time "
        "limit a time-out, so a late preemption reads the same way). The training did not "
        "fail; it ran out of time, and, started again from the beginning, it would run out "
        "of time again.",
        fix="give the callable a checkpoint() method that returns a DelayedSubmission of "
        "itself resuming from its last saved state (submitit.helpers.Checkpointable), or "
        "resume from "
        "LAUNCHX_RESUME_FROM (launchx run retries it once a complete checkpoint exists); "
        "otherwise ask for a longer time limit (--time, timeout_min) or shorten the job.",
        fixtures=("preempted__submitit_1775.log",),
    ),
    Rule(
        name="cluster_node_termination",
        category="preempted",
        code="LX556",
        priority=118,
        patterns=(r"Instance \S+ \(node IP: [\d.]+\) will be terminated soon \(reason: [\w-]+\)",),
        cause="the cluster's autoscaler announced that the nodes under the run are going away "
        "(a Kubernetes pod termination: preemption, a spot reclaim, a drain or a scale-down); "
        "the training itself did not fail, it lost its machines.",
        fix="let launchx retry once the cluster has capacity again (it resumes from "
        "LAUNCHX_RESUME_FROM); checkpoint often enough to lose little, and catch SIGTERM to "
        "write a last checkpoint within the pod's grace period.",
        fixtures=("preempted__skyrl_1688_k8s_pod_termination.log",),
    ),
    Rule(
        name="ray_node_dead",
        category="preempted",
        code="LX576",
        # Below host OOM (84): Ray says a dead raylet may have been OOM-killed, and its own
        # OOM report, when there is one, is the better cause.
        priority=60,
        patterns=(r"has been marked dead because the detector has missed too many heartbeats",),
        cause="Ray lost a node under the run: its raylet stopped answering heartbeats (the "
        "machine was shut down, preempted or cut off from the network, or the raylet "
        "crashed), and the training actors on it died with it.",
        fix="let launchx retry once the cluster has the node back or a replacement (it resumes "
        "from LAUNCHX_RESUME_FROM); if the node was not taken away, look at its raylet.out "
        "and dmesg for an OOM kill or a crash before retrying.",
        fixtures=("preempted__ray_22349_train_gcp_node_shut_down_marked_dead.log",),
    ),
    Rule(
        name="ray_worker_not_registered",
        category="launcher_died",
        code="LX749",
        # below Ray's lost node (LX576) and every error of the ranks themselves: workers log
        # the same line after their raylet died under a run, where the cause is elsewhere
        priority=58,
        retryable=False,
        # a Ray core worker (an engine's tensor-parallel worker, a Train actor) that could
        # not register with its node's raylet over the raylet's Unix socket; its status
        # follows (IOError with "No such file or directory" when the socket file is not
        # there); newer releases leave out the worker's id
        patterns=(
            r"Failed to register worker (?:\S+ )?to Raylet\b",
            r"\bUnable to register worker with raylet\b",
        ),
        cause="a Ray worker process could not register with its node's raylet: the raylet "
        "had died (often at start: too few open files for a many-core host, more CPUs "
        "asked for than the job's cgroup or Slurm allocation gives, a stale session of an "
        "earlier Ray cluster in the same allocation) or its socket under the "
        "session directory (/tmp/ray/session_latest/sockets) is gone or not reachable from "
        "this container, so the workers the engine or Ray Train asked for did not run; the "
        "same environment fails the same way.",
        fix="read raylet.out and raylet.err in /tmp/ray/session_latest/logs for why the "
        "raylet stopped; run `ray stop --force` (and remove the /tmp/ray that a crashed run "
        "left behind) and start again; raise `ulimit -n`, ask Ray "
        "for no more CPUs than the allocation has (ray start --num-cpus), keep the "
        "temporary directory local and its path short (ray start --temp-dir, RAY_TMPDIR); "
        "with vLLM on one node, --distributed-executor-backend mp starts the workers "
        "without Ray.",
        fixtures=("launcher_died__vllm_5495.log",),
    ),
    Rule(
        name="interrupt",
        category="interrupted",
        code="LX502",
        priority=110,
        patterns=(
            r"SignalException: Process \d+ got signal: (1|2|15)\b",
            r"Received (1|2|15) death signal, shutting down workers",
            r"Received Signals\.SIG(?:HUP|INT|TERM) death signal, shutting down workers",
            r"CANCELLED AT \S+ DUE to SIGNAL \w+ \*\*\*",
            r"^KeyboardInterrupt\s*$",
            # the elastic agent passes the signal it was stopped by on to its workers; its own
            # clean-up after a worker's failure sends SIGTERM, so only these two say it
            r"Sending process \d+ closing signal SIG(?:HUP|INT)\b",
            r"\bTERM_(?:OWNER|FORCE_OWNER|ADMIN|FORCE_ADMIN|BUCKET_KILL): [Jj]ob killed",
            # DeepSpeed's per-node launcher (launch.py) got SIGINT itself while no worker had
            # failed (after a worker's failure it names the exit code and never says this);
            # not its SIGTERM, which a multi-node runner's teardown can send
            r"Main process received SIGINT, exiting",
        ),
        cause="the run was stopped from outside: Ctrl-C (SIGINT), SIGTERM/scancel/bkill from a "
        "person or a script, or SIGHUP when the terminal that started it closed.",
        fix="start the run again when you want it (it resumes from the last complete "
        "checkpoint); for SIGHUP run it under tmux/screen, nohup or sbatch so that closing the "
        "terminal does not stop it. launchx never retries an interrupt.",
        fixtures=(
            "interrupted__chinese_llama_2_7b_27.log",
            "interrupted__determined_8915_platform_sigterm.log",
            "interrupted__pytorch_67538_two_3090_sighup.log",
            "interrupted__megatron_deepspeed_93.log",
        ),
    ),
    Rule(
        name="terminal_interrupt_echo",
        category="interrupted",
        code="LX758",
        # below the causes of tier 1, and only where no failure came before it: a Ctrl-C
        # pressed at a run that had already failed or hung is the user giving up on it, and
        # what failed first is the diagnosis (the tier-0 symptoms below it included)
        priority=45,
        patterns=(
            # the terminal's echo of Ctrl-C, pasted with the output that followed it (often a
            # traceback cut before its KeyboardInterrupt line, which LX502 reads)
            r"^\^C",
        ),
        not_after=(
            EXCEPTION_LINE,
            r"terminate called after throwing|Segmentation fault|Fatal Python error"
            r"|\bBus error\b|core dumped|Watchdog caught collective operation timeout"
            r"|^Killed\s*$",
        ),
        cause="the run was stopped with Ctrl-C in the terminal that started it (the '^C' "
        "echo), and the log shows no failure before it.",
        fix="start the run again when you want it (it resumes from the last complete "
        "checkpoint); if it was stopped because it seemed stuck, rerun it under launchx run, "
        "whose hang detection names the stuck rank and its stack. launchx never retries an "
        "interrupt.",
        fixtures=("interrupted__pytorch_68553_ctrlc_after_pdb_quit.log",),
    ),
    Rule(
        name="slurm_cancel",
        category="interrupted",
        code="LX572",
        priority=110,
        # slurmstepd names its node in newer Slurm ("slurmstepd-node07: error: ..."), which
        # loglines may take for a host prefix and peel off
        patterns=(
            r"^(?:slurmstepd(?:-[\w.-]+)?: )?error: \*\*\* (JOB|STEP) \S+ ON \S+ CANCELLED AT "
            r"\S+ \*\*\*\s*$",
        ),
        # srun ends a step whose task failed (--kill-on-bad-exit, "_step_signal: Terminating
        # StepId", then the step is CANCELLED): the cancel is srun's, the failure the task's.
        not_after=(SRUN_TERMINATES_STEP,),
        cause="the job or step was cancelled from outside (scancel by a person or a script) "
        "with no reason given: not a time limit, a preemption or a node failure, which Slurm "
        "names.",
        fix="start the run again when you want it (it resumes from the last complete "
        "checkpoint); `sacct -j <job> -o JobID,State,Reason` says who cancelled it. launchx "
        "never retries an interrupt.",
        fixtures=("interrupted__slurm_local_scancel_step.log",),
    ),
    Rule(
        name="nested_launch",
        category="nested_launch",
        code="LX503",
        priority=100,
        patterns=(r"initializing (?:ddp|distributed): GLOBAL_RANK: 0, MEMBER: 1/\d+",),
        min_hits=2,
        cause="a launcher was started inside another launcher (srun --ntasks-per-node=N running "
        "torchrun, torchrun around a script that spawns its own processes, a platform "
        "that already starts one process per GPU): several worlds each claim rank 0.",
        fix="use one layer of process spawning: either srun one task per node that runs torchrun "
        "(profile slurm.mode: per_node), or srun one task per GPU that runs the script "
        "directly (slurm.mode: per_task); on platforms that already start one process per "
        "GPU use the platform-ddp profile and never wrap the script in torchrun.",
        fixtures=(
            "nested_launch__lightning_4389.log",
            "nested_launch__lightning_6206_two_rank_zeros.log",
        ),
    ),
    Rule(
        name="launchx_nested_refusal",
        category="nested_launch",
        code="LX504",
        priority=101,
        patterns=(r"launchx: error: LX20[1-4] ",),
        cause="launchx refused to start a launcher inside another one (torchrun inside "
        "torchrun, inside a platform that already started the ranks, inside a multi-task srun "
        "step, or launchx inside launchx): nothing ran.",
        fix="follow the fix launchx printed with the refusal; in short: let `--launcher auto` "
        "run the script directly under an outer launcher, or use one task per node for "
        "torchrun (slurm.mode: per_node).",
        fixtures=("nested_launch__launchx_lx203_refusal.log",),
    ),
    # ------------------------------------------------------------------ configuration
    Rule(
        name="launchx_hang_report",
        category="hang",
        code="LX565",
        priority=85,
        patterns=(
            r"^launchx: hang: no rank has made progress for",
            r"^launchx: failure: hang on rank (?P<rank>\d+)\b",
        ),
        cause="launchx's hang watch found that no rank made progress for the hang timeout, "
        "named the stuck rank with its stack and stopped the ranks (the ranks' own errors "
        "after it, timeouts and SIGTERMs, are the consequence); a hang is retried from the "
        "newest checkpoint.",
        fix="read the hang report above (the stuck rank's stack; full dumps in hang/ of the "
        "attempt's log directory): a rank that skipped a collective, a DataLoader deadlock, a "
        "dead NIC or filesystem. If the work was legitimately that quiet, raise --hang-timeout "
        "(profile timeouts.hang_s).",
        fixtures=("hang__launchx_demo_console.log",),
    ),
    Rule(
        name="port_in_use",
        category="port_in_use",
        code="LX505",
        priority=95,
        patterns=(
            r"EADDRINUSE",
            # (48: EADDRINUSE on macOS and the BSDs, where c10d's store says it so too)
            r"errno: (?:98|48) - Address already in use",
            r"\[Errno (?:98|48)\] Address already in use",
            r"RuntimeError: Address already in use",
            # torchelastic's create_c10d_store after its retries (the agent's store, on
            # MASTER_PORT); not its warning before each retry ("..., attempt: [1/3]")
            r"\bon \S+, port: \d+ already in use\s*$",
            r"Tried to launch distributed communication on port `?\d+`?, but another process "
            r"is utilizing it",
            # TensorPipe's listener (torch.distributed.rpc), thrown as a C++ exception
            r"\brv < 0: address already in use\"",
            r"failed to bind to .*\(system error: 10048\b",  # Windows' WSAEADDRINUSE
            # alone on its line (c10d's log); followed by its reason, the reason decides
            r"The server socket has failed to listen on any local network address\.?\s*$",
        ),
        cause="MASTER_PORT (or the rendezvous port) is already held by another process: usually "
        "another torchrun/job on the same node using the default 29500, or a previous run "
        "that has not exited yet.",
        fix="pick another port (--master-port, or master_port: auto in the profile), use "
        "torchrun --standalone for single-node runs, and look for the holder with "
        "`ss -ltnp | grep <port>`.",
        fixtures=(
            "port_in_use__dlrover_443_tcpstore.log",
            "port_in_use__drivelm_40_srun_launch.log",
            "port_in_use__pytorch_70546.log",
            "port_in_use__thinking_in_space_22.log",
        ),
    ),
    Rule(
        name="port_in_use_side_process",
        category="port_in_use",
        code="LX641",
        # a symptom's tier: the bare perror line of any process beside the ranks (a parameter
        # server's scheduler, an exporter, a sidecar), which a rank's own exception outweighs
        priority=45,
        # not a port launchx chooses (MASTER_PORT is, LX505): a second start binds the same
        # one, and the holder may be the job itself (every rank binding one HTTP port)
        retryable=False,
        patterns=(
            # EADDRINUSE's text as any process passes it on: the C library's perror ("bind:
            # Address already in use"), a messaging socket (ZeroMQ's), libuv's in lower case
            r"(?i)\baddress already in use\b",
            # asyncio's create_server (uvicorn's: an inference server's HTTP port) words the
            # same errno its own way, and Python on Windows names WSAEADDRINUSE
            r"\[Errno (?:98|48)\] error while attempting to bind on address .*: address "
            r"already in use",
            r"\[WinError 10048\]",
            # grpcio's add_insecure_port/add_secure_port, whose bind failure names no errno
            # (usually a port in use: DeepSpeed-MII gives each rank its own fixed port)
            r"Failed to bind to address \S+; set GRPC_VERBOSITY=debug",
        ),
        exclude=(
            # gloo's sockets (tcp pairs, the uv transport) bind ephemeral ports of their own,
            # not a port of the job's
            r"gloo/transport/(?:tcp/pair\.cc|uv/)",
            # a process that says what it does next (another port, a retry) has not failed,
            # nor has an informational line; a source line in a traceback is not the error
            r"(?i)\b(?:info|warn(?:ing)?|retrying|falling back|fall back|picking)\b"
            r"|\btrying (?:another|the next|next|a (?:different|new|random)) port",
            r"^\s*(?:raise|print)\b",
        ),
        cause="a process of the job could not bind its port because another process holds it "
        "(the system's own words for it, so not torch's store: a parameter server or "
        "scheduler such as BytePS's ps-lite, an inference engine's messaging or HTTP "
        "socket, or a helper started beside the ranks); often a process of an earlier run "
        "that has not exited yet.",
        fix="find the holder with `ss -ltnp | grep <port>` and stop it, or give that process "
        "another port (BytePS: DMLC_PS_ROOT_PORT; a server started on every rank: only on "
        "rank 0, or at a port offset by the rank); the port variables of the job name it. "
        "launchx does not retry it: the port is not one it picks, so a second start meets "
        "the same holder.",
        fixtures=(
            "port_in_use__byteps_353_scheduler_bind_eaddrinuse.log",
            "port_in_use__deepspeed_mii_521_grpc_bind_50058.log",
        ),
    ),
    Rule(
        name="privileged_port",
        category="port_in_use",
        code="LX604",
        # above the port clash (LX505): the same "failed to listen" line, but its reason is
        # a port this user may not bind, which no wait frees
        priority=96,
        retryable=False,
        patterns=(r"failed to bind to \S*:\d+ \(errno: 13 - Permission denied\)",),
        cause="the rendezvous store could not listen on MASTER_PORT because this process may "
        "not bind it (errno 13): a port below 1024 needs root or CAP_NET_BIND_SERVICE, and on "
        "a higher port a security policy (SELinux's name_bind, AppArmor) refused it; either "
        "way the same port fails on every start.",
        fix="use a port of 1024 or above that the policy allows (--master-port 29500, "
        "accelerate's --main_process_port, or master_port: auto in the profile); a script that "
        "draws a random port should draw from 1024-65535.",
        fixtures=("port_in_use__timellm_20_privileged_master_port_97.log",),
    ),
    Rule(
        name="dgl_rpc_server_bind",
        category="port_in_use",
        code="LX740",
        # the port clash's tier (LX505)
        priority=95,
        retryable=False,
        patterns=(
            # DGL's distributed graph server binding its RPC port; the errno it prints is
            # often lost ("error: Success"; an address not this machine's, "Cannot assign
            # requested address", is not a port held)
            r"rpc/network/tcp_socket\.cc:\d+: Failed bind on \S+ ?, error: "
            r"(?:Address already in use|Success)",
        ),
        cause="a DGL graph server could not bind its RPC port (the port of the ip_config "
        "file): servers of an earlier run still hold it, since a failed launch can leave its "
        "server processes behind, or another job on the node uses it; they do not exit by "
        "themselves, so a retry meets them again.",
        fix="find the holder on each machine of the ip_config file (`ss -ltnp | grep "
        "<port>`) and stop it, or give the servers another port in the ip_config file, then "
        "start again.",
        fixtures=("port_in_use__dgl_3388.log",),
    ),
    Rule(
        name="duplicate_gpu",
        category="duplicate_gpu",
        code="LX506",
        priority=92,
        patterns=(
            r"Duplicate GPU detected : rank \d+ and rank \d+ both on CUDA device",
            r"Multiple Ranks are using the same GPU/Partition",
        ),
        cause="two ranks use the same GPU: the script never selected its own device, or "
        "CUDA_VISIBLE_DEVICES gives every process the same single GPU.",
        fix="call torch.cuda.set_device(int(os.environ['LOCAL_RANK'])) before "
        "init_process_group and use that device, do not hard-code cuda:0, and do not "
        "restrict CUDA_VISIBLE_DEVICES to one GPU for a multi-process node.",
        fixtures=(
            "duplicate_gpu__horovod_3929_mpirun.log",
            "duplicate_gpu__mambair_39_dist_launch.log",
        ),
    ),
    Rule(
        name="nccl_version_mismatch",
        category="nccl_version_mismatch",
        code="LX507",
        priority=91,
        patterns=(
            r"Mismatched NCCL version detected",
            r"connecting to address with family \d+ is neither AF_INET",
            # torch's library links an NCCL symbol that the libnccl loaded first lacks
            r"libtorch\w*\.so: undefined symbol: nccl\w+",
            # torch passes an ncclConfig_t of its own NCCL's layout to an older libnccl that
            # another package put first on the library path
            r"Invalid config blocking attribute value",
        ),
        cause="ranks loaded different NCCL versions (different torch wheels or a system "
        "libnccl on LD_LIBRARY_PATH on some nodes), or torch loaded an NCCL other than the "
        "one it was built with (two nvidia-nccl packages installed); NCCL's bootstrap then "
        "reads garbage from its peers ('family 0 is neither AF_INET nor AF_INET6') or from "
        "torch's config ('Invalid config blocking attribute').",
        fix="install the same torch build on every node and compare "
        "python -c 'import torch; print(torch.cuda.nccl.version())' across nodes; remove "
        "stray libnccl paths from LD_LIBRARY_PATH and the extra NCCL package (pip list | "
        "grep nccl: keep the one torch requires).",
        fixtures=(
            "nccl_version_mismatch__forgather_docs.log",
            "nccl_version_mismatch__vllm_1726_invalid_config_blocking_attribute.log",
            "nccl_version_mismatch__airllm_331_import_ncclcommresume.log",
        ),
    ),
    Rule(
        name="nccl_no_interface",
        category="nccl_config_error",
        code="LX542",
        priority=89,
        patterns=(
            r"no (?:socket )?interface found",
            r"No usable listening interface found",
            r"No interface found in the same subnet as remote address",
            r"no device found matching =?\S+, verify NCCL_\w*IFNAME",
            r"NET/IB : No IP interface found",
            r"Error: network \w+ not found",
            r"Invalid NCCL_COMM_ID, please use format",
            r"(?:WARN|Socket creation failed).*Address family not supported by protocol",
            r"NCCL_SOCKET_IFNAME.*(?:not found|does not exist|no such)",
        ),
        cause="NCCL found no usable network interface to bootstrap on: NCCL_SOCKET_IFNAME names "
        "an interface this host does not have (it is a prefix list, '=name' for exact), the "
        "host has no up interface with an address of the family NCCL wants, or "
        "NCCL_SOCKET_FAMILY asks for one it does not have.",
        fix="list the interfaces with `ip -br addr` and set NCCL_SOCKET_IFNAME (profile env) to "
        "one every node has, e.g. NCCL_SOCKET_IFNAME=eth0 or =bond0 (exact); unset "
        "NCCL_SOCKET_FAMILY unless the hosts are IPv6-only; `launchx doctor` shows the "
        "interfaces it sees.",
        fixtures=(
            "nccl_config_error__mambatree_14.log",
            "nccl_config_error__nccl_210_address_family.log",
        ),
    ),
    Rule(
        name="nvshmem_bootstrap_truncated",
        category="world_mismatch",
        code="LX667",
        priority=72,
        retryable=False,
        patterns=(
            r"bootstrap_net_recv:\d+: Message truncated : received \d+ bytes instead of \d+",
        ),
        cause="NVSHMEM's unique-id bootstrap (under DeepEP or torch's symmetric memory) "
        "received a message of another size than the step it was in expects: the processes "
        "do not agree about the job they are in (two that took the same rank, such as a "
        "node rank or RANK set alike on two nodes, a world size that differs between "
        "nodes), or a process of another job reached the same bootstrap port, or the nodes "
        "run different NVSHMEM versions. It fails the same way at every start.",
        fix="give every process its own rank and every node the same world size (check "
        "RANK, WORLD_SIZE and the node rank each node exports; `launchx run` sets them "
        "itself); run one NVSHMEM version everywhere; keep other jobs off the bootstrap's "
        "port.",
        fixtures=("world_mismatch__deepep_121_both_nodes_rank0_bootstrap_truncated.log",),
    ),
    Rule(
        name="nccl_no_algorithm",
        category="nccl_config_error",
        code="LX665",
        priority=75,
        retryable=False,
        patterns=(r"NCCL WARN Error : no algorithm/protocol available",),
        cause="NCCL found no algorithm and protocol it may use for this collective: the "
        "ones the settings leave (NCCL_ALGO, NCCL_PROTO, NCCL_COLLNET_ENABLE, "
        "NCCL_NVLS_ENABLE) have none for this collective on this communicator (CollNet "
        "without a SHARP network, NVLS without NVSwitch multicast, an algorithm with no "
        "broadcast, such as Tree); NCCL's message names NCCL_ALGO when it was set. Every rank "
        "fails the same way at its first such collective.",
        fix="unset NCCL_ALGO and NCCL_PROTO in the profile and the job's environment (NCCL "
        "chooses per collective), or allow Ring too (NCCL_ALGO=Ring,Tree); turn off what "
        "was forced on (NCCL_COLLNET_ENABLE=0, NCCL_NVLS_ENABLE=0); `launchx explain` shows "
        "where each value came from.",
        fixtures=("nccl_config_error__nccl_653_megatron_collnet_no_algorithm.log",),
    ),
    Rule(
        name="nvshmem_no_interface",
        category="nccl_config_error",
        code="LX664",
        priority=89,
        retryable=False,
        patterns=(r"bootstrap_net_init:\d+: No socket interface found",),
        cause="NVSHMEM's unique-id bootstrap (what torch's symmetric memory, DeepEP and "
        "Triton-distributed start NVSHMEM with) found no network interface to listen on: "
        "NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME names one this host does not have, or "
        "NVSHMEM_BOOTSTRAP_UID_SOCK_FAMILY asks for an address family (AF_INET6) that no "
        "interface has an address of.",
        fix="list the interfaces with `ip -br addr` and set NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME "
        "to one every node has (the one NCCL_SOCKET_IFNAME names), and "
        "NVSHMEM_BOOTSTRAP_UID_SOCK_FAMILY to the family its address is (AF_INET for IPv4).",
        fixtures=("nccl_config_error__triton_distributed_122_nvshmem_no_socket_interface.log",),
    ),
    Rule(
        name="nccl_topology",
        category="nccl_config_error",
        code="LX543",
        priority=89,
        patterns=(
            r"Could not find real path of /sys",
            r"Attribute \w+ of node \w+ not found",
            r"Failed to find reverse path from",
            r"NET/IB : Attempted to connect incompatible devices",
            r"Detected mixed local Net device counts across ranks",
            r"XML Parse ?: ",
            r"XML Import \w+ ?: .*not found",
            r"(?:open|read|load) (?:the )?(?:XML )?topology (?:XML )?file",
            r"XML (?:Topology|Graph) has wrong version",
            r"Could not find any local path from gpu \d+ to net",
            r"TOPO/NET : Only matched \d+ devices, \d+ requested",
            r"No transport found for rank \d+",
        ),
        cause="NCCL could not build the machine's topology: sysfs does not show the GPU's or "
        "NIC's PCI path (common in VMs and containers), NCCL_TOPO_FILE names a file that "
        "is missing, unreadable or describes other devices, or the transports left on "
        "(NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, NCCL_NET) reach no peer.",
        fix="unset NCCL_TOPO_FILE or point it at the topology XML of this machine type (dump one "
        "with NCCL_TOPO_DUMP_FILE on a good node); in a VM or container expose /sys (or use a "
        "topology file) and try a newer NCCL.",
        fixtures=(
            "nccl_config_error__nccl_573_topology_realpath.log",
            "nccl_config_error__tinyllava_112_arch_of_node_cpu.log",
        ),
    ),
    Rule(
        name="neuron_unsupported_topology",
        category="nccl_config_error",
        code="LX745",
        priority=88,
        retryable=False,
        patterns=(
            # the Neuron runtime (Trainium/Inferentia) loads its collectives only for the
            # NeuronCore counts its rings are built for; it names them itself
            r"ERROR +NRT:nrt_load_collectives +Unsupported topology\. Supported number of "
            r"Neuron Cores is",
        ),
        cause="the Neuron runtime's collectives refused the number of NeuronCores this run "
        "asked for: on trn1 they load for 1, 2, 8, 16 or a multiple of 32 cores (the error "
        "lists the counts it supports), so every start fails the same way.",
        fix="choose a tensor-parallel degree (and processes per node) that gives one of the "
        "supported core counts, e.g. --tensor_parallel_size 8 or 32 on trn1.32xlarge; for "
        "other multiples of 2, use an inf2 instance, as the message says.",
        fixtures=("nccl_config_error__optimum_neuron_619.log",),
    ),
    Rule(
        name="nccl_not_built",
        category="nccl_config_error",
        code="LX577",
        priority=88,
        retryable=False,
        patterns=(
            r"Distributed package doesn't have NCCL built in",
            # torch 0.4's THD back end, built without CUDA or NCCL 2
            r"the distributed NCCL backend is not available; try to recompile the THD package",
        ),
        cause=_NO_NCCL_CAUSE,
        fix=_NO_NCCL_FIX,
        fixtures=("nccl_config_error__kohya_ss_1347_windows_no_nccl_built_in.log",),
    ),
    Rule(
        name="turbomind_backend_not_built",
        category="nccl_config_error",
        code="LX635",
        priority=88,
        retryable=False,
        patterns=(
            # lmdeploy's TurboMind engine (comm/device_comm.cc) asked for a communication
            # backend its build left out: nccl needs USE_NCCL, native/cuda-ipc BUILD_MULTI_GPU
            r"Unknown communication backend: (?:nccl|native|cuda[-_]ipc)\b",
        ),
        cause="lmdeploy's TurboMind engine was built without the communication backend a "
        "tensor-parallel run needs (NCCL, or its own CUDA-IPC one): a Windows wheel, or a "
        "source build without multi-GPU support or without NCCL; every start with tp > 1 "
        "fails the same way.",
        fix="install lmdeploy's Linux CUDA wheel, or rebuild it on Linux with multi-GPU "
        "support (BUILD_MULTI_GPU) and NCCL installed; on Windows serve with tp=1 (torch has "
        "no NCCL there either), on Linux the PyTorch engine (--backend pytorch) is the "
        "other way.",
        fixtures=("nccl_config_error__lmdeploy_v100_2_turbomind_unknown_backend_nccl.log",),
    ),
    Rule(
        name="torch_nccl_before_send_recv",
        category="nccl_config_error",
        code="LX636",
        priority=88,
        retryable=False,
        patterns=(
            # ProcessGroupNCCL.cpp and csrc/cuda/nccl.cpp compiled against an NCCL without
            # ncclSend/ncclRecv (before 2.7): all-to-all and point-to-point raise at once
            r"ProcessGroupNCCL only supports \w+\*? for NCCL lib version >= 2\.7\.0",
            r"all2all is only supported for NCCL lib version >= 2\.7\.0",
        ),
        cause="this torch was compiled against an NCCL older than 2.7, which has no "
        "send/receive, so all_to_all and point-to-point calls on the nccl backend always "
        "fail; which NCCL is loaded at run time does not matter, the check was compiled in.",
        fix="install a torch build made with NCCL 2.7 or later (every official wheel since "
        "torch 1.8; torch.cuda.nccl.version() prints the one it was built with), or rebuild "
        "from source with USE_SYSTEM_NCCL=1 against NCCL >= 2.7.",
        fixtures=("nccl_config_error__pytorch_47291_param_dlrm_alltoall_nccl_lib_version.log",),
    ),
    Rule(
        name="nccl_not_built_warning",
        category="nccl_config_error",
        code="LX622",
        # a symptom's tier: init_process_group warns before it raises LX577's error, but a
        # script that catches that error and falls back to gloo prints the warning too; any
        # other error in the log is then the better cause
        priority=40,
        retryable=False,
        patterns=(
            r"Attempted to get default timeout for nccl backend, but NCCL support is not "
            r"compiled",
        ),
        cause=_NO_NCCL_CAUSE,
        fix=_NO_NCCL_FIX,
        fixtures=("nccl_config_error__llama_1132_windows_10049_no_nccl.log",),
    ),
    Rule(
        name="rendezvous_not_in_build",
        category="user_code_error",
        code="LX770",
        priority=88,
        retryable=False,
        patterns=(
            # torch >= 2.4 builds the rendezvous store on libuv, which Windows wheels lack
            r"use_libuv was requested but PyTorch was build without libuv support",
            # old Windows builds registered no tcp:// (or env://) rendezvous
            r"No rendezvous handler for (?:tcp|env)://",
        ),
        cause="the script's (or its launcher's) rendezvous asks for something this torch "
        "build does not have: the Windows wheels have no libuv for the TCP store, which "
        "torch 2.4+ uses by default, and old Windows builds had no tcp:// or env:// "
        "rendezvous at all; no rank gets as far as a backend, and every start fails the same "
        "way.",
        fix="on Windows set USE_LIBUV=0 where init_process_group builds the store (its env:// "
        "and tcp:// rendezvous read it; later torch releases default to it on Windows); "
        "torchrun's own static rendezvous store takes no such setting in some releases, so "
        "there start the ranks without torchrun, use a torch release whose Windows wheel "
        "works, or run on Linux (WSL2). Use init_method='file:///...' on builds without "
        "tcp://.",
        fixtures=(
            "user_code_error__gpt_sovits_1357_s2_train_use_libuv_windows.log",
            "user_code_error__detr_339_windows_no_rendezvous_env.log",
        ),
    ),
    Rule(
        name="torch_build_lacks_transport",
        category="nccl_config_error",
        code="LX528",
        priority=88,
        retryable=False,
        patterns=(
            r"Distributed package doesn't have (?:Gloo|MPI|UCC) built in",
            # builds without torch.distributed at all (Windows before torch 1.7, some macOS
            # and ARM ones): the functions every build with it has are missing
            r"module 'torch\.distributed' has no attribute '(?:init_process_group|"
            r"is_initialized|get_rank|get_world_size|barrier|all_reduce|broadcast|new_group|"
            r"destroy_process_group)'",
        ),
        cause="this torch build lacks the communication backend the run asks for: no wheel "
        "has the MPI backend (or UCC), and builds without torch.distributed at all (Windows "
        "before torch 1.7, some macOS and ARM ones: torch.distributed.is_available() is "
        "False) have none; every start fails the same way.",
        fix="use a backend the build has (torch.distributed.is_gloo_available(), "
        "is_nccl_available() and is_mpi_available() say which: gloo on Windows and macOS, "
        "nccl on Linux with CUDA), or build torch from source with the one you need "
        "(USE_MPI=1). A build "
        "without torch.distributed at all has no backend to choose: install one where "
        "torch.distributed.is_available() is True (Windows: torch 1.7 or later), or run one "
        "process without init_process_group.",
        fixtures=(
            "nccl_config_error__detr_43_windows_no_distributed.log",
            "nccl_config_error__open_ce_376_torch_without_mpi_backend.log",
        ),
    ),
    Rule(
        name="nccl_p2p",
        category="nccl_config_error",
        code="LX573",
        priority=88,
        retryable=False,
        patterns=(
            r"NCCL WARN failed to open CUDA IPC handle",
            r"NCCL WARN failed to peer with device \d+",
            r"NCCL WARN rank \d+ failed to get CUDA IPC handle to device",
            r"NCCL WARN cudaIpcGetMemHandle failed",
            # the P2P transport's own CUDA call failing (RCCL prints its HIP errors this way)
            r"transport/p2p\.cc:\d+ NCCL WARN (?:Cuda|HIP) failure '(?:invalid argument"
            r"|peer access is not supported between these two devices"
            r"|peer mapping resources exhausted)'",
            # vLLM's custom all-reduce (sglang, verl) opening the peers' buffers itself, and
            # the same status as NCCL's "Last error:" words it
            r"(?:Cuda error \S+:\d+ |^Cuda failure (?:\d+ )?)'peer access is not supported "
            r"between these two devices'",
            # ... and torch's own wording of that status (a copy between two GPUs, or an
            # engine's all-reduce that enabled peer access through torch)
            r"CUDA error: peer access is not supported between these two devices",
            r"\bcudaErrorPeerAccessUnsupported\b",
            # accelerate refuses to start NCCL P2P/IB on GeForce cards
            r"Using RTX (?:3090 or )?4000 series doesn't support faster communication",
        ),
        cause="NCCL's P2P transport (or an inference engine's own all-reduce) could not map "
        "one GPU's memory into another on this node: these GPUs cannot reach each other "
        "directly (consumer cards, PCIe ACS or an IOMMU in a VM), or the ranks run in "
        "containers without a shared IPC namespace; NCCL then reports an 'unhandled cuda "
        "error', and it repeats on every start. accelerate refuses up front on GeForce RTX "
        "3090/4000 cards for the same reason.",
        fix="set NCCL_P2P_DISABLE=1 in the profile's env (NCCL then goes through host shared "
        "memory; accelerate's check also wants NCCL_IB_DISABLE=1 on a single node), or "
        "NCCL_P2P_LEVEL=NVL (P2P over NVLink only); vLLM's and sglang's custom all-reduce "
        "reads none of these: start them with --disable-custom-all-reduce (and delete a "
        "stale gpu_p2p_access_cache_for_*.json); on bare metal disable PCIe ACS (or boot "
        "with iommu=pt); run containers with --ipc=host.",
        fixtures=(
            "nccl_config_error__ray_lightning_24_p2p_ipc_peer_access_not_supported.log",
            "nccl_config_error__rccl_1454_mi100_p2p_invalid_argument_torchrun.log",
            "nccl_config_error__sglang_531_rtx4090_custom_allreduce_p2p_unsupported.log",
        ),
    ),
    Rule(
        name="nccl_docker_bridge",
        category="nccl_config_error",
        code="LX544",
        priority=88,
        patterns=(
            rf"{_NCCL_INTERFACE}\w+:172\.17\.\d+\.\d+",
            rf"{_NCCL_INTERFACE}(?:docker|veth|virbr)\w*:",
            # a link-local address (a container's ECS or metadata link, an IB port's IPv6)
            r"NCCL INFO Bootstrap ?: Using \[?\d*\]?[\w.-]+:(?:169\.254\.|fe80:)",
        ),
        requires=(
            r"-> (?:2|3|6)\b",
            # NCCL's INFO "Call to connect returned Connection refused, retrying" is routine
            # while peers start; its WARN means it gave up
            r"unhandled system error|ncclSystemError|remote process exited"
            r"|NCCL WARN .*Connection refused",
        ),
        cause="NCCL bootstrapped on an address the other node cannot reach, a docker bridge "
        "(docker0, or a container's eth0 in 172.17.0.0/16) or a link-local one (169.254.x.x: "
        "an ECS or metadata link; fe80::), and its socket calls then failed.",
        fix="run the containers with --network=host, or set NCCL_SOCKET_IFNAME (and "
        "GLOO_SOCKET_IFNAME) to the interface the nodes share (e.g. =ens1f0; '^docker,lo' "
        "excludes the bridge).",
        fixtures=("nccl_config_error__nccl_1381_docker_bridge.log",),
    ),
    Rule(
        name="nccl_loopback_interface",
        category="nccl_config_error",
        code="LX685",
        # above NCCL's refused connects read alone (LX553) that it explains
        priority=67,
        retryable=False,
        patterns=(rf"{_NCCL_INTERFACE}lo:127\.",),
        # within one host loopback works (launchx's own single-node runs bootstrap there): only
        # a run across hosts, as its launch command shows (two nodes or more, or a node rank
        # above 0, and no loopback master), makes it the cause
        requires=(
            r"^(?!.*--master[_-]addr[= ]+(?:127\.|localhost\b))"
            r".*(?:--nnodes?[= ]+(?:\d+:)?(?:[2-9]|[1-9]\d+)\b|--node[_-]rank[= ]+[1-9])",
        ),
        cause="NCCL bootstrapped on the loopback interface (lo, 127.0.0.1), from "
        "NCCL_SOCKET_IFNAME=lo or because it found no other: no other host can reach that "
        "address, so across nodes the connections fail (a node that dials the 127.0.0.1 "
        "another node advertised reaches itself); every start does the same.",
        fix="set NCCL_SOCKET_IFNAME (and GLOO_SOCKET_IFNAME) on every node to the interface "
        "the nodes share (=eth0, or ^lo,docker to exclude those); loopback serves only runs "
        "on one host; `launchx explain -p <profile>` shows the interface that routes to the "
        "master.",
        fixtures=("nccl_config_error__pytorch_52916_ddp_hang_socket_ifname_lo.log",),
    ),
    Rule(
        name="nccl_link_local_peer",
        category="nccl_config_error",
        code="LX580",
        # Above NCCL's "unhandled system error" (55) that reports this connect a few lines
        # later; below a peer's crash reported by its launcher (LX514, LX548: a refused
        # connect to a link-local address that works within its segment can be that crash's
        # collateral) and LX575 (66), which names an unreachable peer whatever its address.
        priority=58,
        retryable=False,
        patterns=(
            r"Connect to (?:\[?fe80:[0-9a-fA-F:]*(?:%[\w.-]+)?\]?|169\.254\.\d+\.\d+)<\d+> "
            r"failed",
            # a docker bridge's own host address (docker0 is 172.17.0.1, the networks docker
            # creates next take 172.18-31.0.1): the peer picked its bridge interface
            r"Connect to 172\.(?:1[7-9]|2\d|3[01])\.0\.1<\d+> failed",
            # a peer container's own address on a docker network, from a container docker
            # named (its default host name, twelve hex digits, leads NCCL's line): started
            # without the host's network, so the bridge's NAT aborts the connect (ECONNABORTED,
            # in NCCL's words before 2.19 and after); not a refusal (a reachable peer whose
            # socket was gone: a dead peer's collateral) nor a timeout (a firewall, a dead host)
            r"^[0-9a-f]{12}:\d+:\d+ \[\d+\] .*Connect to 172\.(?:1[7-9]|2\d|3[01])\.\d+\.\d+"
            r"<\d+> (?:failed : |returned 103\()Software caused connection abort",
        ),
        cause="NCCL tried to connect to a peer at a link-local address (IPv6 fe80::, or IPv4 "
        "169.254.x.x), at a docker bridge's host address (172.17.0.1, 172.18.0.1) or at a "
        "container's address on a docker network (172.17-31.x.x): the peer advertised the "
        "address of an interface that only reaches its own network segment or host (an IB or "
        "RoCE port's IPv6 address, a cloud metadata or container link, docker0, a container "
        "behind the bridge's NAT), because NCCL took the first interface it found, and it "
        "picks the same one on every attempt.",
        fix="set NCCL_SOCKET_IFNAME (profile env) to the interface the nodes share, e.g. "
        "=eth0 or ^lo,docker; with fe80:: addresses also NCCL_SOCKET_FAMILY=AF_INET; run "
        "containers with --network=host; `launchx explain -p <profile>` shows the interface "
        "that routes to the master.",
        fixtures=(
            "nccl_config_error__verl_726_link_local_169_254.log",
            "nccl_config_error__nccl_975_h800_bootstrap_ipv6_linklocal_ib1.log",
            "nccl_config_error__pytorch_examples_689_multinode_docker_bridge_ip_refused.log",
            "nccl_config_error__nccl_929.log",
        ),
    ),
    Rule(
        name="nccl_peer_gpu_not_visible",
        category="nccl_config_error",
        code="LX608",
        # the root of the "unhandled system error" (55) that NCCL reports for it a few lines on
        priority=58,
        retryable=False,
        patterns=(r"NCCL WARN nvmlDeviceGetHandleByPciBusId\(\) failed: Not Found",),
        # the warning is the cause only when NCCL's set-up then failed (ncclSystemError, 2)
        requires=(r"NCCL INFO init\.cc:\d+ -> 2\b", r"unhandled system error|ncclSystemError"),
        cause="NCCL took a peer for one on this host (the same host identity) but cannot see "
        "that peer's GPU through NVML: two containers on one node, each given some of its "
        "GPUs, look like one host to NCCL, and its topology search fails the same way on "
        "every start.",
        fix="give each container its own NCCL_HOSTID (profile env, e.g. the container's "
        "hostname), or run all of a node's ranks in one container that sees all its GPUs.",
        fixtures=("nccl_config_error__nccl_1529_two_containers_same_node_nvml.log",),
    ),
    Rule(
        name="nccl_nvml_not_loadable",
        category="cuda_config_error",
        code="LX704",
        # the root of the "unhandled system error" (55) that NCCL reports for it
        priority=58,
        retryable=False,
        # NCCL's loader of the driver's NVML library (misc/nvmlwrap.cc), as its WARN line or
        # as the "Last error:" of the ncclSystemError it returns
        patterns=(
            r"NCCL WARN Failed to open libnvidia-ml\.so\b",
            r"^Failed to open libnvidia-ml\.so\b",
        ),
        # (only when NCCL itself failed: other tools print the same words and carry on)
        requires=(r"unhandled system error|ncclSystemError|NCCL WARN Failed to open libnvidia",),
        cause="NCCL could not load the NVIDIA driver's NVML library (libnvidia-ml.so.1), which "
        "it needs to map the GPUs and their links: the process runs where the driver's user "
        "libraries are not visible (a container started without the NVIDIA runtime or its "
        "utility capability, a library path that leaves them out, a driver installed without "
        "them); every start fails the same way.",
        fix="run the container with the NVIDIA runtime (docker --gpus all, or "
        "NVIDIA_DRIVER_CAPABILITIES=compute,utility), check `ldconfig -p | grep "
        "libnvidia-ml` and that nvidia-smi works where the ranks run, and do not put a "
        "stub libnvidia-ml ahead of the driver's in LD_LIBRARY_PATH.",
        fixtures=("cuda_config_error__llamafactory_6161.log",),
    ),
    Rule(
        name="nccl_open_files_limit",
        category="nccl_system_error",
        code="LX625",
        # the detail of NCCL's "unhandled system error", as LX609
        priority=57,
        retryable=False,
        patterns=(
            # NCCL's socket calls and the NCCL-derived bootstraps of other collectives
            # libraries (AWS Neuron's CCOM) print EMFILE's text after their own words
            r"(?:NCCL|CCOM) WARN .*: Too many open files$",
        ),
        cause="a collective library's bootstrap could not open or accept another socket: the "
        "process hit its open-file limit (ulimit -n, EMFILE). Every rank opens sockets to its "
        "peers, so a limit that suits 8 ranks per node fails at 32 or more; the same launch "
        "fails the same way.",
        fix="raise the open-file limit where the ranks start (`ulimit -n $(ulimit -Hn)` in "
        "the job script; the hard limit itself: /etc/security/limits.conf, LimitNOFILE for a "
        "service, --ulimit nofile=1048576:1048576 for docker), then check it inside the job "
        "with `ulimit -n`.",
        fixtures=("nccl_system_error__aws_neuron_sdk_713_ccom_accept_too_many_open_files.log",),
    ),
    Rule(
        name="nccl_bootstrap_bind",
        category="nccl_system_error",
        code="LX609",
        # the detail of NCCL's "unhandled system error" (55): the bind of its own bootstrap
        # socket, not torch's master port (LX505 reads c10d's and Python's wordings)
        priority=57,
        patterns=(r"NCCL WARN (?:Net : )?Call to bind failed ?: Address already in use",),
        cause="NCCL could not bind the socket of its own bootstrap (an ephemeral port, or the "
        "port NCCL_COMM_ID names): the host ran out of ephemeral ports, usually because the "
        "code creates a new process group or communicator over and over (once per step), or "
        "a fixed NCCL_COMM_ID port is taken.",
        fix="create process groups once, outside the training loop; count the sockets in "
        "TIME_WAIT with `ss -tan state time-wait | wc -l` and widen "
        "net.ipv4.ip_local_port_range if they fill it; unset NCCL_COMM_ID or give it a free "
        "port.",
        fixtures=("nccl_system_error__nccl_293_docker_bootstrap_bind_eaddrinuse.log",),
    ),
    Rule(
        name="efa_setup",
        category="nccl_config_error",
        code="LX585",
        # A symptom's tier: when the plugin fails to start NCCL may fall back to its socket
        # transport and go on, and a peer that died also leaves its packets unanswered; any
        # root cause in the log (an exception, an OOM, a timeout) is the better one.
        priority=48,
        retryable=False,
        patterns=(
            r"NET/OFI OFI fi_getinfo\(\) call failed",
            r"NET/OFI Couldn't open a fabric (?:provider|access domain)",
            r"NET/OFI (?:CM: )?Unable to insert (?:remote|local) address into address vector",
            # EFA drops packets that the security groups do not allow (FI_EHOSTUNREACH)
            r"NET/OFI Request \S+ \(\w+\) completed with error: err: 113\b",
            r"This error indicates that the security group on either this instance or the peer",
        ),
        cause="NCCL's AWS EFA plugin (aws-ofi-nccl) could not set up the EFA transport: no "
        "EFA provider or device is visible (a container without /dev/infiniband, a libfabric "
        "without EFA), a peer's EFA address could not be used or its packets are dropped (the "
        "security group must allow all traffic to and from itself); every start fails the "
        "same way.",
        fix="check `fi_info -p efa -t FI_EP_RDM` on the host and in the container; pass the "
        "EFA devices in (docker --device=/dev/infiniband/uverbs0 ..., the EFA device plugin on "
        "Kubernetes); allow all inbound and outbound traffic within the instances' security "
        "group.",
        fixtures=("nccl_config_error__aws_ofi_nccl_1020_p5_container_no_efa_devices.log",),
    ),
    Rule(
        name="efa_provider_error",
        category="ib_error",
        code="LX660",
        # with the verbs completion errors (LX518): the fabric failed an operation
        priority=60,
        patterns=(
            # libfabric's EFA provider, under aws-ofi-nccl: a send or receive that completed
            # in error ("rxr_cq_write_tx_error: err: 20, prov_err: ..."), an event it could
            # not post to its event queue
            r"::efa:\S+<warn> (?:\S+: )?err: \d+, prov_err: ",
            r"Unable to write to EQ: .* prov_errno:",
        ),
        cause="libfabric's EFA provider (under NCCL's aws-ofi-nccl plugin) reported an "
        "operation that failed on the fabric: a transfer that completed in error, or an "
        "event it could not post to its event queue. At a run's first transfers the usual "
        "reason is the set-up, which fails every start alike: a security group that does not "
        "allow all traffic to and from itself (EFA's packets are dropped), or a provider out "
        "of resources (Cannot allocate memory); after hours of training, a fault of the "
        "fabric, which a retry from the last checkpoint may outlive.",
        fix="allow all inbound and outbound traffic within the instances' security group; "
        "check every instance with `fi_info -p efa -t FI_EP_RDM` and the same EFA installer "
        "(libfabric) version; for Cannot allocate memory raise the locked-memory limit "
        "(ulimit -l unlimited, containers --ulimit memlock=-1) and run fewer processes per EFA "
        "device.",
        fixtures=(
            "ib_error__aws_ofi_nccl_156_efa_tx_error_security_group.log",
            "ib_error__aws_ofi_nccl_141_efa_eq_cannot_allocate_memory.log",
        ),
    ),
    Rule(
        name="nvls_setup",
        category="nccl_config_error",
        code="LX661",
        # above a CUDA kernel's failure (LX512), whose advice (CUDA_LAUNCH_BLOCKING, indices)
        # does not apply to a set-up call, and above CUDA's configuration (LX540), which
        # reads the same statuses from the runtime and says nothing of NVLS
        priority=90,
        retryable=False,
        # only the statuses of a fabric that is not ready or cannot do it, numbered (newer
        # NCCL) or not: a sticky error of a kernel (700, an illegal address) is reported by
        # NVLS's calls too, and is the kernel's (LX512)
        patterns=(
            r"transport/nvls\.cc:\d+ NCCL WARN Cuda failure (?:(?:401|801|802)\b|'(?:the "
            r"operation cannot be performed in the present state|operation not supported|"
            r"system not yet initialized)')",
            # NCCL's own words when binding the multicast memory fails, whatever the status
            # (transport/nvls.cc, 2.27 on): a WARN that fails the set-up from 2.29, or in
            # 2.27-2.28 where NVLS was forced on; not their INFO line that goes on without it
            r"Failed to bind NVLink SHARP \(NVLS\) Multicast memory",
        ),
        exclude=(r"Proceeding without NVLS support",),
        cause="NCCL's NVLink SHARP (NVLS) set-up failed a CUDA call: NVLS builds multicast "
        "objects on the NVSwitches, which the NVSwitch fabric (nvidia-fabricmanager) must "
        "support and be ready for; a fabric manager that is not running, not of the "
        "driver's version or in a bad state fails it at every communicator's set-up.",
        fix="NCCL_NVLS_ENABLE=0 (profile env) runs without NVLS, at some all-reduce speed; "
        "check `systemctl status nvidia-fabricmanager` and that its version is the driver's, "
        "and restart it (or the node) when the same set-up worked before.",
        fixtures=("nccl_config_error__nccl_1788_h100_vllm_nvls_multicast_401.log",),
    ),
    Rule(
        name="nccl_uds_bind",
        category="nccl_system_error",
        code="LX662",
        # with the details of NCCL's system errors (LX609, LX625), above its bare wording
        priority=57,
        retryable=False,
        patterns=(r"NCCL WARN UDS: Binding to socket \S+ failed",),
        cause="NCCL (2.19 and later, with cuMem) hands memory handles to the other processes "
        "of a node over Unix-domain sockets named after the rank and a hash of the "
        "communicator (/tmp/nccl-socket-<rank>-<hash>, in the abstract namespace, which every "
        "process of a network namespace shares), and binding one failed. 'Address already in "
        "use' says another process holds that name, or the NCCL release named it twice: "
        "every local rank of one job failing this way right after an upgrade to NCCL 2.20.3 "
        "points at the release.",
        fix="try another NCCL release (another nvidia-nccl-cu12 wheel, or a container that "
        "ships another); NCCL_CUMEM_ENABLE=0 goes back to the CUDA IPC handles "
        "of older NCCL, which need no such socket; with NCCL 2.29 or later "
        "NCCL_IPC_USE_ABSTRACT_SOCKET=0 puts the sockets in files instead; `ss -xlp | grep "
        "nccl-socket` shows who holds them.",
        fixtures=("nccl_system_error__nccl_1185_fsdp_2203_uds_bind_in_use.log",),
    ),
    Rule(
        name="nvshmem_ipc_exchange",
        category="nccl_config_error",
        code="LX663",
        priority=70,
        retryable=False,
        patterns=(r"exchange_heap_memory_handle:\d+: Fatal IPC Failure",),
        cause="NVSHMEM (under torch's symmetric memory or DeepEP) could not hand its heap's "
        "memory handles over a local socket to the other processes it believes share this "
        "node. A known cause is two nodes with the same host name, which NVSHMEM takes for "
        "one node; processes of one node that do not share an IPC namespace "
        "(separate containers) are another. It fails the same way at every start.",
        fix="give every node its own host name (`hostname` differs on each; containers: no "
        "fixed --hostname); run the processes of a node in one container, or with --ipc=host.",
        fixtures=("nccl_config_error__deepep_316_same_hostname_nvshmem_ipc_failure.log",),
    ),
    Rule(
        name="net_plugin_memory_registration",
        category="nccl_system_error",
        code="LX642",
        # with the details of NCCL's system errors (LX609, LX625), above its bare wording
        priority=57,
        retryable=False,
        patterns=(
            # aws-ofi-nccl (EFA) and Google's GPUDirect-TCPXO plugin (FasTrak): the network
            # plugin could not register a buffer with the device or its driver
            r"NET/OFI (?:CM: )?Unable to register memory",
            r"NET/FasTrak .*Buffer registration request does not have a valid fd set",
        ),
        cause="NCCL's network plugin could not register a communication buffer with the "
        "NIC. aws-ofi-nccl prints libfabric's answer (RC) and the memory's type (1 host, 2 "
        "CUDA, 4 Neuron): EINVAL (-22) for CUDA memory is known from EFA installers before "
        "1.29.1 with NCCL 2.19 or later; ENOMEM (-12) is a registration limit (for host "
        "memory the locked-memory limit). GCP's GPUDirect-TCPXO plugin (FasTrak) reports a "
        "registration request that reached its host daemon without the buffer's file "
        "descriptor. The host's software stack, so every attempt fails alike.",
        fix="on EFA: upgrade the EFA installer (libfabric) to 1.29.1 or later, or set "
        "FI_EFA_SET_CUDA_SYNC_MEMOPS=0 with the older one; for ENOMEM raise memlock (ulimit "
        "-l unlimited; containers: --ulimit memlock=-1; launchx doctor checks it) and check "
        "the GPU's BAR and peer-memory set-up; NCCL_NET_GDR_LEVEL=LOC keeps traffic in host "
        "memory to confirm. On TCPXO: match the plugin, its receive-datapath daemon and the "
        "machine image; NCCL_NET=Socket avoids the plugin (slowly) until they do.",
        fixtures=(
            "nccl_system_error__awsome_distributed_ai_203_efa_register_mr_einval.log",
            "nccl_system_error__megatron_lm_4660_gcp_fastrak_buffer_registration.log",
        ),
    ),
    Rule(
        name="triton_no_libcuda",
        category="cuda_config_error",
        code="LX666",
        priority=84,
        retryable=False,
        patterns=(r"\bld: cannot find -lcuda\b",),
        cause="a kernel compiled at run time (Triton's, for torch.compile and the attention "
        "and MoE libraries built on it, or another JIT-built extension) is linked against the "
        "driver's libcuda.so, and the linker did not find it: Triton looks for it with "
        "`ldconfig -p` (or in TRITON_LIBCUDA_PATH), and -lcuda needs the unversioned name, so "
        "a machine or container where the driver's library is elsewhere or only present as "
        "libcuda.so.1 fails the same way at every start.",
        fix="find the library (`ldconfig -p | grep libcuda`, `find / -name 'libcuda.so*'`); "
        "set TRITON_LIBCUDA_PATH in the profile's env to a directory holding libcuda.so (if "
        "only libcuda.so.1 exists, a directory with a link libcuda.so -> libcuda.so.1); in a "
        "container run it with the NVIDIA runtime (--gpus all) so the driver's libraries "
        "are mounted.",
        fixtures=("cuda_config_error__skyreels_v1_54_triton_cannot_find_lcuda.log",),
    ),
    Rule(
        name="no_cuda_toolkit",
        category="cuda_config_error",
        code="LX747",
        # above the build that then fails (LX688) and the exception lines that carry it
        # (LX511): the missing toolkit is the cause
        priority=88,
        retryable=False,
        patterns=(
            # DeepSpeed's op builder (MissingCUDAException), which even the launcher can meet
            # when importing deepspeed.ops, before any rank starts: as the exception, or its
            # message alone on the line (a library that only warns and falls back quotes it
            # inside its own sentence)
            r"(?:MissingCUDAException|Error|Exception): CUDA_HOME does not exist, unable to "
            r"compile CUDA op\(s\)",
            r"^CUDA_HOME does not exist, unable to compile CUDA op\(s\)$",
            # torch.utils.cpp_extension's, for a project's own CUDA ops built at start-up
            # (transformers catches it for its optional kernels and logs it: not the cause)
            r"^(?:OSError|EnvironmentError): CUDA_HOME environment variable is not set\. "
            r"Please set it to your CUDA install root",
        ),
        cause="no CUDA toolkit was found to compile CUDA ops at start-up (DeepSpeed's op "
        "builder, or torch.utils.cpp_extension for a project's own kernels): CUDA_HOME is "
        "unset and no nvcc is on the PATH or in /usr/local/cuda. The GPU driver and torch's "
        "CUDA runtime do not include the compiler; every start fails the same way.",
        fix="install a CUDA toolkit whose version matches torch.version.cuda (a conda "
        "cuda-toolkit / cuda-nvcc package, or NVIDIA's installer) and point CUDA_HOME at it; "
        "or install DeepSpeed with its ops prebuilt (DS_BUILD_OPS=1) on a machine that has "
        "one.",
        fixtures=("cuda_config_error__minimind_48.log",),
    ),
    Rule(
        name="cuda_toolkit_unfit_for_build",
        category="cuda_config_error",
        code="LX750",
        # above the build that then fails (LX688) and the exception lines that carry it
        # (LX511), whose cause it names; below the GPU's memory (LX509) and the other causes
        # of a run that went on after a library's optional build failed and fell back
        priority=84,
        retryable=False,
        patterns=(
            # nvcc asked for a GPU generation newer than it knows (DeepSpeed's op builder and
            # torch.utils.cpp_extension pass the GPUs' own compute capability)
            r"nvcc fatal\s*: Unsupported gpu architecture 'compute_\d+[af]?'",
            # ... as older nvcc and ptxas say it
            r"\bValue 'sm_\d+[af]?' is not defined for option 'gpu-(?:architecture|name)'",
            # the link of an op against a CUDA library the toolkit on the path does not ship
            # (a runtime-only or partial CUDA, a conda toolkit without its -dev packages)
            r"\bld: cannot find -l(?:cudart(?:_static)?|curand|cublas(?:Lt)?|cusparse(?:Lt)?"
            r"|cusolver|cufft|nvrtc)\b",
            # a host compiler the headers refuse: older than the C++ standard torch's headers
            # are written in (their own guards, torch's and the standard library's), or newer
            # than this nvcc supports (its host_config.h)
            r"#error \"You're trying to build PyTorch with a too old version of GCC",
            r"#error This file requires compiler and library support for the ISO C\+\+ 2011 "
            r"standard",
            r"#error \"MPark\.Variant requires C\+\+11 support\.\"",
            r"#error -- unsupported GNU version!",
            # a toolkit of another CUDA major version than torch's (DeepSpeed's op builder
            # refuses it; newer DeepSpeed accepts a minor mismatch with a warning that does not
            # say "unable to"; torch.utils.cpp_extension's check says it as "mismatches", its
            # minor-version warning "has a minor version mismatch"; its message breaks the
            # line before "PyTorch (12.1)", under an empty "RuntimeError:", in older torch,
            # and runs "compilePyTorch" together inside a tuple's repr in newer)
            r"Installed CUDA version \S+ does not match the version torch was compiled with "
            r"\S+, unable to compile cuda/cpp extensions",
            r"The detected CUDA version \(\S+\) mismatches the version that was used to "
            r"compile",
        ),
        cause="the CUDA toolkit that builds an op at start-up (DeepSpeed's fused_adam or "
        "cpu_adam, a project's own CUDA kernels, through torch.utils.cpp_extension) does not "
        "fit this machine: its CUDA version is not torch's (another major, or a minor that "
        "DeepSpeed's check does not accept), its nvcc is older than the GPUs (compute_89 "
        "needs CUDA 11.8, "
        "compute_90 11.8, compute_100 12.8), it lacks the CUDA libraries the op links "
        "against, or the host compiler it calls (gcc) is one it or torch's headers refuse: "
        "older than their C++ standard (C++17 or newer: gcc 9 or later, as torch's own "
        "check says) or newer than this nvcc supports; every rank, and every rerun, builds "
        "it the same way.",
        fix="install a CUDA toolkit (nvcc and its -dev libraries) of the version torch was "
        "built with (python -c 'import torch; print(torch.version.cuda)') and point "
        "CUDA_HOME at it; TORCH_CUDA_ARCH_LIST limits the build to architectures that "
        "toolkit knows; a gcc in the supported range goes first on the PATH (or set CC and "
        "CXX, which torch passes to nvcc as -ccbin; NVCC_PREPEND_FLAGS='-ccbin ...' only "
        "where CC is unset, since nvcc refuses two); or install DeepSpeed with its ops "
        "prebuilt (DS_BUILD_OPS=1) where a fitting toolkit is present; then clear "
        "~/.cache/torch_extensions of the half-built copy.",
        fixtures=(
            "cuda_config_error__deepspeedexamples_103.log",
            "cuda_config_error__llamafactory_5020.log",
            "cuda_config_error__deepspeed_4576.log",
            "cuda_config_error__dolly_168.log",
        ),
    ),
    Rule(
        name="cuda_library_not_found",
        category="cuda_config_error",
        code="LX751",
        # above the exception line that carries it (LX511)
        priority=84,
        retryable=False,
        patterns=(
            # the dynamic loader's words, through Python's ImportError (an extension linked
            # against it) or OSError (ctypes.CDLL, as projects load the runtime by name or by
            # path): the CUDA runtime or one of its libraries, or the driver's own libcuda
            r"^(?:ImportError|OSError): (?:\S+: )?(?:\S*/)?lib(?:cudart|cublas(?:Lt)?|cudnn\w*"
            r"|cufft|curand|cusparse(?:Lt)?|cusolver|nvrtc|nvJitLink|cupti|nvToolsExt|cuda|nccl)"
            r"\.so(?:\.[\d.]+)?: cannot open shared object file",
        ),
        # bitsandbytes logs its native library's load failure with the traceback and falls
        # back (cextension.py): the run goes on and may fail of something else
        not_after=(r"bitsandbytes library load error: ",),
        cause="a CUDA library this process loads at start-up was not found by the dynamic "
        "loader: the CUDA runtime (libcudart) or one of its libraries (cuBLAS, cuDNN, cuFFT, "
        "cuRAND, NVRTC, NCCL), or the driver's libcuda. A pip torch ships its own copies under "
        "site-packages/nvidia, which a project's extension or a ctypes.CDLL('libcudart.so') "
        "does not search; a container started without the NVIDIA runtime has no libcuda; an "
        "extension built against another CUDA major version asks for a soname (libcudart.so.11"
        ".0) that is not installed. Every rank and every rerun fails the same way.",
        fix="find the library (`ldconfig -p | grep <name>`, `find / -name '<name>*'`) and put "
        "its directory on LD_LIBRARY_PATH in the profile's env, or install the matching "
        "package (nvidia-cuda-runtime-cu12 and friends, or the CUDA toolkit of "
        "torch.version.cuda); an unversioned name (libcudart.so) is only in the toolkit's "
        "-dev files: link it to the versioned one; a missing libcuda.so.1: run the container "
        "with the NVIDIA runtime (--gpus all); a soname of another CUDA version: rebuild or "
        "reinstall the extension for this torch.",
        fixtures=("cuda_config_error__cosmos_transfer25_151.log",),
    ),
    Rule(
        name="bitsandbytes_cuda_setup_failed",
        category="cuda_config_error",
        code="LX764",
        # above the exception line that carries it (LX511)
        priority=84,
        retryable=False,
        patterns=(
            # bitsandbytes 0.37-0.41 (cextension.py) raises a RuntimeError whose message starts
            # on the line after "RuntimeError:"; its cuda_setup raises the shorter Exception.
            # The same words printed as a log entry (a bare "CUDA SETUP: Setup Failed!") or by
            # later releases as a warning ("despite CUDA being available"), where the import
            # goes on without the native library, are not read.
            r"^\s*CUDA Setup failed despite GPU being available\.",
            r"^Exception: CUDA SETUP: Setup Failed!$",
        ),
        cause="bitsandbytes (8-bit optimizers, 4- and 8-bit quantized models) could not load "
        "a native library for this machine's CUDA when it was imported: its CUDA setup found "
        "no libcudart it could use, detected a CUDA version it ships no binary for (an old "
        "release has none for CUDA 10.x or 12.x), or picked a binary whose CUDA libraries "
        "are not on the loader's path. Every rank imports it and fails the same way, on "
        "every rerun.",
        fix="run `python -m bitsandbytes` on a compute node to see what it detected; install "
        "a bitsandbytes release built for torch.version.cuda (a current one ships binaries "
        "for CUDA 11.8-12.x), or set BNB_CUDA_VERSION to the version whose binary it should "
        "load; put the CUDA runtime's directory (site-packages/nvidia/cuda_runtime/lib for a "
        "pip torch, /usr/local/cuda/lib64 otherwise) on LD_LIBRARY_PATH in the profile's "
        "env.",
        fixtures=(
            "cuda_config_error__belle_376_torchrun_bnb_cuda100.log",
            "cuda_config_error__bnb_555_accelerate_cuda_setup_failed.log",
        ),
    ),
    Rule(
        name="wandb_init_failed",
        category="user_code_error",
        code="LX752",
        # below every failure of the run itself (a script may catch it and train on without
        # its logger; the script's exceptions, LX511, skip wandb's), above the symptoms of a
        # rank that died of it (its peers' timeouts and closed connections)
        priority=60,
        retryable=False,
        # wandb.init()'s own words when its service process or the server did not answer
        # in time: older releases ("wandb: ERROR Error communicating with wandb process"),
        # newer ones (CommError "Run initialization has timed out after 90.0 sec.")
        patterns=(_WANDB_INIT_FAILED,),
        cause="the script's experiment logger, wandb.init(), gave up at start-up: its "
        "helper process did not start or answer, or could not reach the W&B server in time "
        "(a compute node without internet or without the proxy settings, a slow server, "
        "many ranks or jobs starting runs at once), and it raised, ending that rank. It is "
        "not a fault of the distributed run, and on a node without egress every rerun fails "
        "the same way.",
        fix="start wandb on rank 0 only; set WANDB_MODE=offline in the profile's env (sync "
        "later with `wandb sync`) where nodes have no internet, or pass the proxy "
        "(HTTPS_PROXY) through; raise the wait with WANDB_INIT_TIMEOUT=300 (or "
        "wandb.Settings(init_timeout=...)); for 'Error communicating with wandb process' "
        "wandb also suggests wandb.init(settings=wandb.Settings(start_method='thread')); "
        "WANDB_MODE=disabled turns it off.",
        fixtures=("user_code_error__bigcode_megatron_lm_27.log",),
    ),
    Rule(
        name="safetensors_shared_tensors",
        category="user_code_error",
        code="LX768",
        # above the exception line that carries it (LX511): its message starts on the line
        # under an empty "RuntimeError:", which a paste often leaves out
        priority=84,
        retryable=False,
        patterns=(
            # safetensors' torch.py (_flatten) refusing a state dict whose tensors share
            # storage, as save_file and save_model's checks word it
            r"^(?:RuntimeError: )?\s*Some tensors share memory, this will lead to duplicate "
            r"memory on disk and potential differences\b",
        ),
        cause="the checkpoint was written with safetensors, which refuses a state dict in "
        "which two entries share one storage: tied weights (input and output embeddings), "
        "or a wrapper (DeepSpeed's engine, a PEFT model, a script's own state_dict() of a "
        "wrapped model) that hands the same storage under several names. The save fails the "
        "same way every time; the training before it is lost unless an earlier checkpoint "
        "was written.",
        fix="upgrade safetensors: releases since mid-2023 no longer refuse views of one "
        "buffer that do not overlap (DeepSpeed's parameters in its flat buffers); for tied "
        "weights save with safetensors' save_model() (or accelerator.save_model()), which "
        "drops the duplicate names, or from the unwrapped model "
        "(accelerator.unwrap_model(model)); or write a torch checkpoint instead "
        "(save_safetensors=False in TrainingArguments, --save_model_as ckpt in kohya's "
        "scripts).",
        fixtures=(
            "user_code_error__safetensors_304_deepspeed_llama2_shared.log",
            "user_code_error__sdscripts_629_deepspeed_sdxl_safetensors_shared.log",
        ),
    ),
    Rule(
        name="tensors_on_two_devices_logged",
        category="user_code_error",
        code="LX767",
        # below every failure of the run itself, like a logger's (LX752): the raised form is
        # an exception line (LX511); this reads the message where a harness caught it per
        # sample and logged it, scoring the samples as failed and going on
        priority=60,
        retryable=False,
        patterns=(
            r"\bExpected all tensors to be on the same device, but found at least two "
            r"devices ?, (?:cuda|npu|xpu|cpu|meta):?\d* and (?:cuda|npu|xpu|cpu|meta)\b",
        ),
        cause="an operation was given tensors on two devices: the model is spread over "
        "several GPUs (device_map='auto', a pipeline split by hand) while each rank also "
        "puts its inputs on its own GPU, or a layer was left on another GPU or the CPU. With "
        "several processes per node, device_map='auto' lets every process use every GPU. "
        "An evaluation harness that catches it per sample scores those samples as failed "
        "and goes on; every rerun gives the same result.",
        fix="with one process per GPU (accelerate launch, torchrun), load the model on that "
        "process's GPU (device_map={'': local_rank}) rather than device_map='auto'; with "
        "one process over all GPUs, launch it as a single process (num_processes=1); move "
        "the inputs to the device of the model's first layer.",
        fixtures=(
            "user_code_error__lmms_eval_50_tensors_diff_device.log",
            "user_code_error__irnet_19_dataparallel_tensors_two_devices.log",
        ),
    ),
    Rule(
        name="cuda_too_many_peers",
        category="cuda_config_error",
        code="LX650",
        priority=88,
        retryable=False,
        patterns=(
            # cudaErrorTooManyPeers (60 before CUDA 10.1, 711 since): THC's words, and the
            # runtime's own name for it
            r"peer mapping resources exhausted",
            r"cudaErrorTooManyPeers",
        ),
        cause="CUDA refused to enable peer-to-peer access between one more pair of GPUs: "
        "without NVSwitch a GPU supports at most eight peer connections system-wide, counted "
        "over every process on the node (fewer where the platform's hardware runs out "
        "sooner), and one process driving many GPUs (nn.DataParallel, a model split over "
        "devices) or NCCL's P2P transport asked for more; it fails the same way on every "
        "start with these GPUs.",
        fix="run one process per GPU (`launchx run` or torchrun with "
        "DistributedDataParallel, not nn.DataParallel over all the GPUs); NCCL_P2P_LEVEL=NVL "
        "(profile env) keeps NCCL's P2P to NVLink-connected pairs, NCCL_P2P_DISABLE=1 turns "
        "it off (at some speed).",
        fixtures=("cuda_config_error__pytorch_25019_peer_mapping_resources_exhausted.log",),
    ),
    Rule(
        name="cuda_config",
        category="cuda_config_error",
        code="LX540",
        priority=88,
        patterns=(
            r"invalid device ordinal",
            # c10's own check of a device index against the GPUs this process's CUDA runtime
            # can open: NVML lists more (a second MIG instance in one process, a GPU that
            # failed), or CUDA_VISIBLE_DEVICES / a GPU binding is narrower than the ranks'
            # local indices (older torch prints the numbers as characters, so they may look
            # empty)
            r"device >= 0 && device < num_gpus INTERNAL ASSERT FAILED",
            # ... and torch.cuda's own check of an index past the visible GPUs, in releases
            # before 2.0 (get_device_properties: nn.DataParallel's device_ids asking for more
            # GPUs than the machine or CUDA_VISIBLE_DEVICES gives)
            r"^AssertionError: Invalid device id$",
            # (faiss prints the runtime's string after "CUDA error 209", which a paste may cut
            # short: the words before "for execution" already say it)
            r"no kernel image is available\b",
            # CUTLASS's device-side check in a kernel that uses an architecture-specific MMA
            # (sm_90a's WGMMA, sm_100a's): the binary was compiled without that target, so
            # every rank aborts in its first GEMM (torchao's float8 rowwise on B200); older
            # kernels (FlashAttention 3's) name sm90a in it
            r"Arch conditional MMA instruction used without targeting (?:appropriate|sm\d+a) "
            r"compute capability",
            r"CUDA-capable device\(s\) is/are busy or unavailable",
            r"all CUDA-capable devices are busy or unavailable",
            r"forward compatibility was attempted on non supported HW",
            r"system has unsupported display driver / cuda driver combination",
            r"CUDA driver is a stub library",
            r"device kernel image is invalid",
            r"PTX JIT compiler library not found",
            r"NVIDIA driver on your system is too old",
            r"nvmlInit\w*\(\) failed: Driver/library version mismatch",
            # vLLM's Ray executor: the placement group (the Ray cluster's GPUs) is smaller than
            # the tensor x pipeline parallel size asked for
            r"number of required GPUs exceeds the total number of available GPUs in the "
            r"placement group",
            # ... and its check that the placement group holds a GPU on the node the engine
            # (the driver) runs on: VLLM_HOST_IP naming another node, or a head without GPUs
            r"Ray does not allocate any GPUs on the driver node",
            # pynvml's exception for NVML_ERROR_INVALID_ARGUMENT, which nvmlDeviceGetHandleByIndex
            # returns for an index past the GPUs on the host (a rank per GPU asked for by local
            # rank, with more ranks started than there are GPUs)
            r"^(?:pynvml\.(?:nvml\.)?)?NVMLError_InvalidArgument\b",
            # ... and its check of the node a worker's bundle landed on (a Ray node started
            # without --num-gpus, or whose GPUs Ray did not detect)
            r"ValueError: Current node has no GPU available\. current_node_resource=",
            # vLLM's ParallelConfig check (a pod or a Ray node that sees fewer GPUs)
            r"Tensor parallel size \(\d+\) cannot be larger than the number of available GPUs",
            # SageMaker's model-parallel library (smp): more MPI processes on the node than
            # GPUs (its message runs the count into the next word)
            r"The number of node-local MPI processes \d+ ?cannot be larger than the device count",
            # the CUDA runtime's own names of these statuses, as a library reports them
            rf"\bcudaError(?:{_CUDA_CONFIG_STATUSES})\b",
            r"ProcessGroupNCCL is only supported with GPUs, no GPUs found",
            r"Unable to proceed, no GPU resources available",
            r"CUDA driver version is insufficient for CUDA runtime version",
            r"Found no NVIDIA driver on your system",
            r"No CUDA GPUs are available",
            r"no CUDA-capable device is detected",
            # ROCm's wording of the same status (hipErrorNoDevice), through torch's HIP check
            r"no ROCm-capable device is detected",
            # Ascend's runtime: a device index outside the devices the process may see (the
            # counterpart of an invalid device ordinal under CUDA_VISIBLE_DEVICES)
            r"Set visible device failed, invalid device=\d+",
            # MuJoCo's EGL renderer (robot simulators inside RL workers) given a GPU index past
            # the GPUs its process sees: a worker's rank used as the device id under a
            # narrowed CUDA_VISIBLE_DEVICES, the same mistake as an invalid ordinal
            r"MUJOCO_EGL_DEVICE_ID environment variable must be an integer between \d+ and -?\d+ "
            r"\(inclusive\), got \d+",
            r"with CUDA capability sm_\d+ is not compatible with the current PyTorch",
            r"the provided PTX was compiled with an unsupported toolchain",
            # the runtime's and the driver API's words (torch's symmetric memory calls the
            # driver: "CUDA driver error: ...")
            r"CUDA (?:driver )?error: system not yet initialized",
            # the same status (cudaErrorSystemNotReady, 802) as NCCL's "Last error:" words it
            r"Cuda failure (?:802 )?'system not yet initialized'",
            # (not the numbered "Cuda failure 3 'initialization error'" of newer NCCL, which
            # the corpus shows from its NVLS set-up at run time: LX512)
            r"Cuda failure 'initialization error'",
            r"Torch not compiled with CUDA enabled",
            # Horovod built without GPU operations (HAVE_GPU unset: HOROVOD_GPU_OPERATIONS not in
            # effect at build time, a cached CPU build, or torch's CUDA not detected by its
            # setup) asked to reduce a GPU tensor
            r"Requested ReadyEvent with GPU device but not compiled with CUDA",
            r"CUDA driver initialization failed",
            r"Unexpected error from cudaGetDeviceCount\(\)",
            # torchrun --nproc-per-node gpu (or xpu) on a host where torch sees none
            r"ValueError: (?:Cuda|Xpu) is not available\.",
            # newer torch's own checks of a local rank past the GPUs a process may use:
            # torchrun's agent against CUDA_VISIBLE_DEVICES when it gives each rank one GPU
            # as its device 0 (--virtual-local-rank: local_elastic_agent.py), and
            # init_process_group's device_id against the accelerators it sees
            # (distributed_c10d.py)
            r"\blocal_rank \d+ exceeds available GPUs in CUDA_VISIBLE_DEVICES=",
            r"\bdevice_id \S+ is out of range\. Please use a device index less than the number "
            r"of accelerators available",
            # Lightning's device check: more GPUs asked for than the process can see
            r"You requested (?i:gpus?): \[[\d, ]*\]",
            # the same check in Lightning 1.x, its message on the lines under the exception
            r"MisconfigurationException: ?\s*You requested (?i:gpus?): \[",
            # Lightning's accelerator="gpu" with neither CUDA nor MPS visible (also as the repr
            # Hydra prints under "Error in call to target")
            r"No supported gpu backend found!",
            # accelerate's check of mixed_precision="fp16" when torch sees no CUDA device (a
            # CPU-only wheel, no driver, an empty CUDA_VISIBLE_DEVICES), as releases before
            # 0.27 word it (later ones name a device they do not support: "(not 'mps')")
            r"\bfp16 mixed precision requires a GPU\s*$",
            # the HF Trainer's TrainingArguments check of --fp16/--bf16 when the device it
            # picked is not a GPU (4.x: "... can only be used on CUDA devices", later "... on
            # CUDA or MLU devices or NPU devices ...")
            r"\bMixed precision training with AMP or APEX \(`--fp16`.{0,120}? can only be used "
            r"on CUDA\b",
            # vLLM's DeviceConfig in a process (a Ray actor given no GPU) that sees none, and
            # its wording since about 0.6
            r"No supported device detected\.",
            r"RuntimeError: Failed to infer device type\b",
            # YOLOv5/v7-style training scripts check their local rank against the GPUs they
            # see: the assertion's message, or its source line in a bare AssertionError's frame
            r"insufficient CUDA devices for DDP command",
            r"assert torch\.cuda\.device_count\(\) > \w*\.?(?i:local_rank)\b",
            # the same check of the world against the GPUs (text-generation-inference's
            # shards: "Each process is one gpu")
            r"assert torch\.cuda\.device_count\(\) >= \w*\.?(?i:world_size)\b",
            r"assert \w*\.?(?i:world_size) <= torch\.cuda\.device_count\(\)",
            # ... and YOLOX's (ByteTrack's) check of its -d count before it starts the ranks
            r"assert \w*\.?num_gpus? <= (?:torch\.cuda\.device_count|get_num_devices)\(\)",
            # ... and the launcher of text-generation-inference (and its fork LoRAX) before
            # any shard starts: --sharded true with fewer than two GPUs visible
            r"NotEnoughCUDADevices\(",
            # cuBLAS/cuDNN: the GPU lacks a feature the call needs (bf16, fp8, TF32 on old GPUs)
            r"CUBLAS_STATUS_ARCH_MISMATCH|CUDNN_STATUS_ARCH_MISMATCH",
            # cudaErrorNotSupported: a feature the driver, GPU or platform lacks (multicast
            # objects before driver 530, IPC or memory pools under WSL)
            r"CUDA [Ee]rror: operation not supported",
            r"Cuda failure (?:\d+ )?'operation not supported'",
            # TransformerEngine's own check before it asks for multicast objects (userbuffers'
            # comm+GEMM overlap)
            r"does not support comm\+GEMM overlap with CUDA Multicast",
            # Hugging Face TrainingArguments' check of --bf16: no bf16 before Ampere (V100, T4)
            r"Your setup doesn't support bf16/gpu\b",
            # ROCm: no kernels for this GPU's gfx architecture in the build, or no GPU; CUDA's
            # same status (cudaErrorInvalidDeviceFunction, 98): a kernel not compiled for this
            # GPU (an extension built for another architecture)
            r"(?:HIP|CUDA) error: invalid device function",
            # a compiled op's own check, which prints the runtime's string after its name
            r"^error in \w+: invalid device function\b",
            # NCCL's and RCCL's check macros: "Cuda failure 98 '...'", "HIP failure: '...'"
            r"(?:Cuda|HIP) failure:? (?:\d+ )?'(?:invalid device function"
            r"|no ROCm-capable device is detected)'",
            r"hipErrorNoBinaryForGpu",
            r"No HIP GPUs are available",
            # TensorFlow's placer (torch_xla's XRT runtime runs on it): an op pinned to a
            # device index this process cannot see, the XLA counterpart of an invalid ordinal
            r"Cannot assign a device for operation \S+: (?:\{\{node \S+\}\} |Operation )?was "
            r"explicitly\b",
        ),
        # c10's warnings from a destructor (destroyEvent) after a kernel fault: the device
        # is unusable because of that fault, which LX631/LX512 read
        exclude=(r"Warning: CUDA warning: ",),
        cause="CUDA cannot run this job on this machine as configured: more ranks than visible "
        "GPUs (invalid device ordinal; for vLLM's Ray executor, fewer GPUs in the Ray "
        "cluster than tensor x pipeline parallel, or none on the node the engine runs on), a "
        "torch build without this GPU's "
        "architecture (no kernel image), a driver older than the CUDA runtime, GPUs in "
        "exclusive-process mode, a feature this driver, GPU or platform does not have "
        "(operation not supported), an NVSwitch machine whose fabric manager is not "
        "running or not of the driver's version (system not yet initialized), NVML listing a GPU "
        "that the CUDA runtime cannot open (a second MIG instance in one process, a GPU "
        "that failed: device < num_gpus), no GPU at all, or a build without CUDA (a CPU-only "
        "torch, Horovod built without GPU operations) (ROCm's and Ascend's words for these "
        "too). Not the training code, and not transient.",
        fix="match --nproc-per-node to the GPUs visible (nvidia-smi -L, CUDA_VISIBLE_DEVICES; "
        "SageMaker's model parallel: processes_per_host in the estimator's mpi distribution); "
        "install a torch wheel built for this GPU and driver (torch.cuda.get_arch_list(), "
        "the driver's CUDA version in nvidia-smi); set the compute mode to Default "
        "(nvidia-smi -c 0) or run one process per GPU; on NVSwitch systems start "
        "nvidia-fabricmanager; with MIG give each process one instance "
        "(CUDA_VISIBLE_DEVICES=MIG-<uuid>); a GPU that vanished: check nvidia-smi and dmesg "
        "for Xid and drain the node. ROCm: a wheel built for this gfx architecture "
        "(rocminfo), or HSA_OVERRIDE_GFX_VERSION for a GPU close to a supported one. "
        "TransformerEngine's comm+GEMM overlap without multicast: UB_SKIPMC=1 (CUDA IPC "
        "instead); bf16 refused: check torch.cuda.is_available() (a CPU-only wheel, an empty "
        "CUDA_VISIBLE_DEVICES) and torch.cuda.get_device_capability() (8.0 or more), and on a "
        "GPU before Ampere (V100, T4) train in fp16 instead (--fp16, not --bf16). vLLM on "
        "Ray: add nodes to the Ray cluster (ray status) or lower tensor x pipeline parallel; "
        "'Ray does not allocate any GPUs on the driver node': start the engine on a GPU node "
        "of the cluster, with "
        "VLLM_HOST_IP set to that node's address as Ray knows it (ray status), not another's. "
        "Ascend: the device index must be one of ASCEND_RT_VISIBLE_DEVICES (a VM sees its "
        "passed-through NPUs from 0). MuJoCo's EGL device: count it from 0 among the GPUs "
        "the worker sees, not by its rank ('between 0 and -1': no EGL device at all, a "
        "container without NVIDIA_DRIVER_CAPABILITIES=graphics). accelerate's fp16 without "
        "a GPU: check torch.cuda.is_available() in the same environment (a CPU-only wheel, "
        "no driver). Horovod's 'not compiled with CUDA': horovodrun --check-build, then "
        "reinstall it with HOROVOD_GPU_OPERATIONS=NCCL pip install --no-cache-dir "
        "--force-reinstall horovod[pytorch], a release that supports this torch.",
        fixtures=(
            "cuda_config_error__gtad_36_dataparallel_invalid_device_id.log",
            "cuda_config_error__sagemaker_examples_2023.log",
            "cuda_config_error__torchao_2904_float8_rowwise_b200_arch_mma.log",
            "cuda_config_error__rlinf_953.log",
            "cuda_config_error__kohya_ss_719.log",
            "cuda_config_error__shivamshrirao_diffusers_97.log",
            "cuda_config_error__llama_946_garbled.log",
            "cuda_config_error__ms_swift_5118_exclusive_process.log",
            "cuda_config_error__nccl_1029_deepspeed_workers_no_cuda_env.log",
            "cuda_config_error__lightning_16828_slurm_gpus_per_task.log",
            "cuda_config_error__transformerengine_991_ub_multicast_not_supported.log",
            "cuda_config_error__yolov7_1463_nproc_exceeds_visible_gpus.log",
            "cuda_config_error__llamafactory_8968_b200_cuda_802_fabricmanager.log",
            "cuda_config_error__tgi_425_each_process_is_one_gpu.log",
            "cuda_config_error__mace_1197_h200_mig_num_gpus_assert.log",
            "cuda_config_error__mace_1504_torchrun_deferred_cuda_init.log",
            "cuda_config_error__vita_42.log",
            "cuda_config_error__chitu_118.log",
            "cuda_config_error__gpustack_3352.log",
            "cuda_config_error__lorax_150_sharded_only_one_cuda_device.log",
            "cuda_config_error__ray_39128_neuron_core_not_visible.log",
            "cuda_config_error__horovod_2478_not_compiled_with_cuda.log",
            "cuda_config_error__vllm_omni_241_symm_mem_system_not_initialized.log",
            "cuda_config_error__transformerengine_1923.log",
            "cuda_config_error__fastchat_399.log",
            "cuda_config_error__mattergen_217.log",
            "cuda_config_error__openrlhf_233.log",
            "cuda_config_error__dynamo_4934.log",
            "cuda_config_error__vllm_29265.log",
        ),
    ),
    Rule(
        name="tpu_device_unavailable",
        category="cuda_config_error",
        code="LX709",
        priority=88,
        retryable=False,
        patterns=(
            # libtpu (torch_xla's PJRT runtime) could not open a TPU chip's device file
            r"TPU initialization failed: open\(/dev/(?:accel|vfio/)\d+\): ",
            # the older XRT runtime's words, inside its failed check (the line's "Exception in
            # device=TPU:N" or "Check failed" keeps it; alone it holds no anchor)
            r"Couldn't open device: /dev/(?:accel|vfio/)\d+",
        ),
        cause="torch_xla's runtime could not open the TPU chips (/dev/accel*, /dev/vfio/* "
        "on newer VMs): another process holds them (an earlier run or notebook kernel still "
        "alive: a TPU is opened by one process at a time) or this user may not open them; no "
        "rank can start until the chips are free.",
        fix="find the holder (`sudo lsof -w /dev/accel*` or `/dev/vfio/*`) and stop it, or "
        "wait for it to end; run as a user with access to the device files; then start "
        "again.",
        fixtures=(
            "cuda_config_error__accelerate_2999.log",
            "cuda_config_error__torch_xla_3947_tpu_accel0_not_permitted.log",
        ),
    ),
    Rule(
        name="no_gpu_to_divide_by",
        category="cuda_config_error",
        code="LX699",
        # above the script's own exception (LX511): the division is by the GPU count
        priority=88,
        retryable=False,
        patterns=(r"^ZeroDivisionError: integer (?:division or )?modulo by zero",),
        # the frame's source line: a rank taken modulo the GPUs torch sees (mmcv's and
        # many research codebases' init_dist: torch.cuda.set_device(rank % num_gpus),
        # local_rank = rank % torch.cuda.device_count(), gpu = args.rank % args.n_gpu)
        context=(
            r"set_device\([^)]*%",
            r"%\s*(?:torch\.cuda\.device_count\(\)|[\w.]*\b(?:num_gpus|n_?gpus?|gpu_count"
            r"|device_count|ngpus_per_node)\b)",
        ),
        cause="the process sees no GPU: torch.cuda.device_count() is 0, so picking the rank's "
        "GPU as rank % num_gpus divided by zero (a CPU-only torch, CUDA_VISIBLE_DEVICES empty "
        "or wrong, a driver torch cannot use, a container or WSL without the GPUs); every "
        "rank fails the same way.",
        fix="check `python -c 'import torch; print(torch.cuda.device_count())'` in the "
        "environment the launcher starts (the same venv, CUDA_VISIBLE_DEVICES, container): "
        "install a CUDA build of torch that matches the driver, or expose the GPUs; "
        "`launchx doctor` shows the GPUs each node sees.",
        fixtures=(
            "cuda_config_error__dsl_25.log",
            "cuda_config_error__setr_50.log",
            "cuda_config_error__bpr_12.log",
        ),
    ),
    Rule(
        name="nccl_shm",
        category="shm_error",
        code="LX508",
        priority=90,
        patterns=(
            r"Error while (?:creating|attaching to) shared memory segment",
            r"failed to extend /dev/shm/\S+ to \d+ bytes",
            r"Call to posix_fallocate failed : No space left on device",
            r"Could not map /dev/shm/\S+ size \d+, error: Cannot allocate memory",
            r"No space left on device.*/dev/shm/nccl|/dev/shm/nccl.*No space left on device",
        ),
        cause="shared memory (/dev/shm) is too small or full for NCCL's shared-memory "
        "transport; containers get 64 MB by default.",
        fix="run the container with --ipc=host or --shm-size=16g (Kubernetes: an emptyDir "
        "volume with medium: Memory on /dev/shm); remove stale /dev/shm/nccl-* files; "
        "NCCL_SHM_DISABLE=1 works but is slower.",
        fixtures=(
            "shm_error__nccl_342_posix_fallocate.log",
            "shm_error__nccl_tests_166_failed_to_extend.log",
        ),
    ),
    Rule(
        name="ccl_shm_provider",
        category="shm_error",
        code="LX669",
        priority=90,
        retryable=False,
        patterns=(
            # oneCCL's transport (ATL over libfabric) failing to open libfabric's shared-memory
            # provider for ranks on one host (Intel GPUs and CPUs, Gaudi's host side)
            r"atl_ofi_get_prov_list: can't create providers for name shm\b",
        ),
        cause="oneCCL could not open libfabric's shared-memory provider, which it uses between "
        "ranks on one host: in a container, /dev/shm is too small (64 MB by default) or not "
        "shared; every start fails the same way until the container has room there.",
        fix="start the container with --shm-size=16g or --ipc=host (Kubernetes: an emptyDir "
        "with medium: Memory on /dev/shm), check `df -h /dev/shm` inside it, and remove stale "
        "files there.",
        fixtures=("shm_error__ipex_llm_11877_xpu_vllm_ccl_ofi_shm_provider.log",),
    ),
    Rule(
        name="cuda_oom",
        category="cuda_oom",
        code="LX509",
        priority=85,
        patterns=(
            r"CUDA out of memory",
            r"OutOfMemoryError: CUDA",
            # DataParallel re-raising a replica's OOM in the caller (the original message is in
            # the traceback under it), and the cudaMallocAsync allocator's own out-of-memory
            # message (PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync: the device's memory,
            # or a memory fraction the script set, used up)
            r"OutOfMemoryError: Caught OutOfMemoryError in replica \d+ on device \d+",
            r"^Caught OutOfMemoryError in replica \d+ on device \d+",
            r"OutOfMemoryError: Allocation on device \d+ would exceed allowed memory",
            r"CUBLAS_STATUS_ALLOC_FAILED",
            r"Cuda failure (?:\d+ )?'out of memory'",
            # vLLM's custom all-reduce's own CUDA check (LX706 leaves this status here)
            r"\bFailed: (?:Cuda error )?\S*custom_all_reduce\.cuh:\d+ 'out of memory'",
            # ... and the same check in DeepEP's and the other kernels' C++ (LX735's form)
            r"\bFailed: C(?:UDA|uda) error \S+:\d+ 'out of memory'",
            r"CUDA error: out of memory",
            # Thrust's system_error (torch's older sorting and unique kernels, extensions built
            # on it): the CUDA status's own text after the step that got it
            r"(?:after cudaLaunch in triple_chevron_launcher::launch\(\)|parallel_for failed): "
            r"out of memory",
            # the runtime's own name for that status, as RAPIDS' RMM and cupy report it (RMM
            # wraps it in a MemoryError: std::bad_alloc that is not the host's memory)
            r"\bcudaErrorMemoryAllocation\b",
            # THC before torch 1.8
            r"cuda runtime error \(2\) ?: out of memory",
            r"THCudaCheck FAIL .*error=2 : out of memory",
            r"CUDA driver error: out of memory",
            r"CUDNN_STATUS_ALLOC_FAILED",
            r"HIP out of memory|OutOfMemoryError: HIP|HIP error: out of memory|hipErrorOutOfMemory",
            r"HIP failure: 'out of memory'",
            # ROCr's queue callback when it cannot allocate a dispatch's scratch memory on the
            # device (the status on the abort's line, or alone on the next one)
            r"(?:^\s*|[Aa]borting with error : )HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime "
            r"failed to allocate",
            # Intel GPUs: torch's XPU allocator, and Level Zero's status as oneCCL reports it
            r"XPU out of memory|(?:ZE|UR)_RESULT_ERROR_OUT_OF_DEVICE_MEMORY",
            # Ascend NPUs: torch_npu's caching allocator, worded like CUDA's
            r"NPU out of memory\. Tried to allocate",
            # CANN's own report when the runtime's allocation fails (EL0004), and the driver's
            # reason under it
            r"^EL0004: .*Failed to allocate memory|\(EL0004\): Failed to allocate memory",
            r"reason=\[driver error: ?out of memory\]",
            # Intel Gaudi (HPU): the device-memory allocator's fatal error
            r"MODULE:PT_DEVMEM Allocation failed",
            # NVSHMEM (DeepEP, Triton-distributed) reserving its symmetric heap: CUresult 2
            # is CUDA_ERROR_OUT_OF_MEMORY
            r"non-zero status: 2 cuMemCreate failed",
            # torch_memory_saver (slime's and verl's offload of weights and KV cache) when the
            # driver's cuMemCreate returns CUDA_ERROR_OUT_OF_MEMORY, or the runtime's status 2
            # when it resumes a paused region
            r"(?:CUresult|cudaError) error: 2 \(out of memory\)",
            # nvJPEG (DALI's GPU image decoder) when its device allocator fails
            r"\bNVJPEG_STATUS_ALLOCATOR_FAILURE\b",
            # XLA on a TPU: XRT's allocator ("Attempting to reserve 10.51G at the bottom of
            # memory. That was not possible.") and the compiler's HBM budget (PJRT)
            r"(?:RESOURCE_EXHAUSTED|Resource exhausted): (?:E\d+: \w+:\s*)?(?:Error allocating "
            r"device buffer: )?Attempting to (?:reserve|allocate) \S+(?: at the bottom of "
            r"memory)?\. That was not possible",
            r"Ran out of memory in memory space hbm\b",
            # ... and XLA's allocator on a GPU or TPU, as JAX and torch_xla raise it
            r"RESOURCE_EXHAUSTED: Out of memory while trying to allocate \S+",
            # Triton loading a kernel's binary (an autotuning run, a fused kernel) into a GPU
            # with no memory left
            r"Triton Error \[CUDA\]: out of memory",
            # vLLM's sleep-mode allocator (cumem_allocator.cpp: its CUDA_CHECK of the driver's
            # cuMemCreate), when a colocated trainer wakes the engine into a full GPU
            r"C(?:UDA|uda) [Ee]rror: out of memory at \S*cumem_allocator\.cpp: ?\d+",
        ),
        # pinned host memory (cudaHostAlloc) is the host's, and TensorRT's autotuner skipping
        # a tactic for want of memory goes on with another
        exclude=(r"\bcudaHostAlloc\b|\bcudaMallocHost\b|Skipping tactic",),
        cause="an accelerator (a GPU, or a TPU's HBM) ran out of memory; the same attempt would "
        "fail the same way.",
        fix="lower the per-GPU batch size or sequence length, enable activation checkpointing "
        "or sharding (FSDP/ZeRO), and set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
        "when 'reserved but unallocated' is large; check that no other process holds the "
        "GPU (nvidia-smi). On Ascend NPUs the same knobs are PYTORCH_NPU_ALLOC_CONF and "
        "npu-smi; on Gaudi, hl-smi shows the device memory. NVSHMEM's heap is sized by "
        "NVSHMEM_SYMMETRIC_SIZE (DeepEP: its buffer's num_rdma_bytes; num_nvl_bytes is a "
        "separate allocation that takes device memory too).",
        fixtures=(
            "cuda_oom__minerva_42_html_table.log",
            "cuda_oom__slime_274.log",
            "cuda_oom__rocm_clr_281.log",
            "cuda_oom__merlin_models_964.log",
            "cuda_oom__pytorch_18853.log",
            "cuda_oom__torch_ccl_65_xpu_reduce_scatter_device_oom.log",
            "cuda_oom__vllm_ascend_1127_ray_npu_oom_deepseek_2x8.log",
            "cuda_oom__optimum_habana_2214_gpt_oss_ep_pt_devmem_alloc.log",
            "cuda_oom__deepep_157_nvshmem_cumemcreate_failed.log",
            "cuda_oom__dali_2866_multi_gpu_nvjpeg_allocator_failure.log",
            "cuda_oom__llamafactory_5322.log",
            "cuda_oom__transformers_22328.log",
            "cuda_oom__xla_2569.log",
            "cuda_oom__lmmr1_42_vllm_cumem_allocator.log",
            "cuda_oom__torch_memory_saver_99_resume_kv_cache_oom.log",
            "cuda_oom__pytorch_examples_343_dataparallel_weak_gpu.log",
        ),
    ),
    Rule(
        name="ray_task_oom",
        category="cuda_oom",
        code="LX601",
        # below Ray's memory monitor (LX510, 84): its own ray.exceptions.OutOfMemoryError has
        # the same class name and reaches the driver wrapped the same way, with the monitor's
        # message beside it
        priority=83,
        patterns=(r"RayTaskError\((?:torch\.)?(?:cuda\.)?OutOfMemoryError\)",),
        cause="a Ray task or actor method raised OutOfMemoryError: torch's, a GPU that ran out "
        "of memory (Ray's own memory monitor, which kills tasks for the host's RAM, says so "
        "in its message, and that is not in this log); the same attempt fails the same way.",
        fix="lower the per-GPU batch size or sequence length of that worker, enable activation "
        "checkpointing or sharding, lower the memory given to a colocated inference engine "
        "(vLLM's gpu_memory_utilization), and check nvidia-smi for other processes on the GPU.",
        fixtures=("cuda_oom__nemo_rl_3793_ppo_default_yaml_get_logprobs.log",),
    ),
    Rule(
        name="kernel_oom",
        category="host_oom_killed",
        code="LX510",
        priority=84,
        patterns=(
            r"oom[-_]kill",
            r"Out of memory: Killed process",
            r"Memory cgroup out of memory",
            r"tasks? [\d,-]+: Out Of Memory",
            # SLURM's job state (not the driver's CUDA_ERROR_OUT_OF_MEMORY, which is the GPU's)
            r"\bOUT_OF_MEMORY\b",
            r"have been OOM Killed",
            r"exceeded (?:job )?memory limit",
            r"\bTERM_(?:MEMLIMIT|SWAP): [Jj]ob killed",
            r"PBS: job killed: p?v?mem\b.* exceeded limit",
            # the kubelet evicting a pod for the node's memory
            r"The node was low on resource: memory",
            r"\bOOMKilled\b",
            r"DefaultCPUAllocator: (?:can't allocate memory|not enough memory)",
            # torch's MapAllocator refused a file mapping (a checkpoint or safetensors shard
            # that every rank of the host maps at once): ENOMEM, the host's memory; not its
            # shared-memory tensors (</torch_N_M> in /dev/shm, or passed by descriptor:
            # <filename not specified>), which are LX686's
            r"unable to mmap \d+ bytes from file <(?!/torch_|filename not specified>)[^>]*>: "
            r"Cannot allocate memory",
            r"^(?:numpy\.core\._exceptions\.)?_?(?:Array)?MemoryError\b",
            # Windows refusing to commit memory (ERROR_COMMITMENT_LIMIT: RAM plus page file
            # spent), in any language: each spawned rank and worker loading torch's CUDA
            # libraries commits hundreds of MB at import
            r"Error: \[WinError 1455\]",
            # Ray's memory monitor kills workers before the kernel would
            r"killed due to memory pressure \(OOM\)",
            r"Task was killed due to the node running low on memory",
            r"exceeds the memory usage threshold of [\d.]+\. Ray killed this worker",
            r"docs\.ray\.io/\S*/ray-oom-prevention",
        ),
        cause="the kernel's OOM killer (or the job's cgroup or scheduler memory limit, Ray's "
        "memory monitor, or the kubelet evicting the pod) killed a process, or the host "
        "refused an allocation or a file mapping outright (ENOMEM: strict overcommit, an "
        "address-space limit, too many mappings; on Windows the commit limit, WinError "
        "1455's paging file too small): host RAM, not GPU memory, ran out.",
        fix="lower DataLoader num_workers/prefetch_factor, stop loading the whole dataset or "
        "checkpoint on every rank (torch.load(..., mmap=True)), ask SLURM for more --mem "
        "(Kubernetes: a higher memory request and limit); "
        "confirm with `dmesg -T | grep -i 'killed process'` or `sacct -j <job> -o "
        "JobID,State,MaxRSS`; for a refused mapping check `sysctl vm.overcommit_memory "
        "vm.max_map_count`, `ulimit -v` and CommitLimit against Committed_AS in /proc/meminfo; "
        "on Windows enlarge the paging file or start fewer processes and DataLoader workers.",
        fixtures=(
            "host_oom_killed__arjuna_52_slurm.log",
            "host_oom_killed__brainscore_950_slurm_step_oom.log",
            "host_oom_killed__lmm_r1_71_ray_job_failed_llmrayactor_memory.log",
            "host_oom_killed__nemo_10192_checkpoint_oom_kill_slurm.log",
            "host_oom_killed__uniworld_37.log",
            "host_oom_killed__weclip_5_winerror1455_pagefile.log",
        ),
    ),
    Rule(
        name="dataloader_worker_bus_error",
        category="shm_error",
        code="LX812",
        # above the loader's report of the dead worker (LX541), which follows this line
        priority=84,
        retryable=False,
        # torch's own words from a DataLoader worker's SIGBUS handler: the worker touched a
        # page of a /dev/shm file the filesystem had no room for (Docker's 64 MB, a pod's
        # /dev/shm without a memory-backed volume); the later "killed by signal: Bus error"
        # alone stays the loader's (LX541), which a growing host memory also ends in
        patterns=(
            r"Unexpected bus error encountered in worker\. This might be caused by "
            r"insufficient shared memory",
        ),
        cause="a DataLoader worker died of SIGBUS writing a batch into /dev/shm: the shared "
        "memory filesystem is too small for the workers' batches (a container's 64 MB "
        "default), so the run fails at the same point until it has more room.",
        fix="give the container shared memory: docker run --ipc=host or --shm-size=16g "
        "(Kubernetes: an emptyDir with medium: Memory mounted on /dev/shm; SLURM: check the "
        "job's /dev/shm with `df -h /dev/shm`), or use fewer num_workers, a smaller "
        "prefetch_factor or batch.",
        fixtures=(
            "shm_error__kubeflow_pipelines_6510_dataloader_bus_error_pod.log",
            "shm_error__voxceleb_trainer_83_bus_error_shm.log",
        ),
    ),
    Rule(
        name="dataloader_worker_killed",
        category="dataloader_killed",
        code="LX541",
        priority=83,
        patterns=(
            r"DataLoader worker \(pid[^)]*\) is killed by signal",
            r"DataLoader worker \(pid(?:\(s\))? [^)]*\) exited unexpectedly",
            # ... as users quote it, without the worker's pid (not a script's comment quoting it)
            r"^(?!\s*#).*?\bDataLoader worker exited unexpectedly with exit code -?\d+",
            r"Unexpected (?:bus error|segmentation fault|floating-point exception) encountered "
            r"in worker",
            r"dataloader's workers are out of shared memory",
        ),
        cause="a DataLoader worker process died (killed by a signal: SIGKILL is usually host "
        "memory, SIGBUS exhausted /dev/shm, SIGABRT/SIGSEGV a crash in the worker, e.g. CUDA "
        "touched in a forked worker), and the training process re-raised it.",
        fix="for Bus error / shared memory: --ipc=host or a bigger --shm-size; for Killed: fewer "
        "num_workers or a smaller prefetch_factor (each worker copies the dataset object), "
        "confirm with dmesg; for crashes: no CUDA in worker code, or "
        "multiprocessing_context='spawn'; num_workers=0 shows the worker's own traceback.",
        fixtures=(
            "dataloader_killed__3drs_7_unindented.log",
            "dataloader_killed__lightning_19598_aborted.log",
            "dataloader_killed__pytorch_58847_ddp_spawn_worker_exit1.log",
        ),
    ),
    Rule(
        name="pin_memory_thread_died",
        category="dataloader_killed",
        code="LX759",
        # below the causes its own exception names (a descriptor limit, /dev/shm: LX757,
        # LX686), which the thread raised before the loader reported it
        priority=81,
        retryable=False,
        patterns=(r"\bPin memory thread exited unexpectedly\b",),
        cause="the DataLoader's pin-memory thread (in the training process, copying the "
        "workers' batches into page-locked memory) died, and the loader raised it at the next "
        "batch: the thread's own exception, printed above when the log has it, is the cause "
        "(a batch it could not receive from a worker, host memory it could not pin); it "
        "comes back at the same point of every run.",
        fix="read the thread's own traceback above the loader's error; rerun with "
        "pin_memory=False to confirm (the batches then reach the GPU unpinned, a little "
        "slower), and with num_workers=0 to see a worker's error in the main process; give "
        "the host the memory the pinned batches need (fewer workers, a smaller "
        "prefetch_factor or batch).",
        fixtures=("dataloader_killed__mmagic_508_pin_memory_thread_interleaved.log",),
    ),
    Rule(
        name="torch_shared_memory_file",
        category="shm_error",
        code="LX686",
        # below a worker's death (LX812, LX541) that the same exhausted /dev/shm often brings
        # next: the worker's SIGBUS, or the loader's report of it, is then what ended the run
        priority=82,
        retryable=False,
        # torch's file for a tensor shared between processes (a DataLoader worker's batch, a
        # queue's tensor, share_memory_()), which lives in /dev/shm; or, passed by its
        # descriptor (the default on Linux), mapped without a name
        patterns=(
            r"unable to (?:write to|open|mmap \d+ bytes from|resize) "
            r"(?:file|shared memory object) </torch_",
            r"unable to mmap \d+ bytes from file <filename not specified>: ",
            # the DataLoader's own word for the same descriptors running out while it
            # receives a worker's batch (EMFILE, under the file_descriptor strategy)
            r"Too many open files\. Communication with the workers is no longer possible",
            # ... and multiprocessing's, receiving a shared tensor's descriptor past the limit
            r"^RuntimeError: received 0 items of ancdata$",
        ),
        cause="torch could not create, write or map the shared-memory file of a tensor passed "
        "between processes (a DataLoader worker's batch, a multiprocessing queue, "
        "share_memory_()): /dev/shm is full or too small (containers get 64 MB unless told "
        "otherwise), the memory behind it ran out, or the process ran out of file "
        "descriptors; the same data does it again.",
        fix="give /dev/shm room (df -h /dev/shm; containers: --ipc=host or --shm-size=16g, "
        "Kubernetes: an emptyDir with medium: Memory), remove stale torch_* files from it, or "
        "pass less through it: fewer DataLoader workers or a smaller prefetch_factor; when "
        "the message says 'Too many open files', raise the limit (ulimit -n) or call "
        "torch.multiprocessing.set_sharing_strategy('file_system'); a mapping refused for a "
        "tensor passed by descriptor can also be the host's limit on mappings "
        "(sysctl vm.max_map_count).",
        fixtures=(
            "shm_error__flownet2_43_docker_torch_file_one_line.log",
            "shm_error__mmaction2_218_dist_train_shared_memory_object.log",
        ),
    ),
    Rule(
        name="fork_out_of_memory",
        category="host_oom_killed",
        code="LX769",
        priority=84,
        retryable=False,
        # ENOMEM from fork() itself, as multiprocessing (a DataLoader's workers, a pool)
        # or subprocess starts a child: the kernel would not commit another copy of this
        # process's address space; not the same errno from a file or a device
        patterns=(r"^OSError: \[Errno 12\] Cannot allocate memory$",),
        context=(
            r'multiprocessing[/\\]popen_fork\.py", line \d+, in _launch$',
            r'subprocess\.py", line \d+, in _execute_child$',
        ),
        cause="the process could not start a child (a DataLoader worker, a pool process): "
        "fork() asks the kernel to commit memory for a copy of the whole process, and the "
        "kernel refused: under strict overcommit (vm.overcommit_memory=2) the host's commit "
        "limit was reached, and under the default heuristic the process is larger than the "
        "free RAM and swap. Every rank of the node forks its workers at once, each as large "
        "as its model and dataset, so memory runs out where one process would fit; it fails "
        "again the same way.",
        fix="use fewer DataLoader workers (num_workers) or start them with the 'spawn' or "
        "'forkserver' context (multiprocessing_context=), keep the dataset out of the "
        "process's memory (memory-mapped files), and compare CommitLimit with Committed_AS "
        "in /proc/meminfo (`sysctl vm.overcommit_memory`: 2 refuses forks that 0 allows).",
        fixtures=("host_oom_killed__resnext_5_fork_enomem_3gpu.log",),
    ),
    Rule(
        name="shared_tensor_descriptors_exhausted",
        category="shm_error",
        code="LX757",
        priority=82,
        retryable=False,
        # EMFILE raised while a tensor's storage is passed to another process by its file
        # descriptor (torch's default sharing strategy on Linux): the descriptors ran out, not
        # the script's own files
        patterns=(r"^OSError: \[Errno 24\] Too many open files\b",),
        context=(
            r"(?:torch[/\\]multiprocessing[/\\]reductions|multiprocessing[/\\]resource_sharer)"
            r'\.py", line \d+, in \w+$',
            # multiprocessing's own descriptor passing (not its pickling, in every spawn)
            r'multiprocessing[/\\]reduction\.py", line \d+, in '
            r"(?:DupFd|send_handle|recv_handle|sendfds|recvfds)$",
            # ... or a DataLoader starting its workers in that process: the pipe to a new
            # worker is one descriptor more than the process may hold
            r'multiprocessing[/\\]popen_fork\.py", line \d+, in _launch$',
        ),
        cause="a tensor passed between processes (a DataLoader worker's batch, a "
        "multiprocessing queue) is sent as an open file descriptor, one per storage, and the "
        "process ran out of descriptors (ulimit -n); the same data does it again.",
        fix="raise the limit (ulimit -n 65535 in the job script, or the container's nofile "
        "limit) or call torch.multiprocessing.set_sharing_strategy('file_system') before the "
        "DataLoader starts; fewer workers or a smaller prefetch_factor hold fewer at once.",
        fixtures=("shm_error__facerec_5_too_many_open_files_4gpu.log",),
    ),
    Rule(
        name="shared_tensor_sender_gone",
        category="dataloader_killed",
        code="LX801",
        # above a refused connection's own rule (LX520): the socket here is the local one a
        # worker process passes a tensor's descriptor through, not the network's
        priority=57,
        patterns=(
            r"^(?:ConnectionRefusedError|FileNotFoundError): \[Errno (?:111|2)\] "
            r"(?:Connection refused|No such file or directory)",
        ),
        # multiprocessing's descriptor passing: the receiver connects to the sender's
        # listener to fetch a shared tensor's file descriptor
        context=(r'multiprocessing[/\\]resource_sharer\.py", line \d+, in get_connection$',),
        cause="the process receiving a batch could not fetch its tensors' file descriptor from "
        "the process that sent it (torch passes shared tensors by descriptor, through a "
        "listener in the sender): the sender, a DataLoader worker, had already exited or died "
        "(killed, crashed, out of memory) before the batch was read.",
        fix="look for why the worker died (dmesg for the OOM killer, the worker's own "
        "traceback with num_workers=0); torch.multiprocessing.set_sharing_strategy("
        "'file_system') passes tensors through /dev/shm files instead of descriptors; fewer "
        "workers or a smaller prefetch_factor hold less memory.",
        fixtures=("dataloader_killed__mmdet_234_resource_sharer_connection_refused.log",),
    ),
    Rule(
        name="dataloader_queue_no_shm",
        category="dataloader_killed",
        code="LX538",
        priority=83,
        patterns=(r"\[Errno 28\] No space left on device",),
        context=(r'^File ".*multiprocessing[/\\](?:synchronize|queues|context|heap)\.py"',),
        cause="the DataLoader could not create its worker queues or semaphores (they live in "
        "/dev/shm): shared memory is full or too small (containers get 64 MB).",
        fix="run the container with --ipc=host or --shm-size=16g (Kubernetes: an emptyDir "
        "with medium: Memory on /dev/shm), remove stale files from /dev/shm, or lower "
        "num_workers.",
        fixtures=("dataloader_killed__megatron_878_semlock_interleaved.log",),
    ),
    Rule(
        name="mpich_rejects_open_mpi_flags",
        category="deprecated_env",
        code="LX657",
        priority=86,
        retryable=False,
        patterns=(
            # MPICH's Hydra mpiexec naming a flag it does not know that is Open MPI's (its
            # later "error parsing parameters" lines follow any argument error, a missing
            # host file too)
            r"\[mpiexec@\S+\] match_arg \(utils/args/args\.c:\d+\): unrecognized argument "
            r"(?:allow-run-as-root|x|mca|gmca|oversubscribe|tag-output|npernode|report-bindings"
            r"|display-map|H|output-filename|merge-stderr-to-stdout)\s*$",
        ),
        cause="the mpirun on this PATH is MPICH's (Hydra's mpiexec), and it rejected a flag "
        "it does not have: the command line was written for Open MPI (--allow-run-as-root, "
        "-x VAR, --mca; Hydra's own are -genv and -hosts), as torchpack's dist-run and "
        "horovodrun write it, so no rank starts, on every start.",
        fix="put Open MPI's mpirun first on PATH (or install Open MPI: `mpirun --version` "
        "must say Open MPI), or start the ranks without MPI (`launchx run`, torchrun).",
        fixtures=("deprecated_env__torchpack_36_mpich_hydra_unrecognized_allow_run_as_root.log",),
    ),
    Rule(
        name="mpi_init_aborted",
        category="user_code_error",
        code="LX776",
        # under every rule that reads why (LX658's MPI initialised twice, a PMIx error that
        # names a resource): this is Open MPI's abort alone, whatever failed inside
        # MPI_Init_thread
        priority=40,
        retryable=False,
        patterns=(
            # Open MPI's errhandler when MPI_Init_thread itself fails, before any
            # communicator exists (the next line: "*** on a NULL communicator")
            r"^\*\*\* An error occurred in MPI_Init(?:_thread)?$",
        ),
        cause="Open MPI could not initialise in this process and aborted it: the process "
        "was not started by mpirun (or srun with PMIx) though something initialised MPI "
        "(DeepSpeed finding no launcher falls back to MPI, init_process_group('mpi'), "
        "mpi4py, a library's bootstrap), or the Open MPI/PMIx install is broken (its "
        "components fail to load with undefined symbols); it fails the same way on every "
        "start.",
        fix="start the ranks with a launcher that sets RANK/WORLD_SIZE (launchx run, "
        "torchrun, deepspeed) so nothing falls back to MPI, or start them with mpirun; "
        "otherwise repair Open MPI (one install on PATH and LD_LIBRARY_PATH, not a conda "
        "environment's next to the system's) and check it with `mpirun -np 2 hostname`.",
        fixtures=(
            "user_code_error__open_unlearning_8_deepspeed_mpi_init.log",
            "user_code_error__megatron_bridge_650_tp_comm_overlap_mpi_init.log",
        ),
    ),
    Rule(
        name="mpi_initialised_twice",
        category="user_code_error",
        code="LX658",
        priority=75,
        retryable=False,
        # Open MPI's help text, whose next lines are the abort ("An error occurred in
        # MPI_Init_thread ... on a NULL communicator"): that abort alone has other causes
        # (no PMIx server to reach, a network it cannot set up), so it is not read alone
        patterns=(r"^MPI \(via MPI_INIT or MPI_INIT_THREAD\) more than once\.",),
        cause="this process initialised MPI a second time, which Open MPI aborts as "
        "erroneous: typically mpi4py's MPI.Init() (or its import, which initialises MPI) "
        "before init_process_group('mpi') of a torch release that calls MPI_Init_thread "
        "without asking whether MPI is initialised; it fails the same way on every start.",
        fix="initialise MPI once: leave it to init_process_group('mpi') (set "
        "mpi4py.rc.initialize = False before importing mpi4py.MPI, and call no MPI.Init()), "
        "or use mpi4py alone with another backend (nccl, gloo) for torch.distributed.",
        fixtures=("user_code_error__pytorch_33943_mpi4py_then_mpi_backend_double_init.log",),
    ),
    Rule(
        name="launcher_flag_renamed",
        category="deprecated_env",
        code="LX593",
        # above the parser's generic rejection (LX527) that it refines
        priority=86,
        retryable=False,
        patterns=(
            # torch >= 2.0's torch.distributed.launch passes the renamed flag; a script (or
            # its parser library) that declares only --local_rank rejects it
            r"error: unrecognized arguments: (?:.* )?--local-rank=\d+",
            r"arguments are not used by the HfArgumentParser: \[.*'--local-rank=\d+'",
            r"Override 'local-rank' not found in",
        ),
        cause="the script was started with python -m torch.distributed.launch, which since "
        "torch 2.0 passes the renamed flag --local-rank=N (it was --local_rank=N) to every "
        "rank; the script declares only the old spelling, so its parser rejects the command "
        "line on every rank before training, on every start.",
        fix="start it with `launchx run train.py` (or torchrun), which passes no flag: the "
        "script reads os.environ['LOCAL_RANK']; a script that must also run under the old "
        "launcher declares both spellings: parser.add_argument('--local-rank', "
        "'--local_rank', type=int, default=0).",
        fixtures=(
            "deprecated_env__funasr_1110_launch_local_rank_dash.log",
            "deprecated_env__speechbrain_2868_launch_local_rank_flag.log",
            "deprecated_env__video_chatgpt_26_local_rank_hyphen_hfargparser.log",
        ),
    ),
    Rule(
        name="use_env_flag_passed_to_script",
        category="deprecated_env",
        code="LX649",
        # above the parser's generic rejection (LX527) that it refines
        priority=86,
        retryable=False,
        patterns=(r"error: unrecognized arguments: (?:.* )?--use[-_]env\b",),
        cause="--use_env (--use-env) is a flag of python -m torch.distributed.launch, "
        "deprecated since torch 1.10, telling it to set LOCAL_RANK instead of passing "
        "--local_rank; here it reached the script (written after the script's name), whose "
        "parser rejects it on every rank, on every start; torchrun has no such flag either "
        "(it always sets LOCAL_RANK) and rejects it itself.",
        fix="drop --use_env: torchrun (and `launchx run train.py`) always sets LOCAL_RANK, "
        "which the script reads from os.environ; launcher flags go before the script's name.",
        fixtures=("deprecated_env__satlas_super_resolution_19_use_env_flag.log",),
    ),
    Rule(
        name="launcher_flag_older_than_script",
        category="deprecated_env",
        code="LX659",
        # above the parser's generic rejection (LX527) that it refines
        priority=86,
        retryable=False,
        patterns=(r"error: unrecognized arguments: (?:.* )?--local_rank=\d+",),
        # the script's usage line shows it declares only the new spelling
        requires=(r"\[--local-rank LOCAL_RANK\]",),
        cause="the script declares only --local-rank, the spelling torch 2.0's launcher "
        "passes, and was started by a launcher that passes the old --local_rank=N (python -m "
        "torch.distributed.launch of a torch before 2.0, DeepSpeed's runner, a wrapper such "
        "as mim that calls either); its parser rejects the command line on every rank, on "
        "every start.",
        fix="start it with `launchx run train.py` (or torchrun), which passes no flag: the "
        "script reads os.environ['LOCAL_RANK']; a script that must run under both launchers "
        "declares both spellings: parser.add_argument('--local-rank', '--local_rank', "
        "type=int, default=0).",
        fixtures=("deprecated_env__mim_122_local_rank_underscore.log",),
    ),
    Rule(
        name="local_rank_flag_not_passed",
        category="deprecated_env",
        code="LX626",
        # above the parser's generic rejection (LX527) that it refines
        priority=86,
        retryable=False,
        patterns=(r"error: the following arguments are required: (?:.*, )?--local[_-]rank\b",),
        cause="the script declares --local_rank as a required argument, which only "
        "python -m torch.distributed.launch before torch 2.0 (and DeepSpeed's launcher) "
        "passed; torchrun passes no such flag and sets LOCAL_RANK in each rank's environment "
        "instead, and torch.distributed.launch since 2.0 passes it as --local-rank, so the "
        "parser exits on every rank before training, on every start.",
        fix="read the local rank from the environment: "
        "parser.add_argument('--local-rank', '--local_rank', type=int, "
        "default=int(os.environ.get('LOCAL_RANK', 0))) and drop required=True; then start it "
        "with `launchx run train.py` (or torchrun).",
        fixtures=("deprecated_env__swin_transformer_313_torchrun_local_rank_required.log",),
    ),
    Rule(
        name="torchrun_flag_spelling",
        category="deprecated_env",
        code="LX596",
        # above the launcher's other argument errors (LX695)
        priority=87,
        retryable=False,
        patterns=(
            r"^(?:torchrun|run\.py|launch\.py): error: unrecognized arguments: (?:.* )?--(?:"
            r"nproc-per-node|node-rank"
            r"|master-addr|master-port|rdzv-(?:backend|endpoint|id|conf)|max-restarts"
            r"|monitor-interval|start-method|log-dir|local-addr)\b",
        ),
        cause="this torchrun is older than the dashed spellings of its flags (--nproc-per-node "
        "for --nproc_per_node, --rdzv-endpoint for --rdzv_endpoint, ...) that the command "
        "uses; it rejects the command line before starting any rank.",
        fix="spell the flags with underscores (--nproc_per_node=N), which every torchrun "
        "takes, or upgrade torch; `launchx run` writes the command line for the torchrun it "
        "finds.",
        fixtures=("deprecated_env__timm_1742_torchrun_nproc_dash.log",),
    ),
    Rule(
        name="script_rejected_arguments",
        category="user_code_error",
        code="LX527",
        priority=85,
        patterns=(
            # the program's name may be cut off by the paste ("error: unrecognized ...")
            r"^(?:[^:]{1,80}: )?error: (?:unrecognized arguments|the following arguments are "
            r"required"
            r"|argument [^:]+: (?:expected (?:one|at least one) argument|invalid \w+ value"
            r"|invalid choice|ignored explicit argument|not allowed with argument))",
            # argparse's message as a reporter quotes it, without the program's name and
            # "error:" (Lightning's DDP under Hydra starting the other ranks with arguments
            # the script's parser does not take)
            r"^unrecognized arguments: \S",
        ),
        # (a logger's warning that quotes the words and goes on; not the words "skip",
        # "ignore" or "warn", which the rejected arguments may hold)
        exclude=(_WARNED_LINE,),
        cause="the script's argument parser rejected its command line and exited with code 2 "
        "before training; with '--local_rank=N' it is a launcher (DeepSpeed's, or "
        "python -m torch.distributed.launch before torch 2.0) passing an argument the script "
        "does not declare.",
        fix="check the arguments after the script name; for --local_rank: torchrun (and "
        "launchx) pass nothing, the script reads os.environ['LOCAL_RANK']; a script that must "
        "also run under such a launcher declares both spellings: "
        "parser.add_argument('--local-rank', '--local_rank', type=int, default=0).",
        fixtures=(
            "user_code_error__yi_69_unrecognized_local_rank_deepspeed_tp.log",
            "user_code_error__mattergen_180_hydra_ddp_unrecognized_args.log",
        ),
    ),
    Rule(
        name="rendezvous_settings_rejected",
        category="user_code_error",
        code="LX748",
        # the script's own argument errors' priority (LX527): torchrun reads these settings
        # before any rank starts, so no rank's error can come first (and the word
        # "rendezvous" keeps the lines from the generic exception rule, LX511)
        priority=85,
        retryable=False,
        patterns=(
            # torch/distributed/elastic/rendezvous/utils.py: parse_rendezvous_endpoint and
            # parse_rendezvous_config
            r"ValueError: The (?:port number|hostname) of the rendezvous endpoint '[^']*' must "
            r"be ",
            r"ValueError: The rendezvous configuration (?:string must be in format"
            r"|option '[^']*' (?:must have a value specified"
            r"|does not represent a valid (?:boolean|integer) value))",
            # ... rendezvous/api.py: --nnodes MIN:MAX, --rdzv_backend
            r"ValueError: The (?:minimum|maximum) number of rendezvous nodes \(-?\d+\) must be ",
            r"ValueError: The rendezvous backend (?:'[^']*' is not registered\."
            r"|name must be a non-empty string)",
            # ... static_tcp_rendezvous.py: the static backend (--rdzv_backend=static,
            # --master_addr/--master_port) without the node's rank or the master
            r"ValueError: (?:rank|endpoint) is absent in RendezvousParameters",
            r"ValueError: Port is absent in endpoint: ",
        ),
        cause="torchrun (or accelerate launch, which hands it its command line) could not use "
        "the rendezvous settings it was given: an endpoint with no port, a port that is not a "
        "number or a host that is not a valid name or address ('None:None' is a multi-node "
        "launch whose master address and port were never set, or whose arguments shifted by "
        "one), a --rdzv_conf value of the wrong type, --nnodes bounds out of order, a "
        "--rdzv_backend name it does not know (a typo, or a third-party backend whose "
        "package is not installed), or the static backend without the node's rank or the "
        "master; it stops before starting any rank, every time.",
        fix="pass the endpoint as HOST:PORT with a numeric port (torchrun --rdzv_endpoint or "
        "--master_addr/--master_port; accelerate launch --main_process_ip and "
        "--main_process_port on every node; a flag that takes no value, such as "
        "--same_network, given one shifts the arguments after it), --nnodes as N or MIN:MAX "
        "with MIN <= MAX, --rdzv_backend c10d (or static with --node_rank); `launchx run "
        "--nnodes N --master-addr HOST` writes them itself.",
        fixtures=("user_code_error__accelerate_2240.log",),
    ),
    Rule(
        name="script_not_found",
        category="user_code_error",
        code="LX574",
        priority=85,
        retryable=False,
        patterns=(
            r"^\S*python[\d.]*(?:\.exe)?: can't open file '[^']*': \[Errno \d+\]",
            # a directory (or zip) given as the script, with no __main__.py in it: on Windows'
            # cmd a bash-style backslash continuation becomes the script's path
            r"^\S*python[\d.]*(?:\.exe)?: can't find '__main__' module in ",
        ),
        cause="Python could not open the script the launcher was given: from the working "
        "directory the ranks start in, the path does not exist, runs through something that "
        "is not a directory, is a directory with no __main__.py, or cannot be read (a "
        "relative path, a recipe's broken link, a node where the code is not at the same "
        "place), so every rank exits with code 2 before training.",
        fix="pass the script by absolute path, or cd to the directory it is relative to before "
        "launchx run (and in the sbatch script); on several nodes put the code at the same "
        "path everywhere (a shared filesystem).",
        fixtures=("user_code_error__3d_speaker_36_train_py_not_a_directory_exitcode2.log",),
    ),
    Rule(
        name="module_not_runnable",
        category="user_code_error",
        code="LX640",
        priority=85,
        retryable=False,
        patterns=(
            r"Error while finding module specification for '[^']+' \((?:ModuleNotFoundError"
            r"|ValueError: __main__\.__spec__ is None)",
            # the interpreter's own line for `python -m name` when no such module is on the
            # path (no exception, no traceback: it exits 1)
            r"^\S*python[\d.]*(?:\.exe)?: No module named [\w.]+$",
        ),
        # a set-up step's tool run as a module (`python -m pip ... || true`), not the program
        exclude=(r"No module named (?:pip|ensurepip|venv|virtualenv|wheel)$",),
        cause="Python could not run the module it was asked to run with -m: it is not "
        "installed or not on the path from where the ranks start (ModuleNotFoundError), or "
        "the ranks were relaunched as `python -m __main__` from a program that a console "
        "script's .exe started, which has no module spec (__main__.__spec__ is None: "
        "Lightning's DDP relaunches ranks 1 and up that way on Windows, and rank 0 waits "
        "for them); it fails the same way on every start.",
        fix="install the package in the ranks' environment, or start from the directory "
        "that holds it; for __spec__ None start training with `python -m <package>` or "
        "`python path/to/train.py` rather than the console command.",
        fixtures=(
            "user_code_error__so_vits_svc_fork_501_windows_ddp_main_spec_none.log",
            "user_code_error__skill_chaining_4.log",
        ),
    ),
    Rule(
        name="triton_out_of_resources",
        category="user_code_error",
        code="LX643",
        # above the user's exception (LX511), which leaves it out for the OutOfMemoryError
        # class name inductor gives it
        priority=82,
        retryable=False,
        patterns=(
            # Triton's OutOfResources raised, as Triton names it and as inductor re-raises it
            # ("No valid triton configs. OutOfMemoryError: out of resource: ..."); not the
            # bare warning max-autotune logs for a config it then skips
            r"(?:OutOfResources|OutOfMemoryError): out of resource: [\w ]+?,? Required: \d+,? "
            r"Hardware limit: ?\d+",
        ),
        cause="a Triton kernel (one of torch.compile's templates, such as flex_attention's, "
        "or a library's) needs more shared memory per block than this GPU allows: its block "
        "sizes or pipeline stages were chosen for a larger GPU (an H100 allows 227 KB per "
        "block, an A10 or a consumer card 99 KB); not device memory, and it fails the same "
        "way every time.",
        fix="give the kernel smaller tiles: lower BLOCK_M/BLOCK_N or num_stages (for "
        "flex_attention through its kernel_options), or in the library that ships the "
        "kernel; a newer torch or Triton may pick configs that fit; or run on the GPU it was "
        "tuned for.",
        fixtures=("user_code_error__specforge_194_inductor_triton_out_of_resource.log",),
    ),
    Rule(
        name="spawn_target_not_in_a_module",
        category="user_code_error",
        code="LX810",
        # above the user's exception (LX511), which leaves exceptions raised in spawn's
        # _main to the parent's death: this one is the script's, on every start
        priority=81,
        retryable=False,
        # a spawned child (mp.spawn, xmp.spawn, spawn-context DataLoader workers) unpickles
        # its target by name from the main module and does not find it there
        # in the main module of a notebook or an interactive session (Python 3.12 names
        # its importer), or in the script's, run as __mp_main__ in the child, when the
        # target is defined under its `if __name__ == "__main__":` (a script that unpickles
        # a file naming the script's classes has a __main__ "from" a file: not this)
        patterns=(
            r"AttributeError: Can't get attribute '[^']+' on <module '(?:__main__' \((?:built-in"
            r"|<class '_frozen_importlib\.BuiltinImporter'>)\)|__mp_main__' )",
        ),
        cause="a process started with the spawn start method looks its target function (or "
        "a class it was given) up by name in the main module and it is not there: the "
        "parent is a notebook or an interactive session, whose definitions a fresh "
        "interpreter cannot import, or the function is defined inside "
        "if __name__ == '__main__': or another function; every start fails the same way.",
        fix="define the function (and the classes passed to it) at the top level of a .py "
        "module and import it from the notebook, or run the training as a script (torchrun "
        "or `launchx run` start each rank as a fresh interpreter that imports it).",
        fixtures=(
            "user_code_error__tutorials_1742_ddp_pipeline_spawn_notebook.log",
            "user_code_error__xla_2750.log",
        ),
    ),
    Rule(
        name="spawn_main_not_guarded",
        category="user_code_error",
        code="LX648",
        # above the user's exception (LX511): the same RuntimeError, with the fix in it; a
        # logger may print the message without its class (mteb's "Error while evaluating")
        priority=81,
        retryable=False,
        patterns=(
            r"current process has finished its bootstrapping phase",
            # the same message's last lines, when a paste or a logger cut its first ones
            r'The "freeze_support\(\)" line can be omitted if the program',
        ),
        cause="a process started with the spawn start method (DataLoader workers with "
        "multiprocessing_context='spawn', mp.spawn, a multi-GPU encode pool, any process on "
        "macOS or Windows) imports the main script again, and the script starts its processes "
        "at import time, outside an if __name__ == '__main__': block: Python's multiprocessing "
        "refuses, on every start.",
        fix="move the script's top-level code into a main() called under "
        "if __name__ == '__main__': main(); torchrun and `launchx run` start ranks as fresh "
        "interpreters, so each rank runs main() once and its spawned helpers do not.",
        fixtures=(
            "user_code_error__llm2vec_140_mteb_multigpu_spawn_bootstrap.log",
            "user_code_error__sentence_transformers_2331_encode_multi_process_spawn_main.log",
            "user_code_error__mteb_1052.log",
        ),
    ),
    Rule(
        name="ddp_module_not_on_one_gpu",
        category="user_code_error",
        code="LX655",
        # above the user's exception (LX511): the same ValueError, with its reason; read
        # wherever it sits in the line (a message pasted after the reporter's own words)
        priority=81,
        retryable=False,
        patterns=(
            r"DistributedDataParallel device_ids and output_device arguments only work with "
            r"single-device",
        ),
        cause="DistributedDataParallel was given device_ids for a model whose parameters "
        "are not all on that one GPU: still on the CPU (the model was wrapped before "
        ".to(device)), or spread over several GPUs (device_map='auto', a model split by "
        "hand); every rank stops there, on every start.",
        fix="move the model to the rank's GPU before wrapping it: model.to(f'cuda:{local_rank}') "
        "then DDP(model, device_ids=[local_rank]) (LOCAL_RANK is in the environment under "
        "torchrun and `launchx run`); a model split over GPUs is wrapped without device_ids, "
        "and one process per GPU needs no device_map='auto'.",
        fixtures=(
            "user_code_error__openstereo_278_ddp_module_on_cpu.log",
            "user_code_error__chatglm6b_finetuning_11_ddp_model_split_two_gpus.log",
        ),
    ),
    Rule(
        name="hydra_instantiate_error",
        category="user_code_error",
        code="LX653",
        # below the rules that read the wrapped exception's repr on the next line (a CUDA,
        # NCCL or socket error: 55 and up), above the timeouts (53 and below)
        priority=54,
        retryable=False,
        patterns=(
            # Hydra prints the exception as its repr on the next line (TypeError("..."))
            r"^Error in call to target '[\w.]+':",
            r"^Error locating target '[\w.]+'",
        ),
        cause="Hydra could not build an object the config names (hydra.utils.instantiate): "
        "importing its _target_ failed, or calling it raised (the exception follows, as "
        "TypeError(...) for an argument the installed library does not take); every rank "
        "builds the same config, so every start fails the same way.",
        fix="set HYDRA_FULL_ERROR=1 for the whole traceback; check the config's _target_ "
        "and its arguments against the installed library version (pin the version the "
        "config was written for).",
        fixtures=("user_code_error__diffusion_29_composer_rank3_unet_dual_cross_attention.log",),
    ),
    Rule(
        name="fp16_loss_scale_exhausted",
        category="user_code_error",
        code="LX668",
        # above LX511, which reads the same words when a framework raises them: the numbers
        # went bad, which says more than that an exception was raised
        priority=81,
        retryable=False,
        patterns=(
            # DeepSpeed's fp16 loss scaler, after every step overflowed down to min_loss_scale
            r"Current loss scale already at minimum - cannot decrease scale anymore\. Exiting run",
        ),
        cause="the training diverged in fp16: every step overflowed (Inf or NaN gradients) "
        "until DeepSpeed's dynamic loss scale reached its minimum, so it stopped the run. The "
        "same data, weights and settings overflow at the same step again.",
        fix="train in bf16 instead of fp16 (DeepSpeed: bf16.enabled true, fp16.enabled false), "
        "the precision most large models are trained in; or lower the learning rate, lengthen "
        "the warm-up and clip gradients, and resume from a checkpoint saved before the loss "
        "spiked.",
        fixtures=("user_code_error__llamafactory_251_baichuan13b_ds_loss_scale_min_launcher.log",),
    ),
    Rule(
        name="megatron_nan_check",
        category="user_code_error",
        code="LX672",
        priority=81,
        # not retried on the log's word (its category's default), but once a checkpoint
        # exists: a NaN that a rerun does not reproduce is a faulty GPU's, and Megatron's own
        # protocol is to save a checkpoint, exit 16 and be restarted on other hardware
        on_progress=True,
        patterns=(
            # its assertion before the gradient all-reduce (older releases), and its rerun
            # state machine's report, raised or logged, which names the rank
            r"^[\w.]*(?:Error|Exception): Rank (?P<rank>\d+): found (?:NaN|Inf) in local ",
            r"\bRank (?P<rank>\d+), node \S+, device \d+, iteration -?\d+: Unexpected result "
            r"\S+ \(message='found (?:NaN|Inf) in local ",
            r"\bUnexpected result \S+ on rank (?P<rank>\d+) at iteration #\d+ invocation #\d+ "
            r"\(message='found (?:NaN|Inf) in local ",
            r"\bfound (?:NaN|Inf) in local (?:grad norm|forward loss)\b",
        ),
        cause="Megatron's check found a NaN or Inf in this rank's loss or gradients before the "
        "gradient all-reduce: the training diverged, a library or kernel produced it (NaN in "
        "the first steps after an upgrade), or the GPU computed wrongly. Its rerun state "
        "machine tells them apart by rerunning the step: a result it cannot reproduce is "
        "reported as a transient (hardware) error; a reproduced one saves a checkpoint and "
        "exits with code 16 to be restarted on other GPUs, and only a NaN that follows the "
        "data there is the model's (Megatron then stops with code 17, failed validation).",
        fix="keep rerun_mode at validate_results and let the job restart on exit code 16 (a "
        "second failure at the same step on other GPUs is the model's); for a real "
        "divergence lower the learning rate, clip gradients or skip the batch from the last "
        "checkpoint; for NaN from the first steps after an upgrade (Transformer Engine, "
        "cuDNN, torch), pin the previous version; drain a GPU it names twice.",
        fixtures=(
            "user_code_error__megatron_lm_5026_ci_moe_nan_grad_norm.log",
            "user_code_error__pai_megatron_patch_366_llama3_70b_4node_nan_grad.log",
        ),
    ),
    Rule(
        name="collective_mismatch",
        category="user_code_error",
        code="LX670",
        # above LX511, which reads the same words when torch raises them as a RuntimeError; a
        # framework may log them without the class ("Error in ...compute_loss: Detected ...")
        priority=81,
        retryable=False,
        patterns=(
            r"\bDetected mismatch between collectives on ranks\b",
            # NCCL's own word when it tears a communicator down with a peer's collectives
            # not matching (the rank it names is where to look, not the one that failed)
            r"NCCL WARN Your program may be hanging, this may be caused by a collective "
            r"mismatch around rank \d+",
        ),
        cause="TORCH_DISTRIBUTED_DEBUG=DETAIL's check (or NCCL) found the ranks at the same "
        "point of their collectives calling different ones, or the same one with different "
        "tensor shapes, dtypes or devices: the script's control flow or data differs across "
        "ranks (a branch only some ranks take, inputs of different lengths, a rank that "
        "skipped a step); the same data does it again.",
        fix="compare the two fingerprints in the message (sequence number, op type, shapes): "
        "make every rank issue the same collectives in the same order with the same shapes "
        "(pad variable-length inputs before a broadcast or all_gather, keep rank-0-only work "
        "such as saving, logging and evaluation away from code that calls collectives).",
        fixtures=(
            "user_code_error__spa_vl_rlhf_2_reward_broadcast_shape_mismatch.log",
            "user_code_error__lightning_19680_allgather_collective_mismatch.log",
            "user_code_error__lightning_8214_nccl_collective_mismatch_after_val.log",
        ),
    ),
    Rule(
        name="nccl_dtype_unsupported",
        category="user_code_error",
        code="LX671",
        # LX511 leaves out every line naming NCCL; this one is the script's tensors
        priority=80,
        retryable=False,
        patterns=(r"Input tensor data type is not supported for NCCL process group: \w+",),
        cause="a collective (or DDP's gradient buckets) got a tensor whose dtype this torch "
        "and NCCL cannot send (complex numbers, int16 and the wider unsigned integers, "
        "float8, float4 or quantized types, bfloat16 on old releases); every step fails the "
        "same way.",
        fix="cast around the collective: torch.view_as_real for complex tensors, .to("
        "torch.int32) or .float() for small integers, and for a broadcast, send or gather "
        "of float8 or packed data .view(torch.uint8) and back (not for a reduction); or keep "
        "such tensors out of DDP's parameters and buffers; for bfloat16, a torch and NCCL "
        "recent enough to reduce it.",
        fixtures=("user_code_error__pytorch_99518_complexfloat_nccl_unsupported.log",),
    ),
    Rule(
        name="torch_load_weights_only_refused",
        category="user_code_error",
        code="LX780",
        # above the UnpicklingError line that carries it (LX511), whose message spans many
        # lines: a paste often keeps only its middle or its last line
        priority=81,
        retryable=False,
        patterns=(
            # torch.load since 2.6 (weights_only=True by default) refusing a pickle that holds
            # more than tensors and plain containers: the message's first line, the
            # unpickler's reason and its closing pointer to the docs
            r"UnpicklingError: Weights only load failed\.",
            r"^Weights only load failed\.",
            r"WeightsUnpickler error: Unsupported (?:global|operand)\b",
            r"^Check the documentation of torch\.load to learn more about types accepted by "
            r"default with weights_only",
        ),
        cause="torch.load refused the checkpoint under weights_only=True (the default since "
        "torch 2.6, or passed by the library that loads it), which unpickles only tensors "
        "and plain containers. 'Unsupported global: GLOBAL <name>' says the file also holds "
        "another object (numpy arrays or scalars, an argparse Namespace, a config or model "
        "class). 'Unsupported operand <N>' with a printable character's code (118 'v' from a "
        "Git LFS pointer, 60 '<' from an HTML page) says the file is not a checkpoint at "
        "all; with another code (149: FRAME) it was pickled with protocol 4 or later, which "
        "only the full unpickler reads. Every load of it fails the same way.",
        fix="a file from a trusted source (an unsupported global, or a newer pickle "
        "protocol): pass weights_only=False to the torch.load that failed, or allowlist the "
        "class with torch.serialization.add_safe_globals([...]); a library's own load needs "
        "a release that does so (or torch<2.6 where it relies on the old default). A file "
        "that is not a checkpoint: look at its first bytes (`head -c 200 <file>`) and fetch "
        "the real one (git lfs pull, a complete download).",
        fixtures=(
            "user_code_error__protogcn_13_weights_only_load.log",
            "user_code_error__monai_research_contributions_411_auto3dseg_torch26_weights_only.log",
            "user_code_error__ms_swift_5808.log",
            "user_code_error__qwen_vl_series_finetune_185.log",
        ),
    ),
    Rule(
        name="device_map_auto_under_launcher",
        category="user_code_error",
        code="LX781",
        # above the ValueError line that carries it (LX511): a paste often keeps only the
        # message, without its exception's name
        priority=81,
        retryable=False,
        patterns=(
            # accelerate's prepare() refusing a model that from_pretrained spread over several
            # devices (hf_device_map) while it runs one process per GPU; not a source line
            # quoting it in a comment
            r"^\s*(?:ValueError: )?You can't train a model that has been loaded with "
            r"`?device_map='auto'`? in any distributed mode",
        ),
        cause="the model was loaded with device_map='auto' (spread over every GPU the process "
        "sees) and then handed to accelerate's prepare() (the Trainer's, TRL's, a script's) "
        "in any distributed mode, which accelerate refuses: with several processes each "
        "would train its own copy split over all the GPUs the others use, and a DeepSpeed or "
        "FSDP configuration counts even with one process. It fails the same way on every "
        "start.",
        fix="with one process per GPU (accelerate launch, torchrun, deepspeed), load the model "
        "on the process's own GPU: device_map={'': int(os.environ['LOCAL_RANK'])} or no "
        "device_map at all; to split one model over the GPUs instead, run a single plain "
        "process (python, or accelerate launch --num_processes 1 without a DeepSpeed or FSDP "
        "configuration).",
        fixtures=(
            "user_code_error__qwen_936.log",
            "user_code_error__lerobot_2270_smolvla_device_map_auto_multi_gpu.log",
            "user_code_error__ms_swift_1538_device_map_auto_multinode.log",
        ),
    ),
    Rule(
        name="fsdp_param_storage_freed",
        category="user_code_error",
        code="LX785",
        # above the RuntimeError line that carries it (LX511), which a paste often drops
        priority=81,
        retryable=False,
        patterns=(
            # c10's check in a tensor's data_ptr() (TensorImpl.h) when its storage holds no
            # memory: under FSDP, a flattened parameter between forwards
            r"The tensor has a non-zero number of elements, but its data is not allocated yet",
        ),
        cause="the code read a tensor whose memory was never allocated or was freed. Under "
        "FSDP this is a sharded module's parameter used outside the module's forward: FSDP "
        "frees the full parameters after each forward, so generate() on the wrapped model, "
        "another model sharing its weights, or code reading .weight directly finds them "
        "empty (TRL's PPO and GRPO under an FSDP configuration, an evaluation hook). Under "
        "torch.compile or export it is a custom kernel traced with fake tensors (the newer "
        "message says so). It fails the same way on every run.",
        fix="go through the root FSDP module's forward, or generate inside `with "
        "FSDP.summon_full_params(model, recurse=False, writeback=False):` with "
        "generate(..., synced_gpus=True), so that every rank gathers the nested modules' "
        "parameters in step; use_orig_params=True does not help (outside forward its "
        "parameters are shards); for generation during RL training use the trainer's "
        "supported setting (DeepSpeed ZeRO-3 or a separate inference engine); under "
        "torch.compile, register the custom kernel as a custom op (torch.library) with a fake "
        "implementation.",
        fixtures=(
            "user_code_error__trl_316_fsdp_ppo_generate_caffe2.log",
            "user_code_error__trl_2796_grpo_fsdp_caffe2_lazy_allocation.log",
        ),
    ),
    Rule(
        name="megatron_checkpoint_state_missing",
        category="user_code_error",
        code="LX782",
        # the script's exception tier (LX511): rank 0 prints it and the ranks exit, so no
        # exception line follows
        priority=80,
        retryable=False,
        patterns=(
            # load_checkpoint of Megatron-LM and the codebases copied from it (Megatron-
            # DeepSpeed, GLM, SwissArmyTransformer, whose message says "optimizer" for
            # the random state) when the checkpoint lacks what the flags ask it to restore
            r"Unable to load (?:optimizer|rng state|random state)(?: from checkpoint\b.*?)?[.,] "
            r"(?:exiting\b|Specify --no-load-(?:optim|rng) or --finetune)",
        ),
        # not a source line that prints it (a traceback's frame quotes the call)
        exclude=(r"['\"]Unable to load ",),
        # copies that print the message and load on (GLM's, old DeepSpeedExamples'): the
        # load's own success line follows it
        not_before=(r"\bsuccessfully loaded ",),
        cause="the training script's load_checkpoint (Megatron-LM's, or a codebase built on it) "
        "found no optimizer or random-number state in the checkpoint it resumes from, which its "
        "flags ask it to restore, and exits: a checkpoint saved without them (--no-save-optim, "
        "--no-save-rng), released weights, or one converted from another format. Every start "
        "from it stops the same way.",
        fix="to start a new run from those weights, add --finetune (weights only, iteration 0; "
        "SwissArmyTransformer: --mode finetune); to resume without the missing state, add "
        "--no-load-optim or --no-load-rng as the message names; or point --load at a "
        "checkpoint the training itself saved.",
        fixtures=(
            "user_code_error__visualglm_92_unable_to_load_optimizer.log",
            "user_code_error__sat_137_load_rng_tracker_states.log",
        ),
    ),
    Rule(
        name="dataparallel_replica_exception",
        category="user_code_error",
        code="LX783",
        # a symptom's tier: the replica's own exception line, where the paste kept it, says
        # more (LX511, a CUDA error's LX512, the replica's OOM's LX509)
        priority=45,
        retryable=False,
        patterns=(
            # nn.DataParallel re-raising in the main thread what one replica's thread raised
            # (torch._utils.ExceptionWrapper); a paste often keeps this first line of the
            # message and the replica's traceback, but not the exception at its end
            # (not an OOM, LX509's, nor torch 2.8's AcceleratorError, which carries a CUDA
            # error; StopIteration is next() on a replica's empty parameters)
            r"^Caught (?!OutOfMemoryError\b|AcceleratorError\b)(?:[A-Za-z_]\w*\.)*"
            r"(?:[A-Z]\w*(?:Error|Exception)|StopIteration) in replica \d+ on device \d+\.?$",
        ),
        cause="nn.DataParallel ran the model on each GPU in a thread, and the model's forward "
        "raised on one replica: usually the model's code assumes one device (a tensor created "
        "on cuda:0 or the CPU, a buffer not registered, a batch too small to split), which "
        "fails the same way on every run.",
        fix="read the replica's traceback below this line to its last frame; run with one GPU "
        "(CUDA_VISIBLE_DEVICES=0) to get the plain traceback; create tensors on the input's "
        "device (x.device) and register buffers; or move to DistributedDataParallel with one "
        "process per GPU (`launchx run`).",
        fixtures=("user_code_error__faster_voxelpose_24_dataparallel_replica1.log",),
    ),
    Rule(
        name="fsdp_training_state_assert",
        category="user_code_error",
        code="LX777",
        # above the ValueError line that carries it (LX511): FSDP prints the message on its
        # own line (rank 0) before raising, and a paste often keeps only that
        priority=81,
        retryable=False,
        patterns=(
            # FSDP's check of where it is in forward and backward (torch's
            # _assert_in_training_states, fairscale's and ColossalAI's assert_state)
            # (torch 1.11-1.13 named its enum TrainingState_)
            r"expected to be in states \[?<?\w*TrainingState_?\.\w+.* but current state is "
            r"\w*TrainingState_?\.\w+",
        ),
        cause="FSDP found itself in the wrong phase of forward and backward (waiting for a "
        "backward that had not run, or running one when idle): its hooks saw an order it does "
        "not support, such as reentrant activation checkpointing around FSDP units (the "
        "recomputed forward runs inside backward), a second forward before the first one's "
        "backward, or a submodule called outside the root's forward; it fails the same way on "
        "every run.",
        fix="use non-reentrant checkpointing (torch.utils.checkpoint(..., use_reentrant="
        "False), or apply_activation_checkpointing inside the FSDP units; fairseq: "
        "--checkpoint-activations with --ddp-backend fully_sharded only as its docs pair "
        "them), run every forward's backward before the next forward, and call submodules "
        "only through the wrapped model.",
        fixtures=("user_code_error__fairseq_3353_fsdp_training_state_idle.log",),
    ),
    Rule(
        name="fsdp_wrap_class_missing",
        category="user_code_error",
        code="LX678",
        priority=80,
        retryable=False,
        # transformers' Trainer and accelerate's FSDP plugin, when the auto-wrap policy names
        # a layer class the model does not have: a bare Exception in older releases, a
        # ValueError naming the class in newer ones
        patterns=(r"Could not find the transformer layer class (?:to wrap|\S+) in the model",),
        cause="FSDP's transformer auto-wrap policy names a layer class that the model does "
        "not contain (fsdp_transformer_layer_cls_to_wrap, or the model's _no_split_modules "
        "when none is given): a class of another architecture (BertLayer for an "
        "XLM-RoBERTa model, LlamaDecoderLayer for MPT).",
        fix="set fsdp_transformer_layer_cls_to_wrap (the accelerate config, or "
        "--fsdp_transformer_layer_cls_to_wrap / fsdp_config in TrainingArguments) to the "
        "class name of the model's repeated block, as print(model) shows it (e.g. "
        "XLMRobertaLayer, MPTBlock, Qwen2DecoderLayer); the same config fails the same way "
        "again.",
        fixtures=(
            "user_code_error__bcembedding_66_fsdp_bertlayer_wrap.log",
            "user_code_error__llava_114_mpt_fsdp_wrap_class.log",
        ),
    ),
    Rule(
        name="hydra_config_composition",
        category="user_code_error",
        code="LX689",
        # above the exception lines of the same traceback (LX511: omegaconf's cause, chained
        # under Hydra's when HYDRA_FULL_ERROR=1)
        priority=81,
        retryable=False,
        patterns=(
            # Hydra composes the config before the task runs and, without HYDRA_FULL_ERROR,
            # prints only its message (the offending key on the lines below), no exception
            r"(?:^|ConfigCompositionException: )Error merging '[^']+' with schema$",
            r"(?:^|ConfigCompositionException: )Error merging override \S",
            # a config group option that is not there (a plugin not installed: Hydra's
            # submitit launcher) or a primary config missing from the search path
            r"(?:^|MissingConfigException: )In '[^']+': Could not (?:find|load) '[^']+'",
            r"(?:^|MissingConfigException: )Cannot find primary config '[^']+'",
            # an override of a key the config does not have (Hydra's message, then
            # OmegaConf's for a struct config, each alone on its line without HYDRA_FULL_ERROR)
            r"(?:^|ConfigCompositionException: )Could not override '[^']+'\."
            r"(?: No match in the defaults list\.)?$",
            r"^Key '[^']+' is not in struct$",
        ),
        # (a logger's warning that quotes them and goes on; not the words "skip" or
        # "ignore", which a key may hold)
        exclude=(_WARNED_LINE,),
        cause="Hydra could not compose the run's configuration, so the script never started "
        "on this rank: a key the structured config's schema lacks or an override whose value "
        "OmegaConf cannot merge (the lines under it name the key), a config group option "
        "that is not there (a Hydra plugin not installed, such as hydra-submitit-launcher for "
        "hydra/launcher=submitit_*), or a primary config missing from the search path (a "
        "wrong config_path or config_name, a working directory the relative path does not "
        "start from). A launcher that starts the other ranks with the script's own command "
        "line (Lightning's DDP under Hydra) fails there too, and the ranks that did start "
        "wait for them.",
        fix="fix the key, the override or the option Hydra names (rerun with "
        "HYDRA_FULL_ERROR=1 for the whole traceback); install the plugin a hydra/launcher or "
        "hydra/sweeper option needs (pip install hydra-submitit-launcher); check config_path "
        "against the directory the ranks start in; when only the ranks a launcher started "
        "fail, compare their command line with the first rank's.",
        fixtures=(
            "user_code_error__lightning_15545.log",
            "user_code_error__midway_network_1.log",
            "user_code_error__ttrl_24_hydra_reward_kwargs_not_in_struct.log",
        ),
    ),
    Rule(
        name="storage_full",
        category="user_code_error",
        code="LX691",
        # above the exception line that carries it (LX511): the errno names the cause
        priority=81,
        retryable=False,
        patterns=(
            r"\[Errno 28\] No space left on device",
            r"\[Errno 122\] Disk quota exceeded",
            # torch's own writer (torch.save of a checkpoint)
            r"\bwrite\(\): fd \d+ failed with (?:No space left on device|Disk quota exceeded)",
        ),
        exclude=_NOT_THE_DISK,
        not_raised_in=_NOT_THE_DISKS_FRAMES,
        cause="a write found the disk full or the user's quota spent (checkpoints, a dataset "
        "or model cache, logs): the run's own code and data are not at fault, but the same "
        "run fills the same disk again.",
        fix="check the path in the traceback: free space and quota where checkpoints, caches "
        "(HF_HOME, TRITON_CACHE_DIR, TORCH_EXTENSIONS_DIR) and logs are written (df -h, "
        "quota -s); keep fewer checkpoints (save_total_limit) or write them elsewhere, then "
        "resume from the last complete one.",
        fixtures=("user_code_error__ms_swift_3551_dataset_cache_disk_full.log",),
    ),
    Rule(
        name="storage_io_error",
        category="user_code_error",
        code="LX692",
        priority=81,
        # a mount that failed for a while or a file replaced underneath: a rerun from a
        # complete checkpoint may pass, one that fails again without progress stops (no
        # retryable=False, which would make the log's word final)
        on_progress=True,
        patterns=(
            r"\[Errno 5\] Input/output error",
            r"\[Errno 116\] Stale (?:NFS )?file handle",
            # torch's own reader and writer (torch.load/torch.save on NFS)
            r"\b(?:read|write)\(\): fd \d+ failed with (?:Input/output error|Stale (?:NFS )?"
            r"file handle)",
        ),
        exclude=_NOT_THE_DISK,
        not_raised_in=_NOT_THE_DISKS_FRAMES,
        cause="the filesystem failed a read or a write: an I/O error on a network or parallel "
        "filesystem (NFS, Lustre, a FUSE mount of object storage), or an NFS handle made stale "
        "because another node replaced or deleted the file while it was open (a cache or a "
        "checkpoint written by several ranks at once); the run's own code is not at fault.",
        fix="check the mount on every node (dmesg, the filesystem's own tools) and which "
        "ranks write the path in the traceback: write checkpoints from one rank or per-rank "
        "files and keep caches (HF_HOME, TRITON_CACHE_DIR) on local disk; launchx retries it "
        "from the last complete checkpoint, and stops when it comes back without progress.",
        fixtures=(
            "user_code_error__slime_326.log",
            "user_code_error__llamafactory_3243_stale_file_handle_oneline.log",
        ),
    ),
    Rule(
        name="extension_build_failed",
        category="user_code_error",
        code="LX688",
        # above the exception lines that carry it (LX511): the build is the cause
        priority=81,
        retryable=False,
        patterns=(
            # torch.utils.cpp_extension's JIT build (DeepSpeed's op builder, a project's own
            # CUDA ops), as ninja ends it and as torch reports it
            r"^ninja: build stopped: subcommand failed\.$",
            r"CalledProcessError: Command '\['ninja', '-v'",
            r"RuntimeError: Error building extension '[\w.-]+'",
            # Megatron-core's dataset index helpers (helpers.cpp), built with make by rank 0
            # at start-up: it logs this and exits
            r"Failed to compile the C\+\+ dataset helper functions\s*$",
            # ... and the older megatron/data/dataset_utils.py (Megatron-LM before core,
            # Megatron-DeepSpeed and their forks)
            r"Making C\+\+ dataset helpers module failed, exiting",
        ),
        # torch's JIT build at start-up, not a pip/setup.py build of the same tools (pip
        # reports those under its own words a few lines on)
        not_before=(
            r"Error compiling objects for extension|Failed building wheel"
            r"|subprocess-exited-with-error",
        ),
        cause="a C++/CUDA extension compiled when the run starts (DeepSpeed's fused_adam or "
        "cpu_adam, a project's own CUDA ops, through torch.utils.cpp_extension) failed to "
        "build: the compiler's first error is above it (an nvcc older or newer than torch's "
        "CUDA, a missing CUDA_HOME or header, a gcc nvcc does not accept); every rank, and "
        "every rerun, builds it the same way; Megatron's dataset helpers are built with make "
        "and g++ against pybind11 the same way.",
        fix="read the first 'error' line of the compiler output above (for Megatron's dataset "
        "helpers, make's: their directory needs its Makefile, g++, pybind11 and "
        "python3-config from python3-dev, or build them once ahead with make there); make "
        "`nvcc --version` match python -c 'import torch; print(torch.version.cuda)' (set "
        "CUDA_HOME to that toolkit) and install a gcc it supports; a compiler killed for "
        "memory ends the same way (MAX_JOBS=4); or build the ops ahead, once "
        "(DS_BUILD_FUSED_ADAM=1 DS_BUILD_CPU_ADAM=1 pip install --no-cache-dir deepspeed), "
        "and clear ~/.cache/torch_extensions (TORCH_EXTENSIONS_DIR) of a half-built copy "
        "before the next launch.",
        fixtures=(
            "user_code_error__deepspeed_6912.log",
            "user_code_error__qwen_697_fused_adam_build_torchrun.log",
            "user_code_error__galvatron_12_dataset_helpers_no_makefile.log",
        ),
    ),
    Rule(
        name="deepspeed_mpi_discovery_failed",
        category="user_code_error",
        code="LX766",
        priority=81,
        retryable=False,
        patterns=(
            # deepspeed.init_distributed missing any of the launcher's variables falls back to
            # asking MPI and runs `hostname -I` (utils/distributed.py, comm/comm.py:
            # mpi_discovery) for the master's address: a hostname without -I (macOS, Arch's
            # inetutils) exits 64
            r"CalledProcessError: Command '\['hostname -I'\]' returned non-zero exit status",
        ),
        # DeepSpeed's, not another project's copy of the same call
        context=(r'deepspeed[/\\]\S+\.py", line \d+, in mpi_discovery$',),
        cause="DeepSpeed did not find all of the launcher's variables (RANK, LOCAL_RANK, "
        "WORLD_SIZE, MASTER_ADDR, MASTER_PORT) and fell back to discovering the job through "
        "MPI (mpi4py), whose rank 0 runs `hostname -I` to find its own address; this "
        "system's hostname has no -I option (macOS, GNU inetutils; exit status 127: no "
        "hostname command at all), so deepspeed.initialize stopped before any process "
        "group; it fails the same way on every start.",
        fix="start the script through a launcher that sets the variables (`launchx run`, "
        "torchrun, the deepspeed command) instead of plain python, or set RANK, "
        "LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT for a single process; or "
        "install a hostname that knows -I (Debian's hostname package).",
        fixtures=("user_code_error__deepspeed_826_mpi_discovery_hostname_flag.log",),
    ),
    Rule(
        name="fused_kernels_not_installed",
        category="user_code_error",
        code="LX760",
        # GPT-NeoX's start-up check, which prints this and exits: no exception line follows
        priority=81,
        retryable=False,
        patterns=(
            # megatron/fused_kernels/__init__.py, older ("not installed ... setup.py install")
            # and newer ("not properly installed ... pip install"), as printed: not the
            # f-string's source line that a traceback through the check may show
            r"^(?!\s*f?[\"'])(?:.*\W)?Fused kernels configured but not (?:properly )?"
            r"installed\. Please run `",
        ),
        cause="GPT-NeoX is configured to use its fused CUDA kernels (scaled_upper_triang_"
        "masked_softmax_fusion, scaled_masked_softmax_fusion or rope_fusion) but the "
        "extension is not importable in this Python: it was never built, or built into "
        "another environment; every start stops at the same check.",
        fix="build the kernels into the environment the launcher's ranks use (`pip install "
        "megatron/fused_kernels` from the repository's root, or, in older versions, `python "
        "megatron/fused_kernels/setup.py install`) with a CUDA toolkit that matches torch, "
        "or set the fusion options to false in the config.",
        fixtures=("user_code_error__gpt_neox_610_fused_kernels_not_installed.log",),
    ),
    Rule(
        name="sharded_tensor_access_pattern",
        category="user_code_error",
        code="LX761",
        # above the CheckpointingException that carries it (LX511): the validation's own
        # line names the tensor
        priority=81,
        retryable=False,
        patterns=(
            # megatron.core.dist_checkpointing.validation: logged, then raised with the same
            # words, when the ranks' shards of one key do not cover it exactly once, or when
            # no rank holds some shards of a ShardedObject
            r"\bInvalid access pattern for ShardedTensor\(key=",
            r"\bInvalid access pattern: \d+ ShardedObject are missing\b",
        ),
        cause="Megatron's distributed checkpoint found that the ranks' shards of one tensor "
        "do not cover it exactly once (a replicated tensor declared as sharded, a replica_id "
        "or axis fragmentation wrong in a model's sharded_state_dict, a key produced by "
        "only some layers or stages): the checkpoint's layout is wrong for this parallel "
        "configuration, and every save or load validates it the same way.",
        fix="fix the sharded_state_dict of the module whose key the line names (give a "
        "replicated parameter replica_id over the data- and tensor-parallel ranks, or its "
        "right axis fragmentations); until then, save with the parallel sizes that work "
        "(tensor parallel 1 for a new module) or with --ckpt-format torch.",
        fixtures=("user_code_error__megatron_lm_1234.log",),
    ),
    Rule(
        name="zero3_low_cpu_mem_usage",
        category="user_code_error",
        code="LX762",
        # above the ValueError that carries it (LX511), which ranks writing one terminal
        # often leave glued to another line or cut off
        priority=81,
        retryable=False,
        patterns=(
            # transformers' from_pretrained under a ZeRO-3 config (HfDeepSpeedConfig or the
            # Trainer's): the message as the exception line carries it, alone on its line or
            # glued to a progress bar, not a script's comment quoting it; newer transformers
            # (check_and_set_device_map) names the device_map alone
            r"^(?!\s*#).*?DeepSpeed Zero-3 is not compatible with (?:`low_cpu_mem_usage=True` "
            r"or with )?passing a `device_map`",
        ),
        cause="from_pretrained was called with a device_map (or, in older transformers, "
        "low_cpu_mem_usage=True) while DeepSpeed ZeRO-3 is on: transformers builds the model "
        "partitioned under zero.Init then, and refuses to place it itself; every rank and "
        "every start raises the same ValueError.",
        fix="drop device_map and low_cpu_mem_usage=True from from_pretrained when the "
        "DeepSpeed config's zero_optimization.stage is 3 (ZeRO-3 places the weights itself), "
        "or train with ZeRO stage 2 if the model must be spread by device_map.",
        fixtures=("user_code_error__chinese_llama_alpaca_465.log",),
    ),
    Rule(
        name="zero3_param_not_available",
        category="user_code_error",
        code="LX771",
        # above the exception that carries it (LX511): ranks that fail at once glue the
        # assertion's source line and its AssertionError to each other's output
        priority=81,
        retryable=False,
        patterns=(
            # DeepSpeed's partitioned parameter coordinator: reset_step finding gathers still
            # under way at a step's end, and fetch_sub_module's assertion on a parameter that
            # is being gathered or was never gathered (its source line, and the summary the
            # assertion prints)
            r"still have inflight params",
            r"assert param\.ds_status == ZeroParamStatus\.AVAILABLE\b",
            r"AssertionError: \{'id': \d+, 'status': '(?:INFLIGHT|NOT_AVAILABLE)'",
        ),
        cause="DeepSpeed ZeRO-3 gathers each parameter before the submodule that uses it runs, "
        "prefetching in the order it traced in the first step; a model that runs its "
        "submodules in another order (generation, a vision tower or other module called "
        "outside the wrapped forward, branches that differ between steps) used a parameter "
        "still being gathered (INFLIGHT) or never gathered (NOT_AVAILABLE), or ended a step "
        "with gathers still in flight. It fails the same way at the same step on every run.",
        fix='set "stage3_prefetch_bucket_size": 0 in zero_optimization (nothing is fetched '
        "ahead of the submodule that needs it), upgrade DeepSpeed (releases since mid-2023 "
        "fixed parameters left in flight between training and generation), call the model's "
        "submodules only from inside its forward, or train this model with ZeRO stage 2.",
        fixtures=(
            "user_code_error__deepspeed_3647.log",
            "user_code_error__deepspeed_3156_mplug_owl2_inflight_assert.log",
            "user_code_error__mmvp_26_zero3_inflight_finetune.log",
            "user_code_error__qwen_vl_103.log",
        ),
    ),
    Rule(
        name="script_crlf_line_endings",
        category="user_code_error",
        code="LX772",
        # above the launcher's summary and the script's errors that follow (the stray
        # carriage return shifts every argument): the shell's own line names the cause
        priority=86,
        retryable=False,
        patterns=(
            # bash running a CRLF script: an empty line is a command named $'\r' (its Chinese
            # locale too, with a full-width colon)
            r"\$'\\r'(?::|\uff1a) ?(?:command not found|\u672a\u627e\u5230\u547d\u4ee4)",
            # the kernel reading "#!/bin/bash\r" as the interpreter's name, and env doing so
            # for "#!/usr/bin/env bash\r"
            r"\^M: bad interpreter: No such file or directory",
            r"env: [\u2018'][\w.+-]+\\r[\u2019']: No such file or directory",
            # dash's message for the same line, and Python's for a script path ending in the
            # carriage return, each overwritten from its start by the text after it
            r"^: not found\S*\.sh: \d+:",
            # ... and dash's as a raw log holds it, split at the carriage return
            r"^: not found$",
            # ... and env's for "#!/usr/bin/env bash\r" in releases that print the name
            # unquoted ("/usr/bin/env: bash\r: No such file or directory"), the line
            # overwritten from its start by the words after the carriage return
            r"^: No such file or directory$",
            r"^': \[Errno 2\] No such file or directory",
            # the Trainer's parser left with a lone carriage return as an argument
            r"arguments are not used by the HfArgumentParser: \[(?:'[^']*', )*'\\r'\]",
        ),
        cause="the shell script that starts training was saved with Windows line endings "
        "(CRLF): the shell reads each carriage return as part of the line, so blank lines "
        "become a command named $'\\r', the backslashes that should join lines no longer do, "
        "and the last argument on each line carries a stray \\r (a config path that does not "
        "exist, a flag the parser rejects); every run fails the same way.",
        fix="convert the script to Unix line endings (dos2unix SCRIPT, or sed -i 's/\\r$//' "
        "SCRIPT) and keep git from converting it back on Windows (git config core.autocrlf "
        "input, or '*.sh text eol=lf' in .gitattributes).",
        fixtures=(
            "user_code_error__streaming_video_model_3_crlf_dist_train.log",
            "user_code_error__mmdet_7876_dist_train_sh_crlf.log",
            "user_code_error__llava_mod_16.log",
            "user_code_error__deformable_detr_47_slurm_script_no_such_file.log",
        ),
    ),
    Rule(
        name="script_line_continuation_lost",
        category="user_code_error",
        code="LX773",
        # below a script saved with CRLF (LX772), which breaks its continuations the same way
        # and says so; above the launcher's summary and the script's argument errors that
        # follow (the command ran without the flags)
        priority=85,
        retryable=False,
        patterns=(
            # bash (line N) and dash (: N:) running a line that starts with an option
            # (the digit before ": " is the line number both print: bash's "line N", dash's
            # ": N"; the pattern starts at ": " so that the search can skip to it)
            r": (?<=\d: )--?[A-Za-z][\w.-]*(?:=\S*)?: (?:command )?not found\b",
        ),
        cause="the shell script that starts training ran a line beginning with an option as a "
        "command of its own: the line above does not end in the backslash that continues a "
        "command (it was left out, a space or a carriage return follows it, the script being "
        "saved with Windows line endings, or a comment line sits inside the command), so the "
        "launch ran without the options after it and the shell then tried to run them; every "
        "run does the same.",
        fix="end every line of the command but the last with a backslash and nothing after it "
        "(no space, no comment), and keep comment lines out of the middle of the command; "
        "for a script saved on Windows, convert it (dos2unix SCRIPT); `bash -n SCRIPT` checks "
        "the syntax, `bash -x SCRIPT` shows the command as it runs.",
        fixtures=("user_code_error__llamafactory_468_missing_backslash_deepspeed_arg.log",),
    ),
    Rule(
        name="ddp_without_trainable_params",
        category="user_code_error",
        code="LX774",
        # above the exception line that carries it (LX511), which pastes often quote or cut
        priority=81,
        retryable=False,
        patterns=(
            # DDP's constructor check (torch 1.2 and later) ...
            r"DistributedDataParallel is not needed when a module doesn't have any parameter "
            r"that requires a gradient",
            # ... and the reducer's assertion that stood for it before (torch 1.0-1.1)
            r"replicas_\[0\]\.size\(\) >= 1 ASSERT FAILED",
        ),
        cause="DistributedDataParallel was asked to wrap a module none of whose parameters "
        "require a gradient (a frozen network used only for a loss, such as VGG for a "
        "perceptual loss, a teacher, an encoder frozen with the rest, or a model whose "
        "trainable adapters were not added yet), so it has no gradient to average and "
        "refuses; every start fails the same way.",
        fix="wrap only the modules that train: move frozen ones to the rank's device without "
        "DDP (and keep them in eval mode); check that something trains after freezing "
        "(sum(p.numel() for p in model.parameters() if p.requires_grad) > 0) before "
        "wrapping.",
        fixtures=(
            "user_code_error__sd_finetune_94_ddp_no_grad_params.log",
            "user_code_error__real_sr_7_ddp_frozen_vgg.log",
            "user_code_error__basicsr_199_esrgan_ddp_vgg_replicas_assert.log",
        ),
    ),
    Rule(
        name="deepspeed_config_mismatch",
        category="user_code_error",
        code="LX763",
        # above the ValueError that carries it (LX511): its list of values names the fix,
        # and a paste often keeps the list without the exception's own line
        priority=81,
        retryable=False,
        patterns=(
            # transformers' HfTrainerDeepSpeedConfig and accelerate's DeepSpeedPlugin
            # comparing the DeepSpeed JSON with the trainer's own arguments (accelerate's
            # with two spaces before "values")
            r"Please correct the following DeepSpeed config values that mismatch "
            r"(?:TrainingArguments|kwargs) +values",
            # ... and accelerate finding an "auto" it has nothing to fill from, or an
            # accelerate config that sets what the DeepSpeed JSON file must set
            r"not found in kwargs\. Please specify `[\w.]+` without `auto`",
            r"When using `deepspeed_config_file`, the following accelerate config variables "
            r"will be ignored",
        ),
        cause="the DeepSpeed config given to the Hugging Face Trainer or accelerate disagrees "
        "with the run's own arguments (batch size, gradient accumulation, learning rate, "
        "warm-up steps, mixed precision), or leaves a value 'auto' that nothing can fill (a "
        "bucket size from a model without config.hidden_size); the check stops every start "
        "the same way.",
        fix="set the listed DeepSpeed values to 'auto' so that the trainer fills them from "
        "its arguments, or make both sides equal (train_batch_size = micro batch x gradient "
        "accumulation x world size); give an 'auto' that cannot be filled a number of its "
        "own in the JSON; with deepspeed_config_file, set gradient accumulation, clipping, "
        "ZeRO stage, offload and mixed precision in that file, not in the accelerate "
        "config.",
        fixtures=(
            "user_code_error__hendrycks_apps_9_ds_hf_mismatch.log",
            "user_code_error__accelerate_2295_auto_reduce_bucket_size.log",
        ),
    ),
    Rule(
        name="bare_exception_raised",
        category="user_code_error",
        code="LX656",
        priority=80,
        retryable=False,
        # a bare Exception (no Error or Exception in its own name, which LX511 reads) is
        # the script's only where its traceback shows the raise, or a task runner reports
        # the task failed (dask's "Compute Failed"): a script prints "Exception: ..." itself
        # for errors it skips; (old torch.multiprocessing.spawn's "Exception:" with nothing
        # after it announces the traceback below, which the launcher rules read)
        patterns=(r"^Exception: \S",),
        context=(r"^\s*raise Exception\b", r"\bCompute Failed\b"),
        cause="the training script (or a library it calls) raised a bare Exception on this "
        "rank; the other ranks' errors (connection closed, timeouts) are its consequence.",
        fix="fix the script at the traceback shown for this rank; retrying would run the "
        "same code into the same error.",
        fixtures=("user_code_error__dask_pytorch_ddp_17_compute_failed_assertion.log",),
    ),
    Rule(
        name="xformers_without_cuda_kernels",
        category="cuda_config_error",
        code="LX788",
        # above LX511, whose NotImplementedError line ends the traceback
        priority=82,
        retryable=False,
        patterns=(
            # xformers' reasons under "No operator found for `memory_efficient_attention_...`"
            # (its wheel has no CUDA kernels: built without CUDA; the tensors are on the CPU),
            # and its warning at import that its kernels do not load (built for another torch
            # or CUDA)
            r"xFormers wasn't build with CUDA support",
            r"xFormers can't load C\+\+/CUDA extensions",
            r"\bdevice=cpu \(supported: \{'cuda'\}\)",
        ),
        # the warning alone is not a failure: diffusers and DINOv2 fall back to torch's
        # attention and train on
        requires=(r"No operator found for `memory_efficient_attention\w*`",),
        cause="xformers' memory-efficient attention found no kernel it can run: the installed "
        "xformers wheel was built for another torch or CUDA (or without CUDA), so its CUDA "
        "kernels do not load, or the tensors were on the CPU: this torch cannot use the GPU "
        "(a CPU build, a conda cudatoolkit that does not match), or the code never moved "
        "them; every run fails at the first attention call.",
        fix="install the xformers wheel built for the installed torch (`pip install -U "
        "xformers --index-url https://download.pytorch.org/whl/cu<ver>`; `python -m "
        "xformers.info` prints the torch and CUDA it was built for), check "
        "`torch.cuda.is_available()` in the job's environment and that the model is on the "
        "GPU, or turn xformers off (torch's scaled_dot_product_attention does the same "
        "work).",
        fixtures=(
            "cuda_config_error__fast_sd_1935_xformers_built_for_other_torch.log",
            "cuda_config_error__sdscripts_412_xformers_tensors_on_cpu.log",
        ),
    ),
    Rule(
        name="fsdp_mixed_flat_params",
        category="user_code_error",
        code="LX789",
        # above LX511, whose ValueError line this is, to name the fix; a paste may wrap or
        # quote the words alone
        priority=81,
        retryable=False,
        patterns=(
            # FSDP1's FlatParamHandle (torch/distributed/fsdp/_flat_param.py): one wrap unit's
            # parameters must share a dtype, and a requires_grad unless use_orig_params=True
            # (which older releases said of the FlatParameter)
            r"Must flatten tensors with uniform (?:dtype|`requires_grad`)",
            r"`FlatParameter` requires uniform `requires_grad`",
        ),
        cause="FSDP (its first version) flattens each wrap unit's parameters into one tensor, "
        "and they must share one dtype (and one requires_grad): a unit mixes bf16 and fp32 "
        "parameters (LoRA adapters or modules a model keeps in fp32, 4-bit weights), or "
        "frozen and trained ones; every run fails while the model is wrapped.",
        fix="cast the model to one dtype before wrapping (`model.to(torch.bfloat16)`, PEFT's "
        "autocast_adapter_dtype=False) and let FSDP's MixedPrecision policy choose the "
        "compute dtype; for frozen parameters set use_orig_params=True (accelerate's "
        "fsdp_use_orig_params); or move to FSDP2 (fully_shard), which shards each parameter "
        "on its own.",
        fixtures=(
            "user_code_error__llamafactory_7993_gemma3_fsdp_uniform_dtype.log",
            "user_code_error__dpo_90_peft_fsdp_uniform_dtype.log",
            "user_code_error__flan_alpaca_10.log",
        ),
    ),
    Rule(
        name="http_download_timeout",
        category="socket_error",
        code="LX794",
        # above the script's exception that the failed download ends in (LX511)
        priority=81,
        patterns=(
            # urllib3 (under requests and huggingface_hub) waiting on a server past its read
            # timeout (huggingface_hub's default is 10 s), as its exception line or inside the
            # requests.exceptions.ReadTimeout that wraps it; not a server on this host (a
            # reward or inference server slow to answer)
            r"ReadTimeoutError(?:: |\(\")HTTPSConnectionPool\(host='(?!localhost'|127\.)[^']+', "
            r"port=\d+\): Read timed out",
            # urllib (torch.hub, torchvision's and timm's weight downloads) failing to connect
            r"<urlopen error \[Errno (?:110|101|113)\] (?:Connection timed out|Network is "
            r"unreachable|No route to host)>",
        ),
        exclude=(_HTTP_RETRY_WARNING,),
        cause="the script (or a library it calls at start: transformers, huggingface_hub, "
        "torch.hub, torchvision's or timm's weights) fetched a file over HTTP(S) and the "
        "connection timed out or found no route: compute nodes that reach the internet only "
        "through a proxy or not at all, or a slow or rate-limiting server; every rank "
        "downloads on its own, so all of them fail alike.",
        fix="download once before the launch (huggingface-cli download, or the weights "
        "fetched on a login node) into a shared cache (HF_HOME, TORCH_HOME) and run with "
        "HF_HUB_OFFLINE=1; set HTTPS_PROXY in the profile's env where the nodes go through a "
        "proxy; for a slow hub raise HF_HUB_ETAG_TIMEOUT (the metadata request made "
        "first) and HF_HUB_DOWNLOAD_TIMEOUT (seconds).",
        fixtures=(
            "socket_error__dino_233_launch_urlopen_timeout.log",
            "socket_error__open_instruct_620_ray_vllm_hf_read_timeout.log",
        ),
    ),
    Rule(
        name="pickle_not_the_same_object",
        category="user_code_error",
        code="LX795",
        # above LX511, whose PicklingError line this is, to name the fix; a framework may log
        # the words without the class ("Task failed: Can't pickle ...")
        priority=81,
        retryable=False,
        patterns=(
            # pickle saves a function or class by its module and name, and checks that the
            # name still leads to the same object
            r"Can't pickle <(?:function|class) [^>]+>: it's not the same object as \S+",
        ),
        cause="an object sent to another process (mp.spawn's or ddp_spawn's arguments, a "
        "DataLoader worker's dataset, a Ray task) holds a function or class that pickle "
        "saves by its module and name, and that name now leads to another object: the "
        "function was wrapped or replaced after it was defined (a decorator, a patch such "
        "as Lightning's double precision wrapping training_step), or its module was loaded "
        "twice under two names (a file imported by path); it fails on every start.",
        fix="define the function at module level in an importable module and do not rebind "
        "its name (wrap it under another name); load a custom module by its import name, "
        "not by path; with Lightning, strategy='ddp' (torchrun-style processes) instead of "
        "ddp_spawn pickles nothing of the model.",
        fixtures=(
            "user_code_error__lightning_6893_ddp_spawn_double_precision_pickle.log",
            "user_code_error__verl_3150_prime_reward_pickle.log",
        ),
    ),
    Rule(
        name="text_not_utf8",
        category="user_code_error",
        code="LX796",
        # above LX511, whose UnicodeDecodeError line this is, to name the fix; the words may be
        # logged without the class ("Error while fetching sample from memmap: ...")
        priority=81,
        retryable=False,
        patterns=(
            r"'utf-?8' codec can't decode bytes? (?:0x[0-9a-fA-F]{2}|in position)[^:]*: "
            r"(?:invalid (?:start|continuation) byte|unexpected end of data)",
        ),
        # a loader that reports the file it skips and goes on
        exclude=(r"(?i)\bskip(?:ping|ped)?\b",),
        cause="a file read as UTF-8 text is not UTF-8: a binary file (a .npy, a checkpoint, "
        "an image) where text was expected, a text file written in another encoding (GBK, "
        "Latin-1, UTF-16), or a file cut in the middle of a character; the same sample "
        "fails on every run.",
        fix="find the file the traceback reads (`file <path>` names its type); convert it "
        "(iconv -f gbk -t utf-8 in > out) or open it with its encoding; a dataset built by "
        "hand must match the loader's format (NeMo's text memmap reads JSONL text, not "
        ".npy).",
        fixtures=("user_code_error__mlcommons_v40_8_llama2_memmap_utf8.log",),
    ),
    Rule(
        name="operator_without_backend_kernel",
        category="user_code_error",
        code="LX797",
        # above LX511, whose NotImplementedError line this is, to name the fix; a platform's
        # error reporter may log the words without the class
        priority=81,
        retryable=False,
        patterns=(
            # c10's dispatcher; a terminal's wrapping may break the operator's name with
            # spaces ("'ate     n::_amp_...'"), so the name is anything but a quote
            r"Could not run '[^']+' with arguments from the '\w+' backend",
        ),
        exclude=(_GOES_ON,),
        cause="an operator was called on tensors of a device (or layout) it has no kernel "
        "for: a tensor left on the CPU where the operator runs only on the GPU (CPU offload "
        "with a GPU-only step such as the AMP scaler's unscale), a sparse, quantized or meta "
        "tensor, or an extension's operator built without that device's kernels; the same "
        "call fails on every run.",
        fix="the line names the operator and the backend it was called with: move the "
        "tensors to a device it supports, or use the variant for that device (FSDP's "
        "ShardedGradScaler with CPU offload, no fp16 scaler on CPU gradients); for an "
        "extension's operator (torchvision::nms on 'CUDA'), reinstall the extension built "
        "for this torch and CUDA (matching torch and torchvision wheels from one index).",
        fixtures=("user_code_error__pytorch_111650_fsdp_cpu_offload_sharded_grad_scaler.log",),
    ),
    Rule(
        name="zero3_mixed_dtype_partitions",
        category="user_code_error",
        code="LX799",
        # above LX511, whose bare AssertionError this is; the source line Python prints under
        # the frame is all that names it (the assertion has no message)
        priority=81,
        retryable=False,
        patterns=(r"assert len\(set\(t\.dtype for t in tensors\)\) == 1",),
        # DeepSpeed's defragment (stage3.py, zero/utils.py in later releases), not torch's
        # nested tensors, whose jagged_from_list asserts the same words (a paste may cut the
        # frame line above DeepSpeed's to a bare path, so its frame is not required)
        not_raised_in=(r'nested[/\\]_internal[/\\]nested_tensor\.py", line \d+, in \w+$',),
        cause="DeepSpeed ZeRO-3 found parameters of more than one dtype in one group when it "
        "defragments its partitions: trainable parameters of more than one dtype (LoRA "
        "weights or a new head in float32 beside a bf16 base, a value head cast "
        "differently); the same step fails on every run.",
        fix="cast every trainable parameter to the dtype the DeepSpeed config trains in: "
        "LoRA adapters and modules_to_save created in float32 beside a bf16 base "
        "(model.to(torch.bfloat16) after adding them, or torch_dtype= matching bf16/fp16 in "
        "the config); DeepSpeed leaves parameters without requires_grad out of its groups, "
        "so the mix is among the trained ones.",
        fixtures=("user_code_error__trl_1770_kto_zero3_defragment_dtype.log",),
    ),
    Rule(
        name="cudnn_no_engine",
        category="cuda_error",
        code="LX800",
        # above LX511, whose RuntimeError line this is: cuDNN's, not the script's
        priority=81,
        retryable=False,
        patterns=(
            # cuDNN's v8 API, through torch's convolution and RNN kernels: no engine of this
            # cuDNN supports the call's shapes, dtype and layout
            # ("FIND" where cudnn.benchmark searches the engines)
            r"\b(?:GET|FIND) was unable to find an engine to execute this computation",
        ),
        exclude=(_GOES_ON,),
        cause="cuDNN found no kernel for this convolution (or RNN) on this GPU: a dtype or "
        "layout it does not support here (fp8, bf16 or channels-last on an older GPU), input "
        "shapes past its limits, a GPU that this torch's cuDNN no longer supports, a cuDNN "
        "other than the one torch was built with, or no memory left for any engine's "
        "workspace; the same layer fails on every run.",
        fix="rerun once with torch.backends.cudnn.enabled = False to confirm it is cuDNN; "
        "then use the cuDNN torch ships with (pip's nvidia-cudnn wheel that matches torch, no "
        "system cuDNN first on LD_LIBRARY_PATH) and a build that supports this GPU, a dtype "
        "this GPU supports, or smaller inputs or batch for that layer.",
        fixtures=("cuda_error__cosyvoice_1560_flow_cudnn_no_engine.log",),
    ),
    Rule(
        name="checkpoint_recompute_mismatch",
        category="user_code_error",
        code="LX798",
        # above LX511, whose CheckpointError line this is, to name the fix; the tip line is
        # printed only by that error, and a log may keep the tip without the class
        priority=81,
        retryable=False,
        patterns=(
            r"torch\.utils\.checkpoint: (?:Recomputed values for the following tensors have "
            r"different metadata|A different number of tensors was saved during the original "
            r"forward and recomputation|trying to save more tensors during recomputation)",
            r"To see a more detailed error message, either pass `debug=True` to",
        ),
        cause="activation checkpointing recomputed the forward pass and got different tensors "
        "than the first time: parameters gathered or partitioned differently between the two "
        "passes (ZeRO-3 or FSDP with frozen or shared parameters), randomness or control flow "
        "that changes between them, or torch.compile around a checkpointed block; it repeats "
        "on every run.",
        fix="try the other checkpoint implementation (gradient_checkpointing_kwargs="
        "{'use_reentrant': True} or False), upgrade DeepSpeed/accelerate to a release that "
        "gathers ZeRO-3's partitioned parameters for the recompute, and rerun once with "
        "debug=True passed to torch.utils.checkpoint.checkpoint (or the step inside `with "
        "torch.utils.checkpoint.set_checkpoint_debug_enabled(True):`) to see which operator "
        "differs.",
        fixtures=("user_code_error__deepspeed_8148_zero3_ac_frozen_params.log",),
    ),
    Rule(
        name="fsdp_module_deepcopy",
        category="user_code_error",
        code="LX793",
        # above LX511, whose AssertionError line this is, to name the fix; a framework may log
        # the words under its own message ("Failed to save EMA weights: ...")
        priority=81,
        retryable=False,
        patterns=(
            # FSDP2's fully_shard (and SimpleFSDP, YaFSDP after it) replaces the module's
            # __deepcopy__ with one that raises: copy.deepcopy of a sharded model (an EMA or a
            # teacher copy made after wrapping)
            r"\b(?:Ya)?FSDP does not support deepcopy\. Please use state dict for serialization",
        ),
        cause="the script deep-copied a model already sharded by FSDP2's fully_shard (an EMA, "
        "a reference or teacher model copied after wrapping): its parameters are DTensor "
        "shards tied to the process group, so FSDP refuses the copy, on every run.",
        fix="make the copy before fully_shard and shard it on its own, or keep the copy as a "
        "state dict (get_model_state_dict(..., options=StateDictOptions(full_state_dict=True, "
        "cpu_offload=True)) from torch.distributed.checkpoint.state_dict) and update it from "
        "the sharded model's state dict.",
        fixtures=("user_code_error__fastvideo_915_fsdp_ema_deepcopy.log",),
    ),
    Rule(
        name="collective_tensor_device",
        category="user_code_error",
        code="LX787",
        # above LX511, whose exception line this is, to name the device; a paste may quote
        # the check's words alone
        priority=81,
        retryable=False,
        patterns=(
            # ProcessGroupNCCL's check of each tensor it is given (a CPU or sparse tensor), as
            # the exception line, alone or quoted
            r"(?:^|Error: |[“\"'`])Tensors? must be CUDA and dense\b",
            # c10d's ProcessGroup (torch 2.0 on) finding no backend of the group for the
            # tensor's device: a CPU tensor in an NCCL-only group, an XPU or NPU tensor in a
            # group without that device's backend
            r"(?:^|Error: |[“\"'`])No backend type associated with device type \w+",
        ),
        cause="a collective was given a tensor on a device the process group's backend "
        "cannot reach: a CPU tensor handed to NCCL (a metric, loss, buffer or optimizer "
        "step left on the CPU, or a framework's tuner or logger reducing one), or an "
        "accelerator's tensor in a group created without its backend; every run hits it "
        "at the same call.",
        fix="move the tensor to this rank's device before the collective "
        "(`t.to(torch.cuda.current_device())`, `device=self.device` in Lightning), or "
        "create the group with a backend per device (`init_process_group(backend="
        "'cpu:gloo,cuda:nccl')`) where CPU tensors must be reduced too.",
        fixtures=(
            "user_code_error__lightning_19611_lr_find_two_gpu_cuda_dense.log",
            "user_code_error__powerbev_7_tensors_not_cuda_ddp_broadcast.log",
            "user_code_error__unsloth_zoo_129_broadcast_cpu_backend.log",
        ),
    ),
    Rule(
        name="user_exception",
        category="user_code_error",
        code="LX511",
        priority=80,
        patterns=(
            # (pdsh interleaving two ranks' writes pads the colon: "AssertionError    : ...";
            # not a table of metrics: "MeanSquaredError     : 0.0421")
            rf"{EXCEPTION_LINE}(?::| +:(?! *(?:[-+\d.eE]+%?|nan|inf) *$)|$)",
            # ranks writing one terminal glue one's exception class to another's line: to
            # its end, after a message's closing quote or a call's bracket
            # ("...: '/x/run.log'FileNotFoundError"), or to its start, before a traceback
            # frame or a source line ("FileNotFoundError  File ...")
            rf"['\")\]]{EXCEPTION_LINE[1:]} *$",
            rf"{EXCEPTION_LINE}(?: {{2,}}(?=File \"|assert |raise )|(?=assert |raise ))",
            # pytest's short test summary ("FAILED path::test[id] - AssertionError: ...")
            r"^FAILED \S+::\S+ - (?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception):",
            # a reporter's or a harness's words around the exception ("An error occurred: X",
            # "Error message: `X: ...`", a dash for the colon; a Markdown list item's marker
            # is the line reader's to drop)
            r"^(?:An error occurred|Error message): `?(?:[A-Za-z_]\w*\.)*[A-Z]\w*"
            r"(?:Error|Exception)(?::| [\u2013-] )",
            # SageMaker's failure reason, which quotes the script's exception line under
            # its own (UnexpectedStatusException, not the script's)
            r'^ErrorMessage "(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): ',
            # the one exception class a script dies of without either word: next() on an
            # exhausted data iterator, outside a generator
            r"^StopIteration(?::|$)",
            # torch.distributed.rpc's thread pool logging the Python exception a remote call
            # raised in a task, which prints no exception line of its own ("[E
            # thread_pool.cpp:112] Exception in thread pool task: TypeError: ..."; an
            # INTERNAL ASSERT there is torch's, LX684)
            r"^Exception in thread pool task: (?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): ",
            # a library's own base class named "Error" or "error" in its module, and zipfile's
            # BadZipFile; not an attribute's annotation in a source line ("self.error: str =
            # None"); Python 2's socket.error is a connection's (the exclusions below)
            rf"^(?!(?:self|cls)\.){MODULE_ERROR}: (?!.* = )",
            # pydantic's link under each error of a ValidationError, which a config check
            # raises: the errors are listed over many lines under the exception's own
            r"^For further information visit https://errors\.pydantic\.dev/",
            # Ray re-raising a remote task's exception at the driver names the worker's class
            # in brackets, often after a progress bar on the same line and with the worker's
            # own exception line cut from a paste: the classes Python code raises (a
            # RuntimeError may be NCCL's or CUDA's, an ImportError a native library's), and
            # pickle's UnpicklingError, a file the script loads that is not a pickle (a
            # Git LFS pointer, a truncated checkpoint), a module the worker's environment
            # lacks and a file or cache it may not write; as a notebook shows it, in the
            # header IPython puts over the traceback
            r"\bRayTaskError\((?:builtins\.)?(?:Index|Key|Value|Type|Attribute|Assertion"
            r"|ZeroDivision|Name|NotImplemented|UnboundLocal|FileNotFound|Unpickling"
            r"|ModuleNotFound|Permission)Error\)(?:: ray::| {2,}Traceback \(most recent call "
            r"last\))",
        ),
        exclude=(
            *_NOT_THE_SCRIPTS,
            _INTERNAL_ASSERT_LINE,
            _HIVEMIND_NO_GROUP,
            _WANDB_INIT_FAILED,
            # torch's multi-process test harness (MultiProcessTestCase's _check_return_codes)
            # reporting that its ranks exited badly: each rank's own exception, where the
            # log holds it, is the cause
            r"^RuntimeError: Process(?:es)? \d+(?:,? \d+)* (?:exited with error code -?\d+"
            r"|terminated or timed out after )",
            r"^AssertionError: .*\bExpected (?:zero )?exit code (?:-?\d+ )?but got -?\d+",
            # ... through torch's TestCase.assertEqual of two exit codes, in torch 1.x's own
            # words with its default tolerance and no message
            r"^AssertionError: -?\d+ not less than or equal to 1e-05 : ?$",
            # an EOFError with no message: multiprocessing's pipe read finding the other end
            # closed (an environment worker, a task sampler, a queue's feeder went away),
            # whose own error, where the log holds it, is the cause; the script's reads of a
            # file raise it with one ("Ran out of input")
            r"^EOFError$",
        ),
        # an exception raised in multiprocessing's spawn _main itself, where the child reads
        # its arguments from the parent ("EOFError: Ran out of input"): the parent died, the
        # child never ran the script (the script's own errors are raised in deeper frames)
        # and an error in a logging handler (the stream or file it writes to failed)
        not_raised_in=(
            r'multiprocessing[/\\]spawn\.py", line \d+, in _main$',
            _LOGGING_HANDLER_FRAME,
            # torch's own multi-process test harness comparing its ranks' exit codes (older
            # test_distributed's _join_and_reduce, common_distributed's _check_return_codes;
            # through TestCase.assertEqual, its message above), and its CI runner's
            # "RuntimeError: test_distributed failed!" after it: a rank's own error, where
            # the log holds it, is the cause
            r'", line \d+, in (?:_check_return_codes|_join_and_reduce)$',
            r'\btest[/\\]run_test\.py", line \d+, in main$',
            # horovodrun's static launch, which raises when it cannot start the workers
            # ("could not connect to some hosts via ssh": LX586 reads why) (not its elastic
            # driver, whose own errors are its bugs)
            r'horovod[/\\]runner[/\\]launch\.py", line \d+, in \w+$',
        ),
        cause="the training script raised an exception on this rank; the other ranks' errors "
        "(connection closed, timeouts) are the consequence.",
        fix="fix the script at the traceback shown for this rank; retrying would run the same "
        "code into the same error.",
        fixtures=(
            "user_code_error__pixelsplat_112_slurm_nodeid.log",
            "user_code_error__lightning_20409_sagemaker_smddp_reduceop.log",
            "user_code_error__transformerlens_356_multi_gpu_tests_assert.log",
            "user_code_error__pytorch_92573_unknown_c10d_backend_mpi.log",
            "user_code_error__verl_4503_vllm_symm_mem_overlapping_devices_ray.log",
            "user_code_error__axolotl_2791_chat_template_pydantic.log",
            "user_code_error__ms_swift_4644.log",
            "user_code_error__hllm_30.log",
            "user_code_error__llamafactory_1860.log",
            "user_code_error__easyr1_24_indexerror_compute_log_probs.log",
            "user_code_error__thunder_368_te_fsdp_unboundlocal.log",
            "user_code_error__deepspeed_5267_mii_replicas.log",
            "user_code_error__stylegan2_320_lmdb_no_such_file.log",
            "user_code_error__miles_66_save_model_unpickling.log",
            "user_code_error__fairscale_173_pipe_eval_rpc.log",
        ),
    ),
    Rule(
        name="torch_internal_assert",
        category="user_code_error",
        code="LX684",
        # the script's exception rule's own priority (LX511 leaves these lines to this rule):
        # an exception printed earlier still comes first
        priority=80,
        retryable=False,
        # TORCH_INTERNAL_ASSERT's text (c10/util/Exception.h; torch 1.6 and older left the
        # file unquoted) on an exception line, or logged by the RPC thread pool ("[E
        # thread_pool.cpp:N] Exception in thread pool task: ..."), which prints no Python
        # exception line; not a warning or a compiler's note that quotes one
        patterns=(
            _INTERNAL_ASSERT_LINE,
            # the assert macro of torch's own sources in old releases (0.4: "torch/csrc/...cpp:
            # 115: get_grad_fn: Assertion `output_nr == 0` failed."), raised as an exception;
            # glibc's assert(), which names the whole C++ signature and aborts, is a native
            # crash's (LX579)
            r"\b(?:torch/csrc|aten/src|c10)/\S+\.(?:cpp|h|cu|cuh):\d+: [^:]+: Assertion `.+[`'] "
            r"failed\.",
        ),
        exclude=_NOT_THE_SCRIPTS,
        cause="one of torch's own consistency checks failed (TORCH_INTERNAL_ASSERT: 'please "
        "report a bug to PyTorch'): the run reached a state torch's code does not expect, a "
        "bug of that torch release or a use it does not check for properly (the text after "
        "the assertion often says which); it usually comes back on the same code path.",
        fix="read the text after 'please report a bug to PyTorch.', which often names the "
        "misuse (e.g. 'Current RPC agent is not set!': call rpc.init_rpc first); search "
        "torch's issue tracker for the assertion's condition and its file:line; try another "
        "torch release.",
        fixtures=(
            "user_code_error__pytorch_53717_rpc_userrref_device_map_assert.log",
            "user_code_error__espnet_279_pytorch_backend_multigpu_get_grad_fn_assert.log",
        ),
    ),
    Rule(
        name="exception_quoted_in_a_line",
        category="user_code_error",
        code="LX803",
        # the lowest of the causes, below the script's own exception line (LX511): a line
        # that only quotes one may sit beside any other failure
        priority=50,
        retryable=False,
        patterns=(
            # a reporter quoting the exception in a sentence that says it is one ("I get an
            # error like \"[rank2]: NotImplementedError: Cannot copy ...\""), or a paste whose
            # line breaks were lost, the traceback and its exception line run into one: the
            # classes only Python code raises, after a space or an opening quote, with the
            # message after (not after a time stamp's digits: a prefix the line reader does
            # not peel)
            # (two ranks writing the same line at once double the class and its colon:
            # "AttributeErrorAttributeError: : 'X' object ...")
            r"(?i:\berror\b|\btraceback\b).*?(?<=[\s\"'`(:])(?<!\d )(?:builtins\.)?"
            rf"(?:{_PYTHON_ONLY_ERRORS})?{_PYTHON_ONLY_ERRORS}(?:: )?: \S",
            # ... and that doubled form anywhere in a line, which says it without the word
            rf"(?<=[\s\"'`(:])(?:builtins\.)?{_PYTHON_ONLY_ERRORS}{_PYTHON_ONLY_ERRORS}: : \S",
        ),
        exclude=_WENT_ON,
        cause="the script raised an exception (the line quotes it: a reporter's sentence, or a "
        "paste whose line breaks were lost); the other ranks' errors are the consequence.",
        fix="fix the script where that exception was raised (the full traceback names the "
        "frame); retrying would run the same code into the same error.",
        fixtures=(
            "user_code_error__qwen_vl_series_finetune_7_meta_tensor_zero3_qlora.log",
            "user_code_error__diffusers_8477_consistency_ddp_config.log",
            "user_code_error__easyr1_44_dataproto_equal_chunk_6_gpus.log",
            "user_code_error__fastchat_1458_zero3_hf_deepspeed_config_orig.log",
            "user_code_error__sd_scripts_1019_sdxl_ti_ddp_text_model.log",
        ),
    ),
    Rule(
        name="python_error_logged_without_class",
        category="user_code_error",
        code="LX802",
        # the lowest of the causes: any other failure the log shows is read before this
        priority=50,
        retryable=False,
        # CPython's own messages for a call or an unpacking that does not fit, which only
        # Python code raises (TypeError, ValueError), on a line a framework's logger or error
        # handler wrote with the message but not the class ("[ERROR] - [rank: 0] Exception
        # caught: not enough values to unpack ...")
        patterns=(
            rf"{_LOGGED_FAILURE}(?:not enough|too many) values to unpack \(expected \d+",
            rf"{_LOGGED_FAILURE}\w+\(\) (?:got an unexpected keyword argument '\w+'"
            r"|missing \d+ required positional arguments?: "
            r"|takes \d+ positional arguments? but \d+ (?:were|was) given)",
        ),
        # (the exception's own line is LX511's)
        exclude=(EXCEPTION_LINE, *_WENT_ON),
        cause="the script (or a library it calls) raised a Python error on this rank, which a "
        "logger reported by its message alone: a call with arguments the function does not "
        "take, or a value unpacked into the wrong number of names; the same code fails the "
        "same way on every run.",
        fix="find the call or the unpacking the message names (the logger's traceback, or "
        "the run again with the handler's re-raise) and fix it or the versions that disagree "
        "on the function's signature.",
        fixtures=("user_code_error__recsys_examples_187_dynamicemb_backward_unpack.log",),
    ),
    Rule(
        name="cufft_internal_error",
        category="cuda_config_error",
        code="LX808",
        # above the user's exception (LX511), whose RuntimeError line this is
        priority=81,
        retryable=False,
        # cuFFT's catch-all status, raised by torch.stft/torch.fft: the cuFFT of CUDA 11.7
        # and older has no kernels for Ada GPUs (RTX 40 series, L4, L40), so every FFT on
        # one fails until torch is built for CUDA 11.8 or newer (pytorch/pytorch#88038); it
        # is also met near the GPU's memory limit (pytorch/pytorch#119420)
        patterns=(r"\bcuFFT error: CUFFT_INTERNAL_ERROR\b",),
        exclude=(*_WENT_ON, r"Warning:"),
        cause="cuFFT failed inside torch's FFT (torch.stft, torch.fft): a torch built for "
        "CUDA 11.7 or older on an Ada GPU (RTX 40 series, L4, L40), whose cuFFT has no "
        "kernels for it, or, more rarely, an FFT planned with almost no GPU memory free; the "
        "first comes back on every run.",
        fix="install a torch built for CUDA 11.8 or newer (pip install torch --index-url "
        "https://download.pytorch.org/whl/cu118 or later; `python -c 'import torch; "
        "print(torch.version.cuda)'` says which); if it already is, leave memory free for "
        "cuFFT's plan (a smaller batch, PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True).",
        fixtures=("cuda_config_error__sovits_109_cufft_internal_error.log",),
    ),
    Rule(
        name="accelerate_deepspeed_several_models",
        category="user_code_error",
        code="LX809",
        # above the AssertionError line that carries it (LX511): the fix is accelerate's
        priority=81,
        retryable=False,
        # accelerate's _prepare_deepspeed, when prepare() is given two models (a UNet and the
        # text encoder it trains too, a policy and its reference) under one DeepSpeed config
        patterns=(
            r"You can't use same `?Accelerator\(\)`? instance with multiple models when using "
            r"DeepSpeed",
        ),
        cause="accelerate was asked to prepare more than one model for DeepSpeed with one "
        "Accelerator and one DeepSpeed config, which it does not do: one DeepSpeed engine "
        "wraps one model; the same configuration fails this way on every run.",
        fix="prepare one model for DeepSpeed: wrap the trained models in one nn.Module, or "
        "train only one (a frozen text encoder or reference model need not be prepared); "
        "recent accelerate releases can hold one DeepSpeed plugin per model (its guide to "
        "several models with DeepSpeed); or use DDP or FSDP, which take several models.",
        fixtures=("user_code_error__shivam_diffusers_241_deepspeed_multiple_models.log",),
    ),
    Rule(
        name="fsdp_forward_without_grad_fn",
        category="user_code_error",
        code="LX804",
        priority=81,
        retryable=False,
        # FSDP's _p_assert prints its message and the stack before it raises, so the words
        # stand on a line of their own (and the AssertionError may be cut from a paste)
        patterns=(
            r"The `grad_fn` is needed to access the `AccumulateGrad` and register the "
            r"post-backward hook",
        ),
        cause="FSDP could not register its post-backward hook: a forward ran with gradients "
        "off for its parameters' views (a forward under torch.inference_mode() earlier, an "
        "evaluation pass whose inference tensors FSDP kept, or a model with no trainable "
        "parameters in an FSDP unit), so the training forward after it has no grad_fn to "
        "hook; the same code fails the same way on every run.",
        fix="run evaluation under torch.no_grad() instead of torch.inference_mode() with FSDP "
        "(or call model.train() and run the training forward first), and make sure each FSDP "
        "unit that runs a training forward has parameters with requires_grad.",
        fixtures=(
            "user_code_error__pytorch_113203_fsdp_inference_mode.log",
            "user_code_error__litgpt_699_fsdp_grad_fn_assert.log",
        ),
    ),
    Rule(
        name="paste_ends_at_raise",
        category="user_code_error",
        code="LX674",
        priority=80,
        retryable=False,
        # a traceback cut after its last frame: the source line raises an exception class
        # with a message written out, and nothing after it in the same log prints an
        # exception (the lines that were not pasted, or not flushed, held it)
        patterns=(
            # (the class Exception itself too; any string prefix, a triple-quoted message,
            # not an empty one)
            r"^\s*raise (?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception)|Exception)\("
            r"\s*(?:[rRbBuUfF]{1,2})?(?:\"{3}|'{3}|[\"'])(?![\"'])",
            # an assert statement with its message written out, which raises AssertionError:
            # the comma outside any bracket or string of the condition (not a tuple's or a
            # call's: assert mode in ("train", "val"))
            r"^\s*assert (?:[^\"'()\[\],]|\([^()]*\)|\[[^\[\]]*\])+, *(?:[rRbBuUfF]{1,2})?"
            r"(?:\"{3}|'{3}|[\"'])(?![\"'])",
        ),
        exclude=_NOT_THE_SCRIPTS,
        # (also a bare Exception's line, its message on the next line when it starts with one)
        not_before=(EXCEPTION_LINE, r"^Exception:(?: |$)"),
        cause="a traceback ends at a raise statement of the script (or a library it calls), "
        "and the exception line that would follow it is not in the log (not pasted, or not "
        "flushed): the exception raised there, named with its message, stopped this rank.",
        fix="fix what the message on that line names (its frame above says where); retrying "
        "would run the same code into the same error.",
        fixtures=(
            "user_code_error__edvr_34_init_dist_context_already_set.log",
            "user_code_error__llamafactory_8323_no_valid_samples.log",
            "user_code_error__graphstorm_773_edge_split_none_no_training_data.log",
        ),
    ),
    Rule(
        name="accelerate_gather_shapes",
        category="user_code_error",
        code="LX675",
        # over LX511, which reads the same line with the frame above it (an earlier line)
        priority=81,
        retryable=False,
        # accelerate's check before a gather or reduce (verify_operation, when its debug
        # mode is on: ACCELERATE_DEBUG_MODE=1 or debug: true in the config): the ranks hold
        # tensors of different shapes, listed per process on the lines below
        patterns=(
            r"Cannot apply desired operation due to shape mismatches\.",
            # the message's own line naming the operation, which a paste keeps when the
            # exception's line above it is cut
            r"^Operation: `?accelerate\.utils\.operations\.\w+`?$",
        ),
        cause="accelerate refused a gather across processes because the ranks hold tensors of "
        "different shapes (listed per process under the message): outputs padded to each "
        "rank's own longest sequence, or the last batch of a loader that does not even out "
        "the ranks (even_batches=False, or one accelerate did not prepare); without the check "
        "the collective would hang or fail in NCCL.",
        fix="pad to one shape before gathering (accelerator.pad_across_processes(t, dim=1)), "
        "or gather Python objects instead of tensors (gather_object, or "
        "gather_for_metrics(..., use_gather_object=True) where the release has it); the same "
        "data fails the same way again.",
        fixtures=(
            "user_code_error__lighteval_204_mmlu_gather_shape_mismatch.log",
            "user_code_error__digirl_42_accelerate_broadcast_shapes.log",
        ),
    ),
    Rule(
        name="dataloader_worker_raised",
        category="user_code_error",
        code="LX673",
        # the bottom of the root causes' tier: the worker's own traceback follows the line,
        # and its exception (a CUDA error, a full /dev/shm) decides where it was kept; this
        # says only that the Dataset's code raised, which still outweighs another rank's
        # closed connection or timeout
        priority=50,
        retryable=False,
        patterns=(
            # under any exception class, a library's whose name ends in neither word too,
            # under its module's name ("zipfile.BadZipFile: Caught BadZipFile ...",
            # "cv2.error: Caught error ...")
            rf"(?:{EXCEPTION_LINE}|^(?:[A-Za-z_]\w*\.)+\w+): Caught (?:[A-Za-z_]\w*\.)*\w+ in "
            r"DataLoader worker process \d+",
            # ... and the loader's message alone, where a paste cut the class before it
            r"^(?:: )?Caught (?:[A-Za-z_]\w*\.)*\w+ in DataLoader worker process \d+",
        ),
        # (not a worker's fetch over the network that failed: a dataset streamed from a hub)
        exclude=(
            r"Caught \w*(?:Connect|Disconnect|Timeout|Socket|HTTP|URL|SSL|ChunkedEncoding"
            r"|IncompleteRead|ProtocolError|Remote)",
        ),
        cause="a DataLoader worker raised an exception in the Dataset's code (__getitem__, a "
        "transform, a collate function) and the loader re-raised it in the training process; "
        'its own traceback, under "Original Traceback", says which (an unreadable file, a '
        "sample of the wrong shape); the same sample fails the same way again.",
        fix="read the worker's traceback below the line; reproduce with num_workers=0 to get "
        "it directly; skip or repair the sample it names (a corrupt image, an empty text), or "
        "fix the transform.",
        fixtures=(
            "user_code_error__deit_76_mpirun_pil_cannot_identify_image.log",
            "user_code_error__sapcu_12_npz_badzip_crc_worker.log",
            "user_code_error__mmdet_10620_cv2_dataloader_worker.log",
        ),
    ),
    Rule(
        name="user_error_logged",
        category="user_code_error",
        code="LX646",
        # a symptom's tier, below every other reading: these words sit anywhere in a line,
        # and a wrapper that logs them may go on (a fallback path), so any other failure in
        # the log decides first
        priority=39,
        retryable=False,
        patterns=(
            # torch's errors for tensors whose shapes do not fit, quoted by a wrapper that
            # logs them without the class or by a reporter's sentence: a view or reshape, a
            # broadcast, a matmul, a cat
            r"\bshape '\[[-\d, ]*\]' is invalid for input of size \d+",
            r"\bThe size of tensor a \(\d+\) must match the size of tensor b \(\d+\) at "
            r"non-singleton dimension \d+",
            r"\bmat1 and mat2 shapes cannot be multiplied \(\d+x\d+ and \d+x\d+\)",
            r"\bSizes of tensors must match except in dimension \d+",
            # a framework's check of its parallel layout against the launched world, logged
            # without the class ("World size 2 must be divisible by the product of ...")
            r"\b[Ww]orld[ _]size \(?\d+\)? must be divisible by\b",
        ),
        # (not a warning: a wrapper that skips the failed item and goes on is read, as its
        # log's whole failure is often that item)
        exclude=(r"(?i)\bwarn|Warning:",),
        cause="the script (or its framework) logged one of torch's own errors without its "
        "exception line: tensors whose shapes do not fit (a reshape to a size the data does "
        "not have, a broadcast, a matmul or a cat of mismatched sizes: a model and its "
        "inputs or checkpoint that disagree), or a parallel layout whose degrees do not "
        "divide the number of ranks launched; nothing else in the log explains the failure "
        "better, and the same run fails the same way.",
        fix="for the reshape, check that the model, its config and its inputs agree (a "
        "processor or checkpoint of another model version); for the layout, launch a number "
        "of ranks that the product of the tensor, pipeline, context and data-parallel "
        "degrees divides, or change the degrees to fit the ranks.",
        fixtures=(
            "user_code_error__vlmevalkit_975_torchrun_qwen25vl_shape.log",
            "user_code_error__finetrainers_408_world_size_not_divisible_by_degrees.log",
            "user_code_error__autorecon_21_ddp_tensor_size.log",
        ),
    ),
    Rule(
        name="init_method_unknown_scheme",
        category="user_code_error",
        code="LX627",
        # above the user's exception rule (LX511), which leaves rendezvous words alone; a
        # build without tcp:// or env:// is LX770's
        priority=82,
        retryable=False,
        patterns=(r"No rendezvous handler for (?!tcp://|env://)[\w+.-]*://",),
        cause="init_process_group was given an init_method whose scheme torch does not know: "
        "'://' alone is an empty URL (a --dist-url or a variable that was never set, or "
        "pasted together from empty parts), anything else is a typo or a scheme this torch "
        "has no handler for; it fails on every rank before any communication, on every start.",
        fix="pass init_method='env://' under a launcher (MASTER_ADDR, MASTER_PORT, RANK and "
        "WORLD_SIZE come from it) or a full 'tcp://host:port'; print the URL the script builds "
        "before init_process_group to find the part that is empty.",
        fixtures=("user_code_error__swav_10_no_rendezvous_handler_colab.log",),
    ),
    Rule(
        name="http_request_failed",
        category="user_code_error",
        code="LX588",
        # above the user's exception rule (LX511), which names the same line without saying
        # what failed, and which leaves the "connection" lines to the network rules
        priority=82,
        patterns=(
            # the exception that ended the rank (not urllib3's or the Hub's warning that it
            # retries): requests/urllib3 wrapping the socket's error, transformers' message
            rf"{EXCEPTION_LINE}: \('Connection aborted\.', "
            r"(?:ConnectionResetError|RemoteDisconnected|BrokenPipeError|ConnectionRefusedError)",
            rf"{EXCEPTION_LINE}: .*HTTPS?ConnectionPool\(host='[^']*', "
            r"port=\d+\): Max retries exceeded with url",
            rf"{EXCEPTION_LINE}: We couldn't connect to 'https?://[^']*' to load\b",
        ),
        exclude=(_HTTP_RETRY_WARNING,),
        cause="the script's own HTTP request failed (a download from a model hub, a logger's "
        "or an API's call): the connection to a web server was refused, reset or never made, "
        "not a connection between ranks; one rank's failure took the others down.",
        fix="download what the script fetches before the run and read it from disk "
        "(huggingface-cli download ...; then HF_HUB_OFFLINE=1 and TRANSFORMERS_OFFLINE=1 in "
        "the profile's env), set HTTPS_PROXY where nodes reach the internet only through a "
        "proxy, or turn the online logger off (WANDB_MODE=offline).",
        fixtures=("user_code_error__fastchat_1951_finetune_connection_reset.log",),
    ),
    Rule(
        name="backend_lacks_operation",
        category="user_code_error",
        code="LX591",
        priority=82,
        retryable=False,
        patterns=(r"(?:ProcessGroup\w+|Backend \w+) does not support \w+",),
        cause="the script calls a collective that its process-group backend does not have in "
        "this torch (old PyTorch's ProcessGroupNCCL had no barrier, gather or scatter; older "
        "gloo had no reduce_scatter; a third-party backend lacks an operation): the call "
        "fails the same way on every run.",
        fix="upgrade torch (the operations missing from its backends were added release by "
        "release), use a backend that has the operation for these tensors (nccl for GPU "
        "tensors: init_process_group(backend='cpu:gloo,cuda:nccl')), or replace the call (a "
        "barrier by an all_reduce of a one-element tensor).",
        fixtures=("user_code_error__pytorch_17848_processgroupnccl_no_barrier.log",),
    ),
    Rule(
        name="launcher_environment_missing",
        category="user_code_error",
        code="LX583",
        priority=81,
        retryable=False,
        patterns=(
            r"Error initializing torch\.distributed using env:// rendezvous: environment "
            r"variable \w+ expected, but not set",
            r"^KeyError: '(?:LOCAL_RANK|RANK|WORLD_SIZE|LOCAL_WORLD_SIZE|MASTER_ADDR"
            r"|MASTER_PORT)'$",
            # the env:// handler's raise in its frame (rendezvous.py's _get_env_or_raise, which
            # raises only for a variable not set), where a paste stops before the exception
            r"^\s*raise _env_error\(env_var\)$",
        ),
        cause="the script reads the variables a launcher sets for each rank (RANK, LOCAL_RANK, "
        "WORLD_SIZE, MASTER_ADDR, MASTER_PORT), and nothing set them: it was started with "
        "plain python (or, before torch 1.9, with torch.distributed.launch without --use_env, "
        "which passed --local_rank instead of LOCAL_RANK); every start fails the same way.",
        fix="start it with `launchx run train.py` (or torchrun), which sets them for every "
        "rank; under SLURM use `launchx sbatch` or the slurm profile; a script that must "
        "also run alone can fall back (int(os.environ.get('LOCAL_RANK', 0))), as "
        "launchx.runtime.init_distributed() does.",
        fixtures=(
            "user_code_error__pytorch_39832_rpc_env_master_addr_not_set.log",
            "user_code_error__deeplogo2_4_master_addr_not_set_slurm.log",
        ),
    ),
    Rule(
        name="default_group_not_initialized",
        category="user_code_error",
        code="LX744",
        priority=81,
        retryable=False,
        patterns=(
            # distributed_c10d.py's _get_default_group (a RuntimeError in torch 1.x, a
            # ValueError in 2.x; the older "is not initialized" of its assertion and of c10d's
            # TORCH_CHECK), as the exception itself, its repr, or the raise line in its frame
            r"(?:Error|Exception)(?:: |\(['\"])Default process group (?:has not been|is not) "
            r"initialized",
            # deepspeed.comm's own check, called before deepspeed.init_distributed(): as the
            # exception, as a line alone (a paste of its message only) or as the assertion's
            # source line in its frame
            r"(?:^|(?:Error|Exception)(?:: |\(['\"])|\bis_initialized\(\), ['\"])DeepSpeed "
            r"backend not set, please initialize it using init_process_group\(\)",
            # a harness that caught it and reports that the task failed ("... combination
            # failed: Default process group ..."): the word "failed" is what makes it the end
            # of the work, not a notice that the script goes on alone
            r"\bfailed: Default process group (?:has not been|is not) initialized",
        ),
        # a warning that quotes the error it caught and went on
        exclude=(r"Warning\b|\bWARNING\b",),
        # the same error raised by a cleanup after another one ("During handling of the above
        # exception"): the first exception is the cause
        not_after=(r"^During handling of the above exception, another exception occurred:$",),
        cause="a torch.distributed call (a barrier, a collective, get_rank, DDP or a "
        "DistributedSampler) ran in a process that had not joined a process group: "
        "init_process_group was not called, or not yet, or the script saw no launcher's "
        "variables (RANK, WORLD_SIZE) and took its single-process path (an OpenMMLab script "
        "run without --launcher pytorch); a script that never calls it fails the same way on "
        "every start.",
        fix="start the script with `launchx run train.py` (or torchrun) and call "
        "launchx.runtime.init_distributed() (which also sets up a world of one when the "
        "script runs alone) or torch.distributed.init_process_group before the first "
        "collective; under DeepSpeed call deepspeed.init_distributed() first; code that must "
        "also run alone without either guards its collectives with "
        "torch.distributed.is_initialized().",
        fixtures=(
            "user_code_error__vlmevalkit_564.log",
            "user_code_error__nanogpt_289_default_pg_not_initialized.log",
            "user_code_error__yolox_1474_default_pg_not_initialized_driver_log.log",
            "user_code_error__pytorch_45117.log",
            "user_code_error__glm_111.log",
        ),
    ),
    Rule(
        name="init_method_incomplete",
        category="user_code_error",
        code="LX682",
        priority=81,
        retryable=False,
        patterns=(
            # torch/distributed/rendezvous.py's checks of a file:// or tcp:// init_method
            r"Error initializing torch\.distributed using (?:file|tcp):// rendezvous: "
            r"(?:path|port number|rank parameter|world size parameter) missing",
        ),
        cause="init_process_group was given a file:// or tcp:// init_method it cannot use: "
        "the URL has no path (file://) or no port (tcp://host), or the call passed no rank "
        "or world_size (init_process_group adds them to the URL only when they are given); "
        "every start fails the same way.",
        fix="give init_process_group a whole URL (file:///shared/path/initfile, reachable by "
        "every rank; tcp://MASTER_ADDR:PORT) with rank= and world_size=, or use "
        "init_method='env://' under `launchx run` (or torchrun), which sets RANK, WORLD_SIZE, "
        "MASTER_ADDR and MASTER_PORT for every rank.",
        fixtures=("user_code_error__wenet_1855_file_rendezvous_path_missing.log",),
    ),
    Rule(
        name="nonfinite_numbers",
        category="user_code_error",
        code="LX570",
        priority=81,
        retryable=False,
        patterns=(
            r"^(?:[A-Za-z_]\w*\.)*FloatingPointError:",
            r"Function '\w+' returned nan values in its \d+th output",
        ),
        cause="the loss or the gradients became NaN or infinite (a diverging run: a learning "
        "rate too high, fp16 overflow, a bad batch), or a check on them failed (ranks whose "
        "gradient norms disagree); from the same checkpoint and seed it happens at the same "
        "step again.",
        fix="lower the learning rate or warm it up, clip gradients, train in bf16 or with "
        "dynamic loss scaling, and find the first non-finite value with "
        "torch.autograd.set_detect_anomaly(True) on a short run; resume from a checkpoint "
        "before the divergence.",
        fixtures=("user_code_error__fairseq_1372_grad_norm_nan_all_workers.log",),
    ),
    Rule(
        name="rendezvous_closed",
        category="world_mismatch",
        code="LX545",
        priority=72,
        patterns=(
            r"RendezvousClosedError",
            r"RendezvousGracefulExitError: The rendezvous '\S+' is closed",
        ),
        cause="the elastic rendezvous this agent tried to join was already closed: the job "
        "finished or was scaled down, or agents of an earlier run with the same --rdzv-id are "
        "still around; rejoining fails the same way every time.",
        fix="start every node with a fresh --rdzv-id (launchx: a new run id), stop leftover "
        "agents of the earlier run, and with an etcd/c10d store that outlives jobs remove "
        "the old rendezvous state.",
        fixtures=(
            "world_mismatch__kubeflow_1638_etcd_rdzv_closed.log",
            "world_mismatch__pytorch_91943_elastic_scale_down.log",
        ),
    ),
    Rule(
        name="store_barrier_overfull",
        category="world_mismatch",
        code="LX546",
        priority=72,
        patterns=(
            r"(?:on rank:? (?P<rank>\d+), for key: )?store_based_barrier_key:\d+ "
            r"\(world_size=(?P<world>\d+), (?:worker_count|num_workers_joined)=(?P<joined>\d+)",
        ),
        compare=("joined", "world"),
        cause="more processes joined the store-based barrier than the world has: processes of "
        "another run (or a stale file:// / TCP store left by one) share this run's store, or "
        "ranks were given the wrong WORLD_SIZE.",
        fix="use a fresh store for every run (a new MASTER_PORT, or delete the file of a "
        "file:// init method before starting), and give every process the same WORLD_SIZE.",
        fixtures=("world_mismatch__powersgd_21_stale_file_store.log",),
    ),
    Rule(
        name="local_rank_not_rank_mod_devices",
        category="world_mismatch",
        code="LX775",
        # above the AssertionError (or ValueError) line that carries it (LX511)
        priority=81,
        retryable=False,
        patterns=(
            # Megatron-LM's initialize.py (and Megatron-DeepSpeed's, NeMo's and their forks'):
            # each rank takes GPU rank % torch.cuda.device_count() and checks that the
            # launcher's LOCAL_RANK agrees
            r"expected local-rank to be the same as rank % device-count",
        ),
        cause="Megatron picks each rank's GPU as its global rank modulo the GPUs it sees and "
        "asserts that this equals the launcher's LOCAL_RANK; they differ when each process "
        "sees only its own GPU (CUDA_VISIBLE_DEVICES set per rank, Slurm's "
        "--gpus-per-task=1: the count is 1, so every local rank but 0 fails), when a node "
        "runs fewer processes than it has visible GPUs (--nproc-per-node 4 on 8 GPUs fails "
        "from the second node on), when nodes see different numbers of GPUs, or when ranks "
        "are not numbered node by node; every start fails the same way.",
        fix="let every process see all of its node's GPUs and run one process per GPU "
        "(--nproc-per-node equal to the GPU count, no per-rank CUDA_VISIBLE_DEVICES or "
        "--gpus-per-task), give every node the same number of GPUs, and let torchrun "
        "(launchx run) number the ranks node by node.",
        fixtures=("world_mismatch__deepspeed_3408_local_rank_device_count.log",),
    ),
    Rule(
        name="group_outside_world",
        category="world_mismatch",
        code="LX592",
        priority=82,
        retryable=False,
        patterns=(
            # distributed_c10d.new_group's sanity checks (some releases say "the the")
            r"new group's rank should be within the (?:the )?world_size set by "
            r"(?:init|new)_process_group",
            r"new group's world_size should be less or equal to the world size set by "
            r"init_process_group",
            # NCCL's init.cc: a rank number at or beyond the communicator's size
            r"NCCL WARN Invalid rank requested : \d+/\d+",
        ),
        cause="the script builds a process group (a device mesh, a tensor- or pipeline-parallel "
        "group) over ranks that this world does not have: it was written for more processes "
        "than were launched (a mesh of 4 on 2 GPUs), so it fails the same way on every start.",
        fix="launch the number of processes the script's parallel layout needs (launchx run "
        "--nproc-per-node N, --nnodes M), or shrink the layout (mesh shape, tensor/pipeline "
        "parallel sizes) so its product divides the world size.",
        fixtures=(
            "world_mismatch__colossalai_2910_group_rank_outside_world.log",
            "world_mismatch__hybrik_47_invalid_rank_7_of_4.log",
        ),
    ),
    Rule(
        name="peer_outside_group",
        category="user_code_error",
        code="LX603",
        priority=82,
        retryable=False,
        patterns=(
            # distributed_c10d's translation of a global rank into a group's (and back): a
            # collective's src/dst, or get_global_rank's argument, outside the group passed
            r"(?:The )?[Gg]lobal rank -?\d+ is not part of (?:the )?group",
            r"Group rank -?\d+ is not part of group",
        ),
        cause="the code calls a collective on a subgroup (broadcast, scatter, gather, send) "
        "with a src or dst that names a global rank outside that group (src=0 on a group "
        "without rank 0), a bug in the script or the framework that builds the group; every "
        "start fails the same way.",
        fix="pass a member's global rank (dist.get_global_rank(group, 0)), or the group-local "
        "rank as group_src=/group_dst= on torch 2.6 and later; check that the ranks listed in "
        "new_group()/the device mesh are the ones the collective expects.",
        fixtures=("user_code_error__fastmoe_119_local_ddp_rank_not_in_group.log",),
    ),
    Rule(
        name="ddp_unused_parameters",
        category="user_code_error",
        code="LX606",
        # above the user's exception (LX511), which names the same RuntimeError without what
        # to change; DDP's reducer raises it on the iteration after the one that left some
        # parameters without a gradient
        priority=82,
        retryable=False,
        patterns=(
            # the rank the check names, on the line before the tail below (a wrapped message
            # whose lines hold no anchor of their own)
            r"did not receive grad for rank (?P<rank>\d+):[\d ,]*\s?In addition, you can set "
            r"the environment variable TORCH_DISTRIBUTED_DEBUG",
            # the same rank at the message's end when TORCH_DISTRIBUTED_DEBUG is set, lines
            # below the exception line
            r"^Parameter(?:s| indices) which did not receive grad for rank (?P<rank>\d+):",
            r"Expected to have finished reduction in the prior iteration before starting a "
            r"new one",
            # the tail of the same message, when a paste or an interleaved rank cut its head
            r"which particular parameters did not receive gradient on this rank as part of "
            r"this error",
        ),
        cause="DistributedDataParallel found parameters that received no gradient in the "
        "last backward pass (a head, a branch or a frozen layer that the loss never used), so "
        "its gradient reduction never finished; it comes back whenever a batch leaves them "
        "unused.",
        fix="make every output that holds parameters feed the loss (torch's message says so "
        "when find_unused_parameters is already on: then return only the outputs the loss "
        "uses), or pass "
        "find_unused_parameters=True (HF Trainer: ddp_find_unused_parameters=True; accelerate: "
        "DistributedDataParallelKwargs(find_unused_parameters=True); Lightning: "
        "strategy='ddp_find_unused_parameters_true'); TORCH_DISTRIBUTED_DEBUG=DETAIL in the "
        "profile's env names the parameters.",
        fixtures=(
            "user_code_error__mmdetection_2377_unused_parameters.log",
            "user_code_error__monailabel_492_dynunet_ddp_unused_parameters.log",
            "user_code_error__tune_a_video_78_accelerate_unused_params.log",
        ),
    ),
    Rule(
        name="ddp_parameter_ready_twice",
        category="user_code_error",
        code="LX607",
        priority=82,
        retryable=False,
        patterns=(
            r"Expected to mark a variable ready only once",
            # the reducer's next sentence, where a paste starts after the first
            r"Parameter at index \d+ (?:with name \S+ )?has been marked as ready twice\.",
        ),
        cause="DistributedDataParallel saw one parameter's gradient become ready twice in one "
        "backward pass: most often reentrant gradient checkpointing re-running a block's "
        "forward inside backward (LoRA and PEFT fine-tuning), or a parameter used outside "
        "forward or shared by concurrent forward-backward passes; every start fails at the "
        "same step.",
        fix="turn off reentrant checkpointing (HF: gradient_checkpointing_kwargs="
        "{'use_reentrant': False}; torch.utils.checkpoint(..., use_reentrant=False)), or wrap "
        "with DistributedDataParallel(static_graph=True) and leave find_unused_parameters off "
        "(HF Trainer: ddp_find_unused_parameters=False).",
        fixtures=(
            "user_code_error__peft_301_trainer_ddp_gradckpt_ready_once.log",
            "user_code_error__transformers_23728_lora_ddp_marked_ready_twice.log",
            "user_code_error__chatglm_efficient_tuning_114_marked_ready_twice.log",
        ),
    ),
    Rule(
        name="ddp_params_differ",
        category="user_code_error",
        code="LX611",
        priority=82,
        retryable=False,
        patterns=(
            # DDP's construction-time check (reducer.cpp); the logger-backed check puts the
            # failing rank in front of the message ("[2]: params[4] ...")
            r"(?:\[(?P<rank>\d+)\]: )?(?:params|replicas\[0\])\[\d+\] in this process with "
            r"(?:sizes|strides) .*appears not to match (?:sizes|strides) of the same param in "
            r"process 0",
        ),
        cause="DistributedDataParallel found a parameter whose shape (or memory layout) on "
        "this rank differs from rank 0's: the ranks built different models (a config, a "
        "random architecture choice or a checkpoint read on one rank only), or one rank's "
        "weights are channels-last or non-contiguous; every start fails the same way.",
        fix="build the same model on every rank before wrapping it (the same config and seed, "
        "the checkpoint loaded on every rank or broadcast from rank 0); make the parameters "
        "contiguous (p.data = p.data.contiguous()) or give every rank the same memory format.",
        fixtures=("user_code_error__mcuformer_2_supernet_ddp_param_sizes_mismatch.log",),
    ),
    Rule(
        name="state_dict_shape_mismatch",
        category="user_code_error",
        code="LX756",
        priority=82,
        retryable=False,
        # load_state_dict's per-parameter lines under "Error(s) in loading state_dict", which
        # a paste often keeps without the exception line above them (a rank prefix on each)
        patterns=(
            r"(?<!\S)size mismatch for [^\s:]+: copying a param with shape "
            r"torch\.Size\(\[[\d, ]*\]\) from checkpoint, the shape in current model is "
            r"torch\.Size\(",
        ),
        cause="load_state_dict found parameters whose shape in the checkpoint differs from the "
        "model that was built: a checkpoint of another model size or config, a vocabulary or "
        "head resized on one side only, or (a current shape of torch.Size([0])) a ZeRO-3 "
        "partitioned model loaded with a plain load_state_dict; every start fails the same "
        "way.",
        fix="build the model from the checkpoint's own config (the same hidden size, layers "
        "and vocabulary); where some layers are meant to differ, drop the mismatched keys "
        "before loading (keep those whose shape equals model.state_dict()[k].shape, then "
        "strict=False: strict alone does not pass a size mismatch) or, with Hugging Face, "
        "from_pretrained(..., ignore_mismatched_sizes=True); under DeepSpeed ZeRO-3 (a model "
        "built under zero.Init, as from_pretrained does with a ZeRO-3 config) load inside "
        "deepspeed.zero.GatheredParameters(list(model.parameters()), modifier_rank=0).",
        fixtures=(
            "user_code_error__deepspeed_5570_state_dict_size_mismatch.log",
            "user_code_error__vlm_r1_85_zero3_size_mismatch_empty.log",
        ),
    ),
    Rule(
        name="process_group_url_none",
        category="user_code_error",
        code="LX618",
        priority=82,
        retryable=False,
        # detectron2's launch() (and maskrcnn-benchmark's, and the many copies of it) logs
        # the URL only when init_process_group raised; None means no URL ever reached it
        patterns=(r"Process group URL: None\s*$",),
        cause="the script's launch helper (detectron2's launch(), maskrcnn-benchmark's or a "
        "copy of it) called init_process_group with no init_method: no --dist-url reached "
        "it, so torch fell back to env:// and found no MASTER_ADDR; every start fails the "
        "same way.",
        fix="pass the URL as the script's --dist-url argument (tcp://127.0.0.1:<free port>, or "
        "auto for detectron2), not as a config option; or start the ranks with `launchx run` "
        "and give the helper env:// so it reads MASTER_ADDR and MASTER_PORT.",
        fixtures=("user_code_error__detectron2_753_launch_dist_url_none.log",),
    ),
    Rule(
        name="mpirun_not_enough_slots",
        category="world_mismatch",
        code="LX598",
        priority=82,
        retryable=False,
        patterns=(r"There are not enough slots available in the system to satisfy the \d+",),
        cause="mpirun was asked for more processes (-np) than its allocation has slots (the "
        "hostfile's slots=, --host's :N, or the Slurm/PBS/LSF allocation it runs in), so it "
        "started none; the same command fails the same way until the two agree.",
        fix="ask for as many processes as the allocation gives (-np = nodes x tasks per node, "
        "e.g. sbatch --ntasks-per-node=<GPUs per node>), add slots to the hostfile, or let "
        "`launchx run` start one process per GPU itself.",
        fixtures=("world_mismatch__bevfusion_277_torchpack_mpirun_slots.log",),
    ),
    Rule(
        name="mpirun_executable_not_found",
        category="launcher_died",
        code="LX696",
        priority=82,
        retryable=False,
        patterns=(
            # Open MPI's help text; the next lines name the executable and the node
            r"\b(?:mpirun|mpiexec|orterun|prterun) was unable to find the specified "
            r"executable file, and therefore",
            # ... and its sibling for a program it did not find or may not run
            r"was unable to launch the specified application as it could not (?:access|find)",
        ),
        cause="Open MPI started no process: the program it was given is not on the node's "
        "PATH (or not there at all), is there but not executable (a script without execute "
        "permission or a #! line, given as the program instead of to python), or it took a "
        "word of the command line for the program (an option this version does not take, a "
        "misspelled flag, an option missing its value: its help text says it reads the "
        "first word it does not know as the program); the same command fails the same way.",
        fix="check the command line against mpirun --help of this Open MPI: options before "
        "the program, each with its value (-x VAR, -np N), the program by absolute path or "
        "as `python train.py` (not ./train.py); a wrapper that writes the command line "
        "(torchpack, horovodrun) must match this MPI; or start the ranks with `launchx run`, "
        "which needs no MPI.",
        fixtures=(
            "launcher_died__horovod_347.log",
            "launcher_died__dd3d_6_mpirun_cannot_execute_script.log",
        ),
    ),
    Rule(
        name="mpirun_refuses_root",
        category="launcher_died",
        code="LX784",
        priority=82,
        retryable=False,
        patterns=(
            # Open MPI's guard against running as root (mpirun/orterun; prterun in Open MPI 5),
            # hit in containers and notebooks that run as root: no process starts
            r"has detected an attempt to run as root\b",
        ),
        cause="Open MPI's mpirun refuses to start anything as root, and this launch runs as "
        "root (a container, Colab, a cloud image), so no rank ran; every start from the same "
        "account fails the same way.",
        fix="run as an ordinary user, or allow it for this launch: --allow-run-as-root on the "
        "mpirun line itself (not on the training script's command line), or "
        "OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 in its environment; "
        "or start the ranks with torchrun (`launchx run`), which needs no MPI.",
        fixtures=("launcher_died__fedml_456_mpirun_run_as_root.log",),
    ),
    Rule(
        name="launch_command_not_found_127",
        category="launcher_died",
        code="LX778",
        # under every rule that reads the shell's own "command not found" line (LX773's,
        # LX589's): this is only the exit status a wrapper reports for it
        priority=45,
        retryable=False,
        patterns=(
            # DeepSpeed-Chat's train.py running each step's shell script, and a wrapper's
            # subprocess.run(..., check=True) (CalledProcessError): 127 is the shell's status
            # for a command it did not find
            r"^RuntimeError: Step \d exited with non-zero status 127$",
            r"CalledProcessError: Command .*(?:torchrun|deepspeed|accelerate|mpirun|srun"
            r"|python[\d.]*|\.sh)\b.* returned non-zero exit status 127\.",
        ),
        cause="a wrapper ran the launch command through a shell, which exited with status "
        "127: it found no such command (the deepspeed, torchrun or accelerate launcher not "
        "installed in this environment or not on PATH, a script path that does not exist), "
        "or the program's own libraries did not load (\"error while loading shared "
        'libraries"), so no rank ran; it fails the same way on every start.',
        fix="run the launch command alone in the same shell to see the missing name (`which "
        "deepspeed torchrun`), activate the environment that has the launcher (or call it "
        "as python -m deepspeed.launcher.runner / python -m torch.distributed.run), fix "
        "the script's path, and check the program's libraries with `ldd`.",
        fixtures=("launcher_died__deepspeed_3246_chat_step1_status127.log",),
    ),
    Rule(
        name="mpirun_daemons_not_started",
        category="launcher_died",
        code="LX716",
        priority=82,
        retryable=False,
        patterns=(
            # Open MPI's mpirun (ORTE; PRRTE since Open MPI 5) could not start its daemon on
            # the other nodes, so no rank ran there
            r"^(?:ORTE|PRTE|PRRTE) was unable to reliably start one or more daemons\.",
            # ... or could not start them at all: the remote shell it starts them with (ssh,
            # rsh) is not installed, as in a container, and the help text says so first
            r"The value of the MCA parameter \"plm_rsh_agent\" was set to a path",
        ),
        cause="mpirun could not start its daemon (orted, prted) on one or more of the other "
        "nodes, so no rank ran there: the daemon or its libraries are not found on the remote "
        "node's PATH / LD_LIBRARY_PATH (another install path there), no ssh or rsh is "
        "installed to start it with (plm_rsh_agent: a container, where it fails on a single "
        "node too), ssh to the node is not allowed without a password, or the node cannot "
        "write its session files to /tmp; every start fails the same way until that is "
        "fixed.",
        fix="run `ssh <node> which orted` (prted with Open MPI 5) from the launching node, and "
        "install an ssh client in an image that has none; "
        "start mpirun with --prefix <the Open MPI install> (or build Open MPI with "
        "--enable-orterun-prefix-by-default), set passwordless ssh, and check /tmp on the "
        "nodes; under Slurm or Kubernetes, let the scheduler start the daemons (srun, the MPI "
        "operator) instead of ssh.",
        fixtures=(
            "launcher_died__tensorrtllm_backend_698.log",
            "launcher_died__improved_diffusion_125_plm_rsh_agent.log",
        ),
    ),
    Rule(
        name="sampler_rank_outside_world",
        category="world_mismatch",
        code="LX624",
        priority=83,
        retryable=False,
        patterns=(
            # torch.utils.data.DistributedSampler's own check of rank < num_replicas
            r"ValueError: Invalid rank (?P<rank>\d+), rank should be in the interval "
            r"\[0, \d+\]",
        ),
        cause="a DistributedSampler was built with fewer replicas than the launch has ranks "
        "(num_replicas computed from a node or device count that differs from the launcher's "
        "world size, or passed by hand), so a rank beyond it was refused; the same launch "
        "fails the same way.",
        fix="build the sampler with num_replicas=dist.get_world_size() and "
        "rank=dist.get_rank() (or leave both out); in Lightning make num_nodes and devices "
        "match what the launcher starts (`launchx explain` shows the world it will launch).",
        fixtures=("world_mismatch__lightning_19961_sampler_invalid_rank.log",),
    ),
    Rule(
        name="mpi_world_unlike_torch",
        category="world_mismatch",
        code="LX628",
        priority=82,
        retryable=False,
        patterns=(
            # DeepSpeed's mpi_discovery: the ranks mpirun started against the world the
            # script's own init_process_group built
            r"MPI world size \d+ does not match torch world size \d+",
            r"MPI rank \d+ does not match torch rank \d+",
        ),
        cause="the job was started by mpirun, and DeepSpeed's MPI discovery found another "
        "world (or rank) than torch.distributed had already been set up with: the script "
        "initialised the process group itself from its own WORLD_SIZE/RANK (or its launcher "
        "script's), not from the MPI ranks; it fails the same way on every start.",
        fix="let one launcher own the world: start the script with the deepspeed launcher "
        "(or `launchx run`) instead of mpirun, or drop the script's own "
        "init_process_group and call deepspeed.init_distributed() so it reads the MPI "
        "ranks; check that -np equals nodes x GPUs per node.",
        fixtures=("world_mismatch__deepspeed_461_mpirun_mpi_world_size.log",),
    ),
    Rule(
        name="trtllm_engine_world",
        category="world_mismatch",
        code="LX634",
        priority=82,
        retryable=False,
        patterns=(
            # TensorRT-LLM's runners check the engine's tp x pp against the MPI world they
            # run in (examples/run.py, runtime/model_runner.py, the older per-model scripts)
            r"Engine world size \(\d+(?: \* \d+)?\) != Runtime world size \(\d+\)",
        ),
        cause="the TensorRT-LLM engine was built for one number of GPUs (tensor x pipeline "
        "parallel) and runs in an MPI world of another: it was started without mpirun or "
        "with another -n, or mpi4py was built against a different MPI than the mpirun that "
        "started it, so every process sees a world of 1. It fails the same way on every start.",
        fix="start it with `mpirun -n <tp x pp>` (the numbers in the message; under Slurm "
        "`srun --mpi=pmix`, since srun without an MPI plugin gives each process a world of "
        "1); when that already is the command, check that `mpirun -n 2 python -c 'from "
        "mpi4py import MPI; print(MPI.COMM_WORLD.size)'` prints 2 twice, and reinstall "
        "mpi4py against that MPI if not; or rebuild the engine for the GPUs the run has.",
        fixtures=("world_mismatch__tensorrt_llm_753_engine_world_size_vs_mpi_world_size.log",),
    ),
    Rule(
        name="vllm_parallel_world",
        category="world_mismatch",
        code="LX687",
        priority=82,
        retryable=False,
        patterns=(
            # vLLM's parallel_state: the torch world it was started in against the tensor x
            # pipeline parallel sizes it was asked for
            r"world_size \(\d+\) is not equal to tensor_model_parallel_size \(\d+\) x "
            r"pipeline_model_parallel_size \(\d+\)",
            # TensorRT-LLM's: the MPI world it was started in against the engine's sizes
            r"Assertion failed: mpiSize == tp \* pp\b",
        ),
        cause="vLLM (or SGLang, whose check says the same; TensorRT-LLM's says it of its MPI "
        "world) was started inside a torch world of another size than its tensor x pipeline "
        "parallel sizes: an engine built in every "
        "process of a torchrun launch (each process joins the launcher's world with the "
        "default tensor_parallel_size=1), or a framework's colocated rollout engine set up "
        "for fewer GPUs than it runs on, or on a vLLM release it does not support; every start "
        "fails the same way.",
        fix="make the numbers in the message agree: launch tensor x pipeline parallel processes "
        "(torchrun --nproc-per-node), or set tensor_parallel_size to the world it runs in; to "
        "evaluate under torchrun, build the engine in one process (or serve it with `vllm "
        "serve` and call it) instead of in every rank, or use vLLM's external_launcher "
        "executor, made for a torchrun world (its parallel sizes must still multiply to the "
        "world size); a framework that runs vLLM inside the training world needs the vLLM "
        "release it supports. TensorRT-LLM (mpiSize == tp * pp) wants tp x pp MPI processes: "
        "mpirun -n tp*pp, or Triton's launch_triton_server.py --world_size tp*pp.",
        fixtures=(
            "world_mismatch__ms_swift_3739.log",
            "world_mismatch__vlmevalkit_561.log",
            "world_mismatch__tensorrtllm_backend_129.log",
        ),
    ),
    Rule(
        name="xla_world_devices",
        category="world_mismatch",
        code="LX710",
        priority=82,
        retryable=False,
        patterns=(
            # torch_xla's xmp.spawn on TPU (XRT): nprocs other than 1 or every local core
            r"The number of devices must be either 1 or \d+, got \d+ instead",
        ),
        cause="torch_xla's spawn (XRT runtime) takes nprocs of 1 or all of the host's TPU "
        "cores and was given another number; every start fails the same way.",
        fix="pass nprocs equal to the host's cores (or leave it unset), or set TPU_NUM_DEVICES "
        "to the number of cores to use.",
        fixtures=("world_mismatch__xla_2483.log",),
    ),
    Rule(
        name="deepspeed_batch_world",
        category="user_code_error",
        code="LX578",
        priority=82,
        patterns=(r"Check batch related parameters\. train_batch_size is not",),
        cause="DeepSpeed's batch check failed: train_batch_size is not micro batch x gradient "
        "accumulation x data-parallel size (the world divided by tensor and pipeline "
        "parallelism): the launch has another number of processes than the config was "
        "written for (a script started with python instead of a launcher runs a world of 1), "
        "or the config's own three values disagree. It fails the same way on every start.",
        fix="compare the three numbers in the message: launch the intended number of "
        "processes (deepspeed --num_gpus N, torchrun --nproc-per-node N), or set "
        'train_batch_size to "auto" (the HF integration) or leave it out so DeepSpeed '
        "derives it; with model parallelism change the batch values, not the launch.",
        fixtures=(
            "user_code_error__deepspeed_6914_train_batch_size_assert.log",
            "user_code_error__internimage_111.log",
        ),
    ),
    Rule(
        name="cuda_invalid_handle",
        category="cuda_error",
        code="LX679",
        # over LX512, which reads the same "CUDA error: ..." line
        priority=79,
        retryable=False,
        patterns=(
            r"\bcudaErrorInvalidResourceHandle\b",
            r"CUDA (?:driver )?error: invalid resource handle",
            r"Cuda failure (?:\d+ )?'invalid resource handle'",
        ),
        cause="a CUDA call was given a handle (a stream, an event, a context, a graph) that "
        "belongs to another device or context than the current one (cudaErrorInvalidResource"
        "Handle, 400): in a multi-GPU run, usually a library that created its streams or "
        "resources on GPU 0 before the rank selected its own GPU; it is not a kernel fault, "
        "and it repeats on every start.",
        fix="call torch.cuda.set_device(local_rank) before anything touches CUDA (model, "
        "library initialisation, a stream created at import), and create per-device "
        "resources (streams, CV-CUDA or NVIDIA DALI objects, CUDA graphs) on the rank's own "
        "device.",
        fixtures=("cuda_error__cvcuda_212_multigpu_invalid_resource_handle.log",),
    ),
    Rule(
        name="deepep_device_assert",
        category="cuda_error",
        code="LX680",
        priority=81,
        patterns=(
            # DeepEP's EP_DEVICE_ASSERT (csrc/kernels/exception.cuh): a printf, then trap(),
            # once per failing GPU thread; (DeepGEMM's host check prints the same words from
            # its own .cuh files, which are not under csrc/kernels)
            r"^Assertion failed: \S*csrc/kernels/\S+\.cuh?:\d+, condition: ",
        ),
        cause="a DeepEP kernel found one of its communication invariants broken and trapped "
        "(the condition is printed): tokens or counts that peers should have sent did not "
        "arrive, or the Buffer was created for fewer queue pairs, experts or ranks than the "
        "run uses (num_qps_per_rank against the local experts, the RDMA ranks its kernels "
        "were built for); the kernel's trap then fails every CUDA call on that GPU.",
        fix="read the condition: a size one (num_rc_per_pe >= num_local_experts, chunk "
        "sizes) means the Buffer's arguments or the expert layout do not match the run; a "
        "count that stayed 0 means a peer's data never arrived (run DeepEP's "
        "tests/test_internode.py and test_low_latency.py on these nodes, check NVSHMEM/IBGDA "
        "and the NICs).",
        fixtures=("cuda_error__deepep_49_low_latency_num_recv_tokens_assert.log",),
    ),
    Rule(
        name="bitsandbytes_cublaslt_failed",
        category="cuda_error",
        code="LX806",
        # above the raise it is (LX674's, 80) and its bare Exception line (LX656's)
        priority=81,
        retryable=False,
        patterns=(
            # bitsandbytes' int8 matmul (functional.igemmlt) when cublasLt returns an error
            # status; it prints "error detected" and the operands' shapes first
            r"cublasLt ran into an error!",
        ),
        cause="bitsandbytes' 8-bit matrix multiply (igemmlt) got an error from cuBLASLt: a GPU "
        "its int8 kernels do not support (older releases need compute capability 7.5 or "
        "newer), or the 8-bit weights and the activations on different GPUs (a model "
        "spread with device_map='auto' in each process of a multi-GPU run); the same setup "
        "fails the same way.",
        fix="load the quantized model whole on each process's own GPU "
        "(device_map={'': local_rank}) instead of device_map='auto' under torchrun or "
        "accelerate, and upgrade bitsandbytes (newer releases fall back on GPUs without "
        "int8 tensor cores); or train in 4-bit or bf16 instead.",
        fixtures=("cuda_error__chinese_vicuna_3_cublaslt_multigpu.log",),
    ),
    Rule(
        name="miopen_database_lock",
        category="cuda_error",
        code="LX805",
        # above the exception MIOpen's failure raises a few lines later (LX511's, 80)
        priority=81,
        retryable=False,
        patterns=(
            # MIOpen (ROCm's cuDNN) keeps its find results and compiled kernels in SQLite files
            # under ~/.config/miopen and ~/.cache/miopen; every process of the node opens them
            r"MIOpen Error: \S*sqlite_db\.cpp:\d+: Internal error while accessing SQLite "
            r"database: (?:locking protocol|database is locked|disk I/O error)",
        ),
        cause="MIOpen could not lock its SQLite databases (the user find-db and kernel cache "
        "in the home directory): the home is on a network filesystem (NFS, Lustre, GPFS) "
        "that does not give SQLite working locks, and every process of the node opens the "
        "same files; the same setup fails the same way.",
        fix="point MIOpen at node-local storage for each process: MIOPEN_USER_DB_PATH and "
        "MIOPEN_CUSTOM_CACHE_DIR to a directory under /tmp (or $SLURM_TMPDIR) per rank, e.g. "
        "/tmp/miopen-$LOCAL_RANK; with a read-only prebuilt database, MIOPEN_DISABLE_CACHE=1 "
        "avoids the kernel cache.",
        fixtures=("cuda_error__miopen_2214_sqlite_locking_protocol.log",),
    ),
    Rule(
        name="cuda_kernel_assert",
        category="cuda_error",
        code="LX561",
        priority=81,
        patterns=(
            r"\.cuh?:\d+: .*Assertion `.+` failed",
            # the indexing kernels' check, where a paste cut the line's start (file, block,
            # thread)
            r'index < sizes\[i\] && "index out of bounds"` failed',
            # the device assert's own coordinates, on a line a terminal broke inside "failed",
            # and on one whose backticks Markdown took as code marks
            r"block: \[\d+,\d+,\d+\], thread: \[\d+,\d+,\d+\] Assertion (?:`|\S.* failed)",
        ),
        cause="a CUDA kernel's own check failed (a device-side assert): the values the script "
        "passed are outside what the operation accepts (an index or label out of range, a "
        "loss input that is not a probability, NaN); the same data fails the same way again.",
        fix="read the assertion: it names the condition (e.g. `t >= 0 && t < n_classes`, "
        "`input_val >= zero && input_val <= one`); check labels against the number of "
        "classes, apply the sigmoid/softmax the loss expects, look for NaN; rerun with "
        "CUDA_LAUNCH_BLOCKING=1 (or on the CPU) to get the failing line.",
        fixtures=(
            "cuda_error__pytorch_112488_bce_input_out_of_range_device_assert.log",
            "cuda_error__fastchat_608_index_select_device_assert.log",
            "cuda_error__d_fine_137.log",
            "cuda_error__axolotl_1138_mistral_zero3_scatter_index_oob.log",
            "cuda_error__megatron_ds_239_index_select_assert.log",
        ),
    ),
    Rule(
        name="cuda_error",
        category="cuda_error",
        code="LX512",
        priority=78,
        patterns=(
            r"CUDA error: ",
            r"CUDA driver error: ",
            # THC's wording before torch 1.8 ("cuda runtime error (715) : an illegal ...")
            r"cuda runtime error \(\d+\) ?: ",
            # ROCm's wordings: torch's HIP errors, the HSA runtime's page fault and queue abort
            r"HIP error: ",
            # RCCL's and HIP samples' check macro ("[FATAL ERROR]: HIP failure: '...'")
            r"HIP failure: '",
            r"Memory access fault by GPU node-\d+",
            # the same fault as the amdgpu kernel driver logs it (dmesg): a non-zero status
            r"amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x0*[1-9a-fA-F]",
            r"aborting with error : HSA_STATUS_ERROR_(?:MEMORY_APERTURE_VIOLATION|MEMORY_FAULT"
            r"|EXCEPTION|ILLEGAL_INSTRUCTION)",
            r"HW Exception by GPU node-\d+",
            r"device-side assert triggered",
            r"an illegal memory access was encountered",
            # the CUDA runtime's own names of a kernel's faults, which a library reports
            # instead of the runtime's message (cudaErrorLaunchFailure is LX631's)
            rf"\bcudaError(?:{_CUDA_KERNEL_FAULTS})\b",
            # ... and a library's check macro that prints the status by number and message
            # (torch_memory_saver: "cudaError error: 1 (invalid argument) file=... func=pause");
            # not out of memory, which is not a kernel's or a call's error
            r"\bcudaError(?: error)?: \d+ \((?!out of memory\))[a-z][^)]*\)",
            # dmlc's CUDA check (decord, MXNet, TVM), which names the status it tolerates at
            # exit before the message of the one it got
            r"Check failed: e == cudaSuccess \|\| e == cudaErrorCudartUnloading:? CUDA: ",
            r"uncorrectable ECC error",
            r"GPU has fallen off the bus",
            # torch 2.8's exception class for a CUDA error, as Ray names it for a task that
            # raised it ("RayTaskError(AcceleratorError): ray::Worker.train()"), where the
            # CUDA error's own line is cut from the paste
            r"\bRayTaskError\(AcceleratorError\)",
            # Intel GPUs: Level Zero losing the device (the kernel driver reset the engine
            # under a running kernel), in its unified runtime's name as torch's XPU backend
            # raises it and in its own as oneCCL does
            r"\b(?:UR|ZE)_RESULT_ERROR_DEVICE_LOST\b",
            r"NVRM: Xid \([^)]*\): \d+",
            r"NCCL WARN Cuda failure",
            # NCCL's detail under "Last error:", or printed alone by its CUDACHECK
            r"^Cuda failure (?:\d+ )?'",
            # the driver's word that a GPU dropped out, as slurmstepd's NVML probe prints it
            r"NVML: Failed to [\w ]+(?:\(\d+\))?: GPU is lost",
            # ... and as nvidia-smi prints it for a GPU that no longer answers on the bus
            r"Unable to determine the device handle for GPU ?(?:\d+: )?[0-9A-Fa-f:.]+: "
            r"(?:Unknown Error|GPU is lost|GPU requires reset)",
            # ... and as pynvml raises it (torch.cuda's utilization and memory queries, a
            # trainer's GPU monitor): the exception class its status code is named for
            r"\bNVMLError_(?:Unknown|GpuIsLost|ResetRequired)\b",
            r"unhandled cuda error",
            r"ncclUnhandledCudaError",
            r"CUBLAS_STATUS_(?:EXECUTION_FAILED|INTERNAL_ERROR|NOT_INITIALIZED|MAPPING_ERROR)",
            r"cuDNN error: CUDNN_STATUS_(?:EXECUTION_FAILED|INTERNAL_ERROR|MAPPING_ERROR)",
            # DeepSpeed's fused kernels print cuBLAS's status as a number: 11, 13 and 14 are
            # MAPPING_ERROR, EXECUTION_FAILED and INTERNAL_ERROR
            r"!!!! kernel execution error\. \(m: \d+, n: \d+, k: \d+, error: 1[134]\)",
            # ... and faiss's GPU matrix multiply in its assertion's details
            r"\bcublas failed \(1[134]\): ",
        ),
        # a kernel's launch failure is LX631's, which yields to a DeepEP timeout before it;
        # a CUDA call at interpreter exit is LX637's
        exclude=(
            r"out of memory|unspecified launch failure|CUDA_ERROR_LAUNCH_FAILED"
            r"|driver shutting down",
        ),
        cause="a CUDA kernel failed (illegal memory access, device-side assert), or the GPU "
        "itself did (an uncorrectable ECC error, a GPU fallen off the bus or lost to NVML); "
        "CUDA reports it asynchronously, often at a later call or in the NCCL watchdog.",
        fix="rerun with CUDA_LAUNCH_BLOCKING=1 to get the failing line, check indices and "
        "labels against tensor sizes (device-side asserts), and look for Xid messages in "
        "`dmesg` (amdgpu errors on ROCm, xe or i915 engine resets on Intel GPUs, with "
        "xpu-smi's health view; hardware: drain the node).",
        fixtures=(
            "cuda_error__depthawarecnn_12_runtime_error_77.log",
            "cuda_error__flux_40.log",
            "cuda_error__rocm_4021_mi300x_gpu_hang_hw_exception.log",
            "cuda_error__deepspeed_454_transformer_kernel_error_13.log",
            "cuda_error__rocm_systems_8178_rccl_intermittent_invalid_device_pointer.log",
            "cuda_error__physicsnemo_539_graphcast_mpirun_np3.log",
            "cuda_error__returnn_1486.log",
            "cuda_error__plmfit_40_slurmstepd_nvml_gpu_is_lost.log",
            "cuda_error__sglang_10195.log",
            "cuda_error__torch_xpu_ops_5164.log",
            "cuda_error__dmlcloud_58_nvml_unknown_error.log",
            "cuda_error__slime_1786_torch_memory_saver_pause_invalid_argument.log",
            "cuda_error__skyrl_797_fully_async_acceleratorerror.log",
        ),
    ),
    Rule(
        name="custom_allreduce_cuda_failure",
        category="cuda_error",
        code="LX706",
        # the kernel rule's tier (LX512 reads an illegal access reported here; the peer-access
        # status is LX573's, a configuration)
        priority=78,
        retryable=False,
        patterns=(
            # vLLM's custom all-reduce (also inside sglang and the engines built on vLLM)
            # checks its CUDA calls itself: "Failed: Cuda error <file>:<line> '<status>'";
            # some builds print the file without the words "Cuda error"
            r"\bFailed: (?:Cuda error )?\S*custom_all_reduce\.cuh:\d+ '",
        ),
        exclude=(r"out of memory|peer access is not supported|illegal memory access",),
        cause="the inference engine's own all-reduce kernel (vLLM's custom all-reduce, which "
        "maps the other GPUs' buffers through CUDA IPC) failed a CUDA call, typically "
        "'invalid argument' while registering buffers during CUDA graph capture: a driver, "
        "GPU or allocator setting it does not support (PYTORCH_CUDA_ALLOC_CONF="
        "expandable_segments), or a GPU generation the build was not made for; every start "
        "fails the same way.",
        fix="start the engine with --disable-custom-all-reduce (NCCL then does the "
        "all-reduce) or without CUDA graphs (vLLM's --enforce-eager, SGLang's "
        "--disable-cuda-graph); drop expandable_segments from "
        "PYTORCH_CUDA_ALLOC_CONF; upgrade the engine when its release notes name your GPU.",
        fixtures=("cuda_error__dynamo_787.log",),
    ),
    Rule(
        name="npu_core_timeout",
        category="cuda_error",
        code="LX707",
        # above HCCL's own timeouts (LX602): a kernel that never finished on one NPU is why
        # its peers' collectives waited
        priority=52,
        retryable=False,
        patterns=(
            # Ascend's runtime (torch_npu's ACL errors): an operator ran past the AI Core's,
            # vector core's or AI CPU's execution timeout (507014, 507034, 507017)
            r"\[(?:aicore|vector core|aicpu) timeout\]",
            r"\berror code(?: is|:) ?50701[47]\b|\berror code(?: is|:) ?507034\b",
            r"Vector core execution timed out",
        ),
        cause="an operator on an Ascend NPU ran longer than the core's execution timeout "
        "(aclrtSetOpExecuteTimeOut; the default depends on the chip, from about a minute to "
        "18 minutes) and the runtime killed it: a kernel that hangs (a fused communication "
        "kernel whose peer never answers, a kernel bug of the installed CANN or torch_npu "
        "release) or one given far more work than it can finish; the same model on the same "
        "release usually fails again.",
        fix="read the plog (~/ascend/log) of the device named for the kernel that timed out; "
        "check the other ranks for an earlier failure; try the CANN / torch_npu / engine "
        "release that worked before; only when the kernel is just slow, raise the timeout "
        "(aclrtSetOpExecuteTimeOut, or torch_npu's op execute timeout setting).",
        fixtures=("cuda_error__vllm_ascend_4972.log",),
    ),
    Rule(
        name="npu_kernel_exception",
        category="cuda_error",
        code="LX714",
        # the kernel fault's tier (LX512)
        priority=78,
        retryable=False,
        patterns=(
            # CANN's runtime (EZ9999) for an operator that faulted on an AI Core or vector
            # core: an illegal instruction, an address out of range (the NPU's illegal memory
            # access); the wordings of the CANN releases
            r"there is an (?:exception of )?(?:fftsplus )?(?:aivec|aivector|aicore|aic|aiv) "
            r"error\b",
            r"Kernel task happen error, retCode=0x[0-9a-fA-F]+, \[(?:aicore|aivec|vector core) "
            r"exception\]",
            r"Aicore kernel execute failed",
            # ... and an AI CPU operator's (the runtime's words, its EE9999 reason)
            r"The aicpu execution is abnormal",
            r"\breason=\[?aicpu exception\b",
            # ACL's codes for the same: an AI Core's or a vector core's exception (507015,
            # 507035) or trap (507016, 507036), an AI CPU's exception (507018)
            r"\berror code(?: is|:) ?5070(?:1[568]|3[56])\b",
            r"\bruntime result = 507018\b",
        ),
        # CANN prints the same EZ9999 core-error line over a core's timeout, which the lines
        # around it name (LX707's): torch_npu's own lines above it, the runtime's below
        not_before=(
            r"\[(?:aicore|vector core|aicpu) timeout\]",
            r"\berror code(?: is|:) ?5070(?:1[47]|34)\b",
        ),
        not_after=(
            r"\[(?:aicore|vector core|aicpu) timeout\]",
            r"\berror code(?: is|:) ?5070(?:1[47]|34)\b",
            r"The (?:aicore|vector core|aicpu) execution times out",
        ),
        cause="an operator's kernel faulted on an Ascend NPU (an AI Core or vector core "
        "exception: an address out of range, an illegal instruction from unaligned buffers), "
        "the NPU's counterpart of CUDA's illegal memory access; a kernel bug of the installed "
        "CANN, torch_npu or engine release, or an input it does not support; the same step "
        "fails again.",
        fix="read the EZ9999 lines for the kernel's name and the error string; rerun with "
        "ASCEND_LAUNCH_BLOCKING=1 to stop at the operator that faulted; try the CANN / "
        "torch_npu / engine release that worked before, or turn off the feature that uses "
        "the kernel (graph mode, a fused operator).",
        fixtures=(
            "cuda_error__vllm_ascend_10720.log",
            "cuda_error__vllm_ascend_2918.log",
            "cuda_error__vllm_ascend_3263.log",
            "cuda_error__vllm_ascend_3037.log",
            "cuda_error__vllm_ascend_8360.log",
            "cuda_error__vllm_ascend_10829.log",
        ),
    ),
    Rule(
        name="cuda_launch_failure",
        category="cuda_error",
        code="LX631",
        priority=78,
        patterns=(
            r"unspecified launch failure",
            r"CUDA_ERROR_LAUNCH_FAILED|\bcudaErrorLaunchFailure\b",
        ),
        # DeepEP's kernels call trap() once their wait for a peer gives up (LX623): the
        # launch failure that follows on that rank is the timeout's doing
        not_after=(_DEEPEP_TIMEOUT,),
        cause="a CUDA kernel aborted while it ran (cudaErrorLaunchFailure, 'unspecified launch "
        "failure'): a kernel that faulted or called trap(), a driver fault or a failing GPU; "
        "CUDA reports it asynchronously, often at a later call or in the NCCL watchdog.",
        fix="rerun with CUDA_LAUNCH_BLOCKING=1 to find the kernel (a custom or fused "
        "extension's, usually); look for Xid messages in `dmesg` on the node (13, 31 or 43: "
        "a kernel fault; 79 or 48: hardware, drain the node); the same kernel on every "
        "start is a bug or a build for another GPU.",
        fixtures=(
            "cuda_error__deepseek_moe_47_watchdog_unspecified_launch_failure_rank1.log",
            "cuda_error__llamafactory_8871_multinode_unspecified_launch_failure.log",
        ),
    ),
    Rule(
        name="intel_gpu_runtime_abort",
        category="segfault",
        code="LX652",
        priority=76,
        patterns=(
            # Intel's GPU compute runtime (NEO, under Level Zero and SYCL): its own abort,
            # naming the source file of the check that failed
            r"^Abort was called at \d+ line in file:",
        ),
        cause="Intel's GPU compute runtime (the Level Zero / OpenCL driver under "
        "intel-extension-for-pytorch and torch's xpu device) failed one of its own checks "
        "and aborted the process (SIGABRT, exit code -6); the next line names the driver's "
        "source file (memory_manager.cpp: often an allocation it could not make). It also "
        "runs on machines without an Intel GPU, when an OpenCL loader picks Intel's driver "
        "up from /etc/OpenCL/vendors/intel.icd.",
        fix="on an Intel GPU: install matching versions of the driver (intel-compute-runtime, "
        "level-zero), oneAPI and intel-extension-for-pytorch or torch's xpu build, and with "
        "the driver's file and line search or report it at intel/compute-runtime; without "
        "one: remove or hide /etc/OpenCL/vendors/intel.icd (OCL_ICD_VENDORS) so nothing "
        "loads Intel's driver.",
        fixtures=("segfault__streaming_331_composer_rank4_abort_memory_manager.log",),
    ),
    Rule(
        name="segfault",
        category="segfault",
        code="LX513",
        priority=76,
        patterns=(
            r"Segmentation fault",
            r"Fatal Python error: Segmentation",
            # a crash inside the interpreter: a C extension freed or overran an object
            # (not the abort of NCCL's watchdog, nor a start-up failure like init_fs_encoding)
            r"Fatal Python error: (?:\w+_dealloc|_?PyObject_\w+|GC object already tracked"
            r"|deallocating None|Floating point exception|Illegal instruction)",
            r"received signal SIGSEGV",
            r"\*\*\* SIG(?:SEGV|FPE|ILL) \(@0x[0-9a-f]+\) received by PID",
            # folly's signal handler (Meta's C++ and Rust runtimes, monarch's actors): "***
            # Signal 11 (SIGSEGV) (0x3f800000) received by PID 2085122 (pthread TID ...)"
            r"\*\*\* Signal (?:11|8|4) \(SIG(?:SEGV|FPE|ILL)\) \(0x[0-9a-f]+\) received by PID",
            # absl's failure-signal handler (Ray's workers, JAX, TensorFlow)
            r"(?:^|logging\.cc:\d+\]?:? )\*\*\* SIGSEGV received at time=\d+",
            # the shell's report of a child's SIGFPE ("Illegal instruction" has no anchor)
            r"^Floating point exception(?: ?\(core dumped\))?$",
            # ... and bash's job report of it, under a wrapper script ("start.sh: line 20:
            # 11 Floating point exception(core dumped) python train.py")
            r": line \d+: +\d+ Floating point exception\b",
            # UCX's handler (HPC-X, NGC containers): SIGSEGV, SIGFPE or SIGILL
            r"Caught signal (?:11 \(Segmentation fault|8 \(Floating point exception"
            r"|4 \(Illegal instruction)",
            # the native-stack printer of vLLM/sglang workers (and TRT-LLM)
            r"^!+ Segfault encountered !+",
            # a library's own signal handler (InfiniStore's: "Caught SIGSEGV: segmentation
            # fault")
            r"\bCaught SIGSEGV\b",
            # libtpu's failure-signal handler (process_state.cc, under torch_xla and JAX on a
            # TPU) in the form that names the process
            r"\*\*\* SIGSEGV received by PID \d+ \(TID \d+\)",
            # Open MPI's and UCX's handler, for a fatal signal (which one follows, if kept),
            # after its "[host:pid] " prefix (which loglines takes off where it can)
            r"^(?:\[[\w.-]+:\d+\] )?\*\*\* Process received signal \*\*\*$",
            # the kernel's own report in dmesg or a console pasted with the run: "python[4242]:
            # segfault at 0 ip ... sp ... error 6 in libtorch_cpu.so[...]"
            r"\S\[\d+\]: segfault at [0-9a-f]+ ip [0-9a-f]+ sp [0-9a-f]+ error \d+\b",
        ),
        exclude=(r"encountered in worker",),
        cause="a native crash (SIGSEGV, or SIGFPE/SIGILL) in C/C++/CUDA code, not a Python "
        "exception.",
        fix="get the native stack: PYTHONFAULTHANDLER=1 (or `import faulthandler; "
        "faulthandler.enable()`), allow core dumps (ulimit -c unlimited). Common causes: "
        "an extension built against another torch/CUDA, mixed NCCL/CUDA libraries on "
        "LD_LIBRARY_PATH, init_process_group before torch.cuda.set_device. A SIGFPE inside "
        "cuBLAS/cuBLASLt: a cuBLAS older than the GPU (install the nvidia-cublas build of "
        "the GPU's CUDA release); a SIGILL: a binary built for CPU instructions this host "
        "lacks (AVX-512, -march=native).",
        fixtures=(
            "segfault__torchrun_faulthandler.log",
            "segfault__fairscale_489.log",
            "segfault__ms_swift_4353_none_dealloc.log",
            "segfault__nccl_1669_ras_crash_during_init.log",
            "segfault__nccl_2106_cumemcreate_host_numa.log",
            "segfault__ray_49998_torchtrainer_npu_sigsegv.log",
            "segfault__ray_54580_raytrainworker_amd_segfault.log",
            "segfault__infinistore_82.log",
            "segfault__monarch_839.log",
            "segfault__byteps_96.log",
        ),
    ),
    Rule(
        name="ucx_fatal_signal_backtrace",
        category="segfault",
        code="LX719",
        # below the signal's own line (LX513's SIGSEGV, SIGFPE, SIGILL; LX581's SIGBUS in
        # shared memory): this is only its backtrace, for a paste that starts below that
        # line (a SIGBUS whose line shows no shared memory lands here too)
        priority=40,
        patterns=(
            # UCX's handler of a fatal signal (UCX_ERROR_SIGNALS: SIGILL, SIGSEGV, SIGBUS,
            # SIGFPE) prints a backtrace whose first frame is itself
            r"libucs\.so[.\d]*\(ucs_handle_error\+0x[0-9a-fA-F]+\)",
        ),
        cause="a process that loaded UCX (through Open MPI, NVSHMEM, NIXL or NCCL's UCX "
        "plugin) died in native code, of a fatal signal that UCX's handler caught or of one "
        "of UCX's own fatal checks (an assertion, 'Fatal: ...'), and UCX printed a backtrace; "
        "the frames under its own name say where it happened.",
        fix="read the backtrace's frames below UCX's own for the library that crashed (a "
        "dlopen or dlsym frame: a library loaded twice or built for another CUDA or MPI); "
        "run with UCX_HANDLE_ERRORS=none and PYTHONFAULTHANDLER=1 to see the Python frames.",
        fixtures=("segfault__triton_distributed_88.log",),
    ),
    Rule(
        name="uncaught_native_exception",
        category="segfault",
        code="LX676",
        # below every other reading: the "what():" line under it names the exception, and a
        # rule that reads that (NCCL's, gloo's, a socket's, CUDA's) knows the cause
        priority=30,
        retryable=False,
        patterns=(r"terminate called after throwing an instance of '",),
        cause="a C++ exception that no code caught (in an extension, a communication "
        "library's thread, torch's own C++) reached std::terminate, which aborted the process "
        '(SIGABRT); its "what():" line says what was thrown.',
        fix="read the what() line and the library it names: a wrong argument or a version "
        "mismatch between the library and what calls it (upgrade or rebuild them together); "
        "run under gdb or with PYTHONFAULTHANDLER=1 to see which call threw it.",
        fixtures=("segfault__raft_3026_cugraph_comms_init_system_error_abort.log",),
    ),
    Rule(
        name="launcher_sigabrt",
        category="segfault",
        code="LX807",
        # below every cause and symptom a line can name (only LX526's deprecation warning
        # is lower): NCCL's watchdog, a C++ exception, gloo's lost peer, NCCL's traced
        # return code all end in the same abort, and their own lines, where the log holds
        # them, say more than the signal
        priority=6,
        retryable=False,
        # a launcher's report that a rank died of SIGABRT (torchrun's summary and agent, the
        # other launchers and torch.multiprocessing.spawn), with nothing above it that says
        # why: a native abort, as the development corpus labels ten of the fifteen logs where
        # nothing else was read (five say unknown)
        patterns=(*torchrun_signal_reports(6), *launcher_signal_reports(6)),
        cause="native code aborted the rank with SIGABRT (a failed check or assertion in "
        "C++/CUDA code, an uncaught C++ exception, a corrupted heap), and the log kept no "
        "line that says which.",
        fix="get the rank's own output and native stack: PYTHONFAULTHANDLER=1, core dumps "
        "(ulimit -c unlimited) and the lines just above the abort ('terminate called', "
        "'what():', 'Check failed', 'Assertion'); check that extensions and CUDA/NCCL "
        "libraries were built for the installed torch.",
        fixtures=(
            "segfault__slowfast_34_qt_assert_sigabrt.log",
            "segfault__yolox_813_process1_sigabrt.log",
        ),
    ),
    Rule(
        name="native_abort",
        category="segfault",
        code="LX579",
        # a symptom's tier: after a watchdog timeout or a Python exception the same abort is
        # only the teardown, and those causes must win
        priority=45,
        patterns=(
            r"terminate called after throwing an instance of 'std::bad_alloc'",
            r"terminate called without an active exception",
            # glibc's assert() in an extension's C/C++ source ("prog: file.cpp:223: int f(...):
            # Assertion `cond' failed."), which aborts the process
            r"^(?:\S+: )?\S+\.(?:c|cc|cpp|cu|cuh|h|hpp):\d+: .*: Assertion `",
            # glibc's malloc finding its heap corrupted (a native out-of-bounds write or a
            # double free), which aborts the process with this one line
            r"\b(?:free|malloc|realloc|munmap_chunk|malloc_consolidate|tcache_thread_shutdown"
            r"|int_mallinfo)\(\): (?:.*corrupt"
            r"|invalid |double free|unaligned (?:fastbin |tcache )?chunk detected)",
            r"double free or corruption \((?:out|!prev|fasttop|top)\)",
            r"corrupted size vs\. prev_size|corrupted double-linked list",
            # glibc's stack-protector and _FORTIFY_SOURCE checks (__fortify_fail), which abort
            # the process: "*** stack smashing detected ***: terminated" from glibc 2.31,
            # "<unknown> terminated" in 2.26-2.30, the program's path before that
            r"\*\*\* (?:stack smashing|buffer overflow) detected \*\*\*: ",
            # LLVM's fatal error (Triton's and other JIT compilers' backend), then abort()
            r"^LLVM ERROR: ",
            # glog's/absl's CHECK in C++ code (BytePS, XLA, TensorFlow-style extensions):
            # "F0217 19:29:02.800368 123 file.cc:290] Check failed: ...", then abort(); the
            # glog header is stripped from the line when it has the standard shape
            r"\.(?:c|cc|cpp|cu|cuh|h|hpp):\d+\] Check failed: ",
            r"^Check failed: ",
            # Ray's RAY_CHECK (in the raylet or a core worker) over the same words
            r"You have likely discovered a bug in Ray\. .*Check failed: ",
            # glibc's abort when the forced unwinding of a thread ended by pthread_exit or
            # pthread_cancel was caught by a catch (...) that did not rethrow it (a C++
            # thread pool torn down at exit)
            r"^FATAL: exception not rethrown$",
            # Intel's PSM3 (libfabric's provider under oneCCL) asserting in its transport
            # ("host:pid1498874: Assertion failure at psm3/ptl_am/ptl.c:195: ...")
            r":pid\d+: Assertion failure at psm3/\S+\.c:\d+: ",
            # libtpu's failure-signal handler reporting the abort (after a fatal check such as
            # "F ... tpu_library_init_fns.inc:100] ... not available in this library")
            r"\*\*\* SIGABRT received by PID \d+ \(TID \d+\)",
            # ... and folly's (LX513 reads its other fatal signals)
            r"\*\*\* Signal 6 \(SIGABRT\) \(0x[0-9a-f]+\) received by PID \d+",
            # Rust's runtime (a tokenizer's or another extension's) aborting where a panic
            # cannot unwind: a panic while one is handled ("while panicking" before Rust
            # 1.71), or one in a function that must not unwind (library/std/src/panicking.rs,
            # library/core/src/panicking.rs)
            r"^thread (?:panicked while (?:processing panic|panicking)"
            r"|caused non-unwinding panic)\. aborting\.$",
            # gdb's backtrace of the aborted process (a core or a live attach): glibc's abort()
            # among its frames, with glibc's debug information or without it
            r"^#\d+ +(?:0x[0-9a-f]+ in )?(?:__GI_)?abort \(\) (?:at \S*abort\.c:\d+"
            r"|from \S*libc\.so[\d.]*)$",
        ),
        # glibc's own assertions (malloc's, the thread library's) are heap corruption or a
        # fork's aftermath, not an extension's check
        exclude=(r"malloc\.c:|nptl/|sysdeps/|/dl-\w+\.c:",),
        cause="the worker's native code aborted (SIGABRT): a std::bad_alloc (an allocation "
        "that host memory could not give, often a size computed wrong), a failed assert() or "
        "CHECK in an extension's C++ code (the condition and the file are in the message), glibc "
        "finding the heap corrupted (an out-of-bounds write or a double free in native code) "
        "or a stack buffer overrun (its stack protector or _FORTIFY_SOURCE), "
        "an LLVM fatal error in a JIT compiler (Triton), a Rust extension's panic that could "
        "not unwind, or a C++ thread torn down while "
        "running (glibc's 'exception not rethrown': a thread ended by pthread_exit or "
        "pthread_cancel, as Python ends its threads at exit, whose unwinding a catch (...) "
        "swallowed); a native crash, not a Python exception.",
        fix="get the native stack (PYTHONFAULTHANDLER=1, ulimit -c unlimited and gdb on the "
        "core); for bad_alloc check host memory while it runs (free -g, the job's memory "
        "limit) and the sizes passed to the extension that threw; for 'exception not "
        "rethrown' at exit, shut down what owns the threads before the script ends "
        "(rpc.shutdown(), destroy_process_group(), join its threads).",
        fixtures=(
            "segfault__recsys_examples_231_bad_alloc_sigabrt_local_rank0.log",
            "segfault__pytorch_90549_fsdp_tests_terminate_without_active_exception.log",
            "segfault__deepspeed_2006_nvme_aio_pread_assert.log",
            "segfault__diffsynth_studio_1272_free_corrupted_chunks.log",
            "segfault__fairseq_43_stack_smashing_malloc_assert.log",
            "segfault__verl_985_v100_triton_llvm_sigabrt.log",
            "segfault__byteps_430_two_workers_one_gpu_check_failed_abort.log",
            "segfault__pytorch_136726.log",
            "segfault__falcon_12.log",
            "segfault__vllm_29373.log",
            "segfault__ipex_llm_9231.log",
            "segfault__xla_4103.log",
            "segfault__willdreamer_aurora_8.log",
            "segfault__pytorch_95487_rpc_cuda_ipc_abort.log",
        ),
    ),
    Rule(
        name="launcher_sigsegv",
        category="segfault",
        code="LX548",
        priority=63,
        patterns=launcher_signal_reports(11, 4, 8),
        cause="a rank died of a fatal signal (SIGSEGV, SIGILL or SIGFPE: a native crash), as "
        "its launcher (mpirun, the DeepSpeed or accelerate launcher, subprocess) reports it; no "
        "Python traceback.",
        fix="get the native stack: PYTHONFAULTHANDLER=1 and core dumps (ulimit -c unlimited); "
        "check extensions and CUDA/NCCL libraries match the installed torch. SIGILL: a wheel "
        "or extension built for a newer CPU (AVX-512) than this node's; SIGFPE: an integer "
        "division by zero in native code.",
        fixtures=(
            "segfault__deepspeedexamples_626_return_code_11.log",
            "segfault__ezpz_210.log",
        ),
    ),
    Rule(
        name="windows_crash_status",
        category="segfault",
        code="LX594",
        priority=63,
        patterns=(
            rf"process (?P<rank>\d+) terminated with exit code (?:{_WINDOWS_CRASHES})\b",
            rf"exit ?code\s*[:=]?\s*(?:{_WINDOWS_CRASHES})\b",
            rf"(?:return code|exit status) =? ?(?:{_WINDOWS_CRASHES})\b",
        ),
        cause="a rank's process ended with a Windows crash status (0xC0000005 access "
        "violation, 0xC0000094 integer division by zero, 0xC000001D illegal instruction, "
        "0xC00000FD stack overflow, 0xC0000409 a failed runtime check or abort): a native "
        "crash, Windows' SIGSEGV, with no Python traceback.",
        fix="get the native stack: PYTHONFAULTHANDLER=1 (python -X faulthandler); check that "
        "the CUDA build of torch and of every extension supports this GPU and driver (a new "
        "GPU generation needs a torch built for it); on Windows use the gloo backend and "
        "fewer DataLoader workers; try the same run under WSL2 or Linux.",
        fixtures=("segfault__gpt_sovits_2282_spawn_exit_3221225620.log",),
    ),
    Rule(
        name="torchrun_root_sigsegv",
        category="segfault",
        code="LX514",
        priority=62,
        scope="root_failure",
        patterns=torchrun_signal_reports(11, 4, 8),
        cause="it died of a fatal signal (SIGSEGV, SIGILL or SIGFPE: a native crash in C/C++/"
        "CUDA code) and left no Python traceback.",
        fix="get the native stack: PYTHONFAULTHANDLER=1 and core dumps (ulimit -c unlimited); "
        "check extensions and CUDA/NCCL libraries match the installed torch. SIGILL: a wheel "
        "or extension built for a newer CPU (AVX-512) than this node's; SIGFPE: an integer "
        "division by zero in native code (a library bug on this GPU or these shapes).",
        fixtures=("segfault__hallo2_75.log", "segfault__ifseg_7.log"),
    ),
    Rule(
        name="streaming_shared_memory_left_behind",
        category="shm_error",
        code="LX651",
        # above the user's exception (LX511) that the FileExistsError also is
        priority=82,
        retryable=False,
        patterns=(
            # mosaicml streaming names its shared-memory objects by a six-digit prefix and a
            # role: /dev/shm/000000_barrier, 000001_locals, ...
            r"FileExistsError: \[Errno 17\] File exists: '/\d{6}_\w+'",
        ),
        cause="mosaicml streaming (StreamingDataset) found its shared-memory object (a "
        "/dev/shm/000000_barrier or 000001_locals) already there: a run that died left "
        "it behind, or two datasets on this node took the same prefix because the ranks "
        "disagree about the node (LOCAL_WORLD_SIZE, RANK unset where the dataset is built); "
        "it fails the same way until the objects are gone.",
        fix="remove the leftovers before the run (python -c 'import streaming.base.util as "
        "u; u.clean_stale_shared_memory()', or rm /dev/shm/[0-9][0-9][0-9][0-9][0-9][0-9]_*), "
        "give each dataset its "
        "own local directory, and build the datasets after the ranks' environment is set "
        "(`launchx run` sets RANK, LOCAL_RANK and LOCAL_WORLD_SIZE before the script starts).",
        fixtures=("shm_error__lightning_20140_streaming_000001_locals_file_exists.log",),
    ),
    Rule(
        name="torchrun_root_sigbus_in_container",
        category="shm_error",
        code="LX557",
        priority=64,
        scope="root_failure",
        patterns=torchrun_signal_reports(7),
        requires=(r"^host\s*:\s*[0-9a-f]{12}\s*$",),
        cause="it died of SIGBUS inside a Docker container (the summary's host is a container "
        "id): a process touched shared memory that /dev/shm could not back, and Docker gives "
        "containers 64 MB of /dev/shm unless told otherwise (NCCL's shared-memory transport "
        "and DataLoader workers both live there).",
        fix="run the container with --ipc=host or --shm-size=16g (Kubernetes: an emptyDir "
        "volume with medium: Memory on /dev/shm); NCCL_SHM_DISABLE=1 or fewer DataLoader "
        "workers work around it at some speed.",
        fixtures=("shm_error__alpaca_lora_338_sigbus_docker.log",),
    ),
    Rule(
        name="mpirun_sigbus_in_container",
        category="shm_error",
        code="LX595",
        # above Open MPI's own "Process received signal" banner (LX513), which does not say
        # which signal
        priority=77,
        patterns=(
            r"process rank (?P<rank>\d+) with PID \S+ on node [0-9a-f]{12} exited on signal 7\b",
        ),
        cause="mpirun reports a rank killed by SIGBUS on a node whose name is a Docker "
        "container id: a process touched shared memory that /dev/shm could not back, and "
        "Docker gives containers 64 MB of /dev/shm unless told otherwise (DataLoader workers "
        "and NCCL's shared-memory transport both live there).",
        fix="run the container with --ipc=host or --shm-size=16g (Kubernetes: an emptyDir "
        "volume with medium: Memory on /dev/shm); fewer DataLoader workers (num_workers=0) or "
        "NCCL_SHM_DISABLE=1 work around it at some speed.",
        fixtures=("shm_error__horovod_2053_docker_bus_error_mpirun.log",),
    ),
    Rule(
        name="sigbus_shared_memory",
        category="shm_error",
        code="LX581",
        priority=64,
        patterns=(
            *torchrun_signal_reports(7),
            *launcher_signal_reports(7),
            r"^Bus error(?: \(core dumped\))?$",
            # UCX's handler (loaded with Open MPI or NCCL's UCX plugin), as for SIGSEGV
            r"Caught signal 7 \(Bus error",
            # the frame of that handler's backtrace where NCCL maps its shared-memory segment,
            # when the paste starts below the signal's line
            r"^\d+ +0x[0-9a-f]+ +ncclShmOpen\(\) ",
        ),
        # "shared memory" is an anchor, so the line is kept however long the log; NCCL's
        # shared-memory transport in the crash's backtrace (a line with "nccl" in it) is the
        # same evidence
        requires=(
            r"(?i)shared memory",
            r"\bncclShmOpen\b|nccl\S*/src/misc/shmutils\.cc",
            # UCX's backtrace of the signal, a frame inside libnccl: a SIGBUS there is almost
            # always its shared-memory transport touching a /dev/shm page nothing backs
            r"^\d+ +0x[0-9a-f]+ +(?:nccl\w*\(\)|\S+\(\) +\S*/libnccl\.so[.\d]*:\d+)",
        ),
        cause="a rank died of SIGBUS while the program keeps data in shared memory (the log "
        "says so): a page of a /dev/shm file that the filesystem could not back was touched, "
        "i.e. /dev/shm is full or too small (containers get 64 MB unless told otherwise); a "
        "memory-mapped file that shrank while in use gives the same signal.",
        fix="make /dev/shm big enough for what the program puts there (df -h /dev/shm; "
        "containers: --ipc=host or --shm-size=64g, Kubernetes: an emptyDir with medium: Memory "
        "and a sizeLimit), remove stale files from it, or put less there (fewer DataLoader "
        "workers, the dataset's own shared-memory cache off).",
        fixtures=(
            "shm_error__openpcdet_1114_waymo_shared_memory_sigbus.log",
            "shm_error__trlx_536_sigbus_ncclshmopen.log",
            "shm_error__pipedream_76_docker_nccl_sigbus.log",
            "shm_error__llamafactory_1013.log",
        ),
    ),
    Rule(
        name="sigbus_unbacked_page",
        category="shm_error",
        code="LX743",
        # LX581's tier
        priority=64,
        patterns=(
            # UCX's handler names the signal's code: BUS_ADRERR, "nonexistent physical
            # address", a mapped file's page that nothing backs (not an unaligned access,
            # BUS_ADRALN, nor a hardware error, BUS_OBJERR)
            r"Caught signal 7 \(Bus error: nonexistent physical address\)",
        ),
        cause="a rank died of SIGBUS on a page of a memory-mapped file that nothing backs: "
        "in a training job almost always a file in /dev/shm (NCCL's shared-memory transport, "
        "DataLoader or torch.multiprocessing tensors) written past what the filesystem could "
        "hold, i.e. /dev/shm is full or too small (containers get 64 MB unless told "
        "otherwise); a mapped file truncated while in use gives the same signal.",
        fix="make /dev/shm big enough (df -h /dev/shm; containers: --ipc=host or "
        "--shm-size=64g, Kubernetes: an emptyDir with medium: Memory and a sizeLimit), remove "
        "stale files from it, or put less there (NCCL_SHM_DISABLE=1 to check NCCL's share, "
        "fewer DataLoader workers).",
        fixtures=(
            "shm_error__colossalai_3163.log",
            "shm_error__nvidia_resiliency_ext_6_ddp_sigbus_ipc_host.log",
        ),
    ),
    Rule(
        name="torchrun_root_sigkill",
        category="killed",
        code="LX515",
        priority=61,
        scope="root_failure",
        patterns=torchrun_signal_reports(9),
        cause="it was killed by a SIGKILL from outside (torchrun itself sends SIGTERM first): "
        "on a training node most often the kernel OOM killer, else a scheduler, a watchdog or "
        "a person; the log alone does not say which.",
        fix="look for the killer: `dmesg -T | grep -i 'killed process'` (OOM), `sacct -j <job> "
        "-o JobID,State,MaxRSS` (OUT_OF_MEMORY), the cgroup's memory.events oom_kill counter; "
        "if it repeats at the same step, treat it as host OOM (fewer DataLoader workers, "
        "torch.load(mmap=True), more --mem).",
        fixtures=("host_oom_killed__accelerate_1214_rich_log.log", "killed__cppo_6.log"),
    ),
    Rule(
        name="launcher_sigkill",
        category="killed",
        code="LX547",
        priority=61,
        patterns=(
            *launcher_signal_reports(9),
            # the shell's and srun's own words for a child's SIGKILL
            r"^Killed$",
            r"task (?P<rank>\d+): Killed\b",
            r"tasks [\d,-]+: Killed\b",
            r": line \d+: +\d+ Killed +\S",
        ),
        # (SGLang's launcher kills its own process tree once a child signalled it: the kill
        # after that line is its doing, not the kernel's; its older releases spell the line
        # "child proces")
        # (PALS' mpiexec kills the other ranks once one died of another signal, and reports
        # each: after "rank N died from signal S", its SIGKILLs are its teardown)
        not_after=(
            SRUN_TERMINATES_STEP,
            r"Received sigquit from a child process?\b",
            rf"{PALS_RANK_DIED}(?!9\b)\d+\b",
        ),
        cause="a rank was killed by a SIGKILL from outside, as its launcher (mpirun, the "
        "DeepSpeed or accelerate launcher, srun, the shell) reports it: most often the kernel "
        "OOM killer, else a scheduler or a person. The log alone does not say which.",
        fix="look for the killer: `dmesg -T | grep -i 'killed process'` (OOM), `sacct -j <job> "
        "-o JobID,State,MaxRSS` (OUT_OF_MEMORY); if it repeats at the same step, treat it as "
        "host OOM (fewer DataLoader workers, torch.load(mmap=True), more --mem).",
        fixtures=(
            "killed__xlm_95_launch_sigkill_mlm_pretrain.log",
            "killed__aware_history_2_mpirun_sigkill.log",
            "killed__horovod_2484_elastic_k8s_worker_exit137.log",
            "killed__jukebox_155_mpiexec_hydra_signal9.log",
            "killed__production_stack_292.log",
            "killed__pytorch_biggraph_128.log",
            "killed__gemma_tuner_19_wizard_exit_minus9.log",
        ),
    ),
    Rule(
        name="scheduler_task_limit",
        category="killed",
        code="LX582",
        priority=85,
        retryable=False,
        patterns=(r"\bTERM_(?:THREADLIMIT|PROCESSLIMIT): [Jj]ob killed",),
        cause="the scheduler (LSF) killed the job for starting more threads or processes than "
        "its limit allows: every rank's intra-op and inter-op threads (one per core by "
        "default), each DataLoader worker and their threads add up; the same command "
        "reaches the same count again.",
        fix="cap the threads: OMP_NUM_THREADS and MKL_NUM_THREADS (launchx sets them per "
        "rank; torch.set_num_threads), fewer DataLoader num_workers; or ask for a higher "
        "limit (bsub -T for threads, -p for processes).",
        fixtures=("killed__mdetr_101_lsf_thread_limit.log",),
    ),
    Rule(
        name="launcher_remote_start",
        category="launcher_died",
        code="LX586",
        priority=70,
        retryable=False,
        patterns=(
            # DeepSpeed's runner checks it can reach every host of the hostfile first
            r"Command '\S*ssh -o PasswordAuthentication=no \S+ hostname' returned non-zero exit "
            r"status 255",
            r"pdsh@\S+: \S+: ssh exited with exit code 255",
            # the runner's own error after that check
            r"but host=\S+ was not reachable via ssh",
            # its ssh to the first host for a master address (`hostname -I`), when no
            # --master_addr was given: a string command in older releases, a list in newer
            # (two spaces after ssh in some releases)
            r"Command '\['ssh +(?:-p \d+ +)?\S+ hostname -I'\]' returned non-zero exit "
            r"status 255",
            r"Command '\['ssh', (?:'-p', '\d+', )?'[^']+', 'hostname', '-I'\]' returned "
            r"non-zero exit status 255",
            # ssh's own words when the host does not answer (pdsh prefixes the host): the
            # runner's check, or pdsh starting the ranks (it ssh-es even to localhost)
            r"ssh: connect to host \S+ port \d+: (?:Connection refused|No route to host"
            r"|Connection timed out|Network is unreachable)",
        ),
        cause="the launcher could not start the ranks of another host: its ssh to that host "
        "failed (ssh's exit 255: no passwordless key for this user, an unknown host key, a "
        "name that does not resolve or a port 22 that does not answer), so no rank ran there; "
        "every launch fails the same way.",
        fix="when the failing command is `ssh <host> hostname -I`, the runner only wanted a "
        "master address: pass --master_addr <node0's address>. Otherwise, from this node, "
        "`ssh -o PasswordAuthentication=no <host> hostname` must print the "
        "host name for every host of the hostfile (ssh-copy-id, accept the host keys, the same "
        "user); or start each node's ranks on that node instead (launchx run --nnodes N "
        "--node-rank R --master-addr <node0>, or srun), with no ssh at all.",
        fixtures=(
            "launcher_died__deepspeed_4907_runner_ssh_check.log",
            "launcher_died__thu_coai_eva_4_hostfile_ssh_unresolved.log",
            "launcher_died__eva_3_deepspeed_runner_ssh_no_route.log",
            "launcher_died__deepspeedexamples_894_autotuning_pdsh_ssh_localhost_refused.log",
            "launcher_died__horovod_2803_ssh_port_timeout.log",
        ),
    ),
    Rule(
        name="launcher_native_crash",
        category="launcher_died",
        code="LX587",
        # above the worker's segfault (LX513): the same "Fatal Python error" line, but the
        # stack under it is the agent's
        priority=78,
        retryable=False,
        patterns=(
            # a faulthandler frame ('line N in f', no comma) in code only the agent runs:
            # torchrun's main and its rendezvous and agent packages (a worker's stack reaches
            # them only through the @record wrapper of errors/__init__.py; elastic's store
            # helpers are also called from workers, by distributed checkpointing)
            r'File "[^"]*torch/distributed/(?:run|launch'
            r'|elastic/(?:rendezvous|agent)/[^"]*)\.py", line \d+ in \w+',
        ),
        # a fatal signal, or the interpreter's own fatal error (Py_FatalError: a C extension
        # that broke the interpreter's rules, e.g. allocating without the GIL)
        context=(r"Fatal Python error: ",),
        cause="the launcher itself (the torchrun agent, not a rank) crashed in native code: "
        "the Python stack under 'Fatal Python error' is the agent's own (its rendezvous or "
        "its worker supervision), so the ranks were never started or were orphaned; it "
        "comes back on every launch with the same installation.",
        fix="the agent runs only torch and Python: suspect the installation (a torch wheel "
        "for another Python, e.g. 3.12 with an older torch; mixed libstdc++ or "
        "LD_PRELOAD/LD_LIBRARY_PATH libraries), reinstall torch in a clean environment, or "
        "take the store off the crashing path (--rdzv-backend static: launchx run "
        "--master-addr/--master-port).",
        fixtures=(
            "launcher_died__transformerengine_1011_torchrun_segfault_rendezvous_py312.log",
            "launcher_died__pytorch_72086.log",
            "launcher_died__pytorch_78061_torchrun_agent_gil_abort.log",
        ),
    ),
    Rule(
        name="launcher_signal_from_shell",
        category="launcher_died",
        code="LX605",
        # above the worker's segfault (LX513), which matches the same shell line
        priority=78,
        retryable=False,
        patterns=(
            # bash's report of a job it started: the launcher's own command line died of a
            # signal (a rank's signal reaches the shell only as the launcher's exit status)
            r": line \d+: +\d+ (?:Segmentation fault|Aborted|Bus error|Floating point exception)"
            r" *(?:\(core dumped\) +)?(?:\w+=(?:\"[^\"]*\"|'[^']*'|\S)*\s+)*(?:\S*/)?"
            r"(?:torchrun|deepspeed|accelerate launch"
            r"|python[\d.]*(?: -\w+)* -m torch\.distributed\.(?:launch|run))\b",
        ),
        cause="the launcher process itself (the torchrun agent, torch.distributed.launch, "
        "the DeepSpeed or accelerate launcher) died of a fatal signal, as the shell that "
        "started it reports: a worker's crash would have reached the shell as the launcher's "
        "exit status, not as its signal. Often at exit, after the training itself finished, "
        "and then on every run with the same installation.",
        fix="check whether the run's work was done (checkpoints, final logs) before the crash; "
        "get the launcher's native stack (PYTHONFAULTHANDLER=1 in the environment of the "
        "launcher, ulimit -c unlimited); suspect mixed libraries in the launcher's process "
        "(LD_PRELOAD, LD_LIBRARY_PATH, a torch wheel for another Python) and reinstall torch "
        "in a clean environment.",
        fixtures=("launcher_died__mmrotate_484_launch_segfault_after_training.log",),
    ),
    Rule(
        name="launcher_code_error",
        category="launcher_died",
        code="LX590",
        # above the user's exception (LX511): the same kind of line, but raised in the agent
        priority=84,
        retryable=False,
        patterns=(r"^(?:TypeError|AttributeError|NameError|ImportError|ModuleNotFoundError):",),
        # the traceback's frames are the launcher's own: torch's elastic agent (which DeepSpeed's
        # and other elastic agents subclass) or DeepSpeed's runner; a worker's stack never
        # holds them
        context=(
            r'File "[^"]*(?:torch/distributed/elastic/agent/|deepspeed/elasticity/elastic_agent'
            r'\.py|deepspeed/launcher/)[^"]*", line \d+, in ',
            # ... or the launcher's own module at its import: torch.distributed.run or launch,
            # torchelastic's launch (a torch built without distributed, a launcher older or
            # newer than the torch); not the elastic package, which a rank imports too
            r'File "[^"]*(?:torch[/\\]distributed[/\\](?:run|launch)'
            r'|torchelastic[/\\]distributed[/\\]launch)\.py", line \d+, in <module>$',
            # ... or a launcher's own command: its console script is the traceback's first
            # frame, which no rank's stack holds (the rank runs the script)
            r'File "[^"]*[/\\]bin[/\\](?:accelerate|torchrun|deepspeed|colossalai)", '
            r"line \d+, in <module>$",
        ),
        cause="the launcher itself failed in its own code before or while starting the "
        "ranks: its agent called torch with arguments this torch no longer takes, or imported "
        "something that is not there (a launcher release older or newer than the installed "
        "torch), so no rank ran; every start fails the same way.",
        fix="install launcher and torch versions made for each other (the launcher's release "
        "notes name the torch it supports: upgrade the launcher, or pin torch to the release "
        "it was built against), or start the ranks with torchrun (launchx run) instead of the "
        "launcher's own elastic agent.",
        fixtures=("launcher_died__deepspeed_4459_elastic_agent_torch2_typeerror.log",),
    ),
    Rule(
        name="posix_signal_on_windows",
        category="launcher_died",
        code="LX754",
        # above the exception line it is (LX511)
        priority=84,
        retryable=False,
        patterns=(
            # Python's signal module on Windows has only SIGINT, SIGTERM, SIGABRT, SIGFPE,
            # SIGILL, SIGSEGV and SIGBREAK: a launcher that kills or watches its children with
            # POSIX signals fails on its first use of one
            # (the ones launchers use to stop and watch their workers; SIGALRM, SIGPIPE or
            # SIGCHLD come as often from a script's own code: LX511)
            r"^AttributeError: module 'signal' has no attribute 'SIG(?:KILL|USR1|USR2|HUP)'",
        ),
        cause="a launcher written for Linux ran on Windows: it uses a POSIX signal (SIGKILL to "
        "stop its workers, SIGUSR1 or SIGHUP to watch them) that Python's signal module does "
        "not have there, and failed in its own code, so the run never started or its workers "
        "were left unmanaged; every start fails the same way.",
        fix="run multi-process training on Linux (or WSL2); on Windows start a single process, "
        "or use a torch release whose launcher supports Windows (torchrun of torch 2.x, with "
        "the gloo backend and USE_LIBUV=0) instead of the old torch.distributed.launch or the "
        "project's own launcher.",
        fixtures=("launcher_died__yolov6_620.log",),
    ),
    Rule(
        name="launcher_module_missing",
        category="launcher_died",
        code="LX755",
        # above the exception line it is (LX511) and the module `python -m` did not find
        # (LX640): here the module is the launcher's own
        priority=86,
        retryable=False,
        patterns=(
            # torchrun's and torch.distributed.launch's entry modules, which every full torch
            # since 1.9 has: the torch on the path is not one (another framework's torch shim,
            # a partial or broken install, a local directory named torch) or is older
            r"No module named 'torch\.distributed\.(?:run|launch)'",
            # `python -m` of a launcher's module by an interpreter without its package: the
            # system Python (a virtualenv's path resolved through its symlink) or the one
            # another node's ssh session starts (DeepSpeed's per-node launcher under pdsh)
            r"Error while finding module specification for '(?:torch\.distributed\.(?:run"
            r"|launch)|deepspeed\.(?:launcher|pt)\.\w+)' \(ModuleNotFoundError: No module named "
            r"'(?:torch|deepspeed)'\)",
            r"^\S*python[\d.]*: No module named (?:torch\.distributed\.(?:run|launch)"
            r"|deepspeed\.(?:launcher|pt)(?:\.\w+)?)$",
        ),
        cause="the launcher could not import its own module (torch.distributed.run or "
        "torch.distributed.launch, DeepSpeed's per-node launcher), so no rank started: the "
        "Python that ran it is not the environment's (the system interpreter a virtualenv's "
        "path resolves to, the one an ssh session on another node starts outside the "
        "container or conda environment), or the `torch` it finds is not a full PyTorch "
        "install (another framework's stand-in package named torch, a half-installed one, "
        "or a directory called torch on the path), or is older than 1.9, which has no "
        "torch.distributed.run (torchrun); every start fails the same way.",
        fix="check what is imported (`python -c 'import torch, torch.distributed as d; "
        "print(torch.__file__, d.is_available())'`, and `ssh HOST which python` for the "
        "other nodes); run the launcher with the environment's interpreter on every node "
        "(DeepSpeed: PATH and PYTHONPATH in ~/.deepspeed_env, or the same container on each "
        "host); uninstall a stand-in package or use a separate virtualenv for it, and "
        "reinstall torch (pip install --force-reinstall torch==<version>); before torch 1.9 "
        "use python -m torch.distributed.launch.",
        fixtures=(
            "launcher_died__jittorllms_94.log",
            "launcher_died__deepspeed_174_pdsh_no_module_remote.log",
            "launcher_died__rocm_te_491_system_python_no_torch.log",
        ),
    ),
    Rule(
        name="accelerate_launch_code_error",
        category="launcher_died",
        code="LX645",
        priority=84,
        retryable=False,
        patterns=(r"^(?:TypeError|AttributeError|NameError|ImportError|ModuleNotFoundError):",),
        # raised in `accelerate launch`'s own command code; its TPU launcher runs the script
        # in the same process (xmp.spawn), so a frame of it above the script's error is not
        # enough
        raised_in=(r'accelerate[/\\]commands[/\\][^"]*", line \d+, in ',),
        cause="`accelerate launch` failed in its own code before starting any process: it "
        "read a setting it expects and found none (releases that need `accelerate config` "
        "first fail on a None mixed_precision or num_processes), or it calls a torch or "
        "deepspeed API that the installed version does not have; every start fails the "
        "same way.",
        fix="run `accelerate config` once (or pass the setting it names on the command line, "
        "such as --mixed_precision no --num_processes 2), and install an accelerate release "
        "made for the installed torch (pip install -U accelerate).",
        fixtures=(
            "launcher_died__diffusers_125_accelerate_launch_simple_launcher_nonetype_lower.log",
        ),
    ),
    Rule(
        name="output_pipe_closed",
        category="launcher_died",
        code="LX786",
        # above LX520, whose BrokenPipeError is a socket's: raised in logging's own write of a
        # record, the pipe is the process's standard output or error
        priority=60,
        retryable=False,
        patterns=(r"^BrokenPipeError: \[Errno 32\] Broken pipe",),
        raised_in=(r'[/\\]logging[/\\]__init__\.py", line \d+, in (?:flush|emit)$',),
        cause="the process wrote a log record to its standard output or error and the pipe "
        "was closed: whatever read it went away (a `| tee` whose own redirection failed, "
        "such as a log directory variable left empty, a `| head`, an ssh session or "
        "terminal that closed); logging reports and drops that record, and the launcher or "
        "rank dies at a later write (a print, or SIGPIPE in a child). A redirection that "
        "cannot be opened fails every run the same way; a closed session does not, but a "
        "rerun from the same terminal meets it again.",
        fix='write the output to a file the job can create (`> "$LOG_DIR/train.log" 2>&1`, '
        "with the directory set and made first), run under nohup, tmux or sbatch rather "
        "than a terminal that may close, and check that each command of the pipeline "
        "starts (`set -o pipefail` makes a failed `tee` fail the job instead).",
        fixtures=("launcher_died__lmflow_574_tee_redirect_broken_pipe.log",),
    ),
    Rule(
        name="horovod_build_check",
        category="launcher_died",
        code="LX711",
        # above the script's exception (LX511): horovodrun raises it in its own code
        priority=84,
        retryable=False,
        patterns=(
            # horovodrun asks the framework extensions what they were built with before it
            # starts anything (horovod/common/util.py, runner/launch.py)
            r"Failed to determine if (?:Gloo|MPI|NCCL|DDL|CCL) support has been built",
            r"Neither MPI nor Gloo support has been built",
        ),
        cause="Horovod could not load any of its framework extensions (horovod.torch and the "
        "others) to ask how they were built (horovodrun asks before it starts anything; a "
        "script's hvd.*_built() call raises the same), or none was built with MPI or Gloo: "
        "Horovod was installed without a working build of its extension for this Python and "
        "torch (the build failed quietly, or torch was upgraded after), so no worker starts; "
        "every start fails the same way.",
        fix="run `horovodrun --check-build` (and `python -c 'import horovod.torch'` for the "
        "import error), then reinstall Horovod against the installed torch: pip uninstall "
        "horovod; HOROVOD_WITH_PYTORCH=1 HOROVOD_WITH_GLOO=1 (or HOROVOD_WITH_MPI=1) pip "
        "install --no-cache-dir horovod; or launch with torchrun instead.",
        fixtures=("launcher_died__gpupool_14.log",),
    ),
    Rule(
        name="deepspeed_no_slot",
        category="cuda_config_error",
        code="LX620",
        # above the launcher's other argument errors (LX621) and the user's exception (LX511)
        priority=85,
        retryable=False,
        patterns=(r"No slot '\d+' specified on host '[^']+'",),
        cause="DeepSpeed's runner was asked for a GPU slot its host does not have: with a "
        "hostfile a host has the slots its slots=N line gives (0..N-1); without one, "
        "localhost has the GPUs the runner counted, and the runner turns CUDA_VISIBLE_DEVICES "
        "itself into --include localhost:<ids>, so ids beyond the visible count ask for "
        "slots that are not there. No rank started; every launch fails the same way.",
        fix="choose GPUs with the runner's own --include localhost:<ids> (or --num_gpus N) and "
        "leave CUDA_VISIBLE_DEVICES unset for it; with a hostfile give each host slots= its "
        "GPU count; or start the ranks with torchrun (launchx run), which takes "
        "CUDA_VISIBLE_DEVICES as it is.",
        fixtures=("cuda_config_error__deepseek_coder_167_deepspeed_no_slot_4.log",),
    ),
    Rule(
        name="deepspeed_runner_arguments",
        category="launcher_died",
        code="LX621",
        # above the user's exception (LX511): the runner's own ValueError, before any rank
        priority=84,
        retryable=False,
        patterns=(
            # --include/--exclude that is not NAME[:SLOT[,SLOT...]][@...]
            r"ValueError: invalid literal for int\(\) with base 10",
        ),
        # raised while the runner reads its resource filters (its own words: LX694)
        context=(r'File "[^"]*deepspeed/launcher/runner\.py", line \d+, in ',),
        cause="DeepSpeed's runner could not read its --include/--exclude before starting any "
        "rank: the value is not NAME[:SLOT,...][@NAME...] (an empty slot list, a stray "
        "separator, or GPU UUIDs: without a hostfile the runner turns CUDA_VISIBLE_DEVICES "
        "itself into --include localhost:<its value>); every launch fails the same way.",
        fix="write --include as host:0,1@host2 (integer indices, no spaces, no empty slot), or "
        "leave CUDA_VISIBLE_DEVICES unset (or set to integer indices) for the runner.",
        fixtures=("launcher_died__deepspeed_2601_runner_include_parse_empty_slot.log",),
    ),
    Rule(
        name="deepspeed_runner_refusal",
        category="launcher_died",
        code="LX694",
        # above the user's exception (LX511): the runner's own ValueError, before any rank
        priority=84,
        retryable=False,
        patterns=(
            # words only DeepSpeed's runner prints, so no frame of it need be shown
            r"ValueError: Hostname '[^']+' not found in hostfile",
            r"ValueError: Hostfile (?:contains a bad entry|contains multiple entries for"
            r"|is empty or not formatted correctly)",
            r"ValueError: Cannot specify num_nodes/gpus with include/exclude",
            r"ValueError: include_str and exclude_str are mutually exclusive",
            r"ValueError: Num nodes is >1 but no extra nodes available via hostfile",
            # its MPI multi-node runners (openmpi, mpich, impi, mvapich, jsrun); older releases
            # assert it
            r"(?:^|(?:ValueError|AssertionError): )\w+ backend does not support (?:limiting num "
            r"nodes/gpus|worker include/exclusion)",
        ),
        cause="DeepSpeed's runner refused its hostfile or its node and GPU options before "
        "starting any rank: a hostfile line that is not '<host> slots=<gpus>' (or a host "
        "listed twice), a host that --include/--exclude names but the hostfile lacks, "
        "--num_nodes/--num_gpus beside --include/--exclude, or --num_nodes/--num_gpus or "
        "--include/--exclude with an MPI launcher (openmpi, mpich, impi, mvapich, jsrun), which "
        "starts a process on every slot of the hostfile (accelerate's DeepSpeed multi-node "
        "launch passes --num_gpus itself); every launch fails the same way.",
        fix="give each hostfile line as '<host> slots=<gpus>' (one line per host), name only "
        "the hostfile's hosts, and choose GPUs either with --include/--exclude or with "
        "--num_gpus/--num_nodes; with an MPI launcher (--launcher openmpi, mpich, impi, "
        "mvapich, jsrun) put the GPU counts in the hostfile's slots= and pass neither.",
        fixtures=(
            "launcher_died__deepspeed_3669.log",
            "launcher_died__accelerate_3319.log",
        ),
    ),
    Rule(
        name="launcher_rejected_arguments",
        category="launcher_died",
        code="LX695",
        # above a script's own argument errors (LX527), below a renamed spelling (LX596)
        priority=86,
        retryable=False,
        patterns=(
            # argparse's "<prog>: error: ..." of the launcher itself: torchrun's, accelerate's
            # ("accelerate <command> [<args>] launch"), DeepSpeed's runner's
            r"^(?:torchrun|accelerate(?: <command> \[<args>\])? launch|deepspeed): error: ",
            # python -m torch.distributed.launch / .run, whose usage line says which it is
            r"^(?:launch|run)\.py: error: ",
        ),
        requires=(
            r"^(?:torchrun|accelerate(?: <command> \[<args>\])? launch|deepspeed): error: ",
            r"^usage: (?:launch|run)\.py \[-h\] \[--nnodes NNODES\]",
        ),
        cause="the launcher rejected its own command line and exited before starting any "
        "rank: a misspelled or unknown flag, a flag without its value or with a value of the "
        "wrong type (a wrapper's variable left empty: --nproc_per_node ''), no script to run "
        "(a launch script whose continuation lines broke), or a launcher too old for a flag; "
        "every launch fails the same way.",
        fix="read the usage line above the error and correct the flag it names (flags go "
        "before the script, the script's own arguments after it); fill the wrapper script's "
        "variables; or let `launchx run --nproc-per-node N train.py` write the launcher's "
        "command line.",
        fixtures=(
            "launcher_died__ocr_pytorch_1.log",
            "launcher_died__accelerate_18.log",
        ),
    ),
    Rule(
        name="launcher_nproc_value",
        category="launcher_died",
        code="LX612",
        # above the user's exception (LX511): torchrun's own ValueError, raised before any rank
        priority=84,
        retryable=False,
        patterns=(
            r"ValueError: Unsupported nproc_per_node value",
            # the int() that fails first, where a paste ran the frame and the error together
            r"in determine_local_world_size\b.*invalid literal for int\(\)",
        ),
        cause="torchrun (or python -m torch.distributed.launch) could not read its "
        "--nproc_per_node: the value is not a number, gpu, cpu or auto. Usually a wrapper "
        "script's variable that was never set (dist_train.sh run without its GPU count leaves "
        "--nproc_per_node empty; SLURM's $SLURM_TASKS_PER_NODE reads '4(x2)' on two nodes of "
        "four tasks), so the launcher stops before starting any rank, every time.",
        fix="pass the count the wrapper expects (bash tools/dist_train.sh CONFIG 8), or give "
        "--nproc_per_node a number (or gpu/auto; under SLURM $SLURM_GPUS_ON_NODE); "
        "`launchx run` counts the visible GPUs itself.",
        fixtures=("launcher_died__bevdet_77_empty_nproc_per_node.log",),
    ),
    Rule(
        name="colossalai_remote_command_failed",
        category="launcher_died",
        code="LX615",
        # a symptom's tier: the runner prints the same line when torchrun did start and a rank
        # failed; any rank's own error in the log is the better cause
        priority=30,
        retryable=False,
        patterns=(
            r"Error: failed to run torchrun .* exception: Encountered a bad command exit code!",
        ),
        # torchrun ran when a rank's traceback or torchrun's own summary came first
        not_after=(
            r"^Root Cause",
            r"failed \(exitcode: -?\d+\) local_rank",
            r"ChildFailedError",
            r"^Traceback \(most recent call last\)",
        ),
        cause="colossalai run's ssh runner reports that its remote command (an export of the "
        "whole environment, a cd, then torchrun) exited non-zero, and no rank's error is in the "
        "log: the chain most likely stopped before torchrun started. The usual reason is bash "
        "refusing to overwrite a readonly variable (UID, SSH_CONNECTION) that the runner "
        "exports, which fails the same way on every start.",
        fix="look above this line for the shell's error (`bash: NAME: readonly variable`); "
        "start torchrun on each node yourself (or `launchx run`, or `launchx sbatch`) instead "
        "of colossalai run's ssh runner, which exports every variable of the launching shell.",
        fixtures=("launcher_died__colossalai_4781_uid_readonly_export.log",),
    ),
    Rule(
        name="colossalai_ssh_failed",
        category="launcher_died",
        code="LX654",
        priority=70,
        retryable=False,
        patterns=(
            # the runner's exception is its SSH library's (fabric/paramiko), not the remote
            # command's exit status, which LX615 reads
            r"Error: failed to run torchrun .* on \S+, is localhost: False, exception: "
            r"(?!Encountered a bad command exit code)",
        ),
        cause="colossalai run could not start torchrun on another host: its SSH connection "
        "(fabric/paramiko) to that host failed (no key it may use, authentication refused, "
        "host unreachable), so that node never joined and the run cannot start.",
        fix="make `ssh HOST true` work from the launching node without a prompt for every "
        "host of the hostfile (an SSH key in ~/.ssh/authorized_keys there, the right user and "
        "port in ~/.ssh/config); or start torchrun on each node yourself (`launchx run` per "
        "node, or `launchx sbatch`), which needs no SSH between the nodes.",
        fixtures=("launcher_died__colossalai_3066_ssh_no_authentication_methods.log",),
    ),
    Rule(
        name="windows_launcher_stub",
        category="launcher_died",
        code="LX616",
        priority=70,
        retryable=False,
        patterns=(
            # setuptools' (and conda's) stub, which starts the #! line of <name>-script.py
            r"^failed to create process\.$",
            # pip's (distlib's) stub, which carries the interpreter's path itself
            r"^Fatal error in launcher: Unable to create process using",
        ),
        cause="a Windows console-script stub (torchrun.exe, accelerate.exe, a CLI's .exe) "
        "could not start the Python interpreter it names: the environment was moved or renamed "
        "after the package was installed, or the package was built elsewhere (conda's torch "
        "once shipped a torchrun-script.py whose #! line named its build machine's path). No "
        "rank ran, and every start fails the same way.",
        fix="start it through the interpreter: python -m torch.distributed.run ... instead of "
        "torchrun (python -m accelerate.commands.launch for accelerate); or correct the #! line "
        "of Scripts\\<name>-script.py, or reinstall the package with the package manager that "
        "installed it.",
        fixtures=("launcher_died__llamafactory_5719_windows_failed_to_create_process.log",),
    ),
    Rule(
        name="launcher_not_found",
        category="launcher_died",
        code="LX589",
        priority=70,
        retryable=False,
        patterns=(
            # slurmstepd could not exec the step's command (a launcher, or the shell or
            # interpreter that runs it, missing on the node or in the container); the shell
            # could not find it
            r"execve\(\): (?:\S*/)?(?:torchrun|deepspeed|accelerate|horovodrun|composer|mpirun"
            r"|launchx|bash|sh|python[\d.]*): (?:No such file or directory|Permission denied)",
            # (srun and sbatch: a launch script written for Slurm run on a machine without it)
            r"(?:^|: )(?:torchrun|deepspeed|accelerate|horovodrun|composer|mpirun|mpiexec"
            r"|srun|sbatch|launchx): command not found$",
            # zsh's word order
            r"^zsh: command not found: (?:torchrun|deepspeed|accelerate|horovodrun|composer"
            r"|mpirun|mpiexec|srun|sbatch|launchx)$",
            # dash (/bin/sh of Debian and Ubuntu), which a program's os.system() runs, and
            # which runs a launch script started as `sh train.sh` ("train.sh: 1: srun: not
            # found")
            r"^(?:(?:/bin/)?sh|\S+\.sh): \d+: (?:\S*/)?(?:torchrun|deepspeed|accelerate"
            r"|horovodrun|composer|mpirun|mpiexec|srun|sbatch|launchx): not found$",
            # DeepSpeed's runner, when the multi-node launcher it is told to use is missing
            r"RuntimeError: launcher '\w+' not installed\.",
            # the launcher's console script naming, in its first line, a Python that is not
            # there (an environment moved or renamed after the install)
            r"/bin/(?:torchrun|deepspeed|accelerate|horovodrun|composer|launchx): (?:\S*/)?"
            r"python[\d.]*: bad interpreter: No such file or directory",
            # horovodrun starting its task function on the hosts with this host's interpreter
            r"Launching horovodrun task function was not successful",
        ),
        cause="the launcher (or the multi-node launcher it calls: DeepSpeed's pdsh, mpirun; "
        "or the shell or Python a Slurm step or horovodrun runs it with) was never started: "
        "the node that ran it has no such command on its PATH or at the path it was given "
        "(the environment that installs it was not activated in the batch script, a module "
        "or container that lacks it, a path that exists only on the login node or the "
        "launching host, an environment moved after install so its scripts name a Python "
        "that is gone), so no rank ran; every submission fails the same way.",
        fix="activate the environment inside the batch script before the launcher (source "
        ".venv/bin/activate, module load, conda activate), or call it through the interpreter "
        "that has torch (python -m torch.distributed.run ...); check with `srun -N1 which "
        "torchrun` in the same allocation. For DeepSpeed install pdsh on the node that runs "
        "the deepspeed command (it reaches the others over ssh) or pass an installed "
        "--launcher (openmpi, slurm).",
        fixtures=(
            "launcher_died__cscfi_ddp_examples_1_torchrun_execve_missing.log",
            "launcher_died__llamafactory_5217.log",
            "launcher_died__itwinai_472_srun_execve_bash.log",
            "launcher_died__deepspeed_4254_bad_interpreter.log",
            "launcher_died__horovod_1396_remote_python_missing.log",
            "launcher_died__safecount_16_srun_not_found.log",
        ),
    ),
    Rule(
        name="slurm_auth_failed",
        category="launcher_died",
        code="LX765",
        priority=70,
        retryable=False,
        patterns=(
            # Slurm's MUNGE plugin (src/plugins/auth/munge/auth_munge.c) when there is no
            # munged to ask on this node (not a busy one, which times out: that passes), at
            # error level (its "(retrying ...)" lines are debug output that may still succeed)
            r"^(?:(?:srun|sbatch|salloc|squeue|scontrol|sinfo|sacct|scancel)(?:-[\w.-]+)?: )?"
            r'error: Munge encode failed: Failed to access "[^"]*munge\.socket[^"]*": '
            r"(?:No such file or directory|Connection refused|Permission denied)$",
            # ... the request it could not sign, of those made before any rank runs (not a
            # step's completion message sent at the end, after the run's own failure)
            r"auth_g_create: REQUEST_(?:RESOURCE_ALLOCATION|SUBMIT_BATCH_JOB|JOB_STEP_CREATE"
            r"|JOB_ALLOCATION_INFO) has authentication error",
            # ... and the command's verdict, which is also what a key that differs from the
            # controller's, or a clock out of step with it, gets back
            r"^(?:srun|sbatch|salloc): error: (?:Unable to allocate resources|Unable to "
            r"create step for job \d+|Batch job submission failed|Job submit/allocate failed): "
            r"Protocol authentication error",
        ),
        cause="a Slurm command could not get a signed request accepted by slurmctld: the "
        "MUNGE daemon on the node it runs on is not running (no socket at "
        "/var/run/munge/munge.socket.2) or not reachable inside the container the job was "
        "started from, so the request could not be signed; or the controller could not "
        "decode it (a munge.key that differs from the controller's, clocks out of step). No "
        "allocation or step was made, so no rank ran; every submission from that node fails "
        "the same way.",
        fix="start munged on the node (`systemctl start munge`; `munge -n | unmunge` must "
        "succeed, and `munge -n | ssh <controller> unmunge` across nodes), give every node "
        "the cluster's /etc/munge/munge.key, keep the clocks in step (chrony or NTP), and "
        "from a container bind /var/run/munge (or /run/munge) into it; then submit again.",
        fixtures=("launcher_died__openpvsg_17_srun_munge_auth.log",),
    ),
    Rule(
        name="slurm_config_missing",
        category="launcher_died",
        code="LX811",
        priority=70,
        retryable=False,
        patterns=(
            # a Slurm command on a node with no slurm.conf and no configless controller to
            # fetch one from (src/common/read_config.c: the DNS SRV record of configless mode
            # is the last place it looks), or a slurm.conf it cannot read
            r"^(?:(?:srun|sbatch|salloc|squeue|scontrol|sinfo)(?:-[\w.-]+)?: )?fatal: Could not "
            r"establish a configuration source$",
            r"^(?:(?:srun|sbatch|salloc|squeue|scontrol|sinfo)(?:-[\w.-]+)?: )?fatal: Unable to "
            r"process configuration file$",
        ),
        cause="a Slurm command (srun, sbatch) ran on a machine where Slurm is not set up: it "
        "found no slurm.conf and no configless controller to fetch one from, so it exited "
        "before any rank ran. A launch script written for a Slurm cluster was run outside one "
        "(a workstation, a container, a cloud node of another scheduler).",
        fix="run it on the cluster's login node, where `sinfo` works (or bind /etc/slurm into "
        "the container); on a machine without Slurm, start the ranks with torchrun instead "
        "(launchx run --profile local, or torchrun --nproc-per-node N script.py).",
        fixtures=("launcher_died__internvideo_196_srun_no_slurm_config.log",),
    ),
    Rule(
        name="nccl_invalid_usage",
        category="nccl_invalid_usage",
        code="LX516",
        priority=70,
        patterns=(
            r"ncclInvalidUsage",
            r"\binvalid usage\b.*NCCL version",
            # vLLM's pynccl wrapper: "RuntimeError: NCCL error: invalid usage (run with ...)"
            r"NCCL error: invalid usage \(run with NCCL_DEBUG",
            # TensorRT-LLM's check macro ("NCCL error ../tensorrt_llm/runtime/...cpp:90
            # 'invalid usage (run with NCCL_DEBUG=WARN for details)'")
            r"NCCL error \S+:\d+ 'invalid usage\b",
            r"NCCL Error 5\b",
            r"Mismatched collective detected",
            r"message truncated : receiving \d+ bytes instead of \d+",
            r"NET/Socket : peer \S+ message truncated",
            r"ncclInvalidArgument",
            r"\binvalid argument\b.*NCCL version",
            # torch 1.x's wording, without the version ("NCCL error in: .../NCCLUtils.hpp:39,
            # invalid argument")
            r"\bNCCL error in: \S+:\d+, invalid (?:argument|usage)$",
            r"NCCL Error 4\b",
            # extensions' own check macros print the result's number: 4 ncclInvalidArgument,
            # 5 ncclInvalidUsage
            r"NCCL Error at \S+:\d+ value [45]\b",
            r"Trying to (?:send|recv) to self without a matching (?:recv|send)",
            r"NCCL WARN \w+ : invalid root -?\d+ \(root should be in the",
            r"NCCL WARN \w+ : invalid (?:type|reduction operation) -?\d+",
            r"allocated on device \d+ mismatchs with NCCL device \d+",
            # misc/argcheck.cc's pointer checks: a NULL communicator (NCCL called before or
            # without ncclCommInitRank) or a buffer that is not device memory
            r"NCCL WARN \w+ : \w+ argument is NULL",
            r"NCCL WARN \w+ : \w+ (?:0x[0-9a-f]+ |\(nil\) )?is not a valid pointer",
            r"ncclGroupEnd: not in a group call",
        ),
        cause="NCCL rejected how it was called or configured: ranks called different "
        "collectives or sizes (mismatched collective, message truncated), an invalid "
        "NCCL_ALGO/NCCL_PROTO value (NCCL >= 2.24 fails at init on an unknown token), or "
        "tensors on the wrong device.",
        fix="make every rank call the same collectives in the same order with same-shaped "
        "tensors (rerun with TORCH_DISTRIBUTED_DEBUG=DETAIL to see which differ), and give "
        "every node the same NCCL_* environment; unset NCCL_ALGO/NCCL_PROTO or write them as "
        "comma lists of valid names (Ring,Tree).",
        fixtures=(
            "nccl_invalid_usage__fairseq_2924_interleaved.log",
            "nccl_invalid_usage__nccl_296_mismatched_collective.log",
            "nccl_invalid_usage__fastmoe_149_null_comm_single_gpu.log",
            "nccl_invalid_usage__fastmoe_27_distributed_expert_value4.log",
            "nccl_invalid_usage__trl_3310_vllm_serve_dp_nccl_init.log",
            "nccl_invalid_usage__pytorch_examples_484_missing_world_size.log",
            "nccl_invalid_usage__tensorrt_llm_9263.log",
        ),
    ),
    Rule(
        name="nccl_internal_error",
        category="nccl_internal_error",
        code="LX517",
        priority=65,
        patterns=(
            r"ncclInternalError",
            r"\binternal error\b.*NCCL version",
            r"NCCL Error 3\b",
            r"NCCL error: internal error",
            # ncclGetErrorString's own text, as libraries other than torch print it
            r"internal error - please report this issue to the NCCL developers",
            # Habana's HCCL process group (Gaudi), when its collective fails with no detail
            r"what\(\): Collective call returned error\b",
            # the Neuron runtime's collectives (ENC) on Trainium/Inferentia failing to build a
            # replica group's rings, before the process aborts
            r"ENC:\w+ +.*(?:failed to reuse global comm devmem reservation"
            r"|has less channels than this replica group)",
        ),
        cause="NCCL hit an internal check; in practice often a peer that vanished during "
        "setup ('Socket recv failed') or ranks configured differently.",
        fix="check the other ranks' logs for the first failure, make sure every node runs the "
        "same torch/NCCL and the same NCCL_* environment, and rerun with NCCL_DEBUG=INFO "
        "NCCL_DEBUG_SUBSYS=INIT,NET to see the failing call.",
        fixtures=(
            "nccl_internal_error__nccl_1546.log",
            "nccl_internal_error__pytorch_78638_init_barrier.log",
            "nccl_internal_error__tensorrt_llm_213_allreduce_plugin_mpirun.log",
            "nccl_internal_error__optimum_habana_505_gaudi_ray_multinode_hccl_collective.log",
            "nccl_internal_error__optimum_neuron_761_trn1_32proc_enc_replica_group_assert.log",
        ),
    ),
    Rule(
        name="nccl_remote_error",
        category="nccl_internal_error",
        code="LX614",
        # below every rule that reads the remote error's detail (a reset or closed socket,
        # LX520; an IB completion, LX518): ncclRemoteError alone says only "a peer or the
        # network", which is the category list's "remote error with no better cause"
        priority=54,
        # how a run died, not why, like a closed socket: retried once a checkpoint exists
        on_progress=True,
        patterns=(
            r"ncclRemoteError",
            r"remote process exited or there was a network error",
        ),
        cause="NCCL reported a remote error: a peer's process exited in the middle of a "
        "collective, or the network between them failed; without NCCL_DEBUG=WARN output the "
        "log does not say which.",
        fix="read the other ranks' and nodes' output for the first failure (a crash, an OOM, a "
        "kill is the cause); if none is there, rerun with NCCL_DEBUG=WARN (or INFO with "
        "NCCL_DEBUG_SUBSYS=INIT,NET) in the profile's env to see the failing connection.",
        fixtures=("nccl_internal_error__nccl_934_remote_error_no_detail.log",),
    ),
    Rule(
        name="ib_qp_rejected",
        category="ib_error",
        code="LX563",
        priority=61,
        retryable=False,
        patterns=(r"ibv_modify_qp failed with error (?:Invalid argument|No such device)",),
        cause="the HCA rejected NCCL's queue-pair settings while the ranks connected (EINVAL "
        "or ENODEV from ibv_modify_qp): a GID index that does not exist or has no address on "
        "this port (RoCE: a link-local fe80 GID), "
        "an MTU or port the device does not offer, a port that is down; that is the host's "
        "configuration, and the next attempt is rejected the same way.",
        fix="check the ports and their GIDs (ibv_devinfo -v, show_gids): on RoCE set "
        "NCCL_IB_GID_INDEX to an index with the right address family (often 3), pick only "
        "active ports with NCCL_IB_HCA, and compare the NCCL version with one that worked.",
        fixtures=(
            "ib_error__nccl_302_ibv_modify_qp_invalid_argument_regression.log",
            "ib_error__nccl_1657_vllm_pod_ibv_modify_qp_no_such_device.log",
        ),
    ),
    Rule(
        name="tensorpipe_ibv",
        category="ib_error",
        code="LX630",
        # above the user's exception rule (LX511): TensorPipe raises it as a RuntimeError
        priority=82,
        retryable=False,
        patterns=(r"at tensorpipe/common/ibv\.h:\d+ \"[^\"]*\": \w",),
        cause="torch.distributed.rpc's TensorPipe agent could not start its InfiniBand (ibv) "
        "transport: the verbs device it found refuses what it asks for (EFA and other "
        "devices without reliable-connected queue pairs, a libibverbs unlike the one "
        "TensorPipe was built against, a port that is down) or cannot register memory with "
        "it (a locked-memory limit); it fails the same way on every start.",
        fix="keep the RPC agent off InfiniBand: init_rpc(..., rpc_backend_options="
        "rpc.TensorPipeRpcBackendOptions(_transports=['uv'])) (TCP; add _channels=['basic'] "
        "if a channel fails too); check the device with ibv_devinfo and the memlock limit "
        "(ulimit -l unlimited; launchx doctor checks it on every node).",
        fixtures=(
            "ib_error__tensorpipe_413_init_rpc_ibv_invalid_argument.log",
            "ib_error__pytorch_73885_fairscale_pytest_ibv_not_supported.log",
        ),
    ),
    Rule(
        name="tensorpipe_uv_listener_address",
        category="nccl_config_error",
        code="LX791",
        # above the "terminate called" abort it ends in (LX676's segfault reading), beside
        # the other rules that name a bind's address (LX580, LX741)
        priority=60,
        retryable=False,
        patterns=(
            # TensorPipe's TCP (uv) transport binding its listener to the address it picked
            # for this host: EINVAL from bind(2) on an IPv6 link-local address, which needs a
            # scope (interface) that the auto-detected address lacks
            r"In initFromLoop at \S*tensorpipe/transport/uv/listener\.cc:\d+ "
            r"\"rv < 0: invalid argument\"",
        ),
        cause="torch.distributed.rpc's TensorPipe agent could not listen on the address it "
        "chose for this host: with no interface named it resolves the host name, and where "
        "that gives an IPv6 link-local address (fe80::) bind(2) refuses it without an "
        "interface, on every start.",
        fix="name the interface the workers share: TP_SOCKET_IFNAME=<iface> (with "
        "GLOO_SOCKET_IFNAME for the process group) in the profile's env; or make the host "
        "name resolve to a routable IPv4 address (/etc/hosts).",
        fixtures=("nccl_config_error__tensorpipe_224_uv_listener_invalid_argument.log",),
    ),
    Rule(
        name="ascend_rdma_init",
        category="ib_error",
        code="LX639",
        priority=62,
        retryable=False,
        patterns=(
            # HCCL on Ascend NPUs, when the device's RoCE NIC will not start: "[Init][RaRdma]
            # ... rdma init fail" and "ra rdma init failed, devid[0] ip[...]"
            r"\[Init\]\[RaRdma\].*rdma init fail",
            r"\bra rdma init failed, devid\[\d+\]",
        ),
        cause="HCCL could not start RDMA (RoCE) on an NPU's own network port, so the ranks "
        "cannot link across devices or nodes: the port is down (no cable, a switch port "
        "shut) or has no IP address; HCCL then fails to listen on that address. Nothing "
        "changes by itself before the next attempt.",
        fix="check each NPU's port with hccn_tool (`hccn_tool -i <dev> -link -g` for the "
        "link, `-ip -g` for its address, `-net_health -g` for its reach), then bring the "
        "link up or configure the address.",
        fixtures=("ib_error__vllm_ascend_1815_npu_rdma_init_port_down.log",),
    ),
    Rule(
        name="hccl_listen_port",
        category="port_in_use",
        code="LX742",
        # a symptom's tier: the same line follows a device port that is down (LX639), which
        # says more
        priority=45,
        retryable=False,
        patterns=(
            # HCCL's plog on a socket it could not listen on ("socket type[0], listen on
            # ip[192.2.2.195] and specific port[16666] fail. Please check the port status and
            # whether the port is been using by other process."), under whichever stage's tag;
            # types 0 and 1 are an NPU's own address, type 2 the host's NIC
            r"socket type\[\d+\], listen on ip\[[^\]]*\] and specific port\[\d+\] fail",
            # ... and the error codes CANN prints for it on the console
            r"Communication_Error_Bind_IP_Port\(EI0020\)",
            r"Bind_Failed\(EJ0003\): Failed to bind the IP port",
        ),
        cause="HCCL could not listen on its port (16666 by default on an NPU's own address): "
        "another process uses it (a second process or serving instance on the same NPU, a "
        "transfer engine, a run that has not exited), or the address is down or missing; "
        "while the holder runs, every start fails the same way.",
        fix="when several processes share an NPU, give each its own port: for a "
        "communicator created from root info, HCCL_NPU_SOCKET_PORT_RANGE=auto (or a range; "
        "HCCL_HOST_SOCKET_PORT_RANGE for the host NIC's, socket type 2), set on every card "
        "of the communicator; with a rank table, a distinct device_port/host_port for each "
        "process; stop a leftover process (npu-smi info lists each NPU's processes); check "
        "the address with `hccn_tool -i <dev> -link -g` and `-ip -g`.",
        fixtures=("port_in_use__vllm_ascend_4725.log",),
    ),
    Rule(
        name="hccl_error_cqe",
        category="ib_error",
        code="LX708",
        # above the watchdog's abort (LX676) that carries it
        priority=62,
        patterns=(
            # HCCL's EI0013 (RoCE) and EI0018 (UB): the NIC gave up retransmitting to a peer
            r"Execution[_ ]Error[_ ](?:ROCE|UB)[_ ]CQE\(EI00(?:13|18)\)",
            r"An error CQE occurred during operator execution",
            # the RoCE driver's own line in CANN's log
            r"handle_error_cqe\(\d+\) ?: error cqe status: 0x[0-9a-fA-F]+",
        ),
        cause="an NPU's RoCE (or UB) link to a peer exhausted its retransmissions in the "
        "middle of a collective (HCCL's ERROR CQE, EI0013): the link between the two devices "
        "dropped or flapped, or the peer's process had already exited, so nothing answered.",
        fix="first check whether the peer rank (the log names its server and device) died "
        "earlier, and read its log; else check both ports with hccn_tool (`-link -g`, "
        "`-net_health -g`, `-link_stat -g` for flaps) and the switch; a link that flaps "
        "recovers between attempts, a dead peer's cause does not.",
        fixtures=("ib_error__vllm_ascend_7384.log",),
    ),
    Rule(
        name="ib_memory_registration",
        category="ib_error",
        code="LX567",
        priority=62,
        retryable=False,
        patterns=(
            # (ENOMEM too: a registration the locked-memory limit or the driver refuses; other
            # verbs calls failing with it are NCCL's system error, LX519)
            r"ibv_reg(?:_dmabuf)?_mr\w* failed with error (?:Invalid argument|Bad address"
            r"|Cannot allocate memory)",
            # Mooncake's transfer engine (SGLang's and vLLM's prefill/decode KV transfers)
            # registering its buffers: glog's PLOG appends strerror and errno
            r"^(?:\S*rdma_context\.cpp:\d+\] )?Failed to register memory (?:0x)?[0-9a-fA-F]+: "
            r"[A-Z][a-z][\w ,'-]* \[\d+\]",
            # UCX's (NIXL's UCX backend) registering the KV cache with the NIC
            r"\bUCX +ERROR +ibv_reg(?:_dmabuf)?_mr\(address=0x[0-9a-fA-F]+, length=\d+, "
            r"access=0x[0-9a-fA-F]+\) failed: ",
            # UCCL's expert-parallel proxies (a DeepEP-compatible engine) registering their
            # RDMA buffers
            r"\bRDMA buffer MR registration failed: ",
        ),
        cause="NCCL's IB transport (or an engine's RDMA transfer engine: Mooncake, NIXL's UCX "
        "backend, UCCL's proxies) could not register the buffers with the HCA (EINVAL, EFAULT "
        "or EOPNOTSUPP from ibv_reg_mr, ENOMEM, or another errno from a driver that cannot "
        "map that memory): usually "
        "GPU memory without GPUDirect RDMA (the nvidia-peermem module not loaded, or a "
        "container without it), or a locked-memory limit too low (ENOMEM; with memlock "
        "unlimited, ENOMEM is the kernel's or the NIC driver's); the host's "
        "configuration, so the next attempt fails the same way.",
        fix="load GPUDirect RDMA (modprobe nvidia-peermem, or NCCL_DMABUF_ENABLE=1 on a kernel "
        "and driver with dma-buf), raise the memlock limit (ulimit -l unlimited; --ulimit "
        "memlock=-1 in containers; for ENOMEM with memlock already unlimited, boot the "
        "previous kernel or NIC driver), or keep the traffic in host memory with "
        "NCCL_NET_GDR_LEVEL=LOC to confirm; launchx doctor checks memlock on every node.",
        fixtures=(
            "ib_error__ms_swift_6107_ibv_reg_mr_invalid_argument.log",
            "ib_error__sglang_6894.log",
            "ib_error__dynamo_10671.log",
            "ib_error__mooncake_454.log",
            "ib_error__uccl_937.log",
            "ib_error__miaai_dgx_sparks_14.log",
        ),
    ),
    Rule(
        name="nvshmem_ib_setup",
        category="ib_error",
        code="LX697",
        # above the crash it leads to (LX513): NVSHMEM goes on with the endpoint it could not
        # make, and the ranks die of SIGSEGV in its code
        priority=77,
        retryable=False,
        patterns=(
            # NVSHMEM's IB transports (ibrc, ibgda, ibdevx) as DeepEP and Flux run them
            r"transport/ib\w+/\w+\.cpp:\d+: (?:NULL value |non-zero status: \d+ )?"
            r"(?:cq|qp|srq|pd|mr|ep)(?: creation|_create) failed",
            # its GPU-initiated transport (IBGDA) setting up its own verbs objects: an address
            # handle, the DC target, the doorbell page (a container without the privileges or
            # a NIC without the features it needs)
            r"transport/ibgda/ibgda\.cpp:\d+: (?:NULL value |non-zero status: \d+ )?"
            r"(?:Unable to create ah\b|create DCT share err\b|cannot allocate mlx5dv_devx_\w+)",
        ),
        cause="NVSHMEM's InfiniBand transport (DeepEP's, Flux's) could not create its queues or "
        "endpoints on the HCA, so no connection between the GPUs' processes was made and the "
        "ranks crashed in NVSHMEM right after: usually a locked-memory limit too low for the "
        "queues, a container that sees the HCA without its verbs devices, or more queues than "
        "the HCA allows; the host's set-up, so the next attempt fails the same way.",
        fix="raise the memlock limit (ulimit -l unlimited; --ulimit memlock=-1 and "
        "--device=/dev/infiniband in containers), check `ibv_devinfo` inside the container, "
        "and name the HCAs NVSHMEM may use (NVSHMEM_HCA_LIST / NVSHMEM_ENABLE_NIC_PE_MAPPING); "
        "`launchx doctor` checks memlock and the HCAs on every node.",
        fixtures=(
            "ib_error__deepep_126.log",
            "ib_error__megatron_bridge_5050.log",
            "ib_error__sglang_12533.log",
        ),
    ),
    Rule(
        name="ib_completion_error",
        category="ib_error",
        code="LX518",
        priority=60,
        patterns=(
            r"NET/IB\w* ?: ?Got completion from peer",
            r"NET/IB : Got completion with error",
            r"NET/IB : .*ibv_\w+ failed",
            r"ibv_modify_qp failed",
            r"IBV_WC_RETRY_EXC_ERR|transport retry counter exceeded",
            r"NET/IB ?: (?:\S+:\d+ )?(?:Got )?async (?:fatal |error )?event",
            r"NET/IB: Got CQE with error",
            r"NET/IB: Fatal error\. Detected \d+ failed devices",
        ),
        cause="an InfiniBand/RoCE transfer failed (status 12 = transport retries exhausted: the "
        "two NICs cannot reach each other, or the fabric is congested or flapping).",
        fix="check the links (ibstat, ibv_devinfo, ib_write_bw between the two hosts); select "
        "only connected HCAs with NCCL_IB_HCA (prefix match; '=mlx5_0' for exact); on RoCE "
        "with NCCL < 2.21 set NCCL_IB_GID_INDEX (often 3); on rail-optimized fabrics "
        "NCCL_CROSS_NIC=0; for congestion raise NCCL_IB_TIMEOUT to 22-23 (default 20, "
        "about 30 s with 7 retries), not 30.",
        fixtures=("ib_error__nccl_1405.log", "ib_error__nccl_394_gid_table_change.log"),
    ),
    Rule(
        name="ucx_completion_error",
        category="ib_error",
        code="LX713",
        # the same tier as NCCL's completion errors (LX518)
        priority=60,
        patterns=(
            # UCX (NIXL's and LMCache's transports in prefill/decode serving, UCC) reporting
            # a work completion with an error status: mlx5's syndrome per device and port
            r"\bUCX +(?:ERROR|FATAL) (?:[A-Za-z -]+ error|Transport retry count exceeded"
            r"|Receive-no-ready retry count exceeded|Remote side aborted|Bad response"
            r"|Invalid request|Generic) on \S+:\d+/(?:IB|RoCE)\b",
            # ... any syndrome by its tail, as UCX 1.15 and older print them ("Local
            # protection on mlx5_0:1/IB (synd 0x4 ...)", without "error")
            r"\bUCX +(?:ERROR|FATAL) [A-Z][A-Za-z -]* on \S+:\d+/(?:IB|RoCE) \(synd 0x",
            # ... and the verbs transports' and EFA's (SRD) completions
            r"\bUCX +(?:ERROR|FATAL) (?:send|recv|receive) completion(?:\[\d+\])? with error "
            r"on \S+: ",
        ),
        cause="an RDMA transfer made by UCX (the KV-cache transfer of a prefill/decode "
        "deployment through NIXL or LMCache, or another UCX user) completed with an error: "
        "the NIC reported a protection or access fault on a buffer (memory not registered for "
        "RDMA, GPUDirect missing, a remote buffer already freed), gave up retransmitting to "
        "a peer that did not answer (a link down, the peer gone), or flushed its queue after "
        "an earlier error.",
        fix="read the first error of the run: a flushed queue follows the peer's own failure; "
        "for protection or access errors check GPUDirect RDMA (nvidia-peermem or dma-buf) and "
        "the memlock limit on both nodes, and try UCX_TLS=rc,cuda_copy (or tcp) to tell the "
        "fabric from the buffers; check the links with ibv_devinfo / fi_info.",
        fixtures=("ib_error__dynamo_843.log", "ib_error__nixl_1983.log"),
    ),
    Rule(
        name="mooncake_qp_handshake",
        category="ib_error",
        code="LX681",
        priority=60,
        patterns=(
            # Mooncake's transfer engine (SGLang's and vLLM's prefill/decode transfers) moving
            # its queue pair to ready-to-receive or ready-to-send in its RDMA handshake
            r"\[Handshake\] Failed to modify QP to RT[RS]\b",
        ),
        cause="Mooncake's transfer engine could not bring up an RDMA connection to a peer "
        "during its handshake: the queue pair refused the move to ready-to-receive or "
        "ready-to-send with the address it was given (the peer's GID, LID and QP number, "
        "the path MTU). 'Connection timed out' (110): on RoCE the peer's GID could not be "
        "resolved to a route (a GID index of the wrong RoCE version or address family, "
        "another subnet or rail, a port down); 'Invalid argument' (22): a GID index or MTU "
        "the port does not have.",
        fix="compare the two hosts' devices (ibv_devinfo: port state and active MTU; "
        "show_gids: the RoCE v2 entry of each port), set Mooncake's GID index (MC_GID_INDEX) "
        "and MTU (MC_MTU) to what both ports have, give it the NICs that reach the peer, and "
        "test the pair with ib_write_bw before starting the engine again.",
        fixtures=("ib_error__sglang_6548_pd_mooncake_qp_rtr_timeout.log",),
    ),
    Rule(
        name="ib_collective_mismatch",
        category="ib_error",
        code="LX558",
        priority=60,
        retryable=False,
        patterns=(
            r"NET/IB ?: .*collective mismatch error",
            r"NET/IB ?: .*posted incorrect receive info",
        ),
        cause="NCCL's IB transport received a message of another size than the one posted "
        "although the ranks called the same collective: on InfiniBand/RoCE this is almost "
        "always the NICs' configuration (relaxed ordering forced on, a PCIe setting), so it "
        "repeats on every run.",
        fix="check the NICs' ordering setting (mlxconfig ... q PCI_WR_ORDERING must say "
        "per_mkey, not force_relax), try NCCL_PROTO=Simple, and compare with NCCL_IB_DISABLE=1 "
        "(if that works the IB setup is the cause); if it persists, check that every rank "
        "calls the same collectives with the same sizes (TORCH_DISTRIBUTED_DEBUG=DETAIL).",
        fixtures=("ib_error__nccl_615_ib_collective_mismatch.log",),
    ),
    Rule(
        name="nvshmem_ib_connect",
        category="ib_error",
        code="LX600",
        priority=61,
        retryable=False,
        patterns=(
            # NVSHMEM's GPU-initiated (IBGDA) and host (IBRC) transports moving a queue pair
            # to ready-to-receive: the fabric's addressing (RoCE GID, MTU) is refused
            r"Error in mlx5dv_devx_obj_modify for \w+_QP",
            r"ibgda_rc_init2rtr failed",
        ),
        cause="NVSHMEM (used by DeepEP and other expert-parallel kernels) could not bring its "
        "InfiniBand/RoCE queue pairs to the ready state while connecting the ranks: the NIC "
        "refused the connection's addressing (on RoCE usually the GID index or the MTU, or "
        "GPU-initiated IBGDA not enabled in the driver), so every start fails the same way.",
        fix="check the NIC's GID table (show_gids) and on RoCE set NVSHMEM_IB_GID_INDEX (often "
        "3, as NCCL_IB_GID_INDEX); check that the GPU driver allows IBGDA (DeepEP's NVSHMEM "
        "notes: options nvidia NVreg_EnableStreamMemOPs=1 "
        'NVreg_RegistryDwords="PeerMappingOverride=1;") or fall back with '
        "NVSHMEM_IB_ENABLE_IBGDA=false; and that plain NCCL over the same NICs works (an "
        "nccl-tests all_reduce across the nodes).",
        fixtures=("ib_error__deepep_17_h20_roce_ibgda_init2rtr.log",),
    ),
    Rule(
        name="rdma_transfer_engine_setup",
        category="ib_error",
        code="LX703",
        priority=61,
        retryable=False,
        patterns=(
            # Mooncake's transfer engine (KV-cache and weight transfer in vLLM, SGLang and
            # checkpoint-engine) after it disabled every device it found
            r"RdmaTransport: No available RNIC",
            r"RdmaTransport: cannot initialize RDMA resources",
            # UCX's mlx5 transport (NIXL's UCX backend) refused a queue object by the NIC
            r"UCX +ERROR +mlx5dv_devx_obj_create\(\w+\) failed on \w+",
            # ... or an address handle for a peer it connects to (its GID on RoCE)
            r"UCX +ERROR +ibv_create_ah\(.*\) for \w+(?: mlx5)? connect on \w+ failed",
        ),
        cause="the RDMA engine that moves KV cache or weights between processes (Mooncake's "
        "RdmaTransport, NIXL's UCX backend) could not set up the InfiniBand/RoCE NIC: no "
        "device with an active port (the NIC disabled, its link down, the wrong device "
        "named), or the NIC refused to create the engine's queues (firmware, driver and "
        "OFED out of step, a GPU-initiated mode the driver does not enable, the locked-memory "
        "limit or the NIC's queue limits reached), or could not make an address handle for a "
        "peer (on RoCE, a GID index without an address or a peer subnet the port cannot "
        "reach); it usually fails the same way on every start.",
        fix="check the NIC with `ibv_devinfo` (state: PORT_ACTIVE) and `ibstat`; name an "
        "active device to the engine (Mooncake's device list, UCX_NET_DEVICES=mlx5_0:1 for "
        "UCX; on RoCE the GID index with the port's address, UCX_IB_GID_INDEX); raise the "
        "locked-memory limit (ulimit -l unlimited); bring firmware, driver "
        "and OFED to one supported set, or let UCX create its queues without DevX "
        '(UCX_IB_MLX5_DEVX_OBJECTS=""); run the engine\'s TCP transport once to confirm the '
        "rest of the set-up works.",
        fixtures=(
            "ib_error__checkpoint_engine_1.log",
            "ib_error__sglang_pr27894.log",
            "ib_error__dynamo_814.log",
        ),
    ),
    Rule(
        name="nixl_engine_id_mismatch",
        category="nccl_config_error",
        code="LX718",
        # above the script's exception (LX511): the check vLLM's connector raises itself
        priority=82,
        retryable=False,
        patterns=(
            # vLLM's NixlConnector handshake: the agent that answered on the side channel is
            # another engine's than the one the request names
            r"Remote NIXL agent engine ID mismatch\b",
        ),
        cause="a prefill/decode pair handshaking through vLLM's NIXL connector reached another "
        "engine than the one the request came from: the side channel that carries the "
        "handshake (VLLM_NIXL_SIDE_CHANNEL_HOST / _PORT) was left at its default "
        "(localhost, one port) where several engines run, or points at the wrong host; every "
        "transfer between those engines fails the same way.",
        fix="give each engine its own reachable side channel: set VLLM_NIXL_SIDE_CHANNEL_HOST "
        "to the node's address the peers can reach and a distinct VLLM_NIXL_SIDE_CHANNEL_PORT "
        "per engine on a node (data-parallel ranks add their index to it).",
        fixtures=("nccl_config_error__vllm_27083.log",),
    ),
    Rule(
        name="ray_placement_bundle_index",
        category="world_mismatch",
        code="LX721",
        # above the ValueError's own reading (LX511): Ray's check, not the script's code
        priority=84,
        retryable=False,
        patterns=(
            # ray.util.placement_group's check of the bundle a worker actor is scheduled on
            r"placement group bundle index -?\d+ is invalid\. Valid placement group indexes: ",
        ),
        cause="an engine or trainer placed one worker per GPU on a Ray placement group that "
        "holds fewer bundles than it has workers (tensor x pipeline parallel x data parallel): "
        "the group was made, or reused, for a smaller world, or the engine counts its "
        "workers differently from the tool that reserved the group; every start fails the "
        "same way.",
        fix="make the placement group hold one bundle per worker: reserve it with the same "
        "tensor, pipeline and data-parallel sizes the engine is started with (or let the "
        "engine create its own group), and check that the Ray cluster has that many GPUs "
        "(ray status).",
        fixtures=("world_mismatch__gpustack_2500.log", "world_mismatch__gpustack_2547.log"),
    ),
    Rule(
        name="npu_async_operator_error",
        category="cuda_error",
        code="LX722",
        # a symptom's tier: the error the runtime printed above it (a kernel fault, an HCCL
        # timeout, an out-of-memory) is read by its own rule and wins
        priority=48,
        retryable=False,
        patterns=(
            # torch_npu's RuntimeError for an operator that failed on the device after it was
            # launched asynchronously (ERR00100 follows it)
            r"The Inner error is reported as above\. The process exits for this inner error",
        ),
        cause="an operator failed on the Ascend NPU after torch_npu launched it asynchronously "
        "(the runtime's own error, an EZ9999/EE9999 block, is printed above this line when "
        "the log has it): a kernel fault or an unsupported input of the CANN / torch_npu / "
        "engine release; the operator it names is the one running when the error was seen, "
        "not always the one that failed.",
        fix="read the lines above for the runtime's error and the operator's name; rerun with "
        "ASCEND_LAUNCH_BLOCKING=1 to stop at the operator that failed; try the CANN / "
        "torch_npu / engine release that worked before, or turn off the feature that uses "
        "the operator (graph mode, a fused kernel).",
        fixtures=("cuda_error__vllm_ascend_6190.log",),
    ),
    Rule(
        name="rocm_smi_shm_mutex",
        category="shm_error",
        code="LX723",
        priority=60,
        # the mutex is held by a process started at the same moment (a race that the next
        # start usually wins), or by a dead one whose file stays in /dev/shm
        retryable=True,
        patterns=(
            # rocm_smi_lib's shared-memory mutex, taken by each process that loads it (RCCL,
            # torch's device queries) when many start at once
            r"Failed to initialize RSMI device mutex after \d+ seconds",
        ),
        cause="rocm_smi, which RCCL and torch load on ROCm, could not take its device mutex in "
        "/dev/shm within its wait: many processes of the job started at once and raced for "
        "it (a new start usually gets it), or a process that died earlier left the mutex "
        "held in its rocm_smi* file (then every start fails alike until the file is gone).",
        fix="remove stale /dev/shm/rocm_smi* files when no ROCm process runs, and start the "
        "ranks again; newer rocm_smi_lib releases re-initialise a mutex that no running "
        "process holds, which ends the stale case.",
        fixtures=("shm_error__rocm_smi_lib_88.log",),
    ),
    Rule(
        name="ray_placement_group_wait",
        category="rendezvous_timeout",
        code="LX725",
        # above the ValueError's own reading (LX511): vLLM's wait, not the script's code
        priority=84,
        patterns=(
            # vLLM's Ray executor waiting for its placement group (one GPU bundle per worker)
            r"Cannot provide a placement group requiring [\d.]+ GPUs \(.*\) within \d+ seconds",
            # ... its wording for a group of one-GPU workers, older releases' and forks'
            # (vllm-ascend's bundles ask for 'NPU')
            r"Cannot provide a placement group of placement_group_specs=.* within \d+ seconds",
        ),
        cause="vLLM's Ray executor waited for a placement group with one GPU per worker "
        "(tensor x pipeline parallel) and the Ray cluster never had that many free GPUs in "
        "time: a node that should have joined the cluster did not (its raylet failed to "
        "start or cannot reach the head), another job holds the GPUs, or the cluster is "
        "smaller than the parallel sizes ask for.",
        fix="run `ray status` and `ray list nodes` on the head: start or fix the missing "
        "node's `ray start --address=<head>:6379` (same Ray and Python versions, ports "
        "open), free the GPUs another job holds, or lower --tensor-parallel-size / "
        "--pipeline-parallel-size to the GPUs the cluster has.",
        fixtures=("rendezvous_timeout__gpustack_5181.log",),
    ),
    Rule(
        name="hccl_not_supported",
        category="nccl_config_error",
        code="LX726",
        # LX701's tier
        priority=60,
        retryable=False,
        # HCCL_E_NOT_SUPPORT = 5 (hccl_types.h), as torch_npu reports a call into HCCL
        patterns=(r"HCCL function error: .*, error code is 5$",),
        cause="HCCL (Ascend's NCCL) does not support what a communicator asked for on this "
        "NPU, topology or CANN release (HCCL_E_NOT_SUPPORT): a card or server model whose "
        "HCCL lacks the collective, the link type or the number of devices per node the "
        "engine's parallel layout needs; every start fails the same way.",
        fix="check the engine's support matrix for this NPU (an Atlas 300I / 310P card "
        "supports fewer HCCL features than the 910 series), change the tensor/pipeline "
        "layout, or update CANN and torch_npu together; the CANN plog (~/ascend/log) names "
        "the feature HCCL refused.",
        fixtures=("nccl_config_error__gpustack_4652.log",),
    ),
    Rule(
        name="nccl_graph_capture_unsupported",
        category="nccl_invalid_usage",
        code="LX727",
        priority=62,
        retryable=False,
        patterns=(
            # NCCL refusing to run inside a CUDA graph capture (ncclInvalidUsage follows)
            r"NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime "
            r">= 11\.3 or if the installed CUDA driver < R465",
        ),
        cause="a collective was called inside a CUDA graph capture (vLLM's and SGLang's "
        "decode graphs, torch.cuda.graphs) with an NCCL that cannot be captured: the NCCL "
        "library loaded was built against a CUDA runtime older than 11.3 (a pip or conda "
        "package for another CUDA than torch's), or the driver is older than R465.",
        fix="make the process load the NCCL built for torch's CUDA (pip install the "
        "nvidia-nccl-cu1x matching torch, remove a stray libnccl from LD_LIBRARY_PATH or "
        "VLLM_NCCL_SO_PATH), or update the driver; turning CUDA graphs off (vLLM "
        "--enforce-eager) avoids the capture.",
        fixtures=("nccl_invalid_usage__vllm_3069.log",),
    ),
    Rule(
        name="mooncake_master_rpc_timeout",
        category="collective_timeout",
        code="LX728",
        # the collective timeouts' tier
        priority=50,
        patterns=(
            # Mooncake store's client calling its master service (mount_segment, put/get
            # metadata) over coro_rpc
            r"master_client\.cpp:\d+\] RPC call failed: Connection timed out",
        ),
        cause="a Mooncake store client (inside a vLLM or SGLang worker) called its master "
        "service and got no answer in time: the master is overloaded or stalled (a large "
        "segment being mounted, many clients at once), or the network between this node and "
        "the master drops the traffic; the worker fails to start or fails the request.",
        fix="check that the master (mooncake_master) is up and reachable on its RPC port "
        "from this node, and its own log for a stall; mount smaller segments or raise the "
        "client's RPC timeout; retry once the master answers.",
        fixtures=("collective_timeout__mooncake_1050.log",),
    ),
    Rule(
        name="ucx_docker_bridge_peer",
        category="nccl_config_error",
        code="LX729",
        # LX580's tier, for UCX
        priority=58,
        retryable=False,
        patterns=(
            # UCX's TCP transport connecting to a docker bridge's host address (docker0 is
            # 172.17.0.1, the next networks 172.18-31.0.1), which every node has for itself
            r"\bUCX +ERROR +connect\(fd=\d+, dest_addr=172\.(?:1[7-9]|2\d|3[01])\.0\.1:\d+\) "
            r"failed",
        ),
        cause="UCX (under Open MPI, NIXL or UCC) connected to a peer at a docker bridge's host "
        "address (172.17.0.1): the peer advertised its docker0 interface, which every node "
        "has with the same address, so the connection reaches the wrong host or nothing, on "
        "every start.",
        fix="restrict UCX to the interfaces the nodes share: UCX_NET_DEVICES=<ib or eth "
        "device> (or UCX_TCP_... exclusions), or UCX_TLS=rc to use the HCAs; run the "
        "containers with --network=host.",
        fixtures=("nccl_config_error__ucx_9908.log",),
    ),
    Rule(
        name="oneccl_device_files",
        category="cuda_config_error",
        code="LX730",
        priority=88,
        retryable=False,
        patterns=(
            # oneCCL (Intel's NCCL, torch's xccl/ccl backend) opening the GPUs' device files
            # to exchange their handles between ranks
            r"oneCCL: ze_fd_manager\.cpp:\d+ fill_device_fds: EXCEPTION: open failed",
        ),
        cause="oneCCL (the collective library of Intel GPUs) could not open the GPUs' device "
        "files, which it finds through /dev/dri/by-path/*-render, to share memory between "
        "ranks: the container or sandbox does not pass them in (or passes the renderD nodes "
        "without the by-path links), or the user may not open them; every start fails the "
        "same way.",
        fix="pass the devices in (docker --device /dev/dri and -v /dev/dri/by-path:/dev/dri/"
        "by-path, or the Kubernetes GPU plugin), give the user the render group, and check "
        "that `ls -l /dev/dri/by-path` lists a -render link per GPU, pointing at a renderD "
        "node that exists, where the ranks run.",
        fixtures=("cuda_config_error__vllm_14747.log",),
    ),
    Rule(
        name="oneccl_ipc_exchange",
        category="socket_error",
        code="LX731",
        # a symptom's tier: the peer process on the other end may have died first
        priority=44,
        patterns=(
            # oneCCL's exchange of GPU memory handles between the ranks of a node over a Unix
            # socket ("errno: Broken pipe" on the next line)
            r"\|CCL_ERROR\| exchange_utils\.cpp:\d+ (?:sendmsg|recvmsg)_fd: condition",
        ),
        cause="oneCCL's exchange of GPU memory handles between the ranks of a node failed on "
        "its Unix socket: the process at the other end had exited or closed it (a peer that "
        "crashed or was killed), so this rank could not set up its communicator.",
        fix="read the other ranks' output for a first error (that is the cause); if none "
        "shows, check that every rank of the node starts oneCCL together (same CCL_* "
        "settings, same world) and that /tmp, where the socket lives, is shared and writable.",
        fixtures=("socket_error__ipexllm_12081.log",),
    ),
    Rule(
        name="xla_replication_device_count",
        category="world_mismatch",
        code="LX732",
        # above the RuntimeError's own reading (LX511): torch_xla's check of its world
        priority=84,
        retryable=False,
        patterns=(
            # torch_xla's set_replication: the devices a replica was given (one) against the
            # devices of that kind its process sees
            r"Cannot replicate if number of devices \(\d+\) is different from \d+",
        ),
        cause="each process that xmp.spawn (or Lightning's TPU strategy) started was given one "
        "XLA device but sees all of the TPU's cores, as one process alone would: the parent "
        "process set up the XLA runtime before spawning (a model or tensor moved to "
        "xm.xla_device() at import or in the main script), so the children inherit its view "
        "of the device instead of each getting its own core.",
        fix="create the model and call xm.xla_device() only inside the function that "
        "xmp.spawn runs (with Lightning, inside the LightningModule, not at import); restart "
        "the notebook's runtime so that no earlier process holds the TPU.",
        fixtures=("world_mismatch__lightning_7086.log", "world_mismatch__xla_2792.log"),
    ),
    Rule(
        name="zmq_bind_address_not_local",
        category="nccl_config_error",
        code="LX733",
        # above the ZMQError's own reading (LX511)
        priority=84,
        retryable=False,
        patterns=(
            # an engine binding its ZMQ socket (vLLM's data-parallel RPC, its front end) to an
            # address given on the command line: EADDRNOTAVAIL
            r"ZMQError: Cannot assign requested address \(addr='tcp://",
        ),
        cause="the process tried to listen on an IP address that is not one of this host's "
        "own (vLLM's --data-parallel-address, an engine's --host or port settings): the "
        "address names another node, a stale or floating address, or a pod's service IP; "
        "every start on this host fails the same way.",
        fix="give this node an address it owns (`ip -brief addr` lists them): on multi-node "
        "data parallel, the head's address is bound only by the head, and the other nodes "
        "start with --headless and connect to it.",
        fixtures=("nccl_config_error__vllm_31884.log",),
    ),
    Rule(
        name="ucx_socket_connect",
        category="socket_error",
        code="LX734",
        # a symptom's tier: the peer may have died (LX729 names a docker bridge's address)
        priority=44,
        patterns=(
            # UCX's TCP socket transport (under NIXL, Open MPI, UCC) connecting to a peer
            r"\bUCX +ERROR +connect\(fd=\d+, dest_addr=\S+\) failed: (?:Network is unreachable"
            r"|Connection (?:refused|timed out)|No route to host)",
        ),
        cause="UCX's TCP transport (under NIXL, Open MPI or UCC) could not connect to a peer's "
        "address: nothing listened there (refused: the peer process died or had not started), "
        "or this host has no route to it (unreachable: the peer advertised an address on an "
        "interface the nodes do not share, or a firewall drops the port).",
        fix="check that the peer is alive and that the address it advertised is one this node "
        "reaches (ping and a TCP connect to it); restrict UCX to the shared interface "
        "(UCX_NET_DEVICES=<dev>) or to the HCAs (UCX_TLS=rc,cuda_copy), and open the port "
        "range between the nodes.",
        fixtures=("socket_error__dynamo_813.log",),
    ),
    Rule(
        name="library_cuda_check",
        category="cuda_error",
        code="LX735",
        # below the CUDA runtime's own reports (LX512, 78) and the specific readings of these
        # checks (LX573's peer access, LX706's custom all-reduce, LX509's out of memory)
        priority=76,
        retryable=False,
        patterns=(
            # the CUDA checks of DeepEP's and vLLM's C++ ("Failed: CUDA error <file>:<line>
            # '<the runtime's message>'")
            r"\bFailed: C(?:UDA|uda) error \S+:\d+ '(?!out of memory')",
        ),
        cause="a CUDA call made by a library's own C++ code (DeepEP's buffers, vLLM's custom "
        "kernels) failed with the runtime's message in quotes: an invalid argument or handle "
        "from a library built for another CUDA, driver or GPU than the one here, or a kernel "
        "fault; the same call fails on every start.",
        fix="read the quoted message and the file it names; rebuild or reinstall the library "
        "for the CUDA and torch in use (DeepEP with the NVSHMEM it was built against), or "
        "turn off the feature that uses it (the all-to-all backend, custom all-reduce) to "
        "confirm.",
        fixtures=("cuda_error__llm_d_671.log",),
    ),
    Rule(
        name="tpu_held_by_another_process",
        category="duplicate_gpu",
        code="LX736",
        # the duplicate-GPU tier (LX506)
        priority=92,
        retryable=False,
        patterns=(
            # libtpu refusing a second process on the chips of this host (JAX and
            # torch_xla load it alike): "ABORTED: The TPU is already in use by process with
            # pid 22589. Not attempting to load libtpu.so in this process.", and its older
            # words ("libtpu.so already in use by another process. Run ...")
            r"(?:The TPU|libtpu\.so) (?:is )?already in use by (?:a |another )?process",
        ),
        cause="another process on this host already holds the TPU chips, and libtpu lets "
        "only one process open them: a parent that imported JAX or torch_xla (and touched the "
        "devices) before it started the workers, two workers per host, or a process left "
        "over from an earlier run that still holds /dev/accel* (or /dev/vfio/*).",
        fix="open the devices only in the processes that use them (no jax.devices() or "
        "xm.xla_device() in the launcher or a Ray driver); find a leftover holder with "
        "`fuser -v /dev/accel* /dev/vfio/*` (or `lsof -w /dev/accel*`), stop it, and remove a "
        "stale /tmp/libtpu_lockfile before the next start; several processes per host each "
        "need their own chips and port (TPU_VISIBLE_CHIPS or JAX's TPU_VISIBLE_DEVICES, "
        "TPU_CHIPS_PER_PROCESS_BOUNDS, TPU_PROCESS_BOUNDS).",
        fixtures=("duplicate_gpu__jetstream_pytorch_163.log",),
    ),
    Rule(
        name="hpu_graph_compile_failed",
        category="cuda_error",
        code="LX737",
        # the device runtime's tier (LX512)
        priority=78,
        retryable=False,
        patterns=(
            # Intel Gaudi's PyTorch bridge on a graph the Synapse graph compiler rejected
            # ("Graph compile failed. synStatus=synStatus 26 [Generic failure]"), under the
            # compiler's own error lines
            r"Graph compile failed\. synStatus",
            # ... and the graph API refusing a node while the bridge builds the graph
            r"synNodeCreateWithId failed for node: \S+ with synStatus",
        ),
        # (in a collective it is the scale-out's set-up: LX739, above this one)
        cause="the Gaudi graph compiler (SynapseAI) could not compile a graph this rank "
        "built: a TPC kernel it could not load (GLUE_FAILED), an operator or shape the "
        "installed software does not support, or a habana_frameworks build that does not "
        "match the installed SynapseAI, driver and firmware; the same graph fails at "
        "every start.",
        fix="read the compiler's error lines above it (a [GC]/[PASS_MANAGER] line names "
        "the node and kernel); check that habana_frameworks, SynapseAI and the driver are "
        "one release (hl-smi -v, pip list | grep habana); try eager mode (PT_HPU_LAZY_MODE=0 "
        "or vLLM's --enforce-eager) to find the operator.",
        fixtures=(
            "cuda_error__vllm_fork_484.log",
            "cuda_error__llamafactory_7275_gaudi_synnode_batch_gemm.log",
        ),
    ),
    Rule(
        name="hpu_lazy_collectives_off",
        category="nccl_config_error",
        code="LX738",
        # the collective libraries' configuration tier (LX727)
        priority=62,
        retryable=False,
        patterns=(
            # Gaudi's PyTorch bridge refusing a collective while an HPU graph is recorded
            r"collective nonSFG is not supported during hpu graph capturing",
        ),
        cause="a collective (tensor parallelism's all-reduce) ran inside an HPU graph "
        "capture with lazy collectives off: Gaudi's bridge records collectives in a graph "
        "only when PT_HPU_ENABLE_LAZY_COLLECTIVES=true, which tensor-parallel inference with "
        "HPU graphs (vLLM on Gaudi, optimum-habana) needs.",
        fix="export PT_HPU_ENABLE_LAZY_COLLECTIVES=true for every rank (multiprocess workers "
        "inherit it from the launching shell; Ray workers from the environment `ray start` "
        "ran in on each node, or a runtime_env), or turn HPU graphs off (vLLM's "
        "--enforce-eager, no --use_hpu_graphs for optimum-habana).",
        fixtures=("nccl_config_error__vllm_fork_170.log",),
    ),
    Rule(
        name="hpu_collective_graph_compile",
        category="nccl_config_error",
        code="LX739",
        # above LX737, whose words it shares: the bridge's own log line of the same failure
        # has no frame, and only this rule knows it was a collective's
        priority=79,
        retryable=False,
        patterns=(r"Graph compile failed\. synStatus",),
        # a collective's graph: Gaudi's bridge compiles HCCL's send and receive into one
        raised_in=(_C10D_COLLECTIVE_FRAME,),
        # ... unless the graph compiler said why above it: in lazy mode a collective runs
        # the compute graph built before it, whose failure is then LX737's
        not_after=(r"Failed to load tpc kernel|GLUE_FAILED|Graph optimization failed pass",),
        cause="a collective (broadcast, all-reduce) failed to compile on Gaudi: HCCL could "
        "not set up the transfer on this rank. On a multi-node run this is typically the "
        "HCCL and scale-out environment (HCCL_SOCKET_IFNAME, HCCL_OVER_OFI, the libfabric "
        "settings) exported on the launching node only: DeepSpeed's pdsh runner forwards to "
        "the other nodes what .deepspeed_env lists and a few prefixes (NCCL, UCX, PYTHON), "
        "not HCCL_*.",
        fix="list the HCCL and network variables in .deepspeed_env (in the home or working "
        "directory, or where DS_ENV_FILE points; mpirun -x for Open MPI's launches) so every "
        "node starts with them; check the scale-out ports with hl-smi "
        "and the same software release on every node.",
        fixtures=("nccl_config_error__optimum_habana_1779_gaudinic_multinode_env.log",),
    ),
    Rule(
        name="ib_verbs_setup",
        category="ib_error",
        code="LX569",
        priority=61,
        retryable=False,
        # Only the calls of a connection's set-up: a device NCCL cannot open or query at
        # init ("NET/IB : Unable to open device") is skipped, and the run may go on without it.
        patterns=(
            r"Call to ibv_(?:create_qp|create_cq|alloc_pd|create_comp_channel)\w* failed"
            r"(?! with error Cannot allocate memory)",
            # NCCL before 2.12 says no more about a failed registration (later releases add
            # the errno: LX567 reads EINVAL, EFAULT and ENOMEM)
            r"Call to ibv_reg_mr failed\s*$",
        ),
        cause="NCCL could not create the verbs resources of a connection (a queue pair, a "
        "completion queue, a protection domain, a memory registration) while it set up the "
        "InfiniBand transport: "
        "usually the process lacks the rights the verbs need (IPC_LOCK and an unlimited "
        "locked-memory limit in a container) or cannot reach the device (/dev/infiniband not "
        "passed in), so every start fails the same way.",
        fix="give the ranks an unlimited locked-memory limit (ulimit -l unlimited; in docker "
        "--ulimit memlock=-1 --cap-add IPC_LOCK --device /dev/infiniband, or --privileged) and "
        "check that ibv_devinfo lists the HCA where the ranks run; NCCL_IB_DISABLE=1 (socket "
        "speed) confirms that the IB setup is the cause.",
        fixtures=("ib_error__nccl_1129_docker_ibv_create_qp_failed.log",),
    ),
    Rule(
        name="nccl_system_error",
        category="nccl_system_error",
        code="LX519",
        priority=55,
        patterns=(
            r"unhandled system error",
            r"\bunhanled system error",  # as some old builds' messages spell it
            r"ncclSystemError",
            r"NCCL Error 2\b",
            r"Call to ibv_\w+ failed with error Cannot allocate memory",
        ),
        cause="a system call inside NCCL failed (socket, shared memory, memory registration); "
        "the real reason is in the NCCL WARN line, which only NCCL_DEBUG=INFO prints. Most "
        "often configuration (interface, /dev/shm, IB ports), so it is not retried.",
        fix="rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET; typical fixes: the right "
        "interface in NCCL_SOCKET_IFNAME (prefix match; '=eth0' for exact), --ipc=host or a "
        "bigger --shm-size in containers, IB ports up (ibstat); for an ibv_* call failing "
        "with 'Cannot allocate memory', an unlimited memlock limit (ulimit -l unlimited).",
        fixtures=(
            "nccl_system_error__lightning_14986_multinode.log",
            "nccl_system_error__lightning_8139_gpu_index_gap.log",
            "nccl_system_error__deepep_143_ibv_create_cq.log",
        ),
    ),
    Rule(
        name="nccl_system_error_trace",
        category="nccl_system_error",
        code="LX790",
        # below nearly every other reading: the trace is the same on a rank whose socket a dead
        # peer closed (LX520) or that found no usable interface (LX542, LX685), which name the
        # cause where the paste shows their lines
        priority=8,
        retryable=False,
        patterns=(
            # NCCL's own trace (NCCL_DEBUG=INFO) of ncclSystemError, code 2, returned out of
            # its set-up: what remains of a paste cut before the WARN and the exception lines
            r"NCCL INFO (?:init|group|bootstrap)\.cc:\d+ -> 2\b",
        ),
        cause="NCCL's set-up returned ncclSystemError (its return code 2, traced up through "
        "init.cc, group.cc or bootstrap.cc): a system call inside NCCL failed (a socket, "
        "/dev/shm, a memory registration), but the log stops before the WARN line that names "
        "the call; most often configuration, so it is not retried.",
        fix="look for the first 'NCCL WARN' line above the trace (rerun with NCCL_DEBUG=INFO "
        "NCCL_DEBUG_SUBSYS=INIT,NET if there is none): a trace through transport/shm.cc is "
        "/dev/shm (--ipc=host or a bigger --shm-size in containers), through bootstrap.cc or "
        "misc/socket.cc the interface (NCCL_SOCKET_IFNAME in the profile).",
        fixtures=(
            "nccl_system_error__nccl_1016.log",
            "nccl_system_error__cpm2_finetune_2_shm_transport.log",
        ),
    ),
    Rule(
        name="oneccl_worker_thread",
        category="nccl_system_error",
        code="LX617",
        # above the user's exception (LX511), which would read oneCCL's RuntimeError as the
        # script's
        priority=82,
        retryable=False,
        patterns=(
            r"\|CCL_ERROR\| .*error while creating worker thread #\d+ pthread_create returns \d+",
            r"oneCCL: .*start_workers: EXCEPTION: failed to start worker",
        ),
        cause="Intel oneCCL (the ccl/xccl backend) could not start its worker thread: "
        "pthread_create failed (22 is EINVAL), which it does when the thread's CPU pinning "
        "names cores this process may not run on (a cgroup, taskset or container with fewer "
        "cores than oneCCL assumes); every start fails the same way.",
        fix="give oneCCL cores the process owns: set CCL_WORKER_AFFINITY in the profile's env "
        "to CPU ids inside the process's allowed set (`grep Cpus_allowed_list "
        "/proc/self/status`), one per local rank, or start fewer ranks per node.",
        fixtures=("nccl_system_error__torch_ccl_54_oneccl_pthread_create_einval.log",),
    ),
    Rule(
        name="nccl_remote_socket",
        category="socket_error",
        code="LX520",
        # above NCCL's generic "unhandled system error" (55), whose detail this is when a
        # connection to a peer was closed, refused or aborted: the development logs with both
        # are labelled socket_error (or a configuration rule's category), never the generic one
        priority=56,
        patterns=(
            r"NCCL WARN (?:NET/Socket|socketProgress|Net : Connection closed|Socket recv failed)",
            r"socketProgress\w*: (?:Connection closed by remote peer|Call to \w+ .*failed)",
            r"NCCL WARN .*Connection (?:reset|refused|closed)",
            r"NCCL WARN Net : Call to \w+ .*failed",
            r"socket\w*Connect\w*: .*(?:exceeded (?:timeouts|retries|error retry count)|"
            r"Connection timed out)",
            r"NCCL WARN (?:Net : |socketStartConnect: )?Connect to \S+ failed : "
            r"(?:Connection timed out|Software caused connection abort|Connection reset)",
            # the same, as torch's DistBackendError quotes it under "Last error:"
            r"^socketStartConnect: Connect to \S+ failed : "
            r"(?:Connection timed out|Software caused connection abort|Connection reset)",
            r"(?:ConnectionResetError|ConnectionRefusedError|BrokenPipeError)\b",
            # torch.distributed.rpc's TensorPipe agent (tensorpipe_agent.cpp) on a socket error
            # (not the EOF it expects while the agents shut down)
            r"RPC agent for \S+ encountered error when (?:sending outgoing|reading incoming) "
            r"(?:request|response)\b.*: E(?:CONNREFUSED|CONNRESET|PIPE|TIMEDOUT|HOSTUNREACH)\b",
        ),
        # an HTTP client's error (requests/urllib3 wrap the socket's): a download or an
        # API call of the script, not a connection between ranks
        exclude=(r"\('Connection aborted\.'", r"Max retries exceeded with url"),
        cause="a network connection to another rank was closed, reset or refused: usually that "
        "rank's process died first (look for its own error), else the interface or a "
        "firewall is wrong.",
        fix="look at the other ranks for the first failure; if there is none, check that the "
        "hosts reach each other on the interface NCCL picked (NCCL_SOCKET_IFNAME=<iface>, "
        "prefix match; '=eth0' for exact) and that no firewall drops the ports.",
        fixtures=(
            "socket_error__nccl_1612.log",
            "socket_error__nccl_1920.log",
            "socket_error__sglang_5594_nccl_connect_aborted_multinode.log",
            "socket_error__tensorpipe_201_rpc_econnrefused.log",
            "socket_error__nccl_tests_15_connection_closed_by_remote_peer.log",
            "socket_error__pytorch_147263_subgroup_allgather_connect_abort.log",
        ),
    ),
    Rule(
        name="grpc_stream_reset",
        category="socket_error",
        code="LX792",
        # a symptom's tier: the process at the other end may have died first
        priority=44,
        patterns=(
            # a gRPC call (Flower's and other federated or RPC frameworks' client-server
            # stream) ended by the peer's or a proxy's RST_STREAM frame, as grpc's
            # _Rendezvous / _MultiThreadedRendezvous exception prints its details
            r"\bdetails = \"Received RST_STREAM with error code \d+\"",
        ),
        cause="a gRPC stream between the processes (a federated-learning client and its "
        "server, an RPC framework's workers) was reset from the other end: the peer process "
        "died or restarted, or a proxy or load balancer cut a long-lived stream (error code "
        "2 is HTTP/2's INTERNAL_ERROR).",
        fix="look at the server's (the peer's) own log for its failure first; for long "
        "rounds with idle streams, set gRPC keepalive options (grpc.keepalive_time_ms) on "
        "both ends.",
        fixtures=("socket_error__flower_766_grpc_rst_stream.log",),
    ),
    Rule(
        name="nccl_peer_unreachable",
        category="socket_error",
        code="LX575",
        # Above NCCL's generic "unhandled system error" (55) and "internal error" (65) that
        # report this failure a few lines later.
        priority=66,
        retryable=False,
        patterns=(
            r"NCCL WARN (?:socketStartConnect: |Net : )?Connect to \S+ failed : "
            r"(?:Network is unreachable|No route to host)",
            # NCCL 2.19+ (misc/socket.cc socketPollConnect)
            r"NCCL WARN socket\w*Connect: Connect to \S+ returned \d+\((?:Network is "
            r"unreachable|No route to host)\)",
        ),
        cause="NCCL could not even start a connection to a peer: there is no route from this "
        "host to the address that peer advertised (an interface the other hosts cannot "
        "reach: an IPv6 link-local fe80:: address, a docker bridge, a private or management "
        "network), or a firewall rejects the port (firewalld's default answer reads 'No "
        "route to host'); every attempt fails the same way.",
        fix="set NCCL_SOCKET_IFNAME (profile env) to the interface every node shares, e.g. "
        "=eth0 or ^docker,lo; with IPv6 link-local addresses in the log set "
        "NCCL_SOCKET_FAMILY=AF_INET; check with `ip route get <peer address>` and "
        "`nc -zv <peer> <port>` from each node, and open the ports between the nodes.",
        fixtures=("socket_error__wenet_1891_multinode_ipv6_link_local_unreachable.log",),
    ),
    Rule(
        name="nccl_bootstrap_connect_stalled",
        category="socket_error",
        code="LX647",
        # Above NCCL's generic "unhandled system error" (55) that reports it; below the
        # rules that name why a peer is unreachable (a link-local address: LX580, 58; no
        # route: LX575, 66), after which the same connect stalls
        priority=57,
        patterns=(
            r"NCCL INFO misc/socket\.cc:\d+ -> 2 \(Operation now in progress\)",
            # NCCL 2.19+: the same connect, as the "Last error:" of torch's DistBackendError
            r"socketPollConnect poll\(\) returned \d+, no POLLOUT events",
        ),
        cause="NCCL's bootstrap connection to a peer failed while it was being made: poll() "
        "reported an error or a hang-up on the connecting socket (the 'Operation now in "
        "progress' is the non-blocking connect()'s own errno, left over), and the "
        "communicator's set-up failed on the ranks that waited for it. An address the other "
        "node cannot reach (NCCL took an interface only this node's segment sees) or a "
        "firewall keeps it so; a peer that was restarting would not, so it is retried only "
        "from a checkpoint.",
        fix="set NCCL_SOCKET_IFNAME (profile env) to the interface every node shares (=eth0, "
        "=ib0, ^docker,lo), and allow all TCP between the nodes on that interface (NCCL's "
        "bootstrap and socket ports are ephemeral, not one port to open); `launchx doctor "
        "--nodes` tests the paths.",
        fixtures=(
            "socket_error__pytorch_131781_bootstrap_connect_inprogress.log",
            "socket_error__veomni_131_multinode_socketpollconnect.log",
        ),
    ),
    Rule(
        name="name_not_resolved",
        category="socket_error",
        code="LX571",
        # A symptom's tier: c10d warns while it retries a name that may yet resolve, and a
        # logger (wandb) may fail to resolve its own server while training goes on; any
        # other failure in the log (a timeout, a crash) is the better cause.
        priority=45,
        patterns=(
            r"nslookup: can't resolve",
            r"The (?:IPv4 )?network addresses of \([^)]*\) cannot be retrieved",
            r"socket\.gaierror: \[Errno -?\d+\]",
            r"Name does not resolve|Temporary failure in name resolution",
            r"host not found: ",  # TCPStore before torch 1.9
        ),
        # c10d tries IPv6 as well and warns when a name has no IPv6 address; harmless when
        # the IPv4 address resolves, so that warning is no evidence.
        exclude=(r"IPv6",),
        cause="a host name (MASTER_ADDR, the rendezvous endpoint or a peer's) does not resolve "
        "on this node, so it cannot connect: the name is not in DNS or /etc/hosts here, is "
        "empty, or names a pod or service that does not exist yet.",
        fix="set MASTER_ADDR (or --rdzv-endpoint) to an IP address, or make the name "
        "resolvable on every node (getent hosts NAME must print the master's address); on "
        "Kubernetes-style platforms start the workers after the master's service exists.",
        fixtures=("socket_error__ms_swift_6368_dlc_master_name_not_resolved.log",),
    ),
    Rule(
        name="bracketed_master_addr",
        category="rendezvous_timeout",
        code="LX644",
        priority=60,
        retryable=False,
        patterns=(
            # c10d's socket.cpp prints the host as it was given: brackets there came with the
            # address (MASTER_ADDR "[2605:...]", a URL's form), and no resolver accepts them
            r"The (?:IPv[46] )?network addresses of \(\[[0-9A-Fa-f:.]+(?:%\w+)?\], \d+\) "
            r"cannot be retrieved",
        ),
        cause="the master address is an IPv6 address written with its URL brackets "
        '("[2605:...]"): getaddrinfo cannot resolve that string in either family, so the '
        "ranks never reach the store and wait until the rendezvous times out; a framework "
        "that copies a node address it got in bracketed form (Ray prints them so) does the "
        "same. Every start waits alike.",
        fix="pass the IPv6 address without brackets as MASTER_ADDR (or --master-addr), or a "
        "host name that resolves to it; keep brackets only inside a URL with a port "
        "(tcp://[addr]:port, --rdzv-endpoint [addr]:port).",
        fixtures=("rendezvous_timeout__verl_2550_ipv6_bracketed_master_addr_hang.log",),
    ),
    Rule(
        name="nccl_connect_refused",
        category="socket_error",
        code="LX553",
        priority=66,
        retryable=False,
        patterns=(r"Call to connect returned Connection refused",),
        cause="NCCL kept getting 'connection refused' from a peer and gave up: nothing listened "
        "at the peer's address, because that rank had not started, had died, or listens on "
        "an interface this host cannot reach; the log does not say which, so it is not "
        "retried blindly.",
        fix="look at the peer's own log first; then check that every node uses an interface "
        "the others reach (NCCL_SOCKET_IFNAME) and that no firewall or network policy blocks "
        "the ports between the pods or hosts.",
        fixtures=(
            "socket_error__fairseq_1096_connect_refused.log",
            "socket_error__nccl_948_detectron2_connect_refused.log",
        ),
    ),
    Rule(
        name="nccl_last_error_peer_closed",
        category="socket_error",
        code="LX559",
        priority=66,
        retryable=False,
        patterns=(
            r"^(?:Net|socketProgress\w*) ?: Connection closed by remote peer",
            # NCCL 2.12-2.17's detail of a refused or reset socket to a peer under "Last
            # error:" (not the start-up "Call to connect returned ..., retrying")
            r"^Net : Call to (?:recv|send) from \S+ failed : Connection (?:refused|reset by peer)",
        ),
        cause="NCCL failed (it calls it an internal error) because a peer closed its "
        "connection: the detail under 'Last error:' says so. The peer process most likely "
        "died or gave up first; its own log holds the cause, and this one cannot tell "
        "whether a retry helps.",
        fix="read the other ranks' output for the first failure; if none failed, check that "
        "the hosts reach each other on the interface NCCL uses (NCCL_SOCKET_IFNAME, prefix "
        "match; '=eth0' for exact) and that no firewall resets connections between them.",
        fixtures=(
            "socket_error__nccl_1514_lightning_closed_by_peer.log",
            "socket_error__gpt_neox_1147_pdsh_node2_recv_connection_refused.log",
        ),
    ),
    Rule(
        name="xla_mesh_master_unreachable",
        category="rendezvous_timeout",
        code="LX632",
        priority=46,
        patterns=(
            # torch_xla before PJRT: xmp.spawn's children meet at a "mesh master" service
            # that the parent process (or the first TPU host) runs. (Its client's own check,
            # "Check failed: impl_->channel->WaitForConnected(", stays the script's exception:
            # an xm.rendezvous called after the spawned processes ended says it too.)
            r"Failed to connect to client mesh master: \S+",
        ),
        cause="an xmp.spawn process of torch_xla (the XRT runtime, before PJRT) could not "
        "reach the mesh master, the rendezvous service that the parent process or the "
        "first TPU host runs, before its connect wait ended: the parent had already "
        "exited or was stuck, the master's address (XRT_MESH_SERVICE_ADDRESS, the TPU "
        "config) points elsewhere, or a firewall sits between the TPU hosts.",
        fix="check that the spawned function does not return before the others reach it "
        "and that the parent stays up; check XRT_TPU_CONFIG / XRT_MESH_SERVICE_ADDRESS and "
        "that every host reaches the master's port; torch_xla 2.x (PJRT: PJRT_DEVICE=TPU) "
        "has no mesh service.",
        fixtures=("rendezvous_timeout__xla_2676_tpu_mesh_master_connect_failed.log",),
    ),
    Rule(
        name="xla_mesh_socket",
        category="socket_error",
        code="LX633",
        priority=46,
        patterns=(
            r"^(?:Exception in device=TPU:(?P<rank>\d+): |RuntimeError: )?(?:\S*/)?"
            r"mesh_service\.cc:\d+ : "
            r"Failed to (?:meet rendezvous '[^']*'|retrieve mesh configuration): "
            r"(?:Socket closed|Connection reset by peer|Connection refused)",
        ),
        cause="an xmp.spawn process of torch_xla (the XRT runtime, before PJRT) lost its "
        "connection to the mesh service while the processes met (xm.rendezvous) or fetched "
        "the mesh configuration: the service's process (the parent, or another replica) "
        "died or closed the socket first; read the other processes' output for the first "
        "error.",
        fix="look for the process that failed first (an exception, an OOM kill of the "
        "notebook's host, a TPU runtime restart) and fix that; on a hosted notebook "
        "(Colab, Kaggle) restart the runtime so that no process of an earlier run holds "
        "the TPU; torch_xla 2.x (PJRT) has no mesh service.",
        fixtures=(
            "socket_error__xla_2119_colab_tpu_rendezvous_socket_closed.log",
            "socket_error__xla_2341_kaggle_tpu_mesh_connection_reset.log",
        ),
    ),
    Rule(
        name="xrt_tpu_worker_unavailable",
        category="socket_error",
        code="LX724",
        # LX633's tier: the TPU worker's process may have died of a cause printed elsewhere
        priority=46,
        patterns=(
            # XRT (torch_xla before PJRT) talks gRPC to the TPU worker (port 8470 of a TPU
            # node, or its own server on a TPU VM): TensorFlow's master client gives up on it
            r"grpc_remote_master\.cc:\d+\] RPC failed with status = \"UNAVAILABLE: (?:Socket "
            r"closed|Connection reset by peer|failed to connect to all addresses|Broken pipe)",
        ),
        cause="torch_xla's XRT client lost its gRPC connection to the TPU worker (the TPU "
        "node's server on port 8470, or the TPU VM's local server): the worker restarted or "
        "crashed (often out of host memory, or a TPU runtime upgrade under the client), or "
        "the network between the client VM and the TPU node dropped the connection.",
        fix="check the TPU's health and its runtime version against torch_xla's (gcloud "
        "compute tpus describe); restart the TPU (or the notebook's runtime) and rerun; on "
        "torch_xla 2.x use PJRT (PJRT_DEVICE=TPU), which has no remote worker.",
        fixtures=("socket_error__xla_3975.log",),
    ),
    Rule(
        name="store_no_route",
        category="rendezvous_timeout",
        code="LX562",
        priority=46,
        retryable=False,
        patterns=(r"failed to connect to .*errno: 113 - No route to host",),
        cause="the ranks could not reach the master's store at all: the kernel says there is "
        "no route to that address (the master address is one of the master's interfaces the "
        "other hosts cannot reach, or a firewall rejects it); waiting or retrying reaches the "
        "same unreachable address.",
        fix="give the master address of the interface the nodes share (launchx: --master-addr, "
        "or master_addr: auto to take the one that routes); check with `ip route get <addr>` "
        "and `nc -zv <addr> <port>` from a worker node; launchx doctor --nnodes N checks "
        "every node's reach of the rendezvous port.",
        fixtures=("rendezvous_timeout__accelerate_2468_pdsh_no_route_to_host.log",),
    ),
    Rule(
        name="hivemind_no_group",
        category="rendezvous_timeout",
        code="LX690",
        # a symptom's tier, as the other rendezvous rules: hivemind logs the failed step and
        # trains on alone, so a later exception or timeout is the run's end (LX511 leaves
        # the exception line this is raised as to it)
        priority=46,
        patterns=(_HIVEMIND_NO_GROUP,),
        cause="hivemind's matchmaking found no peers to average with before its time ran out: "
        "the other peers never joined the swarm (not started, another run_id or DHT prefix), "
        "cannot reach this one (initial_peers addresses unreachable, a firewall or NAT), or "
        "are too slow to meet in the matchmaking window; the log does not say which.",
        fix="check that every peer starts with the same run_id and reachable --initial_peers "
        "multiaddrs (the public address and an open port, or client_mode/relays behind NAT), "
        "and raise matchmaking_time or lower target_group_size when peers are slow; a rerun "
        "helps only once the peers are up.",
        fixtures=("rendezvous_timeout__hivemind_519.log",),
    ),
    Rule(
        name="rendezvous_timeout",
        category="rendezvous_timeout",
        code="LX521",
        priority=45,
        patterns=(
            r"RendezvousTimeoutError",
            r"RendezvousConnectionError",
            r"The client socket has timed out after \d+\w* while trying to connect",
            # TCPStore's client before torch 2.0
            r"connect\(\) timed out\. Original timeout was \d+ ms",
            # ... and before torch 1.7 (tcputils), with no timeout in it
            r"^RuntimeError: connect\(\) timed out\.$",
            # (quoted in prose, a sentence's lower case)
            r"[Tt]imed out initializing process group in store based barrier",
            r"DistStoreError: .*(?:[Tt]imeout|[Tt]imed out)",
            # ... as Ray re-raises it at the driver, the message left in the worker: the
            # store's errors are its waits for keys that peers never wrote (c10's
            # DistStoreError; a connection's are DistNetworkError)
            r"\bRayTaskError\(DistStoreError\): ray::",
            r"waiting for clients\. \d+/\d+ clients joined",
            r"The client socket has failed to connect to .*errno: 11[01] - Connection "
            r"(?:refused|timed out)",
            r"The client socket has failed to connect to any network address",
            r"Socket Timeout",
            # the file or TCP store's wait before torch 1.x's longer wordings, alone on the
            # exception line: a peer never wrote its key (it never started, or hung first)
            r"^RuntimeError: Wait timeout$",
            # Horovod's gloo rendezvous (horovodrun's or Ray's HTTP store): a rank's key
            # never came within HOROVOD_GLOO_TIMEOUT_SECONDS
            r"http_store\.cc:\d+\] Wait timeout after \d+ seconds for key",
            # torchelastic's store (elastic/utils/distributed.py, create_c10d_store): the
            # barrier every member runs until all have connected ran out of time
            r"timed out waiting for all \d+ members to join",
        ),
        cause="not every node/rank joined the rendezvous (or reached MASTER_ADDR:MASTER_PORT) "
        "before the timeout: a node started late or not at all, or cannot reach the "
        "master's address/port.",
        fix="start every node with the same --nnodes, --rdzv-id and --rdzv-endpoint; check that "
        "the master address resolves to the interface the others can reach and the port is "
        "open (nc -zv <addr> <port>); raise the wait with --rdzv-conf join_timeout=<s> "
        "(profile timeouts.rdzv_timeout_s) when nodes start slowly. Horovod's gloo "
        "rendezvous: check that every worker started (horovodrun's hosts, Ray's actors) and "
        "raise HOROVOD_GLOO_TIMEOUT_SECONDS.",
        fixtures=(
            "rendezvous_timeout__av_hubert_19_wrapped_json.log",
            "rendezvous_timeout__neuralforecast_934.log",
            "rendezvous_timeout__pytorch_107021.log",
            "rendezvous_timeout__pytorch_69197_c10d_connect_timed_out.log",
            "rendezvous_timeout__deepdrivemd_14.log",
            "rendezvous_timeout__pytorch_13583_gloo_filestore_samba_wait_timeout.log",
            "rendezvous_timeout__ray_25866.log",
            "rendezvous_timeout__finetune_chatglm2_6_store_barrier.log",
        ),
    ),
    Rule(
        name="ccom_bootstrap_wait",
        category="rendezvous_timeout",
        code="LX746",
        # LX521's tier: a peer that never connected may have failed first, in its own words
        priority=45,
        patterns=(
            # the Neuron runtime's collectives (CCOM, an NCCL derivative) while its ranks
            # meet: rank 0's bootstrap waits for the others' connections and retries
            r"CCOM WARN Timeout waiting for (?:RX|incoming connection) \(waited \d+ sec\)",
        ),
        cause="the Neuron collectives (CCOM) of this rank waited for the other ranks to "
        "connect while building the communicator and none came within its wait: a rank "
        "had not reached the collective (still loading, or failed earlier), or its address "
        "is unreachable between the instances (security group, EFA not set up).",
        fix="read the other ranks' output for an earlier failure; check that every instance "
        "started the same world, that the security group allows all traffic between the "
        "instances, and that EFA is enabled (a failing 'OFI plugin initNet()' says it is "
        "not, and CCOM then falls back to sockets).",
        fixtures=("rendezvous_timeout__aws_neuron_sdk_851.log",),
    ),
    Rule(
        name="hivemind_bootstrap_peers",
        category="rendezvous_timeout",
        code="LX712",
        # above the user's exception (LX511), whose RuntimeError line the DHT's is
        priority=81,
        # the swarm's peers come back (their maintainers restart them, the list is renewed):
        # a later start joins, as the threads of these logs say
        retryable=True,
        patterns=(
            # hivemind's DHT (Petals, swarm trainers): its libp2p daemon could reach none of
            # the initial peers it was given, so the node never joins
            r"Daemon failed to start: .*failed to connect to bootstrap peers",
            # ... or the DHT node's own ping of them, when the daemon started: the exception
            # it raises, not the warning it logs instead under ensure_bootstrap_success=False
            r"Error: DHTNode bootstrap failed: none of the initial_peers responded",
        ),
        cause="the node could not join the peer-to-peer swarm: hivemind's p2p daemon reached "
        "none of its initial (bootstrap) peers, because they were down or their addresses "
        "stale, or this host's outbound connections are blocked (a firewall, NAT, no route); "
        "nothing trained.",
        fix="check the initial peers' multiaddrs and that they are up (connect to one with "
        "nc -zv host port), allow outbound TCP/QUIC to them, and start again; with the "
        "project's own peers, take the current list from its release notes or status page.",
        fixtures=(
            "rendezvous_timeout__rl_swarm_246.log",
            "rendezvous_timeout__rlswarm_184_dht_bootstrap_failed.log",
            "rendezvous_timeout__rlswarm_213_p2p_daemon_bootstrap.log",
        ),
    ),
    Rule(
        name="dynamo_etcd_unreachable",
        category="rendezvous_timeout",
        code="LX717",
        priority=60,
        retryable=False,
        patterns=(
            # NVIDIA Dynamo's runtime: its workers find each other through etcd
            r"Failed to connect to etcd server with config ",
        ),
        cause="the serving runtime's workers register with and find each other through an etcd "
        "server (NVIDIA Dynamo's distributed runtime), and none answered at the address it "
        "was given (ETCD_ENDPOINTS, localhost:2379 by default): etcd was not started, or runs "
        "elsewhere; nothing can join until it is reachable.",
        fix="start etcd (and NATS, which the runtime also needs) before the workers, or point "
        "ETCD_ENDPOINTS at the one the deployment runs (check it with `etcdctl endpoint "
        "health`).",
        fixtures=("rendezvous_timeout__dynamo_1188.log",),
    ),
    Rule(
        name="store_connection_lost",
        category="rendezvous_timeout",
        code="LX551",
        priority=46,
        patterns=(r"Connection (?:reset by peer|refused)", r"Broken pipe"),
        context=(
            r'^File ".*", line \d+, in (?:init_process_group|_store_based_barrier|rendezvous'
            r"|_create_c10d_store|_env_rendezvous_handler|next_rendezvous|_rendezvous)\b",
        ),
        cause="the connection to the master's store broke while the process group was being "
        "set up: the master (or its pod) was not ready yet or restarted, or MASTER_ADDR:"
        "MASTER_PORT reaches something else.",
        fix="start the master first or let the workers wait for it (retry.on="
        "[rendezvous_timeout] retries it without a checkpoint); check that "
        "MASTER_ADDR resolves to the master on every node and that nothing else listens on "
        "MASTER_PORT.",
        fixtures=("rendezvous_timeout__kubeflow_2008_worker_reset.log",),
    ),
    Rule(
        name="store_barrier_incomplete",
        category="rendezvous_timeout",
        code="LX552",
        priority=46,
        retryable=False,
        patterns=(
            r"(?:on rank:? (?P<rank>\d+), for key: )?store_based_barrier_key:\d+ "
            r"\(world_size=(?P<world>\d+), (?:worker_count|num_workers_joined)=(?P<joined>\d+)",
        ),
        compare=("world", "joined"),
        cause="fewer processes reached the store-based barrier of init_process_group than the "
        "world has: some rank never called it (it crashed or hung before, or was never "
        "started with this WORLD_SIZE). Its own log says why; a retry does not.",
        fix="find the rank that is missing from the 'Waiting in store based barrier' lines and "
        "read its output; check that the launcher starts WORLD_SIZE processes "
        "(nnodes x nproc_per_node) and gives each a distinct RANK.",
        fixtures=("rendezvous_timeout__lightning_4420_seven_of_eight.log",),
    ),
    Rule(
        name="hccl_device_busy",
        category="nccl_system_error",
        code="LX500",
        priority=66,
        retryable=True,
        patterns=(r"EJ0001: .*Failed to initialize the HCCP process",),
        cause="Ascend's HCCL (torch_npu's process group, the NPU counterpart of NCCL) could not "
        "start its HCCP process on the device: the previous training process still holds it "
        "(it was killed a moment ago, or is still exiting); the error itself says to wait "
        "and start again.",
        fix="wait about 10 s after the last training process is gone (npu-smi info shows no "
        "process on the device) and start again; launchx retries it after the profile's "
        "backoff (retry.backoff_min_s, 5 s by default: set 10 or more on Ascend). If it "
        "repeats, find and stop the process that still holds the NPU.",
        fixtures=("nccl_system_error__llamafactory_3839_ascend_hccp_init_busy.log",),
    ),
    Rule(
        name="hccl_parameter_error",
        category="nccl_invalid_usage",
        code="LX701",
        # the root causes' tier: torch_npu raises it as a RuntimeError that LX511 leaves to the
        # collective libraries' rules
        priority=60,
        retryable=False,
        # HCCL's own return code (hccl_types.h: HCCL_E_PARA = 1) as torch_npu reports a call
        # into HCCL ("HCCL function error: hcclCommInitRootInfoConfig(...), error code is 1")
        patterns=(r"HCCL function error: .*, error code is 1$",),
        cause="HCCL (Ascend's NCCL, torch_npu's process group) rejected the arguments of a call "
        "(HCCL_E_PARA, its counterpart of ncclInvalidUsage): a communicator asked for a "
        "layout this NPU or CANN release does not support (a pipeline-parallel group on a "
        "310P, more ranks than devices, a rank outside the group), the same on every start.",
        fix="read the CANN plog (~/ascend/log) for the parameter HCCL names; change the "
        "parallel layout (tensor/pipeline sizes, ranks per node) to one the device and CANN "
        "release support, or update CANN and torch_npu together.",
        fixtures=("nccl_invalid_usage__vllm_ascend_2712.log",),
    ),
    Rule(
        name="hccl_internal_error",
        category="nccl_internal_error",
        code="LX702",
        priority=60,
        retryable=False,
        # HCCL_E_INTERNAL = 4, as torch_npu reports a call into HCCL, and as an aclnn MC2
        # kernel (MoE dispatch and combine) reports the HCCL call it made ("... function of
        # the hccl module. ret = 4")
        patterns=(
            r"HCCL function error: .*, error code is 4$",
            r"function of the hccl module\. ret = 4\b",
        ),
        cause="HCCL (Ascend's NCCL) failed inside itself (HCCL_E_INTERNAL, its counterpart of "
        "ncclInternalError) at a call the log names, such as an MC2 kernel's request for its "
        "communication resources; the log gives no more, and it repeats at the same call.",
        fix="read the CANN plog (~/ascend/log/debug/plog) of the failing rank for HCCL's own "
        "reason; check that every node runs the same CANN, torch_npu and launch script; for "
        "an MC2 kernel (aclnnMoeDistributeDispatch/Combine) check the HCCL buffer size "
        "(HCCL_BUFFSIZE) and the expert-parallel layout against the CANN release's limits.",
        fixtures=("nccl_internal_error__vllm_ascend_8568.log",),
    ),
    Rule(
        name="socket_system_error",
        category="socket_error",
        code="LX613",
        # a symptom's tier, like a store connection that closed (LX529): the socket's peer
        # may have died of a cause printed elsewhere
        priority=44,
        patterns=(
            # C++'s terminate handler, the line after "terminate called after throwing an
            # instance of 'std::system_error'": the errno text of a socket call (c10d's
            # store client, a transport thread) that no Python code could catch
            r"^what\(\):\s+(?:Transport endpoint is not connected|Connection reset by peer"
            r"|Broken pipe|Connection refused|Connection timed out|No route to host"
            r"|Network is unreachable)\s*$",
            # the same errno raised to Python from a collective or a store call, with nothing
            # after it: c10d's words alone name no transport (gloo's and NCCL's own say
            # theirs, LX522 and LX520)
            r"^RuntimeError: Connection reset by peer\s*$",
            # ... and a socket call's errno as the whole message of the exception that ended
            # the process, from torch's store (DistNetworkError) or from Python's socket
            # module, without the class that already names it (ConnectionResetError, LX520):
            # "OSError: [Errno 113] No route to host", "TimeoutError: [Errno 110] Connection
            # timed out", "torch.distributed.DistNetworkError: Broken pipe" (not an HTTP
            # client's, whose message names the URL it fetched; a bare "RuntimeError: Broken
            # pipe" under a broadcast is labelled three ways, and stays unread)
            r"^(?:OSError|TimeoutError|socket\.(?:timeout|error)|ConnectionError|"
            r"ConnectionAbortedError|(?:torch\.distributed\.)?DistNetworkError): "
            r"(?:\[(?:Errno|WinError) -?\d+\] )?(?:Connection (?:reset by peer|refused|timed out)"
            r"|No route to host|Network is unreachable|Broken pipe|Software caused connection "
            r"abort|Transport endpoint is not connected|An established connection was aborted "
            r"by the software in your host machine)\.?\s*$",
        ),
        cause="a socket between this process and a peer or the rendezvous store failed inside "
        "torch's C++ code, raised to the caller of a collective or a store call or, in a "
        "thread or a destructor where nothing could catch it, terminating the process: the "
        "peer's process went away (reset, broken pipe, not "
        "connected, or refused: its port is closed), or its host or the route to it did "
        "(timed out, no route, unreachable; a firewall does the same).",
        fix="read the other ranks' and nodes' output for a first error (that is the cause); if "
        "there is none, the host or the link is at fault: check the interface the ranks use "
        "(GLOO_SOCKET_IFNAME / NCCL_SOCKET_IFNAME in the profile) and, for a failure at "
        "start-up, MASTER_ADDR, MASTER_PORT and the firewall between the nodes; save "
        "checkpoints often enough that a retry resumes (launchx run retries it from a "
        "checkpoint).",
        fixtures=(
            "socket_error__moco_25_transport_endpoint_not_connected.log",
            "socket_error__lightning_16673.log",
        ),
    ),
    Rule(
        name="mooncake_tcp_socket",
        category="socket_error",
        code="LX720",
        # a symptom's tier (LX529's): the peer engine's process may have died of a cause
        # printed in its own log
        priority=44,
        patterns=(
            # Mooncake's transfer engine over its TCP protocol: boost.asio's connect to the
            # peer segment's RPC port throws, or a session's read/write ends with a socket
            # error ("Session::writeBody failed. Error: Connection reset by peer (value: 104)")
            r"TcpTransport: ASIO exception: (?:connect: )?(?:Connection (?:refused|reset by peer"
            r"|timed out)|Broken pipe|No route to host|Network is unreachable|Host is unreachable)",
            r"Session::(?:read|write)(?:Header|Body) failed\. Error: (?:Connection (?:refused"
            r"|reset by peer|timed out)|Broken pipe|End of file|No route to host)",
        ),
        cause="Mooncake's transfer engine, on its TCP protocol, could not reach the peer "
        "segment's RPC port or lost the connection mid-transfer: the peer engine (a prefill or "
        "decode instance, a store node) was not listening at the address it published to the "
        "metadata server, had died, or a firewall sits between the two hosts; the transfers "
        "fail after their retries and the engine above them (vLLM, SGLang) fails the request "
        "or its worker.",
        fix="check the peer instance's own log for its first error; if it is alive, make the "
        "address it publishes reachable from this host (its hostname must resolve to the "
        "interface the peers use; open the RPC port range between the nodes), or use the RDMA "
        "protocol where the nodes have it.",
        fixtures=(
            "socket_error__mooncake_292.log",
            "socket_error__mooncake_809.log",
        ),
    ),
    Rule(
        name="store_server_closed",
        category="socket_error",
        code="LX529",
        # A symptom's tier: the store's host (rank 0, or node 0's torchrun agent) went away,
        # usually because it failed first; its own failure in the log is the better cause.
        priority=44,
        patterns=(r"[Ff]ailed to recv, got 0 bytes", r"[Ff]ailed to send, sent 0 bytes"),
        cause="this rank's connection to the rendezvous store (a TCPStore hosted by rank 0 or "
        "by node 0's torchrun agent) was closed from the other side: the store's process "
        "exited or crashed, or something between the pods (a service mesh sidecar, a "
        "firewall, a load balancer) cut the connection.",
        fix="read the log of rank 0 and of node 0's launcher first: the store dies with them; "
        "if they are alive, check what sits between the nodes on MASTER_PORT (on Kubernetes, "
        "disable sidecar injection for the training pods).",
        fixtures=("socket_error__kubeflow_website_4186_trainer_tcpstore_recv_0_bytes.log",),
    ),
    Rule(
        name="gloo_connection_lost",
        category="gloo_error",
        code="LX522",
        priority=40,
        patterns=(
            r"gloo/transport/tcp/\w+\.cc:\d+\] (?:Connection closed by peer|Read error|"
            r"Write error|writev|Connection reset by peer)",
            r"\[gloo\].*Connection (?:closed|reset)",
        ),
        cause="a gloo connection to another rank was closed or reset: that rank's process "
        "exited (crashed, or returned while this one still expected a message, such as an "
        "isend never waited on).",
        fix="read the other ranks' output for the first error (it is the cause); if the peer "
        "exited cleanly, make both sides issue the same sends/receives and wait() on every "
        "isend/irecv before the process ends.",
        fixtures=("gloo_error__pytorch_75512.log", "gloo_error__pytorch_78514_isend_no_wait.log"),
    ),
    Rule(
        name="cuda_unloading_at_exit",
        category="segfault",
        code="LX637",
        # above gloo's EnforceNotMet (LX523), which this error is thrown as in gloo's CUDA
        # code, but in the symptoms' tier: a crash at exit after another failure is not its
        # cause
        priority=45,
        retryable=False,
        patterns=(
            # cudaErrorCudartUnloading's string (29 in CUDA < 10.1, 4 since), however the
            # caller prints it: "CUDA error: ...", NCCL's "Cuda failure '...'", gloo's
            # "error == cudaSuccess. 29 vs 0. Error at: ...: ..."
            r"\bdriver shutting down\b",
        ),
        cause="a CUDA call ran while the process was exiting, after the CUDA runtime had "
        "been unloaded (a process group, a communicator or a background thread still alive "
        "at interpreter shutdown), and the C++ error it raised aborted the process: the "
        "training itself had ended; it happens at every exit until the teardown is fixed.",
        fix="call dist.destroy_process_group() (and stop DataLoader workers and other "
        "threads that use the GPU) before the script returns, instead of leaving them to "
        "interpreter shutdown; a newer torch tears its process groups down in order.",
        fixtures=("segfault__diux_cluster_47_gloo_driver_shutting_down_at_exit.log",),
    ),
    Rule(
        name="gloo_message_longer_than_posted",
        category="gloo_error",
        code="LX693",
        # the same tier as the connection rule it is one of the enforce lines of (LX523)
        priority=41,
        patterns=(r"op\.preamble\.length <= op\.nbytes\b",),
        cause="gloo received from a peer a message longer than the buffer this rank posted "
        "for it: the ranks called the collective with tensors of different sizes (a last "
        "batch of another length, a tensor gathered without padding), or called different "
        "collectives in a different order, not a network fault.",
        fix="make every rank pass tensors of the same shape to each collective (pad to the "
        "largest, or all_gather_object / gather the sizes first) and call the collectives in "
        "the same order on every rank; TORCH_DISTRIBUTED_DEBUG=DETAIL checks both and names "
        "the mismatch.",
        fixtures=("gloo_error__prime_diloco_68_enforce_preamble_length.log",),
    ),
    Rule(
        name="gloo_setup",
        category="gloo_error",
        code="LX523",
        priority=40,
        patterns=(
            r"Gloo connectFullMesh failed",
            # (and gloo's own look-ups of the host's interfaces and devices, common/linux.cc;
            # a paste copied from GitHub's rendered page can carry "http://" before a ".cc"
            # file name, which the page took for a web address)
            r"gloo/(?:transport/(?:tcp|uv)|common)/(?:https?://)?\w+\.(?:cc|h):\d+\]",
            r"gloo::EnforceNotMet",
            # ProcessGroupGloo's device factory: no GLOO_SOCKET_IFNAME and a host name that
            # resolved to nothing usable (Windows: the store's "[]:port", WSA error 10049)
            r"GlooDeviceFactory::make\w*Device\(\): interface or hostname can't be empty",
        ),
        exclude=(r"Timed out", r"Connection (?:closed|reset)", r"Read error|Write error|writev"),
        cause="gloo could not connect the ranks: usually the wrong network interface was chosen "
        "(a docker/virtual bridge or one without a route to the other hosts); or its own "
        "look-up of the host's interfaces and devices failed (common/linux.cc: an interface "
        "that is not there, a build with GPUDirect on a host without InfiniBand).",
        fix="set GLOO_SOCKET_IFNAME=<iface> (and NCCL_SOCKET_IFNAME) to the interface the hosts "
        "share, and check that they resolve each other's hostnames to reachable addresses; "
        "for a device look-up that fails, a torch build whose gloo matches the host (the "
        "official wheels, not a GPUDirect build on a host without InfiniBand).",
        fixtures=(
            "gloo_error__gloo_268_address_family_mismatch.log",
            "gloo_error__occlum_1604_connectfullmesh.log",
            "gloo_error__colossalai_4076_new_group_bind_eaddrinuse.log",
            "gloo_error__ray_49252_macos_uv_accept_sigabrt.log",
            "gloo_error__rvc_webui_1551_windows_makeuvdevice_empty_host.log",
            "gloo_error__pytorch_2835.log",
            "gloo_error__sparsercnn_28.log",
        ),
    ),
    Rule(
        name="gloo_hostname_unresolved",
        category="gloo_error",
        code="LX779",
        # a root cause (no gloo device, so no process group), over the exceptions a harness
        # or the script raises after it (LX511) and gloo's other set-up lines (LX523)
        priority=81,
        retryable=False,
        patterns=(
            # gloo's tcp device (device.cc): with no interface named, it looks up the host's
            # own name, and getaddrinfo gave nothing it can bind ("ifa != nullptr" is an
            # interface's, LX741's)
            r"rp != nullptr\. Unable to find address for: ",
            # ... and when the name resolved but to no address an interface has, so bind(2)
            # to it failed ("Cannot assign requested address")
            r"bind_rv == 0\. Unable to find address for \S+; bind\(2\) for ",
        ),
        cause="gloo looks up this host's own name to find the address to listen on, and the "
        "name resolves to nothing usable: a container or VM whose hostname is not in "
        "/etc/hosts, a DNS that does not know the machine, or a name that resolves only to "
        "an address no interface has; the process group is never built, on every start.",
        fix="make the host name resolve (add `<address> $(hostname)` to /etc/hosts, or run "
        "the container with --hostname/--add-host set to it), or name the interface so gloo "
        "needs no look-up: GLOO_SOCKET_IFNAME=<iface> (and NCCL_SOCKET_IFNAME).",
        fixtures=(
            "gloo_error__pipedream_32_unable_to_find_address.log",
            "gloo_error__pytorch_world_7_docker_hostname_unresolvable.log",
        ),
    ),
    Rule(
        name="gloo_interface_missing",
        category="nccl_config_error",
        code="LX741",
        # a root cause (the group is never built), above gloo's set-up symptoms (LX523)
        priority=60,
        retryable=False,
        patterns=(
            # gloo's look-up of the interface it was told to use (GLOO_SOCKET_IFNAME, or a
            # script's own setting) found no address on it; a host name that resolves to
            # nothing is "rp != nullptr" (LX779's)
            r"\bifa != nullptr\. Unable to find address for: ",
        ),
        cause="gloo was told to use a network interface that has no address on this host: "
        "GLOO_SOCKET_IFNAME (or a script that sets it, as early YOLOX set ib0) names an "
        "interface this machine does not have or that is down; the process group is never "
        "built, on every start.",
        fix="list the interfaces with `ip -br addr` and set GLOO_SOCKET_IFNAME (and "
        "NCCL_SOCKET_IFNAME) to one that exists on every node with the address the nodes "
        "reach each other by, or unset it to let gloo use the host name's address.",
        fixtures=("nccl_config_error__yolox_119.log", "nccl_config_error__yolox_432.log"),
    ),
    Rule(
        name="gloo_no_transport",
        category="gloo_error",
        code="LX610",
        # a root cause, not a lost peer (LX522/LX523 sit in the symptoms' tier): the process
        # group is never built, on any rank
        priority=60,
        retryable=False,
        patterns=(r"makeDeviceFor(?:Hostname|Interface)\(\): unsupported gloo device",),
        cause="this torch build has no gloo transport for the device it was asked for: "
        "ProcessGroupGloo found no TCP or libuv transport compiled in (the Windows wheels of "
        "some torch releases ship gloo without one; Lightning's own tests expect this error "
        "on Windows with torch 2.8 and 2.9), or GLOO_DEVICE_TRANSPORT names one the build "
        "lacks. No rank can start a gloo group with it.",
        fix="run on Linux or WSL, or install a torch release whose wheel for this platform has "
        "the transport; unset GLOO_DEVICE_TRANSPORT or set it to one the build has; on a single "
        "GPU, run without init_process_group (one process, no DDP).",
        fixtures=("gloo_error__applio_1019_windows_unsupported_gloo_device.log",),
    ),
    Rule(
        name="old_torch_collective_eagain",
        category="collective_timeout",
        code="LX677",
        priority=50,
        # torch <= 1.0 set a receive timeout on its sockets (the store's, gloo's) and reported
        # a wait that ran out as the errno text of EAGAIN, raised from the collective
        patterns=(r"^RuntimeError: Resource temporarily unavailable$",),
        context=(r"torch[/\\](?:distributed|nn[/\\]parallel[/\\]distributed\.py)",),
        cause="a collective (DDP's first broadcast, a barrier) waited on the rendezvous store "
        "for another rank (NCCL's unique id, gloo's addresses) longer than the store's socket "
        "timeout (about 300 s in torch 1.0); torch before 1.1 reports that as the errno of "
        "the receive that timed out (EAGAIN, 'Resource temporarily unavailable'): another "
        "rank is slow (still loading weights or data) or stopped before the collective.",
        fix="find the rank that did not reach it (its own log); make rank 0's one-time work "
        "(downloading, loading a large checkpoint) happen on every rank or before the "
        "process group is created; upgrade torch, whose later releases report the timeout "
        "as such and honour init_process_group(timeout=...) for NCCL.",
        fixtures=("collective_timeout__maskrcnn_benchmark_931_ddp_broadcast_eagain.log",),
    ),
    Rule(
        name="horovod_stall",
        category="collective_timeout",
        code="LX638",
        priority=50,
        patterns=(
            # Horovod's stall inspector (horovod/common/stall_inspector.cc), followed by its
            # "Missing ranks:" list of which rank lacks which tensor
            r"One or more tensors were submitted to be reduced, gathered or broadcasted by "
            r"subset of ranks and are waiting for remainder of ranks",
        ),
        cause="Horovod's stall inspector found collectives that some ranks submitted and the "
        "others did not for its check time (60 s by default): the ranks run different code "
        "paths (a rank-dependent branch, uneven data, a tensor named differently per rank) or "
        "the missing ones are stuck; the lines under it name which rank lacks which tensor.",
        fix="read the 'Missing ranks' list: make every rank submit the same collectives in "
        "the same order and under the same names (hvd.join() for uneven data); "
        "HOROVOD_STALL_CHECK_TIME_SECONDS and HOROVOD_STALL_SHUTDOWN_TIME_SECONDS set when "
        "it warns and when it gives up.",
        fixtures=(
            "collective_timeout__horovod_2662_join_broadcast_stall.log",
            "collective_timeout__horovod_429_avg_loss_missing_rank1.log",
        ),
    ),
    Rule(
        name="gloo_timeout",
        category="collective_timeout",
        code="LX524",
        priority=50,
        patterns=(
            r"Timed out waiting \d+ms for (?:recv|send) operation",
            r"gloo/transport/tcp/\w+\.cc:\d+\] Timed out",
            r"Timed out waiting for \w+ operation to complete",
            r"failed to pass monitoredBarrier in \d+ ms",
            # ProcessGroupGloo's checkRemainingTime, when the barrier's time ran out
            r"timed out in monitoredBarrier after \d+ ms",
        ),
        cause="a collective on the gloo (or another non-NCCL) backend did not finish within the "
        "process-group timeout (30 min by default): a peer was stuck or gone.",
        fix=_PG_TIMEOUT_FIX,
        fixtures=(
            "collective_timeout__detectron2_5121.log",
            "collective_timeout__pipedream_39.log",
        ),
    ),
    Rule(
        name="store_wait_in_collective",
        category="collective_timeout",
        code="LX619",
        priority=50,
        patterns=(r"RuntimeError: Socket Timeout",),
        context=(
            # raised under a collective (the store wait of an NCCL communicator's first
            # use), not in the rendezvous; the elastic agent's own store barrier is a
            # rendezvous step
            r'^File "(?!.*elastic)[^"]*", line \d+, in (?:all_reduce|all_gather(?:_object|'
            r"_into_tensor)?|broadcast(?:_object_list)?|barrier|monitored_barrier|reduce"
            r"(?:_scatter(?:_tensor)?)?|gather(?:_object)?|scatter(?:_object_list)?|"
            r"all_to_all(?:_single)?)$",
            # DDP's own collectives (its constructor's broadcast of the parameters, its
            # buffers' broadcast in forward), under frames of its module in torch 1.x
            r'^File "[^"]*torch[/\\]nn[/\\]parallel[/\\]distributed\.py", line \d+, in ',
        ),
        cause="a collective waited on the process group's store for peers that never came "
        "(an NCCL communicator's first use exchanges its id there): another rank was "
        "elsewhere (still loading or evaluating alone, stuck, or dead) past the timeout. "
        "Unlike a rendezvous timeout, every rank had joined the process group.",
        fix="read the other ranks' output for where they were; when one rank legitimately "
        "works alone (evaluation, preprocessing on rank 0), let the others wait in a barrier "
        "with a long enough init_process_group(timeout=...), or share the work; make every "
        "rank reach the same collectives in the same order.",
        fixtures=(
            "collective_timeout__dgl_3629_launch_allreduce_socket_timeout.log",
            "collective_timeout__pytorch_63455_ddp_init_broadcast_socket_timeout.log",
        ),
    ),
    Rule(
        name="deepep_kernel_timeout",
        category="collective_timeout",
        code="LX623",
        priority=50,
        patterns=(_DEEPEP_TIMEOUT, _DEEPEP_CPU_TIMEOUT),
        cause="DeepEP's expert-parallel dispatch or combine kernel waited for tokens from its "
        "peers (over NVLink within a node, RDMA across nodes) longer than its in-kernel "
        "timeout: a peer rank never launched the same kernel (it failed, or took another "
        "branch), or the RDMA path between nodes drops or stalls traffic; the ranks that "
        "report it are the ones that waited.",
        fix="read the other ranks' output for an error or a different code path first; run "
        "DeepEP's tests/test_internode.py (and test_intranode.py) on the same nodes to tell a "
        "network fault from the script; check the NICs' counters (ibv_devinfo, "
        "`launchx doctor`) and NVSHMEM's IBGDA set-up when only inter-node runs fail.",
        fixtures=("collective_timeout__deepep_274_internode_4x8_h800_timeout.log",),
    ),
    Rule(
        name="rpc_timeout",
        category="collective_timeout",
        code="LX629",
        priority=50,
        patterns=(
            # torch.distributed.rpc's kRpcTimeoutErrorStr, for rpc_sync/rpc_async/remote (the
            # ProcessGroup agent of torch < 1.8 printed no number)
            r"RPC ran for more than set timeout (?:\(\d+ ms\) )?and will now be marked",
        ),
        cause="a torch.distributed.rpc call (rpc_sync, rpc_async, a remote module's forward) "
        "got no answer from its callee within the RPC timeout (60 s by default): the callee "
        "was still busy with earlier requests, stuck, or gone.",
        fix="read the callee worker's own output for an error first; raise the timeout "
        "(init_rpc(rpc_backend_options=TensorPipeRpcBackendOptions(rpc_timeout=...)) or "
        "rpc_sync(..., timeout=...)) when the callee legitimately works longer, and give it "
        "more worker threads (num_worker_threads) when many calls queue on it.",
        fixtures=("collective_timeout__pytorch_53901_flaky_remote_module_rpc_timeout.log",),
    ),
    Rule(
        name="nccl_id_wait_timeout",
        category="collective_timeout",
        code="LX584",
        priority=51,
        patterns=(
            # torch before 2.3 spelled it "retreiving"; the waiting rank opens the message
            # (its rank in the group: the global one only in the default group), or a paste
            # that starts after it
            r"(?:(?:\[(?P<named_rank>\d+)\] )?is )?setting up NCCL communicator and "
            r"retr(?:ie|ei)ving ncclUniqueId from "
            r"\[\d+\] "
            r"via c10d key-value store by key '[^']*', but store->get\('[^']*'\) got error: "
            r"(?:wait timeout|Socket Timeout|Timeout)",
        ),
        cause="it waited in the store for another rank (the number in brackets in the "
        "message, its rank in that process group) to publish the NCCL id of a communicator, "
        "which that rank creates at its first collective on the group (or in "
        "init_process_group with device_id=), and it never did within the timeout: it had "
        "not got there (still loading a model or data, stuck, on another code path, or "
        "dead); the waiting rank is only the first to notice.",
        fix="read that rank's own output for where it was; when it legitimately works "
        "alone first (loading, tokenizing, downloading), raise init_process_group(timeout=...) "
        "or move that work before init, and make every rank create the same process groups in "
        "the same order.",
        fixtures=(
            "collective_timeout__trl_3119_grpo_6node_nccluniqueid_store_wait.log",
            "collective_timeout__finetune_chatglm2_13_tokenizer_barrier_socket_timeout.log",
            "collective_timeout__llamafactory_81.log",
        ),
    ),
    Rule(
        name="store_wait_timeout",
        category="collective_timeout",
        code="LX698",
        # the symptom's tier: whatever kept the other rank away, when the log shows it, is
        # the cause (a rendezvous, an NCCL id wait, the other rank's own error)
        priority=45,
        patterns=(
            # c10d's socket.cpp: a store client's wait for the server's answer (a get, a
            # wait, a barrier's add) ran past the store's timeout
            r"\[c10d\] waitForInput: socket SocketImpl\(.*\) timed out after \d+ ?ms",
            # ... and its warning when the poll for the answer ran out, printed first (a paste
            # may stop after it)
            r"waitForInput: poll for socket .* returned 0, likely a timeout",
        ),
        cause="the rank waited in the c10d store (a barrier, a get of a key another rank "
        "writes) for longer than the timeout and no answer came: another rank had not got "
        "there (rank 0 alone preprocessing or loading for longer than the timeout, a rank on "
        "another code path, stuck or dead); the waiting rank is only the first to notice.",
        fix="read the other ranks' output for where they were; when one rank legitimately "
        "works alone first (tokenizing, downloading, a main-process-first block), raise "
        "init_process_group(timeout=...) (ddp_timeout in Hugging Face's TrainingArguments) or "
        "do that work before the run starts.",
        fixtures=("collective_timeout__axolotl_2684.log",),
    ),
    Rule(
        name="ray_channel_timeout",
        category="collective_timeout",
        code="LX700",
        # the symptom's tier, as LX698: a worker's own error, when the log shows one, is why
        # its output never came
        priority=45,
        patterns=(
            # Ray's compiled graphs (vLLM's Ray executor with VLLM_USE_RAY_COMPILED_DAG): the
            # driver's read of a channel the workers write waited past its timeout
            r"^(?:ray\.exceptions\.)?RayChannelTimeoutError: ",
            r"\bray\.exceptions\.RayChannelTimeoutError: ",
        ),
        cause="the process that drives Ray's compiled graph (vLLM's engine core with its Ray "
        "executor) waited for the workers' output on a channel longer than the graph's timeout "
        "(RAY_CGRAPH_get_timeout: vLLM sets 300 s, Ray's own default is 10 s): a worker was "
        "stuck in a collective, still compiling or loading, or dead; the reader is only the "
        "first to notice.",
        fix="read the workers' own output (the lines prefixed with their actor's name and pid) "
        "for an error or a hang first; when a step legitimately takes longer (the first "
        "request's graph capture, long prompts), raise RAY_CGRAPH_get_timeout; on one node "
        "vLLM can run its multiprocessing executor instead (--distributed-executor-backend "
        "mp; its V1 engine always drives Ray through compiled graphs).",
        fixtures=("collective_timeout__ray_59249.log", "collective_timeout__ray_53845.log"),
    ),
    Rule(
        name="vllm_rpc_timeout",
        category="collective_timeout",
        code="LX705",
        # the symptom's tier, as LX700: a worker's own error, when the log shows one, is why
        # its answer never came
        priority=45,
        patterns=(
            # vLLM's multiprocessing executor (V1): the engine core's wait for the workers'
            # answers, raised over the shared-memory queue's own timeout
            r"^TimeoutError: RPC call to \w+ timed out\.",
            # ... and that queue's own exception, raised bare where the excerpt holds only it
            r"^TimeoutError$",
        ),
        raised_in=(
            r'shm_broadcast\.py", line \d+, in acquire_read$',
            r'executor\.py", line \d+, in (?:collective_rpc|get_response)$',
        ),
        cause="vLLM's engine core waited for its workers' answer to a call (execute_model, "
        "usually) longer than VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS (300 s by default), over the "
        "shared-memory queue they answer on: a worker was stuck in a collective with a peer "
        "that failed or hung (another node, a KV-transfer connector), or was dead; the engine "
        "core is only the first to notice.",
        fix="read the workers' own lines (prefixed 'VllmWorker TPn' or with the worker's pid) "
        "for an earlier error or a hang (py-spy dump of each worker); when a step "
        "legitimately takes longer (long prompts, a first compilation, a slow KV transfer), "
        "raise VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS.",
        fixtures=(
            "collective_timeout__mooncake_1458.log",
            "collective_timeout__vllm_ascend_2264.log",
        ),
    ),
    Rule(
        name="sglang_scheduler_watchdog",
        category="collective_timeout",
        code="LX715",
        # (the scheduler then signals its parent, which kills the whole process tree: the
        # kill that follows is not read, see LX547)
        priority=50,
        patterns=(
            # SGLang's scheduler: the running batch's forward did not advance for
            # --watchdog-timeout seconds (logger.error, after a py-spy dump of the schedulers)
            r"\bWatchdog timeout \(self\.watchdog_timeout=\d+(?:\.\d+)?\)",
        ),
        cause="SGLang's scheduler saw its running batch make no progress for --watchdog-"
        "timeout seconds (300 by default) and ended the server: a forward step hung, most "
        "often in a collective waiting for a tensor-parallel or expert-parallel peer (a rank "
        "that died or hung, a peer on another node), sometimes in a kernel that never "
        "returned.",
        fix="read the stacks newer releases dump just before this line when py-spy is "
        "installed (where each TP rank was stuck) and the peers' logs for an earlier error; "
        "for a multi-node "
        "server check the links (NCCL_DEBUG=INFO); raise --watchdog-timeout only when a step "
        "legitimately takes longer (a first compilation, very long prompts).",
        fixtures=("collective_timeout__sglang_3752.log",),
    ),
    Rule(
        name="hccl_notify_timeout",
        category="collective_timeout",
        code="LX602",
        priority=50,
        patterns=(
            # CANN's EI0002 ("Communication Operation Timeout"): the message in newer releases,
            # and the possible-cause line every release prints under the older one, whose
            # first line ("The wait execution of the Notify register times out") has no anchor
            r"An timeout occurs when the Notify register waits for execution",
            r"too slow to complete a communication operation within the timeout interval",
            # EI0006: the links of a group's first collective were not built in time
            r"EI0006: .*Getting socket times out",
            # the device's stream sync gave up (EE1002, ACL's 507046) while a collective on
            # the stream still waited (a long kernel can say the same, far less often)
            r"EE1002: .*Stream synchronize timeout",
            # the device's own report of a collective's task that waited past the timeout
            # ("hccl fftsplus task timeout occurred during task execution, ... timeout:1836"),
            # and its report of the notify wait itself (device_error_proc.cc)
            r"\bhccl \w+ task timeout occurred during task execution",
            r"\bnotify wait timeout occurred during task execution\b",
            # ACL_ERROR_RT_FFTS_PLUS_TIMEOUT (507048, "The execution of the internal task
            # times out"): an FFTS+ task past its timeout, which runs HCCL's notify waits and
            # AI Core kernels alike; in the corpus it is a collective's wait (EI0002 beside
            # it) twice in three, a bet on the corpus, not the code's definition
            r"\berror code(?: is|:) ?507048\b",
        ),
        cause="a collective on Ascend NPUs (torch_npu's HCCL process group) waited for a peer "
        "rank longer than HCCL_EXEC_TIMEOUT (about 30 minutes by default, the exact value "
        "depends on the CANN release; a stream sync that gives up on it says EE1002), or, "
        "building a group's links at its first collective, longer than HCCL_CONNECT_TIMEOUT "
        "(EI0006): that rank failed earlier, was still busy elsewhere (loading, evaluating, "
        "an uneven number of samples per rank), or its link dropped packets; the rank "
        "reporting it is usually not the one at fault.",
        fix="read the other ranks' logs for an earlier error first (CANN's plog: grep -rn "
        "'error cqe' for a link fault); give every rank the same number of samples and steps; "
        "when one rank legitimately works alone for long (evaluation, saving, tokenizing on "
        "the main process), raise HCCL_EXEC_TIMEOUT (HCCL_CONNECT_TIMEOUT for EI0006) in the "
        "profile's env.",
        fixtures=(
            "collective_timeout__llamafactory_975_npu_accelerate_ei0002_notify_timeout.log",
            "collective_timeout__vllm_ascend_486_hccl_ei0006_allreduce.log",
            "collective_timeout__llamafactory_5551_npu_tokenize_stream_sync_timeout.log",
            "collective_timeout__llamafactory_5347.log",
            "collective_timeout__vllm_ascend_12487.log",
            "collective_timeout__vllm_ascend_1193.log",
        ),
    ),
    Rule(
        name="nccl_desync_diverged",
        category="nccl_watchdog_timeout",
        code="LX560",
        priority=53,
        retryable=False,
        patterns=(
            r"\[(?P<rank>\d+)(?:, \d+)*\] finished collective #\d+, "
            r"but didn't join collective #\d+",
        ),
        cause="NCCL's desync report names ranks that finished one collective and never joined "
        "the next while the others moved on: the ranks took different paths through the code "
        "(a collective skipped or added on some ranks, an uneven data split, a rank-dependent "
        "branch) or those ranks stopped outside any collective; the same code takes the same "
        "path again, so it is not retried blindly.",
        fix="look at what the named ranks did after the collective they finished (their "
        "stacks: py-spy dump, or launchx's hang report); make every rank issue the same "
        "collectives in the same order (drop_last=True, no rank-only collectives); "
        "TORCH_DISTRIBUTED_DEBUG=DETAIL checks collective order and shapes at every call.",
        fixtures=("nccl_watchdog_timeout__pytorch_152623_desync_rank7_regression.log",),
    ),
    Rule(
        name="nccl_first_collective_timeout",
        category="nccl_watchdog_timeout",
        code="LX550",
        priority=52,
        retryable=False,
        patterns=(r"WorkNCCL\(SeqNum=[0-4]?\d{1,2}, OpType=\w+.*(?:ran for|timed out)",),
        cause="a collective among the first 500 of its process group (its sequence number says "
        "so) never completed: the run had not got past its first steps, so nothing shows that "
        "this code and this network ever worked together. The ranks could not reach each other "
        "(interface, firewall, IB/RoCE settings), one rank was busy elsewhere (rank 0 preparing "
        "data), or the ranks issued different collectives; all of these repeat on the next "
        "attempt, unlike the rare network stall of a run that has done thousands of "
        "collectives, so it is not retried blindly.",
        fix="run a two-node all_reduce test with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and "
        "check the interface NCCL picks (NCCL_SOCKET_IFNAME), the IB devices (NCCL_IB_HCA, "
        "ibstat) and that the nodes reach each other on all ports; "
        "TORCH_DISTRIBUTED_DEBUG=DETAIL shows ranks that issue different collectives.",
        fixtures=(
            "nccl_watchdog_timeout__determined_8915_first_allgather.log",
            "nccl_watchdog_timeout__megatron_735_moe_allreduce_numel1.log",
            "nccl_watchdog_timeout__nccl_1610_moe_alltoall_two_threads.log",
        ),
    ),
    Rule(
        name="nccl_short_timeout",
        category="nccl_watchdog_timeout",
        code="LX568",
        priority=52,
        retryable=False,
        patterns=(r"WorkNCCL\(.*Timeout\(ms\)=(?:\d{1,5}|[12]\d{5})\).*(?:ran for|timed out)",),
        cause="the collective timeout is under 5 minutes (set by the script or a library, not "
        "PyTorch's default): a slow but legitimate step on one rank (rank 0 preparing or caching "
        "data, an evaluation, a checkpoint save) outlasts it while the others wait in a "
        "collective, and the same step outlasts it again on the next attempt.",
        fix="raise the timeout where it is set (init_process_group(timeout=timedelta(minutes=30)), "
        "the framework's ddp/pg timeout option, or the profile's timeouts.pg_timeout_s, which "
        "launchx.runtime.init_distributed reads as LAUNCHX_PG_TIMEOUT_S); move long rank-0-only "
        "work before init_process_group or behind a barrier with a long timeout.",
        fixtures=("nccl_watchdog_timeout__yolov5_4400_label_scan_60s.log",),
    ),
    Rule(
        name="nccl_watchdog_timeout",
        category="nccl_watchdog_timeout",
        code="LX525",
        priority=51,
        patterns=(
            r"Watchdog caught collective operation timeout",
            # torch 1.x under NCCL_BLOCKING_WAIT: the waiting call's own exception
            r"\] Caught collective operation timeout: WorkNCCL\(",
            r"NCCL timeout",
            r"Some NCCL operations have failed or timed out",
            r"Timeout at NCCL work: \d+",
            r"Received a global timeout from another rank",
            r"watchdog detected a collective timeout and notified current rank",
            r"Received a dump signal due to a collective timeout from",
            r"Heartbeat monitor timed out!",
            r"ProcessGroupNCCL's watchdog got stuck for \d+ seconds",
            # the C++ frame that throws the watchdog's timeout, when its message was cut
            r"c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout\(",
            # the watchdog's desync report, which it prints only after a timeout, failing (torch
            # spells it "rerieve" when the failure is not a std::exception)
            r"Failed to ret?rieve (?:TORCH_)?NCCL_DESYNC_DEBUG report",
        ),
        cause="an NCCL collective did not finish within the process-group timeout (10 min by "
        "default since torch 2.2, 30 min before) and the watchdog aborted the process (under "
        "NCCL_BLOCKING_WAIT the waiting call raised instead): one rank was slow, stuck or "
        "dead, or ranks issued different collectives.",
        fix=_PG_TIMEOUT_FIX,
        fixtures=(
            "nccl_watchdog_timeout__basicsr_737.log",
            "nccl_watchdog_timeout__d_fine_75_gloo_and_nccl.log",
            "nccl_watchdog_timeout__particleflow_390_rank0_eval_hang.log",
            "nccl_watchdog_timeout__pytorch_pr109611_pp_recv_timeout_desync.log",
        ),
    ),
    Rule(
        name="deprecated_env",
        category="deprecated_env",
        code="LX526",
        priority=5,
        patterns=(
            r"Environment variable (NCCL_\w+) is deprecated; use (TORCH_NCCL_\w+)",
            r"(?:TORCH_)?NCCL_\w+ is the default now, this environment variable is thus deprecated",
        ),
        cause="an old or no-longer-needed PyTorch NCCL variable is set (renamed to TORCH_NCCL_* "
        "in torch 2.2, or now the default); it still works but warns on every rank. It is a "
        "warning, not a failure.",
        fix="rename it (e.g. NCCL_ASYNC_ERROR_HANDLING -> TORCH_NCCL_ASYNC_ERROR_HANDLING) or "
        "remove it when it only restates the default, in the profile, the job script or the "
        "framework that sets it.",
        fixtures=(
            "deprecated_env__physicsnemo_568.log",
            "deprecated_env__pytorch_114432_desync_debug.log",
        ),
    ),
)

ANCHORS: tuple[str, ...] = (
    "error",
    "terminate",
    "exception",
    "fail",
    "exit",
    "signal",
    "kill",
    "timeout",
    "timed out",
    "times out",
    "nccl",
    "abort",
    "fault",
    "cancel",
    "interrupt",
    "preempt",
    "global_rank",
    "duplicate gpu",
    "out of memory",
    "nvidia driver",
    "cuda capability",
    "bootstrap",
    "requeue",
    "barrier",
    "didn't join",
    "launchx: hang",
    "nvrm: xid",
    "shape mismatches",
    "out_of_memory",
    "not produced any output",
    "sigsegv",
    "resolve",
    "can't open file",
    "can't find '__main__'",
    "driver version is insufficient",
    "$'\\r'",
    "horovodrun task function",
    # the shell's, the kernel's and env's words for a script or interpreter that is not there
    # (a carriage return in its name, an environment moved after install)
    "no such file or directory",
    "is not needed when a module",
    "still have inflight params",
    "zeroparamstatus.available",
    "marked dead",
    "low on resource",
    "gloo/transport",
    "shared memory",
    "srun: terminating",
    "got completion",
    "command not found",
    "corrupt",
    "(): invalid",
    "double free",
    "enough slots",
    "did not receive grad",
    "ssh: connect to host",
    "stall_inspector",
    "already in use",
    "mpi_init_thread) more than once",
    "--local-rank local_rank",
    "unrecognized argument",
    "prov_err",
    "cannot find -l",
    "unexpected result",
    "mismatch between collectives",
    "--nnode",
    "--node",
    "stopiteration",
    "cuda_home",
    "(): unaligned",
    ": not found",
    "unable to find the specified executable",
    "is utilizing it",
    "': could not ",
    "cannot find primary config",
    "does not support limiting",
    "rdmatransport: ",
    '"freeze_support()" line',
    "transport/ibgda/",
    "was unable to reliably start",
    "resource_exhausted",
    "resource exhausted",
    "sigabrt",
    "backend not set",
    ": no module named",
    "unsupported gpu architecture",
    "device handle for gpu",
    "is not defined for option 'gpu-",
    "detected cuda version",
    "copying a param with shape",
    "^c",
    "kernels configured but not",
    "invalid access pattern",
    "zero-3 is not compatible with",
    "deepspeed config values that mismatch",
    "accelerate config variables will be ignored",
    "not found in kwargs",
    "marked as ready twice",
    "tensors share memory",
    "accelerate.utils.operations.",
    "], thread: [",
    "expected all tensors to be on the same device",
    "expected to be in states",
    "in any distributed mode",
    "--no-load-",
    "unable to launch the specified",
    '"plm_rsh_agent"',
    " in replica ",
    "attempt to run as root",
    # NCCL's socket transport's line alone, without the error above it that names it
    "closed by remote peer",
    # zipfile's exception, whose name has neither "error" nor "exception" in it
    "badzipfile",
    # c10's words for a tensor without memory, which a paste may quote without the exception
    "not allocated yet",
    # ProcessGroupNCCL's check of a CPU tensor, and c10d's missing backend for a device,
    # which a paste may quote without the exception
    "cuda and dense",
    "backend type associated",
    # xformers' reasons for finding no attention kernel, under its NotImplementedError
    "xformers wasn't build",
    "xformers can't load",
    "supported: {'cuda'}",
    # not a failure: the line whose presence after LX782's says the load went on
    "successfully loaded",
    # pickle's and a codec's words, which a framework may log without the exception's class
    "can't pickle",
    "codec can't decode",
    # DeepSpeed ZeRO-3's dtype assertion, whose AssertionError carries no message
    "t.dtype for t in tensors",
    # FSDP's assertion message, which it prints on a line of its own before raising
    "accumulategrad` and register",
    # an assert statement's source line under its frame, where a paste ends before the
    # AssertionError (LX674)
    "assert ",
    # torch's messages for tensors whose shapes do not fit, quoted without the exception
    # (LX646)
    "must match the size of tensor",
    "shapes cannot be multiplied",
    "is invalid for input of size",
    "sizes of tensors must match",
    # Horovod's stall inspector's warning without its glog header (stall_inspector.cc), as
    # the reporter's terminal or a progress bar before it shows it (LX638)
    "remainder of ranks",
    # accelerate's refusal to prepare two models for DeepSpeed, an assertion with no
    # "error" in its words (LX809)
    "instance with multiple models",
    # Hydra's and OmegaConf's words for an override of a key the config lacks (LX689)
    "could not override",
    "is not in struct",
    # NCCL's warning at a communicator's tear-down (LX670)
    "collective mismatch around",
    # a Slurm command with no configuration to read (LX811)
    "configuration source",
    "process configuration file",
)
"""Lower-case fragments of which every line a rule can match holds at least one. A long log
is searched for these (fast) and only their lines are matched against the rules (slow), so
a rule whose lines hold none of them is never seen in a log: the test
``test_anchored_scan_equals_full_scan`` catches that; add an anchor then. Where Hyperscan is
installed all of them are found in one pass (``anchorlines.OnePass``: about 0.06 s per
100 MB of ordinary log, whatever their number, plus a Python call per match), and an anchor
costs only the lines it keeps; without it,
each is a ``bytes.find`` pass of 20-50 ms per 100 MB (whole words search faster than
fragments: "error" is three times faster than "rror"). Traceback frames need no anchor:
they are picked up above an exception line, and NCCL's detail under ``Last error:`` needs
none either, nor the frame under faulthandler's ``(most recent call first):``: the line after
each is kept too. An anchor that holds another finds nothing more
(``test_no_anchor_holds_another``). The order matters without Hyperscan: in a long log on
two cores the first ``logscan._NEAR`` are searched by the scanner and the rest by a helper
process (``anchorfind``) at the same time, so an anchor added at the end costs the helper's
core, not the scanner's; the anchors with a next-line marker (``logscan._ANCHORED_MARKERS``)
must be among the scanner's, which alone looks for markers."""

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
