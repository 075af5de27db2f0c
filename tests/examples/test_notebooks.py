"""The teaching notebooks run top to bottom with the Code Mode kernel and teach what they say.

Each notebook runs headless with nbclient in a fresh copy of ``examples/notebooks`` (fresh
notes store, fresh journals), approving with ``%approve last`` as its cells do, and each test
checks the outputs the notebook's prose points at. No cell fails: a lesson about an error
catches it and prints it (pipelines such as papermill stop at any failed cell, whatever its
tags), so a failing cell fails the test. ``test_notebook_runners.py`` runs them with
papermill and nbconvert too.
"""

from __future__ import annotations

import re
import socket
import time
from pathlib import Path

import nbformat
import pytest

from tests.examples.notebook_run import (
    errors,
    journal_rows,
    make_workspace,
    notebook_names,
    processes_in,
    result,
    run_notebook,
    text,
)

pytestmark = pytest.mark.timeout(240)

EXPECTED_NOTEBOOKS = ["01_tour", "02_approvals_and_replay", "03_rollback", "04_snippets", "05_mcp", "06_openapi",
                      "07_agent_loop"]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_workspace(tmp_path)


def run(workspace: Path, name: str) -> nbformat.NotebookNode:
    nb = run_notebook(workspace, name)
    assert errors(nb) == [], "a teaching notebook runs without a failed cell"
    # Stopped on exit: the kernel's MCP servers (and notebook 06's demo API) go with it.
    deadline = time.monotonic() + 10
    while processes_in(workspace) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_in(workspace) == []
    # The journal lives in .codemode/ beside the notebook, named after it.
    assert (workspace / ".codemode" / f"{name}.codemode.db").is_file()
    return nb


def test_every_notebook_is_listed_and_committed_clean() -> None:
    """The notebooks are the seven of the issue, saved without outputs, for the codemode kernel."""
    assert notebook_names() == EXPECTED_NOTEBOOKS
    for name in EXPECTED_NOTEBOOKS:
        nb = nbformat.read(Path(__file__).resolve().parents[2] / "examples" / "notebooks" / f"{name}.ipynb",
                           as_version=4)
        nbformat.validate(nb)
        assert nb.metadata["kernelspec"]["name"] == "codemode"
        assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
        for c in nb.cells:
            if c.cell_type == "code":
                assert c.outputs == [] and c.execution_count is None, f"{name}: cell {c.id} was saved with output"
                # papermill ignores this tag and fails the run: an error lesson catches its error instead.
                assert "raises-exception" not in c.metadata.get("tags", []), f"{name}: cell {c.id}"


def test_01_tour(workspace: Path) -> None:
    nb = run(workspace, "01_tour")
    listing = text(nb, "tour-connectors")
    for connector, kind in [("notes", "python"), ("team", "python"), ("memo", "mcp"), ("clock", "mcp"),
                            ("petstore", "openapi")]:
        assert re.search(rf"^{connector}\s+{kind}\s", listing, re.M), listing
    assert "Problems" not in listing
    assert result(nb, "tour-search")[0]["path"] == "notes.find_notes"
    assert "def find_notes(*, text: str)" in text(nb, "tour-describe")
    assert result(nb, "tour-first-program") == {"Ada Lovelace": ["Release checklist"],
                                                "Grace Hopper": ["Flaky test in CI"]}
    assert "ada: 1 note(s)\ngrace: 1 note(s)\n" in text(nb, "tour-first-program")
    assert result(nb, "tour-carried") == ["Ada Lovelace", "Grace Hopper"]
    assert text(nb, "tour-refused").startswith("ImportError: module 'os' is not available in Code Mode.")
    assert "completed" in text(nb, "tour-executions")


def test_02_approvals_and_replay(workspace: Path) -> None:
    nb = run(workspace, "02_approvals_and_replay")
    paused = text(nb, "approve-program")
    assert "1 note(s) tagged ci" in paused and "Paused" in paused and "notes.add_note" in paused
    assert "created note" not in paused  # the lines after the pending call did not run
    assert "notes.add_note" in text(nb, "approve-pending")
    approved = text(nb, "approve-approve")
    assert "created note 6" in approved and "tagged ci" not in approved  # first-pass output is not repeated
    assert result(nb, "approve-approve")["title"] == "Fix the flaky test"
    rows = journal_rows(nb, "approve-journal")
    assert [(r["call"], r["state"], r["pass"]) for r in rows] == [
        ("notes.list_notes", "applied", "1"), ("notes.add_note", "applied", "2")]
    # Exactly once, counted by the store itself: the program ran twice, each call reached it once.
    assert result(nb, "approve-activity") == ["list_notes tag='ci'", "add_note #6 'Fix the flaky test'"]
    diverged = text(nb, "diverge-approve")
    assert diverged.startswith("status: error\nReplayDivergence: Replay divergence at call #0")
    assert "codemode.step" in diverged
    assert result(nb, "step-approve")["title"].startswith("Standup ")
    rows = journal_rows(nb, "step-journal")
    assert [(r["call"], r["pass"]) for r in rows] == [("step 'stamp'", "1"), ("notes.add_note", "2")]
    assert "Rejected" in text(nb, "reject-reject")
    assert result(nb, "reject-still-there") == "Fix the flaky test"


def test_03_rollback(workspace: Path) -> None:
    nb = run(workspace, "03_rollback")
    assert "notes.add_note" in text(nb, "rollback-program")
    assert result(nb, "rollback-approve") == {"message_id": 1, "to": "team@example.org",
                                              "subject": "Release announcement"}
    assert [r["state"] for r in journal_rows(nb, "rollback-journal-before")] == ["applied"] * 5
    failed = text(nb, "rollback-rollback")
    assert failed.startswith("RollbackError:") and "notes.send_note" in failed and "cannot be recalled" in failed
    rows = journal_rows(nb, "rollback-journal-after")
    assert [(r["call"], r["state"]) for r in rows] == [
        ("notes.find_notes", "applied"), ("notes.tag_note", "reverted"), ("notes.add_note", "reverted"),
        ("notes.update_note", "reverted"), ("notes.send_note", "applied")]
    assert "rolled_back" in text(nb, "rollback-journal-after")
    assert result(nb, "rollback-activity") == [
        "find_notes 'release'", "tag_note #1 +urgent", "add_note #6 'Release announcement'", "update_note #1",
        "send_note #6 to team@example.org", "revert send_note FAILED: a sent message cannot be recalled",
        "revert update_note #1 text restored", "revert add_note #6 deleted again",
        "revert tag_note #1 tags restored"]
    assert [m["to"] for m in result(nb, "rollback-outbox")] == ["team@example.org"]
    restored = result(nb, "rollback-restored")
    assert restored["body"] == "Tag the release, publish the wheel, announce it."
    assert restored["tags"] == ["release", "ada"]


def test_04_snippets(workspace: Path) -> None:
    nb = run(workspace, "04_snippets")
    assert result(nb, "snippet-program") == {"tag": "ci", "count": 1, "titles": ["Flaky test in CI"]}
    assert "Saved snippet 'tag_report'" in text(nb, "snippet-save")
    found = result(nb, "snippet-search")
    assert (found["path"], found["kind"]) == ("tag_report", "snippet")
    assert 'tag = input["tag"]' in text(nb, "snippet-describe")
    assert result(nb, "snippet-run") == {"release": 1, "docs": 1, "idea": 1}
    assert [r["call"] for r in journal_rows(nb, "snippet-journal")] == ["notes.list_notes"] * 3
    assert "tag_report" in text(nb, "snippet-list")


def test_05_mcp(workspace: Path) -> None:
    nb = run(workspace, "05_mcp")
    assert result(nb, "mcp-search") == "clock.get_current_time"
    assert result(nb, "mcp-clock")["timezone"] == "Europe/Paris"
    combined = result(nb, "mcp-combine")
    assert combined["note"]["tags"] == ["ops"] and combined["words"] == 3
    assert "requires approval" in text(nb, "mcp-describe")
    assert "memo.delete_note" in text(nb, "mcp-delete") and "Paused" in text(nb, "mcp-delete")
    done = result(nb, "mcp-approve")
    assert done.startswith("deleted 1 ops note(s) at ")
    rows = journal_rows(nb, "mcp-journal")
    assert [(r["call"], r["pass"]) for r in rows] == [
        ("clock.get_current_time", "1"), ("memo.list_notes", "1"), ("memo.delete_note", "2")]
    # The time in the message is the one recorded in pass 1, replayed in pass 2.
    assert done.removeprefix("deleted 1 ops note(s) at ") in text(nb, "mcp-journal")
    caught = text(nb, "mcp-error")
    assert caught.startswith("caught:") and "no note with id 9999" in caught


def _port_is_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def test_06_openapi(workspace: Path) -> None:
    if not _port_is_free(8765):
        pytest.fail("port 8765 is in use (a running `make demo`?): notebook 06 starts its own demo API there")
    nb = run(workspace, "06_openapi")
    assert result(nb, "openapi-service").startswith("Started the demo API at http://127.0.0.1:8765")
    assert "petstore.deletePet needs approval" in text(nb, "openapi-discover")
    assert "def createPet(" in text(nb, "openapi-discover")
    assert "authorization" not in text(nb, "openapi-discover").lower()
    assert text(nb, "openapi-host-env") == ("the kernel has CODEMODE_DEMO_TOKEN: True\n"
                                            "GET /pets without the token: 401\n")
    assert result(nb, "openapi-health") == {"status": "ok"}
    assert text(nb, "openapi-no-os").startswith("ImportError: module 'os' is not available")
    assert "petstore.createPet" in text(nb, "openapi-create") and "Paused" in text(nb, "openapi-create")
    pet = result(nb, "openapi-approve")
    assert (pet["name"], pet["species"]) == ("Rex", "dog")
    assert "Rolled back 1 action(s): petstore.createPet (call #0)." in text(nb, "openapi-rollback")
    assert result(nb, "openapi-search-pets") == []
    assert _port_is_free(8765), "the demo API the notebook started outlived its kernel"


def test_07_agent_loop(workspace: Path) -> None:
    nb = run(workspace, "07_agent_loop")
    description = text(nb, "agent-tool")
    assert "- notes:" in description and "- memo:" in description
    assert "list_notes" not in description  # connectors only, never methods
    ran = text(nb, "agent-run")
    assert "approval asked for notes.add_note: approved" in ran
    assert result(nb, "agent-run") == "Filed note #6 summing up 1 release note(s)."
    assert re.search(r"completed\s+\S+ \S+\s+2\s+2\s+titles = ", text(nb, "agent-executions"))
