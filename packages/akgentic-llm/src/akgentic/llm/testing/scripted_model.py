"""``ScriptedModel``: a token-free pydantic-ai model that answers from a list of turns.

Tests, examples and benchmarks often need "call this tool, then answer" without a provider.
pydantic-ai's ``TestModel`` calls every tool it is offered; a hand-written ``FunctionModel``
says exactly what to do but repeats the same message plumbing in every file. This model
takes the script as data instead: each model request is answered by the next turn.

A turn is one model response (a ``Reply``), or a function choosing it:

- a ``str``: the final text answer;
- a ``ScriptedCall``: one tool call; a sequence of them: parallel calls in one response;
- a callable taking the ``ScriptedRequest`` being answered (its prompt, the tool results it
  carries, the tools offered) and returning one of the above.

Turns are taken in request order, whatever run the request belongs to: a script shared by
several runs carries on where the previous run stopped (a follow-up prompt, a run resumed
after an approval). Once the script is spent, every request gets ``when_done``, itself a
turn: an empty script with a callable ``when_done`` is a model that reacts to each request.
Taking a turn is guarded by a lock, so runs in threads never take the same turn twice.
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
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.profiles import ModelProfileSpec
from pydantic_ai.usage import RequestUsage

# The public names are listed once, in the package's ``__init__``.

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
        """The call as the part of a model response."""
        if self.call_id is None:
            return ToolCallPart(self.tool, self.args)
        return ToolCallPart(self.tool, self.args, tool_call_id=self.call_id)


@dataclass(frozen=True, slots=True)
class ScriptedRequest:
    """The model request a callable turn answers: the history it carries (``messages``, the
    request itself last) and what pydantic-ai tells the model (``info``)."""

    messages: list[ModelMessage]
    info: AgentInfo

    @property
    def prompt(self) -> str:
        """The text of the user prompt in the request (``""`` when it carries none, as when
        it brings tool results back)."""
        return "".join(
            item
            for part in self.messages[-1].parts
            if isinstance(part, UserPromptPart)
            for item in ([part.content] if isinstance(part.content, str) else part.content)
            if isinstance(item, str)
        )

    @property
    def results(self) -> list[ToolResult]:
        """The tool results the request carries: what the previous turn's calls sent back."""
        return tool_results(self.messages[-1:])

    @property
    def tools(self) -> list[str]:
        """The names of the tools offered to the model for this request."""
        return [tool.name for tool in self.info.function_tools]


type Reply = str | ScriptedCall | Sequence[ScriptedCall]
"""One model response: a text answer, a tool call, or parallel tool calls."""

type Turn = Reply | Callable[[ScriptedRequest], Reply]
"""One step of a script: a reply, or a function of the request choosing it."""


class ScriptedModel(FunctionModel):
    """A ``FunctionModel`` answering each request with the next of ``turns``.

    ``usage`` is the token usage every response reports (none by default); ``model_name`` and
    ``profile`` are ``FunctionModel``'s. What the latest request carried is kept for the
    test: :attr:`seen` (its messages), :attr:`offered` (the tool names it offered) and
    :meth:`tool_results` (or, read further, :meth:`returned` and :meth:`retried`);
    :attr:`served` counts the requests answered.
    """

    def __init__(
        self,
        *turns: Turn,
        when_done: Turn = "Nothing left to do.",
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

    def returned(self) -> list[Any]:
        """What every tool call that ran sent back, in order: each ``ToolReturnPart``'s
        content among the latest request's messages (refused calls are left out)."""
        return [part.content for part in self.tool_results() if isinstance(part, ToolReturnPart)]

    def retried(self) -> list[str]:
        """The text of every retry prompt (a refused call) among the latest request's
        messages, in order."""
        return [
            _retry_text(part) for part in self.tool_results() if isinstance(part, RetryPromptPart)
        ]

    def _respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        request = ScriptedRequest(list(messages), info)
        with self._lock:
            index = self.served
            self.served += 1
            self.seen = request.messages
            self.offered = request.tools
        turn = self.turns[index] if index < len(self.turns) else self.when_done
        parts = _parts(turn(request) if callable(turn) else turn)
        if self.usage is None:
            return ModelResponse(parts=parts)
        return ModelResponse(parts=parts, usage=self.usage)


def _parts(reply: Reply) -> list[ModelResponsePart]:
    if isinstance(reply, str):
        return [TextPart(reply)]
    if isinstance(reply, ScriptedCall):
        return [reply.part()]
    return [call.part() for call in reply]


def _retry_text(part: RetryPromptPart) -> str:
    # A tool's refusal is the text it gave (a ``ModelRetry``'s message), read as is; arguments
    # failing validation carry a list of errors instead, read as pydantic-ai words it for the
    # model, so a test can still look for a field's name in it.
    if isinstance(part.content, str):
        return part.content
    return part.model_response()


def tool_results(messages: Sequence[ModelMessage]) -> list[ToolResult]:
    """Every tool result (return value or retry prompt) in ``messages``, in order."""
    # Only requests carry tool results: a response's parts are never one of them.
    return [
        part
        for message in messages
        for part in message.parts
        if isinstance(part, ToolReturnPart | RetryPromptPart)
    ]
