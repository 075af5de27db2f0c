"""Rollback and a configured connector that is unavailable now: said, kept applied, reverted once it is back."""

from __future__ import annotations

import pytest

from codemode_kernel.errors import RollbackError
from tests.conftest import RuntimeFactory
from tests.runtime.test_review15_rollback_unavailable import Backend, Server, local

pytestmark = pytest.mark.anyio


async def test_the_call_left_applied_is_reverted_by_a_later_rollback_when_the_server_is_back(
        make_runtime: RuntimeFactory) -> None:
    mine, theirs = Backend(), Backend()
    out = await make_runtime([local(mine), Server(theirs)]).execute("local.note(text='a')\nremote.add(text='b')\n1")
    eid = out["execution_id"]
    down = make_runtime([local(mine), Server(theirs, down=True)])
    with pytest.raises(RollbackError) as raised:
        await down.rollback(eid)
    text = str(raised.value)
    assert "#1 remote.add: not reverted" in text and "unavailable now" in text and "roll back again" in text, text
    assert "did not start" not in text, "the connector's own failure text stays with the author (%connectors)"
    assert mine.items == [] and theirs.items == ["b"]

    back = make_runtime([local(mine), Server(theirs)])
    await back.rollback(eid)
    state = await back.execution(eid)
    assert state is not None and state.status == "rolled_back"
    assert [(e.seq, e.state) for e in state.log] == [(0, "reverted"), (1, "reverted")]
    assert theirs.items == []


async def test_a_server_back_by_the_time_of_the_rollback_is_asked_again(make_runtime: RuntimeFactory) -> None:
    """The runtime's catalog still says 'unavailable' (resolved while the server was down); rollback asks again."""
    mine, theirs = Backend(), Backend()
    out = await make_runtime([local(mine), Server(theirs)]).execute("local.note(text='a')\nremote.add(text='b')\n1")
    server = Server(theirs, down=True)
    rt = make_runtime([local(mine), server])
    assert "remote" in (await rt.catalog()).unavailable
    server.down = False
    await rt.rollback(out["execution_id"])
    assert mine.items == [] and theirs.items == []
