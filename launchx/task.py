"""``python -m launchx.task -- CMD ARGS...``: run one SLURM task as one PyTorch rank.

In ``per_task`` mode ``srun`` starts one task per process and no torchrun runs, so nothing
sets the variables ``init_process_group(init_method="env://")`` reads. This shim derives them
from what ``srun`` gives every task, then ``exec``s the command, so the training process is
the task itself: signals ``srun`` forwards reach it directly and its exit code is the task's.

The mapping is a pure function (``task_env``) so every rule is tested without SLURM.
Choices:

* Step variables win over job variables (``SLURM_STEP_NUM_TASKS`` before ``SLURM_NTASKS``,
  ``SLURM_STEP_NODELIST`` before ``SLURM_JOB_NODELIST``): a step may use only part of the
  allocation, and rank 0 then lives on the step's first node, not the job's.
* RANK, LOCAL_RANK, WORLD_SIZE and friends always come from SLURM, even if the caller's
  environment has them: ``srun`` exports the submitter's environment to every task, so an
  inherited ``RANK`` would be the same in all of them.
* MASTER_ADDR and MASTER_PORT are kept when already set (a profile or the user chose them).
  Otherwise the address is the first host of the node list and the port is derived from the
  job id, so every task computes the same values without talking to the others. The port is
  taken outside Linux's default ephemeral range, the same on every node, rather than each
  node's own setting, which could differ between nodes and split the job.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

from launchx.autovalues import derived_master_port
from launchx.errors import ConfigError, LaunchxError
from launchx.facts import HostFacts
from launchx.hostlist import expand, expand_counts

_HINT = (
    "run it as an srun task: srun ... python -m launchx.task -- python train.py; "
    "it only maps SLURM's per-task variables"
)

# Linux's default; see the module docstring for why not the node's own range.
EPHEMERAL_RANGE: tuple[int, int] = HostFacts().ephemeral_range


def _first(environ: Mapping[str, str], *names: str) -> tuple[str, str]:
    for name in names:
        value = environ.get(name, "").strip()
        if value:
            return name, value
    raise ConfigError(f"{' / '.join(names)} not set: this is not a SLURM task", _HINT)


def _int(environ: Mapping[str, str], *names: str) -> int:
    name, value = _first(environ, *names)
    if not value.isdigit():
        raise ConfigError(f"{name}={value!r} is not a whole number", _HINT)
    return int(value)


def _tasks_on_node(environ: Mapping[str, str], node_id: int) -> int:
    """Tasks of this step on this node, from the compressed per-node list (``2(x3),1``)."""
    name, text = _first(environ, "SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE")
    counts = expand_counts(text)
    if node_id >= len(counts):
        raise ConfigError(f"{name}={text!r} has no entry for node {node_id} (SLURM_NODEID)", _HINT)
    return counts[node_id]


def _step_node_index(environ: Mapping[str, str]) -> int:
    """This node's index within the step. SLURM_NODEID counts the job's nodes; a step that
    runs on some of them (srun -w node3) lists its own nodes, so find ours there."""
    step_nodes = environ.get("SLURM_STEP_NODELIST", "").strip()
    here = environ.get("SLURMD_NODENAME", "").strip()
    if step_nodes and here:
        hosts = expand(step_nodes)
        if here in hosts:
            return hosts.index(here)
    return _int(environ, "SLURM_NODEID")


def task_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables to set (or override) for this task, derived from SLURM's.

    Raises ``ConfigError`` when a variable srun always sets is missing or malformed.
    """
    rank = _int(environ, "SLURM_PROCID")
    local_rank = _int(environ, "SLURM_LOCALID")
    world = _int(environ, "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS")
    node_id = _step_node_index(environ)
    nnodes = _int(environ, "SLURM_STEP_NUM_NODES", "SLURM_NNODES", "SLURM_JOB_NUM_NODES")
    local_world = _tasks_on_node(environ, node_id)
    if not (rank < world and local_rank < local_world and node_id < nnodes):
        raise ConfigError(
            f"inconsistent SLURM task variables: rank {rank} of {world}, local rank "
            f"{local_rank} of {local_world}, node {node_id} of {nnodes}",
            _HINT,
        )
    out = {
        "RANK": str(rank),
        "LOCAL_RANK": str(local_rank),
        "WORLD_SIZE": str(world),
        "LOCAL_WORLD_SIZE": str(local_world),
        "GROUP_RANK": str(node_id),
        "NODE_RANK": str(node_id),
        "GROUP_WORLD_SIZE": str(nnodes),
    }
    if not environ.get("MASTER_ADDR"):
        _, nodelist = _first(environ, "SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST")
        out["MASTER_ADDR"] = expand(nodelist)[0]
    if not environ.get("MASTER_PORT"):
        _, job_id = _first(environ, "SLURM_JOB_ID", "SLURM_JOBID")
        out["MASTER_PORT"] = str(derived_master_port(job_id, EPHEMERAL_RANGE))
    return out


def _command(argv: Sequence[str]) -> list[str]:
    args = list(argv)
    if args and args[0] == "--":
        args = args[1:]
    if not args:
        raise ConfigError("no command given", "usage: python -m launchx.task -- CMD [ARGS...]")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    """Map the variables and replace this process with the command (never returns)."""
    try:
        cmd = _command(sys.argv[1:] if argv is None else argv)
        inherited = dict(os.environ)  # this task's program reads its environment here only
        env = {**inherited, **task_env(inherited)}
    except LaunchxError as exc:
        print(exc.render(), file=sys.stderr)
        sys.exit(exc.exit_code)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvpe(cmd[0], cmd, env)
    except OSError as exc:
        print(f"launchx.task: error: cannot run {cmd[0]!r}: {exc.strerror}", file=sys.stderr)
        sys.exit(127 if isinstance(exc, FileNotFoundError) else 126)


if __name__ == "__main__":
    main()
