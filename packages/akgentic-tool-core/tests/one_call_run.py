"""A pydantic-ai run whose model calls one tool once, then answers with what it got back:
the factory tests use it to see how a toolset treats a call (ran, refused or held)."""

from __future__ import annotations

from typing import Any

from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel


def run_one_call(toolsets: list[Any], tool_name: str, args: dict[str, Any] | None = None) -> Any:
    """Have a model call ``tool_name`` once; the run's output (text or held calls)."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart(tool_name, args or {})])
        return ModelResponse(parts=[TextPart(str(messages[-1].parts[0].content))])  # type: ignore[union-attr]

    agent = Agent(
        FunctionModel(respond), toolsets=toolsets, output_type=[str, DeferredToolRequests]
    )
    return agent.run_sync("go").output
