"""Behaviour no test pinned before mutation testing looked (issue 21).

Each test names the mutation it kills: applied to the source, the test fails.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import Agent, ModelRetry
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
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, RunUsage

from akgentic.llm.capabilities.budget import LifetimeBudgetCapability
from akgentic.llm.capabilities.compaction import CompactionCapability
from akgentic.llm.capabilities.errors import AgentUsageLimitError
from akgentic.llm.capabilities.event_sourcing import EventSourcingCapability
from akgentic.llm.capabilities.healing import HealingCapability, dangling_tool_calls
from akgentic.llm.compaction import CompactionResult, SlidingWindowStrategy, SummarizeStrategy
from akgentic.llm.config import AgentUsageLimits
from akgentic.llm.context import ContextManager
from akgentic.llm.event import LlmContextCompactedEvent, LlmUsageEvent

# ------------------------------------------------------ compaction threshold (>= -> >)


class _Summarizer:
    def __init__(self) -> None:
        self.calls = 0

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.calls += 1
        return ModelResponse(parts=[TextPart("gist")])


def _reporting(tokens: int) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=tokens, output_tokens=1)
        return ModelResponse(parts=[TextPart("ok")], usage=usage)

    return FunctionModel(respond)


@pytest.mark.parametrize(("reported", "folds"), [(99, False), (100, True), (101, True)])
async def test_tokens_equal_to_the_threshold_compact(reported: int, folds: bool) -> None:
    context = ContextManager()
    summarizer = _Summarizer()
    strategy = SummarizeStrategy(FunctionModel(summarizer.respond))
    compaction = CompactionCapability(strategy, context, threshold_fn=lambda: 100)
    agent = Agent(
        _reporting(reported),
        capabilities=[compaction, EventSourcingCapability(context)],
    )
    await agent.run("first", message_history=context.messages)
    assert compaction.should_compact() is folds
    await agent.run("second", message_history=context.messages)
    assert summarizer.calls == (1 if folds else 0)


# --------------------------------------- healing: a retry prompt answers its call


def test_a_call_answered_by_a_retry_prompt_is_not_dangling() -> None:
    history: list[ModelMessage] = [
        ModelResponse(parts=[ToolCallPart("lookup", {}, tool_call_id="c1")]),
        ModelRequest(
            parts=[RetryPromptPart("bad arguments", tool_name="lookup", tool_call_id="c1")]
        ),
    ]
    assert dangling_tool_calls(history) == []
    assert [c.tool_call_id for c in dangling_tool_calls(history[:1])] == ["c1"]


async def test_a_failed_run_after_a_tool_retry_is_not_answered_twice() -> None:
    context = ContextManager()
    calls = 0

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nonlocal calls
        calls += 1
        if calls == 1:
            return ModelResponse(parts=[ToolCallPart("lookup", {"n": 1}, tool_call_id="c1")])
        raise ConnectionError("provider went away")

    agent = Agent(
        FunctionModel(respond),
        capabilities=[EventSourcingCapability(context), HealingCapability(context)],
    )

    @agent.tool_plain
    def lookup(n: int) -> str:
        raise ModelRetry("try another n")

    with pytest.raises(ConnectionError):
        await agent.run("go", message_history=context.messages)
    answers = [
        part
        for message in context.messages
        for part in message.parts
        if isinstance(part, ToolReturnPart | RetryPromptPart) and part.tool_call_id == "c1"
    ]
    # One answer for one id: providers reject a second (the retry prompt already answered it).
    assert [type(a) for a in answers] == [RetryPromptPart]


# ------------------------------------- lifetime token limits: strictly above (> -> >=)


@pytest.mark.parametrize(
    ("limits", "spent_in", "spent_out"),
    [
        (AgentUsageLimits(input_tokens_limit=100), 100, 0),
        (AgentUsageLimits(output_tokens_limit=100), 0, 100),
        (AgentUsageLimits(total_tokens_limit=100), 60, 40),
    ],
)
def test_spending_exactly_a_lifetime_token_limit_still_admits(
    limits: AgentUsageLimits, spent_in: int, spent_out: int
) -> None:
    budget = LifetimeBudgetCapability(limits)
    budget.restore([LlmUsageEvent("r1", "m", None, spent_in, spent_out)])
    budget.check()  # at the limit, not above it: pydantic-ai's rule
    budget.restore([LlmUsageEvent("r1", "m", None, spent_in + 1, spent_out + 1)])
    with pytest.raises(AgentUsageLimitError, match="Exceeded the"):
        budget.check()


def test_seeding_a_negative_run_count_is_refused() -> None:
    budget = LifetimeBudgetCapability()
    with pytest.raises(ValueError, match="run_count must not be negative, got -1"):
        budget.seed(-1, RunUsage())
    budget.seed(0, RunUsage(input_tokens=3))
    assert (budget.run_count, budget.input_tokens) == (0, 3)


# ------------------------- a one-argument event factory gets the run id it left unset


@pytest.mark.parametrize(
    ("own", "expected"),
    [
        ({}, ("run-7", 70)),
        ({"run_id": "mine"}, ("mine", 70)),
        ({"tokens_before": 5}, ("run-7", 5)),
    ],
    ids=["left unset", "own run id kept", "own size kept"],
)
async def test_a_one_argument_event_factory_is_stamped_with_the_run_id(
    own: dict[str, Any], expected: tuple[str, int]
) -> None:
    context = ContextManager()
    for index in range(4):
        context.add_message(ModelRequest(parts=[UserPromptPart(f"q{index}")]))
        context.add_message(
            ModelResponse(parts=[TextPart(f"a{index}")], usage=RequestUsage(input_tokens=70))
        )

    def factory(result: CompactionResult) -> LlmContextCompactedEvent:
        return LlmContextCompactedEvent(
            **{"run_id": None, **own},
            strategy_id="sliding_window",
            summary=result.summary,
            replaced_message_count=result.replaced_message_count,
            summarizer_prompt_version="v1",
        )

    capability = CompactionCapability(
        SlidingWindowStrategy(keep_recent_messages=2), context, event_factory=factory
    )
    event = await capability.compact(run_id="run-7")
    assert event is not None
    assert (event.run_id, event.tokens_before) == expected


class _OpaqueFactory:
    """A full-form event factory whose signature cannot be read, like many C callables."""

    @property
    def __signature__(self) -> Any:
        raise ValueError("no signature found")

    def __call__(
        self, result: CompactionResult, *, run_id: str | None, tokens_before: int | None
    ) -> LlmContextCompactedEvent:
        return LlmContextCompactedEvent(
            run_id=f"opaque:{run_id}",
            strategy_id="sliding_window",
            summary=result.summary,
            replaced_message_count=result.replaced_message_count,
            tokens_before=tokens_before,
            summarizer_prompt_version="v1",
        )


async def test_an_event_factory_without_a_readable_signature_is_called_in_full() -> None:
    context = ContextManager()
    for index in range(4):
        context.add_message(ModelRequest(parts=[UserPromptPart(f"q{index}")]))
        context.add_message(
            ModelResponse(parts=[TextPart(f"a{index}")], usage=RequestUsage(input_tokens=70))
        )
    capability = CompactionCapability(
        SlidingWindowStrategy(keep_recent_messages=2), context, event_factory=_OpaqueFactory()
    )
    event = await capability.compact(run_id="run-7")
    assert event is not None
    assert (event.run_id, event.tokens_before) == ("opaque:run-7", 70)


# ------------------------------------------- an empty credential variable is not a credential


@pytest.mark.parametrize(
    ("provider", "variable"),
    [("anthropic", "ANTHROPIC_API_KEY"), ("mistral", "MISTRAL_API_KEY")],
)
def test_an_empty_key_variable_counts_as_missing(
    monkeypatch: pytest.MonkeyPatch, provider: str, variable: str
) -> None:
    from akgentic.llm import ModelConfig, create_model

    monkeypatch.setenv(variable, "")
    with pytest.raises(ValueError, match=f"needs the environment variable {variable}"):
        create_model(ModelConfig(provider=provider, model="m"))  # type: ignore[arg-type]


# ------------------------------------------------------------- configuration defaults


def test_the_summarizer_bound_defaults_to_400k_characters() -> None:
    from akgentic.llm import CompactionConfig

    assert CompactionConfig().summarizer_max_input_chars == 400_000


def test_the_none_strategy_arms_no_threshold() -> None:
    from akgentic.llm import CompactionConfig, ModelConfig, ReactAgentConfig, RunUsageLimits

    model = ModelConfig(provider="openai", model="gpt-4o", context_length=1000)
    folding = ReactAgentConfig(model_cfg=model)
    assert folding.compaction_threshold() == 850
    never = ReactAgentConfig(
        model_cfg=model,
        compaction_cfg=CompactionConfig(strategy="none"),
        # below 850: rejected when a fold could fire, fine when none ever does
        run_usage_limits=RunUsageLimits(total_tokens_limit=100),
    )
    assert never.compaction_threshold() is None


# ------------------------------------------ cost aggregation sums the requests an event counts


def test_aggregate_usage_sums_each_events_request_count() -> None:
    from akgentic.llm import aggregate_usage

    events = [
        LlmUsageEvent("r1", "unpriced-model", None, 10, 1, requests=3),
        LlmUsageEvent("r1", "unpriced-model", None, 10, 1),
    ]
    summary = aggregate_usage(events)
    assert summary.by_model["unpriced-model"].requests == 4
    assert summary.total_requests == 4


# ------------------------------- consume_decision hands back the most recent decision


async def test_consume_decision_returns_the_latest_decision_first() -> None:
    from pydantic_ai.exceptions import UsageLimitExceeded

    from akgentic.llm.capabilities.limit_recovery import (
        ConclusionDecision,
        LimitRecoveryCapability,
    )

    class Echo(LimitRecoveryCapability):
        async def handle_limit_exceeded(
            self, ctx: Any, *, error: UsageLimitExceeded
        ) -> ConclusionDecision | None:
            return ConclusionDecision(reason=str(error).split(".")[0])

    policy = Echo()
    for name in ("first breach", "second breach"):
        with pytest.raises(UsageLimitExceeded):
            await policy.on_run_error(None, error=UsageLimitExceeded(name))  # type: ignore[arg-type]
    latest = policy.consume_decision()
    older = policy.consume_decision()
    assert (latest and latest.reason, older and older.reason) == ("second breach", "first breach")
    assert policy.consume_decision() is None
