"""Looking at a connector in a cell says how to describe it (s14e, review 14x M12), on both executors.

A cell whose result is a connector, a method or ``codemode`` cannot return it (it is not data), and
``help`` / ``dir`` are not builtins of the sandbox; each error names the call that shows what the
person wanted (``codemode.describe('notes')``), never an internal type name ('ConnectorProxy').
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from codemode_kernel import InProcessExecutor
from codemode_kernel.executor.isolated import SubprocessExecutor
from tests.executor.isolated_support import RecordingHost

pytestmark = pytest.mark.anyio

NOTES = {"notes": ["add_note", "list_notes"]}


@pytest.fixture(params=["inprocess", "subprocess"])
async def executor(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    ex = InProcessExecutor() if request.param == "inprocess" else SubprocessExecutor()
    yield ex
    await ex.aclose()


SAID = {
    "a connector": ("notes", "codemode.describe('notes')"),
    "a method": ("notes.add_note", "codemode.describe('notes.add_note')"),
    "codemode": ("codemode", "codemode.describe('NAME')"),
    "a connector inside the result": ("x = notes\n[1, {'a': x}]", "codemode.describe('notes')"),
    "help of a method": ("help(notes.add_note)", "codemode.describe('notes.add_note')"),
    "dir of a connector": ("dir(notes)", "codemode.describe('notes')"),
    "help of codemode's method": ("help(codemode.search)", "codemode.describe('NAME')"),
    "dir of a value": ("n = {'a': 1}\ndir(n)", "list(x)"),
    "help on a later line": ("n = 1\nif n:\n    help(notes.list_notes)", "codemode.describe('notes.list_notes')"),
}


@pytest.mark.parametrize(("code", "call"), SAID.values(), ids=SAID.keys())
async def test_looking_at_an_object_names_the_call_to_use(executor: Any, code: str, call: str) -> None:
    """It is an error if the message does not name the exact call, or names an internal type."""
    host = RecordingHost()
    out = await executor.execute(code, NOTES, host=host)
    assert out.error is not None, out
    assert call in out.error.message, out.error
    assert "Proxy" not in out.error.message and "CodemodeApi" not in out.error.message, out.error
    assert host.calls == []


async def test_an_unbound_local_named_help_keeps_its_own_message(executor: Any) -> None:
    """It is an error if a function's own variable ``help``, read before it is set, is explained as the
    missing builtin."""
    code = "def f():\n    x = help\n    help = 1\n    return x\nf()"
    out = await executor.execute(code, NOTES, host=RecordingHost())
    assert out.error is not None and out.error.type == "UnboundLocalError", out
    assert "describe" not in out.error.message, out.error
