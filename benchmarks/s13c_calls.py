"""Paired, interleaved A/B of a pass's calls on two trees (issue 12, s13c: spin before sleeping).

Run: .venv/bin/python benchmarks/s13c_calls.py --trees /tmp/base,/work/main [--rounds 8] [--calls 3000]
     [--busy 0] [--kinds async,sync,raw]

Each round runs, for each tree in turn (the order alternates by round), one process with that tree
first on ``sys.path`` that measures, between a pass's first and last call (so neither the pass's start
nor its end counts):

- ``async``: journaled calls through the public runtime, the isolated executor and a SQLite file, an
  async connector (``bench_runtime.journaled_rate``'s loop);
- ``sync``: the same with a sync connector (its thread answers);
- ``raw``: ``SubprocessExecutor`` with a host that answers at once (no journal).

For each: calls/s, the host's CPU per call (all its threads, getrusage), the worker's CPU per call
(/proc/PID/schedstat) and both sides' context switches per call (voluntary + involuntary). ``--busy N``
keeps N processes spinning on the CPU for the whole run (both trees alike). ``--min-idle X`` starts
each round only once X CPUs stood idle for 0.5 s (/proc/stat; at most 10 minutes' wait): on a shared
machine, the closest to a quiet one. ``--pin apart|same`` (an experiment) pins the host's loop thread to
CPU 0 and the worker to CPU 1 or 0 at the first call. Prints per kind and figure the median of each
tree and the median of the per-round ratios (second tree / first), with how many rounds the second
tree was better. Run under ``taskset -c 0`` for a one-CPU machine (the workers inherit it).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time

CHILD = r"""
import asyncio, json, os, resource, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from codemode_kernel import CodemodeRuntime, ToolSetConnector
from codemode_kernel.executor.isolated import Limits, SubprocessExecutor

N = int(sys.argv[2])
KINDS = sys.argv[3].split(",")
PIN = sys.argv[4] if len(sys.argv) > 4 else "none"
marks = []
executor_ref = []

def worker_stats(pid):
    with open(f"/proc/{pid}/schedstat") as f:
        cpu = int(f.read().split()[0])
    switches = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if "ctxt_switches" in line:
                switches += int(line.split()[1])
    return cpu, switches

def mark(i):
    if i == 0 or i == N - 1:
        pid = int(executor_ref[0].isolation["pid"])
        if i == 0 and PIN != "none":  # the loop's thread on CPU 0, the worker on 1 (apart) or 0 (same)
            os.sched_setaffinity(0, {0})
            os.sched_setaffinity(pid, {1} if PIN == "apart" else {0})
        usage = resource.getrusage(resource.RUSAGE_SELF)
        marks.append((time.perf_counter(), usage.ru_utime + usage.ru_stime, usage.ru_nvcsw + usage.ru_nivcsw,
                      *worker_stats(pid)))

def noop(i=0):
    mark(i)
    return i

async def noop_async(i=0):
    mark(i)
    return i

def figures():
    (t0, c0, s0, w0, ws0), (t1, c1, s1, w1, ws1) = marks[-2:]
    spans = N - 1
    return {"calls/s": spans / (t1 - t0), "host us": (c1 - c0) / spans * 1e6, "worker us": (w1 - w0) / spans / 1e3,
            "host switches": (s1 - s0) / spans, "worker switches": (ws1 - ws0) / spans}

async def journaled(tmp, fn):
    executor = SubprocessExecutor()
    executor_ref[:] = [executor]
    path = Path(tmp) / "calls.db"
    path.unlink(missing_ok=True)
    async with CodemodeRuntime([ToolSetConnector([fn], name="noop")], store=f"sqlite:///{path}",
                               executor=executor) as rt:
        await rt.execute("1")
        await asyncio.sleep(0.3)
        out = await rt.execute(f"for i in range({N}):\n    noop.{fn.__name__}(i=i)\n'done'")
        assert out["status"] == "completed", out
    return figures()

async def raw():
    executor = SubprocessExecutor(Limits(max_calls=N + 10))
    executor_ref[:] = [executor]
    async def host(message):
        mark(message["args"]["i"])
        return {"value": 1}
    try:
        await executor.warm_up()
        await executor.execute("1", {}, host=host)
        await asyncio.sleep(0.3)
        out = await executor.execute(f"for i in range({N}):\n    bench.ping(i=i)", {"bench": ["ping"]}, host=host)
        assert out.error is None, out.error
    finally:
        await executor.aclose()
    return figures()

async def main():
    result = {}
    with tempfile.TemporaryDirectory() as tmp:
        for kind in KINDS:
            if kind == "async":
                result[kind] = await journaled(tmp, noop_async)
            elif kind == "sync":
                result[kind] = await journaled(tmp, noop)
            else:
                result[kind] = await raw()
    print(json.dumps(result))

asyncio.run(main())
"""

BETTER_HIGHER = {"calls/s"}


def idle_cpus(seconds: float = 0.5) -> float:
    """How many CPUs stood idle over the last ``seconds`` (/proc/stat)."""
    def sample() -> tuple[int, int]:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        return fields[3] + fields[4], sum(fields)

    idle0, total0 = sample()
    time.sleep(seconds)
    idle1, total1 = sample()
    return (idle1 - idle0) / max(1, total1 - total0) * (os.cpu_count() or 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trees", required=True)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--busy", type=int, default=0)
    ap.add_argument("--kinds", default="async,sync,raw")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--min-idle", type=float, default=0.0,
                    help="before each round, wait (up to 10 min) until this many CPUs stood idle for 0.5 s")
    ap.add_argument("--pin", default="none", choices=["none", "apart", "same"],
                    help="pin the host's loop thread and the worker to separate CPUs or one (an experiment)")
    args = ap.parse_args()
    trees = args.trees.split(",")
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    runs: list[dict[str, dict[str, dict[str, float]]]] = []
    loads = []
    try:
        idles = []
        for index in range(args.rounds):
            waited = time.monotonic()
            while (idle := idle_cpus()) < args.min_idle and time.monotonic() - waited < 600:
                pass
            idles.append(idle)
            loads.append(os.getloadavg()[0])
            order = trees if index % 2 == 0 else trees[::-1]
            got = {}
            for tree in order:
                out = subprocess.run([args.python, "-c", CHILD, tree, str(args.calls), args.kinds, args.pin],
                                     capture_output=True, text=True, check=False)
                if out.returncode:
                    print(out.stderr[-2000:], file=sys.stderr)
                    raise SystemExit(1)
                got[tree] = json.loads(out.stdout)
            runs.append(got)
            line = "  ".join(f"{kind} {got[trees[0]][kind]['calls/s']:,.0f}->{got[trees[1]][kind]['calls/s']:,.0f}"
                             for kind in args.kinds.split(","))
            print(f"round {index + 1} load {loads[-1]:.1f} idle CPUs {idle:.2f}: {line}", file=sys.stderr, flush=True)
    finally:
        for proc in busy:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
    a, b = trees
    print(f"{args.rounds} rounds, {args.calls} calls, busy {args.busy}, load {min(loads):.1f}-{max(loads):.1f}, "
          f"idle CPUs before a round {min(idles):.2f}-{max(idles):.2f}; "
          f"A={a} B={b}")
    for kind in args.kinds.split(","):
        for key in runs[0][a][kind]:
            first = [r[a][kind][key] for r in runs]
            second = [r[b][kind][key] for r in runs]
            ratios = [y / x if x else float("nan") for x, y in zip(first, second, strict=True)]
            better = sum((y > x) if key in BETTER_HIGHER else (y < x) for x, y in zip(first, second, strict=True))
            print(f"{kind:6} {key:16} A {statistics.median(first):10.2f}  B {statistics.median(second):10.2f}  "
                  f"B/A {statistics.median(ratios):5.3f} (rounds {min(ratios):.2f}-{max(ratios):.2f}), "
                  f"B better in {better} of {len(runs)}")


if __name__ == "__main__":
    main()
