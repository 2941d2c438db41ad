"""Shared fixtures: isolated environments, recorded hosts, the CLI, and process cleanup."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from launchx.findings import Finding, sort_findings
from launchx.plan import AttemptSpec, LaunchPlan, Target, build, decide_run
from launchx.resolve import Resolution

ROOT = Path(__file__).resolve().parent.parent
HOSTS = Path(__file__).resolve().parent / "hosts"
PYTHON = sys.executable

from slurm_fixtures import *  # noqa: E402, F403  (the SLURM cluster fixtures)


def clean_env(**extra: str) -> dict[str, str]:
    """A minimal environment without any launcher's variables (each test builds its own)."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT", "USER")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(extra)
    return env


@pytest.fixture
def env() -> dict[str, str]:
    return clean_env()


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def run_cli(
    args: list[str],
    environ: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    stdin: str | None = None,
    timeout: float = 120,
) -> tuple[int, str, str]:
    """Run the real ``launchx`` entry point in a subprocess (what a user runs)."""
    import subprocess

    proc = subprocess.run(
        [PYTHON, "-m", "launchx", *args],
        capture_output=True,
        text=True,
        env=dict(environ if environ is not None else clean_env()),
        cwd=cwd,
        input=stdin,
        timeout=timeout,
    )
    return proc.returncode, proc.stdout, proc.stderr


def _ephemeral_low() -> int:
    """The first port of the kernel's ephemeral range: an outgoing connection (a rank
    connecting to a store) takes its local port from that range, so a port the tests mean to
    listen on later is picked below it."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _free_run(n: int) -> int:
    """The first of ``n`` consecutive ports that nobody holds now, outside the ephemeral
    range, so that no connection opened in between (by this run's own ranks) takes one of
    them before the launcher listens there."""
    import random
    import socket

    low = _ephemeral_low()
    # (where the ephemeral range starts below 20000 no range is outside it: take any port)
    base, top = (20000, low - n) if low - n > 20000 else (low, 65535 - n)
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(base, top)
        if port + n >= 29400 and port <= 29600:
            continue  # torchrun's defaults, which some tests take on purpose
        socks = [socket.socket() for _ in range(n)]
        try:
            for i, s in enumerate(socks):
                s.bind(("127.0.0.1", port + i))
            return port
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise RuntimeError(f"no {n} adjacent free ports")


def free_port() -> int:
    """A port nobody listens on right now, below the kernel's ephemeral range."""
    return _free_run(1)


def free_pair() -> int:
    """A port whose next port is free too (node 0's channel listens on MASTER_PORT + 1)."""
    return _free_run(2)


def plan_once(
    res: Resolution,
    target: Target,
    *,
    run_id: str | None = "r",
    attempt: int = 0,
    master_port: int | None = None,
    log_dir: str | None = None,
    resume_from: str | None = None,
    relaunch: tuple[str, ...] = (),
    extra_findings: tuple[Finding, ...] = (),
    checkpoint_dir: str | None = None,
) -> LaunchPlan:
    """One attempt's plan, decided the way ``launchx run`` decides it (pure)."""
    run = decide_run(res, run_id=run_id, log_dir=log_dir)
    if extra_findings:
        run = replace(run, findings=sort_findings([*run.findings, *extra_findings]))
    spec = AttemptSpec(attempt, run_id, master_port, log_dir, resume_from, checkpoint_dir)
    return build(res, run, spec, target, relaunch=relaunch)


def poll_until(predicate: Callable[[], object], timeout_s: float, what: str) -> None:
    """Poll for something another process or thread causes; fail the test naming ``what``
    at the deadline (a bound for a broken test, never one asserted on the code)."""
    import time

    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(0.05)


def torchrun_summary(host: str = "localhost", exitcode: int = 3) -> str:
    """torchrun's failure summary (torch 2.x) for one failed rank, rank 1 of two, as the
    agent prints it under its ChildFailedError."""
    return f"""torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-11-24_05:02:31
  host      : {host}
  rank      : 1 (local_rank: 1)
  exitcode  : {exitcode} (pid: 2999)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""
