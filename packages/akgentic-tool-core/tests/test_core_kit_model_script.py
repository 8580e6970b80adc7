"""The kit's ScriptedModel: a scripted model driving real tools through a pydantic-ai agent."""

from __future__ import annotations

import pytest
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import RetryPromptPart, ToolReturnPart

from akgentic.tool.core.testing.model_script import ScriptedModel


def _double(n: int) -> int:
    """Twice ``n``; refuses a negative number.

    Args:
        n: A number, 0 or more.
    """
    if n < 0:
        raise ModelRetry(f"n must be 0 or more, got {n}")
    return 2 * n


def _echo(text: str) -> str:
    """``text`` back.

    Args:
        text: Anything.
    """
    return text


def test_a_refused_call_is_followed_by_the_next_call_of_the_script() -> None:
    script = ScriptedModel([("_double", {"n": -1}), ("_double", {"n": 21})], answer=None)
    agent = Agent(script.model(), tools=[_double, _echo])
    assert agent.run_sync("go").output == "42"  # answer=None: the result, as text
    assert script.retried == ["n must be 0 or more, got -1"]
    assert script.returned == [42]
    assert [type(part) for part in script.results()] == [RetryPromptPart, ToolReturnPart]
    assert script.offers == [["_double", "_echo"]] * 3  # call, call again, answer
    assert script.offered == ["_double", "_echo"]


def test_a_result_is_followed_by_the_next_call_then_the_answer() -> None:
    script = ScriptedModel([("_echo", {"text": "hi"}), ("_double", {"n": 1})])
    agent = Agent(script.model(), tools=[_double, _echo])
    assert agent.run_sync("go").output == "finished"
    assert script.returned == ["hi", 2]
    assert script.retried == []
    assert len(script.offers) == 3


def test_a_spent_script_answers_with_what_the_last_call_sent_back() -> None:
    script = ScriptedModel([("_double", {"n": -2})], answer=None)
    agent = Agent(script.model(), tools=[_double])
    assert agent.run_sync("go").output == "n must be 0 or more, got -2"
    assert script.returned == []


def test_an_empty_script_answers_at_once() -> None:
    script = ScriptedModel()
    assert script.offered == []
    assert Agent(script.model(), tools=[_double]).run_sync("go").output == "finished"
    assert script.results() == []
    with pytest.raises(ValueError, match="answer=None .* calls needs at least one"):
        ScriptedModel(answer=None)


def test_each_run_starts_the_script_over_and_keeps_only_its_own_messages() -> None:
    script = ScriptedModel([("_double", {"n": -1}), ("_double", {"n": 2})], answer="done")
    agent = Agent(script.model(), tools=[_double])
    first = agent.run_sync("go")
    second = agent.run_sync("again", message_history=first.all_messages())
    assert second.output == "done"
    # The second run refused -1 and returned 4 again: the script restarted at its first call.
    assert script.retried == ["n must be 0 or more, got -1"] * 2
    assert script.returned == [4, 4]
    fresh = agent.run_sync("alone")
    assert fresh.output == "done"
    assert script.returned == [4]  # a run without history: only its own messages
