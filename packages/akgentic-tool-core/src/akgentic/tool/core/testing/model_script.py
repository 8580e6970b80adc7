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
from typing import Any

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

    Each run (each user prompt) opens with the first call of ``calls``. A call refused
    with a retry prompt is followed by the next call of the script, or by the answer once
    the script is spent; a call that returns is followed by the answer: ``answer``, or the
    content sent back last as text when ``answer`` is ``None``.

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
        latest = messages[-1].parts
        returns = [part for part in latest if isinstance(part, ToolReturnPart | RetryPromptPart)]
        step = _refusals_this_run(messages)
        if any(isinstance(part, ToolReturnPart) for part in returns) or step >= len(self.calls):
            text = self.answer if self.answer is not None else str(returns[-1].content)
            return ModelResponse(parts=[TextPart(text)])
        name, args = self.calls[step]
        return ModelResponse(parts=[ToolCallPart(name, args)])


def _parts[P](messages: Sequence[ModelMessage], kind: type[P]) -> list[P]:
    return [part for message in messages for part in message.parts if isinstance(part, kind)]


def _refusals_this_run(messages: Sequence[ModelMessage]) -> int:
    """How many requests in a row, back from the latest, carried a retry prompt.

    The count is the index of the script's next call. A run ends with a result or an
    answer, so the refusals in a row are this run's, even when the agent was given the
    history of earlier runs: each run starts the script over.
    """
    count = 0
    for message in reversed(messages):
        if isinstance(message, ModelResponse):
            continue
        if not any(isinstance(part, RetryPromptPart) for part in message.parts):
            break
        count += 1
    return count
