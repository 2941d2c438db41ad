"""The SLURM client: the one place that runs ``sbatch``, ``scontrol`` and ``scancel``.

``launchx.slurm`` renders batch scripts (pure); this module hands them to SLURM, requeues
a job after its time-limit warning, finds and signals an srun's step, and waits for a job
to end. Every call goes through a ``Runner`` so tests can answer for SLURM, and the real
one turns a missing client or a silent controller into one ``SubmitError`` with a hint.
"""

from __future__ import annotations

import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from launchx.errors import SubmitError

# --------------------------------------------------------------------------- submission

Runner = Callable[[Sequence[str], str | None, Path | None], "subprocess.CompletedProcess[str]"]


def _run(
    argv: Sequence[str], stdin: str | None, cwd: Path | None
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            list(argv),
            input=stdin,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except FileNotFoundError:
        raise SubmitError(
            f"{argv[0]} not found",
            "run this on a SLURM login node, or put the SLURM client commands on PATH",
        ) from None
    except subprocess.TimeoutExpired:
        raise SubmitError(
            f"{shlex.join(argv)} did not answer within 120 s",
            "check that slurmctld is up: scontrol ping",
        ) from None


def _said(proc: subprocess.CompletedProcess[str]) -> str:
    return (proc.stderr or proc.stdout).strip() or f"exit code {proc.returncode}"


def _failed(proc: subprocess.CompletedProcess[str], what: str, hint: str) -> SubmitError:
    text = _said(proc)
    return SubmitError(f"{what} failed: {text}", hint)


def _refusal_hint(text: str) -> str:
    """What to change when slurmctld refused the job: the failure rules that read a Slurm
    refusal in a run's log (LX813 and its neighbours) read sbatch's own answer too, so the
    user gets the same fix at submission as from ``launchx diagnose``. Imported here, not
    at the top: the rules are compiled only when sbatch has refused. A fault in the
    diagnosis must not hide sbatch's own words, so it falls back to the plain hint."""
    plain = "the text above is sbatch's own; check the partition, account and limits it names"
    try:
        from launchx.failures import diagnose_logs

        report = diagnose_logs([text])
    except Exception:  # sbatch's text is what matters; the hint is extra
        return plain
    primary = report.primary
    if report.found and primary is not None and primary.category == "launcher_died":
        return f"{primary.code}: {primary.fix}"
    return plain


def submit(script_text: str, *, workdir: Path | str, runner: Runner = _run) -> str:
    """``sbatch --parsable`` the script (on stdin) from ``workdir``; returns the job id.

    ``workdir`` becomes ``SLURM_SUBMIT_DIR`` (and the frozen profile's parent).
    """
    proc = runner(["sbatch", "--parsable"], script_text, Path(workdir))
    if proc.returncode != 0:
        raise _failed(proc, "sbatch", _refusal_hint(_said(proc)))
    job_id = proc.stdout.strip().split(";", 1)[0]
    if not job_id.isdigit():
        raise SubmitError(
            f"sbatch printed {proc.stdout.strip()!r} instead of a job id",
            "run the script by hand with sbatch to see what happens",
        )
    return job_id


def requeue(job_id: str, *, runner: Runner = _run) -> None:
    """Put a running job back in the queue (it restarts with the same id).

    Called from inside the job, ``scontrol`` is one of the processes the requeue ends:
    slurmctld requeues the job and SIGTERMs its batch step before the reply reaches
    scontrol, which then dies of that SIGTERM (seen on the local cluster when the
    controller is quick). That death is the requeue taking effect, not a refusal, which
    scontrol reports with an exit status and its own text."""
    proc = runner(["scontrol", "requeue", job_id], None, None)
    if proc.returncode == -signal.SIGTERM:
        return
    if proc.returncode != 0:
        raise _failed(
            proc, f"scontrol requeue {job_id}", "only jobs submitted with --requeue can be requeued"
        )


# --------------------------------------------------------------------------- srun steps
#
# srun does not pass SIGTERM (nor SIGHUP, SIGQUIT) on to its tasks: it "forces job
# termination" and they are SIGKILLed at once, their handlers never run. It does pass
# SIGUSR1/SIGUSR2, and ``scancel --signal=TERM <job>.<step>`` reaches the tasks as a plain
# SIGTERM (slurm 22.05, checked on the local cluster). So a stop for a run whose launcher is
# srun is delivered to its step, found by the srun's pid in ``scontrol show step``.


def srun_job_id(argv: Sequence[str], env: Mapping[str, str]) -> str | None:
    """The SLURM job an srun command line starts its step in, or ``None`` when ``argv`` is
    not srun or srun will ask for an allocation of its own (no job id in its environment,
    which is where srun itself reads it from)."""
    if not argv or Path(argv[0]).name != "srun":
        return None
    job = env.get("SLURM_JOB_ID") or env.get("SLURM_JOBID")
    return job if job and job.isdigit() else None


def step_of_srun(show_step_output: str, srun_pid: int, host: str) -> str | None:
    """The step id (``JOB.STEP``) that the srun with ``srun_pid`` on ``host`` started, from
    ``scontrol show step -o JOB`` (one step a line, with ``SrunHost:Pid=host:pid``).

    Hosts compare by their short name (srun reports its short hostname); a lone step with
    the pid but another spelling of the host is still ours: pids are per host, and only
    one srun with that pid runs steps in the job.
    """
    by_pid: list[tuple[str, str]] = []
    for line in show_step_output.splitlines():
        record = parse_job_record(line)
        step, srun = record.get("StepId", ""), record.get("SrunHost:Pid", "")
        srun_host, _, pid = srun.rpartition(":")
        if step and pid == str(srun_pid):
            by_pid.append((step, srun_host))
    short = host.split(".", 1)[0]
    same_host = [step for step, h in by_pid if h.split(".", 1)[0] == short]
    if len(same_host) == 1:
        return same_host[0]
    return by_pid[0][0] if len(by_pid) == 1 else None


def _run_briefly(argv: Sequence[str]) -> subprocess.CompletedProcess[str] | None:
    """A SLURM command on the stop path: bounded (a stop must not hang on a slow
    slurmctld) and never raising; ``None`` when it could not run."""
    try:
        return subprocess.run(list(argv), capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None


def find_srun_step(job_id: str, srun_pid: int, host: str) -> str | None:
    """The step our srun started, or ``None`` (not created yet, or SLURM did not answer)."""
    proc = _run_briefly(["scontrol", "show", "step", "-o", job_id])
    if proc is None or proc.returncode != 0:
        return None
    return step_of_srun(proc.stdout, srun_pid, host)


def signal_step(step: str, signame: str) -> bool:
    """``scancel --signal=SIG JOB.STEP``: the signal reaches every task of the step (and
    only them). True when scancel accepted it."""
    proc = _run_briefly(["scancel", f"--signal={signame}", step])
    return proc is not None and proc.returncode == 0


def parse_job_record(text: str) -> dict[str, str]:
    """``scontrol show job -o`` output (one line, ``Key=Value`` pairs) as a dict.

    Values containing spaces (``Reason``, ``Command``) lose the part after the space; the
    keys launchx reads (JobState, ExitCode, RestartCnt) never contain one.
    """
    record: dict[str, str] = {}
    for word in text.split():
        key, eq, value = word.partition("=")
        if eq and key not in record:
            record[key] = value
    return record


_TERMINAL = frozenset(
    {
        "COMPLETED",
        "FAILED",
        "CANCELLED",
        "TIMEOUT",
        "NODE_FAIL",
        "PREEMPTED",
        "OUT_OF_MEMORY",
        "BOOT_FAIL",
        "DEADLINE",
    }
)


def job_exit_code(record: Mapping[str, str]) -> int | None:
    """The exit code of a finished job, or ``None`` while it is not finished.

    Like a shell: a job killed by signal S gives 128+S. A job that ended badly without an
    exit code (cancelled while pending, node failure) gives 1, never 0.
    """
    state = record.get("JobState", "")
    if state not in _TERMINAL:
        return None
    code_text, _, sig_text = record.get("ExitCode", "0:0").partition(":")
    code = int(code_text) if code_text.isdigit() else 0
    sig = int(sig_text) if sig_text.isdigit() else 0
    if sig:
        return 128 + sig
    if state != "COMPLETED" and code == 0:
        return 1
    return code


# Reasons a pending job gives that no amount of waiting clears: the request or the
# cluster's configuration must change (slurm.schedmd.com/job_reason_codes.html).
# ``sbatch --wait`` waits on such a job without a word; saying so is the point of the line.
_NEVER_STARTS = {
    "BadConstraints": "the job's constraints cannot be satisfied",
    "PartitionConfig": "the job asks for more than its partition is configured to give",
    "PartitionNodeLimit": "the node count is outside the partition's limits (or its nodes "
    "are down or drained)",
    "PartitionTimeLimit": "the time limit is longer than the partition allows",
    "PartitionDown": "the partition is down",
    "PartitionInactive": "the partition is inactive",
    "InvalidAccount": "the job's account is invalid",
    "InvalidQOS": "the job's QOS is invalid",
    "AccountNotAllowed": "the partition does not allow the job's account",
    "DependencyNeverSatisfied": "a job it depends on can no longer satisfy the dependency",
    "JobHeldUser": "the job is held (scontrol release {job} lets it start)",
    "JobHeldAdmin": "an administrator holds the job",
}


def _progress(job_id: str, record: Mapping[str, str]) -> str | None:
    """What a person waiting on the job should hear about this state: pending and why
    (and whether it can ever start), running and where; None for the other states."""
    state = record.get("JobState", "")
    if state == "PENDING":
        reason = record.get("Reason", "None").split(",")[0]
        never = _NEVER_STARTS.get(reason)
        if never is not None:
            return (
                f"launchx: job {job_id} is pending ({reason}): {never.format(job=job_id)}; it "
                f"will not start until that changes: scancel {job_id}, fix the request, and "
                "submit again"
            )
        why = f" ({reason})" if reason not in ("None", "") else ""
        return f"launchx: job {job_id} is pending{why}; waiting for it to start"
    if state == "RUNNING":
        return f"launchx: job {job_id} is running on {record.get('NodeList', '?')}"
    return None


def wait_for_job(
    job_id: str,
    *,
    poll_s: float = 1.0,
    timeout_s: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    runner: Runner = _run,
    say: Callable[[str], None] | None = None,
) -> int:
    """Poll ``scontrol show job`` until the job ends; return its exit code. ``say`` hears
    each change of state (and of a pending job's reason), so a job that cannot start is
    not waited on in silence.

    There is no ``sacct`` without accounting, so the job must be seen finished before
    slurmctld forgets it (``MinJobAge``, 300 s by default): keep ``poll_s`` well below that.
    Raises ``SubmitError`` on timeout or when the job vanishes unseen.
    """
    deadline = None if timeout_s is None else clock() + timeout_s
    said: str | None = None
    while True:
        proc = runner(["scontrol", "show", "job", "-o", job_id], None, None)
        if proc.returncode != 0:
            raise _failed(
                proc,
                f"scontrol show job {job_id}",
                "the job finished more than MinJobAge ago, or the id is wrong; "
                "read its output file for the result",
            )
        record = parse_job_record(proc.stdout)
        code = job_exit_code(record)
        if code is not None:
            return code
        line = _progress(job_id, record)
        if say is not None and line is not None and line != said:
            say(line)
            said = line
        if deadline is not None and clock() >= deadline:
            raise SubmitError(
                f"job {job_id} still not finished after {timeout_s:g} s",
                f"it keeps running; watch it with squeue -j {job_id}",
            )
        sleep(poll_s)
