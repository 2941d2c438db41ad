"""The watcher's decisions are pure: the verdict, the report, the frame model and the node
summaries read no clock, start nothing and touch no file (house rule 1). The monitor is
the one place that does, and it reads the clock only through what it is given."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

WATCH = Path(__file__).resolve().parent.parent / "launchx" / "watch"
PURE = ["frames.py", "model.py", "policy.py", "verdict.py", "report.py", "nodes.py"]
FORBIDDEN = {"os", "time", "subprocess", "socket", "shutil", "threading", "pathlib", "torch"}


@pytest.mark.parametrize("name", PURE)
def test_pure_watch_modules(name: str) -> None:
    tree = ast.parse((WATCH / name).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert alias.name.split(".")[0] not in FORBIDDEN, (name, alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module:
            assert node.module.split(".")[0] not in FORBIDDEN, (name, node.module)
            if node.module.startswith("launchx.watch."):
                assert node.module.rsplit(".", 1)[-1] + ".py" in PURE, (name, node.module)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id != "open", (name, node.lineno)


def test_monitor_reads_the_clock_only_through_its_arguments() -> None:
    tree = ast.parse((WATCH / "monitor.py").read_text())
    calls = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == "time"
    ]
    assert calls == [], [ast.unparse(c) for c in calls]
