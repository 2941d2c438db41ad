"""Pieces of patterns that rules of several topics share: an exception line, the
launchers' signal reports, what a warning or a retry looks like, which lines are not the
script's own exception. Kept in one place so two rules that mean the same words say them
alike."""

from __future__ import annotations

from launchx.loglines import DEEPSPEED_LONE_RANK_EXIT, EXCEPTION_NAME

PYTHON_ONLY_ERRORS = (
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

SLURM_REQUEST_ANSWER = (
    r"(?:^|: )(?:sbatch|salloc|srun): error: (?:Batch job submission failed|Unable to "
    r"allocate resources|Job submit/allocate failed): "
)
"""The words sbatch, salloc and srun outside a job put before slurmctld's answer to a
request for a job (src/sbatch/sbatch.c, src/salloc/salloc.c, src/srun/allocate.c), also
where a wrapper raises them as its own exception's text (submitit, NeMo's launcher): the
answer after them says why (slurm_errno.c)."""

SLURM_STEP_ANSWER = r"(?:^|: )srun: error: Unable to create step for job \S+: "
"""... and srun's inside a job, before the answer to the step it asked for
(src/srun/launch.c); a job id a reporter blanked ("job X") is still one."""

RAISE_PG_TIMEOUT = (
    "raise the timeout in code: init_process_group(timeout=timedelta(seconds=int(os.environ["
    "'LAUNCHX_PG_TIMEOUT_S']))) and the profile's timeouts.pg_timeout_s"
)
"""How a process group's timeout is raised: no environment variable sets it."""

PG_TIMEOUT_FIX = (
    "find the rank that was late or gone: it is the one that did NOT report the timeout, or "
    "the earliest rank that failed (rerun with TORCH_NCCL_DESYNC_DEBUG=1 or "
    "TORCH_DISTRIBUTED_DEBUG=DETAIL to name it). If the work is legitimately slow (a large "
    "evaluation all-reduce, a checkpoint written by rank 0 while others wait), "
    f"{RAISE_PG_TIMEOUT}. NCCL_TIMEOUT and TORCH_DISTRIBUTED_TIMEOUT are read by nothing."
)

# DeepEP's dispatch/combine kernels count clock cycles while they wait for their peers'
# tokens and give up (NUM_TIMEOUT_CYCLES, about 100 s), each wait in its own words ("DeepEP
# timeout for dispatch senders", "DeepEP timeout check failed", "DeepEP RDMA sender
# coordinator timeout", "DeepEP dispatch NVL receiver timeout"), then call trap(); not the
# "Warning: DeepEP timeout ..." of its low-latency kernels, which mask the peer and go on
# when fault tolerance is on.
DEEPEP_TIMEOUT = r"^DeepEP (?:[\w-]+ ){0,4}timeout\b"
# ... and the host's side of its normal kernels: the CPU polling for the dispatch's token
# counts gives up ("DeepEP error: timeout (dispatch CPU)"; "CPU recv timeout" in older
# releases), after it printed the counters still at -1
DEEPEP_CPU_TIMEOUT = r"\bDeepEP error: (?:CPU recv timeout|timeout \(\w+ CPU\))"

NOT_THE_DISK = (r"/dev/shm|\bshm\b|shared memory", r"Warning: ")
"""A full or failing /dev/shm, and NCCL's segments there, have rules of their own (LX538,
LX541, ...): not the storage rules' disk. Nor is a warning that quotes the errno and goes on
(joblib's "UserWarning: [Errno 28] No space left on device.  joblib will operate in serial
mode", a semaphore it could not create)."""

LOGGING_HANDLER_FRAME = r'logging[/\\](?:__init__|handlers)\.py", line \d+, in \w+$'
"""A frame of logging's own handlers: an exception raised there is a handler that could not
write, which logging prints under "--- Logging error ---" and goes on from; not the run's
end (LX511) nor its disk's (LX691, LX692)."""

NOT_THE_DISKS_FRAMES = (
    r'multiprocessing[/\\](?:synchronize|shared_memory|heap|queues)\.py", line \d+, in \w+$',
    LOGGING_HANDLER_FRAME,
)
"""An errno raised in multiprocessing's shared-memory code is /dev/shm's, not the disk's;
in a logging handler it is no failure of the run."""

WANDB_INIT_FAILED = (
    r"\bError communicating with wandb process\b"
    r"|\bRun initialization has timed out after \d+(?:\.\d+)? sec\b"
)
"""wandb.init() giving up at start-up (LX752): wandb 0.13-0.15 prints its traceback inside
init before raising it again, so a script that catches it still shows the exception line,
which the script's own exceptions (LX511) must not read."""

HIVEMIND_NO_GROUP = r"Averaging step failed: could not find a group"
"""hivemind's averager found no peers in its matchmaking window (LX690); it raises it as an
AllreduceException, which the optimizer catches and logs: not the script's exception."""

HTTP_RETRY_WARNING = r"Retrying \(Retry\(|thrown while requesting"
"""urllib3's and huggingface_hub's warnings that they retry a request: the exception inside
is quoted, not raised, and the request may still succeed."""

GOES_ON = r"(?i)\bwarn|\bfall(?:ing)? ?back\b|\bretry"
"""A line whose library says it falls back (another kernel, another device) or tries again:
the error it quotes has not stopped the run."""

WARNED_LINE = r"^WARNING: "
"""A line logged as a warning: its header said so (the matcher puts "WARNING: " back before
the message of such a line when it tries the exclusions), or the message starts with it."""

WENT_ON: tuple[str, ...] = (GOES_ON, r"(?i)\bignor|\bskip", r"^Exception ignored in\b")
"""A line that quotes an error its program went on after: a library falling back or trying
again, a loader skipping a sample, and Python's own report of an exception it swallowed (a
``__del__`` or a callback's)."""

NO_NCCL_CAUSE = (
    "this torch build has no NCCL (the Windows and macOS wheels, and CPU-only ones), yet the "
    "process group asked for the nccl backend; every start fails the same way."
)
NO_NCCL_FIX = (
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


WINDOWS_CRASHES = (
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
    composer's launcher, vLLM's executors, PyTorch-BigGraph's pool of workers, docker
    compose, Vertex AI's training jobs."""
    nums = "|".join(str(n) for n in signals)
    names = "|".join(_SIGNAL_NAMES[n] for n in signals)
    named = "|".join(f"{_SIGNAL_NAMES[n]}: ?{n}" for n in signals)
    shell = "|".join(str(128 + n) for n in signals)
    return (
        rf"process rank (?P<rank>\d+) with PID \S+ on node \S+ exited on signal (?:{nums})\b",
        rf"{DEEPSPEED_LONE_RANK_EXIT}-(?:{nums})\b",
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
        # docker compose of a service's container, with the shell's 128 + N ("trainer-1
        # exited with code 137"), and Vertex AI's (and AI Platform's) of a replica
        rf"^\S+ exited with code (?:{shell})$",
        rf"\bThe replica \S+ exited with a non-zero status of (?:{shell})\b",
        # an IDE's run console (PyCharm's and the other JetBrains IDEs'): "Process finished
        # with exit code 139 (interrupted by signal 11: SIGSEGV)"
        rf"^Process finished with exit code (?:{shell}) \(interrupted by signal (?:{nums}):",
    )


# The CUDA runtime's names of its statuses (cudaError_t), as libraries report them instead
# of the runtime's message, by the rule that reads each: a kernel's fault (LX512), the
# machine's configuration (LX540), P2P (LX573), a launch failure (LX631), a handle of another
# device (LX679). Names no rule reads (cudaErrorNotReady, a query's "not yet") stay unread.
CUDA_KERNEL_FAULTS = (
    "IllegalAddress|Assert|IllegalInstruction|MisalignedAddress|HardwareStackError|InvalidPc"
    "|ECCUncorrectable"
)
CUDA_CONFIG_STATUSES = (
    "NoKernelImageForDevice|InsufficientDriver|NoDevice|InvalidDevice|InvalidDeviceFunction"
    "|UnsupportedPtxVersion|SystemNotReady|DevicesUnavailable|NotSupported|StubLibrary"
    "|CompatNotSupportedOnDevice|SystemDriverMismatch|JitCompilerNotFound|InvalidKernelImage"
    "|CallRequiresNewerDriver"
)
_CUDA_NAMES_READ = "|".join(
    (
        CUDA_KERNEL_FAULTS,
        CUDA_CONFIG_STATUSES,
        "PeerAccessUnsupported",
        "LaunchFailure",
        "InvalidResourceHandle",
    )
)

# the lines LX684 reads: TORCH_INTERNAL_ASSERT's text (c10/util/Exception.h; torch 1.6 and
# older left the file unquoted) on an exception line, or in the RPC thread pool's report of
# one ("[E thread_pool.cpp:N] Exception in thread pool task: ..."); LX511 leaves exactly
# these to it, since their cause is torch's check, not the script's exception
# (up to the file it names: a terminal that breaks lines at its width may cut the path, and
# the words after it are c10's own, TORCH_INTERNAL_ASSERT's, in every release)
INTERNAL_ASSERT_LINE = (
    rf"(?:{EXCEPTION_LINE}: |Exception in thread pool task: ).*INTERNAL ASSERT FAILED at \S"
)

# NCCL's INFO line naming the interface it bootstraps (or opens sockets) on; NCCL 2.2x
# writes "Bootstrap: Using", older releases "Bootstrap : Using [0]"
NCCL_INTERFACE = r"NCCL INFO (?:Bootstrap|NET/Socket) ?: Using \[?\d*\]?"

C10D_COLLECTIVE_FRAME = (
    r'distributed_c10d\.py", line \d+, in (?:_?(?:all_gather|reduce_scatter)\w*|all_reduce\w*'
    r"|broadcast|reduce|all_to_all\w*|barrier|send|recv|isend|irecv|gather|scatter"
    r"|_coalescing_manager)$"
)
"""torch.distributed's own frame of a collective call (the one that raised a backend's error),
not of its set-up (init_process_group, new_group)."""

LOGGED_FAILURE = r"(?i)(?:\berror\b|exception|\bfail(?:ed|ure)\b).*?: "
"""A logger's or an error handler's words for a failure, before the message it reports."""

NOT_THE_SCRIPTS: tuple[str, ...] = (
    # (not DDP's reducer, whose errors older torch suffixes with its c10d source path, and
    # whose internal asserts name it: its name alone, since a terminal's wrap may cut the
    # ".cpp")
    # (HCCL: Ascend's NCCL, whose errors torch_npu raises as RuntimeErrors too)
    # (nor init_process_group's "Unknown c10d backend type", a backend the script names
    # that nothing registered)
    # (but an argument check's exception that names them is the caller's misuse of the API:
    # torch raises its communication failures as RuntimeError or its Dist* subclasses, and
    # its checks of a caller's arguments as these three, e.g. "monitored_barrier is only
    # implemented for GLOO backend"; the few of these that are a configuration's, such as
    # "ProcessGroupNCCL is only supported with GPUs", have rules of a higher priority)
    r"(?i)^(?!(?:[\w.]+\.)?(?:ValueError|TypeError|NotImplementedError) *: ).*?"
    r"(?:nccl|hccl|gloo|c10d(?!\.\w+\.default|/reducer\b| backend type)|ProcessGroup"
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
    r"|DeadlockDetectedException"
    # ... and its exception for a SIGTERM its signal connector received: a scheduler's, a
    # person's or a launcher's stopping the ranks after another rank failed, never the
    # script's own error
    r"|SIGTERMException",
    # Ray's word that a worker process or its node died, and Ray Train's that the run
    # failed: the cause is a worker's or the node's (LX576), not the driver's
    r"ActorDiedError|RayActorError|WorkerCrashedError|TrainingFailedError|NodeDiedError"
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
