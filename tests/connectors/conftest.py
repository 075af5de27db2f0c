"""Fixtures for the connector tests: the demo HTTP service and the demo MCP server over HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.connectors.services import TOKEN, Service, start


@pytest.fixture(scope="module")
def pet_service() -> Iterator[Service]:
    """The demo pets API on a free port of 127.0.0.1, accepting ``TOKEN``."""
    service = start("codemode_kernel.demo.http_service", env={"CODEMODE_DEMO_TOKEN": TOKEN})
    yield service
    service.stop()


@pytest.fixture(scope="module")
def mcp_http_service() -> Iterator[Service]:
    """The demo MCP server over streamable HTTP, requiring ``Authorization: Bearer TOKEN``."""
    service = start("codemode_kernel.demo.mcp_server", ["--http", "--token-env", "DEMO_MCP_TOKEN"],
                    env={"DEMO_MCP_TOKEN": TOKEN})
    yield service
    service.stop()
