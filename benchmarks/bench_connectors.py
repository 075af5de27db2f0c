"""Connector benchmarks (issue 4): MCP and OpenAPI call latency, start-up, and large-catalog costs.

Run: .venv/bin/python benchmarks/bench_connectors.py [--json] [--quick] [--calls 200] [--github]
Prints figures and ratios; it asserts nothing. ``--github`` also times the GitHub REST
description (needs it cached by tests/connectors/test_openapi_github.py, or npm).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from figures import Figure, emit, progress

from codemode_kernel.connectors.base import ExecutionContext
from codemode_kernel.connectors.http_auth import HttpAuth
from codemode_kernel.connectors.mcp import McpConnector
from codemode_kernel.connectors.openapi import OpenApiConnector
from codemode_kernel.demo.mcp_server import build_server
from codemode_kernel.discovery.stubs import method_stub
from tests.connectors.services import TOKEN, start

CTX = ExecutionContext("bench", 0, "bench", "m")
DOC = Path(__file__).resolve().parents[1] / "codemode_kernel" / "demo" / "petstore.yaml"


async def timed(fn: Callable[[], Awaitable[Any]], n: int) -> float:
    """Median seconds per call over ``n`` calls (after one warm-up call)."""
    await fn()
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        await fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


FIGURES: list[Figure] = []
REPEATS = [3]


async def repeated(fn: Callable[[], Awaitable[Any]], n: int) -> list[float]:
    """``REPEATS`` medians of ``n`` calls each, in ms."""
    return [await timed(fn, n) * 1e3 for _ in range(REPEATS[0])]


async def bench_mcp(calls: int) -> None:
    progress("MCP")
    inproc = McpConnector("notes", server=build_server())
    tools = await inproc.tools()
    in_samples = await repeated(lambda: tools["word_count"].execute({"text": "a b c"}, CTX), calls)
    FIGURES.append(Figure("MCP (demo server, tool word_count)", "in-process call", "ms", in_samples))
    await inproc.aclose()

    started = time.perf_counter()
    stdio = McpConnector("notes", command=sys.executable, args=["-m", "codemode_kernel.demo.mcp_server"])
    tools = await stdio.tools()
    first = time.perf_counter() - started
    stdio_samples = await repeated(lambda: tools["word_count"].execute({"text": "a b c"}, CTX), calls)
    FIGURES.append(Figure("MCP (demo server, tool word_count)", "stdio start + list tools", "ms", [first * 1e3]))
    FIGURES.append(Figure("MCP (demo server, tool word_count)", "stdio call (server reused)", "ms", stdio_samples,
                          anchor="the in-process call", anchor_samples=in_samples))
    await stdio.aclose()

    os.environ["BENCH_MCP_TOKEN"] = TOKEN
    service = start("codemode_kernel.demo.mcp_server", ["--http", "--token-env", "BENCH_MCP_TOKEN"],
                    env={"BENCH_MCP_TOKEN": TOKEN})
    try:
        http = McpConnector("notes", url=service.url, headers={"Authorization": "Bearer ${BENCH_MCP_TOKEN}"})
        tools = await http.tools()
        FIGURES.append(Figure("MCP (demo server, tool word_count)", "streamable HTTP call", "ms",
                              await repeated(lambda: tools["word_count"].execute({"text": "a b c"}, CTX), calls),
                              anchor="the in-process call", anchor_samples=in_samples))
        await http.aclose()
    finally:
        service.stop()


async def bench_openapi(calls: int) -> None:
    progress("OpenAPI")
    service = start("codemode_kernel.demo.http_service", env={"CODEMODE_DEMO_TOKEN": TOKEN})
    try:
        os.environ["BENCH_PETS_TOKEN"] = TOKEN
        connector = OpenApiConnector("pets", DOC, base_url=service.url,
                                     auth=HttpAuth.bearer(token_env="BENCH_PETS_TOKEN"))
        group = "OpenAPI (demo pets service on 127.0.0.1)"
        started = time.perf_counter()
        tools = await connector.tools()
        FIGURES.append(Figure(group, "load document + catalog", "ms", [(time.perf_counter() - started) * 1e3],
                              note=f"{len(tools)} methods"))
        get = await repeated(lambda: tools["listNotes"].execute({"limit": 5}, CTX), calls)
        async with httpx.AsyncClient() as raw:
            headers = {"Authorization": f"Bearer {TOKEN}"}
            plain = await repeated(lambda: raw.get(service.url + "/notes", params={"limit": 5}, headers=headers),
                                   calls)
        FIGURES.append(Figure(group, "GET through the connector", "ms", get, anchor="the same GET with httpx",
                              anchor_samples=plain))
        FIGURES.append(Figure(group, "POST with a JSON body", "ms",
                              await repeated(lambda: tools["createNote"].execute({"text": "bench"}, CTX), calls)))
        await connector.aclose()
    finally:
        service.stop()


async def bench_github() -> None:
    cached = Path.home() / ".cache" / "codemode-kernel" / "octokit-openapi-23.0.2" / "api.github.com.json"
    if not cached.is_file():
        print("GitHub: skipped (run tests/connectors/test_openapi_github.py once to cache the description)")
        return
    print("OpenAPI (GitHub REST description, 13 MB)")
    started = time.perf_counter()
    data = json.loads(cached.read_text(encoding="utf-8"))
    parsed = time.perf_counter() - started
    connector = OpenApiConnector("github", data, base_url="https://api.github.com")
    started = time.perf_counter()
    tools = await connector.tools()
    built = time.perf_counter() - started
    print(f"  parse JSON                 {ms(parsed)}")
    print(f"  build catalog              {ms(built)}   ({len(tools)} methods, {built / len(tools) * 1e6:.0f} µs each)")
    sizes = []
    started = time.perf_counter()
    for name, t in tools.items():
        sizes.append(len(method_stub(name, description=t.description, input_schema=t.input_schema,
                                     output_schema=t.output_schema, requires_approval=t.requires_approval)))
    stubs = time.perf_counter() - started
    print(f"  describe every method      {ms(stubs)}   ({stubs / len(tools) * 1000:.2f} ms each; "
          f"median {statistics.median(sizes):,.0f} chars, max {max(sizes):,})")


async def main() -> None:
    for noisy in ("httpx", "httpx2", "mcp", "mcp.server"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    parser.add_argument("--quick", action="store_true", help="fewer calls and repeats")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--github", action="store_true")
    args = parser.parse_args()
    REPEATS[0] = 2 if args.quick else args.repeats
    calls = 50 if args.quick else args.calls
    await bench_mcp(calls)
    await bench_openapi(calls)
    emit("connectors", FIGURES, args.json)
    if args.github and not args.json:
        await bench_github()


if __name__ == "__main__":
    asyncio.run(main())
