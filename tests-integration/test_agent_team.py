"""The published consumer, unmodified: a team of akgentic-agent `BaseAgent`s on our packages.

akgentic-agent 1.6.8 comes from the package index through the bundle's `agent` extra; its
requirement on `akgentic-tool` resolves to our code-free 2.0.0. Its code is used as shipped:
only the model is replaced by akgentic-llm's `ScriptedModel` (and, for the last test,
by the load-testing mock through the environment variable it reads).
"""

from __future__ import annotations

import base64
import importlib.metadata as md
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import UserPromptPart
from pydantic_ai.profiles import ModelProfile

from akgentic.agent import AgentConfig, AgentMessage, BaseAgent, HumanProxy
from akgentic.core import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_card import AgentCard
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.llm import ReactAgent
from akgentic.llm.config import AgentUsageLimits, RunUsageLimits
from akgentic.llm.prompts import PromptTemplate
from akgentic.llm.testing import Reply, ScriptedCall, ScriptedModel, ScriptedRequest
from akgentic.tool.core.event import CommandsAnnouncedEvent
from akgentic.tool.core.testing import eventually, orchestrator_events
from akgentic.tool.core.workspace_dir import WORKSPACES_ROOT_ENV
from akgentic.tool.planning import PlanningTool
from akgentic.tool.workspace import WorkspaceTool

WORKSPACE = "agents"
# A 1x1 PNG, for the `!!pattern` media references.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)

Respond = Callable[[ScriptedRequest], Reply]
SCRIPTS: dict[str, Respond] = {}
SEEN: dict[str, list[Any]] = {}
RECEIVED: dict[str, list[AgentMessage]] = {}
_LOCK = threading.Lock()


class ScriptedAgent(BaseAgent):
    """akgentic-agent's BaseAgent as shipped; only its model is a scripted one, reacting to
    each request."""

    def _build_react_agent(self, config: Any, tools: list[Any], toolsets: list[Any]) -> Any:
        agent = super()._build_react_agent(config, tools, toolsets)
        script = SCRIPTS.get(self.config.name)
        if script is not None and isinstance(agent, ReactAgent):
            # a JSON-schema capable profile: BaseAgent asks for native structured output
            profile = ModelProfile(supports_json_schema_output=True)
            agent.pydantic_agent.model = ScriptedModel(when_done=script, profile=profile)
        return agent


class Recorder(HumanProxy):
    """Stands for the human (a user proxy, as BaseAgent expects): sends and keeps messages."""

    def receiveMsg_AgentMessage(self, message: AgentMessage, sender: ActorAddress) -> None:
        with _LOCK:
            RECEIVED.setdefault(self.config.name, []).append(message)

    def itself(self) -> Recorder:
        return self

    def say(self, to: ActorAddress, content: str, kind: str = "request") -> None:
        self.send(to, AgentMessage(content=content, type=kind, recipient=to))  # type: ignore[arg-type]


def _media_of(request: ScriptedRequest) -> list[Any]:
    """What the request's user prompt carries besides text (images from `!!` references)."""
    media: list[Any] = []
    for part in request.messages[-1].parts:
        if isinstance(part, UserPromptPart) and not isinstance(part.content, str):
            media += [item for item in part.content if not isinstance(item, str)]
    return media


def _answer(*messages: tuple[str, str, str]) -> str:
    body = [{"message_type": k, "message": m, "recipient": r} for k, m, r in messages]
    return json.dumps({"messages": body})


def _record(name: str, item: Any) -> None:
    with _LOCK:
        SEEN.setdefault(name, []).append(item)


def lead_script(request: ScriptedRequest) -> Reply:
    text = request.prompt
    if not text:  # the tools' answers to this run's calls
        for result in request.results:
            _record("@Lead", (result.tool_name, str(result.content)))
        if any(result.tool_name == "hire_members" for result in request.results):
            return _answer(("instruction", "write dev.txt saying hello", "@Developer"))
        return _answer()
    _record("@Lead", ("prompt", text, [type(m).__name__ for m in _media_of(request)]))
    if "hire a developer" in text:
        return [
            ScriptedCall("hire_members", {"roles": ["Developer"]}),
            ScriptedCall("workspace_write", {"path": "brief.md", "content": "# Brief\n"}),
        ]
    if "fire the developer" in text:
        return ScriptedCall("fire_members", {"names": ["@Developer"]})
    if "spend" in text and request.tools:
        return ScriptedCall("workspace_list", {"path": "."})
    # anything else, including a tool-free conclusion: a short answer to the human
    return _answer(("response", f"noted ({len(request.tools)} tools)", "@Human"))


def developer_script(request: ScriptedRequest) -> Reply:
    if request.results:
        return _answer()
    _record("@Developer", ("prompt", request.prompt))
    if "write dev.txt" in request.prompt:
        return ScriptedCall("workspace_write", {"path": "dev.txt", "content": "hello\n"})
    return _answer()


@pytest.fixture(autouse=True)
def _fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(WORKSPACES_ROOT_ENV, str(tmp_path / "workspaces"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")  # the model is replaced before use
    monkeypatch.delenv("AKGENTIC_MOCK_SCENARIO", raising=False)
    SCRIPTS.clear()
    SEEN.clear()
    RECEIVED.clear()
    SCRIPTS.update({"@Lead": lead_script, "@Developer": developer_script})


def _config(name: str, role: str, **extra: Any) -> AgentConfig:
    return AgentConfig(
        name=name,
        role=role,
        prompt=PromptTemplate(template=f"You are the team's {role.lower()}."),
        tools=[WorkspaceTool(workspace_id=WORKSPACE), PlanningTool()],
        **extra,
    )


def _team(
    system: ActorSystem, orchestrator: ActorAddress, **lead_extra: Any
) -> tuple[Orchestrator, ActorAddress, Recorder]:
    orch = system.proxy_ask(orchestrator, Orchestrator)
    orch.register_agent_profiles(
        [
            AgentCard(
                agent_class=ScriptedAgent,
                description="Writes the code.",
                config=_config("@Developer", "Developer"),
                can_be_hired=True,
            )
        ]
    )
    lead = orch.createActor(ScriptedAgent, config=_config("@Lead", "Lead", **lead_extra))
    human_address = orch.createActor(Recorder, config=BaseConfig(name="@Human", role="Human"))
    human: Recorder = system.proxy_ask(human_address, Recorder).itself()
    return orch, lead, human


def _names(orch: Orchestrator) -> set[str]:
    return {member.name for member in orch.get_team()}


def test_the_consumer_is_the_published_release_on_our_layers() -> None:
    assert md.version("akgentic-agent") == "1.6.8"
    assert md.version("akgentic-tool") == "2.0.0"  # our code-free distribution
    assert md.version("akgentic-llm").startswith("3.")
    # the tool layer's modules are ours, not a monolith's
    files = md.distribution("akgentic-tool").files or []
    assert not [f for f in files if str(f).endswith(".py")]


def test_agent_config_defaults_validate() -> None:
    config = AgentConfig()
    assert config.tools == []
    assert isinstance(config.prompt, PromptTemplate)
    assert AgentConfig.model_validate(config.model_dump()).prompt == config.prompt


def test_a_lead_hires_instructs_and_fires_a_developer(
    actor_system: ActorSystem, orchestrator: ActorAddress, tmp_path: Path
) -> None:
    orch, lead, human = _team(actor_system, orchestrator)
    human.say(lead, "Please hire a developer and brief them.")

    workspace = tmp_path / "workspaces" / WORKSPACE
    eventually(lambda: (workspace / "dev.txt").is_file(), timeout=20)
    assert (workspace / "brief.md").read_text() == "# Brief\n"
    assert (workspace / "dev.txt").read_text() == "hello\n"
    assert "@Developer" in _names(orch)
    developer = next(m for m in orch.get_team() if m.name == "@Developer")

    human.say(lead, "Now fire the developer.")
    eventually(lambda: "@Developer" not in _names(orch), timeout=20)
    # the fired member was stopped, not only dropped from the roster
    eventually(lambda: not developer.is_alive(), timeout=10)
    fired = eventually(
        lambda: [item for item in SEEN["@Lead"] if item[0] == "fire_members"], timeout=10
    )
    assert "@Developer" in fired[0][1]


def test_commands_are_announced_and_dispatched(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    orch, lead, human = _team(actor_system, orchestrator)
    announced = eventually(
        lambda: [
            e
            for e in orchestrator_events(actor_system, orchestrator, CommandsAnnouncedEvent)
            if e.agent == lead
        ],
        timeout=10,
    )
    assert len(announced) == 1
    names = {descriptor.name for descriptor in announced[0].commands}
    assert {"compact", "clear", "hire_member", "_expand_media_refs"} <= names

    human.say(lead, "/clear")
    human.say(lead, "/compact")
    human.say(lead, "/hire_member Developer")
    replies = eventually(lambda: len(RECEIVED.get("@Human", [])) >= 3 and RECEIVED["@Human"], 20)
    assert all(reply.type == "notification" for reply in replies)
    eventually(lambda: "@Developer" in _names(orch), timeout=10)
    # a slash command never reaches the model
    assert not [item for item in SEEN.get("@Lead", []) if item[0] == "prompt"]


def test_media_references_reach_the_model_as_images(
    actor_system: ActorSystem, orchestrator: ActorAddress, tmp_path: Path
) -> None:
    workspace = tmp_path / "workspaces" / WORKSPACE
    workspace.mkdir(parents=True)
    (workspace / "shot.png").write_bytes(PIXEL)
    _, lead, human = _team(actor_system, orchestrator)
    human.say(lead, "Please look at !!shot.png and tell me what you see.")
    prompt = eventually(
        lambda: [item for item in SEEN.get("@Lead", []) if item[0] == "prompt"], timeout=20
    )[0]
    assert "BinaryContent" in prompt[2]


def test_run_tier_breach_is_concluded_and_agent_tier_is_terminal(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    """Both tiers as akgentic-agent's guard handles them, on our ReactAgent.

    The turn needs two requests (a tool call, then the answer), but `run_request_limit` is 1:
    the run tier breaks and the turn is concluded without tools, whose answer reaches the
    human. `agent_request_limit` counts runs (a rescued turn is two): the second turn's
    rescue is refused by the agent tier, the third turn is refused outright, and each time
    the human is told.
    """
    _, lead, human = _team(
        actor_system,
        orchestrator,
        run_usage_limits=RunUsageLimits(run_request_limit=1),
        agent_usage_limits=AgentUsageLimits(agent_request_limit=3),
    )
    human.say(lead, "spend some requests")
    concluded = eventually(lambda: RECEIVED.get("@Human"), timeout=20)
    assert concluded[0].content == "noted (0 tools)"  # the conclusion ran without tools
    human.say(lead, "spend some more")
    # turn 2 breaks the run tier again, but its rescue would be run 4: the human is told
    eventually(lambda: [m for m in RECEIVED["@Human"] if "request_limit of 1" in m.content], 20)
    human.say(lead, "spend again")
    refused = eventually(
        lambda: [m for m in RECEIVED["@Human"] if "agent_request_limit of 3" in m.content], 20
    )
    assert refused[0].type == "notification"
    # the spent agent asked the model nothing more: prompts of turns 1 and 2 and turn 1's rescue
    prompts = [item for item in SEEN["@Lead"] if item[0] == "prompt"]
    assert len(prompts) == 3


def test_the_mock_scenario_switch_replaces_the_model(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(
        "steps:\n"
        "  - tool_calls:\n"
        "      - tool: workspace_write\n"
        "        args: {path: mock.txt, content: from the scenario}\n"
        "    reply:\n"
        "      messages:\n"
        "        - {message_type: response, message: mocked, recipient: '@Human'}\n"
    )
    monkeypatch.setenv("AKGENTIC_MOCK_SCENARIO", str(scenario))
    SCRIPTS.clear()
    _, lead, human = _team(actor_system, orchestrator)
    human.say(lead, "anything")
    answers = eventually(lambda: RECEIVED.get("@Human"), timeout=20)
    assert answers[0].content == "mocked"
    assert (tmp_path / "workspaces" / WORKSPACE / "mock.txt").read_text() == "from the scenario"


def test_human_proxy_relays_a_reply(actor_system: ActorSystem, orchestrator: ActorAddress) -> None:
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    proxy = orch.createActor(HumanProxy, config=BaseConfig(name="@Operator", role="Human"))
    recorder_address = orch.createActor(Recorder, config=BaseConfig(name="@Asker", role="Asker"))
    incoming = AgentMessage(content="Proceed?", recipient=proxy, sender=recorder_address)  # type: ignore[arg-type]
    actor_system.proxy_ask(proxy, HumanProxy).process_human_input("Yes", incoming)
    answer = eventually(lambda: RECEIVED.get("@Asker"), timeout=10)
    assert answer[0].content == "Yes"
