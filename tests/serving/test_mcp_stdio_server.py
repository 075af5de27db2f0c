"""`codemode mcp` over stdio, launched by absolute path as agent hosts do, with the SDK's client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from codemode_kernel.config import default_store_url
from tests.serving.serving_support import ADD_ONE, ADD_TWO, Person, applied, codemode, make_project, stdio_params

pytestmark = pytest.mark.anyio


def journal_file(notebook: Path | None, folder: Path | None = None) -> Path:
    """The SQLite journal the kernel uses for ``notebook`` (or for a folder with no notebook named)."""
    url = default_store_url(notebook, folder or (notebook.parent if notebook else Path.cwd()))
    return Path(url.removeprefix("sqlite:///"))


@pytest.fixture
def notebook(tmp_path: Path) -> Path:
    return make_project(tmp_path)


async def test_launched_by_path_finds_its_commands_and_names_the_missing(notebook: Path) -> None:
    """A connector command beside the interpreter is found without PATH; one found nowhere is listed unavailable."""
    async with Client(stdio_params(notebook)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert sorted(tools) == ["codemode", "codemode_status"]
        described = tools["codemode"].description or ""
        ghost = next(line for line in described.splitlines() if line.startswith("- ghost"))
        assert "UNAVAILABLE" in ghost and "'no-such-mcp-server-h15' is not installed" in ghost
        clock = next(line for line in described.splitlines() if line.startswith("- clock"))
        assert "UNAVAILABLE" not in clock
        out = await client.call_tool("codemode", {"code": "clock.get_current_time(timezone='UTC')['timezone']"})
    assert out.structured_content == {"status": "completed", "execution_id": out.structured_content["execution_id"],
                                      "result": "UTC"}
    assert out.is_error is False


async def test_error_outcomes_are_tool_errors(notebook: Path) -> None:
    """A program that fails comes back with isError true; a completed one with isError false."""
    async with Client(stdio_params(notebook)) as client:
        failed = await client.call_tool("codemode", {"code": "1 / 0"})
        done = await client.call_tool("codemode", {"code": "tasks.list_tasks()"})
    assert failed.is_error is True and failed.structured_content is not None
    assert failed.structured_content["status"] == "error" and "ZeroDivisionError" in failed.structured_content["error"]
    assert done.is_error is False and done.structured_content is not None
    assert done.structured_content["result"] == []


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_person_accepts_through_the_client(notebook: Path, mode: str) -> None:
    """Each pause asks the person through the client; accepting runs each call exactly once."""
    person = Person()
    async with Client(stdio_params(notebook), elicitation_callback=person, mode=mode) as client:  # type: ignore[arg-type]
        out = await client.call_tool("codemode", {"code": ADD_TWO})
    assert out.structured_content is not None and out.is_error is False
    assert out.structured_content["status"] == "completed"
    assert out.structured_content["result"] == ["one", "two"]
    assert applied(notebook.parent) == ["one", "two"]
    assert len(person.asked) == 2
    assert '"tasks.add_task" (call #0' in person.asked[0] and '{"title": "one"}' in person.asked[0]
    assert '"tasks.add_task" (call #1' in person.asked[1]


async def test_a_person_declines_through_the_client(notebook: Path) -> None:
    """Declining rejects the action: nothing is applied, and the outcome is an error the status tool repeats."""
    person = Person(action="decline")
    async with Client(stdio_params(notebook), elicitation_callback=person) as client:
        out = await client.call_tool("codemode", {"code": ADD_ONE})
        assert out.structured_content is not None
        eid = out.structured_content["execution_id"]
        status = await client.call_tool("codemode_status", {"execution_id": eid})
    assert out.is_error is True and out.structured_content["status"] == "rejected"
    assert status.structured_content is not None and status.structured_content["status"] == "rejected"
    assert applied(notebook.parent) == [] and len(person.asked) == 1


async def test_without_elicitation_a_person_approves_in_the_notebooks_journal(notebook: Path) -> None:
    """No elicitation: paused with the person's next step; `codemode --notebook` approves it; the model follows it."""
    folder = notebook.parent
    async with Client(stdio_params(notebook)) as client:
        out = await client.call_tool("codemode", {"code": ADD_ONE})
        assert out.structured_content is not None and out.is_error is False
        assert out.structured_content["status"] == "paused"
        eid = out.structured_content["execution_id"]
        step = out.structured_content["next_step"]
        assert "A person must approve" in step and "you cannot" in step
        assert f"codemode --notebook {notebook} approve ID" in step and "codemode_status" in step
        assert journal_file(notebook).exists() and not journal_file(None, folder).exists()
        paused = await client.call_tool("codemode_status", {"execution_id": eid})
        assert paused.structured_content is not None and paused.structured_content["status"] == "paused"
        assert applied(folder) == []

        approved = codemode("--notebook", str(notebook), "approve", eid, cwd=folder, answers="y\n")
        assert approved.returncode == 0, approved.stderr
        assert "tasks.add_task" in approved.stdout  # a model's call is shown before the person answers
        done = await client.call_tool("codemode_status", {"execution_id": eid, "wait_seconds": 30})
        assert done.structured_content == {"status": "completed", "execution_id": eid, "result": "one"}
        assert applied(folder) == ["one"]

        (folder / "theirs.py").write_text("tasks.list_tasks()\n")
        other = codemode("--notebook", str(notebook), "--json", "run", "theirs.py", cwd=folder)
        assert other.returncode == 0, other.stderr
        not_mine = json.loads(other.stdout)["execution_id"]
        refused = await client.call_tool("codemode_status", {"execution_id": not_mine})
    assert refused.is_error is True and refused.structured_content is not None
    assert refused.structured_content["status"] == "unknown" and "result" not in refused.structured_content
