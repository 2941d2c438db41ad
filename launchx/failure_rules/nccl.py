"""NCCL and the collectives it runs: the watchdog's and other collective timeouts, NCCL's
system, internal and invalid-usage errors, a version that differs between ranks, NCCL's
configuration (interfaces, topology, transports) and InfiniBand/RoCE transfers."""

from __future__ import annotations

from launchx.failure_rules.model import Rule
from launchx.failure_rules.patterns import (
    C10D_COLLECTIVE_FRAME,
    DEEPEP_CPU_TIMEOUT,
    DEEPEP_TIMEOUT,
    NCCL_INTERFACE,
    NO_NCCL_CAUSE,
    NO_NCCL_FIX,
    PG_TIMEOUT_FIX,
)

RULES: tuple[Rule, ...] = (
    Rule(
        name="nccl_version_mismatch",
        category="nccl_version_mismatch",
        code="LX507",
        priority=91,
        patterns=(
            r"Mismatched NCCL version detected",
            # NCCL before 2.8 names no address; 2.8 and later print the (garbled) address
            # between ("Net : connecting to address 10.0.0.2<43211> with family 0 ...",
            # "ncclSocketInit: connecting to address  with family 0 ...")
            r"connecting to address\s+(?:\S+\s+)?with family \d+ is neither AF_INET",
            # torch's library links an NCCL symbol that the libnccl loaded first lacks
            r"libtorch\w*\.so: undefined symbol: nccl\w+",
            # torch passes an ncclConfig_t of its own NCCL's layout to an older libnccl that
            # another package put first on the library path
            r"Invalid config blocking attribute value",
        ),
        cause="ranks loaded different NCCL versions (different torch wheels or a system "
        "libnccl on LD_LIBRARY_PATH on some nodes), or torch loaded an NCCL other than the "
        "one it was built with (two nvidia-nccl packages installed); NCCL's bootstrap then "
        "reads garbage from its peers ('family 0 is neither AF_INET nor AF_INET6') or from "
        "torch's config ('Invalid config blocking attribute').",
        fix="install the same torch build on every node and compare "
        "python -c 'import torch; print(torch.cuda.nccl.version())' across nodes; remove "
        "stray libnccl paths from LD_LIBRARY_PATH and the extra NCCL package (pip list | "
        "grep nccl: keep the one torch requires).",
        fixtures=(
            "nccl_version_mismatch__forgather_docs.log",
            "nccl_version_mismatch__vllm_1726_invalid_config_blocking_attribute.log",
            "nccl_version_mismatch__airllm_331_import_ncclcommresume.log",
        ),
    ),
    Rule(
        name="nccl_no_interface",
        category="nccl_config_error",
        code="LX542",
        priority=89,
        patterns=(
            r"no (?:socket )?interface found",
            r"No usable listening interface found",
            r"No interface found in the same subnet as remote address",
            # ("^name" in NCCL_*IFNAME excludes, and NCCL 2.28+ words it so)
            r"no device found (?:matching|after excluding) =?\S+, verify NCCL_\w*IFNAME",
            r"NET/IB : No IP interface found",
            r"Error: network \w+ not found",
            r"Invalid NCCL_COMM_ID, please use format",
            r"(?:WARN|Socket creation failed).*Address family not supported by protocol",
            r"NCCL_SOCKET_IFNAME.*(?:not found|does not exist|no such)",
        ),
        cause="NCCL found no usable network interface to bootstrap on: NCCL_SOCKET_IFNAME names "
        "an interface this host does not have (it is a prefix list, '=name' for exact), the "
        "host has no up interface with an address of the family NCCL wants, or "
        "NCCL_SOCKET_FAMILY asks for one it does not have.",
        fix="list the interfaces with `ip -br addr` and set NCCL_SOCKET_IFNAME (profile env) to "
        "one every node has, e.g. NCCL_SOCKET_IFNAME=eth0 or =bond0 (exact); unset "
        "NCCL_SOCKET_FAMILY unless the hosts are IPv6-only; `launchx doctor` shows the "
        "interfaces it sees.",
        fixtures=(
            "nccl_config_error__mambatree_14.log",
            "nccl_config_error__nccl_210_address_family.log",
        ),
    ),
    Rule(
        name="nccl_no_algorithm",
        category="nccl_config_error",
        code="LX665",
        priority=75,
        retryable=False,
        # (NCCL 2.30 drops the "Error : " and capitalises: "No algorithm/protocol available")
        patterns=(r"NCCL WARN (?:Error : no|No) algorithm/protocol available",),
        cause="NCCL found no algorithm and protocol it may use for this collective: the "
        "ones the settings leave (NCCL_ALGO, NCCL_PROTO, NCCL_COLLNET_ENABLE, "
        "NCCL_NVLS_ENABLE) have none for this collective on this communicator (CollNet "
        "without a SHARP network, NVLS without NVSwitch multicast, an algorithm with no "
        "broadcast, such as Tree); NCCL's message names NCCL_ALGO when it was set. Every rank "
        "fails the same way at its first such collective.",
        fix="unset NCCL_ALGO and NCCL_PROTO in the profile and the job's environment (NCCL "
        "chooses per collective), or allow Ring too (NCCL_ALGO=Ring,Tree); turn off what "
        "was forced on (NCCL_COLLNET_ENABLE=0, NCCL_NVLS_ENABLE=0); `launchx explain` shows "
        "where each value came from.",
        fixtures=("nccl_config_error__nccl_653_megatron_collnet_no_algorithm.log",),
    ),
    Rule(
        name="nvshmem_no_interface",
        category="nccl_config_error",
        code="LX664",
        priority=89,
        retryable=False,
        patterns=(r"bootstrap_net_init:\d+: No socket interface found",),
        cause="NVSHMEM's unique-id bootstrap (what torch's symmetric memory, DeepEP and "
        "Triton-distributed start NVSHMEM with) found no network interface to listen on: "
        "NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME names one this host does not have, or "
        "NVSHMEM_BOOTSTRAP_UID_SOCK_FAMILY asks for an address family (AF_INET6) that no "
        "interface has an address of.",
        fix="list the interfaces with `ip -br addr` and set NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME "
        "to one every node has (the one NCCL_SOCKET_IFNAME names), and "
        "NVSHMEM_BOOTSTRAP_UID_SOCK_FAMILY to the family its address is (AF_INET for IPv4).",
        fixtures=("nccl_config_error__triton_distributed_122_nvshmem_no_socket_interface.log",),
    ),
    Rule(
        name="nccl_topology",
        category="nccl_config_error",
        code="LX543",
        priority=89,
        patterns=(
            r"Could not find real path of /sys",
            r"Attribute \w+ of node \w+ not found",
            r"Failed to find reverse path from",
            # (NCCL 2.26+: merging NICs of two link types into one virtual NIC, and a remote
            # NIC of another link type than the local one)
            r"NET/IB : Attempted to (?:connect|merge) incompatible devices",
            r"NET/IB : Remote \S+ device is incompatible with the local",
            r"Detected mixed local Net device counts across ranks",
            r"XML Parse ?: ",
            r"XML Import \w+ ?: .*not found",
            r"(?:open|read|load) (?:the )?(?:XML )?topology (?:XML )?file",
            # NCCL_GRAPH_FILE naming a file that is not there ("Could not open XML graph file")
            r"Could not open XML graph file",
            r"XML (?:Topology|Graph) has wrong version",
            r"Could not find any local path from gpu \d+ to net",
            r"TOPO/NET : Only matched \d+ devices, \d+ requested",
            r"No transport found for rank \d+",
        ),
        cause="NCCL could not build the machine's topology: sysfs does not show the GPU's or "
        "NIC's PCI path (common in VMs and containers), NCCL_TOPO_FILE names a file that "
        "is missing, unreadable or describes other devices, or the transports left on "
        "(NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, NCCL_NET) reach no peer.",
        fix="unset NCCL_TOPO_FILE or point it at the topology XML of this machine type (dump one "
        "with NCCL_TOPO_DUMP_FILE on a good node); in a VM or container expose /sys (or use a "
        "topology file) and try a newer NCCL.",
        fixtures=(
            "nccl_config_error__nccl_573_topology_realpath.log",
            "nccl_config_error__tinyllava_112_arch_of_node_cpu.log",
        ),
    ),
    Rule(
        name="neuron_unsupported_topology",
        category="nccl_config_error",
        code="LX745",
        priority=88,
        retryable=False,
        patterns=(
            # the Neuron runtime (Trainium/Inferentia) loads its collectives only for the
            # NeuronCore counts its rings are built for; it names them itself
            r"ERROR +NRT:nrt_load_collectives +Unsupported topology\. Supported number of "
            r"Neuron Cores is",
        ),
        cause="the Neuron runtime's collectives refused the number of NeuronCores this run "
        "asked for: on trn1 they load for 1, 2, 8, 16 or a multiple of 32 cores (the error "
        "lists the counts it supports), so every start fails the same way.",
        fix="choose a tensor-parallel degree (and processes per node) that gives one of the "
        "supported core counts, e.g. --tensor_parallel_size 8 or 32 on trn1.32xlarge; for "
        "other multiples of 2, use an inf2 instance, as the message says.",
        fixtures=("nccl_config_error__optimum_neuron_619.log",),
    ),
    Rule(
        name="nccl_not_built",
        category="nccl_config_error",
        code="LX577",
        priority=88,
        retryable=False,
        patterns=(
            r"Distributed package doesn't have NCCL built in",
            # torch 0.4's THD back end, built without CUDA or NCCL 2
            r"the distributed NCCL backend is not available; try to recompile the THD package",
        ),
        cause=NO_NCCL_CAUSE,
        fix=NO_NCCL_FIX,
        fixtures=("nccl_config_error__kohya_ss_1347_windows_no_nccl_built_in.log",),
    ),
    Rule(
        name="turbomind_backend_not_built",
        category="nccl_config_error",
        code="LX635",
        priority=88,
        retryable=False,
        patterns=(
            # lmdeploy's TurboMind engine (comm/device_comm.cc) asked for a communication
            # backend its build left out: nccl needs USE_NCCL, native/cuda-ipc BUILD_MULTI_GPU
            r"Unknown communication backend: (?:nccl|native|cuda[-_]ipc)\b",
        ),
        cause="lmdeploy's TurboMind engine was built without the communication backend a "
        "tensor-parallel run needs (NCCL, or its own CUDA-IPC one): a Windows wheel, or a "
        "source build without multi-GPU support or without NCCL; every start with tp > 1 "
        "fails the same way.",
        fix="install lmdeploy's Linux CUDA wheel, or rebuild it on Linux with multi-GPU "
        "support (BUILD_MULTI_GPU) and NCCL installed; on Windows serve with tp=1 (torch has "
        "no NCCL there either), on Linux the PyTorch engine (--backend pytorch) is the "
        "other way.",
        fixtures=("nccl_config_error__lmdeploy_v100_2_turbomind_unknown_backend_nccl.log",),
    ),
    Rule(
        name="torch_nccl_before_send_recv",
        category="nccl_config_error",
        code="LX636",
        priority=88,
        retryable=False,
        patterns=(
            # ProcessGroupNCCL.cpp and csrc/cuda/nccl.cpp compiled against an NCCL without
            # ncclSend/ncclRecv (before 2.7): all-to-all and point-to-point raise at once
            r"ProcessGroupNCCL only supports \w+\*? for NCCL lib version >= 2\.7\.0",
            r"all2all is only supported for NCCL lib version >= 2\.7\.0",
        ),
        cause="this torch was compiled against an NCCL older than 2.7, which has no "
        "send/receive, so all_to_all and point-to-point calls on the nccl backend always "
        "fail; which NCCL is loaded at run time does not matter, the check was compiled in.",
        fix="install a torch build made with NCCL 2.7 or later (every official wheel since "
        "torch 1.8; torch.cuda.nccl.version() prints the one it was built with), or rebuild "
        "from source with USE_SYSTEM_NCCL=1 against NCCL >= 2.7.",
        fixtures=("nccl_config_error__pytorch_47291_param_dlrm_alltoall_nccl_lib_version.log",),
    ),
    Rule(
        name="nccl_not_built_warning",
        category="nccl_config_error",
        code="LX622",
        # a symptom's tier: init_process_group warns before it raises LX577's error, but a
        # script that catches that error and falls back to gloo prints the warning too; any
        # other error in the log is then the better cause
        priority=40,
        retryable=False,
        patterns=(
            r"Attempted to get default timeout for nccl backend, but NCCL support is not "
            r"compiled",
        ),
        cause=NO_NCCL_CAUSE,
        fix=NO_NCCL_FIX,
        fixtures=("nccl_config_error__llama_1132_windows_10049_no_nccl.log",),
    ),
    Rule(
        name="torch_build_lacks_transport",
        category="nccl_config_error",
        code="LX528",
        priority=88,
        retryable=False,
        patterns=(
            r"Distributed package doesn't have (?:Gloo|MPI|UCC) built in",
            # builds without torch.distributed at all (Windows before torch 1.7, some macOS
            # and ARM ones): the functions every build with it has are missing
            r"module 'torch\.distributed' has no attribute '(?:init_process_group|"
            r"is_initialized|get_rank|get_world_size|barrier|all_reduce|broadcast|new_group|"
            r"destroy_process_group)'",
        ),
        cause="this torch build lacks the communication backend the run asks for: no wheel "
        "has the MPI backend (or UCC), and builds without torch.distributed at all (Windows "
        "before torch 1.7, some macOS and ARM ones: torch.distributed.is_available() is "
        "False) have none; every start fails the same way.",
        fix="use a backend the build has (torch.distributed.is_gloo_available(), "
        "is_nccl_available() and is_mpi_available() say which: gloo on Windows and macOS, "
        "nccl on Linux with CUDA), or build torch from source with the one you need "
        "(USE_MPI=1). A build "
        "without torch.distributed at all has no backend to choose: install one where "
        "torch.distributed.is_available() is True (Windows: torch 1.7 or later), or run one "
        "process without init_process_group.",
        fixtures=(
            "nccl_config_error__detr_43_windows_no_distributed.log",
            "nccl_config_error__open_ce_376_torch_without_mpi_backend.log",
        ),
    ),
    Rule(
        name="nccl_p2p",
        category="nccl_config_error",
        code="LX573",
        priority=88,
        retryable=False,
        patterns=(
            r"NCCL WARN failed to open CUDA IPC handle",
            r"NCCL WARN failed to peer with device \d+",
            r"NCCL WARN rank \d+ failed to get CUDA IPC handle to device",
            r"NCCL WARN cudaIpcGetMemHandle failed",
            # the P2P transport's own CUDA call failing (RCCL prints its HIP errors this way)
            r"transport/p2p\.cc:\d+ NCCL WARN (?:Cuda|HIP) failure '(?:invalid argument"
            r"|peer access is not supported between these two devices"
            r"|peer mapping resources exhausted)'",
            # vLLM's custom all-reduce (sglang, verl) opening the peers' buffers itself, and
            # the same status as NCCL's "Last error:" words it
            r"(?:Cuda error \S+:\d+ |^Cuda failure (?:\d+ )?)'peer access is not supported "
            r"between these two devices'",
            # ... and torch's own wording of that status (a copy between two GPUs, or an
            # engine's all-reduce that enabled peer access through torch)
            r"CUDA error: peer access is not supported between these two devices",
            r"\bcudaErrorPeerAccessUnsupported\b",
            # accelerate refuses to start NCCL P2P/IB on GeForce cards
            r"Using RTX (?:3090 or )?4000 series doesn't support faster communication",
        ),
        cause="NCCL's P2P transport (or an inference engine's own all-reduce) could not map "
        "one GPU's memory into another on this node: these GPUs cannot reach each other "
        "directly (consumer cards, PCIe ACS or an IOMMU in a VM), or the ranks run in "
        "containers without a shared IPC namespace; NCCL then reports an 'unhandled cuda "
        "error', and it repeats on every start. accelerate refuses up front on GeForce RTX "
        "3090/4000 cards for the same reason.",
        fix="set NCCL_P2P_DISABLE=1 in the profile's env (NCCL then goes through host shared "
        "memory; accelerate's check also wants NCCL_IB_DISABLE=1 on a single node), or "
        "NCCL_P2P_LEVEL=NVL (P2P over NVLink only); vLLM's and sglang's custom all-reduce "
        "reads none of these: start them with --disable-custom-all-reduce (and delete a "
        "stale gpu_p2p_access_cache_for_*.json); on bare metal disable PCIe ACS (or boot "
        "with iommu=pt); run containers with --ipc=host.",
        fixtures=(
            "nccl_config_error__ray_lightning_24_p2p_ipc_peer_access_not_supported.log",
            "nccl_config_error__rccl_1454_mi100_p2p_invalid_argument_torchrun.log",
            "nccl_config_error__sglang_531_rtx4090_custom_allreduce_p2p_unsupported.log",
        ),
    ),
    Rule(
        name="nccl_docker_bridge",
        category="nccl_config_error",
        code="LX544",
        priority=88,
        patterns=(
            rf"{NCCL_INTERFACE}\w+:172\.17\.\d+\.\d+",
            rf"{NCCL_INTERFACE}(?:docker|veth|virbr)\w*:",
            # a link-local address (a container's ECS or metadata link, an IB port's IPv6)
            r"NCCL INFO Bootstrap ?: Using \[?\d*\]?[\w.-]+:(?:169\.254\.|fe80:)",
        ),
        requires=(
            r"-> (?:2|3|6)\b",
            # NCCL's INFO "Call to connect returned Connection refused, retrying" is routine
            # while peers start; its WARN means it gave up
            r"unhandled system error|ncclSystemError|remote process exited"
            r"|NCCL WARN .*Connection refused",
        ),
        cause="NCCL bootstrapped on an address the other node cannot reach, a docker bridge "
        "(docker0, or a container's eth0 in 172.17.0.0/16) or a link-local one (169.254.x.x: "
        "an ECS or metadata link; fe80::), and its socket calls then failed.",
        fix="run the containers with --network=host, or set NCCL_SOCKET_IFNAME (and "
        "GLOO_SOCKET_IFNAME) to the interface the nodes share (e.g. =ens1f0; '^docker,lo' "
        "excludes the bridge).",
        fixtures=("nccl_config_error__nccl_1381_docker_bridge.log",),
    ),
    Rule(
        name="nccl_loopback_interface",
        category="nccl_config_error",
        code="LX685",
        # above NCCL's refused connects read alone (LX553) that it explains
        priority=67,
        retryable=False,
        patterns=(rf"{NCCL_INTERFACE}lo:127\.",),
        # within one host loopback works (launchx's own single-node runs bootstrap there): only
        # a run across hosts, as its launch command shows (two nodes or more, or a node rank
        # above 0, and no loopback master), makes it the cause
        requires=(
            r"^(?!.*--master[_-]addr[= ]+(?:127\.|localhost\b))"
            r".*(?:--nnodes?[= ]+(?:\d+:)?(?:[2-9]|[1-9]\d+)\b|--node[_-]rank[= ]+[1-9])",
        ),
        cause="NCCL bootstrapped on the loopback interface (lo, 127.0.0.1), from "
        "NCCL_SOCKET_IFNAME=lo or because it found no other: no other host can reach that "
        "address, so across nodes the connections fail (a node that dials the 127.0.0.1 "
        "another node advertised reaches itself); every start does the same.",
        fix="set NCCL_SOCKET_IFNAME (and GLOO_SOCKET_IFNAME) on every node to the interface "
        "the nodes share (=eth0, or ^lo,docker to exclude those); loopback serves only runs "
        "on one host; `launchx explain -p <profile>` shows the interface that routes to the "
        "master.",
        fixtures=("nccl_config_error__pytorch_52916_ddp_hang_socket_ifname_lo.log",),
    ),
    Rule(
        name="nccl_link_local_peer",
        category="nccl_config_error",
        code="LX580",
        # Above NCCL's "unhandled system error" (55) that reports this connect a few lines
        # later; below a peer's crash reported by its launcher (LX514, LX548: a refused
        # connect to a link-local address that works within its segment can be that crash's
        # collateral) and LX575 (66), which names an unreachable peer whatever its address.
        priority=58,
        retryable=False,
        patterns=(
            r"Connect to (?:\[?fe80:[0-9a-fA-F:]*(?:%[\w.-]+)?\]?|169\.254\.\d+\.\d+)<\d+> "
            r"failed",
            # a docker bridge's own host address (docker0 is 172.17.0.1, the networks docker
            # creates next take 172.18-31.0.1): the peer picked its bridge interface
            r"Connect to 172\.(?:1[7-9]|2\d|3[01])\.0\.1<\d+> failed",
            # a peer container's own address on a docker network, from a container docker
            # named (its default host name, twelve hex digits, leads NCCL's line): started
            # without the host's network, so the bridge's NAT aborts the connect (ECONNABORTED,
            # in NCCL's words before 2.19 and after); not a refusal (a reachable peer whose
            # socket was gone: a dead peer's collateral) nor a timeout (a firewall, a dead host)
            r"^[0-9a-f]{12}:\d+:\d+ \[\d+\] .*Connect to 172\.(?:1[7-9]|2\d|3[01])\.\d+\.\d+"
            r"<\d+> (?:failed : |returned 103\()Software caused connection abort",
        ),
        cause="NCCL tried to connect to a peer at a link-local address (IPv6 fe80::, or IPv4 "
        "169.254.x.x), at a docker bridge's host address (172.17.0.1, 172.18.0.1) or at a "
        "container's address on a docker network (172.17-31.x.x): the peer advertised the "
        "address of an interface that only reaches its own network segment or host (an IB or "
        "RoCE port's IPv6 address, a cloud metadata or container link, docker0, a container "
        "behind the bridge's NAT), because NCCL took the first interface it found, and it "
        "picks the same one on every attempt.",
        fix="set NCCL_SOCKET_IFNAME (profile env) to the interface the nodes share, e.g. "
        "=eth0 or ^lo,docker; with fe80:: addresses also NCCL_SOCKET_FAMILY=AF_INET; run "
        "containers with --network=host; `launchx explain -p <profile>` shows the interface "
        "that routes to the master.",
        fixtures=(
            "nccl_config_error__verl_726_link_local_169_254.log",
            "nccl_config_error__nccl_975_h800_bootstrap_ipv6_linklocal_ib1.log",
            "nccl_config_error__pytorch_examples_689_multinode_docker_bridge_ip_refused.log",
            "nccl_config_error__nccl_929.log",
        ),
    ),
    Rule(
        name="nccl_peer_gpu_not_visible",
        category="nccl_config_error",
        code="LX608",
        # the root of the "unhandled system error" (55) that NCCL reports for it a few lines on
        priority=58,
        retryable=False,
        patterns=(r"NCCL WARN nvmlDeviceGetHandleByPciBusId\(\) failed: Not Found",),
        # the warning is the cause only when NCCL's set-up then failed (ncclSystemError, 2)
        requires=(r"NCCL INFO init\.cc:\d+ -> 2\b", r"unhandled system error|ncclSystemError"),
        cause="NCCL took a peer for one on this host (the same host identity) but cannot see "
        "that peer's GPU through NVML: two containers on one node, each given some of its "
        "GPUs, look like one host to NCCL, and its topology search fails the same way on "
        "every start.",
        fix="give each container its own NCCL_HOSTID (profile env, e.g. the container's "
        "hostname), or run all of a node's ranks in one container that sees all its GPUs.",
        fixtures=("nccl_config_error__nccl_1529_two_containers_same_node_nvml.log",),
    ),
    Rule(
        name="nccl_open_files_limit",
        category="nccl_system_error",
        code="LX625",
        # the detail of NCCL's "unhandled system error", as LX609
        priority=57,
        retryable=False,
        patterns=(
            # NCCL's socket calls and the NCCL-derived bootstraps of other collectives
            # libraries (AWS Neuron's CCOM) print EMFILE's text after their own words
            r"(?:NCCL|CCOM) WARN .*: Too many open files$",
        ),
        cause="a collective library's bootstrap could not open or accept another socket: the "
        "process hit its open-file limit (ulimit -n, EMFILE). Every rank opens sockets to its "
        "peers, so a limit that suits 8 ranks per node fails at 32 or more; the same launch "
        "fails the same way.",
        fix="raise the open-file limit where the ranks start (`ulimit -n $(ulimit -Hn)` in "
        "the job script; the hard limit itself: /etc/security/limits.conf, LimitNOFILE for a "
        "service, --ulimit nofile=1048576:1048576 for docker), then check it inside the job "
        "with `ulimit -n`.",
        fixtures=("nccl_system_error__aws_neuron_sdk_713_ccom_accept_too_many_open_files.log",),
    ),
    Rule(
        name="nccl_bootstrap_bind",
        category="nccl_system_error",
        code="LX609",
        # the detail of NCCL's "unhandled system error" (55): the bind of its own bootstrap
        # socket, not torch's master port (LX505 reads c10d's and Python's wordings)
        priority=57,
        patterns=(r"NCCL WARN (?:Net : )?Call to bind failed ?: Address already in use",),
        cause="NCCL could not bind the socket of its own bootstrap (an ephemeral port, or the "
        "port NCCL_COMM_ID names): the host ran out of ephemeral ports, usually because the "
        "code creates a new process group or communicator over and over (once per step), or "
        "a fixed NCCL_COMM_ID port is taken.",
        fix="create process groups once, outside the training loop; count the sockets in "
        "TIME_WAIT with `ss -tan state time-wait | wc -l` and widen "
        "net.ipv4.ip_local_port_range if they fill it; unset NCCL_COMM_ID or give it a free "
        "port.",
        fixtures=("nccl_system_error__nccl_293_docker_bootstrap_bind_eaddrinuse.log",),
    ),
    Rule(
        name="efa_setup",
        category="nccl_config_error",
        code="LX585",
        # A symptom's tier: when the plugin fails to start NCCL may fall back to its socket
        # transport and go on, and a peer that died also leaves its packets unanswered; any
        # root cause in the log (an exception, an OOM, a timeout) is the better one.
        priority=48,
        retryable=False,
        patterns=(
            r"NET/OFI OFI fi_getinfo\(\) call failed",
            r"NET/OFI Couldn't open a fabric (?:provider|access domain)",
            # why the plugin gave up at its start on an instance that has EFA
            # (platform-aws.cpp, nccl_ofi_ofiutils.cpp, nccl_ofi_net.cpp): its GPUDirect RDMA
            # off, an endpoint, address vector or queue the provider would not create, a
            # libfabric too old for EFA; not its closing "initialization failed" or "Unable
            # to find a protocol that worked" alone, which an instance without EFA prints too
            # before NCCL goes on with its own transports
            r"NET/OFI GDR disabled on GDR-supported instance type",
            r"NET/OFI Creating new endpoint for domain \S+ failed",
            r"NET/OFI Couldn't (?:open AV|open CQ|create (?:fabric|domain|completion queue)"
            r"|allocate endpoint|enable endpoint|bind EP-(?:AV|CQ))\b",
            r"NET/OFI EFA provider requires at least libfabric version",
            r"NET/OFI (?:CM: )?Unable to insert (?:remote|local) address into address vector",
            # EFA drops packets that the security groups do not allow (FI_EHOSTUNREACH)
            r"NET/OFI Request \S+ \(\w+\) completed with error: err: 113\b",
            r"This error indicates that the security group on either this instance or the peer",
        ),
        cause="NCCL's AWS EFA plugin (aws-ofi-nccl) could not set up the EFA transport: no "
        "EFA provider or device is visible (a container without /dev/infiniband, a libfabric "
        "without EFA or older than the plugin needs), GPUDirect RDMA unavailable on an "
        "instance type that has it (the plugin's own check refuses to run without it), a "
        "peer's EFA address "
        "could not be used or its packets are dropped (the security group must allow all "
        "traffic to and from itself); NCCL then fails or falls back to sockets, and every "
        "start does the same.",
        fix="check `fi_info -p efa -t FI_EP_RDM` on the host and in the container; pass the "
        "EFA devices in (docker --device=/dev/infiniband/uverbs0 ..., the EFA device plugin on "
        "Kubernetes); use the EFA installer's libfabric with the plugin built for it; let the "
        "container see the GPUs' peer memory (the host's EFA driver and GDR support, no "
        "FI_EFA_USE_DEVICE_RDMA=0), or run without it knowingly "
        "(OFI_NCCL_DISABLE_GDR_REQUIRED_CHECK=1, slower); raise the locked-memory limit "
        "(--ulimit memlock=-1) where queues cannot be allocated; allow all inbound and "
        "outbound traffic within the instances' security group.",
        fixtures=(
            "nccl_config_error__aws_ofi_nccl_1020_p5_container_no_efa_devices.log",
            "nccl_config_error__aws_ofi_nccl_889_endpoint_gdr_disabled.log",
        ),
    ),
    Rule(
        name="sharp_collective_failed",
        category="ib_error",
        code="LX823",
        # the fabric's tier, with libfabric's (LX660) and the verbs completion errors (LX518);
        # retried as they are, from a checkpoint the attempt wrote
        priority=60,
        patterns=(
            # NCCL's SHARP plugin (nccl-rdma-sharp-plugins, src/sharp_plugin.c) on CollNet:
            # SHARP's library would not start, create the job's aggregation group (trees
            # locked or its quota taken), register a buffer or run a reduction on the switches
            r"NCCL WARN (?:NET/IB : )?SHARP coll init error: ",
            r"NCCL WARN SHARP group create: ",
            r"NCCL WARN sharp_coll_caps_query failed",
            r"NCCL WARN SHARP (?:regmr|deregmr|allreduce|Allgather|reduce_scatter|reduce_scater)"
            r" failed",
        ),
        cause="NCCL's CollNet over SHARP (in-network reductions on the InfiniBand switches) "
        "failed: SHARP's library could not start or reach its aggregation manager, the job's "
        "aggregation group could not be created (its trees locked or its quota taken by "
        "other jobs, streaming trees the fabric does not offer), or a reduction failed on "
        "the switches; whether a rerun meets the same state of the fabric the log does not "
        "say, so launchx retries it only from a checkpoint the attempt wrote.",
        fix="run without SHARP to confirm (NCCL_COLLNET_ENABLE=0; NCCL_SHARP_DISABLE=1 with "
        "the plugin loaded), or without its streaming trees (SHARP_COLL_ENABLE_SAT=0); ask "
        "the fabric's admins to check the aggregation manager (sharp_am) and the job's SHARP "
        "quota.",
        # NCCL's fallback when CollNet cannot start: the job goes on over the network without
        # SHARP, so a failed start or group is not what ended it
        not_before=(r"Cannot initialize CollNet, using point-to-point network instead",),
        fixtures=("ib_error__nccl_1219_sharp_sat_tree_lock.log",),
    ),
    Rule(
        name="efa_provider_error",
        category="ib_error",
        code="LX660",
        # with the verbs completion errors (LX518): the fabric failed an operation
        priority=60,
        patterns=(
            # libfabric's EFA provider, under aws-ofi-nccl: a send or receive that completed
            # in error ("rxr_cq_write_tx_error: err: 20, prov_err: ..."), an event it could
            # not post to its event queue
            r"::efa:\S+<warn> (?:\S+: )?err: \d+, prov_err: ",
            r"Unable to write to EQ: .* prov_errno:",
        ),
        cause="libfabric's EFA provider (under NCCL's aws-ofi-nccl plugin) reported an "
        "operation that failed on the fabric: a transfer that completed in error, or an "
        "event it could not post to its event queue. At a run's first transfers the usual "
        "reason is the set-up, which fails every start alike: a security group that does not "
        "allow all traffic to and from itself (EFA's packets are dropped), or a provider out "
        "of resources (Cannot allocate memory); after hours of training, a fault of the "
        "fabric, which a retry from the last checkpoint may outlive.",
        fix="allow all inbound and outbound traffic within the instances' security group; "
        "check every instance with `fi_info -p efa -t FI_EP_RDM` and the same EFA installer "
        "(libfabric) version; for Cannot allocate memory raise the locked-memory limit "
        "(ulimit -l unlimited, containers --ulimit memlock=-1) and run fewer processes per EFA "
        "device.",
        fixtures=(
            "ib_error__aws_ofi_nccl_156_efa_tx_error_security_group.log",
            "ib_error__aws_ofi_nccl_141_efa_eq_cannot_allocate_memory.log",
        ),
    ),
    Rule(
        name="nvls_setup",
        category="nccl_config_error",
        code="LX661",
        # above a CUDA kernel's failure (LX512), whose advice (CUDA_LAUNCH_BLOCKING, indices)
        # does not apply to a set-up call, and above CUDA's configuration (LX540), which
        # reads the same statuses from the runtime and says nothing of NVLS
        priority=90,
        retryable=False,
        # only the statuses of a fabric that is not ready or cannot do it, numbered (newer
        # NCCL) or not: a sticky error of a kernel (700, an illegal address) is reported by
        # NVLS's calls too, and is the kernel's (LX512)
        patterns=(
            r"transport/nvls\.cc:\d+ NCCL WARN Cuda failure (?:(?:401|801|802)\b|'(?:the "
            r"operation cannot be performed in the present state|operation not supported|"
            r"system not yet initialized)')",
            # NCCL's own words when binding the multicast memory fails, whatever the status
            # (transport/nvls.cc, 2.27 on): a WARN that fails the set-up from 2.29, or in
            # 2.27-2.28 where NVLS was forced on; not their INFO line that goes on without it
            r"Failed to bind NVLink SHARP \(NVLS\) Multicast memory",
        ),
        exclude=(r"Proceeding without NVLS support",),
        cause="NCCL's NVLink SHARP (NVLS) set-up failed a CUDA call: NVLS builds multicast "
        "objects on the NVSwitches, which the NVSwitch fabric (nvidia-fabricmanager) must "
        "support and be ready for; a fabric manager that is not running, not of the "
        "driver's version or in a bad state fails it at every communicator's set-up.",
        fix="NCCL_NVLS_ENABLE=0 (profile env) runs without NVLS, at some all-reduce speed; "
        "check `systemctl status nvidia-fabricmanager` and that its version is the driver's, "
        "and restart it (or the node) when the same set-up worked before.",
        fixtures=("nccl_config_error__nccl_1788_h100_vllm_nvls_multicast_401.log",),
    ),
    Rule(
        name="nccl_uds_bind",
        category="nccl_system_error",
        code="LX662",
        # with the details of NCCL's system errors (LX609, LX625), above its bare wording
        priority=57,
        retryable=False,
        patterns=(r"NCCL WARN UDS: Binding to socket \S+ failed",),
        cause="NCCL (2.19 and later, with cuMem) hands memory handles to the other processes "
        "of a node over Unix-domain sockets named after the rank and a hash of the "
        "communicator (/tmp/nccl-socket-<rank>-<hash>, in the abstract namespace, which every "
        "process of a network namespace shares), and binding one failed. 'Address already in "
        "use' says another process holds that name, or the NCCL release named it twice: "
        "every local rank of one job failing this way right after an upgrade to NCCL 2.20.3 "
        "points at the release.",
        fix="try another NCCL release (another nvidia-nccl-cu12 wheel, or a container that "
        "ships another); NCCL_CUMEM_ENABLE=0 goes back to the CUDA IPC handles "
        "of older NCCL, which need no such socket; with NCCL 2.29 or later "
        "NCCL_IPC_USE_ABSTRACT_SOCKET=0 puts the sockets in files instead; `ss -xlp | grep "
        "nccl-socket` shows who holds them.",
        fixtures=("nccl_system_error__nccl_1185_fsdp_2203_uds_bind_in_use.log",),
    ),
    Rule(
        name="nvshmem_ipc_exchange",
        category="nccl_config_error",
        code="LX663",
        priority=70,
        retryable=False,
        patterns=(r"exchange_heap_memory_handle:\d+: Fatal IPC Failure",),
        cause="NVSHMEM (under torch's symmetric memory or DeepEP) could not hand its heap's "
        "memory handles over a local socket to the other processes it believes share this "
        "node. A known cause is two nodes with the same host name, which NVSHMEM takes for "
        "one node; processes of one node that do not share an IPC namespace "
        "(separate containers) are another. It fails the same way at every start.",
        fix="give every node its own host name (`hostname` differs on each; containers: no "
        "fixed --hostname); run the processes of a node in one container, or with --ipc=host.",
        fixtures=("nccl_config_error__deepep_316_same_hostname_nvshmem_ipc_failure.log",),
    ),
    Rule(
        name="net_plugin_memory_registration",
        category="nccl_system_error",
        code="LX642",
        # with the details of NCCL's system errors (LX609, LX625), above its bare wording
        priority=57,
        retryable=False,
        patterns=(
            # aws-ofi-nccl (EFA) and Google's GPUDirect-TCPXO plugin (FasTrak): the network
            # plugin could not register a buffer with the device or its driver
            r"NET/OFI (?:CM: )?Unable to register memory",
            r"NET/FasTrak .*Buffer registration request does not have a valid fd set",
        ),
        cause="NCCL's network plugin could not register a communication buffer with the "
        "NIC. aws-ofi-nccl prints libfabric's answer (RC) and the memory's type (1 host, 2 "
        "CUDA, 4 Neuron): EINVAL (-22) for CUDA memory is known from EFA installers before "
        "1.29.1 with NCCL 2.19 or later; ENOMEM (-12) is a registration limit (for host "
        "memory the locked-memory limit). GCP's GPUDirect-TCPXO plugin (FasTrak) reports a "
        "registration request that reached its host daemon without the buffer's file "
        "descriptor. The host's software stack, so every attempt fails alike.",
        fix="on EFA: upgrade the EFA installer (libfabric) to 1.29.1 or later, or set "
        "FI_EFA_SET_CUDA_SYNC_MEMOPS=0 with the older one; for ENOMEM raise memlock (ulimit "
        "-l unlimited; containers: --ulimit memlock=-1; launchx doctor checks it) and check "
        "the GPU's BAR and peer-memory set-up; NCCL_NET_GDR_LEVEL=LOC keeps traffic in host "
        "memory to confirm. On TCPXO: match the plugin, its receive-datapath daemon and the "
        "machine image; NCCL_NET=Socket avoids the plugin (slowly) until they do.",
        fixtures=(
            "nccl_system_error__awsome_distributed_ai_203_efa_register_mr_einval.log",
            "nccl_system_error__megatron_lm_4660_gcp_fastrak_buffer_registration.log",
        ),
    ),
    Rule(
        name="nccl_invalid_usage",
        category="nccl_invalid_usage",
        code="LX516",
        priority=70,
        patterns=(
            r"ncclInvalidUsage",
            r"\binvalid usage\b.*NCCL version",
            # vLLM's pynccl wrapper: "RuntimeError: NCCL error: invalid usage (run with ...)"
            r"NCCL error: invalid usage \(run with NCCL_DEBUG",
            # TensorRT-LLM's check macro ("NCCL error ../tensorrt_llm/runtime/...cpp:90
            # 'invalid usage (run with NCCL_DEBUG=WARN for details)'")
            r"NCCL error \S+:\d+ 'invalid usage\b",
            r"NCCL Error 5\b",
            r"Mismatched collective detected",
            r"message truncated : receiving \d+ bytes instead of \d+",
            r"NET/Socket : peer \S+ message truncated",
            r"ncclInvalidArgument",
            r"\binvalid argument\b.*NCCL version",
            # torch 1.x's wording, without the version ("NCCL error in: .../NCCLUtils.hpp:39,
            # invalid argument")
            r"\bNCCL error in: \S+:\d+, invalid (?:argument|usage)$",
            r"NCCL Error 4\b",
            # extensions' own check macros print the result's number: 4 ncclInvalidArgument,
            # 5 ncclInvalidUsage
            r"NCCL Error at \S+:\d+ value [45]\b",
            r"Trying to (?:send|recv) to self without a matching (?:recv|send)",
            r"NCCL WARN \w+ : invalid root -?\d+ \(root should be in the",
            r"NCCL WARN \w+ : invalid (?:type|reduction operation) -?\d+",
            r"allocated on device \d+ mismatchs with NCCL device \d+",
            # misc/argcheck.cc's pointer checks: a NULL communicator (NCCL called before or
            # without ncclCommInitRank) or a buffer that is not device memory
            r"NCCL WARN \w+ : \w+ argument is NULL",
            r"NCCL WARN \w+ : \w+ (?:0x[0-9a-f]+ |\(nil\) )?is not a valid pointer",
            r"ncclGroupEnd: not in a group call",
        ),
        cause="NCCL rejected how it was called or configured: ranks called different "
        "collectives or sizes (mismatched collective, message truncated), an invalid "
        "NCCL_ALGO/NCCL_PROTO value (NCCL >= 2.24 fails at init on an unknown token), or "
        "tensors on the wrong device.",
        fix="make every rank call the same collectives in the same order with same-shaped "
        "tensors (rerun with TORCH_DISTRIBUTED_DEBUG=DETAIL to see which differ), and give "
        "every node the same NCCL_* environment; unset NCCL_ALGO/NCCL_PROTO or write them as "
        "comma lists of valid names (Ring,Tree).",
        fixtures=(
            "nccl_invalid_usage__fairseq_2924_interleaved.log",
            "nccl_invalid_usage__nccl_296_mismatched_collective.log",
            "nccl_invalid_usage__fastmoe_149_null_comm_single_gpu.log",
            "nccl_invalid_usage__fastmoe_27_distributed_expert_value4.log",
            "nccl_invalid_usage__trl_3310_vllm_serve_dp_nccl_init.log",
            "nccl_invalid_usage__pytorch_examples_484_missing_world_size.log",
            "nccl_invalid_usage__tensorrt_llm_9263.log",
        ),
    ),
    Rule(
        name="nccl_internal_error",
        category="nccl_internal_error",
        code="LX517",
        priority=65,
        patterns=(
            r"ncclInternalError",
            r"\binternal error\b.*NCCL version",
            r"NCCL Error 3\b",
            r"NCCL error: internal error",
            # ncclGetErrorString's own text, as libraries other than torch print it
            r"internal error - please report this issue to the NCCL developers",
            # Habana's HCCL process group (Gaudi), when its collective fails with no detail
            r"what\(\): Collective call returned error\b",
            # the Neuron runtime's collectives (ENC) on Trainium/Inferentia failing to build a
            # replica group's rings, before the process aborts
            r"ENC:\w+ +.*(?:failed to reuse global comm devmem reservation"
            r"|has less channels than this replica group)",
        ),
        cause="NCCL hit an internal check; in practice often a peer that vanished during "
        "setup ('Socket recv failed') or ranks configured differently.",
        fix="check the other ranks' logs for the first failure, make sure every node runs the "
        "same torch/NCCL and the same NCCL_* environment, and rerun with NCCL_DEBUG=INFO "
        "NCCL_DEBUG_SUBSYS=INIT,NET to see the failing call.",
        fixtures=(
            "nccl_internal_error__nccl_1546.log",
            "nccl_internal_error__pytorch_78638_init_barrier.log",
            "nccl_internal_error__tensorrt_llm_213_allreduce_plugin_mpirun.log",
            "nccl_internal_error__optimum_habana_505_gaudi_ray_multinode_hccl_collective.log",
            "nccl_internal_error__optimum_neuron_761_trn1_32proc_enc_replica_group_assert.log",
        ),
    ),
    Rule(
        name="nccl_remote_error",
        category="nccl_internal_error",
        code="LX614",
        # below every rule that reads the remote error's detail (a reset or closed socket,
        # LX520; an IB completion, LX518): ncclRemoteError alone says only "a peer or the
        # network", which is the category list's "remote error with no better cause"
        priority=54,
        # how a run died, not why, like a closed socket: retried once a checkpoint exists
        on_progress=True,
        patterns=(
            r"ncclRemoteError",
            r"remote process exited or there was a network error",
        ),
        cause="NCCL reported a remote error: a peer's process exited in the middle of a "
        "collective, or the network between them failed; without NCCL_DEBUG=WARN output the "
        "log does not say which.",
        fix="read the other ranks' and nodes' output for the first failure (a crash, an OOM, a "
        "kill is the cause); if none is there, rerun with NCCL_DEBUG=WARN (or INFO with "
        "NCCL_DEBUG_SUBSYS=INIT,NET) in the profile's env to see the failing connection.",
        fixtures=("nccl_internal_error__nccl_934_remote_error_no_detail.log",),
    ),
    Rule(
        name="ib_qp_rejected",
        category="ib_error",
        code="LX563",
        priority=61,
        retryable=False,
        patterns=(r"ibv_modify_qp failed with error (?:Invalid argument|No such device)",),
        cause="the HCA rejected NCCL's queue-pair settings while the ranks connected (EINVAL "
        "or ENODEV from ibv_modify_qp): a GID index that does not exist or has no address on "
        "this port (RoCE: a link-local fe80 GID), "
        "an MTU or port the device does not offer, a port that is down; that is the host's "
        "configuration, and the next attempt is rejected the same way.",
        fix="check the ports and their GIDs (ibv_devinfo -v, show_gids): on RoCE set "
        "NCCL_IB_GID_INDEX to an index with the right address family (often 3), pick only "
        "active ports with NCCL_IB_HCA, and compare the NCCL version with one that worked.",
        fixtures=(
            "ib_error__nccl_302_ibv_modify_qp_invalid_argument_regression.log",
            "ib_error__nccl_1657_vllm_pod_ibv_modify_qp_no_such_device.log",
        ),
    ),
    Rule(
        name="tensorpipe_ibv",
        category="ib_error",
        code="LX630",
        # above the user's exception rule (LX511): TensorPipe raises it as a RuntimeError
        priority=82,
        retryable=False,
        patterns=(r"at tensorpipe/common/ibv\.h:\d+ \"[^\"]*\": \w",),
        cause="torch.distributed.rpc's TensorPipe agent could not start its InfiniBand (ibv) "
        "transport: the verbs device it found refuses what it asks for (EFA and other "
        "devices without reliable-connected queue pairs, a libibverbs unlike the one "
        "TensorPipe was built against, a port that is down) or cannot register memory with "
        "it (a locked-memory limit); it fails the same way on every start.",
        fix="keep the RPC agent off InfiniBand: init_rpc(..., rpc_backend_options="
        "rpc.TensorPipeRpcBackendOptions(_transports=['uv'])) (TCP; add _channels=['basic'] "
        "if a channel fails too); check the device with ibv_devinfo and the memlock limit "
        "(ulimit -l unlimited; launchx doctor checks it on every node).",
        fixtures=(
            "ib_error__tensorpipe_413_init_rpc_ibv_invalid_argument.log",
            "ib_error__pytorch_73885_fairscale_pytest_ibv_not_supported.log",
        ),
    ),
    Rule(
        name="tensorpipe_uv_listener_address",
        category="nccl_config_error",
        code="LX791",
        # above the "terminate called" abort it ends in (LX676's segfault reading), beside
        # the other rules that name a bind's address (LX580, LX741)
        priority=60,
        retryable=False,
        patterns=(
            # TensorPipe's TCP (uv) transport binding its listener to the address it picked
            # for this host: EINVAL from bind(2) on an IPv6 link-local address, which needs a
            # scope (interface) that the auto-detected address lacks
            r"In initFromLoop at \S*tensorpipe/transport/uv/listener\.cc:\d+ "
            r"\"rv < 0: invalid argument\"",
        ),
        cause="torch.distributed.rpc's TensorPipe agent could not listen on the address it "
        "chose for this host: with no interface named it resolves the host name, and where "
        "that gives an IPv6 link-local address (fe80::) bind(2) refuses it without an "
        "interface, on every start.",
        fix="name the interface the workers share: TP_SOCKET_IFNAME=<iface> (with "
        "GLOO_SOCKET_IFNAME for the process group) in the profile's env; or make the host "
        "name resolve to a routable IPv4 address (/etc/hosts).",
        fixtures=("nccl_config_error__tensorpipe_224_uv_listener_invalid_argument.log",),
    ),
    Rule(
        name="ascend_rdma_init",
        category="ib_error",
        code="LX639",
        priority=62,
        retryable=False,
        patterns=(
            # HCCL on Ascend NPUs, when the device's RoCE NIC will not start: "[Init][RaRdma]
            # ... rdma init fail" and "ra rdma init failed, devid[0] ip[...]"
            r"\[Init\]\[RaRdma\].*rdma init fail",
            r"\bra rdma init failed, devid\[\d+\]",
        ),
        cause="HCCL could not start RDMA (RoCE) on an NPU's own network port, so the ranks "
        "cannot link across devices or nodes: the port is down (no cable, a switch port "
        "shut) or has no IP address; HCCL then fails to listen on that address. Nothing "
        "changes by itself before the next attempt.",
        fix="check each NPU's port with hccn_tool (`hccn_tool -i <dev> -link -g` for the "
        "link, `-ip -g` for its address, `-net_health -g` for its reach), then bring the "
        "link up or configure the address.",
        fixtures=("ib_error__vllm_ascend_1815_npu_rdma_init_port_down.log",),
    ),
    Rule(
        name="hccl_error_cqe",
        category="ib_error",
        code="LX708",
        # above the watchdog's abort (LX676) that carries it
        priority=62,
        patterns=(
            # HCCL's EI0013 (RoCE) and EI0018 (UB): the NIC gave up retransmitting to a peer
            r"Execution[_ ]Error[_ ](?:ROCE|UB)[_ ]CQE\(EI00(?:13|18)\)",
            r"An error CQE occurred during operator execution",
            # the RoCE driver's own line in CANN's log
            r"handle_error_cqe\(\d+\) ?: error cqe status: 0x[0-9a-fA-F]+",
        ),
        cause="an NPU's RoCE (or UB) link to a peer exhausted its retransmissions in the "
        "middle of a collective (HCCL's ERROR CQE, EI0013): the link between the two devices "
        "dropped or flapped, or the peer's process had already exited, so nothing answered.",
        fix="first check whether the peer rank (the log names its server and device) died "
        "earlier, and read its log; else check both ports with hccn_tool (`-link -g`, "
        "`-net_health -g`, `-link_stat -g` for flaps) and the switch; a link that flaps "
        "recovers between attempts, a dead peer's cause does not.",
        fixtures=("ib_error__vllm_ascend_7384.log",),
    ),
    Rule(
        name="ib_memory_registration",
        category="ib_error",
        code="LX567",
        priority=62,
        retryable=False,
        patterns=(
            # (ENOMEM too: a registration the locked-memory limit or the driver refuses; other
            # verbs calls failing with it are NCCL's system error, LX519)
            r"ibv_reg(?:_dmabuf)?_mr\w* failed with error (?:Invalid argument|Bad address"
            r"|Cannot allocate memory)",
            # Mooncake's transfer engine (SGLang's and vLLM's prefill/decode KV transfers)
            # registering its buffers: glog's PLOG appends strerror and errno
            r"^(?:\S*rdma_context\.cpp:\d+\] )?Failed to register memory (?:0x)?[0-9a-fA-F]+: "
            r"[A-Z][a-z][\w ,'-]* \[\d+\]",
            # UCX's (NIXL's UCX backend) registering the KV cache with the NIC
            r"\bUCX +ERROR +ibv_reg(?:_dmabuf)?_mr\(address=0x[0-9a-fA-F]+, length=\d+, "
            r"access=0x[0-9a-fA-F]+\) failed: ",
            # UCCL's expert-parallel proxies (a DeepEP-compatible engine) registering their
            # RDMA buffers
            r"\bRDMA buffer MR registration failed: ",
        ),
        cause="NCCL's IB transport (or an engine's RDMA transfer engine: Mooncake, NIXL's UCX "
        "backend, UCCL's proxies) could not register the buffers with the HCA (EINVAL, EFAULT "
        "or EOPNOTSUPP from ibv_reg_mr, ENOMEM, or another errno from a driver that cannot "
        "map that memory): usually "
        "GPU memory without GPUDirect RDMA (the nvidia-peermem module not loaded, or a "
        "container without it), or a locked-memory limit too low (ENOMEM; with memlock "
        "unlimited, ENOMEM is the kernel's or the NIC driver's); the host's "
        "configuration, so the next attempt fails the same way.",
        fix="load GPUDirect RDMA (modprobe nvidia-peermem, or NCCL_DMABUF_ENABLE=1 on a kernel "
        "and driver with dma-buf), raise the memlock limit (ulimit -l unlimited; --ulimit "
        "memlock=-1 in containers; for ENOMEM with memlock already unlimited, boot the "
        "previous kernel or NIC driver), or keep the traffic in host memory with "
        "NCCL_NET_GDR_LEVEL=LOC to confirm; launchx doctor checks memlock on every node.",
        fixtures=(
            "ib_error__ms_swift_6107_ibv_reg_mr_invalid_argument.log",
            "ib_error__sglang_6894.log",
            "ib_error__dynamo_10671.log",
            "ib_error__mooncake_454.log",
            "ib_error__uccl_937.log",
            "ib_error__miaai_dgx_sparks_14.log",
        ),
    ),
    Rule(
        name="nvshmem_ib_setup",
        category="ib_error",
        code="LX697",
        # above the crash it leads to (LX513): NVSHMEM goes on with the endpoint it could not
        # make, and the ranks die of SIGSEGV in its code
        priority=77,
        retryable=False,
        patterns=(
            # NVSHMEM's IB transports (ibrc, ibgda, ibdevx) as DeepEP and Flux run them
            r"transport/ib\w+/\w+\.cpp:\d+: (?:NULL value |non-zero status: \d+ )?"
            r"(?:cq|qp|srq|pd|mr|ep)(?: creation|_create) failed",
            # its GPU-initiated transport (IBGDA) setting up its own verbs objects: an address
            # handle, the DC target, the doorbell page (a container without the privileges or
            # a NIC without the features it needs)
            r"transport/ibgda/ibgda\.cpp:\d+: (?:NULL value |non-zero status: \d+ )?"
            r"(?:Unable to create ah\b|create DCT share err\b|cannot allocate mlx5dv_devx_\w+)",
        ),
        cause="NVSHMEM's InfiniBand transport (DeepEP's, Flux's) could not create its queues or "
        "endpoints on the HCA, so no connection between the GPUs' processes was made and the "
        "ranks crashed in NVSHMEM right after: usually a locked-memory limit too low for the "
        "queues, a container that sees the HCA without its verbs devices, or more queues than "
        "the HCA allows; the host's set-up, so the next attempt fails the same way.",
        fix="raise the memlock limit (ulimit -l unlimited; --ulimit memlock=-1 and "
        "--device=/dev/infiniband in containers), check `ibv_devinfo` inside the container, "
        "and name the HCAs NVSHMEM may use (NVSHMEM_HCA_LIST / NVSHMEM_ENABLE_NIC_PE_MAPPING); "
        "`launchx doctor` checks memlock and the HCAs on every node.",
        fixtures=(
            "ib_error__deepep_126.log",
            "ib_error__megatron_bridge_5050.log",
            "ib_error__sglang_12533.log",
        ),
    ),
    Rule(
        name="ib_completion_error",
        category="ib_error",
        code="LX518",
        priority=60,
        patterns=(
            # (NCCL 2.29's GPU-initiated networking prints it as "NET/IB/GIN: ...")
            r"NET/IB\w*(?:/GIN)? ?: ?Got completion from peer",
            r"NET/IB : Got completion with error",
            r"NET/IB : .*ibv_\w+ failed",
            r"ibv_modify_qp failed",
            r"IBV_WC_RETRY_EXC_ERR|transport retry counter exceeded",
            r"NET/IB ?: (?:\S+:\d+ )?(?:Got )?async (?:fatal |error )?event",
            # (NCCL 2.29 puts the device's name first: "NET/IB: mlx5_0: Got CQE with error")
            r"NET/IB: (?:\S+: )?Got CQE with error",
            r"NET/IB: Fatal error\. Detected \d+ failed devices",
        ),
        cause="an InfiniBand/RoCE transfer failed: the work completion's status, in the "
        "evidence line, says how (12, IBV_WC_RETRY_EXC_ERR: the transport's retries ran out, "
        "the two NICs cannot reach each other or the fabric is congested or flapping; 13: "
        "the receiver had no buffer posted; 5: flushed after the queue pair had already "
        "failed, so the first error is the cause; 4 or 10: a memory region or key the HCA "
        "rejected).",
        fix="check the links (ibstat, ibv_devinfo, ib_write_bw between the two hosts); select "
        "only connected HCAs with NCCL_IB_HCA (prefix match; '=mlx5_0' for exact); on RoCE "
        "with NCCL < 2.21 set NCCL_IB_GID_INDEX (often 3); on rail-optimized fabrics "
        "NCCL_CROSS_NIC=0; for congestion raise NCCL_IB_TIMEOUT to 22-23 (default 20, "
        "about 30 s with 7 retries), not 30.",
        fixtures=("ib_error__nccl_1405.log", "ib_error__nccl_394_gid_table_change.log"),
    ),
    Rule(
        name="ucx_completion_error",
        category="ib_error",
        code="LX713",
        # the same tier as NCCL's completion errors (LX518)
        priority=60,
        patterns=(
            # UCX (NIXL's and LMCache's transports in prefill/decode serving, UCC) reporting
            # a work completion with an error status: mlx5's syndrome per device and port
            r"\bUCX +(?:ERROR|FATAL) (?:[A-Za-z -]+ error|Transport retry count exceeded"
            r"|Receive-no-ready retry count exceeded|Remote side aborted|Bad response"
            r"|Invalid request|Generic) on \S+:\d+/(?:IB|RoCE)\b",
            # ... any syndrome by its tail, as UCX 1.15 and older print them ("Local
            # protection on mlx5_0:1/IB (synd 0x4 ...)", without "error")
            r"\bUCX +(?:ERROR|FATAL) [A-Z][A-Za-z -]* on \S+:\d+/(?:IB|RoCE) \(synd 0x",
            # ... and the verbs transports' and EFA's (SRD) completions
            r"\bUCX +(?:ERROR|FATAL) (?:send|recv|receive) completion(?:\[\d+\])? with error "
            r"on \S+: ",
        ),
        cause="an RDMA transfer made by UCX (the KV-cache transfer of a prefill/decode "
        "deployment through NIXL or LMCache, or another UCX user) completed with an error: "
        "the NIC reported a protection or access fault on a buffer (memory not registered for "
        "RDMA, GPUDirect missing, a remote buffer already freed), gave up retransmitting to "
        "a peer that did not answer (a link down, the peer gone), or flushed its queue after "
        "an earlier error.",
        fix="read the first error of the run: a flushed queue follows the peer's own failure; "
        "for protection or access errors check GPUDirect RDMA (nvidia-peermem or dma-buf) and "
        "the memlock limit on both nodes, and try UCX_TLS=rc,cuda_copy (or tcp) to tell the "
        "fabric from the buffers; check the links with ibv_devinfo / fi_info.",
        fixtures=("ib_error__dynamo_843.log", "ib_error__nixl_1983.log"),
    ),
    Rule(
        name="mooncake_qp_handshake",
        category="ib_error",
        code="LX681",
        priority=60,
        patterns=(
            # Mooncake's transfer engine (SGLang's and vLLM's prefill/decode transfers) moving
            # its queue pair to ready-to-receive or ready-to-send in its RDMA handshake
            r"\[Handshake\] Failed to modify QP to RT[RS]\b",
        ),
        cause="Mooncake's transfer engine could not bring up an RDMA connection to a peer "
        "during its handshake: the queue pair refused the move to ready-to-receive or "
        "ready-to-send with the address it was given (the peer's GID, LID and QP number, "
        "the path MTU). 'Connection timed out' (110): on RoCE the peer's GID could not be "
        "resolved to a route (a GID index of the wrong RoCE version or address family, "
        "another subnet or rail, a port down); 'Invalid argument' (22): a GID index or MTU "
        "the port does not have.",
        fix="compare the two hosts' devices (ibv_devinfo: port state and active MTU; "
        "show_gids: the RoCE v2 entry of each port), set Mooncake's GID index (MC_GID_INDEX) "
        "and MTU (MC_MTU) to what both ports have, give it the NICs that reach the peer, and "
        "test the pair with ib_write_bw before starting the engine again.",
        fixtures=("ib_error__sglang_6548_pd_mooncake_qp_rtr_timeout.log",),
    ),
    Rule(
        name="ib_collective_mismatch",
        category="ib_error",
        code="LX558",
        priority=60,
        retryable=False,
        patterns=(
            r"NET/IB ?: .*collective mismatch error",
            r"NET/IB ?: .*posted incorrect receive info",
        ),
        cause="NCCL's IB transport received a message of another size than the one posted "
        "although the ranks called the same collective: on InfiniBand/RoCE this is almost "
        "always the NICs' configuration (relaxed ordering forced on, a PCIe setting), so it "
        "repeats on every run.",
        fix="check the NICs' ordering setting (mlxconfig ... q PCI_WR_ORDERING must say "
        "per_mkey, not force_relax), try NCCL_PROTO=Simple, and compare with NCCL_IB_DISABLE=1 "
        "(if that works the IB setup is the cause); if it persists, check that every rank "
        "calls the same collectives with the same sizes (TORCH_DISTRIBUTED_DEBUG=DETAIL).",
        fixtures=("ib_error__nccl_615_ib_collective_mismatch.log",),
    ),
    Rule(
        name="nvshmem_ib_connect",
        category="ib_error",
        code="LX600",
        priority=61,
        retryable=False,
        patterns=(
            # NVSHMEM's GPU-initiated (IBGDA) and host (IBRC) transports moving a queue pair
            # to ready-to-receive: the fabric's addressing (RoCE GID, MTU) is refused
            r"Error in mlx5dv_devx_obj_modify for \w+_QP",
            r"ibgda_rc_init2rtr failed",
        ),
        cause="NVSHMEM (used by DeepEP and other expert-parallel kernels) could not bring its "
        "InfiniBand/RoCE queue pairs to the ready state while connecting the ranks: the NIC "
        "refused the connection's addressing (on RoCE usually the GID index or the MTU, or "
        "GPU-initiated IBGDA not enabled in the driver), so every start fails the same way.",
        fix="check the NIC's GID table (show_gids) and on RoCE set NVSHMEM_IB_GID_INDEX (often "
        "3, as NCCL_IB_GID_INDEX); check that the GPU driver allows IBGDA (DeepEP's NVSHMEM "
        "notes: options nvidia NVreg_EnableStreamMemOPs=1 "
        'NVreg_RegistryDwords="PeerMappingOverride=1;") or fall back with '
        "NVSHMEM_IB_ENABLE_IBGDA=false; and that plain NCCL over the same NICs works (an "
        "nccl-tests all_reduce across the nodes).",
        fixtures=("ib_error__deepep_17_h20_roce_ibgda_init2rtr.log",),
    ),
    Rule(
        name="rdma_transfer_engine_setup",
        category="ib_error",
        code="LX703",
        priority=61,
        retryable=False,
        patterns=(
            # Mooncake's transfer engine (KV-cache and weight transfer in vLLM, SGLang and
            # checkpoint-engine) after it disabled every device it found
            r"RdmaTransport: No available RNIC",
            r"RdmaTransport: cannot initialize RDMA resources",
            # UCX's mlx5 transport (NIXL's UCX backend) refused a queue object by the NIC
            r"UCX +ERROR +mlx5dv_devx_obj_create\(\w+\) failed on \w+",
            # ... or an address handle for a peer it connects to (its GID on RoCE)
            r"UCX +ERROR +ibv_create_ah\(.*\) for \w+(?: mlx5)? connect on \w+ failed",
        ),
        cause="the RDMA engine that moves KV cache or weights between processes (Mooncake's "
        "RdmaTransport, NIXL's UCX backend) could not set up the InfiniBand/RoCE NIC: no "
        "device with an active port (the NIC disabled, its link down, the wrong device "
        "named), or the NIC refused to create the engine's queues (firmware, driver and "
        "OFED out of step, a GPU-initiated mode the driver does not enable, the locked-memory "
        "limit or the NIC's queue limits reached), or could not make an address handle for a "
        "peer (on RoCE, a GID index without an address or a peer subnet the port cannot "
        "reach); it usually fails the same way on every start.",
        fix="check the NIC with `ibv_devinfo` (state: PORT_ACTIVE) and `ibstat`; name an "
        "active device to the engine (Mooncake's device list, UCX_NET_DEVICES=mlx5_0:1 for "
        "UCX; on RoCE the GID index with the port's address, UCX_IB_GID_INDEX); raise the "
        "locked-memory limit (ulimit -l unlimited); bring firmware, driver "
        "and OFED to one supported set, or let UCX create its queues without DevX "
        '(UCX_IB_MLX5_DEVX_OBJECTS=""); run the engine\'s TCP transport once to confirm the '
        "rest of the set-up works.",
        fixtures=(
            "ib_error__checkpoint_engine_1.log",
            "ib_error__sglang_pr27894.log",
            "ib_error__dynamo_814.log",
        ),
    ),
    Rule(
        name="nixl_engine_id_mismatch",
        category="nccl_config_error",
        code="LX718",
        # above the script's exception (LX511): the check vLLM's connector raises itself
        priority=82,
        retryable=False,
        patterns=(
            # vLLM's NixlConnector handshake: the agent that answered on the side channel is
            # another engine's than the one the request names
            r"Remote NIXL agent engine ID mismatch\b",
        ),
        cause="a prefill/decode pair handshaking through vLLM's NIXL connector reached another "
        "engine than the one the request came from: the side channel that carries the "
        "handshake (VLLM_NIXL_SIDE_CHANNEL_HOST / _PORT) was left at its default "
        "(localhost, one port) where several engines run, or points at the wrong host; every "
        "transfer between those engines fails the same way.",
        fix="give each engine its own reachable side channel: set VLLM_NIXL_SIDE_CHANNEL_HOST "
        "to the node's address the peers can reach and a distinct VLLM_NIXL_SIDE_CHANNEL_PORT "
        "per engine on a node (data-parallel ranks add their index to it).",
        fixtures=("nccl_config_error__vllm_27083.log",),
    ),
    Rule(
        name="hccl_not_supported",
        category="nccl_config_error",
        code="LX726",
        # LX701's tier
        priority=60,
        retryable=False,
        # HCCL_E_NOT_SUPPORT = 5 (hccl_types.h), as torch_npu reports a call into HCCL
        patterns=(r"HCCL function error: .*, error code is 5$",),
        cause="HCCL (Ascend's NCCL) does not support what a communicator asked for on this "
        "NPU, topology or CANN release (HCCL_E_NOT_SUPPORT): a card or server model whose "
        "HCCL lacks the collective, the link type or the number of devices per node the "
        "engine's parallel layout needs; every start fails the same way.",
        fix="check the engine's support matrix for this NPU (an Atlas 300I / 310P card "
        "supports fewer HCCL features than the 910 series), change the tensor/pipeline "
        "layout, or update CANN and torch_npu together; the CANN plog (~/ascend/log) names "
        "the feature HCCL refused.",
        fixtures=("nccl_config_error__gpustack_4652.log",),
    ),
    Rule(
        name="nccl_graph_capture_unsupported",
        category="nccl_invalid_usage",
        code="LX727",
        priority=62,
        retryable=False,
        patterns=(
            # NCCL refusing to run inside a CUDA graph capture (ncclInvalidUsage follows)
            r"NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime "
            r">= 11\.3 or if the installed CUDA driver < R465",
        ),
        cause="a collective was called inside a CUDA graph capture (vLLM's and SGLang's "
        "decode graphs, torch.cuda.graphs) with an NCCL that cannot be captured: the NCCL "
        "library loaded was built against a CUDA runtime older than 11.3 (a pip or conda "
        "package for another CUDA than torch's), or the driver is older than R465.",
        fix="make the process load the NCCL built for torch's CUDA (pip install the "
        "nvidia-nccl-cu1x matching torch, remove a stray libnccl from LD_LIBRARY_PATH or "
        "VLLM_NCCL_SO_PATH), or update the driver; turning CUDA graphs off (vLLM "
        "--enforce-eager) avoids the capture.",
        fixtures=("nccl_invalid_usage__vllm_3069.log",),
    ),
    Rule(
        name="mooncake_master_rpc_timeout",
        category="collective_timeout",
        code="LX728",
        # the collective timeouts' tier
        priority=50,
        patterns=(
            # Mooncake store's client calling its master service (mount_segment, put/get
            # metadata) over coro_rpc
            r"master_client\.cpp:\d+\] RPC call failed: Connection timed out",
        ),
        cause="a Mooncake store client (inside a vLLM or SGLang worker) called its master "
        "service and got no answer in time: the master is overloaded or stalled (a large "
        "segment being mounted, many clients at once), or the network between this node and "
        "the master drops the traffic; the worker fails to start or fails the request.",
        fix="check that the master (mooncake_master) is up and reachable on its RPC port "
        "from this node, and its own log for a stall; mount smaller segments or raise the "
        "client's RPC timeout; retry once the master answers.",
        fixtures=("collective_timeout__mooncake_1050.log",),
    ),
    Rule(
        name="ucx_docker_bridge_peer",
        category="nccl_config_error",
        code="LX729",
        # LX580's tier, for UCX
        priority=58,
        retryable=False,
        patterns=(
            # UCX's TCP transport connecting to a docker bridge's host address (docker0 is
            # 172.17.0.1, the next networks 172.18-31.0.1), which every node has for itself
            r"\bUCX +ERROR +connect\(fd=\d+, dest_addr=172\.(?:1[7-9]|2\d|3[01])\.0\.1:\d+\) "
            r"failed",
        ),
        cause="UCX (under Open MPI, NIXL or UCC) connected to a peer at a docker bridge's host "
        "address (172.17.0.1): the peer advertised its docker0 interface, which every node "
        "has with the same address, so the connection reaches the wrong host or nothing, on "
        "every start.",
        fix="restrict UCX to the interfaces the nodes share: UCX_NET_DEVICES=<ib or eth "
        "device> (or UCX_TCP_... exclusions), or UCX_TLS=rc to use the HCAs; run the "
        "containers with --network=host.",
        fixtures=("nccl_config_error__ucx_9908.log",),
    ),
    Rule(
        name="zmq_bind_address_not_local",
        category="nccl_config_error",
        code="LX733",
        # above the ZMQError's own reading (LX511)
        priority=84,
        retryable=False,
        patterns=(
            # an engine binding its ZMQ socket (vLLM's data-parallel RPC, its front end) to an
            # address given on the command line: EADDRNOTAVAIL
            r"ZMQError: Cannot assign requested address \(addr='tcp://",
        ),
        cause="the process tried to listen on an IP address that is not one of this host's "
        "own (vLLM's --data-parallel-address, an engine's --host or port settings): the "
        "address names another node, a stale or floating address, or a pod's service IP; "
        "every start on this host fails the same way.",
        fix="give this node an address it owns (`ip -brief addr` lists them): on multi-node "
        "data parallel, the head's address is bound only by the head, and the other nodes "
        "start with --headless and connect to it.",
        fixtures=("nccl_config_error__vllm_31884.log",),
    ),
    Rule(
        name="hpu_lazy_collectives_off",
        category="nccl_config_error",
        code="LX738",
        # the collective libraries' configuration tier (LX727)
        priority=62,
        retryable=False,
        patterns=(
            # Gaudi's PyTorch bridge refusing a collective while an HPU graph is recorded
            r"collective nonSFG is not supported during hpu graph capturing",
        ),
        cause="a collective (tensor parallelism's all-reduce) ran inside an HPU graph "
        "capture with lazy collectives off: Gaudi's bridge records collectives in a graph "
        "only when PT_HPU_ENABLE_LAZY_COLLECTIVES=true, which tensor-parallel inference with "
        "HPU graphs (vLLM on Gaudi, optimum-habana) needs.",
        fix="export PT_HPU_ENABLE_LAZY_COLLECTIVES=true for every rank (multiprocess workers "
        "inherit it from the launching shell; Ray workers from the environment `ray start` "
        "ran in on each node, or a runtime_env), or turn HPU graphs off (vLLM's "
        "--enforce-eager, no --use_hpu_graphs for optimum-habana).",
        fixtures=("nccl_config_error__vllm_fork_170.log",),
    ),
    Rule(
        name="hpu_collective_graph_compile",
        category="nccl_config_error",
        code="LX739",
        # above LX737, whose words it shares: the bridge's own log line of the same failure
        # has no frame, and only this rule knows it was a collective's
        priority=79,
        retryable=False,
        patterns=(r"Graph compile failed\. synStatus",),
        # a collective's graph: Gaudi's bridge compiles HCCL's send and receive into one
        raised_in=(C10D_COLLECTIVE_FRAME,),
        # ... unless the graph compiler said why above it: in lazy mode a collective runs
        # the compute graph built before it, whose failure is then LX737's
        not_after=(r"Failed to load tpc kernel|GLUE_FAILED|Graph optimization failed pass",),
        cause="a collective (broadcast, all-reduce) failed to compile on Gaudi: HCCL could "
        "not set up the transfer on this rank. On a multi-node run this is typically the "
        "HCCL and scale-out environment (HCCL_SOCKET_IFNAME, HCCL_OVER_OFI, the libfabric "
        "settings) exported on the launching node only: DeepSpeed's pdsh runner forwards to "
        "the other nodes what .deepspeed_env lists and a few prefixes (NCCL, UCX, PYTHON), "
        "not HCCL_*.",
        fix="list the HCCL and network variables in .deepspeed_env (in the home or working "
        "directory, or where DS_ENV_FILE points; mpirun -x for Open MPI's launches) so every "
        "node starts with them; check the scale-out ports with hl-smi "
        "and the same software release on every node.",
        fixtures=("nccl_config_error__optimum_habana_1779_gaudinic_multinode_env.log",),
    ),
    Rule(
        name="ib_verbs_setup",
        category="ib_error",
        code="LX569",
        priority=61,
        retryable=False,
        # Only the calls of a connection's set-up: a device NCCL cannot open or query at
        # init ("NET/IB : Unable to open device") is skipped, and the run may go on without it.
        patterns=(
            r"Call to ibv_(?:create_qp|create_cq|alloc_pd|create_comp_channel)\w* failed"
            r"(?! with error Cannot allocate memory)",
            # NCCL before 2.12 says no more about a failed registration (later releases add
            # the errno: LX567 reads EINVAL, EFAULT and ENOMEM)
            r"Call to ibv_reg_mr failed\s*$",
        ),
        cause="NCCL could not create the verbs resources of a connection (a queue pair, a "
        "completion queue, a protection domain, a memory registration) while it set up the "
        "InfiniBand transport: "
        "usually the process lacks the rights the verbs need (IPC_LOCK and an unlimited "
        "locked-memory limit in a container) or cannot reach the device (/dev/infiniband not "
        "passed in), so every start fails the same way.",
        fix="give the ranks an unlimited locked-memory limit (ulimit -l unlimited; in docker "
        "--ulimit memlock=-1 --cap-add IPC_LOCK --device /dev/infiniband, or --privileged) and "
        "check that ibv_devinfo lists the HCA where the ranks run; NCCL_IB_DISABLE=1 (socket "
        "speed) confirms that the IB setup is the cause.",
        fixtures=("ib_error__nccl_1129_docker_ibv_create_qp_failed.log",),
    ),
    Rule(
        name="nccl_system_error",
        category="nccl_system_error",
        code="LX519",
        priority=55,
        patterns=(
            r"unhandled system error",
            r"\bunhanled system error",  # as some old builds' messages spell it
            r"ncclSystemError",
            r"NCCL Error 2\b",
            r"Call to ibv_\w+ failed with error Cannot allocate memory",
        ),
        cause="a system call inside NCCL failed (socket, shared memory, memory registration); "
        "the real reason is in the NCCL WARN line, which only NCCL_DEBUG=INFO prints. Most "
        "often configuration (interface, /dev/shm, IB ports), so it is not retried.",
        fix="rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET; typical fixes: the right "
        "interface in NCCL_SOCKET_IFNAME (prefix match; '=eth0' for exact), --ipc=host or a "
        "bigger --shm-size in containers, IB ports up (ibstat); for an ibv_* call failing "
        "with 'Cannot allocate memory', an unlimited memlock limit (ulimit -l unlimited).",
        fixtures=(
            "nccl_system_error__lightning_14986_multinode.log",
            "nccl_system_error__lightning_8139_gpu_index_gap.log",
            "nccl_system_error__deepep_143_ibv_create_cq.log",
        ),
    ),
    Rule(
        name="nccl_system_error_trace",
        category="nccl_system_error",
        code="LX790",
        # below nearly every other reading: the trace is the same on a rank whose socket a dead
        # peer closed (LX520) or that found no usable interface (LX542, LX685), which name the
        # cause where the paste shows their lines
        priority=8,
        retryable=False,
        patterns=(
            # NCCL's own trace (NCCL_DEBUG=INFO) of ncclSystemError, code 2, returned out of
            # its set-up: what remains of a paste cut before the WARN and the exception lines
            r"NCCL INFO (?:init|group|bootstrap)\.cc:\d+ -> 2\b",
        ),
        cause="NCCL's set-up returned ncclSystemError (its return code 2, traced up through "
        "init.cc, group.cc or bootstrap.cc): a system call inside NCCL failed (a socket, "
        "/dev/shm, a memory registration), but the log stops before the WARN line that names "
        "the call; most often configuration, so it is not retried.",
        fix="look for the first 'NCCL WARN' line above the trace (rerun with NCCL_DEBUG=INFO "
        "NCCL_DEBUG_SUBSYS=INIT,NET if there is none): a trace through transport/shm.cc is "
        "/dev/shm (--ipc=host or a bigger --shm-size in containers), through bootstrap.cc or "
        "misc/socket.cc the interface (NCCL_SOCKET_IFNAME in the profile).",
        fixtures=(
            "nccl_system_error__nccl_1016.log",
            "nccl_system_error__cpm2_finetune_2_shm_transport.log",
        ),
    ),
    Rule(
        name="oneccl_worker_thread",
        category="nccl_system_error",
        code="LX617",
        # above the user's exception (LX511), which would read oneCCL's RuntimeError as the
        # script's
        priority=82,
        retryable=False,
        patterns=(
            r"\|CCL_ERROR\| .*error while creating worker thread #\d+ pthread_create returns \d+",
            r"oneCCL: .*start_workers: EXCEPTION: failed to start worker",
        ),
        cause="Intel oneCCL (the ccl/xccl backend) could not start its worker thread: "
        "pthread_create failed (22 is EINVAL), which it does when the thread's CPU pinning "
        "names cores this process may not run on (a cgroup, taskset or container with fewer "
        "cores than oneCCL assumes); every start fails the same way.",
        fix="give oneCCL cores the process owns: set CCL_WORKER_AFFINITY in the profile's env "
        "to CPU ids inside the process's allowed set (`grep Cpus_allowed_list "
        "/proc/self/status`), one per local rank, or start fewer ranks per node.",
        fixtures=("nccl_system_error__torch_ccl_54_oneccl_pthread_create_einval.log",),
    ),
    Rule(
        name="hccl_device_busy",
        category="nccl_system_error",
        code="LX500",
        priority=66,
        retryable=True,
        patterns=(r"EJ0001: .*Failed to initialize the HCCP process",),
        cause="Ascend's HCCL (torch_npu's process group, the NPU counterpart of NCCL) could not "
        "start its HCCP process on the device: the previous training process still holds it "
        "(it was killed a moment ago, or is still exiting); the error itself says to wait "
        "and start again.",
        fix="wait about 10 s after the last training process is gone (npu-smi info shows no "
        "process on the device) and start again; launchx retries it after the profile's "
        "backoff (retry.backoff_min_s, 5 s by default: set 10 or more on Ascend). If it "
        "repeats, find and stop the process that still holds the NPU.",
        fixtures=("nccl_system_error__llamafactory_3839_ascend_hccp_init_busy.log",),
    ),
    Rule(
        name="hccl_parameter_error",
        category="nccl_invalid_usage",
        code="LX701",
        # the root causes' tier: torch_npu raises it as a RuntimeError that LX511 leaves to the
        # collective libraries' rules
        priority=60,
        retryable=False,
        # HCCL's own return code (hccl_types.h: HCCL_E_PARA = 1) as torch_npu reports a call
        # into HCCL ("HCCL function error: hcclCommInitRootInfoConfig(...), error code is 1")
        patterns=(r"HCCL function error: .*, error code is 1$",),
        cause="HCCL (Ascend's NCCL, torch_npu's process group) rejected the arguments of a call "
        "(HCCL_E_PARA, its counterpart of ncclInvalidUsage): a communicator asked for a "
        "layout this NPU or CANN release does not support (a pipeline-parallel group on a "
        "310P, more ranks than devices, a rank outside the group), the same on every start.",
        fix="read the CANN plog (~/ascend/log) for the parameter HCCL names; change the "
        "parallel layout (tensor/pipeline sizes, ranks per node) to one the device and CANN "
        "release support, or update CANN and torch_npu together.",
        fixtures=("nccl_invalid_usage__vllm_ascend_2712.log",),
    ),
    Rule(
        name="hccl_internal_error",
        category="nccl_internal_error",
        code="LX702",
        priority=60,
        retryable=False,
        # HCCL_E_INTERNAL = 4, as torch_npu reports a call into HCCL, and as an aclnn MC2
        # kernel (MoE dispatch and combine) reports the HCCL call it made ("... function of
        # the hccl module. ret = 4")
        patterns=(
            r"HCCL function error: .*, error code is 4$",
            r"function of the hccl module\. ret = 4\b",
        ),
        cause="HCCL (Ascend's NCCL) failed inside itself (HCCL_E_INTERNAL, its counterpart of "
        "ncclInternalError) at a call the log names, such as an MC2 kernel's request for its "
        "communication resources; the log gives no more, and it repeats at the same call.",
        fix="read the CANN plog (~/ascend/log/debug/plog) of the failing rank for HCCL's own "
        "reason; check that every node runs the same CANN, torch_npu and launch script; for "
        "an MC2 kernel (aclnnMoeDistributeDispatch/Combine) check the HCCL buffer size "
        "(HCCL_BUFFSIZE) and the expert-parallel layout against the CANN release's limits.",
        fixtures=("nccl_internal_error__vllm_ascend_8568.log",),
    ),
    Rule(
        name="gloo_interface_missing",
        category="nccl_config_error",
        code="LX741",
        # a root cause (the group is never built), above gloo's set-up symptoms (LX523)
        priority=60,
        retryable=False,
        patterns=(
            # gloo's look-up of the interface it was told to use (GLOO_SOCKET_IFNAME, or a
            # script's own setting) found no address on it; a host name that resolves to
            # nothing is "rp != nullptr" (LX779's)
            r"\bifa != nullptr\. Unable to find address for: ",
        ),
        cause="gloo was told to use a network interface that has no address on this host: "
        "GLOO_SOCKET_IFNAME (or a script that sets it, as early YOLOX set ib0) names an "
        "interface this machine does not have or that is down; the process group is never "
        "built, on every start.",
        fix="list the interfaces with `ip -br addr` and set GLOO_SOCKET_IFNAME (and "
        "NCCL_SOCKET_IFNAME) to one that exists on every node with the address the nodes "
        "reach each other by, or unset it to let gloo use the host name's address "
        "(`launchx explain` names such a GLOO_SOCKET_IFNAME before a run: LX157).",
        fixtures=("nccl_config_error__yolox_119.log", "nccl_config_error__yolox_432.log"),
    ),
    Rule(
        name="old_torch_collective_eagain",
        category="collective_timeout",
        code="LX677",
        priority=50,
        # torch <= 1.0 set a receive timeout on its sockets (the store's, gloo's) and reported
        # a wait that ran out as the errno text of EAGAIN, raised from the collective
        patterns=(r"^RuntimeError: Resource temporarily unavailable$",),
        context=(r"torch[/\\](?:distributed|nn[/\\]parallel[/\\]distributed\.py)",),
        cause="a collective (DDP's first broadcast, a barrier) waited on the rendezvous store "
        "for another rank (NCCL's unique id, gloo's addresses) longer than the store's socket "
        "timeout (about 300 s in torch 1.0); torch before 1.1 reports that as the errno of "
        "the receive that timed out (EAGAIN, 'Resource temporarily unavailable'): another "
        "rank is slow (still loading weights or data) or stopped before the collective.",
        fix="find the rank that did not reach it (its own log); make rank 0's one-time work "
        "(downloading, loading a large checkpoint) happen on every rank or before the "
        "process group is created; upgrade torch, whose later releases report the timeout "
        "as such and honour init_process_group(timeout=...) for NCCL.",
        fixtures=("collective_timeout__maskrcnn_benchmark_931_ddp_broadcast_eagain.log",),
    ),
    Rule(
        name="horovod_stall",
        category="collective_timeout",
        code="LX638",
        priority=50,
        patterns=(
            # Horovod's stall inspector (horovod/common/stall_inspector.cc), followed by its
            # "Missing ranks:" list of which rank lacks which tensor
            r"One or more tensors were submitted to be reduced, gathered or broadcasted by "
            r"subset of ranks and are waiting for remainder of ranks",
        ),
        cause="Horovod's stall inspector found collectives that some ranks submitted and the "
        "others did not for its check time (60 s by default): the ranks run different code "
        "paths (a rank-dependent branch, uneven data, a tensor named differently per rank) or "
        "the missing ones are stuck; the lines under it name which rank lacks which tensor.",
        fix="read the 'Missing ranks' list: make every rank submit the same collectives in "
        "the same order and under the same names (hvd.join() for uneven data); "
        "HOROVOD_STALL_CHECK_TIME_SECONDS and HOROVOD_STALL_SHUTDOWN_TIME_SECONDS set when "
        "it warns and when it gives up.",
        fixtures=(
            "collective_timeout__horovod_2662_join_broadcast_stall.log",
            "collective_timeout__horovod_429_avg_loss_missing_rank1.log",
        ),
    ),
    Rule(
        name="gloo_timeout",
        category="collective_timeout",
        code="LX524",
        priority=50,
        patterns=(
            r"Timed out waiting \d+ms for (?:recv|send) operation",
            r"gloo/transport/tcp/\w+\.cc:\d+\] Timed out",
            r"Timed out waiting for \w+ operation to complete",
            r"failed to pass monitoredBarrier in \d+ ms",
            # ProcessGroupGloo's checkRemainingTime, when the barrier's time ran out
            r"timed out in monitoredBarrier after \d+ ms",
            # c10d's Work::wait(timeout) of a collective that had not completed (its exception
            # says no more), and gloo closing a pair whose operation's time ran out
            r"^(?:RuntimeError: )?Operation timed out!$",
            r"Application timeout caused pair closure",
        ),
        cause="a collective on the gloo (or another non-NCCL) backend did not finish within the "
        "process-group timeout (30 min by default): a peer was stuck or gone.",
        fix=PG_TIMEOUT_FIX,
        fixtures=(
            "collective_timeout__detectron2_5121.log",
            "collective_timeout__pipedream_39.log",
        ),
    ),
    Rule(
        name="store_wait_in_collective",
        category="collective_timeout",
        code="LX619",
        priority=50,
        patterns=(r"RuntimeError: Socket Timeout",),
        context=(
            # raised under a collective or a point-to-point call (the store wait of a
            # communicator's first use), not in the rendezvous; the elastic agent's own store
            # barrier is a rendezvous step
            r'^File "(?!.*elastic)[^"]*", line \d+, in (?:all_reduce|all_gather(?:_object|'
            r"_into_tensor)?|broadcast(?:_object_list)?|barrier|monitored_barrier|reduce"
            r"(?:_scatter(?:_tensor)?)?|gather(?:_object)?|scatter(?:_object_list)?|"
            r"all_to_all(?:_single)?|send|recv|isend|irecv|batch_isend_irecv)$",
            # DDP's own collectives (its constructor's broadcast of the parameters, its
            # buffers' broadcast in forward), under frames of its module in torch 1.x
            r'^File "[^"]*torch[/\\]nn[/\\]parallel[/\\]distributed\.py", line \d+, in ',
        ),
        cause="a collective waited on the process group's store for peers that never came "
        "(an NCCL communicator's first use exchanges its id there): another rank was "
        "elsewhere (still loading or evaluating alone, stuck, or dead) past the timeout. "
        "Unlike a rendezvous timeout, every rank had joined the process group.",
        fix="read the other ranks' output for where they were; when one rank legitimately "
        "works alone (evaluation, preprocessing on rank 0), let the others wait in a barrier "
        "with a long enough init_process_group(timeout=...), or share the work; make every "
        "rank reach the same collectives in the same order.",
        fixtures=(
            "collective_timeout__dgl_3629_launch_allreduce_socket_timeout.log",
            "collective_timeout__pytorch_63455_ddp_init_broadcast_socket_timeout.log",
        ),
    ),
    Rule(
        name="deepep_kernel_timeout",
        category="collective_timeout",
        code="LX623",
        priority=50,
        patterns=(DEEPEP_TIMEOUT, DEEPEP_CPU_TIMEOUT),
        cause="DeepEP's expert-parallel dispatch or combine kernel waited for tokens from its "
        "peers (over NVLink within a node, RDMA across nodes) longer than its in-kernel "
        "timeout: a peer rank never launched the same kernel (it failed, or took another "
        "branch), or the RDMA path between nodes drops or stalls traffic; the ranks that "
        "report it are the ones that waited.",
        fix="read the other ranks' output for an error or a different code path first; run "
        "DeepEP's tests/test_internode.py (and test_intranode.py) on the same nodes to tell a "
        "network fault from the script; check the NICs' counters (ibv_devinfo, "
        "`launchx doctor`) and NVSHMEM's IBGDA set-up when only inter-node runs fail.",
        fixtures=("collective_timeout__deepep_274_internode_4x8_h800_timeout.log",),
    ),
    Rule(
        name="rpc_timeout",
        category="collective_timeout",
        code="LX629",
        priority=50,
        patterns=(
            # torch.distributed.rpc's kRpcTimeoutErrorStr, for rpc_sync/rpc_async/remote (the
            # ProcessGroup agent of torch < 1.8 printed no number)
            r"RPC ran for more than set timeout (?:\(\d+ ms\) )?and will now be marked",
        ),
        cause="a torch.distributed.rpc call (rpc_sync, rpc_async, a remote module's forward) "
        "got no answer from its callee within the RPC timeout (60 s by default): the callee "
        "was still busy with earlier requests, stuck, or gone.",
        fix="read the callee worker's own output for an error first; raise the timeout "
        "(init_rpc(rpc_backend_options=TensorPipeRpcBackendOptions(rpc_timeout=...)) or "
        "rpc_sync(..., timeout=...)) when the callee legitimately works longer, and give it "
        "more worker threads (num_worker_threads) when many calls queue on it.",
        fixtures=("collective_timeout__pytorch_53901_flaky_remote_module_rpc_timeout.log",),
    ),
    Rule(
        name="nccl_id_wait_timeout",
        category="collective_timeout",
        code="LX584",
        priority=51,
        patterns=(
            # torch before 2.3 spelled it "retreiving"; the waiting rank opens the message
            # (its rank in the group: the global one only in the default group), or a paste
            # that starts after it
            r"(?:(?:\[(?P<named_rank>\d+)\] )?is )?setting up NCCL communicator and "
            r"retr(?:ie|ei)ving ncclUniqueId from "
            r"\[\d+\] "
            r"via c10d key-value store by key '[^']*', but store->get\('[^']*'\) got error: "
            r"(?:wait timeout|Socket Timeout|Timeout)",
        ),
        cause="it waited in the store for another rank (the number in brackets in the "
        "message, its rank in that process group) to publish the NCCL id of a communicator, "
        "which that rank creates at its first collective on the group (or in "
        "init_process_group with device_id=), and it never did within the timeout: it had "
        "not got there (still loading a model or data, stuck, on another code path, or "
        "dead); the waiting rank is only the first to notice.",
        fix="read that rank's own output for where it was; when it legitimately works "
        "alone first (loading, tokenizing, downloading), raise init_process_group(timeout=...) "
        "or move that work before init, and make every rank create the same process groups in "
        "the same order.",
        fixtures=(
            "collective_timeout__trl_3119_grpo_6node_nccluniqueid_store_wait.log",
            "collective_timeout__finetune_chatglm2_13_tokenizer_barrier_socket_timeout.log",
            "collective_timeout__llamafactory_81.log",
        ),
    ),
    Rule(
        name="store_wait_timeout",
        category="collective_timeout",
        code="LX698",
        # the symptom's tier: whatever kept the other rank away, when the log shows it, is
        # the cause (a rendezvous, an NCCL id wait, the other rank's own error)
        priority=45,
        patterns=(
            # c10d's socket.cpp: a store client's wait for the server's answer (a get, a
            # wait, a barrier's add) ran past the store's timeout
            r"\[c10d\] waitForInput: socket SocketImpl\(.*\) timed out after \d+ ?ms",
            # ... and its warning when the poll for the answer ran out, printed first (a paste
            # may stop after it)
            r"waitForInput: poll for socket .* returned 0, likely a timeout",
        ),
        cause="the rank waited in the c10d store (a barrier, a get of a key another rank "
        "writes) for longer than the timeout and no answer came: another rank had not got "
        "there (rank 0 alone preprocessing or loading for longer than the timeout, a rank on "
        "another code path, stuck or dead); the waiting rank is only the first to notice.",
        fix="read the other ranks' output for where they were; when one rank legitimately "
        "works alone first (tokenizing, downloading, a main-process-first block), raise "
        "init_process_group(timeout=...) (ddp_timeout in Hugging Face's TrainingArguments) or "
        "do that work before the run starts.",
        fixtures=("collective_timeout__axolotl_2684.log",),
    ),
    Rule(
        name="ray_channel_timeout",
        category="collective_timeout",
        code="LX700",
        # the symptom's tier, as LX698: a worker's own error, when the log shows one, is why
        # its output never came
        priority=45,
        patterns=(
            # Ray's compiled graphs (vLLM's Ray executor with VLLM_USE_RAY_COMPILED_DAG): the
            # driver's read of a channel the workers write waited past its timeout
            r"^(?:ray\.exceptions\.)?RayChannelTimeoutError: ",
            r"\bray\.exceptions\.RayChannelTimeoutError: ",
        ),
        cause="the process that drives Ray's compiled graph (vLLM's engine core with its Ray "
        "executor) waited for the workers' output on a channel longer than the graph's timeout "
        "(RAY_CGRAPH_get_timeout: vLLM sets 300 s, Ray's own default is 10 s): a worker was "
        "stuck in a collective, still compiling or loading, or dead; the reader is only the "
        "first to notice.",
        fix="read the workers' own output (the lines prefixed with their actor's name and pid) "
        "for an error or a hang first; when a step legitimately takes longer (the first "
        "request's graph capture, long prompts), raise RAY_CGRAPH_get_timeout; on one node "
        "vLLM can run its multiprocessing executor instead (--distributed-executor-backend "
        "mp; its V1 engine always drives Ray through compiled graphs).",
        fixtures=("collective_timeout__ray_59249.log", "collective_timeout__ray_53845.log"),
    ),
    Rule(
        name="vllm_rpc_timeout",
        category="collective_timeout",
        code="LX705",
        # the symptom's tier, as LX700: a worker's own error, when the log shows one, is why
        # its answer never came
        priority=45,
        patterns=(
            # vLLM's multiprocessing executor (V1): the engine core's wait for the workers'
            # answers, raised over the shared-memory queue's own timeout
            r"^TimeoutError: RPC call to \w+ timed out\.",
            # ... and that queue's own exception, raised bare where the excerpt holds only it
            r"^TimeoutError$",
        ),
        raised_in=(
            r'shm_broadcast\.py", line \d+, in acquire_read$',
            r'executor\.py", line \d+, in (?:collective_rpc|get_response)$',
        ),
        cause="vLLM's engine core waited for its workers' answer to a call (execute_model, "
        "usually) longer than VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS (300 s by default), over the "
        "shared-memory queue they answer on: a worker was stuck in a collective with a peer "
        "that failed or hung (another node, a KV-transfer connector), or was dead; the engine "
        "core is only the first to notice.",
        fix="read the workers' own lines (prefixed 'VllmWorker TPn' or with the worker's pid) "
        "for an earlier error or a hang (py-spy dump of each worker); when a step "
        "legitimately takes longer (long prompts, a first compilation, a slow KV transfer), "
        "raise VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS.",
        fixtures=(
            "collective_timeout__mooncake_1458.log",
            "collective_timeout__vllm_ascend_2264.log",
        ),
    ),
    Rule(
        name="sglang_scheduler_watchdog",
        category="collective_timeout",
        code="LX715",
        # (the scheduler then signals its parent, which kills the whole process tree: the
        # kill that follows is not read, see LX547)
        priority=50,
        patterns=(
            # SGLang's scheduler: the running batch's forward did not advance for
            # --watchdog-timeout seconds (logger.error, after a py-spy dump of the schedulers)
            r"\bWatchdog timeout \(self\.watchdog_timeout=\d+(?:\.\d+)?\)",
        ),
        cause="SGLang's scheduler saw its running batch make no progress for --watchdog-"
        "timeout seconds (300 by default) and ended the server: a forward step hung, most "
        "often in a collective waiting for a tensor-parallel or expert-parallel peer (a rank "
        "that died or hung, a peer on another node), sometimes in a kernel that never "
        "returned.",
        fix="read the stacks newer releases dump just before this line when py-spy is "
        "installed (where each TP rank was stuck) and the peers' logs for an earlier error; "
        "for a multi-node "
        "server check the links (NCCL_DEBUG=INFO); raise --watchdog-timeout only when a step "
        "legitimately takes longer (a first compilation, very long prompts).",
        fixtures=("collective_timeout__sglang_3752.log",),
    ),
    Rule(
        name="hccl_notify_timeout",
        category="collective_timeout",
        code="LX602",
        priority=50,
        patterns=(
            # CANN's EI0002 ("Communication Operation Timeout"): the message in newer releases,
            # and the possible-cause line every release prints under the older one, whose
            # first line ("The wait execution of the Notify register times out") has no anchor
            r"An timeout occurs when the Notify register waits for execution",
            r"too slow to complete a communication operation within the timeout interval",
            # EI0006: the links of a group's first collective were not built in time
            r"EI0006: .*Getting socket times out",
            # the device's stream sync gave up (EE1002, ACL's 507046) while a collective on
            # the stream still waited (a long kernel can say the same, far less often)
            r"EE1002: .*Stream synchronize timeout",
            # the device's own report of a collective's task that waited past the timeout
            # ("hccl fftsplus task timeout occurred during task execution, ... timeout:1836"),
            # and its report of the notify wait itself (device_error_proc.cc)
            r"\bhccl \w+ task timeout occurred during task execution",
            r"\bnotify wait timeout occurred during task execution\b",
            # ACL_ERROR_RT_FFTS_PLUS_TIMEOUT (507048, "The execution of the internal task
            # times out"): an FFTS+ task past its timeout, which runs HCCL's notify waits and
            # AI Core kernels alike; in the corpus it is a collective's wait (EI0002 beside
            # it) twice in three, a bet on the corpus, not the code's definition
            r"\berror code(?: is|:) ?507048\b",
        ),
        cause="a collective on Ascend NPUs (torch_npu's HCCL process group) waited for a peer "
        "rank longer than HCCL_EXEC_TIMEOUT (about 30 minutes by default, the exact value "
        "depends on the CANN release; a stream sync that gives up on it says EE1002), or, "
        "building a group's links at its first collective, longer than HCCL_CONNECT_TIMEOUT "
        "(EI0006): that rank failed earlier, was still busy elsewhere (loading, evaluating, "
        "an uneven number of samples per rank), or its link dropped packets; the rank "
        "reporting it is usually not the one at fault.",
        fix="read the other ranks' logs for an earlier error first (CANN's plog: grep -rn "
        "'error cqe' for a link fault); give every rank the same number of samples and steps; "
        "when one rank legitimately works alone for long (evaluation, saving, tokenizing on "
        "the main process), raise HCCL_EXEC_TIMEOUT (HCCL_CONNECT_TIMEOUT for EI0006) in the "
        "profile's env.",
        fixtures=(
            "collective_timeout__llamafactory_975_npu_accelerate_ei0002_notify_timeout.log",
            "collective_timeout__vllm_ascend_486_hccl_ei0006_allreduce.log",
            "collective_timeout__llamafactory_5551_npu_tokenize_stream_sync_timeout.log",
            "collective_timeout__llamafactory_5347.log",
            "collective_timeout__vllm_ascend_12487.log",
            "collective_timeout__vllm_ascend_1193.log",
        ),
    ),
    Rule(
        name="nccl_desync_diverged",
        category="nccl_watchdog_timeout",
        code="LX560",
        # above the other readings of the watchdog's timeout (LX525, LX550, LX568): the
        # desync report names the rank that diverged
        priority=54,
        retryable=False,
        patterns=(
            r"\[(?P<rank>\d+)(?:, \d+)*\] finished collective #\d+, "
            r"but didn't join collective #\d+",
        ),
        cause="NCCL's desync report names ranks that finished one collective and never joined "
        "the next while the others moved on: the ranks took different paths through the code "
        "(a collective skipped or added on some ranks, an uneven data split, a rank-dependent "
        "branch) or those ranks stopped outside any collective; the same code takes the same "
        "path again, so it is not retried blindly.",
        fix="look at what the named ranks did after the collective they finished (their "
        "stacks: py-spy dump, or launchx's hang report); make every rank issue the same "
        "collectives in the same order (drop_last=True, no rank-only collectives); "
        "TORCH_DISTRIBUTED_DEBUG=DETAIL checks collective order and shapes at every call.",
        fixtures=("nccl_watchdog_timeout__pytorch_152623_desync_rank7_regression.log",),
    ),
    Rule(
        name="nccl_first_collective_timeout",
        category="nccl_watchdog_timeout",
        code="LX550",
        # above a short timeout (LX568): within the first collectives, the timeout's length
        # is not what failed
        priority=53,
        retryable=False,
        patterns=(r"WorkNCCL\(SeqNum=[0-4]?\d{1,2}, OpType=\w+.*(?:ran for|timed out)",),
        cause="a collective among the first 500 of its process group (its sequence number says "
        "so) never completed: the run had not got past its first steps, so nothing shows that "
        "this code and this network ever worked together. The ranks could not reach each other "
        "(interface, firewall, IB/RoCE settings), one rank was busy elsewhere (rank 0 preparing "
        "data), or the ranks issued different collectives; all of these repeat on the next "
        "attempt, unlike the rare network stall of a run that has done thousands of "
        "collectives, so it is not retried blindly.",
        fix="run a two-node all_reduce test with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and "
        "check the interface NCCL picks (NCCL_SOCKET_IFNAME), the IB devices (NCCL_IB_HCA, "
        "ibstat) and that the nodes reach each other on all ports; "
        "TORCH_DISTRIBUTED_DEBUG=DETAIL shows ranks that issue different collectives.",
        fixtures=(
            "nccl_watchdog_timeout__determined_8915_first_allgather.log",
            "nccl_watchdog_timeout__megatron_735_moe_allreduce_numel1.log",
            "nccl_watchdog_timeout__nccl_1610_moe_alltoall_two_threads.log",
        ),
    ),
    Rule(
        name="nccl_short_timeout",
        category="nccl_watchdog_timeout",
        code="LX568",
        priority=52,
        retryable=False,
        patterns=(r"WorkNCCL\(.*Timeout\(ms\)=(?:\d{1,5}|[12]\d{5})\).*(?:ran for|timed out)",),
        cause="the collective timeout is under 5 minutes (set by the script or a library, not "
        "PyTorch's default): a slow but legitimate step on one rank (rank 0 preparing or caching "
        "data, an evaluation, a checkpoint save) outlasts it while the others wait in a "
        "collective, and the same step outlasts it again on the next attempt.",
        fix="raise the timeout where it is set (init_process_group(timeout=timedelta(minutes=30)), "
        "the framework's ddp/pg timeout option, or the profile's timeouts.pg_timeout_s, which "
        "launchx.runtime.init_distributed reads as LAUNCHX_PG_TIMEOUT_S); move long rank-0-only "
        "work before init_process_group or behind a barrier with a long timeout.",
        fixtures=("nccl_watchdog_timeout__yolov5_4400_label_scan_60s.log",),
    ),
    Rule(
        name="nccl_watchdog_timeout",
        category="nccl_watchdog_timeout",
        code="LX525",
        priority=51,
        patterns=(
            r"Watchdog caught collective operation timeout",
            # torch 1.x under NCCL_BLOCKING_WAIT: the waiting call's own exception
            r"\] Caught collective operation timeout: WorkNCCL\(",
            r"NCCL timeout",
            r"Some NCCL operations have failed or timed out",
            r"Timeout at NCCL work: \d+",
            r"Received a global timeout from another rank",
            r"watchdog detected a collective timeout and notified current rank",
            r"Received a dump signal due to a collective timeout from",
            r"Heartbeat monitor timed out!",
            r"ProcessGroupNCCL's watchdog got stuck for \d+ seconds",
            # the fatal line torch 2.4+ logs as it ends the process, where a paste keeps only it
            r"Terminating the process after attempting to dump debug info, due to (?:collective "
            r"timeout|ProcessGroupNCCL watchdog hang)",
            # the C++ frame that throws the watchdog's timeout, when its message was cut
            r"c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout\(",
            # the watchdog's desync report, which it prints only after a timeout, failing (torch
            # spells it "rerieve" when the failure is not a std::exception)
            r"Failed to ret?rieve (?:TORCH_)?NCCL_DESYNC_DEBUG report",
        ),
        cause="an NCCL collective did not finish within the process-group timeout (10 min by "
        "default since torch 2.2, 30 min before) and the watchdog aborted the process (under "
        "TORCH_NCCL_BLOCKING_WAIT the waiting call raised instead): one rank was slow, stuck or "
        "dead, or ranks issued different collectives.",
        fix=PG_TIMEOUT_FIX,
        fixtures=(
            "nccl_watchdog_timeout__basicsr_737.log",
            "nccl_watchdog_timeout__d_fine_75_gloo_and_nccl.log",
            "nccl_watchdog_timeout__particleflow_390_rank0_eval_hang.log",
            "nccl_watchdog_timeout__pytorch_pr109611_pp_recv_timeout_desync.log",
        ),
    ),
)
