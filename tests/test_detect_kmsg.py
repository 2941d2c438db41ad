"""The kernel log as OOM evidence (issue 10, defect 4): ``detect`` reads ``/dev/kmsg``
without blocking and keeps the OOM-kill lines naming given pids; ``run.attempts`` asks it
about the processes a SIGKILL ended, only when one did, and an attempt whose SIGKILLed
rank the kernel names is an OOM kill (``Evidence.oom_kills``), else ``killed``.

The kernel text is recorded from real kernels (5.15 memcg, 6.x global, 4.15's two-line
form), with the neighbours an OOM report has and lines that name a pid without an OOM.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Collection
from pathlib import Path

import pytest

from launchx import detect
from launchx.execute import Supervisor
from launchx.origin import Origin
from launchx.plan import LauncherKind, LaunchPlan
from launchx.profile_model import Retry
from launchx.run.attempts import ProcessAttempts, sigkilled_pids
from launchx.run.decide import assess
from launchx.run.output import Terminal


def _text(*lines: str) -> str:
    return "".join(line + "\n" for line in lines)


# 5.15, a container's memory cgroup at its limit: rank pid 4242 killed
MEMCG_515 = _text(
    "4,1201,5123456789,-;python invoked oom-killer: "
    "gfp_mask=0x1100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0",
    "4,1202,5123456801,-;CPU: 3 PID: 4242 Comm: python Not tainted 5.15.0-91-generic #101-Ubuntu",
    " SUBSYSTEM=cpu",
    " DEVICE=+cpu:3",
    "6,1230,5123457000,-;memory: usage 8388608kB, limit 8388608kB, failcnt 1375",
    "6,1259,5123457002,-;[   4242]     0  4242  3086531  2090123 17412096        0"
    "             0 python",
    "6,1260,5123457010,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),"
    "cpuset=docker-ab12.scope,mems_allowed=0,oom_memcg=/system.slice/docker-ab12.scope,"
    "task_memcg=/system.slice/docker-ab12.scope,task=python,pid=4242,uid=0",
    "3,1261,5123457020,-;Memory cgroup out of memory: Killed process 4242 (python) "
    "total-vm:12346124kB, anon-rss:8360492kB, file-rss:0kB, shmem-rss:0kB, UID:0 "
    "pgtables:17004kB oom_score_adj:0",
    "6,1262,5123457530,-;oom_reaper: reaped process 4242 (python), now anon-rss:0kB, "
    "file-rss:0kB, shmem-rss:0kB",
)
# 6.x, the whole host out of memory (with a caller field after the flags): pid 5151
GLOBAL_6X = _text(
    "6,339,7140900,-,caller=T5151;oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),"
    "cpuset=/,mems_allowed=0,global_oom,task_memcg=/user.slice/user-1000.slice/session-3.scope,"
    "task=python3,pid=5151,uid=1000",
    "3,340,7140911,-,caller=T5151;Out of memory: Killed process 5151 (python3) "
    "total-vm:30212340kB, anon-rss:29871232kB, file-rss:4kB, shmem-rss:0kB, UID:1000 "
    "pgtables:58720kB oom_score_adj:0",
)
# 4.15: the choice, then the kill, on two lines: pid 777
TWO_LINE_415 = _text(
    "3,900,300000000,-;Out of memory: Kill process 777 (python) score 900 or sacrifice child",
    "3,901,300000100,-;Killed process 777 (python) total-vm:9876543kB, anon-rss:8765432kB, "
    "file-rss:0kB, shmem-rss:0kB",
)
# lines that name a pid with no OOM at all
NOT_OOM = _text(
    "6,1300,6000000000,-;python[4243]: segfault at 0 ip 00007f2a1b2c3d4e sp 00007ffd12345678 "
    "error 4 in libc.so.6",
    '5,1301,6000000100,-;audit: type=1400 audit(1700000000.123:45): apparmor="DENIED" '
    'operation="open" profile="x" pid=4243 comm="python"',
    "4,1302,6000000200,-;traps: python[4243] general protection fault ip:7f2a sp:7ffd error:0",
    "6,1303,6000000300,-;Killed process 42424 (other) total-vm:1kB",
)
RECORDED = MEMCG_515 + GLOBAL_6X + TWO_LINE_415 + NOT_OOM


# --------------------------------------------------------------------------- records


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("6,339,7140900,-;hello", (7140900, "hello")),
        ("6,339,7140900,-,caller=T1;a;b\n", (7140900, "a;b")),  # ';' in the message
        ("4,1,0,c;continued", (0, "continued")),
        (" SUBSYSTEM=cpu", None),  # a continuation line (its dictionary)
        (" DEVICE=+cpu:3;x", None),
        ("no header here", None),
        ("6,339;short", None),
        ("6,339,soon,-;not a clock", None),
        ("", None),
    ],
)
def test_a_kmsg_record(line: str, expected: tuple[int, str] | None) -> None:
    assert detect.kmsg_record(line) == expected


def test_the_oom_lines_of_a_memcg_kill_name_the_rank() -> None:
    found = detect.kernel_oom_lines([RECORDED], {4242})
    assert [line.split(":")[0] for line in found] == [
        "oom-kill",
        "Memory cgroup out of memory",
        "oom_reaper",
    ]
    assert all("4242" in line for line in found)
    # the report's neighbours name the pid too, but they are no kill
    assert not any(line.startswith(("python invoked", "CPU: 3 PID", "[")) for line in found)


def test_a_global_oom_and_the_old_two_line_form() -> None:
    assert len(detect.kernel_oom_lines([RECORDED], {5151})) == 2
    old = detect.kernel_oom_lines([RECORDED], {777})
    assert old == (
        "Out of memory: Kill process 777 (python) score 900 or sacrifice child",
        "Killed process 777 (python) total-vm:9876543kB, anon-rss:8765432kB, file-rss:0kB, "
        "shmem-rss:0kB",
    )


@pytest.mark.parametrize("pids", [{4243}, {424}, {42}, {1}, set()])
def test_a_pid_with_no_oom_kill_has_no_lines(pids: set[int]) -> None:
    """A segfault, an audit record, a trap name 4243; 424 and 42 are prefixes of 4242 and
    42424 (whose kill is a real one, of another process)."""
    assert detect.kernel_oom_lines([RECORDED], pids) == ()


def test_only_lines_since_the_attempt_started() -> None:
    assert detect.kernel_oom_lines([RECORDED], {4242}, since_us=5123457015) == (
        MEMCG_515.splitlines()[-2].partition(";")[2],
        MEMCG_515.splitlines()[-1].partition(";")[2],
    )
    assert detect.kernel_oom_lines([RECORDED], {4242, 5151, 777}, since_us=10**12) == ()


def test_one_record_a_chunk_as_the_device_reads() -> None:
    chunks = [line + "\n" for line in RECORDED.splitlines()]
    assert detect.kernel_oom_lines(chunks, {5151}) == detect.kernel_oom_lines([RECORDED], {5151})


# --------------------------------------------------------------------------- reading


def test_reading_a_recorded_log(tmp_path: Path) -> None:
    log = tmp_path / "kmsg"
    log.write_text(GLOBAL_6X + NOT_OOM)  # one read: under the 8 KiB of a record read
    assert len(detect.kernel_oom_kills({5151}, 7.0, path=str(log))) == 2
    assert detect.kernel_oom_kills({5151}, 7.2, path=str(log)) == ()  # before the attempt


def test_reading_until_eagain_like_the_device(tmp_path: Path) -> None:
    """A FIFO whose writer stays open answers EAGAIN once drained, as /dev/kmsg does after
    its newest record: the read ends there instead of waiting."""
    fifo = tmp_path / "kmsg"
    os.mkfifo(fifo)
    keep = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    writer = os.open(fifo, os.O_WRONLY)
    try:
        os.write(writer, MEMCG_515.encode())
        assert len(detect.kernel_oom_kills({4242}, 0.0, path=str(fifo))) == 3
        assert detect.kernel_oom_kills({4242}, 0.0, path=str(fifo)) == ()  # drained
    finally:
        os.close(writer)
        os.close(keep)


def test_a_record_overwritten_while_reading_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """EPIPE: the ring buffer overwrote the next record; the following read goes on."""
    reads: list[bytes | type[OSError]] = [
        BrokenPipeError,
        GLOBAL_6X.splitlines()[1].encode() + b"\n",
        BlockingIOError,
    ]

    def fake_read(fd: int, size: int) -> bytes:
        item = reads.pop(0)
        if isinstance(item, bytes):
            return item
        raise item()

    monkeypatch.setattr(os, "open", lambda *a: 99)
    monkeypatch.setattr(os, "close", lambda fd: None)
    monkeypatch.setattr(os, "read", fake_read)
    found = detect.kernel_oom_kills({5151}, 0.0)
    assert len(found) == 1 and found[0].startswith("Out of memory: Killed process 5151")
    assert reads == []


@pytest.mark.parametrize("path", ["/nonexistent/kmsg", "/dev/null"])
def test_an_unreadable_log_is_no_evidence(path: str) -> None:
    assert detect.kernel_oom_kills({4242}, 0.0, path=path) == ()


def test_no_pids_reads_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> int:
        raise AssertionError("opened the kernel log with no pid to look for")

    monkeypatch.setattr(os, "open", refuse)
    assert detect.kernel_oom_kills(set(), 0.0) == ()


def test_this_hosts_log_has_no_oom_kill_of_this_test() -> None:
    """The real device where it can be read (nothing, quietly, where it cannot)."""
    assert detect.kernel_oom_kills({os.getpid()}, 0.0) == ()


# --------------------------------------------------------------------------- the wiring

# what torchrun prints when worker 1 (pid 4242) was SIGKILLed and it stopped worker 0
TORCHRUN_TAIL = (
    "[W1124 22:14:11.318000 20554 torch/distributed/elastic/multiprocessing/api.py:1028] "
    "Sending process 4241 closing signal SIGTERM",
    "[E1124 22:14:11.321000 20554 torch/distributed/elastic/multiprocessing/api.py:1002] "
    "failed (exitcode: -9) local_rank: 1 (pid: 4242) of binary: /usr/bin/python",
    *"""torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2026-11-24_22:14:11
  host      : localhost
  rank      : 0 (local_rank: 0)
  exitcode  : -15 (pid: 4241)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 4241
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-11-24_22:14:11
  host      : localhost
  rank      : 1 (local_rank: 1)
  exitcode  : -9 (pid: 4242)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 4242
============================================================""".splitlines(),
)


def test_the_sigkilled_pids_of_an_attempt() -> None:
    assert sigkilled_pids(1, 100, TORCHRUN_TAIL) == {4242}  # not the SIGTERMed survivor
    assert sigkilled_pids(137, 100, ()) == {100}  # the child itself: a direct rank
    assert sigkilled_pids(137, None, TORCHRUN_TAIL) == {4242}
    assert sigkilled_pids(1, 100, ("  exitcode  : 1 (pid: 4242)",)) == frozenset()
    assert sigkilled_pids(1, 100, ("  exitcode  : -90 (pid: 4242)",)) == frozenset()


def _plan(launcher: LauncherKind, code: str) -> LaunchPlan:
    return LaunchPlan(
        launcher=launcher,
        argv=(sys.executable, "-c", code),
        env=(),
        findings=(),
        profile="local",
        run_id="lx-test",
        attempt=0,
        nnodes=1,
        nproc_per_node=1,
        node_rank=0,
        master_addr="127.0.0.1",
        master_port=29500,
        port_source=Origin("default"),
        context="test",
        log_dir=None,
        grace_period_s=5.0,
    )


class FakeKernel:
    def __init__(self, lines: tuple[str, ...]) -> None:
        self.lines = lines
        self.asked: list[tuple[frozenset[int], float]] = []

    def __call__(self, pids: Collection[int], since_s: float) -> tuple[str, ...]:
        self.asked.append((frozenset(pids), since_s))
        return self.lines


def _attempts(kernel: FakeKernel, cgroup: int | None) -> ProcessAttempts:
    return ProcessAttempts(
        supervisor=Supervisor(),
        base_env={"PATH": os.defpath},
        terminal=Terminal(io.StringIO()),
        direct_rank=0,
        oom_kills=lambda: cgroup,
        kernel_ooms=kernel,
        kernel_clock=lambda: 1000.0,
    )


SELF_KILL = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
KERNEL_LINE = ("Out of memory: Killed process 4242 (python) total-vm:1kB",)
TORCHRUN_FAILS = f"import sys; print({chr(10).join(TORCHRUN_TAIL)!r}); sys.exit(1)"


@pytest.mark.parametrize("cgroup", [0, None], ids=["counter-unchanged", "no-counter"])
def test_a_worker_the_kernel_log_names_is_an_oom_kill(cgroup: int | None) -> None:
    kernel = FakeKernel(KERNEL_LINE)
    evidence = _attempts(kernel, cgroup).run(_plan("torchrun", TORCHRUN_FAILS))
    assert evidence.exit_code == 1
    # asked once, about the SIGKILLed worker only, since the attempt began
    assert kernel.asked == [(frozenset({4242}), 1000.0 - 60.0)]
    assert evidence.oom_kills == 1
    record, _ = assess(evidence, attempt=0, policy=Retry(), step_after=10)
    assert (record.category, record.retryable) == ("host_oom_killed", False)


@pytest.mark.parametrize("cgroup", [0, None], ids=["counter-unchanged", "no-counter"])
def test_a_sigkill_the_kernel_log_does_not_name_stays_killed(cgroup: int | None) -> None:
    kernel = FakeKernel(())
    evidence = _attempts(kernel, cgroup).run(_plan("torchrun", TORCHRUN_FAILS))
    assert len(kernel.asked) == 1
    assert evidence.oom_kills == cgroup  # None: neither source could say, no evidence
    record, _ = assess(evidence, attempt=0, policy=Retry(), step_after=10)
    assert (record.category, record.retryable) == ("killed", True)  # retried: it can resume


def test_the_cgroup_counter_alone_still_counts() -> None:
    attempts = _attempts(FakeKernel(()), 0)
    readings = iter([5, 7])  # before and after: the counter grew by 2
    attempts.oom_kills = lambda: next(readings)
    evidence = attempts.run(_plan("torchrun", TORCHRUN_FAILS))
    assert evidence.oom_kills == 2


def test_a_direct_rank_sigkilled_is_looked_up_by_its_own_pid() -> None:
    kernel = FakeKernel(KERNEL_LINE)
    evidence = _attempts(kernel, 0).run(_plan("direct", SELF_KILL))
    assert evidence.exit_code == 137
    [(pids, _since)] = kernel.asked
    assert len(pids) == 1 and next(iter(pids)) > 0  # the child: the rank itself
    assert evidence.oom_kills == 1


@pytest.mark.parametrize("code", ["import sys; sys.exit(3)", "pass"], ids=["failed", "ok"])
def test_no_sigkill_no_kernel_log_read(code: str) -> None:
    kernel = FakeKernel(KERNEL_LINE)
    evidence = _attempts(kernel, 0).run(_plan("direct", code))
    assert kernel.asked == [] and evidence.oom_kills == 0
