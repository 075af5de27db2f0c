"""A connector answer holding NaN or Infinity does not fail a call that already ran (review 13).

Python's ``json`` writes ``NaN``, ``Infinity`` and ``-Infinity`` by default, so services and MCP
servers written in Python send them (``json.dumps({"mean": float("nan")})``). They are not JSON
(RFC 8259), but ``mcp._parse_text`` (text content that looks like JSON) and ``openapi._decode``
(``response.json()``) read them with ``json.loads``, which accepts them, and ``1e999`` becomes
``inf``. The runtime's codec then refuses the result: the call has run (its side effect is done),
the journal records it as ``error``, the execution ends ``CodecError: Cannot pass a value of type
'float' at the result of stats.record ... Convert it first``, which the program could not do (it
never saw the value), and a model reading it sends the program again: the action runs twice.
A rollback skips the call (it walks ``applied`` calls only).

The right outcome: the connector hands the code what the server sent in a form that crosses the
boundary (the text as it came, or the values with the non-numbers as ``None``), so the call that
ran is recorded as applied and the program goes on.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import McpConnector, OpenApiConnector
from tests.conftest import RuntimeFactory
from tests.support import json_service

pytestmark = pytest.mark.anyio

TEXTS = {"object with NaN": '{"mean": NaN, "n": 0}', "overflowing number": "1e999",
         "list with -Infinity": "[-Infinity]"}

SERVER = textwrap.dedent('''
    import sys
    from mcp.server import MCPServer

    server = MCPServer("stats")
    count, text = sys.argv[1], sys.argv[2]

    @server.tool(structured_output=False)
    def record(kind: str) -> str:
        """Record a measurement and report the stats as JSON text."""
        with open(count, "a") as f:
            f.write(kind + "\\n")
        return text

    server.run()
''')


@pytest.mark.parametrize("text", TEXTS.values(), ids=TEXTS.keys())
async def test_an_mcp_tool_whose_text_holds_nan_completes(make_runtime: RuntimeFactory, tmp_path: Path,
                                                          text: str) -> None:
    """It is an error if a tool call that ran (counted once) ends the execution as a CodecError."""
    script = tmp_path / "stats_server.py"
    script.write_text(SERVER)
    count = tmp_path / "count"
    rt = make_runtime([McpConnector("stats", command=sys.executable, args=[str(script), str(count), text])])
    out = await rt.execute("r = stats.record(kind='weight')\n'went on'")
    assert count.read_text().splitlines() == ["weight"]
    assert out["status"] == "completed", out
    assert out["result"] == "went on"
    state = await rt.execution(out["execution_id"])
    assert state is not None and [e.state for e in state.log] == ["applied"]


DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Stats", "version": "1"},
    "paths": {"/measurements": {"post": {"operationId": "record", "responses": {"200": {"description": "ok"}}}}},
}


@pytest.fixture
def stats_service() -> Iterator[tuple[str, list[tuple[str, str]]]]:
    with json_service(lambda method, path: b'{"mean": NaN, "max": Infinity}') as (base, seen):
        yield base, seen


async def test_an_openapi_answer_holding_nan_completes(make_runtime: RuntimeFactory,
                                                       stats_service: tuple[str, list[tuple[str, str]]]) -> None:
    """It is an error if a POST that the service applied (once) ends the execution as a CodecError."""
    base, posted = stats_service
    rt = make_runtime([OpenApiConnector("stats", DOCUMENT, base_url=base, requires_approval=False)])
    out = await rt.execute("r = stats.record()\n'went on'")
    assert posted == [("POST", "/measurements")]
    assert out["status"] == "completed", out
    state = await rt.execution(out["execution_id"])
    assert state is not None and [e.state for e in state.log] == ["applied"]
