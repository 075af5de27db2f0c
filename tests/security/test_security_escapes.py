"""Escape classes 1-9 of the sandbox notes, as code a model could send.

Each attack runs through ``runtime.execute`` on the isolated executor (the boundary) and on
the in-process twin (the language layer alone must hold too). Whatever the status, the host
secret must appear nowhere in the output, the host files must be unchanged, and the vault's
write must never run.
"""

from __future__ import annotations

import collections.abc
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor
from codemode_kernel.executor.isolated import SubprocessExecutor
from tests.security.security_support import SECRET_ENV, HostSecrets, Vault

pytestmark = pytest.mark.anyio

ENV = f"'{SECRET_ENV}'"

# (class, id, code): every case must fail or return something harmless.
ATTACKS: list[tuple[str, str, str]] = [
    # 1. imports and module reach
    ("imports", "import-os", f"import os\nos.environ.get({ENV})"),
    ("imports", "import-subprocess", "import subprocess\nsubprocess.run(['cat', '{secret_file}'])"),
    ("imports", "dunder-import", "__import__('os').environ"),
    ("imports", "importlib", "import importlib\nimportlib.import_module('os')"),
    ("imports", "sys-modules", "import sys\nsys.modules['os'].environ"),
    ("imports", "ctypes", "import ctypes\nctypes.CDLL(None)"),
    ("imports", "builtins-module", "import builtins\nbuiltins.open('{secret_file}').read()"),
    ("imports", "pickle", "import pickle\npickle.loads(b'')"),
    ("imports", "gc", "import gc\n[str(o) for o in gc.get_objects()]"),
    ("imports", "module-walk-re-enum", f"re.enum.sys.modules['os'].environ.get({ENV})"),
    ("imports", "module-walk-datetime", f"datetime.sys.modules['os'].environ.get({ENV})"),
    ("imports", "module-walk-uuid", "uuid.os.system('cat {secret_file} > {canary}')"),
    ("imports", "getattr-module-walk", f"getattr(uuid, 'os').environ.get({ENV})"),
    ("imports", "from-import-walk", f"from datetime import sys\nsys.modules['os'].environ.get({ENV})"),
    ("imports", "private-submodule", "import re._parser as p\np.sys"),
    ("imports", "submodule-walk", f"import json.decoder\njson.decoder.re.enum.sys.modules['os'].environ.get({ENV})"),
    # 2. builtins reach
    ("builtins", "open", "open('{secret_file}').read()"),
    ("builtins", "exec-alias", "e = exec\ne('import os')"),
    ("builtins", "eval", "eval('1')"),
    ("builtins", "exec", "exec('import os')"),
    ("builtins", "compile", "compile('1', 'x', 'exec')"),
    ("builtins", "globals", "globals()"),
    ("builtins", "vars", "vars()"),
    ("builtins", "locals", "locals()"),
    ("builtins", "dir", "dir()"),
    ("builtins", "builtins-subscript", "__builtins__['open']('{secret_file}').read()"),
    ("builtins", "print-self", "getattr(print, '__self__')"),
    ("builtins", "breakpoint", "breakpoint()"),
    # 3. dunder and class walks
    ("dunders", "subclasses", "().__class__.__bases__[0].__subclasses__()"),
    ("dunders", "getattr-class", "getattr(getattr((), '__class__'), '__base__')"),
    ("dunders", "computed-name", "getattr(1, chr(95) * 2 + 'class' + chr(95) * 2)"),
    ("dunders", "mro-object-subclasses", "o = type(()).mro()[-1]\ngetattr(o, '__subclasses__')()"),
    ("dunders", "type-three-args", "type('X', (), {'__repr__': lambda s: 'x'})"),
    ("dunders", "function-globals", "def f():\n    pass\ngetattr(f, '__globals__')"),
    # 4. frames
    ("frames", "gi-frame", "def g():\n    yield 1\nx = g()\nnext(x)\nx.gi_frame.f_back.f_globals"),
    ("frames", "gi-frame-getattr", "def g():\n    yield 1\nx = g()\ngetattr(getattr(x, 'gi_frame'), 'f_globals')"),
    ("frames", "traceback",
     "try:\n    1/0\nexcept Exception as e:\n    t = e.__traceback__.tb_frame.f_globals\nt"),
    ("frames", "traceback-getattr",
     "try:\n    1/0\nexcept Exception as e:\n    t = getattr(e, '__traceback__')\nt"),
    ("frames", "except-star", "try:\n    pass\nexcept* ValueError:\n    pass"),
    ("frames", "code-object", "(lambda: 1).__code__"),
    ("frames", "gi-code", "def g():\n    yield 1\ngetattr(g(), 'gi_code')"),
    # 5. C-level attribute walkers
    ("walkers", "str-format", "'{0.__class__.__base__.__subclasses__}'.format(1)"),
    ("walkers", "str-format-unbound", "f = str.format\nf('{0.__class__}', 1)"),
    ("walkers", "format-map", "'{a.__class__}'.format_map({'a': 1})"),
    ("walkers", "formatter", "string.Formatter().vformat('{0.__class__}', [1], {})"),
    ("walkers", "operator", "import operator\noperator.attrgetter('__class__')(1)"),
    ("walkers", "partial-getattr", "functools.partial(getattr, 1)('__class__')"),
    ("walkers", "reduce-getattr", "functools.reduce(getattr, ['__class__', '__base__'], 1)"),
    ("walkers", "map-getattr", "list(map(getattr, [vault], ['_codemode_session']))"),
    ("walkers", "template", "string.Template('$a').substitute(a=vault)"),
    # 6. connector proxy internals
    ("proxies", "session", "vault._codemode_session"),
    ("proxies", "session-getattr", "getattr(vault, '_codemode_session')"),
    ("proxies", "token", "vault.token"),
    ("proxies", "client-session", "vault.session"),
    ("proxies", "headers", "vault.headers"),
    ("proxies", "method-self", "vault.status.__self__"),
    ("proxies", "method-closure", "getattr(vault.status, '__closure__')"),
    ("proxies", "method-wrapped", "getattr(vault.status, '__wrapped__')"),
    ("proxies", "partial-parts", "m = vault.status\n[getattr(m, 'func', None), getattr(m, 'keywords', None)]"),
    ("proxies", "codemode-runner", "getattr(codemode, '_codemode_runner')"),
    ("proxies", "codemode-step-self", "getattr(codemode.step, '__self__')"),
    ("proxies", "proxy-class", "t = type(vault)\n[n for n in t.mro()]"),
    # 7. host exception payloads
    ("exceptions", "exception-text",
     "try:\n    vault.fail()\nexcept Exception as e:\n    r = [str(e), list(e.args)]\nr"),
    ("exceptions", "exception-payload", "try:\n    vault.fail()\nexcept Exception as e:\n    r = e.response\nr"),
    ("exceptions", "exception-token", "try:\n    vault.fail()\nexcept Exception as e:\n    r = getattr(e, 'token')\nr"),
    ("exceptions", "exception-context",
     "try:\n    vault.fail()\nexcept Exception as e:\n    r = getattr(e, '__context__')\nr"),
    ("exceptions", "attribute-error-obj",
     "try:\n    vault.token\nexcept AttributeError as e:\n    r = str(getattr(e, 'obj', None))\nr"),
    # 8. guard shadowing and state tampering
    ("shadowing", "positional-only-guard", "def f(_getattr_, /):\n    return _getattr_\nf(1)"),
    ("shadowing", "keyword-guard", "def f(*, _write_=None):\n    return 1\nf()"),
    ("shadowing", "lambda-guard", "(lambda _getitem_: 1)(2)"),
    ("shadowing", "rebind-method", "vault.status = vault.transfer\nvault.status()"),
    ("shadowing", "poison-json", "json.dumps = lambda *a, **k: 'x'"),
    ("shadowing", "poison-math", "math.pi = 3"),
    ("shadowing", "write-builtins", "__builtins__['open'] = print"),
    # 9. serialization back-channels
    ("serialization", "reduce", "class A:\n    def __reduce__(self):\n        return (print, ('x',))\nA()"),
    ("serialization", "custom-repr", "class A:\n    def __repr__(self):\n        return 'x'\nA()"),
    ("serialization", "object-argument", "class A:\n    pass\nvault.echo(value=A())"),
    ("serialization", "str-subclass", "class S(str):\n    pass\nvault.echo(value=S('x'))"),
    ("serialization", "non-string-keys", "vault.echo(value={1: 2})"),
    ("serialization", "nan", "vault.echo(value=float('nan'))"),
    ("serialization", "cycle", "x = []\nx.append(x)\nvault.echo(value=x)"),
    ("serialization", "object-result", "class A:\n    pass\nA()"),
    ("serialization", "set-result", "{1, 2}"),
]


@pytest.fixture(params=["subprocess", "inprocess"])
async def runtime(request: pytest.FixtureRequest, tmp_path: Path,
                  monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[tuple[CodemodeRuntime, Vault, HostSecrets]]:
    host = HostSecrets.create(tmp_path / "host")
    monkeypatch.setenv(SECRET_ENV, host.secret)
    vault = Vault(host.secret)
    executor = SubprocessExecutor() if request.param == "subprocess" else InProcessExecutor()
    rt = CodemodeRuntime([vault], store=f"sqlite:///{tmp_path / 'journal.db'}", executor=executor)
    yield rt, vault, host
    await rt.aclose()


@pytest.mark.parametrize("code", [a[2] for a in ATTACKS], ids=[f"{a[0]}:{a[1]}" for a in ATTACKS])
async def test_attack_gets_nothing(runtime: tuple[CodemodeRuntime, Vault, HostSecrets], code: str) -> None:
    """It is an error (or a harmless value) and the host secret, files and vault are untouched."""
    rt, vault, host = runtime
    out = await rt.execute(host.fill(code))
    host.assert_untouched(out)
    assert vault.calls["transfer"] == 0
    states = await rt.executions()
    host.assert_untouched([s.to_dict() if hasattr(s, "to_dict") else repr(s) for s in states])
    follow_up = await rt.execute("vault.status()['ok']")
    assert follow_up["status"] == "completed" and follow_up["result"] is True


async def test_rebinding_a_method_does_not_redirect_calls(
        runtime: tuple[CodemodeRuntime, Vault, HostSecrets]) -> None:
    """Assigning one connector method over another fails, and the original still calls the original."""
    rt, vault, _host = runtime
    out = await rt.execute("try:\n    vault.status = vault.transfer\nexcept Exception:\n    pass\nvault.status()")
    assert out["status"] == "completed"
    assert (vault.calls["status"], vault.calls["transfer"]) == (1, 0)


async def test_tagged_data_stays_data(runtime: tuple[CodemodeRuntime, Vault, HostSecrets]) -> None:
    """A dict that imitates the codec's tags reaches the connector as that dict, not as bytes."""
    rt, vault, _host = runtime
    out = await rt.execute("vault.echo(value={'$codemode': 'bytes', 'v': 'AAAA'})")
    assert out["status"] == "completed"
    assert vault.echoed == [{"$codemode": "bytes", "v": "AAAA"}]
    assert out["result"] == {"$codemode": "bytes", "v": "AAAA"}


async def test_state_tampering_dies_with_the_worker(tmp_path: Path) -> None:
    """Shared state a pass can change (ABC registries, the random seed) never reaches the host or the next pass."""
    rt = CodemodeRuntime([], store=f"sqlite:///{tmp_path / 'journal.db'}", executor=SubprocessExecutor())
    try:
        refused = await rt.execute("import collections.abc\ncollections.abc.Mapping.register(list)")
        assert refused["status"] == "error" and "register is not available" in refused["error"]  # review 13
        first = await rt.execute("random.seed(7)\nrandom.random()")
        assert first["status"] == "completed"  # inside that worker, the change took
        assert not isinstance([], collections.abc.Mapping)
        second = await rt.execute("import collections.abc\n"
                                  "[isinstance([], collections.abc.Mapping), random.random()]")
        assert second["result"][0] is False
        seeded = await rt.execute("random.seed(7)\nrandom.random()")
        assert second["result"][1] != seeded["result"]
    finally:
        await rt.aclose()
