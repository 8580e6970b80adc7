"""Approval gates on MCP tools: a gated tool of a real MCP server waits for a decision.

``MCPTool(approval_required={"shout"})`` names a tool of the server (the names are known only
once the server lists them). Through ``ToolFactory.get_toolsets()`` a model's call of that
tool ends the run with the call open (pydantic-ai's deferred approval); an approval runs it on
the server, a denial never reaches it, and the other tools of the server are not held. The
server is the demo server over stdio; its ``shout`` really upper-cases on the other side.
"""

from __future__ import annotations

import pytest
from mcp_harness import stdio_args
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ToolDenied
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ToolReturnPart

from akgentic.llm.testing import ScriptedCall, ScriptedModel
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.mcp import MCPStdioConnectionConfig, MCPTool


def _card(gated: set[str]) -> MCPTool:
    command, args = stdio_args()
    connection = MCPStdioConnectionConfig(stdio_command=command, stdio_args=args, read_timeout=10)
    return MCPTool(connection=connection, approval_required=gated)


def _agent(card: MCPTool, script: ScriptedModel) -> Agent[None, str | DeferredToolRequests]:
    factory = ToolFactory([card])
    return Agent(
        script,
        toolsets=factory.get_toolsets(),
        output_type=[str, DeferredToolRequests],  # type: ignore[arg-type]
    )


def _returns(script: ScriptedModel) -> dict[str, str]:
    return {
        p.tool_name: str(p.content) for p in script.tool_results() if isinstance(p, ToolReturnPart)
    }


async def test_a_gated_mcp_call_waits_then_runs_on_the_server_once_approved() -> None:
    script = ScriptedModel(
        ScriptedCall("add", {"a": 2, "b": 3}),
        ScriptedCall("shout", {"text": "ship it"}),
        "finished",
    )
    agent = _agent(_card({"shout"}), script)

    first = await agent.run("use the server")
    assert isinstance(first.output, DeferredToolRequests)
    (held,) = first.output.approvals
    assert (held.tool_name, held.args_as_dict()) == ("shout", {"text": "ship it"})
    assert _returns(script) == {"add": "5"}  # the ungated tool ran at once

    approved = DeferredToolResults(approvals={held.tool_call_id: True})
    second = await agent.run(message_history=first.all_messages(), deferred_tool_results=approved)
    assert second.output == "finished"
    assert _returns(script)["shout"] == "SHIP IT"  # upper-cased by the server


async def test_a_denied_mcp_call_never_reaches_the_server() -> None:
    script = ScriptedModel(ScriptedCall("shout", {"text": "drop the table"}), "finished")
    agent = _agent(_card({"shout"}), script)

    first = await agent.run("use the server")
    assert isinstance(first.output, DeferredToolRequests)
    (held,) = first.output.approvals
    denied = DeferredToolResults(approvals={held.tool_call_id: ToolDenied("not today")})
    second = await agent.run(message_history=first.all_messages(), deferred_tool_results=denied)

    assert second.output == "finished"
    answer = _returns(script)["shout"]
    assert "not today" in answer
    assert "DROP THE TABLE" not in answer


async def test_a_misspelt_gated_name_stops_the_run_instead_of_leaving_a_tool_ungated() -> None:
    script = ScriptedModel(ScriptedCall("shout", {"text": "hi"}))
    agent = _agent(_card({"shoot"}), script)

    with pytest.raises(UserError, match=r"MCPTool\.approval_required names shoot") as caught:
        await agent.run("use the server")
    assert "shout" in str(caught.value)  # the tools it does offer are listed
    assert _returns(script) == {}


def test_the_factory_offers_the_decision_commands_for_a_gated_mcp_card() -> None:
    registry = ToolFactory([_card({"shout"})]).get_command_registry()
    assert {"approve", "deny", "pending_approvals"} <= set(registry.names())
