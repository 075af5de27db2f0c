"""A call's reply carries the JSON text the host journaled, and its line is the same bytes (s11c).

The host serializes a call's result once, to journal it (``codec.dumps_encoded``); the reply hands
that text on (``executor.base.EncodedReply``) and the isolated executor writes it into the reply's
line instead of serializing the value a second time. Specs: the line is byte for byte what the
value serialized again gives, for values whose text is easy to get wrong; the reply the pass handler
makes carries exactly the text the journal stored; the sandbox sees the connector's value.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, ToolSetConnector, codec
from codemode_kernel.catalog import Catalog
from codemode_kernel.executor.base import EncodedReply
from codemode_kernel.executor.isolated import SubprocessExecutor, _reply_line
from codemode_kernel.executor.worker import dumps_line, loads_line
from codemode_kernel.journal import JournalStore
from codemode_kernel.passes import PassHandler, PassState
from codemode_kernel.runtime_journal import open_journal

pytestmark = pytest.mark.anyio

VALUES: list[Any] = [
    0, -1, 2**70, 1.25, -0.0, 1e308, 5e-324, True, None, "", "é\u2028\u2029\x00\"\\/\n\t", "𝄞",
    [], {}, [1, [2, [3]]], {"a": {"b": [None, 1.5]}}, (1, "t"), b"\x00\xff", {"$codemode": 1},
    [{"id": k, "name": f"item-{k} é", "price": k * 1.25, "tags": ["a", "b"], "ok": k % 2 == 0} for k in range(20)],
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_a_reply_line_with_the_journaled_text_is_the_value_serialized_again(value: Any) -> None:
    """It is an error if the line written from the journaled text differs from the value's own line by one byte."""
    encoded = codec.encode(value, "w")
    line = _reply_line(EncodedReply(encoded, codec.dumps_encoded(encoded)))
    assert line == dumps_line({"value": encoded})
    assert codec.decode(loads_line(line)["value"]) == value


def test_other_replies_are_serialized_as_they_are() -> None:
    """It is an error if a reply without a journaled text, or one with more than its value, loses a field."""
    assert _reply_line({"raise": {"type": "E", "message": "m"}}) == b'{"raise":{"type":"E","message":"m"}}\n'
    grown = EncodedReply(1, "1")
    grown["abort"] = "stop"
    assert loads_line(_reply_line(grown)) == {"value": 1, "abort": "stop"}


@pytest.fixture
def store(db_url: str) -> Iterator[JournalStore]:
    made = JournalStore(db_url)
    yield made
    made.dispose()


async def rows(n: int) -> list[dict[str, Any]]:
    """Rows of a few fields (async: answered on the loop)."""
    return [{"id": k, "price": k * 1.25, "name": f"é{k}"} for k in range(n)]


async def test_the_reply_carries_the_text_the_journal_stored(store: JournalStore) -> None:
    """It is an error if the text a reply hands on is not the recorded result."""
    catalog = Catalog.resolve_sync({"data": ToolSetConnector([rows], name="data")})
    assert catalog is not None
    with open_journal(store, "rt") as journal:
        journal.insert_execution("e1", "...", ["data"], {}, {}, passes=1)
        host = PassHandler(journal=journal, catalog=catalog, state=PassState("e1", 1, {}), search=str,
                           describe=str, snippet=lambda n, i: {}, outcome_bound=3600.0)
        reply = await host({"op": "call", "connector": "data", "method": "rows", "args": {"n": 3}, "replayed": 0})
        host.flush()
        entries = journal.entries("e1")
    assert type(reply) is EncodedReply
    assert reply == {"value": codec.encode(await rows(3), "w")}
    assert [entry.result for entry in entries] == [reply.text]


async def test_the_sandbox_sees_the_connectors_value(tmp_path: Any) -> None:
    """It is an error if a value the host sends back from its journaled text reaches the code changed."""
    values = {"rows": VALUES[-1], "text": VALUES[10], "tuple": (1, "t"), "bytes": b"\x00\xff", "tag": {"$codemode": 1}}

    async def fetch(name: str) -> Any:
        """One of the values."""
        return values[name]

    async with CodemodeRuntime([ToolSetConnector([fetch], name="data")], store=f"sqlite:///{tmp_path / 'j.db'}",
                               executor=SubprocessExecutor()) as runtime:
        out = await runtime.execute("{n: data.fetch(name=n) for n in ['rows', 'text', 'tuple', 'bytes', 'tag']}")
    assert out["status"] == "completed", out
    assert out["result"] == values
