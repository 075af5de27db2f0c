"""Review 15x: mistakes with the ``codemode`` global answer in the sandbox's internal names.

A connector method called wrongly gets a sentence that shows the right call (``calc.add()
takes keyword arguments ... call it as calc.add(name=value, ...)``); the ``codemode`` global
does not: ``codemode.search()`` -> ``TypeError: CodemodeApi.search() missing 1 required
positional argument: 'query'``; ``codemode.describe("calc", fulll=True)`` -> ``CodemodeApi.describe()
got an unexpected keyword argument 'fulll'``; ``codemode.lookup("x")`` -> ``AttributeError:
'CodemodeApi' object has no attribute 'lookup'``. The model reading these never saw a
``CodemodeApi``; it needs the signature (``codemode.search(query, limit=10, connector=None)``)
and, for an unknown attribute, what ``codemode`` has (search, describe, step, run).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, ToolSetConnector

pytestmark = pytest.mark.anyio


def add(a: int) -> int:
    """Add."""
    return a


@pytest.mark.parametrize(("code", "expected"), [
    ("codemode.search()", "codemode.search(query"),
    ('codemode.describe("calc", fulll=True)', "full"),
    ('codemode.step(lambda: 5)', "codemode.step(name"),
    ('codemode.lookup("x")', "describe"),
])
async def test_codemode_mistakes_name_the_api_as_the_model_sees_it(code: str, expected: str, tmp_path: Path) -> None:
    async with CodemodeRuntime([ToolSetConnector([add], name="calc")], store=f"sqlite:///{tmp_path / 'j.db'}",
                               executor=InProcessExecutor()) as rt:
        out = await rt.execute(code)
    assert out["status"] == "error"
    assert "CodemodeApi" not in out["error"], out["error"]
    assert expected in out["error"], out["error"]
