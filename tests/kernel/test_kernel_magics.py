"""Magics in a real kernel: the whole runtime API from cells, for headless notebooks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codemode_kernel.kernel.magics import MAGICS
from tests.kernel.kernel_harness import Kernel, Run, calls, notes


def shown(run: Run) -> str:
    """Everything the cell displayed, as plain text."""
    parts = [run.stdout, run.stderr]
    parts += [c["data"].get("text/plain", "") for c in run.of("display_data")]
    if run.result:
        parts.append(run.result.get("text/plain", ""))
    return "\n".join(parts)


def paused_id(run: Run) -> str:
    match = re.search(r"execution (\w{26})", shown(run))
    assert match, shown(run)
    return match.group(1)


def test_help_lists_every_magic(shared_kernel: Kernel) -> None:
    text = shown(shared_kernel.ok("%help"))
    for name in MAGICS:
        assert f"%{name}" in text
    assert "%%host" in text


def test_connectors_lists_methods_approval_and_the_configuration(shared_kernel: Kernel, shared_dir: Path) -> None:
    text = shown(shared_kernel.ok("%connectors"))
    assert "notes" in text and "add_note, fail, list_notes" in text
    assert "the analyst's notes" in text
    assert f"Configuration: {shared_dir / 'codemode.toml'}" in text


def test_search_and_describe(shared_kernel: Kernel) -> None:
    found = shown(shared_kernel.ok("%search add a note"))
    lines = found.splitlines()
    first_row = lines[next(i for i, line in enumerate(lines) if line.startswith("---")) + 1]
    assert first_row.startswith("notes.add_note"), "the best match comes first"
    described = shared_kernel.ok("%describe notes.add_note").of("display_data")[0]["data"]
    assert "def add_note(" in described["text/plain"] and "<pre" in described["text/html"]
    assert "text/markdown" not in described, "code is never Markdown (a program could close the fence)"
    help_cell = shared_kernel.ok("notes.add_note?")
    page = help_cell.reply["content"]["payload"]
    assert page[0]["source"] == "page" and page[0]["data"]["text/plain"] == described["text/plain"]
    assert shared_kernel.execute("nothing.here?").error is not None
    missing = shared_kernel.execute("%describe nothing.here")
    assert missing.status == "error" and missing.error is not None
    assert "describe a connector" in missing.error["evalue"]


def test_executions_journal_and_pending(shared_kernel: Kernel) -> None:
    shared_kernel.ok("notes.list_notes()")
    paused = shared_kernel.ok("notes.add_note(text='journal me')")
    eid = paused_id(paused)
    listing = shown(shared_kernel.ok("%executions 5"))
    assert eid in listing and "paused" in listing
    pending = shown(shared_kernel.ok("%pending"))
    assert eid in pending and '{"text": "journal me"}' in pending
    journal = shown(shared_kernel.ok(f"%journal {eid}"))
    assert f"Execution {eid}: paused" in journal
    assert "notes.add_note" in journal and "pending" in journal
    short = shown(shared_kernel.ok(f"%journal {eid[:10]}"))
    assert f"Execution {eid}" in short, "a unique id prefix is enough"
    shared_kernel.ok(f"%reject {eid}")


def test_reject_with_a_seq_and_then_rollback(shared_kernel: Kernel, shared_dir: Path) -> None:
    first = shared_kernel.ok("a = notes.add_note(text='r1')\nb = notes.add_note(text='r2')")
    eid = paused_id(first)
    shared_kernel.ok(f"%approve {eid}")
    wrong = shared_kernel.execute(f"%reject {eid} 0")
    assert wrong.status == "error" and wrong.error is not None and "not pending" in wrong.error["evalue"]
    rejected = shared_kernel.ok(f"%reject {eid} 1")
    assert "Roll back reverts them" in rejected.stdout
    assert "r1" in notes(shared_dir) and "r2" not in notes(shared_dir)
    rolled = shared_kernel.ok(f"%rollback {eid}")
    assert "Rolled back 1 action(s): notes.add_note (call #0)" in rolled.stdout
    assert "r1" not in notes(shared_dir)
    again = shared_kernel.ok(f"%rollback {eid}")
    assert "Nothing to roll back" in again.stdout
    assert shown(shared_kernel.ok(f"%journal {eid}")).count("reverted") == 1


def test_snippets_save_show_run_and_delete(shared_kernel: Kernel) -> None:
    shared_kernel.ok("total = 1 + 2 + 3\ntotal")
    saved = shared_kernel.ok("%snippet save six last Adds one two and three")
    assert "Saved snippet 'six'" in saved.stdout
    listing = shown(shared_kernel.ok("%snippets"))
    assert "six" in listing and "Adds one two and three" in listing
    assert "total = " in shown(shared_kernel.ok("%snippet show six"))
    assert shared_kernel.ok("codemode.run('six', None)").result == {"text/plain": "6"}
    assert "codemode.run('six'" in shown(shared_kernel.ok("%search six"))
    shared_kernel.ok("%snippet delete six")
    gone = shared_kernel.execute("%snippet delete six")
    assert gone.status == "error" and gone.error is not None and "No snippet named 'six'" in gone.error["evalue"]


def test_a_snippet_needs_a_completed_execution(shared_kernel: Kernel) -> None:
    paused = shared_kernel.ok("notes.add_note(text='not yet')")
    eid = paused_id(paused)
    refused = shared_kernel.execute(f"%snippet save early {eid}")
    assert refused.status == "error" and refused.error is not None
    assert refused.error["ename"] == "InvalidStateError"
    shared_kernel.ok(f"%reject {eid}")


def test_expire_rejects_old_paused_executions(shared_kernel: Kernel) -> None:
    eid = paused_id(shared_kernel.ok("notes.add_note(text='too late')"))
    out = shared_kernel.ok("%expire 0s")
    assert eid in out.stdout
    assert "rejected" in shown(shared_kernel.ok(f"%journal {eid}"))
    bad = shared_kernel.execute("%expire soon")
    assert bad.status == "error" and bad.error is not None and bad.error["ename"] == "UsageError"


def test_delete_and_prune(shared_kernel: Kernel) -> None:
    shared_kernel.ok("'to delete'")
    shared_kernel.ok("%delete last")
    pruned = shared_kernel.ok("%prune 1")
    assert "kept the newest 1" in pruned.stdout
    listing = shown(shared_kernel.ok("%executions"))
    finished = [line for line in listing.splitlines()
                if re.match(r"^\w{26}\s+(completed|error|rejected|rolled_back)\s", line)]
    assert len(finished) == 1


def test_store_vars_reset_and_tool(shared_kernel: Kernel, shared_dir: Path) -> None:
    shared_kernel.ok("carried_a = 1\ncarried_b = 'two'")
    assert "carried_a" in shown(shared_kernel.ok("%vars"))
    shared_kernel.ok("%reset carried_a")
    assert shared_kernel.execute("carried_a").status == "error"
    assert shared_kernel.ok("carried_b").result == {"text/plain": "'two'"}
    store = shown(shared_kernel.ok("%store"))
    assert "Runtime name: default" in store and "Executions:" in store
    tool = shown(shared_kernel.ok("%tool"))
    assert "- notes: the analyst's notes" in tool and "add_note" not in tool


@pytest.mark.parametrize("cell, message", [
    ("%nosuch", "Unknown magic %nosuch"),
    ("%approve", "Missing an execution id"),
    ("%executions many", "N must be a whole number"),
    ("%%python\n1", "Unknown cell magic"),
    ("x = 1\n%pending", "put magics in a cell of their own"),
])
def test_usage_errors_say_what_to_do(shared_kernel: Kernel, cell: str, message: str) -> None:
    run = shared_kernel.execute(cell)
    assert run.status == "error" and run.error is not None
    assert message in run.error["evalue"]


def test_several_magics_in_one_cell_run_in_order(shared_kernel: Kernel, shared_dir: Path) -> None:
    before = calls(shared_dir, "add_note")
    eid = paused_id(shared_kernel.ok("notes.add_note(text='two magics')"))
    run = shared_kernel.ok(f"%approve {eid}\n%journal {eid}")
    assert f"Execution {eid}: completed" in shown(run)
    assert calls(shared_dir, "add_note") == before + 1
