"""A pass's printed output on its way to the host: coalesced into few messages, and cut past a bound.

Runs inside the pass (the worker, or the in-process executor's thread); imports nothing from
the host side of the package. Issue 16, item 1: one pipe message per ``print`` made a
``for k in range(2_000_000): print(k)`` cell send a message per line all the way to the
browser, which the Jupyter server's IOPub rate limit then dropped (with the cell's error).

Coalescing. Text is buffered and sent as one ``output`` message when

- the buffer holds ``FLUSH_CHARS`` (16 Ki characters): large enough that the cost of a
  message (a JSON line, a parse and a callback on the host) is a small part of moving the
  text, small enough that one message stays well inside a pipe's 64 KiB and that a fast
  printer's output still arrives in a steady flow;
- ``FLUSH_SECONDS`` (50 ms) have passed since the oldest buffered text: below what a person
  notices as a delay of live output, and at most 20 messages a second from a slow printer
  (ipykernel's own stdout flushes every 200 ms);
- the pass asks the host anything (a connector call, a step, a search): whatever was printed
  before the call reaches the host before the call does, so output and calls keep their order
  (and text printed before a slow call shows while the call runs);
- the pass ends.

The 50 ms deadline must also hold while the code computes or sleeps without printing: a
*ticker* calls :meth:`OutputStream.tick` from outside the code's flow (in the worker a
``SIGALRM`` interval timer, see :meth:`OutputStream.signal_ticks`; in the in-process executor
the host's event loop). A tick never waits: when the pass is itself writing or talking to
the host (the lock is held), that tick is skipped.

The cut. A pass keeps at most ``keep`` characters of what it prints (``max_kept_output_chars``,
200,000 by default), up to the end of the last whole line that fits (or exactly ``keep`` when
that line has no end). There the stream sends a note saying so, and drops the rest: it is not
sent, not shown, not returned in ``logs`` and not journaled; at the end of the pass a second
note says how many characters were dropped. The cut is at a fixed character count, so a
replayed pass (approval) prints exactly the same kept text and notes as the pass before it.
Printing itself goes on (the code is not stopped) until ``max_output_chars``, the separate
limit that fails the pass (``_Session.write`` in ``sandbox.py``).

The host counts every ``output`` message it receives at least ``OUTPUT_MESSAGE_COST``
characters against ``max_output_chars`` and stops a worker that sends more. The stream
counts its messages the same way and never sends past that budget, so an honest pass is
never stopped by the host's count.
"""

from __future__ import annotations

import contextlib
import importlib
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from codemode_kernel.executor.base import OUTPUT_MESSAGE_COST

# The C function under ``signal.signal``, which converts numbers to and from enum members: in a
# worker forked by the zygote that machinery touches ~100 pages shared with the zygote, each a
# copy-on-write fault (~0.3 ms a pass, issue 12). Numbers in, a number or the handler out.
_SET_HANDLER: Callable[[int, Any], Any] = importlib.import_module("_signal").signal
_SIGALRM = int(signal.SIGALRM)

#: Characters buffered before they are sent without waiting for the deadline.
FLUSH_CHARS = 16_384
#: Seconds printed text may wait in the buffer.
FLUSH_SECONDS = 0.05
#: Characters of printed output a pass keeps by default (``Limits.max_kept_output_chars``).
MAX_KEPT_OUTPUT_CHARS = 200_000
#: The largest ``max_kept_output_chars`` allowed: kept output is journaled.
MAX_KEPT_OUTPUT_LIMIT = 1_000_000
#: What the runtime journals of a pass's logs at most, whichever executor ran it: the largest
#: kept output and room for its notes.
MAX_STORED_OUTPUT_CHARS = MAX_KEPT_OUTPUT_LIMIT + 1_000


def cut_note(keep: int) -> str:
    """The note sent where a pass's output is cut."""
    return (f"[Code Mode: output cut here: a pass keeps at most {keep:,} characters of what it prints "
            f"(max_kept_output_chars). The rest of this pass's output is dropped: not shown, not returned, "
            f"not journaled. Print less, or return a summary.]\n")


def dropped_note(dropped: int) -> str:
    """The note sent at the end of a pass whose output was cut."""
    return f"[Code Mode: {dropped:,} more characters of output were dropped after the cut.]\n"


def bounded_lines(lines: Sequence[str], limit: int = MAX_STORED_OUTPUT_CHARS) -> list[str]:
    """A pass's ``logs`` within ``limit`` characters (each line counted with its line break): the
    lines from the start, then one saying how much was left out. The runtime stores logs so,
    whatever executor produced them; the built-in executors' logs are within it already."""
    out: list[str] = []
    used = 0
    for index, line in enumerate(lines):
        room = limit - used
        if len(line) + 1 > room:
            head = line[:max(0, room - 1)]
            if head:
                out.append(head)
            left = sum(len(rest) + 1 for rest in lines[index:]) - len(head)
            out.append(f"[Code Mode: {left:,} more characters of output were not kept (a pass's logs are "
                       f"journaled up to {limit:,} characters).]")
            return out
        out.append(line)
        used += len(line) + 1
    return out


def output_stream(notify: Callable[[dict[str, Any]], None], max_output_chars: int,
                  max_kept_output_chars: int = MAX_KEPT_OUTPUT_CHARS) -> OutputStream:
    """The stream a pass prints into, sending ``{"op": "output", "text"}`` through ``notify``.

    It keeps at most ``max_kept_output_chars`` (never more than ``max_output_chars``, where the
    pass fails first) and never sends more than the host counts against ``max_output_chars``.
    """
    return OutputStream(lambda text: notify({"op": "output", "text": text}),
                        keep=min(max_kept_output_chars, max_output_chars), budget=max_output_chars)


class OutputStream:
    """Printed text of one pass: buffered, sent in batches through ``send``, cut after ``keep`` characters.

    ``budget`` is the host's count of output (``max_output_chars``): the stream never sends
    messages whose cost, as the host counts it, would exceed it. ``kept`` holds every
    character sent (the pass's ``logs``).
    """

    def __init__(self, send: Callable[[str], None], *, keep: int = MAX_KEPT_OUTPUT_CHARS,
                 budget: int | None = None, flush_chars: int = FLUSH_CHARS,
                 flush_seconds: float = FLUSH_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self._send = send
        self.keep = max(0, keep)
        self.budget = budget
        self.flush_chars = flush_chars
        self.flush_seconds = flush_seconds
        self.clock = clock
        #: Held while the buffer changes or a message (or a request) crosses to the host.
        self.lock = threading.Lock()
        self.pending: list[str] = []
        self.pending_chars = 0
        self.since = 0.0          # when the oldest pending text was written
        self.accepted = 0         # characters kept so far (sent or pending)
        self.line_ended = False   # the kept text ends with a line break
        self.cut = False
        self.dropped = 0          # characters printed after the cut
        self.cost = 0             # what the host has counted of the messages sent
        self.messages = 0
        self.kept: list[str] = []
        self.closed = False

    # -- the pass's side (its own thread)

    def write(self, text: str) -> None:
        """Add printed text; sends a batch when the buffer is full or old enough."""
        if not text:
            return
        with self.lock:
            if self.cut or self.closed:
                self.dropped += len(text)
                return
            room = self.keep - self.accepted
            if len(text) > room:
                head = text[:room]
                end = head.rfind("\n") + 1  # the cut falls at the end of a line where there is one
                if end:
                    head = head[:end]
                elif self.accepted and self.line_ended:
                    head = ""
                self.dropped += len(text) - len(head)
                self._add(head)
                self._cut()
                return
            self._add(text)
            if self.pending_chars >= self.flush_chars or self.clock() - self.since >= self.flush_seconds:
                self._flush()

    def flush(self) -> None:
        """Send whatever is buffered now."""
        with self.lock:
            self._flush()

    def across(self, send: Callable[[dict[str, Any]], dict[str, Any]], message: dict[str, Any]) -> dict[str, Any]:
        """Send what is buffered, then ``send(message)`` (a request to the host) holding the stream:
        nothing printed before the request arrives after it, and no tick writes into the middle of it.

        A plain ``with`` on the lock: a context manager's generator cost ~1 µs of the sandbox's
        ~5 µs of its own Python per connector call (issue 12)."""
        with self.lock:
            if self.pending:
                self._flush()
            return send(message)

    def close(self) -> None:
        """End of the pass: send the rest, and the note of how much was dropped."""
        with self.lock:
            if self.closed:
                return
            self._flush()
            if self.dropped:
                self._send_text(dropped_note(self.dropped))
            self.closed = True

    # -- the ticker's side (a signal handler, or another thread)

    def tick(self) -> None:
        """Send buffered text if the pass is not busy with the stream right now; never waits or raises."""
        if not self.lock.acquire(blocking=False):
            return
        try:
            if self.pending and not self.closed:
                self._flush()
        except Exception:  # the host is gone; the pass finds out on its next request
            pass
        finally:
            self.lock.release()

    @contextlib.contextmanager
    def signal_ticks(self) -> Iterator[None]:
        """Tick every ``flush_seconds`` from a ``SIGALRM`` interval timer (the worker's main thread only).

        A signal handler runs between two bytecodes of the code, in the same thread, so it
        cannot take the lock when the code holds it; then it skips that tick. Interrupted
        system calls are resumed by Python (PEP 475), so a sleeping or waiting pass is not
        disturbed.
        """
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = _SET_HANDLER(_SIGALRM, lambda signum, frame: self.tick())
        signal.setitimer(signal.ITIMER_REAL, self.flush_seconds, self.flush_seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            _SET_HANDLER(_SIGALRM, previous)

    # -- with the lock held

    def _add(self, text: str) -> None:
        if not text:
            return
        if not self.pending:
            self.since = self.clock()
        self.pending.append(text)
        self.pending_chars += len(text)
        self.accepted += len(text)
        self.line_ended = text.endswith("\n")

    def _cut(self) -> None:
        self.cut = True
        self._flush()
        ending = "".join(self.kept[-1:])
        self._send_text(("\n" if ending and not ending.endswith("\n") else "") + cut_note(self.keep))

    def _flush(self) -> None:
        if not self.pending:
            return
        text = "".join(self.pending)
        self.pending.clear()
        self.pending_chars = 0
        if not self._send_text(text):
            # Only when many tiny messages used up the host's count (each costs at least
            # OUTPUT_MESSAGE_COST): this text is dropped, as after a cut.
            self.dropped += len(text)
            self.cut = True

    def _send_text(self, text: str) -> bool:
        cost = max(len(text), OUTPUT_MESSAGE_COST)
        if self.budget is not None and self.cost + cost > self.budget:
            return False
        self.cost += cost
        self.messages += 1
        self.kept.append(text)
        self._send(text)
        return True

    @property
    def text(self) -> str:
        """Everything sent so far (the pass's output as the host has it)."""
        return "".join(self.kept)
