"""The training step a line of output shows, and whether a retry really resumed.

launchx offers each retry the newest checkpoint (``LAUNCHX_RESUME_FROM``, and the script's
``--resume-arg``), but only the script decides whether to load it: an ordinary Trainer
script that reads neither starts again from step 0. The output says which happened, in
the forms the frameworks print (``reference/frameworks.md`` §4, §8):

* tqdm bars (HF Trainer, most scripts): ``13/30 [00:01<00:02, 9.1it/s]``. A bar is drawn
  at ``0/N`` when it is created, so that frame says nothing; the first frame after it
  does: a resumed HF Trainer jumps from ``0/30`` to ``11/30`` or later.
* Lightning's bars: tqdm ``Epoch 2:  60%|██████    | 12/20 […]`` or Rich
  ``Epoch 2/-2 ━━━╸ 12/20 0:00:00 • …``: the batch *within the epoch* on this rank, so a
  global step only follows from the epoch and the epoch's length.
* step lines: ``step 300``, ``step: 300``, ``global_step=300``, ``Step 300/1000``,
  ``iter 300``, ``iteration 300/ 1000 |`` (Megatron-LM), ``[Rank 0] step=300, skipped=0``
  (DeepSpeed), torchtitan's ``step:  300  loss: …``, nanoGPT's ``iter 300: loss …`` and
  ``step 300: train loss …``;
* the HF Trainer's own resume line (``TRANSFORMERS_VERBOSITY=info``):
  ``Resuming training from checkpoint with epoch 0 and global step 10``.

Pure: text in, numbers out. Rank prefixes (``[r0]: ``, ``[rank0]:``, timestamps) are
skipped; the caller decides which rank's lines to feed (rank 0's draw the bars).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from launchx.loglines import ANSI

Kind = Literal["bar", "epoch-bar", "step", "resume"]


@dataclass(frozen=True)
class Progress:
    """A step seen in one line of output."""

    kind: Kind
    step: int  # the count the line shows (for an epoch bar: the batch within the epoch)
    total: int | None = None  # the bar's (or line's) total, when it shows one
    epoch: int | None = None  # Lightning's epoch, for an epoch bar
    desc: str = ""  # a bar's description ("Epoch 2", "Writing model shards", "")

    @property
    def global_step(self) -> int | None:
        """The step of the whole run; None when the line cannot say (an epoch bar
        without its epoch or its length, e.g. Lightning's ``Training: 11/?`` after a
        resume)."""
        if self.kind != "epoch-bar":
            return self.step
        if self.epoch is None or self.total is None:
            return None
        return self.epoch * self.total + self.step

    @property
    def training(self) -> bool:
        """Whether it counts training steps. A bar without a description (the HF
        Trainer's, a bare ``tqdm(range(n))``) or one that names training, an epoch, steps
        or iterations does; the others (``Loading checkpoint shards``, ``Writing model
        shards``, ``Map``, ``Validation``, ``Sanity Checking``) count something else."""
        if self.kind in ("step", "resume"):
            return True
        return not self.desc or _TRAINING_DESC.search(self.desc) is not None

    @property
    def creation_frame(self) -> bool:
        """A bar's first frame, drawn at 0 whatever step training starts from."""
        return self.kind in ("bar", "epoch-bar") and self.step == 0


# Leading noise: rank prefixes and log headers, in any order they are stacked.
_LEAD = re.compile(
    r"^(?:\s*(?:\[[^\]\n]{0,40}\]:?"  # [r0]: [rank0]: [transformers] [2024-01-01 10:00]
    r"|\d{4}-\d\d-\d\d[T ][\d:.,]+Z?"  # 2024-01-01 10:00:00,123
    r"|[IWEF]\d{4} [\d:.]+ +\d+ [\w./-]+:\d+\]"  # glog: I1124 05:14:39.99   123 api.py:10]
    r"|\(\w+ pid=\d+\)"  # (Worker pid=123)
    r"|\d{1,5}:)\s*)*"  # srun --label: "0: "
)
_NUM = r"(\d{1,12})"

# tqdm's default format: ``{desc}: {pct}%|{bar}| {n}/{total} [{elapsed}<{remaining}, …]``,
# and ``{desc}: {n}it [{elapsed}, …]`` when the total is unknown.
_TQDM = re.compile(
    r"(?P<desc>[^|\r\n]*?)\s*(?:\d{1,3}%)?\|[^|\r\n]*\|\s*"
    r"(?P<n>\d{1,12})/(?P<total>\d{1,12}|\?)\s*\[[^\]\r\n]*\]"
)
_TQDM_NOTOTAL = re.compile(r"(?P<desc>[^|\r\n]*?):?\s*(?P<n>\d{1,12})it\s*\[[\d:]+,[^\]]*\]")
# Rich (Lightning's bar when rich is installed): ``Epoch 0/-2 ━━━━╸      12/30 0:00:00 •``
_RICH = re.compile(
    r"(?P<desc>Epoch\s+\d+(?:/-?\d+)?|Training|Validation\w*|Sanity Checking\w*)\s+"
    r"[━╸╺\s]*\s(?P<n>\d{1,12})/(?P<total>\d{1,12}|\?)\s"
)
_EPOCH = re.compile(r"^Epoch\s+(\d{1,9})\b")
_TRAINING_DESC = re.compile(r"train|epoch|step|iter", re.IGNORECASE)
_STEP_KEYS = r"(?:global[_ ]step|step|iter(?:ation)?)"
# A step key at the start of the line or after a separator, never inside a sentence
# ("taking a step 3 times" is not a step).
_STEP = re.compile(
    rf"(?:^|[|,;]\s*|\s-\s+|\s{{2,}}){_STEP_KEYS}\s*(?:[:=#]\s*|\s+)"
    rf"{_NUM}(?:\s*/\s*(?P<total>\d{{1,12}}))?(?![\d.%])",
    re.IGNORECASE,
)
_HF_RESUME = re.compile(
    rf"(?:Resuming training from checkpoint with epoch \d+ and|Continuing training from)"
    rf" global step {_NUM}"
)


def strip_lead(line: str) -> str:
    """The line without ANSI codes, rank prefixes and log headers."""
    text = ANSI.sub("", line) if "\x1b" in line else line
    return _LEAD.sub("", text.rstrip("\r\n"), count=1)


def step_of(line: str) -> Progress | None:
    """The step one line of output shows, or None."""
    text = strip_lead(line)
    if not text:
        return None
    if (m := _HF_RESUME.search(text)) is not None:
        return Progress("resume", int(m.group(1)))
    for pattern in (_TQDM, _RICH, _TQDM_NOTOTAL):
        m = pattern.search(text)
        if m is not None:
            return _bar(m)
    m = _STEP.search(text)
    if m is not None:
        total = m.group("total")
        return Progress("step", int(m.group(1)), int(total) if total else None)
    return None


def _bar(m: re.Match[str]) -> Progress:
    desc = m.group("desc").strip().rstrip(":").rstrip()
    n = int(m.group("n"))
    total_text = m.groupdict().get("total")
    total = int(total_text) if total_text and total_text != "?" else None
    epoch = _EPOCH.match(desc)
    if epoch is not None:
        return Progress("epoch-bar", n, total, int(epoch.group(1)), desc)
    if desc.startswith(("Training", "Validation", "Sanity Checking")):
        return Progress("epoch-bar", n, total, None, desc)  # Lightning, without its epoch
    return Progress("bar", n, total, None, desc)


@dataclass
class StartTracker:
    """Where an attempt started training, from its lines as they arrive.

    Keeps the first line that shows a training step: a bar's creation frame at 0 does
    not count (it is drawn before the resumed position is known), nor do bars of other
    work (``Loading checkpoint shards: 2/2``), nor Lightning epoch bars that do not say
    their epoch and length."""

    first: Progress | None = None
    line: str | None = None

    def feed(self, line: str) -> Progress | None:
        """Read one line; the first step seen so far."""
        if self.first is not None:
            return self.first
        seen = step_of(line)
        if seen is None or not seen.training or seen.creation_frame:
            return None
        if seen.global_step is None:
            return None
        self.first, self.line = seen, strip_lead(line)
        return seen


@dataclass(frozen=True)
class RestartWarning:
    """A retry that trained from before the checkpoint launchx offered it."""

    offered: str  # the checkpoint's path
    offered_step: int
    started_at: int
    evidence: str  # the line that shows it

    @property
    def message(self) -> str:
        return (
            f"the retry did not resume from the checkpoint launchx offered "
            f"({self.offered}, step {self.offered_step}): its output shows step "
            f"{self.started_at} ({self.evidence.strip()[:120]!r}), so it trained from the "
            "start (or from an older checkpoint of its own)"
        )


def check_resumed(
    tracker: StartTracker, offered: str | None, offered_step: int | None
) -> RestartWarning | None:
    """A warning when an attempt that was offered a checkpoint started before it.

    Only with evidence: the attempt showed a step, and the checkpoint's step is known and
    above 0 (a ``last.ckpt`` alone, or nanoGPT's ``ckpt.pt``, has no step in its name).
    A bar throttled by tqdm may show a later step than the real start, never an earlier
    one, so "earlier than offered" is always true when it is reported."""
    seen = tracker.first
    if offered is None or not offered_step or seen is None:
        return None
    started = seen.global_step
    if started is None or started >= offered_step:
        return None
    return RestartWarning(offered, offered_step, started, tracker.line or "")
