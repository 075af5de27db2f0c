"""A model's program, approved where more connectors are configured, reaches connectors never given to it (review 16).

A model's ``codemode`` tool (``runtime.tool()``, ``codemode mcp``) runs over the connectors of *its*
runtime. Its execution records them (``row.connectors``) and their targets when it starts. The
person approves elsewhere: in the notebook whose journal it is (``codemode mcp --notebook``: the
panel, ``%approve``; the kernel also has the connectors its ``%%host`` cells ``connect()``-ed), or with
``codemode approve`` over a folder that configures more tables. ``runtime._approve`` checks only that
the recorded connectors are still there and act on the same backends; the approved pass then runs the
program from the top with *the approving runtime's* whole catalog (``catalog.namespaces()``). So a
program written as

    notes.add_note(text='minutes of the meeting')     # needs approval: the person approves this
    try:
        leaked = vault.read_all()                     # a connector only the notebook has
    except NameError:
        leaked = None
    leaked

reads the notebook's private connector once a person approves an innocuous note, and the model reads
the result with ``codemode_status`` (the journal's result). Writes that need no approval run too.

The right outcome: an approval runs the program over the connectors the execution started with
(``row.connectors``); the others stay out of reach (a NameError, as in the first pass), and nothing of
theirs is called.
"""

from __future__ import annotations

from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

CODE = """
notes.add_note(text='minutes of the meeting')
try:
    leaked = vault.read_all()
except NameError:
    leaked = None
leaked
"""


def notes() -> ToolSetConnector:
    def add_note(text: str) -> dict[str, Any]:
        """Add a note (needs a person's approval)."""
        return {"id": 1}

    return ToolSetConnector([add_note], name="notes", requires_approval=["add_note"], target="review16 notes")


async def test_an_approval_elsewhere_does_not_hand_the_model_another_connector(make_runtime: RuntimeFactory) -> None:
    reads: list[str] = []

    def read_all() -> dict[str, str]:
        """Every secret of the notebook's own vault."""
        reads.append("read_all")
        return {"payroll": "alice 9,000; bob 8,500"}

    vault = ToolSetConnector([read_all], name="vault", target="review16 vault")
    model_side = make_runtime([notes()])  # `codemode mcp`: the model's connectors
    paused = await model_side.tool().call(CODE)
    assert paused["status"] == "paused", paused
    assert paused["pending"][0]["method"] == "add_note"

    notebook = make_runtime([notes(), vault])  # the notebook's kernel: its table plus what %%host connected
    out = await notebook.approve(paused["execution_id"], seq=0)
    assert out["status"] == "completed", out
    assert reads == [], "the model's program called a connector the model was never given"
    assert out.get("result") is None, out
    state = await model_side.execution(paused["execution_id"])
    assert state is not None and "payroll" not in str(state.result), "codemode_status hands the model the vault"
