"""Where a MockReactAgent's scenario comes from, structured replies, and the predecessor's format."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import BaseModel

from akgentic.llm.config import ModelConfig, ReactAgentConfig
from akgentic.llm.loadtest import (
    SCENARIO_ENV_VAR,
    MockProviderReachedError,
    MockReactAgent,
    ScenarioConfig,
    ScenarioError,
    load_scenario,
)


class Message(BaseModel):
    message_type: str
    message: str
    recipient: str


class StructuredOutput(BaseModel):
    messages: list[Message]


@dataclass
class _Config:
    name: str
    role: str


@dataclass
class Observer:
    """Stands for akgentic-agent's BaseAgent: an observer with a config naming the agent."""

    config: _Config
    events: list[object]

    def notify_event(self, event: object) -> None:
        self.events.append(event)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_env_var_is_the_predecessors_name() -> None:
    assert SCENARIO_ENV_VAR == "AKGENTIC_MOCK_SCENARIO"


async def test_scenario_path_carried_in_model_cfg_model(
    make_mock: Callable[..., MockReactAgent], tmp_path: Path
) -> None:
    # akgentic-agent copies the config with model_cfg.model set to the scenario path
    path = write(tmp_path / "s.yaml", "steps:\n  - reply: from the model field\n")
    config = ReactAgentConfig(model_cfg=ModelConfig(model=str(path)))
    assert await make_mock(config).run("hi") == "from the model field"


async def test_scenario_from_the_env_var(
    make_mock: Callable[..., MockReactAgent], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path / "s.yaml", "steps:\n  - reply: from the environment\n")
    monkeypatch.setenv("AKGENTIC_MOCK_SCENARIO", str(path))
    assert await make_mock().run("hi") == "from the environment"


async def test_json_text_reply_is_validated_into_the_requested_type(
    make_mock: Callable[..., MockReactAgent], tmp_path: Path
) -> None:
    reply = json.dumps(
        {"messages": [{"message_type": "response", "message": "done", "recipient": "@Human"}]}
    )
    path = write(tmp_path / "s.yaml", f"steps:\n  - reply: '{reply}'\n")
    agent = make_mock(scenario=path)
    output = await agent.run("go", output_type=StructuredOutput)
    assert output == StructuredOutput(
        messages=[Message(message_type="response", message="done", recipient="@Human")]
    )
    # the same step in a text run answers its text as is
    assert json.loads(await agent.run("again")) == json.loads(reply)


async def test_plain_text_reply_in_a_structured_run_names_the_step(
    make_mock: Callable[..., MockReactAgent], tmp_path: Path
) -> None:
    path = write(
        tmp_path / "s.yaml",
        "steps:\n  - reply: first\n  - name: greeting\n    reply: just some words\n",
    )
    agent = make_mock(scenario=path)
    assert await agent.run("one") == "first"
    with pytest.raises(ScenarioError, match=r"step 2 \(greeting\).*plain text.*'just some words'"):
        await agent.run("two", output_type=StructuredOutput)


async def test_tools_key_and_stub_spelling_are_read(
    make_mock: Callable[..., MockReactAgent], tmp_path: Path
) -> None:
    calls: list[str] = []

    def write_file(path: str, content: str) -> str:
        calls.append(f"{path}={content}")
        return "written"

    path = write(
        tmp_path / "s.yaml",
        "steps:\n"
        "  - tools:\n"
        "      - tool: write_file\n"
        "        args: {path: a.txt, content: hi}\n"
        "      - name: write_file\n"
        '        args: \'{"path": "b.txt", "content": "yo"}\'\n'
        "    reply: ok\n",
    )
    agent = make_mock(scenario=path, tools=[write_file])
    assert await agent.run("go") == "ok"
    assert sorted(calls) == ["a.txt=hi", "b.txt=yo"]


PREDECESSOR = """
name: team-load
default_latency_ms: 0
agents:
  "@Lead":
    states:
      - id: hire
        when: {contains: hire}
        tools:
          - name: hire_members
            args: '{"roles": ["Developer"]}'
            returns: hired @Developer
          - name: lookup
            args: '{"key": "k1"}'
        respond:
          messages:
            - {recipient: "@Developer", message_type: instruction, message: start}
      - id: from-human
        when: {from_sender: "@Human"}
        respond: {text: hello human}
    default:
      respond: {text: default answer}
"""


async def test_the_predecessors_agents_format(
    make_mock: Callable[..., MockReactAgent], tmp_path: Path
) -> None:
    path = write(tmp_path / "team.yaml", PREDECESSOR)
    loaded = load_scenario(path)
    assert isinstance(loaded, ScenarioConfig)
    assert ScenarioConfig.model_validate(loaded.model_dump()) == loaded

    looked_up: list[str] = []

    def lookup(key: str) -> str:
        looked_up.append(key)
        return f"value of {key}"

    observer = Observer(_Config("@Lead", "Lead"), [])
    config = ReactAgentConfig(model_cfg=ModelConfig(model=str(path)))
    agent = make_mock(config, tools=[lookup], observer=observer)

    output = await agent.run("please hire a developer", output_type=StructuredOutput)
    assert output.messages[0].recipient == "@Developer"
    assert looked_up == ["k1"]  # a registered tool runs for real
    returns = [
        str(p.content)
        for m in agent.context.messages
        for p in getattr(m, "parts", [])
        if getattr(p, "tool_name", None) == "hire_members" and hasattr(p, "content")
    ]
    assert returns == ["hired @Developer"]  # the stub answered the unregistered tool

    # every run picks the first matching state from the top; the default answers the rest
    assert await agent.run("A request from @Human: hi") == "hello human"
    assert await agent.run("A request from @Humane: hi") == "default answer"
    assert await agent.run("hire again", output_type=StructuredOutput) == output


async def test_an_agent_without_a_script_is_refused(
    make_mock: Callable[..., MockReactAgent], tmp_path: Path
) -> None:
    path = write(tmp_path / "team.yaml", PREDECESSOR)
    observer = Observer(_Config("@Other", "Other"), [])
    with pytest.raises(MockProviderReachedError, match="no script for '@Other'"):
        make_mock(scenario=path, observer=observer)
    assert issubclass(MockProviderReachedError, RuntimeError)


def test_load_scenario_is_cached_until_the_file_changes(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", "steps:\n  - reply: one\n")
    first = load_scenario(path)
    assert load_scenario(path) is first
    write(path, "steps:\n  - reply: two, longer\n")
    os.utime(path, ns=(1, 1))
    second = load_scenario(path)
    assert second is not first
    assert second.steps[0].reply == "two, longer"  # type: ignore[union-attr]
