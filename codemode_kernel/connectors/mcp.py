"""McpConnector: the tools of an MCP server as one connector namespace (issue 4).

This is the only module that imports the ``mcp`` SDK (2.x) and its HTTP client ``httpx2``.

Connection lifecycle. The connection is opened on first use (listing tools or a call), kept
for the life of the connector (so every pass of a kernel session reuses one server
process), and closed by :meth:`McpConnector.aclose`, which the runtime calls when it
closes. The SDK's ``Client`` is an async context manager built on anyio task groups, which
must be entered and exited by the same task; so one *owner task* per connection enters it,
waits for a close signal and exits it, while calls are made from any task. When a call
finds the connection closed (the server process died), that call fails with a clear
``ConnectorError`` and the connection is dropped; the next call starts a new one. A call
is not retried automatically: it may have had effects before the server died.

Rejected: entering the client in whichever task made the first call (anyio refuses to exit
a cancel scope from another task, so ``aclose`` from the runtime would fail); a new
connection per call (a stdio server costs ~0.5-1 s to start, and state kept by the server
between calls would be lost); retrying a call after a reconnect (not exactly-once).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import json
import logging
import math
import os
import shlex
import shutil
import sys
from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TextIO

import anyio
import httpx2
import mcp_types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import get_default_environment
from mcp.client.streamable_http import streamable_http_client
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.server import MCPServer, Server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from codemode_kernel import codec
from codemode_kernel.connectors.base import Connector, ExecutionContext, RevertFn, Tool, sanitize_identifier
from codemode_kernel.connectors.bounded_body import BadCoding, ContentDecoder, OverLimit
from codemode_kernel.connectors.policy import (
    ConnectorPolicy,
    RevertMapping,
    check_keys,
    expand_env,
    get_bool,
    get_seconds,
    get_str,
    get_str_list,
    get_str_map,
    jsonable,
    shown,
    table_name,
)
from codemode_kernel.connectors.secrets import arg_secrets, config_secrets, listed, redacting, redactor, url_secrets
from codemode_kernel.connectors.stderr_tail import StderrTail
from codemode_kernel.errors import ConfigurationError, ConnectorError, OutcomeUnknown
from codemode_kernel.targets import credential_name, masked, secret_part

log = logging.getLogger(__name__)

_MAX_PAGES = 1000
#: The longest line (one JSON-RPC message) read from a stdio server, in bytes (review 14): sixteen times
#: the characters a call's value may hold (codec.MAX_VALUE_CHARS), room for a result sent twice (text and
#: structured) with escapes. A longer line ends the connection with an error naming this limit, before it
#: fills the host's memory; ``McpConnector.max_line_bytes`` changes it for one connector.
MAX_LINE_BYTES = 16 * codec.MAX_VALUE_CHARS
_STDIO_EXIT_WAIT = 2.0  # seconds a stdio server has to exit once its stdin closes, and again after SIGTERM
_GUARD = str(Path(__file__).with_name("stdio_guard.py"))  # the stdio servers' launcher, run as a script
_CONFIG_KEYS = ("mcp", "requires_approval", "no_approval", "approval_from_annotations", "reverts", "timeout",
                "connect_timeout", "hint", "instructions", "max_response_bytes")
_MCP_KEYS = ("command", "args", "env", "cwd", "url", "headers")


class McpConnector(Connector):
    """Expose an MCP server's tools as methods: ``notes.add_note(title="x")``.

    Exactly one of ``command`` (a stdio server: ``args``, ``env`` and ``cwd`` go with it),
    ``url`` (a streamable-HTTP server; ``headers`` go with it) or ``server`` (an in-process
    ``MCPServer`` or low-level ``Server``, for tests) is given. Tool names are sanitized to identifiers
    (``word-count`` → ``word_count``); two names that sanitize alike are refused.

    Results reach the code as plain values: ``structured_content`` when the server sends it
    (unwrapped from the SDK's ``{"result": ...}`` wrapper for scalars and lists), else JSON
    text parsed, else the text itself; several text items become a list; mixed content a
    list of simple dicts (``{"type": "image", "mime_type": ..., "data": <base64>}``). An
    ``is_error`` result is raised as ``ConnectorError`` with the server's message, which the
    code may catch.

    Approval: ``requires_approval`` (``True``, or names / ``fnmatch`` patterns) and
    ``no_approval`` (names / patterns) decide first; then, with
    ``approval_from_annotations=True``, a tool annotated ``destructive_hint`` needs approval
    and one annotated ``read_only_hint`` does not; otherwise no approval. Names may be the
    server's or the sanitized ones.

    ``reverts`` maps a method to its compensation: a ``RevertMapping`` (or a table
    ``{"method": "delete_note", "args": {"note_id": "$result.id"}}``) calling another tool of
    this server, or a function ``revert(args, result, ctx)``.

    ``timeout`` bounds each call (seconds, default 60); ``connect_timeout`` bounds starting
    the server and the MCP handshake (default 30). A call that was sent and got no answer (its
    timeout, a connection lost under it) raises :class:`~codemode_kernel.errors.OutcomeUnknown`:
    the server may have done it. A stdio server's lines are read up to ``max_line_bytes``
    (:data:`MAX_LINE_BYTES`, 16,000,000; set the attribute to change it); a longer one closes the
    connection with an error naming the limit. A server over HTTP is read up to ``max_response_bytes``
    (the same default; the attribute or the configuration key) per answer, or per event of a stream,
    decoded (gzip, deflate) in bounded pieces; a longer answer is an ``OutcomeUnknown`` naming the limit.

    Configuration (``codemode.toml``), read by :meth:`from_config`::

        [connectors.notes]
        mcp = { command = "python", args = ["-m", "codemode_kernel.demo.mcp_server"],
                env = { NOTES_TOKEN = "${NOTES_TOKEN}" }, cwd = "." }
        # or: mcp = { url = "http://127.0.0.1:8766/mcp", headers = { Authorization = "Bearer ${TOKEN}" } }
        # or: mcp = "mcp-server-time --local-timezone UTC"     (a command line)
        requires_approval = ["add_*", "delete_note"]   # or true / false
        no_approval = ["list_*"]
        approval_from_annotations = true               # default false
        reverts = { add_note = { method = "delete_note", args = { note_id = "$result.id" } } }
        timeout = 60                                   # seconds per call
        connect_timeout = 30                           # seconds to start and handshake
        hint = "Personal notes."                       # shown to models beside the name

    ``${VAR}`` in ``env`` values, ``headers`` values and ``url`` is replaced by the host's
    environment variable when the connection opens (a missing variable is an error naming
    it); the sandbox never sees these values. A stdio server gets a minimal environment
    (``HOME``, ``PATH``, ``SHELL``, ``TERM``, ``USER``, ``LOGNAME``, as the SDK does) plus
    ``env``: pass what it needs explicitly (``env = { GITHUB_TOKEN = "${GITHUB_TOKEN}" }``).
    From configuration, ``cwd`` is relative to the configuration file's folder and defaults to
    it (so relative paths in ``args`` work); so is ``command`` when it starts with ``./``.
    """

    def __init__(
        self,
        name: str,
        *,
        command: str | None = None,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        url: str | None = None,
        headers: Mapping[str, str] | None = None,
        server: MCPServer | Server[Any] | None = None,
        instructions: str | None = None,
        requires_approval: Collection[str] | bool = (),
        no_approval: Collection[str] = (),
        approval_from_annotations: bool = False,
        reverts: Mapping[str, RevertMapping | Mapping[str, Any] | RevertFn] | None = None,
        timeout: float = 60.0,
        connect_timeout: float = 30.0,
    ) -> None:
        where = f"McpConnector {name!r}"
        given = [k for k, v in (("command", command), ("url", url), ("server", server)) if v is not None]
        if len(given) != 1:
            raise ConfigurationError(f"{where}: give exactly one of command= (a stdio server), url= (streamable "
                                     f"HTTP) or server= (an in-process MCPServer); got {given or 'none'}.")
        if server is not None and not isinstance(server, (MCPServer, Server)):
            raise ConfigurationError(f"{where}: server= must be an mcp.server.MCPServer (or a low-level "
                                     f"mcp.server.Server); got {type(server).__name__}.")
        if timeout <= 0 or connect_timeout <= 0:
            raise ConfigurationError(f"{where}: timeout and connect_timeout must be positive numbers of seconds.")
        self.name = name
        self.instructions = instructions
        self.timeout = float(timeout)
        self.connect_timeout = float(connect_timeout)
        self.approval_from_annotations = approval_from_annotations
        self.policy = ConnectorPolicy.from_arguments(requires_approval, no_approval, reverts, where)
        self._target = _Target(
            command=command, args=list(args), env=dict(env) if env is not None else None,
            cwd=str(cwd) if cwd is not None else None, url=url, headers=dict(headers or {}), server=server,
            label=f"MCP server {name!r} ({_describe_target(command, args, url, server)})",
        )
        self._connection = _Connection(self._target, self.connect_timeout)
        self._server_tool_names: dict[str, str] = {}
        #: Each method's definition digest (the tool it stands for, its input schema), from the last listing.
        self.method_digests: dict[str, str] = {}
        #: The methods an execution records the digest of: those that need approval, and the reverts' tools.
        self.recorded_methods: frozenset[str] = frozenset()
        #: Each method with a configured revert mapping: the method that mapping calls.
        self.revert_methods: dict[str, str] = {}

    @property  # from where the server is: a command line, or a URL
    def target(self) -> str | None:  # type: ignore[override]
        t = self._target
        if t.url is not None:  # ${VAR} in the URL and the headers pick the tenant or account (review 15 H1)
            chosen = {f"header {k}": v for k, v in t.headers.items()}
            if "${" in t.url:
                chosen["url"] = t.url
            return f"mcp {masked(t.url, url_secrets(t.url, {}))}" + secret_part("with", chosen)
        if t.command is not None:  # the environment often names the server's data or account
            # `command = "python"` is this process's interpreter, whose path differs between doors (the kernel's
            # .venv/bin/python, the codemode script's .venv/bin/python3.11): named by its environment instead, so
            # a pause made in one door is approved in another (review 16x, H1).
            command = f"(the Python of {sys.prefix})" if t.command == sys.executable else t.command
            # No password in the fast hash (review 16 M1); a flag counts as a credential by its whole words (H1).
            hidden = arg_secrets(t.args, named=credential_name)
            args = [masked(a, hidden) for a in t.args]
            return (f"mcp {json.dumps([command, *args])} in {t.cwd or os.getcwd()}"  # where it runs, too
                    + secret_part("env", t.env or {}))
        return None  # an in-process server object: this very object

    @property  # the longest line read from a stdio server (bytes)
    def max_line_bytes(self) -> int:
        return self._connection.max_line_bytes

    @max_line_bytes.setter
    def max_line_bytes(self, value: int) -> None:
        self._connection.max_line_bytes = value

    @property  # the most read of one answer (a JSON body, or one event of a stream) from a server over HTTP
    def max_response_bytes(self) -> int:
        return self._connection.max_response_bytes

    @max_response_bytes.setter
    def max_response_bytes(self, value: int) -> None:
        self._connection.max_response_bytes = value

    # -- configuration ---------------------------------------------------------------------------

    @classmethod
    def from_config(cls, name: str, table: Mapping[str, Any], base_dir: Path) -> McpConnector:
        """Build from one ``[connectors.<name>]`` table; keys are listed in the class docstring."""
        where = table_name(name)
        check_keys(table, _CONFIG_KEYS, where)
        spec = table.get("mcp")
        if isinstance(spec, str):
            parts = shlex.split(spec)
            if not parts:
                raise ConfigurationError(f"{where}: mcp is an empty command line.")
            spec = {"command": parts[0], "args": parts[1:]}
        if not isinstance(spec, Mapping):
            raise ConfigurationError(f"{where}: mcp must be a table such as {{ command = \"mcp-server-time\", "
                                     f"args = [\"--local-timezone\", \"UTC\"] }} or {{ url = \"http://...\" }}; "
                                     f"got {shown(spec)}.")
        check_keys(spec, _MCP_KEYS, f"{where} mcp")
        command = get_str(spec, "command", f"{where} mcp")
        url = get_str(spec, "url", f"{where} mcp")
        if (command is None) == (url is None):
            raise ConfigurationError(f"{where}: mcp needs exactly one of `command` (a stdio server) or `url` "
                                     "(a streamable-HTTP server).")
        if url is not None and any(k in spec for k in ("args", "env", "cwd")):
            raise ConfigurationError(f"{where}: mcp.args, mcp.env and mcp.cwd apply to `command` servers only.")
        if command is not None and "headers" in spec:
            raise ConfigurationError(f"{where}: mcp.headers applies to `url` servers only.")
        cwd = get_str(spec, "cwd", f"{where} mcp")
        if command is not None and command.startswith(("./", "../")):
            command = str((base_dir / command).resolve())
        elif command in ("python", "python3"):
            # As Jupyter does for kernelspecs: "python" means the interpreter running the kernel,
            # not whichever one is first on PATH (the virtualenv may not be activated).
            command = sys.executable
        policy = ConnectorPolicy.from_table(table, where)
        limit = table.get("max_response_bytes", MAX_LINE_BYTES)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ConfigurationError(f"{where}: max_response_bytes must be a positive whole number of bytes; got "
                                     f"{shown(limit)}.")
        connector = cls(
            name,
            command=command,
            args=get_str_list(spec, "args", f"{where} mcp"),
            env=get_str_map(spec, "env", f"{where} mcp") if "env" in spec else None,
            cwd=str((base_dir / cwd).resolve()) if cwd is not None else (str(base_dir) if command else None),
            url=url,
            headers=get_str_map(spec, "headers", f"{where} mcp"),
            instructions=get_str(table, "instructions", where) or get_str(table, "hint", where),
            approval_from_annotations=get_bool(table, "approval_from_annotations", where, False),
            **policy.as_arguments(),
            timeout=get_seconds(table, "timeout", where, 60.0),
            connect_timeout=get_seconds(table, "connect_timeout", where, 30.0),
        )
        connector.max_response_bytes = limit
        return connector

    # -- the catalog -----------------------------------------------------------------------------

    def secrets(self) -> list[str]:
        """Credentials in the configuration: ``${VAR}`` values, credential-named env/headers/flags, URL passwords."""
        t = self._target
        return config_secrets(headers=t.headers, env=t.env, urls=[t.url], args=t.args)

    async def tools(self) -> Mapping[str, Tool]:
        """One method per MCP tool (all pages of ``tools/list``).

        A failure is a ConfigurationError with the whole story for the notebook's author (the
        server's command line, its last stderr lines), redacted of the configured secrets;
        ``failure_summary`` says it in words fit for a model.
        """
        self.failure_summary = "its MCP server did not start"
        async def build() -> dict[str, Tool]:
            return self._build_tools(await self._list_tools())

        built = await listed(build, name=self.name, doing="listing its tools", secrets=self.secrets())
        self.failure_summary = None
        return built

    def missing_command(self) -> str | None:
        """Why this connector cannot start, known without starting it: a bare command found nowhere.

        Checked with no I/O beyond looking at files (``resolve_command``), so ``codemode mcp`` can
        list such a connector as unavailable when it starts; a path that does not exist is left
        to fail when started, with its own error.
        """
        command = self._target.command
        if command is None or os.sep in command or resolve_command(command) is not None:
            return None
        if _command_line(command):
            return "its MCP server's command is written as a whole command line (the program and its arguments apart)"
        return f"its MCP server's command {command!r} is not installed on this machine"

    async def _list_tools(self) -> list[mcp_types.Tool]:
        missing = self.missing_command()
        command = self._target.command
        if missing is not None and command is not None and _command_line(command):
            self.failure_summary = missing
            parts = shlex.split(command)
            raise ConfigurationError(
                f"{self._target.label}: `mcp.command` is {command!r}, a whole command line, not a program: give the "
                f"program in `command` and the rest in `args` (command = {json.dumps(parts[0])}, args = "
                f"{json.dumps(parts[1:])}), or write the line itself as `mcp = {json.dumps(command)}`.")
        if missing is not None:
            self.failure_summary = missing
            raise ConfigurationError(
                f"{self._target.label}: the command {self._target.command!r} was not found in this Python's "
                f"bin folder ({Path(sys.executable).parent}) or on PATH. Install it into this environment, or "
                "give its absolute path in `mcp.command`.")
        try:
            client = await self._connection.client()
            self.failure_summary = "its MCP server did not list its tools"
            listed: list[mcp_types.Tool] = []
            cursor: str | None = None
            for _ in range(_MAX_PAGES):
                page = await asyncio.wait_for(client.list_tools(cursor=cursor), self.timeout)
                listed.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
        except ConnectorError as exc:
            # The runtime turns ConfigurationError from tools() into an error output and tries
            # again on the next execution, so a server that cannot start does not break it.
            raise ConfigurationError(str(exc)) from exc
        except (MCPError, TimeoutError, OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            await self._connection.discard()
            raise ConfigurationError(f"{self._target.label}: listing its tools failed: {_describe_exc(exc)}"
                                     f"{self._connection.stderr_note()}") from exc
        self.failure_summary = "its MCP server's tools could not be used as methods (a naming or configuration " \
                               "conflict)"
        return listed

    def _build_tools(self, listed: Sequence[mcp_types.Tool]) -> dict[str, Tool]:
        where = f"connector {self.name!r}"
        by_ident: dict[str, mcp_types.Tool] = {}
        for t in listed:
            ident = sanitize_identifier(t.name)
            if ident in by_ident:
                raise ConfigurationError(
                    f"{where}: the MCP tools {by_ident[ident].name!r} and {t.name!r} both become the method name "
                    f"{ident!r}; they cannot both be exposed. Ask the server to rename one, or wrap it in a "
                    "ToolSetConnector.")
            by_ident[ident] = t
        known = {t.name: ident for ident, t in by_ident.items()} | {ident: ident for ident in by_ident}
        self.policy.check(known, where, schemas={ident: t.input_schema for ident, t in by_ident.items()})
        self._server_tool_names = {ident: t.name for ident, t in by_ident.items()}
        self._note_definitions(by_ident, known)
        # The server may know the secrets it was given: what it says about its tools is redacted too.
        clean = redactor(self.secrets())
        out: dict[str, Tool] = {}
        for ident, t in by_ident.items():
            output_schema, wrapped = _output_schema(t.output_schema)
            approval = self.policy.requires_approval([t.name, ident], self._annotation_default(t))
            revert = self.policy.revert([t.name, ident], known, self._call_method,
                                        schemas={i: tt.input_schema for i, tt in by_ident.items() if tt.input_schema})
            out[ident] = redacting(Tool(
                execute=self._executor(t.name, wrapped, self._reads_only(t)),
                description=clean.text(_description(t)),
                input_schema=clean.value(dict(t.input_schema) if t.input_schema else {"type": "object",
                                                                                      "properties": {}}),
                output_schema=clean.value(output_schema),
                requires_approval=approval,
                revert=revert,
                reads_only=self._reads_only(t),
            ), self.secrets)
        return out

    def _note_definitions(self, by_ident: Mapping[str, mcp_types.Tool], known: Mapping[str, str]) -> None:
        """Keep what an approval or a rollback must find unchanged (``targets.tool_digests``): a digest of each
        method's definition (the server's tool name it stands for and its input schema; a description, a title
        or an output schema may change without changing what is sent where), and which methods an execution
        records: those that need approval (what an approval sends) and the reverts' tools (what a rollback
        sends). Another tool that changed is not this one: it refuses nothing."""
        reverts: dict[str, str] = {}
        for ident, t in by_ident.items():
            spec = next((self.policy.reverts[n] for n in (t.name, ident) if n in self.policy.reverts), None)
            if isinstance(spec, RevertMapping):
                reverts[ident] = known[spec.method]
        sent = {i for i, t in by_ident.items()
                if self.policy.requires_approval([t.name, i], self._annotation_default(t))}
        self.revert_methods = reverts
        self.method_digests = {i: _definition_digest(t) for i, t in by_ident.items()}
        self.recorded_methods = frozenset(sent | set(reverts.values()))

    def _annotation_default(self, t: mcp_types.Tool) -> bool:
        if not self.approval_from_annotations or t.annotations is None:
            return False
        if t.annotations.read_only_hint is True:
            return False
        return t.annotations.destructive_hint is True

    def _reads_only(self, t: mcp_types.Tool) -> bool:
        """Whether a tool that got no answer changed nothing: annotated read-only, with the author trusting the
        server's annotations (``approval_from_annotations``; review 15x M8)."""
        return self.approval_from_annotations and t.annotations is not None and t.annotations.read_only_hint is True

    def _executor(self, tool_name: str, wrapped: bool, reads_only: bool = False) -> Any:
        async def execute(args: dict[str, Any], ctx: ExecutionContext) -> Any:
            try:
                return await self.call(tool_name, args, wrapped=wrapped)
            except OutcomeUnknown as exc:
                if not reads_only:
                    raise
                # A read that got no answer did nothing: a plain error, which may be tried again.
                raise ConnectorError(_as_read(str(exc))) from None

        return execute

    async def _call_method(self, method: str, args: dict[str, Any], ctx: ExecutionContext) -> Any:
        """Call one of this server's tools by method name (a configured revert)."""
        return await self.call(self._server_tool_names.get(method, method), args)

    # -- calls -----------------------------------------------------------------------------------

    async def call(self, tool_name: str, args: Mapping[str, Any], *, wrapped: bool = False) -> Any:
        """Call one MCP tool by its server name and return its result as a plain value."""
        where = f"{self.name}.{sanitize_identifier(tool_name)}"
        try:
            client = await self._connection.client()
        except ConnectorError as exc:
            # A reconnect that fails: the details (command line, stderr) are for the host's log.
            self._log_detail(where, str(exc))
            raise ConnectorError(f"{where}: the MCP server {self.name!r} could not be started (again); the "
                                 "notebook's author can see why in the host's log. Try again later.") from None
        written = self._connection.calls_written
        refused = self._connection.answers_refused
        try:
            # The SDK's read timeout answers REQUEST_TIMEOUT; wait_for is the backstop for a
            # transport that never delivers the timeout (e.g. a wedged in-process server).
            result = await asyncio.wait_for(
                client.call_tool(tool_name, jsonable(dict(args)), read_timeout_seconds=self.timeout),
                self.timeout + 5)
        except TimeoutError:
            raise self._no_answer(where) from None
        except MCPError as exc:
            if self._connection.answers_refused != refused:
                raise self._too_large(where) from None
            if exc.code == mcp_types.REQUEST_TIMEOUT:
                raise self._no_answer(where) from None
            if exc.code == mcp_types.CONNECTION_CLOSED:
                raise await self._lost(where, exc, written) from None
            raise ConnectorError(f"{where}: the MCP server answered with error {exc.code}: {exc.message}") from None
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream, OSError) as exc:
            if self._connection.answers_refused != refused:
                raise self._too_large(where) from None
            raise await self._lost(where, exc, written) from None
        return _plain_result(result, where, wrapped)

    def _too_large(self, where: str) -> OutcomeUnknown:
        """An answer over ``max_response_bytes`` from a server over HTTP: the server did something, and what is
        not known (the answer was not read)."""
        limit = self._connection.max_response_bytes
        return OutcomeUnknown(
            f"{where}: the MCP server's answer was over {limit:,} bytes, the most read from an MCP server over HTTP "
            "(max_response_bytes), so it was not read: the server may have done it. Check (e.g. with a tool that "
            "reads) before calling it again; ask for less, or raise max_response_bytes (set it on the connector, "
            "or max_response_bytes = N in its codemode.toml table).")

    def _no_answer(self, where: str) -> OutcomeUnknown:
        """A call timed out: its request was sent, so the server may have done it (review 14, H5)."""
        return OutcomeUnknown(
            f"{where}: the MCP server did not answer within {self.timeout:g} s (timeout). The call was sent, so the "
            "server may have done it: check (e.g. with a tool that reads) before calling it again; raise `timeout` "
            "in the connector configuration if it is often this slow.")

    async def _lost(self, where: str, exc: BaseException, written: int) -> ConnectorError:
        """The model's error for a dead connection; the server's command and last stderr lines go to the log.

        ``written`` is the connection's count of calls written before this one began: a stdio
        connection that wrote none since lost it before this call was sent (nothing was done);
        otherwise the server may have done it before the connection ended (review 14, H5).
        """
        connection = self._connection
        note = connection.stderr_note()
        sent = connection.calls_written != written or not connection.counts_writes
        why = connection.lost_reason
        await connection.discard()
        self._log_detail(where, f"the connection to the {self._target.label} was lost ({why or _describe_exc(exc)})."
                                f"{note}")
        head = (f"{where}: the connection to the MCP server {self.name!r} was lost "
                f"({why or 'the server may have exited'})")
        if not sent:
            return ConnectorError(f"{head} before this call was sent; nothing was sent, and the next call "
                                  "reconnects.")
        return OutcomeUnknown(f"{head} while this call was under way: the server may have done it. Check (e.g. "
                              "with a tool that reads) before calling it again; the next call reconnects.")

    def _log_detail(self, where: str, detail: str) -> None:
        log.warning("%s: %s", where, redactor(self.secrets()).text(detail))

    async def aclose(self) -> None:
        """Close the connection (and stop a stdio server process)."""
        await self._connection.close()


# -- the connection --------------------------------------------------------------------------------


def _command_line(command: str) -> bool:
    """Whether ``command`` (found nowhere as a program) reads as a program followed by arguments."""
    try:
        parts = shlex.split(command)
    except ValueError:
        return False
    return len(parts) > 1 and resolve_command(parts[0]) is not None


class _Target:
    """Where the server is; ``${VAR}`` references are expanded when a connection opens."""

    def __init__(self, *, command: str | None, args: list[str], env: dict[str, str] | None, cwd: str | None,
                 url: str | None, headers: dict[str, str], server: MCPServer | Server[Any] | None,
                 label: str) -> None:
        self.command = command
        self.args = args
        self.env = env
        self.cwd = cwd
        self.url = url
        self.headers = headers
        self.server = server
        self.label = label


class _Connection:
    """One live MCP session, owned by a background task (see the module docstring)."""

    def __init__(self, target: _Target, connect_timeout: float) -> None:
        self.target = target
        self.connect_timeout = connect_timeout
        self._client: Client | None = None
        self._owner: asyncio.Task[None] | None = None
        self._closing: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock: asyncio.Lock | None = None
        self._stderr: StderrTail | None = None
        self._retired: list[tuple[asyncio.Task[None], asyncio.Event]] = []
        self.max_line_bytes = MAX_LINE_BYTES
        self.max_response_bytes = MAX_LINE_BYTES
        self.answers_refused = 0  # HTTP answers over max_response_bytes (counted by _CappedTransport)
        # Written by the stdio transport: how many tools/call requests reached the server's stdin (a call
        # lost with none written since it began was not sent), and why it ended the connection itself.
        self.counts_writes = target.command is not None
        self.calls_written = 0
        self.lost_reason: str | None = None

    async def client(self) -> Client:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            # A connection belongs to the event loop that opened it; a new loop (a new
            # asyncio.run) starts afresh. The old one cannot be closed from here.
            self._loop, self._lock = loop, asyncio.Lock()
            self._client, self._owner, self._closing, self._retired = None, None, None, []
        assert self._lock is not None
        async with self._lock:
            if self._client is not None and self._owner is not None and not self._owner.done():
                return self._client
            await self._start()
            assert self._client is not None
            return self._client

    async def _start(self) -> None:
        target = self.target
        stderr = StderrTail(target.label) if target.command is not None else None
        self._stderr = stderr
        try:
            transport = self._transport(stderr)
        except ConnectorError:
            if stderr is not None:
                stderr.close_writer()
            raise
        ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
        closing = asyncio.Event()

        async def owner() -> None:
            try:
                async with AsyncExitStack() as stack:
                    http = None
                    if target.url is not None:
                        headers = {k: expand_env(v, f"{target.label} header {k}") for k, v in target.headers.items()}
                        http = await stack.enter_async_context(httpx2.AsyncClient(
                            headers=headers, timeout=httpx2.Timeout(30.0, read=300.0),
                            transport=_CappedTransport(httpx2.AsyncHTTPTransport(), self)))
                    client = Client(transport(http), read_timeout_seconds=self.connect_timeout, cache=None)
                    try:
                        await stack.enter_async_context(client)
                    finally:
                        if stderr is not None:
                            stderr.close_writer()
                    ready.set_result(client)
                    await closing.wait()
            except BaseException as exc:  # handed to the waiting caller
                if not ready.done():
                    ready.set_exception(exc if isinstance(exc, Exception) else ConnectorError(repr(exc)))
                else:
                    log.debug("%s: connection ended: %r", target.label, exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise

        task = asyncio.get_running_loop().create_task(owner(), name=f"codemode-mcp {target.label}")
        try:
            client = await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task, 10)
            _retrieved(ready)  # the cancelled start's error is ours to drop, not asyncio's to report (15x L7)
            raise ConnectorError(f"{target.label} did not finish starting within {self.connect_timeout:g} s."
                                 f"{self.stderr_note()} Check the command, or raise `connect_timeout`.") from None
        except ConnectorError:
            raise
        except BaseException as exc:  # a start failure becomes one clear error
            if isinstance(exc, asyncio.CancelledError):
                task.cancel()  # the caller gave up (a runtime closing): the server half-started must not outlive it
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task, 10)
            _retrieved(ready)
            if isinstance(exc, asyncio.CancelledError):
                raise
            raise ConnectorError(f"{target.label} could not be started: {_describe_exc(exc)}."
                                 f"{self.stderr_note(wait=1.0)} Check the command and its arguments (run it in "
                                 "a terminal to see its output).") from None
        # (a ConnectorError from expand_env arrives through the future as itself)
        self._client, self._owner, self._closing = client, task, closing

    def _transport(self, stderr: StderrTail | None) -> Any:
        """A function of the optional HTTP client giving what ``Client`` connects to."""
        target = self.target
        if target.server is not None:
            server = target.server
            return lambda _http: server
        if target.url is not None:
            url = expand_env(target.url, f"{target.label} url")
            # The SDK's own cap on an event (1 MiB by default) must not refuse what ours lets through.
            return lambda http: streamable_http_client(url, http_client=http,
                                                       max_sse_event_size=self.max_response_bytes + 1)
        assert target.command is not None and stderr is not None
        env = {k: expand_env(v, f"{target.label} env {k}") for k, v in (target.env or {}).items()}
        command = resolve_command(target.command) or target.command
        params = StdioServerParameters(command=command, args=target.args, env=env or None, cwd=target.cwd)
        self.lost_reason = None
        return lambda _http: _stdio(params, stderr.writer, self)

    def stderr_note(self, wait: float = 0.3) -> str:
        if self._stderr is None:
            return ""
        tail = self._stderr.tail(wait)
        return f" Its stderr ended with:\n{tail}\n" if tail else ""

    async def discard(self) -> None:
        """Drop the current connection (it is dead); the next call opens a new one."""
        if self._owner is not None and self._closing is not None:
            self._closing.set()
            self._retired.append((self._owner, self._closing))
        self._client, self._owner, self._closing = None, None, None

    async def close(self) -> None:
        await self.discard()
        retired, self._retired = self._retired, []
        if self._loop is not asyncio.get_running_loop():
            return
        for task, closing in retired:
            closing.set()
            try:
                await asyncio.wait_for(task, 15)
            except BaseException:  # closing must reach every connection
                log.debug("%s: closing the connection failed", self.target.label, exc_info=True)


class _AnswerTooLarge(httpx2.StreamError):
    """An MCP server's HTTP answer over max_response_bytes (the SDK answers the request with an error)."""


class _CappedTransport(httpx2.AsyncBaseTransport):
    """The MCP SDK's HTTP client reads a JSON answer whole, however long (s15o): this transport gives it
    the body through a counter. A JSON body (any answer but an event stream) is read up to
    ``connection.max_response_bytes``; an event stream up to that much per event (the stream itself may
    last the session). Compressed answers are decoded here, in bounded pieces (bounded_body). Past the
    limit the read fails with :class:`_AnswerTooLarge`, and ``connection.answers_refused`` counts it, so
    the call that waited for it says why."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, connection: _Connection) -> None:
        self.inner = inner
        self.connection = connection

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        limit = self.connection.max_response_bytes
        headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() != "content-encoding"]
        try:
            decoder = ContentDecoder(response.headers.get("content-encoding", ""), limit)
        except BadCoding:
            decoder = ContentDecoder("", limit)  # read as it came; the SDK fails to parse it
        events = response.headers.get("content-type", "").lower().startswith("text/event-stream")
        stream = _CappedStream(response.stream, decoder, limit, events, self.connection)
        return httpx2.Response(response.status_code, headers=headers, stream=stream, extensions=response.extensions)

    async def aclose(self) -> None:
        await self.inner.aclose()


class _CappedStream(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, decoder: ContentDecoder, limit: int, events: bool, connection: _Connection) -> None:
        self.inner, self.decoder, self.limit, self.events, self.connection = inner, decoder, limit, events, connection
        self.size = 0  # bytes of the body (or, in an event stream, since the last event's end)
        self.tail = b""

    def _count(self, piece: bytes) -> None:
        if self.events:
            seen = self.tail + piece
            end = max((i + len(b) for b in (b"\n\n", b"\r\r", b"\r\n\r\n") if (i := seen.rfind(b)) >= 0), default=-1)
            self.size = len(seen) - end if end >= 0 else self.size + len(piece)
            self.tail = seen[-3:]
        else:
            self.size += len(piece)
        if self.size > self.limit:
            self._refuse()

    def _refuse(self) -> None:
        self.connection.answers_refused += 1
        raise _AnswerTooLarge(f"the MCP server's answer was over {self.limit:,} bytes (max_response_bytes)")

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for raw in self.inner:
                for piece in self.decoder.decode(raw):
                    self._count(piece)
                    yield piece
            for piece in self.decoder.flush():
                self._count(piece)
                yield piece
        except OverLimit:
            self._refuse()
        except BadCoding as exc:
            raise httpx2.DecodingError(str(exc)) from None

    async def aclose(self) -> None:
        await self.inner.aclose()


@contextlib.asynccontextmanager
async def _stdio(params: StdioServerParameters, errlog: TextIO, connection: _Connection
                 ) -> AsyncIterator[tuple[Any, Any]]:
    """A stdio server as the pair of streams ``Client`` talks over, reading its lines with a cap.

    The SDK's ``stdio_client`` keeps a line however long it grows (a hostile or broken server can
    fill the host's memory, review 14); this one ends the connection at ``connection.max_line_bytes``
    and says why in ``connection.lost_reason``. It also counts the ``tools/call`` requests written to
    the server's stdin, so a call lost before its request was written is known not to have been sent.
    The server runs in its own process group and is stopped as the SDK does: stdin closed, then
    SIGTERM to the group, then SIGKILL. It is started through :mod:`stdio_guard`, which ends that group
    when this process dies without stopping it (a SIGKILL, a crash): the read end of a pipe only this
    process writes to is its watch.
    """
    env = get_default_environment() | (params.env or {})
    _check_program(params.command, env, params.cwd)  # as the spawn would have said it, before the launcher runs
    watch, held = os.pipe()  # both close-on-exec: the launcher gets ``watch`` alone (pass_fds)
    try:
        process = await anyio.open_process(
            [sys.executable, "-I", "-S", _GUARD, str(watch), "1" if "LC_CTYPE" in env else "0", params.command,
             *params.args], env=env, stderr=errlog, cwd=params.cwd, start_new_session=True, pass_fds=(watch,))
    except BaseException:
        os.close(held)
        raise
    finally:
        os.close(watch)
    try:
        async with _serving(process, connection) as streams:
            yield streams
    finally:
        os.close(held)  # after the stop: the launcher's watchdog would otherwise end the group itself


def _check_program(command: str, env: Mapping[str, str], cwd: str | Path | None) -> None:
    """Raise the ``OSError`` starting ``command`` would (not found, not executable): the launcher execs it later."""
    if os.sep in command:
        path: str | None = os.path.join(cwd or "", command)  # a relative path is run from ``cwd``
    else:
        path = shutil.which(command, path=env.get("PATH", os.defpath))
    if path is None or not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), command)
    if os.path.isdir(path) or not os.access(path, os.X_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), command)


@contextlib.asynccontextmanager
async def _serving(process: Any, connection: _Connection) -> AsyncIterator[tuple[Any, Any]]:
    """The streams of a started stdio server (see :func:`_stdio`); the server is stopped on the way out."""
    to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, outgoing = anyio.create_memory_object_stream[SessionMessage](0)
    assert process.stdout is not None and process.stdin is not None
    stdout, stdin = process.stdout, process.stdin

    async def read_lines() -> None:
        limit = connection.max_line_bytes
        buffer = bytearray()
        delivering = True
        with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with to_session:
                async for chunk in stdout:
                    if not delivering:
                        continue  # drain, so a server writing its last words can exit
                    searched = len(buffer)  # the buffer holds no newline before this chunk
                    buffer += chunk
                    start, too_long = 0, False
                    while delivering and (end := buffer.find(b"\n", searched)) >= 0:
                        if end - start > limit:
                            too_long = True
                            break
                        line, start = bytes(buffer[start:end]), end + 1
                        searched = start
                        if line.strip():
                            try:
                                await to_session.send(_message(line))
                            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                                delivering = False  # the session is gone
                    if delivering and (too_long or len(buffer) - start > limit):
                        connection.lost_reason = (f"it sent a message line over {limit:,} bytes, the most read "
                                                  "from a stdio server (max_line_bytes)")
                        log.warning("%s: %s; the connection was closed", connection.target.label,
                                    connection.lost_reason)
                        return
                    del buffer[:start]

    async def write_messages() -> None:
        try:
            async with outgoing:
                async for message in outgoing:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
                    await stdin.send(data)
                    sent = getattr(message.message, "root", message.message)
                    if getattr(sent, "method", None) == "tools/call":
                        connection.calls_written += 1
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await to_session.aclose()  # the server cannot be written to: the session sees the end

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_lines)
        tasks.start_soon(write_messages)
        try:
            yield from_server, to_server
        finally:
            with anyio.CancelScope(shield=True):
                for stream in (from_server, to_server):
                    await stream.aclose()
                await _stop_process(process)
            tasks.cancel_scope.cancel()


def _message(line: bytes) -> SessionMessage | Exception:
    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:  # the session reports it as the SDK's transport does
        return exc


async def _stop_process(process: Any) -> None:
    """Close the server's stdin, give it time to exit, then end its process group."""
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    if not await _exited(process, _STDIO_EXIT_WAIT):
        await terminate_posix_process_tree(process, _STDIO_EXIT_WAIT)
        await _exited(process, _STDIO_EXIT_WAIT)
    with anyio.move_on_after(_STDIO_EXIT_WAIT), contextlib.suppress(Exception):
        await process.aclose()


async def _exited(process: Any, seconds: float) -> bool:
    # returncode, not process.wait(): that also waits for the pipes' EOF, which a child of the server
    # holding them would delay for ever.
    with anyio.move_on_after(seconds):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None


def resolve_command(command: str) -> str | None:
    """The program a stdio server's ``command`` runs, or ``None`` when it cannot be found.

    A bare name is looked up in the running interpreter's own ``bin`` folder first, then on
    ``PATH``: an agent host launches ``/path/.venv/bin/codemode mcp`` without activating the
    virtualenv, and ``mcp-server-time`` installed beside it must still be found (issue 15). The
    interpreter's folder is taken unresolved (``.venv/bin``, not where its symlink points).
    A command with a ``/`` is a path and is used as it is (when it exists).
    """
    if os.sep in command or (os.altsep and os.altsep in command):
        return command if os.access(command, os.X_OK) and not os.path.isdir(command) else None
    beside = Path(sys.executable).parent / command
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(command)


# -- results ---------------------------------------------------------------------------------------


def _output_schema(schema: Mapping[str, Any] | None) -> tuple[dict[str, Any] | None, bool]:
    """The schema of the value the code receives, and whether the SDK wrapped it in ``{"result": ...}``.

    ``MCPServer`` wraps scalars, lists and unions in an object with one required ``result``
    property and a title ending in ``Output``; the code gets the inner value.
    """
    if not schema:
        return None, False
    props = schema.get("properties")
    title = schema.get("title")
    if (isinstance(props, Mapping) and list(props) == ["result"] and schema.get("required") == ["result"]
            and isinstance(title, str) and title.endswith("Output")):
        inner = dict(props["result"])
        if "$defs" in schema:
            inner["$defs"] = schema["$defs"]
        inner.pop("title", None)
        return inner, True
    return dict(schema), False


def _plain_result(result: mcp_types.CallToolResult, where: str, wrapped: bool) -> Any:
    if result.is_error:
        texts = [c.text for c in result.content if isinstance(c, mcp_types.TextContent)]
        message = " ".join(t.strip() for t in texts if t.strip()) or "(no message)"
        raise ConnectorError(f"{where} failed: {message}")
    structured = result.structured_content
    if structured is not None:
        structured = _without_non_numbers(structured)
        if wrapped and isinstance(structured, Mapping) and set(structured) == {"result"}:
            return structured["result"]
        return structured
    content = list(result.content)
    if not content:
        return None
    if all(isinstance(c, mcp_types.TextContent) for c in content):
        values = [_parse_text(c.text) for c in content if isinstance(c, mcp_types.TextContent)]
        return values[0] if len(values) == 1 else values
    return [_content_dict(c) for c in content]


def _without_non_numbers(value: Any) -> Any:
    """``value`` with NaN and the infinities as ``None``, as an SDK server writes them: the SDK's JSON
    parser reads them from a server that writes its lines with Python's ``json`` (review 13), and no
    JSON value holds them. Walked only when there is one (the C encoder finds it)."""
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        return _finite_walk(value)
    except Exception:  # not JSON at all: the codec says so where the result crosses
        pass
    return value


def _finite_walk(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite_walk(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite_walk(v) for v in value]
    return value


def _parse_text(text: str) -> Any:
    stripped = text.strip()
    if stripped[:1] in ('{', '[', '"') or stripped in ("true", "false", "null") or _is_number(stripped):
        try:
            return codec.loads_data(stripped)
        except ValueError:  # not JSON, or NaN / Infinity (no JSON value): the text as it came
            return text
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.lower() not in ("nan", "inf", "-inf", "infinity", "-infinity", "+inf")


def _content_dict(c: Any) -> dict[str, Any]:
    if isinstance(c, mcp_types.TextContent):
        return {"type": "text", "text": c.text}
    if isinstance(c, (mcp_types.ImageContent, mcp_types.AudioContent)):
        return {"type": c.type, "mime_type": c.mime_type, "data": c.data}
    if isinstance(c, mcp_types.ResourceLink):
        out = {"type": "resource_link", "uri": str(c.uri), "name": c.name}
        if c.mime_type:
            out["mime_type"] = c.mime_type
        if c.description:
            out["description"] = c.description
        return out
    if isinstance(c, mcp_types.EmbeddedResource):
        res = c.resource
        item: dict[str, Any] = {"type": "resource", "uri": str(res.uri)}
        if res.mime_type:
            item["mime_type"] = res.mime_type
        if isinstance(res, mcp_types.TextResourceContents):
            item["text"] = res.text
        elif isinstance(res, mcp_types.BlobResourceContents):
            item["blob"] = res.blob
        return item
    dumped = c.model_dump(mode="json", exclude_none=True) if hasattr(c, "model_dump") else {"type": "unknown"}
    return dict(dumped) if isinstance(dumped, dict) else {"type": "unknown"}


def _definition_digest(t: mcp_types.Tool) -> str:
    """The server's name of a tool and its input schema, hashed (16 hex digits: the digest guards against a
    server that changed, not against one forging a collision; a hostile server does what it likes anyway)."""
    text = json.dumps([t.name, t.input_schema], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _description(t: mcp_types.Tool) -> str:
    text = t.description or t.title or (t.annotations.title if t.annotations and t.annotations.title else "")
    return text or f"The MCP tool {t.name!r}."


def _as_read(unknown: str) -> str:
    """An OutcomeUnknown's text for a tool that only reads: what happened, then that nothing was changed."""
    what = unknown.split(": the server may have done it", 1)[0].split(". The call was sent", 1)[0].rstrip(".")
    if "max_response_bytes" in what:
        advice = "ask for less, or raise max_response_bytes"
    elif "(timeout)" in what:
        advice = "try it again, or raise `timeout` in the connector configuration if it is often this slow"
    else:
        advice = "try it again (the next call reconnects)"
    return f"{what}. The tool only reads (its server annotates it read-only), so nothing was changed: {advice}."


def _describe_target(command: str | None, args: Sequence[str], url: str | None, server: Any) -> str:
    if command is not None:
        return "command " + shlex.join([command, *args])
    if url is not None:
        return f"url {url}"
    return f"in-process {type(server).__name__}"


def _retrieved(future: asyncio.Future[Any]) -> None:
    """Mark a finished future's exception as seen: a start given up on leaves one nobody awaits."""
    if future.done() and not future.cancelled():
        future.exception()


def _describe_exc(exc: BaseException) -> str:
    """One line for an exception, looking inside exception groups for the real cause."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
