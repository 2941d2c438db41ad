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


def free_port() -> int:
    """A port nobody listens on right now (the kernel's pick)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def free_pair() -> int:
    """A port whose next port is free too (node 0's channel listens on MASTER_PORT + 1)."""
    import socket

    for _ in range(50):
        with socket.socket() as a:
            a.bind(("127.0.0.1", 0))
            port = int(a.getsockname()[1])
            if port >= 65535:
                continue
            with socket.socket() as b:
                try:
                    b.bind(("127.0.0.1", port + 1))
                except OSError:
                    continue
                return port
    raise RuntimeError("no two adjacent free ports")


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
) -> LaunchPlan:
    """One attempt's plan, decided the way ``launchx run`` decides it (pure)."""
    run = decide_run(res, run_id=run_id, log_dir=log_dir)
    if extra_findings:
        run = replace(run, findings=sort_findings([*run.findings, *extra_findings]))
    spec = AttemptSpec(attempt, run_id, master_port, log_dir, resume_from)
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
