"""Hang detection for one attempt, with zero changes to the training script.

Modules, each with one job (import what you need; nothing here imports torch):

* ``procfs``: progress evidence from /proc (CPU, I/O, state, kernel wait) and the ranks.
* ``frames``: stacks as data, and what a stack means (collective, sync, lock, running).
* ``stacks``: py-spy from outside; ``hook``: the faulthandler fallback without ptrace.
* ``verdict``: pure rules (healthy, suspect, straggler, hang) and ``--hang-timeout``.
* ``report``: the hang block a person reads.
* ``nodes``: per-node summaries and their combination into one verdict.
* ``flight``: PyTorch flight-recorder settings and on-demand dumps (NCCL).
* ``monitor``: the thread that ties them together for one attempt.
"""
