"""The step a line of output shows, and the restart-from-zero warning, on every form the
frameworks print (rows) and on captured runs (tests/fixtures/frameworks)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from launchx.outlines import OutLine, OutputSplitter
from launchx.progress import Progress, StartTracker, check_resumed, step_of, strip_lead

FIXTURES = Path(__file__).parent / "fixtures" / "frameworks"

ROWS: list[tuple[str, Progress | None]] = [
    # tqdm, as the HF Trainer draws it
    ("  0%|          | 0/30 [00:00<?, ?it/s]", Progress("bar", 0, 30)),
    (" 33%|███▎      | 10/30 [00:00<00:00, 78.90it/s]", Progress("bar", 10, 30)),
    ("[r0]:  53%|█████▎    | 16/30 [00:00<00:00, 126.73it/s]", Progress("bar", 16, 30)),
    (
        "Writing model shards: 100%|██████████| 1/1 [00:00<00:00, 626.86it/s]",
        Progress("bar", 1, 1, None, "Writing model shards"),
    ),
    ("Training: 11it [00:01,  9.10it/s]", Progress("epoch-bar", 11, None, None, "Training")),
    ("steps: 40it [00:01,  9.10it/s]", Progress("bar", 40, None, None, "steps")),
    # Lightning, tqdm and Rich
    (
        "Epoch 0:  60%|██████    | 12/20 [00:00<00:00, 15.16it/s, loss=0.202]",
        Progress("epoch-bar", 12, 20, 0, "Epoch 0"),
    ),
    (
        "[r0]: Epoch 3:   5%|▌         | 1/20 [00:00<00:00, 44.57it/s]",
        Progress("epoch-bar", 1, 20, 3, "Epoch 3"),
    ),
    (
        "Training: |          | 11/? [00:00<00:00, 1092.21it/s]",
        Progress("epoch-bar", 11, None, None, "Training"),
    ),
    (
        "Epoch 0/-2 ━━━━━━━━╸              12/30 0:00:00 • 0:00:01 493.98it/s loss: 0.886",
        Progress("epoch-bar", 12, 30, 0, "Epoch 0/-2"),
    ),
    (
        "Validation DataLoader 0: 100%|██████████| 4/4 [00:00<00:00, 9.1it/s]",
        Progress("epoch-bar", 4, 4, None, "Validation DataLoader 0"),
    ),
    # step lines
    ("step 300", Progress("step", 300)),
    ("Step 5/100 | loss 3", Progress("step", 5, 100)),
    ("step: 7 loss: 1.0", Progress("step", 7)),
    ("global_step=42 loss=1", Progress("step", 42)),
    ("global step 42", Progress("step", 42)),
    ("epoch 1 | step 300 | loss 2.1", Progress("step", 300)),
    ("loss 2.1, iter 300", Progress("step", 300)),
    ("iteration 8", Progress("step", 8)),
    ("[r0]: iter 11: loss 4.2316, time 0.86ms", Progress("step", 11)),  # nanoGPT
    ("step 10: train loss 4.2341, val loss 4.2010", Progress("step", 10)),  # nanoGPT
    (
        " [2024-01-01 10:00:00] iteration       10/     100 | consumed samples: 80",
        Progress("step", 10, 100),
    ),
    ("[Rank 0] step=300, skipped=0, lr=[0.1]", Progress("step", 300)),  # DeepSpeed
    ("[titan] 2025-01-01 10:00:00,000 - root - INFO - step:  1  loss:  8.1", Progress("step", 1)),
    ("2025-01-01T10:00:00Z step 9", Progress("step", 9)),
    ("I1124 05:14:39.99 123 train.py:10] step 9", Progress("step", 9)),
    ("0: step 9", Progress("step", 9)),  # srun --label
    ("\x1b[32m[r1]: step 9\x1b[0m", Progress("step", 9)),
    # the HF Trainer's own resume line
    (
        "[transformers]   Resuming training from checkpoint with epoch 0 and global step 10",
        Progress("resume", 10),
    ),
    ("  Continuing training from global step 10", Progress("resume", 10)),
    # not steps
    ("taking a step 3 times", None),
    ("multi-step 3", None),
    ("saving to epoch=0-step=10.ckpt", None),
    ("step 3.5", None),
    ("step 30%", None),
    ("{'loss': '3.897', 'grad_norm': '0.7486', 'epoch': '0.1562'}", None),
    ("Saving model checkpoint to out/checkpoint-15", None),
    ("", None),
    ("[r0]: ", None),
]


@pytest.mark.parametrize(("line", "expected"), ROWS, ids=[r[0][:50] for r in ROWS])
def test_step_of(line: str, expected: Progress | None) -> None:
    assert step_of(line) == expected


@pytest.mark.parametrize(
    ("progress", "global_step", "training", "creation"),
    [
        (Progress("bar", 0, 30), 0, True, True),
        (Progress("bar", 5, 30, None, "Writing model shards"), 5, False, False),
        (Progress("bar", 5, 30, None, "train"), 5, True, False),
        (Progress("epoch-bar", 12, 20, 2, "Epoch 2"), 52, True, False),
        (Progress("epoch-bar", 12, None, 2, "Epoch 2"), None, True, False),
        (Progress("epoch-bar", 11, None, None, "Training"), None, True, False),
        (Progress("epoch-bar", 4, 4, None, "Validation"), None, False, False),
        (Progress("step", 0), 0, True, False),
        (Progress("resume", 10), 10, True, False),
    ],
)
def test_progress_properties(
    progress: Progress, global_step: int | None, training: bool, creation: bool
) -> None:
    assert progress.global_step == global_step
    assert progress.training is training
    assert progress.creation_frame is creation


def test_strip_lead() -> None:
    assert strip_lead("[r0]: [rank0]: 2024-01-01 10:00:00,1 step 3\n") == "step 3"
    assert strip_lead("\x1b[1mplain\x1b[0m") == "plain"


@given(st.text(max_size=200))
def test_any_text_never_raises(line: str) -> None:
    found = step_of(line)
    assert found is None or found.step >= 0


# --------------------------------------------------------------------------- real runs


def attempts(name: str) -> list[list[OutLine]]:
    """Each attempt's rank-0 records of a captured console."""
    splitter = OutputSplitter()
    data = (FIXTURES / name).read_bytes()
    records = splitter.feed(data) + splitter.flush()
    out: list[list[OutLine]] = []
    for rec in records:
        if rec.rank is None and rec.text.startswith("launchx: profile"):
            out.append([])
        elif out and rec.rank == 0:
            out[-1].append(rec)
    return out


def tracked(records: list[OutLine]) -> StartTracker:
    tracker = StartTracker()
    for rec in records:
        tracker.feed(rec.text)
    return tracker


def test_hf_resumed_attempt_starts_after_the_checkpoint() -> None:
    """Resumed from checkpoint-10: the bar is created at 0/30, then jumps to 16/30; the
    "Writing model shards 1/1" bar in between counts something else."""
    first, second = attempts("hf_sigkill_resume.console")
    assert tracked(first).first == Progress("bar", 6, 30)  # every frame, not the collapsed lines
    start = tracked(second)
    assert start.first == Progress("bar", 16, 30)
    assert check_resumed(start, "/ck/checkpoint-10", 10) is None


def test_hf_run_from_scratch_after_an_offer_is_warned() -> None:
    """The same script without --resume-arg starts at 0 (its bar's first step is 8)."""
    (only,) = attempts("hf_ok.console")
    start = tracked(only)
    warning = check_resumed(start, "/ck/checkpoint-10", 10)
    assert warning is not None and warning.started_at == 8
    assert "checkpoint-10" in warning.message and "step 8" in warning.message
    assert "8/30" in warning.evidence


def test_lightning_tqdm_from_scratch_and_resumed() -> None:
    first, second = attempts("lightning_tqdm_sigkill_resume.console")
    scratch = tracked(first)
    assert scratch.first is not None and scratch.first.global_step == 1
    # Lightning's resumed bar says "Training: 11/?": no epoch, no length, so no verdict
    resumed = tracked(second)
    assert resumed.first is None
    assert check_resumed(resumed, "/ck/last.ckpt", 10) is None


def test_lightning_tqdm_frames_from_zero_are_warned() -> None:
    tracker = StartTracker()
    for frame in [
        "Training: |          | 0/? [00:00<?, ?it/s]",
        "Epoch 0:   0%|          | 0/30 [00:00<?, ?it/s]",
        "Epoch 0:   3%|▎         | 1/30 [00:00<00:00, 44.57it/s]",
        "Epoch 0:  33%|███▎      | 10/30 [00:00<00:00, 205.10it/s, loss=0.355]",
    ]:
        tracker.feed(frame)
    warning = check_resumed(tracker, "/ck/epoch=0-step=10.ckpt", 10)
    assert warning is not None and warning.started_at == 1


def test_nanogpt_resumed_and_from_scratch() -> None:
    first, second = attempts("nanogpt_sigkill_resume.console")
    assert tracked(first).first == Progress("step", 0)
    assert tracked(second).first == Progress("step", 10)
    assert check_resumed(tracked(second), "/out/ckpt_10.pt", 10) is None
    assert check_resumed(tracked(first), "/out/ckpt_10.pt", 10) is not None
    # nanoGPT's ckpt.pt has no step in its name (offered step 0): no verdict
    assert check_resumed(tracked(first), "/out/ckpt.pt", 0) is None


def test_no_verdict_without_evidence() -> None:
    nothing = StartTracker()
    assert check_resumed(nothing, "/ck/checkpoint-10", 10) is None
    seen = StartTracker()
    seen.feed("step 3")
    assert check_resumed(seen, None, None) is None  # nothing offered
    assert check_resumed(seen, "/ck/last.ckpt", None) is None  # step unknown
    assert check_resumed(seen, "/ck/checkpoint-3", 3) is None  # started at the offer


def test_the_first_step_is_kept() -> None:
    tracker = StartTracker()
    assert tracker.feed("nothing") is None
    assert tracker.feed("Loading checkpoint shards: 100%|██| 2/2 [00:00<00:00]") is None
    assert tracker.feed("  0%|          | 0/30 [00:00<?, ?it/s]") is None
    assert tracker.feed("step 12") == Progress("step", 12)
    assert tracker.feed("step 2") == Progress("step", 12)
    assert tracker.line == "step 12"
