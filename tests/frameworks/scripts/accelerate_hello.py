"""The smallest accelerate script: join the world accelerate gives, all-reduce once, say
where it ran. ``FW_EVIDENCE``: each process writes ``hello.<rank>.<pid>`` after the
all-reduce, so a test can count the worlds that really formed."""

from __future__ import annotations

import os

import torch
from accelerate import Accelerator

acc = Accelerator(cpu=True)
total = acc.reduce(torch.ones(1), reduction="sum")
print(
    f"accelerate hello: rank {acc.process_index} of {acc.num_processes}, sum {int(total.item())}, "
    f"MASTER_PORT={os.environ.get('MASTER_PORT')}",
    flush=True,
)
evidence = os.environ.get("FW_EVIDENCE")
if evidence:
    os.makedirs(evidence, exist_ok=True)
    with open(os.path.join(evidence, f"hello.{acc.process_index}.{os.getpid()}"), "w") as fh:
        fh.write(str(acc.num_processes))
