"""``ContextManager``: the conversation history an agent carries from one run to the next.

It owns three things:

* the message list handed to pydantic-ai as ``message_history`` on every run, optionally capped
  by a sliding window that never drops a system-prompt message;
* the fan-out of what changed to observers, as the events of ``akgentic.llm.event``;
* the dedup state of the rendered system prompt, so a rendering is recorded once per change.

``add_message`` is on every run's hot path (once per message a run produces), so it is written
to do as little as possible: events are built only when someone is subscribed, and the sliding
window advances a start index instead of rebuilding lists (amortised O(1) per message, the
physical list is compacted in batches).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable, Sequence
from typing import Any, cast

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_core import to_json

from akgentic.llm.compaction import fold_compaction
from akgentic.llm.event import (
    ContextObserver,
    LlmContextClearedEvent,
    LlmContextCompactedEvent,
    LlmMessageEvent,
    LlmSystemPromptEvent,
    SystemPromptPartSnapshot,
    _message_event,
    _tool_call_event,
    _tool_return_event,
    _usage_event,
)
from akgentic.llm.event_check import check_event_stream

__all__ = ["ContextManager", "system_prompt_hash"]


def _raw_arguments(args: str | dict[str, Any] | None) -> str:
    """The call's arguments as a JSON string: the provider's own text when it sent text.

    Unlike ``ToolCallPart.args_as_json_str``, a string is not re-parsed (that costs a JSON
    decode per call on the hot path, and the raw text is what the event documents).
    """
    if isinstance(args, str):
        return args or "{}"
    if not args:
        return "{}"
    return to_json(args).decode()


def system_prompt_hash(parts: Iterable[SystemPromptPartSnapshot]) -> str:
    """sha256 hex over the ordered ``(dynamic_ref, content)`` pairs of a rendering."""
    payload = json.dumps([[part.dynamic_ref, part.content] for part in parts], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ContextManager:
    """Conversation history with observers, a sliding window and system-prompt dedup."""

    __slots__ = (
        "_last_input_tokens",
        "_max_messages",
        "_messages",
        "_observers",
        "_pending_user_prompts",
        "_pinned",
        "_system_prompt_hash",
        "_trim_at",
        "_window_suspended",
    )

    def __init__(self, max_messages: int | None = None) -> None:
        if max_messages is not None and max_messages < 1:
            raise ValueError(f"max_messages must be at least 1 or None, got {max_messages}")
        self._max_messages = max_messages
        # Window bookkeeping: the visible history is ``_pinned + _messages`` once trimmed, where
        # ``_pinned`` holds the system-prompt messages the window has slid past. Trimming is
        # lazy: ``add_message`` lets the list overshoot up to ``_trim_at`` and then drops the
        # head in one go (amortised O(1) per message); reads trim exactly to the window.
        self._messages: list[ModelMessage] = []
        self._pinned: list[ModelMessage] = []
        self._trim_at = sys.maxsize if max_messages is None else max(2 * max_messages, 64)
        self._window_suspended = False
        # A tuple, rebuilt on (un)subscribe: iteration on the hot path is cheap and an observer
        # that unsubscribes while being notified cannot disturb the loop.
        self._observers: tuple[ContextObserver, ...] = ()
        self._pending_user_prompts: list[str] = []
        self._last_input_tokens: int | None = None
        self._system_prompt_hash: str | None = None

    # ------------------------------------------------------------------ history

    @property
    def max_messages(self) -> int | None:
        """The sliding-window size, or ``None`` for an unbounded history."""
        return self._max_messages

    @property
    def messages(self) -> list[ModelMessage]:
        """The history the next run will see, as a new list (safe to keep and mutate)."""
        if self._max_messages is not None and not self._window_suspended:
            self._trim(self._max_messages)
        if self._pinned:
            return self._pinned + self._messages
        return self._messages[:]

    def __len__(self) -> int:
        if self._max_messages is not None and not self._window_suspended:
            self._trim(self._max_messages)
        return len(self._pinned) + len(self._messages)

    @property
    def last_message(self) -> ModelMessage | None:
        """The most recently added message (the event-sourcing cursor's anchor)."""
        if self._messages:
            return self._messages[-1]
        return self._pinned[-1] if self._pinned else None

    @property
    def last_input_tokens(self) -> int | None:
        """Input tokens the provider reported for the latest response, ``None`` before any."""
        return self._last_input_tokens

    def add_message(self, message: ModelMessage, *, run_id: str | None = None) -> None:
        """Append ``message`` and notify observers.

        Observers receive ``LlmMessageEvent`` first, then one tool event per tool part, then
        ``LlmUsageEvent`` when the message is a model response.
        """
        messages = self._messages
        messages.append(message)
        if len(messages) >= self._trim_at:
            self._window_suspended = False
            self._trim(self._max_messages)  # type: ignore[arg-type]  # _trim_at is finite
        is_response = type(message) is ModelResponse
        if is_response:
            self._last_input_tokens = cast(ModelResponse, message).usage.input_tokens
        observers = self._observers
        if not observers:
            return
        event: object = _message_event(message, run_id)
        for observer in observers:
            observer.notify_event(event)
        # Typed as Any: the kind is dispatched on the exact class just below.
        parts: Any = message.parts
        for part in parts:
            kind = type(part)
            if kind is ToolCallPart:
                event = _tool_call_event(
                    part.tool_name,
                    part.tool_call_id,
                    _raw_arguments(part.args),
                    run_id,
                )
            elif kind is ToolReturnPart:
                event = _tool_return_event(part.tool_name, part.tool_call_id, True, run_id)
            elif kind is RetryPromptPart and part.tool_name is not None:
                # A retry prompt without a tool name asks the model to fix its final output;
                # only one naming a tool reports that tool failing.
                event = _tool_return_event(part.tool_name, part.tool_call_id, False, run_id)
            else:
                continue
            for observer in observers:
                observer.notify_event(event)
        if is_response:
            response = cast(ModelResponse, message)
            usage = response.usage
            event = _usage_event(
                run_id,
                response.model_name or "unknown",
                response.provider_name,
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_read_tokens,
                usage.cache_write_tokens,
            )
            for observer in observers:
                observer.notify_event(event)

    def _trim(self, limit: int) -> None:
        """Drop the oldest non-system messages until at most ``limit`` are visible."""
        messages = self._messages
        pinned = self._pinned
        overflow = len(pinned) + len(messages) - limit
        if overflow <= 0:
            return
        cut = 0
        size = len(messages)
        # System-prompt messages that slide past the window are pinned, not dropped. The test
        # is inlined (this loop visits every message once in its life).
        while overflow > 0 and cut < size:
            leaving = messages[cut]
            cut += 1
            if type(leaving) is ModelRequest:
                for part in leaving.parts:
                    if type(part) is SystemPromptPart:
                        pinned.append(leaving)
                        break
                else:
                    overflow -= 1
            else:
                overflow -= 1
        del messages[:cut]

    def restore(self, messages: Sequence[ModelMessage]) -> None:
        """Replace the whole history verbatim; notifies nobody.

        No window is applied to the restored list: it is seen as given until the next
        ``add_message`` slides the window again.
        """
        self._messages = list(messages)
        self._pinned = []
        self._window_suspended = True
        self._last_input_tokens = None
        for message in reversed(self._messages):
            if isinstance(message, ModelResponse):
                self._last_input_tokens = message.usage.input_tokens
                break

    def clear(self) -> None:
        """Drop every message without notifying anyone."""
        self._messages = []
        self._pinned = []
        self._window_suspended = False
        self._last_input_tokens = None

    def clear_context(self, run_id: str | None = None) -> int:
        """Drop the history, emit ``LlmContextClearedEvent`` and return how many were dropped."""
        removed = len(self)
        self.clear()
        event = LlmContextClearedEvent(run_id=run_id, cleared_message_count=removed)
        for observer in self._observers:
            observer.notify_event(event)
        return removed

    # ---------------------------------------------------------------- observers

    def subscribe(self, observer: ContextObserver) -> None:
        """Deliver every future event to ``observer`` (subscribing twice is a no-op)."""
        # Identity, not equality: two equal-looking observers are still two subscribers.
        if not any(o is observer for o in self._observers):
            self._observers = (*self._observers, observer)

    def unsubscribe(self, observer: ContextObserver) -> None:
        """Stop delivering events to ``observer`` (unknown observers are ignored)."""
        self._observers = tuple(o for o in self._observers if o is not observer)

    @property
    def observers(self) -> tuple[ContextObserver, ...]:
        """The current subscribers, in subscription order."""
        return self._observers

    # ------------------------------------------------------- out-of-run prompts

    def append_user_prompt(self, entry: str, *, run_id: str | None = None) -> None:
        """Add a user-role turn that did not come from a run.

        Before the first run the history is empty, and pydantic-ai renders the system prompt
        only for an empty history, so appending then would silently lose the system prompt:
        the text is buffered instead and ``ReactAgent.run`` folds it into the next prompt.
        Once the history has content, the turn is appended (and observed) immediately.
        """
        if len(self) == 0:
            self._pending_user_prompts.append(entry)
            return
        self.add_message(ModelRequest(parts=[UserPromptPart(content=entry)]), run_id=run_id)

    def record_operator_action(self, entry: str, *, run_id: str | None = None) -> None:
        """Record something a human did outside the model's turns (a slash command, ...).

        The caller composes the wording; it lands in the history as a user-role turn, exactly
        as ``append_user_prompt`` places it (buffered before the first run, appended and
        observed afterwards). akgentic-agent calls this for every dispatched command.
        """
        self.append_user_prompt(entry, run_id=run_id)

    @property
    def pending_user_prompts(self) -> list[str]:
        """Buffered user turns not yet folded into a run (a copy)."""
        return list(self._pending_user_prompts)

    def drain_pending_user_prompts(self) -> list[str]:
        """Return the buffered user turns, oldest first, and empty the buffer."""
        drained = self._pending_user_prompts
        self._pending_user_prompts = []
        return drained

    # ---------------------------------------------------- system-prompt records

    @property
    def system_prompt_hash(self) -> str | None:
        """Hash of the last recorded system-prompt rendering."""
        return self._system_prompt_hash

    def current_system_prompt(self) -> tuple[SystemPromptPartSnapshot, ...]:
        """The system-prompt parts of the first request in the history, in model order."""
        for message in self.messages:
            if isinstance(message, ModelRequest):
                return tuple(
                    SystemPromptPartSnapshot(dynamic_ref=part.dynamic_ref, content=part.content)
                    for part in message.parts
                    if isinstance(part, SystemPromptPart)
                )
        return ()

    def record_system_prompt(self, run_id: str) -> LlmSystemPromptEvent | None:
        """Emit ``LlmSystemPromptEvent`` if the rendering changed since the last record.

        Returns the emitted event, or ``None`` when there is no system prompt or it is unchanged.
        """
        parts = self.current_system_prompt()
        if not parts:
            return None
        content_hash = system_prompt_hash(parts)
        if content_hash == self._system_prompt_hash:
            return None
        self._system_prompt_hash = content_hash
        event = LlmSystemPromptEvent(run_id=run_id, parts=parts, content_hash=content_hash)
        for observer in self._observers:
            observer.notify_event(event)
        return event

    def seed_system_prompt_hash(self, content_hash: str | None) -> None:
        """Restore the dedup state (e.g. from a persisted event) without emitting anything."""
        self._system_prompt_hash = content_hash

    # ------------------------------------------------------- compaction and replay

    @staticmethod
    def fold_compaction(
        messages: Sequence[ModelMessage], event: LlmContextCompactedEvent
    ) -> list[ModelMessage]:
        """The history that results from applying ``event`` to ``messages`` (pure).

        One function for the live path (``compact``) and the replay path (``replay``), so a
        restored history is the live one; see ``akgentic.llm.compaction`` for the rules.
        """
        return fold_compaction(messages, event)

    def compact(self, event: LlmContextCompactedEvent) -> None:
        """Apply the fold ``event`` describes, then emit ``event`` to observers."""
        self._messages = self.fold_compaction(self.messages, event)
        self._pinned = []
        self._window_suspended = False
        # The last reported size described the history that was just folded away; keeping it
        # would re-arm the compaction gate before the next response reports the new size.
        self._last_input_tokens = None
        for observer in self._observers:
            observer.notify_event(event)

    def replay(self, events: Iterable[object]) -> None:
        """Rebuild the history from a persisted event stream, notifying nobody.

        Messages are re-added, compactions re-folded and clears re-applied through the same
        code paths the live agent took, so history, window and ``last_input_tokens`` end up
        exactly as the live context had them. The system-prompt dedup hash is re-seeded from
        the last ``LlmSystemPromptEvent``. Items that are not these events are ignored.

        The stream is checked first (``akgentic.llm.event_check``): a serialized dict where
        an event belongs, a message that is not a pydantic-ai message, a negative count or a
        tool answer before its call raises ``TypeError``/``ValueError`` naming the index, and
        nothing is changed; a duplicated message event is skipped.
        """
        checked = check_event_stream(events).events
        observers = self._observers
        self._observers = ()
        try:
            self.clear()
            for event in checked:
                if isinstance(event, LlmMessageEvent):
                    self.add_message(event.message, run_id=event.run_id)
                elif isinstance(event, LlmContextCompactedEvent):
                    self.compact(event)
                elif isinstance(event, LlmContextClearedEvent):
                    self.clear()
                elif isinstance(event, LlmSystemPromptEvent):
                    self._system_prompt_hash = event.content_hash
        finally:
            self._observers = observers
