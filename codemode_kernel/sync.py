"""SyncRuntime: a blocking facade over CodemodeRuntime for scripts and the terminal demo.

The runtime and its executor live on one private event loop in a background thread; each
method submits a coroutine there and waits. The async API remains the contract.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

from codemode_kernel.connectors.base import Connector
from codemode_kernel.executor.base import Executor, OutputCallback
from codemode_kernel.models import DescribeOutput, ExecutionState, PendingAction, SearchOutput, Snippet
from codemode_kernel.runtime import CodemodeRuntime, TransformResult

T = TypeVar("T")


@dataclass(frozen=True)
class SyncCodemodeTool:
    """The model-facing ``codemode`` tool of a :class:`SyncRuntime`: ``call`` blocks.

    Same name, description and input schema as :meth:`CodemodeRuntime.tool`'s tool; ``call(code)``
    returns the same plain-JSON output.
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    call: Callable[[str], dict[str, Any]]

    def __call__(self, code: str) -> dict[str, Any]:
        return self.call(code)


class SyncRuntime:
    """Blocking wrappers for the runtime's methods (same names and arguments)."""

    def __init__(self, connectors: Iterable[Connector] = (), store: str | None = None,
                 executor: Executor | None = None, name: str = "default", max_executions: int = 50,
                 transform_result: TransformResult | None = None,
                 connector_hints: Mapping[str, str] | None = None) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="codemode-sync", daemon=True)
        self._thread.start()

        async def build() -> CodemodeRuntime:
            return CodemodeRuntime(connectors, store=store, executor=executor, name=name,
                                   max_executions=max_executions, transform_result=transform_result,
                                   connector_hints=connector_hints)

        self.runtime = self._run(build())

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def execute(self, code: str, *, inputs: Mapping[str, Any] | None = None,
                on_output: OutputCallback | None = None, capture_variables: bool = False) -> dict[str, Any]:
        """:meth:`CodemodeRuntime.execute`: ``inputs`` are top-level names the code sees (recorded, so a
        replay sees the same values); ``capture_variables`` adds the serializable top-level names the
        code assigned to the output (``"variables"``)."""
        return self._run(self.runtime.execute(code, inputs=inputs, on_output=on_output,
                                              capture_variables=capture_variables))

    def approve(self, execution_id: str, *, seq: int | None = None,
                on_output: OutputCallback | None = None) -> dict[str, Any]:
        return self._run(self.runtime.approve(execution_id, seq=seq, on_output=on_output))

    def reject(self, execution_id: str, seq: int | None = None) -> bool:
        return self._run(self.runtime.reject(execution_id, seq))

    def rollback(self, execution_id: str) -> None:
        self._run(self.runtime.rollback(execution_id))

    def pending(self, execution_id: str | None = None) -> list[PendingAction]:
        return self._run(self.runtime.pending(execution_id))

    def execution(self, execution_id: str) -> ExecutionState | None:
        return self._run(self.runtime.execution(execution_id))

    def executions(self, limit: int | None = None) -> list[ExecutionState]:
        return self._run(self.runtime.executions(limit))

    def expire_paused(self, max_age: timedelta = timedelta(hours=24)) -> list[str]:
        return self._run(self.runtime.expire_paused(max_age))

    def save_snippet(self, name: str, *, execution_id: str, description: str = "",
                     input_schema: Any = None) -> Snippet:
        return self._run(self.runtime.save_snippet(name, execution_id=execution_id, description=description,
                                                   input_schema=input_schema))

    def snippets(self) -> list[Snippet]:
        return self._run(self.runtime.snippets())

    def delete_snippet(self, name: str) -> bool:
        return self._run(self.runtime.delete_snippet(name))

    def delete_execution(self, execution_id: str) -> bool:
        return self._run(self.runtime.delete_execution(execution_id))

    def prune_executions(self, keep: int = 50) -> int:
        return self._run(self.runtime.prune_executions(keep))

    def search(self, query: str, *, limit: int | None = None, connector: str | None = None) -> SearchOutput:
        return self._run(self.runtime.search(query, limit=limit, connector=connector))

    def describe(self, target: str, *, page: int = 1, full: bool = False) -> DescribeOutput:
        return self._run(self.runtime.describe(target, page=page, full=full))

    def starting_for(self, code: str) -> list[str]:
        """The connectors still starting that ``execute(code)`` would wait for (see the async runtime's)."""

        async def ask() -> list[str]:
            return self.runtime.starting_for(code)

        return self._run(ask())

    def interrupt(self) -> bool:
        """Stop the running pass(es), e.g. from another thread while ``execute`` blocks this one."""

        async def stop() -> bool:
            return self.runtime.interrupt()

        return self._run(stop())

    def tool(self, description: str | None = None,
             connector_hints: Mapping[str, str] | None = None) -> SyncCodemodeTool:
        """The ``codemode`` tool for a model, as :meth:`CodemodeRuntime.tool`, with a blocking ``call``."""
        inner = self.runtime.tool(description, connector_hints)

        async def answer(code: str) -> dict[str, Any]:
            return await inner.call(code)

        def call(code: str) -> dict[str, Any]:
            return self._run(answer(code))

        return SyncCodemodeTool(inner.name, inner.description, inner.input_schema, call)

    def close(self) -> None:
        """Close the runtime and stop the background loop."""
        if not self._loop.is_running():
            return
        self._run(self.runtime.aclose())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    def __enter__(self) -> SyncRuntime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
