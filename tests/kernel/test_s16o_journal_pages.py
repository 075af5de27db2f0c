"""``%journal`` pages a long execution's calls and says how to see the rest (session 15's note).

A cell that made 450 calls: ``%journal ID`` showed the first 200 rows and "… 250 more rows", with no way
to see the others in the notebook. The right outcome: ``%journal ID`` shows the first 200 and a last line
saying which calls it showed and the command for the next page; ``--page N`` shows page N; ``--all``
shows every call; a page past the end says how many there are.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.kernel.kernel_harness import Kernel, Run, write_notebook_dir

CALLS = 450


def seqs(run: Run) -> list[int]:
    """The call numbers of the journal's table (its text/plain rows start with them)."""
    tables = [c["data"]["text/plain"] for c in run.of("display_data") if "seq" in c["data"]["text/plain"]]
    assert len(tables) == 1, tables
    return [int(m.group(1)) for m in re.finditer(r"^(\d+)\s", tables[0], re.M)]


def test_a_long_journal_is_shown_a_page_at_a_time(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb")
    kernel = Kernel(folder)
    try:
        kernel.ok(f"for _ in range({CALLS}):\n    notes.list_notes()", timeout=240)
        first = kernel.ok("%journal last")
        assert seqs(first) == list(range(200))
        assert f"Calls 1-200 of {CALLS}" in first.stdout, first.stdout
        eid = re.search(r"Execution (\S+):", first.stdout)
        assert eid is not None
        assert f"%journal {eid.group(1)} --page 2" in first.stdout and "--all" in first.stdout, first.stdout

        last = kernel.ok("%journal last --page 3")
        assert seqs(last) == list(range(400, CALLS))
        assert f"Calls 401-{CALLS} of {CALLS} (page 3 of 3)" in last.stdout, last.stdout
        assert "--page 4" not in last.stdout

        everything = kernel.ok("%journal last --all")
        assert seqs(everything) == list(range(CALLS))
        assert "more rows" not in str(everything.of("display_data"))

        past = kernel.execute("%journal last --page 4")
        assert past.status == "error"
        assert "no page 4" in str(past.error) and "--page 3" in str(past.error), past.error
    finally:
        kernel.shutdown()
