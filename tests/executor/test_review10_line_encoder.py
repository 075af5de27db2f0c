"""Review 10: ``worker.dumps_line`` is called by several threads of the host (issue 12, e977ce4).

e977ce4 made ``dumps_line`` encode every message with one C encoder kept for the process and one
module-level dict of the containers being encoded (``worker._MARKERS``), emptied after any
encoding that fails. Its comment holds for the worker ("a line is written by one flow at a time"),
not for the host, which imports the same function: the event loop writes run lines and replies
(``isolated.py``), connector threads write the replies of the calls they hold
(``_Replies.send``: "except Exception: the loop tries again"), and the pool thread writes each
new worker's configuration (``pool.start_worker``). The C encoder runs Python code in the middle
of a message when the message holds a ``Mapping`` whose ``items`` is Python (s10c's
``base.RecordedValue`` in a replay plan, read before the run line is built, is one), or when a
value needs ``default`` (a message that is refused); the GIL can pass to another thread there.
Then one thread's refused message empties the other's marks, and the other's valid message fails
with ``KeyError`` (an exception ``_run_line``'s ``except (TypeError, ValueError)`` does not turn
into an error as data). Before e977ce4 every document had its own marks (``codec._direct``).

The interleaving is forced with events here (bounded waits, no sleeps).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from codemode_kernel.executor.worker import dumps_line, loads_line

WAIT = 5.0


class _PausingMapping(dict[str, Any]):
    """A dict whose ``items`` (Python, as ``RecordedValue``'s) pauses the first thread that reads it."""

    def __init__(self, inside: threading.Event, go: threading.Event, **values: Any) -> None:
        super().__init__(**values)
        self.inside = inside
        self.go = go

    def items(self) -> Any:  # type: ignore[override]
        if not self.inside.is_set():  # the first reader only
            self.inside.set()
            assert self.go.wait(WAIT), "the other thread never let this one go on"
        return super().items()

    def __iter__(self) -> Iterator[str]:
        return iter(dict(super().items()))


def test_a_message_refused_on_one_thread_does_not_break_one_being_encoded_on_another() -> None:
    """Thread A encodes a valid message and is paused inside it (in a Mapping's Python ``items``);
    the main thread's message is refused (a value that is not JSON: TypeError, as it was); A's
    message is then written whole.

    Fails on e977ce4: A's message raises KeyError (the C encoder removes its container's mark,
    which the refused message's clean-up took away). Passes on efbfc8c (one marks dict per
    document)."""
    inside, go = threading.Event(), threading.Event()
    message = {"op": "run", "replay": [_PausingMapping(inside, go, c="crm", m="get", a="{}", v=[1, 2])]}
    outcome: dict[str, Any] = {}

    def encode() -> None:
        try:
            outcome["line"] = dumps_line(message)
        except BaseException as exc:  # what the other thread got is the finding
            outcome["error"] = exc

    thread = threading.Thread(target=encode, daemon=True)
    thread.start()
    try:
        assert inside.wait(WAIT), "the encoding thread never reached the mapping"
        with pytest.raises(TypeError):
            dumps_line({"op": "call", "value": object()})
    finally:
        go.set()
        thread.join(WAIT)
    assert not thread.is_alive()
    assert "error" not in outcome, repr(outcome.get("error"))
    assert loads_line(outcome["line"]) == {"op": "run", "replay": [{"c": "crm", "m": "get", "a": "{}", "v": [1, 2]}]}


def test_a_container_another_thread_is_encoding_is_no_cycle() -> None:
    """Thread A is paused inside a container (acyclic); the main thread encodes a message holding
    the same container: both lines are written, neither is refused as a circular reference.

    Fails on e977ce4: the main thread's message raises ``ValueError: Circular reference
    detected`` (A's mark of the container is in the one marks dict). Passes on efbfc8c."""
    inside, go = threading.Event(), threading.Event()
    shared = _PausingMapping(inside, go, k=[1])
    outcome: dict[str, Any] = {}

    def encode() -> None:
        try:
            outcome["line"] = dumps_line({"op": "a", "v": shared})
        except BaseException as exc:  # what the other thread got is the finding
            outcome["error"] = exc

    thread = threading.Thread(target=encode, daemon=True)
    thread.start()
    try:
        assert inside.wait(WAIT), "the encoding thread never reached the mapping"
        assert loads_line(dumps_line({"op": "b", "v": shared})) == {"op": "b", "v": {"k": [1]}}
    finally:
        go.set()
        thread.join(WAIT)
    assert not thread.is_alive()
    assert "error" not in outcome, repr(outcome.get("error"))
    assert loads_line(outcome["line"]) == {"op": "a", "v": {"k": [1]}}
