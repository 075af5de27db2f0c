"""Review 16x: ``len?`` failed where ``json.dumps?`` was answered (fixed by adc9eb0, s16o's one inspect path).

Review 15x L11 taught ``name?`` carried names, the ``codemode`` API and the pre-imported modules
(``json.dumps?`` -> "Python's own name json.dumps (pre-imported in every cell; see Python's documentation)").
A builtin (``len?``, ``sorted?``, ``print?``) still fails the cell: "nothing named 'len': describe a connector
..." (status error), which reads as if ``len`` were not available in cells.
"""

from __future__ import annotations

import pytest

from tests.kernel.kernel_harness import Kernel


@pytest.mark.parametrize("name", ["len", "sorted"])
def test_a_builtin_question_is_answered(name: str, shared_kernel: Kernel) -> None:
    msg_id = shared_kernel.kc.execute(f"{name}?")
    reply = shared_kernel.shell_reply(msg_id)
    assert reply["content"]["status"] == "ok", reply["content"].get("evalue")
