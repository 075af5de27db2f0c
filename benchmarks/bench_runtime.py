"""Runtime benchmarks (issue 2): journaled calls per second, and replay cost per call.

Run: .venv/bin/python benchmarks/bench_runtime.py [--calls 3000] [--reads 1000] [--executor inprocess|subprocess]
Prints figures and ratios; it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from codemode_kernel import CodemodeRuntime, InProcessExecutor, ToolSetConnector


def noop(i: int = 0) -> int:
    """Return nothing interesting."""
    return i


async def noop_async(i: int = 0) -> int:
    """Return nothing interesting (async: runs on the loop, no thread hop)."""
    return i


def write(value: int) -> int:
    """A write that needs approval."""
    return value


def make_executor(kind: str) -> Any:
    if kind == "inprocess":
        return InProcessExecutor()
    from codemode_kernel.executor.isolated import SubprocessExecutor

    return SubprocessExecutor()


def raw_floor(path: Path, n: int) -> float:
    """Insert+commit then update+commit per call on a WAL file (synchronous=NORMAL): calls/s."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, state TEXT, args TEXT, result TEXT)")
    start = time.perf_counter()
    for i in range(n):
        db.execute("BEGIN")
        db.execute("INSERT INTO t VALUES (?, 'executing', ?, NULL)", (i, f'{{"i":{i}}}'))
        db.execute("COMMIT")
        db.execute("BEGIN")
        db.execute("UPDATE t SET state='applied', result=? WHERE k=?", (str(i), i))
        db.execute("COMMIT")
    elapsed = time.perf_counter() - start
    db.close()
    return n / elapsed


async def journaled_rate(tmp: Path, kind: str, n: int, fn: Any) -> float:
    conn = ToolSetConnector([fn], name="noop")
    async with CodemodeRuntime([conn], store=f"sqlite:///{tmp / f'rate-{kind}-{fn.__name__}.db'}",
                               executor=make_executor(kind)) as rt:
        await rt.execute("1")  # warm up
        await asyncio.sleep(0.3)
        code = f"for i in range({n}):\n    noop.{fn.__name__}(i=i)\n'done'"
        start = time.perf_counter()
        out = await rt.execute(code)
        elapsed = time.perf_counter() - start
        assert out["status"] == "completed", out
    return n / elapsed


async def replay_cost(tmp: Path, kind: str, reads: int, repeats: int = 5) -> tuple[float, float]:
    conns = [ToolSetConnector([noop_async], name="noop"),
             ToolSetConnector([write], name="store", requires_approval=True)]
    per_call = []
    baseline = []
    async with CodemodeRuntime(conns, store=f"sqlite:///{tmp / f'replay-{kind}.db'}",
                               executor=make_executor(kind), max_executions=1000) as rt:
        for _ in range(repeats):
            code = f"for i in range({reads}):\n    noop.noop_async(i=i)\nstore.write(value=1)"
            paused = await rt.execute(code)
            await asyncio.sleep(0.3)  # let the warm pool replace the worker: measure replay, not a spawn
            start = time.perf_counter()
            out = await rt.approve(paused["execution_id"])
            elapsed = time.perf_counter() - start
            assert out["status"] == "completed", out
            small = await rt.execute("store.write(value=1)")
            await asyncio.sleep(0.3)
            s0 = time.perf_counter()
            await rt.approve(small["execution_id"])
            base = time.perf_counter() - s0
            baseline.append(base)
            per_call.append((elapsed - base) / reads)
    return statistics.median(per_call), statistics.median(baseline)


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--reads", type=int, default=1000)
    ap.add_argument("--executor", default="inprocess", choices=["inprocess", "subprocess"])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        floor = raw_floor(tmp / "floor.db", args.calls)
        rate_sync = await journaled_rate(tmp, args.executor, args.calls, noop)
        rate_async = await journaled_rate(tmp, args.executor, args.calls, noop_async)
        per_call, base = await replay_cost(tmp, args.executor, args.reads)
    print(f"executor: {args.executor}")
    print(f"raw SQLite floor (insert+commit, update+commit, WAL, synchronous=NORMAL): {floor:,.0f} calls/s")
    print(f"journaled calls, sync connector (runs in a thread):  {rate_sync:,.0f} calls/s "
          f"(floor/ours = {floor / rate_sync:.2f}x; target >= 5,000 and within 3x)")
    print(f"journaled calls, async connector (on the loop):     {rate_async:,.0f} calls/s "
          f"(floor/ours = {floor / rate_async:.2f}x)")
    print(f"replay: {per_call * 1e6:,.1f} us per replayed call over {args.reads} reads "
          f"(target <= 50 us); approve pass baseline {base * 1e3:.2f} ms")


if __name__ == "__main__":
    asyncio.run(main())
