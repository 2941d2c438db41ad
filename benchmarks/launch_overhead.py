"""Launch overhead: ``launchx run`` against plain ``torchrun`` on the same no-op job.

    .venv/bin/python benchmarks/launch_overhead.py [--pairs 7] [--nproc 2] [--breakdown 3]

Each pair runs ``launchx run -p local --nproc-per-node N examples/noop.py`` and
``python -m torch.distributed.run --standalone --nproc-per-node N examples/noop.py``
back to back, the order alternating between pairs so neither side always gets the warmer
page cache. Reported: the median wall time of each, the ratio of the medians (target
<= 1.10), and the median of the per-pair ratios (less sensitive to load that drifts
during the run).

``--breakdown K`` then runs launchx K more times with timestamps taken inside it (the
same code path, instrumented from outside: ``subprocess.Popen`` and
``launchx.run.attempts.run_process`` are wrapped in the child), to say where launchx's own
time goes: start-up before it spawns torchrun, torchrun itself, the clean-up inside
``run_process`` after torchrun exits (orphan reaping, pump join), and what follows
(summary, interpreter exit). CLOCK_MONOTONIC is system-wide on Linux, so stamps taken in
different processes compare.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _env import clean_env

ROOT = Path(__file__).resolve().parent.parent
NOOP = ROOT / "examples" / "noop.py"

# Runs launchx's real CLI with two seams wrapped, writing monotonic stamps to a JSON file.
PROBE = r"""
import json, subprocess, sys, time
stamps = {}
real_popen = subprocess.Popen

class Popen(real_popen):
    def __init__(self, *a, **k):
        stamps.setdefault("spawn", time.monotonic())
        super().__init__(*a, **k)

    def wait(self, timeout=None):
        code = super().wait(timeout)
        stamps.setdefault("child_reaped", time.monotonic())
        return code

subprocess.Popen = Popen
from launchx.run import attempts
real_run_process = attempts.run_process

def run_process(*a, **k):
    result = real_run_process(*a, **k)
    stamps["run_process_returned"] = time.monotonic()
    return result

attempts.run_process = run_process
import atexit
stamp_file = sys.argv[1]
atexit.register(lambda: json.dump(stamps, open(stamp_file, "w")))
sys.argv = ["launchx", *sys.argv[2:]]
from launchx.cli import main
main()
"""


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{argv[:4]} failed ({proc.returncode}):\n{proc.stdout.decode(errors='replace')}")
    return elapsed


def commands(nproc: int) -> tuple[list[str], list[str]]:
    py = sys.executable
    launchx = [py, "-m", "launchx", "run", "-p", "local", "--nproc-per-node", str(nproc), str(NOOP)]
    torchrun = [
        py,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc-per-node",
        str(nproc),
        str(NOOP),
    ]
    return launchx, torchrun


def breakdown(nproc: int, runs: int, env: dict[str, str]) -> list[dict[str, float]]:
    out: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            stamp_file = Path(tmp) / f"stamps{i}.json"
            argv = [
                sys.executable,
                "-c",
                PROBE,
                str(stamp_file),
                "run",
                "-p",
                "local",
                "--nproc-per-node",
                str(nproc),
                str(NOOP),
            ]
            start = time.monotonic()
            proc = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            end = time.monotonic()
            if proc.returncode != 0:
                sys.exit(f"probe failed:\n{proc.stdout.decode(errors='replace')}")
            s = json.loads(stamp_file.read_text())
            out.append(
                {
                    "startup_s": s["spawn"] - start,
                    "torchrun_s": s["child_reaped"] - s["spawn"],
                    "cleanup_s": s["run_process_returned"] - s["child_reaped"],
                    "after_s": end - s["run_process_returned"],
                    "total_s": end - start,
                }
            )
    return out


def import_time(env: dict[str, str], runs: int = 5) -> tuple[float, float]:
    """Median wall time of a bare interpreter and of ``import launchx.cli``."""
    bare = [timed([sys.executable, "-c", "pass"], env) for _ in range(runs)]
    cli = [timed([sys.executable, "-c", "import launchx.cli"], env) for _ in range(runs)]
    return statistics.median(bare), statistics.median(cli)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=7, help="launchx/torchrun pairs (>= 5)")
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("--breakdown", type=int, default=3, help="instrumented launchx runs")
    args = parser.parse_args()
    if args.pairs < 5:
        parser.error("--pairs must be at least 5")
    env = clean_env()
    launchx, torchrun = commands(args.nproc)
    timed(torchrun, env)  # warm the page cache for both sides alike
    lx_times: list[float] = []
    tr_times: list[float] = []
    for i in range(args.pairs):
        order = [(launchx, lx_times), (torchrun, tr_times)]
        for argv, sink in order if i % 2 == 0 else reversed(order):
            sink.append(timed(argv, env))
        print(
            f"pair {i + 1}: launchx {lx_times[-1]:.3f}s  torchrun {tr_times[-1]:.3f}s", flush=True
        )
    lx, tr = statistics.median(lx_times), statistics.median(tr_times)
    pair_ratio = statistics.median(a / b for a, b in zip(lx_times, tr_times, strict=True))
    print()
    print(f"load average at end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cpus")
    print(f"median launchx  : {lx:.3f}s")
    print(f"median torchrun : {tr:.3f}s")
    print(f"ratio of medians: {lx / tr:.3f}  (target <= 1.10)")
    print(f"median per-pair ratio: {pair_ratio:.3f}")
    print(f"overhead: {lx - tr:+.3f}s")
    if args.breakdown > 0:
        bare, cli = import_time(env)
        print()
        print(f"python -c pass: {bare:.3f}s   python -c 'import launchx.cli': {cli:.3f}s")
        rows = breakdown(args.nproc, args.breakdown, env)
        keys = ("startup_s", "torchrun_s", "cleanup_s", "after_s", "total_s")
        print("instrumented launchx runs (median of each phase):")
        for key in keys:
            print(f"  {key:<10} {statistics.median(r[key] for r in rows):.3f}s")
        print(
            "  startup = launchx start -> torchrun spawned; torchrun = spawn -> torchrun "
            "reaped;\n  cleanup = reaped -> run_process returns (orphan reaping, pump join); "
            "after = summary + exit"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
