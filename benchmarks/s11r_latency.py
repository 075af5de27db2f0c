"""Rank latency of one discovery constant on and off, paired in one process (issue 13, round 17).

Run: PYTHONPATH=. .venv/bin/python benchmarks/s11r_latency.py [--rounds 6] [--name RESULT_FIELDS] [--off 0] [--on 1.0]

Loads the six API descriptions and the tuning file's 284 intents the way ``discovery_probe.py`` does, builds
one index and ranks each request twice per round, once with ``search.<name>`` at ``--off`` and once at ``--on``
(which goes first alternates request by request), timing each with ``time.process_time`` (CPU time: the machine is
shared). A first round warms the caches both share (stems, postings, what is read on first use). With ``--cold``
each round builds two fresh indexes instead, one per setting, so what is read on first use is read in the round
(the module-level stem caches stay warm). Prints each round's p50 for both, how many rounds favour ``--on`` and the
load average.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import discovery_probe as probe

from codemode_kernel.discovery import search


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--name", default="RESULT_FIELDS")
    parser.add_argument("--off", type=float, default=0.0)
    parser.add_argument("--on", type=float, default=1.0)
    parser.add_argument("--cold", action="store_true", help="two fresh indexes a round, one per setting")
    args = parser.parse_args()
    docs, intents, _tokens, _dev = asyncio.run(probe.load())
    indexes = {args.off: search.SearchIndex(docs), args.on: search.SearchIndex(docs)}
    queries = [intent["q"] for intent in intents]

    def timed(value: float, q: str) -> float:
        setattr(search, args.name, value)
        started = time.process_time()
        indexes[value].rank(q, limit=10)
        return (time.process_time() - started) * 1000

    for q in queries:  # warm-up: both settings once
        timed(args.off, q)
        timed(args.on, q)
    favour = 0
    for r in range(args.rounds):
        if args.cold:
            indexes = {args.off: search.SearchIndex(docs), args.on: search.SearchIndex(docs)}
        off, on = [], []
        for k, q in enumerate(queries):
            if (k + r) % 2:
                on.append(timed(args.on, q))
                off.append(timed(args.off, q))
            else:
                off.append(timed(args.off, q))
                on.append(timed(args.on, q))
        a, b = statistics.median(off), statistics.median(on)
        favour += b < a
        faster = sum(1 for x, y in zip(off, on, strict=True) if y < x)
        print(f"round {r + 1}: p50 {args.name}={args.off:g} {a:.2f} ms, ={args.on:g} {b:.2f} ms; "
              f"{faster} of {len(queries)} requests faster on; load {os.getloadavg()[0]:.1f}")
    print(f"rounds favouring {args.name}={args.on:g}: {favour} of {args.rounds}")


if __name__ == "__main__":
    main()
