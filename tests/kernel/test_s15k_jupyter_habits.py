"""s15k (review 15x L2): IPython habits in a Code Mode cell are answered with what to do instead,
and a '!' or '?' that is valid Python (inside a string, '!=') is left to Python."""

from __future__ import annotations

import pytest

from codemode_kernel.kernel.magics import classify
from tests.kernel.kernel_harness import Kernel


@pytest.mark.parametrize("code", ["!ls", "x = 1\n!pip install requests", "files = !ls -la"])
def test_a_shell_escape_anywhere_in_the_cell_is_answered(code: str) -> None:
    cell = classify(code)
    assert cell.kind == "invalid" and "%%host" in cell.body and "terminal" in cell.body, cell


@pytest.mark.parametrize("code", ["s = '''\n!not a shell line\n'''", "x = 1 != 2", "y = 'why?'\ny"])
def test_valid_python_with_bangs_and_question_marks_is_code(code: str) -> None:
    assert classify(code).kind == "code"


def test_a_question_mark_among_other_lines_says_it_works_alone() -> None:
    cell = classify("x = 5\nx?")
    assert cell.kind == "invalid" and "x?" in cell.body and "alone" in cell.body, cell


def test_reset_dash_f_forgets_everything_and_other_options_are_refused(shared_kernel: Kernel) -> None:
    shared_kernel.ok("s15k_keep = 1")
    forgot = shared_kernel.ok("%reset -f")
    assert "Forgot" in forgot.stdout and "s15k_keep" in forgot.stdout, forgot.stdout
    assert shared_kernel.execute("s15k_keep").error is not None
    refused = shared_kernel.execute("%reset -s")
    assert refused.error is not None and "%reset forgets every carried name" in refused.error["evalue"]


def test_whos_points_at_vars(shared_kernel: Kernel) -> None:
    run = shared_kernel.execute("%whos")
    assert run.error is not None and "%vars" in run.error["evalue"], run.error
