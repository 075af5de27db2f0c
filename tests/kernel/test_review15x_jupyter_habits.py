"""Review 15x: everyday Jupyter habits in a Code Mode cell get no useful answer.

- ``!ls`` (a shell escape, in every Jupyter tutorial) fails with ``SyntaxError: invalid
  syntax: !ls``: nothing says that shell commands do not run in a Code Mode cell, or where they
  can (a ``%%host`` cell, a terminal).
- ``%reset -f`` (IPython's "forget everything, don't ask") answers ``CodemodeError: Not carried
  over: -f. %vars lists the carried names.``: the option is read as a variable name, and the
  carried names are kept.
"""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel


def test_a_shell_escape_says_shell_commands_do_not_run_here(shared_kernel: Kernel) -> None:
    run = shared_kernel.execute("!ls")
    assert run.error is not None
    message = run.error["evalue"]
    assert "shell" in message.lower() and "%%host" in message, message


def test_reset_dash_f_is_not_read_as_a_name(shared_kernel: Kernel) -> None:
    shared_kernel.ok("r15x_keep = 1")
    run = shared_kernel.execute("%reset -f")
    said = run.stdout + (run.error["evalue"] if run.error else "")
    assert "Not carried over: -f" not in said, said
