"""The late-outcome specs' look at the journal from outside the runtime (a connection of their own)."""

from __future__ import annotations

import asyncio

from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool


async def settled(db_url: str, execution_id: str | None = None, deadline: float = 30.0) -> list[tuple[object, ...]]:
    """The entries (of ``execution_id``, or all), once there is one and none is ``executing``, or as
    they are after ``deadline`` seconds: a liveness bound, not a speed figure."""
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline
    where = "" if execution_id is None else " WHERE execution_id = :e"
    look = create_engine(db_url, poolclass=NullPool)
    try:
        while True:
            with look.connect() as conn:
                rows = [tuple(r) for r in conn.execute(
                    text("SELECT seq, state, result FROM codemode_entries" + where), {"e": execution_id})]
            if (rows and all(r[1] != "executing" for r in rows)) or loop.time() > end:
                return rows
            await asyncio.sleep(0.01)
    finally:
        look.dispose()
