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
from dataclasses import dataclass, field
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


@dataclass
class ScriptedModel:
    """A pydantic-ai model that calls tools from a script, then answers.

    Each run (each user prompt) opens with the first call of ``calls``. What a call sends
    back, its result or a retry prompt (the tool refused its input), is followed by the
    next call of the script, or by the answer once the script is spent: ``answer``, or
    what the last call sent back, as text, when ``answer`` is ``None``. A run resumed with
    its history (after an approval, say) carries on where it stopped.

    Hand :meth:`model` to ``pydantic_ai.Agent``. After a run, :attr:`seen` holds the
    messages the model saw last (the run, and the history it was given); :meth:`results`,
    :attr:`returned` and :attr:`retried` read what the tools sent back; :attr:`offered`
    lists the tool names the latest request offered, :attr:`offers` those of every
    request.

    Raises ``ValueError`` when ``answer`` is ``None`` and there is no call to answer with.
    """

    calls: Sequence[ScriptedCall] = ()
    answer: str | None = "finished"
    seen: list[ModelMessage] = field(default_factory=list)
    offers: list[list[str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.answer is None and not self.calls:
            raise ValueError(
                "ScriptedModel: answer=None answers with what the last call sent back, "
                "so calls needs at least one (tool name, arguments) call"
            )

    def model(self) -> FunctionModel:
        """A model playing this script (every model of one script shares its records)."""
        return FunctionModel(self._respond)

    @property
    def offered(self) -> list[str]:
        """The tool names the latest request offered (none before the first)."""
        return self.offers[-1] if self.offers else []

    def results(self) -> list[ToolReturnPart | RetryPromptPart]:
        """Every tool outcome in :attr:`seen` (a result or a retry prompt), in order."""
        return [part for message in self.seen for part in message.parts if _is_outcome(part)]

    @property
    def returned(self) -> list[Any]:
        """The content of every tool result in :attr:`seen`, in order."""
        return [part.content for part in self.results() if isinstance(part, ToolReturnPart)]

    @property
    def retried(self) -> list[str]:
        """The text of every retry prompt (a refused call) in :attr:`seen`, in order."""
        return [str(part.content) for part in self.results() if isinstance(part, RetryPromptPart)]

    def _respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.seen = list(messages)
        self.offers.append([tool.name for tool in info.function_tools])
        step = _outcomes_this_run(messages)
        if step < len(self.calls):
            name, args = self.calls[step]
            return ModelResponse(parts=[ToolCallPart(name, args)])
        if self.answer is not None:
            return ModelResponse(parts=[TextPart(self.answer)])
        sent_back = [part for part in messages[-1].parts if _is_outcome(part)]
        return ModelResponse(parts=[TextPart(str(sent_back[-1].content))])


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
