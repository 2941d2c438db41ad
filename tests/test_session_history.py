"""A SLURM job's attempts persist next to the job, so a requeued job continues the
attempt numbering and the retry budget instead of starting afresh."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from launchx import session
from launchx.execute import ProcessResult
from launchx.pipeline import Request
from launchx.plan import Target

TIMEOUT = (
    "[r0]: RuntimeError: [gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting "
    "5000ms for recv operation to complete"
)
RESET = (
    "[r1]: RuntimeError: [gloo/transport/tcp/pair.cc:534] Connection closed by peer "
    "[10.0.0.2]:41234"
)


@pytest.fixture
def slurm_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "SLURM_JOB_ID": "4242",
        "SLURM_JOB_NODELIST": "n1",
        "SLURM_NNODES": "1",
        "SLURM_NODEID": "0",
        "SLURM_SUBMIT_DIR": str(tmp_path),
    }
    monkeypatch.chdir(tmp_path)
    for key in list(__import__("os").environ):
        if key.startswith(("SLURM_", "LAUNCHX_", "TORCHELASTIC_", "PET_", "OMPI_", "PMI_")):
            monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    yield env


def scripted(monkeypatch: pytest.MonkeyPatch, tails: list[str]) -> list[dict[str, str]]:
    """Replace the process with scripted failures; record each attempt's environment."""
    seen: list[dict[str, str]] = []

    def fake_run(
        argv: tuple[str, ...], env: dict[str, str], sup: object, **_: object
    ) -> ProcessResult:
        seen.append(env)
        return ProcessResult(1, False, 0.1, (tails[len(seen) - 1],))

    monkeypatch.setattr(session, "run_process", fake_run)
    return seen


def request(retries: int) -> Request:
    zero_backoff = ("retry.backoff_min_s=0", "retry.backoff_max_s=0", "retry.jitter_s=0")
    return Request(profile="slurm", sets=(f"retry.max_retries={retries}", *zero_backoff))


def quiet_run(req: Request) -> int:
    with open("/dev/null", "w") as sink:
        return session.run(req, Target("train.py"), sleep=lambda _s: None, out=sink)


def test_budget_and_numbering_continue_across_requeues(
    slurm_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen = scripted(monkeypatch, [TIMEOUT, RESET])
    assert quiet_run(request(1)) == 1
    assert [e["LAUNCHX_ATTEMPT"] for e in seen] == ["0", "1"]
    assert len(list((tmp_path / ".launchx" / "4242").glob("attempts-*.json"))) == 1

    # The job is requeued (by a preemption, say) with a budget of 3: the 2 failures of the
    # first allocation count, so 2 more attempts (not 4) are made, numbered 2 and 3.
    monkeypatch.setenv("SLURM_RESTART_COUNT", "1")
    seen = scripted(monkeypatch, [TIMEOUT, RESET, TIMEOUT, RESET])
    assert quiet_run(request(3)) == 1
    assert [e["LAUNCHX_ATTEMPT"] for e in seen] == ["2", "3"]


def test_without_history_a_new_job_starts_at_zero(
    slurm_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLURM_JOB_ID", "999")
    seen = scripted(monkeypatch, [TIMEOUT, RESET, TIMEOUT, RESET])
    assert quiet_run(request(1)) == 1
    assert [e["LAUNCHX_ATTEMPT"] for e in seen] == ["0", "1"]


def test_two_runs_in_one_job_keep_separate_budgets(
    slurm_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen = scripted(monkeypatch, [TIMEOUT, RESET])
    assert quiet_run(request(1)) == 1
    seen = scripted(monkeypatch, [TIMEOUT, RESET])
    with open("/dev/null", "w") as sink:
        code = session.run(request(1), Target("finetune.py"), sleep=lambda _s: None, out=sink)
    # its own numbering and its own budget of one retry, not the first run's spent one
    assert code == 1 and [e["LAUNCHX_ATTEMPT"] for e in seen] == ["0", "1"]
    assert len(list((tmp_path / ".launchx" / "4242").glob("attempts-*.json"))) == 2


def test_warning_then_exit_zero_is_still_requeued(
    slurm_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A script that checkpoints on the warning and exits 0 has not finished training."""
    import os
    import signal

    from launchx import slurm

    requeued: list[str] = []
    monkeypatch.setattr(slurm, "requeue", lambda job_id, **_kw: requeued.append(job_id))

    def warned_then_clean(
        argv: tuple[str, ...], env: dict[str, str], sup: object, **_: object
    ) -> ProcessResult:
        os.kill(os.getpid(), signal.SIGUSR2)  # the scheduler's warning reaches launchx
        return ProcessResult(0, False, 0.1, ("[toy] preempted at step 40",))

    monkeypatch.setattr(session, "run_process", warned_then_clean)
    assert quiet_run(request(3)) == 0
    assert requeued == ["4242"]
