"""Isolated executor benchmarks (issues 3 and 12): worker start, pass latency, call round trip, compute, memory.

Run: .venv/bin/python benchmarks/bench_executor.py [--json] [--quick] [--repeats 5] [--only start,passes]
Prints figures beside their anchors from the same run and the issue's targets; it asserts nothing.

smolagents' LocalPythonExecutor is compared from a throwaway virtualenv, never from the
project's: ``make bench`` creates ``.bench-venv`` (gitignored) with it, or create one with

    python3.11 -m venv .bench-venv && .bench-venv/bin/pip install smolagents

(or point CODEMODE_SMOLAGENTS_PYTHON at another interpreter that has it).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import select
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from figures import Figure, emit, plain_exec_ms, progress

from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from codemode_kernel.executor.launcher import ZygoteLauncher, zygote_supported
from codemode_kernel.executor.pool import EmptyRoot, start_worker, worker_command

ROOT = Path(__file__).resolve().parents[1]

SMOLAGENTS_PYTHON = os.environ.get("CODEMODE_SMOLAGENTS_PYTHON", str(ROOT / ".bench-venv" / "bin" / "python"))

PRIMES = textwrap.dedent("""\
    n = 200000
    sieve = [True] * n
    sieve[0] = False
    sieve[1] = False
    for i in range(2, int(n ** 0.5) + 1):
        if sieve[i]:
            for j in range(i * i, n, i):
                sieve[j] = False
    count = 0
    for flag in sieve:
        if flag:
            count += 1
    count
""")
PRIMES_BELOW_200000 = 17984


async def noop_host(message: dict[str, Any]) -> dict[str, Any]:
    return {"value": None}


def config() -> dict[str, Any]:
    return {"op": "config", "parent_pid": os.getpid(), "empty_root": EmptyRoot.get(),
            "limits": Limits().worker_config()}


def read_ready(stdout_fd: int) -> None:
    select.select([stdout_fd], [], [], 30)
    os.read(stdout_fd, 1 << 16)


# ---------------------------------------------------------------------------------------


def bare_interpreter(n: int) -> float:
    """Median ms to start and end `python -I -S -c pass` (the floor of spawning anything)."""
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-I", "-S", "-c", "pass"], check=True)
        samples.append(time.perf_counter() - t)
    return statistics.median(samples) * 1e3


def spawned_ready(n: int) -> float:
    samples = []
    for _ in range(n):
        time.sleep(0.05)
        t = time.perf_counter()
        worker = start_worker(worker_command(), config())
        read_ready(worker.stdout_fd)
        samples.append(time.perf_counter() - t)
        worker.close()
        worker.proc.wait()
    return statistics.median(samples) * 1e3


def forked_ready(launcher: ZygoteLauncher, n: int) -> float:
    samples = []
    for _ in range(n):
        time.sleep(0.05)
        t = time.perf_counter()
        worker = launcher.start(config(), for_pass=True)
        read_ready(worker.stdout_fd)
        samples.append(time.perf_counter() - t)
        worker.close()
        worker.proc.wait(10)
    return statistics.median(samples) * 1e3


def bench_start(repeats: int, n: int) -> list[Figure]:
    progress("worker start")
    bare = [bare_interpreter(n) for _ in range(repeats)]
    figures = [Figure("Worker start", "spawned worker (zygote=False): start → confined and ready", "ms",
                      [spawned_ready(n) for _ in range(repeats)], anchor="python -I -S -c pass, start to exit",
                      anchor_samples=bare)]
    if zygote_supported():
        launcher = ZygoteLauncher()
        try:
            launcher.start(config(), for_pass=True).close()
            figures.append(Figure("Worker start", "worker forked by the zygote: request → confined and ready", "ms",
                                  [forked_ready(launcher, n) for _ in range(repeats)],
                                  anchor="python -I -S -c pass, start to exit", anchor_samples=bare,
                                  note="ready once confined; its warm-up follows while it waits for a pass"))
        finally:
            launcher.close()
    return figures


async def pass_latency(gap: float, passes: int, warm: int) -> float:
    executor = SubprocessExecutor(warm=warm)
    try:
        await executor.warm_up()
        await executor.execute("1", {}, host=noop_host)
        samples = []
        for _ in range(passes):
            if gap:
                await asyncio.sleep(gap)
            t = time.perf_counter()
            out = await executor.execute("1 + 1", {}, host=noop_host)
            samples.append(time.perf_counter() - t)
            assert out.result == 2, out
        return statistics.median(samples) * 1e3
    finally:
        await executor.aclose()


async def back_to_back(passes: int, warm: int) -> float:
    executor = SubprocessExecutor(warm=warm)
    try:
        await executor.warm_up()
        await executor.execute("1", {}, host=noop_host)
        t = time.perf_counter()
        for _ in range(passes):
            await executor.execute("1 + 1", {}, host=noop_host)
        return passes / (time.perf_counter() - t)
    finally:
        await executor.aclose()


def _proc_cpu(pid: int) -> tuple[float, float, int, int]:
    """CPU seconds of ``pid`` itself and of its reaped children, and their page faults (/proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return ((int(fields[11]) + int(fields[12])) / tick, (int(fields[13]) + int(fields[14])) / tick,
            int(fields[7]), int(fields[8]))


def _forking_zygote(executor: SubprocessExecutor) -> int | None:
    """The pid of the process that forks the workers (Z', the zygote's only child), if any."""
    zygote = getattr(executor._pool.launcher, "zygote", None)
    if zygote is None or zygote.pid is None:
        return None
    with open(f"/proc/{zygote.pid}/task/{zygote.pid}/children") as f:
        children = f.read().split()
    return int(children[0]) if children else zygote.pid


async def back_to_back_cost(passes: int) -> dict[str, float] | None:
    """CPU ms per back-to-back pass: the host (all its threads), the zygote's forks, the workers
    (reaped by the zygote), and copy-on-write faults per worker and per fork."""
    executor = SubprocessExecutor()
    try:
        await executor.warm_up()
        await executor.execute("1", {}, host=noop_host)
        zygote = _forking_zygote(executor)
        if zygote is None:
            return None
        await asyncio.sleep(0.2)
        before, host = _proc_cpu(zygote), time.process_time()
        for _ in range(passes):
            await executor.execute("1 + 1", {}, host=noop_host)
        host = time.process_time() - host
        await asyncio.sleep(0.3)  # the last workers are reaped
        after = _proc_cpu(zygote)
    finally:
        await executor.aclose()
    return {"host": host / passes * 1e3, "zygote": (after[0] - before[0]) / passes * 1e3,
            "worker": (after[1] - before[1]) / passes * 1e3, "zygote_faults": (after[2] - before[2]) / passes,
            "worker_faults": (after[3] - before[3]) / passes}


async def bench_cost(repeats: int, passes: int) -> list[Figure]:
    progress("CPU per back-to-back pass")
    if not zygote_supported():
        return []
    runs = [run for run in [await back_to_back_cost(passes) for _ in range(repeats)] if run is not None]
    if not runs:
        return []
    group = "CPU per back-to-back pass (executor alone; CPU time grows with the load too, the faults do not)"
    figures = [Figure(group, f"{part} CPU per pass", "ms", [run[part] for run in runs], note=note)
               for part, note in (("host", "event loop, pool and zygote reader threads"),
                                  ("zygote", "the fork: page tables, its own copy-on-write faults"),
                                  ("worker", "fork to exit: confinement, the pass, copy-on-write faults"))]
    figures.append(Figure(group, "total CPU per pass", "ms", [run["host"] + run["zygote"] + run["worker"]
                                                              for run in runs],
                          note="two cores serve a stream of passes no faster than half of this"))
    figures.append(Figure(group, "copy-on-write and other page faults per worker", "faults",
                          [run["worker_faults"] for run in runs], note="~3.5 µs each on this machine"))
    figures.append(Figure(group, "page faults in the zygote per fork", "faults",
                          [run["zygote_faults"] for run in runs]))
    return figures


async def bench_passes(repeats: int, passes: int) -> list[Figure]:
    progress("pass latency")
    plain = [plain_exec_ms("1 + 1") for _ in range(repeats)]
    figures = []
    for gap, label in ((0.2, "200 ms apart"), (0.05, "50 ms apart"), (0.0, "back to back")):
        figures.append(Figure("Passes (executor alone, no journal)", f"warm pass execute('1 + 1'), {label}", "ms",
                              [await pass_latency(gap, passes, 1) for _ in range(repeats)],
                              anchor="plain compile + exec of '1 + 1'", anchor_samples=plain,
                              target="≤ 2 ms median at any arrival rate"))
    rate = [1e3 / p for p in plain]
    for warm in (1, 2):
        figures.append(Figure("Passes (executor alone, no journal)", f"back-to-back passes, warm={warm}", "passes/s",
                              [await back_to_back(passes * 2, warm) for _ in range(repeats)], better="higher",
                              anchor="plain compile + exec of '1 + 1'", anchor_samples=rate,
                              target="≥ 150 passes/s"))
    return figures


ECHO = "import sys\nfor line in sys.stdin.buffer:\n    sys.stdout.buffer.write(line)\n    sys.stdout.buffer.flush()\n"


def raw_pipe_round_trip_us(n: int) -> float:
    """Median µs for one JSON line to a child process and back over pipes (the floor of a call)."""
    proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    line = json.dumps({"op": "call", "connector": "bench", "method": "ping", "args": {}}).encode() + b"\n"
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        proc.stdin.write(line)
        proc.stdin.flush()
        proc.stdout.readline()
        samples.append(time.perf_counter() - t)
    proc.stdin.close()
    proc.wait()
    return statistics.median(samples[n // 10:]) * 1e6


async def call_round_trip_us(calls: int) -> tuple[float, float]:
    """Median µs between two requests of a loop of calls the host answers at once, and the host's
    CPU µs per call (all its threads; the worker's CPU is not counted)."""
    stamps: list[float] = []

    async def host(message: dict[str, Any]) -> dict[str, Any]:
        stamps.append(time.perf_counter())
        return {"value": 1}

    executor = SubprocessExecutor(Limits(max_calls=calls + 10))
    try:
        await executor.warm_up()
        cpu = time.process_time()
        out = await executor.execute(f"for i in range({calls}):\n    bench.ping()", {"bench": ["ping"]}, host=host)
        cpu = time.process_time() - cpu
        assert out.error is None, out.error
    finally:
        await executor.aclose()
    return statistics.median(b - a for a, b in itertools.pairwise(stamps)) * 1e6, cpu / calls * 1e6


async def bench_calls(repeats: int, calls: int) -> list[Figure]:
    progress("call round trip")
    runs = [await call_round_trip_us(calls) for _ in range(repeats)]
    return [Figure("Connector calls", "pipe round trip per call, host answers at once", "µs",
                   [trip for trip, _ in runs],
                   anchor="raw JSON line over pipes to a child and back", anchor_samples=[
                       raw_pipe_round_trip_us(calls) for _ in range(repeats)], target="≤ 40 µs"),
            Figure("Connector calls", "host CPU per call, host answers at once", "µs", [cpu for _, cpu in runs],
                   note="reading, checking and answering a request in the event loop; the worker's CPU not counted")]


TIMED = ("t0 = time.perf_counter()\n" + PRIMES.replace("\ncount\n", "\n[count, time.perf_counter() - t0]\n"))


def plain_sieve_ms() -> float:
    code = compile(TIMED.replace("time.", "__import__('time')."), "<plain>", "exec")
    t = time.perf_counter()
    exec(code, {})
    return (time.perf_counter() - t) * 1e3


async def sandboxed_sieve(executor: SubprocessExecutor) -> tuple[float, float]:
    await asyncio.sleep(0.15)
    t = time.perf_counter()
    out = await executor.execute("import time\n" + TIMED, {}, host=noop_host)
    whole = time.perf_counter() - t
    assert out.result[0] == PRIMES_BELOW_200000, out
    return out.result[1] * 1e3, whole * 1e3


def smolagents_sieve_ms() -> float | None:
    if not Path(SMOLAGENTS_PYTHON).exists():
        return None
    script = textwrap.dedent("""\
        import json, sys, time
        from smolagents.local_python_executor import LocalPythonExecutor
        code = sys.stdin.read()
        ex = LocalPythonExecutor(additional_authorized_imports=[])
        ex.send_tools({})
        t = time.perf_counter()
        out = ex(code)
        print(json.dumps({"seconds": time.perf_counter() - t, "result": out.output}))
    """)
    proc = subprocess.run([SMOLAGENTS_PYTHON, "-c", script], input=PRIMES, capture_output=True, text=True,
                          timeout=900)
    if proc.returncode != 0:
        progress(f"smolagents failed: {proc.stderr.strip().splitlines()[-1:]}")
        return None
    smol = json.loads(proc.stdout.strip().splitlines()[-1])
    assert smol["result"] == PRIMES_BELOW_200000, smol
    return float(smol["seconds"]) * 1e3


async def bench_compute(repeats: int) -> list[Figure]:
    progress("compute")
    plain = [plain_sieve_ms() for _ in range(repeats)]
    executor = SubprocessExecutor()
    try:
        await executor.warm_up()
        runs = [await sandboxed_sieve(executor) for _ in range(repeats)]
    finally:
        await executor.aclose()
    figures = [
        Figure("Compute (sieve of primes below 200,000)", "isolated executor, the loop inside the sandbox", "ms",
               [inside for inside, _ in runs], anchor="plain CPython exec", anchor_samples=plain,
               target="≤ 2× plain exec"),
        Figure("Compute (sieve of primes below 200,000)", "isolated executor, whole pass", "ms",
               [whole for _, whole in runs], anchor="plain CPython exec", anchor_samples=plain,
               note="adds compiling, the pipe and process hand-off"),
    ]
    smol = [s for s in (smolagents_sieve_ms() for _ in range(min(repeats, 3))) if s is not None]
    if smol:
        figures.append(Figure("Compute (sieve of primes below 200,000)", "smolagents LocalPythonExecutor", "ms",
                              smol, anchor="plain CPython exec", anchor_samples=plain,
                              note="an AST interpreter in the agent's process, from a throwaway venv"))
    else:
        progress(f"smolagents skipped: no interpreter with smolagents at {SMOLAGENTS_PYTHON}")
    return figures


def pss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    return float("nan")


async def bench_memory(repeats: int) -> list[Figure]:
    progress("memory")
    samples = []
    for _ in range(repeats):
        executor = SubprocessExecutor()
        try:
            report = await executor.warm_up()
            assert report is not None
            samples.append(pss_mib(report["pid"]))
        finally:
            await executor.aclose()
    return [Figure("Memory", "an idle warm worker (confined, sandbox loaded), proportional set size", "MiB",
                   samples, note="pages shared with the zygote count in part")]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    parser.add_argument("--quick", action="store_true", help="fewer repeats and samples")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", default="start,passes,cost,calls,compute,memory",
                        help="comma-separated sections to run (default: all)")
    args = parser.parse_args()
    only = set(args.only.split(","))
    repeats = 3 if args.quick else args.repeats
    passes = 20 if args.quick else 50
    figures = bench_start(repeats, 5 if args.quick else 10) if "start" in only else []
    if "passes" in only:
        figures += await bench_passes(repeats, passes)
    if "cost" in only:
        figures += await bench_cost(repeats, passes * 6)
    if "calls" in only:
        figures += await bench_calls(repeats, 1000 if args.quick else 3000)
    if "compute" in only:
        figures += await bench_compute(repeats)
    if "memory" in only:
        figures += await bench_memory(repeats)
    emit("executor", figures, args.json)


if __name__ == "__main__":
    asyncio.run(main())
