"""The OAuth flow against authorization servers that differ from the `mcp` package's own.

A small scriptable stand-in (a real HTTP server on 127.0.0.1) plays servers with no
protected-resource metadata, issuers with a path, confidential clients, and the ways
metadata, registration and token answers go wrong.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from oauth_stand_in import StandIn

from akgentic.tool.mcp.oauth_handler import OAuthFlowError, authorize_mcp_server


async def browser(url: str) -> bool:
    async with httpx.AsyncClient(follow_redirects=True) as client:
        await client.get(url)
    return True


async def test_a_server_without_resource_metadata_is_its_own_authorization_server(
    stand_in: StandIn,
) -> None:
    # No 401 challenge and no RFC 9728 document: the origin's RFC 8414 metadata is used.
    stand_in.routes["/.well-known/oauth-authorization-server"] = (
        200,
        stand_in.metadata(stand_in.base),
    )
    stand_in.routes["/register"] = (201, {"client_id": "c-1"})
    stand_in.routes["/token"] = (200, {"access_token": "tok-1", "token_type": "bearer"})
    token = await authorize_mcp_server(f"{stand_in.base}/mcp", open_browser=browser, timeout=10)
    assert token.access_token == "tok-1"
    (exchange,) = stand_in.requests_to("/token")
    form = parse_qs(exchange.body)
    assert form["grant_type"] == ["authorization_code"]
    assert form["code"] == ["the-code"]
    assert form["client_id"] == ["c-1"]
    assert form["resource"] == [f"{stand_in.base}/mcp"]
    assert len(form["code_verifier"][0]) >= 43
    registration = json.loads(stand_in.requests_to("/register")[0].body)
    assert registration["token_endpoint_auth_method"] == "none"
    assert registration["redirect_uris"][0].startswith("http://127.0.0.1:")


async def test_an_issuer_with_a_path_and_advertised_scopes(stand_in: StandIn) -> None:
    issuer = f"{stand_in.base}/tenant-7"
    stand_in.routes["/.well-known/oauth-protected-resource/mcp"] = (
        200,
        {
            "resource": f"{stand_in.base}/mcp",
            "authorization_servers": [issuer],
            "scopes_supported": ["files:read", "files:write"],
        },
    )
    stand_in.routes["/.well-known/oauth-authorization-server/tenant-7"] = (
        200,
        stand_in.metadata(issuer),
    )
    stand_in.routes["/register"] = (201, {"client_id": "c-2"})
    stand_in.routes["/token"] = (200, {"access_token": "tok-2", "expires_in": 60})
    token = await authorize_mcp_server(f"{stand_in.base}/mcp", open_browser=browser, timeout=10)
    assert token.expires_in == 60
    (authorize,) = stand_in.requests_to("/authorize")
    assert parse_qs(urlsplit(authorize.path).query)["scope"] == ["files:read files:write"]


async def test_a_confidential_client_authenticates_at_the_token_endpoint(
    stand_in: StandIn,
) -> None:
    stand_in.routes["/.well-known/oauth-authorization-server"] = (
        200,
        stand_in.metadata(stand_in.base, registration_endpoint=None),
    )
    stand_in.routes["/token"] = (200, {"access_token": "tok-3"})
    await authorize_mcp_server(
        f"{stand_in.base}/mcp",
        client_id="ops",
        client_secret="hunter2",
        open_browser=browser,
        timeout=10,
    )
    form = parse_qs(stand_in.requests_to("/token")[0].body)
    assert form["client_secret"] == ["hunter2"]
    assert stand_in.requests_to("/register") == []


async def test_a_registered_client_using_basic_authentication(stand_in: StandIn) -> None:
    stand_in.routes["/.well-known/oauth-authorization-server"] = (
        200,
        stand_in.metadata(stand_in.base),
    )
    stand_in.routes["/register"] = (
        201,
        {
            "client_id": "c-4",
            "client_secret": "s-4",
            "token_endpoint_auth_method": "client_secret_basic",
        },
    )
    stand_in.routes["/token"] = (200, {"access_token": "tok-4"})
    await authorize_mcp_server(f"{stand_in.base}/mcp", open_browser=browser, timeout=10)
    exchange = stand_in.requests_to("/token")[0]
    expected = base64.b64encode(b"c-4:s-4").decode()
    assert exchange.headers["Authorization"] == f"Basic {expected}"
    assert "client_secret" not in parse_qs(exchange.body)


@pytest.mark.parametrize(
    ("metadata", "routes", "expected"),
    [
        ({"code_challenge_methods_supported": ["plain"]}, {}, "does not advertise PKCE with S256"),
        ({"code_challenge_methods_supported": None}, {}, "does not advertise PKCE with S256"),
        (
            {"registration_endpoint": None},
            {},
            "offers no dynamic client registration; register a client there and pass its "
            "client_id$",
        ),
        ({"token_endpoint": None}, {}, "metadata at .* is invalid"),
        (
            {},
            {
                "/register": (
                    400,
                    {
                        "error": "invalid_client_metadata",
                        "error_description": "redirect not allowed",
                    },
                )
            },
            "registration .* failed: HTTP 400 invalid_client_metadata: redirect not allowed",
        ),
        ({}, {"/register": (201, {"client_name": "x"})}, "without a client_id"),
        ({}, {"/register": (201, "<html>")}, "client registration answered with something"),
        ({}, {"/token": (200, "not json")}, "token exchange answered with something"),
        ({}, {"/token": (200, {"token_type": "bearer"})}, "without an access token"),
        ({}, {"/token": (200, ["tok"])}, "JSON that is not an object"),
        ({}, {"/token": (401, "denied")}, "token exchange .* failed: HTTP 401 denied"),
    ],
)
async def test_what_goes_wrong_is_named(
    stand_in: StandIn, metadata: dict[str, Any], routes: dict[str, Any], expected: str
) -> None:
    stand_in.routes["/.well-known/oauth-authorization-server"] = (
        200,
        stand_in.metadata(stand_in.base, **metadata),
    )
    stand_in.routes["/register"] = (201, {"client_id": "c"})
    stand_in.routes["/token"] = (200, {"access_token": "t"})
    stand_in.routes.update(routes)
    with pytest.raises(OAuthFlowError, match=expected):
        await authorize_mcp_server(f"{stand_in.base}/mcp", open_browser=browser, timeout=10)


async def test_invalid_resource_metadata_is_named(stand_in: StandIn) -> None:
    stand_in.routes["/.well-known/oauth-protected-resource/mcp"] = (
        200,
        {"authorization_servers": "not-a-list"},
    )
    with pytest.raises(OAuthFlowError, match="protected resource metadata at .* is invalid"):
        await authorize_mcp_server(f"{stand_in.base}/mcp", open_browser=browser, timeout=10)


async def test_the_local_listener_ignores_stray_requests(stand_in: StandIn) -> None:
    stand_in.routes["/.well-known/oauth-authorization-server"] = (
        200,
        stand_in.metadata(stand_in.base),
    )
    stand_in.routes["/register"] = (201, {"client_id": "c"})
    stand_in.routes["/token"] = (200, {"access_token": "t-5"})

    async def noisy_browser(url: str) -> bool:
        redirect = parse_qs(urlsplit(url).query)["redirect_uri"][0]
        origin = redirect.removesuffix("/callback")
        async with httpx.AsyncClient(follow_redirects=True) as client:
            assert (await client.get(f"{origin}/favicon.ico")).status_code == 404
            assert (await client.post(redirect, content=b"x")).status_code == 404
            # An oversized request line is dropped without an answer.
            parts = urlsplit(redirect)
            reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
            try:
                writer.write(b"GET /" + b"x" * 70_000 + b" HTTP/1.1\r\n\r\n")
                await writer.drain()
                answer = await reader.read()
            except ConnectionResetError:  # closed while the rest was still being sent
                answer = b""
            assert answer == b""
            writer.close()
            landing = await client.get(url)
        assert "close this tab" in landing.text
        return True

    token = await authorize_mcp_server(
        f"{stand_in.base}/mcp", open_browser=noisy_browser, timeout=10
    )
    assert token.access_token == "t-5"
