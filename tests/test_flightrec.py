"""Flight-recorder dumps: a real gloo dump (torch 2.13) names the rank missing from the
collective the other waits in; the JSON form says the same; hostile pickles are refused."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from launchx import flightrec

# Produced here: two gloo ranks, rank 1 has one batch fewer and leaves the training loop,
# rank 0 waits in its fourth all_reduce; both call _dump_fr_trace from a timer thread
# (tests/fixtures/runs/README.md has the script).
DUMPS = Path(__file__).parent / "fixtures" / "runs" / "gloo_uneven_fr" / "fr"


def _dump(name: str) -> flightrec.Dump:
    path = DUMPS / name
    rank = flightrec.rank_from_name(name)
    assert rank is not None
    return flightrec.parse(path.read_bytes(), rank, name)


def test_the_real_gloo_dump_names_the_rank_that_never_joined() -> None:
    dumps = [_dump("comm_lib_trace_rank_0"), _dump("comm_lib_trace_rank_1")]
    assert dumps[0].status["0"] == (4, 3)
    assert dumps[1].status["0"] == (3, 3)
    (s,) = flightrec.stragglers(dumps)
    assert (s.kind, s.ranks, s.waiting, s.seq, s.op) == (
        "behind",
        (1,),
        (0,),
        4,
        "gloo:all_reduce",
    )
    assert s.group == "default_pg"
    assert "train.py:18 train_step" in s.text
    assert s.where == "comm_lib_trace_rank_1"


def test_the_json_dump_says_the_same() -> None:
    dumps = [_dump("fr_json_rank_0.json"), _dump("fr_json_rank_1.json")]
    (s,) = flightrec.stragglers(dumps)
    assert (s.ranks, s.waiting, s.seq) == ((1,), (0,), 4)


def test_gloo_pg_config_quirk_still_gives_the_members() -> None:
    """gloo names its group '' in pg_config while the entries say ('0', 'default_pg')."""
    raw = pickle.loads((DUMPS / "comm_lib_trace_rank_0").read_bytes())
    assert list(raw["pg_config"]) == [""]
    assert _dump("comm_lib_trace_rank_0").members == {"0": (0, 1)}


def test_a_member_without_a_dump_is_named() -> None:
    (s,) = flightrec.stragglers([_dump("comm_lib_trace_rank_0")])
    assert (s.kind, s.ranks, s.waiting) == ("silent", (1,), (0,))
    assert "left no flight-recorder dump" in s.text


def test_ranks_all_in_the_same_collective_name_nobody() -> None:
    d0 = _dump("comm_lib_trace_rank_0")
    d1 = flightrec.Dump(1, "r1", d0.status, d0.members, d0.names, d0.entries)
    assert flightrec.stragglers([d0, d1]) == []


class _Boom:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (print, ("pwned",))


def test_a_pickle_with_globals_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    hostile = pickle.dumps({"entries": [_Boom()]})
    with pytest.raises(flightrec.NotADump):
        flightrec.parse(hostile, 0, "evil")
    assert "pwned" not in capsys.readouterr().out


@pytest.mark.parametrize(
    "data",
    [b"\x80\x04garbage", b"{not json", json.dumps([1, 2]).encode(), b'{"version": "2.10"}'],
)
def test_other_bytes_are_not_dumps(data: bytes) -> None:
    with pytest.raises(flightrec.NotADump):
        flightrec.parse(data, 0, "x")


def test_recognised_by_content_and_name() -> None:
    assert flightrec.looks_like_dump((DUMPS / "comm_lib_trace_rank_1").read_bytes()[:4096])
    assert flightrec.looks_like_dump((DUMPS / "fr_json_rank_1.json").read_bytes()[:4096])
    assert not flightrec.looks_like_dump(b"[rank0]: KeyError: 'x'\n")
    assert flightrec.rank_from_name("nccl_trace_rank_12") == 12
    assert flightrec.rank_from_name("notes.txt") is None
