"""LimitRecoveryCapability on a bare pydantic-ai Agent: the seam decides, never recovers."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.usage import UsageLimits

from akgentic.llm.capabilities.budget import LifetimeBudgetCapability
from akgentic.llm.capabilities.errors import AgentUsageLimitError
from akgentic.llm.capabilities.limit_recovery import (
    DEFAULT_CONCLUSION_REASON,
    ConclusionDecision,
    LimitRecoveryCapability,
)
from akgentic.llm.config import AgentUsageLimits


class CountingPolicy(LimitRecoveryCapability):
    def __init__(self, decision: ConclusionDecision | None) -> None:
        super().__init__()
        self.decision = decision
        self.consulted: list[UsageLimitExceeded] = []

    async def handle_limit_exceeded(
        self, ctx: Any, *, error: UsageLimitExceeded
    ) -> ConclusionDecision | None:
        self.consulted.append(error)
        return self.decision


def _looping_agent(scripted: Any, *capabilities: Any) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(scripted(tool_loop=True).model, capabilities=[*capabilities])

    @agent.tool_plain
    def lookup(q: str) -> str:
        return "more"

    return agent


def test_default_decision_uses_the_single_default_reason() -> None:
    assert ConclusionDecision().reason == DEFAULT_CONCLUSION_REASON
    assert DEFAULT_CONCLUSION_REASON.strip()


async def test_default_policy_records_a_conclusion_and_still_raises(scripted: Any) -> None:
    recovery = LimitRecoveryCapability()
    agent = _looping_agent(scripted, recovery)
    with pytest.raises(UsageLimitExceeded) as info:
        await agent.run("go", usage_limits=UsageLimits(request_limit=2))
    decision = recovery.take_decision(info.value)
    assert decision == ConclusionDecision(reason=DEFAULT_CONCLUSION_REASON)
    # taken once: the record is consumed
    assert recovery.take_decision(info.value) is None


async def test_decision_is_bound_to_the_exact_error(scripted: Any) -> None:
    recovery = LimitRecoveryCapability()
    agent = _looping_agent(scripted, recovery)
    with pytest.raises(UsageLimitExceeded):
        await agent.run("go", usage_limits=UsageLimits(request_limit=1))
    unrelated = UsageLimitExceeded("some other breach")
    assert recovery.take_decision(unrelated) is None


async def test_declining_policy_records_none(scripted: Any) -> None:
    policy = CountingPolicy(None)
    agent = _looping_agent(scripted, policy)
    with pytest.raises(UsageLimitExceeded) as info:
        await agent.run("go", usage_limits=UsageLimits(tool_calls_limit=1))
    assert policy.consulted == [info.value]
    assert policy.take_decision(info.value) is None


async def test_custom_reason_is_recorded(scripted: Any) -> None:
    policy = CountingPolicy(ConclusionDecision(reason="wrap it up"))
    agent = _looping_agent(scripted, policy)
    with pytest.raises(UsageLimitExceeded) as info:
        await agent.run("go", usage_limits=UsageLimits(request_limit=1))
    assert policy.take_decision(info.value) == ConclusionDecision(reason="wrap it up")


async def test_other_errors_never_reach_the_seam(scripted: Any) -> None:
    policy = CountingPolicy(ConclusionDecision())
    failing = scripted(fail_with=RuntimeError("provider down"))
    agent: Agent[None, str] = Agent(failing.model, capabilities=[policy])
    with pytest.raises(RuntimeError):
        await agent.run("go")
    assert policy.consulted == []


async def test_agent_tier_refusal_never_reaches_the_seam(scripted: Any) -> None:
    policy = CountingPolicy(ConclusionDecision())
    budget = LifetimeBudgetCapability(AgentUsageLimits(agent_request_limit=1))
    agent = _looping_agent(scripted, budget, policy)
    with pytest.raises(UsageLimitExceeded):
        await agent.run("first", usage_limits=UsageLimits(request_limit=1))
    policy.consulted.clear()
    with pytest.raises(AgentUsageLimitError) as info:
        await agent.run("second", usage_limits=UsageLimits(request_limit=1))
    assert policy.consulted == []
    assert policy.take_decision(info.value) is None


async def test_concurrent_breaches_keep_their_own_decisions(scripted: Any) -> None:
    import asyncio

    reasons = iter(["first", "second"])

    class Named(LimitRecoveryCapability):
        async def handle_limit_exceeded(self, ctx: Any, *, error: Any) -> ConclusionDecision:
            return ConclusionDecision(reason=next(reasons))

    policy = Named()
    agent = _looping_agent(scripted, policy)
    results = await asyncio.gather(
        agent.run("a", usage_limits=UsageLimits(request_limit=1)),
        agent.run("b", usage_limits=UsageLimits(request_limit=1)),
        return_exceptions=True,
    )
    errors = [r for r in results if isinstance(r, UsageLimitExceeded)]
    assert len(errors) == 2
    taken = {policy.take_decision(e).reason for e in errors}  # type: ignore[union-attr]
    assert taken == {"first", "second"}


async def test_untaken_decisions_are_bounded(scripted: Any) -> None:
    recovery = LimitRecoveryCapability()
    agent = _looping_agent(scripted, recovery)
    errors = []
    for _ in range(70):
        with pytest.raises(UsageLimitExceeded) as info:
            await agent.run("go", usage_limits=UsageLimits(request_limit=1))
        errors.append(info.value)
    assert recovery.take_decision(errors[0]) is None  # evicted
    assert recovery.take_decision(errors[-1]) == ConclusionDecision()


def test_limit_message_strips_only_pydantic_ais_hint() -> None:
    from akgentic.llm.capabilities.errors import limit_message

    hinted = UsageLimitExceeded("Exceeded the total_tokens_limit of 10 (total_tokens=12)")
    assert "ai.pydantic.dev" in str(hinted)
    assert limit_message(hinted) == "Exceeded the total_tokens_limit of 10 (total_tokens=12)"

    class Plain(UsageLimitExceeded):
        """A subclass that words its own message, without the hint."""

        def __str__(self) -> str:
            return "custom breach"

    assert limit_message(Plain("ignored")) == "custom breach"
