"""s16c: ``%pending`` offers ``%approve last`` only beside a person's pause, and ``%approve last`` refused for a model's
pause names the magic to run with the call's number (review 16x L9)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from codemode_kernel.building import runtime_for_folder
from tests.kernel.kernel_harness import Kernel, Run, write_notebook_dir

MODEL_CODE = "notes.add_note(text='from the model')"


async def _model_pauses(folder: Path) -> str:
    async with runtime_for_folder(folder, notebook=folder / "analysis.ipynb").runtime as rt:
        out = await rt.tool().call(MODEL_CODE)
    assert out["status"] == "paused", out
    return str(out["execution_id"])


def _said(run: Run) -> str:
    shown = "".join(str(c["data"].get("text/plain", "")) for c in run.of("display_data") + run.of("execute_result"))
    return run.stdout + run.stderr + shown + (str(run.error.get("evalue", "")) if run.error else "")


def test_a_models_pause_alone_is_offered_by_its_id(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb")
    (folder / "analysis.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
                                           encoding="utf-8")
    eid = asyncio.run(_model_pauses(folder))
    kernel = Kernel(folder)
    try:
        pending = _said(kernel.execute("%pending"))
        refused = _said(kernel.execute("%approve last"))
        kernel.execute("notes.add_note(text='mine')")
        both = _said(kernel.execute("%pending"))
    finally:
        kernel.shutdown()
    assert eid in pending and "%approve last" not in pending, pending
    assert f"%approve {eid} 0" in refused and "codemode approve" not in refused, refused
    assert "%approve last" in both, both
