"""The magics' HTML shows a program's code with bidi controls live (review 15; panel: test_review15_panel_code_bidi).

``inert_bundle`` (kernel/display.py, review 14 H1) makes a bundle's ``text/plain`` inert; the
``text/html`` a notebook shows is escaped for markup (``markup.element``) but keeps the bidi
overrides and isolates, so ``%executions`` (each program's first line) and ``%journal`` (the code)
show a program that *reads* differently from what runs, in JupyterLab, where the person reads them.

The right outcome: no bidi override or isolate in the HTML either (a visible escape instead).
"""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel


def test_executions_html_reorders_nothing(shared_kernel: Kernel) -> None:
    shared_kernel.ok("r15_x = 'ok'  # \u202e\u2066 harmless \u2069\u2066\nr15_x")
    run = shared_kernel.ok("%executions 1")
    html = "".join(str(m["data"].get("text/html", "")) for m in run.of("display_data"))
    assert "harmless" in html, html
    for char in "\u202e\u2066\u2069":
        assert char not in html, repr(html)
