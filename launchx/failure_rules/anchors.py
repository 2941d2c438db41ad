"""The words a line must hold for any rule to match it: the scanner keeps only such lines
(and a few around them) from a long log."""

from __future__ import annotations

ANCHORS: tuple[str, ...] = (
    "error",
    "terminate",
    "exception",
    "fail",
    "exit",
    "signal",
    "kill",
    "timeout",
    "timed out",
    "times out",
    "nccl",
    "abort",
    "fault",
    "cancel",
    "interrupt",
    "preempt",
    "global_rank",
    "duplicate gpu",
    "out of memory",
    "nvidia driver",
    "cuda capability",
    "bootstrap",
    "requeue",
    "barrier",
    "didn't join",
    "launchx: hang",
    # no failure: the frameworks' words for a training that reached its end (HF's Trainer,
    # Lightning), read so that a failure after them is said to come after the training
    "training completed. do not forget",
    "`trainer.fit` stopped",
    "nvrm: xid",
    "shape mismatches",
    "out_of_memory",
    "not produced any output",
    "sigsegv",
    "resolve",
    "can't open file",
    "can't find '__main__'",
    "driver version is insufficient",
    "$'\\r'",
    "horovodrun task function",
    # the shell's, the kernel's and env's words for a script or interpreter that is not there
    # (a carriage return in its name, an environment moved after install)
    "no such file or directory",
    "is not needed when a module",
    "still have inflight params",
    "zeroparamstatus.available",
    "marked dead",
    "low on resource",
    "gloo/transport",
    "shared memory",
    "srun: terminating",
    "got completion",
    "command not found",
    "corrupt",
    "(): invalid",
    "double free",
    "enough slots",
    "did not receive grad",
    "ssh: connect to host",
    "stall_inspector",
    "already in use",
    "mpi_init_thread) more than once",
    "--local-rank local_rank",
    "unrecognized argument",
    "prov_err",
    "cannot find -l",
    "unexpected result",
    "mismatch between collectives",
    "--nnode",
    "--node",
    "stopiteration",
    "cuda_home",
    "(): unaligned",
    ": not found",
    "unable to find the specified executable",
    "is utilizing it",
    "': could not ",
    "cannot find primary config",
    "does not support limiting",
    "ephemeral local storage",
    "local ephemeral storage",
    "emptydir volume",
    "imminent node shutdown",
    "admit critical pod",
    "specified deadline",
    "its node has died",
    "vmrss",
    "rdmatransport: ",
    '"freeze_support()" line',
    "transport/ibgda/",
    "was unable to reliably start",
    "resource_exhausted",
    "resource exhausted",
    "sigabrt",
    "backend not set",
    ": no module named",
    "unsupported gpu architecture",
    "device handle for gpu",
    "is not defined for option 'gpu-",
    "detected cuda version",
    "copying a param with shape",
    "^c",
    "kernels configured but not",
    "invalid access pattern",
    "zero-3 is not compatible with",
    "deepspeed config values that mismatch",
    "accelerate config variables will be ignored",
    "not found in kwargs",
    "marked as ready twice",
    "tensors share memory",
    "accelerate.utils.operations.",
    "], thread: [",
    "expected all tensors to be on the same device",
    "expected to be in states",
    "in any distributed mode",
    "--no-load-",
    "unable to launch the specified",
    '"plm_rsh_agent"',
    " in replica ",
    "attempt to run as root",
    # NCCL's socket transport's line alone, without the error above it that names it
    "closed by remote peer",
    # zipfile's exception, whose name has neither "error" nor "exception" in it
    "badzipfile",
    # c10's words for a tensor without memory, which a paste may quote without the exception
    "not allocated yet",
    # ProcessGroupNCCL's check of a CPU tensor, and c10d's missing backend for a device,
    # which a paste may quote without the exception
    "cuda and dense",
    "backend type associated",
    # xformers' reasons for finding no attention kernel, under its NotImplementedError
    "xformers wasn't build",
    "xformers can't load",
    "supported: {'cuda'}",
    # not a failure: the line whose presence after LX782's says the load went on
    "successfully loaded",
    # pickle's and a codec's words, which a framework may log without the exception's class
    "can't pickle",
    "codec can't decode",
    # DeepSpeed ZeRO-3's dtype assertion, whose AssertionError carries no message
    "t.dtype for t in tensors",
    # FSDP's assertion message, which it prints on a line of its own before raising
    "accumulategrad` and register",
    # an assert statement's source line under its frame, where a paste ends before the
    # AssertionError (LX674)
    "assert ",
    # torch's messages for tensors whose shapes do not fit, quoted without the exception
    # (LX646)
    "must match the size of tensor",
    "shapes cannot be multiplied",
    "is invalid for input of size",
    "sizes of tensors must match",
    # Horovod's stall inspector's warning without its glog header (stall_inspector.cc), as
    # the reporter's terminal or a progress bar before it shows it (LX638)
    "remainder of ranks",
    # accelerate's refusal to prepare two models for DeepSpeed, an assertion with no
    # "error" in its words (LX809)
    "instance with multiple models",
    # Hydra's and OmegaConf's words for an override of a key the config lacks (LX689)
    "could not override",
    "is not in struct",
    # NCCL's warning at a communicator's tear-down (LX670)
    "collective mismatch around",
    # a Slurm command with no configuration to read (LX811)
    "configuration source",
    "process configuration file",
    # Open MPI refusing to bind (LX819), losing a daemon or its route (LX820); ssh refused
    # (LX586)
    "binding more",
    "would require binding",
    "invalid mpi type",
    "lost communication",
    "how to route",
    "permission denied",
    # torch.compile's exception classes without "Error" in their names (LX824), and
    # inductor's GPU below Triton's (LX540)
    "_dynamo.exc.",
    "_inductor.exc.",
    "too old to be supported by the triton",
    "symbolic_shapes.guardon",
    # the lines that answer a match (Rule.not_before, not_after) are searched among the
    # kept lines too: git's after ssh's refusal (LX586), Dynamo running a frame eagerly
    # after logging what it raised (LX824)
    "could not read from remote repository",
    "won't convert",
    "triggered compile",
    # the shell's SIGILL (LX513) and libstdc++'s words before abort() (LX579)
    "illegal instruction",
    # glog's and absl's failure handlers name the other two native crashes by their signal
    # alone ("*** SIGFPE (@0x...) received by PID ...", LX513)
    "sigfpe",
    "sigill",
    "pure virtual method",
    # the torchrun agent's own code in a faulthandler stack (LX587): its frames sit below
    # the first one, which is all that "(most recent call first):" keeps, and a terminal's
    # wrap leaves the join of the next lines short of them
    "distributed/elastic/agent/",
    "distributed/elastic/rendezvous/",
    "torch/distributed/run.py",
    "torch/distributed/launch.py",
    "no slot ",
    # Windows shells' words for a launcher not on the PATH (LX589), and cuDNN 9's own loader
    # finding none of its sub-libraries (LX751)
    "is not recognized as",
    "unable to load any of",
    # the NVIDIA driver's words in the kernel log for a GPU lost from the bus (LX512)
    "fallen off the bus",
)
"""Lower-case fragments of which every line a rule can match holds at least one. A long log
is searched for these (fast) and only their lines are matched against the rules (slow), so
a rule whose lines hold none of them is never seen in a log: the test
``test_anchored_scan_equals_full_scan`` catches that; add an anchor then. Where Hyperscan is
installed all of them are found in one pass (``anchorlines.OnePass``: about 0.06 s per
100 MB of ordinary log, whatever their number, plus a Python call per match), and an anchor
costs only the lines it keeps; without it,
each is a ``bytes.find`` pass of 20-50 ms per 100 MB (whole words search faster than
fragments: "error" is three times faster than "rror"). Traceback frames need no anchor:
they are picked up above an exception line, and NCCL's detail under ``Last error:`` needs
none either, nor the frame under faulthandler's ``(most recent call first):``: the line after
each is kept too. An anchor that holds another finds nothing more
(``test_no_anchor_holds_another``). The order matters without Hyperscan: in a long log on
two cores the first ``logscan._NEAR`` are searched by the scanner and the rest by a helper
process (``anchorfind``) at the same time, so an anchor added at the end costs the helper's
core, not the scanner's; the anchors with a next-line marker (``logscan._ANCHORED_MARKERS``)
must be among the scanner's, which alone looks for markers."""
