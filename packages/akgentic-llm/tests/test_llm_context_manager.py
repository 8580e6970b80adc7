"""ContextManager: history, observers and their event order, window, prompts, system prompt."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

from akgentic.llm import (
    ContextManager,
    LlmContextClearedEvent,
    LlmMessageEvent,
    LlmSystemPromptEvent,
    LlmUsageEvent,
    SystemPromptPartSnapshot,
    ToolCallEvent,
    ToolReturnEvent,
)
from akgentic.llm.context import system_prompt_hash


def user(text: str) -> ModelRequest:
    return ModelRequest(parts=[UserPromptPart(content=text)])


def system(text: str, *, dynamic_ref: str | None = None) -> ModelRequest:
    return ModelRequest(parts=[SystemPromptPart(content=text, dynamic_ref=dynamic_ref)])


def answer(text: str, *, input_tokens: int = 7, output_tokens: int = 3) -> ModelResponse:
    return ModelResponse(
        parts=[TextPart(text)],
        usage=RequestUsage(input_tokens=input_tokens, output_tokens=output_tokens),
        model_name="gpt-4o",
        provider_name="openai",
    )


def test_add_message_emits_message_then_tool_then_usage_events(event_recorder: Any) -> None:
    ctx = ContextManager()
    ctx.subscribe(event_recorder)
    response = ModelResponse(
        parts=[
            ToolCallPart("search", {"q": "a"}, tool_call_id="c1"),
            ToolCallPart("lookup", '{"id": 2}', tool_call_id="c2"),
        ],
        usage=RequestUsage(input_tokens=11, output_tokens=4, cache_read_tokens=2),
        model_name="gpt-4o",
        provider_name="openai",
    )
    ctx.add_message(response, run_id="run-1")

    assert event_recorder.names() == [
        "LlmMessageEvent",
        "ToolCallEvent",
        "ToolCallEvent",
        "LlmUsageEvent",
    ]
    message_event, call_a, call_b, usage = event_recorder.events
    assert message_event == LlmMessageEvent(message=response, run_id="run-1")
    assert (call_a.tool_name, call_a.tool_call_id, call_a.arguments) == (
        "search",
        "c1",
        '{"q":"a"}',
    )
    assert (call_b.tool_name, call_b.arguments) == ("lookup", '{"id": 2}')
    assert usage == LlmUsageEvent(
        run_id="run-1",
        model_name="gpt-4o",
        provider_name="openai",
        input_tokens=11,
        output_tokens=4,
        cache_read_tokens=2,
        cache_write_tokens=0,
        requests=1,
    )
    assert usage.total_tokens == 15
    # the hot-path builders produce ordinary frozen instances
    for event in event_recorder.events:
        with pytest.raises(dataclasses.FrozenInstanceError):
            event.run_id = "changed"
        assert event == dataclasses.replace(event)
    assert hash(usage) == hash(dataclasses.replace(usage))


def test_tool_returns_and_tool_retries_map_to_return_events(event_recorder: Any) -> None:
    ctx = ContextManager()
    ctx.subscribe(event_recorder)
    ctx.add_message(
        ModelRequest(
            parts=[
                ToolReturnPart("search", "found", tool_call_id="c1"),
                RetryPromptPart("bad id", tool_name="lookup", tool_call_id="c2"),
                # A retry prompt without a tool is about the final output, not a tool failure.
                RetryPromptPart("output was invalid"),
            ]
        )
    )
    returns = event_recorder.of_type(ToolReturnEvent)
    assert [(r.tool_name, r.tool_call_id, r.success) for r in returns] == [
        ("search", "c1", True),
        ("lookup", "c2", False),
    ]
    assert event_recorder.names()[0] == "LlmMessageEvent"
    assert not event_recorder.of_type(LlmUsageEvent)


def test_messages_is_a_copy_and_last_input_tokens_follows_responses() -> None:
    ctx = ContextManager()
    assert ctx.last_input_tokens is None
    ctx.add_message(user("hi"))
    ctx.add_message(answer("hello", input_tokens=42))
    snapshot = ctx.messages
    snapshot.clear()
    assert len(ctx.messages) == 2
    assert ctx.last_input_tokens == 42
    ctx.add_message(answer("again", input_tokens=50))
    assert ctx.last_input_tokens == 50


def test_unsubscribe_stops_delivery_and_observer_errors_propagate(event_recorder: Any) -> None:
    ctx = ContextManager()
    ctx.subscribe(event_recorder)
    ctx.subscribe(event_recorder)  # subscribing twice delivers once
    ctx.add_message(user("one"))
    assert len(event_recorder.events) == 1
    ctx.unsubscribe(event_recorder)
    ctx.add_message(user("two"))
    assert len(event_recorder.events) == 1

    class Boom:
        def notify_event(self, event: object) -> None:
            raise RuntimeError("observer failed")

    ctx.subscribe(Boom())
    with pytest.raises(RuntimeError, match="observer failed"):
        ctx.add_message(user("three"))
    # The message was appended before observers were told.
    assert len(ctx.messages) == 3


def test_pending_user_prompts_buffer_until_history_exists(event_recorder: Any) -> None:
    ctx = ContextManager()
    ctx.subscribe(event_recorder)
    ctx.append_user_prompt("operator note")
    assert ctx.messages == []
    assert ctx.pending_user_prompts == ["operator note"]
    assert event_recorder.events == []
    assert ctx.drain_pending_user_prompts() == ["operator note"]
    assert ctx.drain_pending_user_prompts() == []

    ctx.add_message(system("be brief"))
    ctx.append_user_prompt("late note")
    last = ctx.messages[-1]
    assert isinstance(last, ModelRequest)
    assert last.parts[0].content == "late note"  # type: ignore[union-attr]
    assert isinstance(event_recorder.events[-1], LlmMessageEvent)


def test_sliding_window_keeps_system_messages_and_last_messages() -> None:
    ctx = ContextManager(max_messages=4)
    head = system("rules")
    ctx.add_message(head)
    added = [user(f"m{i}") for i in range(20)]
    for message in added:
        ctx.add_message(message)
        assert len(ctx.messages) <= 4
    assert ctx.messages == [head, *added[-3:]]
    assert ctx.messages[0] is head
    assert ctx.last_message is added[-1]


def test_sliding_window_matches_reference_for_many_sizes() -> None:
    # Compare the amortised window with a direct recomputation after every add.
    for limit in (1, 2, 3, 7):
        ctx = ContextManager(max_messages=limit)
        everything = []
        for i in range(40):
            message = system(f"s{i}") if i in (0, 13) else user(f"u{i}")
            everything.append(message)
            ctx.add_message(message)
            systems = [
                m for m in everything if any(isinstance(p, SystemPromptPart) for p in m.parts)
            ]
            others = [m for m in everything if all(m is not s for s in systems)]
            room = max(limit - len(systems), 0)
            recent = others[max(len(others) - room, 0) :] if room else []
            kept = set(map(id, systems)) | set(map(id, recent))
            expected = [m for m in everything if id(m) in kept]
            assert ctx.messages == expected, (limit, i)


def test_invalid_window_size_is_rejected() -> None:
    with pytest.raises(ValueError, match="max_messages"):
        ContextManager(max_messages=0)


def test_restore_replaces_silently_without_window(event_recorder: Any) -> None:
    ctx = ContextManager(max_messages=2)
    ctx.subscribe(event_recorder)
    history = [user("a"), answer("b", input_tokens=9), user("c"), answer("d", input_tokens=12)]
    ctx.restore(history)
    assert ctx.messages == history
    assert ctx.last_input_tokens == 12
    assert event_recorder.events == []
    ctx.clear()
    assert ctx.messages == []
    assert ctx.last_input_tokens is None
    assert event_recorder.events == []


def test_clear_context_reports_and_emits(event_recorder: Any) -> None:
    ctx = ContextManager()
    ctx.restore([user("a"), answer("b")])
    ctx.subscribe(event_recorder)
    assert ctx.clear_context() == 2
    assert ctx.messages == []
    assert event_recorder.events == [LlmContextClearedEvent(run_id=None, cleared_message_count=2)]


def test_record_system_prompt_emits_once_per_rendering(event_recorder: Any) -> None:
    ctx = ContextManager()
    ctx.subscribe(event_recorder)
    assert ctx.record_system_prompt("run-0") is None  # no system parts at all

    first = ModelRequest(
        parts=[
            SystemPromptPart(content="You are terse."),
            SystemPromptPart(content="It is Monday.", dynamic_ref="today"),
            UserPromptPart(content="hi"),
        ]
    )
    ctx.add_message(first)
    event_recorder.events.clear()

    event = ctx.record_system_prompt("run-1")
    assert isinstance(event, LlmSystemPromptEvent)
    assert [(p.dynamic_ref, p.content) for p in event.parts] == [
        (None, "You are terse."),
        ("today", "It is Monday."),
    ]
    assert event.content_hash == system_prompt_hash(event.parts)
    assert event_recorder.events == [event]

    assert ctx.record_system_prompt("run-2") is None  # unchanged rendering: nothing

    # pydantic-ai re-renders dynamic parts in place; a changed rendering is recorded again.
    first.parts = [first.parts[0], SystemPromptPart(content="It is Tuesday.", dynamic_ref="today")]
    changed = ctx.record_system_prompt("run-3")
    assert changed is not None
    assert changed.run_id == "run-3"
    assert changed.content_hash != event.content_hash


def test_seed_system_prompt_hash_restores_dedup_without_emitting(event_recorder: Any) -> None:
    source = ContextManager()
    source.add_message(system("rules"))
    recorded = source.record_system_prompt("run-1")
    assert recorded is not None

    restored = ContextManager()
    restored.restore(source.messages)
    restored.subscribe(event_recorder)
    restored.seed_system_prompt_hash(recorded.content_hash)
    assert restored.system_prompt_hash == recorded.content_hash
    assert restored.record_system_prompt("run-2") is None
    assert event_recorder.events == []


def test_hash_distinguishes_part_boundaries() -> None:
    from akgentic.llm import SystemPromptPartSnapshot as Snap

    one = [Snap(dynamic_ref=None, content="ab")]
    two = [Snap(dynamic_ref=None, content="a"), Snap(dynamic_ref=None, content="b")]
    assert system_prompt_hash(one) != system_prompt_hash(two)
    assert system_prompt_hash(one) == system_prompt_hash(list(one))


def test_tool_call_arguments_are_the_raw_provider_text(event_recorder: Any) -> None:
    ctx = ContextManager()
    ctx.subscribe(event_recorder)
    raw = '{"b": 1,  "a": [1, 2]}'  # key order and spacing as the provider sent them
    ctx.add_message(
        ModelResponse(
            parts=[
                ToolCallPart("t", raw, tool_call_id="1"),
                ToolCallPart("t", None, tool_call_id="2"),
                ToolCallPart("t", {"x": "é"}, tool_call_id="3"),
            ]
        )
    )
    calls = event_recorder.of_type(ToolCallEvent)
    assert [c.arguments for c in calls] == [raw, "{}", '{"x":"é"}']


def test_restore_without_a_response_forgets_the_last_input_size() -> None:
    ctx = ContextManager()
    ctx.restore([user("a"), answer("b", input_tokens=9)])
    assert ctx.last_input_tokens == 9
    ctx.restore([user("only a prompt")])
    assert ctx.last_input_tokens is None


def test_out_of_run_turns_carry_the_run_id_they_are_given(event_recorder: Any) -> None:
    ctx = ContextManager()
    ctx.add_message(system("be brief"))
    ctx.subscribe(event_recorder)
    ctx.append_user_prompt("operator note", run_id="run-1")
    ctx.record_operator_action("/reset was typed", run_id="run-2")
    ctx.append_user_prompt("no run")
    seen = [
        (event.run_id, event.message.parts[0].content)
        for event in event_recorder.of_type(LlmMessageEvent)
    ]
    assert seen == [("run-1", "operator note"), ("run-2", "/reset was typed"), (None, "no run")]


def test_clear_context_stamps_its_event_with_the_run_id(event_recorder: Any) -> None:
    ctx = ContextManager()
    ctx.restore([user("a")])
    ctx.subscribe(event_recorder)
    assert ctx.clear_context(run_id="run-7") == 1
    (event,) = event_recorder.of_type(LlmContextClearedEvent)
    assert (event.run_id, event.cleared_message_count) == ("run-7", 1)


def test_the_system_prompt_hash_of_non_ascii_text_is_stable() -> None:
    # The hash is persisted (LlmSystemPromptEvent.content_hash) and seeded back on restore: a
    # different value for the same rendering after an upgrade would record it again.
    parts = [
        SystemPromptPartSnapshot(dynamic_ref=None, content="Sois brève."),
        SystemPromptPartSnapshot(dynamic_ref="today", content="Nous sommes lundi."),
    ]
    assert system_prompt_hash(parts) == (
        "0a400bd117540d2f7c156123444362ecb423490a73af01593451caa6b4d1a318"
    )


def test_len_counts_what_the_window_shows() -> None:
    ctx = ContextManager(max_messages=3)
    for index in range(5):
        ctx.add_message(user(f"m{index}"))
    assert len(ctx) == 3  # the list overshoots lazily; len() never does
    restored = [user(f"r{index}") for index in range(5)]
    ctx.restore(restored)
    assert len(ctx) == 5  # a restored history is seen as given
    assert ctx.messages == restored


def test_a_call_without_arguments_reports_an_empty_json_object(event_recorder: Any) -> None:
    ctx = ContextManager()
    ctx.subscribe(event_recorder)
    ctx.add_message(ModelResponse(parts=[ToolCallPart("now", "", tool_call_id="c")]))
    (event,) = event_recorder.of_type(ToolCallEvent)
    assert event.arguments == "{}"


def test_a_compaction_applies_the_window_again() -> None:
    from akgentic.llm.capabilities.compaction import compaction_event_factory
    from akgentic.llm.compaction import CompactionResult

    ctx = ContextManager(max_messages=3)
    ctx.restore([user(f"r{index}") for index in range(6)])  # seen as given: 6 messages
    build = compaction_event_factory("sliding_window")
    ctx.compact(build(CompactionResult("gist", 1), run_id=None, tokens_before=None))
    assert len(ctx.messages) == 3


def test_tool_events_after_text_keep_their_run_id_and_an_unnamed_model_reads_unknown(
    event_recorder: Any,
) -> None:
    ctx = ContextManager()
    assert ctx.system_prompt_hash is None  # nothing recorded yet
    ctx.subscribe(event_recorder)
    # A text part before the call must not end the scan of the parts.
    ctx.add_message(
        ModelResponse(parts=[TextPart("let me look"), ToolCallPart("search", {}, "c1")]),
        run_id="r1",
    )
    ctx.add_message(
        ModelRequest(parts=[RetryPromptPart("bad", tool_name="search", tool_call_id="c1")]),
        run_id="r1",
    )
    calls = event_recorder.of_type(ToolCallEvent)
    returns = event_recorder.of_type(ToolReturnEvent)
    assert [(c.tool_call_id, c.run_id) for c in calls] == [("c1", "r1")]
    assert [(r.tool_call_id, r.success, r.run_id) for r in returns] == [("c1", False, "r1")]
    assert [u.model_name for u in event_recorder.of_type(LlmUsageEvent)] == ["unknown"]


def test_the_lazy_trim_keeps_the_window_applied() -> None:
    # 64 messages reach the lazy trim point of a 2-message window; reads still see 2.
    ctx = ContextManager(max_messages=2)
    added = [user(f"m{i}") for i in range(70)]
    for message in added:
        ctx.add_message(message)
    assert ctx.messages == added[-2:]
