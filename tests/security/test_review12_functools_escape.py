"""``functools`` must not write or read attributes the guards refuse (review 12).

``functools`` is an allow-listed module, and its Python code runs unguarded: ``update_wrapper``
(and ``wraps``) read and write attributes whose names the caller chooses, ``updated=`` even
calls ``.update()`` on them. So

- ``functools.update_wrapper(f, getattr, assigned=(), updated=('__globals__',))`` copies the
  sandbox ``getattr``'s module globals (language.py's) into the cell's own globals, the real
  ``__builtins__`` among them; a function defined afterwards gets the real builtins (``getattr``,
  ``open``, ``__import__``), and the language layer is gone: ``os.environ`` on the in-process
  executor is the host's;
- ``functools.update_wrapper(json, s, assigned=(), updated=('__dict__',))`` writes ``s``'s
  attributes into the ``json`` module, past the write guard: on the in-process executor that is
  the host's ``json`` (language.py's design log says the write guard stops exactly that).

The process stays the boundary on the isolated executor (the worker's environment is empty),
but RestrictedPython is the second layer DESIGN §11 promises, and the only one in process.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from codemode_kernel import InProcessExecutor
from codemode_kernel.executor.isolated import SubprocessExecutor
from tests.executor.isolated_support import RecordingHost

pytestmark = pytest.mark.anyio

SECRET_ENV = "CODEMODE_REVIEW12_SECRET"
SECRET = "s3cr3t-review12-functools"

REAL_BUILTINS = """
def f():
    pass
{how}
def h():
    return getattr
real = h()
imp = real(h, '__globals__')['__builtins__']['__im' + 'port__']
os = imp('os')
'escaped: ' + str(real(os, 'environ').get({env!r}))
"""

WAYS = {
    "update_wrapper": "functools.update_wrapper(f, getattr, assigned=(), updated=('__globals__',))",
    "wraps": "functools.wraps(getattr, assigned=(), updated=('__globals__',))(f)",
    "imported": ("from functools import update_wrapper\n"
                 "update_wrapper(f, getattr, assigned=(), updated=('__globals__',))"),
    # re imports functools: the module walk check lets an allowed module through as it is.
    "through re": "re.functools.update_wrapper(f, getattr, assigned=(), updated=('__globals__',))",
    "imported from re": ("from re import functools as ft\n"
                         "ft.update_wrapper(f, getattr, assigned=(), updated=('__globals__',))"),
}

POISON = """
class S:
    pass
s = S()
def evil(*a, **k):
    return '"poisoned"'
s.dumps = evil
functools.update_wrapper(json, s, assigned=(), updated=('__dict__',))
'done'
"""


@pytest.fixture(params=["inprocess", "subprocess"])
async def executor(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Any]:
    monkeypatch.setenv(SECRET_ENV, SECRET)
    ex = InProcessExecutor() if request.param == "inprocess" else SubprocessExecutor()
    yield ex
    await ex.aclose()


@pytest.mark.parametrize("how", WAYS.values(), ids=WAYS.keys())
async def test_functools_does_not_hand_out_the_real_builtins(executor: Any, how: str) -> None:
    """It is an error if a cell reaches the real builtins (and through them os) with functools."""
    out = await executor.execute(REAL_BUILTINS.format(how=how, env=SECRET_ENV), {}, host=RecordingHost())
    assert not str(out.result).startswith("escaped"), out.result
    assert SECRET not in repr(out)


async def test_functools_cannot_poison_a_shared_module() -> None:
    """It is an error if a cell on the in-process executor changes the host's json module."""
    original = json.dumps
    ex = InProcessExecutor()
    try:
        await ex.execute(POISON, {}, host=RecordingHost())
        assert json.dumps is original
        assert json.dumps({"a": 1}) == '{"a": 1}'
    finally:
        json.dumps = original
        await ex.aclose()


# functools.singledispatch's register() reads a function's annotations with typing.get_type_hints, which
# evaluates a string annotation with plain eval() in the function's globals: unrestricted code.
ANNOTATION = '''
leak = []
def f(x: "(leak.append([c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'][0]"
         ".__init__.__globals__['environ'].get({env!r}, 'escaped')), int)[1]"):
    pass
try:
    functools.{how}
except Exception as e:
    leak.append('refused')
leak
'''

DISPATCH = {
    "singledispatch": "singledispatch(len).register(f)",
    "singledispatchmethod": "singledispatchmethod(len).register(f)",
}


@pytest.mark.parametrize("how", DISPATCH.values(), ids=DISPATCH.keys())
async def test_functools_does_not_evaluate_an_annotation_unrestricted(executor: Any, how: str) -> None:
    """It is an error if a string annotation runs as unrestricted code (a class walk to os.environ)."""
    out = await executor.execute(ANNOTATION.format(how=how, env=SECRET_ENV), {}, host=RecordingHost())
    assert out.error is not None or not any(x in (SECRET, "escaped") for x in (out.result or [])), out.result
    assert SECRET not in repr(out)
