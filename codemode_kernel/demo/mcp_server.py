"""A small notes MCP server for demos and tests, built with the SDK's ``MCPServer``.

In-process::

    from codemode_kernel.demo.mcp_server import build_server
    McpConnector("notes", server=build_server())

As a subprocess (stdio, the usual way MCP servers run)::

    python -m codemode_kernel.demo.mcp_server [--store notes.json]

Over streamable HTTP on 127.0.0.1 (prints ``codemode demo listening on http://…/mcp``)::

    python -m codemode_kernel.demo.mcp_server --http --port 0 [--token-env DEMO_MCP_TOKEN]

Its tools cover what a connector meets in the wild: structured results (objects and
wrapped scalars/lists), plain text, JSON text, mixed text + image content, a tool that
fails (``is_error``), a slow tool (timeouts), a hyphenated name, read-only and destructive
annotations, and (only with ``--allow-crash``) a tool that kills the server process.
``stats`` counts calls per tool, so tests can prove a call ran exactly once.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp_types import ToolAnnotations
from typing_extensions import TypedDict  # pydantic needs it on Python < 3.12

from codemode_kernel.demo.serving import add_server_arguments, serve

# A 1x1 PNG, so the mixed-content tool needs no imaging library.
_PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


class Note(TypedDict):
    """A note."""

    id: int
    title: str
    body: str
    tags: list[str]


class NoteStore:
    """Notes in memory, optionally mirrored to a JSON file (so a test can read it from outside)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.notes: dict[int, Note] = {}
        self.next_id = 1
        self.calls: Counter[str] = Counter()
        if path is not None and path.exists():
            data = json.loads(path.read_text())
            self.notes = {int(k): v for k, v in data.get("notes", {}).items()}
            self.next_id = int(data.get("next_id", 1))
            self.calls = Counter(data.get("calls", {}))

    def count(self, tool: str) -> None:
        with self.lock:
            self.calls[tool] += 1
            self.save()

    def save(self) -> None:
        if self.path is not None:
            data = {"notes": self.notes, "next_id": self.next_id, "calls": dict(self.calls)}
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(data))
            tmp.replace(self.path)

    def add(self, title: str, body: str, tags: list[str]) -> Note:
        with self.lock:
            note: Note = {"id": self.next_id, "title": title, "body": body, "tags": list(tags)}
            self.notes[note["id"]] = note
            self.next_id += 1
            self.save()
            return note

    def delete(self, note_id: int) -> Note:
        with self.lock:
            note = self.notes.pop(note_id, None)
            if note is None:
                raise ToolError(f"no note with id {note_id}; list_notes() shows the ids that exist")
            self.save()
            return note


READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True)


def build_server(store: NoteStore | None = None, *, allow_crash: bool = False) -> MCPServer:
    """The demo server; pass a :class:`NoteStore` to inspect its state from a test."""
    notes = store or NoteStore()
    server = MCPServer("codemode-demo-notes", instructions="A small notes store (demo server of codemode-kernel).")

    @server.tool(annotations=WRITE)
    def add_note(title: str, body: str = "", tags: list[str] | None = None) -> Note:
        """Add a note and return it with its new id."""
        notes.count("add_note")
        return notes.add(title, body, tags or [])

    @server.tool(annotations=READ_ONLY)
    def list_notes(tag: str | None = None) -> list[Note]:
        """List notes, optionally only those with a tag."""
        notes.count("list_notes")
        return [n for n in notes.notes.values() if tag is None or tag in n["tags"]]

    @server.tool(annotations=READ_ONLY)
    def get_note(note_id: int) -> Note:
        """Get one note by id."""
        notes.count("get_note")
        note = notes.notes.get(note_id)
        if note is None:
            raise ToolError(f"no note with id {note_id}; list_notes() shows the ids that exist")
        return note

    @server.tool(annotations=DESTRUCTIVE)
    def delete_note(note_id: int) -> Note:
        """Delete a note; returns the deleted note."""
        notes.count("delete_note")
        return notes.delete(note_id)

    @server.tool(name="word-count", annotations=READ_ONLY)
    def word_count(text: str) -> int:
        """Count the words in a text."""
        notes.count("word-count")
        return len(text.split())

    @server.tool(annotations=READ_ONLY, structured_output=False)
    def shout(text: str) -> str:
        """Return the text in upper case (plain text content, no structured result)."""
        notes.count("shout")
        return text.upper()

    @server.tool(annotations=READ_ONLY, structured_output=False)
    def summary_json() -> str:
        """Return a summary as JSON text (content only, no structured result)."""
        notes.count("summary_json")
        return json.dumps({"count": len(notes.notes), "tags": sorted({t for n in notes.notes.values()
                                                                       for t in n["tags"]})})

    @server.tool(annotations=READ_ONLY, structured_output=False)
    def chart(title: str) -> list[Any]:
        """Return a caption and a tiny PNG chart (mixed content)."""
        notes.count("chart")
        return [f"Chart: {title}", Image(data=_PIXEL, format="png")]

    @server.tool(annotations=READ_ONLY)
    def fail(message: str) -> str:
        """Always fail with the given message (an MCP error result)."""
        notes.count("fail")
        raise ToolError(message)

    @server.tool(annotations=READ_ONLY)
    async def slow(seconds: float) -> float:
        """Sleep for some seconds, then return them."""
        notes.count("slow")
        await anyio.sleep(seconds)
        return seconds

    @server.tool(annotations=READ_ONLY)
    def whoami() -> dict[str, int]:
        """The server's process id (to tell one server process from another)."""
        return {"pid": os.getpid()}

    @server.tool(annotations=READ_ONLY)
    def stats() -> dict[str, int]:
        """How many times each tool was called."""
        return dict(notes.calls)

    if allow_crash:

        @server.tool(annotations=DESTRUCTIVE)
        def crash(code: int = 3) -> str:
            """Kill the server process at once (to test reconnection)."""
            notes.count("crash")
            os._exit(code)

    return server


def _bearer_guard(app: Any, token: str) -> Any:
    """ASGI middleware refusing HTTP requests without ``Authorization: Bearer <token>``."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope.get("headers") or []).get(b"authorization") != expected:
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": b'{"error": "missing or wrong bearer token"}'})
            return
        await app(scope, receive, send)

    return guarded


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m codemode_kernel.demo.mcp_server", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, help="keep notes (and call counts) in this JSON file")
    parser.add_argument("--allow-crash", action="store_true", help="add a `crash` tool that kills the process")
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    parser.add_argument("--token-env", help="with --http: require a bearer token read from this variable")
    add_server_arguments(parser, default_port=8766)
    args = parser.parse_args(argv)
    server = build_server(NoteStore(args.store), allow_crash=args.allow_crash)
    if not args.http:
        server.run()
        return
    app: Any = server.streamable_http_app(host=args.host)
    if args.token_env:
        token = os.environ.get(args.token_env)
        if not token:
            parser.error(f"--token-env {args.token_env}: the variable is not set")
        app = _bearer_guard(app, token)
    serve(app, args.host, args.port, "/mcp")


if __name__ == "__main__":
    main()
