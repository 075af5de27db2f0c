"""A hostile program in a real browser: its journal, card and panel views are shown and nothing runs.

Issue 10, item 1: a program that closes a Markdown fence in its own code got ``%journal``
to render ``<img onerror>``, which clicked the Approve button of the program's own action.
Here that program (and a connector whose every text is hostile) is shown in every view a
person uses: the cell and its approval card, ``%journal``, ``%pending``, ``%snippet show``,
``%tool``, ``%describe``, ``name?``, a result table, an error, and the side panel's
executions, journal, snippets and connectors. Nothing may run: no ``window.__pwned``, no
live ``<img>``/``<script>``/``javascript:`` link, no TeX typeset, and the action still waits.

A control cell at the end (the author's own ``%%host`` HTML) shows the page does run live
HTML and typeset TeX in trusted outputs, so the hostile views were not merely too early.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.browser.conftest import ARTIFACTS, UI, Lab, notebook
from tests.browser.test_lab import open_panel, visible_button
from tests.kernel.kernel_harness import calls, write_notebook_dir
from tests.security.test_security_rendering import HOSTILE_MODULE, HOSTILE_TOML

pytestmark = pytest.mark.slow

CLICK_APPROVE = ("document.querySelectorAll('button').forEach(b => "
                 "{if (b.textContent.trim() == 'Approve') b.click()})")
# The attack, plus the other live forms: script, a javascript: link, TeX.
PAYLOAD = "\n".join([
    "",
    "```",
    f'<img src=x onerror="window.__pwned = (window.__pwned || 0) + 1; {CLICK_APPROVE}">',
    "<script>window.__pwned = 99</script>",
    "[click me](javascript:window.__pwned=3)",
    "$x^2 + y^2$",
    "```",
])
COMPLETED = f'note = r"""{PAYLOAD}"""\nprint(note)\n[{{"note": note, "tex": "$a^2$"}}]'
PAUSING = f'note = r"""{PAYLOAD}"""\nhostile.echo(text=note)\nnotes.add_note(text=note)'
CONTROL = ('%%host\nfrom IPython.display import HTML\n'
           'HTML(\'<span class="control-tex">$y^2$</span>'
           '<img src="data:," onerror="window.__control = 1">\')')
CELLS = [COMPLETED, "%snippet save evil_snippet last", "%snippet show evil_snippet", PAUSING,
         "%journal last", "%pending", "%tool", "%describe hostile.echo", "hostile.echo?", "hostile.rows()",
         "hostile.explode()", CONTROL]
PAUSED_CELL, LAST_HOSTILE, CONTROL_CELL = 3, 10, 11


def test_a_hostile_program_runs_nothing_in_the_page(ui: UI, lab: Lab) -> None:
    folder = write_notebook_dir(lab.root / "hostile", extra_toml=HOSTILE_TOML)
    (folder / "hostile_tools.py").write_text(HOSTILE_MODULE, encoding="utf-8")
    (folder / "attack.ipynb").write_text(json.dumps(notebook("codemode", "Code Mode", CELLS)), encoding="utf-8")
    page = ui.page
    page.goto(lab.page_url("hostile/attack.ipynb"))
    page.wait_for_selector(".jp-Notebook .jp-Cell")
    page.locator("#jp-main-statusbar").get_by_text(re.compile(r"Code Mode \| Idle")).wait_for()
    cells = page.locator(".jp-Notebook .jp-Cell")

    # Run every hostile cell (the run stops at the failing one, the last hostile cell).
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
    cells.nth(LAST_HOSTILE).locator(".jp-Cell-outputArea").get_by_text("ValueError").first.wait_for()
    paused = cells.nth(PAUSED_CELL).locator(".jp-Cell-outputArea")
    paused.get_by_text("notes.add_note").first.wait_for()
    journal = cells.nth(PAUSED_CELL + 1).locator(".jp-Cell-outputArea")
    journal.get_by_text(re.compile("Execution .*: paused")).wait_for()
    assert page.evaluate("window.__pwned") is None, "hostile text ran as script"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for i in (PAUSED_CELL, PAUSED_CELL + 1, LAST_HOSTILE - 1):  # the card, the journal, a table (for review)
        cells.nth(i).screenshot(path=str(ARTIFACTS / f"hostile-cell-{i}.png"))
    assert "onerror" in (journal.text_content() or ""), "the journal shows the hostile code as text"
    assert "onerror" in (paused.text_content() or ""), "the card shows the hostile arguments as text"

    # The panel: the pending action, the execution's code and journal, the snippet, the connector.
    panel = open_panel(page)
    pending = panel.locator(".jp-CodeModePanel-pendingCard")
    pending.wait_for()
    pending.locator(".jp-CodeModePanel-valueHead").first.click()
    row = panel.locator(".jp-CodeModePanel-execution[data-status='paused']").first
    row.locator(".jp-CodeModePanel-executionHead").click()
    row.locator(".jp-CodeModePanel-entry").nth(1).wait_for()
    for head in row.locator(".jp-CodeModePanel-entry .jp-CodeModePanel-valueHead").all():
        head.click()
    assert "onerror" in row.locator(".jp-CodeModePanel-code").inner_text()
    panel.locator(".jp-CodeModePanel-tab[data-tab='snippets']").click()
    panel.locator(".jp-CodeModePanel-snippet[data-snippet='evil_snippet']").wait_for()
    panel.locator(".jp-CodeModePanel-tab[data-tab='connectors']").click()
    hostile = panel.locator(".jp-CodeModePanel-connector[data-connector='hostile']")
    hostile.locator(".jp-CodeModePanel-connectorHead").click()
    hostile.locator(".jp-CodeModePanel-types").first.wait_for()

    # The control: the author's own trusted HTML does run, and TeX in it is typeset.
    cells.nth(CONTROL_CELL).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    page.wait_for_function("window.__control === 1")
    cells.nth(CONTROL_CELL).locator(".control-tex mjx-container").first.wait_for()

    assert page.evaluate("window.__pwned") is None, "hostile text ran as script"
    live = page.evaluate("""(count) => {
        const cells = [...document.querySelectorAll('.jp-Notebook .jp-Cell')].slice(0, count);
        const found = [];
        for (const root of [...cells, document.querySelector('#codemode-panel')]) {
            for (const el of root.querySelectorAll('img, script, iframe, object, embed, mjx-container, .MathJax')) {
                found.push(el.outerHTML.slice(0, 120));
            }
            for (const a of root.querySelectorAll('a[href]')) {
                if (!/^https?:/.test(a.getAttribute('href'))) found.push(a.outerHTML.slice(0, 120));
            }
        }
        return found;
    }""", CONTROL_CELL)
    assert live == [], f"hostile text became live elements: {live}"
    assert calls(folder, "add_note") == 0, "nobody approved, so the action did not run"
    cells.nth(PAUSED_CELL).scroll_into_view_if_needed()
    assert visible_button(paused, "Approve").is_enabled()
    panel.locator(".jp-CodeModePanel-tab[data-tab='executions']").click()
    assert panel.locator(".jp-CodeModePanel-execution[data-status='paused']").count() == 1
    assert [e for e in ui.errors if "404" not in e] == []
