"""LifetimeBudgetCapability on a bare pydantic-ai Agent: two tiers, pre-flight, accounting."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from akgentic.llm.capabilities.budget import LifetimeBudgetCapability
from akgentic.llm.capabilities.errors import AgentUsageLimitError, UsageLimitError
from akgentic.llm.config import AgentUsageLimits
from akgentic.llm.event import LlmMessageEvent, LlmUsageEvent


class WrapSpy(AbstractCapability[Any]):
    """Records every run that got past the capabilities mounted before it."""

    def __init__(self) -> None:
        self.entered = 0

    async def wrap_run(self, ctx: Any, *, handler: Any) -> Any:
        self.entered += 1
        return await handler()


def _agent(model: Any, budget: LifetimeBudgetCapability, *extra: Any) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(model.model, capabilities=[budget, *extra])

    @agent.tool_plain
    def lookup(q: str) -> str:
        return f"result for {q}"

    return agent


async def test_request_limit_refuses_after_budget_with_exact_message(scripted: Any) -> None:
    model = scripted()
    budget = LifetimeBudgetCapability(AgentUsageLimits(agent_request_limit=2))
    agent = _agent(model, budget)
    await agent.run("one")
    await agent.run("two")
    assert budget.run_count == 2

    with pytest.raises(AgentUsageLimitError) as info:
        await agent.run("three")
    assert str(info.value) == "Exceeded the agent_request_limit of 2 (run_count=2)"
    assert isinstance(info.value, UsageLimitError)
    assert not isinstance(info.value, UsageLimitExceeded)
    assert model.calls == 2  # the refused run never reached the model


async def test_rejections_consume_nothing_and_repeat_the_same_message(scripted: Any) -> None:
    budget = LifetimeBudgetCapability(AgentUsageLimits(agent_request_limit=1))
    agent = _agent(scripted(), budget)
    await agent.run("only")
    messages = []
    for _ in range(3):
        with pytest.raises(AgentUsageLimitError) as info:
            await agent.run("again")
        messages.append(str(info.value))
    assert messages == ["Exceeded the agent_request_limit of 1 (run_count=1)"] * 3
    assert budget.run_count == 1


async def test_refusal_happens_before_inner_capabilities(scripted: Any) -> None:
    spy = WrapSpy()
    budget = LifetimeBudgetCapability(AgentUsageLimits(agent_request_limit=1))
    agent = _agent(scripted(), budget, spy)
    await agent.run("first")
    with pytest.raises(AgentUsageLimitError):
        await agent.run("second")
    assert spy.entered == 1


async def test_a_failed_run_still_counts_and_its_tokens_are_folded(scripted: Any) -> None:
    model = scripted(fail_with=RuntimeError("provider down"))
    budget = LifetimeBudgetCapability(AgentUsageLimits(agent_request_limit=5))
    agent = _agent(model, budget)
    with pytest.raises(RuntimeError):
        await agent.run("boom")
    assert budget.run_count == 1

    looping = scripted(tool_loop=True, input_tokens=30, output_tokens=7)
    agent = _agent(looping, budget)
    with pytest.raises(UsageLimitExceeded):
        await agent.run("loop", usage_limits=UsageLimits(request_limit=3))
    assert budget.run_count == 2
    # three responses of 30 in / 7 out were received before the run-tier breach
    assert (budget.input_tokens, budget.output_tokens) == (90, 21)
    assert budget.total_tokens == 111


async def test_token_limit_lets_the_crossing_run_finish_then_refuses(scripted: Any) -> None:
    model = scripted(input_tokens=600, output_tokens=100)
    budget = LifetimeBudgetCapability(AgentUsageLimits(total_tokens_limit=1000))
    agent = _agent(model, budget)
    assert (await agent.run("first")).output == "final answer"  # 700 spent
    assert (await agent.run("second")).output == "final answer"  # 1400: overshoot
    with pytest.raises(AgentUsageLimitError) as info:
        await agent.run("third")
    assert str(info.value) == "Exceeded the total_tokens_limit of 1000 (total_tokens=1400)"
    assert model.calls == 2


@pytest.mark.parametrize(
    ("limits", "expected"),
    [
        (
            AgentUsageLimits(input_tokens_limit=50),
            "Exceeded the input_tokens_limit of 50 (input_tokens=60)",
        ),
        (
            AgentUsageLimits(output_tokens_limit=4),
            "Exceeded the output_tokens_limit of 4 (output_tokens=5)",
        ),
    ],
)
async def test_input_and_output_token_limits(
    scripted: Any, limits: AgentUsageLimits, expected: str
) -> None:
    budget = LifetimeBudgetCapability(limits)
    agent = _agent(scripted(input_tokens=60, output_tokens=5), budget)
    await agent.run("spend")
    with pytest.raises(AgentUsageLimitError) as info:
        await agent.run("refused")
    assert str(info.value) == expected


async def test_tokens_are_checked_first_and_a_token_refusal_costs_no_run(scripted: Any) -> None:
    budget = LifetimeBudgetCapability(
        AgentUsageLimits(agent_request_limit=1, total_tokens_limit=10)
    )
    agent = _agent(scripted(input_tokens=20, output_tokens=5), budget)
    await agent.run("spend it all")
    with pytest.raises(AgentUsageLimitError) as info:
        await agent.run("refused")
    # both halves are spent; the token half is reported
    assert str(info.value) == "Exceeded the total_tokens_limit of 10 (total_tokens=25)"
    assert budget.run_count == 1


async def test_token_refusal_does_not_consume_run_budget(scripted: Any) -> None:
    budget = LifetimeBudgetCapability(
        AgentUsageLimits(agent_request_limit=3, input_tokens_limit=10)
    )
    agent = _agent(scripted(input_tokens=20, output_tokens=1), budget)
    await agent.run("spend")
    for _ in range(4):
        with pytest.raises(AgentUsageLimitError, match="input_tokens_limit"):
            await agent.run("refused")
    assert budget.run_count == 1
    budget.limits = AgentUsageLimits(agent_request_limit=3)  # lift the token cap
    await agent.run("admitted")
    await agent.run("admitted")
    with pytest.raises(AgentUsageLimitError) as info:
        await agent.run("no more runs")
    assert str(info.value) == "Exceeded the agent_request_limit of 3 (run_count=3)"


async def test_no_limits_means_no_refusal_but_counting(scripted: Any) -> None:
    budget = LifetimeBudgetCapability()
    agent = _agent(scripted(input_tokens=3, output_tokens=2), budget)
    for _ in range(5):
        await agent.run("go")
    assert (budget.run_count, budget.total_tokens) == (5, 25)


def test_restore_recomputes_counters_from_usage_events() -> None:
    events: list[object] = [
        LlmUsageEvent("run-a", "m", None, 100, 10),
        LlmUsageEvent("run-a", "m", None, 120, 12),  # same run, second round-trip
        LlmUsageEvent("run-b", "m", None, 50, 5),
        "not an event",
    ]
    budget = LifetimeBudgetCapability(AgentUsageLimits(agent_request_limit=2))
    # A message event that carries no message is refused before any counter moves.
    broken = [*events[:2], LlmMessageEvent(message=None, run_id="run-b"), *events[2:]]  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"event #2: LlmMessageEvent\.message is a NoneType"):
        budget.restore(broken)
    assert (budget.run_count, budget.total_tokens) == (0, 0)
    budget.restore(events)
    assert budget.run_count == 2
    assert (budget.input_tokens, budget.output_tokens, budget.total_tokens) == (270, 27, 297)
    with pytest.raises(AgentUsageLimitError) as info:
        budget.check()
    assert str(info.value) == "Exceeded the agent_request_limit of 2 (run_count=2)"


async def test_concurrent_runs_cannot_share_the_last_unit(scripted: Any) -> None:
    import asyncio

    budget = LifetimeBudgetCapability(AgentUsageLimits(agent_request_limit=1))
    agent = _agent(scripted(), budget)
    results = await asyncio.gather(
        agent.run("a"), agent.run("b"), agent.run("c"), return_exceptions=True
    )
    refused = [r for r in results if isinstance(r, AgentUsageLimitError)]
    assert len(refused) == 2
    assert budget.run_count == 1


async def test_a_response_without_output_tokens_still_counts_its_input(scripted: Any) -> None:
    budget = LifetimeBudgetCapability()
    agent = _agent(scripted(input_tokens=7, output_tokens=0), budget)
    await agent.run("go")
    assert (budget.input_tokens, budget.output_tokens) == (7, 0)


def _two_lookups_then_answer() -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=10, output_tokens=1)
        asked = sum(isinstance(m, ModelResponse) for m in messages)
        if asked < 2:
            call = ToolCallPart("lookup", {"q": f"q{asked}"}, tool_call_id=f"c{asked}")
            return ModelResponse(parts=[call], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)

    return FunctionModel(respond)


async def test_every_request_of_every_run_is_counted_once() -> None:
    budget = LifetimeBudgetCapability()
    agent: Agent[None, str] = Agent(_two_lookups_then_answer(), capabilities=[budget])
    mid_run: list[tuple[int, int]] = []

    @agent.tool
    def lookup(ctx: RunContext[None], q: str) -> str:
        # the ledger, read while the run is going, agrees with the run's own record
        mid_run.append((budget.usage.requests, ctx.usage.requests))
        return f"result for {q}"

    seen: list[int] = []
    for _ in range(2):
        result = await agent.run("go")
        seen.append(result.usage.requests)
    assert seen == [3, 3]
    assert mid_run == [(1, 1), (2, 2), (4, 1), (5, 2)]
    assert (budget.usage.requests, budget.total_tokens) == (6, 66)


async def test_tokens_a_tool_spends_on_the_runs_account_are_folded_in() -> None:
    """A tool that delegates to another agent on ``ctx.usage`` adds to the run's own record,
    not through a model response of this run: the ledger reconciles it before the next
    request."""
    budget = LifetimeBudgetCapability()
    helper: Agent[None, str] = Agent(
        FunctionModel(
            lambda messages, info: ModelResponse(
                parts=[TextPart("helped")], usage=RequestUsage(input_tokens=50, output_tokens=7)
            )
        )
    )
    agent: Agent[None, str] = Agent(_two_lookups_then_answer(), capabilities=[budget])

    @agent.tool
    async def lookup(ctx: RunContext[None], q: str) -> str:
        return (await helper.run(q, usage=ctx.usage)).output

    await agent.run("go")
    # three own responses (10 in, 1 out each) and two delegated ones (50 in, 7 out each)
    assert (budget.input_tokens, budget.output_tokens) == (130, 17)
    assert budget.usage.requests == 5
