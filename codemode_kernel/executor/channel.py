"""The host's end of a worker's pipes: non-blocking JSON-line I/O and request checks.

Kept apart from the pool (``isolated.py``) because it is the part that touches bytes from
an untrusted process. Rules it enforces:

- a line is read only up to a size limit, and only from the running event loop (the fds
  are attached for one pass and detached after, so a worker started on one loop can serve
  a pass on another);
- a request is rebuilt from the fields its op allows, each type-checked; a connector or
  method the pass was not given is a protocol violation (the honest sandbox refuses those
  itself, so only a tampered worker sends them);
- nothing from the worker is called, formatted with ``repr`` or otherwise trusted.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import Mapping
from typing import Any

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,99}")
MAX_NAME = 200
MAX_TEXT = 100_000


class WorkerProtocolError(Exception):
    """The worker sent something the protocol does not allow; the pass is stopped."""


class LineTooLong(WorkerProtocolError):
    """A line from the worker is over the size limit."""


class WorkerPipe:
    """Line-oriented, non-blocking reads and writes on a worker's pipes within one loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop, out_fd: int, in_fd: int, err_fd: int,
                 buffer: bytearray, limit: int) -> None:
        self.loop = loop
        self.out_fd = out_fd
        self.in_fd = in_fd
        self.err_fd = err_fd
        self.buffer = buffer          # owned by the worker: bytes survive a detach
        self.limit = limit
        self.scanned = 0              # the buffer holds no newline before this index
        self.eof = False
        self.err = bytearray()
        self.waiter: asyncio.Future[None] | None = None
        self.attached = True
        loop.add_reader(out_fd, self._readable)
        loop.add_reader(err_fd, self._stderr)

    def detach(self) -> None:
        if self.attached:
            self.attached = False
            for fd in (self.out_fd, self.err_fd):
                with contextlib.suppress(ValueError, OSError, RuntimeError):  # closed fd or loop
                    self.loop.remove_reader(fd)

    def _wake(self) -> None:
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _readable(self) -> None:
        try:
            data = os.read(self.out_fd, 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            self.buffer += data
        else:
            self.eof = True
            self.loop.remove_reader(self.out_fd)
        self._wake()

    def _stderr(self) -> None:
        try:
            data = os.read(self.err_fd, 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.loop.remove_reader(self.err_fd)
            return
        self.err += data
        del self.err[:-4096]

    def stderr_tail(self, chars: int = 1500) -> str:
        """The last lines the worker wrote to stderr (a crash report), as plain text."""
        try:  # whatever is still in the pipe
            while data := os.read(self.err_fd, 1 << 16):
                self.err += data
        except OSError:
            pass
        text = bytes(self.err[-4096:]).decode("utf-8", "replace").strip()
        return text[-chars:]

    async def readline(self) -> bytes:
        """The next line, or b"" at end of file; :class:`LineTooLong` past the limit."""
        while True:
            index = self.buffer.find(b"\n", self.scanned)
            if index >= 0:
                line = bytes(self.buffer[: index + 1])
                del self.buffer[: index + 1]
                self.scanned = 0
                return line
            self.scanned = len(self.buffer)
            if self.scanned > self.limit:
                raise LineTooLong(f"a message longer than {self.limit:,} bytes")
            if self.eof:
                return b""
            self.waiter = self.loop.create_future()
            await self.waiter

    async def write(self, data: bytes) -> bool:
        """Write all of ``data``; False if the worker is gone."""
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.in_fd, view)
            except BlockingIOError:
                await self._writable()
                continue
            except OSError:  # BrokenPipeError: the worker died
                return False
            view = view[n:]
        return True

    async def _writable(self) -> None:
        future: asyncio.Future[None] = self.loop.create_future()

        def ready() -> None:
            self.loop.remove_writer(self.in_fd)
            if not future.done():
                future.set_result(None)

        self.loop.add_writer(self.in_fd, ready)
        try:
            await future
        finally:
            self.loop.remove_writer(self.in_fd)


def _text(message: Mapping[str, Any], key: str, limit: int = MAX_NAME) -> str:
    value = message.get(key)
    if not isinstance(value, str) or len(value) > limit:
        raise WorkerProtocolError(f"field {key!r} must be a string of at most {limit} characters")
    return value


def _count(message: Mapping[str, Any], key: str) -> int:
    value = message.get(key)
    if type(value) is not int or not 0 <= value <= 1_000_000:
        raise WorkerProtocolError(f"field {key!r} must be a whole number from 0 to 1000000")
    return value


def _error(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise WorkerProtocolError("an error must be an object with 'type' and 'message'")
    type_name = _text(value, "type")
    if not _NAME.fullmatch(type_name):
        raise WorkerProtocolError("an error type must be a Python name")
    return {"type": type_name, "message": _text(value, "message", MAX_TEXT)}


_FIELDS: dict[str, frozenset[str]] = {
    op: fields | {"replayed"}  # every request says how many journal entries the worker replayed itself
    for op, fields in {
        "call": frozenset({"op", "connector", "method", "args"}),
        "step": frozenset({"op", "name"}),
        "step_done": frozenset({"op", "name", "value", "raise"}),
        "search": frozenset({"op", "query", "limit", "connector"}),
        "describe": frozenset({"op", "target", "page", "full"}),
        "snippet": frozenset({"op", "name", "input"}),
        "fail": frozenset({"op", "type", "message"}),
    }.items()
}


def _replayed(message: Mapping[str, Any]) -> int:
    value = message.get("replayed", 0)
    if type(value) is not int or value < 0:
        raise WorkerProtocolError("'replayed' must be a non-negative integer")
    return value


def check_request(message: Mapping[str, Any], namespaces: Mapping[str, frozenset[str]]) -> dict[str, Any]:
    """Validate a request from the worker and rebuild it from its allowed fields only."""
    op = message.get("op")
    allowed = _FIELDS.get(op) if isinstance(op, str) else None
    if allowed is None:
        raise WorkerProtocolError(f"unknown request {op!r}")
    extra = set(message) - allowed
    if extra:
        raise WorkerProtocolError(f"unexpected field(s) {sorted(extra)!r} in {op!r}")
    if op == "call":
        connector, method = _text(message, "connector"), _text(message, "method")
        if method not in namespaces.get(connector, frozenset()):
            raise WorkerProtocolError(f"a call to {connector}.{method}, which this pass was not given")
        args = message.get("args")
        if not isinstance(args, dict):
            raise WorkerProtocolError("call arguments must be an object")
        return {"op": op, "connector": connector, "method": method, "args": args, "replayed": _replayed(message)}
    if op == "step":
        return {"op": op, "name": _text(message, "name", MAX_TEXT), "replayed": _replayed(message)}
    if op == "step_done":
        out: dict[str, Any] = {"op": op, "name": _text(message, "name", MAX_TEXT)}
        if "raise" in message:
            out["raise"] = _error(message["raise"])
        elif "value" in message:
            out["value"] = message["value"]
        else:
            raise WorkerProtocolError("step_done needs 'value' or 'raise'")
        return out
    if op == "search":
        found: dict[str, Any] = {"op": op, "query": _text(message, "query", MAX_TEXT)}
        if message.get("limit") is not None:
            found["limit"] = _count(message, "limit")
        if message.get("connector") is not None:
            found["connector"] = _text(message, "connector")
        return found
    if op == "describe":
        described: dict[str, Any] = {"op": op, "target": _text(message, "target", MAX_TEXT)}
        if message.get("page") is not None:
            described["page"] = _count(message, "page")
        if message.get("full") is not None:
            if type(message["full"]) is not bool:
                raise WorkerProtocolError("'full' must be true or false")
            described["full"] = message["full"]
        return described
    if op == "snippet":
        return {"op": op, "name": _text(message, "name", MAX_TEXT), "input": message.get("input")}
    failure = _error(message)
    return {"op": op, **failure}
