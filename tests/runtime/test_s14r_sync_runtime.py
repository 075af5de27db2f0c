"""``SyncRuntime`` has every public method of :class:`CodemodeRuntime`, with its arguments, blocking.

README ("Scripts without asyncio"): "``SyncRuntime`` has the same methods, blocking". A script
without asyncio discovers methods, cleans up its history, stops a running pass from another
thread, and hands a model the ``codemode`` tool, whose ``call`` then blocks too.
"""

from __future__ import annotations

import inspect
import threading
from pathlib import Path
from typing import Any

from codemode_kernel import CodemodeRuntime, InProcessExecutor, SyncRuntime, ToolSetConnector

#: Public runtime members a script has no use for as blocking calls: the async context's own,
#: and accessors of the live objects (``SyncRuntime.runtime`` gives them).
NOT_WRAPPED = {"aclose", "catalog", "connectors", "executor", "connector_hints", "name", "store"}

started = threading.Event()
release = threading.Event()


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def wait() -> str:
    """Wait until the test lets go."""
    started.set()
    release.wait(10)
    return "done"


def _public(cls: type) -> list[str]:
    return sorted(n for n in dir(cls) if not n.startswith("_") and n not in NOT_WRAPPED)


def test_every_public_method_is_there_with_the_same_arguments() -> None:
    assert set(_public(CodemodeRuntime)) <= set(_public(SyncRuntime))
    for name in _public(CodemodeRuntime):
        ours = list(inspect.signature(getattr(SyncRuntime, name)).parameters)
        theirs = list(inspect.signature(getattr(CodemodeRuntime, name)).parameters)
        assert ours == theirs, name
    assert list(inspect.signature(SyncRuntime).parameters) == list(inspect.signature(CodemodeRuntime).parameters)


def test_history_is_deleted_and_pruned(tmp_path: Path) -> None:
    with SyncRuntime([ToolSetConnector([add], name="calc")], store=f"sqlite:///{tmp_path / 's.db'}",
                     executor=InProcessExecutor()) as rt:
        ids = [rt.execute(f"calc.add(a={i}, b=1)")["execution_id"] for i in range(4)]
        assert rt.delete_execution(ids[0]) is True
        assert rt.delete_execution(ids[0]) is False
        assert rt.prune_executions(keep=1) == 2
        assert [e.id for e in rt.executions()] == [ids[3]]
        rt.save_snippet("plus", execution_id=ids[3], description="One more")
        assert [r.path for r in rt.search("one more", connector="codemode").results] == ["plus"]
        assert rt.delete_snippet("plus") is True
        assert rt.snippets() == []


def test_the_tool_call_blocks_and_returns_plain_json(tmp_path: Path) -> None:
    with SyncRuntime([ToolSetConnector([add], name="calc")], store=f"sqlite:///{tmp_path / 's.db'}",
                     executor=InProcessExecutor(), connector_hints={"calc": "Sums."}) as rt:
        tool = rt.tool()
        assert tool.name == "codemode" and "calc" in tool.description and "Sums." in tool.description
        assert tool.description == rt.runtime.tool().description
        out = tool.call("calc.add(a=2, b=3)")
        assert out["status"] == "completed" and out["result"] == 5, out
        assert tool("b'x'")["result"] == {"$bytes": "eA=="}


def test_interrupt_from_another_thread_stops_a_blocking_execute(tmp_path: Path) -> None:
    started.clear()
    release.clear()
    outcome: dict[str, Any] = {}
    with SyncRuntime([ToolSetConnector([wait], name="slow")], store=f"sqlite:///{tmp_path / 's.db'}",
                     executor=InProcessExecutor()) as rt:
        runner = threading.Thread(target=lambda: outcome.update(rt.execute("slow.wait()")))
        runner.start()
        try:
            assert started.wait(10)
            assert rt.interrupt() is True
            runner.join(10)
            assert not runner.is_alive()
        finally:
            release.set()
            runner.join(10)
    assert outcome["status"] == "error" and "interrupt" in outcome["error"].lower(), outcome
