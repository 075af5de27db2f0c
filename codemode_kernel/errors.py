"""Errors raised by codemode-kernel to host code.

Everything the library raises derives from :class:`CodemodeError`. Errors that happen
*inside a pass* (sandbox errors, divergence, limits) are not raised to the caller of
``runtime.execute``: they come back as data, ``{"status": "error", ...}`` (DESIGN §5).
The classes below give those outcomes a stable name (``error_type`` in the output and
the exception name shown by the kernel).

    CodemodeError
    ├── ConfigurationError          the runtime or a connector was built wrong
    ├── UnknownExecutionError       no execution with that id in this runtime
    ├── InvalidStateError           e.g. approving an execution that is not paused
    ├── RollbackError               one or more reverts failed (all were tried)
    ├── SnippetError                unknown snippet, bad snippet name or input
    ├── CodecError                  a value cannot cross the boundary
    │   └── ValueTooLarge           a replay value is over the size limit
    ├── ConnectorError              a connector call failed (seen inside the code)
    │   ├── ArgumentError           arguments failed the method's input schema
    │   ├── CallNotRun              a sync call waited for a thread until its pass ended
    │   └── ConnectorThreadsExhausted  no thread for a sync call: too many stuck in ended passes
    ├── ReplayDivergence            a pass called something other than the journal says
    ├── SandboxViolation            the code breaks a sandbox rule (compile or guard)
    ├── PanelRequestError           the JupyterLab panel sent a malformed request
    ├── StoreError                  the journal store cannot be opened, read or written
    │   └── SchemaVersionError      the journal was written by a newer version
    ├── UsageError                  a magic or a ``codemode`` command got words it cannot read
    └── ExecutorError               the pass could not run to its end
        ├── Timeout                 the wall-clock limit was hit (the worker was killed)
        ├── LimitExceeded           a resource limit was hit (memory, CPU, output, calls)
        ├── Interrupted             the pass was stopped on request
        └── WorkerCrashed           the worker process died
"""

from __future__ import annotations

from collections.abc import Sequence


class CodemodeError(Exception):
    """Base class of every error this library raises."""


class ConfigurationError(CodemodeError):
    """The runtime, a connector or the configuration file is invalid."""


class UnknownExecutionError(CodemodeError, LookupError):
    """No execution with the given id exists in this runtime."""

    def __init__(self, execution_id: str, runtime_name: str = "default") -> None:
        self.execution_id = execution_id
        super().__init__(
            f"No execution {execution_id!r} in runtime {runtime_name!r}. "
            "List executions with runtime.executions() (or %executions in the kernel)."
        )


class InvalidStateError(CodemodeError):
    """An operation is not allowed in the execution's current state."""

    def __init__(self, execution_id: str, status: str, operation: str, allowed: Sequence[str]) -> None:
        self.execution_id = execution_id
        self.status = status
        self.operation = operation
        super().__init__(
            f"Cannot {operation} execution {execution_id!r}: it is {status!r}, and {operation} needs "
            f"an execution that is {' or '.join(repr(a) for a in allowed)}."
        )


class RollbackError(CodemodeError):
    """One or more reverts failed; every revert was still tried."""

    def __init__(self, execution_id: str, failures: Sequence[str]) -> None:
        self.execution_id = execution_id
        self.failures = list(failures)
        super().__init__(
            f"Rollback of {execution_id!r}: {len(self.failures)} revert(s) failed: " + "; ".join(self.failures)
        )


class SnippetError(CodemodeError):
    """A snippet cannot be saved, found or run."""


class CodecError(CodemodeError):
    """A value cannot cross the Code Mode boundary."""


class ValueTooLarge(CodecError):
    """A value stored for replay is over the size limit."""

    def __init__(self, what: str, size: int, limit: int) -> None:
        self.what = what
        self.size = size
        self.limit = limit
        super().__init__(
            f"{what} is {size:,} characters after serialization; the limit for values stored for "
            f"replay is {limit:,}. Store the data elsewhere (a file, a connector) and pass a small "
            "reference such as a path or an id instead."
        )


class ConnectorError(CodemodeError):
    """A connector call failed."""


class ArgumentError(ConnectorError):
    """Arguments do not match the method's input schema; the connector was not called."""


class OutcomeUnknown(ConnectorError):
    """The request was sent and no answer came (a timeout after sending, a lost connection): the
    service may have done it. Raise it from a connector (or a revert) instead of a plain error.

    The runtime keeps the call's entry ``executing`` (outcome unknown: never run again, skipped
    by rollback) rather than ``error``, a replay raises this again, and a revert that raises it
    stays ``reverted`` with the outcome unknown (a second rollback does not repeat it). Its
    message should say to check the service before sending the request again, never "try again".
    """


class CallNotRun(ConnectorError):
    """A queued call was dropped: its pass (or its caller) ended before a thread was free to run it.

    (connector_threads.py; importable from there too.)"""

    def __init__(self) -> None:
        super().__init__("not run: the pass ended first (its call was waiting for a connector thread, all of "
                         "which were busy with other calls)")


class ConnectorThreadsExhausted(ConnectorError):
    """No thread can be started for a call: too many threads still run calls whose passes ended.

    (connector_threads.py; importable from there too.)"""

    def __init__(self, threads: int, ceiling: int, stuck: int) -> None:
        self.threads = threads
        self.ceiling = ceiling
        self.stuck = stuck
        super().__init__(
            f"the connector was not called: {threads} connector threads are alive, the ceiling "
            f"(ConnectorThreads.ceiling={ceiling}), and {stuck} of them are still stuck in calls of "
            "passes that have ended (a connector that never returns, e.g. a network call without a "
            "timeout). Give the connector a timeout, or restart the kernel to free them; until one "
            "returns, new sync connector calls are refused like this one")


class ReplayDivergence(CodemodeError):
    """A pass made a different call than the journal recorded at the same position."""

    def __init__(self, seq: int, recorded: str, actual: str) -> None:
        self.seq = seq
        self.recorded = recorded
        self.actual = actual
        super().__init__(
            f"Replay divergence at call #{seq}: the journal recorded {recorded} but this pass called "
            f"{actual}. Code must make the same connector calls, in the same order and with the same "
            "arguments, on every pass. Wrap nondeterministic values (time, random, uuid) in "
            "codemode.step('name', lambda: ...) so later passes see the recorded value, and do not "
            "make connector calls from threads."
        )


class SandboxViolation(CodemodeError):
    """The code breaks a rule of the sandbox language."""


class PanelRequestError(CodemodeError):
    """A message from the JupyterLab panel is malformed; it is answered, never raised in the kernel."""


class UsageError(CodemodeError):
    """A magic or a ``codemode`` command was given arguments it cannot read (see ``commands.py``)."""


class StoreError(CodemodeError):
    """The journal store cannot be opened, read or written (locked, read-only, full, corrupted, unreachable)."""

    def __init__(self, where: str, problem: str, advice: str) -> None:
        self.where = where
        self.problem = problem
        super().__init__(f"The journal at {where} {problem}. {advice}")


class SchemaVersionError(StoreError):
    """The journal's schema is newer than this version of the package knows."""

    def __init__(self, where: str, found: int, known: int, written_by: str | None, running: str) -> None:
        self.found = found
        self.known = known
        self.written_by = written_by
        needed = (f"codemode-kernel>={written_by} (it was last upgraded by {written_by})" if written_by
                  else f"a codemode-kernel that supports journal schema version {found}")
        super().__init__(where, f"has schema version {found}; this codemode-kernel ({running}) knows versions up "
                                f"to {known}", f"Install {needed}, or point the store at another file. "
                                "Nothing in the journal was changed.")


class ExecutorError(CodemodeError):
    """The pass could not run to its end."""


class Timeout(ExecutorError):
    """The pass ran past its wall-clock limit."""


class LimitExceeded(ExecutorError):
    """The pass hit a resource limit."""


class Interrupted(ExecutorError):
    """The pass was stopped on request."""


class WorkerCrashed(ExecutorError):
    """The worker process running the pass died."""


MAX_ECHO = 500  # characters of a text (a host exception's, a name) quoted in an error message


def clip(text: str, limit: int = MAX_ECHO) -> str:
    """``text`` as an error message quotes it: at most ``limit`` characters, an ellipsis after a cut."""
    return text if len(text) <= limit else text[:limit] + "…"
