"""SLURM host lists: expansion, compression, per-node counts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from launchx.errors import ConfigError
from launchx.hostlist import MAX_HOSTS, compress, expand, expand_counts

EXPANSIONS = [
    ("gpu01", ("gpu01",)),
    ("gpu[01-04,07]", ("gpu01", "gpu02", "gpu03", "gpu04", "gpu07")),
    ("gpu[01-02],cpu-a[1-2],login5", ("gpu01", "gpu02", "cpu-a1", "cpu-a2", "login5")),
    ("node[08-10]", ("node08", "node09", "node10")),
    ("node[8-10]", ("node8", "node9", "node10")),
    ("n[001-002,010]", ("n001", "n002", "n010")),
    ("rack[1-2]-node[01-02]", ("rack1-node01", "rack1-node02", "rack2-node01", "rack2-node02")),
    ("a[3,1]", ("a3", "a1")),  # order is kept, not sorted
    ("[1-2]x", ("1x", "2x")),
    ("host-2b,host-1a", ("host-2b", "host-1a")),
    ("  gpu[1-2]\n", ("gpu1", "gpu2")),  # surrounding white space from env files
]


@pytest.mark.parametrize(("nodelist", "hosts"), EXPANSIONS)
def test_expand(nodelist: str, hosts: tuple[str, ...]) -> None:
    assert expand(nodelist) == hosts


MALFORMED = [
    ("", "empty"),
    ("gpu[01-", "never closed"),
    ("gpu]01", "without '['"),
    ("a[[1]]", "nested"),
    ("a[3-1]", "backwards"),
    ("a[x]", "not a number"),
    ("a[]", "not a number"),
    ("a[1-]", "not a number"),
    ("a[-1]", "not a number"),
    ("a[1-2-3]", "not a number"),
    ("a,,b", "empty host"),
    ("a,", "empty host"),
    ("a b", "white space"),
    ("a[+1]", "not a number"),
    ("a[٣]", "not a number"),  # a non-ASCII digit that int() would accept
    (f"a[0-{MAX_HOSTS}]", "more than"),
    ("a[0-999],b[0-999],c[0-999]" + ",d[0-999999]" * 2, "more than"),
]


@pytest.mark.parametrize(("nodelist", "why"), MALFORMED)
def test_expand_rejects_malformed_lists(nodelist: str, why: str) -> None:
    with pytest.raises(ConfigError) as raised:
        expand(nodelist)
    assert why in raised.value.message
    assert repr(nodelist) in raised.value.message
    assert raised.value.hint


COMPRESSIONS = [
    (("gpu01", "gpu02", "gpu03", "gpu04", "gpu07"), "gpu[01-04,07]"),
    (("gpu01",), "gpu01"),
    (("login", "gpu1", "gpu2"), "login,gpu[1-2]"),
    (("node9", "node10", "node11"), "node[9-11]"),
    (("n3", "n1", "n2"), "n[3,1-2]"),  # first host stays first
    (("a1", "b1", "a2"), "a1,b1,a2"),
    (("x01", "x1"), "x[01,1]"),
]


@pytest.mark.parametrize(("hosts", "text"), COMPRESSIONS)
def test_compress(hosts: tuple[str, ...], text: str) -> None:
    assert compress(hosts) == text
    assert expand(text) == hosts


@pytest.mark.parametrize("host", ["", "a b", "a[1]", "a,b"])
def test_compress_rejects_unwritable_names(host: str) -> None:
    with pytest.raises(ConfigError):
        compress([host])


HOST = st.text(alphabet="abz-_.09", min_size=1, max_size=8) | st.builds(
    lambda p, n, w: f"{p}{str(n).zfill(w)}",
    st.sampled_from(["gpu", "node-", "r1n", ""]),
    st.integers(0, 300),
    st.integers(1, 4),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(HOST, max_size=40))
def test_expand_inverts_compress(hosts: list[str]) -> None:
    if not hosts:
        return
    assert expand(compress(hosts)) == tuple(hosts)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab01-9[],x ", max_size=30) | st.text(max_size=20))
def test_expand_raises_only_config_error(text: str) -> None:
    try:
        hosts = expand(text)
    except ConfigError:
        return
    assert hosts
    assert expand(compress(hosts)) == hosts


def test_4096_nodes_round_trip() -> None:
    hosts = expand("gpu[0001-2048],cpu[0001-2048]")
    text = compress(hosts)
    assert len(hosts) == 4096 and hosts[0] == "gpu0001" and hosts[-1] == "cpu2048"
    assert text == "gpu[0001-2048],cpu[0001-2048]"


@pytest.mark.parametrize(
    ("text", "counts"),
    [("2(x3),1", (2, 2, 2, 1)), ("4", (4,)), ("1(x4)", (1, 1, 1, 1)), ("8,4(x2)", (8, 4, 4))],
)
def test_expand_counts(text: str, counts: tuple[int, ...]) -> None:
    assert expand_counts(text) == counts


@pytest.mark.parametrize("text", ["", "2(x)", "x", "2(3)", "2(x3", "-1"])
def test_expand_counts_rejects_garbage(text: str) -> None:
    with pytest.raises(ConfigError):
        expand_counts(text)
