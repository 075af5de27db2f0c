"""SubprocessExecutor: one pass, one clean worker process, strict JSON over its pipes."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest

from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from codemode_kernel.executor.pool import EmptyRoot, worker_command
from codemode_kernel.executor.worker import dumps_line, loads_line
from tests.executor.isolated_support import RecordingHost, wait_gone

pytestmark = pytest.mark.anyio

SHOP = {"shop": ["get", "put", "started"]}


@pytest.fixture
async def executor() -> AsyncIterator[SubprocessExecutor]:
    ex = SubprocessExecutor()
    yield ex
    await ex.aclose()


async def test_a_pass_returns_result_logs_and_variables(executor: SubprocessExecutor) -> None:
    """The last expression is the result; print output becomes logs; assigned names become variables on request."""
    out = await executor.execute("x = 20\nprint('hello', x)\nx + 22", {}, host=RecordingHost(),
                                 capture_variables=True)
    assert out.error is None
    assert out.result == 42
    assert out.logs == ["hello 20"]
    assert out.variables == {"x": 20}
    plain = await executor.execute("x = 20\nx", {}, host=RecordingHost())
    assert plain.result == 20 and plain.variables == {}


async def test_print_reaches_the_host_while_the_pass_runs(executor: SubprocessExecutor) -> None:
    """Output printed before a connector call is delivered before the host answers that call."""
    seen: list[str] = []
    at_call: list[list[str]] = []

    def answer(message: dict[str, Any]) -> dict[str, Any]:
        at_call.append(list(seen))
        return {"value": 1}

    out = await executor.execute("print('before')\nshop.get()\nprint('after')", SHOP,
                                 host=RecordingHost(answer), on_output=seen.append)
    assert at_call == [["before\n"]]
    assert seen == ["before\n", "after\n"]
    assert out.logs == ["before", "after"]


async def test_a_connector_call_crosses_as_checked_json(executor: SubprocessExecutor) -> None:
    """The host gets exactly op, connector, method, codec-encoded args and the local replay count."""
    host = RecordingHost(lambda m: {"value": {"$codemode": "bytes", "v": "aGk="}})
    out = await executor.execute("v = shop.get(item_id=1, pair=(1, 2))\n[type(v) is bytes, v.decode()]", SHOP,
                                 host=host)
    assert out.error is None
    assert out.result == [True, "hi"]
    assert host.requests == [{"op": "call", "connector": "shop", "method": "get",
                              "args": {"item_id": 1, "pair": {"$codemode": "tuple", "v": [1, 2]}}, "replayed": 0}]


async def test_a_raised_reply_is_an_error_the_code_can_catch(executor: SubprocessExecutor) -> None:
    """An error answer reaches the code as ConnectorError carrying only type and message."""
    host = RecordingHost(lambda m: {"raise": {"type": "KeyError", "message": "no item 9"}})
    code = "try:\n    shop.get(item_id=9)\nexcept ConnectorError as e:\n    r = str(e)\nr"
    out = await executor.execute(code, SHOP, host=host)
    assert out.result == "KeyError: no item 9"


async def test_after_an_abort_the_code_can_reach_nothing(executor: SubprocessExecutor) -> None:
    """Once the host answered abort, a caught abort changes nothing: no further request reaches the host."""
    host = RecordingHost(lambda m: {"abort": "paused: call #0 is waiting for approval"})
    code = ("try:\n    shop.put(x=1)\nexcept BaseException:\n    pass\n"
            "shop.get()\ncodemode.step('s', lambda: 1)\nprint('still running')\n'finished'")
    out = await executor.execute(code, SHOP, host=host)
    assert host.calls == [("shop", "put")]
    assert len(host.requests) == 1
    assert out.result is None


async def test_unknown_methods_are_refused_inside_the_worker(executor: SubprocessExecutor) -> None:
    """Only the namespaces given reach the sandbox; other methods fail there and never reach the host."""
    host = RecordingHost()
    out = await executor.execute("shop.delete_everything()", SHOP, host=host)
    assert out.error is not None and out.error.type == "AttributeError"
    assert "has no method 'delete_everything'" in out.error.message
    assert host.requests == []


async def test_inputs_are_predefined_globals(executor: SubprocessExecutor) -> None:
    """Codec-encoded inputs are decoded into globals before the code runs."""
    out = await executor.execute("[n + 1, t]", {}, host=RecordingHost(),
                                 inputs={"n": 41, "t": {"$codemode": "tuple", "v": ["a"]}})
    assert out.result == [42, {"$codemode": "tuple", "v": ["a"]}]


async def test_each_pass_runs_in_a_new_process_that_is_gone_afterwards(executor: SubprocessExecutor) -> None:
    """A worker serves one pass: the next pass has another pid, and the first process has exited."""
    await executor.execute("1", {}, host=RecordingHost())
    assert executor.isolation is not None
    first = executor.isolation["pid"]
    await executor.execute("2", {}, host=RecordingHost())
    second = executor.isolation["pid"]
    assert first != second
    assert wait_gone(first)


def _status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status") as f:
        return {key: value.strip() for key, value in (line.split(":", 1) for line in f.read().splitlines())}


def _cmdline(pid: int) -> list[bytes]:
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return f.read().split(b"\0")[:-1]


async def test_the_worker_is_a_clean_interpreter_with_only_its_pipes() -> None:
    """Spawned (zygote=False), the idle worker runs `python -I -S`, empty environment, fds 0-2 only: our child."""
    executor = SubprocessExecutor(zygote=False)
    try:
        report = await executor.warm_up()
        assert report is not None
        pid = report["pid"]
        assert _cmdline(pid) == [a.encode() for a in worker_command()]
        with open(f"/proc/{pid}/environ", "rb") as f:
            assert f.read() == b""
        assert sorted(os.listdir(f"/proc/{pid}/fd")) == ["0", "1", "2"]
        status = _status(pid)
        assert int(status["PPid"]) == os.getpid()
        if report["seccomp"]:
            assert status["Seccomp"] == "2"
        if report["network_isolated"]:
            assert os.readlink(f"/proc/{pid}/ns/net") != os.readlink("/proc/self/ns/net")
        if os.geteuid() == 0:
            assert status["Uid"].split()[0] == "65534"
    finally:
        await executor.aclose()


def test_the_worker_imports_nothing_from_the_host_side() -> None:
    """A whole pass in a worker run with -X importtime loads no SQLAlchemy, Jupyter, runtime or connector."""
    proc = subprocess.Popen(worker_command(flags=["-X", "importtime"]), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={})
    config = {"op": "config", "parent_pid": os.getpid(), "empty_root": EmptyRoot.get(),
              "limits": Limits().worker_config()}
    run = {"op": "run", "code": "import json\njson.dumps({'a': [1, 2]})", "namespaces": {}, "inputs": {}}
    out, err = proc.communicate(dumps_line(config) + dumps_line(run), timeout=60)
    messages = [loads_line(line) for line in out.splitlines(keepends=True)]
    assert [m["op"] for m in messages] == ["ready", "done"]
    assert messages[-1]["result"] == '{"a": [1, 2]}'
    imported = {line.split("|")[-1].strip() for line in err.decode().splitlines() if line.startswith("import time:")}
    assert "codemode_kernel.executor.sandbox" in imported
    forbidden = [m for m in imported if m.split(".")[0] in {"sqlalchemy", "jupyter_client", "ipykernel", "mcp",
                                                            "httpx", "jsonschema", "ipywidgets", "yaml"}
                 or m in {"codemode_kernel.runtime", "codemode_kernel.journal", "codemode_kernel.catalog",
                          "codemode_kernel.passes"} or m.startswith("codemode_kernel.connectors")
                 or m.startswith("codemode_kernel.kernel")]
    assert forbidden == []


def test_the_executor_works_across_event_loops() -> None:
    """Workers belong to the executor, not to a loop: asyncio.run twice with one executor works."""
    import asyncio

    ex = SubprocessExecutor()
    try:
        first = asyncio.run(ex.execute("1 + 1", {}, host=RecordingHost()))
        second = asyncio.run(ex.execute("2 + 2", {}, host=RecordingHost()))
    finally:
        asyncio.run(ex.aclose())
    assert (first.result, second.result) == (2, 4)


async def test_passes_can_run_at_the_same_time(executor: SubprocessExecutor) -> None:
    """Several passes on one executor each get their own worker and their own answers."""
    import asyncio

    async def answer(message: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(0.05)
        return {"value": message["args"]["n"] * 10}

    host = RecordingHost(answer)
    outs = await asyncio.gather(*(executor.execute(f"shop.get(n={n}) + shop.get(n={n})", SHOP, host=host)
                                  for n in range(3)))
    assert [o.result for o in outs] == [0, 20, 40]
    assert len(host.requests) == 6


def test_python_option_names_the_interpreter() -> None:
    """python= chooses the worker's interpreter; by default it is this one."""
    assert worker_command()[0] == sys.executable
    assert worker_command("/opt/python3")[0] == "/opt/python3"


async def test_warm_up_and_a_pass_at_the_same_time(executor: SubprocessExecutor) -> None:
    """A pass started while warm_up waits for the pool still gets a worker of its own and completes."""
    import asyncio

    warming = asyncio.ensure_future(executor.warm_up())
    out = await executor.execute("6 * 7", {}, host=RecordingHost())
    report = await warming
    assert out.result == 42
    assert report is not None and "pid" in report
    again = await executor.execute("'next'", {}, host=RecordingHost())
    assert again.result == "next"


async def test_aclose_stops_every_worker_promptly() -> None:
    """After aclose (even right after an interrupted pass) no worker process of ours is left, within seconds."""
    import asyncio
    import time

    from tests.executor.isolated_support import worker_children

    ex = SubprocessExecutor(warm=2)
    await ex.warm_up()
    assert len(worker_children()) >= 2
    loop = asyncio.get_running_loop()
    loop.call_later(0.3, ex.interrupt)
    out = await ex.execute("while True:\n    pass", {}, host=RecordingHost())
    assert out.error is not None and out.error.type == "Interrupted"
    start = time.monotonic()
    await ex.aclose()
    assert time.monotonic() - start < 3
    assert worker_children() == []
    again = await ex.execute("'usable after aclose'", {}, host=RecordingHost())
    assert again.result == "usable after aclose"
    await ex.aclose()
    assert worker_children() == []
