"""Run-tier recovery through ReactAgent: the four rows of "what a consumer has to handle".

| the turn                                         | run() does                   |
|--------------------------------------------------|------------------------------|
| runs normally                                    | returns the output           |
| breaches the run tier, seam accepts, concludes   | returns the conclusion       |
| seam declines / conclusion fails / is empty      | re-raises the ORIGINAL breach|
| breaches the agent tier                          | raises pre-flight, terminal  |
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ToolReturnPart
from pydantic_ai.profiles import ModelProfile
from pydantic_ai.usage import RequestUsage

from akgentic.llm.capabilities.errors import (
    RUN_LIMIT_HEALING_MESSAGE,
    AgentUsageLimitError,
    RunUsageLimitError,
    UsageLimitError,
)
from akgentic.llm.capabilities.limit_recovery import (
    DEFAULT_CONCLUSION_REASON,
    ConclusionDecision,
    LimitRecoveryCapability,
)
from akgentic.llm.config import AgentUsageLimits, ModelConfig, ReactAgentConfig, RunUsageLimits
from akgentic.llm.event import LlmMessageEvent, LlmUsageEvent
from akgentic.llm.testing import Reply, ScriptedCall, ScriptedModel, ScriptedRequest


@dataclass
class Agentic:
    """Calls a tool whenever tools are offered; answers ``conclusion`` when none are."""

    conclusion: str = "Concluded from what I had."
    loop_forever: bool = True
    tool_requests: int = 0
    tool_free_requests: int = 0
    tool_free_prompts: list[str] = field(default_factory=list)
    tool_free_histories: list[list[ModelMessage]] = field(default_factory=list)

    def respond(self, request: ScriptedRequest) -> Reply:
        info = request.info
        if request.tools:
            self.tool_requests += 1
            if self.loop_forever or self.tool_requests == 1:
                n = self.tool_requests
                return ScriptedCall("lookup", {"q": str(n)}, f"t{n}")
            return "normal answer"
        self.tool_free_requests += 1
        self.tool_free_histories.append(request.messages)
        if request.prompt:
            self.tool_free_prompts.append(request.prompt)
        if info.output_tools:
            # a structured conclusion: answer through the output tool
            args = {"title": "partial", "points": ["a"]}
            return ScriptedCall(info.output_tools[0].name, args, "out")
        if info.model_request_parameters.output_mode == "prompted":
            # a structured conclusion through prompt-based extraction: answer in JSON
            return '{"title": "partial", "points": ["a"]}'
        return self.conclusion

    def model(self) -> ScriptedModel:
        return ScriptedModel(
            when_done=self.respond,
            usage=RequestUsage(input_tokens=10, output_tokens=2),
            profile=ModelProfile(supports_json_schema_output=False),
        )


class NeverConcludes(LimitRecoveryCapability):
    async def handle_limit_exceeded(self, ctx: Any, *, error: UsageLimitExceeded) -> None:
        return None


class HouseStyle(LimitRecoveryCapability):
    async def handle_limit_exceeded(self, ctx: Any, *, error: UsageLimitExceeded) -> Any:
        return ConclusionDecision(reason="Budget spent; answer now with what you have.")


def _config(
    run: RunUsageLimits | None = None, agent: AgentUsageLimits | None = None
) -> ReactAgentConfig:
    return ReactAgentConfig(
        model_cfg=ModelConfig(provider="mistral", model="mistral-small-latest"),
        run_usage_limits=run or RunUsageLimits(tool_calls_limit=2),
        agent_usage_limits=agent or AgentUsageLimits(),
    )


@pytest.fixture
def build(make_agent: Callable[..., Any]) -> Callable[..., Any]:
    """ReactAgents whose model is the given script, with one ``lookup`` tool."""

    def factory(script: Agentic | None, config: ReactAgentConfig, **kwargs: Any) -> Any:
        agent = make_agent(config, **kwargs)

        @agent.pydantic_agent.tool_plain
        def lookup(q: str) -> str:
            return f"data {q}"

        if script is not None:
            agent.pydantic_agent.model = script.model()
        return agent

    return factory


# ------------------------------------------------------------------- row 1


async def test_row1_a_normal_turn_returns_its_output(build: Any) -> None:
    script = Agentic(loop_forever=False)
    agent = build(script, _config())
    assert await agent.run("question") == "normal answer"
    assert script.tool_free_requests == 0
    assert agent.lifetime_budget.run_count == 1


# ------------------------------------------------------------------- row 2


async def test_row2_breach_then_conclusion_returns_the_conclusion(
    build: Any, event_recorder: Any
) -> None:
    script = Agentic()
    agent = build(script, _config(), observer=event_recorder)
    answer = await agent.run("research this")
    assert answer == "Concluded from what I had."
    # the conclusion ran without tools, once, prompted with the default reason
    assert script.tool_free_requests == 1
    assert script.tool_free_prompts == [DEFAULT_CONCLUSION_REASON]
    # ...on top of the healed context: the healing return is the tool result it reasons from
    history = script.tool_free_histories[0]
    healed = [
        p.content
        for m in history
        for p in m.parts
        if isinstance(p, ToolReturnPart) and p.content == RUN_LIMIT_HEALING_MESSAGE
    ]
    assert len(healed) == 1


async def test_row2_rescued_turn_costs_two_units_of_the_agent_budget(build: Any) -> None:
    script = Agentic()
    agent = build(script, _config(agent=AgentUsageLimits(agent_request_limit=4)))
    await agent.run("first")
    assert agent.lifetime_budget.run_count == 2
    await agent.run("second")
    assert agent.lifetime_budget.run_count == 4
    with pytest.raises(AgentUsageLimitError) as info:
        await agent.run("third")
    assert str(info.value) == "Exceeded the agent_request_limit of 4 (run_count=4)"


async def test_row2_events_outer_run_then_healing_then_second_run_id(
    build: Any, event_recorder: Any
) -> None:
    script = Agentic()
    agent = build(script, _config(), observer=event_recorder)
    await agent.run("research this")
    messages = event_recorder.of_type(LlmMessageEvent)
    run_ids = list(dict.fromkeys(e.run_id for e in messages))
    assert len(run_ids) == 2
    outer, conclusion = run_ids
    # outer run's events, then the healing ToolReturnPart, then the conclusion's events
    healing_index = next(
        i
        for i, e in enumerate(messages)
        if any(
            isinstance(p, ToolReturnPart) and p.content == RUN_LIMIT_HEALING_MESSAGE
            for p in e.message.parts
        )
    )
    assert all(e.run_id == outer for e in messages[: healing_index + 1])
    assert all(e.run_id == conclusion for e in messages[healing_index + 1 :])
    assert messages[healing_index + 1 :]  # the conclusion emitted its own messages
    usage_runs = {e.run_id for e in event_recorder.of_type(LlmUsageEvent)}
    assert usage_runs == {outer, conclusion}
    # the whole exchange is persisted once, in order
    assert [e.message for e in messages] == agent.context.messages


async def test_row2_custom_reason_and_structured_output_type(build: Any) -> None:
    class Summary(BaseModel):
        title: str
        points: list[str]

    script = Agentic()
    agent = build(script, _config(), limit_recovery=HouseStyle())
    answer = await agent.run("summarise", output_type=Summary)
    assert answer == Summary(title="partial", points=["a"])
    assert script.tool_free_prompts == ["Budget spent; answer now with what you have."]


async def test_row2_same_deps_reach_the_conclusion(build: Any) -> None:
    seen_deps: list[Any] = []
    script = Agentic()
    agent = build(script, _config(), deps_type=dict)

    @agent.system_prompt
    def from_deps(ctx: Any) -> str:
        seen_deps.append(ctx.deps)
        return "deps-aware"

    deps = {"tenant": "acme"}
    await agent.run("go", deps)
    assert seen_deps
    assert all(d is deps for d in seen_deps)


# ------------------------------------------------------------------- row 3


async def test_row3_declined_seam_reraises_chained_from_pydantic_ai(build: Any) -> None:
    script = Agentic()
    agent = build(script, _config(), limit_recovery=NeverConcludes())
    with pytest.raises(RunUsageLimitError) as info:
        await agent.run("go")
    assert isinstance(info.value.__cause__, UsageLimitExceeded)
    assert str(info.value).startswith("The next tool call(s) would exceed the tool_calls_limit")
    assert "ai.pydantic.dev" not in str(info.value)
    assert script.tool_free_requests == 0  # nothing else happened
    assert agent.lifetime_budget.run_count == 1


async def test_row3_failed_conclusion_reraises_the_original_breach(build: Any) -> None:
    # The conclusion's own pre-flight is refused by the agent tier: still the ORIGINAL breach.
    script = Agentic()
    agent = build(script, _config(agent=AgentUsageLimits(agent_request_limit=1)))
    with pytest.raises(RunUsageLimitError) as info:
        await agent.run("go")
    assert "tool_calls_limit" in str(info.value)
    assert isinstance(info.value.__cause__, UsageLimitExceeded)
    assert "tool_calls_limit" in str(info.value.__cause__)
    assert script.tool_free_requests == 0


async def test_row3_conclusion_that_breaches_is_not_recovered_again(build: Any) -> None:
    """A conclusion that itself breaches raises; no third run is started."""
    calls: list[bool] = []

    def respond(request: ScriptedRequest) -> Reply:
        calls.append(bool(request.tools))
        # Without tools it still asks for one: an unknown tool, so pydantic-ai wants a retry,
        # which the conclusion's one-request budget cannot pay for.
        return ScriptedCall("lookup", {"q": "x"}, f"c{len(calls)}")

    agent = build(None, _config(run=RunUsageLimits(run_request_limit=2)))
    agent.pydantic_agent.model = ScriptedModel(when_done=respond)
    with pytest.raises(RunUsageLimitError) as info:
        await agent.run("go")
    assert str(info.value) == "The next request would exceed the request_limit of 2"
    assert calls == [True, True, False]
    assert agent.lifetime_budget.run_count == 2


@pytest.mark.parametrize("empty", ["", "   \n"])
async def test_row3_empty_conclusion_reraises_the_original_breach(build: Any, empty: str) -> None:
    script = Agentic(conclusion=empty)
    agent = build(script, _config())
    with pytest.raises(RunUsageLimitError) as info:
        await agent.run("go")
    assert "tool_calls_limit" in str(info.value)
    assert script.tool_free_requests == 1


async def test_row3_context_stays_runnable_after_a_surfaced_breach(build: Any) -> None:
    script = Agentic()
    agent = build(script, _config(), limit_recovery=NeverConcludes())
    with pytest.raises(RunUsageLimitError):
        await agent.run("go")
    script.loop_forever = False
    script.tool_requests = 0
    assert await agent.run("try again") == "normal answer"


# ------------------------------------------------------------------- row 4


async def test_row4_agent_tier_raises_preflight_and_never_reaches_the_seam(
    build: Any,
) -> None:
    consulted: list[Any] = []

    class Spy(LimitRecoveryCapability):
        async def handle_limit_exceeded(self, ctx: Any, *, error: UsageLimitExceeded) -> Any:
            consulted.append(error)
            return ConclusionDecision()

    script = Agentic(loop_forever=False)
    agent = build(
        script,
        _config(agent=AgentUsageLimits(agent_request_limit=1)),
        limit_recovery=Spy(),
    )
    await agent.run("the only run")
    requests_before = script.tool_requests + script.tool_free_requests
    with pytest.raises(AgentUsageLimitError) as info:
        await agent.run("refused")
    assert str(info.value) == "Exceeded the agent_request_limit of 1 (run_count=1)"
    assert consulted == []
    assert script.tool_requests + script.tool_free_requests == requests_before


# ------------------------------------------------------------------ the rest


async def test_every_outcome_is_caught_by_the_single_base(build: Any) -> None:
    script = Agentic()
    agent = build(
        script,
        _config(agent=AgentUsageLimits(agent_request_limit=2)),
        limit_recovery=NeverConcludes(),
    )
    caught: list[type] = []
    for _ in range(3):
        try:
            await agent.run("go")
        except UsageLimitError as exc:
            caught.append(type(exc))
    assert caught == [RunUsageLimitError, RunUsageLimitError, AgentUsageLimitError]


async def test_limit_recovery_keyword_is_the_only_mount_point(build: Any) -> None:
    # A decline policy passed through capabilities= sits beside the default one and is ignored.
    script = Agentic()
    agent = build(script, _config(), capabilities=[NeverConcludes()])
    assert await agent.run("go") == "Concluded from what I had."


async def test_direct_conclusion_removes_tools_and_spends_one_request(build: Any) -> None:
    script = Agentic()
    agent = build(script, _config())
    answer = await agent.conclude_without_tools("Wrap up.")
    assert answer == "Concluded from what I had."
    assert script.tool_requests == 0
    assert script.tool_free_prompts == ["Wrap up."]
    assert agent.lifetime_budget.run_count == 1
