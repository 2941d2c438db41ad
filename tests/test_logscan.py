"""The streaming scanner: the same result whatever the chunk size, wrapped and prefixed
messages joined, bounded memory on huge or hostile input, and line normalisation."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from launchx import failure_rules as fr
from launchx import failures, loglines, logscan, runview
from launchx.logscan import SourceInfo

DEV = Path(__file__).parent / "fixtures" / "logs" / "dev"
RUNS = Path(__file__).parent / "fixtures" / "runs"


def _body(path: Path) -> str:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(lines[3:])


def _scan(text: str, chunk: int = logscan.CHUNK, name: str = "x.log") -> logscan.SourceScan:
    data = io.BytesIO(text.encode())
    return logscan.scan_stream(data, SourceInfo(name=name), chunk=chunk)


def _key(scan: logscan.SourceScan) -> tuple[object, ...]:
    lines = sorted((ln.line_no, ln.rank, ln.text, ln.in_root) for ln in scan.lines)
    return (lines, sorted(map(repr, scan.entries)), scan.line_count, scan.bytes_read)


SUMMARY_LOGS = [
    DEV / "user_code_error__torchrun_gloo_keyerror.log",
    DEV / "cuda_oom__accelerate_1519_two_node_summaries.log",
    DEV / "nccl_watchdog_timeout__milabench_269_wrapped_prefixed.log",
    RUNS / "two_nodes_sigkill" / "node-1" / "launcher.log",
]


@pytest.mark.parametrize("path", SUMMARY_LOGS, ids=lambda p: p.name)
@pytest.mark.parametrize("chunk", [64, 333, 4096])
def test_chunk_boundaries_change_nothing(path: Path, chunk: int) -> None:
    text = _body(path) if path.parent == DEV else path.read_text()
    assert _key(_scan(text, chunk)) == _key(_scan(text))


def test_a_summary_field_pasted_without_its_headers_is_the_root_failure() -> None:
    # the user copied only the end of the summary: the one failure there is the root cause
    p = _primary("> traceback : Signal 9 (SIGKILL) received by PID 492347\n")
    assert (p.category, p.code) == ("killed", "LX515")
    # a paste that began among the other failures: the Root Cause block further down is
    # the root, the headless SIGKILL above it another rank's
    other = (
        "  exitcode  : -9 (pid: 12)\n"
        "  traceback : Signal 9 (SIGKILL) received by PID 12\n"
        "------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n[0]:\n"
        "  time      : 2024-05-01_10:00:00\n  host      : node1\n"
        "  rank      : 0 (local_rank: 0)\n  exitcode  : 1 (pid: 11)\n"
        "  error_file: <N/A>\n"
    )
    assert all(d.code != "LX515" for d in failures.diagnose_logs([other]).findings)


def test_a_block_pasted_from_its_rank_line_names_the_rank_that_failed() -> None:
    """A paste that begins at the block's own rank line (deim 43 in the corpus: "rank : 0
    (local_rank: 0)", "exitcode : 1", no header, no "[0]:") is the one failure copied: its
    rank failed first; a header further down makes it one of the other failures."""
    block = (
        "rank : 0 (local_rank: 0)\n"
        "exitcode : 1 (pid: 16677)\n"
        "error_file: <N/A>\n"
        "traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
    )
    scan = _scan(block)
    assert [(e.rank, e.exit_code, e.is_root) for e in scan.entries] == [(0, 1, True)]
    assert runview.analyse([scan]).roles("root") == (0,)
    later = (
        "============================================================\n"
        "Root Cause (first observed failure):\n[1]:\n"
        "  rank      : 3 (local_rank: 1)\n  exitcode  : -9 (pid: 11)\n"
        "  error_file: <N/A>\n"
    )
    scan = _scan(block + later)
    assert sorted((e.rank, e.is_root) for e in scan.entries) == [(0, False), (3, True)]
    # begun two fields higher (sockeye 1039): the host above the rank line is the block's;
    # a "host:" of a configuration printed further up is not
    fields = "  time      : 2022-04-06_11:46:18\n  host      : cn102.example.org\n"
    scan = _scan(fields + block)
    assert [(e.rank, e.host, e.ts is not None) for e in scan.entries] == [
        (0, "cn102.example.org", True)
    ]
    scan = _scan("host: 10.0.0.1\nport: 22\nepochs: 3\n" + block)
    assert [(e.rank, e.host) for e in scan.entries] == [(0, None)]


def test_a_pasted_block_ends_where_its_fields_do() -> None:
    """A block opened at its rank line has no border to end it in a paste: it ends at a line
    a rank printed, or at the first line that is none of its fields past its traceback's;
    the lines after it are neither its rank's nor the root's. Its lines stop being the
    root's too when a header further down demotes it."""
    block = (
        "rank : 0 (local_rank: 0)\n"
        "exitcode : 1 (pid: 16677)\n"
        "error_file: <N/A>\n"
        "traceback : Traceback (most recent call last):\n"
    )
    ranked = (
        "\n[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "t.py", line 3, in <module>\n'
        "[rank1]: ValueError: bad value\n"
    )
    scan = _scan(block + ranked)
    value = next(ln for ln in scan.lines if ln.text.startswith("ValueError"))
    assert (value.rank, value.in_root) == (1, False)
    p = failures.diagnose_logs([block + ranked]).primary
    assert p is not None and (p.code, p.rank) == ("LX511", 1)
    steps = "".join(f"step {i} loss 1.{i:04d} WARNING slow\n" for i in range(200))
    scan = _scan(block.replace("traceback : Traceback (most recent call last):\n", "") + steps)
    assert sum(ln.in_root for ln in scan.lines) == 3  # its three fields, no step
    demoted = _scan(
        block
        + "Root Cause (first observed failure):\n[1]:\n"
        + "  rank      : 3 (local_rank: 1)\n  exitcode  : -9 (pid: 11)\n"
    )
    assert {ln.rank for ln in demoted.lines if ln.in_root} == {3}


def test_a_block_whose_index_line_was_lost_is_still_a_block() -> None:
    """Markdown reads a line "[0]:" as a link's definition and drops it (metax forum 430):
    the rank line under the Root Cause header opens the root block, under "Failures:" one
    of the others."""
    text = (
        "Failures:\n"
        "  host      : node-1\n"
        "  rank      : 3 (local_rank: 1)\n"
        "  exitcode  : -15 (pid: 12)\n"
        "------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n"
        "rank: 5 (local_rank: 5)\n"
        "error_file: /tmp/torchelastic_x/attempt_0/5/error.json\n"
        "exitcode: 1\n"
        "============================================================\n"
    )
    scan = _scan(text)
    assert sorted((e.rank, e.exit_code, e.is_root, e.host) for e in scan.entries) == [
        (3, -15, False, "node-1"),
        (5, 1, True, None),
    ]


def test_a_summary_retyped_with_loose_spacing_is_still_read() -> None:
    # a summary copied from a screenshot: a space before the header's colon, the rank's
    # field glued to its name and "local rank" with a space
    text = (
        "Root Cause (first observed failure) :\n[0]:\n"
        "rank2 (local rank: 2)exitcode: -9 (pid: 36071)error file: <N/A>\n"
        "traceback : Signal 9 (SIGKILL) received by PID 36071\n"
    )
    p = _primary(text)
    assert (p.code, p.rank) == ("LX515", 2)


def test_summary_blocks_read_across_chunks() -> None:
    text = (RUNS / "two_nodes_sigkill" / "node-1" / "launcher.log").read_text()
    scan = _scan(text, chunk=97)
    roots = [(e.rank, e.exit_code, e.host) for e in scan.entries if e.is_root]
    others = [(e.rank, e.exit_code) for e in scan.entries if not e.is_root]
    assert roots == [(2, -9, "localhost")]
    assert others == [(3, -15)]


# ------------------------------------------------------------------ wrapped messages


def _primary(text: str) -> failures.Diagnosis:
    report = failures.diagnose_logs([text])
    assert report.primary is not None
    return report.primary


def test_a_message_wrapped_with_a_rank_prefix_on_every_fragment() -> None:
    text = (
        "[rank0]: RuntimeError: The server socket has failed to listen on any local network "
        "address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already\n"
        "[rank0]: in use).\n"
    )
    p = _primary(text)
    assert (p.category, p.rank) == ("port_in_use", 0)
    assert "Address already in use" in p.evidence[0]


def test_a_message_cut_mid_word_by_a_terminal() -> None:
    text = (
        "RuntimeError: The server socket has failed to listen on any local network addre\n"
        "ss. The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address alre\n"
        "ady in use).\n"
    )
    assert _primary(text).category == "port_in_use"


def test_the_rest_of_a_wrapped_line_without_its_prefix() -> None:
    text = (
        "[rank3]:[E909 09:55:46.996 ProcessGroupNCCL.cpp:1709] [PG 0 (default_pg) Rank 3] "
        "Timeout at NCCL work: 2070, last enqueued \n"
        "NCCL work: 2082, last completed NCCL work: 2069.\n"
    )
    scan = _scan(text)
    assert [(w.rank, w.timed_out, w.enqueued, w.completed) for w in scan.watchdog] == [
        (3, 2070, 2082, 2069)
    ]


def test_torchruns_failure_line_wrapped_by_a_terminal_is_the_roots() -> None:
    """A terminal 80 columns wide splits torchrun's "failed (exitcode: -9) local_rank: 1"
    after "failed": joined, it names the rank that failed first; a whole such line below a
    long line that is another's does not make that line the root's."""
    first = "sed: 706s, ETA:   196sERROR:torch.distributed.elastic.multiprocessing.api:failed"
    rest = "(exitcode: -9) local_rank: 1 (pid: 3636) of binary: /home/u/anaconda3/envs/mm/bin"
    p = _primary(f"{first}\n {rest}\n")
    assert (p.code, p.rank) == ("LX515", 1)
    assert logscan._first_failed(first, f"{first}\n{rest}") is True
    long_line = (
        "[rank1]: KeyError: 'labels' (caught by the data loop, which logged it and went on to "
        "the next shard)"
    )
    whole = "failed (exitcode: -9) local_rank: 1 (pid: 3636) of binary: /usr/bin/python"
    assert logscan._first_failed(long_line, f"{long_line}\n{whole}") is False
    assert logscan._first_failed(whole, None) is True


def test_torchruns_failure_line_wrapped_inside_local_rank() -> None:
    """The same line wrapped inside "local_rank" (a long logger name before it): the two
    pieces put together without a space name the rank, as the summary's state machine,
    which reads this line, finds its pieces."""
    text = (
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_\n"
        "rank: 3 (pid: 407727) of binary: /fs/nexus-scratch/u/anaconda/envs/egovlp/bin/py\n"
        "thon\n"
    )
    p = _primary(text)
    assert (p.code, p.rank) == ("LX515", 3)


def test_a_traceback_frame_wrapped_by_a_terminal() -> None:
    """A frame cut in two ('..., lin' / 'e 31, in _init_dist_pytorch') is put back
    together, and the source line under it is the one below its last piece: the rule that
    reads `set_device(rank % num_gpus)` above a ZeroDivisionError still finds it."""
    frame = (
        '  File "/usr/local/lib/python3.10/dist-packages/mmcv/runner/dist_utils.py", line 31, '
        "in _init_dist_pytorch"
    )
    text = (
        "Traceback (most recent call last):\n"
        f"{frame[:80]}\n{frame[80:]}\n"
        "    torch.cuda.set_device(rank % num_gpus)\n"
        "ZeroDivisionError: integer division or modulo by zero\n"
    )
    scan = _scan(text)
    assert frame.strip() in [ln.text for ln in scan.lines]
    assert "torch.cuda.set_device(rank % num_gpus)" in [ln.text for ln in scan.lines]
    assert _primary(text).category == "cuda_config_error"
    # a frame with something after its end (a logger's column) is not joined to the next
    # frame below its source line
    tailed = f"{frame}      rich.py:12"
    text = f"Traceback (most recent call last):\n{tailed}\n    x = f()\n{frame}\nKeyError: 1\n"
    assert [ln.text for ln in _scan(text).lines][:3] == [tailed.strip(), "x = f()", frame.strip()]
    # a frame line that ends where it should is not joined to the line under it
    whole = _scan(
        f"Traceback (most recent call last):\n{frame}\n    x = 1 / 0\nZeroDivisionError: x\n"
    )
    assert [ln.text for ln in whole.lines][:2] == [frame.strip(), "x = 1 / 0"]


def test_unrelated_neighbours_are_not_glued_into_a_match() -> None:
    """A join is only believed where a pattern spans the break: two complete lines that
    happen to end and start with the right words do not make a CUDA OOM."""
    text = (
        "epoch 3 finished; evaluating the model on the held out split now, please wait, CUDA\n"
        "KeyError: 'labels'\n"
    )
    p = _primary(text)
    assert p.category == "user_code_error"


def test_carriage_return_frames_before_an_error() -> None:
    text = "[rank1]:  50%|#####     | 5/10 [00:01<00:01]\r[rank1]: KeyError: 'labels'\n"
    p = _primary(text)
    assert (p.category, p.rank) == ("user_code_error", 1)


def test_the_source_line_under_a_frame_is_kept_for_a_bare_exception() -> None:
    # a bare AssertionError names its failure only in the source line of the frame above it
    text = (
        "noise without any anchor\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 543, in <module>\n'
        "    assert torch.cuda.device_count() > opt.local_rank\n"
        "AssertionError\n"
    )
    kept = [ln.text.strip() for ln in _scan(text).lines]
    assert "assert torch.cuda.device_count() > opt.local_rank" in kept
    assert "noise without any anchor" not in kept
    assert _primary(text).code == "LX540"


@pytest.mark.parametrize("prefix", ["", "[rank0]: ", "0: "])
def test_a_bare_exception_under_richs_traceback_box_is_the_scripts(prefix: str) -> None:
    """rich draws the frames in a box (no 'File "' line): its last line, under any prefix,
    says the bare Exception under it ended a traceback; a script's own print does not."""
    box = (
        "╭──────── Traceback (most recent call last) ────────╮\n"
        "│ /w/tok.py:114 in convert                            │\n"
        "│   fast_tokenizer = convert_slow_tokenizer(slow)     │\n"
        "╰─────────────────────────────────────────────────────╯\n"
        "Exception: expected value at line 1 column 1\n"
    )
    text = "".join(prefix + line + "\n" for line in box.splitlines())
    assert _primary(text).code == "LX656"
    printed = prefix + "Exception: expected value at line 1 column 1\n"
    assert failures.diagnose_logs([printed]).primary is None or (_primary(printed).code != "LX656")


def test_an_error_file_message_is_split_where_its_lines_were() -> None:
    """torchrun's agent logs the child's error file as JSON: the traceback is one string
    with escaped line breaks, and its exception line is the cause."""
    text = (
        "ERROR:torch.distributed.elastic.multiprocessing.errors.error_handler:{\n"
        '  "message": {\n'
        '    "message": "Traceback (most recent call last):\\n  File \\"train.py\\", line 9, '
        "in <module>\\n    main()\\nKeyError: 'labels'\\n\",\n"
        '    "extraInfo": {\n'
    )
    p = _primary(text)
    assert p.category == "user_code_error"
    assert p.evidence[0].startswith("KeyError: 'labels'")


def test_an_error_file_printed_in_the_summary_block_is_its_exception() -> None:
    """torch 1.9's elastic launcher printed the error file under "msg:", one JSON key a line: the
    message's exception is the root cause of that block's rank, not a JSON line."""
    text = (
        "Root Cause:\n"
        "[0]:\n"
        "  time: 2021-09-14_22:01:06\n"
        "  rank: 0 (local_rank: 0)\n"
        "  exitcode: 1 (pid: 1092727)\n"
        "  error_file: /tmp/torchelastic_x/none_y/attempt_0/0/error.json\n"
        "  msg:\n"
        "    {\n"
        '      "message": "RuntimeError: raising error since --throw was specified",\n'
        '      "extraInfo": {\n'
    )
    scan = _scan(text)
    assert "RuntimeError: raising error since --throw was specified" in [
        ln.text for ln in scan.lines if ln.in_root
    ]
    p = _primary(text)
    assert (p.category, p.code, p.rank) == ("user_code_error", "LX511", 0)


def test_an_error_file_logged_one_key_a_line_is_its_exception() -> None:
    """The error handler's own log of the file, outside torchrun's summary block: a one-line
    message (no escaped line breaks) is still the exception it holds."""
    text = (
        "ERROR:torch.distributed.elastic.multiprocessing.errors.error_handler:{\n"
        '  "message": {\n'
        '    "message": "Exception: CUDA SETUP: Setup Failed!",\n'
        '    "extraInfo": {\n'
        '      "timestamp": "1679040000"}\n'
    )
    kept = [ln.text for ln in _scan(text).lines]
    assert "Exception: CUDA SETUP: Setup Failed!" in kept
    assert _primary(text).code == "LX764"


def test_escaped_line_breaks_outside_an_error_file_are_left_alone() -> None:
    text = "ValueError: expected 'a\\nb' in the config\n"
    scan = _scan(text)
    assert [ln.text for ln in scan.lines] == ["ValueError: expected 'a\\nb' in the config"]


def test_an_unprefixed_exception_between_prefixed_lines_takes_their_rank() -> None:
    text = (
        "[rank2]: step 10\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
        "[rank2]: Traceback (most recent call last):\n"
    )
    assert _primary(text).rank == 2


def test_a_header_the_line_reader_does_not_know_is_learnt_from_the_traceback() -> None:
    """A team's own log format before every line: the traceback's frames show the header, and
    the exception line under them loses the same one (its numbers changed), keeping the
    rank prefix after it; the frames are kept without it too."""
    text = (
        "17:02:11.207 node3 trainer | [rank5]: step 9\n"
        "17:02:11.208 node3 trainer | [rank5]: Traceback (most recent call last):\n"
        '17:02:11.208 node3 trainer | [rank5]:   File "train.py", line 88, in <module>\n'
        "17:02:11.208 node3 trainer | [rank5]:     batch = next(it)\n"
        "17:02:11.209 node3 trainer | [rank5]: KeyError: 'labels'\n"
    )
    p = _primary(text)
    assert (p.category, p.code, p.rank) == ("user_code_error", "LX511", 5)
    assert p.evidence == (
        '[rank 5] File "train.py", line 88, in <module>',
        "[rank 5] KeyError: 'labels'",
    )
    # with a header of its own shape on every line, and no rank prefix after it
    text = "".join(
        f"job-7 #{i}> {line}\n"
        for i, line in enumerate(
            [
                "Traceback (most recent call last):",
                '  File "train.py", line 3, in <module>',
                "ValueError: bad shape",
            ]
        )
    )
    assert _primary(text).code == "LX511"


class _Pipe(io.BytesIO):
    """A stream that cannot be read ahead and rewound, as stdin's pipe."""

    def seekable(self) -> bool:
        return False


@pytest.mark.parametrize("chunk", [64, logscan.CHUNK])
def test_the_header_the_tracebacks_show_comes_off_the_lines_above_them_too(chunk: int) -> None:
    """Learnt from the head of the log before any line is read (a file read ahead, a pipe
    held until its head is in), so the lines above the first traceback lose it as well, and
    the chunks the log is read in change nothing."""
    lines = [
        "Cuda failure 217 'peer access is not supported between these two devices'",
        "Traceback (most recent call last):",
        '  File "train.py", line 9, in <module>',
        "    main()",
        '  File "train.py", line 5, in main',
        "    dist.barrier()",
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970",
    ]
    text = "".join(f"[job 7 | {i:02d}s] ~ {line}\n" for i, line in enumerate(lines))
    scans = [
        logscan.scan_stream(stream(text.encode()), SourceInfo(name="x.log"), chunk=chunk)
        for stream in (io.BytesIO, _Pipe)
    ]
    assert _key(scans[0]) == _key(scans[1])
    assert lines[0] in [ln.text for ln in scans[0].lines]
    assert runview.analyse(scans[:1]).primary.code == "LX573"


def test_a_header_not_on_the_traceback_is_left_on_the_line() -> None:
    """Only the header the frames carry comes off: an exception line under another header,
    or a frame with nothing before it, leaves the line as it was (quoted in prose, it is
    not the script's exception)."""
    text = (
        '17:02:11.208 node3 trainer |   File "train.py", line 88, in <module>\n'
        "my notes: ValueError: bad shape\n"
    )
    assert failures.diagnose_logs([text]).primary is None
    lines = [ln.text for ln in _scan(text).lines]
    assert "my notes: ValueError: bad shape" in lines
    # a program's report of errors it got past, line after line, is no header to learn
    text = (
        "Error loading image 12.jpg: OSError: image file is truncated\n"
        "Error loading image 13.jpg: OSError: image file is truncated\n"
    )
    assert failures.diagnose_logs([text]).primary is None


_FRAMED = [
    "Traceback (most recent call last):",
    '  File "train.py", line 9, in <module>',
    "    main()",
    '  File "train.py", line 5, in main',
    "    dist.init_process_group('gloo')",
]


def test_the_lines_read_around_a_candidate_lose_the_learnt_header_too() -> None:
    """A message a terminal wrapped, under the header the log's tracebacks carry: its
    fragments are joined once the header is off each of them, as the line is."""
    lines = [
        *_FRAMED,
        "RuntimeError: The server socket has failed to listen on any local network address. "
        "The server socket has failed to bind to [::]:29500 (errno: 98 - Address already",
        "in use).",
    ]
    text = "".join(f"[job 7 | {i:02d}s] ~ {line}\n" for i, line in enumerate(lines))
    p = failures.diagnose_logs([text]).primary
    assert p is not None and (p.category, p.code) == ("port_in_use", "LX505")


def test_a_learnt_header_comes_off_a_line_a_terminal_coloured_or_a_page_escaped() -> None:
    lines = [*_FRAMED, "KeyError: 'labels'"]
    text = "".join(f"\x1b[31m[job 7 | {i:02d}s] ~ {line}\x1b[0m\n" for i, line in enumerate(lines))
    p = failures.diagnose_logs([text]).primary
    assert p is not None and p.code == "LX511"
    assert "KeyError: 'labels'" in [ln.text for ln in _scan(text).lines]
    # an escape is read once: a page's "&amp;lt;" is the message's "&lt;", not "<"
    lines = [*_FRAMED, "ValueError: expected a &amp;lt; b, got &#39;b&#39;"]
    text = "".join(f"[job 7 | {i:02d}s] ~ {line}\n" for i, line in enumerate(lines))
    assert "ValueError: expected a &lt; b, got 'b'" in [ln.text for ln in _scan(text).lines]


def test_a_library_error_named_under_its_module_loses_the_learnt_header() -> None:
    """An exception class EXCEPTION_LINE's endings miss ("cv2.error") is an exception line
    under a header too."""
    lines = [*_FRAMED, "cv2.error: OpenCV(4.8.0) resize.cpp:4062: error: (-215:Assertion failed)"]
    text = "".join(f"job-7 #{i}> {line}\n" for i, line in enumerate(lines))
    texts = [ln.text for ln in _scan(text).lines]
    assert any(t.startswith("cv2.error: OpenCV") for t in texts), texts


def test_a_worker_tag_in_a_header_is_read_by_its_digits() -> None:
    """The digits of a header are read as shapes, with 0 kept: vLLM's first data-parallel
    engine's tag ("EngineCore_DP0") is a prefix the line reader reads, the others' a tag it
    takes off, so a header learnt over DP0's frames stops before it."""
    lines = [
        "Traceback (most recent call last):",
        '  File "t.py", line 9, in <module>',
        "    main()",
    ]
    tag = "(EngineCore_DP0 pid=12) (VllmWorker TP1 pid=34)"
    text = "".join(f"job-{i} {tag} {line}\n" for i, line in enumerate(lines))
    text += "job-9 (EngineCore_DP2 pid=13) (VllmWorker TP1 pid=35) KeyError: 'labels'\n"
    last = max(_scan(text).lines, key=lambda ln: ln.line_no)
    assert (last.text, last.rank) == ("KeyError: 'labels'", None)


def test_a_traceback_further_up_than_a_chunk_keeps_lends_no_header() -> None:
    """The header is looked for in the lines every chunk keeps above the line it reads: a
    frame further up is another traceback's, and whether it was still in the buffer
    depended on where the chunk began."""
    body = [*_FRAMED[:2], *(f"step {i}" for i in range(40)), "ValueError: bad shape"]
    text = "".join(f"job-7 #{i}> {line}\n" for i, line in enumerate(body))
    last = max(_scan(text).lines, key=lambda ln: ln.line_no)
    assert last.text == "job-7 #42> ValueError: bad shape"
    assert all(_key(_scan(text, chunk)) == _key(_scan(text)) for chunk in (64, 333, 4096))
    near = "".join(f"job-7 #{i}> {line}\n" for i, line in enumerate([*body[:2], body[-1]]))
    assert max(_scan(near).lines, key=lambda ln: ln.line_no).text == "ValueError: bad shape"


def test_a_quote_a_web_page_escaped_still_anchors_its_line() -> None:
    """An anchor that holds a quote is found in a log copied out of a page's source, where
    the quote is an escape (the line reader unescapes it for the rules)."""
    said = "/usr/bin/python3: can't find '__main__' module in '/workspace/train'\n"
    for escape in ("&#39;", "&#x27;", "&apos;"):
        p = failures.diagnose_logs([said.replace("'", escape)]).primary
        assert p is not None and p.code == "LX574", escape
    said = 'The "freeze_support()" line can be omitted if the program is not going to be frozen\n'
    p = failures.diagnose_logs([said.replace('"', "&quot;")]).primary
    assert p is not None and p.code == "LX648"


def test_an_escaped_page_is_not_all_candidates() -> None:
    """The escapes alone anchor nothing: a page's every quoted line (a Trainer's metrics at
    each step, JSON) would fill the cap on kept lines before the error at the end."""
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    steps = "".join(
        f"{{&#39;loss&#39;: {i / 1000:.4f}, &#39;epoch&#39;: {i}}}\n" for i in range(5000)
    )
    records = "".join(f"{{&quot;step&quot;: {i}, &quot;loss&quot;: {i}}}\n" for i in range(5000))
    for text in (steps + oom, records + oom):
        scan = _scan(text)
        assert not scan.truncated and len(scan.lines) < 10
        p = failures.diagnose_logs([text]).primary
        assert p is not None and p.code == "LX509"


def test_a_frame_long_only_with_its_header_is_no_wrapped_line() -> None:
    """Each exception line is kept once: the frame above it, long only with its time stamp
    and header, is no wrapped line's first part once the header is off (it was joined to the
    exception line, which the frame look-back then kept a second time)."""
    lines = []
    for i in range(200):
        ts = f"2024-05-01 10:{i // 60:02d}:{i % 60:02d},{i * 7 % 1000:03d} | w{i % 8} | "
        lines += [f"{ts}Traceback (most recent call last):", f'{ts}  File "t.py", line {i}, in f']
        lines.append(f"{ts}KeyError: 'sample-{i}'")
    scan = _scan("".join(f"{line}\n" for line in lines))
    assert sum(ln.text.startswith("KeyError: 'sample-") for ln in scan.lines) == 200


# ------------------------------------------------------------------ bounds


def test_one_enormous_line_is_read_in_pieces() -> None:
    text = "x" * (3 << 20) + " RuntimeError: CUDA error: an illegal memory access\n"
    scan = _scan(text, chunk=1 << 20)
    assert any("illegal memory access" in ln.text for ln in scan.lines)
    assert max(len(ln.text) for ln in scan.lines) <= 8192


def test_distinct_error_lines_are_capped_and_repeats_counted() -> None:
    """The first distinct lines and the latest ones are kept, the middle dropped: memory
    stays bounded and the end of the log (where a long run died) is still read."""
    many = "".join(f"ValueError: bad sample {i}\n" for i in range(6000))
    same = "KeyError: 'labels'\n" * 500
    scan = _scan(many + same, chunk=1 << 16)
    texts = {ln.text: ln.repeats for ln in scan.lines}
    assert scan.truncated and len(scan.lines) == 4000
    assert "ValueError: bad sample 0" in texts and "ValueError: bad sample 2999" in texts
    assert "ValueError: bad sample 3000" not in texts and "ValueError: bad sample 5001" in texts
    assert texts["KeyError: 'labels'"] == 500 and "ValueError: bad sample 5999" in texts
    assert [ln.line_no for ln in scan.lines] == sorted(ln.line_no for ln in scan.lines)
    scan = _scan(same)
    assert [(ln.text, ln.repeats) for ln in scan.lines] == [("KeyError: 'labels'", 500)]
    assert not _scan(many[: many.index("bad sample 3999")]).truncated


def test_a_failure_after_thousands_of_distinct_warnings_is_read_with_its_frames() -> None:
    """A long run that warned with a new number at every step (thousands of distinct
    anchored lines) and then died well above the log's last lines: its error, and the frame
    above it, are read (they were dropped once the first lines filled the cap)."""
    lines = []
    for i in range(6000):
        lines.append(f"[rank{i % 4}]: step {i} loss 1.{i:04d}")
        lines.append(f"[rank{i % 4}]: RuntimeWarning: data fetch failed at step {i}, retrying")
    lines += [
        "[rank2]: Traceback (most recent call last):",
        '[rank2]:   File "/w/train.py", line 88, in <module>',
        "[rank2]:     loss.backward()",
        "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
    ]
    lines += [f"[rank0]: step {6000 + i} loss 1.0" for i in range(100)]
    text = "".join(f"{line}\n" for line in lines)
    scan = _scan(text, chunk=1 << 16)
    assert scan.truncated
    assert any(ln.text == 'File "/w/train.py", line 88, in <module>' for ln in scan.lines)
    report = failures.diagnose_logs([text])
    p = report.primary
    assert p is not None and p.code == "LX509" and p.rank == 2
    assert any("the first and the latest were read" in note for note in report.notes)


def test_launchers_reports_of_failed_ranks_are_bounded_too() -> None:
    """Each distinct line's facts are read, the latest window's too, so their lists have
    their own bound: a run that torchrun restarted thousands of times keeps the first."""
    text = "".join(
        f"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: {1 + i % 2}) "
        f"local_rank: {i % 4} (pid: {1000 + i}) of binary: /usr/bin/python3\n"
        for i in range(6000)
    )
    scan = _scan(text, chunk=1 << 16)
    assert scan.truncated and len(scan.first_failed) == 1000
    assert [(r, c) for r, c, _ in scan.first_failed[:3]] == [(0, 1), (1, 2), (2, 1)]


def test_tail_and_counts() -> None:
    text = "".join(f"step {i}\n" for i in range(100)) + "last words"
    scan = _scan(text, chunk=128)
    assert scan.line_count == 101
    assert scan.tail[-1].text == "last words" and scan.tail[-1].line_no == 101
    assert len(scan.tail) == 30


def test_lines_keep_their_place_for_file_and_line() -> None:
    text = "ok\nok\n[rank1]: KeyError: 'labels'\n"
    report = runview.analyse([_scan(text, name="rank-1.log")])
    assert report.primary is not None
    assert report.primary.where == ("rank-1.log:3",)


# ------------------------------------------------------------------ line normalisation


@pytest.mark.parametrize(
    ("raw", "body", "rank", "host"),
    [
        ("[rank3]: KeyError: 'x'", "KeyError: 'x'", 3, None),
        ("0: [rank3]:[E626 06:24:44.9 ProcessGroupNCCL.cpp:616] boom", "boom", 3, None),
        ("[default1]:[rank3]: boom", "boom", 3, None),
        ("[default1]: boom", "boom", 1, None),
        ("[:0]:ValueError: boom", "ValueError: boom", 0, None),
        ("7: boom", "boom", 7, None),
        ("worker-7: [rank3]: boom", "boom", 3, "worker-7"),
        ("10.0.0.1: RuntimeError: x", "RuntimeError: x", None, "10.0.0.1"),
        (
            "train2.py: error: unrecognized arguments",
            "train2.py: error: unrecognized arguments",
            None,
            None,
        ),
        ("slurmstepd: error: x", "slurmstepd: error: x", None, None),
        ("[1,2]<stderr>: boom", "boom", 2, None),
        # horovodrun's own tag, SageMaker's mpirun tag, and both behind --timestamp-output
        ("[0]<stderr>:Killed", "Killed", 0, None),
        ("[1,mpirank:3,algo-1]<stderr>:INFO:root:boom", "boom", 3, None),
        ("Tue Apr 21 18:22:57 2020[2]<stderr>:  return x", "return x", 2, None),
        ("Thu Jan 23 11:55:50 2025[1,1]<stderr>:    boom", "boom", 1, None),
        ("Tue is not a header[1]<stderr>: x", "Tue is not a header[1]<stderr>: x", None, None),
        ("[rank: 1] Received SIGTERM", "Received SIGTERM", 1, None),
        # Determined's trial logs, with their container field empty or not
        ("[] [rank=0] RuntimeError: x", "RuntimeError: x", 0, None),
        ("[rank=5] boom", "boom", 5, None),
        ("\x1b[31mRuntimeError\x1b[0m: x", "RuntimeError: x", None, None),
        ("bench.cn-d003 [stderr] [rank3]: boom", "boom", 3, None),
        # an issue comment's Markdown quote; Python's prompt is not one
        ("> [rank10]: RuntimeError: x", "RuntimeError: x", 10, None),
        (">  [rank10]: RuntimeError: x", "RuntimeError: x", 10, None),
        (">\t[rank4]: x", "x", 4, None),
        (">>> dist.barrier()", ">>> dist.barrier()", None, None),
        # OLMo's logger names the local rank after the module and line; another field is no
        # rank; its excepthook's "Uncaught" before the exception comes off at an error level
        (
            "[2024-04-18 15:55:06] CRITICAL [olmo.util:158, rank=6] Uncaught OSError: x",
            "OSError: x",
            6,
            None,
        ),
        ("Uncaught OSError: x", "Uncaught OSError: x", None, None),
        # an exception printed as its repr after words that report it (a wandb sweep agent's
        # "errored:") or quoted as code; a bare repr (Hydra's, under its own report), a
        # source line that raises it, a line that goes on after it, or words that say the
        # program went on, stay as they are
        ("Run 0c8lkvea errored: RuntimeError('x y')", "RuntimeError: x y", None, None),
        ('`ValueError("x")`', "ValueError: x", None, None),
        ('TypeError("x")', 'TypeError("x")', None, None),
        ("[rank2]: loader raise error: KeyError('x')", "KeyError: x", 2, None),
        ("raise RuntimeError('x {}'.format(", "raise RuntimeError('x {}'.format(", None, None),
        ("RuntimeError('x') in step 3", "RuntimeError('x') in step 3", None, None),
        ("retrying after error: OSError('x')", "retrying after error: OSError('x')", None, None),
        ("[olmo.util:158, step=6] OSError: x", "[olmo.util:158, step=6] OSError: x", None, None),
        # ... a local rank, which a global prefix before it outranks
        ("[rank14]: [olmo.util:158, rank=6] OSError: x", "OSError: x", 14, None),
        # a platform driver's bracketed level and component, and DeepSpeed's level and the
        # place its logger was called from
        (
            "2022-08-11 16:58:36.000 [INFO] [Driver] RuntimeError: x",
            "RuntimeError: x",
            None,
            None,
        ),
        ("[ERROR] [launch.py:325:sigkill_handler] x", "x", None, None),
        # the message's own brackets, and a rank tag after a level, stay
        (
            "[ERROR] [Errno 98] Address already in use",
            "[Errno 98] Address already in use",
            None,
            None,
        ),
        ("[INFO] [Rank 3] RuntimeError: x", "RuntimeError: x", 3, None),
        # a CI viewer's column bar and docker compose's service prefix
        ("  | RuntimeError: x", "RuntimeError: x", None, None),
        # a line-number gutter and its tab (cat -n, an editor's copy); a number and spaces
        # is a step count in the line, which stays
        ("  5899\t[rank4]: NotImplementedError", "NotImplementedError", 4, None),
        ("100   loss 0.5", "100   loss 0.5", None, None),
        # ... that copy as GitHub's editor makes it a Markdown table; a table row whose
        # second cell holds something is a table of the log's own
        ("82 |   | [rank1]: TypeError: x", "TypeError: x", 1, None),
        ("12 | 0.5 | 0.3", "12 | 0.5 | 0.3", None, None),
        ("daskcluster-worker-1     | [rank2]: boom", "boom", 2, "daskcluster-worker-1"),
        # pytest's failure report; glog's E-prefixed header is not one
        ("E       RuntimeError: x", "RuntimeError: x", None, None),
        ("E0216 12:00:00.1 1 f.cc:3] x", "x", None, None),
        # TorchX's role/replica prefix (standing for the host: two replicas' rank 1 are
        # two processes), the empty-role local rank of the torchrun it starts only after it,
        # and its indented lines; torchrun's summary headers "[1]:" and "[2]: ...." stay
        ("trainer/0 [1]:AttributeError: x", "AttributeError: x", 1, "trainer/0"),
        ('trainer/1 [1]:  File "a.py", line 3', 'File "a.py", line 3', 1, "trainer/1"),
        (
            "trainer/0   rank      : 0 (local_rank: 0)",
            "rank      : 0 (local_rank: 0)",
            None,
            "trainer/0",
        ),
        # NeMo-Run's roles carry a dot; the local rank's [defaultN]: and the rank follow
        (
            "i.pretrain/0 [default2]:[rank2]: RuntimeError: x",
            "RuntimeError: x",
            2,
            "i.pretrain/0",
        ),
        # a host and a pid (Open MPI's own reports) or a slot: the number is not a rank;
        # a container's id may start with a digit; a source file's location is not a host,
        # nor a time
        (
            "[vibhatha:19276] *** An error occurred in x",
            "*** An error occurred in x",
            None,
            "vibhatha",
        ),
        ("[node1:4]:ValueError: x", "ValueError: x", None, "node1"),
        # a rank prefix whose bracket a paste cut off at the start of the line
        ("rank5]: ValueError: x", "ValueError: x", 5, None),
        ("[1,0]<stderr>:[1a62e574072d:00334] Signal: x", "Signal: x", 0, "1a62e574072d"),
        ("[socket.cpp:1011] [c10d] x", "[socket.cpp:1011] [c10d] x", None, None),
        ("[reduce.cuh:45] Check failed", "[reduce.cuh:45] Check failed", None, None),
        # capitals only in a name that holds a digit: not a thread's or a device's tag
        ("[MainThread:140] x", "[MainThread:140] x", None, None),
        ("[Thread-1:140] x", "[Thread-1:140] x", None, None),
        ("[ThreadPoolExecutor-0_0:140] x", "[ThreadPoolExecutor-0_0:140] x", None, None),
        ("[GPU:0] x", "[GPU:0] x", None, None),
        # an ISO time stamp followed by a colon, then Open MPI's tag
        ("2021-03-10T13:22:37.443Z: [1,0]<stderr>:OSError: x", "OSError: x", 0, None),
        ("[DGX-A100-01:19276] Signal: x", "Signal: x", None, "DGX-A100-01"),
        # after another host prefix, which names the host
        ("worker-7: [w7:19276] Signal: x", "Signal: x", None, "worker-7"),
        # a dotted name is a role only before a bracket
        ("checkpoint.pt/0 saved", "checkpoint.pt/0 saved", None, None),
        ("models.vit/0 [3] loaded", "models.vit/0 [3] loaded", None, None),
        ("[00:11<5:24:48, 11.57s/it]", "[00:11<5:24:48, 11.57s/it]", None, None),
        ("[12:34] x", "[12:34] x", None, None),
        ("[1]:", "[1]:", None, None),
        ("[2]: ....", "[2]: ....", None, None),
        ("[1]: x", "[1]: x", None, None),
        # vLLM's logger after its level (and a Ray worker's "(pid=N)" prefix)
        (
            "(EngineCore_5 pid=2353903) ERROR 04-25 16:14:44 [core.py:390] RuntimeError: x",
            "RuntimeError: x",
            None,
            None,
        ),
        ("INFO 04-25 16:14:44 llm_engine.py:72] x", "x", None, None),
        # vLLM's tags of its tensor-parallel workers name their rank; a tag that also names a
        # data-parallel or pipeline index, and Ray's, name a process only
        (
            "(Worker_TP1 pid=415) ERROR 01-16 11:51:23 [multiproc_executor.py:671] RuntimeError: x",
            "RuntimeError: x",
            1,
            None,
        ),
        (
            "(VllmWorker rank=3 pid=48) ERROR 02-24 17:09:23 [a.py:546] ValueError: x",
            "ValueError: x",
            3,
            None,
        ),
        ("(VllmWorker TP2 pid=29232) INFO 09-04 21:29:13 [a.py:520] x", "x", 2, None),
        ("(Worker_DP1_TP0_EP8 pid=376) INFO 05-11 11:39:27 [a.py:759] x", "x", None, None),
        (
            "(EngineCore_DP1 pid=100) (VllmWorker TP0 pid=200) RuntimeError: x",
            "RuntimeError: x",
            None,
            None,
        ),
        (
            "(EngineCore_DP0 pid=100) (VllmWorker TP1 pid=200) RuntimeError: x",
            "RuntimeError: x",
            1,
            None,
        ),
        ("(VllmWorkerProcess pid=319) ERROR 03-19 13:02:05 [a.py:1] x", "x", None, None),
        ("(RayWorkerWrapper pid=5280, ip=10.0.0.2) ValueError: x", "ValueError: x", None, None),
        # an actor whose class defines its own repr: its rank is the actor's in its group
        ("(EnvGroup(rank=1) pid=49603) RuntimeError: x", "RuntimeError: x", None, None),
        # a stream's tag glued to the line, and a timestamp in full-width brackets
        ("[stderr]ModuleNotFoundError: x", "ModuleNotFoundError: x", None, None),
        # accelerate's echo of a child's captured stream; the word inside a message stays
        ("stderr: RuntimeError: x", "RuntimeError: x", None, None),
        ("wrote to stderr: x", "wrote to stderr: x", None, None),
        ("【2023-07-09 22:14:41】RuntimeError: x", "RuntimeError: x", None, None),
        # an ISO date is the timestamp pattern's, which leaves a source location alone
        ("2025-04-25 16:14:44 [core.py:390] x", "[core.py:390] x", None, None),
        # Python 3.11's caret markers glued to another rank's line; a caret line alone and
        # carets before lower case (a message's own) stay
        (
            "^^^^^^^^^ValueError: ^^'x' is not an address",
            "ValueError: ^^'x' is not an address",
            None,
            None,
        ),
        ("~~~~^^^^RuntimeError: x", "RuntimeError: x", None, None),
        ("    ^^^^^^^^^", "^^^^^^^^^", None, None),
        ("^^^ here", "^^^ here", None, None),
        # glued to another rank's prefix; one caret (a terminal's ^C) is not a marker
        ("^^^^^^^^[rank0]: ValueError: x", "ValueError: x", 0, None),
        (
            "^CTraceback (most recent call last):",
            "^CTraceback (most recent call last):",
            None,
            None,
        ),
        # torch_xla's xla_dist: the VM's address, then the worker's index (not a rank)
        (
            "2021-04-23 18:14:43 10.164.0.29 [3] MisconfigurationException: x",
            "MisconfigurationException: x",
            None,
            "10.164.0.29",
        ),
        # torch_npu's header names the process's RANK; -1 (RANK unset) names nobody
        (
            "[ERROR] 2024-09-26-16:06:40 (PID:26, Device:2, RankID:2) ERR00100 x",
            "2024-09-26-16:06:40 (PID:26, Device:2, RankID:2) ERR00100 x",
            2,
            None,
        ),
        (
            "[ERROR] 2024-09-26-16:06:40 (PID:26, Device:0, RankID:-1) ERR00100 x",
            "2024-09-26-16:06:40 (PID:26, Device:0, RankID:-1) ERR00100 x",
            None,
            None,
        ),
        # Markdown bold a reporter put around the line that matters; not a bullet or a rule
        (
            "**RuntimeError: Connection reset by peer**",
            "RuntimeError: Connection reset by peer",
            None,
            None,
        ),
        ("**ValueError: x", "ValueError: x", None, None),
        ("** not bold", "** not bold", None, None),
        ("***", "***", None, None),
        ("[rank0]: **ZeroDivisionError: x**", "ZeroDivisionError: x", 0, None),
        (
            "**ZeroDivisionError**: integer division",
            "ZeroDivisionError: integer division",
            None,
            None,
        ),
        # ... and the italics (one mark on each side); a private module's exception and a
        # bullet keep their marks
        (
            "_RuntimeError: one of the variables ..._ ",
            "RuntimeError: one of the variables ...",
            None,
            None,
        ),
        ("*ValueError: x*", "ValueError: x", None, None),
        (
            "_pickle.UnpicklingError: pickle data was truncated",
            "_pickle.UnpicklingError: pickle data was truncated",
            None,
            None,
        ),
        ("_Foo__bar__", "_Foo__bar__", None, None),
        ("* Item one", "* Item one", None, None),
        # a list item that is an exception's name and message loses its marker; one that
        # only names an exception keeps it
        (
            "- ValueError: Only able to place 0 replicas",
            "ValueError: Only able to place 0 replicas",
            None,
            None,
        ),
        (
            "* RuntimeError: CUDA error: an illegal memory access",
            "RuntimeError: CUDA error: an illegal memory access",
            None,
            None,
        ),
        ("- KeyError handling was improved", "- KeyError handling was improved", None, None),
        ("- run.sh: line 3: 123 Killed", "- run.sh: line 3: 123 Killed", None, None),
        ("*args*", "*args*", None, None),
        (
            "_ZN3c106detail14torchCheckFailEPKcS2_",
            "_ZN3c106detail14torchCheckFailEPKcS2_",
            None,
            None,
        ),
        ("_Not an exception line_", "_Not an exception line_", None, None),
        ("*RuntimeError*: x", "RuntimeError: x", None, None),
        ("_torch.OutOfMemoryError_: x", "torch.OutOfMemoryError: x", None, None),
        # a source line under a traceback frame keeps its unpacking
        ("    **kwargs,", "**kwargs,", None, None),
        # a Markdown heading made of the error line, also inside bold in italics
        ("### RuntimeError: x", "RuntimeError: x", None, None),
        ("_**### RuntimeError: zip archive**_", "RuntimeError: zip archive", None, None),
        ("**## ncclInternalError: x**", "ncclInternalError: x", None, None),
        ("#define X 1", "#define X 1", None, None),
        ("# ValueError: a comment", "# ValueError: a comment", None, None),
        (
            "slurmstepd-lxnode1: error: *** JOB 80 ON lxnode1 CANCELLED AT 2026-12-06T04:01:02",
            "error: *** JOB 80 ON lxnode1 CANCELLED AT 2026-12-06T04:01:02",
            None,
            None,
        ),
        ("*** Error in `python': double free", "*** Error in `python': double free", None, None),
        # glog's header, its thread id padded to five columns or not
        ("E0605 10:48:27.885119 10136 rdma_context.cpp:203] x", "x", None, None),
        ("E0914 03:11:52.101010  2211 rdma_context.cpp:231] x", "x", None, None),
        # docker compose's prefix: a service with its index, a container_name without; a
        # table's first cell is not one
        ("proj-worker-1   | x", "x", None, "proj-worker-1"),
        ("qwen3.8-flash-next  | x", "x", None, "qwen3.8-flash-next"),
        ("model  | READY", "model  | READY", None, None),
        # an exception's dotted module path is not a pdsh host name
        (
            "hivemind.p2p.utils.P2PDaemonError: x",
            "hivemind.p2p.utils.P2PDaemonError: x",
            None,
            None,
        ),
        ("my.mod2.BadError: x", "my.mod2.BadError: x", None, None),
        (
            "onnxruntime.capi.onnxruntime_pybind11_state.Fail: x",
            "onnxruntime.capi.onnxruntime_pybind11_state.Fail: x",
            None,
            None,
        ),
        # ... and a metric's or a logger's name before a pipe is not a container's
        ("train_loss | 0.3", "train_loss | 0.3", None, None),
        ("foo.bar | x", "foo.bar | x", None, None),
        ("lr-Adam | 0.001", "lr-Adam | 0.001", None, None),
        # a reporter's words before the exception: words that report it and a colon, a CJK
        # lead-in (with a rank tag after it), a quote closed at the line's end, a host's name
        ("I got this error: KeyError: 'x'", "KeyError: 'x'", None, None),
        ("报错：RuntimeError: x", "RuntimeError: x", None, None),
        ("多卡运行显示错误[rank3]: TypeError: x", "TypeError: x", 3, None),
        ('"ValueError: x".', "ValueError: x", None, None),
        ("2. error raised `TypeError: x`", "TypeError: x", None, None),
        ("GPUCA6E: OSError: [Errno 24] x", "OSError: [Errno 24] x", None, None),
        # ... not a chained exception's class, a log header, words of a line that goes on
        # or of prose, an example quoted in a sentence or in source code, a cut quote
        ("RuntimeError: ValueError: x", "RuntimeError: ValueError: x", None, None),
        ("Exception: ValueError: x", "Exception: ValueError: x", None, None),
        ("Warning: ImportError: x", "Warning: ImportError: x", None, None),
        (
            "skipping sample, got error: ValueError: x",
            "skipping sample, got error: ValueError: x",
            None,
            None,
        ),
        ("Error loading /d/x.jpg: OSError: x", "Error loading /d/x.jpg: OSError: x", None, None),
        ("Recovered from: RuntimeError: x", "Recovered from: RuntimeError: x", None, None),
        ("Test passed, expected: KeyError: x", "Test passed, expected: KeyError: x", None, None),
        ('Search for "KeyError: x" in it', 'Search for "KeyError: x" in it', None, None),
        ("“ValueError: x” can be ignored", "“ValueError: x” can be ignored", None, None),
        ('    "ValueError: bad dims",', '"ValueError: bad dims",', None, None),
        (
            '"UnexpectedStatusException: Error for job',
            '"UnexpectedStatusException: Error for job',
            None,
            None,
        ),
        ("Step: ValueError: x", "Step: ValueError: x", None, None),
        # a fence glued to an exception, an ISO time in UTC in brackets
        ("```RuntimeError: x", "RuntimeError: x", None, None),
        ("[2022-09-24T19:15:57.111Z] x", "x", None, None),
        # a reporter's stand-in for the rank number, and a log viewer's CSV export (its
        # quotes doubled inside)
        ("[rankx]: ValueError: x", "ValueError: x", None, None),
        ('"1739588804.641441583","[rank7]: TypeError: x"', "TypeError: x", 7, None),
        ('"1739588804.6","[rank7]:   File ""/a.py"", line 3"', 'File "/a.py", line 3', 7, None),
        # loguru's header; an ISO time with its offset and the container runtime's stream tag
        # (a pod's log file); syslog's and journalctl's header; grep's file name, with and
        # without a line number, but not a message about a file
        (
            "2024-05-01 10:11:12.345 | ERROR    | __main__:main:12 - ValueError: x",
            "ValueError: x",
            None,
            None,
        ),
        (
            "2026-03-24T12:06:11.850202858+08:00 stderr F [rank1]: KeyError: 1",
            "KeyError: 1",
            1,
            None,
        ),
        ("2024-05-01T10:11:12Z stdout P [rank0]: x", "x", 0, None),
        ("May  1 10:11:12 node01 python3[12345]: [rank2]: KeyError: 1", "KeyError: 1", 2, None),
        # ... journalctl's in its ISO form, the kernel's, moreutils' ts (the time alone, as
        # PyTorch's own CI stamped its logs); not the words before a colon after that time
        (
            "2024-05-01T10:11:12+0000 node01 python3[41]: [rank2]: KeyError: 1",
            "KeyError: 1",
            2,
            None,
        ),
        (
            "May 01 10:11:12 gpu7 kernel: Out of memory: Killed process 41",
            "Out of memory: Killed process 41",
            None,
            None,
        ),
        ('Mar 11 11:58:13   File "/a.py", line 3, in f', 'File "/a.py", line 3, in f', None, None),
        ("May 01 10:11:12.123456 [rank1]: KeyError: 1", "KeyError: 1", 1, None),
        ("Jul 25 04:11:56 unknown file: Failure", "unknown file: Failure", None, None),
        ("May 01 10:11:06 Assertion failed: x.cu:259", "Assertion failed: x.cu:259", None, None),
        # Rich's logging handler's time column, Ray's logger's place, Go's log, spdlog's level
        # with its logger and place; not a progress bar's times or a clock alone
        ("[12/03/24 10:11:12] ERROR    RuntimeError: x", "RuntimeError: x", None, None),
        ("[10:11:12] INFO     [rank1]: x", "x", 1, None),
        (
            "2024-12-13 11:12:48,791\tERROR tune_controller.py:1331 -- Trial task failed",
            "Trial task failed",
            None,
            None,
        ),
        ("2024/05/01 10:11:12 RuntimeError: x", "RuntimeError: x", None, None),
        (
            "[2024-12-17 21:44:01.265] [infini] [error] [store.cpp:1002] Caught SIGSEGV",
            "Caught SIGSEGV",
            None,
            None,
        ),
        ("[2024-05-01 10:11:12.123] [error] KeyError: 1", "KeyError: 1", None, None),
        ("[00:01<00:09] x", "[00:01<00:09] x", None, None),
        ("[12:00] x", "[12:00] x", None, None),
        # kubectl logs --prefix: the pod stands where a host would
        ("[pod/llama-worker-1/pytorch] [rank9]: KeyError: 1", "KeyError: 1", 9, "llama-worker-1"),
        ("[pod/x] KeyError: 1", "[pod/x] KeyError: 1", None, None),
        # ... and pdsh's host inside a pod's or a compose service's log (DeepSpeed's runner
        # there): the line came from that host
        ("[pod/ds-0/main] worker-7: KeyError: 1", "KeyError: 1", None, "worker-7"),
        ("trainer-1  | worker-7: KeyError: 1", "KeyError: 1", None, "worker-7"),
        # a program naming itself is not a host: the interpreter, a shell script, the linker
        ("python3: can't open file 'a.py'", "python3: can't open file 'a.py'", None, None),
        (
            "trainer-1  | python3.10: can't open file",
            "python3.10: can't open file",
            None,
            "trainer-1",
        ),
        (
            "run2.sh: line 20: 11 Floating point exception",
            "run2.sh: line 20: 11 Floating point exception",
            None,
            None,
        ),
        (
            "collect2: error: ld returned 1 exit status",
            "collect2: error: ld returned 1 exit status",
            None,
            None,
        ),
        ("logs/rank_3.log:RuntimeError: y", "RuntimeError: y", None, None),
        ("train.out:120:OSError: z", "OSError: z", None, None),
        ("out.txt: No such file or directory", "out.txt: No such file or directory", None, None),
        # AI2's trainers' header where no terminal is, with the host and a local rank (no
        # rank), or without them; not the same words spaced
        (
            "2024-07-16 21:30:52.219\tnode-3.example:5\tolmo.util:163\tCRITICAL\tKeyError: 1",
            "KeyError: 1",
            None,
            "node-3.example",
        ),
        ("2024-07-16 21:30:51.202\tolmo.train:1268\tINFO\tSaving", "Saving", None, None),
        ("olmo.util:163 CRITICAL x", "olmo.util:163 CRITICAL x", None, None),
        # Hydra's job logging, with its time or Dora's, and a rank tag Lightning logs after
        # it; not a message that brackets a name and its level in other words
        (
            "[2024-05-01 10:11:12,123][__main__][ERROR] - RuntimeError: x",
            "RuntimeError: x",
            None,
            None,
        ),
        ("[04-08 02:55:33][dora.distrib][INFO] - world_size is 1", "world_size is 1", None, None),
        ("[2025-10-14 17:43:43,925][a.b][ERROR] - [rank: 2] x", "x", 2, None),
        ("[a.b][INFO] x", "[a.b][INFO] x", None, None),
        # fairseq's header, the one of transformers' example scripts, NeMo's (W: a warning)
        (
            "2024-05-01 10:11:12 | ERROR | fairseq_cli.train | KeyError: 1",
            "KeyError: 1",
            None,
            None,
        ),
        ("05/01/2024 10:11:12 - ERROR - __main__ -   OSError: x", "OSError: x", None, None),
        ("[NeMo E 2024-05-01 10:11:12 exp_manager:12] OSError: x", "OSError: x", None, None),
        # DeepSpeed's logger, which says where it was called
        (
            "[2024-05-01 10:11:12,123] [ERROR] [engine.py:12:step] KeyError: 1",
            "KeyError: 1",
            None,
            None,
        ),
        ("[INFO] [launch.py:253:main] process 4575 spawned", "process 4575 spawned", None, None),
        # Axolotl's, which names the process and the local rank (a global prefix outranks
        # it); ms-swift's, LLaMA-Factory's and torchtitan's
        (
            "[2024-05-01 10:11:12,123] [INFO] [axolotl.train.train:47] [PID:12] [RANK:3] x",
            "x",
            3,
            None,
        ),
        ("[rank5]: [INFO] [axolotl.cli:4] [PID:12] [RANK:3] x", "x", 5, None),
        ("[ERROR] [axolotl.cli.train:45] [PID:1234] KeyError: 1", "KeyError: 1", None, None),
        ("[INFO:swift] KeyError: 1", "KeyError: 1", None, None),
        ("[INFO|2025-03-02 19:39:21] llamafactory.cli:157 >> x", "x", None, None),
        (
            "[rank0]:[titan] 2025-01-01 10:11:12,123 - root - ERROR - KeyError: 1",
            "KeyError: 1",
            0,
            None,
        ),
        ("[titan] x", "[titan] x", None, None),
        # OpenMMLab's, an error's with where it was logged
        ("06/17 19:51:14 - mmengine - INFO - Epoch(train) [1]", "Epoch(train) [1]", None, None),
        (
            "06/17 19:51:14 - mmengine - ERROR - /x/loops.py - run - 96 - KeyError: 'img'",
            "KeyError: 'img'",
            None,
            None,
        ),
        # HTML's escapes, as a log copied from a page's source keeps them
        ("  error_file: &lt;N/A&gt;", "error_file: <N/A>", None, None),
        (
            "ValueError: &#39;cuda:0&#39; &amp; &quot;x&quot;",
            "ValueError: 'cuda:0' & \"x\"",
            None,
            None,
        ),
    ],
)
def test_strip(raw: str, body: str, rank: int | None, host: str | None) -> None:
    got = loglines.strip(raw)
    assert (got.body, got.rank, got.host) == (body, rank, host)


def test_every_noise_is_anchored_at_the_start() -> None:
    """strip takes a noise off by slicing at its match's end: one that could match later in
    the line would cut the message's start instead."""
    assert all(pat.pattern.startswith("^") for pat in loglines._NOISE)


@pytest.mark.parametrize(
    ("raw", "warned"),
    [
        ("WARNING:root:Error while importing apex: x", True),
        ("2024-01-01 10:00:00,123 - WARNING - foo", True),
        ("[2024-05-10 07:28:04] [WARNING] [x.py:1] msg", True),
        ("WARN msg", True),
        ("[W socket.cpp:601] [c10d] The client socket has failed to connect", True),
        ("W1124 05:01:01.500 12 reducer.cpp:1529] grad strides", True),
        ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1)", False),
        ("[E socket.cpp:601] [c10d] x", False),
        ("[NeMo W 2024-05-01 10:11:12 nemo_logging:349] RuntimeError: x", True),
        ("[NeMo E 2024-05-01 10:11:12 exp_manager:12] RuntimeError: x", False),
        ("[WARNING:swift] RuntimeError: x", True),
        ("[WARNING|2025-03-02 19:39:21] llamafactory.cli:157 >> RuntimeError: x", True),
        ("[2024-05-01 10:11:12,123][a.b][WARNING] - OSError: x", True),
        ("[rank1]: KeyError: 'WARNING'", False),
        # a level in the message, not in a header taken off
        ("UserWarning: x", False),
    ],
)
def test_strip_keeps_the_warning_level_it_takes_off(raw: str, warned: bool) -> None:
    """The header's level goes with the header; the line remembers a warning's, so that a
    rule's exclusion of warnings still sees it (rulematch)."""
    assert loglines.strip(raw).warned is warned


def _prefix_patterns() -> list[re.Pattern[str]]:
    """Every pattern strip's loop takes a prefix off with (the names its code reads)."""
    names = {*loglines._strip.__code__.co_names, *loglines._host_match.__code__.co_names}
    found: list[re.Pattern[str]] = []
    for name in sorted(names - {"_ANY_PREFIX", "_ANY_NOISE"}):
        value = getattr(loglines, name, None)
        if isinstance(value, re.Pattern):
            found.append(value)
        elif isinstance(value, tuple) and value and isinstance(value[0], re.Pattern):
            found.extend(value)
    return found


def test_the_prefix_shortcut_holds_every_prefix_strip_takes_off() -> None:
    """``strip`` stops at the first line start where the alternation of all its prefixes
    does not match: a prefix added to the loop but not there would never come off."""
    patterns = _prefix_patterns()
    assert len(patterns) > 20 and loglines._HOST_PREFIX in patterns  # (the lookup itself)
    for pat in patterns:
        assert f"(?:{pat.pattern})" in loglines._ANY_PREFIX.pattern, pat.pattern


def test_every_noise_pattern_is_anchored_so_one_alternation_stands_for_them() -> None:
    """``strip`` runs the noise patterns only when their alternation matches at the start,
    and stops when no prefix's does, which is exact only while each is anchored there in
    every branch, has no flags of its own, and refers to no group (an alternation would
    renumber them)."""
    from re import _constants as sre_constants  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]

    def anchored(items: object) -> bool:
        seq = list(items)  # type: ignore[call-overload]
        if not seq:
            return False
        op, av = seq[0]
        if op is sre_constants.AT:
            return bool(av is sre_constants.AT_BEGINNING)
        if op is sre_constants.BRANCH:
            return all(anchored(branch) for branch in av[1])
        if op is sre_constants.SUBPATTERN:
            return anchored(av[-1])
        return False

    def refers(tree: object) -> bool:
        # the parse tree prints its operators by name, nested ones too (GROUPREF,
        # GROUPREF_EXISTS, GROUPREF_IGNORE, ...)
        return "GROUPREF" in repr(tree)

    for pat in (*loglines._NOISE, *_prefix_patterns()):
        tree = sre_parse.parse(pat.pattern)
        assert anchored(tree), pat.pattern
        assert not refers(tree), pat.pattern
        assert pat.flags == re.UNICODE, pat.pattern
    assert not anchored(sre_parse.parse(r"^a|b"))  # the check itself
    assert refers(sre_parse.parse(r"^(a)\1")) and refers(sre_parse.parse(r"^(a)?(?(1)b|c)"))


def test_timestamps_order_iso_and_glog_headers() -> None:
    iso = loglines.timestamp("2024-06-26 06:24:44,903 - ERROR - x")
    glog = loglines.timestamp("[rank0]:[E626 06:24:45.000 ProcessGroupNCCL.cpp:1] x")
    later_month = loglines.timestamp("E0701 00:00:00.000000 1 f.cc:1] x")
    assert iso is not None and glog is not None and later_month is not None
    assert iso < glog < later_month
    assert loglines.timestamp("step 12 loss 0.5") is None
    assert loglines.torchrun_time("2026-11-24_05:38:52") == loglines.timestamp(
        "2026-11-24 05:38:52"
    )


def test_tgi_names_its_shards_ranks() -> None:
    """Text Generation Inference's launcher starts a shard a rank: the shard that failed is
    named by its launcher's line, its shard manager's fields, and the rank field alone on the
    line under a shard's quoted error output (tgi 1354, 686 and 1156 in the corpus)."""
    text = (
        '  File "/opt/conda/lib/python3.10/site-packages/text_generation_server/server.py", '
        "line 137, in serve_inner\n"
        "    model = get_model(\n"
        "\n"
        "ValueError: `num_heads` must be divisible by `num_shards` (got `num_heads`: 71)\n"
        " rank=0\n"
        "2023-12-16T09:36:24.632149Z ERROR text_generation_launcher: Shard 0 failed to start\n"
        "2023-12-16T09:36:24.632181Z  INFO text_generation_launcher: Shutting down shards\n"
        "2023-12-16T09:36:24.652173Z ERROR shard-manager: text_generation_launcher: Shard "
        "process was signaled to shutdown with signal 9 rank=1\n"
        "Error: ShardCannotStart\n"
    )
    ranks = {ln.text.split(":")[0]: ln.rank for ln in _scan(text).lines}
    assert ranks["ValueError"] == 0
    assert {ln.rank for ln in _scan(text).lines if "Shard " in ln.text} == {0, 1}
    p = failures.diagnose_logs([text]).primary
    assert p is not None and p.code == "LX511" and p.rank == 0
    # a field at the end of another program's line names no rank
    assert _scan("ERROR worker: loading failed rank=3\n").lines[0].rank is None


def test_spawn_names_the_process_whose_traceback_it_reraises() -> None:
    """torch.multiprocessing.spawn re-raises a child's exception under "-- Process N
    terminated with the following error:" (its index is the rank on the one node)."""
    text = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 9, in <module>\n'
        "    mp.spawn(main, nprocs=4)\n"
        "torch.multiprocessing.spawn.ProcessRaisedException:\n"
        "\n"
        "-- Process 2 terminated with the following error:\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 20, in main\n'
        "    x = batch['labels']\n"
        "KeyError: 'labels'\n"
    )
    p = _primary(text)
    assert (p.category, p.rank) == ("user_code_error", 2)
    exited = (
        "torch.multiprocessing.spawn.ProcessExitedException: process 3 terminated with signal "
        "SIGSEGV\n"
    )
    q = _primary(exited)
    assert (q.category, q.rank) == ("segfault", 3)


def test_a_spawned_process_number_does_not_reach_past_its_traceback() -> None:
    text = (
        "-- Process 1 terminated with the following error:\n" + "step\n" * 300 + "KeyError: 'x'\n"
    )
    scan = _scan(text)
    assert [ln.rank for ln in scan.lines if ln.text.startswith("KeyError")] == [None]


def test_a_spawned_process_number_ends_with_its_exception() -> None:
    text = (
        "-- Process 1 terminated with the following error:\n"
        "Traceback (most recent call last):\n"
        "KeyError: 'x'\n" + "step\n" * 20 + "RuntimeError: CUDA error: an illegal memory access\n"
    )
    ranks = {ln.text.split(":")[0]: ln.rank for ln in _scan(text).lines}
    assert ranks["KeyError"] == 1
    assert ranks["RuntimeError"] is None


def test_an_error_file_message_reads_as_plain_lines() -> None:
    """No JSON quoting left in the evidence, and NCCL's reason after "Last error:" is kept
    as it is in a plain log."""
    text = (
        '    "message": "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, internal '
        "error, NCCL version 2.14.3\\nLast error:\\nsocketProgress: Connection closed by "
        'remote peer node-b<59227>\\nKeyError: \\"labels\\"",\n'
    )
    texts = [ln.text for ln in _scan(text).lines]
    assert "socketProgress: Connection closed by remote peer node-b<59227>" in texts
    assert 'KeyError: "labels"' in texts


def test_nccl_lines_of_a_process_take_the_rank_its_proxy_names() -> None:
    """NCCL's header names host:pid; the proxy thread's warning names the rank. A process
    whose proxy named two ranks (two communicators) gets neither."""
    text = (
        "node-a:922:1158 [3] proxy.cc:1519 NCCL WARN [Proxy Service 11] Failed to execute "
        "operation Connect from rank 11, retcode 2\n"
        "node-a:922:1149 [3] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by "
        "remote peer node-b<53735>\n"
        "node-a:923:1150 [4] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by "
        "remote peer node-b<53736>\n"
    )
    ranks = {ln.text.split(":")[1]: ln.rank for ln in _scan(text).lines}
    assert ranks == {"922": 11, "923": None}
    two = text + (
        "node-a:922:1170 [3] proxy.cc:1519 NCCL WARN [Proxy Service 3] Failed to execute "
        "operation Connect from rank 3, retcode 2\n"
    )
    assert {ln.rank for ln in _scan(two).lines} == {None}


def test_nccl_lines_of_a_process_take_the_rank_its_communicator_set_up_names() -> None:
    """NCCL_DEBUG=INFO's "comm 0x.. rank R nranks N" line names the rank of its process;
    the INFO line itself is not kept, the process's warning takes the rank."""
    text = (
        "host:107848:107879 [0] NCCL INFO comm 0x7fab54002730 rank 1 nranks 2 cudaDev 0 "
        "nvmlDev 0 - Init COMPLETE\n"
        "host:107847:107878 [0] NCCL INFO comm 0x7fab54002731 rank 0 nranks 2 cudaDev 0 "
        "nvmlDev 0 - Init COMPLETE\n"
        "host:107848:107848 [0] enqueue.cc:197 NCCL WARN Cuda failure 'invalid device "
        "function'\n"
    )
    lines = _scan(text).lines
    assert [(ln.rank, "WARN" in ln.text) for ln in lines] == [(1, True)]
    assert _primary(text).rank == 1
    # a world seen only through subgroups of one size (a 2x2 mesh): ranks repeat across
    # the processes, so none is named
    mesh = "".join(
        f"node:{100 + p}:{100 + p} [{p}] NCCL INFO comm 0x5{p}{g} rank {r} nranks 2 cudaDev {p} "
        "- Init COMPLETE\n"
        for g, ranks in enumerate(([0, 1, 0, 1], [0, 0, 1, 1]))
        for p, r in enumerate(ranks)
    )
    mesh += "node:103:103 [3] enqueue.cc:197 NCCL WARN Cuda failure 'invalid device function'\n"
    assert [ln.rank for ln in _scan(mesh).lines] == [None]
    # a process that set up communicators as two different ranks is neither
    two = text.replace("rank 0 nranks 2 cudaDev 0 nvmlDev 0", "rank 0 nranks 2 cudaDev 1 x")
    two = two.replace("host:107847:107878", "host:107848:107870")
    assert [ln.rank for ln in _scan(two).lines] == [None]


def test_a_proxy_rank_in_a_log_of_several_communicator_sizes_names_nobody() -> None:
    """A proxy names its rank within its communicator; with subgroups in the log that is
    not the process's global rank, read from NCCL's INFO lines though the scan keeps none."""
    text = (
        "node-a:922:1140 [3] NCCL INFO comm 0x1 rank 3 nranks 4 cudaDev 3 - Init COMPLETE\n"
        "node-a:922:1141 [3] NCCL INFO comm 0x2 rank 11 nranks 16 cudaDev 3 - Init COMPLETE\n"
        "node-a:922:1158 [3] proxy.cc:1519 NCCL WARN [Proxy Service 3] Failed to execute "
        "operation Connect from rank 3, retcode 2\n"
        "node-a:922:1149 [3] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by "
        "remote peer node-b<53735>\n"
    )
    assert {ln.rank for ln in _scan(text).lines} == {None}


def test_exceptions_close_together_read_their_frames_once() -> None:
    # each exception looks back for its traceback's frames; neighbours share that window,
    # and a frame read twice would be counted as printed twice (and cost a second pass)
    text = "".join(
        f'  File "/data/train.py", line {i}, in step\n    x = d[k]\nKeyError: {i}\n'
        for i in range(5)
    )
    sc = logscan.scan_text(text, SourceInfo(name="r0.log"))
    frames = [ln for ln in sc.lines if ln.text.startswith('File "/data/train.py"')]
    assert len(frames) == 5
    assert all(ln.repeats == 1 for ln in frames)
    sources = [ln for ln in sc.lines if ln.text == "x = d[k]"]
    assert len(sources) == 1 and sources[0].repeats == 5


def test_a_marker_looked_for_in_its_anchors_lines_holds_that_anchor() -> None:
    # a marker found only inside the lines of an anchor must hold that anchor, or some of
    # its lines would never be looked at
    for anchor, marker in logscan._ANCHORED_MARKERS.items():
        assert anchor.decode() in fr.ANCHORS and anchor in marker
        # and the scanner searches that anchor itself: a helper process's answers (the
        # anchors after the first _NEAR) carry no marker
        assert anchor not in logscan.FAR_ANCHORS


def test_the_line_after_a_marker_is_read_whatever_it_holds() -> None:
    # NCCL's reason under "Last error:" here holds no anchor of its own
    text = (
        "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1, unhandled cuda error\n"
        "ncclUnhandledCudaError: Call to CUDA function failed.\n"
        "Last error:\n"
        "Cuda driver version is insufficient for CUDA runtime version\n"
    )
    scan = logscan.scan_text(text, SourceInfo(name="a.log"))
    assert any("driver version is insufficient" in ln.text for ln in scan.lines)
    what = (
        "terminate called after throwing an instance of 'std::bad_alloc'\n"
        "  what():  std::bad_alloc\n"
    )
    scan = logscan.scan_text(what, SourceInfo(name="b.log"))
    assert any("what():" in ln.text for ln in scan.lines)
