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
        ("0", ((0, 0),), "0"),
        ("0,8", ((0, 0), (8, 8)), "0,8"),
        ("3-5,0", ((0, 0), (3, 5)), "0,3-5"),
        ("0, 1,2,7", ((0, 2), (7, 7)), "0-2,7"),
        ("4-4", ((4, 4),), "4"),
        ("2-6,0-3", ((0, 6),), "0-6"),
        # a range is kept as one: a world of millions costs nothing to name
        ("0-9999999", ((0, 9999999),), "0-9999999"),
    ],
)
def test_the_settings_forms(text: str, ranks: consoleranks.Ranges | None, canonical: str) -> None:
    assert consoleranks.parse(text) == ranks
    assert consoleranks.canonical(text) == canonical


def test_a_setting_that_names_no_rank_of_the_world() -> None:
    assert consoleranks.names_a_rank("all", 2) and consoleranks.names_a_rank("1,5", 2)
    assert not consoleranks.names_a_rank("5", 2) and not consoleranks.names_a_rank("2-4", 2)


@pytest.mark.parametrize("text", ["", "x", "0,", "-1", "rank0", "5-3", "0..3", "1.5"])
def test_anything_else_is_refused_with_the_forms_to_write(text: str) -> None:
    with pytest.raises(ValueError, match=r"a range|not a list of ranks: write all"):
        consoleranks.parse(text)


# one line of each kind that starts a rank's error (the console header already off)
ERROR_STARTS = [
    "Traceback (most recent call last):",
    "[rank3]: Traceback (most recent call last):",
    "terminate called after throwing an instance of 'c10::DistBackendError'",
    "Fatal Python error: Segmentation fault",
    # torch's C++ error lines (the NCCL watchdog's), glog's date with and without a leading
    # zero (torch 2.4 and later write "E901" before October)
    "[E1206 22:38:33.736 ProcessGroupNCCL.cpp:616] [PG 0 Rank 3] Watchdog caught collective "
    "operation timeout",
    "[rank3]:[E901 05:20:03.123 ProcessGroupNCCL.cpp:616] [PG 0 Rank 3] Watchdog caught",
    "F1206 22:38:33.736000 1 torch/csrc/x.cpp:1] Check failed",
    "[E socket.cpp:957] [c10d] The client socket has timed out",
    # Python logging at an error level, in the formats scripts use
    "ERROR:root:the data loader stopped",
    "CRITICAL train.py:12 out of disk",
    "2024-05-01 10:11:12,123 - train - ERROR - NaN loss at step 40",
    "2024-05-01 10:11:12.345 | ERROR    | __main__:main:12 - NaN loss",
    "\x1b[31mERROR\x1b[0m:root:coloured by the terminal",
    "[NeMo E 2024-05-01 10:11:12 exp_manager:123] checkpoint not found",
    "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient "
    "shared memory (shm).",
]

QUIET = [
    "step 10 loss 0.5",
    "node7:1234:1290 [3] NCCL INFO Channel 00/32 : 0 1 2 3",
    "node7:1234:1290 [3] NCCL WARN Could not find real path of /sys/class/net/eth0",
    "W1206 22:38:33.736000 1 torch/x.py:1] a warning",
    "UserWarning: this is deprecated",
    "epoch 1: no errors so far",
    "error rate 0.1",  # a metric, not an error
    "MeanSquaredError: 0.0312",  # torchmetrics' name of one
    "val/ERROR_rate 0.2",
    "Epoch 3: E1 loss 0.2",
]


@pytest.mark.parametrize("line", ERROR_STARTS)
def test_a_quiet_ranks_error_is_shown_with_the_rest_of_its_lines(line: str) -> None:
    console = ConsoleRanks(((0, 0),))
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
    console = ConsoleRanks(((0, 0),))
    assert console.shown([OutLine(line, 1), OutLine("next", 1)]) == []


def test_every_rank_by_default_and_no_bar_frames_of_a_quiet_rank() -> None:
    records = [OutLine("a", 0), OutLine("b", 5), OutLine(" 10%|#  | 1/10", 5, "bar")]
    assert ConsoleRanks(None).shown(records) == records
    console = ConsoleRanks(((0, 0),))
    assert console.shown(records) == [OutLine("a", 0)]
    # a frame drawn in place is no error line, whatever it says
    assert console.shown([OutLine("Traceback (most recent call last):", 5, live=True)]) == []
