"""``printed`` does not hand a cell the pass's session, its channel or the host (review 13).

RestrictedPython compiles ``printed`` to a call of the ``_print`` object a function's prints go
to, and sandbox.py's ``_PrintCollector.__call__`` returns the collector itself. Its attribute
``session`` does not start with ``_``, so the getattr guard lets it through:

    def f():
        print('')
        return printed
    f().session.channel.host

- on the in-process executor that is the runtime's ``PassHandler`` in the host's interpreter:
  ``.catalog.connectors['pets'].secrets()`` returns the bearer token the connector reads from
  the environment (a secret out, unredacted); ``.catalog.connectors['shop'].create_item(...)``
  runs an action that needs approval with no approval and no journal entry;
  ``.journal`` is the store; ``.loop`` (on the channel) is the host's event loop;
- on the isolated executor it is the worker's ``_Session`` and ``PipeChannel``: sandbox code
  speaks the raw protocol, as a tampered worker would (the host still checks every request,
  but the language layer DESIGN §11 promises as the second layer is gone).

The right outcome: ``printed`` is refused, or what it gives has no path to the session (its
text, as RestrictedPython's own ``PrintCollector`` gives).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from codemode_kernel import OpenApiConnector
from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio

TOKEN_ENV = "CODEMODE_REVIEW13_PETS_TOKEN"
TOKEN = "review13-pets-token-0f3c9a"

DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0", "info": {"title": "Pets", "version": "1"},
    "paths": {"/pets": {"get": {"operationId": "listPets", "responses": {"200": {"description": "ok"}}}}},
}

COLLECTOR = '''
def f():
    print('')
    return printed
'''


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    yield TOKEN


def pets() -> OpenApiConnector:
    return OpenApiConnector("pets", DOCUMENT, base_url="http://127.0.0.1:9",
                            auth={"type": "bearer", "token_env": TOKEN_ENV})


async def test_printed_does_not_reach_the_session(make_runtime: RuntimeFactory) -> None:
    """It is an error if a cell gets the pass's session (and its channel) through ``printed``."""
    rt = make_runtime([Shop()])
    out = await rt.execute(COLLECTOR + "try:\n    s = f().session.channel\n    seen = 'reached'\n"
                                       "except Exception:\n    seen = 'refused'\nseen")
    assert out.get("result") != "reached", out


async def test_printed_does_not_reach_a_connectors_credential(make_runtime: RuntimeFactory, executor_kind: str,
                                                              token: str) -> None:
    """It is an error if a cell reads the token a connector holds, through the host behind ``printed``."""
    if executor_kind != "inprocess":
        pytest.skip("the isolated worker holds no host object: see test_printed_does_not_reach_the_session")
    rt = make_runtime([Shop(), pets()])
    out = await rt.execute(COLLECTOR + "f().session.channel.host.catalog.connectors['pets'].secrets()")
    assert token not in repr(out), out


async def test_printed_does_not_run_an_action_past_its_approval(make_runtime: RuntimeFactory,
                                                                executor_kind: str) -> None:
    """It is an error if shop.create_item (requires approval) runs without a person approving it."""
    if executor_kind != "inprocess":
        pytest.skip("the isolated worker holds no host object: see test_printed_does_not_reach_the_session")
    shop = Shop()
    rt = make_runtime([shop])
    out = await rt.execute(COLLECTOR + "try:\n    f().session.channel.host.catalog.connectors['shop']"
                                       ".create_item('unapproved', None)\nexcept Exception:\n    pass\n'done'")
    assert shop.calls["create_item"] == 0, out
    assert all(item["title"] != "unapproved" for item in shop.items.values())
