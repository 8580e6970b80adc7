"""A ReactAgent holds a gated MCP call for a person, through the factory's approval gate.

The llm layer knows only the one-attribute protocol (a toolset whose layers carry
``requires_approval``); the tool layer's ``ToolFactory`` wraps the MCP card's toolset, and its
``ApprovalGate`` turns the open call into a request and ``/approve`` into the resume. The MCP
server is the mcp package's demo server over stdio.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pydantic_ai import DeferredToolRequests

from akgentic.llm import ModelConfig, ReactAgent, ReactAgentConfig
from akgentic.llm.testing import ScriptedCall, ScriptedModel
from akgentic.tool import ToolFactory
from akgentic.tool.core.approval import ApprovalDecision
from akgentic.tool.mcp import MCPStdioConnectionConfig, MCPTool

SERVER = Path(__file__).resolve().parents[1] / (
    "packages/akgentic-tool-mcp/tests/mcp_demo_server.py"
)


def test_an_approved_mcp_call_resumes_the_agent_with_the_servers_answer() -> None:
    connection = MCPStdioConnectionConfig(
        stdio_command=sys.executable, stdio_args=[str(SERVER), "stdio"], read_timeout=10
    )
    factory = ToolFactory([MCPTool(connection=connection, approval_required={"shout"})])
    agent = ReactAgent(
        ReactAgentConfig(model_cfg=ModelConfig(provider="openai", model="gpt-4o")),
        toolsets=factory.get_toolsets(),
        # Calls shout; once the approved call has run, answers what the server said.
        model=ScriptedModel(
            ScriptedCall("shout", {"text": "release"}, "m1"),
            lambda request: f"server said {request.results[0].content}",
        ),
    )
    decided: list[Any] = []

    def resume(decisions: list[ApprovalDecision]) -> str | None:
        output = agent.resume_sync(decisions)
        decided.append(output)
        return str(output)

    factory.approvals.bind(resume)
    try:
        held = agent.run_sync("release it")
        assert isinstance(held, DeferredToolRequests)
        (call,) = agent.pending_tool_calls
        assert (call.call_id, call.tool_name, call.args) == ("m1", "shout", {"text": "release"})

        factory.approvals.request(agent.pending_tool_calls)
        factory.commands.dispatch("/approve m1")

        assert decided == ["server said RELEASE"]  # upper-cased on the server's side
        assert agent.pending_tool_calls == []
    finally:
        agent.close()
