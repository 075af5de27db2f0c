"""Executors: run one pass of code once (DESIGN §3, §11).

A map of the package, by where the code runs:

| module | runs in | role |
|---|---|---|
| ``base.py`` | both | the ``Executor`` interface, ``ExecuteResult`` and ``SandboxError`` (errors as data, named after the classes in ``errors.py``) |
| ``language.py`` | the pass | what cell code may say: compile and guards (RestrictedPython's one home) |
| ``sandbox.py`` | the pass | the runner of one pass: connector proxies, output and call caps, replay of the recorded prefix |
| ``inprocess.py`` | host | ``InProcessExecutor``: ``sandbox.py`` in a thread of the host (tests, teaching; never the default) |
| ``isolated.py`` | host | ``SubprocessExecutor`` and ``Limits``: one confined worker per pass, the wall clock, the host's caps |
| ``channel.py`` | host | the worker's pipes: JSON lines, size limits, every request rebuilt from its allowed fields |
| ``pool.py`` | host | warm workers ready before a pass needs one, and reaping them after |
| ``launcher.py`` | host | starting workers: spawned one by one, or forked by a zygote |
| ``worker.py`` | worker | the wire format a worker speaks, and its main loop: one pass, then exit |
| ``confinement.py`` | worker, zygote | OS confinement steps (rlimits, namespaces, chroot, user, seccomp), each optional and reported |
| ``zygote.py`` | zygote | the clean interpreter that forks one worker per pass, and never sees a pass |

The wire format (``worker.py``, ``channel.py``) and the OS confinement (``confinement.py``) are
separate: a worker on a system that allows less confinement speaks the same protocol.

The design log (how a pass gets its own confined process quickly, and the designs rejected
on the way) is at the top of ``zygote.py``; ``docs/isolation.md`` says what each step stops.
"""
