"""The kernel side of the Code Mode panel: one comm target serving the JupyterLab extension.

The panel (``labextension/``) opens a comm on :data:`~.panel_messages.TARGET_NAME` and sends
requests (``panel_messages.REQUESTS``); :class:`PanelChannel` answers each one with a
``reply`` or an ``error`` and pushes ``event`` messages when the kernel calls
:meth:`PanelChannel.notify`. Reads (executions, journal, snippets, connectors, search,
describe) and deletes go straight to the runtime; actions that change what a *cell*
shows (approve, reject, rollback, save as snippet) go through the :class:`PanelHost` (the
notebook session), so the cell's card updates as if its own buttons were clicked.

Nothing a browser sends can raise inside the kernel: every message is validated, every
handler's failure becomes an ``error`` reply naming what to do next.

ipykernel calls comm handlers synchronously, so each request runs as a task; a slow
approval (it runs a whole pass) does not hold up reads. JupyterLab ≥ 4.4 may send comm
messages over a kernel *subshell* (ipykernel 7 runs each subshell in its own thread and
event loop), so the handler can be called off the main thread: the channel then hands the
request to its home loop, the kernel's main loop (where ``register`` and ``notify`` are
called), because the runtime, its executor and the kernel's widgets live there.

The comm manager and the comms are injected: this module does not import ipykernel (the
kernel module is its home), and tests drive it with a fake comm at the network edge.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from codemode_kernel.errors import CodemodeError, PanelRequestError, UnknownExecutionError
from codemode_kernel.kernel import panel_messages as pm
from codemode_kernel.kernel.actions import settled_text
from codemode_kernel.runtime import not_pending_text
from codemode_kernel.selection import revertible_calls

if TYPE_CHECKING:
    from codemode_kernel.models import Snippet
    from codemode_kernel.runtime import CodemodeRuntime

log = logging.getLogger(__name__)

__all__ = ["PanelChannel", "PanelComm", "PanelCommManager", "PanelHost"]


class PanelHost(Protocol):
    """What the panel needs from the kernel (implemented by the notebook's ``NotebookSession``)."""

    @property
    def runtime(self) -> CodemodeRuntime:
        """The runtime the notebook's cells run in now."""
        ...

    async def approve(self, execution_id: str, seq: int) -> dict[str, Any]:
        """Approve call #``seq`` of a paused execution (refused if that call is no longer the pending
        one) and resume it, updating the cell that paused; the output dict."""
        ...

    async def reject(self, execution_id: str, seq: int) -> bool:
        """Reject a paused execution's pending call #``seq``, updating its cell; False if nothing was rejected."""
        ...

    async def rollback(self, execution_id: str) -> None:
        """Roll back an execution's applied calls (raises ``RollbackError`` after trying all)."""
        ...

    async def save_snippet(self, name: str, execution_id: str, description: str) -> Snippet:
        """Save a completed execution's code as a snippet."""
        ...


class PanelComm(Protocol):
    """The part of an ipykernel comm (``comm.base_comm.BaseComm``) the channel uses."""

    comm_id: str

    def send(self, data: Any = None, metadata: Any = None, buffers: Any = None) -> None: ...

    def on_msg(self, callback: Callable[[dict[str, Any]], None]) -> None: ...

    def on_close(self, callback: Callable[[dict[str, Any]], None]) -> None: ...


class PanelCommManager(Protocol):
    """The part of ipykernel's ``CommManager`` the channel uses."""

    def register_target(self, target_name: str, f: Any) -> None: ...


Handler = Callable[["PanelChannel", pm.Request], Awaitable[Any]]


class PanelChannel:
    """Serves every open Code Mode panel of one kernel over the ``codemode.panel`` comm target."""

    target_name = pm.TARGET_NAME

    def __init__(self, host: PanelHost, *, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._host = host
        self._loop = loop
        self._comms: dict[str, PanelComm] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    # -- wiring --------------------------------------------------------------------------------

    def register(self, comm_manager: PanelCommManager) -> None:
        """Register the comm target; the panel opens its comm on it."""
        self._adopt_loop()
        comm_manager.register_target(self.target_name, self._on_open)

    @property
    def open_comms(self) -> int:
        """How many panels are connected."""
        return len(self._comms)

    def notify(self, event: str, execution_id: str | None = None) -> None:
        """Tell every open panel that something changed (see ``panel_messages.EVENTS``)."""
        self._adopt_loop()
        self._broadcast(pm.event(str(event), execution_id))

    async def drain(self) -> None:
        """Wait for the requests being served (for tests and shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def _adopt_loop(self) -> None:
        # The home loop is the main thread's running loop; a subshell thread's loop is not.
        if self._loop is None and threading.current_thread() is threading.main_thread():
            with contextlib.suppress(RuntimeError):
                self._loop = asyncio.get_running_loop()

    def _on_open(self, comm: PanelComm, msg: dict[str, Any]) -> None:
        self._adopt_loop()
        self._comms[comm.comm_id] = comm
        comm.on_msg(lambda m: self._on_msg(comm, m))
        comm.on_close(lambda m: self._forget(comm))
        # The runtime is read on the home loop's thread, like every other request.
        if not self._call_home(self._say_hello, comm):
            self._say_hello(comm)

    def _say_hello(self, comm: PanelComm) -> None:
        self._send(comm, self._hello())

    def _forget(self, comm: PanelComm) -> None:
        self._comms.pop(comm.comm_id, None)

    def _hello(self) -> dict[str, Any]:
        try:
            runtime = self._host.runtime
            message = pm.hello(runtime.name, sorted(runtime.connectors))
        except Exception as exc:
            message = pm.hello("", [])
            message["error"] = f"{type(exc).__name__}: {exc}"
        return message

    def _on_msg(self, comm: PanelComm, msg: dict[str, Any]) -> None:
        content = msg.get("content") if isinstance(msg, dict) else None
        data = content.get("data") if isinstance(content, dict) else None
        try:
            request = pm.parse_request(data)
        except PanelRequestError as exc:
            rtype = data.get("type") if isinstance(data, dict) and isinstance(data.get("type"), str) else None
            self._send(comm, pm.error(pm.request_id_of(data), rtype, str(exc), "PanelRequestError"))
            return
        if not self._call_home(self._start, comm, request):
            self._send(comm, pm.error(request.request_id, request.type,
                                      "The kernel has no running event loop to serve panel requests; "
                                      "restart the kernel.", "RuntimeError"))

    def _call_home(self, fn: Callable[..., None], *args: Any) -> bool:
        """Call ``fn`` on the home loop (now if we are on it); False if there is no loop at all."""
        self._adopt_loop()
        home = self._loop
        try:
            here: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        if home is not None and home is not here and not home.is_closed():
            home.call_soon_threadsafe(fn, *args)
            return True
        if here is None:
            return False
        fn(*args)
        return True

    def _start(self, comm: PanelComm, request: pm.Request) -> None:
        task = asyncio.get_running_loop().create_task(self._serve(comm, request))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve(self, comm: PanelComm, request: pm.Request) -> None:
        try:
            data = await _HANDLERS[request.type](self, request)
        except Exception as exc:
            if not isinstance(exc, (CodemodeError, LookupError, _Refused)):
                log.warning("panel request %s failed", request.type, exc_info=True)
            error_type = exc.error_type if isinstance(exc, _Refused) else type(exc).__name__
            self._send(comm, pm.error(request.request_id, request.type, _message(exc), error_type))
            return
        self._send(comm, pm.reply(request, data))

    def _send(self, comm: PanelComm, message: dict[str, Any]) -> None:
        try:
            comm.send(message)
        except Exception:
            log.debug("dropping panel comm %s", comm.comm_id, exc_info=True)
            self._comms.pop(comm.comm_id, None)

    def _broadcast(self, message: dict[str, Any]) -> None:
        for comm in list(self._comms.values()):
            self._send(comm, message)

    # -- requests -------------------------------------------------------------------------------

    @property
    def _runtime(self) -> CodemodeRuntime:
        # Read on every request: the kernel may swap the runtime (another store, a restart of
        # the configuration) while panels stay open.
        return self._host.runtime

    async def _snapshot(self, request: pm.Request) -> dict[str, Any]:
        runtime = self._runtime
        limit = request.params["limit"] or pm.DEFAULT_EXECUTIONS
        executions = await runtime.executions(limit)
        catalog = await runtime.catalog()
        return {
            "runtime": runtime.name,
            "connectors": sorted(runtime.connectors),
            "executions": [pm.execution_summary(s, revertible_calls(s, catalog)) for s in executions],
            "pending": [pm.pending_action(p) for p in await runtime.pending()],
            "snippets": [pm.snippet_info(s) for s in await runtime.snippets()],
        }

    async def _get_execution(self, request: pm.Request) -> dict[str, Any]:
        eid = request.params["execution_id"]
        state = await self._runtime.execution(eid)
        if state is None:
            raise UnknownExecutionError(eid, self._runtime.name)
        return pm.execution_detail(state, revertible_calls(state, await self._runtime.catalog()))

    async def _get_value(self, request: pm.Request) -> dict[str, Any]:
        eid, seq, field = request.params["execution_id"], request.params["seq"], request.params["field"]
        if field not in pm.VALUE_FIELDS:
            raise PanelRequestError(f"'get_value': field must be one of {', '.join(pm.VALUE_FIELDS)}, "
                                    f"not {field!r}.")
        state = await self._runtime.execution(eid)
        if state is None:
            raise UnknownExecutionError(eid, self._runtime.name)
        data = state.to_dict()
        if seq is None:
            if field == "args":
                raise PanelRequestError("'get_value': an execution has no 'args'; "
                                        "give the seq of a journal entry.")
            value = "\n".join(state.logs) if field == "logs" else data[field]
        else:
            entries = {e["seq"]: e for e in data["log"]}
            if seq not in entries:
                raise PanelRequestError(
                    f"Execution {eid!r} has no journal entry {seq}; its entries are 0 to {len(entries) - 1}."
                    if entries else f"Execution {eid!r} has no journal entries."
                )
            if field not in ("args", "result"):
                raise PanelRequestError(f"'get_value': a journal entry has 'args' and 'result', "
                                        f"not {field!r}.")
            value = entries[seq][field]
        full = pm.abbreviate(value, pm.FULL_VALUE_CHARS)
        return {"execution_id": eid, "seq": seq, "field": field, **full}

    async def _approve(self, request: pm.Request) -> dict[str, Any]:
        eid, seq = request.params["execution_id"], request.params["seq"]
        # The seq of the row the panel showed; a request without one never gets here (panel_messages).
        output = await self._host.approve(eid, seq)
        if output.get("settled"):
            # Decided elsewhere first (a card, a cell, another tab): not an error, an answer
            # saying how the execution ended ("Already approved: … completed").
            state = await self._runtime.execution(eid)
            return {"execution_id": eid, "status": state.status if state is not None else output.get("status"),
                    "error": None, "pending": 0, "message": str(output.get("message", ""))}
        if output.get("refused"):
            raise _Refused(str(output.get("error", "")), str(output.get("error_type", "InvalidStateError")))
        self.notify("execution_changed", eid)
        return {
            "execution_id": eid,
            "status": output.get("status"),
            "error": output.get("error"),
            "pending": len(output.get("pending") or []),
        }

    async def _reject(self, request: pm.Request) -> dict[str, Any]:
        eid, seq = request.params["execution_id"], request.params["seq"]
        if not await self._host.reject(eid, seq):
            state = await self._runtime.execution(eid)
            if state is None:
                raise UnknownExecutionError(eid, self._runtime.name)
            if state.status not in ("paused", "running"):
                # Decided elsewhere first: not an error, an answer saying how it ended.
                return {"execution_id": eid, "status": state.status, "message": settled_text("reject", state)}
            # Paused on another call, or running on: the row's call was decided elsewhere.
            raise _Refused(not_pending_text("reject", eid, seq, state.status, state.log), "InvalidStateError")
        self.notify("execution_changed", eid)
        return {"execution_id": eid, "status": "rejected"}

    async def _rollback(self, request: pm.Request) -> dict[str, Any]:
        eid = request.params["execution_id"]
        try:
            await self._host.rollback(eid)
        finally:
            self.notify("execution_changed", eid)
        state = await self._runtime.execution(eid)
        reverted = sum(1 for e in state.log if e.state == "reverted") if state else 0
        return {"execution_id": eid, "status": state.status if state else None, "reverted": reverted}

    async def _delete_execution(self, request: pm.Request) -> dict[str, Any]:
        eid = request.params["execution_id"]
        if not await self._runtime.delete_execution(eid):
            raise UnknownExecutionError(eid, self._runtime.name)
        self.notify("execution_deleted", eid)
        return {"execution_id": eid, "deleted": True}

    async def _save_snippet(self, request: pm.Request) -> dict[str, Any]:
        p = request.params
        description = (p["description"] or "").strip()
        snippet = await self._host.save_snippet(p["name"].strip(), p["execution_id"], description)
        self.notify("snippets_changed", p["execution_id"])
        return pm.snippet_info(snippet)

    async def _delete_snippet(self, request: pm.Request) -> dict[str, Any]:
        name = request.params["name"]
        if not await self._runtime.delete_snippet(name):
            names = [s.name for s in await self._runtime.snippets()]
            raise _Refused(f"No snippet named {name!r}; saved snippets: {', '.join(names) or 'none'}.",
                           "SnippetError")
        self.notify("snippets_changed", None)
        return {"name": name, "deleted": True}

    async def _list_connectors(self, request: pm.Request) -> list[dict[str, Any]]:
        runtime = self._runtime
        catalog = await runtime.catalog()
        out = []
        for name, connector in sorted(runtime.connectors.items()):
            methods = catalog.methods.get(name, {})
            out.append({
                "name": name,
                "instructions": connector.instructions or "",
                # Why a connector lists no methods (the panel showed "ghost 0 methods", issue 16).
                "unavailable": catalog.unavailable.get(name),
                "methods": [
                    {
                        "name": m.name,
                        "path": m.path,
                        "description": m.tool.description,
                        "requires_approval": m.tool.requires_approval,
                        "revertible": m.tool.revert is not None,
                        "replay": m.tool.replay,
                    }
                    for m in sorted(methods.values(), key=lambda m: m.name)
                ],
            })
        return list(pm.shown_data(out))

    async def _search(self, request: pm.Request) -> dict[str, Any]:
        return dict(pm.shown_data((await self._runtime.search(request.params["query"])).to_dict()))

    async def _describe(self, request: pm.Request) -> dict[str, Any]:
        return dict(pm.shown_data((await self._runtime.describe(request.params["target"])).to_dict()))


class _Refused(Exception):
    """An action the runtime refused; reported with the runtime's own error type."""

    def __init__(self, message: str, error_type: str) -> None:
        super().__init__(message)
        self.error_type = error_type


def _message(exc: BaseException) -> str:
    text = str(exc.args[0]) if isinstance(exc, LookupError) and len(exc.args) == 1 else str(exc)
    return text or f"{type(exc).__name__} (no message)"


_HANDLERS: dict[str, Handler] = {
    "snapshot": PanelChannel._snapshot,
    "get_execution": PanelChannel._get_execution,
    "get_value": PanelChannel._get_value,
    "approve": PanelChannel._approve,
    "reject": PanelChannel._reject,
    "rollback": PanelChannel._rollback,
    "delete_execution": PanelChannel._delete_execution,
    "save_snippet": PanelChannel._save_snippet,
    "delete_snippet": PanelChannel._delete_snippet,
    "list_connectors": PanelChannel._list_connectors,
    "search": PanelChannel._search,
    "describe": PanelChannel._describe,
}
