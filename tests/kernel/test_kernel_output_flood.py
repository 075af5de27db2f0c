"""An output flood in a real kernel (issue 16, item 1): few IOPub messages, a cut with notes, the real outcome.

Before the fix the kernel sent one IOPub stream message per ``print`` (the Jupyter server's
rate limit then dropped messages, the cell's error among them) and the journal kept up to a
million characters of output per execution.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel.executor.stream import MAX_KEPT_OUTPUT_CHARS, cut_note
from codemode_kernel.kernel.output import Coalescing, RecordingSink, ReplayFilter
from tests.kernel.kernel_harness import Kernel, Run, calls, write_notebook_dir

FLOOD = "for k in range(2000000):\n    print('line', k)\n"
# About 590,000 characters: past the kept bound, within the 1,000,000 a pass may print.
MEDIUM = "for k in range(50000):\n    print('line', k)\n'finished'\n"
MEDIUM_TEXT = "".join(f"line {k}\n" for k in range(50000))
NOTE = "[Code Mode: output cut here"


def stream_messages(run: Run) -> int:
    """How many stream messages the cell got, after checking they were coalesced.

    The kernel sends stream text at most every 100 ms, or when 64 KiB wait, or before another
    message: the bound comes from the messages' own send times (their header dates), so it
    holds however busy the machine is.
    """
    streams = [m for m in run.messages if m["msg_type"] == "stream"]
    if not streams:
        return 0
    span = (_sent(streams[-1]) - _sent(streams[0])).total_seconds()
    chars = sum(len(m["content"]["text"]) for m in streams)
    others = len(run.messages) - len(streams)
    bound = 2 + others + chars / 65_536 + span / 0.1
    assert len(streams) <= bound, (len(streams), bound)
    return len(streams)


def _sent(message: dict[str, Any]) -> datetime:
    date = message["header"]["date"]
    return date if isinstance(date, datetime) else datetime.fromisoformat(str(date))


def stored_logs(folder: Path) -> list[tuple[str, str, int]]:
    """(status, error type, characters of logs) of each execution in the notebook's journal
    (the journal file is looked for, wherever the kernel keeps it in the notebook's folder)."""
    rows: list[tuple[str, str, str]] = []
    for db in sorted(folder.rglob("*.codemode.db")):
        # A file without the table (another kind of database) is skipped.
        with contextlib.closing(sqlite3.connect(db)) as c, contextlib.suppress(sqlite3.OperationalError):
            rows += c.execute("select status, coalesce(error_type, ''), logs from codemode_executions "
                              "order by created_at").fetchall()
    return [(status, error_type, len("\n".join(json.loads(logs)))) for status, error_type, logs in rows]


@pytest.fixture
def short_timeout_kernel(tmp_path: Path) -> Iterator[tuple[Kernel, Path]]:
    folder = write_notebook_dir(tmp_path / "nb", executor="timeout = 3")
    kernel = Kernel(folder)
    yield kernel, folder
    kernel.shutdown()


def test_a_flood_ends_with_its_real_outcome_in_a_few_messages(kernel: Kernel, notebook_dir: Path) -> None:
    """Two million prints: the pass stops at max_output_chars; the cell shows the cut and that error."""
    run = kernel.execute(FLOOD, timeout=120)
    assert run.status == "error"
    assert run.error is not None and run.error["ename"] == "LimitExceeded"
    assert "max_output_chars" in run.error["evalue"]
    assert stream_messages(run) < 200, "about 80,000 prints before the pass stopped (one message each before)"
    out = run.stdout
    assert out.startswith("line 0\nline 1\n")
    kept = out[:out.index(NOTE)]
    assert kept.endswith("\n") and MAX_KEPT_OUTPUT_CHARS - 20 < len(kept) <= MAX_KEPT_OUTPUT_CHARS, len(kept)
    assert kept == "".join(f"line {k}\n" for k in range(kept.count("\n"))), "whole lines, in order"
    assert "more characters of output were dropped after the cut" in out
    assert len(out) < MAX_KEPT_OUTPUT_CHARS + 1000
    # The journal holds what the cell shows: bounded, not the million characters printed.
    [(status, error_type, size)] = stored_logs(notebook_dir)
    assert (status, error_type) == ("error", "LimitExceeded")
    assert size < MAX_KEPT_OUTPUT_CHARS + 1000
    # The kernel goes on as usual.
    assert kernel.ok("1 + 1").result == {"text/plain": "2"}


def test_a_cut_flood_completes_and_says_how_much_was_dropped(kernel: Kernel, notebook_dir: Path) -> None:
    run = kernel.ok(MEDIUM, timeout=120)
    assert run.result is not None and run.result["text/plain"] == "'finished'"
    out = run.stdout
    kept = MEDIUM_TEXT[:MEDIUM_TEXT.rindex("\n", 0, MAX_KEPT_OUTPUT_CHARS) + 1]  # the last whole line that fits
    dropped = len(MEDIUM_TEXT) - len(kept)
    assert out.startswith(kept + cut_note(MAX_KEPT_OUTPUT_CHARS))
    assert out.endswith(f"[Code Mode: {dropped:,} more characters of output were dropped after the cut.]\n")
    assert stream_messages(run) < 200, "50,000 prints"
    [(status, _, size)] = stored_logs(notebook_dir)
    assert status == "completed" and size < MAX_KEPT_OUTPUT_CHARS + 1000


def test_a_timeout_during_a_flood_is_the_cells_error(short_timeout_kernel: tuple[Kernel, Path]) -> None:
    """The pass prints past the cut, then spins: the cell ends with the Timeout error, and the kernel is idle."""
    kernel, folder = short_timeout_kernel
    run = kernel.execute("for k in range(50000):\n    print('line', k)\nwhile True:\n    pass\n", timeout=60)
    assert run.status == "error"
    assert run.error is not None and run.error["ename"] == "Timeout", run.error
    assert "Limits.timeout=3" in run.error["evalue"]
    assert NOTE in run.stdout
    assert stream_messages(run) < 200, "50,000 prints"
    # The last messages of the request are the stream, then the error (the harness stops at idle).
    assert [m["msg_type"] for m in run.messages][-1] == "error"
    [(status, error_type, size)] = stored_logs(folder)
    assert (status, error_type) == ("error", "Timeout") and size < MAX_KEPT_OUTPUT_CHARS + 1000
    assert kernel.ok("'next'").result == {"text/plain": "'next'"}


def test_output_stays_in_order_around_connector_calls(kernel: Kernel) -> None:
    """Many fast calls with prints between them: coalesced into few messages, every line in its place."""
    code = ("for k in range(300):\n    print('before', k)\n    notes.list_notes()\n    print('after', k)\n"
            "print('end')\n")
    run = kernel.ok(code, timeout=120)
    expected = "".join(f"before {k}\nafter {k}\n" for k in range(300)) + "end\n"
    assert run.stdout == expected
    assert stream_messages(run) < 600, "600 prints, each batch ended by a call"


def test_printed_text_comes_before_the_approval_card(kernel: Kernel, notebook_dir: Path) -> None:
    run = kernel.ok("print('first')\nnotes.add_note(text='ordered')\nprint('never yet')\n")
    kinds = [(m["msg_type"], m["content"].get("text")) for m in run.messages
             if m["msg_type"] in ("stream", "display_data")]
    assert kinds[0] == ("stream", "first\n")
    assert kinds[1][0] == "display_data", "the card follows the text printed before the call"
    assert calls(notebook_dir, "add_note") == 0


def test_a_cut_pass_replayed_after_approval_shows_only_what_is_new(kernel: Kernel, notebook_dir: Path) -> None:
    """Approval re-runs a pass whose output was cut: the kept text and the cut note are not shown again;
    the new count of dropped characters is shown as a whole line."""
    code = ("for k in range(300):\n    print(str(k) * 1000)\n"
            "added = notes.add_note(text='cut')\nprint('after the call')\nadded['text']\n")
    run = kernel.ok(code, timeout=120)
    printed = "".join(str(k) * 1000 + "\n" for k in range(300))
    first_dropped = len(printed) - len(printed[:printed.rindex("\n", 0, MAX_KEPT_OUTPUT_CHARS) + 1])
    assert run.stdout.endswith(f"[Code Mode: {first_dropped:,} more characters of output were dropped "
                               "after the cut.]\n")
    card = run.card
    assert card is not None
    kernel.wait_until(lambda: bool(kernel.widgets.buttons(card, "Approve")), what="the Approve button")
    kernel.click(kernel.widgets.buttons(card, "Approve")[0])
    kernel.wait_until(lambda: "Completed" in kernel.widgets.header(card), what="the card to complete")
    text = kernel.widgets.texts(card)
    assert "'cut'" in text
    second_dropped = first_dropped + len("after the call\n")
    assert f"[Code Mode: {second_dropped:,} more characters of output were dropped after the cut.]" in text
    assert "000000000" not in text and NOTE not in text, "what the cell already shows is not shown again"
    assert calls(notebook_dir, "add_note") == 1


def test_a_replayed_pass_streams_into_its_card_in_few_updates(kernel: Kernel, notebook_dir: Path) -> None:
    """After approval, output between many calls reaches the card's Output widget in batches: each update
    re-sends the widget's whole output list, so one per batch of the sandbox would grow quadratically."""
    code = ("notes.add_note(text='first')\nfor k in range(500):\n    print('line', k)\n    notes.list_notes()\n"
            "'end'\n")
    run = kernel.ok(code, timeout=120)
    card = run.card
    assert card is not None
    kernel.wait_until(lambda: bool(kernel.widgets.buttons(card, "Approve")), what="the Approve button")
    [output] = kernel.widgets.find(card, "OutputModel")
    updates: list[dict[str, Any]] = []
    feed = kernel.widgets.feed

    def counting(msg: dict[str, Any]) -> None:
        content = msg["content"]
        if (msg["msg_type"] == "comm_msg" and content.get("comm_id") == output
                and "outputs" in content["data"].get("state", {})):
            updates.append(msg)
        feed(msg)

    kernel.widgets.feed = counting  # type: ignore[method-assign]
    kernel.click(kernel.widgets.buttons(card, "Approve")[0])
    kernel.wait_until(lambda: "Completed" in kernel.widgets.header(card), timeout=120, what="the card to complete")
    outputs = kernel.widgets.models[output]["outputs"]
    assert "".join(o.get("text", "") for o in outputs) == "".join(f"line {k}\n" for k in range(500))
    assert "'end'" in kernel.widgets.texts(card)
    span = (_sent(updates[-1]) - _sent(updates[0])).total_seconds()
    assert len(updates) <= 4 + span / 0.1, (len(updates), span)
    assert len(updates) < 250, "500 prints, each followed by a call"


# ---------------------------------------------------------------------------------------
# The kernel's coalescing sink and the replay filter, without a kernel


class Timers:
    """``call_later`` for a test: the timers wait until the test fires them."""

    def __init__(self) -> None:
        self.waiting: list[Timer] = []

    def __call__(self, delay: float, callback: Callable[[], None]) -> Timer:
        timer = Timer(callback)
        self.waiting.append(timer)
        return timer

    def fire(self) -> None:
        waiting, self.waiting = self.waiting, []
        for timer in waiting:
            if not timer.cancelled:
                timer.callback()


class Timer:
    def __init__(self, callback: Callable[[], None]) -> None:
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def test_stream_text_waits_for_the_timer_a_full_batch_or_anything_else() -> None:
    timers, inner = Timers(), RecordingSink()
    sink = Coalescing(inner, timers, max_chars=10)
    sink.stream("a\n")
    sink.stream("b\n")
    assert inner.outputs == [] and len(timers.waiting) == 1, "one timer for the batch"
    timers.fire()
    assert inner.outputs == [("stdout", "a\nb\n")]
    sink.stream("0123456789")
    assert inner.outputs[-1] == ("stdout", "0123456789"), "a full batch goes at once"
    sink.stream("warning\n", "stderr")
    sink.stream("x")
    assert inner.outputs[-1] == ("stderr", "warning\n"), "another stream's text ends the batch"
    sink.display({"text/plain": "1"}, result=True)
    assert inner.outputs[-2:] == [("stdout", "x"), ("result", {"text/plain": "1"})], "text stays before a result"
    sink.stream("late")
    sink.error("E", "v", [])
    assert inner.outputs[-2:] == [("stdout", "late"), ("error", ("E", "v", []))]
    timers.fire()
    assert len(inner.outputs) == 7, "a timer of a batch already sent sends nothing"


def test_the_replay_filter_shows_a_changed_line_whole() -> None:
    """A replayed pass whose dropped-characters note has a new count shows the new note, not its tail."""
    shown = "kept\n" + "[Code Mode: 100 more characters of output were dropped after the cut.]\n"
    out: list[str] = []
    live = ReplayFilter(shown, out.append)
    live("kept\n[Code Mode: 1")
    live("50 more characters of output were dropped after the cut.]\n")
    assert "".join(out) == "[Code Mode: 150 more characters of output were dropped after the cut.]\n"
