"""A process that ended on a signal or was killed, or a launcher that failed: the host's OOM
killer, a SIGKILL from outside, a native crash, a bus error on shared memory, a DataLoader
worker's death; a launcher that died itself or never started the ranks (its own argument
errors, an executable or host it could not reach, its configuration)."""

from __future__ import annotations

from launchx.failure_rules.model import Case, Rule
from launchx.failure_rules.patterns import (
    EXCEPTION_LINE,
    PALS_RANK_DIED,
    SLURM_REQUEST_ANSWER,
    SLURM_STEP_ANSWER,
    SRUN_TERMINATES_STEP,
    WINDOWS_CRASHES,
    launcher_signal_reports,
    torchrun_signal_reports,
)

# slurm_errno.c's words for a request that got no answer (LX815)
NO_ANSWER = (
    r"Unable to contact slurm controller|Socket timed out on send/recv operation|Rate limit "
    r"exceeded|Slurm backup controller in standby mode|Controller is in standby mode"
    r"|Communication connection failure|Zero Bytes were transmitted or received|Resource "
    r"temporarily unavailable"
)

# the commands that start ranks, as a shell names one it could not find (LX589)
_LAUNCHER_COMMAND = (
    r"(?:torchrun|deepspeed|accelerate|horovodrun|composer|mpirun|mpiexec|srun|sbatch|launchx)"
)

RULES: tuple[Rule, ...] = (
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
        name="kernel_oom",
        category="host_oom_killed",
        code="LX510",
        priority=84,
        patterns=(
            r"oom[-_]kill",
            r"Out of memory: Killed process",
            # kernels before 5.0: "Out of memory: Kill process 89746 (python) score 1031 or
            # sacrifice child", then "Killed process 89879 (python) total-vm:..."
            r"Out of memory: Kill process \d+ \(.*\) score \d+ or sacrifice child",
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
            # user-space OOM killers, before the kernel's: systemd-oomd (oomd.c, a cgroup's
            # swap or memory pressure) and earlyoom (kill.c, SIGTERM then SIGKILL)
            r"\b(?:Killed|Marked) \S+ (?:for killing )?due to memory (?:used \(|pressure for )",
            r'\bsending SIG(?:TERM|KILL) to process \d+ uid \d+ "[^"]*": (?:badness|oom_score) ',
            # Ray's memory monitor kills workers before the kernel would
            r"killed due to memory pressure \(OOM\)",
            r"Task was killed due to the node running low on memory",
            r"exceeds the memory usage threshold of [\d.]+\. Ray killed this worker",
            r"docs\.ray\.io/\S*/ray-oom-prevention",
        ),
        cause="the kernel's OOM killer (or a memory limit around the job: a cgroup, the "
        "scheduler, Kubernetes, Ray's memory monitor) killed a process, or the host refused "
        "an allocation outright: host RAM, not GPU memory, ran out.",
        fix="lower DataLoader num_workers/prefetch_factor and stop loading the whole dataset "
        "or checkpoint on every rank (torch.load(..., mmap=True)), or give the job more "
        "memory; confirm with `dmesg -T | grep -i 'killed process'`.",
        # who ran out or refused, each with its own place to confirm it and ask for more
        cases=(
            Case(
                when=(r"WinError 1455",),
                cause="Windows refused to commit more memory: the paging file is too small "
                "for every rank's and DataLoader worker's reserved memory (WinError 1455), "
                "host RAM and not GPU memory.",
                fix="enlarge the paging file (System > Advanced > Performance > Virtual "
                "memory) or start fewer ranks and DataLoader workers (num_workers=0 first).",
            ),
            Case(
                when=(
                    r"DefaultCPUAllocator|unable to mmap|Cannot allocate memory",
                    r"^(?:numpy\.core\._exceptions\.)?_?(?:Array)?MemoryError\b",
                ),
                cause="the host refused an allocation or a file mapping outright (ENOMEM): "
                "RAM and swap are used up, or a limit below them (strict overcommit, an "
                "address-space ulimit, too many mappings); host memory, not GPU memory.",
                fix="lower what each rank holds in host memory (DataLoader num_workers and "
                "prefetch_factor, a dataset loaded whole, torch.load(..., mmap=True) for "
                "checkpoints); check `free -g`, `ulimit -v`, `sysctl vm.overcommit_memory "
                "vm.max_map_count` and CommitLimit against Committed_AS in /proc/meminfo.",
            ),
            Case(
                when=(r"TERM_(?:MEMLIMIT|SWAP)|PBS: job killed",),
                cause="the scheduler's memory limit for the job (LSF's or PBS's) was reached "
                "and its processes were killed: host RAM, not GPU memory.",
                fix="`bhist -l <job>` (LSF) or `qstat -fx <job>` (PBS) shows what it used; ask "
                "for more (bsub -M, #PBS -l mem=) or lower what each rank holds (DataLoader "
                "num_workers, torch.load(..., mmap=True)).",
            ),
            Case(
                when=(
                    r"\bOUT_OF_MEMORY\b|StepId=|slurmstepd|exceeded (?:job )?memory limit",
                    r"tasks? [\d,-]+: Out Of Memory",
                ),
                cause="SLURM's memory limit for the job (its cgroup) was reached and the "
                "step's processes were killed: host RAM, not GPU memory.",
                fix="`sacct -j <job> -o JobID,State,MaxRSS,ReqMem` shows what it used; ask for "
                "more (--mem or --mem-per-gpu) or lower what each rank holds (DataLoader "
                "num_workers, torch.load(..., mmap=True)).",
            ),
            Case(
                when=(r"OOMKilled|low on resource: memory",),
                cause="Kubernetes killed the container for its memory (OOMKilled: its limit; "
                "evicted: the node ran low): host RAM, not GPU memory.",
                fix="`kubectl describe pod <pod>` shows the reason and limit; raise the "
                "container's memory request and limit (and /dev/shm, an emptyDir of medium "
                "Memory, counts against it), or lower DataLoader num_workers.",
            ),
            Case(
                when=(
                    r"Ray killed this worker|ray-oom-prevention|node running low on memory",
                    r"killed due to memory pressure \(OOM\)",
                ),
                cause="Ray's memory monitor killed a worker because the node's memory use "
                "crossed its threshold: host RAM, not GPU memory.",
                fix="give each task or actor more memory (memory=..., fewer per node), lower "
                "what the workers hold, or raise RAY_memory_usage_threshold (0.95 by default); "
                "`ray logs raylet.out` names what it killed.",
            ),
            Case(
                when=(r"due to memory (?:used|pressure for)|: (?:badness|oom_score) ",),
                cause="a user-space OOM killer (systemd-oomd, earlyoom) stopped a process "
                "before the kernel's would: the host's memory (or its swap) was nearly used "
                "up, host RAM and not GPU memory.",
                fix="lower what each rank holds in host memory (DataLoader num_workers, "
                "torch.load(..., mmap=True)); `journalctl -u systemd-oomd` (or earlyoom's log) "
                "names what it killed and why.",
            ),
        ),
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
            # torch 2.x reserving the file's room first (posix_fallocate in MapAllocator),
            # where older releases failed at the write
            r"unable to allocate shared memory\(shm\) for file </torch_",
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
            # MPICH's and Intel MPI's Hydra: its proxy's exec of the program failed
            # (MPICH's utils/launch/launch.c, Intel MPI 2019's i_hydra hydra_spawn.c; the
            # proxy's tag may be glued to another proxy's line)
            r"HYD(?:U_create_process|_spawn) \([^)]*\): execvp error on file .* \((?:No such "
            r"file or directory|Permission denied)\)",
        ),
        # Hydra failing to start its own proxy: a broken MPI install, not the program
        exclude=(r"execvp error on file \S*pmi_proxy\b",),
        cause="mpirun (Open MPI's, or MPICH's and Intel MPI's Hydra) started no process: the "
        "program it was given is not on the node's "
        "PATH (or not there at all), is there but not executable (a script without execute "
        "permission or a #! line, given as the program instead of to python), or it took a "
        "word of the command line for the program (an option this version does not take, a "
        "misspelled flag, an option missing its value: its help text says it reads the "
        "first word it does not know as the program); the same command fails the same way.",
        fix="check the command line against mpirun --help of this MPI: options before "
        "the program, each with its value (-x VAR, -np N), the program by absolute path or "
        "as `python train.py` (not ./train.py); a wrapper that writes the command line "
        "(torchpack, horovodrun) must match this MPI; or start the ranks with `launchx run`, "
        "which needs no MPI.",
        fixtures=(
            "launcher_died__horovod_347.log",
            "launcher_died__dd3d_6_mpirun_cannot_execute_script.log",
            "launcher_died__hydra_local_execvp_script_not_executable.log",
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
        name="mpirun_binding_refused",
        category="launcher_died",
        code="LX819",
        priority=82,
        retryable=False,
        patterns=(
            # Open MPI's rmaps help text (4.x, and PRRTE's before 3.0.6), whose next lines name
            # the object it binds to, the node and the counts of processes and cpus
            r"^A request was made to bind to that would result in binding more",
            # ... and PRRTE's since 3.0.6 (Open MPI 5.0.6 on), under its [allocation-overload]
            r"^A request was made to bind that would require binding",
        ),
        cause="mpirun refused to start the job: binding each rank to its own core (--bind-to "
        "core, Open MPI's default for two ranks or fewer, or a map with PE=N cores per rank) asks "
        "for more cores than the node or the allocation gives it: more ranks than cores "
        "with --oversubscribe, cores counted without their hardware threads, or a Slurm job "
        "that gave mpirun's batch step fewer cpus than the ranks need; the same command fails "
        "the same way.",
        fix="bind to fewer cores or to none: --bind-to none (the ranks' threads and the "
        "DataLoader's workers then share the node), --bind-to core:overload-allowed to allow "
        "it, --use-hwthread-cpus to count hardware "
        "threads, fewer ranks or a smaller PE=N; under Slurm ask for the cpus too "
        "(--cpus-per-task) or start the ranks with srun; or start them with `launchx run`, "
        "which binds nothing.",
        fixtures=("launcher_died__openmpi_local_bind_to_core_more_ranks_than_cores.log",),
    ),
    Rule(
        name="mpirun_daemon_lost",
        category="launcher_died",
        code="LX820",
        # a root cause's tier, under what a rank's own failure says (a script's exception, a
        # CUDA fault: a node whose rank crashed is not a lost node) and under LX716 and
        # LX586 (mpirun could not start a daemon at all; ssh refused it), which say more
        priority=60,
        retryable=False,
        # a node lost during training is retried from the checkpoint it got to
        on_progress=True,
        patterns=(
            # Open MPI's help texts (ORTE in 1.10-4.x, PRRTE in 5.x, which writes "An PRTE"):
            # a daemon it started that never called back, and one whose connection dropped
            # later, killing the job
            r"^An? (?:ORTE|PRTE) daemon has unexpectedly failed after launch and before",
            r"^(?:ORTE|PRTE) has lost communication with a remote daemon\.",
            r"^ORTE has lost communication with its daemon located on node",
            # ... and its message to a daemon it has no route to, after either
            r"^(?:ORTE|PRTE) does not know how to route a message to the specified daemon",
        ),
        cause="mpirun lost one of the daemons (orted, prted) it runs on every other node, and "
        "with it every rank of that node, so it ended the job: the daemon never called back "
        "(it cannot reach mpirun's address: no common network interface, a firewall, a "
        "container's private network), its node went down or rebooted, the daemon was killed "
        "(the OOM killer, a node health check), or the network between the nodes dropped. "
        "From the log alone a node that failed once cannot be told from a network that "
        "never works, so launchx retries it only from a checkpoint the attempt wrote.",
        fix="when it happens at start, name the network the nodes share for mpirun's own "
        "traffic (--mca oob_tcp_if_include <iface> and --mca btl_tcp_if_include <iface>, the "
        "same interface as NCCL_SOCKET_IFNAME), open the ports between the nodes, and for "
        '"does not know how to route" try --mca routed direct; when it '
        "happens during training, look at the named remote node (dmesg for the OOM killer, "
        "the scheduler's node state), and resume from the last checkpoint once the node is "
        "back or excluded.",
        fixtures=("launcher_died__openmpi_local_remote_orted_killed_while_training.log",),
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
            # (TensorFlow's and torch_xla's glog handler puts a link after the address: "***
            # SIGSEGV (@0x7f97c0e8e528), see gl__________25#s15 received by PID ...")
            r"\*\*\* SIG(?:SEGV|FPE|ILL) \(@0x[0-9a-f]+\)(?:, see \S+)? received by PID",
            # folly's signal handler (Meta's C++ and Rust runtimes, monarch's actors): "***
            # Signal 11 (SIGSEGV) (0x3f800000) received by PID 2085122 (pthread TID ...)"
            r"\*\*\* Signal (?:11|8|4) \(SIG(?:SEGV|FPE|ILL)\) \(0x[0-9a-f]+\) received by PID",
            # absl's failure-signal handler (Ray's workers, JAX, TensorFlow)
            r"(?:^|logging\.cc:\d+\]?:? )\*\*\* SIGSEGV received at time=\d+",
            # the shell's report of a child's SIGFPE or SIGILL (an instruction this CPU lacks:
            # a wheel built for AVX-512 on an older host)
            r"^(?:Floating point exception|Illegal instruction)(?: ?\(core dumped\))?$",
            # ... and bash's job report of it, under a wrapper script ("start.sh: line 20:
            # 11 Floating point exception(core dumped) python train.py")
            r": line \d+: +\d+ (?:Floating point exception|Illegal instruction)\b",
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
        "LD_LIBRARY_PATH, init_process_group before torch.cuda.set_device.",
        # the two signals besides SIGSEGV, whose usual causes are their own
        cases=(
            Case(
                when=(r"Floating point exception|SIGFPE|Signal 8 |signal 8 \(",),
                cause="a native crash by SIGFPE (an integer division by zero in C/C++/CUDA "
                "code), not a Python exception: inside cuBLAS/cuBLASLt a cuBLAS older than "
                "the GPU, elsewhere often a kernel given a zero size.",
                fix="get the native stack (PYTHONFAULTHANDLER=1, core dumps with ulimit -c "
                "unlimited); inside cuBLAS/cuBLASLt install the nvidia-cublas wheel of the "
                "CUDA release torch was built for (torch.version.cuda) at a version that knows "
                "the GPU; else look for an empty batch or a zero-sized dimension reaching the "
                "kernel.",
            ),
            Case(
                when=(r"Illegal instruction|SIGILL|Signal 4 |signal 4 \(",),
                cause="a native crash by SIGILL: a library built for CPU instructions this "
                "host lacks (AVX-512, AVX2, a -march=native build made on another machine), "
                "not a Python exception.",
                fix="find the library in the native stack (PYTHONFAULTHANDLER=1, gdb on the "
                "core) and reinstall it from a generic wheel or rebuild it on this host "
                "without -march=native; `grep -o -w 'avx[0-9a-z_]*' /proc/cpuinfo | sort -u` "
                "lists what this CPU has.",
            ),
        ),
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
            # libstdc++'s words before abort() for a virtual call on an object being destroyed
            # (__cxa_pure_virtual: a thread still using an object at the process's exit)
            r"^pure virtual method called$",
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
            # ... glog's, with the address (Paddle's, TensorFlow's: "*** SIGABRT (@0x3e8...)
            # received by PID 27807 (TID 0x7f2f...) from PID 27807; stack trace: ***")
            r"\*\*\* SIGABRT \(@0x[0-9a-f]+\)(?:, see \S+)? received by PID \d+",
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
        "swallowed; libstdc++'s 'pure virtual method called': a thread still calling into an "
        "object being destroyed, often at exit); a native crash, not a Python exception.",
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
            rf"process (?P<rank>\d+) terminated with exit code (?:{WINDOWS_CRASHES})\b",
            rf"exit ?code\s*[:=]?\s*(?:{WINDOWS_CRASHES})\b",
            rf"(?:return code|exit status) =? ?(?:{WINDOWS_CRASHES})\b",
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
            # Open MPI's handler in the rank itself (its "[host:pid]" comes off as the host):
            # the rank's own line, the first of the failure where a log's lines carry the time
            r"^Signal: Bus error \(7\)$",
        ),
        # mpirun's report names the node: a Docker container's id
        requires=(r"on node [0-9a-f]{12} exited on signal 7\b",),
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
        # just below LX581: where the log also says "shared memory" or shows NCCL's
        # shared-memory transport, LX581's words are the closer ones
        priority=63,
        patterns=(
            # UCX's handler names the signal's code: BUS_ADRERR, "nonexistent physical
            # address", a mapped file's page that nothing backs (not an unaligned access,
            # BUS_ADRALN, nor a hardware error, BUS_OBJERR); the words alone too, as a
            # reporter quotes them without the handler's prefix
            r"\bBus error: nonexistent physical address\b",
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
            "shm_error__flagembedding_635_bge_m3_docker_shm_sigbus.log",
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
        # above what a launcher says of the failed ssh (LX716's daemons not started, LX820's
        # lost daemon): ssh's own line says why
        priority=83,
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
            # ... and when it refuses (OpenSSH's sshconnect2.c, sshconnect.c): the host took
            # none of the user's keys, or its host key is unknown or changed
            r"(?:^|: )Permission denied \((?:publickey|password|keyboard-interactive|gssapi)"
            r"[\w,-]*\)\.?$",
            r"(?:^|: )Permission denied, please try again\.$",
            r"^Host key verification failed\.$",
            # horovodrun's own check of every host before it starts mpirun or gloo's ranks
            r"could not connect to some hosts via ssh",
        ),
        exclude=(
            # the same words from git fetching a dependency over ssh, not a launcher
            r"\bgit@",
        ),
        # ... and git's own line after them
        not_before=(r"fatal: Could not read from remote repository",),
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
            "launcher_died__eva_3_deepspeed_runner_ssh_no_route.log",
            "launcher_died__deepspeedexamples_894_autotuning_pdsh_ssh_localhost_refused.log",
            "launcher_died__horovod_2803_ssh_port_timeout.log",
            "launcher_died__thu_coai_eva_4_hostfile_ssh_unresolved.log",
            "launcher_died__openmpi_local_ssh_publickey_refused.log",
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
        name="launcher_raised",
        category="launcher_died",
        code="LX827",
        # above the user's exception (LX511), below the launcher rules that name what it
        # refused (LX590, LX612, LX645)
        priority=82,
        retryable=False,
        patterns=(EXCEPTION_LINE,),
        # the exception that says a rank failed, or that the launcher was told to stop, is
        # raised in the launcher's code too; it reports, it is not the launcher's own fault
        exclude=(
            r"\b(?:ChildFailedError|SignalException|CalledProcessError|FailedJobError"
            r"|UncompletedJobError)\b",
        ),
        # the frame that raised it is code only the launcher runs: torchrun's and launch's
        # main modules, the elastic agent, DeepSpeed's runner and its per-node launcher
        raised_in=(
            r'torch[/\\]distributed[/\\](?:run|launch|launcher[/\\]api)\.py", line \d+, in ',
            r'torch[/\\]distributed[/\\]elastic[/\\]agent[/\\][^"]*", line \d+, in ',
            r'deepspeed[/\\]launcher[/\\][^"]*", line \d+, in ',
            # accelerate's launch command, and submitit's code around the job's function
            # (the function's own frames are below them)
            r'accelerate[/\\]commands[/\\][^"]*", line \d+, in ',
            r'submitit[/\\]core[/\\][^"]*", line \d+, in ',
        ),
        cause="the launcher (torchrun, torch.distributed.launch, DeepSpeed's runner, accelerate "
        "launch, submitit) raised this exception in its own code, not in a rank: it could not "
        "use an argument, a setting or the environment it was given, so it started no rank "
        "(or stopped them); the same command fails the same way.",
        fix="read the exception as the launcher's complaint about its command line or "
        "environment (`torchrun --help`, `deepspeed --help` name what each argument takes), "
        "correct that, and start again; a launcher release made for another torch fails so "
        "too (install matching versions).",
        fixtures=(
            "launcher_died__aim_45_nproc_per_node_validate.log",
            "launcher_died__mmaction2_1476.log",
        ),
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
        # below LX590, which reads the same line when torch's elastic agent raised it
        priority=83,
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
        # a BrokenPipeError elsewhere is a socket's or a queue's (unread, LX520's note):
        # raised in logging's own write of a record, the pipe is the process's standard
        # output or error
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
            r"|is (?:empty or )?not formatted correctly)",
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
            # ("accelerate <command> [<args>] launch"), DeepSpeed's runner's (also installed
            # as `ds`)
            r"^(?:torchrun|accelerate(?: <command> \[<args>\])? launch|deepspeed|ds): error: ",
            # python -m torch.distributed.launch / .run, whose usage line says which it is
            r"^(?:launch|run)\.py: error: ",
        ),
        requires=(
            r"^(?:torchrun|accelerate(?: <command> \[<args>\])? launch|deepspeed|ds): error: ",
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
            rf"(?:^|: ){_LAUNCHER_COMMAND}: command not found$",
            # zsh's word order
            rf"^zsh: command not found: {_LAUNCHER_COMMAND}$",
            # dash (/bin/sh of Debian and Ubuntu), which a program's os.system() runs, and
            # which runs a launch script started as `sh train.sh` ("train.sh: 1: srun: not
            # found")
            rf"^(?:(?:/bin/)?sh|\S+\.sh): \d+: (?:\S*/)?{_LAUNCHER_COMMAND}: not found$",
            # Windows: PowerShell's and cmd.exe's words for a command not on the PATH (the
            # environment that installs it not activated in this terminal)
            rf"The term '(?:\S*[/\\])?{_LAUNCHER_COMMAND}(?:\.exe)?' is not recognized as (?:the )?"
            r"name of a cmdlet",
            rf"^'{_LAUNCHER_COMMAND}' is not recognized as an internal or external command",
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
        "--launcher (openmpi, slurm). On Windows activate the environment in the same "
        "terminal (conda activate) or run the launcher as a module (python -m "
        "accelerate.commands.launch, python -m torch.distributed.run).",
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
            SLURM_REQUEST_ANSWER + r"Protocol authentication error",
            SLURM_STEP_ANSWER + r"Protocol authentication error",
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
            # ... and while it waits for a slurm.conf that is not there
            # (src/common/parse_config.c): before configless mode, or SLURM_CONF naming a
            # missing file (its words before Slurm 22.05: "unable to status file", then
            # "cannot stat file"); a file that appears within 60 s lets it go on, which a
            # launch script's environment does not do by itself
            r"(?:srun|sbatch|salloc|squeue|scontrol|sinfo)(?:-[\w.-]+)?: error: s_p_parse_file: "
            r"(?:unable to status|cannot stat) file \S*slurm\.conf: No such file or directory",
        ),
        cause="a Slurm command (srun, sbatch) ran on a machine where Slurm is not set up: it "
        "found no slurm.conf and no configless controller to fetch one from, so it exited "
        "before any rank ran. A launch script written for a Slurm cluster was run outside one "
        "(a workstation, a container, a cloud node of another scheduler).",
        fix="run it on the cluster's login node, where `sinfo` works (or bind /etc/slurm into "
        "the container, and check that SLURM_CONF, when set, names a file there); on a "
        "machine without Slurm, start the ranks with torchrun instead (launchx run "
        "--profile local, or torchrun --nproc-per-node N script.py).",
        fixtures=(
            "launcher_died__internvideo_196_srun_no_slurm_config.log",
            "launcher_died__one_policy_5_no_slurm_config.log",
            "launcher_died__megatron_172_srun_no_slurm_conf_gpt3.log",
        ),
    ),
    Rule(
        name="slurm_request_refused",
        category="launcher_died",
        code="LX813",
        # above the user's exception (LX511, 80): submitit and NeMo's launcher raise sbatch's
        # refusal as their own exception (FailedJobError, OSError) with the text after it
        priority=84,
        retryable=False,
        patterns=(
            # sbatch, salloc and srun outside a job print slurmctld's answer to the request
            # after their own words (src/sbatch/sbatch.c, src/salloc/salloc.c,
            # src/srun/allocate.c); the answers are slurm_errno.c's. Only those that say the
            # request does not fit the cluster or the user's rights: not a busy controller, a
            # partition that is down now, or nodes that are busy, which pass.
            SLURM_REQUEST_ANSWER + r"(?:Requested node configuration is not available|"
            r"More processors requested than permitted|Invalid generic "
            r"resource \(gres\) specification|Invalid (?:partition name|account or "
            r"account/partition combination|feature|qos|node name|wckey|license|Trackable "
            r"RESource \(TRES\)) specifi(?:ed|cation)|No partition specified or system "
            r"default partition|Memory required by task is not available|(?:Node|Task|CPU) "
            r"count specification invalid|Requested time limit is invalid|Job violates "
            r"accounting/QOS policy|Access/permission denied|User's group not permitted to "
            r"use this partition|Requested nodes not in this partition|Requested GRES option "
            r"unsupported|Invalid GRES specification|Duplicate generic resource \(gres\) "
            r"specification|Requested topology configuration is not available)",
            # ... and a GPU request (--gres=gpu:N, --gpus-per-node) on a cluster whose
            # slurm.conf defines no such gres, refused before the request is sent
            r"(?:^|: )(?:sbatch|salloc|srun): error: Invalid generic resource \(gres\) "
            r"specification\s*$",
        ),
        cause="Slurm refused the job's request when it was submitted (sbatch, salloc, or srun "
        "outside a job; a GPU request that names no gres of the cluster is refused alike "
        "by an srun inside a job): it asks for something the cluster's nodes do not have or "
        "the user may not use. The reason after the colon names it: more CPUs, memory or "
        "GPUs (gres) per node than a node has, GPUs on a cluster that defines none as gres, a "
        "partition, account, QOS, feature or node that does not exist or is not the user's, "
        "a time limit over the partition's. No job was queued and no rank ran; the same "
        "request is refused every time.",
        fix="compare the request with the nodes: `sinfo -p <partition> -o '%P %D %c %m %G %f "
        "%l'` shows each node's CPUs, memory, gres (gpu:8), features and the time limit, and "
        "`sacctmgr show assoc user=$USER format=account,partition,qos` the accounts, "
        "partitions and QOS you may use (`sacctmgr show qos` their limits; a limit on "
        "jobs submitted clears as your other jobs in `squeue -u $USER` end). Ask for no "
        "more per node than a node has "
        "(--ntasks-per-node x --cpus-per-task, --mem, --gres=gpu:N or --gpus-per-node), "
        "then submit again; `launchx sbatch` renders these lines from the profile's slurm "
        "block.",
        fixtures=(
            "launcher_died__awsome_distributed_196_invalid_gres.log",
            "launcher_died__capreolus_172_srun_time_limit.log",
            "launcher_died__itwinai_415_cpus_per_gpu.log",
            "launcher_died__nemo_rl_3051_time_limit_invalid.log",
            "launcher_died__torchforge_590_mem_spec.log",
        ),
    ),
    Rule(
        name="slurm_step_refused",
        category="launcher_died",
        code="LX814",
        priority=84,
        retryable=False,
        patterns=(
            # inside the job, srun could not create the step that starts the ranks
            # (src/srun/launch.c), for a reason that says the step asks for more than the
            # job was given; "Requested nodes are busy" (other steps hold them) is the
            # moment's, read by no rule
            SLURM_STEP_ANSWER + r"(?:More processors requested than permitted|"
            r"Requested node configuration is not available|Invalid "
            r"generic resource \(gres\) specification|Memory required by task is not "
            r"available|Insufficient GRES available in allocation|(?:Node|Task|CPU) count "
            r"specification invalid|Invalid node name specified|Cannot request more threads "
            r"per core than the job allocation)",
            # ... or more nodes than the job holds (src/srun/srun_job.c)
            r"(?:^|: )srun: error: Only allocated \d+ nodes asked for \d+",
        ),
        cause="inside the job's allocation, srun could not create the step that starts the "
        "ranks: the step asks for more than the job was given (more nodes, tasks, CPUs per "
        "task, memory or GPUs than the #SBATCH lines allocated, or GPUs in a job that "
        "requested none). The job runs on, but no rank of that step started; every run of "
        "the script fails the same way.",
        fix="make the srun line ask for no more than the #SBATCH lines: --nodes no more than "
        "the job's, --ntasks-per-node x --cpus-per-task no more than the CPUs given on each "
        "node, and GPUs requested in the #SBATCH lines (--gpus-per-node or --gres=gpu:N) "
        "before a step uses them; `scontrol show job $SLURM_JOB_ID` shows what the job was "
        "given. `launchx sbatch` renders the allocation and the step from one profile.",
        fixtures=(
            "launcher_died__deephyper_53_ray_cori_gres_step.log",
            "launcher_died__verl_548_srun_head_node_config.log",
            "launcher_died__nemo_rl_1019_ray_worker_step_memory.log",
        ),
    ),
    Rule(
        name="slurm_controller_unreachable",
        category="launcher_died",
        code="LX815",
        priority=84,
        # not retried: the line is the same for a controller that is down for a moment and
        # for one this node never reaches (a container without the cluster's network, a
        # firewall, a SlurmctldHost this node cannot resolve), and of the held-out logs that
        # say it, one is labelled deterministic (counted, not read)
        retryable=False,
        patterns=(
            rf"(?:{SLURM_REQUEST_ANSWER}|{SLURM_STEP_ANSWER}|(?:^|: )srun: error: Unable to "
            rf"confirm allocation for job \S+: )(?:{NO_ANSWER})",
        ),
        cause="a Slurm command got no answer to its request: slurmctld was down, failing "
        "over to its backup, rate-limiting or too busy to answer within MessageTimeout "
        '(sbatch gives up with "Resource temporarily unavailable" after its own retries), '
        "or this node cannot reach it at all (a container without the cluster's network, a "
        "firewall, a controller address it cannot resolve). The request itself was not "
        "refused; no rank ran.",
        fix="run `scontrol ping` on the node that ran the command: when the controller "
        "answers there, submit again (`sdiag` shows how busy it is); when it does not, run "
        "from a login node, or give the container the host's network and /etc/slurm; when "
        "it keeps happening on a login node, the cluster's admins need to know.",
        fixtures=("launcher_died__slurm_local_srun_controller_down.log",),
    ),
    Rule(
        name="slurm_request_refused_other",
        category="launcher_died",
        code="LX816",
        # below the refusals whose reason a rule names (LX813, LX814, LX815: 84), above the
        # exception a wrapper raises with sbatch's text (LX511, 80)
        priority=82,
        retryable=False,
        patterns=(
            # any other answer to a submission, an allocation or a step: a site's own
            # job_submit plugin prints its words on the line before and the answer is then
            # "Unspecified error"
            SLURM_REQUEST_ANSWER + r"\S",
            SLURM_STEP_ANSWER + r"\S",
        ),
        # a step asked for while the job ends (its time limit, a cancel) is the job's end,
        # not a cause; MUNGE's refusal has its own rule (LX765, 70); answers that say "not
        # now" (nodes busy or down, a partition not available now, steps or the operation
        # disabled for a while) are the cluster's state of the moment, not the request's
        exclude=(
            r"Job/step already completing or completed|Protocol authentication error",
            r"Requested nodes are busy|not available now|DOWN, DRAINED|temporarily disabled"
            r"|presently disabled|Job can not start immediately|Immediate execution impossible",
        ),
        cause="Slurm refused the job or its step for the reason on the line (or, when it says "
        '"Unspecified error", the site\'s own submission check on the line before it): no '
        "rank ran, and the same request is refused again.",
        fix="read the reason (and the site's message before it): it names the option to "
        "change (a partition, an account, a GPU type in --gres=gpu:<type>:N, a limit); "
        "`sinfo` and `sacctmgr show assoc user=$USER` show what the cluster offers and what "
        "you may use, and the cluster's documentation what its submission check requires.",
        fixtures=("launcher_died__slurm_local_sbatch_reservation_invalid.log",),
    ),
    Rule(
        name="slurm_mpi_plugin_unusable",
        category="launcher_died",
        code="LX822",
        # Slurm's refusals' tier (LX813-LX816)
        priority=84,
        retryable=False,
        patterns=(
            # srun loading the MPI plugin that --mpi (or MpiDefault, SLURM_MPI_TYPE) names,
            # before it asks for a step (src/common/slurm_mpi.c, plugin.c): not installed,
            # or installed but unable to load its library (PMIx)
            r"^(?:srun|slurmstepd): error: Couldn't (?:find|load) (?:the )?specified plugin "
            r"name for mpi/",
            r"^srun: error: (?:MPI: )?[Cc]annot (?:create (?:mpi )?context|find mpi plugin) "
            r"for mpi/",
            r"^srun: (?:error|fatal): [Ii]nvalid MPI type '[^']*', --mpi=list for acceptable "
            r"types",
            # ... and the same check of SLURM_MPI_TYPE from the environment
            r'^srun: (?:error|fatal): "SLURM_MPI_TYPE=[^"]*" -- invalid MPI type, --mpi=list',
        ),
        cause="srun could not load the MPI plugin it was asked for (--mpi=pmix, pmix_v3, pmi2, "
        "or the cluster's MpiDefault and SLURM_MPI_TYPE): this Slurm was built without it, "
        "or the plugin is there but the PMIx library it needs is not on the node, so srun "
        "started no task; every srun with the same --mpi fails the same way.",
        fix="`srun --mpi=list` names the types this Slurm has: use one of them (pmi2, or "
        "--mpi=none for torchrun, accelerate and deepspeed, which read no PMI), or unset "
        "SLURM_MPI_TYPE; an admin installs the PMIx library the plugin was built against.",
        fixtures=("launcher_died__slurm_local_srun_mpi_pmix_v4_library_missing.log",),
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
)
