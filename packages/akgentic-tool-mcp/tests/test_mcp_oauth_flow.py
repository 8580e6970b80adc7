"""The OAuth browser flow, end to end against a real MCP server that is its own OAuth server.

The stand-in is `mcp_demo_server.py --oauth`: the `mcp` package's resource-server and
authorization-server routes (401 challenge, RFC 9728 and RFC 8414 metadata, dynamic
registration, /authorize, /token with PKCE verification) backed by an in-memory provider
that approves every request. The "browser" is injected: it follows the authorization
redirect to the flow's local listener, as a user's browser would after consent.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import socket
import threading
from collections.abc import Iterator
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from mcp_harness import ScriptedModel, ServerProcess, start_http_server
from pydantic_ai import Agent
from pydantic_ai.messages import ToolReturnPart

from akgentic.tool.mcp import MCPConnectionError, MCPHTTPConnectionConfig, MCPTool
from akgentic.tool.mcp.oauth_handler import (
    AuthorizationCode,
    OAuthFlowError,
    authorize_mcp_server,
    authorize_mcp_server_sync,
    discover_authorization_server,
    exchange_code,
    listen_for_callback,
    new_pkce_pair,
    parse_www_authenticate,
    register_client,
    request_authorization_code,
)


class Browser:
    """Plays the user's browser: visits the authorization URL and follows its redirect."""

    def __init__(self) -> None:
        self.visited: list[str] = []

    async def __call__(self, url: str) -> bool:
        self.visited.append(url)
        async with httpx.AsyncClient() as client:
            consent = await client.get(url)
            assert consent.status_code in (302, 303, 307), consent.text
            location = consent.headers["location"]
            self.visited.append(location)
            landing = await client.get(location)
            assert landing.status_code == 200
        return True


@pytest.fixture(scope="module")
def oauth_server() -> Iterator[str]:
    server = start_http_server("streamable-http", "/mcp", "--oauth")
    yield server.url
    server.stop()


async def test_the_flow_yields_a_token_the_server_accepts(oauth_server: str) -> None:
    # Without a token, the server turns MCPTool away.
    anonymous = MCPTool(connection=MCPHTTPConnectionConfig(url=oauth_server))
    with pytest.raises(MCPConnectionError):
        await Agent(ScriptedModel(calls=[]).model(), toolsets=anonymous.get_toolsets()).run("x")

    browser = Browser()
    token = await authorize_mcp_server(oauth_server, open_browser=browser, timeout=20)
    assert token.access_token.startswith("at-")
    assert token.token_type.lower() == "bearer"
    assert token.expires_in == 3600

    authorize_query = parse_qs(urlsplit(browser.visited[0]).query)
    assert authorize_query["response_type"] == ["code"]
    assert authorize_query["code_challenge_method"] == ["S256"]
    assert authorize_query["resource"] == [oauth_server]
    redirect = urlsplit(browser.visited[1])
    assert redirect.hostname == "127.0.0.1"
    assert redirect.path == "/callback"

    card = MCPTool(
        connection=MCPHTTPConnectionConfig(url=oauth_server, bearer_token=token.access_token)
    )
    script = ScriptedModel(calls=[("seen_authorization", {}), ("add", {"a": 20, "b": 22})])
    await Agent(script.model(), toolsets=card.get_toolsets()).run("go")
    seen, added = script.results()
    assert isinstance(seen, ToolReturnPart)
    assert seen.content == f"Bearer {token.access_token}"
    assert isinstance(added, ToolReturnPart)
    assert added.content == 42


async def test_the_steps_one_by_one_and_a_wrong_verifier(oauth_server: str) -> None:
    async with httpx.AsyncClient() as http:
        resource_meta, server_meta = await discover_authorization_server(oauth_server, http)
        assert resource_meta is not None
        assert resource_meta.resource == oauth_server
        base = oauth_server.removesuffix("/mcp")
        assert server_meta.token_endpoint == f"{base}/token"
        assert server_meta.authorization_endpoint == f"{base}/authorize"
        async with listen_for_callback() as callback:
            client = await register_client(server_meta, callback.redirect_uri, http)
            assert client.client_secret is None  # a public client: PKCE protects the code
            code = await request_authorization_code(
                server_meta, client, callback, open_browser=Browser()
            )
        tampered = AuthorizationCode(
            code=code.code, redirect_uri=code.redirect_uri, code_verifier=new_pkce_pair().verifier
        )
        with pytest.raises(
            OAuthFlowError, match="token exchange .* failed: HTTP 400 invalid_grant"
        ):
            await exchange_code(server_meta, client, tampered, http)


async def test_a_pre_registered_client_on_a_fixed_port(oauth_server: str) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    async with httpx.AsyncClient() as http:
        _, server_meta = await discover_authorization_server(oauth_server, http)
        client = await register_client(
            server_meta, f"http://127.0.0.1:{port}/callback", http, client_name="ops"
        )
        browser = Browser()
        token = await authorize_mcp_server(
            oauth_server,
            client_id=client.client_id,
            callback_port=port,
            open_browser=browser,
            http_client=http,
            timeout=20,
        )
    assert token.access_token
    assert parse_qs(urlsplit(browser.visited[0]).query)["client_id"] == [client.client_id]
    assert browser.visited[1].startswith(f"http://127.0.0.1:{port}/callback?")


def test_the_synchronous_entry_point_with_a_browser_in_another_thread(oauth_server: str) -> None:
    visited: list[str] = []

    def browser(url: str) -> bool:
        # A real browser is another process: it must not block the flow's event loop.
        def visit() -> None:
            consent = httpx.get(url)
            visited.append(consent.headers["location"])
            httpx.get(consent.headers["location"])

        threading.Thread(target=visit, daemon=True).start()
        return True

    token = authorize_mcp_server_sync(oauth_server, open_browser=browser, timeout=20)
    assert token.access_token.startswith("at-")
    assert "code=" in visited[0]


async def test_a_refusal_in_the_browser(oauth_server: str) -> None:
    async def refusing_browser(url: str) -> bool:
        query = parse_qs(urlsplit(url).query)
        redirect = query["redirect_uri"][0]
        refusal = {"error": "access_denied", "error_description": "user said no"}
        async with httpx.AsyncClient() as client:
            await client.get(f"{redirect}?{urlencode({**refusal, 'state': query['state'][0]})}")
        return True

    with pytest.raises(OAuthFlowError, match=r"refused: access_denied \(user said no\)"):
        await authorize_mcp_server(oauth_server, open_browser=refusing_browser, timeout=20)


async def test_a_redirect_with_a_forged_state_is_rejected(oauth_server: str) -> None:
    async def forging_browser(url: str) -> bool:
        redirect = parse_qs(urlsplit(url).query)["redirect_uri"][0]
        async with httpx.AsyncClient() as client:
            await client.get(f"{redirect}?code=stolen&state=forged")
        return True

    with pytest.raises(OAuthFlowError, match="wrong state"):
        await authorize_mcp_server(oauth_server, open_browser=forging_browser, timeout=20)


async def test_no_browser_and_no_user_times_out_and_logs_the_url(
    oauth_server: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="akgentic.tool.mcp.oauth_handler")
    with pytest.raises(OAuthFlowError, match=r"no authorization arrived .* within 0\.5 s"):
        await authorize_mcp_server(oauth_server, open_browser=lambda url: False, timeout=0.5)
    assert "open this URL to authorize: http://127.0.0.1:" in caplog.text


@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
async def test_a_server_without_oauth_metadata(
    streamable_server: ServerProcess, sse_server: ServerProcess, transport: str
) -> None:
    # An SSE endpoint answers an anonymous GET with a stream that never ends: the probe
    # must read only the headers.
    server = sse_server if transport == "sse" else streamable_server
    with pytest.raises(OAuthFlowError, match="no authorization server metadata found"):
        await authorize_mcp_server(server.url, open_browser=Browser(), timeout=5)


async def test_an_unreachable_server() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(OAuthFlowError, match=f"GET http://127.0.0.1:{port}/mcp failed"):
        await authorize_mcp_server(f"http://127.0.0.1:{port}/mcp", open_browser=Browser())


def test_pkce_pairs() -> None:
    first, second = new_pkce_pair(), new_pkce_pair()
    assert first.verifier != second.verifier
    assert 43 <= len(first.verifier) <= 128
    digest = hashlib.sha256(first.verifier.encode()).digest()
    assert first.challenge == base64.urlsafe_b64encode(digest).decode().rstrip("=")


def test_parse_www_authenticate() -> None:
    header = (
        'Bearer error="invalid_token", error_description="say \\"hi\\"", '
        "resource_metadata=https://a.example/.well-known/oauth-protected-resource/mcp"
    )
    assert parse_www_authenticate(header) == {
        "error": "invalid_token",
        "error_description": 'say "hi"',
        "resource_metadata": "https://a.example/.well-known/oauth-protected-resource/mcp",
    }
    assert parse_www_authenticate('Basic realm="x"') == {}
    assert parse_www_authenticate("") == {}
