"""ToolFactory.get_pydantic_ai_tools: one schema per distinct tool, each member's own calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic_ai import Agent, Tool
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from akgentic.tool.core import BaseToolParam, ToolCard, ToolFactory
from akgentic.tool.core.pydantic_ai_tools import _SCHEMAS, pydantic_ai_tool


class _Observer:
    def notify_event(self, event: object) -> None:
        pass


class Bump(BaseToolParam):
    pass


class CounterTool(ToolCard):
    """A card whose one tool adds to a counter of its own (state lives in the closure)."""

    name: str = "counter"
    bump: bool | Bump = True

    def get_tools(self) -> list[Callable[..., Any]]:
        param = self.bump if isinstance(self.bump, Bump) else Bump()
        total = [0]
        label = self.name

        def bump_counter(step: int = 1) -> str:
            """Add ``step`` to the counter.

            Args:
                step: How much to add.
            """
            total[0] += step
            return f"{label}={total[0]}"

        return [param.describe(bump_counter)]


def _tools(card: CounterTool) -> list[Any]:
    return ToolFactory([card], observer=_Observer()).get_pydantic_ai_tools()


def _run(tool: Tool[Any], step: int) -> str:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("bump_counter", {"step": step})])
        return ModelResponse(parts=[TextPart(str(messages[-1].parts[0].content))])  # type: ignore[union-attr]

    return str(Agent(FunctionModel(respond), tools=[tool]).run_sync("go").output)


def test_members_share_the_schema_and_keep_their_own_callables() -> None:
    (mine,), (theirs,) = _tools(CounterTool(name="a")), _tools(CounterTool(name="b"))
    assert mine.function_schema.validator is theirs.function_schema.validator
    assert mine.function is not theirs.function
    assert _run(mine, 2) == "a=2"
    assert _run(theirs, 5) == "b=5"
    assert _run(mine, 1) == "a=3"  # each member's state, untouched by the other's calls


def test_the_shared_schema_is_the_one_pydantic_ai_builds() -> None:
    (shared,) = _tools(CounterTool())
    alone = Tool(CounterTool().get_tools()[0])
    assert shared.tool_def.parameters_json_schema == alone.tool_def.parameters_json_schema
    assert shared.tool_def.description == alone.tool_def.description
    assert shared.name == "bump_counter"


def test_instructions_give_a_schema_of_their_own() -> None:
    (plain,) = _tools(CounterTool())
    (told,) = _tools(CounterTool(bump=Bump(instructions="Bump by one unless asked.")))
    assert told.description.endswith("Bump by one unless asked.")
    assert "Bump by one" not in (plain.description or "")


def test_a_gated_tool_requires_approval() -> None:
    (gated,) = _tools(CounterTool(bump=Bump(requires_approval=True)))
    (free,) = _tools(CounterTool())
    assert gated.requires_approval is True
    assert free.requires_approval is False


def _closure_with_default(default: int) -> Callable[..., int]:
    def pick(value: int = default) -> int:
        """Return ``value``."""
        return value

    return pick


def test_defaults_are_part_of_the_schema() -> None:
    three, seven = (
        pydantic_ai_tool(_closure_with_default(3)),
        pydantic_ai_tool(_closure_with_default(7)),
    )
    assert three.tool_def.parameters_json_schema["properties"]["value"]["default"] == 3
    assert seven.tool_def.parameters_json_schema["properties"]["value"]["default"] == 7


def test_an_annotated_string_annotation_gets_the_schema_pydantic_ai_gives() -> None:
    def tagged(value: Annotated[int, {"unit": "s"}]) -> int:
        """Return ``value``."""
        return value

    tool = pydantic_ai_tool(tagged)
    assert tool.tool_def.parameters_json_schema == Tool(tagged).tool_def.parameters_json_schema


def test_the_cache_is_bounded() -> None:
    size = _SCHEMAS.size
    _SCHEMAS.size = 2
    try:
        for name in ("one", "two", "three"):
            _tools(CounterTool(bump=Bump(instructions=f"Say {name}.")))
        assert len(_SCHEMAS._schemas) == 2
    finally:
        _SCHEMAS.size = size


def test_annotations_of_one_code_object_are_told_apart() -> None:
    def make(annotation: type) -> Callable[..., Any]:
        def echo(value: Any) -> str:
            """Return ``value`` as text."""
            return str(value)

        echo.__annotations__ = {"value": annotation, "return": str}
        return echo

    as_int, as_text = pydantic_ai_tool(make(int)), pydantic_ai_tool(make(str))
    assert as_int.tool_def.parameters_json_schema["properties"]["value"]["type"] == "integer"
    assert as_text.tool_def.parameters_json_schema["properties"]["value"]["type"] == "string"


def test_a_gated_tool_waits_for_approval_in_a_real_run() -> None:
    from pydantic_ai import DeferredToolRequests

    (gated,) = _tools(CounterTool(name="gated", bump=Bump(requires_approval=True)))

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart("bump_counter", {"step": 4})])

    agent = Agent(FunctionModel(respond), tools=[gated], output_type=[str, DeferredToolRequests])
    output = agent.run_sync("go").output
    assert isinstance(output, DeferredToolRequests)
    assert [call.tool_name for call in output.approvals] == ["bump_counter"]
