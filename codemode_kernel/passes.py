"""One pass on the host side: every request from the sandbox, decided against the journal.

For each connector call the handler decides, in this order (DESIGN §5):

1. the pass has already ended (paused or failed)  → refuse (``abort``), execute nothing;
2. unknown method or schema-invalid arguments     → an error the code can catch, no seq used;
3. ``seq`` N exists in the journal                → it must name the same connector, method
   and canonical arguments, else ``ReplayDivergence``; an applied entry replays its
   recorded result (or error); the approved pending entry executes exactly once;
4. a new call to a method that needs approval     → a ``pending`` entry, and the pass ends;
5. otherwise                                      → durably ``executing``, run, ``applied``.

The journal is read once when the pass starts; entries this pass writes go to the store
(committed before the connector runs). The in-memory copy is what the pass reads: the journal
as it started (replay, the approved call, whose outcome it learns) and a new pending call (the
runtime reports it); a call this pass makes and runs is never read again (issue 12).

A call's outcome (``applied`` with its result, or ``error``) is committed after its reply is
written to the sandbox, in the same transaction as the *next* call's ``executing`` mark: one
commit per call while a pass calls connectors back to back, instead of two (issue 12; the mark
must be durable before that call runs, so the outcome rides in a commit the host makes anyway).
When no next call comes within :data:`OUTCOME_BOUND`, a loop timer commits it on its own; and
:meth:`PassHandler.flush` commits it first in every other request (a step, a search, a replay
that claims an approved call), before the runtime records how the pass ended (completed,
paused, failed), and when the caller cancels ``execute()``. A timer that falls due in the same turn
of the loop as the worker's next request arrives (a loop kept off its CPU past the bound: a loaded
machine) lets that request take the outcome first (:meth:`PassHandler._due`, ``deferred``): before,
the timer ran first and the request's mark made a second commit. Commits a call (3,000 async calls,
isolated executor, SQLite file, ``benchmarks/s11c_calls.py``, 8 alternating rounds from clean trees at
load 7.0-8.1): 1.035-1.100 -> 1.009-1.021 (fewer in 8 of 8); the rate and the host's CPU a call did not
move beyond the load's noise (medians 1,242 -> 1,277 calls/s, better in 5 of 8; 235 -> 230 µs, lower in
4 of 8). Spec: tests/runtime/test_s11c_outcome_timer.py.

A new call of a synchronous connector, when the executor passes a sink (``answer_later(message,
sink)``, executor/base.py ``LaterHost``), is answered by the connector's thread (issue 12): the
loop commits the call's mark and hands the call off (``connector_threads.ConnectorThreads.
hand_off``); after the function returns, its thread encodes the result, keeps the outcome where
the loop takes it (``_OnThread``: before the reply goes, so the request that follows the reply
finds it) and writes the reply through the sink. The loop neither waits for the answer nor
wakes for it. The outcome is then committed as above: the next request takes it first
(``_adopt``), the timer set when the call was handed off commits it once it is there (a call
that outlasts the bound is marked, and its thread tells the loop when its outcome comes), and
:meth:`PassHandler.flush` takes it. What the thread cannot answer as ``_run`` would (an
awaitable, a result that does not encode or is too large to store, an exception that is not an
``Exception``) goes back to the loop, which does it as ``_run`` does and sends the reply.
Figures: the commit that brought it (``git log -S _OnThread``) and connector_threads.py.

When the executor can give the conversation away (the isolated executor's sink: ``hold()``), the
connector's thread *holds* it (issue 12, ``_Held``): after it writes a call's reply it reads the
worker's next request itself (``sink.next_request``: validated by ``channel.check_request``, counted
against ``Limits.max_calls``, printed text counted against the output limit and forwarded to the
loop's callback in order), and a new call to a synchronous connector (``_take``: not replayed, not
pending approval, the pass not ended) is decided there as the loop would: arguments checked, its
mark committed with the outcome before it, the function run on the same thread, the reply written.
No loop wake-up and no second thread per call. The pass's journal goes with the conversation: one
user at a time, the holding thread or the loop, switched under ``sink.own`` (``_check_owner``
refuses any other use). The thread gives both back for anything else (an async call, a step,
search, describe, a snippet, ``done``, ``fail``, a replayed or approved call, a malformed line, a
limit reached, the end of the pipe, a reply the loop must write: too large for one write, an
``abort``), and when no request comes within :data:`OUTCOME_BOUND`, after it has committed the
kept outcome itself. The loop takes both back (``sink.revoke()``, waiting for a commit under way)
when the pass is stopped (interrupt, timeout, kill, a cancelled ``execute()``, ``aclose``) or the
worker's stderr ends (it died while the thread was in a connector): a call still running on the
thread then delivers its outcome to the loop as a late one (``_late_outcome``), as above. A run that
gave the conversation back may end (its job's callback, ``_streak_ended``) after the loop handed the
conversation to the next run: the callback gives back only a conversation its own run still holds,
and the loop makes a run the pass's (``self._held``) under ``sink.own`` as it holds the conversation
(before, on a loaded machine, the old run's callback gave back the new run's conversation, and both
the loop and the new run's thread read the worker's pipe: ``concurrent poll() invocation``, and a
``JournalOwnerError`` that failed the pass; tests/executor/test_s10c_streak_end_race.py).

Why that keeps DESIGN's promises ("before calling a connector the entry is durably
``executing``; after the result is recorded it is ``applied``"): no connector runs before its
own mark is committed, and nothing outside this host learns of an outcome before it is stored
(the sandbox can affect the world only through the host, and every way out of the pass flushes
first). What moves is when an outcome becomes durable: until the next call's commit, at most
:data:`OUTCOME_BOUND` later, or the end of the pass. A host that dies in that window leaves the
finished call ``executing``: exactly what a host that dies while the connector returns leaves,
and recovered the same way (``expire_paused()`` marks the execution ``error``; the call is
never run again, its outcome is reported unknown). Before, the window was one loop turn.

What a call costs the host beyond the journal (issue 12). The host process during 9,500 async
calls through the isolated executor (perf, cpu-clock samples at 5 kHz, load ~3): the interpreter
(libpython) 65 % of its CPU, SQLite 14 %, the kernel 11 %, libc 8 %. System calls a call (strace -c,
the same run): 4.7 ``pwrite64``, 6.1 ``fcntl`` and 1.4 ``getpid`` (SQLite's, in the journal's commit),
2.4 ``read`` (1.4 of them empty), 1 ``write``, 2.0 ``epoll_wait``. So most of the gap to the loop
alone is Python: no single piece stands out (cProfile: a dozen pieces of 1-3 µs each). An async
connector's coroutine is already completed inline: the conversation's one task awaits it through
the handler, so one that does not suspend finishes in the same step (no Task per call, nothing to
gain by sending it eagerly). Worked out once per method and pass instead of once per call
(``_Facts``): whether the method is a coroutine function (``inspect.iscoroutinefunction``, asked
twice per async call and once per sync one) and the texts that name its arguments and result in
errors (``method.path`` is built each time it is read; three times per call).

The replay plan (:func:`local_replay_plan`) keeps each recorded value with the JSON text the journal
stored (``executor.base.RecordedValue``), and the isolated executor splices that text into the run
message instead of serializing the value again (issue 12): before, every recorded result went
through ``json.loads`` (three Python frames around the scanner) and then the C encoder, into the
same bytes. The text is still parsed, with the json module's C scanner called directly
(``codec.parse_stored``), and sent as it is only when it is exactly one JSON value on one line with
no NaN, infinite number or escaped surrogate: the store is shared and other writers may leave text
the codec would not write (review 10, tests/runtime/test_review10_replay_plan.py: a newline in it
ended the run message early, and ``1}],"code":…`` replaced the cell's code); such text is serialized
again from its value, and text that is not JSON ends the plan there: the host answers that call and
ends the pass with a ``StoreError`` naming it (``PassHandler._recorded``). The host's part alone
(``benchmarks/s10c_replay.py --plan``: 1,000 journal rows to the plan and the run line, median of
21, 4 alternating runs at load 6.6-8.5): results that are numbers 6.4-8.3 -> 2.7-6.7 µs a recorded
call, small records (four fields, a float among them) 16.5-18.1 -> 10.5-13.0 (lower in 4 of 4 each).
Approving 1,000 recorded reads of such records, warm, minus an approval of none (the same script,
median of 5 pairs a run; clean trees, the parent and the change, each with the ``_streak_ended``
fix; 6 alternating runs at load 6.8-11.5): host CPU 25.1 -> 21.3 µs a recorded call (lower in 4 of
6), wall 272 -> 164 µs (4 of 6). Measured and not kept: the text spliced unparsed, the value parsed
only when something read the entry (a dict subclass whose methods parsed first): 3.8-7.1 -> 1.8-3.8
and 7.7-13.9 -> 1.9-4.3 µs (6 alternating runs, load 3.9); approving 1,000 recorded reads of
records, warm, host CPU 17.8 -> 11.5 µs a recorded call and wall 111.9 -> 78.6 µs (5 paired runs,
load 6.6-8.3). It trusted the stored text to be one JSON value, which review 10 showed the store
does not promise.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import json
import logging
import threading
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, TypeGuard

from codemode_kernel import codec, connector_errors
from codemode_kernel.catalog import Catalog, Method
from codemode_kernel.connector_threads import (
    ArgumentsRefused,
    check_schema,
    decoded_arguments,
    error_name,
    future_safe,
    invoke,
    shared,
)
from codemode_kernel.connectors.base import ExecutionContext
from codemode_kernel.connectors.secrets import Redactor, every_secret
from codemode_kernel.errors import (
    CallNotRun,
    ConnectorThreadsExhausted,
    OutcomeUnknown,
    ReplayDivergence,
    ValueTooLarge,
    clip,
)
from codemode_kernel.executor.base import EncodedReply, HeldConversation, RecordedValue, ReplySink, TimedOut
from codemode_kernel.journal import EntryRow, Outcome
from codemode_kernel.models import STEP_CONNECTOR
from codemode_kernel.runtime_journal import RuntimeJournal

Reply = dict[str, Any]
log = logging.getLogger(__name__)
#: Seconds a call's outcome waits for the next call's commit before it is committed on its own.
OUTCOME_BOUND = 0.001
#: Seconds :meth:`PassHandler.aclose` waits for the calls it cancelled to stop.
CLOSE_WAIT = 1.0


@dataclass
class PassFailure:
    type: str
    message: str


@dataclass
class PassState:
    execution_id: str
    pass_number: int
    journal: dict[int, EntryRow]
    approved_seq: int | None = None
    next_seq: int = 0
    paused_seq: int | None = None
    failure: PassFailure | None = None
    pending_step: tuple[int, str] | None = None
    # How many journal entries the sandbox may replay by itself (the plan's length), and how many
    # it said it did (known from its first call or step; it must not change afterwards).
    local_plan: int = 0
    locally_replayed: int | None = None
    # The call made and not yet answered (its seq and path): a pass stopped meanwhile names it (review 14x, M9).
    running: tuple[int, str] | None = None

    @property
    def ended(self) -> bool:
        return self.paused_seq is not None or self.failure is not None

    def end_message(self) -> str:
        if self.paused_seq is not None:
            return f"paused: call #{self.paused_seq} is waiting for approval"
        assert self.failure is not None
        return f"{self.failure.type}: {self.failure.message}"


_SLACK = 1e-6  # seconds a loop timer may fire early (the clock's resolution): it is due then


_HOLDS: dict[type, bool] = {}  # per sink type: whether it is a HeldConversation (a Protocol check costs µs)


def _can_hold(sink: ReplySink) -> TypeGuard[HeldConversation]:
    """Whether the executor's sink lets a connector's thread hold the conversation."""
    kind = type(sink)
    holds = _HOLDS.get(kind)
    if holds is None:
        holds = _HOLDS[kind] = isinstance(sink, HeldConversation)
    return holds


class JournalOwnerError(RuntimeError):
    """The pass's journal was used by a thread that does not hold it (a bug of the host)."""


class _Held:
    """A run of sync calls one connector thread answers while it holds the conversation."""

    __slots__ = ("context", "loop", "ran", "sink", "thread")

    def __init__(self, loop: asyncio.AbstractEventLoop, sink: HeldConversation, context: contextvars.Context) -> None:
        self.loop = loop
        self.sink = sink
        self.context = context  # the loop's, when the run began: each call runs in a copy
        self.thread: int | None = None
        self.ran = False


class _OnThread:
    """A call a connector's thread answers: its outcome, once the thread has made it."""

    __slots__ = ("late", "lock", "outcome", "seq", "started")

    def __init__(self, seq: int, started: float) -> None:
        self.seq = seq
        self.started = started  # loop time when it was handed off
        self.lock = threading.Lock()
        self.outcome: Outcome | None = None
        self.late = False  # the loop waits to hear when the outcome comes

    def done(self, outcome: Outcome) -> bool:
        """The thread: the outcome is here; True if the loop must be told."""
        with self.lock:
            self.outcome = outcome
            return self.late

    def taken(self, late: bool) -> Outcome | None:
        """The loop: the outcome, or None while the call runs (``late``: ask to be told)."""
        with self.lock:
            if self.outcome is None and late:
                self.late = True
            return self.outcome


class _Facts:
    """What a pass works out once per method instead of once per call (issue 12): whether it is a
    coroutine function (``inspect.iscoroutinefunction``, ~0.6 µs, was asked twice per async call) and
    the texts that name its values in errors (``method.path`` is built anew each time it is read)."""

    __slots__ = ("arguments", "is_async", "method", "result")

    def __init__(self, method: Method) -> None:
        self.method = method  # kept: the cache is keyed by its id
        self.is_async = inspect.iscoroutinefunction(method.tool.execute)
        self.arguments = f"the arguments of {method.path}"
        self.result = f"the result of {method.path}"


LOCAL_REPLAY_BUDGET = 8_000_000  # characters of recorded results shipped to the sandbox per pass


def _error_of(path: str, exc: BaseException, scrub: Redactor | None = None) -> dict[str, str]:
    """A connector's exception as the program gets it: its type, and its message after the call's
    ``connector.method`` (unless the connector's own words start with it, as MCP's and OpenAPI's do), so
    the program and the person know which call raised (review 14x, M10); redacted of every connector's
    secrets (``scrub``, review 15 H7)."""
    message = codec.storable_text(str(exc))
    if scrub:
        message = scrub.text(message)
    if not message.startswith(path):
        message = f"{path}: {message}" if message else path
    name = error_name(exc)
    if isinstance(exc, OutcomeUnknown) and name != OutcomeUnknown.__name__:
        # A connector's own subclass: every reader knows an unknown outcome by this name (the note's
        # prefix), and the program sees the same error on this pass as on a replay (review 15, M1).
        return {"type": OutcomeUnknown.__name__, "message": f"{message} ({name})"}
    return {"type": name, "message": message}


#: The most characters of call arguments and results one pass writes into the journal (review 16, M6): each
#: value is bounded (codec.MAX_VALUE_CHARS) and so are a pass's calls (Limits.max_calls), but not their sum,
#: and a loop of 1 MB arguments wrote ~84 MB/s into a journal that every later write needs room in.
MAX_JOURNAL_CHARS = 50_000_000


def _over_journal_budget(seq: int, path: str) -> str:
    return (f"the pass has written more than {MAX_JOURNAL_CHARS:,} characters of call arguments and results into "
            f"the journal, so call #{seq} ({path}) was not made and the pass was stopped. The journal keeps what a "
            "replay needs, not bulk data: pass large data by reference (a path, an id, a URL), or split the work "
            "over several programs.")


def _state_after(exc: BaseException) -> str:
    """The entry state a call that raised ``exc`` keeps: ``executing`` (outcome unknown: never run again,
    skipped by rollback) when the connector says the request went out unanswered, else ``error``."""
    return "executing" if isinstance(exc, OutcomeUnknown) else "error"


def _unknown_outcome(error: str | None) -> bool:
    """Whether an ``executing`` entry's note is a connector's OutcomeUnknown (not a host that stopped)."""
    return error is not None and error.startswith(f"{OutcomeUnknown.__name__}:")


def local_replay_plan(journal: Mapping[int, EntryRow], budget: int = LOCAL_REPLAY_BUDGET) -> list[dict[str, Any]]:
    """The journal's replayable prefix for the sandbox: seq 0, 1, … while each entry is a
    recorded result (or error) that a later pass returns without calling the connector.

    It stops at the first entry that must reach the host (pending, re-executed, unknown
    outcome) and when the results would exceed ``budget`` characters.
    """
    plan: list[dict[str, Any]] = []
    size = 0
    seq = 0
    while (entry := journal.get(seq)) is not None and not entry.ephemeral:
        item: dict[str, Any]
        if entry.state == "applied":  # with its stored text, sent as it is when it may be (RecordedValue)
            text = entry.result if entry.result is not None else "null"
            try:
                value, as_is = codec.parse_stored(text)
            except (ValueError, RecursionError):  # not what the codec wrote: the host answers it (_recorded)
                break
            item = RecordedValue(entry.connector, entry.method, entry.args, value, text if as_is else None)
        elif entry.state == "error" and entry.connector != STEP_CONNECTOR:
            text = entry.error or ""
            item = {"c": entry.connector, "m": entry.method, "a": entry.args, "r": _parse_error(entry.error)}
        else:
            break
        size += len(text) + len(entry.args)
        if size > budget:
            break
        plan.append(item)
        seq += 1
    return plan


class PassHandler:
    """Answers the sandbox's JSON requests for one pass."""

    def __init__(
        self,
        *,
        journal: RuntimeJournal,
        catalog: Catalog,
        state: PassState,
        search: Callable[..., Any],
        describe: Callable[..., Any],
        snippet: Callable[[str, Any], Reply],
        begun: Callable[[], Exception | None] | None = None,
        outcome_bound: float | None = None,
    ) -> None:
        self.journal = journal
        self.catalog = catalog
        self.state = state
        self._search = search
        self._describe = describe
        self._snippet = snippet
        # The outcome of the call answered last, not yet in the store; when it was answered (loop
        # time); the timer that commits it if no next call takes it first (module docstring).
        self._unsaved: Outcome | None = None
        self._unsaved_at = 0.0
        self._timer: asyncio.Handle | None = None
        self._bound = OUTCOME_BOUND if outcome_bound is None else outcome_bound  # read now: a host may set it
        # The new call a connector's thread is answering (its reply and outcome made there), and
        # the loop's tasks that finish such a call when its thread could not.
        self._on_thread: _OnThread | None = None
        self._held: _Held | None = None  # the run of sync calls a thread answers, holding the conversation
        self._tasks: set[asyncio.Task[None]] = set()
        self._facts: dict[int, _Facts] = {}  # by id(method): see _facts_of
        # The pass's calls in the connector threads: let go of when the pass is over (release()).
        self._scope = shared().scope()
        self._reopen: Callable[[], AbstractContextManager[RuntimeJournal] | None] | None = None  # release()
        # Records the start of the pass if that is not done yet; the failure if it failed. No
        # request is answered before it (runtime.PassStart).
        self._begun = begun
        # Every configured connector's secrets, read at the pass's first call: each connector redacts its
        # own, and this redacts any connector's answer of the others' too (review 15, H7).
        self._every: Redactor | None = None
        # Characters of arguments and results this pass wrote into the journal (MAX_JOURNAL_CHARS).
        self._journaled = 0

    def _secrets(self) -> Redactor:
        every = self._every
        if every is None:  # a connector down or starting too (review 16, C1)
            every = self._every = every_secret(self.catalog.configured.values())
        return every

    async def __call__(self, message: dict[str, Any]) -> Reply:
        """Answer one request. Never raises: a failure on the host side ends the pass as an error,
        whatever the sandbox does next (issue 10, item 2: before, a caught host exception let the
        sandbox report ``completed``)."""
        reply = await self.answer_later(message)
        assert reply is not None  # no sink: answered here
        return reply

    async def answer_later(self, message: dict[str, Any], sink: ReplySink | None = None) -> Reply | None:
        """As calling the handler; with a ``sink``, a new call to a synchronous connector is answered
        by the connector's thread through it, and this returns None (module docstring)."""
        self._adopt()
        if self._begun is not None:
            failed = self._begun()
            if failed is not None:
                return self.fail("StoreError", f"the host could not record the start of the pass ({failed}); "
                                 "the pass was stopped")
            self._begun = None
        if message.get("op") != "call":  # a call's mark takes the outcome along (_insert), or flushes
            self.flush()
        try:
            return await self._answer(message, sink)
        except Exception as exc:
            return self._host_error(message, exc)

    def _facts_of(self, method: Method) -> _Facts:
        """The pass's :class:`_Facts` of ``method`` (any thread: a dict's get and set are atomic)."""
        facts = self._facts.get(id(method))
        if facts is None or facts.method is not method:
            facts = self._facts[id(method)] = _Facts(method)
        return facts

    def _host_error(self, message: Mapping[str, Any], exc: Exception) -> Reply:
        log.warning("the host failed to answer a %r request", message.get("op"), exc_info=True)
        return self.fail("HostError", f"the host failed to answer the sandbox's {_op_name(message)} request "
                         f"({type(exc).__name__}: {clip(str(exc))}); the pass was stopped")

    async def _answer(self, message: dict[str, Any], sink: ReplySink | None) -> Reply | None:
        state = self.state
        if state.ended:
            return {"abort": state.end_message()}
        op = message.get("op")
        if op in ("call", "step") and not self._sync_local_replay(message.get("replayed", 0)):
            return self.fail("ProtocolError", "the sandbox reported an impossible replay position")
        if state.pending_step is not None and op in ("call", "step", "snippet"):
            # The sandbox refuses these inside a step's function (review 12); only a tampered worker sends one.
            return self.fail("ProtocolError", f"the sandbox sent a {op} request while codemode.step"
                             f"({clip(state.pending_step[1], 100)!r}) was running")
        try:
            if op == "call":
                return await self._call(str(message.get("connector")), str(message.get("method")),
                                        message.get("args"), sink)
            if op == "step":
                return self._step(str(message.get("name")))
            if op == "step_done":
                return self._step_done(message)
            if op == "search":
                options = {k: message[k] for k in ("limit", "connector") if message.get(k) is not None}
                try:
                    return {"value": codec.encode(self._search(str(message.get("query", "")), **options))}
                except ValueError as exc:
                    return {"raise": {"type": "SearchOptionError", "message": str(exc)}}
            if op == "describe":
                options = {k: message[k] for k in ("page", "full") if message.get(k) is not None}
                try:
                    return {"value": codec.encode(self._describe(str(message.get("target", "")), **options))}
                except LookupError as exc:
                    return {"raise": {"type": "LookupError", "message": str(exc.args[0] if exc.args else exc)}}
            if op == "snippet":
                return self._snippet(str(message.get("name")), message.get("input"))
            if op == "fail":
                return self.fail(str(message.get("type", "Error")), str(message.get("message", "")))
        except ValueTooLarge as exc:
            return self.fail("ValueTooLarge", str(exc))
        except ReplayDivergence as exc:
            return self.fail("ReplayDivergence", str(exc))
        return self.fail("ProtocolError", f"unknown request {op!r} from the sandbox")

    def _sync_local_replay(self, replayed: Any) -> bool:
        """Move past the entries the sandbox replayed itself (a prefix of the journal)."""
        state = self.state
        if type(replayed) is not int:
            return False
        if state.locally_replayed is None:
            if not 0 <= replayed <= state.local_plan or state.next_seq != 0:
                return False
            state.locally_replayed = replayed
            state.next_seq = replayed
            return True
        return replayed == state.locally_replayed

    # -- outcomes ---------------------------------------------------------------------

    def flush(self) -> None:
        """Commit the outcome of the call answered last, if it is not in the store yet.

        Idempotent. A store that fails here ends the pass as an error (the sandbox already has
        the value, but nothing it does next reaches a connector, and the pass is not completed).
        A call a connector's thread still runs has no outcome yet: it is committed when it comes
        (:meth:`_late`).
        """
        self._adopt()
        self._commit()

    def _commit(self) -> None:
        unsaved, self._unsaved = self._unsaved, None
        if unsaved is None:
            return
        try:
            self._finish_entry(unsaved.seq, unsaved.state, result=unsaved.result, error=unsaved.error)
        except Exception as exc:
            log.warning("recording the outcome of call #%s failed", unsaved.seq, exc_info=True)
            self.fail("HostError", f"the host could not record the outcome of call #{unsaved.seq} "
                      f"({type(exc).__name__}: {clip(str(exc))}); the pass was stopped")

    def release(self, reopen: Callable[[], AbstractContextManager[RuntimeJournal] | None]) -> None:
        """The pass is over and its journal's connection goes back (the runtime calls this): an
        outcome that comes later (a connector's thread that outlasted the pass, after an interrupt
        or a cancel) is stored through a session ``reopen`` gives, never through a connection that
        was given back (closed on PostgreSQL, the next pass's on SQLite); none once ``reopen`` gives
        None (the runtime is closed).

        The pass's sync calls let go of their connector threads (connector_threads.py, issue 12): a
        call still running no longer holds one of the threads other passes use, and a call still
        waiting for one is never run; its entry, marked ``executing`` before it waited, becomes
        the error ``CallNotRun`` (stored through ``reopen``)."""
        self._reopen = reopen
        shared().end(self._scope)

    async def aclose(self) -> None:
        """The runtime is closing: stop the loop's work for calls of this ended pass (an awaitable a
        sync connector returned that never finishes) and wait for it to stop (at most
        :data:`CLOSE_WAIT`). Their entries stay ``executing``, as when the host stops while a
        connector runs. An outcome that came meanwhile (a call that finished while the executor
        closed) is stored now, before the runtime closes its store."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=CLOSE_WAIT)
        self.flush()

    def _finish_entry(self, seq: int, entry_state: str, *, result: str | None = None, error: str | None = None) -> None:
        self._call_answered(seq)
        self._check_owner()
        if self._reopen is None:
            self.journal.finish_entry(self.state.execution_id, seq, entry_state, result=result, error=error)
            return
        session = self._reopen()
        if session is None:  # the runtime is closed and writes nothing more: the call stays executing,
            return           # as when the host stops while the connector runs
        with session as journal:
            journal.finish_entry(self.state.execution_id, seq, entry_state, result=result, error=error)

    def _record_later(self, seq: int, entry_state: str, result: str | None = None, error: str | None = None) -> None:
        """Keep call ``seq``'s outcome for the next call's commit, or the timer's (module docstring)."""
        self._keep(Outcome(seq, entry_state, result, error), asyncio.get_running_loop().time())

    def _call_answered(self, seq: int) -> None:
        running = self.state.running
        if running is not None and running[0] == seq:
            self.state.running = None

    def _keep(self, outcome: Outcome, at: float, *, arm: bool = True) -> None:
        """Keep ``outcome`` (answered at loop time ``at``, or later) until a commit takes it."""
        self._call_answered(outcome.seq)
        self._commit()  # an earlier one still here (a replayed call came between): it is not kept longer
        self._unsaved = outcome
        self._journaled += len(outcome.result or "")
        self._unsaved_at = at
        if arm and self._timer is None:
            self._timer = asyncio.get_running_loop().call_at(at + self._bound, self._due)

    def _adopt(self, *, late: bool = False) -> None:
        """Keep the outcome of the call a connector's thread answered, once it has one (loop thread).

        ``late``: the bound has passed while the call ran, so its thread calls :meth:`_late` when
        it has the outcome."""
        call = self._on_thread
        if call is None:
            return
        outcome = call.taken(late)
        if outcome is not None:
            self._on_thread = None
            self._keep(outcome, call.started, arm=not late)  # the timer (late) looks at it next

    def _late(self) -> None:
        """A thread-answered call that outlasted the bound has its outcome: committed now."""
        self.flush()

    def _due(self, deferred: bool = False) -> None:
        """The timer: commit a kept outcome that has waited ``outcome_bound`` (a later one gets its own
        time), or look again at a call a connector's thread runs (module docstring).

        A kept outcome that is due is committed one pass of the loop's ready callbacks later
        (``deferred``), after what this turn of the loop woke up: a loop that was kept off its CPU
        past the bound (a loaded machine) finds the worker's next request and the timer due in the
        same turn, and the pipe's callback runs before the timer but wakes the conversation only on
        the next pass; the request then takes the outcome into its call's mark (one commit instead
        of two). A request that is not there yet does not delay it further (issue 12, s11c)."""
        self._timer = None
        loop = asyncio.get_running_loop()
        now = loop.time()
        call = self._on_thread
        if call is not None:
            if now + _SLACK < call.started + self._bound:  # made since the timer was set: its own time
                self._timer = loop.call_at(call.started + self._bound, self._due)
                return
            self._adopt(late=True)
        unsaved = self._unsaved
        if unsaved is None:
            return
        due = self._unsaved_at + self._bound
        if now + _SLACK >= due:
            if deferred:
                self._commit()
            else:  # a handle like the timer's: _hold cancels it, _keep and _rearm arm no second one
                self._timer = loop.call_soon(self._due, True)
        elif self._timer is None:
            self._timer = loop.call_at(due, self._due)

    def fail(self, type_name: str, message: str) -> Reply:
        if not self.state.ended:
            self.state.failure = PassFailure(type_name, message)
        return {"abort": self.state.end_message()}

    def _check_size(self, text: str, what: str) -> None:
        if len(text) > codec.MAX_VALUE_CHARS:
            raise ValueTooLarge(what, len(text), codec.MAX_VALUE_CHARS)

    def _check_same(self, entry: EntryRow, seq: int, connector: str, method: str, args: str) -> None:
        if (entry.connector, entry.method, entry.args) != (connector, method, args):
            raise ReplayDivergence(seq, _describe_call(entry.connector, entry.method, entry.args),
                                   _describe_call(connector, method, args))

    # -- connector calls ----------------------------------------------------------------

    async def _call(self, connector: str, method_name: str, encoded_args: Any,
                    sink: ReplySink | None = None) -> Reply | None:
        method = self.catalog.get(connector, method_name)
        if method is None:
            return {"raise": {"type": "AttributeError", "message": self.catalog.missing(connector, method_name)}}
        facts = self._facts_of(method)
        checked = self._arguments(method, connector, method_name, encoded_args, facts)
        if isinstance(checked, dict):
            return checked
        args, canonical = checked
        state = self.state
        seq = state.next_seq
        state.next_seq += 1
        tool = method.tool
        entry = state.journal.get(seq)
        if entry is not None:
            self._check_same(entry, seq, connector, method_name, canonical)
            if entry.state == "applied" and not entry.ephemeral:
                return self._recorded(entry, method.path)
            if entry.state == "error":
                return {"raise": _parse_error(entry.error)}
            if entry.state == "applied" and entry.ephemeral:
                if tool.replay != "reexecute" or tool.requires_approval:
                    return self.fail("InvalidStateError", _not_reexecuted(seq, method.path, tool.requires_approval))
                return await self._run(method, args, seq, record=False, facts=facts)
            if entry.state == "pending":
                if state.approved_seq != seq:
                    state.paused_seq = seq
                    return {"abort": state.end_message()}
                self.flush()
                if not self.journal.set_entry(state.execution_id, seq, ["pending"],
                                            "executing", pass_number=state.pass_number):
                    return self.fail("InvalidStateError",
                                     f"call #{seq} ({method.path}) was already taken by another approval")
                state.running = (seq, method.path)
                return await self._run(method, args, seq, record=True, facts=facts)
            if entry.state == "executing" and _unknown_outcome(entry.error):
                return {"raise": _parse_error(entry.error)}  # as the pass that made it raised (review 14, H5)
            if entry.state == "executing":
                return self.fail("InvalidStateError", (
                    f"call #{seq} ({method.path}) was interrupted while executing in an earlier pass; its outcome is "
                    "unknown, so it is not run again. Check the connector and start a new execution."))
            return self.fail("InvalidStateError",
                             f"call #{seq} ({method.path}) is {entry.state}; it cannot be replayed")
        if self._journaled + len(canonical) > MAX_JOURNAL_CHARS:
            return self.fail("LimitExceeded", _over_journal_budget(seq, method.path))
        if tool.requires_approval:
            self._insert(seq, method, canonical, "pending")
            state.paused_seq = seq
            return {"abort": state.end_message()}
        self._insert(seq, method, canonical, "executing")
        state.running = (seq, method.path)
        if sink is not None and not facts.is_async:
            return self._hand_off(method, args, seq, sink)
        return await self._run(method, args, seq, record=True, facts=facts)

    def _arguments(self, method: Method, connector: str, method_name: str, encoded_args: Any,
                   facts: _Facts) -> Reply | tuple[dict[str, Any], str]:
        """A call's arguments decoded and checked (and their canonical text), or the reply that refuses them."""
        # Size first, then decoding, then the schema: each step costs more than the one before,
        # and a 50 MB argument must not be decoded, validated or quoted back (issue 10, item 8).
        try:
            canonical = codec.canonical_encoded(encoded_args)
            codec.check_storable(canonical, f"the arguments of {method.path}")  # a lone surrogate (review 12)
        except (ValueError, TypeError, RecursionError) as exc:
            return self.fail("CodecError", f"the arguments of {method.path} are not valid data ({clip(str(exc))})")
        self._check_size(canonical, f"The arguments of {method.path}")
        try:
            args = decoded_arguments(method, encoded_args, self.fail, facts.arguments)
            recorded = self.state.journal.get(self.state.next_seq)
            # A replayed call identical to its journal entry was validated when it was first made. The
            # approved call is checked again: it runs now, and its entry may predate today's rules.
            if recorded is None or recorded.state == "pending" or \
                    (recorded.connector, recorded.method, recorded.args) != (connector, method_name, canonical):
                check_schema(method, args, self.fail)
        except ArgumentsRefused as refused:
            return refused.reply
        return args, canonical

    def _insert(self, seq: int, method: Method, canonical: str, entry_state: str) -> None:
        """Commit call ``seq``'s entry, with the outcome of the call before it if that is not stored yet."""
        state = self.state
        self._check_owner()
        finish, self._unsaved = self._unsaved, None
        try:
            ok = self.journal.insert_entry(state.execution_id, seq, method.connector, method.name, canonical,
                entry_state, requires_approval=method.tool.requires_approval,
                ephemeral=method.tool.replay == "reexecute", pass_number=state.pass_number, finish=finish)
        except Exception as exc:
            if finish is not None:  # neither was stored: the earlier call's outcome is what the pass lost
                self.fail("HostError", f"the host could not record the outcome of call #{finish.seq} "
                          f"({type(exc).__name__}: {clip(str(exc))}); call #{seq} was not made and the pass "
                          "was stopped")
            raise
        if not ok:
            raise ReplayDivergence(seq, "an entry written by another host", _describe_call(
                method.connector, method.name, canonical))
        self._journaled += len(canonical)
        if entry_state == "pending":
            # Kept in memory only when someone reads it again: the runtime reports (and settles) the
            # pending call. A call this pass runs is never read back (seq only grows), and two rows per
            # call (this one and its outcome) cost ~2.7 us of the ~48 us a journaled call costs (issue 12).
            state.journal[seq] = EntryRow(seq, method.connector, method.name, canonical, None,
                                          method.tool.requires_approval, method.tool.replay == "reexecute",
                                          entry_state, None, state.pass_number, 0, 0)

    async def _run(self, method: Method, args: dict[str, Any], seq: int, *, record: bool,
                   facts: _Facts | None = None) -> Reply:
        ctx = ExecutionContext(self.state.execution_id, seq, method.connector, method.name)
        facts = facts or self._facts_of(method)
        try:
            result = await invoke(method.tool.execute, args, ctx, scope=self._scope, coroutine=facts.is_async)
        except Exception as exc:
            return self._raised(seq, exc, record, method.path)
        return self._returned(method, seq, result, record, facts)

    def _raised(self, seq: int, exc: Exception, record: bool, path: str) -> Reply:
        error = _error_of(path, exc, self._secrets())
        connector_errors.raised(self.state.execution_id, seq, path, exc)  # its author's traceback (15x M7)
        if record:
            text = f"{error['type']}: {error['message']}"
            entry_state = _state_after(exc)
            self._record_later(seq, entry_state, error=text)
            self._remember(seq, entry_state, None, text)
        return {"raise": error}

    def _returned(self, method: Method, seq: int, result: Any, record: bool, facts: _Facts | None = None) -> Reply:
        where = (facts or self._facts_of(method)).result
        stored: str | None = None
        try:
            encoded = codec.encode(result, where)
            if scrub := self._secrets():  # the encoded form: plain data, no cycle, every text in reach
                encoded = scrub.value(encoded)
            if record and method.tool.replay != "reexecute":
                stored = codec.dumps_encoded(encoded)
                codec.check_storable(stored, where)
        except codec.EncodeError as exc:
            if record:  # the call ran: applied (a rollback reverts it), its result not kept (review 13)
                self._finish_entry(seq, "applied", error=f"CodecError: {exc} The call ran; its result was not kept.")
            # Said to the connector's account, not the program's: the program never held the value (15x L10).
            why = f" ({exc.reason})" if exc.reason else ""
            return self.fail("CodecError", (
                f"{method.path} ran, but returned a value of type {exc.type_name!r} at {exc.where}{why}, which cannot "
                "cross into the program, so the pass was stopped; the call is recorded as applied (a rollback "
                "reverts it), its result not kept. The connector should return plain JSON data there (None, a "
                "number, a string, a list or a dict)."))
        if record:
            if stored is not None and len(stored) > codec.MAX_VALUE_CHARS:
                # The call ran: applied (a rollback reverts it), its result not kept (review 14, H2). The pass
                # ends: no replay of this execution ever needs the result.
                too_large = (f"the result of {method.path} is {len(stored):,} characters, over the "
                             f"{codec.MAX_VALUE_CHARS:,} a journal keeps")
                self._finish_entry(seq, "applied", error=f"ValueTooLarge: {too_large}. The call ran; its result "
                                   "was not kept.")
                return self.fail("ValueTooLarge", (
                    f"call #{seq} ({method.path}) ran (the journal records it as applied; a rollback reverts it), "
                    f"but {too_large}, so the pass was stopped. Do not send the call again: ask the connector for "
                    "less (a filter, a page, fields) or have it answer with a reference (an id, a path)."))
            self._record_later(seq, "applied", result=stored)
            self._remember(seq, "applied", stored, None)
            if stored is not None:  # the reply's line takes the text as it is (executor.base.EncodedReply)
                return EncodedReply(encoded, stored)
        return {"value": encoded}

    # -- calls a connector's thread answers (module docstring) ----------------------------

    def _hand_off(self, method: Method, args: dict[str, Any], seq: int, sink: ReplySink) -> Reply | None:
        """Run a new call of a synchronous connector on a thread that answers it through ``sink``
        (None); a call no thread can take (connector_threads.py) is the call's error, answered here."""
        loop = asyncio.get_running_loop()
        if _can_hold(sink):
            held: _Held | None = None
            with sink.own:  # the run is the pass's own before any thread sees the conversation held (_streak_ended)
                if sink.hold():
                    held = self._held = _Held(loop, sink, contextvars.copy_context())
            if held is not None:
                return self._hold(held, method, args, seq)
        call = _OnThread(seq, loop.time())
        self._on_thread = call
        if self._timer is None:
            self._timer = loop.call_at(call.started + self._bound, self._due)
        ctx = ExecutionContext(self.state.execution_id, seq, method.connector, method.name)
        try:
            shared().hand_off(method.tool.execute, (args, ctx),
                              lambda result, error: self._deliver(loop, call, method, sink, result, error),
                              self._scope)
        except (ConnectorThreadsExhausted, CallNotRun) as exc:
            self._on_thread = None
            return self._raised(seq, exc, True, method.path)
        return None

    # -- a run of sync calls on one thread that holds the conversation (module docstring) ----

    def _hold(self, held: _Held, method: Method, args: dict[str, Any], seq: int) -> Reply | None:
        """The executor has given the conversation to this call's thread (``sink.hold()``): the
        thread answers this call and the sync calls that follow, and the pass's journal is its own
        until it gives both back (or the loop takes them: ``sink.revoke()``)."""
        if self._timer is not None:  # nothing of the loop's touches the journal meanwhile
            self._timer.cancel()
            self._timer = None
        ctx = ExecutionContext(self.state.execution_id, seq, method.connector, method.name)
        try:
            shared().hand_off(self._streak, (held, method, args, seq, ctx),
                              lambda result, error: self._streak_ended(held, method, seq, error), self._scope)
        except (ConnectorThreadsExhausted, CallNotRun) as exc:
            held.sink.revoke()
            return self._raised(seq, exc, True, method.path)
        return None

    def _streak(self, held: _Held, method: Method, args: dict[str, Any], seq: int, ctx: ExecutionContext) -> None:
        """On the connector's thread: run the call, answer it, read the next request, and so on while
        the requests are sync calls this thread can make (:meth:`_take`)."""
        held.thread = threading.get_ident()
        held.ran = True
        step: tuple[Method, dict[str, Any], int, ExecutionContext] | None = (method, args, seq, ctx)
        while step is not None:
            method, args, seq, ctx = step
            try:  # each call in a copy of the loop's context, as a call handed off alone
                result, error = held.context.copy().run(method.tool.execute, args, ctx), None
            except BaseException as exc:  # what connector_threads hands a caller
                result, error = None, exc
            step = self._answered(held, method, seq, result, error)

    def _streak_ended(self, held: _Held, method: Method, seq: int, error: BaseException | None) -> None:
        """The streak's job is over: a call that never ran (its pass ended while it waited for a
        thread) has its error recorded and answered; a streak that failed lets go of the conversation."""
        if not held.ran:
            self._answered(held, method, seq, None, error)
            return
        if error is not None:
            log.error("a connector thread's run of calls failed", exc_info=error)
        with held.sink.own:
            # Only while this run holds it: a run that gave the conversation back ends later (this
            # callback) and the loop may have handed it to the next run meanwhile (s10c: on a loaded
            # machine both then read the worker's pipe, and the pass failed with JournalOwnerError).
            if held.sink.held and self._held is held:
                held.sink.give_back_locked()

    def _answered(self, held: _Held, method: Method, seq: int, result: Any,
                  error: BaseException | None) -> tuple[Method, dict[str, Any], int, ExecutionContext] | None:
        """The reply to call ``seq`` and its kept outcome; then the next call this thread makes, if one comes."""
        sink = held.sink
        reply, outcome = self._made(method, seq, result, error)
        loop = held.loop
        with sink.own:
            mine = sink.held
            if reply is None or outcome is None:
                if mine:
                    sink.give_back_locked()
                with contextlib.suppress(RuntimeError):  # after the give back: the journal is the loop's then
                    loop.call_soon_threadsafe(self._finish_streak_call, seq, method, sink, result, error)
                return None
            if mine:
                self._keep_here(outcome, loop.time())
            else:  # the loop took the journal back (the pass is ending): its outcome goes there
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(self._late_outcome, outcome)
        return self._next(held, reply)

    def _next(self, held: _Held, reply: Reply) -> tuple[Method, dict[str, Any], int, ExecutionContext] | None:
        sink = held.sink
        while True:
            if not sink.send(reply):  # the loop writes it: the conversation goes back there
                with sink.own:
                    if sink.held:
                        sink.give_back_locked()
                        self._rearm_later(held)
                return None
            got = sink.next_request(self._unsaved_at + self._bound if self._unsaved is not None
                                    else held.loop.time() + self._bound, self._take)
            if got is None:  # given back (or taken): the loop goes on
                self._rearm_later(held)
                return None
            if isinstance(got, tuple):
                return got
            if isinstance(got, dict):
                reply = got
                continue
            assert isinstance(got, TimedOut)
            with sink.own:  # no request within the bound: the kept outcome is committed here
                if sink.held:
                    self._commit()
                    sink.give_back_locked()
            return None

    def _rearm_later(self, held: _Held) -> None:
        if self._unsaved is not None:
            with contextlib.suppress(RuntimeError):
                held.loop.call_soon_threadsafe(self._rearm)

    def _rearm(self) -> None:
        """On the loop, once it has the conversation back: a kept outcome gets its timer again."""
        if self._unsaved is not None and self._timer is None and self._held_now() is None:
            self._timer = asyncio.get_running_loop().call_at(self._unsaved_at + self._bound, self._due)

    def _take(self, request: dict[str, Any]) -> Reply | tuple[Method, dict[str, Any], int, ExecutionContext] | None:
        """On the holding thread, under the conversation's lock: a sync connector's new call is decided
        here as the loop would (its arguments checked, its mark committed with the outcome before it),
        and its method, arguments, seq and context come back to be run on this thread; or a reply
        refusing it. None (nothing changed): the loop answers this request."""
        state = self.state
        if state.ended or self._begun is not None or self._on_thread is not None \
                or request.get("replayed", 0) != state.locally_replayed \
                or state.journal.get(state.next_seq) is not None:
            return None
        connector, method_name = request["connector"], request["method"]
        method = self.catalog.get(connector, method_name)
        if method is None or method.tool.requires_approval:
            return None
        facts = self._facts_of(method)
        if facts.is_async:
            return None
        try:
            checked = self._arguments(method, connector, method_name, request["args"], facts)
            if isinstance(checked, dict):
                return checked
            args, canonical = checked
            seq = state.next_seq
            state.next_seq += 1
            self._insert(seq, method, canonical, "executing")
        except ValueTooLarge as exc:
            return self.fail("ValueTooLarge", str(exc))
        except ReplayDivergence as exc:
            return self.fail("ReplayDivergence", str(exc))
        except Exception as exc:
            return self._host_error(request, exc)
        state.running = (seq, method.path)
        return method, args, seq, ExecutionContext(state.execution_id, seq, method.connector, method.name)

    def _keep_here(self, outcome: Outcome, at: float) -> None:
        """Keep ``outcome`` for the next mark's commit (the holding thread: no timer; it commits it itself)."""
        self._call_answered(outcome.seq)
        self._commit()
        self._unsaved = outcome
        self._unsaved_at = at

    def _late_outcome(self, outcome: Outcome) -> None:
        """On the loop: the outcome of a call whose thread lost the conversation while it ran: stored now."""
        self._keep(outcome, asyncio.get_running_loop().time(), arm=False)
        self.flush()

    def _finish_streak_call(self, seq: int, method: Method, sink: ReplySink, result: Any,
                            error: BaseException | None) -> None:
        task = asyncio.get_running_loop().create_task(self._finish(seq, method, sink, result, error))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _held_now(self) -> _Held | None:
        held = self._held
        return held if held is not None and held.sink.held else None

    def _check_owner(self) -> None:
        """The pass's journal has one user at a time: the thread holding the conversation, else the loop."""
        held = self._held
        if held is not None and held.sink.held != (threading.get_ident() == held.thread):
            raise JournalOwnerError("the pass's journal was used by a thread that does not hold it (a bug of the "
                                    "host; issue 12)")

    def _made(self, method: Method, seq: int, result: Any, error: BaseException | None) -> tuple[Reply | None,
                                                                                                Outcome | None]:
        """The reply to a sync call and its outcome, as :meth:`_run` makes them; (None, None) for what
        the loop must do (an awaitable, a value that does not encode or is too large to store, an
        exception that is not an ``Exception``)."""
        try:
            if error is None:
                if not inspect.isawaitable(result):
                    where = self._facts_of(method).result
                    encoded = codec.encode(result, where)
                    if scrub := self._secrets():
                        encoded = scrub.value(encoded)
                    stored = None if method.tool.replay == "reexecute" else codec.dumps_encoded(encoded)
                    if stored is not None:
                        codec.check_storable(stored, where)  # else the loop refuses it (_returned)
                    if stored is None:
                        return {"value": encoded}, Outcome(seq, "applied", None, None)
                    if len(stored) <= codec.MAX_VALUE_CHARS:  # its text goes into the reply as it is
                        return EncodedReply(encoded, stored), Outcome(seq, "applied", stored, None)
            elif isinstance(raised := future_safe(error), Exception):
                text = _error_of(method.path, raised, self._secrets())
                connector_errors.raised(self.state.execution_id, seq, method.path, raised)
                return {"raise": text}, Outcome(seq, _state_after(raised), None, f"{text['type']}: {text['message']}")
        except Exception:  # the loop does it again, and says what went wrong
            pass
        return None, None

    def _deliver(self, loop: asyncio.AbstractEventLoop, call: _OnThread, method: Method, sink: ReplySink,
                 result: Any, error: BaseException | None) -> None:
        """On the connector's thread: the reply and the outcome, as :meth:`_run` makes them; anything
        else (an awaitable, a value that does not encode or is too large to store, an exception that
        is not an ``Exception``) goes back to the loop, which does it as :meth:`_run` does."""
        reply, outcome = self._made(method, call.seq, result, error)
        if reply is None or outcome is None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(self._finish_on_loop, call, method, sink, result, error)
            return
        if call.done(outcome):  # kept before the reply goes: the next request finds it
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._late)
        sink.send(reply)

    def _finish_on_loop(self, call: _OnThread, method: Method, sink: ReplySink, result: Any,
                        error: BaseException | None) -> None:
        if self._on_thread is call:  # its outcome is kept the loop's way now
            self._on_thread = None
        task = asyncio.get_running_loop().create_task(self._finish(call.seq, method, sink, result, error))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _finish(self, seq: int, method: Method, sink: ReplySink, result: Any,
                      error: BaseException | None) -> None:
        reply: Reply | None = None
        try:
            try:
                if error is not None:
                    raise future_safe(error)
                if inspect.isawaitable(result):  # a sync wrapper around async code
                    result = await result
            except Exception as exc:
                reply = self._raised(seq, exc, True, method.path)
            else:
                reply = self._returned(method, seq, result, True)
        except ValueTooLarge as exc:
            reply = self.fail("ValueTooLarge", str(exc))
        except Exception as exc:
            reply = self._host_error({"op": "call"}, exc)
        finally:
            if reply is None:  # a BaseException (it goes on up): the pass cannot go on
                reply = self.fail("HostError", f"the call to {method.path} ended the host's work on it")
            sink.send(reply)

    def _recorded(self, entry: EntryRow, what: str) -> Reply:
        """The reply that replays ``entry``'s recorded result; a result the store holds that is not JSON
        (the codec always writes JSON: the store was changed by something else) ends the pass as an
        error naming the call, as data (review 10): nothing is run again."""
        if entry.result is None:
            return {"value": None}
        try:
            return {"value": json.loads(entry.result)}
        except (ValueError, RecursionError) as exc:
            return self.fail("StoreError", f"the journal's recorded result of call #{entry.seq} ({what}) is not "
                             f"valid JSON ({clip(str(exc))}): the journal was changed outside codemode. The call "
                             "is not run again; start a new execution")

    def _remember(self, seq: int, entry_state: str, result: str | None, error: str | None) -> None:
        old = self.state.journal.get(seq)
        if old is not None:
            self.state.journal[seq] = EntryRow(old.seq, old.connector, old.method, old.args, result,
                                               old.requires_approval, old.ephemeral, entry_state, error,
                                               old.pass_number, old.created_at, old.updated_at)

    # -- steps ------------------------------------------------------------------------------

    def _step(self, name: str) -> Reply:
        state = self.state
        if "\x00" in name:  # the sandbox refuses such a name itself (codemode.step): only a tampered worker sends one
            return self.fail("ProtocolError", "the sandbox sent a step name with a NUL character")
        if len(name) > codec.MAX_NAME_CHARS:  # the sandbox refuses it too (codemode.step)
            return self.fail("ProtocolError", f"the sandbox sent a step name of {len(name):,} characters (the limit "
                             f"is {codec.MAX_NAME_CHARS})")
        seq = state.next_seq
        state.next_seq += 1
        entry = state.journal.get(seq)
        if entry is not None:
            self._check_same(entry, seq, STEP_CONNECTOR, name, "null")
            if entry.state == "applied":
                return self._recorded(entry, f"step {name!r}")
            if entry.state == "error":
                return {"raise": _parse_error(entry.error)}
        state.pending_step = (seq, name)
        return {"run": True}

    def _step_done(self, message: Mapping[str, Any]) -> Reply:
        state = self.state
        if state.pending_step is None or state.pending_step[1] != str(message.get("name")):
            return self.fail("ProtocolError", "codemode.step finished without starting")
        seq, name = state.pending_step
        state.pending_step = None
        if "raise" in message:
            # A step whose function raised is not recorded: the next pass runs it again at
            # the same seq (the code saw the original exception, not a replayed copy).
            return {"value": None}
        encoded = message.get("value")
        where = f"the value of codemode.step({clip(name, 100)!r})"
        try:
            text = codec.dumps_encoded(encoded)
        except (ValueError, TypeError, RecursionError) as exc:
            return self.fail("CodecError", f"{where} is not valid data ({clip(str(exc))})")
        try:  # a lone surrogate: no journal keeps it (review 12; the isolated worker's line refuses it first)
            codec.check_storable(text, where)
        except codec.EncodeError as exc:
            return self.fail("CodecError", str(exc))
        self._check_size(text, where[0].upper() + where[1:])
        try:
            codec.decode(encoded, where)  # stored for replay: it must decode on every later pass
        except codec.DecodeError as exc:
            return self.fail("CodecError", str(exc))
        if not self.journal.insert_entry(state.execution_id, seq, STEP_CONNECTOR, name,
                                       "null", "applied", requires_approval=False, ephemeral=False,
                                       pass_number=state.pass_number, result=text):
            raise ReplayDivergence(seq, "an entry written by another host", f"codemode.step({name!r})")
        return {"value": encoded}


def _describe_call(connector: str, method: str, args: str) -> str:
    if connector == STEP_CONNECTOR:
        return f"codemode.step({clip(method, 200)!r})"
    shown = args if len(args) <= 200 else args[:200] + "…"
    return f"{connector}.{method}({shown})"


def _not_reexecuted(seq: int, path: str, needs_approval: bool) -> str:
    """Why a call recorded as a live read (``replay="reexecute"``) is not run again: its method changed since."""
    now = ("now requires approval" if needs_approval
           else "is now journaled with its result (replay='log'), and no result was kept for this call")
    return (f"call #{seq} ({path}) was recorded as a live read that runs again on every pass (replay='reexecute'), "
            f"but {path} {now}; it is not run again without a person's approval. The connector's configuration "
            "changed since this execution started: start a new execution.")


def _parse_error(text: str | None) -> dict[str, str]:
    if not text:
        return {"type": "Error", "message": ""}
    type_name, sep, message = text.partition(": ")
    if not sep or not type_name.isidentifier():
        return {"type": "Error", "message": text}
    return {"type": type_name, "message": message}


def _op_name(message: Mapping[str, Any]) -> str:
    op = message.get("op")
    return repr(op) if isinstance(op, str) and len(op) <= 20 else "unknown"
