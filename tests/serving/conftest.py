"""Fixtures of the serving specs."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor
from tests.support import Shop


@pytest.fixture
async def runtime() -> AsyncIterator[tuple[CodemodeRuntime, Shop]]:
    """A runtime over the Shop connector, its journal in memory, the in-process executor."""
    shop = Shop()
    async with CodemodeRuntime([shop], store="sqlite://", executor=InProcessExecutor()) as rt:
        yield rt, shop
