"""A console log of ``launchx run`` (what a SLURM job's .out file holds) read back by
``launchx diagnose``: its summary gives each attempt's outcome, a clean run is "succeeded",
and launchx's own report of a failure is not read as more evidence."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from launchx import cli, failures, ownsummary
from launchx.diagnosis import AttemptView
from launchx.run import text
from launchx.run.decide import AttemptRecord

runner = CliRunner()

RANK_1_FAILS = (
    "[r1]: Traceback (most recent call last):\n"
    '[r1]:   File "/job/train.py", line 3, in <module>\n'
    "[r1]:     batch = data['labels']\n"
    "[r1]: KeyError: 'labels'\n"
)


def _record(attempt: int, exit_code: int, category: str | None) -> AttemptRecord:
    return AttemptRecord(
        attempt=attempt,
        exit_code=exit_code,
        duration_s=2.0,
        category=category,
        retryable=False,
        signature=None,
    )


def _console(*records: AttemptRecord, reason: str = "finished") -> str:
    """The console of a run whose failed attempts printed RANK_1_FAILS, as the run loop
    writes it: the ranks' lines, launchx's failure report after each failed attempt, the
    summary at the end."""
    out = []
    for rec in records:
        out.append(f"launchx: profile local | run lx-1 attempt {rec.attempt}\n")
        if rec.exit_code:
            out.append(RANK_1_FAILS)
            out.append(text.failure(failures.diagnose_logs([RANK_1_FAILS]), retryable=False))
        else:
            out.append("[r0]: step 9 loss 0.1\n")
    out.append(text.summary(list(records), reason, elapsed_s=5.2))
    return "".join(out)


def test_the_summary_gives_each_attempt_its_outcome() -> None:
    console = _console(_record(0, 1, "user_code_error"), _record(1, 0, None))
    report = failures.diagnose_logs([console])
    assert [(a.attempt, a.outcome, a.category, a.exit_code) for a in report.attempts] == [
        (0, "failed", "user_code_error", 1),
        (1, "ok", None, 0),
    ]
    assert report.primary is not None and report.primary.category == "user_code_error"
    assert "attempt 1 succeeded after this failure." in report.notes
    # launchx's report quoted the KeyError: the log's own line is the one evidence
    assert sum("KeyError" in e for e in report.primary.evidence) == 1


def test_a_clean_run_is_succeeded_not_unknown(tmp_path: Path) -> None:
    out = tmp_path / "slurm-7.out"
    out.write_text(_console(_record(0, 0, None)))
    assert out.read_text().rstrip().endswith("launchx: finished in 5.2 s (1 attempt)")
    result = runner.invoke(cli.app, ["diagnose", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("succeeded: attempt 0 finished (1 attempt)")


def test_a_run_that_failed_for_good_keeps_its_cause() -> None:
    records = (_record(0, 1, "user_code_error"),)
    console = _console(*records, reason="user_code_error is not transient")
    report = failures.diagnose_logs([console])
    assert [(a.attempt, a.outcome) for a in report.attempts] == [(0, "failed")]
    assert report.found and not report.succeeded and report.notes == ()


def test_attempts_across_a_requeue_and_interrupts() -> None:
    # one clean attempt after a requeue: only the last line, numbered as the run counts
    requeued = text.summary([_record(2, 0, None)], "finished", 1.0).splitlines()
    assert ownsummary.attempts([requeued]) == (AttemptView(attempt=2, outcome="ok", exit_code=0),)
    rows = text.summary(
        [_record(0, -9, "killed"), AttemptRecord(1, 130, 1.0, None, False, None, interrupted=True)],
        "interrupted",
    ).splitlines()
    views = ownsummary.attempts([["unrelated"], rows])
    assert [(v.outcome, v.category, v.exit_code) for v in views] == [
        ("failed", "killed", -9),
        ("interrupted", None, None),
    ]


def test_no_summary_no_attempts() -> None:
    assert ownsummary.attempts([["launchx: summary"], ["step 1"], []]) == ()
    # a summary cut before its rows, and rows of some other table
    assert ownsummary.attempts([["launchx: summary", "  0  1.0s  fine  x  -"]]) == ()


RANK_0_TIMES_OUT = (
    "[r0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] "
    "Timed out waiting 5000ms for recv operation to complete\n"
)


def test_a_run_that_retried_is_read_from_its_last_attempt() -> None:
    """Attempt 0 timed out on rank 0 (retried); attempt 1 died of rank 1's KeyError. The
    first attempt's timeout is that attempt's: neither rank 0's evidence nor "also seen"
    in the last one's report (its summary row still says how attempt 0 ended)."""
    first = _record(0, 1, "collective_timeout")
    last = _record(1, 1, "user_code_error")
    console = "".join(
        [
            "launchx: profile local | run lx-1 attempt 0\n",
            RANK_0_TIMES_OUT,
            text.failure(failures.diagnose_logs([RANK_0_TIMES_OUT]), retryable=True),
            "launchx: profile local | run lx-1 attempt 1\n",
            RANK_1_FAILS,
            text.failure(failures.diagnose_logs([RANK_1_FAILS]), retryable=False),
            text.summary([first, last], "user_code_error is not transient", elapsed_s=9.0),
        ]
    )
    report = failures.diagnose_logs([console])
    assert report.primary is not None and report.primary.category == "user_code_error"
    assert [(a.attempt, a.category) for a in report.attempts] == [
        (0, "collective_timeout"),
        (1, "user_code_error"),
    ]
    assert not any("Timed out" in e for e in report.primary.evidence)
    assert "collective_timeout" not in [f.category for f in report.findings]
    assert all("Timed out" not in r.summary for r in report.ranks)
    # the same text without the summary cannot be split: every line is read, as before
    cut = console[: console.index("launchx: summary")]
    whole = failures.diagnose_logs([cut])
    assert "collective_timeout" in [f.category for f in whole.findings]
