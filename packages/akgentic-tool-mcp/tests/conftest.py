"""Fixtures for the MCP tests: demo MCP servers in subprocesses."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# pytest runs with --import-mode=importlib, which does not put this folder on sys.path;
# the tests import the harness by name (appended, so that nothing in this folder can shadow
# an installed module).
sys.path.append(str(Path(__file__).parent))

from mcp_harness import ServerProcess, StartServer, start_http_server
from oauth_stand_in import StandIn, running_stand_in


@pytest.fixture
def start_server() -> Iterator[StartServer]:
    """Start demo MCP servers over HTTP for one test; all are stopped afterwards."""
    started: list[ServerProcess] = []

    def start(transport: str, path: str = "/mcp", *extra: str) -> ServerProcess:
        server = start_http_server(transport, path, *extra)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def streamable_server() -> Iterator[ServerProcess]:
    """A streamable-HTTP demo server at a path that ends in /sse (a trap for URL guessing)."""
    server = start_http_server("streamable-http", "/api/v1/sse")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def sse_server() -> Iterator[ServerProcess]:
    """An SSE demo server at a path that does not end in /sse."""
    server = start_http_server("sse", "/api/v1/stream")
    yield server
    server.stop()


@pytest.fixture
def stand_in() -> Iterator[StandIn]:
    """A scriptable OAuth/MCP stand-in on 127.0.0.1 for one test (see oauth_stand_in)."""
    with running_stand_in() as state:
        yield state
