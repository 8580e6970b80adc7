"""The WorkspaceTool card: capabilities, read_only, workspace_id, channels, conformance."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from akgentic.tool.core.channels import COMMAND, TOOL_CALL
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent, assert_card_conformance
from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import (
    ExpandMediaRefs,
    WorkspaceDelete,
    WorkspaceGlob,
    WorkspaceRead,
    WorkspaceTool,
    WorkspaceWrite,
)

ALL_TOOLS = {
    "workspace_read",
    "workspace_list",
    "workspace_glob",
    "workspace_grep",
    "workspace_view",
    "workspace_write",
    "workspace_edit",
    "workspace_multi_edit",
    "workspace_patch",
    "workspace_delete",
    "workspace_mkdir",
}
READ_TOOLS = {
    "workspace_read",
    "workspace_list",
    "workspace_glob",
    "workspace_grep",
    "workspace_view",
}


def _names(card: WorkspaceTool) -> set[str]:
    return {fn.__name__ for fn in card.get_tools()}


def test_all_eleven_capabilities_by_default(roots: Path) -> None:
    assert _names(WorkspaceTool(workspace_id="w")) == ALL_TOOLS


def test_read_only_keeps_the_read_tools_only(roots: Path) -> None:
    assert _names(WorkspaceTool(workspace_id="w", read_only=True)) == READ_TOOLS
    # read_only wins over an explicitly configured write capability
    card = WorkspaceTool(workspace_id="w", read_only=True, workspace_write=WorkspaceWrite())
    assert "workspace_write" not in _names(card)


def test_each_capability_can_be_switched_off(roots: Path) -> None:
    for name in ALL_TOOLS:
        card = WorkspaceTool.model_validate({"workspace_id": "w", name: False})
        assert _names(card) == ALL_TOOLS - {name}
    narrowed = WorkspaceTool(workspace_id="w", read_only=True, workspace_glob=False)
    assert _names(narrowed) == READ_TOOLS - {"workspace_glob"}


def test_channels_choose_tool_call_and_or_command(roots: Path) -> None:
    card = WorkspaceTool(
        workspace_id="w",
        workspace_glob=WorkspaceGlob(expose={COMMAND}),
        workspace_delete=WorkspaceDelete(expose={TOOL_CALL, COMMAND}),
    )
    assert "workspace_glob" not in _names(card)
    commands = card.get_commands()
    # the media expansion is a command by default
    assert set(commands) == {WorkspaceGlob, WorkspaceDelete, ExpandMediaRefs}
    (roots / "w" / "x.txt").write_text("x")
    assert commands[WorkspaceGlob]("*.txt") == "x.txt"


def test_commands_run_through_the_factory_registry(roots: Path) -> None:
    card = WorkspaceTool(workspace_id="w", workspace_glob=WorkspaceGlob(expose={COMMAND}))
    (roots / "w").mkdir(parents=True, exist_ok=True)
    (roots / "w" / "notes.md").write_text("x")
    factory = ToolFactory([card])
    assert factory.commands.execute('/workspace_glob "*.md"') == "notes.md"


def test_instructions_are_appended_to_the_description(roots: Path) -> None:
    card = WorkspaceTool(
        workspace_id="w", workspace_read=WorkspaceRead(instructions="Never read secrets/.")
    )
    read = next(fn for fn in card.get_tools() if fn.__name__ == "workspace_read")
    assert read.__doc__ is not None
    assert read.__doc__.rstrip().endswith("Never read secrets/.")


def test_workspace_id_selects_a_shared_directory(roots: Path) -> None:
    writer = {fn.__name__: fn for fn in WorkspaceTool(workspace_id="shared").get_tools()}
    reader = {
        fn.__name__: fn for fn in WorkspaceTool(workspace_id="shared", read_only=True).get_tools()
    }
    other = {fn.__name__: fn for fn in WorkspaceTool(workspace_id="other").get_tools()}
    writer["workspace_write"]("hello.txt", "shared text\n")
    assert (roots / "shared" / "hello.txt").read_text() == "shared text\n"
    assert reader["workspace_read"]("hello.txt") == "     1\tshared text"
    with pytest.raises(RetriableError, match="File not found"):
        other["workspace_read"]("hello.txt")


def test_a_workspace_id_leaving_the_root_is_a_configuration_error(roots: Path) -> None:
    with pytest.raises(ValueError, match="outside"):
        WorkspaceTool(workspace_id="../escape").get_tools()


def test_default_workspace_is_the_team_of_the_observer(
    roots: Path, tool_agent: ToolTestAgent
) -> None:
    card = WorkspaceTool()
    factory = ToolFactory([card], observer=tool_agent)
    tools = {fn.__name__: fn for fn in factory.get_tools()}
    tools["workspace_write"]("team.txt", "mine\n")
    assert (roots / str(tool_agent.team_id) / "team.txt").read_text() == "mine\n"
    assert card.resolved_workspace_id() == str(tool_agent.team_id)


def test_without_observer_or_id_the_default_workspace_is_used(roots: Path) -> None:
    card = WorkspaceTool()
    tools = {fn.__name__: fn for fn in card.get_tools()}
    tools["workspace_mkdir"]("made")
    assert (roots / "default" / "made").is_dir()


def test_card_conformance(roots: Path, tool_agent: ToolTestAgent) -> None:
    card = WorkspaceTool(workspace_id="conf", workspace_read=WorkspaceRead(page_lines=10))
    assert_card_conformance(
        card,
        observer=tool_agent,
        bad_calls={
            "workspace_read": [{"path": "../x"}, {"path": "missing"}, {"path": "/etc/passwd"}],
            "workspace_grep": [{"pattern": "("}, {"pattern": "x", "path": "\x00"}],
            "workspace_edit": [{"path": "nope", "old_string": "a", "new_string": "b"}],
            "workspace_patch": [{"patch_text": "not a diff"}],
            "workspace_delete": [{"path": "."}],
            "workspace_view": [{"path": "x.txt"}],
            "workspace_write": [{"path": "\ud800", "content": "x"}],
        },
    )


def test_factory_turns_errors_into_the_frameworks_retry(roots: Path) -> None:
    factory = ToolFactory([WorkspaceTool(workspace_id="w")], retry_exception=ModelRetry)
    read = next(fn for fn in factory.get_tools() if fn.__name__ == "workspace_read")
    with pytest.raises(ModelRetry, match="File not found"):
        read("nothing.txt")


async def test_a_pydantic_ai_agent_drives_the_tools(roots: Path) -> None:
    """A real pydantic-ai Agent: the tool schemas build, calls land, retries reach the model."""
    factory = ToolFactory([WorkspaceTool(workspace_id="w")], retry_exception=ModelRetry)
    seen: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [
            part
            for message in messages
            for part in getattr(message, "parts", [])
            if isinstance(part, ToolReturnPart)
        ]
        step = len(returns)
        if step == 0:
            names = {tool.name for tool in info.function_tools}
            seen.append(",".join(sorted(names)))
            return ModelResponse(
                parts=[
                    ToolCallPart("workspace_write", {"path": "plan.md", "content": "- step one\n"})
                ]
            )
        if step == 1:
            return ModelResponse(
                parts=[
                    ToolCallPart(
                        "workspace_multi_edit",
                        {
                            "edits": [
                                {
                                    "path": "plan.md",
                                    "old_string": "step one",
                                    "new_string": "step 1",
                                }
                            ]
                        },
                    )
                ]
            )
        if step == 2:
            return ModelResponse(parts=[ToolCallPart("workspace_read", {"path": "plan.md"})])
        seen.append(str(returns[-1].content))
        return ModelResponse(parts=[TextPart("done")])

    agent: Agent[None, str] = Agent(FunctionModel(model), tools=factory.get_tools())
    result = await agent.run("write a plan")
    assert result.output == "done"
    assert seen[0] == ",".join(sorted(ALL_TOOLS))
    assert seen[1] == "     1\t- step 1"
    assert (roots / "w" / "plan.md").read_text() == "- step 1\n"


def test_the_card_round_trips_with_params(roots: Path) -> None:
    card = WorkspaceTool(
        workspace_id="w",
        read_only=True,
        workspace_read=WorkspaceRead(page_lines=50, instructions="short pages"),
        workspace_glob=False,
    )
    again = WorkspaceTool.model_validate_json(card.model_dump_json())
    assert again == card
    assert isinstance(again.workspace_read, WorkspaceRead)
    assert again.workspace_read.page_lines == 50


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ValueError, match="extra"):
        WorkspaceTool.model_validate({"workspace_bogus": True})


def test_get_workspace_returns_a_filesystem_satisfying_the_protocol(roots: Path) -> None:
    from akgentic.tool.workspace import Filesystem, Workspace, get_workspace

    workspace = get_workspace("direct")
    assert isinstance(workspace, Filesystem)
    assert isinstance(workspace, Workspace)
    assert workspace.root == (roots / "direct").resolve()
    assert workspace.root.is_dir()
    workspace.write("a.txt", "one\n")
    assert workspace.read("a.txt") == "     1\tone"
    assert WorkspaceTool(workspace_id="direct").get_workspace().root == workspace.root
