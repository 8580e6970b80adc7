"""The predecessor's blocking helpers: what they ask the server, and how they fail.

``get_mcp_token_with_oauth_if_needed`` and ``probe_mcp_with_oauth`` ask the MCP server once
and run the browser flow only on a ``401`` with a Bearer challenge. Played against HTTP
stand-ins on 127.0.0.1 (to see the request itself), a socket that never answers, and the
demo MCP servers.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest
from mcp_harness import ServerProcess, StartServer, start_http_server
from oauth_stand_in import StandIn

from akgentic.tool.mcp.oauth_handler import (
    OAuthFlowError,
    get_mcp_token_with_oauth_if_needed,
    probe_mcp_with_oauth,
)


@pytest.fixture
def silent_url() -> Iterator[str]:
    """A server that takes the connection and never answers (the kernel accepts for it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"


@pytest.fixture(scope="module")
def oauth_server() -> Iterator[ServerProcess]:
    server = start_http_server("streamable-http", "/mcp", "--oauth")
    yield server
    server.stop()


def test_the_server_is_asked_once_for_json_or_a_stream_with_the_given_token(
    stand_in: StandIn,
) -> None:
    # A moved endpoint is followed; what answers there decides.
    stand_in.routes["/old"] = (307, {}, {"Location": "/mcp"})
    stand_in.routes["/mcp"] = (401, {}, {"WWW-Authenticate": 'Basic realm="mcp"'})
    with pytest.raises(
        OAuthFlowError,
        match=r"answered 401 without a Bearer challenge; it does not use OAuth, "
        r"so no token can be obtained for it here$",
    ):
        get_mcp_token_with_oauth_if_needed(f"{stand_in.base}/old", "tok-1", callback_port=0)
    (asked,) = stand_in.requests_to("/mcp")
    assert asked.method == "GET"
    assert asked.headers["Accept"] == "application/json, text/event-stream"
    assert asked.headers["Authorization"] == "Bearer tok-1"
    assert stand_in.oauth_requests() == []


def test_a_server_that_never_answers_fails_within_the_http_timeout(silent_url: str) -> None:
    started = time.monotonic()
    with pytest.raises(OAuthFlowError, match=f"GET {silent_url} failed: ReadTimeout"):
        get_mcp_token_with_oauth_if_needed(silent_url, callback_port=0, http_timeout=0.5)
    assert time.monotonic() - started < 4


def test_the_probe_also_bounds_the_first_request_by_the_http_timeout(silent_url: str) -> None:
    started = time.monotonic()
    with pytest.raises(OAuthFlowError, match="ReadTimeout"):
        probe_mcp_with_oauth(silent_url, callback_port=0, http_timeout=0.5)
    assert time.monotonic() - started < 4


def test_an_unreachable_server_is_named_with_the_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"  # bound, never listening
        with pytest.raises(OAuthFlowError, match=f"GET {url} failed: ConnectError"):
            get_mcp_token_with_oauth_if_needed(url, callback_port=0)


def test_a_plain_http_server_off_loopback_is_refused_by_name() -> None:
    with pytest.raises(OAuthFlowError) as caught:
        get_mcp_token_with_oauth_if_needed("http://mcp.acme.example/mcp", callback_port=0)
    assert "mcp server url ('http://mcp.acme.example/mcp')" in str(caught.value).lower()


def test_the_flow_waits_for_the_user_only_as_long_as_asked(oauth_server: ServerProcess) -> None:
    listener = r"http://127\.0\.0\.1:\d+/callback"
    with pytest.raises(
        OAuthFlowError, match=f"no authorization arrived at {listener} within 0\\.5 s$"
    ):
        get_mcp_token_with_oauth_if_needed(
            oauth_server.url, callback_port=0, oauth_timeout=0.5, open_browser=lambda url: True
        )


def test_the_probe_proves_a_given_token_on_a_server_without_oauth(
    start_server: StartServer,
) -> None:
    gated = start_server("streamable-http", "/mcp", "--require-token", "s3cret")
    assert probe_mcp_with_oauth(gated.url, "s3cret", callback_port=0) == "s3cret"


def test_a_plain_http_mcp_server_on_a_remote_host_is_named_and_never_asked() -> None:
    with pytest.raises(
        OAuthFlowError, match=r"^the MCP server URL \('http://mcp\.example/mcp'\) is not https"
    ):
        get_mcp_token_with_oauth_if_needed("http://mcp.example/mcp", None, callback_port=0)
