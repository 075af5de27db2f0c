"""create_code_tool: a code tool that runs each program once, keeps no journal and never pauses."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import Connector, InProcessExecutor, ToolSetConnector, create_code_tool, truncate
from codemode_kernel.executor.isolated import SubprocessExecutor
from tests.conftest import make_executor

pytestmark = pytest.mark.anyio


class Shop:
    """Counts every call, so a test can prove what ran and how often."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def connector(self) -> ToolSetConnector:
        def list_items(tag: str = "") -> list[dict[str, Any]]:
            """List the items of the shop, optionally those with a tag."""
            self.calls.append(("list_items", tag))
            return [{"id": 1, "name": "pen", "tags": ["office"]}, {"id": 2, "name": "mug", "tags": ["kitchen"]}]

        def delete_item(item_id: int) -> bool:
            """Delete an item."""
            self.calls.append(("delete_item", item_id))
            return True

        def fail(reason: str) -> None:
            """Always fails."""
            self.calls.append(("fail", reason))
            raise RuntimeError(f"the shop is closed: {reason}")

        return ToolSetConnector([list_items, delete_item, fail], name="shop", instructions="A small shop.",
                                requires_approval={"delete_item"})


@pytest.fixture(params=["inprocess", "subprocess"])
def executor(request: pytest.FixtureRequest) -> Iterator[Any]:
    yield make_executor(request.param)


async def test_a_program_runs_once_and_answers_result_and_logs(executor: Any) -> None:
    """The result is the last expression, printed lines are logs, each call ran once; the output is plain JSON."""
    shop = Shop()
    tool = create_code_tool([shop.connector()], executor=executor)
    out = await tool.call("items = shop.list_items(tag='office')\nprint(len(items), 'item(s)')\n"
                          "[i['name'] for i in items]")
    assert out == {"result": ["pen", "mug"], "logs": ["2 item(s)"]}
    assert json.loads(json.dumps(out)) == out
    assert shop.calls == [("list_items", "office")]
    await tool.aclose()


async def test_the_tool_has_the_seed_shape() -> None:
    """Name, a description listing connectors (never methods), ``{code: string}`` in, result and logs out."""
    tool = create_code_tool([Shop().connector()], executor=InProcessExecutor(), description="Run shop programs.")
    assert tool.name == "codemode"
    assert tool.input_schema["required"] == ["code"] and tool.input_schema["properties"]["code"]["type"] == "string"
    assert set(tool.output_schema["properties"]) >= {"result", "logs"}
    assert tool.description.startswith("Run shop programs.")
    assert "- shop: A small shop." in tool.description
    assert "list_items" not in tool.description and "delete_item" not in tool.description


async def test_a_method_that_requires_approval_is_refused_and_never_runs(executor: Any) -> None:
    """No journal, no pause: the call is refused as an error naming the method, even if the code catches it."""
    shop = Shop()
    tool = create_code_tool([shop.connector()], executor=executor)
    code = ("print('before')\ntry:\n    shop.delete_item(item_id=1)\nexcept BaseException:\n    pass\n"
            "shop.list_items()\n'done'")
    out = await tool.call(code)
    assert out["error_type"] == "ApprovalRequired"
    assert "shop.delete_item needs a person's approval" in out["error"] and "was not called" in out["error"]
    assert out["logs"] == ["before"] and "result" not in out
    assert [c[0] for c in shop.calls] == []  # neither the refused call nor anything after it
    await tool.aclose()


async def test_nothing_is_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No store is opened: running programs leaves no journal file behind, and each call starts afresh."""
    monkeypatch.chdir(tmp_path)
    tool = create_code_tool([Shop().connector()], executor=InProcessExecutor())
    assert (await tool.call("x = 1\nx"))["result"] == 1
    assert (await tool.call("x"))["error_type"] == "NameError"
    assert os.listdir(tmp_path) == []


async def test_arguments_are_checked_on_the_host_before_the_connector_runs() -> None:
    """A schema violation is an exception the code can catch; the connector is not called."""
    shop = Shop()
    tool = create_code_tool([shop.connector()], executor=InProcessExecutor())
    out = await tool.call("try:\n    shop.list_items(tag=5)\nexcept Exception as e:\n    r = str(e)\nr")
    assert "shop.list_items" in out["result"] and "tag" in out["result"] and "not called" in out["result"]
    assert shop.calls == []


async def test_a_connector_error_is_an_ordinary_exception_in_the_code() -> None:
    """The code may catch it; uncaught, the output is an error with its type and message."""
    shop = Shop()
    tool = create_code_tool([shop.connector()], executor=InProcessExecutor())
    caught = await tool.call("try:\n    shop.fail(reason='x')\nexcept Exception as e:\n    m = str(e)\nm")
    assert "the shop is closed: x" in caught["result"]
    out = await tool.call("shop.fail(reason='y')")
    assert out["error_type"] == "ConnectorError" and "RuntimeError: the shop is closed: y" in out["error"]
    assert shop.calls == [("fail", "x"), ("fail", "y")]


async def test_discovery_works_and_snippets_say_they_need_a_durable_runtime() -> None:
    """codemode.search and codemode.describe answer over the connectors; codemode.run returns an error dict."""
    tool = create_code_tool([Shop().connector()], executor=InProcessExecutor())
    out = await tool.call("[r['path'] for r in codemode.search('list the items in the shop')['results']][:1]")
    assert out["result"] == ["shop.list_items"]
    described = await tool.call("codemode.describe('shop.list_items')['types']")
    compile(described["result"], "<describe>", "exec")
    assert "def list_items(" in described["result"]
    ran = await tool.call("codemode.run('anything', {})")
    assert "durable runtime" in ran["result"]["error"]
    assert (await tool.call("codemode.step('now', lambda: 41) + 1"))["result"] == 42


async def test_plain_functions_are_grouped_as_the_tools_connector() -> None:
    """Functions passed directly become methods of the global ``tools``."""
    def double(n: int) -> int:
        """Double a number."""
        return 2 * n

    tool = create_code_tool([double], executor=InProcessExecutor())
    assert (await tool.call("tools.double(n=21)"))["result"] == 42
    assert "- tools" in tool.description


async def test_values_that_are_not_json_come_back_as_plain_json() -> None:
    """Bytes, tuples and datetimes in a result are turned into JSON (the model reads JSON)."""
    tool = create_code_tool([], executor=InProcessExecutor())
    out = await tool.call("import datetime\n[b'\\x00', (1, 2), datetime.date(2026, 1, 2)]")
    assert out["result"] == [{"$bytes": "AA=="}, [1, 2], "2026-01-02"]


async def test_transform_result_reshapes_what_the_model_receives() -> None:
    """``truncate`` as the transform: a long result is cut with a note saying so."""
    shorter = functools.partial(truncate, max_chars=60)
    tool = create_code_tool([], executor=InProcessExecutor(), transform_result=shorter)
    out = await tool.call("'x' * 1000")
    assert len(out["result"]) <= 60 and "truncated" in out["result"] and "of 1,000 characters" in out["result"]


async def test_errors_are_data_never_raised() -> None:
    """A syntax error, a forbidden construct and a non-string code are error outputs."""
    tool = create_code_tool([], executor=InProcessExecutor())
    assert (await tool.call("def ("))["error_type"] == "SyntaxError"
    assert "error" in await tool.call("open('/etc/passwd').read()")
    assert (await tool.call(123))["error_type"] == "TypeError"  # type: ignore[arg-type]


def test_bad_tools_are_refused_when_the_tool_is_built() -> None:
    """Something that is neither a connector nor a function, or two connectors with one name, is refused."""
    from codemode_kernel.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="neither a Connector nor a function"):
        create_code_tool(["shop"])  # type: ignore[list-item]
    with pytest.raises(ConfigurationError, match="two connectors are named 'shop'"):
        create_code_tool([Shop().connector(), Shop().connector()])


class Unreachable(Connector):
    name = "down"

    async def tools(self) -> Any:
        raise ConnectionError("no route to host")


async def test_an_unavailable_connector_is_named_in_the_error() -> None:
    """A connector whose tools cannot be listed is left out; using it says it is unavailable, with the
    connector's own short summary only: the catalog's reason is the author's (review 15, H2)."""
    tool = create_code_tool([Unreachable(), Shop().connector()], executor=InProcessExecutor())
    out = await tool.call("down.anything()")
    assert out["error_type"] == "NameError" and "connector 'down' is unavailable" in out["error"], out
    assert "no route to host" not in out["error"]
    assert (await tool.call("len(shop.list_items())"))["result"] == 2


async def test_the_default_executor_is_isolated() -> None:
    """Without an executor the tool starts the isolated subprocess executor; the program cannot see the host."""
    tool = create_code_tool([])
    out = await tool.call("import os")
    assert "error" in out
    assert isinstance(tool_executor(tool), SubprocessExecutor)
    await tool.aclose()


def tool_executor(tool: Any) -> Any:
    runner = tool.call.__self__  # the bound method of the tool's runner
    return runner.executor


class Sessions(Connector):
    """Opens a resource per execution and records the lifecycle hooks it receives."""

    name = "browser"

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.events: list[tuple[str, str, str]] = []

    def tools(self) -> Any:
        from codemode_kernel import tool

        def open_page(url: str, ctx: Any) -> str:
            """Open a page in this execution's session."""
            self.opened.append(ctx.execution_id)
            return f"opened {url}"

        return {"open_page": tool(open_page)}

    async def on_pass_end(self, execution_id: str, status: Any) -> None:
        self.events.append(("pass_end", execution_id, status))

    async def dispose_execution(self, execution_id: str, status: Any) -> None:
        self.events.append(("dispose", execution_id, status))


async def test_each_program_ends_its_execution_for_the_connectors() -> None:
    """on_pass_end then dispose_execution run once after each program, with the id its calls carried."""
    sessions = Sessions()
    tool = create_code_tool([sessions], executor=InProcessExecutor())
    assert (await tool.call("browser.open_page(url='a')"))["result"] == "opened a"
    assert "error" in await tool.call("browser.open_page(url='b')\n1/0")
    first, second = sessions.opened
    assert first != second
    assert sessions.events == [("pass_end", first, "completed"), ("dispose", first, "completed"),
                               ("pass_end", second, "error"), ("dispose", second, "error")]
