"""What makes one executor instance's spaced passes slow and another's fast (issue 12, s12s).

Run: PYTHONPATH=<tree> .venv/bin/python benchmarks/s12s_probe.py [--instances 6] [--passes 30] [--gap 200]

Runs ``execute("1 + 1")`` ``gap`` ms apart through ``instances`` fresh SubprocessExecutors one
after the other (``bench_executor.pass_latency``'s shape) and, per pass, reads the worker's
``/proc`` counters at the take, at the run line written and at the report (schedstat: CPU time,
time runnable, slices; minor faults; the CPU it last ran on) and the host loop thread's. Prints
one line per instance: medians of the wall, run line -> report, the worker's CPU and wait in the
pass, its faults, its age at the take, whether it ran on the host's CPU, and the zygote's CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

if "PYTHONPATH" not in os.environ:  # else the tree given there
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codemode_kernel.executor import channel, isolated
from codemode_kernel.executor.isolated import SubprocessExecutor

CODE = "1 + 1"


async def noop_host(message: dict[str, Any]) -> dict[str, Any]:
    return {"value": None}


def schedstat(path: str) -> tuple[int, int, int]:
    try:
        with open(path) as f:
            a, b, c = f.read().split()
        return int(a), int(b), int(c)
    except (OSError, ValueError):
        return (0, 0, 0)


def stat_fields(path: str) -> list[str]:
    try:
        with open(path) as f:
            text = f.read()
        return text[text.rindex(")") + 2:].split()
    except (OSError, ValueError):
        return []


class Probe:
    def __init__(self) -> None:
        self.on = False
        self.now: dict[str, Any] = {}
        self.tid = threading.get_native_id()


def instrument(probe: Probe) -> None:
    run = SubprocessExecutor._run

    async def marked_run(self: Any, worker: Any, *args: Any) -> Any:
        if probe.on:
            probe.now["t_take"] = time.perf_counter_ns()
            probe.now["pid"] = worker.pid
            probe.now["w0"] = schedstat(f"/proc/{worker.pid}/schedstat")
            f = stat_fields(f"/proc/{worker.pid}/stat")
            probe.now["age_ms"] = (time.clock_gettime(time.CLOCK_BOOTTIME) * 100 - int(f[19])) * 10 if f else -1
            probe.now["flt0"] = int(f[7]) if f else 0
            probe.now["cpu0"] = int(f[36]) if f else -1
            probe.now["ready"] = worker.ready is not None
        return await run(self, worker, *args)

    SubprocessExecutor._run = marked_run  # type: ignore[method-assign]
    write = channel.WorkerPipe.write

    async def marked_write(self: Any, data: bytes) -> bool:
        ok = await write(self, data)
        if probe.on and data.startswith(b'{"op":"run"') and "sent" not in probe.now:
            probe.now["sent"] = time.perf_counter_ns()
            probe.now["ws"] = schedstat(f"/proc/{probe.now.get('pid')}/schedstat")
        return ok

    channel.WorkerPipe.write = marked_write  # type: ignore[method-assign]
    check_done = isolated._check_done

    def marked_check_done(message: dict[str, Any]) -> None:
        if probe.on and "done" not in probe.now:
            probe.now["done"] = time.perf_counter_ns()
            pid = probe.now.get("pid")
            probe.now["wd"] = schedstat(f"/proc/{pid}/schedstat")
            f = stat_fields(f"/proc/{pid}/stat")
            h = stat_fields(f"/proc/self/task/{probe.tid}/stat")
            probe.now["flt1"] = int(f[7]) if f else 0
            probe.now["cpus"] = (int(f[36]) if f else -1, int(h[36]) if h else -1)
        check_done(message)

    isolated._check_done = marked_check_done


def zygote_cpu(executor: SubprocessExecutor) -> int:
    z = getattr(executor._pool.launcher, "zygote", None)
    if z is None or z.pid is None:
        return -1
    try:
        with open(f"/proc/{z.pid}/task/{z.pid}/children") as f:
            kids = f.read().split()
        f2 = stat_fields(f"/proc/{kids[0]}/stat")
        return int(f2[36])
    except (OSError, IndexError, ValueError):
        return -1


async def instance(gap: float, passes: int, probe: Probe) -> dict[str, Any]:
    executor = SubprocessExecutor(warm=1)
    rows = []
    try:
        await executor.warm_up()
        await executor.execute("1", {}, host=noop_host)
        for _ in range(passes):
            if gap:
                await asyncio.sleep(gap)
            probe.now = {}
            probe.on = True
            t = time.perf_counter_ns()
            out = await executor.execute(CODE, {}, host=noop_host)
            probe.now["t0"] = t
            probe.now["t1"] = time.perf_counter_ns()
            probe.on = False
            if CODE == "1 + 1":
                assert out.result == 2, out
            elif CODE.startswith("#stamp"):
                probe.now["stamps"] = out.result
            else:
                probe.now["tin"] = out.result
            rows.append(probe.now)
        zc = zygote_cpu(executor)
    finally:
        await executor.aclose()
    med = statistics.median
    inside = [r for r in rows if "tin" in r and "sent" in r and "done" in r]
    split = (f"sent->code {med((r['tin'] - r['sent']) / 1e3 for r in inside):.0f} "
             f"code->done {med((r['done'] - r['tin']) / 1e3 for r in inside):.0f}") if inside else ""
    good = [r for r in rows if {"sent", "done", "w0", "wd", "ws"} <= r.keys()]
    stamped = [r for r in good if r.get("stamps")]
    if stamped:
        for r in stamped:
            k = max(i for i, x in enumerate(r["stamps"]) if x[0] == "read")
            r["stamps"] = r["stamps"][k:]
        names = [s[0] for s in stamped[0]["stamps"]]
        parts = []
        for i, name in enumerate(names):
            prev = [r["sent"] if i == 0 else r["stamps"][i - 1][1] for r in stamped]
            d = med((r["stamps"][i][1] - p) / 1e3 for r, p in zip(stamped, prev, strict=True))
            f = med(r["stamps"][i][2] - (r["stamps"][i - 1][2] if i else r["stamps"][0][2]) for r in stamped)
            parts.append(f"{name} {d:.0f}us/{f}f")
        parts.append(f"->done {med((r['done'] - r['stamps'][-1][1]) / 1e3 for r in stamped):.0f}")
        split = " ".join(parts)
    return {
        "wall": med((r["t1"] - r["t0"]) / 1e6 for r in rows),
        "pre": med((r["sent"] - r["t0"]) / 1e3 for r in good),
        "take": med((r["t_take"] - r["t0"]) / 1e3 for r in good),
        "split": split,
        "sd": med((r["done"] - r["sent"]) / 1e3 for r in good),
        "post": med((r["t1"] - r["done"]) / 1e3 for r in good),
        "w_cpu": med((r["wd"][0] - r["ws"][0]) / 1e3 for r in good),
        "w_wait": med((r["wd"][1] - r["ws"][1]) / 1e3 for r in good),
        "w_pre": med((r["ws"][0] - r["w0"][0]) / 1e3 for r in good),
        "flt": med(r["flt1"] - r["flt0"] for r in good),
        "age": med(r["age_ms"] for r in good),
        "same": sum(r["cpus"][0] == r["cpus"][1] for r in good) / max(1, len(good)),
        "hostcpu": med(r["cpus"][1] for r in good),
        "wcpu0": med(r["cpu0"] for r in good),
        "zcpu": zc,
        "ready": sum(r["ready"] for r in good) / max(1, len(good)),
        "walls": sorted(round((r["t1"] - r["t0"]) / 1e6, 2) for r in rows),
    }


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--instances", type=int, default=6)
    ap.add_argument("--passes", type=int, default=30)
    ap.add_argument("--gap", type=float, default=200)
    ap.add_argument("--walls", action="store_true")
    ap.add_argument("--stamp", action="store_true", help="the code returns the time it ran (perf_counter_ns)")
    ap.add_argument("--code", default="")
    args = ap.parse_args()
    global CODE
    if args.stamp:
        CODE = "import time\ntime.perf_counter_ns()"
    if args.code:
        CODE = args.code.replace("\\n", "\n")
    probe = Probe()
    instrument(probe)
    for _ in range(args.instances):
        r = await instance(args.gap / 1000, args.passes, probe)
        print(f"wall {r['wall']:.2f} pre {r['pre']:.0f} sd {r['sd']:.0f} post {r['post']:.0f} w_cpu {r['w_cpu']:.0f} "
              f"w_wait {r['w_wait']:.0f} w_pre {r['w_pre']:.0f} flt {r['flt']:.0f} age {r['age']:.0f} "
              f"same {r['same']:.2f} host@{r['hostcpu']} w@{r['wcpu0']} z@{r['zcpu']} ready {r['ready']:.2f} "
              f"take {r['take']:.0f} {r['split']} load {os.getloadavg()[0]:.2f}", flush=True)
        if args.walls:
            print("   ", r["walls"])


if __name__ == "__main__":
    asyncio.run(main())
