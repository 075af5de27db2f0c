"""A connector's result or error text that the journal cannot store as it is (issue 12 review).

``os.listdir``/``os.fsdecode`` give a file name that is not UTF-8 as a str with lone surrogates
(``b"caf\\xe9.txt".decode("utf-8", "surrogateescape")`` == "caf\\udce9.txt"); a journal keeps UTF-8.
Before, a sync connector's such result or error reached the sandbox and only the outcome's commit
failed: the pass ended "HostError: the host could not record the outcome ..." and the entry stayed
``executing``. Now a result is refused before the reply as a CodecError (like NaN), the entry is
``error`` and nothing after the call runs; an error's text has each surrogate replaced by U+FFFD, and
the code is told exactly what the journal keeps. SQLite and PostgreSQL.
"""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from codemode_kernel import CodemodeRuntime, ToolSetConnector
from codemode_kernel.executor.isolated import SubprocessExecutor

pytestmark = pytest.mark.anyio
NAME = b"caf\xe9.txt".decode("utf-8", "surrogateescape")


@pytest.mark.parametrize("how", ["returns", "raises"])
async def test_a_file_name_that_is_not_utf8_is_refused_or_stored_never_left_executing(db_url: str, how: str) -> None:
    runs = {"listing": 0, "after": 0}

    def listing(n: int) -> list[str]:
        """A directory listing with a file name that is not UTF-8."""
        runs["listing"] += 1
        if how == "raises":
            raise FileNotFoundError(f"no such file: {NAME}")
        return ["a.txt", NAME]

    def after(n: int) -> int:
        """Runs after the listing."""
        runs["after"] += 1
        return n

    rt = CodemodeRuntime([ToolSetConnector([listing, after], name="p")], store=db_url, executor=SubprocessExecutor())
    try:
        code = "try:\n    x = p.listing(n=1)\nexcept Exception as e:\n    x = str(e)\np.after(n=2)\nx"
        out = await rt.execute(code)
        look = create_engine(db_url, poolclass=NullPool)
        with look.connect() as conn:
            rows = [tuple(r) for r in conn.execute(text(
                "SELECT seq, state, result, error FROM codemode_entries WHERE execution_id = :e ORDER BY seq"),
                {"e": out["execution_id"]})]
        look.dispose()
    finally:
        await rt.aclose()
    assert rows and rows[0][1] != "executing", (rows, out)
    if how == "returns":  # refused before the reply, as NaN is: the code never saw it
        assert out["status"] == "error" and out["error_type"] == "CodecError", out
        assert "not valid Unicode" in out["error"], out
        # The call ran: applied, so a rollback reverts it, with its result not kept (review 13).
        assert rows[0][1] == "applied" and rows[0][2] is None and "not kept" in rows[0][3] and runs["after"] == 0, rows
    else:  # the code caught the error: it was told what the journal keeps (a later pass replays that)
        assert out["status"] == "completed", out
        assert rows[0][1] == "error" and out["result"] == rows[0][3], (rows, out)
        assert "caf\ufffd.txt" in out["result"]
    assert runs["listing"] == 1

