"""Where the author's own connector code raised, shown on the cell's stderr (review 15x M7) or the terminal's.

The program (often a model) gets a connector's exception as ``<Type>: <connector.method>:
<message>`` and nothing more, and so does the journal. The notebook's author wrote the
``python`` connectors of its ``codemode.toml`` (modules beside it) and can read them anyway:
for a call of one of those that raised, the kernel keeps the traceback's frames in the
author's own files (not the host's, not installed packages) and, when the cell fails with that
error, writes them on the cell's stderr under the error. Nothing is kept for an exception
with no frame in the author's files (an MCP server's answer, an OpenAPI error, the host's own
refusals), so nothing is shown for those.

``codemode run`` (the same author, prototyping in a terminal) writes them on stderr under the
outcome (review 16x M6); so the module lives beside :mod:`.connector_errors`, with no Jupyter in it.
"""

from __future__ import annotations

import sys
import sysconfig
import threading
import traceback
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import codemode_kernel
from codemode_kernel import connector_errors

#: Executions whose frames are kept at once (a paused execution's are shown when it is approved).
MAX_EXECUTIONS = 32
#: The last frames shown, of the author's files (the innermost ones: where it raised).
MAX_FRAMES = 6
#: Characters of a frame's source line shown.
LINE_CHARS = 200


@dataclass(frozen=True)
class Trace:
    """Call ``path`` (#``seq``) raised ``error_type`` in these frames of the author's files."""

    seq: int
    path: str
    error_type: str
    frames: tuple[str, ...]

    def text(self) -> str:
        return (f"{self.path} (call #{self.seq}) raised {self.error_type} in the connector's code; the program "
                "got only its message. Where it raised (innermost last):\n" + "".join(self.frames))


class ConnectorTraces:
    """The frames in the author's connector files of each failed call, by execution, until shown."""

    def __init__(self, folders: Callable[[], Iterable[Path]],
                 python_connectors: Callable[[], Iterable[str]] | None = None) -> None:
        #: The folders the author's modules live in (the notebook's, the configuration's).
        self._folders = folders
        #: The names of the connectors that are ``python`` tables (code the author owns); ``None``: any
        #: connector, and only the frames in ``folders`` (outside installed code) decide.
        self._python = python_connectors
        self._kept: OrderedDict[str, list[Trace]] = OrderedDict()
        self._lock = threading.Lock()
        self._stop: Callable[[], None] | None = None

    def start(self) -> None:
        if self._stop is None:
            self._stop = connector_errors.listen(self._raised)

    def close(self) -> None:
        if self._stop is not None:
            self._stop()
            self._stop = None

    def take(self, execution_id: str) -> list[Trace]:
        """The traces kept for ``execution_id``, forgotten as they are taken."""
        with self._lock:
            return self._kept.pop(execution_id, [])

    def shown_for(self, execution_id: str, ename: str, evalue: str) -> str:
        """The text to write under a cell's error ``ename: evalue``: the frames of the calls whose
        error it is (their ``connector.method`` and type in the message), else ''."""
        traces = self.take(execution_id)
        said = f"{ename}: {evalue}"
        return "".join(t.text() for t in traces if t.path in said and t.error_type in said)

    def _raised(self, execution_id: str, seq: int, path: str, exc: BaseException) -> None:
        connector = path.split(".", 1)[0]
        if self._python is not None and connector not in set(self._python()):
            return
        original = getattr(exc, "original", None)  # a contained BaseException (connector_threads)
        source = original if isinstance(original, BaseException) else exc
        frames = self._own_frames(source)
        if not frames:
            return
        error_type = type(source).__name__
        trace = Trace(seq, path, error_type, tuple(frames))
        with self._lock:
            self._kept.setdefault(execution_id, []).append(trace)
            self._kept.move_to_end(execution_id)
            while len(self._kept) > MAX_EXECUTIONS:
                self._kept.popitem(last=False)

    def _own_frames(self, exc: BaseException) -> list[str]:
        folders = [f.resolve() for f in self._folders()]
        outside = _installed_folders()
        shown: list[str] = []
        for frame in traceback.extract_tb(exc.__traceback__):
            where = _file_under(frame.filename, folders, outside)
            if where is None:
                continue
            line = (frame.line or "").strip()
            if len(line) > LINE_CHARS:
                line = line[:LINE_CHARS] + "…"
            shown.append(f'  File "{where}", line {frame.lineno}, in {frame.name}\n'
                         + (f"    {line}\n" if line else ""))
        return shown[-MAX_FRAMES:]


def _file_under(filename: str, folders: list[Path], outside: list[Path]) -> str | None:
    """``filename`` as shown (relative to the folder it is in) when it is one of the author's files."""
    if not filename or filename.startswith("<"):
        return None
    path = Path(filename).resolve()
    if any(path.is_relative_to(o) for o in outside):
        return None
    for folder in folders:
        if path.is_relative_to(folder):
            return str(path.relative_to(folder))
    return None


def _installed_folders() -> list[Path]:
    """Where installed code lives (a virtual environment may sit inside the notebook's folder)."""
    found = {Path(codemode_kernel.__file__).resolve().parent, Path(sys.prefix).resolve(),
             Path(sys.base_prefix).resolve()}
    for key in ("purelib", "platlib", "stdlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            found.add(Path(path).resolve())
    return sorted(found)
