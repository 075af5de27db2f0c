"""Review 14x: a ``reverts`` mapping whose argument name is wrong is found out only at rollback.

``reverts = { add = { method = "delete", args = { noteid = "$result.id" } } }`` (the method's
argument is ``note_id``) loads without a word: the table's other mistakes are caught at load
(an unknown revert method: "Did you mean 'delete'?"; a template that starts with neither
``$result`` nor ``$args``). The mistake surfaces when the person needs the rollback:
``Rollback of '...': 1 revert(s) failed: #0 rv.add: TypeError: delete() got an unexpected keyword
argument 'noteid'``, and the applied call stays applied.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from codemode_kernel.building import runtime_for_folder

MODULE = '''
from codemode_kernel import ToolSetConnector

STORE = {}

def add(text: str) -> dict:
    """Add a text."""
    i = len(STORE) + 1
    STORE[i] = text
    return {"id": i}

def delete(note_id: int) -> dict:
    """Delete a text by its id."""
    return {"deleted": STORE.pop(note_id)}

def make():
    return ToolSetConnector([add, delete], name="rv")
'''


def test_a_revert_argument_the_method_does_not_take_is_a_load_problem(tmp_path: Path) -> None:
    (tmp_path / "review14x_rv.py").write_text(MODULE, encoding="utf-8")
    (tmp_path / "codemode.toml").write_text(
        '[executor]\nkind = "inprocess"\n\n[connectors.rv]\npython = "review14x_rv:make"\n'
        'reverts = { add = { method = "delete", args = { noteid = "$result.id" } } }\n', encoding="utf-8")
    built = runtime_for_folder(tmp_path)

    async def said() -> str:
        async with built.runtime as rt:
            catalog = await rt.catalog()
            return " ".join([*map(str, built.problems), *catalog.unavailable.values()])

    text = asyncio.run(said())
    assert "noteid" in text and "note_id" in text, text  # named, with the argument it probably meant
