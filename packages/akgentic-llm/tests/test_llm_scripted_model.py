"""``akgentic.llm.testing.ScriptedModel``: a script of turns played by real agents.

Every test drives a real pydantic-ai ``Agent`` (or a ``ReactAgent``) and real tools, so what
is checked is what the agent loop made of the scripted answers.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel
from pydantic_ai import Agent, BinaryContent, ModelRetry
from pydantic_ai.messages import RetryPromptPart, ToolReturnPart
from pydantic_ai.profiles import ModelProfile
from pydantic_ai.usage import RequestUsage

from akgentic.llm import ReactAgent, ReactAgentConfig
from akgentic.llm.testing import Reply, ScriptedCall, ScriptedModel, ScriptedRequest, tool_results


def _agent(model: ScriptedModel, log: list[str]) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(model)

    @agent.tool_plain
    def lookup(key: str) -> str:
        """Look a key up."""
        log.append(key)
        if key == "missing":
            raise ModelRetry(f"no {key}")
        return f"value of {key}"

    return agent


async def test_a_tool_call_then_an_answer() -> None:
    log: list[str] = []
    model = ScriptedModel(ScriptedCall("lookup", {"key": "k"}), "the answer")
    result = await _agent(model, log).run("go")
    assert result.output == "the answer"
    assert log == ["k"]
    assert model.served == 2
    assert model.offered == ["lookup"]
    assert [(r.tool_name, r.content) for r in model.tool_results()] == [("lookup", "value of k")]


async def test_parallel_calls_keep_their_ids_and_a_callable_answers_from_the_results() -> None:
    log: list[str] = []
    calls = [ScriptedCall("lookup", {"key": "a"}, "c-a"), ScriptedCall("lookup", {"key": "b"})]

    def report(request: ScriptedRequest) -> str:
        return " | ".join(str(r.content) for r in request.results)

    model = ScriptedModel(calls, report)
    result = await _agent(model, log).run("go")
    assert sorted(log) == ["a", "b"]
    assert result.output == "value of a | value of b"
    ids = [r.tool_call_id for r in model.tool_results()]
    assert ids[0] == "c-a"
    assert ids[1]
    assert ids[1] != "c-a"


async def test_a_refused_call_comes_back_as_a_retry_prompt() -> None:
    model = ScriptedModel(ScriptedCall("lookup", {"key": "missing"}), lambda r: str(len(r.results)))
    result = await _agent(model, []).run("go")
    (refused,) = model.tool_results()
    assert isinstance(refused, RetryPromptPart)
    assert "no missing" in str(refused.content)
    assert result.output == "1"


async def test_runs_carry_on_through_the_script_then_get_when_done() -> None:
    log: list[str] = []
    model = ScriptedModel(
        ScriptedCall("lookup", {"key": "first"}),
        "one",
        "two",
        when_done="spent",
        model_name="scripted-demo",
    )
    agent = _agent(model, log)
    first = await agent.run("a")
    second = await agent.run("b", message_history=first.all_messages())
    third = await agent.run("c")
    assert (first.output, second.output, third.output) == ("one", "two", "spent")
    assert log == ["first"]
    assert model.served == 4
    assert first.all_messages()[-1].model_name == "scripted-demo"  # type: ignore[union-attr]
    # the latest request is a fresh run's: its prompt alone, no tool result
    assert model.tool_results() == []
    assert len(model.seen) == 1


async def test_every_response_reports_the_scripted_usage() -> None:
    usage = RequestUsage(input_tokens=100, output_tokens=20)
    model = ScriptedModel(ScriptedCall("lookup", {"key": "k"}), "done", usage=usage)
    result = await _agent(model, []).run("go")
    run_usage = result.usage
    assert (run_usage.requests, run_usage.input_tokens, run_usage.output_tokens) == (2, 200, 40)


async def test_without_usage_pydantic_ai_estimates_it() -> None:
    result = await _agent(ScriptedModel("done"), []).run("go")
    assert result.usage.requests == 1
    assert result.usage.output_tokens > 0  # FunctionModel's estimate, not a scripted figure


def test_threads_never_take_the_same_turn(in_threads: Callable[..., list[object]]) -> None:
    answers = [f"answer {i}" for i in range(16)]
    agent: Agent[None, str] = Agent(ScriptedModel(*answers))
    outputs = in_threads(lambda _: agent.run_sync("go").output, range(16))
    assert sorted(map(str, outputs)) == sorted(answers)


class Answer(BaseModel):
    value: str


def test_a_react_agent_gets_a_structured_answer_from_json_text(fake_keys: object) -> None:
    model = ScriptedModel(ScriptedCall("lookup", {"key": "k"}, "c1"), '{"value": "v"}')
    seen: list[str] = []

    def lookup(key: str) -> str:
        """Look a key up."""
        seen.append(key)
        return "v"

    agent = ReactAgent(ReactAgentConfig(), tools=[lookup], result_type=Answer, model=model)
    try:
        assert agent.run_sync("go") == Answer(value="v")
    finally:
        agent.close()
    assert seen == ["k"]
    returned = [p for m in agent.context.messages for p in m.parts if isinstance(p, ToolReturnPart)]
    assert [(p.tool_call_id, p.content) for p in returned] == [("c1", "v")]


async def test_an_empty_script_answers_when_done_under_its_model_name() -> None:
    result = await _agent(ScriptedModel(), []).run("go")
    assert result.output == "Nothing left to do."
    assert result.all_messages()[-1].model_name == "scripted"  # type: ignore[union-attr]


def test_the_profile_and_name_are_pydantic_ais() -> None:
    model = ScriptedModel(profile=ModelProfile(supports_json_schema_output=False), model_name="x")
    assert model.profile["supports_json_schema_output"] is False
    assert model.model_name == "x"


async def test_tool_results_reads_any_history_in_order() -> None:
    log: list[str] = []
    model = ScriptedModel(
        ScriptedCall("lookup", {"key": "missing"}), ScriptedCall("lookup", {"key": "k"}), "done"
    )
    result = await _agent(model, log).run("go")
    kinds = [type(r) for r in tool_results(result.all_messages())]
    assert kinds == [RetryPromptPart, ToolReturnPart]
    assert tool_results(result.all_messages()[:2]) == []  # the prompt and the first call


async def test_a_callable_when_done_reacts_to_every_request() -> None:
    log: list[str] = []
    asked: list[tuple[str, list[str], int]] = []

    def react(request: ScriptedRequest) -> Reply:
        asked.append((request.prompt, request.tools, len(request.results)))
        if request.results:
            return f"got {request.results[0].content}"
        return ScriptedCall("lookup", {"key": request.prompt})

    agent = _agent(ScriptedModel(when_done=react), log)
    first = await agent.run("a")
    second = await agent.run(["b", BinaryContent(b"x", media_type="image/png")])
    assert (first.output, second.output) == ("got value of a", "got value of b")
    assert log == ["a", "b"]
    # a request bringing tool results back carries no prompt text; media is not text
    assert asked == [
        ("a", ["lookup"], 0),
        ("", ["lookup"], 1),
        ("b", ["lookup"], 0),
        ("", ["lookup"], 1),
    ]


async def test_returned_and_retried_read_what_the_tools_sent_back() -> None:
    log: list[str] = []
    model = ScriptedModel(
        ScriptedCall("lookup", {"key": "missing"}),
        ScriptedCall("lookup", {"key": "k"}),
        ScriptedCall("lookup", {}),  # no key: pydantic-ai refuses the arguments
        "done",
    )
    await _agent(model, log).run("go")
    assert log == ["missing", "k"]  # the call without its argument never ran
    assert model.returned() == ["value of k"]
    refusal, invalid = model.retried()
    assert refusal == "no missing"  # a tool's own refusal, word for word
    assert "key" in invalid
    assert "Field required" in invalid  # the validation errors, as the model reads them


def test_a_model_that_answered_nothing_yet_reports_empty_readings() -> None:
    model = ScriptedModel("unused")
    assert (model.served, model.seen, model.offered) == (0, [], [])
    assert (model.tool_results(), model.returned(), model.retried()) == ([], [], [])
