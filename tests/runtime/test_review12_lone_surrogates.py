"""A lone surrogate in code or in a value the program makes fails the execution clearly, on both executors (review 12).

A str may hold a lone surrogate (``chr(0xD800)``); it has no UTF-8 form, so no journal can keep it.
The codec refuses one in a connector's result with a clear CodecError (codec._NOT_UNICODE), and
review 11 refused code holding a NUL before anything is recorded. Elsewhere the two executors
disagree and neither says what happened:

- code holding one (Python cannot compile it either): "the host could not record the pass
  (UnicodeEncodeError ...)" in process; "was ended as 'deleted' by another host while this pass
  ran" on the isolated executor (nobody deleted anything);
- the pass's result, a step's value or name, a dict key: HostError (UnicodeEncodeError) in
  process; on the isolated executor the worker's line encoder replaces the surrogate with U+FFFD,
  so the execution completes with another value than the program made.
"""

from __future__ import annotations

import pytest

from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

VALUES = {
    "the result": "s = 'a' + chr(0xD800)\ns",
    "a dict key of the result": "{'k' + chr(0xDC00): 1}",
    "a step's value": "v = codemode.step('v', lambda: 'a' + chr(0xD800))\nlen(v)",
    "a step's name": "codemode.step('a' + chr(0xD800), lambda: 1)\n2",
}


async def test_code_holding_a_lone_surrogate_is_refused_clearly(make_runtime: RuntimeFactory) -> None:
    """It is an error if such code reaches the store, or the refusal blames a store failure or another host."""
    rt = make_runtime([])
    out = await rt.execute("x = '\ud800'\nx")
    assert out["status"] == "error"
    error = str(out.get("error"))
    assert "surrogate" in error.lower()
    assert "another host" not in error and "could not record" not in error and "HostError" not in error
    assert await rt.execution(out["execution_id"]) is None


@pytest.mark.parametrize("code", VALUES.values(), ids=VALUES.keys())
async def test_a_value_holding_a_lone_surrogate_fails_clearly(make_runtime: RuntimeFactory, code: str) -> None:
    """It is an error if such a value is altered silently or fails as a host error instead of the codec's refusal."""
    rt = make_runtime([])
    out = await rt.execute(code)
    assert out["status"] == "error", out
    error = str(out.get("error"))
    assert "lone surrogate" in error
    assert "HostError" not in error
