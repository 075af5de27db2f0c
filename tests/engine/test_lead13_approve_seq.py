"""``approve ID SEQ``: a typed approval names the call the person was shown (lead, session 13).

``codemode approve ID`` and ``%approve ID`` approve the call pending when the command runs. A person who
read ``codemode pending`` (call #0) and types the command after another front end approved #0 and the
pass paused on #1 would approve #1, which they never saw. With the call's number the approval applies
to that call only (the runtime checks it in its claim); a later call is refused and named.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from codemode_kernel import ToolSetConnector
from codemode_kernel.cli import main, parse_command
from codemode_kernel.kernel.magics import Magics
from codemode_kernel.kernel.output import RecordingSink
from codemode_kernel.kernel.session import NotebookSession
from tests.engine.test_review11_cli_stale_approval import _written, tasks_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return tasks_project(tmp_path)  # review 11's: add_task needs approval, prog.py adds two tasks


def test_the_command_takes_the_call_number() -> None:
    assert parse_command(["approve", "last", "1"])[1] == {"execution": "last", "seq": 1}
    assert parse_command(["approve", "last"])[1] == {"execution": "last", "seq": None}


def test_a_named_call_that_is_not_pending_is_not_approved(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--dir", str(project)]
    assert main([*d, "run", "--approve", "no", str(project / "prog.py")]) == 0
    capsys.readouterr()
    assert main([*d, "approve", "last", "1"]) == 1  # #0 waits; #1 was never shown
    out = capsys.readouterr().out
    assert "#0" in out and "nothing was approved" in out.lower()
    assert _written(project) == []
    assert main([*d, "--json", "pending"]) == 0
    assert [p["seq"] for p in json.loads(capsys.readouterr().out)] == [0]
    # The call shown, by its number: approved, and the pass pauses on #1.
    assert main([*d, "approve", "last", "0"]) == 0
    out = capsys.readouterr().out
    assert "approving call #0 tasks.add_task" in out and "waiting for approval: #1" in out
    assert _written(project) == ["first"]
    # The same number again, now stale: refused, #1 does not run.
    assert main([*d, "approve", "last", "0"]) == 1
    assert "#1" in capsys.readouterr().out
    assert _written(project) == ["first"]


@pytest.mark.anyio
async def test_the_magic_approves_the_named_call_only(tmp_path: Path) -> None:
    runs: list[str] = []

    def add(title: str) -> str:
        """Add."""
        runs.append(title)
        return title

    (tmp_path / "codemode.toml").write_text('[executor]\nkind = "inprocess"\n')
    session = NotebookSession(cwd=tmp_path, env={"JPY_SESSION_NAME": str(tmp_path / "s.ipynb")})
    session.load()
    session.connect(ToolSetConnector([add], name="tasks", requires_approval={"add"}))
    session.home_loop = asyncio.get_running_loop()
    try:
        sink = RecordingSink()
        await session.run_code("tasks.add(title='first')\ntasks.add(title='second')\n", sink, 1)
        eid = (await session.runtime.executions())[0].id
        magics = Magics(session)
        stale = RecordingSink()
        outcome = await magics.run_line(f"%approve {eid} 1", stale)
        assert outcome.status == "error" and runs == []
        assert "#0" in json.dumps(stale.outputs)
        shown = RecordingSink()
        assert (await magics.run_line(f"%approve {eid} 0", shown)).status == "ok"
        assert runs == ["first"]
        assert f"%approve {eid} 1" in json.dumps(shown.outputs)  # the next call, by its number
    finally:
        await session.aclose()


@pytest.mark.anyio
async def test_last_names_no_decision_when_several_wait(tmp_path: Path) -> None:
    """Two executions paused (say one through another door): 'last' for a decision names neither and
    lists both; a front end's own paused execution is its 'last'; for anything else 'last' is the newest."""
    from codemode_kernel import CodemodeRuntime
    from codemode_kernel.errors import CodemodeError
    from codemode_kernel.executor.inprocess import InProcessExecutor
    from codemode_kernel.selection import resolve_execution

    def add(title: str) -> str:
        """Add."""
        return title

    rt = CodemodeRuntime([ToolSetConnector([add], name="tasks", requires_approval={"add"})],
                         store=f"sqlite:///{tmp_path / 'j.db'}", executor=InProcessExecutor())
    try:
        first = (await rt.execute("tasks.add(title='mine')"))["execution_id"]
        assert await resolve_execution(rt, "last", "approve") == first
        second = (await rt.execute("tasks.add(title='theirs')"))["execution_id"]
        for purpose in ("approve", "reject"):
            with pytest.raises(CodemodeError) as refused:
                await resolve_execution(rt, "last", purpose)
            assert first in str(refused.value) and second in str(refused.value)
            assert "call #0 tasks.add" in str(refused.value)
        assert await resolve_execution(rt, "last", "approve", own={first}) == first
        assert await resolve_execution(rt, "last", "journal") == second
    finally:
        await rt.aclose()


@pytest.mark.anyio
async def test_a_front_ends_last_is_its_own(tmp_path: Path) -> None:
    """A notebook's 'last' for a rollback, a snippet or a delete is its own newest, not a newer one another
    door (a model through codemode mcp) ran on the same journal; with none of its own, the journal's newest."""
    from codemode_kernel import CodemodeRuntime
    from codemode_kernel.executor.inprocess import InProcessExecutor
    from codemode_kernel.selection import resolve_execution

    rt = CodemodeRuntime([], store=f"sqlite:///{tmp_path / 'j.db'}", executor=InProcessExecutor())
    try:
        mine = (await rt.execute("1 + 1"))["execution_id"]
        theirs = (await rt.execute("2 + 2"))["execution_id"]
        for purpose in ("rollback", "snippet", "delete", "show"):
            assert await resolve_execution(rt, "last", purpose, own={mine}) == mine
            assert await resolve_execution(rt, "last", purpose) == theirs
    finally:
        await rt.aclose()


@pytest.mark.anyio
async def test_last_never_names_a_models_pause(tmp_path: Path) -> None:
    """An execution started through the model-facing tool is marked so, and a person's 'last' for a
    decision does not name it even when it is the only one waiting; named by its id, it is decided."""
    from codemode_kernel import CodemodeRuntime
    from codemode_kernel.errors import CodemodeError
    from codemode_kernel.executor.inprocess import InProcessExecutor
    from codemode_kernel.selection import resolve_execution

    runs: list[str] = []

    def add(title: str) -> str:
        """Add."""
        runs.append(title)
        return title

    rt = CodemodeRuntime([ToolSetConnector([add], name="tasks", requires_approval={"add"})],
                         store=f"sqlite:///{tmp_path / 'j.db'}", executor=InProcessExecutor())
    try:
        paused = await rt.tool()("tasks.add(title='from the model')")
        eid = paused["execution_id"]
        state = await rt.execution(eid)
        assert state is not None and state.via_tool and state.to_dict()["via_tool"] is True
        with pytest.raises(CodemodeError) as refused:
            await resolve_execution(rt, "last", "approve")
        assert eid in str(refused.value) and "started by a model" in str(refused.value)
        assert runs == []
        assert (await rt.approve(eid, seq=0))["status"] == "completed" and runs == ["from the model"]
        mine = (await rt.execute("tasks.add(title='mine')"))["execution_id"]
        assert not (await rt.execution(mine)).via_tool  # type: ignore[union-attr]
        assert await resolve_execution(rt, "last", "approve") == mine
    finally:
        await rt.aclose()
