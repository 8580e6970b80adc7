"""ReactAgent with the whole run-loop stack: compaction, compact()/clear_context(), restore."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.capabilities.abstract import leaf_capabilities
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelResponse,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from akgentic.llm import (
    COMPACTION_STRATEGIES,
    AgentUsageLimits,
    CompactionConfig,
    ModelConfig,
    ReactAgent,
    ReactAgentConfig,
    RunUsageLimits,
)
from akgentic.llm.capabilities.budget import LifetimeBudgetCapability
from akgentic.llm.capabilities.compaction import CompactionCapability
from akgentic.llm.capabilities.errors import AgentUsageLimitError, UsageLimitError
from akgentic.llm.capabilities.event_sourcing import EventSourcingCapability
from akgentic.llm.capabilities.healing import HealingCapability
from akgentic.llm.capabilities.limit_recovery import LimitRecoveryCapability
from akgentic.llm.compaction import SummarizeStrategy
from akgentic.llm.event import (
    LlmContextClearedEvent,
    LlmContextCompactedEvent,
    LlmMessageEvent,
)


@dataclass
class Envelope:
    """Stands in for akgentic-core's EventMessage: the event under ``.event``."""

    event: object


@dataclass
class Script:
    """Calls ``lookup`` ``tools`` times when tools are offered, then answers."""

    tools: int = 0
    input_tokens: int = 100
    fail: bool = False
    made: int = 0
    seen: list[list[ModelMessage]] = field(default_factory=list)

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.made += 1
        self.seen.append(list(messages))
        usage = RequestUsage(input_tokens=self.input_tokens, output_tokens=5)
        if self.fail and self.made > self.tools:
            raise ConnectionError("provider went away mid-run")
        if info.function_tools and self.made <= self.tools:
            return ModelResponse(
                parts=[ToolCallPart("lookup", {"n": self.made}, tool_call_id=f"t{self.made}")],
                usage=usage,
            )
        return ModelResponse(parts=[TextPart(f"answer {self.made}")], usage=usage)


class Summarizer:
    def __init__(self) -> None:
        self.calls = 0

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        # Deterministic in its input, so a live and a restored agent summarise alike.
        self.calls += 1
        prompt = str(messages[-1].parts[-1].content)
        return ModelResponse(parts=[TextPart(f"summary of {prompt.count(chr(10))} line(s)")])


@pytest.fixture
def summarizer() -> Iterator[Summarizer]:
    """Registers a 'test_summarize' strategy answered by a FunctionModel summarizer."""
    instance = Summarizer()
    COMPACTION_STRATEGIES["test_summarize"] = lambda cfg, model_cfg, http: SummarizeStrategy(
        FunctionModel(instance.respond), prompt_version=cfg.summarizer_prompt_version
    )
    yield instance
    del COMPACTION_STRATEGIES["test_summarize"]


def _config(
    strategy: str = "sliding_window",
    *,
    context_length: int | None = 1000,
    agent: AgentUsageLimits | None = None,
    run: RunUsageLimits | None = None,
) -> ReactAgentConfig:
    return ReactAgentConfig(
        model_cfg=ModelConfig(provider="openai", model="gpt-4o", context_length=context_length),
        compaction_cfg=CompactionConfig(
            strategy=strategy, trigger_ratio=0.5, keep_recent_messages=1
        ),
        agent_usage_limits=agent or AgentUsageLimits(),
        run_usage_limits=run or RunUsageLimits(),
    )


@pytest.fixture
def build(make_agent: Callable[..., ReactAgent]) -> Callable[..., tuple[ReactAgent, Script]]:
    def factory(config: ReactAgentConfig, **kwargs: Any) -> tuple[ReactAgent, Script]:
        agent = make_agent(config, **kwargs)
        holder = {"script": Script()}

        @agent.pydantic_agent.tool_plain
        def lookup(n: int) -> str:
            return f"value {n}"

        agent.pydantic_agent.model = FunctionModel(
            lambda messages, info: holder["script"].respond(messages, info)
        )
        agent._test_script = holder  # type: ignore[attr-defined]
        return agent, holder["script"]

    return factory


def _set_script(agent: ReactAgent, script: Script) -> Script:
    agent._test_script["script"] = script  # type: ignore[attr-defined]
    return script


def _dump(messages: list[ModelMessage]) -> Any:
    return ModelMessagesTypeAdapter.dump_python(messages, mode="json")


# ------------------------------------------------------------------ the stack


def test_stack_order_is_budget_compaction_events_recovery_healing_then_callers(
    build: Any,
) -> None:
    caller = ProcessHistory(processor=lambda messages: messages)
    policy = LimitRecoveryCapability()
    agent, _ = build(_config(), capabilities=[caller], limit_recovery=policy)
    ours = (
        LifetimeBudgetCapability,
        CompactionCapability,
        EventSourcingCapability,
        LimitRecoveryCapability,
        HealingCapability,
        ProcessHistory,
    )
    mounted: list[Any] = []
    for capability in leaf_capabilities(agent.pydantic_agent._root_capability):
        # ReactAgent may group its internal capabilities in one dispatcher entry
        mounted.extend(getattr(capability, "members", (capability,)))
    leaves = [c for c in mounted if isinstance(c, ours)]
    assert [type(c) for c in leaves] == list(ours)
    assert leaves[3] is policy
    assert leaves[5] is caller


# ---------------------------------------------------------------- compaction


async def test_auto_compaction_fires_inside_the_next_run(build: Any, event_recorder: Any) -> None:
    agent, _ = build(_config(), observer=event_recorder)
    _set_script(agent, Script(input_tokens=600))
    await agent.run("first: reports 600 input tokens (threshold 500)")
    _set_script(agent, Script(input_tokens=100))
    await agent.run("second: folds at its head")
    (event,) = event_recorder.of_type(LlmContextCompactedEvent)
    second_run_ids = {e.run_id for e in event_recorder.of_type(LlmMessageEvent)[-2:]}
    assert second_run_ids == {event.run_id}
    assert event.strategy_id == "sliding_window"
    assert event.tokens_before == 600
    await agent.run("third: 100 < 500, no fold")
    assert len(event_recorder.of_type(LlmContextCompactedEvent)) == 1


async def test_compact_and_clear_outside_runs(
    build: Any, event_recorder: Any, summarizer: Summarizer
) -> None:
    agent, _ = build(_config("test_summarize"), observer=event_recorder)
    await agent.run("one")
    await agent.run("two")
    report = await agent.acompact()
    assert report == "Compacted 4 message(s) with the 'test_summarize' strategy."
    (event,) = event_recorder.of_type(LlmContextCompactedEvent)
    assert event.run_id is None
    assert event.summary.startswith("summary of ")
    assert len(agent.context.messages) == 1

    assert agent.clear_context() == "Cleared 1 message(s) from the context."
    (cleared,) = event_recorder.of_type(LlmContextClearedEvent)
    assert (cleared.run_id, cleared.cleared_message_count) == (None, 1)
    assert agent.context.messages == []
    assert await agent.acompact() == "Nothing to compact."


def test_sync_compact_drives_the_agents_loop(build: Any, summarizer: Summarizer) -> None:
    agent, _ = build(_config("test_summarize"))
    agent.run_sync("one")
    assert agent.compact().startswith("Compacted 2 message(s)")
    assert summarizer.calls == 1


async def test_sync_compact_inside_a_running_loop_points_to_acompact(build: Any) -> None:
    agent, _ = build(_config())
    with pytest.raises(RuntimeError, match="acompact"):
        agent.compact()


async def test_the_gate_fires_for_a_tool_free_conclusion(build: Any, event_recorder: Any) -> None:
    agent, _ = build(_config(), observer=event_recorder)
    _set_script(agent, Script(input_tokens=700))
    await agent.run("a")
    await agent.conclude_without_tools("wrap up")
    (event,) = event_recorder.of_type(LlmContextCompactedEvent)
    conclusion_ids = {e.run_id for e in event_recorder.of_type(LlmMessageEvent)[-2:]}
    assert conclusion_ids == {event.run_id}


async def test_spent_agent_is_refused_before_compaction_pays(
    build: Any, summarizer: Summarizer
) -> None:
    agent, _ = build(_config("test_summarize", agent=AgentUsageLimits(agent_request_limit=1)))
    _set_script(agent, Script(input_tokens=900))
    await agent.run("the only run")
    with pytest.raises(AgentUsageLimitError):
        await agent.run("refused")
    assert summarizer.calls == 0


# ------------------------------------------------------------------- restore


async def test_restore_round_trip_continues_where_the_live_agent_stopped(
    build: Any, summarizer: Summarizer, new_log: Any
) -> None:
    log = new_log()
    config = _config(
        "test_summarize",
        agent=AgentUsageLimits(agent_request_limit=12),
        run=RunUsageLimits(tool_calls_limit=3),
    )
    live, _ = build(config, observer=log)
    _set_script(live, Script(tools=1, input_tokens=200))
    await live.run("one")
    _set_script(live, Script(tools=50))
    await live.run("loops until the run tier breaks, then concludes")
    await live.acompact()
    _set_script(live, Script(tools=1, input_tokens=800))
    await live.run("three")
    live.clear_context()
    _set_script(live, Script(input_tokens=800))
    await live.run("four")

    restored_log = new_log()
    restored, _ = build(config, observer=restored_log)
    restored.restore_context([Envelope(e) for e in log.events])
    assert restored_log.events == []  # nothing re-emitted
    assert _dump(restored.context.messages) == _dump(live.context.messages)
    assert restored.context.last_input_tokens == live.context.last_input_tokens == 800
    assert restored.context.system_prompt_hash == live.context.system_prompt_hash
    for attr in ("run_count", "input_tokens", "output_tokens"):
        assert getattr(restored.lifetime_budget, attr) == getattr(live.lifetime_budget, attr)

    # both continue identically: same fold, same history sent to the model
    live_next = _set_script(live, Script())
    restored_next = _set_script(restored, Script())
    assert await live.run("five") == await restored.run("five")
    assert len(log.events) > 0
    live_seen = _dump(live_next.seen[0][:-1])
    restored_seen = _dump(restored_next.seen[0][:-1])
    assert restored_seen == live_seen
    assert summarizer.calls == 3  # compact() on the live agent, then one auto fold on each


def test_restore_counts_only_runs_that_reached_the_model(build: Any, new_log: Any) -> None:
    log = new_log()
    config = _config(context_length=None, agent=AgentUsageLimits(agent_request_limit=3))
    live, _ = build(config, observer=log)
    live.run_sync("reached the model")

    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise ConnectionError("provider unreachable")

    live.pydantic_agent.model = FunctionModel(broken)
    with pytest.raises(ConnectionError):
        live.run_sync("never reached it")
    assert live.lifetime_budget.run_count == 2

    restored, _ = build(config)
    restored.restore_context(log.events)
    assert restored.lifetime_budget.run_count == 1


# ---------------------------------------------------------- property-style


OPS = st.sampled_from(["run", "run_tools", "breach", "compact", "clear", "fail"])


async def _play(build: Any, ops: list[str], strategy: str, new_log: Any) -> None:
    log = new_log()
    config = _config(
        strategy,
        run=RunUsageLimits(tool_calls_limit=2),
        agent=AgentUsageLimits(agent_request_limit=9),
    )
    live, _ = build(config, observer=log)
    for index, op in enumerate(ops):
        try:
            if op == "compact":
                await live.acompact()
            elif op == "clear":
                live.clear_context()
            elif op == "fail":
                _set_script(live, Script(tools=1, fail=True, input_tokens=150 * (index + 1)))
                await live.run(f"prompt {index}")
            else:
                tools = {"run": 0, "run_tools": 1, "breach": 9}[op]
                _set_script(live, Script(tools=tools, input_tokens=150 * (index + 1)))
                await live.run(f"prompt {index}")
        except (UsageLimitError, ConnectionError):
            pass
    restored, _ = build(config)
    restored.restore_context(log.events)
    assert _dump(restored.context.messages) == _dump(live.context.messages)
    assert restored.context.last_input_tokens == live.context.last_input_tokens
    assert restored.context.system_prompt_hash == live.context.system_prompt_hash
    assert restored.lifetime_budget.run_count == live.lifetime_budget.run_count
    assert restored.lifetime_budget.total_tokens == live.lifetime_budget.total_tokens


@settings(max_examples=12, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(
    ops=st.lists(OPS, min_size=1, max_size=10),
    strategy=st.sampled_from(["sliding_window", "test_summarize"]),
)
def test_replayed_agent_equals_live_agent(
    build: Any, summarizer: Summarizer, ops: list[str], strategy: str, new_log: Any
) -> None:
    asyncio.run(_play(build, ops, strategy, new_log))
