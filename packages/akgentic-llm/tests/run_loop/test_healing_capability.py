"""HealingCapability on a bare pydantic-ai Agent: dangling tool calls get one answer each."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UsageLimitExceeded, UserError
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import UsageLimits

from akgentic.llm.capabilities.errors import RUN_LIMIT_HEALING_MESSAGE
from akgentic.llm.capabilities.event_sourcing import EventSourcingCapability
from akgentic.llm.capabilities.healing import (
    HealingCapability,
    dangling_tool_calls,
    healing_message,
)
from akgentic.llm.capabilities.limit_recovery import (
    ConclusionDecision,
    LimitRecoveryCapability,
)
from akgentic.llm.context import ContextManager
from akgentic.llm.event import LlmMessageEvent, ToolReturnEvent
from akgentic.llm.testing import ScriptedCall, ScriptedModel


def _parallel_calls(messages: list[Any], info: AgentInfo) -> ModelResponse:
    return ModelResponse(
        parts=[
            ToolCallPart("lookup", {"q": "a"}, tool_call_id="a"),
            ToolCallPart("lookup", {"q": "b"}, tool_call_id="b"),
        ]
    )


def _agent(model: Any, context: ContextManager, *extra: Any) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(
        model,
        capabilities=[EventSourcingCapability(context), *extra, HealingCapability(context)],
    )

    @agent.tool_plain
    def lookup(q: str) -> str:
        return f"found {q}"

    return agent


async def test_tool_call_breach_heals_every_dangling_call(recorder: Any) -> None:
    context = ContextManager()
    context.subscribe(recorder)
    agent = _agent(FunctionModel(_parallel_calls), context)
    with pytest.raises(UsageLimitExceeded):
        await agent.run("go", usage_limits=UsageLimits(tool_calls_limit=1))

    healed = context.messages[-1]
    assert isinstance(healed, ModelRequest)
    returns = [p for p in healed.parts if isinstance(p, ToolReturnPart)]
    assert [(p.tool_call_id, p.content) for p in returns] == [
        ("a", RUN_LIMIT_HEALING_MESSAGE),
        ("b", RUN_LIMIT_HEALING_MESSAGE),
    ]
    # persisted and observed like any message: message event first, then one return each
    tail = recorder.events[-3:]
    assert isinstance(tail[0], LlmMessageEvent)
    assert tail[0].message is healed
    assert [(e.tool_call_id, e.success) for e in tail[1:]] == [("a", True), ("b", True)]
    assert all(isinstance(e, ToolReturnEvent) for e in tail[1:])
    assert dangling_tool_calls(context.messages) == []


async def test_without_healing_the_next_run_is_rejected_and_with_it_runs() -> None:
    broken = ContextManager()
    bare: Agent[None, str] = Agent(
        FunctionModel(_parallel_calls), capabilities=[EventSourcingCapability(broken)]
    )

    @bare.tool_plain
    def lookup(q: str) -> str:
        return q

    with pytest.raises(UsageLimitExceeded):
        await bare.run("go", usage_limits=UsageLimits(tool_calls_limit=1))
    answer = Agent(ScriptedModel("done"))
    with pytest.raises(UserError, match="unprocessed tool calls"):
        await answer.run("next", message_history=broken.messages)

    healed = ContextManager()
    agent = _agent(FunctionModel(_parallel_calls), healed)
    with pytest.raises(UsageLimitExceeded):
        await agent.run("go", usage_limits=UsageLimits(tool_calls_limit=1))
    result = await answer.run("next", message_history=healed.messages)
    assert result.output == "done"


async def test_request_limit_breach_leaves_nothing_to_heal(scripted: Any) -> None:
    context = ContextManager()
    agent = _agent(scripted(tool_loop=True).model, context)
    with pytest.raises(UsageLimitExceeded):
        await agent.run("go", usage_limits=UsageLimits(request_limit=2))
    # the breach happened before a request, after the tool results were recorded
    assert isinstance(context.messages[-1], ModelRequest)
    assert all(
        p.content != RUN_LIMIT_HEALING_MESSAGE
        for m in context.messages
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    )


async def test_other_failures_heal_with_a_failure_sentence() -> None:
    calls = 0

    def call_then_fail(messages: list[Any], info: AgentInfo) -> ModelResponse:
        nonlocal calls
        calls += 1
        if calls == 1:
            return ModelResponse(parts=[ToolCallPart("explode", {}, tool_call_id="x")])
        raise AssertionError("unreachable")

    context = ContextManager()
    agent: Agent[None, str] = Agent(
        FunctionModel(call_then_fail),
        capabilities=[EventSourcingCapability(context), HealingCapability(context)],
    )

    @agent.tool_plain
    def explode() -> str:
        raise ConnectionError("backend gone")

    with pytest.raises(ConnectionError):
        await agent.run("go")
    healed = context.messages[-1]
    assert isinstance(healed, ModelRequest)
    (part,) = healed.parts
    assert isinstance(part, ToolReturnPart)
    assert part.tool_call_id == "x"
    assert part.content == healing_message(ConnectionError())
    assert "ConnectionError" in str(part.content)


async def test_successful_runs_are_untouched(scripted: Any) -> None:
    context = ContextManager()
    agent = _agent(scripted().model, context)
    result = await agent.run("hello")
    assert context.messages == result.all_messages()


def test_dangling_detection_ignores_answered_calls() -> None:
    messages = [
        ModelRequest(parts=[UserPromptPart("q")]),
        ModelResponse(
            parts=[ToolCallPart("t", {}, tool_call_id="1"), ToolCallPart("t", {}, tool_call_id="2")]
        ),
        ModelRequest(parts=[ToolReturnPart("t", "ok", tool_call_id="1")]),
    ]
    assert [c.tool_call_id for c in dangling_tool_calls(messages)] == ["2"]
    assert dangling_tool_calls(messages[:1]) == []


def test_healing_messages_by_failure_kind() -> None:
    assert healing_message(UsageLimitExceeded("x")) == RUN_LIMIT_HEALING_MESSAGE
    assert "cancelled" in healing_message(asyncio.CancelledError())
    assert "ValueError" in healing_message(ValueError())


async def test_policy_reads_the_healed_context(recorder: Any) -> None:
    """Recovery sits before healing, so its on_run_error fires after healing wrote."""
    context = ContextManager()
    seen: list[list[Any]] = []

    class Inspecting(LimitRecoveryCapability):
        async def handle_limit_exceeded(self, ctx: Any, *, error: Any) -> ConclusionDecision:
            seen.append(dangling_tool_calls(context.messages))
            return ConclusionDecision()

    agent = _agent(FunctionModel(_parallel_calls), context, Inspecting())
    with pytest.raises(UsageLimitExceeded):
        await agent.run("go", usage_limits=UsageLimits(tool_calls_limit=1))
    assert seen == [[]]


async def test_policy_after_healing_would_see_the_dangling_calls() -> None:
    """The counter-case: with the order swapped, the policy is consulted before healing."""
    context = ContextManager()
    seen: list[int] = []

    class Inspecting(LimitRecoveryCapability):
        async def handle_limit_exceeded(self, ctx: Any, *, error: Any) -> ConclusionDecision:
            seen.append(len(dangling_tool_calls(context.messages)))
            return ConclusionDecision()

    agent: Agent[None, str] = Agent(
        FunctionModel(_parallel_calls),
        capabilities=[EventSourcingCapability(context), HealingCapability(context), Inspecting()],
    )

    @agent.tool_plain
    def lookup(q: str) -> str:
        return q

    with pytest.raises(UsageLimitExceeded):
        await agent.run("go", usage_limits=UsageLimits(tool_calls_limit=1))
    assert seen == [2]


async def test_cancelled_run_is_healed() -> None:
    context = ContextManager()
    started = asyncio.Event()
    agent: Agent[None, str] = Agent(
        ScriptedModel(ScriptedCall("hang", {}, "h")),
        capabilities=[EventSourcingCapability(context), HealingCapability(context)],
    )

    @agent.tool_plain
    async def hang() -> str:
        started.set()
        await asyncio.Event().wait()
        return "never"

    task = asyncio.create_task(agent.run("go"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert dangling_tool_calls(context.messages) == []
    last = context.messages[-1]
    assert isinstance(last, ModelRequest)
    contents = [p.content for p in last.parts if isinstance(p, ToolReturnPart)]
    assert contents
    assert all("cancelled" in str(c) for c in contents)


async def test_response_discarded_by_a_token_breach_is_recorded_and_healed(
    recorder: Any, scripted: Any
) -> None:
    from akgentic.llm.capabilities.budget import LifetimeBudgetCapability
    from akgentic.llm.event import LlmUsageEvent

    context = ContextManager()
    context.subscribe(recorder)
    budget = LifetimeBudgetCapability()
    model = scripted(tool_loop=True, input_tokens=40, output_tokens=10)
    agent: Agent[None, str] = Agent(
        model.model,
        capabilities=[budget, EventSourcingCapability(context), HealingCapability(context)],
    )

    @agent.tool_plain
    def lookup(q: str) -> str:
        return q

    with pytest.raises(UsageLimitExceeded, match="total_tokens_limit"):
        await agent.run("go", usage_limits=UsageLimits(total_tokens_limit=60))
    # two responses were billed (50 tokens each); pydantic-ai appended only the first
    assert model.calls == 2
    responses = [m for m in context.messages if isinstance(m, ModelResponse)]
    assert [r.parts[0].tool_call_id for r in responses] == ["call-1", "call-2"]
    healed = context.messages[-1]
    assert isinstance(healed, ModelRequest)
    assert [(p.tool_call_id, p.content) for p in healed.parts] == [
        ("call-2", RUN_LIMIT_HEALING_MESSAGE)
    ]
    usage = recorder.of_type(LlmUsageEvent)
    assert sum(u.total_tokens for u in usage) == budget.total_tokens == 100
    # and the next run starts cleanly on top of it
    model.tool_loop = False
    result = await agent.run("next", message_history=context.messages)
    assert result.output == "final answer"


async def test_system_prompt_event_lands_ahead_of_the_healing_message(recorder: Any) -> None:
    from akgentic.llm.event import LlmSystemPromptEvent

    context = ContextManager()
    context.subscribe(recorder)
    agent: Agent[None, str] = Agent(
        FunctionModel(_parallel_calls),
        system_prompt="Be careful.",
        capabilities=[EventSourcingCapability(context), HealingCapability(context)],
    )

    @agent.tool_plain
    def lookup(q: str) -> str:
        return q

    with pytest.raises(UsageLimitExceeded):
        await agent.run("go", usage_limits=UsageLimits(tool_calls_limit=1))
    kinds = [type(e).__name__ for e in recorder.events]
    system_at = kinds.index("LlmSystemPromptEvent")
    healing_at = max(
        i
        for i, e in enumerate(recorder.events)
        if isinstance(e, LlmMessageEvent) and e.message is context.messages[-1]
    )
    assert system_at < healing_at
    assert len(recorder.of_type(LlmSystemPromptEvent)) == 1


async def test_a_response_the_window_slid_out_is_not_recorded_twice(scripted: Any) -> None:
    """Only a response missing from the RUN's history is recorded, whatever the window shows."""
    context = ContextManager(max_messages=1)
    log: list[Any] = []

    class Log:
        def notify_event(self, event: object) -> None:
            if isinstance(event, LlmMessageEvent):
                log.append(event.message)

    context.subscribe(Log())
    agent = _agent(scripted(tool_loop=True).model, context)
    with pytest.raises(UsageLimitExceeded):
        await agent.run("go", usage_limits=UsageLimits(request_limit=2))
    # every message persisted exactly once, none re-added by the healer
    assert len({id(m) for m in log}) == len(log)
    assert not any(
        isinstance(p, ToolReturnPart) and p.content == RUN_LIMIT_HEALING_MESSAGE
        for m in log
        for p in m.parts
    )


def test_a_call_reusing_an_answered_id_still_dangles() -> None:
    # some providers reuse call ids: an answer BEFORE a call does not answer it
    messages = [
        ModelResponse(parts=[ToolCallPart("t", {}, tool_call_id="same")]),
        ModelRequest(parts=[ToolReturnPart("t", "ok", tool_call_id="same")]),
        ModelResponse(parts=[ToolCallPart("t", {}, tool_call_id="same")]),
    ]
    assert dangling_tool_calls(messages) == [messages[2].parts[0]]


def test_the_repair_answers_each_call_under_its_tool_name() -> None:
    from akgentic.llm.capabilities.healing import answer_dangling_calls

    context = ContextManager()
    context.restore(
        [
            ModelRequest(parts=[UserPromptPart("q")]),
            ModelResponse(parts=[ToolCallPart("lookup", {}, tool_call_id="1")]),
        ]
    )
    request = answer_dangling_calls(context, "not run")
    assert request is not None
    assert [(p.tool_name, p.tool_call_id, p.content) for p in request.parts] == [
        ("lookup", "1", "not run")
    ]
