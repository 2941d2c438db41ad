"""Tests for the environment-variable catalog (launchx.catalog, launchx.catalog_data).

Every catalog entry is exercised with a valid value (no error) and, where its type constrains
the value, with invalid values (the right code). Every rule code has at least one case that
must raise it and, where it matters, a near miss that must not.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from launchx import catalog, catalog_data
from launchx import codes as registry
from launchx.catalog import (
    CATALOG,
    CODES,
    HOST_CODES,
    EnvVarSpec,
    check_env,
    is_distributed,
    is_secret,
    lookup,
    parse_iflist,
    redact,
    renamed_to,
)
from launchx.facts import HostFacts, IbPort, Interface, LaunchContext
from launchx.findings import Finding


def words(text: str) -> list[str]:
    return text.split()


# Name lists of env-vars.md Appendix A (NCCL 2.30.7), kept here independently of the data file
# so a row dropped from catalog_data fails a test.
APPENDIX_A_DOCUMENTED = words("""
    NCCL_ALGO NCCL_ALLOC_P2P_NET_LL_BUFFERS NCCL_BUFFSIZE NCCL_CGA_CLUSTER_SIZE
    NCCL_CHECK_MODE NCCL_CHECK_POINTERS NCCL_COLLNET_ENABLE NCCL_COLLNET_NODE_THRESHOLD
    NCCL_COMM_BLOCKING NCCL_CONF_FILE NCCL_CROSS_NIC NCCL_CTA_POLICY NCCL_CUMEM_ENABLE
    NCCL_CUMEM_HOST_ENABLE NCCL_DEBUG NCCL_DEBUG_FILE NCCL_DEBUG_SUBSYS
    NCCL_DEBUG_TIMESTAMP_FORMAT NCCL_DEBUG_TIMESTAMP_LEVELS NCCL_DMABUF_ENABLE
    NCCL_ENV_PLUGIN NCCL_GRAPH_MIXING_SUPPORT NCCL_GRAPH_REGISTER
    NCCL_GRAPH_STREAM_ORDERING NCCL_IB_ADAPTIVE_ROUTING NCCL_IB_ADDR_FAMILY
    NCCL_IB_ADDR_RANGE NCCL_IB_AR_THRESHOLD NCCL_IB_DISABLE NCCL_IB_ECE_ENABLE
    NCCL_IB_FIFO_TC NCCL_IB_GID_INDEX NCCL_IB_HCA NCCL_IB_MERGE_NICS NCCL_IB_OOO_RQ
    NCCL_IB_PCI_RELAXED_ORDERING NCCL_IB_QPS_PER_CONNECTION NCCL_IB_RETRY_CNT
    NCCL_IB_RETURN_ASYNC_EVENTS NCCL_IB_ROCE_VERSION_NUM NCCL_IB_SL
    NCCL_IB_SPLIT_DATA_ON_QPS NCCL_IB_TC NCCL_IB_TIMEOUT NCCL_IGNORE_COLLNET_MISMATCH
    NCCL_IGNORE_CPU_AFFINITY NCCL_IGNORE_NET_MISMATCH NCCL_IPC_USE_ABSTRACT_SOCKET
    NCCL_LAUNCH_MODE NCCL_LAUNCH_ORDER_IMPLICIT NCCL_LAUNCH_RACE_FATAL
    NCCL_LEGACY_CUDA_REGISTER NCCL_LOCAL_REGISTER NCCL_MAX_CTAS NCCL_MAX_NCHANNELS
    NCCL_MEM_SYNC_DOMAIN NCCL_MIN_CTAS NCCL_MIN_NCHANNELS NCCL_MNNVL_CLIQUE_ID
    NCCL_MNNVL_ENABLE NCCL_MNNVL_UUID NCCL_MULTI_RANK_GPU_ENABLE NCCL_NET
    NCCL_NETDEVS_POLICY NCCL_NET_GDR_C2C NCCL_NET_GDR_LEVEL NCCL_NET_GDR_READ
    NCCL_NET_MERGE_POLICY NCCL_NET_PLUGIN NCCL_NET_SHARED_BUFFERS NCCL_NET_SHARED_COMMS
    NCCL_NSOCKS_PERTHREAD NCCL_NTHREADS NCCL_NVB_DISABLE NCCL_NVLS_ENABLE
    NCCL_OOB_NET_ENABLE NCCL_OOB_NET_IFNAME NCCL_P2P_DIRECT_DISABLE NCCL_P2P_DISABLE
    NCCL_P2P_LEVEL NCCL_P2P_LL_THRESHOLD NCCL_P2P_NET_CHUNKSIZE NCCL_P2P_PXN_LEVEL
    NCCL_PROFILER_PLUGIN NCCL_PROTO NCCL_PXN_C2C NCCL_PXN_DISABLE NCCL_RAS_ADDR
    NCCL_RAS_ENABLE NCCL_RAS_TIMEOUT_FACTOR NCCL_RUNTIME_CONNECT NCCL_SET_STACK_SIZE
    NCCL_SET_THREAD_NAME NCCL_SHM_DISABLE NCCL_SOCKET_FAMILY NCCL_SOCKET_IFNAME
    NCCL_SOCKET_MAGIC NCCL_SOCKET_NTHREADS NCCL_SOCKET_POLL_TIMEOUT_MSEC
    NCCL_SOCKET_RETRY_CNT NCCL_SOCKET_RETRY_SLEEP_MSEC NCCL_SYM_GIN_KERNELS_ENABLE
    NCCL_TOPO_DUMP_FILE NCCL_TOPO_FILE NCCL_TUNER_PLUGIN NCCL_UID_STAGGER_RATE
    NCCL_UID_STAGGER_THRESHOLD NCCL_WIN_ENABLE
""")

APPENDIX_A_REMOVED = words("""
    NCCL_CHECKS_DISABLE NCCL_IB_CUDA_SUPPORT NCCL_LL_THRESHOLD NCCL_SINGLE_RING_THRESHOLD
    NCCL_TREE_THRESHOLD
""")

APPENDIX_A_INTERNAL = words("""
    NCCL_ALLGATHERV_ENABLE NCCL_CHUNK_SIZE NCCL_COMM_ID NCCL_COMM_SHRINK_SHARE_RESOURCES
    NCCL_COMM_SPLIT_SHARE_RESOURCES NCCL_CONNECT_ROUND_MAX_PEERS NCCL_DEV_API_JIT
    NCCL_DISABLE_MEM_MANAGER NCCL_ELASTIC_BUFFER_REGISTER NCCL_ENABLE_VERSION_CHECK
    NCCL_GDAKI_USE_RELIABLE_DB NCCL_GDRCOPY_ENABLE NCCL_GDRCOPY_FIFO_ENABLE
    NCCL_GDRCOPY_FLUSH_ENABLE NCCL_GDRCOPY_SYNC_ENABLE NCCL_GDR_FLUSH_DISABLE
    NCCL_GIN_CONNECTION_RAIL NCCL_GIN_ENABLE NCCL_GIN_ERROR_QUERY_SEC
    NCCL_GIN_GDAKI_MAX_DEST_RD_ATOMIC NCCL_GIN_GDAKI_MAX_QP_RD_ATOMIC
    NCCL_GIN_GDAKI_NIC_HANDLER NCCL_GIN_GDAKI_QP_DEPTH NCCL_GIN_IB_TC
    NCCL_GIN_NCONNECTIONS NCCL_GIN_PLUGIN NCCL_GIN_PLUGIN_REF_COUNT
    NCCL_GIN_PROXY_QUEUE_SIZE NCCL_GIN_TYPE NCCL_GRAPH_DUMP_FILE NCCL_GRAPH_DUMP_FILE_RANK
    NCCL_GRAPH_FILE NCCL_GRAPH_HELPER_DISABLE NCCL_GROUP_CUDA_STREAM NCCL_HOSTID
    NCCL_IBVERBS_LIB NCCL_IB_DATA_DIRECT NCCL_IB_DEVICE_PCI_ORDER NCCL_IB_MERGE_VFS
    NCCL_IB_MQP_RETRY_ALL NCCL_IB_MQP_RETRY_CNT NCCL_IB_MQP_RETRY_SLEEP_MSEC NCCL_IB_PKEY
    NCCL_IB_PREPOST_RECEIVE_WORK_REQUESTS NCCL_IB_QUERY_PORT_SPEED
    NCCL_IB_RECEIVER_SIDE_MATCHING_SCHEME NCCL_IB_RESILIENCY_PORT_FAILOVER
    NCCL_IB_RESILIENCY_PORT_FAILOVER_MAX_ATTEMPTS
    NCCL_IB_RESILIENCY_PORT_FAILOVER_PROBE_DELAY NCCL_IB_RESILIENCY_PORT_RECOVERY
    NCCL_IB_RESILIENCY_PORT_RECOVERY_ACK_TIMEOUT
    NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_BATCH_INTERVAL
    NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_BATCH_SIZE
    NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_SEQUENCE_SIZE
    NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_TIMEOUT
    NCCL_IB_RESILIENCY_PORT_RECOVERY_ATTEMPTS_MAX
    NCCL_IB_RESILIENCY_PORT_RECOVERY_START_DELAY NCCL_IB_ROUTABLE_FLID_GID_INDEX
    NCCL_IB_SUBNET_AWARE_ROUTING NCCL_IB_SUBNET_PREFIX_LEN NCCL_IB_USE_INLINE
    NCCL_IB_WARN_RAIL_LOCAL NCCL_IGNORE_DISABLED_P2P NCCL_L1_SHARED_MEMORY_CARVEOUT
    NCCL_LL128_BUFFSIZE NCCL_LL128_C2C NCCL_LL128_NTHREADS NCCL_LL_BUFFSIZE
    NCCL_LSA_TEAM_SIZE NCCL_MAX_NRINGS NCCL_MAX_P2P_NCHANNELS NCCL_MIN_NRINGS
    NCCL_MIN_P2P_NCHANNELS NCCL_MLOPART_RDMA_ENABLE NCCL_MNNVL_CROSS_CLIQUE
    NCCL_MNNVL_RAIL_PER_HOST NCCL_MNNVL_SCATTER_NETS_ENABLE NCCL_MULTI_SEGMENT_REGISTER
    NCCL_NCHANNELS_PER_NET_PEER NCCL_NET_DISABLE_INTRA NCCL_NET_FORCE_FLUSH
    NCCL_NET_FORCE_MERGE NCCL_NET_GDR_MLOPART NCCL_NET_MERGE_LEVEL
    NCCL_NET_OPTIONAL_RECV_COMPLETION NCCL_NET_OVERHEAD NCCL_NET_PLUGIN_REF_COUNT
    NCCL_NO_CACHE NCCL_NUM_RMA_CTX NCCL_NVB_PRECONNECT
    NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE NCCL_NVLSTREE_MAX_CHUNKSIZE NCCL_NVLS_CHUNKSIZE
    NCCL_NVLS_NCHANNELS NCCL_NVTX_DISABLE NCCL_P2P_EPOCH_ENABLE NCCL_P2P_MAX_PEERS
    NCCL_P2P_NVL_CHUNKSIZE NCCL_P2P_PCI_CHUNKSIZE NCCL_P2P_PER_CHANNEL_NET_BW
    NCCL_P2P_READ_ENABLE NCCL_P2P_SCHEDULE_GROUP_SIZE NCCL_P2P_USE_CUDA_MEMCPY
    NCCL_PARAM_DUMP_ALL NCCL_PAT_ENABLE NCCL_PROGRESS_APPENDOP_FREQ
    NCCL_PROXY_APPEND_BATCH_SIZE NCCL_PROXY_CPUSET NCCL_PROXY_DUMP_SIGNAL
    NCCL_REPORT_CONNECT_PROGRESS NCCL_RMA_DISABLE NCCL_RMA_PLUGIN
    NCCL_RMA_PLUGIN_REF_COUNT NCCL_RMA_PROXY_DUMP_SIGNAL NCCL_RMA_PROXY_QUEUE_SIZE
    NCCL_SET_CPU_STACK_SIZE NCCL_SHADOW_MEMPOOL_MAX_SIZE NCCL_SHM_LOCALITY
    NCCL_SINGLE_PROC_MEM_REG_ENABLE NCCL_SOCKET_INLINE NCCL_SOCKET_MIN_TASKSIZE
    NCCL_SOCKET_RCVBUF NCCL_SOCKET_SNDBUF NCCL_SYM_CE_THRESHOLD NCCL_SYM_CTAS
    NCCL_SYM_KERNEL NCCL_SYM_NOWIN_ENABLE NCCL_SYM_REUSE_SYSMEM_HANDLES
    NCCL_SYM_RS_GIN_CHUNK_SIZE NCCL_SYM_TMA_ENABLE NCCL_THREAD_THRESHOLDS
    NCCL_TOPO_DUMP_FILE_RANK NCCL_TOPO_SPLIT_MLOPART NCCL_UNPACK_DOUBLE_NCHANNELS
    NCCL_WARN_ENABLE_DEBUG_INFO NCCL_WIN_STRIDE NCCL_WORK_ARGS_BYTES NCCL_WORK_FIFO_BYTES
""")


NO_FACTS = HostFacts()


def ib(device: str, port: int = 1, state: str = "ACTIVE", phys: str = "LinkUp") -> IbPort:
    return IbPort(device=device, port=port, state=state, phys_state=phys, link_layer="InfiniBand")


def iface(name: str, up: bool = True, addr: str | None = "10.0.0.2") -> Interface:
    return Interface(name=name, up=up, addresses=(addr,) if addr else ())


HOST = HostFacts(
    ib_ports=(
        ib("mlx5_0"),
        ib("mlx5_1"),
        ib("mlx5_10"),
        ib("mlx5_2", state="DOWN", phys="Disabled"),
    ),
    interfaces=(
        iface("eth0"),
        iface("lo", addr="127.0.0.1"),
        iface("ib0", up=False),
        iface("docker0", addr="172.17.0.1"),
    ),
)
HOST_NO_IB = HostFacts(interfaces=(iface("eth0"),))


def codes(env: dict[str, str], facts: HostFacts = NO_FACTS) -> list[str]:
    return [f.code for f in check_env(env, facts)]


# --- catalog integrity ------------------------------------------------------------------------


def test_appendix_a_names_are_all_catalogued() -> None:
    missing = [n for n in APPENDIX_A_DOCUMENTED + APPENDIX_A_INTERNAL if n not in CATALOG]
    assert missing == []
    assert len(APPENDIX_A_DOCUMENTED) == 108 and len(APPENDIX_A_INTERNAL) == 138


@pytest.mark.parametrize("name", APPENDIX_A_REMOVED)
def test_appendix_a_documented_but_unread_names_are_removed(name: str) -> None:
    spec = lookup(name)
    assert spec is not None and spec.status == "removed"


def test_rows_have_no_duplicate_names() -> None:
    tables = (
        catalog_data.NCCL_ROWS,
        catalog_data.TORCH_ROWS,
        catalog_data.TORCHRUN_ROWS,
        catalog_data.CUDA_ROWS,
        catalog_data.OMP_ROWS,
        catalog_data.SLURM_ROWS,
        catalog_data.PLATFORM_ROWS,
        catalog_data.LAUNCHX_ROWS,
    )
    names = [row.name for table in tables for row in table]
    names += list(catalog_data.NCCL_INTERNAL_INT) + list(catalog_data.NCCL_INTERNAL_STR)
    names += [r.old for r in catalog_data.RENAMED] + [r.name for r in catalog_data.REMOVED]
    names += [r.name for r in catalog_data.MYTHS]
    assert len(names) == len(set(names))


def test_every_spec_is_complete() -> None:
    for spec in CATALOG.values():
        assert spec.purpose, spec.name
        assert spec.name == spec.name.upper(), spec.name
        if spec.status in ("renamed", "removed", "myth", "deprecated"):
            assert spec.use_instead and spec.note, spec.name
        if spec.status == "renamed":
            target = lookup(spec.renamed_to or "")
            assert target is not None and target.status in ("ok", "deprecated")


def test_required_names_are_present() -> None:
    for name in (
        "TORCH_NCCL_ASYNC_ERROR_HANDLING",
        "TORCH_DISTRIBUTED_DEBUG",
        "TORCH_CPP_LOG_LEVEL",
        "TORCH_FR_BUFFER_SIZE",
        "PET_NPROC_PER_NODE",
        "CUDA_VISIBLE_DEVICES",
        "CUDA_LAUNCH_BLOCKING",
        "CUDA_DEVICE_MAX_CONNECTIONS",
        "PYTORCH_CUDA_ALLOC_CONF",
        "OMP_NUM_THREADS",
        "SLURM_PROCID",
        "SLURM_JOB_NODELIST",
        "OMPI_COMM_WORLD_RANK",
        "PMI_RANK",
        "LAUNCHX_RUN_ID",
        "LAUNCHX_ATTEMPT",
        "LAUNCHX_RESUME_FROM",
        "LAUNCHX_PROFILE",
        "LAUNCHX_PG_TIMEOUT_S",
        "LAUNCHX_PROFILE_PATH",
        "LAUNCHX_CONFIG_DIR",
        "LAUNCHX_LOG_DIR",
    ):
        assert lookup(name) is not None, name
    assert lookup("NO_SUCH_VARIABLE") is None


def test_bad_type_in_data_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown type"):
        catalog._vartype("integer")
    with pytest.raises(ValueError, match="unknown reader"):
        catalog._reader("mpi")


# --- every entry: a valid value is accepted ---------------------------------------------------

VALID_BY_TYPE = {
    "float": "0.5",
    "bool01": "1",
    "bool-str": "true",
    "bool-check": "1",
    "int-flag": "1",
    "level": "SYS",
    "iflist": "=mlx5_0",
    "algolist": "Ring,Tree",
    "protolist": "LL,Simple",
    "netdevs": "MAX:2",
    "hostport": "10.0.0.1:29600",
    "cidr": "10.0.0.0/16",
    "path": "/tmp/x",
    "abspath": "/ckpt/step_100",
    "path-template": "/tmp/nccl.%h.%p",
    "alloc-conf": "expandable_segments:True,max_split_size_mb:128",
    "cuda-devices": "0,1",
    "nnodes": "1:2",
    "nproc": "gpu",
    "string": "anything",
    "none": "1",
}


def valid_value(spec: EnvVarSpec) -> str:
    if spec.type in ("int", "size", "intlist"):
        if spec.min_value is not None:
            return str(spec.min_value)
        return str(spec.max_value) if spec.max_value is not None else "0"
    if spec.type in ("enum", "enum-cs", "wordlist", "flags"):
        return spec.allowed[0]
    return VALID_BY_TYPE[spec.type]


# The old async-handling name with any value but 1 is overridden by torchrun's injected default.
# NCCL_DEBUG_FILE alone is not written without NCCL_DEBUG >= WARN. NCCL_IB_TIMEOUT's least
# value, 0, turns the timeout off.
ALSO_EXPECTED = {
    "NCCL_ASYNC_ERROR_HANDLING": {"LX136"},
    "NCCL_DEBUG_FILE": {"LX133"},
    "NCCL_IB_TIMEOUT": {"LX120"},
}
STATUS_CODE = {"myth": "LX101", "renamed": "LX102", "removed": "LX103", "deprecated": "LX104"}


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_valid_value_is_accepted(name: str) -> None:
    spec = CATALOG[name]
    value = valid_value(spec)
    found = check_env({name: value}, NO_FACTS)
    assert [f for f in found if f.level == "error"] == []
    noted = {note.code for note in catalog_data.VALUE_NOTES if note.name == name}
    expected = noted | ({STATUS_CODE[spec.status]} if spec.status in STATUS_CODE else set())
    expected |= ALSO_EXPECTED.get(name, set())
    assert {f.code for f in found} <= expected, found


# --- every constrained entry: invalid values get the right code -------------------------------


def invalid_values(spec: EnvVarSpec) -> list[tuple[str, str]]:
    """(value, expected code) pairs that must be rejected for this spec's type/range."""
    t = spec.type
    cases: list[tuple[str, str]] = []
    if t != "none":
        cases.append(("<your_value>", "LX118"))
    if t == "intlist":
        cases += [("4,x", "LX110"), ("4,0", "LX114")]
    if t in ("int", "size", "intlist"):
        cases.append(("abc", "LX110"))
        if spec.max_value is not None:
            cases.append((str(spec.max_value + 1), "LX114"))
        if spec.min_value is not None:
            cases.append((str(spec.min_value - 1), "LX114"))
        if spec.multiple_of:
            cases.append((str((spec.min_value or 0) + 1), "LX114"))
        if t == "size":
            cases.append(("8M", "LX111"))
    table: dict[str, list[tuple[str, str]]] = {
        "float": [("fast", "LX110")],
        "bool01": [("true", "LX115"), ("yes", "LX115"), ("2", "LX114"), ("no", "LX109")],
        "bool-str": [("maybe", "LX115"), ("2", "LX115")],
        "bool-check": [("yes", "LX115"), ("false", "LX109")],
        "int-flag": [("", "LX110"), ("true", "LX110")],
        "enum": [("BOGUS", "LX112")],
        "enum-cs": [
            ("BOGUS", "LX112"),
            (spec.allowed[0].swapcase() if spec.allowed else "", "LX113"),
        ],
        "level": [("sys", "LX113"), ("BOGUS", "LX112"), ("5", "LX121"), ("abc", "LX112")],
        "iflist": [
            ("eth0,^docker0", "LX116"),
            ("=^eth0", "LX116"),
            ("eth0,,eth1", "LX116"),
            ("x", "LX123" if spec.name == "NCCL_SOCKET_IFNAME" else "LX116"),
        ],
        "algolist": [("Ring/Tree", "LX117"), ("CollNet", "LX117"), ("Ring;Tree", "LX116")],
        "protolist": [("LL/Simple", "LX117"), ("Fast", "LX117")],
        "wordlist": [
            ("BOGUS", "LX112"),
            (f"{spec.allowed[0] if spec.allowed else ''},^INFO", "LX116"),
        ],
        "flags": [("BOGUS", "LX112")],
        "netdevs": [("MAX:x", "LX112")],
        "hostport": [("nohost", "LX116"), ("h:70000", "LX114")],
        "cidr": [("10.0.0.0/99", "LX116")],
        "abspath": [("rel/x", "LX119")],
        "path-template": [("~/nccl.%p", "LX119"), ("/tmp/nccl.log", "LX125")],
        "alloc-conf": [("expandable_segments", "LX116"), ("expandable_segment:True", "LX127")],
        "cuda-devices": [("", "LX126"), ("0,0", "LX126"), ("gpu0", "LX116"), ("-1", "LX126")],
        "nnodes": [("0", "LX114"), ("a:b", "LX116"), ("3:2", "LX114")],
        "nproc": [("0", "LX114"), ("GPU!", "LX112")],
    }
    cases += table.get(t, [])
    if t == "path" and spec.reader == "nccl":
        cases.append(("~/x", "LX119"))
    return cases


INVALID_CASES = [
    pytest.param(spec.name, value, code, id=f"{spec.name}={value}")
    for spec in sorted(CATALOG.values(), key=lambda s: s.name)
    if spec.status != "removed" and spec.status != "myth"
    for value, code in invalid_values(spec)
]


@pytest.mark.parametrize(("name", "value", "code"), INVALID_CASES)
def test_invalid_value_gets_its_code(name: str, value: str, code: str) -> None:
    found = [f for f in check_env({name: value}, NO_FACTS) if f.code == code]
    assert found, codes({name: value})
    assert found[0].var == name
    assert found[0].level == CODES[code]
    assert f"{name}=" in found[0].message and found[0].fix


def test_every_constrained_entry_has_an_invalid_case() -> None:
    covered = {c.values[0] for c in INVALID_CASES}
    unconstrained = {
        n
        for n, s in CATALOG.items()
        if s.type in ("string", "none") or s.status in ("removed", "myth")
    }
    assert set(CATALOG) - unconstrained <= covered


# --- status entries: myths, renames, removals, deprecations -----------------------------------


@pytest.mark.parametrize("name", sorted(n for n, s in CATALOG.items() if s.status != "ok"))
def test_status_entry_yields_its_finding(name: str) -> None:
    spec = CATALOG[name]
    found = [f for f in check_env({name: "1"}, NO_FACTS) if f.code == STATUS_CODE[spec.status]]
    assert len(found) == 1
    assert found[0].var == name and f"{name}=1" in found[0].message
    if spec.status == "renamed":
        assert found[0].fix.startswith(f"{spec.renamed_to}=1")
    else:
        assert str(spec.use_instead) in found[0].fix


def test_myth_messages_name_what_controls_the_thing() -> None:
    (f,) = check_env({"NCCL_TIMEOUT": "1800"}, NO_FACTS)
    assert f.code == "LX101" and "init_process_group(timeout=" in f.fix
    assert "LAUNCHX_PG_TIMEOUT_S" in f.fix
    (g,) = check_env({"TORCH_NCCL_FLIGHT_RECORDER_ENABLED": "1"}, NO_FACTS)
    assert "TORCH_FR_BUFFER_SIZE" in g.fix


def test_node_rank_is_a_myth_only_when_launchx_starts_torchrun() -> None:
    assert codes({"NODE_RANK": "1"}) == ["LX101"]
    platform = HostFacts(launch=LaunchContext(kind="platform", name="Azure ML"))
    assert codes({"NODE_RANK": "1"}, platform) == []


def test_renamed_to() -> None:
    assert renamed_to("NCCL_ASYNC_ERROR_HANDLING") == "TORCH_NCCL_ASYNC_ERROR_HANDLING"
    assert renamed_to("NCCL_BLOCKING_WAIT") == "TORCH_NCCL_BLOCKING_WAIT"
    assert renamed_to("NCCL_DESYNC_DEBUG") == "TORCH_NCCL_DESYNC_DEBUG"
    assert renamed_to("TORCH_NCCL_TRACE_BUFFER_SIZE") == "TORCH_FR_BUFFER_SIZE"
    assert renamed_to("NCCL_IB_GDR_LEVEL") == "NCCL_NET_GDR_LEVEL"
    assert renamed_to("NCCL_TIMEOUT") is None
    assert renamed_to("NCCL_DEBUG") is None
    assert renamed_to("NOT_A_VAR") is None


def test_renamed_alias_value_is_validated_like_the_new_name() -> None:
    assert "LX114" in codes({"NCCL_ASYNC_ERROR_HANDLING": "7"})
    assert "LX115" in codes({"NCCL_BLOCKING_WAIT": "maybe"})


# --- specific values from the field notes -----------------------------------------------------

SPECIFIC = [
    ("NCCL_NTHREADS", "640", "LX114"),
    ("NCCL_NTHREADS", "100", "LX114"),
    ("NCCL_DEBUG", "VERBOSE", "LX112"),
    ("NCCL_DEBUG", "ERROR", "LX112"),
    ("NCCL_DEBUG", "info", None),
    ("NCCL_IB_TIMEOUT", "32", "LX120"),  # 0 or 32 and above: no timeout (env-vars.md)
    ("NCCL_IB_TIMEOUT", "0", "LX120"),
    ("NCCL_IB_TIMEOUT", "-1", "LX114"),
    ("NCCL_IB_TIMEOUT", "24", "LX120"),
    ("NCCL_IB_TIMEOUT", "23", None),
    ("NCCL_IB_RETRY_CNT", "10", "LX114"),
    ("NCCL_BUFFSIZE", "8M", "LX111"),
    ("NCCL_BUFFSIZE", "4MB", "LX111"),
    ("NCCL_BUFFSIZE", "010", "LX110"),
    ("NCCL_BUFFSIZE", "0x400000", None),
    ("NCCL_BUFFSIZE", "67108864", None),  # 64 MiB: tuning, still
    ("NCCL_BUFFSIZE", "1099511627776", "LX122"),  # 1 TiB per channel and peer
    ("NCCL_BUFFSIZE", "99999999999999999999999", "LX114"),  # beyond strtoll: the default
    ("NCCL_BUFFSIZE", "99999999999999999999999x", "LX114"),  # ERANGE ends strtoll there too
    ("LOGLEVEL", "debug", "LX113"),  # logging.setLevel raises on it
    ("LOGLEVEL", "", "LX112"),
    ("LOGLEVEL", "WARNING", None),
    ("TORCH_DISTRIBUTED_DEBUG", "", "LX112"),  # torch throws on an empty value
    ("NCCL_IB_DISABLE", "true", "LX115"),
    ("NCCL_P2P_DISABLE", "yes", "LX115"),
    ("NCCL_P2P_LEVEL", "nvl", "LX113"),
    ("NCCL_NET_GDR_LEVEL", "sys", "LX113"),
    ("NCCL_NET_GDR_LEVEL", "NVL", "LX112"),
    ("NCCL_ALGO", "Ring/Tree/CollNet", "LX117"),
    ("NCCL_ALGO", "allreduce:ring;AllGather:^tree", None),
    ("NCCL_ALGO", "Bcast:Ring", "LX117"),
    ("NCCL_PROTO", "LL/LL128/Simple", "LX117"),
    ("NCCL_PROTO", "^LL128", None),
    ("TORCH_DISTRIBUTED_DEBUG", "1", "LX112"),
    ("TORCH_DISTRIBUTED_DEBUG", "true", "LX112"),
    ("TORCH_DISTRIBUTED_DEBUG", "detail", "LX141"),
    ("TORCH_NCCL_ASYNC_ERROR_HANDLING", "abc", "LX110"),
    ("TORCH_NCCL_ASYNC_ERROR_HANDLING", "0", "LX122"),
    ("NCCL_SOCKET_IFNAME", "^eth0,^docker0", "LX116"),
    ("NCCL_SOCKET_IFNAME", "^=eth0,docker0", None),
    ("NCCL_DEBUG_SUBSYS", "INIT,NETWORK", "LX112"),
    ("NCCL_DEBUG_SUBSYS", "^INIT,COLL", "LX140"),
    ("NCCL_LAUNCH_MODE", "group", "LX122"),
    ("NCCL_IB_GID_INDEX", "3", "LX124"),
    ("NCCL_DEBUG", "TRACE", "LX124"),
    ("NCCL_CTA_POLICY", "EFFICIENCY|ZERO", None),
    ("CUDA_VISIBLE_DEVICES", "GPU-5b8c,MIG-1", None),
    ("CUDA_VISIBLE_DEVICES", "NoDevFiles", "LX126"),
    ("PYTORCH_CUDA_ALLOC_CONF", "roundup_power2_divisions:[64:8,256:4,>:1],backend:native", None),
    ("LAUNCHX_PG_TIMEOUT_S", "0", "LX114"),
    ("MASTER_PORT", "70000", "LX114"),
    ("OMP_NUM_THREADS", "0", "LX114"),
    ("OMP_NUM_THREADS", "8,2", None),
]


@pytest.mark.parametrize(("name", "value", "code"), SPECIFIC)
def test_specific_values(name: str, value: str, code: str | None) -> None:
    found = codes({name: value})
    if code is None:
        assert [c for c in found if CODES[c] != "info"] == []
    else:
        assert code in found


def test_fixes_say_exactly_what_to_write() -> None:
    def fix(name: str, value: str, code: str) -> str:
        return next(f.fix for f in check_env({name: value}, NO_FACTS) if f.code == code)

    assert fix("NCCL_BUFFSIZE", "8M", "LX111") == "NCCL_BUFFSIZE=8388608"
    assert fix("NCCL_ALGO", "Ring/Tree/CollNet", "LX117") == "NCCL_ALGO=Ring,Tree"
    assert fix("NCCL_PROTO", "LL/LL128/Simple", "LX117") == "NCCL_PROTO=LL,LL128,Simple"
    # a misspelt word is kept as the word meant, in its place; a word near none is dropped
    assert fix("NCCL_ALGO", "Tre,Ringg", "LX117") == "NCCL_ALGO=Tree,Ring"
    assert fix("NCCL_ALGO", "Tree;AllReduce:Rng", "LX117") == "NCCL_ALGO=Tree;AllReduce:Ring"
    assert fix("NCCL_PROTO", "Simpel", "LX117") == "NCCL_PROTO=Simple"
    assert fix("NCCL_ALGO", "Foo", "LX117") == "unset NCCL_ALGO"
    said = next(f.message for f in check_env({"NCCL_ALGO": "Tre,Ringg"}, NO_FACTS))
    assert "does not know 'Tre', 'Ringg' (did you mean 'Tree', 'Ring'?)" in said
    # logging's numbers, which torchrun passes to setLevel as a string it rejects
    assert fix("LOGLEVEL", "10", "LX112").startswith("LOGLEVEL=DEBUG ")
    assert fix("LOGLEVEL", "40", "LX112").startswith("LOGLEVEL=ERROR ")
    assert fix("LOGLEVEL", "15", "LX112").startswith("LOGLEVEL=DEBUG ")  # (at or below)
    assert fix("LOGLEVEL", "VERBOSE", "LX112").startswith("LOGLEVEL=INFO ")
    assert fix("LOGLEVEL", "1", "LX112").startswith("LOGLEVEL=INFO ")
    assert fix("LOGLEVEL", "5", "LX112").startswith("LOGLEVEL=WARNING ")  # (the default)
    assert fix("NCCL_ALGO", "Ring,Rng", "LX117") == "NCCL_ALGO=Ring"
    assert (
        fix("NCCL_DEBUG_FILE", "/tmp/x y/nccl", "LX125") == "NCCL_DEBUG_FILE='/tmp/x y/nccl.%h.%p'"
    )
    assert fix("NCCL_DEBUG_FILE", "/tmp/nccl", "LX125") == "NCCL_DEBUG_FILE=/tmp/nccl.%h.%p"
    assert fix("NCCL_SOCKET_IFNAME", "^eth0,^docker0", "LX116") == (
        "NCCL_SOCKET_IFNAME=^eth0,docker0"
    )
    assert fix("NCCL_SOCKET_IFNAME", "=^eth0", "LX116") == "NCCL_SOCKET_IFNAME=^=eth0"
    assert fix("NCCL_P2P_LEVEL", "nvl", "LX113") == "NCCL_P2P_LEVEL=NVL"
    assert fix("NCCL_IB_DISABLE", "true", "LX115") == "NCCL_IB_DISABLE=1"
    assert fix("NCCL_DEBUG", "ERROR", "LX112").startswith("NCCL_DEBUG=WARN")
    assert fix("TORCH_DISTRIBUTED_DEBUG", "1", "LX112").startswith("TORCH_DISTRIBUTED_DEBUG=INFO")
    assert fix("NCCL_NET_GDR_LEVEL", "5", "LX121") == "NCCL_NET_GDR_LEVEL=SYS"
    assert fix("NCCL_ASYNC_ERROR_HANDLING", "3", "LX102").startswith(
        "TORCH_NCCL_ASYNC_ERROR_HANDLING=3"
    )
    assert fix("PYTORCH_CUDA_ALLOC_CONF", "expandable_segment:True", "LX127") == (
        "did you mean expandable_segments?"
    )


def test_nccl_number_parsing_messages_say_what_nccl_reads() -> None:
    f, off = check_env({"NCCL_IB_TIMEOUT": "abc"}, NO_FACTS)
    assert "read as 0" in f.message
    # and 0 is no timeout at all: said as well
    assert off.code == "LX120" and "turns the IB transport's timeout off" in off.message
    (g,) = check_env({"NCCL_IB_TIMEOUT": "010"}, NO_FACTS)
    assert "octal" in g.message and "read as 8" in g.message
    (h,) = check_env({"NCCL_BUFFSIZE": "8M"}, NO_FACTS)
    assert "8 bytes" in h.message


def test_strtoll_matches_c_semantics() -> None:
    cases = {
        "8M": 8,
        "1e3": 1,
        "0x10": 16,
        "010": 8,
        "08": 0,
        "abc": 0,
        "-5x": -5,
        " 42": 42,
        "": 0,
        "0x": 0,
    }
    for text, expected in cases.items():
        assert catalog._strtoll(text) == expected, text


# --- rules over several variables and against the host ----------------------------------------

PLATFORM = HostFacts(launch=LaunchContext(kind="platform"))

RULE_CASES = [
    # (id, env, facts, code that must appear, code that must not appear)
    (
        "alias-conflict",
        {"NCCL_ASYNC_ERROR_HANDLING": "1", "TORCH_NCCL_ASYNC_ERROR_HANDLING": "3"},
        NO_FACTS,
        "LX105",
        None,
    ),
    (
        "alias-agree",
        {"NCCL_BLOCKING_WAIT": "1", "TORCH_NCCL_BLOCKING_WAIT": "1"},
        NO_FACTS,
        None,
        "LX105",
    ),
    ("ib-off-hca", {"NCCL_IB_DISABLE": "1", "NCCL_IB_HCA": "mlx5_0"}, HOST, "LX130", "LX150"),
    ("socket-net-hca", {"NCCL_NET": "Socket", "NCCL_IB_HCA": "mlx5_0"}, NO_FACTS, "LX130", None),
    ("ib-on-hca", {"NCCL_IB_DISABLE": "0", "NCCL_IB_HCA": "mlx5_0"}, NO_FACTS, None, "LX130"),
    (
        "p2p-level-disabled",
        {"NCCL_P2P_DISABLE": "1", "NCCL_P2P_LEVEL": "NVL"},
        NO_FACTS,
        "LX131",
        None,
    ),
    (
        "p2p-level-enabled",
        {"NCCL_P2P_DISABLE": "0", "NCCL_P2P_LEVEL": "NVL"},
        NO_FACTS,
        None,
        "LX131",
    ),
    (
        "socket-threads",
        {"NCCL_SOCKET_NTHREADS": "8", "NCCL_NSOCKS_PERTHREAD": "16"},
        NO_FACTS,
        "LX132",
        None,
    ),
    (
        "socket-threads-ok",
        {"NCCL_SOCKET_NTHREADS": "8", "NCCL_NSOCKS_PERTHREAD": "8"},
        NO_FACTS,
        None,
        "LX132",
    ),
    ("debug-file-no-level", {"NCCL_DEBUG_FILE": "/tmp/n.%h.%p"}, NO_FACTS, "LX133", None),
    (
        "debug-file-version",
        {"NCCL_DEBUG_FILE": "/tmp/n.%p", "NCCL_DEBUG": "VERSION"},
        NO_FACTS,
        "LX133",
        None,
    ),
    (
        "debug-file-warn",
        {"NCCL_DEBUG_FILE": "/tmp/n.%p", "NCCL_DEBUG": "warn"},
        NO_FACTS,
        None,
        "LX133",
    ),
    (
        "fr-dump-no-buffer",
        {"TORCH_FR_BUFFER_SIZE": "0", "TORCH_NCCL_DUMP_ON_TIMEOUT": "1"},
        NO_FACTS,
        "LX134",
        None,
    ),
    (
        "fr-pipe-old-buffer",
        {"TORCH_NCCL_TRACE_BUFFER_SIZE": "0", "TORCH_NCCL_DEBUG_INFO_PIPE_FILE": "/tmp/fr"},
        NO_FACTS,
        "LX134",
        None,
    ),
    (
        "fr-dump-buffer",
        {"TORCH_FR_BUFFER_SIZE": "2000", "TORCH_NCCL_DUMP_ON_TIMEOUT": "1"},
        NO_FACTS,
        None,
        "LX134",
    ),
    (
        "blocking-wait-async",
        {"TORCH_NCCL_BLOCKING_WAIT": "1", "TORCH_NCCL_ASYNC_ERROR_HANDLING": "3"},
        NO_FACTS,
        "LX135",
        None,
    ),
    (
        "blocking-wait-off",
        {"TORCH_NCCL_BLOCKING_WAIT": "0", "TORCH_NCCL_ASYNC_ERROR_HANDLING": "3"},
        NO_FACTS,
        None,
        "LX135",
    ),
    ("torchrun-overrides-alias", {"NCCL_ASYNC_ERROR_HANDLING": "3"}, NO_FACTS, "LX136", None),
    ("alias-1-harmless", {"NCCL_ASYNC_ERROR_HANDLING": "1"}, NO_FACTS, None, "LX136"),
    ("alias-under-platform", {"NCCL_ASYNC_ERROR_HANDLING": "3"}, PLATFORM, None, "LX136"),
    (
        "alias-with-new",
        {"NCCL_ASYNC_ERROR_HANDLING": "3", "TORCH_NCCL_ASYNC_ERROR_HANDLING": "3"},
        NO_FACTS,
        None,
        "LX136",
    ),
    ("hca-absent", {"NCCL_IB_HCA": "mlx5_7"}, HOST, "LX150", None),
    ("hca-exclude-all", {"NCCL_IB_HCA": "^mlx5"}, HOST, "LX150", None),
    ("hca-port-absent", {"NCCL_IB_HCA": "=mlx5_0:2"}, HOST, "LX150", None),
    ("hca-partial", {"NCCL_IB_HCA": "=mlx5_0,mlx5_7"}, HOST, "LX151", "LX150"),
    ("hca-no-rdma", {"NCCL_IB_HCA": "mlx5_0"}, HOST_NO_IB, "LX152", "LX150"),
    ("hca-unknown-host", {"NCCL_IB_HCA": "mlx5_0"}, NO_FACTS, None, "LX152"),
    ("hca-recorded-tree", {"NCCL_IB_HCA": "mlx5_0"}, HostFacts(root="/tmp/tree"), "LX152", None),
    ("hca-prefix-trap", {"NCCL_IB_HCA": "mlx5_1"}, HOST, "LX153", "LX150"),
    ("hca-exact", {"NCCL_IB_HCA": "=mlx5_1"}, HOST, None, "LX153"),
    ("hca-prefix-intended", {"NCCL_IB_HCA": "mlx5"}, HOST, None, "LX153"),
    ("hca-inactive", {"NCCL_IB_HCA": "=mlx5_2"}, HOST, "LX156", "LX150"),
    ("hca-active", {"NCCL_IB_HCA": "=mlx5_0:1"}, HOST, None, "LX156"),
    ("ifname-absent", {"NCCL_SOCKET_IFNAME": "eno1"}, HOST, "LX154", None),
    ("ifname-exclude-all", {"NCCL_SOCKET_IFNAME": "^eth,lo,ib,docker"}, HOST, "LX154", None),
    ("ifname-prefix-ok", {"NCCL_SOCKET_IFNAME": "eth"}, HOST, None, "LX154"),
    ("ifname-exact-miss", {"NCCL_SOCKET_IFNAME": "=eth"}, HOST, "LX154", None),
    ("ifname-down", {"NCCL_SOCKET_IFNAME": "ib"}, HOST, "LX155", "LX154"),
    ("ifname-exclude-ok", {"NCCL_SOCKET_IFNAME": "^docker,lo"}, HOST, None, "LX155"),
    ("ifname-unknown-host", {"NCCL_SOCKET_IFNAME": "eno1"}, NO_FACTS, None, "LX154"),
    ("gloo-ifname-absent", {"GLOO_SOCKET_IFNAME": "ens5"}, HOST, "LX157", None),
    ("gloo-ifname-one-absent", {"GLOO_SOCKET_IFNAME": "eth0,ens5"}, HOST, "LX157", None),
    ("gloo-ifname-nccl-syntax", {"GLOO_SOCKET_IFNAME": "=eth0"}, HOST, "LX157", None),
    ("gloo-ifname-prefix", {"GLOO_SOCKET_IFNAME": "eth"}, HOST, "LX157", None),  # exact only
    (
        "gloo-ifname-no-address",
        {"GLOO_SOCKET_IFNAME": "ifb0"},
        HostFacts(interfaces=(iface("eth0"), iface("ifb0", up=False, addr=None))),
        "LX157",
        None,
    ),
    ("gloo-ifname-ok", {"GLOO_SOCKET_IFNAME": "eth0,lo"}, HOST, None, "LX157"),
    ("gloo-ifname-unknown-host", {"GLOO_SOCKET_IFNAME": "ens5"}, NO_FACTS, None, "LX157"),
    ("launch-blocking", {"CUDA_LAUNCH_BLOCKING": "1"}, NO_FACTS, "LX142", None),
    ("launch-blocking-off", {"CUDA_LAUNCH_BLOCKING": "0"}, NO_FACTS, None, "LX142"),
    ("debug-info", {"NCCL_DEBUG": "INFO"}, NO_FACTS, "LX140", None),
    ("debug-warn", {"NCCL_DEBUG": "WARN"}, NO_FACTS, None, "LX140"),
    ("cpp-log-info", {"TORCH_CPP_LOG_LEVEL": "info"}, NO_FACTS, "LX140", None),
    ("dist-debug-detail", {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}, NO_FACTS, "LX141", None),
    ("unknown-nccl", {"NCCL_SOCKET_IFNAMES": "eth0"}, NO_FACTS, "LX100", None),
    ("wrong-case", {"nccl_debug": "INFO"}, NO_FACTS, "LX106", "LX100"),
]


@pytest.mark.parametrize(
    ("env", "facts", "must", "must_not"),
    [pytest.param(e, f, m, n, id=i) for i, e, f, m, n in RULE_CASES],
)
def test_rule(
    env: dict[str, str], facts: HostFacts, must: str | None, must_not: str | None
) -> None:
    found = check_env(env, facts)
    got = [f.code for f in found]
    if must:
        assert must in got, got
        hit = next(f for f in found if f.code == must)
        assert hit.level == CODES[must] and hit.fix
        assert any(f"{name}=" in hit.message for name in env), hit.message
    if must_not:
        assert must_not not in got, got


@pytest.mark.parametrize("note", catalog_data.VALUE_NOTES, ids=lambda n: f"{n.name}={n.value}")
def test_value_note_row(note: catalog_data.ValueNote) -> None:
    value = "3" if note.value == "*" else note.value.lower()
    hit = [f for f in check_env({note.name: value}, NO_FACTS) if f.code == note.code]
    assert hit and hit[0].message.endswith(note.message) and hit[0].fix == note.fix


def test_prefix_trap_fix_makes_the_list_exact() -> None:
    (f,) = [f for f in check_env({"NCCL_IB_HCA": "mlx5_1"}, HOST) if f.code == "LX153"]
    assert f.fix.startswith("NCCL_IB_HCA==mlx5_1") and "mlx5_10" in f.message


def test_missing_interface_fix_names_usable_ones() -> None:
    (f,) = check_env({"NCCL_SOCKET_IFNAME": "eno1"}, HOST)
    assert f.fix == "NCCL_SOCKET_IFNAME='=eth0'"


def test_findings_are_sorted_errors_first() -> None:
    found = check_env({"NCCL_DEBUG": "INFO", "NCCL_TIMEOUT": "1", "NCCL_NTHREADS": "640"}, NO_FACTS)
    assert [f.level for f in found] == ["error", "warning", "info"]


def test_host_codes_are_the_fact_dependent_ones() -> None:
    assert set(CODES) >= HOST_CODES
    for _, env, facts, must, _ in RULE_CASES:
        if must in HOST_CODES:
            assert codes(env, NO_FACTS if facts.root == "/" else HostFacts()) == [
                c for c in codes(env, NO_FACTS) if c not in HOST_CODES
            ]


# --- did you mean / unknown names -------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "guess"),
    [
        ("NCCL_SOCKET_IFNAMES", "NCCL_SOCKET_IFNAME"),
        ("NCCL_IB_HCAS", "NCCL_IB_HCA"),
        ("TORCH_NCCL_ASYNC_ERROR_HANDELING", "TORCH_NCCL_ASYNC_ERROR_HANDLING"),
        ("TORCHELASTIC_RESTART_COUNTS", "TORCHELASTIC_RESTART_COUNT"),
        ("CUDA_VISIBLE_DEVICE", "CUDA_VISIBLE_DEVICES"),
        ("TORCH_DISTRIBUTED_DEBG", "TORCH_DISTRIBUTED_DEBUG"),
        ("LAUNCHX_PG_TIMEOUT", "LAUNCHX_PG_TIMEOUT_S"),
    ],
)
def test_did_you_mean(name: str, guess: str) -> None:
    (f,) = check_env({name: "x"}, NO_FACTS)
    assert f.code == "LX100" and f"did you mean {guess}?" in f.message
    assert f.fix == f"{guess}=x"


def test_unknown_names() -> None:
    (f,) = check_env({"NCCL_FOO_BAR_BAZ": "1"}, NO_FACTS)
    assert f.code == "LX100" and "did you mean" not in f.message
    assert codes({"TORCH_HOME": "/data/torch"}) == []  # loose namespace, nothing close
    assert codes({"NCCL_INSPECTOR_ENABLE": "1"}) == []  # plugin variable
    assert codes({"MY_APP_SETTING": "1"}) == []
    assert codes({"PET_NPROC_PER_NOD": "8"}) == ["LX100"]


# --- secrets, display -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "HF_TOKEN",
        "hf_token",
        "WANDB_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "GITHUB_TOKEN",
        "DB_PASSWORD",
        "MY_PASSWD",
        "SERVICE_APIKEY",
        "SSH_PRIVATE_KEY",
        "GOOGLE_CREDENTIALS",
        "Some_Secret_Value",
        "HUGGING_FACE_HUB_TOKEN",
        "GITHUB_PAT",
        "SMTP_PASS",
    ],
)
def test_secret_names(name: str) -> None:
    assert is_secret(name)
    assert redact(name, "hunter2") == "***"


@pytest.mark.parametrize(
    "name", ["NCCL_DEBUG", "TOKENIZERS_PARALLELISM", "PATH", "HOME", "PYTHONPATH", "PASSTHROUGH"]
)
def test_non_secret_names(name: str) -> None:
    assert not is_secret(name)
    assert redact(name, "value") == "value"


def test_no_variable_the_catalog_describes_is_a_secret_but_launchxs_token() -> None:
    """The secret-word rules must not hide a real knob's value (NCCL_PAT_ENABLE: "PAT" is
    also a personal access token's word), or explain would print *** for it."""
    assert [n for n in CATALOG if is_secret(n)] == ["LAUNCHX_CHANNEL_TOKEN"]


def test_redact_masks_passwords_in_urls() -> None:
    assert redact("MLFLOW_URI", "https://bob:pa55@host/x") == "https://bob:***@host/x"
    assert redact("MASTER_ADDR", "10.0.0.1") == "10.0.0.1"


def test_secrets_never_reach_findings() -> None:
    env = {
        "NCCL_API_TOKEN": "S3CR3T-1",
        "TORCH_NCCL_SECRET": "S3CR3T-2",
        "nccl_password": "S3CR3T-3",
    }
    found = check_env(env, NO_FACTS)
    assert found
    assert all("S3CR3T" not in f.message + f.fix for f in found)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("NCCL_DEBUG", True),
        ("TORCH_NCCL_BLOCKING_WAIT", True),
        ("TORCHELASTIC_RUN_ID", True),
        ("PET_NNODES", True),
        ("CUDA_VISIBLE_DEVICES", True),
        ("MASTER_ADDR", True),
        ("SLURM_JOB_ID", True),
        ("OMPI_COMM_WORLD_RANK", True),
        ("PMI_RANK", True),
        ("LAUNCHX_ATTEMPT", True),
        ("RANK", True),
        ("WORLD_SIZE", True),
        ("LOCAL_RANK", True),
        ("OMP_NUM_THREADS", True),
        ("UCX_TLS", True),
        ("FI_PROVIDER", True),
        ("GLOO_SOCKET_IFNAME", True),
        ("SM_HOSTS", True),
        ("PATH", False),
        ("HOME", False),
        ("EDITOR", False),
        ("LANG", False),
    ],
)
def test_is_distributed(name: str, expected: bool) -> None:
    assert is_distributed(name) is expected


# --- interface lists --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "name", "port", "selected"),
    [
        ("eth", "eth0", None, True),
        ("eth", "ethernet9", None, True),
        ("eth", "eno1", None, False),
        ("=eth0", "eth0", None, True),
        ("=eth0", "eth01", None, False),
        ("^docker", "docker0", None, False),
        ("^docker", "eth0", None, True),
        ("^=docker0", "docker01", None, True),
        ("mlx5_1", "mlx5_10", 1, True),
        ("=mlx5_1:1", "mlx5_1", 2, False),
        ("=mlx5_1:1", "mlx5_1", 1, True),
        ("^mlx5_0:1", "mlx5_0", 2, True),
        ("mlx5_0::0:0", "mlx5_0", 1, True),
    ],
)
def test_iflist_semantics(value: str, name: str, port: int | None, selected: bool) -> None:
    assert parse_iflist(value).selects(name, port) is selected


# --- codes are unique, documented and all exercised -------------------------------------------


def test_catalog_codes_are_the_registrys_lx1xx() -> None:
    registered = {c.code: c.level for c in registry.FINDINGS if c.code.startswith("LX1")}
    assert dict(CODES) == registered


def test_every_code_is_exercised_by_a_test() -> None:
    exercised = {c.values[2] for c in INVALID_CASES}
    exercised |= {code for _, _, code in SPECIFIC if code}
    exercised |= {must for _, _, _, must, _ in RULE_CASES if must}
    exercised |= set(STATUS_CODE.values())
    assert set(CODES) - exercised == set()


def test_emitted_levels_follow_the_code_table() -> None:
    env = {name: value for name, value, _ in SPECIFIC}
    for f in check_env(env, HOST):
        assert f.level == CODES[f.code]


def test_catalog_module_is_pure() -> None:
    for module in (catalog, catalog_data):
        tree = ast.parse(Path(str(module.__file__)).read_text())
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        }
        imported |= {
            str(node.module).split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
        }
        assert not imported & {"os", "subprocess", "socket", "yaml", "torch"}


# --- property: check_env never raises ---------------------------------------------------------

_names = st.one_of(
    st.sampled_from(sorted(CATALOG)),
    st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789", min_size=1, max_size=30).map(
        lambda s: "NCCL_" + s
    ),
    st.text(min_size=0, max_size=20),
)
_values = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            "",
            "0",
            "1",
            "-1",
            "8M",
            "^eth0,^docker0",
            "=^x",
            "Ring/Tree",
            "0x1f",
            "010",
            "<x>",
            "[",
            ":",
            ";",
            "^",
            "=",
            "MAX:",
            "[::1]:0",
            "a:b:c",
        ]
    ),
)
_facts = st.sampled_from([NO_FACTS, HOST, HOST_NO_IB, HostFacts(root="/tree"), PLATFORM])


@settings(max_examples=300, deadline=None)
@given(env=st.dictionaries(_names, _values, max_size=8), facts=_facts)
def test_check_env_never_raises(env: dict[str, str], facts: HostFacts) -> None:
    found = check_env(env, facts)
    assert isinstance(found, list)
    for f in found:
        assert isinstance(f, Finding)
        assert f.level == CODES[f.code]
        assert f.message and f.fix


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(sorted(CATALOG)), secret=st.text(min_size=1, max_size=10))
def test_secret_values_are_redacted(name: str, secret: str) -> None:
    key = "NCCL_" + name + "_TOKEN"
    marker = f"S3CR3T{secret}"
    found = check_env({key: marker, name + "_PASSWORD": marker}, NO_FACTS)
    assert all(marker not in f.message + f.fix for f in found)


@pytest.mark.parametrize(
    ("value", "shown"),
    [("INFO ", "'INFO '"), ("INFO\r", "'INFO\\r'"), ("\tWARN", "'\\tWARN'")],
)
def test_a_value_whose_edges_are_the_fault_is_shown_quoted(value: str, shown: str) -> None:
    (f,) = [f for f in check_env({"NCCL_DEBUG": value}, NO_FACTS) if f.code == "LX112"]
    assert f.message.startswith(f"NCCL_DEBUG={shown}: ")
    assert f.fix.startswith("NCCL_DEBUG=")


def test_an_ordinary_value_is_shown_bare() -> None:
    assert catalog.legible("=mlx5_0:1,mlx5_1") == "=mlx5_0:1,mlx5_1"
    assert catalog.legible("") == "''"
    (f,) = [f for f in check_env({"NCCL_DEBUG": "LOUD"}, NO_FACTS) if f.code == "LX112"]
    assert f.message.startswith("NCCL_DEBUG=LOUD: ")


def test_an_hca_list_that_selects_nothing_is_fixed_with_the_fabric_not_the_front_end() -> None:
    """An H800 node: eight IB HCAs and a RoCE bond for storage. The fix names what auto
    would choose (the IB set, by port, exactly), never the Ethernet bond beside it."""
    bond = IbPort("mlx5_bond_0", 1, "ACTIVE", "LinkUp", "Ethernet", netdev="bond0")
    h800 = HostFacts(
        ib_ports=(*(ib(f"mlx5_{i}") for i in range(8)), bond), interfaces=(iface("bond0"),)
    )
    (f,) = [f for f in check_env({"NCCL_IB_HCA": "=mlx5_9"}, h800) if f.code == "LX150"]
    fabric = ",".join(f"mlx5_{i}:1" for i in range(8))
    assert f.fix == f"NCCL_IB_HCA=={fabric} or unset it"
    # every port down: the devices, exactly, as the host lists them
    down = HostFacts(ib_ports=(ib("mlx5_0", state="DOWN", phys="Disabled"),))
    (f,) = [f for f in check_env({"NCCL_IB_HCA": "=mlx5_9"}, down) if f.code == "LX150"]
    assert f.fix == "NCCL_IB_HCA==mlx5_0 or unset it"
