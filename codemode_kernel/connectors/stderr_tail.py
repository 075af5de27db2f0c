"""The last lines a child process wrote to stderr, for error messages that show why it failed."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections import deque
from typing import TextIO

log = logging.getLogger("codemode_kernel.connectors.mcp")
_TAIL_CHARS = 2000


class StderrTail:
    """The last lines a stdio server wrote to stderr, read by a thread from a pipe.

    A pipe (not a file) keeps memory bounded for a chatty server; the lines are also logged
    at DEBUG level under this module's logger.
    """

    def __init__(self, label: str) -> None:
        read_fd, write_fd = os.pipe()
        self.writer: TextIO = os.fdopen(write_fd, "w")
        self._reader = os.fdopen(read_fd, "rb")
        self._chunks: deque[bytes] = deque(maxlen=64)
        self._label = label
        self._thread = threading.Thread(target=self._pump, name="codemode-mcp-stderr", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        with self._reader:
            while True:
                chunk = self._reader.read1(4096)
                if not chunk:
                    return
                self._chunks.append(chunk)
                log.debug("%s stderr: %s", self._label, chunk.decode("utf-8", "replace").rstrip())

    def close_writer(self) -> None:
        """Drop our end of the pipe (the child has its own); then EOF means the child is gone."""
        with contextlib.suppress(OSError):
            self.writer.close()

    def tail(self, wait: float = 0.0) -> str:
        if wait:
            self._thread.join(wait)
        text = b"".join(self._chunks).decode("utf-8", "replace").strip()
        return text[-_TAIL_CHARS:]
