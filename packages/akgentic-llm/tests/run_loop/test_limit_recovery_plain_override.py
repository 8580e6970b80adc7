"""``handle_limit_exceeded`` is a coroutine; a plain ``def`` override is honoured as well."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai.models.test import TestModel

from akgentic.llm import (
    ConclusionDecision,
    LimitRecoveryCapability,
    ReactAgent,
    ReactAgentConfig,
    RunUsageLimitError,
    RunUsageLimits,
)


def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"notes on {topic}"


class PlainConcludes(LimitRecoveryCapability):
    def handle_limit_exceeded(self, ctx: Any, *, error: Any) -> ConclusionDecision:  # type: ignore[override]
        return ConclusionDecision(reason="answer now")


class PlainDeclines(LimitRecoveryCapability):
    def handle_limit_exceeded(self, ctx: Any, *, error: Any) -> None:  # type: ignore[override]
        return None


class AsyncConcludes(LimitRecoveryCapability):
    async def handle_limit_exceeded(self, ctx: Any, *, error: Any) -> ConclusionDecision:
        return ConclusionDecision(reason="answer now")


_CONFIG = ReactAgentConfig(run_usage_limits=RunUsageLimits(run_request_limit=1))


@pytest.mark.parametrize("policy", [PlainConcludes, AsyncConcludes])
def test_a_concluding_override_answers(policy: type[LimitRecoveryCapability]) -> None:
    agent = ReactAgent(_CONFIG, tools=[lookup], limit_recovery=policy(), model=TestModel())
    try:
        assert isinstance(agent.run_sync("research"), str)
    finally:
        agent.close()


def test_a_plain_declining_override_raises_the_breach() -> None:
    agent = ReactAgent(_CONFIG, tools=[lookup], limit_recovery=PlainDeclines(), model=TestModel())
    try:
        with pytest.raises(RunUsageLimitError, match="request_limit"):
            agent.run_sync("research")
    finally:
        agent.close()


class RecordsDeps(LimitRecoveryCapability):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Any] = []

    async def handle_limit_exceeded(self, ctx: Any, *, error: Any) -> ConclusionDecision:
        self.seen.append(ctx.deps)
        return ConclusionDecision(reason="answer now")


def test_the_policy_sees_the_runs_context() -> None:
    policy = RecordsDeps()
    agent = ReactAgent(
        _CONFIG, deps_type=str, tools=[lookup], limit_recovery=policy, model=TestModel()
    )
    try:
        agent.run_sync("research", deps="alice")
    finally:
        agent.close()
    assert policy.seen == ["alice"]
