"""The suite cannot reach beyond this machine: pytest-socket is on for every test run.

The guard is configured once, in the root ``pyproject.toml`` (``--allow-hosts`` lists the
loopback addresses); every package's ``dev`` group brings pytest-socket so that a package's
own tests run under the same rule when run alone.
"""

from __future__ import annotations

import socket

import pytest
from pytest_socket import SocketConnectBlockedError


def test_a_connection_beyond_loopback_is_refused() -> None:
    # 192.0.2.1 is TEST-NET-1 (RFC 5737): never routed, so only the guard can answer.
    with (
        socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock,
        pytest.raises(SocketConnectBlockedError),
    ):
        sock.connect(("192.0.2.1", 80))


def test_loopback_stays_reachable() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.create_connection(server.getsockname(), timeout=5) as client:
            accepted, _ = server.accept()
            with accepted:
                client.sendall(b"ping")
                assert accepted.recv(4) == b"ping"
