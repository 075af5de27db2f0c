"""``%journal`` shows a paused call's arguments in HTML with their invisible characters hidden (review 16).

Review 12 made every place where a person reads a call's arguments before deciding show the characters
a person cannot see as visible escapes (``display.json_text(..., reveal=True)``: the approval card,
``%pending``, the panel, the terminal). ``%journal ID`` is where the kernel's own approval summary and
the docs send a person to read what a paused execution did and what it waits for; its table's ``args``
and ``result`` columns are ``display.cell_text`` (``json_text`` without ``reveal``), and the HTML
escapes only the bidi controls (``markup._REORDERING``). So a pending ``notes.add_note(text='pay
alice\u200b\u200b\u200b')`` reads ``pay alice`` there, as do tag characters ("ASCII smuggling") and
variation selectors: the text/plain form of the same table shows ``\\u200b``.

The right outcome: the HTML table shows them as visible escapes, as ``%pending`` does.
"""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel


def test_journal_html_shows_invisible_characters_of_a_paused_call(kernel: Kernel) -> None:
    kernel.execute("notes.add_note(text='pay alice' + chr(0x200b) * 3 + chr(0xe0041) + ' 10 EUR')")
    pending = kernel.ok("%pending")
    pending_html = "".join(c["data"].get("text/html", "") for c in pending.of("display_data"))
    assert "\\u200b" in pending_html, pending_html  # %pending reveals them (the control)
    run = kernel.ok("%journal last")
    shown = "".join(c["data"].get("text/html", "") for c in run.of("display_data"))
    assert "add_note" in shown, shown
    assert "\u200b" not in shown and "\U000e0041" not in shown, "the HTML hides what a person cannot see"
    assert "\\u200b" in shown, shown
