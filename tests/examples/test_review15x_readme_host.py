"""Review 15x: README's ``%%host`` paragraph leaves out ``session``, which two notebooks teach.

README: "``connect(connector)`` adds a connector (``disconnect(name)`` removes it), ``runtime`` is
the notebook's ``CodemodeRuntime``, and top-level ``await`` works." Notebooks 02 and 03 use
``session.approve(await session.resolve("last", "approve"))`` and ``session.rollback(...)``
("a ``%%host`` cell ... with ``session`` bound to this notebook"), and ``%help`` says "runtime
and session are defined"; a reader of README cannot learn what ``session`` is or does
(``resolve``, ``approve``, ``rollback``: the magics' own doors, keeping the outcome as data).
(Review 14x noted it; still so.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_names_what_a_host_cell_defines() -> None:
    text = README.read_text(encoding="utf-8")
    paragraph = re.search(r"A cell that starts with `%%host`.*?\n\n", text, re.S)
    assert paragraph is not None
    assert "`session`" in paragraph.group(0), paragraph.group(0)
