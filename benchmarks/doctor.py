"""How long the preflight across nodes takes, and how its comparison scales.

    .venv/bin/python benchmarks/doctor.py [--runs 3] [--nodes 1000] [--links 200]

(a) End to end: two "nodes" on loopback (two ``launchx doctor`` processes, each with its
    own recorded host tree), with and without the gloo link test, against the
    single-node ``launchx doctor`` on the same tree measured in the same run. The aim: a
    few seconds plus the link test's budget, under 30 s in all.
(b) The comparison node 0 runs: ``--nodes`` generated summaries (a few odd ones among
    them) parsed from JSON as they arrive, compared, rendered as text and JSON; and the
    same for a tenth as many nodes, so the ratio shows how it scales (linear: ~10x).
(c) The fact exchange: ``--links`` links in this process join one hub and send a
    summary each; the time until the hub holds all of them.

Numbers, not a test: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from _env import clean_env  # noqa: E402
from hosts.variants import materialize  # noqa: E402

from launchx.channel import Hub, Link, derive_key  # noqa: E402
from launchx.facts import MEMLOCK_UNLIMITED  # noqa: E402
from launchx.preflight import compare, report  # noqa: E402
from launchx.preflight.summary import IfaceState, NodeFacts, PortState, parse  # noqa: E402


def _free_pair() -> int:
    """A port whose next one is free too (node 0's channel listens on MASTER_PORT + 1); the
    tests' ``conftest.free_pair`` is the same, which a benchmark cannot import (pytest)."""
    for _ in range(50):
        with socket.socket() as a:
            a.bind(("127.0.0.1", 0))
            port = int(a.getsockname()[1])
            if port >= 65535:
                continue
            with socket.socket() as b:
                try:
                    b.bind(("127.0.0.1", port + 1))
                except OSError:
                    continue
                return port
    raise SystemExit("no two adjacent free ports")


def _doctor(tree: Path, args: list[str]) -> subprocess.Popen[str]:
    env = clean_env(LAUNCHX_HOST_ROOT=str(tree))
    return subprocess.Popen(
        [sys.executable, "-m", "launchx", "doctor", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def one_node(tree: Path) -> float:
    start = time.perf_counter()
    proc = _doctor(tree, [])
    proc.communicate(timeout=300)
    return time.perf_counter() - start


def two_nodes(trees: list[Path], comm: bool) -> tuple[float, dict[str, object]]:
    port = _free_pair()
    args = ["--nnodes", "2", "--master-addr", "127.0.0.1", "--master-port", str(port), "--json"]
    if not comm:
        args.append("--no-comm")
    start = time.perf_counter()
    procs = [_doctor(tree, [*args, "--node-rank", str(r)]) for r, tree in enumerate(trees)]
    outs = [p.communicate(timeout=300) for p in procs]
    elapsed = time.perf_counter() - start
    if any(p.returncode not in (0, 2) for p in procs):
        raise SystemExit(f"doctor failed: {[o[1][-500:] for o in outs]}")
    return elapsed, json.loads(outs[0][0])


def end_to_end(runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        trees = [materialize(v, Path(tmp)) for v in ("laptop-a", "laptop-b")]
        one_node(trees[0])  # warm the page cache and .pyc files
        base, facts, full = [], [], []
        last: dict[str, object] = {}
        for _ in range(runs):
            base.append(one_node(trees[0]))
            facts.append(two_nodes(trees, comm=False)[0])
            elapsed, last = two_nodes(trees, comm=True)
            full.append(elapsed)
    b, f, c = (statistics.median(x) for x in (base, facts, full))
    print(f"(a) end to end, median of {runs} (load {os.getloadavg()[0]:.1f})")
    print(f"    launchx doctor, one node           {b:6.2f} s")
    print(f"    two nodes, facts only (--no-comm)   {f:6.2f} s  ({f / b:.2f}x one node)")
    print(f"    two nodes with the gloo link test   {c:6.2f} s  ({c / b:.2f}x one node)")
    comm = last.get("comm")
    if isinstance(comm, dict):
        sweep = comm.get("sweep") or []
        assert isinstance(sweep, list)
        best = max((p["busbw_gbs"] for p in sweep), default=0.0)
        print(
            f"    last sweep: {len(sweep)} sizes up to {sweep[-1]['bytes'] >> 20} MiB, "
            f"best busbw {best:.2f} GB/s; pairs {comm.get('pairs')}"
        )


def _node(n: int) -> NodeFacts:
    odd = {"gpus": 7, "nproc": 7} if n == 517 else {}
    if n in (3, 4):
        odd = {"driver": "550.54.15"}
    ports = tuple(
        PortState(
            device=f"mlx5_{i}",
            port=1,
            state="DOWN" if (n == 900 and i == 3) else "ACTIVE",
            phys_state="Disabled" if (n == 900 and i == 3) else "LinkUp",
            link_layer="InfiniBand",
            rate="400 Gb/sec (4X NDR)",
        )
        for i in range(8)
    )
    fields: dict[str, object] = {
        "node": n,
        "host": f"gpu-{n:04d}",
        "launchx": "0.1.0",
        "profile": "ib-h800",
        "torch": "2.3.1",
        "cuda": "12.1",
        "nccl": "2.20.5",
        "driver": "535.104.05",
        "gpus": 8,
        "nproc": 8,
        "backend": "nccl",
        "hca_spec": "=" + ",".join(f"mlx5_{i}:1" for i in range(8)),
        "ib_ports": ports,
        "sockets": {"NCCL_SOCKET_IFNAME": "=bond0"},
        "interfaces": (
            IfaceState(name="bond0", up=True, has_address=True, speed_mbps=200000),
            IfaceState(name="lo", up=True, has_address=True, kind="loopback"),
        ),
        "shm_bytes": 64 << 30,
        "memlock_bytes": MEMLOCK_UNLIMITED,
        "env": {"NCCL_IB_TIMEOUT": "22", "NCCL_DEBUG": "WARN", "NCCL_IB_DISABLE": "0"},
        **odd,
    }
    return NodeFacts.model_validate(fields)


def _compare_once(wire: list[dict[str, object]]) -> tuple[float, float, int]:
    start = time.perf_counter()
    nodes = [n for n in (parse(w) for w in wire) if isinstance(n, NodeFacts)]
    parsed = time.perf_counter()
    rep = compare.compare(
        nodes,
        expected=len(nodes),
        master="10.0.0.1:29500",
        profile="ib-h800",
        seen=compare.Seen(clock_offsets={n.node: 0.01 for n in nodes}),
    )
    text = report.render_text(rep)
    report.render_json(rep)
    return parsed - start, time.perf_counter() - parsed, len(text.splitlines())


def comparison(count: int, runs: int) -> None:
    print(f"(b) comparison at node 0 (median of {runs})")
    results = {}
    for n in (max(1, count // 10), count):
        wire = [_node(i).model_dump(mode="json") for i in range(n)]
        size = sum(len(json.dumps(w)) for w in wire)
        times = [_compare_once(wire) for _ in range(runs)]
        parse_s = statistics.median(t[0] for t in times)
        compare_s = statistics.median(t[1] for t in times)
        results[n] = parse_s + compare_s
        print(
            f"    {n:5d} nodes: parse {parse_s * 1e3:7.1f} ms, compare + render "
            f"{compare_s * 1e3:7.1f} ms ({size / n:.0f} B of facts per node; report "
            f"{times[0][2]} lines)"
        )
    small, big = sorted(results)
    print(
        f"    {big} nodes / {small} nodes: {results[big] / results[small]:.1f}x "
        f"(linear: {big / small:.0f}x); {results[big]:.3f} s against the 1 s aim"
    )


def exchange(links: int) -> None:
    run, key = "bench", derive_key("bench")
    summary = _node(1).model_dump(mode="json")
    with Hub(0, run, key, links + 1, host="127.0.0.1") as hub:
        start = time.perf_counter()
        clients = [Link("127.0.0.1", hub.port, run, key, i + 1) for i in range(links)]

        def join(link: Link) -> None:
            if link.connect(time.monotonic() + 60):
                link.send("facts", {"facts": summary, "wall": time.time()})

        threads = [threading.Thread(target=join, args=(c,)) for c in clients]
        for t in threads:
            t.start()
        got = 0
        deadline = time.monotonic() + 120
        while got < links and time.monotonic() < deadline:
            got += sum(m.type == "facts" for m in hub.messages(0.1))
        elapsed = time.perf_counter() - start
        for t in threads:
            t.join()
        for c in clients:
            c.close()
    print(
        f"(c) fact exchange: {got} of {links} links joined and sent their facts in "
        f"{elapsed:.2f} s ({elapsed / max(got, 1) * 1e3:.1f} ms per node, one process)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--links", type=int, default=200)
    parser.add_argument("--skip-e2e", action="store_true")
    opts = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}")
    if not opts.skip_e2e:
        end_to_end(opts.runs)
    comparison(opts.nodes, max(opts.runs, 3))
    exchange(opts.links)


if __name__ == "__main__":
    main()
