"""The user's side of an authorization, played without a browser or a local listener."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx
from mcp.shared.auth import AuthorizationCodeResult
from oauth_stand_in import StandIn

from akgentic.tool.mcp.oauth_login import OAuthInteraction

PRM = "/.well-known/oauth-protected-resource"


class AutoApprove:
    """The user's side: visits the authorization URL (which approves at once) and returns
    the code and state the redirect carries, without any listener."""

    redirect_uri = "http://127.0.0.1:9/callback"

    def __init__(self) -> None:
        self.visits = 0
        self.visited: list[str] = []  # the authorization URLs, in order
        self._result: AuthorizationCodeResult | None = None

    def interaction(self) -> OAuthInteraction:
        return OAuthInteraction(self.redirect_uri, self._visit, self._redirected)

    async def _visit(self, url: str) -> None:
        self.visits += 1
        self.visited.append(url)
        async with httpx.AsyncClient() as client:
            answer = await client.get(url)
        assert answer.status_code in (302, 303, 307), answer.text
        query = parse_qs(urlsplit(answer.headers["location"]).query)
        self._result = AuthorizationCodeResult(code=query["code"][0], state=query["state"][0])

    async def _redirected(self) -> AuthorizationCodeResult:
        assert self._result is not None
        return self._result


def serve_mcp_with_oauth(stand_in: StandIn, **metadata_overrides: str | None) -> str:
    """The stand-in as an OAuth-protected MCP server that is its own authorization server."""
    url = f"{stand_in.base}/mcp"
    challenge = f'Bearer resource_metadata="{stand_in.base}{PRM}/mcp"'
    stand_in.routes["/mcp"] = (401, {"error": "unauthorized"}, {"WWW-Authenticate": challenge})
    stand_in.routes[f"{PRM}/mcp"] = (
        200,
        {"resource": url, "authorization_servers": [stand_in.base]},
    )
    stand_in.routes["/.well-known/oauth-authorization-server"] = (
        200,
        stand_in.metadata(stand_in.base, **metadata_overrides),
    )
    stand_in.routes["/register"] = (
        201,
        {"client_id": "c-1", "redirect_uris": [AutoApprove.redirect_uri]},
    )
    return url
