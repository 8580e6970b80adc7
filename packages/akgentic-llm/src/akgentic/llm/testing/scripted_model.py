"""``ScriptedModel``: a token-free pydantic-ai model that answers from a list of turns.

Tests, examples and benchmarks often need "call this tool, then answer" without a provider.
pydantic-ai's ``TestModel`` calls every tool it is offered; a hand-written ``FunctionModel``
says exactly what to do but repeats the same message plumbing in every file. This model
takes the script as data instead: each model request is answered by the next turn.

A turn is one model response:

- a ``str``: the final text answer;
- a ``ScriptedCall``: one tool call; a sequence of them: parallel calls in one response;
- a callable: the final text, computed from the tool results the request carries (what the
  previous turn's calls sent back).

Turns are taken in request order, whatever run the request belongs to: a script shared by
several runs carries on where the previous run stopped (a follow-up prompt, a run resumed
after an approval). Once the script is spent, every request gets ``when_done``. Taking a
turn is guarded by a lock, so runs in threads never take the same turn twice.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    ModelResponsePart,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.profiles import ModelProfileSpec
from pydantic_ai.usage import RequestUsage

__all__ = ["ScriptedCall", "ScriptedModel", "ToolResult", "Turn", "tool_results"]

type ToolResult = ToolReturnPart | RetryPromptPart
"""What a tool call comes back as: its return value, or a retry prompt (a refused call)."""


@dataclass(frozen=True, slots=True)
class ScriptedCall:
    """One tool call the model makes: the tool's name, its arguments and, optionally, the
    call's id (pydantic-ai makes one up when it is ``None``; set it to refer to the call,
    e.g. in an approval decision)."""

    tool: str
    args: dict[str, Any] = field(default_factory=dict)
    call_id: str | None = None

    def part(self) -> ToolCallPart:
        if self.call_id is None:
            return ToolCallPart(self.tool, self.args)
        return ToolCallPart(self.tool, self.args, tool_call_id=self.call_id)


type Turn = str | ScriptedCall | Sequence[ScriptedCall] | Callable[[list[ToolResult]], str]
"""One model response of a script (see the module's description)."""


class ScriptedModel(FunctionModel):
    """A ``FunctionModel`` answering each request with the next of ``turns``.

    ``usage`` is the token usage every response reports (none by default); ``model_name`` and
    ``profile`` are ``FunctionModel``'s. What the latest request carried is kept for the
    test: :attr:`seen` (its messages), :attr:`offered` (the tool names it offered) and
    :meth:`tool_results`; :attr:`served` counts the requests answered.
    """

    def __init__(
        self,
        *turns: Turn,
        when_done: str = "Nothing left to do.",
        usage: RequestUsage | None = None,
        model_name: str = "scripted",
        profile: ModelProfileSpec | None = None,
    ) -> None:
        super().__init__(self._respond, model_name=model_name, profile=profile)
        self.turns: tuple[Turn, ...] = turns
        self.when_done = when_done
        self.usage = usage
        self.served = 0
        self.seen: list[ModelMessage] = []
        self.offered: list[str] = []
        self._lock = threading.Lock()

    def tool_results(self) -> list[ToolResult]:
        """Every tool result in the latest request's messages, in order."""
        return tool_results(self.seen)

    def _respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        with self._lock:
            index = self.served
            self.served += 1
            self.seen = list(messages)
            self.offered = [tool.name for tool in info.function_tools]
        turn = self.turns[index] if index < len(self.turns) else self.when_done
        parts = _parts(turn, messages[-1:])
        if self.usage is None:
            return ModelResponse(parts=parts)
        return ModelResponse(parts=parts, usage=self.usage)


def _parts(turn: Turn, latest: list[ModelMessage]) -> list[ModelResponsePart]:
    """The response parts of ``turn``; ``latest`` is the request being answered."""
    if isinstance(turn, str):
        return [TextPart(turn)]
    if isinstance(turn, ScriptedCall):
        return [turn.part()]
    if callable(turn):
        return [TextPart(turn(tool_results(latest)))]
    return [call.part() for call in turn]


def tool_results(messages: Sequence[ModelMessage]) -> list[ToolResult]:
    """Every tool result (return value or retry prompt) in ``messages``, in order."""
    # Only requests carry tool results: a response's parts are never one of them.
    return [
        part
        for message in messages
        for part in message.parts
        if isinstance(part, ToolReturnPart | RetryPromptPart)
    ]
