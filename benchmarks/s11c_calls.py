"""Journaled calls in one execution, host CPU and how many commits they took (issue 12, s11c).

Run: PYTHONPATH=<tree> .venv/bin/python benchmarks/s11c_calls.py [--calls 3000] [--repeats 3] [--sync] [--busy 0]
[--result 0]

One execution of ``--calls`` journaled calls through the public runtime, the isolated executor and a
SQLite journal file (``bench_runtime.journaled_rate``'s loop), ``--repeats`` times; prints the median
rate, the host's CPU per call (all its threads, user + system, ``getrusage``), and the commits the pass
made per call: each call's ``executing`` mark carries the outcome of the call before it (passes.py), so
anything above 1.0 is an outcome committed on its own (the outcome timer, a flush). Counted by wrapping
``JournalStore.insert_entry`` and ``finish_entry`` for this run only.

``--busy N`` starts N processes that spin on the CPU for the run (a loaded machine, the same for both
trees of an A/B) and stops them after. ``--result N``: each call returns the same rows of about N
characters of JSON instead of its number (what the host encodes, journals and sends back). The tree
measured is the one on ``PYTHONPATH`` (default: this checkout), so two trees run alternately compare
paired.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codemode_kernel import CodemodeRuntime, ToolSetConnector
from codemode_kernel.executor.isolated import SubprocessExecutor
from codemode_kernel.journal import JournalStore

counts = {"mark": 0, "outcome": 0}
RESULT: list[Any] = []  # --result: what each call returns instead of i


def record(size: int) -> list[Any]:
    """A result of about ``size`` characters of JSON: rows of a few fields (a float among them)."""
    rows = []
    while len(json.dumps(rows, separators=(",", ":"))) < size:
        k = len(rows)
        rows.append({"id": k, "name": f"item-{k} é", "price": k * 1.25, "tags": ["a", "b"], "ok": k % 2 == 0})
    return rows


def noop(i: int = 0) -> Any:
    """Return i (sync: runs in a connector thread)."""
    return RESULT[0] if RESULT else i


async def noop_async(i: int = 0) -> Any:
    """Return i (async: runs on the loop)."""
    return RESULT[0] if RESULT else i


def _count() -> None:
    insert, finish = JournalStore.insert_entry, JournalStore.finish_entry

    def counted_insert(*args: Any, **kwargs: Any) -> Any:
        counts["mark"] += 1
        return insert(*args, **kwargs)

    def counted_finish(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("commit", True):  # else it rides in a mark's commit
            counts["outcome"] += 1
        return finish(*args, **kwargs)

    JournalStore.insert_entry = counted_insert  # type: ignore[method-assign]
    JournalStore.finish_entry = counted_finish  # type: ignore[method-assign]


async def one(tmp: Path, n: int, fn: Any) -> dict[str, float]:
    conn = ToolSetConnector([fn], name="noop")
    path = tmp / f"calls-{fn.__name__}.db"
    path.unlink(missing_ok=True)
    async with CodemodeRuntime([conn], store=f"sqlite:///{path}", executor=SubprocessExecutor()) as rt:
        await rt.execute("1")  # warm up
        await asyncio.sleep(0.3)
        code = f"for i in range({n}):\n    noop.{fn.__name__}(i=i)\n'done'"
        counts.update(mark=0, outcome=0)
        before = resource.getrusage(resource.RUSAGE_SELF)
        start = time.perf_counter()
        out = await rt.execute(code)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_SELF)
        assert out["status"] == "completed", out
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"calls/s": n / elapsed, "host CPU us/call": cpu / n * 1e6,
            "commits/call": (counts["mark"] + counts["outcome"]) / n,
            "involuntary switches/call": (after.ru_nivcsw - before.ru_nivcsw) / n}


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sync", action="store_true", help="a sync connector (its thread answers)")
    ap.add_argument("--busy", type=int, default=0, help="CPU-spinning processes during the run")
    ap.add_argument("--result", type=int, default=0, help="each call returns rows of about this many characters")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.result:
        RESULT.append(record(args.result))
    _count()
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    try:
        runs = []
        with tempfile.TemporaryDirectory() as d:
            for _ in range(args.repeats):
                runs.append(await one(Path(d), args.calls, noop if args.sync else noop_async))
    finally:
        for proc in busy:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
    table = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    table["load"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(table))
        return
    for key, value in table.items():
        print(f"{key:28}{value:10.2f}")


if __name__ == "__main__":
    asyncio.run(main())
