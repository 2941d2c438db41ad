"""House rule 1, enforced: the pure stages never start processes, open sockets or read
the environment; the CLI never imports torch."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "launchx"
PURE = [
    "profile_model.py",
    "profiles.py",
    "resolve.py",
    "plan.py",
    "render.py",
    "retry.py",
    "catalog.py",
    "catalog_data.py",
    "autovalues.py",
    "hostlist.py",
    "findings.py",
    "facts.py",
    "failures.py",
    "failure_rules.py",
    "inner_launcher.py",
    "progress.py",
    "outlines.py",
]
FORBIDDEN_IMPORTS = {"subprocess", "socket", "shutil", "torch"}


@pytest.mark.parametrize("name", PURE)
def test_pure_module_has_no_io_imports_or_environ(name: str) -> None:
    path = PKG / name
    if not path.exists():
        pytest.skip(f"{name} not present")
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


def test_cli_import_does_not_import_torch() -> None:
    code = "import sys, launchx.cli, launchx.session, launchx.slurm; print('torch' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
    assert " torch\n" not in out.stderr and "| torch\n" not in out.stderr


PLANNING = {
    "cli",
    "pipeline",
    "session",
    "plan",
    "resolve",
    "profiles",
    "profile_model",
    "execute",
    "render",
    "slurm",
    "detect",
}


def test_runtime_never_imports_planning_code() -> None:
    """Training scripts import launchx.runtime; it must stay cheap and speak only the
    contract (checkpoint discovery, stdlib-only, is shared on purpose)."""
    for path in (PKG / "runtime").glob("*.py"):
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
