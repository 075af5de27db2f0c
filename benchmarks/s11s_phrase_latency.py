"""Rank latency with and without one lexicon phrase, paired in one process (issue 13, round 18).

Run: PYTHONPATH=. .venv/bin/python benchmarks/s11s_phrase_latency.py [--rounds 6] [--phrase "fire off"]

Loads the six API descriptions and the tuning file's 284 intents the way ``discovery_probe.py`` does, builds one
index and ranks each request twice per round, once without the phrase in ``lexicon._PHRASES_AT`` and once with it
(which goes first alternates request by request), timing each with ``time.process_time`` (CPU time: the machine is
shared). A first round warms the caches both share. Prints each round's p50 for both, how many rounds favour the
phrase and the load average.
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

from codemode_kernel.discovery import lexicon, search


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--phrase", default="fire off")
    args = parser.parse_args()
    phrase = tuple(args.phrase.split())
    head = lexicon._PHRASES_AT.get(phrase[0], [])
    with_it = list(head)
    without = [entry for entry in head if entry[0] != phrase]
    if len(without) == len(with_it):
        raise SystemExit(f"the lexicon has no phrase {args.phrase!r}")
    docs, intents, _tokens, _dev = asyncio.run(probe.load())
    index = search.SearchIndex(docs)
    queries = [intent["q"] for intent in intents]

    def timed(on: bool, q: str) -> float:
        lexicon._PHRASES_AT[phrase[0]] = with_it if on else without
        started = time.process_time()
        index.rank(q, limit=10)
        return (time.process_time() - started) * 1000

    for q in queries:  # warm-up: both settings once
        timed(False, q)
        timed(True, q)
    favour = 0
    for r in range(args.rounds):
        off, on = [], []
        for k, q in enumerate(queries):
            if (k + r) % 2:
                on.append(timed(True, q))
                off.append(timed(False, q))
            else:
                off.append(timed(False, q))
                on.append(timed(True, q))
        a, b = statistics.median(off), statistics.median(on)
        favour += b < a
        faster = sum(1 for x, y in zip(off, on, strict=True) if y < x)
        print(f"round {r + 1}: p50 without {a:.2f} ms, with {b:.2f} ms; {faster} of {len(queries)} requests faster "
              f"with it; load {os.getloadavg()[0]:.1f}")
    print(f"rounds favouring the phrase: {favour} of {args.rounds}")


if __name__ == "__main__":
    main()
