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
from urllib.parse import parse_qs

import httpx2
import pytest
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)
from oauth_stand_in import StandIn, running_stand_in
from pydantic import AnyHttpUrl

from akgentic.tool.mcp.oauth_login import MCPLoginError, MCPOAuthProvider
from akgentic.tool.mcp.oauth_store import MemoryLoginStore, StoredLogin

TOKEN_PATH = "/oauth2/token"
NEW_TOKENS = {
    "access_token": "AT-NEW",
    "token_type": "Bearer",
    "expires_in": 3600,
    "refresh_token": "RT-NEW",
}


@pytest.fixture
def server() -> Iterator[StandIn]:
    with running_stand_in() as state:
        state.routes["/mcp"] = (200, {"ok": True})
        state.routes[TOKEN_PATH] = (200, NEW_TOKENS)
        yield state


def _stored(
    server: StandIn,
    *,
    expires_in: int | None = 3600,
    expires_at: float | None,
    with_resource: bool = True,
    access_token: str = "AT-OLD",
    refresh_token: str = "RT-OLD",
) -> StoredLogin:
    base = AnyHttpUrl(server.base)
    return StoredLogin(
        server_url=f"{server.base}/mcp",
        tokens=OAuthToken(
            access_token=access_token, refresh_token=refresh_token, expires_in=expires_in
        ),
        expires_at=expires_at,
        client_info=OAuthClientInformationFull(
            client_id="client-1",
            redirect_uris=[AnyHttpUrl("http://127.0.0.1:9/callback")],
            token_endpoint_auth_method="none",
        ),
        authorization_server=OAuthMetadata(
            issuer=base,
            authorization_endpoint=AnyHttpUrl(f"{server.base}/authorize"),
            token_endpoint=AnyHttpUrl(server.base + TOKEN_PATH),
            code_challenge_methods_supported=["S256"],
        ),
        resource_metadata=(
            ProtectedResourceMetadata(
                resource=AnyHttpUrl(f"{server.base}/mcp"), authorization_servers=[base]
            )
            if with_resource
            else None
        ),
    )


async def _store_with(login: StoredLogin) -> MemoryLoginStore:
    store = MemoryLoginStore()
    await store.save(login)
    return store


async def _get(provider: MCPOAuthProvider, url: str) -> httpx2.Response:
    async with httpx2.AsyncClient(auth=provider) as client:
        return await client.get(url)


def _refreshes(server: StandIn) -> list[dict[str, list[str]]]:
    return [parse_qs(seen.body) for seen in server.requests_to(TOKEN_PATH)]


def _bearer_sent(server: StandIn) -> str:
    *_, last = server.requests_to("/mcp")
    return last.headers.get("Authorization", "")


# -- where and with what a reloaded login is refreshed ---------------------------------------


async def test_an_expired_login_is_refreshed_at_the_stored_token_endpoint(server: StandIn) -> None:
    store = await _store_with(_stored(server, expires_at=time.time() - 5))
    provider = MCPOAuthProvider(f"{server.base}/mcp", store=store)
    assert (await _get(provider, f"{server.base}/mcp")).status_code == 200

    (refresh,) = _refreshes(server)
    assert refresh["grant_type"] == ["refresh_token"]
    assert refresh["refresh_token"] == ["RT-OLD"]
    assert refresh["client_id"] == ["client-1"]
    # The stored resource metadata names the token's audience (RFC 8707).
    assert refresh["resource"] == [f"{server.base}/mcp"]
    assert _bearer_sent(server) == "Bearer AT-NEW"
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
    store = await _store_with(_stored(server, expires_at=time.time() - 5))
    provider = MCPOAuthProvider(f"{server.base}/mcp", store=store)
    await _get(provider, f"{server.base}/mcp")
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
    login = _stored(server, expires_at=time.time() + 3600)
    login.server_url = url
    provider = MCPOAuthProvider(url, store=await _store_with(login))
    with pytest.raises(MCPLoginError, match="expired or was revoked") as caught:
        await _get(provider, url)
    assert f"login_mcp_server_sync('{server.base}/mcp?api_key=***')" in str(caught.value)
    assert "URL-SECRET" not in str(caught.value)
    assert provider.failure is caught.value
    assert server.requests_to("/authorize") == []


async def test_a_login_stored_without_resource_metadata_is_refreshed_without_a_resource(
    server: StandIn,
) -> None:
    login = _stored(server, expires_at=time.time() - 5, with_resource=False)
    provider = MCPOAuthProvider(f"{server.base}/mcp", store=await _store_with(login))
    assert (await _get(provider, f"{server.base}/mcp")).status_code == 200
    (refresh,) = _refreshes(server)
    assert "resource" not in refresh
    assert _bearer_sent(server) == "Bearer AT-NEW"


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
    login = _stored(server, expires_in=expires_in, expires_at=time.time() + seconds_left)
    provider = MCPOAuthProvider(f"{server.base}/mcp", store=await _store_with(login))
    assert (await _get(provider, f"{server.base}/mcp")).status_code == 200
    assert len(_refreshes(server)) == (1 if refreshed else 0)
    assert _bearer_sent(server) == ("Bearer AT-NEW" if refreshed else "Bearer AT-OLD")


async def test_a_refreshed_token_is_refreshed_again_a_quarter_of_its_lifetime_early(
    server: StandIn,
) -> None:
    # The new tokens live 2 s: due again after 1.5 s, not only once they have expired.
    server.routes[TOKEN_PATH] = (200, {**NEW_TOKENS, "expires_in": 2})
    store = await _store_with(_stored(server, expires_at=time.time() - 5))
    provider = MCPOAuthProvider(f"{server.base}/mcp", store=store)
    await _get(provider, f"{server.base}/mcp")
    refreshed_at = time.time()
    assert len(_refreshes(server)) == 1
    while time.time() < refreshed_at + 1.6:
        await asyncio.sleep(0.02)
    await _get(provider, f"{server.base}/mcp")
    assert len(_refreshes(server)) == 2


async def test_a_login_without_an_expiry_is_never_refreshed(server: StandIn) -> None:
    login = _stored(server, expires_at=None)
    provider = MCPOAuthProvider(f"{server.base}/mcp", store=await _store_with(login))
    await _get(provider, f"{server.base}/mcp")
    assert _refreshes(server) == []
    assert _bearer_sent(server) == "Bearer AT-OLD"


# -- a refused refresh ---------------------------------------------------------------------


@pytest.mark.parametrize("status", [400, 401])
@pytest.mark.parametrize("seconds_left", [-5, 10])  # expired, or only inside the early margin
async def test_a_refused_refresh_forgets_the_tokens_and_says_to_log_in_again(
    server: StandIn, status: int, seconds_left: float
) -> None:
    server.routes[TOKEN_PATH] = (status, {"error": "invalid_grant"})
    url = f"{server.base}/mcp?api_key=URL-SECRET"
    login = _stored(server, expires_at=time.time() + seconds_left)
    login.server_url = url
    store = await _store_with(login)
    provider = MCPOAuthProvider(url, store=store)
    with pytest.raises(MCPLoginError, match="expired or was revoked") as caught:
        await _get(provider, url)
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
    login = _stored(server, expires_at=time.time() - 5)
    login.server_url = url
    store = await _store_with(login)
    provider = MCPOAuthProvider(url, store=store)
    with pytest.raises(MCPLoginError) as caught:
        await _get(provider, url)
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


class _RefreshedMeanwhile(MemoryLoginStore):
    """A store shared with another process, which stores its own, newer login while this
    provider's refresh is on its way (so the refresh token this provider sent is stale)."""

    def __init__(self, first: StoredLogin, newer: StoredLogin, server: StandIn) -> None:
        super().__init__()
        self._newer: StoredLogin | None = newer
        self._server = server
        self._logins[first.server_url] = first

    async def load(self, server_url: str) -> StoredLogin | None:
        if self._newer is not None and self._server.requests_to(TOKEN_PATH):
            await self.save(self._newer)
            self._newer = None
        return await super().load(server_url)


@pytest.mark.parametrize(
    ("newer_left", "taken"),
    [(3600, True), (-1, False)],  # the newer login is valid, or has expired too
)
async def test_a_refusal_after_another_process_refreshed_takes_its_newer_login_if_valid(
    server: StandIn, newer_left: float, taken: bool
) -> None:
    server.routes[TOKEN_PATH] = (400, {"error": "invalid_grant"})
    first = _stored(server, expires_at=time.time() - 5)
    newer = _stored(
        server,
        expires_at=time.time() + newer_left,
        access_token="AT-OTHER",
        refresh_token="RT-OTHER",
    )
    store = _RefreshedMeanwhile(first, newer, server)
    provider = MCPOAuthProvider(f"{server.base}/mcp", store=store)
    if taken:
        assert (await _get(provider, f"{server.base}/mcp")).status_code == 200
        assert _bearer_sent(server) == "Bearer AT-OTHER"
        assert provider.failure is None
    else:
        with pytest.raises(MCPLoginError, match="expired or was revoked"):
            await _get(provider, f"{server.base}/mcp")
    assert [r["refresh_token"] for r in _refreshes(server)] == [["RT-OLD"]]
    # Either way the newer login stays stored: it is not the one the server refused.
    kept = await store.load(f"{server.base}/mcp")
    assert kept is not None
    assert kept.tokens is not None
    assert kept.tokens.refresh_token == "RT-OTHER"


async def test_a_provider_whose_token_is_due_takes_a_newer_login_stored_meanwhile(
    server: StandIn,
) -> None:
    # Due for refresh half a second from now (a quarter of 100 s before its expiry).
    login = _stored(server, expires_in=100, expires_at=time.time() + 25.5)
    store = await _store_with(login)
    provider = MCPOAuthProvider(f"{server.base}/mcp", store=store)
    await _get(provider, f"{server.base}/mcp")
    assert _bearer_sent(server) == "Bearer AT-OLD"
    # Another process refreshes first and stores its login.
    await store.save(
        _stored(
            server, expires_at=time.time() + 3600, access_token="AT-OTHER", refresh_token="RT-X"
        )
    )
    while time.time() < login.expires_at - 25:  # type: ignore[operator]
        await asyncio.sleep(0.02)
    await _get(provider, f"{server.base}/mcp")
    assert _bearer_sent(server) == "Bearer AT-OTHER"
    assert _refreshes(server) == []
