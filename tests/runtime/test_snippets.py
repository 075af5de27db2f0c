"""Snippets: save a completed execution, find it, describe it, run it with input."""

from __future__ import annotations

import ast

import pytest

from codemode_kernel.errors import InvalidStateError, SnippetError
from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio

TITLES = "titles = [i['title'] for i in shop.list_items()]\n[t.upper() for t in titles if t.startswith(input or '')]"


async def test_save_and_run_with_input(make_runtime: RuntimeFactory) -> None:
    """codemode.run(name, input) runs the snippet's code with `input` bound; its calls join the journal."""
    shop = Shop()
    rt = make_runtime([shop])
    eid = (await rt.execute(TITLES, inputs={"input": ""}))["execution_id"]
    snippet = await rt.save_snippet("upper_titles", execution_id=eid, description="Upper-case titles of shop items",
                                    input_schema={"type": ["string", "null"]})
    assert snippet.connectors == ["shop"] and snippet.code == TITLES
    assert [s.name for s in await rt.snippets()] == ["upper_titles"]
    out = await rt.execute("a = codemode.run('upper_titles', 'fi')\nshop.get_item(item_id=1)\na")
    assert out["result"] == ["FIRST"]
    state = await rt.execution(out["execution_id"])
    assert state is not None
    assert [(e.seq, e.method) for e in state.log] == [(0, "list_items"), (1, "get_item")]


async def test_snippet_found_by_search_and_described(make_runtime: RuntimeFactory) -> None:
    """Search ranks snippets by description; describe returns valid Python with the source."""
    rt = make_runtime([Shop()])
    eid = (await rt.execute("len(shop.list_items())"))["execution_id"]
    await rt.save_snippet("count_items", execution_id=eid, description="Count the items in the shop")
    found = await rt.search("count items")
    assert found.results[0].kind == "snippet" and found.results[0].path == "count_items"
    desc = await rt.describe("count_items")
    assert desc.kind == "snippet"
    ast.parse(desc.types)
    assert "len(shop.list_items())" in desc.types
    inside = await rt.execute("codemode.describe('count_items')['kind']")
    assert inside["result"] == "snippet"


async def test_snippet_with_missing_connector_raises_in_the_program(make_runtime: RuntimeFactory) -> None:
    """A snippet whose code names a connector this runtime lacks makes codemode.run raise ConnectorError
    (review 14x M7: a wrong name raises, as everywhere in a program); an unknown snippet raises LookupError."""
    rt = make_runtime([Shop(), Shop(name="other")])
    eid = (await rt.execute("other.list_items()\n1"))["execution_id"]
    await rt.save_snippet("uses_other", execution_id=eid)
    only_shop = make_runtime([Shop()])
    out = await only_shop.execute("r = codemode.run('uses_other')\n'error' in r and 'other' in r['error']")
    assert out["status"] == "error" and out["error_type"] == "ConnectorError", out
    assert "'uses_other'" in out["error"] and "other" in out["error"]
    out = await only_shop.execute("codemode.run('nope')")
    assert out["status"] == "error" and out["error_type"] == "LookupError", out
    assert "no snippet named 'nope'" in out["error"]


async def test_snippet_input_is_validated(make_runtime: RuntimeFactory) -> None:
    """Input not matching the snippet's input_schema raises ValueError naming the snippet, not a run."""
    shop = Shop()
    rt = make_runtime([shop])
    eid = (await rt.execute("shop.get_item(item_id=input)", inputs={"input": 1}))["execution_id"]
    await rt.save_snippet("get", execution_id=eid, input_schema={"type": "integer"})
    out = await rt.execute("codemode.run('get', 'one')")
    assert out["status"] == "error" and out["error_type"] == "ValueError", out
    assert "input of snippet 'get' is invalid" in out["error"]
    assert shop.calls.get("get_item", 0) == 1  # the saved execution's call only: the refused run made none
    assert (await rt.execute("codemode.run('get', 1)['title']"))["result"] == "first"


async def test_save_snippet_refuses_bad_requests(make_runtime: RuntimeFactory) -> None:
    """Bad names, non-completed executions and invalid schemas are refused with clear errors."""
    rt = make_runtime([Shop()])
    ok = (await rt.execute("1"))["execution_id"]
    with pytest.raises(SnippetError, match="invalid snippet name"):
        await rt.save_snippet("bad name!", execution_id=ok)
    with pytest.raises(SnippetError, match="not a valid JSON Schema"):
        await rt.save_snippet("x", execution_id=ok, input_schema={"type": 5})
    failed = (await rt.execute("1/0"))["execution_id"]
    with pytest.raises(InvalidStateError):
        await rt.save_snippet("x", execution_id=failed)
    assert [s.name for s in await rt.snippets()] == []
    assert await rt.delete_snippet("x") is False
