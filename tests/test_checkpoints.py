"""Checkpoint discovery: every layout, every never-chosen rule, and random trees."""

from __future__ import annotations

import os
import shlex
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from launchx import checkpoints as ck
from launchx.checkpoints import Checkpoint, latest_complete, list_complete


def put_file(path: Path, data: bytes = b"weights") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def put_dir(path: Path, *files: str) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name in files:
        put_file(path / name)
    return path


def chosen(directory: Path) -> tuple[str, int, str] | None:
    found = latest_complete(directory)
    return None if found is None else (os.path.basename(found.path), found.step, found.layout)


# --- launchx's own layout --------------------------------------------------------------


def test_launchx_layout_highest_step_wins(tmp_path: Path) -> None:
    for step in (100, 300, 200):
        put_file(tmp_path / ck.launchx_name(step))
    assert chosen(tmp_path) == ("step_00000300.pt", 300, "launchx")
    assert [c.step for c in list_complete(tmp_path)] == [100, 200, 300]


def test_launchx_temp_file_is_never_chosen(tmp_path: Path) -> None:
    put_file(tmp_path / ck.launchx_name(100))
    put_file(tmp_path / ck.launchx_temp_name(400, "123.abcd"), b"half a checkpoint")
    assert chosen(tmp_path) == ("step_00000100.pt", 100, "launchx")


def test_launchx_name_round_trips_and_non_canonical_is_generic(tmp_path: Path) -> None:
    put_file(tmp_path / "step_300.pt")  # a user's file: same prefix, not launchx's exact form
    assert chosen(tmp_path) == ("step_300.pt", 300, "generic")
    with pytest.raises(ValueError):
        ck.launchx_name(-1)


def test_paths_are_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    put_file(tmp_path / ck.launchx_name(5))
    monkeypatch.chdir(tmp_path)
    found = latest_complete(".")
    assert found is not None and found.path == str(tmp_path / "step_00000005.pt")


# --- Hugging Face ----------------------------------------------------------------------


def test_hf_checkpoint_needs_trainer_state(tmp_path: Path) -> None:
    put_dir(tmp_path / "checkpoint-100", "model.safetensors", "trainer_state.json")
    put_dir(tmp_path / "checkpoint-200", "model.safetensors", "optimizer.pt")  # being written
    assert chosen(tmp_path) == ("checkpoint-100", 100, "hf")


def test_hf_empty_trainer_state_is_incomplete(tmp_path: Path) -> None:
    put_dir(tmp_path / "checkpoint-100", "model.safetensors")
    (tmp_path / "checkpoint-100" / "trainer_state.json").write_bytes(b"")
    assert chosen(tmp_path) is None


# --- DeepSpeed / Megatron --------------------------------------------------------------


def test_deepspeed_latest_names_the_complete_tag(tmp_path: Path) -> None:
    for step in (100, 200, 300):
        put_dir(tmp_path / f"global_step{step}", "mp_rank_00_model_states.pt")
    (tmp_path / "latest").write_text("global_step200\n")
    assert chosen(tmp_path) == ("global_step200", 200, "deepspeed")
    assert [c.step for c in list_complete(tmp_path)] == [100, 200]


def test_deepspeed_without_latest_is_not_chosen(tmp_path: Path) -> None:
    put_dir(tmp_path / "global_step100", "mp_rank_00_model_states.pt")
    assert chosen(tmp_path) is None


def test_deepspeed_latest_naming_a_missing_or_empty_dir(tmp_path: Path) -> None:
    put_dir(tmp_path / "global_step100", "mp_rank_00_model_states.pt")
    (tmp_path / "global_step300").mkdir()
    (tmp_path / "latest").write_text("global_step300")
    assert chosen(tmp_path) == ("global_step100", 100, "deepspeed")


def test_deepspeed_custom_tag(tmp_path: Path) -> None:
    put_dir(tmp_path / "run_a_7", "mp_rank_00_model_states.pt")
    (tmp_path / "latest").write_text("run_a_7")
    assert chosen(tmp_path) == ("run_a_7", 7, "deepspeed")


def test_megatron_tracker(tmp_path: Path) -> None:
    for step in (100, 200, 300):
        put_dir(tmp_path / f"iter_{step:07d}" / "mp_rank_00", "model_optim_rng.pt")
    (tmp_path / "latest_checkpointed_iteration.txt").write_text("200")
    assert chosen(tmp_path) == ("iter_0000200", 200, "megatron")
    (tmp_path / "latest_checkpointed_iteration.txt").write_text("release")
    assert chosen(tmp_path) is None


# --- Lightning -------------------------------------------------------------------------


def test_lightning_step_in_name(tmp_path: Path) -> None:
    put_file(tmp_path / "epoch=0-step=100.ckpt")
    put_file(tmp_path / "epoch=1-step=200-v1.ckpt")
    put_file(tmp_path / "model-epoch=1-step=150-val_loss=0.12.ckpt")
    assert chosen(tmp_path) == ("epoch=1-step=200-v1.ckpt", 200, "lightning")


def test_lightning_last_ranks_at_newest_named_step_and_wins_the_tie(tmp_path: Path) -> None:
    put_file(tmp_path / "epoch=0-step=100.ckpt")
    put_file(tmp_path / "epoch=1-step=200.ckpt")
    put_file(tmp_path / "last.ckpt")
    assert chosen(tmp_path) == ("last.ckpt", 200, "lightning-last")


def test_lightning_last_alone_has_step_zero(tmp_path: Path) -> None:
    put_file(tmp_path / "last-v1.ckpt")
    assert chosen(tmp_path) == ("last-v1.ckpt", 0, "lightning-last")


def test_lightning_last_loses_to_a_newer_other_layout(tmp_path: Path) -> None:
    put_file(tmp_path / "epoch=0-step=100.ckpt")
    put_file(tmp_path / "last.ckpt")
    put_file(tmp_path / ck.launchx_name(150))
    assert chosen(tmp_path) == ("step_00000150.pt", 150, "launchx")


# --- generic names ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "step"),
    [
        ("step-300.pt", 300),
        ("ckpt_300.pt", 300),
        ("model.300.pth", 300),
        ("ckpt_300.tar.gz", 300),
        ("ckpt_300", 300),
        ("weights-0000042.safetensors", 42),
    ],
)
def test_generic_file_names(tmp_path: Path, name: str, step: int) -> None:
    put_file(tmp_path / name)
    assert chosen(tmp_path) == (name, step, "generic")


@pytest.mark.parametrize("ext", sorted(ck._CHECKPOINT_EXTENSIONS))
def test_every_checkpoint_extension_is_recognised(tmp_path: Path, ext: str) -> None:
    put_file(tmp_path / f"ckpt_700{ext}")
    assert chosen(tmp_path) == (f"ckpt_700{ext}", 700, "generic")


@pytest.mark.parametrize(
    "name", ["log_2024.txt", "core.1234", "notes_5.md", "latest", "run.42.json"]
)
def test_files_that_merely_end_in_digits_are_not_checkpoints(tmp_path: Path, name: str) -> None:
    put_file(tmp_path / name)
    assert chosen(tmp_path) is None


def test_generic_directory(tmp_path: Path) -> None:
    put_dir(tmp_path / "checkpoint_300", "model.pt")
    put_dir(tmp_path / "checkpoint_400" / "shards", "rank0.pt")  # content one level down
    assert chosen(tmp_path) == ("checkpoint_400", 400, "generic")


def test_generic_directory_with_partial_entry_is_incomplete(tmp_path: Path) -> None:
    put_dir(tmp_path / "checkpoint_300", "model.pt")
    put_dir(tmp_path / "checkpoint_400", "model.pt", "optim.pt.tmp")
    assert chosen(tmp_path) == ("checkpoint_300", 300, "generic")


def test_generic_directory_with_only_hidden_or_empty_files_is_empty(tmp_path: Path) -> None:
    put_dir(tmp_path / "checkpoint_300", ".gitkeep")
    (tmp_path / "checkpoint_300" / "model.pt").write_bytes(b"")
    assert chosen(tmp_path) is None


def test_dcp_directory_needs_metadata(tmp_path: Path) -> None:
    put_dir(tmp_path / "step_300", "__0_0.distcp", "__1_0.distcp")
    assert chosen(tmp_path) is None
    put_file(tmp_path / "step_300" / ".metadata.tmp")  # DCP's own in-progress name
    assert chosen(tmp_path) is None
    os.replace(tmp_path / "step_300" / ".metadata.tmp", tmp_path / "step_300" / ".metadata")
    assert chosen(tmp_path) == ("step_300", 300, "dcp")


def test_dcp_per_rank_metadata(tmp_path: Path) -> None:
    put_dir(tmp_path / "step_300", "__0_0.distcp", "__0.metadata")
    assert chosen(tmp_path) == ("step_300", 300, "dcp")


# --- never chosen ----------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ck._TEMP_SUFFIXES)
def test_temp_suffixes_never_chosen(tmp_path: Path, suffix: str) -> None:
    put_file(tmp_path / "ckpt_100.pt")
    put_file(tmp_path / f"ckpt_500.pt{suffix}")
    put_dir(tmp_path / f"checkpoint_600{suffix}", "model.pt")
    assert ck.is_temporary_name(f"ckpt_500.pt{suffix}")
    assert chosen(tmp_path) == ("ckpt_100.pt", 100, "generic")


@pytest.mark.parametrize("infix", ck._TEMP_INFIXES)
def test_temp_infixes_never_chosen(tmp_path: Path, infix: str) -> None:
    put_file(tmp_path / "ckpt_100.pt")
    put_dir(tmp_path / f"checkpoint{infix}500", "model.pt")  # otherwise a generic dir
    put_file(tmp_path / f"ckpt_600.pt{infix}123")
    assert chosen(tmp_path) == ("ckpt_100.pt", 100, "generic")


@pytest.mark.parametrize("prefix", ck._TEMP_PREFIXES)
def test_temp_prefixes_never_chosen(tmp_path: Path, prefix: str) -> None:
    put_file(tmp_path / "ckpt_100.pt")
    put_dir(tmp_path / f"{prefix}checkpoint-500", "model.pt", "trainer_state.json")
    assert chosen(tmp_path) == ("ckpt_100.pt", 100, "generic")


def test_dot_files_never_chosen(tmp_path: Path) -> None:
    put_file(tmp_path / "ckpt_100.pt")
    put_file(tmp_path / ".ckpt_500.pt")
    put_dir(tmp_path / ".checkpoint_600", "model.pt")
    assert chosen(tmp_path) == ("ckpt_100.pt", 100, "generic")


def test_empty_files_and_empty_dirs_never_chosen(tmp_path: Path) -> None:
    put_file(tmp_path / "ckpt_100.pt")
    put_file(tmp_path / ck.launchx_name(500), b"")
    (tmp_path / "checkpoint_600").mkdir()
    assert chosen(tmp_path) == ("ckpt_100.pt", 100, "generic")


def test_links(tmp_path: Path) -> None:
    put_file(tmp_path / "ckpt_100.pt")
    (tmp_path / "ckpt_900.pt").symlink_to(tmp_path / "gone.pt")  # broken
    (tmp_path / "loop_800").symlink_to(tmp_path / "loop_800")  # a loop
    target = put_file(tmp_path / "elsewhere" / "weights.bin")
    (tmp_path / "ckpt_200.pt").symlink_to(target)
    assert chosen(tmp_path) == ("ckpt_200.pt", 200, "generic")


@pytest.mark.parametrize(
    ("name", "step"),
    [
        ("step_٣٠٠.pt", None),  # Arabic-Indic digits are not a step
        ("ckpt_" + "9" * 200 + ".pt", None),  # too many digits to be a step
        ("ckpt_300\n", None),  # a trailing newline is not the end of a number
        ("ckpt_\n300", 300),
        ("it's $HOME; echo x \\ ckpt_3", 3),
        ("ckpt 300 (copy).pt", None),
    ],
)
def test_hostile_names(tmp_path: Path, name: str, step: int | None) -> None:
    put_file(tmp_path / "ckpt_1.pt")
    put_file(tmp_path / name)
    found = {os.path.basename(c.path): c.step for c in list_complete(tmp_path)}
    assert found.get("ckpt_1.pt") == 1
    assert found.get(name) == step


def test_missing_or_non_directory_is_none(tmp_path: Path) -> None:
    assert latest_complete(tmp_path / "nope") is None
    assert latest_complete(put_file(tmp_path / "ckpt_1.pt")) is None
    assert list_complete(tmp_path / "nope") == []


# --- ranking ---------------------------------------------------------------------------


def test_highest_step_wins_across_layouts(tmp_path: Path) -> None:
    put_file(tmp_path / ck.launchx_name(100))
    put_dir(tmp_path / "checkpoint-250", "trainer_state.json")
    put_file(tmp_path / "epoch=3-step=200.ckpt")
    put_file(tmp_path / "ckpt_240.pt")
    assert chosen(tmp_path) == ("checkpoint-250", 250, "hf")


def test_equal_steps_follow_layout_priority(tmp_path: Path) -> None:
    put_file(tmp_path / ck.launchx_name(300))
    put_dir(tmp_path / "checkpoint-300", "trainer_state.json")
    put_dir(tmp_path / "global_step300", "model.pt")
    (tmp_path / "latest").write_text("global_step300")
    put_dir(tmp_path / "iter_0000300", "model.pt")
    (tmp_path / "latest_checkpointed_iteration.txt").write_text("300")
    put_dir(tmp_path / "dcp_300", "__0_0.distcp", ".metadata")
    put_dir(tmp_path / "checkpoint_300", "model.safetensors", "random_states_0.pkl")
    put_file(tmp_path / "last.ckpt")
    put_file(tmp_path / "epoch=0-step=300.ckpt")
    put_file(tmp_path / "model_300.bin")
    # nanoGPT's ckpt.pt and metric-named .ckpt have no step in their names: they rank at 0
    # and cannot tie here
    expected = [lay for lay in ck.LAYOUT_PRIORITY if lay not in ("nanogpt", "lightning-metric")]
    assert [c.layout for c in list_complete(tmp_path)] == expected


def test_lightning_files_named_from_metrics_have_no_step(tmp_path: Path) -> None:
    """``ModelCheckpoint(filename="{epoch}-{val_loss:.2f}")``: the digits after val_loss=
    are no step (read as one, the oldest file, with the highest loss, won). Without a step
    the one written last is the newest; last.ckpt, rewritten at every save, beats them."""
    for i, loss in enumerate(("0.24", "0.17", "0.05")):
        path = tmp_path / f"epoch=0-train_loss={loss}.ckpt"
        put_file(path)
        os.utime(path, (1000 + i, 1000 + i))
    assert chosen(tmp_path) == ("epoch=0-train_loss=0.05.ckpt", 0, "lightning-metric")
    put_file(tmp_path / "last.ckpt")
    assert chosen(tmp_path) == ("last.ckpt", 0, "lightning-last")
    hint = ck.resume_hint(list_complete(tmp_path)[-1])
    assert hint is not None and hint.framework == "Lightning"


# --- accelerate, nanoGPT, half-written zips ---------------------------------------------


def test_accelerate_save_state_directory(tmp_path: Path) -> None:
    """``checkpoint_<i>`` (i counts saves) with accelerate's files: complete once rank 0's
    RNG file, written after the weights and optimizer, is there."""
    put_dir(tmp_path / "checkpoint_0", "model.safetensors", "optimizer.bin", "random_states_0.pkl")
    put_dir(tmp_path / "checkpoint_1", "model.safetensors", "optimizer.bin", "random_states_1.pkl")
    assert chosen(tmp_path) == ("checkpoint_0", 0, "accelerate")
    put_file(tmp_path / "checkpoint_1" / "random_states_0.pkl")
    assert chosen(tmp_path) == ("checkpoint_1", 1, "accelerate")


def test_accelerates_automatic_naming_is_found_under_the_project_directory(
    tmp_path: Path,
) -> None:
    """``ProjectConfiguration(project_dir, automatic_checkpoint_naming=True)`` saves to
    ``project_dir/checkpoints/checkpoint_<i>``; the project directory is what users pass.
    Only accelerate's own layout is looked for there: any other checkpoints/ is not."""
    put_dir(tmp_path / "checkpoints" / "checkpoint_0", "model.safetensors", "random_states_0.pkl")
    put_dir(tmp_path / "checkpoints" / "checkpoint_1", "model.safetensors", "random_states_0.pkl")
    assert chosen(tmp_path) == ("checkpoint_1", 1, "accelerate")
    other = tmp_path / "other"
    put_file(other / "checkpoints" / "step_300.pt")
    assert chosen(other) is None


def test_a_step_directory_without_accelerates_files_is_generic(tmp_path: Path) -> None:
    put_dir(tmp_path / "checkpoint_3", "model.safetensors", "optimizer.bin")
    assert chosen(tmp_path) == ("checkpoint_3", 3, "generic")


ACCELERATE_FILES = ("model.safetensors", "optimizer.bin", "scheduler.bin", "random_states_0.pkl")


def test_a_save_state_cut_short_before_the_files_its_older_siblings_hold(tmp_path: Path) -> None:
    """accelerate's ``save_state`` into a directory named by hand (``step_15``), killed
    while it wrote the optimizer: only the weights are there, and no RNG file says which
    layout it is. Beside a whole ``step_10`` it is cut short, not a generic checkpoint."""
    put_dir(tmp_path / "step_10", *ACCELERATE_FILES)
    put_dir(tmp_path / "step_15", "model.safetensors")
    assert chosen(tmp_path) == ("step_10", 10, "accelerate")
    # the same holds for a script's own set of files
    put_dir(tmp_path / "own" / "ckpt_100", "weights.pt", "optim.pt", "meta.json")
    put_dir(tmp_path / "own" / "ckpt_200", "weights.pt", "meta.json")
    assert chosen(tmp_path / "own") == ("ckpt_100", 100, "generic")
    put_file(tmp_path / "own" / "ckpt_200" / "optim.pt")
    assert chosen(tmp_path / "own") == ("ckpt_200", 200, "generic")


def test_only_a_file_every_older_save_holds_makes_the_newest_short(tmp_path: Path) -> None:
    """A file only some saves hold proves nothing: notes added to an old checkpoint, an
    optimizer saved every other time, a save in a new format; another family of names
    beside them is not compared; older saves are not judged once a newer one passes."""
    put_dir(tmp_path / "notes" / "step_100", "model.pt", "optim.pt", "README.md")
    for step in (200, 300):
        put_dir(tmp_path / "notes" / f"step_{step}", "model.pt", "optim.pt")
    assert chosen(tmp_path / "notes") == ("step_300", 300, "generic")
    every_other = tmp_path / "every_other"
    put_dir(every_other / "step_100", "model.pt", "optim.pt")
    put_dir(every_other / "step_200", "model.pt")
    put_dir(every_other / "step_300", "model.pt", "optim.pt")
    put_dir(every_other / "step_400", "model.pt")
    assert chosen(every_other) == ("step_400", 400, "generic")
    families = tmp_path / "families"
    put_dir(families / "logs_0", "model.pt", "events.txt")
    put_dir(families / "step_500", "model.pt")
    assert chosen(families) == ("step_500", 500, "generic")
    # a run that stopped saving one file (fp16 turned off): one save is doubted, the next
    # one, which the changed run wrote too, is not
    scaler = tmp_path / "scaler"
    for i in (0, 1):
        put_dir(scaler / f"checkpoint_{i}", *ACCELERATE_FILES, "scaler.pt")
    put_dir(scaler / "checkpoint_2", *ACCELERATE_FILES)
    assert chosen(scaler) == ("checkpoint_1", 1, "accelerate")
    put_dir(scaler / "checkpoint_3", *ACCELERATE_FILES)
    assert chosen(scaler) == ("checkpoint_3", 3, "accelerate")


def test_registered_objects_written_after_the_rng_file_are_waited_for(tmp_path: Path) -> None:
    """``register_for_checkpointing`` objects are saved after ``random_states_0.pkl``: a
    newer save without them, beside one that has them, is cut short."""
    custom = (*ACCELERATE_FILES, "custom_checkpoint_0.pkl")
    put_dir(tmp_path / "checkpoints" / "checkpoint_1", *custom)
    put_dir(tmp_path / "checkpoints" / "checkpoint_2", *ACCELERATE_FILES)
    assert chosen(tmp_path) == ("checkpoint_1", 1, "accelerate")
    put_file(tmp_path / "checkpoints" / "checkpoint_2" / "custom_checkpoint_0.pkl")
    assert chosen(tmp_path) == ("checkpoint_2", 2, "accelerate")


def test_a_resume_on_fewer_ranks_is_not_cut_short(tmp_path: Path) -> None:
    # files per rank: a run that resumed on one rank saves one RNG file, not two
    put_dir(tmp_path / "checkpoint_0", *ACCELERATE_FILES, "random_states_1.pkl")
    put_dir(tmp_path / "checkpoint_1", *ACCELERATE_FILES)
    assert chosen(tmp_path) == ("checkpoint_1", 1, "accelerate")


def test_a_torch_save_cut_short_inside_a_step_directory(tmp_path: Path) -> None:
    """The first save of a run has no older sibling to compare with: a file that
    ``torch.save`` was writing (a zip without its end record) says it is not done."""
    optim = torch_save(tmp_path / "step_5" / "optimizer.bin", 5)
    put_file(tmp_path / "step_5" / "model.safetensors")
    assert chosen(tmp_path) == ("step_5", 5, "generic")
    optim.write_bytes(optim.read_bytes()[:100])
    assert chosen(tmp_path) is None


def test_later_saves_that_are_not_complete_are_named(tmp_path: Path) -> None:
    """Why the newest is not the one offered: the later saves beside it that the failure
    cut short, in their writer's naming; not a writer's in-progress name, an older
    incomplete save, a file that is no checkpoint, nor Lightning's logger directory."""
    put_dir(tmp_path / "checkpoint_1", *ACCELERATE_FILES)
    put_dir(tmp_path / "checkpoint_2", "model.safetensors")
    put_dir(tmp_path / "checkpoint_0", *ACCELERATE_FILES)  # older: not a later save
    put_file(tmp_path / ".checkpoint_3.tmp.123")
    put_file(tmp_path / "train_500.log")
    put_dir(tmp_path / "version_7", "hparams.yaml")
    offered = latest_complete(tmp_path)
    assert offered is not None and os.path.basename(offered.path) == "checkpoint_1"
    assert ck.passed_over(offered) == ("checkpoint_2",)
    hf = tmp_path / "hf"
    put_dir(hf / "checkpoint-10", "model.safetensors", "trainer_state.json")
    put_dir(hf / "checkpoint-20", "model.safetensors")  # no trainer_state.json yet
    put_file(hf / "global_step30" / "mp_rank_00_model_states.pt")  # DeepSpeed's, no latest
    offered = latest_complete(hf)
    assert offered is not None and ck.passed_over(offered) == ("checkpoint-20", "global_step30")
    # a checkpoint whose step is not in its name has no "later"
    put_file(tmp_path / "nano" / "ckpt.pt")
    put_file(tmp_path / "nano" / "ckpt_5.pt", b"PK\x03\x04 cut short")
    offered = latest_complete(tmp_path / "nano")
    assert offered is not None and ck.passed_over(offered) == ()


def test_lightnings_default_layout_under_its_logger_directory(tmp_path: Path) -> None:
    """ModelCheckpoint without a dirpath saves to ``lightning_logs/version_<N>/checkpoints``;
    the logger's ``version_<N>`` is no checkpoint, whatever its trailing number, and the
    files below it are found from ``lightning_logs`` or the directory above it."""
    logs = tmp_path / "lightning_logs"
    put_dir(logs / "version_0", "hparams.yaml")
    put_file(logs / "version_0" / "checkpoints" / "epoch=0-step=5.ckpt")
    put_file(logs / "version_0" / "checkpoints" / "epoch=0-step=10.ckpt")
    for root in (logs, tmp_path):
        assert chosen(root) == ("epoch=0-step=10.ckpt", 10, "lightning"), root
    # the retry logs to version_1, and saves on from the step it resumed at
    put_dir(logs / "version_1", "metrics.csv")
    put_file(logs / "version_1" / "checkpoints" / "epoch=1-step=15.ckpt")
    assert chosen(logs) == ("epoch=1-step=15.ckpt", 15, "lightning")
    # a logger's directory with nothing saved yet offers nothing
    empty = tmp_path / "fresh" / "lightning_logs"
    put_dir(empty / "version_0", "hparams.yaml")
    assert chosen(empty) is None and chosen(empty.parent) is None
    # LightningCLI writes its config.yaml into the version before hparams.yaml; in
    # lightning_logs a version_N is the logger's by its place alone
    cli = tmp_path / "cli"
    put_dir(cli / "version_0", "config.yaml")
    put_dir(cli / "lightning_logs" / "version_1", "model.pt")
    assert chosen(cli) is None and chosen(cli / "lightning_logs") is None
    # last.ckpt alone in each version (save_last without step-named files): the one
    # written last, whatever the versions' names sort as
    many = tmp_path / "many" / "lightning_logs"
    for v in range(12):
        last = put_file(many / f"version_{v}" / "checkpoints" / "last.ckpt")
        os.utime(last, (1_000_000 + v, 1_000_000 + v))
    found = latest_complete(many)
    assert found is not None and "/version_11/" in found.path
    # without a logger, ModelCheckpoint saves to <root>/checkpoints
    put_file(tmp_path / "nolog" / "checkpoints" / "epoch=0-step=7.ckpt")
    assert chosen(tmp_path / "nolog") == ("epoch=0-step=7.ckpt", 7, "lightning")


def test_nanogpt_ckpt_pt_ranks_at_zero(tmp_path: Path) -> None:
    put_file(tmp_path / "ckpt.pt")
    assert chosen(tmp_path) == ("ckpt.pt", 0, "nanogpt")
    put_file(tmp_path / "ckpt_5.pt")
    assert chosen(tmp_path) == ("ckpt_5.pt", 5, "generic")


def torch_save(path: Path, step: int) -> Path:
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"step": step, "w": torch.zeros(64)}, path)
    return path


@pytest.mark.parametrize("name", ["ckpt.pt", "ckpt_300.pt", "epoch=0-step=300.ckpt", "last.ckpt"])
def test_a_torch_save_cut_short_is_never_chosen(tmp_path: Path, name: str) -> None:
    """nanoGPT, Lightning's fallback and most scripts save in place: a kill mid-save
    leaves a zip without its end record."""
    whole = torch_save(tmp_path / "a" / name, 300)
    assert ck.zip_whole(whole)
    assert latest_complete(tmp_path / "a") is not None
    data = whole.read_bytes()
    for cut in (len(data) - 1, len(data) // 2, 30):
        whole.write_bytes(data[:cut])
        assert not ck.zip_whole(whole)
        assert latest_complete(tmp_path / "a") is None, cut


def test_zip_whole_rules(tmp_path: Path) -> None:
    import zipfile

    assert ck.zip_whole(put_file(tmp_path / "pickle.pt", b"\x80\x02legacy pickle"))
    assert not ck.zip_whole(tmp_path / "missing.pt")
    with zipfile.ZipFile(tmp_path / "c.zip", "w") as zf:
        zf.writestr("a", "b")
        zf.comment = b"a comment PK\x05\x06 inside"
    assert ck.zip_whole(tmp_path / "c.zip")
    data = (tmp_path / "c.zip").read_bytes()
    (tmp_path / "c.zip").write_bytes(data + b"trailing junk")
    assert not ck.zip_whole(tmp_path / "c.zip")


def test_accelerate_rng_file_cut_short(tmp_path: Path) -> None:
    torch_save(tmp_path / "checkpoint_2" / "random_states_0.pkl", 2)
    put_file(tmp_path / "checkpoint_2" / "model.safetensors")
    assert chosen(tmp_path) == ("checkpoint_2", 2, "accelerate")
    rng = tmp_path / "checkpoint_2" / "random_states_0.pkl"
    rng.write_bytes(rng.read_bytes()[:40])
    assert chosen(tmp_path) is None


# --- resume hints -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("layout", "framework", "resume_arg", "code"),
    [
        (
            "hf",
            "Hugging Face Trainer",
            "--resume_from_checkpoint {path}",
            "trainer.train(resume_from_checkpoint=",
        ),
        ("lightning", "Lightning", "--ckpt_path {path}", "trainer.fit(model, ckpt_path="),
        ("lightning-last", "Lightning", "--ckpt_path {path}", "trainer.fit(model, ckpt_path="),
        ("deepspeed", "DeepSpeed", None, "engine.load_checkpoint("),
        ("accelerate", "accelerate", None, "accelerator.load_state("),
        ("megatron", "Megatron-LM", None, "--load"),
        ("dcp", "torch.distributed.checkpoint", None, "dcp.load("),
        ("nanogpt", "nanoGPT", "--init_from=resume", None),
    ],
)
def test_resume_hint_per_layout(
    layout: ck.Layout, framework: str, resume_arg: str | None, code: str | None
) -> None:
    hint = ck.resume_hint(Checkpoint("/ck/x", 10, layout))
    assert hint is not None
    assert hint.framework == framework
    assert hint.resume_arg == resume_arg
    if code is None:
        assert hint.code is None
    else:
        assert hint.code is not None and code in hint.code
    text = hint.text()
    assert framework in text
    if resume_arg:
        assert f"--resume-arg {shlex.quote(resume_arg)}" in text
    if hint.code and "LAUNCHX_RESUME_FROM" not in hint.code:
        assert layout == "megatron"


def test_every_layout_has_a_hint_or_needs_none() -> None:
    for layout in ck.LAYOUT_PRIORITY:
        hint = ck.resume_hint(Checkpoint("/ck/x", 1, layout))
        assert (hint is None) == (layout in ("launchx", "generic")), layout


def test_hf_hint_text() -> None:
    hint = ck.resume_hint(Checkpoint("/ck/checkpoint-10", 10, "hf"))
    assert hint is not None
    assert hint.text() == (
        "a Hugging Face Trainer checkpoint resumes with --resume-arg "
        "'--resume_from_checkpoint {path}' (when the script passes "
        "TrainingArguments.resume_from_checkpoint to trainer.train, as the HF examples do), "
        'or trainer.train(resume_from_checkpoint=os.environ.get("LAUNCHX_RESUME_FROM"))'
    )


def test_a_hint_says_an_before_a_vowel() -> None:
    hint = ck.resume_hint(Checkpoint("/ck/step_20", 20, "accelerate"))
    assert hint is not None and hint.text().startswith("an accelerate checkpoint resumes with")


# --- property: random trees never raise, answers are sane -------------------------------

_NAMES = st.one_of(
    st.sampled_from(
        [
            "step_00000100.pt",
            "step_00000200.pt",
            ".step_00000300.pt.tmp.1.ab",
            "ckpt_5.pt",
            "checkpoint-7",
            "checkpoint_8",
            "global_step9",
            "iter_0000010",
            "last.ckpt",
            "epoch=0-step=11.ckpt",
            "latest",
            "latest_checkpointed_iteration.txt",
            "ckpt_12.pt.partial",
            "tmp-checkpoint-13",
            "step_14",
            "x.tmp.15",
            "weights_16.bin",
        ]
    ),
    st.text(
        alphabet=st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)),
        min_size=1,
        max_size=12,
    ).filter(lambda s: s not in (".", "..")),
)
_KINDS = st.sampled_from(
    ["empty", "file", "text", "dir", "dir-file", "dir-hf", "dir-tmp", "dir-distcp", "dangling"]
)
_TEXTS = st.sampled_from(["global_step9", "10", "release", "", "\xff\xfe", "checkpoint-7", "..."])


def _build(root: Path, name: str, kind: str, text: str) -> None:
    path = root / name
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "file":
        path.write_bytes(b"x")
    elif kind == "text":
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
    elif kind == "dangling":
        path.symlink_to(root / "does-not-exist")
    else:
        path.mkdir()
        inner = {
            "dir": [],
            "dir-file": ["m.pt"],
            "dir-hf": ["trainer_state.json"],
            "dir-tmp": ["m.pt", "o.pt.tmp"],
            "dir-distcp": ["__0_0.distcp"],
        }[kind]
        for child in inner:
            (path / child).write_bytes(b"x")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_NAMES, _KINDS, _TEXTS), max_size=10, unique_by=lambda t: t[0]))
def test_random_trees_never_raise(entries: list[tuple[str, str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, kind, text in entries:
            try:
                _build(root, name, kind, text)
            except OSError:
                continue  # a name this filesystem refuses
        found = list_complete(root)
        latest = latest_complete(root)
        assert latest == (found[-1] if found else None)
        assert [c.step for c in found] == sorted(c.step for c in found)
        for c in found:
            assert isinstance(c, Checkpoint)
            name = os.path.basename(c.path)
            assert os.path.dirname(c.path) == os.path.abspath(root)
            assert not ck.is_temporary_name(name)
            assert os.path.exists(c.path)
            if os.path.isfile(c.path):
                assert os.path.getsize(c.path) > 0
            else:
                assert os.listdir(c.path)


def test_written_at_sees_files_rewritten_inside_a_checkpoint_directory(tmp_path: Path) -> None:
    """A framework saving into an existing checkpoint-5/ truncates and rewrites its files:
    the directory's own time does not move, its newest entry's does."""
    from launchx.checkpoints import Checkpoint, written_at

    ckpt_dir = tmp_path / "checkpoint-5"
    ckpt_dir.mkdir()
    weights = ckpt_dir / "model.safetensors"
    weights.write_bytes(b"x")
    os.utime(weights, (1000, 1000))
    os.utime(ckpt_dir, (1000, 1000))
    ckpt = Checkpoint(str(ckpt_dir), 5, "hf")
    assert written_at(ckpt) == 1000
    with weights.open("r+b") as fh:  # rewritten in place: no entry added or removed
        fh.write(b"y")
    os.utime(weights, (2000, 2000))
    assert os.stat(ckpt_dir).st_mtime == 1000 and written_at(ckpt) == 2000
    assert written_at(Checkpoint(str(tmp_path / "gone"), 1, "hf")) == 0.0
