"""Latency of a search with the semantic extra against the lexical ranker alone (s12m).

``.venv/bin/python benchmarks/s12m_latency.py [--rounds N]``: the six API descriptions of
bench_discovery, one index lexical and one with the product's semantic signal (its vectors from the
disk cache bench_discovery --minilm leaves in ``.bench-cache/discovery/semantic``, else embedded first),
then the tuning, dev and validation requests searched by both, alternating request by request, for
``--rounds`` passes. Prints per pass p50 / p95 wall ms of each and the model's share (the request's
embedding), with the load average. No request or result is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(1, str(Path(__file__).resolve().parent))

import bench_discovery as bench

from codemode_kernel.discovery import semantic
from codemode_kernel.discovery.search import SearchIndex, method_document


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from codemode_kernel.catalog import Catalog

    connectors = bench.load_connectors(bench.fetch(lambda s: None))
    catalog = asyncio.run(Catalog.resolve({c.name: c for c in connectors}))
    queries = [i["q"] for source in (bench.INTENTS, bench.FRESH_INTENTS, bench.VALIDATION_INTENTS)
               for i in bench.load_intents(catalog, source)]
    docs = [method_document(m) for m in catalog.all_methods()]
    lexical, blended = SearchIndex(docs), SearchIndex(docs)
    embedder = semantic.Embedder(folder=semantic.installed_model_dir(), cache=bench.CACHE / "semantic")
    signal = embedder.signal(docs)
    blended.semantic = signal
    assert signal.vectors.wait(1800) and signal.ready(), "the semantic vectors did not load"
    for r in range(args.rounds):
        lex: list[float] = []
        sem: list[float] = []
        emb: list[float] = []
        load = os.getloadavg()[0]
        for q in queries:
            started = time.perf_counter()
            lexical.rank(q, limit=10)
            lex.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            blended.rank(q, limit=10)
            sem.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            embedder.query(q)
            emb.append((time.perf_counter() - started) * 1000)
        print(f"pass {r + 1}: {len(queries)} searches, load {load:.1f}-{os.getloadavg()[0]:.1f}: lexical p50 "
              f"{statistics.median(lex):.2f} p95 {bench.percentile(lex, 0.95):.2f} ms; with the extra p50 "
              f"{statistics.median(sem):.2f} p95 {bench.percentile(sem, 0.95):.2f} ms (the request's embedding "
              f"alone p50 {statistics.median(emb):.2f} p95 {bench.percentile(emb, 0.95):.2f} ms)", flush=True)


if __name__ == "__main__":
    main()
