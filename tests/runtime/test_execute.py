"""Running code: results, logs, the journal's numbering, and bad input as data."""

from __future__ import annotations

import pytest

from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio


async def test_last_expression_is_the_result(make_runtime: RuntimeFactory) -> None:
    """The value of the last expression statement is the result."""
    rt = make_runtime([Shop()])
    out = await rt.execute("x = 20\nx + 22")
    assert out["status"] == "completed"
    assert out["result"] == 42


async def test_top_level_return_is_the_result(make_runtime: RuntimeFactory) -> None:
    """A top-level `return value` ends the program with that result."""
    rt = make_runtime([Shop()])
    out = await rt.execute("for i in range(10):\n    if i == 3:\n        return i * 2\n99")
    assert out["result"] == 6


async def test_print_becomes_logs_and_streams(make_runtime: RuntimeFactory) -> None:
    """print() output is returned as logs and delivered live to on_output."""
    rt = make_runtime([Shop()])
    seen: list[str] = []
    out = await rt.execute("print('a', 1)\nprint('b')\nNone", on_output=seen.append)
    assert out["logs"] == ["a 1", "b"]
    assert "".join(seen) == "a 1\nb\n"
    assert out["result"] is None


async def test_seq_numbers_start_at_zero_in_call_order(make_runtime: RuntimeFactory) -> None:
    """Each connector call and step gets the next seq, from 0, in the order calls reach the host."""
    shop = Shop()
    rt = make_runtime([shop])
    out = await rt.execute("shop.list_items()\ncodemode.step('s', lambda: 1)\nshop.get_item(item_id=1)")
    state = await rt.execution(out["execution_id"])
    assert state is not None
    assert [(e.seq, e.connector, e.method, e.state) for e in state.log] == [
        (0, "shop", "list_items", "applied"),
        (1, "codemode.step", "s", "applied"),
        (2, "shop", "get_item", "applied"),
    ]
    assert state.log[2].args == {"item_id": 1}
    assert state.log[2].result == {"id": 1, "title": "first"}


async def test_single_dict_positional_argument(make_runtime: RuntimeFactory) -> None:
    """A method accepts one dict of arguments instead of keywords."""
    rt = make_runtime([Shop()])
    out = await rt.execute("shop.get_item({'item_id': 1})['title']")
    assert out["result"] == "first"


async def test_connector_error_is_catchable(make_runtime: RuntimeFactory) -> None:
    """A connector failure is an ordinary exception inside the code, and is journaled as an error."""
    rt = make_runtime([Shop()])
    out = await rt.execute("try:\n    shop.get_item(item_id=9)\nexcept ConnectorError as e:\n    msg = str(e)\nmsg")
    assert out["status"] == "completed"
    assert "no item 9" in out["result"]
    state = await rt.execution(out["execution_id"])
    assert state is not None and state.log[0].state == "error"


async def test_uncaught_connector_error_fails_the_execution(make_runtime: RuntimeFactory) -> None:
    """It is an error if a connector failure is not caught; the message names it."""
    rt = make_runtime([Shop()])
    out = await rt.execute("shop.get_item(item_id=9)")
    assert out["status"] == "error"
    assert out["error_type"] == "ConnectorError"
    assert "no item 9" in out["error"]
    assert (await rt.execution(out["execution_id"])).status == "error"  # type: ignore[union-attr]


async def test_syntax_error_has_line_number(make_runtime: RuntimeFactory) -> None:
    """It is an error if the code does not parse; the message gives the line."""
    rt = make_runtime([Shop()])
    out = await rt.execute("x = 1\ny = (2 +\n")
    assert out["status"] == "error"
    assert out["error_type"] == "SyntaxError"
    assert out["line"] in (2, 3) and out["error"].endswith(f"(line {out['line']})"), out


async def test_all_restricted_violations_reported_at_once(make_runtime: RuntimeFactory) -> None:
    """Every RestrictedPython violation is reported, each with its line."""
    rt = make_runtime([Shop()])
    out = await rt.execute("a = _secret\nb = shop.__class__\nasync def f():\n    pass\n")
    assert out["status"] == "error"
    assert out["error_type"] == "SandboxViolation"
    for line in ("Line 1", "Line 2", "Line 3"):
        assert line in out["error"]
    assert "'_'" in out["error"]


async def test_undefined_name_lists_globals(make_runtime: RuntimeFactory) -> None:
    """Using an undefined name says which globals exist."""
    rt = make_runtime([Shop()])
    out = await rt.execute("github.list()")
    assert out["error_type"] == "NameError"
    assert "github" in out["error"] and "shop" in out["error"] and "codemode" in out["error"]
    assert out["line"] == 1


async def test_unknown_method_suggests_search(make_runtime: RuntimeFactory) -> None:
    """An unknown method names the connector and suggests codemode.search."""
    rt = make_runtime([Shop()])
    out = await rt.execute("shop.list_pull_requests()")
    assert out["status"] == "error"
    assert "shop" in out["error"] and "list_pull_requests" in out["error"]
    assert "codemode.search" in out["error"]


async def test_invalid_arguments_name_the_field_and_skip_the_connector(make_runtime: RuntimeFactory) -> None:
    """Arguments are validated against the input schema on the host; the connector is not called."""
    shop = Shop()
    rt = make_runtime([shop])
    out = await rt.execute("shop.get_item(item_id='one')")
    assert out["status"] == "error"
    assert out["error_type"] == "ArgumentError"
    assert "shop.get_item" in out["error"] and "item_id" in out["error"]
    assert shop.calls["get_item"] == 0
    out = await rt.execute("shop.get_item()")
    assert "item_id" in out["error"] and shop.calls["get_item"] == 0
    out = await rt.execute("shop.get_item(item_id=1, colour='red')")
    assert "colour" in out["error"] and shop.calls["get_item"] == 0


async def test_unserializable_argument_fails_execution(make_runtime: RuntimeFactory) -> None:
    """It is an error to pass a value the codec cannot carry; the message names the type and remedy."""
    shop = Shop()
    rt = make_runtime([shop])
    out = await rt.execute("try:\n    shop.create_item(title={1, 2})\nexcept BaseException:\n    pass\n'swallowed'")
    assert out["status"] == "error"
    assert "set" in out["error"] and "Convert" in out["error"]
    assert shop.calls["create_item"] == 0


async def test_unserializable_result_fails_execution(make_runtime: RuntimeFactory) -> None:
    """It is an error if the final result cannot be returned as data."""
    rt = make_runtime([Shop()])
    out = await rt.execute("{1, 2}")
    assert out["status"] == "error"
    assert "set" in out["error"]


async def test_oversized_argument_fails_execution(make_runtime: RuntimeFactory) -> None:
    """Replay values over 1,000,000 characters fail the execution with advice; nothing is truncated."""
    shop = Shop()
    rt = make_runtime([shop])
    out = await rt.execute("shop.add_item(title='x' * 1_000_001)")
    assert out["status"] == "error"
    assert "1,000,000" in out["error"] and "reference" in out["error"]
    assert shop.calls["create_item"] == 0


async def test_oversized_result_of_a_call_fails_execution(make_runtime: RuntimeFactory) -> None:
    """A connector result too large to store for replay fails the execution."""
    shop = Shop()
    rt = make_runtime([shop])
    out = await rt.execute("shop.add_item(title='x' * 999_970)\nshop.list_items()")
    assert out["status"] == "error"
    assert out["error_type"] == "ValueTooLarge"


async def test_oversized_code_is_refused(make_runtime: RuntimeFactory) -> None:
    """Code over the size limit is an error with an execution id, and the store stays usable."""
    rt = make_runtime([Shop()])
    out = await rt.execute("x = 1\n" + "#" * 1_000_001)
    assert out["status"] == "error" and out["execution_id"]
    assert "limit" in out["error"]
    assert (await rt.execute("1 + 1"))["result"] == 2


async def test_inputs_become_globals_and_variables_come_back(make_runtime: RuntimeFactory) -> None:
    """Carried-over inputs are globals; capture_variables returns new serializable top-level names."""
    rt = make_runtime([Shop()])
    out = await rt.execute("y = x * 2\nf = lambda: 1\nz = {1}\ny", inputs={"x": 21}, capture_variables=True)
    assert out["result"] == 42
    assert out["variables"]["y"] == 42
    assert "f" not in out["variables"] and "z" not in out["variables"]


async def test_errors_never_escape(make_runtime: RuntimeFactory) -> None:
    """Runtime failures come back as status error, never as exceptions to the caller."""
    rt = make_runtime([Shop()])
    for code in ["1/0", "raise SystemExit(3)", "raise KeyboardInterrupt", "def f():\n    return f()\nf()",
                 "import os", "open('/etc/passwd')", "eval('1')"]:
        out = await rt.execute(code)
        assert out["status"] == "error", code
        assert out["error"]
