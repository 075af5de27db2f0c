"""Renaming a notebook in JupyterLab takes its journal along (issue 16, item 2), in a real browser.

Before: after ``Untitled.ipynb`` → ``analysis.ipynb`` the panel kept the old name until the
page was reloaded, and a restarted kernel opened an empty ``analysis.codemode.db`` while the
history stayed in ``Untitled.codemode.db``. Now the lab extension tells the kernel (the
``codemode.notebook`` comm), the journal moves with the notebook, the panel shows the new
name at once, and the journal's id is saved in the notebook's metadata.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from codemode_kernel.journal_files import read_identity
from tests.browser.conftest import ARTIFACTS, UI, Lab, notebook
from tests.browser.test_lab import open_notebook, open_panel, visible_button

pytestmark = pytest.mark.slow


def wait_for_file(path: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not path.is_file():
        assert time.monotonic() < deadline, f"{path} did not appear"
        time.sleep(0.1)


def test_a_renamed_notebook_keeps_its_journal_and_the_panel_its_name(ui: UI, lab: Lab) -> None:
    folder = lab.folder
    (folder / "Untitled.ipynb").write_text(json.dumps(notebook("codemode", "Code Mode", ["6 * 7", ""])))
    page = open_notebook(ui, lab, "work/Untitled.ipynb", "Code Mode")
    panel = open_panel(page)
    panel.locator(".jp-CodeModePanel-subtitle", has_text="Untitled.ipynb").wait_for()
    page.locator(".jp-Notebook .jp-Cell .jp-InputArea-editor").first.click()
    page.keyboard.press("Shift+Enter")
    page.locator(".jp-OutputArea-output", has_text="42").first.wait_for()
    wait_for_file(folder / ".codemode" / "Untitled.codemode.db")
    assert not list(folder.glob("*.codemode.db*")), "no journal files in the file browser's folder"

    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^File$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Rename Notebook…$")).click()
    field = page.locator(".jp-Dialog input")
    field.fill("analysis.ipynb")
    visible_button(page.locator(".jp-Dialog"), "Rename").click()

    panel.locator(".jp-CodeModePanel-subtitle", has_text="analysis.ipynb").wait_for()
    wait_for_file(folder / ".codemode" / "analysis.codemode.db")
    assert not (folder / ".codemode" / "Untitled.codemode.db").exists()

    second = page.locator(".jp-Notebook .jp-Cell").nth(1)
    second.locator(".jp-InputArea-editor").click()
    page.keyboard.type("%executions")
    page.keyboard.press("Shift+Enter")
    second.locator(".jp-OutputArea-output", has_text="6 * 7").wait_for()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "rename-after.png"))

    page.keyboard.press("ControlOrMeta+s")
    deadline = time.monotonic() + 30
    saved: dict[str, object] = {}
    while time.monotonic() < deadline:
        try:
            saved = json.loads((folder / "analysis.ipynb").read_text()).get("metadata", {})
        except ValueError:  # read while the server was writing it
            saved = {}
        if "codemode" in saved:
            break
        time.sleep(0.2)
    identity = read_identity(folder / ".codemode" / "analysis.codemode.db")
    assert identity is not None and identity.notebook == str(folder / "analysis.ipynb")
    assert saved.get("codemode") == {"journal": identity.journal_id}, saved

    # A restart after the rename opens the same journal.
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Kernel$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Restart Kernel…$")).click()
    visible_button(page.locator(".jp-Dialog"), "Restart").click()
    page.locator("#jp-main-statusbar").get_by_text(re.compile(r"Code Mode \| Idle")).wait_for()
    third = page.locator(".jp-Notebook .jp-Cell").nth(2)
    third.locator(".jp-InputArea-editor").click()
    page.keyboard.type("%store")
    page.keyboard.press("Shift+Enter")
    third.locator(".jp-OutputArea-output", has_text="Executions: 1 (1 completed)").wait_for()
    shown = third.locator(".jp-OutputArea-output").first.inner_text()
    assert str(folder / ".codemode" / "analysis.codemode.db") in shown
    assert not (folder / ".codemode" / "Untitled.codemode.db").exists()
    assert ui.errors == []
