"""The monitor against real torchrun jobs (two gloo ranks on the CPU) that really hang,
really straggle and really save: tests/fixtures/watch/ranks.py misbehaves on request.

Each test polls to a deadline (never a sleep) and kills the whole tree at the end. How
fast a hang is named is measured by benchmarks/hang.py, not asserted here.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from launchx.execute import signal_tree
from launchx.watch.hook import HookStacks, hook_env
from launchx.watch.monitor import HangReport, Monitor
from launchx.watch.policy import HangPolicy
from launchx.watch.stacks import FallbackStacks, PySpy, StackSource
from launchx.watch.verdict import (
    TimeoutChoice,
)

pytestmark = pytest.mark.torchrun

RANKS = Path(__file__).parent / "fixtures" / "watch" / "ranks.py"
T = 5.0
NOBODY = ("setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups")


@dataclass
class Watched:
    events: list[dict[str, object]] = field(default_factory=list)
    hangs: list[HangReport] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    exit_code: int | None = None

    def of(self, name: str) -> list[dict[str, object]]:
        return [e for e in self.events if e["event"] == name]


def watch(
    tmp_path: Path,
    *args: str,
    stacks: StackSource | None = None,
    env_extra: dict[str, str] | None = None,
    deadline_s: float = 90.0,
) -> Watched:
    """torchrun MODE under a Monitor until it hangs (reported), exits, or the deadline."""
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    env["TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE"] = "[r${rank}]: "  # as launchx's plan sets
    env.update(env_extra or {})
    argv = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    argv += ["--nproc-per-node", "2", "--tee", "3", "--log-dir", str(tmp_path / "torchrun")]
    proc = subprocess.Popen(
        [*argv, str(RANKS), *args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    out = Watched()
    monitor = Monitor(
        proc.pid,
        HangPolicy(mode="fixed", timeout_s=T),
        tmp_path / "logs",
        on_event=out.events.append,
        on_hang=out.hangs.append,
        stacks=stacks,
        sample_s=0.5,
    )

    def pump() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            line = raw.decode(errors="replace").rstrip("\n")
            out.lines.append(line)
            monitor.note_line(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    monitor.start()
    try:
        end = time.monotonic() + deadline_s
        while proc.poll() is None and not out.hangs and time.monotonic() < end:
            time.sleep(0.1)
    finally:
        monitor.stop()
        signal_tree(proc.pid, signal.SIGKILL)
        proc.wait()
        reader.join(timeout=5)
    out.exit_code = proc.returncode if not out.hangs else None
    return out


def _hang(w: Watched) -> HangReport:
    assert len(w.hangs) == 1, "\n".join(w.lines[-30:])
    return w.hangs[0]


def test_a_rank_blocked_before_a_collective_is_named_with_its_stack(tmp_path: Path) -> None:
    w = watch(tmp_path, "block")
    report = _hang(w)
    assert report.hang.odd == (1,)
    first = report.text.splitlines()[1]
    assert first.startswith("  rank 1 (node ")
    assert "has not reached the all_reduce that the other rank waits in; it is in" in first
    assert "ranks.py:" in first and "misbehave" in first
    assert "rank 0 [collective]: " in report.text
    assert report.dump_dir is not None
    assert "Event.wait (threading.py" in (Path(report.dump_dir) / "rank1.txt").read_text()
    assert w.of("hang")[0]["odd"] == [1]


def test_a_rank_blocked_inside_a_native_call_is_named(tmp_path: Path) -> None:
    w = watch(tmp_path, "lock")
    report = _hang(w)
    assert report.hang.odd == (1,)
    odd = report.hang.views[0]
    assert odd.who.rank == 1 and odd.category == "lock"
    assert any(f.native and "acquire" in f.name.lower() for f in odd.frames)


def test_a_silent_straggler_is_a_warning_not_a_hang(tmp_path: Path) -> None:
    w = watch(tmp_path, "compute", "--seconds", str(2 * T))
    assert w.hangs == [] and w.exit_code == 0, "\n".join(w.lines[-30:])
    stragglers = w.of("straggler")
    assert len(stragglers) == 1
    assert stragglers[0]["ranks"] == [1] and stragglers[0]["waiting"] == [0]
    assert "[r0]: done" in w.lines and "[r1]: done" in w.lines


def test_rank_0_saving_alone_while_the_other_waits_at_a_barrier_is_no_hang(
    tmp_path: Path,
) -> None:
    w = watch(tmp_path, "save", "--rank", "0", "--barrier", "--seconds", str(2 * T), "--mb", "16")
    assert w.hangs == [] and w.exit_code == 0, "\n".join(w.lines[-30:])
    assert "[r0]: misbehaving: save" in w.lines


needs_setpriv = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="takes ptrace away by running py-spy as another uid (needs root and setpriv)",
)


@needs_setpriv
def test_without_ptrace_the_hang_is_still_reported_and_says_why(tmp_path: Path) -> None:
    w = watch(tmp_path, "block", stacks=FallbackStacks(PySpy(prefix=NOBODY), None))
    report = _hang(w)
    assert "stacks (main thread" not in report.text
    assert "no stacks from outside: py-spy may not read the ranks' stacks (Permission" in (
        report.text
    )
    unavailable = w.of("stacks_unavailable")
    assert len(unavailable) == 1 and unavailable[0]["fallback"] is False
    assert len(report.hang.views) == 2


@needs_setpriv
def test_without_ptrace_the_faulthandler_hook_still_shows_the_stacks(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    stacks = FallbackStacks(PySpy(prefix=NOBODY), HookStacks(logs))
    env = hook_env(logs, os.environ.get("PYTHONPATH"))
    w = watch(tmp_path, "block", stacks=stacks, env_extra=env)
    report = _hang(w)
    assert report.hang.odd == (1,)
    assert "from faulthandler" in report.text
    headline = report.text.splitlines()[1]
    assert "has not reached the all_reduce" in headline
    assert "it is in wait ← ranks.py:" in headline and headline.endswith(" misbehave")
    assert "    rank 0 [collective]: all_reduce ← ranks.py:" in report.text
    assert w.of("stacks_unavailable")[0]["fallback"] is True


def test_two_loopback_nodes_name_the_global_rank_and_its_node(tmp_path: Path) -> None:
    """Each "node" (a torchrun with one rank) is watched by its own monitor, which never
    decides alone; node 0 combines both summaries (sent as JSON, as over the wire) and
    names global rank 1 on node 1; each node then writes its own dumps."""
    from conftest import free_pair

    from launchx.watch.nodes import NodeSummary, combine
    from launchx.watch.report import headline

    port = free_pair()  # node 0's channel: MASTER_PORT + 1
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    env["TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE"] = "[r${rank}]: "
    procs: list[subprocess.Popen[bytes]] = []
    monitors: list[Monitor] = []
    lines: list[str] = []
    for node_rank in (0, 1):
        argv = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "2"]
        argv += ["--nproc-per-node", "1", "--node-rank", str(node_rank)]
        argv += ["--rdzv-backend", "static", "--master-addr", "127.0.0.1"]
        argv += ["--master-port", str(port), "--max-restarts", "0"]
        proc = subprocess.Popen(
            [*argv, str(RANKS), "block", "--rank", "1"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        monitor = Monitor(
            proc.pid,
            HangPolicy(mode="fixed", timeout_s=T),
            tmp_path / f"node{node_rank}",
            node=f"node{node_rank}",
            node_rank=node_rank,
            decide=False,
            sample_s=0.5,
        )

        def pump(p: subprocess.Popen[bytes] = proc, m: Monitor = monitor) -> None:
            assert p.stdout is not None
            for raw in p.stdout:
                line = raw.decode(errors="replace").rstrip("\n")
                lines.append(line)
                m.note_line(line)

        threading.Thread(target=pump, daemon=True).start()
        monitor.start()
        procs.append(proc)
        monitors.append(monitor)
    verdict = None
    try:
        end = time.monotonic() + 90
        while time.monotonic() < end and all(p.poll() is None for p in procs):
            time.sleep(0.5)
            mine = monitors[0].summary()
            theirs = NodeSummary.model_validate_json(monitors[1].summary().model_dump_json())
            if not mine.ranks or not theirs.ranks or mine.timeout_s is None:
                continue
            choice = choose(mine)
            got = combine([mine, theirs], timeout=choice, nnodes=2, delays={1: 0.5})
            if got.kind == "hang":
                verdict = got
                break
        assert verdict is not None and verdict.kind == "hang", "\n".join(lines[-30:])
        assert verdict.odd == (1,)
        assert headline(verdict).startswith(
            "rank 1 (node node1, local 0) has not reached the all_reduce that the other rank"
        )
        reports = [m.capture(verdict) for m in monitors]
        for node_rank, report in enumerate(reports):
            assert report.dump_dir == str(tmp_path / f"node{node_rank}" / "hang")
            assert (Path(report.dump_dir) / f"rank{node_rank}.txt").is_file()
        assert "misbehave" in (tmp_path / "node1" / "hang" / "rank1.txt").read_text()
    finally:
        for monitor in monitors:
            monitor.stop()
        for proc in procs:
            signal_tree(proc.pid, signal.SIGKILL)
            proc.wait()


def choose(summary: object) -> TimeoutChoice:
    from launchx.watch.nodes import NodeSummary

    assert isinstance(summary, NodeSummary)
    return TimeoutChoice(summary.timeout_s, summary.timeout_source, "node 0's choice")
