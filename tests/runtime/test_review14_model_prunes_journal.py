"""A model's programs prune the person's executions out of the journal (review 14).

A runtime keeps the newest ``max_executions`` (50) finished executions and deletes older ones as
each new execution starts (journal.py ``_terminal_beyond``), whoever started them. The
model-facing tool (``runtime.tool()``, ``codemode mcp --notebook``) shares the notebook's runtime
and journal, so a model that sends 51 short programs (``1``) deletes every earlier execution of
the person's: their journals, the record of which actions were applied, and with it the rollback
(``UnknownExecutionError``) of what those executions did. Nothing asks or tells the person.

The right outcome: what a model's programs start does not push a person's execution with applied
actions out of the journal (e.g. prune per door, or never prune an execution that can still be
rolled back without saying so).
"""

from __future__ import annotations

import pytest

from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio


async def test_a_models_programs_do_not_prune_the_persons_execution(make_runtime: RuntimeFactory) -> None:
    """It is an error if 51 one-line programs through the model's tool delete the person's revertible execution."""
    shop = Shop()
    rt = make_runtime([shop], max_executions=50)
    mine = await rt.execute("shop.add_item(title='invoice')")
    assert mine["status"] == "completed", mine
    tool = rt.tool()
    for _ in range(51):
        out = await tool.call("1")
        assert out["status"] == "completed", out
    assert await rt.execution(mine["execution_id"]) is not None, "the person's execution was pruned"
    await rt.rollback(mine["execution_id"])
    assert shop.reverts == [("create_item", 2)], shop.reverts
