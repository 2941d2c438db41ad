"""Build the node variants of ``variants.json``: a recorded tree with a few files changed.

They are built, not stored, because ``test_detect`` expects every directory here to be a
tree with its own expectations, and because a variant's difference (one line of JSON) is
easier to review than a second copy of a whole tree.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = json.loads((HERE / "variants.json").read_text())
NAMES = tuple(name for name in MANIFEST if not name.startswith("_"))


def materialize(name: str, dest: Path) -> Path:
    """The tree of variant ``name`` under ``dest`` (built once per ``dest``)."""
    root = dest / name
    if root.exists():
        return root
    spec = MANIFEST[name]
    base = spec["base"]
    source = materialize(base, dest) if base in MANIFEST else HERE / base
    shutil.copytree(source, root, symlinks=True)
    for rel in spec.get("remove", []):
        target = root / rel
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        else:
            target.unlink()
    for rel, text in spec.get("write", {}).items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return root
