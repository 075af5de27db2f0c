"""Review 16x: a snippet whose code calls a method that needs approval is listed as not needing approval.

``codemode.search`` lists each method's ``requires_approval`` so a model can plan for a pause; a saved snippet is
always ``'requires_approval': False`` (discovery/results.py), and its ``codemode.describe`` says nothing either.
A snippet that adds two notes (``notes.add_note`` needs approval) is offered as free to run; the model that runs
it is paused twice.
"""

from __future__ import annotations

import pytest

from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio


async def test_a_snippet_that_calls_an_approval_method_is_listed_as_needing_approval(
        make_runtime: RuntimeFactory) -> None:
    rt = make_runtime([Shop()])
    made = await rt.execute("shop.create_item(title='A')")
    assert made["status"] == "paused", made
    done = await rt.approve(made["execution_id"])
    assert done["status"] == "completed", done
    await rt.save_snippet("make_a", execution_id=made["execution_id"], description="Make item A in the shop.")

    out = await rt.execute("[r for r in codemode.search('make item A in the shop')['results']\n"
                           " if r['path'] == 'make_a']")
    assert out["status"] == "completed" and out["result"], out
    assert out["result"][0]["requires_approval"] is True, out["result"]
