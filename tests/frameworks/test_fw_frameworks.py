"""Real frameworks under ``launchx run -p local``: a tiny HF Trainer, a Lightning DDP
module and a nanoGPT-style loop, 2 ranks on gloo. One worker is SIGKILLed from outside
mid-run; the retry must resume through the framework's *own* checkpoint (for HF through
``--resume-arg '--resume_from_checkpoint {path}'``) and finish.

Each scenario runs once (module fixtures); several tests read its evidence: the files the
scripts leave (``start.<attempt>.<rank>`` holds the first step a rank trained) and the
console; the tests named for a defect of issue 10 failed on the code it was filed against.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from fwkit import (
    FAST_RETRY,
    SCRIPTS,
    Finished,
    attempt_texts,
    by_rank,
    require,
    run_with_fault,
    started_at,
    summary_rows,
)

from launchx import checkpoints
from launchx.outlines import OutputSplitter

pytestmark = pytest.mark.frameworks

HF = str(SCRIPTS / "hf_train.py")
HF_ARGS = [
    "--output_dir",
    "out",
    "--max_steps",
    "30",
    "--save_steps",
    "5",
    "--per_device_train_batch_size",
    "2",
    "--logging_steps",
    "10",
    "--report_to",
    "none",
    "--ddp_backend",
    "gloo",
]
RUN = ["run", "-p", "local", "--nproc-per-node", "2"]
HF_RESUME_ARG = ["--resume-arg", "--resume_from_checkpoint {path}"]


def trainer_state(directory: Path) -> dict[str, object]:
    data = json.loads((directory / "trainer_state.json").read_text())
    assert isinstance(data, dict)
    return data


# --------------------------------------------------------------------------- HF Trainer


@pytest.fixture(scope="module")
def hf_ok(tmp_path_factory: pytest.TempPathFactory) -> Finished:
    require("transformers", "accelerate")
    tmp = tmp_path_factory.mktemp("hf-ok")
    return run_with_fault(tmp, [*RUN, "--checkpoint-dir", "out", HF, *HF_ARGS])


@pytest.fixture(scope="module")
def hf_resumed(tmp_path_factory: pytest.TempPathFactory) -> Finished:
    require("transformers", "accelerate")
    tmp = tmp_path_factory.mktemp("hf-resume")
    args = [*RUN, "--checkpoint-dir", "out", *HF_RESUME_ARG, *FAST_RETRY]
    return run_with_fault(tmp, [*args, HF, *HF_ARGS], pause_at=12, signum=signal.SIGKILL)


@pytest.fixture(scope="module")
def hf_not_resumed(tmp_path_factory: pytest.TempPathFactory) -> Finished:
    """The same fault, the script given no --resume-arg: it starts again from step 0."""
    require("transformers", "accelerate")
    tmp = tmp_path_factory.mktemp("hf-no-resume-arg")
    args = [*RUN, "--checkpoint-dir", "out", *FAST_RETRY]
    return run_with_fault(tmp, [*args, HF, *HF_ARGS], pause_at=12, signum=signal.SIGKILL)


def test_hf_trainer_runs_as_one_world_of_two(hf_ok: Finished) -> None:
    assert hf_ok.code == 0, hf_ok.text[-4000:]
    assert by_rank(hf_ok.text, 0).count("hf done: global_step=30") == 1
    assert not any(line.startswith("hf done") for line in by_rank(hf_ok.text, 1))
    final = hf_ok.tmp / "out" / "checkpoint-30"
    assert trainer_state(final)["global_step"] == 30
    # one RNG state per rank: the Trainer saw a world of 2 (not two worlds of 1)
    assert sorted(p.name for p in final.glob("rng_state*")) == [
        "rng_state_0.pth",
        "rng_state_1.pth",
    ]
    found = checkpoints.latest_complete(hf_ok.tmp / "out")
    assert found is not None and (found.layout, found.step) == ("hf", 30)


def test_hf_trainer_resumes_through_resume_from_checkpoint(hf_resumed: Finished) -> None:
    assert hf_resumed.code == 0, hf_resumed.text[-4000:]
    assert [row[2] for row in summary_rows(hf_resumed.text)] == ["exit 137", "ok"]
    ev = hf_resumed.evidence
    assert started_at(ev, 0) == 0
    assert started_at(ev, 1) == started_at(ev, 1, rank=1) == 10  # from checkpoint-10
    assert trainer_state(hf_resumed.tmp / "out" / "checkpoint-30")["global_step"] == 30


def test_this_runs_console_is_already_clean(hf_resumed: Finished) -> None:
    """The console launchx printed went through launchx.outlines: read again, it holds no
    torchrun banner, no doubled prefix and no empty bar line."""
    splitter = OutputSplitter()
    records = splitter.feed(hf_resumed.raw) + splitter.flush()
    assert not [r for r in records if r.kind == "banner"]
    shown = [r for r in records if not r.live]
    assert not any(r.rank is not None and r.text.startswith(f"[rank{r.rank}]") for r in shown)
    bars = [r for r in shown if r.kind == "bar"]
    assert bars and all(r.text.strip() for r in bars)


def test_hf_restart_from_zero_is_named_by_launchx(hf_not_resumed: Finished) -> None:
    """The retry was offered checkpoint-10 and trained from 0: launchx says so, with the
    one-line way an HF script resumes."""
    assert hf_not_resumed.code == 0, hf_not_resumed.text[-4000:]
    assert started_at(hf_not_resumed.evidence, 1) == 0  # the script ignored the offer
    warning = [line for line in hf_not_resumed.text.splitlines() if "did not resume" in line]
    assert len(warning) == 1 and "checkpoint-10 (step 10)" in warning[0], warning
    hint = checkpoints.resume_hint(checkpoints.Checkpoint("x", 10, "hf"))
    assert hint is not None and hint.resume_arg == "--resume_from_checkpoint {path}"
    assert hint.resume_arg.split()[0] in hf_not_resumed.text


def test_defect3_summary_says_offered_and_warns_restart_from_zero(
    hf_not_resumed: Finished,
) -> None:
    text = hf_not_resumed.text
    assert "resuming from" not in text
    assert "offered" in text and "checkpoint-10" in text
    assert "--resume_from_checkpoint" in text  # the one-line way HF resumes
    assert "LAUNCHX_RESUME_FROM" in text
    lower = text.lower()
    assert "step 0" in lower or "from zero" in lower or "from the start" in lower


def test_defect10_bars_and_prefixes_on_the_console(hf_ok: Finished) -> None:
    lines = hf_ok.text.splitlines()
    assert not [line for line in lines if line.strip() in ("[r0]:", "[r1]:")]
    assert not [line for line in lines if "[r0]: [rank0]:" in line or "[r1]: [rank1]:" in line]
    assert len(lines) <= 40  # 60 today


def test_defect10_success_ends_with_one_line(hf_ok: Finished) -> None:
    last = hf_ok.text.rstrip("\n").splitlines()[-1]
    assert last.startswith("launchx:") and "attempt" in last
    assert any(ch.isdigit() for ch in last) and ("s " in last + " " or "min" in last)


def test_defect10_child_failed_banner_goes_to_the_log(hf_resumed: Finished) -> None:
    assert "ChildFailedError" not in hf_resumed.text
    assert "Root Cause (first observed failure)" not in hf_resumed.text
    logs = [p for p in (hf_resumed.tmp / "tmp").rglob("*") if p.is_file()]
    assert any("ChildFailedError" in p.read_text(errors="replace") for p in logs)


# --------------------------------------------------------------------------- Lightning


@pytest.fixture(scope="module")
def lightning_resumed(tmp_path_factory: pytest.TempPathFactory) -> Finished:
    require("lightning")
    tmp = tmp_path_factory.mktemp("lightning")
    args = [*RUN, "--checkpoint-dir", "ckpt", *FAST_RETRY]
    script = [str(SCRIPTS / "lightning_train.py"), "--ckpt-dir", "ckpt"]
    return run_with_fault(tmp, [*args, *script], pause_at=12, signum=signal.SIGKILL)


def test_lightning_ddp_resumes_through_ckpt_path(lightning_resumed: Finished) -> None:
    run = lightning_resumed
    assert run.code == 0, run.text[-4000:]
    assert [row[2] for row in summary_rows(run.text)] == ["exit 137", "ok"]
    assert started_at(run.evidence, 0) == 0
    assert started_at(run.evidence, 1) == started_at(run.evidence, 1, rank=1) == 10
    assert "lightning done: global_step=30" in by_rank(run.text, 0)
    assert any(
        "Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/2" in t for t in by_rank(run.text, 1)
    )
    second = attempt_texts(run.text)[1]
    assert "Restoring states from the checkpoint path at" in second and "last.ckpt" in second
    found = checkpoints.latest_complete(run.tmp / "ckpt")
    assert found is not None and found.layout == "lightning-last" and found.step == 30


def test_a_crash_after_lightning_finished_says_the_training_had_ended(tmp_path: Path) -> None:
    """Rank 1 aborts once fit() returned (a teardown crash): the failure is reported, and
    said to come after the training, whose last checkpoint is there."""
    require("lightning")
    script = [str(SCRIPTS / "lightning_train.py"), "--ckpt-dir", "ckpt", "--max-steps", "10"]
    run = run_with_fault(
        tmp_path, [*RUN, "--max-retries", "0", *script], extra_env={"FW_ABORT_AFTER_FIT": "1"}
    )
    assert run.code != 0, run.text[-4000:]
    assert "`Trainer.fit` stopped: `max_steps=10` reached." in run.text
    note = next(line for line in run.text.splitlines() if "reached its end" in line)
    assert "rank 0 said the training reached its end before this failure" in note, note
    found = checkpoints.latest_complete(tmp_path / "ckpt")
    assert found is not None and found.step == 10


# --------------------------------------------------------------------------- nanoGPT


@pytest.fixture(scope="module")
def nanogpt_resumed(tmp_path_factory: pytest.TempPathFactory) -> Finished:
    tmp = tmp_path_factory.mktemp("nanogpt")
    args = [*RUN, "--checkpoint-dir", "out", "--resume-arg", "--init_from=resume"]
    script = [str(SCRIPTS / "nanogpt_train.py"), "--out_dir=out"]
    return run_with_fault(tmp, [*args, *FAST_RETRY, *script], pause_at=12, signum=signal.SIGKILL)


def test_nanogpt_loop_resumes_through_init_from_resume(nanogpt_resumed: Finished) -> None:
    run = nanogpt_resumed
    assert run.code == 0, run.text[-4000:]
    assert [row[2] for row in summary_rows(run.text)] == ["exit 137", "ok"]
    assert started_at(run.evidence, 0) == 0
    assert started_at(run.evidence, 1) == started_at(run.evidence, 1, rank=1) == 10
    rank0 = by_rank(run.text, 0)
    assert "Resuming training from out" in rank0 and "nanogpt done: iter_num=30" in rank0
    found = checkpoints.latest_complete(run.tmp / "out")
    assert found is not None and found.layout == "nanogpt"
    hint = checkpoints.resume_hint(found)
    assert hint is not None and hint.resume_arg == "--init_from=resume"


# --------------------------------------------------------------------------- accelerate


def test_accelerate_save_state_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """accelerate's own automatic naming (``checkpoints/checkpoint_<i>``), written by the
    real ``Accelerator.save_state`` in one process, is recognised with its resume hint."""
    require("accelerate")
    import torch
    from accelerate import Accelerator
    from accelerate.utils import ProjectConfiguration

    monkeypatch.setenv("ACCELERATE_USE_CPU", "true")
    config = ProjectConfiguration(project_dir=str(tmp_path), automatic_checkpoint_naming=True)
    acc = Accelerator(cpu=True, project_config=config)
    model, opt = acc.prepare(
        torch.nn.Linear(4, 1), torch.optim.SGD(torch.nn.Linear(4, 1).parameters(), lr=0.1)
    )
    acc.save_state()
    acc.save_state()
    root = tmp_path / "checkpoints"
    assert sorted(p.name for p in root.iterdir()) == ["checkpoint_0", "checkpoint_1"]
    found = checkpoints.latest_complete(root)
    assert found is not None and (Path(found.path).name, found.layout) == (
        "checkpoint_1",
        "accelerate",
    )
    hint = checkpoints.resume_hint(found)
    assert hint is not None and hint.code is not None and "accelerator.load_state" in hint.code
    acc.load_state(found.path)  # the path launchx offers is one accelerate loads
    del model, opt
