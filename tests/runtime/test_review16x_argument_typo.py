"""Review 16x: a mistyped keyword argument is refused in JSON Schema's words, with no hint of the name meant.

``clock.get_current_time(timezon="UTC")`` ends ``ArgumentError: clock.get_current_time: Additional properties are not
allowed ('timezon' unexpected) (remove the extra argument). The connector was not called.`` (validation.py
``_explain``). The person (often a model) meant ``timezone``: "remove the extra argument" is the wrong advice, and
"Additional properties" is the schema's jargon, not Python's ("got an unexpected keyword argument"). A method's
name typo already gets "did you mean" (``notes.list_note()`` lists the methods).
"""

from __future__ import annotations

import pytest

from codemode_kernel import ToolSetConnector
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio


def get_current_time(timezone: str = "UTC") -> str:
    """The time in a zone (an optional argument: nothing else in the refusal names it)."""
    return "12:00 " + timezone


async def test_a_mistyped_keyword_names_the_one_meant(make_runtime: RuntimeFactory) -> None:
    rt = make_runtime([ToolSetConnector([get_current_time], name="clock")])
    out = await rt.execute('clock.get_current_time(timezon="UTC")')
    assert out["status"] == "error" and out["error_type"] == "ArgumentError", out
    assert "timezone" in out["error"], out["error"]
    assert "remove the extra argument" not in out["error"], out["error"]
