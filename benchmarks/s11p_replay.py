"""s11p: replay per recorded call (bench_runtime.replay_us), wall and host CPU, for A/B runs.

Run: PYTHONPATH=<tree> .venv/bin/python benchmarks/s11p_replay.py [rounds] [reads]
Prints one line per round: wall us, host CPU us per replayed call (medians of 3 pairs).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_runtime import replay_us


async def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    reads = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    with tempfile.TemporaryDirectory() as d:
        for _ in range(rounds):
            wall, cpu = await replay_us(Path(d), "subprocess", reads)
            print(json.dumps({"wall_us": round(wall, 2), "cpu_us": round(cpu, 2)}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
