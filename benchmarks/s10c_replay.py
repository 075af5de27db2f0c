"""Replay per recorded call, warm (issue 12, s10c): approving an execution whose pass made ``reads``
recorded calls, minus approving one that made none, in one runtime whose statements are compiled
already (a small approval first). Wall and host CPU (all the host's threads; not the worker's).

Run: PYTHONPATH=<tree> .venv/bin/python benchmarks/s10c_replay.py [--reads 1000] [--pairs 5] [--profile]
Prints one JSON line: the tree loaded, the medians of the pairs, and each pair's figures.
``--plan`` instead times the host's part alone: the plan built from the journal's rows and the
run line serialized, per recorded call (no sandbox).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import codemode_kernel
from codemode_kernel import CodemodeRuntime, ToolSetConnector


def noop(i: int = 0) -> int:
    """A read (bench_runtime's: the result is the number it was given)."""
    return i


def record(i: int = 0) -> dict[str, Any]:
    """A read with a small record as its result."""
    return {"id": i, "name": f"item {i}", "tags": ["a", "b"], "score": i / 7}


def write(value: int) -> int:
    """A write that needs approval."""
    return value


async def measure(reads: int, pairs: int, profile: bool, method: str) -> dict[str, Any]:
    from codemode_kernel.executor.isolated import SubprocessExecutor

    conns = [ToolSetConnector([noop, record], name="noop"),
             ToolSetConnector([write], name="store", requires_approval=True)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "replay.db"
        async with CodemodeRuntime(conns, store=f"sqlite:///{path}", executor=SubprocessExecutor()) as rt:
            big_code = f"for i in range({reads}):\n    noop.{method}(i=i)\nstore.write(value=1)"
            warm = await rt.execute("noop.noop(i=1)\nstore.write(value=1)")
            await asyncio.sleep(0.2)
            await rt.approve(warm["execution_id"])  # statements compiled, caches warm
            bigs = [await rt.execute(big_code) for _ in range(pairs)]
            smalls = [await rt.execute("store.write(value=1)") for _ in range(pairs)]
            rows = []
            profiler = None
            if profile:
                import cProfile

                profiler = cProfile.Profile()
            for big, small in zip(bigs, smalls, strict=True):
                figures = {}
                for name, paused in (("big", big), ("small", small)):
                    await asyncio.sleep(0.2)  # the pool's next worker is ready
                    if profiler is not None and name == "big":
                        profiler.enable()
                    t, cpu = time.perf_counter(), time.process_time()
                    out = await rt.approve(paused["execution_id"])
                    figures[name] = (time.perf_counter() - t, time.process_time() - cpu)
                    if profiler is not None:
                        profiler.disable()
                    assert out["status"] == "completed", out
                rows.append({"wall_us": (figures["big"][0] - figures["small"][0]) / reads * 1e6,
                             "cpu_us": (figures["big"][1] - figures["small"][1]) / reads * 1e6})
            if profiler is not None:
                import pstats

                pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(40)
    return {"tree": str(Path(codemode_kernel.__file__).parents[1]),
            "wall_us": statistics.median(r["wall_us"] for r in rows),
            "cpu_us": statistics.median(r["cpu_us"] for r in rows), "pairs": rows}


def plan_only(reads: int, repeats: int, method: str) -> dict[str, Any]:
    """The host's part: rows -> plan -> the run line, per recorded call (median of ``repeats``)."""
    from codemode_kernel.executor.worker import dumps_line
    from codemode_kernel.journal import EntryRow
    from codemode_kernel.passes import local_replay_plan

    journal = {i: EntryRow(i, "noop", "noop", json.dumps({"i": i}, separators=(",", ":")),
                           json.dumps(READS[method](i), separators=(",", ":")), False, False, "applied", None, 1, 0, 0)
               for i in range(reads)}
    samples = []
    for _ in range(repeats):
        cpu = time.process_time()
        plan = local_replay_plan(journal)
        line = _run_line(plan, dumps_line)
        samples.append((time.process_time() - cpu) / reads * 1e6)
    assert line
    return {"tree": str(Path(codemode_kernel.__file__).parents[1]), "plan_us": statistics.median(samples)}


READS = {"noop": noop, "record": record}


def _run_line(plan: Any, dumps_line: Any) -> bytes:
    from codemode_kernel.executor import isolated

    run = {"op": "run", "code": "1", "namespaces": {"noop": ["noop"]}, "inputs": {}, "capture_variables": False}
    run_line = getattr(isolated, "_run_line", None)
    if run_line is not None:
        return bytes(run_line(run, plan))
    return bytes(dumps_line({**run, "replay": list(plan)}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reads", type=int, default=1000)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--plan", action="store_true")
    parser.add_argument("--method", choices=sorted(READS), default="noop")
    args = parser.parse_args()
    if args.plan:
        print(json.dumps(plan_only(args.reads, 21, args.method)))
    else:
        print(json.dumps(asyncio.run(measure(args.reads, args.pairs, args.profile, args.method))))


if __name__ == "__main__":
    main()
