"""No host filesystem path reaches a program, in either executor (session 14's closing note).

CPython builds some texts from a module's ``__file__``: ``from collections import heapq`` failed
with "cannot import name 'heapq' from 'collections' (/…/lib/python3.11/collections/__init__.py)",
the ImportError a cell could catch carried that path as ``path``, and ``repr(json)`` (``print(re)``,
``f"{collections.abc}"``) is "<module 'json' from '/…/json/__init__.py'>". The sandbox's modules
now say nothing about where they live; the import error keeps CPython's words without the path.
"""

from __future__ import annotations

import json as host_json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import codemode_kernel
from codemode_kernel import InProcessExecutor
from codemode_kernel.executor.isolated import SubprocessExecutor
from tests.executor.isolated_support import RecordingHost

pytestmark = pytest.mark.anyio

#: Places on this host whose paths must not appear in anything a pass returns.
HOST_PLACES = sorted({str(Path(host_json.__file__).parents[1]), sys.prefix, sys.base_prefix,
                      str(Path(codemode_kernel.__file__).parents[1]), ".py", "site-packages", "lib-dynload"})


@pytest.fixture(params=["inprocess", "subprocess"])
async def executor(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    ex = InProcessExecutor() if request.param == "inprocess" else SubprocessExecutor()
    yield ex
    await ex.aclose()


def _shown(out: Any) -> str:
    """Everything of a pass a program or a person sees: its error, logs and result."""
    error = out.error
    parts = [repr(out.result), *map(str, out.logs)]
    if error is not None:
        parts += [str(error.type), str(error.message), str(getattr(error, "traceback", ""))]
    return "\n".join(parts)


def _no_host_path(text: str) -> None:
    leaked = [place for place in HOST_PLACES if place in text]
    assert not leaked, (leaked, text)


IMPORTS = {
    "a module from a package": ("from collections import heapq", "collections", "heapq"),
    "a name from a package": ("from json import nosuch", "json", "nosuch"),
    "a name from a submodule": ("from json.decoder import nosuch", "json.decoder", "nosuch"),
    "a name from a plain module": ("from string import nosuch", "string", "nosuch"),
    "a name from an extension module": ("from math import nosuch", "math", "nosuch"),
}


@pytest.mark.parametrize(("code", "module", "name"), IMPORTS.values(), ids=IMPORTS.keys())
async def test_an_import_error_names_no_host_path(executor: Any, code: str, module: str, name: str) -> None:
    """It is an error if a failed ``from … import …`` shows a host path or stops saying what failed."""
    out = await executor.execute(code, {}, host=RecordingHost())
    assert out.error is not None and out.error.type == "ImportError", out
    assert f"cannot import name {name!r} from {module!r}" in out.error.message
    _no_host_path(_shown(out))


async def test_a_caught_import_error_carries_no_path(executor: Any) -> None:
    """It is an error if the ImportError a program catches holds the module's file."""
    code = ("try:\n    from collections import heapq\nexcept ImportError as e:\n"
            "    caught = [str(e), e.path, e.name]\ncaught")
    out = await executor.execute(code, {}, host=RecordingHost())
    assert out.error is None, out
    assert out.result[0] == "cannot import name 'heapq' from 'collections'"
    assert out.result[1] is None
    _no_host_path(_shown(out))


SHOWN = {
    "repr": "repr(json)",
    "str": "str(re)",
    "print": "print(math)\nprint(collections)\n1",
    "an f-string": "f'{datetime} {string}'",
    "a submodule": "import collections.abc\nstr(collections.abc)",
    "a submodule as an attribute": "repr(json.decoder)",
    "a module reached through another": "repr(statistics.random)",
    "a from-imported submodule": "from json import encoder\nrepr(encoder)",
    "every module": "[repr(m) for m in (base64, collections, datetime, functools, hashlib, itertools, json, "
                    "math, random, re, statistics, string, time, uuid)]",
    "an attribute error's object": "try:\n    json.nosuch\nexcept AttributeError as e:\n    r = repr(e.obj)\nr",
}


@pytest.mark.parametrize("code", SHOWN.values(), ids=SHOWN.keys())
async def test_a_module_shown_as_text_names_no_host_path(executor: Any, code: str) -> None:
    """It is an error if a module's text (repr, str, print, f-string) shows where the host keeps it."""
    out = await executor.execute(code, {}, host=RecordingHost())
    assert out.error is None, out
    assert "<module '" in _shown(out)
    _no_host_path(_shown(out))


USES = {
    "a submodule": ("import collections.abc\nisinstance({}, collections.abc.Mapping)", True),
    "from a submodule": ("from collections.abc import Mapping\nisinstance([], Mapping)", False),
    "a from-imported submodule": ("from json import decoder\ndecoder.JSONDecoder().decode('{}')", {}),
    "statistics through its own module": ("statistics.mean([1, 2, 3])", 2),
    "an import alias": ("import json.decoder as d\nd.JSONDecoder().decode('[1]')", [1]),
}


@pytest.mark.parametrize(("code", "expected"), USES.values(), ids=USES.keys())
async def test_modules_still_work(executor: Any, code: str, expected: Any) -> None:
    """It is an error if the modules stop working as the language rules promise."""
    out = await executor.execute(code, {}, host=RecordingHost())
    assert out.error is None, out
    assert out.result == expected


REFUSED = {
    "a module the list does not offer, as an attribute": "datetime.sys",
    "the same through getattr": "getattr(uuid, 'os')",
    "from-imported": "from datetime import sys\nsys",
    "a private name": "getattr(json, '_default_encoder')",
}


@pytest.mark.parametrize("code", REFUSED.values(), ids=REFUSED.keys())
async def test_what_was_refused_stays_refused(executor: Any, code: str) -> None:
    """It is an error if a module's face lets through what the guards refused on the module."""
    out = await executor.execute(code, {}, host=RecordingHost())
    assert out.error is not None, out
    assert out.result is None
