"""A subscript load compiles back to a plain subscript when the ``_getitem_`` guard is the plain
operation (issue 12, s12s), and keeps its guard call otherwise. What a subscript gives, value or error,
is specified by test_review12_subscripts.py; the refusals by tests/security."""

from __future__ import annotations

import dis
from typing import Any

import pytest

from codemode_kernel.executor import language
from codemode_kernel.executor.language import compile_cell

SUBSCRIPTS = "a = [1, 2, 3]\nd = {(1, 2): 3}\nt = (1, 2)\n[a[0], a[1:], a[::-1], d[1, 2], d[*t], a[len(a) - 1]]"


def _names(code: Any) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


def test_restrictedpythons_default_guard_is_the_plain_subscript() -> None:
    """RestrictedPython's default_guarded_getitem is recognised as ``ob[index]``, so loads are inlined."""
    assert language.GETITEM_IS_PLAIN
    assert "_getitem_" not in _names(compile_cell(SUBSCRIPTS))
    assert "_getitem_" not in _names(compile_cell("def f(m):\n    return [m[0] for x in m[1:]]\nf([[1]])"))


@pytest.mark.parametrize("guard", [
    lambda ob, index: ob[index] if index != 0 else None,
    lambda ob, index, extra=1: ob[index],
    lambda ob, index: ob.get(index),
], ids=["a check", "a default", "another operation"])
def test_a_guard_that_is_not_the_plain_subscript_is_called(guard: Any) -> None:
    """A guard that does anything but ``ob[index]`` is not recognised, and the guard calls stay."""
    assert not language._is_plain_getitem(guard)


def test_the_guard_calls_stay_when_the_guard_is_not_plain(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a policy other than the plain subscript, every load still calls ``_getitem_``."""
    monkeypatch.setattr(language, "GETITEM_IS_PLAIN", False)
    code = compile_cell(SUBSCRIPTS)
    assert "_getitem_" in _names(code)
    calls = [i for i in dis.get_instructions(code) if i.opname == "LOAD_NAME" and i.argval == "_getitem_"]
    assert len(calls) == 6
