"""check_event_stream's rules on a persisted stream: types and numbers named with the event's
index and field, duplicates skipped and counted, answers checked against the calls made, and
the usage each response accounts for."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

from akgentic.llm.event import (
    LlmContextCompactedEvent,
    LlmMessageEvent,
    LlmSystemPromptEvent,
    LlmUsageEvent,
    ToolCallEvent,
)
from akgentic.llm.event_check import check_event_stream

_AT = datetime(2026, 1, 1, tzinfo=UTC)
_QUESTION = LlmMessageEvent(ModelRequest(parts=[UserPromptPart("q", timestamp=_AT)]), "r")


def _response(text: str = "a", inp: int = 10, out: int = 2, **fields: object) -> ModelResponse:
    usage = RequestUsage(input_tokens=inp, output_tokens=out)
    return ModelResponse(parts=[TextPart(text)], usage=usage, timestamp=_AT, **fields)  # type: ignore[arg-type]


# ------------------------------------------------------------ types and numbers


@pytest.mark.parametrize(
    ("field", "value", "found"), [("input_tokens", 1.5, "float"), ("requests", True, "bool")]
)
def test_a_usage_count_that_is_not_an_int_is_named_with_its_index(
    field: str, value: object, found: str
) -> None:
    bad = dataclasses.replace(LlmUsageEvent("r", "m", None, 1, 1), **{field: value})
    with pytest.raises(
        TypeError, match=rf"event #1: LlmUsageEvent.{field} is a {found}, expected int"
    ):
        check_event_stream([_QUESTION, bad])


def test_a_system_prompt_event_without_a_text_hash_is_named() -> None:
    bad = LlmSystemPromptEvent(run_id="r", parts=(), content_hash=None)  # type: ignore[arg-type]
    message = r"event #1: LlmSystemPromptEvent.content_hash is a NoneType, expected str"
    with pytest.raises(TypeError, match=message):
        check_event_stream([_QUESTION, bad])


def test_a_message_stored_as_a_mapping_points_at_the_adapter_that_decodes_it() -> None:
    raw = LlmMessageEvent({"kind": "request", "parts": []}, "r")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"event #1: .*ModelMessagesTypeAdapter"):
        check_event_stream([_QUESTION, raw])


@pytest.mark.parametrize(
    ("message", "found", "kind"),
    [
        (ModelRequest(parts=[TextPart("x")]), "TextPart", "request"),
        (ModelResponse(parts=[UserPromptPart("x")]), "UserPromptPart", "response"),  # type: ignore[list-item]
    ],
)
def test_a_part_of_the_wrong_side_is_named_with_its_position(
    message: ModelRequest | ModelResponse, found: str, kind: str
) -> None:
    expected = rf"event #1: LlmMessageEvent.message.parts\[0\] is a {found}, expected a pydantic-ai {kind} part"
    with pytest.raises(TypeError, match=expected):
        check_event_stream([_QUESTION, LlmMessageEvent(message, "r")])


def test_parts_that_are_not_a_list_are_named() -> None:
    broken = ModelRequest(parts={})  # type: ignore[arg-type]
    expected = (
        r"event #1: LlmMessageEvent.message.parts is a dict, expected a list of request parts"
    )
    with pytest.raises(TypeError, match=expected):
        check_event_stream([_QUESTION, LlmMessageEvent(broken, "r")])


def test_a_subclass_of_a_pydantic_ai_part_is_accepted() -> None:
    @dataclasses.dataclass
    class QuotedText(TextPart):
        pass

    response = LlmMessageEvent(ModelResponse(parts=[QuotedText("x")], timestamp=_AT), "r")
    assert check_event_stream([_QUESTION, response]).events == [_QUESTION, response]


@pytest.mark.parametrize(
    ("inp", "out", "field", "value"),
    [(-1, 2, "input_tokens", -1), (0, -1, "output_tokens", -1), (3, -2, "output_tokens", -2)],
)
def test_a_negative_count_in_a_responses_own_usage_is_refused(
    inp: int, out: int, field: str, value: int
) -> None:
    response = LlmMessageEvent(_response(inp=inp, out=out), "r")
    expected = rf"event #1: LlmMessageEvent.message.usage.{field} is {value}; "
    with pytest.raises(ValueError, match=expected):
        check_event_stream([_QUESTION, response])


@pytest.mark.parametrize(
    ("inp", "out", "field", "found"),
    [
        (2.5, 1, "input_tokens", "float"),
        (2.5, 1.5, "input_tokens", "float"),
        (1, "2", "output_tokens", "str"),
    ],
)
def test_a_responses_own_usage_that_is_not_an_int_is_named(
    inp: object, out: object, field: str, found: str
) -> None:
    response = LlmMessageEvent(_response(inp=inp, out=out), "r")  # type: ignore[arg-type]
    expected = rf"event #1: LlmMessageEvent.message.usage.{field} is a {found}, expected int"
    with pytest.raises(TypeError, match=expected):
        check_event_stream([_QUESTION, response])


_COMPACTED = LlmContextCompactedEvent(
    run_id=None,
    strategy_id="sliding_window",
    summary="earlier talk",
    replaced_message_count=2,
    summarizer_prompt_version="v1",
)


def test_a_compaction_replacing_minus_one_message_is_refused() -> None:
    # Mutation: the check only refuses counts below -1.
    event = dataclasses.replace(_COMPACTED, replaced_message_count=-1)
    with pytest.raises(ValueError, match=r"event #0: .*replaced_message_count is -1"):
        check_event_stream([event])


@pytest.mark.parametrize(
    ("field", "value", "found", "expected"),
    [
        ("strategy_id", None, "NoneType", "str"),
        ("summary", 7, "int", "str"),
        ("replaced_message_count", "3", "str", "int"),
    ],
)
def test_a_compaction_field_of_the_wrong_type_is_named_with_its_index(
    field: str, value: object, found: str, expected: str
) -> None:
    # A store that decoded an event badly can hand over any value: the error says which event
    # and which field, what it found and what belongs there.
    bad = dataclasses.replace(_COMPACTED, **{field: value})
    message = rf"event #1: LlmContextCompactedEvent.{field} is a {found}, expected {expected}"
    with pytest.raises(TypeError, match=message):
        check_event_stream([_COMPACTED, bad])


def test_a_compaction_replacing_no_message_is_accepted() -> None:
    event = dataclasses.replace(_COMPACTED, replaced_message_count=0)
    assert check_event_stream([event]).events == [event]


# --------------------------------------------------------------- duplicates


def test_every_duplicate_is_skipped_and_counted_once() -> None:
    response = LlmMessageEvent(_response(), "r")
    usage = LlmUsageEvent("r", "m", None, 10, 2)
    call = ToolCallEvent("lookup", "c1", "{}", "r")
    stream = [response, usage, call, response, usage, call, response]
    checked = check_event_stream(stream)
    assert checked.events == [response, usage, call]
    assert checked.skipped_duplicates == 4


def test_a_second_usage_event_after_earlier_duplicates_adds_to_the_count() -> None:
    first = LlmMessageEvent(_response("a"), "r")
    second = LlmMessageEvent(_response("b", inp=20), "r")
    usage = LlmUsageEvent("r", "m", None, 20, 2)
    checked = check_event_stream([first, first, second, usage, usage])
    assert checked.skipped_duplicates == 2
    assert checked.events == [first, second, usage]


def test_messages_alike_in_time_and_size_are_told_apart_by_content() -> None:
    # Same timestamp, same number of parts: only their content differs.
    a = LlmMessageEvent(_response("a"), "r")
    b = LlmMessageEvent(_response("b"), "r")
    checked = check_event_stream([a, b, b])
    assert checked.events == [a, b]
    assert checked.skipped_duplicates == 1


def test_usage_after_a_compaction_is_counted_even_after_a_duplicate() -> None:
    response = LlmMessageEvent(_response(), "r")
    usage = LlmUsageEvent("r", "summarizer", None, 5, 1)
    checked = check_event_stream([response, response, _COMPACTED, usage])
    assert checked.events == [response, _COMPACTED, usage]
    assert checked.usage[-1] == usage


# ------------------------------------------------------------------ answers


def test_an_answer_to_an_unknown_call_is_refused_after_other_parts() -> None:
    request = ModelRequest(
        parts=[UserPromptPart("and also"), ToolReturnPart("lookup", "v", tool_call_id="ghost")]
    )
    with pytest.raises(ValueError, match=r"event #1: the request answers tool call 'ghost'"):
        check_event_stream([_QUESTION, LlmMessageEvent(request, "r")])


def test_a_tool_retry_prompt_for_an_unknown_call_is_refused() -> None:
    request = ModelRequest(
        parts=[RetryPromptPart("bad args", tool_name="lookup", tool_call_id="ghost")]
    )
    with pytest.raises(ValueError, match=r"event #1: the request answers tool call 'ghost'"):
        check_event_stream([_QUESTION, LlmMessageEvent(request, "r")])


def test_an_output_retry_prompt_answers_no_call() -> None:
    asked = LlmMessageEvent(_response("not json"), "r")
    retry = LlmMessageEvent(ModelRequest(parts=[RetryPromptPart("answer in JSON")]), "r")
    assert check_event_stream([_QUESTION, asked, retry]).events == [_QUESTION, asked, retry]


# -------------------------------------------------------------------- usage


def test_a_response_without_its_usage_event_is_counted_from_its_own_figures() -> None:
    response = _response(inp=10, out=2, model_name="gpt-x", provider_name="openai")
    response.usage.cache_read_tokens = 4
    response.usage.cache_write_tokens = 3
    nameless = _response("b", inp=1, out=1)
    checked = check_event_stream([LlmMessageEvent(response, "run-1"), LlmMessageEvent(nameless)])
    assert checked.usage == [
        LlmUsageEvent("run-1", "gpt-x", "openai", 10, 2, cache_read_tokens=4, cache_write_tokens=3),
        LlmUsageEvent(None, "unknown", None, 1, 1),
    ]


def test_a_usage_event_at_or_above_the_responses_figures_is_kept_as_recorded() -> None:
    response = LlmMessageEvent(_response(inp=10, out=2), "r")
    recorded = LlmUsageEvent("r", "gpt-x", "openai", 12, 2, cache_read_tokens=1, requests=2)
    assert check_event_stream([response, recorded]).usage == [recorded]


@pytest.mark.parametrize(("inp", "out"), [(12, 1), (9, 5)])
def test_a_usage_event_below_the_responses_figures_is_raised_to_them(inp: int, out: int) -> None:
    response = LlmMessageEvent(_response(inp=10, out=2), "r")
    recorded = LlmUsageEvent(
        "r", "gpt-x", "openai", inp, out, cache_read_tokens=1, cache_write_tokens=2, requests=3
    )
    (counted,) = check_event_stream([response, recorded]).usage
    assert counted == LlmUsageEvent(
        "r",
        "gpt-x",
        "openai",
        max(inp, 10),
        max(out, 2),
        cache_read_tokens=1,
        cache_write_tokens=2,
        requests=3,
    )


def test_a_request_opening_with_a_part_that_has_no_timestamp_is_checked() -> None:
    # A speech part carries no timestamp, and neither does the request: duplicates are still
    # recognised by content.
    from pydantic_ai.messages import SpeechPart

    spoken = LlmMessageEvent(ModelRequest(parts=[SpeechPart(speaker="user", transcript="hi")]))
    checked = check_event_stream([spoken, spoken])
    assert (checked.events, checked.skipped_duplicates) == ([spoken], 1)
