"""In the browser: the panel's Approve names the call its row shows (s11a).

A cell pauses on call #0. Another host approves #0 over the same journal (a second tab's
kernel, a terminal) and its pass pauses on call #1; this page hears nothing of it, so the
panel still shows #0. Clicking Approve there approves nothing: the panel says why, refreshes
to show #1, and the cell's card shows #1 too; call #1 runs only when Approve is clicked on it.
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.browser.conftest import UI, Lab, notebook
from tests.browser.test_lab import open_notebook, open_panel, run_first_cell, visible_button
from tests.kernel.kernel_harness import calls, notes

pytestmark = pytest.mark.slow

TWO = "a = notes.add_note(text='first A')\nb = notes.add_note(text='then B')\n[a['text'], b['text']]"


def approve_elsewhere(lab: Lab, seq: int) -> str:
    """Approve call #``seq`` from another host on the notebook's journal; the execution's id."""
    from codemode_kernel import CodemodeRuntime, InProcessExecutor
    from codemode_kernel.config import load_config

    async def run() -> str:
        journal = lab.folder / ".codemode" / "stale.codemode.db"
        other = CodemodeRuntime(load_config(lab.folder).connectors, store=f"sqlite:///{journal}",
                                executor=InProcessExecutor())
        try:
            (pending,) = await other.pending()
            out = await other.approve(pending.execution_id, seq=seq)
            assert out["status"] == "paused" and out["pending"][0]["seq"] == seq + 1, out
            return pending.execution_id
        finally:
            await other.aclose()

    # Playwright's sync API holds this thread's event loop: the other host runs in its own thread.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result(timeout=120)


def settled(page: Any) -> None:
    """Wait until the kernel is idle and the panel neither waits to reload nor is reloading.

    Both are read in one evaluation: the cell's end (idle) asks the panel for a reload, and a
    reload that lands after the other host's approval would show call #1 before the click.
    """
    page.wait_for_function(
        """() => {
            const status = document.querySelector('#jp-main-statusbar');
            const header = document.querySelector('#codemode-panel .jp-CodeModePanel-header');
            return status !== null && /Code Mode \\| Idle/.test(status.textContent || '')
                && header !== null && header.getAttribute('data-refresh') === 'idle';
        }""")


def test_a_stale_panel_approve_approves_nothing_and_shows_the_next_call(ui: UI, lab: Lab) -> None:
    (lab.folder / "stale.ipynb").write_text(json.dumps(notebook("codemode", "Code Mode", [TWO])), encoding="utf-8")
    before = calls(lab.folder, "add_note")
    page = open_notebook(ui, lab, "work/stale.ipynb", "Code Mode")
    panel = open_panel(page)
    panel.locator(".jp-CodeModePanel-dot.jp-mod-ready").wait_for()
    run_first_cell(page)
    cell = page.locator(".jp-Notebook .jp-Cell").first.locator(".jp-OutputArea")
    visible_button(cell, "Approve").wait_for()
    pending = panel.locator(".jp-CodeModePanel-pendingCard")
    pending.locator(".jp-CodeModePanel-seq", has_text="#0").wait_for()
    settled(page)  # the page's last refresh (the cell's end asks for one) is over before the other host acts

    approve_elsewhere(lab, 0)
    assert calls(lab.folder, "add_note") == before + 1
    assert pending.locator(".jp-CodeModePanel-seq").inner_text() == "#0", "this page still shows call #0"

    visible_button(pending, "Approve").click()
    notice = panel.locator(".jp-CodeModePanel-notice.jp-mod-error")
    notice.wait_for()
    assert notice.inner_text().startswith(
        "Call #0 (notes.add_note) is not pending any more: it was already decided, so nothing was approved. "
        "The execution is now paused on call #1 (notes.add_note).")
    pending.locator(".jp-CodeModePanel-seq", has_text="#1").wait_for()  # the refresh shows what waits now
    cell.get_by_text("Review it below").first.wait_for()  # the cell's card says it too, as text
    cell.get_by_text("call #1").first.wait_for()
    assert calls(lab.folder, "add_note") == before + 1, "call #1 did not run"

    visible_button(pending, "Approve").click()
    cell.get_by_text("Completed").first.wait_for()
    assert calls(lab.folder, "add_note") == before + 2
    assert notes(lab.folder)[-2:] == ["first A", "then B"]
    assert ui.errors == []
