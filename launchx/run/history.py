"""The real ``History`` port: a SLURM job's attempts, kept beside the job across requeues.

A requeued job starts a new ``launchx run`` that must continue the attempt numbering and
the retry budget of the allocations before it. The record lives under the submit
directory, keyed by the job and by what runs, so two ``launchx run`` lines in one batch
script (pretrain, then finetune) keep separate budgets. Outside SLURM (or in the launchx
an srun step started, whose outer launchx keeps the count) there is nothing to keep.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from launchx.plan import Target, inner_step
from launchx.resolve import Resolution
from launchx.run.decide import AttemptRecord


def history_file(res: Resolution, target: Target) -> Path | None:
    slurm_facts = res.facts.slurm
    if slurm_facts is None or not slurm_facts.job_id or inner_step(res):
        return None
    what = json.dumps([res.profile.name, target.script, *target.args])
    key = hashlib.sha256(what.encode()).hexdigest()[:12]
    base = res.facts.environ.get("SLURM_SUBMIT_DIR") or "."
    return Path(base).resolve() / ".launchx" / slurm_facts.job_id / f"attempts-{key}.json"


_FIELDS = frozenset(f.name for f in fields(AttemptRecord))


@dataclass(frozen=True)
class JobHistory:
    path: Path

    def load(self) -> list[AttemptRecord]:
        try:
            rows = json.loads(self.path.read_text())
            out = []
            for row in rows:
                sig = row.get("signature")
                row["signature"] = tuple(sig) if sig is not None else None
                out.append(AttemptRecord(**{k: v for k, v in row.items() if k in _FIELDS}))
            return out
        except (OSError, ValueError, TypeError, AttributeError):
            return []  # no history (first allocation) or an unreadable one: start afresh

    def save(self, records: list[AttemptRecord]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps([asdict(r) for r in records], indent=1))
            os.replace(tmp, self.path)
        except OSError:
            pass  # the budget then restarts with the next allocation; the run itself is fine


class NoHistory:
    """Nothing before this launchx, nothing kept after it."""

    def load(self) -> list[AttemptRecord]:
        return []

    def save(self, records: list[AttemptRecord]) -> None:
        return None
