"""A program that writes a connector's name in compatibility characters is not seen to name it (review 16).

Python reads identifiers in NFKC form: ``ｐｅｔｓ.listPets()`` (fullwidth letters) *is* ``pets.listPets()``.
The runtime decides what a program names with a text search (``connectors/unavailable.named_in``: the
name as a whole word), and uses it to say that a connector the program uses is unavailable (the note a
model needs to stop retrying), to wait for a connector still starting (CatalogResolver ``needs``), to
wait for every connector when the program uses ``codemode`` (``settled``), and to list a snippet's
connectors. Written in fullwidth letters (a model copying text, or a program that means to slip past),
the name is missed: the program fails with a bare NameError and no note, or does not wait.

The right outcome: what a program names is judged on its NFKC form (or on its parsed names), so the note
comes as it does for the plain spelling.
"""

from __future__ import annotations

import pytest

from codemode_kernel import OpenApiConnector, ToolSetConnector
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio


def shop() -> ToolSetConnector:
    def ping() -> str:
        """Ping."""
        return "pong"

    return ToolSetConnector([ping], name="shop", target="review16 shop")


async def test_an_unavailable_connector_named_in_fullwidth_letters_is_said_unavailable(
        make_runtime: RuntimeFactory) -> None:
    pets = OpenApiConnector("pets", "http://127.0.0.1:9/openapi.json", base_url="http://127.0.0.1:9", timeout=2)
    rt = make_runtime([pets, shop()])
    plain = await rt.execute("pets.listPets()")
    assert plain["status"] == "error" and "unavailable" in plain["error"], plain  # the control
    wide = await rt.execute("\uff50\uff45\uff54\uff53.listPets()")  # ｐｅｔｓ.listPets()
    assert wide["status"] == "error", wide
    assert "unavailable" in wide["error"], wide["error"]
