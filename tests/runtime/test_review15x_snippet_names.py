"""Review 15x: a snippet may take a connector's or a method's name, and discovery then contradicts itself.

``%snippet save notes last ...`` (or ``save_snippet("notes", ...)``) is accepted beside the
connector ``notes``. ``codemode.search`` lists the snippet with ``path: 'notes'`` (kind
``snippet``); ``codemode.describe('notes')`` - the path search gave - describes the *connector*,
so the snippet cannot be described at all. A snippet named ``list_notes`` does the opposite:
``%describe list_notes``, README's bare-method form, now answers the snippet instead of
``notes.list_notes``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, ToolSetConnector
from codemode_kernel.errors import CodemodeError

pytestmark = pytest.mark.anyio


def list_notes() -> list:
    """List every note."""
    return [{"text": "a"}]


async def test_a_snippet_path_from_search_describes_the_snippet(tmp_path: Path) -> None:
    async with CodemodeRuntime([ToolSetConnector([list_notes], name="notes")], store=f"sqlite:///{tmp_path / 'j.db'}",
                               executor=InProcessExecutor()) as rt:
        out = await rt.execute("len(notes.list_notes())")
        try:
            await rt.save_snippet("notes", execution_id=out["execution_id"], description="Count the notes")
        except (CodemodeError, ValueError):
            return  # refusing the name is a fix too
        found = [r for r in (await rt.search("count the notes")).results if r.kind == "snippet"]
        assert found, "the snippet is found"
        described = await rt.describe(found[0].path)
    assert described.kind == "snippet", described.kind
