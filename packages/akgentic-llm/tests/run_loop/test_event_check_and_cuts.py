"""Edges of the stream check and of the tail cuts that the agent-level tests do not reach.

Found by hand-made mutations (issue 21): each test fails under the mutation it names.
"""

from __future__ import annotations

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

from akgentic.llm.compaction import clean_cut, valid_tail_cut
from akgentic.llm.event import (
    LlmContextClearedEvent,
    LlmMessageEvent,
    LlmUsageEvent,
)
from akgentic.llm.event_check import check_event_stream


def _call(*ids: str) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart("lookup", {}, tool_call_id=i) for i in ids])


def _answer(call_id: str) -> ModelRequest:
    return ModelRequest(parts=[ToolReturnPart("lookup", "v", tool_call_id=call_id)])


# ------------------------------------------------------------------ the cuts


def test_a_cut_landing_on_the_last_message_skips_it_when_it_is_an_orphan_answer() -> None:
    # Mutation: the loop stops one message early (``cut < len(body) - 1``).
    body: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("q")]),
        _call("c1"),
        _answer("c1"),
    ]
    assert clean_cut(body, 2) == 3


def test_an_output_retry_prompt_is_not_a_tool_answer() -> None:
    # A retry prompt without a tool name asks to fix the final output; it may open a tail.
    # Mutation: every retry prompt counts as a tool answer.
    body: list[ModelMessage] = [
        ModelResponse(parts=[TextPart("not json")]),
        ModelRequest(parts=[RetryPromptPart("answer in JSON")]),
        ModelResponse(parts=[TextPart("{}")]),
    ]
    assert clean_cut(body, 1) == 1


def test_moving_past_an_unanswered_call_also_skips_the_answers_behind_it() -> None:
    # One response asked for two tools; only one was answered before the process died.
    # Mutation: the cut stops right after the response, on the orphan answer.
    body: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("q0")]),
        _call("dead", "done"),
        _answer("done"),
        ModelRequest(parts=[UserPromptPart("are you there?")]),
    ]
    assert valid_tail_cut(body, 0) == 3


# ---------------------------------------------------------------- the check


def test_a_usage_count_of_minus_one_is_refused() -> None:
    # Mutation: the check only refuses values below -1.
    with pytest.raises(ValueError, match=r"event #0: LlmUsageEvent.output_tokens is -1"):
        check_event_stream([LlmUsageEvent("r", "m", None, 0, -1)])


def test_a_clear_forgets_the_calls_made_before_it() -> None:
    # After a clear the history is empty: an answer to an earlier call is an orphan again.
    # Mutation: the known calls survive the clear.
    events = [
        LlmMessageEvent(_call("c1")),
        LlmMessageEvent(_answer("c1")),
        LlmContextClearedEvent(run_id=None, cleared_message_count=2),
        LlmMessageEvent(_answer("c1")),
    ]
    with pytest.raises(ValueError, match=r"event #3: the request answers tool call 'c1'"):
        check_event_stream(events)


def test_a_second_usage_event_for_one_response_is_skipped_and_counted_as_such() -> None:
    # Mutation: the second usage event is kept among the replayed events.
    response = ModelResponse(
        parts=[TextPart("a")], usage=RequestUsage(input_tokens=10, output_tokens=2)
    )
    usage = LlmUsageEvent("r", "m", None, 10, 2)
    checked = check_event_stream([LlmMessageEvent(response, "r"), usage, usage])
    assert checked.skipped_duplicates == 1
    assert checked.events == [LlmMessageEvent(response, "r"), usage]
    assert [(u.input_tokens, u.output_tokens) for u in checked.usage] == [(10, 2)]
