"""Code Mode for Python: durable code-mode passes over connectors, as a library and a Jupyter kernel.

Public names are imported lazily (PEP 562) so that the sandbox worker, which imports
``codemode_kernel.executor.sandbox`` from a clean interpreter, loads none of the host side
(SQLAlchemy, connectors, Jupyter).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codemode_kernel.connectors.base import Connector, ExecutionContext, Tool, tool
    from codemode_kernel.connectors.mcp import McpConnector
    from codemode_kernel.connectors.openapi import OpenApiConnector
    from codemode_kernel.connectors.toolset import ToolSetConnector
    from codemode_kernel.executor.base import ExecuteResult, Executor
    from codemode_kernel.executor.inprocess import InProcessExecutor
    from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
    from codemode_kernel.models import (
        DescribeOutput,
        ExecutionState,
        PendingAction,
        SearchOutput,
        SearchResult,
        Snippet,
        ToolLogEntry,
    )
    from codemode_kernel.runtime import CodemodeRuntime
    from codemode_kernel.sync import SyncRuntime

__all__ = [
    "CodemodeRuntime",
    "Connector",
    "DescribeOutput",
    "ExecuteResult",
    "ExecutionContext",
    "ExecutionState",
    "Executor",
    "InProcessExecutor",
    "Limits",
    "McpConnector",
    "OpenApiConnector",
    "PendingAction",
    "SearchOutput",
    "SearchResult",
    "Snippet",
    "SubprocessExecutor",
    "SyncRuntime",
    "Tool",
    "ToolLogEntry",
    "ToolSetConnector",
    "tool",
]

_HOMES = {
    "CodemodeRuntime": "codemode_kernel.runtime",
    "Connector": "codemode_kernel.connectors.base",
    "DescribeOutput": "codemode_kernel.models",
    "ExecuteResult": "codemode_kernel.executor.base",
    "ExecutionContext": "codemode_kernel.connectors.base",
    "ExecutionState": "codemode_kernel.models",
    "Executor": "codemode_kernel.executor.base",
    "InProcessExecutor": "codemode_kernel.executor.inprocess",
    "Limits": "codemode_kernel.executor.isolated",
    "McpConnector": "codemode_kernel.connectors.mcp",
    "OpenApiConnector": "codemode_kernel.connectors.openapi",
    "PendingAction": "codemode_kernel.models",
    "SearchOutput": "codemode_kernel.models",
    "SearchResult": "codemode_kernel.models",
    "Snippet": "codemode_kernel.models",
    "SubprocessExecutor": "codemode_kernel.executor.isolated",
    "SyncRuntime": "codemode_kernel.sync",
    "Tool": "codemode_kernel.connectors.base",
    "ToolLogEntry": "codemode_kernel.models",
    "ToolSetConnector": "codemode_kernel.connectors.toolset",
    "tool": "codemode_kernel.connectors.base",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'codemode_kernel' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
