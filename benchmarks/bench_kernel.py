"""Kernel benchmarks (issue 5): cell round trip against stock IPython, and click-to-result.

Run: .venv/bin/python benchmarks/bench_kernel.py [--json] [--quick] [--cells 60] [--clicks 20] [--executor subprocess]
     [--kernel codemode] [--no-clicks]

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
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import Figure, emit, progress

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


def round_trips(client: Client, cells: int, gap: float, cpu: list[tuple[float, float]] | None = None) -> list[float]:
    """Round trips of ``cells`` trivial cells; ``cpu`` gets the CPU seconds per cell they cost.

    The CPU is that of the kernel process and that of its descendants (a Code Mode kernel's
    zygote and workers; reaped ones counted through their parents), from ``/proc``: a figure
    that other work on the machine disturbs far less than the round trip.
    """
    for _ in range(5):
        client.run("1 + 1")
    pid = client.km.provisioner.process.pid if client.km.provisioner is not None else None  # type: ignore[attr-defined]
    before = tree_cpu(pid) if pid is not None else None
    samples = []
    for _ in range(cells):
        time.sleep(gap)  # a person runs cells one at a time; 0 measures "Run All"
        samples.append(client.run("1 + 1")[0])
    if cpu is not None and before is not None and pid is not None:
        after = tree_cpu(pid)
        cpu.append(((after[0] - before[0]) / cells, (after[1] - before[1]) / cells))
    return samples


def tree_cpu(root: int) -> tuple[float, float]:
    """CPU seconds so far of process ``root`` and of all its descendants (live ones and reaped ones)."""
    tick = os.sysconf("SC_CLK_TCK")
    own: dict[int, tuple[int, int, int]] = {}  # pid -> (parent, its own ticks, its reaped children's ticks)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            own[int(entry)] = (int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14]))
    children: dict[int, list[int]] = {}
    for pid, (parent, _, _) in own.items():
        children.setdefault(parent, []).append(pid)
    mine = own.get(root, (0, 0, 0))
    rest, stack = mine[2], list(children.get(root, []))
    while stack:
        pid = stack.pop()
        rest += own[pid][1] + own[pid][2]
        stack += children.get(pid, [])
    return mine[1] / tick, rest / tick


def click_to_result(client: Client, n: int, gap: float) -> float:
    """Seconds from the Approve click to the card's output showing the cell's result."""
    _, messages = client.run(READS_THEN_APPROVAL.format(n=n))
    card = next(m["content"]["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
                for m in messages if m["msg_type"] == "display_data")
    approve = next(cid for cid, s in client.models.items()
                   if s.get("_model_name") == "ButtonModel" and s.get("description") == "Approve"
                   and cid in descendants(client, card))
    while client.models[approve].get("disabled"):  # armed widgets.ARMING_SECONDS after the call appears
        client.iopub()
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    parser.add_argument("--quick", action="store_true", help="fewer repeats, cells and clicks")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cells", type=int, default=60)
    parser.add_argument("--clicks", type=int, default=20)
    parser.add_argument("--executor", choices=["subprocess", "inprocess"], default="subprocess")
    parser.add_argument("--gap", type=float, default=0.2, help="seconds between cells (default 0.2)")
    parser.add_argument("--kernel", default="codemode", help="the Code Mode kernelspec to measure (default codemode)")
    parser.add_argument("--no-clicks", action="store_true", help="skip the approval clicks")
    args = parser.parse_args()
    repeats = 2 if args.quick else args.repeats
    cells = 20 if args.quick else args.cells
    clicks = 5 if args.quick else args.clicks
    folder = Path(tempfile.mkdtemp(prefix="codemode-bench-kernel-"))
    (folder / "bench_tools.py").write_text(TOOLS)
    (folder / "codemode.toml").write_text(f'[executor]\nkind = "{args.executor}"\n\n'
                                          '[connectors.notes]\npython = "bench_tools:make"\n')
    progress(f"kernel: {cells} trivial cells per kernel and repeat, {clicks} approval clicks, executor={args.executor}")
    ipython: list[float] = []
    ipython_burst: list[float] = []
    ours: list[float] = []
    ours_burst: list[float] = []
    ipython_cpu: list[tuple[float, float]] = []
    ours_cpu: list[tuple[float, float]] = []
    click_ms: list[float] = []
    for _ in range(repeats):  # each repeat a fresh kernel of each kind, the stock one first
        stock = Client("python3", folder)
        try:
            ipython.append(statistics.median(round_trips(stock, cells, args.gap)) * 1e3)
            ipython_burst.append(statistics.median(round_trips(stock, cells, 0, ipython_cpu)) * 1e3)
        finally:
            stock.close()
        codemode = Client(args.kernel, folder)
        try:
            ours.append(statistics.median(round_trips(codemode, cells, args.gap)) * 1e3)
            ours_burst.append(statistics.median(round_trips(codemode, cells, 0, ours_cpu)) * 1e3)
            if not args.no_clicks:
                click_ms.append(statistics.median(click_to_result(codemode, n, args.gap) for n in range(clicks)) * 1e3)
        finally:
            codemode.close()
    group = f"Kernel (execute_request → idle, trivial cell `1 + 1`, executor={args.executor})"
    figures = [
        Figure(group, f"Code Mode kernel, cells {args.gap:g} s apart", "ms", ours, anchor="stock IPython kernel",
               anchor_samples=ipython, target="≤ 2× the stock kernel"),
        Figure(group, "Code Mode kernel, cells back to back (Run All)", "ms", ours_burst,
               anchor="stock IPython kernel", anchor_samples=ipython_burst, target="≤ 2× the stock kernel"),
    ]
    if ours_cpu and ipython_cpu:
        stock_cpu = [(own + rest) * 1e3 for own, rest in ipython_cpu]
        figures += [
            Figure(group, "CPU per cell back to back, the kernel process", "ms", [own * 1e3 for own, _ in ours_cpu],
                   anchor="stock IPython kernel, all its processes", anchor_samples=stock_cpu,
                   note="the runtime (journal, the executor's host side) and the kernel; from /proc"),
            Figure(group, "CPU per cell back to back, the kernel's workers (zygote and forked children)", "ms",
                   [rest * 1e3 for _, rest in ours_cpu], anchor="stock IPython kernel, all its processes",
                   anchor_samples=stock_cpu, note="a fresh confined process per cell; from /proc"),
        ]
    if click_ms:
        figures.append(Figure("Approval", "click Approve → the replayed cell's result in the card (100 journaled reads "
                              "first)", "ms", click_ms, target="≤ 100 ms"))
    emit("kernel", figures, args.json)


if __name__ == "__main__":
    main()
