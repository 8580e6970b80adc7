"""The loadtest extra: YAML scenarios and the token-free MockReactAgent."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from akgentic.llm import ReactAgent
from akgentic.llm.capabilities.errors import AgentUsageLimitError, RunUsageLimitError
from akgentic.llm.config import (
    AgentUsageLimits,
    CompactionConfig,
    ModelConfig,
    ReactAgentConfig,
    RunUsageLimits,
)
from akgentic.llm.event import (
    LlmContextClearedEvent,
    LlmContextCompactedEvent,
    LlmMessageEvent,
    LlmUsageEvent,
    ToolCallEvent,
    ToolReturnEvent,
)
from akgentic.llm.loadtest import (
    EXAMPLE_SCENARIO,
    SCENARIO_ENV_VAR,
    MockReactAgent,
    Scenario,
    ScenarioError,
    load_scenario,
)


class Status(BaseModel):
    title: str
    points: list[str]


def lookup_order(order_id: str) -> str:
    return f"order {order_id}: shipped"


# --------------------------------------------------------------------- scenario


def test_example_scenario_loads() -> None:
    scenario = load_scenario(EXAMPLE_SCENARIO)
    assert scenario.name == "support-desk"
    assert scenario.model_name == "mock-support-model"
    assert len(scenario.steps) == 3
    assert scenario.steps[0].tool_calls[0].tool == "lookup_order"
    assert scenario.steps[1].reply == {
        "title": "Service status",
        "points": ["All systems operational"],
    }


def test_step_selection_matches_and_cycles() -> None:
    scenario = load_scenario(EXAMPLE_SCENARIO)
    cursor, step = scenario.pick(0, "hello")
    assert (cursor, step) == (3, scenario.steps[2])
    cursor, step = scenario.pick(cursor, "where is my ORDER?")  # wraps around
    assert (cursor, step) == (1, scenario.steps[0])
    cursor, step = scenario.pick(cursor, "status please")
    assert (cursor, step) == (2, scenario.steps[1])


def test_exhaustion_policies() -> None:
    base = {"steps": [{"reply": "one"}, {"reply": "two"}]}
    error = Scenario.model_validate({**base, "on_exhausted": "error"})
    with pytest.raises(ScenarioError, match="exhausted after 2 step"):
        error.pick(2, "x")
    last = Scenario.model_validate({**base, "on_exhausted": "repeat_last"})
    assert last.pick(2, "x") == (2, last.steps[1])
    strict = Scenario.model_validate({"steps": [{"match": "^yes$", "reply": "y"}]})
    with pytest.raises(ScenarioError, match="no step matches"):
        strict.pick(0, "no")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("steps: [", "not valid YAML"),
        ("- a list", "must be a mapping"),
        ("name: x", "steps: Field required"),
        ("steps: [{reply: hi, tokens: 3}]", "steps.0.tokens: Extra inputs"),
        ("steps: [{match: '(', reply: hi}]", "steps.0.match"),
        ("steps: [{reply: hi}]\non_exhausted: sometimes", "on_exhausted"),
    ],
)
def test_invalid_scenarios_name_the_field(text: str, message: str) -> None:
    with pytest.raises(ScenarioError, match=message) as info:
        Scenario.from_yaml(text, source="bad.yaml")
    assert str(info.value).startswith("bad.yaml: ")


def test_missing_file_is_a_scenario_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read scenario file"):
        load_scenario(tmp_path / "absent.yaml")


# ----------------------------------------------------------------- mock agent


def _public_names(cls: type) -> set[str]:
    # "ǁ" marks the copies a mutation-testing run (mutmut) adds to a class: not our surface.
    return {name for name in dir(cls) if not name.startswith("_") and "ǁ" not in name}


def test_public_surface_matches_react_agent() -> None:
    assert _public_names(ReactAgent) <= _public_names(MockReactAgent)
    real = inspect.signature(ReactAgent.__init__).parameters
    mock = inspect.signature(MockReactAgent.__init__).parameters
    assert list(real) == [name for name in mock if name != "scenario"]
    for method in ("run", "run_sync", "conclude_without_tools", "conclude_without_tools_sync"):
        real_params = inspect.signature(getattr(ReactAgent, method)).parameters
        mock_params = inspect.signature(getattr(MockReactAgent, method)).parameters
        assert [(p.name, p.kind) for p in real_params.values()] == [
            (p.name, p.kind) for p in mock_params.values()
        ]


def test_the_constructor_reports_react_agents_parameters_then_scenario() -> None:
    real = list(inspect.signature(ReactAgent.__init__).parameters.values())
    mock = list(inspect.signature(MockReactAgent.__init__).parameters.values())
    assert mock[:-1] == real  # names, kinds, defaults and annotations
    assert (mock[-1].name, mock[-1].kind, mock[-1].default) == (
        "scenario",
        inspect.Parameter.KEYWORD_ONLY,
        None,
    )


def test_the_constructor_binds_arguments_as_react_agent_does(
    make_mock: Callable[..., MockReactAgent], closing: Callable[[Any], Any]
) -> None:
    with pytest.raises(TypeError, match="missing a required argument: 'config'"):
        MockReactAgent()
    with pytest.raises(TypeError, match="unexpected keyword argument 'tool'"):
        MockReactAgent(ReactAgentConfig(), tool=[lookup_order])
    with pytest.raises(TypeError, match="too many positional arguments"):
        MockReactAgent(ReactAgentConfig(), None, [], [], str, None, None, None, "model")
    # positional, as ReactAgent takes them: config, deps_type, tools (``make_mock`` cleared
    # the scenario variables, so the default scenario plays)
    agent = closing(MockReactAgent(ReactAgentConfig(), None, [lookup_order]))
    assert "lookup_order" in agent.pydantic_agent._function_toolset.tools


async def test_mock_plays_the_example_without_credentials(
    make_mock: Callable[..., MockReactAgent], event_recorder: Any
) -> None:
    agent = make_mock(
        ReactAgentConfig(model_cfg=ModelConfig(provider="anthropic", model="claude")),
        tools=[lookup_order],
        observer=event_recorder,
        scenario=EXAMPLE_SCENARIO,
    )
    answer = await agent.run("I want a refund for my order")
    assert answer == "Order A-1042 shipped yesterday; a refund is not needed."
    status = await agent.run("what is the status?", output_type=Status)
    assert status == Status(title="Service status", points=["All systems operational"])
    assert await agent.run("thanks") == (
        "Thanks for reaching out. Is there anything else I can help with?"
    )

    # the tool really ran and every event a real agent emits was emitted
    calls = event_recorder.of_type(ToolCallEvent)
    returns = event_recorder.of_type(ToolReturnEvent)
    assert [(c.tool_name, c.arguments) for c in calls[:1]] == [
        ("lookup_order", '{"order_id":"A-1042"}')
    ]
    assert returns[0].success is True
    tool_results = [
        p.content
        for m in agent.context.messages
        for p in m.parts
        if getattr(p, "part_kind", "") == "tool-return" and p.tool_name == "lookup_order"
    ]
    assert tool_results == ["order A-1042: shipped"]
    usage = event_recorder.of_type(LlmUsageEvent)
    assert {u.model_name for u in usage} == {"mock-support-model"}
    assert [u.input_tokens for u in usage[:2]] == [320, 320]
    assert [e.message for e in event_recorder.of_type(LlmMessageEvent)] == agent.context.messages


async def test_scenario_from_environment_and_default(
    make_mock: Callable[..., MockReactAgent], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert await make_mock().run("anything") == "Mock reply."
    path = tmp_path / "s.yaml"
    path.write_text("steps:\n  - reply: from the environment\n", encoding="utf-8")
    monkeypatch.setenv(SCENARIO_ENV_VAR, str(path))
    assert await make_mock().run("anything") == "from the environment"


async def test_capabilities_and_limit_recovery_are_accepted_and_ignored(
    make_mock: Callable[..., MockReactAgent],
) -> None:
    from pydantic_ai.capabilities import ProcessHistory

    touched: list[int] = []

    def processor(messages: list[Any]) -> list[Any]:
        touched.append(len(messages))
        return messages

    agent = make_mock(capabilities=[ProcessHistory(processor=processor)])
    assert await agent.run("hi") == "Mock reply."
    assert touched == []


async def test_unregistered_scripted_tool_fails_the_run_clearly(
    make_mock: Callable[..., MockReactAgent],
) -> None:
    agent = make_mock(scenario=EXAMPLE_SCENARIO)
    with pytest.raises(ScenarioError, match="tool 'lookup_order' is not registered"):
        await agent.run("refund please")


async def test_limits_are_enforced_like_the_real_agent(
    make_mock: Callable[..., MockReactAgent],
) -> None:
    config = ReactAgentConfig(
        run_usage_limits=RunUsageLimits(run_request_limit=1),
        agent_usage_limits=AgentUsageLimits(agent_request_limit=2),
    )
    agent = make_mock(config, tools=[lookup_order], scenario=EXAMPLE_SCENARIO)
    # the refund step needs two requests: the run tier breaks it, and it still counts
    with pytest.raises(RunUsageLimitError, match="request_limit of 1"):
        await agent.run("refund")
    assert await agent.run("hello") == (
        "Thanks for reaching out. Is there anything else I can help with?"
    )
    with pytest.raises(AgentUsageLimitError, match=r"agent_request_limit of 2 \(run_count=2\)"):
        await agent.run("hello")


async def test_conclusion_compaction_clear_and_restore(
    make_mock: Callable[..., MockReactAgent], event_recorder: Any
) -> None:
    config = ReactAgentConfig(
        model_cfg=ModelConfig(context_length=1000),
        compaction_cfg=CompactionConfig(trigger_ratio=0.5),
    )
    scenario = Scenario.model_validate(
        {"input_tokens": 600, "summary": "Scripted summary.", "steps": [{"reply": "ok"}]}
    )
    agent = make_mock(config, observer=event_recorder, scenario=scenario)
    assert await agent.conclude_without_tools("wrap up") == scenario.conclusion
    await agent.run("second run: auto-compaction fires at its head (600 >= 500)")
    (compacted,) = event_recorder.of_type(LlmContextCompactedEvent)
    assert compacted.summary == "Scripted summary."
    assert compacted.strategy_id == "summarize"

    restored = make_mock(config, scenario=scenario)
    restored.restore_context(event_recorder.events)
    assert restored.context.messages == agent.context.messages
    assert restored.lifetime_budget.run_count == agent.lifetime_budget.run_count == 2

    assert (await agent.acompact()).startswith("Compacted ")
    with pytest.raises(RuntimeError, match="acompact"):
        agent.compact()
    assert len(agent.context.messages) == 1  # the compacted head
    assert agent.clear_context() == "Cleared 1 message(s) from the context."
    assert event_recorder.of_type(LlmContextClearedEvent)
    assert agent.context.messages == []


def test_sync_bridge_and_close(make_mock: Callable[..., MockReactAgent]) -> None:
    agent = make_mock()
    assert agent.run_sync("hi") == "Mock reply."
    assert agent.conclude_without_tools_sync("stop") == agent.scenario.conclusion
    assert agent.compact().startswith("Compacted 4 message(s)")
    agent.close()
    agent.close()
    assert agent.closed
    with pytest.raises(RuntimeError, match="closed"):
        agent.run_sync("again")


async def test_many_concurrent_runs_keep_their_own_steps(
    make_mock: Callable[..., MockReactAgent],
) -> None:
    """Concurrent runs, on one mock and across mocks, never read each other's step."""
    import asyncio

    scenario = Scenario.model_validate(
        {
            "steps": [
                {
                    "match": "^alpha",
                    "tool_calls": [{"tool": "lookup_order", "args": {"order_id": "a"}}],
                    "reply": "A",
                },
                {"match": "^beta", "reply": "B"},
            ]
        }
    )
    agents = [make_mock(tools=[lookup_order], scenario=scenario) for _ in range(10)]
    prompts = ["alpha", "beta"] * 3
    results = await asyncio.gather(
        *(agent.run(f"{prompt} {i}") for agent in agents for i, prompt in enumerate(prompts))
    )
    assert results == ["A", "B"] * 3 * len(agents)
