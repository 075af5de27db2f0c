"""codemode.search(limit=, connector=) and codemode.describe(page=, full=) from program code, under each executor."""

from __future__ import annotations

import pytest

from codemode_kernel import CodemodeRuntime
from tests.conftest import make_executor
from tests.discovery.catalog import connectors

pytestmark = pytest.mark.anyio

PROGRAM = """
found = codemode.search('delete a pod', limit=2, connector='kubernetes')
gmail = codemode.search('create', connector='gmail')
page = codemode.describe('github', page=1)
full = codemode.describe('github.pulls_create', full=True)
[len(found['results']), found['results'][0]['path'], found['results'][0]['required'], found['truncated'],
 sorted({r['connector'] for r in gmail['results']}), page['page'], page['pages'], full['kind'],
 codemode.describe('pulls_merge')['path']]
"""


async def test_the_options_reach_the_host_from_program_code(executor_kind: str) -> None:
    """limit, connector, page and full cross the sandbox boundary and shape the answer."""
    async with CodemodeRuntime(connectors(), store="sqlite://", executor=make_executor(executor_kind)) as rt:
        out = await rt.execute(PROGRAM)
        assert out["status"] == "completed", out
        assert out["result"] == [2, "kubernetes.deleteCoreV1NamespacedPod", ["name", "namespace"], True, ["gmail"],
                                 1, 1, "method", "github.pulls_merge"]


@pytest.mark.parametrize(("code", "message"), [
    ("codemode.search('x', limit=0)", "limit must be a whole number from 1 to 50"),
    ("codemode.search('x', limit='5')", "limit must be a whole number from 1 to 50"),
    ("codemode.search('x', connector='nope')", "connector='nope' is not configured; use one of: github, gmail"),
    ("codemode.describe('github', page=0)", "page must be a whole number from 1"),
    ("codemode.describe('github', full='yes')", "full must be True or False"),
])
async def test_a_wrong_option_is_an_error_the_program_can_read(executor_kind: str, code: str, message: str) -> None:
    """A bad option raises inside the program with a message saying what is allowed; the pass goes on."""
    program = f"try:\n    {code}\n    r = 'no error'\nexcept (ValueError, TypeError) as e:\n    r = str(e)\nr"
    async with CodemodeRuntime(connectors(), store="sqlite://", executor=make_executor(executor_kind)) as rt:
        out = await rt.execute(program)
        assert out["status"] == "completed", out
        assert message in out["result"]
