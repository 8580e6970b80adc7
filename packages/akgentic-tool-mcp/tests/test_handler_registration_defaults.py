"""What ``register_client``, called on its own, registers when told only the redirect URI.

The authorization server shows the registered name on its consent page, so a client
registered without a name given is shown as ``akgentic``; an answer that does not repeat
the auth method gives back the public client (``none``) that was asked for. Played with a stand-in on
127.0.0.1 whose registration endpoint records the request.
"""

from __future__ import annotations

import json

import httpx
from oauth_stand_in import StandIn

from akgentic.tool.mcp.oauth_handler import AuthorizationServerMetadata, register_client


async def test_a_client_registered_without_a_name_is_named_akgentic(stand_in: StandIn) -> None:
    stand_in.routes["/register"] = (201, {"client_id": "c-9"})
    server_meta = AuthorizationServerMetadata.model_validate(stand_in.metadata(stand_in.base))
    async with httpx.AsyncClient() as http:
        client = await register_client(server_meta, "http://127.0.0.1:7/callback", http)
    # The answer names no auth method: the client is the public one that was asked for.
    assert (client.client_id, client.client_secret) == ("c-9", None)
    assert client.token_endpoint_auth_method == "none"
    (registration,) = stand_in.requests_to("/register")
    registered = json.loads(registration.body)
    assert registered["client_name"] == "akgentic"
    assert registered["redirect_uris"] == ["http://127.0.0.1:7/callback"]
    assert "scope" not in registered
