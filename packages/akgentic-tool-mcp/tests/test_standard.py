"""Core's standard card tests, applied to the MCP card over both connection kinds.

Binding an MCP card opens no connection (the toolset connects when an agent runs), so the
card is checked without a server. Stored forms need a live server and stay in
test_mcp_stored_config.py.
"""

from __future__ import annotations

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import CardStandardTests
from akgentic.tool.mcp import MCPHTTPConnectionConfig, MCPStdioConnectionConfig, MCPTool


class TestMCPHttpCard(CardStandardTests):
    def make_card(self) -> ToolCard:
        return MCPTool(
            connection=MCPHTTPConnectionConfig(
                url="https://m.example/api/v1/endpoint",
                transport="sse",
                bearer_token="tok",
                read_timeout=900.0,
                tool_prefix="acme",
            )
        )


class TestMCPStdioCard(CardStandardTests):
    def make_card(self) -> ToolCard:
        return MCPTool(
            connection=MCPStdioConnectionConfig(
                stdio_command="uvx", stdio_args=["acme-mcp-server"], stdio_env={"ACME": "1"}
            )
        )
