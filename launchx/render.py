"""Rendering resolutions and plans for people (tables) and programs (env lines, JSON).

Secrets are redacted here, at the one place values leave launchx as text.
"""

from __future__ import annotations

import json
import re
import shlex
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from launchx import catalog, consoleranks
from launchx.facts import LaunchContext
from launchx.findings import LEVELS, Finding
from launchx.origin import DEFAULT, Origin
from launchx.plan import PORT_AT_LAUNCH, RUN_ID_AT_LAUNCH, LaunchDecision, LaunchPlan
from launchx.profiles import LoadedProfile
from launchx.resolve import Resolution, Setting


def _shown(name: str, value: str | None) -> str:
    if value is None:
        return "(unset)"
    return catalog.redact(name, value)


def _legible(name: str, value: str | None) -> str:
    """A table's cell, where a value's edges are invisible (JSON and shell lines quote)."""
    return _shown(name, value) if value is None else catalog.legible(_shown(name, value))


# A secret shorter than this is only hidden where its own variable is printed: scrubbing "1"
# or "ab" out of every message would mangle them without hiding anything worth hiding.
_MIN_SCRUB = 4


def _secret_values(res: Resolution) -> tuple[str, ...]:
    """Values of secret-named variables anywhere in the environment or the resolution.

    Findings and evidence are written by other modules; a secret must not leak through a
    message that quotes it under another name, so every text leaving here is scrubbed.
    """
    values = {v for n, v in res.facts.environ.items() if catalog.is_secret(n)}
    values |= {s.value for n, s in res.env.items() if catalog.is_secret(n)}
    for name, setting in res.env.items():
        if catalog.is_secret(name):
            values |= {v for v, _src in setting.overrides}
    # Longest first, so a secret that contains another is replaced whole.
    return tuple(sorted((v for v in values if len(v) >= _MIN_SCRUB), key=len, reverse=True))


def _scrub(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        # as a message may quote it too (catalog.legible: "'hf_x\\r'")
        quoted = repr(secret)[1:-1]
        text = text.replace(secret, "***")
        if quoted != secret:
            text = text.replace(quoted, "***")
    return text


def _scrub_finding(finding: Finding, secrets: tuple[str, ...]) -> Finding:
    if not secrets:
        return finding
    return replace(
        finding,
        message=_scrub(finding.message, secrets),
        fix=_scrub(finding.fix, secrets),
    )


def launched_by(ctx: LaunchContext) -> str:
    """Who started us, with the node position when the launcher gives one.

    Per-node launchers (Kubeflow's PET_*, a SLURM batch script) have no per-process rank, but
    "node 2 of 3" is what a user checks first when one pod of a job misbehaves.
    """
    text = ctx.describe()
    if ctx.kind == "none" or ctx.node_rank is None:
        return text
    if ctx.nnodes is not None:
        return f"{text}, node {ctx.node_rank} of {ctx.nnodes}"
    return f"{text}, node rank {ctx.node_rank}"


def _history(name: str, setting: Setting) -> str:
    return "; ".join(
        f"was {_legible(name, v)!s} from {src}" for v, src in reversed(setting.overrides)
    )


def explain_json(res: Resolution, decision: LaunchDecision, findings: Iterable[Finding]) -> str:
    secrets = _secret_values(res)
    env = {
        name: {
            "value": _shown(name, s.value),
            "source": str(s.source),
            "overrides": [{"value": _shown(name, v), "source": str(src)} for v, src in s.overrides],
        }
        for name, s in sorted(res.env.items())
    }
    launch: dict[str, object] = {
        key: {
            "value": s.value,
            "source": str(s.source),
            "overrides": [{"value": v, "source": str(src)} for v, src in s.overrides],
        }
        for key, s in res.launch.items()
    }
    launch["launched_by"] = launched_by(res.facts.launch)
    launch["decision"] = {
        "launcher": decision.launcher,
        "reason": _scrub(decision.reason, secrets),
        "evidence": [_scrub(e, secrets) for e in res.facts.launch.evidence],
    }
    doc = {
        "profile": res.profile.name,
        "chain": [str(link) for link in res.chain],
        "env": env,
        "removed": list(res.removed),
        "launch": launch,
        "settings": {
            key: {
                "value": s.value,
                "source": str(s.source),
                "overrides": [{"value": v, "source": str(src)} for v, src in s.overrides],
            }
            for key, s in res.settings.items()
        },
        "findings": [_scrub_finding(f, secrets).to_json() for f in findings],
    }
    return json.dumps(doc, indent=2) + "\n"


# What bash accepts after ``export``/``unset``. A name from the environment or a profile can be
# anything but '=' and NUL ("NCCL_A;touch x", "A\nrm -rf ~"); printed raw it would run.
_SHELL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _is_shell_name(name: str) -> bool:
    return _SHELL_NAME.fullmatch(name) is not None


def _skipped(name: str) -> str:
    """A comment for a name bash cannot export: ``repr`` escapes newlines (and every other
    unprintable character), so the comment stays one line and nothing after it runs."""
    return f"# skipped: {name!r} is not a valid shell variable name"


def explain_env(res: Resolution) -> str:
    """``export`` lines safe to ``eval`` in bash; removed variables become ``unset``.

    A secret is never printed, and exporting ``***`` would overwrite the user's real token
    when the output is eval'ed, so a secret becomes a comment that eval ignores. A name that
    is not a shell identifier becomes a comment too: eval would run it as a command.
    """
    lines = [
        _skipped(name)
        if not _is_shell_name(name)
        else f"# {name}=*** (secret: not printed, left as it is)"
        if catalog.is_secret(name)
        else f"export {name}={shlex.quote(_shown(name, s.value))}"
        for name, s in sorted(res.env.items())
    ]
    lines += [f"unset {name}" if _is_shell_name(name) else _skipped(name) for name in res.removed]
    return "\n".join(lines) + "\n"


def findings_text(findings: Iterable[Finding], secrets: Iterable[str] = ()) -> str:
    """Findings grouped by level, each with its fix (``secrets`` are scrubbed from both)."""
    out: list[str] = []
    hidden = tuple(secrets)
    items = [_scrub_finding(f, hidden) for f in findings]
    for level in LEVELS:
        group = [f for f in items if f.level == level]
        if not group:
            continue
        out.append(f"{level}s:" if len(group) > 1 else f"{level}:")
        for f in group:
            var = f" {_one_line(f.var)}:" if f.var else ""
            out.append(f"  {f.code}{var} {_one_line(f.message)}")
            out.append(f"      fix: {_one_line(f.fix)}")
    return "\n".join(out) + ("\n" if out else "")


def _one_line(text: str) -> str:
    """Cells are one line: a newline inside a value must not fake a row of the table."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


# Widest a column other than the last grows; a longer cell (a list of HCAs, a path) keeps
# its full text and pushes the rest of its row to the next line instead of widening all.
_COLUMN_CAP = 32


def text_table(header: Sequence[str], rows: Iterable[Sequence[str]], width: int = 120) -> str:
    """Aligned columns; cells are never cut, only the last column wraps, so names and values
    stay copy-pasteable.

    Plain text rather than rich: ``launchx explain`` is run often and interactively, and
    importing rich's console and laying cells out cost more than the rest of the command.
    """
    table = [list(header), *([_one_line(c) for c in row] for row in rows)]
    widths = [min(_COLUMN_CAP, max(len(r[i]) for r in table)) for i in range(len(header) - 1)]
    starts = [sum(widths[:i]) + 2 * i for i in range(len(widths) + 1)]
    room = max(40, width - starts[-1])
    lines: list[str] = []
    for row in table:
        line = ""
        for start, cell in zip(starts, row, strict=False):
            if len(line) > start - 2 and line.strip():
                lines.append(line.rstrip())
                line = ""
            if start == starts[-1]:
                wrapped = textwrap.wrap(cell, room, break_on_hyphens=False) or [""]
                lines.append((line.ljust(start) + wrapped[0]).rstrip())
                lines += [(" " * start + more).rstrip() for more in wrapped[1:]]
            else:
                line = line.ljust(start) + cell
    return "\n".join(lines) + "\n"


def explain_table(
    res: Resolution, decision: LaunchDecision, findings: Iterable[Finding], width: int = 120
) -> str:
    secrets = _secret_values(res)
    items = list(findings)
    out: list[str] = []
    chain = " -> ".join(map(str, res.chain))
    out.append(f"profile: {res.profile.name}  ({chain})")
    if res.profile.description:
        out.append(f"  {res.profile.description}")
    ctx = res.facts.launch
    out.append(f"launched by: {launched_by(ctx)}")
    if ctx.evidence:
        out.append(_scrub(f"  evidence: {', '.join(ctx.evidence)}", secrets))
    out.append(_scrub(f"launcher: {decision.launcher}  ({decision.reason})", secrets))
    out.append("")
    launch_rows = [
        (key, catalog.legible(s.value), str(s.source), _history(key, s))
        for key, s in res.launch.items()
    ]
    # Block settings (timeouts, retry, resume, slurm) that a profile or the user changed.
    launch_rows += [
        (key, catalog.legible(s.value), str(s.source), _history(key, s))
        for key, s in res.settings.items()
        if s.source != DEFAULT
    ]
    out.append(text_table(("setting", "value", "source", "note"), launch_rows, width))
    env_rows: list[tuple[str, str, str, str]] = []
    for name, s in sorted(res.env.items()):
        spec = catalog.lookup(name)
        note = _history(name, s) or (spec.purpose if spec else "")
        if spec is not None and spec.reader == "launchx" and note != spec.purpose:
            note = f"{spec.purpose}; {note}"  # who reads launchx's own contract matters
        env_rows.append((name, _legible(name, s.value), str(s.source), note))
    for name in res.removed:
        env_rows.append((name, "(removed)", "launchx", "renamed: launchx passes the new name"))
    out.append(text_table(("variable", "value", "source", "note"), env_rows, width))
    text = "\n".join(out)
    return text + ("\n" + findings_text(items, secrets) if items else "")


def _plan_secrets(plan: LaunchPlan) -> tuple[str, ...]:
    """Secret values the plan sets, longest first, to scrub from findings it prints."""
    values = {e.value for e in plan.env if e.value is not None and catalog.is_secret(e.name)}
    return tuple(sorted((v for v in values if len(v) >= _MIN_SCRUB), key=len, reverse=True))


def _plan_env_line(name: str, value: str | None, source: Origin) -> str:
    """One variable of the plan as a line a user can paste into bash.

    A secret is not printed, and ``export HF_TOKEN='***'`` pasted would overwrite the real
    token: the line reads the token from the shell that pastes it instead, and stops there,
    saying so, when that shell has none (the plan does set one: without it the run differs).
    """
    note = _one_line(str(source))
    if not _is_shell_name(name):
        return _skipped(name)
    if value is None:
        return f"unset {name}  # {note}"
    if catalog.is_secret(name):
        return (
            f'export {name}="${{{name}:?secret not shown: export {name} first}}"'
            f"  # {note} (secret, not shown)"
        )
    return f"export {name}={shlex.quote(_shown(name, value))}  # {note}"


def _master(plan: LaunchPlan) -> str:
    if plan.master_port is not None:
        return f"{plan.master_addr}:{plan.master_port}"
    if plan.launcher == "direct":
        return f"{plan.master_addr} (port: the outer launcher's)"
    return f"{plan.master_addr}:{PORT_AT_LAUNCH}"


def plan_text(plan: LaunchPlan) -> str:
    """What --dry-run prints: the exact command and the variables launchx sets."""
    header = [
        f"launchx plan: profile {plan.profile}, launcher {plan.launcher} ({plan.context})",
        f"{plan.nnodes} node(s) x {plan.nproc_per_node} process(es), node rank "
        f"{plan.node_rank}, master {_master(plan)} ({plan.port_source})",
    ]
    if plan.master_port is None and plan.launcher != "direct":
        header.append(
            f"{PORT_AT_LAUNCH}: launchx draws a free port as each attempt starts; "
            "pass --master-port N to fix it"
        )
    if plan.run_id is None:
        header.append(
            f"{RUN_ID_AT_LAUNCH}: launchx draws a new run id when it starts; "
            "pass --run-id ID to fix it"
        )
    if plan.preflight is not None:
        header.append(f"before the first attempt (--preflight): {shlex.join(plan.preflight)}")
    if plan.console_ranks != "all":
        header.append(console_words(plan))
    lines = [f"# {_one_line(line)}" for line in header]
    lines += [_plan_env_line(e.name, e.value, e.source) for e in plan.env]
    lines.append(plan.shell_line())
    text = "\n".join(lines) + "\n"
    if plan.findings:
        text += "\n" + findings_text(plan.findings, _plan_secrets(plan))
    return text


def plan_json(plan: LaunchPlan) -> str:
    doc = plan.to_json()
    env = doc["env"]
    assert isinstance(env, dict)
    for name, entry in env.items():
        if isinstance(entry, dict) and isinstance(entry.get("value"), str):
            entry["value"] = catalog.redact(name, entry["value"])
    return json.dumps(doc, indent=2) + "\n"


# Info findings a real run still prints: launchx changed what the user asked for, and the
# header alone (another port) would not say why. Other infos (LX124 a value worth a note,
# LX140 debug logging left on) describe the user's own choice: --dry-run and explain show
# them, a run repeating them on every attempt would only be noise.
CHANGED_WHAT_YOU_ASKED: frozenset[str] = frozenset({"LX208"})  # held port -> a free one


def console_words(plan: LaunchPlan) -> str:
    """What a console filtered to some ranks shows, and where the rest is."""
    ranks = plan.console_ranks
    many = "," in ranks or "-" in ranks
    text = (
        f"the console shows rank{'s' if many else ''} {ranks} and any other rank's lines from "
        "its first error on; every rank's output is in its rank-R.log"
    )
    world = plan.nnodes * plan.nproc_per_node
    if not consoleranks.names_a_rank(ranks, world):
        text += f" (this run's ranks are 0-{world - 1}: only errors will show)"
    return text


def run_header(plan: LaunchPlan) -> str:
    """The lines a real run prints before each attempt: what runs, and any finding to act on
    or that explains why it differs from what was asked."""
    lines = [
        f"launchx: profile {plan.profile} | launcher {plan.launcher} | "
        f"{plan.nnodes} node(s) x {plan.nproc_per_node} proc | master "
        f"{_master(plan)} ({plan.port_source}) | run "
        f"{plan.run_id or RUN_ID_AT_LAUNCH} attempt {plan.attempt}"
    ]
    if plan.log_dir:
        lines.append(f"launchx: logs in {plan.log_dir}")
    if plan.console_ranks != "all":
        lines.append(f"launchx: {console_words(plan)}")
    text = "\n".join(lines) + "\n"
    shown = [f for f in plan.findings if f.level != "info" or f.code in CHANGED_WHAT_YOU_ASKED]
    if shown:
        text += findings_text(shown, _plan_secrets(plan))
    return text


def profile_text(loaded: LoadedProfile) -> str:
    """A merged profile as YAML-like lines, each value with the file that set it."""
    prof = loaded.profile
    chain = " -> ".join(map(str, loaded.chain))
    lines = [f"# {prof.name}: {prof.description}", f"# chain: {chain}"]

    def walk(data: Mapping[str, object], prefix: str, indent: str) -> None:
        for key, value in data.items():
            dotted = f"{prefix}{key}"
            if isinstance(value, dict) and value:
                lines.append(f"{indent}{key}:")
                walk(value, dotted + ".", indent + "  ")
            else:
                shown = catalog.redact(key, str(value)) if prefix == "env." else value
                origin = (
                    loaded.label if dotted == "extends" else loaded.origins.get(dotted, DEFAULT)
                )
                lines.append(f"{indent}{key}: {json.dumps(shown, default=str)}  # {origin}")

    body = prof.model_dump(exclude={"name", "description"})
    walk(body, "", "")
    return "\n".join(lines) + "\n"
