"""Retention per door: a model's programs prune only a model's programs (review 14, M4; lead, session 14).

An execution started through the model-facing tool (``runtime.tool()``, ``codemode mcp``) prunes
finished executions beyond ``max_executions`` among those the tool started; one a person starts
(a cell, ``execute``) prunes beyond ``max_executions`` among all, as before.
"""

from __future__ import annotations

import pytest

from tests.conftest import RuntimeFactory, StoreSql

pytestmark = pytest.mark.anyio


async def test_the_tools_executions_are_kept_to_the_limit_among_themselves(make_runtime: RuntimeFactory,
                                                                          store_sql: StoreSql) -> None:
    rt = make_runtime([], max_executions=3)
    person = [(await rt.execute(f"{i}"))["execution_id"] for i in range(2)]
    tool = rt.tool()
    model = [(await tool.call(f"{i}"))["execution_id"] for i in range(6)]
    kept = {r[0] for r in store_sql("SELECT id FROM codemode_executions")}
    # Each start keeps the newest 3 finished ones beside itself (DESIGN: the new one is protected).
    assert kept == set(person) | set(model[-4:]), "the model's oldest two were pruned, the person's kept"
    options = store_sql("SELECT options FROM codemode_executions WHERE id = :id", id=model[-1])[0][0]
    assert '"via_tool": true' in options  # what the prune looks for (journal.VIA_TOOL_JSON)

    newest = (await rt.execute("'mine'"))["execution_id"]  # a person's start prunes among all
    kept = {r[0] for r in store_sql("SELECT id FROM codemode_executions")}
    assert kept == {newest, *model[-3:]}, kept
