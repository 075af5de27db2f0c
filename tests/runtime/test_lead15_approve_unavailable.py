"""An approval refused because a connector is down says so (not 'not configured'), and what to do."""

from __future__ import annotations

import pytest

from tests.conftest import RuntimeFactory
from tests.runtime.test_review15_approve_retry import Flaky, notes

pytestmark = pytest.mark.anyio


async def test_the_refusal_names_the_unavailable_connector_and_says_approve_again(make_runtime: RuntimeFactory) -> None:
    calls = {"add": 0}
    paused = await make_runtime([notes(calls), Flaky(down=False)]).execute("notes.add(text='hello')")
    refused = await make_runtime([notes(calls), Flaky(down=True)]).approve(paused["execution_id"], seq=0)
    assert refused["status"] == "error" and refused.get("refused"), refused
    text = refused["error"]
    assert "unavailable now: 'clock'" in text and "approve again once they are back" in text, text
    assert "not configured" not in text and "configure them again" not in text, text
    assert calls["add"] == 0
