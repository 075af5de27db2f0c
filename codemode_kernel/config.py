"""Configuration without code: ``codemode.toml`` (or ``[tool.codemode]`` in ``pyproject.toml``).

The kernel reads this file to learn which connectors a notebook has, where its journal
lives and how the runtime is tuned. The file is looked up beside the notebook first
(``codemode.toml``); otherwise the nearest ``pyproject.toml`` above it that has a
``[tool.codemode]`` table is used. ``CODEMODE_CONFIG`` names a file explicitly, and
``CODEMODE_STORE`` (a SQLAlchemy URL) overrides the store for one kernel.

.. code-block:: toml

    [store]
    url = "sqlite:///analysis.codemode.db"   # optional; relative SQLite paths are resolved
                                             # against the folder of this file

    [runtime]
    name = "default"                         # named runtime inside the store
    max_executions = 50                      # retention of terminal executions

    [executor]
    kind = "subprocess"                      # or "inprocess" (teaching and tests only)
    timeout = 60                             # other keys are passed to executor.isolated.Limits
    warm = 1                                 # workers kept started ahead of need

    [connectors.notes]
    python = "demo_connectors:notes"         # module:attribute; the folder of this file is importable
    requires_approval = ["add_*"]            # names or fnmatch patterns, or true for every method
    no_approval = ["add_draft"]              # names or patterns that never need approval
    # reverts = { add_x = { method = "delete_x", args = { id = "$result.id" } } }   as for mcp and openapi
    hint = "Personal notes of the analyst."  # one line shown to models beside the connector name
    options = { path = "notes.json" }        # keyword arguments for a factory (optional)
    enabled = true                           # false skips the table

    [connectors.clock]
    mcp = { command = "mcp-server-time", args = ["--local-timezone", "UTC"] }

    [connectors.petstore]
    openapi = "petstore.yaml"
    base_url = "http://127.0.0.1:8765"

MCP and OpenAPI tables are handed whole to ``McpConnector.from_config`` /
``OpenApiConnector.from_config`` (their docstrings list the keys). Those modules are
imported only when a table needs them, so a broken one does not break the others.

Every problem becomes a :class:`ConfigProblem` naming the file, the key and what to do;
the loader never raises for bad configuration: one bad table loses that connector only,
and the kernel still starts.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import inspect
import json
import logging
import os
import stat
import sys
import tomllib
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from codemode_kernel.catalog import RESERVED_NAMES
from codemode_kernel.connectors.base import Connector
from codemode_kernel.connectors.policy import ConnectorPolicy, WithPolicy
from codemode_kernel.errors import ConfigurationError
from codemode_kernel.journal_files import NOTEBOOK_ENV, existing_journal, sqlite_url
from codemode_kernel.targets import credential_name, masked
from codemode_kernel.wording import sentence

log = logging.getLogger(__name__)

CONFIG_FILENAME = "codemode.toml"
PYPROJECT_FILENAME = "pyproject.toml"

_TOP_KEYS = ("store", "runtime", "executor", "connectors")
_KINDS = ("python", "mcp", "openapi")
_PYTHON_KEYS = ("python", "requires_approval", "no_approval", "reverts", "hint", "options", "enabled")
#: The keys that set a connector's policy (``connectors.policy``), the same for every kind.
_POLICY_KEYS = ("requires_approval", "no_approval", "reverts")


@dataclass(frozen=True)
class ConfigProblem:
    """One thing wrong with the configuration: where, which key, and what to do."""

    file: str
    key: str
    problem: str

    def __str__(self) -> str:
        where = f"[{self.key}]" if self.key else "(file)"
        return f"{self.file}: {where} {self.problem}"


@dataclass(frozen=True)
class ExecutorSettings:
    """``[executor]``: which executor runs passes, and its limits (``Limits`` fields)."""

    kind: str = "subprocess"
    limits: Mapping[str, Any] = field(default_factory=dict)
    warm: int | None = None  # workers kept started ahead of need (isolated executor)


@dataclass(frozen=True)
class CodemodeConfig:
    """What a notebook's configuration says, already turned into connectors.

    ``source`` is the file that was read (``None`` when there is none); ``base_dir`` is the
    folder relative paths resolve against. ``problems`` lists everything that was wrong;
    the connectors that could be built are in ``connectors`` regardless.
    """

    source: Path | None
    base_dir: Path
    store_url: str | None = None
    runtime_name: str = "default"
    max_executions: int = 50
    executor: ExecutorSettings = field(default_factory=ExecutorSettings)
    connectors: tuple[Connector, ...] = ()
    hints: Mapping[str, str] = field(default_factory=dict)
    #: Each connector's kind, as its table says: ``python``, ``mcp`` or ``openapi``.
    kinds: Mapping[str, str] = field(default_factory=dict)
    problems: tuple[ConfigProblem, ...] = ()

    @property
    def label(self) -> str:
        """How messages name the configuration file."""
        return str(self.source) if self.source is not None else "(no codemode.toml)"


# ---------------------------------------------------------------------------------------
# Where things are


def notebook_path(env: Mapping[str, str] | None = None, cwd: Path | None = None) -> Path | None:
    """The notebook this kernel serves: ``CODEMODE_NOTEBOOK``, else ``JPY_SESSION_NAME`` (set by jupyter_server).

    jupyter_server passes the absolute path; older servers pass one relative to the server
    root, while the kernel's working directory is the notebook's folder, so only the file
    name is kept then. nbclient, papermill, nbconvert and consoles set neither (their journal
    is named after the folder); ``CODEMODE_NOTEBOOK=analysis.ipynb`` names the notebook for
    them, relative to the working directory. Console sessions have names that are not
    notebooks: ``None``.
    """
    env = os.environ if env is None else env
    here = cwd or Path.cwd()
    named = env.get(NOTEBOOK_ENV, "").strip()
    if named:
        return (here / Path(named).expanduser()).resolve()
    raw = env.get("JPY_SESSION_NAME", "").strip()
    if not raw or not raw.endswith(".ipynb"):
        return None
    path = Path(raw)
    if not path.is_absolute():
        path = here / path.name
    return path


def default_store_url(notebook: Path | None, cwd: Path) -> str:
    """``sqlite:///`` file named after the notebook in ``.codemode/`` beside it (:mod:`~codemode_kernel.journal_files`).

    ``analysis.ipynb`` → ``.codemode/analysis.codemode.db``. Without a notebook (nbclient,
    papermill and consoles do not say which notebook they run) the file is named after the
    working directory: ``.codemode/<folder>.codemode.db``. A journal from before
    ``.codemode/`` (``analysis.codemode.db`` beside the notebook) is used where it is until a
    kernel moves it.
    """
    return sqlite_url(existing_journal(notebook, cwd))


def find_config(start: Path, env: Mapping[str, str] | None = None) -> Path | None:
    """The configuration file for a notebook in ``start``, or ``None``."""
    env = os.environ if env is None else env
    explicit = env.get("CODEMODE_CONFIG", "").strip()
    if explicit:
        return Path(explicit).expanduser().resolve()
    beside = start / CONFIG_FILENAME
    if beside.is_file():
        return beside
    for folder in (start, *start.parents):
        candidate = folder / PYPROJECT_FILENAME
        if candidate.is_file() and _has_tool_codemode(candidate):
            if folder != start and not _yours(candidate):
                # Found in a parent folder and another user's (a /tmp/pyproject.toml): its python tables would
                # be imported, and its mcp commands run, as this person (review 16 H5; git's safe.directory).
                log.warning("codemode: %s is not used: it belongs to another user (uid %s), or others may replace "
                            "it; put a codemode.toml beside the notebook, or set CODEMODE_CONFIG", candidate,
                            _owner(candidate))
                continue
            return candidate
    return None


def _yours(path: Path) -> bool:
    """Whether a configuration file found in a parent folder may configure this person's notebook: it is theirs
    (or root's), and its folder does not let others replace it (writable by all without the sticky bit)."""
    if not hasattr(os, "geteuid"):
        return True
    try:
        owner, folder_mode = path.stat().st_uid, path.parent.stat().st_mode
    except OSError:
        return False
    if owner not in (os.geteuid(), 0):
        return False
    return not (folder_mode & stat.S_IWOTH and not folder_mode & stat.S_ISVTX)


def _owner(path: Path) -> int | None:
    with contextlib.suppress(OSError):
        return path.stat().st_uid
    return None


def _has_tool_codemode(path: Path) -> bool:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False
    tool = data.get("tool")
    return isinstance(tool, dict) and isinstance(tool.get("codemode"), dict)


# ---------------------------------------------------------------------------------------
# Loading


def load_config(start: Path, *, path: Path | None = None, env: Mapping[str, str] | None = None,
                reload_modules: bool = False) -> CodemodeConfig:
    """Read the configuration for a notebook in folder ``start`` and build its connectors.

    ``path`` overrides the lookup. ``reload_modules`` re-imports ``python = ...`` modules that
    live in the notebook's or the file's folder, so ``%reload`` picks up edits.
    """
    source = path if path is not None else find_config(start, env)
    if source is None:
        return CodemodeConfig(source=None, base_dir=start)
    loader = _Loader(source, start, reload_modules)
    return loader.load()


class _Loader:
    def __init__(self, source: Path, start: Path, reload_modules: bool) -> None:
        self.source = source
        self.base_dir = source.parent
        self.start = start
        self.reload_modules = reload_modules
        self.label = source.name if source.parent == start else str(source)
        self.problems: list[ConfigProblem] = []
        self.prefix = ""

    def problem(self, key: str, text: str) -> None:
        self.problems.append(ConfigProblem(self.label, self.prefix + key if key else self.prefix.rstrip("."), text))

    def load(self) -> CodemodeConfig:
        try:
            data = tomllib.loads(self.source.read_text(encoding="utf-8"))
        except OSError as exc:
            self.problem("", f"cannot be read ({exc.strerror or exc}). Check the path"
                             + (" in CODEMODE_CONFIG." if os.environ.get("CODEMODE_CONFIG") else "."))
            return self._config({})
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            self.problem("", f"is not valid TOML: {sentence(str(exc))} Fix the syntax and run %reload.")
            return self._config({})
        if self.source.name == PYPROJECT_FILENAME:
            self.prefix = "tool.codemode."
            data = data.get("tool", {}).get("codemode", {})
        for key in data:
            if key not in _TOP_KEYS:
                self.problem(key, f"is not a known section; the sections are {', '.join(_TOP_KEYS)}.")
        return self._config(data)

    def _config(self, data: Mapping[str, Any]) -> CodemodeConfig:
        store_url = self._store(data.get("store"))
        name, max_executions = self._runtime(data.get("runtime"))
        executor = self._executor(data.get("executor"))
        connectors, hints, kinds = self._connectors(data.get("connectors"))
        return CodemodeConfig(
            source=self.source, base_dir=self.base_dir, store_url=store_url, runtime_name=name,
            max_executions=max_executions, executor=executor, connectors=tuple(connectors),
            hints=hints, kinds=kinds, problems=tuple(self.problems),
        )

    def _table(self, value: Any, key: str) -> Mapping[str, Any] | None:
        if value is None:
            return None
        if not isinstance(value, dict):
            self.problem(key, f"must be a table (write [{self.prefix}{key}]), not {type(value).__name__}.")
            return None
        return value

    def _store(self, value: Any) -> str | None:
        table = self._table(value, "store")
        if table is None:
            return None
        for key in table:
            if key != "url":
                self.problem(f"store.{key}", "is not a known key; [store] takes only url.")
        url = table.get("url")
        if url is None:
            return None
        if not isinstance(url, str) or "://" not in url:
            self.problem("store.url", f"must be an SQLAlchemy URL such as \"sqlite:///notes.codemode.db\" "
                                      f"or \"postgresql+psycopg://host/db\"; got {url!r}.")
            return None
        return resolve_sqlite_url(url, self.base_dir)

    def _runtime(self, value: Any) -> tuple[str, int]:
        table = self._table(value, "runtime") or {}
        name, keep = "default", 50
        for key, item in table.items():
            if key == "name":
                if isinstance(item, str) and item.strip():
                    name = item.strip()
                else:
                    self.problem("runtime.name", f"must be a non-empty string; got {item!r}.")
            elif key == "max_executions":
                if type(item) is int and item >= 1:
                    keep = item
                else:
                    self.problem("runtime.max_executions", f"must be a whole number ≥ 1; got {item!r}.")
            else:
                self.problem(f"runtime.{key}", "is not a known key; [runtime] takes name and max_executions.")
        return name, keep

    def _executor(self, value: Any) -> ExecutorSettings:
        table = dict(self._table(value, "executor") or {})
        kind = table.pop("kind", "subprocess")
        if kind not in ("subprocess", "inprocess"):
            self.problem("executor.kind", f"must be \"subprocess\" (isolated, the default) or \"inprocess\"; "
                                          f"got {kind!r}. Using \"subprocess\".")
            kind = "subprocess"
        warm = table.pop("warm", None)
        if warm is not None and not (type(warm) is int and warm >= 0):
            self.problem("executor.warm", f"must be a whole number ≥ 0 (workers kept started); got {warm!r}.")
            warm = None
        return ExecutorSettings(kind=kind, limits=self._limits(kind, table), warm=warm)

    def _limits(self, kind: str, table: Mapping[str, Any]) -> dict[str, Any]:
        """``[executor]``'s limits, each key checked against the executor's limits as connector keys are:
        an unknown key is named with the one it was probably meant to be and dropped alone, the others
        kept; a limit only the isolated executor has is named as such under ``kind = "inprocess"``
        (review 14x M6)."""
        if not table:
            return {}
        from dataclasses import fields

        from codemode_kernel.executor.inprocess import InProcessLimits
        from codemode_kernel.executor.isolated import Limits

        isolated = [f.name for f in fields(Limits)]
        known = [f.name for f in fields(InProcessLimits)] if kind == "inprocess" else isolated
        kept: dict[str, Any] = {}
        for key, item in table.items():
            if key in known:
                kept[key] = item
                continue
            if key in isolated:  # an isolated-only limit under kind = "inprocess"
                self.problem(f"executor.{key}", f"is a limit of the isolated executor only; the in-process executor "
                                                f"(kind = \"inprocess\") has {', '.join(known)}. Ignored; remove it, "
                                                "or drop kind = \"inprocess\" to run passes isolated.")
                continue
            close = difflib.get_close_matches(key, [*known, "kind", "warm"], n=1, cutoff=0.6)
            self.problem(f"executor.{key}", "is not a known key" + (f" (did you mean {close[0]!r}?)" if close else "")
                         + f"; [executor] takes kind, warm and {', '.join(known)}. Ignored; the other keys apply.")
        return kept

    def _connectors(self, value: Any) -> tuple[list[Connector], dict[str, str], dict[str, str]]:
        table = self._table(value, "connectors") or {}
        connectors: list[Connector] = []
        hints: dict[str, str] = {}
        kinds: dict[str, str] = {}
        for name, spec in table.items():
            key = f"connectors.{name}"
            if not isinstance(spec, dict):
                self.problem(key, f"must be a table such as [{self.prefix}{key}] with python = \"module:attr\".")
                continue
            if spec.get("enabled", True) is False:
                continue
            if not name.isidentifier() or name.startswith("_") or name in RESERVED_NAMES:
                # Refused here, alone: the catalog would refuse the whole set for it (review 16x, H2).
                self.problem(key, "is not a usable connector name: it must be a Python identifier that does "
                                  "not start with '_' and is not one of Code Mode's own globals (codemode, input, "
                                  "print, printed). Rename the table; the other tables are loaded.")
                continue
            # A name that hides a module or builtin from cells is loaded, and said (review 15x M17): refusing it
            # would break common tables such as [connectors.time] (mcp-server-time).
            from codemode_kernel.executor.language import shadowed  # the sandbox's names: not at kernel start

            if (hidden := shadowed(name)) is not None:
                self.problem(key, f"is named like {hidden}: in cells, {name} is this connector and that is out of "
                                  f"reach. Rename the table (e.g. [{self.prefix}connectors.{name}_api]) to keep both.")
            kinds_found = [k for k in _KINDS if k in spec]
            if len(kinds_found) != 1:
                self.problem(key, _kind_problem(kinds_found, spec))
                continue
            hint = spec.get("hint")
            if hint is not None and not isinstance(hint, str):
                self.problem(f"{key}.hint", f"must be a string; got {hint!r}.")
                hint = None
            try:
                connector = self._build(name, kinds_found[0], spec, key)
            except ConfigurationError as exc:
                # The connectors name their table themselves ("[connectors.x]: ..."): say it once.
                text = str(exc)
                for own in (f"[{self.prefix}{key}]", f"[{key}]"):
                    if text.startswith(own):
                        text = text[len(own):].lstrip(": ")
                        break
                self.problem(key, text)
                continue
            except Exception as exc:  # user factories may raise anything
                self.problem(key, f"could not be built: {type(exc).__name__}: {exc}")
                continue
            if connector is None:
                continue
            connectors.append(connector)
            kinds[name] = kinds_found[0]
            if hint:
                hints[name] = hint
        return connectors, hints, kinds

    def _build(self, name: str, kind: str, spec: Mapping[str, Any], key: str) -> Connector | None:
        table = {k: v for k, v in spec.items() if k != "enabled"}
        if kind == "python":
            return self._python(name, table, key)
        # Imported here, not at the top: a connector kind whose module is broken or missing
        # must cost only its own tables.
        made: Connector
        if kind == "mcp":
            from codemode_kernel.connectors.mcp import McpConnector

            made = McpConnector.from_config(name, table, self.base_dir)
        else:
            from codemode_kernel.connectors.openapi import OpenApiConnector

            made = OpenApiConnector.from_config(name, table, self.base_dir)
        return made

    def _python(self, name: str, table: Mapping[str, Any], key: str) -> Connector | None:
        for extra in table:
            if extra not in _PYTHON_KEYS:
                self.problem(f"{key}.{extra}", f"is not a known key for a python connector; the keys are "
                                               f"{', '.join(_PYTHON_KEYS)}.")
        target = table["python"]
        if not isinstance(target, str) or target.count(":") != 1 or not all(target.split(":")):
            self.problem(f"{key}.python", f"must be \"module:attribute\" (e.g. \"my_tools:notes\"); got {target!r}.")
            return None
        module_name, attr = target.split(":")
        options = table.get("options", {})
        if not isinstance(options, dict):
            self.problem(f"{key}.options", "must be a table of keyword arguments for the factory.")
            return None
        policy: ConnectorPolicy | None = None
        if any(k in table for k in _POLICY_KEYS):
            policy = ConnectorPolicy.from_table(table, f"[{self.prefix}{key}]")
        module = self._import(module_name, f"{key}.python")
        if module is None:
            return None
        if not hasattr(module, attr):
            public = sorted(n for n in vars(module) if not n.startswith("_"))
            self.problem(f"{key}.python", f"module {module_name!r} has no attribute {attr!r}; it has "
                                          f"{', '.join(public[:15]) or 'nothing public'}.")
            return None
        connector = _instantiate(getattr(module, attr), options, target)
        if connector.name != name:
            # The table's name is the global the sandbox sees; it wins over the object's own.
            connector.name = name
        if connector.target is None:
            # What it acts on, as far as this table says: the factory, its options, the folder its relative
            # paths start from; the same in every process that reads this file (rollback, approve: M4).
            with contextlib.suppress(AttributeError):  # a class whose target is a read-only property
                shown = json.dumps(options, sort_keys=True, default=str)
                connector.target = (f"python {target} in {self.base_dir} with "  # no credential (review 16 M1)
                                    f"{masked(shown, [json.dumps(s)[1:-1] for s in _option_secrets(options)])}")
        if policy is None:
            return connector
        return WithPolicy(connector, policy, where=f"{self.label}: [{self.prefix}{key}]")

    def _import(self, module_name: str, key: str) -> Any:
        for folder in (self.base_dir, self.start):
            text = str(folder)
            if text not in sys.path:
                sys.path.insert(0, text)
        try:
            module = importlib.import_module(module_name)
            if self.reload_modules and _lives_under(module, (self.base_dir, self.start)):
                module = importlib.reload(module)
        except ModuleNotFoundError as exc:
            folders = (self.base_dir, self.start)
            if exc.name is not None and module_name != exc.name and not module_name.startswith(exc.name + "."):
                # The module was found; something *it* imports is missing.
                self.problem(key, f"module {module_name!r} was found but could not be imported: "
                                  f"{_raised_in(exc, folders)}. "
                                  f"Install {exc.name!r} into the kernel's environment (or fix the import), "
                                  "then run %reload.")
            else:
                self.problem(key, f"cannot import module {module_name!r}: no such module. Put {module_name}.py "
                                  f"beside the notebook or {self.label}, or install it, then run %reload.")
            return None
        except Exception as exc:  # the module is there, and raised while it was imported
            self.problem(key, f"module {module_name!r} was found but raised while it was imported: "
                              f"{_raised_in(exc, (self.base_dir, self.start))}. Fix the module, then run %reload.")
            return None
        return module


def _kind_problem(found: Sequence[str], spec: Mapping[str, Any]) -> str:
    """Why a connector table does not say its kind, naming a mistyped key (``pyhton``) when there is one."""
    if found:
        return (f"has {' and '.join(found)}; a table names exactly one kind ({', '.join(_KINDS)}). Keep one and "
                "move the others to tables of their own.")
    known = set(_PYTHON_KEYS) | {"enabled", "base_url"}
    unknown = [k for k in spec if k not in known]
    hints = []
    for key in unknown:
        close = difflib.get_close_matches(key, _KINDS, n=1, cutoff=0.6)
        hints.append(f"{key!r} is not a known key" + (f" (did you mean {close[0]!r}?)" if close else ""))
    text = f"does not say what kind of connector it is: it needs one of {', '.join(_KINDS)} (e.g. python = " \
           '"my_tools:notes")'
    return text + (": " + "; ".join(hints) if hints else "") + "."


def _raised_in(exc: BaseException, folders: Sequence[Path]) -> str:
    """``ValueError: boom (my_tools.py, line 3)``: the exception and the line of the user's file that raised it."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "importlib" not in f.filename
              and not f.filename.startswith("<frozen")]
    own = [f for f in frames if _is_under(Path(f.filename), folders)]
    frames = own or frames
    where = ""
    if isinstance(exc, SyntaxError) and exc.filename:
        where = f" ({Path(exc.filename).name}, line {exc.lineno})"
    elif frames:
        where = f" ({Path(frames[-1].filename).name}, line {frames[-1].lineno})"
    text = str(exc).strip() if not isinstance(exc, SyntaxError) else (exc.msg or str(exc))
    return f"{type(exc).__name__}: {text}{where}" if text else f"{type(exc).__name__}{where}"


def _lives_under(module: Any, folders: Sequence[Path]) -> bool:
    file = getattr(module, "__file__", None)
    return isinstance(file, str) and _is_under(Path(file), folders)


def _is_under(path: Path, folders: Sequence[Path]) -> bool:
    path = path.resolve()
    return any(path.is_relative_to(f.resolve()) for f in folders)


def _instantiate(obj: Any, options: Mapping[str, Any], target: str) -> Connector:
    if isinstance(obj, Connector):
        if options:
            raise ConfigurationError(f"{target} is a connector object, so options cannot be passed to it; "
                                     "point python at a factory function instead.")
        return obj
    if not callable(obj):
        raise ConfigurationError(f"{target} is a {type(obj).__name__}, not a Connector or a factory returning one.")
    made = obj(**options)
    if inspect.isawaitable(made):
        close = getattr(made, "close", None)
        if callable(close):
            close()
        raise ConfigurationError(f"{target} is an async factory; make it a plain function returning a Connector.")
    if not isinstance(made, Connector):
        raise ConfigurationError(f"{target}() returned a {type(made).__name__}, not a Connector. Return e.g. "
                                 "ToolSetConnector([...], name=...).")
    return made


def resolve_sqlite_url(url: str, base_dir: Path) -> str:
    """Make a relative ``sqlite:///file`` URL absolute against ``base_dir``; others unchanged."""
    for prefix in ("sqlite:///", "sqlite+pysqlite:///"):
        if url.startswith(prefix):
            rest = url[len(prefix):]
            if rest and not rest.startswith("/") and not rest.startswith(":memory:"):
                # The folder's path is quoted ('?' or '%XX' in it would pick another file: review 12);
                # the user's own part stays as written, its query (driver options) included.
                path, sep, query = rest.partition("?")
                return prefix + quote(str((base_dir / unquote(path)).resolve()), safe="/") + sep + query
    return url


def _option_secrets(options: Any) -> list[str]:
    """The credentials among a python table's options: the values of credential-named keys (``api_key``,
    ``password``) and the passwords and credential-named query values of URLs (``dsn``), at any depth."""
    from codemode_kernel.connectors.secrets import url_secrets

    found: list[str] = []
    if isinstance(options, Mapping):
        for key, value in options.items():
            if isinstance(value, str) and credential_name(str(key)):  # whole words, as targets judge (16 H1)
                found.append(value)
            found += _option_secrets(value)
    elif isinstance(options, list):
        for value in options:
            found += _option_secrets(value)
    elif isinstance(options, str) and "://" in options:
        found += url_secrets(options, {})
    return found
