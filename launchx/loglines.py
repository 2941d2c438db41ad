"""One log line as diagnosis sees it: the message without its decorations, plus what the
decorations said (rank, host, time).

Launchers, loggers and schedulers stack prefixes in front of a message in any order:
``0: [rank3]:[E626 06:24:44.903 ProcessGroupNCCL.cpp:616] [PG 0 Rank 3] Watchdog ...``
(srun's task label, torch's rank prefix, glog's header). Rules are written against the
message alone, so the prefixes are peeled off here, and what they carry is kept: the rank
from ``[rank3]:``/``[default3]:``/``[1,3]<stderr>:``/``3: ``, a host from pdsh-style
``worker-7: `` prefixes, the time from ISO or glog headers.

Times are compared as seconds within a year (glog headers have no year): good for ordering
the lines of one run, which never spans a new year's night in practice.
"""

from __future__ import annotations

import functools
import re
import signal
from dataclasses import dataclass

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
"""A terminal's colour and cursor codes, which a log written through a pipe keeps."""
# a log copied out of a web page's source or a mail keeps HTML's escapes ("error_file:
# &lt;N/A&gt;", "&#39;cuda:0&#39;")
ENTITIES = {
    "&lt;": "<",
    "&gt;": ">",
    "&amp;": "&",
    "&quot;": '"',
    "&apos;": "'",
    "&#39;": "'",
    "&#x27;": "'",
}
_ENTITY = re.compile("|".join(map(re.escape, ENTITIES)))

# vLLM's multiprocess executor's tag of a tensor-parallel worker, before its index: "(VllmWorker
# rank=1 pid=2699412)", "(VllmWorker TP3 pid=8)", "(Worker_TP0 pid=415)" (_RANK_PREFIXES)
_VLLM_TP_WORKER = r"\((?:VllmWorker (?:rank=|TP)|Worker_TP)"

TRACEBACK = "Traceback (most recent call last):"
"""The line Python prints above a traceback's frames. (consoleranks spells it itself: the
command line imports it at start-up, before anything needs this module.)"""

EXCEPTION_NAME = r"(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)"
"""An exception's (dotted) class name, as it starts the line that ends a traceback."""

_LEVEL = r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)"
# ... and the shorter spellings other loggers print (WARN, FATAL: log4j's, Go's, NCCL's WARN)
_ANY_LEVEL = r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)"

_MONTH_DAY_TIME = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2}"

# (two to six marks: one is also a Python or shell comment, "# ValueError: ..." quoted in
# code a reporter pasted, which must not read as the error)
_HEADING = re.compile(r"^#{2,6}[ \t]+(?=[A-Za-z_])")
_NOISE = (
    # a Markdown quote: issue comments paste logs as "> line"; inline code: "`line`"
    re.compile(r"^>(?:[ \t]+|$)"),
    re.compile(r"^`(?!``)"),
    # a Markdown heading an issue's author made of the error line ("### RuntimeError: x";
    # inside bold, "**### RuntimeError: x**", _unbold takes it off)
    _HEADING,
    # torch's rank tag with the number replaced by the reporter ("[rankx]: ValueError: ...",
    # "[rankN]:"), which names no rank
    re.compile(r"^\[rank(?:[xXnN?*]|\.\.\.)\]:\s?"),
    # a CI log viewer's column bar (Buildkite): "  | line"
    re.compile(r"^\|[ \t]+(?=\S)"),
    # a line number before the line, as `cat -n`, `nl` and editors' copies of a log file put
    # it ("  5899\t[rank4]: ..."), and as GitHub's editor turns a copy of a file's or a CI
    # log's page into a Markdown table, an empty cell after it ("82 |   | TypeError: ...")
    re.compile(r"^\d{1,7}(?:\t| \|[ \t]+\|[ \t]+)(?=\S)"),
    # loguru's default header: "2024-05-01 10:11:12.345 | ERROR    | __main__:main:12 - "
    re.compile(
        r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}[.,]\d+ \| *[A-Z]+ *\| [\w.<>-]+:[\w.<>-]+:\d+ - "
    ),
    # an ISO time stamp, UTC or with its offset, maybe followed by a colon
    # ("2021-03-10T13:22:37.443Z: ", "2026-03-24T12:06:11.850202858+08:00 ")
    # (and journalctl -o short-iso's host and process after it: "2024-05-01T10:11:12+0000
    # node01 python3[12345]: ")
    re.compile(
        r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?:?"
        r"(?:\s+[|-]\s+|\s+)(?:[\w.-]+ [\w.@/-]+\[\d+\]: )?"
    ),
    # ... in brackets, also the full-width ones of Chinese job platforms' log viewers
    # ("【2023-07-09 22:14:41】RuntimeError: ...")
    re.compile(
        r"^[\[【]\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?[\]】]\s*"
    ),
    # Rich's logging handler's time column (ColossalAI, kohya's scripts; its default format
    # and a time alone): "[12/03/24 10:11:12] ERROR    msg", "[10:11:12] INFO     msg"
    re.compile(r"^\[(?:\d{2}/\d{2}/\d{2,4} )?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\]\s+"),
    # spdlog's level after its time, with the logger's name and the place or without them,
    # as C++ extensions log ("[infini] [error] [store.cpp:496] msg")
    re.compile(
        r"^(?:\[[\w.-]+\] )?\[(?:trace|debug|info|warning|error|critical)\] "
        r"(?:\[[\w.-]+\.\w+:\d+\] )?"
    ),
    # the container runtime's log file (what Kubernetes keeps of a pod, after its time
    # stamp): the stream, then F for a full line or P for part of one ("stderr F msg")
    re.compile(r"^std(?:err|out) [FP] "),
    # syslog's and journalctl's header: "May 01 10:11:12 node01 python3[12345]: "
    # (a process with its pid, or the kernel: not "Jul 25 04:11:56 unknown file: Failure")
    re.compile(rf"^{_MONTH_DAY_TIME} [\w.-]+ (?:[\w.@/-]+\[\d+\]|kernel): "),
    # ... and the time alone, as moreutils' ts puts it before each line of a command's
    # output (`torchrun ... 2>&1 | ts`: "May 01 10:11:12 ", "May 01 10:11:12.123456 "), and as
    # the CI of PyTorch itself once stamped its test logs
    re.compile(rf"^{_MONTH_DAY_TIME}(?:\.\d+)? "),
    # grep's name of the file a line was found in, searching several: "logs/rank3.log:msg",
    # with the line's number "train.out:120:  File ..." (not "out.txt: No such file", a
    # message about the file)
    re.compile(r"^[\w.-]*(?:/[\w.-]+)*\.(?:log|out|err|txt)(?::\d+:|:(?=\S))"),
    # a Markdown fence glued to the exception line it opens ("```RuntimeError: ...")
    re.compile(f"^```(?={EXCEPTION_NAME}:)"),
    # vLLM's data-parallel engine other than the first, and its worker's tag after it: that
    # worker's TP index is not its rank in the world ("(EngineCore_DP1 pid=1) (VllmWorker TP0
    # pid=2)")
    re.compile(rf"^\(EngineCore_DP[1-9]\d* pid=\d+\)\s*{_VLLM_TP_WORKER}\d+ pid=\d+\)\s*"),
    # a process's tag (Ray's "(RayWorkerWrapper pid=4242, ip=10.0.0.2)", vLLM's "(EngineCore_DP0
    # pid=504)"; Ray puts an actor's own repr there when its class defines one: "(EnvGroup(
    # rank=1) pid=49603)", whose rank is the actor's index in its group, not the world's),
    # but not vLLM's tag of a tensor-parallel worker, which names its rank
    re.compile(rf"^(?!{_VLLM_TP_WORKER}\d+ pid=)\((?:[^()]|\([^()]*\))*\bpid=\d+[^()]*\)\s*"),
    re.compile(r"^\[[IWEF](?:\d{3,4} \d{2}:\d{2}:[\d.]+)?\s*[\w./-]+:\d+\]\s*"),
    # glog pads the thread id to five columns ("I0914 03:11:52.101010  2211 file.cc:231] ")
    re.compile(r"^[IWEF]\d{4} \d{2}:\d{2}:[\d.]+ +\d+ [\w./-]+:\d+\]\s*"),
    re.compile(rf"^\[{_LEVEL}\|[\w./-]+:\d+\] (?:[\d:, -]+>> )?"),
    # a stream's tag, after a source's name or alone and glued to the line
    # ("[stderr]ModuleNotFoundError: ...", as a job service that merges a worker's two
    # streams writes it)
    re.compile(r"^(?:\S+ )?\[std(?:err|out)\]:? ?"),
    # ... or bare, as accelerate's `accelerate test` and its test utilities echo a child's
    # captured streams: "stderr: RuntimeError: ..."
    re.compile(r"^std(?:err|out): "),
    # a bracketed level, alone or before a one-word component: "[INFO] [Driver] msg" (not
    # "[Errno 98]" or "[Rank 3]", which belong to the message or name its rank), or before
    # where DeepSpeed's logger was called ("[INFO] [launch.py:253:main] msg") or Axolotl's,
    # with its process ("[INFO] [axolotl.train.train:47] [PID:1672] [RANK:0] msg": the
    # local rank is _LOCAL_PREFIX's)
    re.compile(
        rf"^\[{_ANY_LEVEL}\]\s+"
        r"(?:\[[A-Z][a-z]+\]\s+|\[[\w.-]+\.py:\d+:[\w<>]+\]\s*"
        r"|\[[\w.<>-]+:\d+\]\s+\[PID:\d+\]\s*)?"
    ),
    # ms-swift's logger ("[INFO:swift] msg"), LLaMA-Factory's ("[INFO|2025-03-02 19:39:21]
    # llamafactory.cli:157 >> msg") and torchtitan's name before its time ("[titan] ")
    re.compile(rf"^\[{_LEVEL}:swift\]\s*"),
    re.compile(rf"^\[{_LEVEL}\|\d{{4}}-\d{{2}}-\d{{2}} [\d:]{{8}}\] [\w.]+:\d+ >> "),
    re.compile(r"^\[titan\] (?=\d{4}-)"),
    # Hydra's job logging (fairseq, NeMo, Dora and every project on Hydra; copied into many
    # a logging.basicConfig), after its time: "[2024-05-01 10:11:12,123][__main__][ERROR] - "
    # (Dora's time is "[04-08 02:55:33]")
    re.compile(
        r"^(?:\[\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d+)?\])?"
        rf"\[[\w.<>-]+\]\[{_LEVEL}\] - "
    ),
    # pytest's report of a failed test: "E       RuntimeError: ..." (the test's traceback and
    # exception, indented under the E that marks them)
    re.compile(r"^E {3,}(?=\S)"),
    # the header AI2's trainers (OLMo, OLMo-core, Dolma) log with where no terminal is, after
    # its time: "olmo.util:163\tCRITICAL\t" (its form with the host is _AI2_PREFIX)
    re.compile(rf"^[\w.]+:\d+\t{_LEVEL}\t"),
    # Python 3.11+'s caret markers under a traceback's source line, glued to another
    # rank's line when ranks interleave their writes: "^^^^^^^^^ValueError: ..." (two or
    # more: a terminal's "^C" before a line is not one)
    re.compile(r"^[~^]{2,}(?=[A-Z]|\[rank\d+\]:)"),
    # horovodrun --timestamp-output / mpirun --timestamp-output: "Tue Apr 21 18:22:53 2020"
    # glued to the rank tag that follows
    re.compile(r"^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \w{3} +\d{1,2} \d{2}:\d{2}:\d{2} \d{4}(?=\[)"),
    # vLLM's logger after its level: "ERROR 04-25 16:14:44 [core.py:390] msg" (older
    # releases: "INFO 04-25 16:14:44 llm_engine.py:72] msg")
    re.compile(r"^\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)? \[?[\w./-]+:\d+\] ?"),
    # Python logging: "ERROR:torch.distributed...:msg", "ERROR msg", "root - ERROR - msg",
    # and fairseq's "ERROR | fairseq_cli.train | msg" after its time
    re.compile(rf"^{_LEVEL}:[\w.]*:"),
    re.compile(
        rf"^(?:[\w.]+ +- +)?{_ANY_LEVEL}"
        r"(?: +- +| +\| +(?:[a-z_][\w.]* +\| +)?| +)"
    ),
    # ... and Ray's logger, which names where it logged from after the level:
    # "2024-12-13 11:12:48,791\tERROR tune_controller.py:1331 -- msg"
    re.compile(r"^[\w.-]+\.py:\d+ -- "),
    # the header of transformers', diffusers' and accelerate's example scripts, its time
    # American: "05/01/2024 10:11:12 - ERROR - __main__ - msg"
    re.compile(rf"^\d{{2}}/\d{{2}}/\d{{4}} \d{{2}}:\d{{2}}:\d{{2}} - {_LEVEL} - [\w.]+ - +"),
    # OpenMMLab's (mmengine: MMDetection 3, MMSegmentation 1, XTuner), its time without the
    # year, an error's with where it was logged: "06/17 19:51:14 - mmengine - ERROR -
    # /x/runner.py - train - 1745 - msg"
    re.compile(
        rf"^(?:\d{{4}}/)?\d{{2}}/\d{{2}} \d{{2}}:\d{{2}}:\d{{2}} - [\w.]+ - {_LEVEL} - "
        r"(?:\S+\.py - \w+ - \d+ - )?"
    ),
    # Go's log package (an operator's or a launcher's in Go): "2024/05/01 10:11:12 msg"
    re.compile(r"^\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)? "),
    # NeMo's: "[NeMo E 2024-05-01 10:11:12 exp_manager:123] msg"
    re.compile(r"^\[NeMo [DIWEC] \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [\w.-]+:\d+\] *"),
)
_RANK_PREFIXES = (
    # (its bracket lost where a paste or an excerpt starts mid-prefix: "rank5]: ...")
    re.compile(r"^\[?rank(\d+)\]:\s?"),
    re.compile(r"^\[rank: (\d+)\]\s?"),
    # Determined's launcher: "[<container>] [rank=N] " (the first field may be empty)
    re.compile(r"^(?:\[[^\]\[]*\] )?\[rank=(\d+)\]\s?"),
    re.compile(r"^\[Rank (\d+)\]:?\s"),
    re.compile(r"^\[r(\d+)\]:? ?"),
    # Open MPI's --tag-output ([job,rank]), its SageMaker variant ([1,mpirank:3,algo-1]),
    # and horovodrun's own ([rank]): the number is the global rank
    re.compile(r"^\[\d+,(?:mpirank:)?(\d+)(?:,[\w.-]+)?\]<std(?:out|err)>:\s?"),
    re.compile(r"^\[(\d+)\]<std(?:out|err)>:\s?"),
    # vLLM's multiprocess executor tags its workers' lines with their rank ("(VllmWorker
    # rank=1 pid=2699412)") or tensor-parallel index ("(VllmWorker TP3 pid=8)", "(Worker_TP0
    # pid=415)"): on its one node with tensor parallelism alone, the process group's rank. A
    # tag that names a data-parallel or pipeline index too ("Worker_DP1_TP0_EP8") stays a
    # process tag, as does a worker's under a second data-parallel engine's tag; with data
    # parallelism these forms do not name the engine, so a log of several engines whose
    # lines carry only the worker's tag names each engine's workers 0..n alike
    re.compile(rf"^{_VLLM_TP_WORKER}(\d+) pid=\d+\)\s*"),
    # Text Generation Inference's shard manager quotes a shard's error output and ends it
    # with the shard's rank, a tracing field on a line of its own: the whole line
    re.compile(r"^rank=(\d+)$"),
)
# Prefixes with a number that is not always the global rank, believed only when no global
# one follows: torchrun's --tee prefix carries the LOCAL rank ([default1]: on node 1 of a 2x2
# world is rank 3, whose own traceback says [rank3]:), srun --label's task number is the rank
# with one task per rank but the node with one torchrun per node.
# (and with a role of just a colon, "[:0]:", as a paste in accelerate's tracker shows it)
# (Axolotl's logger names the local rank too, after its header: "[RANK:0] ")
_LOCAL_PREFIX = re.compile(r"^\[(?:(?:default|:)(\d+)\]:|RANK:(\d+)\])\s?")
# OLMo's logger after its level, which names the process's LOCAL rank: "[olmo.util:158,
# rank=6] "
_OLMO_PREFIX = re.compile(r"^\[[\w.]+:\d+, rank=(\d+)\]\s?")
_TASK_LABEL = re.compile(r"^(\d{1,5}): ")
# pdsh/DeepSpeed multi-node output: "worker-7: <line>". A host name here is lower case and
# carries a digit (so "slurmstepd: error:" and "RuntimeError: ..." are not hosts), and is not
# an exception's dotted module path, whose last part is a class ("hivemind.p2p.utils.
# P2PDaemonError: ...", "onnxruntime.capi.onnxruntime_pybind11_state.Fail: ...", and
# OpenCV's lower-case "cv2.error: ...").
_HOST_PREFIX = re.compile(
    r"^(?![\w.-]*\.py: )(?![\w.-]*\.(?:[A-Z_]\w*|error): )"
    # nor a program that names itself before its message: the interpreter ("python3: can't
    # open file ..."), a shell script ("run.sh: line 20: ... Floating point exception"), the
    # linker's collect2
    r"(?!python[\d.]*: |[\w.-]*\.sh: |collect2: )"
    r"((?:localhost|(?=[\w.-]*\d)[a-z][\w-]*(?:\.[\w-]+)*|\d{1,3}(?:\.\d{1,3}){3})): (?=\S)"
)
# torch_xla's xla_dist (TPU pods): after its timestamp, the VM's address and the worker's
# index among the VMs ("10.164.0.29 [3] "), which is not a rank
_XLA_DIST_PREFIX = re.compile(r"^(\d{1,3}(?:\.\d{1,3}){3}) \[\d+\] (?=\S)")
# TorchX's local scheduler: the role and replica in front of each line of a replica, and
# after it the local rank of the torchrun it starts, its role empty: "trainer/0 [1]:line".
# The replica stands where a host would (two replicas' rank 1 are two processes). NeMo-Run
# names its roles with a dot ("i.pretrain/0 [default2]:[rank2]: ..."), believed only before
# a bracket (not "checkpoint.pt/0 saved").
_TORCHX_PREFIX = re.compile(
    r"^((?:[a-z_][\w-]*|[a-z_][\w.-]*(?=/\d+ \[(?:default)?\d+\]:))/\d+) (?:\[(\d+)\]:)?"
)
# A host and a process before the message: Open MPI's own reports ("[node7:19276] *** An
# error occurred in MPI_Init_thread", its signal handler's "[node7:19276] Signal: ..."),
# and logs that tag a worker's lines with its host and a number ("[node1:4]:ValueError:
# ..."), which is a pid or a slot, not a rank. A host name may start with a digit (a
# container's "[1a62e574072d:00334]"), hold capitals when it holds a digit too
# ("[DGX-A100-01:19276]", not a thread's "[MainThread:140]" or "[GPU:0]", nor Python's
# names of other threads, "[Thread-1:140]", "[ThreadPoolExecutor-0_0:140]"), never be a time
# ("[00:11"), nor a source file's location ("[socket.cpp:1011]", "[reduce.cuh:45]"). It may
# follow another host prefix ("worker-7: [worker-7:19276] ..."); the first names it.
_HOST_PROC_PREFIX = re.compile(
    r"^\[(?![\w.-]*\.(?:cpp|cc|cu|cuh|cxx|hpp|hh|h|c|inl|py|rs|go|java)\b)"
    r"(?!(?:Thread|Dummy)-\d+:|ThreadPoolExecutor-\d+_\d+:)"
    r"((?=[\w.-]*[a-z])[a-z0-9][\w.-]*|(?=[\w.-]*\d)(?=[\w.-]*[A-Za-z])[A-Za-z0-9][\w.-]*)"
    r":\d+\]:?\s?"
)
# AI2's trainers' header with the host and the process's local rank (of a node the log
# does not place, so no rank): "node-7.cluster:5\tolmo.util:163\tCRITICAL\t"
_AI2_PREFIX = re.compile(rf"^([\w.-]+):\d+\t[\w.]+:\d+\t{_LEVEL}\t")
# docker compose's service prefix, the container's name: "project-worker-1     | line", or
# the container_name a compose file set ("qwen3-server  | line": lower case with a hyphen,
# so not a table's first cell, a metric's name or a logger's "torch.distributed | ERROR")
_COMPOSE_PREFIX = re.compile(r"^([a-z][\w.-]*[-_]\d+|[a-z][a-z0-9.]*-[a-z0-9.-]*[a-z0-9]) +\| ")
# kubectl logs --prefix (of a PyTorchJob's pods: `kubectl logs -l job-name=x --prefix`), the
# pod and the container: "[pod/llama-worker-1/pytorch] line" (the pod is a node's, not a rank)
_KUBECTL_PREFIX = re.compile(r"^\[pod/([\w.-]+)/[\w.-]+\] ")
# every pattern of _NOISE is anchored at the start: when none matches there, none removes
# anything and the next cannot match either, so one search of their alternation stands for
# all of them (most prefixed lines carry only a rank or host prefix)
_ANY_NOISE = re.compile("|".join(f"(?:{p.pattern})" for p in _NOISE))
# and when no prefix of any kind matches at the start either, a pass of the loop in strip
# would try each in turn and change nothing: one match of their alternation ends it (a line
# of a traceback's frames under a rank prefix costs one call, not fifteen)
_ANY_PREFIX = re.compile(
    "|".join(
        f"(?:{p.pattern})"
        for p in (
            _ANY_NOISE,
            *_RANK_PREFIXES,
            _LOCAL_PREFIX,
            _TASK_LABEL,
            _OLMO_PREFIX,
            _HOST_PROC_PREFIX,
            _TORCHX_PREFIX,
            _HOST_PREFIX,
            _AI2_PREFIX,
            _XLA_DIST_PREFIX,
            _COMPOSE_PREFIX,
            _KUBECTL_PREFIX,
        )
    )
)
_PREFIX_STARTS = frozenset("|>`[(~^0123456789IWEFDCMSTJAON./_abcdefghijklmnopqrstuvwxyz【#")
# a log viewer's CSV export: the time stamp's quoted column, then the message's, its quotes
# doubled ("\"1739588804.641441583\",\"[rank7]: TypeError: ...\"")
_CSV_TIME = re.compile(r'^"(?:\d{9,10}(?:\.\d+)?|\d{4}-\d{2}-\d{2}[T ][\d:.]+Z?)","')
_RANK_IN_TEXT = re.compile(r"\[[^\[\]]*\bRank (\d+)\]")
# torch_npu's own header on Ascend: "(PID:2671581, Device:2, RankID:2) ERR00100 ...", where
# RankID is the process's RANK variable (-1 when it is unset, and Device -1 before one is set)
_ASCEND_RANK = re.compile(r"\(PID:\d+, Device:-?\d+, RankID:(\d+)\)")

_ISO = re.compile(
    r"(?<!\d)(\d{4})-(\d{2})-(\d{2})[T _](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(?!\d)"
)
_GLOG = re.compile(r"(?<![\w])[IWEF](\d{1,2})(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?!\d)")
_TS_WINDOW = 90


@dataclass(frozen=True)
class LogLine:
    """A message with where it came from. ``index`` orders lines across all the sources
    of one diagnosis; ``line_no`` is 1-based within ``source``. ``joined`` is the message
    with the fragments a terminal or logger split it into put back together (None when it
    was not split). ``in_root``: inside torchrun's "Root Cause (first observed failure)"
    block, or its "failed (exitcode: N) local_rank" line. ``warned``: the header taken off
    the line logged it at a warning level."""

    text: str
    rank: int | None
    index: int
    in_root: bool = False
    source: str = ""
    line_no: int = 0
    ts: float | None = None
    host: str | None = None
    joined: str | None = None
    repeats: int = 1
    warned: bool = False

    def where(self) -> str:
        """``file:line`` of the line in its log, or "" for an unnamed text."""
        if not self.source or not self.line_no:
            return ""
        return f"{self.source}:{self.line_no}"


@dataclass(frozen=True)
class Stripped:
    body: str
    rank: int | None
    host: str | None
    warned: bool = False
    errored: bool = False  # the header logged it at an error level (``_ERROR_HEAD``)


# A warning level in the headers strip() takes off ("WARNING:root:", "[WARNING]", "x - WARN -",
# glog's "W1124 05:..." (torch 2.4 and later: "W318 15:25:...") and "[W socket.cpp:601]",
# also glued to torch's rank prefix as in "[rank1]:[W ProcessGroupGloo.cpp:721]"): the
# message was logged as a warning, which a rule's exclusions must still see once the header
# is gone
_WARN_HEAD = re.compile(
    r"\bWARN(?:ING)?\b|(?:^|[\s\]:])\[?W(?:\d{3,4} \d{2}:|\s+[\w./-]+:\d+\])|^\[NeMo W "
)


# ... and an error level: "ERROR:root:", "x - ERROR -", loguru's "| ERROR |", "[CRITICAL]",
# glog's error and fatal lines ("E1124 05:...", "E901 05:..." before October, "[E socket.cpp:
# 601]", torch's "[rank1]:[E1206 ...]"), NeMo's "[NeMo E ..."
_ERROR_HEAD = re.compile(
    r"\b(?:ERROR|CRITICAL|FATAL)\b|(?:^|[\s\]:])\[?[EF](?:\d{3,4} \d{2}:|\s+[\w./-]+:\d+\])"
    r"|^\[NeMo [EC] "
)


def clean(raw: str) -> str:
    """``raw`` as it was printed: without a terminal's codes or a web page's escapes, which
    stand inside the words the rules read."""
    text = ANSI.sub("", raw) if "\x1b" in raw else raw
    if "\x00" in text:  # (NUL padding a truncated log left: logsource._NUL_PADDING)
        text = text.replace("\x00", "")
    if "&" in text:
        text = _ENTITY.sub(lambda m: ENTITIES[m.group()], text)
    return text


def _rank_host(prefix: str) -> str | None:
    """The host a line's prefix names for its rank: not slurmstepd's, which names the node
    its message is about ("slurmstepd-node07: error: *** JOB 80 ON node07 CANCELLED"), the
    batch step's node rather than a rank's host."""
    return None if prefix.startswith("slurmstepd-") else prefix


def strip(raw: str) -> Stripped:
    """Remove timestamps, log headers and rank/host prefixes (in any order they are stacked).
    A short line is looked up first: a traceback's frames repeat word for word, on every
    rank and at every exception (the interpreter prints them with no time stamp), and a log
    dense with tracebacks would strip each of them again."""
    return _strip_short(raw) if len(raw) <= _CACHED_LINE else _strip(raw)


def _strip(raw: str) -> Stripped:
    text = _uncsv(clean(raw).strip())
    whole = text
    rank: int | None = None
    label: int | None = None
    host: str | None = None
    container = False  # the host so far is a container's (compose's, kubectl's prefix)
    for _ in range(8):
        # (a prefix may leave the indentation of what followed it: "svc-1  |     [rank0]: x")
        stripped = text.lstrip()
        if not stripped or stripped[0] not in _PREFIX_STARTS:
            break
        if not _ANY_PREFIX.match(stripped):
            text = stripped  # (what a pass that matched nothing would have left)
            break
        before = text
        if _ANY_NOISE.match(stripped):
            # (in order, each on what the ones before left: a time stamp, then the level
            # after it; every noise is anchored at the start)
            for pat in _NOISE:
                if n := pat.match(stripped):
                    stripped = stripped[n.end() :]
        for rpat in _RANK_PREFIXES:
            m = rpat.match(stripped)
            if m:
                if rank is None:
                    rank = int(m.group(1))
                stripped = stripped[m.end() :]
                break
        else:
            if t := (
                _LOCAL_PREFIX.match(stripped)
                or _TASK_LABEL.match(stripped)
                or _OLMO_PREFIX.match(stripped)
            ):
                label = int(t[t.lastindex or 1]) if label is None else label
                stripped = stripped[t.end() :]
            elif p := _HOST_PROC_PREFIX.match(stripped):
                host = host or p.group(1)
                stripped = stripped[p.end() :]
            elif host is None and (x := _TORCHX_PREFIX.match(stripped)):
                host = x.group(1)
                if x.group(2) is not None and label is None:
                    label = int(x.group(2))
                stripped = stripped[x.end() :]
            elif h := _host_match(stripped, host, container):
                container = host is None and h.re in (_COMPOSE_PREFIX, _KUBECTL_PREFIX)
                host = _rank_host(h.group(1))
                stripped = stripped[h.end() :]
        text = stripped
        if text == before:
            break
    # (the prefixes come off the front only, so what is left is the end of the whole)
    return _message(text, rank, label, host, *_levels(whole[: len(whole) - len(text)]))


def _uncsv(text: str) -> str:
    """The message column of a log viewer's CSV export (``_CSV_TIME``); else ``text``."""
    if text[:1] == '"' and (csv := _CSV_TIME.match(text)):
        return text[csv.end() :].removesuffix('"').replace('""', '"')
    return text


_CACHED_LINE = 256  # characters: the cache holds at most 4,096 lines of this length
_strip_short = functools.lru_cache(maxsize=4096)(_strip)


def _host_match(text: str, host: str | None, container: bool) -> re.Match[str] | None:
    """The host prefix that comes off the start of ``text``: any host's while no prefix has
    named one, and after a container's (compose's, kubectl's) pdsh's, which names the host
    the line came from (DeepSpeed's runner in a pod)."""
    if host is None:
        return (
            _HOST_PREFIX.match(text)
            or _AI2_PREFIX.match(text)
            or _XLA_DIST_PREFIX.match(text)
            or _COMPOSE_PREFIX.match(text)
            or _KUBECTL_PREFIX.match(text)
        )
    return _HOST_PREFIX.match(text) if container else None


def _levels(head: str) -> tuple[bool, bool]:
    """Whether the headers taken off a line logged it at a warning level, and at an error
    level."""
    if not head:
        return False, False
    return _WARN_HEAD.search(head) is not None, _ERROR_HEAD.search(head) is not None


def _message(
    text: str, rank: int | None, label: int | None, host: str | None, warned: bool, errored: bool
) -> Stripped:
    """The message left once the prefixes are off, past a reporter's lead-in, with the rank
    a global prefix, a tag after the lead-in, a local label or the message itself names."""
    text = _unbold(text.strip())
    if errored and text.startswith(_UNCAUGHT) and _NAMED_FIRST.match(text, len(_UNCAUGHT)):
        text = text[len(_UNCAUGHT) :]
    if ("Error(" in text or "Exception(" in text) and (named := _from_repr(text)):
        text = named
    if ("Error:" in text or "Exception:" in text) and (lead := _lead_in(text)):
        text, tag = lead
        rank = tag if rank is None else rank
    rank = label if rank is None else rank
    if rank is None and "Rank" in text:
        m = _RANK_IN_TEXT.search(text) or _ASCEND_RANK.search(text)
        if m:
            rank = int(m.group(1))
    return Stripped(text.strip(), rank, host, warned, errored)


_BOLD_NAME = re.compile(r"^\*\*([A-Za-z_][\w.]*)\*\*(?=:)")
_ITALIC_NAME = re.compile(r"^([*_])((?:[A-Za-z_]\w*\.)*[A-Z]\w*)\1(?=: )")
# an exception's (dotted) class name and its message: what italics around a line must wrap
_NAMED_MESSAGE = re.compile(r"(?:[A-Za-z_]\w*\.)*[A-Z]\w*: ")


# A reporter's words before the exception a line names ("I got this error: KeyError: 'x'",
# "报错：RuntimeError: ...", "多卡运行显示错误[rank0]: TypeError: ..."), a quote around the
# exception ("\"ValueError: ...\"."), or a host's name that no prefix rule knows ("GPUCA6E:
# OSError: ..."). The words have no colon, bracket or quote in them and end at a colon, at
# a CJK character or before an opening quote; the exception after them has its own colon.
_LEAD_IN = re.compile(
    r"^(?P<lead>[^:：\[\]\"'`“”(){}<>|=]{0,60}?)"
    r"(?:\s*[:：]\s*|(?<=[\u3000-\u9fff\uff00-\uffef])\s*|\s*(?=[“\"'`]))"
    r"(?:\[rank(?P<rank>\d+)\]:\s?)?(?P<quote>[“\"'`]?)"
    rf"(?P<exc>{EXCEPTION_NAME}:(?:\s|$).*)"
)
# Only words that report the failure end a lead-in: a line that names an exception after
# other words ("Error loading image x.jpg: OSError: ...", "Recovered from: RuntimeError",
# "expected: KeyError") is a program's report of an error it went on after, or prose
_REPORTING_WORDS = (
    r"errors?|exception|traceback|message|got|gets?|getting|see|saw|shows?|showed"
    r"|showing|raised?|raises|throws?|threw|thrown|occurr?(?:ed|s)?|encounter(?:ed|s)?"
    r"|following|below|says|said|reports?|reported|output"
)
_REPORTING_END = re.compile(rf"(?i)\b(?:{_REPORTING_WORDS})$")
_REPORTING_END_CJK = re.compile(r"(?:错误|报错|错|如下|异常|问题|提示|出现|显示|信息)$")
# ... unless other words in it say the line goes on, or quotes an example
_NOT_A_FAILURE = re.compile(
    r"warn|info|debug|note|skip|ignor|fall ?back|retry|deprecat|example|e\.g\.|such as",
    re.IGNORECASE,
)
_CLOSING = {"“": "”"}
# AI2's trainers' excepthook (OLMo, OLMo-core) logs the exception that ended the process at
# CRITICAL as "Uncaught AssertionError: ...", often without the traceback under it
_UNCAUGHT = "Uncaught "
_NAMED_FIRST = re.compile(f"{EXCEPTION_NAME}:")
_HOST_WORD = re.compile(r"[A-Za-z][\w.-]*\d[\w.-]*")


# An exception printed as its repr after a report's words, or quoted as code: a sweep
# agent's "Run 3xk2 errored: RuntimeError('...')" (wandb), a loader's "raise error:
# ValueError(\"...\")", a reporter's `RuntimeError('...')`. A line that goes on after the
# closing parenthesis, or that calls the class (a source line's ``raise X('...'.format(``),
# is not one; nor a bare repr line, which Hydra prints under its own report (LX653).
_REPR = re.compile(
    r"^(?:(?P<lead>[^:：\[\]\"'`(){}<>|=]{0,60}?)\s*[:：]\s*)?(?P<open>`?)"
    rf"(?P<name>{EXCEPTION_NAME})\((?P<quote>['\"])(?P<message>.*)(?P=quote)\)(?P<close>`?)\.?$"
)
# the words before a repr that report it: _REPORTING_END's, and a run "errored" (wandb)
_REPORTED_REPR = re.compile(rf"(?i)\b(?:{_REPORTING_WORDS}|errored)$")


def _from_repr(text: str) -> str | None:
    """``Name: message`` for a line that is an exception's repr after words that report it
    (as ``_lead_in`` reads them) or between backticks; None for any other line."""
    m = _REPR.match(text)
    if m is None:
        return None
    lead = (m.group("lead") or "").strip()
    # (the noise a line's start loses may have taken the opening backtick)
    if not (lead or m.group("open") or m.group("close")):
        return None
    if lead and (_NOT_A_FAILURE.search(lead) or not _REPORTED_REPR.search(lead)):
        return None
    return f"{m.group('name')}: {m.group('message')}"


def _lead_in(text: str) -> tuple[str, int | None] | None:
    """The exception line behind a reporter's lead-in, with the rank a tag between them
    names; None where the line starts with its exception already (a chained message stays
    whole), or the words before it do not report it. A quoted exception counts only where
    its quote closes at the end of the line (a sentence's full stop after it): a quote in
    the middle of a sentence is an example, and one that never closes may be a cut
    message's."""
    if _NAMED_FIRST.match(text):  # most such lines: the exception comes first already
        return None
    m = _LEAD_IN.match(text)
    if m is None:
        return None
    lead = m.group("lead").strip().rstrip(" ,，-–>=")
    quote = m.group("quote")
    if _NOT_A_FAILURE.search(lead):
        return None
    if lead.isascii():
        reported = _REPORTING_END.search(lead) is not None and " " in lead
    else:
        reported = _REPORTING_END_CJK.search(lead) is not None
    if not (reported or (not lead and quote) or _HOST_WORD.fullmatch(lead)):
        return None
    exc = m.group("exc").strip()
    if quote:
        close = _CLOSING.get(quote, quote)
        body = exc.removesuffix(".").rstrip() if exc.endswith(close + ".") else exc
        if not body.endswith(close):
            return None
        exc = body[: -len(close)].rstrip()
    tag = m.group("rank")
    return exc, None if tag is None else int(tag)


def _unbold(text: str) -> str:
    """``_unbold_once``, also through bold in italics ("_**RuntimeError: x**_") and to a
    heading made bold ("**### RuntimeError: x**")."""
    if text.startswith("_**") and text.endswith("**_"):
        text = text[1:-1]
    out = _unbold_once(text)
    return _HEADING.sub("", out, count=1) if out is not text and out[:1] == "#" else out


def _unbold_once(text: str) -> str:
    """The line without the Markdown bold an issue's reporter put around it, or around the
    exception's name ("**RuntimeError: ...**", "**ValueError**: ..."), or the italics
    ("_RuntimeError: ..._", "*ValueError*: ..."), where what they wrap reads as an
    exception's name and its message; a source line's ``**kwargs`` stays, and so do
    ``*args*``, a mangled C++ name between underscores and a private module's exception
    ("_pickle.UnpicklingError: ...", whose second character is not a capital). A Markdown
    list item's marker goes too where the item is an exception's name and message ("-
    ValueError: ..."), so that every rule reads the exception, not only the script's."""
    mark = text[:1]
    if mark in ("-", "*", "+") and text[1:2] == " " and _NAMED_MESSAGE.match(text, 2):
        return text[2:]
    if mark in ("_", "*"):
        if m := _ITALIC_NAME.match(text):
            return m.group(2) + text[m.end() :]
        if (
            text[1:2].isupper()
            and text.endswith(mark)
            and not text.endswith(mark * 2)
            and _NAMED_MESSAGE.match(text, 1)
        ):
            return text[1:-1].strip()
    if not text.startswith("**") or text.startswith("***"):
        return text
    if m := _BOLD_NAME.match(text):
        return m.group(1) + text[m.end() :]
    if text.endswith("**") and len(text) > 4:
        return text[2:-2]
    return text[2:] if text[2:3].isupper() or text[2:3] == "[" else text


def timestamp(raw: str) -> float | None:
    """The time a line's header carries, in seconds within its year, or None."""
    head = raw[:_TS_WINDOW]
    m = _ISO.search(head)
    if m:
        month, day = int(m.group(2)), int(m.group(3))
        h, mi, s, frac = m.group(4), m.group(5), m.group(6), m.group(7)
    else:
        g = _GLOG.search(head)
        if g is None:
            return None
        month, day = int(g.group(1)), int(g.group(2))
        h, mi, s, frac = g.group(3), g.group(4), g.group(5), g.group(6)
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    secs = ((month - 1) * 31 + (day - 1)) * 86400 + int(h) * 3600 + int(mi) * 60 + int(s)
    return secs + (float("0." + frac) if frac else 0.0)


def torchrun_time(value: str) -> float | None:
    """torchrun's summary ``time : 2024-05-01_10:00:00`` in the same scale as ``timestamp``."""
    return timestamp(value.replace("_", " ", 1))


# ----------------------------------------------------------------- torchrun's summary

ROOT_HEADER = re.compile(r"^Root Cause(?: \(first observed failure\))? ?:")
OTHER_HEADER = re.compile(r"^(?:Other )?Failures:")
BLOCK_START = re.compile(r"^\[(\d+)\]:$")
BLOCK_RANK = re.compile(r"^rank\s*:?\s*(\d+)\s*\(local[_ ]rank\s*:\s*(\d+)\)")
BLOCK_EXIT = re.compile(r"^exitcode\s*:\s*(-?\d+)")
BLOCK_HOST = re.compile(r"^host\s*:\s*(\S+)")
BLOCK_TIME = re.compile(r"^time\s*:\s*(\S+)")
# any field of a rank's block: what torchrun says of a rank, not the rank's own words
SUMMARY_FIELD = re.compile(r"^\s*(?:time|host|rank|exitcode|error_file|traceback|msg)\s*:")
BORDER = re.compile(r"^(?:={8,}|-{8,}|\*{8,})$")
# the agent's line for the first rank that failed (another wording names the binary first)
FIRST_FAILED = re.compile(
    r"failed \(exitcode: (-?\d+)\) (?:for binary located at .*? with )?local_rank: (\d+)"
)
DEEPSPEED_LONE_RANK_EXIT = r"--local_rank=(?P<rank>0)'.*\] exits with return code = "
"""DeepSpeed's launch.py reporting a rank's exit, believed as a rank only where its one process
is local rank 0: the command it prints is the one its spawning loop built last
(sigkill_handler's `cmd`), whichever rank failed, so "--local_rank=1" there names the second
of two, not the one that exited. The exit code (or -signal) follows."""

LAUNCHER_FAILED: tuple[re.Pattern[str], ...] = (
    # composer's launcher, horovodrun's driver (its first line is the first process to
    # exit), DeepSpeed's launch.py with one process
    re.compile(r"Rank (?P<rank>\d+) crashed with exit code (?P<code>-?\d+)"),
    re.compile(rf"{DEEPSPEED_LONE_RANK_EXIT}(?P<code>-?\d+)"),
    re.compile(r"^Process (?P<rank>\d+) exit with status code (?P<code>\d+)"),
    # torchelastic's agent before it moved into torch (0.2: "Child process 8641 (local_rank 0)
    # FAILED (exitcode 1)")
    re.compile(
        r"Child process \d+ \(local_rank (?P<rank>\d+)\) FAILED \(exitcode (?P<code>-?\d+)\)"
    ),
    # torch.distributed.launch before torchrun, believed only where its one process is local
    # rank 0: its CalledProcessError shows the command its spawning loop built last (the last
    # local rank's), whichever process failed
    re.compile(
        r"CalledProcessError: Command '\[.*'--local_rank=(?P<rank>0)'.*\]' (?:returned "
        r"non-zero exit status (?P<code>\d+)|died with <Signals\.SIG(?P<signame>[A-Z]+\d*):)"
    ),
)
"""The other launchers' word for the first rank that failed, with its exit code (or its
signal's name: ``failed_exit_code``), where no torchrun summary names one: (local) rank and
code, like torchrun's ``FIRST_FAILED``."""
SPAWNER_FAILED: tuple[re.Pattern[str], ...] = (
    # torch.multiprocessing.spawn's join, for the first child it finds dead without an
    # exception of its own
    re.compile(
        r"ProcessExitedException: process (?P<rank>\d+) terminated with (?:exit code "
        r"(?P<code>-?\d+)|signal SIG(?P<signame>[A-Z]+\d*))"
    ),
    # torch's own multi-process test harness (MultiProcessTestCase)
    re.compile(
        r"(?:^|\d{2}:\d{2}:\d{2} )Process (?P<rank>\d+) terminated with exit code "
        r"(?P<code>-?\d+), terminating remaining processes"
    ),
    # ... and its check of the exit codes after the test, naming the processes that raised
    # (its error code): believed where it names one ("Process 2 exited with error code 10
    # and exception:", before torch 2.1 "Processes 2 exited with error code 10")
    re.compile(r"(?:^|: )Process(?:es)? (?P<rank>\d+) exited with error code (?P<code>\d+)\b"),
)
"""The same word from a spawner that a rank's own code can run too (a rank's mp.spawn of
helpers): counted only on lines that no rank printed. The exit code or the signal."""


LIGHTNING_CHILD_FAILED = re.compile(
    r"^Child process with PID \d+ terminated with code (?P<code>-?\d+)\. Forcefully "
    r"terminating all other processes"
)
"""Lightning's (2.x) observer thread in the main process, which polls the children it
started every 5 s and reports the first it finds with a non-zero return code before killing
the rest; the rank is the prefix it writes ("[rank: 1] Child process ...": the child's local
rank, main being 0). The line names no rank of its own, so the caller takes the prefix's.
Believed, unlike torch.distributed.launch's report of one of several processes, because the
observer looks at every child each time: only a lower child that died within the same 5 s
could be named instead."""


def failed_exit_code(m: re.Match[str]) -> int | None:
    """The exit code a ``SPAWNER_FAILED`` or ``LAUNCHER_FAILED`` match names, a signal as its
    negative number as torchrun writes it; None for a signal this host does not know by that
    name."""
    groups = m.groupdict()  # most patterns have no signal group
    if groups.get("code") is not None:
        return int(groups["code"])
    name = groups.get("signame")
    sig = getattr(signal.Signals, f"SIG{name}", None) if name else None
    return -sig.value if sig is not None else None


ROOT_FACTS = re.compile(r"^(?:exitcode|traceback|msg)\s*:|failed \(exitcode")
HEADLESS_FACT = re.compile(r"^(?:exitcode\s*:\s*-\d+|traceback\s*:\s*Signal \d+ \(SIG\w+\))")
"""A summary field that says how a rank died, in a paste that starts below the summary's
headers: with no ``Root Cause``/``Failures`` header or ``[N]:`` block above it, it is the
one failure the user copied (torchrun lists the root cause last, so pastes keep its end)."""


@dataclass(frozen=True)
class FailureEntry:
    """One rank's entry in torchrun's failure summary (``Root Cause`` or ``Failures``)."""

    rank: int
    local_rank: int | None
    exit_code: int | None
    host: str | None
    is_root: bool
    ts: float | None
    source: str
    line_no: int
