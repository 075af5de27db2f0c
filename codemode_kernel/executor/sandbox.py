"""The sandbox runner: what runs *inside* a pass, in the worker (or the in-process twin).

It builds each pass's restricted globals from the language (``language.py``: compilation,
guards, builtins, modules), creates the connector proxies and the ``codemode`` object, runs
the code, and reports the outcome as a JSON-ready dict. It talks to the host only through a
:class:`Channel` of JSON messages (see ``base.py``).

It must import nothing from the host side of the package (runtime, store, connectors):
the worker imports it from a clean interpreter.

Design log (issue 12, s10w): a connector call is the sandbox's hottest path. ``_Session.call``
sends its request itself (the same message, keys in the same order, as ``ask``) without the checks
``ask`` makes for other requests; a connector's made method proxies are found by
``ConnectorProxy.__getattribute__`` before the ordinary lookup fails (0.94 -> 0.25 µs) and by the
guard's short way (``language.PLAIN_ATTRIBUTE_TYPES``); a method proxy names its arguments for an
encoding error once. Replay compares a call's canonical arguments with the pass's own C encoder
(``_Session.canonical``; codec's options, one encoder per pass instead of one per call). Figures in
``worker.py``'s log.

A pass's carried-over variables are serialized once: ``_collect_variables`` keeps them within the
worker's budget (``max_result_chars``, first come first) from the serialization that checks each
one's size; the worker serialized every value again to trim them. A pass that leaves 500 rows
(``benchmarks/s10w_worker.py vars``, run line to done line in one process), 6 alternating rounds
from clean trees (b3d49d1 vs the change) at load 9.1-10.5: 7.88 -> 6.64 ms (lower in 6 of 6).

Measured and not kept (issue 12, s10w): a call's plain value returned without ``codec.decode``'s
walk, a replayed entry's value returned without the reply dict and ``value_or_raise``, and the
canonical encoder made on the pass's first replayed call: 10 alternating rounds at load ~10 (clean
trees), the sandbox's Python per call 11.66 -> 12.25 µs (lower in 4 of 10), local replay per
recorded call 9.31 -> 9.10 µs (6 of 10): below what this machine resolves.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import json
import traceback
from collections.abc import Callable, Mapping, Sequence
from types import CodeType, ModuleType
from typing import Any, NoReturn, Protocol

from codemode_kernel import codec
from codemode_kernel.errors import LimitExceeded, SandboxViolation
from codemode_kernel.executor.base import MAX_REQUEST_TEXT, OUTPUT_MESSAGE_COST
from codemode_kernel.executor.language import (
    CELL_FILENAME,
    MODULES,
    PLAIN_ATTRIBUTE_TYPES,
    ArgumentError,
    CompileFailed,
    ConnectorError,
    OutcomeUnknown,
    TopLevelReturn,
    compile_cell,
    guard_globals,
)
from codemode_kernel.executor.stream import OutputStream, output_stream

STEP_METHOD_CONNECTOR = "codemode.step"  # the journal's connector name for steps (models.STEP_CONNECTOR)


class Channel(Protocol):
    """The sandbox's only door to the host."""

    def request(self, message: dict[str, Any]) -> dict[str, Any]: ...

    def notify(self, message: dict[str, Any]) -> None: ...


# Requests whose text field the host limits, and what to call it in the error.
_TEXT_FIELDS = {"search": ("query", "codemode.search: the query"),
                "describe": ("target", "codemode.describe: the target"),
                "step": ("name", "codemode.step: the name"), "snippet": ("name", "codemode.run: the snippet name")}
_COUNTED = frozenset(_TEXT_FIELDS)


def _error_for_host(error: Mapping[str, Any]) -> dict[str, str]:
    """An error as the host accepts it: a plain type name and a message of bounded length (the
    code keeps its own exception; only the copy sent to the host is cut)."""
    type_name, message = str(error.get("type", "Error")), str(error.get("message", ""))
    if not (type_name.isascii() and type_name.isidentifier() and len(type_name) <= 100):
        type_name = "Error"
    if len(message) > MAX_REQUEST_TEXT:
        message = message[: MAX_REQUEST_TEXT - 40] + f"… ({len(message):,} characters, cut)"
    return {"type": type_name, "message": message}


class ExecutionAborted(BaseException):
    """The host ended this pass (an approval pause, a divergence, a limit).

    It derives from ``BaseException`` so ordinary ``except Exception`` does not catch it;
    catching it anyway changes nothing: the host refuses every later request.
    """


# ---------------------------------------------------------------------------------------
# Proxies


_C_MAKE_ENCODER: Callable[..., Any] | None = getattr(json.encoder, "c_make_encoder", None)


class _Session:
    """State of one pass inside the sandbox."""

    def __init__(self, channel: Channel, namespaces: Mapping[str, Sequence[str]], max_output_chars: int,
                 max_calls: int, replay: Sequence[Mapping[str, Any]] = (), output: OutputStream | None = None,
                 ) -> None:
        self.channel = channel
        # Printed text goes out in batches, and every request waits for the batch before it.
        self.stream = output if output is not None else output_stream(channel.notify, max_output_chars)
        # The journal's replayable prefix, sent by the host at pass start (see ``local_replay``).
        self.replay = list(replay)
        self.replayed = 0
        self.replaying = bool(self.replay)
        self.namespaces = {k: frozenset(v) for k, v in namespaces.items()}
        self.max_output_chars = max_output_chars
        self.max_calls = max_calls
        self.calls = 0
        self.output_chars = 0
        self.aborted: str | None = None
        self.fatal: dict[str, Any] | None = None
        # The name of the codemode.step whose function is running: a call, step or snippet run inside
        # it is refused (review 12). Its calls would take call numbers on the first pass only (later
        # passes return the step's recorded value without running the function), so every later call
        # number would shift and the next pass diverge, after an approved call inside it had run.
        self.in_step: str | None = None
        # codec.canonical_encoded's C encoder (its options), made once for the pass instead of once per
        # replayed call (issue 12), with its own dict of the containers being encoded: emptied after an
        # encoding that fails (the C encoder leaves the ones it was in), and the pass's alone.
        self._markers: dict[int, Any] = {}
        self._canonical = None if _C_MAKE_ENCODER is None else _C_MAKE_ENCODER(
            self._markers, json.JSONEncoder().default, json.encoder.encode_basestring, None, ":", ",", True,
            False, False)

    def refuse_in_step(self, what: str) -> NoReturn:
        raise RuntimeError(
            f"{what} inside codemode.step({self.in_step!r})'s function: a step records one value and later "
            "passes skip its function, so it cannot make connector calls, steps or snippet runs. Make the "
            "call outside the step (its result is journaled and replayed already) and pass its result in.")

    # -- host round trips
    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        if self.aborted is not None:
            raise ExecutionAborted(self.aborted)
        op = message.get("op")
        # Refused here with a clear message: the host would stop a worker that sent them (issue 10, item 8).
        checked = _TEXT_FIELDS.get(op)  # type: ignore[arg-type]
        if checked is not None:
            text = message.get(checked[0])
            if isinstance(text, str) and len(text) > MAX_REQUEST_TEXT:
                raise ValueError(f"{checked[1]} is {len(text):,} characters; the limit is {MAX_REQUEST_TEXT:,}. "
                                 "Use a short name or a few words.")
        if op in _COUNTED:  # each one costs the host work (a step also a journal entry)
            self.count()
        if "raise" in message:
            message["raise"] = _error_for_host(message["raise"])
        elif op == "fail":
            message.update(_error_for_host(message))
        # Every request says how much of the journal was replayed here, so the host's next seq
        # follows; once the host has been asked for a call, local replay is over.
        message["replayed"] = self.replayed
        if message.get("op") in ("call", "step"):
            self.replaying = False
        try:
            reply = self.stream.across(self.channel.request, message)
        except ValueError as exc:
            name = message.get("name")
            error = codec.request_error(exc, {"step_done": f"the value of codemode.step({name!r})",
                                               "snippet": f"the input of snippet {name!r}"}.get(str(op), "a request"))
            if error is None:
                raise
            self.fail("CodecError", str(error))
        if "abort" in reply:
            self.aborted = str(reply["abort"])
            raise ExecutionAborted(self.aborted)
        return reply

    def count(self) -> None:
        """Count one connector call or codemode request against ``max_calls``."""
        self.calls += 1
        if self.calls > self.max_calls:
            self.fail(LimitExceeded.__name__, f"the pass made more than {self.max_calls} connector calls and codemode "
                                       "requests (max_calls)")

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
            if type_name == "OutcomeUnknown":
                raise OutcomeUnknown(message)
            if type_name == "LookupError":
                raise LookupError(message)
            if type_name == "SearchOptionError":  # a discovery option the host refused (search connector=)
                raise ValueError(message)  # not ConnectorError: the program's own argument was wrong
            raise ConnectorError(message if type_name == "ConnectorError" else f"{type_name}: {message}")
        return codec.decode(reply.get("value"))

    def canonical(self, encoded: Any) -> str:
        """``codec.canonical_encoded(encoded)``: the same text, from the pass's own encoder."""
        if self._canonical is not None and type(encoded) is dict:
            try:
                return "".join(self._canonical(encoded, 0))
            except BaseException:
                self._markers.clear()
                raise
        return codec.canonical_encoded(encoded)

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
        if (entry.get("c"), entry.get("m")) != (connector, method) or entry.get("a") != self.canonical(encoded_args):
            self.replaying = False
            return None
        self.replayed += 1
        return {"raise": entry["r"]} if "r" in entry else {"value": entry.get("v")}

    def call(self, connector: str, method: str, args: tuple[Any, ...], kwargs: dict[str, Any],
             where: str | None = None) -> Any:
        """One connector call: counted, its arguments encoded (``where`` names them in an error),
        replayed from the plan or asked of the host, its value decoded or its error raised.

        The steps of :meth:`ask` that a call never needs (text limits, error fields) are left out,
        and the plan is only looked at while replaying: each Python call saved here is ~0.1 µs
        hot and more in a worker whose caches the host's turn has emptied (issue 12)."""
        if args:
            if len(args) == 1 and not kwargs and type(args[0]) is dict:
                kwargs = args[0]
            else:
                raise TypeError(
                    f"{connector}.{method}() takes keyword arguments (or one dict of arguments), "
                    f"not {len(args)} positional argument(s): call it as {connector}.{method}(name=value, ...)"
                )
        if self.in_step is not None:
            self.refuse_in_step(f"{connector}.{method}()")
        self.count()
        try:
            encoded = codec.encode(kwargs, where or f"the arguments of {connector}.{method}")
        except codec.EncodeError as exc:
            self.fail("CodecError", str(exc))
        if self.replaying:
            replayed = self.local_replay(connector, method, encoded)
            if replayed is not None:
                return self.value_or_raise(replayed)
        if self.aborted is not None:
            raise ExecutionAborted(self.aborted)
        # The same message, keys in the same order, as ask() sends for a call.
        self.replaying = False
        try:
            reply = self.stream.across(self.channel.request, {"op": "call", "connector": connector, "method": method,
                                                              "args": encoded, "replayed": self.replayed})
        except ValueError as exc:  # the line's JSON: an int too long to write (the in-process host refuses it so)
            error = codec.request_error(exc, where or f"the arguments of {connector}.{method}")
            if error is None:
                raise
            self.fail("CodecError", str(error))
        if "abort" in reply:
            self.aborted = str(reply["abort"])
            raise ExecutionAborted(self.aborted)
        if "raise" in reply:
            return self.value_or_raise(reply)
        return codec.decode(reply.get("value"))

    def write(self, text: str) -> None:
        if not text:
            return
        # Each print counts at least OUTPUT_MESSAGE_COST, so a flood of empty prints is bounded too.
        self.output_chars += max(len(text), OUTPUT_MESSAGE_COST)
        if self.output_chars > self.max_output_chars:
            self.fail(LimitExceeded.__name__, f"the pass printed more than {self.max_output_chars:,} characters "
                                       "(max_output_chars)")
        self.stream.write(text)



class MethodProxy:
    """A callable standing for ``connector.method``; it holds only names."""

    __slots__ = ("_codemode_session", "_codemode_where", "connector", "method")
    connector: str
    method: str

    def __init__(self, session: _Session, connector: str, method: str) -> None:
        object.__setattr__(self, "_codemode_session", session)
        object.__setattr__(self, "connector", connector)
        object.__setattr__(self, "method", method)
        # What an encoding error calls the arguments, made once rather than on every call.
        object.__setattr__(self, "_codemode_where", f"the arguments of {connector}.{method}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        get = object.__getattribute__
        session: _Session = get(self, "_codemode_session")
        return session.call(self.connector, self.method, args, kwargs, get(self, "_codemode_where"))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("connector methods are read-only")

    def __repr__(self) -> str:
        return f"<method {self.connector}.{self.method}>"


class ConnectorProxy:
    """The global standing for one connector; attribute access yields method proxies.

    Its only public attribute that is not a method is ``name``, the connector's name, and a method
    of the connector called ``name`` comes first: the name is kept in a private slot and given out
    by :meth:`__getattr__` only when no method has that name (a public slot ``name`` shadowed such
    a method, s11w). Every other public name is a method's or the refusal of an unknown one.
    """

    __slots__ = ("_codemode_made", "_codemode_methods", "_codemode_name", "_codemode_session")

    def __init__(self, session: _Session, name: str, methods: frozenset[str]) -> None:
        object.__setattr__(self, "_codemode_session", session)
        object.__setattr__(self, "_codemode_methods", methods)
        object.__setattr__(self, "_codemode_name", name)
        # Each method's proxy, made on its first use: a loop of calls looks the method up each
        # time (issue 12). A proxy holds only names and is read-only, so sharing it grants nothing.
        object.__setattr__(self, "_codemode_made", {})

    def __getattribute__(self, name: str) -> Any:
        # A method's proxy once made, without the failed ordinary lookup (and its AttributeError)
        # that comes before __getattr__: 0.94 -> 0.25 µs a lookup (issue 12). Only names made by
        # __getattr__ (the connector's methods) are in the dict; anything else is looked up as before.
        proxy = object.__getattribute__(self, "_codemode_made").get(name)
        if proxy is not None:
            return proxy
        return object.__getattribute__(self, name)

    def __getattr__(self, method: str) -> MethodProxy | str:
        made: dict[str, MethodProxy] = object.__getattribute__(self, "_codemode_made")
        methods: frozenset[str] = object.__getattribute__(self, "_codemode_methods")
        name: str = object.__getattribute__(self, "_codemode_name")
        if method not in methods:
            if method == "name":  # the connector's own name, when no method has that name
                return name
            listed = sorted(methods)
            shown = ", ".join(listed[:12]) + (f", … ({len(listed)} in all)" if len(listed) > 12 else "")
            raise AttributeError(
                f"connector {name!r} has no method {method!r}. Its methods: {shown or '(none)'}. "
                f"Use codemode.search('what you want to do') to find methods, "
                f"and codemode.describe('{name}.<method>') for their arguments."
            )
        proxy = made[method] = MethodProxy(object.__getattribute__(self, "_codemode_session"), name, method)
        return proxy

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("connectors are read-only")

    def __dir__(self) -> list[str]:
        return sorted(object.__getattribute__(self, "_codemode_methods"))

    def __repr__(self) -> str:
        return f"<connector {object.__getattribute__(self, '_codemode_name')}>"


PLAIN_ATTRIBUTE_TYPES.add(ConnectorProxy)


def _api(usage: str, params: tuple[str, ...]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A ``codemode`` function whose call with wrong arguments says so in the words the program used
    (``codemode.search(query, ...)``), never the class's name (review 15x, L5)."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return fn(self, *args, **kwargs)
            except TypeError as exc:
                # Raised by the call itself (its arguments did not bind), not by anything it ran.
                if exc.__traceback__ is None or exc.__traceback__.tb_next is not None:
                    raise
                reason = str(exc).split(") ", 1)[-1] if str(exc).startswith("CodemodeApi.") else str(exc)
                near = [p for k in kwargs if k not in params for p in params if p in k or k in p]
                hint = f" (did you mean {near[0]}?)" if near else ""
                raise TypeError(f"{usage}: {reason}{hint}") from None

        # update_wrapper also sets __wrapped__, so inspect.signature (the kernel's completion and inspect)
        # reads fn's own parameters, not (*args, **kwargs).
        functools.update_wrapper(call, fn)
        return call

    return wrap


#: What the ``codemode`` global offers, as a program calls it.
CODEMODE_USAGE = ("search(query, limit=10, connector=None), describe(target, page=1, full=False), step(name, fn) "
                  "and run(name, input)")


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

    @_api("codemode.search(query, limit=10, connector=None)", ("query", "limit", "connector"))
    def search(self, query: str, limit: int | None = None, connector: str | None = None) -> Any:
        """Rank connector methods and saved snippets for a natural-language query.

        ``limit`` (1-50, default 10) caps the results; ``connector`` keeps one connector's
        methods (``'codemode'``: snippets).
        """
        if limit is not None and (type(limit) is not int or not 1 <= limit <= 50):
            raise ValueError(f"codemode.search(query, limit=...): limit must be a whole number from 1 to 50, "
                             f"not {limit!r}")
        if connector is not None and not isinstance(connector, str):
            raise TypeError("codemode.search(query, connector=...): connector must be a name such as 'github'")
        session = self._runner().session
        return session.value_or_raise(session.ask({"op": "search", "query": str(query), "limit": limit,
                                                   "connector": None if connector is None else str(connector)}))

    @_api("codemode.describe(target, page=1, full=False)", ("target", "page", "full"))
    def describe(self, target: str, page: int = 1, full: bool = False) -> Any:
        """Python declarations for a connector (paged), a method (``conn.method``), an argument
        (``conn.method.arg``), a result (``conn.method.return``) or a snippet; ``full=True`` for
        every nested type. An unknown target answers ``{'kind': 'not_found', 'error', 'suggestions'}``."""
        if type(page) is not int or page < 1:
            raise ValueError(f"codemode.describe(target, page=...): page must be a whole number from 1, not {page!r}")
        if type(full) is not bool:
            raise TypeError("codemode.describe(target, full=...): full must be True or False")
        session = self._runner().session
        return session.value_or_raise(session.ask({"op": "describe", "target": str(target), "page": page,
                                                   "full": full}))

    @_api("codemode.step(name, fn)", ("name", "fn"))
    def step(self, name: str, fn: Callable[[], Any]) -> Any:
        """Run ``fn()`` once and record its value; later passes get the recorded value."""
        session = self._runner().session
        if not callable(fn):
            raise TypeError("codemode.step(name, fn) needs a function of no arguments, e.g. lambda: time.time()")
        if "\x00" in str(name):  # no journal keeps it (PostgreSQL refuses it): refused before it takes a call number
            raise ValueError("a step's name cannot contain a NUL character (U+0000); give the step a name without it")
        if len(str(name)) > codec.MAX_NAME_CHARS:  # as for a NUL: the journal's name column is bounded (review 14)
            raise ValueError(f"a step's name is {len(str(name)):,} characters; the limit is {codec.MAX_NAME_CHARS}: "
                             "give the step a shorter name")
        if session.in_step is not None:
            session.refuse_in_step(f"codemode.step({name!r})")
        if not str(name).isascii():
            try:
                codec.check_storable(str(name), "a step's name")
            except codec.EncodeError as exc:  # as for a NUL: refused before it takes a call number
                raise ValueError(str(exc)) from None
        reply = session.local_replay(STEP_METHOD_CONNECTOR, str(name), None) or \
            session.ask({"op": "step", "name": str(name)})
        if not reply.get("run"):
            return session.value_or_raise(reply)
        session.in_step = str(name)
        try:
            value = fn()
        except BaseException as exc:
            # Any end but the host's own (ExecutionAborted) is reported, SystemExit or a cell's
            # BaseException included: code may catch it and go on, and the host must not see the
            # step as still running (review 12).
            if not isinstance(exc, ExecutionAborted):
                session.ask({"op": "step_done", "name": str(name),
                             "raise": {"type": type(exc).__name__, "message": str(exc)}})
            raise
        finally:
            session.in_step = None
        encoded = session.encode(value, f"the value of codemode.step({name!r})")
        reply = session.ask({"op": "step_done", "name": str(name), "value": encoded})
        return codec.decode(reply.get("value"))

    @_api("codemode.run(name, input)", ("name", "input"))
    def run(self, name: str, input: Any = None) -> Any:
        """Run a saved snippet with ``input``; its calls join this execution's journal."""
        runner = self._runner()
        session = runner.session
        if session.in_step is not None:
            session.refuse_in_step(f"codemode.run({name!r})")
        if not codec.storable_name(str(name)):  # a name no journal holds names no snippet (review 15)
            raise LookupError(codec.UNSTORABLE_SNIPPET_NAME)
        encoded = session.encode(input, f"the input of snippet {name!r}")
        reply = session.ask({"op": "snippet", "name": str(name), "input": encoded})
        if "code" not in reply:
            return session.value_or_raise(reply)
        return runner.run_snippet(str(reply["code"]), str(reply.get("filename", f"<snippet {name}>")),
                                  codec.decode(reply.get("input")))

    def __getattr__(self, name: str) -> Any:  # only for a name the class does not have
        raise AttributeError(f"codemode has no {name!r}; it has {CODEMODE_USAGE}")

    def __repr__(self) -> str:
        return f"<codemode: {CODEMODE_USAGE}>"


# ---------------------------------------------------------------------------------------
# Running a pass


class _PrintCollector:
    """RestrictedPython's print hook, streaming to the session with a cap."""

    def __init__(self, session: _Session) -> None:
        self._session = session  # private: nothing of the session is an attribute a cell may read

    def __call__(self, _getattr_: Any = None) -> _PrintCollector:
        return self

    def write(self, text: str) -> None:
        self._session.write(text)

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
        g = guard_globals(_PrintCollector(self.session))
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
        except (KeyError, TypeError) as exc:  # the input was not what the code reads (review 16x M4)
            note = _input_note(exc, source, filename, value)
            if note:
                exc.add_note(_INPUT_NOTE + note)  # the program's own view (str(e), its type) is unchanged
            raise
        finally:
            self.snippet_depth -= 1


#: Marks the note a snippet's failed read of its ``input`` adds to the error (read by ``_describe_error``).
_INPUT_NOTE = "codemode snippet input: "


def _input_note(exc: BaseException, source: str, filename: str, value: Any) -> str:
    """What was wrong with a snippet's input when its code failed reading it: a key the input lacks, or an
    input that is not a dict; '' when the failing line does not read ``input[...]``."""
    lineno = _error_lineno(exc, filename)
    lines = source.splitlines()
    if lineno is None or not 0 < lineno <= len(lines) or "input[" not in lines[lineno - 1].replace(" ", ""):
        return ""
    name = filename[len("<snippet "):-1] if filename.startswith("<snippet ") and filename.endswith(">") else filename
    if type(exc) is KeyError and isinstance(value, Mapping) and len(exc.args) == 1:
        key = exc.args[0]
        if not isinstance(key, (str, int)) or key in value:
            return ""
        shown = repr(key) if len(repr(key)) <= 100 else repr(key)[:100] + "…"
        has = sorted(repr(k)[:40] for _, k in zip(range(10), value, strict=False))
        keys = f"its keys are {', '.join(has)}" if has else "it is empty"
        return (f"its input has no key {shown} ({keys}), and the snippet reads input[{shown}]: pass it, "
                f"codemode.run({name!r}, {{{shown}: ...}})")
    text = str(exc)
    if (isinstance(exc, TypeError) and not isinstance(value, Mapping)
            and ("indices must be" in text or "not subscriptable" in text)):
        return (f"its input is {type(value).__name__}, not a dict, and the snippet reads input[...]: pass a dict, "
                f"codemode.run({name!r}, {{...}}) (codemode.describe({name!r}) shows the keys it reads)")
    return ""


def _exec(code: CodeType, g: dict[str, Any]) -> Any:
    try:
        exec(code, g)
    except TopLevelReturn as ret:
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
    output: OutputStream | None = None,
    variables_budget: int | None = None,
) -> dict[str, Any]:
    """Run one pass and return the ``done`` message: result, error, logs, variables.

    ``out_of_memory_hint`` is added to the message of a ``MemoryError`` (the isolated
    worker names its address-space limit there). ``output`` is the stream printed text goes
    to (``stream.output_stream`` on ``channel`` by default); its caller may tick it. It is
    closed (its last batch sent) before this returns. ``variables_budget``: the carried-over
    variables' characters in all (first come first; the worker's ``max_result_chars``).
    """
    session = _Session(channel, namespaces, max_output_chars, max_calls, replay, output)
    try:
        return _run(source, session, namespaces, inputs, max_result_chars, out_of_memory_hint, capture_variables,
                    variables_budget)
    finally:
        session.stream.close()


def _run(source: str, session: _Session, namespaces: Mapping[str, Sequence[str]], inputs: Mapping[str, Any],
         max_result_chars: int, out_of_memory_hint: str, capture_variables: bool,
         variables_budget: int | None = None) -> dict[str, Any]:
    runner = _Runner(session, namespaces)
    done: dict[str, Any] = {"op": "done"}
    try:
        code = compile_cell(source)
    except CompileFailed as exc:
        kind = SandboxViolation.__name__ if "SyntaxError" not in str(exc) else "SyntaxError"
        done["error"] = {"type": kind, "message": exc.message(kind), "lineno": exc.lineno, "traceback": ""}
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
    if "error" not in done and session.aborted is None and type(result) in _NOT_DATA:
        done["error"] = {"type": "CodecError", "message": _not_data_result(result), "lineno": None,
                         "traceback": ""}
    if "error" not in done and session.aborted is None:
        try:
            encoded = codec.encode(result, "the result")
            try:
                text = codec.dumps_encoded(encoded)
            except ValueError as exc:
                error = codec.long_int_error(exc, "the result")
                if error is None:
                    raise
                raise error from None
            codec.check_storable(text, "the result")  # a lone surrogate: no journal keeps it (review 12)
            size = len(text)
            if size > max_result_chars:
                done["error"] = {"type": LimitExceeded.__name__, "message": (
                    f"the result is {size:,} characters; the limit is {max_result_chars:,} (max_result_chars). "
                    "Return a smaller value: a summary, a count, or the first rows."), "lineno": None,
                    "traceback": ""}
            else:
                done["result"] = encoded
        except codec.EncodeError as exc:
            done["error"] = {"type": "CodecError", "message": _encode_error_text(exc, g), "lineno": None,
                             "traceback": ""}
    if "error" in done:  # an exception's text is the code's data: bounded before it is reported
        done["error"].update(_error_for_host(done["error"]))
        done["error"]["traceback"] = str(done["error"].get("traceback", ""))[:MAX_REQUEST_TEXT]
    session.stream.close()
    done["logs"] = session.stream.text.splitlines()
    done["variables"] = _collect_variables(g, reserved, variables_budget) \
        if capture_variables and "error" not in done else {}
    return done


def _describe_error(exc: BaseException, source: str, g: Mapping[str, Any], reserved: set[str],
                    out_of_memory_hint: str = "") -> dict[str, Any]:
    message = str(exc)
    type_name = type(exc).__name__
    if type(exc) is NameError and getattr(exc, "name", None) in _INSPECTORS:  # not an UnboundLocalError
        message = _inspector_hint(str(exc.name), source, _error_lineno(exc, CELL_FILENAME), g)
    elif isinstance(exc, NameError) and getattr(exc, "name", None):
        available = sorted(n for n in g if not n.startswith("_") and n not in MODULES)
        message = (f"name {exc.name!r} is not defined. Globals available: {', '.join(available)}; "
                   f"modules: {', '.join(sorted(MODULES))}.")
    elif isinstance(exc, RecursionError):
        message = "maximum recursion depth exceeded"
    elif isinstance(exc, MemoryError):
        type_name, message = LimitExceeded.__name__, "the pass ran out of memory (MemoryError)"
        if out_of_memory_hint:
            message += "; " + out_of_memory_hint
    snippet = _failed_snippet(exc)
    if snippet is not None and not isinstance(exc, MemoryError):  # which saved program failed (review 14x, M7)
        note = next((n[len(_INPUT_NOTE):] for n in getattr(exc, "__notes__", None) or ()
                     if isinstance(n, str) and n.startswith(_INPUT_NOTE)), None)
        if note is not None:  # its input was wrong: say so, not only what the code tripped on (review 16x M4)
            message = note if isinstance(exc, TypeError) else f"{message}: {note}"
        message = f"snippet {snippet!r} failed: {message}"
    return {"type": type_name, "message": message, "lineno": _error_lineno(exc, CELL_FILENAME),
            "traceback": _format_traceback(exc, source)}


def _failed_snippet(exc: BaseException) -> str | None:
    """The name of the innermost snippet the error was raised in (``codemode.run``), if any."""
    name = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename.startswith("<snippet ") and frame.filename.endswith(">"):
            name = frame.filename[len("<snippet "):-1]
    return name


# What a person types to look at an object (review 14x M12): evaluating a connector, a method or
# ``codemode`` is not data the codec can return, and ``help``/``dir`` are not builtins of the sandbox.
# Each says what to write instead, with the exact call.

#: The sandbox's own objects, by type: what each is called in a message (never its class name).
_NOT_DATA: dict[type, str] = {ConnectorProxy: "a connector", MethodProxy: "a connector method",
                              CodemodeApi: "Code Mode's API"}
_INSPECTORS = frozenset({"help", "dir"})


def _connector_names(g: Mapping[str, Any]) -> list[str]:
    return sorted(n for n, v in g.items() if type(v) is ConnectorProxy and not n.startswith("_"))


def _describe_how(target: str) -> str:
    """How to see ``target`` (a connector, ``connector.method`` or ``codemode``) instead: the exact call."""
    if target == "codemode":
        return ("codemode.search('what you want to do') finds connector methods and codemode.describe('NAME') "
                "describes a connector, a method or a snippet")
    what = "gives its arguments and result" if "." in target else "lists its methods"
    return f"codemode.describe({target!r}) {what} (in a notebook, {target}? shows the same)"


def _describe_any(g: Mapping[str, Any]) -> str:
    """How to see a connector or a method, for a message that does not know which (the pass's first connector
    stands in for the example)."""
    names = _connector_names(g)
    connector = names[0] if names else "CONNECTOR"
    return (f"codemode.describe({connector!r}) lists a connector's methods and codemode.describe('{connector}.METHOD') "
            f"a method's arguments (in a notebook, {connector}? shows the same)")


def _not_data_result(result: Any) -> str:
    """The error for a pass whose result is a connector, a method or ``codemode``."""
    get = object.__getattribute__
    if type(result) is ConnectorProxy:
        target = str(get(result, "_codemode_name"))
        return f"`{target}` is a connector, not data, so it cannot be the result: {_describe_how(target)}."
    if type(result) is MethodProxy:
        target = f"{get(result, 'connector')}.{get(result, 'method')}"
        return (f"`{target}` is a connector method, not data, so it cannot be the result: call it, {target}(...), "
                f"for its result; {_describe_how(target)}.")
    return f"`codemode` is Code Mode's API, not data, so it cannot be the result: {_describe_how('codemode')}."


def _encode_error_text(exc: codec.EncodeError, g: Mapping[str, Any]) -> str:
    """A result's encoding error, worded for the result; one of the sandbox's own objects inside it is
    named for what it is, with how to describe it."""
    words = next((w for t, w in _NOT_DATA.items() if t.__name__ == exc.type_name), None)
    if words is None:
        return str(exc).replace("Cannot pass", "Cannot return")
    return (f"Cannot return {words} at {exc.where}: connectors, their methods and codemode are not data; "
            f"{_describe_any(g)}.")


def _looked_at(source: str, lineno: int | None, inspector: str) -> str | None:
    """The dotted name ``help(x.y)`` / ``dir(x)`` is called with on line ``lineno``, if it is one."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == inspector
                and node.args and (lineno is None or node.lineno == lineno)):
            arg, parts = node.args[0], list[str]()
            while isinstance(arg, ast.Attribute):
                parts.insert(0, arg.attr)
                arg = arg.value
            return ".".join([arg.id, *parts]) if isinstance(arg, ast.Name) else None
    return None


def _inspector_hint(name: str, source: str, lineno: int | None, g: Mapping[str, Any]) -> str:
    """The NameError of ``help``/``dir``: what to write instead, for what the call looks at."""
    looked = _looked_at(source, lineno, name)
    head = f"name {name!r} is not defined: Code Mode has no {name}()"
    root = type(g.get(looked.split(".", 1)[0])) if looked else None
    if looked and root is ConnectorProxy and looked.count(".") <= 1:
        return f"{head}; {_describe_how(looked)}."
    if root is CodemodeApi:
        return f"{head}; {_describe_how('codemode')}."
    value = "for a value, list(x) or sorted(x) gives a dict's keys and type(x) its type; " if name == "dir" else ""
    return f"{head}; {value}{_describe_any(g)}."


def _collect_variables(g: Mapping[str, Any], reserved: set[str], budget: int | None = None) -> dict[str, Any]:
    """The pass's top-level names that can be carried over, encoded; each within ``codec.MAX_VALUE_CHARS``
    and, with a ``budget``, all within ``budget`` characters (first come first), from the same
    serialization (the worker serialized each value a second time to trim them: issue 12)."""
    out: dict[str, Any] = {}
    used = 0
    for name, value in g.items():
        if name in reserved or name.startswith("_") or isinstance(value, ModuleType) or callable(value):
            continue
        try:
            encoded = codec.encode(value, name)
            text = codec.dumps_encoded(encoded)
            codec.check_storable(text, name)
        except ValueError:  # EncodeError, an int too long to write, a lone surrogate: not carried over (review 12)
            continue
        size = len(text)
        if size > codec.MAX_VALUE_CHARS or (budget is not None and used + size > budget):
            continue
        used += size
        out[name] = encoded
    return out

