"""ToolFactory: ordering, wrapping, aggregation, and the retry translation end to end."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

import pytest
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from akgentic.tool.core import (
    BaseToolParam,
    CardDependencyError,
    RetriableError,
    ToolCard,
    ToolFactory,
    ToolObserver,
    order_cards,
)


class _Observer:
    def notify_event(self, event: object) -> None:
        pass


WIRED: list[str] = []


class _Recording(ToolCard):
    def observer(self, observer: ToolObserver) -> _Recording:
        super().observer(observer)
        WIRED.append(type(self).__name__)
        return self


class StoreTool(_Recording):
    pass


class ConsumerTool(_Recording):
    @property
    def depends_on(self) -> list[str]:
        return ["StoreTool"]


class LoopA(ToolCard):
    @property
    def depends_on(self) -> list[str]:
        return ["LoopB"]


class LoopB(ToolCard):
    @property
    def depends_on(self) -> list[str]:
        return ["LoopA"]


class DivideTool(ToolCard):
    def get_tools(self) -> list[Callable[..., Any]]:
        def divide(a: int, b: int) -> float:
            """Divide a by b."""
            if b == 0:
                raise RetriableError("b must not be zero; pick another divisor")
            return a / b

        async def divide_later(a: int, b: int) -> float:
            """Divide a by b, asynchronously."""
            if b == 0:
                raise RetriableError("async: b must not be zero")
            return a / b

        def explode() -> str:
            """A programming error."""
            raise RuntimeError("uninitialised state")

        return [divide, divide_later, explode]

    def get_system_prompts(self) -> list[Callable[..., Any]]:
        return [lambda: "You can divide."]

    def get_commands(self) -> dict[type[BaseToolParam], Callable[..., Any]]:
        def divide_command(a: int, b: int) -> float:
            return a / b

        return {BaseToolParam: divide_command}

    def get_toolsets(self) -> list[Any]:
        return ["toolset-object"]


class DuplicateTool(ToolCard):
    def get_tools(self) -> list[Callable[..., Any]]:
        def divide(a: int) -> int:
            return a

        return [divide]


def test_cards_are_wired_after_their_dependencies() -> None:
    WIRED.clear()
    ToolFactory([ConsumerTool(), StoreTool()], observer=_Observer())
    assert WIRED == ["StoreTool", "ConsumerTool"]


def test_order_is_stable_without_constraints() -> None:
    cards = [DivideTool(), StoreTool(), DuplicateTool()]
    assert order_cards(cards) == cards


def test_absent_but_known_dependency_is_skipped() -> None:
    consumer = ConsumerTool()
    assert order_cards([consumer]) == [consumer]


def test_unknown_dependency_name_is_an_error() -> None:
    card = ToolCard(depends_on=["NoSuchCardAnywhere"])
    with pytest.raises(CardDependencyError, match="'NoSuchCardAnywhere', which is not a known"):
        order_cards([card])


def test_dependency_cycle_is_reported_with_its_path() -> None:
    with pytest.raises(CardDependencyError, match="cycle: LoopA -> LoopB -> LoopA"):
        ToolFactory([LoopA(), LoopB()])


def test_retriable_error_becomes_the_injected_exception() -> None:
    divide, divide_later, explode = ToolFactory(
        [DivideTool()], retry_exception=ModelRetry
    ).get_tools()
    assert divide(6, 3) == 2
    with pytest.raises(ModelRetry, match="b must not be zero") as info:
        divide(1, 0)
    assert isinstance(info.value.__cause__, RetriableError)
    with pytest.raises(ModelRetry, match="async: b must not be zero"):
        asyncio.run(divide_later(1, 0))
    assert asyncio.run(divide_later(9, 3)) == 3
    # Programming errors are not the model's to fix: they propagate untouched.
    with pytest.raises(RuntimeError, match="uninitialised state"):
        explode()


def test_wrapping_keeps_name_signature_and_docstring() -> None:
    divide, divide_later, _ = ToolFactory([DivideTool()], retry_exception=ModelRetry).get_tools()
    assert divide.__name__ == "divide"
    assert divide.__doc__ == "Divide a by b."
    assert list(inspect.signature(divide).parameters) == ["a", "b"]
    assert inspect.iscoroutinefunction(divide_later)


def test_without_retry_exception_tools_are_returned_as_is() -> None:
    card = DivideTool()
    (divide, _, _) = ToolFactory([card]).get_tools()
    with pytest.raises(RetriableError):
        divide(1, 0)


def test_aggregates_prompts_commands_and_toolsets() -> None:
    factory = ToolFactory([DivideTool(), StoreTool()])
    assert [p() for p in factory.get_system_prompts()] == ["You can divide."]
    assert list(factory.get_commands()) == [BaseToolParam]
    assert factory.get_toolsets() == ["toolset-object"]
    assert factory.commands.call("divide_command", 8, 2) == 4
    assert factory.commands.execute("/divide_command 9 3") == 3


def test_duplicate_tool_names_are_refused() -> None:
    with pytest.raises(ValueError, match="'divide' is provided by both DivideTool and"):
        ToolFactory([DivideTool(), DuplicateTool()]).get_tools()


def test_model_sees_the_retry_and_recovers() -> None:
    """A RetriableError inside a real pydantic-ai run reaches the model as a retry prompt."""
    seen_retries: list[str] = []

    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen_retries[:] = [
            str(part.content)
            for message in messages
            for part in message.parts
            if isinstance(part, RetryPromptPart)
        ]
        if not seen_retries:
            return ModelResponse(parts=[ToolCallPart("divide", {"a": 1, "b": 0})])
        if len([m for m in messages if isinstance(m, ModelResponse)]) < 2:
            return ModelResponse(parts=[ToolCallPart("divide", {"a": 8, "b": 4})])
        return ModelResponse(parts=[TextPart("2.0")])

    tools = ToolFactory([DivideTool()], retry_exception=ModelRetry).get_tools()
    agent = Agent(FunctionModel(script), tools=tools[:2])
    result = agent.run_sync("divide")
    assert result.output == "2.0"
    assert seen_retries == ["b must not be zero; pick another divisor"]


def test_our_domain_cards_are_known_even_when_not_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from akgentic.tool.core import registry

    monkeypatch.setattr(registry, "exported_names", dict)
    consumer = ToolCard(depends_on=["VectorStoreTool"])
    assert order_cards([consumer]) == [consumer]
