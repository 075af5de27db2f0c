"""Review 15x: a snippet saved the way notebook 04 teaches is described as taking no input.

Notebook 04 saves ``tag_report`` (``tag = input["tag"]`` ...) with ``%snippet save NAME last
DESCRIPTION``; ``%snippet save`` (and the panel's Save as snippet, ``codemode save-snippet``)
has no way to give an input schema. ``codemode.describe("tag_report")`` then declares
``def run() -> Any:`` - no argument - and ``codemode.search`` lists it with ``required: []``.
A model reads "no input" and calls ``codemode.run("tag_report")``, which fails inside the
snippet. The code reads ``input``; the declaration should say it takes one (and, read from
the code, which keys: ``input["tag"]``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, ToolSetConnector

pytestmark = pytest.mark.anyio


def list_notes(tag: str) -> list:
    """List the notes with a tag."""
    return [{"title": f"about {tag}"}]


async def test_a_snippet_that_reads_input_is_declared_with_it(tmp_path: Path) -> None:
    async with CodemodeRuntime([ToolSetConnector([list_notes], name="notes")],
                               store=f"sqlite:///{tmp_path / 'j.db'}", executor=InProcessExecutor()) as rt:
        out = await rt.execute('tag = input["tag"]\nlen(notes.list_notes(tag=tag))', inputs={"input": {"tag": "ci"}})
        assert out["status"] == "completed", out
        await rt.save_snippet("tag_report", execution_id=out["execution_id"], description="Count notes with a tag")
        types = (await rt.describe("tag_report")).types
        found = [r for r in (await rt.search("count notes with a tag")).results if r.path == "tag_report"]
    assert "def run() -> Any" not in types, types
    assert "input" in types.split("# snippet source:")[0], types  # the declaration, not only the source comment
    assert found and found[0].required, found  # e.g. ["input"]
