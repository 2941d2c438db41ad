"""The training script's own errors (its exception, read across launchers and loggers) and
the deprecated settings and flags it passes or is given."""

from __future__ import annotations

from launchx.failure_rules.model import Rule
from launchx.failure_rules.patterns import (
    EXCEPTION_LINE,
    GOES_ON,
    HIVEMIND_NO_GROUP,
    HTTP_RETRY_WARNING,
    INTERNAL_ASSERT_LINE,
    LOGGED_FAILURE,
    LOGGING_HANDLER_FRAME,
    MODULE_ERROR,
    NOT_THE_DISK,
    NOT_THE_DISKS_FRAMES,
    NOT_THE_SCRIPTS,
    PYTHON_ONLY_ERRORS,
    WANDB_INIT_FAILED,
    WARNED_LINE,
    WENT_ON,
)

RULES: tuple[Rule, ...] = (
    Rule(
        name="rendezvous_not_in_build",
        category="user_code_error",
        code="LX770",
        priority=88,
        retryable=False,
        patterns=(
            # torch >= 2.4 builds the rendezvous store on libuv, which Windows wheels lack
            r"use_libuv was requested but PyTorch was build without libuv support",
            # old Windows builds registered no tcp:// (or env://) rendezvous
            r"No rendezvous handler for (?:tcp|env)://",
        ),
        cause="the script's (or its launcher's) rendezvous asks for something this torch "
        "build does not have: the Windows wheels have no libuv for the TCP store, which "
        "torch 2.4+ uses by default, and old Windows builds had no tcp:// or env:// "
        "rendezvous at all; no rank gets as far as a backend, and every start fails the same "
        "way.",
        fix="on Windows set USE_LIBUV=0 where init_process_group builds the store (its env:// "
        "and tcp:// rendezvous read it; later torch releases default to it on Windows); "
        "torchrun's own static rendezvous store takes no such setting in some releases, so "
        "there start the ranks without torchrun, use a torch release whose Windows wheel "
        "works, or run on Linux (WSL2). Use init_method='file:///...' on builds without "
        "tcp://.",
        fixtures=(
            "user_code_error__gpt_sovits_1357_s2_train_use_libuv_windows.log",
            "user_code_error__detr_339_windows_no_rendezvous_env.log",
        ),
    ),
    Rule(
        name="wandb_init_failed",
        category="user_code_error",
        code="LX752",
        # below every failure of the run itself (a script may catch it and train on without
        # its logger; the script's exceptions, LX511, skip wandb's), above the symptoms of a
        # rank that died of it (its peers' timeouts and closed connections)
        priority=60,
        retryable=False,
        # wandb.init()'s own words when its service process or the server did not answer
        # in time: older releases ("wandb: ERROR Error communicating with wandb process"),
        # newer ones (CommError "Run initialization has timed out after 90.0 sec.")
        patterns=(WANDB_INIT_FAILED,),
        cause="the script's experiment logger, wandb.init(), gave up at start-up: its "
        "helper process did not start or answer, or could not reach the W&B server in time "
        "(a compute node without internet or without the proxy settings, a slow server, "
        "many ranks or jobs starting runs at once), and it raised, ending that rank. It is "
        "not a fault of the distributed run, and on a node without egress every rerun fails "
        "the same way.",
        fix="start wandb on rank 0 only; set WANDB_MODE=offline in the profile's env (sync "
        "later with `wandb sync`) where nodes have no internet, or pass the proxy "
        "(HTTPS_PROXY) through; raise the wait with WANDB_INIT_TIMEOUT=300 (or "
        "wandb.Settings(init_timeout=...)); for 'Error communicating with wandb process' "
        "wandb also suggests wandb.init(settings=wandb.Settings(start_method='thread')); "
        "WANDB_MODE=disabled turns it off.",
        fixtures=("user_code_error__bigcode_megatron_lm_27.log",),
    ),
    Rule(
        name="safetensors_shared_tensors",
        category="user_code_error",
        code="LX768",
        # above the exception line that carries it (LX511): its message starts on the line
        # under an empty "RuntimeError:", which a paste often leaves out
        priority=84,
        retryable=False,
        patterns=(
            # safetensors' torch.py (_flatten) refusing a state dict whose tensors share
            # storage, as save_file and save_model's checks word it
            r"^(?:RuntimeError: )?\s*Some tensors share memory, this will lead to duplicate "
            r"memory on disk and potential differences\b",
        ),
        cause="the checkpoint was written with safetensors, which refuses a state dict in "
        "which two entries share one storage: tied weights (input and output embeddings), "
        "or a wrapper (DeepSpeed's engine, a PEFT model, a script's own state_dict() of a "
        "wrapped model) that hands the same storage under several names. The save fails the "
        "same way every time; the training before it is lost unless an earlier checkpoint "
        "was written.",
        fix="upgrade safetensors: releases since mid-2023 no longer refuse views of one "
        "buffer that do not overlap (DeepSpeed's parameters in its flat buffers); for tied "
        "weights save with safetensors' save_model() (or accelerator.save_model()), which "
        "drops the duplicate names, or from the unwrapped model "
        "(accelerator.unwrap_model(model)); or write a torch checkpoint instead "
        "(save_safetensors=False in TrainingArguments, --save_model_as ckpt in kohya's "
        "scripts).",
        fixtures=(
            "user_code_error__safetensors_304_deepspeed_llama2_shared.log",
            "user_code_error__sdscripts_629_deepspeed_sdxl_safetensors_shared.log",
        ),
    ),
    Rule(
        name="tensors_on_two_devices_logged",
        category="user_code_error",
        code="LX767",
        # below every failure of the run itself, like a logger's (LX752): the raised form is
        # an exception line (LX511); this reads the message where a harness caught it per
        # sample and logged it, scoring the samples as failed and going on
        priority=60,
        retryable=False,
        patterns=(
            r"\bExpected all tensors to be on the same device, but found at least two "
            r"devices ?, (?:cuda|npu|xpu|cpu|meta):?\d* and (?:cuda|npu|xpu|cpu|meta)\b",
        ),
        cause="an operation was given tensors on two devices: the model is spread over "
        "several GPUs (device_map='auto', a pipeline split by hand) while each rank also "
        "puts its inputs on its own GPU, or a layer was left on another GPU or the CPU. With "
        "several processes per node, device_map='auto' lets every process use every GPU. "
        "An evaluation harness that catches it per sample scores those samples as failed "
        "and goes on; every rerun gives the same result.",
        fix="with one process per GPU (accelerate launch, torchrun), load the model on that "
        "process's GPU (device_map={'': local_rank}) rather than device_map='auto'; with "
        "one process over all GPUs, launch it as a single process (num_processes=1); move "
        "the inputs to the device of the model's first layer.",
        fixtures=(
            "user_code_error__lmms_eval_50_tensors_diff_device.log",
            "user_code_error__irnet_19_dataparallel_tensors_two_devices.log",
        ),
    ),
    Rule(
        name="mpich_rejects_open_mpi_flags",
        category="deprecated_env",
        code="LX657",
        priority=86,
        retryable=False,
        patterns=(
            # MPICH's Hydra mpiexec naming a flag it does not know that is Open MPI's (its
            # later "error parsing parameters" lines follow any argument error, a missing
            # host file too)
            r"\[mpiexec@\S+\] match_arg \(utils/args/args\.c:\d+\): unrecognized argument "
            r"(?:allow-run-as-root|x|mca|gmca|oversubscribe|tag-output|npernode|report-bindings"
            r"|display-map|H|output-filename|merge-stderr-to-stdout)\s*$",
        ),
        cause="the mpirun on this PATH is MPICH's (Hydra's mpiexec), and it rejected a flag "
        "it does not have: the command line was written for Open MPI (--allow-run-as-root, "
        "-x VAR, --mca; Hydra's own are -genv and -hosts), as torchpack's dist-run and "
        "horovodrun write it, so no rank starts, on every start.",
        fix="put Open MPI's mpirun first on PATH (or install Open MPI: `mpirun --version` "
        "must say Open MPI), or start the ranks without MPI (`launchx run`, torchrun).",
        fixtures=("deprecated_env__torchpack_36_mpich_hydra_unrecognized_allow_run_as_root.log",),
    ),
    Rule(
        name="mpi_init_aborted",
        category="user_code_error",
        code="LX776",
        # under every rule that reads why (LX658's MPI initialised twice, a PMIx error that
        # names a resource): this is Open MPI's abort alone, whatever failed inside
        # MPI_Init_thread
        priority=40,
        retryable=False,
        patterns=(
            # Open MPI's errhandler when MPI_Init_thread itself fails, before any
            # communicator exists (the next line: "*** on a NULL communicator")
            r"^\*\*\* An error occurred in MPI_Init(?:_thread)?$",
        ),
        cause="Open MPI could not initialise in this process and aborted it: the process "
        "was not started by mpirun (or srun with PMIx) though something initialised MPI "
        "(DeepSpeed finding no launcher falls back to MPI, init_process_group('mpi'), "
        "mpi4py, a library's bootstrap), or the Open MPI/PMIx install is broken (its "
        "components fail to load with undefined symbols); it fails the same way on every "
        "start.",
        fix="start the ranks with a launcher that sets RANK/WORLD_SIZE (launchx run, "
        "torchrun, deepspeed) so nothing falls back to MPI, or start them with mpirun; "
        "otherwise repair Open MPI (one install on PATH and LD_LIBRARY_PATH, not a conda "
        "environment's next to the system's) and check it with `mpirun -np 2 hostname`.",
        fixtures=(
            "user_code_error__open_unlearning_8_deepspeed_mpi_init.log",
            "user_code_error__megatron_bridge_650_tp_comm_overlap_mpi_init.log",
        ),
    ),
    Rule(
        name="mpi_initialised_twice",
        category="user_code_error",
        code="LX658",
        priority=75,
        retryable=False,
        # Open MPI's help text, whose next lines are the abort ("An error occurred in
        # MPI_Init_thread ... on a NULL communicator"): that abort alone has other causes
        # (no PMIx server to reach, a network it cannot set up), so it is not read alone
        patterns=(r"^MPI \(via MPI_INIT or MPI_INIT_THREAD\) more than once\.",),
        cause="this process initialised MPI a second time, which Open MPI aborts as "
        "erroneous: typically mpi4py's MPI.Init() (or its import, which initialises MPI) "
        "before init_process_group('mpi') of a torch release that calls MPI_Init_thread "
        "without asking whether MPI is initialised; it fails the same way on every start.",
        fix="initialise MPI once: leave it to init_process_group('mpi') (set "
        "mpi4py.rc.initialize = False before importing mpi4py.MPI, and call no MPI.Init()), "
        "or use mpi4py alone with another backend (nccl, gloo) for torch.distributed.",
        fixtures=("user_code_error__pytorch_33943_mpi4py_then_mpi_backend_double_init.log",),
    ),
    Rule(
        name="launcher_flag_renamed",
        category="deprecated_env",
        code="LX593",
        # above the parser's generic rejection (LX527) that it refines, and above LX649,
        # whose --use_env the same rejection may list beside the renamed flag
        priority=87,
        retryable=False,
        patterns=(
            # torch >= 2.0's torch.distributed.launch passes the renamed flag; a script (or
            # its parser library) that declares only --local_rank rejects it
            r"error: unrecognized arguments: (?:.* )?--local-rank=\d+",
            r"arguments are not used by the HfArgumentParser: \[.*'--local-rank=\d+'",
            r"Override 'local-rank' not found in",
        ),
        cause="the script was started with python -m torch.distributed.launch, which since "
        "torch 2.0 passes the renamed flag --local-rank=N (it was --local_rank=N) to every "
        "rank; the script declares only the old spelling, so its parser rejects the command "
        "line on every rank before training, on every start.",
        fix="start it with `launchx run train.py` (or torchrun), which passes no flag: the "
        "script reads os.environ['LOCAL_RANK']; a script that must also run under the old "
        "launcher declares both spellings: parser.add_argument('--local-rank', "
        "'--local_rank', type=int, default=0).",
        fixtures=(
            "deprecated_env__funasr_1110_launch_local_rank_dash.log",
            "deprecated_env__speechbrain_2868_launch_local_rank_flag.log",
            "deprecated_env__video_chatgpt_26_local_rank_hyphen_hfargparser.log",
        ),
    ),
    Rule(
        name="use_env_flag_passed_to_script",
        category="deprecated_env",
        code="LX649",
        # above the parser's generic rejection (LX527) that it refines
        priority=86,
        retryable=False,
        patterns=(r"error: unrecognized arguments: (?:.* )?--use[-_]env\b",),
        cause="--use_env (--use-env) is a flag of python -m torch.distributed.launch, "
        "deprecated since torch 1.10, telling it to set LOCAL_RANK instead of passing "
        "--local_rank; here it reached the script (written after the script's name), whose "
        "parser rejects it on every rank, on every start; torchrun has no such flag either "
        "(it always sets LOCAL_RANK) and rejects it itself.",
        fix="drop --use_env: torchrun (and `launchx run train.py`) always sets LOCAL_RANK, "
        "which the script reads from os.environ; launcher flags go before the script's name.",
        fixtures=("deprecated_env__satlas_super_resolution_19_use_env_flag.log",),
    ),
    Rule(
        name="launcher_flag_older_than_script",
        category="deprecated_env",
        code="LX659",
        # above the parser's generic rejection (LX527) that it refines
        priority=86,
        retryable=False,
        patterns=(r"error: unrecognized arguments: (?:.* )?--local_rank=\d+",),
        # the script's usage line shows it declares only the new spelling
        requires=(r"\[--local-rank LOCAL_RANK\]",),
        cause="the script declares only --local-rank, the spelling torch 2.0's launcher "
        "passes, and was started by a launcher that passes the old --local_rank=N (python -m "
        "torch.distributed.launch of a torch before 2.0, DeepSpeed's runner, a wrapper such "
        "as mim that calls either); its parser rejects the command line on every rank, on "
        "every start.",
        fix="start it with `launchx run train.py` (or torchrun), which passes no flag: the "
        "script reads os.environ['LOCAL_RANK']; a script that must run under both launchers "
        "declares both spellings: parser.add_argument('--local-rank', '--local_rank', "
        "type=int, default=0).",
        fixtures=("deprecated_env__mim_122_local_rank_underscore.log",),
    ),
    Rule(
        name="local_rank_flag_not_passed",
        category="deprecated_env",
        code="LX626",
        # above the parser's generic rejection (LX527) that it refines
        priority=86,
        retryable=False,
        patterns=(r"error: the following arguments are required: (?:.*, )?--local[_-]rank\b",),
        cause="the script declares --local_rank as a required argument, which only "
        "python -m torch.distributed.launch before torch 2.0 (and DeepSpeed's launcher) "
        "passed; torchrun passes no such flag and sets LOCAL_RANK in each rank's environment "
        "instead, and torch.distributed.launch since 2.0 passes it as --local-rank, so the "
        "parser exits on every rank before training, on every start.",
        fix="read the local rank from the environment: "
        "parser.add_argument('--local-rank', '--local_rank', type=int, "
        "default=int(os.environ.get('LOCAL_RANK', 0))) and drop required=True; then start it "
        "with `launchx run train.py` (or torchrun).",
        fixtures=("deprecated_env__swin_transformer_313_torchrun_local_rank_required.log",),
    ),
    Rule(
        name="torchrun_flag_spelling",
        category="deprecated_env",
        code="LX596",
        # above the launcher's other argument errors (LX695) and the renamed flag's reading
        # of the same rejection (LX593, 87)
        priority=88,
        retryable=False,
        patterns=(
            r"^(?:torchrun|run\.py|launch\.py): error: unrecognized arguments: (?:.* )?--(?:"
            r"nproc-per-node|node-rank"
            r"|master-addr|master-port|rdzv-(?:backend|endpoint|id|conf)|max-restarts"
            r"|monitor-interval|start-method|log-dir|local-addr)\b",
        ),
        cause="this torchrun is older than the dashed spellings of its flags (--nproc-per-node "
        "for --nproc_per_node, --rdzv-endpoint for --rdzv_endpoint, ...) that the command "
        "uses; it rejects the command line before starting any rank.",
        fix="spell the flags with underscores (--nproc_per_node=N), which every torchrun "
        "takes, or upgrade torch; `launchx run` writes the command line for the torchrun it "
        "finds.",
        fixtures=("deprecated_env__timm_1742_torchrun_nproc_dash.log",),
    ),
    Rule(
        name="script_rejected_arguments",
        category="user_code_error",
        code="LX527",
        priority=85,
        patterns=(
            # the program's name may be cut off by the paste ("error: unrecognized ...")
            r"^(?:[^:]{1,80}: )?error: (?:unrecognized arguments|the following arguments are "
            r"required"
            r"|argument [^:]+: (?:expected (?:one|at least one) argument|invalid \w+ value"
            r"|invalid choice|ignored explicit argument|not allowed with argument))",
            # argparse's message as a reporter quotes it, without the program's name and
            # "error:" (Lightning's DDP under Hydra starting the other ranks with arguments
            # the script's parser does not take)
            r"^unrecognized arguments: \S",
        ),
        # (a logger's warning that quotes the words and goes on; not the words "skip",
        # "ignore" or "warn", which the rejected arguments may hold)
        exclude=(WARNED_LINE,),
        cause="the script's argument parser rejected its command line and exited with code 2 "
        "before training; with '--local_rank=N' it is a launcher (DeepSpeed's, or "
        "python -m torch.distributed.launch before torch 2.0) passing an argument the script "
        "does not declare.",
        fix="check the arguments after the script name; for --local_rank: torchrun (and "
        "launchx) pass nothing, the script reads os.environ['LOCAL_RANK']; a script that must "
        "also run under such a launcher declares both spellings: "
        "parser.add_argument('--local-rank', '--local_rank', type=int, default=0).",
        fixtures=(
            "user_code_error__yi_69_unrecognized_local_rank_deepspeed_tp.log",
            "user_code_error__mattergen_180_hydra_ddp_unrecognized_args.log",
        ),
    ),
    Rule(
        name="rendezvous_settings_rejected",
        category="user_code_error",
        code="LX748",
        # the script's own argument errors' priority (LX527): torchrun reads these settings
        # before any rank starts, so no rank's error can come first (and the word
        # "rendezvous" keeps the lines from the generic exception rule, LX511)
        priority=85,
        retryable=False,
        patterns=(
            # torch/distributed/elastic/rendezvous/utils.py: parse_rendezvous_endpoint and
            # parse_rendezvous_config
            r"ValueError: The (?:port number|hostname) of the rendezvous endpoint '[^']*' must "
            r"be ",
            r"ValueError: The rendezvous configuration (?:string must be in format"
            r"|option '[^']*' (?:must have a value specified"
            r"|does not represent a valid (?:boolean|integer) value))",
            # ... rendezvous/api.py: --nnodes MIN:MAX, --rdzv_backend
            r"ValueError: The (?:minimum|maximum) number of rendezvous nodes \(-?\d+\) must be ",
            r"ValueError: The rendezvous backend (?:'[^']*' is not registered\."
            r"|name must be a non-empty string)",
            # ... static_tcp_rendezvous.py: the static backend (--rdzv_backend=static,
            # --master_addr/--master_port) without the node's rank or the master
            r"ValueError: (?:rank|endpoint) is absent in RendezvousParameters",
            r"ValueError: Port is absent in endpoint: ",
        ),
        cause="torchrun (or accelerate launch, which hands it its command line) could not use "
        "the rendezvous settings it was given: an endpoint with no port, a port that is not a "
        "number or a host that is not a valid name or address ('None:None' is a multi-node "
        "launch whose master address and port were never set, or whose arguments shifted by "
        "one), a --rdzv_conf value of the wrong type, --nnodes bounds out of order, a "
        "--rdzv_backend name it does not know (a typo, or a third-party backend whose "
        "package is not installed), or the static backend without the node's rank or the "
        "master; it stops before starting any rank, every time.",
        fix="pass the endpoint as HOST:PORT with a numeric port (torchrun --rdzv_endpoint or "
        "--master_addr/--master_port; accelerate launch --main_process_ip and "
        "--main_process_port on every node; a flag that takes no value, such as "
        "--same_network, given one shifts the arguments after it), --nnodes as N or MIN:MAX "
        "with MIN <= MAX, --rdzv_backend c10d (or static with --node_rank); `launchx run "
        "--nnodes N --master-addr HOST` writes them itself.",
        fixtures=("user_code_error__accelerate_2240.log",),
    ),
    Rule(
        name="script_not_found",
        category="user_code_error",
        code="LX574",
        priority=85,
        retryable=False,
        patterns=(
            r"^\S*python[\d.]*(?:\.exe)?: can't open file '[^']*': \[Errno \d+\]",
            # a directory (or zip) given as the script, with no __main__.py in it: on Windows'
            # cmd a bash-style backslash continuation becomes the script's path
            r"^\S*python[\d.]*(?:\.exe)?: can't find '__main__' module in ",
        ),
        cause="Python could not open the script the launcher was given: from the working "
        "directory the ranks start in, the path does not exist, runs through something that "
        "is not a directory, is a directory with no __main__.py, or cannot be read (a "
        "relative path, a recipe's broken link, a node where the code is not at the same "
        "place), so every rank exits with code 2 before training.",
        fix="pass the script by absolute path, or cd to the directory it is relative to before "
        "launchx run (and in the sbatch script); on several nodes put the code at the same "
        "path everywhere (a shared filesystem).",
        fixtures=("user_code_error__3d_speaker_36_train_py_not_a_directory_exitcode2.log",),
    ),
    Rule(
        name="module_not_runnable",
        category="user_code_error",
        code="LX640",
        priority=85,
        retryable=False,
        patterns=(
            r"Error while finding module specification for '[^']+' \((?:ModuleNotFoundError"
            r"|ValueError: __main__\.__spec__ is None)",
            # the interpreter's own line for `python -m name` when no such module is on the
            # path (no exception, no traceback: it exits 1)
            r"^\S*python[\d.]*(?:\.exe)?: No module named [\w.]+$",
        ),
        # a set-up step's tool run as a module (`python -m pip ... || true`), not the program
        exclude=(r"No module named (?:pip|ensurepip|venv|virtualenv|wheel)$",),
        cause="Python could not run the module it was asked to run with -m: it is not "
        "installed or not on the path from where the ranks start (ModuleNotFoundError), or "
        "the ranks were relaunched as `python -m __main__` from a program that a console "
        "script's .exe started, which has no module spec (__main__.__spec__ is None: "
        "Lightning's DDP relaunches ranks 1 and up that way on Windows, and rank 0 waits "
        "for them); it fails the same way on every start.",
        fix="install the package in the ranks' environment, or start from the directory "
        "that holds it; for __spec__ None start training with `python -m <package>` or "
        "`python path/to/train.py` rather than the console command.",
        fixtures=(
            "user_code_error__so_vits_svc_fork_501_windows_ddp_main_spec_none.log",
            "user_code_error__skill_chaining_4.log",
        ),
    ),
    Rule(
        name="triton_out_of_resources",
        category="user_code_error",
        code="LX643",
        # above the user's exception (LX511), which leaves it out for the OutOfMemoryError
        # class name inductor gives it
        priority=82,
        retryable=False,
        patterns=(
            # Triton's OutOfResources raised, as Triton names it and as inductor re-raises it
            # ("No valid triton configs. OutOfMemoryError: out of resource: ..."); not the
            # bare warning max-autotune logs for a config it then skips
            r"(?:OutOfResources|OutOfMemoryError): out of resource: [\w ]+?,? Required: \d+,? "
            r"Hardware limit: ?\d+",
        ),
        cause="a Triton kernel (one of torch.compile's templates, such as flex_attention's, "
        "or a library's) needs more shared memory per block than this GPU allows: its block "
        "sizes or pipeline stages were chosen for a larger GPU (an H100 allows 227 KB per "
        "block, an A10 or a consumer card 99 KB); not device memory, and it fails the same "
        "way every time.",
        fix="give the kernel smaller tiles: lower BLOCK_M/BLOCK_N or num_stages (for "
        "flex_attention through its kernel_options), or in the library that ships the "
        "kernel; a newer torch or Triton may pick configs that fit; or run on the GPU it was "
        "tuned for.",
        fixtures=("user_code_error__specforge_194_inductor_triton_out_of_resource.log",),
    ),
    Rule(
        name="torch_compile_failed",
        category="user_code_error",
        code="LX824",
        # above the user's exception (LX511): the exception line under BackendCompilerFailed
        # ("backend='inductor' raised:") is what the compiler raised, not the script; a
        # CUDA fault, an OOM or an NCCL error under it is not the compiler's (not_before)
        priority=81,
        retryable=False,
        patterns=(
            # torch.compile's own exception classes (torch/_dynamo/exc.py,
            # torch/_inductor/exc.py) whose names end in neither Error nor Exception, as the
            # last line of a traceback (FailOnCacheLimitHit: the older name of the recompile
            # limit's)
            r"^torch\._dynamo\.exc\.(?:BackendCompilerFailed|Unsupported|FailOn(?:Recompile|Cache)"
            r"LimitHit|InvalidBackend|ResetRequired|CompileOnOneRankUnsupported)\b",
            r"^torch\._inductor\.exc\.(?:MissingOperatorWith(?:out)?Decomp|InvalidCxxCompiler"
            r"|TritonMissing)\b",
            # ... and symbolic shapes' guard on a value only known at run time (a
            # RuntimeError subclass raised while tracing)
            r"^torch\.fx\.experimental\.symbolic_shapes\.GuardOnDataDependentSymNode\b",
        ),
        cause="torch.compile failed on this model: Dynamo met code it cannot trace (and "
        "fullgraph or a recompile limit made that an error), or the backend (inductor, or "
        "DDP's and FSDP's graph splitting around it) raised while compiling a graph: an "
        "operator it has no lowering for, no working C++ compiler or Triton, a bug of the "
        "compiler for this model; the same model and torch fail the same way every time.",
        fix="run once without compiling to confirm (TORCH_COMPILE_DISABLE=1, or no "
        "torch.compile / `--torch_compile`); TORCHDYNAMO_VERBOSE=1 and TORCH_LOGS=+dynamo "
        "show where it failed; under DDP, torch._dynamo.config.optimize_ddp = False compiles "
        "without DDP's graph splitting (DDPOptimizer), a frequent source; compile a smaller "
        "part, mark the failing function with torch.compiler.disable, try another torch "
        "release, or report the minified repro (TORCHDYNAMO_REPRO_AFTER=dynamo).",
        # Dynamo that logs a graph break's or a frame's failure and runs it eagerly instead
        # (TORCH_LOGS=+dynamo, suppress_errors): what it raised there did not end the run
        not_after=(r"WON'T CONVERT \w+", r"break_graph_if_unsupported triggered compile"),
        not_before=(r"CUDA error: |CUDA out of memory|OutOfMemoryError|NCCL error",),
        fixtures=("user_code_error__kohya_ss_1687_compile_ddpoptimizer_higher_order_op.log",),
    ),
    Rule(
        name="spawn_target_not_in_a_module",
        category="user_code_error",
        code="LX810",
        # above the user's exception (LX511), which leaves exceptions raised in spawn's
        # _main to the parent's death: this one is the script's, on every start
        priority=81,
        retryable=False,
        # a spawned child (mp.spawn, xmp.spawn, spawn-context DataLoader workers) unpickles
        # its target by name from the main module and does not find it there
        # in the main module of a notebook or an interactive session (Python 3.12 names
        # its importer), or in the script's, run as __mp_main__ in the child, when the
        # target is defined under its `if __name__ == "__main__":` (a script that unpickles
        # a file naming the script's classes has a __main__ "from" a file: not this)
        patterns=(
            r"AttributeError: Can't get attribute '[^']+' on <module '(?:__main__' \((?:built-in"
            r"|<class '_frozen_importlib\.BuiltinImporter'>)\)|__mp_main__' )",
        ),
        cause="a process started with the spawn start method looks its target function (or "
        "a class it was given) up by name in the main module and it is not there: the "
        "parent is a notebook or an interactive session, whose definitions a fresh "
        "interpreter cannot import, or the function is defined inside "
        "if __name__ == '__main__': or another function; every start fails the same way.",
        fix="define the function (and the classes passed to it) at the top level of a .py "
        "module and import it from the notebook, or run the training as a script (torchrun "
        "or `launchx run` start each rank as a fresh interpreter that imports it).",
        fixtures=(
            "user_code_error__tutorials_1742_ddp_pipeline_spawn_notebook.log",
            "user_code_error__xla_2750.log",
        ),
    ),
    Rule(
        name="spawn_main_not_guarded",
        category="user_code_error",
        code="LX648",
        # above the user's exception (LX511): the same RuntimeError, with the fix in it; a
        # logger may print the message without its class (mteb's "Error while evaluating")
        priority=81,
        retryable=False,
        patterns=(
            r"current process has finished its bootstrapping phase",
            # the same message's last lines, when a paste or a logger cut its first ones
            r'The "freeze_support\(\)" line can be omitted if the program',
        ),
        cause="a process started with the spawn start method (DataLoader workers with "
        "multiprocessing_context='spawn', mp.spawn, a multi-GPU encode pool, any process on "
        "macOS or Windows) imports the main script again, and the script starts its processes "
        "at import time, outside an if __name__ == '__main__': block: Python's multiprocessing "
        "refuses, on every start.",
        fix="move the script's top-level code into a main() called under "
        "if __name__ == '__main__': main(); torchrun and `launchx run` start ranks as fresh "
        "interpreters, so each rank runs main() once and its spawned helpers do not.",
        fixtures=(
            "user_code_error__llm2vec_140_mteb_multigpu_spawn_bootstrap.log",
            "user_code_error__sentence_transformers_2331_encode_multi_process_spawn_main.log",
            "user_code_error__mteb_1052.log",
        ),
    ),
    Rule(
        name="ddp_module_not_on_one_gpu",
        category="user_code_error",
        code="LX655",
        # above the user's exception (LX511): the same ValueError, with its reason; read
        # wherever it sits in the line (a message pasted after the reporter's own words)
        priority=81,
        retryable=False,
        patterns=(
            r"DistributedDataParallel device_ids and output_device arguments only work with "
            r"single-device",
        ),
        cause="DistributedDataParallel was given device_ids for a model whose parameters "
        "are not all on that one GPU: still on the CPU (the model was wrapped before "
        ".to(device)), or spread over several GPUs (device_map='auto', a model split by "
        "hand); every rank stops there, on every start.",
        fix="move the model to the rank's GPU before wrapping it: model.to(f'cuda:{local_rank}') "
        "then DDP(model, device_ids=[local_rank]) (LOCAL_RANK is in the environment under "
        "torchrun and `launchx run`); a model split over GPUs is wrapped without device_ids, "
        "and one process per GPU needs no device_map='auto'.",
        fixtures=(
            "user_code_error__openstereo_278_ddp_module_on_cpu.log",
            "user_code_error__chatglm6b_finetuning_11_ddp_model_split_two_gpus.log",
        ),
    ),
    Rule(
        name="hydra_instantiate_error",
        category="user_code_error",
        code="LX653",
        # below the rules that read the wrapped exception's repr on the next line (a CUDA,
        # NCCL or socket error: 55 and up), above the timeouts (54 and below; a timeout
        # yields to any other error of its tier whatever the numbers)
        priority=54,
        retryable=False,
        patterns=(
            # Hydra prints the exception as its repr on the next line (TypeError("..."))
            r"^Error in call to target '[\w.]+':",
            r"^Error locating target '[\w.]+'",
        ),
        cause="Hydra could not build an object the config names (hydra.utils.instantiate): "
        "importing its _target_ failed, or calling it raised (the exception follows, as "
        "TypeError(...) for an argument the installed library does not take); every rank "
        "builds the same config, so every start fails the same way.",
        fix="set HYDRA_FULL_ERROR=1 for the whole traceback; check the config's _target_ "
        "and its arguments against the installed library version (pin the version the "
        "config was written for).",
        fixtures=("user_code_error__diffusion_29_composer_rank3_unet_dual_cross_attention.log",),
    ),
    Rule(
        name="fp16_loss_scale_exhausted",
        category="user_code_error",
        code="LX668",
        # above LX511, which reads the same words when a framework raises them: the numbers
        # went bad, which says more than that an exception was raised
        priority=81,
        retryable=False,
        patterns=(
            # DeepSpeed's fp16 loss scaler, after every step overflowed down to min_loss_scale
            r"Current loss scale already at minimum - cannot decrease scale anymore\. Exiting run",
        ),
        cause="the training diverged in fp16: every step overflowed (Inf or NaN gradients) "
        "until DeepSpeed's dynamic loss scale reached its minimum, so it stopped the run. The "
        "same data, weights and settings overflow at the same step again.",
        fix="train in bf16 instead of fp16 (DeepSpeed: bf16.enabled true, fp16.enabled false), "
        "the precision most large models are trained in; or lower the learning rate, lengthen "
        "the warm-up and clip gradients, and resume from a checkpoint saved before the loss "
        "spiked.",
        fixtures=("user_code_error__llamafactory_251_baichuan13b_ds_loss_scale_min_launcher.log",),
    ),
    Rule(
        name="megatron_nan_check",
        category="user_code_error",
        code="LX672",
        priority=81,
        # not retried on the log's word (its category's default), but once a checkpoint
        # exists: a NaN that a rerun does not reproduce is a faulty GPU's, and Megatron's own
        # protocol is to save a checkpoint, exit 16 and be restarted on other hardware
        on_progress=True,
        patterns=(
            # its assertion before the gradient all-reduce (older releases), and its rerun
            # state machine's report, raised or logged, which names the rank
            r"^[\w.]*(?:Error|Exception): Rank (?P<rank>\d+): found (?:NaN|Inf) in local ",
            r"\bRank (?P<rank>\d+), node \S+, device \d+, iteration -?\d+: Unexpected result "
            r"\S+ \(message='found (?:NaN|Inf) in local ",
            r"\bUnexpected result \S+ on rank (?P<rank>\d+) at iteration #\d+ invocation #\d+ "
            r"\(message='found (?:NaN|Inf) in local ",
            r"\bfound (?:NaN|Inf) in local (?:grad norm|forward loss)\b",
        ),
        cause="Megatron's check found a NaN or Inf in this rank's loss or gradients before the "
        "gradient all-reduce: the training diverged, a library or kernel produced it (NaN in "
        "the first steps after an upgrade), or the GPU computed wrongly. Its rerun state "
        "machine tells them apart by rerunning the step: a result it cannot reproduce is "
        "reported as a transient (hardware) error; a reproduced one saves a checkpoint and "
        "exits with code 16 to be restarted on other GPUs, and only a NaN that follows the "
        "data there is the model's (Megatron then stops with code 17, failed validation).",
        fix="keep rerun_mode at validate_results and let the job restart on exit code 16 (a "
        "second failure at the same step on other GPUs is the model's); for a real "
        "divergence lower the learning rate, clip gradients or skip the batch from the last "
        "checkpoint; for NaN from the first steps after an upgrade (Transformer Engine, "
        "cuDNN, torch), pin the previous version; drain a GPU it names twice.",
        fixtures=(
            "user_code_error__megatron_lm_5026_ci_moe_nan_grad_norm.log",
            "user_code_error__pai_megatron_patch_366_llama3_70b_4node_nan_grad.log",
        ),
    ),
    Rule(
        name="collective_mismatch",
        category="user_code_error",
        code="LX670",
        # above LX511, which reads the same words when torch raises them as a RuntimeError; a
        # framework may log them without the class ("Error in ...compute_loss: Detected ...")
        priority=81,
        retryable=False,
        patterns=(
            r"\bDetected mismatch between collectives on ranks\b",
            # NCCL's own word when it tears a communicator down with a peer's collectives
            # not matching (the rank it names is where to look, not the one that failed)
            r"NCCL WARN Your program may be hanging, this may be caused by a collective "
            r"mismatch around rank \d+",
        ),
        cause="TORCH_DISTRIBUTED_DEBUG=DETAIL's check (or NCCL) found the ranks at the same "
        "point of their collectives calling different ones, or the same one with different "
        "tensor shapes, dtypes or devices: the script's control flow or data differs across "
        "ranks (a branch only some ranks take, inputs of different lengths, a rank that "
        "skipped a step); the same data does it again.",
        fix="compare the two fingerprints in the message (sequence number, op type, shapes): "
        "make every rank issue the same collectives in the same order with the same shapes "
        "(pad variable-length inputs before a broadcast or all_gather, keep rank-0-only work "
        "such as saving, logging and evaluation away from code that calls collectives).",
        fixtures=(
            "user_code_error__spa_vl_rlhf_2_reward_broadcast_shape_mismatch.log",
            "user_code_error__lightning_19680_allgather_collective_mismatch.log",
            "user_code_error__lightning_8214_nccl_collective_mismatch_after_val.log",
        ),
    ),
    Rule(
        name="nccl_dtype_unsupported",
        category="user_code_error",
        code="LX671",
        # LX511 leaves out every line naming NCCL; this one is the script's tensors
        priority=80,
        retryable=False,
        patterns=(r"Input tensor data type is not supported for NCCL process group: \w+",),
        cause="a collective (or DDP's gradient buckets) got a tensor whose dtype this torch "
        "and NCCL cannot send (complex numbers, int16 and the wider unsigned integers, "
        "float8, float4 or quantized types, bfloat16 on old releases); every step fails the "
        "same way.",
        fix="cast around the collective: torch.view_as_real for complex tensors, .to("
        "torch.int32) or .float() for small integers, and for a broadcast, send or gather "
        "of float8 or packed data .view(torch.uint8) and back (not for a reduction); or keep "
        "such tensors out of DDP's parameters and buffers; for bfloat16, a torch and NCCL "
        "recent enough to reduce it.",
        fixtures=("user_code_error__pytorch_99518_complexfloat_nccl_unsupported.log",),
    ),
    Rule(
        name="torch_load_weights_only_refused",
        category="user_code_error",
        code="LX780",
        # above the UnpicklingError line that carries it (LX511), whose message spans many
        # lines: a paste often keeps only its middle or its last line
        priority=81,
        retryable=False,
        patterns=(
            # torch.load since 2.6 (weights_only=True by default) refusing a pickle that holds
            # more than tensors and plain containers: the message's first line, the
            # unpickler's reason and its closing pointer to the docs
            r"UnpicklingError: Weights only load failed\.",
            r"^Weights only load failed\.",
            r"WeightsUnpickler error: Unsupported (?:global|operand)\b",
            r"^Check the documentation of torch\.load to learn more about types accepted by "
            r"default with weights_only",
        ),
        cause="torch.load refused the checkpoint under weights_only=True (the default since "
        "torch 2.6, or passed by the library that loads it), which unpickles only tensors "
        "and plain containers. 'Unsupported global: GLOBAL <name>' says the file also holds "
        "another object (numpy arrays or scalars, an argparse Namespace, a config or model "
        "class). 'Unsupported operand <N>' with a printable character's code (118 'v' from a "
        "Git LFS pointer, 60 '<' from an HTML page) says the file is not a checkpoint at "
        "all; with another code (149: FRAME) it was pickled with protocol 4 or later, which "
        "only the full unpickler reads. Every load of it fails the same way.",
        fix="a file from a trusted source (an unsupported global, or a newer pickle "
        "protocol): pass weights_only=False to the torch.load that failed, or allowlist the "
        "class with torch.serialization.add_safe_globals([...]); a library's own load needs "
        "a release that does so (or torch<2.6 where it relies on the old default). A file "
        "that is not a checkpoint: look at its first bytes (`head -c 200 <file>`) and fetch "
        "the real one (git lfs pull, a complete download).",
        fixtures=(
            "user_code_error__protogcn_13_weights_only_load.log",
            "user_code_error__monai_research_contributions_411_auto3dseg_torch26_weights_only.log",
            "user_code_error__ms_swift_5808.log",
            "user_code_error__qwen_vl_series_finetune_185.log",
        ),
    ),
    Rule(
        name="device_map_auto_under_launcher",
        category="user_code_error",
        code="LX781",
        # above the ValueError line that carries it (LX511): a paste often keeps only the
        # message, without its exception's name
        priority=81,
        retryable=False,
        patterns=(
            # accelerate's prepare() refusing a model that from_pretrained spread over several
            # devices (hf_device_map) while it runs one process per GPU; not a source line
            # quoting it in a comment
            r"^\s*(?:ValueError: )?You can't train a model that has been loaded with "
            r"`?device_map='auto'`? in any distributed mode",
        ),
        cause="the model was loaded with device_map='auto' (spread over every GPU the process "
        "sees) and then handed to accelerate's prepare() (the Trainer's, TRL's, a script's) "
        "in any distributed mode, which accelerate refuses: with several processes each "
        "would train its own copy split over all the GPUs the others use, and a DeepSpeed or "
        "FSDP configuration counts even with one process. It fails the same way on every "
        "start.",
        fix="with one process per GPU (accelerate launch, torchrun, deepspeed), load the model "
        "on the process's own GPU: device_map={'': int(os.environ['LOCAL_RANK'])} or no "
        "device_map at all; to split one model over the GPUs instead, run a single plain "
        "process (python, or accelerate launch --num_processes 1 without a DeepSpeed or FSDP "
        "configuration).",
        fixtures=(
            "user_code_error__qwen_936.log",
            "user_code_error__lerobot_2270_smolvla_device_map_auto_multi_gpu.log",
            "user_code_error__ms_swift_1538_device_map_auto_multinode.log",
        ),
    ),
    Rule(
        name="fsdp_param_storage_freed",
        category="user_code_error",
        code="LX785",
        # above the RuntimeError line that carries it (LX511), which a paste often drops
        priority=81,
        retryable=False,
        patterns=(
            # c10's check in a tensor's data_ptr() (TensorImpl.h) when its storage holds no
            # memory: under FSDP, a flattened parameter between forwards
            r"The tensor has a non-zero number of elements, but its data is not allocated yet",
        ),
        cause="the code read a tensor whose memory was never allocated or was freed. Under "
        "FSDP this is a sharded module's parameter used outside the module's forward: FSDP "
        "frees the full parameters after each forward, so generate() on the wrapped model, "
        "another model sharing its weights, or code reading .weight directly finds them "
        "empty (TRL's PPO and GRPO under an FSDP configuration, an evaluation hook). Under "
        "torch.compile or export it is a custom kernel traced with fake tensors (the newer "
        "message says so). It fails the same way on every run.",
        fix="go through the root FSDP module's forward, or generate inside `with "
        "FSDP.summon_full_params(model, recurse=False, writeback=False):` with "
        "generate(..., synced_gpus=True), so that every rank gathers the nested modules' "
        "parameters in step; use_orig_params=True does not help (outside forward its "
        "parameters are shards); for generation during RL training use the trainer's "
        "supported setting (DeepSpeed ZeRO-3 or a separate inference engine); under "
        "torch.compile, register the custom kernel as a custom op (torch.library) with a fake "
        "implementation.",
        fixtures=(
            "user_code_error__trl_316_fsdp_ppo_generate_caffe2.log",
            "user_code_error__trl_2796_grpo_fsdp_caffe2_lazy_allocation.log",
        ),
    ),
    Rule(
        name="megatron_checkpoint_state_missing",
        category="user_code_error",
        code="LX782",
        # the script's exception tier (LX511): rank 0 prints it and the ranks exit, so no
        # exception line follows
        priority=80,
        retryable=False,
        patterns=(
            # load_checkpoint of Megatron-LM and the codebases copied from it (Megatron-
            # DeepSpeed, GLM, SwissArmyTransformer, whose message says "optimizer" for
            # the random state) when the checkpoint lacks what the flags ask it to restore
            r"Unable to load (?:optimizer|rng state|random state)(?: from checkpoint\b.*?)?[.,] "
            r"(?:exiting\b|Specify --no-load-(?:optim|rng) or --finetune)",
        ),
        # not a source line that prints it (a traceback's frame quotes the call)
        exclude=(r"['\"]Unable to load ",),
        # copies that print the message and load on (GLM's, old DeepSpeedExamples'): the
        # load's own success line follows it
        not_before=(r"\bsuccessfully loaded ",),
        cause="the training script's load_checkpoint (Megatron-LM's, or a codebase built on it) "
        "found no optimizer or random-number state in the checkpoint it resumes from, which its "
        "flags ask it to restore, and exits: a checkpoint saved without them (--no-save-optim, "
        "--no-save-rng), released weights, or one converted from another format. Every start "
        "from it stops the same way.",
        fix="to start a new run from those weights, add --finetune (weights only, iteration 0; "
        "SwissArmyTransformer: --mode finetune); to resume without the missing state, add "
        "--no-load-optim or --no-load-rng as the message names; or point --load at a "
        "checkpoint the training itself saved.",
        fixtures=(
            "user_code_error__visualglm_92_unable_to_load_optimizer.log",
            "user_code_error__sat_137_load_rng_tracker_states.log",
        ),
    ),
    Rule(
        name="dataparallel_replica_exception",
        category="user_code_error",
        code="LX783",
        # a symptom's tier: the replica's own exception line, where the paste kept it, says
        # more (LX511, a CUDA error's LX512, the replica's OOM's LX509)
        priority=45,
        retryable=False,
        patterns=(
            # nn.DataParallel re-raising in the main thread what one replica's thread raised
            # (torch._utils.ExceptionWrapper); a paste often keeps this first line of the
            # message and the replica's traceback, but not the exception at its end
            # (not an OOM, LX509's, nor torch 2.8's AcceleratorError, which carries a CUDA
            # error; StopIteration is next() on a replica's empty parameters)
            r"^Caught (?!OutOfMemoryError\b|AcceleratorError\b)(?:[A-Za-z_]\w*\.)*"
            r"(?:[A-Z]\w*(?:Error|Exception)|StopIteration) in replica \d+ on device \d+\.?$",
        ),
        cause="nn.DataParallel ran the model on each GPU in a thread, and the model's forward "
        "raised on one replica: usually the model's code assumes one device (a tensor created "
        "on cuda:0 or the CPU, a buffer not registered, a batch too small to split), which "
        "fails the same way on every run.",
        fix="read the replica's traceback below this line to its last frame; run with one GPU "
        "(CUDA_VISIBLE_DEVICES=0) to get the plain traceback; create tensors on the input's "
        "device (x.device) and register buffers; or move to DistributedDataParallel with one "
        "process per GPU (`launchx run`).",
        fixtures=("user_code_error__faster_voxelpose_24_dataparallel_replica1.log",),
    ),
    Rule(
        name="fsdp_training_state_assert",
        category="user_code_error",
        code="LX777",
        # above the ValueError line that carries it (LX511): FSDP prints the message on its
        # own line (rank 0) before raising, and a paste often keeps only that
        priority=81,
        retryable=False,
        patterns=(
            # FSDP's check of where it is in forward and backward (torch's
            # _assert_in_training_states, fairscale's and ColossalAI's assert_state)
            # (torch 1.11-1.13 named its enum TrainingState_)
            r"expected to be in states \[?<?\w*TrainingState_?\.\w+.* but current state is "
            r"\w*TrainingState_?\.\w+",
        ),
        cause="FSDP found itself in the wrong phase of forward and backward (waiting for a "
        "backward that had not run, or running one when idle): its hooks saw an order it does "
        "not support, such as reentrant activation checkpointing around FSDP units (the "
        "recomputed forward runs inside backward), a second forward before the first one's "
        "backward, or a submodule called outside the root's forward; it fails the same way on "
        "every run.",
        fix="use non-reentrant checkpointing (torch.utils.checkpoint(..., use_reentrant="
        "False), or apply_activation_checkpointing inside the FSDP units; fairseq: "
        "--checkpoint-activations with --ddp-backend fully_sharded only as its docs pair "
        "them), run every forward's backward before the next forward, and call submodules "
        "only through the wrapped model.",
        fixtures=("user_code_error__fairseq_3353_fsdp_training_state_idle.log",),
    ),
    Rule(
        name="fsdp_wrap_class_missing",
        category="user_code_error",
        code="LX678",
        # above the exception's general readings (LX511, LX656, LX674), which its line also
        # matches
        priority=81,
        retryable=False,
        # transformers' Trainer and accelerate's FSDP plugin, when the auto-wrap policy names
        # a layer class the model does not have: a bare Exception in older releases, a
        # ValueError naming the class in newer ones
        patterns=(r"Could not find the transformer layer class (?:to wrap|\S+) in the model",),
        cause="FSDP's transformer auto-wrap policy names a layer class that the model does "
        "not contain (fsdp_transformer_layer_cls_to_wrap, or the model's _no_split_modules "
        "when none is given): a class of another architecture (BertLayer for an "
        "XLM-RoBERTa model, LlamaDecoderLayer for MPT).",
        fix="set fsdp_transformer_layer_cls_to_wrap (the accelerate config, or "
        "--fsdp_transformer_layer_cls_to_wrap / fsdp_config in TrainingArguments) to the "
        "class name of the model's repeated block, as print(model) shows it (e.g. "
        "XLMRobertaLayer, MPTBlock, Qwen2DecoderLayer); the same config fails the same way "
        "again.",
        fixtures=(
            "user_code_error__bcembedding_66_fsdp_bertlayer_wrap.log",
            "user_code_error__llava_114_mpt_fsdp_wrap_class.log",
        ),
    ),
    Rule(
        name="hydra_config_composition",
        category="user_code_error",
        code="LX689",
        # above the exception lines of the same traceback (LX511: omegaconf's cause, chained
        # under Hydra's when HYDRA_FULL_ERROR=1)
        priority=81,
        retryable=False,
        patterns=(
            # Hydra composes the config before the task runs and, without HYDRA_FULL_ERROR,
            # prints only its message (the offending key on the lines below), no exception
            r"(?:^|ConfigCompositionException: )Error merging '[^']+' with schema$",
            r"(?:^|ConfigCompositionException: )Error merging override \S",
            # a config group option that is not there (a plugin not installed: Hydra's
            # submitit launcher) or a primary config missing from the search path
            r"(?:^|MissingConfigException: )In '[^']+': Could not (?:find|load) '[^']+'",
            r"(?:^|MissingConfigException: )Cannot find primary config '[^']+'",
            # an override of a key the config does not have (Hydra's message, then
            # OmegaConf's for a struct config, each alone on its line without HYDRA_FULL_ERROR)
            r"(?:^|ConfigCompositionException: )Could not override '[^']+'\."
            r"(?: No match in the defaults list\.)?$",
            r"^Key '[^']+' is not in struct$",
        ),
        # (a logger's warning that quotes them and goes on; not the words "skip" or
        # "ignore", which a key may hold)
        exclude=(WARNED_LINE,),
        cause="Hydra could not compose the run's configuration, so the script never started "
        "on this rank: a key the structured config's schema lacks or an override whose value "
        "OmegaConf cannot merge (the lines under it name the key), a config group option "
        "that is not there (a Hydra plugin not installed, such as hydra-submitit-launcher for "
        "hydra/launcher=submitit_*), or a primary config missing from the search path (a "
        "wrong config_path or config_name, a working directory the relative path does not "
        "start from). A launcher that starts the other ranks with the script's own command "
        "line (Lightning's DDP under Hydra) fails there too, and the ranks that did start "
        "wait for them.",
        fix="fix the key, the override or the option Hydra names (rerun with "
        "HYDRA_FULL_ERROR=1 for the whole traceback); install the plugin a hydra/launcher or "
        "hydra/sweeper option needs (pip install hydra-submitit-launcher); check config_path "
        "against the directory the ranks start in; when only the ranks a launcher started "
        "fail, compare their command line with the first rank's.",
        fixtures=(
            "user_code_error__lightning_15545.log",
            "user_code_error__midway_network_1.log",
            "user_code_error__ttrl_24_hydra_reward_kwargs_not_in_struct.log",
        ),
    ),
    Rule(
        name="storage_full",
        category="user_code_error",
        code="LX691",
        # above the exception line that carries it (LX511): the errno names the cause
        priority=81,
        retryable=False,
        patterns=(
            r"\[Errno 28\] No space left on device",
            r"\[Errno 122\] Disk quota exceeded",
            # torch's own writer (torch.save of a checkpoint)
            r"\bwrite\(\): fd \d+ failed with (?:No space left on device|Disk quota exceeded)",
            # the kubelet evicting a pod for the local disk it may fill (pkg/kubelet/eviction:
            # the pod's ephemeral-storage limit, a container's, an emptyDir volume's sizeLimit;
            # not the node's disk pressure, which other pods may have caused)
            r"Pod ephemeral local storage usage exceeds the total limit of containers \S",
            r"Container \S+ exceeded its local ephemeral storage limit \"",
            r"Usage of EmptyDir volume \"[^\"]*\" exceeds the limit \"",
        ),
        exclude=NOT_THE_DISK,
        not_raised_in=NOT_THE_DISKS_FRAMES,
        cause="a write found the disk full or the user's quota spent (checkpoints, a dataset "
        "or model cache, logs), or the kubelet evicted the pod for writing more to its "
        "container's own disk than its ephemeral-storage limit: the run's own code and data "
        "are not at fault, but the same run fills the same disk again.",
        fix="check the path in the traceback: free space and quota where checkpoints, caches "
        "(HF_HOME, TRITON_CACHE_DIR, TORCH_EXTENSIONS_DIR) and logs are written (df -h, "
        "quota -s); keep fewer checkpoints (save_total_limit) or write them elsewhere, then "
        "resume from the last complete one; on Kubernetes write them to a mounted volume "
        "(a PersistentVolumeClaim) rather than the container's filesystem, or raise the "
        "pod's resources.limits.ephemeral-storage.",
        fixtures=(
            "user_code_error__ms_swift_3551_dataset_cache_disk_full.log",
            "user_code_error__substratus_92_k8s_evicted_ephemeral_storage.log",
        ),
    ),
    Rule(
        name="storage_io_error",
        category="user_code_error",
        code="LX692",
        priority=81,
        # a mount that failed for a while or a file replaced underneath: a rerun from a
        # complete checkpoint may pass, one that fails again without progress stops (no
        # retryable=False, which would make the log's word final)
        on_progress=True,
        patterns=(
            r"\[Errno 5\] Input/output error",
            r"\[Errno 116\] Stale (?:NFS )?file handle",
            # torch's own reader and writer (torch.load/torch.save on NFS)
            r"\b(?:read|write)\(\): fd \d+ failed with (?:Input/output error|Stale (?:NFS )?"
            r"file handle)",
        ),
        exclude=NOT_THE_DISK,
        not_raised_in=NOT_THE_DISKS_FRAMES,
        cause="the filesystem failed a read or a write: an I/O error on a network or parallel "
        "filesystem (NFS, Lustre, a FUSE mount of object storage), or an NFS handle made stale "
        "because another node replaced or deleted the file while it was open (a cache or a "
        "checkpoint written by several ranks at once); the run's own code is not at fault.",
        fix="check the mount on every node (dmesg, the filesystem's own tools) and which "
        "ranks write the path in the traceback: write checkpoints from one rank or per-rank "
        "files and keep caches (HF_HOME, TRITON_CACHE_DIR) on local disk; launchx retries it "
        "from the last complete checkpoint, and stops when it comes back without progress.",
        fixtures=(
            "user_code_error__slime_326.log",
            "user_code_error__llamafactory_3243_stale_file_handle_oneline.log",
        ),
    ),
    Rule(
        name="extension_build_failed",
        category="user_code_error",
        code="LX688",
        # above the exception lines that carry it (LX511): the build is the cause
        priority=81,
        retryable=False,
        patterns=(
            # torch.utils.cpp_extension's JIT build (DeepSpeed's op builder, a project's own
            # CUDA ops), as ninja ends it and as torch reports it
            r"^ninja: build stopped: subcommand failed\.$",
            r"CalledProcessError: Command '\['ninja', '-v'",
            r"RuntimeError: Error building extension '[\w.-]+'",
            # Megatron-core's dataset index helpers (helpers.cpp), built with make by rank 0
            # at start-up: it logs this and exits
            r"Failed to compile the C\+\+ dataset helper functions\s*$",
            # ... and the older megatron/data/dataset_utils.py (Megatron-LM before core,
            # Megatron-DeepSpeed and their forks)
            r"Making C\+\+ dataset helpers module failed, exiting",
        ),
        # torch's JIT build at start-up, not a pip/setup.py build of the same tools (pip
        # reports those under its own words a few lines on)
        not_before=(
            r"Error compiling objects for extension|Failed building wheel"
            r"|subprocess-exited-with-error",
        ),
        cause="a C++/CUDA extension compiled when the run starts (DeepSpeed's fused_adam or "
        "cpu_adam, a project's own CUDA ops, through torch.utils.cpp_extension) failed to "
        "build: the compiler's first error is above it (an nvcc older or newer than torch's "
        "CUDA, a missing CUDA_HOME or header, a gcc nvcc does not accept); every rank, and "
        "every rerun, builds it the same way; Megatron's dataset helpers are built with make "
        "and g++ against pybind11 the same way.",
        fix="read the first 'error' line of the compiler output above (for Megatron's dataset "
        "helpers, make's: their directory needs its Makefile, g++, pybind11 and "
        "python3-config from python3-dev, or build them once ahead with make there); make "
        "`nvcc --version` match python -c 'import torch; print(torch.version.cuda)' (set "
        "CUDA_HOME to that toolkit) and install a gcc it supports; a compiler killed for "
        "memory ends the same way (MAX_JOBS=4); or build the ops ahead, once "
        "(DS_BUILD_FUSED_ADAM=1 DS_BUILD_CPU_ADAM=1 pip install --no-cache-dir deepspeed), "
        "and clear ~/.cache/torch_extensions (TORCH_EXTENSIONS_DIR) of a half-built copy "
        "before the next launch.",
        fixtures=(
            "user_code_error__deepspeed_6912.log",
            "user_code_error__qwen_697_fused_adam_build_torchrun.log",
            "user_code_error__galvatron_12_dataset_helpers_no_makefile.log",
        ),
    ),
    Rule(
        name="deepspeed_mpi_discovery_failed",
        category="user_code_error",
        code="LX766",
        priority=81,
        retryable=False,
        patterns=(
            # deepspeed.init_distributed missing any of the launcher's variables falls back to
            # asking MPI and runs `hostname -I` (utils/distributed.py, comm/comm.py:
            # mpi_discovery) for the master's address: a hostname without -I (macOS, Arch's
            # inetutils) exits 64
            r"CalledProcessError: Command '\['hostname -I'\]' returned non-zero exit status",
        ),
        # DeepSpeed's, not another project's copy of the same call
        context=(r'deepspeed[/\\]\S+\.py", line \d+, in mpi_discovery$',),
        cause="DeepSpeed did not find all of the launcher's variables (RANK, LOCAL_RANK, "
        "WORLD_SIZE, MASTER_ADDR, MASTER_PORT) and fell back to discovering the job through "
        "MPI (mpi4py), whose rank 0 runs `hostname -I` to find its own address; this "
        "system's hostname has no -I option (macOS, GNU inetutils; exit status 127: no "
        "hostname command at all), so deepspeed.initialize stopped before any process "
        "group; it fails the same way on every start.",
        fix="start the script through a launcher that sets the variables (`launchx run`, "
        "torchrun, the deepspeed command) instead of plain python, or set RANK, "
        "LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT for a single process; or "
        "install a hostname that knows -I (Debian's hostname package).",
        fixtures=("user_code_error__deepspeed_826_mpi_discovery_hostname_flag.log",),
    ),
    Rule(
        name="fused_kernels_not_installed",
        category="user_code_error",
        code="LX760",
        # GPT-NeoX's start-up check, which prints this and exits: no exception line follows
        priority=81,
        retryable=False,
        patterns=(
            # megatron/fused_kernels/__init__.py, older ("not installed ... setup.py install")
            # and newer ("not properly installed ... pip install"), as printed: not the
            # f-string's source line that a traceback through the check may show
            r"^(?!\s*f?[\"'])(?:.*\W)?Fused kernels configured but not (?:properly )?"
            r"installed\. Please run `",
        ),
        cause="GPT-NeoX is configured to use its fused CUDA kernels (scaled_upper_triang_"
        "masked_softmax_fusion, scaled_masked_softmax_fusion or rope_fusion) but the "
        "extension is not importable in this Python: it was never built, or built into "
        "another environment; every start stops at the same check.",
        fix="build the kernels into the environment the launcher's ranks use (`pip install "
        "megatron/fused_kernels` from the repository's root, or, in older versions, `python "
        "megatron/fused_kernels/setup.py install`) with a CUDA toolkit that matches torch, "
        "or set the fusion options to false in the config.",
        fixtures=("user_code_error__gpt_neox_610_fused_kernels_not_installed.log",),
    ),
    Rule(
        name="sharded_tensor_access_pattern",
        category="user_code_error",
        code="LX761",
        # above the CheckpointingException that carries it (LX511): the validation's own
        # line names the tensor
        priority=81,
        retryable=False,
        patterns=(
            # megatron.core.dist_checkpointing.validation: logged, then raised with the same
            # words, when the ranks' shards of one key do not cover it exactly once, or when
            # no rank holds some shards of a ShardedObject
            r"\bInvalid access pattern for ShardedTensor\(key=",
            r"\bInvalid access pattern: \d+ ShardedObject are missing\b",
        ),
        cause="Megatron's distributed checkpoint found that the ranks' shards of one tensor "
        "do not cover it exactly once (a replicated tensor declared as sharded, a replica_id "
        "or axis fragmentation wrong in a model's sharded_state_dict, a key produced by "
        "only some layers or stages): the checkpoint's layout is wrong for this parallel "
        "configuration, and every save or load validates it the same way.",
        fix="fix the sharded_state_dict of the module whose key the line names (give a "
        "replicated parameter replica_id over the data- and tensor-parallel ranks, or its "
        "right axis fragmentations); until then, save with the parallel sizes that work "
        "(tensor parallel 1 for a new module) or with --ckpt-format torch.",
        fixtures=("user_code_error__megatron_lm_1234.log",),
    ),
    Rule(
        name="zero3_low_cpu_mem_usage",
        category="user_code_error",
        code="LX762",
        # above the ValueError that carries it (LX511), which ranks writing one terminal
        # often leave glued to another line or cut off
        priority=81,
        retryable=False,
        patterns=(
            # transformers' from_pretrained under a ZeRO-3 config (HfDeepSpeedConfig or the
            # Trainer's): the message as the exception line carries it, alone on its line or
            # glued to a progress bar, not a script's comment quoting it; newer transformers
            # (check_and_set_device_map) names the device_map alone
            r"^(?!\s*#).*?DeepSpeed Zero-3 is not compatible with (?:`low_cpu_mem_usage=True` "
            r"or with )?passing a `device_map`",
        ),
        cause="from_pretrained was called with a device_map (or, in older transformers, "
        "low_cpu_mem_usage=True) while DeepSpeed ZeRO-3 is on: transformers builds the model "
        "partitioned under zero.Init then, and refuses to place it itself; every rank and "
        "every start raises the same ValueError.",
        fix="drop device_map and low_cpu_mem_usage=True from from_pretrained when the "
        "DeepSpeed config's zero_optimization.stage is 3 (ZeRO-3 places the weights itself), "
        "or train with ZeRO stage 2 if the model must be spread by device_map.",
        fixtures=("user_code_error__chinese_llama_alpaca_465.log",),
    ),
    Rule(
        name="zero3_param_not_available",
        category="user_code_error",
        code="LX771",
        # above the exception that carries it (LX511): ranks that fail at once glue the
        # assertion's source line and its AssertionError to each other's output
        priority=81,
        retryable=False,
        patterns=(
            # DeepSpeed's partitioned parameter coordinator: reset_step finding gathers still
            # under way at a step's end, and fetch_sub_module's assertion on a parameter that
            # is being gathered or was never gathered (its source line, and the summary the
            # assertion prints)
            r"still have inflight params",
            r"assert param\.ds_status == ZeroParamStatus\.AVAILABLE\b",
            r"AssertionError: \{'id': \d+, 'status': '(?:INFLIGHT|NOT_AVAILABLE)'",
        ),
        cause="DeepSpeed ZeRO-3 gathers each parameter before the submodule that uses it runs, "
        "prefetching in the order it traced in the first step; a model that runs its "
        "submodules in another order (generation, a vision tower or other module called "
        "outside the wrapped forward, branches that differ between steps) used a parameter "
        "still being gathered (INFLIGHT) or never gathered (NOT_AVAILABLE), or ended a step "
        "with gathers still in flight. It fails the same way at the same step on every run.",
        fix='set "stage3_prefetch_bucket_size": 0 in zero_optimization (nothing is fetched '
        "ahead of the submodule that needs it), upgrade DeepSpeed (releases since mid-2023 "
        "fixed parameters left in flight between training and generation), call the model's "
        "submodules only from inside its forward, or train this model with ZeRO stage 2.",
        fixtures=(
            "user_code_error__deepspeed_3647.log",
            "user_code_error__deepspeed_3156_mplug_owl2_inflight_assert.log",
            "user_code_error__mmvp_26_zero3_inflight_finetune.log",
            "user_code_error__qwen_vl_103.log",
        ),
    ),
    Rule(
        name="script_crlf_line_endings",
        category="user_code_error",
        code="LX772",
        # above the launcher's summary and the script's errors that follow (the stray
        # carriage return shifts every argument): the shell's own line names the cause
        priority=86,
        retryable=False,
        patterns=(
            # bash running a CRLF script: an empty line is a command named $'\r' (its Chinese
            # locale too, with a full-width colon)
            r"\$'\\r'(?::|\uff1a) ?(?:command not found|\u672a\u627e\u5230\u547d\u4ee4)",
            # the kernel reading "#!/bin/bash\r" as the interpreter's name, and env doing so
            # for "#!/usr/bin/env bash\r"
            r"\^M: bad interpreter: No such file or directory",
            r"env: [\u2018'][\w.+-]+\\r[\u2019']: No such file or directory",
            # dash's message for the same line, and Python's for a script path ending in the
            # carriage return, each overwritten from its start by the text after it
            r"^: not found\S*\.sh: \d+:",
            # ... and dash's as a raw log holds it, split at the carriage return
            r"^: not found$",
            # ... and env's for "#!/usr/bin/env bash\r" in releases that print the name
            # unquoted ("/usr/bin/env: bash\r: No such file or directory"), the line
            # overwritten from its start by the words after the carriage return
            r"^: No such file or directory$",
            r"^': \[Errno 2\] No such file or directory",
            # the Trainer's parser left with a lone carriage return as an argument
            r"arguments are not used by the HfArgumentParser: \[(?:'[^']*', )*'\\r'\]",
        ),
        cause="the shell script that starts training was saved with Windows line endings "
        "(CRLF): the shell reads each carriage return as part of the line, so blank lines "
        "become a command named $'\\r', the backslashes that should join lines no longer do, "
        "and the last argument on each line carries a stray \\r (a config path that does not "
        "exist, a flag the parser rejects); every run fails the same way.",
        fix="convert the script to Unix line endings (dos2unix SCRIPT, or sed -i 's/\\r$//' "
        "SCRIPT) and keep git from converting it back on Windows (git config core.autocrlf "
        "input, or '*.sh text eol=lf' in .gitattributes).",
        fixtures=(
            "user_code_error__streaming_video_model_3_crlf_dist_train.log",
            "user_code_error__mmdet_7876_dist_train_sh_crlf.log",
            "user_code_error__llava_mod_16.log",
            "user_code_error__deformable_detr_47_slurm_script_no_such_file.log",
        ),
    ),
    Rule(
        name="script_line_continuation_lost",
        category="user_code_error",
        code="LX773",
        # below a script saved with CRLF (LX772), which breaks its continuations the same way
        # and says so; above the launcher's summary and the script's argument errors that
        # follow (the command ran without the flags)
        priority=85,
        retryable=False,
        patterns=(
            # bash (line N) and dash (: N:) running a line that starts with an option
            # (the digit before ": " is the line number both print: bash's "line N", dash's
            # ": N"; the pattern starts at ": " so that the search can skip to it)
            r": (?<=\d: )--?[A-Za-z][\w.-]*(?:=\S*)?: (?:command )?not found\b",
        ),
        cause="the shell script that starts training ran a line beginning with an option as a "
        "command of its own: the line above does not end in the backslash that continues a "
        "command (it was left out, a space or a carriage return follows it, the script being "
        "saved with Windows line endings, or a comment line sits inside the command), so the "
        "launch ran without the options after it and the shell then tried to run them; every "
        "run does the same.",
        fix="end every line of the command but the last with a backslash and nothing after it "
        "(no space, no comment), and keep comment lines out of the middle of the command; "
        "for a script saved on Windows, convert it (dos2unix SCRIPT); `bash -n SCRIPT` checks "
        "the syntax, `bash -x SCRIPT` shows the command as it runs.",
        fixtures=("user_code_error__llamafactory_468_missing_backslash_deepspeed_arg.log",),
    ),
    Rule(
        name="ddp_without_trainable_params",
        category="user_code_error",
        code="LX774",
        # above the exception line that carries it (LX511), which pastes often quote or cut
        priority=81,
        retryable=False,
        patterns=(
            # DDP's constructor check (torch 1.2 and later) ...
            r"DistributedDataParallel is not needed when a module doesn't have any parameter "
            r"that requires a gradient",
            # ... and the reducer's assertion that stood for it before (torch 1.0-1.1)
            r"replicas_\[0\]\.size\(\) >= 1 ASSERT FAILED",
        ),
        cause="DistributedDataParallel was asked to wrap a module none of whose parameters "
        "require a gradient (a frozen network used only for a loss, such as VGG for a "
        "perceptual loss, a teacher, an encoder frozen with the rest, or a model whose "
        "trainable adapters were not added yet), so it has no gradient to average and "
        "refuses; every start fails the same way.",
        fix="wrap only the modules that train: move frozen ones to the rank's device without "
        "DDP (and keep them in eval mode); check that something trains after freezing "
        "(sum(p.numel() for p in model.parameters() if p.requires_grad) > 0) before "
        "wrapping.",
        fixtures=(
            "user_code_error__sd_finetune_94_ddp_no_grad_params.log",
            "user_code_error__real_sr_7_ddp_frozen_vgg.log",
            "user_code_error__basicsr_199_esrgan_ddp_vgg_replicas_assert.log",
        ),
    ),
    Rule(
        name="deepspeed_config_mismatch",
        category="user_code_error",
        code="LX763",
        # above the ValueError that carries it (LX511): its list of values names the fix,
        # and a paste often keeps the list without the exception's own line
        priority=81,
        retryable=False,
        patterns=(
            # transformers' HfTrainerDeepSpeedConfig and accelerate's DeepSpeedPlugin
            # comparing the DeepSpeed JSON with the trainer's own arguments (accelerate's
            # with two spaces before "values")
            r"Please correct the following DeepSpeed config values that mismatch "
            r"(?:TrainingArguments|kwargs) +values",
            # ... and accelerate finding an "auto" it has nothing to fill from, or an
            # accelerate config that sets what the DeepSpeed JSON file must set
            r"not found in kwargs\. Please specify `[\w.]+` without `auto`",
            r"When using `deepspeed_config_file`, the following accelerate config variables "
            r"will be ignored",
        ),
        cause="the DeepSpeed config given to the Hugging Face Trainer or accelerate disagrees "
        "with the run's own arguments (batch size, gradient accumulation, learning rate, "
        "warm-up steps, mixed precision), or leaves a value 'auto' that nothing can fill (a "
        "bucket size from a model without config.hidden_size); the check stops every start "
        "the same way.",
        fix="set the listed DeepSpeed values to 'auto' so that the trainer fills them from "
        "its arguments, or make both sides equal (train_batch_size = micro batch x gradient "
        "accumulation x world size); give an 'auto' that cannot be filled a number of its "
        "own in the JSON; with deepspeed_config_file, set gradient accumulation, clipping, "
        "ZeRO stage, offload and mixed precision in that file, not in the accelerate "
        "config.",
        fixtures=(
            "user_code_error__hendrycks_apps_9_ds_hf_mismatch.log",
            "user_code_error__accelerate_2295_auto_reduce_bucket_size.log",
        ),
    ),
    Rule(
        name="bare_exception_raised",
        category="user_code_error",
        code="LX656",
        priority=80,
        retryable=False,
        # a bare Exception (no Error or Exception in its own name, which LX511 reads) is
        # the script's only where its traceback shows the raise, or a task runner reports
        # the task failed (dask's "Compute Failed"): a script prints "Exception: ..." itself
        # for errors it skips; (old torch.multiprocessing.spawn's "Exception:" with nothing
        # after it announces the traceback below, which the launcher rules read); rich's
        # traceback (accelerate, transformers' scripts) closes its frames' box just above
        patterns=(r"^Exception: \S",),
        context=(r"^\s*raise Exception\b", r"\bCompute Failed\b", r"^\s*╰─+╯\s*$"),
        cause="the training script (or a library it calls) raised a bare Exception on this "
        "rank; the other ranks' errors (connection closed, timeouts) are its consequence.",
        fix="fix the script at the traceback shown for this rank; retrying would run the "
        "same code into the same error.",
        fixtures=(
            "user_code_error__dask_pytorch_ddp_17_compute_failed_assertion.log",
            "user_code_error__firefly_32.log",
        ),
    ),
    Rule(
        name="fsdp_mixed_flat_params",
        category="user_code_error",
        code="LX789",
        # above LX511, whose ValueError line this is, to name the fix; a paste may wrap or
        # quote the words alone
        priority=81,
        retryable=False,
        patterns=(
            # FSDP1's FlatParamHandle (torch/distributed/fsdp/_flat_param.py): one wrap unit's
            # parameters must share a dtype, and a requires_grad unless use_orig_params=True
            # (which older releases said of the FlatParameter)
            r"Must flatten tensors with uniform (?:dtype|`requires_grad`)",
            r"`FlatParameter` requires uniform `requires_grad`",
        ),
        cause="FSDP (its first version) flattens each wrap unit's parameters into one tensor, "
        "and they must share one dtype (and one requires_grad): a unit mixes bf16 and fp32 "
        "parameters (LoRA adapters or modules a model keeps in fp32, 4-bit weights), or "
        "frozen and trained ones; every run fails while the model is wrapped.",
        fix="cast the model to one dtype before wrapping (`model.to(torch.bfloat16)`, PEFT's "
        "autocast_adapter_dtype=False) and let FSDP's MixedPrecision policy choose the "
        "compute dtype; for frozen parameters set use_orig_params=True (accelerate's "
        "fsdp_use_orig_params); or move to FSDP2 (fully_shard), which shards each parameter "
        "on its own.",
        fixtures=(
            "user_code_error__llamafactory_7993_gemma3_fsdp_uniform_dtype.log",
            "user_code_error__dpo_90_peft_fsdp_uniform_dtype.log",
            "user_code_error__flan_alpaca_10.log",
        ),
    ),
    Rule(
        name="pickle_not_the_same_object",
        category="user_code_error",
        code="LX795",
        # above LX511, whose PicklingError line this is, to name the fix; a framework may log
        # the words without the class ("Task failed: Can't pickle ...")
        priority=81,
        retryable=False,
        patterns=(
            # pickle saves a function or class by its module and name, and checks that the
            # name still leads to the same object
            r"Can't pickle <(?:function|class) [^>]+>: it's not the same object as \S+",
        ),
        cause="an object sent to another process (mp.spawn's or ddp_spawn's arguments, a "
        "DataLoader worker's dataset, a Ray task) holds a function or class that pickle "
        "saves by its module and name, and that name now leads to another object: the "
        "function was wrapped or replaced after it was defined (a decorator, a patch such "
        "as Lightning's double precision wrapping training_step), or its module was loaded "
        "twice under two names (a file imported by path); it fails on every start.",
        fix="define the function at module level in an importable module and do not rebind "
        "its name (wrap it under another name); load a custom module by its import name, "
        "not by path; with Lightning, strategy='ddp' (torchrun-style processes) instead of "
        "ddp_spawn pickles nothing of the model.",
        fixtures=(
            "user_code_error__lightning_6893_ddp_spawn_double_precision_pickle.log",
            "user_code_error__verl_3150_prime_reward_pickle.log",
        ),
    ),
    Rule(
        name="text_not_utf8",
        category="user_code_error",
        code="LX796",
        # above LX511, whose UnicodeDecodeError line this is, to name the fix; the words may be
        # logged without the class ("Error while fetching sample from memmap: ...")
        priority=81,
        retryable=False,
        patterns=(
            r"'utf-?8' codec can't decode bytes? (?:0x[0-9a-fA-F]{2}|in position)[^:]*: "
            r"(?:invalid (?:start|continuation) byte|unexpected end of data)",
        ),
        # a loader that reports the file it skips and goes on
        exclude=(r"(?i)\bskip(?:ping|ped)?\b",),
        cause="a file read as UTF-8 text is not UTF-8: a binary file (a .npy, a checkpoint, "
        "an image) where text was expected, a text file written in another encoding (GBK, "
        "Latin-1, UTF-16), or a file cut in the middle of a character; the same sample "
        "fails on every run.",
        fix="find the file the traceback reads (`file <path>` names its type); convert it "
        "(iconv -f gbk -t utf-8 in > out) or open it with its encoding; a dataset built by "
        "hand must match the loader's format (NeMo's text memmap reads JSONL text, not "
        ".npy).",
        fixtures=("user_code_error__mlcommons_v40_8_llama2_memmap_utf8.log",),
    ),
    Rule(
        name="operator_without_backend_kernel",
        category="user_code_error",
        code="LX797",
        # above LX511, whose NotImplementedError line this is, to name the fix; a platform's
        # error reporter may log the words without the class
        priority=81,
        retryable=False,
        patterns=(
            # c10's dispatcher; a terminal's wrapping may break the operator's name with
            # spaces ("'ate     n::_amp_...'"), so the name is anything but a quote
            r"Could not run '[^']+' with arguments from the '\w+' backend",
        ),
        exclude=(GOES_ON,),
        cause="an operator was called on tensors of a device (or layout) it has no kernel "
        "for: a tensor left on the CPU where the operator runs only on the GPU (CPU offload "
        "with a GPU-only step such as the AMP scaler's unscale), a sparse, quantized or meta "
        "tensor, or an extension's operator built without that device's kernels; the same "
        "call fails on every run.",
        fix="the line names the operator and the backend it was called with: move the "
        "tensors to a device it supports, or use the variant for that device (FSDP's "
        "ShardedGradScaler with CPU offload, no fp16 scaler on CPU gradients); for an "
        "extension's operator (torchvision::nms on 'CUDA'), reinstall the extension built "
        "for this torch and CUDA (matching torch and torchvision wheels from one index).",
        fixtures=("user_code_error__pytorch_111650_fsdp_cpu_offload_sharded_grad_scaler.log",),
    ),
    Rule(
        name="zero3_mixed_dtype_partitions",
        category="user_code_error",
        code="LX799",
        # above LX511, whose bare AssertionError this is; the source line Python prints under
        # the frame is all that names it (the assertion has no message)
        priority=81,
        retryable=False,
        patterns=(r"assert len\(set\(t\.dtype for t in tensors\)\) == 1",),
        # DeepSpeed's defragment (stage3.py, zero/utils.py in later releases), not torch's
        # nested tensors, whose jagged_from_list asserts the same words (a paste may cut the
        # frame line above DeepSpeed's to a bare path, so its frame is not required)
        not_raised_in=(r'nested[/\\]_internal[/\\]nested_tensor\.py", line \d+, in \w+$',),
        cause="DeepSpeed ZeRO-3 found parameters of more than one dtype in one group when it "
        "defragments its partitions: trainable parameters of more than one dtype (LoRA "
        "weights or a new head in float32 beside a bf16 base, a value head cast "
        "differently); the same step fails on every run.",
        fix="cast every trainable parameter to the dtype the DeepSpeed config trains in: "
        "LoRA adapters and modules_to_save created in float32 beside a bf16 base "
        "(model.to(torch.bfloat16) after adding them, or torch_dtype= matching bf16/fp16 in "
        "the config); DeepSpeed leaves parameters without requires_grad out of its groups, "
        "so the mix is among the trained ones.",
        fixtures=("user_code_error__trl_1770_kto_zero3_defragment_dtype.log",),
    ),
    Rule(
        name="checkpoint_recompute_mismatch",
        category="user_code_error",
        code="LX798",
        # above LX511, whose CheckpointError line this is, to name the fix; the tip line is
        # printed only by that error, and a log may keep the tip without the class
        priority=81,
        retryable=False,
        patterns=(
            r"torch\.utils\.checkpoint: (?:Recomputed values for the following tensors have "
            r"different metadata|A different number of tensors was saved during the original "
            r"forward and recomputation|trying to save more tensors during recomputation)",
            r"To see a more detailed error message, either pass `debug=True` to",
        ),
        cause="activation checkpointing recomputed the forward pass and got different tensors "
        "than the first time: parameters gathered or partitioned differently between the two "
        "passes (ZeRO-3 or FSDP with frozen or shared parameters), randomness or control flow "
        "that changes between them, or torch.compile around a checkpointed block; it repeats "
        "on every run.",
        fix="try the other checkpoint implementation (gradient_checkpointing_kwargs="
        "{'use_reentrant': True} or False), upgrade DeepSpeed/accelerate to a release that "
        "gathers ZeRO-3's partitioned parameters for the recompute, and rerun once with "
        "debug=True passed to torch.utils.checkpoint.checkpoint (or the step inside `with "
        "torch.utils.checkpoint.set_checkpoint_debug_enabled(True):`) to see which operator "
        "differs.",
        fixtures=("user_code_error__deepspeed_8148_zero3_ac_frozen_params.log",),
    ),
    Rule(
        name="fsdp_module_deepcopy",
        category="user_code_error",
        code="LX793",
        # above LX511, whose AssertionError line this is, to name the fix; a framework may log
        # the words under its own message ("Failed to save EMA weights: ...")
        priority=81,
        retryable=False,
        patterns=(
            # FSDP2's fully_shard (and SimpleFSDP, YaFSDP after it) replaces the module's
            # __deepcopy__ with one that raises: copy.deepcopy of a sharded model (an EMA or a
            # teacher copy made after wrapping)
            r"\b(?:Ya)?FSDP does not support deepcopy\. Please use state dict for serialization",
        ),
        cause="the script deep-copied a model already sharded by FSDP2's fully_shard (an EMA, "
        "a reference or teacher model copied after wrapping): its parameters are DTensor "
        "shards tied to the process group, so FSDP refuses the copy, on every run.",
        fix="make the copy before fully_shard and shard it on its own, or keep the copy as a "
        "state dict (get_model_state_dict(..., options=StateDictOptions(full_state_dict=True, "
        "cpu_offload=True)) from torch.distributed.checkpoint.state_dict) and update it from "
        "the sharded model's state dict.",
        fixtures=("user_code_error__fastvideo_915_fsdp_ema_deepcopy.log",),
    ),
    Rule(
        name="collective_tensor_device",
        category="user_code_error",
        code="LX787",
        # above LX511, whose exception line this is, to name the device; a paste may quote
        # the check's words alone
        priority=81,
        retryable=False,
        patterns=(
            # ProcessGroupNCCL's check of each tensor it is given (a CPU or sparse tensor), as
            # the exception line, alone or quoted
            r"(?:^|Error: |[“\"'`])Tensors? must be CUDA and dense\b",
            # c10d's ProcessGroup (torch 2.0 on) finding no backend of the group for the
            # tensor's device: a CPU tensor in an NCCL-only group, an XPU or NPU tensor in a
            # group without that device's backend
            r"(?:^|Error: |[“\"'`])No backend type associated with device type \w+",
        ),
        cause="a collective was given a tensor on a device the process group's backend "
        "cannot reach: a CPU tensor handed to NCCL (a metric, loss, buffer or optimizer "
        "step left on the CPU, or a framework's tuner or logger reducing one), or an "
        "accelerator's tensor in a group created without its backend; every run hits it "
        "at the same call.",
        fix="move the tensor to this rank's device before the collective "
        "(`t.to(torch.cuda.current_device())`, `device=self.device` in Lightning), or "
        "create the group with a backend per device (`init_process_group(backend="
        "'cpu:gloo,cuda:nccl')`) where CPU tensors must be reduced too.",
        fixtures=(
            "user_code_error__lightning_19611_lr_find_two_gpu_cuda_dense.log",
            "user_code_error__powerbev_7_tensors_not_cuda_ddp_broadcast.log",
            "user_code_error__unsloth_zoo_129_broadcast_cpu_backend.log",
        ),
    ),
    Rule(
        name="user_exception",
        category="user_code_error",
        code="LX511",
        priority=80,
        patterns=(
            # (pdsh interleaving two ranks' writes pads the colon: "AssertionError    : ...";
            # not a table of metrics: "MeanSquaredError     : 0.0421")
            rf"{EXCEPTION_LINE}(?::| +:(?! *(?:[-+\d.eE]+%?|nan|inf) *$)|$)",
            # ranks writing one terminal glue one's exception class to another's line: to
            # its end, after a message's closing quote or a call's bracket
            # ("...: '/x/run.log'FileNotFoundError"), or to its start, before a traceback
            # frame or a source line ("FileNotFoundError  File ...")
            rf"['\")\]]{EXCEPTION_LINE[1:]} *$",
            rf"{EXCEPTION_LINE}(?: {{2,}}(?=File \"|assert |raise )|(?=assert |raise ))",
            # pytest's short test summary ("FAILED path::test[id] - AssertionError: ...")
            r"^FAILED \S+::\S+ - (?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception):",
            # a reporter's or a harness's words around the exception ("An error occurred: X",
            # "Error message: `X: ...`", a dash for the colon; a Markdown list item's marker
            # is the line reader's to drop)
            r"^(?:An error occurred|Error message): `?(?:[A-Za-z_]\w*\.)*[A-Z]\w*"
            r"(?:Error|Exception)(?::| [\u2013-] )",
            # SageMaker's failure reason, which quotes the script's exception line under
            # its own (UnexpectedStatusException, not the script's)
            r'^ErrorMessage "(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): ',
            # the one exception class a script dies of without either word: next() on an
            # exhausted data iterator, outside a generator
            r"^StopIteration(?::|$)",
            # torch.distributed.rpc's thread pool logging the Python exception a remote call
            # raised in a task, which prints no exception line of its own ("[E
            # thread_pool.cpp:112] Exception in thread pool task: TypeError: ..."; an
            # INTERNAL ASSERT there is torch's, LX684)
            r"^Exception in thread pool task: (?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): ",
            # a library's own base class named "Error" or "error" in its module, and zipfile's
            # BadZipFile; not an attribute's annotation in a source line ("self.error: str =
            # None"); Python 2's socket.error is a connection's (the exclusions below)
            rf"^(?!(?:self|cls)\.){MODULE_ERROR}: (?!.* = )",
            # pydantic's link under each error of a ValidationError, which a config check
            # raises: the errors are listed over many lines under the exception's own
            r"^For further information visit https://errors\.pydantic\.dev/",
            # Ray re-raising a remote task's exception at the driver names the worker's class
            # in brackets, often after a progress bar on the same line and with the worker's
            # own exception line cut from a paste: the classes Python code raises (a
            # RuntimeError may be NCCL's or CUDA's, an ImportError a native library's), and
            # pickle's UnpicklingError, a file the script loads that is not a pickle (a
            # Git LFS pointer, a truncated checkpoint), a module the worker's environment
            # lacks and a file or cache it may not write; as a notebook shows it, in the
            # header IPython puts over the traceback
            r"\bRayTaskError\((?:builtins\.)?(?:Index|Key|Value|Type|Attribute|Assertion"
            r"|ZeroDivision|Name|NotImplemented|UnboundLocal|FileNotFound|Unpickling"
            r"|ModuleNotFound|Permission)Error\)(?:: ray::| {2,}Traceback \(most recent call "
            r"last\))",
        ),
        exclude=(
            *NOT_THE_SCRIPTS,
            INTERNAL_ASSERT_LINE,
            HIVEMIND_NO_GROUP,
            WANDB_INIT_FAILED,
            # torch's multi-process test harness (MultiProcessTestCase's _check_return_codes)
            # reporting that its ranks exited badly: each rank's own exception, where the
            # log holds it, is the cause
            r"^RuntimeError: Process(?:es)? \d+(?:,? \d+)* (?:exited with error code -?\d+"
            r"|terminated or timed out after )",
            r"^AssertionError: .*\bExpected (?:zero )?exit code (?:-?\d+ )?but got -?\d+",
            # ... through torch's TestCase.assertEqual of two exit codes, in torch 1.x's own
            # words with its default tolerance and no message
            r"^AssertionError: -?\d+ not less than or equal to 1e-05 : ?$",
            # an EOFError with no message: multiprocessing's pipe read finding the other end
            # closed (an environment worker, a task sampler, a queue's feeder went away),
            # whose own error, where the log holds it, is the cause; the script's reads of a
            # file raise it with one ("Ran out of input"); alone, or glued to the line above
            # by a logger's wrap put back together
            r"^EOFError$",
            r"['\")\]]EOFError *$",
        ),
        # an exception raised in multiprocessing's spawn _main itself, where the child reads
        # its arguments from the parent ("EOFError: Ran out of input"): the parent died, the
        # child never ran the script (the script's own errors are raised in deeper frames)
        # and an error in a logging handler (the stream or file it writes to failed)
        not_raised_in=(
            r'multiprocessing[/\\]spawn\.py", line \d+, in _main$',
            LOGGING_HANDLER_FRAME,
            # torch's own multi-process test harness comparing its ranks' exit codes (older
            # test_distributed's _join_and_reduce, common_distributed's _check_return_codes;
            # through TestCase.assertEqual, its message above), and its CI runner's
            # "RuntimeError: test_distributed failed!" after it: a rank's own error, where
            # the log holds it, is the cause
            r'", line \d+, in (?:_check_return_codes|_join_and_reduce)$',
            r'\btest[/\\]run_test\.py", line \d+, in main$',
            # horovodrun's static launch, which raises when it cannot start the workers
            # ("could not connect to some hosts via ssh": LX586 reads why) (not its elastic
            # driver, whose own errors are its bugs)
            r'horovod[/\\]runner[/\\]launch\.py", line \d+, in \w+$',
        ),
        cause="the training script raised an exception on this rank; the other ranks' errors "
        "(connection closed, timeouts) are the consequence.",
        fix="fix the script at the traceback shown for this rank; retrying would run the same "
        "code into the same error.",
        fixtures=(
            "user_code_error__pixelsplat_112_slurm_nodeid.log",
            "user_code_error__lightning_20409_sagemaker_smddp_reduceop.log",
            "user_code_error__transformerlens_356_multi_gpu_tests_assert.log",
            "user_code_error__pytorch_92573_unknown_c10d_backend_mpi.log",
            "user_code_error__verl_4503_vllm_symm_mem_overlapping_devices_ray.log",
            "user_code_error__axolotl_2791_chat_template_pydantic.log",
            "user_code_error__ms_swift_4644.log",
            "user_code_error__hllm_30.log",
            "user_code_error__llamafactory_1860.log",
            "user_code_error__easyr1_24_indexerror_compute_log_probs.log",
            "user_code_error__thunder_368_te_fsdp_unboundlocal.log",
            "user_code_error__deepspeed_5267_mii_replicas.log",
            "user_code_error__stylegan2_320_lmdb_no_such_file.log",
            "user_code_error__miles_66_save_model_unpickling.log",
            "user_code_error__fairscale_173_pipe_eval_rpc.log",
        ),
    ),
    Rule(
        name="torch_internal_assert",
        category="user_code_error",
        code="LX684",
        # the script's exception rule's own priority (LX511 leaves these lines to this rule):
        # an exception printed earlier still comes first
        priority=80,
        retryable=False,
        # TORCH_INTERNAL_ASSERT's text (c10/util/Exception.h; torch 1.6 and older left the
        # file unquoted) on an exception line, or logged by the RPC thread pool ("[E
        # thread_pool.cpp:N] Exception in thread pool task: ..."), which prints no Python
        # exception line; not a warning or a compiler's note that quotes one
        patterns=(
            INTERNAL_ASSERT_LINE,
            # the assert macro of torch's own sources in old releases (0.4: "torch/csrc/...cpp:
            # 115: get_grad_fn: Assertion `output_nr == 0` failed."), raised as an exception;
            # glibc's assert(), which names the whole C++ signature and aborts, is a native
            # crash's (LX579)
            r"\b(?:torch/csrc|aten/src|c10)/\S+\.(?:cpp|h|cu|cuh):\d+: [^:]+: Assertion `.+[`'] "
            r"failed\.",
        ),
        exclude=NOT_THE_SCRIPTS,
        cause="one of torch's own consistency checks failed (TORCH_INTERNAL_ASSERT: 'please "
        "report a bug to PyTorch'): the run reached a state torch's code does not expect, a "
        "bug of that torch release or a use it does not check for properly (the text after "
        "the assertion often says which); it usually comes back on the same code path.",
        fix="read the text after 'please report a bug to PyTorch.', which often names the "
        "misuse (e.g. 'Current RPC agent is not set!': call rpc.init_rpc first); search "
        "torch's issue tracker for the assertion's condition and its file:line; try another "
        "torch release.",
        fixtures=(
            "user_code_error__pytorch_53717_rpc_userrref_device_map_assert.log",
            "user_code_error__espnet_279_pytorch_backend_multigpu_get_grad_fn_assert.log",
        ),
    ),
    Rule(
        name="exception_quoted_in_a_line",
        category="user_code_error",
        code="LX803",
        # the lowest of the causes, below the script's own exception line (LX511): a line
        # that only quotes one may sit beside any other failure
        priority=50,
        retryable=False,
        patterns=(
            # a reporter quoting the exception in a sentence that says it is one ("I get an
            # error like \"[rank2]: NotImplementedError: Cannot copy ...\""), or a paste whose
            # line breaks were lost, the traceback and its exception line run into one: the
            # classes only Python code raises, after a space or an opening quote, with the
            # message after (not after a time stamp's digits: a prefix the line reader does
            # not peel)
            # (two ranks writing the same line at once double the class and its colon:
            # "AttributeErrorAttributeError: : 'X' object ...")
            r"(?i:\berror\b|\btraceback\b).*?(?<=[\s\"'`(:])(?<!\d )(?:builtins\.)?"
            rf"(?:{PYTHON_ONLY_ERRORS})?{PYTHON_ONLY_ERRORS}(?:: )?: \S",
            # ... and that doubled form anywhere in a line, which says it without the word
            rf"(?<=[\s\"'`(:])(?:builtins\.)?{PYTHON_ONLY_ERRORS}{PYTHON_ONLY_ERRORS}: : \S",
        ),
        exclude=WENT_ON,
        cause="the script raised an exception (the line quotes it: a reporter's sentence, or a "
        "paste whose line breaks were lost); the other ranks' errors are the consequence.",
        fix="fix the script where that exception was raised (the full traceback names the "
        "frame); retrying would run the same code into the same error.",
        fixtures=(
            "user_code_error__qwen_vl_series_finetune_7_meta_tensor_zero3_qlora.log",
            "user_code_error__diffusers_8477_consistency_ddp_config.log",
            "user_code_error__easyr1_44_dataproto_equal_chunk_6_gpus.log",
            "user_code_error__fastchat_1458_zero3_hf_deepspeed_config_orig.log",
            "user_code_error__sd_scripts_1019_sdxl_ti_ddp_text_model.log",
        ),
    ),
    Rule(
        name="python_error_logged_without_class",
        category="user_code_error",
        code="LX802",
        # the lowest of the causes: any other failure the log shows is read before this
        priority=50,
        retryable=False,
        # CPython's own messages for a call or an unpacking that does not fit, which only
        # Python code raises (TypeError, ValueError), on a line a framework's logger or error
        # handler wrote with the message but not the class ("[ERROR] - [rank: 0] Exception
        # caught: not enough values to unpack ...")
        patterns=(
            rf"{LOGGED_FAILURE}(?:not enough|too many) values to unpack \(expected \d+",
            rf"{LOGGED_FAILURE}\w+\(\) (?:got an unexpected keyword argument '\w+'"
            r"|missing \d+ required positional arguments?: "
            r"|takes \d+ positional arguments? but \d+ (?:were|was) given)",
        ),
        # (the exception's own line is LX511's)
        exclude=(EXCEPTION_LINE, *WENT_ON),
        cause="the script (or a library it calls) raised a Python error on this rank, which a "
        "logger reported by its message alone: a call with arguments the function does not "
        "take, or a value unpacked into the wrong number of names; the same code fails the "
        "same way on every run.",
        fix="find the call or the unpacking the message names (the logger's traceback, or "
        "the run again with the handler's re-raise) and fix it or the versions that disagree "
        "on the function's signature.",
        fixtures=("user_code_error__recsys_examples_187_dynamicemb_backward_unpack.log",),
    ),
    Rule(
        name="accelerate_deepspeed_several_models",
        category="user_code_error",
        code="LX809",
        # above the AssertionError line that carries it (LX511): the fix is accelerate's
        priority=81,
        retryable=False,
        # accelerate's _prepare_deepspeed, when prepare() is given two models (a UNet and the
        # text encoder it trains too, a policy and its reference) under one DeepSpeed config
        patterns=(
            r"You can't use same `?Accelerator\(\)`? instance with multiple models when using "
            r"DeepSpeed",
        ),
        cause="accelerate was asked to prepare more than one model for DeepSpeed with one "
        "Accelerator and one DeepSpeed config, which it does not do: one DeepSpeed engine "
        "wraps one model; the same configuration fails this way on every run.",
        fix="prepare one model for DeepSpeed: wrap the trained models in one nn.Module, or "
        "train only one (a frozen text encoder or reference model need not be prepared); "
        "recent accelerate releases can hold one DeepSpeed plugin per model (its guide to "
        "several models with DeepSpeed); or use DDP or FSDP, which take several models.",
        fixtures=("user_code_error__shivam_diffusers_241_deepspeed_multiple_models.log",),
    ),
    Rule(
        name="fsdp_forward_without_grad_fn",
        category="user_code_error",
        code="LX804",
        priority=81,
        retryable=False,
        # FSDP's _p_assert prints its message and the stack before it raises, so the words
        # stand on a line of their own (and the AssertionError may be cut from a paste)
        patterns=(
            r"The `grad_fn` is needed to access the `AccumulateGrad` and register the "
            r"post-backward hook",
        ),
        cause="FSDP could not register its post-backward hook: a forward ran with gradients "
        "off for its parameters' views (a forward under torch.inference_mode() earlier, an "
        "evaluation pass whose inference tensors FSDP kept, or a model with no trainable "
        "parameters in an FSDP unit), so the training forward after it has no grad_fn to "
        "hook; the same code fails the same way on every run.",
        fix="run evaluation under torch.no_grad() instead of torch.inference_mode() with FSDP "
        "(or call model.train() and run the training forward first), and make sure each FSDP "
        "unit that runs a training forward has parameters with requires_grad.",
        fixtures=(
            "user_code_error__pytorch_113203_fsdp_inference_mode.log",
            "user_code_error__litgpt_699_fsdp_grad_fn_assert.log",
        ),
    ),
    Rule(
        name="paste_ends_at_raise",
        category="user_code_error",
        code="LX674",
        # below the exception line's own reading (LX511) when the paste has one after all
        priority=79,
        retryable=False,
        # a traceback cut after its last frame: the source line raises an exception class
        # with a message written out, and nothing after it in the same log prints an
        # exception (the lines that were not pasted, or not flushed, held it)
        patterns=(
            # (the class Exception itself too; any string prefix, a triple-quoted message,
            # not an empty one)
            r"^\s*raise (?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception)|Exception)\("
            r"\s*(?:[rRbBuUfF]{1,2})?(?:\"{3}|'{3}|[\"'])(?![\"'])",
            # an assert statement with its message written out, which raises AssertionError:
            # the comma outside any bracket or string of the condition (not a tuple's or a
            # call's: assert mode in ("train", "val"))
            r"^\s*assert (?:[^\"'()\[\],]|\([^()]*\)|\[[^\[\]]*\])+, *(?:[rRbBuUfF]{1,2})?"
            r"(?:\"{3}|'{3}|[\"'])(?![\"'])",
        ),
        exclude=NOT_THE_SCRIPTS,
        # (also a bare Exception's line, its message on the next line when it starts with one)
        not_before=(EXCEPTION_LINE, r"^Exception:(?: |$)"),
        cause="a traceback ends at a raise statement of the script (or a library it calls), "
        "and the exception line that would follow it is not in the log (not pasted, or not "
        "flushed): the exception raised there, named with its message, stopped this rank.",
        fix="fix what the message on that line names (its frame above says where); retrying "
        "would run the same code into the same error.",
        fixtures=(
            "user_code_error__edvr_34_init_dist_context_already_set.log",
            "user_code_error__llamafactory_8323_no_valid_samples.log",
            "user_code_error__graphstorm_773_edge_split_none_no_training_data.log",
        ),
    ),
    Rule(
        name="accelerate_gather_shapes",
        category="user_code_error",
        code="LX675",
        # over LX511, which reads the same line with the frame above it (an earlier line)
        priority=81,
        retryable=False,
        # accelerate's check before a gather or reduce (verify_operation, when its debug
        # mode is on: ACCELERATE_DEBUG_MODE=1 or debug: true in the config): the ranks hold
        # tensors of different shapes, listed per process on the lines below
        patterns=(
            r"Cannot apply desired operation due to shape mismatches\.",
            # the message's own line naming the operation, which a paste keeps when the
            # exception's line above it is cut
            r"^Operation: `?accelerate\.utils\.operations\.\w+`?$",
        ),
        cause="accelerate refused a gather across processes because the ranks hold tensors of "
        "different shapes (listed per process under the message): outputs padded to each "
        "rank's own longest sequence, or the last batch of a loader that does not even out "
        "the ranks (even_batches=False, or one accelerate did not prepare); without the check "
        "the collective would hang or fail in NCCL.",
        fix="pad to one shape before gathering (accelerator.pad_across_processes(t, dim=1)), "
        "or gather Python objects instead of tensors (gather_object, or "
        "gather_for_metrics(..., use_gather_object=True) where the release has it); the same "
        "data fails the same way again.",
        fixtures=(
            "user_code_error__lighteval_204_mmlu_gather_shape_mismatch.log",
            "user_code_error__digirl_42_accelerate_broadcast_shapes.log",
        ),
    ),
    Rule(
        name="dataloader_worker_raised",
        category="user_code_error",
        code="LX673",
        # the bottom of the root causes' tier: the worker's own traceback follows the line,
        # and its exception (a CUDA error, a full /dev/shm) decides where it was kept; this
        # says only that the Dataset's code raised, which still outweighs another rank's
        # closed connection or timeout
        priority=50,
        retryable=False,
        patterns=(
            # under any exception class, a library's whose name ends in neither word too,
            # under its module's name ("zipfile.BadZipFile: Caught BadZipFile ...",
            # "cv2.error: Caught error ...")
            rf"(?:{EXCEPTION_LINE}|^(?:[A-Za-z_]\w*\.)+\w+): Caught (?:[A-Za-z_]\w*\.)*\w+ in "
            r"DataLoader worker process \d+",
            # ... and the loader's message alone, where a paste cut the class before it
            r"^(?:: )?Caught (?:[A-Za-z_]\w*\.)*\w+ in DataLoader worker process \d+",
        ),
        # (not a worker's fetch over the network that failed: a dataset streamed from a hub)
        exclude=(
            r"Caught \w*(?:Connect|Disconnect|Timeout|Socket|HTTP|URL|SSL|ChunkedEncoding"
            r"|IncompleteRead|ProtocolError|Remote)",
        ),
        cause="a DataLoader worker raised an exception in the Dataset's code (__getitem__, a "
        "transform, a collate function) and the loader re-raised it in the training process; "
        'its own traceback, under "Original Traceback", says which (an unreadable file, a '
        "sample of the wrong shape); the same sample fails the same way again.",
        fix="read the worker's traceback below the line; reproduce with num_workers=0 to get "
        "it directly; skip or repair the sample it names (a corrupt image, an empty text), or "
        "fix the transform.",
        fixtures=(
            "user_code_error__deit_76_mpirun_pil_cannot_identify_image.log",
            "user_code_error__sapcu_12_npz_badzip_crc_worker.log",
            "user_code_error__mmdet_10620_cv2_dataloader_worker.log",
        ),
    ),
    Rule(
        name="user_error_logged",
        category="user_code_error",
        code="LX646",
        # a symptom's tier, below every other reading: these words sit anywhere in a line,
        # and a wrapper that logs them may go on (a fallback path), so any other failure in
        # the log decides first
        priority=39,
        retryable=False,
        patterns=(
            # torch's errors for tensors whose shapes do not fit, quoted by a wrapper that
            # logs them without the class or by a reporter's sentence: a view or reshape, a
            # broadcast, a matmul, a cat
            r"\bshape '\[[-\d, ]*\]' is invalid for input of size \d+",
            r"\bThe size of tensor a \(\d+\) must match the size of tensor b \(\d+\) at "
            r"non-singleton dimension \d+",
            r"\bmat1 and mat2 shapes cannot be multiplied \(\d+x\d+ and \d+x\d+\)",
            r"\bSizes of tensors must match except in dimension \d+",
            # a framework's check of its parallel layout against the launched world, logged
            # without the class ("World size 2 must be divisible by the product of ...")
            r"\b[Ww]orld[ _]size \(?\d+\)? must be divisible by\b",
        ),
        # (not a warning: a wrapper that skips the failed item and goes on is read, as its
        # log's whole failure is often that item)
        exclude=(r"(?i)\bwarn|Warning:",),
        cause="the script (or its framework) logged one of torch's own errors without its "
        "exception line: tensors whose shapes do not fit (a reshape to a size the data does "
        "not have, a broadcast, a matmul or a cat of mismatched sizes: a model and its "
        "inputs or checkpoint that disagree), or a parallel layout whose degrees do not "
        "divide the number of ranks launched; nothing else in the log explains the failure "
        "better, and the same run fails the same way.",
        fix="for the reshape, check that the model, its config and its inputs agree (a "
        "processor or checkpoint of another model version); for the layout, launch a number "
        "of ranks that the product of the tensor, pipeline, context and data-parallel "
        "degrees divides, or change the degrees to fit the ranks.",
        fixtures=(
            "user_code_error__vlmevalkit_975_torchrun_qwen25vl_shape.log",
            "user_code_error__finetrainers_408_world_size_not_divisible_by_degrees.log",
            "user_code_error__autorecon_21_ddp_tensor_size.log",
        ),
    ),
    Rule(
        name="init_method_unknown_scheme",
        category="user_code_error",
        code="LX627",
        # above the user's exception rule (LX511), which leaves rendezvous words alone; a
        # build without tcp:// or env:// is LX770's
        priority=82,
        retryable=False,
        patterns=(r"No rendezvous handler for (?!tcp://|env://)[\w+.-]*://",),
        cause="init_process_group was given an init_method whose scheme torch does not know: "
        "'://' alone is an empty URL (a --dist-url or a variable that was never set, or "
        "pasted together from empty parts), anything else is a typo or a scheme this torch "
        "has no handler for; it fails on every rank before any communication, on every start.",
        fix="pass init_method='env://' under a launcher (MASTER_ADDR, MASTER_PORT, RANK and "
        "WORLD_SIZE come from it) or a full 'tcp://host:port'; print the URL the script builds "
        "before init_process_group to find the part that is empty.",
        fixtures=("user_code_error__swav_10_no_rendezvous_handler_colab.log",),
    ),
    Rule(
        name="http_request_failed",
        category="user_code_error",
        code="LX588",
        # above the user's exception rule (LX511), which names the same line without saying
        # what failed, and which leaves the "connection" lines to the network rules
        priority=82,
        patterns=(
            # the exception that ended the rank (not urllib3's or the Hub's warning that it
            # retries): requests/urllib3 wrapping the socket's error, transformers' message
            rf"{EXCEPTION_LINE}: \('Connection aborted\.', "
            r"(?:ConnectionResetError|RemoteDisconnected|BrokenPipeError|ConnectionRefusedError)",
            rf"{EXCEPTION_LINE}: .*HTTPS?ConnectionPool\(host='[^']*', "
            r"port=\d+\): Max retries exceeded with url",
            rf"{EXCEPTION_LINE}: We couldn't connect to 'https?://[^']*' to load\b",
            # huggingface_hub's LocalEntryNotFoundError: the Hub could not be reached and the
            # file is not in the cache either ("Connection error, and we cannot find ... in
            # the disk cache", later "An error happened while trying to locate the file on
            # the Hub and we cannot find ... in the local cache")
            rf"{EXCEPTION_LINE}: .*\bcannot find the requested files in the (?:disk|local) cache",
        ),
        exclude=(HTTP_RETRY_WARNING,),
        cause="the script's own HTTP request failed (a download from a model hub, a logger's "
        "or an API's call): the connection to a web server was refused, reset or never made, "
        "not a connection between ranks; one rank's failure took the others down.",
        fix="download what the script fetches before the run and read it from disk "
        "(huggingface-cli download ...; then HF_HUB_OFFLINE=1 and TRANSFORMERS_OFFLINE=1 in "
        "the profile's env), set HTTPS_PROXY where nodes reach the internet only through a "
        "proxy, or turn the online logger off (WANDB_MODE=offline).",
        fixtures=("user_code_error__fastchat_1951_finetune_connection_reset.log",),
    ),
    Rule(
        name="backend_lacks_operation",
        category="user_code_error",
        code="LX591",
        priority=82,
        retryable=False,
        patterns=(r"(?:ProcessGroup\w+|Backend \w+) does not support \w+",),
        cause="the script calls a collective that its process-group backend does not have in "
        "this torch (old PyTorch's ProcessGroupNCCL had no barrier, gather or scatter; older "
        "gloo had no reduce_scatter; a third-party backend lacks an operation): the call "
        "fails the same way on every run.",
        fix="upgrade torch (the operations missing from its backends were added release by "
        "release), use a backend that has the operation for these tensors (nccl for GPU "
        "tensors: init_process_group(backend='cpu:gloo,cuda:nccl')), or replace the call (a "
        "barrier by an all_reduce of a one-element tensor).",
        fixtures=("user_code_error__pytorch_17848_processgroupnccl_no_barrier.log",),
    ),
    Rule(
        name="launcher_environment_missing",
        category="user_code_error",
        code="LX583",
        priority=81,
        retryable=False,
        patterns=(
            r"Error initializing torch\.distributed using env:// rendezvous: environment "
            r"variable \w+ expected, but not set",
            r"^KeyError: '(?:LOCAL_RANK|RANK|WORLD_SIZE|LOCAL_WORLD_SIZE|MASTER_ADDR"
            r"|MASTER_PORT)'$",
            # the env:// handler's raise in its frame (rendezvous.py's _get_env_or_raise, which
            # raises only for a variable not set), where a paste stops before the exception
            r"^\s*raise _env_error\(env_var\)$",
        ),
        cause="the script reads the variables a launcher sets for each rank (RANK, LOCAL_RANK, "
        "WORLD_SIZE, MASTER_ADDR, MASTER_PORT), and nothing set them: it was started with "
        "plain python (or, before torch 1.9, with torch.distributed.launch without --use_env, "
        "which passed --local_rank instead of LOCAL_RANK); every start fails the same way.",
        fix="start it with `launchx run train.py` (or torchrun), which sets them for every "
        "rank; under SLURM use `launchx sbatch` or the slurm profile; a script that must "
        "also run alone can fall back (int(os.environ.get('LOCAL_RANK', 0))), as "
        "launchx.runtime.init_distributed() does.",
        fixtures=(
            "user_code_error__pytorch_39832_rpc_env_master_addr_not_set.log",
            "user_code_error__deeplogo2_4_master_addr_not_set_slurm.log",
        ),
    ),
    Rule(
        name="default_group_not_initialized",
        category="user_code_error",
        code="LX744",
        priority=81,
        retryable=False,
        patterns=(
            # distributed_c10d.py's _get_default_group (a RuntimeError in torch 1.x, a
            # ValueError in 2.x; the older "is not initialized" of its assertion and of c10d's
            # TORCH_CHECK), as the exception itself, its repr, or the raise line in its frame
            r"(?:Error|Exception)(?:: |\(['\"])Default process group (?:has not been|is not) "
            r"initialized",
            # deepspeed.comm's own check, called before deepspeed.init_distributed(): as the
            # exception, as a line alone (a paste of its message only) or as the assertion's
            # source line in its frame
            r"(?:^|(?:Error|Exception)(?:: |\(['\"])|\bis_initialized\(\), ['\"])DeepSpeed "
            r"backend not set, please initialize it using init_process_group\(\)",
            # a harness that caught it and reports that the task failed ("... combination
            # failed: Default process group ..."): the word "failed" is what makes it the end
            # of the work, not a notice that the script goes on alone
            r"\bfailed: Default process group (?:has not been|is not) initialized",
        ),
        # a warning that quotes the error it caught and went on
        exclude=(r"Warning\b|\bWARNING\b",),
        # the same error raised by a cleanup after another one ("During handling of the above
        # exception"): the first exception is the cause
        not_after=(r"^During handling of the above exception, another exception occurred:$",),
        cause="a torch.distributed call (a barrier, a collective, get_rank, DDP or a "
        "DistributedSampler) ran in a process that had not joined a process group: "
        "init_process_group was not called, or not yet, or the script saw no launcher's "
        "variables (RANK, WORLD_SIZE) and took its single-process path (an OpenMMLab script "
        "run without --launcher pytorch); a script that never calls it fails the same way on "
        "every start.",
        fix="start the script with `launchx run train.py` (or torchrun) and call "
        "launchx.runtime.init_distributed() (which also sets up a world of one when the "
        "script runs alone) or torch.distributed.init_process_group before the first "
        "collective; under DeepSpeed call deepspeed.init_distributed() first; code that must "
        "also run alone without either guards its collectives with "
        "torch.distributed.is_initialized().",
        fixtures=(
            "user_code_error__vlmevalkit_564.log",
            "user_code_error__nanogpt_289_default_pg_not_initialized.log",
            "user_code_error__yolox_1474_default_pg_not_initialized_driver_log.log",
            "user_code_error__pytorch_45117.log",
            "user_code_error__glm_111.log",
        ),
    ),
    Rule(
        name="default_group_initialized_twice",
        category="user_code_error",
        code="LX829",
        # above the script's exception (LX511), which reads the same line
        priority=81,
        retryable=False,
        patterns=(
            # distributed_c10d.py's init_process_group once a default group exists (a
            # RuntimeError in torch 1.x, a ValueError in 2.x), as the exception or its repr
            r"(?:Error|Exception)(?:: |\(['\"])trying to initialize the default process group "
            r"twice",
        ),
        cause="init_process_group ran a second time in a process that already has a default "
        "process group: the script calls it without checking, after a framework already did "
        "(deepspeed.initialize or init_distributed, accelerate's Accelerator, ColossalAI's "
        "launch, which check first themselves), or calls it twice itself, or a sweep or "
        "tuning agent runs several trials in one process and the first trial's group was "
        "never destroyed; every start fails the same way.",
        fix="initialise once: guard the script's call with `if not "
        "torch.distributed.is_initialized():` (launchx.runtime.init_distributed() already "
        "does), or leave it to the framework that owns it; end each trial that an agent runs "
        "in the same process with torch.distributed.destroy_process_group(), or run each "
        "trial in a process of its own.",
        fixtures=(
            "user_code_error__colossalai_3111_pg_init_twice.log",
            "user_code_error__wandb_4314_sweep_deepspeed_pg_init_twice.log",
        ),
    ),
    Rule(
        name="init_method_incomplete",
        category="user_code_error",
        code="LX682",
        priority=81,
        retryable=False,
        patterns=(
            # torch/distributed/rendezvous.py's checks of a file:// or tcp:// init_method
            r"Error initializing torch\.distributed using (?:file|tcp):// rendezvous: "
            r"(?:path|port number|rank parameter|world size parameter) missing",
        ),
        cause="init_process_group was given a file:// or tcp:// init_method it cannot use: "
        "the URL has no path (file://) or no port (tcp://host), or the call passed no rank "
        "or world_size (init_process_group adds them to the URL only when they are given); "
        "every start fails the same way.",
        fix="give init_process_group a whole URL (file:///shared/path/initfile, reachable by "
        "every rank; tcp://MASTER_ADDR:PORT) with rank= and world_size=, or use "
        "init_method='env://' under `launchx run` (or torchrun), which sets RANK, WORLD_SIZE, "
        "MASTER_ADDR and MASTER_PORT for every rank.",
        fixtures=("user_code_error__wenet_1855_file_rendezvous_path_missing.log",),
    ),
    Rule(
        name="nonfinite_numbers",
        category="user_code_error",
        code="LX570",
        priority=81,
        retryable=False,
        patterns=(
            r"^(?:[A-Za-z_]\w*\.)*FloatingPointError:",
            r"Function '\w+' returned nan values in its \d+th output",
        ),
        cause="the loss or the gradients became NaN or infinite (a diverging run: a learning "
        "rate too high, fp16 overflow, a bad batch), or a check on them failed (ranks whose "
        "gradient norms disagree); from the same checkpoint and seed it happens at the same "
        "step again.",
        fix="lower the learning rate or warm it up, clip gradients, train in bf16 or with "
        "dynamic loss scaling, and find the first non-finite value with "
        "torch.autograd.set_detect_anomaly(True) on a short run; resume from a checkpoint "
        "before the divergence.",
        fixtures=("user_code_error__fairseq_1372_grad_norm_nan_all_workers.log",),
    ),
    Rule(
        name="peer_outside_group",
        category="user_code_error",
        code="LX603",
        priority=82,
        retryable=False,
        patterns=(
            # distributed_c10d's translation of a global rank into a group's (and back): a
            # collective's src/dst, or get_global_rank's argument, outside the group passed
            r"(?:The )?[Gg]lobal rank -?\d+ is not part of (?:the )?group",
            r"Group rank -?\d+ is not part of group",
        ),
        cause="the code calls a collective on a subgroup (broadcast, scatter, gather, send) "
        "with a src or dst that names a global rank outside that group (src=0 on a group "
        "without rank 0), a bug in the script or the framework that builds the group; every "
        "start fails the same way.",
        fix="pass a member's global rank (dist.get_global_rank(group, 0)), or the group-local "
        "rank as group_src=/group_dst= on torch 2.6 and later; check that the ranks listed in "
        "new_group()/the device mesh are the ones the collective expects.",
        fixtures=("user_code_error__fastmoe_119_local_ddp_rank_not_in_group.log",),
    ),
    Rule(
        name="ddp_unused_parameters",
        category="user_code_error",
        code="LX606",
        # above the user's exception (LX511), which names the same RuntimeError without what
        # to change; DDP's reducer raises it on the iteration after the one that left some
        # parameters without a gradient
        priority=82,
        retryable=False,
        patterns=(
            # the rank the check names, on the line before the tail below (a wrapped message
            # whose lines hold no anchor of their own)
            r"did not receive grad for rank (?P<rank>\d+):[\d ,]*\s?In addition, you can set "
            r"the environment variable TORCH_DISTRIBUTED_DEBUG",
            # the same rank at the message's end when TORCH_DISTRIBUTED_DEBUG is set, lines
            # below the exception line
            r"^Parameter(?:s| indices) which did not receive grad for rank (?P<rank>\d+):",
            r"Expected to have finished reduction in the prior iteration before starting a "
            r"new one",
            # the tail of the same message, when a paste or an interleaved rank cut its head
            r"which particular parameters did not receive gradient on this rank as part of "
            r"this error",
        ),
        cause="DistributedDataParallel found parameters that received no gradient in the "
        "last backward pass (a head, a branch or a frozen layer that the loss never used), so "
        "its gradient reduction never finished; it comes back whenever a batch leaves them "
        "unused.",
        fix="make every output that holds parameters feed the loss (torch's message says so "
        "when find_unused_parameters is already on: then return only the outputs the loss "
        "uses), or pass "
        "find_unused_parameters=True (HF Trainer: ddp_find_unused_parameters=True; accelerate: "
        "DistributedDataParallelKwargs(find_unused_parameters=True); Lightning: "
        "strategy='ddp_find_unused_parameters_true'); TORCH_DISTRIBUTED_DEBUG=DETAIL in the "
        "profile's env names the parameters.",
        fixtures=(
            "user_code_error__mmdetection_2377_unused_parameters.log",
            "user_code_error__monailabel_492_dynunet_ddp_unused_parameters.log",
            "user_code_error__tune_a_video_78_accelerate_unused_params.log",
        ),
    ),
    Rule(
        name="ddp_parameter_ready_twice",
        category="user_code_error",
        code="LX607",
        priority=82,
        retryable=False,
        patterns=(
            r"Expected to mark a variable ready only once",
            # the reducer's next sentence, where a paste starts after the first
            r"Parameter at index \d+ (?:with name \S+ )?has been marked as ready twice\.",
        ),
        cause="DistributedDataParallel saw one parameter's gradient become ready twice in one "
        "backward pass: most often reentrant gradient checkpointing re-running a block's "
        "forward inside backward (LoRA and PEFT fine-tuning), or a parameter used outside "
        "forward or shared by concurrent forward-backward passes; every start fails at the "
        "same step.",
        fix="turn off reentrant checkpointing (HF: gradient_checkpointing_kwargs="
        "{'use_reentrant': False}; torch.utils.checkpoint(..., use_reentrant=False)), or wrap "
        "with DistributedDataParallel(static_graph=True) and leave find_unused_parameters off "
        "(HF Trainer: ddp_find_unused_parameters=False).",
        fixtures=(
            "user_code_error__peft_301_trainer_ddp_gradckpt_ready_once.log",
            "user_code_error__transformers_23728_lora_ddp_marked_ready_twice.log",
            "user_code_error__chatglm_efficient_tuning_114_marked_ready_twice.log",
        ),
    ),
    Rule(
        name="ddp_params_differ",
        category="user_code_error",
        code="LX611",
        priority=82,
        retryable=False,
        patterns=(
            # DDP's construction-time check (reducer.cpp); the logger-backed check puts the
            # failing rank in front of the message ("[2]: params[4] ...")
            r"(?:\[(?P<rank>\d+)\]: )?(?:params|replicas\[0\])\[\d+\] in this process with "
            r"(?:sizes|strides) .*appears not to match (?:sizes|strides) of the same param in "
            r"process 0",
        ),
        cause="DistributedDataParallel found a parameter whose shape (or memory layout) on "
        "this rank differs from rank 0's: the ranks built different models (a config, a "
        "random architecture choice or a checkpoint read on one rank only), or one rank's "
        "weights are channels-last or non-contiguous; every start fails the same way.",
        fix="build the same model on every rank before wrapping it (the same config and seed, "
        "the checkpoint loaded on every rank or broadcast from rank 0); make the parameters "
        "contiguous (p.data = p.data.contiguous()) or give every rank the same memory format.",
        fixtures=("user_code_error__mcuformer_2_supernet_ddp_param_sizes_mismatch.log",),
    ),
    Rule(
        name="state_dict_shape_mismatch",
        category="user_code_error",
        code="LX756",
        priority=82,
        retryable=False,
        # load_state_dict's per-parameter lines under "Error(s) in loading state_dict", which
        # a paste often keeps without the exception line above them (a rank prefix on each)
        patterns=(
            r"(?<!\S)size mismatch for [^\s:]+: copying a param with shape "
            r"torch\.Size\(\[[\d, ]*\]\) from checkpoint, the shape in current model is "
            r"torch\.Size\(",
        ),
        cause="load_state_dict found parameters whose shape in the checkpoint differs from the "
        "model that was built: a checkpoint of another model size or config, a vocabulary or "
        "head resized on one side only, or (a current shape of torch.Size([0])) a ZeRO-3 "
        "partitioned model loaded with a plain load_state_dict; every start fails the same "
        "way.",
        fix="build the model from the checkpoint's own config (the same hidden size, layers "
        "and vocabulary); where some layers are meant to differ, drop the mismatched keys "
        "before loading (keep those whose shape equals model.state_dict()[k].shape, then "
        "strict=False: strict alone does not pass a size mismatch) or, with Hugging Face, "
        "from_pretrained(..., ignore_mismatched_sizes=True); under DeepSpeed ZeRO-3 (a model "
        "built under zero.Init, as from_pretrained does with a ZeRO-3 config) load inside "
        "deepspeed.zero.GatheredParameters(list(model.parameters()), modifier_rank=0).",
        fixtures=(
            "user_code_error__deepspeed_5570_state_dict_size_mismatch.log",
            "user_code_error__vlm_r1_85_zero3_size_mismatch_empty.log",
        ),
    ),
    Rule(
        name="process_group_url_none",
        category="user_code_error",
        code="LX618",
        priority=82,
        retryable=False,
        # detectron2's launch() (and maskrcnn-benchmark's, and the many copies of it) logs
        # the URL only when init_process_group raised; None means no URL ever reached it
        patterns=(r"Process group URL: None\s*$",),
        cause="the script's launch helper (detectron2's launch(), maskrcnn-benchmark's or a "
        "copy of it) called init_process_group with no init_method: no --dist-url reached "
        "it, so torch fell back to env:// and found no MASTER_ADDR; every start fails the "
        "same way.",
        fix="pass the URL as the script's --dist-url argument (tcp://127.0.0.1:<free port>, or "
        "auto for detectron2), not as a config option; or start the ranks with `launchx run` "
        "and give the helper env:// so it reads MASTER_ADDR and MASTER_PORT.",
        fixtures=("user_code_error__detectron2_753_launch_dist_url_none.log",),
    ),
    Rule(
        name="deepspeed_batch_world",
        category="user_code_error",
        code="LX578",
        priority=82,
        patterns=(r"Check batch related parameters\. train_batch_size is not",),
        cause="DeepSpeed's batch check failed: train_batch_size is not micro batch x gradient "
        "accumulation x data-parallel size (the world divided by tensor and pipeline "
        "parallelism): the launch has another number of processes than the config was "
        "written for (a script started with python instead of a launcher runs a world of 1), "
        "or the config's own three values disagree. It fails the same way on every start.",
        fix="compare the three numbers in the message: launch the intended number of "
        "processes (deepspeed --num_gpus N, torchrun --nproc-per-node N), or set "
        'train_batch_size to "auto" (the HF integration) or leave it out so DeepSpeed '
        "derives it; with model parallelism change the batch values, not the launch.",
        fixtures=(
            "user_code_error__deepspeed_6914_train_batch_size_assert.log",
            "user_code_error__internimage_111.log",
        ),
    ),
    Rule(
        name="deprecated_env",
        category="deprecated_env",
        code="LX526",
        priority=5,
        patterns=(
            r"Environment variable (NCCL_\w+) is deprecated; use (TORCH_NCCL_\w+)",
            r"(?:TORCH_)?NCCL_\w+ is the default now, this environment variable is thus deprecated",
        ),
        cause="an old or no-longer-needed PyTorch NCCL variable is set (renamed to TORCH_NCCL_* "
        "in torch 2.2, or now the default); it still works but warns on every rank. It is a "
        "warning, not a failure.",
        fix="rename it (e.g. NCCL_ASYNC_ERROR_HANDLING -> TORCH_NCCL_ASYNC_ERROR_HANDLING) or "
        "remove it when it only restates the default, in the profile, the job script or the "
        "framework that sets it.",
        fixtures=(
            "deprecated_env__physicsnemo_568.log",
            "deprecated_env__pytorch_114432_desync_debug.log",
        ),
    ),
)
