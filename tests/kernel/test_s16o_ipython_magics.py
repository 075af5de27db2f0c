"""IPython-only magics a person types out of habit are answered with what works instead (session 15's note).

``%time`` and ``%timeit`` were "Unknown magic %time. Did you mean %tool?", ``%matplotlib inline`` "Unknown
magic %matplotlib.", and ``%%time`` a cell magic that does not exist: none says how to time a cell or draw a
plot here. The right outcome: each says what does that work in a Code Mode notebook (and never suggests an
unrelated magic).
"""

from __future__ import annotations

import pytest

from tests.kernel.kernel_harness import Kernel

CASES = [
    ("%time sum(range(10))", ["time.perf_counter()"]),
    ("%timeit sum(range(10))", ["time.perf_counter()"]),
    ("%%time\nsum(range(10))", ["time.perf_counter()"]),
    ("%%timeit\nsum(range(10))", ["time.perf_counter()"]),
    ("%matplotlib inline", ["%%host", "matplotlib"]),
    ("%load_ext autoreload", ["%reload"]),
    ("%autoreload 2", ["%reload"]),
    ("%env", ["%%host", "os.environ"]),
    ("%cd /tmp", ["%%host"]),
    ("%run script.py", ["codemode run FILE"]),
    ("%%writefile notes.txt\nhello", ["%%host", "open("]),
    ("%%capture\nprint(1)", ["carried"]),
    ("%%bash\nls", ["%%host", "subprocess.run"]),
]


@pytest.mark.parametrize(("code", "words"), CASES, ids=[c.split()[0] for c, _ in CASES])
def test_an_ipython_magic_says_what_works_instead(shared_kernel: Kernel, code: str, words: list[str]) -> None:
    run = shared_kernel.execute(code)
    assert run.error is not None, run.stdout
    said = run.error["evalue"]
    assert all(w in said for w in words), said
    assert "Did you mean" not in said, said
