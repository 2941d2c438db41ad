"""``launchx run --preflight``: check every node before the first attempt; never start on errors.

A node with seven GPUs, another NCCL, an HCA port down or a slow link shows up after the
job started, as a hang or a crash on some rank; the check (``launchx.preflight``, what
``launchx doctor`` runs across nodes) finds it first, with the job's own settings.

Where it runs follows who runs the attempts. With torchrun (or the script itself) one
launchx runs per node, so each meets the others at node 0 in its own process. Under the
srun launcher one launchx runs for the whole allocation, so it starts the check as an srun
step, one ``launchx doctor`` per node, resolved from the same options
(``pipeline.doctor_args``). An srun step's own launchx (``inner_step``) does not check again.

It runs once per ``launchx run`` (a requeued job checks its new nodes), never before a
retry, and before the nodes' live channel opens: the check meets on the same port with a
run id of its own.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import IO, NamedTuple

from launchx import pipeline, plan
from launchx.execute import STOPPING, Supervisor, run_process
from launchx.run.loop import RunSpec
from launchx.run.ports import Console, Events


def wanted(spec: RunSpec) -> bool:
    return spec.res.profile.preflight.enabled and not spec.decisions.inner_step


def in_process(spec: RunSpec) -> bool:
    """True: this launchx checks its own node in-process; False: an srun step checks them."""
    return spec.decisions.launcher.launcher != "srun"


def command(spec: RunSpec, request: pipeline.Request) -> tuple[str, ...]:
    """What the check amounts to, as a command (``--dry-run`` shows it)."""
    args = pipeline.doctor_args(request)
    if in_process(spec):
        return plan.preflight_argv(spec.res, args)
    return plan.preflight_srun_argv(spec.res, args)


class _Stopped(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, _frame: FrameType | None) -> None:
    raise _Stopped(signum)


class Verdict(NamedTuple):
    """How the check ended: ``code`` 0 to go on, else launchx's exit code (2: the checks
    failed; 128 + the signal where one stopped them, as an interrupted attempt ends)."""

    code: int
    interrupted: bool = False

    def __bool__(self) -> bool:
        """True when the run may go on (a tuple of two is always true otherwise)."""
        return self.code == 0


def check_here(spec: RunSpec, sink: IO[str], console: Console, events: Events) -> Verdict:
    """This node's part of the check. Ctrl-C, SIGTERM or SIGHUP stop it at once (the
    check's own cleanup stops its link-test processes) and end the run with 128 + the
    signal, as an interrupted attempt would."""
    from launchx import preflight

    pre = spec.res.profile.preflight
    _announce(spec, console)
    main = threading.current_thread() is threading.main_thread()
    previous = {sig: signal.signal(sig, _stop) for sig in STOPPING} if main else {}
    try:
        code = preflight.check(
            spec.res,
            join_timeout_s=pre.join_timeout_s,
            comm_test=pre.comm,
            out=sink,
            run_id=spec.decisions.run_id,
            command="launchx run --preflight",
        )
    except (_Stopped, KeyboardInterrupt) as exc:
        signum = exc.signum if isinstance(exc, _Stopped) else signal.SIGINT
        return _interrupted(128 + signum, console, events)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return _verdict(code, console, events)


def _interrupted(code: int, console: Console, events: Events) -> Verdict:
    events.record("preflight", exit_code=code, interrupted=True)
    console.write("launchx: interrupted during the preflight\n")
    return Verdict(code, interrupted=True)


def check_by_srun(
    spec: RunSpec,
    request: pipeline.Request,
    sup: Supervisor,
    sink: IO[str],
    console: Console,
    events: Events,
) -> Verdict:
    """Every node of the allocation, as one srun step of ``launchx doctor``."""
    argv = command(spec, request)
    _announce(spec, console)
    result = run_process(
        argv,
        dict(spec.res.facts.environ),
        sup,
        grace_s=float(spec.res.profile.timeouts.grace_period_s),
        out=sink,
    )
    if result.interrupted:
        return _interrupted(128 + (sup.stop_signal or signal.SIGINT), console, events)
    return _verdict(result.exit_code, console, events)


def _announce(spec: RunSpec, console: Console) -> None:
    n = spec.res.nnodes
    console.write(
        f"launchx: preflight: checking {'the node' if n == 1 else f'{n} nodes'} "
        "before the first attempt\n"
    )


def _verdict(code: int, console: Console, events: Events) -> Verdict:
    """0 to go on; else launchx's exit code: 2, the run does not start."""
    events.record("preflight", exit_code=code)
    if code == 0:
        console.write("launchx: preflight passed\n")
        return Verdict(0)
    console.write(
        f"launchx: preflight failed (exit {code}): not starting; fix what it names above, "
        "or run without --preflight (profile preflight.enabled: false)\n"
    )
    return Verdict(2)
