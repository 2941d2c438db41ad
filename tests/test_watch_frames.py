"""Stacks as data: real py-spy and faulthandler output parsed, and every category rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from launchx.watch.frames import (
    CATEGORY_RULES,
    PYTHON_ONLY_RULES,
    Frame,
    StackParseError,
    categorize,
    digest,
    parse_faulthandler,
    parse_pyspy_json,
    python_digest,
    short_filename,
    where,
)

FIX = Path(__file__).parent / "fixtures" / "watch"


def _load(name: str, native: bool = False) -> tuple[int, list[Frame]]:
    text = (FIX / name).read_text()
    pid = int(text.split('"pid": ', 1)[1].split(",", 1)[0])
    stack = parse_pyspy_json(text, pid, native=native)
    main = stack.main
    assert main is not None and main.main and main.thread_id == pid
    return pid, list(main.frames)


def test_pyspy_plain_dump_of_a_rank_in_ddp_backward() -> None:
    """Recorded from examples/train_toy.py with rank 1 stalled: without native frames,
    rank 0 is only "in backward", which in a distributed job is DDP's gradient all-reduce
    (PYTHON_ONLY_RULES; py-spy's native unwinding fails under load, as CI showed, and
    rank 1 then no longer stood out)."""
    _pid, frames = _load("toy_rank0.json")
    assert frames[0].name == "_engine_run_backward"
    assert frames[0].filename == "torch/autograd/graph.py" and frames[0].line > 0
    assert not any(f.native for f in frames)
    assert categorize(frames) == "collective"
    # With native frames they decide: a backward that computes is no peer wait.
    computing = [_c("at::native::addmm_out"), *frames]
    assert categorize(computing) == "running"
    assert len(PYTHON_ONLY_RULES) == 1  # the case above is its case


def test_pyspy_native_dump_shows_the_collective_under_backward() -> None:
    _pid, frames = _load("toy_rank0.native.json", native=True)
    assert any(f.native and "c10d::Reducer::finalize_backward" in f.name for f in frames)
    assert categorize(frames) == "collective"
    assert where(frames).startswith("pthread_cond_wait ← _engine_run_backward ← train_toy.py:")


def test_native_dump_of_the_sleeping_rank() -> None:
    _pid, frames = _load("toy_rank1.native.json", native=True)
    assert [f.name for f in frames[:2]] == ["clock_nanosleep", "time_sleep"]
    assert categorize(frames) == "sleep"
    _pid, plain = _load("toy_rank1.json")
    assert categorize(plain) == "running"  # the Python frame alone cannot tell
    # the same stack read twice, with and without native frames, is one stack
    assert python_digest(frames) == python_digest(plain)
    assert digest(frames) != digest(plain)


def test_pyspy_json_errors() -> None:
    with pytest.raises(StackParseError):
        parse_pyspy_json("Error: Failed to get stack traces", 1)
    with pytest.raises(StackParseError):
        parse_pyspy_json('{"pid": 1}', 1)


def test_faulthandler_dump_main_thread_is_last() -> None:
    """Recorded with faulthandler.register(all_threads=True): CPython lists the newest
    thread first, so the main thread (here the one that got the signal) is last."""
    stack = parse_faulthandler((FIX / "faulthandler_3threads.txt").read_text(), 42)
    assert len(stack.threads) == 3
    main = stack.main
    assert main is not None and main is stack.threads[-1]
    assert [f.name for f in main.frames] == ["main_wait", "<module>"]
    assert main.frames[0].line == 9 and main.frames[0].filename == "fh.py"
    assert stack.threads[0].frames[1].filename == "threading.py"
    assert stack.source == "faulthandler"
    with pytest.raises(StackParseError):
        parse_faulthandler("nothing here", 1)


@pytest.mark.parametrize(
    ("path", "short"),
    [
        (
            "/v/.venv/lib/python3.11/site-packages/torch/distributed/c10d.py",
            "torch/distributed/c10d.py",
        ),
        ("/usr/lib/python3.12/threading.py", "threading.py"),
        ("/usr/lib/python3/dist-packages/foo/bar.py", "foo/bar.py"),
        ("/home/me/train.py", "train.py"),
        ("train.py", "train.py"),
    ],
)
def test_short_filename(path: str, short: str) -> None:
    assert short_filename(path) == short


def test_faulthandler_thread_names_and_unknown_lines() -> None:
    text = (
        "Thread 0x00007f01 [worker] (most recent call first):\n"
        '  File "a.py", line ??? in f\n'
        "\n"
        "Current thread 0x00007f02 (most recent call first):\n"
        '  File "b.py", line 3 in g\n'
    )
    stack = parse_faulthandler(text, 7)
    assert stack.threads[0].name == "worker" and stack.threads[0].frames[0].line == 0
    assert stack.main is not None and stack.main.frames[0].filename == "b.py"


def _py(name: str, filename: str, line: int = 1) -> Frame:
    return Frame(name, filename, line)


def _c(name: str, filename: str = "libx.so") -> Frame:
    return Frame(name, filename, 0, native=True)


USER = _py("train_step", "train.py", 142)
# One case per rule of CATEGORY_RULES, in its order (the test below checks coverage).
RULE_CASES: list[tuple[str, list[Frame], str]] = [
    ("c10d native", [_c("pthread_cond_wait"), _c("c10d::Work::wait"), USER], "collective"),
    ("gloo native", [_c("gloo::transport::tcp::Pair::recv"), USER], "collective"),
    ("nccl native", [_c("ncclGroupEnd", "libnccl.so"), USER], "collective"),
    ("cuda sync", [_c("cudaStreamSynchronize", "libcudart.so"), USER], "device_sync"),
    ("item", [_c("cuMemcpy"), _c("at::native::_local_scalar_dense_cuda"), USER], "device_sync"),
    ("memcpy_and_sync", [_c("c10::cuda::memcpy_and_sync"), USER], "device_sync"),
    ("libcuda", [_c("0x7f00", "libcuda.so.1"), USER], "device_sync"),
    (
        "torch.distributed",
        [_py("all_reduce", "torch/distributed/distributed_c10d.py", 3252), USER],
        "collective",
    ),
    ("cuda synchronize", [_py("synchronize", "torch/cuda/__init__.py"), USER], "device_sync"),
    (
        "dataloader",
        [
            _py("wait", "threading.py", 331),
            _py("get", "queue.py", 180),
            _py("_try_get_data", "torch/utils/data/dataloader.py", 1133),
            USER,
        ],
        "data_wait",
    ),
    ("sleep", [_c("clock_nanosleep", "libc.so.6"), _c("time_sleep"), USER], "sleep"),
    ("native lock", [_c("PyThread_acquire_lock_timed"), USER], "lock"),
    ("threading wait", [_py("wait", "threading.py", 327), USER], "lock"),
    ("queue get", [_py("get", "queue.py", 171), USER], "lock"),
    ("select", [_py("select", "selectors.py", 468), USER], "lock"),
]


@pytest.mark.parametrize(
    ("label", "frames", "expected"), RULE_CASES, ids=[c[0] for c in RULE_CASES]
)
def test_category_rules(label: str, frames: list[Frame], expected: str) -> None:
    assert categorize(frames) == expected


def test_every_rule_has_a_case() -> None:
    """A rule without a case would never be exercised: one case per rule, in order."""
    assert len(RULE_CASES) == len(CATEGORY_RULES)
    for (_label, _frames, expected), rule in zip(RULE_CASES, CATEGORY_RULES, strict=True):
        assert rule.category == expected


@pytest.mark.parametrize(
    ("frames", "expected"),
    [
        ([_py("matmul_loop", "model.py", 10), USER], "running"),
        # a checkpoint written through torch.distributed.checkpoint is work, not a wait
        ([_py("write_data", "torch/distributed/checkpoint/filesystem.py"), USER], "running"),
        # an FSDP forward computing inside user modules: the innermost frames decide
        (
            [
                _py("forward", "torch/nn/modules/linear.py"),
                _py("_call_impl", "torch/nn/modules/module.py"),
                _py("forward", "model.py"),
                _py("forward", "torch/distributed/fsdp/fully_sharded_data_parallel.py"),
            ],
            "running",
        ),
        # a sleep deep below a Python call is not the C call the thread is in
        ([_c("memcpy"), USER, _c("clock_nanosleep")], "running"),
        ([], "running"),
    ],
)
def test_not_waits(frames: list[Frame], expected: str) -> None:
    assert categorize(frames) == expected


def test_where_names_the_call_and_the_user_line() -> None:
    frames = [
        _py("all_reduce", "torch/distributed/distributed_c10d.py", 3252),
        _py("wrapper", "torch/distributed/c10d_logger.py", 83),
        USER,
        _py("main", "train.py", 200),
    ]
    assert where(frames) == "all_reduce ← train.py:142 train_step"
    assert where([_py("next_batch", "data.py", 88), USER]) == "data.py:88 next_batch"
    assert where([_c("0x1"), _c("epoll_wait")]) == "epoll_wait"
    assert where([]) == "(no frames)"


def test_digest_ignores_native_addresses() -> None:
    a = [_c("0x7f0001"), _c("time_sleep"), USER]
    b = [_c("0x7f9999"), _c("time_sleep"), USER]
    assert digest(a) == digest(b)
    assert digest([USER]) != digest([_py("train_step", "train.py", 143)])
