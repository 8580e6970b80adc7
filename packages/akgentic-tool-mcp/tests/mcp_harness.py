"""Helpers for the MCP end-to-end tests: real server processes to talk to.

Servers are `mcp_demo_server.py` run as subprocesses. For HTTP transports the listening
socket is bound here on a free 127.0.0.1 port and inherited by the child, so the port is
known before the server starts and nothing can take it in between.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

SERVER_SCRIPT = str(Path(__file__).with_name("mcp_demo_server.py"))

StartServer = Callable[..., "ServerProcess"]
"""Type of the `start_server` fixture: (transport, path="/mcp", *extra) -> ServerProcess."""


@dataclass
class ServerProcess:
    """A demo MCP server running in a subprocess."""

    process: subprocess.Popen[bytes]
    url: str = ""
    base_url: str = ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


def free_port() -> int:
    """A 127.0.0.1 port nothing listens on at the time of asking, for a listener under test."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_http_server(transport: str, path: str, *extra: str) -> ServerProcess:
    """Start the demo server over ``transport`` at ``path`` and wait until it answers."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}"
    args = [SERVER_SCRIPT, transport, "--fd", str(sock.fileno()), "--path", path]
    if "--oauth" in extra:
        args += ["--base-url", base_url]
    process = subprocess.Popen(
        [sys.executable, *args, *extra],
        pass_fds=[sock.fileno()],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    sock.close()  # the child holds its own copy
    server = ServerProcess(process=process, url=base_url + path, base_url=base_url)
    deadline = time.monotonic() + 20
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"demo MCP server exited with {process.returncode}")
        try:
            # Any HTTP answer (404 included) means the app is up.
            httpx.get(base_url + "/__ready", timeout=1.0)
            return server
        except httpx.TransportError:
            if time.monotonic() > deadline:
                server.stop()
                raise RuntimeError("demo MCP server did not start") from None
            time.sleep(0.05)


def stdio_args() -> tuple[str, list[str]]:
    """Command and arguments that start the demo server over stdio."""
    return sys.executable, [SERVER_SCRIPT, "stdio"]
