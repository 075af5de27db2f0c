"""A tampered worker (say, after a sandbox escape) cannot push bad data or extra calls into the host.

Each case replaces the worker with a real process that speaks the pipe protocol maliciously
(``python=`` points at a wrapper script), and checks what the host does with it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from tests.executor.isolated_support import RecordingHost, tampered_executors

pytestmark = pytest.mark.anyio

SHOP = {"shop": ["get"]}


Factory = Callable[..., SubprocessExecutor]


@pytest.fixture
async def tampered(tmp_path: Path) -> AsyncIterator[Factory]:
    async with tampered_executors(tmp_path, None) as make:
        yield make


BAD_LINES = {
    "not-json": b"this is not json\n",
    "nan": b'{"op": "call", "connector": "shop", "method": "get", "args": {"x": NaN}}\n',
    "infinity": b'{"op": "call", "connector": "shop", "method": "get", "args": {"x": -Infinity}}\n',
    "huge-int": b'{"op": "call", "connector": "shop", "method": "get", "args": {"x": ' + b"9" * 5000 + b"}}\n",
    "deep-nesting": b'{"op": "call", "connector": "shop", "method": "get", "args": {"x": '
                    + b"[" * 100_000 + b"]" * 100_000 + b"}}\n",
    "not-utf8": b'{"op": "output", "text": "\xff\xfe"}\n',
    "not-an-object": b"[1, 2, 3]\n",
    "unknown-op": b'{"op": "exec", "code": "import os"}\n',
    "connector-not-given": b'{"op": "call", "connector": "os", "method": "system", "args": {}}\n',
    "method-not-given": b'{"op": "call", "connector": "shop", "method": "delete_all", "args": {}}\n',
    "extra-field": b'{"op": "call", "connector": "shop", "method": "get", "args": {}, "as_root": true}\n',
    "args-not-object": b'{"op": "call", "connector": "shop", "method": "get", "args": "rm -rf /"}\n',
    "bad-error-type": b'{"op": "fail", "type": "<script>alert(1)</script>", "message": "x"}\n',
    "output-not-text": b'{"op": "output", "text": {"evil": true}}\n',
    "malformed-done": b'{"op": "done", "error": {"type": 5}}\n',
    "second-ready": b'{"op": "ready", "pid": 1, "isolation": {}}\n',
}


@pytest.mark.parametrize("line", list(BAD_LINES.values()), ids=list(BAD_LINES))
async def test_a_malformed_message_stops_the_worker(tampered: Factory, line: bytes) -> None:
    """Anything that is not a well-formed request ends the pass as WorkerCrashed; the host handler sees nothing."""
    ex = tampered(f"send({line!r})\ntime.sleep(30)\n")
    host = RecordingHost()
    out = await ex.execute("shop.get()", SHOP, host=host)
    assert out.error is not None and out.error.type == "WorkerCrashed"
    assert "broke the protocol" in out.error.message
    assert host.requests == []


async def test_requests_are_rebuilt_from_allowed_fields(tampered: Factory) -> None:
    """A valid request reaches the host as a fresh dict of exactly the allowed fields and types."""
    ex = tampered('''
        send({"op": "call", "connector": "shop", "method": "get", "args": {"nested": {"k": [1, None, True]}}})
        reply = json.loads(recv())
        send({"op": "done", "result": reply["value"], "variables": {}})
    ''')
    host = RecordingHost(lambda m: {"value": "answered"})
    out = await ex.execute("shop.get()", SHOP, host=host)
    assert out.result == "answered"
    assert host.requests == [{"op": "call", "connector": "shop", "method": "get",
                              "args": {"nested": {"k": [1, None, True]}}, "replayed": 0}]


async def test_the_host_refuses_everything_after_an_abort(tampered: Factory) -> None:
    """A worker that ignores abort and keeps calling gets abort again; the host handler is not asked twice."""
    ex = tampered('''
        replies = []
        for i in range(5):
            send({"op": "call", "connector": "shop", "method": "get", "args": {"i": i}})
            replies.append(json.loads(recv()))
        send({"op": "output", "text": json.dumps(replies)})
        send({"op": "done", "result": "swallowed", "variables": {}})
    ''')
    host = RecordingHost(lambda m: {"abort": "paused: call #0 is waiting for approval"})
    out = await ex.execute("shop.get()", SHOP, host=host)
    assert len(host.requests) == 1
    assert out.logs == ['[{"abort": "paused: call #0 is waiting for approval"}, '
                        '{"abort": "paused: call #0 is waiting for approval"}, '
                        '{"abort": "paused: call #0 is waiting for approval"}, '
                        '{"abort": "paused: call #0 is waiting for approval"}, '
                        '{"abort": "paused: call #0 is waiting for approval"}]']


async def test_a_worker_that_ignores_abort_and_runs_on_is_stopped(tampered: Factory) -> None:
    """After an abort the worker gets a short grace to report, then it is killed; the host's decision stands."""
    ex = tampered('''
        send({"op": "call", "connector": "shop", "method": "get", "args": {}})
        recv()
        time.sleep(60)
    ''')
    host = RecordingHost(lambda m: {"abort": "paused"})
    out = await ex.execute("shop.get()", SHOP, host=host)
    assert out.error is None  # the runtime decides the outcome (paused) from its own state
    assert len(host.requests) == 1


async def test_a_fail_after_abort_keeps_its_error(tampered: Factory) -> None:
    """A pass that reported a failure (op fail) and then hangs ends with that failure."""
    ex = tampered('''
        send({"op": "fail", "type": "CodecError", "message": "cannot pass a set"})
        recv()
        time.sleep(60)
    ''')
    host = RecordingHost(lambda m: {"abort": "CodecError: cannot pass a set"})
    out = await ex.execute("1", {}, host=host)
    assert out.error is not None
    assert (out.error.type, out.error.message) == ("CodecError", "cannot pass a set")


@pytest.mark.parametrize(("start", "limit"), [(b"", "max_request_bytes"),
                                               (b'{"op":"done","result":"', "max_message_bytes")],
                         ids=["any-message", "the-report"])
async def test_an_oversized_line_is_refused_without_reading_it_all(tampered: Factory, start: bytes, limit: str) -> None:
    """A line past its limit stops the worker; the host does not buffer it whole. Only the final
    report may exceed the (smaller) request limit, and it is known by its first bytes."""
    limits = Limits(max_result_chars=1000)
    ex = tampered(f"""
        out.write({start!r})
        chunk = b"x" * (1 << 20)
        for _ in range(64):
            out.write(chunk)
        out.flush()
        time.sleep(30)
    """, limits)
    out = await ex.execute("1", {}, host=RecordingHost())
    assert out.error is not None and out.error.type == "WorkerCrashed"
    assert f"longer than {getattr(limits, limit):,} bytes" in out.error.message


async def test_an_output_flood_that_ignores_the_limit(tampered: Factory) -> None:
    """The host counts output itself: a worker printing past max_output_chars is stopped."""
    ex = tampered('''
        while True:
            send({"op": "output", "text": "y" * 1000})
    ''', Limits(max_output_chars=5000))
    streamed: list[str] = []
    out = await ex.execute("1", {}, host=RecordingHost(), on_output=streamed.append)
    assert out.error is not None and out.error.type == "LimitExceeded"
    assert sum(map(len, streamed)) <= 5000


async def test_calls_past_the_limit_that_the_worker_ignores(tampered: Factory) -> None:
    """The host counts calls itself: the call after max_calls is not answered and the pass ends."""
    ex = tampered('''
        while True:
            send({"op": "call", "connector": "shop", "method": "get", "args": {}})
            recv()
    ''', Limits(max_calls=4))
    host = RecordingHost(lambda m: {"value": 1})
    out = await ex.execute("1", SHOP, host=host)
    assert out.error is not None and out.error.type == "LimitExceeded"
    assert "Limits.max_calls=4" in out.error.message
    assert len(host.requests) == 4


async def test_a_worker_that_never_answers_is_killed_at_the_timeout(tampered: Factory) -> None:
    """Silence is no escape from the wall clock."""
    ex = tampered("time.sleep(60)\n", Limits(timeout=1))
    out = await ex.execute("1", {}, host=RecordingHost())
    assert out.error is not None and out.error.type == "Timeout"


async def test_a_worker_that_closes_its_pipe_and_keeps_running(tampered: Factory) -> None:
    """Closing stdout is treated as a crash; the process is stopped, not waited for."""
    ex = tampered("os.close(1)\ntime.sleep(60)\n")
    out = await ex.execute("1", {}, host=RecordingHost())
    assert out.error is not None and out.error.type == "WorkerCrashed"
    assert "closed its pipe and kept running" in out.error.message


async def test_a_worker_that_dies_before_ready_is_replaced_once(tmp_path: Path) -> None:
    """A worker that dies before it is ready has run no code: the pass is retried once on a fresh one."""
    wrapper = tmp_path / "python"
    wrapper.write_text("#!/bin/sh\nexit 3\n")
    wrapper.chmod(0o755)
    ex = SubprocessExecutor(python=str(wrapper), warm=0)
    try:
        out = await ex.execute("1", {}, host=RecordingHost())
    finally:
        await ex.aclose()
    assert out.error is not None and out.error.type == "WorkerCrashed"
    assert "exit code 3" in out.error.message and "before it was ready" in out.error.message


async def test_output_sent_while_the_host_is_busy_is_kept_and_bounded(tampered: Factory) -> None:
    """While the host answers a slow request the worker may write more than a line's limit: the host
    stops reading at that point and resumes after, losing nothing."""
    limits = Limits(max_result_chars=1000, max_output_chars=50_000_000)
    ex = tampered('''
        send({"op": "call", "connector": "shop", "method": "get", "args": {}})
        for i in range(10):
            send({"op": "output", "text": str(i) * (1 << 20) + "\\n"})
        reply = json.loads(recv())
        send({"op": "done", "result": reply["value"], "variables": {}})
    ''', limits)

    async def slow(message: dict[str, object]) -> dict[str, object]:
        await asyncio.sleep(1)
        return {"value": "answered"}

    out = await ex.execute("shop.get()", SHOP, host=RecordingHost(slow))
    assert out.error is None, out.error
    assert out.result == "answered"
    assert [line[0] for line in out.logs] == [str(i) for i in range(10)]
    assert all(len(line) == 1 << 20 for line in out.logs)
