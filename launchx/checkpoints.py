"""Find the newest *complete* checkpoint in a directory, whoever wrote it.

Before each attempt launchx asks this module what to put in ``LAUNCHX_RESUME_FROM``.
Resuming from a half-written checkpoint is worse than starting over (a crash on load at
best, silently corrupt weights at worst), so every rule here errs towards "not complete".
Completeness is decided from names and from evidence the writer leaves *last* (an atomic
rename, a marker file, a tracker file): never from modification times, because a clock
rule gives different answers on different machines and cannot tell a slow writer from a
dead one.

Only the entries directly inside the given directory are candidates, and those in the
places frameworks save below it: ``checkpoints/`` (accelerate's automatic naming, Lightning
without a logger) and Lightning's logger directories, ``version_<N>/checkpoints/`` and
``lightning_logs/version_<N>/checkpoints/`` (ModelCheckpoint's default: the logger's
``version_<N>`` itself is never a checkpoint). Layouts, by ``Checkpoint.layout``:

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
``lightning-metric``
    ``*.ckpt`` named by Lightning's filename template from metrics, without ``step=``
    (``epoch=0-val_loss=0.24.ckpt``): the digits after ``val_loss=`` are no step, and a
    ModelCheckpoint that monitors a metric keeps the best files, not the newest. Its step
    is unknown: it ranks at step 0 (a lower bound), the newest written first among them.
``lightning-last``
    ``last.ckpt`` / ``last-v<K>.ckpt``. Its step is not in its name. Lightning rewrites it on
    every save trigger, after the step-named files, so it is never older than them: it
    gets the highest step among the Lightning files beside it (0 when there are none) and
    wins ties against them. Its ``step`` is therefore a lower bound.
``dcp``
    A step-named directory holding ``torch.distributed.checkpoint`` shards (``*.distcp``);
    complete only once ``.metadata`` (or ``__0.metadata``) exists, which DCP renames into
    place last.
``accelerate``
    A step-named directory written by ``Accelerator.save_state`` (its automatic naming is
    ``checkpoint_<i>``, where ``i`` counts saves, not steps, in the project directory's
    ``checkpoints/``, where they are found too): recognised by its RNG files
    ``random_states_<rank>.pkl``, which ``save_state`` writes after the weights, optimizer,
    scheduler and sampler, so it is complete once rank 0's ``random_states_0.pkl`` is whole
    (objects registered with ``register_for_checkpointing`` come after it: see below).
``nanogpt``
    nanoGPT's ``ckpt.pt``: one file, rewritten in place by a plain ``torch.save`` whenever
    the script evaluates. Its step is inside it, not in its name, so it ranks at step 0
    (a lower bound, like ``last.ckpt`` without step-named files).
``generic``
    Any other file with a checkpoint extension (``.pt``, ``.pth``, ``.ckpt``, ``.bin``,
    ``.safetensors``, ``.pkl``, …) or with no extension, or any directory, whose name ends
    in a step number (``step-300.pt``, ``ckpt_300.pt``, ``checkpoint_300/``). A directory
    must hold at least one non-empty file (dot-files do not count) and no entry with a
    temporary name.

A step directory (generic or accelerate) holding a half-written ``torch.save`` file is not
complete; nor is one holding a strict subset of the files an older one beside it holds
(their numbers blanked): one writer saves the same files each time, so a newer directory
missing some was cut short (a save killed before its optimizer, before accelerate's
registered objects).

A file that starts as a zip archive (what ``torch.save`` writes) but has no zip end record
is half-written and never chosen, whatever its layout (nanoGPT and many scripts save in
place, so a kill mid-save leaves exactly that).

Never chosen: dot-files, temporary names (``*.tmp``, ``*.partial``, ``*.incomplete``,
``*.part``, names containing ``.tmp.``, ``tmp-…``), empty files, empty directories,
broken links, anything that cannot be read. Highest step wins; ties are broken by layout
(the order of ``LAYOUT_PRIORITY``) and then by name, so the answer is deterministic.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Layout = Literal[
    "launchx",
    "hf",
    "deepspeed",
    "megatron",
    "dcp",
    "accelerate",
    "lightning-last",
    "lightning",
    "lightning-metric",
    "nanogpt",
    "generic",
]

# Higher index wins a tie on step. Lightning's last.ckpt beats the step-named files it was
# written after; a layout with a completion proof beats the generic guess.
LAYOUT_PRIORITY: tuple[Layout, ...] = (
    "generic",
    "nanogpt",
    "lightning-metric",
    "lightning",
    "lightning-last",
    "accelerate",
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
ACCELERATE_RNG = re.compile(r"random_states_[0-9]{1,9}\.pkl")
ACCELERATE_MARKER = "random_states_0.pkl"
NANOGPT_NAME = "ckpt.pt"
_ACCELERATE_SUBDIR = "checkpoints"
# Lightning's logger directories (TensorBoardLogger's and CSVLogger's): a run's
# ``lightning_logs/version_<N>/``, with its ``checkpoints/``, hparams and metrics, is no
# checkpoint itself, whatever its trailing number says
_LIGHTNING_LOGS = "lightning_logs"
_LIGHTNING_VERSION = re.compile(r"version_[0-9]{1,9}")
_LIGHTNING_VERSION_FILES = ("checkpoints", "hparams.yaml", "metrics.csv", "config.yaml")

# A step needs at most 18 digits; longer runs of digits are not steps (and int() refuses
# strings past 4300 digits, which a hostile name could contain).
_MAX_STEP_DIGITS = 18
_DIGITS = re.compile(r"[0-9]+")
_TRAILING_STEP = re.compile(r"(?<![0-9])([0-9]{1,18})\Z")
_LAUNCHX_NAME = re.compile(r"step_([0-9]{8,18})\.pt")
_HF_NAME = re.compile(r"checkpoint-([0-9]{1,18})")
_DEEPSPEED_NAME = re.compile(r"global_step([0-9]{1,18})")
_MEGATRON_NAME = re.compile(r"iter_([0-9]{1,18})")
_LIGHTNING_STEP = re.compile(r"(?:^|[-_])step=([0-9]{1,18})(?=[-_.]|\Z)")
_LIGHTNING_LAST = re.compile(r"last(?:-v[0-9]{1,9})?\.ckpt")
# a name Lightning's filename template wrote from metrics: "epoch=0-val_loss=0.24"
_LIGHTNING_KEYED = re.compile(r"(?:^|[-_])[A-Za-z_][\w./]*=")
# Layouts whose step is not in their name (a lower bound): their being written again says
# nothing about which step the attempt trained through.
STEPLESS: frozenset[Layout] = frozenset({"nanogpt", "lightning-metric", "lightning-last"})

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
    """Every complete checkpoint directly inside ``directory``, oldest first; and those of
    accelerate in its ``checkpoints/`` (``ProjectConfiguration(automatic_checkpoint_naming=
    True)`` saves to ``<project_dir>/checkpoints/checkpoint_<i>``, and the project
    directory is what a user passes).

    Never raises for a missing, unreadable or strange directory: it returns ``[]``,
    because "nothing to resume from" is the safe answer for the caller.
    """
    root = Path(directory)
    try:
        names = sorted(_list_names(root))
    except OSError:
        return []
    found = _classify_all(root, names)
    for sub, layouts in _framework_dirs(root, names):
        with contextlib.suppress(OSError):
            inner = _classify_all(sub, sorted(_list_names(sub)))
            found.extend(c for c in inner if c.layout in layouts)
    return sorted(found, key=_rank)


_LIGHTNING_LAYOUTS: frozenset[Layout] = frozenset(
    {"lightning", "lightning-last", "lightning-metric"}
)


def _framework_dirs(root: Path, names: list[str]) -> Iterator[tuple[Path, frozenset[Layout]]]:
    """The directories below ``root`` where frameworks put checkpoints of their own, and
    which layouts count there: ``checkpoints/`` (accelerate's automatic naming; Lightning's
    ModelCheckpoint without a logger), and Lightning's logger directories, whose
    ``version_<N>/checkpoints/`` is where ModelCheckpoint saves by default (a user passes
    ``lightning_logs`` or the directory above it)."""
    if _ACCELERATE_SUBDIR in names and _kind(root / _ACCELERATE_SUBDIR) == "dir":
        accelerate: frozenset[Layout] = frozenset({"accelerate"})
        yield root / _ACCELERATE_SUBDIR, accelerate | _LIGHTNING_LAYOUTS
    logger_roots = [root]
    if _LIGHTNING_LOGS in names and _kind(root / _LIGHTNING_LOGS) == "dir":
        logger_roots.append(root / _LIGHTNING_LOGS)
    for logs in logger_roots:
        try:
            versions = sorted(_list_names(logs)) if logs != root else names
        except OSError:
            continue
        versions.sort(key=lambda n: (len(n), n))  # version_2 before version_10
        for name in versions:
            sub = logs / name / _ACCELERATE_SUBDIR
            if _LIGHTNING_VERSION.fullmatch(name) and _kind(sub) == "dir":
                yield sub, _LIGHTNING_LAYOUTS


def written_at(ckpt: Checkpoint) -> float:
    """When a checkpoint was last written: the newest modification time of its path and,
    for a directory, of the entries directly in it (a framework that saves into an
    existing ``checkpoint-5/`` rewrites its files without changing the directory). 0.0
    when it cannot be read."""
    path = Path(ckpt.path)
    newest = 0.0
    with contextlib.suppress(OSError):
        newest = path.stat().st_mtime
        if path.is_dir():
            for entry in os.scandir(path):
                with contextlib.suppress(OSError):
                    newest = max(newest, entry.stat(follow_symlinks=False).st_mtime)
    return newest


def passed_over(ckpt: Checkpoint) -> tuple[str, ...]:
    """The names beside ``ckpt`` that name a later step but are no complete checkpoint:
    saves the failure cut short, which the retry does not resume from (said, so that a
    user who finds them knows why; a framework that saves by number may refuse to write
    over one). A writer's in-progress name (a dot-file, ``x.tmp``) is not listed; nor is
    anything beside a checkpoint whose step is not in its name."""
    if ckpt.layout in STEPLESS:
        return ()
    parent = Path(ckpt.path).parent
    try:
        names = sorted(_list_names(parent))
    except OSError:
        return ()
    complete = {os.path.basename(c.path) for c in _classify_all(parent, names)}
    later = []
    for name in names:
        if is_temporary_name(name) or name in complete:
            continue
        step = _named_step(parent / name, name)
        if step is not None and step > ckpt.step:
            later.append(name)
    return tuple(later)


def _named_step(path: Path, name: str) -> int | None:
    """The step a checkpoint's name would give, complete or not (None: no such name)."""
    kind = _kind(path)
    if kind == "dir":
        if _LIGHTNING_VERSION.fullmatch(name) and _lightning_logger_dir(path):
            return None
        for named in (_HF_NAME, _DEEPSPEED_NAME, _MEGATRON_NAME):
            if m := named.fullmatch(name):
                return int(m.group(1))
        return _step_of(_TRAILING_STEP.search(name))
    if kind != "file":
        return None
    if name.lower().endswith(".ckpt") and (m := _LIGHTNING_STEP.search(name[: -len(".ckpt")])):
        return int(m.group(1))
    stem = _strip_checkpoint_extensions(name)
    return _step_of(_TRAILING_STEP.search(stem)) if stem is not None else None


def latest_complete(directory: str | os.PathLike[str]) -> Checkpoint | None:
    """The complete checkpoint with the highest step, or None when there is none."""
    found = list_complete(directory)
    return found[-1] if found else None


def _rank(ckpt: Checkpoint) -> tuple[int, int, float, str]:
    # metric-named files have no step, last.ckpt a lower bound (each logger version has its
    # own): among equals, the one written last is the newest
    written = _mtime(ckpt.path) if ckpt.layout in ("lightning-metric", "lightning-last") else 0.0
    return (ckpt.step, LAYOUT_PRIORITY.index(ckpt.layout), written, os.path.basename(ckpt.path))


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


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
                if zip_whole(path):
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
    return _without_the_short(found)


def _without_the_short(found: list[Checkpoint]) -> list[Checkpoint]:
    """Drop the newest step directories that a save was cut short in.

    Directories are judged in families (their names with the numbers blanked: ``step_#``,
    ``checkpoint_#``), newest first, until one passes; older ones are left as they are
    (a later save went through after them). A directory fails when a file in it is a
    half-written ``torch.save`` zip, or when it lacks a file that every older one of its
    family holds: a writer saves the same files each time (``save_state``'s model,
    optimizer, scheduler, RNG states, then its registered objects), so a newest save
    without one was cut short, killed before its optimizer or before accelerate's custom
    objects (which come after the RNG file accelerate's layout is otherwise judged by). It
    must hold nothing they lack (a save in a new format is not a cut-short one), and a file
    only some older saves hold (an optimizer saved every other time, notes added to one)
    proves nothing. Entry names are compared with their numbers blanked too, so files
    per rank do not make a run that resumed on fewer ranks look cut short. Layouts with
    their own completion proof are not judged here."""
    families: dict[str, list[tuple[Checkpoint, frozenset[str]]]] = {}
    for c in found:
        if c.layout in ("generic", "accelerate") and (names := _entry_names(c.path)):
            key = _DIGITS.sub("#", os.path.basename(c.path))
            families.setdefault(key, []).append((c, names))
    cut: set[str] = set()
    for family in families.values():
        family.sort(key=lambda item: item[0].step, reverse=True)
        for i, (c, names) in enumerate(family):
            older = [n for _c, n in family[i + 1 :]]
            always = frozenset.intersection(*older) if older else frozenset()
            if names < always or not _files_whole(c.path):
                cut.add(c.path)
                continue
            break
    return [c for c in found if c.path not in cut]


def _files_whole(path: str) -> bool:
    """No file directly in the directory is a ``torch.save`` zip cut short."""
    root = Path(path)
    try:
        names = [n for n in _list_names(root) if not n.startswith(".")]
    except OSError:
        return False
    return all(zip_whole(root / n) for n in names if _nonempty_file(root / n))


def _entry_names(path: str) -> frozenset[str] | None:
    """The names in a directory (dot-files aside), numbers blanked; None for a file or an
    unreadable one."""
    if not os.path.isdir(path):
        return None
    try:
        names = [n for n in _list_names(Path(path)) if not n.startswith(".")]
    except OSError:
        return None
    return frozenset(_DIGITS.sub("#", n) for n in names)


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
        return Checkpoint(_abs(path), step, "launchx")  # renamed into place: always whole
    found = _classify_other_file(path, name)
    if found is None or not zip_whole(path):
        return None
    return found


def _classify_other_file(path: Path, name: str) -> Checkpoint | None:
    if name == NANOGPT_NAME:
        return Checkpoint(_abs(path), 0, "nanogpt")
    if name.lower().endswith(".ckpt"):
        step = _step_of(_LIGHTNING_STEP.search(name[: -len(".ckpt")]))
        if step is not None:
            return Checkpoint(_abs(path), step, "lightning")
        if _LIGHTNING_KEYED.search(name[: -len(".ckpt")]):
            return Checkpoint(_abs(path), 0, "lightning-metric")
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
    if _LIGHTNING_VERSION.fullmatch(name) and _lightning_logger_dir(path):
        return None
    return _classify_generic_dir(path, step)


def _lightning_logger_dir(path: Path) -> bool:
    """A logger's ``version_<N>``: by its place (in ``lightning_logs``), or by what a logger
    writes there first (LightningCLI's config.yaml comes before hparams.yaml)."""
    if path.parent.name == _LIGHTNING_LOGS:
        return True
    try:
        inner = list(_list_names(path))
    except OSError:
        return False
    return any(n in _LIGHTNING_VERSION_FILES or n.startswith("events.out.tfevents") for n in inner)


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
    # (a torch.save cut short in it is looked for once the newest of its family is known:
    # _without_the_short)
    if any(ACCELERATE_RNG.fullmatch(n) for n in inner):
        marker = path / ACCELERATE_MARKER
        done = _nonempty_file(marker) and zip_whole(marker)
        return Checkpoint(_abs(path), step, "accelerate") if done else None
    return Checkpoint(_abs(path), step, "generic") if _has_content(path) else None


_ZIP_LOCAL = b"PK\x03\x04"
_ZIP_END = b"PK\x05\x06"
_ZIP_END_SIZE = 22
_ZIP_MAX_COMMENT = 0xFFFF


def zip_whole(path: str | os.PathLike[str]) -> bool:
    """False only for a file that starts as a zip archive and lacks its end record.

    ``torch.save`` writes a zip whose end record comes last, so a save killed midway leaves
    a file that starts with a local header and never ends. Files that are not zips (a
    legacy pickle, safetensors, anything else) give no such evidence: True. Unreadable
    files: False.
    """
    try:
        with open(path, "rb") as handle:
            if handle.read(4) != _ZIP_LOCAL:
                return True
            size = handle.seek(0, os.SEEK_END)
            span = min(size, _ZIP_END_SIZE + _ZIP_MAX_COMMENT)
            handle.seek(size - span)
            tail = handle.read(span)
    except OSError:
        return False
    at = tail.rfind(_ZIP_END)
    while at >= 0:
        # The record is 22 bytes plus its comment, whose length sits in the last two of
        # them: it must end exactly at the end of the file.
        if at + _ZIP_END_SIZE <= len(tail):
            comment = int.from_bytes(tail[at + 20 : at + 22], "little")
            if at + _ZIP_END_SIZE + comment == len(tail):
                return True
        at = tail.rfind(_ZIP_END, 0, at)
    return False


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


# --------------------------------------------------------------------------- resuming

Framework = Literal[
    "Hugging Face Trainer",
    "DeepSpeed",
    "Megatron-LM",
    "torch.distributed.checkpoint",
    "accelerate",
    "Lightning",
    "nanoGPT",
]


@dataclass(frozen=True)
class ResumeHint:
    """How a framework's script resumes from the checkpoint launchx offers it.

    launchx only *offers* a checkpoint (``LAUNCHX_RESUME_FROM``, and ``--resume-arg`` when
    given); a script that reads neither starts from step 0. This is the one line a user
    adds, or the ``--resume-arg`` that needs no code change where the framework has one.
    """

    layout: Layout
    framework: Framework
    resume_arg: str | None  # a ``--resume-arg`` template (``{path}``: the checkpoint)
    resume_arg_when: str  # what the script must do for resume_arg to work ("" if none)
    code: str | None  # the line to put in the script, reading LAUNCHX_RESUME_FROM

    def text(self) -> str:
        """One line: the zero-code way first, then the line of code."""
        ways: list[str] = []
        if self.resume_arg:
            when = f" ({self.resume_arg_when})" if self.resume_arg_when else ""
            ways.append(f"--resume-arg {shlex.quote(self.resume_arg)}{when}")
        if self.code:
            ways.append(self.code)
        article = "an" if self.framework[:1].lower() in "aeiou" else "a"
        return f"{article} {self.framework} checkpoint resumes with " + ", or ".join(ways)


_RESUME_FROM = 'os.environ.get("LAUNCHX_RESUME_FROM")'

_HINTS: dict[Layout, ResumeHint] = {
    "hf": ResumeHint(
        "hf",
        "Hugging Face Trainer",
        "--resume_from_checkpoint {path}",
        "when the script passes TrainingArguments.resume_from_checkpoint to trainer.train, "
        "as the HF examples do",
        f"trainer.train(resume_from_checkpoint={_RESUME_FROM})",
    ),
    "lightning": ResumeHint(
        "lightning",
        "Lightning",
        "--ckpt_path {path}",
        "with LightningCLI: fit --ckpt_path",
        f"trainer.fit(model, ckpt_path={_RESUME_FROM})",
    ),
    "lightning-metric": ResumeHint(
        "lightning-metric",
        "Lightning",
        "--ckpt_path {path}",
        "with LightningCLI: fit --ckpt_path",
        f"trainer.fit(model, ckpt_path={_RESUME_FROM})",
    ),
    "lightning-last": ResumeHint(
        "lightning-last",
        "Lightning",
        "--ckpt_path {path}",
        "with LightningCLI: fit --ckpt_path",
        f"trainer.fit(model, ckpt_path={_RESUME_FROM})",
    ),
    "deepspeed": ResumeHint(
        "deepspeed",
        "DeepSpeed",
        None,
        "",
        'engine.load_checkpoint(*os.path.split(os.environ["LAUNCHX_RESUME_FROM"])) '
        "(the checkpoint directory and its tag)",
    ),
    "accelerate": ResumeHint(
        "accelerate",
        "accelerate",
        None,
        "",
        f"accelerator.load_state({_RESUME_FROM}) when it is set; with automatic naming, "
        "then set accelerator.project_configuration.iteration one past the highest "
        "checkpoint_<i> in checkpoints/ (a save the crash cut short keeps its number, and "
        "save_state will not write over it)",
    ),
    "megatron": ResumeHint(
        "megatron",
        "Megatron-LM",
        None,
        "",
        "pass --load with the checkpoint directory to the script: Megatron-LM resumes "
        "from its latest_checkpointed_iteration.txt itself",
    ),
    "dcp": ResumeHint(
        "dcp",
        "torch.distributed.checkpoint",
        None,
        "",
        f"dcp.load(state_dict, checkpoint_id={_RESUME_FROM}) when it is set",
    ),
    "nanogpt": ResumeHint(
        "nanogpt",
        "nanoGPT",
        "--init_from=resume",
        "nanoGPT loads out_dir/ckpt.pt itself",
        None,
    ),
}


def resume_hint(ckpt: Checkpoint) -> ResumeHint | None:
    """The way ``ckpt``'s framework resumes; None where launchx cannot say (its own
    layout needs nothing: ``launchx.runtime.resume_path()`` reads it; a generic file could
    be anyone's)."""
    return _HINTS.get(ckpt.layout)
