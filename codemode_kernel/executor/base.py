"""The executor interface: run one pass of code once, statelessly.

An executor gets the code, the connector namespaces (names only) and a *host handler*,
and returns an :class:`ExecuteResult`. Everything the code asks of the host (connector
calls, steps, discovery, snippets) goes through the handler as a JSON message, so the
in-process executor and the isolated worker speak the same protocol and the runtime
cannot tell them apart. The protocol (values are codec-encoded, see ``codec.py``)::

    sandbox -> host                               host -> sandbox
    {"op": "call", "connector", "method", "args"}  {"value": v} | {"raise": {type, message}} | {"abort": msg}
    {"op": "step", "name"}                         {"value": v} (replayed) | {"run": true} | {"abort": msg}
    {"op": "step_done", "name", "value"|"raise"}   {"value": v} | {"abort": msg}
    {"op": "search", "query", "limit"?, "connector"?}   {"value": v} | {"raise": ...}
    {"op": "describe", "target", "page"?, "full"?}     {"value": v} | {"raise": ...}
    {"op": "snippet", "name", "input"}             {"code", "filename"} | {"value": {"error": ...}}
    {"op": "fail", "type", "message"}              {"abort": msg}   (the pass cannot go on)

``abort`` means the host ended the pass (a pause, divergence, a limit): the sandbox raises
a ``BaseException`` the code should not catch, and the host refuses every later request
of that pass whatever the code does. The host decides the outcome, not the sandbox.
"""

from __future__ import annotations

import builtins
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from codemode_kernel.errors import CodemodeError

HostHandler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
OutputCallback = Callable[[str], object]


class RecordedValue(dict[str, Any]):
    """One entry of a replay plan (``passes.local_replay_plan``) that returned a value: ``{"c": connector,
    "m": method, "a": canonical arguments, "v": value}``, a plain dict, with the JSON text the journal
    stored for ``v`` (:attr:`text`) when that text may stand for it in a message as it is: one JSON
    value whose parse is ``v``, on one line (codec.parse_stored). The isolated executor splices it into
    the run message instead of serializing ``v`` again (issue 12); None: ``v`` is serialized.
    Read-only: ``text`` is not kept in step with a changed ``v``."""

    __slots__ = ("text",)

    def __init__(self, connector: str, method: str, args: str, value: Any, text: str | None) -> None:
        dict.__init__(self, c=connector, m=method, a=args, v=value)
        self.text = text


class EncodedReply(dict[str, Any]):
    """A reply that returns a value, ``{"value": encoded}``, a plain dict, with the JSON text of
    ``encoded`` the host made already to journal it (:attr:`text`, what ``codec.dumps_encoded`` gave).
    The isolated executor writes that text into the reply's line instead of serializing the value a
    second time (issue 12, s11c): the same bytes. Read-only: ``text`` is not kept in step with a
    changed value."""

    __slots__ = ("text",)

    def __init__(self, encoded: Any, text: str) -> None:
        dict.__init__(self, value=encoded)
        self.text = text


class ReplySink(Protocol):
    """Where a host handler may put the reply to one request later, from any thread (issue 12)."""

    def send(self, reply: dict[str, Any]) -> bool | None:
        """Write ``reply`` to the sandbox (once per request handed this sink; thread-safe). The isolated
        executor's sink says whether it wrote it at once (False: its loop writes it)."""
        ...


class TimedOut:
    """No request came within the holding thread's time (:meth:`HeldConversation.next_request`)."""


#: What :meth:`HeldConversation.next_request` returns when no request came in time.
TIMED_OUT = TimedOut()
_Taken = TypeVar("_Taken")


@runtime_checkable
class HeldConversation(ReplySink, Protocol):
    """A sink whose conversation a connector's thread may hold (issue 12; passes.py, "holds the
    conversation"): the thread that answered a call reads the sandbox's next request itself.

    The contract between the pass handler and the executor: :meth:`hold` (on the loop) gives the
    conversation to the thread a call is handed to; while :attr:`held`, that thread alone uses the
    pass's journal, and every change of hands happens under :attr:`own`. The thread gives it back
    (:meth:`give_back_locked`, under :attr:`own`) or the loop takes it (:meth:`revoke`).
    """

    @property
    def own(self) -> AbstractContextManager[Any]:
        """The lock under which the conversation (and the pass's journal) changes hands."""
        ...

    @property
    def held(self) -> bool:
        """Whether a connector's thread holds the conversation (read under :attr:`own`)."""
        ...

    def send(self, reply: dict[str, Any]) -> bool:
        """Write ``reply``; False when the loop writes it instead (the holding thread then gives the
        conversation back)."""
        ...

    def hold(self) -> bool:
        """On the loop: the thread a call is handed to holds the conversation; False if it cannot be held."""
        ...

    def revoke(self) -> None:
        """On the loop: the conversation is the loop's again (after a commit under way)."""
        ...

    def give_back_locked(self) -> None:
        """The holding thread, under :attr:`own`: the loop reads on."""
        ...

    def next_request(self, deadline: float,
                     take: Callable[[dict[str, Any]], _Taken | None]) -> _Taken | TimedOut | None:
        """The holding thread: ``take(request)``'s value for the next request it accepts (called under
        :attr:`own`), :data:`TIMED_OUT` when none came by ``deadline`` (the loop's clock, ``loop.time()``),
        or None once the conversation is the loop's."""
        ...


@runtime_checkable
class LaterHost(Protocol):
    """A host handler that may answer a request later: a synchronous connector's thread writes
    the reply itself, so the loop neither waits for it nor wakes for it (issue 12).

    ``answer_later(message, sink)`` returns the reply, or None when it will call ``sink.send`` with
    it (exactly once). Until then the executor answers no other request of that pass and
    writes nothing else to the sandbox; it may stop the pass meanwhile (a kill, an interrupt),
    and then drops whatever the sink is sent.
    """

    def __call__(self, message: dict[str, Any]) -> Awaitable[dict[str, Any]]: ...

    def answer_later(self, message: dict[str, Any], sink: ReplySink) -> Awaitable[dict[str, Any] | None]: ...

#: Longest text field of a request (a query, a target, a step or snippet name, an error
#: message). The sandbox refuses longer ones itself with a clear error (or cuts an error
#: message); the host treats them from a worker as a protocol violation.
MAX_REQUEST_TEXT = 100_000
#: What one output message costs against the output limit at least, however short its text:
#: each message costs the host a read, a parse and a callback, so an empty-print flood is
#: bounded like a print flood (issue 10, item 8).
OUTPUT_MESSAGE_COST = 8


@dataclass(frozen=True)
class SandboxError:
    """An error of the pass, as data: a type name, a message, and where in the cell."""

    type: str
    message: str
    lineno: int | None = None
    traceback: str = ""

    @classmethod
    def of(cls, error: builtins.type[CodemodeError], message: str) -> SandboxError:
        """The error named by its class in :mod:`codemode_kernel.errors` (``Timeout``, ``LimitExceeded``, …)."""
        return cls(error.__name__, message)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "message": self.message, "lineno": self.lineno, "traceback": self.traceback}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SandboxError:
        lineno = data.get("lineno")
        return cls(
            type=str(data.get("type", "Error")),
            message=str(data.get("message", "")),
            lineno=lineno if isinstance(lineno, int) else None,
            traceback=str(data.get("traceback", "")),
        )


@dataclass
class ExecuteResult:
    """What one pass produced. ``result`` and ``variables`` hold codec-encoded values."""

    result: Any = None
    error: SandboxError | None = None
    logs: list[str] = field(default_factory=list)
    variables: dict[str, Any] = field(default_factory=dict)


class Executor(Protocol):
    """Runs one pass of code once. Holds no history."""

    async def execute(
        self,
        code: str,
        namespaces: Mapping[str, Sequence[str]],
        *,
        host: HostHandler,
        inputs: Mapping[str, Any] | None = None,
        on_output: OutputCallback | None = None,
        capture_variables: bool = False,
        replay: Sequence[Mapping[str, Any]] = (),
    ) -> ExecuteResult:
        """Run ``code`` with one global per namespace (connector name → method names).

        ``inputs`` are codec-encoded globals to predefine (names carried over from earlier
        cells). ``on_output`` receives printed text while the pass runs. With
        ``capture_variables`` the result carries the pass's serializable top-level names
        (encoding them costs time, so only callers that carry names over ask for them).
        ``replay`` is the journal's replayable prefix (``passes.local_replay_plan``): the
        sandbox answers those calls itself and tells the host how many it did. An entry may be a
        :class:`RecordedValue` (a dict that also holds its value's stored JSON text).
        """
        ...

    def interrupt(self) -> bool:
        """Stop every running pass; True if there was one to stop."""
        ...

    async def aclose(self) -> None:
        """Release workers and threads."""
        ...
