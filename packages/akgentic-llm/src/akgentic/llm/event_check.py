"""Checking a persisted event stream before it is replayed into an agent.

``ContextManager.replay``, ``LifetimeBudgetCapability.restore`` and
``ReactAgent.restore_context`` trust nothing they are handed. One pass over the stream
(:func:`check_event_stream`) decides what is replayed and what the lifetime budget counts:

* **Types.** A mapping (a plain ``dict``) where an event belongs (an event store that
  handed back the serialized form of its events) is a ``TypeError`` naming the index, the type found
  and what was expected; so is an ``LlmMessageEvent`` whose message or one of whose parts is
  not a pydantic-ai message / part. Other objects that are none of this package's events are
  still ignored, as documented (an envelope stream carries other packages' events too).
* **Numbers.** Token counts and request counts cannot be negative, a compaction cannot
  replace a negative number of messages: ``ValueError`` naming the index and the field.
* **Order.** A request that answers a tool call no earlier response (since the last clear)
  made is a ``ValueError``: the stream is out of order or lost the response.
* **Duplicates.** A message event equal in every field (timestamps included) to one already
  replayed is skipped, together with the tool and usage events that follow it; a second usage
  event for one response is skipped too. Compaction, clear and system-prompt events are never
  skipped: two equal compactions in a row are legitimate.
* **Usage the stream lost.** Every model response carries its own usage. When a response's
  ``LlmUsageEvent`` is missing, a usage record is rebuilt from the response, and when both
  disagree the larger figure is kept, so a dropped or shrunk usage event cannot lift a spent
  lifetime budget. A usage event with no response before it is counted as it is.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
)

from akgentic.llm.event import (
    LlmContextClearedEvent,
    LlmContextCompactedEvent,
    LlmMessageEvent,
    LlmSystemPromptEvent,
    LlmUsageEvent,
    ToolCallEvent,
    ToolReturnEvent,
)

__all__ = ["CheckedStream", "check_event_stream"]

_EXPECTED = (
    "an akgentic.llm event (LlmMessageEvent, LlmUsageEvent, ...) or an envelope carrying one "
    "under .event"
)
_USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "requests",
)


def _part_classes(union: Any) -> tuple[type, ...]:
    """The concrete part classes of one of pydantic-ai's annotated part unions."""
    inner = typing.get_args(union)[0]  # Annotated[Union[...], Discriminator]
    return tuple(typing.get_args(member)[0] for member in typing.get_args(inner))


_REQUEST_PARTS = _part_classes(ModelRequestPart)
_RESPONSE_PARTS = _part_classes(ModelResponsePart)


@dataclass(slots=True)
class CheckedStream:
    """What survives the check: the events to replay and the usage the budget counts."""

    events: list[object] = field(default_factory=list)
    """This package's events, in order, duplicates removed (foreign objects are dropped)."""
    usage: list[LlmUsageEvent] = field(default_factory=list)
    """One record per model response, plus the usage events that follow no response."""
    skipped_duplicates: int = 0
    """How many events were skipped as duplicates."""


@dataclass(slots=True)
class _Pending:
    """The latest response event and the usage record it has been matched with so far."""

    event: LlmMessageEvent
    usage: LlmUsageEvent | None = None


class _Checker:
    """One pass over a stream; see the module docstring for the rules."""

    def __init__(self) -> None:
        self.out = CheckedStream()
        self._seen: dict[tuple[Any, ...], list[ModelMessage]] = {}
        self._known_calls: set[str] = set()
        self._pending: _Pending | None = None
        self._in_duplicate = False

    def feed(self, index: int, event: object) -> None:
        if isinstance(event, LlmMessageEvent):
            self._message(index, event)
        elif isinstance(event, LlmUsageEvent):
            self._usage(index, event)
        elif isinstance(event, ToolCallEvent | ToolReturnEvent):
            self._tool_event(event)
        elif isinstance(event, LlmContextCompactedEvent):
            self._compaction(index, event)
        elif isinstance(event, LlmContextClearedEvent):
            self._boundary(event)
            self._known_calls.clear()
        elif isinstance(event, LlmSystemPromptEvent):
            _require_type(index, "LlmSystemPromptEvent.content_hash", event.content_hash, str)
            self.out.events.append(event)
        elif isinstance(event, Mapping):
            raise TypeError(
                f"event #{index}: got a {type(event).__name__}, expected {_EXPECTED}; "
                "decode stored events into their classes before restoring them"
            )

    def finish(self) -> CheckedStream:
        self._settle_pending()
        return self.out

    # ----------------------------------------------------------------- messages

    def _message(self, index: int, event: LlmMessageEvent) -> None:
        message = event.message
        _check_message(index, message)
        self._settle_pending()
        if self._is_duplicate(message):
            self._in_duplicate = True
            self.out.skipped_duplicates += 1
            return
        self._in_duplicate = False
        if isinstance(message, ModelResponse):
            self._known_calls.update(
                part.tool_call_id for part in message.parts if isinstance(part, ToolCallPart)
            )
            self._pending = _Pending(event)
        else:
            self._check_answers(index, message)
        self.out.events.append(event)

    def _is_duplicate(self, message: ModelMessage) -> bool:
        # A cheap key first (timestamps and part count), full equality only on a collision.
        key = _message_key(message)
        earlier = self._seen.get(key)
        if earlier is None:
            self._seen[key] = [message]
            return False
        if any(previous == message for previous in earlier):
            return True
        earlier.append(message)
        return False

    def _check_answers(self, index: int, request: ModelRequest) -> None:
        for part in request.parts:
            if not isinstance(part, ToolReturnPart | RetryPromptPart):
                continue
            # A retry prompt without a tool name asks to fix the final output: it answers no call.
            answers = isinstance(part, ToolReturnPart) or part.tool_name is not None
            if answers and part.tool_call_id not in self._known_calls:
                raise ValueError(
                    f"event #{index}: the request answers tool call {part.tool_call_id!r} "
                    f"({part.tool_name}), but no earlier response in the stream made that "
                    "call: the events are out of order or the response's event is missing"
                )

    # -------------------------------------------------------------------- usage

    def _usage(self, index: int, event: LlmUsageEvent) -> None:
        for name in _USAGE_FIELDS:
            value = getattr(event, name)
            if type(value) is int and value >= 0:
                continue  # the common case, without a call
            _require_type(index, f"LlmUsageEvent.{name}", value, int)
            if value < 0:
                raise ValueError(
                    f"event #{index}: LlmUsageEvent.{name} is {value}; usage cannot be negative"
                )
        if self._in_duplicate:
            self.out.skipped_duplicates += 1
            return
        pending = self._pending
        if pending is None:
            self.out.usage.append(event)
        elif pending.usage is None:
            pending.usage = event
        else:  # a second usage event for one response
            self.out.skipped_duplicates += 1
            return
        self.out.events.append(event)

    def _settle_pending(self) -> None:
        """Count the latest response once, with its usage event or its own figures."""
        pending = self._pending
        if pending is None:
            return
        self._pending = None
        self.out.usage.append(_response_usage(pending.event, pending.usage))

    def _tool_event(self, event: ToolCallEvent | ToolReturnEvent) -> None:
        if self._in_duplicate:
            self.out.skipped_duplicates += 1
            return
        self.out.events.append(event)

    # -------------------------------------------------------- folds and clears

    def _compaction(self, index: int, event: LlmContextCompactedEvent) -> None:
        _require_type(index, "LlmContextCompactedEvent.strategy_id", event.strategy_id, str)
        _require_type(index, "LlmContextCompactedEvent.summary", event.summary, str)
        count = event.replaced_message_count
        _require_type(index, "LlmContextCompactedEvent.replaced_message_count", count, int)
        if count < 0:
            raise ValueError(
                f"event #{index}: LlmContextCompactedEvent.replaced_message_count is {count}; "
                "it cannot be negative"
            )
        self._boundary(event)

    def _boundary(self, event: object) -> None:
        self._settle_pending()
        self._in_duplicate = False
        self.out.events.append(event)


def _require_type(index: int, name: str, value: object, expected: type) -> None:
    if not isinstance(value, expected) or isinstance(value, bool):
        raise TypeError(
            f"event #{index}: {name} is a {type(value).__name__}, expected {expected.__name__}"
        )


def _check_message(index: int, message: object) -> None:
    if isinstance(message, ModelRequest):
        allowed, kind = _REQUEST_PARTS, "request"
    elif isinstance(message, ModelResponse):
        allowed, kind = _RESPONSE_PARTS, "response"
        _check_response_usage(index, message)
    else:
        raise TypeError(
            f"event #{index}: LlmMessageEvent.message is a {type(message).__name__}, expected "
            "a pydantic-ai ModelRequest or ModelResponse (decode stored messages with "
            "ModelMessagesTypeAdapter)"
        )
    if not isinstance(message.parts, list | tuple):
        raise TypeError(
            f"event #{index}: LlmMessageEvent.message.parts is a "
            f"{type(message.parts).__name__}, expected a list of {kind} parts"
        )
    for position, part in enumerate(message.parts):
        if type(part) not in allowed and not isinstance(part, allowed):
            raise TypeError(
                f"event #{index}: LlmMessageEvent.message.parts[{position}] is a "
                f"{type(part).__name__}, expected a pydantic-ai {kind} part"
            )


def _check_response_usage(index: int, response: ModelResponse) -> None:
    usage = response.usage
    given = (usage.input_tokens, usage.output_tokens)
    if all(type(value) is int and value >= 0 for value in given):
        return  # the common case
    for name in ("input_tokens", "output_tokens"):
        value = getattr(usage, name, None)
        _require_type(index, f"LlmMessageEvent.message.usage.{name}", value, int)
        assert isinstance(value, int)
        if value < 0:
            raise ValueError(
                f"event #{index}: LlmMessageEvent.message.usage.{name} is {value}; "
                "usage cannot be negative"
            )


def _message_key(message: ModelMessage) -> tuple[Any, ...]:
    # Responses carry their own timestamp; a request may not (then its first part's stands in).
    parts = message.parts
    stamp = message.timestamp
    if stamp is None and parts:
        stamp = getattr(parts[0], "timestamp", None)
    return (type(message), stamp, len(parts))


def _response_usage(event: LlmMessageEvent, recorded: LlmUsageEvent | None) -> LlmUsageEvent:
    """The usage one response accounts for: never below what the response itself reports."""
    response = event.message
    assert isinstance(response, ModelResponse)
    own = response.usage
    if recorded is None:
        return LlmUsageEvent(
            run_id=event.run_id,
            model_name=response.model_name or "unknown",
            provider_name=response.provider_name,
            input_tokens=own.input_tokens,
            output_tokens=own.output_tokens,
            cache_read_tokens=own.cache_read_tokens,
            cache_write_tokens=own.cache_write_tokens,
        )
    if recorded.input_tokens >= own.input_tokens and recorded.output_tokens >= own.output_tokens:
        return recorded
    return LlmUsageEvent(
        run_id=recorded.run_id,
        model_name=recorded.model_name,
        provider_name=recorded.provider_name,
        input_tokens=max(recorded.input_tokens, own.input_tokens),
        output_tokens=max(recorded.output_tokens, own.output_tokens),
        cache_read_tokens=recorded.cache_read_tokens,
        cache_write_tokens=recorded.cache_write_tokens,
        requests=recorded.requests,
    )


def check_event_stream(events: Iterable[object]) -> CheckedStream:
    """Validate ``events`` (bare events, already unwrapped) and return what replay may use.

    Raises ``TypeError`` / ``ValueError`` naming the index of the first bad event; see the
    module docstring for every rule.
    """
    checker = _Checker()
    for index, event in enumerate(events):
        checker.feed(index, event)
    return checker.finish()
