"""Start this node's ranks of the link test and watch them: the only preflight code that
starts processes. The ranks run ``launchx.preflight.worker`` with the job's resolved
environment (what its ranks would get: the profile's NCCL/gloo variables as resolved on
this node) in their own process group, so a stop always reaches all of them.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from launchx.origin import ENV
from launchx.resolve import Resolution

SIZE_CAP = {"nccl": 1 << 30, "gloo": 64 << 20}  # largest all_reduce of the sweep (bytes)
PAIR_CAP = {"nccl": 256 << 20, "gloo": 16 << 20}
# Variables of an outer launcher that would tell the test's ranks who they are wrongly.
_RANK_VARS = (
    "RANK",
    "LOCAL_RANK",
    "WORLD_SIZE",
    "LOCAL_WORLD_SIZE",
    "GROUP_RANK",
    "ROLE_RANK",
    "NODE_RANK",
    "TORCHELASTIC_RUN_ID",
)
_TAIL = 1500


def job_env(res: Resolution) -> dict[str, str]:
    """The environment the job's ranks would get on this node (without launchx's run
    variables): the user's, with the resolved profile's values and renames applied."""
    env = dict(res.facts.environ)
    for name, setting in res.env.items():
        if setting.source != ENV:
            env[name] = setting.value
    for name in (*res.removed, *_RANK_VARS):
        env.pop(name, None)
    return env


@dataclass(frozen=True)
class Spec:
    """What this node's ranks run (see ``worker.py`` for the fields' meaning)."""

    backend: str
    world: int
    base: int
    nproc: int
    rounds: tuple[tuple[int, int] | None, ...]
    budget_s: float
    timeout_s: float

    def to_json(self, out: str) -> dict[str, object]:
        return {
            "backend": self.backend,
            "world": self.world,
            "base": self.base,
            "nproc": self.nproc,
            "rounds": [list(r) if r is not None else None for r in self.rounds],
            "budget_s": self.budget_s,
            "size_cap": SIZE_CAP.get(self.backend, SIZE_CAP["gloo"]),
            "pair_cap": PAIR_CAP.get(self.backend, PAIR_CAP["gloo"]),
            "timeout_s": self.timeout_s,
            "out": out,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Spec:
        raw = data["rounds"]
        rounds = tuple(
            (int(r[0]), int(r[1])) if isinstance(r, list) else None
            for r in (raw if isinstance(raw, list) else [])
        )
        return cls(
            backend=str(data["backend"]),
            world=int(str(data["world"])),
            base=int(str(data["base"])),
            nproc=int(str(data["nproc"])),
            rounds=rounds,
            budget_s=float(str(data["budget_s"])),
            timeout_s=float(str(data["timeout_s"])),
        )


class Ranks:
    """This node's running ranks of the link test."""

    def __init__(
        self,
        spec: Spec,
        *,
        python: str,
        env: Mapping[str, str],
        master_addr: str,
        master_port: int,
    ) -> None:
        self.spec = spec
        self.dir = Path(tempfile.mkdtemp(prefix="launchx-preflight-"))
        self.out = self.dir / "result.json"
        spec_file = self.dir / "spec.json"
        spec_file.write_text(json.dumps(spec.to_json(str(self.out))))
        self.procs: list[subprocess.Popen[bytes]] = []
        self.logs: list[Path] = []
        for local in range(spec.nproc):
            child = dict(env)
            child.update(
                MASTER_ADDR=master_addr,
                MASTER_PORT=str(master_port),
                RANK=str(spec.base + local),
                LOCAL_RANK=str(local),
                WORLD_SIZE=str(spec.world),
                LOCAL_WORLD_SIZE=str(spec.nproc),
                PYTHONUNBUFFERED="1",
            )
            log = self.dir / f"rank{spec.base + local}.log"
            self.logs.append(log)
            with open(log, "wb") as sink:
                self.procs.append(
                    subprocess.Popen(
                        [python, "-m", "launchx.preflight.worker", str(spec_file), str(local)],
                        env=child,
                        stdin=subprocess.DEVNULL,
                        stdout=sink,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )

    def done(self) -> bool:
        return all(p.poll() is not None for p in self.procs)

    def failure(self) -> str | None:
        """The first rank that failed, with the end of what it printed."""
        for proc, log in zip(self.procs, self.logs, strict=True):
            code = proc.poll()
            if code not in (None, 0):
                return f"rank {log.stem[4:]} exited {code}: {_tail(log)}"
        return None

    def result(self) -> dict[str, object] | None:
        """Global rank 0's measurements (node 0 only), once it wrote them."""
        try:
            data = json.loads(self.out.read_text())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def stop(self, grace_s: float = 3.0) -> None:
        """SIGTERM every rank's group, SIGKILL after ``grace_s``, reap them all."""
        for proc in self.procs:
            if proc.poll() is None:
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(grace_s)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    def cleanup(self) -> None:
        self.stop()
        for path in sorted(self.dir.iterdir()):
            with contextlib.suppress(OSError):
                path.unlink()
        with contextlib.suppress(OSError):
            self.dir.rmdir()


def _tail(log: Path) -> str:
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return "(no output)"
    lines = [line for line in text.strip().splitlines() if line.strip()]
    # The last error line says most (a Python exception's message comes last).
    interesting = [ln for ln in lines if "Error" in ln or "error" in ln] or lines
    tail = interesting[-1] if interesting else "(no output)"
    return tail[-_TAIL:]
