"""CompactionCapability on a bare pydantic-ai Agent: gate, fold site, ordering."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from akgentic.llm.capabilities.budget import LifetimeBudgetCapability
from akgentic.llm.capabilities.compaction import CompactionCapability, compaction_event_factory
from akgentic.llm.capabilities.errors import AgentUsageLimitError
from akgentic.llm.capabilities.event_sourcing import EventSourcingCapability
from akgentic.llm.compaction import (
    SUMMARY_PREFIX,
    CompactionResult,
    NoCompaction,
    SummarizeStrategy,
)
from akgentic.llm.config import AgentUsageLimits
from akgentic.llm.context import ContextManager
from akgentic.llm.event import LlmContextCompactedEvent, LlmMessageEvent


class CountingSummarizer:
    """A FunctionModel summarizer that counts how often it is paid for."""

    def __init__(self, text: str = "They talked about the weather.") -> None:
        self.calls = 0
        self.text = text

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.calls += 1
        return ModelResponse(parts=[TextPart(self.text)])

    @property
    def strategy(self) -> SummarizeStrategy:
        return SummarizeStrategy(FunctionModel(self.respond))


class SeenByCaller(AbstractCapability[Any]):
    """A caller capability recording the history every model request is about to receive."""

    def __init__(self) -> None:
        self.requests: list[list[ModelMessage]] = []

    async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
        self.requests.append(list(request_context.messages))
        return request_context


def _big_model(input_tokens: list[int]) -> tuple[FunctionModel, list[list[ModelMessage]]]:
    seen: list[list[ModelMessage]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        from pydantic_ai.usage import RequestUsage

        seen.append(list(messages))
        tokens = input_tokens[min(len(seen) - 1, len(input_tokens) - 1)]
        return ModelResponse(
            parts=[TextPart(f"answer {len(seen)}")],
            usage=RequestUsage(input_tokens=tokens, output_tokens=3),
        )

    return FunctionModel(respond), seen


def _agent(
    model: FunctionModel, context: ContextManager, compaction: CompactionCapability, *extra: Any
) -> Agent[None, str]:
    return Agent(
        model,
        system_prompt="Be brief.",
        capabilities=[compaction, EventSourcingCapability(context), *extra],
    )


async def test_fold_fires_at_the_head_of_the_run_after_the_threshold(recorder: Any) -> None:
    context = ContextManager()
    context.subscribe(recorder)
    summarizer = CountingSummarizer()
    compaction = CompactionCapability(summarizer.strategy, context, threshold_fn=lambda: 100)
    model, seen = _big_model([150, 20])
    caller = SeenByCaller()
    agent = _agent(model, context, compaction, caller)

    await agent.run("first question")
    assert summarizer.calls == 0  # nothing reported yet when run 1 started
    assert context.last_input_tokens == 150

    result = await agent.run("second question")
    assert summarizer.calls == 1
    # the model and the caller capability both saw only the folded history
    seen_text = [str(p.content) for m in seen[1] for p in m.parts if hasattr(p, "content")]
    assert seen_text == ["Be brief.", SUMMARY_PREFIX + summarizer.text, "second question"]
    caller_text = [
        str(p.content) for m in caller.requests[1] for p in m.parts if hasattr(p, "content")
    ]
    assert caller_text == seen_text
    head = context.messages[0]
    assert isinstance(head, ModelRequest)
    assert [p.part_kind for p in head.parts] == ["system-prompt", "user-prompt"]

    (event,) = recorder.of_type(LlmContextCompactedEvent)
    assert event.run_id == result.run_id
    assert event.strategy_id == "summarize"
    assert event.summary == summarizer.text
    assert event.replaced_message_count == 2
    assert event.tokens_before == 150
    assert event.tokens_after is not None

    # the synthetic summary request is never persisted as a message event
    persisted = [e.message for e in recorder.of_type(LlmMessageEvent)]
    assert context.messages[0] not in persisted
    assert all(m is not context.messages[0] for m in persisted)
    # history after run 2: folded head, the new prompt, the new answer
    assert len(context.messages) == 3
    assert context.messages[1:] == result.new_messages()


async def test_fold_fires_once_per_run_even_when_every_response_is_large() -> None:
    context = ContextManager()
    summarizer = CountingSummarizer()
    compaction = CompactionCapability(summarizer.strategy, context, threshold_fn=lambda: 10)
    calls = 0

    def tool_then_answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        from pydantic_ai.messages import ToolCallPart
        from pydantic_ai.usage import RequestUsage

        nonlocal calls
        calls += 1
        usage = RequestUsage(input_tokens=500, output_tokens=1)
        if calls % 3:
            return ModelResponse(
                parts=[ToolCallPart("noop", {}, tool_call_id=f"c{calls}")], usage=usage
            )
        return ModelResponse(parts=[TextPart("done")], usage=usage)

    agent = _agent(FunctionModel(tool_then_answer), context, compaction)

    @agent.tool_plain
    def noop() -> str:
        return "ok"

    await agent.run("one")  # three large responses within one run
    assert summarizer.calls == 0
    await agent.run("two")
    assert summarizer.calls == 1
    await agent.run("three")
    assert summarizer.calls == 2


@pytest.mark.parametrize("threshold", [None, 1000])
async def test_gate_disarmed_or_not_reached_never_folds(threshold: int | None) -> None:
    context = ContextManager()
    summarizer = CountingSummarizer()
    compaction = CompactionCapability(summarizer.strategy, context, threshold_fn=lambda: threshold)
    model, _ = _big_model([999])
    agent = _agent(model, context, compaction)
    for prompt in ("a", "b", "c"):
        await agent.run(prompt)
    assert summarizer.calls == 0
    assert len(context.messages) == 6


async def test_manual_compact_folds_without_a_run_and_resets_the_gate(recorder: Any) -> None:
    context = ContextManager()
    context.subscribe(recorder)
    summarizer = CountingSummarizer()
    compaction = CompactionCapability(summarizer.strategy, context, threshold_fn=lambda: 100)
    model, _ = _big_model([150])
    agent = _agent(model, context, compaction)
    await agent.run("question")

    event = await compaction.compact()
    assert event is not None
    assert event.run_id is None
    assert recorder.of_type(LlmContextCompactedEvent) == [event]
    assert len(context.messages) == 1
    # the size that armed the gate described the folded history: no second fold next run
    assert context.last_input_tokens is None
    assert not compaction.should_compact()
    await agent.run("next")
    assert summarizer.calls == 1


async def test_none_strategy_emits_nothing(recorder: Any) -> None:
    context = ContextManager()
    context.subscribe(recorder)
    compaction = CompactionCapability(NoCompaction(), context, threshold_fn=lambda: 1)
    model, _ = _big_model([50])
    agent = _agent(model, context, compaction)
    await agent.run("a")
    before = context.messages
    assert await compaction.compact() is None
    await agent.run("b")
    assert recorder.of_type(LlmContextCompactedEvent) == []
    assert context.messages[:2] == before


async def test_event_factory_stamps_strategy_id_and_prompt_version(recorder: Any) -> None:
    context = ContextManager()
    context.subscribe(recorder)
    summarizer = CountingSummarizer()
    compaction = CompactionCapability(
        summarizer.strategy,
        context,
        event_factory=compaction_event_factory("my.pkg.Summarizer", "legal"),
    )
    model, _ = _big_model([5])
    await _agent(model, context, compaction).run("a")
    event = await compaction.compact()
    assert event is not None
    assert (event.strategy_id, event.summarizer_prompt_version) == ("my.pkg.Summarizer", "legal")
    unversioned = compaction_event_factory("my.pkg.Summarizer")
    stamped = unversioned(CompactionResult("s", 0), run_id=None, tokens_before=None)
    assert stamped.summarizer_prompt_version == "v1"


@pytest.mark.parametrize(
    ("budget_outermost", "summaries"),
    [(True, 0), (False, 1)],
    ids=["budget-outermost-refuses-first", "compaction-ahead-would-pay"],
)
async def test_the_stack_order_decides_whether_a_refused_run_pays_for_a_summary(
    budget_outermost: bool, summaries: int
) -> None:
    """Budget outermost refuses before compaction pays for a summary; the counter-case (the
    compaction ahead of the budget) pays, which makes the stack order observable."""
    context = ContextManager()
    summarizer = CountingSummarizer()
    compaction = CompactionCapability(summarizer.strategy, context, threshold_fn=lambda: 10)
    budget = LifetimeBudgetCapability(AgentUsageLimits(agent_request_limit=1))
    model, _ = _big_model([500])
    order = [budget, compaction] if budget_outermost else [compaction, budget]
    agent: Agent[None, str] = Agent(model, capabilities=[*order, EventSourcingCapability(context)])
    await agent.run("spend the only run")
    with pytest.raises(AgentUsageLimitError):
        await agent.run("refused")
    assert summarizer.calls == summaries


async def test_fold_keeps_the_system_prompt_rendering_recorded_once(recorder: Any) -> None:
    from akgentic.llm.event import LlmSystemPromptEvent

    context = ContextManager()
    context.subscribe(recorder)
    summarizer = CountingSummarizer()
    compaction = CompactionCapability(summarizer.strategy, context, threshold_fn=lambda: 100)
    model, _ = _big_model([150, 150, 150])
    agent = _agent(model, context, compaction)
    for prompt in ("a", "b", "c"):
        await agent.run(prompt)
    # the system prompt survives every fold unchanged, so it is recorded exactly once
    assert len(recorder.of_type(LlmSystemPromptEvent)) == 1
    head = context.messages[0]
    assert isinstance(head, ModelRequest)
    assert isinstance(head.parts[0], SystemPromptPart)
    assert head.parts[0].content == "Be brief."
    assert not any(
        isinstance(p, UserPromptPart) and p.content == "a"
        for m in context.messages
        for p in m.parts
    )


async def test_default_event_factory_names_a_custom_strategy_by_its_class_path(
    recorder: Any,
) -> None:
    from collections.abc import Sequence

    from akgentic.llm.compaction import CompactionResult

    class DropAll:
        async def compact(self, messages: Sequence[ModelMessage]) -> CompactionResult:
            return CompactionResult(summary="gone", replaced_message_count=len(messages))

    context = ContextManager()
    context.subscribe(recorder)
    compaction = CompactionCapability(DropAll(), context)
    model, _ = _big_model([5])
    await _agent(model, context, compaction).run("a")
    event = await compaction.compact()
    assert event is not None
    assert event.strategy_id == f"{DropAll.__module__}.{DropAll.__qualname__}"
    assert event.summarizer_prompt_version == "v1"
    assert event.summary == "gone"


@pytest.mark.parametrize("compaction_first", [True, False])
async def test_compaction_and_event_sourcing_order_is_belt_and_braces(
    compaction_first: bool,
) -> None:
    """Either order persists the same messages: the summary request is never re-persisted."""
    from akgentic.llm.event import LlmUsageEvent

    log: list[object] = []

    class Log:
        def notify_event(self, event: object) -> None:
            log.append(event)

    context = ContextManager()
    context.subscribe(Log())
    summarizer = CountingSummarizer()
    compaction = CompactionCapability(summarizer.strategy, context, threshold_fn=lambda: 100)
    sourcing = EventSourcingCapability(context)
    model, _ = _big_model([150])
    stack = [compaction, sourcing] if compaction_first else [sourcing, compaction]
    agent: Agent[None, str] = Agent(model, system_prompt="Be brief.", capabilities=stack)
    for prompt in ("one", "two", "three"):
        await agent.run(prompt, message_history=context.messages)
    persisted = [e.message for e in log if isinstance(e, LlmMessageEvent)]
    # three runs, two messages each, nothing else: no summary request among them
    assert len(persisted) == 6
    assert all(
        not (isinstance(p, UserPromptPart) and str(p.content).startswith(SUMMARY_PREFIX))
        for m in persisted
        for p in m.parts
    )
    assert len([e for e in log if isinstance(e, LlmContextCompactedEvent)]) == 2
    assert len([e for e in log if isinstance(e, LlmUsageEvent)]) == 3


@pytest.mark.parametrize(
    ("prompt_version", "stamped"),
    [("legal-v2", "legal-v2"), (2, "v1")],
    ids=["the-strategys-version", "not-text-falls-back-to-v1"],
)
async def test_default_event_factory_stamps_the_strategys_prompt_version(
    prompt_version: object, stamped: str
) -> None:
    from collections.abc import Sequence

    from akgentic.llm.compaction import CompactionResult

    class Versioned:
        def __init__(self) -> None:
            self.prompt_version = prompt_version

        async def compact(self, messages: Sequence[ModelMessage]) -> CompactionResult:
            return CompactionResult(summary="gone", replaced_message_count=len(messages))

    context = ContextManager()
    context.restore([ModelRequest(parts=[UserPromptPart("a")]), ModelResponse([TextPart("b")])])
    event = await CompactionCapability(Versioned(), context).compact()
    assert event is not None
    assert event.summarizer_prompt_version == stamped


@pytest.mark.parametrize(
    ("configured", "stamped"), [({}, "v1"), ({"summarizer_prompt_version": "legal"}, "legal")]
)
def test_an_agents_compaction_event_carries_the_configured_prompt_version(
    make_agent: Any, event_recorder: Any, configured: dict[str, str], stamped: str
) -> None:
    from akgentic.llm import CompactionConfig, ModelConfig, ReactAgentConfig

    config = ReactAgentConfig(
        model_cfg=ModelConfig(provider="openai", model="gpt-4o"),
        compaction_cfg=CompactionConfig(
            strategy="sliding_window", keep_recent_messages=1, **configured
        ),
    )
    agent = make_agent(config, observer=event_recorder)
    agent.pydantic_agent.model = FunctionModel(
        lambda messages, info: ModelResponse([TextPart("ok")])
    )
    for prompt in ("a", "b"):
        agent.run_sync(prompt)
    agent.compact()
    (event,) = event_recorder.of_type(LlmContextCompactedEvent)
    assert (event.strategy_id, event.summarizer_prompt_version) == ("sliding_window", stamped)
