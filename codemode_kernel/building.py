"""Building a runtime from configuration: the one recipe every front door uses (issue 11).

The kernel, the ``codemode`` command and ``codemode mcp`` all turn a ``codemode.toml`` into a
:class:`~codemode_kernel.runtime.CodemodeRuntime` here, so they agree on:

- **the store**: an explicit override (``--store``), else ``CODEMODE_STORE``, else
  ``[store] url``, else a SQLite file beside the notebook (or named after the folder);
- **the executor and its limits** (``[executor]``);
- **the connectors**, with hand-connected ones (``%%host`` ``connect()``) replacing configured
  ones of the same name;
- **the connector hints** shown to models beside each connector's name;
- **fallbacks**: a front door must start whatever the configuration says. Connectors that
  cannot be used together, a store that cannot be opened or executor settings that are
  wrong each become a problem text (for the person running it) and a working fallback.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from codemode_kernel.config import CodemodeConfig, ExecutorSettings, default_store_url, load_config
from codemode_kernel.connectors.base import Connector
from codemode_kernel.errors import ConfigurationError
from codemode_kernel.journal_files import shown_store, without_store_secrets
from codemode_kernel.wording import sentence

if TYPE_CHECKING:
    from codemode_kernel.executor.base import Executor
    from codemode_kernel.runtime import CodemodeRuntime

log = logging.getLogger(__name__)

STORE_ENV = "CODEMODE_STORE"


@dataclass
class Built:
    """A runtime and what had to give way to build it."""

    runtime: CodemodeRuntime
    problems: list[str] = field(default_factory=list)


def choose_store_url(config: CodemodeConfig, *, notebook: Path | None, cwd: Path,
                     env: Mapping[str, str] | None = None, override: str | None = None) -> str:
    """The journal's URL: ``override``, else ``CODEMODE_STORE``, else ``[store] url``, else beside the notebook."""
    env = os.environ if env is None else env
    return ((override or "").strip() or env.get(STORE_ENV, "").strip() or config.store_url
            or default_store_url(notebook, cwd))


def build_runtime(config: CodemodeConfig, *, store_url: str, fallback_store_url: str | None,
                  host_connectors: Mapping[str, Connector] | None = None) -> Built:
    """The runtime for ``config`` plus connectors connected by hand (which replace configured ones).

    ``fallback_store_url=None``: a store that cannot be opened is an error (StoreError), not a
    problem with another journal in its place (the command line's explicit ``--store``).
    """
    from codemode_kernel.errors import StoreError
    from codemode_kernel.runtime import CodemodeRuntime

    problems: list[str] = []
    connectors: dict[str, Connector] = {c.name: c for c in config.connectors}
    connectors.update(host_connectors or {})
    executor = build_executor(config.executor, config.label, problems)
    # A table's hint describes that table's connector: one connected by hand in its place is another.
    hints = {name: hint for name, hint in config.hints.items() if name not in (host_connectors or {})}

    def make(members: list[Connector], url: str) -> CodemodeRuntime:
        return CodemodeRuntime(members, store=url, executor=executor, name=config.runtime_name,
                               max_executions=config.max_executions, connector_hints=hints)

    try:
        runtime = make(list(connectors.values()), store_url)
    except ConfigurationError as exc:
        problems.append(f"The connectors could not be used together: {sentence(str(exc))} Running without "
                        "connectors; fix the configuration (then %reload in a notebook).")
        runtime = make([], store_url)
    except Exception as exc:  # a bad store URL must not keep the front door from starting
        reason = without_store_secrets(f"{type(exc).__name__}: {exc}", store_url)
        if fallback_store_url is None:
            raise StoreError(shown_store(store_url), f"cannot be opened ({reason})",
                             "give a store URL that opens (--store or CODEMODE_STORE); nothing was created") from None
        problems.append(f"The store {shown_store(store_url)!r} cannot be opened ({reason}). Using "
                        f"{shown_store(fallback_store_url)} instead; fix [store] url or {STORE_ENV} "
                        "(then %reload in a notebook).")
        runtime = make(list(connectors.values()), fallback_store_url)
    for text in problems:
        # Debug, not warning: every front door shows these itself, and in a kernel a logged
        # warning reaches the running cell's stderr too (each problem was said twice, issue 16).
        log.debug("Code Mode: %s", text)
    return Built(runtime, problems)


def build_executor(settings: ExecutorSettings, label: str, problems: list[str]) -> Executor | None:
    """The executor ``[executor]`` asks for; ``None`` means the runtime's default (isolated)."""
    try:
        if settings.kind == "inprocess":
            from codemode_kernel.executor.inprocess import InProcessExecutor, InProcessLimits

            return InProcessExecutor(InProcessLimits(**settings.limits))
        if settings.limits or settings.warm is not None:
            from codemode_kernel.executor.isolated import Limits, SubprocessExecutor

            limits = Limits(**settings.limits)
            if settings.warm is None:
                return SubprocessExecutor(limits)
            return SubprocessExecutor(limits, warm=settings.warm)
    except (TypeError, ValueError, ConfigurationError) as exc:
        problems.append(f"{label}: [executor] {sentence(str(exc))} Using the default executor and limits.")
    return None


def runtime_for_folder(folder: Path, *, store: str | None = None, env: Mapping[str, str] | None = None,
                       notebook: Path | None = None, strict_store: bool = False) -> Built:
    """What the kernel would build for a notebook in ``folder`` (the CLI's and ``codemode mcp``'s runtime).

    With ``notebook`` (a path in ``folder``) the journal is that notebook's, the very file its
    kernel uses (``analysis.ipynb`` → ``analysis.codemode.db``); without one it is named after
    the folder (``<folder>.codemode.db``), as for a kernel that is not told its notebook. A
    ``store`` URL, ``CODEMODE_STORE`` or ``[store] url`` come first either way.

    Configuration problems come first in ``problems``, then what had to give way; with
    ``strict_store`` a store that cannot be opened raises StoreError instead of giving way. A
    relative ``folder`` or ``notebook`` is taken from the working directory.
    """
    # Resolved once, here: the configuration joins its relative paths to the folder, and a connector
    # that joins them again to a relative folder reads the wrong file (an OpenAPI document was read
    # from 'proj/proj/../api.yaml'); targets name the folder too, so each spelling was another backend.
    folder = folder.resolve()
    notebook = notebook.resolve() if notebook is not None else None
    config = load_config(folder, env=env)
    url = choose_store_url(config, notebook=notebook, cwd=folder, env=env, override=store)
    built = build_runtime(config, store_url=url,
                          fallback_store_url=None if strict_store else default_store_url(notebook, folder))
    built.problems[:0] = [str(p) for p in config.problems]
    return built
