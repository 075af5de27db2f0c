"""A notebook's configuration and the runtime built from it: load, connect, rebuild, retire, close.

The runtime is built on first use (:mod:`codemode_kernel.building`, as every front door
builds it) and again after the configuration or the hand-connected connectors change. A
runtime that is replaced may still be running a pass (a cell, an approval): it is *retired*
and closed once nothing uses it. Work the kernel schedules from synchronous callbacks
(widget clicks, panel messages from another thread) runs as tasks on the kernel's main loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import importlib
import logging
import os
from collections.abc import Callable, Coroutine, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codemode_kernel.building import STORE_ENV, build_runtime, choose_store_url
from codemode_kernel.config import CodemodeConfig, ConfigProblem, default_store_url, load_config, notebook_path
from codemode_kernel.connectors.base import Connector
from codemode_kernel.errors import ConfigurationError
from codemode_kernel.journal_files import (
    JOURNAL_FOLDER,
    Identity,
    Located,
    follow_rename,
    locate,
    sqlite_url,
    write_identity,
)
from codemode_kernel.selection import resolve_execution
from codemode_kernel.wording import sentence

if TYPE_CHECKING:
    from codemode_kernel.runtime import CodemodeRuntime

log = logging.getLogger(__name__)

Notify = Callable[[str, "str | None"], None]

#: Said once, in the first cell's output, when the notebook's folder has no configuration (issue 16, item 3).
NO_CONNECTORS_HINT = (
    "No connectors yet: this folder has no codemode.toml, so cells only compute. To add one, write a "
    "codemode.toml beside the notebook, e.g.\n"
    "    [connectors.notes]\n"
    "    python = \"my_tools:notes\"   # a Connector (or a function returning one) in my_tools.py\n"
    "and run %reload; or, in a cell of its own:\n"
    "    %%host\n"
    "    def add(a: int, b: int) -> int:\n"
    "        \"\"\"Add two numbers.\"\"\"\n"
    "        return a + b\n"
    "    connect(ToolSetConnector([add], name=\"calc\"))\n"
    "%connectors shows this again."
)


def shadowed(name: str) -> str | None:
    """What a connector called ``name`` would hide from a cell's code (:func:`executor.language.shadowed`,
    imported when asked: the sandbox's modules are not the kernel's start-up)."""
    from codemode_kernel.executor.language import shadowed as hidden_by

    return hidden_by(name)


def unreadable_problem(config: CodemodeConfig) -> str | None:
    """Why the configuration file could not be read or parsed at all (a problem about the whole file), or None."""
    if config.source is None:
        return None
    return next((str(p).rstrip(".") for p in config.problems
                 if not p.key and p.problem.startswith(("is not valid TOML", "cannot be read"))), None)


def _unreadable(config: CodemodeConfig) -> bool:
    return unreadable_problem(config) is not None


class NotebookRuntime:
    """Configuration and runtime lifecycle of one notebook (the base of :class:`~.session.NotebookSession`)."""

    def __init__(self, *, cwd: Path | None = None, env: Mapping[str, str] | None = None,
                 notify: Notify | None = None) -> None:
        self.env = dict(os.environ if env is None else env)
        self.cwd = (cwd or Path.cwd()).resolve()
        self.notebook = notebook_path(self.env, self.cwd)
        self.folder = self.notebook.parent if self.notebook is not None else self.cwd
        self.notify_hook = notify
        self.config: CodemodeConfig = CodemodeConfig(source=None, base_dir=self.folder)
        self.host_connectors: dict[str, Connector] = {}
        self.runtime_problems: list[str] = []
        #: The last load could not read the file and kept the configuration read before it.
        self.kept_last_good = False
        self.unreported: list[str] = []
        #: Connectors whose failure this runtime's notes or %connectors have shown (each is said once).
        self.said_unavailable: set[str] = set()
        self.notices: list[str] = []  # said once, in the next cell's output (not problems)
        self.journal: Located | None = None  # the notebook's own journal file (None: not located yet)
        self.home_loop: asyncio.AbstractEventLoop | None = None
        self._runtime: CodemodeRuntime | None = None
        self._dirty = True
        self._retired: list[CodemodeRuntime] = []
        self._inflight = 0
        self._tasks: set[asyncio.Future[Any]] = set()

    # -- configuration ---------------------------------------------------------------------

    def load(self, *, reload_modules: bool = False) -> tuple[ConfigProblem, ...]:
        """(Re)read the configuration; the runtime is rebuilt on next use."""
        first = self.config.source is None and not self.config.problems and not reload_modules
        fresh = load_config(self.folder, env=self.env, reload_modules=reload_modules)
        self.kept_last_good = False
        if _unreadable(fresh) and self.config.source is not None and self.config.source == fresh.source \
                and (self.config.connectors or self.host_connectors) and not first:
            # A file saved half-edited (an open bracket) is read as no configuration at all: keep the
            # configuration that worked and say so, rather than drop every connector (review 14x L4).
            # The runtime is not rebuilt: nothing it was built from changed.
            self.kept_last_good = True
            self.config = dataclasses.replace(self.config, problems=fresh.problems)
            self.unreported = [str(p) for p in fresh.problems]
            return fresh.problems
        self.config = fresh
        for p in self.config.problems:
            # Debug, not warning: in a kernel, logging goes to the running cell's stderr, and the
            # cells show each problem once themselves (%reload printed them twice, issue 16).
            log.debug("Code Mode configuration: %s", p)
        self.unreported = [str(p) for p in self.config.problems]
        self.said_unavailable = set()  # a new runtime: its connectors' failures are said anew
        if first and self.config.source is None and NO_CONNECTORS_HINT not in self.notices:
            self.notices.append(NO_CONNECTORS_HINT)
        self._dirty = True
        return self.config.problems

    async def reload(self) -> tuple[ConfigProblem, ...]:
        """``%reload``: re-read the configuration and its modules, rebuild, tell the panel."""
        problems = self.load(reload_modules=True)
        _ = self.runtime
        self.notify("connectors_changed", None)
        return problems

    def take_unreported(self) -> list[str]:
        """Configuration problems not yet shown in a cell (each is shown once)."""
        out, self.unreported = self.unreported, []
        return out

    def take_notices(self) -> list[str]:
        """Things to say once in the next cell (where the journal is, how to add connectors)."""
        if self.explicit_store is None:
            self.locate_journal()
        if NO_CONNECTORS_HINT in self.notices and self.host_connectors:
            self.notices.remove(NO_CONNECTORS_HINT)
        out, self.notices = self.notices, []
        return out

    @property
    def explicit_store(self) -> str | None:
        """The store the configuration or ``CODEMODE_STORE`` names (``None``: the notebook's own journal file)."""
        return self.env.get(STORE_ENV, "").strip() or self.config.store_url or None

    @property
    def store_url(self) -> str:
        """``CODEMODE_STORE``, else ``[store] url``, else the notebook's journal file in ``.codemode/``."""
        if self.explicit_store is not None:
            return choose_store_url(self.config, notebook=self.notebook, cwd=self.cwd, env=self.env)
        return sqlite_url(self.locate_journal().path)

    def locate_journal(self) -> Located:
        """Find the notebook's journal file once (moving one that must follow the notebook; ``journal_files``)."""
        if self.journal is None:
            self.journal = locate(self.notebook, self.cwd)
            if self.journal.note:
                log.debug("Code Mode journal: %s", self.journal.note)
                self.notices.append(self.journal.note[0].upper() + self.journal.note[1:] + ".")
        return self.journal

    async def rename(self, notebook: Path) -> str | None:
        """The notebook was renamed or moved while this kernel runs: its journal follows it.

        The journal file is moved when no pass is running and no other program has it open;
        otherwise it is used where it is and follows at the kernel's next start (the notebook's
        metadata names it). Configuration is read again from the new folder. Returns what
        happened, in a sentence, when the journal could not follow now.
        """
        old = self.notebook
        if old is None or notebook == old:
            return None
        note: str | None = None
        journal = self.journal
        if self.explicit_store is None and journal is not None:
            if self._inflight == 0:
                await self._close_runtime()
                path, reason = follow_rename(journal.path, old, notebook)
            else:
                path, reason = journal.path, "a cell is running"
            self.journal = Located(path, journal.journal_id)
            if reason is not None:
                note = (f"The journal stays at {path} for now ({reason}); it follows the notebook to "
                        f"{JOURNAL_FOLDER}/{notebook.stem}.codemode.db at the kernel's next start.")
        moved_folder = notebook.parent != self.folder
        self.notebook, self.folder = notebook, notebook.parent
        if moved_folder:
            self.load()
        self._dirty = True
        if note:
            self.notices.append(note)
        self.notify("connectors_changed", None)
        return note

    async def _close_runtime(self) -> None:
        runtime, self._runtime = self._runtime, None
        self._dirty = True
        if runtime is not None:
            try:
                await runtime.aclose()
            except Exception:  # the journal must still follow its notebook
                log.debug("closing the runtime before a rename failed", exc_info=True)

    def connect(self, connector: Connector) -> str:
        """Add (or replace) a connector from trusted host code (``connect(...)`` in ``%%host``)."""
        if not isinstance(connector, Connector):
            raise ConfigurationError(f"connect() needs a Connector (e.g. ToolSetConnector([...], name='x')), "
                                     f"not {type(connector).__name__}")
        if not connector.name:
            raise ConfigurationError("connect(): the connector has no name; set its `name`")
        hidden = shadowed(connector.name)
        if hidden is not None:
            raise ConfigurationError(f"connect(): a connector named {connector.name!r} would hide {hidden} in every "
                                     f"Code Mode cell; name it something else, e.g. {connector.name}_api "
                                     f"(ToolSetConnector([...], name={connector.name + '_api'!r})).")
        self.host_connectors[connector.name] = connector
        self._dirty = True
        return connector.name

    def disconnect(self, name: str) -> bool:
        """Remove a connector added with ``connect``."""
        found = self.host_connectors.pop(name, None) is not None
        self._dirty = self._dirty or found
        return found

    # -- the runtime -------------------------------------------------------------------------

    @property
    def needs_rebuild(self) -> bool:
        """True when connectors changed since the runtime was built."""
        return self._dirty

    @property
    def runtime(self) -> CodemodeRuntime:
        """The current runtime, built on first use and again after a configuration change."""
        if self._runtime is None or self._dirty:
            old = self._runtime
            built = build_runtime(self.config, store_url=self.store_url, host_connectors=self.host_connectors,
                                  fallback_store_url=default_store_url(self.notebook, self.cwd))
            self.runtime_problems = list(built.problems)
            self.unreported += built.problems
            self._runtime = built.runtime
            self._dirty = False
            self._stamp_journal()
            if old is not None:
                self._retired.append(old)
                self._close_retired_soon()
        return self._runtime

    def _stamp_journal(self) -> None:
        """Record in the journal file which notebook it belongs to (how it is found after a rename)."""
        journal = self.journal
        if journal is None or self.explicit_store is not None or not journal.path.is_file():
            return
        try:
            write_identity(journal.path, Identity(journal.journal_id, str(self.notebook or "")))
        except Exception:  # a read-only journal still works; it just cannot be re-found
            log.debug("could not record the journal's notebook", exc_info=True)

    @contextlib.contextmanager
    def in_use(self) -> Iterator[None]:
        """While a pass runs (a cell, an approval): a runtime replaced meanwhile is closed only after it."""
        self._inflight += 1
        try:
            yield
        finally:
            self._inflight -= 1
            self._close_retired_soon()

    def _close_retired_soon(self) -> None:
        if self._inflight == 0 and self._retired:
            retired, self._retired = self._retired, []
            for rt in retired:
                self.spawn(rt.aclose())

    async def warm_up(self) -> None:
        """Build the runtime and resolve the catalog now, so the first cell does not pay for it.

        Async connectors (MCP servers) start here, and the isolated executor starts its warm
        workers. Failures are left for the first cell that needs the runtime to show.
        """
        try:
            # The runtime's imports (SQLAlchemy, jsonschema, ...) take a few hundred ms: import
            # them in a thread so the kernel answers kernel_info and completions meanwhile.
            await asyncio.to_thread(importlib.import_module, "codemode_kernel.runtime")
            runtime = self.runtime
            said = self.said_unavailable
            # First what is known once the start's grace is over (a server that failed at once), then the rest:
            # a server that hangs does not hold back the note on one that failed (review 16x, M1).
            catalog = await runtime.catalog(waiting=False)
            self._say_unavailable(catalog.unavailable, said)
            if catalog.starting:
                catalog = await runtime.catalog()
                self._say_unavailable(catalog.unavailable, said)
            warm_up = getattr(runtime.executor, "warm_up", None)  # the isolated executor's warm pool
            if callable(warm_up):
                await warm_up()
        except Exception:  # shown by the first cell that needs it
            log.warning("Code Mode warm-up failed", exc_info=True)
        self.notify("kernel_ready", None)

    def mark_said(self, unavailable: Mapping[str, str]) -> None:
        """These connectors' failures were shown (``%connectors`` lists every one): no note says them again."""
        self.said_unavailable.update(unavailable)
        self.unreported = [note for note in self.unreported
                           if not any(note.startswith(f"connector {name!r} is unavailable:") for name in unavailable)]

    def _say_unavailable(self, unavailable: Mapping[str, str], said: set[str]) -> None:
        for name, reason in sorted(unavailable.items()):
            if name in said:
                continue
            said.add(name)
            # Asked again a minute later, or at once by a cell that names it (catalog.CatalogResolver,
            # review 15x L1), or by %reload (a new runtime).
            self.unreported.append(f"connector {name!r} is unavailable: {sentence(reason)} It is tried again "
                                   "in a minute, or at once by a cell that names it (or %reload); "
                                   "%connectors shows its state.")

    async def resolve(self, token: str, purpose: str) -> str:
        """An execution id from ``last``, a full id, or a unique id prefix (:mod:`codemode_kernel.selection`)."""
        return await resolve_execution(self.runtime, token, purpose)

    def interrupt(self) -> bool:
        """Stop every running pass (its execution becomes ``error``)."""
        return self._runtime.interrupt() if self._runtime is not None else False

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        runtimes = [*self._retired, *([self._runtime] if self._runtime is not None else [])]
        self._retired, self._runtime = [], None
        for rt in runtimes:
            try:
                await rt.aclose()
            except Exception:  # closing must reach every runtime
                log.debug("closing a runtime failed", exc_info=True)

    # -- events and tasks --------------------------------------------------------------------

    def notify(self, event: str, execution_id: str | None) -> None:
        """Tell the side panel something changed (``panel_messages.EVENTS``)."""
        if self.notify_hook is None:
            return
        try:
            self.notify_hook(event, execution_id)
        except Exception:  # a broken panel must not break cells
            log.debug("panel notify failed", exc_info=True)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run ``coro`` as a task on the kernel's main loop (widget callbacks are synchronous).

        JupyterLab may send comm messages over a kernel subshell, whose handlers run in
        another thread and loop; the runtime and the widgets live on the main loop
        (``home_loop``), so work from elsewhere is handed over to it.
        """
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        home = self.home_loop or running
        if home is None:
            coro.close()
            raise RuntimeError("NotebookSession.spawn needs a running event loop")
        if running is home:
            self._start(coro)
        else:
            home.call_soon_threadsafe(self._start, coro)

    def _start(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Future[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("Code Mode background task failed", exc_info=task.exception())
