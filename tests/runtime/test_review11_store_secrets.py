"""Review 11: a store failure tells the model nothing of the store's credentials.

A failing store is data (``{"status": "error", "error_type": "StoreError", ...}``) that reaches the
model through ``runtime.tool()``. Its text names the journal, rendered with SQLAlchemy's
``hide_password=True``, which masks the password of the URL's user part only: libpq and psycopg also
take ``?password=...`` (and ``sslpassword``) in the query, and those were shown as they are.
(The CLI's approve hint already keeps the whole URL from models: test_cli.py.)
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import RuntimeFactory, StoreSql

pytestmark = pytest.mark.anyio

PASSWORD = "r11-query-password-do-not-show"


async def test_a_store_failure_never_shows_a_password_given_in_the_url_query(
        make_runtime: RuntimeFactory, db_url: str, store_kind: str, store_sql: StoreSql) -> None:
    if store_kind != "postgresql":
        pytest.skip("a SQLite store is named by its file path")
    url = db_url + ("&" if "?" in db_url else "?") + f"password={PASSWORD}"  # the test server trusts: unused
    rt = make_runtime([], store=url)
    tool = rt.tool()
    assert (await tool.call("1 + 1"))["status"] == "completed"
    store_sql("ALTER TABLE codemode_executions RENAME TO codemode_executions_gone")  # the store now fails

    out = await tool.call("2 + 2")

    assert out["status"] == "error" and out["error_type"] == "StoreError", out
    assert PASSWORD not in json.dumps(out)
