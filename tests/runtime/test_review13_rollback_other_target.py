"""A rollback does not revert a call on a connector that only shares the name of the one that made it (review 13).

An execution records the *names* of the connectors configured when it started (DESIGN §5,
"Connector set"), and ``rollback`` looks each applied call's revert up by connector and method
name in the catalog of the runtime that rolls back (``selection.revert_for``). Two runtimes over
one journal (two hosts on a shared PostgreSQL store, two folders with ``codemode --store URL``,
or one notebook after ``%reload`` pointed ``[connectors.notes]`` at another server) may give
the name ``notes`` to different backends. Then a rollback reverts, on its own backend, calls that
were made on the other one: ``delete_note(id=1)`` deletes this backend's note 1, which the
execution never created, and the note the execution did create stays.

The right outcome: the rollback does not touch a backend the call was not made on (it refuses,
or skips the call as the journal's connector is not the one configured now).
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio


class Notes:
    """One backend: its notes by id."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.notes: dict[int, str] = {}

    def connector(self) -> ToolSetConnector:
        def add_note(text: str) -> dict[str, Any]:
            """Add a note."""
            note_id = len(self.notes) + 1
            self.notes[note_id] = text
            return {"id": note_id}

        def undo(args: dict[str, Any], result: Any, ctx: Any) -> None:
            self.notes.pop(result["id"], None)

        return ToolSetConnector([add_note], name="notes", reverts={"add_note": undo})


async def test_a_rollback_leaves_another_backend_alone(make_runtime: RuntimeFactory) -> None:
    """It is an error if rolling back from another runtime deletes a note on a backend the execution never used."""
    dev, prod = Notes("dev"), Notes("prod")
    prod.notes[1] = "the production note"
    first = make_runtime([dev.connector()])
    out = await first.execute("notes.add_note(text='draft')['id']")
    assert out["status"] == "completed" and dev.notes == {1: "draft"}, out
    other = make_runtime([prod.connector()])
    with contextlib.suppress(Exception):  # a refusal is a right outcome
        await other.rollback(out["execution_id"])
    assert prod.notes == {1: "the production note"}, "the rollback deleted a note on a backend it never wrote to"
