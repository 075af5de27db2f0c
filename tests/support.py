"""Test connectors (plain Python functions with call counters: exactly-once is counted), and the
services on 127.0.0.1 that connector specs talk to (HTTP, a TCP peer that never answers, a stdio
MCP server)."""

from __future__ import annotations

import contextlib
import http.server
import socket
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from codemode_kernel import Connector, ExecutionContext, Tool, ToolSetConnector, tool


class Shop(Connector):
    """An item store that counts every call and every revert."""

    name = "shop"
    instructions = "A small item store."
    # Specs build a Shop per runtime to stand for one backend seen by two hosts (or a restarted kernel).
    target = "the specs' item store"

    def __init__(self, name: str = "shop") -> None:
        self.name = name
        self.items: dict[int, dict[str, Any]] = {1: {"id": 1, "title": "first"}}
        self.next_id = 2
        self.calls: Counter[str] = Counter()
        self.reverts: list[tuple[str, Any]] = []
        self.contexts: list[ExecutionContext] = []
        self.fail_revert: set[int] = set()
        self.hooks: list[tuple[str, str, str]] = []
        self.on_call: Callable[[str, ExecutionContext], None] | None = None

    def _note(self, method: str, ctx: ExecutionContext) -> None:
        self.calls[method] += 1
        self.contexts.append(ctx)
        if self.on_call is not None:
            self.on_call(method, ctx)

    def list_items(self, ctx: ExecutionContext) -> list[dict[str, Any]]:
        """List all items in the shop."""
        self._note("list_items", ctx)
        return [dict(v) for v in self.items.values()]

    def get_item(self, item_id: int, ctx: ExecutionContext) -> dict[str, Any]:
        """Get one item by id."""
        self._note("get_item", ctx)
        if item_id not in self.items:
            raise KeyError(f"no item {item_id}")
        return dict(self.items[item_id])

    def create_item(self, title: str, ctx: ExecutionContext) -> dict[str, Any]:
        """Create a new item with a title."""
        self._note("create_item", ctx)
        item = {"id": self.next_id, "title": title}
        self.items[self.next_id] = item
        self.next_id += 1
        return dict(item)

    def delete_item(self, item_id: int, ctx: ExecutionContext) -> bool:
        """Delete an item (remove it from the shop)."""
        self._note("delete_item", ctx)
        return self.items.pop(item_id, None) is not None

    def ping(self, ctx: ExecutionContext) -> int:
        """A live read that is re-executed on every pass."""
        self._note("ping", ctx)
        return self.calls["ping"]

    def _revert_create(self, args: dict[str, Any], result: Any, ctx: ExecutionContext) -> None:
        self.reverts.append(("create_item", result["id"]))
        if result["id"] in self.fail_revert:
            raise RuntimeError(f"cannot delete item {result['id']}")
        self.items.pop(result["id"], None)

    def tools(self) -> dict[str, Tool]:
        return {
            "list_items": tool(self.list_items),
            "get_item": tool(self.get_item),
            "create_item": tool(self.create_item, requires_approval=True, revert=self._revert_create),
            "add_item": tool(self.create_item, description="Add an item without approval.",
                             revert=self._revert_create),
            "delete_item": tool(self.delete_item, requires_approval=True),
            "ping": tool(self.ping, replay="reexecute"),
        }

    async def on_pass_end(self, execution_id: str, status: str) -> None:  # type: ignore[override]
        self.hooks.append(("on_pass_end", execution_id, status))

    async def dispose_execution(self, execution_id: str, status: str) -> None:  # type: ignore[override]
        self.hooks.append(("dispose_execution", execution_id, status))


def echo(value: Any = None) -> Any:
    """Return the value unchanged."""
    return value


def notes_connector() -> ToolSetConnector:
    store: list[str] = []

    def add_note(text: str) -> dict[str, Any]:
        """Add a note."""
        store.append(text)
        return {"id": len(store), "text": text}

    def list_notes() -> list[str]:
        """List all notes."""
        return list(store)

    return ToolSetConnector([add_note, list_notes], name="notes", requires_approval={"add_note"})


#: Two calls of :class:`Ledger`'s approval-needing action: a pass pauses on call #0, then on call #1.
LEDGER_TWO_ADDS = "a = ledger.add(text='A')\nb = ledger.add(text='B')\n[a['text'], b['text']]"


class Ledger:
    """A connector ``ledger`` whose one action, ``add``, needs approval; ``done`` lists every call that really ran."""

    def __init__(self) -> None:
        self.done: list[str] = []

    def connector(self) -> ToolSetConnector:
        def add(text: str) -> dict[str, Any]:
            """Add an entry."""
            self.done.append(text)
            return {"text": text}

        # One target for every connector of this ledger: two sessions (two kernels) act on one backend.
        return ToolSetConnector([add], name="ledger", requires_approval={"add"}, target=f"test ledger {id(self)}")


#: A stdio MCP server (run it with ``sys.executable``): ``echo``, ``pid``, ``big``, ``slow``, ``crash``;
#: each call is appended to the file named by its ``CALLS_FILE`` environment variable first.
STDIO_MCP_SERVER = Path(__file__).with_name("stdio_mcp_server.py")


@contextlib.contextmanager
def http_service(respond: Callable[[http.server.BaseHTTPRequestHandler], None], *, http11: bool = False
                 ) -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 for the length of the block, and its base URL. Every request, of
    any method, is handed to ``respond(handler)``, which writes the whole answer; an OSError while it
    does (the client went away: what a bounded reader does) ends that answer quietly. ``http11``:
    HTTP/1.1 (chunked answers, kept connections)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def _answer(self) -> None:
            with contextlib.suppress(OSError):
                respond(self)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _answer

        def log_message(self, *args: Any) -> None:
            pass

    if http11:
        Handler.protocol_version = "HTTP/1.1"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def send(handler: http.server.BaseHTTPRequestHandler, body: bytes, *, status: int = 200,
         content_type: str = "application/json") -> None:
    """Answer ``handler``'s request with ``body``, its length and ``content_type``."""
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@contextlib.contextmanager
def json_service(answer: Callable[[str, str], bytes] = lambda method, path: b'{"ok": true}'
                 ) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """A real HTTP server on 127.0.0.1 for the length of the block: its base URL, and every request it
    got as (method, path); each is answered 200, application/json, with ``answer(method, path)``."""
    seen: list[tuple[str, str]] = []

    def respond(handler: http.server.BaseHTTPRequestHandler) -> None:
        seen.append((handler.command, handler.path))
        send(handler, answer(handler.command, handler.path))

    with http_service(respond) as base:
        yield base, seen


@contextlib.contextmanager
def mute_tcp_service(*, hang_up: bool) -> Iterator[tuple[str, list[bytes]]]:
    """A TCP server on 127.0.0.1 that reads each request (what one ``recv`` gets) and never answers:
    it closes the connection at once (``hang_up``) or holds it open until the block ends. Its base
    URL (``http://``) and the requests it read."""
    listener = socket.create_server(("127.0.0.1", 0))
    received: list[bytes] = []
    held: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            conn.settimeout(2)
            with contextlib.suppress(OSError):
                received.append(conn.recv(65536))
            if hang_up:
                conn.close()
            else:
                held.append(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", received
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()
