"""Fixtures shared by the run-loop capability tests (budget, recovery, healing, compaction).

Everything is offline: models are pydantic-ai ``FunctionModel``s scripted per test, with
explicit token usage so budget arithmetic is exact.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from akgentic.llm.config import ReactAgentConfig
from akgentic.llm.loadtest import SCENARIO_ENV_VAR, MockReactAgent


@dataclass
class PersistedLog:
    """An observer storing a deep copy of every event, as an event store holds them."""

    events: list[object] = field(default_factory=list)

    def notify_event(self, event: object) -> None:
        self.events.append(copy.deepcopy(event))


@dataclass
class CountingModel:
    """A FunctionModel that counts its calls; ``tool_loop`` keeps asking for a tool."""

    tool_loop: bool = False
    answer: str = "final answer"
    input_tokens: int = 10
    output_tokens: int = 5
    calls: int = 0
    seen: list[list[ModelMessage]] = field(default_factory=list)
    fail_with: BaseException | None = None

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.calls += 1
        self.seen.append(list(messages))
        if self.fail_with is not None:
            raise self.fail_with
        usage = RequestUsage(input_tokens=self.input_tokens, output_tokens=self.output_tokens)
        if self.tool_loop and info.function_tools:
            tool = info.function_tools[0].name
            return ModelResponse(
                parts=[
                    ToolCallPart(
                        tool, {"q": f"step {self.calls}"}, tool_call_id=f"call-{self.calls}"
                    )
                ],
                usage=usage,
                model_name="scripted",
            )
        return ModelResponse(parts=[TextPart(self.answer)], usage=usage, model_name="scripted")

    @property
    def model(self) -> FunctionModel:
        return FunctionModel(self.respond, model_name="scripted")


@pytest.fixture
def recorder(event_recorder: Any) -> Any:
    """A context observer keeping every event, in order (the package-wide ``event_recorder``)."""
    return event_recorder


@pytest.fixture(scope="session")
def new_log() -> Callable[[], PersistedLog]:
    """``new_log()``: a fresh ``PersistedLog`` (session-scoped: it only hands out the class,
    so property-based tests may use it too)."""
    return PersistedLog


@pytest.fixture
def scripted() -> Callable[..., CountingModel]:
    return CountingModel


@pytest.fixture
def make_mock(
    clean_provider_env: pytest.MonkeyPatch, closing: Any
) -> Callable[..., MockReactAgent]:
    """Mocks built with NO provider credentials and no scenario variable in the environment,
    closed after the test."""
    clean_provider_env.delenv(SCENARIO_ENV_VAR, raising=False)
    clean_provider_env.delenv("AKGENTIC_LLM_SCENARIO", raising=False)

    def factory(config: ReactAgentConfig | None = None, **kwargs: Any) -> MockReactAgent:
        agent: MockReactAgent = closing(MockReactAgent(config or ReactAgentConfig(), **kwargs))
        return agent

    return factory
