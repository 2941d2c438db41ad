"""``launchx status`` from a run's events (``launchx.status``, ``launchx.run.events``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import clean_env, run_cli
from typer.testing import CliRunner

from launchx import cli
from launchx.errors import ConfigError, LaunchxError
from launchx.run.events import EventLog, read_events, read_run_events
from launchx.run.rundirs import by_run_id, latest_file, log_dir_taken, note_latest_run, run_dir
from launchx.status import render, summarise

START = {"event": "run_start", "ts": 100.0, "run": "lx-1", "profile": "local", "pid": 4242}


def events(*more: dict[str, object]) -> list[dict[str, object]]:
    return [START, *more]


def test_a_running_run_says_which_attempt_and_how_long() -> None:
    run = summarise(
        events({"event": "attempt_start", "attempt": 0, "ts": 101.0}), alive=True, now=160.0
    )
    assert (run.state, run.elapsed_s) == ("running", 60.0)
    assert [(a.attempt, a.state) for a in run.attempts] == [(0, "running")]
    assert "run lx-1 (local): running (launchx pid 4242), 60 s" in render(run)


def test_node_zero_speaks_for_a_run_of_several_nodes() -> None:
    """Each node writes its own events; node 1's file is read after node 0's, and its
    durations and end (its own clock, its own exit) must not replace node 0's."""
    node0 = [
        START,
        {"event": "attempt_start", "attempt": 0, "ts": 101.0},
        {
            "event": "attempt_end",
            "attempt": 0,
            "outcome": "failed",
            "duration_s": 30.0,
            "category": "hang",
            "rank": 3,
        },
        {"event": "run_end", "exit_code": 1, "reason": "failed", "duration_s": 31.0},
    ]
    node1 = [
        {**START, "node": 1, "pid": 99},
        {"event": "attempt_start", "attempt": 0, "ts": 104.0, "node": 1},
        {"event": "watch", "kind": "hang", "odd": [3], "quiet_s": 20.0, "node": 1},
        {
            "event": "attempt_end",
            "attempt": 0,
            "outcome": "failed",
            "duration_s": 27.0,
            "category": "aborted",
            "node": 1,
        },
        {"event": "run_end", "exit_code": 143, "reason": "aborted", "duration_s": 28.0, "node": 1},
    ]
    run = summarise([*node0, *node1], alive=False, now=500.0)
    assert (run.state, run.exit_code, run.elapsed_s) == ("failed", 1, 31.0)
    assert [(a.attempt, a.duration_s, a.category, a.started) for a in run.attempts] == [
        (0, 30.0, "hang", 101.0)
    ]
    assert run.watch == ("hang: rank(s) [3] made no progress for 20.0 s",)
    # node 1's events alone (node 0's file lost): they are all there is
    alone = summarise(node1, alive=False, now=500.0)
    assert (alone.exit_code, alone.attempts[0].duration_s) == (143, 27.0)
    # ranks that each ran launchx (a platform's, one node: no node field): told apart by
    # file, node 0's events.jsonl first
    ranks = [{k: v for k, v in e.items() if k != "node"} for e in node1]
    apart = summarise([*node0, *ranks], alive=False, now=500.0, main=len(node0))
    assert (apart.exit_code, apart.attempts[0].duration_s) == (1, 30.0)


def test_a_finished_run_lists_each_attempt_and_the_watchs_words() -> None:
    run = summarise(
        events(
            {"event": "attempt_start", "attempt": 0, "ts": 101.0},
            {"event": "watch", "kind": "hang", "odd": [5], "quiet_s": 120.0},
            {
                "event": "attempt_end",
                "attempt": 0,
                "outcome": "failed",
                "category": "hang",
                "rank": 5,
                "duration_s": 130.0,
            },
            {"event": "attempt_start", "attempt": 1, "ts": 240.0, "offered": "/ck/step_20.pt"},
            {"event": "attempt_end", "attempt": 1, "outcome": "ok", "duration_s": 50.0},
            {"event": "run_end", "exit_code": 0, "reason": "finished", "duration_s": 190.0},
        ),
        alive=False,
        now=999.0,
    )
    text = render(run)
    assert run.state == "finished" and "exit 0: finished" in text
    assert "attempt 0: failed after 130.0 s, hang on rank 5" in text
    assert "attempt 1: ok after 50.0 s (offered /ck/step_20.pt)" in text
    assert "watch: hang: rank(s) [5] made no progress for 120.0 s" in text
    assert json.loads(render(run, as_json=True))["attempts"][0]["category"] == "hang"


def test_a_run_end_without_an_exit_code_says_so_rather_than_none() -> None:
    """A run_end torn or written by an older launchx has no code: "exit None" read as a
    value, so the words say it was not recorded."""
    run = summarise(
        events({"event": "run_end", "reason": "attempts exhausted"}), alive=False, now=200.0
    )
    text = render(run)
    assert run.state == "failed" and "None" not in text
    assert "exit code not recorded: attempts exhausted" in text


def test_a_run_whose_launchx_died_is_gone_not_running() -> None:
    assert summarise(events(), alive=False, now=200.0).state == "gone"


def test_a_gone_runs_attempt_is_unfinished_and_its_time_stops_at_its_last_word() -> None:
    """Its launchx was SIGKILLed mid-attempt: the attempt is not running any more, and the
    run lasted until the last event written, however long ago that is."""
    run = summarise(
        events(
            {"event": "attempt_start", "attempt": 0, "ts": 101.0},
            {"event": "watch", "kind": "straggler", "text": "rank 1 is slow", "ts": 130.0},
        ),
        alive=False,
        now=5000.0,
    )
    assert (run.state, run.elapsed_s) == ("gone", 30.0)
    assert [(a.attempt, a.state) for a in run.attempts] == [(0, "unfinished")]
    text = render(run)
    assert "gone, last heard 30 s after it started" in text and "attempt 0: running" not in text
    # another node's writer, on its own clock, does not stretch node 0's last word
    mine = events(
        {"event": "attempt_start", "attempt": 0, "ts": 101.0},
        {"event": "watch", "kind": "straggler", "text": "rank 1 is slow", "ts": 130.0},
    )
    other = [{"event": "watch", "kind": "ranks_found", "node": 1, "run": "lx-1", "ts": 900.0}]
    run = summarise([*mine, *other], alive=False, now=5000.0, main=len(mine))
    assert (run.state, run.elapsed_s) == ("gone", 30.0)


def test_events_round_trip_and_a_torn_line_is_skipped(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.jsonl", "lx-1", wall=lambda: 5.0)
    log.record("attempt_start", attempt=0)
    with (tmp_path / "events.jsonl").open("a") as fh:
        fh.write('{"event": "attempt_e')  # the writer died mid-line
    got = read_events(tmp_path / "events.jsonl")
    assert got == [{"ts": 5.0, "event": "attempt_start", "run": "lx-1", "attempt": 0}]
    EventLog(tmp_path / "events-node-1.jsonl", "lx-1", node=1).record("run_start")
    assert [e["event"] for e in read_run_events(tmp_path)] == ["attempt_start", "run_start"]


def test_status_cli_reads_a_run_directory_and_refuses_an_empty_one(tmp_path: Path) -> None:
    EventLog(tmp_path / "run" / "events.jsonl", "lx-9").record("run_start", profile="local")
    code, out, _ = run_cli(["status", str(tmp_path / "run")], clean_env(), cwd=tmp_path)
    assert code == 0 and out.startswith("run lx-9 (local): gone")
    (tmp_path / "empty").mkdir()
    code, out, err = run_cli(["status", str(tmp_path / "empty")], clean_env(), cwd=tmp_path)
    assert code == 2 and "no launchx events" in err and "Traceback" not in err


def test_a_node_that_adopted_anothers_interrupt_is_interrupted_not_failed() -> None:
    events = [
        {"ts": 0.0, "event": "run_start", "run": "lx-2", "profile": "local"},
        {"ts": 1.0, "event": "attempt_start", "attempt": 0},
        {"ts": 9.0, "event": "attempt_end", "attempt": 0, "outcome": "interrupted"},
        {
            "ts": 9.5,
            "event": "run_end",
            "exit_code": 130,
            "reason": "interrupted by the user: never retried",
            "duration_s": 9.5,
        },
    ]
    run = summarise(events, alive=False, now=20.0)
    assert (run.state, run.exit_code) == ("interrupted", 130)


@pytest.mark.parametrize(
    ("end", "state"),
    [
        ({"exit_code": 0, "reason": "requeued by SLURM", "ended": "requeued"}, "requeued"),
        (
            {"exit_code": 143, "reason": "stopped after the warning", "ended": "preempted"},
            "preempted",
        ),
        ({"exit_code": 130, "reason": "stopped", "ended": "interrupted"}, "interrupted"),
        ({"exit_code": 1, "reason": "the budget is spent", "ended": "failed"}, "failed"),
        ({"exit_code": 0, "reason": "all done", "ended": "finished"}, "finished"),
        # records from before the field: told by their reason's first words, then the code
        ({"exit_code": 0, "reason": "requeued by SLURM after the warning"}, "requeued"),
        ({"exit_code": 143, "reason": "stopped after the scheduler's warning"}, "preempted"),
        ({"exit_code": 130, "reason": "interrupted"}, "interrupted"),
        ({"exit_code": 2, "reason": "preflight"}, "failed"),
        ({"exit_code": 0, "reason": "finished"}, "finished"),
    ],
)
def test_how_a_run_ended_is_its_state(end: dict[str, object], state: str) -> None:
    run = summarise(events({"event": "run_end", **end}), alive=False, now=200.0)
    assert run.state == state
    # every ending says its exit code and reason
    assert f"): {state}, exit {end['exit_code']}: {end['reason']}" in render(run)


def test_a_requeued_job_running_again_is_running_under_its_new_launchx() -> None:
    """After a SLURM requeue the job's second launchx appends a run_start: the first one's
    run_end (requeued) is history, and the pid shown is the launchx now running."""
    run = summarise(
        [
            {**START, "pid": 111},
            {"event": "attempt_start", "attempt": 0, "ts": 101.0},
            {"event": "attempt_end", "attempt": 0, "outcome": "preempted", "duration_s": 50.0},
            {"event": "run_end", "exit_code": 0, "reason": "requeued", "ended": "requeued"},
            {**START, "ts": 300.0, "pid": 222},
            {"event": "attempt_start", "attempt": 1, "ts": 301.0},
        ],
        alive=True,
        now=360.0,
    )
    assert (run.state, run.pid) == ("running", 222)
    assert "running (launchx pid 222)" in render(run)
    assert [(a.attempt, a.state) for a in run.attempts] == [(0, "preempted"), (1, "running")]


def test_a_run_whose_start_was_cut_from_its_events_is_named_by_its_directory(
    tmp_path: Path,
) -> None:
    """A file cut at the front (copied from a node mid-write, a disk that filled): no
    run_start, no run id; the directory the user named is the run's name, not "?"."""
    run = tmp_path / "copied-from-node-3"
    run.mkdir()
    (run / "events.jsonl").write_text(
        'rt", "run": "lx-cut", "profile": "local"}\n'
        '{"ts": 5.0, "event": "attempt_end", "attempt": 0, "outcome": "failed"}\n'
    )
    code, out, _ = run_cli(["status", str(run)], clean_env(), cwd=tmp_path)
    assert code == 0 and out.startswith("run copied-from-node-3 (profile not recorded): "), out
    assert "attempt 0: failed" in out


def test_status_reads_the_newest_run_kept_or_named(tmp_path: Path) -> None:
    """Runs under the default root and this user's last --log-dir run compete on what they
    last wrote: a run still writing its events is newer than one that made its directory
    later."""
    tmp = str(tmp_path)
    kept = tmp_path / "launchx" / "lx-kept"
    EventLog(kept / "events.jsonl", "lx-kept").record("run_start")
    mine = tmp_path / "elsewhere" / "logs"
    EventLog(mine / "events.jsonl", "lx-mine").record("run_start")
    note_latest_run(mine, tmp)
    assert latest_file(tmp).read_text() == f"{mine}\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    os.utime(kept, (1000, 1000))
    os.utime(kept / "events.jsonl", (1000, 1000))
    assert run_dir(None, tmp) == mine
    os.utime(mine, (500, 500))  # made long ago, events written just now: still the newest
    os.utime(kept / "events.jsonl", (2000, 2000))
    os.utime(mine / "events.jsonl", (3000, 3000))
    assert run_dir(None, tmp) == mine
    os.utime(kept / "events.jsonl", (4000, 4000))
    assert run_dir(None, tmp) == kept
    os.utime(kept / "events.jsonl", (1000, 1000))
    # a named directory with no events (emptied, or reused for something else) is no run
    (mine / "events.jsonl").unlink()
    assert run_dir(None, tmp) == kept
    EventLog(mine / "events.jsonl", "lx-mine").record("run_start")
    assert run_dir(None, tmp) == mine
    # nor is a note that is a link, or not a path
    latest_file(tmp).unlink()
    latest_file(tmp).symlink_to(tmp_path / "elsewhere" / "planted")
    (tmp_path / "elsewhere" / "planted").write_text(f"{mine}\n")
    assert run_dir(None, tmp) == kept
    latest_file(tmp).unlink()
    latest_file(tmp).write_text("not/absolute\n")
    assert run_dir(None, tmp) == kept


def test_a_run_id_names_the_run_kept_under_the_temp_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp = str(tmp_path / "tmp")
    kept = tmp_path / "tmp" / "launchx" / "my-run"
    EventLog(kept / "events.jsonl", "my-run").record("run_start", profile="local")
    monkeypatch.chdir(tmp_path)
    assert by_run_id("my-run", tmp) == str(kept)
    assert run_dir("my-run", tmp) == kept.resolve()
    # a path, an existing name here, a file's name and stdin stay what they were
    for given in ("./my-run", "job.out", "-", ""):
        assert by_run_id(given, tmp) == given
    with pytest.raises(ConfigError, match="'other-run' is neither a file or directory"):
        by_run_id("other-run", tmp)
    # node 1's run on a host of its own (only its record there) is a kept run too
    node1 = tmp_path / "tmp" / "launchx" / "pair"
    EventLog(node1 / "events-node-1.jsonl", "pair", node=1).record("run_start")
    assert by_run_id("pair", tmp) == str(node1)
    # a run set aside by a rerun (my-run.1) is still read by its kept name
    aside = tmp_path / "tmp" / "launchx" / "my-run.1"
    EventLog(aside / "events.jsonl", "my-run").record("run_start", profile="local")
    assert by_run_id("my-run.1", tmp) == str(aside)
    (tmp_path / "my-run").mkdir()
    assert by_run_id("my-run", tmp) == "my-run"
    env = {**clean_env(), "TMPDIR": tmp}
    code, out, _ = run_cli(["status", "my-run"], env, cwd=tmp_path / "tmp")
    assert code == 0 and out.startswith("run my-run (local)")
    # a typo'd id is named as one, with the ids there are (not as a missing file)
    for command in ("status", "diagnose"):
        code, _, err = run_cli([command, "my-rnu"], env, cwd=tmp_path / "tmp")
        assert code == 2 and "'my-rnu' is neither a file or directory here nor the id" in err
        assert "runs kept there, newest first: my-run" in err


def test_diagnose_at_a_terminal_with_no_argument_reads_the_newest_run(tmp_path: Path) -> None:
    """Without a pipe, reading stdin would wait silently for a log that never comes."""
    import subprocess
    import sys

    kept = tmp_path / "launchx" / "lx-7"
    EventLog(kept / "events.jsonl", "lx-7").record("attempt_start", attempt=0)
    EventLog(kept / "events.jsonl", "lx-7").record(
        "attempt_end", attempt=0, exit_code=130, outcome="interrupted", category="interrupted"
    )
    script = (
        "import os, pty, sys; pid, fd = pty.fork()\n"
        "if pid == 0: os.execvp(sys.executable, [sys.executable, '-m', 'launchx', 'diagnose'])\n"
        "out = b''\n"
        "while True:\n"
        "    try: chunk = os.read(fd, 4096)\n"
        "    except OSError: break\n"
        "    if not chunk: break\n"
        "    out += chunk\n"
        "sys.stdout.write(out.decode())\n"
    )

    def at_a_terminal(tmp: Path) -> str:
        env = {**clean_env(), "TMPDIR": str(tmp)}
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60
        )
        return done.stdout

    out = at_a_terminal(tmp_path)
    assert f"reading the newest run, {kept}" in out
    assert "interrupted (LX532)" in out
    (tmp_path / "empty").mkdir()
    out = at_a_terminal(tmp_path / "empty")
    assert "no run under" in out and "nothing is piped in" in out and "Traceback" not in out
    assert "launchx diagnose - < job.out" in out


def test_a_log_dir_is_taken_by_another_run_or_an_ended_one() -> None:
    start = {"event": "run_start", "run": "lx-a"}
    assert log_dir_taken([], "lx-b", continuing=False) is None
    assert log_dir_taken([start], "lx-b", continuing=False) == (
        "it holds the logs of another run (lx-a)"
    )
    # the same id: nodes joining one run, a requeued SLURM job going on
    assert log_dir_taken([start], "lx-a", continuing=False) is None
    ended = [start, {"event": "run_end", "reason": "failed"}]
    assert "earlier run with the same id (lx-a), which ended" in str(
        log_dir_taken(ended, "lx-a", continuing=False)
    )
    assert log_dir_taken(ended, "lx-a", continuing=True) is None
    requeued = [start, {"event": "run_end", "reason": "requeued by SLURM after the warning"}]
    assert log_dir_taken(requeued, "lx-a", continuing=False) is None
    said = [start, {"event": "run_end", "reason": "the job goes on", "ended": "requeued"}]
    assert log_dir_taken(said, "lx-a", continuing=False) is None
    said = [start, {"event": "run_end", "reason": "requeued, then", "ended": "failed"}]
    assert log_dir_taken(said, "lx-a", continuing=False) is not None


def test_status_says_a_runs_events_it_may_not_read_are_unreadable_not_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An events file or a run directory this user may not open: one message naming it and
    exit 2, not a traceback, nor "no launchx events" (root reads everything, so the
    refusal is the file system's, simulated here)."""
    EventLog(tmp_path / "events.jsonl", "lx-9").record("run_start", profile="local")
    assert len(read_run_events(tmp_path)) == 1
    # a directory this user may not search: asking whether its events file is a file fails
    real_is_file = Path.is_file

    def refused(self: Path) -> bool:
        if self.parent == tmp_path:
            raise PermissionError(13, "Permission denied", str(self))
        return real_is_file(self)

    monkeypatch.setattr(Path, "is_file", refused)
    with pytest.raises(LaunchxError) as info:
        read_run_events(tmp_path)
    assert info.value.message == (
        f"cannot read the run's events: {tmp_path / 'events.jsonl'}: Permission denied"
    )
    monkeypatch.undo()
    real_open = open

    def no_read(path: object, *args: object, **kwargs: object) -> object:
        if str(path).endswith("events.jsonl"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", no_read)
    result = CliRunner().invoke(cli.app, ["status", str(tmp_path)])
    assert isinstance(result.exception, LaunchxError) and result.exception.exit_code == 2
    assert result.exception.message == (
        f"cannot read the run's events: {tmp_path / 'events.jsonl'}: Permission denied"
    )
    assert result.exception.hint and "as the user who ran it" in result.exception.hint
    monkeypatch.undo()
    if os.geteuid() != 0:  # the real refusal, where the file system makes it
        (tmp_path / "events.jsonl").chmod(0)
        code, _, err = run_cli(["status", str(tmp_path)], clean_env(), cwd=tmp_path)
        assert code == 2 and "cannot read" in err and "Traceback" not in err


def test_an_ended_run_is_not_moved_once_another_node_began_the_rerun_in_it(
    tmp_path: Path,
) -> None:
    """Node 1 (same host, same temp dir) started the rerun first: its run_start, after node
    0's old run_end, must neither hide that the old run ended nor be moved away with it."""
    from launchx.run.events import read_run_writers
    from launchx.run.start import _joined_since

    def joined() -> bool:
        return _joined_since(*read_run_writers(tmp_path))

    def write(name: str, *events: dict[str, object]) -> None:
        with (tmp_path / name).open("a") as fh:
            fh.writelines(json.dumps({"run": "mine", **e}) + "\n" for e in events)

    write("events.jsonl", {"ts": 1.0, "event": "run_start"})
    write("events.jsonl", {"ts": 9.0, "event": "run_end", "exit_code": 1, "reason": "failed"})
    assert joined() is False
    write("events-node-1.jsonl", {"ts": 1.5, "event": "run_start", "node": 1})
    assert joined() is False  # node 1's start of the old run
    write("events-node-1.jsonl", {"ts": 20.0, "event": "run_start", "node": 1})
    assert joined() is True
    # this host was node 1 last time (node 0 never wrote here): its ended run has nothing
    # open, so node 0 of the rerun sets it aside; a run node 1 began since has
    node1 = [
        {"ts": 1.0, "event": "run_start", "node": 1},
        {"ts": 9.0, "event": "run_end", "node": 1, "exit_code": 1},
    ]
    assert _joined_since([], node1) is False
    assert _joined_since([], [*node1, {"ts": 20.0, "event": "run_start", "node": 1}]) is True
    # node 0's own file still says the old run ended, whatever the others wrote after it
    own = read_events(tmp_path / "events.jsonl")
    assert log_dir_taken(own, "mine", continuing=False) is not None


def test_a_run_whose_launchx_died_here_is_over(tmp_path: Path) -> None:
    """SIGKILLed (or the machine rebooted) before it wrote run_end: on this host its pid is
    gone, so a rerun sets it aside; elsewhere, or alive, nothing is said of it."""
    from launchx.run.start import _died_here as _died

    def _died_here(run: Path, host: str) -> bool:
        return _died(read_events(run / "events.jsonl"), host)

    dead = 2**22 + 12345  # above pid_max's default: no such process
    start = {"ts": 1.0, "event": "run_start", "run": "mine", "host": "vm", "pid": dead}
    (tmp_path / "events.jsonl").write_text(json.dumps(start) + "\n")
    assert _died_here(tmp_path, "vm") is True
    assert _died_here(tmp_path, "other-host") is False
    (tmp_path / "events.jsonl").write_text(json.dumps({**start, "pid": os.getpid()}) + "\n")
    assert _died_here(tmp_path, "vm") is False
    ended = {"ts": 2.0, "event": "run_end", "run": "mine", "exit_code": 1}
    (tmp_path / "events.jsonl").write_text(json.dumps(start) + "\n" + json.dumps(ended) + "\n")
    assert _died_here(tmp_path, "vm") is False  # (it ended: log_dir_taken's case)


def test_a_run_started_on_another_host_is_not_called_gone(tmp_path: Path) -> None:
    """Seen from a login node through a shared file system, a compute node's launchx pid
    means nothing: the run is running as far as its events say, and the host is named."""
    from launchx.run.events import launchx_alive

    away = {**START, "host": "gpu-node-7"}
    assert launchx_alive(away, "login-1") is None
    assert launchx_alive({**START, "host": "login-1", "pid": os.getpid()}, "login-1") is True
    assert launchx_alive({**START, "pid": 2**22 + 12345}, "login-1") is False  # no host said
    run = summarise(
        [away, {"event": "attempt_start", "attempt": 0, "ts": 101.0}], alive=None, now=400.0
    )
    assert run.state == "running" and run.elsewhere == "gpu-node-7"
    assert run.last_heard_s == 299.0
    assert "its launchx runs on gpu-node-7, which this host cannot check" in render(run)
    assert "last heard 299 s ago" in render(run)
    # through the CLI: the same words, from the run's own events
    EventLog(tmp_path / "events.jsonl", "lx-3").record(
        "run_start", profile="slurm", pid=4242, host="gpu-node-7"
    )
    code, out, _ = run_cli(["status", str(tmp_path)], clean_env(), cwd=tmp_path)
    assert code == 0 and out.startswith("run lx-3 (slurm): running"), out
    assert "runs on gpu-node-7" in out


def test_status_of_an_events_file_reads_its_run(tmp_path: Path) -> None:
    EventLog(tmp_path / "run" / "events.jsonl", "lx-8").record("run_start", profile="local")
    code, out, err = run_cli(
        ["status", str(tmp_path / "run" / "events.jsonl")], clean_env(), cwd=tmp_path
    )
    assert code == 0 and out.startswith("run lx-8 (local)"), err
    # copied elsewhere (off a cluster): the logs are where they were read
    import shutil

    shutil.copytree(tmp_path / "run", tmp_path / "copied")
    code, out, err = run_cli(["status", str(tmp_path / "copied")], clean_env(), cwd=tmp_path)
    assert code == 0 and f"logs: {tmp_path / 'copied'}" in out, out
