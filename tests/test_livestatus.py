"""The status under a terminal's output and the heartbeat of a log file (pure: summaries
in, text out); how the terminal draws it is in test_outlines.py, a real run under a
pseudo-terminal in test_hang_e2e.py."""

from __future__ import annotations

import threading
import time

from launchx.run.livestatus import RunClock, duration, heartbeat, status_lines
from launchx.run.watching import Watching, WatchSetup
from launchx.watch.nodes import NodeSummary, RankSummary
from launchx.watch.policy import parse_hang_timeout

CLOCK = RunClock(attempt=1, run_s=754.0, attempt_s=75.0)


def node(n: int, ages: list[float | None], quiet: float = 2.0, **kw: object) -> NodeSummary:
    """A node's summary; an age of None is a rank that exited."""
    ranks = tuple(
        RankSummary(
            rank=n * len(ages) + i,
            local_rank=i,
            node_rank=n,
            node=f"gpu-{n}",
            age_s=age or 0.0,
            state="R",
            wchan="",
            exited=age is None,
        )
        for i, age in enumerate(ages)
    )
    fields: dict[str, object] = {"timeout_s": 150.0, "timeout_source": "learned"}
    fields.update(kw)
    return NodeSummary(node=f"gpu-{n}", node_rank=n, quiet_s=quiet, ranks=ranks, **fields)  # type: ignore[arg-type]


def test_durations_read_at_a_glance() -> None:
    assert [duration(s) for s in (0, 59.9, 61, 3599, 3661, -3)] == [
        "0s",
        "59s",
        "1m01s",
        "59m59s",
        "1h01m",
        "0s",
    ]


def test_one_row_per_node_with_each_ranks_quiet_time() -> None:
    rows = status_lines(CLOCK, [node(0, [1.0, 0.0]), node(1, [3.0, None], quiet=3.0)])
    assert rows == [
        "launchx: attempt 1 running 1m15s (run 12m34s) | quiet 2s of 2m30s hang timeout (learned)",
        "node 0 (gpu-0), quiet for: r0 1s  r1 0s",
        "node 1 (gpu-1), quiet for: r2 3s  r3 exited",
    ]


def test_a_node_too_wide_for_the_terminal_is_summed_up() -> None:
    many = node(0, [float(i) for i in range(64)])
    rows = status_lines(CLOCK, [many], width=80)
    assert rows[1] == "node 0 (gpu-0), quiet for: 64 ranks, 64 alive, slowest r63 quiet 1m03s"


def test_many_nodes_are_one_row() -> None:
    nodes = [node(n, [0.0, None] if n == 3 else [0.0, 1.0], quiet=float(n)) for n in range(6)]
    rows = status_lines(CLOCK, nodes)
    assert rows[1] == "6 nodes reporting, 12 ranks (1 exited); longest quiet: node 5 (gpu-5) 5s"


def test_before_the_timeout_is_learned_and_before_any_summary() -> None:
    learning = node(0, [1.0], timeout_s=None, timeout_source="initial")
    assert "quiet 2s (hang timeout still being learned)" in status_lines(CLOCK, [learning])[0]
    assert status_lines(CLOCK, []) == [
        "launchx: attempt 1 running 1m15s (run 12m34s) | hang watch starting"
    ]


def test_the_heartbeat_is_one_line() -> None:
    line = heartbeat(CLOCK, [node(0, [1.0, None])])
    assert line == (
        "launchx: heartbeat: attempt 1 running 1m15s (run 12m34s), 1 of 2 ranks alive, "
        "quiet 2s of 2m30s hang timeout (learned)"
    )
    assert "no ranks found yet" in heartbeat(CLOCK, [node(0, [])])


class Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def write(self, text: str) -> None:
        self.lines.append(text)


class Events:
    def record(self, event: str, **fields: object) -> None:
        return None


class FakeMonitor:
    def summary(self) -> NodeSummary:
        return node(0, [4.0, 0.5])

    def stop(self) -> None:
        return None


def watching(status: object = None) -> tuple[Watching, Lines]:
    console = Lines()
    setup = WatchSetup(
        parse_hang_timeout("60"),
        console,
        Events(),
        status=status,  # type: ignore[arg-type]
        heartbeat_s=0.05,
    )
    w = Watching(setup, plan=type("Plan", (), {"attempt": 2})(), supervisor=None)  # type: ignore[arg-type]
    w.monitor = FakeMonitor()  # type: ignore[assignment]
    w._shower = threading.Thread(target=w._show, daemon=True)
    w._shower.start()
    return w, console


def until(condition: object, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.01)


def test_off_a_terminal_the_watch_writes_a_heartbeat() -> None:
    w, console = watching()
    until(lambda: console.lines)
    w.stop()
    assert console.lines[0].startswith("launchx: heartbeat: attempt 2 running ")
    assert "2 of 2 ranks alive, quiet 2s of 2m30s hang timeout (learned)" in console.lines[0]


def test_on_a_terminal_the_status_is_drawn_and_taken_away_at_the_end() -> None:
    drawn: list[list[str]] = []
    w, console = watching(status=drawn.append)
    until(lambda: drawn)
    w.stop()
    assert drawn[0][0].startswith("launchx: attempt 2 running ")
    assert drawn[0][1] == "node 0 (gpu-0), quiet for: r0 4s  r1 0s"
    assert drawn[-1] == [] and console.lines == []
