"""Review 16x: completion right after ``name=`` in a connector call offers the other argument names.

``notes.add_note(title=<Tab>`` (the demo notebooks' notes) offers ``body=`` and ``tags=`` (15x L9's
argument completion): accepting one writes ``notes.add_note(title=body=``, a syntax error. After ``=``
a value is expected; IPython offers names that can be values there (carried names, modules), never
another ``keyword=``. Also, a call split over lines (``notes.add_note(\\n    ti``) offers nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kernel.kernel_harness import Kernel

MEMOS = '''
from codemode_kernel import ToolSetConnector


def make():
    def add_memo(title: str, body: str = "") -> dict:
        """Add a memo."""
        return {"title": title, "body": body}
    return ToolSetConnector([add_memo], name="memos")
'''


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    folder: Path = tmp_path_factory.mktemp("r16x_completion")
    (folder / "memos_mod.py").write_text(MEMOS)
    (folder / "codemode.toml").write_text('[connectors.memos]\npython = "memos_mod:make"\n')
    k = Kernel(folder)
    try:
        k.ok("1")
        yield k
    finally:
        k.shutdown()


def matches(kernel: Kernel, code: str) -> list[str]:
    return list(kernel.shell_reply(kernel.kc.complete(code, len(code)))["content"]["matches"])


def test_arguments_complete_in_a_call(kernel: Kernel) -> None:  # the part that works: the specs below are its edges
    assert "body=" in matches(kernel, "memos.add_memo(title='x', ")


def test_no_keyword_is_offered_where_a_value_goes(kernel: Kernel) -> None:
    found = matches(kernel, "memos.add_memo(title=")
    assert not any(m.endswith("=") for m in found), found


def test_a_call_split_over_lines_completes_its_arguments(kernel: Kernel) -> None:
    found = matches(kernel, "m = memos.add_memo(\n    ti")
    assert "title=" in found, found
