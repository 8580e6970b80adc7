"""Shared by the refresh tests: a stand-in authorization server that hands out new tokens,
stored logins pointing at it, and a store another process writes to meanwhile."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qs

import httpx2
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)
from oauth_stand_in import StandIn, running_stand_in
from pydantic import AnyHttpUrl

from akgentic.tool.mcp.oauth_login import MCPOAuthProvider
from akgentic.tool.mcp.oauth_store import MemoryLoginStore, StoredLogin

TOKEN_PATH = "/oauth2/token"
NEW_TOKENS = {
    "access_token": "AT-NEW",
    "token_type": "Bearer",
    "expires_in": 3600,
    "refresh_token": "RT-NEW",
}


@contextmanager
def refreshing_stand_in() -> Iterator[StandIn]:
    """A stand-in whose ``/mcp`` answers 200 and whose token endpoint hands out ``NEW_TOKENS``."""
    with running_stand_in() as state:
        state.routes["/mcp"] = (200, {"ok": True})
        state.routes[TOKEN_PATH] = (200, NEW_TOKENS)
        yield state


def stored_login(
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


async def store_with(login: StoredLogin) -> MemoryLoginStore:
    store = MemoryLoginStore()
    await store.save(login)
    return store


async def get_with(provider: MCPOAuthProvider, url: str) -> httpx2.Response:
    async with httpx2.AsyncClient(auth=provider) as client:
        return await client.get(url)


def refreshes(server: StandIn) -> list[dict[str, list[str]]]:
    return [parse_qs(seen.body) for seen in server.requests_to(TOKEN_PATH)]


def bearer_sent(server: StandIn) -> str:
    *_, last = server.requests_to("/mcp")
    return last.headers.get("Authorization", "")


class RefreshedMeanwhile(MemoryLoginStore):
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
