"""The redactor takes any value a connector returns, however deeply nested, and never raises (s15o, item 5).

``Redactor.value`` (connectors/secrets.py) walked a result recursively, so a result nested about 600
levels deep raised RecursionError, which it turned into ``ConnectorError: ... nested too deeply to be
checked for credentials``. That error is raised after the call ran: the journal recorded the call
``error`` (the state of a call that never ran), and rollback skipped it. The codec refuses a value that
deep at the boundary anyway, and the runtime records such a call ``applied`` with the note that its
result was not kept (review 13/14, H2), as for any other result that cannot cross; the redactor must
not get there first with an error of its own.

The right outcome: the redactor returns the value with every form of the secret replaced, at any depth
(iteratively: no recursion limit), and a call that ran is recorded ``applied``.
"""

from __future__ import annotations

from typing import Any

import pytest

from codemode_kernel.connectors.base import Connector, Tool, tool
from codemode_kernel.connectors.secrets import REDACTED, Redactor, redacting
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

SECRET = "s15o-deep-secret-token"


def _nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"k": value, SECRET: i}
    return value


def _leaf(value: Any) -> Any:
    while isinstance(value, (list, dict)):
        value = value[0] if isinstance(value, list) else value["k"]
    return value


def _keys(value: Any) -> set[str]:
    keys: set[str] = set()
    while isinstance(value, (list, dict)):
        if isinstance(value, dict):
            keys |= set(value)
            value = value["k"]
        else:
            value = value[0]
    return keys


@pytest.mark.parametrize("depth", [600, 5_000, 100_000])
def test_a_deep_value_is_redacted_at_every_level(depth: int) -> None:
    """It is an error if the redactor raises on a deep value, or leaves the secret in a key or the innermost text."""
    out = Redactor([SECRET]).value(_nested(depth, f"the token is {SECRET}"))
    assert _leaf(out) == f"the token is {REDACTED}"
    assert SECRET not in _keys(out) and REDACTED in _keys(out)


def test_a_value_that_refers_to_itself_is_an_error_not_a_hang() -> None:
    """It is an error if a cyclic value (which no JSON holds) makes the redactor loop for ever."""
    cyclic: list[Any] = [SECRET]
    cyclic.append(cyclic)
    with pytest.raises(Exception, match="refers to itself"):
        Redactor([SECRET]).value(cyclic)


class Deep(Connector):
    """A connector with a credential whose method ran, then returned a result 600 levels deep."""

    name = "deep"

    def __init__(self) -> None:
        self.ran = 0

    def secrets(self) -> list[str]:
        return [SECRET]

    def tools(self) -> dict[str, Tool]:
        def make() -> Any:
            """Make something; answers with a deep document."""
            self.ran += 1
            return _nested(600, "done")

        return {"make": redacting(tool(make), self.secrets)}


async def test_a_call_that_ran_with_a_deep_result_is_applied(make_runtime: RuntimeFactory) -> None:
    """It is an error if the journal records a call that ran as ``error`` because its result was deep."""
    deep = Deep()
    rt = make_runtime([deep])
    out = await rt.execute("deep.make()\n'ok'")
    assert deep.ran == 1
    state = await rt.execution(out["execution_id"])
    assert state is not None
    assert [e.state for e in state.log] == ["applied"], [(e.seq, e.state, e.error) for e in state.log]
