"""Atomic checkpoint save and load, in the layout ``launchx.checkpoints`` recognises.

The guarantee launchx's retry loop depends on: whatever instant the writer dies at
(SIGKILL, OOM killer, node loss), ``latest_complete`` never returns a partial file. The
bytes go to a dot-named ``….tmp.<token>`` file in the *same* directory (same filesystem,
so the rename is atomic), are flushed and fsynced, and only then renamed to the final
name; the directory is fsynced so the rename itself survives a power cut.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from collections.abc import Mapping
from pathlib import Path

from launchx.checkpoints import (
    LAUNCHX_PREFIX,
    LAUNCHX_SUFFIX,
    launchx_name,
    launchx_temp_name,
    list_complete,
)
from launchx.runtime.dist import barrier, is_main_process

_LAUNCHX_TEMP = re.compile(
    re.escape("." + LAUNCHX_PREFIX) + r"([0-9]{8,18})" + re.escape(LAUNCHX_SUFFIX) + r"\.tmp\..+"
)


def checkpoint_path(directory: str | os.PathLike[str], step: int) -> Path:
    """Where ``save_checkpoint(…, step)`` puts its file."""
    return Path(directory) / launchx_name(step)


def temp_path(directory: str | os.PathLike[str], step: int) -> Path:
    """A fresh temporary name for a save of ``step`` (unique per call, even across hosts)."""
    token = f"{os.getpid()}.{secrets.token_hex(4)}"
    return Path(directory) / launchx_temp_name(step, token)


def save_checkpoint(
    state: Mapping[str, object],
    directory: str | os.PathLike[str],
    step: int,
    keep: int = 3,
) -> str | None:
    """Save ``state`` as the checkpoint of ``step``; call it on *every* rank.

    Rank 0 writes (atomically, see the module docstring) and prunes the launchx
    checkpoints beyond the newest ``keep`` (``keep <= 0`` keeps all; files in other
    layouts are never touched); then all ranks meet at a barrier so nobody races ahead
    of a checkpoint that may still be needed. Returns the path on rank 0, None elsewhere.
    """
    if step < 0:
        raise ValueError(f"checkpoint step must be >= 0, got {step}")
    saved: str | None = None
    if is_main_process():
        root = Path(directory)
        root.mkdir(parents=True, exist_ok=True)
        saved = str(_atomic_save(state, root, step))
        prune(root, keep, upto_step=step)
    barrier()
    return saved


def _atomic_save(state: Mapping[str, object], root: Path, step: int) -> Path:
    import torch

    final = checkpoint_path(root, step)
    tmp = temp_path(root, step)
    try:
        with open(tmp, "wb") as handle:
            torch.save(dict(state), handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, final)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(root)
    return final.absolute()


def fsync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable (best effort where directories can't be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def prune(directory: str | os.PathLike[str], keep: int, upto_step: int | None = None) -> None:
    """Delete launchx checkpoints beyond the newest ``keep``, and leftover temp files.

    Temp files of steps up to ``upto_step`` are leftovers of saves that died (a SIGKILL
    leaves them behind); without this they would pile up at full checkpoint size.
    """
    root = Path(directory)
    if keep > 0:
        own = [c for c in list_complete(root) if c.layout == "launchx"]
        for old in own[:-keep]:
            with contextlib.suppress(OSError):
                os.unlink(old.path)
    if upto_step is None:
        return
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        match = _LAUNCHX_TEMP.fullmatch(name)
        if match and int(match.group(1)) <= upto_step:
            with contextlib.suppress(OSError):
                os.unlink(root / name)


def load_checkpoint(
    path: str | os.PathLike[str], map_location: str = "cpu", *, weights_only: bool = True
) -> dict[str, object]:
    """Load a checkpoint written by ``save_checkpoint`` (or any ``torch.save`` of a dict).

    ``weights_only=True`` by default: a checkpoint directory is often shared, and
    unpickling arbitrary objects from it would run arbitrary code. Tensors, dicts, lists,
    numbers and strings (model and optimizer state) load fine.
    """
    import torch

    loaded = torch.load(path, map_location=map_location, weights_only=weights_only)
    if not isinstance(loaded, dict):
        raise TypeError(f"{path}: expected a dict checkpoint, found {type(loaded).__name__}")
    return loaded
