"""Is the command launchx is about to run per rank itself a launcher?

``launchx run --nproc-per-node 2 --no-python torchrun --nproc-per-node 2 train.py`` starts
two torchruns, each with a world of its own: two rank 0s writing the same outputs, and
for ``accelerate launch`` a silent hang (accelerate rewrites ``MASTER_PORT`` while
torchrun's store variables remain). Nothing in launchx's own environment shows it: only
the command does. This module reads the command, statically, as a shell would run it:

* ``NAME=VALUE`` words, and wrappers that run the rest of their arguments as a command
  (``env`` with its options, ``nohup``, ``setsid``, ``exec``, ``time``, ``nice``,
  ``ionice``, ``taskset``, ``numactl``, ``stdbuf``, ``timeout``, ``sudo``, ``uv run``,
  ``conda``/``mamba``/``micromamba run``, ``poetry``/``pipenv``/``pdm``/``hatch run``,
  ``apptainer``/``singularity exec``, ``sh -c STRING``) are peeled off;
* a Python interpreter (``python``, ``python3``, ``python3.N``, any directory) with its
  options is read up to ``-m MODULE`` or the script it runs;
* what is left is compared with the launchers' console scripts and modules
  (``reference/frameworks.md`` §1, §8).

A console script run by ``python`` (``python /venv/bin/torchrun``) is the launcher too.
Look-alikes (``torchfrtrace``, ``accelerate config``, ``ds_report``, ``fabric`` without
``run``) are not. Shell scripts that call a launcher, Lightning's self-spawning Trainer
and ``notebook_launcher`` cannot be seen this way (frameworks.md §1.2).

Pure: words in, a typed answer out.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Family = Literal["torchrun", "accelerate", "deepspeed", "lightning", "slurm", "mpi"]


@dataclass(frozen=True)
class InnerLauncher:
    """A launcher found inside the command launchx runs per rank."""

    family: Family
    name: str  # how the user named it: "torchrun", "python -m torch.distributed.run", ...
    words: tuple[str, ...]  # the words of the command that show it, verbatim
    through: tuple[str, ...]  # the wrappers it was found behind ("env", "python3", ...)
    # The command that launcher would have run (the training script and its arguments),
    # when its options could be read; None otherwise.
    inner_command: tuple[str, ...] | None

    @property
    def message(self) -> str:
        via = f" (behind {', '.join(self.through)})" if self.through else ""
        return (
            f"the command is itself a launcher: {shlex.join(self.words)}{via}. launchx "
            f"already starts one process per rank, so each of them would start "
            f"{_WHAT_IT_STARTS[self.family]}"
        )

    @property
    def fix(self) -> str:
        drop = "drop the inner launcher and give launchx the script"
        if self.inner_command:
            drop += f" (launchx run [options] {shlex.join(self.inner_command)})"
        keep = (
            f"or, if {self.name} is what you want to start the ranks, run it once with "
            "--launcher direct"
        )
        return f"{drop}; {keep}"


_WHAT_IT_STARTS: dict[Family, str] = {
    "torchrun": "a world of its own (several rank 0s writing the same outputs)",
    "accelerate": "a world of its own on its own MASTER_PORT (several rank 0s, or a hang)",
    "deepspeed": "a world of its own on port 29500 (several rank 0s)",
    "lightning": "a world of its own (several rank 0s writing the same outputs)",
    "slurm": "a SLURM step of its own (ranks times tasks processes)",
    "mpi": "an MPI job of its own (ranks times tasks processes)",
}


# --------------------------------------------------------------------------- the launchers

# Console scripts (any directory). A value of None: the name alone is the launcher; a
# tuple: the first non-option word after it must be one of these subcommands.
_EXECUTABLES: dict[str, tuple[Family, tuple[str, ...] | None]] = {
    "torchrun": ("torchrun", None),
    "accelerate": ("accelerate", ("launch",)),
    "accelerate-launch": ("accelerate", None),
    "deepspeed": ("deepspeed", None),
    "deepspeed.pt": ("deepspeed", None),
    "ds": ("deepspeed", None),
    "fabric": ("lightning", ("run",)),
    "lightning_fabric": ("lightning", ("run",)),
    "lightning": ("lightning", ("run",)),  # `lightning run model` (2.3.0 to 2.5.0)
    "srun": ("slurm", None),
    "mpirun": ("mpi", None),
    "mpiexec": ("mpi", None),
    "mpiexec.hydra": ("mpi", None),
    "orterun": ("mpi", None),
}

# ``python -m MODULE``: same meaning as above.
_MODULES: dict[str, tuple[Family, tuple[str, ...] | None]] = {
    "torch.distributed.run": ("torchrun", None),
    "torch.distributed.launch": ("torchrun", None),
    "accelerate.commands.launch": ("accelerate", None),
    "accelerate.commands.accelerate_cli": ("accelerate", ("launch",)),
    "deepspeed.launcher.runner": ("deepspeed", None),
    "deepspeed.launcher.launch": ("deepspeed", None),
    "deepspeed.launcher.launcher_helper": ("deepspeed", None),
    "lightning.fabric.cli": ("lightning", None),
    "lightning_fabric.cli": ("lightning", None),
}

# Families that are launchers only where launchx already starts one process per rank
# (``per_rank``): srun and mpirun inside a single direct process are how some sites start
# a job on purpose.
_PER_RANK_ONLY: frozenset[Family] = frozenset({"slurm", "mpi"})

# Options of each launcher that take no value: everything else that starts with "-"
# and has no "=" is taken to be followed by its value. Used only to find the script the
# launcher would have run (``inner_command``), never to decide that it is a launcher.
_FLAGS: dict[Family, frozenset[str]] = {
    "torchrun": frozenset(
        {
            "--standalone",
            "--no-python",
            "--no_python",
            "--run-path",
            "--run_path",
            "--use-env",
            "--use_env",
            "--virtual-local-rank",
            "--virtual_local_rank",
            "-h",
            "--help",
        }
    ),
    "accelerate": frozenset(
        {
            "--cpu",
            "--multi_gpu",
            "--tpu",
            "--use_deepspeed",
            "--use_fsdp",
            "--use_megatron_lm",
            "--use_xpu",
            "--no_python",
            "--debug",
            "-q",
            "--quiet",
            "--same_network",
            "--enable_cpu_affinity",
            "--downcast_bf16",
            "--dynamo_use_fullgraph",
            "--dynamo_use_dynamic",
            "--dynamo_use_regional_compilation",
            "-h",
            "--help",
        }
    ),
    "deepspeed": frozenset(
        {
            "--no_python",
            "--no_local_rank",
            "--no_ssh",
            "--no_ssh_check",
            "--force_multi",
            "--save_pid",
            "--autotuning",
            "--enable_each_rank_log",
            "--bind_cores_to_rank",
            "--elastic_training",
            "-h",
            "--help",
        }
    ),
    "lightning": frozenset({"-h", "--help"}),
    "slurm": frozenset(),
    "mpi": frozenset(),
}
_MODULE_FLAGS = frozenset({"-m", "--module"})


# --------------------------------------------------------------------------- wrappers

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*", re.DOTALL)
_PYTHON = re.compile(r"python(?:[23](?:\.[0-9]+)?t?)?")
# Interpreter options: standalone letters (may be grouped, ``-uB``) and those that take a
# value (``-X opt`` or ``-Xopt``, ``-W arg``).
_PY_FLAGS = frozenset("bBdEhiIOPqsSuvVx?")
_PY_VALUE = frozenset("XW")
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh"})

# Wrapper -> its options that take a separate value. Options not listed take none; an
# attached value (``--x=y``, ``-n10``) is always one word.
_WRAPPERS: dict[str, frozenset[str]] = {
    "nohup": frozenset(),
    "exec": frozenset({"-a"}),
    "setsid": frozenset(),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "--class", "-n", "--classdata"}),
    "chrt": frozenset(),
    "stdbuf": frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "-R"}),
    "numactl": frozenset(
        {"-i", "-m", "-N", "-C", "-p", "-P", "-w", "--offset", "--length", "--shm", "--file"}
    ),
    "taskset": frozenset(),
}
# Wrappers whose first positional word is theirs, not the command (``timeout 10 cmd``,
# ``taskset 0x3 cmd`` / ``taskset -c 0-3 cmd``, ``chrt 10 cmd``).
_WRAPPER_POSITIONALS: dict[str, int] = {"timeout": 1, "taskset": 1, "chrt": 1}

_RUNNERS: dict[str, frozenset[str]] = {
    # `X run [options] command`, with X's options that take a separate value.
    "uv": frozenset(
        {
            "--with",
            "--with-editable",
            "--with-requirements",
            "--python",
            "-p",
            "--package",
            "--extra",
            "--no-extra",
            "--group",
            "--only-group",
            "--no-group",
            "--env-file",
            "--directory",
            "--project",
            "--index",
            "--default-index",
            "--index-url",
            "--extra-index-url",
            "--find-links",
            "-f",
            "--config-file",
            "--cache-dir",
            "--color",
            "--index-strategy",
            "--keyring-provider",
            "--resolution",
            "--prerelease",
            "--exclude-newer",
            "--link-mode",
            "--refresh-package",
            "--reinstall-package",
            "--upgrade-package",
            "-P",
            "--no-binary-package",
            "--no-build-package",
            "--python-preference",
            "--config-setting",
            "-C",
            "--allow-insecure-host",
        }
    ),
    "conda": frozenset({"-n", "--name", "-p", "--prefix", "--cwd"}),
    "mamba": frozenset({"-n", "--name", "-p", "--prefix", "--cwd"}),
    "micromamba": frozenset({"-n", "--name", "-p", "--prefix", "--cwd", "-a", "--attach"}),
    "poetry": frozenset({"-C", "--directory", "-P", "--project"}),
    "pipenv": frozenset(),
    "pdm": frozenset({"-p", "--project", "-g", "--global"}),
    "hatch": frozenset({"-e", "--env"}),
    "pixi": frozenset({"-e", "--environment", "--manifest-path"}),
}
_CONTAINERS: dict[str, frozenset[str]] = {
    # `X exec [options] IMAGE command`
    "apptainer": frozenset(
        {
            "-B",
            "--bind",
            "-H",
            "--home",
            "-W",
            "--workdir",
            "--pwd",
            "-o",
            "--overlay",
            "--env",
            "--env-file",
            "--security",
            "--mount",
            "--network",
            "--hostname",
            "--app",
            "--fusemount",
        }
    ),
}
_CONTAINERS["singularity"] = _CONTAINERS["apptainer"]

_MAX_DEPTH = 8  # sh -c inside sh -c ...: enough for any real command


def _base(word: str) -> str:
    return os.path.basename(word.rstrip("/"))


def _skip_options(
    words: Sequence[str], i: int, takes_value: frozenset[str], *, positionals: int = 0
) -> int:
    """Index of the command after a wrapper's options (and its own positional words)."""
    while i < len(words):
        word = words[i]
        if word == "--":
            i += 1
            break
        if word.startswith("-") and len(word) > 1:
            if "=" in word or word not in takes_value:
                i += 1
            else:
                i += 2
            continue
        if positionals:
            positionals -= 1
            i += 1
            continue
        break
    return i + positionals if positionals else i


@dataclass(frozen=True)
class _Cursor:
    index: int
    through: tuple[str, ...]
    module: bool = False  # the word at ``index`` is a module (``uv run -m MODULE``)


def _peel(words: Sequence[str], i: int, through: tuple[str, ...]) -> _Cursor | None:
    """Move past one wrapper at ``i``; None when the word there is no wrapper."""
    word = words[i]
    name = _base(word)
    if _ASSIGNMENT.fullmatch(word):
        return _Cursor(i + 1, through)
    if name == "env":
        return _Cursor(_skip_env(words, i + 1), (*through, "env"))
    if name in _WRAPPERS:
        at = _skip_options(
            words, i + 1, _WRAPPERS[name], positionals=_WRAPPER_POSITIONALS.get(name, 0)
        )
        return _Cursor(at, (*through, name))
    if name in _RUNNERS and i + 1 < len(words) and words[i + 1] == "run":
        runner = (*through, f"{name} run")
        for j in range(i + 2, len(words)):
            if not words[j].startswith("-") or words[j] == "--":
                break
            if words[j] in _MODULE_FLAGS and name == "uv":
                return _Cursor(j + 1, runner, module=True)
        return _Cursor(_skip_options(words, i + 2, _RUNNERS[name]), runner)
    if name in _CONTAINERS and i + 1 < len(words) and words[i + 1] in ("exec", "run"):
        at = _skip_options(words, i + 2, _CONTAINERS[name], positionals=1)
        return _Cursor(at, (*through, f"{name} {words[i + 1]}"))
    return None


def _skip_env(words: Sequence[str], i: int) -> int:
    """Past ``env``'s options and NAME=VALUE words (``-S`` is handled by the caller)."""
    takes_value = frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"})
    while i < len(words):
        word = words[i]
        if word == "--":
            return i + 1
        if word == "-":
            i += 1
        elif word.startswith("-") and len(word) > 1:
            i += 1 if ("=" in word or word not in takes_value) else 2
        elif _ASSIGNMENT.fullmatch(word):
            i += 1
        else:
            break
    return i


def _env_split_string(words: Sequence[str], i: int) -> list[str] | None:
    """``env -S 'python3 -u'`` (a shebang's way): the string is more words."""
    j = i + 1
    while j < len(words):
        word = words[j]
        value: str | None = None
        if word in ("-S", "--split-string") and j + 1 < len(words):
            value = words[j + 1]
            rest = words[j + 2 :]
        elif word.startswith("--split-string="):
            value, rest = word.split("=", 1)[1], words[j + 1 :]
        elif word.startswith("-S") and len(word) > 2:
            value, rest = word[2:], words[j + 1 :]
        if value is not None:
            try:
                return [*words[i + 1 : j], *shlex.split(value), *rest]
            except ValueError:
                return None
        if not word.startswith("-") or word == "--":
            return None
        j += 1
    return None


@dataclass(frozen=True)
class _Program:
    kind: Literal["module", "script"]
    name: str  # the module, or the script's path
    end: int  # index of the first word after it (its arguments)


def _python_program(words: Sequence[str], i: int) -> _Program | None:
    """What the interpreter at ``i`` runs; None when it is hidden (``-c``, stdin) or
    absent. Options before it may stand alone, be grouped (``-uB``) or take a value
    (``-X opt``, ``-Xopt``, ``-W arg``)."""
    j = i + 1
    while j < len(words):
        word = words[j]
        if word == "--":
            return _Program("script", words[j + 1], j + 2) if j + 1 < len(words) else None
        if word == "-":
            return None
        if word.startswith("--"):
            j += 2 if word == "--check-hash-based-pycs" else 1
            continue
        if not word.startswith("-"):
            return _Program("script", word, j + 1)
        letters = word[1:]
        for pos, letter in enumerate(letters):
            rest = letters[pos + 1 :]
            if letter == "m":
                if rest:
                    return _Program("module", rest, j + 1)
                return _Program("module", words[j + 1], j + 2) if j + 1 < len(words) else None
            if letter == "c":
                return None
            if letter in _PY_VALUE:
                if not rest:
                    j += 1  # the value is the next word
                break
            if letter not in _PY_FLAGS:
                break
        j += 1
    return None


def _subcommand(words: Sequence[str], i: int) -> str | None:
    """The first word after ``i`` that is not an option."""
    for word in words[i:]:
        if not word.startswith("-"):
            return word
    return None


def _match(
    table: dict[str, tuple[Family, tuple[str, ...] | None]],
    key: str,
    words: Sequence[str],
    after: int,
) -> tuple[Family, int] | None:
    """(family, index past the launcher's own words) when ``key`` names a launcher."""
    entry = table.get(key)
    if entry is None:
        return None
    family, subcommands = entry
    if subcommands is None:
        return family, after
    sub = _subcommand(words, after)
    if sub not in subcommands:
        return None
    return family, words.index(sub, after) + 1


def _inner_command(family: Family, words: Sequence[str], i: int) -> tuple[str, ...] | None:
    """What the launcher would have run: its first non-option word and what follows."""
    flags = _FLAGS[family]
    module = False
    while i < len(words):
        word = words[i]
        if word == "--":
            i += 1
            break
        if word in _MODULE_FLAGS:
            module = True
            i += 1
            continue
        if word.startswith("-"):
            i += 1 if ("=" in word or word in flags) else 2
            continue
        break
    if i >= len(words):
        return None
    rest = tuple(words[i:])
    if module:
        return ("-m", *rest)
    return rest


def find_inner_launcher(command: Sequence[str], *, per_rank: bool = True) -> InnerLauncher | None:
    """The launcher inside ``command`` (the full argv launchx would start for each rank:
    ``[python, script, ...]``, ``[python, "-m", module, ...]`` or ``[executable, ...]``),
    or None. ``per_rank``: launchx starts one process per rank (torchrun, srun per task,
    or a direct rank), where srun and mpirun also start a world of their own."""
    return _find(list(command), 0, (), per_rank, 0)


def _find(
    words: list[str], i: int, through: tuple[str, ...], per_rank: bool, depth: int
) -> InnerLauncher | None:
    while i < len(words) and depth <= _MAX_DEPTH:
        name = _base(words[i])
        if name == "env" and (split := _env_split_string(words, i)) is not None:
            words = [*words[: i + 1], *split]
        if name in _SHELLS:
            return _in_shell(words, i, (*through, name), per_rank, depth)
        peeled = _peel(words, i, through)
        if peeled is not None and peeled.module:
            if peeled.index >= len(words):
                return None
            program = _Program("module", words[peeled.index], peeled.index + 1)
            return _launched(words, program, peeled.index - 1, peeled.through, per_rank)
        if peeled is not None:
            i, through = peeled.index, peeled.through
            continue
        if _PYTHON.fullmatch(name):
            return _in_python(words, i, (*through, name), per_rank)
        return _named(words, i, name, through, per_rank)
    return None


def _in_python(
    words: list[str], i: int, through: tuple[str, ...], per_rank: bool
) -> InnerLauncher | None:
    program = _python_program(words, i)
    if program is None:
        return None
    return _launched(words, program, i, through[:-1], per_rank)


def _launched(
    words: list[str], program: _Program, start: int, through: tuple[str, ...], per_rank: bool
) -> InnerLauncher | None:
    """The launcher a Python program is, if any (``start``: where its words begin)."""
    if program.kind == "module":
        found = _match(_MODULES, program.name, words, program.end)
        label = f"python -m {program.name}"
    else:
        # A console script run by the interpreter (python /venv/bin/torchrun) is the
        # launcher itself.
        name = _base(program.name)
        found = _match(_EXECUTABLES, name, words, program.end)
        label = name
    if found is None:
        return None
    family, end = found
    if end > program.end:  # a subcommand: accelerate_cli launch
        label = f"{label} {words[end - 1]}"
    return _result(family, label, words, start, end, through, per_rank)


def _named(
    words: list[str], i: int, name: str, through: tuple[str, ...], per_rank: bool
) -> InnerLauncher | None:
    found = _match(_EXECUTABLES, name, words, i + 1)
    if found is None:
        return None
    family, end = found
    label = f"{name} {words[end - 1]}" if end > i + 1 else name
    if name == "lightning" and end < len(words) and words[end] == "model":
        end += 1  # `lightning run model SCRIPT` (2.3.0 to 2.5.0)
        label = "lightning run model"
    return _result(family, label, words, i, end, through, per_rank)


def _result(
    family: Family,
    label: str,
    words: list[str],
    start: int,
    end: int,
    through: tuple[str, ...],
    per_rank: bool,
) -> InnerLauncher | None:
    if family in _PER_RANK_ONLY and not per_rank:
        return None
    return InnerLauncher(
        family=family,
        name=label,
        words=tuple(words[start:end]),
        through=through,
        inner_command=_inner_command(family, words, end),
    )


def _in_shell(
    words: list[str], i: int, through: tuple[str, ...], per_rank: bool, depth: int
) -> InnerLauncher | None:
    """``bash -c 'torchrun ... train.py'``: every simple command of the string."""
    j = i + 1
    code: str | None = None
    while j < len(words):
        word = words[j]
        if word == "-c" or (word.startswith("-") and not word.startswith("--") and "c" in word):
            code = words[j + 1] if j + 1 < len(words) else None
            break
        if word in ("-o", "+o"):
            j += 2
            continue
        if not word.startswith(("-", "+")):
            return None  # a script file: not readable from here (frameworks.md §1.2)
        j += 1
    if code is None:
        return None
    for simple in _simple_commands(code):
        found = _find(simple, 0, through, per_rank, depth + 1)
        if found is not None:
            return found
    return None


_OPERATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", ";;", "|&"})


def _simple_commands(code: str) -> list[list[str]]:
    lexer = shlex.shlex(code, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return []
    out: list[list[str]] = [[]]
    for token in tokens:
        if token in _OPERATORS or set(token) <= set(";&|()"):
            out.append([])
        else:
            out[-1].append(token)
    return [cmd for cmd in out if cmd]
