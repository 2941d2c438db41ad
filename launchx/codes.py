"""Every finding code, in one place: the code, its level, and what it means in one line.

Codes are promises: users grep for them and CI may allow-list them, so a code keeps its
meaning and level forever (a failure code keeps the failure it names; its category was
corrected once, when LX561, a device-side assert, moved from user_code_error to cuda_error
to follow the corpus's category list). Ranges: LX1xx the variable catalog (``catalog``),
LX2xx the host and the launch (``plan``, ``doctor``), LX3xx profiles and resolution
(``resolve``), LX5xx, then LX6xx, LX7xx and LX8xx, failure diagnoses (``failure_rules``:
each rule carries its own code, category and cause; LX599 is the unknown diagnosis; LX597,
a gloo peer at a loopback address, was withdrawn the day it was written and is never
reused).

``docs/codes.md`` is generated from this table (``python -m launchx.codes``); a test keeps it
current, and checks that every code here is raised somewhere and every code raised is here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

Level = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Code:
    code: str
    level: Level
    meaning: str


FINDINGS: tuple[Code, ...] = (
    # --- LX1xx: variables and values (catalog) -------------------------------------------
    Code("LX100", "warning", "unknown name in a namespace whose reader ignores unknown names"),
    Code("LX101", "warning", "myth: a name nothing reads (NCCL_TIMEOUT, ...)"),
    Code("LX102", "warning", "renamed: the old name is a deprecated alias of a new one"),
    Code("LX103", "warning", "removed: no current release reads the name"),
    Code("LX104", "warning", "deprecated: still read, but superseded or a no-op"),
    Code("LX105", "warning", "old and new name both set to different values (the new one wins)"),
    Code("LX106", "warning", "name in the wrong case (environment names are case-sensitive)"),
    Code("LX109", "warning", "boolean word where 0/1 is needed (happens to mean what was meant)"),
    Code("LX110", "error", "not a number the reader can parse (NCCL reads words as 0)"),
    Code("LX111", "error", "size with a unit suffix (NCCL reads 8M as 8 bytes)"),
    Code("LX112", "error", "value is not one of the accepted words"),
    Code("LX113", "error", "accepted word in the wrong case for a case-sensitive reader"),
    Code("LX114", "error", "number out of range (or not a required multiple)"),
    Code("LX115", "error", "boolean spelled in a way the reader does not accept"),
    Code("LX116", "error", "malformed list or address syntax"),
    Code("LX117", "error", "NCCL_ALGO/NCCL_PROTO token NCCL does not know"),
    Code("LX118", "error", "placeholder left in the value (<your_interface>)"),
    Code("LX119", "error", "path unusable as written (~ is not expanded; absolute path required)"),
    Code(
        "LX120",
        "warning",
        "NCCL_IB_TIMEOUT >= 24: minutes per retry, not seconds; 0 or >= 32: no timeout at all",
    ),
    Code("LX121", "warning", "legacy integer topology level (its meaning changed across NCCL)"),
    Code("LX122", "warning", "accepted value that is deprecated or dangerous"),
    Code("LX123", "error", "value the reader ignores (single-character NCCL_SOCKET_IFNAME)"),
    Code("LX124", "info", "accepted value worth a note"),
    Code("LX125", "warning", "NCCL_DEBUG_FILE without %p: every process truncates the same file"),
    Code("LX126", "warning", "CUDA_VISIBLE_DEVICES hides GPUs (empty, negative, duplicates)"),
    Code("LX127", "warning", "allocator-config key torch does not know"),
    Code("LX130", "warning", "NCCL_IB_HCA set while the IB transport is off"),
    Code("LX131", "warning", "NCCL_P2P_LEVEL set while NCCL_P2P_DISABLE=1"),
    Code("LX132", "error", "NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD > 64 (NCCL lowers it)"),
    Code("LX133", "warning", "NCCL_DEBUG_FILE set but NCCL_DEBUG below WARN: no file is written"),
    Code("LX134", "warning", "flight-recorder dump requested while its buffer size is 0"),
    Code("LX135", "warning", "watchdog settings while TORCH_NCCL_BLOCKING_WAIT is on"),
    Code("LX136", "warning", "old-name NCCL_ASYNC_ERROR_HANDLING overridden by torchrun"),
    Code("LX140", "info", "debug logging left on (fine for debugging, slow for production)"),
    Code("LX141", "warning", "TORCH_DISTRIBUTED_DEBUG=DETAIL (collective hashing on every call)"),
    Code("LX142", "warning", "CUDA_LAUNCH_BLOCKING=1 (serialises every kernel)"),
    Code("LX150", "error", "NCCL_IB_HCA selects none of this host's RDMA devices"),
    Code("LX151", "warning", "NCCL_IB_HCA names devices this host does not have"),
    Code("LX152", "warning", "NCCL_IB_HCA set but this host has no RDMA devices"),
    Code("LX153", "warning", "NCCL_IB_HCA prefix trap: mlx5_1 also matches mlx5_10"),
    Code("LX154", "error", "NCCL_SOCKET_IFNAME matches no interface of this host"),
    Code("LX155", "error", "NCCL_SOCKET_IFNAME matches only interfaces that are down"),
    Code("LX156", "warning", "NCCL_IB_HCA selects only ports that are not ACTIVE/LinkUp"),
    Code(
        "LX157",
        "error",
        "GLOO_SOCKET_IFNAME names an interface this host lacks or that has no address",
    ),
    # --- LX2xx: the launch (plan) and the host (doctor) ----------------------------------
    Code("LX201", "error", "torchrun asked for inside a torchrun worker"),
    Code("LX202", "error", "torchrun asked for where a platform or MPI already started the ranks"),
    Code("LX203", "error", "torchrun in an srun step that already runs several tasks per node"),
    Code("LX204", "error", "launchx run inside a process tree launchx already runs"),
    Code("LX205", "error", "more processes per node than visible GPUs"),
    Code("LX206", "error", "CUDA_VISIBLE_DEVICES names a GPU twice"),
    Code("LX207", "error", "the master port is taken on node rank 0 of a multi-node run"),
    Code("LX208", "info", "the port asked for is taken: one node, so launchx uses a free one"),
    Code("LX209", "warning", "a platform or MPI started the ranks without MASTER_ADDR/PORT"),
    Code("LX210", "error", "per_task processes per node differ from the allocation's tasks"),
    Code("LX211", "error", "the script, module or executable to run does not exist here"),
    Code("LX212", "error", "processes per node asked for contradict the launch already in place"),
    Code("LX213", "error", "the command launchx runs per rank is itself a launcher"),
    Code("LX214", "warning", "one node, but the master address is not an address of this host"),
    Code("LX215", "warning", "a direct launch where nothing started the ranks: one process runs"),
    Code("LX220", "error", "torch is not installed for the python that runs launchx"),
    Code("LX221", "warning", "/dev/shm is too small for NCCL and DataLoader workers"),
    Code("LX222", "error", "RDMA devices present but no port is ACTIVE/LinkUp"),
    Code("LX223", "warning", "some RDMA ports are not active"),
    Code("LX224", "warning", "no interface but loopback is up with an address"),
    Code("LX225", "warning", "torchrun's default port is held (a leftover job?)"),
    Code("LX226", "error", "CUDA_VISIBLE_DEVICES names a GPU twice (doctor)"),
    # LX23x-LX25x: the nodes compared (preflight.compare)
    Code("LX230", "error", "a node did not join (or sent nothing readable)"),
    Code("LX231", "error", "torch versions differ"),
    Code("LX232", "error", "the CUDA torch was built with differs"),
    Code("LX233", "error", "NCCL versions differ"),
    Code("LX234", "warning", "NVIDIA driver versions differ"),
    Code("LX235", "error", "GPU counts differ"),
    Code("LX236", "error", "fewer GPUs than processes per node"),
    Code("LX237", "error", "processes per node differ (GPU counts agree)"),
    Code("LX238", "error", "an RDMA port the profile uses is down or missing on some node"),
    Code("LX239", "warning", "an RDMA port runs at another rate on some node"),
    Code("LX240", "error", "the socket interface is missing or down on some node"),
    Code("LX241", "warning", "the socket interface runs at another speed on some node"),
    Code("LX242", "error", "/dev/shm too small on a node where NCCL runs several ranks"),
    Code("LX243", "error", "locked-memory limit too small on a node that uses RDMA"),
    Code("LX244", "warning", "clocks differ by more than a second"),
    Code("LX245", "warning", "a node's host name does not resolve at node 0"),
    Code("LX246", "warning", "several nodes report the same host name"),
    Code("LX247", "error", "a node cannot reach the master's rendezvous port"),
    Code("LX248", "warning", "a variable of the job's environment differs"),
    Code("LX249", "warning", "nodes run another profile or launchx version"),
    Code("LX250", "error", "the link test failed"),
    Code("LX251", "warning", "a node or link is well below the median bandwidth"),
    Code("LX252", "error", "a node reached the rendezvous port but not launchx's channel port"),
    # --- LX3xx: profiles and resolution --------------------------------------------------
    Code("LX301", "error", "several nodes but no master address"),
    Code("LX302", "error", "an auto value launchx cannot work out"),
    Code("LX303", "warning", "an auto value nothing on this host can fill: left unset"),
    Code("LX304", "error", "nproc_per_node cannot be resolved on this host"),
    Code("LX305", "error", "node rank not below the node count"),
    Code("LX306", "error", "a retry policy names a category that does not exist"),
    Code("LX307", "error", "the master address is empty"),
    Code("LX308", "warning", "the hang timeout is not well below the collective timeout"),
    Code("LX309", "warning", "a resume argument with no checkpoint directory is never passed"),
    Code("LX310", "warning", "an empty variable in the environment hides the profile's value"),
)

LEVELS: Mapping[str, Level] = MappingProxyType({c.code: c.level for c in FINDINGS})


def level(code: str) -> Level:
    """The level a finding with ``code`` always has (KeyError for an unregistered code)."""
    return LEVELS[code]


def markdown() -> str:
    """``docs/codes.md``: every finding code, then every failure diagnosis code."""
    from launchx import failure_rules as fr

    lines = [
        "# launchx codes",
        "",
        "Generated by `python -m launchx.codes` from `launchx/codes.py` and",
        "`launchx/failure_rules/`; do not edit by hand.",
        "",
        "## Findings (`launchx explain`, `run`, `doctor`)",
        "",
        "| code | level | meaning |",
        "| --- | --- | --- |",
    ]
    lines += [f"| {c.code} | {c.level} | {c.meaning} |" for c in FINDINGS]
    lines += [
        "",
        "## Failure diagnoses (`launchx diagnose`, the run's failure summary)",
        "",
        "| code | category | cause |",
        "| --- | --- | --- |",
    ]
    rows = {r.code: (r.category, r.cause) for r in fr.RULES}
    rows.update({r.code: (r.category, r.cause) for r in fr.SIGNAL_RULES.values()})
    rows[fr.UNKNOWN_CODE] = ("unknown", fr.UNKNOWN_CAUSE)
    for code in sorted(rows):
        category, cause = rows[code]
        lines.append(f"| {code} | {category} | {cause.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
