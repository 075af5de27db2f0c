"""Review 14x: a mistyped key in ``[executor]`` of ``codemode.toml``.

A connector table's mistyped key is named with the key it was probably meant to be ("'pyhton'
is not a known key (did you mean 'python'?)"). In ``[executor]`` the same slip reads
``[executor] Limits.__init__() got an unexpected keyword argument 'timout'. Using the default
executor and limits.``: Python internals, no suggestion, and the whole table is dropped, so the
correctly spelled ``timeout = 5`` beside it is ignored too (passes run 60 s). With ``kind =
"inprocess"`` and an isolated-only limit (``max_memory_bytes``) the message is
``InProcessLimits.__init__() got an unexpected keyword argument``, and the notebook silently
changes executor.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from codemode_kernel.building import runtime_for_folder


def _problems(folder: Path, executor: str) -> tuple[list[str], object]:
    (folder / "codemode.toml").write_text(f"[executor]\n{executor}\n", encoding="utf-8")
    built = runtime_for_folder(folder)
    executor = built.runtime.executor
    asyncio.run(built.runtime.aclose())  # nothing was started; the store is let go
    return [str(p) for p in built.problems], executor


def test_a_mistyped_limit_is_named_with_a_suggestion(tmp_path: Path) -> None:
    problems, _ = _problems(tmp_path, "timout = 5")
    text = " ".join(problems)
    assert "timout" in text and "timeout" in text.replace("timout", ""), text  # did you mean 'timeout'?
    assert "__init__" not in text, text


def test_one_bad_key_does_not_drop_the_others(tmp_path: Path) -> None:
    problems, executor = _problems(tmp_path, "timeout = 5\nmax_memry_bytes = 1")
    assert problems  # the typo is reported
    assert getattr(getattr(executor, "limits", None), "timeout", None) == 5


def test_an_isolated_only_limit_for_the_inprocess_executor_is_explained(tmp_path: Path) -> None:
    problems, _ = _problems(tmp_path, 'kind = "inprocess"\nmax_memory_bytes = 100000000')
    text = " ".join(problems)
    assert "max_memory_bytes" in text and "__init__" not in text, text
