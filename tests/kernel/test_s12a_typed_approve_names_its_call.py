"""A typed ``%approve`` / ``%reject`` (no call number) decides only a call it read as pending (s12a).

It reads the call pending now and decides it by its number. When it reads none (another approval's
pass is running), it must decide nothing: asking the runtime for "whatever is pending" would decide
the call that pass pauses on next, which nobody was shown. The interleaving is made deterministic by
letting another front end approve call #0 at the moment the typed command reads what is pending,
and answering that read as it would have been answered while that approval's pass ran (nothing).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel.kernel.output import RecordingSink
from codemode_kernel.kernel.session import NotebookSession
from tests.support import LEDGER_TWO_ADDS, Ledger

pytestmark = pytest.mark.anyio


@pytest.fixture
async def lab(tmp_path: Path) -> AsyncIterator[tuple[NotebookSession, Ledger]]:
    (tmp_path / "codemode.toml").write_text('[executor]\nkind = "inprocess"\n')
    ledger = Ledger()
    session = NotebookSession(cwd=tmp_path, env={"JPY_SESSION_NAME": str(tmp_path / "p.ipynb")})
    session.load()
    session.connect(ledger.connector())
    session.home_loop = asyncio.get_running_loop()
    yield session, ledger
    await session.aclose()


def read_while_another_approval_runs(session: NotebookSession, monkeypatch: pytest.MonkeyPatch) -> None:
    """The next ``pending()`` read lands while another front end's approval of call #0 runs its pass."""
    rt = session.runtime
    real = rt.pending

    async def mid_pass(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(rt, "pending", real)
        eid = args[0] if args else kwargs["execution_id"]
        moved = await rt.approve(eid, seq=0)  # the other front end; its pass pauses on call #1
        assert moved["status"] == "paused", moved
        return []  # what the read saw while that pass ran

    monkeypatch.setattr(rt, "pending", mid_pass)


async def paused(session: NotebookSession) -> str:
    outcome = await session.run_code(LEDGER_TWO_ADDS, RecordingSink(), 1)
    return str(outcome.execution_id)


async def test_a_typed_approve_that_read_nothing_pending_approves_nothing(
        lab: tuple[NotebookSession, Ledger], monkeypatch: pytest.MonkeyPatch) -> None:
    session, ledger = lab
    eid = await paused(session)
    read_while_another_approval_runs(session, monkeypatch)
    cell = RecordingSink()

    out = await session.approve(eid, origin=cell)

    assert ledger.done == ["A"], "call #1, which nobody was shown, did not run"
    assert out.get("refused") is True and out["error_type"] == "InvalidStateError" and not out.get("settled")
    assert out["error"] == (
        f"Nothing was approved: execution {eid} had no pending call when this approve looked, and it is now "
        "paused on call #1 (ledger.add), which this approve did not name. Decide on that call.")
    assert [v[0] for k, v in cell.outputs if k == "error"] == ["InvalidStateError"], "the cell shows the refusal"
    state = await session.runtime.execution(eid)
    assert state is not None and state.status == "paused"
    assert [(e.seq, e.state) for e in state.log] == [(0, "applied"), (1, "pending")]


async def test_a_typed_reject_that_read_nothing_pending_rejects_nothing(
        lab: tuple[NotebookSession, Ledger], monkeypatch: pytest.MonkeyPatch) -> None:
    session, ledger = lab
    eid = await paused(session)
    read_while_another_approval_runs(session, monkeypatch)

    assert await session.reject(eid, origin=RecordingSink()) is False

    state = await session.runtime.execution(eid)
    assert state is not None and state.status == "paused", "call #1 was not rejected"
    assert [(e.seq, e.state) for e in state.log] == [(0, "applied"), (1, "pending")]
    assert ledger.done == ["A"]


async def test_a_typed_approve_approves_the_call_it_read(lab: tuple[NotebookSession, Ledger]) -> None:
    """The usual case: the call pending when the command runs is approved, by its number."""
    session, ledger = lab
    eid = await paused(session)
    out = await session.approve(eid, origin=RecordingSink())
    assert out["status"] == "paused" and out["approved"] == {"seq": 0, "call": "ledger.add"}
    assert ledger.done == ["A"]
