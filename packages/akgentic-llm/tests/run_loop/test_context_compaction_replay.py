"""ContextManager.fold_compaction / compact / replay: the shared live-and-replay fold."""

from __future__ import annotations

from typing import Any

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

from akgentic.llm.compaction import fold_compaction
from akgentic.llm.context import ContextManager
from akgentic.llm.event import (
    LlmContextClearedEvent,
    LlmContextCompactedEvent,
    LlmMessageEvent,
    LlmSystemPromptEvent,
)


def _turn(text: str, tokens: int) -> list[Any]:
    return [
        ModelRequest(parts=[UserPromptPart(text)]),
        ModelResponse(parts=[TextPart(f"re: {text}")], usage=RequestUsage(input_tokens=tokens)),
    ]


def _event(strategy_id: str = "summarize", count: int = 0) -> LlmContextCompactedEvent:
    return LlmContextCompactedEvent(
        run_id="r1",
        strategy_id=strategy_id,
        summary="the gist",
        replaced_message_count=count,
        summarizer_prompt_version="v1",
        tokens_before=900,
        tokens_after=12,
    )


def test_fold_compaction_is_the_module_fold() -> None:
    messages = [ModelRequest(parts=[SystemPromptPart("sys")]), *_turn("a", 5)]
    event = _event()
    assert ContextManager.fold_compaction(messages, event) == fold_compaction(messages, event)


def test_compact_applies_the_fold_emits_once_and_disarms_the_gate(recorder: Any) -> None:
    context = ContextManager()
    context.add_message(ModelRequest(parts=[SystemPromptPart("sys")]))
    for message in _turn("a", 500) + _turn("b", 900):
        context.add_message(message)
    context.subscribe(recorder)
    assert context.last_input_tokens == 900

    event = _event()
    context.compact(event)
    assert recorder.events == [event]
    (head,) = context.messages
    assert [p.part_kind for p in head.parts] == ["system-prompt", "user-prompt"]
    assert context.last_input_tokens is None


def test_compact_on_a_windowed_context_keeps_pinned_system_prompt() -> None:
    context = ContextManager(max_messages=3)
    system = ModelRequest(parts=[SystemPromptPart("sys")])
    context.add_message(system)
    for index in range(4):
        for message in _turn(str(index), 10):
            context.add_message(message)
    assert context.messages[0] is system  # pinned by the window
    context.compact(_event("sliding_window", count=1))
    assert context.messages[0].parts[0] is system.parts[0]
    assert len(context) == len(context.messages)


def test_replay_rebuilds_history_silently_and_reseeds_the_hash(recorder: Any) -> None:
    live = ContextManager(max_messages=4)
    log: list[object] = []

    class Log:
        def notify_event(self, event: object) -> None:
            log.append(event)

    live.subscribe(Log())
    live.add_message(ModelRequest(parts=[SystemPromptPart("sys")]))
    for message in _turn("a", 100):
        live.add_message(message, run_id="r1")
    live.record_system_prompt("r1")
    for message in _turn("b", 200):
        live.add_message(message, run_id="r2")
    live.compact(_event("sliding_window", count=1))
    for message in _turn("c", 300):
        live.add_message(message, run_id="r3")
    live.clear_context()
    for message in _turn("d", 400):
        live.add_message(message, run_id="r4")
    log.append("an unrelated envelope payload")

    restored = ContextManager(max_messages=4)
    restored.subscribe(recorder)
    restored.replay(log)
    assert recorder.events == []  # nothing re-emitted
    assert restored.messages == live.messages
    assert restored.last_input_tokens == live.last_input_tokens == 400
    system_events = [e for e in log if isinstance(e, LlmSystemPromptEvent)]
    assert restored.system_prompt_hash == system_events[-1].content_hash
    # after the replay, observers are back in place
    restored.add_message(ModelRequest(parts=[UserPromptPart("e")]))
    assert [type(e) for e in recorder.events] == [LlmMessageEvent]
    assert any(isinstance(e, LlmContextClearedEvent) for e in log)


def test_an_event_that_drops_nothing_changes_nothing() -> None:
    assert fold_compaction([], _event()) == []
    messages = [ModelRequest(parts=[SystemPromptPart("sys")])]
    assert fold_compaction(messages, _event()) == messages
    assert fold_compaction(messages, _event("custom", count=0)) == messages
