"""Which HTTP client carries the flow's requests to the MCP and authorization servers.

A caller that passes ``http_client`` to ``authorize_mcp_server`` has set it up for its
network (a gateway's header, a proxy, its own certificates): every request of the flow
must go through it. The predecessor's helper ``get_mcp_token_with_oauth_if_needed`` bounds
each HTTP request by its ``http_timeout``, the requests of the flow it runs included.
Played with stand-ins on 127.0.0.1 and a socket that never answers.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import httpx
import pytest
from _handler_browsers import ConsentingBrowser, approve
from oauth_stand_in import StandIn

from akgentic.tool.mcp.oauth_handler import (
    OAuthFlowError,
    authorize_mcp_server,
    get_mcp_token_with_oauth_if_needed,
)


@pytest.fixture
def silent_url() -> Iterator[str]:
    """An endpoint that takes the connection and never answers (the kernel accepts for it);
    closing it at the end resets the connections still waiting."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/token"


async def test_every_request_goes_through_the_callers_client(stand_in: StandIn) -> None:
    stand_in.serve_as_own_authorization_server()
    gateway = {"X-Gateway-Key": "k-7"}
    async with httpx.AsyncClient(headers=gateway) as http:
        token = await authorize_mcp_server(
            f"{stand_in.base}/mcp", open_browser=approve, timeout=10, http_client=http
        )
    assert token.access_token == "t"
    consent = stand_in.requests_to("/authorize")
    flow_requests = [seen for seen in stand_in.seen if seen not in consent]
    assert {seen.path for seen in flow_requests} >= {
        "/mcp",
        "/.well-known/oauth-authorization-server",
        "/register",
        "/token",
    }
    assert all(seen.headers.get("X-Gateway-Key") == "k-7" for seen in flow_requests)
    # The browser's own request is not the flow's: it does not carry the caller's header.
    assert [seen.headers.get("X-Gateway-Key") for seen in consent] == [None]


def test_the_http_timeout_bounds_the_token_request_too(stand_in: StandIn, silent_url: str) -> None:
    stand_in.routes["/mcp"] = (401, {}, {"WWW-Authenticate": "Bearer"})
    stand_in.serve_as_own_authorization_server(token_endpoint=silent_url)
    failures: list[BaseException] = []

    def run() -> None:
        try:
            get_mcp_token_with_oauth_if_needed(
                f"{stand_in.base}/mcp",
                callback_port=0,
                http_timeout=0.5,
                oauth_timeout=10,
                open_browser=ConsentingBrowser(),
            )
        except BaseException as exc:  # handed to the test's thread
            failures.append(exc)

    helper = threading.Thread(target=run, daemon=True)
    helper.start()
    # Registration and consent take a fraction of a second; the token request 0.5 s more.
    helper.join(timeout=5)
    assert not helper.is_alive(), "the token request was not bounded by http_timeout"
    (failure,) = failures
    assert isinstance(failure, OAuthFlowError)
    assert f"POST {silent_url} failed: ReadTimeout" in str(failure)
