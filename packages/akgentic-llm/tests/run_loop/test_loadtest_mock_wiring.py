"""How a MockReactAgent hands what it is given to the real agent and to its scenario model.

Where the scenario comes from, which agent a per-agent script serves, what reaches the real
``ReactAgent`` (tools, toolsets, deps, the result type, the compaction strategy), and what
the scenario model answers (text or structured replies, token usage, latency, model name,
errors naming the step or the output at fault).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai.messages import ModelResponse, ToolReturnPart
from pydantic_ai.output import PromptedOutput, ToolOutput
from pydantic_ai.tools import RunContext, Tool
from pydantic_ai.toolsets import FunctionToolset, WrapperToolset

from akgentic.llm import COMPACTION_STRATEGIES
from akgentic.llm.compaction import NoCompaction
from akgentic.llm.config import CompactionConfig, ModelConfig, ReactAgentConfig
from akgentic.llm.event import LlmUsageEvent
from akgentic.llm.loadtest import MockReactAgent, Scenario, ScenarioConfig, ScenarioError

MakeMock = Callable[..., MockReactAgent]


class Status(BaseModel):
    title: str
    points: list[str]


STATUS_JSON = '{"title": "ok", "points": ["fine"]}'


def _steps(*steps: dict[str, Any], **fields: Any) -> Scenario:
    return Scenario.model_validate({"steps": list(steps), **fields})


def _lookup(key: str) -> str:
    return f"value of {key}"


def _looks_up(key: str = "k", **call: Any) -> dict[str, Any]:
    """A step calling ``lookup`` on ``key`` (plus ``call``'s fields), then replying ``done``."""
    return {"tool_calls": [{"tool": "lookup", "args": {"key": key}, **call}], "reply": "done"}


def _returned(agent: MockReactAgent, tool: str) -> list[Any]:
    return [
        part.content
        for message in agent.context.messages
        for part in message.parts
        if isinstance(part, ToolReturnPart) and part.tool_name == tool
    ]


# ----------------------------------------------------------------- the prompt


async def test_a_prompt_given_as_a_list_is_matched_as_its_text_joined_by_spaces(
    make_mock: MakeMock,
) -> None:
    agent = make_mock(scenario=_steps({"match": "^first second$", "reply": "matched"}))
    assert await agent.run(["first", "second"]) == "matched"


# ---------------------------------------------------- where the scenario comes from


@pytest.mark.parametrize(
    "model",
    ["scripts/scenario.txt", "S.YAML", "s.YML", "conf\\scenario"],
    ids=["slash-without-extension", "upper-case-yaml", "upper-case-yml", "backslash"],
)
async def test_a_scenario_path_in_the_model_field_is_loaded(
    make_mock: MakeMock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: str
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / model
    path.parent.mkdir(exist_ok=True)
    path.write_text("steps:\n  - reply: from the file\n", encoding="utf-8")
    config = ReactAgentConfig(model_cfg=ModelConfig(model=model))
    assert await make_mock(config).run("hi") == "from the file"


async def test_a_model_name_that_is_also_a_file_name_is_not_read_as_a_scenario(
    make_mock: MakeMock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gpt-x").write_text("steps:\n  - reply: from the file\n", encoding="utf-8")
    config = ReactAgentConfig(model_cfg=ModelConfig(model="gpt-x"))
    assert await make_mock(config).run("hi") == "Mock reply."


async def test_the_older_environment_variable_is_still_read(
    make_mock: MakeMock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("steps:\n  - reply: from the older variable\n", encoding="utf-8")
    monkeypatch.setenv("AKGENTIC_LLM_SCENARIO", str(path))
    assert await make_mock().run("hi") == "from the older variable"


# --------------------------------------------------- which agent a script serves


@dataclass
class _Named:
    name: str


@dataclass
class _Roled:
    role: str


@dataclass
class _Observer:
    config: Any
    events: list[object] = field(default_factory=list)

    def notify_event(self, event: object) -> None:
        self.events.append(event)


def _team() -> ScenarioConfig:
    return ScenarioConfig.model_validate(
        {
            "name": "team",
            "agents": {
                "@Lead": {"default": {"respond": {"text": "lead by name"}}},
                "Developer": {"default": {"respond": {"text": "developer by role"}}},
            },
        }
    )


@pytest.mark.parametrize(
    ("agent_config", "answer"),
    [(_Named("@Lead"), "lead by name"), (_Roled("Developer"), "developer by role")],
)
async def test_a_script_is_found_by_the_agents_name_or_role_alone(
    make_mock: MakeMock, agent_config: Any, answer: str
) -> None:
    agent = make_mock(scenario=_team(), observer=_Observer(agent_config))
    assert await agent.run("hi") == answer


async def test_a_wildcard_script_serves_an_agent_without_an_observer(make_mock: MakeMock) -> None:
    config = ScenarioConfig.model_validate(
        {"name": "s", "agents": {"*": {"default": {"respond": {"text": "anyone"}}}}}
    )
    assert await make_mock(scenario=config).run("hi") == "anyone"


# ------------------------------------------------- what reaches the real agent


@dataclass
class _Deps:
    secret: str


async def test_deps_and_deps_type_reach_the_real_agent(make_mock: MakeMock) -> None:
    def lookup(ctx: RunContext[_Deps], key: str) -> str:
        return f"{key} with {ctx.deps.secret}"

    agent = make_mock(deps_type=_Deps, tools=[lookup], scenario=_steps(_looks_up()))
    assert agent.pydantic_agent.deps_type is _Deps
    assert await agent.run("go", deps=_Deps("s3cret")) == "done"
    assert _returned(agent, "lookup") == ["k with s3cret"]


async def test_the_result_type_is_the_default_output(make_mock: MakeMock) -> None:
    agent = make_mock(result_type=Status, scenario=_steps({"reply": STATUS_JSON}))
    assert await agent.run("status") == Status(title="ok", points=["fine"])


async def test_a_tool_object_is_handed_over_as_it_is(make_mock: MakeMock) -> None:
    tool = Tool(_lookup, name="find", description="Find a key.")
    scenario = _steps({"tool_calls": [{"tool": "find", "args": {"key": "k"}}], "reply": "done"})
    agent = make_mock(tools=[tool], scenario=scenario)
    assert await agent.run("go") == "done"
    assert _returned(agent, "find") == ["value of k"]


async def test_a_tool_object_flagged_for_approval_runs_without_waiting(
    make_mock: MakeMock,
) -> None:
    tool = Tool(_lookup, name="lookup", requires_approval=True)
    agent = make_mock(tools=[tool], scenario=_steps(_looks_up()))
    assert await agent.run("go") == "done"
    assert _returned(agent, "lookup") == ["value of k"]
    assert agent.pending_tool_calls == []
    assert tool.requires_approval is True  # the caller's tool keeps its gate


async def test_a_wrapper_toolset_without_an_approval_gate_stays_in_place(
    make_mock: MakeMock,
) -> None:
    seen: list[str] = []

    @dataclass
    class Counting(WrapperToolset[Any]):
        async def call_tool(self, name: str, tool_args: dict[str, Any], *args: Any) -> Any:
            seen.append(name)
            return await super().call_tool(name, tool_args, *args)

    toolset = Counting(FunctionToolset([_lookup], id="lookups"))
    scenario = _steps({"tool_calls": [{"tool": "_lookup", "args": {"key": "k"}}], "reply": "ok"})
    agent = make_mock(toolsets=[toolset], scenario=scenario)
    assert await agent.run("go") == "ok"
    assert seen == ["_lookup"]


async def test_a_toolsets_tool_is_never_shadowed_by_a_scenario_stub(make_mock: MakeMock) -> None:
    scenario = _steps(_looks_up(returns="stubbed"))
    agent = make_mock(toolsets=[FunctionToolset([Tool(_lookup, name="lookup")])], scenario=scenario)
    assert await agent.run("go") == "done"
    assert _returned(agent, "lookup") == ["value of k"]


async def test_stubs_are_made_for_unregistered_tools_after_a_registered_one(
    make_mock: MakeMock,
) -> None:
    scenario = _steps(
        {
            "tool_calls": [
                {"tool": "lookup", "args": {"key": "k"}, "returns": "unused"},
                {"tool": "hire", "args": {"role": "dev"}, "returns": "hired"},
            ],
            "reply": "done",
        }
    )
    agent = make_mock(tools=[Tool(_lookup, name="lookup")], scenario=scenario)
    assert await agent.run("go") == "done"
    assert _returned(agent, "lookup") == ["value of k"]
    assert _returned(agent, "hire") == ["hired"]


async def test_a_configured_compaction_strategy_is_built_from_the_agents_model_config(
    make_mock: MakeMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[Any] = []

    def factory(cfg: CompactionConfig, model_cfg: ModelConfig, http_client: Any) -> NoCompaction:
        built.append(model_cfg)
        return NoCompaction()

    monkeypatch.setitem(COMPACTION_STRATEGIES, "recording", factory)
    model_cfg = ModelConfig(context_length=1000)
    config = ReactAgentConfig(
        model_cfg=model_cfg, compaction_cfg=CompactionConfig(strategy="recording")
    )
    make_mock(config)
    assert built == [model_cfg]


# ---------------------------------------------------------------- conclusions


async def test_a_structured_conclusion_is_validated_into_the_output_type(
    make_mock: MakeMock,
) -> None:
    agent = make_mock(scenario=_steps({"reply": "x"}, conclusion=STATUS_JSON))
    answer = await agent.conclude_without_tools("wrap up", output_type=Status)
    assert answer == Status(title="ok", points=["fine"])


async def test_a_plain_text_conclusion_in_a_structured_run_names_the_conclusion_step(
    make_mock: MakeMock,
) -> None:
    agent = make_mock(scenario=_steps({"reply": "x"}))
    with pytest.raises(ScenarioError, match="the conclusion step.*plain text"):
        await agent.conclude_without_tools("wrap up", output_type=Status)


# ---------------------------------------------------------------- the answers


async def test_every_response_carries_the_scenarios_model_name(make_mock: MakeMock) -> None:
    agent = make_mock(scenario=_steps({"reply": "x"}, model_name="load-model"))
    await agent.run("hi")
    responses = [m for m in agent.context.messages if isinstance(m, ModelResponse)]
    assert [r.model_name for r in responses] == ["load-model"]


async def test_token_usage_comes_from_the_step_else_the_scenario(
    make_mock: MakeMock, event_recorder: Any
) -> None:
    scenario = _steps(
        {"reply": "own counts", "input_tokens": 11, "output_tokens": 7},
        {"reply": "scenario counts"},
        input_tokens=50,
        output_tokens=30,
    )
    agent = make_mock(scenario=scenario, observer=event_recorder)
    await agent.run("one")
    await agent.run("two")
    usage = event_recorder.of_type(LlmUsageEvent)
    assert [(u.input_tokens, u.output_tokens) for u in usage] == [(11, 7), (50, 30)]


@pytest.mark.parametrize(
    ("step_latency", "scenario_latency"), [(0.3, 0.0), (None, 0.3)], ids=["step", "scenario"]
)
async def test_each_response_waits_the_step_latency_else_the_scenarios(
    make_mock: MakeMock, step_latency: float | None, scenario_latency: float
) -> None:
    scenario = _steps({"reply": "slow", "latency_s": step_latency}, latency_s=scenario_latency)
    agent = make_mock(scenario=scenario)
    started = time.monotonic()
    assert await agent.run("hi") == "slow"
    assert time.monotonic() - started >= 0.3


async def test_a_mapping_reply_in_a_text_run_is_answered_as_json_text(
    make_mock: MakeMock,
) -> None:
    agent = make_mock(scenario=_steps({"reply": {"title": "ok"}}))
    assert await agent.run("hi") == '{"title": "ok"}'


async def test_an_unregistered_tool_error_lists_the_registered_tools(make_mock: MakeMock) -> None:
    scenario = _steps({"tool_calls": [{"tool": "missing"}], "reply": "x"})
    agent = make_mock(tools=[Tool(_lookup, name="lookup")], scenario=scenario)
    with pytest.raises(ScenarioError, match=r"'missing' is not registered.*lookup"):
        await agent.run("go")


async def test_a_structured_reply_error_names_the_output_the_run_expects(
    make_mock: MakeMock,
) -> None:
    agent = make_mock(scenario=_steps({"reply": "words"}))
    with pytest.raises(ScenarioError, match=r"\(status_report\)"):
        await agent.run("go", output_type=ToolOutput(Status, name="status_report"))


async def test_a_json_reply_that_is_not_an_object_is_told_apart_from_plain_text(
    make_mock: MakeMock,
) -> None:
    agent = make_mock(scenario=_steps({"name": "listing", "reply": "[1, 2]"}))
    with pytest.raises(ScenarioError, match=r"step 1 \(listing\).*not an object.*'\[1, 2\]'"):
        await agent.run("go", output_type=Status)


async def test_a_prompted_output_run_refuses_a_plain_text_reply_naming_the_step(
    make_mock: MakeMock,
) -> None:
    agent = make_mock(scenario=_steps({"name": "words", "reply": "just words"}))
    with pytest.raises(ScenarioError, match=r"step 1 \(words\).*plain text"):
        await agent.run("go", output_type=PromptedOutput(Status))
