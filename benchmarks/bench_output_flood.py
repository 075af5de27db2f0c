"""Output flood (issue 16, item 1): a cell that prints two million lines, in a real kernel.

Run: .venv/bin/python benchmarks/bench_output_flood.py [--json] [--quick] [--lines 2000000] [--source DIR] [--anchor]

The cell is ``for k in range(LINES): print('line', k)``. Measured from the execute request
to the idle status it caused: the time, the IOPub stream messages the client received (and
their rate), and the characters shown. With ``--anchor`` the stock IPython kernel runs the
same cell too (its stdout is flushed every 200 ms and it prints everything: 92 s for two
million lines here, so it is not run by default). ``--source DIR`` runs the Code Mode kernel
from another source tree (e.g. an older commit, to compare).

Prints figures; asserts nothing. The kernels run in a scratch folder.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import Figure, emit, progress

FLOOD = "for k in range({lines}):\n    print('line', k)\n"


def flood(kernel_name: str, folder: Path, lines: int, source: str | None, timeout: float) -> dict[str, float]:
    """One fresh kernel, one flood cell: seconds to idle, stream messages, characters shown, the outcome."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "CODEMODE_"))}
    env.update(IPYTHONDIR=str(folder / ".ipython"), JPY_SESSION_NAME=str(folder / "flood.ipynb"))
    if source:
        env["PYTHONPATH"] = source
    km = KernelManager(kernel_name=kernel_name)
    km.start_kernel(cwd=str(folder), env=env)
    kc: BlockingKernelClient = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        kc.execute_interactive("1", timeout=60, output_hook=lambda msg: None)  # warm; stdout is the report's
        start = time.perf_counter()
        msg_id = kc.execute(FLOOD.format(lines=lines))
        streams = chars = errors = 0
        while True:
            remaining = start + timeout - time.perf_counter()
            if remaining <= 0:
                return {"seconds": float("inf"), "streams": streams, "chars": chars, "error": errors}
            msg: dict[str, Any] = kc.get_iopub_msg(timeout=remaining)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind = msg["msg_type"]
            if kind == "stream":
                streams += 1
                chars += len(msg["content"]["text"])
            elif kind == "error":
                errors += 1
            elif kind == "status" and msg["content"]["execution_state"] == "idle":
                return {"seconds": time.perf_counter() - start, "streams": streams, "chars": chars,
                        "error": errors}
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    parser.add_argument("--quick", action="store_true", help="one repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--lines", type=int, default=2_000_000)
    parser.add_argument("--source", help="run the Code Mode kernel from this source tree (PYTHONPATH)")
    parser.add_argument("--timeout", type=float, default=600, help="give up on a flood after this many seconds")
    parser.add_argument("--anchor", action="store_true", help="run the stock IPython kernel on the same cell too")
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    folder = Path(tempfile.mkdtemp(prefix="codemode-bench-flood-"))
    progress(f"output flood: {args.lines:,} prints per cell, {repeats} repeat(s) per kernel")
    ours: list[dict[str, float]] = []
    stock: list[dict[str, float]] = []
    for _ in range(repeats):
        if args.anchor:
            stock.append(flood("python3", folder, args.lines, None, args.timeout))
        ours.append(flood("codemode", folder, args.lines, args.source, args.timeout))
    progress(f"  Code Mode: {ours}" + (f"\n  IPython: {stock}" if stock else ""))
    group = f"Output flood (`for k in range({args.lines:,}): print('line', k)`, request → idle)"

    def anchor(key: str, scale: float = 1.0) -> dict[str, Any]:
        if not stock:
            return {}
        return {"anchor": "stock IPython kernel", "anchor_samples": [r[key] * scale for r in stock]}

    figures = [
        Figure(group, "time to idle", "ms", [r["seconds"] * 1e3 for r in ours], **anchor("seconds", 1e3),
               note="Code Mode stops the pass at max_output_chars (1,000,000) with LimitExceeded"),
        Figure(group, "IOPub stream messages", "messages", [r["streams"] for r in ours], **anchor("streams")),
        Figure(group, "IOPub stream messages per second", "/s", [r["streams"] / r["seconds"] for r in ours],
               target="≤ 1,000/s (the Jupyter server's IOPub limit)"),
        Figure(group, "characters shown in the cell", "chars", [r["chars"] for r in ours], **anchor("chars"),
               note="the kept output (max_kept_output_chars, 200,000), the cut note and the count dropped"),
    ]
    emit("output_flood", figures, args.json)


if __name__ == "__main__":
    main()
