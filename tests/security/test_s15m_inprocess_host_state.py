"""The in-process executor's passes do not change the host's ``random`` or ``hashlib`` (s14v's notes).

In one process the sandbox's modules were the host's own objects: ``random.seed(1)`` in a cell
reseeded the host's generator (every later draw of the host was the cell's choice), and
``hashlib.algorithms_available`` / ``algorithms_guaranteed`` are sets a cell could empty. The
in-process executor now gives its passes a generator of their own, and both executors show the
sets as read-only copies; the isolated executor's ``random`` is the worker's, as before.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from codemode_kernel import InProcessExecutor
from codemode_kernel.executor.isolated import SubprocessExecutor
from tests.executor.isolated_support import RecordingHost

pytestmark = pytest.mark.anyio

RESEEDS = {
    "the global": "random.seed(1)\nrandom.random()",
    "an import": "import random as r\nr.seed(1)\nr.random()",
    "a from-import": "from random import seed, random as draw\nseed(1)\ndraw()",
    "through statistics": "statistics.random.seed(1)\nstatistics.random.random()",
    "setstate": "s = random.getstate()\nrandom.setstate(s)\nrandom.shuffle([1, 2, 3])\n0.5",
}


@pytest.mark.parametrize("code", RESEEDS.values(), ids=RESEEDS.keys())
async def test_an_inprocess_pass_leaves_the_host_generator_alone(code: str) -> None:
    """It is an error if a cell's random.seed / setstate reaches the host's generator."""
    ex = InProcessExecutor()
    try:
        random.seed(20261207)
        expected = random.Random(20261207).random()
        out = await ex.execute(code, {}, host=RecordingHost())
        assert out.error is None, out
        assert random.random() == expected  # the host's next draw is the one its own seed made
    finally:
        await ex.aclose()


async def test_an_inprocess_seed_still_makes_a_repeatable_sequence() -> None:
    """It is an error if a seeded cell stops drawing the sequence Python's generator draws for that seed."""
    ex = InProcessExecutor()
    try:
        out = await ex.execute("random.seed(7)\n[random.randint(1, 100) for _ in range(5)] + [random.choice('abc')]",
                               {}, host=RecordingHost())
        generator = random.Random(7)
        assert out.error is None, out
        assert out.result == [generator.randint(1, 100) for _ in range(5)] + [generator.choice("abc")]
    finally:
        await ex.aclose()


@pytest.fixture(params=["inprocess", "subprocess"])
async def executor(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    ex = InProcessExecutor() if request.param == "inprocess" else SubprocessExecutor()
    yield ex
    await ex.aclose()


CHANGES = {
    "available, cleared": "hashlib.algorithms_available.clear()",
    "available, added to": "hashlib.algorithms_available.add('rot13')",
    "guaranteed, discarded": "hashlib.algorithms_guaranteed.discard('sha256')",
    "from-imported": "from hashlib import algorithms_guaranteed\nalgorithms_guaranteed.clear()",
    "json's escape table": "json.encoder.ESCAPE_DCT['a'] = 'b'",
}


@pytest.mark.parametrize("code", CHANGES.values(), ids=CHANGES.keys())
async def test_module_sets_cannot_be_changed(executor: Any, code: str) -> None:
    """It is an error if a cell can change a module's public set or table (the host's own, in process)."""
    available, guaranteed = set(hashlib.algorithms_available), set(hashlib.algorithms_guaranteed)
    out = await executor.execute(code, {}, host=RecordingHost())
    assert out.error is not None, out
    assert hashlib.algorithms_available == available
    assert hashlib.algorithms_guaranteed == guaranteed


async def test_module_sets_still_read(executor: Any) -> None:
    """It is an error if the sets stop answering what they hold."""
    code = ("['sha256' in hashlib.algorithms_available, sorted(hashlib.algorithms_guaranteed), "
            "len(hashlib.algorithms_available) > 0, json.encoder.ESCAPE_DCT['\\n']]")
    out = await executor.execute(code, {}, host=RecordingHost())
    assert out.error is None, out
    assert out.result == [True, sorted(hashlib.algorithms_guaranteed), True, "\\n"]


async def test_the_isolated_worker_draws_as_before() -> None:
    """It is an error if the isolated worker's seeded draws change, or two unseeded passes draw alike."""
    ex = SubprocessExecutor()
    try:
        seeded = await ex.execute("random.seed(3)\n[random.random(), random.randrange(10)]", {}, host=RecordingHost())
        generator = random.Random(3)
        assert seeded.result == [generator.random(), generator.randrange(10)]
        draws = [(await ex.execute("random.getrandbits(64)", {}, host=RecordingHost())).result for _ in range(2)]
        assert draws[0] != draws[1]
    finally:
        await ex.aclose()


async def test_no_pass_reads_the_host_network_card(executor: Any) -> None:
    """It is an error if uuid.getnode() or uuid1()'s node in a pass is the host's (its network card's address),
    or if uuid1(node=...) stops using the node it is given."""
    import uuid

    code = "[uuid.getnode(), uuid.uuid1().node, uuid.uuid1(node=5).node, uuid.getnode() == uuid.getnode()]"
    out = await executor.execute(code, {}, host=RecordingHost())
    assert out.error is None, out
    node, node_of_uuid1, given, stable = out.result
    assert node != uuid.getnode()
    assert node_of_uuid1 == node and given == 5 and stable
