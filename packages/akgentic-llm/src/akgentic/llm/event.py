"""The events a ``ContextManager`` emits, and the two protocols around them.

Every event is a frozen, slotted dataclass made of primitives (plus pydantic-ai's own
``ModelMessage`` dataclasses for ``LlmMessageEvent``), so it serializes to JSON and back with a
pydantic ``TypeAdapter`` and with any serializer that understands dataclasses. Every event
carries the ``run_id`` of the agent run that produced it (``None`` when it happened outside a
run), which is how a consumer groups a trace.

For one message, the order is fixed: ``LlmMessageEvent`` first, then one ``ToolCallEvent`` /
``ToolReturnEvent`` per tool part, then ``LlmUsageEvent`` when the message is a model response.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pydantic_ai.messages import ModelMessage

__all__ = [
    "ContextObserver",
    "EventMessage",
    "LlmContextClearedEvent",
    "LlmContextCompactedEvent",
    "LlmMessageEvent",
    "LlmSystemPromptEvent",
    "LlmUsageEvent",
    "SystemPromptPartSnapshot",
    "ToolCallEvent",
    "ToolReturnEvent",
]


@dataclass(frozen=True, slots=True)
class LlmMessageEvent:
    """A message was appended to the conversation history."""

    message: ModelMessage
    run_id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCallEvent:
    """The model asked for a tool call (one event per call part, so N for parallel calls)."""

    tool_name: str
    tool_call_id: str
    arguments: str
    """The call's arguments as the raw JSON string the provider sent."""
    run_id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolReturnEvent:
    """A tool call was answered; ``success`` is False when the tool asked the model to retry."""

    tool_name: str
    tool_call_id: str
    success: bool
    run_id: str | None = None


@dataclass(frozen=True, slots=True)
class LlmUsageEvent:
    """Token usage of one model response, the unit ``aggregate_usage`` sums over."""

    run_id: str | None
    model_name: str
    provider_name: str | None
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    requests: int = 1

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class SystemPromptPartSnapshot:
    """One system-prompt block as the model saw it."""

    dynamic_ref: str | None
    """Name of the function that rendered a dynamic block; ``None`` for a static block."""
    content: str


@dataclass(frozen=True, slots=True)
class LlmSystemPromptEvent:
    """The complete system-prompt rendering of a run, emitted only when it changed."""

    run_id: str
    parts: tuple[SystemPromptPartSnapshot, ...]
    content_hash: str
    """sha256 hex of the ordered ``(dynamic_ref, content)`` pairs."""


@dataclass(frozen=True, slots=True)
class LlmContextCompactedEvent:
    """The history (except its system prompt) was folded into a summary."""

    run_id: str | None
    strategy_id: str
    summary: str
    replaced_message_count: int
    summarizer_prompt_version: str
    tokens_before: int | None = None
    tokens_after: int | None = None


@dataclass(frozen=True, slots=True)
class LlmContextClearedEvent:
    """The history was dropped without a summary."""

    run_id: str | None
    cleared_message_count: int


@runtime_checkable
class ContextObserver(Protocol):
    """Anything that wants the events above, delivered synchronously in emission order."""

    def notify_event(self, event: object) -> None:
        """Receive one event; an exception raised here propagates to the emitter."""


@runtime_checkable
class EventMessage(Protocol):
    """A persisted envelope carrying one event (e.g. akgentic-core's ``EventMessage``).

    ``ReactAgent.restore_context`` rebuilds history from a sequence of these and ignores the
    envelopes whose ``event`` is not one of this module's events.
    """

    @property
    def event(self) -> Any:
        """The wrapped event."""
