"""How fast the hang watcher names a stuck rank, and what it costs a healthy run.

    .venv/bin/python benchmarks/hang.py [--timeout 10] [--seconds 120] [--window 4]

Two ranks on the CPU (gloo) under plain ``torchrun``, watched by ``launchx.watch.Monitor``
exactly as the run loop will drive it (one sample a second, console lines fed to
``note_line``). Nothing is asserted: numbers, with the machine's load average beside them.

1. **Detection latency** after the stall, for each scenario: from the moment the stuck
   rank stalls (it writes the wall time into ``stall.<rank>`` or prints a line we stamp)
   to the ``hang`` event, minus the hang timeout. Goal: <= hang timeout + 10 s.
   Scenarios: ``examples/train_toy.py --stall-at-step`` (DDP: rank 1 sleeps, rank 0 waits
   in backward's all-reduce), and tests/fixtures/watch/ranks.py ``block`` (an Event no one
   sets) and ``lock`` (a native lock wait). Reference points: NCCL's watchdog fires
   after the process-group timeout (600 s by default, 1,800 s in launchx's profiles);
   NVRx's heartbeat defaults need 60-90 s and code changes.
2. **Overhead** on a healthy run's step time, side by side in one run: the toy trains for
   ``--seconds`` while the watcher is switched on and off every ``--window`` seconds; the
   step time of each 50-step interval (from the arrival times of its ``step N`` lines)
   counts for the state it ran in. Separate runs on a shared 2-core machine differ by
   tens of percent from one start to the next; alternating windows inside one run cancel
   that. Also printed: the CPU time the watcher's own ticks take (load-independent).
   Goal: <= 1 %.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from _env import clean_env

from launchx.execute import signal_tree
from launchx.watch.monitor import HangReport, Monitor
from launchx.watch.policy import HangPolicy

ROOT = Path(__file__).resolve().parent.parent
TOY = ROOT / "examples" / "train_toy.py"
RANKS = ROOT / "tests" / "fixtures" / "watch" / "ranks.py"
STEP = re.compile(r"\[toy\] step (\d+) loss")


@dataclass
class Result:
    lines: list[tuple[float, str]] = field(default_factory=list)  # (wall time, line)
    hang_at: float | None = None  # wall time of the hang event
    report: HangReport | None = None
    exit_code: int | None = None


class TimedMonitor(Monitor):
    """The monitor, counting the CPU time its ticks take (load-independent cost)."""

    cpu_s = 0.0

    def tick(self):  # type: ignore[no-untyped-def]
        start = time.thread_time()
        try:
            return super().tick()
        finally:
            self.cpu_s += time.thread_time() - start


def run(argv: list[str], cwd: Path, *, timeout_s: float | None, deadline_s: float) -> Result:
    """Start torchrun ``argv``; watch it when ``timeout_s`` is given."""
    env = clean_env(TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE="[r${rank}]: ")
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]
    proc = subprocess.Popen(
        [*cmd, *argv],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    res = Result()
    monitor: Monitor | None = None
    if timeout_s is not None:

        def on_event(event: dict[str, object]) -> None:
            if event["event"] == "hang":
                res.hang_at = time.time()

        monitor = TimedMonitor(
            proc.pid,
            HangPolicy(mode="fixed", timeout_s=timeout_s),
            cwd / "logs",
            on_event=on_event,
            on_hang=lambda r: setattr(res, "report", r),
        )

    def pump() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            line = raw.decode(errors="replace").rstrip("\n")
            res.lines.append((time.time(), line))
            if monitor is not None:
                monitor.note_line(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    if monitor is not None:
        monitor.start()
    end = time.monotonic() + deadline_s
    try:
        while proc.poll() is None and res.report is None and time.monotonic() < end:
            time.sleep(0.05)
    finally:
        if monitor is not None:
            monitor.stop()
        signal_tree(proc.pid, signal.SIGKILL)
        proc.wait()
        reader.join(timeout=5)
    res.exit_code = proc.returncode
    return res


def latency(name: str, argv: list[str], timeout_s: float, stall_mark: str) -> tuple[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        res = run(argv, cwd, timeout_s=timeout_s, deadline_s=timeout_s + 120)
        stall_file = cwd / "stall.1"
        if stall_file.is_file():
            stalled = float(stall_file.read_text())
        else:
            stalled = next((t for t, line in res.lines if stall_mark in line), float("nan"))
        if res.hang_at is None or res.report is None:
            print(f"  {name:<34} no hang reported (exit {res.exit_code})")
            return name, float("nan")
        after = res.hang_at - stalled
        odd = ",".join(map(str, res.report.hang.odd)) or "-"
        print(
            f"  {name:<34} named rank(s) {odd:<4} {after:6.1f} s after the stall "
            f"= timeout + {after - timeout_s:4.1f} s"
        )
        return name, after


class PausableMonitor(TimedMonitor):
    """Watches only while ``active``: the benchmark switches it on and off inside one run."""

    active = True

    def tick(self):  # type: ignore[no-untyped-def]
        if not self.active:
            return None
        return super().tick()


def overhead(seconds: float, window_s: float, sample_s: float = 1.0) -> None:
    """One long healthy run; the watcher alternates between on and off every
    ``window_s``; each logged interval's step time is credited to the state it ran in."""
    steps = 1_000_000
    argv = [str(TOY), "--steps", str(steps), "--log-every", "50", "--ckpt-every", "10000000"]
    env = clean_env(TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE="[r${rank}]: ")
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(
            [*cmd, *argv, "--checkpoint-dir", str(Path(tmp) / "ck")],
            cwd=tmp,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        monitor = PausableMonitor(
            proc.pid,
            HangPolicy(mode="fixed", timeout_s=60.0),
            Path(tmp) / "logs",
            sample_s=sample_s,
        )
        # (arrival time, step, watcher on?) for each logged step
        marks: list[tuple[float, int, bool]] = []

        def pump() -> None:
            assert proc.stdout is not None
            for raw in proc.stdout:
                line = raw.decode(errors="replace").rstrip("\n")
                monitor.note_line(line)
                m = STEP.search(line)
                if m:
                    marks.append((time.monotonic(), int(m.group(1)), monitor.active))

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        monitor.start()
        try:
            while not marks and proc.poll() is None:
                time.sleep(0.05)
            begin = time.monotonic()
            switch = begin + window_s
            cpu_on = 0.0
            while time.monotonic() - begin < seconds and proc.poll() is None:
                time.sleep(0.05)
                if time.monotonic() >= switch:
                    monitor.active = not monitor.active
                    switch += window_s
            on_wall = seconds / 2
            cpu_on = monitor.cpu_s
        finally:
            monitor.stop()
            signal_tree(proc.pid, signal.SIGKILL)
            proc.wait()
            reader.join(timeout=5)
    on: list[float] = []
    off: list[float] = []
    for (t0, s0, a0), (t1, s1, a1) in itertools.pairwise(marks):
        if a0 == a1 and s1 > s0:  # an interval wholly inside one window
            (on if a1 else off).append((t1 - t0) / (s1 - s0))
    if not on or not off:
        print("  not enough steps logged")
        return
    m_on, m_off = statistics.median(on), statistics.median(off)
    print(
        f"  {len(on) + len(off)} intervals of 50 steps, watcher on/off every {window_s:g} s "
        f"for {seconds:g} s in one run"
    )
    print(
        f"  median step: {m_off * 1e3:.3f} ms watcher off, {m_on * 1e3:.3f} ms on; "
        f"ratio {m_on / m_off:.4f} ({100 * (m_on / m_off - 1):+.2f} %; goal <= 1 %)"
    )
    print(
        f"  mean step: {statistics.fmean(off) * 1e3:.3f} ms off, "
        f"{statistics.fmean(on) * 1e3:.3f} ms on"
    )
    print(
        f"  the watcher's own CPU: {1e3 * cpu_on / on_wall:.2f} ms per second watched "
        f"({100 * cpu_on / on_wall:.3f} % of one core, sampling every {sample_s:g} s; "
        "no stack was sampled)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=10.0, help="hang timeout (s)")
    parser.add_argument("--seconds", type=float, default=120.0, help="overhead run length")
    parser.add_argument("--window", type=float, default=4.0, help="watcher on/off period (s)")
    parser.add_argument(
        "--sample-s", type=float, default=1.0, help="the watcher's sampling period (s)"
    )
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument("--skip-overhead", action="store_true")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()}, {os.cpu_count()} CPUs")
    t = args.timeout
    if not args.skip_latency:
        print(f"detection latency (hang timeout {t:g} s; goal <= timeout + 10 s)")
        toy = [str(TOY), "--steps", "60", "--log-every", "1", "--ckpt-every", "1000000"]
        toy += ["--stall-at-step", "20", "--stall-rank", "1", "--stall-s", "600"]
        results = [
            latency("toy DDP, rank 1 time.sleep", [*toy, "--checkpoint-dir", "ck"], t, "stalling"),
            latency("ranks.py block (Event.wait)", [str(RANKS), "block"], t, "misbehaving"),
            latency("ranks.py lock (native lock)", [str(RANKS), "lock"], t, "misbehaving"),
        ]
        worst = max(after for _n, after in results)
        print(f"  worst: timeout + {worst - t:.1f} s (NCCL watchdog: 600 s default, 1800 s)")
    if not args.skip_overhead:
        print("overhead on a healthy run (the toy, 2 ranks)")
        overhead(args.seconds, args.window, args.sample_s)
    print(f"load average {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
