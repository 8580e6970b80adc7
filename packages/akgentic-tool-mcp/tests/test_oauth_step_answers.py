"""The flow's requests to the authorization server, and what its failed answers turn into.

``authorize_mcp_server`` against a stand-in on 127.0.0.1 that is its own authorization
server: the registration and token requests it receives are read back, and each unexpected
token answer must end in an error that says what the server said, without the credentials
such an answer may carry, and within a bounded length.
"""

from __future__ import annotations

import base64
import hashlib
import json
import socket
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from oauth_stand_in import StandIn

from akgentic.tool.mcp.oauth_handler import OAuthFlowError, authorize_mcp_server, new_pkce_pair


@pytest.fixture(autouse=True)
def _own_authorization_server(stand_in: StandIn) -> None:
    stand_in.serve_as_own_authorization_server()


class _Browser:
    """Approves at the stand-in and lands on the flow's listener; keeps the URLs it was sent."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def __call__(self, url: str) -> bool:
        self.sent.append(url)
        async with httpx.AsyncClient(follow_redirects=True) as client:
            await client.get(url)
        return True


async def _authorize(stand_in: StandIn, browser: _Browser | None = None) -> str:
    token = await authorize_mcp_server(
        f"{stand_in.base}/mcp", open_browser=browser or _Browser(), timeout=10
    )
    return token.access_token


async def test_the_requests_name_the_client_and_ask_for_json(stand_in: StandIn) -> None:
    assert await _authorize(stand_in) == "t"
    (registration,) = stand_in.requests_to("/register")
    registered = json.loads(registration.body)
    assert registered["client_name"] == "akgentic"
    (redirect_uri,) = registered["redirect_uris"]
    port = urlsplit(redirect_uri).port
    assert port is not None
    assert port >= 1024  # a port the system picked for the listener
    assert registered["grant_types"] == ["authorization_code", "refresh_token"]
    assert registered["response_types"] == ["code"]
    assert "scope" not in registered
    (exchange,) = stand_in.requests_to("/token")
    assert exchange.method == "POST"
    assert exchange.headers["Accept"] == "application/json"
    (metadata,) = stand_in.requests_to("/.well-known/oauth-authorization-server")
    assert metadata.headers["Accept"] == "application/json"
    (probe,) = stand_in.requests_to("/mcp")  # the anonymous request that looks for a challenge
    assert probe.method == "GET"
    assert probe.headers["Accept"] == "application/json, text/event-stream"


async def test_the_name_and_scopes_asked_for_are_registered(stand_in: StandIn) -> None:
    await authorize_mcp_server(
        f"{stand_in.base}/mcp",
        client_name="Acme agent",
        scopes=["read", "write"],
        open_browser=_Browser(),
        timeout=10,
    )
    (registration,) = stand_in.requests_to("/register")
    registered = json.loads(registration.body)
    assert (registered["client_name"], registered["scope"]) == ("Acme agent", "read write")


async def test_a_server_url_that_moved_is_followed_to_its_challenge(stand_in: StandIn) -> None:
    document = f"{stand_in.base}/docs/resource"
    stand_in.routes["/old"] = (307, {}, {"Location": "/mcp"})
    challenge = f'Bearer resource_metadata="{document}"'
    stand_in.routes["/mcp"] = (401, {}, {"WWW-Authenticate": challenge})
    stand_in.routes["/docs/resource"] = (
        200,
        {"authorization_servers": [stand_in.base], "scopes_supported": ["files:read"]},
    )
    await authorize_mcp_server(f"{stand_in.base}/old", open_browser=_Browser(), timeout=10)
    (authorize,) = stand_in.requests_to("/authorize")
    assert parse_qs(urlsplit(authorize.path).query)["scope"] == ["files:read"]


@pytest.mark.parametrize(("hops", "followed"), [(5, True), (6, False)])
async def test_metadata_is_followed_through_five_redirects_at_most(
    stand_in: StandIn, hops: int, followed: bool
) -> None:
    well_known = "/.well-known/oauth-authorization-server"
    stand_in.routes["/moved-0"] = stand_in.routes.pop(well_known)
    stand_in.routes[well_known] = (302, {}, {"Location": f"/moved-{hops - 1}"})
    for hop in range(1, hops):
        stand_in.routes[f"/moved-{hop}"] = (302, {}, {"Location": f"/moved-{hop - 1}"})
    if followed:
        assert await _authorize(stand_in) == "t"
    else:
        with pytest.raises(OAuthFlowError, match=f"GET {stand_in.base}{well_known} was redirected"):
            await _authorize(stand_in)


async def test_metadata_that_is_not_an_object_is_passed_over(stand_in: StandIn) -> None:
    # The RFC 8414 location answers with a JSON list: the OpenID location is tried next.
    well_known = "/.well-known/oauth-authorization-server"
    stand_in.routes["/.well-known/openid-configuration"] = stand_in.routes[well_known]
    stand_in.routes[well_known] = (200, ["not", "metadata"])
    assert await _authorize(stand_in) == "t"


@pytest.mark.parametrize(
    "server_path",
    [
        "/mcp",  # answers 401 with a bare "Bearer" challenge: no document named
        "/mcp/",  # written with a trailing slash: the same server, the same document
    ],
)
async def test_the_well_known_resource_document_is_found(
    stand_in: StandIn, server_path: str
) -> None:
    stand_in.routes["/mcp"] = (401, {}, {"WWW-Authenticate": "Bearer"})
    stand_in.routes["/.well-known/oauth-protected-resource/mcp"] = (
        200,
        {"authorization_servers": [stand_in.base], "scopes_supported": ["files:read"]},
    )
    await authorize_mcp_server(stand_in.base + server_path, open_browser=_Browser(), timeout=10)
    (authorize,) = stand_in.requests_to("/authorize")
    assert parse_qs(urlsplit(authorize.path).query)["scope"] == ["files:read"]


async def test_metadata_of_another_issuer_is_refused_naming_where_it_was_found(
    stand_in: StandIn,
) -> None:
    stand_in.serve_as_own_authorization_server(issuer="https://as.acme.example")
    with pytest.raises(OAuthFlowError) as caught:
        await _authorize(stand_in)
    where = f"{stand_in.base}/.well-known/oauth-authorization-server"
    assert f"authorization server metadata at {where} names issuer" in str(caught.value)


@pytest.mark.parametrize(
    "endpoint", ["authorization_endpoint", "token_endpoint", "registration_endpoint"]
)
async def test_a_plain_http_endpoint_in_the_metadata_is_refused_by_name(
    stand_in: StandIn, endpoint: str
) -> None:
    stand_in.serve_as_own_authorization_server(**{endpoint: "http://as.acme.example/x"})
    with pytest.raises(OAuthFlowError) as caught:
        await _authorize(stand_in)
    assert f"{endpoint} in the metadata at {stand_in.base}/.well-known/" in str(caught.value)
    assert stand_in.requests_to("/register") == []


async def test_a_plain_http_authorization_server_is_refused_by_name(stand_in: StandIn) -> None:
    stand_in.routes["/.well-known/oauth-protected-resource/mcp"] = (
        200,
        {"authorization_servers": ["http://as.acme.example"]},
    )
    with pytest.raises(OAuthFlowError) as caught:
        await _authorize(stand_in)
    assert "the authorization server ('http://as.acme.example')" in str(caught.value).lower()


async def test_an_unreachable_server_is_named_with_the_error() -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}/mcp"
        with pytest.raises(OAuthFlowError, match=f"GET {url} failed: ConnectError"):
            await authorize_mcp_server(url, open_browser=_Browser(), timeout=10)


async def test_an_unreachable_token_endpoint_is_named(stand_in: StandIn) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        token_endpoint = f"http://127.0.0.1:{closed.getsockname()[1]}/token"
        stand_in.serve_as_own_authorization_server(token_endpoint=token_endpoint)
        with pytest.raises(OAuthFlowError, match=f"POST {token_endpoint} failed: ConnectError"):
            await _authorize(stand_in)


@pytest.mark.parametrize(
    ("answer", "secret_sent"),
    [
        ((200, {"client_id": "c-200"}), False),  # 200 is as good as 201
        ((201, {"client_id": "c-5", "client_secret": 5}), False),  # not a secret: ignored
        ((201, {"client_id": "c-6", "client_secret": "s-6"}), True),
    ],
)
async def test_what_a_registration_answer_gives(
    stand_in: StandIn, answer: tuple[int, Any], secret_sent: bool
) -> None:
    stand_in.routes["/register"] = answer
    assert await _authorize(stand_in) == "t"
    form = parse_qs(stand_in.requests_to("/token")[0].body)
    assert form["client_id"] == [answer[1]["client_id"]]
    assert ("client_secret" in form) is secret_sent


async def test_a_registration_without_a_usable_client_id_is_refused(stand_in: StandIn) -> None:
    stand_in.routes["/register"] = (201, {"client_id": ""})
    with pytest.raises(OAuthFlowError, match="^client registration answered without a client_id$"):
        await _authorize(stand_in)
    assert stand_in.requests_to("/token") == []


async def test_an_issuer_written_with_a_trailing_slash_is_found(stand_in: StandIn) -> None:
    issuer = f"{stand_in.base}/tenant-8/"
    stand_in.routes["/.well-known/oauth-protected-resource/mcp"] = (
        200,
        {"resource": f"{stand_in.base}/mcp", "authorization_servers": [issuer]},
    )
    stand_in.routes["/.well-known/oauth-authorization-server/tenant-8"] = (
        200,
        stand_in.metadata(issuer),
    )
    assert await _authorize(stand_in) == "t"


async def test_an_authorization_endpoint_with_a_query_keeps_it(stand_in: StandIn) -> None:
    stand_in.serve_as_own_authorization_server(
        authorization_endpoint=f"{stand_in.base}/authorize?tenant=acme"
    )
    browser = _Browser()
    assert await _authorize(stand_in, browser) == "t"
    (sent,) = browser.sent
    assert sent.startswith(f"{stand_in.base}/authorize?tenant=acme&")
    query = parse_qs(urlsplit(sent).query)
    assert query["tenant"] == ["acme"]
    assert query["response_type"] == ["code"]


@pytest.mark.parametrize(
    ("answer", "said", "unsaid"),
    [
        ({"error": "invalid_client"}, "HTTP 400 invalid_client", "None"),
        (
            {"error": "invalid_grant", "error_description": "refresh_token=RT-LEAK is stale"},
            "HTTP 400 invalid_grant: refresh_token=*** is stale",
            "RT-LEAK",
        ),
        (
            {"access_token": "AT-LEAK", "expires_in": 5},
            "HTTP 400 (JSON with fields: access_token, expires_in)",
            "AT-LEAK",
        ),
        (["nope", "access_token=AT-LEAK"], "HTTP 400 ['nope', 'access_token=***']", "AT-LEAK"),
        ("x" * 300, "HTTP 400 " + "x" * 200, "x" * 201),
        # a JSON answer that is no object is cut at 200 characters too
        (["y" * 300], "HTTP 400 ['" + "y" * 198, "y" * 199),
    ],
)
async def test_a_refused_token_request_says_what_the_server_said(
    stand_in: StandIn, answer: Any, said: str, unsaid: str
) -> None:
    stand_in.routes["/token"] = (400, answer)
    with pytest.raises(OAuthFlowError) as caught:
        await _authorize(stand_in)
    message = str(caught.value)
    assert message.endswith(said)
    assert unsaid not in message


async def test_a_token_answer_without_an_access_token_names_the_missing_field(
    stand_in: StandIn,
) -> None:
    stand_in.routes["/token"] = (200, {"token_type": "Bearer", "refresh_token": "RT-LEAK"})
    with pytest.raises(OAuthFlowError, match=r"without an access token \(access_token: ") as caught:
        await _authorize(stand_in)
    assert "RT-LEAK" not in str(caught.value)


def test_pkce_verifiers_are_86_characters_and_every_challenge_is_their_s256() -> None:
    for pair in (new_pkce_pair() for _ in range(20)):
        assert len(pair.verifier) == 86
        digest = hashlib.sha256(pair.verifier.encode("ascii")).digest()
        assert pair.challenge == base64.urlsafe_b64encode(digest).decode("ascii")[:43]
