"""The panel shows a program's code with its bidi controls live ("Trojan Source", review 15).

Review 12 made the panel's *arguments* text escape what a person cannot see or what reorders the
text after it, and baa156a did it for the kernel's stream text. The program's code itself reaches
the panel as it is: ``panel_messages.execution_detail`` sends ``state.code`` and
``execution_summary`` its ``first_line``, and the panel renders them as text
(executions.tsx: ``<pre className="jp-CodeModePanel-code">{detail.code}</pre>``, the execution
list's row). Bidi overrides and isolates (U+202A-U+202E, U+2066-U+2069) in a comment or a string
make the code *read* differently from what runs (CVE-2021-42574). The code a person reads before
approving is often a model's (``codemode mcp --notebook``): after the approved call the program runs
on, and its other calls (reads, ``no_approval`` writes) are part of what is approved.

The right outcome: the panel's code text and first line carry no bidi override or isolate (they are
shown as visible escapes, as in the terminal and the arguments).
"""

from __future__ import annotations

import pytest

from tests.panel.conftest import Setup

pytestmark = pytest.mark.anyio

CODE = "x = 'ok'  # \u202e\u2066 harmless comment \u2069\u2066\nshop.create_item(title='a')"


async def test_the_panel_code_reorders_nothing(setup: Setup) -> None:
    paused = await setup.host.rt.execute(CODE)
    assert paused["status"] == "paused", paused
    detail = await setup.panel.data("get_execution", execution_id=paused["execution_id"])
    for char in "\u202e\u2066\u2069":
        assert char not in detail["code"], repr(detail["code"])
        assert char not in detail["first_line"], repr(detail["first_line"])
    assert setup.shop.calls["create_item"] == 0
