"""``approve last`` does not approve a model's call because it is the only one waiting (review 13, after 5538f6a).

5538f6a made ``last`` for a decision mean the newest paused execution of this front end's own
(a notebook's cells), "else the journal's only paused one". The second rule keeps the hole open
whenever the model's pause is the only one: the person's own program did not pause (it failed,
or finished), or the kernel was restarted (its records of its cells are gone), or the person is at
a terminal (``codemode approve last`` has no records of its own at all). Then ``approve last``
runs the model's call, saying only "approving call #0 tasks.add_task" as it does, which is the
outcome the finding was about: a call the person was never shown, approved by ``last``.

The right outcome: ``last`` never resolves to an execution this front end did not start (or show)
without showing its call and arguments first; the model's call stays pending.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.serving.serving_support import applied, codemode, make_project, stdio_params

pytestmark = pytest.mark.anyio


async def test_approve_last_does_not_approve_the_only_pause_when_it_is_the_models(tmp_path: Path) -> None:
    """It is an error if `codemode approve last` runs a call paused through the MCP door (the person's run failed)."""
    notebook = make_project(tmp_path)
    mine = tmp_path / "mine.py"
    mine.write_text("tasks.add_tassk(title='mine')\n")  # the person's typo: their run fails, nothing pauses
    ran = codemode("--notebook", str(notebook), "run", str(mine), "--approve", "no", cwd=tmp_path)
    assert "[error]" in ran.stdout, ran.stdout + ran.stderr

    async with Client(stdio_params(notebook, "--approvals", "outside")) as client:
        out = await client.call_tool("codemode", {"code": "tasks.add_task(title='from the model')['title']"})
    assert out.structured_content is not None and out.structured_content["status"] == "paused"

    approved = codemode("--notebook", str(notebook), "approve", "last", cwd=tmp_path)
    assert "from the model" not in applied(tmp_path), approved.stdout + approved.stderr
