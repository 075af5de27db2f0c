"""Review 14x: a compile error as the model-facing tool words it.

The kernel shows ``SyntaxError: '(' was never closed: x = (``. Through ``runtime.tool()`` (and
``codemode mcp``) the same mistake reads ``SyntaxError: Line 1: SyntaxError: '(' was never
closed: x = ( (line 1)``: the error type twice and the line three times (RestrictedPython's
"Line N: " prefix kept inside the message, and the runtime's " (line N)" appended). Every
sandbox refusal reads the same way: ``SandboxViolation: Line 1: Eval calls are not allowed.
(line 1)``. A model reads these first, on every mistake.
"""

from __future__ import annotations

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, ToolSetConnector

pytestmark = pytest.mark.anyio


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@pytest.mark.parametrize("code", ["x = (", "eval('1')"])
async def test_a_compile_error_is_said_once(code: str) -> None:
    async with CodemodeRuntime([ToolSetConnector([add], name="calc")], store="sqlite://",
                               executor=InProcessExecutor()) as rt:
        out = await rt.tool().call(code)
    assert out["status"] == "error" and out["line"] == 1
    error = out["error"]
    assert error.count(out["error_type"]) == 1, error
    assert error.lower().count("line 1") == 1, error
