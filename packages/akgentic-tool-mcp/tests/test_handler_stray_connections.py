"""Connections to a redirect listener that never bring a request do not disturb the flow.

Browsers open connections ahead of need (a preconnect) and may leave one idle while the
redirect travels on another. The blocking listener of ``handle_mcp_oauth_flow`` must still
take the redirect (it used to serve one connection at a time, and waited on the idle one
for as long as the browser kept it open), and the asynchronous listener must close at
once when the flow ends (it used to wait for the idle connection to time out, 10 s). A
connection the browser resets (a tab closed mid-load) is dropped without an error in the
log, or a traceback on the terminal. Played with real sockets on 127.0.0.1 as the browser.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from urllib.parse import urlencode, urlsplit

import httpx
import pytest
from _handler_browsers import approve, redirect_uri
from mcp_harness import free_port
from oauth_stand_in import StandIn

from akgentic.tool.mcp.oauth_handler import (
    authorize_mcp_server,
    handle_mcp_oauth_flow,
    listen_for_callback,
)

STATE = "st-idle"


@pytest.fixture
def idle_connections() -> Iterator[list[socket.socket]]:
    """The browser's idle connections, closed at the end of the test."""
    opened: list[socket.socket] = []
    yield opened
    for connection in opened:
        connection.close()


def _reset(port: int, request: bytes) -> None:
    """Connect, send ``request``, and drop the connection with a reset (no orderly close)."""
    connection = socket.create_connection(("127.0.0.1", port))
    if request:
        connection.sendall(request)
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    connection.close()


def _blocking_flow(before_redirect: Callable[[int], object]) -> tuple[list[str], list[int]]:
    """Run ``handle_mcp_oauth_flow`` with a browser that does ``before_redirect(port)``
    to the listener, then sends the redirect; the codes it returned within 5 s, and the
    listener's answers to the redirect."""
    port = free_port()
    listener = f"http://127.0.0.1:{port}/callback"
    auth_url = "https://auth.example/authorize?" + urlencode(
        {"state": STATE, "redirect_uri": listener}
    )
    answers: list[int] = []
    redirects: list[threading.Thread] = []

    def browser(url: str) -> bool:
        # The listener is up when the browser is sent off.
        before_redirect(port)

        def redirect() -> None:
            query = urlencode({"code": "the-code", "state": STATE})
            answers.append(httpx.get(f"{listener}?{query}", timeout=10).status_code)

        redirects.append(threading.Thread(target=redirect, daemon=True))
        redirects[0].start()
        return True

    codes: list[str] = []
    flow = threading.Thread(
        target=lambda: codes.append(
            handle_mcp_oauth_flow(
                auth_url, callback_port=port, auth_timeout=10, open_browser=browser
            )
        ),
        daemon=True,
    )
    flow.start()
    flow.join(timeout=5)
    if codes:
        redirects[0].join(timeout=5)  # the page is written once the code is taken
    return codes, answers


def test_the_blocking_listener_takes_the_redirect_behind_an_idle_connection(
    idle_connections: list[socket.socket],
) -> None:
    def preconnect(port: int) -> None:
        idle_connections.append(socket.create_connection(("127.0.0.1", port)))

    codes, answers = _blocking_flow(preconnect)
    assert codes == ["the-code"], "the redirect waited behind the idle connection"
    assert answers == [200]


def test_the_blocking_listener_drops_a_reset_connection_quietly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def reset_twice(port: int) -> None:
        _reset(port, b"")
        _reset(port, b"GET /callback?state=" + STATE.encode())

    codes, answers = _blocking_flow(reset_twice)
    assert (codes, answers) == (["the-code"], [200])
    assert "Traceback" not in capsys.readouterr().err


async def test_the_flow_returns_without_waiting_for_an_idle_connection(
    stand_in: StandIn, idle_connections: list[socket.socket]
) -> None:
    stand_in.serve_as_own_authorization_server()

    async def preconnecting_browser(url: str) -> bool:
        port = urlsplit(redirect_uri(url)).port
        assert port is not None
        idle_connections.append(socket.create_connection(("127.0.0.1", port)))
        return await approve(url)

    started = time.monotonic()
    token = await authorize_mcp_server(
        f"{stand_in.base}/mcp", open_browser=preconnecting_browser, timeout=10
    )
    assert token.access_token == "t"
    assert time.monotonic() - started < 5


async def test_a_connection_the_browser_resets_is_dropped_quietly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    redirect = "?" + urlencode({"code": "the-code", "state": STATE})
    async with listen_for_callback() as callback, httpx.AsyncClient() as client:
        callback.expect(STATE)
        _reset(callback.port, b"")  # before a word
        _reset(callback.port, b"GET /callback" + redirect.encode())  # mid-request
        answer = await client.get(callback.redirect_uri + redirect)
        assert answer.status_code == 200
        assert await callback.wait() == {"code": "the-code", "state": STATE}
    # Wait until the listener has finished with every connection it took.
    pending = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    if pending:
        await asyncio.wait(pending, timeout=5)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
