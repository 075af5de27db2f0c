"""Kernel benchmarks (issue 5): cell round trip against stock IPython, and click-to-result.

Run: .venv/bin/python benchmarks/bench_kernel.py [--cells 60] [--clicks 20] [--executor subprocess]

1. Execute-request → idle round trip of a trivial cell (``1 + 1``), Code Mode kernel and
   the stock IPython kernel in the same run, median of ``--cells`` cells each (after a
   warm-up), with ``--gap`` seconds between cells as when a person runs them, and again
   back to back (where the isolated executor's one-pass workers must be started at the
   rate cells arrive). Target: within 10 ms of IPython's.
2. Click on Approve → the replayed cell's result in the card, for a cell that made 100
   journaled reads before the call that needs approval (the click is the button's comm
   message; the result is the card's Output update). Target: ≤ 100 ms.

Prints figures and ratios; asserts nothing. Both kernels run in a scratch folder.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

TOOLS = textwrap.dedent('''
    from codemode_kernel import ToolSetConnector

    def make():
        notes = []
        def list_notes() -> list:
            """List notes."""
            return list(notes)
        def add_note(text: str) -> dict:
            """Add a note."""
            notes.append(text)
            return {"id": len(notes), "text": text}
        return ToolSetConnector([list_notes, add_note], name="notes", requires_approval={"add_note"})
''')

READS_THEN_APPROVAL = "for i in range(100):\n    notes.list_notes()\nnotes.add_note(text='n{n}')\n'done {n}'"


class Client:
    def __init__(self, kernel_name: str, folder: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "CODEMODE_"))}
        env.update(IPYTHONDIR=str(folder / ".ipython"), JPY_SESSION_NAME=str(folder / "bench.ipynb"))
        self.km = KernelManager(kernel_name=kernel_name)
        self.km.start_kernel(cwd=str(folder), env=env)
        self.kc: BlockingKernelClient = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)
        self.models: dict[str, dict[str, Any]] = {}

    def iopub(self, timeout: float = 30) -> dict[str, Any]:
        msg: dict[str, Any] = self.kc.get_iopub_msg(timeout=timeout)
        content = msg["content"]
        if msg["msg_type"] == "comm_open":
            self.models[content["comm_id"]] = dict(content["data"].get("state", {}))
        elif msg["msg_type"] == "comm_msg" and content["data"].get("method") == "update":
            self.models.setdefault(content["comm_id"], {}).update(content["data"]["state"])
        return msg

    def run(self, code: str) -> tuple[float, list[dict[str, Any]]]:
        """Seconds from sending the request to the idle status it caused, and its messages."""
        start = time.perf_counter()
        msg_id = self.kc.execute(code)
        messages = []
        while True:
            msg = self.iopub()
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                elapsed = time.perf_counter() - start
                break
            messages.append(msg)
        self.kc.get_shell_msg(timeout=30)
        return elapsed, messages

    def close(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


def round_trips(client: Client, cells: int, gap: float) -> list[float]:
    for _ in range(5):
        client.run("1 + 1")
    samples = []
    for _ in range(cells):
        time.sleep(gap)  # a person runs cells one at a time; 0 measures "Run All"
        samples.append(client.run("1 + 1")[0])
    return samples


def click_to_result(client: Client, n: int, gap: float) -> float:
    """Seconds from the Approve click to the card's output showing the cell's result."""
    _, messages = client.run(READS_THEN_APPROVAL.format(n=n))
    card = next(m["content"]["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
                for m in messages if m["msg_type"] == "display_data")
    approve = next(cid for cid, s in client.models.items()
                   if s.get("_model_name") == "ButtonModel" and s.get("description") == "Approve"
                   and not s.get("disabled") and cid in descendants(client, card))
    output = next(cid for cid in descendants(client, card) if client.models[cid].get("_model_name") == "OutputModel")
    time.sleep(gap)  # reading the card takes a person longer than this
    start = time.perf_counter()
    client.kc.shell_channel.send(client.kc.session.msg(
        "comm_msg", {"comm_id": approve, "data": {"method": "custom", "content": {"event": "click"}}}))
    while True:
        client.iopub()
        outputs = client.models[output].get("outputs", [])
        if any(o.get("output_type") == "display_data" and f"done {n}" in o["data"].get("text/plain", "")
               for o in outputs):
            return time.perf_counter() - start


def descendants(client: Client, root: str) -> list[str]:
    out = [root]
    for ref in client.models.get(root, {}).get("children", []):
        out += descendants(client, str(ref).removeprefix("IPY_MODEL_"))
    return out


def summary(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p90 = ms[int(len(ms) * 0.9) - 1]
    return f"median {statistics.median(ms):7.2f} ms   p90 {p90:7.2f} ms   min {ms[0]:7.2f} ms   (n={len(ms)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=60)
    parser.add_argument("--clicks", type=int, default=20)
    parser.add_argument("--executor", choices=["subprocess", "inprocess"], default="subprocess")
    parser.add_argument("--gap", type=float, default=0.2, help="seconds between cells (default 0.2)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="codemode-bench-kernel-"))
    (folder / "bench_tools.py").write_text(TOOLS)
    (folder / "codemode.toml").write_text(f'[executor]\nkind = "{args.executor}"\n\n'
                                          '[connectors.notes]\npython = "bench_tools:make"\n')
    print(f"Kernel benchmark: {args.cells} trivial cells per kernel, {args.clicks} approval clicks, "
          f"executor={args.executor}, {os.cpu_count()} CPUs")

    stock = Client("python3", folder)
    try:
        ipython = round_trips(stock, args.cells, args.gap)
        ipython_burst = round_trips(stock, args.cells, 0)
    finally:
        stock.close()
    codemode = Client("codemode", folder)
    try:
        ours = round_trips(codemode, args.cells, args.gap)
        ours_burst = round_trips(codemode, args.cells, 0)
        clicks = [click_to_result(codemode, n, args.gap) for n in range(args.clicks)]
    finally:
        codemode.close()

    print(f"\n1. execute_request → idle, trivial cell `1 + 1`, {args.gap:g} s between cells")
    print(f"   IPython kernel    {summary(ipython)}")
    print(f"   Code Mode kernel  {summary(ours)}")
    delta = (statistics.median(ours) - statistics.median(ipython)) * 1000
    ratio = statistics.median(ours) / statistics.median(ipython)
    print(f"   Code Mode − IPython: {delta:+.2f} ms (ratio {ratio:.2f}×); target ≤ +10 ms: "
          f"{'met' if delta <= 10 else 'NOT met'}")
    print("\n   back to back (Run All: every pass waits for a fresh worker when the pool is empty)")
    print(f"   IPython kernel    {summary(ipython_burst)}")
    print(f"   Code Mode kernel  {summary(ours_burst)}")
    print("\n2. click Approve → replayed cell's result in the card (100 journaled reads before the call)")
    print(f"   {summary(clicks)}")
    print(f"   target ≤ 100 ms: {'met' if statistics.median(clicks) * 1000 <= 100 else 'NOT met'}")


if __name__ == "__main__":
    main()
