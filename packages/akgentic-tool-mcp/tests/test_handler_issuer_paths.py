"""Where the metadata of an authorization server whose issuer has a path is looked up.

RFC 8414 puts the document of ``https://as/realms/x`` at
``https://as/.well-known/oauth-authorization-server/realms/x``: the issuer's path is kept
as it is, whatever letter it ends in (a trailing slash, which is dropped, is tested in
`test_oauth_step_answers`). Played with a stand-in on 127.0.0.1 that serves the document
at that one location only.
"""

from __future__ import annotations

from _handler_browsers import approve
from oauth_stand_in import StandIn

from akgentic.tool.mcp.oauth_handler import authorize_mcp_server

WELL_KNOWN = "/.well-known/oauth-authorization-server"


async def test_the_issuer_path_is_kept_whole_in_the_metadata_location(stand_in: StandIn) -> None:
    issuer = f"{stand_in.base}/realms/SPHINX"
    stand_in.serve_as_own_authorization_server(issuer=issuer)
    stand_in.routes[f"{WELL_KNOWN}/realms/SPHINX"] = stand_in.routes.pop(WELL_KNOWN)
    stand_in.routes["/.well-known/oauth-protected-resource/mcp"] = (
        200,
        {"resource": f"{stand_in.base}/mcp", "authorization_servers": [issuer]},
    )
    token = await authorize_mcp_server(f"{stand_in.base}/mcp", open_browser=approve, timeout=10)
    assert token.access_token == "t"
    asked = [seen.path for seen in stand_in.seen if seen.path.startswith(WELL_KNOWN)]
    assert asked == [f"{WELL_KNOWN}/realms/SPHINX"]
