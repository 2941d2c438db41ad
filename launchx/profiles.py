"""Finding, reading and merging profiles (``extends`` chains), keeping each value's origin.

A profile is found by name among the built-ins, then ``./profiles/``, then each directory of
``$LAUNCHX_PROFILE_PATH``, then the user's config directory; or given as a path. Files are
validated one by one (so an error names the file that has it) and then merged base-first.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from launchx.errors import ConfigError, ProfileNotFound
from launchx.origin import Origin
from launchx.profile_model import Profile

DEFAULT_PROFILE = "local"
# libyaml's safe loader when PyYAML was built with it (10x faster), else the pure one.
_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SUFFIXES = (".yaml", ".yml")


def builtin_dir() -> Path:
    """Built-ins ship inside the wheel as ``launchx/_profiles``; a source checkout has them at
    the top level (``profiles/``), where they are reviewed like code."""
    here = Path(__file__).resolve().parent
    shipped = here / "_profiles"
    return shipped if shipped.is_dir() else here.parent / "profiles"


def search_dirs(environ: Mapping[str, str], cwd: Path) -> list[tuple[str, Path]]:
    """Where profiles are looked up by name, in order, each with a label for messages."""
    dirs: list[tuple[str, Path]] = [("built-in", builtin_dir()), ("./profiles", cwd / "profiles")]
    for entry in environ.get("LAUNCHX_PROFILE_PATH", "").split(":"):
        if entry:
            dirs.append((f"$LAUNCHX_PROFILE_PATH {entry}", Path(entry).expanduser()))
    if environ.get("LAUNCHX_CONFIG_DIR"):
        config = Path(environ["LAUNCHX_CONFIG_DIR"]).expanduser()
    elif environ.get("XDG_CONFIG_HOME"):
        config = Path(environ["XDG_CONFIG_HOME"]) / "launchx"
    else:
        config = Path(environ.get("HOME", "~")).expanduser() / ".config" / "launchx"
    dirs.append(("user config", config / "profiles"))
    return dirs


def _looks_like_path(ref: str) -> bool:
    return "/" in ref or ref.endswith(_SUFFIXES)


def locate(
    ref: str, environ: Mapping[str, str], cwd: Path, base_dir: Path | None = None
) -> tuple[Path, Origin]:
    """Return the file a profile reference names and the origin its values are shown with
    (``profile:ib-h800`` for names, ``profile:./my.yaml`` for paths as the user wrote them)."""
    if _looks_like_path(ref):
        path = Path(ref).expanduser()
        if not path.is_absolute():
            path = (base_dir or cwd) / path
        if path.is_file():
            return path, Origin.profile(ref)
        if path.is_dir():
            raise ProfileNotFound(
                f"profile file {ref!r} is a directory",
                "name one YAML file in it, or put the directory on LAUNCHX_PROFILE_PATH and "
                "give the profile's name",
            )
        tried = f" ({path})" if str(path) != ref else ""
        relative = (
            "; a relative extends: path is read from the directory of the profile that names it"
            if base_dir is not None and not Path(ref).expanduser().is_absolute()
            else ""
        )
        raise ProfileNotFound(
            f"profile file {ref!r} does not exist{tried}{relative}",
            "check the path, or give a built-in profile's name "
            f"({', '.join(available_names(environ, cwd))})",
        )
    for _label, directory in search_dirs(environ, cwd):
        for suffix in _SUFFIXES:
            candidate = directory / f"{ref}{suffix}"
            if candidate.is_file():
                return candidate, Origin.profile(ref)
            if os.path.lexists(candidate):
                raise _no_file(candidate)
    names = available_names(environ, cwd)
    close = difflib.get_close_matches(ref, names, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise ProfileNotFound(
        f"unknown profile {ref!r}",
        f"{hint}available profiles: {', '.join(names)} (or give a path to a YAML file)",
    )


def _no_file(path: Path) -> ProfileNotFound:
    """A profile's name that stands for no file: a directory, or a link to nothing."""
    what = "a directory" if path.is_dir() else "a broken link" if path.is_symlink() else "no file"
    return ProfileNotFound(
        f"profile {path.stem!r}: {path} is {what}, not a profile file",
        f"make {path.name} a YAML file (or a link to one), or move it out of {path.parent}",
    )


def _named(directory: Path) -> list[Path]:
    """The entries of a search directory that a profile name can stand for: ``x.yaml`` and
    ``x.yml``, not ``x.yaml.yaml`` (its name, ``x.yaml``, reads as a path), nor a hidden
    file (an editor's lock, ``.#x.yaml``, a link to nothing by design)."""
    try:
        entries = sorted(directory.iterdir())
    except OSError:
        return []
    return [
        p
        for p in entries
        if p.suffix in _SUFFIXES and not _looks_like_path(p.stem) and not p.name.startswith(".")
    ]


def available_names(environ: Mapping[str, str], cwd: Path) -> list[str]:
    names: list[str] = []
    for _label, directory in search_dirs(environ, cwd):
        for path in _named(directory):
            if path.stem not in names and path.is_file():
                names.append(path.stem)
    return names


@dataclass(frozen=True)
class ProfileListing:
    """What ``launchx profiles`` shows: every profile that loads, and every file that does
    not with its error (one broken file in a team's directory hides none of the others)."""

    found: tuple[Listed, ...]
    broken: tuple[ConfigError, ...]


@dataclass(frozen=True)
class Listed:
    """One usable profile: ``ref`` is what ``--profile`` takes (the file's name), which a
    ``name:`` key inside the file does not change."""

    ref: str
    profile: Profile
    where: str  # the search directory's label
    hides: tuple[str, ...] = ()  # the files of this name that --profile never reaches


def list_profiles(environ: Mapping[str, str], cwd: Path) -> ProfileListing:
    """Every profile reachable by name, with where it was found (first one wins, and says
    which it hides). Each is loaded as ``--profile`` would load it, ``extends`` chain and
    all: a profile whose base is missing or cycles is as unusable as one with a bad key."""
    first: dict[str, tuple[str, Path]] = {}
    hidden: dict[str, list[str]] = {}
    odd: list[ConfigError] = []
    for label, directory in search_dirs(environ, cwd):
        for path in _named(directory):
            if path.stem in first:
                hidden.setdefault(path.stem, []).append(str(path))
            else:
                first[path.stem] = (label, path)
        try:
            doubled = [
                p
                for p in directory.iterdir()
                if _looks_like_path(p.stem) and not p.name.startswith(".") and p.is_file()
            ]
        except OSError:
            doubled = []
        for path in sorted(doubled):
            if path.suffix in _SUFFIXES:
                odd.append(
                    ConfigError(
                        f"{path}: its name ends in {path.stem[path.stem.rindex('.') :]}"
                        f"{path.suffix}, so --profile {path.stem} would look for a file "
                        "of that name, not this one",
                        f"rename it {Path(path.stem).stem}{path.suffix}",
                    )
                )
    found: list[Listed] = []
    broken: list[ConfigError] = []
    for ref, (label, _path) in first.items():
        try:
            profile = load(ref, environ, cwd).profile
        except ConfigError as exc:
            broken.append(exc)
            continue
        found.append(Listed(ref, profile, label, tuple(hidden.get(ref, ()))))
    return ProfileListing(tuple(found), tuple(broken + odd))


def read_yaml(path: Path) -> dict[str, Any]:
    """Parse one YAML file; a syntax error names the file, line and column."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            f"cannot read profile {path}: {exc.strerror}", "check the file's permissions"
        ) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"profile {path} is not UTF-8 text (byte {exc.start} cannot be read)",
            "save it as UTF-8, or move it out of the profile directory if it is no profile",
        ) from None
    try:
        data = yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(
            f"{where}: YAML syntax error: {problem}",
            "fix the YAML at that line (indentation, a missing ':' or quote)",
        ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path}: a profile must be a mapping of keys, not a {type(data).__name__}",
            "start the file with 'name: ...'",
        )
    return data


def _model_for(loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The pydantic model that owns the key at ``loc`` (for "did you mean")."""
    model: type[BaseModel] = Profile
    for part in loc[:-1]:
        info = model.model_fields.get(str(part))
        annotation = info.annotation if info else None
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            model = annotation
        else:
            return None
    return model


def validation_message(exc: ValidationError, where: str) -> ConfigError:
    """Turn pydantic's report into one message naming the file, key path and the fix."""
    errors = exc.errors()
    err = errors[0]
    loc = _loc_of(err)
    key = _key_of(err)
    # A union (int | "auto") reports one error per branch for the same key: one problem.
    same = [e for e in errors if _clean_loc(tuple(e["loc"])) == loc]
    others = [k for k in dict.fromkeys(_key_of(e) for e in errors) if k != key]
    tail = (
        f" (and {len(others)} more problem{'s' if len(others) > 1 else ''}: {', '.join(others)})"
        if others
        else ""
    )
    if err["type"] == "extra_forbidden":
        model = _model_for(loc)
        known = list(model.model_fields) if model else []
        close = difflib.get_close_matches(str(loc[-1]), known, n=1)
        hint = (
            f"did you mean {close[0]!r}?"
            if close
            else f"known keys here: {', '.join(known)}"
            if known
            else "remove it"
        )
        return ConfigError(f"{where}: unknown key {key!r}{tail}", hint)
    value = err.get("input")
    shown = "" if isinstance(value, dict) else f" (got {value!r})"
    message = " or ".join(dict.fromkeys(_plain(e["msg"]) for e in same))
    return ConfigError(
        f"{where}: {key}: {message}{shown}{tail}",
        "see the profile reference in README.md for the allowed values",
    )


def _loc_of(error: Any) -> tuple[int | str, ...]:
    """The key path an error is about, as the user wrote it."""
    loc = tuple(error["loc"])
    if error["type"] == "extra_forbidden" and loc:
        # The unknown key is the user's, whatever it looks like (even "-" or "int").
        return (*_clean_loc(loc[:-1]), loc[-1])
    return _clean_loc(loc)


def _key_of(error: Any) -> str:
    return ".".join(str(p) for p in _loc_of(error)) or "(top level)"


def _clean_loc(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """Drop pydantic's union-branch tags (``constrained-int``, ``literal['auto']``) so the
    location is the key path the user wrote."""
    return tuple(
        p for p in loc if not (isinstance(p, str) and ("[" in p or "-" in p or p in _TYPE_TAGS))
    )


_TYPE_TAGS = {"int", "str", "float", "bool", "list", "dict", "tuple", "none"}


def _plain(msg: str) -> str:
    return msg.replace("Input should be", "should be").replace("Value error, ", "")


def _validate_one(data: Mapping[str, Any], path: Path) -> Profile:
    doc = dict(data)
    doc.setdefault("name", path.stem)
    try:
        return Profile.model_validate(doc)
    except ValidationError as exc:
        raise validation_message(exc, str(path)) from None


@dataclass(frozen=True)
class LoadedProfile:
    """A merged profile plus, for each dotted key a file set, which file set it."""

    profile: Profile
    label: Origin  # the profile that was asked for
    chain: tuple[Origin, ...]  # base first
    origins: Mapping[str, Origin] = field(default_factory=dict)  # "env.NCCL_IB_HCA" -> file
    overridden: Mapping[str, tuple[tuple[str, Origin], ...]] = field(default_factory=dict)
    path: str = ""


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, dotted + "."))
        else:
            out[dotted] = value
    return out


def _deep_merge(base: dict[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _missing_base(
    exc: ProfileNotFound, ref: str, docs: Sequence[tuple[Origin, Path, Mapping[str, Any]]]
) -> ProfileNotFound:
    """A base that cannot be found, named with the file whose ``extends`` asks for it and the
    chain so far: the user ran ``--profile mine``, not the base, and must know where to look.
    The hint (did you mean, the available profiles) is locate's, unchanged."""
    _label, child, _data = docs[-1]
    chain = " -> ".join([*(str(lbl) for lbl, _p, _d in docs), repr(ref)])
    return ProfileNotFound(
        f"profile 'extends' chain is broken: {chain}: {exc.message} "
        f"(named by 'extends' in {child})",
        exc.hint,
    )


def _broken_base(
    exc: ConfigError, ref: str, docs: Sequence[tuple[Origin, Path, Mapping[str, Any]]]
) -> ConfigError:
    """A base that is found but does not load: its own error, behind the profile asked for
    (``--profile mine`` fails on a file the user did not name)."""
    chain = " -> ".join([*(str(lbl) for lbl, _p, _d in docs), repr(ref)])
    return ConfigError(f"profile 'extends' chain is broken: {chain}: {exc.message}", exc.hint)


def load(ref: str, environ: Mapping[str, str], cwd: Path) -> LoadedProfile:
    """Load a profile and its ``extends`` chain, base first, recording each value's file."""
    docs: list[tuple[Origin, Path, dict[str, Any]]] = []
    seen: list[str] = []
    current: str | None = ref
    base_dir: Path | None = None
    while current is not None:
        try:
            path, label = locate(current, environ, cwd, base_dir)
        except ProfileNotFound as exc:
            if not docs:  # the profile asked for itself: locate's message says it all
                raise
            raise _missing_base(exc, current, docs) from None
        key = str(path.resolve())
        if key in seen:
            chain = " -> ".join([*(str(lbl) for lbl, _p, _d in docs), str(label)])
            raise ConfigError(
                f"profile 'extends' cycle: {chain}",
                "remove one of the 'extends' keys so the chain ends",
            )
        seen.append(key)
        try:
            data = read_yaml(path)
            _validate_one(data, path)
        except ConfigError as exc:
            if not docs:
                raise
            raise _broken_base(exc, current, docs) from None
        docs.append((label, path, data))
        parent = data.get("extends")
        if parent is not None and not isinstance(parent, str):
            raise ConfigError(
                f"{path}: extends must be a profile name or path", "write e.g. 'extends: ethernet'"
            )
        current = parent
        base_dir = path.parent
    docs.reverse()

    merged: dict[str, Any] = {}
    origins: dict[str, Origin] = {}
    overridden: dict[str, tuple[tuple[str, Origin], ...]] = {}
    for label, _path, data in docs:
        body = {k: v for k, v in data.items() if k not in ("name", "extends", "description")}
        for dotted in _flatten(body):
            if dotted in origins:
                old = _flatten(merged).get(dotted)
                overridden[dotted] = (*overridden.get(dotted, ()), (str(old), origins[dotted]))
            origins[dotted] = label
        merged = _deep_merge(merged, body)
    top_label, top_path, top_data = docs[-1]
    merged["name"] = top_data.get("name", top_path.stem)
    merged["description"] = top_data.get("description", "")
    merged["extends"] = top_data.get("extends")
    try:
        profile = Profile.model_validate(merged)
    except ValidationError as exc:
        raise validation_message(exc, f"{top_path} (merged with its 'extends' chain)") from None
    return LoadedProfile(
        profile=profile,
        label=top_label,
        chain=tuple(lbl for lbl, _p, _d in docs),
        origins=origins,
        overridden=overridden,
        path=str(top_path),
    )
