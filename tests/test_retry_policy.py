"""The retry policy: every branch of ``launchx.retry.next_step``, and the tenacity loop in
``launchx.session.run`` driven by scripted attempts with an injected sleep (no process is
started and no test waits for real time)."""

from __future__ import annotations

import io
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from launchx import session
from launchx.execute import ProcessResult, Supervisor
from launchx.pipeline import Request
from launchx.plan import Target
from launchx.profile_model import Retry
from launchx.retry import AttemptRecord, attempts_charged, next_step

GLOO_TIMEOUT = (
    "[rank1]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] "
    "Timed out waiting 3000ms for recv operation to complete"
)
# A transient failure other than the timeout (a lost gloo peer is no longer one: issue 12's
# corpus shows it is a peer's own exit far more often than the network).
SOCKET_RESET = (
    "[rank1]: misc/socket.cc:46 NCCL WARN socketProgressOpt: Call to send to "
    "10.0.0.2<52905> failed : Connection reset by peer"
)
KEY_ERROR = "[rank0]: KeyError: 'labels'"
SIG = ("collective_timeout", 1, "runtimeerror: timed out")


def rec(
    attempt: int,
    *,
    ok: bool = False,
    category: str | None = "collective_timeout",
    retryable: bool = True,
    signature: tuple[str, int | None, str] | None = SIG,
    before: int | None = None,
    after: int | None = None,
    interrupted: bool = False,
) -> AttemptRecord:
    if ok:
        return AttemptRecord(
            attempt, 0, 1.0, None, False, None, step_before=before, step_after=after
        )
    return AttemptRecord(
        attempt,
        1,
        1.0,
        category,
        retryable,
        signature,
        step_before=before,
        step_after=after,
        interrupted=interrupted,
    )


# --------------------------------------------------------------------------- next_step


def test_success_stops() -> None:
    assert next_step([rec(0), rec(1, ok=True)], Retry()) == (False, "succeeded")


@pytest.mark.parametrize(
    "last",
    [
        rec(0, interrupted=True),  # launchx itself got the signal
        rec(0, category="interrupted", retryable=True),  # the diagnosis says so
    ],
)
def test_interrupt_is_never_retried(last: AttemptRecord) -> None:
    go, why = next_step([last], Retry(max_retries=100, on=("interrupted",)))
    assert not go and "interrupted" in why and "never retried" in why


def test_not_retryable_stops_naming_the_category() -> None:
    go, why = next_step([rec(0, category="user_code_error", retryable=False)], Retry())
    assert not go and why.startswith("user_code_error is not transient")


def test_transient_failure_within_budget_retries() -> None:
    assert next_step([rec(0)], Retry(max_retries=1)) == (True, "transient failure: retrying")


def test_same_failure_twice_without_progress_stops() -> None:
    go, why = next_step([rec(0), rec(1)], Retry(max_retries=10))
    assert not go
    assert "same collective_timeout failure twice" in why and "no checkpoint progress" in why


def test_same_failure_twice_with_progress_in_between_retries() -> None:
    history = [rec(0, before=None, after=10), rec(1, before=10, after=20)]
    assert next_step(history, Retry(max_retries=10))[0]


def test_same_failure_after_a_success_is_not_a_repeat() -> None:
    history = [rec(0, ok=True), rec(1)]
    assert next_step(history, Retry(max_retries=10))[0]


def test_different_failures_without_progress_use_the_budget() -> None:
    other = ("socket_error", 0, "connection reset")
    history = [rec(0), rec(1, signature=other)]
    assert attempts_charged(history) == 2
    assert next_step(history[:1], Retry(max_retries=1))[0]
    go, why = next_step(history, Retry(max_retries=1))
    assert not go and why == "retry budget spent: 1 retry without progress (max_retries=1)"
    go, why = next_step([*history, rec(2, signature=None)], Retry(max_retries=2))
    assert not go and "2 retries without progress (max_retries=2)" in why


def test_progress_means_the_budget_is_not_used() -> None:
    # Five faults, each after a new checkpoint: a long run survives them with max_retries=1.
    history = [rec(i, before=10 * i or None, after=10 * (i + 1)) for i in range(5)]
    assert attempts_charged(history) == 0
    assert next_step(history, Retry(max_retries=1))[0]


def test_progress_then_stalls_charge_only_the_stalled_attempts() -> None:
    other = ("socket_error", 0, "connection reset")
    history = [rec(0, after=10), rec(1, before=10, after=10, signature=other)]
    assert attempts_charged(history) == 1  # the second attempt saved nothing new
    assert next_step(history, Retry(max_retries=1))[0]
    history.append(rec(2, before=10, after=10))
    go, why = next_step(history, Retry(max_retries=1))
    assert not go and why.startswith("retry budget spent")


def test_checkpoint_going_backwards_is_not_progress() -> None:
    assert not rec(0, before=20, after=10).progressed
    assert not rec(0, before=20, after=20).progressed
    assert not rec(0, before=None, after=None).progressed
    assert rec(0, before=None, after=0).progressed


def test_zero_budget_never_retries_without_progress() -> None:
    go, why = next_step([rec(0)], Retry(max_retries=0))
    assert not go and "max_retries=0" in why
    assert next_step([rec(0, after=5)], Retry(max_retries=0))[0]


# --------------------------------------------------------------------------- the loop


class Scripted:
    """Stands in for ``execute.run_process``: each call plays the next scripted attempt.

    An attempt may write a checkpoint first (progress), and may deliver a real signal to
    launchx itself, so the loop sees the Supervisor's real stop state."""

    def __init__(
        self,
        steps: list[tuple[int, str, int | None, int | None]],
        ckpt_dir: Path,
    ) -> None:
        self.steps: Iterator[tuple[int, str, int | None, int | None]] = iter(steps)
        self.ckpt_dir = ckpt_dir
        self.calls: list[dict[str, str]] = []

    def __call__(
        self,
        argv: tuple[str, ...],
        env: dict[str, str],
        sup: Supervisor,
        *,
        grace_s: float,
        out: io.StringIO | None = None,
    ) -> ProcessResult:
        self.calls.append({k: v for k, v in env.items() if k.startswith("LAUNCHX_")})
        code, text, save_step, signum = next(self.steps)
        if save_step is not None:
            self.ckpt_dir.mkdir(exist_ok=True)
            (self.ckpt_dir / f"step_{save_step:08d}.pt").write_bytes(b"weights")
        if signum is not None:
            os.kill(os.getpid(), signum)  # the real handler that session installed runs
        return ProcessResult(code, sup.stopping, 0.5, tuple(text.splitlines()))


@pytest.fixture
def loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., tuple[int, str, list[float], Scripted]]:
    for var in [v for v in os.environ if v.startswith(("LAUNCHX_", "SLURM_", "TORCHELASTIC_"))]:
        monkeypatch.delenv(var)
    for var in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(var, raising=False)

    def run(
        steps: list[tuple[int, str, int | None, int | None]],
        *sets: str,
        sleep: Callable[[float], None] | None = None,
    ) -> tuple[int, str, list[float], Scripted]:
        ckpt = tmp_path / "ckpt"
        fake = Scripted(steps, ckpt)
        monkeypatch.setattr(session, "run_process", fake)
        slept: list[float] = []
        out = io.StringIO()
        request = Request(
            profile="local",
            sets=(f"resume.checkpoint_dir={ckpt}", *sets),
            flags={"nproc_per_node": "2"},
            flag_names={"nproc_per_node": "--nproc-per-node"},
        )
        code = session.run(
            request,
            Target("train.py"),
            log_dir=str(tmp_path / "logs"),
            sleep=sleep or slept.append,
            out=out,
            environ={"PATH": os.environ.get("PATH", "")},
        )
        return code, out.getvalue(), slept, fake

    return run


BACKOFF = ("retry.backoff_min_s=5", "retry.backoff_max_s=12", "retry.jitter_s=5")


def test_backoff_is_exponential_with_jitter_capped_at_max(
    loop: Callable[..., tuple[int, str, list[float], Scripted]],
) -> None:
    # Four transient failures, each after a new checkpoint (so none is "the same failure
    # twice without progress" and none uses the budget of 1), then success.
    steps = [(1, GLOO_TIMEOUT, 10 * (i + 1), None) for i in range(4)] + [(0, "", None, None)]
    code, text, slept, fake = loop(steps, "retry.max_retries=1", *BACKOFF)
    assert code == 0, text
    assert len(slept) == 4
    # min(backoff_max_s, backoff_min_s * 2**n) + uniform(0, jitter_s), n = 0, 1, 2, ...
    for n, delay in enumerate(slept):
        base = min(12, 5 * 2**n)
        assert base <= delay <= base + 5, (n, delay)
    for i, delay in enumerate(slept):
        assert f"collective_timeout is transient; attempt {i + 1} in {delay:.1f}s" in text
    assert [c["LAUNCHX_ATTEMPT"] for c in fake.calls] == ["0", "1", "2", "3", "4"]
    resumed = [c.get("LAUNCHX_RESUME_FROM", "") for c in fake.calls]
    assert resumed[0] == "" and resumed[4].endswith("step_00000040.pt")
    assert len({c["LAUNCHX_RUN_ID"] for c in fake.calls}) == 1


def test_jitter_actually_varies(
    loop: Callable[..., tuple[int, str, list[float], Scripted]],
) -> None:
    steps = [(1, GLOO_TIMEOUT, 10 * (i + 1), None) for i in range(6)] + [(0, "", None, None)]
    _code, _text, slept, _ = loop(
        steps, "retry.backoff_min_s=1", "retry.backoff_max_s=1000", "retry.jitter_s=1"
    )
    fractions = {round(d - 2**i, 6) for i, d in enumerate(slept)}
    assert all(0 <= f <= 1 for f in fractions)
    assert len(fractions) > 1  # six uniform draws are never all equal


def test_zero_backoff_never_sleeps_for_long(
    loop: Callable[..., tuple[int, str, list[float], Scripted]],
) -> None:
    steps = [(1, GLOO_TIMEOUT, 10, None), (0, "", None, None)]
    code, _text, slept, _ = loop(
        steps, "retry.backoff_min_s=0", "retry.backoff_max_s=0", "retry.jitter_s=0"
    )
    assert code == 0 and slept == [0]


def test_same_transient_failure_twice_without_progress_stops_after_two(
    loop: Callable[..., tuple[int, str, list[float], Scripted]],
) -> None:
    steps = [(1, GLOO_TIMEOUT, None, None)] * 5
    code, text, slept, fake = loop(steps, *BACKOFF)
    assert code == 1 and len(fake.calls) == 2 and len(slept) == 1
    assert "same collective_timeout failure twice in a row" in text


def test_budget_spent_on_different_failures_without_progress(
    loop: Callable[..., tuple[int, str, list[float], Scripted]],
) -> None:
    steps = [(1, GLOO_TIMEOUT, None, None), (1, SOCKET_RESET, None, None), (0, "", None, None)]
    code, text, slept, fake = loop(steps, "retry.max_retries=1", *BACKOFF)
    assert code == 1 and len(fake.calls) == 2 and len(slept) == 1
    assert "retry budget spent: 1 retry without progress (max_retries=1)" in text


def test_not_transient_failure_is_not_retried(
    loop: Callable[..., tuple[int, str, list[float], Scripted]],
) -> None:
    code, text, slept, fake = loop([(1, KEY_ERROR, None, None)] * 2, *BACKOFF)
    assert code == 1 and len(fake.calls) == 1 and slept == []
    assert "user_code_error is not transient" in text


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_user_interrupt_is_never_retried(
    loop: Callable[..., tuple[int, str, list[float], Scripted]], signum: int
) -> None:
    # The attempt ends with a transient-looking log, but launchx itself got the signal.
    steps = [(128 + signum, GLOO_TIMEOUT, None, signum), (0, "", None, None)]
    previous = signal.getsignal(signum)
    code, text, slept, fake = loop(steps, "retry.on=interrupted", *BACKOFF)
    assert code == 128 + signum
    assert len(fake.calls) == 1 and slept == []
    assert "launchx: interrupted" in text
    assert signal.getsignal(signum) is previous  # handlers restored


def test_interrupt_during_backoff_stops_before_the_next_attempt(
    loop: Callable[..., tuple[int, str, list[float], Scripted]],
) -> None:
    # A SIGTERM that lands while launchx waits between attempts (the injected sleep
    # delivers it): no further attempt starts.
    steps = [(1, GLOO_TIMEOUT, 10, None), (0, "", None, None)]
    waited: list[float] = []

    def sleep_then_term(seconds: float) -> None:
        waited.append(seconds)
        os.kill(os.getpid(), signal.SIGTERM)

    code, text, _slept, fake = loop(steps, *BACKOFF, sleep=sleep_then_term)
    assert code == 128 + signal.SIGTERM
    assert len(fake.calls) == 1 and len(waited) == 1
    assert "launchx: interrupted" in text
