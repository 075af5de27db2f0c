"""The default (lexical) search path before and after the semantic extra (s12m): it must not be slower.

Run alternately with two trees (``PYTHONPATH=<tree> .venv/bin/python benchmarks/s12m_default_path.py``),
with ``CODEMODE_SEMANTIC=0`` or without the extra importable. It loads bench_discovery's six API
descriptions, builds one runtime-style ``Discovery`` and times ``Discovery.search`` (what
``codemode.search`` runs) over the tuning, dev and validation requests, three passes, and prints one
JSON line: the last pass's p50 and p95 per search (wall) and its CPU per search. Nothing of the
requests or their results is printed.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(1, str(Path(__file__).resolve().parent))

import bench_discovery as bench

from codemode_kernel.catalog import Catalog
from codemode_kernel.discovery.service import Discovery


def main() -> None:
    connectors = bench.load_connectors(bench.fetch(lambda s: None))
    catalog = asyncio.run(Catalog.resolve({c.name: c for c in connectors}))
    queries = [i["q"] for source in (bench.INTENTS, bench.FRESH_INTENTS, bench.VALIDATION_INTENTS)
               for i in bench.load_intents(catalog, source)]
    discovery = Discovery()
    times: list[float] = []
    cpu = 0.0
    for _ in range(3):
        times = []
        cpu_started = time.process_time()
        for q in queries:
            started = time.perf_counter()
            discovery.search(catalog, [], q)
            times.append((time.perf_counter() - started) * 1000)
        cpu = (time.process_time() - cpu_started) * 1000 / len(queries)
    import codemode_kernel

    print(json.dumps({"tree": str(Path(codemode_kernel.__file__).resolve().parents[1]), "n": len(queries),
                      "p50_ms": statistics.median(times), "p95_ms": bench.percentile(times, 0.95),
                      "cpu_ms": cpu}))


if __name__ == "__main__":
    main()
