"""The mock is the real ReactAgent given a scenario model: one constructor, one stack."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel
from pydantic_ai import ApprovalRequired
from pydantic_ai.output import ToolOutput
from pydantic_ai.toolsets import FunctionToolset, WrapperToolset

from akgentic.llm import ReactAgent
from akgentic.llm.approvals import ApprovalMismatchError
from akgentic.llm.capabilities._stack import InternalStack
from akgentic.llm.config import CompactionConfig, ModelConfig, ReactAgentConfig
from akgentic.llm.event import LlmContextCompactedEvent
from akgentic.llm.loadtest import MockReactAgent, Scenario, ScenarioError
from akgentic.llm.loadtest.scenario_model import ScenarioModel


class Status(BaseModel):
    title: str
    points: list[str]


STATUS_REPLY = {"title": "Service status", "points": ["All systems operational"]}


def _internal_stack(agent: ReactAgent) -> list[str]:
    capabilities: Any = agent.pydantic_agent._root_capability
    stacks = [c for c in capabilities.capabilities if isinstance(c, InternalStack)]
    assert len(stacks) == 1
    return [type(member).__name__ for member in stacks[0].members]


def test_the_mock_mounts_the_real_agents_capability_stack(
    make_mock: Callable[..., MockReactAgent],
) -> None:
    from pydantic_ai.models.test import TestModel

    real = ReactAgent(ReactAgentConfig(), model=TestModel())
    try:
        mock = make_mock()
        assert isinstance(mock, ReactAgent)
        assert isinstance(mock.pydantic_agent.model, ScenarioModel)
        assert (
            _internal_stack(mock)[:3]
            == _internal_stack(real)[:3]
            == [
                "LifetimeBudgetCapability",
                "CompactionCapability",
                "EventSourcingCapability",
            ]
        )
        # the recovery slot holds the mock's never-concluding policy, then healing
        assert isinstance(mock.limit_recovery, type(real.limit_recovery))
        assert _internal_stack(mock)[4] == _internal_stack(real)[4] == "HealingCapability"
    finally:
        real.close()


@pytest.mark.parametrize("output_type", [Status, ToolOutput(Status)])
async def test_structured_replies_native_and_through_the_output_tool(
    make_mock: Callable[..., MockReactAgent], output_type: Any
) -> None:
    scenario = Scenario.model_validate(
        {"steps": [{"reply": STATUS_REPLY}, {"name": "words", "reply": "just words"}]}
    )
    agent = make_mock(scenario=scenario)
    assert await agent.run("status", output_type=output_type) == Status(**STATUS_REPLY)
    before = list(agent.context.messages)
    with pytest.raises(
        ScenarioError, match=r"step 2 \(words\).*structured output \(\w+\).*plain text"
    ):
        await agent.run("status again", output_type=output_type)
    assert agent.context.messages[: len(before)] == before


async def test_a_configured_summary_model_is_never_built(
    make_mock: Callable[..., MockReactAgent], event_recorder: Any
) -> None:
    # No OPENAI_API_KEY: building this summarizer would fail; the scenario answers instead.
    config = ReactAgentConfig(
        model_cfg=ModelConfig(context_length=1000),
        compaction_cfg=CompactionConfig(
            trigger_ratio=0.5,
            summary_model_cfg=ModelConfig(provider="openai", model="gpt-4.1"),
        ),
    )
    scenario = Scenario.model_validate(
        {"input_tokens": 600, "summary": "Scripted.", "steps": [{"reply": "ok"}]}
    )
    agent = make_mock(config, observer=event_recorder, scenario=scenario)
    assert agent.http_client is None
    await agent.run("one")
    await agent.run("two: compaction fires first")
    (compacted,) = event_recorder.of_type(LlmContextCompactedEvent)
    assert compacted.summary == "Scripted."


def _deletes_a_txt() -> Scenario:
    """One step: call ``delete_file`` on ``a.txt``, then reply ``done``."""
    return Scenario.model_validate(
        {
            "steps": [
                {
                    "tool_calls": [{"tool": "delete_file", "args": {"path": "a.txt"}}],
                    "reply": "done",
                }
            ]
        }
    )


async def test_gated_tools_run_without_waiting(make_mock: Callable[..., MockReactAgent]) -> None:
    ran: list[str] = []

    def delete_file(path: str) -> str:
        ran.append(path)
        return "deleted"

    delete_file.requires_approval = True  # type: ignore[attr-defined]
    scenario = _deletes_a_txt()
    agent = make_mock(tools=[delete_file], scenario=scenario)
    assert await agent.run("delete a.txt") == "done"
    assert ran == ["a.txt"]
    assert agent.pending_tool_calls == []


@dataclass
class _Flagged(WrapperToolset[Any]):
    """A gate of its own making, flagged the way akgentic-tool-core's gates are."""

    requires_approval: ClassVar[bool] = True

    async def call_tool(self, name: str, tool_args: Any, ctx: Any, tool: Any) -> Any:
        if not ctx.tool_call_approved:
            raise ApprovalRequired
        return await super().call_tool(name, tool_args, ctx, tool)


@pytest.mark.parametrize("flagged", [True, False], ids=["flagged gate", "pydantic-ai gate"])
async def test_gated_toolset_tools_run_without_waiting(
    make_mock: Callable[..., MockReactAgent], flagged: bool
) -> None:
    ran: list[str] = []

    def delete_file(path: str) -> str:
        ran.append(path)
        return "deleted"

    tools = FunctionToolset([delete_file])
    gated = _Flagged(tools) if flagged else tools.approval_required()
    scenario = _deletes_a_txt()
    # Above the gate, a wrapper of another kind (as an output cap would be) stays in place.
    agent = make_mock(toolsets=[WrapperToolset(gated)], scenario=scenario)
    assert await agent.run("delete a.txt") == "done"
    assert ran == ["a.txt"]
    assert agent.pending_tool_calls == []


async def test_resume_with_nothing_waiting_is_refused_and_changes_nothing(
    make_mock: Callable[..., MockReactAgent],
) -> None:
    from pydantic_ai.models.test import TestModel

    real = ReactAgent(ReactAgentConfig(), model=TestModel())
    try:
        for agent in (real, make_mock()):
            await agent.run("hello")
            before = list(agent.context.messages)
            with pytest.raises(ApprovalMismatchError, match="no tool call is waiting"):
                await agent.resume([])
            assert agent.context.messages == before
    finally:
        real.close()


async def test_the_scenario_model_refuses_requests_outside_a_played_run(
    make_mock: Callable[..., MockReactAgent],
) -> None:
    agent = make_mock()
    with pytest.raises(ScenarioError, match="outside a MockReactAgent run"):
        await agent.pydantic_agent.run("bypassing the mock")
