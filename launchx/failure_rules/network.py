"""Sockets between processes outside NCCL: torch's store and rendezvous, a port taken, gloo's
pairs, a peer that closed its connection, and processes that disagree about the world
they are in (its size, their ranks)."""

from __future__ import annotations

from launchx.failure_rules.model import Case, Rule
from launchx.failure_rules.patterns import HIVEMIND_NO_GROUP, HTTP_RETRY_WARNING

RULES: tuple[Rule, ...] = (
    Rule(
        name="port_in_use",
        category="port_in_use",
        code="LX505",
        priority=95,
        patterns=(
            r"EADDRINUSE",
            # (48: EADDRINUSE on macOS and the BSDs, where c10d's store says it so too)
            r"errno: (?:98|48) - Address already in use",
            r"\[Errno (?:98|48)\] Address already in use",
            r"RuntimeError: Address already in use",
            # torchelastic's create_c10d_store after its retries (the agent's store, on
            # MASTER_PORT); not its warning before each retry ("..., attempt: [1/3]")
            r"\bon \S+, port: \d+ already in use\s*$",
            r"Tried to launch distributed communication on port `?\d+`?, but another process "
            r"is utilizing it",
            # TensorPipe's listener (torch.distributed.rpc), thrown as a C++ exception
            r"\brv < 0: address already in use\"",
            r"failed to bind to .*\(system error: 10048\b",  # Windows' WSAEADDRINUSE
            # alone on its line (c10d's log); followed by its reason, the reason decides
            r"The server socket has failed to listen on any local network address\.?\s*$",
        ),
        cause="MASTER_PORT (or the rendezvous port) is already held by another process: usually "
        "another torchrun/job on the same node using the default 29500, or a previous run "
        "that has not exited yet.",
        fix="pick another port (launchx run: --master-port, or master_port: auto in the "
        "profile; plain torchrun: --master-port, or --standalone for a single node), and "
        "look for the holder with `ss -ltnp | grep <port>`.",
        fixtures=(
            "port_in_use__dlrover_443_tcpstore.log",
            "port_in_use__drivelm_40_srun_launch.log",
            "port_in_use__pytorch_70546.log",
            "port_in_use__thinking_in_space_22.log",
        ),
    ),
    Rule(
        name="port_in_use_side_process",
        category="port_in_use",
        code="LX641",
        # a symptom's tier: the bare perror line of any process beside the ranks (a parameter
        # server's scheduler, an exporter, a sidecar), which a rank's own exception outweighs
        priority=45,
        # not a port launchx chooses (MASTER_PORT is, LX505): a second start binds the same
        # one, and the holder may be the job itself (every rank binding one HTTP port)
        retryable=False,
        patterns=(
            # EADDRINUSE's text as any process passes it on: the C library's perror ("bind:
            # Address already in use"), a messaging socket (ZeroMQ's), libuv's in lower case
            r"(?i)\baddress already in use\b",
            # asyncio's create_server (uvicorn's: an inference server's HTTP port) words the
            # same errno its own way, and Python on Windows names WSAEADDRINUSE
            r"\[Errno (?:98|48)\] error while attempting to bind on address .*: address "
            r"already in use",
            r"\[WinError 10048\]",
            # grpcio's add_insecure_port/add_secure_port, whose bind failure names no errno
            # (usually a port in use: DeepSpeed-MII gives each rank its own fixed port)
            r"Failed to bind to address \S+; set GRPC_VERBOSITY=debug",
        ),
        exclude=(
            # gloo's sockets (tcp pairs, the uv transport) bind ephemeral ports of their own,
            # not a port of the job's
            r"gloo/transport/(?:tcp/pair\.cc|uv/)",
            # a process that says what it does next (another port, a retry) has not failed,
            # nor has an informational line; a source line in a traceback is not the error
            r"(?i)\b(?:info|warn(?:ing)?|retrying|falling back|fall back|picking)\b"
            r"|\btrying (?:another|the next|next|a (?:different|new|random)) port",
            r"^\s*(?:raise|print)\b",
        ),
        cause="a process of the job could not bind its port because another process holds it "
        "(the system's own words for it, so not torch's store: a parameter server or "
        "scheduler such as BytePS's ps-lite, an inference engine's messaging or HTTP "
        "socket, or a helper started beside the ranks); often a process of an earlier run "
        "that has not exited yet.",
        fix="find the holder with `ss -ltnp | grep <port>` and stop it, or give that process "
        "another port (BytePS: DMLC_PS_ROOT_PORT; a server started on every rank: only on "
        "rank 0, or at a port offset by the rank); the port variables of the job name it. "
        "launchx does not retry it: the port is not one it picks, so a second start meets "
        "the same holder.",
        fixtures=(
            "port_in_use__byteps_353_scheduler_bind_eaddrinuse.log",
            "port_in_use__deepspeed_mii_521_grpc_bind_50058.log",
        ),
    ),
    Rule(
        name="privileged_port",
        category="port_in_use",
        code="LX604",
        # above the port clash (LX505): the same "failed to listen" line, but its reason is
        # a port this user may not bind, which no wait frees
        priority=96,
        retryable=False,
        patterns=(r"failed to bind to \S*:\d+ \(errno: 13 - Permission denied\)",),
        cause="the rendezvous store could not listen on MASTER_PORT because this process may "
        "not bind it (errno 13): a port below 1024 needs root or CAP_NET_BIND_SERVICE, and on "
        "a higher port a security policy (SELinux's name_bind, AppArmor) refused it; either "
        "way the same port fails on every start.",
        fix="use a port of 1024 or above that the policy allows (--master-port 29500, "
        "accelerate's --main_process_port, or master_port: auto in the profile); a script that "
        "draws a random port should draw from 1024-65535.",
        fixtures=("port_in_use__timellm_20_privileged_master_port_97.log",),
    ),
    Rule(
        name="dgl_rpc_server_bind",
        category="port_in_use",
        code="LX740",
        # the port clash's tier (LX505)
        priority=95,
        retryable=False,
        patterns=(
            # DGL's distributed graph server binding its RPC port; the errno it prints is
            # often lost ("error: Success"; an address not this machine's, "Cannot assign
            # requested address", is not a port held)
            r"rpc/network/tcp_socket\.cc:\d+: Failed bind on \S+ ?, error: "
            r"(?:Address already in use|Success)",
        ),
        cause="a DGL graph server could not bind its RPC port (the port of the ip_config "
        "file): servers of an earlier run still hold it, since a failed launch can leave its "
        "server processes behind, or another job on the node uses it; they do not exit by "
        "themselves, so a retry meets them again.",
        fix="find the holder on each machine of the ip_config file (`ss -ltnp | grep "
        "<port>`) and stop it, or give the servers another port in the ip_config file, then "
        "start again.",
        fixtures=("port_in_use__dgl_3388.log",),
    ),
    Rule(
        name="nvshmem_bootstrap_truncated",
        category="world_mismatch",
        code="LX667",
        priority=72,
        retryable=False,
        patterns=(
            r"bootstrap_net_recv:\d+: Message truncated : received \d+ bytes instead of \d+",
        ),
        cause="NVSHMEM's unique-id bootstrap (under DeepEP or torch's symmetric memory) "
        "received a message of another size than the step it was in expects: the processes "
        "do not agree about the job they are in (two that took the same rank, such as a "
        "node rank or RANK set alike on two nodes, a world size that differs between "
        "nodes), or a process of another job reached the same bootstrap port, or the nodes "
        "run different NVSHMEM versions. It fails the same way at every start.",
        fix="give every process its own rank and every node the same world size (check "
        "RANK, WORLD_SIZE and the node rank each node exports; `launchx run` sets them "
        "itself); run one NVSHMEM version everywhere; keep other jobs off the bootstrap's "
        "port.",
        fixtures=("world_mismatch__deepep_121_both_nodes_rank0_bootstrap_truncated.log",),
    ),
    Rule(
        name="http_download_timeout",
        category="socket_error",
        code="LX794",
        # above the script's exception that the failed download ends in (LX511)
        priority=81,
        patterns=(
            # urllib3 (under requests and huggingface_hub) waiting on a server past its read
            # timeout (huggingface_hub's default is 10 s), as its exception line or inside the
            # requests.exceptions.ReadTimeout that wraps it; not a server on this host (a
            # reward or inference server slow to answer)
            r"ReadTimeoutError(?:: |\(\")HTTPSConnectionPool\(host='(?!localhost'|127\.)[^']+', "
            r"port=\d+\): Read timed out",
            # urllib (torch.hub, torchvision's and timm's weight downloads) failing to connect
            r"<urlopen error \[Errno (?:110|101|113)\] (?:Connection timed out|Network is "
            r"unreachable|No route to host)>",
        ),
        exclude=(HTTP_RETRY_WARNING,),
        cause="the script (or a library it calls at start: transformers, huggingface_hub, "
        "torch.hub, torchvision's or timm's weights) fetched a file over HTTP(S) and the "
        "connection timed out or found no route: compute nodes that reach the internet only "
        "through a proxy or not at all, or a slow or rate-limiting server; every rank "
        "downloads on its own, so all of them fail alike.",
        fix="download once before the launch (huggingface-cli download, or the weights "
        "fetched on a login node) into a shared cache (HF_HOME, TORCH_HOME) and run with "
        "HF_HUB_OFFLINE=1; set HTTPS_PROXY in the profile's env where the nodes go through a "
        "proxy; for a slow hub raise HF_HUB_ETAG_TIMEOUT (the metadata request made "
        "first) and HF_HUB_DOWNLOAD_TIMEOUT (seconds).",
        fixtures=(
            "socket_error__dino_233_launch_urlopen_timeout.log",
            "socket_error__open_instruct_620_ray_vllm_hf_read_timeout.log",
        ),
    ),
    Rule(
        name="rendezvous_closed",
        category="world_mismatch",
        code="LX545",
        priority=72,
        patterns=(
            r"RendezvousClosedError",
            r"RendezvousGracefulExitError: The rendezvous '\S+' is closed",
        ),
        cause="the elastic rendezvous this agent tried to join was already closed: the job "
        "finished or was scaled down, or agents of an earlier run with the same --rdzv-id are "
        "still around; rejoining fails the same way every time.",
        fix="start every node with a fresh --rdzv-id (launchx: a new run id), stop leftover "
        "agents of the earlier run, and with an etcd/c10d store that outlives jobs remove "
        "the old rendezvous state.",
        fixtures=(
            "world_mismatch__kubeflow_1638_etcd_rdzv_closed.log",
            "world_mismatch__pytorch_91943_elastic_scale_down.log",
        ),
    ),
    Rule(
        name="store_barrier_overfull",
        category="world_mismatch",
        code="LX546",
        priority=72,
        patterns=(
            r"(?:on rank:? (?P<rank>\d+), for key: )?store_based_barrier_key:\d+ "
            r"\(world_size=(?P<world>\d+), (?:worker_count|num_workers_joined)=(?P<joined>\d+)",
        ),
        compare=("joined", "world"),
        cause="more processes joined the store-based barrier than the world has: processes of "
        "another run (or a stale file:// / TCP store left by one) share this run's store, or "
        "ranks were given the wrong WORLD_SIZE.",
        fix="use a fresh store for every run (a new MASTER_PORT, or delete the file of a "
        "file:// init method before starting), and give every process the same WORLD_SIZE.",
        fixtures=("world_mismatch__powersgd_21_stale_file_store.log",),
    ),
    Rule(
        name="local_rank_not_rank_mod_devices",
        category="world_mismatch",
        code="LX775",
        # above the AssertionError (or ValueError) line that carries it (LX511)
        priority=81,
        retryable=False,
        patterns=(
            # Megatron-LM's initialize.py (and Megatron-DeepSpeed's, NeMo's and their forks'):
            # each rank takes GPU rank % torch.cuda.device_count() and checks that the
            # launcher's LOCAL_RANK agrees
            r"expected local-rank to be the same as rank % device-count",
        ),
        cause="Megatron picks each rank's GPU as its global rank modulo the GPUs it sees and "
        "asserts that this equals the launcher's LOCAL_RANK; they differ when each process "
        "sees only its own GPU (CUDA_VISIBLE_DEVICES set per rank, Slurm's "
        "--gpus-per-task=1: the count is 1, so every local rank but 0 fails), when a node "
        "runs fewer processes than it has visible GPUs (--nproc-per-node 4 on 8 GPUs fails "
        "from the second node on), when nodes see different numbers of GPUs, or when ranks "
        "are not numbered node by node; every start fails the same way.",
        fix="let every process see all of its node's GPUs and run one process per GPU "
        "(--nproc-per-node equal to the GPU count, no per-rank CUDA_VISIBLE_DEVICES or "
        "--gpus-per-task), give every node the same number of GPUs, and let torchrun "
        "(launchx run) number the ranks node by node.",
        fixtures=("world_mismatch__deepspeed_3408_local_rank_device_count.log",),
    ),
    Rule(
        name="group_outside_world",
        category="world_mismatch",
        code="LX592",
        priority=82,
        retryable=False,
        patterns=(
            # distributed_c10d.new_group's sanity checks (some releases say "the the")
            r"new group's rank should be within the (?:the )?world_size set by "
            r"(?:init|new)_process_group",
            r"new group's world_size should be less or equal to the world size set by "
            r"init_process_group",
            # NCCL's init.cc: a rank number at or beyond the communicator's size
            r"NCCL WARN Invalid rank requested : \d+/\d+",
        ),
        cause="the script builds a process group (a device mesh, a tensor- or pipeline-parallel "
        "group) over ranks that this world does not have: it was written for more processes "
        "than were launched (a mesh of 4 on 2 GPUs), so it fails the same way on every start.",
        fix="launch the number of processes the script's parallel layout needs (launchx run "
        "--nproc-per-node N, --nnodes M), or shrink the layout (mesh shape, tensor/pipeline "
        "parallel sizes) so its product divides the world size.",
        fixtures=(
            "world_mismatch__colossalai_2910_group_rank_outside_world.log",
            "world_mismatch__hybrik_47_invalid_rank_7_of_4.log",
        ),
    ),
    Rule(
        name="mpirun_not_enough_slots",
        category="world_mismatch",
        code="LX598",
        priority=82,
        retryable=False,
        patterns=(
            r"There are not enough slots available in the system to satisfy the \d+",
            # horovodrun's own check of -np against the slots of its -H/--hostfile
            r"Process number should not be larger than total available slots",
        ),
        cause="mpirun was asked for more processes (-np) than its allocation has slots (the "
        "hostfile's slots=, --host's :N, or the Slurm/PBS/LSF allocation it runs in), so it "
        "started none; the same command fails the same way until the two agree.",
        fix="ask for as many processes as the allocation gives (-np = nodes x tasks per node, "
        "e.g. sbatch --ntasks-per-node=<GPUs per node>), add slots to the hostfile, or let "
        "`launchx run` start one process per GPU itself.",
        fixtures=("world_mismatch__bevfusion_277_torchpack_mpirun_slots.log",),
    ),
    Rule(
        name="sampler_rank_outside_world",
        category="world_mismatch",
        code="LX624",
        priority=83,
        retryable=False,
        patterns=(
            # torch.utils.data.DistributedSampler's own check of rank < num_replicas
            r"ValueError: Invalid rank (?P<rank>\d+), rank should be in the interval "
            r"\[0, \d+\]",
        ),
        cause="a DistributedSampler was built with fewer replicas than the launch has ranks "
        "(num_replicas computed from a node or device count that differs from the launcher's "
        "world size, or passed by hand), so a rank beyond it was refused; the same launch "
        "fails the same way.",
        fix="build the sampler with num_replicas=dist.get_world_size() and "
        "rank=dist.get_rank() (or leave both out); in Lightning make num_nodes and devices "
        "match what the launcher starts (`launchx explain` shows the world it will launch).",
        fixtures=("world_mismatch__lightning_19961_sampler_invalid_rank.log",),
    ),
    Rule(
        name="mpi_world_unlike_torch",
        category="world_mismatch",
        code="LX628",
        priority=82,
        retryable=False,
        patterns=(
            # DeepSpeed's mpi_discovery: the ranks mpirun started against the world the
            # script's own init_process_group built
            r"MPI world size \d+ does not match torch world size \d+",
            r"MPI rank \d+ does not match torch rank \d+",
        ),
        cause="the job was started by mpirun, and DeepSpeed's MPI discovery found another "
        "world (or rank) than torch.distributed had already been set up with: the script "
        "initialised the process group itself from its own WORLD_SIZE/RANK (or its launcher "
        "script's), not from the MPI ranks; it fails the same way on every start.",
        fix="let one launcher own the world: start the script with the deepspeed launcher "
        "(or `launchx run`) instead of mpirun, or drop the script's own "
        "init_process_group and call deepspeed.init_distributed() so it reads the MPI "
        "ranks; check that -np equals nodes x GPUs per node.",
        fixtures=("world_mismatch__deepspeed_461_mpirun_mpi_world_size.log",),
    ),
    Rule(
        name="trtllm_engine_world",
        category="world_mismatch",
        code="LX634",
        priority=82,
        retryable=False,
        patterns=(
            # TensorRT-LLM's runners check the engine's tp x pp against the MPI world they
            # run in (examples/run.py, runtime/model_runner.py, the older per-model scripts)
            r"Engine world size \(\d+(?: \* \d+)?\) != Runtime world size \(\d+\)",
        ),
        cause="the TensorRT-LLM engine was built for one number of GPUs (tensor x pipeline "
        "parallel) and runs in an MPI world of another: it was started without mpirun or "
        "with another -n, or mpi4py was built against a different MPI than the mpirun that "
        "started it, so every process sees a world of 1. It fails the same way on every start.",
        fix="start it with `mpirun -n <tp x pp>` (the numbers in the message; under Slurm "
        "`srun --mpi=pmix`, since srun without an MPI plugin gives each process a world of "
        "1); when that already is the command, check that `mpirun -n 2 python -c 'from "
        "mpi4py import MPI; print(MPI.COMM_WORLD.size)'` prints 2 twice, and reinstall "
        "mpi4py against that MPI if not; or rebuild the engine for the GPUs the run has.",
        fixtures=("world_mismatch__tensorrt_llm_753_engine_world_size_vs_mpi_world_size.log",),
    ),
    Rule(
        name="vllm_parallel_world",
        category="world_mismatch",
        code="LX687",
        priority=82,
        retryable=False,
        patterns=(
            # vLLM's parallel_state: the torch world it was started in against the tensor x
            # pipeline parallel sizes it was asked for
            r"world_size \(\d+\) is not equal to tensor_model_parallel_size \(\d+\) x "
            r"pipeline_model_parallel_size \(\d+\)",
            # TensorRT-LLM's: the MPI world it was started in against the engine's sizes
            r"Assertion failed: mpiSize == tp \* pp\b",
        ),
        cause="vLLM (or SGLang, whose check says the same; TensorRT-LLM's says it of its MPI "
        "world) was started inside a torch world of another size than its tensor x pipeline "
        "parallel sizes: an engine built in every "
        "process of a torchrun launch (each process joins the launcher's world with the "
        "default tensor_parallel_size=1), or a framework's colocated rollout engine set up "
        "for fewer GPUs than it runs on, or on a vLLM release it does not support; every start "
        "fails the same way.",
        fix="make the numbers in the message agree: launch tensor x pipeline parallel processes "
        "(torchrun --nproc-per-node), or set tensor_parallel_size to the world it runs in; to "
        "evaluate under torchrun, build the engine in one process (or serve it with `vllm "
        "serve` and call it) instead of in every rank, or use vLLM's external_launcher "
        "executor, made for a torchrun world (its parallel sizes must still multiply to the "
        "world size); a framework that runs vLLM inside the training world needs the vLLM "
        "release it supports. TensorRT-LLM (mpiSize == tp * pp) wants tp x pp MPI processes: "
        "mpirun -n tp*pp, or Triton's launch_triton_server.py --world_size tp*pp.",
        fixtures=(
            "world_mismatch__ms_swift_3739.log",
            "world_mismatch__vlmevalkit_561.log",
            "world_mismatch__tensorrtllm_backend_129.log",
        ),
    ),
    Rule(
        name="xla_world_devices",
        category="world_mismatch",
        code="LX710",
        priority=82,
        retryable=False,
        patterns=(
            # torch_xla's xmp.spawn on TPU (XRT): nprocs other than 1 or every local core
            r"The number of devices must be either 1 or \d+, got \d+ instead",
        ),
        cause="torch_xla's spawn (XRT runtime) takes nprocs of 1 or all of the host's TPU "
        "cores and was given another number; every start fails the same way.",
        fix="pass nprocs equal to the host's cores (or leave it unset), or set TPU_NUM_DEVICES "
        "to the number of cores to use.",
        fixtures=("world_mismatch__xla_2483.log",),
    ),
    Rule(
        name="hccl_listen_port",
        category="port_in_use",
        code="LX742",
        # a symptom's tier: the same line follows a device port that is down (LX639), which
        # says more
        priority=45,
        retryable=False,
        patterns=(
            # HCCL's plog on a socket it could not listen on ("socket type[0], listen on
            # ip[192.2.2.195] and specific port[16666] fail. Please check the port status and
            # whether the port is been using by other process."), under whichever stage's tag;
            # types 0 and 1 are an NPU's own address, type 2 the host's NIC
            r"socket type\[\d+\], listen on ip\[[^\]]*\] and specific port\[\d+\] fail",
            # ... and the error codes CANN prints for it on the console
            r"Communication_Error_Bind_IP_Port\(EI0020\)",
            r"Bind_Failed\(EJ0003\): Failed to bind the IP port",
        ),
        cause="HCCL could not listen on its port (16666 by default on an NPU's own address): "
        "another process uses it (a second process or serving instance on the same NPU, a "
        "transfer engine, a run that has not exited), or the address is down or missing; "
        "while the holder runs, every start fails the same way.",
        fix="when several processes share an NPU, give each its own port: for a "
        "communicator created from root info, HCCL_NPU_SOCKET_PORT_RANGE=auto (or a range; "
        "HCCL_HOST_SOCKET_PORT_RANGE for the host NIC's, socket type 2), set on every card "
        "of the communicator; with a rank table, a distinct device_port/host_port for each "
        "process; stop a leftover process (npu-smi info lists each NPU's processes); check "
        "the address with `hccn_tool -i <dev> -link -g` and `-ip -g`.",
        fixtures=("port_in_use__vllm_ascend_4725.log",),
    ),
    Rule(
        name="ray_placement_bundle_index",
        category="world_mismatch",
        code="LX721",
        # above the ValueError's own reading (LX511): Ray's check, not the script's code
        priority=84,
        retryable=False,
        patterns=(
            # ray.util.placement_group's check of the bundle a worker actor is scheduled on
            r"placement group bundle index -?\d+ is invalid\. Valid placement group indexes: ",
        ),
        cause="an engine or trainer placed one worker per GPU on a Ray placement group that "
        "holds fewer bundles than it has workers (tensor x pipeline parallel x data parallel): "
        "the group was made, or reused, for a smaller world, or the engine counts its "
        "workers differently from the tool that reserved the group; every start fails the "
        "same way.",
        fix="make the placement group hold one bundle per worker: reserve it with the same "
        "tensor, pipeline and data-parallel sizes the engine is started with (or let the "
        "engine create its own group), and check that the Ray cluster has that many GPUs "
        "(ray status).",
        fixtures=("world_mismatch__gpustack_2500.log", "world_mismatch__gpustack_2547.log"),
    ),
    Rule(
        name="ray_placement_group_wait",
        category="rendezvous_timeout",
        code="LX725",
        # above the ValueError's own reading (LX511): vLLM's wait, not the script's code
        priority=84,
        patterns=(
            # vLLM's Ray executor waiting for its placement group (one GPU bundle per worker)
            r"Cannot provide a placement group requiring [\d.]+ GPUs \(.*\) within \d+ seconds",
            # ... its wording for a group of one-GPU workers, older releases' and forks'
            # (vllm-ascend's bundles ask for 'NPU')
            r"Cannot provide a placement group of placement_group_specs=.* within \d+ seconds",
        ),
        cause="vLLM's Ray executor waited for a placement group with one GPU per worker "
        "(tensor x pipeline parallel) and the Ray cluster never had that many free GPUs in "
        "time: a node that should have joined the cluster did not (its raylet failed to "
        "start or cannot reach the head), another job holds the GPUs, or the cluster is "
        "smaller than the parallel sizes ask for.",
        fix="run `ray status` and `ray list nodes` on the head: start or fix the missing "
        "node's `ray start --address=<head>:6379` (same Ray and Python versions, ports "
        "open), free the GPUs another job holds, or lower --tensor-parallel-size / "
        "--pipeline-parallel-size to the GPUs the cluster has.",
        fixtures=("rendezvous_timeout__gpustack_5181.log",),
    ),
    Rule(
        name="oneccl_ipc_exchange",
        category="socket_error",
        code="LX731",
        # a symptom's tier: the peer process on the other end may have died first
        priority=44,
        patterns=(
            # oneCCL's exchange of GPU memory handles between the ranks of a node over a Unix
            # socket ("errno: Broken pipe" on the next line)
            r"\|CCL_ERROR\| exchange_utils\.cpp:\d+ (?:sendmsg|recvmsg)_fd: condition",
        ),
        cause="oneCCL's exchange of GPU memory handles between the ranks of a node failed on "
        "its Unix socket: the process at the other end had exited or closed it (a peer that "
        "crashed or was killed), so this rank could not set up its communicator.",
        fix="read the other ranks' output for a first error (that is the cause); if none "
        "shows, check that every rank of the node starts oneCCL together (same CCL_* "
        "settings, same world) and that /tmp, where the socket lives, is shared and writable.",
        fixtures=("socket_error__ipexllm_12081.log",),
    ),
    Rule(
        name="xla_replication_device_count",
        category="world_mismatch",
        code="LX732",
        # above the RuntimeError's own reading (LX511): torch_xla's check of its world
        priority=84,
        retryable=False,
        patterns=(
            # torch_xla's set_replication: the devices a replica was given (one) against the
            # devices of that kind its process sees
            r"Cannot replicate if number of devices \(\d+\) is different from \d+",
        ),
        cause="each process that xmp.spawn (or Lightning's TPU strategy) started was given one "
        "XLA device but sees all of the TPU's cores, as one process alone would: the parent "
        "process set up the XLA runtime before spawning (a model or tensor moved to "
        "xm.xla_device() at import or in the main script), so the children inherit its view "
        "of the device instead of each getting its own core.",
        fix="create the model and call xm.xla_device() only inside the function that "
        "xmp.spawn runs (with Lightning, inside the LightningModule, not at import); restart "
        "the notebook's runtime so that no earlier process holds the TPU.",
        fixtures=("world_mismatch__lightning_7086.log", "world_mismatch__xla_2792.log"),
    ),
    Rule(
        name="ucx_socket_connect",
        category="socket_error",
        code="LX734",
        # a symptom's tier: the peer may have died (LX729 names a docker bridge's address)
        priority=44,
        patterns=(
            # UCX's TCP socket transport (under NIXL, Open MPI, UCC) connecting to a peer
            r"\bUCX +ERROR +connect\(fd=\d+, dest_addr=\S+\) failed: (?:Network is unreachable"
            r"|Connection (?:refused|timed out)|No route to host)",
        ),
        cause="UCX's TCP transport (under NIXL, Open MPI or UCC) could not connect to a peer's "
        "address: nothing listened there (refused: the peer process died or had not started), "
        "or this host has no route to it (unreachable: the peer advertised an address on an "
        "interface the nodes do not share, or a firewall drops the port).",
        fix="check that the peer is alive and that the address it advertised is one this node "
        "reaches (ping and a TCP connect to it); restrict UCX to the shared interface "
        "(UCX_NET_DEVICES=<dev>) or to the HCAs (UCX_TLS=rc,cuda_copy), and open the port "
        "range between the nodes.",
        fixtures=("socket_error__dynamo_813.log",),
    ),
    Rule(
        name="nccl_remote_socket",
        category="socket_error",
        code="LX520",
        # above NCCL's generic "unhandled system error" (55), whose detail this is when a
        # connection to a peer was closed, refused or aborted: the development logs with both
        # are labelled socket_error (or a configuration rule's category), never the generic one
        priority=56,
        patterns=(
            r"NCCL WARN (?:NET/Socket|socketProgress|Net : Connection closed|Socket recv failed)",
            r"socketProgress\w*: (?:Connection closed by remote peer|Call to \w+ .*failed)",
            r"NCCL WARN .*Connection (?:reset|refused|closed)",
            r"NCCL WARN Net : Call to \w+ .*failed",
            r"socket\w*Connect\w*: .*(?:exceeded (?:timeouts|retries|error retry count)|"
            r"Connection timed out)",
            r"NCCL WARN (?:Net : |socketStartConnect: )?Connect to \S+ failed : "
            r"(?:Connection timed out|Software caused connection abort|Connection reset)",
            # the same, as torch's DistBackendError quotes it under "Last error:"
            r"^socketStartConnect: Connect to \S+ failed : "
            r"(?:Connection timed out|Software caused connection abort|Connection reset)",
            # torch.distributed.rpc's TensorPipe agent (tensorpipe_agent.cpp) on a socket error
            # (not the EOF it expects while the agents shut down)
            r"RPC agent for \S+ encountered error when (?:sending outgoing|reading incoming) "
            r"(?:request|response)\b.*: E(?:CONNREFUSED|CONNRESET|PIPE|TIMEDOUT|HOSTUNREACH)\b",
        ),
        # an HTTP client's error (requests/urllib3 wrap the socket's): a download or an
        # API call of the script, not a connection between ranks. Python's own
        # ConnectionResetError, ConnectionRefusedError and BrokenPipeError are not read here
        # at all: they are the script's sockets and pipes (a multiprocessing queue, a
        # DataLoader worker's, a Ray or HTTP client's), most often after the process at the
        # other end died of its own error; where LX520 read only them, it was right for 1 of
        # 7 corpus logs (none of the development part's)
        exclude=(r"\('Connection aborted\.'", r"Max retries exceeded with url"),
        cause="a network connection to another rank was closed, reset or refused: usually that "
        "rank's process died first (look for its own error), else the interface or a "
        "firewall is wrong.",
        fix="look at the other ranks for the first failure; if there is none, check that the "
        "hosts reach each other on the interface NCCL picked (NCCL_SOCKET_IFNAME=<iface>, "
        "prefix match; '=eth0' for exact) and that no firewall drops the ports.",
        fixtures=(
            "socket_error__nccl_1612.log",
            "socket_error__nccl_1920.log",
            "socket_error__sglang_5594_nccl_connect_aborted_multinode.log",
            "socket_error__tensorpipe_201_rpc_econnrefused.log",
            "socket_error__nccl_tests_15_connection_closed_by_remote_peer.log",
            "socket_error__pytorch_147263_subgroup_allgather_connect_abort.log",
        ),
    ),
    Rule(
        name="grpc_stream_reset",
        category="socket_error",
        code="LX792",
        # a symptom's tier: the process at the other end may have died first
        priority=44,
        patterns=(
            # a gRPC call (Flower's and other federated or RPC frameworks' client-server
            # stream) ended by the peer's or a proxy's RST_STREAM frame, as grpc's
            # _Rendezvous / _MultiThreadedRendezvous exception prints its details
            r"\bdetails = \"Received RST_STREAM with error code \d+\"",
        ),
        cause="a gRPC stream between the processes (a federated-learning client and its "
        "server, an RPC framework's workers) was reset from the other end: the peer process "
        "died or restarted, or a proxy or load balancer cut a long-lived stream (error code "
        "2 is HTTP/2's INTERNAL_ERROR).",
        fix="look at the server's (the peer's) own log for its failure first; for long "
        "rounds with idle streams, set gRPC keepalive options (grpc.keepalive_time_ms) on "
        "both ends.",
        fixtures=("socket_error__flower_766_grpc_rst_stream.log",),
    ),
    Rule(
        name="nccl_peer_unreachable",
        category="socket_error",
        code="LX575",
        # Above NCCL's generic "unhandled system error" (55) and "internal error" (65) that
        # report this failure a few lines later.
        priority=66,
        retryable=False,
        patterns=(
            r"NCCL WARN (?:socketStartConnect: |Net : )?Connect to \S+ failed : "
            r"(?:Network is unreachable|No route to host)",
            # NCCL 2.19+ (misc/socket.cc socketPollConnect)
            r"NCCL WARN socket\w*Connect: Connect to \S+ returned \d+\((?:Network is "
            r"unreachable|No route to host)\)",
        ),
        cause="NCCL could not even start a connection to a peer: there is no route from this "
        "host to the address that peer advertised (an interface the other hosts cannot "
        "reach: an IPv6 link-local fe80:: address, a docker bridge, a private or management "
        "network), or a firewall rejects the port (firewalld's default answer reads 'No "
        "route to host'); every attempt fails the same way.",
        fix="set NCCL_SOCKET_IFNAME (profile env) to the interface every node shares, e.g. "
        "=eth0 or ^docker,lo; with IPv6 link-local addresses in the log set "
        "NCCL_SOCKET_FAMILY=AF_INET; check with `ip route get <peer address>` and "
        "`nc -zv <peer> <port>` from each node, and open the ports between the nodes.",
        fixtures=("socket_error__wenet_1891_multinode_ipv6_link_local_unreachable.log",),
    ),
    Rule(
        name="nccl_bootstrap_connect_stalled",
        category="socket_error",
        code="LX647",
        # Above NCCL's generic "unhandled system error" (55) that reports it; below the
        # rules that name why a peer is unreachable (a link-local address: LX580, 58; no
        # route: LX575, 66), after which the same connect stalls
        priority=57,
        patterns=(
            r"NCCL INFO misc/socket\.cc:\d+ -> 2 \(Operation now in progress\)",
            # NCCL 2.19+: the same connect, as the "Last error:" of torch's DistBackendError
            r"socketPollConnect poll\(\) returned \d+, no POLLOUT events",
        ),
        cause="NCCL's bootstrap connection to a peer failed while it was being made: poll() "
        "reported an error or a hang-up on the connecting socket (the 'Operation now in "
        "progress' is the non-blocking connect()'s own errno, left over), and the "
        "communicator's set-up failed on the ranks that waited for it. An address the other "
        "node cannot reach (NCCL took an interface only this node's segment sees) or a "
        "firewall keeps it so; a peer that was restarting would not, so it is retried only "
        "from a checkpoint.",
        fix="set NCCL_SOCKET_IFNAME (profile env) to the interface every node shares (=eth0, "
        "=ib0, ^docker,lo), and allow all TCP between the nodes on that interface (NCCL's "
        "bootstrap and socket ports are ephemeral, not one port to open); `launchx doctor "
        "--nodes` tests the paths.",
        fixtures=(
            "socket_error__pytorch_131781_bootstrap_connect_inprogress.log",
            "socket_error__veomni_131_multinode_socketpollconnect.log",
        ),
    ),
    Rule(
        name="name_not_resolved",
        category="socket_error",
        code="LX571",
        # A symptom's tier: c10d warns while it retries a name that may yet resolve, and a
        # logger (wandb) may fail to resolve its own server while training goes on; any
        # other failure in the log (a timeout, a crash) is the better cause.
        priority=45,
        patterns=(
            r"nslookup: can't resolve",
            r"The (?:IPv4 )?network addresses of \([^)]*\) cannot be retrieved",
            r"socket\.gaierror: \[Errno -?\d+\]",
            r"Name does not resolve|Temporary failure in name resolution",
            r"host not found: ",  # TCPStore before torch 1.9
        ),
        # c10d tries IPv6 as well and warns when a name has no IPv6 address; harmless when
        # the IPv4 address resolves, so that warning is no evidence.
        exclude=(r"IPv6",),
        cause="a host name (MASTER_ADDR, the rendezvous endpoint or a peer's) does not resolve "
        "on this node, so it cannot connect: the name is not in DNS or /etc/hosts here, is "
        "empty, or names a pod or service that does not exist yet.",
        fix="set MASTER_ADDR (or --rdzv-endpoint) to an IP address, or make the name "
        "resolvable on every node (getent hosts NAME must print the master's address); on "
        "Kubernetes-style platforms start the workers after the master's service exists.",
        fixtures=("socket_error__ms_swift_6368_dlc_master_name_not_resolved.log",),
    ),
    Rule(
        name="bracketed_master_addr",
        category="rendezvous_timeout",
        code="LX644",
        priority=60,
        retryable=False,
        patterns=(
            # c10d's socket.cpp prints the host as it was given: brackets there came with the
            # address (MASTER_ADDR "[2605:...]", a URL's form), and no resolver accepts them
            r"The (?:IPv[46] )?network addresses of \(\[[0-9A-Fa-f:.]+(?:%\w+)?\], \d+\) "
            r"cannot be retrieved",
        ),
        cause="the master address is an IPv6 address written with its URL brackets "
        '("[2605:...]"): getaddrinfo cannot resolve that string in either family, so the '
        "ranks never reach the store and wait until the rendezvous times out; a framework "
        "that copies a node address it got in bracketed form (Ray prints them so) does the "
        "same. Every start waits alike.",
        fix="pass the IPv6 address without brackets as MASTER_ADDR (or --master-addr), or a "
        "host name that resolves to it; keep brackets only inside a URL with a port "
        "(tcp://[addr]:port, --rdzv-endpoint [addr]:port).",
        fixtures=("rendezvous_timeout__verl_2550_ipv6_bracketed_master_addr_hang.log",),
    ),
    Rule(
        name="nccl_connect_refused",
        category="socket_error",
        code="LX553",
        priority=66,
        retryable=False,
        patterns=(r"Call to connect returned Connection refused",),
        cause="NCCL kept getting 'connection refused' from a peer and gave up: nothing listened "
        "at the peer's address, because that rank had not started, had died, or listens on "
        "an interface this host cannot reach; the log does not say which, so it is not "
        "retried blindly.",
        fix="look at the peer's own log first; then check that every node uses an interface "
        "the others reach (NCCL_SOCKET_IFNAME) and that no firewall or network policy blocks "
        "the ports between the pods or hosts.",
        fixtures=(
            "socket_error__fairseq_1096_connect_refused.log",
            "socket_error__nccl_948_detectron2_connect_refused.log",
        ),
    ),
    Rule(
        name="nccl_last_error_peer_closed",
        category="socket_error",
        code="LX559",
        priority=66,
        retryable=False,
        patterns=(
            r"^(?:Net|socketProgress\w*) ?: Connection closed by remote peer",
            # NCCL 2.12-2.17's detail of a refused or reset socket to a peer under "Last
            # error:" (not the start-up "Call to connect returned ..., retrying")
            r"^Net : Call to (?:recv|send) from \S+ failed : Connection (?:refused|reset by peer)",
        ),
        cause="NCCL failed (it calls it an internal error) because a peer closed its "
        "connection: the detail under 'Last error:' says so. The peer process most likely "
        "died or gave up first; its own log holds the cause, and this one cannot tell "
        "whether a retry helps.",
        fix="read the other ranks' output for the first failure; if none failed, check that "
        "the hosts reach each other on the interface NCCL uses (NCCL_SOCKET_IFNAME, prefix "
        "match; '=eth0' for exact) and that no firewall resets connections between them.",
        fixtures=(
            "socket_error__nccl_1514_lightning_closed_by_peer.log",
            "socket_error__gpt_neox_1147_pdsh_node2_recv_connection_refused.log",
        ),
    ),
    Rule(
        name="xla_mesh_master_unreachable",
        category="rendezvous_timeout",
        code="LX632",
        priority=46,
        patterns=(
            # torch_xla before PJRT: xmp.spawn's children meet at a "mesh master" service
            # that the parent process (or the first TPU host) runs. (Its client's own check,
            # "Check failed: impl_->channel->WaitForConnected(", stays the script's exception:
            # an xm.rendezvous called after the spawned processes ended says it too.)
            r"Failed to connect to client mesh master: \S+",
        ),
        cause="an xmp.spawn process of torch_xla (the XRT runtime, before PJRT) could not "
        "reach the mesh master, the rendezvous service that the parent process or the "
        "first TPU host runs, before its connect wait ended: the parent had already "
        "exited or was stuck, the master's address (XRT_MESH_SERVICE_ADDRESS, the TPU "
        "config) points elsewhere, or a firewall sits between the TPU hosts.",
        fix="check that the spawned function does not return before the others reach it "
        "and that the parent stays up; check XRT_TPU_CONFIG / XRT_MESH_SERVICE_ADDRESS and "
        "that every host reaches the master's port; torch_xla 2.x (PJRT: PJRT_DEVICE=TPU) "
        "has no mesh service.",
        fixtures=("rendezvous_timeout__xla_2676_tpu_mesh_master_connect_failed.log",),
    ),
    Rule(
        name="xla_mesh_socket",
        category="socket_error",
        code="LX633",
        priority=46,
        patterns=(
            r"^(?:Exception in device=TPU:(?P<rank>\d+): |RuntimeError: )?(?:\S*/)?"
            r"mesh_service\.cc:\d+ : "
            r"Failed to (?:meet rendezvous '[^']*'|retrieve mesh configuration): "
            r"(?:Socket closed|Connection reset by peer|Connection refused)",
        ),
        cause="an xmp.spawn process of torch_xla (the XRT runtime, before PJRT) lost its "
        "connection to the mesh service while the processes met (xm.rendezvous) or fetched "
        "the mesh configuration: the service's process (the parent, or another replica) "
        "died or closed the socket first; read the other processes' output for the first "
        "error.",
        fix="look for the process that failed first (an exception, an OOM kill of the "
        "notebook's host, a TPU runtime restart) and fix that; on a hosted notebook "
        "(Colab, Kaggle) restart the runtime so that no process of an earlier run holds "
        "the TPU; torch_xla 2.x (PJRT) has no mesh service.",
        fixtures=(
            "socket_error__xla_2119_colab_tpu_rendezvous_socket_closed.log",
            "socket_error__xla_2341_kaggle_tpu_mesh_connection_reset.log",
        ),
    ),
    Rule(
        name="xrt_tpu_worker_unavailable",
        category="socket_error",
        code="LX724",
        # LX633's tier: the TPU worker's process may have died of a cause printed elsewhere
        priority=46,
        patterns=(
            # XRT (torch_xla before PJRT) talks gRPC to the TPU worker (port 8470 of a TPU
            # node, or its own server on a TPU VM): TensorFlow's master client gives up on it
            r"grpc_remote_master\.cc:\d+\] RPC failed with status = \"UNAVAILABLE: (?:Socket "
            r"closed|Connection reset by peer|failed to connect to all addresses|Broken pipe)",
        ),
        cause="torch_xla's XRT client lost its gRPC connection to the TPU worker (the TPU "
        "node's server on port 8470, or the TPU VM's local server): the worker restarted or "
        "crashed (often out of host memory, or a TPU runtime upgrade under the client), or "
        "the network between the client VM and the TPU node dropped the connection.",
        fix="check the TPU's health and its runtime version against torch_xla's (gcloud "
        "compute tpus describe); restart the TPU (or the notebook's runtime) and rerun; on "
        "torch_xla 2.x use PJRT (PJRT_DEVICE=TPU), which has no remote worker.",
        fixtures=("socket_error__xla_3975.log",),
    ),
    Rule(
        name="store_no_route",
        category="rendezvous_timeout",
        code="LX562",
        priority=46,
        retryable=False,
        patterns=(r"failed to connect to .*errno: 113 - No route to host",),
        cause="the ranks could not reach the master's store at all: the kernel says there is "
        "no route to that address (the master address is one of the master's interfaces the "
        "other hosts cannot reach, or a firewall rejects it); waiting or retrying reaches the "
        "same unreachable address.",
        fix="give the master address of the interface the nodes share (launchx: --master-addr, "
        "or master_addr: auto to take the one that routes); check with `ip route get <addr>` "
        "and `nc -zv <addr> <port>` from a worker node; launchx doctor --nnodes N checks "
        "every node's reach of the rendezvous port.",
        fixtures=("rendezvous_timeout__accelerate_2468_pdsh_no_route_to_host.log",),
    ),
    Rule(
        name="hivemind_no_group",
        category="rendezvous_timeout",
        code="LX690",
        # a symptom's tier, as the other rendezvous rules: hivemind logs the failed step and
        # trains on alone, so a later exception or timeout is the run's end (LX511 leaves
        # the exception line this is raised as to it)
        priority=46,
        patterns=(HIVEMIND_NO_GROUP,),
        cause="hivemind's matchmaking found no peers to average with before its time ran out: "
        "the other peers never joined the swarm (not started, another run_id or DHT prefix), "
        "cannot reach this one (initial_peers addresses unreachable, a firewall or NAT), or "
        "are too slow to meet in the matchmaking window; the log does not say which.",
        fix="check that every peer starts with the same run_id and reachable --initial_peers "
        "multiaddrs (the public address and an open port, or client_mode/relays behind NAT), "
        "and raise matchmaking_time or lower target_group_size when peers are slow; a rerun "
        "helps only once the peers are up.",
        fixtures=("rendezvous_timeout__hivemind_519.log",),
    ),
    Rule(
        name="rendezvous_timeout",
        category="rendezvous_timeout",
        code="LX521",
        priority=45,
        patterns=(
            r"RendezvousTimeoutError",
            r"RendezvousConnectionError",
            r"The client socket has timed out after \d+\w* while trying to connect",
            # TCPStore's client before torch 2.0
            r"connect\(\) timed out\. Original timeout was \d+ ms",
            # ... and before torch 1.7 (tcputils), with no timeout in it
            r"^RuntimeError: connect\(\) timed out\.$",
            # (quoted in prose, a sentence's lower case)
            r"[Tt]imed out initializing process group in store based barrier",
            r"DistStoreError: .*(?:[Tt]imeout|[Tt]imed out)",
            # ... as Ray re-raises it at the driver, the message left in the worker: the
            # store's errors are its waits for keys that peers never wrote (c10's
            # DistStoreError; a connection's are DistNetworkError)
            r"\bRayTaskError\(DistStoreError\): ray::",
            r"waiting for clients\. \d+/\d+ clients joined",
            r"The client socket has failed to connect to .*errno: 11[01] - Connection "
            r"(?:refused|timed out)",
            r"The client socket has failed to connect to any network address",
            r"Socket Timeout",
            # the file or TCP store's wait before torch 1.x's longer wordings, alone on the
            # exception line: a peer never wrote its key (it never started, or hung first)
            r"^RuntimeError: Wait timeout$",
            # Horovod's gloo rendezvous (horovodrun's or Ray's HTTP store): a rank's key
            # never came within HOROVOD_GLOO_TIMEOUT_SECONDS
            r"http_store\.cc:\d+\] Wait timeout after \d+ seconds for key",
            # torchelastic's store (elastic/utils/distributed.py, create_c10d_store): the
            # barrier every member runs until all have connected ran out of time
            r"timed out waiting for all \d+ members to join",
        ),
        cause="not every node/rank joined the rendezvous (or reached MASTER_ADDR:MASTER_PORT) "
        "before the timeout: a node started late or not at all, or cannot reach the "
        "master's address/port.",
        fix="start every node with the same --nnodes, --run-id and --master-addr (torchrun: "
        "--rdzv-id and --rdzv-endpoint); check that "
        "the master address resolves to the interface the others can reach and the port is "
        "open (nc -zv <addr> <port>); raise the wait with --rdzv-conf join_timeout=<s> "
        "(profile timeouts.rdzv_timeout_s) when nodes start slowly. Horovod's gloo "
        "rendezvous: check that every worker started (horovodrun's hosts, Ray's actors) and "
        "raise HOROVOD_GLOO_TIMEOUT_SECONDS.",
        # the store out of reach, or reached and left waiting, and Horovod's own store
        cases=(
            Case(
                when=(r"http_store\.cc",),
                cause="Horovod's gloo rendezvous waited for a rank that never wrote its key: "
                "a worker did not start (horovodrun's hosts, Ray's actors) or started too "
                "late.",
                fix="check that every worker started (horovodrun -H's hosts and slots, Ray's "
                "actors) and raise HOROVOD_GLOO_TIMEOUT_SECONDS when they start slowly.",
            ),
            Case(
                when=(
                    r"failed to connect|timed out after \d+\w* while trying to connect",
                    r"connect\(\) timed out|RendezvousConnectionError",
                ),
                cause="a rank could not reach the rendezvous store at MASTER_ADDR:MASTER_PORT "
                "(or --rdzv-endpoint): the node that hosts it had not started or had already "
                "failed, the address resolves to an interface the other nodes cannot reach, "
                "or a firewall drops the port.",
                fix="start the first node (node rank 0, or the endpoint's host) and check from "
                "another node that it answers: `getent hosts <addr>` gives an address they can "
                "reach (not 127.0.x.x), `nc -zv <addr> <port>` connects; open the port in the "
                "firewall or security group; raise --rdzv-conf join_timeout=<s> (profile "
                "timeouts.rdzv_timeout_s) when nodes start slowly.",
            ),
            Case(
                when=(
                    r"clients joined|store based barrier|members to join",
                    r"RendezvousTimeoutError|DistStoreError|Wait timeout",
                ),
                cause="the rendezvous store was reached, but not every rank or node joined "
                "before the timeout: a node started late or not at all, or the ranks disagree "
                "on the world's size (--nnodes, --nproc-per-node, a world_size passed to "
                "init_process_group).",
                fix="start every node with the same --nnodes, --nproc-per-node and run id "
                "(torchrun: --rdzv-id and --rdzv-endpoint) and let init_process_group take "
                "its world size from the launcher's WORLD_SIZE; raise --rdzv-conf "
                "join_timeout=<s> (profile timeouts.rdzv_timeout_s) when nodes start slowly.",
            ),
        ),
        fixtures=(
            "rendezvous_timeout__av_hubert_19_wrapped_json.log",
            "rendezvous_timeout__neuralforecast_934.log",
            "rendezvous_timeout__pytorch_107021.log",
            "rendezvous_timeout__pytorch_69197_c10d_connect_timed_out.log",
            "rendezvous_timeout__deepdrivemd_14.log",
            "rendezvous_timeout__pytorch_13583_gloo_filestore_samba_wait_timeout.log",
            "rendezvous_timeout__ray_25866.log",
            "rendezvous_timeout__finetune_chatglm2_6_store_barrier.log",
        ),
    ),
    Rule(
        name="ccom_bootstrap_wait",
        category="rendezvous_timeout",
        code="LX746",
        # LX521's tier: a peer that never connected may have failed first, in its own words
        priority=45,
        patterns=(
            # the Neuron runtime's collectives (CCOM, an NCCL derivative) while its ranks
            # meet: rank 0's bootstrap waits for the others' connections and retries
            r"CCOM WARN Timeout waiting for (?:RX|incoming connection) \(waited \d+ sec\)",
        ),
        cause="the Neuron collectives (CCOM) of this rank waited for the other ranks to "
        "connect while building the communicator and none came within its wait: a rank "
        "had not reached the collective (still loading, or failed earlier), or its address "
        "is unreachable between the instances (security group, EFA not set up).",
        fix="read the other ranks' output for an earlier failure; check that every instance "
        "started the same world, that the security group allows all traffic between the "
        "instances, and that EFA is enabled (a failing 'OFI plugin initNet()' says it is "
        "not, and CCOM then falls back to sockets).",
        fixtures=("rendezvous_timeout__aws_neuron_sdk_851.log",),
    ),
    Rule(
        name="hivemind_bootstrap_peers",
        category="rendezvous_timeout",
        code="LX712",
        # above the user's exception (LX511), whose RuntimeError line the DHT's is
        priority=81,
        # the swarm's peers come back (their maintainers restart them, the list is renewed):
        # a later start joins, as the threads of these logs say
        retryable=True,
        patterns=(
            # hivemind's DHT (Petals, swarm trainers): its libp2p daemon could reach none of
            # the initial peers it was given, so the node never joins
            r"Daemon failed to start: .*failed to connect to bootstrap peers",
            # ... or the DHT node's own ping of them, when the daemon started: the exception
            # it raises, not the warning it logs instead under ensure_bootstrap_success=False
            r"Error: DHTNode bootstrap failed: none of the initial_peers responded",
        ),
        cause="the node could not join the peer-to-peer swarm: hivemind's p2p daemon reached "
        "none of its initial (bootstrap) peers, because they were down or their addresses "
        "stale, or this host's outbound connections are blocked (a firewall, NAT, no route); "
        "nothing trained.",
        fix="check the initial peers' multiaddrs and that they are up (connect to one with "
        "nc -zv host port), allow outbound TCP/QUIC to them, and start again; with the "
        "project's own peers, take the current list from its release notes or status page.",
        fixtures=(
            "rendezvous_timeout__rl_swarm_246.log",
            "rendezvous_timeout__rlswarm_184_dht_bootstrap_failed.log",
            "rendezvous_timeout__rlswarm_213_p2p_daemon_bootstrap.log",
        ),
    ),
    Rule(
        name="dynamo_etcd_unreachable",
        category="rendezvous_timeout",
        code="LX717",
        priority=60,
        retryable=False,
        patterns=(
            # NVIDIA Dynamo's runtime: its workers find each other through etcd
            r"Failed to connect to etcd server with config ",
        ),
        cause="the serving runtime's workers register with and find each other through an etcd "
        "server (NVIDIA Dynamo's distributed runtime), and none answered at the address it "
        "was given (ETCD_ENDPOINTS, localhost:2379 by default): etcd was not started, or runs "
        "elsewhere; nothing can join until it is reachable.",
        fix="start etcd (and NATS, which the runtime also needs) before the workers, or point "
        "ETCD_ENDPOINTS at the one the deployment runs (check it with `etcdctl endpoint "
        "health`).",
        fixtures=("rendezvous_timeout__dynamo_1188.log",),
    ),
    Rule(
        name="store_connection_lost",
        category="rendezvous_timeout",
        code="LX551",
        priority=46,
        patterns=(r"Connection (?:reset by peer|refused)", r"Broken pipe"),
        context=(
            r'^File ".*", line \d+, in (?:init_process_group|_store_based_barrier|rendezvous'
            r"|_create_c10d_store|_env_rendezvous_handler|next_rendezvous|_rendezvous)\b",
        ),
        cause="the connection to the master's store broke while the process group was being "
        "set up: the master (or its pod) was not ready yet or restarted, or MASTER_ADDR:"
        "MASTER_PORT reaches something else.",
        fix="start the master first or let the workers wait for it (retry.on="
        "[rendezvous_timeout] retries it without a checkpoint); check that "
        "MASTER_ADDR resolves to the master on every node and that nothing else listens on "
        "MASTER_PORT.",
        fixtures=("rendezvous_timeout__kubeflow_2008_worker_reset.log",),
    ),
    Rule(
        name="store_barrier_incomplete",
        category="rendezvous_timeout",
        code="LX552",
        priority=46,
        retryable=False,
        patterns=(
            r"(?:on rank:? (?P<rank>\d+), for key: )?store_based_barrier_key:\d+ "
            r"\(world_size=(?P<world>\d+), (?:worker_count|num_workers_joined)=(?P<joined>\d+)",
        ),
        compare=("world", "joined"),
        cause="fewer processes reached the store-based barrier of init_process_group than the "
        "world has: some rank never called it (it crashed or hung before, or was never "
        "started with this WORLD_SIZE). Its own log says why; a retry does not.",
        fix="find the rank that is missing from the 'Waiting in store based barrier' lines and "
        "read its output; check that the launcher starts WORLD_SIZE processes "
        "(nnodes x nproc_per_node) and gives each a distinct RANK.",
        fixtures=("rendezvous_timeout__lightning_4420_seven_of_eight.log",),
    ),
    Rule(
        name="socket_system_error",
        category="socket_error",
        code="LX613",
        # a symptom's tier, like a store connection that closed (LX529): the socket's peer
        # may have died of a cause printed elsewhere
        priority=44,
        patterns=(
            # C++'s terminate handler, the line after "terminate called after throwing an
            # instance of 'std::system_error'": the errno text of a socket call (c10d's
            # store client, a transport thread) that no Python code could catch
            r"^what\(\):\s+(?:Transport endpoint is not connected|Connection reset by peer"
            r"|Broken pipe|Connection refused|Connection timed out|No route to host"
            r"|Network is unreachable)\s*$",
            # the same errno raised to Python from a collective or a store call, with nothing
            # after it: c10d's words alone name no transport (gloo's and NCCL's own say
            # theirs, LX522 and LX520)
            r"^RuntimeError: Connection reset by peer\s*$",
            # ... and a socket call's errno as the whole message of the exception that ended
            # the process, from torch's store (DistNetworkError) or from Python's socket
            # module, under a class that does not name the errno (ConnectionResetError and
            # its kin are left unread: LX520's note):
            # "OSError: [Errno 113] No route to host", "TimeoutError: [Errno 110] Connection
            # timed out", "torch.distributed.DistNetworkError: Broken pipe" (not an HTTP
            # client's, whose message names the URL it fetched; a bare "RuntimeError: Broken
            # pipe" under a broadcast is labelled three ways, and stays unread)
            r"^(?:OSError|TimeoutError|socket\.(?:timeout|error)|ConnectionError|"
            r"ConnectionAbortedError|(?:torch\.distributed\.)?DistNetworkError): "
            r"(?:\[(?:Errno|WinError) -?\d+\] )?(?:Connection (?:reset by peer|refused|timed out)"
            r"|No route to host|Network is unreachable|Broken pipe|Software caused connection "
            r"abort|Transport endpoint is not connected|An established connection was aborted "
            r"by the software in your host machine)\.?\s*$",
        ),
        cause="a socket between this process and a peer or the rendezvous store failed inside "
        "torch's C++ code, raised to the caller of a collective or a store call or, in a "
        "thread or a destructor where nothing could catch it, terminating the process: the "
        "peer's process went away (reset, broken pipe, not "
        "connected, or refused: its port is closed), or its host or the route to it did "
        "(timed out, no route, unreachable; a firewall does the same).",
        fix="read the other ranks' and nodes' output for a first error (that is the cause); if "
        "there is none, the host or the link is at fault: check the interface the ranks use "
        "(GLOO_SOCKET_IFNAME / NCCL_SOCKET_IFNAME in the profile) and, for a failure at "
        "start-up, MASTER_ADDR, MASTER_PORT and the firewall between the nodes; save "
        "checkpoints often enough that a retry resumes (launchx run retries it from a "
        "checkpoint).",
        fixtures=(
            "socket_error__moco_25_transport_endpoint_not_connected.log",
            "socket_error__lightning_16673.log",
        ),
    ),
    Rule(
        name="mooncake_tcp_socket",
        category="socket_error",
        code="LX720",
        # a symptom's tier (LX529's): the peer engine's process may have died of a cause
        # printed in its own log
        priority=44,
        patterns=(
            # Mooncake's transfer engine over its TCP protocol: boost.asio's connect to the
            # peer segment's RPC port throws, or a session's read/write ends with a socket
            # error ("Session::writeBody failed. Error: Connection reset by peer (value: 104)")
            r"TcpTransport: ASIO exception: (?:connect: )?(?:Connection (?:refused|reset by peer"
            r"|timed out)|Broken pipe|No route to host|Network is unreachable|Host is unreachable)",
            r"Session::(?:read|write)(?:Header|Body) failed\. Error: (?:Connection (?:refused"
            r"|reset by peer|timed out)|Broken pipe|End of file|No route to host)",
        ),
        cause="Mooncake's transfer engine, on its TCP protocol, could not reach the peer "
        "segment's RPC port or lost the connection mid-transfer: the peer engine (a prefill or "
        "decode instance, a store node) was not listening at the address it published to the "
        "metadata server, had died, or a firewall sits between the two hosts; the transfers "
        "fail after their retries and the engine above them (vLLM, SGLang) fails the request "
        "or its worker.",
        fix="check the peer instance's own log for its first error; if it is alive, make the "
        "address it publishes reachable from this host (its hostname must resolve to the "
        "interface the peers use; open the RPC port range between the nodes), or use the RDMA "
        "protocol where the nodes have it.",
        fixtures=(
            "socket_error__mooncake_292.log",
            "socket_error__mooncake_809.log",
        ),
    ),
    Rule(
        name="store_server_closed",
        category="socket_error",
        code="LX529",
        # A symptom's tier: the store's host (rank 0, or node 0's torchrun agent) went away,
        # usually because it failed first; its own failure in the log is the better cause.
        priority=44,
        patterns=(r"[Ff]ailed to recv, got 0 bytes", r"[Ff]ailed to send, sent 0 bytes"),
        cause="this rank's connection to the rendezvous store (a TCPStore hosted by rank 0 or "
        "by node 0's torchrun agent) was closed from the other side: the store's process "
        "exited or crashed, or something between the pods (a service mesh sidecar, a "
        "firewall, a load balancer) cut the connection.",
        fix="read the log of rank 0 and of node 0's launcher first: the store dies with them; "
        "if they are alive, check what sits between the nodes on MASTER_PORT (on Kubernetes, "
        "disable sidecar injection for the training pods).",
        fixtures=("socket_error__kubeflow_website_4186_trainer_tcpstore_recv_0_bytes.log",),
    ),
    Rule(
        name="gloo_connection_lost",
        category="gloo_error",
        code="LX522",
        priority=40,
        patterns=(
            r"gloo/transport/tcp/\w+\.cc:\d+\] (?:Connection closed by peer|Read error|"
            r"Write error|writev|Connection reset by peer)",
            r"\[gloo\].*Connection (?:closed|reset)",
        ),
        cause="a gloo connection to another rank was closed or reset: that rank's process "
        "exited (crashed, or returned while this one still expected a message, such as an "
        "isend never waited on).",
        fix="read the other ranks' output for the first error (it is the cause); if the peer "
        "exited cleanly, make both sides issue the same sends/receives and wait() on every "
        "isend/irecv before the process ends.",
        fixtures=("gloo_error__pytorch_75512.log", "gloo_error__pytorch_78514_isend_no_wait.log"),
    ),
    Rule(
        name="gloo_message_longer_than_posted",
        category="gloo_error",
        code="LX693",
        # the same tier as the connection rule it is one of the enforce lines of (LX523)
        priority=41,
        patterns=(r"op\.preamble\.length <= op\.nbytes\b",),
        cause="gloo received from a peer a message longer than the buffer this rank posted "
        "for it: the ranks called the collective with tensors of different sizes (a last "
        "batch of another length, a tensor gathered without padding), or called different "
        "collectives in a different order, not a network fault.",
        fix="make every rank pass tensors of the same shape to each collective (pad to the "
        "largest, or all_gather_object / gather the sizes first) and call the collectives in "
        "the same order on every rank; TORCH_DISTRIBUTED_DEBUG=DETAIL checks both and names "
        "the mismatch.",
        fixtures=("gloo_error__prime_diloco_68_enforce_preamble_length.log",),
    ),
    Rule(
        name="gloo_setup",
        category="gloo_error",
        code="LX523",
        priority=40,
        patterns=(
            r"Gloo connectFullMesh failed",
            # (and gloo's own look-ups of the host's interfaces and devices, common/linux.cc;
            # a paste copied from GitHub's rendered page can carry "http://" before a ".cc"
            # file name, which the page took for a web address)
            r"gloo/(?:transport/(?:tcp|uv)|common)/(?:https?://)?\w+\.(?:cc|h):\d+\]",
            r"gloo::EnforceNotMet",
            # ProcessGroupGloo's device factory: no GLOO_SOCKET_IFNAME and a host name that
            # resolved to nothing usable (Windows: the store's "[]:port", WSA error 10049)
            r"GlooDeviceFactory::make\w*Device\(\): interface or hostname can't be empty",
        ),
        exclude=(r"Timed out", r"Connection (?:closed|reset)", r"Read error|Write error|writev"),
        cause="gloo could not connect the ranks: usually the wrong network interface was chosen "
        "(a docker/virtual bridge or one without a route to the other hosts); or its own "
        "look-up of the host's interfaces and devices failed (common/linux.cc: an interface "
        "that is not there, a build with GPUDirect on a host without InfiniBand).",
        fix="set GLOO_SOCKET_IFNAME=<iface> (and NCCL_SOCKET_IFNAME) to the interface the hosts "
        "share, and check that they resolve each other's hostnames to reachable addresses; "
        "for a device look-up that fails, a torch build whose gloo matches the host (the "
        "official wheels, not a GPUDirect build on a host without InfiniBand).",
        fixtures=(
            "gloo_error__gloo_268_address_family_mismatch.log",
            "gloo_error__occlum_1604_connectfullmesh.log",
            "gloo_error__colossalai_4076_new_group_bind_eaddrinuse.log",
            "gloo_error__ray_49252_macos_uv_accept_sigabrt.log",
            "gloo_error__rvc_webui_1551_windows_makeuvdevice_empty_host.log",
            "gloo_error__pytorch_2835.log",
            "gloo_error__sparsercnn_28.log",
        ),
    ),
    Rule(
        name="gloo_hostname_unresolved",
        category="gloo_error",
        code="LX779",
        # a root cause (no gloo device, so no process group), over the exceptions a harness
        # or the script raises after it (LX511) and gloo's other set-up lines (LX523)
        priority=81,
        retryable=False,
        patterns=(
            # gloo's tcp device (device.cc): with no interface named, it looks up the host's
            # own name, and getaddrinfo gave nothing it can bind ("ifa != nullptr" is an
            # interface's, LX741's)
            r"rp != nullptr\. Unable to find address for: ",
            # ... and when the name resolved but to no address an interface has, so bind(2)
            # to it failed ("Cannot assign requested address")
            r"bind_rv == 0\. Unable to find address for \S+; bind\(2\) for ",
        ),
        cause="gloo looks up this host's own name to find the address to listen on, and the "
        "name resolves to nothing usable: a container or VM whose hostname is not in "
        "/etc/hosts, a DNS that does not know the machine, or a name that resolves only to "
        "an address no interface has; the process group is never built, on every start.",
        fix="make the host name resolve (add `<address> $(hostname)` to /etc/hosts, or run "
        "the container with --hostname/--add-host set to it), or name the interface so gloo "
        "needs no look-up: GLOO_SOCKET_IFNAME=<iface> (and NCCL_SOCKET_IFNAME).",
        fixtures=(
            "gloo_error__pipedream_32_unable_to_find_address.log",
            "gloo_error__pytorch_world_7_docker_hostname_unresolvable.log",
        ),
    ),
    Rule(
        name="gloo_no_transport",
        category="gloo_error",
        code="LX610",
        # a root cause, not a lost peer (LX522/LX523 sit in the symptoms' tier): the process
        # group is never built, on any rank
        priority=60,
        retryable=False,
        patterns=(r"makeDeviceFor(?:Hostname|Interface)\(\): unsupported gloo device",),
        cause="this torch build has no gloo transport for the device it was asked for: "
        "ProcessGroupGloo found no TCP or libuv transport compiled in (the Windows wheels of "
        "some torch releases ship gloo without one; Lightning's own tests expect this error "
        "on Windows with torch 2.8 and 2.9), or GLOO_DEVICE_TRANSPORT names one the build "
        "lacks. No rank can start a gloo group with it.",
        fix="run on Linux or WSL, or install a torch release whose wheel for this platform has "
        "the transport; unset GLOO_DEVICE_TRANSPORT or set it to one the build has; on a single "
        "GPU, run without init_process_group (one process, no DDP).",
        fixtures=("gloo_error__applio_1019_windows_unsupported_gloo_device.log",),
    ),
)
