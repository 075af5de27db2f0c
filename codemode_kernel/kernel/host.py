"""``%%host`` cells: trusted Python that runs in the kernel process, not in the sandbox.

Host cells are for the notebook's author: define a connector from plain functions and
``connect(...)`` it, inspect the runtime, reload a module. They run with the kernel's full
rights (like any Python kernel cell), so they are never what a model writes: the sandbox
boundary applies to Code Mode cells only. Top-level ``await`` works, and the value of the
last expression is shown.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import sys
import traceback
from collections.abc import Callable
from typing import Any

from codemode_kernel.connectors.base import Connector
from codemode_kernel.errors import ConfigurationError
from codemode_kernel.kernel.display import Bundle, plain_text
from codemode_kernel.kernel.output import CellOutcome, Sink
from codemode_kernel.kernel.session import NotebookSession

Formatter = Callable[[Any], Bundle]


class HostCells:
    """Runs ``%%host`` cells in one namespace that lives as long as the kernel."""

    def __init__(self, session: NotebookSession, formatter: Formatter | None = None) -> None:
        self.session = session
        self.formatter = formatter or (lambda value: {"text/plain": plain_text(value)})
        self.running = False
        self.namespace: dict[str, Any] = {"__name__": "__codemode_host__", "__builtins__": __builtins__,
                                          "connect": self.connect, "disconnect": self.disconnect,
                                          "session": session}
        from codemode_kernel.connectors.base import tool
        from codemode_kernel.connectors.toolset import ToolSetConnector

        self.namespace.update({"Connector": Connector, "ToolSetConnector": ToolSetConnector, "tool": tool})

    def connect(self, connector: Connector) -> None:
        """Make ``connector`` a global of the next Code Mode cells (replacing one of the same name)."""
        configured = connector.name in self.session.config.kinds and connector.name not in self.session.host_connectors
        name = self.session.connect(connector)
        print(f"Connected {name!r}: Code Mode cells can now call {name}.<method>(...). "
              f"%connectors lists its methods.")
        if configured:  # said, not refused: replacing a table from trusted code is a way to try a change
            print(f"It replaces the connector {name!r} of {self.session.config.label} ([connectors.{name}]) in this "
                  f"kernel; disconnect({name!r}) brings that one back.")

    def disconnect(self, name: str) -> None:
        """Remove a connector added with ``connect``."""
        if not self.session.disconnect(name):
            raise ConfigurationError(f"{name!r} was not connected in a %%host cell; connected: "
                                     f"{sorted(self.session.host_connectors) or 'none'}")
        print(f"Disconnected {name!r}.")

    async def run(self, body: str, sink: Sink, count: int | None = None) -> CellOutcome:
        """Run ``body``; print output goes to the cell through ``sys.stdout`` as in IPython."""
        filename = f"<host In[{count}]>" if count is not None else "<host>"
        # Register the source so tracebacks can show the lines.
        linecache.cache[filename] = (len(body), None, body.splitlines(True), filename)
        self.namespace["runtime"] = self.session.runtime
        self.running = True
        try:
            value = await self._execute(body, filename)
        except SyntaxError as exc:
            return self._error(sink, exc, syntax=True)
        except SystemExit:
            # exit(), quit() or sys.exit() in host code: as in IPython, the client is asked to end
            # the session (a console does; JupyterLab ignores it). Left alone, it ended the kernel
            # process in the middle of a request (issue 16, item 5).
            sys.stdout.flush()
            return CellOutcome(payload=[{"source": "ask_exit", "keepkernel": False}])
        except (Exception, KeyboardInterrupt) as exc:
            return self._error(sink, exc)
        finally:
            self.running = False
            changed = self.session.needs_rebuild
            self.namespace["runtime"] = self.session.runtime
            if changed:
                self.session.notify("connectors_changed", None)
        if value is not None:
            self.namespace["_"] = value
            sys.stdout.flush()
            sink.display(self.formatter(value), result=True)
        return CellOutcome()

    async def _execute(self, body: str, filename: str) -> Any:
        tree = ast.parse(body, filename, "exec")
        last: ast.expr | None = None
        tail = tree.body[-1] if tree.body else None
        if isinstance(tail, ast.Expr):
            tree.body.pop()
            last = tail.value
        flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        code = compile(tree, filename, "exec", flags=flags)
        outcome = eval(code, self.namespace)  # trusted host code: the author's own Python
        if inspect.iscoroutine(outcome):
            await outcome
        if last is None:
            return None
        expr = compile(ast.Expression(last), filename, "eval", flags=flags)
        value = eval(expr, self.namespace)
        if inspect.iscoroutine(value):
            value = await value
        return value

    def _error(self, sink: Sink, exc: BaseException, *, syntax: bool = False) -> CellOutcome:
        sys.stdout.flush()
        sys.stderr.flush()
        te = traceback.TracebackException.from_exception(exc)
        # Drop the frames of this module: the reader wants the cell's lines.
        te.stack = traceback.StackSummary.from_list([f for f in te.stack if f.filename != __file__])
        lines = "".join(te.format()).rstrip("\n").splitlines()
        ename = type(exc).__name__
        evalue = str(exc) if not syntax else (getattr(exc, "msg", None) or str(exc))
        sink.error(ename, evalue, lines)
        return CellOutcome.failed(ename, evalue, lines)
