"""``codemode.run`` that cannot run raises in the program, and a snippet's connectors are the ones it names.

Review 14x M7 and H4: a typo in a snippet's name, an input that does not fit, a missing input the
code reads, or a connector the code names that this runtime lacks: each raises (LookupError,
ValueError, ValueError, ConnectorError) with the snippet's name, as every other wrong name in a
program does; the program never runs on with an ``{'error': ...}`` value.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, ToolSetConnector
from codemode_kernel.journal import SnippetRow, now_ms
from codemode_kernel.runtime_journal import open_journal

pytestmark = pytest.mark.anyio

calls = {"count": 0}


def count() -> int:
    """Count the things."""
    calls["count"] += 1
    return 3


def now() -> str:
    """The time of day."""
    return "noon"


def _runtime(store: str, *, clock: bool = False) -> CodemodeRuntime:
    connectors = [ToolSetConnector([count], name="things")]
    if clock:
        connectors.append(ToolSetConnector([now], name="clock"))
    return CodemodeRuntime(connectors, store=store, executor=InProcessExecutor())


async def _save(rt: CodemodeRuntime, name: str, code: str, inputs: dict[str, object] | None = None) -> None:
    out = await rt.execute(code, inputs=inputs)
    assert out["status"] == "completed", out
    await rt.save_snippet(name, execution_id=out["execution_id"])


async def test_an_unknown_snippet_raises_lookup_error_with_the_nearest_names() -> None:
    async with _runtime("sqlite://") as rt:
        await _save(rt, "count_tag", "things.count()")
        out = await rt.execute('r = codemode.run("count_tagg", 1)\n"ran on"')
        assert out["status"] == "error" and out["error_type"] == "LookupError", out
        assert "no snippet named 'count_tagg'" in out["error"] and "did you mean 'count_tag'" in out["error"]
        caught = await rt.execute('try:\n    codemode.run("zzz")\nexcept LookupError as e:\n    r = str(e)\nr')
        assert caught["status"] == "completed" and "saved snippets: count_tag" in caught["result"], caught


async def test_a_missing_input_the_code_reads_raises_value_error_naming_input() -> None:
    async with _runtime("sqlite://") as rt:
        await _save(rt, "plus", 'input["n"] + things.count()', {"input": {"n": 1}})
        before = calls["count"]
        out = await rt.execute('codemode.run("plus")')
        assert out["status"] == "error" and out["error_type"] == "ValueError", out
        assert "snippet 'plus' reads `input`" in out["error"], out
        assert calls["count"] == before  # refused before it ran
        assert (await rt.execute('codemode.run("plus", {"n": 2})'))["result"] == 5


async def test_a_snippet_that_tests_its_input_runs_without_one() -> None:
    async with _runtime("sqlite://") as rt:
        await _save(rt, "maybe", '(input or {"n": 0})["n"] + things.count()', {"input": None})
        out = await rt.execute('codemode.run("maybe")')
        assert out["status"] == "completed" and out["result"] == 3, out


async def test_a_missing_connector_the_code_names_raises_connector_error(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'j.db'}"
    async with _runtime(store, clock=True) as rt:
        await _save(rt, "when", "clock.now()")
    async with _runtime(store) as rt:
        (snippet,) = await rt.snippets()
        assert snippet.connectors == ["clock"]
        out = await rt.execute('codemode.run("when")')
    assert out["status"] == "error" and out["error_type"] == "ConnectorError", out
    assert "snippet 'when' calls connector(s) clock" in out["error"], out


async def test_a_row_saved_with_every_configured_connector_is_read_as_the_ones_it_names(tmp_path: Path) -> None:
    """Snippets saved before the fix hold every connector the execution had; they run and list right."""
    store = f"sqlite:///{tmp_path / 'j.db'}"
    async with _runtime(store) as rt:
        with open_journal(rt.store, rt.name) as j:
            j.upsert_snippet(SnippetRow("double", "", "things.count() * 2", None, ["clock", "things"], None, now_ms()))
        (snippet,) = await rt.snippets()
        assert snippet.connectors == ["things"]
        out = await rt.execute('codemode.run("double")')
    assert out["status"] == "completed" and out["result"] == 6, out
