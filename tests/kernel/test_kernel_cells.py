"""Cells in a real Code Mode kernel: streaming, rich results, errors, carried names, history.

A kernel process is started once for this module and driven over ZMQ with jupyter_client.
"""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

from tests.kernel.kernel_harness import Kernel, calls


def test_printed_output_streams_into_the_cell_while_it_runs(shared_kernel: Kernel, shared_dir: Path) -> None:
    """Output printed before a slow part reaches the cell while the slow part still runs: the cell
    waits for a note that the test writes only once it has seen the first line (no clock involved;
    without streaming the first line would arrive only when the cell ends, after its 60 s wait)."""
    go = f"go-{uuid.uuid4().hex}"
    code = (f"print('first')\nt = time.time()\nseen = False\n"
            f"while not seen and time.time() - t < 60:\n"
            f"    seen = any(n['text'] == {go!r} for n in notes.list_notes())\n"
            f"    time.sleep(0.05)\n"
            f"print('second' if seen else 'gave up')\n")
    msg_id = shared_kernel.kc.execute(code)
    texts: list[str] = []
    released = False
    while True:
        msg = shared_kernel._iopub(90)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream":
            texts.append(msg["content"]["text"])
            if texts == ["first\n"] and not released:
                with sqlite3.connect(shared_dir / "calls.sqlite") as c:
                    c.execute("create table if not exists notes(id integer primary key, text text)")
                    c.execute("insert into notes(text) values (?)", (go,))
                released = True
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    assert released and texts == ["first\n", "second\n"]


def test_a_list_of_flat_dicts_is_shown_as_a_table_with_plain_text(shared_kernel: Kernel) -> None:
    run = shared_kernel.ok("[{'name': 'a', 'n': 1}, {'name': '<b>', 'n': 2}]")
    data = run.result
    assert data is not None
    assert "<table" in data["text/html"] and "&lt;b&gt;" in data["text/html"]
    assert data["text/plain"] == "[{'name': 'a', 'n': 1}, {'name': '<b>', 'n': 2}]"
    assert "application/json" not in data  # JupyterLab would prefer it and hide the table


def test_dicts_are_shown_as_trees_small_ones_and_scalars_as_text(shared_kernel: Kernel) -> None:
    data = shared_kernel.ok("{'a': [1, 2], 'b': {'c': None}, 'text': 'x' * 80}").result
    assert data is not None and "application/json" not in data  # JupyterLab would show it collapsed
    assert "<details open>" in data["text/html"] and "'b': {'c': None}" in data["text/plain"]
    small = "{'a': [1, 2], 'b': {'c': None}}"
    assert shared_kernel.ok(small).result == {"text/plain": small}
    assert shared_kernel.ok("'text'").result == {"text/plain": "'text'"}
    assert shared_kernel.ok("x_unused = 1").result is None


def test_the_execute_result_carries_the_cell_number(shared_kernel: Kernel) -> None:
    first = shared_kernel.ok("1 + 1")
    second = shared_kernel.ok("2 + 2")
    n1 = first.reply["content"]["execution_count"]
    assert second.reply["content"]["execution_count"] == n1 + 1
    assert first.of("execute_result")[0]["execution_count"] == n1


def test_an_error_is_a_jupyter_error_with_the_cell_line(shared_kernel: Kernel) -> None:
    run = shared_kernel.execute("a = 1\nb = 2\nc = a / 0\nd = 4\n")
    assert run.status == "error"
    err = run.error
    assert err is not None and err["ename"] == "ZeroDivisionError" and err["evalue"] == "division by zero"
    text = "\n".join(err["traceback"])
    assert "line 3" in text and "----> 3" in text and "c = a / 0" in text
    assert run.reply["content"]["ename"] == "ZeroDivisionError"


def test_sandbox_violations_and_syntax_errors_have_their_own_names(shared_kernel: Kernel) -> None:
    violation = shared_kernel.execute("x = 1\ny = x.__class__\n")
    assert violation.error is not None and violation.error["ename"] == "SandboxViolation"
    assert "line 2" in "\n".join(violation.error["traceback"])
    syntax = shared_kernel.execute("x = (1,\n")
    assert syntax.error is not None and syntax.error["ename"] == "SyntaxError"
    assert "was never closed" in syntax.error["evalue"]


def test_a_connector_error_is_named_and_points_at_the_call(shared_kernel: Kernel) -> None:
    run = shared_kernel.execute("n = 1\nnotes.fail(message='the disk is full')\n")
    assert run.error is not None and run.error["ename"] == "ConnectorError"
    assert "the disk is full" in run.error["evalue"]
    assert "----> 2" in "\n".join(run.error["traceback"])


def test_an_undefined_name_lists_the_globals(shared_kernel: Kernel) -> None:
    run = shared_kernel.execute("githubb.list()")
    assert run.error is not None and run.error["ename"] == "NameError"
    assert "notes" in run.error["evalue"] and "codemode" in run.error["evalue"]


def test_names_assigned_by_a_cell_are_visible_in_later_cells(shared_kernel: Kernel) -> None:
    shared_kernel.ok("total = 40\nlabels = ('a', 'b')\nunseen = {1, 2}\n")
    assert shared_kernel.ok("total + 2").result == {"text/plain": "42"}
    assert shared_kernel.ok("labels").result == {"text/plain": "('a', 'b')"}
    missing = shared_kernel.execute("unseen")
    assert missing.error is not None and missing.error["ename"] == "NameError"


def test_a_failed_cell_does_not_change_carried_names(shared_kernel: Kernel) -> None:
    shared_kernel.ok("kept = 1")
    shared_kernel.execute("kept = 2\n1 / 0")
    assert shared_kernel.ok("kept").result == {"text/plain": "1"}


def test_a_cell_that_deletes_a_name_removes_it(shared_kernel: Kernel) -> None:
    shared_kernel.ok("gone = 1")
    shared_kernel.ok("del gone")
    assert shared_kernel.execute("gone").error is not None


def test_a_completed_cell_without_connector_calls_shows_no_buttons(shared_kernel: Kernel) -> None:
    run = shared_kernel.ok("sum(range(10))")
    assert run.card is None
    assert not [m for m in run.messages if m["msg_type"] == "comm_open"]


def test_history_is_recorded(shared_kernel: Kernel) -> None:
    shared_kernel.ok("history_marker = 'h1'")
    reply = shared_kernel.kc.history(hist_access_type="tail", n=5, raw=True, output=False, reply=True)
    sources = [entry[2] for entry in reply["content"]["history"]]
    assert "history_marker = 'h1'" in sources


def test_is_complete_answers_for_the_console(shared_kernel: Kernel) -> None:
    def status(code: str) -> str:
        return str(shared_kernel.shell_reply(shared_kernel.kc.is_complete(code))["content"]["status"])

    assert status("x = 1") == "complete"
    assert status("for i in range(3):") == "incomplete"
    assert status("x = (1,") == "incomplete"


def test_the_store_is_a_sqlite_file_named_after_the_notebook(shared_kernel: Kernel, shared_dir: Path) -> None:
    shared_kernel.ok("1")
    assert (shared_dir / ".codemode" / "analysis.codemode.db").is_file()
    run = shared_kernel.ok("%store")
    assert f"sqlite:///{shared_dir / '.codemode' / 'analysis.codemode.db'}" in run.stdout


def test_list_calls_are_journaled_once_per_cell(shared_kernel: Kernel, shared_dir: Path) -> None:
    before = calls(shared_dir, "list_notes")
    shared_kernel.ok("notes.list_notes()\nnotes.list_notes()")
    assert calls(shared_dir, "list_notes") == before + 2
