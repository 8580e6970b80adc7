"""Model Context Protocol servers as tools for akgentic agents.

``MCPTool`` connects an agent to one MCP server (over streamable HTTP, SSE or stdio) and
hands its tools to pydantic-ai as a toolset. ``oauth_handler`` obtains an access token for
servers protected by OAuth, to pass as the connection's ``bearer_token``.
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

__all__ = [
    "MCPConnectionConfig",
    "MCPConnectionError",
    "MCPDiagnosticsConfig",
    "MCPHTTPConnectionConfig",
    "MCPStdioConnectionConfig",
    "MCPTool",
    "get_mcp_token_with_oauth_if_needed",
    "handle_mcp_oauth_flow",
    "list_mcp_tools",
    "parse_www_authenticate_header",
    "probe_mcp_connection",
    "probe_mcp_with_oauth",
]
