"""A snippet cannot take a connector's or a method's name (review 15x L13): refused, saying why, nothing saved."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, ToolSetConnector
from codemode_kernel.errors import CodemodeError


def list_notes() -> list[dict[str, str]]:
    """List every note."""
    return [{"text": "a"}]


pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(("name", "said"), [("notes", "is the name of a connector"),
                                            ("list_notes", "is the name of a method (notes.list_notes)"),
                                            ("codemode", "is the name of a connector")])
async def test_a_claimed_name_is_refused(tmp_path: Path, name: str, said: str) -> None:
    async with CodemodeRuntime([ToolSetConnector([list_notes], name="notes")], store=f"sqlite:///{tmp_path / 'j.db'}",
                               executor=InProcessExecutor()) as rt:
        out = await rt.execute("len(notes.list_notes())")
        with pytest.raises(CodemodeError, match=re.escape(said)):
            await rt.save_snippet(name, execution_id=out["execution_id"])
        assert await rt.snippets() == []
        saved = await rt.save_snippet("count_notes", execution_id=out["execution_id"])
        assert saved.name == "count_notes"
