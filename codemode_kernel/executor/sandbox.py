"""The sandbox language: what runs *inside* a pass, in the worker (or the in-process twin).

This module is the one home of RestrictedPython. It compiles the cell (inside the worker:
the compiler is an attack surface), builds the restricted globals (the guard contract
lives in the one dict :func:`build_globals` returns), creates the connector proxies and
the ``codemode`` object, runs the code, and reports the outcome as a JSON-ready dict.
It talks to the host only through a :class:`Channel` of JSON messages (see ``base.py``).

It must import nothing from the host side of the package (runtime, store, connectors):
the worker imports it from a clean interpreter.

Design log (isolation inside the pass):
- ``compile_restricted`` alone cannot express "the last expression is the result" or a
  top-level ``return``; we run RestrictedPython's transformer ourselves and then rewrite
  the *checked* tree (our injected names start with ``_`` so user code cannot name them).
- Module objects are the real stdlib modules. In the worker they die with the process; in
  the in-process executor the write guard stops ``json.dumps = ...`` style poisoning.
- RestrictedPython is defence in depth and good error messages; the process is the
  boundary (DESIGN §11).
"""

from __future__ import annotations

import ast
import base64 as _base64
import collections as _collections
import contextlib
import datetime as _datetime
import functools as _functools
import hashlib as _hashlib
import itertools as _itertools
import json as _json
import math as _math
import operator
import random as _random
import re as _re
import statistics as _statistics
import string as _string
import time as _time
import traceback
import uuid as _uuid
from collections.abc import Callable, Mapping, Sequence
from types import CodeType, ModuleType
from typing import Any, Protocol

from RestrictedPython.Eval import default_guarded_getitem
from RestrictedPython.Guards import (
    full_write_guard,
    guarded_iter_unpack_sequence,
    guarded_unpack_sequence,
    safe_builtins,
    safer_getattr_raise,
)
from RestrictedPython.transformer import RestrictingNodeTransformer

from codemode_kernel import codec

CELL_FILENAME = "<cell>"
STEP_METHOD_CONNECTOR = "codemode.step"  # the journal's connector name for steps (models.STEP_CONNECTOR)
SANDBOX_MODULE = "codemode_cell"

MODULES: dict[str, ModuleType] = {
    "base64": _base64,
    "collections": _collections,
    "datetime": _datetime,
    "functools": _functools,
    "hashlib": _hashlib,
    "itertools": _itertools,
    "json": _json,
    "math": _math,
    "random": _random,
    "re": _re,
    "statistics": _statistics,
    "string": _string,
    "time": _time,
    "uuid": _uuid,
}

LANGUAGE_RULES = (
    "Python (RestrictedPython): the value of the last expression is the result (a top-level `return` "
    "works too); print() output becomes logs. No async/await, match, except*, or names/attributes "
    "starting with '_'. No open, eval, exec, compile, globals, vars, files, network or processes. "
    f"Modules available (pre-imported, `import` works): {', '.join(sorted(MODULES))}."
)


class Channel(Protocol):
    """The sandbox's only door to the host."""

    def request(self, message: dict[str, Any]) -> dict[str, Any]: ...

    def notify(self, message: dict[str, Any]) -> None: ...


class ExecutionAborted(BaseException):
    """The host ended this pass (an approval pause, a divergence, a limit).

    It derives from ``BaseException`` so ordinary ``except Exception`` does not catch it;
    catching it anyway changes nothing: the host refuses every later request.
    """


class ConnectorError(Exception):
    """A connector call failed on the host. Code may catch it."""


class ArgumentError(ConnectorError):
    """Arguments did not match the method's input schema; the connector was not called."""


class CompileFailed(Exception):
    def __init__(self, errors: Sequence[str], lineno: int | None) -> None:
        self.errors = list(errors)
        self.lineno = lineno
        super().__init__("\n".join(self.errors))


class _Return(BaseException):
    """Carries a top-level ``return value`` out of the module body."""

    def __init__(self, value: Any) -> None:
        self.value = value


# ---------------------------------------------------------------------------------------
# Compilation


class _TopLevelRewriter(ast.NodeTransformer):
    """Turn module-level ``return x`` into ``raise __codemode_return__(x)``; skip defs."""

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node

    def visit_Return(self, node: ast.Return) -> ast.AST:
        value = node.value if node.value is not None else ast.Constant(value=None)
        new = ast.Raise(
            exc=ast.Call(func=ast.Name("__codemode_return__", ast.Load()), args=[value], keywords=[]),
            cause=None,
        )
        return ast.copy_location(new, node)


_AUG_OPS: dict[str, type[ast.operator]] = {
    "+=": ast.Add, "-=": ast.Sub, "*=": ast.Mult, "/=": ast.Div, "//=": ast.FloorDiv, "%=": ast.Mod,
    "**=": ast.Pow, "<<=": ast.LShift, ">>=": ast.RShift, "&=": ast.BitAnd, "|=": ast.BitOr,
    "^=": ast.BitXor, "@=": ast.MatMult,
}


class _FastGuards(ast.NodeTransformer):
    """Inline, in the *checked* tree, the guard calls whose policy here is the plain operation.

    ``_inplacevar_`` is exactly ``operator.i<op>`` (see :func:`_inplacevar`), so
    ``x = _inplacevar_('+=', x, y)`` becomes ``x += y`` again; ``_write_(name)[k] = v``
    skips the guard call when ``type(name)`` is one :func:`_write_guard` passes unchanged.
    Same behaviour, but a Python call less per operation: a pure-Python loop ran ~3x slower
    than plain CPython with the calls (issue 3 asks for at most 3x).
    """

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        guard = node.value
        if (isinstance(node.ctx, ast.Store | ast.Del) and isinstance(guard, ast.Call)
                and isinstance(guard.func, ast.Name) and guard.func.id == "_write_" and not guard.keywords
                and len(guard.args) == 1 and isinstance(guard.args[0], ast.Name)):
            name = guard.args[0].id
            fast = ast.Compare(
                left=ast.Call(func=ast.Name("__codemode_type__", ast.Load()), args=[ast.Name(name, ast.Load())],
                              keywords=[]),
                ops=[ast.In()], comparators=[ast.Name("__codemode_writable__", ast.Load())])
            node.value = ast.IfExp(test=fast, body=ast.Name(name, ast.Load()), orelse=guard)
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        self.generic_visit(node)
        call = node.value
        if (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name) and call.func.id == "_inplacevar_" and len(call.args) == 3
                and isinstance(call.args[0], ast.Constant) and call.args[0].value in _AUG_OPS
                and isinstance(call.args[1], ast.Name) and call.args[1].id == node.targets[0].id):
            target = ast.Name(node.targets[0].id, ast.Store())
            return ast.copy_location(ast.AugAssign(target=target, op=_AUG_OPS[call.args[0].value](),
                                                   value=call.args[2]), node)
        return node


_LINE_RE = _re.compile(r"Line (\d+)")


def compile_cell(source: str, filename: str = CELL_FILENAME) -> CodeType:
    """Check and compile cell source; raise :class:`CompileFailed` with every problem."""
    try:
        tree = ast.parse(source, filename, "exec")
    except SyntaxError as exc:
        text = (exc.text or "").strip()
        detail = f": {text}" if text else ""
        raise CompileFailed([f"Line {exc.lineno}: SyntaxError: {exc.msg}{detail}"], exc.lineno) from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise CompileFailed([f"The code is too deeply nested or too large to compile ({type(exc).__name__})."],
                            None) from None
    errors: list[str] = []
    warnings: list[str] = []
    try:
        RestrictingNodeTransformer(errors, warnings, {}).visit(tree)
    except RecursionError:
        raise CompileFailed(["The code is too deeply nested to compile (RecursionError)."], None) from None
    if errors:
        lines = [int(m.group(1)) for e in errors if (m := _LINE_RE.search(e))]
        raise CompileFailed([_explain_compile_error(e) for e in errors], lines[0] if lines else None)
    tree = _TopLevelRewriter().visit(tree)
    tree = _FastGuards().visit(tree)
    body = tree.body
    if body and isinstance(body[-1], ast.Expr):
        last = body[-1]
        assign = ast.Assign(targets=[ast.Name("__codemode_result__", ast.Store())], value=last.value)
        body[-1] = ast.copy_location(assign, last)
    ast.fix_missing_locations(tree)
    try:
        return compile(tree, filename, "exec")
    except SyntaxError as exc:
        raise CompileFailed([f"Line {exc.lineno}: SyntaxError: {exc.msg}"], exc.lineno) from None
    except (RecursionError, MemoryError) as exc:
        raise CompileFailed([f"The code is too deeply nested to compile ({type(exc).__name__})."], None) from None


def _explain_compile_error(message: str) -> str:
    low = message.lower()
    if "async" in low or "await" in low:
        return message + " (the sandbox runs synchronous code: call connector methods directly, without await)"
    if "starts with \"_\"" in message or "starts with '_'" in message or "invalid variable name" in low:
        return message + " (names and attributes starting with '_' are not allowed in Code Mode)"
    return message


# ---------------------------------------------------------------------------------------
# Guards and builtins


def _inplacevar(op: str, x: Any, y: Any) -> Any:
    fn = _INPLACE.get(op)
    if fn is None:
        raise SyntaxError(f"augmented assignment {op!r} is not supported")
    return fn(x, y)


_INPLACE: dict[str, Callable[[Any, Any], Any]] = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "<<=": operator.ilshift,
    ">>=": operator.irshift, "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor,
    "@=": operator.imatmul,
}


def _apply(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return fn(*args, **kwargs)


_WRITABLE = frozenset({dict, list, set, bytearray})


def _write_guard(ob: Any) -> Any:
    # Containers and instances of classes defined in the cell are writable; everything else
    # (modules, proxies, builtins) goes through RestrictedPython's refusing wrapper.
    t = type(ob)
    if t in _WRITABLE or getattr(t, "__module__", None) == SANDBOX_MODULE:
        return ob
    return full_write_guard(ob)


def _module_allowed(module: ModuleType) -> bool:
    """An allow-listed module or one of its public submodules (``collections.abc``)."""
    parts = str(getattr(module, "__name__", "")).split(".")
    return parts[0] in MODULES and not any(p.startswith("_") for p in parts)


def _refuse_module(owner: Any, name: str) -> AttributeError:
    where = owner.__name__ if isinstance(owner, ModuleType) else type(owner).__name__
    return AttributeError(f"{where}.{name} is a module that is not available in Code Mode. "
                          f"Available modules: {', '.join(sorted(MODULES))}.")


def _guarded_getattr(ob: Any, name: str) -> Any:
    """The ``_getattr_`` guard: RestrictedPython's, plus no walking from module to module.

    ``safer_getattr`` lets ``re.enum.sys.modules['os']`` (or ``datetime.sys``, ``uuid.os``)
    through: modules the allow-list never offered, reached as attributes of allowed ones.
    """
    if isinstance(ob, ModuleType) and not _module_allowed(ob):
        raise _refuse_module(ob, name)
    value = safer_getattr_raise(ob, name)  # type: ignore[no-untyped-call]
    if isinstance(value, ModuleType) and not _module_allowed(value):
        raise _refuse_module(ob, name)
    return value


def _safe_getattr(ob: Any, name: str, *default: Any) -> Any:
    """``getattr`` for the sandbox: refuses names starting with '_', format walkers and module walks."""
    if default:
        try:
            return _guarded_getattr(ob, name)
        except AttributeError:
            return default[0]
    return _guarded_getattr(ob, name)


def _safe_hasattr(ob: Any, name: str) -> bool:
    try:
        _safe_getattr(ob, name)
    except (AttributeError, NotImplementedError, TypeError):
        return False
    return True


def _safe_type(ob: Any) -> type:
    """``type(x)`` only; the three-argument form could build classes with dunders."""
    return type(ob)


def _import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
    parts = name.split(".")
    refusal = ImportError(
        f"module {name!r} is not available in Code Mode. Available modules: {', '.join(sorted(MODULES))}. "
        "Reach the outside world through the connector globals instead."
    )
    if level != 0 or parts[0] not in MODULES or any(p.startswith("_") for p in parts):
        raise refusal
    module = __import__(name, None, None, fromlist or (), 0)
    # `from datetime import sys` fetches the attribute in C, past the _getattr_ guard.
    for item in fromlist or ():
        value = getattr(module, str(item), None)
        if isinstance(value, ModuleType) and not _module_allowed(value):
            raise ImportError(f"cannot import {item!r} from {name!r}: it is a module that is not available in "
                              f"Code Mode. Available modules: {', '.join(sorted(MODULES))}.")
    return module


def _builtins() -> dict[str, Any]:
    b = dict(safe_builtins)
    for forbidden in ("setattr", "delattr", "_getattr_"):
        b.pop(forbidden, None)
    b.update(
        {
            "list": list, "dict": dict, "set": set, "frozenset": frozenset, "tuple": tuple, "bytes": bytes,
            "sorted": sorted, "zip": zip, "sum": sum, "min": min, "max": max, "enumerate": enumerate,
            "map": map, "filter": filter, "any": any, "all": all, "reversed": reversed, "iter": iter,
            "next": next, "bin": bin, "ascii": ascii, "format": format, "getattr": _safe_getattr,
            "hasattr": _safe_hasattr, "type": _safe_type, "NotImplemented": NotImplemented,
            "__import__": _import, "ConnectorError": ConnectorError, "ArgumentError": ArgumentError,
        }
    )
    return b


BUILTINS = _builtins()


# ---------------------------------------------------------------------------------------
# Proxies


class _Session:
    """State of one pass inside the sandbox."""

    def __init__(self, channel: Channel, namespaces: Mapping[str, Sequence[str]], max_output_chars: int,
                 max_calls: int, replay: Sequence[Mapping[str, Any]] = ()) -> None:
        self.channel = channel
        # The journal's replayable prefix, sent by the host at pass start (see ``local_replay``).
        self.replay = list(replay)
        self.replayed = 0
        self.replaying = bool(self.replay)
        self.namespaces = {k: frozenset(v) for k, v in namespaces.items()}
        self.max_output_chars = max_output_chars
        self.max_calls = max_calls
        self.calls = 0
        self.output: list[str] = []
        self.output_chars = 0
        self.aborted: str | None = None
        self.fatal: dict[str, Any] | None = None

    # -- host round trips
    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        if self.aborted is not None:
            raise ExecutionAborted(self.aborted)
        # Every request says how much of the journal was replayed here, so the host's next seq
        # follows; once the host has been asked for a call, local replay is over.
        message["replayed"] = self.replayed
        if message.get("op") in ("call", "step"):
            self.replaying = False
        reply = self.channel.request(message)
        if "abort" in reply:
            self.aborted = str(reply["abort"])
            raise ExecutionAborted(self.aborted)
        return reply

    def fail(self, type_name: str, message: str) -> None:
        """End the pass with an error the code cannot catch."""
        if self.fatal is None:
            self.fatal = {"type": type_name, "message": message}
        if self.aborted is None:
            with contextlib.suppress(ExecutionAborted):
                self.ask({"op": "fail", "type": type_name, "message": message})
            self.aborted = message
        raise ExecutionAborted(message)

    def encode(self, value: Any, where: str) -> Any:
        try:
            return codec.encode(value, where)
        except codec.EncodeError as exc:
            self.fail("CodecError", str(exc))

    def value_or_raise(self, reply: dict[str, Any]) -> Any:
        if "raise" in reply:
            err = reply["raise"]
            type_name, message = str(err.get("type", "Error")), str(err.get("message", ""))
            if type_name == "ArgumentError":
                raise ArgumentError(message)
            if type_name == "LookupError":
                raise LookupError(message)
            raise ConnectorError(message if type_name == "ConnectorError" else f"{type_name}: {message}")
        return codec.decode(reply.get("value"))

    def local_replay(self, connector: str, method: str, encoded_args: Any) -> dict[str, Any] | None:
        """The recorded outcome of the next journal entry if this call is exactly that entry.

        Replaying here saves a round trip per recorded call; it is an optimisation, not a
        trust decision: the host checks every call it is asked for against the journal
        (divergence, the approved arguments), and a replayed entry only returns data this
        execution already received in an earlier pass. On the first mismatch local replay
        stops and the host decides, as if there had been none.
        """
        if not self.replaying or self.replayed >= len(self.replay):
            self.replaying = False
            return None
        entry = self.replay[self.replayed]
        if (entry.get("c"), entry.get("m")) != (connector, method) or \
                entry.get("a") != codec.canonical_encoded(encoded_args):
            self.replaying = False
            return None
        self.replayed += 1
        return {"raise": entry["r"]} if "r" in entry else {"value": entry.get("v")}

    def call(self, connector: str, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if args:
            if len(args) == 1 and not kwargs and type(args[0]) is dict:
                kwargs = args[0]
            else:
                raise TypeError(
                    f"{connector}.{method}() takes keyword arguments (or one dict of arguments), "
                    f"not {len(args)} positional argument(s): call it as {connector}.{method}(name=value, ...)"
                )
        self.calls += 1
        if self.calls > self.max_calls:
            self.fail("LimitExceeded", f"the pass made more than {self.max_calls} connector calls (max_calls)")
        encoded = self.encode(kwargs, f"the arguments of {connector}.{method}")
        reply = self.local_replay(connector, method, encoded) or \
            self.ask({"op": "call", "connector": connector, "method": method, "args": encoded})
        return self.value_or_raise(reply)

    def write(self, text: str) -> None:
        if not text:
            return
        self.output_chars += len(text)
        if self.output_chars > self.max_output_chars:
            self.fail("LimitExceeded", f"the pass printed more than {self.max_output_chars:,} characters "
                                       "(max_output_chars)")
        self.output.append(text)
        self.channel.notify({"op": "output", "text": text})


class MethodProxy:
    """A callable standing for ``connector.method``; it holds only names."""

    __slots__ = ("_codemode_session", "connector", "method")
    connector: str
    method: str

    def __init__(self, session: _Session, connector: str, method: str) -> None:
        object.__setattr__(self, "_codemode_session", session)
        object.__setattr__(self, "connector", connector)
        object.__setattr__(self, "method", method)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        session: _Session = object.__getattribute__(self, "_codemode_session")
        return session.call(self.connector, self.method, args, kwargs)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("connector methods are read-only")

    def __repr__(self) -> str:
        return f"<method {self.connector}.{self.method}>"


class ConnectorProxy:
    """The global standing for one connector; attribute access yields method proxies."""

    __slots__ = ("_codemode_methods", "_codemode_session", "name")

    def __init__(self, session: _Session, name: str, methods: frozenset[str]) -> None:
        object.__setattr__(self, "_codemode_session", session)
        object.__setattr__(self, "_codemode_methods", methods)
        object.__setattr__(self, "name", name)

    def __getattr__(self, method: str) -> MethodProxy:
        methods: frozenset[str] = object.__getattribute__(self, "_codemode_methods")
        name = object.__getattribute__(self, "name")
        if method not in methods:
            listed = sorted(methods)
            shown = ", ".join(listed[:12]) + (f", … ({len(listed)} in all)" if len(listed) > 12 else "")
            raise AttributeError(
                f"connector {name!r} has no method {method!r}. Its methods: {shown or '(none)'}. "
                f"Use codemode.search('what you want to do') to find methods, "
                f"and codemode.describe('{name}.<method>') for their arguments."
            )
        return MethodProxy(object.__getattribute__(self, "_codemode_session"), name, method)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("connectors are read-only")

    def __dir__(self) -> list[str]:
        return sorted(object.__getattribute__(self, "_codemode_methods"))

    def __repr__(self) -> str:
        return f"<connector {object.__getattribute__(self, 'name')}>"


class CodemodeApi:
    """The ``codemode`` global: discovery, durable steps and snippets."""

    __slots__ = ("_codemode_runner",)

    def __init__(self, runner: _Runner) -> None:
        object.__setattr__(self, "_codemode_runner", runner)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("codemode is read-only")

    def _runner(self) -> _Runner:
        runner: _Runner = object.__getattribute__(self, "_codemode_runner")
        return runner

    def search(self, query: str) -> Any:
        """Rank connector methods and saved snippets for a natural-language query."""
        session = self._runner().session
        return session.value_or_raise(session.ask({"op": "search", "query": str(query)}))

    def describe(self, target: str) -> Any:
        """Python declarations for a connector, a method (``conn.method``) or a snippet."""
        session = self._runner().session
        return session.value_or_raise(session.ask({"op": "describe", "target": str(target)}))

    def step(self, name: str, fn: Callable[[], Any]) -> Any:
        """Run ``fn()`` once and record its value; later passes get the recorded value."""
        session = self._runner().session
        if not callable(fn):
            raise TypeError("codemode.step(name, fn) needs a function of no arguments, e.g. lambda: time.time()")
        reply = session.local_replay(STEP_METHOD_CONNECTOR, str(name), None) or \
            session.ask({"op": "step", "name": str(name)})
        if not reply.get("run"):
            return session.value_or_raise(reply)
        try:
            value = fn()
        except Exception as exc:
            session.ask({"op": "step_done", "name": str(name),
                         "raise": {"type": type(exc).__name__, "message": str(exc)}})
            raise
        encoded = session.encode(value, f"the value of codemode.step({name!r})")
        reply = session.ask({"op": "step_done", "name": str(name), "value": encoded})
        return codec.decode(reply.get("value"))

    def run(self, name: str, input: Any = None) -> Any:
        """Run a saved snippet with ``input``; its calls join this execution's journal."""
        runner = self._runner()
        session = runner.session
        encoded = session.encode(input, f"the input of snippet {name!r}")
        reply = session.ask({"op": "snippet", "name": str(name), "input": encoded})
        if "code" not in reply:
            return session.value_or_raise(reply)
        return runner.run_snippet(str(reply["code"]), str(reply.get("filename", f"<snippet {name}>")),
                                  codec.decode(reply.get("input")))

    def __repr__(self) -> str:
        return "<codemode: search(query), describe(target), step(name, fn), run(name, input)>"


# ---------------------------------------------------------------------------------------
# Running a pass


class _PrintCollector:
    """RestrictedPython's print hook, streaming to the session with a cap."""

    def __init__(self, session: _Session) -> None:
        self.session = session
        self.txt: list[str] = []

    def __call__(self, _getattr_: Any = None) -> _PrintCollector:
        return self

    def write(self, text: str) -> None:
        self.session.write(text)

    def _call_print(self, *objects: Any, **kwargs: Any) -> None:
        kwargs.pop("file", None)
        kwargs.pop("flush", None)
        sep = kwargs.get("sep", " ")
        end = kwargs.get("end", "\n")
        text = (" " if sep is None else str(sep)).join(str(o) for o in objects)
        self.write(text + ("\n" if end is None else str(end)))


class _Runner:
    def __init__(self, session: _Session, namespaces: Mapping[str, Sequence[str]]) -> None:
        self.session = session
        self.namespaces = namespaces
        self.codemode = CodemodeApi(self)
        self.snippet_depth = 0

    def base_globals(self) -> dict[str, Any]:
        g: dict[str, Any] = {
            "__builtins__": BUILTINS,
            "__name__": SANDBOX_MODULE,
            "__metaclass__": type,
            "__codemode_return__": _Return,
            "__codemode_type__": type,
            "__codemode_writable__": _WRITABLE,
            "_getattr_": _guarded_getattr,
            "_getitem_": default_guarded_getitem,
            "_getiter_": iter,
            "_write_": _write_guard,
            "_inplacevar_": _inplacevar,
            "_apply_": _apply,
            "_unpack_sequence_": guarded_unpack_sequence,
            "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
            "_print_": _PrintCollector(self.session),
        }
        g.update(MODULES)
        for name, methods in self.namespaces.items():
            g[name] = ConnectorProxy(self.session, name, frozenset(methods))
        g["codemode"] = self.codemode
        return g

    def run_snippet(self, source: str, filename: str, value: Any) -> Any:
        if self.snippet_depth >= 8:
            raise RuntimeError("snippets are nested more than 8 deep")
        code = compile_cell(source, filename)
        g = self.base_globals()
        g["input"] = value
        self.snippet_depth += 1
        try:
            return _exec(code, g)
        finally:
            self.snippet_depth -= 1


def _exec(code: CodeType, g: dict[str, Any]) -> Any:
    try:
        exec(code, g)
    except _Return as ret:
        return ret.value
    return g.get("__codemode_result__")


def _error_lineno(exc: BaseException, filename: str) -> int | None:
    lineno = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename:
            lineno = frame.lineno
    return lineno


def _format_traceback(exc: BaseException, source: str) -> str:
    lines = source.splitlines()
    out = []
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename.startswith("<") and frame.lineno:
            text = ""
            if frame.filename == CELL_FILENAME and 0 < frame.lineno <= len(lines):
                text = lines[frame.lineno - 1].strip()
            where = "cell" if frame.filename == CELL_FILENAME else frame.filename.strip("<>")
            out.append(f"  {where}, line {frame.lineno}" + (f": {text}" if text else ""))
    return "\n".join(out)


def run_pass(
    source: str,
    namespaces: Mapping[str, Sequence[str]],
    inputs: Mapping[str, Any],
    channel: Channel,
    *,
    max_output_chars: int = 1_000_000,
    max_calls: int = 10_000,
    max_result_chars: int = 10_000_000,
    out_of_memory_hint: str = "",
    capture_variables: bool = True,
    replay: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """Run one pass and return the ``done`` message: result, error, logs, variables.

    ``out_of_memory_hint`` is added to the message of a ``MemoryError`` (the isolated
    worker names its address-space limit there).
    """
    session = _Session(channel, namespaces, max_output_chars, max_calls, replay)
    runner = _Runner(session, namespaces)
    done: dict[str, Any] = {"op": "done"}
    try:
        code = compile_cell(source)
    except CompileFailed as exc:
        done["error"] = {"type": "SandboxViolation" if "SyntaxError" not in str(exc) else "SyntaxError",
                         "message": str(exc), "lineno": exc.lineno, "traceback": ""}
        done["logs"] = []
        return done
    g = runner.base_globals()
    reserved = set(g)
    for name, value in inputs.items():
        g[name] = codec.decode(value)
    result: Any = None
    try:
        result = _exec(code, g)
    except ExecutionAborted:
        pass
    except BaseException as exc:
        done["error"] = _describe_error(exc, source, g, reserved, out_of_memory_hint)
    if session.fatal is not None:
        done["error"] = {**session.fatal, "lineno": None, "traceback": ""}
    if "error" not in done and session.aborted is None:
        try:
            encoded = codec.encode(result, "the result")
            size = len(codec.dumps_encoded(encoded))
            if size > max_result_chars:
                done["error"] = {"type": "LimitExceeded", "message": (
                    f"the result is {size:,} characters; the limit is {max_result_chars:,} (max_result_chars). "
                    "Return a smaller value: a summary, a count, or the first rows."), "lineno": None,
                    "traceback": ""}
            else:
                done["result"] = encoded
        except codec.EncodeError as exc:
            done["error"] = {"type": "CodecError", "message": str(exc).replace("Cannot pass", "Cannot return"),
                             "lineno": None, "traceback": ""}
    done["logs"] = "".join(session.output).splitlines()
    done["variables"] = _collect_variables(g, reserved) if capture_variables and "error" not in done else {}
    return done


def _describe_error(exc: BaseException, source: str, g: Mapping[str, Any], reserved: set[str],
                    out_of_memory_hint: str = "") -> dict[str, Any]:
    message = str(exc)
    type_name = type(exc).__name__
    if isinstance(exc, NameError) and getattr(exc, "name", None):
        available = sorted(n for n in g if not n.startswith("_") and n not in MODULES)
        message = (f"name {exc.name!r} is not defined. Globals available: {', '.join(available)}; "
                   f"modules: {', '.join(sorted(MODULES))}.")
    elif isinstance(exc, RecursionError):
        message = "maximum recursion depth exceeded"
    elif isinstance(exc, MemoryError):
        type_name, message = "LimitExceeded", "the pass ran out of memory (MemoryError)"
        if out_of_memory_hint:
            message += "; " + out_of_memory_hint
    return {"type": type_name, "message": message, "lineno": _error_lineno(exc, CELL_FILENAME),
            "traceback": _format_traceback(exc, source)}


def _collect_variables(g: Mapping[str, Any], reserved: set[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in g.items():
        if name in reserved or name.startswith("_") or isinstance(value, ModuleType) or callable(value):
            continue
        try:
            encoded = codec.encode(value, name)
        except codec.EncodeError:
            continue
        if len(codec.dumps_encoded(encoded)) <= codec.MAX_VALUE_CHARS:
            out[name] = encoded
    return out

