"""PyTorch's flight recorder for NCCL runs: record into the log dir, dump on demand.

``flight_env`` is what an NCCL profile adds to the ranks' environment; ``trigger_flight_dumps``
writes to each rank's FIFO when launchx has decided on a hang, before it stops the ranks,
so ``launchx diagnose`` (``launchx/flightrec.py``) can name the rank that did not join the
collective the others are in. Parsing the dumps is that module's job, not this one's.

Names (shared/reference/env-vars.md §2.3, hangs.md §4, and the torch 2.13 headers):

* The buffer size is read by two parts under different names: the FlightRecorder itself
  reads ``TORCH_FR_BUFFER_SIZE`` then ``TORCH_NCCL_TRACE_BUFFER_SIZE`` (default 2000), but
  ProcessGroupNCCL's FIFO (``DumpPipe``) reads only ``TORCH_NCCL_TRACE_BUFFER_SIZE``, and
  torch 2.2-2.5 default it to 0. Both are set, to the same value.
* Dump files: ``TORCH_FR_DUMP_TEMP_FILE`` (new) / ``TORCH_NCCL_DEBUG_INFO_TEMP_FILE`` (old);
  a file is ``<prefix><global rank>``.
* ``TORCH_NCCL_DEBUG_INFO_PIPE_FILE``: PG 0 makes the FIFO ``<prefix><rank>.pipe`` with
  mkfifo at start-up; a missing directory fails that, so the prefix lies in the attempt's
  log dir itself (which the run loop creates before it starts the launcher).
* ``TORCH_NCCL_DUMP_ON_TIMEOUT``: dump when the watchdog fires (default true only in
  recent torch).

What the user set wins: a name they set is left alone, a buffer size they chose is
mirrored into the other name, and a flight recorder they turned off (size 0) stays off.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Mapping
from pathlib import Path

FR_TRACE_PREFIX = "fr_trace_rank_"
FR_PIPE_PREFIX = "fr_pipe_rank_"
DEFAULT_BUFFER = "2000"
SIZE_VARS = ("TORCH_FR_BUFFER_SIZE", "TORCH_NCCL_TRACE_BUFFER_SIZE")
FILE_VARS = ("TORCH_FR_DUMP_TEMP_FILE", "TORCH_NCCL_DEBUG_INFO_TEMP_FILE")
PIPE_VAR = "TORCH_NCCL_DEBUG_INFO_PIPE_FILE"
DUMP_ON_TIMEOUT_VAR = "TORCH_NCCL_DUMP_ON_TIMEOUT"
_PIPE_NAME = re.compile(rf"^{FR_PIPE_PREFIX}(\d+)\.pipe$")


def flight_env(log_dir: str | Path, existing: Mapping[str, str] | None = None) -> dict[str, str]:
    """Variables to add (only those ``existing``, the ranks' environment, lacks)."""
    have = dict(existing or {})
    size = next((have[n].strip() for n in SIZE_VARS if n in have), DEFAULT_BUFFER)
    if size == "0":
        return {}  # the user turned the flight recorder off
    base = Path(log_dir)
    wanted: dict[str, str] = dict.fromkeys(SIZE_VARS, size)
    wanted[DUMP_ON_TIMEOUT_VAR] = "1"
    if not any(n in have for n in FILE_VARS):
        wanted.update(dict.fromkeys(FILE_VARS, str(base / FR_TRACE_PREFIX)))
    wanted[PIPE_VAR] = str(base / FR_PIPE_PREFIX)
    return {k: v for k, v in wanted.items() if k not in have}


def trigger_flight_dumps(log_dir: str | Path) -> tuple[int, ...]:
    """Write to every rank's FIFO under ``log_dir``; the ranks' watchdogs dump within a
    second or two and keep training. Returns the ranks asked. Never blocks: a FIFO whose
    rank is gone has no reader (ENXIO) and is skipped."""
    asked: list[int] = []
    try:
        names = sorted(os.listdir(log_dir))
    except OSError:
        return ()
    for name in names:
        match = _PIPE_NAME.match(name)
        if not match:
            continue
        try:
            fd = os.open(os.path.join(log_dir, name), os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno in (errno.ENXIO, errno.ENOENT, errno.EACCES):
                continue
            raise
        try:
            os.write(fd, b"1")
            asked.append(int(match.group(1)))
        except OSError:
            pass
        finally:
            os.close(fd)
    return tuple(asked)


def flight_dumps(log_dir: str | Path) -> dict[int, Path]:
    """The dump files written so far, by rank."""
    out: dict[int, Path] = {}
    for path in Path(log_dir).glob(f"{FR_TRACE_PREFIX}*"):
        tail = path.name[len(FR_TRACE_PREFIX) :]
        if tail.isdigit():
            out[int(tail)] = path
    return out
