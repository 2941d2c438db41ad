"""Time to recover from a collective timeout: launchx's retry + resume against torchrun's
own restarts, on the toy job with the same injected fault.

    .venv/bin/python benchmarks/recovery.py [--steps 60] [--ckpt-every 10] [--fault-step 35]
                                             [--pg-timeout 5]

Scenario (the one ``tests/test_recovery.py`` checks for correctness): two ranks on the
CPU (gloo); before step ``--fault-step`` rank 1 stalls past the process-group timeout, so
rank 0's collective times out, on the first attempt only. Every step is logged
(``--log-every 1``); each output line is stamped with ``time.monotonic()`` when it
arrives here, read line by line from the launcher's stdout.

Runs, in this order:

1. ``launchx run`` without the fault: cold start to the first completed step, and the
   uninterrupted wall time.
2. ``launchx run`` with the fault, retry backoff set to zero (``retry.backoff_*=0``,
   ``retry.jitter_s=0``) so the measurement is launchx's mechanics, not its politeness:
   - detection: the stalling rank's announcement -> launchx's ``failure:`` line;
   - recovery: launchx's ``failure:`` line -> the first completed step of the next
     attempt; divided by (1)'s cold start to first step (aim <= 1.2);
   - steps lost: the last step completed before the fault minus the step resumed from
     (at most one checkpoint interval).
3. plain torchrun (``--standalone --max-restarts 3``) without the fault, then with it.
   torchrun restarts every worker from step 0. The toy injects its faults only when
   ``LAUNCHX_ATTEMPT`` is 0, which plain torchrun never sets; a small wrapper (written to
   a temporary directory) sets it from ``TORCHELASTIC_RESTART_COUNT`` so the fault fires
   exactly once here as well. Reported: total wall time against (2), and steps lost.
   ``--torchrun-resume`` adds a third torchrun run where the script resumes by itself
   (``--resume <checkpoint dir>``): what a careful user gets without launchx.

The ratio of total wall times depends on what a step costs: the toy's steps take
milliseconds, so redoing them is cheap here; the time a lost step costs on a real job is
(steps lost) x (its step time). The report prints the toy's median step time to make that
conversion explicit.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from _env import clean_env

ROOT = Path(__file__).resolve().parent.parent
TOY = ROOT / "examples" / "train_toy.py"
STEP = re.compile(r"\[toy\] step (\d+) loss")
RESUMED = re.compile(r"\[toy\] resumed from \S+ at step (\d+)")

WRAPPER = """
import os, runpy, sys
os.environ["LAUNCHX_ATTEMPT"] = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
sys.argv = [{toy!r}, *sys.argv[1:]]
runpy.run_path({toy!r}, run_name="__main__")
"""


@dataclass(frozen=True)
class Line:
    t: float  # seconds since the launcher was started
    text: str


@dataclass(frozen=True)
class Result:
    code: int
    wall_s: float
    lines: tuple[Line, ...]

    def first(self, needle: str | re.Pattern[str], after: float = -1.0) -> Line | None:
        for line in self.lines:
            if line.t < after:
                continue
            if isinstance(needle, str) and needle in line.text:
                return line
            if isinstance(needle, re.Pattern) and needle.search(line.text):
                return line
        return None

    def steps(self) -> list[tuple[float, int]]:
        return [(ln.t, int(m.group(1))) for ln in self.lines if (m := STEP.search(ln.text))]


def launch(argv: list[str], cwd: Path, timeout: float, must_succeed: bool = True) -> Result:
    """Run ``argv``, stamping each output line as it arrives."""
    start = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=clean_env(PYTHONUNBUFFERED="1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: list[Line] = []
    assert proc.stdout is not None
    for raw in proc.stdout:
        lines.append(Line(time.monotonic() - start, raw.rstrip("\n")))
        if time.monotonic() - start > timeout:
            os.killpg(proc.pid, 9)
            break
    code = proc.wait()
    wall = time.monotonic() - start
    if code != 0 and must_succeed:
        tail = "\n".join(ln.text for ln in lines[-40:])
        sys.exit(f"{' '.join(argv[:6])} ... failed with {code}:\n{tail}")
    return Result(code, wall, tuple(lines))


def toy_args(a: argparse.Namespace, ckpt: Path, fault: bool) -> list[str]:
    args = [
        "--checkpoint-dir",
        str(ckpt),
        "--steps",
        str(a.steps),
        "--ckpt-every",
        str(a.ckpt_every),
        "--log-every",
        "1",
        "--pg-timeout-s",
        str(a.pg_timeout),
        "--output",
        str(ckpt / "final.pt"),
    ]
    if fault:
        args += ["--stall-at-step", str(a.fault_step), "--stall-rank", "1"]
    return args


def launchx_argv(a: argparse.Namespace, ckpt: Path, fault: bool) -> list[str]:
    return [
        sys.executable,
        "-m",
        "launchx",
        "run",
        "-p",
        "local",
        "--nproc-per-node",
        "2",
        "--checkpoint-dir",
        str(ckpt),
        "--set",
        f"timeouts.pg_timeout_s={a.pg_timeout}",
        "--set",
        "retry.backoff_min_s=0",
        "--set",
        "retry.backoff_max_s=0",
        "--set",
        "retry.jitter_s=0",
        str(TOY),
        *toy_args(a, ckpt, fault),
    ]


def torchrun_argv(a: argparse.Namespace, wrapper: Path, ckpt: Path, fault: bool) -> list[str]:
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc-per-node",
        "2",
        "--max-restarts",
        "3",
        str(wrapper),
        *toy_args(a, ckpt, fault),
    ]


def time_to_first_step(r: Result) -> float:
    first = r.first(STEP)
    if first is None:
        sys.exit("no step line in a cold start")
    return first.t


def median_step_s(r: Result) -> float:
    stamps = [t for t, _ in r.steps()]
    gaps = [b - a for a, b in itertools.pairwise(stamps) if b > a]
    return statistics.median(gaps) if gaps else float("nan")


def torchrun_outcome(r: Result) -> str:
    """How torchrun's in-place restarts went: each restart reuses the agent's store, and a
    fast rank can read a peer address left by the previous round (gloo connectFullMesh:
    connection refused), which burns a restart."""
    failed = sum("failed (exitcode:" in ln.text for ln in r.lines)
    stale = sum("connectFullMesh failed with" in ln.text for ln in r.lines)
    done = any("[toy] done" in ln.text for ln in r.lines)
    return (
        f"exit {r.code}, {'finished' if done else 'did NOT finish'}; {failed} worker-group "
        f"failure(s), {stale} of them gloo connectFullMesh errors on restart"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--ckpt-every", type=int, default=10)
    parser.add_argument("--fault-step", type=int, default=35)
    parser.add_argument("--pg-timeout", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=300, help="per run, seconds")
    parser.add_argument("--torchrun-resume", action="store_true")
    a = parser.parse_args()
    if not 0 < a.fault_step < a.steps:
        parser.error("--fault-step must be inside (0, --steps)")

    with tempfile.TemporaryDirectory(prefix="lx-recovery-") as tmp_name:
        tmp = Path(tmp_name)
        wrapper = tmp / "toy_once.py"
        wrapper.write_text(WRAPPER.format(toy=str(TOY)))

        def fresh(name: str) -> Path:
            path = tmp / name
            path.mkdir()
            return path

        print("1/4 launchx, no fault ...", flush=True)
        lx_cold = launch(launchx_argv(a, fresh("lx_cold"), False), tmp, a.timeout)
        print("2/4 launchx, collective timeout ...", flush=True)
        lx = launch(launchx_argv(a, fresh("lx_fault"), True), tmp, a.timeout)
        print("3/4 torchrun, no fault ...", flush=True)
        tr_cold = launch(torchrun_argv(a, wrapper, fresh("tr_cold"), False), tmp, a.timeout)
        print("4/4 torchrun --max-restarts 3, collective timeout ...", flush=True)
        tr = launch(torchrun_argv(a, wrapper, fresh("tr_fault"), True), tmp, a.timeout, False)
        tr_resume: Result | None = None
        if a.torchrun_resume:
            ck = fresh("tr_resume")
            argv = [*torchrun_argv(a, wrapper, ck, True), "--resume", str(ck)]
            print("extra: torchrun, script resumes by itself ...", flush=True)
            tr_resume = launch(argv, tmp, a.timeout, False)

    # launchx with the fault
    stall = lx.first("stalling rank")
    failure = lx.first("launchx: failure:")
    resuming = lx.first("launchx: offering")
    if stall is None or failure is None or resuming is None:
        sys.exit("the fault did not produce the expected launchx lines")
    first_after = lx.first(STEP, after=resuming.t)
    resumed = lx.first(RESUMED)
    before = [s for t, s in lx.steps() if t < failure.t]
    if first_after is None or resumed is None or not before:
        sys.exit("could not find the resumed attempt's steps")
    resumed_step = int(RESUMED.search(resumed.text).group(1))  # type: ignore[union-attr]
    lost = max(before) - resumed_step
    cold = time_to_first_step(lx_cold)
    recovery = first_after.t - failure.t
    category = failure.text.split("failure:", 1)[1].split()[0]

    # torchrun with the fault: restarts from 0
    tr_steps = tr.steps()
    tr_before: list[int] = []
    for _, s in tr_steps:
        if tr_before and s <= tr_before[-1]:
            break
        tr_before.append(s)
    tr_lost = max(tr_before) if tr_before else 0
    restart_step = tr_steps[len(tr_before)] if len(tr_steps) > len(tr_before) else None
    tr_fail = tr.first("exitcode")
    step_s = median_step_s(tr_cold)  # launchx relays torchrun's --tee output in bursts

    print()
    print(f"load average at end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cpus")
    print(
        f"scenario: 2 ranks gloo, {a.steps} steps, checkpoint every {a.ckpt_every}, rank 1 "
        f"stalls before step {a.fault_step}, PG timeout {a.pg_timeout} s, launchx backoff 0"
    )
    print(f"median step time (toy, no fault): {step_s * 1000:.1f} ms")
    print()
    print("launchx")
    print(f"  cold start -> first step          {cold:7.2f} s")
    print(f"  failure detected ({category}) {failure.t - stall.t:7.2f} s after the stall began")
    print(f"  failure line -> first step again  {recovery:7.2f} s")
    print(f"  recovery / cold start             {recovery / cold:7.2f}   (aim <= 1.2)")
    print(
        f"  steps lost                        {lost:7d}     (last step {max(before)}, resumed "
        f"at {resumed_step}; interval {a.ckpt_every})"
    )
    print(f"  wall, no fault / with fault       {lx_cold.wall_s:7.2f} s / {lx.wall_s:.2f} s")
    print()
    print("torchrun --standalone --max-restarts 3 (restarts from step 0)")
    print(f"  cold start -> first step          {time_to_first_step(tr_cold):7.2f} s")
    if tr_fail is not None and restart_step is not None:
        print(f"  failure line -> first step again  {restart_step[0] - tr_fail.t:7.2f} s")
    print(f"  steps lost                        {tr_lost:7d}")
    print(f"  wall, no fault / with fault       {tr_cold.wall_s:7.2f} s / {tr.wall_s:.2f} s")
    print(f"  {torchrun_outcome(tr)}")
    if tr_resume is not None:
        print(f"  with the script resuming itself   {tr_resume.wall_s:7.2f} s wall")
        print(f"  {torchrun_outcome(tr_resume)}")
    print()
    print(f"wall with fault, launchx / torchrun: {lx.wall_s / tr.wall_s:.2f}")
    print(f"wall without fault, launchx / torchrun: {lx_cold.wall_s / tr_cold.wall_s:.2f}")
    print(
        f"time to redo lost steps at the toy's step time: launchx {lost * step_s:.2f} s, "
        f"torchrun {tr_lost * step_s:.2f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
