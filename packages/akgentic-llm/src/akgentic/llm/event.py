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
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic_ai.messages import ModelMessage

if TYPE_CHECKING:
    from collections.abc import Callable

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
class _ToolPartEvent:
    """The call a tool event is about: the tool's name and the call id the model gave."""

    tool_name: str
    tool_call_id: str


@dataclass(frozen=True, slots=True)
class ToolCallEvent(_ToolPartEvent):
    """The model asked for a tool call (one event per call part, so N for parallel calls)."""

    arguments: str
    """The call's arguments as the raw JSON string the provider sent."""
    run_id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolReturnEvent(_ToolPartEvent):
    """A tool call was answered; ``success`` is False when the tool asked the model to retry."""

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


# ---------------------------------------------------------------------------------------------
# Hot-path constructors (private).
#
# ``ContextManager.add_message`` builds one to three events per message. A frozen dataclass's
# generated ``__init__`` routes every field through ``object.__setattr__``, which costs several
# times a plain slot store; these builders write the slots through their descriptors instead.
# The result is an ordinary, equal, frozen instance of the same class. (Measured with
# thread CPU time: about half the cost of ``__init__`` for these classes.)

_new = object.__new__


def _slot_setter(cls: type, name: str) -> Callable[[Any, Any], None]:
    setter: Callable[[Any, Any], None] = vars(cls)[name].__set__
    return setter


_set_message = _slot_setter(LlmMessageEvent, "message")
_set_message_run = _slot_setter(LlmMessageEvent, "run_id")
# Both tool events keep these two slots on their shared base.
_set_tool_name = _slot_setter(_ToolPartEvent, "tool_name")
_set_tool_call_id = _slot_setter(_ToolPartEvent, "tool_call_id")
_set_call_args = _slot_setter(ToolCallEvent, "arguments")
_set_call_run = _slot_setter(ToolCallEvent, "run_id")
_set_return_success = _slot_setter(ToolReturnEvent, "success")
_set_return_run = _slot_setter(ToolReturnEvent, "run_id")
_set_usage_run = _slot_setter(LlmUsageEvent, "run_id")
_set_usage_model = _slot_setter(LlmUsageEvent, "model_name")
_set_usage_provider = _slot_setter(LlmUsageEvent, "provider_name")
_set_usage_input = _slot_setter(LlmUsageEvent, "input_tokens")
_set_usage_output = _slot_setter(LlmUsageEvent, "output_tokens")
_set_usage_cache_read = _slot_setter(LlmUsageEvent, "cache_read_tokens")
_set_usage_cache_write = _slot_setter(LlmUsageEvent, "cache_write_tokens")
_set_usage_requests = _slot_setter(LlmUsageEvent, "requests")


def _message_event(message: ModelMessage, run_id: str | None) -> LlmMessageEvent:
    event: LlmMessageEvent = _new(LlmMessageEvent)
    _set_message(event, message)
    _set_message_run(event, run_id)
    return event


def _tool_call_event(
    tool_name: str, tool_call_id: str, arguments: str, run_id: str | None
) -> ToolCallEvent:
    event: ToolCallEvent = _new(ToolCallEvent)
    _set_tool_name(event, tool_name)
    _set_tool_call_id(event, tool_call_id)
    _set_call_args(event, arguments)
    _set_call_run(event, run_id)
    return event


def _tool_return_event(
    tool_name: str, tool_call_id: str, success: bool, run_id: str | None
) -> ToolReturnEvent:
    event: ToolReturnEvent = _new(ToolReturnEvent)
    _set_tool_name(event, tool_name)
    _set_tool_call_id(event, tool_call_id)
    _set_return_success(event, success)
    _set_return_run(event, run_id)
    return event


def _usage_event(
    run_id: str | None,
    model_name: str,
    provider_name: str | None,
    input_tokens: int,
    output_tokens: int,
    cache_read_tokens: int,
    cache_write_tokens: int,
) -> LlmUsageEvent:
    event: LlmUsageEvent = _new(LlmUsageEvent)
    _set_usage_run(event, run_id)
    _set_usage_model(event, model_name)
    _set_usage_provider(event, provider_name)
    _set_usage_input(event, input_tokens)
    _set_usage_output(event, output_tokens)
    _set_usage_cache_read(event, cache_read_tokens)
    _set_usage_cache_write(event, cache_write_tokens)
    _set_usage_requests(event, 1)
    return event
