"""Review 16x: a snippet run with the wrong input fails inside its code, and the message does not say the input
was wrong.

Since review 15x M3 a snippet saved without a schema has one inferred from its code
(``discovery/describe.py`` ``inferred_input_schema``): ``codemode.describe`` declares ``tag`` required and
``codemode.search`` lists ``'required': ['tag']``. ``snippets.run_request`` checks an input only against a
*saved* schema, so ``codemode.run('tag_report', {})`` (or a typo, ``{'tags': 'ci'}``) runs the code and ends
``KeyError: snippet 'tag_report' failed: 'tag'``, and ``codemode.run('tag_report', 'ci')`` ends
``TypeError: ... string indices must be integers, not 'str'``: neither says the *input* lacks ``tag`` or must
be a dict, which is what a model needs to read to correct its call.
"""

from __future__ import annotations

import pytest

from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

CODE = 'tag = input["tag"]\n{"tag": tag, "limit": input.get("limit", 5)}'


async def test_a_missing_input_key_is_named_as_the_input(make_runtime: RuntimeFactory) -> None:
    rt = make_runtime([])
    made = await rt.execute(CODE, inputs={"input": {"tag": "ci"}})
    assert made["status"] == "completed", made
    await rt.save_snippet("tag_report", execution_id=made["execution_id"], description="Report a tag.")

    out = await rt.execute("codemode.run('tag_report', {'tags': 'ci'})")
    assert out["status"] == "error", out
    said = out["error"].split("failed:", 1)[-1]
    assert "input" in said and "'tag'" in said, out["error"]


async def test_an_input_that_is_not_a_dict_is_named_as_the_input(make_runtime: RuntimeFactory) -> None:
    rt = make_runtime([])
    made = await rt.execute(CODE, inputs={"input": {"tag": "ci"}})
    assert made["status"] == "completed", made
    await rt.save_snippet("tag_report", execution_id=made["execution_id"], description="Report a tag.")

    out = await rt.execute("codemode.run('tag_report', 'ci')")
    assert out["status"] == "error", out
    assert "string indices" not in out["error"] and "input" in out["error"], out["error"]
