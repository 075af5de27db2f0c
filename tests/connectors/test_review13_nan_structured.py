"""An MCP result whose structured content holds NaN or Infinity does not fail a call that ran (review 13).

The first half of this finding (``test_review13_nan_results.py``) is JSON-looking *text* content,
which ``mcp._parse_text`` reads with ``json.loads``. Structured content takes another road: the
SDK parses every JSON-RPC line with pydantic, whose JSON parser accepts ``NaN``, ``Infinity`` and
``-Infinity``, so ``"structuredContent": {"mean": NaN}`` reaches ``_plain_result`` as a float nan.
An SDK server never writes them (pydantic serializes nan as null), but a server that writes its
JSON-RPC lines with Python's ``json.dumps`` does, by default. The call ran; the execution ends
``CodecError ... at the result of raw.stats['mean'] ... Convert it first``, the entry is ``error``.

The right outcome: the value reaches the code in a form that crosses the boundary (the non-numbers
as ``None``, or the result refused as the server's fault without calling it the program's), and the
call that ran is recorded as applied.

The server here is a few lines of hand-written JSON-RPC over stdio (``server/discover`` is answered
with an error, so the client falls back to ``initialize``).
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from codemode_kernel import McpConnector
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

SERVER = textwrap.dedent('''
    import json, sys

    count = sys.argv[1]
    for line in sys.stdin:
        msg = json.loads(line)
        mid, method = msg.get("id"), msg.get("method")
        if mid is None:
            continue
        if method == "initialize":
            result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                      "serverInfo": {"name": "raw", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "record", "description": "Record a value; answers the stats.",
                                 "inputSchema": {"type": "object", "properties": {}}}]}
        elif method == "tools/call":
            with open(count, "a") as f:
                f.write("record\\n")
            result = {"content": [{"type": "text", "text": "recorded"}],
                      "structuredContent": {"mean": float("nan"), "max": float("inf"), "n": 0}, "isError": False}
        else:
            reply = {"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "unknown " + str(method)}}
            sys.stdout.write(json.dumps(reply) + "\\n")
            sys.stdout.flush()
            continue
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}) + "\\n")
        sys.stdout.flush()
''')


async def test_structured_content_with_nan_completes(make_runtime: RuntimeFactory, tmp_path: Path) -> None:
    """It is an error if a tool call that ran (counted once) ends the execution as a CodecError."""
    script = tmp_path / "raw_server.py"
    script.write_text(SERVER)
    count = tmp_path / "count"
    rt = make_runtime([McpConnector("raw", command=sys.executable, args=[str(script), str(count)],
                                    connect_timeout=20)])
    out = await rt.execute("r = raw.record()\n'went on'")
    assert count.read_text().splitlines() == ["record"]
    assert out["status"] == "completed", out
    state = await rt.execution(out["execution_id"])
    assert state is not None and [e.state for e in state.log] == ["applied"]
