"""Cross-field checks made at resolution: retry categories, node rank."""

from __future__ import annotations

from pathlib import Path

from launchx import profiles
from launchx.facts import HostFacts
from launchx.resolve import Overrides, resolve


def codes(sets: tuple[str, ...] = (), flags: dict[str, str] | None = None) -> dict[str, str]:
    loaded = profiles.load("local", {}, Path("/nonexistent"))
    res = resolve(loaded, HostFacts(cpu_count=2), Overrides(sets=sets, flags=flags or {}))
    return {f.code: f.fix for f in res.findings}


def test_lx306_unknown_retry_category_suggests_the_right_one() -> None:
    found = codes(("retry.never=user_code_eror",))
    assert "did you mean 'user_code_error'" in found["LX306"]
    assert "LX306" not in codes(("retry.on=host_oom_killed,segfault",))


def test_lx305_node_rank_must_be_below_nnodes() -> None:
    flags = {"nnodes": "2", "master_addr": "10.0.0.1"}
    assert "LX305" in codes(flags={**flags, "node_rank": "2"})
    assert "LX305" not in codes(flags={**flags, "node_rank": "1"})
