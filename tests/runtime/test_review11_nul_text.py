"""Review 11: a NUL character in what a program or a connector produces is data on every store.

PostgreSQL's text columns refuse U+0000 (psycopg: "PostgreSQL text fields cannot contain NUL (0x00)
bytes"); SQLite keeps it. A program's exception message, a connector's error message (text from
anywhere: an upstream API, a file) and the code itself are stored as text (JSON values escape it as
\\u0000 and are not affected). The lone-surrogate case was fixed the same way before
(test_unstorable_connector_text.py: the code is told what the journal keeps).
"""

from __future__ import annotations

from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

NUL = "\x00"


class Echo:
    """A connector whose call fails with the text it is given; ``runs`` counts the calls."""

    def __init__(self) -> None:
        self.runs = 0

    def connector(self) -> ToolSetConnector:
        def echo(text: str) -> dict[str, Any]:
            """Fail with ``text``."""
            self.runs += 1
            raise ValueError(text)

        return ToolSetConnector([echo], name="echo")


async def test_a_program_exception_with_a_nul_ends_the_execution_as_that_error(
        make_runtime: RuntimeFactory) -> None:
    rt = make_runtime([])
    out = await rt.execute("raise ValueError('a' + chr(0) + 'b')")
    assert out["status"] == "error" and out["error_type"] == "ValueError", out
    state = await rt.execution(out["execution_id"])
    assert state is not None and state.status == "error", "the execution ended (not left running)"


async def test_a_connector_error_with_a_nul_is_an_error_the_code_can_catch(
        make_runtime: RuntimeFactory) -> None:
    echo = Echo()
    rt = make_runtime([echo.connector()])
    code = ("try:\n    echo.echo(text='x' + chr(0) + 'y')\nexcept Exception as e:\n    caught = str(e)\n"
            "['x' in caught, caught.endswith('y')]")
    out = await rt.execute(code)
    assert out["status"] == "completed" and out["result"] == [True, True], out
    state = await rt.execution(out["execution_id"])
    assert state is not None and [(e.seq, e.state) for e in state.log] == [(0, "error")]
    assert echo.runs == 1


async def test_code_with_a_nul_is_refused_as_code_not_as_a_store_failure(
        make_runtime: RuntimeFactory) -> None:
    rt = make_runtime([])
    out = await rt.execute(f"x = '{NUL}'\n1")
    assert out["status"] == "error" and out["error_type"] != "StoreError", out


@pytest.mark.parametrize("code", [
    "codemode.step('a' + chr(0), lambda: 1)",  # a step's name is stored as the entry's method
    "codemode.run('a' + chr(0))",               # a snippet name looked up in the store
    "codemode.describe('a' + chr(0))",          # a target looked up among the snippets
])
async def test_a_nul_in_a_name_the_program_gives_codemode_is_data(
        make_runtime: RuntimeFactory, code: str) -> None:
    """Names the program passes to ``codemode`` reach the store as query parameters or stored text."""
    rt = make_runtime([])
    out = await rt.execute(f"r = {code}\n1")
    assert out["status"] == "completed" or out.get("error_type") not in ("HostError", "StoreError"), out
