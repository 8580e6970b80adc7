"""Events: JSON round trip of every event type and the documented field shapes."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from pydantic import TypeAdapter
from pydantic_ai.messages import (
    BinaryContent,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

from akgentic.llm import (
    ContextObserver,
    EventMessage,
    LlmContextClearedEvent,
    LlmContextCompactedEvent,
    LlmMessageEvent,
    LlmSystemPromptEvent,
    LlmUsageEvent,
    SystemPromptPartSnapshot,
    ToolCallEvent,
    ToolReturnEvent,
)

SAMPLES: list[Any] = [
    LlmMessageEvent(
        message=ModelRequest(
            parts=[SystemPromptPart(content="rules"), UserPromptPart(content="hello")]
        ),
        run_id="r1",
    ),
    LlmMessageEvent(
        message=ModelResponse(
            parts=[TextPart("hi"), ToolCallPart("search", {"q": "x"}, tool_call_id="c1")],
            usage=RequestUsage(input_tokens=3, output_tokens=2),
            model_name="gpt-4o",
        ),
        run_id=None,
    ),
    ToolCallEvent(tool_name="search", tool_call_id="c1", arguments='{"q":"x"}', run_id="r1"),
    ToolReturnEvent(tool_name="search", tool_call_id="c1", success=False, run_id="r1"),
    LlmUsageEvent(
        run_id="r1",
        model_name="gpt-4o",
        provider_name="openai",
        input_tokens=10,
        output_tokens=5,
        cache_read_tokens=1,
        requests=1,
    ),
    LlmSystemPromptEvent(
        run_id="r1",
        parts=(
            SystemPromptPartSnapshot(dynamic_ref=None, content="static"),
            SystemPromptPartSnapshot(dynamic_ref="now", content="It is noon."),
        ),
        content_hash="ab" * 32,
    ),
    LlmContextCompactedEvent(
        run_id=None,
        strategy_id="summarize",
        summary="we talked",
        replaced_message_count=8,
        summarizer_prompt_version="v1",
        tokens_before=9000,
        tokens_after=None,
    ),
    LlmContextClearedEvent(run_id="r3", cleared_message_count=4),
]


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).__name__)
def test_every_event_round_trips_through_json(event: Any) -> None:
    adapter: TypeAdapter[Any] = TypeAdapter(type(event))
    payload = adapter.dump_json(event)
    again = adapter.validate_json(payload)
    assert again == event
    assert type(again) is type(event)


def test_multimodal_message_event_keeps_its_bytes_through_json() -> None:
    event = LlmMessageEvent(
        message=ModelRequest(
            parts=[
                UserPromptPart(
                    content=["look", BinaryContent(data=b"\x89PNG", media_type="image/png")]
                )
            ]
        ),
        run_id="r2",
    )
    adapter: TypeAdapter[LlmMessageEvent] = TypeAdapter(LlmMessageEvent)
    again = adapter.validate_json(adapter.dump_json(event))
    part = again.message.parts[0]
    assert isinstance(part, UserPromptPart)
    text, image = part.content
    assert text == "look"
    assert isinstance(image, BinaryContent)
    assert (image.data, image.media_type) == (b"\x89PNG", "image/png")


def test_events_are_frozen() -> None:
    event = ToolReturnEvent(tool_name="t", tool_call_id="c", success=True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.success = False  # type: ignore[misc]


def test_documented_fields() -> None:
    assert [f.name for f in dataclasses.fields(LlmSystemPromptEvent)] == [
        "run_id",
        "parts",
        "content_hash",
    ]
    assert [f.name for f in dataclasses.fields(LlmContextCompactedEvent)] == [
        "run_id",
        "strategy_id",
        "summary",
        "replaced_message_count",
        "summarizer_prompt_version",
        "tokens_before",
        "tokens_after",
    ]
    assert {f.name for f in dataclasses.fields(LlmUsageEvent)} >= {
        "run_id",
        "model_name",
        "provider_name",
        "input_tokens",
        "output_tokens",
        "requests",
    }


def test_protocols_are_structural() -> None:
    class Observer:
        def notify_event(self, event: object) -> None:
            pass

    class Envelope:
        def __init__(self, event: object) -> None:
            self.event = event

    assert isinstance(Observer(), ContextObserver)
    assert not isinstance(object(), ContextObserver)
    assert isinstance(Envelope(SAMPLES[0]), EventMessage)


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).__name__)
def test_events_survive_akgentic_cores_serializer(event: Any) -> None:
    """How the framework persists them (skipped where akgentic-core is not installed)."""
    pytest.importorskip("akgentic.core")
    import json

    from akgentic.core.utils.deserializer import deserialize_object
    from akgentic.core.utils.serializer import serialize

    payload = json.loads(json.dumps(serialize(event)))
    assert deserialize_object(payload) == event


def test_user_prompt_alias_is_a_plain_union() -> None:
    from typing import get_args

    from akgentic.llm import UserPrompt

    assert get_args(UserPrompt)[0] is str
