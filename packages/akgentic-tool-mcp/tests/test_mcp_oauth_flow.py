"""The OAuth browser flow, end to end against a real MCP server that is its own OAuth server.

The stand-in is `mcp_demo_server.py --oauth`: the `mcp` package's resource-server and
authorization-server routes (401 challenge, RFC 9728 and RFC 8414 metadata, dynamic
registration, /authorize, /token with PKCE verification) backed by an in-memory provider
that approves every request. The "browser" is injected: it follows the authorization
redirect to the flow's local listener, as a user's browser would after consent.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import re
import socket
import threading
from collections.abc import Iterator
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from mcp_harness import ServerProcess, start_http_server
from pydantic_ai import Agent
from pydantic_ai.messages import ToolReturnPart

from akgentic.llm.testing import ScriptedCall, ScriptedModel
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
        await Agent(ScriptedModel(), toolsets=anonymous.get_toolsets()).run("x")

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
    script = ScriptedModel(
        ScriptedCall("seen_authorization"), ScriptedCall("add", {"a": 20, "b": 22})
    )
    await Agent(script, toolsets=card.get_toolsets()).run("go")
    seen, added = script.tool_results()
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


async def test_stray_redirects_are_turned_away_and_the_real_one_still_completes(
    oauth_server: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="akgentic.tool.mcp.oauth_handler")
    pages: list[httpx.Response] = []

    async def browser_with_strays(url: str) -> bool:
        redirect = parse_qs(urlsplit(url).query)["redirect_uri"][0]
        async with httpx.AsyncClient() as client:
            # Before the user has even consented: a forged code, a code without a state,
            # and a forged refusal. None of them may end (or feed) the flow.
            for query in (
                {"code": "stolen", "state": "forged"},
                {"code": "stolen"},
                {"error": "access_denied", "state": "forged"},
            ):
                pages.append(await client.get(f"{redirect}?{urlencode(query)}"))
            consent = await client.get(url)
            pages.append(await client.get(consent.headers["location"]))
        return True

    token = await authorize_mcp_server(oauth_server, open_browser=browser_with_strays, timeout=20)
    *strays, landing = pages
    assert [page.status_code for page in strays] == [400, 400, 400]
    for page in strays:
        assert "wrong or missing" in page.text
        assert "Done" not in page.text
    assert landing.status_code == 200
    assert "Done" in landing.text
    # The token came from the real code (the forged one would have failed the exchange)
    # and the server accepts it.
    card = MCPTool(
        connection=MCPHTTPConnectionConfig(url=oauth_server, bearer_token=token.access_token)
    )
    script = ScriptedModel(ScriptedCall("add", {"a": 1, "b": 2}))
    await Agent(script, toolsets=card.get_toolsets()).run("go")
    (added,) = script.tool_results()
    assert isinstance(added, ToolReturnPart)
    assert added.content == 3
    turned_away = [r for r in caplog.records if "wrong or missing state" in r.getMessage()]
    assert len(turned_away) == 3
    assert "forged" not in caplog.text
    assert "stolen" not in caplog.text


async def test_a_forged_redirect_alone_leaves_the_flow_waiting_until_it_times_out(
    oauth_server: str,
) -> None:
    async def forging_browser(url: str) -> bool:
        redirect = parse_qs(urlsplit(url).query)["redirect_uri"][0]
        async with httpx.AsyncClient() as client:
            page = await client.get(f"{redirect}?code=stolen&state=forged")
        assert page.status_code == 400
        return True

    with pytest.raises(
        OAuthFlowError,
        match=r"within 0\.5 s \(1 request\(s\) with a wrong or missing state were turned away\)",
    ):
        await authorize_mcp_server(oauth_server, open_browser=forging_browser, timeout=0.5)


async def test_the_callback_takes_only_the_pending_state_and_only_once() -> None:
    async with listen_for_callback() as callback, httpx.AsyncClient() as client:
        uri = callback.redirect_uri
        # Nothing is pending yet: even a well-formed answer is turned away.
        early = await client.get(f"{uri}?code=c&state=s-1")
        assert early.status_code == 400
        assert "No sign-in is waiting" in early.text
        callback.expect("s-1")
        waiting = asyncio.ensure_future(callback.wait())
        assert (await client.get(f"{uri}?code=c&state=s-10")).status_code == 400
        assert (await client.get(f"{uri}?code=c&state=")).status_code == 400
        assert not waiting.done()
        answer = await client.get(f"{uri}?code=the-code&state=s-1")
        assert answer.status_code == 200
        assert await asyncio.wait_for(waiting, 5) == {"code": "the-code", "state": "s-1"}
        # A replay of the same redirect finds nothing pending.
        replay = await client.get(f"{uri}?code=other&state=s-1")
        assert replay.status_code == 400
        assert "No sign-in is waiting" in replay.text
        assert await callback.wait() == {"code": "the-code", "state": "s-1"}


async def test_a_refusal_with_a_forged_state_does_not_fail_the_flow_but_the_real_one_does(
    oauth_server: str,
) -> None:
    async def refusing_browser(url: str) -> bool:
        query = parse_qs(urlsplit(url).query)
        redirect = query["redirect_uri"][0]
        async with httpx.AsyncClient() as client:
            forged = {"error": "server_error", "state": "forged"}
            assert (await client.get(f"{redirect}?{urlencode(forged)}")).status_code == 400
            real = {"error": "access_denied", "state": query["state"][0]}
            page = await client.get(f"{redirect}?{urlencode(real)}")
            assert page.status_code == 200
            assert "refused" in page.text
        return True

    with pytest.raises(OAuthFlowError, match="refused: access_denied$"):
        await authorize_mcp_server(oauth_server, open_browser=refusing_browser, timeout=20)


async def test_no_browser_and_no_user_times_out_and_logs_the_url(
    oauth_server: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="akgentic.tool.mcp.oauth_handler")
    with pytest.raises(OAuthFlowError, match=r"no authorization arrived .* within 0\.5 s"):
        await authorize_mcp_server(oauth_server, open_browser=lambda url: False, timeout=0.5)
    said = r"Could not open a browser; open this URL to authorize: http://127\.0\.0\.1:\d+/\S+"
    assert any(re.fullmatch(said, record.getMessage()) for record in caplog.records)


@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
async def test_a_server_without_oauth_metadata(
    streamable_server: ServerProcess, sse_server: ServerProcess, transport: str
) -> None:
    # An SSE endpoint answers an anonymous GET with a stream that never ends: the probe
    # must read only the headers.
    server = sse_server if transport == "sse" else streamable_server
    with pytest.raises(
        OAuthFlowError,
        match=r"^no authorization server metadata found for \S+ "
        r"\(tried RFC 8414 and OpenID discovery locations\)$",
    ):
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
