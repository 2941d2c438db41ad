"""`launchx run` with real torchrun processes on the CPU (gloo): several ranks, two
"nodes" on loopback, nested launches in real environments, ports, signals, quoting."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import PYTHON, clean_env, free_pair, free_port, run_cli

pytestmark = pytest.mark.torchrun

WORKER = r"""
import json, os, sys, time
import torch, torch.distributed as dist
out = sys.argv[1]
mode = sys.argv[2] if len(sys.argv) > 2 else "allreduce"
if mode == "sleep":
    with open(os.path.join(out, f"pid.{os.environ['RANK']}"), "w") as fh:
        fh.write(str(os.getpid()))
    if len(sys.argv) > 3 and sys.argv[3] == "ignore-term":
        import signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if len(sys.argv) > 3 and sys.argv[3] == "count-int":
        # a script that saves its state on the first Ctrl-C: each SIGINT it gets is a line
        import signal
        def count(signum, frame):
            with open(os.path.join(out, f"sigint.{os.environ['RANK']}"), "a") as fh:
                fh.write("x")
        signal.signal(signal.SIGINT, count)
        for _ in range(100):
            time.sleep(0.1)
            if os.path.exists(os.path.join(out, f"sigint.{os.environ['RANK']}")):
                time.sleep(1.0)  # (time for a second one to arrive)
                sys.exit(0)
    time.sleep(600)
dist.init_process_group("gloo")
t = torch.tensor([float(dist.get_rank() + 1)])
dist.all_reduce(t)
keys = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
        "LAUNCHX_RUN_ID", "LAUNCHX_ATTEMPT", "LAUNCHX_PROFILE", "LAUNCHX_PG_TIMEOUT_S",
        "OMP_NUM_THREADS", "TORCHELASTIC_RUN_ID"]
evidence = {k: os.environ.get(k) for k in keys}
evidence["sum"] = t.item()
evidence["argv"] = sys.argv[3:]
print(f"hello from rank {dist.get_rank()}", flush=True)
with open(os.path.join(out, f"rank{dist.get_rank()}.json"), "w") as fh:
    json.dump(evidence, fh)
dist.destroy_process_group()
"""


@pytest.fixture
def worker(tmp_path: Path) -> Path:
    path = tmp_path / "worker.py"
    path.write_text(WORKER)
    return path


def evidence(out: Path) -> dict[int, dict[str, object]]:
    return {int(p.stem[4:]): json.loads(p.read_text()) for p in out.glob("rank*.json")}


def launchx(
    args: list[str], environ: dict[str, str] | None = None, cwd: Path | None = None, **kw: object
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "launchx", *args],
        text=True,
        env=environ or clean_env(),
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        **kw,
    )  # type: ignore[call-overload]


def finish(proc: subprocess.Popen[str], timeout: float = 120) -> tuple[int, str]:
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"launchx did not finish in {timeout}s:\n{out}")
    return proc.returncode, out


def test_two_ranks_all_reduce(worker: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    code, text = finish(launchx(["run", str(worker), str(out)]))
    assert code == 0, text
    ev = evidence(out)
    assert sorted(ev) == [0, 1]
    assert all(e["sum"] == 3.0 for e in ev.values())
    assert ev[0]["LAUNCHX_RUN_ID"] == ev[1]["LAUNCHX_RUN_ID"]
    assert ev[0]["LAUNCHX_ATTEMPT"] == "0" and ev[0]["LAUNCHX_PROFILE"] == "local"
    assert ev[0]["LAUNCHX_PG_TIMEOUT_S"] == "300"
    assert "[r0]: hello from rank 0" in text and "[r1]: hello from rank 1" in text
    assert "launchx: profile local | launcher torchrun | 1 node(s) x 2 proc" in text


def test_console_ranks_show_one_rank_and_any_ranks_error(tmp_path: Path) -> None:
    """--console-ranks 0 (torchrun's --local-ranks-filter 0): rank 0's lines, the failing
    rank's traceback (torchrun's filter would hide it), every rank's lines in its log."""
    script = tmp_path / "w.py"
    script.write_text(
        "import torch.distributed as dist\n"
        "dist.init_process_group('gloo')\n"
        "r = dist.get_rank()\n"
        "print(f'step 1 loss from rank {r}', flush=True)\n"
        "dist.barrier()\n"
        "if r == 2:\n"
        "    {}['batch_size']\n"
        "import time; time.sleep(60)\n"  # (stopped by torchrun, no error of their own)
    )
    logs = tmp_path / "logs"
    args = ["run", "--nproc-per-node", "3", "--console-ranks", "0", "--log-dir", str(logs)]
    code, text = finish(launchx([*args, str(script)], cwd=tmp_path))
    assert code == 1, text
    assert "the console shows rank 0 and any other rank's lines from its first error on" in text
    assert "[r0]: step 1 loss from rank 0" in text
    assert "[r2]: KeyError: 'batch_size'" in text and "[r2]: Traceback" in text
    assert "[r1]:" not in text  # a quiet rank with no error of its own
    assert "user_code_error on rank 2" in text
    assert "step 1 loss from rank 1" in (logs / "attempt-0" / "rank-1.log").read_text()


def test_console_ranks_naming_no_rank_of_the_run_say_so(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text("pass\n")
    code, out, _err = run_cli(["run", "--dry-run", "--console-ranks", "5", "t.py"], cwd=tmp_path)
    assert code == 0
    assert "the console shows rank 5" in out and "this run's ranks are 0-1: only errors" in out


def test_status_without_a_directory_finds_a_run_with_its_own_log_dir(
    worker: Path, tmp_path: Path
) -> None:
    out, logs, tmp = tmp_path / "out", tmp_path / "mine", tmp_path / "tmp"
    out.mkdir()
    tmp.mkdir()
    env = {**clean_env(), "TMPDIR": str(tmp)}
    code, text = finish(launchx(["run", "--log-dir", str(logs), str(worker), str(out)], env))
    assert code == 0, text
    code, text = finish(launchx(["status"], env))
    run_id = evidence(out)[0]["LAUNCHX_RUN_ID"]
    assert code == 0 and text.startswith(f"run {run_id} (local): finished"), text
    # a second run into the same directory would write into this one's logs: refused
    before = {p: p.read_bytes() for p in logs.rglob("*") if p.is_file()}
    code, text = finish(launchx(["run", "--log-dir", str(logs), str(worker), str(out)], env))
    assert code == 2 and f"holds the logs of another run ({run_id})" in text, text
    assert {p: p.read_bytes() for p in logs.rglob("*") if p.is_file()} == before


def test_a_rerun_under_the_same_id_sets_the_ended_runs_logs_aside(
    worker: Path, tmp_path: Path
) -> None:
    """The first run failed; the user fixed the script and ran the same command: the second
    run's logs went into the first one's directory and diagnose reported the old failure."""
    out, tmp, bad = tmp_path / "out", tmp_path / "tmp", tmp_path / "bad.py"
    out.mkdir()
    tmp.mkdir()
    bad.write_text("raise KeyError('the old bug')\n")
    env = {**clean_env(), "TMPDIR": str(tmp)}
    code, text = finish(launchx(["run", "--run-id", "mine", str(bad)], env))
    assert code == 1, text
    runs = tmp / "launchx"
    code, text = finish(launchx(["run", "--run-id", "mine", str(worker), str(out)], env))
    assert code == 0, text
    assert f"its logs are now in {runs / 'mine.1'}" in text
    assert "the old bug" in (runs / "mine.1" / "attempt-0" / "rank-0.log").read_text()
    assert "the old bug" not in "".join(p.read_text() for p in (runs / "mine").rglob("*.log"))
    code, text = finish(launchx(["diagnose", str(runs / "mine")], env))
    assert code == 0 and "succeeded" in text and "KeyError" not in text, text
    code, text = finish(launchx(["status"], env))
    assert text.startswith("run mine (local): finished"), text


def test_a_node_on_another_host_sets_its_own_ended_logs_aside(worker: Path, tmp_path: Path) -> None:
    """Node 1 keeps its ranks' logs in its own host's temp dir (no file system shared with
    node 0, here: another TMPDIR): a rerun under the same id set only node 0's aside, and
    node 1's logs of the new run went into the old run's directory."""
    out, bad = tmp_path / "out", tmp_path / "bad.py"
    out.mkdir()
    bad.write_text(
        "import os\nif os.environ['RANK'] == '2':\n    raise KeyError('the old bug')\n"
        "import torch.distributed as dist\ndist.init_process_group('gloo')\ndist.barrier()\n"
    )
    tmps = [tmp_path / "host0", tmp_path / "host1"]

    def pair(script: list[str]) -> list[tuple[int, str]]:
        port = free_pair()
        procs = []
        for node in (1, 0):
            tmps[node].mkdir(exist_ok=True)
            env = {**clean_env(), "TMPDIR": str(tmps[node])}
            args = ["run", "--nnodes", "2", "--node-rank", str(node), "--run-id", "pair"]
            where = ["--master-addr", "127.0.0.1", "--master-port", str(port)]
            procs.append(launchx([*args, *where, "--max-retries", "0", *script], env))
        return [finish(p) for p in procs]

    results = pair([str(bad)])
    assert all(code != 0 for code, _ in results), results
    (_, t1), (c0, t0) = pair([str(worker), str(out)])
    assert c0 == 0, t0 + t1
    kept = [tmps[node] / "launchx" for node in (0, 1)]
    assert f"its logs are now in {kept[1] / 'pair.1'}" in t1
    assert "the old bug" in (kept[1] / "pair.1" / "attempt-0" / "rank-2.log").read_text()
    new_logs = "".join(p.read_text() for p in (kept[1] / "pair").rglob("*.log"))
    assert "the old bug" not in new_logs and new_logs
    assert (kept[0] / "pair.1").is_dir()


def test_a_node_stopped_before_node_0_came_does_not_wait_for_it(tmp_path: Path) -> None:
    """Node 1 started, node 0 never did, the user stopped node 1: it used to wait 5 s more
    for node 0's word on the outcome, from a launchx that was never there."""
    import time

    script = tmp_path / "ok.py"
    script.write_text("print('ok')\n")
    logs = tmp_path / "logs"
    args = ["run", "--nnodes", "2", "--node-rank", "1", "--master-addr", "127.0.0.1"]
    node1 = launchx([*args, "--master-port", str(free_pair()), "--log-dir", str(logs), str(script)])
    deadline = time.monotonic() + 60
    while (
        not (logs / "events-node-1.jsonl").is_file()
        or "attempt_start" not in (logs / "events-node-1.jsonl").read_text()
    ):
        assert time.monotonic() < deadline and node1.poll() is None
        time.sleep(0.1)
    node1.send_signal(signal.SIGTERM)
    code, text = finish(node1)
    assert code == 143, text
    assert "node 0's launchx never connected; this node decides alone" in text
    assert "did not answer" not in text


def test_two_nodes_on_loopback_form_world_of_four(worker: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    port = free_pair()
    common = [
        "run",
        "--nnodes",
        "2",
        "--master-addr",
        "127.0.0.1",
        "--master-port",
        str(port),
        "--log-dir",
        str(tmp_path / "logs"),
    ]
    node1 = launchx([*common, "--node-rank", "1", str(worker), str(out)])
    node0 = launchx([*common, "--node-rank", "0", str(worker), str(out)])
    (c0, t0), (c1, t1) = finish(node0), finish(node1)
    assert (c0, c1) == (0, 0), t0 + t1
    ev = evidence(out)
    assert sorted(ev) == [0, 1, 2, 3]
    assert {e["WORLD_SIZE"] for e in ev.values()} == {"4"}
    assert {e["sum"] for e in ev.values()} == {10.0}
    assert len({e["LAUNCHX_RUN_ID"] for e in ev.values()}) == 1
    # node rank 1 holds global ranks 2 and 3: deterministic static rendezvous
    for rank in (2, 3):
        assert (tmp_path / "logs" / "attempt-0" / f"rank-{rank}.log").is_file()


HOSTILE = [
    "two words",
    "it's",
    'say "hi"',
    "$(touch pwned)",
    "`id`",
    "; echo x",
    "$HOME",
    "back\\slash",
    "new\nline",
    "*",
    "",
    "--nnodes",
    "-m",
]


def test_script_arguments_reach_the_script_verbatim(worker: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    code, text = finish(
        launchx(
            ["run", "--nproc-per-node", "1", str(worker), str(out), "allreduce", *HOSTILE],
            cwd=tmp_path,
        )
    )
    assert code == 0, text
    assert evidence(out)[0]["argv"] == HOSTILE
    assert not (tmp_path / "pwned").exists()


def test_taken_port_on_one_node_still_runs(worker: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    with socket.socket() as held:
        held.bind(("", 0))
        held.listen()
        port = held.getsockname()[1]
        code, text = finish(launchx(["run", "--master-port", str(port), str(worker), str(out)]))
    assert code == 0, text
    used = {e["MASTER_PORT"] for e in evidence(out).values()}
    assert used and str(port) not in used


def test_taken_port_on_node_rank0_of_two_is_refused_naming_holder(tmp_path: Path) -> None:
    with socket.socket() as held:
        held.bind(("", 0))
        held.listen()
        port = held.getsockname()[1]
        code, out, err = run_cli(
            [
                "run",
                "--nnodes",
                "2",
                "--node-rank",
                "0",
                "--master-addr",
                "127.0.0.1",
                "--master-port",
                str(port),
                "x.py",
            ]
        )
    assert code == 2
    assert "LX207" in err and f"pid {os.getpid()}" in err
    assert "Traceback" not in err + out


def test_two_simultaneous_runs_on_one_host(worker: Path, tmp_path: Path) -> None:
    outs = [tmp_path / "a", tmp_path / "b"]
    for o in outs:
        o.mkdir()
    procs = [launchx(["run", str(worker), str(o)]) for o in outs]
    results = [finish(p) for p in procs]
    assert [c for c, _ in results] == [0, 0], results
    ports = [{e["MASTER_PORT"] for e in evidence(o).values()} for o in outs]
    assert ports[0] != ports[1]


@pytest.mark.parametrize("ignore_term", [False, True])
def test_sigterm_stops_every_rank_within_grace(
    worker: Path, tmp_path: Path, ignore_term: bool
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    args = ["run", "--grace-period", "3", str(worker), str(out), "sleep"]
    if ignore_term:
        args.append("ignore-term")
    proc = launchx(args)
    pids = _wait_for_pids(out, 2, proc)
    proc.send_signal(signal.SIGTERM)
    code, text = finish(proc, timeout=60)
    assert code != 0
    for pid in pids:
        assert not _alive(pid), f"rank pid {pid} survived launchx"
    assert "interrupted" in text


def test_ctrl_c_reaches_each_rank_once(worker: Path, tmp_path: Path) -> None:
    """torchrun passes the signal it gets on to its ranks: launchx gives it to torchrun
    alone, as a terminal gives it to a torchrun started by hand; a second one, from launchx
    as well, cut short the handler of a script that saves its state on the first."""
    out = tmp_path / "out"
    out.mkdir()
    proc = launchx(["run", "--grace-period", "10", str(worker), str(out), "sleep", "count-int"])
    _wait_for_pids(out, 2, proc)
    proc.send_signal(signal.SIGINT)
    code, text = finish(proc, timeout=60)
    assert code == 130, text
    assert {p.name: p.read_text() for p in out.glob("sigint.*")} == {
        "sigint.0": "x",
        "sigint.1": "x",
    }, text
    # torchrun's own traceback of the signal it got is its log's, not the console's
    assert "SignalException" not in text and "interrupted by SIGINT" in text


# The script warns its launchx as ``--signal B:USR2@N`` would, then waits for the warning
# launchx passes on, so launchx has seen it before the script exits.
WARNS_ITS_LAUNCHX = """
import os, signal
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2})
os.kill(os.getppid(), signal.SIGUSR2)
signal.sigwait({signal.SIGUSR2})
print("checkpointed at the warning", flush=True)
"""

# SLURM SIGTERMs the batch step it was asked to requeue, some time after ``scontrol
# requeue`` returns: here, exactly as launchx starts writing the run's record.
SIGTERM_AT_RUN_END = """
import os, signal, sys
from launchx import cli
from launchx.run.events import EventLog

written = EventLog.record

def record(self, event, **fields):
    if event == "run_end":
        os.kill(os.getpid(), signal.SIGTERM)
    written(self, event, **fields)

EventLog.record = record
cli.main(sys.argv[1:])
"""


def test_slurms_sigterm_after_a_requeue_does_not_cut_the_summary_short(tmp_path: Path) -> None:
    """The batch launchx asks for the requeue, and SLURM ends the step it runs in: the
    summary saying so still reaches the job's output, and launchx exits 0."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    scontrol = bin_dir / "scontrol"
    scontrol.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path / "scontrol.calls"}\n')
    scontrol.chmod(0o755)
    (tmp_path / "warns.py").write_text(WARNS_ITS_LAUNCHX)
    (tmp_path / "driver.py").write_text(SIGTERM_AT_RUN_END)
    environ = clean_env(
        SLURM_JOB_ID="77",
        SLURM_JOB_NODELIST="localhost",
        SLURM_NNODES="1",
        SLURM_JOB_NUM_NODES="1",
        SLURM_CPUS_ON_NODE="2",
        TMPDIR=str(tmp_path),  # the job's history and logs: this test's own
    )
    environ["PATH"] = f"{bin_dir}:{environ['PATH']}"
    args = ["run", "-p", "slurm", "--launcher", "direct", "--nproc-per-node", "1", "warns.py"]
    proc = subprocess.run(
        [PYTHON, str(tmp_path / "driver.py"), *args],
        capture_output=True,
        text=True,
        env=environ,
        cwd=tmp_path,
        timeout=120,
    )
    said = proc.stdout + proc.stderr
    assert (tmp_path / "scontrol.calls").read_text() == "requeue 77\n", said
    assert "launchx: requeued SLURM job 77" in said
    assert "launchx: requeued by SLURM after the time-limit warning" in said
    assert proc.returncode == 0, said


def test_dry_run_prints_the_exact_plan(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("print(1)\n")
    code, out, err = run_cli(["run", "--dry-run", "train.py", "--lr", "a b"], cwd=tmp_path)
    assert code == 0, err
    assert "torch.distributed.run" in out and "'a b'" in out
    assert "export LAUNCHX_PROFILE=local" in out
    # Drawn only at launch, and said so: never a value the real run would not use.
    assert "<free port at launch>: launchx draws a free port" in out
    assert "<new run id at launch>: launchx draws a new run id" in out
    code, out, err = run_cli(["run", "--dry-run", "--json", "train.py"], cwd=tmp_path)
    doc = json.loads(out)
    assert {"launcher", "argv", "env", "findings"} <= set(doc)
    assert doc["launcher"] == "torchrun" and doc["argv"][-1] == "train.py"
    assert doc["run_id"] is None and doc["master_port"] is None
    fixed = ["run", "--dry-run", "--json", "--run-id", "r1", "--master-port", "23456", "train.py"]
    doc = json.loads(run_cli(fixed, cwd=tmp_path)[1])
    assert (doc["run_id"], doc["master_port"]) == ("r1", 23456)
    assert "--master-port" in doc["argv"] and "23456" in doc["argv"]


# Nested launches, with real environments.
def test_nested_torchrun_worker_refuses_torchrun_and_runs_auto_directly(
    worker: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    port = free_port()
    inherited = clean_env(
        TORCHELASTIC_RUN_ID="outer",
        GROUP_RANK="0",
        ROLE_RANK="0",
        RANK="0",
        LOCAL_RANK="0",
        WORLD_SIZE="1",
        LOCAL_WORLD_SIZE="1",
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
    )
    code, _out, err = run_cli(["run", "--launcher", "torchrun", str(worker), str(out)], inherited)
    assert code == 2 and "rank 0 of 1 under torchrun already" in err
    assert "--launcher direct" in err
    code, text, err = run_cli(["run", str(worker), str(out)], inherited)
    assert code == 0, text + err
    ev = evidence(out)
    assert list(ev) == [0] and ev[0]["TORCHELASTIC_RUN_ID"] == "outer"


def test_nested_mpi_platform_maps_ranks(worker: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    port = free_port()
    mpi = clean_env(
        OMPI_COMM_WORLD_RANK="0",
        OMPI_COMM_WORLD_SIZE="1",
        OMPI_COMM_WORLD_LOCAL_RANK="0",
        OMPI_COMM_WORLD_LOCAL_SIZE="1",
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
    )
    code, _o, err = run_cli(["run", "--launcher", "torchrun", str(worker), str(out)], mpi)
    assert code == 2 and "platform-ddp" in err and "Open MPI" in err
    code, text, err = run_cli(["run", "-p", "platform-ddp", str(worker), str(out)], mpi)
    assert code == 0, text + err
    ev = evidence(out)[0]
    assert (ev["RANK"], ev["WORLD_SIZE"], ev["LOCAL_RANK"]) == ("0", "1", "0")


def test_nested_srun_multitask_step_refuses_torchrun() -> None:
    srun = clean_env(
        SLURM_JOB_ID="9",
        SLURM_JOB_NODELIST="n1",
        SLURM_NNODES="1",
        SLURM_NODEID="0",
        SLURM_STEP_ID="0",
        SLURM_NTASKS="2",
        SLURM_STEP_NUM_TASKS="2",
        SLURM_STEP_TASKS_PER_NODE="2",
        SLURM_TASKS_PER_NODE="2",
        SLURM_PROCID="0",
        SLURM_LOCALID="0",
    )
    code, _o, err = run_cli(
        ["run", "--launcher", "torchrun", "--nproc-per-node", "2", "t.py"], srun
    )
    assert code == 2 and "LX203" in err and "4 processes" in err


def test_nested_launchx_inside_launchx_is_refused() -> None:
    code, _o, err = run_cli(["run", "t.py"], clean_env(LAUNCHX_RUN_ID="lx-outer"))
    assert code == 2 and "LX204" in err


def test_a_log_dir_that_cannot_be_made_is_refused_before_the_run_says_anything(
    tmp_path: Path,
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    (tmp_path / "t.py").write_text("print('ran')\n")
    code, out, err = run_cli(["run", "--log-dir", str(blocker / "logs"), "t.py"], cwd=tmp_path)
    assert code == 2 and "cannot create the log directory" in err and "Traceback" not in err
    # nothing was started, and no header named logs that would never be written
    assert "launchx: logs in" not in out and "attempt 0" not in out and "ran" not in out


def test_too_many_processes_for_gpus_is_refused_before_launch(tmp_path: Path) -> None:
    from conftest import HOSTS

    trees = (
        [p for p in HOSTS.iterdir() if (p / "proc" / "driver" / "nvidia").is_dir()]
        if HOSTS.is_dir()
        else []
    )
    if not trees:
        pytest.skip("no recorded GPU host tree")
    environ = clean_env(LAUNCHX_HOST_ROOT=str(trees[0]))
    code, _o, err = run_cli(["run", "-p", "single-node", "--nproc-per-node", "64", "t.py"], environ)
    assert code == 2 and "LX205" in err
    code, _o, err = run_cli(
        ["run", "-p", "single-node", "--nproc-per-node", "2", "t.py"],
        dict(environ, CUDA_VISIBLE_DEVICES="0,0"),
    )
    assert code == 2 and "LX206" in err


def _wait_for_pids(
    out: Path, count: int, proc: subprocess.Popen[str], timeout: float = 60
) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        files = list(out.glob("pid.*"))
        if len(files) == count and all(f.read_text() for f in files):
            return [int(f.read_text()) for f in files]
        if proc.poll() is not None:
            pytest.fail(f"launchx exited early: {proc.communicate()[0]}")
        time.sleep(0.05)
    pytest.fail("ranks never started")


def _alive(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        try:  # a zombie whose parent is gone is as good as dead
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
            if state == "Z":
                return False
        except OSError:
            return False
        time.sleep(0.05)
    return True


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[1])


# A sitecustomize that the hook chains: it makes torchrun's agent hang at exit, as its
# --tee log threads were seen to after launchx was SIGKILLed.
HANG_AT_EXIT = """
import atexit, os, sys, time
if os.environ.get("RANK") is None and sys.orig_argv[1:3] == ["-m", "torch.distributed.run"]:
    atexit.register(time.sleep, 3600)
"""


def test_sigkill_of_launchx_still_ends_every_rank(worker: Path, tmp_path: Path) -> None:
    """launchx cannot catch SIGKILL (the OOM killer, SLURM's KillWait): the kernel's
    parent-death signal makes torchrun stop its ranks anyway, and torchrun itself is gone
    soon after (a grace period of 2 s here), even when its exit hangs."""
    out = tmp_path / "out"
    out.mkdir()
    chained = tmp_path / "chained"
    chained.mkdir()
    (chained / "sitecustomize.py").write_text(HANG_AT_EXIT)
    environ = dict(clean_env(), LAUNCHX_ORPHAN_GRACE_S="2", PYTHONPATH=str(chained))
    proc = launchx(["run", str(worker), str(out), "sleep"], environ)
    pids = _wait_for_pids(out, 2, proc)
    agents = {_parent(pid) for pid in pids}
    assert proc.pid not in agents and len(agents) == 1  # torchrun, below launchx
    proc.kill()
    proc.communicate(timeout=30)
    try:
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline and any(_alive(pid) for pid in [*pids, *agents]):
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in pids), "a rank outlived a SIGKILLed launchx"
        assert not any(_alive(pid) for pid in agents), "torchrun outlived a SIGKILLed launchx"
    finally:  # a failed check leaves nothing behind
        for pid in [*pids, *agents]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
