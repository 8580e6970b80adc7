"""A scripted stand-in for the model, to run a card's tools inside a pydantic-ai agent loop.

A unit test calls a tool directly; some behaviour only shows once pydantic-ai sits between
the model and the tool: a refusal coming back as a retry prompt, a bounded result as the
text the model reads, a schema offered under the tool's name. :class:`ScriptedModel` plays
the model's part there without tokens or network: it makes tool calls from a script and
keeps the messages of the run, so a test reads what the tools sent back.

pydantic-ai is not a dependency of akgentic-tool-core: this module is not loaded with the
kit's plugin, and a test imports it only where pydantic-ai is installed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeGuard

from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

__all__ = ["ScriptedModel"]

ScriptedCall = tuple[str, dict[str, Any]]
"""One tool call of a script: the tool's name and its arguments."""


class ScriptedModel:
    """A pydantic-ai model that calls tools from a script, then answers.

    Each run (each user prompt) opens with the first call of ``calls``. What a call sends
    back, its result or a retry prompt (the tool refused its input), is followed by the
    next call of the script, or by the answer once the script is spent: ``answer``, or
    what the last call sent back, as text, when ``answer`` is ``None``.

    Hand :attr:`model` to ``pydantic_ai.Agent``. After a run, :attr:`messages` holds what
    the model saw last (the run, and the history it was given), :attr:`returned` and
    :attr:`retried` what the tools sent back, and :attr:`offered` the tool names offered at
    each request.

    Raises ``ValueError`` when ``calls`` is empty.
    """

    def __init__(self, *calls: ScriptedCall, answer: str | None = "done") -> None:
        if not calls:
            raise ValueError("ScriptedModel needs at least one (tool name, arguments) call")
        self.calls: tuple[ScriptedCall, ...] = calls
        self.answer = answer
        self.messages: list[ModelMessage] = []
        self.offered: list[list[str]] = []
        self.model = FunctionModel(self._respond)

    @property
    def returned(self) -> list[Any]:
        """The content of every tool result in :attr:`messages`, in order."""
        return [part.content for part in _parts(self.messages, ToolReturnPart)]

    @property
    def retried(self) -> list[str]:
        """The text of every retry prompt (a refused call) in :attr:`messages`, in order."""
        return [str(part.content) for part in _parts(self.messages, RetryPromptPart)]

    def _respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.messages = list(messages)
        self.offered.append([tool.name for tool in info.function_tools])
        step = _outcomes_this_run(messages)
        if step < len(self.calls):
            name, args = self.calls[step]
            return ModelResponse(parts=[ToolCallPart(name, args)])
        if self.answer is not None:
            return ModelResponse(parts=[TextPart(self.answer)])
        sent_back = [part for part in messages[-1].parts if _is_outcome(part)]
        return ModelResponse(parts=[TextPart(str(sent_back[-1].content))])


def _parts[P](messages: Sequence[ModelMessage], kind: type[P]) -> list[P]:
    return [part for message in messages for part in message.parts if isinstance(part, kind)]


def _outcomes_this_run(messages: Sequence[ModelMessage]) -> int:
    """How many requests in a row, back from the latest, carried what a call sent back.

    The count is the index of the script's next call. A run opens with a request holding
    the user's prompt and no call's outcome, so the count stops at this run's start even
    when the agent was given the history of earlier runs: each run starts the script over.
    """
    count = 0
    for message in reversed(messages):
        if isinstance(message, ModelResponse):
            continue
        if not any(_is_outcome(part) for part in message.parts):
            break
        count += 1
    return count


def _is_outcome(part: object) -> TypeGuard[ToolReturnPart | RetryPromptPart]:
    """Whether ``part`` is what a tool call sent back: its result or a retry prompt."""
    return isinstance(part, ToolReturnPart | RetryPromptPart)
