"""Which ranks' output the console shows (``launchx.consoleranks``): the setting's forms,
and each kind of error line that brings a quiet rank's lines back."""

from __future__ import annotations

import pytest

from launchx import consoleranks
from launchx.consoleranks import ConsoleRanks
from launchx.outlines import OutLine


@pytest.mark.parametrize(
    ("text", "ranks", "canonical"),
    [
        ("all", None, "all"),
        (" ALL ", None, "all"),
        ("0", {0}, "0"),
        ("0,8", {0, 8}, "0,8"),
        ("3-5,0", {0, 3, 4, 5}, "0,3-5"),
        ("0, 1,2,7", {0, 1, 2, 7}, "0-2,7"),
        ("4-4", {4}, "4"),
    ],
)
def test_the_settings_forms(text: str, ranks: set[int] | None, canonical: str) -> None:
    parsed = consoleranks.parse(text)
    assert (set(parsed) if parsed is not None else None) == ranks
    assert consoleranks.canonical(text) == canonical


@pytest.mark.parametrize("text", ["", "x", "0,", "-1", "rank0", "5-3", "0..3", "1.5"])
def test_anything_else_is_refused_with_the_forms_to_write(text: str) -> None:
    with pytest.raises(ValueError, match=r"a range|not a list of ranks: write all"):
        consoleranks.parse(text)


# one line of each kind that starts a rank's error (the console header already off)
ERROR_STARTS = [
    "Traceback (most recent call last):",
    "[rank3]: Traceback (most recent call last):",
    "KeyError: 'batch_size'",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "KeyboardInterrupt: ",
    "terminate called after throwing an instance of 'c10::DistBackendError'",
    "Fatal Python error: Segmentation fault",
    "node7:1234:1290 [3] NCCL WARN NET/IB : Got completion with error 12",
    "[E1206 22:38:33.736 ProcessGroupNCCL.cpp:616] [PG 0 Rank 3] Watchdog caught collective "
    "operation timeout",
    "F1206 22:38:33.736000 1 torch/csrc/x.cpp:1] Check failed",
    "ERROR:root:the data loader stopped",
    "CRITICAL train.py:12 out of disk",
]

QUIET = [
    "step 10 loss 0.5",
    "node7:1234:1290 [3] NCCL INFO Channel 00/32 : 0 1 2 3",
    "W1206 22:38:33.736000 1 torch/x.py:1] a warning",
    "UserWarning: this is deprecated",
    "epoch 1: no errors so far",
    "error rate 0.1",  # a metric, not an error
]


@pytest.mark.parametrize("line", ERROR_STARTS)
def test_a_quiet_ranks_error_is_shown_with_the_rest_of_its_lines(line: str) -> None:
    console = ConsoleRanks(frozenset({0}))
    records = [
        OutLine("step 1", 0),
        OutLine("step 1", 2),
        OutLine(line, 2),
        OutLine("  File 'train.py', line 9", 2),
        OutLine("step 2", 1),
        OutLine("torchrun's own line", None),
    ]
    shown = console.shown(records)
    assert [(r.text, r.rank) for r in shown] == [
        ("step 1", 0),
        (line, 2),
        ("  File 'train.py', line 9", 2),
        ("torchrun's own line", None),
    ]
    # the rank stays shown for the rest of the attempt
    assert console.shown([OutLine("step 3", 2)]) == [OutLine("step 3", 2)]


@pytest.mark.parametrize("line", QUIET)
def test_a_quiet_ranks_ordinary_lines_stay_off_the_console(line: str) -> None:
    console = ConsoleRanks(frozenset({0}))
    assert console.shown([OutLine(line, 1), OutLine("next", 1)]) == []


def test_every_rank_by_default_and_no_bar_frames_of_a_quiet_rank() -> None:
    records = [OutLine("a", 0), OutLine("b", 5), OutLine(" 10%|#  | 1/10", 5, "bar")]
    assert ConsoleRanks(None).shown(records) == records
    console = ConsoleRanks(frozenset({0}))
    assert console.shown(records) == [OutLine("a", 0)]
    # a frame drawn in place is no error line, whatever it says
    assert console.shown([OutLine("KeyError: x", 5, live=True)]) == []
