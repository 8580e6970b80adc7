"""``probe_mcp_with_oauth`` bounds the MCP handshake of its proof by its ``http_timeout``.

The predecessor's probe gives each step the same bound: the first request, the flow's
requests, and the connection that proves the token. Played with an HTTP server on
127.0.0.1 that answers the first request (no token needed) and then never answers the
MCP handshake.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from akgentic.tool.mcp import MCPConnectionError
from akgentic.tool.mcp.oauth_handler import probe_mcp_with_oauth


@pytest.fixture
def stalled_url() -> Iterator[str]:
    """A server that needs no token but never answers an MCP request (a POST)."""
    released = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            self.send_response(405)  # a streamable-HTTP server without a GET stream
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            released.wait(timeout=30)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        released.set()
        server.shutdown()
        server.server_close()


def test_the_handshake_that_proves_the_token_is_bounded_by_the_http_timeout(
    stalled_url: str,
) -> None:
    started = time.monotonic()
    with pytest.raises(MCPConnectionError):
        probe_mcp_with_oauth(stalled_url, "tok", callback_port=0, http_timeout=0.5)
    # Well within the 5 s a connection is given by default.
    assert time.monotonic() - started < 4
