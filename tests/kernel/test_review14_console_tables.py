"""The kernel's tables reach a ``jupyter console`` terminal raw (review 14).

Review 13 (H4) made a program's printed text and error text inert on their way to a frontend
(``terminal.inert_output`` in ``CellSink.stream`` / ``CellSink.error``). The magics' tables
(``%journal``, ``%executions``, ``%search``, ``%snippets``, ``%connectors``) and code blocks
(``%journal``'s code, ``%describe``) go out as ``display_data`` whose ``text/plain`` is built by
``display.text_table`` / ``display.code_bundle`` from the strings as they are
(``display.cell_text`` returns a string unchanged), and ``CellSink.display`` sends the bundle
untouched. ``jupyter console`` writes a ``display_data``'s ``text/plain`` to the terminal.

So what a connector answered (an MCP server's or an HTTP service's text, a tool's error message),
what a model wrote into a program, or a connector's tool description scripts the terminal of the
person who runs ``%journal`` to read what a paused execution did before approving it: ``ESC[8m``
conceals the rest of the table (the paused call's row), OSC 0 sets the window title, OSC 52 writes
the clipboard.

The right outcome: no escape sequence (other than colours) from that text reaches the console's
terminal; the text shows with visible escapes, as the cell's own stream and error text do.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.kernel.kernel_harness import write_notebook_dir
from tests.kernel.test_kernel_console import console


def test_journal_table_does_not_carry_a_connectors_escapes_to_the_console(tmp_path: Path) -> None:
    """It is an error if ``%journal`` writes the conceal or OSC sequence of a connector's error text."""
    folder = write_notebook_dir(tmp_path / "proj")
    done = console(folder, ["notes.fail(message='E\\x1b]0;PWN\\x07\\x1b[8mF')", "%journal last"])
    out = done.stdout
    assert "notes.fail" in out, out  # the journal's table was shown
    assert "\x1b[8m" not in out, "the connector's conceal sequence reached the terminal through %journal"
    assert "\x1b]0;" not in out, "the connector's OSC title sequence reached the terminal through %journal"


def test_journal_and_executions_do_not_carry_a_programs_escapes_to_the_console(tmp_path: Path) -> None:
    """It is an error if a program's own source (a raw ESC in a string literal) reaches the terminal raw."""
    folder = write_notebook_dir(tmp_path / "proj")
    done = console(folder, ["s = 'A\x1b]0;PWN\x07\x1b[8mB'; notes.add_note(text='x')", "%executions", "%journal last"])
    out = done.stdout
    assert "%approve" in out, out  # the call paused and the kernel said so
    # The console does not echo piped input, so every copy here came from the kernel (%executions, %journal).
    assert out.count("\x1b[8m") == 0, "the program's conceal sequence reached the terminal through a table"


HOSTILE_DOC = {
    "openapi": "3.1.0",
    "info": {"title": "Pets", "version": "1"},
    "paths": {"/pets": {"get": {
        "operationId": "listPets",
        "summary": "List the pets\x1b]0;PWN\x07\x1b[8m in the store",
        "description": "List the pets\x1b]0;PWN\x07\x1b[8m in the store",
        "responses": {"200": {"description": "ok"}}}}},
}


def test_search_and_describe_do_not_carry_a_documents_escapes_to_the_console(tmp_path: Path) -> None:
    """It is an error if an OpenAPI document's description (a remote document's host writes it) reaches the
    console's terminal with its conceal or OSC sequence through ``%search`` or ``%describe``."""
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "pets.json").write_text(json.dumps(HOSTILE_DOC), encoding="utf-8")
    write_notebook_dir(folder, extra_toml='\n[connectors.pets]\nopenapi = "pets.json"\n'
                                          'base_url = "http://127.0.0.1:9"\n')
    done = console(folder, ["%search list pets", "%describe pets.listPets"])
    out = done.stdout
    assert "listPets" in out, out
    assert "\x1b[8m" not in out, "the document's conceal sequence reached the terminal"
    assert "\x1b]0;" not in out, "the document's OSC title sequence reached the terminal"
