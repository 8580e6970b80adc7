"""restore_context against tampered, damaged or interrupted event logs (issue 20, finding 5).

Each test plays a real ReactAgent on a scripted FunctionModel, keeps its persisted log, damages
the log the way a prompt-injected writer, a lossy store or a crash would, restores a fresh
agent from it and then runs it. Before the fix every one of these restores either succeeded
silently into a wrong state or left an agent whose next run failed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from akgentic.llm import (
    AgentUsageLimits,
    CompactionConfig,
    ModelConfig,
    ReactAgent,
    ReactAgentConfig,
)
from akgentic.llm.capabilities.errors import AgentUsageLimitError
from akgentic.llm.capabilities.healing import INTERRUPTED_CALL_MESSAGE
from akgentic.llm.event import LlmMessageEvent, LlmUsageEvent, ToolCallEvent


def _provider_check(messages: list[ModelMessage]) -> None:
    """What a provider enforces: every tool call answered once, no answer without its call."""
    open_calls: set[str] = set()
    for message in messages:
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                open_calls.add(part.tool_call_id)
            elif isinstance(part, ToolReturnPart | RetryPromptPart) and part.tool_name:
                if part.tool_call_id not in open_calls:
                    raise AssertionError(f"orphan tool result {part.tool_call_id}")
                open_calls.discard(part.tool_call_id)
        if isinstance(message, ModelRequest) and open_calls and message is not messages[-1]:
            raise AssertionError(f"unanswered tool calls {sorted(open_calls)}")


@dataclass
class Script:
    """Calls ``lookup`` ``tools`` times (when offered), then answers; checks each history."""

    tools: int = 0
    input_tokens: int = 100
    made: int = 0
    seen: list[list[ModelMessage]] = field(default_factory=list)

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.made += 1
        self.seen.append(list(messages))
        _provider_check(messages)
        usage = RequestUsage(input_tokens=self.input_tokens, output_tokens=5)
        if info.function_tools and self.made <= self.tools:
            call = ToolCallPart("lookup", {"n": self.made}, tool_call_id=f"t{self.made}")
            return ModelResponse(parts=[call], usage=usage)
        return ModelResponse(parts=[TextPart(f"answer {self.made}")], usage=usage)


Build = Callable[..., ReactAgent]


@pytest.fixture
def build(make_agent: Callable[..., ReactAgent]) -> Build:
    def factory(
        script: Script,
        *,
        limits: AgentUsageLimits | None = None,
        compaction: CompactionConfig | None = None,
        observer: Any = None,
    ) -> ReactAgent:
        config = ReactAgentConfig(
            model_cfg=ModelConfig(provider="openai", model="gpt-4o", context_length=1000),
            agent_usage_limits=limits or AgentUsageLimits(),
            compaction_cfg=compaction or CompactionConfig(strategy="none"),
        )
        agent = make_agent(config, observer=observer)

        @agent.pydantic_agent.tool_plain
        def lookup(n: int) -> str:
            return f"value {n}"

        agent.pydantic_agent.model = FunctionModel(script.respond)
        return agent

    return factory


def _dump(messages: list[ModelMessage]) -> Any:
    return ModelMessagesTypeAdapter.dump_python(messages, mode="json")


async def _live_log(
    build: Build, new_log: Any, *, runs: int = 2, tools: int = 1
) -> tuple[ReactAgent, Any]:
    log = new_log()
    live = build(Script(tools=tools), observer=log)
    for index in range(runs):
        live.pydantic_agent.model = FunctionModel(Script(tools=tools).respond)
        await live.run(f"question {index}")
    return live, log


# ------------------------------------------------------------------ the budget


async def test_negative_usage_event_is_refused_and_does_not_lift_a_spent_budget(
    build: Build,
    new_log: Any,
) -> None:
    limits = AgentUsageLimits(total_tokens_limit=150)
    log = new_log()
    live = build(Script(input_tokens=200), limits=limits, observer=log)
    await live.run("spends 205 tokens: the budget is now spent")
    with pytest.raises(AgentUsageLimitError):
        await live.run("refused")

    forged = [*log.events, LlmUsageEvent("forged", "m", None, -(10**9), 0)]
    restored = build(Script(), limits=limits)
    with pytest.raises(ValueError, match=r"event #\d+: LlmUsageEvent.input_tokens is -1000000000"):
        restored.restore_context(forged)
    assert restored.context.messages == []  # nothing of the stream was applied

    restored.restore_context(log.events)
    with pytest.raises(AgentUsageLimitError):
        await restored.run("still refused")


async def test_dropped_usage_events_do_not_lift_a_spent_budget(build: Build, new_log: Any) -> None:
    limits = AgentUsageLimits(total_tokens_limit=150, agent_request_limit=1)
    log = new_log()
    live = build(Script(input_tokens=200), limits=limits, observer=log)
    await live.run("spends the whole budget")

    lossy = [event for event in log.events if not isinstance(event, LlmUsageEvent)]
    script = Script()
    restored = build(script, limits=limits)
    restored.restore_context(lossy)
    # The response's own usage stands in for its lost event: tokens and the run are counted.
    assert restored.lifetime_budget.total_tokens == live.lifetime_budget.total_tokens == 205
    assert restored.lifetime_budget.run_count == 1
    with pytest.raises(AgentUsageLimitError):
        await restored.run("must be refused")
    assert script.made == 0


async def test_a_shrunk_usage_event_counts_what_the_response_reports(
    build: Build, new_log: Any
) -> None:
    log = new_log()
    live = build(Script(input_tokens=200), observer=log)
    await live.run("one")
    shrunk = [
        LlmUsageEvent(e.run_id, e.model_name, e.provider_name, 0, 0)
        if isinstance(e, LlmUsageEvent)
        else e
        for e in log.events
    ]
    restored = build(Script())
    restored.restore_context(shrunk)
    assert restored.lifetime_budget.total_tokens == 205


# ------------------------------------------------------------- duplicates


async def test_a_log_delivered_twice_restores_once(build: Build, new_log: Any) -> None:
    live, log = await _live_log(build, new_log)
    restored = build(Script())
    restored.restore_context([*log.events, *copy.deepcopy(log.events)])
    assert _dump(restored.context.messages) == _dump(live.context.messages)
    assert restored.lifetime_budget.run_count == live.lifetime_budget.run_count == 2
    assert restored.lifetime_budget.total_tokens == live.lifetime_budget.total_tokens


async def test_every_event_delivered_twice_restores_once(build: Build, new_log: Any) -> None:
    live, log = await _live_log(build, new_log)
    doubled = [copy.deepcopy(e) for event in log.events for e in (event, event)]
    restored = build(Script())
    restored.restore_context(doubled)
    assert _dump(restored.context.messages) == _dump(live.context.messages)
    assert restored.lifetime_budget.total_tokens == live.lifetime_budget.total_tokens
    assert restored.lifetime_budget.usage.requests == live.lifetime_budget.usage.requests
    await restored.run("and it runs on")  # a doubled history would carry duplicate call ids


# ---------------------------------------------------------------- types


async def test_plain_dicts_are_refused_with_the_index_and_the_type(
    build: Build, new_log: Any
) -> None:
    _, log = await _live_log(build, new_log, runs=1, tools=0)
    as_dicts = [{"kind": type(e).__name__, "data": repr(e)} for e in log.events]
    restored = build(Script())
    with pytest.raises(TypeError, match=r"event #0: got a dict, expected an akgentic.llm event"):
        restored.restore_context(as_dicts)


async def test_a_message_event_carrying_a_dict_fails_at_restore_not_at_the_next_run(
    build: Build,
    new_log: Any,
) -> None:
    _, log = await _live_log(build, new_log, runs=1, tools=0)
    index = next(i for i, e in enumerate(log.events) if isinstance(e, LlmMessageEvent))
    event = log.events[index]
    assert isinstance(event, LlmMessageEvent)
    as_json = _dump([event.message])[0]
    damaged = list(log.events)
    damaged[index] = LlmMessageEvent(message=as_json, run_id=event.run_id)
    restored = build(Script())
    with pytest.raises(
        TypeError,
        match=rf"event #{index}: LlmMessageEvent.message is a dict, expected a pydantic-ai "
        "ModelRequest or ModelResponse",
    ):
        restored.restore_context(damaged)


def test_a_part_of_the_wrong_kind_is_refused(build: Build) -> None:
    bad = ModelRequest(parts=[TextPart("a response part in a request")])  # type: ignore[list-item]
    restored = build(Script())
    with pytest.raises(TypeError, match=r"event #0: LlmMessageEvent.message.parts\[0\] is a "):
        restored.restore_context([LlmMessageEvent(bad)])


# ----------------------------------------------------------------- order


async def test_a_tool_result_before_its_call_is_refused(build: Build, new_log: Any) -> None:
    _, log = await _live_log(build, new_log, runs=1, tools=1)
    messages = [i for i, e in enumerate(log.events) if isinstance(e, LlmMessageEvent)]
    call_at, answer_at = messages[1], messages[2]  # response with the call, request with its result
    swapped = list(log.events)
    swapped[call_at], swapped[answer_at] = swapped[answer_at], swapped[call_at]
    restored = build(Script())
    with pytest.raises(ValueError, match=rf"event #{call_at}: the request answers tool call 't1'"):
        restored.restore_context(swapped)


# ------------------------------------------------------- interrupted calls


async def test_a_history_ending_mid_call_is_healed_before_the_first_run(
    build: Build, new_log: Any
) -> None:
    _, log = await _live_log(build, new_log, runs=1, tools=1)
    # The process died while the tool ran: the log stops after the call's own events.
    call = next(i for i, e in enumerate(log.events) if isinstance(e, ToolCallEvent))
    died = log.events[: call + 2]
    assert isinstance(died[-1], LlmUsageEvent)

    after = new_log()
    script = Script()
    restored = build(script, observer=after)
    restored.restore_context(died)
    heal = after.events[0]  # observed (so persisted): the next restore is whole
    assert isinstance(heal, LlmMessageEvent)
    assert isinstance(heal.message, ModelRequest)
    assert await restored.run("go on") == "answer 1"  # was UserError: unprocessed tool calls
    (part,) = [
        p
        for m in script.seen[0]
        for p in m.parts
        if isinstance(p, ToolReturnPart) and p.tool_call_id == "t1"
    ]
    assert (part.tool_call_id, part.content) == ("t1", INTERRUPTED_CALL_MESSAGE)

    # The heal and the run were persisted: restoring the whole log again needs no new heal.
    again_log = new_log()
    again = build(Script(), observer=again_log)
    again.restore_context([*died, *after.events])
    assert again_log.events == []
    assert _dump(again.context.messages) == _dump(restored.context.messages)


async def test_without_the_heal_pydantic_ai_refuses_the_same_history(
    build: Build, new_log: Any
) -> None:
    # The counter-case: the restored history, handed over raw, is what pydantic-ai rejects.
    _, log = await _live_log(build, new_log, runs=1, tools=1)
    call = next(i for i, e in enumerate(log.events) if isinstance(e, ToolCallEvent))
    raw = [e.message for e in log.events[: call + 2] if isinstance(e, LlmMessageEvent)]
    agent = build(Script())
    agent.context.restore(raw)
    with pytest.raises(UserError, match="unprocessed tool calls"):
        await agent.run("go on")


# ------------------------------------------------------------ sliding window


def _turns_ending_mid_call() -> list[ModelMessage]:
    usage = RequestUsage(input_tokens=900, output_tokens=5)
    history: list[ModelMessage] = [ModelRequest(parts=[SystemPromptPart("sys")])]
    for n in range(3):
        history += [
            ModelRequest(parts=[UserPromptPart(f"q{n}")]),
            ModelResponse(parts=[ToolCallPart("lookup", {"n": n}, tool_call_id=f"c{n}")]),
            ModelRequest(parts=[ToolReturnPart("lookup", f"v{n}", tool_call_id=f"c{n}")]),
            ModelResponse(parts=[TextPart(f"a{n}")], usage=usage),
        ]
    history.append(ModelResponse(parts=[ToolCallPart("lookup", {}, tool_call_id="dead")]))
    history.append(ModelRequest(parts=[UserPromptPart("operator: are you there?")]))
    return history


@pytest.mark.parametrize("keep", [1, 2, 3, 5])
async def test_sliding_window_never_keeps_an_unanswered_call(build: Build, keep: int) -> None:
    compaction = CompactionConfig(strategy="sliding_window", keep_recent_messages=keep)
    script = Script()
    agent = build(script, compaction=compaction)
    agent.context.restore(_turns_ending_mid_call())  # raw: no heal, as a crash can leave it
    await agent.acompact()
    history = agent.context.messages
    _provider_check([*history, ModelRequest(parts=[UserPromptPart("next")])])
    assert all(
        p.tool_call_id != "dead" for m in history for p in m.parts if isinstance(p, ToolCallPart)
    )
    assert history[-1].parts[-1] == UserPromptPart(
        "operator: are you there?", timestamp=history[-1].parts[-1].timestamp
    )
    await agent.run("carry on")  # the strict model accepted the folded history
    assert script.made == 1
