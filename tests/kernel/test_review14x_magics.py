"""Review 14x: the magics as a headless user (jupyter console, nbconvert) reads them.

README: "Magics ... make everything available headless". In ``text/plain`` (what a terminal and
a headless run show):

- ``%help`` cuts every explanation at 60 characters ("Approve the pending action and run the
  code on from the top…"), and ``%snippet``'s usage reads ``save NAME [ID|last] [DESCRIPTION] |
  NAME | NAME``: the words ``delete`` and ``show`` are lost (the same usage ends a ``%snippet``
  UsageError).
- ``%describe`` answers "# describe more: full=True" but takes no option to ask for it.
- ``%executions 0`` says "No executions yet: run a cell." in a notebook that has executions.
"""

from __future__ import annotations

from codemode_kernel.commands import COMMANDS
from tests.kernel.kernel_harness import Kernel


def _plain(kernel: Kernel, code: str) -> str:
    run = kernel.ok(code)
    return "\n".join(str(c["data"].get("text/plain", "")) for c in run.of("display_data")) + run.stdout


def test_snippet_usage_names_its_actions(shared_kernel: Kernel) -> None:
    run = shared_kernel.execute("%snippet")
    assert run.status == "error" and run.error is not None
    usage = run.error["evalue"]
    assert "delete NAME" in usage and "show NAME" in usage, usage
    listing = _plain(shared_kernel, "%help")
    assert "delete NAME" in listing and "show NAME" in listing, listing


def test_help_text_says_each_magic_in_full(shared_kernel: Kernel) -> None:
    listing = " ".join(_plain(shared_kernel, "%help").split())
    for command in COMMANDS:
        if command.magic:
            assert " ".join(command.help.split()) in listing, (command.help, listing)


def test_describe_takes_the_full_option(shared_kernel: Kernel) -> None:
    run = shared_kernel.execute("%describe notes.add_note --full")
    assert run.status == "ok", run.error
    assert "def add_note(" in _plain(shared_kernel, "%describe notes.add_note --full")


def test_executions_zero_does_not_deny_history(shared_kernel: Kernel) -> None:
    shared_kernel.ok("1 + 1")
    text = _plain(shared_kernel, "%executions 0")
    assert "No executions yet" not in text, text
