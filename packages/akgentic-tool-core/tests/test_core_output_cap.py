"""The factory's bound on tool output: every tool and toolset, one place, per-card override."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.toolsets import FunctionToolset

from akgentic.llm.testing import ScriptedCall, ScriptedModel
from akgentic.tool.core import RetriableError, ToolCard, ToolFactory
from akgentic.tool.core.output_cap import DEFAULT_MAX_OUTPUT_CHARS


class Row(BaseModel):
    name: str
    body: str


class ChattyTool(ToolCard):
    size: int = 200_000

    def get_tools(self) -> list[Callable[..., Any]]:
        size = self.size

        def dump_text() -> str:
            """A long text."""
            return "x" * size

        async def dump_text_later() -> str:
            """A long text, asynchronously."""
            return "y" * size

        def dump_rows() -> list[Row]:
            """Many structured rows."""
            return [Row(name=f"row {n}", body="z" * 100) for n in range(size // 100)]

        def small() -> dict[str, int]:
            """A result that fits."""
            return {"answer": 42}

        def refuse() -> str:
            """Bad input."""
            raise RetriableError("give a smaller number")

        return [dump_text, dump_text_later, dump_rows, small, refuse]

    def get_toolsets(self) -> list[Any]:
        size = self.size
        toolset: FunctionToolset[Any] = FunctionToolset()

        @toolset.tool_plain
        def remote_dump() -> str:
            """What a third-party server might answer."""
            return "r" * size

        return [toolset]


class SlowRefusal(ToolCard):
    def get_tools(self) -> list[Callable[..., Any]]:
        async def refuse_later() -> str:
            """Bad input, asynchronously."""
            raise RetriableError("give a smaller number")

        return [refuse_later]


def _tools(factory: ToolFactory) -> dict[str, Callable[..., Any]]:
    return {tool.__name__: tool for tool in factory.get_tools()}


def _cut_figures(text: str) -> tuple[int, int]:
    notice = text[text.rindex("[") :]
    shown, total = (
        int(n.replace(",", ""))
        for n in notice.split("cut at ")[1].split(" characters")[0].split(" of ")
    )
    return shown, total


def test_a_long_text_is_cut_at_the_default_with_a_notice_saying_what_was_cut() -> None:
    answer = _tools(ToolFactory([ChattyTool()]))["dump_text"]()
    body, notice = answer.split("\n[", 1)
    assert body == "x" * DEFAULT_MAX_OUTPUT_CHARS
    assert notice.startswith("dump_text: output cut at 50,000 of 200,000 characters")
    assert "150,000 more not shown" in notice
    assert "offset/limit" in notice


async def test_async_tools_are_cut_too() -> None:
    answer = await _tools(ToolFactory([ChattyTool()]))["dump_text_later"]()
    assert answer.startswith("y" * DEFAULT_MAX_OUTPUT_CHARS + "\n[dump_text_later: output cut")


async def test_with_a_retry_exception_async_tools_are_cut_and_refusals_become_retries() -> None:
    factory = ToolFactory(
        [ChattyTool(), SlowRefusal()], retry_exception=ModelRetry, max_output_chars=500
    )
    tools = _tools(factory)
    answer = await tools["dump_text_later"]()
    assert answer.startswith("y" * 500 + "\n[dump_text_later: output cut at 500 ")
    with pytest.raises(ModelRetry, match="give a smaller number") as caught:
        await tools["refuse_later"]()
    assert isinstance(caught.value.__cause__, RetriableError)


def test_a_large_structured_result_becomes_its_json_cut_at_the_bound() -> None:
    answer = _tools(ToolFactory([ChattyTool()], max_output_chars=1_000))["dump_rows"]()
    assert isinstance(answer, str)
    shown, total = _cut_figures(answer)
    assert shown == 1_000
    assert total > 200_000  # measured as the JSON the model would have read
    assert answer.startswith('[{"name":"row 0","body":"zzz')


def test_results_that_fit_are_returned_untouched() -> None:
    tools = _tools(ToolFactory([ChattyTool(size=10)]))
    assert tools["small"]() == {"answer": 42}
    rows = tools["dump_rows"]()
    assert rows == []  # size 10: no row; an empty list stays a list
    assert tools["dump_text"]() == "x" * 10


def test_a_card_sets_its_own_bound_and_zero_turns_it_off() -> None:
    tight = ChattyTool(max_output_chars=100)
    unbounded = ChattyTool(size=80_000, max_output_chars=0)
    factory = ToolFactory([tight])
    assert _tools(factory)["dump_text"]().startswith("x" * 100 + "\n[dump_text: output cut at 100 ")
    assert _tools(ToolFactory([unbounded]))["dump_text"]() == "x" * 80_000


def test_the_factory_bound_can_be_turned_off_and_must_be_positive() -> None:
    assert (
        _tools(ToolFactory([ChattyTool()], max_output_chars=None))["dump_text"]() == "x" * 200_000
    )
    with pytest.raises(ValueError, match="max_output_chars must be positive or None"):
        ToolFactory([ChattyTool()], max_output_chars=0)


def test_a_card_stores_its_bound_only_when_stated() -> None:
    assert "max_output_chars" not in ChattyTool().model_dump()
    dumped = ChattyTool(max_output_chars=500).model_dump()
    assert dumped["max_output_chars"] == 500
    assert ChattyTool.model_validate(dumped).max_output_chars == 500
    with pytest.raises(ValueError, match="max_output_chars"):
        ChattyTool(max_output_chars=-1)


def test_toolset_results_reach_the_model_bounded() -> None:
    factory = ToolFactory([ChattyTool()], retry_exception=ModelRetry, max_output_chars=2_000)
    script = ScriptedModel(ScriptedCall("remote_dump"), "finished")
    agent = Agent(script, toolsets=factory.get_toolsets())
    assert agent.run_sync("go").output == "finished"
    assert script.retried() == []
    (content,) = script.returned()
    assert content.startswith("r" * 2_000 + "\n[remote_dump: output cut at 2,000 of 200,000")


def test_a_bounded_tool_still_turns_bad_input_into_a_retry() -> None:
    factory = ToolFactory([ChattyTool()], retry_exception=ModelRetry)
    script = ScriptedModel(ScriptedCall("refuse"), "finished")
    agent = Agent(script, tools=factory.get_tools())
    assert agent.run_sync("go").output == "finished"
    assert script.returned() == []
    assert script.retried() == ["give a smaller number"]


def test_the_cut_json_of_a_model_tool_reaches_the_model_as_text() -> None:
    factory = ToolFactory([ChattyTool()], retry_exception=ModelRetry, max_output_chars=300)
    script = ScriptedModel(ScriptedCall("dump_rows"), "finished")
    agent = Agent(script, tools=factory.get_tools())
    agent.run_sync("go")
    assert script.retried() == []
    (content,) = script.returned()
    assert content.startswith('[{"name":"row 0"')
    assert "dump_rows: output cut at 300 of " in content
    with pytest.raises(json.JSONDecodeError):
        json.loads(content)  # a cut, not a silently shortened list
