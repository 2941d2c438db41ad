"""The GPU and CUDA: out of memory, CUDA and driver errors, a CUDA setup that cannot run this
program (devices, architectures, libraries), two ranks on one GPU."""

from __future__ import annotations

from launchx.failure_rules.model import Case, Rule
from launchx.failure_rules.patterns import (
    CUDA_CONFIG_STATUSES,
    CUDA_KERNEL_FAULTS,
    DEEPEP_TIMEOUT,
    GOES_ON,
    WARNED_LINE,
    WENT_ON,
)

# the CUDA runtime's libraries, and the driver's libcuda, by the names the loader looks for
# (LX751)
_CUDA_LIBRARY = (
    r"lib(?:cudart|cublas(?:Lt)?|cudnn\w*|cufft|curand|cusparse(?:Lt)?|cusolver|nvrtc|nvJitLink"
    r"|cupti|nvToolsExt|cuda|nccl)\.so(?:\.[\d.]+)?"
)

RULES: tuple[Rule, ...] = (
    Rule(
        name="duplicate_gpu",
        category="duplicate_gpu",
        code="LX506",
        priority=92,
        patterns=(
            r"Duplicate GPU detected : rank \d+ and rank \d+ both on CUDA device",
            r"Multiple Ranks are using the same GPU/Partition",
        ),
        cause="two ranks use the same GPU: the script never selected its own device, or "
        "CUDA_VISIBLE_DEVICES gives every process the same single GPU.",
        fix="call torch.cuda.set_device(int(os.environ['LOCAL_RANK'])) before "
        "init_process_group and use that device, do not hard-code cuda:0, and do not "
        "restrict CUDA_VISIBLE_DEVICES to one GPU for a multi-process node.",
        fixtures=(
            "duplicate_gpu__horovod_3929_mpirun.log",
            "duplicate_gpu__mambair_39_dist_launch.log",
        ),
    ),
    Rule(
        name="nccl_nvml_not_loadable",
        category="cuda_config_error",
        code="LX704",
        # the root of the "unhandled system error" (55) that NCCL reports for it
        priority=58,
        retryable=False,
        # NCCL's loader of the driver's NVML library (misc/nvmlwrap.cc), as its WARN line or
        # as the "Last error:" of the ncclSystemError it returns
        patterns=(
            r"NCCL WARN Failed to open libnvidia-ml\.so\b",
            r"^Failed to open libnvidia-ml\.so\b",
        ),
        # (only when NCCL itself failed: other tools print the same words and carry on)
        requires=(r"unhandled system error|ncclSystemError|NCCL WARN Failed to open libnvidia",),
        cause="NCCL could not load the NVIDIA driver's NVML library (libnvidia-ml.so.1), which "
        "it needs to map the GPUs and their links: the process runs where the driver's user "
        "libraries are not visible (a container started without the NVIDIA runtime or its "
        "utility capability, a library path that leaves them out, a driver installed without "
        "them); every start fails the same way.",
        fix="run the container with the NVIDIA runtime (docker --gpus all, or "
        "NVIDIA_DRIVER_CAPABILITIES=compute,utility), check `ldconfig -p | grep "
        "libnvidia-ml` and that nvidia-smi works where the ranks run, and do not put a "
        "stub libnvidia-ml ahead of the driver's in LD_LIBRARY_PATH.",
        fixtures=("cuda_config_error__llamafactory_6161.log",),
    ),
    Rule(
        name="triton_no_libcuda",
        category="cuda_config_error",
        code="LX666",
        priority=84,
        retryable=False,
        patterns=(r"\bld: cannot find -lcuda\b",),
        cause="a kernel compiled at run time (Triton's, for torch.compile and the attention "
        "and MoE libraries built on it, or another JIT-built extension) is linked against the "
        "driver's libcuda.so, and the linker did not find it: Triton looks for it with "
        "`ldconfig -p` (or in TRITON_LIBCUDA_PATH), and -lcuda needs the unversioned name, so "
        "a machine or container where the driver's library is elsewhere or only present as "
        "libcuda.so.1 fails the same way at every start.",
        fix="find the library (`ldconfig -p | grep libcuda`, `find / -name 'libcuda.so*'`); "
        "set TRITON_LIBCUDA_PATH in the profile's env to a directory holding libcuda.so (if "
        "only libcuda.so.1 exists, a directory with a link libcuda.so -> libcuda.so.1); in a "
        "container run it with the NVIDIA runtime (--gpus all) so the driver's libraries "
        "are mounted.",
        fixtures=("cuda_config_error__skyreels_v1_54_triton_cannot_find_lcuda.log",),
    ),
    Rule(
        name="no_cuda_toolkit",
        category="cuda_config_error",
        code="LX747",
        # above the build that then fails (LX688) and the exception lines that carry it
        # (LX511): the missing toolkit is the cause
        priority=88,
        retryable=False,
        patterns=(
            # DeepSpeed's op builder (MissingCUDAException), which even the launcher can meet
            # when importing deepspeed.ops, before any rank starts: as the exception, or its
            # message alone on the line (a library that only warns and falls back quotes it
            # inside its own sentence)
            r"(?:MissingCUDAException|Error|Exception): CUDA_HOME does not exist, unable to "
            r"compile CUDA op\(s\)",
            r"^CUDA_HOME does not exist, unable to compile CUDA op\(s\)$",
            # torch.utils.cpp_extension's, for a project's own CUDA ops built at start-up
            # (transformers catches it for its optional kernels and logs it: not the cause)
            r"^(?:OSError|EnvironmentError): CUDA_HOME environment variable is not set\. "
            r"Please set it to your CUDA install root",
        ),
        cause="no CUDA toolkit was found to compile CUDA ops at start-up (DeepSpeed's op "
        "builder, or torch.utils.cpp_extension for a project's own kernels): CUDA_HOME is "
        "unset and no nvcc is on the PATH or in /usr/local/cuda. The GPU driver and torch's "
        "CUDA runtime do not include the compiler; every start fails the same way.",
        fix="install a CUDA toolkit whose version matches torch.version.cuda (a conda "
        "cuda-toolkit / cuda-nvcc package, or NVIDIA's installer) and point CUDA_HOME at it; "
        "or install DeepSpeed with its ops prebuilt (DS_BUILD_OPS=1) on a machine that has "
        "one.",
        fixtures=("cuda_config_error__minimind_48.log",),
    ),
    Rule(
        name="cuda_toolkit_unfit_for_build",
        category="cuda_config_error",
        code="LX750",
        # above the build that then fails (LX688) and the exception lines that carry it
        # (LX511), whose cause it names; below the GPU's memory (LX509) and the other causes
        # of a run that went on after a library's optional build failed and fell back
        priority=84,
        retryable=False,
        patterns=(
            # nvcc asked for a GPU generation newer than it knows (DeepSpeed's op builder and
            # torch.utils.cpp_extension pass the GPUs' own compute capability)
            r"nvcc fatal\s*: Unsupported gpu architecture 'compute_\d+[af]?'",
            # ... as older nvcc and ptxas say it
            r"\bValue 'sm_\d+[af]?' is not defined for option 'gpu-(?:architecture|name)'",
            # the link of an op against a CUDA library the toolkit on the path does not ship
            # (a runtime-only or partial CUDA, a conda toolkit without its -dev packages)
            r"\bld: cannot find -l(?:cudart(?:_static)?|curand|cublas(?:Lt)?|cusparse(?:Lt)?"
            r"|cusolver|cufft|nvrtc)\b",
            # a host compiler the headers refuse: older than the C++ standard torch's headers
            # are written in (their own guards, torch's and the standard library's), or newer
            # than this nvcc supports (its host_config.h)
            r"#error \"You're trying to build PyTorch with a too old version of GCC",
            r"#error This file requires compiler and library support for the ISO C\+\+ 2011 "
            r"standard",
            r"#error \"MPark\.Variant requires C\+\+11 support\.\"",
            r"#error -- unsupported GNU version!",
            # a toolkit of another CUDA major version than torch's (DeepSpeed's op builder
            # refuses it; newer DeepSpeed accepts a minor mismatch with a warning that does not
            # say "unable to"; torch.utils.cpp_extension's check says it as "mismatches", its
            # minor-version warning "has a minor version mismatch"; its message breaks the
            # line before "PyTorch (12.1)", under an empty "RuntimeError:", in older torch,
            # and runs "compilePyTorch" together inside a tuple's repr in newer)
            r"Installed CUDA version \S+ does not match the version torch was compiled with "
            r"\S+, unable to compile cuda/cpp extensions",
            r"The detected CUDA version \(\S+\) mismatches the version that was used to "
            r"compile",
        ),
        cause="the CUDA toolkit that builds an op at start-up (DeepSpeed's fused_adam or "
        "cpu_adam, a project's own CUDA kernels, through torch.utils.cpp_extension) does not "
        "fit this machine: its CUDA version is not torch's (another major, or a minor that "
        "DeepSpeed's check does not accept), its nvcc is older than the GPUs (compute_89 "
        "needs CUDA 11.8, "
        "compute_90 11.8, compute_100 12.8), it lacks the CUDA libraries the op links "
        "against, or the host compiler it calls (gcc) is one it or torch's headers refuse: "
        "older than their C++ standard (C++17 or newer: gcc 9 or later, as torch's own "
        "check says) or newer than this nvcc supports; every rank, and every rerun, builds "
        "it the same way.",
        fix="install a CUDA toolkit (nvcc and its -dev libraries) of the version torch was "
        "built with (python -c 'import torch; print(torch.version.cuda)') and point "
        "CUDA_HOME at it; TORCH_CUDA_ARCH_LIST limits the build to architectures that "
        "toolkit knows; a gcc in the supported range goes first on the PATH (or set CC and "
        "CXX, which torch passes to nvcc as -ccbin; NVCC_PREPEND_FLAGS='-ccbin ...' only "
        "where CC is unset, since nvcc refuses two); or install DeepSpeed with its ops "
        "prebuilt (DS_BUILD_OPS=1) where a fitting toolkit is present; then clear "
        "~/.cache/torch_extensions of the half-built copy.",
        fixtures=(
            "cuda_config_error__deepspeedexamples_103.log",
            "cuda_config_error__llamafactory_5020.log",
            "cuda_config_error__deepspeed_4576.log",
            "cuda_config_error__dolly_168.log",
        ),
    ),
    Rule(
        name="cuda_library_not_found",
        category="cuda_config_error",
        code="LX751",
        # above the exception line that carries it (LX511), and above a launcher's own
        # ImportError (LX590): a launcher that cannot load CUDA's libraries names them
        priority=85,
        retryable=False,
        patterns=(
            # the dynamic loader's words, through Python's ImportError (an extension linked
            # against it) or OSError (ctypes.CDLL, as projects load the runtime by name or by
            # path): the CUDA runtime or one of its libraries, or the driver's own libcuda
            rf"^(?:ImportError|OSError): (?:\S+: )?(?:\S*/)?{_CUDA_LIBRARY}: cannot open shared "
            r"object file",
            # cuDNN 8 loading one of its own sub-libraries (libcudnn_cnn_infer, _ops_train...)
            # when it first needs it, and what the loader said (after a progress bar's
            # carriage return, when it happens in the first step)
            r"\bCould not load library libcudnn\w*\.so(?:\.[\d.]+)?\. Error: \S+: cannot open "
            r"shared object file",
            # ... and cuDNN 9's, which lists the names it tried (CTranslate2, ONNX Runtime and
            # torch extensions built against another cuDNN than the one installed)
            r"\bUnable to load any of \{libcudnn\w*\.so",
            # the dynamic loader starting a program (nccl-tests, a compiled launcher or
            # trainer) linked against a CUDA library it cannot find
            rf"error while loading shared libraries: {_CUDA_LIBRARY}: cannot open shared object "
            r"file",
        ),
        # bitsandbytes logs its native library's load failure with the traceback and falls
        # back (cextension.py): the run goes on and may fail of something else
        not_after=(r"bitsandbytes library load error: ",),
        cause="a CUDA library this process loads at start-up was not found by the dynamic "
        "loader: the CUDA runtime (libcudart) or one of its libraries (cuBLAS, cuDNN, cuFFT, "
        "cuRAND, NVRTC, NCCL), or the driver's libcuda. A pip torch ships its own copies under "
        "site-packages/nvidia, which a project's extension or a ctypes.CDLL('libcudart.so') "
        "does not search; a container started without the NVIDIA runtime has no libcuda; an "
        "extension built against another CUDA major version asks for a soname (libcudart.so.11"
        ".0) that is not installed. Every rank and every rerun fails the same way.",
        fix="find the library (`ldconfig -p | grep <name>`, `find / -name '<name>*'`) and put "
        "its directory on LD_LIBRARY_PATH in the profile's env, or install the matching "
        "package (nvidia-cuda-runtime-cu12 and friends, or the CUDA toolkit of "
        "torch.version.cuda); an unversioned name (libcudart.so) is only in the toolkit's "
        "-dev files: link it to the versioned one; a missing libcuda.so.1: run the container "
        "with the NVIDIA runtime (--gpus all); a soname of another CUDA version: rebuild or "
        "reinstall the extension for this torch.",
        fixtures=(
            "cuda_config_error__cosmos_transfer25_151.log",
            "cuda_config_error__kohya_849_libcudnn_cnn_infer_libcuda_missing.log",
        ),
    ),
    Rule(
        name="cuda_library_versions_differ",
        category="cuda_config_error",
        code="LX818",
        # above the exception line that carries it (LX511)
        priority=85,
        retryable=False,
        patterns=(
            # torch.backends.cudnn's own check when it first uses cuDNN: the library the loader
            # found is older (or of another major version) than the one torch was built
            # against; "but linked against" before torch 1.13 or so, "but found runtime
            # version" after it (whose "compiled  against" has two spaces)
            r"cuDNN version incompatibility: PyTorch was compiled\s+against\b",
            # the dynamic loader's words when one CUDA library needs a symbol of the version
            # another CUDA library of its own release has, and the one it found is of another
            # release: cuBLAS against cuBLASLt, cuSPARSE against nvJitLink (torch 2.1-2.5 with
            # a system nvJitLink first on the path), cuDNN's sub-libraries against each other
            r"lib(?:cublas(?:Lt)?|cudnn\w*|cusparse(?:Lt)?|cufft|curand|cusolver\w*|nvrtc"
            r"|cudart)\.so(?:\.[\d.]+)?: (?:undefined symbol: |symbol )\S+?,? version "
            r"lib(?:cublas(?:Lt)?|cudnn\w*|nvJitLink|cudart|cusparse(?:Lt)?)\.so",
        ),
        cause="the process loaded CUDA libraries of different releases: a cuDNN, cuBLAS or "
        "nvJitLink of the system or of a CUDA toolkit (first on LD_LIBRARY_PATH, or loaded "
        "first by another library: TensorFlow, Paddle, an older extension) beside the ones "
        "a pip torch ships under site-packages/nvidia, or a conda cudatoolkit whose "
        "libraries do not match each other. torch refuses it at start, or the first "
        "convolution, GEMM or sparse call of every rank fails; the same on every rerun.",
        fix="let torch load the CUDA libraries it ships: take the toolkit's or the system's "
        "CUDA and cuDNN directories off LD_LIBRARY_PATH in the profile's env (or unset it), "
        "keep libraries that bring their own CUDA out of the training process, or install "
        "matching versions (one CUDA release for cudatoolkit, cudnn and torch; `python -c "
        "'import torch; print(torch.version.cuda, torch.backends.cudnn.version())'` in a "
        "clean environment shows what torch wants).",
        fixtures=(
            "cuda_config_error__sit_12_libcublas_free_gemm_select.log",
            "cuda_config_error__skypilot_1327_cublaslt_symbol_multinode.log",
            "cuda_config_error__style_bert_vits2_172_cudnn_cnn_train_symbol.log",
        ),
    ),
    Rule(
        name="bitsandbytes_cuda_setup_failed",
        category="cuda_config_error",
        code="LX764",
        # above the exception line that carries it (LX511)
        priority=84,
        retryable=False,
        patterns=(
            # bitsandbytes 0.37-0.41 (cextension.py) raises a RuntimeError whose message starts
            # on the line after "RuntimeError:"; its cuda_setup raises the shorter Exception.
            # The same words printed as a log entry (a bare "CUDA SETUP: Setup Failed!") or by
            # later releases as a warning ("despite CUDA being available"), where the import
            # goes on without the native library, are not read.
            r"^\s*CUDA Setup failed despite GPU being available\.",
            r"^Exception: CUDA SETUP: Setup Failed!$",
        ),
        cause="bitsandbytes (8-bit optimizers, 4- and 8-bit quantized models) could not load "
        "a native library for this machine's CUDA when it was imported: its CUDA setup found "
        "no libcudart it could use, detected a CUDA version it ships no binary for (an old "
        "release has none for CUDA 10.x or 12.x), or picked a binary whose CUDA libraries "
        "are not on the loader's path. Every rank imports it and fails the same way, on "
        "every rerun.",
        fix="run `python -m bitsandbytes` on a compute node to see what it detected; install "
        "a bitsandbytes release built for torch.version.cuda (a current one ships binaries "
        "for CUDA 11.8-12.x), or set BNB_CUDA_VERSION to the version whose binary it should "
        "load; put the CUDA runtime's directory (site-packages/nvidia/cuda_runtime/lib for a "
        "pip torch, /usr/local/cuda/lib64 otherwise) on LD_LIBRARY_PATH in the profile's "
        "env.",
        fixtures=(
            "cuda_config_error__belle_376_torchrun_bnb_cuda100.log",
            "cuda_config_error__bnb_555_accelerate_cuda_setup_failed.log",
        ),
    ),
    Rule(
        name="cuda_too_many_peers",
        category="cuda_config_error",
        code="LX650",
        priority=88,
        retryable=False,
        patterns=(
            # cudaErrorTooManyPeers (60 before CUDA 10.1, 711 since): THC's words, and the
            # runtime's own name for it
            r"peer mapping resources exhausted",
            r"cudaErrorTooManyPeers",
        ),
        cause="CUDA refused to enable peer-to-peer access between one more pair of GPUs: "
        "without NVSwitch a GPU supports at most eight peer connections system-wide, counted "
        "over every process on the node (fewer where the platform's hardware runs out "
        "sooner), and one process driving many GPUs (nn.DataParallel, a model split over "
        "devices) or NCCL's P2P transport asked for more; it fails the same way on every "
        "start with these GPUs.",
        fix="run one process per GPU (`launchx run` or torchrun with "
        "DistributedDataParallel, not nn.DataParallel over all the GPUs); NCCL_P2P_LEVEL=NVL "
        "(profile env) keeps NCCL's P2P to NVLink-connected pairs, NCCL_P2P_DISABLE=1 turns "
        "it off (at some speed).",
        fixtures=("cuda_config_error__pytorch_25019_peer_mapping_resources_exhausted.log",),
    ),
    Rule(
        name="gpu_driver_unusable",
        category="cuda_config_error",
        code="LX817",
        # above the exception line a script raises after it (LX511), below what the job
        # itself died of (a CUDA OOM, LX509 85; LX540 88, which also reads NVML's mismatch
        # as a library's nvmlInit reports it inside the job)
        priority=84,
        retryable=False,
        patterns=(
            # nvidia-smi, and NVML in any program, when the kernel module and the user-space
            # driver libraries differ (a driver upgraded without a reboot, a container's
            # libraries of another release), when a container lost its access to the device
            # nodes ("Unknown Error": cgroup devices after a systemd reload), or when the
            # process may not open them
            r"Failed to initialize NVML: (?:Driver/library version mismatch|Unknown Error"
            r"|Insufficient Permissions|GPU access blocked by the operating system)",
            # nvidia-smi's own words when no kernel module answers
            r"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
            # the CUDA runtime's initialisation failing with cudaErrorUnknown, raised by torch
            # (the same words as a UserWarning are torch going on without GPUs, not read):
            # in a container, most often the device nodes it was given are no longer usable
            r"^RuntimeError: CUDA unknown error - this may be due to an incorrectly set up "
            r"environment\b",
            # docker's --gpus with no NVIDIA container runtime registered for it
            r'could not select device driver "[^"]*" with capabilities: \[\[[^\]]*\bgpu\b',
            # ... or started with --runtime=nvidia where docker has no runtime of that name
            r"unknown or invalid runtime name: nvidia\b",
            # libnvidia-container (the NVIDIA Container Toolkit's prestart hook, whose error
            # docker and containerd print inside their own "OCI runtime create failed")
            r"nvidia-container-cli: (?:initialization|requirement|detection|device|mount|ldcache"
            r"|container|permission) error: ",
        ),
        # a monitoring library (wandb, a GPU metrics logger) or a prolog's nvidia-smi warning
        # that NVML did not start, while the job goes on
        exclude=(WARNED_LINE, r"\bWARN(?:ING)?\b|\bWarning:", *WENT_ON),
        cause="the GPU driver on this host cannot be used by the job: the NVIDIA kernel "
        "module and the driver's libraries are of different releases (a driver upgraded "
        "without a reboot, a container carrying libraries of another driver), no kernel "
        "module is loaded, a container lost its access to the GPU device nodes, or the "
        "container runtime that gives a container its GPUs is missing or refused (the image "
        "asks for a newer CUDA than the driver has). No rank can use a GPU on this node, and "
        "every start fails alike until the host is fixed.",
        fix="on the node, `nvidia-smi` must work outside any container: after a driver "
        "upgrade reboot (or reload the nvidia modules); a container must not bring its own "
        "driver libraries (let the NVIDIA Container Toolkit mount the host's: `docker run "
        "--gpus all`, after `nvidia-ctk runtime configure` and a restart of docker); 'Unknown "
        "Error' inside a container after a systemd reload: restart the container; 'requirement "
        "error: unsatisfied condition: cuda>=X': a driver that supports CUDA X, or an image "
        "built for the driver's CUDA (nvidia-smi shows it). Drain the node until it passes "
        "`launchx doctor`.",
        fixtures=(
            "cuda_config_error__lightning_10128_ci_container_nvml_mismatch.log",
            "cuda_config_error__mlcommons_training_278_nvidia_container_cli.log",
            "cuda_config_error__k8s_device_plugin_319_pod_cuda_unknown_error.log",
            "cuda_config_error__labs_molt_88_docker_unknown_runtime_nvidia.log",
        ),
    ),
    Rule(
        name="cuda_config",
        category="cuda_config_error",
        code="LX540",
        priority=88,
        patterns=(
            r"invalid device ordinal",
            # c10's own check of a device index against the GPUs this process's CUDA runtime
            # can open: NVML lists more (a second MIG instance in one process, a GPU that
            # failed), or CUDA_VISIBLE_DEVICES / a GPU binding is narrower than the ranks'
            # local indices (older torch prints the numbers as characters, so they may look
            # empty)
            r"device >= 0 && device < num_gpus INTERNAL ASSERT FAILED",
            # ... and torch.cuda's own check of an index past the visible GPUs, in releases
            # before 2.0 (get_device_properties: nn.DataParallel's device_ids asking for more
            # GPUs than the machine or CUDA_VISIBLE_DEVICES gives)
            r"^AssertionError: Invalid device id$",
            # (faiss prints the runtime's string after "CUDA error 209", which a paste may cut
            # short: the words before "for execution" already say it)
            r"no kernel image is available\b",
            # CUTLASS's device-side check in a kernel that uses an architecture-specific MMA
            # (sm_90a's WGMMA, sm_100a's): the binary was compiled without that target, so
            # every rank aborts in its first GEMM (torchao's float8 rowwise on B200); older
            # kernels (FlashAttention 3's) name sm90a in it
            r"Arch conditional MMA instruction used without targeting (?:appropriate|sm\d+a) "
            r"compute capability",
            r"CUDA-capable device\(s\) is/are busy or unavailable",
            r"all CUDA-capable devices are busy or unavailable",
            r"forward compatibility was attempted on non supported HW",
            r"system has unsupported display driver / cuda driver combination",
            r"CUDA driver is a stub library",
            r"device kernel image is invalid",
            r"PTX JIT compiler library not found",
            r"NVIDIA driver on your system is too old",
            r"nvmlInit\w*\(\) failed: Driver/library version mismatch",
            # vLLM's Ray executor: the placement group (the Ray cluster's GPUs) is smaller than
            # the tensor x pipeline parallel size asked for
            r"number of required GPUs exceeds the total number of available GPUs in the "
            r"placement group",
            # ... and its check that the placement group holds a GPU on the node the engine
            # (the driver) runs on: VLLM_HOST_IP naming another node, or a head without GPUs
            r"Ray does not allocate any GPUs on the driver node",
            # pynvml's exception for NVML_ERROR_INVALID_ARGUMENT, which nvmlDeviceGetHandleByIndex
            # returns for an index past the GPUs on the host (a rank per GPU asked for by local
            # rank, with more ranks started than there are GPUs)
            r"^(?:pynvml\.(?:nvml\.)?)?NVMLError_InvalidArgument\b",
            # ... and its check of the node a worker's bundle landed on (a Ray node started
            # without --num-gpus, or whose GPUs Ray did not detect)
            r"ValueError: Current node has no GPU available\. current_node_resource=",
            # vLLM's ParallelConfig check (a pod or a Ray node that sees fewer GPUs)
            r"Tensor parallel size \(\d+\) cannot be larger than the number of available GPUs",
            # SageMaker's model-parallel library (smp): more MPI processes on the node than
            # GPUs (its message runs the count into the next word)
            r"The number of node-local MPI processes \d+ ?cannot be larger than the device count",
            # the CUDA runtime's own names of these statuses, as a library reports them
            rf"\bcudaError(?:{CUDA_CONFIG_STATUSES})\b",
            r"ProcessGroupNCCL is only supported with GPUs, no GPUs found",
            r"Unable to proceed, no GPU resources available",
            r"CUDA driver version is insufficient for CUDA runtime version",
            r"Found no NVIDIA driver on your system",
            r"No CUDA GPUs are available",
            r"no CUDA-capable device is detected",
            # ROCm's wording of the same status (hipErrorNoDevice), through torch's HIP check
            r"no ROCm-capable device is detected",
            # Ascend's runtime: a device index outside the devices the process may see (the
            # counterpart of an invalid device ordinal under CUDA_VISIBLE_DEVICES)
            r"Set visible device failed, invalid device=\d+",
            # MuJoCo's EGL renderer (robot simulators inside RL workers) given a GPU index past
            # the GPUs its process sees: a worker's rank used as the device id under a
            # narrowed CUDA_VISIBLE_DEVICES, the same mistake as an invalid ordinal
            r"MUJOCO_EGL_DEVICE_ID environment variable must be an integer between \d+ and -?\d+ "
            r"\(inclusive\), got \d+",
            r"with CUDA capability sm_\d+ is not compatible with the current PyTorch",
            # torch.compile's inductor on a GPU its Triton cannot compile for (compute
            # capability below 7.0): GPUTooOldForTriton, a RuntimeError before torch 2.3
            r"which is too old to be supported by the triton GPU compiler",
            # NVRTC (the fusers' and extensions' runtime compilation) of a CUDA older than the
            # GPU, which does not know its architecture
            r"nvrtc: error: invalid value for --gpu-architecture",
            r"the provided PTX was compiled with an unsupported toolchain",
            # the runtime's and the driver API's words (torch's symmetric memory calls the
            # driver: "CUDA driver error: ...")
            r"CUDA (?:driver )?error: system not yet initialized",
            # ... as older torch (THC's "cuda runtime error (802) : ...") and other CUDA
            # programs (llama.cpp's "failed to initialize CUDA: ...") word the same status
            r"\bcuda runtime error \(802\) : system not yet initialized",
            r"\bfailed to initialize CUDA: system not yet initialized",
            # the same status (cudaErrorSystemNotReady, 802) as NCCL's "Last error:" words it
            r"Cuda failure (?:802 )?'system not yet initialized'",
            # (not the numbered "Cuda failure 3 'initialization error'" of newer NCCL, which
            # the corpus shows from its NVLS set-up at run time: LX512)
            r"Cuda failure 'initialization error'",
            r"Torch not compiled with CUDA enabled",
            # the same CPU-only build reached through torch.cuda.set_device, which calls the
            # C binding without the lazy init's check (an AttributeError, not the assertion)
            r"module 'torch\._C' has no attribute '_cuda_\w+'",
            # Horovod built without GPU operations (HAVE_GPU unset: HOROVOD_GPU_OPERATIONS not in
            # effect at build time, a cached CPU build, or torch's CUDA not detected by its
            # setup) asked to reduce a GPU tensor
            r"Requested ReadyEvent with GPU device but not compiled with CUDA",
            r"CUDA driver initialization failed",
            r"Unexpected error from cudaGetDeviceCount\(\)",
            # torchrun --nproc-per-node gpu (or xpu) on a host where torch sees none
            r"ValueError: (?:Cuda|Xpu) is not available\.",
            # newer torch's own checks of a local rank past the GPUs a process may use:
            # torchrun's agent against CUDA_VISIBLE_DEVICES when it gives each rank one GPU
            # as its device 0 (--virtual-local-rank: local_elastic_agent.py), and
            # init_process_group's device_id against the accelerators it sees
            # (distributed_c10d.py)
            r"\blocal_rank \d+ exceeds available GPUs in CUDA_VISIBLE_DEVICES=",
            r"\bdevice_id \S+ is out of range\. Please use a device index less than the number "
            r"of accelerators available",
            # Lightning's device check: more GPUs asked for than the process can see
            r"You requested (?i:gpus?): \[[\d, ]*\]",
            # the same check in Lightning 1.x, its message on the lines under the exception
            r"MisconfigurationException: ?\s*You requested (?i:gpus?): \[",
            # Lightning's accelerator="gpu" with neither CUDA nor MPS visible (also as the repr
            # Hydra prints under "Error in call to target")
            r"No supported gpu backend found!",
            # accelerate's check of mixed_precision="fp16" when torch sees no CUDA device (a
            # CPU-only wheel, no driver, an empty CUDA_VISIBLE_DEVICES), as releases before
            # 0.27 word it (later ones name a device they do not support: "(not 'mps')")
            r"\bfp16 mixed precision requires a GPU\s*$",
            # the HF Trainer's TrainingArguments check of --fp16/--bf16 when the device it
            # picked is not a GPU (4.x: "... can only be used on CUDA devices", later "... on
            # CUDA or MLU devices or NPU devices ...")
            r"\bMixed precision training with AMP or APEX \(`--fp16`.{0,120}? can only be used "
            r"on CUDA\b",
            # vLLM's DeviceConfig in a process (a Ray actor given no GPU) that sees none, and
            # its wording since about 0.6
            r"No supported device detected\.",
            r"RuntimeError: Failed to infer device type\b",
            # YOLOv5/v7-style training scripts check their local rank against the GPUs they
            # see: the assertion's message, or its source line in a bare AssertionError's frame
            r"insufficient CUDA devices for DDP command",
            r"assert torch\.cuda\.device_count\(\) > \w*\.?(?i:local_rank)\b",
            # the same check of the world against the GPUs (text-generation-inference's
            # shards: "Each process is one gpu")
            r"assert torch\.cuda\.device_count\(\) >= \w*\.?(?i:world_size)\b",
            r"assert \w*\.?(?i:world_size) <= torch\.cuda\.device_count\(\)",
            # ... and YOLOX's (ByteTrack's) check of its -d count before it starts the ranks
            r"assert \w*\.?num_gpus? <= (?:torch\.cuda\.device_count|get_num_devices)\(\)",
            # ... and the launcher of text-generation-inference (and its fork LoRAX) before
            # any shard starts: --sharded true with fewer than two GPUs visible
            r"NotEnoughCUDADevices\(",
            # cuBLAS/cuDNN: the GPU lacks a feature the call needs (bf16, fp8, TF32 on old GPUs)
            r"CUBLAS_STATUS_ARCH_MISMATCH|CUDNN_STATUS_ARCH_MISMATCH",
            # ... and FlashAttention's check of the GPU before its kernels (V100 and T4 are
            # older than Ampere; flash-attn 1.x asked for Turing): the model asks for an
            # attention implementation this GPU cannot run (attn_implementation="sdpa" or
            # "eager" runs there)
            r"FlashAttention only supports (?:Ampere|Turing) GPUs or newer",
            # Triton (torch.compile's kernels, vLLM's and SGLang's) in a process that sees no
            # GPU driver: a CPU-only Ray actor or container, an empty CUDA_VISIBLE_DEVICES
            r"\b0 active drivers \(\[\]\)\. There should only be one",
            # cudaErrorNotSupported: a feature the driver, GPU or platform lacks (multicast
            # objects before driver 530, IPC or memory pools under WSL)
            r"CUDA [Ee]rror: operation not supported",
            r"Cuda failure (?:\d+ )?'operation not supported'",
            # TransformerEngine's own check before it asks for multicast objects (userbuffers'
            # comm+GEMM overlap)
            r"does not support comm\+GEMM overlap with CUDA Multicast",
            # Hugging Face TrainingArguments' check of --bf16: no bf16 before Ampere (V100, T4)
            r"Your setup doesn't support bf16/gpu\b",
            # ROCm: no kernels for this GPU's gfx architecture in the build, or no GPU; CUDA's
            # same status (cudaErrorInvalidDeviceFunction, 98): a kernel not compiled for this
            # GPU (an extension built for another architecture)
            r"(?:HIP|CUDA) error: invalid device function",
            # a compiled op's own check, which prints the runtime's string after its name
            r"^error in \w+: invalid device function\b",
            # NCCL's and RCCL's check macros: "Cuda failure 98 '...'", "HIP failure: '...'"
            r"(?:Cuda|HIP) failure:? (?:\d+ )?'(?:invalid device function"
            r"|no ROCm-capable device is detected)'",
            r"hipErrorNoBinaryForGpu",
            r"No HIP GPUs are available",
            # TensorFlow's placer (torch_xla's XRT runtime runs on it): an op pinned to a
            # device index this process cannot see, the XLA counterpart of an invalid ordinal
            r"Cannot assign a device for operation \S+: (?:\{\{node \S+\}\} |Operation )?was "
            r"explicitly\b",
        ),
        # c10's warnings from a destructor (destroyEvent) after a kernel fault: the device
        # is unusable because of that fault, which LX631/LX512 read
        exclude=(r"Warning: CUDA warning: ",),
        cause="CUDA cannot run this job on this machine as configured (more ranks than "
        "visible GPUs, no usable GPU, a build without this GPU's architecture, a driver that "
        "does not fit the CUDA runtime, a GPU feature or mode the job needs, an NVSwitch "
        "fabric manager not running): not the training code, and not transient.",
        fix="compare what the ranks see with what they ask for: `nvidia-smi -L`, `echo "
        "$CUDA_VISIBLE_DEVICES`, `python -c 'import torch; print(torch.version.cuda, "
        "torch.cuda.is_available(), torch.cuda.device_count(), torch.cuda.get_arch_list())'` "
        "in the environment the ranks run in; then match the launch, the wheel or the driver "
        "to it.",
        # the rule's situations, each worded on its own (the first a matched line names)
        cases=(
            Case(
                when=(
                    r"(?i)no kernel image|kernel image is invalid|NoKernelImage|InvalidKernelImage",
                    r"Arch conditional MMA|is not compatible with the current PyTorch",
                    r"invalid device function|InvalidDeviceFunction|hipErrorNoBinaryForGpu",
                    r"--gpu-architecture|PTX was compiled with an unsupported toolchain",
                    r"UnsupportedPtxVersion",
                ),
                cause="the installed torch (or a compiled extension) has no code for this "
                "GPU's architecture: a wheel built before the GPU existed, or an extension "
                "built for another GPU or with an older CUDA; every start fails the same way.",
                fix="compare `torch.cuda.get_device_capability()` with "
                "`torch.cuda.get_arch_list()` and install a torch wheel built for it (a newer "
                "CUDA build); rebuild an extension with TORCH_CUDA_ARCH_LIST set to this GPU's "
                "capability (`pip install --no-build-isolation --force-reinstall ...`). ROCm: a "
                "wheel for this gfx architecture (rocminfo), or HSA_OVERRIDE_GFX_VERSION for a "
                "GPU close to a supported one.",
            ),
            Case(
                when=(
                    r"too old to be supported by the triton",
                    r"support bf16/gpu|ARCH_MISMATCH|FlashAttention only supports",
                ),
                cause="the GPU lacks a feature the job asks for: bf16 or FlashAttention (before "
                "Ampere: V100, T4), a cuBLAS/cuDNN kernel of a newer architecture, or "
                "torch.compile's Triton kernels (compute capability below 7.0: P100, K80).",
                fix="check that the ranks see a GPU at all (`python -c 'import torch; "
                "print(torch.cuda.is_available(), torch.cuda.get_device_capability())'`); "
                "train in fp16 instead of bf16 on GPUs before Ampere (--fp16, "
                "mixed_precision: fp16) and load the model without FlashAttention "
                '(attn_implementation="sdpa"); for Triton compile without inductor '
                '(TORCH_COMPILE_DISABLE=1, or torch.compile(backend="aot_eager")), or use '
                "a newer GPU.",
            ),
            Case(
                when=(
                    r"(?i)driver version is insufficient|InsufficientDriver|too old"
                    r"|requires ?a? ?newer driver|CallRequiresNewerDriver",
                    r"forward compatibility|CompatNotSupportedOnDevice",
                    r"unsupported display driver|SystemDriverMismatch",
                    r"Driver/library version mismatch",
                    r"(?i)stub library|StubLibrary|PTX JIT compiler library not found"
                    r"|JitCompilerNotFound",
                ),
                cause="the NVIDIA driver does not fit the CUDA runtime this torch was built "
                "with: a driver older than the wheel's CUDA, a driver upgraded without a "
                "reboot (the kernel module and the library differ), or a container's CUDA "
                "compat or stub library loaded in place of the host's driver.",
                fix="compare the CUDA version `nvidia-smi` shows with `python -c 'import torch; "
                "print(torch.version.cuda)'` and install a torch wheel for a CUDA the driver "
                "supports, or upgrade the driver; after a driver upgrade reboot (or reload the "
                "nvidia kernel modules); in a container start it with the NVIDIA runtime "
                "(--gpus all) and keep the compat/stub libraries off LD_LIBRARY_PATH.",
            ),
            Case(
                when=(r"system not yet initialized|SystemNotReady",),
                cause="the GPUs are not ready for CUDA: on an NVSwitch machine (HGX/DGX "
                "A100, H100, H200, B200) the fabric manager is not running or not of the "
                "driver's version; no process on the node can use the GPUs until it is.",
                fix="start it (`systemctl start nvidia-fabricmanager`) at the driver's exact "
                "version (`nvidia-smi` against `nv-fabricmanager --version`); B200 and later "
                "systems also need the NVLink subnet manager (nvlsm); `nvidia-smi -q | grep "
                "-iA2 fabric` shows the state.",
            ),
            Case(
                when=(r"(?i)busy or unavailable|DevicesUnavailable",),
                cause="the GPU refused another process: it is in exclusive-process compute "
                "mode and a process (another job, a leftover rank, or a second rank given the "
                "same GPU) already holds it.",
                fix="`nvidia-smi --query-gpu=index,compute_mode --format=csv` and the process "
                "list of `nvidia-smi`; set the mode to Default (`nvidia-smi -c 0`, as root) or "
                "run one process per GPU, and stop the leftover process.",
            ),
            Case(
                when=(r"\binit\.cc:\d+ NCCL WARN Cuda failure (?:\d+ )?'operation not supported'",),
                cause="NCCL's communicator set-up asked the driver for something it does not "
                "give: NCCL 2.26 and later create a CUDA memory pool at init (cudaMemPoolCreate), "
                "which a vGPU without unified memory (UVM), WSL or an old driver refuses; "
                "every start fails the same way.",
                fix="upgrade the NVIDIA driver; on a vGPU (VMware, other hypervisors) enable "
                "unified memory for the VM; or use a torch build (or an nvidia-nccl-cu12 pin) "
                "with an NCCL before 2.26. NCCL_DEBUG=INFO shows the NCCL version in use.",
            ),
            Case(
                when=(r"(?i)operation not supported|NotSupported\b|comm\+GEMM overlap",),
                cause="the driver, GPU or platform lacks a feature the job uses: multicast "
                "objects (NVLS, TransformerEngine's comm+GEMM overlap: drivers before 530, "
                "machines without NVSwitch), CUDA IPC or memory pools (WSL, some VMs).",
                fix="turn the feature off: TransformerEngine's overlap with UB_SKIPMC=1 (CUDA "
                "IPC instead), NCCL's NVLS with NCCL_NVLS_ENABLE=0; or upgrade the driver; "
                "under WSL run on Linux for multi-GPU.",
            ),
            Case(
                when=(r"Requested ReadyEvent with GPU device but not compiled with CUDA",),
                cause="Horovod was built without GPU operations (HOROVOD_GPU_OPERATIONS not "
                "set at build time, a cached CPU build, or torch's CUDA not found by its "
                "setup) and was asked to reduce a GPU tensor.",
                fix="`horovodrun --check-build`, then reinstall it with "
                "`HOROVOD_GPU_OPERATIONS=NCCL pip install --no-cache-dir --force-reinstall "
                "horovod[pytorch]`, a release that supports this torch.",
            ),
            Case(
                when=(r"placement group|Ray does not allocate any GPUs|Current node has no GPU",),
                cause="the Ray cluster gives vLLM fewer GPUs than tensor x pipeline parallel "
                "asks for, or none on the node the engine (the driver) runs on.",
                fix="add GPU nodes to the Ray cluster (`ray status`) or lower tensor x "
                "pipeline parallel; start the engine on a GPU node of the cluster, with "
                "VLLM_HOST_IP set to that node's address as Ray knows it.",
            ),
            Case(
                when=(r"(?i)no (?:ROCm|HIP)[- ]\w* ?(?:GPUs|device)",),
                cause="the ranks see no usable AMD GPU: a torch wheel without ROCm, the amdgpu "
                "driver not loaded, a user or container without access to /dev/kfd and "
                "/dev/dri, or an empty HIP_VISIBLE_DEVICES (ROCR_VISIBLE_DEVICES); every "
                "start fails the same way.",
                fix="in the environment the ranks run in: `python -c 'import torch; "
                "print(torch.version.hip, torch.cuda.is_available())'` (None: not a ROCm "
                "wheel), `rocm-smi` (fails: no driver), `ls -l /dev/kfd` and `id` (the user in "
                "the render and video groups; a container started with --device=/dev/kfd "
                "--device=/dev/dri), `echo $HIP_VISIBLE_DEVICES $ROCR_VISIBLE_DEVICES`.",
            ),
            Case(
                when=(
                    r"(?i)not compiled with CUDA|has no attribute '_cuda_",
                    r"(?i)no CUDA[- ]\w* ?(?:GPUs|device)|NoDevice\b",
                    r"(?i)no NVIDIA driver|only supported with GPUs|no GPU resources",
                    r"CUDA driver initialization failed|error from cudaGetDeviceCount",
                    r"(?:Cuda|Xpu) is not available|No supported (?:gpu backend|device)",
                    r"(?:fp16|bf16) mixed precision requires|can only be used on CUDA",
                    r"Failed to infer device type|0 active drivers",
                ),
                cause="the ranks see no usable GPU: a CPU-only torch wheel, no NVIDIA driver "
                "(or a container started without the GPUs), or an empty "
                "CUDA_VISIBLE_DEVICES; every start fails the same way.",
                fix="in the environment the ranks run in: `python -c 'import torch; "
                "print(torch.version.cuda, torch.cuda.is_available())'` (None: a CPU-only "
                "wheel; install the CUDA build, `pip install torch --index-url "
                "https://download.pytorch.org/whl/cu126`), `nvidia-smi` (fails: no driver, "
                "or a container without --gpus all), `echo $CUDA_VISIBLE_DEVICES`; to train on "
                "the CPU, keep the script off torch.cuda and use the gloo backend (launchx: "
                "--profile local).",
            ),
            Case(
                when=(
                    r"(?i)invalid device (?:ordinal|id)|InvalidDevice\b|device < num_gpus",
                    r"NVMLError_InvalidArgument|node-local MPI processes|exceeds available GPUs",
                    r"is out of range\. Please use a device index|You requested (?i:gpus?)",
                    r"insufficient CUDA devices|device_count\(\)|get_num_devices|num_gpus?\b",
                    r"NotEnoughCUDADevices|Set visible device failed|MUJOCO_EGL_DEVICE_ID",
                    r"Cannot assign a device for operation",
                    # vLLM's own check, with or without Ray
                    r"Tensor parallel size \(\d+\) cannot be larger",
                ),
                cause="the ranks ask for more GPUs (or a higher device index) than this "
                "process can see: --nproc-per-node above the GPUs visible, RANK used as the "
                "device index on a second node, a narrowed CUDA_VISIBLE_DEVICES, a MIG "
                "instance or a GPU that dropped off the bus.",
                fix="set --nproc-per-node to the GPUs visible (`nvidia-smi -L`, `echo "
                "$CUDA_VISIBLE_DEVICES`) and index devices by LOCAL_RANK, not RANK; with MIG "
                "give each process one instance (CUDA_VISIBLE_DEVICES=MIG-<uuid>); a GPU "
                "missing from nvidia-smi: `dmesg | grep -i xid` and drain the node. SageMaker's "
                "model parallel: processes_per_host; Ascend: an index among "
                "ASCEND_RT_VISIBLE_DEVICES; MuJoCo's EGL device: count from 0 among the GPUs "
                "the worker sees.",
            ),
        ),
        fixtures=(
            "cuda_config_error__gtad_36_dataparallel_invalid_device_id.log",
            "cuda_config_error__sagemaker_examples_2023.log",
            "cuda_config_error__torchao_2904_float8_rowwise_b200_arch_mma.log",
            "cuda_config_error__rlinf_953.log",
            "cuda_config_error__kohya_ss_719.log",
            "cuda_config_error__shivamshrirao_diffusers_97.log",
            "cuda_config_error__llama_946_garbled.log",
            "cuda_config_error__ms_swift_5118_exclusive_process.log",
            "cuda_config_error__nccl_1029_deepspeed_workers_no_cuda_env.log",
            "cuda_config_error__lightning_16828_slurm_gpus_per_task.log",
            "cuda_config_error__transformerengine_991_ub_multicast_not_supported.log",
            "cuda_config_error__yolov7_1463_nproc_exceeds_visible_gpus.log",
            "cuda_config_error__llamafactory_8968_b200_cuda_802_fabricmanager.log",
            "cuda_config_error__tgi_425_each_process_is_one_gpu.log",
            "cuda_config_error__mace_1197_h200_mig_num_gpus_assert.log",
            "cuda_config_error__mace_1504_torchrun_deferred_cuda_init.log",
            "cuda_config_error__vita_42.log",
            "cuda_config_error__chitu_118.log",
            "cuda_config_error__gpustack_3352.log",
            "cuda_config_error__lorax_150_sharded_only_one_cuda_device.log",
            "cuda_config_error__ray_39128_neuron_core_not_visible.log",
            "cuda_config_error__horovod_2478_not_compiled_with_cuda.log",
            "cuda_config_error__vllm_omni_241_symm_mem_system_not_initialized.log",
            "cuda_config_error__transformerengine_1923.log",
            "cuda_config_error__fastchat_399.log",
            "cuda_config_error__mattergen_217.log",
            "cuda_config_error__openrlhf_233.log",
            "cuda_config_error__dynamo_4934.log",
            "cuda_config_error__vllm_29265.log",
            "cuda_config_error__llama3_187_macos_m2_cuda_setdevice.log",
            "cuda_config_error__x_r1_45_flash_attn_v100_ampere_only.log",
            "cuda_config_error__verl_2944_sglang_async_zero_active_drivers.log",
        ),
    ),
    Rule(
        name="tpu_device_unavailable",
        category="cuda_config_error",
        code="LX709",
        priority=88,
        retryable=False,
        patterns=(
            # libtpu (torch_xla's PJRT runtime) could not open a TPU chip's device file
            r"TPU initialization failed: open\(/dev/(?:accel|vfio/)\d+\): ",
            # the older XRT runtime's words, inside its failed check (the line's "Exception in
            # device=TPU:N" or "Check failed" keeps it; alone it holds no anchor)
            r"Couldn't open device: /dev/(?:accel|vfio/)\d+",
        ),
        cause="torch_xla's runtime could not open the TPU chips (/dev/accel*, /dev/vfio/* "
        "on newer VMs): another process holds them (an earlier run or notebook kernel still "
        "alive: a TPU is opened by one process at a time) or this user may not open them; no "
        "rank can start until the chips are free.",
        fix="find the holder (`sudo lsof -w /dev/accel*` or `/dev/vfio/*`) and stop it, or "
        "wait for it to end; run as a user with access to the device files; then start "
        "again.",
        fixtures=(
            "cuda_config_error__accelerate_2999.log",
            "cuda_config_error__torch_xla_3947_tpu_accel0_not_permitted.log",
        ),
    ),
    Rule(
        name="no_gpu_to_divide_by",
        category="cuda_config_error",
        code="LX699",
        # above the script's own exception (LX511): the division is by the GPU count
        priority=88,
        retryable=False,
        patterns=(r"^ZeroDivisionError: integer (?:division or )?modulo by zero",),
        # the frame's source line: a rank taken modulo the GPUs torch sees (mmcv's and
        # many research codebases' init_dist: torch.cuda.set_device(rank % num_gpus),
        # local_rank = rank % torch.cuda.device_count(), gpu = args.rank % args.n_gpu)
        context=(
            r"set_device\([^)]*%",
            r"%\s*(?:torch\.cuda\.device_count\(\)|[\w.]*\b(?:num_gpus|n_?gpus?|gpu_count"
            r"|device_count|ngpus_per_node)\b)",
        ),
        cause="the process sees no GPU: torch.cuda.device_count() is 0, so picking the rank's "
        "GPU as rank % num_gpus divided by zero (a CPU-only torch, CUDA_VISIBLE_DEVICES empty "
        "or wrong, a driver torch cannot use, a container or WSL without the GPUs); every "
        "rank fails the same way.",
        fix="check `python -c 'import torch; print(torch.cuda.device_count())'` in the "
        "environment the launcher starts (the same venv, CUDA_VISIBLE_DEVICES, container): "
        "install a CUDA build of torch that matches the driver, or expose the GPUs; "
        "`launchx doctor` shows the GPUs each node sees.",
        fixtures=(
            "cuda_config_error__dsl_25.log",
            "cuda_config_error__setr_50.log",
            "cuda_config_error__bpr_12.log",
        ),
    ),
    Rule(
        name="cuda_oom",
        category="cuda_oom",
        code="LX509",
        priority=85,
        patterns=(
            r"CUDA out of memory",
            r"OutOfMemoryError: CUDA",
            # DataParallel re-raising a replica's OOM in the caller (the original message is in
            # the traceback under it), and the cudaMallocAsync allocator's own out-of-memory
            # message (PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync: the device's memory,
            # or a memory fraction the script set, used up)
            r"OutOfMemoryError: Caught OutOfMemoryError in replica \d+ on device \d+",
            r"^Caught OutOfMemoryError in replica \d+ on device \d+",
            r"OutOfMemoryError: Allocation on device \d+ would exceed allowed memory",
            r"CUBLAS_STATUS_ALLOC_FAILED",
            r"Cuda failure (?:\d+ )?'out of memory'",
            # vLLM's custom all-reduce's own CUDA check (LX706 leaves this status here)
            r"\bFailed: (?:Cuda error )?\S*custom_all_reduce\.cuh:\d+ 'out of memory'",
            # ... and the same check in DeepEP's and the other kernels' C++ (LX735's form)
            r"\bFailed: C(?:UDA|uda) error \S+:\d+ 'out of memory'",
            r"CUDA error: out of memory",
            # Thrust's system_error (torch's older sorting and unique kernels, extensions built
            # on it): the CUDA status's own text after the step that got it
            r"(?:after cudaLaunch in triple_chevron_launcher::launch\(\)|parallel_for failed): "
            r"out of memory",
            # the runtime's own name for that status, as RAPIDS' RMM and cupy report it (RMM
            # wraps it in a MemoryError: std::bad_alloc that is not the host's memory)
            r"\bcudaErrorMemoryAllocation\b",
            # THC before torch 1.8
            r"cuda runtime error \(2\) ?: out of memory",
            r"THCudaCheck FAIL .*error=2 : out of memory",
            r"CUDA driver error: out of memory",
            r"CUDNN_STATUS_ALLOC_FAILED",
            r"HIP out of memory|OutOfMemoryError: HIP|HIP error: out of memory|hipErrorOutOfMemory",
            r"HIP failure: 'out of memory'",
            # ROCr's queue callback when it cannot allocate a dispatch's scratch memory on the
            # device (the status on the abort's line, or alone on the next one)
            r"(?:^\s*|[Aa]borting with error : )HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime "
            r"failed to allocate",
            # Intel GPUs: torch's XPU allocator, and Level Zero's status as oneCCL reports it
            r"XPU out of memory|(?:ZE|UR)_RESULT_ERROR_OUT_OF_DEVICE_MEMORY",
            # Ascend NPUs: torch_npu's caching allocator, worded like CUDA's
            r"NPU out of memory\. Tried to allocate",
            # CANN's own report when the runtime's allocation fails (EL0004), and the driver's
            # reason under it
            r"^EL0004: .*Failed to allocate memory|\(EL0004\): Failed to allocate memory",
            r"reason=\[driver error: ?out of memory\]",
            # Intel Gaudi (HPU): the device-memory allocator's fatal error
            r"MODULE:PT_DEVMEM Allocation failed",
            # NVSHMEM (DeepEP, Triton-distributed) reserving its symmetric heap: CUresult 2
            # is CUDA_ERROR_OUT_OF_MEMORY
            r"non-zero status: 2 cuMemCreate failed",
            # torch_memory_saver (slime's and verl's offload of weights and KV cache) when the
            # driver's cuMemCreate returns CUDA_ERROR_OUT_OF_MEMORY, or the runtime's status 2
            # when it resumes a paused region
            r"(?:CUresult|cudaError) error: 2 \(out of memory\)",
            # nvJPEG (DALI's GPU image decoder) when its device allocator fails
            r"\bNVJPEG_STATUS_ALLOCATOR_FAILURE\b",
            # XLA on a TPU: XRT's allocator ("Attempting to reserve 10.51G at the bottom of
            # memory. That was not possible.") and the compiler's HBM budget (PJRT)
            r"(?:RESOURCE_EXHAUSTED|Resource exhausted): (?:E\d+: \w+:\s*)?(?:Error allocating "
            r"device buffer: )?Attempting to (?:reserve|allocate) \S+(?: at the bottom of "
            r"memory)?\. That was not possible",
            r"Ran out of memory in memory space hbm\b",
            # ... and XLA's allocator on a GPU or TPU, as JAX and torch_xla raise it
            r"RESOURCE_EXHAUSTED: Out of memory while trying to allocate \S+",
            # Triton loading a kernel's binary (an autotuning run, a fused kernel) into a GPU
            # with no memory left
            r"Triton Error \[CUDA\]: out of memory",
            # vLLM's sleep-mode allocator (cumem_allocator.cpp: its CUDA_CHECK of the driver's
            # cuMemCreate), when a colocated trainer wakes the engine into a full GPU
            r"C(?:UDA|uda) [Ee]rror: out of memory at \S*cumem_allocator\.cpp: ?\d+",
        ),
        # pinned host memory (cudaHostAlloc) is the host's, and TensorRT's autotuner skipping
        # a tactic for want of memory goes on with another
        exclude=(r"\bcudaHostAlloc\b|\bcudaMallocHost\b|Skipping tactic",),
        cause="an accelerator (a GPU, or a TPU's HBM) ran out of memory; the same attempt would "
        "fail the same way.",
        fix="lower the per-GPU batch size or sequence length, enable activation checkpointing "
        "or sharding (FSDP/ZeRO), and set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
        "when 'reserved but unallocated' is large; check that no other process holds the "
        "GPU (nvidia-smi).",
        # the accelerators and allocators whose knobs differ from CUDA's caching allocator
        cases=(
            Case(
                when=(r"NPU out of memory|EL0004|reason=\[driver error: ?out of memory\]",),
                cause="an Ascend NPU ran out of memory; the same attempt would fail the same way.",
                fix="lower the per-NPU batch size or sequence length, enable activation "
                "checkpointing or sharding (FSDP/ZeRO), set "
                "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True, and check with npu-smi that "
                "no other process holds the NPU.",
            ),
            Case(
                when=(r"XPU out of memory|OUT_OF_DEVICE_MEMORY",),
                cause="an Intel GPU (XPU) ran out of memory; the same attempt would fail the "
                "same way.",
                fix="lower the per-device batch size or sequence length, enable activation "
                "checkpointing or sharding (FSDP/ZeRO), and check with xpu-smi that no other "
                "process holds the device.",
            ),
            Case(
                when=(r"PT_DEVMEM",),
                cause="an Intel Gaudi (HPU) ran out of device memory; the same attempt would "
                "fail the same way.",
                fix="lower the per-device batch size or sequence length, enable activation "
                "checkpointing or sharding (DeepSpeed ZeRO), and check with hl-smi that no "
                "other process holds the device.",
            ),
            Case(
                when=(r"(?i)\bHIP\b|hipError|HSA_STATUS",),
                cause="an AMD GPU (ROCm) ran out of memory; the same attempt would fail the "
                "same way.",
                fix="lower the per-GPU batch size or sequence length, enable activation "
                "checkpointing or sharding (FSDP/ZeRO), and check with rocm-smi that no other "
                "process holds the GPU (PYTORCH_HIP_ALLOC_CONF=expandable_segments:True helps "
                "where the build supports it; older ones say it is not supported).",
            ),
            Case(
                when=(r"(?i)RESOURCE_EXHAUSTED|Resource exhausted|memory space hbm",),
                cause="XLA's allocator ran out of the accelerator's memory (a TPU's HBM, or a "
                "GPU under XLA); the same program would fail the same way.",
                fix="lower the per-core batch size or sequence length, shard the model "
                "(FSDP/SPMD in torch_xla), or enable activation checkpointing; the compiler's "
                "report names the largest buffers.",
            ),
            Case(
                when=(r"cuMemCreate failed",),
                cause="NVSHMEM (DeepEP, Triton-distributed) could not reserve its symmetric "
                "heap in GPU memory: the GPU has less free memory than the heap asks for.",
                fix="size the heap to fit: NVSHMEM_SYMMETRIC_SIZE (DeepEP: its buffer's "
                "num_rdma_bytes; num_nvl_bytes is a separate allocation that takes device "
                "memory too), or free GPU memory before the buffer is created.",
            ),
        ),
        fixtures=(
            "cuda_oom__minerva_42_html_table.log",
            "cuda_oom__slime_274.log",
            "cuda_oom__rocm_clr_281.log",
            "cuda_oom__merlin_models_964.log",
            "cuda_oom__pytorch_18853.log",
            "cuda_oom__torch_ccl_65_xpu_reduce_scatter_device_oom.log",
            "cuda_oom__vllm_ascend_1127_ray_npu_oom_deepseek_2x8.log",
            "cuda_oom__optimum_habana_2214_gpt_oss_ep_pt_devmem_alloc.log",
            "cuda_oom__deepep_157_nvshmem_cumemcreate_failed.log",
            "cuda_oom__dali_2866_multi_gpu_nvjpeg_allocator_failure.log",
            "cuda_oom__llamafactory_5322.log",
            "cuda_oom__transformers_22328.log",
            "cuda_oom__xla_2569.log",
            "cuda_oom__lmmr1_42_vllm_cumem_allocator.log",
            "cuda_oom__torch_memory_saver_99_resume_kv_cache_oom.log",
            "cuda_oom__pytorch_examples_343_dataparallel_weak_gpu.log",
        ),
    ),
    Rule(
        name="ray_task_oom",
        category="cuda_oom",
        code="LX601",
        # below Ray's memory monitor (LX510, 84): its own ray.exceptions.OutOfMemoryError has
        # the same class name and reaches the driver wrapped the same way, with the monitor's
        # message beside it
        priority=83,
        patterns=(r"RayTaskError\((?:torch\.)?(?:cuda\.)?OutOfMemoryError\)",),
        cause="a Ray task or actor method raised OutOfMemoryError: torch's, a GPU that ran out "
        "of memory (Ray's own memory monitor, which kills tasks for the host's RAM, says so "
        "in its message, and that is not in this log); the same attempt fails the same way.",
        fix="lower the per-GPU batch size or sequence length of that worker, enable activation "
        "checkpointing or sharding, lower the memory given to a colocated inference engine "
        "(vLLM's gpu_memory_utilization), and check nvidia-smi for other processes on the GPU.",
        fixtures=("cuda_oom__nemo_rl_3793_ppo_default_yaml_get_logprobs.log",),
    ),
    Rule(
        name="xformers_without_cuda_kernels",
        category="cuda_config_error",
        code="LX788",
        # above LX511, whose NotImplementedError line ends the traceback
        priority=82,
        retryable=False,
        patterns=(
            # xformers' reasons under "No operator found for `memory_efficient_attention_...`"
            # (its wheel has no CUDA kernels: built without CUDA; the tensors are on the CPU),
            # and its warning at import that its kernels do not load (built for another torch
            # or CUDA)
            r"xFormers wasn't build with CUDA support",
            r"xFormers can't load C\+\+/CUDA extensions",
            r"\bdevice=cpu \(supported: \{'cuda'\}\)",
        ),
        # the warning alone is not a failure: diffusers and DINOv2 fall back to torch's
        # attention and train on
        requires=(r"No operator found for `memory_efficient_attention\w*`",),
        cause="xformers' memory-efficient attention found no kernel it can run: the installed "
        "xformers wheel was built for another torch or CUDA (or without CUDA), so its CUDA "
        "kernels do not load, or the tensors were on the CPU: this torch cannot use the GPU "
        "(a CPU build, a conda cudatoolkit that does not match), or the code never moved "
        "them; every run fails at the first attention call.",
        fix="install the xformers wheel built for the installed torch (`pip install -U "
        "xformers --index-url https://download.pytorch.org/whl/cu<ver>`; `python -m "
        "xformers.info` prints the torch and CUDA it was built for), check "
        "`torch.cuda.is_available()` in the job's environment and that the model is on the "
        "GPU, or turn xformers off (torch's scaled_dot_product_attention does the same "
        "work).",
        fixtures=(
            "cuda_config_error__fast_sd_1935_xformers_built_for_other_torch.log",
            "cuda_config_error__sdscripts_412_xformers_tensors_on_cpu.log",
        ),
    ),
    Rule(
        name="cudnn_no_engine",
        category="cuda_error",
        code="LX800",
        # above LX511, whose RuntimeError line this is: cuDNN's, not the script's
        priority=81,
        retryable=False,
        patterns=(
            # cuDNN's v8 API, through torch's convolution and RNN kernels: no engine of this
            # cuDNN supports the call's shapes, dtype and layout
            # ("FIND" where cudnn.benchmark searches the engines)
            r"\b(?:GET|FIND) was unable to find an engine to execute this computation",
        ),
        exclude=(GOES_ON,),
        cause="cuDNN found no kernel for this convolution (or RNN) on this GPU: a dtype or "
        "layout it does not support here (fp8, bf16 or channels-last on an older GPU), input "
        "shapes past its limits, a GPU that this torch's cuDNN no longer supports, a cuDNN "
        "other than the one torch was built with, or no memory left for any engine's "
        "workspace; the same layer fails on every run.",
        fix="rerun once with torch.backends.cudnn.enabled = False to confirm it is cuDNN; "
        "then use the cuDNN torch ships with (pip's nvidia-cudnn wheel that matches torch, no "
        "system cuDNN first on LD_LIBRARY_PATH) and a build that supports this GPU, a dtype "
        "this GPU supports, or smaller inputs or batch for that layer.",
        fixtures=("cuda_error__cosyvoice_1560_flow_cudnn_no_engine.log",),
    ),
    Rule(
        name="cufft_internal_error",
        category="cuda_config_error",
        code="LX808",
        # above the user's exception (LX511), whose RuntimeError line this is
        priority=81,
        retryable=False,
        # cuFFT's catch-all status, raised by torch.stft/torch.fft: the cuFFT of CUDA 11.7
        # and older has no kernels for Ada GPUs (RTX 40 series, L4, L40), so every FFT on
        # one fails until torch is built for CUDA 11.8 or newer (pytorch/pytorch#88038); it
        # is also met near the GPU's memory limit (pytorch/pytorch#119420)
        patterns=(r"\bcuFFT error: CUFFT_INTERNAL_ERROR\b",),
        exclude=(*WENT_ON, r"Warning:"),
        cause="cuFFT failed inside torch's FFT (torch.stft, torch.fft): a torch built for "
        "CUDA 11.7 or older on an Ada GPU (RTX 40 series, L4, L40), whose cuFFT has no "
        "kernels for it, or, more rarely, an FFT planned with almost no GPU memory free; the "
        "first comes back on every run.",
        fix="install a torch built for CUDA 11.8 or newer (pip install torch --index-url "
        "https://download.pytorch.org/whl/cu118 or later; `python -c 'import torch; "
        "print(torch.version.cuda)'` says which); if it already is, leave memory free for "
        "cuFFT's plan (a smaller batch, PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True).",
        fixtures=("cuda_config_error__sovits_109_cufft_internal_error.log",),
    ),
    Rule(
        name="cuda_invalid_handle",
        category="cuda_error",
        code="LX679",
        # over LX512, which reads the same "CUDA error: ..." line
        priority=79,
        retryable=False,
        patterns=(
            r"\bcudaErrorInvalidResourceHandle\b",
            r"CUDA (?:driver )?error: invalid resource handle",
            r"Cuda failure (?:\d+ )?'invalid resource handle'",
        ),
        cause="a CUDA call was given a handle (a stream, an event, a context, a graph) that "
        "belongs to another device or context than the current one (cudaErrorInvalidResource"
        "Handle, 400): in a multi-GPU run, usually a library that created its streams or "
        "resources on GPU 0 before the rank selected its own GPU; it is not a kernel fault, "
        "and it repeats on every start.",
        fix="call torch.cuda.set_device(local_rank) before anything touches CUDA (model, "
        "library initialisation, a stream created at import), and create per-device "
        "resources (streams, CV-CUDA or NVIDIA DALI objects, CUDA graphs) on the rank's own "
        "device.",
        fixtures=("cuda_error__cvcuda_212_multigpu_invalid_resource_handle.log",),
    ),
    Rule(
        name="deepep_device_assert",
        category="cuda_error",
        code="LX680",
        priority=81,
        patterns=(
            # DeepEP's EP_DEVICE_ASSERT (csrc/kernels/exception.cuh): a printf, then trap(),
            # once per failing GPU thread; (DeepGEMM's host check prints the same words from
            # its own .cuh files, which are not under csrc/kernels)
            r"^Assertion failed: \S*csrc/kernels/\S+\.cuh?:\d+, condition: ",
        ),
        cause="a DeepEP kernel found one of its communication invariants broken and trapped "
        "(the condition is printed): tokens or counts that peers should have sent did not "
        "arrive, or the Buffer was created for fewer queue pairs, experts or ranks than the "
        "run uses (num_qps_per_rank against the local experts, the RDMA ranks its kernels "
        "were built for); the kernel's trap then fails every CUDA call on that GPU.",
        fix="read the condition: a size one (num_rc_per_pe >= num_local_experts, chunk "
        "sizes) means the Buffer's arguments or the expert layout do not match the run; a "
        "count that stayed 0 means a peer's data never arrived (run DeepEP's "
        "tests/test_internode.py and test_low_latency.py on these nodes, check NVSHMEM/IBGDA "
        "and the NICs).",
        fixtures=("cuda_error__deepep_49_low_latency_num_recv_tokens_assert.log",),
    ),
    Rule(
        name="bitsandbytes_cublaslt_failed",
        category="cuda_error",
        code="LX806",
        # above the raise it is (LX674's, 79) and its bare Exception line (LX656's, 80)
        priority=81,
        retryable=False,
        patterns=(
            # bitsandbytes' int8 matmul (functional.igemmlt) when cublasLt returns an error
            # status; it prints "error detected" and the operands' shapes first
            r"cublasLt ran into an error!",
        ),
        cause="bitsandbytes' 8-bit matrix multiply (igemmlt) got an error from cuBLASLt: a GPU "
        "its int8 kernels do not support (older releases need compute capability 7.5 or "
        "newer), or the 8-bit weights and the activations on different GPUs (a model "
        "spread with device_map='auto' in each process of a multi-GPU run); the same setup "
        "fails the same way.",
        fix="load the quantized model whole on each process's own GPU "
        "(device_map={'': local_rank}) instead of device_map='auto' under torchrun or "
        "accelerate, and upgrade bitsandbytes (newer releases fall back on GPUs without "
        "int8 tensor cores); or train in 4-bit or bf16 instead.",
        fixtures=("cuda_error__chinese_vicuna_3_cublaslt_multigpu.log",),
    ),
    Rule(
        name="miopen_database_lock",
        category="cuda_error",
        code="LX805",
        # above the exception MIOpen's failure raises a few lines later (LX511's, 80)
        priority=81,
        retryable=False,
        patterns=(
            # MIOpen (ROCm's cuDNN) keeps its find results and compiled kernels in SQLite files
            # under ~/.config/miopen and ~/.cache/miopen; every process of the node opens them
            r"MIOpen Error: \S*sqlite_db\.cpp:\d+: Internal error while accessing SQLite "
            r"database: (?:locking protocol|database is locked|disk I/O error)",
        ),
        cause="MIOpen could not lock its SQLite databases (the user find-db and kernel cache "
        "in the home directory): the home is on a network filesystem (NFS, Lustre, GPFS) "
        "that does not give SQLite working locks, and every process of the node opens the "
        "same files; the same setup fails the same way.",
        fix="point MIOpen at node-local storage for each process: MIOPEN_USER_DB_PATH and "
        "MIOPEN_CUSTOM_CACHE_DIR to a directory under /tmp (or $SLURM_TMPDIR) per rank, e.g. "
        "/tmp/miopen-$LOCAL_RANK; with a read-only prebuilt database, MIOPEN_DISABLE_CACHE=1 "
        "avoids the kernel cache.",
        fixtures=("cuda_error__miopen_2214_sqlite_locking_protocol.log",),
    ),
    Rule(
        name="cuda_kernel_assert",
        category="cuda_error",
        code="LX561",
        priority=81,
        patterns=(
            r"\.cuh?:\d+: .*Assertion `.+` failed",
            # the indexing kernels' check, where a paste cut the line's start (file, block,
            # thread)
            r'index < sizes\[i\] && "index out of bounds"` failed',
            # the device assert's own coordinates, on a line a terminal broke inside "failed",
            # and on one whose backticks Markdown took as code marks
            r"block: \[\d+,\d+,\d+\], thread: \[\d+,\d+,\d+\] Assertion (?:`|\S.* failed)",
        ),
        cause="a CUDA kernel's own check failed (a device-side assert): the values the script "
        "passed are outside what the operation accepts (an index or label out of range, a "
        "loss input that is not a probability, NaN); the same data fails the same way again.",
        fix="read the assertion: it names the condition (e.g. `t >= 0 && t < n_classes`, "
        "`input_val >= zero && input_val <= one`); check labels against the number of "
        "classes, apply the sigmoid/softmax the loss expects, look for NaN; rerun with "
        "CUDA_LAUNCH_BLOCKING=1 (or on the CPU) to get the failing line.",
        fixtures=(
            "cuda_error__pytorch_112488_bce_input_out_of_range_device_assert.log",
            "cuda_error__fastchat_608_index_select_device_assert.log",
            "cuda_error__d_fine_137.log",
            "cuda_error__axolotl_1138_mistral_zero3_scatter_index_oob.log",
            "cuda_error__megatron_ds_239_index_select_assert.log",
        ),
    ),
    Rule(
        name="cuda_error",
        category="cuda_error",
        code="LX512",
        priority=78,
        patterns=(
            r"CUDA error: ",
            r"CUDA driver error: ",
            # TensorRT-LLM's check macro, which names the call before the runtime's message
            # ("CUDA runtime error in cudaIpcOpenMemHandle(...): peer access is not supported
            # between these two devices"); a device that is not there is LX540's
            r"\[TensorRT-LLM\]\[ERROR\] CUDA runtime error in \w+\(",
            # THC's wording before torch 1.8 ("cuda runtime error (715) : an illegal ...")
            r"cuda runtime error \(\d+\) ?: ",
            # ... and THC's check macro's own line for the same status ("THCudaCheck FAIL
            # file=... line=70 error=30 : unknown error"), printed above it or alone
            r"THCudaCheck FAIL file=\S+ line=\d+ error=\d+ : ",
            # ROCm's wordings: torch's HIP errors, the HSA runtime's page fault and queue abort
            r"HIP error: ",
            # RCCL's and HIP samples' check macro ("[FATAL ERROR]: HIP failure: '...'")
            r"HIP failure: '",
            r"Memory access fault by GPU node-\d+",
            # the same fault as the amdgpu kernel driver logs it (dmesg): a non-zero status
            r"amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x0*[1-9a-fA-F]",
            r"aborting with error : HSA_STATUS_ERROR_(?:MEMORY_APERTURE_VIOLATION|MEMORY_FAULT"
            r"|EXCEPTION|ILLEGAL_INSTRUCTION)",
            r"HW Exception by GPU node-\d+",
            r"device-side assert triggered",
            r"an illegal memory access was encountered",
            # cuda-gdb's name of the fault a kernel took (its CUDA_EXCEPTION_N table), as it
            # prints it opening a GPU core dump or stopping in the kernel
            r"^CUDA Exception: (?:Warp|Lane|Device) (?:Illegal|Out-of-range|Misaligned|Invalid)"
            r" (?:Address|Instruction|PC|Address Space)\b",
            r"^CUDA Exception: (?:Warp Assert|Device Hardware Stack Overflow|Warp Hardware Stack "
            r"Overflow|Lane User Stack Overflow|Lane Syscall Error)\b",
            # the CUDA runtime's own names of a kernel's faults, which a library reports
            # instead of the runtime's message (cudaErrorLaunchFailure is LX631's)
            rf"\bcudaError(?:{CUDA_KERNEL_FAULTS})\b",
            # ... and a library's check macro that prints the status by number and message
            # (torch_memory_saver: "cudaError error: 1 (invalid argument) file=... func=pause");
            # not out of memory, which is not a kernel's or a call's error
            r"\bcudaError(?: error)?: \d+ \((?!out of memory\))[a-z][^)]*\)",
            # dmlc's CUDA check (decord, MXNet, TVM), which names the status it tolerates at
            # exit before the message of the one it got
            r"Check failed: e == cudaSuccess \|\| e == cudaErrorCudartUnloading:? CUDA: ",
            r"uncorrectable ECC error",
            r"GPU has fallen off the bus",
            # the driver's own words in the kernel log ("NVRM: GPU at 0000:01:00.0 has
            # fallen off the bus.")
            r"NVRM: GPU at \S+ has fallen off the bus",
            # torch 2.8's exception class for a CUDA error, as Ray names it for a task that
            # raised it ("RayTaskError(AcceleratorError): ray::Worker.train()"), where the
            # CUDA error's own line is cut from the paste
            r"\bRayTaskError\(AcceleratorError\)",
            # Intel GPUs: Level Zero losing the device (the kernel driver reset the engine
            # under a running kernel), in its unified runtime's name as torch's XPU backend
            # raises it and in its own as oneCCL does
            r"\b(?:UR|ZE)_RESULT_ERROR_DEVICE_LOST\b",
            r"NVRM: Xid \([^)]*\): \d+",
            r"NCCL WARN Cuda failure",
            # NCCL's detail under "Last error:", or printed alone by its CUDACHECK
            r"^Cuda failure (?:\d+ )?'",
            # the driver's word that a GPU dropped out, as slurmstepd's NVML probe prints it
            r"NVML: Failed to [\w ]+(?:\(\d+\))?: GPU is lost",
            # ... and as nvidia-smi prints it for a GPU that no longer answers on the bus
            r"Unable to determine the device handle for GPU ?(?:\d+: )?[0-9A-Fa-f:.]+: "
            r"(?:Unknown Error|GPU is lost|GPU requires reset)",
            # ... and as pynvml raises it (torch.cuda's utilization and memory queries, a
            # trainer's GPU monitor): the exception class its status code is named for
            r"\bNVMLError_(?:Unknown|GpuIsLost|ResetRequired)\b",
            r"unhandled cuda error",
            r"ncclUnhandledCudaError",
            r"CUBLAS_STATUS_(?:EXECUTION_FAILED|INTERNAL_ERROR|NOT_INITIALIZED|MAPPING_ERROR)",
            r"cuDNN error: CUDNN_STATUS_(?:EXECUTION_FAILED|INTERNAL_ERROR|MAPPING_ERROR)",
            # DeepSpeed's fused kernels print cuBLAS's status as a number: 11, 13 and 14 are
            # MAPPING_ERROR, EXECUTION_FAILED and INTERNAL_ERROR
            r"!!!! kernel execution error\. \(m: \d+, n: \d+, k: \d+, error: 1[134]\)",
            # ... and faiss's GPU matrix multiply in its assertion's details
            r"\bcublas failed \(1[134]\): ",
        ),
        # a kernel's launch failure is LX631's, which yields to a DeepEP timeout before it;
        # a CUDA call at interpreter exit is LX637's
        exclude=(
            r"out of memory|unspecified launch failure|CUDA_ERROR_LAUNCH_FAILED"
            r"|driver shutting down",
        ),
        cause="a CUDA kernel failed (illegal memory access, device-side assert), or the GPU "
        "itself did (an uncorrectable ECC error, a GPU fallen off the bus or lost to NVML); "
        "CUDA reports it asynchronously, often at a later call or in the NCCL watchdog.",
        fix="rerun with CUDA_LAUNCH_BLOCKING=1 to get the failing line, check indices and "
        "labels against tensor sizes (device-side asserts), and look for Xid messages in "
        "`dmesg` (amdgpu errors on ROCm, xe or i915 engine resets on Intel GPUs, with "
        "xpu-smi's health view; hardware: drain the node).",
        fixtures=(
            "cuda_error__depthawarecnn_12_runtime_error_77.log",
            "cuda_error__flux_40.log",
            "cuda_error__rocm_4021_mi300x_gpu_hang_hw_exception.log",
            "cuda_error__deepspeed_454_transformer_kernel_error_13.log",
            "cuda_error__tensorrt_llm_1498.log",
            "cuda_error__rocm_systems_8178_rccl_intermittent_invalid_device_pointer.log",
            "cuda_error__physicsnemo_539_graphcast_mpirun_np3.log",
            "cuda_error__returnn_1486.log",
            "cuda_error__plmfit_40_slurmstepd_nvml_gpu_is_lost.log",
            "cuda_error__sglang_10195.log",
            "cuda_error__torch_xpu_ops_5164.log",
            "cuda_error__dmlcloud_58_nvml_unknown_error.log",
            "cuda_error__slime_1786_torch_memory_saver_pause_invalid_argument.log",
            "cuda_error__skyrl_797_fully_async_acceleratorerror.log",
        ),
    ),
    Rule(
        name="cudnn_not_initialized",
        category="cuda_error",
        code="LX828",
        # the kernel rule's tier (LX512); an out-of-memory line beside it is the cause (LX509)
        priority=78,
        retryable=False,
        patterns=(r"CUDNN_STATUS_NOT_INITIALIZED",),
        cause="cuDNN could not set itself up on this GPU (cudnnCreate failed) when the first "
        "convolution or RNN ran: usually the GPU had no memory left for cuDNN's handle and "
        "workspace (another process on it, two ranks sharing one GPU, or the model and batch "
        "already filling it), else the cuDNN library that loaded does not fit the CUDA "
        "runtime or driver (a libcudnn from LD_LIBRARY_PATH or another package ahead of "
        "torch's own). Either repeats on the next start unless the GPU was busy only then.",
        fix="look at `nvidia-smi` for other processes on the GPU, make every rank use its own "
        "(torch.cuda.set_device(local_rank) before the model is built), try a smaller batch; "
        "check the cuDNN torch loads (`python -c 'import torch; "
        "print(torch.backends.cudnn.version())'`) and drop LD_LIBRARY_PATH entries that put "
        "another libcudnn first.",
        fixtures=("cuda_error__fairseq_1966_cudnn_not_initialized_4gpu.log",),
    ),
    Rule(
        name="custom_allreduce_cuda_failure",
        category="cuda_error",
        code="LX706",
        # the kernel rule's tier (LX512 reads an illegal access reported here; the peer-access
        # status is LX573's, a configuration)
        priority=78,
        retryable=False,
        patterns=(
            # vLLM's custom all-reduce (also inside sglang and the engines built on vLLM)
            # checks its CUDA calls itself: "Failed: Cuda error <file>:<line> '<status>'";
            # some builds print the file without the words "Cuda error"
            r"\bFailed: (?:Cuda error )?\S*custom_all_reduce\.cuh:\d+ '",
        ),
        exclude=(r"out of memory|peer access is not supported|illegal memory access",),
        cause="the inference engine's own all-reduce kernel (vLLM's custom all-reduce, which "
        "maps the other GPUs' buffers through CUDA IPC) failed a CUDA call, typically "
        "'invalid argument' while registering buffers during CUDA graph capture: a driver, "
        "GPU or allocator setting it does not support (PYTORCH_CUDA_ALLOC_CONF="
        "expandable_segments), or a GPU generation the build was not made for; every start "
        "fails the same way.",
        fix="start the engine with --disable-custom-all-reduce (NCCL then does the "
        "all-reduce) or without CUDA graphs (vLLM's --enforce-eager, SGLang's "
        "--disable-cuda-graph); drop expandable_segments from "
        "PYTORCH_CUDA_ALLOC_CONF; upgrade the engine when its release notes name your GPU.",
        fixtures=("cuda_error__dynamo_787.log",),
    ),
    Rule(
        name="npu_core_timeout",
        category="cuda_error",
        code="LX707",
        # above HCCL's own timeouts (LX602): a kernel that never finished on one NPU is why
        # its peers' collectives waited
        priority=52,
        retryable=False,
        patterns=(
            # Ascend's runtime (torch_npu's ACL errors): an operator ran past the AI Core's,
            # vector core's or AI CPU's execution timeout (507014, 507034, 507017)
            r"\[(?:aicore|vector core|aicpu) timeout\]",
            r"\berror code(?: is|:) ?50701[47]\b|\berror code(?: is|:) ?507034\b",
            r"Vector core execution timed out",
        ),
        cause="an operator on an Ascend NPU ran longer than the core's execution timeout "
        "(aclrtSetOpExecuteTimeOut; the default depends on the chip, from about a minute to "
        "18 minutes) and the runtime killed it: a kernel that hangs (a fused communication "
        "kernel whose peer never answers, a kernel bug of the installed CANN or torch_npu "
        "release) or one given far more work than it can finish; the same model on the same "
        "release usually fails again.",
        fix="read the plog (~/ascend/log) of the device named for the kernel that timed out; "
        "check the other ranks for an earlier failure; try the CANN / torch_npu / engine "
        "release that worked before; only when the kernel is just slow, raise the timeout "
        "(aclrtSetOpExecuteTimeOut, or torch_npu's op execute timeout setting).",
        fixtures=("cuda_error__vllm_ascend_4972.log",),
    ),
    Rule(
        name="npu_kernel_exception",
        category="cuda_error",
        code="LX714",
        # the kernel fault's tier (LX512)
        priority=78,
        retryable=False,
        patterns=(
            # CANN's runtime (EZ9999) for an operator that faulted on an AI Core or vector
            # core: an illegal instruction, an address out of range (the NPU's illegal memory
            # access); the wordings of the CANN releases
            r"there is an (?:exception of )?(?:fftsplus )?(?:aivec|aivector|aicore|aic|aiv) "
            r"error\b",
            r"Kernel task happen error, retCode=0x[0-9a-fA-F]+, \[(?:aicore|aivec|vector core) "
            r"exception\]",
            r"Aicore kernel execute failed",
            # ... and an AI CPU operator's (the runtime's words, its EE9999 reason)
            r"The aicpu execution is abnormal",
            r"\breason=\[?aicpu exception\b",
            # ACL's codes for the same: an AI Core's or a vector core's exception (507015,
            # 507035) or trap (507016, 507036), an AI CPU's exception (507018)
            r"\berror code(?: is|:) ?5070(?:1[568]|3[56])\b",
            r"\bruntime result = 507018\b",
        ),
        # CANN prints the same EZ9999 core-error line over a core's timeout, which the lines
        # around it name (LX707's): torch_npu's own lines above it, the runtime's below
        not_before=(
            r"\[(?:aicore|vector core|aicpu) timeout\]",
            r"\berror code(?: is|:) ?5070(?:1[47]|34)\b",
        ),
        not_after=(
            r"\[(?:aicore|vector core|aicpu) timeout\]",
            r"\berror code(?: is|:) ?5070(?:1[47]|34)\b",
            r"The (?:aicore|vector core|aicpu) execution times out",
        ),
        cause="an operator's kernel faulted on an Ascend NPU (an AI Core or vector core "
        "exception: an address out of range, an illegal instruction from unaligned buffers), "
        "the NPU's counterpart of CUDA's illegal memory access; a kernel bug of the installed "
        "CANN, torch_npu or engine release, or an input it does not support; the same step "
        "fails again.",
        fix="read the EZ9999 lines for the kernel's name and the error string; rerun with "
        "ASCEND_LAUNCH_BLOCKING=1 to stop at the operator that faulted; try the CANN / "
        "torch_npu / engine release that worked before, or turn off the feature that uses "
        "the kernel (graph mode, a fused operator).",
        fixtures=(
            "cuda_error__vllm_ascend_10720.log",
            "cuda_error__vllm_ascend_2918.log",
            "cuda_error__vllm_ascend_3263.log",
            "cuda_error__vllm_ascend_3037.log",
            "cuda_error__vllm_ascend_8360.log",
            "cuda_error__vllm_ascend_10829.log",
        ),
    ),
    Rule(
        name="cuda_launch_failure",
        category="cuda_error",
        code="LX631",
        priority=78,
        patterns=(
            r"unspecified launch failure",
            r"CUDA_ERROR_LAUNCH_FAILED|\bcudaErrorLaunchFailure\b",
        ),
        # DeepEP's kernels call trap() once their wait for a peer gives up (LX623): the
        # launch failure that follows on that rank is the timeout's doing
        not_after=(DEEPEP_TIMEOUT,),
        cause="a CUDA kernel aborted while it ran (cudaErrorLaunchFailure, 'unspecified launch "
        "failure'): a kernel that faulted or called trap(), a driver fault or a failing GPU; "
        "CUDA reports it asynchronously, often at a later call or in the NCCL watchdog.",
        fix="rerun with CUDA_LAUNCH_BLOCKING=1 to find the kernel (a custom or fused "
        "extension's, usually); look for Xid messages in `dmesg` on the node (13, 31 or 43: "
        "a kernel fault; 79 or 48: hardware, drain the node); the same kernel on every "
        "start is a bug or a build for another GPU.",
        fixtures=(
            "cuda_error__deepseek_moe_47_watchdog_unspecified_launch_failure_rank1.log",
            "cuda_error__llamafactory_8871_multinode_unspecified_launch_failure.log",
        ),
    ),
    Rule(
        name="deepspeed_no_slot",
        category="cuda_config_error",
        code="LX620",
        # above the launcher's other argument errors (LX621) and the user's exception (LX511)
        priority=85,
        retryable=False,
        patterns=(
            r"No slot '\d+' specified on host '[^']+'",
            # a reporter's retyping of it, quotes and spelling lost ("No slot 2 specificied
            # on host work1")
            r"^No slot \d+ specifi(?:ci)?ed on host \S+$",
        ),
        cause="DeepSpeed's runner was asked for a GPU slot its host does not have: with a "
        "hostfile a host has the slots its slots=N line gives (0..N-1); without one, "
        "localhost has the GPUs the runner counted, and the runner turns CUDA_VISIBLE_DEVICES "
        "itself into --include localhost:<ids>, so ids beyond the visible count ask for "
        "slots that are not there. No rank started; every launch fails the same way.",
        fix="choose GPUs with the runner's own --include localhost:<ids> (or --num_gpus N) and "
        "leave CUDA_VISIBLE_DEVICES unset for it; with a hostfile give each host slots= its "
        "GPU count; or start the ranks with torchrun (launchx run), which takes "
        "CUDA_VISIBLE_DEVICES as it is.",
        fixtures=("cuda_config_error__deepseek_coder_167_deepspeed_no_slot_4.log",),
    ),
    Rule(
        name="npu_async_operator_error",
        category="cuda_error",
        code="LX722",
        # a symptom's tier: the error the runtime printed above it (a kernel fault, an HCCL
        # timeout, an out-of-memory) is read by its own rule and wins
        priority=48,
        retryable=False,
        patterns=(
            # torch_npu's RuntimeError for an operator that failed on the device after it was
            # launched asynchronously (ERR00100 follows it)
            r"The Inner error is reported as above\. The process exits for this inner error",
        ),
        cause="an operator failed on the Ascend NPU after torch_npu launched it asynchronously "
        "(the runtime's own error, an EZ9999/EE9999 block, is printed above this line when "
        "the log has it): a kernel fault or an unsupported input of the CANN / torch_npu / "
        "engine release; the operator it names is the one running when the error was seen, "
        "not always the one that failed.",
        fix="read the lines above for the runtime's error and the operator's name; rerun with "
        "ASCEND_LAUNCH_BLOCKING=1 to stop at the operator that failed; try the CANN / "
        "torch_npu / engine release that worked before, or turn off the feature that uses "
        "the operator (graph mode, a fused kernel).",
        fixtures=("cuda_error__vllm_ascend_6190.log",),
    ),
    Rule(
        name="oneccl_device_files",
        category="cuda_config_error",
        code="LX730",
        priority=88,
        retryable=False,
        patterns=(
            # oneCCL (Intel's NCCL, torch's xccl/ccl backend) opening the GPUs' device files
            # to exchange their handles between ranks
            r"oneCCL: ze_fd_manager\.cpp:\d+ fill_device_fds: EXCEPTION: open failed",
        ),
        cause="oneCCL (the collective library of Intel GPUs) could not open the GPUs' device "
        "files, which it finds through /dev/dri/by-path/*-render, to share memory between "
        "ranks: the container or sandbox does not pass them in (or passes the renderD nodes "
        "without the by-path links), or the user may not open them; every start fails the "
        "same way.",
        fix="pass the devices in (docker --device /dev/dri and -v /dev/dri/by-path:/dev/dri/"
        "by-path, or the Kubernetes GPU plugin), give the user the render group, and check "
        "that `ls -l /dev/dri/by-path` lists a -render link per GPU, pointing at a renderD "
        "node that exists, where the ranks run.",
        fixtures=("cuda_config_error__vllm_14747.log",),
    ),
    Rule(
        name="library_cuda_check",
        category="cuda_error",
        code="LX735",
        # below the CUDA runtime's own reports (LX512, 78) and the specific readings of these
        # checks (LX573's peer access, LX706's custom all-reduce, LX509's out of memory)
        priority=76,
        retryable=False,
        patterns=(
            # the CUDA checks of DeepEP's and vLLM's C++ ("Failed: CUDA error <file>:<line>
            # '<the runtime's message>'")
            r"\bFailed: C(?:UDA|uda) error \S+:\d+ '(?!out of memory')",
        ),
        cause="a CUDA call made by a library's own C++ code (DeepEP's buffers, vLLM's custom "
        "kernels) failed with the runtime's message in quotes: an invalid argument or handle "
        "from a library built for another CUDA, driver or GPU than the one here, or a kernel "
        "fault; the same call fails on every start.",
        fix="read the quoted message and the file it names; rebuild or reinstall the library "
        "for the CUDA and torch in use (DeepEP with the NVSHMEM it was built against), or "
        "turn off the feature that uses it (the all-to-all backend, custom all-reduce) to "
        "confirm.",
        fixtures=("cuda_error__llm_d_671.log",),
    ),
    Rule(
        name="tpu_held_by_another_process",
        category="duplicate_gpu",
        code="LX736",
        # the duplicate-GPU tier (LX506)
        priority=92,
        retryable=False,
        patterns=(
            # libtpu refusing a second process on the chips of this host (JAX and
            # torch_xla load it alike): "ABORTED: The TPU is already in use by process with
            # pid 22589. Not attempting to load libtpu.so in this process.", and its older
            # words ("libtpu.so already in use by another process. Run ...")
            r"(?:The TPU|libtpu\.so) (?:is )?already in use by (?:a |another )?process",
        ),
        cause="another process on this host already holds the TPU chips, and libtpu lets "
        "only one process open them: a parent that imported JAX or torch_xla (and touched the "
        "devices) before it started the workers, two workers per host, or a process left "
        "over from an earlier run that still holds /dev/accel* (or /dev/vfio/*).",
        fix="open the devices only in the processes that use them (no jax.devices() or "
        "xm.xla_device() in the launcher or a Ray driver); find a leftover holder with "
        "`fuser -v /dev/accel* /dev/vfio/*` (or `lsof -w /dev/accel*`), stop it, and remove a "
        "stale /tmp/libtpu_lockfile before the next start; several processes per host each "
        "need their own chips and port (TPU_VISIBLE_CHIPS or JAX's TPU_VISIBLE_DEVICES, "
        "TPU_CHIPS_PER_PROCESS_BOUNDS, TPU_PROCESS_BOUNDS).",
        fixtures=("duplicate_gpu__jetstream_pytorch_163.log",),
    ),
    Rule(
        name="hpu_graph_compile_failed",
        category="cuda_error",
        code="LX737",
        # the device runtime's tier (LX512)
        priority=78,
        retryable=False,
        patterns=(
            # Intel Gaudi's PyTorch bridge on a graph the Synapse graph compiler rejected
            # ("Graph compile failed. synStatus=synStatus 26 [Generic failure]"), under the
            # compiler's own error lines
            r"Graph compile failed\. synStatus",
            # ... and the graph API refusing a node while the bridge builds the graph
            r"synNodeCreateWithId failed for node: \S+ with synStatus",
        ),
        # (in a collective it is the scale-out's set-up: LX739, above this one)
        cause="the Gaudi graph compiler (SynapseAI) could not compile a graph this rank "
        "built: a TPC kernel it could not load (GLUE_FAILED), an operator or shape the "
        "installed software does not support, or a habana_frameworks build that does not "
        "match the installed SynapseAI, driver and firmware; the same graph fails at "
        "every start.",
        fix="read the compiler's error lines above it (a [GC]/[PASS_MANAGER] line names "
        "the node and kernel); check that habana_frameworks, SynapseAI and the driver are "
        "one release (hl-smi -v, pip list | grep habana); try eager mode (PT_HPU_LAZY_MODE=0 "
        "or vLLM's --enforce-eager) to find the operator.",
        fixtures=(
            "cuda_error__vllm_fork_484.log",
            "cuda_error__llamafactory_7275_gaudi_synnode_batch_gemm.log",
        ),
    ),
)
