"""How long ``launchx explain`` takes to start, against the libraries it is built on.

Prints the median wall time of ``launchx explain -p ib-h800`` (as ``python -m launchx`` and as
the console script) divided by the median of ``python -c 'import typer, pydantic, yaml,
rich.table'`` measured in the same run, alternating the commands so a noisy neighbour slows
all of them alike. Target: a ratio of at most 1.5. Then the top ``-X importtime`` offenders
of ``import launchx.cli`` by self time, and optionally (``--cprofile``) where the command
itself spends its time after the imports.

    .venv/bin/python benchmarks/cli_startup.py [--runs 21] [--host-tree ib-h800-8gpu]

A ratio, not a timed assertion: absolute numbers depend on the machine; the ratio against
the floor of our own dependencies is what our code adds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.5
BASELINE_IMPORTS = "import typer, pydantic, yaml, rich.table"


def _env(host_tree: str | None) -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER")
    env = {k: v for k, v in os.environ.items() if k in keep}
    if host_tree:
        env["LAUNCHX_HOST_ROOT"] = str(ROOT / "tests" / "hosts" / host_tree)
        env["MASTER_ADDR"] = "10.0.0.11"
    return env


def _console_script() -> str | None:
    beside = Path(sys.executable).parent / "launchx"
    if beside.exists():
        return str(beside)
    return shutil.which("launchx")


def _time_once(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - start
    # explain exits 2 when it reports an error finding (e.g. no GPU on this host): still a
    # complete run. Anything else (a crash) would make the number meaningless.
    if proc.returncode not in (0, 2) or "Traceback" in proc.stderr:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr}")
    return elapsed


def measure(
    commands: dict[str, list[str]], env: dict[str, str], runs: int
) -> dict[str, list[float]]:
    """Run every command ``runs`` times, round-robin, after one warm-up each."""
    for argv in commands.values():
        _time_once(argv, env)  # page cache and .pyc files warm for everyone
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            times[name].append(_time_once(argv, env))
    return times


def import_offenders(env: dict[str, str], top: int) -> list[tuple[int, int, str]]:
    """(self us, cumulative us, module) of ``import launchx.cli``, largest self time first."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import launchx.cli"],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    rows: list[tuple[int, int, str]] = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cumulative, name = line[len("import time:") :].split("|")
        rows.append((int(self_us), int(cumulative), name.strip()))
    rows.sort(reverse=True)
    return rows[:top]


def cprofile_run(env: dict[str, str], argv: list[str], top: int) -> str:
    """cProfile of the command after ``import launchx.cli`` (import time shown separately)."""
    code = (
        "import cProfile, io, pstats, sys, time\n"
        "t0 = time.perf_counter()\n"
        "import launchx.cli\n"
        "t1 = time.perf_counter()\n"
        f"sys.argv = ['launchx', *{argv!r}]\n"
        "prof = cProfile.Profile()\n"
        "prof.enable()\n"
        "try:\n"
        "    launchx.cli.main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "prof.disable()\n"
        "t2 = time.perf_counter()\n"
        "out = io.StringIO()\n"
        f"pstats.Stats(prof, stream=out).sort_stats('cumulative').print_stats({top})\n"
        "print(f'import launchx.cli: {1000 * (t1 - t0):.1f} ms; '\n"
        "      f'command (under cProfile): {1000 * (t2 - t1):.1f} ms', file=sys.stderr)\n"
        "print(out.getvalue(), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT
    )
    return proc.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="runs per command (min 11)")
    parser.add_argument(
        "--host-tree",
        default=None,
        help="a recorded host under tests/hosts/ to detect instead of this machine",
    )
    parser.add_argument("--top", type=int, default=15, help="import offenders to list")
    parser.add_argument("--cprofile", action="store_true", help="also profile the command")
    args = parser.parse_args()
    runs = max(11, args.runs)
    env = _env(args.host_tree)

    explain = ["explain", "-p", "ib-h800"]
    commands = {
        "baseline": [sys.executable, "-c", BASELINE_IMPORTS],
        "python -m launchx": [sys.executable, "-m", "launchx", *explain],
    }
    script = _console_script()
    if script:
        commands["console script"] = [script, *explain]
    times = measure(commands, env, runs)

    base = statistics.median(times["baseline"])
    where = f"host tree {args.host_tree}" if args.host_tree else "this host"
    print(f"launchx explain -p ib-h800 start-up ({runs} runs each, alternating, {where})")
    print(f"  {'command':<20} {'median':>9} {'min':>9} {'max':>9}  ratio to baseline")
    worst = 0.0
    for name, samples in times.items():
        median = statistics.median(samples)
        ratio = median / base
        if name != "baseline":
            worst = max(worst, ratio)
        print(
            f"  {name:<20} {1000 * median:>7.1f}ms {1000 * min(samples):>7.1f}ms "
            f"{1000 * max(samples):>7.1f}ms  {ratio:.2f}x"
        )
    print(f"  baseline = python -c '{BASELINE_IMPORTS}'")
    verdict = "OK" if worst <= TARGET else "ABOVE TARGET"
    print(f"ratio: {worst:.2f}x (target <= {TARGET}x): {verdict}")

    print(f"\nimport launchx.cli: top {args.top} modules by self time (-X importtime)")
    print(f"  {'self ms':>8} {'cumul ms':>9}  module")
    for self_us, cumulative, name in import_offenders(env, args.top):
        print(f"  {self_us / 1000:>8.1f} {cumulative / 1000:>9.1f}  {name}")

    if args.cprofile:
        print("\ncProfile of the command (after imports):")
        print(cprofile_run(env, explain, 30))


if __name__ == "__main__":
    main()
