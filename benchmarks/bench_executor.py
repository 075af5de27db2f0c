"""Isolated executor benchmarks (issues 3 and 12): worker start, pass latency, call round trip, compute, memory.

Run: .venv/bin/python benchmarks/bench_executor.py [--json] [--quick] [--repeats 5] [--only start,passes]
Prints figures beside their anchors from the same run and the issue's targets; it asserts nothing.

The ``calls`` section also measures the floor of a call across the process boundary (issue 12):
the executor's own conversation (a host that answers every call at once, no journal: calls/s,
host and worker CPU per call) beside two plain processes speaking JSON lines of the same shapes
over pipes (blocking reads; both ends busy-polling; the host on an asyncio loop, answering in
its reader callback or handing each request to a task), and the sandbox's side of a call run
here, outside a worker: restricted code, proxies, session and codec, then the JSON lines, with a
cProfile split by part. On this 2-core VM the blocking floor is bimodal: ~20 µs a round trip
(10 µs CPU each side) when the scheduler keeps both processes on one CPU, ~100 µs (25 µs each)
when a wake-up crosses CPUs; take several repeats.

smolagents' LocalPythonExecutor is compared from a throwaway virtualenv, never from the
project's: ``make bench`` creates ``.bench-venv`` (gitignored) with it, or create one with

    python3.11 -m venv .bench-venv && .bench-venv/bin/pip install smolagents

(or point CODEMODE_SMOLAGENTS_PYTHON at another interpreter that has it).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import itertools
import json
import os
import pstats
import select
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_runtime import raw_floor  # the raw SQLite anchor of a journaled call
from figures import Figure, emit, plain_exec_ms, progress

from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from codemode_kernel.executor.launcher import ZygoteLauncher, zygote_supported
from codemode_kernel.executor.pool import EmptyRoot, start_worker, worker_command
from codemode_kernel.executor.sandbox import run_pass
from codemode_kernel.executor.worker import dumps_line, loads_line

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


def _cpu_ns(pid: int) -> int:
    """Nanoseconds ``pid`` (its main thread) has run on a CPU (/proc/PID/schedstat)."""
    with open(f"/proc/{pid}/schedstat") as f:
        return int(f.read().split()[0])


@dataclass
class CallRun:
    """One loop of calls: wall and CPU per call on each side (µs), and the median gap between requests."""

    calls_per_s: float
    host_us: float
    sandbox_us: float
    gap_us: float = float("nan")


async def call_round_trip(calls: int) -> CallRun:
    """A loop of ``calls`` connector calls through the SubprocessExecutor, each answered by the host
    at once with no journal: the executor's own conversation (sandbox call → JSON line → host →
    reply). Host CPU is all its threads; the worker's is read from /proc between its first and last
    request."""
    stamps: list[float] = []
    worker: list[int] = []
    executor = SubprocessExecutor(Limits(max_calls=calls + 10))

    async def host(message: dict[str, Any]) -> dict[str, Any]:
        stamps.append(time.perf_counter())
        if not worker:
            report = executor.isolation or {}
            worker.extend((int(report["pid"]), _cpu_ns(int(report["pid"])), int(time.process_time_ns())))
        elif len(stamps) == calls:
            worker.extend((_cpu_ns(worker[0]), int(time.process_time_ns())))
        return {"value": 1}

    try:
        await executor.warm_up()
        out = await executor.execute(f"for i in range({calls}):\n    bench.ping(i=i)", {"bench": ["ping"]},
                                     host=host)
        assert out.error is None, out.error
    finally:
        await executor.aclose()
    spans = calls - 1  # first request to last: calls - 1 round trips
    return CallRun(spans / (stamps[-1] - stamps[0]), (worker[4] - worker[2]) / spans / 1e3,
                   (worker[3] - worker[1]) / spans / 1e3,
                   statistics.median(b - a for a, b in itertools.pairwise(stamps)) * 1e6)


# The process-boundary floor: a child that plays the sandbox (a loop of call requests of the same
# shape as the worker's, each waiting for its reply) and a host that answers each at once. Both
# ends use the worker's framing (one compact JSON document per line) and plain blocking pipes.
PING_PONG_SANDBOX = textwrap.dedent("""\
    import json, os, sys, time
    n, spin = int(sys.argv[1]), sys.argv[2] == "spin"
    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    decoder = json.JSONDecoder()
    reader, writer = sys.stdin.buffer, sys.stdout.buffer
    reader.readline()
    os.set_blocking(0, not spin)
    cpu = time.process_time()
    for i in range(n):
        writer.write(encoder.encode({"op": "call", "connector": "bench", "method": "ping", "args": {"i": i},
                                     "replayed": 0}).encode() + b"\\n")
        writer.flush()
        while True:
            try:
                line = os.read(0, 65536)
                break
            except BlockingIOError:
                pass
        reply = decoder.decode(line.decode())
    cpu = time.process_time() - cpu
    writer.write(encoder.encode({"op": "done", "cpu": cpu}).encode() + b"\\n")
    writer.flush()
""")
_REPLY = {"value": 1}


def _ping_pong_child(n: int, spin: bool = False) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-I", "-S", "-c", PING_PONG_SANDBOX, str(n), "spin" if spin else "block"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def _read_line(fd: int, spin: bool) -> bytes:
    """One whole line from ``fd`` (the other end writes one line and waits for the answer)."""
    data = b""
    while not data.endswith(b"\n"):
        try:
            data += os.read(fd, 1 << 16)
        except BlockingIOError:
            if not spin:
                select.select([fd], [], [])
    return data


def ping_pong(n: int, *, spin: bool = False, journal: Path | None = None) -> CallRun:
    """The floor: a host that reads each request and answers at once, with a blocking read, or
    (``spin``) with both ends polling their pipe without ever sleeping (each holds a CPU).

    ``journal``: before each reply the host commits the call's ``executing`` row and the previous
    call's outcome in one transaction (raw sqlite3, WAL, synchronous=NORMAL), as the product
    journals a call: the best a process-isolated journaled call can do here."""
    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    decoder = json.JSONDecoder()
    db = None
    if journal is not None:
        journal.unlink(missing_ok=True)
        db = sqlite3.connect(journal, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, state TEXT, args TEXT, result TEXT)")
    proc = _ping_pong_child(n, spin)
    assert proc.stdin is not None and proc.stdout is not None
    out_fd, in_fd = proc.stdin.fileno(), proc.stdout.fileno()
    os.write(out_fd, b"go\n")
    os.set_blocking(in_fd, False)
    line = _read_line(in_fd, spin)
    start, cpu = time.perf_counter(), time.process_time()
    for k in range(n - 1):
        request = decoder.decode(line.decode())
        if db is not None:
            db.execute("BEGIN")
            if k:
                db.execute("UPDATE t SET state='applied', result=? WHERE k=?", ("1", k - 1))
            db.execute("INSERT INTO t VALUES (?, 'executing', ?, NULL)", (k, encoder.encode(request["args"])))
            db.execute("COMMIT")
        os.write(out_fd, encoder.encode(_REPLY).encode() + b"\n")
        line = _read_line(in_fd, spin)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    os.write(out_fd, encoder.encode(_REPLY).encode() + b"\n")
    sandbox = json.loads(_read_line(in_fd, False))["cpu"]
    proc.wait()
    if db is not None:
        db.close()
    return CallRun((n - 1) / elapsed, cpu / (n - 1) * 1e6, sandbox / n * 1e6)


async def ping_pong_loop(n: int, *, hop: bool) -> CallRun:
    """The same floor with the host on an asyncio event loop: the request read in a reader callback
    and answered there (``hop=False``), or handed through a future to a task that answers it, as a
    coroutine host does (``hop=True``)."""
    loop = asyncio.get_running_loop()
    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    decoder = json.JSONDecoder()
    proc = _ping_pong_child(n)
    assert proc.stdin is not None and proc.stdout is not None
    out_fd, in_fd = proc.stdin.fileno(), proc.stdout.fileno()
    os.set_blocking(in_fd, False)
    buffer = bytearray()
    lines: list[bytes] = []
    waiter: list[asyncio.Future[None]] = []
    answered = [0]
    finished: asyncio.Future[None] = loop.create_future()
    marks: list[float] = []
    report: list[bytes] = []

    def answer(line: bytes) -> None:
        decoder.decode(line.decode())
        answered[0] += 1
        if answered[0] in (1, n):
            marks.extend((time.perf_counter(), time.process_time()))
        os.write(out_fd, encoder.encode(_REPLY).encode() + b"\n")

    def readable() -> None:
        try:
            data = os.read(in_fd, 1 << 16)
        except BlockingIOError:
            return
        if not data:
            loop.remove_reader(in_fd)
            if not finished.done():
                finished.set_result(None)
            return
        buffer.extend(data)
        while (index := buffer.find(b"\n")) >= 0:
            line = bytes(buffer[: index + 1])
            del buffer[: index + 1]
            if line.startswith(b'{"op":"done"'):
                report.append(line)
            elif hop:
                lines.append(line)
                if waiter and not waiter[0].done():
                    waiter.pop().set_result(None)
            else:
                answer(line)

    async def converse() -> None:
        while answered[0] < n:
            while not lines:
                future = loop.create_future()
                waiter.append(future)
                await future
            answer(lines.pop(0))

    loop.add_reader(in_fd, readable)
    os.write(out_fd, b"go\n")
    task = loop.create_task(converse()) if hop else None
    await finished
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    proc.wait()
    sandbox = json.loads(report[0])["cpu"] if report else float("nan")
    spans = n - 1
    return CallRun(spans / (marks[2] - marks[0]), (marks[3] - marks[1]) / spans * 1e6, sandbox / n * 1e6)


class _AnsweringChannel:
    """A sandbox channel that answers every request at once, in the same process: what a call costs
    the sandbox's own Python, with (``framed``) or without the JSON lines of the real channel."""

    def __init__(self, framed: bool) -> None:
        self.framed = framed
        self.reply_line = dumps_line(_REPLY)

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        if self.framed:
            dumps_line(message)
            reply: dict[str, Any] = loads_line(self.reply_line)
            return reply
        return {"value": 1}

    def notify(self, message: dict[str, Any]) -> None:
        if self.framed:
            dumps_line(message)


def sandbox_call_us(calls: int, framed: bool, profile: cProfile.Profile | None = None) -> float:
    """CPU µs per call of the sandbox's side of a loop of calls, run here (outside a worker and the
    pool): compiling once, RestrictedPython's guards, the connector proxies, the session (count,
    local replay, the output stream's lock) and the codec; ``framed`` adds the JSON lines."""
    code = f"for i in range({calls}):\n    bench.ping(i=i)"
    channel = _AnsweringChannel(framed)
    cpu = time.process_time()
    if profile is not None:
        profile.enable()
    done = run_pass(code, {"bench": ["ping"]}, {}, channel, max_calls=calls + 10, capture_variables=False)
    if profile is not None:
        profile.disable()
    cpu = time.process_time() - cpu
    assert "error" not in done, done
    return cpu / calls * 1e6


def plain_call_us(calls: int) -> float:
    """CPU µs per call of the same loop as plain Python calling a plain function (no sandbox)."""
    code = compile(f"for i in range({calls}):\n    bench.ping(i=i)", "<plain>", "exec")

    class Bench:
        @staticmethod
        def ping(i: int) -> int:
            return 1

    cpu = time.process_time()
    exec(code, {"bench": Bench})
    return (time.process_time() - cpu) / calls * 1e6


# Where a profiled call's sandbox time goes, by the function that spent it (cProfile's own time):
# a part and the (file, function) pairs it names; "*" is any function of that file (the first part that
# names a function takes it).
_SANDBOX_PARTS = (
    ("RestrictedPython guards (_getattr_ and the attribute lookup it makes)",
     (("language.py", "*"), ("Guards.py", "*"), ("~", "<built-in method builtins.getattr>"))),
    ("connector proxies (ConnectorProxy, MethodProxy)", (("sandbox.py", "__getattr__"), ("sandbox.py", "__call__"))),
    ("the session (call, ask, local replay, count, the output stream's lock)",
     (("sandbox.py", "*"), ("stream.py", "*"), ("contextlib.py", "*"))),
    ("JSON (dumps_line, loads_line, the json module)",
     (("worker.py", "*"), ("json/", "*"), ("codec.py", "direct_encode"), ("codec.py", "dumps_encoded"),
      ("~", "<method 'encode' of 'str' objects>"),
      ("~", "<method 'decode' of 'bytes' objects>"), ("~", "<method 'join' of 'str' objects>"))),
    ("the codec (encode the arguments, decode the value)", (("codec.py", "*"),)),
)


def _part(filename: str, function: str) -> str:
    for name, places in _SANDBOX_PARTS:
        if any(where in filename and what in ("*", function) for where, what in places):
            return name
    return "the rest (the loop, builtins)"


def sandbox_profile(calls: int) -> dict[str, float]:
    """Shares (%) of the sandbox's profiled time per call, by part (see ``_SANDBOX_PARTS``)."""
    profile = cProfile.Profile()
    sandbox_call_us(calls, True, profile)
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    parts = dict.fromkeys([name for name, _ in _SANDBOX_PARTS] + ["the rest (the loop, builtins)"], 0.0)
    for (filename, _line, function), (_cc, _nc, own, _cum, _callers) in stats.items():
        parts[_part(filename, function)] += own
    total = sum(parts.values())
    return {name: 100 * own / total for name, own in parts.items()}


SYSCALL_LOOP = "import time\nclock = time.process_time\nt = time.perf_counter()\nfor i in range({n}):\n    clock()\n"


async def confined_syscall_us(executor: SubprocessExecutor, n: int) -> float:
    """µs per ``time.process_time()`` (clock_gettime on a CPU clock: a real system call, not the
    vDSO) in a loop inside a confined worker: seccomp's layers check every call."""
    out = await executor.execute(SYSCALL_LOOP.format(n=n) + f"(time.perf_counter() - t) / {n} * 1e6", {},
                                 host=noop_host)
    assert out.error is None, out.error
    return float(out.result)


def plain_syscall_us(n: int) -> float:
    """The same loop in a plain ``python -I -S`` (no seccomp filter)."""
    script = SYSCALL_LOOP.format(n=n) + f"print((time.perf_counter() - t) / {n} * 1e6)"
    return float(subprocess.run([sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True,
                                check=True).stdout)


async def bench_calls(repeats: int, calls: int) -> list[Figure]:
    progress("call round trip")
    runs = [await call_round_trip(calls) for _ in range(repeats)]
    figures = [Figure("Connector calls", "pipe round trip per call, host answers at once", "µs",
                      [run.gap_us for run in runs],
                      anchor="raw JSON line over pipes to a child and back", anchor_samples=[
                          raw_pipe_round_trip_us(calls) for _ in range(repeats)], target="≤ 40 µs"),
               Figure("Connector calls", "host CPU per call, host answers at once", "µs", [run.host_us for run in runs],
                      note="reading, checking and answering a request in the event loop; the worker's CPU not counted")]
    progress("the floor of a call across processes")
    floors, spins, loops, hops, journaled, sqlite = [], [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats):  # interleaved, so a change in the machine's load hits each alike
            floors.append(ping_pong(calls))
            spins.append(ping_pong(calls, spin=True))
            journaled.append(ping_pong(calls, journal=Path(tmp) / "pingpong.db"))
            sqlite.append(raw_floor(Path(tmp) / "floor.db", calls))
            loops.append(await ping_pong_loop(calls, hop=False))
            hops.append(await ping_pong_loop(calls, hop=True))
    group = ("The floor of a call across processes (sandbox call → JSON line → host → reply; host answers at once, "
             "no journal)")
    floor_anchor = "two processes, JSON lines of the same shapes over pipes, blocking reads"
    figures += [
        Figure(group, "SubprocessExecutor: calls/s in one pass", "calls/s", [run.calls_per_s for run in runs],
               better="higher", anchor=floor_anchor, anchor_samples=[run.calls_per_s for run in floors]),
        Figure(group, "SubprocessExecutor: host CPU per call", "µs", [run.host_us for run in runs],
               anchor=floor_anchor, anchor_samples=[run.host_us for run in floors],
               note="event loop, checks, the reply; all the host's threads"),
        Figure(group, "SubprocessExecutor: worker CPU per call", "µs", [run.sandbox_us for run in runs],
               anchor=floor_anchor, anchor_samples=[run.sandbox_us for run in floors],
               note="the sandbox's Python for a call, its JSON and pipe I/O, its wait for the reply"),
        Figure(group, "the floor with both ends busy-polling their pipe (never sleeping: each holds a CPU): calls/s",
               "calls/s", [run.calls_per_s for run in spins], better="higher", anchor=floor_anchor,
               anchor_samples=[run.calls_per_s for run in floors]),
        Figure(group, "the same: host CPU per call", "µs", [run.host_us for run in spins], anchor=floor_anchor,
               anchor_samples=[run.host_us for run in floors]),
        Figure(group, "the floor with the host on an asyncio loop, answered in the reader callback: calls/s",
               "calls/s", [run.calls_per_s for run in loops], better="higher", anchor=floor_anchor,
               anchor_samples=[run.calls_per_s for run in floors]),
        Figure(group, "the same: host CPU per call", "µs", [run.host_us for run in loops], anchor=floor_anchor,
               anchor_samples=[run.host_us for run in floors]),
        Figure(group, "the floor with the host on an asyncio loop, each request handed to a task: calls/s",
               "calls/s", [run.calls_per_s for run in hops], better="higher", anchor=floor_anchor,
               anchor_samples=[run.calls_per_s for run in floors]),
        Figure(group, "the same: host CPU per call", "µs", [run.host_us for run in hops], anchor=floor_anchor,
               anchor_samples=[run.host_us for run in floors]),
        Figure(group, "sandbox CPU per call in the floor's child", "µs", [run.sandbox_us for run in floors],
               note="JSON and blocking pipe I/O only"),
    ]
    group = "The best a process-isolated journaled call can do here (two plain processes, raw sqlite3)"
    sqlite_anchor = "raw SQLite: insert+commit, update+commit per call (WAL, synchronous=NORMAL)"
    figures += [
        Figure(group, "blocking JSON-lines floor, the host committing each call (one commit per call, as the product)",
               "calls/s", [run.calls_per_s for run in journaled], better="higher", anchor=sqlite_anchor,
               anchor_samples=[rate for rate, _ in sqlite], target="within 2.5× of the floor (async connector)"),
        Figure(group, "the same: host CPU per call", "µs", [run.host_us for run in journaled],
               anchor="raw SQLite: CPU per insert+commit, update+commit", anchor_samples=[cpu for _, cpu in sqlite]),
    ]
    progress("the sandbox's side of a call")
    plain, bare, framed = [], [], []
    for _ in range(repeats):
        plain.append(plain_call_us(calls))
        bare.append(sandbox_call_us(calls, False))
        framed.append(sandbox_call_us(calls, True))
    group = "The sandbox's side of a call (run here, outside a worker; CPU per call)"
    plain_anchor = "the same loop in plain Python, calling a plain function"
    figures += [
        Figure(group, "restricted code, connector proxies, session and codec; no JSON, no pipe", "µs", bare,
               anchor=plain_anchor, anchor_samples=plain),
        Figure(group, "the same with the JSON lines both ways", "µs", framed, anchor=plain_anchor,
               anchor_samples=plain,
               note="the rest of the worker's CPU per call is pipe I/O and waiting for the reply"),
    ]
    executor = SubprocessExecutor()
    try:
        await executor.warm_up()
        confined, plain_calls = [], []
        for _ in range(repeats):
            confined.append(await confined_syscall_us(executor, 100_000))
            plain_calls.append(plain_syscall_us(100_000))
    finally:
        await executor.aclose()
    figures.append(Figure(group, "one system call in the confined worker (the loop around it included)", "µs",
                          confined, anchor="the same loop in a plain python -I -S", anchor_samples=plain_calls,
                          note="a call costs the worker a write and a blocking read"))
    shares = [sandbox_profile(calls) for _ in range(repeats)]
    figures += [Figure(group, f"profiled share: {part}", "%", [share[part] for share in shares],
                       note="cProfile's own time per function, JSON framing included")
                for part in shares[0]]
    return figures


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
