"""Subscripts in the sandbox mean what they mean in plain Python (review 12).

RestrictedPython rewrites every ``a[b]`` load into ``_getitem_(a, b)`` (slices as ``slice``
objects), and ``a[b] = v`` / ``del a[b]`` into ``_write_(a)[b]``; the sandbox's language module may
inline those calls back to plain subscripts where its policy is the plain operation (issue 12).
Either way a cell must get exactly what CPython gives: the same value, or an error of the same
type with the same message, with the operands evaluated in the same order. Each case runs on
both executors and is compared with the same source run by plain ``exec``.
"""

from __future__ import annotations

import ast
import collections
import json
import re
import string
from collections.abc import AsyncIterator
from typing import Any

import pytest

from codemode_kernel import InProcessExecutor
from codemode_kernel.executor.isolated import SubprocessExecutor
from tests.executor.isolated_support import RecordingHost

pytestmark = pytest.mark.anyio

# (id, code): the value of the last expression is compared (it must be JSON data).
CASES: list[tuple[str, str]] = [
    ("index", "a = [10, 20, 30]\n[a[0], a[-1], a[1]]"),
    ("index out of range", "a = [10, 20, 30]\na[3]"),
    ("negative index out of range", "a = [10, 20, 30]\na[-4]"),
    ("bool index", "a = [10, 20, 30]\n[a[True], a[False]]"),
    ("float index", "a = [10, 20, 30]\na[1.0]"),
    ("str index", "a = [10, 20, 30]\na['1']"),
    ("slices", "a = list(range(10))\n[a[1:], a[:-1], a[::2], a[::-1], a[1:8:3], a[None:None], a[-3:], a[5:2]]"),
    ("slice step zero", "a = list(range(10))\na[::0]"),
    ("slice object", "a = list(range(10))\ns = slice(2, 8, 2)\n[a[s], a[slice(3)], 'abcdef'[s]]"),
    ("slice with expressions", "a = list(range(10))\ni = 2\n[a[i:i * 3], a[len(a) // 2:], a[-i:]]"),
    ("slice of a float bound", "a = list(range(10))\na[1.5:]"),
    ("str and bytes", "s = 'héllo'\nb = b'abc'\n[s[1], s[1:3], s[::-1], b[0], list(b[1:])]"),
    ("tuple", "t = (1, 2, 3)\n[t[0], list(t[1:])]"),
    ("range", "r = range(10)\n[r[3], list(r[2:8:3]), r[-1]]"),
    ("dict keys", "d = {'a': 1, 2: 'two', (1, 2): 'pair', None: 'none'}\n[d['a'], d[2], d[1, 2], d[(1, 2)], d[None]]"),
    ("missing dict key", "d = {'a': 1}\nd['b']"),
    ("unhashable key", "d = {'a': 1}\nd[[1]]"),
    ("slice as a dict key", "d = {'a': 1}\nd[1:2]"),
    ("tuple with a slice as a key", "d = {'a': 1}\nd[1, 2:3]"),
    ("starred key", "d = {(1, 2): 'x'}\nt = (1, 2)\nd[*t]"),
    ("nested", "m = [[1, 2], [3, [4, 5]]]\n[m[0][1], m[1][1][0], m[1][1][-1:], m[-1][1][::-1]]"),
    ("not subscriptable", "n = 5\nn[0]"),
    ("none not subscriptable", "n = None\nn['k']"),
    ("function not subscriptable", "def f():\n    return 1\nf[0]"),
    ("types and generic aliases", "[str(list[int]), str(dict[str, list[int]]), str(tuple[int, ...])]"),
    ("int type not subscriptable", "int[0]"),
    ("type of a value subscripted", "str(type([])[int])"),
    ("match groups", "m = re.match('(a)(b)', 'ab')\n[m[0], m[1], m[2]]"),
    ("match group out of range", "m = re.match('(a)', 'a')\nm[5]"),
    ("json data", "d = json.loads('{\"a\": [1, {\"b\": 2}]}')\n[d['a'][1]['b'], d['a'][:1]]"),
    ("counter and defaultdict loads", "c = collections.Counter('abca')\n"
     "d = collections.defaultdict(list)\nd['x'].append(1)\n[c['a'], c['z'], d['x'], d['y'], sorted(d)]"),
    ("ordered dict and deque", "o = collections.OrderedDict([('a', 1)])\nq = collections.deque([1, 2, 3])\n"
     "[o['a'], q[0], q[-1]]"),
    ("string constants", "[string.ascii_lowercase[:3], string.digits[-1]]"),
    ("evaluation order", "log = []\ndef f():\n    log.append('f')\n    return [1, 2, 3]\n"
     "def g():\n    log.append('g')\n    return 1\ndef h():\n    log.append('h')\n    return 3\n"
     "[f()[g()], f()[g():h()], log]"),
    ("evaluation order of a store", "log = []\ndef box():\n    log.append('box')\n    return d\n"
     "def key():\n    log.append('key')\n    return 'k'\ndef value():\n    log.append('value')\n    return 1\n"
     "d = {}\nbox()[key()] = value()\n[d, log]"),
    ("comprehension, lambda and default", "m = [[1, 2], [3, 4]]\ndef first(x, i=m[0][0]):\n    return x[i]\n"
     "[[row[1] for row in m], (lambda r: r[0][:1])(m), first([7, 8]), list(r[-1] for r in m)]"),
    ("stores and deletes", "d = {}\nd['k'] = 1\nl = [0, 1, 2, 3]\nl[1:3] = ['x']\nl[0] = 'y'\ndel l[-1]\n"
     "m = [[0]]\nm[0][0] = 5\na = [0, 0]\na[0], a[1] = 1, 2\n[d, l, m, a]"),
    ("a store through a subscript target of a for", "d = {}\nfor d['k'] in range(3):\n    pass\nd"),
    ("slice store with a step of the wrong size", "l = [0, 1, 2, 3]\nl[::2] = [1]\nl"),
    ("delete of a missing key", "d = {}\ndel d['k']"),
    ("store to a str", "s = 'abc'\ns[0] = 'x'"),
    ("store to a tuple", "t = (1,)\nt[0] = 2"),
    ("walrus in a subscript", "a = [10, 20]\n[a[(i := 1)], i]"),
    ("subscript in an f-string", "d = {'a': [1, 2]}\nf\"{d['a'][1]} {d['a'][::-1]}\""),
    ("chained comparisons of subscripts", "a = [1, 2, 3]\na[0] < a[1] < a[2]"),
]

#: Writes to objects the write guard refuses (RestrictedPython's wrapper): the same error type, its own words.
GUARD_WORDS = {"store to a str", "store to a tuple"}

MODULES = {"collections": collections, "json": json, "re": re, "string": string}


def _plain(code: str) -> tuple[str, Any]:
    """What plain CPython gives for ``code``: ("value", v) or ("error", (type name, message))."""
    tree = ast.parse(code)
    last = tree.body[-1]
    if isinstance(last, ast.Expr):
        tree.body[-1] = ast.copy_location(
            ast.Assign(targets=[ast.Name("result_", ast.Store())], value=last.value), last)
        ast.fix_missing_locations(tree)
    namespace: dict[str, Any] = dict(MODULES)
    try:
        exec(compile(tree, "<plain>", "exec"), namespace)  # the reference: plain CPython
    except Exception as exc:
        return "error", (type(exc).__name__, str(exc))
    return "value", namespace.get("result_")


@pytest.fixture(params=["inprocess", "subprocess"])
async def executor(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    ex = InProcessExecutor() if request.param == "inprocess" else SubprocessExecutor()
    yield ex
    await ex.aclose()


@pytest.mark.parametrize(("name", "code"), CASES, ids=[c[0] for c in CASES])
async def test_a_subscript_means_what_it_means_in_python(executor: Any, name: str, code: str) -> None:
    """The sandbox gives the value, or the error type and message, that plain CPython gives."""
    kind, expected = _plain(code)
    out = await executor.execute(code, {}, host=RecordingHost())
    if kind == "value":
        assert out.error is None, out.error
        assert out.result == json.loads(json.dumps(expected))
    else:
        assert out.error is not None, f"expected {expected}, got the value {out.result!r}"
        if name in GUARD_WORDS:
            assert out.error.type == expected[0]
        else:
            assert (out.error.type, out.error.message) == expected
