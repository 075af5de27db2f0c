"""The journal's statements are compiled when a store opens, once per process (issue 12).

A runtime's first pass and first approval used to compile the statements they run (0.4-1.1 ms of
CPU each, ~4 ms on the first pass and again on the first approval, in every new store): the
statements every runtime's passes use are compiled when the store opens, and a second store of
the same dialect in the process compiles none of them again.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy.sql.elements import ClauseElement

from codemode_kernel import CodemodeRuntime, InProcessExecutor, ToolSetConnector
from codemode_kernel.journal import JournalStore


def read(i: int = 0) -> int:
    """A plain read."""
    return i


def write(value: int) -> int:
    """A write that needs approval."""
    return value


class Compiles:
    """Counts statements compiled with ``ClauseElement.compile`` (how the store compiles its own)."""

    def __init__(self) -> None:
        self.seen: list[str] = []


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> Iterator[Compiles]:
    counter = Compiles()
    original = ClauseElement.compile

    def counted(self: ClauseElement, *args: Any, **kwargs: Any) -> Any:
        compiled = original(self, *args, **kwargs)
        counter.seen.append(str(compiled).split("\n")[0][:80])
        return compiled

    monkeypatch.setattr(ClauseElement, "compile", counted)
    yield counter


@pytest.mark.anyio
async def test_a_runtimes_first_passes_and_first_approval_compile_no_statement(db_url: str, compiles: Compiles) -> None:
    """It is an error if a new store's first pass (quiet, asking the host, failing) or first approval
    compiles a statement: they are compiled when the store opens."""
    store = JournalStore(db_url)
    compiles.seen.clear()
    conns = [ToolSetConnector([read], name="data"), ToolSetConnector([write], name="store", requires_approval=True)]
    async with CodemodeRuntime(conns, store=store, executor=InProcessExecutor(), max_executions=2) as rt:
        assert (await rt.execute("1 + 1"))["result"] == 2
        assert (await rt.execute("data.read(i=3)"))["result"] == 3
        assert (await rt.execute("1 / 0"))["status"] == "error"
        paused = await rt.execute("data.read(i=1)\nstore.write(value=5)")
        assert paused["status"] == "paused"
        done = await rt.approve(paused["execution_id"])
        assert done["status"] == "completed", done
        assert done["result"] == 5
        paused = await rt.execute("store.write(value=6)\n1 / 0")
        failed = await rt.approve(paused["execution_id"])
        assert failed["error_type"] == "ZeroDivisionError", failed
    assert compiles.seen == []


def test_a_second_store_of_the_same_dialect_compiles_none_of_them_again(db_url: str, compiles: Compiles) -> None:
    """It is an error if opening another store on the same kind of database compiles its statements
    again (they are kept per process and dialect)."""
    JournalStore(db_url).dispose()
    compiles.seen.clear()
    store = JournalStore(db_url)
    try:
        assert compiles.seen == []
        assert store._insert_entry.sql.startswith("INSERT INTO codemode_entries")
    finally:
        store.dispose()
