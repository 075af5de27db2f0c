"""The worker's own run through the runtime against the executor alone, with the scheduler's view
(issue 12, s11q).

Run: .venv/bin/python benchmarks/s11q_sched.py [--rounds 6] [--passes 40] [--gaps 200,50,0]

Like ``pass_path.py``, ``execute("1 + 1")`` goes through a :class:`CodemodeRuntime` (SQLite file,
isolated executor) and through the executor alone, interleaved pass by pass, ``gap`` ms apart.
For each pass it reads ``/proc/<pid>/schedstat`` of the pass's worker when the executor takes it
and again just before it is killed (time on a CPU, time runnable but waiting for one, and how many
times it was scheduled), the same for the host's loop thread, and the CPU each last ran on when
the worker's report is read. Medians per round:

  sent_done   code written to the worker's pipe -> its report read (wall, us)
  w_run       the worker's CPU time during the pass (us)
  w_wait      the worker's time runnable but not running during the pass (us): competition for a CPU
  w_slices    times the worker was put on a CPU during the pass
  w_pre       the worker's CPU time from the take to the code written; w_sd: from then to the report
  faults      the worker's minor page faults during the pass (copy-on-write: an unwarmed child has ~300)
  age_ms      how long the worker existed when it was taken; idle: workers in the pool at the take
  burst       share of takes while the pool bursts (keeps one more worker, unwarmed)
  h_run       the loop thread's CPU time, executor taken -> worker killed (us)
  same_cpu    share of passes whose worker last ran on the loop thread's CPU when the report was read

--same gives the executor alone the runtime's namespaces and an output callback; --cold leaves the
runtime's executor without warm_up (its first pass then finds no worker: see pool.WarmPool).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codemode_kernel import CodemodeRuntime, ToolSetConnector
from codemode_kernel.executor import channel, isolated, pool
from codemode_kernel.executor.isolated import SubprocessExecutor


def noop(i: int = 0) -> int:
    """Return what it is given."""
    return i


async def noop_host(request: dict[str, Any]) -> dict[str, Any]:
    return {"abort": "no host"}


def schedstat(path: str) -> tuple[int, int, int]:
    try:
        with open(path) as f:
            a, b, c = f.read().split()
        return int(a), int(b), int(c)
    except OSError:
        return (0, 0, 0)


def stat_fields(path: str) -> list[str]:
    try:
        with open(path) as f:
            text = f.read()
        return text[text.rindex(")") + 2:].split()
    except (OSError, ValueError):
        return []


def last_cpu(path: str) -> int:
    try:
        with open(path) as f:
            text = f.read()
        return int(text[text.rindex(")") + 2:].split()[36])
    except (OSError, ValueError, IndexError):
        return -1


class Probe:
    def __init__(self) -> None:
        self.on = False
        self.now: dict[str, Any] = {}
        self.tid = threading.get_native_id()

    def host(self) -> tuple[int, int, int]:
        return schedstat(f"/proc/self/task/{self.tid}/schedstat")


def instrument(probe: Probe) -> None:
    run = SubprocessExecutor._run

    async def marked_run(self: Any, worker: Any, *args: Any) -> Any:
        if probe.on:
            probe.now["pid"] = worker.pid
            probe.now["w0"] = schedstat(f"/proc/{worker.pid}/schedstat")
            probe.now["h0"] = probe.host()
            probe.now["ready"] = worker.ready is not None
            f = stat_fields(f"/proc/{worker.pid}/stat")
            probe.now["age_ms"] = (time.clock_gettime(time.CLOCK_BOOTTIME) * 100 - int(f[19])) * 10 if f else -1
            probe.now["flt0"] = int(f[7]) if f else 0
        return await run(self, worker, *args)

    SubprocessExecutor._run = marked_run  # type: ignore[method-assign]
    take = pool.WarmPool.take

    def marked_take(self: Any) -> Any:
        if probe.on:
            probe.now["idle"] = len(self._idle)
            probe.now["bursting"] = time.monotonic() < self._burst_until
        return take(self)

    pool.WarmPool.take = marked_take  # type: ignore[method-assign]
    kill = pool.WorkerProcess.kill

    def marked_kill(self: Any, *args: Any, **kwargs: Any) -> Any:
        if probe.on and probe.now.get("pid") == self.pid and "w1" not in probe.now:
            probe.now["w1"] = schedstat(f"/proc/{self.pid}/schedstat")
            probe.now["h1"] = probe.host()
            f = stat_fields(f"/proc/{self.pid}/stat")
            probe.now["flt1"] = int(f[7]) if f else 0
        return kill(self, *args, **kwargs)

    pool.WorkerProcess.kill = marked_kill  # type: ignore[method-assign]
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
            probe.now["cpus"] = (last_cpu(f"/proc/{pid}/stat"), last_cpu(f"/proc/self/task/{probe.tid}/stat"))
        check_done(message)

    isolated._check_done = marked_check_done


def summary(rows: list[dict[str, Any]]) -> dict[str, float]:
    good = [r for r in rows if {"sent", "done", "w0", "w1", "h0", "h1"} <= r.keys()]
    med = statistics.median
    return {
        "sent_done": med((r["done"] - r["sent"]) / 1e3 for r in good),
        "w_run": med((r["w1"][0] - r["w0"][0]) / 1e3 for r in good),
        "w_wait": med((r["w1"][1] - r["w0"][1]) / 1e3 for r in good),
        "w_slices": med(r["w1"][2] - r["w0"][2] for r in good),
        "w_pre": med((r["ws"][0] - r["w0"][0]) / 1e3 for r in good),
        "w_sd": med((r["wd"][0] - r["ws"][0]) / 1e3 for r in good),
        "faults": med(r["flt1"] - r["flt0"] for r in good),
        "age_ms": med(r["age_ms"] for r in good),
        "idle": med(r["idle"] for r in good),
        "burst": sum(1 for r in good if r["bursting"]) / max(1, len(good)),
        "ready": sum(1 for r in good if r["ready"]) / max(1, len(good)),
        "h_run": med((r["h1"][0] - r["h0"][0]) / 1e3 for r in good),
        "same_cpu": sum(1 for r in good if r["cpus"][0] == r["cpus"][1]) / max(1, len(good)),
        "wall_ms": med(r["wall"] for r in good),
        "n": len(good),
    }


async def one_round(gap_ms: float, passes: int, probe: Probe, same: bool = False,
                    cold: bool = False) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as d:
        rt = CodemodeRuntime([ToolSetConnector([noop], name="noop")], store=f"sqlite:///{d}/s.db",
                             executor=SubprocessExecutor())
        alone = SubprocessExecutor()
        rows: dict[str, list[dict[str, Any]]] = {"runtime": [], "alone": []}
        try:
            if not cold:  # else its first pass finds no worker and the pool bursts for 2 s (unwarmed workers)
                await rt.executor.warm_up()  # type: ignore[attr-defined]
            await rt.execute("1")
            await alone.warm_up()
            await alone.execute("1", {}, host=noop_host)
            spaces = (await rt.catalog()).namespaces() if same else {}
            for i in range(passes):
                order = ("runtime", "alone") if i % 2 == 0 else ("alone", "runtime")
                for which in order:
                    if gap_ms:
                        await asyncio.sleep(gap_ms / 1000)
                    probe.now = {}
                    probe.on = True
                    t = time.perf_counter()
                    if which == "alone":
                        quiet = (lambda t: None) if same else None
                        out = await alone.execute("1 + 1", spaces, host=noop_host, on_output=quiet)
                        assert out.result == 2, out
                    else:
                        done = await rt.execute("1 + 1")
                        assert done["result"] == 2, done
                    probe.now["wall"] = (time.perf_counter() - t) * 1e3
                    probe.on = False
                    rows[which].append(probe.now)
        finally:
            await alone.aclose()
            await rt.aclose()
    return {k: summary(v) for k, v in rows.items()}


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--passes", type=int, default=40)
    ap.add_argument("--gaps", default="200,50,0")
    ap.add_argument("--same", action="store_true", help="the executor alone gets the runtime's namespaces and an "
                    "output callback")
    ap.add_argument("--cold", action="store_true", help="the runtime's executor not warmed up first")
    args = ap.parse_args()
    probe = Probe()
    instrument(probe)
    keys = ["wall_ms", "sent_done", "w_run", "w_pre", "w_sd", "faults", "age_ms", "idle", "burst", "w_wait", "h_run",
            "same_cpu"]
    for g in args.gaps.split(","):
        print(f"--- {g} ms apart; columns: {' '.join(keys)} (runtime / alone)")
        for r in range(args.rounds):
            res = await one_round(float(g), args.passes, probe, args.same, args.cold)
            two = ("wall_ms", "same_cpu", "burst")
            cols = "  ".join(f"{k} {res['runtime'][k]:.2f}/{res['alone'][k]:.2f}" if k in two
                             else f"{k} {res['runtime'][k]:.0f}/{res['alone'][k]:.0f}" for k in keys)
            print(f"round {r + 1} load {loadavg()}: {cols}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
