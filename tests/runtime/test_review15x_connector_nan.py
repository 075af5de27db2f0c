"""Review 15x: a connector result with NaN or infinity fails the program with advice it cannot follow.

A method that returns ``{"mean": float("nan")}`` (a statistic of nothing, a missing sensor
value; Python services also send ``NaN`` in their JSON, which ``json.loads`` accepts) ran, and
the program gets ``CodecError: Cannot pass a value of type 'float' at the result of
m.stats['mean'] (nan is not valid JSON): values crossing the Code Mode boundary must be JSON
data ... Convert it first (e.g. list(a_set), str(obj), a dict of its fields).`` The program
never held the value: only the connector's author can change it. The text should say that the
*connector* returned it, where, and that the call ran (the journal says so: "The call ran; its
result was not kept.").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, ToolSetConnector

pytestmark = pytest.mark.anyio


def stats() -> dict:
    """Statistics of nothing."""
    return {"mean": float("nan")}


async def test_a_connectors_nan_names_the_connector_not_the_program(tmp_path: Path) -> None:
    async with CodemodeRuntime([ToolSetConnector([stats], name="m")], store=f"sqlite:///{tmp_path / 'j.db'}",
                               executor=InProcessExecutor()) as rt:
        out = await rt.execute("m.stats()")
    assert out["status"] == "error"
    error = out["error"]
    assert "Convert it first" not in error, error
    assert "m.stats" in error and "returned" in error and "ran" in error, error
