"""The corpus benchmark's development part as a CI floor: a rule change that makes launchx
wrong on logs it used to get right fails here. The held-out part is never run in tests
(benchmarks/diagnose.py prints it); it measures rules that were not written from it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Measured when the floor was set (README "Diagnosing a failed run"), 4,496 logs (issue 12,
# after the two-hundred-and-forty-third round; rounds 229-243 added 84 development logs,
# scored 64/84 on category and 84/84 on the retry decision blind, with the rules of the
# round before): category 3,942 (3,964 counting `killed` for a thread-proven host_oom_killed,
# the figure held here); retry decision 4,404 (what the log alone says: a timeout, a closed
# socket, an InfiniBand transfer error or a bare SIGKILL is retried by `launchx run` only
# from a checkpoint); twelve deterministic failures called retryable (ports held by
# launchers the user started once too often, by processes that all took rank 0, by a
# DataLoader worker that set up the process group again, by the live elastic job a second
# launch meant to join, or that fail whatever port is given); root rank 701/844. One log of
# slack each (none for the deterministic count).
FLOOR_CATEGORY = 0.8814
FLOOR_DECISION = 0.9793
MAX_DETERMINISTIC_RETRIED = 12
FLOOR_ROOT_RANK = 0.8293


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "bench_diagnose", ROOT / "benchmarks" / "diagnose.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def dev_score() -> Any:
    """The development part scored once for both tests (about 2.5 s)."""
    bench = _bench()
    return bench.score(bench.load("dev"))


def test_development_corpus_floor(dev_score: Any) -> None:
    score = dev_score
    misses = "\n".join(score.misses)
    assert score.logs >= 150
    assert score.category_lenient / score.logs >= FLOOR_CATEGORY, misses
    assert score.decision / score.logs >= FLOOR_DECISION, misses
    assert score.det_retryable <= MAX_DETERMINISTIC_RETRIED, misses
    assert score.rank / score.ranked >= FLOOR_ROOT_RANK


def test_development_misses_are_exactly_the_known_ones(dev_score: Any) -> None:
    """The floors above allow a log of slack; this does not: every development log launchx
    got right stays right, and a fixed one leaves tests/fixtures/dev_misses.txt."""
    score = dev_score
    misses = {m.split(":", 1)[0] for m in score.misses}
    listed = {
        line.strip()
        for line in (ROOT / "tests" / "fixtures" / "dev_misses.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    new = sorted(misses - listed)
    fixed = sorted(listed - misses)
    assert not new, "now diagnosed wrongly:\n" + "\n".join(
        m for m in score.misses if m.split(":", 1)[0] in new
    )
    assert not fixed, "now right, take off tests/fixtures/dev_misses.txt:\n" + "\n".join(fixed)
