"""launchx's stack hook, put first on the ranks' PYTHONPATH by ``launchx.watch.hook``.

Stdlib only and silent: it runs in every Python process of the run (torchrun too), and
must never fail or slow one down. In a rank process (RANK set) it registers faulthandler
on launchx's signal, dumping every thread's Python stack to a per-process file in the
run's log dir. faulthandler writes from the C signal handler, so the dump arrives even
while the rank sits in a C call (a collective, a lock, time.sleep) or holds the GIL.
``chain=False``: a real-time signal whose default action would end the process; launchx
signals only processes whose /proc status shows the handler installed. With
LAUNCHX_PTRACER_PID set it also declares launchx its tracer (prctl PR_SET_PTRACER), so
py-spy works under Yama ptrace_scope 1. In torchrun's own agent it guards against
outliving launchx: see ``_launchx_orphan_guard``. Then it runs the sitecustomize it shadows.
"""

import os
import sys
from collections.abc import Callable
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


ORPHAN_GRACE_VAR = "LAUNCHX_ORPHAN_GRACE_S"


def _launchx_is_agent(argv: "list[str]", environ: "dict[str, str]") -> bool:
    """torchrun's own agent under launchx: no RANK of its own (its ranks have one), the
    hook's variables set, started as ``python -m torch.distributed.run`` or ``torchrun``."""
    if environ.get("RANK") is not None or not environ.get("LAUNCHX_STACK_DIR"):
        return False
    if argv[1:3] == ["-m", "torch.distributed.run"]:
        return True
    return len(argv) > 1 and os.path.basename(argv[1]) == "torchrun"


def _launchx_orphan_grace(environ: "dict[str, str]") -> float:
    """LAUNCHX_ORPHAN_GRACE_S, else torchrun's own shutdown timeout (launchx sets it from
    --grace-period) and 30 s more for its exit, else 60 s."""
    for name, extra in ((ORPHAN_GRACE_VAR, 0.0), ("PET_SHUTDOWN_TIMEOUT", 30.0)):
        try:
            value = float(environ.get(name, "")) + extra
        except ValueError:
            continue
        if 0 <= value < 86400:
            return value
    return 60.0


def _launchx_orphan_guard() -> None:
    """In torchrun's agent: when launchx dies without stopping the run (SIGKILL, the OOM
    killer), the kernel's parent-death signal makes torchrun stop its ranks, but torchrun
    itself can then hang at exit joining its ``--tee`` log threads, and an agent left that
    way holds the store's port for good. If it is still alive a grace period after launchx
    went, it ends what is left below it and leaves."""
    if not _launchx_is_agent(getattr(sys, "orig_argv", []), dict(os.environ)):
        return
    try:
        parent = os.getppid()
        with open(f"/proc/{parent}/cmdline", "rb") as f:
            if b"launchx" not in f.read():
                return  # started by something else: its parent is not launchx's to watch
        import threading
        import time

        threading.Thread(
            target=_launchx_watch_parent,
            args=(parent, _launchx_orphan_grace(dict(os.environ)), os.getppid, time.sleep),
            kwargs={"leave": _launchx_leave},
            name="launchx-orphan-guard",
            daemon=True,
        ).start()
    except Exception:
        pass


def _launchx_watch_parent(
    parent: int,
    grace: float,
    getppid: "Callable[[], int]",
    sleep: "Callable[[float], None]",
    leave: "Callable[[], None]",
) -> None:
    """Poll for the parent's death, then give torchrun ``grace`` seconds to stop its ranks
    and exit on its own before leaving."""
    while getppid() == parent:
        sleep(1.0)
    sleep(grace)
    leave()


def _launchx_leave() -> None:
    """SIGKILL this process's children (ranks torchrun did not stop, in sessions of their
    own), then exit without the interpreter's shutdown, which is what hangs."""
    import signal

    me = str(os.getpid())
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = f.read().rsplit(")", 1)[1].split()[1]
            if ppid == me:
                os.kill(int(entry), signal.SIGKILL)
        except (OSError, IndexError):
            continue
    os._exit(1)


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
    _launchx_orphan_guard()
    _launchx_chain()
