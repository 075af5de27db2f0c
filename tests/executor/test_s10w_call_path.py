"""The sandbox's side of a connector call, made shorter (issue 12, s10w): same lines, same outcomes.

- ``language._guarded_getattr`` reads a connector proxy's attributes the short way
  (``PLAIN_ATTRIBUTE_TYPES``); every name gives what RestrictedPython's path gives;
- ``ConnectorProxy.__getattribute__`` answers a made method proxy first; nothing else changes;
- ``worker.dumps_line`` keeps one C encoder: a message refused half-way leaves nothing behind;
- ``PipeChannel`` writes its lines with ``os.write``, whole even when a write is partial;
- ``_Session.call`` sends the request ``ask`` sent, byte for byte.
"""

from __future__ import annotations

import math
import os
from typing import Any

import pytest

from codemode_kernel import codec
from codemode_kernel.executor import language
from codemode_kernel.executor.language import _guarded_getattr, compile_cell
from codemode_kernel.executor.sandbox import ConnectorProxy, MethodProxy, _Session, run_pass
from codemode_kernel.executor.worker import PipeChannel, dumps_line, loads_line


class _Recorder:
    """A channel that records each request's line and answers with ``{"value": seq}``."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.lines.append(dumps_line(message))
        return {"value": len(self.lines)}

    def notify(self, message: dict[str, Any]) -> None:
        self.lines.append(dumps_line(message))


def _connector(methods: frozenset[str] = frozenset({"ping", "name_of"})) -> ConnectorProxy:
    return ConnectorProxy(_Session(_Recorder(), {"bench": sorted(methods)}, 1000, 10), "bench", methods)


def _outcome(fn: Any, *args: Any) -> tuple[str, Any]:
    try:
        value = fn(*args)
    except Exception as exc:  # the guard's refusals are the outcomes compared here
        return type(exc).__name__, str(exc)
    if isinstance(value, MethodProxy):
        return "method", (value.connector, value.method)
    return "value", value


NAMES: list[Any] = ["ping", "name_of", "pong", "name", "_codemode_session", "_codemode_made", "__class__",
                    "__dict__", "__getattribute__", "f_globals", "gi_frame", "tb_frame", "format", "mro", 1, None]


@pytest.mark.parametrize("name", NAMES)
def test_the_short_way_reads_a_connector_as_the_guard_did(name: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every attribute name read from a connector proxy gives the value or the error the full guard
    gives, on the first read and once the method's proxy is made."""
    assert ConnectorProxy in language.PLAIN_ATTRIBUTE_TYPES
    fast, slow = _connector(), _connector()
    for _ in range(2):
        got = _outcome(_guarded_getattr, fast, name)
        with monkeypatch.context() as patch:
            patch.setattr(language, "PLAIN_ATTRIBUTE_TYPES", set())
            want = _outcome(_guarded_getattr, slow, name)
        assert got == want


def test_a_made_method_proxy_changes_no_other_attribute() -> None:
    """Once ``ping``'s proxy is made, it is the same object on every read; the connector's name, its
    read-only rule and its refusals of unknown methods stay as they were."""
    connector = _connector()
    first = connector.ping
    assert connector.ping is first and _guarded_getattr(connector, "ping") is first
    assert connector.name == "bench"
    assert type(connector) is ConnectorProxy and isinstance(connector, ConnectorProxy)
    with pytest.raises(AttributeError, match="read-only"):
        connector.ping = None
    with pytest.raises(AttributeError, match=r"has no method 'pong'"):
        _ = connector.pong


def test_cell_code_reaches_nothing_private_through_a_connector() -> None:
    """From cell code, getattr with a private or inspect name on a connector is still refused."""
    for name in ("_codemode_session", "_codemode_made", "__class__", "f_globals"):
        done = run_pass(f"getattr(bench, {name!r})", {"bench": ["ping"]}, {}, _Recorder(), capture_variables=False)
        assert done["error"]["type"] == "AttributeError", done
    done = run_pass("getattr(bench, 'ping', None) is not None", {"bench": ["ping"]}, {}, _Recorder())
    assert done.get("result") is True, done


def test_a_call_sends_the_request_ask_sent() -> None:
    """A connector call's request line is ``{"op":"call","connector","method","args","replayed"}`` in that
    order, as before; its value comes back decoded; an encoding error names the arguments."""
    channel = _Recorder()
    done = run_pass("x = bench.ping(i=1, t=(1, 2))\ny = bench.ping({'k': 'v'})\n[x, y]", {"bench": ["ping"]}, {},
                    channel, capture_variables=False)
    assert done["result"] == [1, 2], done
    assert channel.lines == [
        b'{"op":"call","connector":"bench","method":"ping","args":{"i":1,"t":{"$codemode":"tuple","v":[1,2]}},'
        b'"replayed":0}\n',
        b'{"op":"call","connector":"bench","method":"ping","args":{"k":"v"},"replayed":0}\n']
    done = run_pass("bench.ping(s={1})", {"bench": ["ping"]}, {}, _Recorder(), capture_variables=False)
    assert done["error"]["type"] == "CodecError"
    assert "the arguments of bench.ping" in done["error"]["message"]


def test_a_message_refused_half_way_leaves_nothing_behind() -> None:
    """A message the encoder refuses inside some containers (a NaN, an object, a cycle) leaves none of
    them marked as being encoded: once mended, the same containers encode in the next message (the C
    encoder does not unmark the containers it was in when it failed; fails without the clear)."""
    loop: list[Any] = []
    loop.append(loop)
    for bad in (math.nan, object(), loop):
        inner: dict[str, Any] = {"k": [2], "bad": bad}
        holder: dict[str, Any] = {"a": [1, inner]}
        with pytest.raises((ValueError, TypeError)):
            dumps_line({"op": "x", "h": holder})
        inner["bad"] = None
        assert dumps_line({"op": "y", "h": holder}) == b'{"op":"y","h":{"a":[1,{"k":[2],"bad":null}]}}\n'


def test_a_partial_pipe_write_is_finished(monkeypatch: pytest.MonkeyPatch) -> None:
    """A write the kernel takes in part (a signal in the middle) is continued until the line is whole."""
    read_end, write_end = os.pipe()
    real_write = os.write

    def dribble(fd: int, data: Any) -> int:
        return real_write(fd, bytes(data[:3]))

    with os.fdopen(read_end, "rb") as reader, os.fdopen(write_end, "wb") as writer:
        channel = PipeChannel(reader, writer)
        monkeypatch.setattr(os, "write", dribble)
        channel.notify({"op": "output", "text": "a line of some length"})
        monkeypatch.setattr(os, "write", real_write)
        assert loads_line(reader.readline()) == {"op": "output", "text": "a line of some length"}


def test_compile_is_unchanged_for_attribute_reads() -> None:
    """The short way is the guard's: a cell still compiles ``conn.method`` to a ``_getattr_`` call."""
    code = compile_cell("bench.ping(i=1)")
    assert "_getattr_" in code.co_names


CANONICAL_VALUES: list[Any] = [
    {"b": 1, "a": [{"z": 1, "y": "é\u2028\"\\"}], "c": 1.5e300, "d": None, "e": 10**30, "f": -0.0, "g": True},
    {"$codemode": "tuple", "v": [1, {"b": 2, "a": 1}]},
    {},
    [{"b": 1, "a": 2}],
    "text",
    7,
    None,
]


@pytest.mark.parametrize("value", CANONICAL_VALUES)
def test_the_pass_canonical_text_is_the_codec_s(value: Any) -> None:
    """The session's canonical form of encoded arguments is ``codec.canonical_encoded``'s, byte for byte."""
    session = _Session(_Recorder(), {}, 1000, 10)
    assert session.canonical(value) == codec.canonical_encoded(value)
    assert session.canonical(value) == codec.canonical_encoded(value)


def test_a_canonical_text_refused_half_way_leaves_nothing_behind() -> None:
    """A value refused inside some containers leaves none of them marked for the pass's next one."""
    session = _Session(_Recorder(), {}, 1000, 10)
    inner: dict[str, Any] = {"k": [2], "bad": math.inf}
    holder: dict[str, Any] = {"a": [1, inner]}
    with pytest.raises(ValueError, match="Out of range"):
        session.canonical({"h": holder})
    inner["bad"] = None
    assert session.canonical({"h": holder}) == '{"h":{"a":[1,{"bad":null,"k":[2]}]}}'


def test_local_replay_matches_by_canonical_arguments() -> None:
    """A recorded call is replayed in the sandbox when its arguments are the same whatever their order;
    the first call that differs goes to the host, and so does every one after it."""
    plan = [{"c": "bench", "m": "ping", "a": '{"a":1,"b":[2]}', "v": "first"},
            {"c": "bench", "m": "ping", "a": '{"a":2}', "v": "second"},
            {"c": "bench", "m": "ping", "a": '{"a":3}', "v": "third"}]
    channel = _Recorder()
    done = run_pass("[bench.ping(b=[2], a=1), bench.ping(a=5), bench.ping(a=3)]", {"bench": ["ping"]}, {},
                    channel, capture_variables=False, replay=plan)
    assert done["result"] == ["first", 1, 2], done
    assert channel.lines == [b'{"op":"call","connector":"bench","method":"ping","args":{"a":5},"replayed":1}\n',
                             b'{"op":"call","connector":"bench","method":"ping","args":{"a":3},"replayed":1}\n']
