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
    "anchorlines",  # which lines hold an anchor (the scanner's and its helper's search)
    "autovalues",
    "catalog",
    "catalog_data",
    "codes",
    "consoleranks",  # which ranks' lines the console shows
    "collectives",  # NCCL watchdog sequence numbers: who fell behind
    "diagnosis",
    "ownsummary",  # launchx's own end-of-run summary, read back from a console log
    "errors",
    "facts",
    "failure_rules.__init__",  # the rules, one module per topic of failure
    "failure_rules.anchors",
    "failure_rules.gpu",
    "failure_rules.model",
    "failure_rules.nccl",
    "failure_rules.network",
    "failure_rules.patterns",
    "failure_rules.processes",
    "failure_rules.script",
    "failure_rules.signals",
    "failure_rules.stopped",
    "failure_text",
    "failures",
    "findings",
    "flightrec",  # flight-recorder dumps as data (pickles loaded with no class allowed)
    "hostlist",
    "inner_launcher",  # is the command a launcher itself?
    "logdecode",  # a compressed or UTF-16 stream read as UTF-8 bytes
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
    "ruleindex",  # which rules a line may match, by the words their patterns need
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
    "anchorfind": "starts (and is) the helper process that searches long logs on a second core",
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
    "run.rundirs": "writes and reads the note naming the latest --log-dir run",
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


# The process environment, as the os module offers it (read, written or removed).
ENVIRON_NAMES = frozenset({"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"})


def environment_uses(tree: ast.AST) -> list[str]:
    """Where a module touches the process environment through ``os``, however it is named:
    ``os.environ``, ``os.getenv``/``putenv``/``unsetenv``, ``from os import environ`` (or
    ``getenv``, ...), and ``import os as x`` followed by ``x.environ``."""
    os_names = {"os"}  # the names the os module is bound to in this module
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            os_names |= {a.asname for a in node.names if a.name == "os" and a.asname}
        elif isinstance(node, ast.ImportFrom) and node.module == "os" and not node.level:
            found += [
                f"from os import {a.name} (line {node.lineno})"
                for a in node.names
                if a.name in ENVIRON_NAMES or a.name == "*"
            ]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ENVIRON_NAMES
            and isinstance(node.value, ast.Name)
            and node.value.id in os_names
        ):
            found.append(f"{node.value.id}.{node.attr} (line {node.lineno})")
    return found


@pytest.mark.parametrize(
    "source",
    [
        "import os\nos.environ['A']",
        "import os\nos.getenv('A')",
        "import os\nos.putenv('A', 'b')",
        "import os\nos.unsetenv('A')",
        "from os import environ",
        "from os import getenv as g",
        "from os import putenv",
        "from os import *",
        "import os as o\no.environ.get('A')",
        "import sys, os as o\nprint(o.getenv('A'))",
        "def f():\n    import os as o\n    return o.environ",
    ],
)
def test_the_environment_check_sees_every_spelling(source: str) -> None:
    assert environment_uses(ast.parse(source)), source


@pytest.mark.parametrize(
    "source",
    [
        "import os\nos.path.join('a')",
        "from os import path, sep",
        "environ = {}\nenviron.get('A')",
        "def f(facts):\n    return facts.environ",
    ],
)
def test_the_environment_check_leaves_other_names_alone(source: str) -> None:
    assert not environment_uses(ast.parse(source)), source


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
    uses = environment_uses(tree)
    if uses:
        pytest.fail(f"{name} touches the environment: {'; '.join(uses)}")


def test_only_the_pipeline_reads_the_environment() -> None:
    """Everything downstream of gathering takes a mapping; the entry points of the other
    programs (an srun task, a training rank) read their own once."""
    readers = {
        name for name, path in _modules().items() if environment_uses(ast.parse(path.read_text()))
    }
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


# What code running inside a training process may import from launchx: the runtime itself,
# checkpoint discovery (stdlib-only, shared with the planner on purpose) and the package
# root that every import of a submodule runs. Outside launchx: the stdlib and torch.
RUNTIME_MAY_IMPORT = {"launchx", "launchx.checkpoints"}
RUNTIME_THIRD_PARTY = {"torch"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _module_file(name: str) -> Path | None:
    """The file of a launchx module (or package), or None if ``name`` is not one."""
    base = PKG.parent.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imports(path: Path) -> list[tuple[str, int]]:
    """Every module ``path`` imports (at any depth of its code), with the line: a
    ``from launchx import x`` names ``launchx.x`` when that is a module; a relative import
    is resolved against the module's package; importing ``a.b.c`` also runs ``a`` and
    ``a.b``, so those count too."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        found: list[str] = []
        if isinstance(node, ast.Import):
            found = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                module = ".".join([*anchor, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found = [module]
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                if module.split(".")[0] == "launchx" and _module_file(sub) is not None:
                    found.append(sub)
        for mod in found:
            parts = mod.split(".")
            out += [(".".join(parts[:i]), node.lineno) for i in range(1, len(parts) + 1)]
    return out


def _runtime_allows(mod: str) -> bool:
    top = mod.split(".")[0]
    if top == "launchx":
        return (
            mod in RUNTIME_MAY_IMPORT
            or mod == "launchx.runtime"
            or mod.startswith("launchx.runtime.")
        )
    return top in sys.stdlib_module_names or top in RUNTIME_THIRD_PARTY


def test_runtime_imports_only_the_runtime_checkpoints_stdlib_and_torch() -> None:
    """Training scripts import launchx.runtime; it must stay cheap and speak only the
    contract: no planning, no run loop, no CLI, no third-party package but torch. Followed
    through every launchx module it imports, however indirectly."""
    start = list((PKG / RUNTIME).rglob("*.py"))
    seen: set[Path] = set()
    bad: list[str] = []
    while start:
        path = start.pop()
        if path in seen:
            continue
        seen.add(path)
        for mod, line in _imports(path):
            if not _runtime_allows(mod):
                bad.append(f"{_module_name(path)} imports {mod} (line {line})")
            elif mod.split(".")[0] == "launchx" and (found := _module_file(mod)) is not None:
                start.append(found)
    assert not bad, bad
    # The walk reached what the runtime really imports (a broken walk passes vacuously).
    assert {_module_name(p) for p in seen} >= {
        "launchx",
        "launchx.runtime",
        "launchx.runtime.env",
        "launchx.runtime.ckpt",
        "launchx.checkpoints",
    }


@pytest.mark.parametrize(
    ("mod", "allowed"),
    [
        ("launchx.runtime.env", True),
        ("launchx.checkpoints", True),
        ("launchx", True),
        ("os", True),
        ("torch.distributed", True),
        ("launchx.plan", False),
        ("launchx.run.loop", False),
        ("launchx.cli", False),
        ("launchx.findings", False),
        ("yaml", False),
        ("typer", False),
    ],
)
def test_the_runtime_allow_list(mod: str, allowed: bool) -> None:
    assert _runtime_allows(mod) is allowed
