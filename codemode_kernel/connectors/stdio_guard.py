"""The launcher of a stdio MCP server: the server ends when the host that started it dies, however it dies.

Run by the host (``mcp._stdio``) as ``python -I -S stdio_guard.py FD KEEP_LC_CTYPE COMMAND ARGS...`` in a new
session (so it leads a process group of its own), with ``FD`` the read end of a pipe whose write end only the
host holds. It forks a watchdog and then becomes the server (``exec``): the host's process is the server's, its
pid and exit status the server's own. The watchdog keeps none of the server's pipes and waits for one of two ends:

- the pipe reads end of file: the host is gone (a SIGKILL, a crash, an OOM kill: the kernel closes its end).
  It sends SIGTERM to the process group (the server, and whatever a wrapper such as ``npx``, ``uvx`` or ``sh
  -c`` started: they stay in the group unless they leave it on purpose), waits up to :data:`GRACE` seconds for
  the server to end, then SIGKILL to the group (itself included);
- the server ended (the host closed its stdin, or it failed): it sends SIGTERM to what is left of the group
  (a wrapper's children that outlived it have nothing left to serve) and exits.

A graceful stop is the host's as before (stdin closed, then SIGTERM and SIGKILL to the group).

Considered and not kept: ``PR_SET_PDEATHSIG`` set in the child before ``exec`` reaches the direct child only
(the wrapper, not the worker it starts) and fires when the *thread* that forked it ends, not the process (the
host starts servers from connector threads of their own); a watchdog thread in the host dies with the host.
This file is run as a script, never imported by the package: it needs only the standard library, and
``-I -S`` keeps its start to a few milliseconds (no site, no package import).
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time

#: Seconds the server has to end after SIGTERM once the host is gone, before SIGKILL.
GRACE = 2.0


def _gone(pid: int, pidfd: int | None) -> bool:
    if pidfd is not None and select.select([pidfd], [], [], 0)[0]:
        return True
    return os.getppid() != pid  # the server was the watchdog's parent: reparented, it has ended


def _end_group(server: int, pidfd: int | None) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the signal is for the others: this one still has to escalate
    try:
        os.killpg(0, signal.SIGTERM)
    except OSError:
        return
    deadline = time.monotonic() + GRACE
    while time.monotonic() < deadline and not _gone(server, pidfd):
        time.sleep(0.05)
    time.sleep(0.1)  # a wrapper's children end just after it
    os.killpg(0, signal.SIGKILL)


def _watch(host: int, server: int) -> None:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the server's pipes end when the server does, not when its watchdog does
        os.dup2(null, fd)
    os.close(null)
    try:
        pidfd: int | None = os.pidfd_open(server)
    except (AttributeError, OSError):  # no pidfd (an old kernel): the parent's pid is looked at every second
        pidfd = None
    watched = [host] if pidfd is None else [host, pidfd]
    while True:
        ready = select.select(watched, [], [], 1.0)[0]
        if host in ready:  # end of file: the host never writes
            _end_group(server, pidfd)
            os._exit(0)
        if pidfd in ready or os.getppid() != server:
            try:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                os.killpg(0, signal.SIGTERM)
            except OSError:
                pass
            os._exit(0)


def main(argv: list[str]) -> None:
    host, keep_lc_ctype, command = int(argv[1]), argv[2] == "1", argv[3:]
    server = os.getpid()
    if os.fork() == 0:
        try:
            _watch(host, server)
        finally:
            os._exit(0)
    os.close(host)
    if not keep_lc_ctype:
        os.environ.pop("LC_CTYPE", None)  # set by this interpreter's locale coercion (PEP 538), not by the host
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"{command[0]}: {exc.strerror}\n")
        os._exit(127)


if __name__ == "__main__":
    main(sys.argv)
