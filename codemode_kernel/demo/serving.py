"""Serve an ASGI app on 127.0.0.1 with uvicorn, announcing the real URL on stdout.

``--port 0`` picks a free port: the socket is bound before uvicorn starts, so the printed
URL is right and there is no race between choosing a port and using it.
"""

from __future__ import annotations

import argparse
import socket
import sys
from typing import Any

READY_PREFIX = "codemode demo listening on "


def add_server_arguments(parser: argparse.ArgumentParser, default_port: int) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=default_port, help="port (0 picks a free one)")


def serve(app: Any, host: str, port: int, path: str = "") -> None:
    """Run ``app`` until interrupted; print ``READY_PREFIX + url`` once the socket is bound."""
    import uvicorn

    # proto=IPPROTO_TCP matters: asyncio turns Nagle off (TCP_NODELAY) only on sockets whose
    # proto says TCP, and accepted sockets inherit it; with proto 0 every keep-alive request
    # waited ~40 ms for a delayed ACK.
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    bound = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    shown = f"[{host}]" if ":" in host else host
    print(f"{READY_PREFIX}http://{shown}:{bound}{path}", flush=True)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C in a terminal: exit quietly
        pass
    finally:
        sock.close()
        sys.stdout.flush()
