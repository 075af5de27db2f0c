"""The model-facing tool answers with data even when transform_result returns something that is not JSON (review 12).

A failing transform returns the raw result (issue 14, defect 4: test_results.py). A transform that
returns a value the codec refuses (a NaN from a ratio over the program's data, an object) is
returned as it is by ``runtime.execute``, but ``runtime.tool().call`` (the model's door, and the
MCP server's) raises the codec's EncodeError to its caller: DESIGN §5 "nothing escapes as an
unhandled exception to the caller".
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio

TRANSFORMS = {
    "a NaN": lambda r: {"ratio": float("nan")},
    "an object": lambda r: object(),
}


@pytest.mark.parametrize("transform", TRANSFORMS.values(), ids=TRANSFORMS.keys())
async def test_the_tool_answers_with_json_whatever_the_transform_returns(make_runtime: RuntimeFactory,
                                                                          transform: Any) -> None:
    """It is an error if the tool's call raises instead of answering with JSON data."""
    tool = make_runtime([Shop()], transform_result=transform).tool()
    out = await tool.call("1 + 1")
    json.dumps(out, allow_nan=False)
    assert out["status"] in ("completed", "error")
