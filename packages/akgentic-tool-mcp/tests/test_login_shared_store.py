"""A provider whose store other processes change: which login it uses, and what it sends.

Several providers (several ``MCPTool`` runs, or ``login_mcp_server`` in another process)
share one store. These tests change the store between a provider's requests, or while its
refresh is on its way, and read what the HTTP stand-in was sent (the bearer, the refresh
request) and what the store holds afterwards. The stand-in and the stored logins are the
ones of ``test_oauth_provider_refresh``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from urllib.parse import parse_qs

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
from pydantic import AnyHttpUrl

from akgentic.tool.mcp.oauth_login import MCPLoginError, MCPOAuthProvider
from akgentic.tool.mcp.oauth_store import MemoryLoginStore, StoredLogin

MOVED_TOKEN_PATH = "/moved/token"


@pytest.fixture
def server() -> Iterator[StandIn]:
    with refreshing_stand_in() as state:
        yield state


async def _wait_until(moment: float) -> None:
    while time.time() < moment:
        await asyncio.sleep(0.02)


async def test_a_provider_that_found_no_login_uses_the_one_stored_since(server: StandIn) -> None:
    url = f"{server.base}/mcp"
    store = MemoryLoginStore()
    provider = MCPOAuthProvider(url, store=store)
    with pytest.raises(MCPLoginError, match="no login is stored"):
        await get_with(provider, url)
    assert server.requests_to("/mcp") == []
    # The user logs in from another process; the same provider is used again.
    await store.save(stored_login(server, expires_at=time.time() + 3600))
    assert (await get_with(provider, url)).status_code == 200
    assert bearer_sent(server) == "Bearer AT-OLD"
    assert refreshes(server) == []


async def test_a_valid_token_stays_in_use_when_another_login_is_stored(server: StandIn) -> None:
    # The stored login is read again only once the token held is due for a refresh.
    url = f"{server.base}/mcp"
    store = await store_with(stored_login(server, expires_at=time.time() + 3600))
    provider = MCPOAuthProvider(url, store=store)
    await get_with(provider, url)
    other = stored_login(
        server, expires_at=time.time() + 3600, access_token="AT-OTHER", refresh_token="RT-X"
    )
    await store.save(other)
    await get_with(provider, url)
    assert bearer_sent(server) == "Bearer AT-OLD"


def _refused_while_stored(server: StandIn, meanwhile: StoredLogin) -> MCPOAuthProvider:
    """A provider whose stored login has expired and whose refresh the server refuses,
    while another process stores ``meanwhile`` in the same store."""
    server.routes[TOKEN_PATH] = (400, {"error": "invalid_grant"})
    first = stored_login(server, expires_at=time.time() - 5)
    return MCPOAuthProvider(first.server_url, store=RefreshedMeanwhile(first, meanwhile, server))


async def test_a_refused_refresh_after_another_process_dropped_the_tokens(
    server: StandIn,
) -> None:
    # Another provider's refresh was refused first: it left the login without tokens
    # (its registered client kept), which is no newer login to take.
    url = f"{server.base}/mcp"
    dropped = stored_login(server, expires_at=None).model_copy(update={"tokens": None})
    provider = _refused_while_stored(server, dropped)
    with pytest.raises(MCPLoginError, match="expired or was revoked") as caught:
        await get_with(provider, url)
    assert provider.failure is caught.value
    assert [r["refresh_token"] for r in refreshes(server)] == [["RT-OLD"]]
    assert await provider.store.load(url) == dropped


async def test_a_login_taken_from_another_process_is_refreshed_as_it_was_obtained(
    server: StandIn,
) -> None:
    # This provider's refresh is refused; another process has meanwhile logged in again,
    # with a new client of an authorization server that now has another token endpoint.
    # Its login is taken, and later refreshed as that client, at that endpoint.
    url = f"{server.base}/mcp"
    newer = stored_login(
        server,
        expires_in=2,  # due half a second before it expires
        expires_at=time.time() + 1.5,
        access_token="AT-OTHER",
        refresh_token="RT-OTHER",
    )
    assert newer.client_info is not None
    assert newer.authorization_server is not None
    newer.client_info = newer.client_info.model_copy(update={"client_id": "client-2"})
    moved = AnyHttpUrl(server.base + MOVED_TOKEN_PATH)
    newer.authorization_server.token_endpoint = moved
    provider = _refused_while_stored(server, newer)
    assert (await get_with(provider, url)).status_code == 200
    assert bearer_sent(server) == "Bearer AT-OTHER"

    server.routes[MOVED_TOKEN_PATH] = (200, NEW_TOKENS)
    assert newer.expires_at is not None
    await _wait_until(newer.expires_at - 0.5)
    await get_with(provider, url)
    assert [parse_qs(seen.body) for seen in server.requests_to(MOVED_TOKEN_PATH)] == [
        {
            "grant_type": ["refresh_token"],
            "refresh_token": ["RT-OTHER"],
            "client_id": ["client-2"],
            "resource": [url],
        }
    ]
    refused = [(r["refresh_token"], r["client_id"]) for r in refreshes(server)]
    assert refused == [(["RT-OLD"], ["client-1"])]
    assert bearer_sent(server) == "Bearer AT-NEW"
