"""Rendering of ``launchx sbatch`` scripts: golden files, quoting, precedence, validation.

Golden files live in ``tests/golden/sbatch/<layout>.sh`` and are compared whole. After an
intended change, regenerate them and review the diff:

    LAUNCHX_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_slurm_render.py

Quoting is proved by running the rendered body with bash and a stub interpreter that writes
the argv it received, NUL-separated, to a file.
"""

from __future__ import annotations

import difflib
import os
import shlex
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from launchx import slurm_client
from launchx.errors import ConfigError, LaunchxError, SubmitError
from launchx.hostlist import compress
from launchx.origin import DEFAULT, SET, Origin
from launchx.pipeline import Request
from launchx.profile_model import Profile, Slurm
from launchx.sbatch import BatchRequest, deliver, script_text
from launchx.slurm import (
    DEFAULT_SIGNAL,
    FLAG_NAMES,
    frozen_profile_yaml,
    heredoc_delimiter,
    merge_options,
    origins_text,
    render_sbatch,
    sbatch_lines,
)
from launchx.slurm_client import (
    job_exit_code,
    parse_job_record,
    requeue,
    srun_job_id,
    step_of_srun,
    submit,
    wait_for_job,
)

GOLDEN_DIR = Path(__file__).parent / "golden" / "sbatch"
PWNED = "PWNED"

LAYOUTS: dict[str, Slurm] = {
    "per_node": Slurm(
        mode="per_node",
        nodes=2,
        gpus_per_node=8,
        cpus_per_task=64,
        time="12:00:00",
        partition="gpu",
        output="logs/%x-%j.out",
    ),
    "per_node_requeue": Slurm(
        mode="per_node",
        nodes=4,
        gpus_per_node=8,
        cpus_per_task=64,
        time="2-00:00:00",
        partition="gpu",
        requeue=True,
        sbatch_args=("--constraint=h800", "--exclusive"),
    ),
    "per_task": Slurm(
        mode="per_task",
        nodes=2,
        gpus_per_node=8,
        cpus_per_task=8,
        time="4:00:00",
        account="proj-a",
        qos="normal",
    ),
    "per_task_requeue": Slurm(
        mode="per_task",
        nodes=2,
        ntasks_per_node=4,
        cpus_per_task=2,
        time="30",
        requeue=True,
        signal="USR1@300",
        job_name="llm 7b",
    ),
}

HOSTILE = [
    "a b",
    "it's",
    'say "hi"',
    "$(touch PWNED)",
    "`touch PWNED`",
    "; touch PWNED",
    "*",
    "?",
    "[a]",
    "a\nb",
    "\ttab",
    "\\",
    "\\n",
    "$HOME",
    "${HOME}",
    "!",
    "!!",
    "--",
    "-p",
    "",
    "~",
    "ünï 中文",
    "'\"",
    "#SBATCH --nodes=9",
    "EOF",
    "\r",
    "a'b\"c$d`e",
    "&& touch PWNED",
    "> PWNED",
    "x|touch PWNED",
    "$'\\x41'",
    "{a,b}",
    "%s %n",
    "LAUNCHX_PROFILE_x",
]


def _render(
    slurm: Slurm,
    name: str,
    script_argv: list[str],
    *,
    python: str,
    launchx_argv: tuple[str, ...] = (),
    flags: dict[str, object] | None = None,
    profile: Profile | None = None,
) -> tuple[str, str]:
    profile = profile or Profile(name=name, slurm=slurm)
    opts, _ = merge_options(profile.slurm, flags or {}, profile_name=name)
    frozen = frozen_profile_yaml(profile, opts)
    text = render_sbatch(
        options=opts,
        profile_name=name,
        frozen_profile_yaml=frozen,
        launchx_argv=launchx_argv,
        script_argv=script_argv,
        version="1.2.3",
        command_line="launchx sbatch -p " + shlex.join([name, *script_argv]),
        python=python,
    )
    return text, frozen


# ------------------------------------------------------------------------ golden files


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_golden(layout: str) -> None:
    text, _ = _render(
        LAYOUTS[layout],
        layout,
        ["train.py", "--epochs", "3"],
        python="/opt/venv/bin/python",
        launchx_argv=("--max-retries", "2"),
    )
    path = GOLDEN_DIR / f"{layout}.sh"
    if os.environ.get("LAUNCHX_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"no golden file {path}; run with LAUNCHX_UPDATE_GOLDEN=1"
    expected = path.read_text()
    if text != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True), text.splitlines(True), f"golden/{path.name}", "rendered"
            )
        )
        pytest.fail(
            f"rendered script differs from the golden file "
            f"(LAUNCHX_UPDATE_GOLDEN=1 to accept):\n{diff}"
        )


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_golden_scripts_are_valid_bash(layout: str) -> None:
    path = GOLDEN_DIR / f"{layout}.sh"
    proc = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def test_layouts_differ_where_they_should() -> None:
    per_node, _ = _render(LAYOUTS["per_node"], "x", ["t.py"], python="python3")
    per_task, _ = _render(LAYOUTS["per_task"], "x", ["t.py"], python="python3")
    assert "#SBATCH --ntasks-per-node=1\n" in per_node
    assert "#SBATCH --ntasks-per-node=8\n" in per_task  # from --gpus-per-node
    assert "#SBATCH --no-requeue\n" in per_node and "--signal" not in per_node
    requeue, _ = _render(LAYOUTS["per_node_requeue"], "x", ["t.py"], python="python3")
    assert "#SBATCH --requeue\n" in requeue
    assert f"#SBATCH --signal={DEFAULT_SIGNAL}\n" in requeue
    assert "#SBATCH --open-mode=append\n" in per_node and "#SBATCH --open-mode=append\n" in requeue


def test_sbatch_lines_sorted_and_before_first_command() -> None:
    text, _ = _render(LAYOUTS["per_node_requeue"], "x", ["t.py"], python="python3")
    lines = text.splitlines()
    sbatch = [ln for ln in lines if ln.startswith("#SBATCH")]
    assert sbatch == sorted(sbatch) and len(sbatch) >= 8
    # sbatch stops reading directives at the first command: all must come before it.
    first_command = next(i for i, ln in enumerate(lines) if ln and not ln.startswith("#"))
    assert max(lines.index(ln) for ln in sbatch) < first_command


# ------------------------------------------------------------------------ hostile strings


def _stub(tmp: Path) -> Path:
    """A fake interpreter: writes its argv NUL-separated to $STUB_OUT."""
    stub = tmp / "stub python"
    stub.write_text('#!/bin/bash\nprintf "%s\\0" "$@" > "$STUB_OUT"\n')
    stub.chmod(0o755)
    return stub


def _run_body(text: str, tmp: Path, job_id: str = "77") -> list[str]:
    script = tmp / "job.sh"
    script.write_text(text)
    out = tmp / "argv.bin"
    cwd = tmp / "cwd"
    cwd.mkdir(exist_ok=True)
    (cwd / "glob-bait").write_text("")  # an unquoted * or ? would expand to this
    env = {
        "PATH": os.environ["PATH"],
        "SLURM_SUBMIT_DIR": str(tmp),
        "SLURM_JOB_ID": job_id,
        "STUB_OUT": str(out),
        "HOME": "/nonexistent-home",
    }
    proc = subprocess.run(
        ["bash", str(script)], cwd=cwd, env=env, capture_output=True, check=False, timeout=30
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert not (cwd / PWNED).exists() and not (tmp / PWNED).exists()
    return out.read_bytes().decode().split("\0")[:-1]


def test_hostile_arguments_survive_verbatim(tmp_path: Path) -> None:
    stub = _stub(tmp_path)
    hostile_profile = Profile(
        name="hostile",
        slurm=LAYOUTS["per_node"],
        env={"X": "$(touch PWNED) `touch PWNED` 'q' \"d\"", "Y": "EOF\nLAUNCHX_PROFILE_\n$HOME"},
    )
    launchx_argv = ("--set", "NCCL_DEBUG=INFO $(touch PWNED)")
    text, frozen = _render(
        LAYOUTS["per_node"],
        "hostile",
        ["train.py", *HOSTILE],
        python=str(stub),
        launchx_argv=launchx_argv,
        profile=hostile_profile,
    )
    argv = _run_body(text, tmp_path)
    profile_path = tmp_path / ".launchx" / "77" / "profile.yaml"
    assert argv == [
        "-m",
        "launchx",
        "run",
        "-p",
        str(profile_path),
        *launchx_argv,
        "--",
        "train.py",
        *HOSTILE,
    ]
    assert profile_path.read_text() == frozen
    assert Profile.model_validate(__import__("yaml").safe_load(frozen)).env == hostile_profile.env


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(st.text(st.characters(exclude_characters="\0", exclude_categories=["Cs"])), max_size=4)
)
def test_any_argument_round_trips(tmp_path: Path, words: list[str]) -> None:
    stub = _stub(tmp_path)
    text, _ = _render(LAYOUTS["per_task"], "prop", ["t.py", *words], python=str(stub))
    assert _run_body(text, tmp_path)[6:] == ["t.py", *words]


def test_requeued_run_rewrites_the_same_profile(tmp_path: Path) -> None:
    stub = _stub(tmp_path)
    text, frozen = _render(LAYOUTS["per_node_requeue"], "rq", ["t.py"], python=str(stub))
    _run_body(text, tmp_path, job_id="5")
    _run_body(text, tmp_path, job_id="5")
    assert (tmp_path / ".launchx" / "5" / "profile.yaml").read_text() == frozen


def test_command_line_with_newline_stays_one_comment() -> None:
    profile = Profile(name="p")
    opts, _ = merge_options(profile.slurm, {}, profile_name="p")
    text = render_sbatch(
        options=opts,
        profile_name="p",
        frozen_profile_yaml="name: p\n",
        launchx_argv=(),
        script_argv=["t.py"],
        version="1",
        command_line="launchx sbatch t.py 'a\n#SBATCH --nodes=99'",
        python="python3",
    )
    assert "--nodes=99" not in "\n".join(ln for ln in text.splitlines() if ln.startswith("#SBATCH"))
    assert text.count("\n#SBATCH --nodes=") == 1


def test_heredoc_delimiter_never_collides() -> None:
    body = "a\nb\n"
    first = heredoc_delimiter(body)
    assert first not in body.splitlines()
    colliding = f"{first}\n{first}_1\n{first}_2\n"
    chosen = heredoc_delimiter(colliding)
    assert chosen not in colliding.splitlines()
    # deterministic: the same content gives the same terminator
    assert heredoc_delimiter(colliding) == chosen


def test_sbatch_arg_values_quoted() -> None:
    opts, _ = merge_options(Slurm(), dict(sbatch_args=("--comment=a b; c", "--exclusive")))
    lines = sbatch_lines(opts)
    assert "#SBATCH --comment='a b; c'" in lines and "#SBATCH --exclusive" in lines
    # an option and its value in one --sbatch-arg, as typed after sbatch: sbatch reads the
    # directive as shell words, so the value is one word beside the option, never quoted
    # with it ('--mem 10G' is no option)
    opts, _ = merge_options(
        Slurm(), dict(sbatch_args=("--mem 10G", "-w node1", "-xnode2", "--comment a b"))
    )
    lines = sbatch_lines(opts)
    for line in ("--mem=10G", "-w node1", "-x node2", "--comment='a b'"):
        assert f"#SBATCH {line}" in lines, lines


# ------------------------------------------------------------------------ precedence

_SAMPLES: dict[str, tuple[object, object]] = {
    "mode": ("per_node", "per_task"),
    "nodes": (2, 3),
    "gpus_per_node": (4, 8),
    "ntasks_per_node": (2, 4),
    "cpus_per_task": (4, 16),
    "time": ("10", "1-00:00:00"),
    "partition": ("a", "b"),
    "account": ("acct-a", "acct-b"),
    "qos": ("low", "high"),
    "job_name": ("from-profile", "from-flag"),
    "output": ("p-%j.out", "f-%j.out"),
    "signal": ("B:USR1@60", "B:USR2@300"),
    "requeue": (False, True),
}


def _base(name: str) -> dict[str, object]:
    """Other fields a sample needs to be valid (per_task so ntasks_per_node may vary)."""
    if name == "mode":
        return {"ntasks_per_node": 1}
    if name == "ntasks_per_node":
        return {"mode": "per_task"}
    return {"mode": "per_task", "ntasks_per_node": 2}


@pytest.mark.parametrize("name", sorted(_SAMPLES))
def test_flag_beats_profile(name: str) -> None:
    profile_value, flag_value = _SAMPLES[name]
    base = _base(name)
    slurm = Slurm.model_validate({**base, name: profile_value})
    opts, sources = merge_options(
        slurm,
        {name: flag_value},
        profile_name="prof",
    )
    assert getattr(opts, name) == flag_value
    assert origins_text(sources[name]) == f"flag:{FLAG_NAMES[name]}"
    opts, sources = merge_options(slurm, {}, profile_name="prof")
    assert getattr(opts, name) == profile_value
    assert origins_text(sources[name]) == "profile:prof"
    # A --set slurm.<name> is named as such; a flag still beats it.
    origins = {name: SET, **{k: Origin.profile("prof") for k in base}}
    opts, sources = merge_options(slurm, {}, profile_name="prof", origins=origins)
    assert getattr(opts, name) == profile_value
    assert origins_text(sources[name]) == f"--set slurm.{name}"
    opts, sources = merge_options(
        slurm,
        {name: flag_value},
        profile_name="prof",
        origins=origins,
    )
    assert origins_text(sources[name]) == f"flag:{FLAG_NAMES[name]}"


def test_origins_say_default_means_not_given() -> None:
    """A field the resolution calls default is not rendered, whatever the model holds."""
    opts, sources = merge_options(Slurm(time="1:00:00"), {}, origins={"time": DEFAULT})
    assert opts.time is None and origins_text(sources["time"]) == "default"


def test_defaults_and_their_source() -> None:
    opts, sources = merge_options(Slurm(), {}, profile_name="p")
    assert (opts.mode, opts.nodes, opts.ntasks_per_node, opts.requeue) == ("per_node", 1, 1, False)
    assert opts.signal is None  # the model's USR2@120 only matters with requeue
    assert opts.job_name == "launchx-p"
    assert {origins_text(sources[k]) for k in ("mode", "nodes", "signal", "time")} == {"default"}


def test_requeue_brings_the_default_warning_signal() -> None:
    opts, _ = merge_options(Slurm(requeue=True), {})
    assert opts.signal == DEFAULT_SIGNAL


def test_per_task_takes_tasks_from_gpus() -> None:
    opts, sources = merge_options(Slurm(mode="per_task"), dict(gpus_per_node=4))
    assert (
        opts.ntasks_per_node == 4
        and origins_text(sources["ntasks_per_node"]) == "flag:--gpus-per-node"
    )


# --nproc-per-node means processes per node in either mode: in per_task one task is one
# process, so it is the tasks per node (the node's `launchx run` plans srun with it).


def test_per_task_takes_tasks_from_nproc_per_node() -> None:
    opts, sources = merge_options(Slurm(mode="per_task"), dict(nodes=2), nproc_per_node="2")
    assert (
        opts.ntasks_per_node == 2
        and origins_text(sources["ntasks_per_node"]) == "flag:--nproc-per-node"
    )
    assert "#SBATCH --ntasks-per-node=2" in sbatch_lines(opts)


def test_per_task_nproc_beats_the_gpu_count() -> None:
    """4 ranks on 8-GPU nodes: the processes asked for, not one per GPU."""
    opts, sources = merge_options(
        Slurm(mode="per_task"),
        dict(gpus_per_node=8),
        nproc_per_node="4",
        nproc_source=Origin.profile("mine"),
    )
    assert opts.ntasks_per_node == 4 and origins_text(sources["ntasks_per_node"]) == "profile:mine"


def test_per_task_equal_tasks_and_nproc_are_fine() -> None:
    opts, sources = merge_options(Slurm(mode="per_task"), dict(ntasks_per_node=2), nproc_per_node=2)
    assert (
        opts.ntasks_per_node == 2
        and origins_text(sources["ntasks_per_node"]) == "flag:--ntasks-per-node"
    )


def test_per_task_tasks_and_nproc_that_disagree_are_refused_naming_both() -> None:
    with pytest.raises(ConfigError) as info:
        merge_options(
            Slurm(mode="per_task", ntasks_per_node=2),
            {},
            profile_name="mine",
            nproc_per_node="4",
        )
    message = info.value.message
    assert "--ntasks-per-node 2 (profile:mine)" in message
    assert "--nproc-per-node 4 (flag:--nproc-per-node)" in message
    assert info.value.hint and "same number" in info.value.hint


@pytest.mark.parametrize(
    ("value", "source"),
    [("auto", DEFAULT), ("gpu", Origin.flag("--nproc-per-node")), ("3", Origin.auto("cpu-count"))],
)
def test_per_task_ignores_nproc_the_node_resolves(value: str, source: Origin) -> None:
    """gpu/cpu/auto (or a count an auto rule found on the submitting host) are the compute
    node's to resolve: they set no task count, and give no disagreement."""
    opts, _ = merge_options(
        Slurm(mode="per_task"),
        dict(ntasks_per_node=2),
        nproc_per_node=value,
        nproc_source=source,
    )
    assert opts.ntasks_per_node == 2
    with pytest.raises(ConfigError, match="tasks per node"):
        merge_options(Slurm(mode="per_task"), {}, nproc_per_node=value, nproc_source=source)


def test_per_node_nproc_leaves_one_task_per_node() -> None:
    """per_node: torchrun on each node starts the processes; the task count stays 1."""
    opts, _ = merge_options(Slurm(), dict(nodes=2), nproc_per_node="4")
    assert (opts.mode, opts.ntasks_per_node) == ("per_node", 1)


def test_nproc_below_one_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"at least 1, got 0 \(flag:--nproc-per-node\)"):
        merge_options(Slurm(mode="per_task"), {}, nproc_per_node="0")


def test_sbatch_args_accumulate() -> None:
    opts, sources = merge_options(
        Slurm(sbatch_args=("--constraint=h800",)),
        dict(sbatch_args=("--exclusive",)),
        profile_name="p",
    )
    assert opts.sbatch_args == ("--constraint=h800", "--exclusive")
    assert origins_text(sources["sbatch_args"]) == "profile:p+flag:--sbatch-arg"


def test_sources_are_origins_worded_only_at_the_edge() -> None:
    """merge_options carries the typed record; the words are made by origins_text."""
    origins = {"time": SET, "partition": Origin.profile("base")}
    _opts, sources = merge_options(
        Slurm(time="1:00:00", partition="gpu", sbatch_args=("--exclusive",)),
        dict(nodes=2, sbatch_args=("--constraint=h800",)),
        profile_name="p",
        origins=origins,
    )
    assert sources["nodes"] == (Origin.flag("--nodes"),)
    assert sources["time"] == (Origin("set", "slurm.time"),)
    assert sources["partition"] == (Origin.profile("base"),)
    assert sources["account"] == (DEFAULT,)
    assert sources["sbatch_args"] == (Origin.profile("p"), Origin.flag("--sbatch-arg"))
    assert origins_text(()) == "default"


@pytest.mark.parametrize(
    ("given", "rendered"),
    [
        ("USR2@120", "B:USR2@120"),
        ("B:USR1@60", "B:USR1@60"),
        ("SIGUSR1@30", "B:USR1@30"),
        ("usr2", "B:USR2@60"),
        ("12@5", "B:12@5"),
        ("10@0", "B:10@0"),
    ],
)
def test_signal_forms(given: str, rendered: str) -> None:
    opts, _ = merge_options(Slurm(), dict(signal=given))
    assert opts.signal == rendered
    assert f"#SBATCH --signal={rendered}" in sbatch_lines(opts)


@pytest.mark.parametrize(
    "value", ["90", "10:30", "2:00:00", "1-12", "1-12:30", "1-12:30:15", "INFINITE", "unlimited"]
)
def test_time_formats_accepted(value: str) -> None:
    opts, _ = merge_options(Slurm(), dict(time=value))
    assert f"#SBATCH --time={value}" in sbatch_lines(opts)


# ------------------------------------------------------------------------ refusals


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (dict(time="1h"), "time limit"),
        (dict(time="1:2:3:4"), "time limit"),
        (dict(time=""), "empty"),
        (dict(signal="USR2@abc"), "[B:]SIGNAL@SECONDS"),
        (dict(signal="R:USR2@10"), "B: prefix"),
        (dict(signal="FOO@10"), "unknown signal"),
        (dict(signal="USR2@70000"), "65535"),
        (dict(signal="65@1"), "no signal number"),
        (dict(signal="TERM@0"), "only USR1 or USR2"),  # an interrupt: never requeued
        (dict(signal="B:KILL@120"), "only USR1 or USR2"),  # launchx itself killed
        (dict(signal="STOP@60"), "only USR1 or USR2"),
        (dict(signal="15@60"), "only USR1 or USR2"),
        (dict(job_name="a\nb"), "control character"),
        (dict(output="x\ty"), "control character"),
        (dict(partition="gpu\r"), "control character"),
        (dict(sbatch_args=("--nodes=3",)), "writes itself"),
        (dict(sbatch_args=("-N3",)), "writes itself"),
        (dict(sbatch_args=("--no-requeue",)), "writes itself"),
        (dict(sbatch_args=("--nodes 3",)), "writes itself"),
        (dict(sbatch_args=("-t 10",)), "writes itself"),
        (dict(sbatch_args=("--open-mode=truncate",)), "writes itself"),
        (dict(sbatch_args=("constraint=x",)), "not an option"),
        (dict(sbatch_args=("--comment=a\nb",)), "control character"),
        (dict(nodes=0), "at least 1"),
        (dict(cpus_per_task=0), "at least 1"),
        (dict(gpus_per_node=-1), "0 or more"),
        (dict(ntasks_per_node=8), "per_node"),
        (dict(mode="per_task"), "tasks per node"),
        (dict(mode="bogus"), "per_node or"),  # type: ignore[arg-type]
    ],
)
def test_invalid_values_refused(flags: dict[str, object], words: str) -> None:
    with pytest.raises(ConfigError) as info:
        merge_options(Slurm(), flags, profile_name="p")
    assert words in info.value.message, info.value.message
    assert info.value.hint


def test_invalid_profile_value_names_the_profile() -> None:
    with pytest.raises(ConfigError, match=r"profile:mine"):
        merge_options(Slurm(time="soon"), {}, profile_name="mine")


def test_render_needs_a_script() -> None:
    opts, _ = merge_options(Slurm(), {})
    with pytest.raises(ConfigError, match="no script"):
        render_sbatch(
            options=opts,
            profile_name="p",
            frozen_profile_yaml="",
            launchx_argv=(),
            script_argv=(),
            version="1",
            command_line="",
            python="python3",
        )


def test_render_refuses_nul() -> None:
    opts, _ = merge_options(Slurm(), {})
    with pytest.raises(ConfigError, match="NUL"):
        render_sbatch(
            options=opts,
            profile_name="p",
            frozen_profile_yaml="",
            launchx_argv=(),
            script_argv=("t.py", "a\0b"),
            version="1",
            command_line="",
            python="python3",
        )


# ------------------------------------------------------------------------ scale


def test_4096_node_nodelist_renders_fast() -> None:
    hosts = [f"gpu{i:04d}" for i in range(1, 4097)]
    flat = "--nodelist=" + ",".join(hosts)
    compact = "--exclude=" + compress(hosts[::2])
    opts, _ = merge_options(Slurm(), dict(nodes=4096, sbatch_args=(flat, compact)))
    text, _ = _render(
        Slurm(),
        "big",
        ["t.py"],
        python="python3",
        flags=dict(nodes=4096, sbatch_args=(flat, compact)),
    )
    assert f"#SBATCH {flat}" in text.splitlines()
    assert f"#SBATCH --exclude={shlex.quote(compress(hosts[::2]))}" in text.splitlines()
    assert opts.nodes == 4096


# ------------------------------------------------------------------------ submission seams
# The real sbatch/scontrol are exercised in test_slurm_cluster.py; these pin the parsing and
# the polling logic with a scripted runner, clock and sleep.


class _Runner:
    def __init__(self, replies: list[tuple[int, str, str]]) -> None:
        self.replies = replies
        self.calls: list[tuple[list[str], str | None]] = []

    def __call__(
        self, argv: Sequence[str], stdin: str | None, cwd: Path | None
    ) -> subprocess.CompletedProcess[str]:
        self.calls.append((list(argv), stdin))
        rc, out, err = self.replies.pop(0)
        return subprocess.CompletedProcess(list(argv), rc, out, err)


def _job(state: str, code: str = "0:0") -> tuple[int, str, str]:
    return 0, f"JobId=7 JobName=x JobState={state} Reason=None ExitCode={code} RestartCnt=0\n", ""


@pytest.mark.parametrize(
    ("state", "code", "expected"),
    [
        ("PENDING", "0:0", None),
        ("RUNNING", "0:0", None),
        ("COMPLETING", "0:0", None),
        ("REQUEUED", "0:0", None),
        ("COMPLETED", "0:0", 0),
        ("FAILED", "3:0", 3),
        ("CANCELLED", "0:15", 143),
        ("TIMEOUT", "0:0", 1),
        ("NODE_FAIL", "0:0", 1),
        ("OUT_OF_MEMORY", "0:125", 253),
    ],
)
def test_job_exit_code(state: str, code: str, expected: int | None) -> None:
    assert job_exit_code(parse_job_record(_job(state, code)[1])) == expected


def test_wait_polls_until_the_end() -> None:
    runner = _Runner([_job("PENDING"), _job("RUNNING"), _job("FAILED", "4:0")])
    slept: list[float] = []
    assert wait_for_job("7", poll_s=0.5, sleep=slept.append, runner=runner) == 4
    assert slept == [0.5, 0.5]
    assert runner.calls[0][0] == ["scontrol", "show", "job", "-o", "7"]


def test_wait_says_each_change_of_state_once() -> None:
    def job(state: str, reason: str = "None", nodes: str = "(null)") -> tuple[int, str, str]:
        line = f"JobId=7 JobState={state} Reason={reason} ExitCode=0:0 NodeList={nodes}\n"
        return 0, line, ""

    runner = _Runner(
        [
            job("PENDING"),
            job("PENDING", "Priority"),
            job("PENDING", "Priority"),
            job("PENDING", "ReqNodeNotAvail,_UnavailableNodes:n[3-4]"),
            job("PENDING", "PartitionTimeLimit"),
            job("RUNNING", nodes="n[1-2]"),
            job("RUNNING", nodes="n[1-2]"),
            job("COMPLETED"),
        ]
    )
    said: list[str] = []
    assert wait_for_job("7", sleep=lambda s: None, runner=runner, say=said.append) == 0
    assert said == [
        "launchx: job 7 is pending; waiting for it to start",
        "launchx: job 7 is pending (Priority); waiting for it to start",
        "launchx: job 7 is pending (ReqNodeNotAvail); waiting for it to start",
        "launchx: job 7 is pending (PartitionTimeLimit): the time limit is longer than the "
        "partition allows; it will not start until that changes: scancel 7, fix the "
        "request, and submit again",
        "launchx: job 7 is running on n[1-2]",
    ]


@pytest.mark.parametrize("reason", sorted(slurm_client._NEVER_STARTS))
def test_a_reason_no_wait_clears_is_named_as_one(reason: str) -> None:
    line = slurm_client._progress("7", {"JobState": "PENDING", "Reason": reason})
    assert line is not None and f"pending ({reason}): " in line and "{" not in line
    assert line.endswith(
        "it will not start until that changes: scancel 7, fix the request, and submit again"
    )


def test_wait_times_out_on_its_clock() -> None:
    now = [0.0]

    def sleep(s: float) -> None:
        now[0] += s

    runner = _Runner([_job("RUNNING")] * 10)
    with pytest.raises(SubmitError, match="still not finished after 3 s"):
        wait_for_job("7", poll_s=1.0, timeout_s=3, clock=lambda: now[0], sleep=sleep, runner=runner)


def test_wait_reports_a_vanished_job() -> None:
    runner = _Runner([(1, "", "slurm_load_jobs error: Invalid job id specified\n")])
    with pytest.raises(SubmitError, match="Invalid job id"):
        wait_for_job("7", sleep=lambda s: None, runner=runner)


def test_submit_sends_the_script_and_parses_the_id() -> None:
    runner = _Runner([(0, "123;cluster\n", "")])
    assert submit("#!/bin/bash\ntrue\n", workdir="/tmp", runner=runner) == "123"
    assert runner.calls == [(["sbatch", "--parsable"], "#!/bin/bash\ntrue\n")]


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        ((1, "", "sbatch: error: invalid partition specified: x\n"), "invalid partition"),
        ((0, "Submitted batch job 5\n", ""), "instead of a job id"),
    ],
)
def test_submit_failures(reply: tuple[int, str, str], words: str) -> None:
    with pytest.raises(SubmitError, match=words):
        submit("x", workdir="/tmp", runner=_Runner([reply]))


@pytest.mark.parametrize(
    ("stderr", "code", "words"),
    [
        (
            "sbatch: error: Memory specification can not be satisfied\n"
            "sbatch: error: Batch job submission failed: Requested node configuration is not "
            "available\n",
            "LX813",
            "sinfo -p",
        ),
        (
            "sbatch: error: Batch job submission failed: Unable to contact slurm controller "
            "(connect failure)\n",
            "LX815",
            "scontrol ping",
        ),
    ],
)
def test_a_refused_submission_names_what_to_change(stderr: str, code: str, words: str) -> None:
    """sbatch's refusal is read by the rules that read it in a run's log: the same code and
    fix at submission as in ``launchx diagnose``, sbatch's own text kept above it."""
    with pytest.raises(SubmitError) as info:
        submit("x", workdir="/tmp", runner=_Runner([(1, "", stderr)]))
    assert stderr.strip() in info.value.message
    assert info.value.hint.startswith(f"{code}: ") and words in info.value.hint


def test_a_failure_the_rules_do_not_read_keeps_the_plain_hint() -> None:
    with pytest.raises(SubmitError) as info:
        submit("x", workdir="/tmp", runner=_Runner([(1, "", "sbatch: unrecognized option\n")]))
    assert info.value.hint.startswith("the text above is sbatch's own")


def test_requeue_failure_carries_scontrol_text() -> None:
    runner = _Runner([(1, "", "Requested operation is presently disabled for job 9\n")])
    with pytest.raises(SubmitError, match="presently disabled"):
        requeue("9", runner=runner)
    assert runner.calls[0][0] == ["scontrol", "requeue", "9"]


def test_scontrol_ended_by_the_requeue_it_asked_for_is_a_requeue() -> None:
    """Inside the job, the requeue's SIGTERM to the batch step can reach scontrol before
    slurmctld's reply does (CI on the local cluster): that is the requeue, not a failure."""
    runner = _Runner([(-signal.SIGTERM, "", "")])
    requeue("9", runner=runner)
    assert runner.calls[0][0] == ["scontrol", "requeue", "9"]
    # any other death or refusal still fails
    with pytest.raises(SubmitError, match="exit code -9"):
        requeue("9", runner=_Runner([(-signal.SIGKILL, "", "")]))


def test_missing_sbatch_is_a_submit_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(SubmitError, match="sbatch not found"):
        submit("x", workdir="/tmp")


# ------------------------------------------------------------------------ srun steps

# `scontrol show step -o 328` on slurm 22.05 (two sruns of one job; the second from node2).
SHOW_STEP = (
    "StepId=328.0 UserId=0 StartTime=2026-11-22T02:40:40 TimeLimit=UNLIMITED State=RUNNING "
    "Partition=debug NodeList=lxnode[1-2] Nodes=2 CPUs=2 Tasks=2 Name=sleep Network=(null) "
    "TRES=cpu=2,mem=0,node=2 ResvPorts=(null) CPUFreqReq=Default Dist=Cyclic "
    "SrunHost:Pid=vm:8955\n"
    "StepId=328.1 UserId=0 StartTime=2026-11-22T02:40:41 TimeLimit=UNLIMITED State=RUNNING "
    "Partition=debug NodeList=lxnode2 Nodes=1 CPUs=1 Tasks=1 Name=my job Network=(null) "
    "SrunHost:Pid=node2:9001\n"
)


def test_step_of_srun_matches_pid_and_host() -> None:
    assert step_of_srun(SHOW_STEP, 8955, "vm") == "328.0"
    assert step_of_srun(SHOW_STEP, 8955, "vm.cluster.example") == "328.0"  # short names
    assert step_of_srun(SHOW_STEP, 9001, "node2") == "328.1"
    assert step_of_srun(SHOW_STEP, 1234, "vm") is None  # our srun has no step yet
    assert step_of_srun("No job steps exist for this job\n", 8955, "vm") is None
    # the same pid on two hosts: only the host tells them apart
    twice = SHOW_STEP.replace("node2:9001", "node2:8955")
    assert step_of_srun(twice, 8955, "node2") == "328.1"
    assert step_of_srun(twice, 8955, "elsewhere") is None


@pytest.mark.parametrize(
    ("argv", "env", "job"),
    [
        (("srun", "--nodes=2", "x"), {"SLURM_JOB_ID": "42"}, "42"),
        (("/usr/bin/srun", "x"), {"SLURM_JOBID": "42"}, "42"),
        (("srun", "x"), {}, None),  # srun will ask for an allocation of its own
        (("python", "-m", "torch.distributed.run"), {"SLURM_JOB_ID": "42"}, None),
        ((), {"SLURM_JOB_ID": "42"}, None),
    ],
)
def test_srun_job_id(argv: tuple[str, ...], env: dict[str, str], job: str | None) -> None:
    assert srun_job_id(argv, env) == job


# ------------------------------------------------------------------------ the command's delivery
# `launchx sbatch` after parsing (sbatch.deliver): print, write, submit, wait. SLURM is the
# scripted runner above; the profile resolves against a recorded host.


def _no_warning(line: str) -> None:
    raise AssertionError(f"unexpected warning: {line}")


@pytest.fixture
def batch(in_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> BatchRequest:
    from conftest import HOSTS

    monkeypatch.setenv("LAUNCHX_HOST_ROOT", str(HOSTS / "cpu-laptop"))
    (in_tmp / "train.py").write_text("print('hi')\n")
    return BatchRequest(
        run=Request(profile="slurm"),
        options={"nodes": 2},
        script_argv=("train.py", "a b"),
        command_line="launchx sbatch -p slurm --nodes 2 train.py 'a b'",
        python="/opt/py/bin/python",
    )


def test_deliver_prints_the_script_when_not_written_or_submitted(batch: BatchRequest) -> None:
    printed: list[str] = []
    assert deliver(batch, echo=printed.append, warn=_no_warning) == 0
    assert printed == [script_text(batch)]
    assert "#SBATCH --nodes=2" in printed[0] and "# Options: --nodes=2 (flag:--nodes)" in printed[0]


def test_deliver_writes_the_file_and_prints_nothing(batch: BatchRequest, in_tmp: Path) -> None:
    printed: list[str] = []
    assert deliver(batch, out_file="job.sh", echo=printed.append, warn=_no_warning) == 0
    assert printed == [] and (in_tmp / "job.sh").read_text() == script_text(batch)
    with pytest.raises(LaunchxError, match="cannot write") as info:
        deliver(
            batch, out_file=str(in_tmp / "no" / "job.sh"), echo=printed.append, warn=_no_warning
        )
    assert info.value.hint == "pass a writable path to -o"


def test_deliver_refuses_to_submit_a_script_that_is_not_here(
    batch: BatchRequest, in_tmp: Path
) -> None:
    """The job runs the script from this directory: one that is not there would wait in
    the queue to fail. Only rendered, it is said, since the script may be for elsewhere."""
    (in_tmp / "train.py").unlink()
    (in_tmp / "trian.py").write_text("")
    runner = _Runner([(0, "42\n", "")])
    with pytest.raises(LaunchxError, match=r"LX211 script 'train\.py' not found") as info:
        deliver(batch, submit=True, echo=lambda s: None, warn=_no_warning, runner=runner)
    assert runner.calls == [] and "trian.py" in (info.value.hint or "")
    printed: list[str] = []
    warned: list[str] = []
    assert deliver(batch, echo=printed.append, warn=warned.append) == 0
    assert printed == [script_text(batch)]
    assert len(warned) == 1 and "LX211" in warned[0] and "--submit refuses it" in warned[0]


def test_deliver_waits_only_for_a_submitted_job(batch: BatchRequest) -> None:
    runner = _Runner([])
    with pytest.raises(LaunchxError, match="--wait only applies with --submit"):
        deliver(batch, wait=True, echo=lambda s: None, warn=_no_warning, runner=runner)
    assert runner.calls == []


def test_deliver_submits_prints_the_id_and_waits_for_the_exit_code(batch: BatchRequest) -> None:
    printed: list[str] = []
    runner = _Runner([(0, "42;cluster\n", ""), _job("FAILED", "3:0")])
    assert (
        deliver(batch, submit=True, wait=True, echo=printed.append, warn=_no_warning, runner=runner)
        == 3
    )
    assert printed == ["42\n"]  # the id only: the script goes to sbatch, not the console
    assert runner.calls[0] == (["sbatch", "--parsable"], script_text(batch))
    assert runner.calls[1][0] == ["scontrol", "show", "job", "-o", "42"]
    runner = _Runner([(0, "43\n", "")])
    assert deliver(batch, submit=True, echo=printed.append, warn=_no_warning, runner=runner) == 0
    assert printed[-1] == "43\n" and len(runner.calls) == 1


@pytest.mark.parametrize(
    ("given", "frozen_as"),
    [("127.0.0.1", "auto"), ("localhost", "auto"), ("[::1]", "auto"), ("node0", "node0")],
)
def test_a_loopback_master_becomes_slurms_first_node(given: str, frozen_as: str) -> None:
    """``launchx sbatch -p local --nodes 2``: every node would dial itself at 127.0.0.1 and
    wait out the rendezvous; the allocation names the master, as it names the nodes."""
    profile = Profile(name="local", nnodes="1", master_addr=given)
    _, frozen = _render(Slurm(nodes=2), "local", ["train.py"], python="p", profile=profile)
    data = yaml.safe_load(frozen)
    assert (data["nnodes"], data["master_addr"]) == ("auto", frozen_as)
