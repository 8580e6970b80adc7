"""A plain-http endpoint in authorization-server metadata is refused under its field name.

The user (or whoever runs the authorization server) reads the error to fix the document:
it must name the field as the document spells it, and the document's URL. Played with a
stand-in on 127.0.0.1 that is its own authorization server.
"""

from __future__ import annotations

import re

import pytest
from oauth_stand_in import StandIn

from akgentic.tool.mcp.oauth_handler import OAuthFlowError, authorize_mcp_server


@pytest.mark.parametrize(
    "field", ["authorization_endpoint", "token_endpoint", "registration_endpoint"]
)
async def test_the_refusal_names_the_field_exactly(stand_in: StandIn, field: str) -> None:
    endpoint = "http://as.acme.example/oauth"
    stand_in.serve_as_own_authorization_server(**{field: endpoint})

    def never_opened(url: str) -> bool:
        raise AssertionError(f"the browser was sent to {url}")

    with pytest.raises(OAuthFlowError) as caught:
        await authorize_mcp_server(f"{stand_in.base}/mcp", open_browser=never_opened, timeout=10)
    message = str(caught.value)
    # The field as a word of its own: not part of a longer name.
    assert re.search(rf"(?<![\w.]){field}(?![\w])", message), message
    assert f"{stand_in.base}/.well-known/oauth-authorization-server" in message
    assert repr(endpoint) in message
    assert stand_in.oauth_requests() == []
