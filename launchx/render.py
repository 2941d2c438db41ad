"""Rendering resolutions and plans for people (tables) and programs (env lines, JSON).

Secrets are redacted here, at the one place values leave launchx as text.
"""

from __future__ import annotations

import io
import json
import shlex
from collections.abc import Iterable, Mapping

from launchx import catalog
from launchx.findings import LEVELS, Finding
from launchx.plan import LaunchDecision, LaunchPlan
from launchx.profiles import LoadedProfile
from launchx.resolve import Resolution, Setting


def _shown(name: str, value: str | None) -> str:
    if value is None:
        return "(unset)"
    return catalog.redact(name, value)


def _history(name: str, setting: Setting) -> str:
    return "; ".join(
        f"was {_shown(name, v)!s} from {src}" for v, src in reversed(setting.overrides)
    )


def explain_json(res: Resolution, decision: LaunchDecision, findings: Iterable[Finding]) -> str:
    env = {
        name: {
            "value": _shown(name, s.value),
            "source": s.source,
            "overrides": [{"value": _shown(name, v), "source": src} for v, src in s.overrides],
        }
        for name, s in sorted(res.env.items())
    }
    launch: dict[str, object] = {
        key: {
            "value": s.value,
            "source": s.source,
            "overrides": [{"value": v, "source": src} for v, src in s.overrides],
        }
        for key, s in res.launch.items()
    }
    launch["launched_by"] = res.facts.launch.describe()
    launch["decision"] = {
        "launcher": decision.launcher,
        "reason": decision.reason,
        "evidence": list(res.facts.launch.evidence),
    }
    doc = {
        "profile": res.profile.name,
        "chain": list(res.chain),
        "env": env,
        "launch": launch,
        "findings": [f.to_json() for f in findings],
    }
    return json.dumps(doc, indent=2) + "\n"


def explain_env(res: Resolution) -> str:
    """``export`` lines safe to ``eval`` in bash; removed variables become ``unset``."""
    lines = [
        f"export {name}={shlex.quote(_shown(name, s.value))}" for name, s in sorted(res.env.items())
    ]
    lines += [f"unset {name}" for name in res.removed]
    return "\n".join(lines) + "\n"


def findings_text(findings: Iterable[Finding]) -> str:
    out: list[str] = []
    items = list(findings)
    for level in LEVELS:
        group = [f for f in items if f.level == level]
        if not group:
            continue
        out.append(f"{level}s:" if len(group) > 1 else f"{level}:")
        for f in group:
            var = f" {f.var}:" if f.var else ""
            out.append(f"  {f.code}{var} {f.message}")
            out.append(f"      fix: {f.fix}")
    return "\n".join(out) + ("\n" if out else "")


def explain_table(
    res: Resolution, decision: LaunchDecision, findings: Iterable[Finding], width: int = 120
) -> str:
    from rich.console import Console
    from rich.table import Table

    buf = io.StringIO()
    console = Console(
        file=buf,
        width=width,
        highlight=False,
        soft_wrap=False,
        force_terminal=False,
        color_system=None,
    )
    chain = " -> ".join(res.chain)
    console.print(f"profile: {res.profile.name}  ({chain})")
    if res.profile.description:
        console.print(f"  {res.profile.description}")
    ctx = res.facts.launch
    console.print(f"launched by: {ctx.describe()}")
    if ctx.evidence:
        console.print(f"  evidence: {', '.join(ctx.evidence)}")
    console.print(f"launcher: {decision.launcher}  ({decision.reason})")

    launch = Table(title=None, show_edge=False, box=None, pad_edge=False)
    for col in ("setting", "value", "source", "note"):
        launch.add_column(col, overflow="fold")
    for key, s in res.launch.items():
        launch.add_row(key, s.value, s.source, _history(key, s))
    console.print(launch)
    console.print()
    table = Table(show_edge=False, box=None, pad_edge=False)
    for col in ("variable", "value", "source", "note"):
        table.add_column(col, overflow="fold")
    for name, s in sorted(res.env.items()):
        spec = catalog.lookup(name)
        note = _history(name, s) or (spec.purpose if spec else "")
        table.add_row(name, _shown(name, s.value), s.source, note)
    for name in res.removed:
        table.add_row(name, "(removed)", "launchx", "renamed: launchx passes the new name")
    console.print(table)
    text = buf.getvalue()
    return text + ("\n" + findings_text(findings) if list(findings) else "")


def plan_text(plan: LaunchPlan) -> str:
    """What --dry-run prints: the exact command and the variables launchx sets."""
    lines = [
        f"# launchx plan: profile {plan.profile}, launcher {plan.launcher} ({plan.context})",
        f"# {plan.nnodes} node(s) x {plan.nproc_per_node} process(es), node rank "
        f"{plan.node_rank}, master {plan.master_addr}:{plan.master_port} "
        f"({plan.port_source})",
    ]
    for entry in plan.env:
        if entry.value is None:
            lines.append(f"unset {entry.name}  # {entry.source}")
        else:
            lines.append(
                f"export {entry.name}={shlex.quote(_shown(entry.name, entry.value))}"
                f"  # {entry.source}"
            )
    lines.append(plan.shell_line())
    text = "\n".join(lines) + "\n"
    if plan.findings:
        text += "\n" + findings_text(plan.findings)
    return text


def plan_json(plan: LaunchPlan) -> str:
    doc = plan.to_json()
    env = doc["env"]
    assert isinstance(env, dict)
    for name, entry in env.items():
        if isinstance(entry, dict) and isinstance(entry.get("value"), str):
            entry["value"] = catalog.redact(name, entry["value"])
    return json.dumps(doc, indent=2) + "\n"


def run_header(plan: LaunchPlan) -> str:
    lines = [
        f"launchx: profile {plan.profile} | launcher {plan.launcher} | "
        f"{plan.nnodes} node(s) x {plan.nproc_per_node} proc | master "
        f"{plan.master_addr}:{plan.master_port} ({plan.port_source}) | run "
        f"{plan.run_id} attempt {plan.attempt}"
    ]
    if plan.log_dir:
        lines.append(f"launchx: logs in {plan.log_dir}")
    text = "\n".join(lines) + "\n"
    warnings = [f for f in plan.findings if f.level != "info"]
    if warnings:
        text += findings_text(warnings)
    return text


def profile_text(loaded: LoadedProfile) -> str:
    """A merged profile as YAML-like lines, each value with the file that set it."""
    prof = loaded.profile
    lines = [f"# {prof.name}: {prof.description}", f"# chain: {' -> '.join(loaded.chain)}"]

    def walk(data: Mapping[str, object], prefix: str, indent: str) -> None:
        for key, value in data.items():
            dotted = f"{prefix}{key}"
            if isinstance(value, dict) and value:
                lines.append(f"{indent}{key}:")
                walk(value, dotted + ".", indent + "  ")
            else:
                shown = catalog.redact(key, str(value)) if prefix == "env." else value
                origin = loaded.origins.get(dotted, "default")
                lines.append(f"{indent}{key}: {json.dumps(shown, default=str)}  # {origin}")

    body = prof.model_dump(exclude={"name", "description"})
    walk(body, "", "")
    return "\n".join(lines) + "\n"
