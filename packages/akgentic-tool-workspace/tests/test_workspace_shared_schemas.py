"""Members of a big team share WorkspaceTool's tool schemas, never each other's workspaces."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic_ai import Agent, Tool
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from akgentic.tool.core import ToolFactory
from akgentic.tool.workspace import WorkspaceRead, WorkspaceTool


class _Observer:
    def notify_event(self, event: object) -> None:
        pass


def _member_tools(card: WorkspaceTool) -> dict[str, Tool[Any]]:
    tools = ToolFactory([card], observer=_Observer()).get_pydantic_ai_tools()
    return {tool.name: tool for tool in tools}


def _write(tools: dict[str, Tool[Any]], path: str, content: str) -> str:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            args = {"path": path, "content": content}
            return ModelResponse(parts=[ToolCallPart("workspace_write", args)])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(respond), tools=list(tools.values()))
    return str(agent.run_sync("write it").output)


def test_two_members_share_schemas_and_write_into_their_own_workspace(roots: Path) -> None:
    alpha = _member_tools(WorkspaceTool(workspace_id="alpha"))
    beta = _member_tools(WorkspaceTool(workspace_id="beta"))
    assert alpha.keys() == beta.keys()
    for name in alpha:  # one validator per distinct tool for the whole process
        assert alpha[name].function_schema.validator is beta[name].function_schema.validator
    assert _write(alpha, "notes.md", "from alpha\n") == "done"
    assert _write(beta, "notes.md", "from beta\n") == "done"
    assert (roots / "alpha" / "notes.md").read_text() == "from alpha\n"
    assert (roots / "beta" / "notes.md").read_text() == "from beta\n"


def test_a_read_only_member_gets_only_the_reading_tools(roots: Path) -> None:
    writer = _member_tools(WorkspaceTool(workspace_id="alpha"))
    reader = _member_tools(WorkspaceTool(workspace_id="alpha", read_only=True))
    assert "workspace_write" in writer
    assert "workspace_write" not in reader
    assert set(reader) < set(writer)


def test_instructions_reach_the_description_of_that_member_only(roots: Path) -> None:
    told = _member_tools(
        WorkspaceTool(workspace_id="alpha", workspace_read=WorkspaceRead(instructions="Be brief."))
    )
    plain = _member_tools(WorkspaceTool(workspace_id="alpha"))
    assert (told["workspace_read"].description or "").endswith("Be brief.")
    assert "Be brief." not in (plain["workspace_read"].description or "")
