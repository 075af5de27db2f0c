"""Review 16x: ``%connectors`` as a notebook's first cell says a server's failure twice.

The warm-up's note (kernel/notebook_runtime.py ``warm_up``: "Code Mode configuration: connector 'dead' is
unavailable: ... It is tried again in a minute ...") is written on the stderr of the first cell that runs
once the failure is known, also when that cell is ``%connectors``, which then lists the same failure again
under "Problems:". The person who asked for the list reads every line of the server's stderr twice. (With
a server that hangs beside it, ``%connectors`` waits for both and the *next* cell repeats the notes.)
"""

from __future__ import annotations

from pathlib import Path

from tests.kernel.kernel_harness import Kernel, write_notebook_dir

EXITS = 'import sys\nprint("fatal: missing API key", file=sys.stderr)\nsys.exit(3)\n'


def test_connectors_as_the_first_cell_says_a_failure_once(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb", extra_toml='\n[connectors.dead]\nmcp = { command = "python", '
                                                            'args = ["exits.py"] }\n')
    (folder / "exits.py").write_text(EXITS)
    kernel = Kernel(folder)
    try:
        run = kernel.ok("%connectors")
        said = run.stderr + run.stdout
        assert said.count("missing API key") == 1, said
        later = kernel.ok("1 + 1")
        assert "missing API key" not in later.stderr + later.stdout, later.stderr
    finally:
        kernel.shutdown()
