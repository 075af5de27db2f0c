"""Rollback and approve stay on the backend an execution used (review 13, M4; lead, session 14).

An execution records a fingerprint of each connector's target. Another runtime over the same
journal rolls back or approves only if its connector of that name has the same target: the same
configuration (read again after a restart), the same ``target=``, or the very same object. The
refusal changes nothing and says what to do.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, OpenApiConnector, ToolSetConnector
from codemode_kernel.config import load_config
from codemode_kernel.errors import ConfigurationError
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio


class Notes:
    """One backend: its notes by id, and how many times each function ran."""

    def __init__(self) -> None:
        self.notes: dict[int, str] = {}
        self.runs = {"add_note": 0, "undo": 0}

    def connector(self, *, target: str | None = None, approval: bool = False) -> ToolSetConnector:
        def add_note(text: str) -> dict[str, Any]:
            """Add a note."""
            self.runs["add_note"] += 1
            note_id = len(self.notes) + 1
            self.notes[note_id] = text
            return {"id": note_id}

        def undo(args: dict[str, Any], result: Any, ctx: Any) -> None:
            self.runs["undo"] += 1
            self.notes.pop(result["id"], None)

        return ToolSetConnector([add_note], name="notes", reverts={"add_note": undo}, target=target,
                                requires_approval={"add_note"} if approval else ())


async def test_the_same_target_in_code_rolls_back_from_another_runtime(make_runtime: RuntimeFactory) -> None:
    backend = Notes()
    first = make_runtime([backend.connector(target="notes of this test")])
    out = await first.execute("notes.add_note(text='draft')['id']")
    assert out["status"] == "completed" and backend.notes == {1: "draft"}, out
    other = make_runtime([backend.connector(target="notes of this test")])  # another object, one target
    await other.rollback(out["execution_id"])
    assert backend.notes == {} and backend.runs["undo"] == 1
    assert (await other.execution(out["execution_id"])).status == "rolled_back"  # type: ignore[union-attr]


async def test_the_same_object_rolls_back_from_another_runtime(make_runtime: RuntimeFactory) -> None:
    backend = Notes()
    connector = backend.connector()  # no target: this very object
    out = await make_runtime([connector]).execute("notes.add_note(text='draft')['id']")
    await make_runtime([connector]).rollback(out["execution_id"])
    assert backend.notes == {} and backend.runs["undo"] == 1


async def test_another_target_is_refused_and_nothing_is_reverted(make_runtime: RuntimeFactory) -> None:
    dev, prod = Notes(), Notes()
    prod.notes[1] = "the production note"
    out = await make_runtime([dev.connector(target="dev notes")]).execute("notes.add_note(text='draft')['id']")
    other = make_runtime([prod.connector(target="prod notes")])
    with pytest.raises(ConfigurationError) as refused:
        await other.rollback(out["execution_id"])
    text = str(refused.value)
    assert "'notes'" in text and "nothing was rolled back" in text and "another server, URL, command or options" in text
    assert prod.notes == {1: "the production note"} and prod.runs["undo"] == 0
    assert dev.notes == {1: "draft"} and dev.runs["undo"] == 0
    assert (await other.execution(out["execution_id"])).status == "completed"  # type: ignore[union-attr]


async def test_a_connector_made_in_code_without_a_target_says_to_name_one(make_runtime: RuntimeFactory) -> None:
    first, second = Notes(), Notes()
    out = await make_runtime([first.connector()]).execute("notes.add_note(text='draft')['id']")
    with pytest.raises(ConfigurationError, match=r"made in code without a target=.*target='notes database"):
        await make_runtime([second.connector()]).rollback(out["execution_id"])
    assert first.runs["undo"] == second.runs["undo"] == 0


async def test_approve_from_a_runtime_whose_connector_acts_elsewhere_runs_nothing(make_runtime: RuntimeFactory) -> None:
    dev, prod = Notes(), Notes()
    paused = await make_runtime([dev.connector(target="dev notes", approval=True)]).execute(
        "notes.add_note(text='draft')")
    assert paused["status"] == "paused", paused
    other = make_runtime([prod.connector(target="prod notes", approval=True)])
    out = await other.approve(paused["execution_id"], seq=0)
    assert out["refused"] is True and out["error_type"] == "ConfigurationError", out
    assert "nothing was approved" in out["error"]
    assert prod.runs["add_note"] == 0 and dev.runs["add_note"] == 0
    assert (await other.execution(paused["execution_id"])).status == "paused"  # type: ignore[union-attr]
    done = await make_runtime([dev.connector(target="dev notes", approval=True)]).approve(
        paused["execution_id"], seq=0)
    assert done["status"] == "completed" and dev.notes == {1: "draft"} and dev.runs["add_note"] == 1, done


def _folder(root: Path, notes_file: str) -> Path:
    """A folder whose codemode.toml builds ``notes`` from a factory keeping notes in ``notes_file``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "lead14_file_notes.py").write_text(textwrap.dedent('''
        import json
        from pathlib import Path
        from codemode_kernel import ToolSetConnector

        def make(path):
            file = Path(__file__).parent / path

            def load():
                return json.loads(file.read_text()) if file.exists() else []

            def add_note(text: str) -> dict:
                """Add a note."""
                notes = load() + [text]
                file.write_text(json.dumps(notes))
                return {"id": len(notes)}

            def undo(args, result, ctx):
                notes = load()
                notes[result["id"] - 1] = None
                file.write_text(json.dumps(notes))

            return ToolSetConnector([add_note], name="notes", reverts={"add_note": undo})
        '''), encoding="utf-8")
    (root / "codemode.toml").write_text(textwrap.dedent(f'''
        [connectors.notes]
        python = "lead14_file_notes:make"
        options = {{ path = "{notes_file}" }}
        '''), encoding="utf-8")
    return root


async def test_a_configured_connector_rolls_back_after_a_restart_and_not_once_pointed_elsewhere(
        tmp_path: Path) -> None:
    folder = _folder(tmp_path / "project", "notes.json")
    store = f"sqlite:///{tmp_path / 'journal.db'}"

    def runtime() -> CodemodeRuntime:  # what a kernel (or `codemode` in a terminal) builds from the folder
        return CodemodeRuntime(load_config(folder).connectors, store=store, executor=InProcessExecutor())

    first = runtime()
    out = await first.execute("notes.add_note(text='draft')['id']")
    again = await first.execute("notes.add_note(text='kept')['id']")
    await first.aclose()
    assert json.loads((folder / "notes.json").read_text()) == ["draft", "kept"]

    restarted = runtime()  # the same configuration read again: the same target
    await restarted.rollback(out["execution_id"])
    await restarted.aclose()
    assert json.loads((folder / "notes.json").read_text()) == [None, "kept"]

    (folder / "other.json").write_text(json.dumps(["someone else's"]))
    _folder(folder, "other.json")  # the table now points the same name at another file
    moved = runtime()
    with pytest.raises(ConfigurationError, match="another server, URL, command or options"):
        await moved.rollback(again["execution_id"])
    await moved.aclose()
    assert json.loads((folder / "other.json").read_text()) == ["someone else's"]
    assert json.loads((folder / "notes.json").read_text()) == [None, "kept"]


def test_openapi_and_mcp_connectors_name_where_they_act(tmp_path: Path) -> None:
    from codemode_kernel import McpConnector

    doc = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {}}
    here = OpenApiConnector("shop", doc, base_url="http://127.0.0.1:8001")
    there = OpenApiConnector("shop", doc, base_url="http://127.0.0.1:8002")
    assert here.target != there.target and here.target == OpenApiConnector("shop", doc, base_url="http://127.0.0.1:8001").target
    one = McpConnector("files", command="python", args=["server.py", "--root", "a"], cwd=str(tmp_path))
    two = McpConnector("files", command="python", args=["server.py", "--root", "b"], cwd=str(tmp_path))
    assert one.target != two.target
    again = McpConnector("files", command="python", args=["server.py", "--root", "a"], cwd=str(tmp_path))
    assert one.target == again.target
    assert McpConnector("files", url="http://127.0.0.1:9/mcp").target != McpConnector("files", url="http://127.0.0.1:8/mcp").target


def test_a_blank_target_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="target must be a non-empty string"):
        Notes().connector(target="  ")
