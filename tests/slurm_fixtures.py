"""Fixtures for tests that need the real local SLURM cluster (``scripts/slurm-local.sh``).

``slurm_cluster`` skips when the cluster is not up, naming why and how to start it, except
under ``CI=true``, where a missing cluster is a failure: CI starts it, so its absence means
the setup broke, and skipping would hide every SLURM test. ``slurm_jobs`` gives each test a
unique job name and cancels everything under it (and every id it was told about) at teardown,
so no job outlives its test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

__all__ = ["SlurmCluster", "SlurmJobs", "cluster_state", "slurm_cluster", "slurm_jobs"]

START_HINT = "start it with: sudo scripts/slurm-local.sh start"
_USABLE = {"idle", "mix", "mixed", "alloc", "allocated", "comp", "completing"}


@dataclass(frozen=True)
class SlurmCluster:
    nodes: tuple[str, ...]


@dataclass
class SlurmJobs:
    """Jobs a test started; everything here is cancelled when the test ends."""

    name: str
    ids: list[str] = field(default_factory=list)

    def track(self, job_id: str) -> str:
        self.ids.append(job_id)
        return job_id

    def cancel_all(self) -> None:
        subprocess.run(
            ["scancel", "--name", self.name], capture_output=True, timeout=30, check=False
        )
        if self.ids:
            subprocess.run(["scancel", *self.ids], capture_output=True, timeout=30, check=False)


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=20, check=False)


def cluster_state() -> tuple[str | None, tuple[str, ...]]:
    """(why it is unusable or None, usable node names)."""
    if shutil.which("scontrol") is None or shutil.which("srun") is None:
        return "the SLURM client commands are not installed", ()
    try:
        ping = _run("scontrol", "ping")
        if ping.returncode != 0 or "UP" not in ping.stdout:
            said = (ping.stdout + ping.stderr).strip().splitlines()
            return f"slurmctld does not answer ({said[0] if said else 'no output'})", ()
        info = _run("sinfo", "-h", "-N", "-o", "%N %T")
    except subprocess.TimeoutExpired:
        return "scontrol/sinfo did not answer within 20 s", ()
    nodes = []
    for line in info.stdout.splitlines():
        name, _, state = line.partition(" ")
        if state.strip().lower().rstrip("*~#!%$@^-+") in _USABLE:
            nodes.append(name)
    if not nodes:
        return f"no usable node: sinfo says {info.stdout.strip()!r}", ()
    return None, tuple(dict.fromkeys(nodes))


@pytest.fixture(scope="session")
def slurm_cluster() -> SlurmCluster:
    why, nodes = cluster_state()
    if why is not None:
        message = f"local SLURM cluster not available: {why}; {START_HINT}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return SlurmCluster(nodes=nodes)


@pytest.fixture
def slurm_jobs(slurm_cluster: SlurmCluster) -> Iterator[SlurmJobs]:
    jobs = SlurmJobs(name=f"lxtest-{uuid.uuid4().hex[:10]}")
    try:
        yield jobs
    finally:
        jobs.cancel_all()
