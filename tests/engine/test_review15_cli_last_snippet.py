"""In a terminal, ``codemode save-snippet NAME`` (``last``) saves a model's program as the person's snippet (review 15).

Snippets are code a person promotes (DESIGN: "the host, not the model, promotes code"). Over one
journal, ``codemode mcp`` runs a model's programs while the person uses the ``codemode`` command.
``save-snippet NAME`` takes ``last`` by default, and for a terminal ``last`` is the journal's newest
completed execution whoever started it (``selection.resolve_execution``: no ``own`` executions, and
``via_tool`` is only looked at for approve/reject, review 13 M3). So the program the model ran last
is saved under the person's name for it, and whoever later runs ``codemode.run(NAME)`` runs the
model's code, believed to be the person's. (In a notebook ``last`` is the notebook's own since
review 13's notes; rollback and delete of ``last`` meet the same choice in a terminal.)

The right outcome: ``last`` does not name a model's execution for a person's save (it saves the
person's newest one, or refuses and names the model's, as approve does).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from codemode_kernel.building import runtime_for_folder
from codemode_kernel.cli import main

TASKS = '''
from codemode_kernel import ToolSetConnector

def count() -> int:
    """How many tasks there are."""
    return 3

def tasks():
    return ToolSetConnector([count], name="tasks", target="review15 last tasks")
'''


def test_save_snippet_last_does_not_take_a_models_program(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "review15_last_tasks.py").write_text(TASKS)
    (tmp_path / "codemode.toml").write_text('[connectors.tasks]\npython = "review15_last_tasks:tasks"\n'
                                            '[executor]\nkind = "inprocess"\n')
    (tmp_path / "mine.py").write_text("tasks.count() * 2\n")
    assert main(["--dir", str(tmp_path), "run", str(tmp_path / "mine.py")]) == 0

    async def model_runs() -> None:  # what `codemode mcp` does with the model's program meanwhile
        built = runtime_for_folder(tmp_path)
        async with built.runtime as rt:
            out = await rt.tool().call("tasks.count() + 1000  # the model's program")
        assert out["status"] == "completed", out

    asyncio.run(model_runs())
    capsys.readouterr()
    rc = main(["--dir", str(tmp_path), "save-snippet", "double_count"], ask=lambda prompt: "n")
    saved = capsys.readouterr()

    async def code_of_snippet() -> str | None:
        built = runtime_for_folder(tmp_path)
        async with built.runtime as rt:
            found = [s for s in await rt.snippets() if s.name == "double_count"]
            return found[0].code if found else None

    code = asyncio.run(code_of_snippet())
    assert "the model's program" not in (code or ""), f"saved the model's program: {code!r} ({saved.out}{saved.err})"
    assert rc != 0 or code == "tasks.count() * 2\n", (rc, code, saved)
