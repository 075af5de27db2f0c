# ipykernel is partly annotated: its untyped methods and Optional shell/session are fine here.
# mypy: disable-error-code="no-untyped-call,union-attr"
"""The Code Mode Jupyter kernel: Jupyter messages in, session calls out (the one home of ipykernel).

Every cell is one durable Code Mode execution (DESIGN §9). This module only *translates*:
execute requests go to :class:`~codemode_kernel.kernel.session.NotebookSession` (or to the
magics and ``%%host`` cells), and what comes back is sent as IOPub messages with the
request as parent. Completion, inspection, history and interrupt are wired here too.

Design log:
- Base class: ``IPythonKernel`` with our own ``async do_execute`` (the proven path, see
  the Jupyter recipes note): comms, ipywidgets, ``is_complete`` and history come with it.
  IPython's shell is kept for those services, but never runs cell code.
- Output goes out as IOPub messages we build with the execute request as parent, rather
  than through ``sys.stdout``: the runtime streams from its own tasks, where the context
  variables that ipykernel uses to find the parent are not reliable.
- Interrupt: the kernelspec asks for ``interrupt_mode: message``; the control thread then
  schedules ``runtime.interrupt()`` on the shell loop (which kills the worker) instead of
  raising ``KeyboardInterrupt`` at a random await. A SIGINT during a Code Mode cell does
  the same, for frontends that signal; ``%%host`` cells get a real ``KeyboardInterrupt``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import threading
import traceback
from collections.abc import Iterator, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from ipykernel.ipkernel import IPythonKernel

from codemode_kernel.commands import door_text
from codemode_kernel.kernel.completion import Names, complete, gather_names, inspect_local, token_at
from codemode_kernel.kernel.display import Bundle, code_bundle, error_traceback, inert_bundle
from codemode_kernel.kernel.host import HostCells
from codemode_kernel.kernel.magics import MAGICS, Magics, classify, looked_at
from codemode_kernel.kernel.notebook_channel import NotebookChannel
from codemode_kernel.kernel.output import CellOutcome, Coalescing, NullSink, Sink
from codemode_kernel.kernel.session import NotebookSession
from codemode_kernel.terminal import inert_output

log = logging.getLogger(__name__)

try:
    VERSION = version("codemode-kernel")
except PackageNotFoundError:  # running from a source tree
    VERSION = "0.0.0"

BANNER = (
    f"Code Mode kernel {VERSION}: every cell is a durable Code Mode pass of restricted Python over the "
    "connectors in codemode.toml. %help lists the magics; github.<Tab> lists a connector's methods."
)


class CellSink:
    """Output of one execute request, sent on IOPub with that request as parent."""

    def __init__(self, kernel: CodemodeKernel, parent: dict[str, Any], count: int | None) -> None:
        self.kernel = kernel
        self.parent = parent
        self.count = count

    def _send(self, msg_type: str, content: dict[str, Any]) -> None:
        # Anything a %%host cell printed is buffered in sys.stdout: send it first, in order.
        sys.stdout.flush()
        sys.stderr.flush()
        kernel = self.kernel
        kernel.session.send(kernel.iopub_socket, msg_type, content, parent=self.parent,
                            ident=kernel._topic(msg_type))

    def stream(self, text: str, name: str = "stdout") -> None:
        if text:  # inert: a frontend may write it to a terminal (jupyter console)
            self._send("stream", {"name": name, "text": inert_output(text)})

    def display(self, bundle: Bundle, *, result: bool = False) -> None:
        bundle = inert_bundle(bundle)  # its text/plain may be written to a terminal (jupyter console)
        if result:
            self._send("execute_result", {"execution_count": self.count, "data": bundle, "metadata": {}})
        else:
            self._send("display_data", {"data": bundle, "metadata": {}, "transient": {}})

    def error(self, ename: str, evalue: str, traceback: list[str]) -> None:
        self._send("error", {"ename": inert_output(ename), "evalue": inert_output(evalue),
                             "traceback": [inert_output(line) for line in traceback]})


class CodemodeKernel(IPythonKernel):
    """A Jupyter kernel where every cell is a Code Mode execution.

    The side panel's channel talks to the notebook session (its ``PanelHost``): approve,
    reject, roll back and save from the panel take the same path as the cell's buttons, so
    the cell's card updates.
    """

    implementation = "codemode"
    implementation_version = VERSION
    banner = BANNER
    language_info = {  # noqa: RUF012 - ipykernel's own form: a plain class attribute
        "name": "python",
        "version": sys.version.split()[0],
        "mimetype": "text/x-python",
        "codemirror_mode": {"name": "ipython", "version": 3},
        "pygments_lexer": "ipython3",
        "nbconvert_exporter": "python",
        "file_extension": ".py",
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.notebook = NotebookSession(notify=self._notify)
        self.notebook.load()
        self.magics = Magics(self.notebook)
        self.host = HostCells(self.notebook, formatter=self._format)
        NotebookChannel(self.notebook).register(self.comm_manager)  # renames and moves, from the lab
        self.panel: Any = None
        try:
            from codemode_kernel.kernel.panel import PanelChannel
        except ImportError:  # the panel's kernel side is optional (kernel-only installs, older trees)
            log.debug("no panel channel", exc_info=True)
        else:
            self.panel = PanelChannel(self.notebook)
            self.panel.register(self.comm_manager)

    def start(self) -> None:
        super().start()
        self.notebook.home_loop = getattr(self.io_loop, "asyncio_loop", None)  # tornado AsyncIOMainLoop
        self.notebook.spawn(self.notebook.warm_up())

    def _notify(self, event: str, execution_id: str | None) -> None:
        if self.panel is not None:
            self.panel.notify(event, execution_id)

    # -- execution ---------------------------------------------------------------------------

    async def do_execute(  # type: ignore[override]
        self,
        code: str,
        silent: bool,
        store_history: bool = True,
        user_expressions: dict[str, str] | None = None,
        allow_stdin: bool = False,
        *,
        cell_meta: Any = None,
        cell_id: Any = None,
    ) -> dict[str, Any]:
        shell = self.shell
        count: int = shell.execution_count
        blank = not code.strip()
        # Stream text goes out in batches (issue 16): never one IOPub message per print.
        sink = NullSink() if silent else Coalescing(CellSink(self, self.get_parent("shell"), count),
                                                    asyncio.get_running_loop().call_later)
        if store_history and not blank:
            shell.history_manager.store_inputs(count, code)
        try:
            outcome = await self._run(code, sink, count, cell_id if isinstance(cell_id, str) else None)
        except Exception as exc:  # a kernel bug must still produce a reply, never a hung cell
            log.exception("Code Mode kernel failed on a cell")
            lines = traceback.format_exc().splitlines()
            sink.error(type(exc).__name__, f"internal error of the Code Mode kernel: {exc}", lines)
            outcome = CellOutcome.failed(type(exc).__name__, str(exc), lines)
        finally:
            if isinstance(sink, Coalescing):
                sink.flush()  # everything streamed is out before the reply and idle
            if store_history and not blank:
                shell.execution_count += 1
        reply: dict[str, Any] = {"status": outcome.status, "execution_count": count,
                                 "payload": outcome.payload, "user_expressions": {}}
        if outcome.status == "error":
            reply.update(ename=inert_output(outcome.ename), evalue=inert_output(outcome.evalue),
                         traceback=[inert_output(line) for line in outcome.traceback])
        else:
            reply["user_expressions"] = {
                name: {"status": "error", "ename": "NotSupported", "traceback": [],
                       "evalue": "the Code Mode kernel does not evaluate user_expressions outside a cell"}
                for name in (user_expressions or {})}
        return reply

    async def _run(self, code: str, sink: Sink, count: int, cell_id: str | None) -> CellOutcome:
        cell = classify(code) if code.strip() else None
        unreported = self.notebook.take_unreported()
        if not (cell is not None and cell.kind == "magics" and _lists_problems(cell.lines)):
            for problem in unreported:  # %connectors lists every problem itself (review 16x, L2)
                sink.stream(f"Code Mode configuration: {problem}\n", "stderr")
        if cell is None or cell.kind != "host":
            self._say_notices(sink)
        if cell is None:
            return CellOutcome()
        if cell.kind == "exit":  # as IPython's exit/quit: the console ends its session
            return CellOutcome(payload=[{"source": "ask_exit", "keepkernel": cell.body == "keep"}])
        if cell.kind == "code":
            target = looked_at(code, [*self.notebook.runtime.connectors])
            if target is not None:  # `notes`, `help(notes.add_note)`: its description (review 14x M12)
                return await self.magics.look(target, sink)
            with self._sigint_interrupts():
                return await self.notebook.run_code(code, sink, count, cell_id=cell_id)
        if cell.kind == "host":
            outcome = await self.host.run(cell.body, sink, count)
            # After the cell: a first cell that connects a connector is not told there is none (review 14x L5).
            self._say_notices(sink)
            return outcome
        if cell.kind == "magics":
            with self._sigint_interrupts():  # %approve runs a pass
                return await self.magics.run_lines(cell.lines, sink)
        if cell.kind == "help":
            return await self.magics.help_target(cell.body, sink)
        tb = error_traceback("UsageError", cell.body, code=None, line=None, count=None)
        sink.error("UsageError", cell.body, tb)
        return CellOutcome.failed("UsageError", cell.body, tb)

    def _say_notices(self, sink: Sink) -> None:
        for notice in self.notebook.take_notices():
            sink.stream(f"Code Mode: {notice}\n")

    # -- stop on error ---------------------------------------------------------------------------
    # ipykernel 7.4 sends an error's execute_reply first and only then starts aborting the
    # queue (``_abort_queues`` posts a "stop aborting" marker behind the requests already
    # queued, through the shell channel thread). A client that sends its next request as soon
    # as it reads the error reply (jupyter_client, nbclient, the console) can get it in ahead
    # of the marker, and that request is aborted: ~1 in 100 error replies here (issue 14,
    # defect 5). So the abort starts in ``finish_metadata``, the last hook before the reply is
    # sent; the call after the reply is then a no-op for that request. Requests queued before
    # the error are aborted exactly as before.

    _abort_started: bool = False

    def finish_metadata(self, parent: dict[str, Any], metadata: dict[str, Any],
                        reply_content: dict[str, Any]) -> dict[str, Any]:
        metadata = super().finish_metadata(parent, metadata, reply_content)
        content = parent.get("content") or {}
        if (reply_content.get("status") == "error" and not content.get("silent", False)
                and content.get("stop_on_error", True)):
            super()._abort_queues(parent.get("header", {}).get("subshell_id"))
            self._abort_started = True
        return metadata

    def _abort_queues(self, subshell_id: str | None = None) -> None:
        if self._abort_started:
            self._abort_started = False
            return
        super()._abort_queues(subshell_id)

    def _format(self, value: Any) -> Bundle:
        data, _ = self.shell.display_formatter.format(value)
        return dict(data)

    # -- interrupt ---------------------------------------------------------------------------

    def _send_interrupt_children(self) -> None:
        """``interrupt_request`` (on the control thread): stop the running pass."""
        if self.host.running:
            super()._send_interrupt_children()  # host Python gets a real KeyboardInterrupt
            return
        self.io_loop.add_callback(self.notebook.interrupt)

    @contextlib.contextmanager
    def _sigint_interrupts(self) -> Iterator[None]:
        """While a Code Mode cell runs, SIGINT stops its pass instead of raising somewhere."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def handler(signum: int, frame: Any) -> None:
            self.io_loop.add_callback(self.notebook.interrupt)

        previous = signal.signal(signal.SIGINT, handler)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)

    # -- completion, inspection, history, shutdown -----------------------------------------------

    async def _names(self) -> Names:
        return await gather_names(self.notebook.runtime, self.notebook.variables, list(MAGICS))

    async def do_complete(self, code: str, cursor_pos: int | None) -> dict[str, Any]:  # type: ignore[override]
        cursor = len(code) if cursor_pos is None else cursor_pos
        return complete(code, cursor, await self._names())

    async def do_inspect(  # type: ignore[override]
        self, code: str, cursor_pos: int | None, detail_level: int = 0, omit_sections: Any = ()
    ) -> dict[str, Any]:
        cursor = len(code) if cursor_pos is None else cursor_pos
        token = token_at(code, cursor)
        reply: dict[str, Any] = {"status": "ok", "found": False, "data": {}, "metadata": {}}
        if not token:
            return reply
        names = await self._names()
        head = token.split(".")[0]
        if head in names.connectors:
            target = ".".join(token.split(".")[:2])
            try:
                out = await self.notebook.runtime.describe(target)
            except LookupError:
                return reply
            title = f"{out.path}" + (" (requires approval)" if out.requires_approval else "")
            types = door_text(out.types, "magic", path=out.path)  # its hints name the magics, as %describe's
            reply.update(found=True, data=inert_bundle(code_bundle(types, title=title)))
            return reply
        text = inspect_local(token, names)
        if text is not None:
            reply.update(found=True, data=inert_bundle({"text/plain": text}))
        return reply

    async def do_is_complete(self, code: str) -> dict[str, Any]:  # type: ignore[override]
        return dict(super().do_is_complete(code))

    async def do_history(self, *args: Any, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        reply = dict(super().do_history(*args, **kwargs))
        # IPython numbers the current session 0 in range answers; clients expect its number.
        current = self.shell.history_manager.session_number
        reply["history"] = [(current if entry[0] == 0 else entry[0], *entry[1:])
                            for entry in reply.get("history", [])]
        return reply

    async def do_shutdown(self, restart: bool) -> dict[str, Any]:  # type: ignore[override]
        await self.notebook.aclose()
        return dict(super().do_shutdown(restart))


def main() -> None:
    """Launch the kernel (``python -m codemode_kernel -f {connection_file}``)."""
    # jsonschema registers an optional "iri" format checker from rfc3987-syntax (installed
    # beside JupyterLab), whose import compiles a grammar: about 2 s of kernel start-up.
    # Code Mode validates arguments without format checks, so this process goes without it.
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
    from ipykernel.kernelapp import IPKernelApp

    IPKernelApp.launch_instance(kernel_class=CodemodeKernel)


def _lists_problems(lines: Sequence[str]) -> bool:
    """Whether a magics cell runs %connectors, which lists every configuration problem and unavailable connector."""
    return any(line.strip().split(maxsplit=1)[:1] == ["%connectors"] for line in lines)
