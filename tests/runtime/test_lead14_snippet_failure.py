"""A snippet that fails says which snippet failed (review 14x M7, the part s14r left; lead, session 14).

The error keeps its type (a program's ``except KeyError`` still works), and the pass's error
message starts with ``snippet 'NAME' failed:`` when the error was raised inside the snippet.
"""

from __future__ import annotations

import pytest

from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio


async def test_a_failing_snippet_is_named_and_keeps_its_type(make_runtime: RuntimeFactory) -> None:
    rt = make_runtime([])
    made = await rt.execute("input['n'] * 2", inputs={"input": {"n": 2}})
    assert made["status"] == "completed", made
    await rt.save_snippet("double", execution_id=made["execution_id"], description="Double n.")

    out = await rt.execute("codemode.run('double', {'m': 1})")
    assert out["status"] == "error" and out["error_type"] == "KeyError", out
    assert out["error"].startswith("KeyError: snippet 'double' failed: 'n'"), out

    caught = await rt.execute("try:\n    codemode.run('double', {'m': 1})\nexcept KeyError as e:\n    r = str(e)\nr")
    assert caught["status"] == "completed" and caught["result"] == "'n'", caught  # the program's own view

    fine = await rt.execute("1 / 0")
    assert fine["error"].startswith("ZeroDivisionError: division by zero"), fine  # no snippet, no prefix
