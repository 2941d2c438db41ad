"""Find the newest *complete* checkpoint in a directory, whoever wrote it.

Before each attempt launchx asks this module what to put in ``LAUNCHX_RESUME_FROM``.
Resuming from a half-written checkpoint is worse than starting over (a crash on load at
best, silently corrupt weights at worst), so every rule here errs towards "not complete".
Completeness is decided from names and from evidence the writer leaves *last* (an atomic
rename, a marker file, a tracker file): never from modification times, because a clock
rule gives different answers on different machines and cannot tell a slow writer from a
dead one.

Only the entries directly inside the given directory are candidates. Layouts, by
``Checkpoint.layout``:

``launchx``
    ``step_<8+ digits>.pt``, written by ``launchx.runtime.save_checkpoint`` to a dot-named
    temporary file and renamed into place, so the final name only ever names a whole file.
``hf``
    Hugging Face Trainer ``checkpoint-<N>/``; complete only with a non-empty
    ``trainer_state.json``, which the Trainer writes after the weights and optimizer.
``deepspeed``
    ``global_step<N>/`` (or any tag directory) next to a ``latest`` file. DeepSpeed writes
    ``latest`` after the tag directory is whole, so the tag ``latest`` names is complete,
    older ``global_step<N>/`` are complete, newer ones are still being written. Without a
    ``latest`` file nothing is chosen (DeepSpeed's own loader needs it too).
``megatron``
    ``iter_<N>/`` next to ``latest_checkpointed_iteration.txt``, same reasoning.
``lightning``
    ``*.ckpt`` with ``step=<N>`` in the name (``epoch=2-step=300.ckpt``, ``…-v1.ckpt``).
``lightning-last``
    ``last.ckpt`` / ``last-v<K>.ckpt``. Its step is not in its name. Lightning rewrites it on
    every save trigger, after the step-named files, so it is never older than them: it
    gets the highest step among the Lightning files beside it (0 when there are none) and
    wins ties against them. Its ``step`` is therefore a lower bound.
``dcp``
    A step-named directory holding ``torch.distributed.checkpoint`` shards (``*.distcp``);
    complete only once ``.metadata`` (or ``__0.metadata``) exists, which DCP renames into
    place last.
``generic``
    Any other file with a checkpoint extension (``.pt``, ``.pth``, ``.ckpt``, ``.bin``,
    ``.safetensors``, ``.pkl``, …) or with no extension, or any directory, whose name ends
    in a step number (``step-300.pt``, ``ckpt_300.pt``, ``checkpoint_300/``). A directory
    must hold at least one non-empty file (dot-files do not count) and no entry with a
    temporary name.

Never chosen: dot-files, temporary names (``*.tmp``, ``*.partial``, ``*.incomplete``,
``*.part``, names containing ``.tmp.``, ``tmp-…``), empty files, empty directories,
broken links, anything that cannot be read. Highest step wins; ties are broken by layout
(the order of ``LAYOUT_PRIORITY``) and then by name, so the answer is deterministic.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Layout = Literal[
    "launchx", "hf", "deepspeed", "megatron", "dcp", "lightning-last", "lightning", "generic"
]

# Higher index wins a tie on step. Lightning's last.ckpt beats the step-named files it was
# written after; a layout with a completion proof beats the generic guess.
LAYOUT_PRIORITY: tuple[Layout, ...] = (
    "generic",
    "lightning",
    "lightning-last",
    "dcp",
    "megatron",
    "deepspeed",
    "hf",
    "launchx",
)

LAUNCHX_PREFIX = "step_"
LAUNCHX_SUFFIX = ".pt"
DEEPSPEED_TRACKER = "latest"
MEGATRON_TRACKER = "latest_checkpointed_iteration.txt"
HF_MARKER = "trainer_state.json"
DCP_MARKERS = (".metadata", "__0.metadata")

# A step needs at most 18 digits; longer runs of digits are not steps (and int() refuses
# strings past 4300 digits, which a hostile name could contain).
_MAX_STEP_DIGITS = 18
_TRAILING_STEP = re.compile(r"(?<![0-9])([0-9]{1,18})\Z")
_LAUNCHX_NAME = re.compile(r"step_([0-9]{8,18})\.pt")
_HF_NAME = re.compile(r"checkpoint-([0-9]{1,18})")
_DEEPSPEED_NAME = re.compile(r"global_step([0-9]{1,18})")
_MEGATRON_NAME = re.compile(r"iter_([0-9]{1,18})")
_LIGHTNING_STEP = re.compile(r"(?:^|[-_])step=([0-9]{1,18})(?=[-_.]|\Z)")
_LIGHTNING_LAST = re.compile(r"last(?:-v[0-9]{1,9})?\.ckpt")

_CHECKPOINT_EXTENSIONS = frozenset(
    [
        ".pt",
        ".pth",
        ".ckpt",
        ".bin",
        ".safetensors",
        ".pkl",
        ".pickle",
        ".tar",
        ".gz",
        ".zip",
        ".npz",
        ".h5",
        ".msgpack",
        ".model",
    ]
)
_TEMP_SUFFIXES = (".tmp", ".temp", ".partial", ".incomplete", ".part", ".lock", ".swp", "~")
_TEMP_INFIXES = (".tmp.", ".temp.", ".partial.", ".incomplete.")
_TEMP_PREFIXES = ("tmp-", "tmp_", "tmp.")


@dataclass(frozen=True)
class Checkpoint:
    """One complete checkpoint: its absolute path, its step, and who wrote it."""

    path: str
    step: int
    layout: Layout


def launchx_name(step: int) -> str:
    """The final file name ``runtime.save_checkpoint`` gives the checkpoint of ``step``.

    Zero-padded so a plain ``ls`` sorts by step; the exact form is how pruning tells
    launchx's own files from a user's ``step_300.pt``, which it must never delete.
    """
    if step < 0:
        raise ValueError(f"checkpoint step must be >= 0, got {step}")
    return f"{LAUNCHX_PREFIX}{step:08d}{LAUNCHX_SUFFIX}"


def launchx_temp_name(step: int, token: str) -> str:
    """The temporary name a launchx save writes before its rename.

    Dot-prefixed *and* containing ``.tmp.`` so that every rule here, and most other tools'
    globs, skip it while it is incomplete.
    """
    return f".{launchx_name(step)}.tmp.{token}"


def is_temporary_name(name: str) -> bool:
    """True for names never taken as a checkpoint: hidden, or a writer's in-progress name."""
    return name.startswith(".") or is_partial_name(name)


def is_partial_name(name: str) -> bool:
    """True for names writers use while a file is incomplete (``x.tmp``, ``x.pt.tmp.123``).

    Inside a checkpoint directory such a name means a writer is (or died) mid-save, while a
    plain dot-file (``.metadata``, ``.gitkeep``) means nothing.
    """
    lower = name.lower()
    return (
        lower.endswith(_TEMP_SUFFIXES)
        or any(infix in lower for infix in _TEMP_INFIXES)
        or lower.startswith(_TEMP_PREFIXES)
    )


def list_complete(directory: str | os.PathLike[str]) -> list[Checkpoint]:
    """Every complete checkpoint directly inside ``directory``, oldest first.

    Never raises for a missing, unreadable or strange directory: it returns ``[]``,
    because "nothing to resume from" is the safe answer for the caller.
    """
    root = Path(directory)
    try:
        names = sorted(_list_names(root))
    except OSError:
        return []
    found = _classify_all(root, names)
    return sorted(found, key=_rank)


def latest_complete(directory: str | os.PathLike[str]) -> Checkpoint | None:
    """The complete checkpoint with the highest step, or None when there is none."""
    found = list_complete(directory)
    return found[-1] if found else None


def _rank(ckpt: Checkpoint) -> tuple[int, int, str]:
    return (ckpt.step, LAYOUT_PRIORITY.index(ckpt.layout), os.path.basename(ckpt.path))


def _list_names(root: Path) -> Iterator[str]:
    with os.scandir(root) as entries:
        for entry in entries:
            yield entry.name


def _classify_all(root: Path, names: list[str]) -> list[Checkpoint]:
    ds_step = _deepspeed_tracker(root, names)
    mg_step = _megatron_tracker(root, names)
    found: list[Checkpoint] = []
    lightning_steps: list[int] = []
    lightning_last: list[str] = []
    for name in names:
        if is_temporary_name(name):
            continue
        path = root / name
        kind = _kind(path)
        if kind == "file":
            if _LIGHTNING_LAST.fullmatch(name):
                lightning_last.append(name)
                continue
            ckpt = _classify_file(path, name)
        elif kind == "dir":
            ckpt = _classify_dir(path, name, ds_step, mg_step)
        else:
            ckpt = None
        if ckpt is not None:
            found.append(ckpt)
            if ckpt.layout == "lightning":
                lightning_steps.append(ckpt.step)
    newest_named = max(lightning_steps, default=0)
    found.extend(
        Checkpoint(_abs(root / name), newest_named, "lightning-last") for name in lightning_last
    )
    return found


def _kind(path: Path) -> Literal["file", "dir", "other"]:
    """'file' only for a non-empty regular file (links followed); 'other' for the rest."""
    try:
        st = path.stat()
    except (OSError, ValueError):
        return "other"
    if os.path.isdir(path):
        return "dir"
    if os.path.isfile(path) and st.st_size > 0:
        return "file"
    return "other"


def _abs(path: Path) -> str:
    return os.path.abspath(path)


def _step_of(match: re.Match[str] | None) -> int | None:
    return int(match.group(1)) if match else None


def _classify_file(path: Path, name: str) -> Checkpoint | None:
    step = _step_of(_LAUNCHX_NAME.fullmatch(name))
    if step is not None and name == launchx_name(step):
        return Checkpoint(_abs(path), step, "launchx")
    if name.lower().endswith(".ckpt"):
        step = _step_of(_LIGHTNING_STEP.search(name[: -len(".ckpt")]))
        if step is not None:
            return Checkpoint(_abs(path), step, "lightning")
    stem = _strip_checkpoint_extensions(name)
    if stem is None:
        return None
    step = _step_of(_TRAILING_STEP.search(stem))
    if step is None:
        return None
    return Checkpoint(_abs(path), step, "generic")


def _strip_checkpoint_extensions(name: str) -> str | None:
    """The name without its checkpoint extensions; None when it is not a checkpoint file.

    ``ckpt_300.tar.gz`` -> ``ckpt_300``; ``ckpt_300`` -> itself; ``log_2024.txt`` -> None
    (an unknown extension means some other kind of file that merely ends in digits).
    """
    stem = name
    stripped = False
    while True:
        base, ext = os.path.splitext(stem)
        if not ext or (ext[1:].isascii() and ext[1:].isdigit()):
            break  # no extension left, or ``model.300``: the number is the step
        if ext.lower() not in _CHECKPOINT_EXTENSIONS:
            return None
        stem, stripped = base, True
    if not stripped and "." in name:
        return None
    return stem


def _classify_dir(
    path: Path, name: str, ds_step: int | None, mg_step: int | None
) -> Checkpoint | None:
    hf = _step_of(_HF_NAME.fullmatch(name))
    if hf is not None:
        return Checkpoint(_abs(path), hf, "hf") if _nonempty_file(path / HF_MARKER) else None
    ds = _step_of(_DEEPSPEED_NAME.fullmatch(name))
    if ds is not None:
        if ds_step is not None and ds <= ds_step and _has_content(path):
            return Checkpoint(_abs(path), ds, "deepspeed")
        return None
    mg = _step_of(_MEGATRON_NAME.fullmatch(name))
    if mg is not None:
        if mg_step is not None and mg <= mg_step and _has_content(path):
            return Checkpoint(_abs(path), mg, "megatron")
        return None
    step = _step_of(_TRAILING_STEP.search(name))
    if step is None:
        return None
    if ds_step is not None and name == _deepspeed_tag(path.parent) and _has_content(path):
        return Checkpoint(_abs(path), ds_step, "deepspeed")
    return _classify_generic_dir(path, step)


def _classify_generic_dir(path: Path, step: int) -> Checkpoint | None:
    try:
        inner = sorted(_list_names(path))
    except OSError:
        return None
    if any(is_partial_name(n) for n in inner):
        return None
    if any(n.endswith(".distcp") for n in inner):
        done = any(_nonempty_file(path / marker) for marker in DCP_MARKERS)
        return Checkpoint(_abs(path), step, "dcp") if done else None
    return Checkpoint(_abs(path), step, "generic") if _has_content(path) else None


def _nonempty_file(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size > 0
    except (OSError, ValueError):
        return False


def _has_content(path: Path) -> bool:
    """A non-empty file at the top level or one level down (sharded layouts nest once).

    Dot-files (``.gitkeep``, ``.DS_Store``) are not content.
    """
    try:
        children = [n for n in _list_names(path) if not n.startswith(".")]
        for name in children:
            child_path = path / name
            if _nonempty_file(child_path):
                return True
            if child_path.is_dir() and any(
                _nonempty_file(child_path / n)
                for n in _list_names(child_path)
                if not n.startswith(".")
            ):
                return True
    except OSError:
        return False
    return False


def _read_tracker(path: Path) -> str | None:
    """First line of a small tracker file; None when absent, unreadable or binary."""
    try:
        if not path.is_file():
            return None
        with open(path, "rb") as handle:
            raw = handle.read(256)
        return raw.decode("utf-8").strip().splitlines()[0].strip() or None
    except (OSError, UnicodeDecodeError, IndexError, ValueError):
        return None


def _deepspeed_tag(root: Path) -> str | None:
    tag = _read_tracker(root / DEEPSPEED_TRACKER)
    if tag is None or is_temporary_name(tag) or "/" in tag or "\x00" in tag:
        return None
    return tag


def _deepspeed_tracker(root: Path, names: list[str]) -> int | None:
    """Step of the tag DeepSpeed's ``latest`` names (its trailing digits)."""
    if DEEPSPEED_TRACKER not in names:
        return None
    tag = _deepspeed_tag(root)
    if tag is None:
        return None
    return _step_of(_TRAILING_STEP.search(tag))


def _megatron_tracker(root: Path, names: list[str]) -> int | None:
    if MEGATRON_TRACKER not in names:
        return None
    text = _read_tracker(root / MEGATRON_TRACKER)
    if text is None or not text.isascii() or not text.isdigit():
        return None
    if len(text) > _MAX_STEP_DIGITS:
        return None
    return int(text)
