"""Printed output leaves a pass in few messages, in order with its calls, and cut past a bound (issue 16, item 1).

Both executors: the isolated worker (a real confined process) and the in-process twin.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from codemode_kernel.errors import ConfigurationError
from codemode_kernel.executor.base import OUTPUT_MESSAGE_COST
from codemode_kernel.executor.inprocess import InProcessExecutor, InProcessLimits
from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from codemode_kernel.executor.stream import OutputStream, cut_note, dropped_note
from tests.executor.isolated_support import RecordingHost

pytestmark = pytest.mark.anyio

Make = Callable[..., Any]

FLOOD = "for k in range(5000):\n    print('line', k)\n'done'"
FLOOD_TEXT = "".join(f"line {k}\n" for k in range(5000))


@pytest.fixture(params=["subprocess", "inprocess"])
async def make(request: pytest.FixtureRequest) -> AsyncIterator[Make]:
    made: list[Any] = []

    def build(**limits: Any) -> Any:
        ex = (SubprocessExecutor(Limits(**limits)) if request.param == "subprocess"
              else InProcessExecutor(InProcessLimits(**limits)))
        made.append(ex)
        return ex

    yield build
    for ex in made:
        await ex.aclose()


async def test_a_print_flood_crosses_in_a_few_messages(make: Make) -> None:
    """5,000 prints reach the host as a few output messages, every character in order.

    A batch goes when 16 Ki characters wait or at the 50 ms deadline (checked by the next
    write and by the ticker: at most two a deadline), so the bound follows from the pass's
    duration, whatever the load on the machine; on an idle one it is about 5 messages.
    """
    ex = make()
    streamed: list[str] = []
    started = time.monotonic()
    out = await ex.execute(FLOOD, {}, host=RecordingHost(), on_output=streamed.append)
    took = time.monotonic() - started
    assert (out.error, out.result) == (None, "done")
    assert "".join(streamed) == FLOOD_TEXT
    assert len(streamed) <= 3 + len(FLOOD_TEXT) / 16_384 + 2 * took / 0.05, (len(streamed), took)
    assert len(streamed) < 500, "5,000 prints, one message each before"
    assert out.logs == FLOOD_TEXT.splitlines()


async def test_output_keeps_its_place_around_connector_calls(make: Make) -> None:
    """What was printed before a call reaches the host before the call; what follows, after its answer."""
    ex = make()
    events: list[str] = []

    def answer(message: dict[str, Any]) -> dict[str, Any]:
        events.append(f"call {message['args']['n']}")
        return {"value": message["args"]["n"]}

    code = "for n in range(3):\n    print('before', n)\n    shop.get(n=n)\n    print('after', n)\n"
    out = await ex.execute(code, {"shop": ["get"]}, host=RecordingHost(answer),
                           on_output=lambda text: events.extend(text.splitlines()))
    assert out.error is None
    assert events == ["before 0", "call 0", "after 0", "before 1", "call 1", "after 1",
                      "before 2", "call 2", "after 2"]


async def test_printed_text_shows_while_the_code_goes_on_without_printing(make: Make) -> None:
    """A print followed by a long sleep is delivered while the pass still runs (the deadline flush)."""
    ex = make(timeout=30)
    arrived = asyncio.Event()
    streamed: list[str] = []

    def on_output(text: str) -> None:
        streamed.append(text)
        arrived.set()

    task = asyncio.ensure_future(ex.execute("print('started')\ntime.sleep(25)\n'late'", {}, host=RecordingHost(),
                                            on_output=on_output))
    try:
        await asyncio.wait_for(arrived.wait(), timeout=20)
        assert not task.done(), "the output came only with the end of the pass"
        assert streamed == ["started\n"]
    finally:
        ex.interrupt()
        with contextlib.suppress(Exception):
            await task


async def test_output_past_the_kept_bound_is_cut_with_notes_and_the_pass_goes_on(make: Make) -> None:
    """Past max_kept_output_chars: a note, the rest dropped (not streamed, not in logs), a count at the end."""
    ex = make(max_kept_output_chars=1000)
    streamed: list[str] = []
    code = "for k in range(100):\n    print('x' * 99)\n'finished'"
    out = await ex.execute(code, {}, host=RecordingHost(), on_output=streamed.append)
    assert (out.error, out.result) == (None, "finished"), "cutting the output does not stop the pass"
    text = "".join(streamed)
    assert text == ("x" * 99 + "\n") * 10 + cut_note(1000) + dropped_note(9000)
    assert "\n".join(out.logs) + "\n" == text
    assert text.index("[Code Mode") == 1000


async def test_the_cut_is_the_same_in_every_pass(make: Make) -> None:
    """The cut depends on what was printed only (not on timing): two passes keep the same text."""
    ex = make(max_kept_output_chars=5_000)
    code = "for k in range(3000):\n    print(k)\n    if k % 500 == 0:\n        time.sleep(0.06)\n"
    first: list[str] = []
    second: list[str] = []
    await ex.execute(code, {}, host=RecordingHost(), on_output=first.append)
    await ex.execute(code, {}, host=RecordingHost(), on_output=second.append)
    assert "".join(first) == "".join(second)
    assert "".join(first).endswith(dropped_note(sum(len(f"{k}\n") for k in range(3000)) - 5_000))


def test_the_kept_bound_is_journal_sized() -> None:
    """Kept output goes into the journal: more than 1,000,000 characters is refused when the limits are built."""
    with pytest.raises(ConfigurationError, match="max_kept_output_chars must be at most 1,000,000"):
        Limits(max_kept_output_chars=5_000_000)


# ---------------------------------------------------------------------------------------
# The stream itself, on a clock the test moves


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def stream(**options: Any) -> tuple[OutputStream, list[str], Clock]:
    sent: list[str] = []
    clock = Clock()
    return OutputStream(sent.append, clock=clock, **options), sent, clock


def test_text_waits_for_a_full_batch_or_the_deadline() -> None:
    out, sent, clock = stream(flush_chars=10, flush_seconds=0.05)
    out.write("abc")
    out.write("def")
    assert sent == []
    out.write("ghij")
    assert sent == ["abcdefghij"], "ten characters make a batch"
    out.write("k")
    clock.now += 0.04
    out.write("l")
    assert sent == ["abcdefghij"]
    clock.now += 0.02
    out.write("m")
    assert sent == ["abcdefghij", "klm"], "text older than the deadline goes with the next write"
    out.write("n")
    out.tick()
    assert sent[-1] == "n", "a tick sends what waits"
    out.close()
    assert out.text == "abcdefghijklmn"


def test_a_tick_never_waits_for_the_pass() -> None:
    """While the pass holds the stream (writing, or asking the host), a tick does nothing and returns."""
    out, sent, _ = stream()
    out.write("waiting")

    def ask(message: dict[str, Any]) -> dict[str, Any]:  # the request crossing to the host
        assert sent == ["waiting"], "a request first sends what was printed before it"
        out.pending.append("x")  # as if the pass were in the middle of a write
        ticker = threading.Thread(target=out.tick)
        ticker.start()
        ticker.join(timeout=5)
        assert not ticker.is_alive() and sent == ["waiting"]
        out.pending.clear()
        return {"value": message["op"]}

    assert out.across(ask, {"op": "call"}) == {"value": "call"}


def test_the_stream_never_sends_more_than_the_host_counts() -> None:
    """Every message costs the host at least OUTPUT_MESSAGE_COST: tiny messages past the budget are not sent."""
    out, sent, _ = stream(budget=5 * OUTPUT_MESSAGE_COST, flush_chars=1)
    for _ in range(10):
        out.write("a")
    assert sent == ["a"] * 5
    out.close()
    assert sent == ["a"] * 5, "the note that would not fit is not sent either"


def test_the_cut_note_starts_on_its_own_line() -> None:
    out, sent, _ = stream(keep=5)
    out.write("abcdefgh")
    out.write("more")
    out.close()
    assert "".join(sent) == "abcde\n" + cut_note(5) + dropped_note(7)


def test_the_cut_falls_at_the_end_of_the_last_whole_line_that_fits() -> None:
    out, sent, _ = stream(keep=10)
    out.write("one\ntwo\nthree\n")
    out.close()
    assert "".join(sent) == "one\ntwo\n" + cut_note(10) + dropped_note(6)
    out, sent, _ = stream(keep=10)
    for word in ("one", "two", "three"):
        out.write(word + "\n")  # as print() writes: a line at a time
    out.close()
    assert "".join(sent) == "one\ntwo\n" + cut_note(10) + dropped_note(6)
