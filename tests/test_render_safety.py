"""What launchx prints for a shell to run must be safe to run: ``explain --format env`` eval'ed,
a ``--dry-run`` plan pasted. Proved in a real bash, with hostile variable names and secrets;
and the run header still says when launchx changed what the user asked for.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path

from conftest import clean_env, plan_once, run_cli

from launchx import detect, plan, profiles, render
from launchx.facts import HostFacts, PortHolder
from launchx.findings import Finding
from launchx.origin import Origin
from launchx.resolve import Overrides, Resolution, Setting, resolve


def _bash(script: str, cwd: Path, **environ: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", script],
        cwd=cwd,
        env={"PATH": os.environ["PATH"], **environ},
        capture_output=True,
        text=True,
        timeout=30,
    )


def _resolve(
    environ: dict[str, str], flags: dict[str, str] | None = None, sets: tuple[str, ...] = ()
) -> Resolution:
    host = HostFacts(
        environ=environ,
        cpu_count=4,
        launch=detect.classify_launch(environ),
        slurm=detect.parse_slurm(environ),
    )
    loaded = profiles.load("local", environ, Path("/nonexistent"))
    return resolve(loaded, host, Overrides(sets=sets, flags=flags or {}))


# --- explain --format env: hostile variable names ---------------------------------------------

# Names a process can inherit (execve forbids only '=' and NUL). NCCL_ makes explain show them;
# each one, printed raw after "export", would run the command inside it.
HOSTILE_NAMES = {
    "NCCL_A;touch PWNED1;B": "1",
    "NCCL_B$(touch PWNED2)": "1",
    "NCCL_C`touch PWNED3`": "1",
    "NCCL_D\ntouch PWNED4\nE": "1",
    "NCCL_E touch PWNED5": "1",
    "NCCL_TOKEN\ntouch PWNED6\n#": "secret-ish",  # secret-shaped: was a comment, broken by \n
}
# Valid names whose values are hostile: these must still come back exactly.
VALID = {
    "NCCL_DEBUG_FILE": "$(touch PWNED7) 'x' \"y\" `touch PWNED8`\nline two",
    "NCCL_MY_NOTE": "  two ; touch PWNED9 ",
}


def _eval_and_read(env_sh: str, cwd: Path, names: list[str]) -> dict[str, str]:
    (cwd / "env.sh").write_text(env_sh)
    script = (
        'eval "$(cat env.sh)" || exit 9\nfor n in "$@"; do printf "%s\\0" "${!n-UNSET}"; done\n'
    )
    proc = subprocess.run(
        ["bash", "-c", script, "bash", *names],
        cwd=cwd,
        env={"PATH": os.environ["PATH"]},
        capture_output=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    values = proc.stdout.decode().split("\0")[:-1]
    return dict(zip(names, values, strict=True))


def test_env_format_with_hostile_names_evals_safely_in_bash(tmp_path: Path) -> None:
    environ = clean_env(**HOSTILE_NAMES, **VALID)
    code, out, err = run_cli(["explain", "--format", "env"], environ, cwd=tmp_path)
    assert code == 0, err
    got = _eval_and_read(out, tmp_path, [*VALID, "LAUNCHX_PROFILE", "NCCL_E", "NCCL_D"])
    assert got == {**VALID, "LAUNCHX_PROFILE": "local", "NCCL_E": "UNSET", "NCCL_D": "UNSET"}
    assert not list(tmp_path.glob("PWNED*"))  # nothing was executed
    for name in HOSTILE_NAMES:  # each is named, harmlessly, as one comment line
        assert f"# skipped: {name!r} is not a valid shell variable name\n" in out
    assert out.count("# skipped:") == len(HOSTILE_NAMES)


def test_env_format_skips_names_with_equals_and_trailing_newlines(tmp_path: Path) -> None:
    """'=' cannot come from the environment, and a trailing newline slips past a '$' anchor:
    rendering checks the names itself, whatever produced the resolution."""
    res = _resolve({})
    hostile = {"NCCL_A=B": "1", "NCCL_F\n": "1", "NCCL_G=$(touch PWNED1)": "1", "": "1"}
    env = {**res.env, **{n: Setting(v, Origin.launchx("test")) for n, v in hostile.items()}}
    res = replace(res, env=env, removed=("NCCL_H;touch PWNED2", "NCCL_OLD_NAME"))
    out = render.explain_env(res)
    got = _eval_and_read(out, tmp_path, ["LAUNCHX_PROFILE", "NCCL_A", "NCCL_G"])
    assert got == {"LAUNCHX_PROFILE": "local", "NCCL_A": "UNSET", "NCCL_G": "UNSET"}
    assert not list(tmp_path.glob("PWNED*"))
    assert "# skipped: 'NCCL_F\\n' is not a valid shell variable name" in out
    assert "# skipped: 'NCCL_H;touch PWNED2' is not" in out
    assert "unset NCCL_OLD_NAME\n" in out


# --- run --dry-run: a pasted plan keeps the user's secret ------------------------------------


def test_dry_run_plan_never_shows_nor_clobbers_a_secret(tmp_path: Path) -> None:
    args = ["run", "--dry-run", "--set", "HF_TOKEN=abc123", "--no-python", "true"]
    code, out, err = run_cli(args, cwd=tmp_path)
    assert code == 0, err
    assert "abc123" not in out and "abc123" not in err
    assert "HF_TOKEN" in out and "secret, not shown" in out
    env_lines = "".join(line + "\n" for line in out.splitlines() if line.startswith("export "))
    read = 'eval "$PLAN" || exit 9\nprintf "%s" "$HF_TOKEN"\n'
    # Pasted where the user has the real token: it stays the real token (not '***').
    proc = _bash(read, tmp_path, PLAN=env_lines, HF_TOKEN="real")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "real"
    # Pasted where there is none: it stops, saying which variable to export, before running.
    whole = _bash('eval "$PLAN"\necho RAN', tmp_path, PLAN=out)
    assert whole.returncode != 0 and "RAN" not in whole.stdout
    assert "HF_TOKEN" in whole.stderr and "***" not in whole.stderr


def test_dry_run_json_keeps_its_redaction(tmp_path: Path) -> None:
    args = ["run", "--dry-run", "--json", "--set", "HF_TOKEN=abc123", "--no-python", "true"]
    code, out, err = run_cli(args, cwd=tmp_path)
    assert code == 0, err
    assert "abc123" not in out and '"value": "***"' in out


def test_plan_text_scrubs_a_secret_quoted_by_a_finding() -> None:
    res = _resolve({}, sets=("HF_TOKEN=hf-s3cret-0001",))
    leak = Finding("LX999", "warning", "X", "saw hf-s3cret-0001", "drop hf-s3cret-0001")
    built = plan_once(res, plan.Target("t.py"), run_id="r", extra_findings=(leak,))
    for text in (render.plan_text(built), render.run_header(built)):
        assert "hf-s3cret-0001" not in text and "saw ***" in text


def test_a_secret_quoted_with_its_carriage_return_is_scrubbed_too() -> None:
    """An env file saved on Windows: the token ends in \\r, and a finding about another
    variable holding the same value shows it quoted, escape and all."""
    res = _resolve({}, sets=("HF_TOKEN=hf-s3cret-0001\r",))
    leak = Finding("LX999", "warning", "X", "X='hf-s3cret-0001\\r': odd", "unset X")
    built = plan_once(res, plan.Target("t.py"), run_id="r", extra_findings=(leak,))
    text = render.plan_text(built)
    assert "s3cret" not in text and "X='***': odd" in text


# --- the real run's header --------------------------------------------------------------------


def test_run_header_says_launchx_moved_a_held_port() -> None:
    """--master-port 29500 held by another job: the run uses another port, and says why."""
    res = _resolve({}, {"master_port": "29500"})
    held = {29500: PortHolder(29500, 4242, "python -c \nimport time\n" + "x = 1\n" * 40)}
    res = replace(res, facts=replace(res.facts, listening=held))
    built = plan_once(res, plan.Target("t.py"), run_id="r", master_port=31234)
    assert [f.code for f in built.findings if f.level == "info"] == ["LX208"]
    header = render.run_header(built)
    assert "31234" in header
    assert "LX208 MASTER_PORT:" in header and "pid 4242: python -c import time x = 1" in header
    # the holder's many-line program is one short line; the note says whose port it was
    note = next(line for line in header.splitlines() if "LX208" in line)
    assert "x = 1 x = 1" in note and len(note) < 260 and "\\n" not in note


def test_a_held_ports_shortened_command_line_never_cuts_a_secret_in_half() -> None:
    """The holder's command line is cut to one line before secrets are scrubbed, so it is
    cut between words: a token half shown would not be recognised and hidden."""
    token = "hf_" + "A1b2C3d4E5" * 4
    res = _resolve({}, {"master_port": "29500"}, (f"HF_TOKEN={token}",))
    for lead in ("python train.py --lr 3e-4 --epochs 3 --hf-token", "python t.py --hf-token"):
        held = {29500: PortHolder(29500, 4242, f"{lead} {token} --more")}
        res = replace(res, facts=replace(res.facts, listening=held))
        built = plan_once(res, plan.Target("t.py"), run_id="r", master_port=31234)
        header = render.run_header(built)
        assert "pid 4242: python" in header and token[:8] not in header, header
    assert "launchx uses another free port instead of 29500 (from flag:" in header
    assert "to keep 29500, stop pid 4242 first" in header


def test_run_header_leaves_out_notes_on_the_users_own_choices() -> None:
    """LX140 (debug logging left on) is the user's choice, not a change: explain shows it,
    a run does not repeat it before every attempt."""
    res = _resolve({"NCCL_DEBUG": "INFO"})
    built = plan_once(res, plan.Target("t.py"), run_id="r", master_port=31234)
    assert "LX140" in {f.code for f in built.findings}
    assert "LX140" not in render.run_header(built)


def test_the_table_quotes_a_value_and_an_overridden_one_whose_edges_hide_a_fault() -> None:
    res = _resolve({"NCCL_DEBUG": "WARN "}, sets=("NCCL_DEBUG=INFO\t",))
    table = render.explain_table(res, plan.decide_launcher(res), ())
    row = next(line for line in table.splitlines() if line.startswith("NCCL_DEBUG "))
    assert "'INFO\\t'" in row and "was 'WARN ' from env" in row
