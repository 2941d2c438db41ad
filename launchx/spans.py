"""Sets of ranks or node numbers the way people write them: ``0-4,6,9-11``.

One spelling for every report that names ranks (the diagnosis, the hang report) or nodes
(the preflight), so a user reads the same thing everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def spans(numbers: Iterable[int]) -> str:
    """``[0, 1, 2, 5, 7, 8]`` -> ``0-2,5,7-8`` (sorted, duplicates dropped; "" for none)."""
    ordered = sorted(set(numbers))
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(parts)


def ranks_word(ranks: Sequence[int]) -> str:
    """``rank 3`` or ``ranks 0-4,6``."""
    return f"rank {ranks[0]}" if len(set(ranks)) == 1 else f"ranks {spans(ranks)}"
