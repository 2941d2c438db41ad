"""The launch-overhead benchmark job: join the process group, one barrier, exit 0.

Everything it does is what any distributed job must do before its first step, so the
time ``launchx run examples/noop.py`` takes minus the time plain torchrun takes is
launchx's own overhead.
"""

from __future__ import annotations

import sys

from launchx import runtime


def main() -> int:
    info = runtime.init_distributed("gloo")
    runtime.barrier()
    if info.rank == 0:
        print(f"[noop] world={info.world_size} ok", flush=True)
    runtime.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
