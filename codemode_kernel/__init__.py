"""Code Mode for Python: durable code-mode passes over connectors, as a library and a Jupyter kernel.

Public names are imported lazily (PEP 562) so that the sandbox worker, which imports
``codemode_kernel.executor.sandbox`` from a clean interpreter, loads none of the host side
(SQLAlchemy, connectors, Jupyter).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codemode_kernel.adapters import (
        answer_anthropic,
        answer_openai_chat,
        answer_openai_responses,
        anthropic_tool,
        openai_chat_tool,
        openai_responses_tool,
        outcome_json,
        pydantic_ai_tool,
    )
    from codemode_kernel.code_tool import CodeTool, create_code_tool
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
    from codemode_kernel.truncation import truncate
    from codemode_kernel.types_text import generate_types_from_json_schema, json_schema_to_type
    from codemode_kernel.wrap_servers import code_mcp_server, openapi_mcp_server

__all__ = [
    "CodeTool",
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
    "answer_anthropic",
    "answer_openai_chat",
    "answer_openai_responses",
    "anthropic_tool",
    "code_mcp_server",
    "create_code_tool",
    "generate_types_from_json_schema",
    "json_schema_to_type",
    "openai_chat_tool",
    "openai_responses_tool",
    "openapi_mcp_server",
    "outcome_json",
    "pydantic_ai_tool",
    "tool",
    "truncate",
]

_HOMES = {
    "CodeTool": "codemode_kernel.code_tool",
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
    "answer_anthropic": "codemode_kernel.adapters",
    "answer_openai_chat": "codemode_kernel.adapters",
    "answer_openai_responses": "codemode_kernel.adapters",
    "anthropic_tool": "codemode_kernel.adapters",
    "code_mcp_server": "codemode_kernel.wrap_servers",
    "create_code_tool": "codemode_kernel.code_tool",
    "generate_types_from_json_schema": "codemode_kernel.types_text",
    "json_schema_to_type": "codemode_kernel.types_text",
    "openai_chat_tool": "codemode_kernel.adapters",
    "openai_responses_tool": "codemode_kernel.adapters",
    "openapi_mcp_server": "codemode_kernel.wrap_servers",
    "outcome_json": "codemode_kernel.adapters",
    "pydantic_ai_tool": "codemode_kernel.adapters",
    "tool": "codemode_kernel.connectors.base",
    "truncate": "codemode_kernel.truncation",
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
