"""Where the nodes meet: every node works out the same ports, run id and key from its own
resolution; arguments that cannot work are one clear error. Also the summary a node sends."""

from __future__ import annotations

import io
import json
import socket
import time
from dataclasses import replace

import pytest
from conftest import free_pair

from launchx import channel, pipeline
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
    assert parse({**data, "format": "launchx-node-facts/1"}) == (
        "format: Input should be 'launchx-node-facts/2'"
    )


def test_shared_env_leaves_out_rank_variables() -> None:
    res = resolved(1, replace(BASE, environ={"RANK": "1", "GROUP_RANK": "1", "NCCL_DEBUG": "INFO"}))
    assert "RANK" not in shared_env(res) and "GROUP_RANK" not in shared_env(res)


# --- the two ports: what a node reaches of node 0, and what node 0 learns of it ----------


def knocks_of(listener: meet._Placeholder) -> dict[int, str]:
    """The knocks node 0's listener heard, polled to a deadline (it reads them on its own
    thread)."""
    deadline = time.monotonic() + 10.0
    while not listener.knocks and time.monotonic() < deadline:
        time.sleep(0.02)
    return listener.knocks


def loopback(node: int, port: int, facts: HostFacts = BASE) -> pipeline.Resolution:
    return resolved(node, facts, nnodes=2, master_addr="127.0.0.1", master_port=str(port))


def test_a_node_that_reaches_the_rendezvous_port_knocks_and_node_0_learns_who() -> None:
    port = free_pair()
    place = meet.where(loopback(1, port))
    listener = meet._Placeholder(port, place.run_id, place.key)
    knock = meet.Knock(place, "gpu-007")
    try:
        assert knock.result(10.0) is None
        assert knock.tried(10.0) == meet.Tried(None, node0=True)
        assert knocks_of(listener) == {1: "gpu-007"}
    finally:
        knock.close()
        listener.close()


def test_a_knock_goes_only_to_this_runs_node_0() -> None:
    port = free_pair()
    place = meet.where(loopback(1, port))
    other = replace(place, key=b"another run's key")
    listener = meet._Placeholder(port, other.run_id, other.key)
    knock = meet.Knock(place, "gpu-007")
    try:
        assert knock.result(10.0) is None  # the port is open ...
        # ... but what answers there is not this run's node 0: its banner did not verify
        assert knock.tried(10.0) == meet.Tried(None, node0=False)
        knock.close()  # it sent nothing and is done
        assert listener.knocks == {}
    finally:
        knock.close()
        listener.close()


def test_a_closed_rendezvous_port_says_why_after_a_fresh_try() -> None:
    port = free_pair()
    knock = meet.Knock(meet.where(loopback(1, port)), "gpu-007")
    try:
        assert knock.result(10.0) == "Connection refused"
    finally:
        knock.close()


def test_a_node_that_reaches_only_the_rendezvous_port_names_the_channel_port() -> None:
    """Node 0's rendezvous port answers, its channel port (MASTER_PORT + 1) does not: the
    node's own report (the only one it gets) names that port on that address, and node 0
    heard its knock (so node 0's report names it too, see test_preflight_nodes)."""
    port = free_pair()
    res = loopback(1, port)
    place = meet.where(res)
    listener = meet._Placeholder(port, place.run_id, place.key)
    out = io.StringIO()
    try:
        code = meet._follow(res, place, 1.0, True, out)
        knocks = knocks_of(listener)
    finally:
        listener.close()
    assert code == 2 and knocks == {1: "gpu-001"}
    data = json.loads(out.getvalue())
    by_code = {f["code"]: f for f in data["findings"]}
    assert by_code["LX252"]["nodes"] == [1]
    assert by_code["LX252"]["message"] == (
        f"node 1 (gpu-001) reached the rendezvous port 127.0.0.1:{port} but did not join "
        f"launchx's channel at 127.0.0.1:{port + 1} (Connection refused)"
    )
    assert f"open TCP port {port + 1} on 127.0.0.1" in by_code["LX252"]["fix"]
    assert by_code["LX230"]["nodes"] == [0]
    assert by_code["LX230"]["message"] == (
        f"node 0 (127.0.0.1) did not answer at 127.0.0.1:{port + 1} within 1 s (Connection refused)"
    )


def test_a_node_that_reaches_neither_port_names_both() -> None:
    port = free_pair()
    res = loopback(1, port)
    out = io.StringIO()
    assert meet._follow(res, meet.where(res), 1.0, True, out) == 2
    data = json.loads(out.getvalue())
    assert [f["code"] for f in data["findings"] if f["level"] == "error"] == ["LX230"]
    assert data["nodes"]["absent"][0]["why"] == (
        f"did not answer at 127.0.0.1:{port + 1} within 1 s (Connection refused); nor did "
        f"its rendezvous port {port} (Connection refused)"
    )
    # the node's own row says so too (it once said "reached" beside that error)
    out = io.StringIO()
    meet._follow(res, meet.where(res), 1.0, False, out)
    row = next(line for line in out.getvalue().splitlines() if "rendezvous port  " in line)
    assert "not reached (Connection refused)" in row and "LX247" not in out.getvalue()


@pytest.mark.parametrize("stranger", ["silent", "another run"])
def test_a_stranger_on_the_rendezvous_port_is_not_taken_for_node_0(
    stranger: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Something else holds MASTER_PORT (another job's TCPStore, which says nothing, or
    another run's launchx) while this run's node 0 is not there: the node does not claim
    that only the channel's port is closed (LX252), it says what answers (LX230). The join
    timeout is shorter than the wait for a banner: the node waits for the try to end."""
    monkeypatch.setattr(meet, "_KNOCK_WAIT_S", 0.5)
    port = free_pair()
    res = loopback(1, port)
    place = meet.where(res)
    other = replace(place, key=b"another run's key")
    silent = socket.socket()
    listener = None
    out = io.StringIO()
    try:
        if stranger == "silent":  # connections wait in the backlog, nothing is ever sent
            silent.bind(("127.0.0.1", port))
            silent.listen()
        else:
            listener = meet._Placeholder(port, other.run_id, other.key)
        code = meet._follow(res, place, 0.2, True, out)
    finally:
        silent.close()
        if listener is not None:
            listener.close()
    assert code == 2
    data = json.loads(out.getvalue())
    assert [f["code"] for f in data["findings"] if f["level"] == "error"] == ["LX230"]
    assert data["nodes"]["absent"][0]["why"] == (
        f"did not answer at 127.0.0.1:{port + 1} within 0.2 s (Connection refused); something "
        f"else answers on its rendezvous port {port}, not this run's node 0 (another job's "
        "rendezvous?)"
    )
    fix = data["findings"][0]["fix"]
    assert f"something else listens on 127.0.0.1:{port}" in fix and "nc -zv" not in fix


def test_no_ended_try_is_not_called_a_closed_port() -> None:
    port = free_pair()
    res = loopback(1, port)
    place = meet.where(res)
    link = channel.Link("127.0.0.1", port + 1, place.run_id, place.key, 1)
    out = io.StringIO()
    tried = meet.Tried("no try has ended yet", ended=False)
    assert meet._not_joined(res, place, link, tried, 0.1, True, out) == 2
    why = json.loads(out.getvalue())["nodes"]["absent"][0]["why"]
    assert why == (
        f"did not answer at 127.0.0.1:{port + 1} within 0.1 s (no answer); no try of its "
        f"rendezvous port {port} ended in time"
    )
