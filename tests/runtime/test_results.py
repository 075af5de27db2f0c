"""Final results: the audit note for oversized results, and transform_result."""

from __future__ import annotations

import pytest

from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio


async def test_oversized_final_result_is_returned_but_not_stored(make_runtime: RuntimeFactory) -> None:
    """Replay does not consume the final result: a big one reaches the caller; the record keeps a note."""
    rt = make_runtime([Shop()])
    out = await rt.execute("'y' * 1_500_000")
    assert out["status"] == "completed" and len(out["result"]) == 1_500_000
    state = await rt.execution(out["execution_id"])
    assert state is not None and isinstance(state.result, str) and state.result.startswith("result omitted")


async def test_transform_result_reshapes_what_the_caller_sees(make_runtime: RuntimeFactory) -> None:
    """transform_result changes the returned result; the audit record keeps the original."""
    rt = make_runtime([Shop()], transform_result=lambda r: {"summary": len(r)})
    out = await rt.execute("[1, 2, 3]")
    assert out["result"] == {"summary": 3}
    state = await rt.execution(out["execution_id"])
    assert state is not None and state.result == [1, 2, 3]


async def test_async_transform_and_its_failure(make_runtime: RuntimeFactory) -> None:
    """An async transform is awaited; a failing one returns the raw result (issue 14, defect 4)."""

    async def double(r: object) -> object:
        return [r, r]

    assert (await make_runtime([Shop()], transform_result=double).execute("1"))["result"] == [1, 1]
    out = await make_runtime([Shop()], transform_result=lambda r: 1 / 0).execute("1")
    assert out["status"] == "completed" and out["result"] == 1
