"""One pass may write gigabytes into the journal: a program's call arguments are not bounded in total (review 16).

Each call's arguments are bounded (``codec.MAX_VALUE_CHARS``, 1,000,000 characters), and a pass's calls
(``Limits.max_calls``, 10,000), and a pass's printed output is bounded *because it is journaled*
(``max_kept_output_chars``, docs/isolation.md). Nothing bounds what one pass journals in all: a loop of
calls to a method that needs no approval, each with a 1 MB argument, writes ~84 MB/s into the journal
(measured: 300 calls, 303 MB, 3.6 s, in process), ~5 GB in the default 60 s timeout, more with
``max_calls`` calls; retention keeps 50 executions and SQLite gives no space back. A model's program
(``codemode mcp``) fills the disk the notebook, its journal and every other program share, and every
journal write after that fails.

The right outcome: a pass that has journaled more than a bound (a limit of the executor or the runtime,
with the default well under the 100 MB this spec allows) ends with an error naming that limit, and the
journal stays small.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

CEILING = 100 * 10**6  # bytes the journal may take after this one program


def echo() -> ToolSetConnector:
    def length(x: str) -> int:
        """The length of x."""
        return len(x)

    return ToolSetConnector([length], name="t", target="review16 echo")


async def test_one_pass_cannot_write_hundreds_of_megabytes_into_the_journal(
        make_runtime: RuntimeFactory, tmp_path: Path, store_kind: str) -> None:
    if store_kind != "sqlite":
        pytest.skip("the journal's size is read from its SQLite file")
    db = tmp_path / "journal.db"
    rt = make_runtime([echo()], store=f"sqlite:///{db}")
    out: dict[str, Any] = await rt.execute(
        "s = 'x' * 990000\nn = 0\nfor i in range(200):\n    n += t.length(x=s + str(i))\nn")
    size = sum(os.path.getsize(f"{db}{suffix}") for suffix in ("", "-wal") if os.path.exists(f"{db}{suffix}"))
    assert size < CEILING, f"one pass wrote {size / 1e6:.0f} MB into the journal: {str(out)[:200]}"
    assert out["status"] == "error", out
