"""House rule 1, enforced: the pure stages never start processes, open sockets or read the
environment; the CLI never imports torch; the runtime (inside training processes) never
imports planning or the run loop.

Every module of the package is listed here, as pure or as one allowed to touch the world,
so a new or renamed module fails this test until someone decides which it is.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "launchx"

# Functions of their arguments: no processes, sockets, torch or environment.
PURE = {
    "__init__",
    "autovalues",
    "catalog",
    "catalog_data",
    "codes",
    "collectives",  # NCCL watchdog sequence numbers: who fell behind
    "diagnosis",
    "errors",
    "facts",
    "failure_rules",
    "failure_text",
    "failures",
    "findings",
    "flightrec",  # flight-recorder dumps as data (pickles loaded with no class allowed)
    "hostlist",
    "inner_launcher",  # is the command a launcher itself?
    "loglines",
    "logscan",
    "origin",
    "outlines",  # console lines from the launcher's raw output
    "plan",
    "preflight.__init__",
    "preflight.comm",  # the link test as data
    "preflight.compare",  # every node's facts side by side
    "preflight.report",
    "preflight.summary",
    "profile_model",
    "profiles",  # reads profile files, nothing else
    "progress",  # the step a line of output shows
    "render",
    "resolve",
    "rulematch",
    "runview",  # ranks, nodes and attempts of a run combined
    "status",  # a run's state from its events
    "slurm",  # renders batch scripts; running SLURM is slurm_client's
    "run.__init__",
    "run.decide",
    "run.loop",  # only the order of things: every effect goes through a port
    "run.ports",
    "run.livestatus",  # the status and heartbeat text
    "spans",  # 0-4,6: sets of ranks and nodes as text
    "agree",  # the nodes' agreement policy and its wire form
    "run.text",
    "watch.__init__",
    "watch.frames",  # what a stack means
    "watch.model",
    "watch.policy",  # --hang-timeout
    "watch.nodes",  # node summaries and their combination
    "watch.report",
    "watch.verdict",  # hang, straggler or healthy, from evidence
}
# Allowed to touch the world, each for the reason given.
IMPURE = {
    "__main__": "the entry point",
    "channel": "the nodes' authenticated message channel (sockets, threads)",
    "checkpoints": "reads checkpoint directories",
    "cli": "the command line",
    "detect": "reads the host: /sys, /proc, sockets",
    "doctor": "reports on the host",
    "execute": "starts and signals processes",
    "pipeline": "the one reader of the process environment",
    "logsource": "reads log files, directories and stdin",
    "ports": "binds sockets to find a free port",
    "preflight.meet": "the nodes meet at node 0",
    "preflight.sweep": "starts the link test's ranks",
    "preflight.worker": "one rank of the link test (imports torch)",
    "slurm_client": "runs sbatch, scontrol, scancel",
    "task": "the program an srun task runs",
    "sbatch": "resolves the profile on this host for a batch script",
    "run.attempts": "runs attempts as processes",
    "run.events": "appends to and reads the run's events.jsonl",
    "run.watching": "the hang watch of an attempt (its thread)",
    "run.history": "keeps a SLURM job's attempts in a file",
    "run.output": "the console and the per-rank log files",
    "run.nodes": "the live channel between the nodes' launchx (sockets, threads)",
    "run.peers": "talks to the other nodes",
    "run.preflight": "checks the nodes before the first attempt (in-process or an srun step)",
    "run.start": "wires the real world",
    "run.world": "the clock, the console, SLURM, checkpoints, ports",
    "watch.flight": "writes to the ranks' flight-recorder FIFOs",
    "watch.hook": "signals ranks for their faulthandler dumps",
    "watch.monitor": "the watch thread of an attempt",
    "watch.procfs": "reads /proc",
    "watch.stacks": "runs py-spy",
    "watch._hook.sitecustomize": "runs inside each rank (reads its own environment)",
}
RUNTIME = "runtime"  # imported inside training processes: its own rules below
FORBIDDEN_IMPORTS = {"subprocess", "socket", "shutil", "torch", "select", "threading"}


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG).with_suffix("")
        out[".".join(rel.parts)] = path
    return out


def test_every_module_is_classified() -> None:
    modules = {m for m in _modules() if m.split(".")[0] != RUNTIME}
    unknown = sorted(modules - PURE - set(IMPURE))
    assert not unknown, f"classify these as PURE or IMPURE in {__file__}: {unknown}"
    gone = sorted((PURE | set(IMPURE)) - modules)
    assert not gone, f"listed but missing (renamed?): {gone}"


@pytest.mark.parametrize("name", sorted(PURE))
def test_pure_module_has_no_io_imports_or_environ(name: str) -> None:
    path = _modules()[name]
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert alias.name.split(".")[0] not in FORBIDDEN_IMPORTS, (name, alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module:
            assert node.module.split(".")[0] not in FORBIDDEN_IMPORTS, (name, node.module)
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in ("environ", "getenv")
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ):
            pytest.fail(f"{name} reads os.{node.attr} (line {node.lineno})")


def test_only_the_pipeline_reads_the_environment() -> None:
    """Everything downstream of gathering takes a mapping; the entry points of the other
    programs (an srun task, a training rank) read their own once."""
    readers = set()
    for name, path in _modules().items():
        if "os.environ" in path.read_text().replace('os.environ["', "").replace("os.environ['", ""):
            tree = ast.parse(path.read_text())
            if any(
                isinstance(n, ast.Attribute)
                and n.attr == "environ"
                and isinstance(n.value, ast.Name)
                and n.value.id == "os"
                for n in ast.walk(tree)
            ):
                readers.add(name)
    assert readers == {"pipeline", "task", "runtime.env", "watch._hook.sitecustomize"}


def test_cli_import_does_not_import_torch() -> None:
    code = (
        "import sys, launchx.cli, launchx.run.start, launchx.slurm, launchx.slurm_client; "
        "print('torch' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
    assert " torch\n" not in out.stderr and "| torch\n" not in out.stderr


PLANNING = {
    "cli",
    "pipeline",
    "plan",
    "resolve",
    "rulematch",
    "runview",  # ranks, nodes and attempts of a run combined
    "profiles",
    "profile_model",
    "execute",
    "render",
    "slurm",
    "slurm_client",
    "detect",
    "agree",
    "run",
}


def test_runtime_never_imports_planning_or_the_run_loop() -> None:
    """Training scripts import launchx.runtime; it must stay cheap and speak only the
    contract (checkpoint discovery, stdlib-only, is shared on purpose)."""
    for path in (PKG / RUNTIME).glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = (
                [node.module]
                if isinstance(node, ast.ImportFrom) and node.module
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for mod in names:
                parts = mod.split(".")
                assert not (parts[0] == "launchx" and len(parts) > 1 and parts[1] in PLANNING), (
                    path.name,
                    mod,
                )
