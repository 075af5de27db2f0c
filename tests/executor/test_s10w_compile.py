"""compile_cell does less for the same code (issue 12, s10w): a rewriter is skipped when the cell's
text lacks what it rewrites, and only the nodes made after RestrictedPython's check are located
(no walk of the whole tree). The code objects are the ones the full pipeline makes: bytecode,
constants, names, line table and every instruction's position, in nested code too.
"""

from __future__ import annotations

import ast
import types
from collections.abc import Iterator

import pytest
from RestrictedPython.transformer import RestrictingNodeTransformer

from codemode_kernel.executor import language
from codemode_kernel.executor.language import CELL_FILENAME, CompileFailed, compile_cell


def _full_pipeline(source: str) -> types.CodeType:
    """compile_cell before the change: both rewriters always, then ``ast.fix_missing_locations``."""
    tree = ast.parse(source, CELL_FILENAME, "exec")
    errors: list[str] = []
    RestrictingNodeTransformer(errors, [], {}).visit(tree)
    assert not errors, errors
    tree = language._TopLevelRewriter().visit(tree)
    tree = language._FastGuards().visit(tree)
    body = tree.body
    if body and isinstance(body[-1], ast.Expr):
        last = body[-1]
        body[-1] = ast.copy_location(ast.Assign(targets=[ast.Name("__codemode_result__", ast.Store())],
                                                value=last.value), last)
    ast.fix_missing_locations(tree)
    return compile(tree, CELL_FILENAME, "exec")


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


CELLS = [
    "1 + 1",
    "return 5",
    "x = 1\nif x:\n    return\nx",
    "if True:\n    return [1,\n        2][0]\nx = 3",
    "x = 1\nx += 2\nx",
    "d = {}\nd['a'] = 1\ndel d['a']\nd",
    "def f(n):\n    t = 0\n    for i in range(n):\n        t += i\n    box = [0]\n    box[0] = t\n"
    "    return box\nreturn f(3)",
    "class C:\n    def __init__(self):\n        self.v = {}\n        self.v['x'] = 1\nC().v",
    "s = 'return [ ='\ns",
    "rows = github.list_issues(repo='x')\n[r for r in rows if r]",
    "for i in range(3):\n    s = 0\n    s -= i\n    s **= 2",
    "lambda: 1",
    "total = sum(i * i for i in range(10))\nprint(total)\ntotal",
]


@pytest.mark.parametrize("source", CELLS)
def test_a_cell_compiles_to_the_code_of_the_full_pipeline(source: str) -> None:
    """Same code objects as with every rewriter run and every location filled by the tree's walk."""
    want, got = _full_pipeline(source), compile_cell(source)
    for a, b in zip(_codes(want), _codes(got), strict=True):
        assert a == b
        assert a.co_linetable == b.co_linetable
        assert list(a.co_positions()) == list(b.co_positions())


def test_a_node_left_without_a_place_is_still_located(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were RestrictedPython to make a node without a location, the cell still compiles (the locations
    are then filled from the tree) to the full pipeline's code."""
    source = "x = 1\nx += 2\nx"
    original = language._FastGuards.visit_Assign

    def unlocated(self: language._FastGuards, node: ast.Assign) -> ast.AST:
        new = original(self, node)
        if isinstance(new, ast.AugAssign):
            del new.value.lineno  # type: ignore[attr-defined]
        return new

    monkeypatch.setattr(language._FastGuards, "visit_AugAssign", lambda self, node: node, raising=False)
    monkeypatch.setattr(language._FastGuards, "visit_Assign", unlocated)
    code = compile_cell(source)
    assert code.co_code == _full_pipeline(source).co_code
    result: dict[str, object] = {"__builtins__": language.BUILTINS}
    exec(code, result)
    assert result["__codemode_result__"] == 3


def test_refusals_are_unchanged() -> None:
    """What RestrictedPython refuses is still refused, with its line."""
    with pytest.raises(CompileFailed) as info:
        compile_cell("x = 1\ny = x.__class__")
    assert info.value.lineno == 2
