"""Paired, interleaved A/B of a warm pass through the runtime (issue 12, s16p).

Run: .venv/bin/python benchmarks/s16p_ab.py PARENT_TREE CHANGED_TREE [--rounds 8] [--passes 60]
[--gap 0.2] [--busy 0] [--alone] [--spaces 0]

Each round starts both trees, each in a fresh interpreter whose first import path is that tree, with
a :class:`CodemodeRuntime` (a SQLite file, the isolated executor, one connector) warmed up and past
its retention limit, then has them run ``execute("1 + 1")`` in turn, pass by pass (which goes first
flips each pass), each pass after ``gap`` seconds of its loop asleep (while the other child waits for
its turn): ``passes`` each; per child the median pass (ms) and its loop thread's median CPU per pass
(us). ``--alone``: the executor alone
(a host that answers nothing) instead of the runtime. ``--busy N`` starts N busy loops for the whole
run. ``--spaces N`` adds a connector of N methods (the runtime passes its whole catalog's names to
every pass; the executor alone is given none). Prints each round, then the median of the per-round
ratios (changed / parent; below 1 is faster), how many rounds improved, and the load average before
and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r'''
import asyncio, json, statistics, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
from codemode_kernel import CodemodeRuntime, ToolSetConnector
from codemode_kernel.executor.isolated import SubprocessExecutor


def noop(i: int = 0) -> int:
    """Return what it is given."""
    return i


async def nothing(request):
    return {"abort": "no host"}


def method(i: int):
    def fn(i: int = 0) -> int:
        return i
    fn.__name__ = fn.__qualname__ = f"method_number_{i}"
    fn.__doc__ = f"Method {i}."
    return fn


async def main() -> None:
    alone, spaces, gap = sys.argv[2] == "1", int(sys.argv[3]), float(sys.argv[4])
    loop = asyncio.get_running_loop()
    with tempfile.TemporaryDirectory() as d:
        ex = SubprocessExecutor()
        connectors = [ToolSetConnector([noop], name="noop")]
        if spaces:
            connectors.append(ToolSetConnector([method(i) for i in range(spaces)], name="wide"))
        rt = CodemodeRuntime(connectors, store=f"sqlite:///{d}/ab.db", executor=ex)
        await ex.warm_up()
        for _ in range(60):  # past the retention limit: each pass prunes one, as a kept journal does
            await rt.execute("1")
        print("ready", flush=True)
        while (await loop.run_in_executor(None, sys.stdin.readline)).strip() == "go":
            await asyncio.sleep(gap)  # the loop idle that long before the pass (the other child waits meanwhile)
            t, c = time.perf_counter(), time.thread_time()
            if alone:
                out = await ex.execute("1 + 1", {}, host=nothing)
                ok = out.result == 2
            else:
                ok = (await rt.execute("1 + 1"))["result"] == 2
            wall, cpu = (time.perf_counter() - t) * 1e3, (time.thread_time() - c) * 1e6
            assert ok
            print(json.dumps({"ms": wall, "cpu_us": cpu}), flush=True)
        await rt.aclose()


asyncio.run(main())
'''


def start(tree: str, alone: bool, python: str, spaces: int, gap: float) -> subprocess.Popen[str]:
    child = subprocess.Popen([python, "-c", CHILD, tree, "1" if alone else "0", str(spaces), str(gap)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    return child


def one_pass(child: subprocess.Popen[str]) -> dict[str, float]:
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write("go\n")
    child.stdin.flush()
    return json.loads(child.stdout.readline())  # type: ignore[no-any-return]


def stop(child: subprocess.Popen[str]) -> None:
    assert child.stdin is not None
    child.stdin.write("stop\n")
    child.stdin.flush()
    child.wait(timeout=30)


def a_round(trees: tuple[str, str], args: argparse.Namespace, python: str, flip: bool) -> list[dict[str, float]]:
    """Both trees' children started (in an order that flips each round), then their passes in turn (the
    order flips each pass and each round),
    each after ``gap`` seconds of its loop idle; each child's median pass and median CPU."""
    children: list[subprocess.Popen[str]] = [None, None]  # type: ignore[list-item]
    for k in ((1, 0) if flip else (0, 1)):  # started in the round's order too
        children[k] = start(trees[k], args.alone, python, args.spaces, args.gap)
    samples: list[list[dict[str, float]]] = [[], []]
    try:
        for i in range(args.passes):
            order = (0, 1) if (i % 2 == 0) != flip else (1, 0)
            for k in order:
                samples[k].append(one_pass(children[k]))
    finally:
        for c in children:
            stop(c)
    return [{"ms": statistics.median(x["ms"] for x in got), "cpu_us": statistics.median(x["cpu_us"] for x in got)}
            for got in samples]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("parent")
    ap.add_argument("changed")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--passes", type=int, default=60)
    ap.add_argument("--gap", type=float, default=0.2)
    ap.add_argument("--busy", type=int, default=0)
    ap.add_argument("--alone", action="store_true")
    ap.add_argument("--spaces", type=int, default=0, help="a second connector with this many methods")
    args = ap.parse_args()
    python = sys.executable
    busy = [subprocess.Popen([python, "-c", "while 1: pass"]) for _ in range(args.busy)]
    load0 = os.getloadavg()[0]
    ratios, cpu_ratios, rows = [], [], []
    try:
        for r in range(args.rounds):
            a, b = a_round((args.parent, args.changed), args, python, flip=r % 2 == 1)
            ratios.append(b["ms"] / a["ms"])
            cpu_ratios.append(b["cpu_us"] / a["cpu_us"])
            rows.append((a, b))
            print(f"round {r + 1}: parent {a['ms']:.3f} ms ({a['cpu_us']:.0f} us CPU), changed {b['ms']:.3f} ms "
                  f"({b['cpu_us']:.0f} us CPU), ratio {ratios[-1]:.3f}; load {os.getloadavg()[0]:.2f}", flush=True)
    finally:
        for p in busy:
            p.kill()
            p.wait()
    print(f"median wall ratio {statistics.median(ratios):.3f} (changed faster in {sum(x < 1 for x in ratios)} of "
          f"{len(ratios)}); CPU ratio {statistics.median(cpu_ratios):.3f} (lower in "
          f"{sum(x < 1 for x in cpu_ratios)}); medians parent {statistics.median(a['ms'] for a, _ in rows):.3f} ms, "
          f"changed {statistics.median(b['ms'] for _, b in rows):.3f} ms; load {load0:.2f} -> {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
