"""An output flood in a real JupyterLab and chromium (issue 16, item 1).

Before the fix, ``for k in range(2000000): print('line', k)`` sent one IOPub message per
print; the server's rate limit dropped messages (the cell's error among them), its log
filled with tracebacks, and the tab stayed busy for minutes. Now the cell shows the kept
output, the cut note and its real outcome, the kernel goes idle, and the next cell runs.
A screenshot of the cell is saved to tests/artifacts/output-flood-after.png.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.browser.conftest import ARTIFACTS, UI, Lab, notebook
from tests.browser.test_lab import open_notebook

pytestmark = pytest.mark.slow

FLOOD = "for k in range(2000000):\n    print('line', k)\n"
NEXT = "'next cell: ' + str(6 * 7)"


def test_a_flood_cell_finishes_the_tab_goes_idle_and_the_next_cell_runs(ui: UI, lab: Lab) -> None:
    (lab.folder / "flood.ipynb").write_text(json.dumps(notebook("codemode", "Code Mode", [FLOOD, NEXT])),
                                            encoding="utf-8")
    log_before = lab.log.read_text(errors="replace")
    page = open_notebook(ui, lab, "work/flood.ipynb", "Code Mode")
    first, second = page.locator(".jp-Notebook .jp-Cell").nth(0), page.locator(".jp-Notebook .jp-Cell").nth(1)
    first.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")

    # The real outcome, in the cell: the pass printed past max_output_chars.
    first.locator(".jp-OutputArea").get_by_text(re.compile("LimitExceeded")).first.wait_for()
    first.locator(".jp-OutputArea").get_by_text(re.compile(r"\[Code Mode: output cut here")).first.wait_for()
    first.locator(".jp-OutputArea").get_by_text(re.compile("more characters of output were dropped")).first.wait_for()
    page.locator("#jp-main-statusbar").get_by_text(re.compile(r"Code Mode \| Idle")).wait_for()
    assert first.locator(".jp-InputArea-prompt").inner_text().strip() == "[1]:"

    page.keyboard.press("Shift+Enter")  # the focus moved on to the next cell
    second.locator(".jp-OutputArea").get_by_text("'next cell: 42'").wait_for()
    page.locator("#jp-main-statusbar").get_by_text(re.compile(r"Code Mode \| Idle")).wait_for()

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    first.locator(".jp-OutputArea-output").first.evaluate("e => { e.scrollTop = e.scrollHeight; }")
    page.screenshot(path=str(ARTIFACTS / "output-flood-after.png"))
    log = lab.log.read_text(errors="replace")[len(log_before):]
    assert "rate exceeded" not in log, "the server's IOPub rate limit was not reached"
    assert "Traceback" not in log
    assert not [e for e in ui.errors if "websocket" in e.lower()], ui.errors
