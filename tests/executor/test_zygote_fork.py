"""How the zygote forks (issue 12): glibc's fork() while it is single-threaded, os.fork() once a thread exists.

glibc's fork() skips CPython's after-fork work in the child (repairing the threads and locks of a
multi-threaded parent, the ``os.register_at_fork`` handlers), which a single-threaded zygote does
not need and which cost each child ~190 copy-on-write faults. With a second thread that work is
needed, so :func:`codemode_kernel.executor.zygote.fork` must fall back to ``os.fork()``. The
forks run in a separate interpreter, never in the test process.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from codemode_kernel.executor.launcher import zygote_supported

pytestmark = pytest.mark.skipif(not zygote_supported(), reason="the zygote needs Linux with pidfds")

SCRIPT = textwrap.dedent("""\
    import os, threading
    from codemode_kernel.executor.zygote import fork

    r, w = os.pipe()
    os.register_at_fork(after_in_child=lambda: os.write(w, b"handler "))

    def once(label):
        pid = fork()
        if pid == 0:
            os.write(w, label.encode() + b" ")
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status

    once("alone")
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    once("threaded")
    stop.set()
    thread.join()
    once("alone-again")
    os.close(w)
    print(os.read(r, 1000).decode().strip())
""")


def test_fork_skips_at_fork_handlers_only_while_single_threaded() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["alone", "handler", "threaded", "alone-again"]
