"""launchx's stack hook, put first on the ranks' PYTHONPATH by ``launchx.watch.hook``.

Stdlib only and silent: it runs in every Python process of the run (torchrun too), and
must never fail or slow one down. In a rank process (RANK set) it registers faulthandler
on launchx's signal, dumping every thread's Python stack to a per-process file in the
run's log dir. faulthandler writes from the C signal handler, so the dump arrives even
while the rank sits in a C call (a collective, a lock, time.sleep) or holds the GIL.
``chain=False``: a real-time signal whose default action would end the process; launchx
signals only processes whose /proc status shows the handler installed. With
LAUNCHX_PTRACER_PID set it also declares launchx its tracer (prctl PR_SET_PTRACER), so
py-spy works under Yama ptrace_scope 1. Then it runs the sitecustomize it shadows.
"""

import os
import sys
from typing import IO


def _launchx_stack_hook() -> "IO[str] | None":
    directory = os.environ.get("LAUNCHX_STACK_DIR")
    signum = os.environ.get("LAUNCHX_STACK_SIGNAL", "")
    rank = os.environ.get("RANK", "")
    if not directory or not signum.isdigit() or not rank.isdigit():
        return None
    tracer = os.environ.get("LAUNCHX_PTRACER_PID", "")
    if tracer.isdigit() and sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None).prctl(0x59616D61, int(tracer), 0, 0, 0)  # PR_SET_PTRACER
        except Exception:
            pass
    try:
        import faulthandler
        import signal

        sig = int(signum)
        if signal.getsignal(sig) not in (signal.SIG_DFL, None):
            return None  # someone else's signal: leave it alone
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, f"rank{rank}.{os.getpid()}.txt")
        handle = open(path, "a")  # noqa: SIM115 - faulthandler writes to it for life
        faulthandler.register(sig, file=handle, all_threads=True, chain=False)
        _launchx_tidy_at_exit(path)
        return handle
    except Exception:
        return None


def _launchx_tidy_at_exit(path: str) -> None:
    """A rank that was never asked for its stack leaves no empty file behind."""
    import atexit

    def tidy() -> None:
        try:
            if os.path.getsize(path) == 0:
                os.unlink(path)
        except OSError:
            pass

    atexit.register(tidy)


def _launchx_chain() -> None:
    """Import the sitecustomize this file shadows (a distro's or a conda env's)."""
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    for entry in sys.path:
        if os.path.abspath(entry or os.curdir) == here:
            continue
        try:
            spec = importlib.machinery.PathFinder.find_spec("sitecustomize", [entry])
        except Exception:
            continue
        if spec is None or spec.loader is None:
            continue
        module = importlib.util.module_from_spec(spec)
        sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)
        return


if __name__ == "sitecustomize":  # imported by site at start-up, not as launchx's module
    _launchx_stack_file = _launchx_stack_hook()
    _launchx_chain()
