"""Review 15x: in a notebook, ``%rollback`` of an execution whose approved call ended
``OutcomeUnknown`` says "Nothing to roll back" (see tests/engine/test_review15x_outcome_unknown.py
for the terminal's words). The person rolls back to undo the cell; the one write that may
have been done (here it was) is not named.
"""

from __future__ import annotations

from pathlib import Path

from tests.engine.test_review15x_outcome_unknown import CONNECTOR_MODULE
from tests.kernel.kernel_harness import Kernel


def test_rollback_in_the_notebook_names_the_call_whose_outcome_is_unknown(tmp_path: Path) -> None:
    folder = tmp_path / "nb"
    folder.mkdir()
    (folder / "review15x_items.py").write_text(CONNECTOR_MODULE)
    (folder / "codemode.toml").write_text(
        f'[connectors.items]\npython = "review15x_items:items"\noptions = {{ path = "{folder / "items.sqlite"}" }}\n')
    kernel = Kernel(folder)
    try:
        kernel.ok("items.add(text='lost one')")
        failed = kernel.execute("%approve last")
        assert failed.error is not None and "OutcomeUnknown" in failed.error["ename"] + failed.error["evalue"]
        said = kernel.ok("%rollback last").stdout
        assert "#0" in said and "unknown" in said.lower(), said
    finally:
        kernel.shutdown()
