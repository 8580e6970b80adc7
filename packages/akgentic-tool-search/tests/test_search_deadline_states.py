"""The deadline's shutdown in the states a race can leave a connection or a response in.

The watchdog may fire just as a request picks its connection, or just as its body was
read and the connection released. Those moments cannot be reached reliably over a real
socket, so the states are built directly, from real sockets and real urllib3 objects.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from urllib3.connection import HTTPConnection
from urllib3.response import HTTPResponse

from akgentic.tool.search._transport import Transfer


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    ours, theirs = socket.socketpair()
    ours.settimeout(2)
    try:
        yield ours, theirs
    finally:
        ours.close()
        theirs.close()


def expired() -> Transfer:
    transfer = Transfer(timeout=5, max_bytes=1_000)
    transfer.expire()
    return transfer


def test_a_connection_handed_out_after_the_deadline_is_ended_at_once(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    ours, _ = pair
    connection = HTTPConnection("127.0.0.1")
    connection.sock = ours
    expired().watch(connection)
    assert ours.recv(1) == b""  # shut down: the read ends instead of blocking


def test_a_response_read_after_the_deadline_is_ended_at_once(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    ours, _ = pair
    response = HTTPResponse(
        body=b"", connection=HTTPConnection("127.0.0.1"), sock_shutdown=ours.shutdown
    )
    expired().watch(response)
    assert ours.recv(1) == b""


def test_what_is_already_finished_is_left_alone(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    ours, theirs = pair
    closed = socket.socket()
    closed.close()
    live = HTTPConnection("127.0.0.1")
    gone = HTTPConnection("127.0.0.1")
    gone.sock = closed
    finished = [
        live,  # never connected: no socket yet
        gone,  # its socket already closed
        HTTPResponse(body=b""),  # nothing to shut
        HTTPResponse(body=b"", sock_shutdown=ours.shutdown),  # released to the pool
        HTTPResponse(body=b"", connection=live, sock_shutdown=closed.shutdown),  # closed
    ]
    transfer = expired()
    for each in finished:
        transfer.watch(each)  # none of them raises
    # The released response's socket was not shut: it still reads.
    theirs.sendall(b"x")
    assert ours.recv(1) == b"x"
