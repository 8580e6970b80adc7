"""MCPTool as configuration: validation, serialization and the toolset it builds."""

from __future__ import annotations

import pytest
from fastmcp.client.transports import SSETransport, StdioTransport, StreamableHttpTransport
from pydantic import ValidationError
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.toolsets import PrefixedToolset

import akgentic.tool.mcp as mcp_pkg
import akgentic.tool.mcp.oauth_handler as oauth_module
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent, assert_card_conformance
from akgentic.tool.mcp import MCPHTTPConnectionConfig, MCPStdioConnectionConfig, MCPTool


def test_public_names_are_pinned() -> None:
    assert sorted(mcp_pkg.__all__) == [
        "MCPConnectionConfig",
        "MCPConnectionError",
        "MCPDiagnosticsConfig",
        "MCPHTTPConnectionConfig",
        "MCPLoginError",
        "MCPStdioConnectionConfig",
        "MCPTool",
        "get_mcp_token_with_oauth_if_needed",
        "handle_mcp_oauth_flow",
        "list_mcp_tools",
        "login_mcp_server",
        "login_mcp_server_sync",
        "parse_www_authenticate_header",
        "probe_mcp_connection",
        "probe_mcp_with_oauth",
    ]
    assert sorted(oauth_module.__all__) == [
        "AuthorizationCallback",
        "AuthorizationCode",
        "AuthorizationServerMetadata",
        "OAuthCallbackHandler",
        "OAuthClient",
        "OAuthFlowError",
        "OAuthToken",
        "PKCEPair",
        "ProtectedResourceMetadata",
        "authorize_mcp_server",
        "authorize_mcp_server_sync",
        "discover_authorization_server",
        "exchange_code",
        "get_mcp_token_with_oauth_if_needed",
        "handle_mcp_oauth_flow",
        "listen_for_callback",
        "new_pkce_pair",
        "parse_www_authenticate",
        "parse_www_authenticate_header",
        "probe_mcp_with_oauth",
        "register_client",
        "request_authorization_code",
    ]


def test_a_connection_is_required_and_only_one() -> None:
    with pytest.raises(ValidationError, match="connection"):
        MCPTool()  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match="exactly one server"):
        MCPTool.model_validate(
            {"connections": [{"url": "http://a.example/mcp"}, {"url": "http://b.example/mcp"}]}
        )


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"url": "mcp.example.com/api"}, "url"),
        ({"url": "ws://mcp.example.com/api"}, "url"),
        ({"url": "https://m.example/mcp", "transport": "websocket"}, "transport"),
        ({"url": "https://m.example/mcp", "read_timeout": 0}, "read_timeout"),
        ({"url": "https://m.example/mcp", "init_timeout": -1}, "init_timeout"),
        ({"url": "https://m.example/mcp", "tool_prefix": "acme tools"}, "tool_prefix"),
        ({"stdio_command": ""}, "stdio_command"),
        ({"stdio_command": "   "}, "stdio_command"),
        ({"stdio_args": ["server.py"]}, "stdio_command"),
    ],
)
def test_bad_connections_name_the_field(data: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        MCPTool.model_validate({"connection": data})


def test_cards_round_trip_to_the_right_connection_kind(tool_agent: ToolTestAgent) -> None:
    http = MCPTool(
        connection=MCPHTTPConnectionConfig(
            url="https://m.example/api/v1/endpoint",
            transport="sse",
            bearer_token="tok",
            read_timeout=900.0,
            tool_prefix="acme",
        )
    )
    stdio = MCPTool(
        connection=MCPStdioConnectionConfig(
            stdio_command="uvx", stdio_args=["acme-mcp-server"], stdio_env={"ACME": "1"}
        )
    )
    for card in (http, stdio):
        assert_card_conformance(card, observer=tool_agent)
        again = MCPTool.model_validate_json(card.model_dump_json())
        assert type(again.connection) is type(card.connection)
        assert again == card
    # Secrets are configuration (they round-trip) but stay out of repr.
    assert "tok" not in repr(http)
    assert "ACME" not in repr(stdio)


def test_get_tools_is_empty_and_the_toolset_comes_through_the_factory(
    tool_agent: ToolTestAgent,
) -> None:
    card = MCPTool(connection=MCPHTTPConnectionConfig(url="http://127.0.0.1:9/mcp"))
    assert card.get_tools() == []
    factory = ToolFactory([card], observer=tool_agent)
    assert factory.get_tools() == []
    (toolset,) = factory.get_toolsets()
    # The factory bounds every toolset's results: the MCP toolset is inside that wrapper.
    assert isinstance(toolset.wrapped, MCPToolset)
    assert toolset.limit == factory.max_output_chars


def test_the_transport_comes_from_the_config_never_from_the_url() -> None:
    # A URL ending in /sse still gets streamable HTTP unless SSE is asked for...
    (default,) = MCPTool(
        connection=MCPHTTPConnectionConfig(url="https://m.example/sse")
    ).get_toolsets()
    assert isinstance(default.client.transport, StreamableHttpTransport)
    # ...and an SSE endpoint on any path gets SSE when asked for, with the token and timeout.
    (sse,) = MCPTool(
        connection=MCPHTTPConnectionConfig(
            url="https://m.example/api/v1/endpoint",
            transport="sse",
            bearer_token="tok",
            read_timeout=900.0,
        )
    ).get_toolsets()
    transport = sse.client.transport
    assert isinstance(transport, SSETransport)
    assert transport.headers == {"Authorization": "Bearer tok"}
    assert transport.sse_read_timeout is not None
    assert transport.sse_read_timeout.total_seconds() == 900.0


def test_tool_prefix_wraps_the_toolset() -> None:
    (prefixed,) = MCPTool(
        connection=MCPStdioConnectionConfig(
            stdio_command="uvx", stdio_args=["acme-mcp-server"], tool_prefix="acme"
        )
    ).get_toolsets()
    assert isinstance(prefixed, PrefixedToolset)
    assert prefixed.prefix == "acme"
    assert isinstance(prefixed.wrapped, MCPToolset)
    transport = prefixed.wrapped.client.transport
    assert isinstance(transport, StdioTransport)
    assert (transport.command, transport.args) == ("uvx", ["acme-mcp-server"])


def test_each_call_builds_a_fresh_toolset() -> None:
    card = MCPTool(connection=MCPHTTPConnectionConfig(url="http://127.0.0.1:9/mcp"))
    (first,) = card.get_toolsets()
    (second,) = card.get_toolsets()
    assert first is not second
