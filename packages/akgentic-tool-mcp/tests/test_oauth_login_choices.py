"""``login_mcp_server`` and the provider under it: what is registered, stored and refused.

Against the demo MCP server run as its own OAuth authorization server (``--oauth``), over
streamable HTTP and SSE, and against HTTP stand-ins on 127.0.0.1 for the answers a real
server should not give (a failing token endpoint, missing metadata, a plain-http endpoint).
The user is played by ``AutoApprove`` or, for the default interaction, by a "browser" that
follows the redirect to the real local listener.
"""

from __future__ import annotations

import logging
import webbrowser
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from mcp_harness import ServerProcess, StartServer, start_http_server
from oauth_stand_in import StandIn
from oauth_users import AutoApprove, serve_mcp_with_oauth

from akgentic.tool.mcp.oauth_handler import OAuthFlowError
from akgentic.tool.mcp.oauth_login import (
    MCPOAuthProvider,
    login_mcp_server,
    login_mcp_server_sync,
)
from akgentic.tool.mcp.oauth_store import FileLoginStore, MemoryLoginStore


@pytest.fixture(scope="module")
def oauth_server() -> Iterator[ServerProcess]:
    server = start_http_server("streamable-http", "/mcp", "--oauth")
    yield server
    server.stop()


def follow_to_listener(visited: list[str]) -> Callable[[str], Awaitable[bool]]:
    """A browser that approves and lands on the local listener of the default interaction."""

    async def browser(url: str) -> bool:
        visited.append(url)
        async with httpx.AsyncClient() as client:
            consent = await client.get(url)
            await client.get(consent.headers["location"])
        return True

    return browser


# -- what is registered and stored ----------------------------------------------------------


async def test_the_client_is_registered_with_the_name_and_scopes_asked_for(
    oauth_server: ServerProcess,
) -> None:
    user = AutoApprove()
    login = await login_mcp_server(
        oauth_server.url,
        store=MemoryLoginStore(),
        interaction=user.interaction(),
        client_name="Acme agent",
        scopes=["read", "write"],
    )
    assert login.client_info is not None
    assert login.client_info.client_name == "Acme agent"
    # A public client: it authenticates with PKCE, it holds no secret.
    assert login.client_info.token_endpoint_auth_method == "none"
    assert login.client_info.client_secret is None
    (visited,) = user.visited
    assert parse_qs(urlsplit(visited).query)["scope"] == ["read write"]
    assert login.tokens is not None
    assert login.tokens.scope == "read write"
    # The metadata found on the way is stored with the tokens, for later refreshes.
    assert login.authorization_server is not None
    assert str(login.authorization_server.token_endpoint) == f"{oauth_server.base_url}/token"
    assert login.resource_metadata is not None
    assert str(login.resource_metadata.resource) == oauth_server.url


async def test_the_default_interaction_registers_akgentic_on_a_free_port(
    oauth_server: ServerProcess, tmp_path: Path
) -> None:
    visited: list[str] = []
    login = await login_mcp_server(
        oauth_server.url,
        store=FileLoginStore(tmp_path),
        open_browser=follow_to_listener(visited),
        timeout=20,
    )
    assert login.tokens is not None
    assert login.client_info is not None
    assert login.client_info.client_name == "akgentic"
    assert "scope" not in parse_qs(urlsplit(visited[0]).query)
    redirect = urlsplit(parse_qs(urlsplit(visited[0]).query)["redirect_uri"][0])
    assert redirect.hostname == "127.0.0.1"
    assert redirect.port is not None
    assert redirect.port >= 1024  # a port the system picked, not a fixed one


async def test_a_login_over_sse(start_server: StartServer) -> None:
    server = start_server("sse", "/events", "--oauth")
    store = MemoryLoginStore()
    login = await login_mcp_server(
        server.url, store=store, interaction=AutoApprove().interaction(), transport="sse"
    )
    assert login.tokens is not None
    assert login.tokens.access_token.startswith("at-")
    assert await store.load(server.url) == login


async def test_the_provider_on_its_own_registers_akgentic_and_keeps_no_failure(
    oauth_server: ServerProcess,
) -> None:
    store = MemoryLoginStore()
    provider = MCPOAuthProvider(
        oauth_server.url, store=store, interaction=AutoApprove().interaction()
    )
    async with Client(StreamableHttpTransport(oauth_server.url, auth=provider)) as client:
        assert "add" in [tool.name for tool in await client.list_tools()]
    assert provider.failure is None
    login = await store.load(oauth_server.url)
    assert login is not None
    assert login.client_info is not None
    assert login.client_info.client_name == "akgentic"


def test_the_blocking_login_passes_every_option_on(
    oauth_server: ServerProcess, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Were the options lost, the login would go to a browser and the per-user directory.
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *args, **kwargs: opened.append(url))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    store = MemoryLoginStore()
    login = login_mcp_server_sync(
        oauth_server.url, store=store, interaction=AutoApprove().interaction(), timeout=5
    )
    assert login.tokens is not None
    assert opened == []
    assert not (tmp_path / "akgentic").exists()


def test_the_provider_keeps_logins_in_the_per_user_directory_by_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    provider = MCPOAuthProvider("https://mcp.acme.example/mcp")
    assert isinstance(provider.store, FileLoginStore)
    assert provider.store.directory == tmp_path / "akgentic" / "mcp-oauth"
    assert provider.failure is None


# -- what is refused -----------------------------------------------------------------------


async def test_a_server_that_needs_no_login_is_named(start_server: StartServer) -> None:
    server = start_server("streamable-http", "/mcp")
    store = MemoryLoginStore()
    with pytest.raises(OAuthFlowError, match="needs no login") as caught:
        await login_mcp_server(server.url, store=store, interaction=AutoApprove().interaction())
    assert server.url in str(caught.value)
    assert await store.load(server.url) is None


async def test_a_plain_http_server_off_loopback_is_refused_by_name() -> None:
    with pytest.raises(OAuthFlowError) as caught:
        await login_mcp_server("http://mcp.acme.example/mcp", store=MemoryLoginStore())
    assert "mcp server url ('http://mcp.acme.example/mcp')" in str(caught.value).lower()


@pytest.mark.parametrize(("opened", "logged"), [(True, False), (None, False), (False, True)])
async def test_a_user_who_never_comes_back_ends_the_login_after_the_timeout(
    oauth_server: ServerProcess,
    caplog: pytest.LogCaptureFixture,
    opened: bool | None,
    logged: bool,
) -> None:
    caplog.set_level(logging.WARNING, logger="akgentic.tool.mcp")
    with pytest.raises(OAuthFlowError, match=r"no authorization arrived at http://127\.0\.0\.1:"):
        await login_mcp_server(
            oauth_server.url,
            store=MemoryLoginStore(),
            open_browser=lambda url: opened,
            timeout=0.5,
        )
    # The URL is logged for the user to open only when the browser could not be opened.
    shown = [r.getMessage() for r in caplog.records if "/authorize?" in r.getMessage()]
    assert len(shown) == (1 if logged else 0)


async def test_a_failing_token_exchange_is_reported_without_what_it_would_leak(
    stand_in: StandIn,
) -> None:
    url = serve_mcp_with_oauth(stand_in)
    stand_in.routes["/token"] = (
        400,
        {"error": "invalid_grant", "error_description": "bad code_verifier=VERIFIER-LEAK"},
    )
    with pytest.raises(OAuthFlowError) as caught:
        await login_mcp_server(
            url + "?api_key=URL-SECRET",
            store=MemoryLoginStore(),
            interaction=AutoApprove().interaction(),
        )
    message = str(caught.value)
    assert message.startswith(f"the authorization for {url}?api_key=*** failed: ")
    assert "OAuthTokenError" in message  # the SDK's own account of the failure...
    assert "invalid_grant" in message
    assert "VERIFIER-LEAK" not in message  # ...with its secrets masked
    assert "URL-SECRET" not in message


async def test_endpoints_the_flow_refuses_are_refused_before_the_user_is_sent(
    stand_in: StandIn,
) -> None:
    url = serve_mcp_with_oauth(stand_in, token_endpoint="http://tokens.acme.example/token")
    user = AutoApprove()
    with pytest.raises(OAuthFlowError) as caught:
        await login_mcp_server(url, store=MemoryLoginStore(), interaction=user.interaction())
    message = str(caught.value).lower()
    assert "token_endpoint in the discovered metadata ('http://tokens.acme.example/token')" in (
        message.replace("in the metadata at the discovered metadata", "in the discovered metadata")
    )
    assert user.visits == 0
    assert stand_in.requests_to("/authorize") == []


async def test_a_server_without_authorization_metadata_is_refused_before_the_user_is_sent(
    stand_in: StandIn,
) -> None:
    url = f"{stand_in.base}/mcp"
    stand_in.routes["/mcp"] = (401, {"error": "unauthorized"}, {"WWW-Authenticate": "Bearer"})
    stand_in.routes["/register"] = (
        201,
        {"client_id": "c-1", "redirect_uris": [AutoApprove.redirect_uri]},
    )
    user = AutoApprove()
    with pytest.raises(OAuthFlowError, match="no authorization server metadata") as caught:
        await login_mcp_server(
            url + "?api_key=URL-SECRET", store=MemoryLoginStore(), interaction=user.interaction()
        )
    assert f"{url}?api_key=***" in str(caught.value)
    assert "URL-SECRET" not in str(caught.value)
    assert user.visits == 0
