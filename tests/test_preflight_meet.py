"""Where the nodes meet: every node works out the same ports, run id and key from its own
resolution; arguments that cannot work are one clear error. Also the summary a node sends."""

from __future__ import annotations

from dataclasses import replace

import pytest

from launchx import pipeline
from launchx.errors import ConfigError
from launchx.facts import HostFacts, Interface, LaunchContext, Route
from launchx.preflight import meet
from launchx.preflight.summary import NodeFacts, parse, shared_env, summarize

BASE = HostFacts(
    hostname="gpu-001",
    torch_version="2.3.1",
    gpu_count=8,
    interfaces=(Interface("eth0", True, ("10.0.0.2",)),),
    routes=(Route("eth0", "10.0.0.0", "255.255.255.0", "0.0.0.0"),),
    driver_version="535.104.05",
)


def resolved(
    node: int, facts: HostFacts = BASE, *, nnodes: int = 4, **flags: str
) -> pipeline.Resolution:
    given = {"nnodes": str(nnodes), "node_rank": str(node), "master_addr": "10.0.0.1"}
    given.update(flags)
    request = pipeline.Request(profile="ethernet", flags=given)
    return pipeline.resolve_request(request, facts)


def test_every_node_derives_the_same_meeting_point() -> None:
    places = [meet.where(resolved(n, replace(BASE, hostname=f"gpu-{n}"))) for n in range(4)]
    assert [p.node for p in places] == [0, 1, 2, 3]
    assert len({(p.master_port, p.channel_port, p.run_id, p.key) for p in places}) == 1
    place = places[0]
    assert place.master_port == 29500 and place.channel_port == 29501
    assert place.run_id.endswith("/preflight")


def test_the_token_changes_the_key_and_nothing_else() -> None:
    plain = meet.where(resolved(0))
    secret = meet.where(resolved(0, replace(BASE, environ={"LAUNCHX_CHANNEL_TOKEN": "s3cret"})))
    assert plain.run_id == secret.run_id and plain.key != secret.key


def test_a_given_run_id_is_used() -> None:
    assert meet.where(resolved(0), run_id="lx-abc").run_id == "lx-abc/preflight"


@pytest.mark.parametrize(
    ("node", "flags", "words"),
    [
        (4, {}, "node rank 4"),
        (1, {"master_addr": ""}, "master address is empty"),
    ],
)
def test_arguments_that_cannot_work_are_one_error(
    node: int, flags: dict[str, str], words: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        meet.where(resolved(node, **flags))
    assert words in caught.value.message and caught.value.hint


def test_no_master_address_without_slurm_or_platform() -> None:
    request = pipeline.Request(profile="ethernet", flags={"nnodes": "2", "node_rank": "1"})
    with pytest.raises(ConfigError, match="no master address"):
        meet.where(pipeline.resolve_request(request, BASE))


def test_several_launchx_per_node_are_refused() -> None:
    ctx = LaunchContext(
        kind="srun_step",
        name="srun step",
        rank=3,
        world_size=8,
        local_world_size=4,
        node_rank=0,
        nnodes=2,
    )
    with pytest.raises(ConfigError, match="runs once per node") as caught:
        meet.where(resolved(0, replace(BASE, launch=ctx)))
    assert "--ntasks-per-node=1" in (caught.value.hint or "")


def test_a_bad_join_timeout_is_refused_before_anything_listens() -> None:
    with pytest.raises(ConfigError, match="--join-timeout"):
        meet.check(resolved(0), join_timeout_s=float("nan"))


def test_the_summary_carries_what_the_job_resolved_and_survives_the_wire() -> None:
    res = resolved(
        2,
        replace(
            BASE, environ={"NCCL_DEBUG": "INFO", "SLURM_PROCID": "2", "MY_API_TOKEN": "hunter22"}
        ),
    )
    own = summarize(res, 2, (), version="9.9", rendezvous="Connection refused")
    assert (own.node, own.host, own.gpus, own.nproc, own.backend) == (2, "gpu-001", 8, 8, "nccl")
    assert own.ib_off  # the ethernet profile turns IB off
    assert own.sockets == {"NCCL_SOCKET_IFNAME": "=eth0"}  # auto, as resolved on this node
    assert own.env["NCCL_DEBUG"] == "INFO"
    assert "SLURM_PROCID" not in own.env and "MY_API_TOKEN" not in own.env
    assert "NCCL_SOCKET_IFNAME" not in own.env  # filled by auto per node: not compared
    back = parse(own.model_dump(mode="json"))
    assert back == own


def test_a_summary_from_another_launchx_is_named_not_misread() -> None:
    data = NodeFacts(node=1, host="h", launchx="9", profile="p").model_dump(mode="json")
    assert isinstance(parse({**data, "new_field": 1}), str)
    assert parse({**data, "format": "launchx-node-facts/2"}) == (
        "format: Input should be 'launchx-node-facts/1'"
    )


def test_shared_env_leaves_out_rank_variables() -> None:
    res = resolved(1, replace(BASE, environ={"RANK": "1", "GROUP_RANK": "1", "NCCL_DEBUG": "INFO"}))
    assert "RANK" not in shared_env(res) and "GROUP_RANK" not in shared_env(res)
