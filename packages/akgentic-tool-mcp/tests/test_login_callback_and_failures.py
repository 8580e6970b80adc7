"""``login_mcp_server``: the listener port it is given, and a failure that is no login's.

Against the stand-in of ``test_oauth_login_choices`` (an MCP server on 127.0.0.1 that is its
own authorization server), with a "browser" that records where it was sent and never comes
back, and against a port where nothing listens.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from mcp_harness import free_port
from oauth_stand_in import StandIn
from oauth_users import AutoApprove, serve_mcp_with_oauth

from akgentic.tool.mcp.oauth_handler import OAuthFlowError
from akgentic.tool.mcp.oauth_login import login_mcp_server
from akgentic.tool.mcp.oauth_store import MemoryLoginStore


async def test_the_listener_takes_the_callback_port_given(stand_in: StandIn) -> None:
    url = serve_mcp_with_oauth(stand_in)
    port = free_port()
    sent_to: list[str] = []

    def browser(address: str) -> bool:
        sent_to.append(address)
        return True  # opened; the user never comes back

    with pytest.raises(OAuthFlowError, match="no authorization arrived") as caught:
        await login_mcp_server(
            url,
            store=MemoryLoginStore(),
            open_browser=browser,
            callback_port=port,
            timeout=0.3,
        )
    listener = f"http://127.0.0.1:{port}/"
    (authorization_url,) = sent_to
    assert parse_qs(urlsplit(authorization_url).query)["redirect_uri"][0].startswith(listener)
    assert listener in str(caught.value)


async def test_a_server_that_cannot_be_reached_fails_with_the_connection_error() -> None:
    # Neither a login failure nor the SDK's: it reaches the caller as the client raised it.
    url = f"http://127.0.0.1:{free_port()}/mcp"
    user = AutoApprove()
    with pytest.raises(Exception) as caught:
        await login_mcp_server(url, store=MemoryLoginStore(), interaction=user.interaction())
    assert not isinstance(caught.value, OAuthFlowError)
    assert isinstance(caught.value.__cause__, httpx2.ConnectError)
    assert user.visits == 0
