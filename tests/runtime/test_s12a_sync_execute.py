"""``SyncRuntime.execute`` takes the runtime's ``inputs`` and ``capture_variables``, with the same meaning.

``SyncRuntime`` promises "the same names and arguments" as :class:`CodemodeRuntime`: a script that
gives a program values, or reads back what it assigned, must not need the async API for it.
"""

from __future__ import annotations

import inspect
from pathlib import Path

from codemode_kernel import CodemodeRuntime, InProcessExecutor, SyncRuntime
from tests.support import Shop

USES_AN_INPUT_THEN_WRITES = "item = shop.create_item(title=title)\nlabel = title.upper()\nitem['id']"


def test_execute_takes_the_runtime_s_arguments() -> None:
    assert list(inspect.signature(SyncRuntime.execute).parameters) == \
        list(inspect.signature(CodemodeRuntime.execute).parameters)


def test_inputs_are_seen_by_the_code_and_by_its_replay(tmp_path: Path) -> None:
    """An input is a top-level name of the code; after an approval the replay sees the same value."""
    shop = Shop()
    with SyncRuntime([shop], store=f"sqlite:///{tmp_path}/s.db", executor=InProcessExecutor()) as rt:
        paused = rt.execute(USES_AN_INPUT_THEN_WRITES, inputs={"title": "tea"})
        assert paused["status"] == "paused", paused
        assert paused["pending"][0]["args"] == {"title": "tea"}
        done = rt.approve(paused["execution_id"], seq=paused["pending"][0]["seq"])
        assert done["status"] == "completed", done
        assert shop.items[done["result"]]["title"] == "tea"
        assert shop.calls["create_item"] == 1


def test_capture_variables_returns_the_assigned_names(tmp_path: Path) -> None:
    """With ``capture_variables`` the output carries the serializable names the code assigned; without, none."""
    with SyncRuntime([Shop()], store=f"sqlite:///{tmp_path}/s.db", executor=InProcessExecutor()) as rt:
        out = rt.execute("label = title.upper()\nsize = len(label)", inputs={"title": "tea"},
                         capture_variables=True)
        assert out["status"] == "completed", out
        assert out["variables"]["label"] == "TEA" and out["variables"]["size"] == 3
        plain = rt.execute("label = 'x'", capture_variables=False)
        assert plain["status"] == "completed" and "variables" not in plain
