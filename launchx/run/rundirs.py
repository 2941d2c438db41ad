"""Which run ``launchx status`` (and ``diagnose``) reads when it is given no directory or
a run id, and whether a ``--log-dir`` may take this run.

Runs without ``--log-dir`` are kept under ``<temp dir>/launchx/<run id>``; a run with one
is named, per user, in ``<temp dir>/launchx-latest-<uid>``: one file beside the shared
log root rather than inside it (another user may own that directory), written through a
private temporary file and followed only when it is this user's own and names a run.
"""

from __future__ import annotations

import os
import stat
import tempfile
from contextlib import suppress
from pathlib import Path

from launchx.errors import ConfigError, LaunchxError
from launchx.plan import default_log_root
from launchx.run.events import has_events, how_it_ended


def make_log_dir(path: Path) -> None:
    """Create a log directory, or say why not: before the run's first line when it is the
    user's --log-dir (a header naming logs that can never be written would mislead), and
    for each attempt's directory under it."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LaunchxError(
            f"cannot create the log directory {path}: {exc.strerror}",
            "pass a writable --log-dir",
        ) from None


def latest_file(temp_dir: str) -> Path:
    return Path(temp_dir) / f"launchx-latest-{os.getuid()}"


def note_latest_run(log_dir: Path, temp_dir: str) -> None:
    """Name ``log_dir`` (a --log-dir run's) as this user's latest run. Losing the note
    costs only the default of ``launchx status``, never the run."""
    target = latest_file(temp_dir)
    fd, part = -1, ""
    try:
        fd, part = tempfile.mkstemp(dir=temp_dir, prefix=".launchx-latest-")
        os.write(fd, (str(log_dir.resolve()) + "\n").encode())
        os.close(fd)
        fd = -1
        os.replace(part, target)  # a rename: never follows a link planted at the name
        part = ""
    except OSError:
        pass
    finally:
        if fd >= 0:
            os.close(fd)
        if part:
            with suppress(OSError):
                os.unlink(part)


def _named_run(temp_dir: str) -> Path | None:
    """The run this user's latest-run file names, if the file is theirs and the run has
    events (a directory since emptied or reused for something else is no run)."""
    path = latest_file(temp_dir)
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
            return None
        named = Path(path.read_text().strip())
    except (OSError, ValueError):
        return None
    return named if named.is_absolute() and has_events(named) else None


def by_run_id(given: str, temp_dir: str) -> str:
    """What the readers open for ``given``: the directory of the run with that id under the
    default log root when ``given`` is a bare name that is no path here (``launchx status
    intr1`` as a user types it after ``launchx run --run-id intr1``; an existing file or
    directory wins), else ``given`` itself. A bare name that is neither a path nor a kept
    run's id is refused as a typo'd run id, with the ids kept (the reader would report a
    missing file); a name with a dot (``job.out``) or ``-`` (stdin) is left to the reader."""
    if not given or "/" in given or given in (".", "..", "-") or os.path.lexists(given):
        return given
    root = Path(default_log_root(given, temp_dir))
    if has_events(root):
        return str(root)
    if "." in given:
        return given  # (a file's name, job.out: the reader's own message says it)
    try:
        runs = [p for p in root.parent.iterdir() if has_events(p)]
    except OSError:
        runs = []
    kept = [p.name for p in sorted(runs, key=_last_written, reverse=True)]
    shown = ", ".join(kept[:6]) + (", ..." if len(kept) > 6 else "")
    raise ConfigError(
        f"{given!r} is neither a file or directory here nor the id of a run kept under "
        f"{root.parent}",
        f"runs kept there, newest first: {shown}"
        if kept
        else "pass a run's log directory (its --log-dir)",
    )


def run_dir(given: str | None, temp_dir: str) -> Path:
    """The run ``launchx status`` reads: the directory or run id given, else the newest run,
    of those kept under the default log root and the last one started with ``--log-dir``;
    newest by what was last written."""
    if given:
        where = Path(by_run_id(given, temp_dir)).expanduser().resolve()
        # (an events file named itself: its run is the directory holding it)
        return where.parent if where.is_file() and where.name.startswith("events") else where
    root = Path(default_log_root(None, temp_dir)).parent
    try:
        runs = [p for p in root.iterdir() if p.is_dir()]
    except OSError:
        runs = []
    named = _named_run(temp_dir)
    if named is not None:
        runs.append(named)
    if not runs:
        raise ConfigError(
            f"no run under {root}", "pass a run's log directory (its --log-dir) or its run id"
        )
    return max(runs, key=_last_written)


def unpiped_run(temp_dir: str) -> Path:
    """What ``launchx diagnose`` reads at a terminal with nothing piped in and no path: the
    run that just failed, as ``launchx status`` would show it (reading stdin would wait
    silently for a log that never comes)."""
    try:
        return run_dir(None, temp_dir)
    except ConfigError as exc:
        raise ConfigError(
            f"{exc.message}, and nothing is piped in",
            "pass a log file, a run's log directory or run id, or pipe a log in: "
            "launchx diagnose - < job.out",
        ) from None


def _last_written(run: Path) -> float:
    """A running run appends to its events file; its directory's own time stays put."""
    times = []
    for p in (run, run / "events.jsonl"):
        with suppress(OSError):
            times.append(p.stat().st_mtime)
    return max(times, default=0.0)


def log_dir_taken(events: list[dict[str, object]], run_id: str, *, continuing: bool) -> str | None:
    """Why ``--log-dir`` cannot take this run, or None. Its files are named by attempt and
    rank only, so a second run there appends to the first one's logs, and ``diagnose``
    then reports the old run's failure. Another run's events (another id), or a rerun of a
    run that ended (the same derived id, started afresh), make it taken; a SLURM requeue
    (``continuing``: the job's history goes on) and nodes joining the same run do not."""
    starts = [e for e in events if e.get("event") == "run_start"]
    if not starts:
        return None
    earlier = str(starts[-1].get("run") or "?")
    if earlier != run_id:
        return f"it holds the logs of another run ({earlier})"
    last = events[-1]
    ended = last.get("event") == "run_end" and how_it_ended(last) != "requeued"
    if ended and not continuing:
        return f"it holds the logs of an earlier run with the same id ({earlier}), which ended"
    return None
