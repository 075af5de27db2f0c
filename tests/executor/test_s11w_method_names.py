"""Every method name a connector can have reaches its method (s11w).

A connector's methods are identifiers that do not start with ``_`` (``connectors.base.sanitize_identifier``
makes MCP tool names and OpenAPI operationIds so). The connector proxy in the sandbox also has a public
attribute of its own, the connector's name: a method literally called ``name`` must still be the method,
and on a connector without such a method ``conn.name`` stays the connector's name.
"""

from __future__ import annotations

from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from codemode_kernel.executor.language import _guarded_getattr
from codemode_kernel.executor.sandbox import ConnectorProxy, MethodProxy, _Session, run_pass

NAME_READ = "conn.name"
NAME_GETATTR = "getattr(conn, 'name')"


class _Recorder:
    """A channel that records each request and answers every call with the method it named."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(message)
        return {"value": f"called {message.get('method')}"}

    def notify(self, message: dict[str, Any]) -> None:
        pass


def _proxy_attributes() -> list[str]:
    """The names the proxy answers by itself (its slots and its class's attributes) that a method may have."""
    names = set(dir(ConnectorProxy)) | set(ConnectorProxy.__slots__)
    return sorted(n for n in names if not n.startswith("_"))


def _pass(code: str, methods: list[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    channel = _Recorder()
    done = run_pass(code, {"conn": methods}, {}, channel, capture_variables=False)
    return done, channel.requests


def test_a_method_called_name_is_called() -> None:
    """``conn.name(x=1)`` calls the connector's method ``name`` with its arguments and returns its value."""
    done, requests = _pass("conn.name(x=1)", ["name", "ping"])
    assert done.get("error") is None, done
    assert done["result"] == "called name"
    assert [(r["op"], r["connector"], r["method"], r["args"]) for r in requests] == [("call", "conn", "name", {"x": 1})]


@pytest.mark.parametrize("code", [NAME_READ, NAME_GETATTR])
def test_a_method_called_name_is_a_method_proxy_however_it_is_read(code: str) -> None:
    """Read as an attribute or through getattr, ``name`` is the method's proxy, not the connector's name."""
    done, requests = _pass(f"m = {code}\n[repr(m), m(a=2)]", ["name"])
    assert done.get("error") is None, done
    assert done["result"] == ["<method conn.name>", "called name"]
    assert [r["method"] for r in requests] == ["name"]


@pytest.mark.parametrize("attribute", _proxy_attributes())
def test_no_attribute_of_the_proxy_shadows_a_method_of_that_name(attribute: str) -> None:
    """Whatever public attribute the proxy has, a method of the same name is reached instead (first read and later)."""
    proxy = ConnectorProxy(_Session(_Recorder(), {"bench": [attribute]}, 1000, 10), "bench", frozenset({attribute}))
    for _ in range(2):
        got = _guarded_getattr(proxy, attribute)
        assert isinstance(got, MethodProxy), got
        assert (got.connector, got.method) == ("bench", attribute)
        assert got(v=1) == f"called {attribute}"


@pytest.mark.parametrize("code", [NAME_READ, NAME_GETATTR])
def test_without_such_a_method_name_is_the_connector_s_name(code: str) -> None:
    """A connector with no method ``name`` answers ``conn.name`` with its own name, as before."""
    done, requests = _pass(code, ["ping"])
    assert done.get("error") is None, done
    assert done["result"] == "conn"
    assert requests == []


def test_the_connector_proxy_s_other_behaviour_is_unchanged() -> None:
    """Its repr, dir, read-only rule and refusal of unknown methods are what they were."""
    for methods in (frozenset({"name", "ping"}), frozenset({"ping"})):
        proxy = ConnectorProxy(_Session(_Recorder(), {"conn": sorted(methods)}, 1000, 10), "conn", methods)
        assert repr(proxy) == "<connector conn>"
        assert dir(proxy) == sorted(methods)
        for attribute in ("name", "ping"):
            with pytest.raises(AttributeError, match="connectors are read-only"):
                setattr(proxy, attribute, 1)
        with pytest.raises(AttributeError, match=r"connector 'conn' has no method 'pong'\. Its methods: "):
            _guarded_getattr(proxy, "pong")
    done, _ = _pass("repr(conn)", ["name"])
    assert done["result"] == "<connector conn>"


def name(text: str) -> str:
    """A tool whose name is ``name``."""
    return f"named {text}"


def ping() -> str:
    """A second tool."""
    return "pong"


@pytest.mark.anyio
async def test_a_tool_called_name_runs_through_the_runtime(make_runtime: Any) -> None:
    """Through the runtime, with either executor, ``tools.name(...)`` runs the tool ``name``."""
    rt = make_runtime([ToolSetConnector([name, ping], name="tools")])
    out = await rt.execute("[tools.name(text='x'), tools.ping(), getattr(tools, 'name')(text='y')]")
    assert out["status"] == "completed", out
    assert out["result"] == ["named x", "pong", "named y"]


@pytest.mark.anyio
async def test_a_connector_s_name_is_still_read_through_the_runtime(make_runtime: Any) -> None:
    """Through the runtime, with either executor, a connector with no ``name`` method reads as its name."""
    rt = make_runtime([ToolSetConnector([ping], name="tools")])
    out = await rt.execute("tools.name")
    assert out["status"] == "completed", out
    assert out["result"] == "tools"

