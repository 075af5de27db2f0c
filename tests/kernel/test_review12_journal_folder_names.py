"""A journal whose folder's name holds '?' or '%XX' is the file the configuration names (review 12 after 028cb42).

028cb42 quotes the path of a notebook's own journal (journal_files.sqlite_url). Two other URLs are
still "sqlite:///" joined with a path: ``[store] url = "sqlite:///notes.codemode.db"`` made absolute
against the notebook's folder (config.resolve_sqlite_url), and the runtime's default store
``codemode.db`` in the working directory (runtime.py). A folder named ``Q?A`` then keeps the journal
in ``Q`` (the rest is a query), one named ``x%20y`` in ``x y``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor
from codemode_kernel.kernel.output import RecordingSink
from codemode_kernel.kernel.session import NotebookSession

pytestmark = pytest.mark.anyio

FOLDERS = ["Q?A", "x%20y"]


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*.db"))


@pytest.mark.parametrize("name", FOLDERS)
async def test_a_relative_store_url_is_a_file_in_the_notebook_s_folder(tmp_path: Path, name: str) -> None:
    """It is an error if ``[store] url = "sqlite:///notes.codemode.db"`` journals anywhere but beside the notebook."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / "codemode.toml").write_text('[store]\nurl = "sqlite:///notes.codemode.db"\n\n'
                                          '[executor]\nkind = "inprocess"\n')
    session = NotebookSession(cwd=folder, env={"JPY_SESSION_NAME": str(folder / "n.ipynb")})
    session.load()
    session.home_loop = asyncio.get_running_loop()
    try:
        assert (await session.run_code("1 + 1", RecordingSink(), 1)).execution_id is not None
    finally:
        await session.aclose()
    assert _files(tmp_path) == [f"{name}/notes.codemode.db"]


@pytest.mark.parametrize("name", FOLDERS)
async def test_the_default_store_is_codemode_db_in_the_working_directory(tmp_path: Path, name: str,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """It is an error if CodemodeRuntime() without a store journals anywhere but ``./codemode.db``."""
    folder = tmp_path / name
    folder.mkdir()
    monkeypatch.chdir(folder)
    async with CodemodeRuntime(executor=InProcessExecutor()) as rt:
        assert (await rt.execute("1 + 1"))["status"] == "completed"
    assert _files(tmp_path) == [f"{name}/codemode.db"]
