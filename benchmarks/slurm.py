"""What launchx costs on SLURM: rendering for a big allocation, and launching under srun.

(a) Pure work, no cluster needed: expanding a 4096-node ``SLURM_JOB_NODELIST``
    (``launchx.hostlist.expand``; a contiguous range, a rack x node product and a
    fragmented list of 4096 single numbers) and rendering the batch script for
    ``--nodes 4096`` (``merge_options`` + ``frozen_profile_yaml`` + ``render_sbatch``, what
    ``launchx sbatch`` does after loading the profile). Median milliseconds of many runs.

(b) On the local cluster (``scripts/slurm-local.sh``), inside ONE 2-node allocation
    (``salloc -N2 --ntasks-per-node=1``), the same 2-task job launched two ways, alternated
    (the order flips every pair, so drift and warm caches hit both alike):

    per_task  raw:     the srun step launchx itself plans (``launchx run --dry-run --json``:
                       ``srun --nodes=2 --kill-on-bad-exit=1 --ntasks-per-node=1 python -m
                       launchx.task -- python examples/noop.py``) with the planned environment
              launchx: ``launchx run -p slurm --set slurm.mode=per_task --nproc-per-node 1
                       examples/noop.py``, which runs exactly that step
              So the ratio is launchx's own cost: start, resolve, plan, supervise, exit.
    per_node  raw:     ``srun --nodes=2 --ntasks-per-node=1`` of torchrun with the same static
                       rendezvous launchx uses (node rank from ``$SLURM_NODEID``)
              launchx: ``launchx run -p slurm examples/noop.py``: srun starts one launchx per
                       node, and each starts torchrun
              So the ratio adds the per-node launchx (one more python start) to the above.

    Each run must end with ``[noop] world=2 ok``. Printed: the median seconds of each
    command, the ratio of the medians and the median of the per-pair ratios.

    .venv/bin/python benchmarks/slurm.py [--pairs 5] [--mode per_task|per_node|both] [--runs 201]

Without a usable cluster, (b) is skipped with the reason and how to start one; (a) still
runs. A ratio, not a timed assertion: absolute numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOOP = ROOT / "examples" / "noop.py"
PY = sys.executable
NODES = 4096
START_HINT = "start it with: sudo scripts/slurm-local.sh start"
INSIDE_FLAG = "--inside-allocation"
_USABLE = {"idle", "mix", "mixed", "alloc", "allocated", "comp", "completing"}


# --------------------------------------------------------------------------- (a) pure


def _median_ms(fn: Callable[[], object], runs: int) -> float:
    fn()  # warm up: imports, regex compilation
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def nodelists() -> dict[str, str]:
    """Three 4096-host lists of the shapes SLURM writes."""
    single = ",".join(f"{n:05d}" for n in range(1, 2 * NODES, 2))
    return {
        "contiguous gpu[0001-4096]": f"gpu[0001-{NODES:04d}]",
        "product rack[01-64]-n[01-64]": "rack[01-64]-n[01-64]",
        "fragmented gpu[00001,00003,...] (4096 items)": f"gpu[{single}]",
    }


def bench_pure(runs: int) -> None:
    from launchx.hostlist import expand
    from launchx.profiles import load
    from launchx.slurm import frozen_profile_yaml, merge_options, render_sbatch

    print(f"(a) pure work for a {NODES}-node allocation, median of {runs} runs")
    for label, nodelist in nodelists().items():
        hosts = expand(nodelist)
        assert len(hosts) == NODES, (label, len(hosts))
        ms = _median_ms(functools.partial(expand, nodelist), runs)
        print(f"  expand {label:<46} {ms:8.3f} ms")

    profile = load("slurm", {}, ROOT).profile
    flags = dict(
        nodes=NODES,
        gpus_per_node=8,
        time="2-00:00:00",
        partition="gpu",
        job_name="big run",
        output="logs/%x-%j.out",
        sbatch_args=("--exclusive", "--constraint=h800"),
    )

    def render() -> str:
        opts, _ = merge_options(profile.slurm, flags, profile_name=profile.name)
        return render_sbatch(
            options=opts,
            profile_name=profile.name,
            frozen_profile_yaml=frozen_profile_yaml(profile, opts),
            launchx_argv=("--max-retries", "3"),
            script_argv=("train.py", "--lr", "1e-3", "--data", "/data/a b"),
            version="bench",
            command_line="launchx sbatch -p slurm --nodes 4096 train.py",
            python=PY,
        )

    assert f"#SBATCH --nodes={NODES}" in render()
    print(
        f"  render sbatch script (merge + freeze + render)       {_median_ms(render, runs):8.3f} ms"
    )


# --------------------------------------------------------------------------- (b) cluster


def _run(argv: Sequence[str], timeout: float = 20) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout, check=False)


def cluster_problem(nodes_needed: int = 2) -> str | None:
    """Why the local cluster cannot run (b), or None."""
    for tool in ("scontrol", "sinfo", "srun", "salloc"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    try:
        ping = _run(["scontrol", "ping"])
        if ping.returncode != 0 or "UP" not in ping.stdout:
            said = (ping.stdout + ping.stderr).strip().splitlines()
            return f"slurmctld does not answer ({said[0] if said else 'no output'})"
        info = _run(["sinfo", "-h", "-N", "-o", "%N %T"])
    except subprocess.TimeoutExpired:
        return "scontrol/sinfo did not answer within 20 s"
    usable = {
        name
        for name, _, state in (line.partition(" ") for line in info.stdout.splitlines())
        if state.strip().lower().rstrip("*~#!%$@^-+") in _USABLE
    }
    if len(usable) < nodes_needed:
        return f"{len(usable)} usable node(s), {nodes_needed} needed (LAUNCHX_SLURM_NODES=2)"
    return None


def _clean_env() -> dict[str, str]:
    """The allocation's SLURM variables plus the basics; no launcher's variables. TMPDIR is
    the scratch directory, so launchx's default logs stay in it too."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER")
    return {k: v for k, v in os.environ.items() if k in keep or k.startswith("SLURM_")}


def _launchx(*args: str) -> list[str]:
    return [PY, "-m", "launchx", "run", "-p", "slurm", *args]


def _plan(args: Sequence[str], env: dict[str, str]) -> dict[str, object]:
    proc = subprocess.run(
        _launchx(*args, "--dry-run", "--json", str(NOOP)),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"launchx run --dry-run failed ({proc.returncode}):\n{proc.stderr}")
    plan: dict[str, object] = json.loads(proc.stdout)
    return plan


def _planned_env(plan: dict[str, object], env: dict[str, str]) -> dict[str, str]:
    out = dict(env)
    entries = plan["env"]
    assert isinstance(entries, dict)
    for name, entry in entries.items():
        if entry["value"] is None:
            out.pop(name, None)
        else:
            out[name] = entry["value"]
    return out


def commands(mode: str, env: dict[str, str]) -> dict[str, tuple[list[str], dict[str, str]]]:
    """The raw and the launchx command of one pair, each with its environment."""
    if mode == "per_task":
        args = ["--set", "slurm.mode=per_task", "--nproc-per-node", "1"]
        plan = _plan(args, env)
        argv = plan["argv"]
        assert isinstance(argv, list) and argv[0] == "srun", argv
        return {
            "raw srun": ([str(a) for a in argv], _planned_env(plan, env)),
            "launchx run": (_launchx(*args, str(NOOP)), env),
        }
    plan = _plan(["--launcher", "srun"], env)
    addr, _, port = str(plan["master"]).rpartition(":")
    torchrun = [PY, "-m", "torch.distributed.run", "--nnodes", "2", "--nproc-per-node", "1"]
    torchrun += ["--node-rank", '"$SLURM_NODEID"', "--master-addr", addr, "--master-port", port]
    torchrun += ["--max-restarts", "0", str(NOOP)]
    shell = "exec " + " ".join(a if a.startswith('"$') else shlex.quote(a) for a in torchrun)
    raw = ["srun", "--nodes=2", "--kill-on-bad-exit=1", "--ntasks-per-node=1", "bash", "-c", shell]
    return {
        "raw srun+torchrun": (raw, _planned_env(plan, env)),
        "launchx run": (_launchx(str(NOOP)), env),
    }


def _time_once(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0 or "[noop] world=2 ok" not in proc.stdout:
        raise SystemExit(
            f"{shlex.join(argv)} failed ({proc.returncode}):\n{proc.stdout[-2000:]}"
            f"\n{proc.stderr[-2000:]}"
        )
    return elapsed


def bench_launch(mode: str, pairs: int) -> None:
    env = _clean_env()
    cmds = commands(mode, env)
    (raw_name, raw), (lx_name, lx) = cmds.items()
    print(f"\n(b) {mode}: 2 nodes x 1 task, {pairs} alternated pairs, job {env['SLURM_JOB_ID']}")
    for name, (argv, _) in cmds.items():
        print(f"  {name}: {shlex.join(argv)}")
    _time_once(*raw)  # warm-up of both: page cache, first srun of the allocation
    _time_once(*lx)
    times: dict[str, list[float]] = {raw_name: [], lx_name: []}
    for i in range(pairs):
        order = [(raw_name, raw), (lx_name, lx)]
        for name, (argv, cmd_env) in order if i % 2 == 0 else reversed(order):
            times[name].append(_time_once(argv, cmd_env))
    med = {name: statistics.median(t) for name, t in times.items()}
    ratios = [b / a for a, b in zip(times[raw_name], times[lx_name], strict=True)]
    for name, t in times.items():
        print(f"  {name:<18} median {med[name]:6.3f} s   runs: {', '.join(f'{x:.2f}' for x in t)}")
    print(
        f"  ratio launchx/raw: {med[lx_name] / med[raw_name]:.3f} (medians), "
        f"{statistics.median(ratios):.3f} (median of per-pair ratios); "
        f"launchx adds {med[lx_name] - med[raw_name]:+.3f} s"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=201, help="runs of each pure measurement")
    parser.add_argument("--pairs", type=int, default=5, help="alternated launch pairs (>= 5)")
    parser.add_argument("--mode", choices=("per_task", "per_node", "both"), default="both")
    parser.add_argument(INSIDE_FLAG, action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.pairs < 5:
        parser.error("--pairs must be at least 5")
    modes = ["per_task", "per_node"] if args.mode == "both" else [args.mode]

    if args.inside_allocation:  # re-run of this script by salloc: only (b)
        if os.environ.get("SLURM_NNODES") != "2":
            raise SystemExit(
                f"expected a 2-node allocation, SLURM_NNODES={os.environ.get('SLURM_NNODES')}"
            )
        for mode in modes:
            bench_launch(mode, args.pairs)
        return 0

    bench_pure(args.runs)
    why = cluster_problem()
    if why is not None:
        print(f"\n(b) skipped: local SLURM cluster not available: {why}; {START_HINT}")
        return 0
    salloc = ["salloc", "--nodes=2", "--ntasks-per-node=1", "--immediate=60", "--time=30"]
    salloc += ["--job-name=launchx-bench-slurm", "--quiet"]
    inner = [PY, str(Path(__file__).resolve()), INSIDE_FLAG, "--pairs", str(args.pairs)]
    inner += ["--mode", args.mode]
    # launchx writes .launchx/<job id>/ under the submit directory and its logs under
    # TMPDIR: both go to a scratch directory, never into the checkout.
    with tempfile.TemporaryDirectory(prefix="launchx-bench-slurm-") as scratch:
        env = dict(os.environ, TMPDIR=scratch)
        proc = subprocess.run([*salloc, *inner], cwd=scratch, env=env, check=False)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
