"""Cross-field checks made at resolution: retry categories, node rank, master address,
unsupported ``auto`` values."""

from __future__ import annotations

from pathlib import Path

import pytest

from launchx import profiles
from launchx.facts import HostFacts
from launchx.findings import Finding, has_errors
from launchx.resolve import Overrides, Resolution, resolve


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


def _lx307(res: Resolution) -> Finding:
    [finding] = [f for f in res.findings if f.code == "LX307"]
    assert finding.level == "error" and has_errors(res.findings)
    return finding


def test_lx307_empty_master_addr_from_a_flag_names_the_flag() -> None:
    res = resolve(
        profiles.load("local", {}, Path("/nonexistent")),
        HostFacts(cpu_count=2),
        Overrides(
            flags={"master_addr": "", "nnodes": "2"}, flag_names={"master_addr": "--master-addr"}
        ),
    )
    finding = _lx307(res)
    assert "empty (from flag:--master-addr)" in finding.message
    assert finding.fix.startswith("pass --master-addr HOST")


def test_lx307_empty_master_addr_from_set_or_profile(tmp_path: Path) -> None:
    assert "write --set master_addr=HOST" in codes(("master_addr= ",))["LX307"]
    path = tmp_path / "empty.yaml"
    path.write_text('name: empty\nextends: local\nmaster_addr: ""\n')
    res = resolve(profiles.load(str(path), {}, tmp_path), HostFacts(cpu_count=2))
    assert f"from profile:{path}" in _lx307(res).message
    # An empty MASTER_ADDR in the environment counts as unset, like any empty variable.
    environ = {"MASTER_ADDR": ""}
    loaded = profiles.load("local", environ, tmp_path)
    res = resolve(loaded, HostFacts(cpu_count=2, environ=environ))
    assert res.launch["master_addr"].value == "127.0.0.1"
    assert "LX307" not in {f.code for f in res.findings}


@pytest.mark.parametrize(
    ("item", "words"),
    [
        ("NCCL_DEBUG=auto", "launchx cannot work out this variable"),
        ("NCCL_IB_HCA=auto:foo", "not an auto form launchx knows"),
    ],
)
def test_lx302_unsupported_auto_is_an_error_and_never_reaches_the_child(
    item: str, words: str
) -> None:
    loaded = profiles.load("local", {}, Path("/nonexistent"))
    res = resolve(loaded, HostFacts(cpu_count=2), Overrides(sets=(item,)))
    name = item.partition("=")[0]
    [finding] = [f for f in res.findings if f.code == "LX302"]
    assert (finding.level, finding.var) == ("error", name)
    assert words in finding.message
    assert name not in res.env
