"""The worker writes a whole line even when a pipe write is partial and memory is short (s11c).

``worker.PipeChannel.write`` writes a line with ``os.write`` and, when a signal interrupts a write on
a full pipe after some bytes went out, writes the rest. It made the rest as ``data[written:]``: a
copy of up to the whole line, allocated after half of it was written. A worker near its
``Limits.max_memory_bytes`` then failed with MemoryError between the two halves, and the host read
half a line followed by whatever the worker wrote next. A view of the line needs no copy.

The partial write is made real: a pipe of one page, a signal sent to the writing thread while it
waits for room, a reader that drains the pipe after that. The line is a bytes whose copies fail
(``MemoryError``), as they may in a worker at its memory limit.
"""

from __future__ import annotations

import fcntl
import os
import signal
import termios
import threading
import time
from typing import Any, SupportsIndex

import pytest

from codemode_kernel.executor.worker import PipeChannel

F_SETPIPE_SZ = 1031  # Linux
DEADLINE = 30.0


class NoCopies(bytes):
    """A line whose slices cannot be allocated (a worker at its memory limit)."""

    def __getitem__(self, index: SupportsIndex | slice) -> Any:
        if isinstance(index, slice):
            raise MemoryError("no memory left for a copy of the line")
        return super().__getitem__(index)


def _queued(fd: int) -> int:
    return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"), "little")


@pytest.mark.skipif(not hasattr(signal, "pthread_kill") or not hasattr(fcntl, "F_GETFL"), reason="POSIX only")
def test_a_line_interrupted_mid_write_goes_out_whole_without_a_copy() -> None:
    """It is an error if a partial pipe write needs memory for the rest of the line, or the host gets half a line."""
    line = NoCopies(b'{"op":"output","text":"' + b"x" * (256 << 10) + b'"}\n')
    out_r, out_w = os.pipe()
    in_r, in_w = os.pipe()
    fcntl.fcntl(out_w, F_SETPIPE_SZ, 4096)
    capacity = fcntl.fcntl(out_w, 1032)  # F_GETPIPE_SZ
    received = bytearray()
    writer_thread = threading.get_ident()
    old = signal.signal(signal.SIGUSR1, lambda *_: None)

    def host() -> None:
        end = time.monotonic() + DEADLINE
        while _queued(out_r) < capacity and time.monotonic() < end:  # the writer waits for room now
            time.sleep(0.001)
        signal.pthread_kill(writer_thread, signal.SIGUSR1)  # its write returns what it wrote so far
        while len(received) < len(line) and time.monotonic() < end:
            chunk = os.read(out_r, 1 << 16)
            if not chunk:  # the writer's end closed (it gave up)
                break
            received.extend(chunk)

    reader = threading.Thread(target=host)
    try:
        with open(in_r, "rb", buffering=0) as worker_in, open(out_w, "wb", buffering=0) as worker_out:
            channel = PipeChannel(worker_in, worker_out)
            reader.start()
            channel.write(line)
            reader.join(DEADLINE)
    finally:
        signal.signal(signal.SIGUSR1, old)
        reader.join(DEADLINE)
        for fd in (out_r, in_w):
            os.close(fd)
    assert bytes(received) == bytes(line)
