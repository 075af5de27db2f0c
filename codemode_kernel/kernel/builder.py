"""Building a notebook's runtime from its configuration, without letting a bad part stop it.

The kernel must start whatever the configuration says: connectors that cannot be used
together, a store that cannot be opened or executor settings that are wrong each become a
problem text (shown once in a cell and in ``%connectors``) and a working fallback.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from codemode_kernel.config import CodemodeConfig, ExecutorSettings
from codemode_kernel.connectors.base import Connector
from codemode_kernel.errors import ConfigurationError

if TYPE_CHECKING:
    from codemode_kernel.executor.base import Executor
    from codemode_kernel.runtime import CodemodeRuntime

log = logging.getLogger(__name__)


@dataclass
class Built:
    """A runtime and what had to give way to build it."""

    runtime: CodemodeRuntime
    problems: list[str] = field(default_factory=list)


def build_runtime(config: CodemodeConfig, host_connectors: Mapping[str, Connector], store_url: str,
                  fallback_store_url: str) -> Built:
    """The runtime for ``config`` plus connectors connected by hand (which replace configured ones)."""
    from codemode_kernel.runtime import CodemodeRuntime

    problems: list[str] = []
    connectors: dict[str, Connector] = {c.name: c for c in config.connectors}
    connectors.update(host_connectors)
    executor = build_executor(config.executor, config.label, problems)
    name, keep = config.runtime_name, config.max_executions
    try:
        runtime = CodemodeRuntime(list(connectors.values()), store=store_url, executor=executor, name=name,
                                  max_executions=keep)
    except ConfigurationError as exc:
        problems.append(f"The connectors could not be used together: {exc}. Running without connectors; fix "
                        "the configuration and run %reload.")
        runtime = CodemodeRuntime([], store=store_url, executor=executor, name=name, max_executions=keep)
    except Exception as exc:  # a bad store URL must not keep the kernel from starting
        problems.append(f"The store {store_url!r} cannot be opened ({type(exc).__name__}: {exc}). Using "
                        f"{fallback_store_url} instead; fix [store] url and run %reload.")
        runtime = CodemodeRuntime(list(connectors.values()), store=fallback_store_url, executor=executor,
                                  name=name, max_executions=keep)
    for text in problems:
        log.warning("Code Mode: %s", text)
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
        problems.append(f"{label}: [executor] {exc}. Using the default executor and limits.")
    return None
