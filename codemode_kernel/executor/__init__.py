"""Executors: run one pass of code once (DESIGN §3, §11).

A map of the package, by where the code runs:

Both sides
    ``base.py``         the ``Executor`` interface, ``ExecuteResult``, ``SandboxError`` (errors as
                        data, named after the classes in ``errors.py``)
Inside a pass
    ``language.py``     what cell code may say: compile and guards (RestrictedPython's one home)
    ``sandbox.py``      the runner of one pass: connector proxies, output and call caps, replay of
                        the recorded prefix
    ``stream.py``       printed output on its way out: sent in batches, cut past a bound (issue 16)
The host
    ``inprocess.py``    ``InProcessExecutor``: ``sandbox.py`` in a host thread (tests, teaching;
                        never the default)
    ``isolated.py``     ``SubprocessExecutor`` and ``Limits``: one confined worker per pass, the
                        wall clock, the host's caps
    ``channel.py``      the worker's pipes: JSON lines, size limits, every request rebuilt from
                        its allowed fields
    ``pool.py``         warm workers ready before a pass needs one, and reaping them after
    ``launcher.py``     starting workers: spawned one by one, or forked by a zygote
A worker (and the zygote)
    ``worker.py``       the wire format a worker speaks, and its loop: one pass, then exit
    ``confinement.py``  OS confinement (rlimits, namespaces, chroot, user, seccomp), each step
                        optional and reported
    ``zygote.py``       the clean interpreter that forks one worker per pass and never sees one

The wire format (``worker.py``, ``channel.py``) and the OS confinement (``confinement.py``) are
separate: a worker on a system that allows less confinement speaks the same protocol.

The design log (how a pass gets its own confined process quickly, and the designs rejected
on the way) is at the top of ``zygote.py``; ``docs/isolation.md`` says what each step stops.
"""
