"""The host side of a pass is never fooled or stalled by what the sandbox sends (issue 10, items 2, 3, 4, 8).

Classes pinned here, each through the runtime on both executors where it applies, and with a
tampered worker (a real process speaking the pipe protocol maliciously) where only a broken-out
worker could send the input:

- host failures: any exception while the host answers a request (validation that overflows or
  recurses, a handler bug) and any malformed ``done`` end the execution as ``error``, whatever the
  worker says next; ``execute()`` never raises and nothing stays ``running``;
- regex cost: ``pattern``/``patternProperties`` run in linear time (RE2), ``uniqueItems`` in
  linear time; a pattern RE2 cannot run refuses the call instead of running a backtracking engine;
- type confusion: ``bytes``/``date``/``datetime``/``tuple`` are not strings unless the schema says so;
- resource edges: every output message counts against the output limit, oversized requests are
  refused before they are read whole, decoded or validated, echoed errors are capped, and an
  oversized query or step name is a clear error, not a crashed worker.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, Connector, ExecutionContext, InProcessExecutor, Tool, ToolSetConnector
from codemode_kernel.executor.inprocess import InProcessLimits
from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from tests.conftest import EXECUTOR_KINDS
from tests.executor.isolated_support import RecordingHost, tampered_executor
from tests.support import json_service

pytestmark = pytest.mark.anyio


class Bank(Connector):
    """One method, ``pay``, with the input schema under test; it records what it received."""

    name = "bank"
    target = "the test's bank"  # every Bank of a test acts on one backend (two runtimes, one journal)

    def __init__(self, schema: Mapping[str, Any], *, approval: bool = False) -> None:
        self.schema = schema
        self.approval = approval
        self.received: list[dict[str, Any]] = []

    def _pay(self, args: dict[str, Any], ctx: ExecutionContext) -> str:
        self.received.append(args)
        return "paid"

    def tools(self) -> dict[str, Tool]:
        return {"pay": Tool(self._pay, description="Pay someone.", input_schema=self.schema,
                            requires_approval=self.approval)}


def _executor(kind: str, *, timeout: float = 60, max_output_chars: int = 1_000_000, max_calls: int = 10_000) -> Any:
    if kind == "inprocess":
        return InProcessExecutor(InProcessLimits(timeout=timeout, max_output_chars=max_output_chars,
                                                 max_calls=max_calls))
    return SubprocessExecutor(Limits(timeout=timeout, max_output_chars=max_output_chars, max_calls=max_calls))


Factory = Callable[..., CodemodeRuntime]


@pytest.fixture(params=EXECUTOR_KINDS)
async def runtime(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Factory]:
    """Build runtimes on the parametrized executor kind (with limits given per test)."""
    made: list[CodemodeRuntime] = []

    def make(connectors: list[Connector], **limits: Any) -> CodemodeRuntime:
        rt = CodemodeRuntime(connectors, store=f"sqlite:///{tmp_path / 'journal.db'}",
                             executor=_executor(str(request.param), **limits))
        made.append(rt)
        return rt

    yield make
    for rt in made:
        await rt.aclose()


async def _assert_ended_as_error(rt: CodemodeRuntime, out: dict[str, Any]) -> None:
    assert out["status"] == "error", out
    state = await rt.execution(out["execution_id"])
    assert state is not None and state.status == "error"
    assert [e.id for e in await rt.executions() if e.status == "running"] == []


SWALLOW = "try:\n    bank.pay(**ARGS)\nexcept BaseException:\n    pass\n'swallowed'"


def _swallowing(args: str) -> str:
    return SWALLOW.replace("**ARGS", args)


# ---------------------------------------------------------------------------------------------
# Item 2: a host-side failure during a pass ends the execution as error


async def test_an_overflow_in_validation_ends_the_execution_as_error(runtime: Factory) -> None:
    """It is an error, not a completed execution, when checking the arguments overflows on the host."""
    bank = Bank({"type": "object", "properties": {"amount": {"type": "number", "multipleOf": 0.01}}})
    rt = runtime([bank])
    out = await rt.execute(_swallowing("amount=10 ** 400"))
    await _assert_ended_as_error(rt, out)
    assert "bank.pay" in out["error"] and "OverflowError" in out["error"]
    assert bank.received == []


async def test_a_cyclic_schema_ends_the_execution_as_error(runtime: Factory) -> None:
    """It is an error when a schema that refers to itself exhausts the host's recursion."""
    bank = Bank({"type": "object", "properties": {"to": {"$ref": "#/$defs/a"}},
                 "$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}]}}})
    rt = runtime([bank])
    out = await rt.execute(_swallowing("to='eve'"))
    await _assert_ended_as_error(rt, out)
    assert "RecursionError" in out["error"]
    assert bank.received == []


class ExplodingSchema(Mapping[str, Any]):
    """A schema that fails when read: stands for any bug on the host side of a request."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("the host tripped over its own schema")

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("the host tripped over its own schema")

    def __len__(self) -> int:
        return 1


async def test_an_exception_in_the_host_handler_ends_the_execution_as_error(runtime: Factory) -> None:
    """It is an error when the host's request handling raises, even if the code swallows what it got."""
    bank = Bank(ExplodingSchema())
    rt = runtime([bank])
    out = await rt.execute(_swallowing("to='eve'"))
    await _assert_ended_as_error(rt, out)
    assert "the host tripped over its own schema" in out["error"]
    assert bank.received == []


@pytest.mark.parametrize("kind", EXECUTOR_KINDS)
async def test_a_host_handler_exception_wins_over_the_sandboxes_done(kind: str) -> None:
    """At the executor level too: a host handler that raised makes the pass an error whatever comes next."""

    def explode(message: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("handler bug")

    ex = _executor(kind)
    try:
        out = await ex.execute(_swallowing("to='eve'"), {"bank": ["pay"]}, host=RecordingHost(explode))
    finally:
        await ex.aclose()
    assert out.error is not None, out
    assert "handler bug" in out.error.message




@pytest.fixture
def tampered(tmp_path: Path) -> Iterator[Callable[..., SubprocessExecutor]]:
    """Executors whose worker is a script speaking the pipe protocol (``python=`` is a wrapper)."""
    made: list[SubprocessExecutor] = []

    def make(body: str, limits: Limits | None = None) -> SubprocessExecutor:
        ex = tampered_executor(tmp_path, body, limits)
        made.append(ex)
        return ex

    yield make


MALFORMED_DONE = {
    "infinite-float": b'{"op":"done","result":1e999,"variables":{}}\n',
    "900-levels": b'{"op":"done","result":' + b"[" * 900 + b"]" * 900 + b',"variables":{}}\n',
    "bad-bytes-tag": b'{"op":"done","result":{"$codemode":"bytes","v":"%%% not base64"},"variables":{}}\n',
    "bytes-tag-not-text": b'{"op":"done","result":{"$codemode":"bytes","v":5},"variables":{}}\n',
    "bad-date-tag": b'{"op":"done","result":{"$codemode":"date","v":"yesterday"},"variables":{}}\n',
    "tuple-tag-not-list": b'{"op":"done","result":{"$codemode":"tuple","v":7},"variables":{}}\n',
    "unknown-tag": b'{"op":"done","result":{"$codemode":"set","v":[1]},"variables":{}}\n',
    "bad-variable": b'{"op":"done","result":1,"variables":{"x":{"$codemode":"datetime","v":"noon"}}}\n',
}


@pytest.mark.parametrize("line", list(MALFORMED_DONE.values()), ids=list(MALFORMED_DONE))
async def test_a_malformed_done_ends_the_execution_as_error(tampered: Callable[..., SubprocessExecutor],
                                                           tmp_path: Path, line: bytes) -> None:
    """It is an error, never an exception from execute() or a stuck running execution, when the
    worker reports a result the host cannot decode."""
    ex = tampered(f"send({line!r})\ntime.sleep(30)\n")
    async with CodemodeRuntime([], store=f"sqlite:///{tmp_path / 'j.db'}", executor=ex) as rt:
        out = await rt.execute("1", capture_variables=True)
        await _assert_ended_as_error(rt, out)
        assert "malformed" in out["error"]


# ---------------------------------------------------------------------------------------------
# Item 3: validation cost is bounded

EMAIL = {"type": "object", "properties": {"to": {"type": "string", "pattern": r"^([a-zA-Z0-9]+)+@example\.com$"}}}


async def test_a_backtracking_pattern_is_checked_in_linear_time(runtime: Factory) -> None:
    """A hostile string against a catastrophic pattern is refused at once (a backtracking engine would
    need longer than the age of the universe for 64 characters)."""
    bank = Bank(EMAIL)
    rt = runtime([bank])
    code = ("out = []\nfor s in ['a' * 64 + '!', 'a' * 100_000 + '!', 'ok@example.com']:\n"
            "    try:\n        out.append(bank.pay(to=s))\n    except Exception as e:\n"
            "        out.append(str(e)[:60])\nout")
    out = await rt.execute(code)
    assert out["status"] == "completed", out
    assert out["result"][0].startswith("bank.pay: argument 'to'")
    assert out["result"][1].startswith("bank.pay: argument 'to'")
    assert out["result"][2] == "paid"
    assert bank.received == [{"to": "ok@example.com"}]


async def test_pattern_properties_are_checked_in_linear_time(runtime: Factory) -> None:
    """Property names are matched by the same linear engine (patternProperties and additionalProperties)."""
    bank = Bank({"type": "object", "properties": {"tags": {
        "type": "object", "patternProperties": {r"^([a-z]+)+$": {"type": "string"}},
        "additionalProperties": False}}})
    rt = runtime([bank])
    out = await rt.execute("try:\n    bank.pay(tags={'a' * 64 + '!': 'x'})\nexcept Exception as e:\n"
                           "    r = str(e)\nr")
    assert out["status"] == "completed", out
    assert "tags" in out["result"]
    assert bank.received == []


async def test_unique_items_are_checked_in_linear_time(runtime: Factory) -> None:
    """A long list of distinct objects under uniqueItems is checked without comparing every pair."""
    bank = Bank({"type": "object", "properties": {"rows": {"type": "array", "uniqueItems": True}}})
    rt = runtime([bank])
    out = await rt.execute("bank.pay(rows=[{'i': i} for i in range(40_000)])\n"
                           "try:\n    bank.pay(rows=[{'i': 1}, {'i': 2}, {'i': 1}])\nexcept Exception as e:\n"
                           "    r = str(e)\nr")
    assert out["status"] == "completed", out
    assert "rows" in out["result"] and "unique" in out["result"]
    assert len(bank.received) == 1


async def test_a_pattern_the_linear_engine_cannot_run_refuses_the_call(runtime: Factory) -> None:
    """A look-ahead pattern (no linear-time engine runs it) refuses the call with a message for the
    connector's author; the connector is not called."""
    bank = Bank({"type": "object", "properties": {"pin": {"type": "string", "pattern": r"^(?=.*\d)\w{4}$"}}})
    rt = runtime([bank])
    out = await rt.execute("try:\n    bank.pay(pin='ab12')\nexcept Exception as e:\n    r = str(e)\nr")
    assert out["status"] == "completed", out
    assert "bank.pay" in out["result"] and "(?=.*" in out["result"] and "RE2" in out["result"]
    assert bank.received == []


@pytest.fixture
def schema_server() -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """A real HTTP server on 127.0.0.1 that serves a schema and records every request."""
    with json_service(lambda method, path: b'{"type": "string"}') as (base, hits):
        yield f"{base}/schema.json", hits


async def test_a_remote_ref_in_a_schema_is_never_fetched(runtime: Factory,
                                                         schema_server: tuple[str, list[tuple[str, str]]]) -> None:
    """The host does not fetch a `$ref` URL while checking a call (jsonschema would, with urllib, on the
    event loop); the pass ends as an error naming the unresolved reference."""
    url, hits = schema_server
    bank = Bank({"type": "object", "properties": {"to": {"$ref": url}}})
    rt = runtime([bank])
    out = await rt.execute(_swallowing("to='eve'"))
    await _assert_ended_as_error(rt, out)
    assert "Unresolvable" in out["error"]
    assert hits == [] and bank.received == []


# ---------------------------------------------------------------------------------------------
# Item 4 and issue 14 defect 1: decoded types are checked strictly

NOT_STRINGS = {
    "bytes": "b'eve-offshore-account'",
    "date": "datetime.date(2020, 1, 2)",
    "datetime": "datetime.datetime(2020, 1, 2, 3, 4)",
    "tuple": "('eve',)",
}


@pytest.mark.parametrize("value", list(NOT_STRINGS.values()), ids=list(NOT_STRINGS))
async def test_bytes_dates_and_tuples_are_not_strings(runtime: Factory, value: str) -> None:
    """A value that is not a str fails a `string` field: no pending action shows an approver a disguised
    value, and the connector receives nothing."""
    bank = Bank({"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}, approval=True)
    rt = runtime([bank])
    out = await rt.execute(f"try:\n    bank.pay(to={value})\nexcept Exception as e:\n    r = str(e)\nr")
    assert out["status"] == "completed", out
    assert out["result"].startswith("bank.pay: argument 'to'") and "string" in out["result"]
    assert await rt.pending() == []
    assert bank.received == []


async def test_an_approved_call_is_checked_against_the_schema_it_runs_under(runtime: Factory) -> None:
    """A pending call recorded under a looser schema (an older connector or version) is checked again
    when it is approved: the connector never gets what its schema refuses."""
    out = await runtime([Bank({"type": "object"}, approval=True)]).execute("bank.pay(to=b'eve')")
    assert out["status"] == "paused", out
    strict = Bank({"type": "object", "properties": {"to": {"type": "string"}}}, approval=True)
    done = await runtime([strict]).approve(out["execution_id"])
    assert done["status"] == "error" and "ArgumentError" in done["error"], done
    assert strict.received == []


def _notes() -> tuple[ToolSetConnector, list[Any]]:
    got: list[Any] = []

    def echo(text: str) -> str:
        """Echo a text."""
        got.append(text)
        return text

    def stamp(data: bytes, day: date, at: datetime, pair: tuple[int, int]) -> str:
        """Take one value of each extra type."""
        got.append((data, day, at, pair))
        return "ok"

    return ToolSetConnector([echo, stamp], name="e"), got


async def test_a_str_parameter_gets_a_str(runtime: Factory) -> None:
    """Issue 14 defect 1: `def echo(text: str)` never receives bytes or a date."""
    connector, got = _notes()
    rt = runtime([connector])
    out = await rt.execute("r = []\nfor v in [b'o', datetime.date(2020, 1, 2), 'fine']:\n    try:\n"
                           "        r.append(e.echo(text=v))\n    except Exception as x:\n"
                           "        r.append(str(x)[:40])\nr")
    assert out["status"] == "completed", out
    assert out["result"][0].startswith("e.echo: argument 'text'")
    assert out["result"][1].startswith("e.echo: argument 'text'")
    assert out["result"][2] == "fine"
    assert got == ["fine"]


async def test_annotated_extra_types_are_accepted_as_themselves(runtime: Factory) -> None:
    """A parameter annotated bytes / date / datetime / tuple receives exactly that type."""
    connector, got = _notes()
    rt = runtime([connector])
    out = await rt.execute("e.stamp(data=b'\\x00x', day=datetime.date(2020, 1, 2), "
                           "at=datetime.datetime(2020, 1, 2, 3, 4), pair=(1, 2))")
    assert out["status"] == "completed", out
    assert got == [(b"\x00x", date(2020, 1, 2), datetime(2020, 1, 2, 3, 4), (1, 2))]
    assert [type(v) for v in got[0]] == [bytes, date, datetime, tuple]


async def test_a_schema_accepts_bytes_by_content_encoding(runtime: Factory) -> None:
    """`contentEncoding: base64` declares a bytes field; its approver sees the bytes that will be sent."""
    bank = Bank({"type": "object", "properties": {"blob": {"type": "string", "contentEncoding": "base64"}}},
                approval=True)
    rt = runtime([bank])
    out = await rt.execute("bank.pay(blob=b'\\x01\\x02')")
    assert out["status"] == "paused", out
    assert out["pending"][0]["args"] == {"blob": {"$codemode": "bytes", "v": "AQI="}}  # the output is JSON
    assert [p.args for p in await rt.pending()] == [{"blob": b"\x01\x02"}]
    done = await rt.approve(out["execution_id"])
    assert done["status"] == "completed", done
    assert bank.received == [{"blob": b"\x01\x02"}]


# ---------------------------------------------------------------------------------------------
# Item 8: resource edges


async def test_empty_output_messages_count_against_the_output_limit(
        tampered: Callable[..., SubprocessExecutor]) -> None:
    """A worker flooding the host with empty output messages is stopped by the output limit."""
    ex = tampered('''
        while True:
            send(b'{"op":"output","text":""}\\n')
    ''', Limits(max_output_chars=5000, timeout=30))
    try:
        out = await ex.execute("1", {}, host=RecordingHost())
    finally:
        await ex.aclose()
    assert out.error is not None and out.error.type == "LimitExceeded", out.error
    assert "max_output_chars" in out.error.message


async def test_tiny_prints_count_at_least_eight_characters_each(runtime: Factory) -> None:
    """The honest sandbox counts output as the host does: ten empty prints cost 80 characters."""
    rt = runtime([], max_output_chars=80)
    assert (await rt.execute("for i in range(10):\n    print()\n'fits'"))["status"] == "completed"
    out = await rt.execute("for i in range(11):\n    print()\n'too many'")
    assert out["status"] == "error" and "max_output_chars" in out["error"]


async def test_an_oversized_request_from_a_worker_is_not_read_whole(
        tampered: Callable[..., SubprocessExecutor]) -> None:
    """A call line far over the request size is refused as too large while it is still arriving."""
    ex = tampered('''
        send(b'{"op":"call","connector":"bank","method":"pay","args":{"to":"' + b"a" * (50 << 20) + b'"}}\\n')
        reply = recv()
        send({"op": "output", "text": reply.decode()[:300]})
        send({"op": "done", "result": "went on", "variables": {}})
    ''')
    host = RecordingHost()
    try:
        out = await ex.execute("1", {"bank": ["pay"]}, host=host)
    finally:
        await ex.aclose()
    assert host.requests == []
    assert out.error is not None and out.error.type == "ValueTooLarge", out.error
    assert len(out.error.message) < 1000


async def test_a_huge_invalid_argument_in_a_loop_ends_the_pass(runtime: Factory) -> None:
    """Size is checked before validation: a 50 MB argument ends the pass (ValueTooLarge) on its first
    call instead of being validated and echoed back in a loop."""
    bank = Bank({"type": "object", "properties": {"amount": {"type": "integer"}}})
    rt = runtime([bank])
    code = ("big = 'a' * 50_000_000\nfor i in range(20):\n    try:\n        bank.pay(amount=big)\n"
            "    except BaseException:\n        pass\n'looped'")
    out = await rt.execute(code)
    await _assert_ended_as_error(rt, out)
    assert out["error_type"] == "ValueTooLarge"
    assert len(out["error"]) < 1000
    assert bank.received == []


async def test_an_invalid_argument_is_not_echoed_back_whole(runtime: Factory) -> None:
    """The error for an invalid argument quotes a bounded part of it."""
    bank = Bank({"type": "object", "properties": {"amount": {"type": "integer"}}})
    rt = runtime([bank])
    out = await rt.execute("try:\n    bank.pay(amount='a' * 500_000)\nexcept Exception as e:\n    r = str(e)\nr")
    assert out["status"] == "completed", out
    assert out["result"].startswith("bank.pay: argument 'amount'")
    assert len(out["result"]) < 1000


@pytest.mark.parametrize("call", ["codemode.search('x' * 200_000)", "codemode.describe('x' * 200_000)",
                                  "codemode.step('x' * 200_000, lambda: 1)", "codemode.run('x' * 200_000, 1)"])
async def test_an_oversized_query_or_name_is_a_clear_error(runtime: Factory, call: str) -> None:
    """Honest code with a 200,000-character query or name gets an error that says so, not WorkerCrashed."""
    rt = runtime([])
    out = await rt.execute(f"try:\n    {call}\nexcept Exception as e:\n    r = str(e)\nr")
    assert out["status"] == "completed", out
    assert "200,000 characters" in out["result"] and "limit" in out["result"]


async def test_an_oversized_error_message_from_a_step_is_cut_not_crashed(runtime: Factory) -> None:
    """A step whose function raises with a huge message reaches the code as that error, shortened."""
    rt = runtime([])
    out = await rt.execute("def f():\n    raise ValueError('x' * 200_000)\n"
                           "try:\n    codemode.step('s', f)\nexcept ValueError as e:\n    r = len(str(e))\nr")
    assert out["status"] == "completed", out
    assert out["result"] == 200_000  # the code keeps its own exception; only the host's copy is cut


async def test_every_request_counts_against_max_calls(runtime: Factory) -> None:
    """Steps and searches in a loop are bounded like connector calls (each one costs the host)."""
    rt = runtime([], max_calls=20)
    out = await rt.execute("i = 0\nwhile True:\n    codemode.step('s' + str(i), lambda: 1)\n    i += 1")
    await _assert_ended_as_error(rt, out)
    assert "max_calls" in out["error"]
    state = await rt.execution(out["execution_id"])
    assert state is not None and len(state.log) <= 20
    out = await rt.execute("while True:\n    codemode.search('anything')")
    assert out["status"] == "error" and "max_calls" in out["error"]
