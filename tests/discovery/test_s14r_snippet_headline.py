"""A snippet saved without a description is found with a line that says what it is, never ``''``.

Review 14x (noticed): ``%snippet save NAME last`` takes no description, and ``codemode.search``
then showed the snippet with ``description: ''``: a model cannot tell what it does without a describe.
"""

from __future__ import annotations

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, ToolSetConnector

pytestmark = pytest.mark.anyio


def count() -> int:
    """Count the things."""
    return 3


async def test_a_snippet_without_a_description_shows_its_code() -> None:
    async with CodemodeRuntime([ToolSetConnector([count], name="things")], store="sqlite://",
                               executor=InProcessExecutor()) as rt:
        out = await rt.execute("\n# twice\nthings.count() * 2")
        await rt.save_snippet("double_count", execution_id=out["execution_id"])
        found = await rt.search("double count", connector="codemode")
    (result,) = found.results
    assert result.path == "double_count"
    assert result.description == "A saved program without a description; its code: things.count() * 2", result
