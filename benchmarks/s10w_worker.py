"""The worker's own CPU for a call, a local replay and a pass (issue 12, s10w): run here, outside a worker.

Run: PYTHONPATH=<tree> .venv/bin/python benchmarks/s10w_worker.py [call|replay|pass|round] [--n N] [--reps R]

- ``call``: CPU µs per connector call of the sandbox's side (restricted code, proxies, session, codec,
  and the JSON lines both ways: bench_executor.sandbox_call_us framed).
- ``replay``: CPU µs per recorded call answered by the sandbox from the plan (the run message's parse
  included), over a pass of ``n`` reads minus a pass of none.
- ``pass``: CPU µs of the worker's part of a pass ``1 + 1`` from the run line to the done line (parse,
  restricted compile, globals, run, result encoding, done line).
- ``vars``: the same for a pass that leaves variables (500 rows) to carry over (the worker's
  ``max_result_chars`` as their budget).
- ``round``: through SubprocessExecutor, the worker's CPU per call (bench_executor.call_round_trip).
- ``journal`` / ``jsync``: through CodemodeRuntime (SQLite file, an async / a sync connector), the
  worker's CPU per journaled call; "rate" is the calls/s.
- ``b2b``: the worker's CPU per back-to-back pass ``1 + 1``, fork to exit (bench_executor.back_to_back_cost);
  "rate" is its page faults per pass.

Prints the median of ``reps`` samples and the file of the package loaded (to check the tree).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import codemode_kernel
from codemode_kernel.executor import worker
from codemode_kernel.executor.sandbox import run_pass
from codemode_kernel.executor.worker import dumps_line, loads_line

sys.path.insert(0, str(Path(__file__).resolve().parent))


class _Answer:
    def __init__(self) -> None:
        self.reply = dumps_line({"value": 1})

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        dumps_line(message)
        reply: dict[str, Any] = loads_line(self.reply)
        return reply

    def notify(self, message: dict[str, Any]) -> None:
        dumps_line(message)


def _worker_pass(line: bytes) -> float:
    cpu = time.process_time()
    message = loads_line(line)
    trim = getattr(worker, "_trim_variables", None)  # trees before s10w's second change trimmed here
    budget = {} if trim is not None else {"variables_budget": 10_000_000}
    done = run_pass(message["code"], message["namespaces"], message.get("inputs") or {}, _Answer(),
                    max_calls=100_000, capture_variables=bool(message.get("capture_variables", True)),
                    replay=message.get("replay") or (), **budget)
    done.pop("logs", None)
    if trim is not None:
        done["variables"] = trim(done.get("variables") or {}, 10_000_000)
    dumps_line(done)
    cpu = time.process_time() - cpu
    assert "error" not in done, done
    return cpu


def _run_line(code: str, replay: list[dict[str, Any]]) -> bytes:
    return dumps_line({"op": "run", "code": code, "namespaces": {"noop": ["noop_async"], "store": ["write"]},
                       "inputs": {}, "capture_variables": True, "replay": replay})


def replay_us(n: int) -> float:
    plan = [{"c": "noop", "m": "noop_async", "a": json.dumps({"i": i}, separators=(",", ":")), "v": None}
            for i in range(n)]
    code = f"for i in range({n}):\n    noop.noop_async(i=i)\n"
    full, empty = _run_line(code, plan), _run_line("for i in range(0):\n    noop.noop_async(i=i)\n", [])
    return (_worker_pass(full) - _worker_pass(empty)) / n * 1e6


def pass_us(n: int, code: str = "1 + 1") -> float:
    line = _run_line(code, [])
    return statistics.median(_worker_pass(line) for _ in range(n)) * 1e6


VARS = "rows = [{'id': i, 'name': 'row %d' % i, 'tags': ['a', 'b']} for i in range(500)]\ntotal = len(rows)\ntotal"


def call_us(n: int) -> float:
    from bench_executor import sandbox_call_us
    return sandbox_call_us(n, True)


def round_us(n: int) -> float:
    from bench_executor import call_round_trip
    run = asyncio.run(call_round_trip(n))
    RATES.append(run.calls_per_s)
    return run.sandbox_us


RATES: list[float] = []  # calls/s of each sample that has a rate (b2b: the worker's faults per pass)


def b2b_us(n: int) -> float:
    """The worker's CPU µs per back-to-back pass ``1 + 1`` (fork to exit, from the zygote's reaped
    children: bench_executor.back_to_back_cost); its page faults per pass go to RATES."""
    from bench_executor import back_to_back_cost

    run = asyncio.run(back_to_back_cost(n))
    assert run is not None
    RATES.append(run["worker_faults"])
    return run["worker"] * 1e3


def journal_us(n: int, sync: bool = False) -> float:
    """Journaled calls (CodemodeRuntime, SQLite file, an async connector): the worker's CPU per call
    from /proc between its first and last call; the rate is printed to stderr."""
    import tempfile

    from bench_executor import _cpu_ns

    from codemode_kernel import CodemodeRuntime, ToolSetConnector
    from codemode_kernel.executor.isolated import SubprocessExecutor

    executor = SubprocessExecutor()
    marks: list[float] = []

    def mark(i: int) -> None:
        if i in (0, n - 1):
            pid = int((executor.isolation or {})["pid"])
            marks.extend((_cpu_ns(pid), time.perf_counter()))

    async def noop_async(i: int = 0) -> int:
        """Nothing."""
        mark(i)
        return i

    def noop_sync(i: int = 0) -> int:
        """Nothing."""
        mark(i)
        return i

    fn = noop_sync if sync else noop_async

    async def go() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            async with CodemodeRuntime([ToolSetConnector([fn], name="noop")], store=f"sqlite:///{tmp}/j.db",
                                       executor=executor) as rt:
                await rt.execute("1")
                await asyncio.sleep(0.3)
                out = await rt.execute(f"for i in range({n}):\n    noop.{fn.__name__}(i=i)\n'done'")
                assert out["status"] == "completed", out

    asyncio.run(go())
    RATES.append((n - 1) / (marks[3] - marks[1]))
    return (marks[2] - marks[0]) / (n - 1) / 1e3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=("call", "replay", "pass", "vars", "round", "journal", "jsync", "b2b"))
    parser.add_argument("--n", type=int, default=0)
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    fn, n = {"call": (call_us, 20_000), "replay": (replay_us, 1000), "pass": (pass_us, 200),
             "round": (round_us, 3000),
             "journal": (journal_us, 3000), "jsync": (lambda n: journal_us(n, True), 3000), "b2b": (b2b_us, 300),
             "vars": (lambda n: pass_us(n, VARS), 50)}[args.what]
    n = args.n or n
    fn(n)  # warm
    RATES.clear()
    samples = [fn(n) for _ in range(args.reps)]
    rate = statistics.median(RATES) if RATES else None
    print(json.dumps({"what": args.what, "median_us": statistics.median(samples), "rate": rate,
                      "samples": [round(s, 3) for s in samples], "tree": str(Path(codemode_kernel.__file__).parent)}))


if __name__ == "__main__":
    main()
