"""A snippet may take the name of a configured connector that is down when it is saved (review 16).

Review 15x L13 made ``save_snippet`` refuse a connector's name (search listed both under one path,
describe showed one of them, and ``codemode.run('pets', ...)`` next to ``pets.x()`` reads as one thing):
``snippets.check_unclaimed(name, await self.catalog())`` checks ``catalog.methods``, which holds the
connectors that *started*. A configured connector that is unavailable at that moment (its server down,
its document unreadable) is not there, so the name is taken; once the connector is back, both answer to
``pets`` again.

The right outcome: a configured connector's name is refused whether or not the connector is up now.
"""

from __future__ import annotations

import pytest

from codemode_kernel import OpenApiConnector, ToolSetConnector
from codemode_kernel.errors import SnippetError
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio


def shop() -> ToolSetConnector:
    def list_items() -> list[str]:
        """List the items."""
        return ["a"]

    return ToolSetConnector([list_items], name="shop", target="review16 shop")


async def test_a_snippet_cannot_take_the_name_of_a_connector_that_is_down(make_runtime: RuntimeFactory) -> None:
    pets = OpenApiConnector("pets", "http://127.0.0.1:9/openapi.json", base_url="http://127.0.0.1:9", timeout=2)
    rt = make_runtime([pets, shop()])
    done = await rt.execute("shop.list_items()")
    assert done["status"] == "completed", done
    assert "pets" in (await rt.catalog()).unavailable
    with pytest.raises(SnippetError, match="pets"):
        await rt.save_snippet("pets", execution_id=done["execution_id"])
