"""A connector that was down when an execution started is used after an approval with no target recorded (review 16).

An execution records its connectors and their target fingerprints once, when it starts
(``runtime._execute``: ``connectors = sorted(catalog.methods)``, ``options["targets"] = catalog.targets``).
A connector that is unavailable then (its server down, its document unreadable; or still starting, for a
program that does not name it) is in neither. After an approval the program runs again from the top in
the catalog of *that* moment (``codemode approve`` is a fresh process: everything is resolved anew), so
the call on the connector now up runs and is journaled as applied, on a connector the execution has no
fingerprint for. ``targets.changed`` then lets any runtime roll it back ("a name it has no fingerprint for
is not refused"): a rollback from a configuration whose connector of that name acts on another backend
reverts there - the very thing the target fingerprints exist to refuse (review 13 M4).

The right outcome: the fingerprint of every connector a call is made on is recorded (at the latest when
its first call is journaled), so the rollback from the other backend's configuration is refused (or
leaves that backend alone).

Fixed (review 16, C3 and H2) the simpler way the finding offered: an execution's connector set is fixed
when it starts (DESIGN §5). Its later passes run over the connectors it recorded (``Catalog.only``), so a
connector that was down at the start stays out of it as it was then: the program's ``except NameError``
runs again, no call is made on it, and nothing of it can be rolled back anywhere.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from codemode_kernel.connectors.base import Tool
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio


class Pets:
    """One backend: its pets by id, and whether its server is up."""

    def __init__(self, label: str, *, up: bool) -> None:
        self.label = label
        self.up = up
        self.pets: dict[int, str] = {}

    def connector(self) -> ToolSetConnector:
        backend = self

        def add_pet(name: str) -> dict[str, Any]:
            """Add a pet."""
            pet_id = len(backend.pets) + 1
            backend.pets[pet_id] = name
            return {"id": pet_id}

        def undo(args: dict[str, Any], result: Any, ctx: Any) -> None:
            backend.pets.pop(result["id"], None)

        class Served(ToolSetConnector):
            def tools(self) -> Mapping[str, Tool]:
                if not backend.up:
                    raise ConnectionError(f"the {backend.label} pets server is down")
                return super().tools()

        return Served([add_pet], name="pets", reverts={"add_pet": undo}, target=f"pets {self.label}")


def gate() -> ToolSetConnector:
    def go() -> str:
        """Go on (needs a person's approval)."""
        return "ok"

    return ToolSetConnector([go], name="gate", requires_approval=["go"], target="review16 gate")


CODE = """
gate.go()
try:
    pets.add_pet(name='rex')
except NameError:
    pass
"""


async def test_a_rollback_from_another_backend_leaves_it_alone(make_runtime: RuntimeFactory) -> None:
    dev, prod = Pets("dev", up=False), Pets("prod", up=True)
    prod.pets[1] = "the production pet"
    started = make_runtime([gate(), dev.connector()])
    paused = await started.execute(CODE)
    assert paused["status"] == "paused", paused
    dev.up = True
    approving = make_runtime([gate(), dev.connector()])  # `codemode approve ID`: a fresh process, dev is up now
    out = await approving.approve(paused["execution_id"], seq=0)
    # The approved pass runs as the first did: `pets` was not there at the start, so it is not there now.
    assert out["status"] == "completed" and dev.pets == {}, out
    other = make_runtime([gate(), prod.connector()])  # the name `pets` configured for production
    with contextlib.suppress(Exception):  # a refusal is a right outcome
        await other.rollback(paused["execution_id"])
    assert prod.pets == {1: "the production pet"}, "the rollback deleted a pet on a backend the execution never used"
