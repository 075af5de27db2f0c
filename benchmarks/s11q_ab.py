"""One round of bench_runtime.pass_ms (200 ms / 50 ms apart / back to back) on the tree in PYTHONPATH (s11q).

Run alternately for two trees: PYTHONPATH=<tree> .venv/bin/python benchmarks/s11q_ab.py [passes]
Prints one JSON line: the median ms of each gap, the load average.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_runtime import pass_ms


async def main() -> None:
    passes = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    out: dict[str, float | str] = {}
    with tempfile.TemporaryDirectory() as d:
        for gap in (0.2, 0.05, 0.0):
            out[f"{gap * 1000:g}ms"] = round(await pass_ms(Path(d), "sqlite", gap, passes), 3)
    with open("/proc/loadavg") as f:
        out["load"] = f.read().split()[0]
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
