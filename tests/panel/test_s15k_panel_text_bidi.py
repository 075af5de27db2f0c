"""s15k (review 15 M8, the panel's half): what the panel shows of a program besides its code - the
lines it printed, its error, a journal entry's error - carries no bidi override or isolate either
(visible escapes instead); newlines and tabs of the code stay as they are."""

from __future__ import annotations

import pytest

from tests.panel.conftest import Setup

pytestmark = pytest.mark.anyio

REORDERING = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


async def test_printed_lines_and_errors_reorder_nothing(setup: Setup) -> None:
    code = "print('paid \u202e\u2066 mallory \u2069')\nif True:\n\tx = 1\nraise ValueError('no \u202e\u2066 way')"
    failed = await setup.host.rt.execute(code)
    assert failed["status"] == "error", failed
    detail = await setup.panel.data("get_execution", execution_id=failed["execution_id"])
    shown = [detail["code"], detail["first_line"], detail["error"] or "", *detail["logs"]]
    assert not any(c in text for text in shown for c in REORDERING), shown
    assert "mallory" in "".join(detail["logs"]) and "way" in (detail["error"] or "")
    assert "\nif True:\n\tx = 1\n" in detail["code"], detail["code"]
