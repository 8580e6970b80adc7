"""Model Context Protocol servers as tools for akgentic agents.

``MCPTool`` connects an agent to one MCP server (over streamable HTTP, SSE or stdio) and
hands its tools to pydantic-ai as a toolset. For servers protected by OAuth,
``oauth_login.login_mcp_server`` stores a login once, and a connection with ``auth="oauth"``
uses it, refreshing it as it expires; ``oauth_handler`` obtains a single access token, to
pass as the connection's ``bearer_token``.
"""

from akgentic.tool.mcp.mcp import (
    MCPConnectionConfig,
    MCPConnectionError,
    MCPDiagnosticsConfig,
    MCPHTTPConnectionConfig,
    MCPStdioConnectionConfig,
    MCPTool,
    list_mcp_tools,
    probe_mcp_connection,
)
from akgentic.tool.mcp.oauth_handler import (
    get_mcp_token_with_oauth_if_needed,
    handle_mcp_oauth_flow,
    parse_www_authenticate_header,
    probe_mcp_with_oauth,
)
from akgentic.tool.mcp.oauth_login import MCPLoginError, login_mcp_server, login_mcp_server_sync

__all__ = [
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
