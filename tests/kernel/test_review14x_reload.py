"""Review 14x: ``%reload`` of a ``codemode.toml`` saved half-edited.

A person adds a line to ``codemode.toml`` while the notebook runs, leaves a bracket open, and
runs ``%reload``: the output says ``Reloaded .../codemode.toml. Connectors: none.`` and then
fails the cell with the TOML error; every connector is gone (``NameError: name 'notes' is not
defined``) until the file parses again. README: "A bad table costs only its own connector"; a
file that cannot be read at all costs every table, including the ones that worked a cell ago.
Keeping the last working configuration (and saying so) loses nothing.
"""

from __future__ import annotations

from pathlib import Path

from tests.kernel.kernel_harness import Kernel


def test_a_reload_that_cannot_read_the_file_keeps_the_working_connectors(kernel: Kernel, notebook_dir: Path) -> None:
    kernel.ok("notes.list_notes()")
    toml = notebook_dir / "codemode.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + '\nrequires_approval = ["add_note"\n', encoding="utf-8")
    reload = kernel.execute("%reload")
    said = reload.stdout + (reload.error["evalue"] if reload.error else "")
    assert "not valid TOML" in said  # the problem is shown
    assert "Connectors: none" not in said, said
    run = kernel.execute("notes.list_notes()")
    assert run.status == "ok", run.error
