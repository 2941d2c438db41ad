"""/proc evidence: the parsers on real file texts, the reader on a built proc tree, and
the reader against this very process (the format is the kernel's, not ours)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from launchx.watch.model import RankId
from launchx.watch.procfs import (
    ProcFS,
    catches,
    parse_children,
    parse_environ,
    parse_io,
    parse_sigcgt,
    parse_stat,
    parse_wchan,
    rank_identity,
)

# /proc/PID/stat of a torchrun worker, and one whose name has spaces and parentheses.
STAT = (
    "18844 (python) S 18836 18844 18844 0 -1 4194560 120577 0 3 0 162 47 0 0 20 0 4 0 "
    "2755318 1620078592 92345 18446744073709551615 1 1 0 0 0 0 0 16781312 16386 0 0 0 "
    "17 1 0 0 0 0 0"
)
STAT_ODD_NAME = STAT.replace("(python)", "(a) b (c))")
IO = (
    "rchar: 1699072\nwchar: 1693\nsyscr: 370\nsyscw: 5\nread_bytes: 4096\n"
    "write_bytes: 8192\ncancelled_write_bytes: 0\n"
)
STATUS = (
    "Name:\tpython\nSigBlk:\t0000000000000000\nSigIgn:\t0000000001001000\n"
    "SigCgt:\t0000008100000000\n"
)


def test_parse_stat_fields() -> None:
    st = parse_stat(STAT)
    assert (st.pid, st.comm, st.state, st.ppid) == (18844, "python", "S", 18836)
    assert (st.utime, st.stime, st.cutime, st.cstime) == (162, 47, 0, 0)
    assert st.num_threads == 4 and st.starttime == 2755318


def test_parse_stat_name_with_parentheses() -> None:
    st = parse_stat(STAT_ODD_NAME)
    assert st.comm == "a) b (c)" and st.state == "S" and st.utime == 162


@pytest.mark.parametrize("bad", ["", "garbage", "12 (x) S 1 2"])
def test_parse_stat_rejects(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_stat(bad)


def test_parse_io() -> None:
    io = parse_io(IO)
    assert (io.rchar, io.wchar, io.read_bytes, io.write_bytes) == (1699072, 1693, 4096, 8192)
    with pytest.raises(ValueError):
        parse_io("nothing")


def test_parse_environ_children_wchan() -> None:
    env = parse_environ(b"RANK=1\0LOCAL_RANK=1\0EMPTY=\0junk\0A=b=c\0")
    assert env == {"RANK": "1", "LOCAL_RANK": "1", "EMPTY": "", "A": "b=c"}
    assert parse_children("120 121 \n") == (120, 121)
    assert parse_children("") == ()
    assert parse_wchan("futex_do_wait") == "futex_do_wait"
    assert parse_wchan("0") == "" and parse_wchan("") == ""


def test_sigcgt() -> None:
    assert parse_sigcgt(STATUS) == 0x8100000000
    assert catches(STATUS, 40) and catches(STATUS, 33)
    assert not catches(STATUS, 41) and not catches(STATUS, signal.SIGUSR1)
    with pytest.raises(ValueError):
        parse_sigcgt("Name: x\n")


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"RANK": "5", "LOCAL_RANK": "1", "GROUP_RANK": "2"}, RankId(5, 1, 2, "n")),
        ({"RANK": "3"}, RankId(3, 3, 0, "n")),
        ({"RANK": "x"}, None),
        ({"LOCAL_RANK": "0"}, None),
    ],
)
def test_rank_identity(env: dict[str, str], expected: RankId | None) -> None:
    assert rank_identity(env, "n") == expected


def test_rank_identity_node_rank_from_nproc() -> None:
    assert rank_identity({"RANK": "9", "LOCAL_RANK": "1"}, "n", nproc_per_node=4) == RankId(
        9, 1, 2, "n"
    )


class Tree:
    """A /proc directory tree: enough of each process for ProcFS."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def proc(
        self,
        pid: int,
        ppid: int,
        *,
        env: dict[str, str] | None = None,
        ticks: tuple[int, int, int, int] = (0, 0, 0, 0),
        state: str = "S",
        io: tuple[int, int] | None = (0, 0),
        children: tuple[int, ...] = (),
        wchan: str = "futex_do_wait",
        with_children_file: bool = True,
    ) -> None:
        d = self.root / str(pid)
        (d / "task" / str(pid)).mkdir(parents=True, exist_ok=True)
        u, s, cu, cs = ticks
        (d / "stat").write_text(
            f"{pid} (python) {state} {ppid} 1 1 0 -1 0 0 0 0 0 {u} {s} {cu} {cs} 20 0 3 0 "
            f"{1000 + pid} 0 0 0"
        )
        if io is not None:
            (d / "io").write_text(f"rchar: {io[0]}\nwchar: {io[1]}\nwrite_bytes: {io[1]}\n")
        (d / "wchan").write_text(wchan)
        (d / "environ").write_bytes(
            b"".join(f"{k}={v}".encode() + b"\0" for k, v in (env or {}).items())
        )
        if with_children_file:
            (d / "task" / str(pid) / "children").write_text(" ".join(map(str, children)))


def _torchrun_tree(tmp_path: Path) -> Tree:
    """launcher 10 -> torchrun 11 -> ranks 20, 21; rank 20 has a DataLoader worker 30
    (which inherited RANK) with a grandchild 40."""
    t = Tree(tmp_path)
    t.proc(10, 1, children=(11,))
    t.proc(11, 10, children=(20, 21))
    rank0 = {"RANK": "0", "LOCAL_RANK": "0", "GROUP_RANK": "0"}
    t.proc(20, 11, env=rank0, ticks=(100, 50, 10, 0), io=(1000, 24), children=(30,))
    t.proc(21, 11, env={"RANK": "1", "LOCAL_RANK": "1", "GROUP_RANK": "0"}, ticks=(7, 3, 0, 0))
    t.proc(30, 20, env=rank0, ticks=(200, 0, 0, 0), io=(5000, 0), children=(40,))
    t.proc(40, 30, env=rank0, ticks=(0, 100, 0, 0), io=(1, 1))
    return t


def test_find_ranks_below_torchrun(tmp_path: Path) -> None:
    t = _torchrun_tree(tmp_path)
    ranks = ProcFS(t.root, clk_tck=100).find_ranks(10, node="gpu-07")
    assert [(r.pid, r.who) for r in ranks] == [
        (20, RankId(0, 0, 0, "gpu-07")),
        (21, RankId(1, 1, 0, "gpu-07")),
    ]


def test_sample_adds_workers(tmp_path: Path) -> None:
    t = _torchrun_tree(tmp_path)
    s = ProcFS(t.root, clk_tck=100).sample(20)
    assert s is not None and s.alive
    assert s.children == (30, 40)
    assert s.cpu_s == pytest.approx((160 + 200 + 100) / 100)
    assert s.io_bytes == 1024 + 5000 + 2
    assert s.wchan == "futex_do_wait" and s.state == "S" and s.threads == 3


def test_sample_without_io_permission(tmp_path: Path) -> None:
    t = Tree(tmp_path)
    t.proc(5, 1, io=None)
    s = ProcFS(t.root, clk_tck=100).sample(5)
    assert s is not None and s.io_bytes is None and s.write_bytes is None


def test_sample_gone_and_zombie(tmp_path: Path) -> None:
    t = Tree(tmp_path)
    t.proc(5, 1, state="Z")
    fs = ProcFS(t.root, clk_tck=100)
    assert fs.sample(6) is None
    zombie = fs.sample(5)
    assert zombie is not None and not zombie.alive


def test_direct_launch_and_launcher_with_rank(tmp_path: Path) -> None:
    t = Tree(tmp_path)
    t.proc(50, 1, env={"RANK": "3", "LOCAL_RANK": "3"})
    fs = ProcFS(t.root, clk_tck=100)
    # the plan says who the directly started script is
    who = RankId(0, 0, 0, "n")
    assert [(r.pid, r.who) for r in fs.find_ranks(50, direct=who)] == [(50, who)]
    # no rank below it: the launcher carrying RANK is the rank
    assert [r.who.rank for r in fs.find_ranks(50)] == [3]


def test_children_by_scan_without_children_files(tmp_path: Path) -> None:
    t = Tree(tmp_path)
    t.proc(10, 1, with_children_file=False)
    t.proc(11, 10, env={"RANK": "0"}, with_children_file=False)
    assert [r.pid for r in ProcFS(t.root, clk_tck=100).find_ranks(10)] == [11]


def test_reader_on_real_processes(tmp_path: Path) -> None:
    """The kernel's own files: a child with RANK in its environment is found below us,
    its CPU grows while it spins, and it sleeps in the kernel when it sleeps."""
    code = (
        "import time, sys\nend = time.time() + 0.3\nwhile time.time() < end: pass\n"
        "print('x', flush=True)\ntime.sleep(30)"
    )
    env = dict(os.environ, RANK="7", LOCAL_RANK="0", GROUP_RANK="0")
    child = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None
        child.stdout.readline()  # spun, now sleeping
        fs = ProcFS()
        ranks = fs.find_ranks(os.getpid(), node="here")
        assert child.pid in [r.pid for r in ranks]
        mine = next(r for r in ranks if r.pid == child.pid)
        assert mine.who == RankId(7, 0, 0, "here")
        s = fs.sample(child.pid)
        assert s is not None and s.alive and s.cpu_s >= 0.1
        assert s.io_bytes is not None and s.io_bytes > 0
        assert s.state in ("S", "R")
    finally:
        child.kill()
        child.wait()
