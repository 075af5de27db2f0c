"""s15k (review 15, noticed): the panel is told which executions a model started through the codemode
tool (``via_tool``), so their pending calls are not taken for a cell's own."""

from __future__ import annotations

import pytest

from tests.panel.conftest import Setup

pytestmark = pytest.mark.anyio


async def test_a_models_execution_is_marked_and_a_cells_is_not(setup: Setup) -> None:
    own = await setup.host.rt.execute("shop.create_item(title='mine')")
    answer = await setup.host.rt.tool().call("shop.create_item(title='the model wants this')")
    snapshot = await setup.panel.data("snapshot")
    marks = {e["id"]: e["via_tool"] for e in snapshot["executions"]}
    assert marks[own["execution_id"]] is False
    assert [v for k, v in marks.items() if k != own["execution_id"]] == [True], (marks, answer)
    detail = await setup.panel.data("get_execution", execution_id=own["execution_id"])
    assert detail["via_tool"] is False
