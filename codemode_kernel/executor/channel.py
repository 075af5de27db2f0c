"""The host's end of a worker's pipes: non-blocking JSON-line I/O and request checks.

Kept apart from the pool (``isolated.py``) because it is the part that touches bytes from
an untrusted process. Rules it enforces:

- a line is read only up to a size limit, and only from the running event loop (the fds
  are attached for one pass and detached after, so a worker started on one loop can serve
  a pass on another); a line that is not the final ``done`` report only up to the much
  smaller request limit, judged from its first bytes while it arrives, and the buffer stops
  growing while the host is busy answering (issue 10, item 8);
- a request is rebuilt from the fields its op allows, each type-checked; a connector or
  method the pass was not given is a protocol violation (the honest sandbox refuses those
  itself, so only a tampered worker sends them);
- nothing from the worker is called, formatted with ``repr`` or otherwise trusted.

After it has written a reply, the host looks for the worker's next request for a moment
before it sleeps in the event loop (issue 12): :meth:`WorkerPipe.readline` with ``soon=True``.
A worker in a loop of calls sends its next request 15-20 µs after a reply (13 µs of that is its
own Python). A host asleep in ``epoll`` by then, on a CPU of its own, is woken from idle, which
costs more than the wait: with host and worker held on separate CPUs, a call's round trip took
54-89 µs with the host asleep and 23-31 µs with it polling. So the host first reads the pipe
without blocking: when the reply's write ran the worker's turn on the host's CPU (the common case,
below), the request is there already and costs no turn of the loop. It reads so at most
``TURN_EVERY`` (8) requests in a row; then, and whenever that read comes up empty, it gives the
loop one turn (whatever is ready runs first: timers such as the pass's time limit and the
outcome's, other passes), reads the pipe without blocking, and goes on so, one loop turn at a time,
for up to ``POLL_SECONDS`` (50 µs). Nothing waits behind it: each turn runs the loop's ready callbacks
and its zero-timeout ``select``, and the end of the pipe (a worker killed by an interrupt or
a limit) ends the poll. A poll that comes up empty turns polling off for the next
``POLL_BACKOFF`` replies (64), as the worker's own poll does (``worker.PipeChannel``): on a
busy machine, or when host and worker share one CPU (Linux puts a task woken by a pipe write
beside its waker, so this is common), the worker cannot answer while the host polls. Even
then the one turn and the one read are kept: the worker has often run as soon as the reply
was written, and its request is in the pipe already, which saves the sleep and the wake-up.
Figures: docs/isolation.md, "The pipe".

``TURN_EVERY`` counts requests answered, not reads: a worker that writes its requests without waiting
for the replies (only a tampered one does) has hundreds in one 64 KiB read, and the lines already in
the buffer count as much as those read at once (before, 6,144 were answered between two turns of the
loop: 0.55-0.9 s stalls, and a 1 s time limit ended such a pass after 1.6-2.0 s). Whole requests
waiting in the buffer past ``BACKLOG`` (64 KiB) stop the reading (the worker then waits on its full
pipe), and a killed worker's buffer is dropped (:meth:`WorkerPipe.drain`) instead of split into lines
it would never be answered: the flood's pass now ends 1.04-1.07 s after it began, at most 9 requests
between turns (spec: tests/security/test_review9_read_at_once.py; a flood of 77-byte calls through
``PassHandler``, async connector, SQLite file, 3 runs each, load 2-3).

The floor under a call (issue 12; ``bench_executor.py --only calls``, 3,000 calls, load 1.4-3):

- two plain processes speaking JSON lines of the same shapes over blocking pipes: 35,000-50,000
  calls/s and ~10 µs of CPU each side when the kernel keeps both on one CPU (a pipe write wakes
  its reader beside the writer, which then sleeps), 7,800-9,700/s and 24-28 µs each when the
  wake-up crosses CPUs: bimodal, from one run to the next. Both ends busy-polling: 4,200-12,900/s;
  with the host on an asyncio loop, 13-14 µs of host CPU when the reader callback answers and
  17-19 µs when a task does (the future is one more loop turn);
- the same floor with the host committing each call to SQLite as the journal does (one commit
  per call, raw sqlite3): 15,000-21,000 calls/s, 1.0-1.3x bench_runtime's raw anchor. A process
  boundary alone does not put 2.5x of the floor out of reach;
- this executor with a host that answers at once: 9,300-19,800 calls/s, 25-39 µs of CPU on each
  side. Both ends still sleep once per call (perf: one context switch each; 3.8 syscalls a call
  on the host, 6.4 in the worker, most of them its spin's ``select``). Confinement costs a system
  call nothing measurable (a loop of ``clock_gettime`` on the CPU clock: 0.41-0.94 µs a call in
  the worker, 0.65-1.26 µs in a plain interpreter, 8 alternating runs). The sandbox's own Python
  is ~6 µs of a call (restricted code, proxies, codec, JSON).

Where a journaled call's wall time goes (issue 12; ``benchmarks/call_path.py``: the host's path
timestamped, 3,000 calls, medians of 3 runs at load 2.8 and at 1.7): the request's JSON and checks
9-12 µs, the arguments' canonical form, decoding and schema 9-11, the mark's commit 45-57 (the
previous call's outcome rides in it), the context and ``invoke`` 5-6, the result's encoding 6-8,
the reply's JSON 3-4: 77-98 µs of host work that a loop of the same calls does in ~42-48
(``bench_runtime``'s "host side alone"). Then the reply's ``os.write`` takes 40-48 µs: the worker,
woken on the host's CPU, runs its turn before the writer gets the CPU back (0.7-0.9 involuntary
switches of the loop thread per call); and 18-23 µs more pass before the next request is read.
The host's work costs ~2x its loop figure because other code runs on its CPU between two of its
calls (the sandbox's turn, other processes) and leaves its caches cold: the handler alone with
other memory read between calls (``call_path.py --cold``, 7 rounds) takes 48.5 µs of CPU a call
with none, 62.5 with 256 KiB, 63.7 with 1 MiB (the L2), 90.3 with 4 MiB. That, not a hop or an
allocation, is most of the ~40-50 µs that neither the round trip nor the handler alone shows.
Which CPU the worker ran on is not what decides it: 96 % of async calls follow a reply whose write
ran the worker's turn on the host's CPU, and the host's work after those against after the others
went 88.2 / 89.3 µs and 102.0 / 89.4 in two runs (sync 138.5 / 152.8, 120.3 / 130.1): no
consistent direction, so keeping the worker off the host's CPU is no lever found here.
Per-call allocations measured there and left alone (each under 0.6 µs, below what a paired run
resolves): the ``ExecutionContext`` 0.53 µs, ``inspect.iscoroutinefunction`` 0.27, a sync call's
``_Job`` 0.22 and ``isawaitable`` 0.24; the outcome's timer is armed at most once a millisecond;
the host's cyclic garbage collector ran no collection during a pass of 3,000 calls (gc.callbacks).

Tried and not kept (paired runs, load 2-4): reading in ``readline`` before yielding to the loop
(the commit of the call's outcome then ran after the next request was read, and a worker that
answers at once could keep the loop from its timers; kept later in a bounded form, below);
``os.sched_yield()`` in each look (with other work on the host's CPU it handed that CPU away: 97 µs
against 30 µs on separate CPUs); doubling the backoff after each empty poll up to 1,024 replies (no
change in the round trip, journaled calls 3,799 -> 2,758/s). Later (issue 12, medians of alternating clean trees, 3,000
calls, load 2-5), against the same code with both polls: the worker's spin at 0.1 ms instead of
0.3 (10 rounds; journaled async 1,479 -> 1,397/s, sync 1,914 -> 1,913/s); no worker spin (6
rounds; async 3,267 -> 3,338/s, sync 2,126 -> 2,886/s, the at-once round trip 10,144 -> 8,284/s);
no host poll (6 rounds; 3,210 / 2,216 / 4,505/s); neither (8 rounds; async 3,238 -> 3,356/s, sync
3,151 -> 2,697/s, round trip 13,178 -> 6,782/s with the host's CPU per call 27.7 -> 49.8 µs).
Neither, and no look at all after a reply (the floor's shape: each end sleeps as soon as it has
written; 8 rounds, load 3.3): the at-once round trip 11,910 -> 11,203/s (worker CPU 28.1 -> 23.8
µs a call), journaled async 3,328 -> 2,448/s, sync 3,109 -> 3,173/s. Without the blocking floor's
one-CPU placement, which sleeping alone did not bring back, no variant won at every rate.

Kept later (issue 12): the read at once after a reply, before any turn of the loop, bounded by
``TURN_EVERY``. What had kept it out is gone: a call's outcome is no longer committed in a ready
callback but in the next call's mark (passes.py), and the bound keeps the loop's timers and other
passes turning. Paired, 8 interleaved rounds from clean trees (``bench_runtime.journaled_rate``'s
loop: 3,000 async calls through the runtime, the isolated executor and a SQLite file, median of 3;
load 1.9-3.2, another helper's process holding one CPU): 3,131 -> 4,093 calls/s and host CPU
165.9 -> 130.7 µs a call (each better in 6 of 8); loop turns per call 1.14-1.22 -> 0.23 when the
worker ran on the host's CPU (1.05 when it did not: the read comes up empty and the poll follows).

Tried and not kept (issue 12): the same spin on the thread that holds a run of sync calls
(``isolated._Replies.next_request``): after a reply, non-blocking reads for up to ``POLL_SECONDS``
before it sleeps in ``poll``, with the ``POLL_BACKOFF`` back-off after an empty spin. It holds the
GIL between its reads (the loop thread cannot run meanwhile). Paired, interleaved rounds from
clean trees a534d67 vs the same with the spin (3,000 sync calls through the runtime, the isolated
executor and a SQLite file, median of 3 a round), medians of each set, in order: 8 rounds at load
2.2-3.8, 4,553 -> 3,720 calls/s (better in 2 of 8) and host CPU 120.5 -> 122.9 µs a call (better
in 3 of 8); 8 at load 3.5-4.2, 3,157 -> 3,313/s (5 of 8), 131.1 -> 115.2 µs (6 of 8); 10 at load
3.4-4.0, 3,921 -> 3,090/s (4 of 10), 131.2 -> 132.7 µs (3 of 10). In all, better in 11 and 12 of
26 rounds. (One more set with both trees at ``nice -10``, which was meant to stand in for a quiet
machine, 8 rounds at load 3.0-3.6: 3,159 -> 3,522/s, 6 of 8; 132.8 -> 120.3 µs, 5 of 8.) Not
measured on a quiet machine, where a sleeping thread's wake-up costs most (above).

Tried and not kept (issue 12): with polling off (``skip_poll``), sleeping in the loop as soon as the
read at once comes up empty, without the one turn and the one read of a back-off reply. Counted
over 9,000 async calls (two runs, load 3.5-4): such a turn and read found the request after 24 of
734 and 178 of 6,182 empty reads at once (3 %); the rest were a loop turn and a failed ``read`` for
nothing. Paired, interleaved rounds from clean trees (a534d67 vs the change; 3,000 async calls through
the runtime, the isolated executor and a SQLite file, median of 3 a round), medians of each set: 8
rounds at load 4.0-6.3 (this tree's tests running beside them), 1,559 -> 2,184 calls/s (better in 6 of 8),
host CPU 195.5 -> 155.7 µs a call (7 of 8); 8 at load 5.2-6.9, 1,615 -> 1,214/s (1 of 8), 177.4 ->
193.3 µs (3 of 8); 12 at load 3.4-4.7, 2,597 -> 2,521/s (6 of 12), 153.1 -> 159.3 µs (7 of 12). In
all better in 13 (rate) and 17 (CPU) of 28 rounds, each set's rates bimodal (1,400-2,800 or
4,600-5,800/s, the worker beside the host or not): no difference this machine resolves.

With one CPU to run on (the thread's affinity, ``os.sched_getaffinity``, read when the pipe is made)
the host never polls: the worker cannot run while the host looks, so only the one turn and the one
read are kept (issue 12, s13c); the worker does the same (``worker.PipeChannel``). On one CPU
(``taskset -c``, both trees of a paired run; 3,000 calls, 8 interleaved rounds at load 5.3-5.9) the
worker's CPU per journaled call fell 34.6 -> 30.9 µs (async) and 33.1 -> 28.6 µs (sync), lower in 8
of 8 rounds each; the rates did not move beyond the load's noise (per-round ratios 1.05 and 0.93,
better in 5 and 3 of 8). With two CPUs nothing changes; on a quiet machine (8 rounds at load 1.1-1.3)
the parent against this: async 1.04x (better in 6 of 8), sync 1.03x (5 of 8), no journal 1.08x (5 of 8).

Tried and not kept (s13c): getting host and worker onto separate CPUs. Both ends look for the other's
line only while they run on separate CPUs; beside each other (Linux wakes a task a pipe write wakes on
its waker's CPU when its own is busy) they take turns, one context switch each per call. Pinned apart
with both looks never backing off, the figures are there to win (3,000 calls, 2 rounds at load 3.4-3.6:
async 6,408 -> 9,420 journaled calls/s, host CPU 113.6 -> 93.8 µs a call; no journal 30,617 ->
42,601/s), but not with two busy loops beside (3 rounds at load 4.2-5.9: async 1.02x, sync 0.73x),
and unpinned, never backing off, 0.32x async, 0.62x sync and 0.10x with no journal (3 rounds at load
1.8-3.0: both looking on one CPU). So the host moved off the
worker's CPU when the worker kept running beside it: after 32 replies in a row whose next request was
in the pipe at once (the reply's write ran the worker on the host's CPU), ``sched_setaffinity`` of the
thread without its CPU (``sched_getcpu``) and then with it again (32 more each time, doubled up to
4,096), with a thread holding the conversation (``isolated._Replies.next_request``) looking for the next
request for up to ``POLL_SECONDS`` as the loop does. Paired, interleaved rounds (``s13c_calls.py``;
async, sync, no journal): 8 rounds started with at least one CPU idle (load 2.7-5.7) 1.14x, 1.15x, 1.42x
(better in 4, 5, 6 of 8); 8 at ``nice -20`` with no CPU idle (load 4.4-4.9) 1.00x, 1.02x, 0.64x (5, 4, 3
of 8); 5 more with a CPU idle (load 3.3-4.0) better in 2, 3, 3 of 5. Moving the worker instead (the
host sets its affinity), the worker spinning again whenever it woke on another CPU than its last empty
spin: 6 rounds at load 1.7-2.7, 0.98x, 1.02x, 0.82x (3, 4, 2 of 6). The worker moving itself off its
CPU after an empty spin: 0.50x, 0.58x, 0.91x (2 rounds at load 1.7): under load it changes CPU often,
and each move bought a 0.3 ms spin beside the host. Later, quiet (load 1.0-1.2, 8 rounds against
abf4639), the host's move with the holding thread's look: async 1.04x (better in 6 of 8), sync 1.16x (8
of 8, its host CPU 0.90x, 8 of 8), no journal 0.99x (4 of 8); but with two busy loops beside (6 rounds)
async 0.89x (2 of 6), sync 1.05x (3 of 6). The holding thread's look alone: quiet 1.04x sync (5 of 8;
its context switches 0.71 -> 0.41 a call, 8 of 8), two busy loops 1.05x (5 of 8), host CPU not lower
(3 and 2 of 8). No variant won in every case on this shared machine; neither was kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

from codemode_kernel.codec import MAX_VALUE_CHARS
from codemode_kernel.errors import LimitExceeded
from codemode_kernel.executor.base import MAX_REQUEST_TEXT

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,99}")
MAX_NAME = 200
MAX_TEXT = MAX_REQUEST_TEXT


class WorkerProtocolError(Exception):
    """The worker sent something the protocol does not allow; the pass is stopped."""


class LineTooLong(WorkerProtocolError):
    """A line from the worker is over the size limit."""


class RequestTooLarge(LineTooLong):
    """A message other than ``done`` is over the request limit: refused before it is read whole.

    An honest sandbox sends one when code passes an oversized value (or prints past the
    output limit), so it ends the pass with that limit's error, not as a crashed worker.
    """

    def __init__(self, op: str, limit: int) -> None:
        self.op = op
        if op == "output":
            self.error_type = LimitExceeded.__name__
            message = f"the pass printed more than {limit:,} bytes at once. Print less, or return a summary instead."
        else:
            self.error_type = "ValueTooLarge"
            message = (f"the sandbox sent a {op!r} request of more than {limit:,} bytes; values crossing the Code "
                       f"Mode boundary are limited to {MAX_VALUE_CHARS:,} characters. Store the data elsewhere "
                       "(a file, a connector) and pass a small reference such as a path or an id instead.")
        super().__init__(message)


# Every message starts with its op (the worker serializes dicts in insertion order, "op" first),
# so the host knows a line's kind from its first bytes, before the line has arrived whole. Only
# the pass's final report may be larger than a request.
_DONE_PREFIX = b'{"op":"done"'
_OP_PREFIX = re.compile(rb'\{"op":"([a-z_]{1,20})"')


# The messages an honest sandbox may make too large (code passing a big value, or printing).
_SIZED_OPS = frozenset({"call", "step_done", "snippet", "output"})


def _peek_op(buffer: bytearray) -> str:
    found = _OP_PREFIX.match(buffer)
    return found.group(1).decode("ascii") if found else "unknown"


class WorkerPipe:
    """Line-oriented, non-blocking reads and writes on a worker's pipes within one loop."""

    #: Seconds the host keeps looking for the next request after a reply (module docstring).
    POLL_SECONDS = 50e-6
    #: Replies after which the host does not poll, once a poll came up empty.
    POLL_BACKOFF = 64
    #: Requests answered after their replies with no turn of the loop (read at once, or found in the
    #: buffer) before the loop gets a turn.
    TURN_EVERY = 8
    #: Bytes of whole requests waiting in the buffer past which the host stops reading the pipe (a
    #: worker that writes requests without waiting for their replies waits on its full pipe instead).
    BACKLOG = 1 << 16

    def __init__(self, loop: asyncio.AbstractEventLoop, out_fd: int, in_fd: int, err_fd: int,
                 buffer: bytearray, limit: int, request_limit: int | None = None, *,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.loop = loop
        self.out_fd = out_fd
        self.in_fd = in_fd
        self.err_fd = err_fd
        self.buffer = buffer          # owned by the worker: bytes survive a detach
        self.limit = limit            # the longest line (the pass's final report)
        self.request_limit = min(limit, request_limit if request_limit is not None else limit)
        self.paused = False           # reading stopped: the buffer holds more than a line may
        self.scanned = 0              # the buffer holds no newline before this index
        self.eof = False
        self.err = bytearray()
        self.waiter: asyncio.Future[None] | None = None
        self.attached = True
        self.skip_poll = 0            # replies left after which the host sleeps at once
        self.unturned = 0             # requests answered after a reply with no turn of the loop
        self.draining = False         # the worker was killed: what it writes is dropped (drain)
        self.clock = clock            # read once per loop turn of a poll
        try:  # one CPU: the worker cannot answer while the host polls, so it never does (s13c)
            self.polls = len(os.sched_getaffinity(0)) >= 2
        except OSError:
            self.polls = False
        # Called on the loop when the worker's stderr ends (it died or closed it): a connector's thread
        # holding the conversation may be in a connector, not reading (isolated._Replies.revoke).
        self.on_stderr_end: Callable[[], None] | None = None
        loop.add_reader(out_fd, self._readable)
        loop.add_reader(err_fd, self._stderr)

    def detach(self) -> None:
        if self.attached:
            self.attached = False
            for fd in (self.out_fd, self.err_fd):
                with contextlib.suppress(ValueError, OSError, RuntimeError):  # closed fd or loop
                    self.loop.remove_reader(fd)

    def _wake(self) -> None:
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _readable(self) -> None:
        try:
            data = os.read(self.out_fd, 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.eof = True
            self.loop.remove_reader(self.out_fd)
        elif not self.draining:  # a killed worker's bytes are nobody's
            self.buffer += data
            if len(self.buffer) > self.BACKLOG and self._backlogged():
                # Nobody is reading lines (the host is answering a request), or whole requests wait
                # (a worker that writes them without waiting for replies): stop taking bytes rather
                # than buffer without bound; readline resumes once it has consumed lines.
                self.paused = True
                self.loop.remove_reader(self.out_fd)
        self._wake()

    def _backlogged(self) -> bool:
        """Whether reading must stop: the buffer is past the longest line, or holds whole requests
        (at least one newline) beyond :attr:`BACKLOG` bytes."""
        if len(self.buffer) > self.limit + (1 << 16):
            return True
        if len(self.buffer) <= self.BACKLOG:
            return False
        if self.buffer.find(b"\n", self.scanned) >= 0:
            return True
        self.scanned = len(self.buffer)  # a long line arriving: scan each byte once
        return False

    def drain(self) -> None:
        """Drop what the worker wrote and has not been read (it was killed: nothing of it will be
        answered), and read on only to find the end of the pipe."""
        del self.buffer[:]
        self.scanned = 0
        self.draining = True
        if self.paused and self.attached and not self.eof:
            self.paused = False
            self.loop.add_reader(self.out_fd, self._readable)

    def _stderr(self) -> None:
        try:
            data = os.read(self.err_fd, 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.loop.remove_reader(self.err_fd)
            if self.on_stderr_end is not None:
                self.on_stderr_end()
            return
        self.err += data
        del self.err[:-4096]

    def stderr_tail(self, chars: int = 1500) -> str:
        """The last lines the worker wrote to stderr (a crash report), as plain text."""
        try:  # whatever is still in the pipe
            while data := os.read(self.err_fd, 1 << 16):
                self.err += data
        except OSError:
            pass
        text = bytes(self.err[-4096:]).decode("utf-8", "replace").strip()
        return text[-chars:]

    async def readline(self, *, soon: bool = False) -> bytes:
        """The next line, or b"" at end of file; :class:`LineTooLong` past the limit (a message
        other than ``done``: :class:`RequestTooLarge` past the request limit).

        ``soon``: the worker was just answered, so its next request is likely on its way: look
        for it for a moment before sleeping (the module docstring says why and how long).
        """
        if soon and self.unturned >= self.TURN_EVERY:
            # TURN_EVERY requests answered in a row with no turn of the loop, read at once or found
            # in the buffer (a worker that does not wait for its replies): the loop's turn first.
            self.unturned = 0
            await asyncio.sleep(0)
        at_once = soon  # no turn of the loop yet since the reply
        while True:
            index = self.buffer.find(b"\n", self.scanned)
            if index >= 0:
                self._check_size(index + 1)
                with memoryview(self.buffer) as view:  # one copy (a slice of the bytearray is another)
                    line = bytes(view[: index + 1])
                del self.buffer[: index + 1]
                self.scanned = 0
                if self.paused and self.attached and not self.eof and not self._backlogged():
                    self.paused = False
                    self.loop.add_reader(self.out_fd, self._readable)
                if at_once:
                    self.unturned += 1
                return line
            self.scanned = len(self.buffer)
            self._check_size(self.scanned)
            if self.eof:
                return b""
            if soon:
                soon = False
                if self.unturned < self.TURN_EVERY and self.attached and not self.paused:
                    self._readable()  # the worker often answered while the reply was written: no turn
                    if len(self.buffer) != self.scanned or self.eof:
                        continue
                self.unturned = 0
                at_once = False
                if await self._poll():
                    continue
            self.unturned = 0
            at_once = False
            self.waiter = self.loop.create_future()
            await self.waiter

    async def _poll(self) -> bool:
        """Look for more bytes a turn of the loop at a time, for up to ``POLL_SECONDS``; True if
        some came (or the end of the pipe)."""
        size = len(self.buffer)
        # A recent poll came up empty, or there is one CPU: one turn and one read only.
        skipped = self.skip_poll > 0 or not self.polls
        if self.skip_poll > 0:
            self.skip_poll -= 1
        deadline: float | None = None
        while True:
            # One turn of the loop: what is ready runs first, and the loop's own select reads
            # the pipe if the worker has written.
            await asyncio.sleep(0)
            if not self.attached or self.paused or len(self.buffer) != size or self.eof:
                return len(self.buffer) != size or self.eof
            self._readable()  # written while the ready callbacks ran (a commit takes tens of µs)
            if len(self.buffer) != size or self.eof:
                return True
            if skipped:
                return False
            now = self.clock()
            if deadline is None:
                deadline = now + self.POLL_SECONDS
            elif now >= deadline:
                self.skip_poll = self.POLL_BACKOFF
                return False

    def _check_size(self, size: int) -> None:
        if size > self.request_limit and not self.buffer.startswith(_DONE_PREFIX):
            op = _peek_op(self.buffer)
            if op in _SIZED_OPS:
                raise RequestTooLarge(op, self.request_limit)
            raise LineTooLong(f"a message longer than {self.request_limit:,} bytes that is not the pass's report")
        if size > self.limit:
            raise LineTooLong(f"a message longer than {self.limit:,} bytes")

    async def write(self, data: bytes) -> bool:
        """Write all of ``data``; False if the worker is gone."""
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.in_fd, view)
            except BlockingIOError:
                await self._writable()
                continue
            except OSError:  # BrokenPipeError: the worker died
                return False
            view = view[n:]
        return True

    async def _writable(self) -> None:
        future: asyncio.Future[None] = self.loop.create_future()

        def ready() -> None:
            self.loop.remove_writer(self.in_fd)
            if not future.done():
                future.set_result(None)

        self.loop.add_writer(self.in_fd, ready)
        try:
            await future
        finally:
            self.loop.remove_writer(self.in_fd)


def _text(message: Mapping[str, Any], key: str, limit: int = MAX_NAME) -> str:
    value = message.get(key)
    if not isinstance(value, str) or len(value) > limit:
        raise WorkerProtocolError(f"field {key!r} must be a string of at most {limit} characters")
    return value


def _count(message: Mapping[str, Any], key: str) -> int:
    value = message.get(key)
    if type(value) is not int or not 0 <= value <= 1_000_000:
        raise WorkerProtocolError(f"field {key!r} must be a whole number from 0 to 1000000")
    return value


def _error(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise WorkerProtocolError("an error must be an object with 'type' and 'message'")
    type_name = _text(value, "type")
    if not _NAME.fullmatch(type_name):
        raise WorkerProtocolError("an error type must be a Python name")
    return {"type": type_name, "message": _text(value, "message", MAX_TEXT)}


_FIELDS: dict[str, frozenset[str]] = {
    op: fields | {"replayed"}  # every request says how many journal entries the worker replayed itself
    for op, fields in {
        "call": frozenset({"op", "connector", "method", "args"}),
        "step": frozenset({"op", "name"}),
        "step_done": frozenset({"op", "name", "value", "raise"}),
        "search": frozenset({"op", "query", "limit", "connector"}),
        "describe": frozenset({"op", "target", "page", "full"}),
        "snippet": frozenset({"op", "name", "input"}),
        "fail": frozenset({"op", "type", "message"}),
    }.items()
}


def _replayed(message: Mapping[str, Any]) -> int:
    value = message.get("replayed", 0)
    if type(value) is not int or value < 0:
        raise WorkerProtocolError("'replayed' must be a non-negative integer")
    return value


def check_request(message: Mapping[str, Any], namespaces: Mapping[str, frozenset[str]]) -> dict[str, Any]:
    """Validate a request from the worker and rebuild it from its allowed fields only."""
    op = message.get("op")
    allowed = _FIELDS.get(op) if isinstance(op, str) else None
    if allowed is None:
        raise WorkerProtocolError(f"unknown request {op!r}")
    if not message.keys() <= allowed:  # compared in place: no set is built for a request that passes
        raise WorkerProtocolError(f"unexpected field(s) {sorted(set(message) - allowed)!r} in {op!r}")
    if op == "call":
        connector, method = _text(message, "connector"), _text(message, "method")
        if method not in namespaces.get(connector, frozenset()):
            raise WorkerProtocolError(f"a call to {connector}.{method}, which this pass was not given")
        args = message.get("args")
        if not isinstance(args, dict):
            raise WorkerProtocolError("call arguments must be an object")
        return {"op": op, "connector": connector, "method": method, "args": args, "replayed": _replayed(message)}
    if op == "step":
        return {"op": op, "name": _text(message, "name", MAX_TEXT), "replayed": _replayed(message)}
    if op == "step_done":
        out: dict[str, Any] = {"op": op, "name": _text(message, "name", MAX_TEXT)}
        if "raise" in message:
            out["raise"] = _error(message["raise"])
        elif "value" in message:
            out["value"] = message["value"]
        else:
            raise WorkerProtocolError("step_done needs 'value' or 'raise'")
        return out
    if op == "search":
        found: dict[str, Any] = {"op": op, "query": _text(message, "query", MAX_TEXT)}
        if message.get("limit") is not None:
            found["limit"] = _count(message, "limit")
        if message.get("connector") is not None:
            found["connector"] = _text(message, "connector")
        return found
    if op == "describe":
        described: dict[str, Any] = {"op": op, "target": _text(message, "target", MAX_TEXT)}
        if message.get("page") is not None:
            described["page"] = _count(message, "page")
        if message.get("full") is not None:
            if type(message["full"]) is not bool:
                raise WorkerProtocolError("'full' must be true or false")
            described["full"] = message["full"]
        return described
    if op == "snippet":
        return {"op": op, "name": _text(message, "name", MAX_TEXT), "input": message.get("input")}
    failure = _error(message)
    return {"op": op, **failure}
