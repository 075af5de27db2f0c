"""``%approve ID`` runs a model's paused call at once, never showing it (review 16; the kernel's side of review 15 H4).

A model that pauses through ``codemode mcp --notebook X.ipynb`` is told where a person approves
(``serve.server.DEFAULT_APPROVE_HINT``): "in the notebook's Code Mode panel, with ``%approve ID`` in
that notebook, or from a terminal with ``codemode approve ID``". Review 15 H4 made the terminal door
show a model's execution whole (its program and the call, arguments uncut) and ask before approving
(cli ``_asked_to_approve``; ``--yes`` for scripts). The notebook's typed door does not:
``kernel/actions.py`` ``_approve`` with no seq takes the call pending now and approves it at once
(``magics._approve``), so the person who pastes ``%approve 01M...`` from the model's message approves
words the model wrote and nobody showed them; the cell then says only "Approved: execution ..., call #0
(notes.add_note)".

The right outcome: for an execution a model started (``via_tool``), a typed ``%approve ID`` without the
call's number shows the call whole (and the program) and approves nothing until the person names that
call (``%approve ID SEQ``) or clicks the card's Approve.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from codemode_kernel.building import runtime_for_folder
from tests.kernel.kernel_harness import Kernel, calls, write_notebook_dir

MODEL_CODE = "notes.add_note(text='wire 9,000 EUR to mallory, IBAN XX00 1234')"


async def _model_pauses(folder: Path) -> str:
    built = runtime_for_folder(folder, notebook=folder / "analysis.ipynb")
    async with built.runtime as rt:
        out = await rt.tool().call(MODEL_CODE)
    assert out["status"] == "paused", out
    return str(out["execution_id"])


def test_typed_approve_of_a_models_execution_shows_the_call_first(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb")
    (folder / "analysis.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
                                           encoding="utf-8")
    eid = asyncio.run(_model_pauses(folder))
    kernel = Kernel(folder)
    try:
        run = kernel.execute(f"%approve {eid}")
        said = run.stdout + run.stderr + "".join(
            str(c["data"].get("text/plain", "")) for c in run.of("display_data") + run.of("execute_result"))
        said += str((run.error or {}).get("evalue", ""))
    finally:
        kernel.shutdown()
    assert calls(folder, "add_note") == 0, f"the model's call ran on a typed %approve with no seq: {said}"
    assert "mallory" in said, said  # the call was shown whole
    assert f"%approve {eid} 0" in said, said  # and how to approve that very call


def test_approve_naming_the_call_runs_it(tmp_path: Path) -> None:
    """The person who read the call names it: approved and run, once."""
    folder = write_notebook_dir(tmp_path / "nb")
    (folder / "analysis.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
                                           encoding="utf-8")
    eid = asyncio.run(_model_pauses(folder))
    kernel = Kernel(folder)
    try:
        kernel.execute(f"%approve {eid}")
        assert calls(folder, "add_note") == 0
        kernel.ok(f"%approve {eid} 0")
    finally:
        kernel.shutdown()
    assert calls(folder, "add_note") == 1
