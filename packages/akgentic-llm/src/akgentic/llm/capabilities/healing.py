"""Closing out the tool calls a failed run left unanswered.

When a run dies between a model response that asked for tools and the request that would
have carried their results (a ``tool_calls_limit`` breach, a provider error, a cancellation),
the history ends in tool calls nobody answered, and pydantic-ai refuses to start the next run
on top of it. ``HealingCapability`` appends one ``ToolReturnPart`` per such call, through
``ContextManager.add_message``, so the repair is persisted and observed like any message.

It runs from ``on_run_error``, which pydantic-ai calls after the whole ``wrap_run`` chain has
unwound: by then ``EventSourcingCapability``'s closing sweep has already persisted the
dangling response, so the healer finds it in the context. It always re-raises.

One response never reaches the history on its own: when a response pushes the run over a
run-tier token limit, pydantic-ai raises before appending it, although the provider billed it
and its usage is in the run's totals. The healer remembers the last response each run received
(``after_model_request``) and, on failure, records it first when the run's own history does not
hold it (the run's list is tracked from the node hooks). That keeps
three things true at once: the usage event of every billed response is emitted (cost tracking
and the lifetime budget agree with what was spent), replaying the persisted events gives the
same lifetime counters as the live agent, and the tool calls of that response are healed like
any other dangling call, so a follow-up run sees what the model last asked for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.capabilities.abstract import AgentNode
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.run import AgentRunResult
from pydantic_ai.tools import RunContext

from akgentic.llm.capabilities.errors import RUN_LIMIT_HEALING_MESSAGE
from akgentic.llm.context import ContextManager

__all__ = [
    "INTERRUPTED_CALL_MESSAGE",
    "HealingCapability",
    "answer_dangling_calls",
    "dangling_tool_calls",
    "healing_message",
]


def dangling_tool_calls(messages: Sequence[ModelMessage]) -> list[ToolCallPart]:
    """Tool calls of the latest model response that no later request answers."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, ModelResponse):
            calls = [part for part in message.parts if isinstance(part, ToolCallPart)]
            answered = {
                part.tool_call_id
                for later in messages[index + 1 :]
                if isinstance(later, ModelRequest)
                for part in later.parts
                if isinstance(part, ToolReturnPart | RetryPromptPart)
            }
            return [call for call in calls if call.tool_call_id not in answered]
    return []


def answer_dangling_calls(
    context: ContextManager, content: str, *, run_id: str | None = None
) -> ModelRequest | None:
    """Append one ``ToolReturnPart`` carrying ``content`` per dangling call; return the request.

    Goes through ``add_message``, so the repair is observed and persisted like any message.
    Returns ``None`` (and adds nothing) when no call is dangling.
    """
    dangling = dangling_tool_calls(context.messages)
    if not dangling:
        return None
    request = ModelRequest(
        parts=[
            ToolReturnPart(
                tool_name=call.tool_name, content=content, tool_call_id=call.tool_call_id
            )
            for call in dangling
        ]
    )
    context.add_message(request, run_id=run_id)
    return request


INTERRUPTED_CALL_MESSAGE = (
    "Not executed: the agent stopped before this tool call completed, and the conversation "
    "was restored from its event log. Do not assume it had any effect; call the tool again "
    "if you still need its result."
)
"""The tool result ``restore_context`` writes for a call the restored history left unanswered."""


def _contains(messages: Sequence[ModelMessage], target: ModelMessage) -> bool:
    # Identity, scanning from the end: the response, when recorded, is near the tail.
    return any(message is target for message in reversed(messages))


def healing_message(error: BaseException) -> str:
    """The tool result written for a call that ``error`` left unanswered.

    A run-tier breach gets the model-facing budget instruction; any other failure gets a
    sentence naming the kind of failure, so the model does not wait for a result.
    """
    if isinstance(error, UsageLimitExceeded):
        return RUN_LIMIT_HEALING_MESSAGE
    if isinstance(error, asyncio.CancelledError):
        return "Not executed: the run was cancelled before this tool call completed."
    return (
        f"Not executed: the run failed ({type(error).__name__}) before this tool call "
        "completed. Do not assume it had any effect."
    )


@dataclass(init=False, repr=False, eq=False)
class HealingCapability(AbstractCapability[Any]):
    """Answers every dangling tool call after a failed run, then re-raises the failure."""

    context: ContextManager

    def __init__(self, context: ContextManager) -> None:
        self.context = context
        # Per-run state, only used on the instance ``for_run`` returns: the run's own history
        # list (re-read at every node, since pydantic-ai rebinds it) and its last response.
        self._live: list[ModelMessage] | None = None
        self._last_response: ModelResponse | None = None

    async def for_run(self, ctx: RunContext[Any]) -> HealingCapability:
        return type(self)(self.context)

    async def before_node_run(
        self, ctx: RunContext[Any], *, node: AgentNode[Any]
    ) -> AgentNode[Any]:
        self._live = ctx.messages
        return node

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: Any, response: ModelResponse
    ) -> ModelResponse:
        self._last_response = response
        return response

    def _discarded_response(self) -> ModelResponse | None:
        """The run's last response when pydantic-ai never appended it to the run's history."""
        received = self._last_response
        if received is None or self._live is None or _contains(self._live, received):
            return None
        return received

    def heal(self, error: BaseException, *, run_id: str | None = None) -> ModelRequest | None:
        """Repair the history after ``error``; return the healing request, if one was needed.

        First records the run's last response when the history lacks it (a response
        discarded by a token-limit breach), then answers every dangling tool call.
        """
        discarded = self._discarded_response()
        if discarded is not None:
            self.context.add_message(discarded, run_id=run_id)
        return answer_dangling_calls(self.context, healing_message(error), run_id=run_id)

    async def on_run_error(
        self, ctx: RunContext[Any], *, error: BaseException
    ) -> AgentRunResult[Any]:
        # Recorded under the failed run's id, like the rest of that run's events.
        self.heal(error, run_id=ctx.run_id)
        raise error

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # bound to a live ContextManager
