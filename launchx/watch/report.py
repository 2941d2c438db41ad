"""The hang report: one block a person reads once and knows which rank to look at.

Pure text from a ``Hang`` (local or combined across nodes): the headline names the odd
rank(s) first and where they are, then every rank's stack with identical stacks grouped,
the native frames where they say more than the Python ones (a rank inside a C call), the
/proc view of each rank, and where the full dumps are. It works with no stacks at all
(ptrace denied) and then says why.
"""

from __future__ import annotations

from collections.abc import Sequence

from launchx.spans import ranks_word
from launchx.watch.frames import PEER_WAITS, Frame, ProcessStack
from launchx.watch.verdict import Hang, RankView, StackGroup, Straggler

MAX_FRAMES = 12
MAX_GROUPS = 12
MAX_PROC_LINES = 32  # odd ranks come first, so they are always shown


def _labels(views: Sequence[RankView]) -> str:
    shown = [v.who.label() for v in views[:3]]
    more = f" and {len(views) - 3} more" if len(views) > 3 else ""
    return ", ".join(shown) + more


def _proc_where(v: RankView) -> str:
    if v.exited:
        return "it has exited"
    wait = f" in {v.wchan}" if v.wchan else ""
    return f"no stack; /proc shows state {v.state}{wait}"


def _where(v: RankView) -> str:
    return v.where if v.where else _proc_where(v)


def collective_name(frames: Sequence[Frame]) -> str:
    """The call the waiting ranks sit in, as the script wrote it (``all_reduce``)."""
    for f in frames:
        if not f.native and "torch/distributed/" in f.filename and "<locals>" not in f.name:
            return f.name
    for f in frames:
        if f.native and "c10d::Reducer" in f.name:
            return "gradient all-reduce (DDP backward)"
    for f in frames:
        if f.native and "c10d::" in f.name:
            return f.name.split("(")[0]
    return "collective"


def headline(hang: Hang) -> str:
    odd = [v for v in hang.views if v.who.rank in hang.odd]
    others = [v for v in hang.views if v.who.rank not in hang.odd]
    if odd and odd[0].exited:
        return f"{_labels(odd)} exited while the {len(others)} other rank(s) wait"
    if odd and others:
        major = _largest_group(hang.groups, exclude=hang.odd)
        verb = "has" if len(odd) == 1 else "have"
        n = len(others)
        other_word = f"the {n} other ranks wait" if n > 1 else "the other rank waits"
        if major is not None and major.category in PEER_WAITS:
            call = (
                collective_name(major.frames)
                if major.category == "collective"
                else "device synchronisation"
            )
            return f"{_labels(odd)} {verb} not reached the {call} that {other_word} in; " + (
                f"it is in {_where(odd[0])}" if len(odd) == 1 else _odd_places(odd)
            )
        where_major = major.where if major is not None and major.where else _where(others[0])
        verb = "stands" if len(odd) == 1 else "stand"
        others_word = ranks_word([v.who.rank for v in others])
        return (
            f"{_labels(odd)} {verb} out: {_odd_places(odd)}; "
            f"{others_word} {'is' if len(others) == 1 else 'are'} in {where_major}"
        )
    if not any(v.category is not None for v in hang.views):
        why = f" ({hang.stacks_note})" if hang.stacks_note else ""
        return (
            f"no rank has made progress for {hang.quiet_s:.0f} s and none stands out in "
            f"/proc; without stacks launchx cannot tell which one stopped first{why}"
        )
    return "every rank is stuck and none stands out: " + "; ".join(
        f"{ranks_word(g.ranks)} in {g.where}" for g in hang.groups
    )


def _odd_places(odd: Sequence[RankView]) -> str:
    return "; ".join(f"rank {v.who.rank} is in {_where(v)}" for v in odd)


def _largest_group(groups: Sequence[StackGroup], exclude: Sequence[int]) -> StackGroup | None:
    left = [g for g in groups if not set(g.ranks) & set(exclude)]
    return max(left, key=lambda g: len(g.ranks)) if left else None


def _frame_lines(frames: Sequence[Frame], limit: int) -> list[str]:
    native_head: list[Frame] = []
    for f in frames:
        if not f.native:
            break
        if not f.name.startswith("0x"):
            native_head.append(f)
    python = [f for f in frames if not f.native]
    lines = [f"[native] {f.name[:120]}" for f in native_head[:3]]
    lines += [f.text() for f in python[: max(1, limit - len(lines))]]
    hidden = len(python) - (limit - min(3, len(native_head)))
    if hidden > 0:
        lines.append(f"... {hidden} more")
    return lines


def render_hang(
    hang: Hang,
    *,
    dump_dir: str | None = None,
    flight_ranks: Sequence[int] = (),
    max_frames: int = MAX_FRAMES,
) -> str:
    t = hang.timeout
    out = [
        f"launchx: hang: no rank has made progress for {hang.quiet_s:.0f} s "
        f"(hang timeout {t.seconds:g} s, {t.source}: {t.detail})",
        f"  {headline(hang)}",
    ]
    if hang.groups:
        source = sorted({v.source for v in hang.views if v.source})
        out.append(f"  stacks (main thread, innermost first; from {', '.join(source) or '?'}):")
        for g in hang.groups[:MAX_GROUPS]:
            out.append(f"    {ranks_word(g.ranks)} [{g.category}]: {g.where}")
            out += [f"        {line}" for line in _frame_lines(g.frames, max_frames)]
        if len(hang.groups) > MAX_GROUPS:
            out.append(f"    ... {len(hang.groups) - MAX_GROUPS} more stack groups in the dumps")
    missing = [v.who.rank for v in hang.views if v.category is None]
    if missing and hang.groups:
        out.append(f"    {ranks_word(missing)}: no stack")
    if hang.stacks_note:
        out.append(f"  no stacks from outside: {hang.stacks_note}")
    out.append("  /proc (quiet for, main thread state and kernel wait, CPU, I/O):")
    for v in hang.views[:MAX_PROC_LINES]:
        state = "exited" if v.exited else f"{v.state} {v.wchan or '-'}"
        out.append(
            f"    {v.who.label()}: {v.age_s:.0f} s, {state}, "
            f"cpu {100 * v.cpu_rate:.1f} %, io {v.io_rate / 1024:.0f} KiB/s"
        )
    if len(hang.views) > MAX_PROC_LINES:
        out.append(f"    ... {len(hang.views) - MAX_PROC_LINES} more ranks in the dumps")
    if flight_ranks:
        out.append(f"  flight recorder dumps asked of {ranks_word(list(flight_ranks))}")
    if dump_dir:
        out.append(f"  full dumps: {dump_dir}")
    return "\n".join(out) + "\n"


def render_straggler(s: Straggler) -> str:
    slow = [v.who.rank for v in s.ranks]
    waiting = [v.who.rank for v in s.waiting]
    where = "; ".join(f"rank {v.who.rank} is in {_where(v)}" for v in s.ranks)
    waits_in = next((v.where for v in s.waiting if v.where), None)
    wait_text = f" (they wait in {waits_in})" if waits_in else ""
    return (
        f"launchx: straggler: {ranks_word(slow)} kept {ranks_word(waiting)} waiting for "
        f"{s.waited_s:.0f} s{wait_text}; {where}. Slow, not hung: the run goes on\n"
    )


def format_stack(stack: ProcessStack) -> str:
    """A whole dump as text, every thread (for the files in the hang directory)."""
    kind = f"{stack.source}{' --native' if stack.native else ''}"
    out = [f"pid {stack.pid} ({kind})"]
    for th in stack.threads:
        flags = " main" if th.main else ""
        flags += "" if th.active is None else (" active" if th.active else " idle")
        out.append(f"  thread {th.thread_id} {th.name!r}{flags}:")
        out += [f"    {f.text()}" for f in th.frames if not f.name.startswith("0x")]
    return "\n".join(out) + "\n"
