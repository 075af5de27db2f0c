"""The panel's Connectors tab says why a connector has no methods (issue 16, item 4), in a real browser.

Before: a connector whose server did not start showed as ``ghost 0 methods`` with no reason.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from tests.browser.conftest import ARTIFACTS, UI, Lab, notebook
from tests.browser.test_lab import open_notebook, open_panel

pytestmark = pytest.mark.slow

GHOST = textwrap.dedent('''
    from codemode_kernel import ToolSetConnector


    class Down(ToolSetConnector):
        async def tools(self):  # as an MCP connector whose server does not start
            raise RuntimeError("the server exited with status 1 (run it in a terminal to see its output).")


    def make():
        def ping() -> str:
            """Ping."""
            return "pong"
        return Down([ping], name="ghost")
''')


def test_an_unavailable_connector_shows_its_reason_in_the_panel(ui: UI, lab: Lab) -> None:
    folder = lab.root / "ghostly"
    folder.mkdir(exist_ok=True)
    (folder / "ghost_tools.py").write_text(GHOST)
    (folder / "codemode.toml").write_text('[connectors.ghost]\npython = "ghost_tools:make"\n')
    (folder / "g.ipynb").write_text(json.dumps(notebook("codemode", "Code Mode", ["1 + 1"])))
    page = open_notebook(ui, lab, "ghostly/g.ipynb", "Code Mode")
    panel = open_panel(page)
    panel.locator(".jp-CodeModePanel-dot.jp-mod-ready").wait_for()
    panel.locator(".jp-CodeModePanel-tab[data-tab='connectors']").click()
    ghost = panel.locator(".jp-CodeModePanel-connector[data-connector='ghost']")
    ghost.locator(".jp-CodeModePanel-count", has_text="unavailable").wait_for()
    reason = ghost.locator(".jp-CodeModePanel-unavailable")
    assert "the server exited with status 1 (run it in a terminal to see its output)." in reason.inner_text()
    assert "0 methods" not in ghost.inner_text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "connector-unavailable-after.png"))
    assert ui.errors == []
