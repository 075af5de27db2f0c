"""Review 14x: the "connector X is unavailable" note buries unrelated errors.

With one broken table in ``codemode.toml`` (here an MCP server whose command is not installed),
*every* failed cell gets the note appended to its error, whatever failed: ``1/0``, a
``KeyError`` inside a working connector, an interrupt, a timeout. It is stored in the journal's
error too (``%journal``, ``codemode show``). The real error is one line; the note is a sentence
per broken connector ("Note: connector 'gone' is unavailable: its MCP server's command ... is not
installed on this machine; ... the notebook's author can see the details with %connectors."), and
``Interrupted: the pass was interrupted Note: ...`` runs two sentences together. The note helps
when the program uses the unavailable connector; a program that never names it should get its
own error alone.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.kernel.kernel_harness import Kernel, write_notebook_dir

BROKEN = """
[connectors.gone]
mcp = { command = "mcp-server-review14x-not-installed" }
"""


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    folder = write_notebook_dir(tmp_path_factory.mktemp("review14x_notes") / "nb", extra_toml=BROKEN)
    k = Kernel(folder)
    k.ok("1")
    yield k
    k.shutdown()


def _error(kernel: Kernel, code: str) -> str:
    run = kernel.execute(code)
    assert run.status == "error" and run.error is not None
    return str(run.error["evalue"])


def test_a_program_that_names_the_connector_is_told_why_it_is_missing(kernel: Kernel) -> None:
    """The control (holds today): the note is there when the program uses the broken connector."""
    text = _error(kernel, "gone.anything()")
    assert "'gone' is unavailable" in text


def test_an_unrelated_error_is_shown_alone(kernel: Kernel) -> None:
    text = _error(kernel, "x = 1\nx / 0")
    assert text.startswith("division by zero") or "ZeroDivisionError" in text, text
    assert "gone" not in text, text


def test_a_working_connectors_error_is_shown_alone(kernel: Kernel) -> None:
    text = _error(kernel, 'notes.fail(message="the disk is full")')
    assert "the disk is full" in text
    assert "gone" not in text, text
    journal = kernel.ok("%journal last").stdout
    assert "the disk is full" in journal and "gone" not in journal, journal
