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
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.5
BASELINE_IMPORTS = "import typer, pydantic, yaml, rich.table"
PYDANTIC_MODEL = "\nclass M(pydantic.BaseModel):\n    x: int = 1\nM.model_validate({'x': 2})"


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


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _time_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run; CPU time barely moves when other jobs share the cores,
    so it is printed next to wall time as the steadier number on a busy machine."""
    cpu = _children_cpu()
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - start
    cpu = _children_cpu() - cpu
    # explain exits 2 when it reports an error finding (e.g. no GPU on this host): still a
    # complete run. Anything else (a crash) would make the number meaningless.
    if proc.returncode not in (0, 2) or "Traceback" in proc.stderr:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr}")
    return elapsed, cpu


def measure(
    commands: dict[str, list[str]], env: dict[str, str], runs: int
) -> dict[str, list[tuple[float, float]]]:
    """Run every command ``runs`` times, round-robin, after one warm-up each."""
    for argv in commands.values():
        _time_once(argv, env)  # page cache and .pyc files warm for everyone
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            times[name].append(_time_once(argv, env))
    return times


def _importtime(env: dict[str, str], code: str) -> list[tuple[int, int, str]]:
    """(self us, cumulative us, module) for every module ``code`` imports."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
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
    return rows


def import_offenders(env: dict[str, str], top: int) -> list[tuple[int, int, str]]:
    """(self us, cumulative us, module) of ``import launchx.cli``, largest self time first."""
    return sorted(_importtime(env, "import launchx.cli"), reverse=True)[:top]


def import_delta(env: dict[str, str]) -> list[tuple[str, int, int]]:
    """Self time of the modules ``import launchx.cli`` loads beyond the baseline's, summed
    per top-level package: (package, modules, self us), largest first. Medians of 5 runs
    per module, because one -X importtime run on a shared machine is noisy."""
    base = {name for _s, _c, name in _importtime(env, BASELINE_IMPORTS)}
    samples: dict[str, list[int]] = {}
    for _ in range(5):
        for self_us, _c, name in _importtime(env, "import launchx.cli"):
            if name not in base:
                samples.setdefault(name, []).append(self_us)
    per_package: dict[str, tuple[int, int]] = {}
    for name, values in samples.items():
        package = name.split(".")[0]
        if package == "launchx" or package == "pydantic":
            package = ".".join(name.split(".")[:2]) if package == "launchx" else package
        count, total = per_package.get(package, (0, 0))
        per_package[package] = (count + 1, total + int(statistics.median(values)))
    rows = [(package, count, total) for package, (count, total) in per_package.items()]
    return sorted(rows, key=lambda r: r[2], reverse=True)


STAGES = """
import sys, time
t = [time.perf_counter()]
import launchx.cli
t.append(time.perf_counter())
from launchx import pipeline, plan, render
from launchx.findings import sort_findings
req = pipeline.Request(profile="ib-h800")
environ = dict(__import__("os").environ)
loaded = pipeline.load("ib-h800", environ, __import__("pathlib").Path.cwd())
t.append(time.perf_counter())
facts = pipeline.gather_facts(environ, ["auto"], ["auto"])
t.append(time.perf_counter())
res = pipeline.resolve_request(req, facts)
t.append(time.perf_counter())
decision = plan.decide_launcher(res)
found = sort_findings([*res.findings, *decision.findings, *plan.gpu_findings(res),
                       *plan.decide_port(res).findings])
t.append(time.perf_counter())
render.explain_table(res, decision, found)
t.append(time.perf_counter())
names = ["import launchx.cli", "load profile (first)", "detect.gather",
         "load + resolve", "plan decisions", "render table"]
for name, a, b in zip(names, t, t[1:]):
    print(f"{1000 * (b - a):8.1f} ms  {name}")
"""


def stage_times(env: dict[str, str]) -> str:
    """Wall time of each stage of ``explain``, in-process, median of 5 fresh interpreters."""
    runs: list[list[tuple[float, str]]] = []
    for _ in range(5):
        proc = subprocess.run(
            [sys.executable, "-c", STAGES], env=env, capture_output=True, text=True, cwd=ROOT
        )
        if proc.returncode != 0:
            return proc.stderr
        rows = [line.split(" ms  ") for line in proc.stdout.splitlines()]
        runs.append([(float(ms), name) for ms, name in rows])
    lines = []
    for i, (_ms, name) in enumerate(runs[0]):
        lines.append(f"  {statistics.median(r[i][0] for r in runs):8.1f} ms  {name}")
    return "\n".join(lines)


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
    parser.add_argument(
        "--detail",
        action="store_true",
        help="also: imports beyond the baseline per package, and time per explain stage",
    )
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
    if args.detail:
        # Where the gap comes from: `import pydantic` is lazy (pydantic 2 loads BaseModel on
        # first use), so the baseline leaves out the model machinery launchx cannot avoid.
        commands["+ pydantic model"] = [sys.executable, "-c", BASELINE_IMPORTS + PYDANTIC_MODEL]
        commands["import launchx.cli"] = [sys.executable, "-c", "import launchx.cli"]
    times = measure(commands, env, runs)

    base_wall = statistics.median(w for w, _c in times["baseline"])
    base_cpu = statistics.median(c for _w, c in times["baseline"])
    where = f"host tree {args.host_tree}" if args.host_tree else "this host"
    load = os.getloadavg()[0]
    print(f"launchx explain -p ib-h800 start-up ({runs} runs each, alternating, {where})")
    print(f"  load average at start: {load:.2f} on {os.cpu_count()} CPUs")
    head = f"  {'command':<18} {'wall med':>9} {'wall min':>9} {'ratio':>6}"
    print(f"{head}   {'CPU med':>8} {'ratio':>6}")
    worst = 0.0
    for name, samples in times.items():
        wall = statistics.median(w for w, _c in samples)
        cpu = statistics.median(c for _w, c in samples)
        ratio = wall / base_wall
        if name in ("python -m launchx", "console script"):
            worst = max(worst, ratio)
        print(
            f"  {name:<18} {1000 * wall:>7.1f}ms {1000 * min(w for w, _c in samples):>7.1f}ms "
            f"{ratio:>5.2f}x   {1000 * cpu:>6.1f}ms {cpu / base_cpu:>5.2f}x"
        )
    print(f"  baseline = python -c '{BASELINE_IMPORTS}'")
    if args.detail:
        print("  + pydantic model = the baseline plus one 1-field BaseModel validated once")
    verdict = "OK" if worst <= TARGET else "ABOVE TARGET"
    print(f"ratio (wall, worst launchx form): {worst:.2f}x (target <= {TARGET}x): {verdict}")

    print(f"\nimport launchx.cli: top {args.top} modules by self time (-X importtime)")
    print(f"  {'self ms':>8} {'cumul ms':>9}  module")
    for self_us, cumulative, name in import_offenders(env, args.top):
        print(f"  {self_us / 1000:>8.1f} {cumulative / 1000:>9.1f}  {name}")

    if args.detail:
        print("\nmodules imported beyond the baseline, self time summed per package")
        print(f"  {'self ms':>8} {'modules':>8}  package")
        for package, count, total in import_delta(env)[: args.top]:
            print(f"  {total / 1000:>8.1f} {count:>8}  {package}")
        print("\nexplain's stages in-process (median of 5 interpreters)")
        print(stage_times(env))

    if args.cprofile:
        print("\ncProfile of the command (after imports):")
        print(cprofile_run(env, explain, 30))


if __name__ == "__main__":
    main()
