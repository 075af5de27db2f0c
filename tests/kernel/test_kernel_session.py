"""The notebook session without a kernel process: the paths behind cells, cards, magics and panel."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from codemode_kernel import ToolSetConnector
from codemode_kernel.kernel.output import RecordingSink
from codemode_kernel.kernel.session import NotebookSession

pytestmark = pytest.mark.anyio


class Counter:
    """A connector whose approved action waits for a gate, counting real executions."""

    def __init__(self) -> None:
        self.runs = 0
        self.gate = asyncio.Event()

    def connector(self) -> ToolSetConnector:
        async def act(label: str) -> str:
            """Do the thing."""
            await self.gate.wait()
            self.runs += 1
            return label.upper()

        def peek() -> int:
            """Look."""
            return self.runs

        return ToolSetConnector([act, peek], name="work", requires_approval={"act"}, target="the counter of this spec")


def make_session(folder: Path, counter: Counter) -> NotebookSession:
    (folder / "codemode.toml").write_text('[executor]\nkind = "inprocess"\n')
    session = NotebookSession(cwd=folder, env={"JPY_SESSION_NAME": str(folder / "s.ipynb")})
    session.load()
    session.connect(counter.connector())
    return session


@pytest.fixture
async def counter_and_session(tmp_path: Path) -> AsyncIterator[tuple[Counter, NotebookSession]]:
    counter = Counter()
    session = make_session(tmp_path, counter)
    session.home_loop = asyncio.get_running_loop()
    yield counter, session
    await session.aclose()


async def test_a_second_approval_while_one_runs_is_refused(counter_and_session: tuple[Counter, NotebookSession]
                                                           ) -> None:
    counter, session = counter_and_session
    sink = RecordingSink()
    outcome = await session.run_code("work.act(label='x')", sink, 1)
    eid = outcome.execution_id
    assert eid is not None and session.records[eid].card is not None
    first = asyncio.ensure_future(session.approve(eid))
    await asyncio.sleep(0.05)
    second = await session.approve(eid)
    assert second["refused"] is True and "already being approved" in second["error"]
    counter.gate.set()
    done = await first
    assert done["status"] == "completed" and done["result"] == "X"
    assert counter.runs == 1
    stale = await session.approve(eid)
    assert stale["refused"] is True and "'completed'" in stale["error"]
    assert counter.runs == 1


async def test_after_a_restart_an_execution_is_adopted_and_approved(tmp_path: Path) -> None:
    counter = Counter()
    counter.gate.set()
    first = make_session(tmp_path, counter)
    outcome = await first.run_code("print('one')\nwork.act(label='y')", RecordingSink(), 1)
    await first.aclose()
    second = make_session(tmp_path, counter)
    try:
        origin = RecordingSink()
        out = await second.approve(str(outcome.execution_id), origin=origin)
        assert out["status"] == "completed" and counter.runs == 1
        assert origin.text() == "", "output the first pass printed before the restart is not repeated"
        assert ("result", {"text/plain": "'Y'"}) in origin.outputs
    finally:
        await second.aclose()


async def test_only_names_a_cell_changed_are_carried(counter_and_session: tuple[Counter, NotebookSession]) -> None:
    counter, session = counter_and_session
    counter.gate.set()
    await session.run_code("a = 1\nb = 'x'", RecordingSink(), 1)
    paused = await session.run_code("c = a + 1\nwork.act(label=b)", RecordingSink(), 2)
    await session.run_code("a = 10", RecordingSink(), 3)
    await session.approve(str(paused.execution_id))
    assert session.variables == {"a": 10, "b": "x", "c": 2}


async def test_resolve_last_and_prefixes(counter_and_session: tuple[Counter, NotebookSession]) -> None:
    _, session = counter_and_session
    done = await session.run_code("1", RecordingSink(), 1)
    paused = await session.run_code("work.act(label='z')", RecordingSink(), 2)
    assert await session.resolve("last", "approve") == paused.execution_id
    assert await session.resolve("last", "rollback") == done.execution_id
    assert await session.resolve("last", "journal") == paused.execution_id
    assert await session.resolve(str(done.execution_id)[:20], "journal") == done.execution_id
