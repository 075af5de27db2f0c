"""A snippet name is letters, digits, '_', '-' or '.', and nothing after them (review 12).

snippets.NAME is ``^[A-Za-z][A-Za-z0-9_.-]{0,127}$`` used with ``re.match``: ``$`` also matches
before a final newline, so ``"report\\n"`` is saved as a snippet name, one that
``codemode.run("report")`` does not find and that every list (panel, ``%snippets``, the CLI) shows
with a line break in it.
"""

from __future__ import annotations

import pytest

from codemode_kernel.errors import SnippetError
from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio


async def test_a_name_ending_in_a_newline_is_refused(make_runtime: RuntimeFactory) -> None:
    """It is an error if a snippet name with a trailing newline is saved."""
    rt = make_runtime([Shop()])
    done = await rt.execute("1 + 1")
    assert done["status"] == "completed"
    with pytest.raises(SnippetError, match="invalid snippet name"):
        await rt.save_snippet("report\n", execution_id=done["execution_id"])
    assert [s.name for s in await rt.snippets()] == []
