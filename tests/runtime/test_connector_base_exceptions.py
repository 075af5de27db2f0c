"""A connector that raises a BaseException subclass fails its call and nothing else (issue 12 review).

Each case runs in a child process: a KeyboardInterrupt or SystemExit that escapes the host's event
loop would otherwise stop pytest itself. A connector raising SystemExit is ordinary in practice
(an argparse-based CLI wrapper calls sys.exit(2) on bad input).

It is an error if a BaseException raised by connector code
- escapes the host's event loop (asyncio.run / the kernel's loop ends),
- lets the pass be reported ``completed`` (the code after the call never ran),
- leaves the call's entry ``executing`` (outcome unknown) although the host saw it fail,
- or is reported without naming what the connector raised.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHILD = r'''
import asyncio, json, sqlite3, sys
from codemode_kernel import CodemodeRuntime, InProcessExecutor, ToolSetConnector
from codemode_kernel.executor.isolated import SubprocessExecutor

KIND, FLAVOUR, EXECUTOR, DB = sys.argv[1:5]
RUNS = {"boom": 0}

def make(kind):
    return {"KeyboardInterrupt": KeyboardInterrupt("kbi"), "SystemExit": SystemExit(2),
            "GeneratorExit": GeneratorExit("gen"), "BaseException": BaseException("base")}[kind]

def sync_boom(n: int) -> int:
    """Raise."""
    RUNS["boom"] += 1
    raise make(KIND)

async def async_boom(n: int) -> int:
    """Raise."""
    RUNS["boom"] += 1
    raise make(KIND)

def ok(n: int) -> int:
    """Fine."""
    return n

boom = sync_boom if FLAVOUR == "sync" else async_boom
boom.__name__ = "boom"

async def main():
    executor = SubprocessExecutor() if EXECUTOR == "subprocess" else InProcessExecutor()
    rt = CodemodeRuntime([ToolSetConnector([boom, ok], name="p")], store=f"sqlite:///{DB}", executor=executor)
    try:
        out = await asyncio.wait_for(rt.execute("x = p.boom(n=1)\n42"), 30)
        after = await asyncio.wait_for(rt.execute("p.ok(n=5)"), 30)
    finally:
        await rt.aclose()
    rows = sqlite3.connect(DB).execute(
        "SELECT seq, state, result, error FROM codemode_entries WHERE execution_id = ? ORDER BY seq",
        (out["execution_id"],)).fetchall()
    print("RESULT " + json.dumps({"out": out, "after": after, "rows": rows, "runs": RUNS["boom"]}), flush=True)

try:
    asyncio.run(main())
except BaseException as exc:
    print("ESCAPED " + type(exc).__name__, flush=True)
'''


@pytest.mark.parametrize("executor", ["subprocess", "inprocess"])
@pytest.mark.parametrize("flavour", ["sync", "async"])
@pytest.mark.parametrize("kind", ["KeyboardInterrupt", "SystemExit", "GeneratorExit", "BaseException"])
def test_a_connector_raising_a_base_exception_fails_its_call_and_nothing_else(
        tmp_path: Path, kind: str, flavour: str, executor: str) -> None:
    """The host loop survives, the pass is an error that names what was raised, the call is recorded as an
    error (not left executing), it ran once, and the runtime serves the next execution."""
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(script), kind, flavour, executor, str(tmp_path / "j.db")],
                          capture_output=True, text=True, timeout=120, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith(("RESULT ", "ESCAPED "))]
    assert lines, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    assert not lines[0].startswith("ESCAPED"), f"{lines[0]}: the connector's exception stopped the host's loop"
    report = json.loads(lines[0][len("RESULT "):])
    out = report["out"]
    assert out["status"] == "error", f"the pass was reported {out['status']} ({out}); the code after the call never ran"
    assert report["rows"] == [[0, "error", None, report["rows"][0][3]]], \
        f"the call's entry is {report['rows']}: left executing (outcome unknown) though the host saw it raise"
    assert kind in out["error"] and kind in (report["rows"][0][3] or ""), out["error"]
    assert report["runs"] == 1
    assert report["after"]["status"] == "completed" and report["after"]["result"] == 5
