"""Which notebook a kernel serves, as the lab extension sees it: the ``codemode.notebook`` comm.

The kernel learns its notebook's path once, from ``JPY_SESSION_NAME`` when it starts. A
rename or move in JupyterLab changes the session's path but not the kernel's environment,
so the lab extension (``labextension/src/session.ts``) tells the kernel over this comm:

    lab → kernel   {"type": "path", "path": "<path from the server root>", "previous": "<path>" | null}
                   as the comm's open data, and again after every rename or move
    kernel → lab   {"type": "journal", "path", "journal_id", "journal", "note"}
                   the journal id the notebook's metadata keeps (``metadata.codemode.journal``),
                   where the journal is, and what could not be done (or null)

Paths from the browser are relative to the server's root, which the kernel does not know;
it finds the root from the path its notebook had (``previous``, or the first message's
path), and a path that does not fit is refused, never guessed. Nothing the browser sends
raises inside the kernel: a malformed message is logged and answered with a note.

The comm manager is injected (``register``): ipykernel stays in the kernel module.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from codemode_kernel.journal_files import shown_store
from codemode_kernel.kernel.notebook_runtime import NotebookRuntime

log = logging.getLogger(__name__)

TARGET_NAME = "codemode.notebook"
_MAX_PATH = 4096


class Comm(Protocol):
    """The part of an ipykernel comm this channel uses."""

    def send(self, data: Any = None, metadata: Any = None, buffers: Any = None) -> None: ...

    def on_msg(self, callback: Callable[[dict[str, Any]], None]) -> None: ...


class CommManager(Protocol):
    def register_target(self, target_name: str, f: Any) -> None: ...


class NotebookChannel:
    """Keeps the session's notebook path in step with JupyterLab's (renames and moves)."""

    def __init__(self, session: NotebookRuntime) -> None:
        self.session = session
        self.root: Path | None = None  # the server's root folder, once known

    def register(self, manager: CommManager) -> None:
        manager.register_target(TARGET_NAME, self._on_open)

    def _on_open(self, comm: Comm, msg: dict[str, Any]) -> None:
        comm.on_msg(lambda m: self._receive(comm, m["content"].get("data")))
        self._receive(comm, msg["content"].get("data"))

    def _receive(self, comm: Comm, data: Any) -> None:
        try:
            path, previous = _parse(data)
        except ValueError as exc:
            log.warning("Code Mode notebook channel: %s", exc)
            comm.send({"type": "journal", "path": None, "journal_id": None, "journal": None, "note": str(exc)})
            return
        self.session.spawn(self._follow(comm, path, previous))

    async def _follow(self, comm: Comm, path: str, previous: str | None) -> None:
        note: str | None = None
        target = self.resolve(path, previous)
        if target is None:
            note = (f"The kernel cannot tell where {path!r} is on disk (it serves "
                    f"{self.session.notebook or 'no notebook'}); restart the kernel so its journal follows.")
        elif target != self.session.notebook:
            note = await self.session.rename(target)
        journal = self.session.journal if self.session.explicit_store is None else None
        if journal is None and self.session.explicit_store is None:
            journal = self.session.locate_journal()
        comm.send({
            "type": "journal",
            "path": path,
            "journal_id": journal.journal_id if journal is not None else None,
            "journal": str(journal.path) if journal is not None else shown_store(self.session.store_url),
            "note": note,
        })

    def resolve(self, path: str, previous: str | None) -> Path | None:
        """The absolute path of ``path`` (from the server root), or ``None`` when the root is unknown."""
        current = self.session.notebook
        if self.root is None and current is not None:
            for known in (previous, path):
                root = _root_of(current, known)
                if root is not None:
                    self.root = root
                    break
        if self.root is None:
            # The kernel started in its notebook's folder: the root is that folder minus the path's folders.
            self.root = _root_of(self.session.cwd / "x", str(PurePosixPath(path).parent / "x"))
        if self.root is None:
            return None
        return self.root.joinpath(*PurePosixPath(path).parts)


def _parse(data: Any) -> tuple[str, str | None]:
    if not isinstance(data, dict) or data.get("type") != "path":
        raise ValueError("expected {'type': 'path', 'path': ..., 'previous': ...} from the lab extension")
    path, previous = data.get("path"), data.get("previous")
    if not isinstance(path, str) or not path.endswith(".ipynb") or len(path) > _MAX_PATH:
        raise ValueError(f"'path' must be a notebook path ending in .ipynb, not {path!r:.80}")
    if previous is not None and (not isinstance(previous, str) or len(previous) > _MAX_PATH):
        raise ValueError("'previous' must be a path or null")
    for text in (path, previous or ""):
        if ".." in PurePosixPath(text).parts or text.startswith("/") or "\x00" in text:
            raise ValueError(f"refusing the path {text!r:.80}: paths are relative to the server root")
    return path, previous


def _root_of(absolute: Path, relative: str | None) -> Path | None:
    """``/srv/a/b.ipynb`` and ``a/b.ipynb`` → ``/srv``; ``None`` when ``absolute`` does not end with ``relative``."""
    if not relative:
        return None
    parts = PurePosixPath(relative).parts
    if not parts or len(parts) > len(absolute.parts) or absolute.parts[-len(parts):] != parts:
        return None
    return Path(*absolute.parts[: len(absolute.parts) - len(parts)])
