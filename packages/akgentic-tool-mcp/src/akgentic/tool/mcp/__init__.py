"""Model Context Protocol servers as tools for akgentic agents.

``MCPTool`` connects an agent to one MCP server (over streamable HTTP, SSE or stdio) and
hands its tools to pydantic-ai as a toolset. ``oauth_handler`` obtains an access token for
servers protected by OAuth, to pass as the connection's ``bearer_token``.
"""

from akgentic.tool.mcp.mcp import (
    MCPConnectionConfig,
    MCPConnectionError,
    MCPHTTPConnectionConfig,
    MCPStdioConnectionConfig,
    MCPTool,
)

__all__ = [
    "MCPConnectionConfig",
    "MCPConnectionError",
    "MCPHTTPConnectionConfig",
    "MCPStdioConnectionConfig",
    "MCPTool",
]
