"""Where a connector's own code raised: for the person who wrote it, never for the program.

A connector's exception reaches the program (and the journal) as its type and message only
(``passes._error_of``): a traceback names host files and lines that a model has no business
reading. The author of a ``python`` connector (a module beside the notebook) needs the file and
the line all the same (review 15x M7). So the pass hands each exception it turns into a
program's error to the listeners registered here, with the execution and call it belongs to;
the kernel keeps the frames in the author's own files and shows them on the cell's stderr.

No listener, nothing kept: the code tool and ``codemode mcp`` register none (``codemode run`` does).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

#: ``(execution_id, seq, "connector.method", exception)``; called on whichever thread the call ran.
Listener = Callable[[str, int, str, BaseException], None]

_listeners: tuple[Listener, ...] = ()
_lock = threading.Lock()


def listen(listener: Listener) -> Callable[[], None]:
    """Hand ``listener`` every connector exception a pass turns into a program's error; returns the
    function that stops it."""
    global _listeners
    with _lock:
        _listeners = (*_listeners, listener)

    def stop() -> None:
        global _listeners
        with _lock:
            _listeners = tuple(f for f in _listeners if f is not listener)

    return stop


def raised(execution_id: str, seq: int, path: str, exc: BaseException) -> None:
    """Call ``path`` (#``seq`` of ``execution_id``) raised ``exc``: tell the listeners. A listener's
    own failure is logged, never the call's."""
    for listener in _listeners:
        try:
            listener(execution_id, seq, path, exc)
        except Exception:
            log.warning("a listener of connector errors failed", exc_info=True)
