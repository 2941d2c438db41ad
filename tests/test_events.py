"""``events.jsonl`` has one schema, written down once: the tables in the docstring of
``launchx/run/events.py``. Every event, watch kind and field the code writes is in them,
nothing in them is stale, the README's paragraph names each, and ``run_start`` carries the
schema's name. (The code is read, not run: a new ``.record(...)`` or watch kind fails here
until it is documented.)"""

from __future__ import annotations

import ast
import functools
import json
import re
from pathlib import Path

import pytest

from launchx.run import events

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "launchx"
COMMON = {"ts", "event", "run", "node"}  # every event's own (``EventLog.record``)


def _tables() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(events, watch kinds) -> their fields, from the docstring's two RST tables."""
    doc = events.__doc__ or ""
    lines = doc.splitlines()
    rules = [i for i, ln in enumerate(lines) if ln.startswith("=" * 10)]
    assert len(rules) == 6, "two tables, each: rule, header, rule, rows, rule"
    out: list[dict[str, set[str]]] = []
    for first, last in ((rules[1], rules[2]), (rules[4], rules[5])):
        cells: dict[str, str] = {}
        name = ""
        for ln in lines[first + 1 : last]:
            if not ln[:1].isspace():
                name = ln.split()[0]
                cells[name] = ""
            cells[name] += " " + ln[20:].strip()
        out.append({n: _fields(text) for n, text in cells.items()})
    return out[0], out[1]


def _fields(text: str) -> set[str]:
    while re.search(r"\([^()]*\)", text):  # remarks in parentheses are not fields
        text = re.sub(r"\([^()]*\)", "", text)
    names = {part.strip() for part in text.split(",")}
    bad = [n for n in names if not re.fullmatch(r"[a-z_]+", n)]
    assert not bad, f"a fields cell must be names and (remarks): {bad}"
    return names


@functools.cache
def _trees() -> tuple[tuple[Path, ast.Module], ...]:
    return tuple((p, ast.parse(p.read_text(), str(p))) for p in sorted(PKG.rglob("*.py")))


def _calls() -> list[tuple[Path, ast.Call]]:
    out = []
    for path, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                out.append((path, node))
    return out


def _name(call: ast.Call) -> str | None:
    first = call.args[0] if call.args else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


def _dict_keys_returned(function: str) -> set[str]:
    """The keys of the dict literal a launchx function returns (``text.attempt_fields``)."""
    for _path, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == function:
                for ret in ast.walk(node):
                    if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Dict):
                        return {k.value for k in ret.value.keys if isinstance(k, ast.Constant)}
    raise AssertionError(f"no function {function} returning a dict literal")


def written() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """What the code writes: ``<...>events.record("name", field=...)`` calls, and the hang
    watch's ``self._emit("kind", field=...)`` (its fields go into a ``watch`` event)."""
    evs: dict[str, set[str]] = {}
    kinds: dict[str, set[str]] = {}
    spread: list[str] = []
    for path, call in _calls():
        assert isinstance(call.func, ast.Attribute)
        name = _name(call)
        owner = ast.unparse(call.func.value)
        if call.func.attr == "record" and owner.endswith("events"):
            assert name is not None, f"{path}: an event named by a variable: {ast.unparse(call)}"
            into = evs.setdefault(name, set())
        elif call.func.attr == "_emit" and path.parent.name == "watch":
            assert name is not None, f"{path}: a watch kind named by a variable"
            into = kinds.setdefault(name, set())
        else:
            continue
        for kw in call.keywords:
            if kw.arg is not None:
                into.add(kw.arg)
            elif isinstance(kw.value, ast.Call):  # **attempt_fields(...)
                func = kw.value.func
                into |= _dict_keys_returned(
                    func.attr if isinstance(func, ast.Attribute) else ast.unparse(func)
                )
            else:
                spread.append(f"{name}: **{ast.unparse(kw.value)}")
    # The one spread of unknown keys: the watch event carries its kind's fields.
    assert spread == ["watch: **fields"], spread
    return evs, kinds


def test_every_event_and_field_written_is_documented_and_nothing_documented_is_stale() -> None:
    documented, _ = _tables()
    code, _ = written()
    assert set(code) == set(documented)
    for name, fields in code.items():
        assert fields - COMMON <= documented[name], (name, fields - documented[name])
        assert documented[name] - {"schema"} <= fields, (name, documented[name] - fields)


def test_every_watch_kind_and_field_is_documented_and_nothing_documented_is_stale() -> None:
    _, documented = _tables()
    _, code = written()
    assert set(code) == set(documented)
    for kind, fields in code.items():
        assert fields == documented[kind], (kind, fields ^ documented[kind])


def test_the_readme_paragraph_names_every_event_kind_and_field() -> None:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("Every run keeps its logs, flat:")
    para = readme[start : readme.index("\n\n", start)]
    assert events.SCHEMA in para
    evs, kinds = _tables()
    for name in [*evs, *kinds]:
        assert f"`{name}`" in para, name
    words = set(re.findall(r"[a-z_]+", para))
    for name, fields in [*evs.items(), *kinds.items()]:
        assert fields <= words, (name, fields - words)


def test_run_start_names_the_schema(tmp_path: Path) -> None:
    log = events.EventLog(tmp_path / "events.jsonl", "lx-1", wall=lambda: 5.0)
    log.record("run_start", profile="local")
    log.record("run_end", exit_code=0)
    first, last = (json.loads(ln) for ln in (tmp_path / "events.jsonl").read_text().splitlines())
    assert first == {
        "ts": 5.0,
        "event": "run_start",
        "run": "lx-1",
        "schema": "launchx-events/1",
        "profile": "local",
    }
    assert "schema" not in last
    assert "schema (launchx-events/1)" in (events.__doc__ or "")


@pytest.mark.parametrize(
    ("end", "ended"),
    [
        ({"ended": "preempted", "reason": "finished", "exit_code": 0}, "preempted"),
        ({"reason": "finished"}, "finished"),  # a cut record: the words alone
        ({"reason": "retry budget spent: 2 retries"}, "failed"),
        ({"reason": "interrupted by the user: never retried", "exit_code": 130}, "interrupted"),
        ({"exit_code": 1}, "failed"),
        ({"exit_code": 0}, "finished"),
        ({"ended": "gone away"}, None),  # (not an ending launchx writes, and nothing else)
        ({}, None),
    ],
)
def test_how_a_run_ended_from_its_field_or_an_older_records_words(
    end: dict[str, object], ended: str | None
) -> None:
    assert events.how_it_ended(end) == ended
