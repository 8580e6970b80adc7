"""The predecessor's names and shapes work, with real agents on pydantic-ai test models."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.usage import RunUsage

from akgentic.llm import (
    AgentUsageLimits,
    CompactionCapability,
    CompactionConfig,
    CompactionResult,
    ContextManager,
    EventSourcingCapability,
    HealingCapability,
    LifetimeBudgetCapability,
    LimitRecoveryCapability,
    LlmContextCompactedEvent,
    LlmUsageEvent,
    ModelConfig,
    PromptTemplate,
    ReactAgent,
    ReactAgentConfig,
    RunUsageSummary,
    aggregate_usage,
    create_model,
    create_model_settings,
    current_datetime_prompt,
    get_output_type,
    json_output_reminder_prompt,
)
from akgentic.llm.compaction import (
    NoCompaction,
    NoOpCompaction,
    SlidingWindowCompaction,
    SlidingWindowStrategy,
    SummarizingCompaction,
)
from akgentic.llm.prompts import DEFAULT_TEMPLATE


def _field_names(obj: Any) -> set[str]:
    return {f.name for f in dataclasses.fields(obj)}


def test_prompt_template_defaults_to_a_generic_assistant() -> None:
    template = PromptTemplate()
    assert template.render() == DEFAULT_TEMPLATE == "You are a useful assistant"
    assert PromptTemplate.model_validate(template.model_dump()) == template


def test_ready_made_prompts_take_an_optional_ctx(make_agent: Callable[..., ReactAgent]) -> None:
    assert current_datetime_prompt(None).startswith("The current date and time is")
    assert "JSON" in json_output_reminder_prompt(object())
    agent = make_agent()
    agent.system_prompt(current_datetime_prompt)
    agent.system_prompt(json_output_reminder_prompt)
    seen: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        first = messages[0]
        assert isinstance(first, ModelRequest)
        seen.extend(str(getattr(part, "content", "")) for part in first.parts)
        return ModelResponse(parts=[TextPart("ok")])

    with agent.pydantic_agent.override(model=FunctionModel(model)):
        assert agent.run_sync("hi") == "ok"
    assert any(text.startswith("The current date and time is") for text in seen)
    assert any("JSON" in text for text in seen)


def test_record_operator_action_is_a_user_turn(make_agent: Callable[..., ReactAgent]) -> None:
    agent = make_agent()
    agent.context.record_operator_action(entry="[Operator action] ran /clear")
    assert agent.context.pending_user_prompts == ["[Operator action] ran /clear"]
    with agent.pydantic_agent.override(model=TestModel(custom_output_text="done")):
        agent.run_sync("next")
    agent.context.append_user_prompt(entry="[Operator action] ran /compact")
    last = agent.context.messages[-1]
    assert isinstance(last, ModelRequest)
    assert isinstance(last.parts[0], UserPromptPart)
    assert last.parts[0].content == "[Operator action] ran /compact"


def test_max_messages_slides_the_agent_window(make_agent: Callable[..., ReactAgent]) -> None:
    config = ReactAgentConfig(model_cfg=ModelConfig(model="gpt-4o"), max_messages=3)
    agent = make_agent(config)
    assert agent.context.max_messages == 3
    with agent.pydantic_agent.override(model=TestModel(custom_output_text="x")):
        for turn in range(4):
            agent.run_sync(f"turn {turn}")
    assert len(agent.context.messages) <= 3
    with pytest.raises(ValueError):
        ReactAgentConfig(max_messages=0)


def test_usage_summaries_carry_cache_totals_and_the_models_list() -> None:
    events = [
        LlmUsageEvent("r1", "gpt-4o", "openai", 100, 10, 40, 5, 1),
        LlmUsageEvent("r2", "gpt-4o", "openai", 50, 5, 0, 0, 1),
    ]
    summary = aggregate_usage(events)
    assert summary.runs == []
    assert (summary.total_cache_read_tokens, summary.total_cache_write_tokens) == (40, 5)
    by_run = aggregate_usage(events, by_run=True)
    first = by_run.runs[0]
    assert [m.model_name for m in first.models] == ["gpt-4o"]
    assert first.models[0] == first.by_model["gpt-4o"]
    # a stored run summary with only the predecessor's `models` list rebuilds `by_model`
    stored = {
        "run_id": "r9",
        "models": [{"model_name": "m", "requests": 2, "input_tokens": 3}],
        "total_cost_usd": 0.0,
        "total_input_tokens": 3,
        "total_output_tokens": 0,
    }
    run = RunUsageSummary.model_validate(stored)
    assert run.by_model["m"].requests == 2
    assert RunUsageSummary.model_validate(run.model_dump()) == run


def test_provider_helpers_accept_config_and_model_cfg(fake_keys: pytest.MonkeyPatch) -> None:
    cfg = ModelConfig(model="gpt-4o", temperature=0.2)
    assert create_model(config=cfg).model_name == "gpt-4o"
    assert create_model(model_cfg=cfg).model_name == "gpt-4o"
    assert create_model_settings(config=cfg)["temperature"] == 0.2
    assert type(get_output_type(config=cfg, output_type=dict)).__name__ == "NativeOutput"
    assert type(get_output_type(cfg, dict)).__name__ == "NativeOutput"
    with pytest.raises(TypeError, match="both"):
        create_model(cfg, model_cfg=cfg)


def test_capabilities_expose_the_predecessor_dataclass_fields() -> None:
    context = ContextManager()
    limits = AgentUsageLimits(agent_request_limit=2)
    assert {"context"} <= _field_names(EventSourcingCapability(context=context))
    assert {"context"} <= _field_names(HealingCapability(context=context))
    budget = LifetimeBudgetCapability(limits=limits)
    assert "limits" in _field_names(budget)
    assert budget.limits is limits
    compaction = CompactionCapability(strategy=NoCompaction(), context=context)
    assert {"strategy", "context", "threshold_fn", "event_factory"} <= _field_names(compaction)


def test_budget_seed_and_usage(make_agent: Callable[..., ReactAgent]) -> None:
    config = ReactAgentConfig(
        model_cfg=ModelConfig(model="gpt-4o"),
        agent_usage_limits=AgentUsageLimits(agent_request_limit=3, total_tokens_limit=1000),
    )
    agent = make_agent(config)
    with agent.pydantic_agent.override(model=TestModel(custom_output_text="x")):
        agent.run_sync("one")
    usage = agent.lifetime_budget.usage
    assert usage.requests == 1
    assert usage.input_tokens > 0
    agent.lifetime_budget.seed(3, RunUsage(requests=7, input_tokens=10, output_tokens=2))
    assert agent.lifetime_budget.run_count == 3
    assert agent.lifetime_budget.usage == RunUsage(requests=7, input_tokens=10, output_tokens=2)
    from akgentic.llm import AgentUsageLimitError

    with pytest.raises(AgentUsageLimitError, match="agent_request_limit of 3"):
        agent.run_sync("refused: three runs already counted")


async def test_consume_decision_returns_the_latest_recorded_one() -> None:
    from pydantic_ai.exceptions import UsageLimitExceeded

    recovery = LimitRecoveryCapability()
    assert recovery.consume_decision() is None
    error = UsageLimitExceeded("request_limit of 1")
    with pytest.raises(UsageLimitExceeded):
        await recovery.on_run_error(None, error=error)  # type: ignore[arg-type]
    decision = recovery.consume_decision()
    assert decision is not None
    assert "last chance" in decision.reason
    assert recovery.consume_decision() is None


async def test_compact_now_and_a_one_argument_event_factory() -> None:
    context = ContextManager()
    for index in range(6):
        context.add_message(ModelRequest(parts=[UserPromptPart(content=f"q{index}")]))
        context.add_message(ModelResponse(parts=[TextPart(f"a{index}")]))

    def factory(result: CompactionResult) -> LlmContextCompactedEvent:
        return LlmContextCompactedEvent(
            run_id=None,
            strategy_id="sliding_window",
            summary=result.summary,
            replaced_message_count=result.replaced_message_count,
            summarizer_prompt_version="v1",
        )

    capability = CompactionCapability(
        strategy=SlidingWindowCompaction(keep_recent_messages=2),
        context=context,
        threshold_fn=lambda: None,
        event_factory=factory,
    )
    live: list[ModelMessage] = []
    event = await capability.compact_now(live_messages=live)
    assert event is not None
    assert event.replaced_message_count == 10
    assert live == context.messages
    assert len(live) == 3


def test_predecessor_strategy_class_names(fake_keys: pytest.MonkeyPatch) -> None:
    assert NoOpCompaction is NoCompaction
    assert SlidingWindowCompaction is SlidingWindowStrategy
    strategy = SummarizingCompaction(
        CompactionConfig(summarizer_prompt_version="v1", summary_target_tokens=300),
        ModelConfig(model="gpt-4o-mini"),
    )
    assert strategy.strategy_id == "summarize"
    assert strategy.summary_target_tokens == 300
    assert strategy.model.model_name == "gpt-4o-mini"
