"""A stored login reused by a new provider: when it is refreshed, where, and what a refusal does.

The provider runs as what it is, the ``auth`` of an HTTP client, against an HTTP stand-in on
127.0.0.1 that plays both the MCP server (``/mcp`` answers 200) and its authorization server
(a token endpoint at ``/oauth2/token``, deliberately not the ``/token`` a provider would
guess without the stored metadata). The store holds what an earlier process left behind;
each test then reads what the stand-in was sent and what the store holds afterwards.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from _oauth_refresh import (
    NEW_TOKENS,
    TOKEN_PATH,
    RefreshedMeanwhile,
    bearer_sent,
    get_with,
    refreshes,
    refreshing_stand_in,
    store_with,
    stored_login,
)
from oauth_stand_in import StandIn

from akgentic.tool.mcp.oauth_login import MCPLoginError, MCPOAuthProvider


@pytest.fixture
def server() -> Iterator[StandIn]:
    with refreshing_stand_in() as state:
        yield state


# -- where and with what a reloaded login is refreshed ---------------------------------------


async def test_an_expired_login_is_refreshed_at_the_stored_token_endpoint(server: StandIn) -> None:
    store = await store_with(stored_login(server, expires_at=time.time() - 5))
    provider = MCPOAuthProvider(f"{server.base}/mcp", store=store)
    assert (await get_with(provider, f"{server.base}/mcp")).status_code == 200

    (refresh,) = refreshes(server)
    assert refresh["grant_type"] == ["refresh_token"]
    assert refresh["refresh_token"] == ["RT-OLD"]
    assert refresh["client_id"] == ["client-1"]
    # The stored resource metadata names the token's audience (RFC 8707).
    assert refresh["resource"] == [f"{server.base}/mcp"]
    assert bearer_sent(server) == "Bearer AT-NEW"
    assert server.requests_to("/token") == []

    kept = await store.load(f"{server.base}/mcp")
    assert kept is not None
    assert kept.tokens is not None
    assert (kept.tokens.access_token, kept.tokens.refresh_token) == ("AT-NEW", "RT-NEW")
    assert kept.expires_at is not None
    assert kept.expires_at == pytest.approx(time.time() + 3600, abs=60)
    # The metadata stays with the new tokens, for the next process.
    assert kept.authorization_server is not None
    assert str(kept.authorization_server.token_endpoint) == server.base + TOKEN_PATH
    assert kept.resource_metadata is not None
    assert provider.failure is None


async def test_new_tokens_without_a_lifetime_are_stored_without_an_expiry(
    server: StandIn,
) -> None:
    server.routes[TOKEN_PATH] = (200, {"access_token": "AT-NEW", "token_type": "Bearer"})
    store = await store_with(stored_login(server, expires_at=time.time() - 5))
    provider = MCPOAuthProvider(f"{server.base}/mcp", store=store)
    await get_with(provider, f"{server.base}/mcp")
    kept = await store.load(f"{server.base}/mcp")
    assert kept is not None
    assert kept.tokens is not None
    assert (kept.tokens.access_token, kept.expires_at) == ("AT-NEW", None)
    assert kept.tokens.refresh_token == "RT-OLD"  # not rotated: the old one stays usable


async def test_a_token_refused_before_it_expires_says_to_log_in_again(server: StandIn) -> None:
    # The server no longer takes the token: without a user to ask, the provider stops.
    challenge = f'Bearer resource_metadata="{server.base}/.well-known/oauth-protected-resource/mcp"'
    server.routes["/mcp"] = (401, {"error": "invalid_token"}, {"WWW-Authenticate": challenge})
    server.routes["/.well-known/oauth-protected-resource/mcp"] = (
        200,
        {"resource": f"{server.base}/mcp", "authorization_servers": [server.base]},
    )
    server.routes["/.well-known/oauth-authorization-server"] = (200, server.metadata(server.base))
    url = f"{server.base}/mcp?api_key=URL-SECRET"
    login = stored_login(server, expires_at=time.time() + 3600)
    login.server_url = url
    provider = MCPOAuthProvider(url, store=await store_with(login))
    with pytest.raises(MCPLoginError, match="expired or was revoked") as caught:
        await get_with(provider, url)
    assert f"login_mcp_server_sync('{server.base}/mcp?api_key=***')" in str(caught.value)
    assert "URL-SECRET" not in str(caught.value)
    assert provider.failure is caught.value
    assert server.requests_to("/authorize") == []


async def test_a_login_stored_without_resource_metadata_is_refreshed_without_a_resource(
    server: StandIn,
) -> None:
    login = stored_login(server, expires_at=time.time() - 5, with_resource=False)
    provider = MCPOAuthProvider(f"{server.base}/mcp", store=await store_with(login))
    assert (await get_with(provider, f"{server.base}/mcp")).status_code == 200
    (refresh,) = refreshes(server)
    assert "resource" not in refresh
    assert bearer_sent(server) == "Bearer AT-NEW"


@pytest.mark.parametrize(
    ("expires_in", "seconds_left", "refreshed"),
    [
        (100, 24, True),  # a quarter of the lifetime (25 s) is left: refresh now
        (100, 30, False),  # more than a quarter left: the token is used as it is
        (3600, 55, True),  # at most a minute early...
        (3600, 70, False),  # ...even when a quarter of the lifetime is much more
        (None, 5, False),  # no lifetime known: used until it expires
    ],
)
async def test_a_reloaded_token_is_refreshed_a_quarter_of_its_lifetime_early(
    server: StandIn, expires_in: int | None, seconds_left: float, refreshed: bool
) -> None:
    login = stored_login(server, expires_in=expires_in, expires_at=time.time() + seconds_left)
    provider = MCPOAuthProvider(f"{server.base}/mcp", store=await store_with(login))
    assert (await get_with(provider, f"{server.base}/mcp")).status_code == 200
    assert len(refreshes(server)) == (1 if refreshed else 0)
    assert bearer_sent(server) == ("Bearer AT-NEW" if refreshed else "Bearer AT-OLD")


async def test_a_refreshed_token_is_refreshed_again_a_quarter_of_its_lifetime_early(
    server: StandIn,
) -> None:
    # The new tokens live 2 s: due again after 1.5 s, not only once they have expired.
    server.routes[TOKEN_PATH] = (200, {**NEW_TOKENS, "expires_in": 2})
    store = await store_with(stored_login(server, expires_at=time.time() - 5))
    provider = MCPOAuthProvider(f"{server.base}/mcp", store=store)
    await get_with(provider, f"{server.base}/mcp")
    refreshed_at = time.time()
    assert len(refreshes(server)) == 1
    while time.time() < refreshed_at + 1.6:
        await asyncio.sleep(0.02)
    await get_with(provider, f"{server.base}/mcp")
    assert len(refreshes(server)) == 2


async def test_a_login_without_an_expiry_is_never_refreshed(server: StandIn) -> None:
    login = stored_login(server, expires_at=None)
    provider = MCPOAuthProvider(f"{server.base}/mcp", store=await store_with(login))
    await get_with(provider, f"{server.base}/mcp")
    assert refreshes(server) == []
    assert bearer_sent(server) == "Bearer AT-OLD"


# -- a refused refresh ---------------------------------------------------------------------


@pytest.mark.parametrize("status", [400, 401])
@pytest.mark.parametrize("seconds_left", [-5, 10])  # expired, or only inside the early margin
async def test_a_refused_refresh_forgets_the_tokens_and_says_to_log_in_again(
    server: StandIn, status: int, seconds_left: float
) -> None:
    server.routes[TOKEN_PATH] = (status, {"error": "invalid_grant"})
    url = f"{server.base}/mcp?api_key=URL-SECRET"
    login = stored_login(server, expires_at=time.time() + seconds_left)
    login.server_url = url
    store = await store_with(login)
    provider = MCPOAuthProvider(url, store=store)
    with pytest.raises(MCPLoginError, match="expired or was revoked") as caught:
        await get_with(provider, url)
    assert provider.failure is caught.value
    assert "api_key=***" in str(caught.value)
    assert "URL-SECRET" not in str(caught.value)
    kept = await store.load(url)
    assert kept is not None
    assert (kept.tokens, kept.expires_at) == (None, None)
    assert kept.client_info is not None  # the registered client is kept for the next login


async def test_a_failing_authorization_server_keeps_the_login_for_a_later_try(
    server: StandIn,
) -> None:
    server.routes[TOKEN_PATH] = (503, {"error": "temporarily_unavailable"})
    url = f"{server.base}/mcp?api_key=URL-SECRET"
    login = stored_login(server, expires_at=time.time() - 5)
    login.server_url = url
    store = await store_with(login)
    provider = MCPOAuthProvider(url, store=store)
    with pytest.raises(MCPLoginError) as caught:
        await get_with(provider, url)
    message = str(caught.value)
    assert f"could not refresh the login for {server.base}/mcp?api_key=***: " in message
    assert "HTTP 503" in message
    assert f"login_mcp_server_sync('{server.base}/mcp?api_key=***')" in message
    assert "URL-SECRET" not in message
    assert provider.failure is caught.value
    kept = await store.load(url)
    assert kept is not None
    assert kept.tokens is not None
    assert kept.tokens.refresh_token == "RT-OLD"


@pytest.mark.parametrize(
    ("newer_left", "taken"),
    [(3600, True), (-1, False)],  # the newer login is valid, or has expired too
)
async def test_a_refusal_after_another_process_refreshed_takes_its_newer_login_if_valid(
    server: StandIn, newer_left: float, taken: bool
) -> None:
    server.routes[TOKEN_PATH] = (400, {"error": "invalid_grant"})
    first = stored_login(server, expires_at=time.time() - 5)
    newer = stored_login(
        server,
        expires_at=time.time() + newer_left,
        access_token="AT-OTHER",
        refresh_token="RT-OTHER",
    )
    store = RefreshedMeanwhile(first, newer, server)
    provider = MCPOAuthProvider(f"{server.base}/mcp", store=store)
    if taken:
        assert (await get_with(provider, f"{server.base}/mcp")).status_code == 200
        assert bearer_sent(server) == "Bearer AT-OTHER"
        assert provider.failure is None
    else:
        with pytest.raises(MCPLoginError, match="expired or was revoked"):
            await get_with(provider, f"{server.base}/mcp")
    assert [r["refresh_token"] for r in refreshes(server)] == [["RT-OLD"]]
    # Either way the newer login stays stored: it is not the one the server refused.
    kept = await store.load(f"{server.base}/mcp")
    assert kept is not None
    assert kept.tokens is not None
    assert kept.tokens.refresh_token == "RT-OTHER"


async def test_a_provider_whose_token_is_due_takes_a_newer_login_stored_meanwhile(
    server: StandIn,
) -> None:
    # Due for refresh half a second from now (a quarter of 100 s before its expiry).
    login = stored_login(server, expires_in=100, expires_at=time.time() + 25.5)
    store = await store_with(login)
    provider = MCPOAuthProvider(f"{server.base}/mcp", store=store)
    await get_with(provider, f"{server.base}/mcp")
    assert bearer_sent(server) == "Bearer AT-OLD"
    # Another process refreshes first and stores its login.
    await store.save(
        stored_login(
            server, expires_at=time.time() + 3600, access_token="AT-OTHER", refresh_token="RT-X"
        )
    )
    while time.time() < login.expires_at - 25:  # type: ignore[operator]
        await asyncio.sleep(0.02)
    await get_with(provider, f"{server.base}/mcp")
    assert bearer_sent(server) == "Bearer AT-OTHER"
    assert refreshes(server) == []
