"""CodemodeRuntime: journal + executor + connectors, the durable contract of DESIGN §5.

The runtime intercepts every connector call of a pass before the connector runs (see
``passes.py``), owns the execution records, and implements approval by replay, reject,
rollback (compensation), expiry, retention, snippets and discovery. It knows nothing about
Jupyter. Every method is async; ``sync.SyncRuntime`` wraps it for scripts.

Why a pass costs the runtime more when passes are spaced than back to back (issue 12): its own
work runs on cold caches. With an executor that returns at once, the runtime's CPU per pass is
~0.55-0.9 ms 50 ms apart against ~0.15-0.3 ms back to back (``bench_runtime.py``'s
``runtime_own_us``), with no page fault and no context switch in either, and spinning
instead of sleeping between passes costs the same: nothing of ours runs in the gap (no timer,
no deferred work, no checkpoint). What the gap changes is the machine: other work on this VM's
host evicts L1-L3 in a few ms, and every cache line a pass touches comes from memory again.
A raw probe shows it without us: 3,000 random reads within 2 MiB take 94 us back to back and
~510 us 50 ms apart; a strided scan of 64 MiB (prefetched) or a loop in registers shows no
difference; SQLite's ``SELECT 1`` takes 1 us back to back and 32-41 us after 50 ms. So what a
spaced pass costs the runtime is how much code and data it touches: the pool's checkout and
check-in were ~100 us of it (now a kept connection, ``JournalStore.session``), the start's
transaction ~330 us (prune, insert, commit: SQLite's cold code and pages), and the outcome's
~100 us after it. A pass that asks the host nothing now writes its start and its outcome in
one transaction after the sandbox's report (:class:`PassStart`): host work while the sandbox
runs delays the sandbox itself (``benchmarks/pass_path.py`` times each step of a pass).

Stamped again (s9_pass: ~20 timestamps in a copy of this module and ``journal.py``, ``1 + 1``
through the isolated executor on a SQLite file, 150 passes, load ~2.8): before the executor is
called the runtime spends 102 us back to back and 212 us 50 ms apart (the id 25 / 51, the
session and the checks 19 / 42, the row and the gates 13-29 / 13-29 each); after it returns,
442 us 50 ms apart, of which the one transaction is 350 (the prune's query 138, its two deletes
50, the insert 67, the commit 61), and 258 us back to back, where the start was committed while
the sandbox ran and the end is an update (184). Every segment is 1.5-2.5 times slower spaced and
none appears only when spaced; the loop wakes 3 times while the sandbox runs in both. Probes with
24 MiB touched between calls (caches evicted): ``SELECT 1`` 53 us, the prune's query 146 us with
its OFFSET of 50 and 139 us with LIMIT 1 and no offset: a statement costs its code path cold, not
its rows, so a cheaper query shape would not pay; running less code does (01d6a95: the runtime's
own CPU 50 ms apart 702 -> 587 us). (``docs/benchmarks.md``'s 149 / 629 / 257 us are back to back,
50 ms apart and ``max_executions=1000``; 200 ms apart is not measured there.)
Not kept after it (s9_pass): ``ExecutionRow`` as a named tuple (cold ~29 -> ~16 us to make) with
the connectors' hooks skipped where they are the base class's no-ops (two coroutines a connector
and pass): 8 interleaved rounds from clean trees at load 3.2-4.7 showed no signal (the runtime's
own CPU 50 ms apart 665 -> 692 us, lower in 3 of 8; wall 3.86 -> 4.00 / 2.70 -> 2.88 / 4.19 ->
4.27 ms 50 ms / 200 ms apart / back to back): below what this machine resolves now.
Measured again and not kept (s9_pass): a spaced pass's start committed while the sandbox runs
(``pass_path.py --paired``, the commit two loop turns after the code is sent), retried because
the refill no longer forks beside the pass (5a4707c) and so the other core could be free for it:
150 pairs at load 1.9-2.7: 50 ms apart 2.75 against 2.64 ms as now (slower in 65 of 150 pairs,
paired median -0.09 ms), 200 ms apart 3.23 against 2.59 ms (slower in 85 of 150, +0.30 ms): mixed,
as before. Why host
work right after the code is sent costs the sandbox: a pipe write wakes its reader with a sync
wake-up, which may put it on the writer's CPU. Probed alone (two processes, 50 ms apart, load ~3):
the reader woke 41 us after the write when the writer then slept, but the writer's next 400 us
of work held it back for all of them in 65 of 200 rounds (3 of 200 when it slept).

Tried and not kept (s8_pass): the prune left out of a quiet pass's one transaction and run
5 ms after the pass on the loop (and before the runtime lists, prunes or closes). The prune is
~40% of that transaction's SQL (cProfile, 2,000 warm passes: its query and deletes ~107 of
~260 us). An upper bound, the prune removed outright, paired in one process (150 pass pairs,
load 0.5-1.5): the runtime's loop-thread CPU per pass 1,561 -> 1,413 us 50 ms apart, 1,551 ->
1,503 us 200 ms apart; wall 3.10 -> 2.69 ms (86 of 150 pairs faster) and 4.58 -> 4.46 ms (76 of
150). The change itself, two clean trees, 6 interleaved rounds of 60 passes, load 1.7-2.5:
back to back 4.50 -> 3.95 ms (4 of 6), 50 ms apart 4.03 -> 4.74 (1 of 6), 200 ms apart 4.86 ->
4.06 (5 of 6), while the executor alone (the same code on both sides) moved as much: no signal.
And another runtime on the same store then sees ``max_executions`` + 1 finished executions
for those 5 ms: ``tests/reliability/test_runtime_states.py`` (two runtimes on one store, a
model that prunes as each execution starts) fails with it.

Where "through the runtime" minus "executor alone" goes (s11p, issue 12: make bench's 4.41 against
2.68 ms came from two benchmarks run minutes apart). ``benchmarks/pass_path.py`` interleaves them
pass by pass: 200 ms apart, 60 passes, load 5.6-5.9, four runs: +2.20, +1.25, +1.33, +1.19 ms. The
runtime's own loop-thread work on the critical path is ~0.6 ms of it, the same in every run: before
the executor is called 95 us (the id, the checks, the session) and 100 us (the row, the gates, the
handler), after it returns ~50 us to the start of the one transaction, the transaction 260-295 us
(prune query, insert, commit), the hooks 13 us, the session's end and the handler's release ~40 us.
The executor's own host work is the same in both (code handed over to the pipe write: 366 against
409 us; report to return: ~150 us). The rest is the sandbox's run itself, code sent to report read:
2,802 / 1,662 / 1,210 / 1,553 us through the runtime against 1,714 / 1,077 / 974 / 1,748 alone.
Not the namespaces (with the executor alone given the runtime's namespaces, inputs and empty
replay: 1,601 / 1,567 / 979 / 1,547 / 2,124 / 1,357 against 778 / 2,467 / 953 / 968 / 2,393 / 847)
and not host work meanwhile (the host process's CPU from code sent to report read: 307 against
300 us 200 ms apart, 253 against 245 50 ms apart; the loop's wakes in it 159-192 against 165-207):
at this load the worker's run swings by 2x from run to run, and the runtime's share that is ours
to cut is the ~0.6 ms above, which earlier rounds (s8_pass, s9_pass, above) have cut to code paths
that no longer show a signal one by one. A SQLite WAL checkpoint (two fsyncs, in whichever commit
crosses 1,000 pages) was looked at as well: journal.py's ``_sqlite_pragmas`` records why it stays.
The worker's run, measured with the scheduler's view (s11q, ``benchmarks/s11q_sched.py``: each
pass's worker's ``/proc/<pid>/schedstat`` and page faults at the take and at the kill, and the code
sent to the report read, runtime and executor alone interleaved pass by pass, 6 rounds of 30 passes
a gap, load 1.6-2.8). What made the runtime's worker slower than the executor alone's was not the
runtime: the executor alone was warmed up and the runtime was not, and a pool's first pass that
found no worker started a 2 s burst (``pool.WarmPool``): unwarmed zygote children, two kept, so 50
ms apart half of a round's passes took a child ~215 ms old with 170-301 copy-on-write faults (5 of
6 rounds; alone ~44): code sent to report 1.43-1.85 ms against 0.75-0.93, the worker's CPU in the
pass 0.59-1.45 ms against 0.54-0.72 (6 of 6 rounds, load ~2.4). ``bench_runtime.pass_ms`` starts
cold too (50 passes: ~3/4 of them 50 ms apart fell in that burst); the pool no longer bursts at a
cold start. Both warmed up, the alone pass given the runtime's namespaces and an output callback:
200 ms apart code sent to report 1,071 / 919 / 935 / 984 / 1,042 / 1,006 against 905 / 1,481 /
1,039 / 949 / 1,104 / 978 us (slower in 3 of 6), the worker's CPU 660-744 against 610-734 us, its
wait for a CPU 126-158 against 36-178 us (one time slice each), faults 41-45 against 37-46; 50 ms
apart 1,021 / 1,234 / 909 / 913 / 946 against 1,188 / 1,076 / 884 / 1,060 / 1,125 us (slower in 2
of 5; a sixth round's code-sent mark came late): the worker's run through the runtime is the
executor's, and the runtime's wall above the executor's (200 ms apart +0.42 to +1.31 ms in 5 of 6
rounds, 50 ms apart +0.16 to +0.99) is its own loop-thread work above, with the load's noise. Back
to back both pools burst: the worker waited for a CPU 112-961 us through the runtime against
64-916 alone (longer in 4 of 6 rounds: the start's commit overlaps it, as :class:`PassStart` says)
and its code sent to report went both ways (slower in 3 of 6). The worker runs on the loop thread's
CPU alike in both (at the report, 27-93 % of passes).

Other threads woken during a pass (s13p). On this VM (nested virtualization; an idle vCPU halts at
once, ``haltpoll.guest_halt_poll_ns=0``) a futex wake costs the waker ~30 us and the woken thread
then takes the GIL from the loop at its next system call. strace of a spaced pass showed the pool
thread woken at the take (before the run line was written) and the zygote's reader thread woken by
the worker's exit report (while the pass was recorded): ~12 futex calls a pass on the loop thread.
Neither wake did anything the pass needed; both are gone (``pool.py``, ``launcher.py``), and the
executor's start and end lost a timer and a turn of the loop (``isolated.py``). The three commits
against their parent, two runtimes in two processes with passes alternating (``execute("1 + 1")``,
150-200 pairs a gap; four runs of the three gaps and two of 200 ms alone, load 1.1 to 5.8, one with
two busy loops): the loop thread's CPU per pass lower in every run back to back (ratios 0.83-0.91)
and 50 ms apart (0.88-0.96), and in 5 of 6 runs 200 ms apart (0.89-0.96; 1.09 in a quiet run); the
wall ratio 0.83-0.98 50 ms apart (faster in 79-96 of 150 pairs) and 0.90-1.02 back to back, and 200
ms apart anywhere from 0.86 to 1.17: no resolved change there. Tried and not kept: the worker pinned
to the CPU the loop is not on, so that the host's work after the write overlaps the worker (a probe
of two processes, 50 ms apart: 400 us of the writer's work after the write cost +323 us unpinned, +0
pinned, but the pin itself +270 us: a halted vCPU woken for the worker and again for the reply); a
refill's ``ready`` line read ahead on the pool thread (pool.read_ready, so the pass neither reads
nor parses it): 0.976 / 1.042 wall, 0.97 / 1.025 CPU 50 / 200 ms apart, 150 pairs, load 2.4-3.0; a
pass that comes back to back folded like a spaced one (BACK_TO_BACK = 0): 0.975 wall (104 of 200),
0.936 CPU; the prune's parameters and the ended insert's checks made once (journal.py): 0.997 of the
runtime's own CPU 50 ms apart (300 pairs). What a spaced pass costs is now spread thin: with an
executor that returns at once and 16 MiB written between passes, the runtime's own CPU is ~610 us,
of which the one transaction is ~270 (its four statements ~100, the commit ~65, their Python ~70),
the id ~35, and no other step more than ~40.
"""

from __future__ import annotations

import asyncio
import dataclasses
import keyword
import logging
import os
import re
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Protocol

from codemode_kernel import codec, snippets, targets
from codemode_kernel.catalog import Catalog, CatalogResolver, check_connector_names
from codemode_kernel.connector_threads import invoke
from codemode_kernel.connectors.base import Connector, ExecutionContext
from codemode_kernel.connectors.secrets import every_secret
from codemode_kernel.connectors.unavailable import (
    named_in,
    safe_reason,
    unavailable_hints,
    unavailable_note_for,
)
from codemode_kernel.discovery.describe import not_found_message
from codemode_kernel.discovery.service import Discovery
from codemode_kernel.discovery.tool_text import INPUT_SCHEMA as TOOL_INPUT_SCHEMA
from codemode_kernel.discovery.tool_text import tool_description
from codemode_kernel.errors import (
    ConfigurationError,
    InvalidStateError,
    OutcomeUnknown,
    RollbackError,
    StoreError,
    UnknownExecutionError,
    clip,
)
from codemode_kernel.executor.base import ExecuteResult, Executor, OutputCallback, SandboxError
from codemode_kernel.executor.stream import bounded_lines
from codemode_kernel.journal import EntryRow, ExecutionRow, JournalStore, now_ms
from codemode_kernel.journal_files import sqlite_url
from codemode_kernel.models import (
    TERMINAL_STATUSES,
    DescribeOutput,
    ExecutionState,
    PendingAction,
    SearchOutput,
    Snippet,
    ToolLogEntry,
)
from codemode_kernel.passes import PassHandler, PassState, local_replay_plan
from codemode_kernel.runtime_journal import RuntimeJournal, open_journal
from codemode_kernel.selection import ROLLBACK_STATUSES, revert_for
from codemode_kernel.wording import sentence

log = logging.getLogger(__name__)
_SURROGATE = re.compile("[\ud800-\udfff]")


def _needs_none(_name: str) -> bool:
    """A pass's ``needs`` that names no connector (CodemodeRuntime.catalog(waiting=False))."""
    return False


TransformResult = Callable[[Any], Any]
_TERMINAL = sorted(TERMINAL_STATUSES)  # the retention prune's statuses, as the store takes them
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
#: Every 10-bit value as its two Crockford digits (1,024 strings, made once).
_PAIRS = tuple(a + b for a in _CROCKFORD for b in _CROCKFORD)
_id_lock = threading.Lock()
_last_id: list[int] = [0, 0]


def new_execution_id() -> str:
    """A 26-character id sortable by creation time (48-bit ms + 80 random bits, monotonic)."""
    with _id_lock:
        ms = int(time.time() * 1000)
        if ms <= _last_id[0]:
            ms = _last_id[0]
            rand = _last_id[1] + 1
        else:
            rand = int.from_bytes(os.urandom(10))  # what secrets.randbits(80) does, without its frames
        _last_id[0], _last_id[1] = ms, rand
    value = (ms << 80) | (rand & ((1 << 80) - 1))
    # Two digits a lookup, unrolled: every pass starts here, and a join over 26 digits cost ~36 us
    # of a spaced pass's cold CPU against ~17 us for this (issue 12, s9_pass).
    p = _PAIRS
    return (p[value >> 120] + p[(value >> 110) & 1023] + p[(value >> 100) & 1023] + p[(value >> 90) & 1023]
            + p[(value >> 80) & 1023] + p[(value >> 70) & 1023] + p[(value >> 60) & 1023]
            + p[(value >> 50) & 1023] + p[(value >> 40) & 1023] + p[(value >> 30) & 1023]
            + p[(value >> 20) & 1023] + p[(value >> 10) & 1023] + p[value & 1023])


#: How long a new execution's pass runs before its start is committed by itself (seconds), when
#: no request or printed text has needed it first (:class:`PassStart`).
BEGIN_AFTER = 0.01
#: A pass that starts within this long (seconds) of the runtime's last pass ending comes back to
#: back: its start is committed while the sandbox starts, as when its code names a connector.
BACK_TO_BACK = 0.01
#: The largest call number a store holds (SQLite INTEGER, PostgreSQL bigint); a larger ``seq`` names no call.
MAX_SEQ = 2**63 - 1


class PassStart:
    """The commit that records a new execution and the start of its first pass, made when the
    pass first needs it instead of before the code is handed over (issue 12).

    It promises as much as committing first: :meth:`ensure` runs before the host answers any
    request of the pass (:class:`~codemode_kernel.passes.PassHandler`), before any printed text
    reaches the caller, and before the runtime records or returns the pass's outcome. Until
    then the sandbox can reach nothing outside (every effect goes through the host), so a host
    that stops before the commit leaves no trace and nothing done, like one that stopped before
    ``execute`` began. A commit that fails stops the pass (its requests get ``abort``; a pass
    still running is cancelled), and the caller gets a ``StoreError`` with nothing recorded.

    A pass whose code names a connector or ``codemode`` commits while the sandbox starts (two loop
    turns after the code is handed over): its first request would otherwise wait for the commit.
    So does one that comes back to back (:data:`BACK_TO_BACK`): then the sandbox most often runs
    on the other CPU and the commit overlaps it (paired, the fold below was 0.16 ms slower there,
    median of five runs). Any other pass commits by itself only if it is still running
    :data:`BEGIN_AFTER` after it was handed over (so a long computation shows as ``running`` in
    the journal); one that ended before that and asked the host nothing is inserted as it ended,
    with the prune, in one transaction (:meth:`fold`): one commit a pass instead of two, and no
    update of the row. A spaced pass that committed while the sandbox ran (two loop turns after
    the code was sent, 049fa59) paid more than it overlapped: the woken worker shares the host's
    CPU, and ``benchmarks/pass_path.py`` measured the code-sent-to-done time of ``1 + 1`` 50 ms
    apart at 1,368-1,832 us with that commit against 867-940 us for the executor alone, and
    878-885 us with the commit after the worker's report.
    """

    def __init__(self, commit: Callable[..., object], *, soon: bool = False) -> None:
        self._commit = commit  # takes ended={...}: the execution as its pass ended (record)
        self.soon = soon  # commit while the sandbox starts, not only after BEGIN_AFTER
        self._done = False
        self.folded = False  # the start is recorded with the pass's end
        self.recorded = False  # ... and that end is committed
        self.error: StoreError | None = None
        self.passing = False  # the runtime is awaiting the executor
        self._task: asyncio.Task[Any] | None = None
        self._cancelled = False
        self._timer: object = None  # what ``overlap``'s schedule returned (cancelled when the pass ends)

    def ensure(self) -> StoreError | None:
        """Commit if that has not happened yet; the failure, if it failed."""
        if not self._done:
            self._done = True
            try:
                self._commit()
            except StoreError as exc:
                self.error = exc
            except Exception as exc:  # anything else stops the pass too: it escaped as a loop callback's
                # error, the pass ran on unrecorded (a connector call included) and was then told another
                # host had deleted it (s15m)
                self.error = StoreError("this runtime's store", "could not record the start of the execution "
                                        f"({type(exc).__name__}: {clip(str(exc))})", "Nothing of it was "
                                        "recorded and nothing was called; run it again once the journal works.")
        return self.error

    def fold(self) -> bool:
        """The pass is over: if nothing committed its start yet, the caller records the start with
        the pass's end, in one statement (:meth:`record`); whether that is so (``folded``)."""
        self.stop()
        if self._done:
            return False
        self._done = self.folded = True
        return True

    def record(self, ended: Mapping[str, Any]) -> None:
        """A folded start, inserted as the pass ``ended`` (its status and fields), and committed."""
        self._commit(ended=ended)
        self.recorded = True

    def overlap(self, schedule: Callable[[Callable[[], None], bool], object]) -> None:
        """Have ``schedule`` commit while the pass runs (the runtime is about to await it): soon
        when its code names a connector or ``codemode`` (a request is likely to wait for it), else
        only if it runs on (``soon`` False)."""
        self._task = asyncio.current_task()
        self.passing = True
        self._timer = schedule(self._overlapped, self.soon)

    def stop(self) -> None:
        """The pass is over: no commit comes by itself any more."""
        self.passing = False
        timer, self._timer = self._timer, None
        if isinstance(timer, asyncio.Handle):
            timer.cancel()

    def _overlapped(self) -> None:
        if self._done or not self.passing:
            return
        if self.ensure() is not None and self.passing and self._task is not None:
            self._cancelled = True
            self._task.cancel()  # stop the sandbox now: whatever it does cannot be recorded

    def stopped_pass(self) -> bool:
        """Whether a CancelledError out of the executor was this commit's failure (then it is
        taken back; any other cancellation goes on)."""
        if not self._cancelled:
            return False
        self._cancelled = False
        task = self._task
        return task is not None and task.uncancel() == 0

    def gate_output(self, on_output: OutputCallback | None) -> OutputCallback | None:
        """``on_output`` that lets no text through before the commit (none at all if it failed)."""
        if on_output is None:
            return None
        forward = on_output

        def gated(text: str) -> object:
            if self.ensure() is not None:
                return None
            return forward(text)

        return gated


@dataclass(frozen=True)
class CodemodeTool:
    """The model-facing tool: one tool named ``codemode`` taking ``{"code": str}``.

    ``call`` returns the output as plain JSON, ready for ``json.dumps``: bytes become
    ``{"$bytes": "<base64>"}``, dates and datetimes ISO 8601 strings, tuples lists
    (:func:`codemode_kernel.codec.to_json`). ``runtime.execute`` keeps the Python values.
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    call: Callable[[str], Awaitable[dict[str, Any]]]

    async def __call__(self, code: str) -> dict[str, Any]:
        return await self.call(code)


class CodemodeRuntime:
    """Durable Code Mode executions over connectors.

    ``store`` is a SQLAlchemy URL (default: ``sqlite:///codemode.db`` in the working
    directory) or a :class:`~codemode_kernel.journal.JournalStore`. ``executor`` defaults to
    the isolated :class:`~codemode_kernel.executor.isolated.SubprocessExecutor`.
    """

    def __init__(
        self,
        connectors: Iterable[Connector] = (),
        store: str | JournalStore | None = None,
        executor: Executor | None = None,
        name: str = "default",
        max_executions: int = 50,
        transform_result: TransformResult | None = None,
        connector_hints: Mapping[str, str] | None = None,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise ConfigurationError("the runtime name must be a non-empty string")
        self.name = name
        self._connectors = check_connector_names(connectors)
        if isinstance(store, JournalStore):
            self.store = store
        else:
            url = store or sqlite_url(os.path.abspath("codemode.db"))
            self.store = JournalStore(url)
        self._executor = executor
        self.max_executions = max_executions
        self.transform_result = transform_result
        #: One line per connector name shown to models beside it (``hint`` in ``codemode.toml``);
        #: a connector without one shows the first line of its ``instructions``.
        self.connector_hints: dict[str, str] = dict(connector_hints or {})
        self._discovery = Discovery()
        self._catalogs = CatalogResolver(self._connectors, resolved=Catalog.resolve_sync(self._connectors),
                                         on_resolve=self._discovery.invalidate)
        self._active: set[str] = set()
        # Passes waiting for connectors still starting, before they begin: interrupt() ends the wait (16x H3).
        self._waiting: set[asyncio.Future[Catalog]] = set()
        self._last_end = float("-inf")  # time.monotonic() when the last pass ended (BACK_TO_BACK)
        self._closed = False
        self._disposed = False  # the store is closed: nothing more is written
        self._ended: weakref.WeakSet[PassHandler] = weakref.WeakSet()  # passes over: close() stops their calls

    # -- configuration ------------------------------------------------------------------------

    @property
    def executor(self) -> Executor:
        if self._executor is None:
            from codemode_kernel.executor.isolated import SubprocessExecutor

            self._executor = SubprocessExecutor()
        return self._executor

    @property
    def connectors(self) -> dict[str, Connector]:
        return dict(self._connectors)

    async def catalog(self, *, retry: bool = False, waiting: bool = True) -> Catalog:
        """The resolved methods of every connector (async ``tools()`` are awaited once).

        A connector whose ``tools()`` fails is left out of that catalog (its reason is in
        ``catalog.unavailable``) and asked again a minute later (``CatalogResolver.RETRY_SECONDS``),
        at once for a program that names it, or now with ``retry=True``: a server that was down
        comes back without restarting anything, and one that hangs does not slow every pass.
        ``waiting=False``: do not wait for connectors still starting past the start's grace
        (``CatalogResolver.START_GRACE_SECONDS``); they are in ``catalog.starting``.
        """
        return await self._catalogs.get(force=retry, needs=None if waiting else _needs_none)

    def starting_for(self, code: str) -> list[str]:
        """The connectors still starting that a pass of ``code`` would wait for (its program names them, or
        uses ``codemode``, which may reach any): a door may say so before the wait (review 16x, M8)."""
        if self._catalogs.whole is not None:
            return []
        starting = self._catalogs.in_flight
        if not starting or named_in(code, "codemode"):
            return starting
        return [name for name in starting if named_in(code, name)]

    # -- executing ---------------------------------------------------------------------------

    async def execute(
        self,
        code: str,
        *,
        inputs: Mapping[str, Any] | None = None,
        on_output: OutputCallback | None = None,
        capture_variables: bool = False,
    ) -> dict[str, Any]:
        """Run ``code`` as a new execution; returns the output dict (never raises for pass errors)."""
        return await self._execute(code, inputs=inputs, on_output=on_output, capture_variables=capture_variables)

    async def _execute(self, code: str, *, inputs: Mapping[str, Any] | None = None,
                       on_output: OutputCallback | None = None, capture_variables: bool = False,
                       via_tool: bool = False) -> dict[str, Any]:
        execution_id = new_execution_id()
        if not isinstance(code, str):
            return _error_output(execution_id, "TypeError", "code must be a string of Python source")
        # A catalog resolved whole is kept for good: taken without awaiting the resolver (~15-25 us of a
        # spaced pass's cold CPU, issue 12).
        catalog = self._catalogs.whole
        if catalog is None:
            # A connector that failed is asked again now if this program names it, and one still starting is
            # waited for only then; a program that uses codemode (search, describe, snippets) waits for all.
            waited_for = self.starting_for(code)
            try:
                resolved = await self._interruptible(self._catalogs.get(needs=lambda name: named_in(code, name),
                                                                        settled=named_in(code, "codemode")))
            except ConfigurationError as exc:
                return _error_output(execution_id, "ConfigurationError", str(exc))
            if resolved is None:  # the stop button, while connectors it names were still starting (16x H3)
                names = ", ".join(repr(n) for n in waited_for) or "its connectors"
                return _error_output(execution_id, "Interrupted", (
                    f"interrupted while waiting for {names} to start; the program did not run and nothing was "
                    "recorded. The start goes on: run the program again to wait for it again."))
            catalog = resolved
        if len(code) > codec.MAX_VALUE_CHARS:  # refused before anything is recorded (issue 14, defect 4)
            return _error_output(execution_id, "ValueTooLarge", (
                f"the code is {len(code):,} characters; the limit is {codec.MAX_VALUE_CHARS:,}. Pass large data "
                "by reference (a path or an id), not inline. Nothing was recorded."))
        if "\x00" in code:  # Python source cannot hold it, nor can a PostgreSQL journal (review 11)
            return _error_output(execution_id, "SyntaxError", (
                "the code contains a NUL character (U+0000), which Python source cannot hold; remove it (write "
                "'\\x00' or chr(0) in a string for the character itself). Nothing was recorded."))
        if not code.isascii() and _SURROGATE.search(code):  # no UTF-8 form: neither Python nor a journal takes it
            return _error_output(execution_id, "SyntaxError", (
                "the code contains a lone surrogate (a character from U+D800 to U+DFFF, which has no UTF-8 form), "
                "so Python cannot compile it and no journal can keep it; remove it (write '\\ud800' or "
                "chr(0xD800) in a string for the character itself). Nothing was recorded."))
        encoded_inputs: dict[str, Any] = {}
        problem: tuple[str, str] | None = None
        misnamed = next((why for k in (inputs or {}) if (why := input_name_problem(k, catalog.methods))), None)
        if misnamed is not None:
            problem = ("UsageError", misnamed)
        else:
            try:
                encoded_inputs = {str(k): codec.encode(v, f"input {k!r}") for k, v in (inputs or {}).items()}
            except codec.EncodeError as exc:
                problem = ("CodecError", str(exc))
        if problem is None:
            try:
                size = len(codec.dumps_encoded(encoded_inputs)) if encoded_inputs else 2  # '{}': ~30 us less cold
            except ValueError as exc:  # an int of more digits than JSON text may hold (review 13)
                refusal = codec.long_int_error(exc, "the inputs")
                if refusal is None:
                    raise
                for name, encoded in encoded_inputs.items():  # which one: the refusal names it
                    try:
                        codec.dumps_encoded(encoded)
                    except ValueError as one:
                        refusal = codec.long_int_error(one, f"input {name!r}") or refusal
                        break
                problem, size, encoded_inputs = ("CodecError", str(refusal)), 0, {}  # recorded without them
            if size > codec.MAX_VALUE_CHARS:
                problem = ("ValueTooLarge", f"the carried-over variables are {size:,} characters; the limit "
                           f"is {codec.MAX_VALUE_CHARS:,}. Delete large variables or keep them elsewhere.")
        connectors = sorted(catalog.methods)
        options: dict[str, Any] = {"capture_variables": capture_variables, "targets": catalog.targets}
        if tools := targets.tool_digests(catalog.connectors):  # what an approval or a revert would send
            options["tools"] = tools
        if via_tool:
            options["via_tool"] = True
        try:
            with open_journal(self.store, self.name) as j:
                # One transaction: the prune (before the insert: the new execution is never a victim),
                # the new execution, and the start of its first pass (issue 12).
                def start(passes: int = 1, ended: Mapping[str, Any] | None = None) -> None:
                    j.start_execution(execution_id, code, connectors, encoded_inputs, options,
                                      keep=self.max_executions, terminal=_TERMINAL, passes=passes,
                                      ended=ended)

                if problem is not None:
                    start(passes=0)
                    j.transition(execution_id, ["running"], "error",
                                          error=problem[1], error_type=problem[0])
                    await self._hooks(execution_id, "error", terminal=True)
                    return _error_output(execution_id, problem[0], problem[1])
                t = now_ms()
                row = ExecutionRow(self.name, execution_id, code, "running", None, None, None, None, [],
                                   connectors, encoded_inputs, options, 1, t, t)
                soon = time.monotonic() - self._last_end < BACK_TO_BACK or _may_ask(code, catalog)
                begin = PassStart(start, soon=soon)
                return await self._pass(j, row, catalog, None, on_output, begin=begin)
        except StoreError as exc:  # the journal failed (locked, full, …): data, like every other failure
            return _error_output(execution_id, "StoreError", str(exc))

    async def approve(self, execution_id: str, *, seq: int | None = None,
                      on_output: OutputCallback | None = None) -> dict[str, Any]:
        """Approve the pending call of a paused execution and run the next pass.

        ``seq``: the call the approver saw (``pending[i]["seq"]`` of the paused output). The
        approval applies only if call #``seq`` is the execution's pending call when it is claimed,
        checked in the claim's own statement: a click meant for an earlier call, arriving after
        another approval moved the execution on (to a pause on a later call, a pass running, an
        end), approves nothing. ``None`` approves whatever call is pending (``%approve last``).

        A refused approval (unknown id, not paused, ``seq`` not the pending call, a connector
        missing) comes back as an error output with ``"refused": True`` and leaves the execution
        unchanged; for a ``seq`` that is not the pending call, ``error_type`` is
        ``InvalidStateError`` and the message says what the execution is now.
        """
        catalog = await self.catalog()
        try:
            return await self._approve(catalog, execution_id, seq, on_output)
        except StoreError as exc:
            return _error_output(execution_id, "StoreError", str(exc))

    async def _approve(self, catalog: Catalog, execution_id: str, seq: int | None,
                       on_output: OutputCallback | None) -> dict[str, Any]:
        if seq is not None and (type(seq) is not int or seq < 0):  # a bool is not a call number
            return _refused(execution_id, "TypeError", (
                f"seq must be a call number (an int >= 0, the 'seq' of a pending action), not {clip(repr(seq))}; "
                "nothing was approved"))
        if seq is not None and seq > MAX_SEQ:  # no store holds it, so no execution has it (review 11)
            return _refused(execution_id, "InvalidStateError", (
                f"seq is larger than any call number (2**63 - 1), so it is not a call of execution {execution_id!r}. "
                "Nothing was approved. Look at "
                "the execution's current pending call, if it has one, and decide on that call."))
        with open_journal(self.store, self.name) as j:
            row = j.get_execution(execution_id)
            if row is None:
                return _refused(execution_id, "UnknownExecutionError",
                                str(UnknownExecutionError(execution_id, self.name)))
            if row.status != "paused":
                if seq is not None:
                    return _refused(execution_id, "InvalidStateError", _not_pending(j, execution_id, seq, row))
                return _refused(execution_id, "InvalidStateError",
                                str(InvalidStateError(execution_id, row.status, "approve", ["paused"])))
            missing = sorted(set(row.connectors) - set(catalog.methods))
            if any(name in catalog.unavailable for name in missing):
                catalog = await self.catalog(retry=True)  # a server that was down may be back (review 15 M9)
                missing = sorted(set(row.connectors) - set(catalog.methods))
            if down := [name for name in missing if name in catalog.unavailable]:
                why = "; ".join(f"{name!r} ({safe_reason(self._connectors.get(name))})" for name in down)
                return _refused(execution_id, "ConfigurationError", (
                    f"execution {execution_id!r} was started with connectors that are unavailable now: {why}. "
                    "Nothing was approved: approve again once they are back (%connectors shows their state)"))
            if missing:
                return _refused(execution_id, "ConfigurationError", _missing_refusal(
                    execution_id, missing, row.options.get("targets")))
            moved = targets.changed(row.options.get("targets"), catalog.targets, row.connectors)
            if moved:  # another backend has the name now (review 13, M4)
                return _refused(execution_id, "ConfigurationError", targets.refusal(execution_id, "approve", moved))
            if redefined := targets.tools_changed(row.options.get("tools"), catalog.connectors, lambda: [
                    (e.connector, e.method) for e in j.entries(execution_id) if e.state == "pending"
                    and seq in (None, e.seq)]):  # the server defines the pending call's tool otherwise now
                return _refused(execution_id, "ConfigurationError",
                                targets.tool_refusal(execution_id, "approve", redefined))
            # The claim also starts the next pass (one statement, issue 12), and with ``seq`` holds only
            # while that call is the pending one (the same statement: JournalStore.transition).
            if not j.transition(execution_id, ["paused"], "running", pending_seq=seq, passes=row.passes + 1):
                current = j.get_execution(execution_id)
                if seq is not None:
                    return _refused(execution_id, "InvalidStateError", _not_pending(j, execution_id, seq, current))
                status = current.status if current else "deleted"
                return _refused(execution_id, "InvalidStateError",
                                str(InvalidStateError(execution_id, status, "approve", ["paused"])))
            # The row as claimed, not read again: the claim set its status and passes, and an execution's
            # code, inputs and options never change (a second read was ~0.2-0.7 ms of an approval, issue 12).
            row = dataclasses.replace(row, status="running", passes=row.passes + 1)
            # Read once, after the claim: the journal as this host owns it (issue 12: it was read twice).
            journal = j.pass_entries(execution_id)
            if seq is None:
                seq = next((e.seq for e in journal.values() if e.state == "pending"), None)
            # Over the connectors the execution started with, not all this runtime has (review 16, C3, H2).
            return await self._pass(j, row, catalog.only(row.connectors), seq, on_output, journal)

    async def _pass(self, j: RuntimeJournal, row: ExecutionRow, catalog: Catalog, approved_seq: int | None,
                    on_output: OutputCallback | None, journal: dict[int, EntryRow] | None = None,
                    begin: PassStart | None = None) -> dict[str, Any]:
        """Run pass ``row.passes`` over the ``journal`` by seq (read once per pass; a new execution
        has none). The store has recorded that the pass began, or ``begin`` records it while the
        sandbox starts (see :class:`PassStart`)."""
        execution_id = row.id
        pass_number = row.passes
        if journal is None:
            journal = {}
        plan = local_replay_plan(journal)
        state = PassState(execution_id, pass_number, journal, approved_seq=approved_seq, local_plan=len(plan))
        handler = PassHandler(
            journal=j, catalog=catalog, state=state,
            search=lambda q, **o: self._search(catalog, j, q, **o).to_dict(),
            describe=lambda t, **o: self._describe(catalog, j, t, **o).to_dict(),
            snippet=lambda n, i: snippets.run_request(catalog, j, n, i),
            begun=begin.ensure if begin is not None else None,
        )
        try:
            return await self._run_pass(j, row, catalog, state, handler, plan, on_output, begin)
        finally:
            # ``j`` goes back when the caller's session ends: an outcome the handler learns after this
            # (a connector's thread that outlasted the pass: an interrupt, a cancel) is stored through
            # a session of its own, never the connection another pass may be using; a closed runtime
            # stores nothing more.
            handler.release(lambda: None if self._disposed else open_journal(self.store, self.name))
            self._ended.add(handler)

    async def _run_pass(self, j: RuntimeJournal, row: ExecutionRow, catalog: Catalog, state: PassState,
                        handler: PassHandler, plan: list[dict[str, Any]], on_output: OutputCallback | None,
                        begin: PassStart | None) -> dict[str, Any]:
        """The pass itself: the sandbox's run with ``handler`` answering it, then its end recorded."""
        execution_id = row.id
        if begin is not None:
            on_output = begin.gate_output(on_output)
            begin.overlap(self._schedule_begin)
        self._active.add(execution_id)
        try:
            result = await self.executor.execute(row.code, catalog.namespaces(), host=handler,
                                                 inputs=row.inputs, on_output=on_output,
                                                 capture_variables=bool(row.options.get("capture_variables")),
                                                 replay=plan)
        except asyncio.CancelledError:
            if begin is None or not begin.stopped_pass():
                handler.flush()  # the last call's outcome waits for a commit (passes.py): not lost to the cancel
                raise
            result = ExecuteResult()  # the start failed and stopped the pass: said just below
        except Exception as exc:  # an executor must return errors as data; one that raised failed the pass
            log.warning("the executor raised during a pass", exc_info=True)
            result = ExecuteResult(error=SandboxError("ExecutorError", (
                f"the executor failed during the pass ({type(exc).__name__}: {clip(str(exc))})")))
        finally:
            self._active.discard(execution_id)
            self._last_end = time.monotonic()
            if begin is not None:
                begin.stop()
        if begin is not None and not begin.fold() and (failed := begin.error) is not None:
            begin.stopped_pass()  # a cancellation the executor swallowed is taken back too
            # Nothing was recorded and no request of the pass was answered: the caller hears why.
            return _error_output(execution_id, "StoreError", str(failed), bounded_lines(result.logs))
        # A pass that asked the host nothing and printed nothing has no record yet: its start is
        # written in the transaction that records its end (PassStart.fold).
        folded = begin if begin is not None and begin.folded else None
        try:
            handler.flush()  # the last call's outcome, before the pass's own
            return await self._end_pass(j, row, catalog, state, result, folded)
        except Exception as exc:
            if folded is not None and not folded.recorded:
                # Its start and its end were to be one transaction, and it did not commit: nothing
                # of the execution is recorded (as when a start on its own fails), and nothing ran.
                log.warning("recording the pass of %s failed; nothing was recorded", execution_id, exc_info=True)
                error_type = "StoreError" if isinstance(exc, StoreError) else "HostError"
                text = str(exc) if isinstance(exc, StoreError) else (
                    f"the host could not record the pass ({type(exc).__name__}: {clip(str(exc))}); nothing was "
                    "recorded")
                return _error_output(execution_id, error_type, text, bounded_lines(result.logs))
            # Whatever the sandbox reported, a pass the host could not finish is an error, not a
            # `running` execution and not an exception out of execute() (issue 10, item 2).
            log.warning("ending the pass of %s failed", execution_id, exc_info=True)
            text = f"HostError: the host could not finish the pass ({type(exc).__name__}: {clip(str(exc))})"
            try:
                j.transition(execution_id, ["running"], "error", error=text,
                                      error_type="HostError", logs=list(result.logs))
            except Exception:  # the store itself failed: expire_paused() reclaims the execution later
                log.warning("could not record the failed pass of %s", execution_id, exc_info=True)
            await self._hooks(execution_id, "error", terminal=True)
            return _error_output(execution_id, "HostError", text, result.logs)

    @staticmethod
    def _schedule_begin(callback: Callable[[], None], soon: bool) -> object:
        """Run ``callback`` (commit the start) if the pass still runs :data:`BEGIN_AFTER` from now, or
        (``soon``) once the executor has handed the code to the sandbox: two loop turns on (the
        executor starts its conversation in a task of its own, which writes the code in its first
        step); the timer, which :meth:`PassStart.stop` cancels. The gates hold whenever it comes."""
        loop = asyncio.get_running_loop()
        if soon:
            return loop.call_soon(loop.call_soon, callback)  # the handle of the first turn: cancelled with it
        return loop.call_later(BEGIN_AFTER, callback)

    async def _end_pass(self, j: RuntimeJournal, row: ExecutionRow, catalog: Catalog, state: PassState,
                        result: ExecuteResult, folded: PassStart | None = None) -> dict[str, Any]:
        """Record the outcome of a pass the host decided (its own state first, the sandbox's report second);
        ``folded``: the start is recorded in the same transaction (:meth:`PassStart.fold`)."""
        execution_id = row.id
        logs = bounded_lines(result.logs)  # journaled: bounded whatever executor ran the pass (issue 16)
        capture = bool(row.options.get("capture_variables"))
        value: Any = None
        if state.failure is None and state.paused_seq is None and result.error is None:
            # The sandbox's report is data from the sandbox: it must decode, like anything else it sends.
            try:
                value = codec.decode(result.result, "the result")
                if capture:
                    for name, encoded in result.variables.items():
                        codec.decode(encoded, f"variable {str(name)[:100]!r}")
            except codec.DecodeError as exc:
                result = ExecuteResult(error=SandboxError("ProtocolError", (
                    f"the sandbox reported a malformed result ({exc}); a sandbox that works never does, so the "
                    "pass was stopped")), logs=result.logs)
        if state.paused_seq is not None:
            return await self._paused(j, execution_id, state, logs, folded)
        self._abandon_pending(j, execution_id, state)
        traceback = result.error.traceback if result.error is not None else ""
        if state.failure is not None:
            return await self._failed(j, execution_id, state, catalog, logs, state.failure.type,
                                      state.failure.message, None, traceback, folded, code=row.code)
        if result.error is not None:  # the sandbox's text: bounded before it is stored
            return await self._failed(j, execution_id, state, catalog, logs, result.error.type,
                                      clip(result.error.message, MAX_ERROR_CHARS), result.error.lineno, traceback,
                                      folded, code=row.code)
        return await self._completed(j, execution_id, state, logs, result, value, capture, folded)

    async def _paused(self, j: RuntimeJournal, execution_id: str, state: PassState,
                      logs: list[str], folded: PassStart | None = None) -> dict[str, Any]:
        """The pass stopped at a call that needs approval: the execution waits for a person."""
        if not _record_end(j, execution_id, "paused", folded, logs=logs):
            return await self._superseded(j, execution_id, state, logs)
        await self._hooks(execution_id, "paused", terminal=False)
        assert state.paused_seq is not None
        entry = state.journal[state.paused_seq]
        return {"status": "paused", "execution_id": execution_id, "pending": [
            PendingAction(execution_id, entry.seq, entry.connector, entry.method, codec.loads(entry.args)).to_dict()]}

    async def _failed(self, j: RuntimeJournal, execution_id: str, state: PassState, catalog: Catalog,
                      logs: list[str], error_type: str, message: str, lineno: int | None,
                      traceback: str, folded: PassStart | None = None, *, code: str = "") -> dict[str, Any]:
        """The pass failed (the host decided it, or the sandbox reported an error)."""
        text = codec.storable_text(f"{error_type}: {message}" + (f" (line {lineno})" if lineno else ""))
        if state.running is not None and error_type in _STOPPED:  # the call outlives its pass (review 14x, M9)
            seq, path = state.running
            running = catalog.get(*path.split(".", 1)) if "." in path else None
            if running is not None and running.tool.reads_only:  # a read cut off changed nothing (review 16x, M9)
                text = (f"{sentence(text)} Call #{seq} ({path}) was running when the pass stopped; it only reads "
                        "(its server says so), so nothing was changed and there is nothing to undo.")
                j.finish_entry(execution_id, seq, "error", error=codec.storable_text(
                    f"Interrupted: the pass stopped while this read ran ({error_type}); it changed nothing"))
            else:
                text = (f"{sentence(text)} Call #{seq} ({path}) was running when the pass stopped: it was not stopped "
                        "and may still take effect; the journal records its outcome when it ends. Look at the "
                        "journal before you send it again.")
        # Only when the program names an unavailable connector: on any other failure the note buried the
        # program's own error (review 14x, M5). The reasons are for the author (%connectors), not the model.
        if note := unavailable_note_for(code, catalog.unavailable, self._connectors):
            text = sentence(text) + " " + note
        # A program's own exception may have a long name; the journal keeps 64 characters of a type (review 14, M3).
        kept_type = error_type if len(error_type) <= _MAX_TYPE_CHARS else error_type[:_MAX_TYPE_CHARS - 1] + "…"
        if not _record_end(j, execution_id, "error", folded, error=text, error_type=kept_type, logs=logs,
                           settle_pending=_any_pending(state)):
            return await self._superseded(j, execution_id, state, logs)
        await self._hooks(execution_id, "error", terminal=True)
        out = _error_output(execution_id, error_type, text, logs)
        if lineno:
            out["line"] = lineno
        if traceback:
            out["traceback"] = traceback
        return out

    async def _completed(self, j: RuntimeJournal, execution_id: str, state: PassState, logs: list[str],
                         result: ExecuteResult, value: Any, capture: bool, folded: PassStart | None = None
                         ) -> dict[str, Any]:
        """The pass ran to its end: record the result (or a note when it is too large to keep)."""
        text = codec.dumps_encoded(result.result)
        note = None
        stored: str | None = text
        if len(text) > codec.MAX_VALUE_CHARS:
            stored, note = None, (f"result omitted: {len(text):,} characters is over the "
                                  f"{codec.MAX_VALUE_CHARS:,} limit for stored values")
        shown = value
        if self.transform_result is not None:
            try:
                shown = self.transform_result(value)
                if asyncio.iscoroutine(shown):
                    shown = await shown
            except Exception as exc:  # the caller gets the raw result (issue 14, defect 4)
                log.warning("transform_result failed (%s: %s); returning the raw result of %s",
                            type(exc).__name__, clip(str(exc)), execution_id)
                shown = value
            else:
                if not codec.is_encodable(shown):  # a NaN, an object: no JSON for the tool's answer (review 12)
                    log.warning("transform_result returned a %s, which is not JSON data; returning the raw "
                                "result of %s", type(shown).__name__, execution_id)
                    shown = value
        if not _record_end(j, execution_id, "completed", folded, result=stored, result_note=note, logs=logs,
                           settle_pending=_any_pending(state)):
            return await self._superseded(j, execution_id, state, logs)
        await self._hooks(execution_id, "completed", terminal=True)
        done: dict[str, Any] = {"status": "completed", "execution_id": execution_id, "result": shown}
        if logs:
            done["logs"] = logs
        if capture:
            done["variables"] = result.variables
        return done

    async def _superseded(self, j: RuntimeJournal, execution_id: str, state: PassState,
                          logs: Sequence[str]) -> dict[str, Any]:
        """The pass ended but the execution no longer ran: another host ended it meanwhile (e.g.
        ``expire_paused`` took it for a crashed host's). The stored state stands and is what the
        caller hears, never this pass's ``completed`` (issue 14, defect 3)."""
        current = j.get_execution(execution_id)
        for seq, entry in state.journal.items():  # a pause this pass recorded waits for nothing now
            if entry.state == "pending":
                j.set_entry(execution_id, seq, ["pending"], "error", error="Superseded")
        status = current.status if current is not None else "deleted"
        why = f" ({clip(current.error)})" if current is not None and current.error else ""
        # This host's own failures to record never come here (PassStart.ensure stops the pass; a failed
        # write of the end is a HostError): a row that is gone was deleted, not "ended as 'deleted'".
        what = f"was ended as {status!r}" if current is not None else "was deleted from the journal"
        text = (f"execution {execution_id!r} {what} by another host while this pass ran{why}; "
                "this pass's outcome was not recorded and its result is not returned.")
        ended = status if status in TERMINAL_STATUSES else "error"
        await self._hooks(execution_id, ended, terminal=False)
        error_type = current.error_type if current is not None and current.error_type else "InvalidStateError"
        return _error_output(execution_id, error_type, text, logs)

    def _abandon_pending(self, j: RuntimeJournal, execution_id: str, state: PassState) -> None:
        for seq, entry in state.journal.items():
            if entry.state == "pending":
                j.set_entry(execution_id, seq, ["pending"], "error",
                                     error="NotReached: the approved pass did not reach this call")

    async def _hooks(self, execution_id: str, status: str, *, terminal: bool) -> None:
        for c in self._connectors.values():
            try:
                await c.on_pass_end(execution_id, status)  # type: ignore[arg-type]
            except Exception:
                log.debug("on_pass_end of %s failed", c.name, exc_info=True)
        if terminal:
            await self._dispose(execution_id, status)

    async def _dispose(self, execution_id: str, status: str) -> None:
        for c in self._connectors.values():
            try:
                await c.dispose_execution(execution_id, status)  # type: ignore[arg-type]
            except Exception:
                log.debug("dispose_execution of %s failed", c.name, exc_info=True)

    def interrupt(self) -> bool:
        """Stop the running pass(es); each becomes an ``error`` ("interrupted"). A program still waiting for
        its connectors to start ends too, before it runs (an ``Interrupted`` error; nothing recorded)."""
        waits = [w for w in self._waiting if not w.done()]
        for wait in waits:
            wait.cancel()
        return self.executor.interrupt() or bool(waits)

    async def _interruptible(self, resolving: Awaitable[Catalog]) -> Catalog | None:
        """``resolving``'s catalog, or None when :meth:`interrupt` ended the wait (the connectors' starts go on:
        the resolver's own tasks are not cancelled). A cancel of the caller itself is passed on."""
        wait = asyncio.ensure_future(resolving)
        self._waiting.add(wait)
        try:
            return await wait
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if wait.cancelled() and (current is None or not current.cancelling()):
                return None
            raise
        finally:
            self._waiting.discard(wait)

    # -- reject, rollback, expiry -------------------------------------------------------------

    async def reject(self, execution_id: str, seq: int | None = None) -> bool:
        """Reject the pending call of a paused execution; the execution ends ``rejected``.

        ``seq``: only if call #``seq`` is the pending call, checked in the same statement as the
        status change (a stale reject of a call approved meanwhile rejects nothing). ``None``
        rejects whatever is pending. True if this caller rejected it; False changed nothing.
        """
        if seq is not None and (type(seq) is not int or not 0 <= seq <= MAX_SEQ):
            return False
        with open_journal(self.store, self.name) as j:
            # The transition settles the pending entries (error 'Rejected') in its transaction.
            if not j.transition(execution_id, ["paused"], "rejected", pending_seq=seq,
                                error="rejected", error_type="Rejected"):
                return False
        await self._hooks(execution_id, "rejected", terminal=True)
        return True

    async def rollback(self, execution_id: str) -> None:
        """Revert applied calls in reverse order; raise :class:`RollbackError` after trying all."""
        catalog = await self.catalog()
        failures: list[str] = []
        reverted = 0
        with open_journal(self.store, self.name) as j:
            row = j.get_execution(execution_id)
            if row is None:
                raise UnknownExecutionError(execution_id, self.name)
            allowed = list(ROLLBACK_STATUSES)
            if row.status not in allowed:
                raise InvalidStateError(execution_id, row.status, "roll back", allowed)
            journal = j.entries(execution_id)
            if any(e.state == "applied" and e.connector in catalog.unavailable for e in journal):
                catalog = await self.catalog(retry=True)  # a server that was down may be back: ask it now
            # Each call's revert, looked up once: the target check below covers exactly the reverts run.
            reverts = {e.seq: revert_for(catalog, e.connector, e.method, e.state) for e in journal}
            touched = sorted({e.connector for e in journal if reverts[e.seq] is not None})
            moved = targets.changed(row.options.get("targets"), catalog.targets, touched)
            if moved:  # another backend has the name now: revert nothing there, nor elsewhere (review 13, M4)
                raise ConfigurationError(targets.refusal(execution_id, "roll back", moved))
            if redefined := targets.tools_changed(row.options.get("tools"), catalog.connectors, lambda: [
                    (e.connector, e.method) for e in journal if reverts[e.seq] is not None], reverts=True):
                raise ConfigurationError(targets.tool_refusal(execution_id, "roll back", redefined))
            # Reverted by an earlier rollback that stopped before recording the status (a crash).
            earlier = any(e.state == "reverted" for e in journal) and row.status != "rolled_back"
            for e in reversed(journal):
                if e.state == "applied" and e.connector in catalog.unavailable:
                    # Configured, but its methods could not be listed now: its revert (if any) cannot be
                    # run, and the call stands. Said, not skipped like a connector no longer configured.
                    failures.append(_not_reverted_unavailable(e.seq, e.connector, e.method, self._connectors))
                    continue
                revert = reverts[e.seq]
                if revert is None:
                    continue
                # Claimed before the revert runs, so two hosts never revert one call; the note stays
                # only if this host stops before the revert returns: that outcome is unknown, and
                # (like an 'executing' call) the revert is not run again (issue 14).
                if not j.set_entry(execution_id, e.seq, ["applied"], "reverted",
                                            error=REVERT_UNKNOWN):
                    continue  # another host reverted it
                ctx = ExecutionContext(execution_id, e.seq, e.connector, e.method, revert=True)
                try:
                    await invoke(revert, codec.loads(e.args),
                                  codec.loads(e.result) if e.result is not None else None, ctx)
                    reverted += 1
                    j.set_entry(execution_id, e.seq, ["reverted"], "reverted", error=None)
                except OutcomeUnknown as exc:  # sent, unanswered: it may have been done, so it is not run again
                    note = every_secret(catalog.configured.values()).text(f"RevertOutcomeUnknown: {clip(str(exc))}")
                    j.set_entry(execution_id, e.seq, ["reverted"], "reverted", error=note)
                    failures.append(f"#{e.seq} {e.connector}.{e.method}: the revert was sent and not answered, so "
                                    f"whether it took effect is unknown; it is not run again, check the service "
                                    f"({clip(str(exc))})")
                except Exception as exc:
                    j.set_entry(execution_id, e.seq, ["reverted"], "applied", error=None)
                    failures.append(f"#{e.seq} {e.connector}.{e.method}: {type(exc).__name__}: {exc}")
            finished = bool(reverted or earlier)
            if finished:
                j.transition(execution_id, allowed, "rolled_back")
        if finished:
            await self._hooks(execution_id, "rolled_back", terminal=True)
        if failures:  # a revert's error is a connector's text: redacted of every connector's secrets (review 16)
            scrub = every_secret(catalog.configured.values())
            raise RollbackError(execution_id, [scrub.text(f) for f in failures])

    async def expire_paused(self, max_age: timedelta = timedelta(hours=24)) -> list[str]:
        """Reject stale paused executions and fail stale running ones; return their ids."""
        cutoff = now_ms() - int(max_age.total_seconds() * 1000)
        expired: list[tuple[str, str]] = []
        with open_journal(self.store, self.name) as j:
            for eid in j.stale("paused", cutoff):
                if j.transition(eid, ["paused"], "rejected",
                                         error="expired while waiting for approval", error_type="Expired"):
                    for e in j.entries(eid):
                        if e.state == "pending":
                            j.set_entry(eid, e.seq, ["pending"], "error", error="Expired")
                    expired.append((eid, "rejected"))
            for eid in j.stale("running", cutoff):
                if eid in self._active:
                    continue
                if j.transition(eid, ["running"], "error",
                                         error="the host stopped during a pass (stale running execution)",
                                         error_type="Expired"):
                    expired.append((eid, "error"))
        for eid, status in expired:
            await self._hooks(eid, status, terminal=True)
        return [eid for eid, _ in expired]

    # -- reading ------------------------------------------------------------------------------

    async def pending(self, execution_id: str | None = None) -> list[PendingAction]:
        """Calls waiting for approval (of one execution, or of every paused execution)."""
        with open_journal(self.store, self.name) as j:
            if execution_id is not None:
                row = j.get_execution(execution_id)
                rows = [row] if row is not None and row.status == "paused" else []
            else:
                rows = j.list_executions(statuses=["paused"])
            out = []
            for r in rows:
                for e in j.entries(r.id):
                    if e.state == "pending":
                        out.append(PendingAction(r.id, e.seq, e.connector, e.method, codec.loads(e.args)))
        return out

    async def executions(self, limit: int | None = None) -> list[ExecutionState]:
        """Executions of this runtime, newest first."""
        with open_journal(self.store, self.name) as j:
            return [self._state(j, r) for r in j.list_executions(limit)]

    async def execution(self, execution_id: str) -> ExecutionState | None:
        with open_journal(self.store, self.name) as j:
            row = j.get_execution(execution_id)
            return self._state(j, row) if row is not None else None

    def _state(self, j: RuntimeJournal, row: ExecutionRow) -> ExecutionState:
        return ExecutionState(
            id=row.id, code=row.code, status=row.status,  # type: ignore[arg-type]
            log=[_entry(e) for e in j.entries(row.id)],
            result=codec.loads(row.result) if row.result is not None else row.result_note,
            error=row.error, error_type=row.error_type, logs=row.logs, connectors=row.connectors,
            created_at=row.created_at, updated_at=row.updated_at, passes=row.passes, runtime=self.name,
            via_tool=bool(row.options.get("via_tool")))

    # -- retention ----------------------------------------------------------------------------

    async def delete_execution(self, execution_id: str) -> bool:
        """Delete an execution and its journal; a non-terminal one is disposed first."""
        with open_journal(self.store, self.name) as j:
            row = j.get_execution(execution_id)
            if row is None:
                return False
            if row.status not in TERMINAL_STATUSES:
                if row.status == "running" and row.id not in self._active:
                    # Another host's pass (a kernel, a terminal) runs it: it would go on calling connectors and
                    # its writes would be recorded nowhere, never to be rolled back (review 15, H8).
                    allowed = ["paused", *sorted(TERMINAL_STATUSES)]
                    refused = InvalidStateError(execution_id, "running", "delete", allowed)
                    refused.args = (f"{refused} Its pass runs in another kernel or terminal: interrupt it there, or "
                                    "wait for it to end, then delete it.",)
                    raise refused
                if row.id in self._active:
                    self.interrupt()
                await self._dispose(execution_id, "rejected" if row.status == "paused" else "error")
            return j.delete_execution(execution_id)

    async def prune_executions(self, keep: int = 50) -> int:
        """Delete terminal executions beyond the newest ``keep``; return how many."""
        with open_journal(self.store, self.name) as j:
            return self._prune(j, keep)

    def _prune(self, j: RuntimeJournal, keep: int) -> int:
        victims = j.terminal_beyond(keep, _TERMINAL)
        return sum(1 for eid in victims if j.delete_execution(eid))

    # -- snippets -----------------------------------------------------------------------------

    async def save_snippet(self, name: str, *, execution_id: str, description: str = "",
                           input_schema: Any = None) -> Snippet:
        """Save the code of a completed execution as a snippet named ``name``."""
        snippets.check_new(name, input_schema)
        snippets.check_unclaimed(name, await self.catalog())
        with open_journal(self.store, self.name) as j:
            row = j.get_execution(execution_id)
            if row is None:
                raise UnknownExecutionError(execution_id, self.name)
            saved = snippets.from_execution(name, row, description, input_schema)
            j.upsert_snippet(saved)
        self._discovery.invalidate()
        return snippets.to_model(saved)

    async def snippets(self) -> list[Snippet]:
        with open_journal(self.store, self.name) as j:
            return [snippets.to_model(s) for s in j.list_snippets()]

    async def delete_snippet(self, name: str) -> bool:
        with open_journal(self.store, self.name) as j:
            ok = j.delete_snippet(name)
        self._discovery.invalidate()
        return ok

    # -- discovery ----------------------------------------------------------------------------

    async def search(self, query: str, *, limit: int | None = None, connector: str | None = None) -> SearchOutput:
        """Rank methods and snippets for a natural-language query.

        ``limit`` (1 to 50, default 10) caps the results; ``connector`` keeps one
        connector's methods (``"codemode"``: saved snippets only). An unknown connector
        raises ``ValueError`` naming the configured ones.
        """
        catalog = await self.catalog()
        with open_journal(self.store, self.name) as j:
            return self._search(catalog, j, query, limit=limit, connector=connector)

    def _search(self, catalog: Catalog, j: RuntimeJournal, query: str, *, limit: int | None = None,
                connector: str | None = None) -> SearchOutput:
        return self._discovery.search(catalog, j.list_snippets(), query, limit=limit, connector=connector)

    async def describe(self, target: str, *, page: int = 1, full: bool = False) -> DescribeOutput:
        """Python declarations for a connector, ``connector.method``, ``connector.method.arg``, a snippet
        or a bare method name.

        Compact by default (``full=True`` adds every nested type and the whole description);
        a connector's methods are listed ``page`` by page. An unknown target raises
        ``LookupError`` with the nearest names (inside the sandbox it is answered as data).
        """
        catalog = await self.catalog()
        with open_journal(self.store, self.name) as j:
            out = self._describe(catalog, j, target, page=page, full=full)
        if out.kind == "not_found":
            tail = not_found_message(target, out.suggestions, catalog)
            raise LookupError(f"nothing named {target.strip()!r}: {tail}")
        return out

    def _describe(self, catalog: Catalog, j: RuntimeJournal, target: str, *, page: int = 1,
                  full: bool = False) -> DescribeOutput:
        return self._discovery.describe(catalog, target, snippet=j.get_snippet, snippets=j.list_snippets,
                                        page=page, full=full)

    # -- the model-facing tool ----------------------------------------------------------------

    def tool(self, description: str | None = None, connector_hints: Mapping[str, str] | None = None) -> CodemodeTool:
        """The ``codemode`` tool for a model: its description lists connectors, never methods; one known to
        be unusable (it failed when last resolved, or its command is not installed) is marked so."""
        last = self._catalogs.last
        marks = unavailable_hints(self._connectors, last.unavailable if last is not None else ())
        for name in self._catalogs.in_flight:  # its server has not answered yet (review 16x, M15)
            marks.setdefault(name, "starting: its server has not answered yet; a program that uses it waits for it "
                                   "(up to its connect_timeout).")
        hints = {**self.connector_hints, **(connector_hints or {}), **marks}
        text = tool_description(self._connectors, hints, description)
        return CodemodeTool("codemode", text, dict(TOOL_INPUT_SCHEMA), self._tool_call)

    async def _tool_call(self, code: str) -> dict[str, Any]:
        """``execute`` for a model: the output as plain JSON (:func:`codec.to_json`; issue 14, defect 2)."""
        out = await self._execute(code, via_tool=True)
        if "pending" in out:  # PendingAction.to_dict() gives the journal's tagged form
            out["pending"] = [{**p, "args": codec.decode(p["args"])} for p in out["pending"]]
        plain: dict[str, Any] = codec.to_json(out, "the output")
        return plain

    # -- lifecycle ----------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Close the executor, the connectors and the store."""
        if self._closed:
            return
        self._closed = True
        await self._catalogs.aclose()  # a connector still starting
        if self._executor is not None:
            await self._executor.aclose()
        for handler in list(self._ended):  # an awaitable a sync connector returned that never finishes
            await handler.aclose()  # and an outcome that came while the executor closed is stored
        for c in self._connectors.values():
            try:
                await c.aclose()
            except Exception:
                log.debug("closing connector %s failed", c.name, exc_info=True)
        self._disposed = True
        self.store.dispose()

    async def __aenter__(self) -> CodemodeRuntime:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _error_output(execution_id: str, error_type: str, message: str, logs: Sequence[str] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {"status": "error", "execution_id": execution_id, "error": message, "error_type": error_type}
    if logs:
        out["logs"] = list(logs)
    return out


MAX_ERROR_CHARS = 100_000
#: Pass errors that stop a pass from outside while a connector call may still run on the host.
_STOPPED = frozenset({"Timeout", "Interrupted", "WorkerCrashed", "LimitExceeded"})

#: The longest error type name the journal keeps (executions.error_type is 64 characters).
_MAX_TYPE_CHARS = 64

def _not_reverted_unavailable(seq: int, connector: str, method: str, connectors: Mapping[str, Connector]) -> str:
    """A rollback's failure line for an applied call whose connector is configured but unavailable now."""
    why = safe_reason(connectors.get(connector))
    return (f"#{seq} {connector}.{method}: not reverted: connector {connector!r} is unavailable now ({why}); "
            "the call stays applied: roll back again once the connector is back (%connectors shows its state)")

REVERT_UNKNOWN = ("RevertOutcomeUnknown: the host stopped while this call was being reverted, so whether the "
                  "revert took effect is unknown; check the connector (the revert is not run again)")


def input_name_problem(name: object, connectors: Collection[str] = ()) -> str | None:
    """Why ``name`` cannot be a variable a program is given (``execute(inputs=...)``, a notebook's
    carried-over names), or None: it must be an identifier that is not a keyword, does not start with
    '_' (the sandbox's own names: its guards) and hides no connector and not ``codemode`` (review 13)."""
    shown = repr(name)[:100]
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        return f"the input name {shown} is not a Python variable name; name each input as a variable."
    if name.startswith("_"):
        return f"the input name {shown} starts with '_', which names the sandbox's own; rename it."
    if name == "codemode" or name in connectors:
        return f"the input name {shown} would hide the {name!r} namespace of the program; rename it."
    return None


def _any_pending(state: PassState) -> bool:
    """Whether the pass's journal had a pending entry (the store's copy may still, until settled)."""
    return any(e.state == "pending" for e in state.journal.values())


def _record_end(j: RuntimeJournal, execution_id: str, status: str, folded: PassStart | None, *,
                settle_pending: bool = True, **fields: Any) -> bool:
    """Move a running execution to ``status`` (compare-and-set); one whose start is ``folded`` is
    inserted as it ended (it has no entry: nothing pending to settle)."""
    if folded is None:
        return j.transition(execution_id, ["running"], status, settle_pending=settle_pending, **fields)
    folded.record({"status": status, **fields})
    return True


def _may_ask(code: str, catalog: Catalog) -> bool:
    """Whether ``code`` names a connector or ``codemode``: a pass that does will likely ask the host
    something, and its first request would wait for the start's commit (:class:`PassStart`)."""
    return "codemode" in code or any(name in code for name in catalog.methods)


class JournalCall(Protocol):
    """What :func:`not_pending_text` reads of a journal entry (an ``EntryRow``, a ``ToolLogEntry``)."""

    @property
    def seq(self) -> int: ...
    @property
    def connector(self) -> str: ...
    @property
    def method(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def requires_approval(self) -> bool: ...


#: What an execution that no longer waits on the call is now (:func:`not_pending_text`).
_NOW = {"running": "The execution is running on (another approval was accepted first).",
        "completed": "The execution has completed.", "error": "The execution has failed.",
        "rejected": "The execution was rejected (or expired).", "rolled_back": "The execution was rolled back.",
        "paused": "The execution is paused."}


def not_pending_text(verb: str, execution_id: str, seq: int, status: str | None,
                     calls: Iterable[JournalCall]) -> str:
    """Why a decision (``verb``: ``approve`` or ``reject``) on call #``seq`` decided nothing: that call is
    not the execution's pending call. ``status`` and ``calls``: the execution and its journal as they are
    now, read after the refusal (``status`` ``None``: no such execution).

    The one text for every door (the runtime's refusal, the card, the panel, the CLI): it names the
    call, says that nothing was decided and what the execution is now, so a person or a model decides
    on what waits now.
    """
    done = "approved" if verb == "approve" else "rejected"
    if status is None:
        return f"Execution {execution_id} does not exist (deleted, or a wrong id), so nothing was {done}."
    journal = list(calls)
    call = next((c for c in journal if c.seq == seq), None)
    if call is None:
        head = f"Call #{seq} is not pending: execution {execution_id} has no such call, so nothing was {done}."
    elif not call.requires_approval:
        head = f"Call #{seq} ({call.connector}.{call.method}) never waited for approval, so nothing was {done}."
    else:
        head = (f"Call #{seq} ({call.connector}.{call.method}) is not pending any more: it was already decided, "
                f"so nothing was {done}.")
    waiting = [c for c in journal if c.state == "pending"]
    if status == "paused" and waiting:
        now = "The execution is now paused on " + ", ".join(
            f"call #{c.seq} ({c.connector}.{c.method})" for c in waiting) + "."
    else:
        now = _NOW.get(status, f"The execution is now {status}.")
    return f"{head} {now}"


def _not_pending(j: RuntimeJournal, execution_id: str, seq: int, row: ExecutionRow | None) -> str:
    """Why an approval of call #``seq`` was refused, from the execution ``row`` read after the refusal."""
    return not_pending_text("approve", execution_id, seq, row.status if row is not None else None,
                            j.entries(execution_id) if row is not None else [])


def _missing_refusal(execution_id: str, missing: list[str], recorded: Any) -> str:
    """Why an approval refused: connectors the execution had are not configured now (review 16x M11). One made in
    code without ``target=`` (``connect(...)`` in a ``%%host`` cell) was that very object, in a process that has
    ended (a kernel before its restart): configuring it again cannot bring it back, so say the way that is left."""
    names = ", ".join(repr(name) for name in missing)
    then = recorded if isinstance(recorded, Mapping) else {}
    gone = [name for name in missing if str(then.get(name, "")).startswith("o:")]  # targets' object fingerprint
    if gone:
        shown = ", ".join(repr(name) for name in gone)
        return (f"execution {execution_id!r} used {shown}, made in code without a target= in a process that has "
                "ended (a kernel before its restart, say): no connector configured now is known to act where it "
                "did, so nothing was approved, and connecting it again cannot change that. Or reject the execution, "
                f"which ends it without running the call: runtime.reject({execution_id!r}). Give the connector a "
                "target= (ToolSetConnector([...], name=..., target='...')) so a later pause can be approved "
                "after a restart.")
    return (f"execution {execution_id!r} used connector(s) {names} that are not configured now; configure them "
            "again, then approve")


def _refused(execution_id: str, error_type: str, message: str) -> dict[str, Any]:
    out = _error_output(execution_id, error_type, message)
    out["refused"] = True
    return out


def _entry(e: EntryRow) -> ToolLogEntry:
    return ToolLogEntry(
        seq=e.seq, connector=e.connector, method=e.method, args=codec.loads(e.args),
        result=codec.loads(e.result) if e.result is not None else None, requires_approval=e.requires_approval,
        ephemeral=e.ephemeral, state=e.state, error=e.error, pass_number=e.pass_number,  # type: ignore[arg-type]
        created_at=e.created_at, updated_at=e.updated_at)
