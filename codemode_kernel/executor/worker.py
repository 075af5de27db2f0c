"""The sandbox worker: one process, one pass, then exit (DESIGN §11, issue 3).

A worker is either forked by a zygote (:mod:`codemode_kernel.executor.zygote`, the default
on Linux) or spawned by the host from a clean interpreter (``python -I -S``, empty
environment, only the three pipes open, a new session, never a fork of the host; this
module's :func:`main`). Either way it is confined before it reads its pass
(:mod:`codemode_kernel.executor.confinement`) and then talks to the host in strict JSON
lines::

    host -> worker   {"op": "config", ...}   spawned only: "parent_pid", "empty_root", "limits"
    worker -> host   {"op": "ready", "pid", "isolation": {...}}      (after confinement; a forked
                                             worker says pid 0: the host records the pid it sees)
    host -> worker   {"op": "run", "code", "namespaces", "inputs", "capture_variables", "replay"}
    worker -> host   requests of executor/base.py, each answered by one host line
                     {"op": "output", "text"}                         (notifications)
                     {"op": "done", "result"?, "error"?, "variables"}  (then the worker exits)

The ``isolation`` report says what this OS allowed; the host exposes it as
``SubprocessExecutor.isolation``. The design log of how a pass gets its process is at the
top of ``zygote.py``.

It imports nothing from the host side of the package; keep it that way (the tests check
the worker's imports with ``python -X importtime``).

Design log, the worker's side of a call (issue 12, s10w). Where a call's worker CPU goes, from
/proc (utime, stime, context switches) between a pass's first and last of 20,000 calls, load ~4:
a host that answers at once, 56.5 µs a call (user 44.0, system 12.5), 0.90 voluntary switches; a
journaled async call through the runtime, 89.7 µs (user 76.5, system 13.0), 0.99 voluntary
switches: the worker sleeps on nearly every call and its spin is mostly backed off, yet the same
Python takes 17 µs in a loop run hot in one process (``benchmarks/s10w_worker.py call``). The rest is
the switch and caches the host's turn has emptied, so each Python call and object saved on the path
counts several times over. Kept: the request written with one ``os.write`` (``PipeChannel.write``),
one C encoder for every line (``dumps_line``), and in ``sandbox.py`` a shorter call path (one
request dict, no ``ask`` checks a call never needs, the guard's short way to a connector's method).
Paired, 6 alternating rounds from clean trees (efbfc8c vs the change; load 4.2-6.9, the other
helpers' tests on both cores), medians of the rounds' medians: the sandbox's Python per call (hot, in
one process) 17.0 -> 9.6 µs (lower in 6 of 6); through SubprocessExecutor with a host that answers at
once, worker CPU 71.2 -> 52.5 µs a call (6 of 6), 2,698 -> 3,537 calls/s (5 of 6); journaled async
calls through the runtime (SQLite file), worker CPU 93.1 -> 84.1 µs (5 of 6), 919 -> 1,006 calls/s
(4 of 6).

Measured and not decided (2 rounds only, load 2.4-4.0; ``SPIN`` at 0.3 ms, 0.05 ms and 0, 3,000
calls, medians of 3): worker CPU per journaled async call 80.7 / 79.0 / 72.9 and 110.4 / 85.9 / 77.4
µs, calls/s 2,019 / 1,243 / 3,032 and 683 / 1,329 / 2,589; sync 72.9 / 80.1 / 68.1 and 89.4 / 79.7 /
83.9 µs; a host that answers at once 50.8 / 47.2 / 48.5 and 56.3 / 57.1 / 61.9 µs, 5,944 / 8,018 /
10,718 and 4,257 / 4,367 / 6,793 calls/s. At that load the spin is off most of the time
(``SPIN_BACKOFF``) and the rates swing 2-4x between runs: the question of the spin on a quiet machine
is open (channel.py's log has the earlier rounds).

Session 11 removed the spin (c5c02e0: at load 4.7-7.7 the worker's CPU per call fell in every figure,
e.g. 30.3 -> 25.9 us with a host answering at once, and no rate fell in most rounds) and restored it the
same day: on a quiet machine (load 0.0-1.0, the notebook's usual case) make bench's at-once round trip
went from 49.5 us to 425 us (raw pipe anchor 56.7 us in that run), and paired runs of
bench_executor.call_round_trip (3,000 calls, quiet) gave a median gap of 28.3 / 28.4 us (29af984, with the
spin) against 85.9 / 130.7 us (without), and 31.0 / 23.8 us with the spin restored on top of the session's
other changes: each blocking read costs a cross-CPU wake-up (~25-35 us on these VMs), which the spin
avoids when the host answers within 0.3 ms. The spin backs off under load (SPIN_BACKOFF), which is where
the removal's CPU saving came from.

Session 13 (s13c): a worker that may run on one CPU only (``os.sched_getaffinity``, a system call on
itself that confinement allows) never spins: the host cannot answer while it does. Figures in
channel.py's log.

Tried and not kept (s13c): empty spins in a row backing off longer each time (``SPIN_BACKOFF``
doubled up to 1,024 requests, a reply found while spinning starting over; 383f5f9, reverted). Beside
a busy host every spin comes up empty and takes 0.3 ms of the CPU the host needs, one request in 65,
and under load it saved that: paired, interleaved rounds against abf4639 (``benchmarks/s13c_calls.py``,
3,000 calls through the runtime, the isolated executor and a SQLite file), 8 rounds at load 6.1-7.3,
worker CPU per call async 32.1 -> 25.5 µs (lower in 8 of 8), sync 30.4 -> 24.3 (8 of 8), calls/s 1.03x
(better in 5 of 8) and 0.86x (2 of 8); with two busy loops beside (load 7.0-8.6) worker CPU 0.87x and
0.89x (7 of 8 each), calls/s 1.02x and 1.14x. But on a quiet machine, where host and worker run on
separate CPUs and a spin finds its reply, one disturbance now cost hundreds of requests of sleeping:
8 rounds at load 0.9-1.1, async 0.96x (better in 1 of 8), sync 1.01x (5 of 8), no journal 0.70x (2 of
8), more context switches on both sides; against the parent of both commits at load 1.0-1.2, async
0.91x (2 of 8), sync 0.95x (2 of 8), no journal 0.83x (1 of 8).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import IO, Any, Protocol

from codemode_kernel.codec import dumps_encoded
from codemode_kernel.errors import LimitExceeded
from codemode_kernel.executor.confinement import Libc, confine, mib, preload, set_parent_death_signal
from codemode_kernel.executor.stream import output_stream

# ---------------------------------------------------------------------------------------
# Framing (shared with the host side: one JSON document per line, UTF-8, no NaN)


# One C encoder per thread for every line it writes, with codec's compact options (ensure_ascii
# off, no NaN) and its own dict of the containers being encoded (cycles are refused as json refuses
# them). That dict is empty again after each encoding that succeeds and is emptied after one that
# fails, so a refused message leaves nothing behind. codec.dumps_encoded builds an encoder per
# document (0.4-0.6 µs of a call's request, issue 12). Per thread, not per process: the host
# imports this function too and writes lines from the event loop, connector threads and the pool
# thread, and the C encoder runs Python mid-message (a Mapping's items(), ``default``), where the
# GIL can pass: a shared marks dict let one thread's refused message break another's valid one
# (review 10, tests/executor/test_review10_line_encoder.py).
class _LineEncoder(threading.local):
    def __init__(self) -> None:
        self.markers: dict[int, Any] = {}
        self.encode: Callable[[Any, int], Any] | None = None
        if (make := getattr(json.encoder, "c_make_encoder", None)) is not None:
            self.encode = make(self.markers, json.JSONEncoder().default, json.encoder.encode_basestring, None,
                               ":", ",", False, False, False)


_LINES = _LineEncoder()


#: Requests whose values the host journals (a call's arguments, a step's value, a snippet's input):
#: a lone surrogate in one is refused in the sandbox, not replaced with U+FFFD as in other lines.
_VALUE_OPS = frozenset({"call", "step_done", "snippet"})


def dumps_line(message: Mapping[str, Any]) -> bytes:
    """Serialize one protocol message as a strict JSON line."""
    lines = _LINES
    encode = lines.encode
    if encode is not None and type(message) is dict:
        try:
            text = "".join(encode(message, 0))
        except BaseException:
            lines.markers.clear()
            raise
    else:
        text = dumps_encoded(message)  # the same options (codec's compact encoder)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        if type(message) is dict and message.get("op") in _VALUE_OPS:
            raise  # values the host would journal: the sandbox refuses them (review 12), never altered
        # Lone surrogates (e.g. chr(0xD800)) have no UTF-8 form; pair what pairs and
        # replace the rest with U+FFFD rather than sending bytes the other side rejects.
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        data = text.encode("utf-8")
    return data + b"\n"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not strict JSON")


# Built once: json.loads with options builds a new decoder per call.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
_SPACE = " \t\n\r"  # JSON's whitespace


def loads_line(line: bytes) -> Any:
    """Parse one line as strict JSON (UTF-8, no NaN/Infinity).

    The decoder's scanner is called directly (what ``JSONDecoder.decode`` does around it, in
    Python, costs as much as the scan of a call's request or reply: issue 12), with the same
    outcome: one JSON document, whitespace around it, anything else a ``JSONDecodeError``.
    """
    text = line.decode("utf-8")
    if not text or text[0] in _SPACE:
        return _DECODER.decode(text)
    try:
        value, end = _SCAN(text, 0)
    except StopIteration as exc:
        raise json.JSONDecodeError("Expecting value", text, exc.value) from None
    if end != len(text) and (extra := text[end:].lstrip(_SPACE)):
        raise json.JSONDecodeError("Extra data", text, len(text) - len(extra))
    return value


# ---------------------------------------------------------------------------------------
# The pass


class PipeChannel:
    """The sandbox's :class:`~codemode_kernel.executor.sandbox.Channel` over the worker's pipes."""

    #: Seconds to poll for the reply before blocking. A blocked worker woken on an idle
    #: (virtual) CPU takes tens of µs to run again, as long as the whole round trip; most
    #: replies come within this window. Costs at most this much CPU per slow call.
    SPIN = 0.0003
    #: Requests that block at once after a reply that did not come within ``SPIN``. On a busy
    #: machine (every core taken) the reply is late and the spinning worker takes CPU time from
    #: the host that is answering it: with the spin on every call, journaled calls ran at half
    #: the rate they reach without it (load 10 on 2 cores, issue 12). So a miss turns the spin
    #: off for this many requests, and a hit keeps it on.
    SPIN_BACKOFF = 64

    def __init__(self, reader: IO[bytes], writer: IO[bytes]) -> None:
        self.reader = reader
        self.writer = writer
        self.fd = reader.fileno()
        self.out = writer.fileno()
        self.skip_spin = 0
        try:  # on one CPU the host cannot answer while this process spins: it never does
            self.spins = len(os.sched_getaffinity(0)) >= 2
        except OSError:
            self.spins = False
        writer.flush()  # lines go to the fd itself from here (see write)

    def write(self, data: bytes) -> None:
        """Write a whole line to the host's pipe with ``os.write`` (the buffered writer's write and
        flush are two calls of Python for what is one system call, issue 12)."""
        written = os.write(self.out, data)
        if written < len(data):  # a pipe write interrupted by a signal may be partial: the rest through a
            with memoryview(data) as view:  # view, so nothing as long as the line is allocated mid-line
                while written < len(view):
                    written += os.write(self.out, view[written:])

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.write(dumps_line(message))
        # Each reply is one line and nothing else arrives meanwhile, so the buffered reader
        # holds nothing here and the fd tells whether the reply is in.
        if self.skip_spin:
            self.skip_spin -= 1
        elif self.spins:
            deadline = time.perf_counter() + self.SPIN
            while not select.select((self.fd,), (), (), 0)[0]:
                if time.perf_counter() >= deadline:
                    self.skip_spin = self.SPIN_BACKOFF
                    break
        line = self.reader.readline()
        if not line:  # the host is gone or ended the pass: nothing left to do
            os._exit(0)
        reply = loads_line(line)
        if not isinstance(reply, dict):
            raise ValueError("the host sent a reply that is not a JSON object")
        return reply

    def notify(self, message: dict[str, Any]) -> None:
        self.write(dumps_line(message))


class ServePlan:
    """What :func:`serve` needs from the configuration, worked out once.

    A zygote makes it once for all its children: each child made it again from the
    configuration, and the messages it builds (the hint, the out-of-memory ``done`` line)
    copied pages it shares with the zygote (issue 12).
    """

    def __init__(self, config: Mapping[str, Any]) -> None:
        limits = config["limits"]
        self.max_output_chars = int(limits["max_output_chars"])
        self.max_kept_output_chars = int(limits["max_kept_output_chars"])
        self.max_calls = int(limits["max_calls"])
        self.max_result_chars = int(limits["max_result_chars"])
        memory = limits.get("max_memory_bytes")
        self.hint = (f"the worker's address space is limited to {mib(int(memory))} (Limits.max_memory_bytes="
                     f"{int(memory)}). Process less data at once, or raise the limit.") if memory else ""
        # Built before the pass, so that it can still be sent when memory has run out.
        self.fallback = dumps_line({"op": "done", "error": {
            "type": LimitExceeded.__name__, "message": "the pass ran out of memory (MemoryError); " + self.hint,
            "lineno": None, "traceback": ""}, "variables": {}})


def serve(config: Mapping[str, Any], reader: IO[bytes], writer: IO[bytes],
          run_pass: Callable[..., dict[str, Any]], plan: ServePlan | None = None) -> None:
    """Read one ``run`` message, run the pass, write ``done``."""
    line = reader.readline()
    if not line:
        return
    message = loads_line(line)
    if plan is None:
        plan = ServePlan(config)
    channel = PipeChannel(reader, writer)
    writer.write(_run_message(message, channel, run_pass, plan))
    writer.flush()


def _run_message(message: Mapping[str, Any], channel: Channel, run_pass: Callable[..., dict[str, Any]],
                 plan: ServePlan) -> bytes:
    """Run the pass a ``run`` message asks for, talking through ``channel``; its ``done`` line."""
    output = output_stream(channel.notify, plan.max_output_chars, plan.max_kept_output_chars)
    try:
        with output.signal_ticks():  # printed text waits at most 50 ms, even while the code computes
            done = run_pass(message["code"], message["namespaces"], message.get("inputs") or {}, channel,
                            max_output_chars=plan.max_output_chars, max_calls=plan.max_calls,
                            max_result_chars=plan.max_result_chars, out_of_memory_hint=plan.hint,
                            capture_variables=bool(message.get("capture_variables", True)),
                            replay=message.get("replay") or (), output=output,
                            variables_budget=plan.max_result_chars)
        done.pop("logs", None)  # the host keeps the streamed output itself
        return dumps_line(done)
    except MemoryError:
        return plan.fallback


class Channel(Protocol):
    """What a pass talks to the host through (``sandbox.Channel``; this module imports no sandbox)."""

    def request(self, message: dict[str, Any]) -> dict[str, Any]: ...

    def notify(self, message: dict[str, Any]) -> None: ...


class Rehearsal:
    """A warm-up's channel: answers every call with nothing, sends nothing anywhere."""

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        return {"value": None}

    def notify(self, message: dict[str, Any]) -> None:
        pass


def rehearse(source: str, reader: IO[bytes], writer: IO[bytes], run_pass: Callable[..., dict[str, Any]],
             plan: ServePlan) -> None:
    """Go through :func:`serve`'s steps for constant code of ours (a warm-up slice), saying nothing to the host.

    The ``run`` line is encoded here and parsed as a pass's is, the pass's channel is made on the
    real pipes (made only: it never writes), and the code runs as a pass runs, with the output
    stream and its ``SIGALRM`` ticker, talking to a :class:`Rehearsal` instead. A forked child's
    first pass touched all of that for the first time (reading the line, the channel, the stream,
    the ticker's handler and timer: ~35 copy-on-write faults and ~250 us of a spaced pass, issue 12,
    s12s); a warm-up that ran only the code left it to the pass.
    """
    line = dumps_line({"op": "run", "code": source, "namespaces": {"warm": ["up"]}, "inputs": {"given": 1},
                       "capture_variables": True})
    PipeChannel(reader, writer)
    _run_message(loads_line(line), Rehearsal(), run_pass, plan)


def ready_message(report: Mapping[str, Any], pid: int, priority: int) -> dict[str, Any]:
    """The ``ready`` message: the isolation report with the worker's priority and pid."""
    return {"op": "ready", "pid": pid, "isolation": {**report, "priority": f"nice {priority}", "pid": pid}}


def announce_and_serve(config: Mapping[str, Any], report: dict[str, Any], pid: int, reader: IO[bytes],
                       writer: IO[bytes], run_pass: Callable[..., dict[str, Any]],
                       plan: ServePlan | None = None) -> None:
    """Say ``ready`` with the isolation report, then serve one pass unless confinement was refused."""
    writer.write(dumps_line(ready_message(report, pid, os.getpriority(os.PRIO_PROCESS, 0))))
    writer.flush()
    if "refused" not in report:
        serve(config, reader, writer, run_pass, plan)


def main() -> None:
    """Entry point of a spawned worker process."""
    reader, writer = sys.stdin.buffer, sys.stdout.buffer
    line = reader.readline()
    if not line:
        return
    config = loads_line(line)
    libc = Libc()
    set_parent_death_signal(libc, int(config["parent_pid"]))
    # Start-up (imports, ~50 ms of CPU) runs in the background of the pass that is running
    # now and of the host: at low priority. The pass itself gets normal priority back where
    # that is allowed (root); elsewhere it keeps the lower one.
    priority = os.getpriority(os.PRIO_PROCESS, 0)
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, 0, min(priority + 10, 19))
    from codemode_kernel.executor.sandbox import run_pass

    preload()
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, 0, priority)
    announce_and_serve(config, confine(config), os.getpid(), reader, writer, run_pass)
    # Skip interpreter teardown: the pass is over and nothing needs to be cleaned up.
    os._exit(0)


if __name__ == "__main__":
    main()
