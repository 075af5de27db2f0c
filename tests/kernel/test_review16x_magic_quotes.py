"""Review 16x: a magic's error that starts (or ends) with a quoted name loses the quote.

kernel/magics.py (``Magics.run`` and ``look``) writes ``str(exc).strip("'\\"")`` (meant for a KeyError's
repr), so ``%snippet save notes last`` says ``notes' is the name of a connector; ...`` with its opening
quote gone; the CLI's ``codemode save-snippet notes`` says ``'notes' is the name of a connector``.
"""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel


def test_a_magic_error_keeps_its_quotes(shared_kernel: Kernel) -> None:
    shared_kernel.ok("1 + 1")
    run = shared_kernel.execute("%snippet save notes last x")
    assert run.error is not None, run.stdout
    assert run.error["evalue"].startswith("'notes' is the name of a connector"), run.error["evalue"]
