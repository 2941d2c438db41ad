"""The code registry (``launchx.codes``): every code raised is registered, every registered
code is raised somewhere, each keeps one level, and ``docs/codes.md`` is current."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

from launchx import codes, failure_rules

PKG = Path(__file__).resolve().parent.parent / "launchx"
DOC = Path(__file__).resolve().parent.parent / "docs" / "codes.md"
CODE = re.compile(r"\bLX\d{3}\b")


def _codes_in_source() -> dict[str, set[str]]:
    """Each LX code written in launchx's source (outside the registry), by module."""
    found: dict[str, set[str]] = {}
    for path in PKG.rglob("*.py"):
        if path.name == "codes.py":
            continue
        for code in CODE.findall(path.read_text()):
            found.setdefault(code, set()).add(path.stem)
    return found


def _failure_codes() -> set[str]:
    rules = {r.code for r in failure_rules.RULES}
    signals = {r.code for r in failure_rules.SIGNAL_RULES.values()}
    return rules | signals | {failure_rules.UNKNOWN_CODE}


def test_registered_codes_are_unique() -> None:
    counts = Counter(c.code for c in codes.FINDINGS)
    assert [c for c, n in counts.items() if n > 1] == []


def test_every_code_in_the_source_is_registered() -> None:
    known = set(codes.LEVELS) | _failure_codes()
    unknown = {c: sorted(m) for c, m in _codes_in_source().items() if c not in known}
    assert unknown == {}, "register these in launchx/codes.py (or as a failure rule)"


def test_every_registered_code_is_used() -> None:
    used = set(_codes_in_source())
    assert sorted(set(codes.LEVELS) - used) == []


def test_findings_built_with_a_literal_level_agree_with_the_registry() -> None:
    """Where a module still writes ``Finding("LX220", "error", ...)``, the level must be the
    registered one (``findings.finding(code, ...)`` looks it up instead)."""
    for path in PKG.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Finding"
                and len(node.args) >= 2
                and all(isinstance(a, ast.Constant) for a in node.args[:2])
            ):
                code, level = node.args[0].value, node.args[1].value  # type: ignore[attr-defined]
                assert codes.level(code) == level, (path.name, code, level)


def test_failure_rule_codes_are_in_their_range_and_never_findings() -> None:
    for code in _failure_codes():
        assert code.startswith(("LX5", "LX6", "LX7", "LX8")) and code not in codes.LEVELS, code


def test_docs_codes_md_is_current() -> None:
    """Regenerate with: python -m launchx.codes > docs/codes.md"""
    assert DOC.read_text() == codes.markdown()
