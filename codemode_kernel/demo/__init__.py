"""Bundled demo services that tests and the teaching notebooks connect to.

- :mod:`codemode_kernel.demo.mcp_server`: a small notes MCP server built with the SDK's
  ``MCPServer``; ``python -m codemode_kernel.demo.mcp_server`` serves it over stdio (or
  streamable HTTP with ``--http``), and :func:`~codemode_kernel.demo.mcp_server.build_server`
  gives the same server in-process.
- :mod:`codemode_kernel.demo.http_service`: a small pets-and-notes HTTP API (starlette +
  uvicorn) with its OpenAPI 3.1 document (``petstore.yaml`` beside it);
  ``python -m codemode_kernel.demo.http_service --port N`` serves it on 127.0.0.1.

Both are ours, need no network and keep their data in memory (or in a JSON file).
"""
