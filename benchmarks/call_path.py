"""Where a journaled call's wall time goes on the host, end to end (issue 12).

Run: .venv/bin/python benchmarks/call_path.py [--calls 3000] [--rounds 3] [--json] [--cold]

One execution of ``--calls`` journaled calls through the public runtime, the isolated executor
and a SQLite journal, once with an async connector and once with a sync one (which runs in a
connector thread). The host's side of each call is timestamped at the points it passes through
(the methods are wrapped for this run only; each wrapper costs ~0.3 µs, so the figures are a
little above the plain path's), and each segment's median over the calls is printed:

- ``parse``: the request line read → the pass's handler entered (JSON, the request's checks);
- ``prepare``: → the call's journal mark begins (arguments' canonical form, decoding, schema);
- ``mark``: the mark's commit, with the previous call's outcome in it (one commit per call);
- ``context``: → ``invoke`` called (the execution context);
- ``enter``: → the connector's code runs (``invoke``; a sync call: the thread's wake-up);
- ``return``: the connector returned → back on the loop (a sync call: → its thread makes the reply);
- ``result``: → the reply is ready (the result's encoding, the outcome kept for the next mark);
- ``serialize``: the reply as a JSON line (a sync call: 0, it is in ``write``);
- ``write``: the reply's ``os.write``. When the worker is asleep, the kernel often wakes it on
  the host's CPU and runs it at once: this segment then holds the worker's whole turn. A sync
  call's connector thread answers it (passes.py): ``enter`` to ``write`` run on that thread,
  while the loop has gone back to its pipes. In a run of sync calls the thread holds the
  conversation (passes.py, "holds the conversation"): it reads and checks each request itself, so
  ``read`` is when the checked request reaches the handler (``PassHandler._take``): the line's read,
  JSON and checks fall in ``worker`` and ``parse`` is ~0; ``context`` and ``enter`` hold the
  ``ExecutionContext`` and the run on the same thread (no wake-up);
- ``worker``: reply written → the next request read (the worker's turn, or what is left of it,
  and the host's poll or sleep).

Then the host's work on a call (request read to reply ready) in two groups, by the write of the
reply before it: one that took ``HELD`` µs or more ran the worker on the host's CPU (the host's
caches then hold the worker's memory), a quicker one left the worker elsewhere.

Beside them, per call: the loop thread's CPU and its voluntary / involuntary context switches,
the other host threads' CPU and switches (the connector thread), from ``/proc/self/task``.
It asserts nothing; figures swing with the machine's load, so compare runs made together. A
call whose points are not all seen in order (a connector thread's last stamp after the next
request was read) is left out: "% of calls with every point" says how many were kept.

``--cold`` instead asks what the state of the CPU's caches does to the host's own work: the
pass's handler alone (``bench_runtime``'s "host side alone": requests handed straight to
:class:`PassHandler` over a SQLite journal, an async connector, no sandbox), with 0 to 4 MiB of
other memory read between calls (one byte per 64-byte line, outside the timed part), as the
sandbox's turn and other processes do to the host between two of its calls. The machine's L2 is
1 MiB per core. Rounds alternate the sizes; thread CPU per call, medians.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codemode_kernel import CodemodeRuntime, ToolSetConnector, passes
from codemode_kernel.catalog import Catalog
from codemode_kernel.executor import channel, isolated
from codemode_kernel.executor.isolated import SubprocessExecutor
from codemode_kernel.journal import JournalStore
from codemode_kernel.runtime_journal import open_journal

HELD = 10.0  # µs: a reply's write that took longer ran the worker's turn before it returned
SEGMENTS = ("parse", "prepare", "mark", "context", "enter", "return", "result", "serialize", "write", "worker")
# The points a call passes, in order; segment i runs from POINTS[i] to POINTS[i + 1].
POINTS = ("read", "handler", "mark0", "marked", "invoke", "fn", "invoked", "handled", "write0", "written", "next")

marks: list[tuple[str, int]] = []
now = time.perf_counter_ns


def noop(i: int = 0) -> int:
    """Return i (sync: runs in a connector thread)."""
    marks.append(("fn", now()))
    return i


async def noop_async(i: int = 0) -> int:
    """Return i (async: runs on the loop)."""
    marks.append(("fn", now()))
    return i


def _instrument() -> None:
    def around_async(owner: Any, name: str, before: str, after: str) -> None:
        original = getattr(owner, name)

        async def wrapped(*args: Any, **kwargs: Any) -> Any:
            if before:
                marks.append((before, now()))
            result = await original(*args, **kwargs)
            marks.append((after, now()))
            return result

        setattr(owner, name, wrapped)

    around_async(channel.WorkerPipe, "readline", "", "read")
    around_async(channel.WorkerPipe, "write", "write0", "written")
    around_async(passes, "invoke", "invoke", "invoked")
    answer = passes.PassHandler.answer_later

    async def timed_answer(*args: Any, **kwargs: Any) -> Any:
        marks.append(("handler", now()))
        reply = await answer(*args, **kwargs)
        if reply is not None:  # answered on the loop (a connector's thread marks its own reply)
            marks.append(("handled", now()))
        return reply

    passes.PassHandler.answer_later = timed_answer  # type: ignore[method-assign]
    # A sync call: handed off on the loop, answered and written on the connector's thread.
    hand_off: Callable[..., Any] = passes.PassHandler._hand_off
    deliver: Callable[..., Any] = passes.PassHandler._deliver
    send: Callable[..., Any] = isolated._Replies.send

    def timed_hand_off(*args: Any, **kwargs: Any) -> Any:
        marks.append(("invoke", now()))
        return hand_off(*args, **kwargs)

    def timed_deliver(*args: Any, **kwargs: Any) -> Any:
        marks.append(("invoked", now()))
        return deliver(*args, **kwargs)

    def timed_send(*args: Any, **kwargs: Any) -> Any:
        stamp = now()
        marks.extend((("handled", stamp), ("write0", stamp)))
        result = send(*args, **kwargs)
        marks.append(("written", now()))
        return result

    # A run of sync calls on the thread that holds the conversation (passes.py, _Held): the thread
    # reads and checks each request (isolated._Replies.next_request), then hands it to _take.
    take: Callable[..., Any] = passes.PassHandler._take
    answered: Callable[..., Any] = passes.PassHandler._answered

    def timed_take(*args: Any, **kwargs: Any) -> Any:
        stamp = now()
        marks.extend((("read", stamp), ("handler", stamp)))
        got = take(*args, **kwargs)
        if isinstance(got, tuple):  # a call this thread runs
            marks.append(("invoke", now()))
        return got

    def timed_answered(*args: Any, **kwargs: Any) -> Any:
        marks.append(("invoked", now()))
        return answered(*args, **kwargs)

    passes.PassHandler._hand_off = timed_hand_off  # type: ignore[method-assign]
    passes.PassHandler._deliver = timed_deliver  # type: ignore[method-assign]
    passes.PassHandler._take = timed_take  # type: ignore[method-assign]
    passes.PassHandler._answered = timed_answered  # type: ignore[method-assign]
    isolated._Replies.send = timed_send  # type: ignore[method-assign]
    insert: Callable[..., Any] = passes.PassHandler._insert

    def timed_insert(*args: Any, **kwargs: Any) -> Any:
        marks.append(("mark0", now()))
        result = insert(*args, **kwargs)
        marks.append(("marked", now()))
        return result

    passes.PassHandler._insert = timed_insert  # type: ignore[method-assign]


def _threads() -> dict[str, tuple[int, int, int]]:
    """Per thread of this process: CPU ns, voluntary and involuntary context switches."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                cpu = int(f.read().split()[0])
            with open(f"/proc/self/task/{tid}/status") as f:
                status = f.read()
        except OSError:  # the thread ended
            continue
        voluntary = int(status.split("\nvoluntary_ctxt_switches:")[1].split()[0])
        involuntary = int(status.split("nonvoluntary_ctxt_switches:")[1].split()[0])
        out[tid] = (cpu, voluntary, involuntary)
    return out


async def trace(tmp: Path, n: int, fn: Any) -> dict[str, float]:
    conn = ToolSetConnector([fn], name="noop")
    path = tmp / f"path-{fn.__name__}.db"
    path.unlink(missing_ok=True)
    async with CodemodeRuntime([conn], store=f"sqlite:///{path}", executor=SubprocessExecutor()) as rt:
        await rt.execute("1")  # warm up
        await asyncio.sleep(0.3)
        marks.clear()
        before = _threads()
        start = time.perf_counter()
        out = await rt.execute(f"for i in range({n}):\n    noop.{fn.__name__}(i=i)\n'done'")
        elapsed = time.perf_counter() - start
        after = _threads()
        assert out["status"] == "completed", out
    calls: list[dict[str, int]] = []
    current: dict[str, int] = {}
    for name, stamp in marks:
        if name == "read":
            if len(current) == len(POINTS) - 1:
                current["next"] = stamp
                calls.append(current)
            current = {}
        current[name] = stamp
    whole = len(calls)
    calls = calls[n // 20: -n // 20 or None]  # the pass's start and end are not a call's path
    figures: dict[str, float] = {"calls/s": n / elapsed, "% of calls with every point": 100 * whole / n}
    for segment, (a, b) in zip(SEGMENTS, itertools.pairwise(POINTS), strict=True):
        figures[segment] = statistics.median((c[b] - c[a]) / 1e3 for c in calls)
    figures["sum of medians"] = sum(figures[s] for s in SEGMENTS)
    figures["median call"] = statistics.median((c["next"] - c["read"]) / 1e3 for c in calls)
    # The host's work on a call (request read -> reply ready), split by where the worker ran
    # just before: a reply whose write took >= HELD µs held the worker's turn on the host's CPU.
    pairs = list(itertools.pairwise(calls))
    held = [(c["write0"] - c["read"]) / 1e3 for p, c in pairs if p["written"] - p["write0"] >= HELD * 1e3]
    apart = [(c["write0"] - c["read"]) / 1e3 for p, c in pairs if p["written"] - p["write0"] < HELD * 1e3]
    figures["% of calls after a held write"] = 100 * len(held) / max(len(pairs), 1)
    figures["host work, after a held write"] = statistics.median(held) if held else float("nan")
    figures["host work, after a quick write"] = statistics.median(apart) if apart else float("nan")
    main = str(os.getpid())
    zero = (0, 0, 0)
    figures["loop CPU"] = (after[main][0] - before[main][0]) / n / 1e3
    figures["loop switches (vol)"] = (after[main][1] - before[main][1]) / n
    figures["loop switches (invol)"] = (after[main][2] - before[main][2]) / n
    others = [tid for tid in after if tid != main]
    figures["other threads' CPU"] = sum(after[t][0] - before.get(t, zero)[0] for t in others) / n / 1e3
    figures["other threads' switches (vol)"] = sum(after[t][1] - before.get(t, zero)[1] for t in others) / n
    return figures


async def handler_cold(tmp: Path, n: int, touch: int) -> float:
    """Thread CPU µs per call of the pass's handler alone, ``touch`` bytes of other memory read between calls."""
    path = tmp / f"cold-{touch}.db"
    path.unlink(missing_ok=True)
    store = JournalStore(f"sqlite:///{path}")
    catalog = Catalog.resolve_sync({"noop": ToolSetConnector([noop_async], name="noop")})
    assert catalog is not None
    other = memoryview(bytearray(max(touch, 64)))
    try:
        with open_journal(store, "bench") as journal:
            journal.insert_execution("e", "...", ["noop"], {}, {}, passes=1)
            host = passes.PassHandler(journal=journal, catalog=catalog, state=passes.PassState("e", 1, {}),
                                      search=str, describe=str, snippet=lambda name, value: {})
            requests = [{"op": "call", "connector": "noop", "method": "noop_async", "args": {"i": i}, "replayed": 0}
                        for i in range(n)]
            total = 0
            for request in requests:
                if touch:
                    bytes(other[::64])  # one read per cache line
                start = time.thread_time_ns()
                await host(request)
                total += time.thread_time_ns() - start
            host.flush()
            return total / n / 1e3
    finally:
        store.dispose()


async def cold(calls: int, rounds: int, as_json: bool) -> None:
    sizes = (0, 256 << 10, 1 << 20, 4 << 20)
    samples: dict[int, list[float]] = {size: [] for size in sizes}
    with tempfile.TemporaryDirectory() as d:
        for _ in range(rounds):
            for size in sizes:
                samples[size].append(await handler_cold(Path(d), calls, size))
    table = {f"{size >> 10} KiB": statistics.median(values) for size, values in samples.items()}
    if as_json:
        print(json.dumps(table))
        return
    print(f"the pass's handler alone, {calls} calls, median of {rounds} rounds (load {os.getloadavg()[0]:.1f})")
    for key, value in table.items():
        print(f"  {key:>8} read between calls: {value:6.1f} µs CPU per call")


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=3, help="executions of each kind, alternating")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    ap.add_argument("--cold", action="store_true", help="the handler alone with other memory read between calls")
    args = ap.parse_args()
    if args.cold:
        return await cold(args.calls, args.rounds, args.json)
    _instrument()
    runs: dict[str, list[dict[str, float]]] = {"async": [], "sync": []}
    with tempfile.TemporaryDirectory() as d:
        for _ in range(args.rounds):
            runs["async"].append(await trace(Path(d), args.calls, noop_async))
            runs["sync"].append(await trace(Path(d), args.calls, noop))
    table = {kind: {key: statistics.median(r[key] for r in rs) for key in rs[0]} for kind, rs in runs.items()}
    if args.json:
        print(json.dumps(table))
        return
    print(f"{args.calls} journaled calls a run, median of {args.rounds} runs (µs unless named; load "
          f"{os.getloadavg()[0]:.1f})")
    print(f"{'':32}{'async':>10}{'sync':>10}")
    for key in table["async"]:
        print(f"{key:32}{table['async'][key]:10.1f}{table['sync'][key]:10.1f}")


if __name__ == "__main__":
    asyncio.run(main())
