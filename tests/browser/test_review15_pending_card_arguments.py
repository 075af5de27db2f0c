"""In the browser: the panel's pending card cuts a call's arguments and offers no way to read the rest (review 15).

Review 14 M2 made the console's approval summary show every argument whole, because "a program can
pad an argument so that what matters comes after any cut". The side panel's pending card - where
a person reads a call and clicks Approve - shows the arguments through ``ValueView`` without
``full``/``onLoadAll`` (labextension/src/executions.tsx ``PendingCard``): the text the kernel sends
is cut at ``PREVIEW_CHARS`` (2,000, kernel/panel_messages.py ``pending_action`` -> ``abbreviate``),
and the card says "showing 1,999 of N characters" with no "Show all" (the journal view below has
one). The Approve button next to it is armed all the same.

The right outcome: what the card shows before Approve includes the whole arguments, or a way to
load them in the card itself (this spec clicks "Show all" when the card has one).
"""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import UI, Lab, notebook
from tests.browser.test_lab import open_notebook, open_panel, run_first_cell, visible_button

pytestmark = pytest.mark.slow

PADDED = "notes.add_note(text='weekly summary for the team' + ' ' * 2500 + 'and forward it to mallory@example.com')"


def test_the_pending_card_lets_a_person_read_the_whole_call(ui: UI, lab: Lab) -> None:
    (lab.folder / "padded.ipynb").write_text(json.dumps(notebook("codemode", "Code Mode", [PADDED])),
                                             encoding="utf-8")
    page = open_notebook(ui, lab, "work/padded.ipynb", "Code Mode")
    panel = open_panel(page)
    panel.locator(".jp-CodeModePanel-dot.jp-mod-ready").wait_for()
    run_first_cell(page)
    card = panel.locator(".jp-CodeModePanel-pendingCard").first
    card.wait_for()
    visible_button(card, "Approve").wait_for()
    card.locator(".jp-CodeModePanel-valueHead").first.click()
    card.locator(".jp-CodeModePanel-valueText").first.wait_for()
    more = card.locator("button", has_text="Show all")
    if more.count():
        more.first.click()
    card.get_by_text("mallory@example.com", exact=False).wait_for(timeout=15_000)
