"""A lone surrogate in a connector call's arguments is refused by the codec, on both executors (review 12).

c3553f6 refuses a lone surrogate in the pass's result and in a step's value or name. A call's
arguments are another way out: in process the store fails ("HostError: the host could not record
the outcome of call #1 (UnicodeEncodeError ...)"); on the isolated executor the worker's line
encoder turns it into U+FFFD, so the call that pauses for approval (and runs once approved)
carries other text than the program passed ({'title': 'a\\ufffd'}). A connector's result with one
is already the codec's refusal.
"""

from __future__ import annotations

import pytest

from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio

CODES = {
    "after a read": "shop.list_items()\nshop.create_item(title='a' + chr(0xD800))",
    "the first call": "shop.create_item(title='b' + chr(0xDC00) + 'c')",
}


@pytest.mark.parametrize("code", CODES.values(), ids=CODES.keys())
async def test_a_lone_surrogate_in_arguments_is_refused(make_runtime: RuntimeFactory, code: str) -> None:
    """It is an error if such a call pauses, runs, or fails as a host error instead of the codec's refusal."""
    shop = Shop()
    rt = make_runtime([shop])
    out = await rt.execute(code)
    assert out["status"] == "error", out
    assert "lone surrogate" in str(out.get("error")) and "HostError" not in str(out.get("error"))
    assert shop.calls["create_item"] == 0
