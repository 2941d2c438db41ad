"""launchx's own end-of-run summary, read back from a console log.

A SLURM job's ``.out`` file (or anything that kept ``launchx run``'s output) ends in the
lines the run loop printed last: ``launchx: finished in 5.2 s (2 attempts)`` after a clean
run, or a ``launchx: summary`` table with one row per attempt and the reason the run
ended. Without the run's ``events.jsonl`` these lines are the only record of each attempt's
outcome, and of whether the run finished at all: a log whose ranks printed no error is
"nothing failed" when they say so, and "no cause found" only when they do not.

Pure: the tail lines of each source in, ``AttemptView`` tuples out. The format is the one
``run.text.summary`` writes; the test for this module renders it with that function.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from launchx.diagnosis import AttemptView, Outcome

_FINISHED = re.compile(
    r"^launchx: finished in \d+(?:\.\d+)? s \((\d+) attempts?(?:, \d+ before a requeue)?\)$"
)
_HEADER = "launchx: summary"
_COLUMNS = re.compile(r"^attempt\s+duration\s+outcome\s+category\s+offered$")
_ROW = re.compile(
    r"^(?P<attempt>\d+)\s+\d+(?:\.\d+)?s\s+(?P<outcome>ok|interrupted|exit (?P<code>-?\d+))"
    r"\s+(?P<category>\S+)\s+\S.*$"
)


def attempts(tails: Iterable[Sequence[str]]) -> tuple[AttemptView, ...]:
    """Each attempt's outcome as the last launchx summary in these sources' tails says it
    (the source with the most attempts where several have one); () when none has."""
    best: tuple[AttemptView, ...] = ()
    for tail in tails:
        views = _from_tail([t.strip() for t in tail])
        if len(views) > len(best):
            best = views
    return best


def _from_tail(lines: Sequence[str]) -> tuple[AttemptView, ...]:
    last = next((i for i in range(len(lines) - 1, -1, -1) if lines[i] == _HEADER), None)
    if last is None:
        # a run that finished in one attempt prints only its last line
        for line in reversed(lines):
            if m := _FINISHED.match(line):
                return (AttemptView(attempt=int(m.group(1)) - 1, outcome="ok", exit_code=0),)
        return ()
    views = []
    for line in lines[last + 1 :]:
        if _COLUMNS.match(line):
            continue
        m = _ROW.match(line)
        if m is None:
            break
        outcome: Outcome = "failed" if m["code"] else m["outcome"]  # type: ignore[assignment]
        category = m["category"] if m["category"] != "-" else None
        code = int(m["code"]) if m["code"] else (0 if outcome == "ok" else None)
        views.append(
            AttemptView(
                attempt=int(m["attempt"]), outcome=outcome, category=category, exit_code=code
            )
        )
    return tuple(views)
