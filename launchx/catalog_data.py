"""The environment-variable catalog, as plain literals (reviewed like code, one test per row).

Source of truth: ``/work/shared/reference/env-vars.md`` (NCCL 2.30.7, torch 2.14.1, Slurm after
25.05). Kept as Python records rather than YAML so ``import launchx.catalog`` stays cheap and a
reviewer sees every fact in one diff, each field named. ``launchx.catalog`` turns the ``Var``
records of the ``*_ROWS`` tables into ``EnvVarSpec``.

``type`` (what the reader really parses; see ``launchx.catalog`` for the checks):
  int            integer (NCCL: strtoll base 0, so ``8M`` is 8 and ``abc`` is 0; torch: std::stoi)
  intlist        comma list of integers (OMP_NUM_THREADS=4,2 for nested parallelism)
  size           integer number of bytes, no K/M suffix
  float          decimal number
  bool01         ``0``/``1`` only (NCCL and CUDA do not understand ``true``/``yes``)
  bool-str       torch getCvarBool: 1/0, y/n, yes/no, t/f, true/false; anything else throws
  bool-check     torch check_env: ``1``/``0``; anything else is warned about and treated as unset
  int-flag       torchrun ``PET_*`` boolean: ``bool(int(value))``, so an integer string
  enum           one of the constraint words, case-insensitive
  enum-cs        one of the constraint words, case-sensitive (other spellings silently ignored)
  level          NCCL topology level: upper-case word, or a legacy integer (0-4, > 4 = SYS)
  iflist         NCCL interface/HCA filter list (``^`` and ``=`` only at the start of the list)
  algolist       NCCL_ALGO syntax (``[func:]a,b[;func:c]``), tokens from the constraint words
  protolist      NCCL_PROTO syntax, tokens from the constraint words
  wordlist       comma list of the constraint words, optional leading ``^`` (case-insensitive)
  flags          ``|``-combined constraint words (NCCL_CTA_POLICY)
  netdevs        NCCL_NETDEVS_POLICY: AUTO, ALL or MAX:<n>
  hostport       ``host:port`` / ``[v6]:port``
  cidr           IPv4/IPv6 network
  path           file or directory path (NCCL does not expand ``~``)
  abspath        absolute path
  path-template  NCCL_DEBUG_FILE: path with ``%h``/``%p``
  alloc-conf     PYTORCH_*ALLOC_CONF ``key:value,key:[a,b]``
  cuda-devices   CUDA_VISIBLE_DEVICES: indices or GPU-/MIG- UUIDs
  nnodes         ``N`` or ``MIN:MAX``
  nproc          integer or a device word (``gpu``, ``cpu``, ``auto``, ...)
  string         anything (not validated)

``constraint``: ``lo..hi`` (either end may be empty, ``/k`` = multiple of k) for numbers,
space-separated words for enum/level/list types, empty for none.

Severity policy (applied by ``launchx.catalog``): a value is an **error** when the reader would
reject it, crash on it, or silently read something other than what is written (``8M`` -> 8 bytes,
``true`` -> 0, ``sys`` ignored, ``640`` clamped to 512): the job would not do what the line says,
and the fix is one edit away. It is a **warning** when the value is read as written but is
deprecated, has no effect, or is very probably a mistake; **info** when it is merely worth knowing.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Var:
    """A variable and what its reader does with it (see the module docstring for ``type``
    and ``constraint``)."""

    name: str
    type: str
    default: str
    constraint: str
    purpose: str


@dataclass(frozen=True, kw_only=True)
class Renamed:
    """An old name that is still read as an alias of ``new``."""

    old: str
    new: str
    reader: str
    note: str


@dataclass(frozen=True, kw_only=True)
class Removed:
    """A name no current release reads; ``new_name`` when it was renamed."""

    name: str
    reader: str
    use_instead: str
    new_name: str
    note: str


@dataclass(frozen=True, kw_only=True)
class Deprecated:
    name: str
    use_instead: str
    note: str


@dataclass(frozen=True, kw_only=True)
class Myth:
    """A name read by nothing that launchx starts."""

    name: str
    reader: str
    use_instead: str
    note: str


@dataclass(frozen=True, kw_only=True)
class ValueNote:
    """A value read as written that deserves a word (``value`` "*": any non-empty value)."""

    name: str
    value: str
    code: str
    message: str
    fix: str


# --- NCCL (§1.3 system/network, §1.4 debug/tuning) -------------------------------------------
NCCL_ROWS: tuple[Var, ...] = (
    Var(
        name="NCCL_SOCKET_IFNAME",
        type="iflist",
        default="auto: ib*, else not docker/lo/virbr",
        constraint="",
        purpose="IP interfaces NCCL uses for bootstrap and the Socket transport",
    ),
    Var(
        name="NCCL_SOCKET_FAMILY",
        type="enum-cs",
        default="first address found",
        constraint="AF_INET AF_INET6",
        purpose="Force IPv4 or IPv6 for NCCL sockets",
    ),
    Var(
        name="NCCL_SOCKET_MAGIC",
        type="int",
        default="built-in constant",
        constraint="0..",
        purpose="Magic number of the socket-transport handshake (separates jobs)",
    ),
    Var(
        name="NCCL_SOCKET_RETRY_CNT",
        type="int",
        default="34",
        constraint="1..",
        purpose="Connect retries after ETIMEDOUT/ECONNREFUSED/EHOSTUNREACH",
    ),
    Var(
        name="NCCL_SOCKET_RETRY_SLEEP_MSEC",
        type="int",
        default="100",
        constraint="1..",
        purpose="Base back-off between socket connect retries, in ms",
    ),
    Var(
        name="NCCL_SOCKET_POLL_TIMEOUT_MSEC",
        type="int",
        default="0",
        constraint="0..",
        purpose="Poll interval between bootstrap socket progress attempts, in ms",
    ),
    Var(
        name="NCCL_SOCKET_NTHREADS",
        type="int",
        default="auto (2 on AWS, 4 on GCP gVNIC)",
        constraint="1..16",
        purpose="Helper threads per Socket-transport connection (product with NSOCKS <= 64)",
    ),
    Var(
        name="NCCL_NSOCKS_PERTHREAD",
        type="int",
        default="auto (8 on AWS, else 1)",
        constraint="1..64",
        purpose="Sockets per helper thread (product with SOCKET_NTHREADS <= 64)",
    ),
    Var(
        name="NCCL_CROSS_NIC",
        type="enum",
        default="2",
        constraint="0 1 2",
        purpose="Whether rings/trees may use different NICs on different nodes",
    ),
    Var(
        name="NCCL_IB_HCA",
        type="iflist",
        default="all HCAs",
        constraint="",
        purpose="RDMA HCAs (and ports) NCCL may use; entries are prefixes unless the list starts "
        "with =",
    ),
    Var(
        name="NCCL_IB_TIMEOUT",
        type="int",
        default="20",
        constraint="0..",
        purpose="IB local-ack timeout exponent: 4.096 us x 2^value per retry; 0 or 32 and "
        "above: no timeout",
    ),
    Var(
        name="NCCL_IB_RETRY_CNT",
        type="int",
        default="7",
        constraint="0..7",
        purpose="IB retry count (a 3-bit field)",
    ),
    Var(
        name="NCCL_IB_GID_INDEX",
        type="int",
        default="-1 (automatic since NCCL 2.21)",
        constraint="-1..",
        purpose="GID index used on RoCE",
    ),
    Var(
        name="NCCL_IB_ADDR_FAMILY",
        type="enum-cs",
        default="AF_INET",
        constraint="AF_INET AF_INET6",
        purpose="Address family of the auto-selected RoCE GID",
    ),
    Var(
        name="NCCL_IB_ADDR_RANGE",
        type="cidr",
        default="unset",
        constraint="",
        purpose="Restrict auto-selected GIDs to a network",
    ),
    Var(
        name="NCCL_IB_ROCE_VERSION_NUM",
        type="enum",
        default="2",
        constraint="1 2",
        purpose="RoCE version of the auto-selected GID",
    ),
    Var(
        name="NCCL_IB_SL",
        type="int",
        default="0",
        constraint="0..15",
        purpose="InfiniBand service level",
    ),
    Var(
        name="NCCL_IB_TC",
        type="int",
        default="0",
        constraint="0..255",
        purpose="IB/RoCE traffic class (DSCP x 4 on RoCE)",
    ),
    Var(
        name="NCCL_IB_FIFO_TC",
        type="int",
        default="value of NCCL_IB_TC",
        constraint="0..255",
        purpose="Traffic class of small control (credit-return) messages",
    ),
    Var(
        name="NCCL_IB_RETURN_ASYNC_EVENTS",
        type="bool01",
        default="1",
        constraint="",
        purpose="Stop IB traffic on fatal asynchronous IB events",
    ),
    Var(
        name="NCCL_IB_DISABLE",
        type="bool01",
        default="0",
        constraint="",
        purpose="Disable the IB/RoCE transport (use sockets)",
    ),
    Var(
        name="NCCL_IB_AR_THRESHOLD",
        type="size",
        default="8192",
        constraint="0..",
        purpose="Message size above which data may use adaptive routing",
    ),
    Var(
        name="NCCL_IB_OOO_RQ",
        type="bool01",
        default="0",
        constraint="",
        purpose="Allow out-of-order consumption of receive WRs",
    ),
    Var(
        name="NCCL_IB_QPS_PER_CONNECTION",
        type="int",
        default="1",
        constraint="1..128",
        purpose="Queue pairs per connection (routing entropy)",
    ),
    Var(
        name="NCCL_IB_SPLIT_DATA_ON_QPS",
        type="bool01",
        default="0",
        constraint="",
        purpose="Split each message across QPs instead of round-robin",
    ),
    Var(
        name="NCCL_IB_PCI_RELAXED_ORDERING",
        type="enum",
        default="2",
        constraint="0 1 2",
        purpose="PCIe relaxed ordering for IB Verbs (0 off, 1 force, 2 auto)",
    ),
    Var(
        name="NCCL_IB_ADAPTIVE_ROUTING",
        type="bool01",
        default="auto: 1 on IB, 0 on RoCE",
        constraint="",
        purpose="Use adaptive-routing-capable transfers",
    ),
    Var(
        name="NCCL_IB_ECE_ENABLE",
        type="bool01",
        default="1",
        constraint="",
        purpose="Enhanced Connection Establishment",
    ),
    Var(
        name="NCCL_IB_MERGE_NICS",
        type="bool01",
        default="1",
        constraint="",
        purpose="Merge dual-port NICs into one logical device",
    ),
    Var(
        name="NCCL_NET_MERGE_POLICY",
        type="enum",
        default="ALL",
        constraint="ALL RAIL",
        purpose="Which physical HCAs may be fused into one virtual NIC",
    ),
    Var(
        name="NCCL_NET_GDR_LEVEL",
        type="level",
        default="auto (PXB)",
        constraint="LOC PIX PXB PHB SYS NVB C2C P2C PXN",
        purpose="Largest GPU-NIC distance at which GPUDirect RDMA is used",
    ),
    Var(
        name="NCCL_NET_GDR_READ",
        type="bool01",
        default="auto",
        constraint="",
        purpose="Use GPUDirect RDMA for sends",
    ),
    Var(
        name="NCCL_NET_GDR_C2C",
        type="bool01",
        default="1",
        constraint="",
        purpose="Allow GDR through a C2C-attached CPU's NIC",
    ),
    Var(
        name="NCCL_NET_SHARED_BUFFERS",
        type="bool01",
        default="1",
        constraint="",
        purpose="Shared buffer pool for inter-node P2P",
    ),
    Var(
        name="NCCL_NET_SHARED_COMMS",
        type="bool01",
        default="1",
        constraint="",
        purpose="Reuse connections under PXN",
    ),
    Var(
        name="NCCL_IGNORE_NET_MISMATCH",
        type="bool01",
        default="1",
        constraint="",
        purpose="0 = fail init when ranks see different numbers of NICs",
    ),
    Var(
        name="NCCL_IGNORE_COLLNET_MISMATCH",
        type="bool01",
        default="0",
        constraint="",
        purpose="1 = tolerate different CollNet device counts",
    ),
    Var(
        name="NCCL_OOB_NET_ENABLE",
        type="bool01",
        default="0",
        constraint="",
        purpose="Use the NCCL net for the init allgather",
    ),
    Var(
        name="NCCL_OOB_NET_IFNAME",
        type="iflist",
        default="unset",
        constraint="",
        purpose="Devices for out-of-band traffic when NCCL_OOB_NET_ENABLE=1",
    ),
    Var(
        name="NCCL_UID_STAGGER_THRESHOLD",
        type="int",
        default="256",
        constraint="1..",
        purpose="Ranks per uniqueId above which contacts to the root are staggered",
    ),
    Var(
        name="NCCL_UID_STAGGER_RATE",
        type="int",
        default="7000",
        constraint="1..",
        purpose="Message rate (msgs/s) when staggering",
    ),
    Var(
        name="NCCL_NET",
        type="string",
        default="automatic",
        constraint="",
        purpose="Force a network module: IB, Socket or a plugin",
    ),
    Var(
        name="NCCL_NET_PLUGIN",
        type="string",
        default="libnccl-net.so",
        constraint="",
        purpose="Net plugin: path, suffix or none",
    ),
    Var(
        name="NCCL_TUNER_PLUGIN",
        type="string",
        default="libnccl-tuner.so",
        constraint="",
        purpose="Tuner plugin: path, suffix or none",
    ),
    Var(
        name="NCCL_PROFILER_PLUGIN",
        type="string",
        default="libnccl-profiler.so",
        constraint="",
        purpose="Profiler plugin: path, suffix, none or STATIC_PLUGIN",
    ),
    Var(
        name="NCCL_ENV_PLUGIN",
        type="string",
        default="libnccl-env.so",
        constraint="",
        purpose="Plugin that supplies NCCL variable values",
    ),
    Var(
        name="NCCL_IGNORE_CPU_AFFINITY",
        type="bool01",
        default="0",
        constraint="",
        purpose="Ignore the job's CPU mask and use GPU affinity only",
    ),
    Var(
        name="NCCL_CONF_FILE",
        type="path",
        default="$HOME/.nccl.conf",
        constraint="",
        purpose="Alternate NCCL config file (no ~ expansion)",
    ),
    Var(
        name="NCCL_TOPO_FILE",
        type="path",
        default="nvidia-topologyd virtualTopology.xml if present",
        constraint="",
        purpose="Topology XML loaded before detection",
    ),
    Var(
        name="NCCL_TOPO_DUMP_FILE",
        type="path",
        default="unset",
        constraint="",
        purpose="Write the detected topology XML here",
    ),
    Var(
        name="NCCL_COLLNET_ENABLE",
        type="bool01",
        default="0",
        constraint="",
        purpose="Use the CollNet (e.g. SHARP) plugin",
    ),
    Var(
        name="NCCL_COLLNET_NODE_THRESHOLD",
        type="int",
        default="2",
        constraint="1..",
        purpose="Minimum nodes before CollNet is used",
    ),
    Var(
        name="NCCL_CTA_POLICY",
        type="flags",
        default="DEFAULT",
        constraint="DEFAULT EFFICIENCY ZERO 0 1 2",
        purpose="Communicator CTA policy (words combined with |)",
    ),
    Var(
        name="NCCL_NETDEVS_POLICY",
        type="netdevs",
        default="AUTO",
        constraint="AUTO ALL MAX:N",
        purpose="How NICs are assigned to GPUs",
    ),
    Var(
        name="NCCL_MULTI_RANK_GPU_ENABLE",
        type="bool01",
        default="0",
        constraint="",
        purpose="Allow several ranks on one GPU (experimental)",
    ),
    Var(
        name="NCCL_SET_THREAD_NAME",
        type="bool01",
        default="0",
        constraint="",
        purpose="Name NCCL's CPU threads",
    ),
    Var(
        name="NCCL_COMM_ID",
        type="hostport",
        default="unset (random uniqueId port)",
        constraint="",
        purpose="Fixed bootstrap root address host:port",
    ),
    Var(
        name="NCCL_HOSTID",
        type="string",
        default="host hash from boot id",
        constraint="",
        purpose="Override the per-host identity (e.g. to separate containers)",
    ),
    Var(
        name="NCCL_DEBUG",
        type="enum",
        default="unset (no output)",
        constraint="VERSION WARN INFO TRACE ABORT",
        purpose="NCCL log level",
    ),
    Var(
        name="NCCL_DEBUG_FILE",
        type="path-template",
        default="stdout",
        constraint="",
        purpose="NCCL log file (%h host, %p pid); only used when NCCL_DEBUG >= WARN",
    ),
    Var(
        name="NCCL_DEBUG_SUBSYS",
        type="wordlist",
        default="INIT,BOOTSTRAP,ENV",
        constraint="INIT COLL P2P SHM NET GRAPH TUNING ENV ALLOC ALLOC_HOST CALL PROXY NVLS "
        "BOOTSTRAP REG PROFILE RAS DESTROY ALL",
        purpose="Subsystems whose INFO lines are printed",
    ),
    Var(
        name="NCCL_DEBUG_TIMESTAMP_FORMAT",
        type="string",
        default="[%F %T] ",
        constraint="",
        purpose="strftime format of log stamps",
    ),
    Var(
        name="NCCL_DEBUG_TIMESTAMP_LEVELS",
        type="wordlist",
        default="WARN",
        constraint="VERSION WARN INFO ABORT TRACE ALL",
        purpose="Log levels that get timestamps",
    ),
    Var(
        name="NCCL_P2P_DISABLE",
        type="bool01",
        default="0",
        constraint="",
        purpose="Disable the P2P (NVLink/PCIe peer) transport",
    ),
    Var(
        name="NCCL_P2P_LEVEL",
        type="level",
        default="auto",
        constraint="LOC NVL PIX PXB PHB SYS NVB C2C P2C PXN",
        purpose="Largest GPU-GPU distance at which P2P is used",
    ),
    Var(
        name="NCCL_P2P_DIRECT_DISABLE",
        type="bool01",
        default="0",
        constraint="",
        purpose="Forbid direct access to other GPUs' user buffers in one process",
    ),
    Var(
        name="NCCL_SHM_DISABLE",
        type="bool01",
        default="0",
        constraint="",
        purpose="Disable the shared-memory transport",
    ),
    Var(
        name="NCCL_BUFFSIZE",
        type="size",
        default="4194304",
        constraint="1..",
        purpose="Simple-protocol buffer per peer/channel, bytes",
    ),
    Var(
        name="NCCL_NTHREADS",
        type="int",
        default="512 (256 on some older GPUs)",
        constraint="64..512/32",
        purpose="CUDA threads per NCCL block",
    ),
    Var(
        name="NCCL_MAX_NCHANNELS",
        type="int",
        default="64",
        constraint="1..64",
        purpose="Upper bound on channels (CUDA blocks)",
    ),
    Var(
        name="NCCL_MIN_NCHANNELS",
        type="int",
        default="platform dependent",
        constraint="0..64",
        purpose="Lower bound on channels",
    ),
    Var(
        name="NCCL_MAX_CTAS",
        type="int",
        default="unset",
        constraint="1..64",
        purpose="Maximum CTAs per collective",
    ),
    Var(
        name="NCCL_MIN_CTAS",
        type="int",
        default="unset",
        constraint="1..64",
        purpose="Minimum CTAs per collective",
    ),
    Var(
        name="NCCL_CHECK_POINTERS",
        type="bool01",
        default="0",
        constraint="",
        purpose="Check CUDA pointers on every call",
    ),
    Var(
        name="NCCL_CHECK_MODE",
        type="enum",
        default="DEFAULT",
        constraint="DEFAULT DEBUG_LOCAL DEBUG_GLOBAL",
        purpose="Argument checking mode",
    ),
    Var(
        name="NCCL_LAUNCH_MODE",
        type="enum",
        default="PARALLEL",
        constraint="PARALLEL GROUP",
        purpose="Kernel launch mode for multi-GPU processes",
    ),
    Var(
        name="NCCL_ALGO",
        type="algolist",
        default="automatic",
        constraint="Ring Tree CollNetDirect CollNetChain NVLS NVLSTree PAT",
        purpose="Allowed algorithms",
    ),
    Var(
        name="NCCL_PROTO",
        type="protolist",
        default="LL,LL128,Simple",
        constraint="LL LL128 Simple",
        purpose="Allowed protocols",
    ),
    Var(
        name="NCCL_NVB_DISABLE",
        type="bool01",
        default="0",
        constraint="",
        purpose="Disable NVLink relay through another GPU",
    ),
    Var(
        name="NCCL_PXN_DISABLE",
        type="bool01",
        default="0",
        constraint="",
        purpose="Disable PXN (remote NIC via NVLink)",
    ),
    Var(
        name="NCCL_P2P_PXN_LEVEL",
        type="enum",
        default="2",
        constraint="0 1 2",
        purpose="When PXN is used for send/recv",
    ),
    Var(
        name="NCCL_PXN_C2C",
        type="bool01",
        default="1",
        constraint="",
        purpose="Allow PXN via C2C and PCIe peers",
    ),
    Var(
        name="NCCL_RUNTIME_CONNECT",
        type="bool01",
        default="1",
        constraint="",
        purpose="Connect peers lazily at first use",
    ),
    Var(
        name="NCCL_GRAPH_REGISTER",
        type="bool01",
        default="1",
        constraint="",
        purpose="User-buffer registration under CUDA Graphs",
    ),
    Var(
        name="NCCL_LOCAL_REGISTER",
        type="bool01",
        default="1",
        constraint="",
        purpose="Buffer registration via ncclCommRegister",
    ),
    Var(
        name="NCCL_LEGACY_CUDA_REGISTER",
        type="bool01",
        default="0",
        constraint="",
        purpose="Allow registering cudaMalloc buffers",
    ),
    Var(
        name="NCCL_WIN_ENABLE",
        type="bool01",
        default="1",
        constraint="",
        purpose="Window (symmetric) memory registration",
    ),
    Var(
        name="NCCL_SET_STACK_SIZE",
        type="bool01",
        default="0",
        constraint="",
        purpose="Set the CUDA stack size to NCCL's maximum",
    ),
    Var(
        name="NCCL_GRAPH_MIXING_SUPPORT",
        type="bool01",
        default="1",
        constraint="",
        purpose="Support mixing graph-captured and eager NCCL calls",
    ),
    Var(
        name="NCCL_GRAPH_STREAM_ORDERING",
        type="bool01",
        default="1",
        constraint="",
        purpose="Keep NCCL's kernel serialisation during graph capture",
    ),
    Var(
        name="NCCL_DMABUF_ENABLE",
        type="bool01",
        default="1",
        constraint="",
        purpose="dma-buf GPUDirect RDMA registration",
    ),
    Var(
        name="NCCL_P2P_NET_CHUNKSIZE",
        type="size",
        default="131072",
        constraint="1..",
        purpose="Chunk size for network send/recv",
    ),
    Var(
        name="NCCL_P2P_LL_THRESHOLD",
        type="size",
        default="16384",
        constraint="0..",
        purpose="Largest P2P message sent with LL",
    ),
    Var(
        name="NCCL_ALLOC_P2P_NET_LL_BUFFERS",
        type="bool01",
        default="0",
        constraint="",
        purpose="Dedicated LL buffers for all network P2P peers",
    ),
    Var(
        name="NCCL_COMM_BLOCKING",
        type="bool01",
        default="unset (blocking)",
        constraint="",
        purpose="0 = nonblocking communicators",
    ),
    Var(
        name="NCCL_CGA_CLUSTER_SIZE",
        type="int",
        default="auto",
        constraint="0..8",
        purpose="Thread-block cluster size on sm90+",
    ),
    Var(
        name="NCCL_MEM_SYNC_DOMAIN",
        type="enum",
        default="1",
        constraint="0 1",
        purpose="Memory sync domain of NCCL kernels",
    ),
    Var(
        name="NCCL_CUMEM_ENABLE",
        type="bool01",
        default="auto",
        constraint="",
        purpose="Use cuMem* APIs for device memory",
    ),
    Var(
        name="NCCL_CUMEM_HOST_ENABLE",
        type="bool01",
        default="auto",
        constraint="",
        purpose="Use cuMem for host memory",
    ),
    Var(
        name="NCCL_NVLS_ENABLE",
        type="enum",
        default="2",
        constraint="0 1 2",
        purpose="NVLink SHARP (0 off, 1/2 on)",
    ),
    Var(
        name="NCCL_MNNVL_ENABLE",
        type="enum",
        default="2",
        constraint="0 1 2",
        purpose="Multi-node NVLink (0 off, 1 on, 2 auto)",
    ),
    Var(
        name="NCCL_MNNVL_UUID",
        type="int",
        default="unset",
        constraint="",
        purpose="Override the MNNVL UUID",
    ),
    Var(
        name="NCCL_MNNVL_CLIQUE_ID",
        type="int",
        default="unset",
        constraint="",
        purpose="Override the MNNVL clique id",
    ),
    Var(
        name="NCCL_RAS_ENABLE",
        type="bool01",
        default="1",
        constraint="",
        purpose="RAS health-query subsystem",
    ),
    Var(
        name="NCCL_RAS_ADDR",
        type="hostport",
        default="localhost:28028",
        constraint="",
        purpose="RAS listening socket",
    ),
    Var(
        name="NCCL_RAS_TIMEOUT_FACTOR",
        type="int",
        default="1",
        constraint="1..",
        purpose="Multiplier of all RAS timeouts",
    ),
    Var(
        name="NCCL_LAUNCH_ORDER_IMPLICIT",
        type="bool01",
        default="0",
        constraint="",
        purpose="Order ops of different communicators by host program order",
    ),
    Var(
        name="NCCL_LAUNCH_RACE_FATAL",
        type="bool01",
        default="1",
        constraint="",
        purpose="Fatal error when host threads race to launch on one device",
    ),
    Var(
        name="NCCL_IPC_USE_ABSTRACT_SOCKET",
        type="bool01",
        default="1",
        constraint="",
        purpose="Abstract Unix sockets for CUDA IPC handle exchange",
    ),
    Var(
        name="NCCL_SYM_GIN_KERNELS_ENABLE",
        type="bool01",
        default="1",
        constraint="",
        purpose="Symmetric kernels using GIN",
    ),
    Var(
        name="NCCL_LL_BUFFSIZE",
        type="size",
        default="auto",
        constraint="1..",
        purpose="LL protocol buffer size (undocumented)",
    ),
    Var(
        name="NCCL_LL128_BUFFSIZE",
        type="size",
        default="auto",
        constraint="1..",
        purpose="LL128 protocol buffer size (undocumented)",
    ),
    Var(
        name="NCCL_LL128_NTHREADS",
        type="int",
        default="640",
        constraint="160..640/32",
        purpose="Threads for LL128 (undocumented)",
    ),
)

# Appendix A, "read by the code but not documented": internal knobs. Those with a numeric
# default are NCCL_PARAM integers (a word would be read as 0); the rest are strings.
NCCL_INTERNAL_INT: tuple[str, ...] = (
    "NCCL_ALLGATHERV_ENABLE",
    "NCCL_CHUNK_SIZE",
    "NCCL_COMM_SHRINK_SHARE_RESOURCES",
    "NCCL_COMM_SPLIT_SHARE_RESOURCES",
    "NCCL_CONNECT_ROUND_MAX_PEERS",
    "NCCL_DEV_API_JIT",
    "NCCL_DISABLE_MEM_MANAGER",
    "NCCL_ELASTIC_BUFFER_REGISTER",
    "NCCL_ENABLE_VERSION_CHECK",
    "NCCL_GDAKI_USE_RELIABLE_DB",
    "NCCL_GDRCOPY_ENABLE",
    "NCCL_GDRCOPY_FIFO_ENABLE",
    "NCCL_GDRCOPY_FLUSH_ENABLE",
    "NCCL_GDRCOPY_SYNC_ENABLE",
    "NCCL_GDR_FLUSH_DISABLE",
    "NCCL_GIN_ENABLE",
    "NCCL_GIN_ERROR_QUERY_SEC",
    "NCCL_GIN_GDAKI_MAX_DEST_RD_ATOMIC",
    "NCCL_GIN_GDAKI_MAX_QP_RD_ATOMIC",
    "NCCL_GIN_GDAKI_NIC_HANDLER",
    "NCCL_GIN_GDAKI_QP_DEPTH",
    "NCCL_GIN_IB_TC",
    "NCCL_GIN_NCONNECTIONS",
    "NCCL_GIN_PLUGIN_REF_COUNT",
    "NCCL_GIN_PROXY_QUEUE_SIZE",
    "NCCL_GIN_TYPE",
    "NCCL_GRAPH_DUMP_FILE_RANK",
    "NCCL_GRAPH_HELPER_DISABLE",
    "NCCL_GROUP_CUDA_STREAM",
    "NCCL_IB_DATA_DIRECT",
    "NCCL_IB_DEVICE_PCI_ORDER",
    "NCCL_IB_MERGE_VFS",
    "NCCL_IB_MQP_RETRY_ALL",
    "NCCL_IB_MQP_RETRY_CNT",
    "NCCL_IB_MQP_RETRY_SLEEP_MSEC",
    "NCCL_IB_PKEY",
    "NCCL_IB_PREPOST_RECEIVE_WORK_REQUESTS",
    "NCCL_IB_QUERY_PORT_SPEED",
    "NCCL_IB_RECEIVER_SIDE_MATCHING_SCHEME",
    "NCCL_IB_RESILIENCY_PORT_FAILOVER",
    "NCCL_IB_RESILIENCY_PORT_FAILOVER_MAX_ATTEMPTS",
    "NCCL_IB_RESILIENCY_PORT_FAILOVER_PROBE_DELAY",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ACK_TIMEOUT",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_BATCH_INTERVAL",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_BATCH_SIZE",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_SEQUENCE_SIZE",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_TIMEOUT",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_ATTEMPTS_MAX",
    "NCCL_IB_RESILIENCY_PORT_RECOVERY_START_DELAY",
    "NCCL_IB_ROUTABLE_FLID_GID_INDEX",
    "NCCL_IB_SUBNET_AWARE_ROUTING",
    "NCCL_IB_SUBNET_PREFIX_LEN",
    "NCCL_IB_USE_INLINE",
    "NCCL_IB_WARN_RAIL_LOCAL",
    "NCCL_IGNORE_DISABLED_P2P",
    "NCCL_L1_SHARED_MEMORY_CARVEOUT",
    "NCCL_LL128_C2C",
    "NCCL_LSA_TEAM_SIZE",
    "NCCL_MAX_P2P_NCHANNELS",
    "NCCL_MIN_P2P_NCHANNELS",
    "NCCL_MLOPART_RDMA_ENABLE",
    "NCCL_MNNVL_CROSS_CLIQUE",
    "NCCL_MNNVL_RAIL_PER_HOST",
    "NCCL_MNNVL_SCATTER_NETS_ENABLE",
    "NCCL_MULTI_SEGMENT_REGISTER",
    "NCCL_NCHANNELS_PER_NET_PEER",
    "NCCL_NET_DISABLE_INTRA",
    "NCCL_NET_FORCE_FLUSH",
    "NCCL_NET_GDR_MLOPART",
    "NCCL_NET_OPTIONAL_RECV_COMPLETION",
    "NCCL_NET_OVERHEAD",
    "NCCL_NET_PLUGIN_REF_COUNT",
    "NCCL_NUM_RMA_CTX",
    "NCCL_NVB_PRECONNECT",
    "NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE",
    "NCCL_NVLSTREE_MAX_CHUNKSIZE",
    "NCCL_NVLS_CHUNKSIZE",
    "NCCL_NVLS_NCHANNELS",
    "NCCL_NVTX_DISABLE",
    "NCCL_P2P_EPOCH_ENABLE",
    "NCCL_P2P_MAX_PEERS",
    "NCCL_P2P_NVL_CHUNKSIZE",
    "NCCL_P2P_PCI_CHUNKSIZE",
    "NCCL_P2P_PER_CHANNEL_NET_BW",
    "NCCL_P2P_READ_ENABLE",
    "NCCL_P2P_SCHEDULE_GROUP_SIZE",
    "NCCL_P2P_USE_CUDA_MEMCPY",
    "NCCL_PAT_ENABLE",
    "NCCL_PROGRESS_APPENDOP_FREQ",
    "NCCL_PROXY_APPEND_BATCH_SIZE",
    "NCCL_PROXY_DUMP_SIGNAL",
    "NCCL_REPORT_CONNECT_PROGRESS",
    "NCCL_RMA_DISABLE",
    "NCCL_RMA_PLUGIN_REF_COUNT",
    "NCCL_RMA_PROXY_DUMP_SIGNAL",
    "NCCL_RMA_PROXY_QUEUE_SIZE",
    "NCCL_SET_CPU_STACK_SIZE",
    "NCCL_SHADOW_MEMPOOL_MAX_SIZE",
    "NCCL_SHM_LOCALITY",
    "NCCL_SINGLE_PROC_MEM_REG_ENABLE",
    "NCCL_SOCKET_INLINE",
    "NCCL_SOCKET_MIN_TASKSIZE",
    "NCCL_SOCKET_RCVBUF",
    "NCCL_SOCKET_SNDBUF",
    "NCCL_SYM_CE_THRESHOLD",
    "NCCL_SYM_CTAS",
    "NCCL_SYM_NOWIN_ENABLE",
    "NCCL_SYM_REUSE_SYSMEM_HANDLES",
    "NCCL_SYM_RS_GIN_CHUNK_SIZE",
    "NCCL_SYM_TMA_ENABLE",
    "NCCL_TOPO_DUMP_FILE_RANK",
    "NCCL_TOPO_SPLIT_MLOPART",
    "NCCL_UNPACK_DOUBLE_NCHANNELS",
    "NCCL_WIN_STRIDE",
    "NCCL_WORK_ARGS_BYTES",
    "NCCL_WORK_FIFO_BYTES",
)
NCCL_INTERNAL_STR: tuple[str, ...] = (
    "NCCL_GIN_CONNECTION_RAIL",
    "NCCL_GIN_PLUGIN",
    "NCCL_GRAPH_DUMP_FILE",
    "NCCL_GRAPH_FILE",
    "NCCL_IBVERBS_LIB",
    "NCCL_NET_FORCE_MERGE",
    "NCCL_NET_MERGE_LEVEL",
    "NCCL_NO_CACHE",
    "NCCL_PARAM_DUMP_ALL",
    "NCCL_PROXY_CPUSET",
    "NCCL_RMA_PLUGIN",
    "NCCL_SYM_KERNEL",
    "NCCL_THREAD_THRESHOLDS",
    "NCCL_WARN_ENABLE_DEBUG_INFO",
    "NCCL_TUNER_CONFIG_FILE",
)
# Names read by NCCL plugins, not by core NCCL: an unknown name under these prefixes is fine.
NCCL_PLUGIN_PREFIXES: tuple[str, ...] = ("NCCL_INSPECTOR_", "NCCL_PROFILE_", "NCCL_PROFILER_")

# --- PyTorch c10d / ProcessGroupNCCL / allocator (§2) ----------------------------------------
TORCH_ROWS: tuple[Var, ...] = (
    Var(
        name="TORCH_NCCL_ASYNC_ERROR_HANDLING",
        type="int",
        default="3 (torchrun injects 1 when unset)",
        constraint="0..3",
        purpose="What the watchdog does after a timeout: 0 nothing, 1 abort+kill, 2 abort, 3 kill",
    ),
    Var(
        name="TORCH_NCCL_BLOCKING_WAIT",
        type="bool-str",
        default="false",
        constraint="",
        purpose="work.wait() blocks until done or the PG timeout (no watchdog thread)",
    ),
    Var(
        name="TORCH_NCCL_DESYNC_DEBUG",
        type="bool-str",
        default="false",
        constraint="",
        purpose="On timeout, report which rank is out of sync",
    ),
    Var(
        name="TORCH_NCCL_ENABLE_TIMING",
        type="bool-str",
        default="false",
        constraint="",
        purpose="Time each collective with CUDA events",
    ),
    Var(
        name="TORCH_FR_BUFFER_SIZE",
        type="int",
        default="2000",
        constraint="0..",
        purpose="Flight-recorder entries (0 disables it)",
    ),
    Var(
        name="TORCH_NCCL_DUMP_ON_TIMEOUT",
        type="bool-str",
        default="true",
        constraint="",
        purpose="Dump flight-recorder data on timeout (needs buffer size > 0)",
    ),
    Var(
        name="TORCH_FR_DUMP_TEMP_FILE",
        type="path",
        default="~/.cache/torch/comm_lib_trace_rank_",
        constraint="",
        purpose="Prefix of flight-recorder dump files (rank appended)",
    ),
    Var(
        name="TORCH_NCCL_DEBUG_INFO_PIPE_FILE",
        type="path",
        default="unset",
        constraint="",
        purpose="Prefix of a pipe that triggers a flight-recorder dump when written",
    ),
    Var(
        name="TORCH_FR_CPP_STACK",
        type="bool-str",
        default="false",
        constraint="",
        purpose="Capture C++ stacks in flight-recorder entries",
    ),
    Var(
        name="TORCH_NCCL_ENABLE_MONITORING",
        type="bool-str",
        default="true",
        constraint="",
        purpose="Heartbeat monitor that kills the process when the watchdog is stuck",
    ),
    Var(
        name="TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC",
        type="int",
        default="480",
        constraint="1..",
        purpose="Watchdog heartbeat timeout before the monitor aborts the process, seconds",
    ),
    Var(
        name="TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC",
        type="int",
        default="15000",
        constraint="0..",
        purpose="Extra wait for the flight-recorder dump before exiting, ms",
    ),
    Var(
        name="TORCH_NCCL_COORD_CHECK_MILSEC",
        type="int",
        default="1000",
        constraint="1..",
        purpose="Monitor polling interval for cross-rank dump signals, ms",
    ),
    Var(
        name="TORCH_NCCL_USE_COMM_NONBLOCKING",
        type="bool-check",
        default="unset (blocking)",
        constraint="",
        purpose="Create NCCL communicators in nonblocking mode",
    ),
    Var(
        name="TORCH_NCCL_AVOID_RECORD_STREAMS",
        type="bool-str",
        default="always on since torch 2.7",
        constraint="",
        purpose="Stash tensors instead of recordStream (the only behaviour since 2.7)",
    ),
    Var(
        name="TORCH_NCCL_HIGH_PRIORITY",
        type="bool-str",
        default="false",
        constraint="",
        purpose="High-priority CUDA streams for NCCL",
    ),
    Var(
        name="TORCH_NCCL_NAN_CHECK",
        type="bool-str",
        default="false",
        constraint="",
        purpose="Check collective inputs for NaN",
    ),
    Var(
        name="TORCH_NCCL_CUDA_EVENT_CACHE",
        type="bool-str",
        default="true",
        constraint="",
        purpose="Reuse CUDA events in the watchdog",
    ),
    Var(
        name="TORCH_NCCL_RETHROW_CUDA_ERRORS",
        type="bool-str",
        default="true",
        constraint="",
        purpose="Re-raise CUDA errors seen by the watchdog",
    ),
    Var(
        name="TORCH_NCCL_LOG_CPP_STACK_ON_UNCLEAN_SHUTDOWN",
        type="bool-str",
        default="true",
        constraint="",
        purpose="Log the C++ stack on unclean shutdown",
    ),
    Var(
        name="TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK",
        type="bool-str",
        default="false",
        constraint="",
        purpose="Register every caching-allocator segment with all communicators",
    ),
    Var(
        name="TORCH_NCCL_BCAST_UNIQUEID",
        type="string",
        default="",
        constraint="",
        purpose="ProcessGroupNCCL uniqueId broadcast mode",
    ),
    Var(
        name="TORCH_NCCL_RANKS_PER_ROOT",
        type="string",
        default="",
        constraint="",
        purpose="Ranks per uniqueId root at init",
    ),
    Var(
        name="TORCH_NCCL_PROPAGATE_ERROR",
        type="string",
        default="",
        constraint="",
        purpose="Propagate errors across ranks",
    ),
    Var(
        name="TORCH_NCCL_EXTRA_DUMP_ON_EXEC",
        type="string",
        default="",
        constraint="",
        purpose="Extra flight-recorder dump on exception",
    ),
    Var(
        name="TORCH_NCCL_SHOW_EAGER_INIT_P2P_SERIALIZATION_WARNING",
        type="string",
        default="",
        constraint="",
        purpose="Warn about serialised P2P under eager init",
    ),
    Var(
        name="TORCH_NCCL_NONBLOCKING_TIMEOUT",
        type="string",
        default="",
        constraint="",
        purpose="Timeout for nonblocking communicators",
    ),
    Var(
        name="TORCH_FR_DUMP_DYNAMIC_FILE_NAME",
        type="string",
        default="",
        constraint="",
        purpose="Dynamic flight-recorder file names",
    ),
    Var(
        name="TORCH_INCLUDE_STACK_TRACE",
        type="string",
        default="",
        constraint="",
        purpose="Include stacks in flight-recorder dumps",
    ),
    Var(
        name="TORCH_INCLUDE_ONLY_ACTIVE",
        type="string",
        default="",
        constraint="",
        purpose="Dump only active flight-recorder entries",
    ),
    Var(
        name="TORCH_DIST_INIT_BARRIER",
        type="string",
        default="",
        constraint="",
        purpose="Barrier at the end of init_process_group",
    ),
    Var(
        name="TORCH_GLOO_LAZY_INIT",
        type="string",
        default="",
        constraint="",
        purpose="Connect gloo peers lazily",
    ),
    Var(
        name="GLOO_SOCKET_IFNAME",
        type="string",
        default="",
        constraint="",
        purpose="Interface gloo binds and connects on",
    ),
    Var(
        name="TORCH_SYMMMEM",
        type="string",
        default="",
        constraint="",
        purpose="Symmetric-memory backend selection",
    ),
    Var(
        name="TORCH_SYMM_MEM_DISABLE_MULTICAST",
        type="string",
        default="",
        constraint="",
        purpose="Disable multicast in symmetric memory",
    ),
    Var(
        name="TORCH_SYMM_MEM_ALLOW_OVERLAPPING_DEVICES",
        type="string",
        default="",
        constraint="",
        purpose="Allow overlapping devices in symmetric memory",
    ),
    Var(
        name="TORCH_DISABLE_SHARE_RDZV_TCP_STORE",
        type="string",
        default="",
        constraint="",
        purpose="1 = workers do not share torchrun's rendezvous TCPStore",
    ),
    Var(
        name="TORCH_ELASTIC_WORKER_IDENTICAL",
        type="string",
        default="",
        constraint="",
        purpose="Elastic agent: workers are identical",
    ),
    Var(
        name="TORCH_ELASTIC_SHUTDOWN_TIMEOUT",
        type="string",
        default="30",
        constraint="",
        purpose="Grace period before SIGKILL when torchrun stops workers, seconds",
    ),
    Var(
        name="USE_LIBUV",
        type="string",
        default="",
        constraint="",
        purpose="TCPStore uses the libuv backend",
    ),
    Var(
        name="TORCH_DISTRIBUTED_DEBUG",
        type="enum",
        default="OFF",
        constraint="OFF INFO DETAIL",
        purpose="Extra c10d/DDP checks and logging (DETAIL is costly)",
    ),
    Var(
        name="TORCH_CPP_LOG_LEVEL",
        type="enum",
        default="WARNING",
        constraint="INFO WARNING ERROR FATAL 0 1 2 3",
        purpose="Threshold of C++ (c10/c10d) log messages",
    ),
    Var(
        name="TORCH_SHOW_CPP_STACKTRACES",
        type="bool-check",
        default="0",
        constraint="",
        purpose="Append C++ stack traces to Python exceptions",
    ),
    Var(
        name="PYTORCH_CUDA_ALLOC_CONF",
        type="alloc-conf",
        default="unset",
        constraint="",
        purpose="CUDA caching-allocator settings",
    ),
    Var(
        name="PYTORCH_ALLOC_CONF",
        type="alloc-conf",
        default="unset",
        constraint="",
        purpose="Device-neutral allocator settings",
    ),
    Var(
        name="PYTORCH_HIP_ALLOC_CONF",
        type="alloc-conf",
        default="unset",
        constraint="",
        purpose="ROCm caching-allocator settings",
    ),
    Var(
        name="PYTORCH_NO_CUDA_MEMORY_CACHING",
        type="string",
        default="unset",
        constraint="",
        purpose="Disable the CUDA caching allocator (debugging)",
    ),
)
# Keys of PYTORCH_*ALLOC_CONF known to torch 2.13/2.14 (c10 AllocatorConfig.h,
# CUDAAllocatorConfig.h). torch rejects an unknown key at the first CUDA allocation.
ALLOC_CONF_KEYS: tuple[str, ...] = (
    "max_split_size_mb",
    "max_non_split_rounding_mb",
    "garbage_collection_threshold",
    "roundup_power2_divisions",
    "expandable_segments",
    "large_segment_size_mb",
    "pinned_use_background_threads",
    "pinned_max_round_threshold",
    "backend",
    "release_lock_on_cudamalloc",
    "pinned_use_cuda_host_register",
    "release_lock_on_hipmalloc",
    "pinned_use_hip_host_register",
    "graph_capture_record_stream_reuse",
    "pinned_reserve_segment_size_mb",
    "pinned_num_register_threads",
    "per_process_memory_fraction",
    "pinned_free_catch_all",
    "throw_on_cudamalloc_oom",
)

# --- torchrun (§3): worker variables it sets, inputs it reads --------------------------------
TORCHRUN_ROWS: tuple[Var, ...] = (
    Var(
        name="LOCAL_RANK",
        type="int",
        default="set by the launcher",
        constraint="0..",
        purpose="Rank within the node",
    ),
    Var(
        name="RANK",
        type="int",
        default="set by the launcher",
        constraint="0..",
        purpose="Global rank",
    ),
    Var(
        name="WORLD_SIZE",
        type="int",
        default="set by the launcher",
        constraint="1..",
        purpose="Total number of processes",
    ),
    Var(
        name="LOCAL_WORLD_SIZE",
        type="int",
        default="set by torchrun",
        constraint="1..",
        purpose="Processes on this node",
    ),
    Var(
        name="GROUP_RANK",
        type="int",
        default="set by torchrun",
        constraint="0..",
        purpose="Rank of this node's worker group",
    ),
    Var(
        name="GROUP_WORLD_SIZE",
        type="int",
        default="set by torchrun",
        constraint="1..",
        purpose="Number of worker groups (nodes)",
    ),
    Var(
        name="ROLE_RANK",
        type="int",
        default="set by torchrun",
        constraint="0..",
        purpose="Rank among workers with the same role",
    ),
    Var(
        name="ROLE_WORLD_SIZE",
        type="int",
        default="set by torchrun",
        constraint="1..",
        purpose="Workers with the same role",
    ),
    Var(
        name="ROLE_NAME", type="string", default="default", constraint="", purpose="Value of --role"
    ),
    Var(
        name="MASTER_ADDR",
        type="string",
        default="127.0.0.1",
        constraint="",
        purpose="Host of the store the ranks rendezvous on",
    ),
    Var(
        name="MASTER_PORT",
        type="int",
        default="29500",
        constraint="1..65535",
        purpose="Port of the store the ranks rendezvous on",
    ),
    Var(
        name="TORCHELASTIC_RESTART_COUNT",
        type="int",
        default="0",
        constraint="0..",
        purpose="Restarts of the worker group so far",
    ),
    Var(
        name="TORCHELASTIC_MAX_RESTARTS",
        type="int",
        default="0",
        constraint="0..",
        purpose="Value of --max-restarts",
    ),
    Var(
        name="TORCHELASTIC_RUN_ID",
        type="string",
        default="none",
        constraint="",
        purpose="Value of --rdzv-id",
    ),
    Var(
        name="TORCHELASTIC_USE_AGENT_STORE",
        type="string",
        default="True/False",
        constraint="",
        purpose="Workers connect to the agent's store",
    ),
    Var(
        name="TORCHELASTIC_ERROR_FILE",
        type="path",
        default="per worker under --log-dir",
        constraint="",
        purpose="Where @record writes the failure reason",
    ),
    Var(
        name="TORCHELASTIC_ENABLE_FILE_TIMER",
        type="string",
        default="unset",
        constraint="",
        purpose="Enable the file-based timer",
    ),
    Var(
        name="TORCHELASTIC_TIMER_FILE",
        type="path",
        default="unset",
        constraint="",
        purpose="Path of the file-based timer",
    ),
    Var(
        name="TORCHELASTIC_HEALTH_CHECK_PORT",
        type="int",
        default="unset",
        constraint="1..65535",
        purpose="Agent health-check port",
    ),
    Var(
        name="TORCHELASTIC_SIGNALS_TO_HANDLE",
        type="string",
        default="SIGTERM,SIGINT,SIGHUP,SIGQUIT",
        constraint="",
        purpose="Signals torchrun forwards to workers",
    ),
    Var(
        name="TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE",
        type="string",
        default="",
        constraint="",
        purpose="Prefix of worker log lines",
    ),
    Var(
        name="PYTHON_EXEC",
        type="path",
        default="sys.executable",
        constraint="",
        purpose="Interpreter torchrun uses for workers",
    ),
    Var(
        name="LOGLEVEL",
        type="enum-cs",
        default="WARNING",  # elastic/utils/logging.py get_log_level()
        constraint="CRITICAL FATAL ERROR WARN WARNING INFO DEBUG NOTSET",
        purpose="Log level of the torchrun agent (logging.setLevel: upper-case names only)",
    ),
    Var(
        name="PET_NNODES",
        type="nnodes",
        default="1:1",
        constraint="",
        purpose="--nnodes: N or MIN:MAX",
    ),
    Var(
        name="PET_NPROC_PER_NODE",
        type="nproc",
        default="1",
        constraint="",
        purpose="--nproc-per-node: integer, gpu, cpu, auto...",
    ),
    Var(
        name="PET_NODE_RANK",
        type="int",
        default="0",
        constraint="0..",
        purpose="--node-rank (static backend only)",
    ),
    Var(
        name="PET_MASTER_ADDR",
        type="string",
        default="127.0.0.1",
        constraint="",
        purpose="--master-addr (static backend only)",
    ),
    Var(
        name="PET_MASTER_PORT",
        type="int",
        default="29500",
        constraint="1..65535",
        purpose="--master-port (static backend only)",
    ),
    Var(
        name="PET_RDZV_BACKEND",
        type="string",
        default="static",
        constraint="",
        purpose="--rdzv-backend: static, c10d, etcd, etcd-v2",
    ),
    Var(
        name="PET_RDZV_ENDPOINT",
        type="string",
        default="",
        constraint="",
        purpose="--rdzv-endpoint host[:port]",
    ),
    Var(
        name="PET_RDZV_ID",
        type="string",
        default="none",
        constraint="",
        purpose="--rdzv-id shared by all nodes",
    ),
    Var(
        name="PET_RDZV_CONF",
        type="string",
        default="",
        constraint="",
        purpose="--rdzv-conf k=v,k=v (rendezvous timeouts live here)",
    ),
    Var(
        name="PET_MAX_RESTARTS", type="int", default="0", constraint="0..", purpose="--max-restarts"
    ),
    Var(
        name="PET_MONITOR_INTERVAL",
        type="float",
        default="0.1",
        constraint="",
        purpose="--monitor-interval, seconds",
    ),
    Var(
        name="PET_START_METHOD",
        type="enum-cs",
        default="spawn",
        constraint="spawn fork forkserver",
        purpose="--start-method",
    ),
    Var(name="PET_ROLE", type="string", default="default", constraint="", purpose="--role"),
    Var(
        name="PET_STANDALONE",
        type="int-flag",
        default="0",
        constraint="",
        purpose="--standalone (integer string)",
    ),
    Var(
        name="PET_MODULE",
        type="int-flag",
        default="0",
        constraint="",
        purpose="-m/--module (integer string)",
    ),
    Var(
        name="PET_NO_PYTHON",
        type="int-flag",
        default="0",
        constraint="",
        purpose="--no-python (integer string)",
    ),
    Var(
        name="PET_RUN_PATH",
        type="int-flag",
        default="0",
        constraint="",
        purpose="--run-path (integer string)",
    ),
    Var(
        name="PET_VIRTUAL_LOCAL_RANK",
        type="int-flag",
        default="0",
        constraint="",
        purpose="--virtual-local-rank (integer string)",
    ),
    Var(name="PET_LOG_DIR", type="path", default="temp dir", constraint="", purpose="--log-dir"),
    Var(name="PET_REDIRECTS", type="string", default="0", constraint="", purpose="--redirects"),
    Var(name="PET_TEE", type="string", default="0", constraint="", purpose="--tee"),
    Var(
        name="PET_LOCAL_ADDR", type="string", default="unset", constraint="", purpose="--local-addr"
    ),
    Var(
        name="PET_LOCAL_RANKS_FILTER",
        type="string",
        default="",
        constraint="",
        purpose="--local-ranks-filter",
    ),
    Var(
        name="PET_LOG_LINE_PREFIX_TEMPLATE",
        type="string",
        default="",
        constraint="",
        purpose="--log-line-prefix-template",
    ),
    Var(
        name="PET_EVENT_LOG_HANDLER",
        type="string",
        default="null",
        constraint="",
        purpose="--event-log-handler",
    ),
    Var(
        name="PET_SIGNALS_TO_HANDLE",
        type="string",
        default="SIGTERM,SIGINT,SIGHUP,SIGQUIT",
        constraint="",
        purpose="--signals-to-handle",
    ),
    Var(
        name="PET_SHUTDOWN_TIMEOUT",
        type="string",
        default="30",
        constraint="",
        purpose="--shutdown-timeout",
    ),
    Var(
        name="PET_DUPLICATE_STDOUT_FILTERS",
        type="string",
        default="",
        constraint="",
        purpose="--duplicate-stdout-filters",
    ),
    Var(
        name="PET_DUPLICATE_STDERR_FILTERS",
        type="string",
        default="",
        constraint="",
        purpose="--duplicate-stderr-filters",
    ),
)

# --- CUDA driver/runtime and OpenMP -----------------------------------------------------------
CUDA_ROWS: tuple[Var, ...] = (
    Var(
        name="CUDA_VISIBLE_DEVICES",
        type="cuda-devices",
        default="all GPUs",
        constraint="",
        purpose="GPUs this process may use (indices or GPU-/MIG- UUIDs)",
    ),
    Var(
        name="CUDA_LAUNCH_BLOCKING",
        type="bool01",
        default="0",
        constraint="",
        purpose="Make every kernel launch synchronous (debugging only)",
    ),
    Var(
        name="CUDA_DEVICE_MAX_CONNECTIONS",
        type="int",
        default="8",
        constraint="1..32",
        purpose="Hardware work queues per context (Megatron/TE want 1)",
    ),
    Var(
        name="CUDA_DEVICE_ORDER",
        type="enum-cs",
        default="FASTEST_FIRST",
        constraint="FASTEST_FIRST PCI_BUS_ID",
        purpose="How CUDA numbers devices",
    ),
    Var(
        name="CUDA_MODULE_LOADING",
        type="string",
        default="LAZY",
        constraint="",
        purpose="Lazy or eager CUDA module loading",
    ),
)
OMP_ROWS: tuple[Var, ...] = (
    Var(
        name="OMP_NUM_THREADS",
        type="intlist",
        default="all cores (torchrun sets 1 with nproc > 1)",
        constraint="1..",
        purpose="CPU threads per process for OpenMP / intra-op work",
    ),
    Var(
        name="MKL_NUM_THREADS",
        type="int",
        default="OMP_NUM_THREADS",
        constraint="1..",
        purpose="Threads of MKL calls",
    ),
    Var(
        name="OMP_PROC_BIND",
        type="string",
        default="unset",
        constraint="",
        purpose="OpenMP thread binding",
    ),
    Var(
        name="OMP_PLACES",
        type="string",
        default="unset",
        constraint="",
        purpose="OpenMP thread places",
    ),
    Var(
        name="KMP_AFFINITY",
        type="string",
        default="unset",
        constraint="",
        purpose="Intel OpenMP affinity",
    ),
)

# --- Slurm output variables (§4): set by Slurm, read by launchx detection ---------------------
SLURM_ROWS: tuple[Var, ...] = (
    Var(name="SLURM_JOB_ID", type="string", default="", constraint="", purpose="Job id"),
    Var(
        name="SLURM_JOBID", type="string", default="", constraint="", purpose="Job id (legacy name)"
    ),
    Var(
        name="SLURM_STEP_ID",
        type="string",
        default="",
        constraint="",
        purpose="Step id (0, 1, ... per srun)",
    ),
    Var(
        name="SLURM_STEPID",
        type="string",
        default="",
        constraint="",
        purpose="Step id (legacy name)",
    ),
    Var(name="SLURM_PROCID", type="int", default="", constraint="0..", purpose="Global task rank"),
    Var(
        name="SLURM_LOCALID",
        type="int",
        default="",
        constraint="0..",
        purpose="Task index on this node",
    ),
    Var(
        name="SLURM_NODEID",
        type="int",
        default="",
        constraint="0..",
        purpose="Index of this node in the job/step",
    ),
    Var(
        name="SLURM_NTASKS",
        type="int",
        default="",
        constraint="1..",
        purpose="Tasks in the job/step (also an srun input!)",
    ),
    Var(
        name="SLURM_NPROCS", type="int", default="", constraint="1..", purpose="Tasks (legacy name)"
    ),
    Var(
        name="SLURM_NTASKS_PER_NODE",
        type="string",
        default="",
        constraint="",
        purpose="--ntasks-per-node, only when given",
    ),
    Var(
        name="SLURM_TASKS_PER_NODE",
        type="string",
        default="",
        constraint="",
        purpose="Tasks per node, compressed: 2(x3),1",
    ),
    Var(
        name="SLURM_JOB_CPUS_PER_NODE",
        type="string",
        default="",
        constraint="",
        purpose="CPUs per node, compressed",
    ),
    Var(
        name="SLURM_NNODES",
        type="int",
        default="",
        constraint="1..",
        purpose="Nodes in the allocation (legacy name)",
    ),
    Var(
        name="SLURM_JOB_NUM_NODES",
        type="int",
        default="",
        constraint="1..",
        purpose="Nodes in the allocation",
    ),
    Var(
        name="SLURM_STEP_NUM_NODES",
        type="int",
        default="",
        constraint="1..",
        purpose="Nodes in the step",
    ),
    Var(
        name="SLURM_JOB_NODELIST",
        type="string",
        default="",
        constraint="",
        purpose="Compressed hostlist of the allocation",
    ),
    Var(
        name="SLURM_NODELIST",
        type="string",
        default="",
        constraint="",
        purpose="Compressed hostlist (legacy name)",
    ),
    Var(
        name="SLURM_STEP_NODELIST",
        type="string",
        default="",
        constraint="",
        purpose="Compressed hostlist of the step",
    ),
    Var(
        name="SLURM_GPUS_ON_NODE",
        type="int",
        default="",
        constraint="0..",
        purpose="GPUs allocated to the step on this node",
    ),
    Var(
        name="SLURM_JOB_GPUS",
        type="string",
        default="",
        constraint="",
        purpose="Global GPU ids of the job",
    ),
    Var(
        name="SLURM_STEP_GPUS",
        type="string",
        default="",
        constraint="",
        purpose="Global GPU ids of the step",
    ),
    Var(
        name="SLURM_GPUS_PER_NODE",
        type="string",
        default="",
        constraint="",
        purpose="--gpus-per-node, only when given",
    ),
    Var(
        name="SLURM_GPUS",
        type="string",
        default="",
        constraint="",
        purpose="-G/--gpus, only when given",
    ),
    Var(
        name="SLURM_CPUS_PER_GPU",
        type="string",
        default="",
        constraint="",
        purpose="--cpus-per-gpu, only when given",
    ),
    Var(
        name="SLURM_CPUS_PER_TASK",
        type="int",
        default="",
        constraint="1..",
        purpose="-c/--cpus-per-task, only when given",
    ),
    Var(
        name="SRUN_CPUS_PER_TASK",
        type="int",
        default="",
        constraint="1..",
        purpose="srun input for --cpus-per-task (22.05/23.02)",
    ),
    Var(
        name="SLURM_CPUS_ON_NODE",
        type="int",
        default="",
        constraint="1..",
        purpose="CPUs allocated to the step on this node",
    ),
    Var(
        name="SLURM_SUBMIT_DIR",
        type="path",
        default="",
        constraint="",
        purpose="Directory the job was submitted from",
    ),
    Var(
        name="SLURM_SUBMIT_HOST",
        type="string",
        default="",
        constraint="",
        purpose="Host the job was submitted from",
    ),
    Var(
        name="SLURM_RESTART_COUNT",
        type="int",
        default="0",
        constraint="0..",
        purpose="Times the job was requeued/restarted",
    ),
    Var(
        name="SLURM_STEP_NUM_TASKS",
        type="int",
        default="",
        constraint="1..",
        purpose="Tasks in the srun step",
    ),
    Var(
        name="SLURM_STEP_TASKS_PER_NODE",
        type="string",
        default="",
        constraint="",
        purpose="Tasks per node of the step",
    ),
    Var(
        name="SLURM_SRUN_COMM_HOST",
        type="string",
        default="",
        constraint="",
        purpose="srun communication host (srun tasks only)",
    ),
    Var(
        name="SLURM_SRUN_COMM_PORT",
        type="string",
        default="",
        constraint="",
        purpose="srun communication port (srun tasks only)",
    ),
    Var(
        name="SLURM_LAUNCH_NODE_IPADDR",
        type="string",
        default="",
        constraint="",
        purpose="IP of the node srun ran on",
    ),
    Var(
        name="SLURM_STEP_LAUNCHER_PORT",
        type="string",
        default="",
        constraint="",
        purpose="srun launcher port",
    ),
    Var(name="SLURM_TASK_PID", type="int", default="", constraint="0..", purpose="PID of the task"),
    Var(
        name="SLURMD_NODENAME",
        type="string",
        default="",
        constraint="",
        purpose="Name of the node running this task",
    ),
    Var(
        name="SLURM_ARRAY_JOB_ID",
        type="string",
        default="",
        constraint="",
        purpose="Job-array master id",
    ),
    Var(
        name="SLURM_ARRAY_TASK_ID",
        type="string",
        default="",
        constraint="",
        purpose="Job-array task id",
    ),
)

# --- Other launchers and platforms (§5) -------------------------------------------------------
PLATFORM_ROWS: tuple[Var, ...] = (
    Var(
        name="OMPI_COMM_WORLD_SIZE",
        type="int",
        default="",
        constraint="1..",
        purpose="Open MPI: number of ranks",
    ),
    Var(
        name="OMPI_COMM_WORLD_RANK",
        type="int",
        default="",
        constraint="0..",
        purpose="Open MPI: rank",
    ),
    Var(
        name="OMPI_COMM_WORLD_LOCAL_SIZE",
        type="int",
        default="",
        constraint="1..",
        purpose="Open MPI: ranks on this node",
    ),
    Var(
        name="OMPI_COMM_WORLD_LOCAL_RANK",
        type="int",
        default="",
        constraint="0..",
        purpose="Open MPI: rank on this node",
    ),
    Var(
        name="OMPI_COMM_WORLD_NODE_RANK",
        type="int",
        default="",
        constraint="0..",
        purpose="Open MPI: rank on node across jobs",
    ),
    Var(
        name="OMPI_UNIVERSE_SIZE",
        type="int",
        default="",
        constraint="1..",
        purpose="Open MPI: slots",
    ),
    Var(name="PMIX_RANK", type="int", default="", constraint="0..", purpose="PMIx rank"),
    Var(name="PMIX_NAMESPACE", type="string", default="", constraint="", purpose="PMIx namespace"),
    Var(name="PMI_RANK", type="int", default="", constraint="0..", purpose="MPICH/Intel MPI rank"),
    Var(name="PMI_SIZE", type="int", default="", constraint="1..", purpose="MPICH/Intel MPI size"),
    Var(
        name="PMI_FD", type="string", default="", constraint="", purpose="MPICH PMI file descriptor"
    ),
    Var(name="PMI_PORT", type="string", default="", constraint="", purpose="MPICH PMI port"),
    Var(name="PMI_ID", type="string", default="", constraint="", purpose="MPICH PMI id"),
    Var(
        name="MPI_LOCALRANKID",
        type="int",
        default="",
        constraint="0..",
        purpose="MPICH/Intel MPI rank on this node",
    ),
    Var(
        name="MPI_LOCALNRANKS",
        type="int",
        default="",
        constraint="1..",
        purpose="MPICH/Intel MPI ranks on this node",
    ),
    Var(
        name="MV2_COMM_WORLD_RANK",
        type="int",
        default="",
        constraint="0..",
        purpose="MVAPICH2 rank",
    ),
    Var(
        name="MV2_COMM_WORLD_SIZE",
        type="int",
        default="",
        constraint="1..",
        purpose="MVAPICH2 size",
    ),
    Var(
        name="MV2_COMM_WORLD_LOCAL_RANK",
        type="int",
        default="",
        constraint="0..",
        purpose="MVAPICH2 rank on this node",
    ),
    Var(
        name="MV2_COMM_WORLD_LOCAL_SIZE",
        type="int",
        default="",
        constraint="1..",
        purpose="MVAPICH2 ranks on this node",
    ),
    Var(
        name="CROSS_RANK",
        type="int",
        default="",
        constraint="0..",
        purpose="DeepSpeed launcher: node rank",
    ),
    Var(
        name="CROSS_SIZE",
        type="int",
        default="",
        constraint="1..",
        purpose="DeepSpeed launcher: number of nodes",
    ),
    Var(
        name="LOCAL_SIZE",
        type="int",
        default="",
        constraint="1..",
        purpose="DeepSpeed launcher: processes on this node",
    ),
    Var(
        name="NPROC_PER_NODE",
        type="int",
        default="",
        constraint="1..",
        purpose="PAI-DLC: processes per node",
    ),
    Var(
        name="SM_HOSTS",
        type="string",
        default="",
        constraint="",
        purpose="SageMaker: JSON list of hosts",
    ),
    Var(
        name="SM_CURRENT_HOST",
        type="string",
        default="",
        constraint="",
        purpose="SageMaker: this host",
    ),
    Var(
        name="SM_NUM_GPUS",
        type="int",
        default="",
        constraint="0..",
        purpose="SageMaker: GPUs on this host",
    ),
    Var(
        name="SM_NUM_CPUS",
        type="int",
        default="",
        constraint="1..",
        purpose="SageMaker: CPUs on this host",
    ),
    Var(
        name="SM_NETWORK_INTERFACE_NAME",
        type="string",
        default="",
        constraint="",
        purpose="SageMaker: network interface",
    ),
    Var(
        name="NVIDIA_VISIBLE_DEVICES",
        type="string",
        default="",
        constraint="",
        purpose="Container runtime: GPUs passed in",
    ),
    Var(
        name="ACCELERATE_MIXED_PRECISION",
        type="string",
        default="",
        constraint="",
        purpose="accelerate launch: mixed precision",
    ),
    Var(
        name="ACCELERATE_USE_FSDP",
        type="string",
        default="",
        constraint="",
        purpose="accelerate launch: FSDP on",
    ),
    Var(
        name="ACCELERATE_USE_DEEPSPEED",
        type="string",
        default="",
        constraint="",
        purpose="accelerate launch: DeepSpeed on",
    ),
)

# --- launchx's own contract (DESIGN.md) -------------------------------------------------------
LAUNCHX_ROWS: tuple[Var, ...] = (
    Var(
        name="LAUNCHX_RUN_ID",
        type="string",
        default="generated",
        constraint="",
        purpose="One id for the whole run, all nodes/attempts",
    ),
    Var(
        name="LAUNCHX_ATTEMPT",
        type="int",
        default="0",
        constraint="0..",
        purpose="Attempt number: 0, then 1, 2, ...",
    ),
    Var(
        name="LAUNCHX_RESUME_FROM",
        type="abspath",
        default="unset",
        constraint="",
        purpose="Newest complete checkpoint found before this attempt",
    ),
    Var(
        name="LAUNCHX_CHECKPOINT_DIR",
        type="abspath",
        default="unset",
        constraint="",
        purpose="Where launchx looks for checkpoints (--checkpoint-dir): write them there",
    ),
    Var(
        name="LAUNCHX_CHANNEL_TOKEN",
        type="string",
        default="unset",
        constraint="",
        purpose="Secret the nodes share to sign launchx's messages between them",
    ),
    Var(
        name="LAUNCHX_PROFILE",
        type="string",
        default="local",
        constraint="",
        purpose="Name of the profile in use",
    ),
    Var(
        name="LAUNCHX_PG_TIMEOUT_S",
        type="int",
        default="profile timeout",
        constraint="1..",
        purpose="Read by init_distributed only (launchx.runtime; HF, Lightning, nanoGPT ignore "
        "it): init_process_group's timeout (s)",
    ),
    Var(
        name="LAUNCHX_PROFILE_PATH",
        type="string",
        default="unset",
        constraint="",
        purpose="Extra directories searched for profiles",
    ),
    Var(
        name="LAUNCHX_CONFIG_DIR",
        type="path",
        default="~/.config/launchx",
        constraint="",
        purpose="User configuration directory",
    ),
    Var(
        name="LAUNCHX_LOG_DIR",
        type="path",
        default="unset",
        constraint="",
        purpose="Where launchx writes run logs",
    ),
    Var(
        name="LAUNCHX_STEP",
        type="bool01",
        default="unset",
        constraint="",
        purpose="Set on the launchx that srun starts on each node",
    ),
    Var(
        name="LAUNCHX_HOST_ROOT",
        type="path",
        default="/",
        constraint="",
        purpose="Root that host detection reads (recorded trees)",
    ),
    Var(
        name="LAUNCHX_DEFAULT_PROFILE",
        type="string",
        default="local",
        constraint="",
        purpose="Profile used when -p is not given",
    ),
)

# --- Status tables ----------------------------------------------------------------------------
# (old, new, reader, note): the old name is still read as a deprecated alias; new wins if both.
RENAMED: tuple[Renamed, ...] = (
    Renamed(
        old="NCCL_ASYNC_ERROR_HANDLING",
        new="TORCH_NCCL_ASYNC_ERROR_HANDLING",
        reader="torch",
        note="never an NCCL variable; PyTorch renamed it in 2.2 and only reads the old name as an "
        "alias",
    ),
    Renamed(
        old="NCCL_BLOCKING_WAIT",
        new="TORCH_NCCL_BLOCKING_WAIT",
        reader="torch",
        note="never an NCCL variable; PyTorch renamed it in 2.2",
    ),
    Renamed(
        old="NCCL_DESYNC_DEBUG",
        new="TORCH_NCCL_DESYNC_DEBUG",
        reader="torch",
        note="never an NCCL variable; PyTorch renamed it in 2.2",
    ),
    Renamed(
        old="NCCL_ENABLE_TIMING",
        new="TORCH_NCCL_ENABLE_TIMING",
        reader="torch",
        note="never an NCCL variable; PyTorch renamed it in 2.2",
    ),
    Renamed(
        old="NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK",
        new="TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK",
        reader="torch",
        note="never an NCCL variable; PyTorch renamed it in 2.2",
    ),
    Renamed(
        old="TORCH_NCCL_TRACE_BUFFER_SIZE",
        new="TORCH_FR_BUFFER_SIZE",
        reader="torch",
        note="the flight recorder became backend-neutral; the old name is still read",
    ),
    Renamed(
        old="TORCH_NCCL_TRACE_CPP_STACK",
        new="TORCH_FR_CPP_STACK",
        reader="torch",
        note="the flight recorder became backend-neutral; the old name is still read",
    ),
    Renamed(
        old="TORCH_NCCL_DEBUG_INFO_TEMP_FILE",
        new="TORCH_FR_DUMP_TEMP_FILE",
        reader="torch",
        note="the flight recorder became backend-neutral; the old name is still read",
    ),
    Renamed(
        old="NCCL_MAX_NRINGS",
        new="NCCL_MAX_NCHANNELS",
        reader="nccl",
        note="pre-2.5 name, ignored when NCCL_MAX_NCHANNELS is set",
    ),
    Renamed(
        old="NCCL_MIN_NRINGS",
        new="NCCL_MIN_NCHANNELS",
        reader="nccl",
        note="pre-2.5 name, ignored when NCCL_MIN_NCHANNELS is set",
    ),
)

# (name, reader, use_instead, renamed_to or "", note): no longer read by current releases.
REMOVED: tuple[Removed, ...] = (
    Removed(
        name="NCCL_IB_CUDA_SUPPORT",
        reader="nccl",
        use_instead="NCCL_NET_GDR_LEVEL",
        new_name="",
        note="removed in NCCL 2.4.0 (last read by 2.3.x)",
    ),
    Removed(
        name="NCCL_IB_GDR_LEVEL",
        reader="nccl",
        use_instead="NCCL_NET_GDR_LEVEL",
        new_name="NCCL_NET_GDR_LEVEL",
        note="renamed to NCCL_NET_GDR_LEVEL in NCCL 2.4.0; the old name is not read since",
    ),
    Removed(
        name="NCCL_CHECKS_DISABLE",
        reader="nccl",
        use_instead="NCCL_CHECK_MODE",
        new_name="",
        note="deprecated in NCCL 2.2.12, not read by any 2.3.5+ release",
    ),
    Removed(
        name="NCCL_SINGLE_RING_THRESHOLD",
        reader="nccl",
        use_instead="nothing (channels are tuned automatically)",
        new_name="",
        note="removed in NCCL 2.3",
    ),
    Removed(
        name="NCCL_LL_THRESHOLD",
        reader="nccl",
        use_instead="NCCL_PROTO",
        new_name="",
        note="removed in NCCL 2.5 (last read by 2.4.8)",
    ),
    Removed(
        name="NCCL_TREE_THRESHOLD",
        reader="nccl",
        use_instead="NCCL_ALGO=Tree (or ^Ring) for experiments",
        new_name="",
        note="only read by NCCL 2.4.x; even there tree was used for sizes <= the threshold, so 0 "
        "turned tree OFF",
    ),
    Removed(
        name="NCCL_RINGS",
        reader="nccl",
        use_instead="nothing (NCCL builds rings itself)",
        new_name="",
        note="removed in NCCL 2.5 (last read by 2.4.8)",
    ),
    Removed(
        name="NCCL_NCCL_ALLOC_P2P_NET_LL_BUFFERS",
        reader="nccl",
        use_instead="NCCL_ALLOC_P2P_NET_LL_BUFFERS",
        new_name="NCCL_ALLOC_P2P_NET_LL_BUFFERS",
        note="misspelled name read only by NCCL 2.14.3-2.16.x",
    ),
    Removed(
        name="ENABLE_NCCL_HEALTH_CHECK",
        reader="torch",
        use_instead="nothing",
        new_name="",
        note="old PyTorch name; neither it nor TORCH_ENABLE_NCCL_HEALTH_CHECK is in torch 2.14",
    ),
    Removed(
        name="TORCH_ENABLE_NCCL_HEALTH_CHECK",
        reader="torch",
        use_instead="nothing",
        new_name="",
        note="not present in torch 2.14 any more",
    ),
)

# (name, use_instead, note): still read, but superseded or a no-op.
DEPRECATED: tuple[Deprecated, ...] = (
    Deprecated(
        name="NCCL_MAX_NCHANNELS",
        use_instead="NCCL_MAX_CTAS",
        note="deprecated in NCCL 2.17 (the lower of the two wins)",
    ),
    Deprecated(
        name="NCCL_MIN_NCHANNELS",
        use_instead="NCCL_MIN_CTAS",
        note="deprecated in NCCL 2.17 (the higher of the two wins)",
    ),
    Deprecated(
        name="NCCL_CHECK_POINTERS",
        use_instead="NCCL_CHECK_MODE=DEBUG_LOCAL",
        note="deprecated in NCCL 2.29.7",
    ),
    Deprecated(
        name="TORCH_NCCL_AVOID_RECORD_STREAMS",
        use_instead="nothing: unset it",
        note="since torch 2.7 this is always the behaviour; setting it only prints a deprecation "
        "warning",
    ),
)

# (name, reader, use_instead, note): names read by nothing (or not by torchrun).
MYTHS: tuple[Myth, ...] = (
    Myth(
        name="NCCL_TIMEOUT",
        reader="nccl",
        use_instead="init_process_group(timeout=...) in the script"
        " (launchx.runtime.init_distributed reads LAUNCHX_PG_TIMEOUT_S for it; set timeouts"
        " in the profile); transport level: NCCL_IB_TIMEOUT",
        note="no NCCL release (2.3.5-2.30.7) and no torch reads it; NCCL has no collective timeout",
    ),
    Myth(
        name="TORCH_DISTRIBUTED_TIMEOUT",
        reader="torch",
        use_instead="init_process_group(timeout=...) in the script"
        " (launchx.runtime.init_distributed reads LAUNCHX_PG_TIMEOUT_S for it)",
        note="not read anywhere in torch 2.14",
    ),
    Myth(
        name="TORCH_NCCL_TIMEOUT",
        reader="torch",
        use_instead="init_process_group(timeout=...) in the script"
        " (launchx.runtime.init_distributed reads LAUNCHX_PG_TIMEOUT_S for it)",
        note="not read anywhere in torch 2.14",
    ),
    Myth(
        name="TORCH_NCCL_FLIGHT_RECORDER_ENABLED",
        reader="torch",
        use_instead="TORCH_FR_BUFFER_SIZE (> 0 enables it)",
        note="not read by torch 2.14: the flight recorder is on whenever the buffer size is > 0",
    ),
    Myth(
        name="TORCH_NCCL_ABORT_IN_DESTROY_PG",
        reader="torch",
        use_instead="nothing",
        note="mentioned in 2024 docs issues but not present in torch 2.14",
    ),
    Myth(
        name="NODE_RANK",
        reader="platform",
        use_instead="torchrun --node-rank or PET_NODE_RANK",
        note="torchrun does not read it (it is PyTorch Lightning's and Azure ML's name)",
    ),
)

# Values that are read as written but deserve a word. (name, value or "*", code, message, fix)
# Matching is case-insensitive; "*" matches any non-empty value.
VALUE_NOTES: tuple[ValueNote, ...] = (
    ValueNote(
        name="NCCL_DEBUG",
        value="TRACE",
        code="LX124",
        message="TRACE only adds output in NCCL builds made with TRACE=1; release builds print "
        "INFO",
        fix="use NCCL_DEBUG=INFO with NCCL_DEBUG_SUBSYS to narrow it",
    ),
    ValueNote(
        name="NCCL_IB_GID_INDEX",
        value="*",
        code="LX124",
        message="since NCCL 2.21 the GID is chosen automatically (RoCE v2, IPv4); forcing an index"
        " is only needed on older NCCL or unusual GID tables",
        fix="unset NCCL_IB_GID_INDEX on NCCL >= 2.21 (tune NCCL_IB_ROCE_VERSION_NUM / "
        "NCCL_IB_ADDR_FAMILY instead)",
    ),
    ValueNote(
        name="NCCL_LAUNCH_MODE",
        value="GROUP",
        code="LX122",
        message="GROUP launch mode is deprecated since NCCL 2.9",
        fix="unset NCCL_LAUNCH_MODE",
    ),
    ValueNote(
        name="TORCH_NCCL_ASYNC_ERROR_HANDLING",
        value="0",
        code="LX122",
        message="0 = NoHandling: the watchdog never aborts a timed-out collective, so a hang lasts"
        " until something outside kills the job",
        fix="TORCH_NCCL_ASYNC_ERROR_HANDLING=1 (abort communicators, then exit) or 3",
    ),
    ValueNote(
        name="NCCL_DEBUG",
        value="INFO",
        code="LX140",
        message="INFO logging is fine for debugging, slow for production",
        fix="unset NCCL_DEBUG (or NCCL_DEBUG=WARN) for production runs",
    ),
    ValueNote(
        name="NCCL_DEBUG",
        value="TRACE",
        code="LX140",
        message="TRACE logging is fine for debugging, slow for production",
        fix="unset NCCL_DEBUG (or NCCL_DEBUG=WARN) for production runs",
    ),
    ValueNote(
        name="NCCL_DEBUG_SUBSYS",
        value="*",
        code="LX140",
        message="subsystem logging is fine for debugging, noisy for production",
        fix="unset NCCL_DEBUG_SUBSYS for production runs",
    ),
    ValueNote(
        name="TORCH_DISTRIBUTED_DEBUG",
        value="INFO",
        code="LX140",
        message="extra c10d logging is fine for debugging, noisy for production",
        fix="unset TORCH_DISTRIBUTED_DEBUG for production runs",
    ),
    ValueNote(
        name="TORCH_CPP_LOG_LEVEL",
        value="INFO",
        code="LX140",
        message="C++ INFO logging is fine for debugging, noisy for production",
        fix="unset TORCH_CPP_LOG_LEVEL for production runs",
    ),
    ValueNote(
        name="TORCH_CPP_LOG_LEVEL",
        value="0",
        code="LX140",
        message="C++ INFO logging is fine for debugging, noisy for production",
        fix="unset TORCH_CPP_LOG_LEVEL for production runs",
    ),
    ValueNote(
        name="TORCH_DISTRIBUTED_DEBUG",
        value="DETAIL",
        code="LX141",
        message="DETAIL adds collective hashing and desync checks to every collective (slow)",
        fix="unset TORCH_DISTRIBUTED_DEBUG once the problem is found (INFO is cheaper)",
    ),
    ValueNote(
        name="CUDA_LAUNCH_BLOCKING",
        value="1",
        code="LX142",
        message="serialises every kernel launch: large slowdown, and it changes NCCL overlap/hang "
        "behaviour",
        fix="unset CUDA_LAUNCH_BLOCKING except while debugging a CUDA error",
    ),
)

# --- Secrets and what `explain` shows ---------------------------------------------------------
SECRET_NAME_PARTS: tuple[str, ...] = (
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "API_KEY",
    "APIKEY",
    "PRIVATE_KEY",
    "CREDENTIAL",
    "ACCESS_KEY",
    "AUTH_KEY",
    "SESSION_KEY",
)
# Words that name a secret only as a whole word of the name (GITHUB_PAT, SMTP_PASS; not
# PATH, PASSTHROUGH): a personal access token, a password.
SECRET_NAME_WORDS: tuple[str, ...] = ("PAT", "PASS")
SECRET_NAMES: tuple[str, ...] = (
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
    "WANDB_API_KEY",
    "GITHUB_TOKEN",
    "OPENAI_API_KEY",
    "NETRC",
    "PGPASSWORD",
    "MLFLOW_TRACKING_TOKEN",
)
# Names that contain a secret word but hold no secret (would otherwise be redacted).
NOT_SECRET_NAMES: tuple[str, ...] = ("TOKENIZERS_PARALLELISM", "NCCL_PAT_ENABLE")

DISTRIBUTED_PREFIXES: tuple[str, ...] = (
    "NCCL_",
    "TORCH_",
    "TORCHELASTIC_",
    "PET_",
    "CUDA_",
    "MASTER_",
    "SLURM_",
    "SRUN_",
    "OMPI_",
    "PMI_",
    "PMIX_",
    "LAUNCHX_",
    "UCX_",
    "FI_",
    "GLOO_",
    "MV2_",
    "OMP_",
    "NVIDIA_",
    "PYTORCH_",
)
DISTRIBUTED_NAMES: tuple[str, ...] = (
    "RANK",
    "WORLD_SIZE",
    "LOCAL_RANK",
    "LOCAL_WORLD_SIZE",
    "GROUP_RANK",
    "GROUP_WORLD_SIZE",
    "ROLE_RANK",
    "ROLE_WORLD_SIZE",
    "ROLE_NAME",
    "NODE_RANK",
    "OMP_NUM_THREADS",
    "USE_LIBUV",
)

# Namespaces where an unknown name is a warning: these readers ignore names they do not know,
# so a typo silently does nothing. TORCH_ itself is loose (torch has many non-distributed
# TORCH_* variables): there only a name close to a known one is reported.
STRICT_PREFIXES: tuple[str, ...] = (
    "NCCL_",
    "TORCH_NCCL_",
    "TORCH_FR_",
    "TORCH_DIST",
    "TORCH_ELASTIC_",
    "TORCHELASTIC_",
    "TORCH_CPP_",
    "PET_",
    "LAUNCHX_",
)
LOOSE_PREFIXES: tuple[str, ...] = ("TORCH_", "PYTORCH_CUDA_", "CUDA_", "OMP_")
