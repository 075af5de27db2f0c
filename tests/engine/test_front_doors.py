"""One front door's rules are every front door's: the kernel's session, `codemode` and `codemode mcp`.

Each reads the same ``codemode.toml`` (store, ``[executor]`` limits, connector hints) through
:mod:`codemode_kernel.building`, and ``last`` means the same execution for the same purpose
(:mod:`codemode_kernel.selection`).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from codemode_kernel.kernel.output import NullSink
from codemode_kernel.kernel.session import NotebookSession
from codemode_kernel.selection import resolve_execution

EXE = str(Path(sys.executable).with_name("codemode"))

CONNECTOR_MODULE = '''
from codemode_kernel import ToolSetConnector

def list_tasks() -> list:
    """List tasks."""
    return []

def add_task(title: str) -> dict:
    """Add a task."""
    return {"title": title}

def tasks():
    return ToolSetConnector([list_tasks, add_task], name="tasks", requires_approval={"add_task"})
'''

HINT = "The team's task board (front-door test hint)."
LOOP = "while True:\n    pass\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder whose codemode.toml names a store, a 2 s time limit and a connector hint."""
    (tmp_path / "fd_tasks.py").write_text(CONNECTOR_MODULE)
    (tmp_path / "codemode.toml").write_text(
        '[store]\nurl = "sqlite:///configured.codemode.db"\n'
        "[executor]\ntimeout = 2\n"
        f'[connectors.tasks]\npython = "fd_tasks:tasks"\nhint = "{HINT}"\n')
    return tmp_path


def cli(project: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([EXE, "--dir", str(project), *args], input=stdin, capture_output=True, text=True,
                          timeout=120, cwd=project, env={"PATH": str(Path(sys.executable).parent)})


def session(project: Path) -> NotebookSession:
    s = NotebookSession(cwd=project, env={})
    s.load()
    return s


def test_the_cli_honours_the_executor_time_limit(project: Path) -> None:
    """It is an error if `codemode run` ignores [executor] timeout (it used to run 60 s)."""
    run = cli(project, "--json", "run", "-", stdin=LOOP)
    out = json.loads(run.stdout)
    assert out["status"] == "error" and out["error_type"] == "Timeout"
    assert "timeout=2" in out["error"]


def test_the_kernel_session_honours_the_executor_time_limit(project: Path) -> None:
    async def go() -> dict[str, Any]:
        s = session(project)
        try:
            return await s.runtime.execute(LOOP)
        finally:
            await s.aclose()

    out = asyncio.run(go())
    assert out["error_type"] == "Timeout" and "timeout=2" in out["error"]


def test_the_mcp_server_honours_hints_limits_and_store(project: Path) -> None:
    async def talk() -> tuple[str, dict[str, Any]]:
        params = StdioServerParameters(command=EXE, args=["--dir", str(project), "mcp"], cwd=str(project))
        async with Client(params) as client:
            tools = await client.list_tools()
            description = next(t.description for t in tools.tools if t.name == "codemode")
            out = (await client.call_tool("codemode", {"code": LOOP})).structured_content
            return description or "", out or {}

    description, out = anyio.run(talk)
    assert f"- tasks: {HINT}" in description
    assert out["status"] == "error" and "timeout=2" in out["error"]
    listed = json.loads(cli(project, "--json", "executions").stdout)
    assert [e["id"] for e in listed] == [out["execution_id"]], "the MCP server wrote to the configured store"


def test_every_front_door_uses_the_configured_store_and_hint(project: Path) -> None:
    assert cli(project, "run", "-", stdin="tasks.list_tasks()").returncode == 0
    assert (project / "configured.codemode.db").exists()
    assert not (project / f"{project.name}.codemode.db").exists()

    async def kernel_side() -> tuple[int, str]:
        s = session(project)
        try:
            return len(await s.runtime.executions()), s.runtime.tool().description
        finally:
            await s.aclose()

    seen, description = asyncio.run(kernel_side())
    assert seen == 1, "the kernel's session reads the execution the CLI wrote"
    assert f"- tasks: {HINT}" in description


def test_last_means_the_same_execution_in_the_kernel_and_the_cli(project: Path) -> None:
    """`last` is the newest paused execution for approve, though a newer one completed."""
    paused = json.loads(cli(project, "--json", "run", "--approve", "no", "-",
                            stdin="tasks.add_task(title='x')").stdout)
    done = json.loads(cli(project, "--json", "run", "-", stdin="tasks.list_tasks()").stdout)
    assert paused["status"] == "paused" and done["status"] == "completed"

    async def kernel_side() -> dict[str, str]:
        s = session(project)
        try:
            return {p: await s.resolve("last", p) for p in ("approve", "rollback", "show")}
        finally:
            await s.aclose()

    resolved = asyncio.run(kernel_side())
    assert resolved == {"approve": paused["execution_id"], "rollback": done["execution_id"],
                        "show": done["execution_id"]}
    shown = cli(project, "show", done["execution_id"][:10])
    assert shown.returncode == 0 and done["execution_id"] in shown.stdout, "id prefixes work in the CLI too"
    approved = json.loads(cli(project, "--json", "approve", "last").stdout)
    assert approved["execution_id"] == paused["execution_id"] and approved["status"] == "completed"


def test_resolving_last_with_nothing_to_approve_says_what_to_do(project: Path) -> None:
    async def go() -> str:
        s = session(project)
        try:
            await s.runtime.execute("1")
            with pytest.raises(Exception) as caught:
                await resolve_execution(s.runtime, "last", "approve")
            return str(caught.value)
        finally:
            await s.aclose()

    message = asyncio.run(go())
    assert "no paused execution to approve" in message and "codemode executions" in message


def test_a_null_sink_is_enough_to_run_a_cell_in_the_session(project: Path) -> None:
    async def go() -> str:
        s = session(project)
        try:
            outcome = await s.run_code("tasks.list_tasks()", NullSink())
            return outcome.status
        finally:
            await s.aclose()

    assert asyncio.run(go()) == "ok"


ROLLBACK_MODULE = '''
from codemode_kernel import ToolSetConnector

ITEMS = []

def add_item(title: str) -> dict:
    """Add an item."""
    ITEMS.append(title)
    return {"title": title}

def log_event(text: str) -> dict:
    """Log an event (it cannot be undone)."""
    return {"text": text}

def publish() -> str:
    """Publish everything (needs approval)."""
    return "published"

def forget(args, result, ctx):
    ITEMS.remove(args["title"])

def items():
    return ToolSetConnector([add_item, log_event, publish], name="items", requires_approval={"publish"},
                            reverts={"add_item": forget})
'''

#: A cell per case, and whether its execution can be rolled back afterwards.
ROLLBACK_CASES = {
    "an applied call with a revert": ("items.add_item(title='a')", True),
    "an applied call without a revert": ("items.log_event(text='x')", False),
    "only a step": ("codemode.step('one', lambda: 1)", False),
    "paused after a revertible call": ("items.add_item(title='b')\nitems.publish()", False),
    "already rolled back": ("items.add_item(title='c')", False),
}


def test_can_roll_back_agrees_between_card_panel_and_cli(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The card's Roll back button, the panel's can_rollback and `codemode show` say the same for each execution.

    It is an error if the panel offers a rollback for calls that have no revert (it used to count
    every applied call).
    """
    from codemode_kernel.cli import main
    from codemode_kernel.kernel.output import RecordingSink
    from codemode_kernel.kernel.panel import PanelChannel
    from tests.panel.conftest import FakeComm, FakeCommManager, Panel

    (tmp_path / "rb_items.py").write_text(ROLLBACK_MODULE)
    (tmp_path / "codemode.toml").write_text('[connectors.items]\npython = "rb_items:items"\n'
                                            '[executor]\nkind = "inprocess"\n')

    async def notebook_side() -> tuple[dict[str, str], dict[str, bool], dict[str, bool], dict[str, bool]]:
        s = session(tmp_path)
        try:
            ids = {}
            for case, (code, _) in ROLLBACK_CASES.items():
                outcome = await s.run_code(code, RecordingSink())
                assert outcome.execution_id is not None
                ids[case] = outcome.execution_id
            await s.rollback(ids["already rolled back"])
            card = {case: (r.card is not None and r.card.offers_rollback)
                    for case, r in ((c, s.records[eid]) for c, eid in ids.items())}
            manager = FakeCommManager()
            channel = PanelChannel(s)
            channel.register(manager)
            panel = Panel(channel, manager.open(PanelChannel.target_name, FakeComm()))
            rows = {e["id"]: e for e in (await panel.data("snapshot"))["executions"]}
            listed = {case: rows[eid]["can_rollback"] for case, eid in ids.items()}
            detail = {case: (await panel.data("get_execution", execution_id=eid))["can_rollback"]
                      for case, eid in ids.items()}
            assert listed == detail
            return ids, card, listed, detail
        finally:
            await s.aclose()

    ids, card, panel, _ = asyncio.run(notebook_side())
    terminal = {}
    for case, eid in ids.items():
        assert main(["--dir", str(tmp_path), "--json", "show", eid]) == 0
        terminal[case] = json.loads(capsys.readouterr().out)["can_rollback"]
    expected = {case: can for case, (_, can) in ROLLBACK_CASES.items()}
    assert card == expected
    assert panel == expected
    assert terminal == expected
