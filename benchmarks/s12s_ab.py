"""Paired, interleaved pass latency of two trees (issue 12, s12s).

Run: .venv/bin/python benchmarks/s12s_ab.py --trees /tmp/base,/work/main [--rounds 8] [--instances 2]
     [--passes 30] [--gaps 200,50,0]

Each round runs, for each tree in turn (the order alternates by round), one process with that tree
first on ``sys.path`` that times ``execute("1 + 1")`` ``gap`` ms apart through ``instances`` fresh
SubprocessExecutors (``bench_executor.pass_latency``'s shape: warm_up, one pass, then the timed
ones) and reports each instance's median, and the process's CPU per pass (host process plus the
workers and zygotes it reaped is not visible here: host only). Prints per gap and tree the medians
of the instances, the spread of instance medians, and in how many rounds the second tree's median
of instances was lower.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import asyncio, json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
from codemode_kernel.executor.isolated import SubprocessExecutor

async def host(message):
    return {"value": None}

async def latency(gap, passes):
    executor = SubprocessExecutor(warm=1)
    try:
        await executor.warm_up()
        await executor.execute("1", {}, host=host)
        samples = []
        for _ in range(passes):
            if gap:
                await asyncio.sleep(gap)
            t = time.perf_counter()
            out = await executor.execute("1 + 1", {}, host=host)
            samples.append(time.perf_counter() - t)
            assert out.result == 2, out
        return statistics.median(samples) * 1e3
    finally:
        await executor.aclose()

async def main():
    gap, passes, instances = float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    print(json.dumps([await latency(gap / 1000, passes) for _ in range(instances)]))

asyncio.run(main())
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trees", required=True)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--instances", type=int, default=2)
    ap.add_argument("--passes", type=int, default=30)
    ap.add_argument("--gaps", default="200,50,0")
    ap.add_argument("--nice", type=int, default=0)
    args = ap.parse_args()
    trees = args.trees.split(",")
    for gap in args.gaps.split(","):
        runs: dict[str, list[list[float]]] = {t: [] for t in trees}
        wins = 0
        loads = []
        for r in range(args.rounds):
            order = trees if r % 2 == 0 else trees[::-1]
            got = {}
            for tree in order:
                cmd = [sys.executable, "-c", CHILD, tree, gap, str(args.passes), str(args.instances)]
                if args.nice:
                    cmd = ["nice", "-n", str(args.nice), *cmd]
                env = {**os.environ, "PYTHONPATH": tree}
                out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
                got[tree] = json.loads(out.stdout.strip().splitlines()[-1])
                runs[tree].append(got[tree])
            loads.append(os.getloadavg()[0])
            wins += statistics.median(got[trees[1]]) < statistics.median(got[trees[0]])
            shown = "  ".join(f"{os.path.basename(t)} {' '.join(f'{x:.2f}' for x in got[t])}" for t in trees)
            print(f"gap {gap} round {r + 1} load {loads[-1]:.2f}: {shown}", flush=True)
        for tree in trees:
            flat = sorted(x for run in runs[tree] for x in run)
            print(f"gap {gap} {tree}: median {statistics.median(flat):.2f} ms, instances {flat[0]:.2f}-{flat[-1]:.2f}, "
                  f"quartiles {flat[len(flat) // 4]:.2f}/{flat[3 * len(flat) // 4]:.2f} (n={len(flat)})")
        print(f"gap {gap}: {trees[1]} lower in {wins} of {args.rounds} rounds; load {min(loads):.1f}-{max(loads):.1f}",
              flush=True)


if __name__ == "__main__":
    main()
