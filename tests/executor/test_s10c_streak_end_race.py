"""A run of sync calls that ended must not let go of the next run's conversation (s10c, issue 12).

A connector's thread that holds the conversation (passes.py, "holds the conversation") gives it
back when no request comes within the outcome bound; the thread's job then ends with a callback
(``PassHandler._streak_ended``) that gives the conversation back if the run failed while holding
it. Between the give back and that callback the loop may read the next sync call and hand the
conversation to a new run on another thread. Seen on a loaded machine (load 7-8, approving passes
of 1,000 sync calls): the old run's callback gave back the new run's conversation, so the loop
and the new run's thread both read the worker's pipe: ``RuntimeError: concurrent poll()
invocation`` in ``_Replies.next_request`` and a ``JournalOwnerError`` that failed the pass.

Here the old run's callback is held (a bounded poll) until the next run holds the conversation,
which makes the interleaving certain.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, ToolSetConnector, passes
from codemode_kernel.executor.isolated import SubprocessExecutor
from codemode_kernel.passes import PassHandler


@pytest.mark.anyio
async def test_a_run_that_ended_leaves_the_next_run_its_conversation(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    counted: list[int] = []
    lock = threading.Lock()

    def noop(i: int = 0) -> int:
        """Count the call."""
        with lock:
            counted.append(i)
        return i

    async def anoop(i: int = 0) -> int:
        """An async call: the holding thread gives the conversation back for it."""
        return i

    original = PassHandler._streak_ended
    seen: list[tuple[bool, bool]] = []  # per held-back end: (the next run held it, it still does after)

    def late_end(self: PassHandler, held: Any, *args: Any) -> None:
        if seen:
            original(self, held, *args)
            return
        deadline = time.monotonic() + 10  # the first run's end waits until the next run holds the conversation
        while time.monotonic() < deadline and not (self._held is not held and self._held is not None
                                                   and self._held.sink.held and self._held.ran):
            time.sleep(0.001)
        raced = self._held is not held
        original(self, held, *args)
        assert self._held is not None
        seen.append((raced, self._held.sink.held))

    monkeypatch.setattr(PassHandler, "_streak_ended", late_end)
    # The next run waits up to 5 s for a request after its reply; the sandbox computes ~0.1 s first.
    monkeypatch.setattr(passes, "OUTCOME_BOUND", 5.0)
    code = ("out = [noop.noop(i=0), noop.anoop(i=1), noop.noop(i=2)]\ntotal = 0\nfor j in range(300000):\n"
            "    total += j\nout.append(noop.noop(i=3))\nout")
    async with CodemodeRuntime([ToolSetConnector([noop, anoop], name="noop")],
                               store=f"sqlite:///{tmp_path / 'j.db'}", executor=SubprocessExecutor()) as rt:
        out = await rt.execute(code)
    assert seen == [(True, True)]  # the first run's end gave back nothing of the second run's
    assert out["status"] == "completed", out
    assert out["result"] == [0, 1, 2, 3]
    assert counted == [0, 2, 3]  # each sync call ran once
    with sqlite3.connect(tmp_path / "j.db") as db:
        entries = db.execute("SELECT seq, state, result FROM codemode_entries ORDER BY seq").fetchall()
    assert entries == [(i, "applied", str(i)) for i in range(4)]
