"""How often ``launchx diagnose`` is right on real failure logs, and how fast it reads.

    .venv/bin/python benchmarks/diagnose.py [--misses] [--big-mb 100] [--skip-stream]

For each part of the corpus (``tests/fixtures/logs/dev`` and ``.../heldout``, split by
SPLIT.md), every log's body (its three header lines removed) goes through
``failures.diagnose_logs`` and is compared with its ``# expect:`` line:

- *category*: the primary category ("unknown" when nothing was found) equals the label.
  A SIGKILL that only the thread shows to be the host's OOM killer is labelled
  ``host_oom_killed`` and named ``killed`` by launchx, which cannot see the thread (issue 10's
  rule: ``killed`` unless the log shows OOM text); the "with killed~oom" figure counts those
  as agreeing, the plain figure does not.
- *retry decision*: what ``launchx diagnose`` says of the log alone (``retryable``) equals
  the label; ``undecided`` counts as right when launchx does not retry.
- *deterministic called retryable*: labelled ``retryable=false`` and launchx would retry.
  Must be 0. The other two kinds of wrong decision are counted too: labelled ``undecided``
  and retried, and labelled ``true`` and not retried.
- *from a checkpoint*: a collective or rendezvous timeout, a closed socket, an IB transfer
  error, a bare SIGKILL (``failure_rules.RETRIED_ON_PROGRESS``) is not retryable on the log's
  word, but ``launchx run`` retries it when a complete checkpoint exists after the attempt,
  which no log shows.
  Those logs are counted by label, so that what ``launchx run`` would do with a checkpoint
  is in the numbers too (its labelled-deterministic ones would be retried once, from it).
- *root rank*: where the label names one, the primary's rank.
- *time per MB*: the whole part, in process.

Then a synthetic 100 MB log (eight ranks of progress lines, tqdm frames, an NCCL INFO flood,
a KeyError with its collateral and torchrun's summary at the end) and the same bytes as a
directory of eight per-rank files go through the real ``launchx diagnose`` in a subprocess:
wall time and peak RSS, against ``launchx diagnose`` of a 1 KB log measured in the same run
(start-up and imports), and a quarter-size log to show memory does not grow with the log;
then the 100 MB log gzipped (as logrotate leaves it; read through gzip as a stream, against
the plain log's time); then the 100 MB log and its rank files pinned to one core; then the
same two without Hyperscan (the ``bytes.find`` pass per anchor that a machine without its
wheel runs, with a helper process searching half the anchors on the second core), the
one-pass search's baseline.

``--misses`` lists the development part's misses. The held-out part is only ever counted:
its logs measure rules that were not written from them, so its misses are not printed
(pass ``--heldout-misses`` to see them when the rules are final).
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "logs"
EXPECT = re.compile(
    r"# expect: category=(?P<category>[a-z_]+) retryable=(?P<retryable>true|false|undecided)"
    r" root_rank=(?P<rank>\d+|none)"
)
EQUIVALENT = {("host_oom_killed", "killed")}


@dataclass(frozen=True)
class Case:
    name: str
    body: str
    category: str
    retryable: str
    root_rank: int | None


@dataclass
class Score:
    logs: int = 0
    category: int = 0
    category_lenient: int = 0
    decision: int = 0
    det_retryable: int = 0
    undecided_retried: int = 0
    transient_not_retried: int = 0
    from_checkpoint: dict[str, int] = field(default_factory=dict)  # label -> logs
    ranked: int = 0
    rank: int = 0
    unlabelled_named: int = 0  # a rank named on a log whose label names none
    unlabelled: int = 0
    nbytes: int = 0
    seconds: float = 0.0
    misses: list[str] = field(default_factory=list)
    codes: dict[str, str | None] = field(default_factory=dict)  # log -> the primary's code

    def pct(self, n: int, of: int | None = None) -> str:
        total = self.logs if of is None else of
        return f"{100.0 * n / total:5.1f} % ({n}/{total})" if total else "n/a"


def load(part: str) -> list[Case]:
    cases = []
    for path in sorted((CORPUS / part).glob("*.log")):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        m = EXPECT.fullmatch(lines[1].strip())
        if m is None:
            raise SystemExit(f"{path}: bad expect line")
        rank = None if m["rank"] == "none" else int(m["rank"])
        cases.append(Case(path.name, "".join(lines[3:]), m["category"], m["retryable"], rank))
    return cases


def score(cases: list[Case]) -> Score:
    from launchx import failures

    s = Score()
    failures.diagnose_logs(["warm-up: compile the rules before timing"])
    for case in cases:
        start = time.perf_counter()
        report = failures.diagnose_logs([case.body])
        s.seconds += time.perf_counter() - start
        s.nbytes += len(case.body.encode())
        p = report.primary
        got = p.category if p is not None and report.found else "unknown"
        s.codes[case.name] = p.code if p is not None and report.found else None
        retry = bool(p.retryable) if p is not None else False
        s.logs += 1
        ok_cat = got == case.category
        s.category += ok_cat
        s.category_lenient += ok_cat or (case.category, got) in EQUIVALENT
        want_retry = case.retryable == "true"
        ok_retry = retry == want_retry
        s.decision += ok_retry
        s.det_retryable += case.retryable == "false" and retry
        s.undecided_retried += case.retryable == "undecided" and retry
        s.transient_not_retried += case.retryable == "true" and not retry
        if p is not None and p.retry_on_progress:
            s.from_checkpoint[case.retryable] = s.from_checkpoint.get(case.retryable, 0) + 1
        if case.root_rank is not None:
            s.ranked += 1
            s.rank += p is not None and p.rank == case.root_rank
        elif report.found:
            # the label names no root (every rank failed alike, or the log does not say which
            # was first): a rank named there is not scored right or wrong, only counted
            s.unlabelled += 1
            s.unlabelled_named += p is not None and p.rank is not None
        if not (ok_cat and ok_retry):
            s.misses.append(
                f"{case.name}: expected {case.category}/{case.retryable}, got {got}/"
                f"{'retry' if retry else 'no retry'}"
            )
    return s


def _print(part: str, s: Score, misses: bool) -> None:
    mb = s.nbytes / 1e6
    print(f"\n{part}: {s.logs} logs, {mb:.2f} MB")
    print(f"  category accuracy          {s.pct(s.category)}")
    print(f"    with killed~oom          {s.pct(s.category_lenient)}")
    print(f"  retry-decision accuracy    {s.pct(s.decision)}")
    print(f"  deterministic → retryable  {s.det_retryable}")
    print(f"  undecided → retried        {s.undecided_retried}")
    print(f"  transient → not retried    {s.transient_not_retried}")
    by_label = ", ".join(
        f"{s.from_checkpoint.get(k, 0)} {w}"
        for k, w in (("false", "deterministic"), ("undecided", "undecided"), ("true", "transient"))
    )
    print(f"  retried from a checkpoint  {by_label}")
    print(f"  root rank (where labelled) {s.pct(s.rank, s.ranked)}")
    print(f"  a rank named, label: none  {s.pct(s.unlabelled_named, s.unlabelled)}")
    print(f"  time                       {s.seconds * 1000 / max(mb, 1e-9):.1f} ms/MB in process")
    if misses:
        for m in s.misses:
            print(f"    miss: {m}")


# --------------------------------------------------------------------------- streams

_WORDS = ["loss", "lr", "grad_norm", "tokens/s", "step", "epoch", "throughput", "mfu"]


def _training_lines(rng: random.Random, rank: int, n: int) -> list[str]:
    out = []
    for i in range(n):
        r = i % 200
        if r == 0:
            out.append(
                f"[rank{rank}]: {i % 100:3d}%|█████     | {i}/100000 [01:02<03:04, 31.3it/s]\r"
            )
        elif r == 1:
            out.append(
                f"[rank{rank}]:[W1124 05:{i % 60:02d}:01.5 reducer.cpp:1529] Warning: grad strides "
                "do not match bucket view strides (function operator())"
            )
        else:
            vals = " ".join(f"{w} {rng.random():.4f}" for w in _WORDS)
            out.append(f"[rank{rank}]:2025-01-01 10:{i % 60:02d}:{i % 60:02d},123 INFO {vals}")
    return out


_FAILURE = "\n".join(
    [
        "[rank3]: Traceback (most recent call last):",
        '[rank3]:   File "/work/train.py", line 212, in <module>',
        "[rank3]:     batch = next(loader)",
        "[rank3]: KeyError: 'labels'",
        "[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] "
        "Connection closed by peer [10.0.0.3]:28048",
        "E1124 05:22:37.324000 23781 torch/distributed/elastic/multiprocessing/api.py:1002] "
        "failed (exitcode: 1) local_rank: 3 (pid: 23787) of binary: /usr/bin/python",
        "============================================================",
        "train.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
        "[1]:",
        "  time      : 2026-11-24_05:22:37",
        "  host      : node-a",
        "  rank      : 0 (local_rank: 0)",
        "  exitcode  : 1 (pid: 23786)",
        "  error_file: <N/A>",
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2026-11-24_05:22:37",
        "  host      : node-a",
        "  rank      : 3 (local_rank: 3)",
        "  exitcode  : 1 (pid: 23787)",
        "  error_file: <N/A>",
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        "============================================================",
        "",
    ]
)


def _write_big(path: Path, mb: int, ranks: int = 8) -> None:
    rng = random.Random(12)
    target = mb * 1_000_000
    with path.open("w", encoding="utf-8") as fh:
        for i in range(10_000):
            pid = 1000 + i % 8
            fh.write(f"node-a:{pid}:{pid} [{i % 8}] NCCL INFO Channel {i % 32:02d}/32 : 0 1 2 3\n")
        written = fh.tell()
        while written < target - len(_FAILURE):
            block = _training_lines(rng, rng.randrange(ranks), 400)
            text = "\n".join(block) + "\n"
            fh.write(text)
            written += len(text.encode())
        fh.write(_FAILURE)


def _write_dir(path: Path, mb: int, ranks: int = 8) -> None:
    rng = random.Random(13)
    path.mkdir(parents=True, exist_ok=True)
    for rank in range(ranks):
        target = mb * 1_000_000 // ranks
        with (path / f"rank-{rank}.log").open("w", encoding="utf-8") as fh:
            written = 0
            while written < target:
                text = "\n".join(_training_lines(rng, rank, 400)) + "\n"
                fh.write(text)
                written += len(text.encode())
            if rank == 3:
                fh.write("\n".join(ln for ln in _FAILURE.splitlines() if "[rank3]" in ln) + "\n")
            elif rank == 0:
                fh.write(_FAILURE.splitlines()[4] + "\n")


def _write_dense(path: Path, mb: int) -> None:
    """A log made of tracebacks: a data error every few lines, each with its own numbers
    (the worst case for the frame look-back above every exception line)."""
    target = mb * 1_000_000
    with path.open("w", encoding="utf-8") as fh:
        i = 0
        while fh.tell() < target:
            fh.write(
                f"[rank{i % 8}]: Traceback (most recent call last):\n"
                f'[rank{i % 8}]:   File "/data/train.py", line {100 + i % 50}, in collate\n'
                f"[rank{i % 8}]:     x = index[key]\n"
                f"[rank{i % 8}]: KeyError: 'sample-{i}'\n"
            )
            i += 1
        fh.write(_FAILURE)


# ``python -m launchx`` as on a machine without Hyperscan's wheel: its import fails
_NO_HYPERSCAN = (
    "import sys; sys.modules['hyperscan'] = None; sys.argv[0] = 'launchx'; "
    "from launchx.cli import main; main()"
)


def _run(
    args: list[str], one_core: bool = False, hyperscan: bool = True
) -> tuple[float, float, int, int]:
    """Wall seconds, CPU seconds (user + system, the helper process's too), peak RSS (KiB)
    and exit code of ``launchx diagnose ARGS``. CPU time is what a loaded machine cannot
    inflate. ``one_core``: pinned to one core, where launchx starts no helper;
    ``hyperscan=False``: as if Hyperscan were not installed."""
    code = (
        "import os, resource, subprocess, sys, time\n"
        + ("os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\n" if one_core else "")
        + "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
        "dt = time.perf_counter() - t\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(dt, u.ru_utime + u.ru_stime, u.ru_maxrss, p.returncode)\n"
    )
    launchx = ["-m", "launchx"] if hyperscan else ["-c", _NO_HYPERSCAN]
    cmd = [sys.executable, "-c", code, sys.executable, *launchx, "diagnose", "--json", *args]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1]), int(out[2]), int(out[3])


def _median_run(
    args: list[str], runs: int, one_core: bool = False, hyperscan: bool = True
) -> tuple[float, float, int, int]:
    results = [_run(args, one_core, hyperscan) for _ in range(runs)]
    return (
        statistics.median(r[0] for r in results),
        statistics.median(r[1] for r in results),
        max(r[2] for r in results),
        results[-1][3],
    )


def streams(big_mb: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        small = t / "small.log"
        small.write_text(_FAILURE)
        quarter, big, folder = t / "quarter.log", t / "big.log", t / "run"
        dense = t / "dense.log"
        _write_big(quarter, max(1, big_mb // 4))
        _write_big(big, big_mb)
        _write_dir(folder, big_mb)
        _write_dense(dense, max(1, big_mb // 10))
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"\nstreams (launchx diagnose --json in a subprocess, median of {runs}; load {load})")
        base_t, base_cpu, base_rss, _ = _median_run([str(small)], runs)
        print(
            f"  1 KB log (start-up)        {base_t:6.2f} s wall {base_cpu:5.2f} s cpu  "
            f"peak RSS {base_rss / 1024:6.1f} MiB"
        )
        rows = [
            (f"{max(1, big_mb // 4)} MB log", quarter),
            (f"{big_mb} MB log", big),
            (f"{big_mb} MB in 8 rank files", folder),
            (f"{max(1, big_mb // 10)} MB of tracebacks", dense),
        ]
        walls = {}
        for label, path in rows:
            dt, cpu, rss, rc = _median_run([str(path)], runs)
            walls[path] = dt
            size = sum(p.stat().st_size for p in ([path] if path.is_file() else path.iterdir()))
            per_mb = (cpu - base_cpu) * 1e3 / (size / 1e6)
            print(
                f"  {label:<26} {dt:6.2f} s wall {cpu:5.2f} s cpu  peak RSS {rss / 1024:6.1f} "
                f"MiB (+{(rss - base_rss) / 1024:5.1f})  {per_mb:5.1f} cpu ms/MB over start-up"
                f"  exit {rc}"
            )
        # the 100 MB log as logrotate compresses it: read through gzip as a stream
        packed = t / "big.log.gz"
        with big.open("rb") as src, gzip.open(packed, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        dt, cpu, rss, rc = _median_run([str(packed)], runs)
        print(
            f"  {f'{big_mb} MB log, gzip':<26} {dt:6.2f} s wall {cpu:5.2f} s cpu  peak RSS "
            f"{rss / 1024:6.1f} MiB  {dt / walls[big]:.2f}x the plain log's time  exit {rc}"
        )
        if hasattr(os, "sched_setaffinity"):
            # the same logs on one core
            for label, path in ((f"{big_mb} MB log", big), ("8 rank files", folder)):
                dt, cpu, _, _ = _median_run([str(path)], runs, one_core=True)
                print(
                    f"  {label + ', one core':<26} {dt:6.2f} s wall {cpu:5.2f} s cpu  "
                    f"two cores take {walls[path] / dt:.2f}x its time"
                )
        if importlib.util.find_spec("hyperscan") is not None:
            # the baseline: the same logs searched as where Hyperscan has no wheel
            for label, path in ((f"{big_mb} MB log", big), ("8 rank files", folder)):
                dt, cpu, _, _ = _median_run([str(path)], runs, hyperscan=False)
                print(
                    f"  {label + ', no Hyperscan':<26} {dt:6.2f} s wall {cpu:5.2f} s cpu  "
                    f"Hyperscan takes {walls[path] / dt:.2f}x its time"
                )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--misses", action="store_true", help="list the development part's misses")
    ap.add_argument("--heldout-misses", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--big-mb", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--skip-stream", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    for part, show in (("dev", args.misses), ("heldout", args.heldout_misses)):
        _print(part, score(load(part)), show)
    if not args.skip_stream:
        streams(args.big_mb, args.runs)


if __name__ == "__main__":
    main()
