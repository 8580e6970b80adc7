"""Metadata the OAuth flow must refuse: foreign resources, foreign issuers, plain-http URLs.

Each attack is played by real HTTP stand-ins on loopback addresses (one for the MCP server
the user asked for, sometimes a second one for the victim whose tokens an attacker wants).
A refusal must come before anything is registered, authorized or exchanged, so the tests
also check that the stand-ins never saw those requests.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
from oauth_stand_in import StandIn, running_stand_in

from akgentic.tool.mcp._oauth_urls import is_secure_endpoint
from akgentic.tool.mcp.oauth_handler import OAuthFlowError, authorize_mcp_server

PRM = "/.well-known/oauth-protected-resource"


@pytest.fixture
def server() -> Iterator[StandIn]:
    """The MCP server the user asked to authorize (and, unless a test says otherwise, its AS)."""
    with running_stand_in() as state:
        yield state


@pytest.fixture
def victim() -> Iterator[StandIn]:
    """Another MCP server and authorization server, whose tokens an attacker would want."""
    with running_stand_in() as state:
        yield state


async def browser(url: str) -> bool:
    async with httpx.AsyncClient(follow_redirects=True) as client:
        await client.get(url)
    return True


async def authorize(server: StandIn, path: str = "/mcp") -> str:
    token = await authorize_mcp_server(f"{server.base}{path}", open_browser=browser, timeout=10)
    return token.access_token


def serve_resource(server: StandIn, resource: str | None, location: str = f"{PRM}/mcp") -> None:
    """Resource metadata naming ``resource``, with ``server`` as its own authorization server."""
    server.serve_as_own_authorization_server()
    document: dict[str, Any] = {"authorization_servers": [server.base]}
    if resource is not None:
        document["resource"] = resource
    server.routes[location] = (200, document)


# -- 1. the resource must be the server the token is for ---------------------------------


async def test_metadata_naming_another_server_as_resource_is_refused(
    server: StandIn, victim: StandIn
) -> None:
    serve_resource(server, f"{victim.base}/mcp")
    with pytest.raises(OAuthFlowError, match="is for resource .* not for the MCP server") as caught:
        await authorize(server)
    assert f"{victim.base}/mcp" in str(caught.value)
    assert server.oauth_requests() == []
    assert victim.seen == []


async def test_a_challenge_pointing_at_another_servers_genuine_metadata_is_refused(
    server: StandIn, victim: StandIn
) -> None:
    # The victim's own, honest metadata: resource = the victim's URL, AS = the victim.
    victim.serve_as_own_authorization_server()
    victim.routes[f"{PRM}/api"] = (
        200,
        {"resource": f"{victim.base}/api", "authorization_servers": [victim.base]},
    )
    # The attacker's server sends the client there, hoping for a token for the victim.
    challenge = f'Bearer resource_metadata="{victim.base}{PRM}/api"'
    server.routes["/mcp"] = (401, {"error": "unauthorized"}, {"WWW-Authenticate": challenge})
    with pytest.raises(OAuthFlowError, match="is for resource"):
        await authorize(server)
    assert victim.oauth_requests() == []
    assert [s.path for s in victim.seen] == [f"{PRM}/api"]


@pytest.mark.parametrize(
    "resource",
    [
        "{base}/other",  # same host, another path
        "{base}/mcp/admin",  # a path below the server's is still another resource
        "http://127.0.0.1:1/mcp",  # same host, another port
        "https://{host}/mcp",  # another scheme
        "{base}",  # the bare origin, from the document at the server's own path
    ],
)
async def test_every_other_resource_identifier_is_refused(server: StandIn, resource: str) -> None:
    host = server.base.removeprefix("http://")
    serve_resource(server, resource.format(base=server.base, host=host))
    with pytest.raises(
        OAuthFlowError,
        match=r"is for resource .*; refusing to ask for a token meant for another resource "
        r"\(RFC 9728: the resource must be the server's\)$",
    ):
        await authorize(server)
    assert server.oauth_requests() == []


@pytest.mark.parametrize(
    ("resource", "location"),
    [
        ("{base}/mcp", f"{PRM}/mcp"),
        ("HTTP://{host}/mcp/", f"{PRM}/mcp"),  # scheme case and a trailing slash do not matter
        ("{base}/mcp", PRM),  # the root document may describe the server's URL...
        ("{base}", PRM),  # ...or the whole origin it describes by definition
        ("{base}/", PRM),
        (None, f"{PRM}/mcp"),  # no resource named: the token is asked for the server's URL
    ],
)
async def test_the_servers_own_resource_is_accepted_and_is_the_tokens_audience(
    server: StandIn, resource: str | None, location: str
) -> None:
    host = server.base.removeprefix("http://")
    named = resource.format(base=server.base, host=host) if resource else None
    serve_resource(server, named, location)
    assert await authorize(server) == "t"
    (exchange,) = server.requests_to("/token")
    assert parse_qs(exchange.body)["resource"] == [named or f"{server.base}/mcp"]


# -- 2. the issuer must be the authorization server it was discovered for ----------------


async def test_metadata_naming_another_issuer_is_refused(server: StandIn, victim: StandIn) -> None:
    # The server's origin is its own AS (no resource metadata), but the document it serves
    # there claims to be the victim's, with the attacker's endpoints.
    server.serve_as_own_authorization_server(issuer=victim.base)
    with pytest.raises(
        OAuthFlowError,
        match=r"names issuer .* but it was looked up for .*; refusing it "
        r"\(RFC 8414: the issuer must be the server the metadata was discovered for\)$",
    ) as caught:
        await authorize(server)
    assert repr(victim.base) in str(caught.value)
    assert server.oauth_requests() == []


async def test_an_issuer_with_another_path_is_refused(server: StandIn) -> None:
    issuer = f"{server.base}/tenant-7"
    server.routes[f"{PRM}/mcp"] = (
        200,
        {"resource": f"{server.base}/mcp", "authorization_servers": [issuer]},
    )
    server.routes["/.well-known/oauth-authorization-server/tenant-7"] = (
        200,
        server.metadata(f"{server.base}/tenant-8"),
    )
    with pytest.raises(OAuthFlowError, match="tenant-8"):
        await authorize(server)
    assert server.oauth_requests() == []


async def test_a_root_issuer_spelled_with_a_trailing_slash_is_the_same_issuer(
    server: StandIn,
) -> None:
    server.serve_as_own_authorization_server(issuer=server.base + "/")
    assert await authorize(server) == "t"


# -- 3. https everywhere but on loopback --------------------------------------------------


@pytest.mark.parametrize(
    ("resource_doc", "metadata", "refused"),
    [
        # The resource metadata hands the client to a plain-http authorization server.
        ({"authorization_servers": ["http://auth.example"]}, {}, "the authorization server"),
        (None, {"authorization_endpoint": "http://auth.example/authorize"}, "authorization_endp"),
        (None, {"token_endpoint": "http://127.0.0.1.evil.example/token"}, "token_endpoint"),
        (None, {"registration_endpoint": "http://localhost.evil.example/r"}, "registration_endp"),
        (None, {"authorization_endpoint": "javascript:alert(1)"}, "authorization_endpoint"),
        (None, {"token_endpoint": "http://10.0.0.1/token"}, "token_endpoint"),
    ],
)
async def test_plain_http_to_a_remote_host_is_refused(
    server: StandIn, resource_doc: dict[str, Any] | None, metadata: dict[str, Any], refused: str
) -> None:
    server.serve_as_own_authorization_server(**metadata)
    if resource_doc is not None:
        server.routes[f"{PRM}/mcp"] = (200, {"resource": f"{server.base}/mcp", **resource_doc})
    with pytest.raises(OAuthFlowError, match=f"{refused}.* is not https") as caught:
        await authorize(server)
    assert "loopback" in str(caught.value)
    assert server.oauth_requests() == []


async def test_a_challenge_pointing_at_plain_http_metadata_is_refused(server: StandIn) -> None:
    challenge = (
        'Bearer resource_metadata="http://meta.example/.well-known/oauth-protected-resource"'
    )
    server.routes["/mcp"] = (401, {}, {"WWW-Authenticate": challenge})
    with pytest.raises(OAuthFlowError, match="protected resource metadata URL .* is not https"):
        await authorize(server)


async def test_a_redirect_to_plain_http_is_refused_before_it_is_followed(server: StandIn) -> None:
    server.routes[f"{PRM}/mcp"] = (302, {}, {"Location": "http://meta.example/prm"})
    with pytest.raises(
        OAuthFlowError, match=r"redirect from .*\('http://meta.example/prm'\) is not https"
    ):
        await authorize(server)


async def test_a_redirecting_token_endpoint_is_not_followed(
    server: StandIn, victim: StandIn
) -> None:
    # The form carries the code and the PKCE verifier: it must not be re-posted elsewhere.
    server.serve_as_own_authorization_server()
    server.routes["/token"] = (307, {}, {"Location": f"{victim.base}/token"})
    with pytest.raises(OAuthFlowError, match="token exchange .* failed: HTTP 307"):
        await authorize(server)
    assert victim.seen == []


async def test_a_plain_http_mcp_server_on_a_remote_host_is_refused_without_a_request() -> None:
    with pytest.raises(OAuthFlowError, match="the MCP server URL .* is not https"):
        await authorize_mcp_server("http://mcp.example/mcp", open_browser=browser, timeout=1)


@pytest.mark.parametrize(("host", "name"), [("127.0.0.2", None), ("::1", None)])
async def test_plain_http_on_any_loopback_address_is_allowed(host: str, name: str | None) -> None:
    try:
        with running_stand_in(host, name) as loopback:
            loopback.serve_as_own_authorization_server()
            assert await authorize(loopback) == "t"
    except OSError as exc:  # no such loopback address on this machine
        pytest.skip(f"cannot listen on {host}: {exc}")


async def test_endpoints_named_localhost_are_allowed(server: StandIn) -> None:
    if not _resolves_to_loopback("localhost"):
        pytest.skip("localhost does not resolve here")
    local = server.base.replace("127.0.0.1", "localhost")
    server.serve_as_own_authorization_server(
        authorization_endpoint=f"{local}/authorize", token_endpoint=f"{local}/token"
    )
    assert await authorize(server) == "t"


@pytest.mark.parametrize(
    ("url", "secure"),
    [
        ("https://auth.example/token", True),
        ("HTTPS://auth.example", True),
        ("http://auth.example/token", False),
        ("http://localhost:8080/cb", True),
        ("http://LOCALHOST./cb", True),
        ("http://127.200.0.1/x", True),
        ("http://[::1]:9/x", True),
        ("http://localhost.evil.example/x", False),
        ("http://127.0.0.1.evil.example/x", False),
        ("http://[::2]/x", False),
        ("ftp://localhost/x", False),
        ("https:///nohost", False),
    ],
)
def test_which_urls_count_as_secure(url: str, secure: bool) -> None:
    assert is_secure_endpoint(url) is secure


def _resolves_to_loopback(name: str) -> bool:
    try:
        infos = socket.getaddrinfo(name, 80, proto=socket.IPPROTO_TCP)
    except OSError:
        return False
    return all(str(info[4][0]) in ("127.0.0.1", "::1") for info in infos)
