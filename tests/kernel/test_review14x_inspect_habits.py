"""Review 14x: the ways a Python user looks at an object fail with messages that do not help.

In a notebook one evaluates a name to see it, or calls ``help()`` / ``dir()``. In a Code Mode
cell:

- ``notes`` -> ``CodecError: Cannot return a value of type 'ConnectorProxy' at the result: values
  crossing the Code Mode boundary must be JSON data ... Convert it first (e.g. list(a_set),
  str(obj), a dict of its fields).`` (``notes.add_note`` and ``codemode`` likewise: 'MethodProxy',
  'CodemodeApi'): advice for data, about an internal type name, for the one object the
  person wanted to read about;
- ``help(notes.add_note)`` / ``dir(notes)`` -> ``NameError: name 'help' is not defined``.

``notes.add_note?``, ``%describe notes`` and ``codemode.describe(...)`` exist and are what to say.
"""

from __future__ import annotations

import pytest

from tests.kernel.kernel_harness import Kernel


def _said(kernel: Kernel, code: str) -> str:
    run = kernel.execute(code)
    shown = "".join(str(c["data"].get("text/plain", "")) for c in run.of("display_data"))
    return (run.error["evalue"] if run.error else "") + shown + str((run.result or {}).get("text/plain", ""))


@pytest.mark.parametrize("code", ["notes", "notes.add_note"])
def test_evaluating_a_connector_points_at_its_description(shared_kernel: Kernel, code: str) -> None:
    said = _said(shared_kernel, code)
    assert "Proxy" not in said, said
    assert "add_note" in said and ("describe" in said or "?" in said), said


@pytest.mark.parametrize("code", ["help(notes.add_note)", "dir(notes)"])
def test_help_and_dir_point_at_describe(shared_kernel: Kernel, code: str) -> None:
    said = _said(shared_kernel, code)
    assert "describe" in said or "add_note?" in said, said
