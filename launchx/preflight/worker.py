"""One rank of the link test: ``python -m launchx.preflight.worker SPEC LOCAL_RANK``.

The only preflight module that imports torch; it runs in its own process with the job's
resolved environment (``sweep.py`` starts it), never in the launchx process. It speaks
only the JSON spec below (stdlib + torch), so it starts in the time torch takes to load.

Spec (written by ``sweep.py``): ``backend``, ``world``, ``base`` (this node's first rank),
``nproc``, ``rounds`` (per round ``[partner_base, width]`` or null), ``budget_s`` (for the
size sweep), ``size_cap``, ``pair_cap``, ``timeout_s``, ``out`` (global rank 0 writes the
result there). Timing follows nccl-tests: warm-up, then a timed loop, device synchronised
before the clock is read; the slowest rank's time (an all_reduce MAX) is the one reported.
"""

from __future__ import annotations

import json
import sys
import time
from datetime import timedelta
from typing import Any

MIB = 1 << 20


def main(argv: list[str]) -> int:
    with open(argv[0], encoding="utf-8") as handle:
        spec: dict[str, Any] = json.load(handle)
    local = int(argv[1])
    import torch
    import torch.distributed as dist

    backend = str(spec["backend"])
    rank, world = int(spec["base"]) + local, int(spec["world"])
    device = torch.device("cpu")
    if backend == "nccl":
        torch.cuda.set_device(local)
        device = torch.device("cuda", local)
    dist.init_process_group(
        backend, rank=rank, world_size=world, timeout=timedelta(seconds=float(spec["timeout_s"]))
    )

    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    def slowest(seconds: float) -> float:
        value = torch.tensor([seconds], dtype=torch.float64, device=device)
        dist.all_reduce(value, op=dist.ReduceOp.MAX)
        return float(value.item())

    iters, warmup = (20, 5) if backend == "nccl" else (5, 2)
    sweep: list[list[float]] = []
    size, spent = MIB, 0.0
    budget, cap = float(spec["budget_s"]), int(spec["size_cap"])
    while True:
        data = torch.ones(size // 4, dtype=torch.float32, device=device)
        begun = time.perf_counter()
        for _ in range(warmup if sweep else warmup + 3):  # the first size also connects
            dist.all_reduce(data)
        sync()
        dist.barrier()
        start = time.perf_counter()
        for _ in range(iters):
            dist.all_reduce(data)
        sync()
        per = slowest(time.perf_counter() - start) / iters
        spent += slowest(time.perf_counter() - begun)
        sweep.append([size, per])
        projected = 2 * per * (iters + warmup)
        if size * 2 > cap or spent + projected > budget:
            break
        size *= 2
    del data

    rounds: list[list[int] | None] = spec["rounds"]
    pair_size = min(int(sweep[-1][0]), int(spec["pair_cap"]))
    pair_iters = 10 if backend == "nccl" else 3
    send = torch.ones(pair_size // 4, dtype=torch.float32, device=device)
    recv = torch.empty_like(send)
    times = torch.zeros(world * max(len(rounds), 1), dtype=torch.float64, device=device)
    for r, entry in enumerate(rounds):
        dist.barrier()
        if entry is None or local >= int(entry[1]):
            continue
        peer = int(entry[0]) + local
        ops = [dist.P2POp(dist.isend, send, peer), dist.P2POp(dist.irecv, recv, peer)]
        for work in dist.batch_isend_irecv(ops):
            work.wait()
        sync()
        start = time.perf_counter()
        for _ in range(pair_iters):
            for work in dist.batch_isend_irecv(ops):
                work.wait()
        sync()
        times[rank * len(rounds) + r] = time.perf_counter() - start
    dist.all_reduce(times)
    if rank == 0:
        result = {
            "backend": backend,
            "world": world,
            "sweep": sweep,
            "pair_size": pair_size,
            "pair_iters": pair_iters,
            "times": times.cpu().tolist(),
        }
        with open(str(spec["out"]), "w", encoding="utf-8") as handle:
            json.dump(result, handle)
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
