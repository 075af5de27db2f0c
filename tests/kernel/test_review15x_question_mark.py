"""Review 15x: ``name?`` works only for connectors, methods and snippets.

``notes.add_note?`` shows the declaration (README). The same habit on the other names a cell
has fails the cell with a LookupError whose suggestions are unrelated:
- a carried variable, ``xs?`` -> "LookupError: nothing named 'xs': describe a connector (notes), a
  method ('connector.method') or a snippet; use %search QUERY to find names" (IPython shows its
  type and value);
- the ``codemode`` API, ``codemode.search?`` -> "nothing named 'codemode.search': did you mean
  notes.list_notes, notes.add_note, notes.fail? ..." (it is the one API every cell has);
- a pre-imported module's function, ``json.dumps?`` -> "... did you mean notes.list_notes, ...".
"""

from __future__ import annotations

import json

import pytest

from tests.kernel.kernel_harness import Kernel


def shown(run_reply: dict, messages: list[str]) -> str:
    payload = json.dumps(run_reply["content"].get("payload", []))
    return payload + "".join(messages)


@pytest.mark.parametrize(("code", "expected"), [("r15x_xs?", "list"), ("codemode.search?", "query")])
def test_question_mark_on_a_carried_name_or_the_codemode_api(shared_kernel: Kernel, code: str, expected: str) -> None:
    shared_kernel.ok("r15x_xs = [1, 2, 3]")
    run = shared_kernel.execute(code)
    assert run.status == "ok", run.error
    texts = [str(c.get("text", "")) + str(c.get("data", {}).get("text/plain", "")) for c in run.of("stream")
             + run.of("display_data")]
    assert expected in shown(run.reply, texts), shown(run.reply, texts)
