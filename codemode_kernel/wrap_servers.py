"""MCP servers that expose a code tool: ``code_mcp_server`` and ``openapi_mcp_server`` (issue 15).

The seeds' ``codeMcpServer`` and ``openApiMcpServer``, as ``mcp`` SDK ``MCPServer`` objects: serve
them with ``run_stdio_async()``, ``streamable_http_app()``, or hand them to ``mcp.Client`` in
process. Their tools are non-durable code tools (:mod:`codemode_kernel.code_tool`): each
program runs once, in the executor (isolated by default), and nothing is journaled.

- ``code_mcp_server`` wraps an upstream MCP server in an :class:`McpConnector` (so results
  are unwrapped exactly as in a notebook) and exposes one tool, ``codemode``, whose programs
  call the upstream tools as methods of one global named after the server.
- ``openapi_mcp_server`` exposes ``search`` (the program reads the OpenAPI document, its local
  ``$ref``s resolved, as the global ``spec``) and ``execute`` (the program calls
  ``<name>.request(method=..., path=..., query=..., body=...)``; the host forwards each call to
  your ``request(options)``, so credentials stay in your function, never in the sandbox).

A failed program comes back as an MCP error result (``isError: true``) whose text and
structured content are the JSON outcome (``error``, ``error_type``, ``logs``).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import anyio
from mcp.server import MCPServer, Server
from mcp_types import CallToolResult, TextContent, ToolAnnotations

from codemode_kernel import json_pointer
from codemode_kernel.code_tool import OUTPUT_SCHEMA, CodeRunner, CodeTool, code_tool_description
from codemode_kernel.connectors.base import Connector, Tool, sanitize_identifier
from codemode_kernel.connectors.mcp import McpConnector
from codemode_kernel.connectors.openapi_document import OpenApiDocument, parse_text
from codemode_kernel.discovery.tool_text import INPUT_SCHEMA as CODE_INPUT_SCHEMA
from codemode_kernel.errors import ArgumentError, ConfigurationError
from codemode_kernel.executor.base import Executor
from codemode_kernel.executor.language import LANGUAGE_RULES
from codemode_kernel.truncation import truncate

UpstreamServer = MCPServer | Server[Any] | McpConnector | str | Sequence[str]
RequestFn = Callable[[dict[str, Any]], Awaitable[Any]]
Transform = Callable[[Any], Any]

#: What the servers' tools return at most by default: a program that returns a whole document or
#: a huge listing would flood the model's context, so a longer result is cut with a note
#: (``transform_result=None`` turns it off).
MAX_RESULT_CHARS = 100_000
DEFAULT_TRANSFORM: Transform = functools.partial(truncate, max_chars=MAX_RESULT_CHARS)

HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
#: Above this many characters of JSON, the ``spec`` global keeps ``#/components/schemas`` references
#: instead of inlining them (a GitHub-sized document inlined is tens of megabytes).
MAX_INLINED_SPEC_CHARS = 4_000_000
CLOSE_TIMEOUT = 20.0  # seconds to stop the upstream server and the workers when serving ends


# -- code_mcp_server ---------------------------------------------------------------------------------


async def code_mcp_server(server: UpstreamServer, executor: Executor | None = None, description: str | None = None,
                          *, name: str | None = None, transform_result: Transform | None = DEFAULT_TRANSFORM
                          ) -> MCPServer:
    """An ``MCPServer`` with one tool, ``codemode``, whose programs call ``server``'s tools.

    ``server`` is an ``MCPServer`` (or low-level ``Server``) in this process, a URL of a
    streamable-HTTP server, a command line (a string, or a list of words) of a stdio server,
    or an :class:`McpConnector` you configured (approvals, timeouts, headers). The global is
    ``name``, else the server's name (``MCPServer("notes")`` → ``notes``), the stdio
    command's (``mcp-server-time`` → ``mcp_server_time``; ``python -m pkg.srv`` → ``srv``) or
    the URL's host (``api.example.com`` → ``api``). The upstream tools are listed now, so an
    unreachable server fails here with a clear ``ConfigurationError``. A result longer than
    ``MAX_RESULT_CHARS`` reaches the model cut, with a note (``transform_result``).
    """
    connector = _upstream(server, name)
    await connector.tools()
    runner = CodeRunner({connector.name: connector}, executor, transform_result)
    tool = CodeTool("codemode", code_tool_description(runner.connectors, description), dict(CODE_INPUT_SCHEMA),
                    dict(OUTPUT_SCHEMA), runner.run, runner.aclose)
    out = MCPServer(f"codemode-{connector.name}", instructions=(
        f"Code Mode over the MCP server {connector.name!r}: send one short Python program to the `codemode` tool; "
        f"it calls the server's tools as methods of the global `{connector.name}` and returns the value of its "
        "last expression."), lifespan=_closing(tool))
    _register(out, tool.name, tool.description, tool.call)
    return out


def _upstream(server: Any, name: str | None) -> McpConnector:
    if name is not None and (not isinstance(name, str) or sanitize_identifier(name) != name):
        hint = f"; try {sanitize_identifier(name)!r}" if isinstance(name, str) else ""
        raise ConfigurationError(f"code_mcp_server: name must be a Python identifier (the program's global); got "
                                 f"{name!r}{hint}")
    if isinstance(server, McpConnector):
        if name is not None and name != server.name:
            raise ConfigurationError(f"code_mcp_server: the McpConnector is named {server.name!r}; name "
                                     f"{name!r} cannot rename it (build the connector with that name instead)")
        return server
    if isinstance(server, (MCPServer, Server)):
        instructions = getattr(server, "instructions", None)
        return McpConnector(name or sanitize_identifier(str(server.name or "server")), server=server,
                            instructions=instructions if isinstance(instructions, str) else None)
    if isinstance(server, str) and server.startswith(("http://", "https://")):
        return McpConnector(name or _url_name(server), url=server)
    words = shlex.split(server) if isinstance(server, str) else list(server) if isinstance(server, Sequence) else None
    if not words or not all(isinstance(w, str) for w in words):
        raise ConfigurationError(
            "code_mcp_server: server must be an MCPServer, an McpConnector, a URL (http://.../mcp) or a command line "
            f"('mcp-server-time --local-timezone UTC' or a list of words); got {type(server).__name__}")
    command, args = words[0], words[1:]
    if command in ("python", "python3"):  # as for kernelspecs: the interpreter running this code
        command = sys.executable
    return McpConnector(name or _command_name(words), command=command, args=args)


def _command_name(words: Sequence[str]) -> str:
    stem = Path(words[0]).stem
    if stem.startswith("python") and "-m" in words[:-1]:
        stem = words[words.index("-m") + 1].rsplit(".", 1)[-1]
    return sanitize_identifier(stem)


def _url_name(url: str) -> str:
    host = urlparse(url).hostname or ""
    first = host.split(".", 1)[0]
    if not first or first.isdigit() or first == "localhost":
        return "server"
    return sanitize_identifier(first)


# -- openapi_mcp_server ------------------------------------------------------------------------------


def openapi_mcp_server(spec: Mapping[str, Any] | str | os.PathLike[str], request: RequestFn,
                       executor: Executor | None = None, name: str = "api", version: str | None = None,
                       description: str | None = None, *,
                       transform_result: Transform | None = DEFAULT_TRANSFORM) -> MCPServer:
    """An ``MCPServer`` with the tools ``search`` and ``execute`` over an OpenAPI 3.x document.

    ``spec`` is the document (a dict) or the path of a JSON/YAML file. ``request(options)`` is
    your async function that performs one HTTP request; ``options`` holds ``method`` (upper
    case), ``path`` and, when the program gave them, ``query``, ``body`` and
    ``content_type``; what it returns (JSON data) is what the program receives, and what it
    raises the program sees as an exception (type and message only). ``name`` is the server's
    name and the program's global; ``version`` the server's version (default: the document's
    ``info.version``). ``path`` always starts with one ``/`` (``//host/...`` and control
    characters are refused before ``request`` runs), so it cannot name another host. A result
    longer than ``MAX_RESULT_CHARS`` reaches the model cut, with a note (``transform_result``).
    """
    if not isinstance(name, str) or sanitize_identifier(name) != name:
        raise ConfigurationError(f"openapi_mcp_server: name must be a Python identifier (the program's global); "
                                 f"got {name!r}")
    if not callable(request):
        raise ConfigurationError("openapi_mcp_server: request must be an async function request(options: dict)")
    document = _read_document(spec)
    resolved = resolved_document(document)
    info = document.data.get("info") if isinstance(document.data.get("info"), Mapping) else {}
    title = document.title or name
    api_version = str(version or (info.get("version") if isinstance(info, Mapping) else "") or "")

    searcher = CodeRunner({}, executor, transform_result, inputs={"spec": resolved})
    caller = CodeRunner({name: _RequestConnector(name, request, title)}, searcher.executor, transform_result)

    async def close() -> None:
        await searcher.aclose()
        await caller.aclose()

    head = description or f"The HTTP API {title!r}" + (f" (version {api_version})" if api_version else "") + "."
    server = MCPServer(name, version=api_version, instructions=(
        f"{head} First use `search` to find the operations you need in its OpenAPI document, then `execute` to "
        "call them. Both take one short Python program."), lifespan=_closing(None, close))
    _register(server, "search", "\n".join([
        head, "",
        "Search the API's OpenAPI document: write a Python program that reads the global `spec` (the document, "
        "a dict, with its local $refs resolved) and ends with an expression giving what you found. For example:",
        "[(p, m, op.get('summary')) for p, item in spec['paths'].items() for m, op in item.items() "
        "if 'pet' in p]",
        "Return a small selection (paths, summaries, parameters), not the whole document.",
        "Language: " + LANGUAGE_RULES]), searcher.run, read_only=True)
    _register(server, "execute", "\n".join([
        head, "",
        f"Call the API: write a Python program that calls `{name}.request(method='GET', path='/items/1', "
        "query={'limit': 10}, body={...})` (method and path are required; path is relative to the API's server) "
        "and ends with an expression giving the answer. Each request returns the response's data; a failed "
        "request raises an exception you may catch. Combine several requests in one program and return only "
        "what is needed. Use `search` first to learn the paths and parameters.",
        "Language: " + LANGUAGE_RULES]), caller.run)
    return server


def _read_document(spec: Any) -> OpenApiDocument:
    if isinstance(spec, Mapping):
        return OpenApiDocument(spec, "the OpenAPI document")
    if isinstance(spec, (str, os.PathLike)):
        path = Path(spec)
        if not path.is_file():
            raise ConfigurationError(f"openapi_mcp_server: spec must be a dict or the path of an OpenAPI file; "
                                     f"{str(spec)[:200]!r} is not a file (fetch a URL yourself and pass the dict)")
        return OpenApiDocument(parse_text(path.read_text(encoding="utf-8"), str(path)), str(path))
    raise ConfigurationError(f"openapi_mcp_server: spec must be a dict or a file path; got {type(spec).__name__}")


def resolved_document(document: OpenApiDocument, max_chars: int = MAX_INLINED_SPEC_CHARS) -> dict[str, Any]:
    """The document with every local ``$ref`` replaced by what it names.

    A reference inside its own expansion (a recursive schema) stays ``{"$ref": ...}``, as do
    references to other files. When the result would pass ``max_chars`` characters of JSON,
    references to ``#/components/schemas/...`` stay too (the schemas are under
    ``spec['components']['schemas']``).
    """
    full = _Inliner(document, keep_schemas=False).walk(document.data, ())
    if len(json.dumps(full, default=str)) <= max_chars:
        return dict(full)
    return dict(_Inliner(document, keep_schemas=True).walk(document.data, ()))


class _Inliner:
    def __init__(self, document: OpenApiDocument, keep_schemas: bool) -> None:
        self.document = document
        self.keep_schemas = keep_schemas
        self.done: dict[str, Any] = {}  # references whose expansion met no cycle

    def walk(self, node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, Mapping):
            ref = node.get("$ref")
            if isinstance(ref, str) and json_pointer.is_local(ref) and not (
                    self.keep_schemas and ref.startswith("#/components/schemas/")):
                target = self.expand(ref, stack)
                extra = {str(k): self.walk(v, stack) for k, v in node.items() if k != "$ref"}
                return {**target, **extra} if extra and isinstance(target, dict) else target
            return {str(k): self.walk(v, stack) for k, v in node.items()}
        if isinstance(node, list):
            return [self.walk(v, stack) for v in node]
        return node

    def expand(self, ref: str, stack: tuple[str, ...]) -> Any:
        if ref in stack:
            return {"$ref": ref}
        if ref in self.done:
            return self.done[ref]
        value = self.walk(self.document.resolve(ref, f"$ref {ref}"), (*stack, ref))
        if not _has_ref(value):
            self.done[ref] = value
        return value


def _has_ref(node: Any) -> bool:
    if isinstance(node, dict):
        return "$ref" in node or any(_has_ref(v) for v in node.values())
    if isinstance(node, list):
        return any(_has_ref(v) for v in node)
    return False


class _RequestConnector(Connector):
    """One method, ``request``, forwarded to the user's ``request(options)`` on the host."""

    def __init__(self, name: str, request: RequestFn, title: str) -> None:
        self.name = name
        self.instructions = f"The HTTP API {title!r}: request(method=..., path=..., query=..., body=...)."
        self._request = request

    def tools(self) -> Mapping[str, Tool]:
        async def execute(args: dict[str, Any], ctx: Any) -> Any:
            problem = _path_problem(str(args["path"]))
            if problem is not None:
                raise ArgumentError(f"{self.name}.request: the path {problem}; nothing was sent. Give the path of "
                                    "the resource itself, from the API's server (e.g. /pets/1).")
            options: dict[str, Any] = {"method": str(args["method"]).upper(), "path": args["path"]}
            for key in ("query", "body", "content_type"):
                if key in args:
                    options[key] = args[key]
            return await self._request(options)

        return {"request": Tool(execute=execute, description="Send one HTTP request to the API; returns its data.",
                                input_schema=REQUEST_SCHEMA)}


REQUEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "method": {"type": "string", "enum": [*HTTP_METHODS, *(m.lower() for m in HTTP_METHODS)],
                   "description": "The HTTP method."},
        # One leading slash, then no slash, backslash or control character (C0, DEL, C1): no //other-host/...
        # Dot segments are refused by _path_problem (they would leave a base path's prefix).
        "path": {"type": "string", "pattern": r"^/([^/\\\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*)?$",
                 "description": "The path, from the API's server, e.g. /pets/1."},
        "query": {"type": "object", "description": "Query parameters.",
                  "additionalProperties": {"type": ["string", "number", "integer", "boolean", "null"]}},
        "body": {"description": "The request body (JSON data)."},
        "content_type": {"type": "string", "description": "The body's media type (default application/json)."},
    },
    "required": ["method", "path"],
    "additionalProperties": False,
}


_SEPARATORS = re.compile(r"[/\\]")


def _path_problem(path: str) -> str | None:
    """Why ``path`` cannot be sent as the program gave it, or None (review 14): a ``.`` or ``..`` segment
    (also percent-encoded, or between backslashes, which some servers read as slashes) would reach another
    path than the one named, above the API's base path on the same host."""
    if any(ord(c) < 32 or 127 <= ord(c) <= 159 for c in path):
        return "holds a control character"
    if any(segment in (".", "..") for segment in _SEPARATORS.split(unquote(path))):
        return f"{path[:200]!r} has a '.' or '..' segment, which would name another path than the one written"
    return None


# -- shared ------------------------------------------------------------------------------------------


def _register(server: MCPServer, tool_name: str, description: str, run: Callable[[str], Awaitable[dict[str, Any]]],
              *, read_only: bool = False) -> None:
    async def code_tool(code: str) -> CallToolResult:
        outcome = await run(code)
        return CallToolResult(content=[TextContent(type="text", text=json.dumps(outcome, ensure_ascii=False))],
                              structured_content=outcome, is_error="error" in outcome)

    annotations = ToolAnnotations(read_only_hint=True) if read_only else None
    server.tool(name=tool_name, description=description, annotations=annotations)(code_tool)


def _closing(tool: CodeTool | None, close: Callable[[], Awaitable[None]] | None = None
             ) -> Callable[[MCPServer], Any]:
    """A lifespan that stops the tool's workers and upstream connection when the server stops serving."""

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[dict[str, Any]]:
        try:
            yield {}
        finally:
            # Shielded: a server stopped by cancellation (a client gone, Ctrl-C) still stops the
            # upstream process and the workers; bounded, so a stuck upstream cannot hold the exit.
            with anyio.move_on_after(CLOSE_TIMEOUT, shield=True):
                if tool is not None:
                    await tool.aclose()
                if close is not None:
                    await close()

    return lifespan
