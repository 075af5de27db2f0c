"""Review 14x: an MCP server that hangs at start slows every cell of the notebook.

README: "A connector whose server cannot start is left out and tried again on the next cell."
The retry is done *inside* every pass, before the pass runs: ``CatalogResolver.get`` does not
keep a catalog with an unavailable connector, so each cell resolves every connector again and
waits out the broken server's ``connect_timeout``, even a cell that never names it (``2``). With
``connect_timeout = 4`` each plain cell took 6.0 s here (the first 11.9 s); with the default 30 s
every cell of the notebook takes 30 s or more while, say, an ``npx`` server waits for a login.
The cells also get asyncio's "Future exception was never retrieved ... ConnectorError:
CancelledError()" on stderr.

The spec counts starts of the server (its script appends a line each time it starts), so it
is not a timed assertion: cells that do not use the connector must not each start it again.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kernel.kernel_harness import Kernel, plain_cells_until, write_notebook_dir

HANGS = """\
import pathlib, sys, time
pathlib.Path(sys.argv[1]).open("a").write("started\\n")
time.sleep(600)
"""


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Kernel, Path, list[str]]]:
    folder = tmp_path_factory.mktemp("review14x_hung") / "nb"
    starts = folder / "starts.txt"
    toml = (f'\n[connectors.stuck]\nmcp = {{ command = "{sys.executable}", args = ["hangs.py", "{starts}"] }}\n'
            "connect_timeout = 1\n")
    write_notebook_dir(folder, extra_toml=toml)
    (folder / "hangs.py").write_text(HANGS, encoding="utf-8")
    k = Kernel(folder)
    errors = plain_cells_until(k, "'stuck' is unavailable")  # then two more
    for code in ["'after 1'", "'after 2'"]:
        run = k.execute(code, timeout=120)
        assert run.status == "ok", run.error
        errors.append(run.stderr)
    yield k, starts, errors
    k.shutdown()


def test_cells_that_do_not_use_it_do_not_restart_it(started: tuple[Kernel, Path, list[str]]) -> None:
    """Plain cells: the server is started at the kernel's start (and at most once more), not per cell."""
    _, starts, errors = started
    count = len(starts.read_text().splitlines())
    assert count <= 2, f"the hung server was started {count} times for {len(errors)} cells that never use it"


def test_the_person_is_told_once(started: tuple[Kernel, Path, list[str]]) -> None:
    """The control (holds today): the problem is reported, naming the connector and connect_timeout."""
    _, _, errors = started
    said = "".join(errors)
    assert "'stuck' is unavailable" in said and "connect_timeout" in said
    assert sum("'stuck' is unavailable" in text for text in errors) == 1, errors
