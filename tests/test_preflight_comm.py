"""The link test as data: rank layout, hypercube rounds, nccl-tests' bandwidths, slow pairs."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from launchx.preflight import comm
from launchx.preflight.comm import Block, PairPoint


def test_layout_gives_each_node_a_block_of_ranks_in_node_order() -> None:
    blocks, world = comm.layout({3: 8, 0: 8, 1: 7})
    assert blocks == (Block(0, 0, 8), Block(1, 8, 7), Block(3, 15, 8)) and world == 23


@given(st.integers(min_value=1, max_value=1100))
def test_rounds_are_a_hypercube_of_log_n_rounds(count: int) -> None:
    plan = comm.rounds(count)
    assert len(plan) == (math.ceil(math.log2(count)) if count > 1 else 0)
    met: dict[int, set[int]] = {i: set() for i in range(count)}
    for pairs in plan:
        busy = [i for pair in pairs for i in pair]
        assert len(busy) == len(set(busy))  # nobody is in two pairs of one round
        for i, j in pairs:
            assert i < j < count
            met[i].add(j)
            met[j].add(i)
    assert all(len(partners) <= len(plan) for partners in met.values())  # O(log N) each
    # Every node is connected to every other through the pairs (one component).
    seen, todo = {0}, [0]
    while todo:
        for other in met[todo.pop()]:
            if other not in seen:
                seen.add(other)
                todo.append(other)
    assert len(seen) == count


def test_partners_pair_local_ranks_up_to_the_smaller_node() -> None:
    blocks, _ = comm.layout({0: 8, 1: 8, 2: 4})
    plan = comm.partners(blocks)
    # round 0: nodes 0-1; round 1: nodes 0-2 (node 1 idle: 1 xor 2 = 3 does not exist)
    assert plan[0] == [(8, 8), (16, 4)]
    assert plan[1] == [(0, 8), None]
    assert plan[2] == [None, (0, 4)]


def test_bandwidths_follow_nccl_tests() -> None:
    # 1 GiB all_reduce over 16 ranks in 0.1 s: algbw = size / time, busbw = algbw * 2(n-1)/n
    (point,) = comm.sweep_points([(1 << 30, 0.1)], ranks=16)
    assert point.algbw == pytest.approx((1 << 30) / 0.1 / 1e9)
    assert point.busbw == pytest.approx(point.algbw * 2 * 15 / 16)
    assert comm.bus_bandwidth(10.0, 2) == pytest.approx(10.0)  # two ranks: the same
    assert comm.sweep_points([(1 << 20, 0.0)], 2) == ()  # a zero time is no measurement


def test_pair_bandwidth_uses_the_slowest_paired_rank() -> None:
    blocks, _world = comm.layout({0: 2, 1: 2})
    # one round; ranks 0,1 (node 0) and 2,3 (node 1); rank 3 took twice as long
    times = [0.1, 0.1, 0.1, 0.2]
    (pair,) = comm.pair_points(blocks, times, pair_size=1 << 30, iterations=2)
    assert (pair.round, pair.a, pair.b) == (0, 0, 1)
    assert pair.gbs == pytest.approx(2 * (1 << 30) * 2 / 0.2 / 1e9)


def test_a_slow_node_is_named_and_its_partners_are_not() -> None:
    pairs = [
        PairPoint(0, 0, 1, 40.0),
        PairPoint(0, 2, 3, 10.0),  # node 3 is slow in every pair
        PairPoint(1, 0, 2, 41.0),
        PairPoint(1, 1, 3, 9.0),
        PairPoint(2, 0, 4, 39.0),
        PairPoint(2, 1, 5, 40.0),
        PairPoint(2, 3, 7, 11.0),
        PairPoint(0, 4, 5, 40.0),
        PairPoint(0, 6, 7, 42.0),
        PairPoint(1, 4, 6, 38.0),
        PairPoint(1, 5, 7, 40.0),
        PairPoint(2, 2, 6, 40.0),
    ]
    median, links, nodes = comm.slow(pairs)
    assert median == pytest.approx(40.0)
    assert nodes == (3,)
    assert links == ()  # every slow pair involves node 3


def test_a_slow_link_between_healthy_nodes_is_named_as_a_link() -> None:
    pairs = [
        PairPoint(0, 0, 1, 40.0),
        PairPoint(0, 2, 3, 8.0),
        PairPoint(1, 0, 2, 40.0),
        PairPoint(1, 1, 3, 40.0),
    ]
    _median, links, nodes = comm.slow(pairs)
    assert nodes == () and [(p.a, p.b) for p in links] == [(2, 3)]


def test_two_nodes_have_no_median_to_fall_below() -> None:
    assert comm.slow([PairPoint(0, 0, 1, 1.0)]) == (1.0, (), ())
    assert comm.slow([]) == (None, (), ())
