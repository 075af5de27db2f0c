"""Review 15x: an approval or rollback refused because the connector's configuration changed
does not tell the notebook's author what to do.

A person edits ``codemode.toml`` (here the ``options`` of a ``python`` table: another data
file) and runs ``%reload``; then ``%approve last`` of a cell paused before the edit, and
``%rollback ID`` of one completed before it, are refused (right: the calls were made on the
other backend). The refusal says "Approve it from the notebook, folder or host that ran it
(with the same configuration)" - this *is* that notebook - and gives a ``ToolSetConnector(...,
target=...)`` example for a connector that is a ``codemode.toml`` table. It says neither what
works here (put the table back as it was and ``%reload``; or ``%reject`` the paused one), nor
which table; and "Roll back it from ..." is not English.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kernel.kernel_harness import Kernel, write_notebook_dir


@pytest.fixture
def changed(tmp_path: Path) -> Iterator[tuple[Kernel, str, str]]:
    """A kernel whose `notes` table's options changed (and were reloaded) after a completed write
    and a paused one; returns (kernel, the completed execution, the paused execution)."""
    folder = write_notebook_dir(tmp_path / "nb")
    kernel = Kernel(folder)
    kernel.ok('notes.add_note(text="r15x one")')
    done = kernel.ok("%approve last")
    assert done.result is not None
    kernel.ok('notes.add_note(text="r15x two")')
    ids = [line.split()[0] for line in str(kernel.ok("%executions").of("display_data")[0]["data"]["text/plain"])
           .splitlines()[2:]]
    paused, completed = ids[0], ids[1]
    toml = folder / "codemode.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(text.replace("options = {", "options = { approval = true, ", 1), encoding="utf-8")
    kernel.ok("%reload")
    yield kernel, completed, paused
    kernel.shutdown()


def test_a_refused_rollback_says_what_to_do_in_this_notebook(changed: tuple[Kernel, str, str]) -> None:
    kernel, completed, _ = changed
    run = kernel.execute(f"%rollback {completed}")
    assert run.error is not None, run.stdout
    message = run.error["evalue"]
    assert "nothing was rolled back" in message  # the refusal itself is right
    assert "Roll back it" not in message, message
    assert "%reload" in message and "codemode.toml" in message, message  # put the table back, then %reload
    assert "ToolSetConnector(" not in message, message  # the connector is a codemode.toml table


def test_a_refused_approval_offers_reject(changed: tuple[Kernel, str, str]) -> None:
    kernel, _, _paused = changed
    run = kernel.execute("%approve last")
    assert run.error is not None, run.stdout
    message = run.error["evalue"]
    assert "nothing was approved" in message
    assert "%reject" in message and "%reload" in message, message
