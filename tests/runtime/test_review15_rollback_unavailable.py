"""A rollback skips, without a word, the calls of a connector that is configured but unavailable (review 15).

``selection.revert_for`` answers ``None`` for a connector the catalog lacks, "no longer configured
(or unavailable)", and ``runtime.rollback`` skips such calls like a method without a revert. For a
connector that is *configured* and only unavailable now (its server did not start in this process:
a CLI started while it was down, a kernel restarted meanwhile), the call has a revert; it is simply
not run. The rollback still reverts the other calls, marks the execution ``rolled_back`` and raises
nothing: the person is told the execution was rolled back while one of its actions stands.

The right outcome: the rollback says which applied call it could not revert and why (a
``RollbackError`` naming it, as for a revert that failed), or refuses until the connector is back;
either way the call stays ``applied`` and is reverted by a later rollback.
"""

from __future__ import annotations

from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from codemode_kernel.errors import ConfigurationError, RollbackError
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio


class Backend:
    def __init__(self) -> None:
        self.items: list[str] = []


class Server(ToolSetConnector):
    """A connector whose server can be down when the catalog is resolved (as an MCP server can)."""

    def __init__(self, backend: Backend, *, down: bool = False) -> None:
        def add(text: str) -> dict[str, Any]:
            """Add an item."""
            backend.items.append(text)
            return {"text": text}

        def undo(args: dict[str, Any], result: Any, ctx: Any) -> None:
            backend.items.remove(result["text"])

        super().__init__([add], name="remote", reverts={"add": undo}, target="review15 remote")
        self.down = down

    def tools(self) -> Any:
        if self.down:
            raise ConfigurationError("connector 'remote': its server did not start")
        return super().tools()


def local(backend: Backend) -> ToolSetConnector:
    def note(text: str) -> dict[str, Any]:
        """Write a note."""
        backend.items.append(text)
        return {"text": text}

    def undo(args: dict[str, Any], result: Any, ctx: Any) -> None:
        backend.items.remove(result["text"])

    return ToolSetConnector([note], name="local", reverts={"note": undo}, target="review15 local")


async def test_a_rollback_says_which_call_it_could_not_revert(make_runtime: RuntimeFactory) -> None:
    mine, theirs = Backend(), Backend()
    first = make_runtime([local(mine), Server(theirs)])
    out = await first.execute("local.note(text='a')\nremote.add(text='b')\n1")
    assert out["status"] == "completed", out
    assert mine.items == ["a"] and theirs.items == ["b"]

    later = make_runtime([local(mine), Server(theirs, down=True)])  # the same folder, its server down now
    with pytest.raises(RollbackError, match=r"remote\.add"):
        await later.rollback(out["execution_id"])
    state = await later.execution(out["execution_id"])
    assert state is not None
    assert [(e.seq, e.state) for e in state.log] == [(0, "reverted"), (1, "applied")]
    assert theirs.items == ["b"]
