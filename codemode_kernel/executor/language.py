"""The sandbox language: what cell code may say, compiled and guarded (RestrictedPython's one home).

It checks and compiles cell source (inside the worker: the compiler is an attack surface),
rewrites the checked tree (the last expression is the result; a top-level ``return`` is
accepted), and builds the guard functions and the allow-listed builtins and modules that
``sandbox.py`` puts in every pass's globals.

Design log:
- ``compile_restricted`` alone cannot express "the last expression is the result" or a
  top-level ``return``; we run RestrictedPython's transformer ourselves and then rewrite
  the *checked* tree (our injected names start with ``_`` so user code cannot name them).
- A pass gets each allow-listed module's *face* (``_face``), not the module: its public names, no
  ``__file__``/``__spec__`` (a module's repr and CPython's import errors showed the host's paths),
  public sets, dicts and lists as read-only copies (in process they were the host's own). The
  names' values are the module's own objects; in the in-process executor the write guard stops
  ``json.dumps = ...`` style poisoning, and ``random`` is a face over the executor's own generator
  (``own_random``). Rejected: the real modules with ``__file__`` hidden (they are the host's, in
  process), and proxy objects (every attribute read of ``json.dumps`` would pay a Python call).
- RestrictedPython is defence in depth and good error messages; the process is the
  boundary (DESIGN §11).
- A pass's compile does less for the same code (issue 12, s10w): a rewriter runs only when the
  cell's text holds what it rewrites (``return``; ``=`` or ``[``), and the nodes made after
  RestrictedPython's check are located as they are made (``_locate``), instead of
  ``ast.fix_missing_locations`` walking the whole tree (compile falls back to it if a node has no
  location). Same code objects, positions included (tests/executor/test_s10w_compile.py, and 350
  cells from the tests compared against the old pipeline). ``compile_cell`` timed in one process,
  the old and the new module alternating 15 times (300 compiles each), load 8: ``1 + 1`` 82.4 ->
  38.9 µs, a loop with ``+=`` and a subscript write 541 -> 411 µs, a call and a comprehension 260 ->
  190 µs (lower in 15, 14 and 14 of 15).
- ``_getitem_`` loads are inlined back to plain subscripts (``_FastGuards.visit_Call``) while the
  guard is RestrictedPython's ``default_guarded_getitem``, checked to be ``ob[index]`` on its bytecode
  (``GETITEM_IS_PLAIN``; s12s, issue 12). Same values, errors and evaluation order
  (tests/executor/test_review12_subscripts.py, 45 cases on both executors). A loop of subscript reads
  (``t += a[i] + a[i - 1]``, 200,000 times, CPU time in one process, medians of 9), 4 alternating runs
  at load 6.6-7.9: sandbox / plain exec 1.36, 1.26, 1.48, 1.32 -> 0.97, 0.99, 0.97, 0.97. The sieve
  of ``bench_executor`` reads a subscript only in its outer loop: its cost is the write check (next entry).
- A subscript write checked ``type(name) in _WRITABLE`` inline at every write (a call of ``type``,
  two name lookups and a set lookup): in the sieve that check was all of the sandbox's overhead
  (plain exec 24.3 ms, the cell 40.9, the cell with no check at all 24.1, CPU in one process). Each
  write site now keeps the container it last let through unchanged (``_FastGuards.visit_Subscript``,
  :func:`_write_slot`) and an ``is`` test passes the same object on; anything else calls the guard, as
  before. Same outcomes (tests/executor/test_s12s_write_slots.py, test_isolated_fast_guards.py,
  test_review12_subscripts.py; 12 write and refusal cases compared with the parent: identical values,
  errors, lines and tracebacks). A slot keeps its container alive until the site writes to another
  one (at most one object a site). The sieve through the isolated executor (``benchmarks/s12s_sieve.py``,
  medians of 5 per process, CPU time of the loop / plain exec's), 8 alternating rounds against df6fbe9
  at load 6.6-8.2: 1.73 -> 1.29 (lower in 7 of 8); the wall-clock ratio 1.81 -> 1.58 (7 of 8). Again
  against 50cf6f2 (review 12's fixes in), load 4.0-5.5: CPU 1.80 -> 1.47 (6 of 8), wall 2.14 -> 1.36
  (6 of 8), the loop's CPU in the sandbox 60.7 -> 43.1 ms. The slow draws (100-260 ms of wall for a
  ~25 ms loop) are CPU time too (33-85 ms CPU draws): contention from the load, not a wait.
- The ``_getattr_`` guard takes a short way for the connector proxy (``PLAIN_ATTRIBUTE_TYPES``):
  every attribute of it not starting with '_' is a method proxy or its name, so only the name's
  checks apply (same values and errors for every name: tests/executor/test_s10w_call_path.py).
"""

from __future__ import annotations

import abc as _abc
import ast
import base64 as _base64
import collections as _collections
import contextlib
import datetime as _datetime
import enum as _enum
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
import threading as _threading
import time as _time
import uuid as _uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import CodeType, MappingProxyType, ModuleType
from typing import Any

from RestrictedPython.Eval import default_guarded_getitem
from RestrictedPython.Guards import (
    full_write_guard,
    guarded_iter_unpack_sequence,
    guarded_unpack_sequence,
    safe_builtins,
    safer_getattr_raise,
)
from RestrictedPython.transformer import INSPECT_ATTRIBUTES, RestrictingNodeTransformer

CELL_FILENAME = "<cell>"
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

def _view(module: ModuleType, names: tuple[str, ...], why: str) -> ModuleType:
    """A module holding only ``names`` of ``module``: what the sandbox gets for ``import`` and for
    the module met as another module's attribute (``re.functools``). Any other name is an
    AttributeError that says what is available."""
    view = ModuleType(module.__name__, module.__doc__)
    view.__dict__.update({name: getattr(module, name) for name in names})

    def missing(name: str) -> Any:
        raise AttributeError(f"{module.__name__}.{name} is not available in Code Mode ({why}). "
                             f"Available from {module.__name__}: {', '.join(names)}.")

    view.__dict__["__getattr__"] = missing
    return view


#: Modules the sandbox sees through a view, by name. functools is one (review 12): its
#: ``update_wrapper``/``wraps`` get and set attributes the caller names, in unguarded stdlib code
#: (``updated=('__globals__',)`` merged language.py's globals, with the real builtins, into a
#: cell function's), and ``singledispatch(...).register`` evaluates a function's string
#: annotations with the plain ``eval``. An allow-list, as the notes on sandbox escapes say: the
#: C helpers and the decorators that take no attribute names.
VIEWS: dict[str, ModuleType] = {
    "functools": _view(_functools, ("cache", "cmp_to_key", "lru_cache", "partial", "reduce"),
                       "its other functions read and write attributes for the caller, past the guards"),
}
_VIEWED = tuple(VIEWS.values())
_MISSING = object()
class _ThisThread(_threading.local):
    #: Set by :func:`pass_modules` in an in-process pass's thread: the modules that pass gets instead
    #: of the shared faces (its own ``random``). A class default, so that reading it where it is not
    #: set raises nothing (a getattr default cost ~0.4 µs in every pass's globals).
    modules: Mapping[str, ModuleType] | None = None


_THIS_THREAD = _ThisThread()


def _read_only(value: Any) -> Any:
    """A module's public container as the sandbox sees it: a read-only copy (``hashlib.algorithms_available``
    was the host's own set, in process: ``.clear()`` in a cell emptied it for the host; s14v)."""
    t = type(value)
    if t is set:
        return frozenset(value)
    if t is dict:
        return MappingProxyType(dict(value))
    if t is list:
        return tuple(value)
    return value


def _face(module: ModuleType) -> ModuleType:
    """What the sandbox gets for an allow-listed module: its public names, nothing that says where it
    lives (no ``__file__``, ``__spec__`` or ``__path__``: ``repr(json)`` and CPython's "cannot import
    name" text showed the host's stdlib path; session 14's closing note), public containers read-only.

    Module-valued names are looked up at each use (``collections.abc``, ``statistics.random``), so
    they are faces too, or refused (``datetime.sys``), and an in-process pass's own modules apply.
    A name the module gains later is found through the module; names starting with '_' are not.
    """
    face = ModuleType(module.__name__, module.__doc__)
    face.__dict__.update({name: _read_only(value) for name, value in vars(module).items()
                          if not name.startswith("_") and not isinstance(value, ModuleType)})

    def attribute(name: str) -> Any:
        value = _MISSING if name.startswith("_") else getattr(module, name, _MISSING)
        if isinstance(value, ModuleType):
            if not _module_allowed(value):
                raise _refuse_module(face, name)
            return sandbox_module(value)
        if value is _MISSING:
            # Our own error: CPython's would carry the real module as its ``obj``.
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")
        return _read_only(value)

    def names() -> list[str]:
        return sorted(name for name, value in vars(module).items() if not name.startswith("_")
                      and (not isinstance(value, ModuleType) or _module_allowed(value)))

    face.__dict__["__getattr__"] = attribute
    face.__dict__["__dir__"] = names
    return face


#: Each allow-listed module's face, by name, made on first use (views are their own faces).
FACES: dict[str, ModuleType] = dict(VIEWS)


def sandbox_module(module: ModuleType) -> ModuleType:
    """The module a pass gets for ``module`` (allow-listed: :func:`_module_allowed`): the pass's own
    (:func:`pass_modules`), else its shared face."""
    name = module.__name__
    own = _THIS_THREAD.modules
    if own is not None and name in own:
        return own[name]
    face = FACES.get(name)
    if face is None:
        face = FACES.setdefault(name, _face(module))
    return face


def own_random(generator: _random.Random | None = None) -> ModuleType:
    """A face of ``random`` whose functions are ``generator``'s (a new one by default), not the
    module's shared generator. Each in-process executor gives its passes one, so that
    ``random.seed(...)`` in a cell does not reseed the host's generator. The isolated worker keeps
    the shared one: each worker is a process of its own, re-seeded when it is forked."""
    generator = generator or _random.Random()
    face = _face(_random)
    for name, value in vars(face).items():
        if isinstance(getattr(value, "__self__", None), _random.Random):  # random.seed is _inst.seed
            face.__dict__[name] = getattr(generator, name)
    return face


def own_uuid(own_node: int) -> ModuleType:
    """A face of ``uuid`` whose ``getnode()`` is ``own_node`` and whose ``uuid1()`` uses it: in process the
    module's are the host's network card address (review 15, noticed; the isolated worker has no
    network card and draws a random one)."""
    face = _face(_uuid)

    def getnode() -> int:
        """This sandbox's node: a random 48-bit number (multicast bit set, RFC 4122 4.5)."""
        return own_node

    def uuid1(node: int | None = None, clock_seq: int | None = None) -> _uuid.UUID:
        """A time-based UUID, with this sandbox's node unless ``node`` is given."""
        return _uuid.uuid1(own_node if node is None else node, clock_seq)

    face.__dict__.update(getnode=getnode, uuid1=uuid1)
    return face


def own_modules() -> dict[str, ModuleType]:
    """The modules an in-process executor's passes get instead of the shared faces: a ``random`` over a
    generator of its own and a ``uuid`` without the host's node (:func:`pass_modules`)."""
    generator = _random.Random()
    return {"random": own_random(generator), "uuid": own_uuid(generator.getrandbits(48) | 1 << 40)}


@contextlib.contextmanager
def pass_modules(modules: Mapping[str, ModuleType]) -> Iterator[None]:
    """Passes run in this thread meanwhile get ``modules`` instead of the shared faces (in-process only)."""
    before = _THIS_THREAD.modules
    _THIS_THREAD.modules = modules
    try:
        yield
    finally:
        _THIS_THREAD.modules = before


MODULES.update({name: sandbox_module(module) for name, module in MODULES.items()})

LANGUAGE_RULES = (
    "Python (RestrictedPython): the value of the last expression is the result (a top-level `return` "
    "works too); print() output becomes logs. No async/await, match, except*, or names/attributes "
    "starting with '_'. No open, eval, exec, compile, globals, vars, files, network or processes. "
    f"Modules available (pre-imported, `import` works): {', '.join(sorted(MODULES))}."
)


class ConnectorError(Exception):
    """A connector call failed on the host. Code may catch it."""


class ArgumentError(ConnectorError):
    """Arguments did not match the method's input schema; the connector was not called."""


class OutcomeUnknown(ConnectorError):
    """The request went out and no answer came: the service may have done it. It is not run again on a
    replay; check with the service (a method that reads) before calling it again (review 15x, M12)."""


class CompileFailed(Exception):
    def __init__(self, errors: Sequence[str], lineno: int | None) -> None:
        self.errors = list(errors)
        self.lineno = lineno
        super().__init__("\n".join(self.errors))

    def message(self, kind: str) -> str:
        """The text a pass's error carries: one problem without its ``Line N: `` and ``kind: `` (the line
        travels apart, ``lineno``, and each front end says it once); several, one per line as they are."""
        if len(self.errors) != 1:
            return str(self)
        text = self.errors[0]
        m = _LINE_RE.match(text)
        if m is not None and self.lineno == int(m.group(1)) and text[m.end():].startswith(": "):
            text = text[m.end() + 2:]
        return text.removeprefix(f"{kind}: ")


class TopLevelReturn(BaseException):
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
        made: list[ast.AST] = []
        value = node.value
        if value is None:
            value = ast.Constant(value=None)
            made.append(value)
        name = ast.Name("__codemode_return__", ast.Load())
        call = ast.Call(func=name, args=[value], keywords=[])
        new = ast.Raise(exc=call, cause=None)
        _locate(node, new, call, name, *made)
        return new


_AUG_OPS: dict[str, type[ast.operator]] = {
    "+=": ast.Add, "-=": ast.Sub, "*=": ast.Mult, "/=": ast.Div, "//=": ast.FloorDiv, "%=": ast.Mod,
    "**=": ast.Pow, "<<=": ast.LShift, ">>=": ast.RShift, "&=": ast.BitAnd, "|=": ast.BitOr,
    "^=": ast.BitXor, "@=": ast.MatMult,
}


def _plain_getitem(ob: Any, index: Any) -> Any:
    return ob[index]


_CODE_KIND = 0xFFFF  # the code's own flags (varargs, generator, ...); the bits above are __future__ imports


def _is_plain_getitem(fn: Any) -> bool:
    """Whether ``fn`` is exactly :func:`_plain_getitem`: the same bytecode, constants and names, and
    nothing bound to it (no defaults, no closure)."""
    code, plain = getattr(fn, "__code__", None), _plain_getitem.__code__
    return (isinstance(code, CodeType) and code.co_code == plain.co_code and code.co_consts == plain.co_consts
            and code.co_names == plain.co_names and code.co_argcount == plain.co_argcount
            and code.co_kwonlyargcount == 0 and code.co_flags & _CODE_KIND == plain.co_flags & _CODE_KIND
            and not getattr(fn, "__defaults__", None) and not getattr(fn, "__kwdefaults__", None)
            and not getattr(fn, "__closure__", None))


#: The ``_getitem_`` guard every pass's globals hold (:func:`guard_globals`).
GETITEM_GUARD: Callable[[Any, Any], Any] = default_guarded_getitem
#: Whether that guard is the plain subscript ``ob[index]`` (RestrictedPython 9.0's
#: ``default_guarded_getitem`` is, comment and all): only then does :class:`_FastGuards` inline it.
#: Checked on the bytecode, so a later RestrictedPython whose default grows a check keeps its calls.
GETITEM_IS_PLAIN = _is_plain_getitem(GETITEM_GUARD)


class _FastGuards(ast.NodeTransformer):
    """Inline, in the *checked* tree, the guard calls whose policy here is the plain operation.

    ``_inplacevar_`` is exactly ``operator.i<op>`` (see :func:`_inplacevar`), so
    ``x = _inplacevar_('+=', x, y)`` becomes ``x += y`` again; ``_write_(name)[k] = v``
    skips the guard call when ``name`` is the container this write site last let through
    unchanged (its slot, see :meth:`visit_Subscript`), and calls it otherwise.
    ``_getitem_(ob, index)`` becomes ``ob[index]`` again when the guard is the plain subscript
    (:data:`GETITEM_IS_PLAIN`): RestrictedPython hands the subscript's own slice node (an
    ``ast.Slice``, a tuple of them, a starred key) to the call, so the subscript rebuilt from it
    evaluates the same operands in the same order and raises the same errors; only the guard's
    Python frame is gone (tracebacks show the cell's frames only). ``_getitem_`` cannot be named
    by cell code (a name starting with '_'), so every such call is RestrictedPython's.
    Same behaviour, but a Python call less per operation: a pure-Python loop ran ~3x slower
    than plain CPython with the calls (issue 3 asks for at most 3x).
    """

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if (GETITEM_IS_PLAIN and isinstance(func, ast.Name) and func.id == "_getitem_" and len(node.args) == 2
                and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)):
            return ast.copy_location(ast.Subscript(value=node.args[0], slice=node.args[1], ctx=ast.Load()), node)
        return node

    def __init__(self) -> None:
        self.slots: list[str] = []  # one per write site: the container it last let through (see visit_Subscript)

    def visit_Module(self, node: ast.Module) -> ast.AST:
        self.generic_visit(node)
        if self.slots:  # every write site's slot is bound before any code of the cell runs
            at = 0
            while at < len(node.body) and isinstance(node.body[at], ast.ImportFrom) \
                    and getattr(node.body[at], "module", None) == "__future__":  # they stay first (the compiler's rule)
                at += 1
            init = ast.Assign(targets=[ast.Name(slot, ast.Store()) for slot in self.slots], value=ast.Constant(None))
            _locate(node.body[min(at, len(node.body) - 1)], init, init.value, *init.targets)
            node.body.insert(at, init)
        return node

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        guard = node.value
        if (isinstance(node.ctx, ast.Store | ast.Del) and isinstance(guard, ast.Call)
                and isinstance(guard.func, ast.Name) and guard.func.id == "_write_" and not guard.keywords
                and len(guard.args) == 1 and isinstance(guard.args[0], ast.Name)):
            # name[k] = v  ->  (name if name is __codemode_w<i>__ else __codemode_write__(name, <slot>))[k] = v
            # The slot holds the container this site last let through unchanged (its type exactly one of
            # _WRITABLE: _write_slot). Holding it keeps it alive, so "is" means that very object, whose
            # type has not changed: cell code cannot assign __class__ (a '_' attribute, no setattr).
            name = guard.args[0].id
            slot = f"__codemode_w{len(self.slots)}__"
            self.slots.append(slot)
            made = [ast.Name(name, ast.Load()), ast.Name(slot, ast.Load()), ast.Name(name, ast.Load()),
                    ast.Name("__codemode_write__", ast.Load()), ast.Name(name, ast.Load()), ast.Constant(slot)]
            same = ast.Compare(left=made[0], ops=[ast.Is()], comparators=[made[1]])
            call = ast.Call(func=made[3], args=[made[4], made[5]], keywords=[])
            node.value = ast.IfExp(test=same, body=made[2], orelse=call)
            _locate(node, node.value, same, call, *made)
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        self.generic_visit(node)
        call = node.value
        if (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name) and call.func.id == "_inplacevar_" and len(call.args) == 3
                and isinstance(call.args[0], ast.Constant) and call.args[0].value in _AUG_OPS
                and isinstance(call.args[1], ast.Name) and call.args[1].id == node.targets[0].id):
            target = ast.copy_location(ast.Name(node.targets[0].id, ast.Store()), node)
            return ast.copy_location(ast.AugAssign(target=target, op=_AUG_OPS[call.args[0].value](),
                                                   value=call.args[2]), node)
        return node


def _locate(old: ast.AST, *made: ast.AST) -> None:
    """Give the nodes made here ``old``'s location (the node they stand for): what
    ``ast.fix_missing_locations`` gives them, without walking the whole tree. RestrictedPython
    locates the nodes it makes itself (``copy_locations``)."""
    for node in made:
        ast.copy_location(node, old)


_LINE_RE = _re.compile(r"Line (\d+)")


def _refuse_printed(tree: ast.Module) -> None:
    """RestrictedPython compiles a read of the name ``printed`` to a call of the function's print
    collector, which here streams instead of collecting: what it returned was the collector itself,
    and through it the pass's session (review 13). Code Mode has no ``printed``."""
    lines = sorted({n.lineno for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "printed"})
    if lines:
        raise CompileFailed([f"Line {line}: the name 'printed' is not available in Code Mode: print() shows its "
                             "text as the cell runs; to keep text, collect it in a list and join it"
                             for line in lines], lines[0])


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
    if "printed" in source:
        _refuse_printed(tree)
    errors: list[str] = []
    warnings: list[str] = []
    try:
        RestrictingNodeTransformer(errors, warnings, {}).visit(tree)
    except RecursionError:
        raise CompileFailed(["The code is too deeply nested to compile (RecursionError)."], None) from None
    if errors:
        lines = [int(m.group(1)) for e in errors if (m := _LINE_RE.search(e))]
        raise CompileFailed([_explain_compile_error(e) for e in errors], lines[0] if lines else None)
    # Each rewriter walks the whole tree (~15 µs for `1 + 1`, more for longer cells, issue 12), and
    # each has nothing to do in a cell whose text lacks what it rewrites: a Return node needs the
    # keyword `return` in the source; the guard calls _FastGuards inlines come from an augmented
    # assignment (its operator ends in "=") or a subscript read, written or deleted (a "[").
    if "return" in source:
        tree = _TopLevelRewriter().visit(tree)
    if "=" in source or "[" in source:
        tree = _FastGuards().visit(tree)
    body = tree.body
    if body and isinstance(body[-1], ast.Expr):
        last = body[-1]
        target = ast.Name("__codemode_result__", ast.Store())
        body[-1] = ast.Assign(targets=[target], value=last.value)
        _locate(last, body[-1], target)
    try:
        try:
            # Every node made above is located (_locate), so no walk of the whole tree for the
            # ones without a place (ast.fix_missing_locations: ~15 µs for `1 + 1`, issue 12) ...
            return compile(tree, filename, "exec")
        except TypeError:
            # ... unless RestrictedPython made one without a location: then they are filled in.
            ast.fix_missing_locations(tree)
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


#: Container types a cell may write items into. Only the cell makes them: values from the host
#: arrive as JSON (dicts and lists it owns), and no allow-listed module offers a public instance
#: of the collections types (review 12: ``Counter()[k] = v`` was refused as if unsupported).
_WRITABLE = frozenset({dict, list, set, bytearray, _collections.Counter, _collections.defaultdict,
                       _collections.OrderedDict, _collections.deque})


def _write_slot(g: dict[str, Any]) -> Callable[[Any, str], Any]:
    """The write guard of a pass's globals ``g`` as inlined write sites call it: like :func:`_write_guard`,
    and a container it lets through unchanged is kept in the site's slot in ``g``, so that the site's next
    write to the same object skips the call (``_FastGuards.visit_Subscript``)."""

    def write(ob: Any, slot: str) -> Any:
        if type(ob) in _WRITABLE:
            g[slot] = ob
            return ob
        return _write_guard(ob)

    return write


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


def _refuse_factory(owner: Any, name: str) -> AttributeError:
    """A memberless enum class (``uuid.Enum`` is ``enum.Enum``): its functional API,
    ``Enum('X', {...})``, builds a class from a dict, dunders included (review 12)."""
    where = owner.__name__ if isinstance(owner, ModuleType | type) else type(owner).__name__
    return AttributeError(f"{where}.{name} is an enum base class, which is not available in Code Mode")


#: Attribute names that take a format string (see ``_guarded_getattr``).
_FORMATTERS = frozenset({"format", "format_map"})


def _owner_name(owner: Any) -> str:
    return owner.__name__ if isinstance(owner, ModuleType | type) else type(owner).__name__


def _refuse_module(owner: Any, name: str) -> AttributeError:
    where = owner.__name__ if isinstance(owner, ModuleType) else type(owner).__name__
    return AttributeError(f"{where}.{name} is a module that is not available in Code Mode. "
                          f"Available modules: {', '.join(sorted(MODULES))}.")


#: Types whose every attribute not starting with '_' is something the sandbox made for the pass
#: (``sandbox.py`` adds its connector proxy: method proxies and the connector's name): never a
#: module, a ``str`` or a ``string.Formatter``, so of ``safer_getattr``'s checks and the module
#: walk's only the name's are left to make. The guard takes that short way for them: a
#: connector call's ``conn.method`` cost 1.6 µs in the guard, 0.4 with it (issue 12).
PLAIN_ATTRIBUTE_TYPES: set[type] = set()


def _guarded_getattr(ob: Any, name: str) -> Any:
    """The ``_getattr_`` guard: RestrictedPython's, plus no walking from module to module.

    ``safer_getattr`` lets ``re.enum.sys.modules['os']`` (or ``datetime.sys``, ``uuid.os``)
    through: modules the allow-list never offered, reached as attributes of allowed ones.
    """
    if type(ob) in PLAIN_ATTRIBUTE_TYPES and type(name) is str and not name.startswith("_") \
            and name not in INSPECT_ATTRIBUTES:
        return getattr(ob, name)
    if isinstance(ob, ModuleType) and not _module_allowed(ob):
        raise _refuse_module(ob, name)
    if name == "mro" and isinstance(ob, type):
        # The public twin of __mro__: re.RegexFlag.mro() reached the memberless enum.Enum, whose
        # functional API, Enum('X', {...}), builds a class with dunders (review 12).
        raise AttributeError(f"{ob.__name__}.mro is not available in Code Mode")
    if name in _FORMATTERS and (isinstance(ob, str) or (isinstance(ob, type) and issubclass(ob, str))):
        # RestrictedPython refuses these too ('Using the format*() methods of `str` is not safe'), without
        # saying what to write instead (review 14x H6).
        raise NotImplementedError(f"str.{name}() is not available in Code Mode (a format string can read "
                                  "attributes past the sandbox's checks); use an f-string, e.g. f'{n:,}' or "
                                  "f'{name:>10}', or format(n, ',')")
    if name in _FORMATTERS and (isinstance(ob, _collections.UserString)
                                or (isinstance(ob, type) and issubclass(ob, _collections.UserString))):
        # str.format's field names walk attributes and items past every guard ('{0.__class__}');
        # RestrictedPython refuses them on str and string.Formatter, and collections.UserString's
        # forward to str.format in library code (review 13). (A connector may have a method so named.)
        raise AttributeError(f"{_owner_name(ob)}.{name} is not available in Code Mode (a format string can read "
                             "attributes past the sandbox's checks); use an f-string, e.g. f'{x:>10}'")
    if name == "register" and isinstance(ob, _abc.ABCMeta):
        # An ABC's registry is process-wide: Mapping.register(str) made every later check of the
        # interpreter that ran the cell answer wrong (the host's own, in process; review 13).
        raise AttributeError(f"{_owner_name(ob)}.register is not available in Code Mode (it changes every "
                             "isinstance() check of the process); subclass the ABC in a class statement instead")
    value = safer_getattr_raise(ob, name)  # type: ignore[no-untyped-call]
    if isinstance(value, _enum.EnumType) and not value.__members__:
        raise _refuse_factory(ob, name)
    if isinstance(value, ModuleType):
        if not _module_allowed(value):
            raise _refuse_module(ob, name)
        return sandbox_module(value)
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


def _safe_type(ob: Any, *more: Any) -> Any:
    """``type(x)`` only; the three-argument form could build classes with dunders. The type of a
    class is this function again, not its metaclass (``type`` itself, ``ABCMeta``), which would
    build classes with the three-argument form (review 12)."""
    if more:
        raise TypeError("type() takes one argument in Code Mode: the three-argument form, which builds "
                        "classes, is not available; write a class statement instead.")
    return _safe_type if isinstance(ob, type) else type(ob)


#: Private stdlib modules that the C code of an allow-listed module imports on first use through the
#: running frame's ``__import__`` (``PyImport_Import``: the builtins of the cell's globals, so this
#: guard): ``datetime.datetime.strptime`` and ``time.strptime`` import ``_strptime`` (review 14x H6).
#: ``PyImport_Import`` calls ``__import__(name, globals, globals, [], 0)`` and then takes the module
#: from ``sys.modules``, not from what ``__import__`` answered: so the guard loads it (the isolated
#: worker has preloaded it, ``confinement.preload``; in process the first call loads it) and answers
#: ``None``. Cell code cannot name these modules (RestrictedPython refuses ``import _strptime``;
#: ``from _strptime import x`` passes a tuple, never an empty list), and were it to, it would get
#: ``None``, not the module.
C_LAZY_IMPORTS = frozenset({"_strptime"})


def _import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
    if name in C_LAZY_IMPORTS and type(fromlist) is list and not fromlist and level == 0:
        __import__(name)
        return None
    parts = name.split(".")
    refusal = ImportError(
        f"module {name!r} is not available in Code Mode. Available modules: {', '.join(sorted(MODULES))}. "
        "Reach the outside world through the connector globals instead."
    )
    if level != 0 or parts[0] not in MODULES or any(p.startswith("_") for p in parts):
        raise refusal
    real = __import__(name, None, None, fromlist or (), 0)
    module = sandbox_module(real)
    # `from datetime import sys` fetches the attribute in C, past the _getattr_ guard.
    for item in fromlist or ():
        value = getattr(real, str(item), None)
        if isinstance(value, ModuleType) and value.__name__ in VIEWS:
            raise ImportError(f"cannot import {item!r} from {name!r}: write `import {value.__name__}`.")
        if isinstance(value, _enum.EnumType) and not value.__members__:
            raise ImportError(f"cannot import {item!r} from {name!r}: {_refuse_factory(module, str(item))}.")
        if module in _VIEWED and str(item) not in vars(module):
            raise ImportError(f"cannot import {item!r} from {name!r}: it is not available in Code Mode. "
                              f"Available from {name}: {', '.join(k for k in vars(module) if not k.startswith('_'))}.")
        if isinstance(value, ModuleType) and not _module_allowed(value):
            raise ImportError(f"cannot import {item!r} from {name!r}: it is a module that is not available in "
                              f"Code Mode. Available modules: {', '.join(sorted(MODULES))}.")
        if getattr(module, str(item), _MISSING) is _MISSING:
            # CPython's own text names the module's file, and its ImportError carries it as ``path``:
            # the host's stdlib path (session 14's closing note).
            raise ImportError(f"cannot import name {item!r} from {name!r}", name=name)
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
            "OutcomeUnknown": OutcomeUnknown,
        }
    )
    return b


BUILTINS = _builtins()


def shadowed(name: str) -> str | None:
    """What a connector called ``name`` would hide from a cell's code (a pre-imported module, a builtin,
    the codemode API), in words; None when nothing (review 15x M17: the kernel's connect() refuses such a
    name, a codemode.toml table with one is reported as a problem)."""
    if name == "codemode":
        return "the codemode API (codemode.search, describe, run)"
    if name == "print":  # RestrictedPython's, not in the builtins table
        return "the builtin print()"
    if name in MODULES:
        return f"the module {name} (pre-imported in every cell)"
    if name in BUILTINS and not name.startswith("_"):
        return f"the builtin {name}()" if callable(BUILTINS[name]) else f"the builtin {name}"
    return None


def guard_globals(print_collector: Any) -> dict[str, Any]:
    """The guard contract: every name RestrictedPython's rewritten code calls, plus builtins and modules.

    One dict, built here only, so what a pass can reach is decided in one place.
    """
    g: dict[str, Any] = {
        "__builtins__": BUILTINS,
        "__name__": SANDBOX_MODULE,
        "__metaclass__": type,
        "__codemode_return__": TopLevelReturn,
        "_getattr_": _guarded_getattr,
        "_getitem_": GETITEM_GUARD,
        "_getiter_": iter,
        "_write_": _write_guard,
        "_inplacevar_": _inplacevar,
        "_apply_": _apply,
        "_unpack_sequence_": guarded_unpack_sequence,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
        "_print_": print_collector,
    }
    g.update(MODULES)
    own = _THIS_THREAD.modules
    if own:
        g.update(own)
    g["__codemode_write__"] = _write_slot(g)
    return g
