"""Shift-Tab and ``name?`` answer one way about the names a cell has besides connectors (session 15's note).

Two paths answered the same question: the kernel's inspect (Shift-Tab; ``completion.inspect_local``) and
``name?`` alone in a cell (the pager; review 15x L11's newer code). They drifted apart: ``json.dumps``
Shift-Tab showed its signature and documentation, ``json.dumps?`` only "Python's own name ..."; ``len?``
failed the cell with an unrelated LookupError while Shift-Tab showed ``len``'s documentation; a carried
value read differently in each.

The right outcome: for a carried name, the ``codemode`` API, a pre-imported module's name and a builtin,
``name?`` pages exactly the text Shift-Tab shows, and that text has the signature and documentation.
"""

from __future__ import annotations

import pytest

from tests.kernel.kernel_harness import Kernel

NAMES = {
    "s16o_rows": "carried from an earlier cell",
    "codemode.search": "codemode.search(query: str",
    "json.dumps": "Serialize",
    "len": "number of items",
}


def inspected(kernel: Kernel, token: str) -> str:
    reply = kernel.shell_reply(kernel.kc.inspect(token, len(token)))["content"]
    assert reply["found"] is True, reply
    return str(reply["data"]["text/plain"])


def paged(kernel: Kernel, token: str) -> str:
    run = kernel.execute(f"{token}?")
    assert run.status == "ok", run.error
    (page,) = run.reply["content"]["payload"]
    return str(page["data"]["text/plain"])


@pytest.mark.parametrize("token", list(NAMES))
def test_question_mark_pages_what_shift_tab_shows(shared_kernel: Kernel, token: str) -> None:
    shared_kernel.ok("s16o_rows = [{'id': 1}, {'id': 2}]")
    text = inspected(shared_kernel, token)
    assert NAMES[token] in text, text
    assert paged(shared_kernel, token) == text
