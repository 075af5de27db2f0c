"""A notebook's journal is the file named after it, whatever characters its name holds (review 12).

The journal's SQLAlchemy URL is built by joining "sqlite:///" and the file's path
(notebook_runtime.store_url, config.default_store_url), and a URL gives some characters a
meaning: ``?`` starts a query (``what?.ipynb`` keeps its journal in ``.codemode/what``, and
``q?mode=ro.ipynb`` hands ``mode`` to the SQLite driver), ``%20`` is decoded (``x%20y.ipynb`` writes
``x y.codemode.db``, the journal of ``x y.ipynb``). Two notebooks then share one journal: their
executions, approvals and snippets (both are the runtime named "default").
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from codemode_kernel.kernel.output import RecordingSink
from codemode_kernel.kernel.session import NotebookSession

pytestmark = pytest.mark.anyio

NAMES = ["what?", "x%20y", "q?mode=ro"]


@pytest.mark.parametrize("stem", NAMES)
async def test_the_journal_is_the_file_named_after_the_notebook(tmp_path: Path, stem: str) -> None:
    """It is an error if a cell of ``<stem>.ipynb`` is journaled anywhere but ``.codemode/<stem>.codemode.db``."""
    (tmp_path / "codemode.toml").write_text('[executor]\nkind = "inprocess"\n')
    session = NotebookSession(cwd=tmp_path, env={"JPY_SESSION_NAME": str(tmp_path / f"{stem}.ipynb")})
    session.load()
    session.home_loop = asyncio.get_running_loop()
    try:
        outcome = await session.run_code("1 + 1", RecordingSink(), 1)
        assert outcome.execution_id is not None
    finally:
        await session.aclose()
    assert sorted(p.name for p in (tmp_path / ".codemode").iterdir() if not p.name.endswith(("-wal", "-shm"))) \
        == [f"{stem}.codemode.db"]
