"""Hangs under SLURM (issue 11): the per-node launchx of one srun step share the live node
channel, so the hang verdict needs every node's evidence, as it does without SLURM; the
batch launchx that started the step still owns the retry. In ``per_task`` mode (one task
per rank, no torchrun) there is no launchx beside the ranks: the run says so at its start.

The decisions here are pure (which setups open the channel, who decides alone); the
channel itself is opened for real between two inner launchx on loopback. The whole path on
the real cluster: tests/test_slurm_e2e.py (a rank on the second node blocks).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import clean_env, free_pair, poll_until
from fakes import ListConsole, RecordedEvents, spec_for

from launchx import agree, channel
from launchx.plan import CHANNEL_TOKEN_VAR, STEP_MARKER
from launchx.run import start
from launchx.run.loop import RunSpec
from launchx.run.nodes import NODE_GONE_S, NodeChannel
from launchx.run.output import Terminal
from launchx.run.watching import decides_alone


# What srun gives the launchx it starts on node ``node`` of a 2-node step, one task per node
# (the batch launchx marks it with LAUNCHX_STEP and passes the run id and the token on).
def inner_env(node: int, **extra: str) -> dict[str, str]:
    env = {
        "SLURM_JOB_ID": "4242",
        "SLURM_JOB_NODELIST": "localhost,lxnode2",
        "SLURM_NNODES": "2",
        "SLURM_NODEID": str(node),
        "SLURM_STEP_ID": "0",
        "SLURM_NTASKS": "2",
        "SLURM_STEP_NUM_TASKS": "2",
        "SLURM_STEP_NUM_NODES": "2",
        "SLURM_STEP_TASKS_PER_NODE": "1(x2)",
        "SLURM_TASKS_PER_NODE": "1(x2)",
        "SLURM_PROCID": str(node),
        "SLURM_LOCALID": "0",
        STEP_MARKER: "1",
        "LAUNCHX_RUN_ID": "slurm-4242",
        "LAUNCHX_ATTEMPT": "0",
    }
    env.update(extra)
    return env


# The batch script's environment (no step yet): the launchx there starts the srun step.
BATCH = {
    "SLURM_JOB_ID": "4242",
    "SLURM_JOB_NODELIST": "n[1-2]",
    "SLURM_NNODES": "2",
    "SLURM_NODEID": "0",
    "SLURM_NTASKS": "4",
    "SLURM_TASKS_PER_NODE": "2(x2)",
}


def inner_spec(node: int, port: int | None = None, **extra: str) -> RunSpec:
    flags = {"nproc_per_node": "1"}
    if port is not None:
        flags["master_port"] = str(port)
    return spec_for(
        "slurm", environ=inner_env(node, **extra), flags=flags, run_id="slurm-4242", gpu_count=0
    )


# ---------------------------------------------------------------- which setups open it


def test_the_launchx_on_each_node_of_an_srun_step_opens_the_channel_but_does_not_retry() -> None:
    for node in (0, 1):
        d = inner_spec(node).decisions
        assert d.launcher.launcher == "torchrun" and d.inner_step
        assert d.node_channel, "the hang verdict needs every node of the step"
        assert not d.agree_with_nodes, "the batch launchx retries the whole step"
        assert not d.requeue_on_warning


def test_the_channel_is_between_the_steps_nodes_at_torchrun_s_master() -> None:
    spec = inner_spec(1)
    res = spec.res
    # what SLURM gave this node, the same values torchrun is started with
    assert res.launch["node_rank"].value == "1" and res.launch["nnodes"].value == "2"
    assert res.launch["master_addr"].value == "localhost"
    assert spec.decisions.port.port == int(res.launch["master_port"].value)
    plan = spec.plan(0, spec.decisions.port.port, None)
    argv = list(plan.argv)
    assert argv[argv.index("--master-port") + 1] == res.launch["master_port"].value


def test_the_batch_launchx_opens_no_channel_in_either_mode() -> None:
    for mode in ("per_node", "per_task"):
        d = spec_for("slurm", f"slurm.mode={mode}", environ=BATCH).decisions
        assert d.launcher.launcher == "srun" and not d.inner_step
        assert not d.node_channel and not d.agree_with_nodes


def test_only_the_batch_launchx_filters_the_console() -> None:
    """--console-ranks reaches every node's launchx of the step, whose console the batch
    launchx diagnoses the step from: the nodes show every rank, the batch one filters."""
    flags = {"nproc_per_node": "1", "logs.console_ranks": "0"}
    inner = spec_for("slurm", environ=inner_env(0), flags=flags, run_id="s-1", gpu_count=0)
    assert inner.decisions.inner_step and inner.plan(0, 29500, None).console_ranks == "all"
    batch = spec_for("slurm", "logs.console_ranks=0", environ=BATCH)
    assert batch.plan(0, 29500, None).console_ranks == "0"


def test_torchrun_on_several_nodes_without_slurm_opens_it_and_agrees() -> None:
    flags = {"nnodes": "2", "node_rank": "1", "master_addr": "10.0.0.1", "master_port": "29500"}
    d = spec_for("local", flags=flags).decisions
    assert d.node_channel and d.agree_with_nodes and not d.inner_step


def test_one_node_opens_no_channel() -> None:
    d = spec_for("local").decisions
    assert not d.node_channel and not d.agree_with_nodes
    one_node_step = inner_env(0, SLURM_NNODES="1", SLURM_STEP_NUM_NODES="1", SLURM_NTASKS="1")
    one_node_step.update(SLURM_STEP_NUM_TASKS="1", SLURM_JOB_NODELIST="localhost")
    one_node_step.update(SLURM_STEP_TASKS_PER_NODE="1", SLURM_TASKS_PER_NODE="1")
    single = spec_for("slurm", environ=one_node_step, flags={"nproc_per_node": "1"}).decisions
    assert single.inner_step and not single.node_channel


# ---------------------------------------------------------------- who decides alone


def _channel(
    node: int, hub: object | None = None, link: object | None = None, now: float = 0.0
) -> NodeChannel:
    nodes = NodeChannel(node, 2, "127.0.0.1", 1, "r", b"k", ListConsole(), clock=lambda: now)
    nodes.hub = hub  # type: ignore[assignment]
    nodes.link = link  # type: ignore[assignment]
    return nodes


def test_only_a_lone_node_or_one_cut_off_decides_alone() -> None:
    assert decides_alone(None)
    assert not decides_alone(_channel(1, link=object()))
    assert not decides_alone(_channel(0, hub=object()))
    # node 0 said "each node will decide alone": its own watch must then decide
    assert decides_alone(_channel(0, hub=None))
    # a node that has not reached node 0 for NODE_GONE_S: nobody else would decide for it
    apart = _channel(1, link=object(), now=100.0)
    apart._apart_since = 100.0 - NODE_GONE_S + 1
    assert not decides_alone(apart)
    apart._apart_since = 100.0 - NODE_GONE_S
    assert decides_alone(apart)


# ---------------------------------------------------------------- the channel, for real


@contextmanager
def opened(spec: RunSpec) -> Iterator[tuple[NodeChannel | None, ListConsole]]:
    console = ListConsole()
    nodes = start._nodes(spec, console)  # type: ignore[arg-type]
    try:
        yield nodes, console
    finally:
        if nodes is not None:
            nodes.close()


def test_two_inner_launchx_of_one_step_join_node_0s_signed_channel() -> None:
    port = free_pair()  # node 0 of the step listens on MASTER_PORT + 1 too
    token = {CHANNEL_TOKEN_VAR: "s3cret"}
    with (
        opened(inner_spec(0, port, **token)) as (hub_end, _),
        opened(inner_spec(1, port, **token)) as (link_end, _),
    ):
        assert hub_end is not None and link_end is not None
        assert hub_end.hub is not None and link_end.link is not None
        assert (hub_end.node_rank, link_end.node_rank, link_end.nnodes) == (0, 1, 2)
        assert hub_end.port == link_end.port == agree.agreement_port(port)
        assert hub_end.key == link_end.key == channel.derive_key("slurm-4242", "s3cret")
        hub = hub_end.hub
        poll_until(lambda: 1 in hub.joined(), 10, "node 1 to join node 0's channel")
        assert not decides_alone(hub_end) and not decides_alone(link_end)


def test_a_node_with_another_token_is_not_let_in() -> None:
    port = free_pair()  # node 0 of the step listens on MASTER_PORT + 1 too
    with (
        opened(inner_spec(0, port, **{CHANNEL_TOKEN_VAR: "s3cret"})) as (hub_end, _),
        opened(inner_spec(1, port, **{CHANNEL_TOKEN_VAR: "guess"})) as (stranger, _),
    ):
        assert hub_end is not None and hub_end.hub is not None and stranger is not None
        hub = hub_end.hub
        poll_until(lambda: sum(hub.rejected().values()) > 0, 10, "the forged hello to be dropped")
        assert 1 not in hub.joined()


# ---------------------------------------------------------------- per_task: no watch, said


def _watch(spec: RunSpec) -> tuple[object, str]:
    console = ListConsole()
    terminal = Terminal(ListConsole())  # type: ignore[arg-type]
    events = RecordedEvents()
    setup = start._watch(spec, console, terminal, events, None, 0.0)  # type: ignore[arg-type]
    return setup, console.text


def test_per_task_says_at_the_start_that_no_hang_watch_runs_and_how_to_get_one() -> None:
    setup, said = _watch(spec_for("slurm", "slurm.mode=per_task", environ=BATCH))
    assert setup is None
    assert said == start.PER_TASK_NO_WATCH
    assert said.count("\n") == 1 and said.startswith("launchx: the hang watch is off")
    assert "per_task" in said and "mode per_node" in said


def test_per_node_and_hang_timeout_off_say_nothing() -> None:
    # per_node: the launchx on each node watches; the batch launchx only starts the step
    assert _watch(spec_for("slurm", environ=BATCH)) == (None, "")
    off = spec_for("slurm", "slurm.mode=per_task", "timeouts.hang_s=off", environ=BATCH)
    assert _watch(off) == (None, "")


# ---------------------------------------------------------------- two inner launchx, real ranks

TOY = Path(__file__).resolve().parents[1] / "examples" / "train_toy.py"


def inner_launchx(tmp: Path, node: int, port: int, toy: list[str]) -> subprocess.Popen[str]:
    """The launchx the batch launchx's srun step starts on ``node`` (the same options it
    passes: ``--launcher torchrun --max-retries 0``), given the SLURM environment of a
    2-node step whose nodes both resolve to this machine."""
    env = clean_env(PYTHONUNBUFFERED="1", TMPDIR=str(tmp))
    env.update(inner_env(node, **{CHANNEL_TOKEN_VAR: "step-secret"}))
    env["SLURM_JOB_NODELIST"] = "localhost,localhost"
    argv = [sys.executable, "-m", "launchx", "run", "--launcher", "torchrun"]
    argv += ["--max-retries", "0", "-p", "slurm", "--nproc-per-node", "1"]
    argv += ["--master-port", str(port), "--hang-timeout", "5", "--log-dir", str(tmp / "logs")]
    return subprocess.Popen(
        [*argv, "--", *toy],
        cwd=tmp,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _events(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.torchrun
def test_two_inner_launchx_name_the_same_stuck_rank_and_stop_together(tmp_path: Path) -> None:
    """Rank 1 (node 1 of the step) sleeps inside step 12, the collective timeout is 30
    minutes. Alone, node 0's watch would see only its own rank 0, quiet in the all-reduce,
    and name it; over the step's channel node 0 decides on both nodes' summaries, and both
    name global rank 1, stop their ranks and leave the retry to the batch launchx."""
    toy = [str(TOY), "--steps", "20", "--ckpt-every", "5", "--checkpoint-dir", str(tmp_path)]
    toy += ["--stall-at-step", "12", "--stall-rank", "1", "--stall-s", "3000"]
    toy += ["--pg-timeout-s", "1800"]
    port = free_pair()  # node 0 of the step listens on MASTER_PORT + 1 too
    procs = [inner_launchx(tmp_path, node, port, toy) for node in (1, 0)]
    try:
        (t1, _), (t0, _) = (p.communicate(timeout=150) for p in procs)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    both = f"node 0:\n{t0}\n\nnode 1:\n{t1}"
    assert "stalling rank 1 at step 12" in t1, both
    for proc, text in zip(procs, (t1, t0), strict=True):
        assert proc.returncode != 0, both  # no retry here: the batch launchx owns it
        report = text[text.index("launchx: hang:") :]
        assert "rank 1 (node" in report.splitlines()[1], both  # the odd one out, first
        assert "launchx: failure: hang on rank 1 (transient)" in text, both
        assert text.count("launchx: profile slurm | launcher torchrun") == 1, both
    logs = tmp_path / "logs"
    for name in ("events.jsonl", "events-node-1.jsonl"):
        events = _events(logs / name)
        hangs = [e for e in events if e["event"] == "watch" and e["kind"] == "hang"]
        assert [(h["odd"], sorted(h["ranks"])) for h in hangs] == [([1], [0, 1])], (name, hangs)
        ends = [e for e in events if e["event"] == "attempt_end"]
        assert [(e["category"], e["rank"]) for e in ends] == [("hang", 1)], (name, ends)
    assert "failed: its launcher exited" not in t0 + t1, both
