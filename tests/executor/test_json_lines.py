"""The pipe's framing (worker.dumps_line / loads_line): strict JSON lines, whatever path parses them.

Both functions call the json module's C encoder and scanner directly (issue 12); these specs hold
them to what ``json.JSONEncoder`` / ``json.JSONDecoder`` with the protocol's options decide, for
the lines an honest sandbox sends and for hostile ones.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from codemode_kernel import codec
from codemode_kernel.executor.sandbox import ConnectorProxy, _Session
from codemode_kernel.executor.worker import dumps_line, loads_line

HOSTILE_LINES = [
    b'{"op":"call","connector":"a","method":"b","args":{"i":1},"replayed":0}\n',
    b' {"op":"x"}\n',                 # whitespace before the document
    b'{"op":"x"} \t\r\n',             # and after it
    b'{"op":"x"}\n\n',
    b'{"op":"x"} {"op":"y"}\n',       # two documents on one line
    b'{"op":"x"}{"op":"y"}\n',
    b'{"op":"x"}\n \x00',
    b'\n',
    b'',
    b'x',
    b'{"op":"x"',
    b'[1,]\n',
    b'NaN\n',
    b'{"v":Infinity}\n',
    b'{"v":-Infinity}\n',
    b'"\\ud800"\n',
    b'\xff\n',
    b'{"a":1,"a":2}\n',
    b'1e400\n',
]


def _outcome(parse: Any, line: bytes) -> tuple[str, Any]:
    try:
        return "value", parse(line)
    except RecursionError:
        return "RecursionError", None
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return type(exc).__name__, str(exc)


def _reference_loads(line: bytes) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not strict JSON")

    return json.JSONDecoder(parse_constant=refuse).decode(line.decode("utf-8"))


@pytest.mark.parametrize("line", [*HOSTILE_LINES, b"[" * 100_000 + b"]" * 100_000])
def test_a_line_parses_as_the_json_module_decides(line: bytes) -> None:
    """A line gives the value, or the error (type and message), that JSONDecoder.decode gives."""
    assert _outcome(loads_line, line) == _outcome(_reference_loads, line)


def test_a_line_with_anything_after_its_document_is_refused() -> None:
    """It is an error if a line holds more than one JSON document."""
    with pytest.raises(json.JSONDecodeError, match="Extra data"):
        loads_line(b'{"op":"done"} {"op":"call"}\n')


def test_nan_and_infinity_are_refused() -> None:
    """It is an error if a line holds NaN or Infinity, wherever they are."""
    for line in (b"NaN\n", b'{"args":{"x":[Infinity]}}\n'):
        with pytest.raises(ValueError, match="not strict JSON"):
            loads_line(line)


def _reference_dumps(message: Any) -> bytes:
    text = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode(message)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8") + b"\n"


def _cycle() -> dict[str, Any]:
    loop: dict[str, Any] = {}
    loop["self"] = [loop]
    return {"op": "call", "args": loop}


MESSAGES: list[Any] = [
    {"op": "call", "connector": "a", "method": "b", "args": {"i": 1, "f": 1.5, "s": "é\u2028\"\\\n", "n": None,
                                                             "t": True, "l": [1, 2.0, {}]}, "replayed": 0},
    {"value": "\ud800 lone surrogate"},
    {"value": math.nan},
    {"value": [math.inf]},
    {"value": object()},
    {1: "int key", None: "null key", 1.5: "float key", False: "bool key"},
    {("tuple",): "key"},
    {"value": 10**40, "z": -0.0, "e": 1e300},
    _cycle(),
    [1, 2],                      # not a dict: the encoder's own path
    "text",
]


@pytest.mark.parametrize("message", MESSAGES)
def test_a_message_serializes_as_the_json_module_decides(message: Any) -> None:
    """A message gives the bytes, or the error, that JSONEncoder with the protocol's options gives."""
    def outcome(dump: Any) -> tuple[str, Any]:
        try:
            return "line", dump(message)
        except (TypeError, ValueError) as exc:
            return type(exc).__name__, str(exc)

    assert outcome(dumps_line) == outcome(_reference_dumps)


def test_a_cyclic_message_is_refused_every_time() -> None:
    """It is an error if a message refers to itself; a refused one leaves nothing behind for the next."""
    for _ in range(3):
        with pytest.raises(ValueError, match="Circular reference"):
            dumps_line(_cycle())
        assert dumps_line({"op": "ok", "v": [1]}) == b'{"op":"ok","v":[1]}\n'


class _NoChannel:
    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        raise AssertionError("no request expected")

    def notify(self, message: dict[str, Any]) -> None:
        raise AssertionError("no output expected")


def test_a_method_proxy_made_once_stays_read_only_and_unknown_methods_still_fail() -> None:
    """A connector's method proxies are kept after their first use (issue 12): still read-only, and a
    method the pass was not given is still an AttributeError that lists the methods."""
    connector = ConnectorProxy(_Session(_NoChannel(), {"bench": ["ping"]}, 1000, 10), "bench",
                               frozenset({"ping"}))
    first = connector.ping
    assert connector.ping is first
    with pytest.raises(AttributeError, match="read-only"):
        first.method = "pong"
    assert first.method == "ping"
    for _ in range(2):
        with pytest.raises(AttributeError, match=r"has no method 'pong'\. Its methods: ping"):
            _ = connector.pong


@pytest.mark.parametrize("value", [*MESSAGES, {"b": 1, "a": {"d": [2, {"c": 3}], "c": 4}}, {"b": 1, 2: "mixed keys"},
                                   [{"z": 1, "a": 2}], 7, None, 1.5, math.nan])
def test_the_codec_serializes_and_canonicalizes_as_the_json_module_decides(value: Any) -> None:
    """codec.dumps_encoded and codec.canonical_encoded (sorted keys) give what JSONEncoder with the
    same options gives: the same text, or the same error."""
    def outcome(dump: Any) -> tuple[str, Any]:
        try:
            return "text", dump(value)
        except (TypeError, ValueError) as exc:
            return type(exc).__name__, str(exc)

    options: dict[str, Any] = {"ensure_ascii": False, "separators": (",", ":"), "allow_nan": False}
    assert outcome(codec.dumps_encoded) == outcome(json.JSONEncoder(**options).encode)
    assert outcome(codec.canonical_encoded) == outcome(json.JSONEncoder(sort_keys=True, **options).encode)
