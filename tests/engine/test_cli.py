"""The codemode command: the same runtime and configuration as the kernel, from a terminal."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel.cli import main

CONNECTOR_MODULE = '''
from codemode_kernel import ToolSetConnector

CREATED = []

def list_tasks() -> list:
    """List tasks."""
    return list(CREATED)

def add_task(title: str) -> dict:
    """Add a task."""
    CREATED.append(title)
    return {"id": len(CREATED), "title": title}

def tasks():
    return ToolSetConnector([list_tasks, add_task], name="tasks", requires_approval={"add_task"})
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "cli_tasks.py").write_text(CONNECTOR_MODULE)
    (tmp_path / "codemode.toml").write_text('[connectors.tasks]\npython = "cli_tasks:tasks"\n'
                                            '[executor]\nkind = "inprocess"\n')
    (tmp_path / "prog.py").write_text(
        "before = len(tasks.list_tasks())\nt = tasks.add_task(title='x')\n[before, t['id']]\n")
    return tmp_path


def test_run_asks_and_resumes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`codemode run` pauses at an approval, asks, and resumes by replay in the same run."""
    asked: list[str] = []
    rc = main(["--dir", str(project), "run", str(project / "prog.py")], ask=lambda q: asked.append(q) or "y")
    out = capsys.readouterr().out
    assert rc == 0
    assert asked == ["Approve tasks.add_task? [y/N] "]
    assert "[paused]" in out and "[completed]" in out and "[\n  0,\n  1\n]" in out
    assert (project / ".codemode" / f"{project.name}.codemode.db").exists()


def test_commands_over_the_store(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """run --approve no leaves it paused; approve last, show last and rollback last act on it."""
    assert main(["--dir", str(project), "run", "--approve", "no", str(project / "prog.py")]) == 0
    capsys.readouterr()
    assert main(["--dir", str(project), "--json", "pending"]) == 0
    pending = json.loads(capsys.readouterr().out)
    assert [(p["connector"], p["method"], p["args"]) for p in pending] == [("tasks", "add_task", {"title": "x"})]
    assert main(["--dir", str(project), "approve", "last"]) == 0
    approved = capsys.readouterr().out
    assert "approving call #1 tasks.add_task" in approved and "[completed]" in approved
    assert main(["--dir", str(project), "show", "last"]) == 0
    shown = capsys.readouterr().out
    assert "#0   applied   pass 1  tasks.list_tasks({})" in shown
    assert "#1   applied   pass 2  tasks.add_task" in shown
    assert main(["--dir", str(project), "approve", "last"]) == 1
    assert "There is no paused execution to approve" in capsys.readouterr().err
    assert main(["--dir", str(project), "approve", pending[0]["execution_id"]]) == 1
    assert "needs an execution that is 'paused'" in capsys.readouterr().out
    assert main(["--dir", str(project), "rollback", "nope"]) == 1
    assert "No execution 'nope'" in capsys.readouterr().err


def test_demo_walks_through_approval_replay_and_rollback(capsys: pytest.CaptureFixture[str]) -> None:
    """The terminal demo pauses, resumes on 'y', prints the journal and rolls back on 'y'."""
    assert main(["demo"], ask=lambda q: "y") == 0
    out = capsys.readouterr().out
    assert "waiting for approval: #2 notes.add_note" in out
    assert "codemode.step('stamp')" in out
    assert "Rolled back: status rolled_back, notes now 0." in out


def test_console_script_is_installed() -> None:
    """The `codemode` command is on the virtualenv's PATH."""
    exe = Path(sys.executable).with_name("codemode")
    out = subprocess.run([str(exe), "--help"], capture_output=True, text=True, check=True)
    assert "codemode run FILE [--approve ask|yes|no]" in out.stdout


@pytest.mark.anyio
async def test_mcp_server_in_process() -> None:
    """The runtime served over MCP: the `codemode` tool, whose results are the output dicts, and `codemode_status`."""
    from mcp import Client

    from codemode_kernel import CodemodeRuntime, InProcessExecutor
    from codemode_kernel.serve import build_mcp_server
    from tests.support import Shop

    shop = Shop()
    async with CodemodeRuntime([shop], store="sqlite://", executor=InProcessExecutor()) as rt:
        async with Client(build_mcp_server(rt)) as client:
            tools = (await client.list_tools()).tools
            assert [t.name for t in tools] == ["codemode", "codemode_status"]
            assert "shop" in (tools[0].description or "")
            done = await client.call_tool("codemode", {"code": "[i['title'] for i in shop.list_items()]"})
            assert done.structured_content is not None
            assert done.structured_content["status"] == "completed"
            assert done.structured_content["result"] == ["first"]
            paused = await client.call_tool("codemode", {"code": "shop.create_item(title='x')"})
            assert paused.structured_content is not None and paused.structured_content["status"] == "paused"
        assert shop.calls["create_item"] == 0
        out = await rt.approve(paused.structured_content["execution_id"])
        assert out["status"] == "completed" and shop.calls["create_item"] == 1


def test_mcp_command_serves_over_stdio(tmp_path: Path) -> None:
    """`codemode mcp` speaks MCP on stdio with the directory's configured connectors."""
    import anyio
    from mcp import Client, StdioServerParameters

    (tmp_path / "cli_tasks.py").write_text(CONNECTOR_MODULE)
    (tmp_path / "codemode.toml").write_text('[connectors.tasks]\npython = "cli_tasks:tasks"\n')
    exe = str(Path(sys.executable).with_name("codemode"))

    async def talk() -> Any:
        params = StdioServerParameters(command=exe, args=["--dir", str(tmp_path), "mcp"], cwd=str(tmp_path))
        async with Client(params) as client:
            return (await client.call_tool("codemode", {"code": "tasks.list_tasks()"})).structured_content

    out = anyio.run(talk)
    assert out["status"] == "completed" and out["result"] == []


def test_mcp_help_says_where_the_journal_is() -> None:
    """`codemode mcp --help` documents the journal's default, --notebook, --store and HTTP."""
    exe = Path(sys.executable).with_name("codemode")
    out = subprocess.run([str(exe), "mcp", "--help"], capture_output=True, text=True, check=True).stdout
    assert "<folder>.codemode.db" in out and "--notebook X.ipynb" in out and "--store URL" in out
    assert "--http HOST:PORT" in out and "CODEMODE_MCP_TOKEN" in out


def test_notebook_and_dir_together_are_refused(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--notebook names the configuration folder too, so --dir beside it is a usage error."""
    with pytest.raises(SystemExit) as exited:
        main(["--dir", str(project), "--notebook", str(project / "a.ipynb"), "executions"])
    assert exited.value.code == 2
    assert "Give --notebook or --dir, not both" in capsys.readouterr().err


def test_notebook_names_the_journal_the_kernel_uses(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`codemode --notebook X.ipynb` works on X's journal, not the folder's."""
    from codemode_kernel.config import default_store_url

    notebook = project / "analysis.ipynb"
    notebook.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}', encoding="utf-8")
    assert main(["--notebook", str(notebook), "run", "--approve", "no", str(project / "prog.py")]) == 0
    capsys.readouterr()
    assert Path(default_store_url(notebook, project).removeprefix("sqlite:///")).exists()
    assert not Path(default_store_url(None, project).removeprefix("sqlite:///")).exists()
    assert main(["--notebook", str(notebook), "--json", "pending"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["method"] == "add_task"


def test_mcp_next_step_never_shows_the_store_url() -> None:
    """The approve hint given to models names the command, not a store URL (it may hold a password)."""
    from codemode_kernel.cli import _approve_hint, _parse

    args, _, _ = _parse(["--store", "postgresql://codemode:s3cret-pw@db.internal/journal", "mcp"])
    hint = _approve_hint(args)
    assert "codemode --store <the same URL> approve ID" in hint
    assert "s3cret" not in hint and "db.internal" not in hint
