"""What the sandbox loads for the stdlib's own lazy imports stays out of a cell's reach (s14e, review 14x H6).

``datetime.datetime.strptime`` / ``time.strptime`` import ``_strptime`` from C through the running
frame's ``__import__`` (the sandbox's guard), and ``collections.Counter.most_common(n)`` imports
``heapq`` inside the method. The guard now lets exactly the C code's import of ``_strptime`` through
(it answers ``None``: the C code reads the module from ``sys.modules``), and the isolated worker
preloads ``heapq``. Each of these specs held before that change and must hold after it, on both
executors, also after a cell has used ``strptime`` and ``most_common`` (the modules are loaded):
a cell cannot import either module, import from it, or reach it as an attribute.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from codemode_kernel import InProcessExecutor
from codemode_kernel.executor import language
from codemode_kernel.executor.isolated import SubprocessExecutor
from tests.executor.isolated_support import RecordingHost

pytestmark = pytest.mark.anyio

# Loads both modules in the pass first, so that each refusal below is made with them in sys.modules.
WARM = ('datetime.datetime.strptime("2024-01-05", "%Y-%m-%d")\ntime.strptime("2024", "%Y")\n'
        'collections.Counter("hello").most_common(1)\n')


@pytest.fixture(params=["inprocess", "subprocess"])
async def executor(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    ex = InProcessExecutor() if request.param == "inprocess" else SubprocessExecutor()
    yield ex
    await ex.aclose()


REACHES = {
    "import _strptime": "import _strptime\n_strptime",
    "from _strptime import": "from _strptime import TimeRE\nTimeRE",
    "from _strptime import star": "from _strptime import *\n1",
    "import datetime._strptime": "import datetime._strptime\ndatetime",
    "import heapq": "import heapq\nheapq",
    "from heapq import": "from heapq import nlargest\nnlargest",
    "import collections.heapq": "import collections.heapq\ncollections",
    "from collections import heapq": "from collections import heapq\nheapq",
    "getattr _strptime": 'getattr(datetime, "_strptime")',
    "getattr heapq on collections": 'getattr(collections, "heapq")',
    "the method's own globals": 'collections.Counter.most_common.__globals__["_heapq"]',
}


@pytest.mark.parametrize("code", REACHES.values(), ids=REACHES.keys())
async def test_loaded_modules_stay_out_of_reach(executor: Any, code: str) -> None:
    """It is an error if a cell gets past the import or attribute guards to ``_strptime`` or ``heapq``."""
    out = await executor.execute(WARM + code, {}, host=RecordingHost())
    assert out.error is not None, out
    assert out.result is None, out


async def test_no_allowed_module_holds_them_as_an_attribute(executor: Any) -> None:
    """It is an error if an allow-listed module answers ``heapq`` or a module ``_strptime`` loads
    (``calendar``, ``locale``) to getattr."""
    code = WARM + "\n".join(
        [f"assert getattr({name}, {attr!r}, None) is None, ({name!r}, {attr!r})"
         for name in sorted(language.MODULES) for attr in ("heapq", "calendar", "locale")]
        + ["'walked'"])
    out = await executor.execute(code, {}, host=RecordingHost())
    assert out.error is None, out
    assert out.result == "walked"


def test_the_c_level_import_answers_nothing_to_its_caller() -> None:
    """It is an error if the guard's pass-through for ``PyImport_Import``'s call shape returns the module
    (``from_list`` an empty list): the C code reads ``sys.modules``, a caller of the guard gets ``None``."""
    guard = language.BUILTINS["__import__"]
    g: dict[str, Any] = {}
    assert guard("_strptime", g, g, [], 0) is None
    for fromlist in (None, (), ("TimeRE",), ["TimeRE"]):
        with pytest.raises(ImportError):
            guard("_strptime", g, g, fromlist, 0)
    with pytest.raises(ImportError):
        guard("_strptime", g, g, [], 1)
    for name in ("heapq", "_heapq", "_strptime.x", "datetime._strptime", "calendar", "locale"):
        with pytest.raises(ImportError):
            guard(name, g, g, [], 0)


FORMATS = {
    "a format walk": '"{0.__class__}".format(1)',
    "format_map": '"{a}".format_map({"a": 1})',
    "unbound": 'str.format("{0.__class__}", 1)',
    "a str subclass": 'class S(str):\n    pass\nS("{0.__class__}").format(1)',
}


@pytest.mark.parametrize("code", FORMATS.values(), ids=FORMATS.keys())
async def test_str_format_stays_refused(executor: Any, code: str) -> None:
    """It is an error if str.format / format_map run in a cell (now refused with a pointer at the f-string)."""
    out = await executor.execute(code, {}, host=RecordingHost())
    assert out.error is not None and out.result is None, out
    assert "f-string" in out.error.message, out.error
