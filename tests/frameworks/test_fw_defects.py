"""Issue 10, defect by defect, as a user meets each one: real ``launchx`` processes, real
faults from outside. Every test here failed on the code the issue was filed against. Each
run has a deadline; the hang of defect 2 is killed with its whole tree when the deadline
passes, so nothing here can hang CI.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import sys
import time
from pathlib import Path

import pytest
from fwkit import (
    FAST_RETRY,
    SCRIPTS,
    Finished,
    base_env,
    by_rank,
    failure_lines,
    launchx,
    require,
    run_with_fault,
    start,
    summary_rows,
)

from launchx.profile_model import Logs

pytestmark = pytest.mark.frameworks

PYTHON = sys.executable
RUN = ["run", "-p", "local", "--nproc-per-node", "2"]
HELLO = """import os, sys
ev = os.environ.get("FW_EVIDENCE")
if ev:
    os.makedirs(ev, exist_ok=True)
    open(os.path.join(ev, f"hello.{os.environ.get('RANK')}.{os.getpid()}"), "w").write(
        os.environ.get("WORLD_SIZE", "?"))
print("hello from rank", os.environ.get("RANK"), "of", os.environ.get("WORLD_SIZE"), flush=True)
sys.exit(int(os.environ.get("FW_EXIT", "0")))
"""


def hello(tmp: Path) -> Path:
    script = tmp / "train.py"
    script.write_text(HELLO)
    return script


def quick(tmp: Path, args: list[str], timeout: float = 60, **env: str) -> Finished:
    """A short ``launchx`` run of the hello script's kind, killed at the deadline."""
    run = launchx(args, tmp, base_env(tmp, FW_EVIDENCE=str(tmp / "ev"), **env))
    code, text = run.finish(timeout)
    return Finished(code, text, run.raw, tmp)


def worlds(evidence: Path) -> list[str]:
    return (
        sorted(p.name.split(".")[1] for p in evidence.glob("hello.*")) if evidence.is_dir() else []
    )


# --------------------------------------------------------------------------- 1 and 2


@pytest.mark.parametrize(
    "inner",
    [
        ["--no-python", "torchrun", "--nproc-per-node", "2"],
        ["-m", "torch.distributed.run", "--nproc-per-node", "2"],
        ["--no-python", "env", "A=1", PYTHON, "-m", "torch.distributed.run", "--nproc-per-node=2"],
    ],
    ids=["torchrun", "module", "env-python-module"],
)
def test_defect1_nested_launcher_is_refused(tmp_path: Path, inner: list[str]) -> None:
    script = hello(tmp_path)
    done = quick(tmp_path, [*RUN, *inner, str(script)])
    assert worlds(tmp_path / "ev") == [], "the ranks must never start"
    assert done.code == 2, done.text[-3000:]
    assert "launcher" in done.text and "--launcher direct" in done.text


def test_defect1_nested_launcher_is_refused_under_dry_run(tmp_path: Path) -> None:
    script = hello(tmp_path)
    done = quick(tmp_path, [*RUN, "--dry-run", "--no-python", "torchrun", str(script)])
    assert done.code == 2, done.text[-3000:]
    assert "torchrun" in done.text


def test_defect2_accelerate_launch_inside_launchx_never_hangs(tmp_path: Path) -> None:
    """Without the fix this run hangs (846 s until Ctrl-C in the report); the deadline
    kills it and its whole tree, and the test fails instead of hanging CI."""
    require("accelerate")
    accelerate = Path(PYTHON).parent / "accelerate"
    script = SCRIPTS / "accelerate_hello.py"
    args = [*RUN, "--no-python", str(accelerate), "launch", "--num_processes", "2", str(script)]
    done = quick(tmp_path, args, timeout=20)
    assert done.code is not None, f"still running after 20 s:\n{done.text[-2000:]}"
    assert done.code == 2 and "accelerate" in done.text


# --------------------------------------------------------------------------- 4


def test_defect4_external_sigkill_is_retried_by_default(tmp_path: Path) -> None:
    args = [*RUN, "--checkpoint-dir", "out", "--resume-arg", "--init_from=resume", *FAST_RETRY]
    script = [str(SCRIPTS / "nanogpt_train.py"), "--out_dir=out"]
    done = run_with_fault(tmp_path, [*args, *script], pause_at=12, signum=signal.SIGKILL)
    assert "host_oom_killed" not in done.text
    assert "SIGKILL" in "\n".join(failure_lines(done.text) + done.text.splitlines()[-20:])
    assert done.code == 0, done.text[-3000:]
    assert [row[2] for row in summary_rows(done.text)] == ["exit 137", "ok"]


# --------------------------------------------------------------------------- 5 and 6


@pytest.mark.parametrize("dry_run", [False, True], ids=["run", "dry-run"])
def test_defect5_typo_in_the_script_name(tmp_path: Path, dry_run: bool) -> None:
    hello(tmp_path)
    done = quick(tmp_path, [*RUN, *(["--dry-run"] if dry_run else []), "trian.py"])
    assert "can't open file" not in done.text, "refused before python tried to open it"
    assert done.code == 2, done.text[-3000:]
    assert "trian.py" in done.text and "train.py" in done.text.replace("trian.py", "")
    assert "NCCL" not in done.text


def test_defect6_missing_executable(tmp_path: Path) -> None:
    done = quick(tmp_path, [*RUN, "--no-python", "no-such-tool-lx10", "--flag"])
    assert done.code == 2, done.text[-3000:]
    assert "no-such-tool-lx10" in done.text and "PATH" in done.text
    assert "user_code_error" not in done.text


# --------------------------------------------------------------------------- 7 and 8


def test_defect7_sigterm_to_one_worker(tmp_path: Path) -> None:
    args = [*RUN, "--max-retries", "0", str(SCRIPTS / "nanogpt_train.py"), "--out_dir=out"]
    done = run_with_fault(tmp_path, args, pause_at=12, signum=signal.SIGTERM)
    header = failure_lines(done.text)
    assert header, done.text[-3000:]
    assert "on rank 1" in header[0], header
    assert "interrupt" not in header[0].lower()


def test_defect8_the_launcher_itself_is_killed(tmp_path: Path) -> None:
    require("transformers", "accelerate")
    hf = [str(SCRIPTS / "hf_train.py"), "--output_dir", "out", "--max_steps", "30"]
    hf += ["--save_steps", "5", "--per_device_train_batch_size", "2", "--report_to", "none"]
    done = run_with_fault(tmp_path, [*RUN, *hf], pause_at=12, kill_launcher=True)
    text = done.text
    # launchx's own lines start on a fresh line (not glued to the end of a progress bar)
    glued = [line for line in text.splitlines() if line.find("launchx: ") > 0]
    assert not glued, glued
    assert "would fail the same way" not in text
    lower = text.lower()
    assert "torchrun" in lower and ("sigkill" in lower or "signal 9" in lower)
    assert "not retried by default" in lower or "retry.on" in text


# --------------------------------------------------------------------------- 9


def test_defect9_conflicting_nproc_inside_a_torchrun_worker(tmp_path: Path) -> None:
    script = hello(tmp_path)
    argv = [PYTHON, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--no-python"]
    argv += [PYTHON, "-m", "launchx", "run", "-p", "local", "--nproc-per-node", "4", str(script)]
    run = start(argv, tmp_path, base_env(tmp_path, FW_EVIDENCE=str(tmp_path / "ev")))
    code, text = run.finish(90)
    assert worlds(tmp_path / "ev") == [], "the script must not start"
    assert code == 1, text[-3000:]  # torchrun's own code when a worker failed
    # the worker that failed first is the inner launchx, and it refused: exit 2
    root_cause = text.partition("Root Cause (first observed failure)")[2]
    assert re.search(r"exitcode\s*:\s*2 \(pid", root_cause), text[-3000:]
    # one LX212 message per refusing launchx (the other worker may be stopped first), each
    # naming both the count asked for and the world torchrun already started
    refusal = [line for line in text.splitlines() if "LX212" in line]
    assert refusal, text[-3000:]
    for line in refusal:
        assert "error" in line and "4 processes per node asked for" in line, line
        assert "torchrun" in line and "already started 2 on this node" in line, line


# --------------------------------------------------------------------------- 10


def test_defect10_single_node_without_gpus_suggests_local(tmp_path: Path) -> None:
    script = hello(tmp_path)
    done = quick(tmp_path, ["run", "-p", "single-node", "--dry-run", str(script)])
    assert done.code == 2
    assert "-p local" in done.text and "--nproc-per-node 0" not in done.text


def test_defect10_explain_says_who_reads_the_pg_timeout(tmp_path: Path) -> None:
    done = quick(tmp_path, ["explain", "-p", "local"])
    rows = [line for line in done.text.splitlines() if "LAUNCHX_PG_TIMEOUT_S" in line]
    assert rows and any("init_distributed" in row for row in rows), rows


def test_defect10_banner_says_the_port_moved(tmp_path: Path) -> None:
    script = hello(tmp_path)
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        done = quick(tmp_path, [*RUN, "--master-port", str(port), str(script)])
    assert done.code == 0, done.text[-3000:]
    banner = next(line for line in done.text.splitlines() if line.startswith("launchx: profile"))
    assert str(port) in banner and "busy" in banner


def test_defect10_flat_log_layout(tmp_path: Path) -> None:
    script = hello(tmp_path)
    done = quick(tmp_path, [*RUN, "--log-dir", "logs", str(script)])
    assert done.code == 0, done.text[-3000:]
    files = [
        p.relative_to(tmp_path / "logs") for p in (tmp_path / "logs").rglob("*") if p.is_file()
    ]
    per_rank = [
        f for f in files if re.fullmatch(r"attempt[-_]?0/rank[-_]?[01](\.log)?", f.as_posix())
    ]
    assert len(per_rank) == 2, sorted(map(str, files))
    assert all(len(f.parts) <= 2 for f in files), sorted(map(str, files))


@pytest.mark.parametrize("keep", [None, 5], ids=["default", "configured"])
def test_defect10_default_log_root_is_pruned(tmp_path: Path, keep: int | None) -> None:
    """Exactly ``logs.keep_runs`` runs stay under the default log root: this one and the
    newest of the others (by modification time, not by name)."""
    script = hello(tmp_path)
    root = tmp_path / "tmp" / "launchx"
    root.mkdir(parents=True)
    old = time.time() - 30 * 86400
    made: list[str] = []  # oldest first; the names run against their age
    for i in range(120):
        run_dir = root / f"lx-{119 - i:012x}"
        (run_dir / "attempt_0").mkdir(parents=True)
        (run_dir / "attempt_0" / "launcher.log").write_text("old run\n")
        # a launchx run always has its events: only such directories are pruned
        (run_dir / "events.jsonl").write_text('{"event": "run_start"}\n')
        os.utime(run_dir, (old + i, old + i))
        made.append(run_dir.name)
    kept = keep if keep is not None else Logs().keep_runs
    assert kept == (5 if keep is not None else 20)
    setting = ["--set", f"logs.keep_runs={keep}"] if keep is not None else []
    # a failed run keeps its own logs
    done = quick(tmp_path, [*RUN, *setting, str(script)], FW_EXIT="3")
    assert done.code == 3, done.text[-3000:]
    left = {p.name for p in root.iterdir()}
    ours = left - set(made)
    assert len(ours) == 1 and (root / ours.pop()).is_dir(), sorted(left)
    assert sorted(left & set(made)) == sorted(made[-(kept - 1) :]), sorted(left)
    assert len(left) == kept


def test_the_hello_script_runs_in_one_world(tmp_path: Path) -> None:
    """The baseline the refusals above are measured against (passes today)."""
    script = hello(tmp_path)
    done = quick(tmp_path, [*RUN, str(script)])
    assert done.code == 0, done.text[-3000:]
    assert worlds(tmp_path / "ev") == ["0", "1"]
    assert sorted(by_rank(done.text, 0) + by_rank(done.text, 1)) == [
        "hello from rank 0 of 2",
        "hello from rank 1 of 2",
    ]
