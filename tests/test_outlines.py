"""Console lines from the launcher's raw output: real captured runs first (HF, Lightning,
nanoGPT under launchx; see tests/fixtures/frameworks/README.md), then each rule alone."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from launchx import failures
from launchx.outlines import (
    DEFAULT_TORCHRUN_HEADER,
    OutLine,
    OutputSplitter,
    Screen,
    bar_key,
    header_pattern,
    split_bar,
)

FIXTURES = Path(__file__).parent / "fixtures" / "frameworks"
CONSOLES = sorted(p.name for p in FIXTURES.glob("*.console"))
HEADER = re.compile(r"\[r(\d+)\]: ")


def split(data: bytes, chunk: int = 4096, **kw: object) -> list[OutLine]:
    splitter = OutputSplitter(**kw)  # type: ignore[arg-type]
    out: list[OutLine] = []
    for i in range(0, len(data), chunk):
        out += splitter.feed(data[i : i + chunk])
    return out + splitter.flush()


def shown(records: list[OutLine]) -> list[OutLine]:
    """What is printed off a terminal: neither banner lines nor live frames."""
    return [r for r in records if r.kind != "banner" and not r.live]


def final(records: list[OutLine]) -> list[OutLine]:
    return [r for r in records if not r.live]


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


# --------------------------------------------------------------------------- real runs


def test_hf_run_prints_one_line_per_bar_state_not_sixty() -> None:
    """The HF Trainer run printed 60 lines, many of them empty ``[r0]:`` and one frame
    per line; only each bar's state when something interrupted it is left."""
    raw = fixture("hf_ok.console")
    assert raw.count(b"\n") == 60
    empty_before = sum(1 for line in raw.split(b"\n") if line.strip() in (b"[r0]:", b""))
    assert empty_before >= 15
    records = final(split(raw))
    assert len(records) == 31
    assert all(r.text.strip() for r in records)
    bars = [r.text for r in records if r.kind == "bar" and bar_key(r.text) == ""]
    steps = [int(re.search(r"(\d+)/30", b).group(1)) for b in bars]  # type: ignore[union-attr]
    assert steps == sorted(steps) and steps[-1] == 30
    assert sum(1 for r in records if r.text.startswith("Writing model shards: 100%")) == 6
    assert not any("Writing model shards:   0%" in r.text for r in records)


@pytest.mark.parametrize("name", CONSOLES)
def test_no_double_prefix_and_no_blank_lines_around_bars(name: str) -> None:
    records = shown(split(fixture(name)))
    by_rank: dict[int | None, list[OutLine]] = {}
    for rec in records:
        by_rank.setdefault(rec.rank, []).append(rec)
        if rec.rank is not None:
            assert not rec.text.startswith(f"[rank{rec.rank}]"), rec
            assert not HEADER.search(rec.text), rec  # no header left inside a line
    for recs in by_rank.values():
        for before, after in itertools.pairwise(recs):
            blank_next_to_bar = (not before.text.strip() and after.kind == "bar") or (
                before.kind == "bar" and not after.text.strip()
            )
            assert not blank_next_to_bar, (before, after)
    # the only blank lines left are the ones the programs printed themselves
    assert sum(1 for r in records if not r.text.strip()) <= 3


@pytest.mark.parametrize("name", CONSOLES)
def test_every_plain_line_survives_in_order(name: str) -> None:
    """Nothing but bar frames and blank lines is dropped: each whole, single-header line
    of the input (and each launcher line outside the banner) is in the output, in order."""
    raw = fixture(name).decode()
    records = split(fixture(name))
    out_by_rank: dict[int | None, list[str]] = {}
    for rec in records:
        out_by_rank.setdefault(rec.rank, []).append(rec.text)
    for line in raw.split("\n"):
        headers = list(HEADER.finditer(line))
        if len(headers) > 1 or (headers and headers[0].start() != 0):
            continue
        rank = int(headers[0].group(1)) if headers else None
        text = line[headers[0].end() :] if headers else line
        text = re.sub(rf"^\[rank{rank}\]: ?", "", text) if rank is not None else text
        if not text.strip() or bar_key(text) is not None:
            continue
        assert text.rstrip() in out_by_rank.get(rank, []), (rank, text)


@pytest.mark.parametrize("name", [n for n in CONSOLES if "sigkill" in n])
def test_torchrun_child_failed_banner_is_marked_whole(name: str) -> None:
    records = split(fixture(name))
    banner = [r.text for r in records if r.kind == "banner"]
    assert banner[0] == "Traceback (most recent call last):"
    assert any(
        t.startswith("torch.distributed.elastic.multiprocessing.errors.ChildFailedError")
        for t in banner
    )
    assert banner[-1].startswith("=" * 20)
    assert "Root Cause (first observed failure):" in banner
    assert all(r.rank is None for r in records if r.kind == "banner")
    assert 30 <= len(banner) <= 45
    # the lines launchx still shows: the agent's one-line report and launchx's own
    texts = [r.text for r in shown(records)]
    assert any("failed (exitcode: -9) local_rank: 1" in t for t in texts)
    assert any(t.startswith("launchx: failure:") for t in texts)
    assert not any("ChildFailedError" in t for t in texts)
    # the diagnosis can still read the banner (where the run loop keeps it: the log)
    assert failures.torchrun_exit_codes("\n".join(banner)) == {1: -9, 0: -15}


def test_torchrun_traceback_of_the_signal_it_got_is_held_from_the_console() -> None:
    """Ctrl-C under launchx (torch 2.13 on this machine): the ranks' KeyboardInterrupt is
    theirs to show; torchrun's thirty lines ending in SignalException say only "got signal"."""
    agent = "/venv/lib/python3.11/site-packages/torch/distributed/elastic/agent/server/api.py"
    raw = "\n".join(
        [
            "[r1]: Traceback (most recent call last):",
            '[r1]:   File "/tmp/long.py", line 5, in <module>',
            "[r1]:     time.sleep(0.5)",
            "[r1]: KeyboardInterrupt",
            "Traceback (most recent call last):",
            '  File "<frozen runpy>", line 198, in _run_module_as_main',
            f'  File "{agent}", line 923, in _invoke_run',
            "    time.sleep(monitor_interval)",
            "           ^^^^^^^^^^^^^^^^^^^^^^^^",
            "torch.distributed.elastic.multiprocessing.api.SignalException: Process 7300 got"
            " signal: 2",
            "",
            # a second signal during torchrun's shutdown: the same again, chained
            "During handling of the above exception, another exception occurred:",
            "",
            "Traceback (most recent call last):",
            f'  File "{agent}", line 780, in _shutdown',
            "torch.distributed.elastic.multiprocessing.api.SignalException: Process 7300 got"
            " signal: 2",
            "launchx: failure: interrupted by SIGINT (not retried)",
            "",
        ]
    ).encode()
    records = split(raw, header=HEADER)
    texts = [r.text for r in shown(records)]
    assert (
        "KeyboardInterrupt" in texts
        and "launchx: failure: interrupted by SIGINT (not retried)" in texts
    )
    assert not any("SignalException" in t or "_invoke_run" in t for t in texts)
    assert not any("During handling" in t or "_shutdown" in t for t in texts)
    held = [r.text for r in records if r.kind == "banner"]
    assert held[0] == "Traceback (most recent call last):" and "SignalException" in held[-1]
    # another exception of torchrun's own is still shown
    other = raw.replace(
        b"torch.distributed.elastic.multiprocessing.api.SignalException", b"ValueError"
    )
    assert any(
        t.startswith("ValueError: Process")
        for t in (r.text for r in shown(split(other, header=HEADER)))
    )


def test_lightning_tqdm_bar_keeps_its_state_at_each_interruption() -> None:
    records = shown(split(fixture("lightning_tqdm_sigkill_resume.console")))
    bars = [r.text for r in records if r.kind == "bar"]
    assert any(b.startswith("Epoch 0:  40%") and "12/30" in b for b in bars)
    assert any(b.startswith("Training:") and "30/?" in b for b in bars)
    # 60 frames of the first attempt's bar became one line
    assert sum(1 for b in bars if b.startswith("Epoch 0:")) == 1


def test_nanogpt_lines_pass_through_unchanged() -> None:
    records = shown(split(fixture("nanogpt_sigkill_resume.console")))
    iters = [r.text for r in records if r.rank == 0 and r.text.startswith("iter ")]
    assert len(iters) == 12 + 20
    assert iters[0].startswith("iter 0: loss")


def test_a_ranks_raw_log_with_carriage_returns() -> None:
    """A rank's own stderr.log (what a direct launch prints): frames separated by \\r,
    tqdm's clears, and the cursor-up code of a nested bar."""
    raw = fixture("hf_rank0_stderr.log")
    assert raw.count(b"\r") > 10 and b"\x1b[A" in raw
    records = final(split(raw, header=None, rank=0))
    texts = [r.text for r in records]
    assert all(t.strip() for t in texts)
    assert "\r" not in "".join(texts) and "\x1b[A" not in "".join(texts)
    assert sum(1 for t in texts if t.startswith("Writing model shards: 100%")) == 2
    main = [t for t in texts if bar_key(t) == ""]
    assert [m.split("[")[0].strip() for m in main] == [
        "0%|          | 0/30",
        "33%|███▎      | 10/30",
        "40%|████      | 12/30",
        "40%|████      | 12/30",  # redrawn after the traceback, when the process ended
    ]
    assert texts[texts.index("Traceback (most recent call last):") - 1] == main[2]
    assert len(texts) < raw.count(b"\n") + raw.count(b"\r")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CONSOLES), st.lists(st.integers(1, 300), min_size=1, max_size=40))
def test_any_chunking_gives_the_same_lines(name: str, cuts: list[int]) -> None:
    """Bytes arrive in pieces of any size (a UTF-8 bar character or a header cut in two)."""
    data = fixture(name)
    whole = final(split(data, chunk=len(data)))
    splitter = OutputSplitter()
    out: list[OutLine] = []
    pos = 0
    for size in cuts:
        out += splitter.feed(data[pos : pos + size])
        pos += size
    out += splitter.feed(data[pos:])
    assert final(out + splitter.flush()) == whole


# --------------------------------------------------------------------------- rules alone


def texts(data: bytes, **kw: object) -> list[tuple[int | None, str]]:
    return [(r.rank, r.text) for r in final(split(data, chunk=7, **kw))]


def test_a_partial_line_and_its_remainder_are_one_line() -> None:
    assert texts(b"[r0]: abc[r0]: def\n") == [(0, "abcdef")]


def test_ranks_interleaving_mid_line() -> None:
    data = (
        b"[r0]:  0%|          | 0/20 [00:00<?, ?it/s][r1]: hello\n"
        b"[r0]: \n[r0]:  50%|#####     | 10/20 [00:01<00:01, 9.9it/s]\n[r0]: world\n"
    )
    assert texts(data) == [
        (1, "hello"),
        (0, " 50%|#####     | 10/20 [00:01<00:01, 9.9it/s]"),
        (0, "world"),
    ]


def test_text_glued_after_a_frame_is_its_own_line() -> None:
    data = b"[r0]:   0%|          | 0/30 [00:00<?, ?it/s]/x.py:7: UserWarning: w\n"
    assert texts(data) == [
        (0, "  0%|          | 0/30 [00:00<?, ?it/s]"),
        (0, "/x.py:7: UserWarning: w"),
    ]
    assert split_bar("no bar here") == ("no bar here", "")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b"[r1]: [rank1]: ValueError: bad\n", "ValueError: bad"),
        (
            b"[r1]: [rank1]:[W1124 05:14:39 reducer.cpp:1529] Warning: x\n",
            "[W1124 05:14:39 reducer.cpp:1529] Warning: x",
        ),
        (b"[r0]: [rank: 0] Received SIGTERM: 15\n", "Received SIGTERM: 15"),
        (b"[r1]: [rank0]: from another rank\n", "[rank0]: from another rank"),
        (b"[r1]: [rank1] no colon\n", "no colon"),
    ],
)
def test_double_rank_prefixes(line: bytes, expected: str) -> None:
    assert texts(line) == [(int(line[2:3]), expected)]


def test_blank_lines_are_kept_only_between_text() -> None:
    data = b"[r0]: a\n[r0]: \n[r0]: b\n[r0]: \n[r0]:  5%|x| 1/20 [00:00<00:01, 9.9it/s]\n"
    assert texts(data) == [(0, "a"), (0, ""), (0, "b"), (0, " 5%|x| 1/20 [00:00<00:01, 9.9it/s]")]


def test_carriage_returns_keep_the_last_state() -> None:
    data = (
        b"\rA:  33%|#| 1/3 [00:00]\rA:  67%|##| 2/3 [00:00]\r        \r"
        b"A: 100%|###| 3/3 [00:01]\nnext\n"
    )
    assert texts(data, header=None, rank=3) == [(3, "A: 100%|###| 3/3 [00:01]"), (3, "next")]
    assert texts(b"\r      \r\nreal\n", header=None) == [(None, "real")]  # a cleared line


def test_an_endless_bar_line_stays_small() -> None:
    """A bar redrawn for hours without a newline keeps only its newest frames."""
    splitter = OutputSplitter(header=None, rank=0)
    frames = [f"\r {n // 1000}%|#| {n}/100000 [00:00<00:01, 9it/s]" for n in range(100000)]
    for i in range(0, len(frames), 500):
        splitter.feed("".join(frames[i : i + 500]).encode())
        assert len(splitter._pending) < 20000
    assert [r.text for r in splitter.flush()] == [frames[-1][1:]]


def test_cursor_up_cancels_the_newline_tqdm_moved_with() -> None:
    data = (
        b"x\n\n\rW:   0%|| 0/1 [00:00<?, ?it/s]\x1b[A\rW: 100%|#| 1/1 [00:00<00:00]\n"
        b"\x1b[31mred\x1b[0m\n"
    )
    assert texts(data, header=None, rank=0) == [
        (0, "x"),
        (0, "W: 100%|#| 1/1 [00:00<00:00]"),
        (0, "\x1b[31mred\x1b[0m"),  # colours stay
    ]


def test_the_launcher_speaking_shows_what_each_rank_drew_last() -> None:
    data = b"[r0]:  40%|####| 4/10 [00:01<00:01, 4it/s]\nW1124 torch/api.py:1] Sending process 1\n"
    assert texts(data) == [
        (0, " 40%|####| 4/10 [00:01<00:01, 4it/s]"),
        (None, "W1124 torch/api.py:1] Sending process 1"),
    ]


def test_flush_returns_the_unfinished_line_and_the_held_bar() -> None:
    splitter = OutputSplitter()
    live = splitter.feed(b"[r0]:  10%|#| 1/10 [00:00<00:01, 9it/s]\n[r1]: no newline")
    assert [(r.text, r.live) for r in live] == [(" 10%|#| 1/10 [00:00<00:01, 9it/s]", True)]
    assert [(r.rank, r.text, r.kind) for r in splitter.flush()] == [
        (0, " 10%|#| 1/10 [00:00<00:01, 9it/s]", "bar"),
        (1, "no newline", "text"),
    ]


def test_bars_are_shown_every_so_often_off_a_terminal() -> None:
    splitter = OutputSplitter(header=None, rank=0)
    screen = Screen(tty=False, bar_every_s=30.0)
    frame = "\r {p}%|#| {n}/100 [00:00<00:01, 9it/s]"
    assert screen.lines(splitter.feed(frame.format(p=1, n=1).encode()), now=0.0) == ""
    assert screen.lines(splitter.feed(frame.format(p=2, n=2).encode()), now=29.0) == ""
    printed = screen.lines(splitter.feed(frame.format(p=3, n=3).encode()), now=31.0)
    assert printed == "[r0]:  3%|#| 3/100 [00:00<00:01, 9it/s]\n"
    never = Screen(tty=False, bar_every_s=None)
    assert never.lines(splitter.feed(frame.format(p=4, n=4).encode()), now=1e9) == ""
    assert never.lines(splitter.feed(frame.format(p=5, n=5).encode())) == ""


@pytest.mark.parametrize(
    ("template", "line", "rank"),
    [
        ("[r${rank}]: ", "[r12]: x", 12),
        ("[${role_name}|r${rank}|l${local_rank}]:", "[default|r3|l1]:x", 3),
        ("${rank}> ", "7> x", 7),
    ],
)
def test_header_patterns(template: str, line: str, rank: int) -> None:
    m = header_pattern(template).match(line)
    assert m is not None and int(m.group(1)) == rank
    assert DEFAULT_TORCHRUN_HEADER.match("[default4]:x").group(1) == "4"  # type: ignore[union-attr]
    with pytest.raises(ValueError):
        header_pattern("[${role_name}]:")


def test_torchruns_default_header() -> None:
    assert texts(b"[default1]:hi\n", header=DEFAULT_TORCHRUN_HEADER) == [(1, "hi")]


TABLE = [
    "=" * 60,
    "train.py FAILED",
    "-" * 60,
    "Failures:",
    "  <NO_OTHER_FAILURES>",
    "-" * 60,
    "Root Cause (first observed failure):",
    "[0]:",
    "  rank      : 1 (local_rank: 1)",
    "  exitcode  : -9 (pid: 5)  (SIGKILL)",
    "=" * 60,
]


def lines(*rows: str) -> bytes:
    return ("\n".join(rows) + "\n").encode()


def kinds(data: bytes, **kw: object) -> list[tuple[str, str]]:
    return [(r.kind, r.text) for r in final(split(data, chunk=5, **kw))]


def test_the_summary_table_alone_is_a_banner() -> None:
    out = kinds(lines("before", *TABLE, "after"))
    assert out[0] == ("text", "before") and out[-1] == ("text", "after")
    assert [k for k, _ in out[1:-1]] == ["banner"] * len(TABLE)


def test_another_traceback_of_the_launcher_stays_on_the_console() -> None:
    tb = [
        "Traceback (most recent call last):",
        '  File "torch/distributed/run.py", line 10, in main',
        "    run(args)",
        "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError: timed out",
        "next",
    ]
    assert kinds(lines(*tb)) == [("text", t) for t in tb]


def test_a_border_of_someone_elses_is_not_held() -> None:
    rows = ["=" * 30, "Results", "=" * 30, "done"]
    assert kinds(lines(*rows), header=None) == [("text", t) for t in rows]


def test_an_endless_traceback_is_released() -> None:
    rows = ["Traceback (most recent call last):", *["  File x"] * 450, "X: y"]
    out = kinds(lines(*rows))
    assert len(out) == len(rows) and {k for k, _ in out} == {"text"}


def test_a_banner_cut_off_by_the_end_of_the_stream() -> None:
    rows = [
        "Traceback (most recent call last):",
        "  File x",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        *TABLE[:4],
    ]
    assert {k for k, _ in kinds(lines(*rows))} == {"banner"}


# --------------------------------------------------------------------------- terminal


def terminal(text: str) -> list[str]:
    """The screen a terminal shows for ``text``: \\r, \\n, erase to the end of the line
    (ESC[K) or of the screen (ESC[J), cursor up (ESC[A); nothing else is expected."""
    rows = [""]
    row = col = 0
    i = 0
    while i < len(text):
        if text.startswith("\x1b[K", i):
            rows[row] = rows[row][:col]
        elif text.startswith("\x1b[J", i):
            rows[row] = rows[row][:col]
            del rows[row + 1 :]
        elif text.startswith("\x1b[A", i):
            row = max(0, row - 1)
        else:
            ch = text[i]
            assert ch != "\x1b", f"unexpected escape at {text[i : i + 6]!r}"
            if ch == "\n":
                row += 1
                col = 0
                if row == len(rows):
                    rows.append("")
            elif ch == "\r":
                col = 0
            else:
                line = rows[row].ljust(col)
                rows[row] = line[:col] + ch + line[col + 1 :]
                col += 1
            i += 1
            continue
        i += 3
    return rows


def test_terminal_draws_bars_in_place_and_prints_the_rest_above() -> None:
    splitter = OutputSplitter()
    screen = Screen(tty=True)
    written = ""
    for chunk in [
        b"[r0]:  10%|#| 1/10 [00:00<00:01, 9it/s]\n[r0]: \n",
        b"[r0]:  20%|##| 2/10 [00:00<00:01, 9it/s]\n",
        b"[r1]: hello from 1\n",
        b"[r0]:  30%|###| 3/10 [00:00<00:01, 9it/s]\n",
    ]:
        written += screen.lines(splitter.feed(chunk))
    written += screen.say("launchx: a message")
    assert terminal(written) == [
        "[r1]: hello from 1",
        "launchx: a message",
        "[r0]:  30%|###| 3/10 [00:00<00:01, 9it/s]",
    ]
    written += screen.lines(splitter.feed(b"[r0]: done\n")) + screen.end()
    assert terminal(written)[-3:] == ["[r0]:  30%|###| 3/10 [00:00<00:01, 9it/s]", "[r0]: done", ""]


def test_the_status_stays_under_the_output_and_the_bar() -> None:
    splitter = OutputSplitter()
    screen = Screen(tty=True)
    written = screen.status(["launchx: attempt 0 running 3s", "node 0 (a): r0 1s  r1 0s"])
    written += screen.lines(splitter.feed(b"[r1]: hello\n"))
    written += screen.lines(splitter.feed(b"[r0]:  10%|#| 1/10 [00:00<00:01, 9it/s]\n"))
    written += screen.say("launchx: a message")
    written += screen.lines(splitter.feed(b"[r0]:  20%|##| 2/10 [00:00<00:01, 9it/s]\n"))
    written += screen.status(["launchx: attempt 0 running 4s", "node 0 (a): r0 0s  r1 1s"])
    assert terminal(written) == [
        "[r1]: hello",
        "launchx: a message",
        "[r0]:  20%|##| 2/10 [00:00<00:01, 9it/s]",
        "launchx: attempt 0 running 4s",
        "node 0 (a): r0 0s  r1 1s",
    ]
    # The same status again writes nothing; the end takes the status away, keeps the bar.
    assert screen.status(["launchx: attempt 0 running 4s", "node 0 (a): r0 0s  r1 1s"]) == ""
    written += screen.end() + "launchx: summary\n"
    assert terminal(written) == [
        "[r1]: hello",
        "launchx: a message",
        "[r0]:  20%|##| 2/10 [00:00<00:01, 9it/s]",
        "launchx: summary",
        "",
    ]


def test_a_status_row_is_cut_to_the_terminal_width_so_it_never_wraps() -> None:
    screen = Screen(tty=True)
    written = screen.status(["x" * 50, "short"], width=20)
    written += screen.say("launchx: above")
    assert terminal(written) == ["launchx: above", "x" * 19, "short"]


def test_no_status_off_a_terminal() -> None:
    screen = Screen(tty=False)
    assert screen.status(["launchx: attempt 0"]) == ""
    assert screen.say("launchx: a line") == "launchx: a line\n"
    assert screen.end() == ""


def test_live_frames_only_when_they_change() -> None:
    splitter = OutputSplitter(header=None, rank=0)
    first = splitter.feed(b"\r 10%|#| 1/10 [00:00<00:01, 9it/s]")
    assert [r.live for r in first] == [True]
    assert splitter.feed(b"") == []
    assert [r.text for r in splitter.feed(b"\r 20%|#| 2/10 [00:00<00:01, 9it/s]")] == [
        " 20%|#| 2/10 [00:00<00:01, 9it/s]"
    ]


def test_off_a_terminal_each_record_is_a_line_and_banners_go_elsewhere() -> None:
    screen = Screen(tty=False)
    records = [
        OutLine("a", 0),
        OutLine(" 5%|x| 1/20 [..]", 0, "bar", live=True),  # never drawn off a terminal
        OutLine("Traceback (most recent call last):", None, "banner"),
        OutLine("launcher line", None),
    ]
    assert screen.lines(records) == "[r0]: a\nlauncher line\n"
    assert screen.say("launchx: x") == "launchx: x\n"
    assert Screen(show_banner=True).lines(records[2:3]) == "Traceback (most recent call last):\n"


def test_a_ranks_blank_line_is_shown_blank_not_as_a_bare_header() -> None:
    """A script's own empty line (or one the bar logic let through) is no ``[r0]:`` line."""
    from launchx.outlines import OutLine

    assert OutLine("", 0).render() == ""
    assert OutLine("   ", 1).render() == "   "
    assert OutLine("step 3", 1).render() == "[r1]: step 3"
    assert OutLine("launchx: done", None).render() == "launchx: done"


def _stack(rank: int | None, frames: int) -> list[OutLine]:
    head = "Exception raised from delay at torch/csrc/distributed/c10d/socket.cpp:113"
    return [OutLine(head, rank)] + [
        OutLine(f"frame #{i}: <unknown function> + 0x{i:x} (0x7f in libtorch_cpu.so)", rank)
        for i in range(frames)
    ]


def test_a_cpp_stack_on_a_terminal_shows_its_first_frames_and_counts_the_rest() -> None:
    """torch's frame walls (dozens of lines per rank for one error) fold on a terminal; a
    rank's stack and another's interleaved are counted apart; the rest of the output, and
    the stack's own header, stay."""
    screen = Screen(tty=True)
    out = screen.lines([*_stack(0, 10), *_stack(None, 2)])
    out += screen.lines([OutLine("<omitting python frames>", 0), OutLine("after", 0)])
    assert out.count("[r0]: frame #") == 3 and "frame #3" not in out
    assert "[r0]:   ... 8 more C++ frames (every one is in the log)\n[r0]: after\n" in out
    assert out.count("\nframe #") + out.startswith("frame #") == 2  # the launcher's: 2 of 2
    assert "more C++ frames" not in out.replace("[r0]:   ... 8 more", "")
    # a stack that ends the output is counted when the screen ends
    screen.lines(_stack(1, 5))
    assert screen.end() == "[r1]:   ... 2 more C++ frames (every one is in the log)\n"
    # ... or before launchx's own words (its verdict, a retry), not in the next attempt
    screen.lines(_stack(1, 5))
    said = screen.say("launchx: attempt 0 failed; retrying")
    assert said.index("... 2 more C++ frames") < said.index("launchx: attempt 0 failed")
    assert "more C++ frames" not in screen.lines([OutLine("hello attempt 1", 1)])


def test_off_a_terminal_every_cpp_frame_is_kept() -> None:
    """A console that is no terminal is a file someone will diagnose: nothing folds."""
    screen = Screen(tty=False)
    out = screen.lines(_stack(0, 10))
    assert out.count("frame #") == 10 and screen.end() == ""
