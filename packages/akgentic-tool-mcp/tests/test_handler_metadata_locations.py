"""Where the flow looks up the metadata documents of a server whose URL has a path.

RFC 9728 puts the resource metadata of ``https://mcp/tools/x`` at
``https://mcp/.well-known/oauth-protected-resource/tools/x``, and RFC 8414 the document of
the issuer ``https://as/realms/x`` at
``https://as/.well-known/oauth-authorization-server/realms/x``: the path is kept as it is, whatever letter it ends in (a trailing slash, which is dropped,
is tested in `test_oauth_step_answers`). Played with a stand-in on 127.0.0.1 that serves
each document at that one location only.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from _handler_browsers import approve
from oauth_stand_in import StandIn

from akgentic.tool.mcp.oauth_handler import authorize_mcp_server

AS_WELL_KNOWN = "/.well-known/oauth-authorization-server"
PRM = "/.well-known/oauth-protected-resource"


async def test_the_server_path_is_kept_whole_in_the_resource_metadata_location(
    stand_in: StandIn,
) -> None:
    server_url = f"{stand_in.base}/tools/MATRIX"
    stand_in.serve_as_own_authorization_server()
    stand_in.routes[f"{PRM}/tools/MATRIX"] = (
        200,
        {
            "resource": server_url,
            "authorization_servers": [stand_in.base],
            "scopes_supported": ["matrix:read"],
        },
    )
    token = await authorize_mcp_server(server_url, open_browser=approve, timeout=10)
    assert token.access_token == "t"
    assert [seen.path for seen in stand_in.seen if seen.path.startswith(PRM)] == [
        f"{PRM}/tools/MATRIX"
    ]
    # The document found is the one used: its scopes are asked for.
    (consent,) = stand_in.requests_to("/authorize")
    assert parse_qs(urlsplit(consent.path).query)["scope"] == ["matrix:read"]


async def test_the_issuer_path_is_kept_whole_in_the_metadata_location(stand_in: StandIn) -> None:
    issuer = f"{stand_in.base}/realms/SPHINX"
    stand_in.serve_as_own_authorization_server(issuer=issuer)
    stand_in.routes[f"{AS_WELL_KNOWN}/realms/SPHINX"] = stand_in.routes.pop(AS_WELL_KNOWN)
    stand_in.routes[f"{PRM}/mcp"] = (
        200,
        {"resource": f"{stand_in.base}/mcp", "authorization_servers": [issuer]},
    )
    token = await authorize_mcp_server(f"{stand_in.base}/mcp", open_browser=approve, timeout=10)
    assert token.access_token == "t"
    asked = [seen.path for seen in stand_in.seen if seen.path.startswith(AS_WELL_KNOWN)]
    assert asked == [f"{AS_WELL_KNOWN}/realms/SPHINX"]
