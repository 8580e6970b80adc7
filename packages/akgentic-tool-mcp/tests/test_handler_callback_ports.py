"""Which port the local redirect listener takes.

A pre-registered client's redirect URI fixes the port: the predecessor's blocking helpers
must open their listener on the ``callback_port`` they are given. Without one, each flow
takes a free port of its own, so a second authorization started while a first one waits
for its user does not collide with it. Played against the demo MCP server in its OAuth
mode and against stand-ins on 127.0.0.1, with a browser that approves at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import pytest
from _handler_browsers import ConsentingBrowser, approve, redirect_uri
from mcp_harness import ServerProcess, free_port, start_http_server
from oauth_stand_in import StandIn, running_stand_in

from akgentic.tool.mcp.oauth_handler import (
    authorize_mcp_server,
    get_mcp_token_with_oauth_if_needed,
    probe_mcp_with_oauth,
)


@pytest.fixture(scope="module")
def oauth_server() -> Iterator[ServerProcess]:
    server = start_http_server("streamable-http", "/mcp", "--oauth")
    yield server
    server.stop()


@pytest.mark.parametrize("helper", [get_mcp_token_with_oauth_if_needed, probe_mcp_with_oauth])
def test_the_blocking_helpers_listen_on_the_port_given(
    oauth_server: ServerProcess, helper: Callable[..., str | None]
) -> None:
    port = free_port()
    browser = ConsentingBrowser()
    token = helper(oauth_server.url, callback_port=port, open_browser=browser)
    assert token is not None
    (sent,) = browser.sent
    assert redirect_uri(sent) == f"http://127.0.0.1:{port}/callback"
    browser.finish()
    assert browser.landed == [200]


async def test_a_flow_started_while_another_waits_gets_a_listener_of_its_own(
    stand_in: StandIn,
) -> None:
    stand_in.serve_as_own_authorization_server()
    sent: list[str] = []

    async def approve_and_keep(url: str) -> bool:
        sent.append(url)
        return await approve(url)

    with running_stand_in() as other:
        other.serve_as_own_authorization_server()
        other.routes["/token"] = (200, {"access_token": "t-other"})

        async def approve_after_another_flow(url: str) -> bool:
            # The first flow's listener is open and waiting: a second flow runs to its end.
            second = await authorize_mcp_server(f"{other.base}/mcp", open_browser=approve_and_keep)
            assert second.access_token == "t-other"
            return await approve_and_keep(url)

        first = await authorize_mcp_server(
            f"{stand_in.base}/mcp", open_browser=approve_after_another_flow, timeout=10
        )
    assert first.access_token == "t"
    second_uri, first_uri = (redirect_uri(url) for url in sent)
    assert urlsplit(second_uri).port != urlsplit(first_uri).port
