"""A host whose disk fills up mid-pass, for the fault specs.

    python -m tests.reliability.disk_host --dir DIR --mode rlimit|tmpfs --out OUT

It keeps its journal in ``DIR``, records one execution, then makes writes fail: ``rlimit``
lowers RLIMIT_FSIZE just above the journal's size (writes past it fail with EFBIG);
``tmpfs`` fills the (size-limited) filesystem holding ``DIR`` with a filler file (ENOSPC).
It then runs a pass that must write ~400 kB, frees the space, runs another pass, reclaims
what the failure left running, and writes every outcome as JSON to ``OUT`` (which must be
outside ``DIR``: a tmpfs vanishes with its namespace).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import sqlite3
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

from codemode_kernel import CodemodeRuntime, InProcessExecutor

SMALL = "codemode.step('small', lambda: 1)\n'small'"
BIG = "codemode.step('big', lambda: 'x' * 400_000)\n'big'"


async def _try(call: Any) -> Any:
    try:
        return await call
    except Exception as exc:  # what escapes the runtime is part of the outcome
        return {"raised": type(exc).__name__, "message": str(exc)}


async def main(folder: Path, mode: str) -> dict[str, Any]:
    journal = folder / "j.codemode.db"
    report: dict[str, Any] = {}
    filler = folder / "filler"
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    async with CodemodeRuntime([], store=f"sqlite:///{journal}", executor=InProcessExecutor()) as rt:
        report["before"] = await rt.execute(SMALL)
        with contextlib.closing(sqlite3.connect(journal)) as db:  # the WAL restarts empty: writes start at 0
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if mode == "rlimit":
            resource.setrlimit(resource.RLIMIT_FSIZE, (journal.stat().st_size + 64 * 1024, hard))
        else:
            stat = os.statvfs(folder)
            free = stat.f_bavail * stat.f_frsize
            with open(filler, "wb") as f:
                f.write(b"\0" * max(free - 64 * 1024, 0))
        report["full"] = await _try(rt.execute(BIG))
        if mode == "rlimit":
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        else:
            filler.unlink()
        report["after"] = await _try(rt.execute(SMALL))
        report["expired"] = await _try(rt.expire_paused(max_age=timedelta(0)))
        report["statuses"] = {e.id: e.status for e in await rt.executions()}
        report["problems"] = rt.store.integrity_problems()
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--mode", choices=["rlimit", "tmpfs"], required=True)
    parser.add_argument("--out", required=True)
    ns = parser.parse_args(sys.argv[1:])
    result = asyncio.run(main(Path(ns.dir), ns.mode))
    Path(ns.out).write_text(json.dumps(result, default=str))
