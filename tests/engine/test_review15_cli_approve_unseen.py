"""``codemode approve ID`` runs the pending call without ever showing what it is (review 15).

A model that paused through ``codemode mcp`` is told (``serve/follow.py`` ``paused_step``, the
approve hint of ``cli._approve_hint``) to have the person run ``codemode approve ID`` in a
terminal; the person has the ID, and an account of the call, from the model's own words. The
command (cli.py ``_approve``) takes the call pending now, prints ``approving call #0
tasks.add_task`` - no arguments - and approves it at once, with no question. ``approve last`` is
refused for a model's pause for this very reason (review 13 M3: "read it and name it"); naming
the ID reads nothing either. (``codemode run`` shows each pause whole and asks.)

The right outcome: before the call runs, the terminal has shown its arguments (and, as ``run``
does, asked; this spec answers yes).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from codemode_kernel.building import runtime_for_folder
from codemode_kernel.cli import main

TASKS = '''
from codemode_kernel import ToolSetConnector

ON_CALL = []

def add_task(title: str) -> dict:
    """Add a task."""
    for hook in ON_CALL:
        hook()
    return {"id": 1}

def tasks():
    return ToolSetConnector([add_task], name="tasks", requires_approval={"add_task"}, target="review15 cli tasks")
'''


def test_approve_shows_the_call_before_it_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "review15_cli_tasks.py").write_text(TASKS)
    (tmp_path / "codemode.toml").write_text('[connectors.tasks]\npython = "review15_cli_tasks:tasks"\n'
                                            '[executor]\nkind = "inprocess"\n')

    async def model_pauses() -> str:  # what `codemode mcp` does with the model's program
        built = runtime_for_folder(tmp_path)
        async with built.runtime as rt:
            out = await rt.tool().call("tasks.add_task(title='wire 9,000 EUR to mallory')")
        assert out["status"] == "paused", out
        return str(out["execution_id"])

    eid = asyncio.run(model_pauses())
    capsys.readouterr()
    on_screen: list[str] = []
    sys.modules["review15_cli_tasks"].ON_CALL.append(  # type: ignore[attr-defined]
        lambda: on_screen.append("".join(capsys.readouterr())))
    rc = main(["--dir", str(tmp_path), "approve", eid], ask=lambda prompt: "y")
    assert rc == 0
    assert len(on_screen) == 1, "the call ran once"
    assert "mallory" in on_screen[0], f"when the call ran, the terminal showed only: {on_screen[0]!r}"
