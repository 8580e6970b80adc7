"""The snippets of the README's "Capabilities" section, executed."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest
from pydantic_ai.models.test import TestModel

from akgentic.llm import (
    COMPACTION_STRATEGIES,
    AgentUsageLimits,
    CompactionResult,
    ContextManager,
    EventSourcingCapability,
    HealingCapability,
    LifetimeBudgetCapability,
)
from akgentic.llm.capabilities.compaction import CompactionCapability, compaction_event_factory
from akgentic.llm.compaction import create_compaction
from akgentic.llm.config import CompactionConfig, ModelConfig
from akgentic.llm.loadtest import EXAMPLE_SCENARIO, Scenario


async def test_bare_agent_example() -> None:
    context = ContextManager()
    budget = LifetimeBudgetCapability(AgentUsageLimits(agent_request_limit=10))
    agent = Agent(
        TestModel(),
        capabilities=[budget, EventSourcingCapability(context), HealingCapability(context)],
    )
    result = await agent.run("hello")
    assert context.messages == result.all_messages()
    assert budget.run_count == 1


class KeepLastOnly:
    async def compact(self, messages: Sequence[ModelMessage]) -> CompactionResult:
        return CompactionResult(summary="", replaced_message_count=max(0, len(messages) - 1))


async def test_custom_strategy_from_the_registry_keeps_the_last_message() -> None:
    COMPACTION_STRATEGIES["keep_last"] = lambda cfg, model_cfg, http_client: KeepLastOnly()
    try:
        cfg = CompactionConfig(strategy="keep_last")
        context = ContextManager()
        compaction = CompactionCapability(
            create_compaction(cfg, ModelConfig()),
            context,
            event_factory=compaction_event_factory(cfg.strategy),
        )
        agent = Agent(
            TestModel(),
            system_prompt="Be brief.",
            capabilities=[compaction, EventSourcingCapability(context)],
        )
        await agent.run("one")
        await agent.run("two", message_history=context.messages)
        last = context.messages[-1]
        event = await compaction.compact()
        assert event is not None
        assert event.strategy_id == "keep_last"
        # the system prompt stays (part-level), plus the one message the strategy kept
        head, kept = context.messages
        assert isinstance(head, ModelRequest)
        assert [p.part_kind for p in head.parts] == ["system-prompt"]
        assert kept is last
    finally:
        del COMPACTION_STRATEGIES["keep_last"]


def test_readme_scenario_excerpt_is_the_shipped_example() -> None:
    excerpt = """
name: support-desk
model_name: mock-support-model
input_tokens: 180
output_tokens: 35
steps:
  - match: "(?i)refund|order"       # regex searched in the prompt
    tool_calls:
      - tool: lookup_order
        args: {order_id: "A-1042"}
    reply: "Order A-1042 shipped yesterday; a refund is not needed."
  - reply: "Thanks for reaching out."
"""
    scenario = Scenario.from_yaml(excerpt)
    shipped = Scenario.from_yaml(EXAMPLE_SCENARIO.read_text(encoding="utf-8"))
    assert scenario.steps[0] == shipped.steps[0].model_copy(update={"input_tokens": None})
    assert (scenario.name, scenario.model_name) == (shipped.name, shipped.model_name)
