"""The sieve inside the sandbox against plain exec, in one process (issue 12, s12s).

Run: PYTHONPATH=<tree> .venv/bin/python benchmarks/s12s_sieve.py [--repeats 5]

Prints the medians of ``repeats`` runs of bench_executor.plain_sieve_ms and of the sandbox's own
timing of the same loop (bench_executor.sandboxed_sieve: one executor, passes 150 ms apart), and
their ratio, plus every sandbox draw, as one line of JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_executor as be

CPU_TIMED = be.TIMED.replace("perf_counter", "process_time")


def plain_cpu_ms() -> float:
    code = compile(CPU_TIMED.replace("time.", "__import__('time')."), "<plain>", "exec")
    g: dict[str, object] = {}
    exec(code, g)
    return float(g["count"] and g["t0"] is not None and (time.process_time() - g["t0"]) * 1e3)  # type: ignore[operator]


async def sandboxed_cpu_ms(executor: be.SubprocessExecutor) -> float:
    await asyncio.sleep(0.15)
    out = await executor.execute("import time\n" + CPU_TIMED, {}, host=be.noop_host)
    assert out.result[0] == be.PRIMES_BELOW_200000, out
    return float(out.result[1]) * 1e3


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    executor = be.SubprocessExecutor()
    try:
        await executor.warm_up()
        plain, inside, plain_cpu, inside_cpu = [], [], [], []
        for _ in range(args.repeats):
            plain.append(be.plain_sieve_ms())
            inside.append((await be.sandboxed_sieve(executor))[0])
            plain_cpu.append(plain_cpu_ms())
            inside_cpu.append(await sandboxed_cpu_ms(executor))
    finally:
        await executor.aclose()
    med = statistics.median
    p, s = med(plain), med(inside)
    pc, sc = med(plain_cpu), med(inside_cpu)
    print(json.dumps({"tree": be.ROOT.name, "plain": round(p, 2), "sandbox": round(s, 2),
                      "ratio": round(s / p, 3), "plain_cpu": round(pc, 2), "sandbox_cpu": round(sc, 2),
                      "cpu_ratio": round(sc / pc, 3), "draws": [round(x, 1) for x in inside],
                      "cpu_draws": [round(x, 1) for x in inside_cpu], "load": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    asyncio.run(main())
