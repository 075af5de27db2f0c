"""``approve last`` does not approve a call a model paused through another door (review 13).

``last`` means "the newest paused execution" of the journal (selection.resolve_execution), across
every door to it. README suggests ``codemode mcp --notebook X.ipynb`` so that an agent host shares
the notebook's journal (the person approves in the panel), and ``%approve last`` (or ``codemode
approve last``) for the person's own paused cell. Both together: the person's program pauses,
the model sends a program of its own through the MCP server (it pauses too, and is newer), and
the person's ``approve last`` approves the model's call, which the person was never shown; the
command says only "approving call #0 tasks.add_task" while it runs it. What a person approves is
then chosen by the model's timing.

The right outcome: ``last`` does not approve a call of an execution the person's front end did not
show them (it is refused as ambiguous when more than one execution waits, or names this front
end's own); the model's call stays pending.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.serving.serving_support import applied, codemode, make_project, stdio_params

pytestmark = pytest.mark.anyio


async def test_approve_last_does_not_approve_the_models_newer_pause(tmp_path: Path) -> None:
    """It is an error if the person's `codemode approve last` runs the call a model's program paused on."""
    notebook = make_project(tmp_path)
    mine = tmp_path / "mine.py"
    mine.write_text("tasks.add_task(title='mine')['title']\n")
    ran = codemode("--notebook", str(notebook), "run", str(mine), "--approve", "no", cwd=tmp_path)
    assert "waiting for approval" in ran.stdout, ran.stdout + ran.stderr

    async with Client(stdio_params(notebook, "--approvals", "outside")) as client:
        out = await client.call_tool("codemode", {"code": "tasks.add_task(title='from the model')['title']"})
    assert out.structured_content is not None and out.structured_content["status"] == "paused"

    approved = codemode("--notebook", str(notebook), "approve", "last", cwd=tmp_path)
    assert "from the model" not in applied(tmp_path), approved.stdout + approved.stderr
