"""The failure knowledge base: what a failed run's log says, what it means, what to do.

Kept as data (reviewed like code, one fixture test per rule) so that adding a failure
signature never means touching the matching logic in ``launchx.failures``.

Priorities decide which finding is the *cause* when a log shows several: one rank's
``KeyError`` makes every other rank report a gloo "Connection closed by peer" or an NCCL
watchdog timeout, so those transport and timeout symptoms rank low. Three tiers follow
from the number (see ``tier``): >= 100 the run was stopped from outside (preemption, a
user's Ctrl-C, a refused nested launch); 50-99 a root cause; below 50 symptoms that are
usually collateral damage of a failure elsewhere and are reported as the cause only when
nothing better is in the log.

The cause and fix texts were checked against ``reference/env-vars.md``: no collective
timeout is settable by environment (``NCCL_TIMEOUT``/``TORCH_DISTRIBUTED_TIMEOUT`` are read
by nothing); ``NCCL_SOCKET_IFNAME`` is a prefix match unless written ``=name``;
``NCCL_IB_TIMEOUT`` 20 x 7 retries is about 30 s; ``NCCL_ALGO`` tokens are comma-separated.
"""

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
    "unknown",
)


def unknown_categories(names: Sequence[str]) -> tuple[str, ...]:
    """Names in a retry policy that are not categories. Lives with the data, not in
    ``failures``, so profile validation does not compile the log patterns."""
    return tuple(n for n in names if n not in CATEGORIES)


RETRYABLE_BY_DEFAULT: frozenset[str] = frozenset(
    {
        "nccl_watchdog_timeout",
        "collective_timeout",
        "nccl_system_error",
        "ib_error",
        "socket_error",
        "port_in_use",
        "rendezvous_timeout",
        "preempted",
    }
)
"""Transient by nature: the same command can succeed on the next attempt. Everything else
is not retried unless a profile's ``retry.on`` names it. ``gloo_error`` is not retryable as
a category, but its connection-lost rule is (a peer vanished: transient unless another
rank shows why); ``interrupted`` is never retried, whatever the policy says."""

NEVER_RETRIED: frozenset[str] = frozenset({"interrupted"})
"""A user's Ctrl-C or kill is an instruction, not a failure (house rule 6)."""


@dataclass(frozen=True)
class Rule:
    """One failure signature. ``patterns`` are regular expressions searched in each log
    line (after rank prefixes and log headers are stripped); a line matching any of
    ``exclude`` is skipped. ``retryable`` overrides the category default when not None.
    ``scope="root_failure"`` limits matching to torchrun's root-cause summary, so exit codes
    of ranks torchrun itself terminated are not mistaken for the cause. ``min_hits`` asks for
    the same line to appear that many times (a duplicated rank announcement)."""

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


def tier(priority: int) -> int:
    """2: stopped from outside; 1: a root cause; 0: usually a symptom of another failure."""
    if priority >= 100:
        return 2
    return 1 if priority >= 50 else 0


_PG_TIMEOUT_FIX = (
    "find the rank that was late or gone: it is the one that did NOT report the timeout, or "
    "the earliest rank that failed (rerun with TORCH_NCCL_DESYNC_DEBUG=1 or "
    "TORCH_DISTRIBUTED_DEBUG=DETAIL to name it). If the work is legitimately slow (a large "
    "evaluation all-reduce, a checkpoint written by rank 0 while others wait), raise the "
    "timeout in code: init_process_group(timeout=timedelta(seconds=int(os.environ["
    "'LAUNCHX_PG_TIMEOUT_S']))) and the profile's timeouts.pg_timeout_s. NCCL_TIMEOUT and "
    "TORCH_DISTRIBUTED_TIMEOUT are read by nothing."
)

RULES: tuple[Rule, ...] = (
    Rule(
        name="slurm_preemption",
        category="preempted",
        code="LX501",
        priority=120,
        patterns=(
            r"CANCELLED AT \S+ DUE TO PREEMPTION",
            r"CANCELLED AT \S+ DUE TO TIME LIMIT",
            r"DUE TO NODE FAILURE",
        ),
        cause="the scheduler took the allocation away (preemption, time limit or a failed "
        "node); the training itself did not fail.",
        fix="let launchx retry or SLURM requeue (--requeue); make sure checkpoints are frequent "
        "and the script resumes from LAUNCHX_RESUME_FROM. For time limits, ask for more "
        "--time or checkpoint on the warning signal (profile slurm.signal, e.g. USR2@120).",
    ),
    Rule(
        name="interrupt",
        category="interrupted",
        code="LX502",
        priority=110,
        patterns=(
            r"SignalException: Process \d+ got signal: (1|2|15)\b",
            r"Received (1|2|15) death signal, shutting down workers",
            r"^KeyboardInterrupt\s*$",
            r"^slurmstepd: error: \*\*\* (JOB|STEP) \S+ ON \S+ CANCELLED AT \S+ \*\*\*\s*$",
        ),
        cause="the run was stopped from outside: Ctrl-C (SIGINT), SIGTERM/scancel from a person "
        "or a script, or SIGHUP when the terminal that started it closed.",
        fix="start the run again when you want it (it resumes from the last complete "
        "checkpoint); for SIGHUP run it under tmux/screen, nohup or sbatch so that closing the "
        "terminal does not stop it. launchx never retries an interrupt.",
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
    ),
    Rule(
        name="port_in_use",
        category="port_in_use",
        code="LX505",
        priority=95,
        patterns=(
            r"EADDRINUSE",
            r"errno: 98 - Address already in use",
            r"\[Errno 98\] Address already in use",
            r"RuntimeError: Address already in use",
        ),
        cause="MASTER_PORT (or the rendezvous port) is already held by another process: usually "
        "another torchrun/job on the same node using the default 29500, or a previous run "
        "that has not exited yet.",
        fix="pick another port (--master-port, or master_port: auto in the profile), use "
        "torchrun --standalone for single-node runs, and look for the holder with "
        "`ss -ltnp | grep <port>`.",
    ),
    Rule(
        name="duplicate_gpu",
        category="duplicate_gpu",
        code="LX506",
        priority=92,
        patterns=(r"Duplicate GPU detected : rank \d+ and rank \d+ both on CUDA device",),
        cause="two ranks use the same GPU: the script never selected its own device, or "
        "CUDA_VISIBLE_DEVICES gives every process the same single GPU.",
        fix="call torch.cuda.set_device(int(os.environ['LOCAL_RANK'])) before "
        "init_process_group and use that device, do not hard-code cuda:0, and do not "
        "restrict CUDA_VISIBLE_DEVICES to one GPU for a multi-process node.",
    ),
    Rule(
        name="nccl_version_mismatch",
        category="nccl_version_mismatch",
        code="LX507",
        priority=91,
        patterns=(r"Mismatched NCCL version detected",),
        cause="ranks loaded different NCCL versions (different torch wheels or a system "
        "libnccl on LD_LIBRARY_PATH on some nodes).",
        fix="install the same torch build on every node and compare "
        "python -c 'import torch; print(torch.cuda.nccl.version())' across nodes; remove "
        "stray libnccl paths from LD_LIBRARY_PATH.",
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
            r"unable to write to file </torch_\d+",
        ),
        cause="shared memory (/dev/shm) is too small or full; containers get 64 MB by default, "
        "less than NCCL and DataLoader workers need.",
        fix="run the container with --ipc=host or --shm-size=16g (Kubernetes: an emptyDir "
        "volume with medium: Memory on /dev/shm); remove stale /dev/shm/nccl-* files; "
        "NCCL_SHM_DISABLE=1 works but is slower.",
    ),
    Rule(
        name="cuda_oom",
        category="cuda_oom",
        code="LX509",
        priority=85,
        patterns=(
            r"CUDA out of memory",
            r"OutOfMemoryError: CUDA",
            r"CUBLAS_STATUS_ALLOC_FAILED",
            r"NCCL WARN Cuda failure 'out of memory'",
        ),
        cause="a GPU ran out of memory; the same attempt would fail the same way.",
        fix="lower the per-GPU batch size or sequence length, enable activation checkpointing "
        "or sharding (FSDP/ZeRO), and set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
        "when 'reserved but unallocated' is large; check that no other process holds the "
        "GPU (nvidia-smi).",
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
            r"task \d+: Out Of Memory",
            r"DataLoader worker \(pid \d+\) is killed by signal: Killed",
        ),
        cause="the kernel's OOM killer (or the job's cgroup limit) killed a process: host RAM, "
        "not GPU memory, ran out.",
        fix="lower DataLoader num_workers/prefetch_factor, stop loading the whole dataset or "
        "checkpoint on every rank (torch.load(..., mmap=True)), ask SLURM for more --mem; "
        "confirm with `dmesg -T | grep -i 'killed process'` or `sacct -j <job> -o "
        "JobID,State,MaxRSS`.",
    ),
    Rule(
        name="script_rejected_arguments",
        category="user_code_error",
        code="LX527",
        priority=85,
        patterns=(r"^\S+: error: (unrecognized arguments|the following arguments are required)",),
        cause="the script's argument parser rejected its command line and exited with code 2 "
        "before training; with '--local-rank=N' / '--local_rank=N' it is the old launcher "
        "(python -m torch.distributed.launch) passing an argument the script does not declare "
        "(torch 2.x spells it --local-rank).",
        fix="check the arguments after the script name; for --local-rank: torchrun (and "
        "launchx) pass nothing, the script reads os.environ['LOCAL_RANK']; a script that must "
        "also run under the old launcher declares both spellings: "
        "parser.add_argument('--local-rank', '--local_rank', type=int, default=0).",
    ),
    Rule(
        name="user_exception",
        category="user_code_error",
        code="LX511",
        priority=80,
        patterns=(r"^(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)(?::|$)",),
        exclude=(
            r"(?i)nccl|gloo|c10d|ProcessGroup",
            r"CUDA error|CUDA out of memory|OutOfMemoryError|CUBLAS_|CUDNN_STATUS"
            r"|illegal memory access|device-side assert",
            r"(?i)out of memory|timed? ?out|timeout",
            r"(?i)connection|socket|broken ?pipe|address already in use|errno: 98",
            r"(?i)rendezvous|ChildFailedError|SignalException|DistBackendError|DistNetworkError"
            r"|DistStoreError|DistError|KeyboardInterrupt|SystemExit|CalledProcessError",
            r"(?i)killed by signal|shared memory|/dev/shm",
        ),
        cause="the training script raised an exception on this rank; the other ranks' errors "
        "(connection closed, timeouts) are the consequence.",
        fix="fix the script at the traceback shown for this rank; retrying would run the same "
        "code into the same error.",
    ),
    Rule(
        name="cuda_error",
        category="cuda_error",
        code="LX512",
        priority=78,
        patterns=(
            r"CUDA error: ",
            r"device-side assert triggered",
            r"an illegal memory access was encountered",
            r"uncorrectable ECC error",
            r"NCCL WARN Cuda failure",
        ),
        exclude=(r"out of memory",),
        cause="a CUDA kernel failed (illegal memory access, device-side assert, ECC error); "
        "CUDA reports it asynchronously, often at a later call or in the NCCL watchdog.",
        fix="rerun with CUDA_LAUNCH_BLOCKING=1 to get the failing line, check indices and "
        "labels against tensor sizes (device-side asserts), and look for Xid messages in "
        "`dmesg` (hardware: drain the node).",
    ),
    Rule(
        name="segfault",
        category="segfault",
        code="LX513",
        priority=76,
        patterns=(
            r"Segmentation fault",
            r"Fatal Python error: Segmentation",
            r"received signal SIGSEGV",
        ),
        cause="a native crash (SIGSEGV) in C/C++/CUDA code, not a Python exception.",
        fix="get the native stack: PYTHONFAULTHANDLER=1 (or `import faulthandler; "
        "faulthandler.enable()`), allow core dumps (ulimit -c unlimited). Common causes: "
        "an extension built against another torch/CUDA, mixed NCCL/CUDA libraries on "
        "LD_LIBRARY_PATH, init_process_group before torch.cuda.set_device.",
    ),
    Rule(
        name="torchrun_root_sigsegv",
        category="segfault",
        code="LX514",
        priority=62,
        scope="root_failure",
        patterns=(r"exitcode\s*:\s*-11\b", r"Signal 11 \(SIGSEGV\)", r"failed \(exitcode: -11\)"),
        cause="the first rank to fail died of SIGSEGV (a native crash) and left no Python "
        "traceback.",
        fix="get the native stack: PYTHONFAULTHANDLER=1 and core dumps (ulimit -c unlimited); "
        "check extensions and CUDA/NCCL libraries match the installed torch.",
    ),
    Rule(
        name="torchrun_root_sigkill",
        category="host_oom_killed",
        code="LX515",
        priority=62,
        scope="root_failure",
        patterns=(r"exitcode\s*:\s*-9\b", r"Signal 9 \(SIGKILL\)", r"failed \(exitcode: -9\)"),
        cause="the first rank to fail was SIGKILLed, and torchrun itself only sends SIGTERM "
        "first: on a training node that is almost always the kernel OOM killer (host RAM). "
        "Repeating at the same step each time confirms it.",
        fix="confirm with `dmesg -T | grep -i 'killed process'` or `sacct -j <job> -o "
        "JobID,State,MaxRSS`; then lower DataLoader num_workers, avoid loading the full "
        "dataset/checkpoint per rank (torch.load(mmap=True)), or ask for more --mem.",
    ),
    Rule(
        name="nccl_invalid_usage",
        category="nccl_invalid_usage",
        code="LX516",
        priority=70,
        patterns=(r"ncclInvalidUsage", r"\binvalid usage\b.*NCCL version", r"NCCL Error 5\b"),
        cause="NCCL rejected how it was called or configured: an invalid NCCL_ALGO/NCCL_PROTO "
        "value (NCCL >= 2.24 fails at init on an unknown token), tensors on the wrong "
        "device, or mismatched collective arguments across ranks.",
        fix="read the 'Last error:' line below the message (or rerun with NCCL_DEBUG=WARN); "
        "unset NCCL_ALGO/NCCL_PROTO or write them as comma lists of valid names "
        "(Ring,Tree), and make every rank call the same collective with same-shaped tensors.",
    ),
    Rule(
        name="nccl_internal_error",
        category="nccl_internal_error",
        code="LX517",
        priority=65,
        patterns=(r"ncclInternalError", r"\binternal error\b.*NCCL version", r"NCCL Error 3\b"),
        cause="NCCL hit an internal check; in practice often a peer that vanished during "
        "setup ('Socket recv failed') or ranks configured differently.",
        fix="check the other ranks' logs for the first failure, make sure every node runs the "
        "same torch/NCCL and the same NCCL_* environment, and rerun with NCCL_DEBUG=INFO "
        "NCCL_DEBUG_SUBSYS=INIT,NET to see the failing call.",
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
        ),
        cause="an InfiniBand/RoCE transfer failed (status 12 = transport retries exhausted: the "
        "two NICs cannot reach each other, or the fabric is congested or flapping).",
        fix="check the links (ibstat, ibv_devinfo, ib_write_bw between the two hosts); select "
        "only connected HCAs with NCCL_IB_HCA (prefix match; '=mlx5_0' for exact); on RoCE "
        "with NCCL < 2.21 set NCCL_IB_GID_INDEX (often 3); on rail-optimized fabrics "
        "NCCL_CROSS_NIC=0; for congestion raise NCCL_IB_TIMEOUT to 22-23 (default 20, "
        "about 30 s with 7 retries), not 30.",
    ),
    Rule(
        name="nccl_system_error",
        category="nccl_system_error",
        code="LX519",
        priority=55,
        patterns=(r"unhandled system error", r"ncclSystemError", r"NCCL Error 2\b"),
        cause="a system call inside NCCL failed (socket, shared memory, memory registration); "
        "the real reason is in the NCCL WARN line, which only NCCL_DEBUG=INFO prints.",
        fix="rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET; typical fixes: the right "
        "interface in NCCL_SOCKET_IFNAME (prefix match; '=eth0' for exact), --ipc=host or a "
        "bigger --shm-size in containers, IB ports up (ibstat).",
    ),
    Rule(
        name="nccl_remote_socket",
        category="socket_error",
        code="LX520",
        priority=50,
        patterns=(
            r"ncclRemoteError",
            r"remote process exited or there was a network error",
            r"NCCL WARN (?:NET/Socket|socketProgress|Net : Connection closed|Socket recv failed)",
            r"socketProgress\w*: (?:Connection closed by remote peer|Call to \w+ .*failed)",
            r"NCCL WARN .*Connection (?:reset|refused|closed)",
            r"(?:ConnectionResetError|ConnectionRefusedError|BrokenPipeError)\b",
        ),
        cause="a network connection to another rank was closed, reset or refused: usually that "
        "rank's process died first (look for its own error), else the interface or a "
        "firewall is wrong.",
        fix="look at the other ranks for the first failure; if there is none, check that the "
        "hosts reach each other on the interface NCCL picked (NCCL_SOCKET_IFNAME=<iface>, "
        "prefix match; '=eth0' for exact) and that no firewall drops the ports.",
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
            r"Timed out initializing process group in store based barrier",
            r"DistStoreError: .*(?:[Tt]imeout|[Tt]imed out)",
            r"waiting for clients\. \d+/\d+ clients joined",
            r"Socket Timeout",
        ),
        cause="not every node/rank joined the rendezvous (or reached MASTER_ADDR:MASTER_PORT) "
        "before the timeout: a node started late or not at all, or cannot reach the "
        "master's address/port.",
        fix="start every node with the same --nnodes, --rdzv-id and --rdzv-endpoint; check that "
        "the master address resolves to the interface the others can reach and the port is "
        "open (nc -zv <addr> <port>); raise the wait with --rdzv-conf join_timeout=<s> "
        "(profile timeouts.rdzv_timeout_s) when nodes start slowly.",
    ),
    Rule(
        name="gloo_connection_lost",
        category="gloo_error",
        code="LX522",
        priority=40,
        retryable=True,
        patterns=(
            r"gloo/transport/tcp/\w+\.cc:\d+\] (?:Connection closed by peer|Read error|"
            r"Write error|writev|Connection reset by peer)",
            r"\[gloo\].*Connection (?:closed|reset)",
        ),
        cause="a gloo connection to another rank was closed or reset: that rank exited or "
        "crashed first.",
        fix="read the other ranks' output for the first error (it is the cause); if none shows "
        "one, a host or its network went away and a retry is reasonable.",
    ),
    Rule(
        name="gloo_setup",
        category="gloo_error",
        code="LX523",
        priority=40,
        patterns=(r"Gloo connectFullMesh failed", r"gloo/transport/tcp/\w+\.cc:\d+\]"),
        exclude=(r"Timed out", r"Connection (?:closed|reset)", r"Read error|Write error|writev"),
        cause="gloo could not connect the ranks: usually the wrong network interface was chosen "
        "(a docker/virtual bridge or one without a route to the other hosts).",
        fix="set GLOO_SOCKET_IFNAME=<iface> (and NCCL_SOCKET_IFNAME) to the interface the hosts "
        "share, and check that they resolve each other's hostnames to reachable addresses.",
    ),
    Rule(
        name="gloo_timeout",
        category="collective_timeout",
        code="LX524",
        priority=35,
        patterns=(
            r"Timed out waiting \d+ms for (?:recv|send) operation",
            r"gloo/transport/tcp/\w+\.cc:\d+\] Timed out",
            r"Timed out waiting for \w+ operation to complete",
        ),
        cause="a collective on the gloo (or another non-NCCL) backend did not finish within the "
        "process-group timeout (30 min by default): a peer was stuck or gone.",
        fix=_PG_TIMEOUT_FIX,
    ),
    Rule(
        name="nccl_watchdog_timeout",
        category="nccl_watchdog_timeout",
        code="LX525",
        priority=30,
        patterns=(
            r"Watchdog caught collective operation timeout",
            r"NCCL timeout",
            r"Some NCCL operations have failed or timed out",
        ),
        cause="an NCCL collective did not finish within the process-group timeout (10 min by "
        "default since torch 2.2, 30 min before) and the watchdog aborted the process: "
        "one rank was slow, stuck or dead, or ranks issued different collectives.",
        fix=_PG_TIMEOUT_FIX,
    ),
    Rule(
        name="deprecated_env",
        category="deprecated_env",
        code="LX526",
        priority=5,
        patterns=(r"Environment variable (NCCL_\w+) is deprecated; use (TORCH_NCCL_\w+)",),
        cause="an old PyTorch NCCL variable name is set (renamed to TORCH_NCCL_* in torch 2.2); "
        "it still works but warns on every rank. It is a warning, not a failure.",
        fix="rename it (e.g. NCCL_ASYNC_ERROR_HANDLING -> TORCH_NCCL_ASYNC_ERROR_HANDLING) in "
        "the profile, the job script or the framework that sets it.",
    ),
)

ANCHORS: tuple[str, ...] = (
    "rror",
    "xception",
    "traceback",
    'file "',
    "nccl",
    "kill",
    "sig",
    "xit",
    "cancel",
    "meout",
    "med out",
    "fault",
    "fail",
    "atchdog",
    "nterrupt",
    "global_rank",
    "preempt",
    "of memory",
    "out_of_memory",
    "terminat",
    "bort",
)
"""Lower-case fragments of which every line a rule can match holds at least one. A long log
is searched for these with ``bytes.find`` (fast) and only their lines are matched against
the rules (slow), so a rule whose lines hold none of them is never seen in a log: the test
``test_anchored_scan_equals_full_scan`` catches that; add an anchor then (each one costs
about 40 ms per 100 MB)."""

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
            "sigbus",
            "shm_error",
            "LX534",
            "a rank died of SIGBUS: in training almost always shared memory (/dev/shm) "
            "running out under DataLoader workers or NCCL's shm transport (containers get "
            "64 MB), else a memory-mapped file that shrank while in use.",
            "run the container with --ipc=host or --shm-size=16g (Kubernetes: an emptyDir "
            "with medium: Memory on /dev/shm), check `df -h /dev/shm`; do not modify files "
            "that are memory-mapped (datasets, checkpoints) while training reads them.",
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
