"""The journal-less code tool hands the model an unavailable server's command line and stderr (review 15).

``connectors/unavailable.py`` says what a model may hear of a connector whose server did not start:
its ``failure_summary`` and where the author looks, never ``catalog.unavailable``'s text (the
server's command line, the end of its stderr, absolute paths: "may hold credentials", issue 10
item 5). The durable runtime keeps to it (``unavailable_note``). ``create_code_tool``'s runner does
not: a program that names the broken connector fails with a NameError whose message ends with
``unavailable now: <name> (<catalog.unavailable[name]>)`` (code_tool.py:179-180) - the whole
command line and whatever the server wrote to stderr - and that message is the model's answer.
``wrap_servers`` runs programs through the same runner.

The right outcome: the model hears that the connector is unavailable and a short, safe reason;
neither the command's arguments nor the server's stderr.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import InProcessExecutor, McpConnector, create_code_tool
from codemode_kernel.executor.isolated import SubprocessExecutor

pytestmark = pytest.mark.anyio

STDERR = "fatal: cannot read /home/alice/.config/app/credentials.json (db password review15-hunter2)"
ARGUMENT = "/srv/review15-private-root"


@pytest.fixture(params=["inprocess", "subprocess"])
async def executor(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    ex = InProcessExecutor() if request.param == "inprocess" else SubprocessExecutor()
    yield ex
    await ex.aclose()


async def test_a_program_naming_a_broken_server_hears_no_stderr_nor_command_line(executor: Any, tmp_path: Path) -> None:
    server = tmp_path / "broken_server.py"
    server.write_text(f"import sys\nsys.stderr.write({STDERR!r} + '\\n')\nsys.exit(1)\n", encoding="utf-8")
    tool = create_code_tool([McpConnector("files", command=sys.executable, args=[str(server), "--root", ARGUMENT],
                                          connect_timeout=20)], executor=executor)
    try:
        out = await tool.call("files.read(path='notes.txt')")
    finally:
        await tool.aclose()
    assert out.get("error_type") == "NameError", out
    assert "files" in out["error"] and "unavailable" in out["error"], out
    assert "review15-hunter2" not in out["error"], "the server's stderr reached the model"
    assert ARGUMENT not in out["error"] and str(server) not in out["error"], "the command line reached the model"
