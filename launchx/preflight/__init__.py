"""Preflight across nodes: find the odd node and the slow link before the job starts.

``check(res, ...)`` is the entry point (``launchx doctor`` with several nodes, ``launchx run
--preflight``, the preflight step of a batch script). The modules, purest first:

- ``summary``: what one node tells node 0 (its facts, as the job resolved them);
- ``compare``: every node's facts side by side → a ``report.Report``;
- ``report``: the report as text (groups, not rows) and as JSON;
- ``comm``: the link test as data (rank layout, hypercube rounds, bandwidths);
- ``sweep``: starts this node's ranks of the link test; ``worker``: one rank (torch);
- ``meet``: the nodes meet over ``launchx.channel``; node 0 decides.

Importing this package imports nothing else: the link test's ranks import
``launchx.preflight.worker`` and must start in the time torch takes to load.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from launchx.resolve import Resolution


def check(
    res: Resolution,
    *,
    join_timeout_s: float = 60.0,
    comm_test: bool = True,
    as_json: bool = False,
    out: IO[str] | None = None,
    run_id: str | None = None,
    command: str = "launchx doctor",
) -> int:
    """Preflight every node of the job ``res`` describes: 0 all well, 2 errors found.

    Call it on every node with the same options (see ``meet.check``); ``command`` is what
    the nodes run, named in the fixes."""
    from launchx.preflight import meet

    return meet.check(
        res,
        join_timeout_s=join_timeout_s,
        comm_test=comm_test,
        as_json=as_json,
        out=out,
        run_id=run_id,
        command=command,
    )
