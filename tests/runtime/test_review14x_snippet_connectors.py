"""Review 14x: a snippet records every connector the runtime had, not the ones its code uses.

``save_snippet`` stores the execution's ``connectors`` (every connector configured when it ran),
and ``codemode.run`` refuses a snippet when any of them is missing now. So a snippet that only
calls ``things.count()``, saved in a notebook that also had ``clock``, is refused wherever
``clock`` is not there (another folder's ``codemode mcp``, a notebook whose ``mcp-server-time`` is
not installed, a ``%reload`` after removing a table): ``{'error': "snippet 'double' needs
connector(s) ['clock'], which are not configured in this runtime"}``, and that refusal is the
snippet's *value* in a completed execution. ``%snippets`` likewise lists "clock, memo, notes,
petstore, team" for notebook 04's ``tag_report``, which calls ``notes`` only.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, ToolSetConnector

pytestmark = pytest.mark.anyio


def count() -> int:
    """Count the things."""
    return 3


def now() -> str:
    """The time of day."""
    return "noon"


async def _save(store: str) -> None:
    connectors = [ToolSetConnector([count], name="things"), ToolSetConnector([now], name="clock")]
    async with CodemodeRuntime(connectors, store=store, executor=InProcessExecutor()) as rt:
        out = await rt.execute("things.count() * 2")
        assert out["status"] == "completed"
        await rt.save_snippet("double", execution_id=out["execution_id"], description="Twice the count")


async def test_a_snippet_runs_where_the_connectors_it_calls_are(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'journal.db'}"
    await _save(store)
    async with CodemodeRuntime([ToolSetConnector([count], name="things")], store=store,
                               executor=InProcessExecutor()) as rt:
        out = await rt.execute('codemode.run("double", None)')
    assert out["status"] == "completed" and out["result"] == 6, out


async def test_a_snippet_lists_the_connectors_it_calls(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'journal.db'}"
    await _save(store)
    async with CodemodeRuntime([ToolSetConnector([count], name="things")], store=store,
                               executor=InProcessExecutor()) as rt:
        (snippet,) = await rt.snippets()
    assert snippet.connectors == ["things"]
