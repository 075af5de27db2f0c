"""Panel comm benchmarks (issue 6): what a refresh of the Code Mode panel costs.

Run: .venv/bin/python benchmarks/bench_panel.py [--json] [--quick] [--executions 50] [--calls 10] [--result-chars 20000]

Builds a runtime (in-process executor, SQLite file) holding ``--executions`` completed
executions of ``--calls`` connector calls each, every call returning about
``--result-chars`` characters, then times the panel's requests through a PanelChannel
and a fake comm (the comm is the network edge) and prints the bytes each answer puts on
the wire, next to what sending the records whole would cost. Prints figures and ratios;
asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from figures import Figure, emit

from codemode_kernel import CodemodeRuntime, InProcessExecutor, Snippet, ToolSetConnector
from codemode_kernel.kernel.panel import PanelChannel


class Comm:
    comm_id = "bench"

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.on_message: Any = None

    def send(self, data: Any = None, metadata: Any = None, buffers: Any = None) -> None:
        self.sent.append(json.dumps(data))  # what ipykernel would serialize

    def on_msg(self, callback: Any) -> None:
        self.on_message = callback

    def on_close(self, callback: Any) -> None:
        pass


class Manager:
    def register_target(self, name: str, f: Any) -> None:
        self.open = f


class Host:
    def __init__(self, runtime: CodemodeRuntime) -> None:
        self.runtime = runtime

    async def approve(self, execution_id: str) -> dict[str, Any]:
        return await self.runtime.approve(execution_id)

    async def reject(self, execution_id: str, seq: int | None) -> bool:
        return await self.runtime.reject(execution_id, seq)

    async def rollback(self, execution_id: str) -> None:
        await self.runtime.rollback(execution_id)

    async def save_snippet(self, name: str, execution_id: str, description: str) -> Snippet:
        return await self.runtime.save_snippet(name, execution_id=execution_id, description=description)


async def main(executions: int, calls: int, result_chars: int, repeat: int, repeats: int, as_json: bool) -> None:
    def fetch(key: int) -> dict[str, Any]:
        """Return a record with a large body."""
        return {"key": key, "body": "x" * result_chars}

    with tempfile.TemporaryDirectory() as tmp:
        runtime = CodemodeRuntime([ToolSetConnector([fetch], name="data")], store=f"sqlite:///{tmp}/bench.db",
                                  executor=InProcessExecutor(), max_executions=executions + 10)
        code = "\n".join(f"r{i} = data.fetch(key={i})" for i in range(calls)) + "\nlen(r0['body'])"
        started = time.perf_counter()
        ids = [(await runtime.execute(code))["execution_id"] for _ in range(executions)]
        setup_s = time.perf_counter() - started

        channel = PanelChannel(Host(runtime))
        manager = Manager()
        channel.register(manager)
        comm = Comm()
        manager.open(comm, {})

        async def ask(request: dict[str, Any]) -> tuple[float, int]:
            """Median seconds and the bytes of the answer."""
            times = []
            for i in range(repeat):
                comm.sent.clear()
                t0 = time.perf_counter()
                comm.on_message({"content": {"data": {**request, "request_id": f"b{i}"}}})
                await channel.drain()
                times.append(time.perf_counter() - t0)
            (answer,) = comm.sent
            assert json.loads(answer)["type"] == "reply", answer[:300]
            return statistics.median(times), len(answer)

        snap, detail, value = [], [], []
        for _ in range(repeats):
            snap_s, snap_bytes = await ask({"type": "snapshot", "limit": executions})
            detail_s, detail_bytes = await ask({"type": "get_execution", "execution_id": ids[0]})
            value_s, value_bytes = await ask({"type": "get_value", "execution_id": ids[0], "seq": 0,
                                              "field": "result"})
            snap.append(snap_s * 1e3)
            detail.append(detail_s * 1e3)
            value.append(value_s * 1e3)
        whole = [s.to_dict() for s in await runtime.executions(executions)]
        whole_bytes = len(json.dumps(whole))
        whole_one = len(json.dumps(whole[-1]))
        await runtime.aclose()

    group = f"Panel ({executions} executions × {calls} calls, results of {result_chars:,} characters)"
    emit("panel", [
        Figure(group, "snapshot", "ms", snap,
               note=f"{snap_bytes:,} bytes on the wire; whole records would be {whole_bytes:,}"),
        Figure(group, "get_execution", "ms", detail,
               note=f"{detail_bytes:,} bytes; the whole record would be {whole_one:,}"),
        Figure(group, "get_value (one whole result, on demand)", "ms", value, note=f"{value_bytes:,} bytes"),
    ], as_json, setup_seconds=setup_s)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--executions", type=int, default=50)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--result-chars", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5, help="requests per median")
    parser.add_argument("--repeats", type=int, default=3, help="medians per figure")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    parser.add_argument("--quick", action="store_true", help="fewer executions and repeats")
    args = parser.parse_args()
    asyncio.run(main(20 if args.quick else args.executions, args.calls, args.result_chars, args.repeat,
                     2 if args.quick else args.repeats, args.json))
