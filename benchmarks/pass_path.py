"""Where a pass's wall time goes through the runtime, step by step (issue 12).

Run: .venv/bin/python benchmarks/pass_path.py [--passes 200] [--gaps 0,50,200] [--json]

Passes ``execute("1 + 1")`` through a :class:`CodemodeRuntime` on a SQLite file with the isolated
executor, ``gap`` ms apart, and timestamps the critical path of each pass on the loop thread
(``time.perf_counter_ns``, and ``time.thread_time_ns`` for the loop thread's CPU) at these points,
by wrapping the functions that mark them (a wrapper costs ~1 us; nothing in the product is
changed):

  entry       execute() called
  catalog     the catalog resolved (await self.catalog(); a runtime whose connectors all resolved when it
              was built takes that catalog without awaiting, and this point is not reached)
  session     the journal's connection in hand (JournalStore.session)
  executor    the executor's execute() called (the pass built: replay plan, handler, namespaces)
  sent        the code written to the worker's pipe (WorkerPipe.write of the run line returned)
  idle        the loop first waits for events after that (its selector's select() called) ...
  woke        ... and the last time it woke before the report (select() returned)
  begin       PassStart's overlapped commit begins (JournalStore.start_execution) ...
  begun       ... and ends
  done        the worker's report read and checked (isolated._check_done)
  returned    the executor's execute() returned
  ended       the end-of-pass record committed (JournalStore.transition returned)
  hooked      the connectors' hooks ran (CodemodeRuntime._hooks returned)
  exit        execute() returned (the session released)

Each segment is the median over the passes of the time between its two points, wall and the
loop thread's CPU (a segment whose wall is well above its CPU waited: for the worker, or for the
CPU). In the same run, interleaved pass by pass, the executor alone runs the same code with a host
that answers nothing (``bench_executor.pass_latency``'s shape), so "through the runtime" minus
"executor alone" is what the runtime adds at that moment's load.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codemode_kernel import CodemodeRuntime, ToolSetConnector
from codemode_kernel.executor import channel, isolated
from codemode_kernel.executor.isolated import SubprocessExecutor
from codemode_kernel.journal import JournalStore
from codemode_kernel.runtime import PassStart

POINTS = ["entry", "catalog", "session", "executor", "sent", "idle", "woke", "begin", "begun", "done", "returned",
          "ended", "hooked", "exit"]


def noop(i: int = 0) -> int:
    """Return what it is given."""
    return i


async def noop_host(request: dict[str, Any]) -> dict[str, Any]:
    return {"abort": "no host"}


class Marks:
    """Timestamps of one pass: point -> (wall ns, loop thread CPU ns); the first mark of a point wins."""

    def __init__(self) -> None:
        self.on = False
        self.now: dict[str, tuple[int, int]] = {}

    def __call__(self, point: str) -> None:
        if self.on and point not in self.now:
            self.now[point] = (time.perf_counter_ns(), time.thread_time_ns())

    def again(self, point: str) -> None:
        """Mark ``point`` anew (the last mark wins)."""
        if self.on:
            self.now[point] = (time.perf_counter_ns(), time.thread_time_ns())


def instrument(rt: CodemodeRuntime, store: JournalStore, mark: Marks) -> Callable[[], None]:
    """Wrap the functions that mark the points; returns what undoes it."""
    undo: list[Callable[[], None]] = []
    selector = asyncio.get_running_loop()._selector  # type: ignore[attr-defined]
    select = selector.select

    def marked_select(timeout: float | None = None) -> Any:
        waiting = "sent" in mark.now and "done" not in mark.now
        if waiting:
            mark("idle")
        events = select(timeout)
        if waiting:
            mark.again("woke")
        return events

    selector.select = marked_select
    undo.append(lambda: delattr(selector, "select"))

    def wrap_attr(owner: Any, name: str, before: str | None, after: str | None, is_async: bool = False) -> None:
        original = getattr(owner, name)
        had = name in vars(owner)
        if is_async:
            async def wrapped_async(*args: Any, **kwargs: Any) -> Any:
                if before:
                    mark(before)
                try:
                    return await original(*args, **kwargs)
                finally:
                    if after:
                        mark(after)
            setattr(owner, name, wrapped_async)
        else:
            def wrapped(*args: Any, **kwargs: Any) -> Any:
                if before:
                    mark(before)
                try:
                    return original(*args, **kwargs)
                finally:
                    if after:
                        mark(after)
            setattr(owner, name, wrapped)
        undo.append(lambda: setattr(owner, name, original) if had else delattr(owner, name))

    wrap_attr(rt, "catalog", None, "catalog", is_async=True)
    wrap_attr(rt.executor, "execute", "executor", "returned", is_async=True)
    wrap_attr(store, "start_execution", "begin", "begun")
    wrap_attr(store, "transition", None, "ended")
    wrap_attr(rt, "_hooks", None, "hooked", is_async=True)
    session = store.session

    @contextlib.contextmanager
    def marked_session() -> Iterator[Any]:
        with session() as conn:
            mark("session")
            yield conn

    store.session = marked_session  # type: ignore[method-assign]
    undo.append(lambda: delattr(store, "session"))
    write = channel.WorkerPipe.write

    async def marked_write(self: Any, data: bytes) -> bool:
        ok = await write(self, data)
        if data.startswith(b'{"op":"run"') or b'"op": "run"' in data[:40]:
            mark("sent")
        return ok

    channel.WorkerPipe.write = marked_write  # type: ignore[method-assign]
    undo.append(lambda: setattr(channel.WorkerPipe, "write", write))
    check_done = isolated._check_done

    def marked_check_done(message: dict[str, Any]) -> None:
        mark("done")
        check_done(message)

    isolated._check_done = marked_check_done
    undo.append(lambda: setattr(isolated, "_check_done", check_done))

    def undo_all() -> None:
        for u in reversed(undo):
            u()

    return undo_all


async def run(gap_ms: float, passes: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as d:
        store = JournalStore(f"sqlite:///{d}/path.db")
        rt = CodemodeRuntime([ToolSetConnector([noop], name="noop")], store=store, executor=SubprocessExecutor())
        alone = SubprocessExecutor()
        mark = Marks()
        undo = instrument(rt, store, mark)
        try:
            # Both warmed up: a pool's first pass finding no worker kept 2 s of unwarmed workers (s11q)
            await rt.executor.warm_up()  # type: ignore[attr-defined]
            await rt.execute("1")
            await alone.warm_up()
            await alone.execute("1", {}, host=noop_host)
            runs: list[dict[str, tuple[int, int]]] = []
            alone_ms: list[float] = []
            alone_runs: list[dict[str, tuple[int, int]]] = []
            for _ in range(passes):
                for which in ("runtime", "alone"):  # interleaved pass by pass
                    if gap_ms:
                        await asyncio.sleep(gap_ms / 1000)
                    if which == "alone":
                        mark.now = {}
                        mark.on = True
                        mark("executor")
                        t = time.perf_counter()
                        out = await alone.execute("1 + 1", {}, host=noop_host)
                        alone_ms.append((time.perf_counter() - t) * 1e3)
                        mark.on = False
                        assert out.result == 2, out
                        alone_runs.append(mark.now)
                        continue
                    mark.now = {}
                    mark.on = True
                    mark("entry")
                    done = await rt.execute("1 + 1")
                    mark("exit")
                    mark.on = False
                    assert done["result"] == 2, done
                    runs.append(mark.now)
        finally:
            undo()
            await alone.aclose()
            await rt.aclose()
    # Segments between the points in the order each pass reached them (the start's commit comes
    # while the sandbox runs, or with the end), listed by when they began.
    walls: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[float]] = {}
    starts: dict[tuple[str, str], list[float]] = {}
    for r in runs:
        reached = sorted(r, key=lambda p: (r[p][0], POINTS.index(p)))
        for a, b in itertools.pairwise(reached):
            walls.setdefault((a, b), []).append((r[b][0] - r[a][0]) / 1e3)
            cpus.setdefault((a, b), []).append((r[b][1] - r[a][1]) / 1e3)
            starts.setdefault((a, b), []).append((r[a][0] - r["entry"][0]) / 1e3)
    segments = [{"from": a, "to": b, "wall_us": statistics.median(walls[a, b]),
                 "cpu_us": statistics.median(cpus[a, b]), "n": len(walls[a, b])}
                for a, b in sorted(walls, key=lambda k: statistics.median(starts[k]))]
    total = [(r["exit"][0] - r["entry"][0]) / 1e6 for r in runs]
    cpu_total = [(r["exit"][1] - r["entry"][1]) / 1e3 for r in runs]
    sent_done = [(r["done"][0] - r["sent"][0]) / 1e3 for r in runs if "sent" in r and "done" in r]
    alone_sent_done = [(r["done"][0] - r["sent"][0]) / 1e3 for r in alone_runs if "sent" in r and "done" in r]
    alone_to_sent = [(r["sent"][0] - r["executor"][0]) / 1e3 for r in alone_runs if "sent" in r and "executor" in r]
    return {"gap_ms": gap_ms, "alone_sent_to_done_us": statistics.median(alone_sent_done),
            "alone_executor_to_sent_us": statistics.median(alone_to_sent), "passes": passes,
            "runtime_ms": statistics.median(total),
            "alone_ms": statistics.median(alone_ms), "loop_cpu_us": statistics.median(cpu_total),
            "sent_to_done_us": statistics.median(sent_done), "segments": segments}


class Overlapped:
    """The pass's start as it was committed before (049fa59 to this script's commit): two loop turns
    after the code is handed over, on its own, while the sandbox runs; then the end on its own."""

    def __enter__(self) -> None:
        self.schedule = CodemodeRuntime.__dict__["_schedule_begin"]
        self.fold = PassStart.fold

        def two_turns(callback: Callable[[], None], soon: bool = True) -> None:
            loop = asyncio.get_running_loop()
            loop.call_soon(loop.call_soon, callback)

        def never_folded(start: PassStart) -> bool:
            start.stop()
            start.ensure()
            return False

        CodemodeRuntime._schedule_begin = staticmethod(two_turns)  # type: ignore[method-assign,assignment]
        PassStart.fold = never_folded  # type: ignore[method-assign,assignment]

    def __exit__(self, *exc: object) -> None:
        CodemodeRuntime._schedule_begin = self.schedule  # type: ignore[method-assign]
        PassStart.fold = self.fold  # type: ignore[method-assign]


async def paired(gap_ms: float, passes: int, code: str = "1 + 1") -> dict[str, Any]:
    """``code`` through two runtimes, pass by pass in turn (the same load on both): the start
    committed while the sandbox runs (:class:`Overlapped`) against as the runtime does it now."""
    with tempfile.TemporaryDirectory() as d:
        runtimes = {name: CodemodeRuntime([ToolSetConnector([noop], name="noop")], store=f"sqlite:///{d}/{name}.db",
                                          executor=SubprocessExecutor()) for name in ("overlapped", "now")}
        try:
            for rt in runtimes.values():
                await rt.executor.warm_up()  # type: ignore[attr-defined]
                await rt.execute("1")
            samples: dict[str, list[float]] = {name: [] for name in runtimes}
            for i in range(passes):
                order = list(runtimes) if i % 2 == 0 else list(reversed(runtimes))
                for name in order:
                    if gap_ms:
                        await asyncio.sleep(gap_ms / 1000)
                    with Overlapped() if name == "overlapped" else contextlib.nullcontext():
                        t = time.perf_counter()
                        out = await runtimes[name].execute(code)
                        samples[name].append((time.perf_counter() - t) * 1e3)
                    assert out["status"] == "completed", out
        finally:
            for rt in runtimes.values():
                await rt.aclose()
    diffs = [a - b for a, b in zip(samples["overlapped"], samples["now"], strict=True)]
    return {"gap_ms": gap_ms, "passes": passes, **{f"{k}_ms": statistics.median(v) for k, v in samples.items()},
            "paired_gain_ms": statistics.median(diffs), "faster": sum(1 for x in diffs if x > 0)}


def report(result: dict[str, Any]) -> str:
    lines = [f"{result['gap_ms']:g} ms apart, {result['passes']} passes: through the runtime "
             f"{result['runtime_ms']:.2f} ms, executor alone {result['alone_ms']:.2f} ms "
             f"(+{result['runtime_ms'] - result['alone_ms']:.2f}); loop thread CPU {result['loop_cpu_us']:.0f} us; "
             f"code sent -> done {result['sent_to_done_us']:.0f} us (alone {result['alone_sent_to_done_us']:.0f}; "
             f"alone, execute() -> code sent {result['alone_executor_to_sent_us']:.0f})",
             f"  {'segment':<22}{'wall us':>9}{'cpu us':>9}{'passes':>8}"]
    for s in result["segments"]:
        lines.append(f"  {s['from'] + ' -> ' + s['to']:<22}{s['wall_us']:>9.1f}{s['cpu_us']:>9.1f}{s['n']:>8}")
    return "\n".join(lines)


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--passes", type=int, default=200)
    ap.add_argument("--gaps", default="0,50,200", help="ms between passes, comma-separated")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--paired", action="store_true", help="the start committed while the sandbox runs, against now")
    ap.add_argument("--code", default="1 + 1", help="the pass's code with --paired (connector: noop.noop(i=...))")
    args = ap.parse_args()
    if args.paired:
        for g in args.gaps.split(","):
            r = await paired(float(g), args.passes, args.code)
            print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()}))
        return
    results = [await run(float(g), args.passes) for g in args.gaps.split(",")]
    if args.json:
        print(json.dumps(results))
    else:
        print("\n\n".join(report(r) for r in results))


if __name__ == "__main__":
    asyncio.run(main())
