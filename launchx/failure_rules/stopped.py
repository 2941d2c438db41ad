"""The run was stopped from outside, or never started its ranks: a user's Ctrl-C, a
scheduler's cancel, preemption or time limit, a launcher inside a launcher, and launchx's
own hang verdict. Most are the top tier (priority 100 and above), since such a stop explains
every rank's end after it; those read from weaker evidence stand lower (a Ray node's death,
a "^C" echoed in the terminal, the hang report, which names its own rank)."""

from __future__ import annotations

from launchx.failure_rules.model import Rule
from launchx.failure_rules.patterns import EXCEPTION_LINE, SRUN_TERMINATES_STEP

RULES: tuple[Rule, ...] = (
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
            # a Kubernetes Job past its spec.activeDeadlineSeconds (the job controller's
            # DeadlineExceeded condition and event)
            r"Job was active longer than specified deadline",
            # Kueue evicting a workload for another (pkg/scheduler/preemption: its Evicted
            # condition's message, and the older "a higher priority Workload")
            r"Preempted to accommodate a (?:workload \(UID: |higher priority Workload)",
            # Flux's job exception at the job's time limit (job-exec: "resource allocation
            # expired", as flux run and flux job attach print it)
            r"\btype=timeout severity=\d+ resource allocation expired",
        ),
        cause="the scheduler took the allocation away (preemption, time limit, a requeue or a "
        "failed node); the training itself did not fail.",
        fix="let launchx retry or the scheduler requeue (SLURM --requeue, LSF bsub -r); make "
        "sure checkpoints are frequent and the script resumes from LAUNCHX_RESUME_FROM. For "
        "time limits, ask for more time (--time, bsub -W, a Kubernetes Job's "
        "activeDeadlineSeconds) or checkpoint on the warning "
        "signal (profile slurm.signal, e.g. USR2@120; LSF sends SIGUSR2 at the run limit and "
        "kills the job ten minutes later).",
        fixtures=("preempted__sbatch_time_limit_torchrun.log", "preempted__submitit_1613.log"),
    ),
    Rule(
        name="requeued_on_scheduler_signal",
        category="preempted",
        code="LX549",
        priority=119,
        patterns=(
            r"Caught signal \w+ on \S+: this job is (?:preempted|timed-out)",
            r"Job has timed out\. Ran \d+ minutes out of requested",
            r"Requeued job \d+ \(\d+ remaining timeouts\)",
            r"has not produced any output \(state: (?:NODE_FAIL|TIMEOUT|PREEMPTED)\)",
            r"(?i)\b(?:has|have|was|were|been) (?:been )?preempted\b",
            # Lightning's SLURM connector (auto_requeue): the signal Slurm sends before the
            # time limit (--signal), on which Lightning saves an HPC checkpoint and requeues
            r"^Handling auto-requeue signal\b",
        ),
        cause="submitit (or Lightning's SLURM connector) caught the scheduler's preemption or "
        "time-limit signal and requeued the job; the training itself did not fail.",
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
        patterns=(
            r"Instance \S+ \(node IP: [\d.]+\) will be terminated soon \(reason: [\w-]+\)",
            # the kubelet's own words: a graceful node shutdown (a spot reclaim, a reboot, a
            # maintenance event) terminating the pod, and a critical pod admitted in its place
            r"Pod was terminated in response to imminent node shutdown",
            r"Preempted in order to admit critical pod",
        ),
        cause="the nodes under the run are going away: the cluster's autoscaler announced it "
        "(a Kubernetes pod termination: preemption, a spot reclaim, a drain or a scale-down), "
        "or the kubelet terminated the pod for a node shutting down or a critical pod taking "
        "its place; the training itself did not fail, it lost its machines.",
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
        patterns=(
            r"has been marked dead because the detector has missed too many heartbeats",
            # ... and what its tasks and actors say of it (core_worker's task manager, the
            # GCS actor manager: "The actor is dead because its node has died. Node Id: ...";
            # a drained node's "the actor's node was preempted" is LX549's)
            r"Task failed due to the node dying\.",
            r"The actor (?:is dead|died) because its node has died\.",
        ),
        cause="Ray lost a node under the run: its raylet stopped answering heartbeats (the "
        "machine was shut down, preempted or cut off from the network, or the raylet "
        "crashed), and the training actors on it died with it.",
        fix="let launchx retry once the cluster has the node back or a replacement (it resumes "
        "from LAUNCHX_RESUME_FROM); if the node was not taken away, look at its raylet.out "
        "and dmesg for an OOM kill or a crash before retrying.",
        fixtures=("preempted__ray_22349_train_gcp_node_shut_down_marked_dead.log",),
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
            # Lightning's Trainer, which catches it and shuts down on its own
            r"^Detected KeyboardInterrupt, attempting graceful shutdown",
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
)
