"""Preflight with real nodes: each "node" is its own ``launchx doctor`` process on this
machine, meeting on loopback, each reading its own recorded host tree (the variants of
tests/hosts/variants.json). Ports come from the OS; every wait has a deadline."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import PYTHON, clean_env, free_pair
from hosts.variants import materialize
from slurm_fixtures import SlurmCluster, SlurmJobs

from launchx import pipeline
from launchx.facts import HostFacts
from launchx.preflight import meet

TIMEOUT_S = 180  # a deadline for a hung test, never the expected duration


def start(tree: Path, args: Sequence[str], rank: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [PYTHON, "-m", "launchx", "doctor", *args, "--node-rank", str(rank)],
        env=clean_env(LAUNCHX_HOST_ROOT=str(tree)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def nodes(
    tmp_path: Path, variants: Sequence[str | None], args: Sequence[str], port: int = 0
) -> list[tuple[int, str, str]]:
    """Start one doctor per variant (None: that node never starts), wait for all of them."""
    port = port or free_pair()
    common = ["--nnodes", str(len(variants)), "--master-addr", "127.0.0.1"]
    common += ["--master-port", str(port), *args]
    procs = [
        start(materialize(v, tmp_path), common, rank) if v else None
        for rank, v in enumerate(variants)
    ]
    results = []
    for proc in procs:
        if proc is None:
            continue
        try:
            out, err = proc.communicate(timeout=TIMEOUT_S)
        finally:
            if proc.poll() is None:
                proc.kill()
        results.append((proc.returncode, out, err))
    return results


def finding(data: dict[str, Any], code: str) -> dict[str, Any]:
    found = [f for f in data["findings"] if f["code"] == code]
    assert len(found) == 1, data["findings"]
    return found[0]


def test_identical_nodes_agree_and_exit_0(tmp_path: Path) -> None:
    (c0, out0, err0), (c1, out1, _e1) = nodes(
        tmp_path, ["h800-a", "h800-b"], ["-p", "ib-h800", "--json", "--no-comm"]
    )
    assert (c0, c1) == (0, 0), err0
    data = json.loads(out0)
    assert data["findings"] == [] and data["exit_code"] == 0
    assert all(row["agree"] for row in data["facts"])
    assert data["nodes"]["joined"] == [0, 1]
    assert data["nodes"]["hosts"] == {"0": "h800-a", "1": "h800-b"}
    assert data["comm_note"] == "skipped (--no-comm)"
    assert out1 == ""  # only node 0 prints the report


def test_four_nodes_each_odd_one_named_with_both_values(tmp_path: Path) -> None:
    variants = ["h800-a", "h800-c-7gpu", "h800-d-driver", "h800-e-hca-down"]
    results = nodes(tmp_path, variants, ["-p", "ib-h800", "--json", "--no-comm"])
    assert [code for code, _o, _e in results] == [2, 2, 2, 2]  # every node exits alike
    data = json.loads(results[0][1])
    gpus = finding(data, "LX235")
    assert gpus["nodes"] == [1] and gpus["level"] == "error"
    assert (
        "7 GPUs on node 1 (h800-c); 8 GPUs on nodes 0 (h800-a), 2 (h800-d), 3 (h800-e)"
        in (gpus["message"])
    )
    driver = finding(data, "LX234")
    assert driver["nodes"] == [2] and driver["level"] == "warning"
    assert (
        "550.54.15 on node 2 (h800-d); 535.104.05 on nodes 0 (h800-a), 1 (h800-c)"
        in (driver["message"])
    )
    hca = finding(data, "LX238")
    assert hca["nodes"] == [3]
    assert "on node 3 (h800-e): mlx5_3:1 DOWN/Disabled" in hca["message"]
    assert "all ACTIVE on nodes 0 (h800-a), 1 (h800-c), 2 (h800-d)" in hca["message"]
    rows = {row["what"]: row for row in data["facts"]}
    assert rows["GPUs"]["groups"] == [
        {"value": "8", "nodes": [0, 2, 3]},
        {"value": "7", "nodes": [1]},
    ]


def test_a_missing_interface_and_another_torch(tmp_path: Path) -> None:
    variants = ["h800-a", "h800-f-no-bond0", "h800-g-old-torch"]
    args = ["-p", "ib-h800", "--no-comm", "--set", "NCCL_SOCKET_IFNAME==bond0"]
    results = nodes(tmp_path, variants, args)
    assert [code for code, _o, _e in results] == [2, 2, 2]
    text = results[0][1]
    assert "LX240 NCCL_SOCKET_IFNAME: NCCL_SOCKET_IFNAME==bond0: missing on node 1 (h800-f)" in (
        text
    )
    assert "usable on nodes 0 (h800-a), 2 (h800-g)" in text
    assert "torch versions differ: 2.3.1 on node 2 (h800-g); 2.13.0+cpu on nodes 0" in text
    assert "LX232" in text and "LX233" not in text  # NCCL unknown on two nodes: no claim
    assert "preflight: " in text.splitlines()[-1] and "(exit 2)" in text


def test_a_node_that_never_joins_is_named_after_the_join_timeout(tmp_path: Path) -> None:
    port = free_pair()
    results = nodes(
        tmp_path,
        ["laptop-a", "laptop-b", None],
        ["--json", "--no-comm", "--join-timeout", "3"],
        port,
    )
    assert [code for code, _o, _e in results] == [2, 2]
    data = json.loads(results[0][1])
    assert data["nodes"]["joined"] == [0, 1]
    assert data["nodes"]["absent"] == [{"node": 2, "host": None, "why": "did not join"}]
    assert finding(data, "LX230")["message"].startswith("node 2 did not join within 3 s")
    listened = f"(node 0 listened on 127.0.0.1, port {port + 1} for launchx's channel and {port}"
    assert listened in finding(data, "LX230")["message"]


def _kubeflow(rank: int, port: int) -> dict[str, str]:
    """Kubeflow's PyTorchJob (and Trainer v2): torchrun's own settings, as PET_*."""
    return {
        "PET_NNODES": "2",
        "PET_NODE_RANK": str(rank),
        "PET_MASTER_ADDR": "127.0.0.1",
        "PET_MASTER_PORT": str(port),
    }


def _kubeflow_pods(rank: int, port: int) -> dict[str, str]:
    """Kubeflow training-operator >= 1.7: PET_* and the pod's RANK/WORLD_SIZE/MASTER_*."""
    plain = {"RANK": str(rank), "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1"}
    return {**_kubeflow(rank, port), **plain, "MASTER_PORT": str(port)}


def _pai(rank: int, port: int) -> dict[str, str]:
    """PAI-DLC (and Kubeflow < 1.7): RANK and WORLD_SIZE count nodes, MASTER_ADDR/PORT."""
    plain = {"RANK": str(rank), "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1"}
    return {**plain, "MASTER_PORT": str(port), "NPROC_PER_NODE": "1"}


@pytest.mark.parametrize("platform", [_kubeflow, _kubeflow_pods, _pai])
def test_where_a_platform_sets_the_torchrun_variables_the_nodes_come_from_there(
    tmp_path: Path, platform: Callable[[int, int], dict[str, str]]
) -> None:
    """No --nnodes, --node-rank or --master-*: the node count, rank and master come from
    the platform's variables, as `run` takes them, and the two nodes meet. (The profile
    leaves them to the platform, as the multi-node ones do; this one runs gloo on CPUs.)"""
    profile = tmp_path / "cpu-nodes.yaml"
    profile.write_text(
        "name: cpu-nodes\nextends: local\nnnodes: auto\nmaster_addr: auto\nnproc_per_node: 1\n"
    )
    port = free_pair()
    procs = [
        subprocess.Popen(
            [PYTHON, "-m", "launchx", "doctor", "-p", str(profile), "--json", "--no-comm"],
            env=clean_env(
                LAUNCHX_HOST_ROOT=str(materialize(tree, tmp_path)), **platform(rank, port)
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank, tree in enumerate(("laptop-a", "laptop-b"))
    ]
    try:
        (out0, err0), (out1, err1) = (p.communicate(timeout=TIMEOUT_S) for p in procs)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert [p.returncode for p in procs] == [0, 0], err0 + err1
    assert out1 == ""  # one report, node 0's
    data = json.loads(out0)
    assert data["master"] == f"127.0.0.1:{port}"
    assert data["nodes"]["joined"] == [0, 1] and data["nodes"]["absent"] == []
    assert data["nodes"]["hosts"] == {"0": "laptop-a", "1": "laptop-b"}
    assert [f for f in data["findings"] if f["level"] == "error"] == []


def test_node_0_names_a_node_that_reached_only_the_rendezvous_port(tmp_path: Path) -> None:
    """Node 1 reaches node 0's rendezvous port (and knocks there) but never its channel,
    as behind a firewall that lets only MASTER_PORT through: node 0's report names the
    channel port on its address that node 1 did not join."""
    port = free_pair()
    flags = {"nnodes": "2", "master_addr": "127.0.0.1", "master_port": str(port)}
    args = [f"--{k.replace('_', '-')}={v}" for k, v in flags.items()]
    lead = start(
        materialize("laptop-a", tmp_path),
        ["-p", "local", *args, "--json", "--no-comm", "--join-timeout", "3"],
        0,
    )
    request = pipeline.Request(profile="local", flags={**flags, "node_rank": "1"})
    place = meet.where(pipeline.resolve_request(request, HostFacts(hostname="laptop-b")))
    knock = meet.Knock(place, "laptop-b")  # node 1's tries of the rendezvous port alone
    try:
        out0, err0 = lead.communicate(timeout=TIMEOUT_S)
        reached = knock.result()
    finally:
        knock.close()
        if lead.poll() is None:
            lead.kill()
    assert lead.returncode == 2 and reached is None, err0
    data = json.loads(out0)
    assert data["nodes"]["absent"] == [{"node": 1, "host": "laptop-b", "why": "did not join"}]
    assert [f["code"] for f in data["findings"] if f["level"] == "error"] == ["LX252"]
    assert finding(data, "LX252")["message"] == (
        f"node 1 (laptop-b) reached the rendezvous port 127.0.0.1:{port} but did not join "
        f"launchx's channel at 127.0.0.1:{port + 1} within 3 s"
    )


def test_a_node_whose_node_0_never_comes_reports_alone(tmp_path: Path) -> None:
    port = free_pair()
    args = ["--nnodes", "2", "--master-addr", "127.0.0.1", "--master-port", str(port)]
    proc = start(materialize("laptop-b", tmp_path), [*args, "--join-timeout", "1", "--no-comm"], 1)
    out, err = proc.communicate(timeout=TIMEOUT_S)
    assert proc.returncode == 2, err
    assert "node 0 (127.0.0.1): did not answer at 127.0.0.1:" in out
    assert "within 1 s" in out and "LX230" in out
    assert "laptop-b" in out  # its own facts, the only report anyone gets


def test_the_gloo_link_test_reports_figures(tmp_path: Path) -> None:
    (c0, out0, err0), (c1, _o1, err1) = nodes(tmp_path, ["laptop-a", "laptop-b"], ["--json"])
    assert (c0, c1) == (0, 0), err0 + err1
    comm = json.loads(out0)["comm"]
    assert comm["backend"] == "gloo" and comm["ranks"] == 2 and comm["error"] is None
    sizes = [point["bytes"] for point in comm["sweep"]]
    assert sizes[0] == 1 << 20 and sizes == sorted(sizes) and len(sizes) >= 2
    for point in comm["sweep"]:
        assert point["time_us"] > 0 and point["algbw_gbs"] > 0
        assert point["busbw_gbs"] == point["algbw_gbs"]  # 2 ranks: 2(n-1)/n = 1
    (pair,) = comm["pairs"]
    assert (pair["a"], pair["b"]) == (0, 1) and pair["gbs"] > 0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--nnodes", "2", "--node-rank", "2", "--master-addr", "127.0.0.1"], "node rank 2"),
        (["-p", "ib-h800", "--nnodes", "2", "--node-rank", "1"], "no master address"),
        (["--nnodes", "2", "--master-port", "70000", "--master-addr", "h"], "(got '70000')"),
        (["--nnodes", "2", "--master-addr", "h", "--join-timeout", "0"], "--join-timeout 0"),
    ],
)
def test_bad_arguments_exit_2_with_one_clear_message(
    tmp_path: Path, args: list[str], words: str
) -> None:
    proc = subprocess.run(
        [PYTHON, "-m", "launchx", "doctor", *args],
        env=clean_env(LAUNCHX_HOST_ROOT=str(materialize("laptop-a", tmp_path))),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.stderr.startswith("launchx: error: ") and words in proc.stderr, proc.stderr
    assert "fix: " in proc.stderr


def test_a_stranger_on_the_channel_port_changes_nothing(tmp_path: Path) -> None:
    port = free_pair()
    args = ["--nnodes", "2", "--master-addr", "127.0.0.1", "--master-port", str(port)]
    args += ["--json", "--no-comm", "--join-timeout", "60"]
    lead = start(materialize("laptop-a", tmp_path), args, 0)
    try:
        stranger = None
        deadline = time.monotonic() + TIMEOUT_S
        while stranger is None and time.monotonic() < deadline and lead.poll() is None:
            try:
                stranger = socket.create_connection(("127.0.0.1", port + 1), timeout=5)
            except OSError:
                time.sleep(0.05)
        assert stranger is not None, "node 0 never listened"
        with stranger:
            stranger.sendall(b'{"v":1,"run":"x","node":1,"seq":1,"type":"verdict","body":{}}\n')
            stranger.sendall(b"\x00" * 4096 + b"\n")
            follower = start(materialize("laptop-b", tmp_path), args, 1)
            out1, err1 = follower.communicate(timeout=TIMEOUT_S)
        out0, err0 = lead.communicate(timeout=TIMEOUT_S)
    finally:
        lead.kill()
    assert (lead.returncode, follower.returncode) == (0, 0), err0 + err1
    assert json.loads(out0)["nodes"]["joined"] == [0, 1] and out1 == ""


def test_nodes_with_different_tokens_do_not_meet(tmp_path: Path) -> None:
    port = free_pair()
    args = ["--nnodes", "2", "--master-addr", "127.0.0.1", "--master-port", str(port)]
    args += ["--no-comm", "--join-timeout", "2"]
    procs = []
    for rank, (tree, token) in enumerate((("laptop-a", "alpha"), ("laptop-b", "beta"))):
        procs.append(
            subprocess.Popen(
                [PYTHON, "-m", "launchx", "doctor", *args, "--node-rank", str(rank)],
                env=clean_env(
                    LAUNCHX_HOST_ROOT=str(materialize(tree, tmp_path)),
                    LAUNCHX_CHANNEL_TOKEN=token,
                ),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    (out0, _e0), (out1, _e1) = (p.communicate(timeout=TIMEOUT_S) for p in procs)
    assert [p.returncode for p in procs] == [2, 2]
    assert "node 1 did not join within 2 s; 127.0.0.1 connected but did not join" in out0
    assert "did not answer" in out1 and "not this run's node 0" in out1
    assert "alpha" not in out0 + out1 and "beta" not in out0 + out1


@pytest.mark.slurm
def test_under_srun_the_nodes_come_from_slurm(
    slurm_cluster: SlurmCluster, slurm_jobs: SlurmJobs
) -> None:
    if len(slurm_cluster.nodes) < 2:
        pytest.skip("needs two SLURM nodes")
    srun = ["srun", f"--job-name={slurm_jobs.name}", "--nodes=2", "--ntasks-per-node=1"]
    doctor = [PYTHON, "-m", "launchx", "doctor", "-p", "slurm", "--json", "--no-comm"]
    proc = subprocess.run(
        [*srun, "--immediate=60", "--time=3", *doctor],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)  # only node 0 printed
    assert data["nodes"]["joined"] == [0, 1]
    assert data["master"].startswith(slurm_cluster.nodes[0] + ":")
